"""Loaders for the benchmark data sets and the built-in demo data.

Every loader returns dense float64 feature matrices and float64 labels in {-1, +1}:

* ``load_demo``    scikit-learn's bundled breast-cancer data (569 × 30), standardised with a
                   scaler fit on the training part only, fixed stratified 70/30 split. Needs no
                   files; this is the product's default data set.
* ``load_ida``     one split of a Rätsch/IDA benchmark (banana, image, waveform, ...), read from
                   ``<data>/ida/<name>/<name>_{train,test}_{data,labels}_<split>.asc.xz``.
* ``load_ijcnn1``  LIBSVM's ijcnn1 (train 49,990 × 22, test 91,701 × 22), optionally with a
                   seeded, stratified subsample of the training set.
* ``load_libsvm``  any LIBSVM/SVMlight text file (plain, .bz2, .gz or .xz), with parse errors
                   reported by file and line number (``svmbound.libsvm_files``).
* ``load_golub``   the Golub et al. (1999) leukemia data (ALL/AML, 38 train / 34 test × 7129
                   genes, raw Affymetrix intensities), read from ``<data>/golub/``.

The data root (``data_dir``) is, in order: the ``data`` / ``path`` argument, the environment
variable ``SVMBOUND_DATA``, ``../shared/data`` relative to the current directory, and
``../shared/data`` relative to the repository root. Nothing is downloaded and nothing is copied.

Every random choice takes a ``random_state``.
"""

from __future__ import annotations

import csv
import io
import numbers
import os
import re
from pathlib import Path

import numpy as np

from .libsvm_files import _open_binary, dense_limit_bytes, load_libsvm, load_libsvm_files

__all__ = ["ENV_VAR", "data_dir", "ida_datasets", "load_ida", "load_libsvm", "load_libsvm_files",
           "dense_limit_bytes", "load_ijcnn1",
           "load_golub", "load_demo"]

#: Environment variable naming the data root.
ENV_VAR = "SVMBOUND_DATA"

#: The repository root: the parent of the ``svmbound`` package directory.
_REPO_ROOT = Path(__file__).resolve().parent.parent
_RELATIVE_DEFAULT = Path("..") / "shared" / "data"

IJCNN1_FEATURES = 22


# ---------------------------------------------------------------------------------------------
# data root
# ---------------------------------------------------------------------------------------------
def data_dir(path=None) -> Path:
    """The benchmark data root as an absolute ``Path``.

    Looked up in order: ``path``; the environment variable ``SVMBOUND_DATA``;
    ``../shared/data`` relative to the current working directory; ``../shared/data`` relative
    to the repository root. An explicit ``path`` or a set ``SVMBOUND_DATA`` is used as given
    (no fall-back), so a typo is reported rather than silently replaced. Raises
    ``FileNotFoundError`` listing every place looked at when no candidate is a directory.
    """
    if path is not None:
        candidates = [(Path(path).expanduser(), "the data argument")]
    elif os.environ.get(ENV_VAR):
        candidates = [(Path(os.environ[ENV_VAR]).expanduser(), f"${ENV_VAR}")]
    else:
        candidates = [(Path.cwd() / _RELATIVE_DEFAULT, "relative to the current directory"),
                      (_REPO_ROOT / _RELATIVE_DEFAULT, "relative to the repository root")]
    for cand, _ in candidates:
        if cand.is_dir():
            return cand.resolve()
    looked = "; ".join(f"{c} ({why})" for c, why in candidates)
    raise FileNotFoundError(
        f"benchmark data directory not found; looked in: {looked}. Point to it with the "
        f"environment variable {ENV_VAR}=/path/to/data or the --data DIR option (the directory "
        f"that contains ida/ and libsvm/).")


# ---------------------------------------------------------------------------------------------
# IDA
# ---------------------------------------------------------------------------------------------
def ida_datasets(data=None) -> list[str]:
    """Names of the IDA data sets present under ``<data>/ida``."""
    root = data_dir(data) / "ida"
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir())


def _ida_splits(folder: Path, name: str) -> list[int]:
    pat = re.compile(rf"^{re.escape(name)}_train_data_(\d+)\.asc(\.xz)?$")
    found = (pat.match(p.name) for p in folder.iterdir())
    return sorted(int(m.group(1)) for m in found if m)


def _ida_file(folder: Path, stem: str) -> Path:
    for suffix in (".asc.xz", ".asc"):
        f = folder / (stem + suffix)
        if f.is_file():
            return f
    raise FileNotFoundError(f"IDA file missing: {folder / (stem + '.asc.xz')}")


def _read_labels(f: Path) -> np.ndarray:
    y = np.loadtxt(f, dtype=np.float64, ndmin=1).ravel()
    bad = ~((y == 1.0) | (y == -1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{f}: labels must be -1 or +1; line {i + 1} has {y[i]!r}")
    return y


def load_ida(name: str, split: int = 1, data=None):
    """One split of an IDA benchmark: ``(X_train, y_train, X_test, y_test)``.

    Reads ``<data>/ida/<name>/<name>_{train,test}_{data,labels}_<split>.asc.xz`` with
    ``numpy.loadtxt``. Features come pre-standardised by IDA; labels are float64 ±1.
    An unknown ``name`` raises ``ValueError`` listing the available data sets; a split that is
    not present raises ``ValueError`` listing the available splits.
    """
    root = data_dir(data)
    available = ida_datasets(root)
    if name not in available:
        raise ValueError(f"unknown IDA data set {name!r}; available under {root / 'ida'}: "
                         f"{', '.join(available) if available else '(none)'}")
    folder = root / "ida" / name
    if isinstance(split, (bool, np.bool_)) or not isinstance(split, (numbers.Integral,
                                                                     np.integer)):
        raise ValueError(f"split must be an integer, got {split!r}")
    split = int(split)
    splits = _ida_splits(folder, name)
    if split not in splits:
        shown = (f"{splits[0]}-{splits[-1]}" if splits == list(range(splits[0], splits[-1] + 1))
                 else ", ".join(map(str, splits))) if splits else "(none)"
        raise ValueError(f"IDA data set {name!r} has no split {split} in {folder}; "
                         f"available splits: {shown}")
    out = []
    for part in ("train", "test"):
        fx = _ida_file(folder, f"{name}_{part}_data_{split}")
        fy = _ida_file(folder, f"{name}_{part}_labels_{split}")
        X = np.loadtxt(fx, dtype=np.float64, ndmin=2)
        y = _read_labels(fy)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"{fx} has {X.shape[0]} rows but {fy} has {y.shape[0]} labels")
        out += [np.ascontiguousarray(X), y]
    if out[0].shape[1] != out[2].shape[1]:
        raise ValueError(f"IDA {name} split {split}: train has {out[0].shape[1]} features, "
                         f"test has {out[2].shape[1]}")
    return tuple(out)


def _stratified_subsample(y, n, random_state):
    from sklearn.model_selection import StratifiedShuffleSplit

    sss = StratifiedShuffleSplit(n_splits=1, train_size=n, random_state=random_state)
    idx, _ = next(sss.split(np.zeros((y.shape[0], 1)), y))
    return np.sort(idx)


def load_ijcnn1(data=None, n_train=None, random_state=0):
    """LIBSVM ijcnn1: ``(X_train, y_train, X_test, y_test)``, 22 features, labels ±1.

    Train is ``libsvm/ijcnn1.bz2`` (49,990 rows), test ``libsvm/ijcnn1.t.bz2`` (91,701 rows).
    With ``n_train``, the training set is replaced by a stratified random subsample of that
    many rows (seeded by ``random_state``; rows kept in file order). The test set is complete.
    """
    root = data_dir(data)
    X_tr, y_tr = load_libsvm(root / "libsvm" / "ijcnn1.bz2", n_features=IJCNN1_FEATURES)
    X_te, y_te = load_libsvm(root / "libsvm" / "ijcnn1.t.bz2", n_features=IJCNN1_FEATURES)
    if n_train is not None:
        if isinstance(n_train, bool) or int(n_train) != n_train or n_train < 2:
            raise ValueError(f"n_train must be an integer >= 2, got {n_train!r}")
        n_train = int(n_train)
        if n_train < X_tr.shape[0]:
            idx = _stratified_subsample(y_tr, n_train, random_state)
            X_tr, y_tr = np.ascontiguousarray(X_tr[idx]), y_tr[idx]
    for y, f in ((y_tr, "ijcnn1.bz2"), (y_te, "ijcnn1.t.bz2")):
        if not np.all((y == 1.0) | (y == -1.0)):
            raise ValueError(f"{root / 'libsvm' / f}: expected labels -1/+1, got {np.unique(y)}")
    return X_tr, y_tr, X_te, y_te


# ---------------------------------------------------------------------------------------------
# Golub leukemia
# ---------------------------------------------------------------------------------------------
GOLUB_FILES = {"train": "data_set_ALL_AML_train.csv", "test": "data_set_ALL_AML_independent.csv",
               "labels": "actual.csv"}
#: Label of each class in ``load_golub`` (Chapelle §8.2: myeloid (AML) vs lymphoblastic (ALL)).
GOLUB_CLASSES = {"AML": 1.0, "ALL": -1.0}


def _golub_file(folder: Path, name: str) -> Path:
    for suffix in (".xz", ".bz2", ".gz", ""):
        f = folder / (name + suffix)
        if f.is_file():
            return f
    raise FileNotFoundError(f"Golub file missing: {folder / (name + '.xz')} (nor plain/.bz2/.gz)")


def _read_text(path: Path) -> str:
    with _open_binary(path) as fh:
        return fh.read().decode("utf-8", errors="replace")


def _read_golub_matrix(path: Path):
    """(patient numbers, genes (accession), X of shape (samples, genes)) from one Golub CSV:
    columns 'Gene Description', 'Gene Accession Number', then per sample its value and a
    'call' column (A/P/M)."""
    rows = [r for r in csv.reader(io.StringIO(_read_text(path))) if r]
    if not rows:
        raise ValueError(f"{path}: empty file")
    header = rows[0]
    if len(header) < 4 or (len(header) - 2) % 2:
        raise ValueError(f"{path}: expected 2 gene columns then (sample, call) pairs in the "
                         f"header, got {len(header)} columns")
    value_cols = list(range(2, len(header), 2))
    try:
        patients = [int(header[c]) for c in value_cols]
    except ValueError:
        raise ValueError(f"{path}: sample columns must be headed by patient numbers, got "
                         f"{[header[c] for c in value_cols][:5]}...") from None
    genes, values = [], []
    for lineno, r in enumerate(rows[1:], start=2):
        if len(r) != len(header):
            raise ValueError(f"{path}, line {lineno}: {len(r)} columns, header has {len(header)}")
        genes.append(r[1])
        try:
            values.append([float(r[c]) for c in value_cols])
        except ValueError:
            raise ValueError(f"{path}, line {lineno}: a sample value is not a number") from None
    X = np.asarray(values, dtype=np.float64).T
    return np.asarray(patients), np.asarray(genes, dtype=object), X


def load_golub(data=None, return_genes: bool = False):
    """Golub et al. (1999) ALL/AML leukemia data: ``(X_train, y_train, X_test, y_test)``, plus
    the gene accession numbers when ``return_genes``.

    Reads ``<data>/golub/data_set_ALL_AML_train.csv(.xz)`` (38 samples),
    ``data_set_ALL_AML_independent.csv(.xz)`` (34 samples) and ``actual.csv(.xz)`` (patient
    number → ALL/AML). X holds the raw, unnormalised Affymetrix values (7129 genes; the 'call'
    columns are dropped), rows sorted by patient number. y: AML = +1, ALL = −1
    (``GOLUB_CLASSES``). Missing files raise ``FileNotFoundError``; a patient without a label,
    an unknown class or a different gene list in the two files raise ``ValueError``.
    """
    folder = data_dir(data) / "golub"
    if not folder.is_dir():
        raise FileNotFoundError(f"Golub data folder not found: {folder}")
    lab_path = _golub_file(folder, GOLUB_FILES["labels"])
    labels = {}
    for lineno, line in enumerate(_read_text(lab_path).splitlines(), start=1):
        line = line.strip()
        if not line or (lineno == 1 and not line[0].isdigit()):
            continue
        pid, _, cls = line.partition(",")
        cls = cls.strip().strip('"')
        if cls not in GOLUB_CLASSES:
            raise ValueError(f"{lab_path}, line {lineno}: class must be one of "
                             f"{sorted(GOLUB_CLASSES)}, got {cls!r}")
        labels[int(pid)] = GOLUB_CLASSES[cls]
    out, gene_lists = [], []
    for part in ("train", "test"):
        path = _golub_file(folder, GOLUB_FILES[part])
        patients, genes, X = _read_golub_matrix(path)
        missing = [int(p) for p in patients if int(p) not in labels]
        if missing:
            raise ValueError(f"{path}: patients {missing[:10]} have no label in {lab_path}")
        order = np.argsort(patients, kind="stable")
        y = np.array([labels[int(p)] for p in patients[order]], dtype=np.float64)
        out += [np.ascontiguousarray(X[order]), y]
        gene_lists.append(genes)
    if gene_lists[0].shape != gene_lists[1].shape or np.any(gene_lists[0] != gene_lists[1]):
        raise ValueError(f"Golub train and test files in {folder} list different genes")
    if return_genes:
        return tuple(out) + (gene_lists[0],)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# built-in demo data
# ---------------------------------------------------------------------------------------------
def load_demo(random_state=0):
    """scikit-learn's breast-cancer data as ``(X_train, y_train, X_test, y_test)``.

    569 × 30, stratified split with test_size=0.3 (398 train / 171 test) seeded by
    ``random_state``; a ``StandardScaler`` fit on the training part only is applied to both
    parts. Labels: benign (sklearn target 1) = +1, malignant (0) = −1.
    """
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, t = load_breast_cancer(return_X_y=True)
    y = np.where(t == 1, 1.0, -1.0)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y,
                                              random_state=random_state)
    scaler = StandardScaler().fit(X_tr)
    X_tr = np.ascontiguousarray(scaler.transform(X_tr), dtype=np.float64)
    X_te = np.ascontiguousarray(scaler.transform(X_te), dtype=np.float64)
    return X_tr, y_tr, X_te, y_te
