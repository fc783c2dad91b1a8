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
                   reported by file and line number.
* ``load_golub``   the Golub et al. (1999) leukemia data (ALL/AML, 38 train / 34 test × 7129
                   genes, raw Affymetrix intensities), read from ``<data>/golub/``.

The data root (``data_dir``) is, in order: the ``data`` / ``path`` argument, the environment
variable ``SVMBOUND_DATA``, ``../shared/data`` relative to the current directory, and
``../shared/data`` relative to the repository root. Nothing is downloaded and nothing is copied.

Every random choice takes a ``random_state``.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import lzma
import os
import re
import warnings
from pathlib import Path

import numpy as np

from .exceptions import DataWarning

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
    try:
        split = int(split)
    except (TypeError, ValueError):
        raise ValueError(f"split must be an integer, got {split!r}") from None
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


# ---------------------------------------------------------------------------------------------
# LIBSVM format
# ---------------------------------------------------------------------------------------------
#: Largest feature index scikit-learn's LIBSVM parser accepts (it overflows beyond).
MAX_FEATURE_INDEX = 2**31 - 1
#: Upper limit of ``dense_limit_bytes``: whatever the memory, a LIBSVM file is not turned into a
#: dense matrix of more than 16 GiB (a stray index such as ``50000000:1`` in an 80-line file
#: asks for 30 GiB; svmbound's kernels need an n×n matrix long before d×n is that large).
DENSE_LIMIT_MAX_BYTES = 16 * 2**30

_COMPRESSION = {".bz2": "bzip2", ".gz": "gzip", ".xz": "xz"}


def dense_limit_bytes() -> int:
    """Largest dense float64 feature matrix the LIBSVM loaders build, in bytes: a quarter of the
    physical memory (the rule of the kernel cache), at most ``DENSE_LIMIT_MAX_BYTES``."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 4 * DENSE_LIMIT_MAX_BYTES
    return int(min(DENSE_LIMIT_MAX_BYTES, total // 4))


def _open_binary(path: Path):
    """Open a possibly compressed file for binary reading (by extension)."""
    suffix = path.suffix.lower()
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    if suffix == ".gz":
        return gzip.open(path, "rb")
    if suffix == ".xz":
        return lzma.open(path, "rb")
    return open(path, "rb")


def _read_error(path: Path, exc: BaseException) -> Exception:
    """The error to raise for an OS or decompression failure while reading ``path``: the
    OS errors (permission, a directory…) keep their type with the path in the message; a
    corrupt or truncated compressed file becomes a ValueError that says so."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return type(exc)(exc.errno, exc.strerror, str(path))
    kind = _COMPRESSION.get(path.suffix.lower())
    if isinstance(exc, EOFError):
        return ValueError(f"{path}: the {kind or 'compressed'} data end too early (truncated "
                          f"file?): {exc}")
    if kind is not None:
        return ValueError(f"{path}: cannot decompress as {kind} data (the name ends in "
                          f"{path.suffix}; is the file really {kind}-compressed?): {exc}")
    return ValueError(f"{path}: cannot read: {exc}")


def _line_indices(line: bytes):
    """Feature indices of one LIBSVM line (no validation; [] for blank/comment lines)."""
    text = line.split(b"#", 1)[0].split()
    out = []
    for tok in text[1:]:
        idx, sep, _ = tok.partition(b":")
        if sep and idx != b"qid":
            try:
                out.append(int(idx))
            except ValueError:
                pass
    return out


def _find_line(path: Path, predicate):
    """(line number, text) of the first line whose feature indices satisfy ``predicate``."""
    with _open_binary(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            if predicate(_line_indices(line)):
                text = line.decode(errors="replace").rstrip("\r\n")
                return lineno, (text if len(text) <= 120 else text[:117] + "...")
    return None, ""


def _check_libsvm_line(line: bytes, n_features, base: int = 1):
    """None if ``line`` is a valid LIBSVM line, else a short reason (``base``: the index of the
    first column, for the ``n_features`` check)."""
    text = line.split(b"#", 1)[0].strip()
    if not text:
        return None
    tokens = text.split()
    try:
        float(tokens[0])
    except ValueError:
        return f"label {tokens[0].decode(errors='replace')!r} is not a number"
    prev = -1
    for tok in tokens[1:]:
        t = tok.decode(errors="replace")
        if t.startswith("qid:"):
            continue
        idx, sep, val = t.partition(":")
        if not sep:
            return f"token {t!r} is not of the form index:value"
        try:
            k = int(idx)
        except ValueError:
            return f"feature index {idx!r} in {t!r} is not an integer"
        try:
            float(val)
        except ValueError:
            return f"value {val!r} in {t!r} is not a number"
        if k < 0:
            return f"negative feature index {k}"
        if k > MAX_FEATURE_INDEX:
            return f"feature index {k} is too large (at most {MAX_FEATURE_INDEX})"
        if k <= prev:
            return f"feature indices must be strictly increasing ({prev} then {k})"
        if n_features is not None and k - base >= n_features:
            return f"feature index {k} exceeds n_features={n_features}"
        prev = k
    return None


def _first_bad_line(path: Path, n_features, base: int = 1):
    with _open_binary(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            reason = _check_libsvm_line(line, n_features, base)
            if reason is not None:
                return lineno, reason, line.decode(errors="replace").rstrip("\r\n")
    return None


def _parse_error(path: Path, exc: Exception, n_features=None, base: int = 1) -> ValueError:
    try:
        bad = _first_bad_line(path, n_features, base)
    except (OSError, EOFError, lzma.LZMAError) as err:
        return _read_error(path, err)
    if bad is None:
        return ValueError(f"{path}: cannot parse as LIBSVM format ({exc}); no single bad line "
                          f"found by a line scan")
    lineno, reason, text = bad
    if len(text) > 120:
        text = text[:117] + "..."
    return ValueError(f"{path}, line {lineno}: {reason}: {text!r} (scikit-learn said: {exc})")


def _read_sparse(path: Path):
    """(CSR X, y) of one LIBSVM file with its indices taken literally (column k = index k),
    never densified; read and parse errors as described in ``load_libsvm``."""
    from sklearn.datasets import load_svmlight_file

    if not path.exists():
        raise FileNotFoundError(f"LIBSVM file not found: {path}")
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a LIBSVM file", str(path))
    try:
        with _open_binary(path) as fh:
            X, y = load_svmlight_file(fh, zero_based=True, dtype=np.float64)
    except (ValueError, TypeError, IndexError, UnicodeDecodeError, OverflowError) as exc:
        raise _parse_error(path, exc) from exc
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise _read_error(path, exc) from exc
    if X.shape[0] == 0:
        raise ValueError(f"{path}: no data lines (the file is empty or holds only comments)")
    return X.tocsr(), np.asarray(y, dtype=np.float64)


def load_libsvm_files(paths, n_features=None, *, max_dense_bytes=None,
                      return_info: bool = False, sparse=False):
    """Read several LIBSVM/SVMlight files (plain, .bz2, .gz or .xz) with one column numbering:
    ``[X_0, y_0, X_1, y_1, …]`` (dense float64 arrays with the same number of columns, labels
    as written), and with ``return_info`` also a dict: ``base``, the feature index of column 0
    (1, or 0 for zero-based files), and ``n_columns``, the columns each file uses (its largest
    index + 1 − base).

    LIBSVM files number features from 1. When no file uses the index 0, column k − 1 holds
    feature k (base 1). When any file uses index 0, every file is read zero-based (column k
    holds feature k, base 0) — decided for all the files together, so that a training and a
    test file never disagree (scikit-learn's ``zero_based='auto'`` decides file by file, and a
    lone ``0:`` in one line of the training file shifted all its columns against the test
    file's). Index 0 in only a few lines of a file (at most 1 %, or one line) is most likely
    a slip in a 1-based file: a ``DataWarning`` names the file and the first such line; the
    value is kept as its own column 0 and no other column moves.

    ``n_features`` fixes the number of columns. Checks, each a ``ValueError`` naming the file
    (and the line where one is to blame): parse errors; an index beyond ``n_features``; a
    corrupt or truncated compressed file; a dense matrix larger than ``max_dense_bytes``
    (default ``dense_limit_bytes()``; a stray index such as ``2000000000:1`` would otherwise
    make numpy allocate terabytes) — checked on the sparse data, before anything dense is
    built. A missing file raises ``FileNotFoundError``, an unreadable one ``PermissionError``
    (or the ``OSError`` of the system) with the path.

    ``sparse=True`` returns each X as a canonical float64 scipy CSR matrix (never densified;
    svmbound fits on CSR directly, issue 13). The other checks are the same; the size check is
    then on what grows with the number of columns — the solvers' column pointers, 8 bytes a
    column — so that a stray index still fails here, naming the line. ``sparse="auto"``: CSR
    when at most ``AUTO_SPARSE_DENSITY`` of the entries (all files together) are non-zero,
    dense otherwise; ``info["sparse"]`` says which.
    """
    if not (sparse is True or sparse is False or sparse == "auto"):
        raise ValueError(f"sparse must be True, False or 'auto', got {sparse!r}")
    paths = [Path(p).expanduser() for p in paths]
    if n_features is not None:
        if isinstance(n_features, bool) or int(n_features) != n_features or n_features < 1:
            raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}")
        n_features = int(n_features)
    limit = dense_limit_bytes() if max_dense_bytes is None else float(max_dense_bytes)
    parts = [_read_sparse(p) for p in paths]
    uses_zero = [bool(np.any(X.indices == 0)) for X, _ in parts]
    base = 0 if any(uses_zero) else 1
    for path, (X, _), zero in zip(paths, parts, uses_zero):
        if not zero:
            continue
        rows = int(np.count_nonzero(X.indices == 0))
        if rows <= max(1, 0.01 * X.shape[0]):
            lineno, text = _find_line(path, lambda idx: 0 in idx)
            warnings.warn(
                f"{path}, line {lineno}: feature index 0 ({text!r}) in {rows} of {X.shape[0]} "
                f"lines; LIBSVM numbers features from 1. Read zero-based (index 0 is its own "
                f"column, every other feature keeps its index{' in all files' if len(paths) > 1 else ''})",
                DataWarning, stacklevel=2)
    widths = [max(0, X.shape[1] - base) for X, _ in parts]   # columns each file uses
    n_cols = max(widths) if n_features is None else n_features
    if n_cols == 0:
        raise ValueError(f"{', '.join(map(str, paths))}: no line has a feature (index:value)")
    if sparse == "auto":
        nnz = sum(X.nnz for X, _ in parts)
        rows = sum(X.shape[0] for X, _ in parts)
        sparse = bool(nnz <= AUTO_SPARSE_DENSITY * float(rows) * n_cols)
    for path, (X, _), width in zip(paths, parts, widths):
        if width > n_cols:                                # only with n_features given
            top = int(X.indices.max())
            lineno, text = _find_line(path, lambda idx: top in idx)
            raise ValueError(f"{path}, line {lineno}: feature index {top} exceeds "
                             f"n_features={n_features}: {text!r}")
        need = float(X.shape[0]) * n_cols * 8 if not sparse else (n_cols + 1.0) * 8
        if need > limit:
            top = int(X.indices.max())
            lineno, text = _find_line(path, lambda idx: top in idx)
            what = (f"a dense {X.shape[0]} x {n_cols} float64 matrix of {_bytes(need)}"
                    if not sparse else f"a sparse matrix of {n_cols} columns, whose column "
                    f"pointers alone take {_bytes(need)}")
            raise ValueError(
                f"{path}, line {lineno}: feature index {top} would make {what} (limit "
                f"{_bytes(limit)}) — is the index a typo? ({text!r})")
    out = []
    for X, y in parts:
        X = X[:, base:] if X.shape[1] > base else X[:, :0]
        if X.shape[1] < n_cols:
            X.resize((X.shape[0], n_cols))
        if sparse:
            X = X.tocsr().astype(np.float64)
            X.sum_duplicates()
            out += [X, y]
        else:
            out += [np.ascontiguousarray(X.toarray(), dtype=np.float64), y]
    return (out, {"base": base, "n_columns": widths, "sparse": sparse}) if return_info else out


#: ``load_libsvm_files(sparse="auto")`` keeps CSR at or below this fraction of non-zeros.
AUTO_SPARSE_DENSITY = 0.1


def _bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} bytes"


def load_libsvm(path, n_features=None, *, max_dense_bytes=None, sparse: bool = False):
    """Read a LIBSVM/SVMlight file (plain, .bz2, .gz or .xz) as ``(X, y)``.

    ``X`` is a dense float64 array, ``y`` the labels as float64 (as written in the file; they
    are not mapped to ±1). ``n_features`` fixes the number of columns (pass it when the file
    may not use its last feature index). Features are numbered from 1 unless the file uses the
    index 0 (see ``load_libsvm_files``, which reads a training and a test file together and
    checks what this function checks). A missing file raises ``FileNotFoundError``; a parse
    error raises ``ValueError`` naming the file and the first offending line. ``sparse=True``:
    X as a float64 CSR matrix, never densified.
    """
    X, y = load_libsvm_files([path], n_features, max_dense_bytes=max_dense_bytes, sparse=sparse)
    return X, y


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
    import csv
    import io

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
