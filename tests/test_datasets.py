"""Unit tests for svmbound.datasets. They use tmp_path only and never need /work/shared."""

import bz2
import lzma
import os
import re

import numpy as np
import pytest

from svmbound import datasets
from svmbound.datasets import data_dir, load_demo, load_ida, load_libsvm


def _write_xz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(path, "wt") as fh:
        fh.write(text)


def _make_ida(root, name="toy", splits=(1, 2), n_train=5, n_test=4, d=3, seed=0):
    rng = np.random.default_rng(seed)
    folder = root / "ida" / name
    truth = {}
    for s in splits:
        for part, n in (("train", n_train), ("test", n_test)):
            X = rng.normal(size=(n, d))
            y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
            _write_xz(folder / f"{name}_{part}_data_{s}.asc.xz",
                      "".join("  " + "  ".join(f"{v: .7e}" for v in row) + "\n" for row in X))
            _write_xz(folder / f"{name}_{part}_labels_{s}.asc.xz",
                      "".join(f"  {v: .7e}\n" for v in y))
            truth[(s, part)] = (X, y)
    return truth


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(datasets.ENV_VAR, raising=False)


# -- data_dir -----------------------------------------------------------------------------------
def test_data_dir_argument(tmp_path, no_env):
    assert data_dir(tmp_path) == tmp_path.resolve()
    assert data_dir(str(tmp_path)) == tmp_path.resolve()


def test_data_dir_env(tmp_path, monkeypatch):
    monkeypatch.setenv(datasets.ENV_VAR, str(tmp_path))
    assert data_dir() == tmp_path.resolve()


def test_data_dir_relative_to_cwd(tmp_path, monkeypatch, no_env):
    (tmp_path / "shared" / "data").mkdir(parents=True)
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path / "repo")
    assert data_dir() == (tmp_path / "shared" / "data").resolve()


def test_data_dir_missing_argument(tmp_path, no_env):
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError) as exc:
        data_dir(missing)
    msg = str(exc.value)
    assert str(missing) in msg and "SVMBOUND_DATA" in msg and "--data" in msg


def test_data_dir_missing_env(tmp_path, monkeypatch):
    monkeypatch.setenv(datasets.ENV_VAR, str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match="SVMBOUND_DATA"):
        data_dir()


def test_data_dir_missing_defaults(tmp_path, monkeypatch, no_env):
    monkeypatch.setattr(datasets, "_REPO_ROOT", tmp_path / "fake_repo")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as exc:
        data_dir()
    msg = str(exc.value)
    assert "SVMBOUND_DATA" in msg and "current directory" in msg and "repository root" in msg


# -- IDA ------------------------------------------------------------------------------------------
def test_load_ida_roundtrip(tmp_path):
    truth = _make_ida(tmp_path)
    for s in (1, 2):
        X_tr, y_tr, X_te, y_te = load_ida("toy", split=s, data=tmp_path)
        assert X_tr.shape == (5, 3) and X_te.shape == (4, 3)
        assert X_tr.dtype == np.float64 and y_tr.dtype == np.float64
        np.testing.assert_allclose(X_tr, truth[(s, "train")][0], rtol=1e-7)
        np.testing.assert_array_equal(y_te, truth[(s, "test")][1])
        assert set(np.unique(y_tr)) == {-1.0, 1.0}


def test_load_ida_single_feature(tmp_path):
    _make_ida(tmp_path, name="one", splits=(1,), d=1)
    X_tr, _, X_te, _ = load_ida("one", data=tmp_path)
    assert X_tr.shape == (5, 1) and X_te.shape == (4, 1)


def test_load_ida_unknown_name(tmp_path):
    _make_ida(tmp_path, name="toy")
    _make_ida(tmp_path, name="other", splits=(1,))
    with pytest.raises(ValueError, match=r"unknown IDA data set 'banana'.*other, toy"):
        load_ida("banana", data=tmp_path)


def test_load_ida_missing_split(tmp_path):
    _make_ida(tmp_path, splits=(1, 2))
    with pytest.raises(ValueError, match=r"no split 7.*available splits: 1-2"):
        load_ida("toy", split=7, data=tmp_path)


@pytest.mark.parametrize("split", [1.5, True, "1", None])
def test_load_ida_split_must_be_an_integer(tmp_path, split):
    """split=1.5, True or "1" loaded split 1 silently (int())."""
    _make_ida(tmp_path, splits=(1, 2))
    with pytest.raises(ValueError, match=f"split must be an integer, got {split!r}"):
        load_ida("toy", split=split, data=tmp_path)
    np.testing.assert_array_equal(load_ida("toy", split=np.int64(2), data=tmp_path)[0],
                                  load_ida("toy", split=2, data=tmp_path)[0])


@pytest.mark.parametrize("kw, message", [
    (dict(n_samples=None), "n_samples must be an integer >= 1, got None"),
    (dict(n_samples=float("nan")), "n_samples must be an integer >= 1, got nan"),
    (dict(n_features=float("inf")), "n_features must be an integer >= 6, got inf"),
    (dict(noise_var=None), "noise_var must be a finite number >= 0, got None"),
    (dict(noise_var="3"), "noise_var must be a finite number >= 0, got '3'"),
])
def test_toy_generators_name_a_bad_argument(kw, message):
    """They raised int()'s or float()'s own TypeError / OverflowError, or took "3"."""
    from svmbound.toy import make_linear_toy

    with pytest.raises(ValueError, match=re.escape(message)):
        make_linear_toy(**{"n_samples": 5, **kw})
    assert make_linear_toy(5.0, n_features=10.0)[0].shape == (5, 10)


def test_load_ida_missing_file(tmp_path):
    _make_ida(tmp_path, splits=(1,))
    os.remove(tmp_path / "ida" / "toy" / "toy_test_labels_1.asc.xz")
    with pytest.raises(FileNotFoundError, match="toy_test_labels_1"):
        load_ida("toy", data=tmp_path)


def test_load_ida_bad_labels(tmp_path):
    _make_ida(tmp_path, splits=(1,))
    _write_xz(tmp_path / "ida" / "toy" / "toy_train_labels_1.asc.xz", "1\n-1\n0\n1\n-1\n")
    with pytest.raises(ValueError, match="line 3"):
        load_ida("toy", data=tmp_path)


# -- LIBSVM ---------------------------------------------------------------------------------------
LIBSVM_TEXT = "+1 1:0.5 3:-1\n-1 2:2.0\n# a comment line\n1 1:1 2:1 3:1  # trailing comment\n"


@pytest.mark.parametrize("compress", ["", ".bz2", ".xz"])
def test_load_libsvm(tmp_path, compress):
    path = tmp_path / ("toy.svm" + compress)
    opener = {"": open, ".bz2": bz2.open, ".xz": lzma.open}[compress]
    with opener(path, "wt") as fh:
        fh.write(LIBSVM_TEXT)
    X, y = load_libsvm(path)
    assert isinstance(X, np.ndarray) and X.dtype == np.float64
    np.testing.assert_array_equal(X, [[0.5, 0, -1], [0, 2, 0], [1, 1, 1]])
    np.testing.assert_array_equal(y, [1, -1, 1])
    X5, _ = load_libsvm(path, n_features=5)
    assert X5.shape == (3, 5)


@pytest.mark.parametrize("bad_line, reason", [
    ("-1 1:0.3 2:abc", "not a number"),
    ("-1 1:0.3 2", "index:value"),
    ("-1 3:0.3 2:1", "increasing"),
    ("x 1:1", "label"),
])
def test_load_libsvm_bad_line_reports_line_number(tmp_path, bad_line, reason):
    path = tmp_path / "broken.svm"
    path.write_text("+1 1:0.5 2:1\n-1 1:1\n\n+1 2:3 3:1\n" + bad_line + "\n+1 1:1\n")
    with pytest.raises(ValueError) as exc:
        load_libsvm(path)
    msg = str(exc.value)
    assert str(path) in msg and "line 5" in msg and reason in msg


def test_load_libsvm_bad_line_compressed(tmp_path):
    path = tmp_path / "broken.svm.bz2"
    with bz2.open(path, "wt") as fh:
        fh.write("1 1:1\n-1 2:1 3:oops\n")
    with pytest.raises(ValueError, match=r"broken\.svm\.bz2, line 2"):
        load_libsvm(path)


def test_load_libsvm_too_few_features(tmp_path):
    path = tmp_path / "wide.svm"
    path.write_text("1 1:1\n-1 4:1\n")
    with pytest.raises(ValueError, match="line 2.*n_features=2"):
        load_libsvm(path, n_features=2)


def test_load_libsvm_missing_file(tmp_path):
    path = tmp_path / "absent.svm"
    with pytest.raises(FileNotFoundError, match="absent.svm"):
        load_libsvm(path)


def test_load_ijcnn1_subsample(tmp_path):
    rng = np.random.default_rng(1)
    lib = tmp_path / "libsvm"
    lib.mkdir()
    for name, n in (("ijcnn1.bz2", 200), ("ijcnn1.t.bz2", 50)):
        y = np.where(rng.random(n) < 0.1, 1, -1)
        y[:2] = [1, -1]
        with bz2.open(lib / name, "wt") as fh:
            for lab in y:
                fh.write(f"{lab}.0 {rng.integers(1, 11)}:1 11:{rng.normal():.4f} 13:0.0\n")
    X_tr, y_tr, X_te, y_te = datasets.load_ijcnn1(data=tmp_path)
    assert X_tr.shape == (200, 22) and X_te.shape == (50, 22)
    X_s, y_s, _, _ = datasets.load_ijcnn1(data=tmp_path, n_train=100, random_state=3)
    assert X_s.shape == (100, 22)
    assert abs((y_s > 0).mean() - (y_tr > 0).mean()) <= 0.011  # stratified
    X_s2, _, _, _ = datasets.load_ijcnn1(data=tmp_path, n_train=100, random_state=3)
    np.testing.assert_array_equal(X_s, X_s2)  # seeded
    with pytest.raises(ValueError, match="n_train"):
        datasets.load_ijcnn1(data=tmp_path, n_train=0)


# -- demo -----------------------------------------------------------------------------------------
def test_load_demo():
    X_tr, y_tr, X_te, y_te = load_demo()
    assert X_tr.shape == (398, 30) and X_te.shape == (171, 30)
    assert X_tr.dtype == np.float64 and y_tr.dtype == np.float64
    assert set(np.unique(y_tr)) == {-1.0, 1.0} and set(np.unique(y_te)) == {-1.0, 1.0}
    np.testing.assert_allclose(X_tr.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(X_tr.std(axis=0), 1.0, rtol=1e-10)
    assert not np.allclose(X_te.mean(axis=0), 0.0, atol=1e-3)  # scaler fit on train only
    # stratified: the class balance of both parts matches the full data (357/569 benign)
    assert abs((y_tr > 0).mean() - 357 / 569) < 0.01 and abs((y_te > 0).mean() - 357 / 569) < 0.01
    again = load_demo()
    for a, b in zip(load_demo(), again):
        np.testing.assert_array_equal(a, b)
    other = load_demo(random_state=1)
    assert not np.array_equal(other[0], X_tr)


# -- Golub ----------------------------------------------------------------------------------------
def _make_golub(root, genes=("G1_at", "G2_at", "G3_at"), train=(2, 1, 3), test=(5, 4),
                classes=None, seed=0):
    """Tiny files in the layout of the Golub CSVs (quoted descriptions, value/call pairs,
    patients out of order); returns the values by patient."""
    classes = classes or {1: "ALL", 2: "AML", 3: "ALL", 4: "AML", 5: "ALL"}
    rng = np.random.default_rng(seed)
    folder = root / "golub"
    values = {}
    for name, patients in (("data_set_ALL_AML_train.csv", train),
                           ("data_set_ALL_AML_independent.csv", test)):
        header = "Gene Description,Gene Accession Number," + ",".join(
            f"{p},call" for p in patients)
        lines = [header]
        cols = {p: rng.integers(-500, 5000, size=len(genes)).astype(float) for p in patients}
        values.update(cols)
        for g, gene in enumerate(genes):
            desc = f'"desc of {gene}, with ""quotes"""'
            lines.append(f"{desc},{gene}," + ",".join(f"{int(cols[p][g])},A" for p in patients))
        _write_xz(folder / f"{name}.xz", "\n".join(lines) + "\n")
    _write_xz(folder / "actual.csv.xz", "patient,cancer\n" + "".join(
        f"{p},{c}\n" for p, c in sorted(classes.items())) + "\n")
    return values, classes


def test_load_golub_tiny(tmp_path, no_env):
    values, classes = _make_golub(tmp_path)
    X, y, Xt, yt, genes = datasets.load_golub(tmp_path, return_genes=True)
    assert X.shape == (3, 3) and Xt.shape == (2, 3)
    assert list(genes) == ["G1_at", "G2_at", "G3_at"]
    # rows sorted by patient number; AML = +1, ALL = -1
    np.testing.assert_array_equal(X, np.stack([values[p] for p in (1, 2, 3)]))
    np.testing.assert_array_equal(Xt, np.stack([values[p] for p in (4, 5)]))
    np.testing.assert_array_equal(y, [-1.0, 1.0, -1.0])
    np.testing.assert_array_equal(yt, [1.0, -1.0])
    assert X.dtype == np.float64 and X.flags.c_contiguous
    assert len(datasets.load_golub(tmp_path)) == 4


def test_load_golub_missing(tmp_path, no_env):
    with pytest.raises(FileNotFoundError, match="golub"):
        datasets.load_golub(tmp_path)


def test_load_golub_unlabelled_patient(tmp_path, no_env):
    _make_golub(tmp_path, classes={1: "ALL", 2: "AML", 3: "ALL", 4: "AML"})
    with pytest.raises(ValueError, match=r"patients \[5\] have no label"):
        datasets.load_golub(tmp_path)


def test_load_golub_unknown_class(tmp_path, no_env):
    _make_golub(tmp_path, classes={1: "ALL", 2: "CLL", 3: "ALL", 4: "AML", 5: "ALL"})
    with pytest.raises(ValueError, match="CLL"):
        datasets.load_golub(tmp_path)


def test_load_golub_real_data_shapes(no_env):
    try:
        root = data_dir()
    except FileNotFoundError:
        pytest.skip("benchmark data not present")
    if not (root / "golub").is_dir():
        pytest.skip("Golub data not present")
    X, y, Xt, yt = datasets.load_golub(root)
    assert X.shape == (38, 7129) and Xt.shape == (34, 7129)
    assert (np.sum(y < 0), np.sum(y > 0), np.sum(yt < 0), np.sum(yt > 0)) == (27, 11, 20, 14)
