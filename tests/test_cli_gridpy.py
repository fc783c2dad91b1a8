"""LIBSVM habits of ``svmbound tune``: grid.py's -log2c/-log2g/-v/-out, --model, --n-features
and test files with more features than the training file."""

import json
import math
import os
import re

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, make_classification
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from svmbound import BoundSVC, cli
from svmbound.cli import build_parser, main
from svmbound.cli_gridpy import apply, fix_argv, grid_values, resolve

LINE = re.compile(r"^(?:log2c=(?P<c>\S+) )?(?:log2g=(?P<g>\S+) )?rate=(?P<rate>\S+)$")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("gridpy")
    X, y = make_classification(n_samples=130, n_features=4, n_informative=3, n_redundant=0,
                               flip_y=0.05, random_state=4)
    X = np.round(X, 6)
    y = np.where(y == 1, 1, -1)
    dump_svmlight_file(X[:80], y[:80], str(d / "train.txt"), zero_based=False)
    dump_svmlight_file(X[80:], y[80:], str(d / "test.txt"), zero_based=False)
    wide = np.hstack([X[80:], np.full((50, 2), 3.0)])
    dump_svmlight_file(wide, y[80:], str(d / "wide.txt"), zero_based=False)
    narrow = np.hstack([X[:80], np.zeros((80, 2))])          # features 5, 6 never used
    dump_svmlight_file(narrow, y[:80], str(d / "narrow.txt"), zero_based=False)
    dump_svmlight_file(X[:80], np.where(y[:80] == 1, 1.5, 0.5), str(d / "frac.txt"),
                       zero_based=False)
    return d, X[:80], y[:80], X[80:], y[80:]


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path, monkeypatch):
    """Every test runs in its own folder: grid.py's default output file (<dataset>.out in the
    current folder) never lands in the repository."""
    monkeypatch.chdir(tmp_path)


def _args(argv):
    return build_parser().parse_args(fix_argv(["tune", "train.txt"] + argv))


def _no_search(monkeypatch):
    def fit(self, X, y):
        raise AssertionError("the search ran")
    monkeypatch.setattr(cli.BoundSVC, "fit", fit)


def test_gridpy_out_lines_are_the_cross_validation_rates(files, capsys, tmp_path):
    """-log2c/-log2g/-v/-out: one grid.py line per grid point, and each rate is the k-fold CV
    accuracy of LIBSVM's C-SVC at C = 2^log2c, gamma = 2^log2g on the criterion's folds."""
    d, X, y, _, _ = files
    out = tmp_path / "train.out"
    assert main(["tune", str(d / "train.txt"), "-log2c", "-1,3,2", "-log2g", "-3,1,2", "-v", "3",
                 "-out", str(out), "--json", "--quiet"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert (r["criterion"], r["loss"], r["nfev"]) == ("cv-error", "l1", 9)
    rows = [LINE.match(line).groupdict() for line in out.read_text().splitlines()]
    assert len(rows) == 9
    assert {(float(m["c"]), float(m["g"])) for m in rows} == {
        (c, g) for c in (-1.0, 1.0, 3.0) for g in (-3.0, -1.0, 1.0)}
    assert all(re.fullmatch(r"-?\d+\.\d", m["c"]) for m in rows)     # grid.py's str(float)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    for m in rows:
        svc = SVC(C=2.0 ** float(m["c"]), gamma=2.0 ** float(m["g"]), tol=1e-8)
        correct = sum(int((svc.fit(X[tr], y[tr]).predict(X[te]) == y[te]).sum())
                      for tr, te in folds)
        assert float(m["rate"]) == float(f"{100.0 * correct / len(y):g}"), m
    best = max(float(m["rate"]) for m in rows)
    assert best == float(f"{100.0 * (len(y) - r['value']) / len(y):g}")
    assert math.log2(r["gamma"]) in {float(m["g"]) for m in rows if float(m["rate"]) == best}


def test_null_axes_keep_libsvm_defaults(files, capsys, tmp_path):
    """-log2g null: gamma = 1/features (LIBSVM's default), lines without log2g; the linear
    kernel has no gamma at all; -log2c null: C = 1."""
    d, X, _, _, _ = files
    out = tmp_path / "o.txt"
    assert main(["tune", str(d / "train.txt"), "-log2c", "0,2,2", "-log2g", "null", "-v", "3",
                 "-out", str(out), "--json", "--quiet"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["gamma"] == pytest.approx(1.0 / X.shape[1], rel=1e-12)
    assert [LINE.match(s)["g"] for s in out.read_text().splitlines()] == [None, None]
    assert main(["tune", str(d / "train.txt"), "--kernel", "linear", "-log2c", "-2,2,2", "-v",
                 "3", "-out", str(out), "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["gamma"] is None
    assert [s.split(" ")[0] for s in out.read_text().splitlines()] == [
        "log2c=-2.0", "log2c=0.0", "log2c=2.0"]
    assert main(["tune", str(d / "train.txt"), "-log2c", "null", "-log2g", "-1,1,2", "-v", "3",
                 "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["C"] == 1.0


def test_gridpy_options_resolve_to_tune_options():
    """Without ranges, grid.py's defaults; gamma = 2^log2g is sigma^2 = 1/(2 gamma) on our
    ln sigma^2 axis; -v alone implies cv-error with its folds, the l1 loss and the grid."""
    args = _args(["-v", "10"])
    gp = resolve(args)
    assert (args.search, args.criterion, args.loss) == ("grid", "cv-error", "l1")
    assert args.criterion_params == {"n_folds": 10}
    assert gp.log2c == [-5.0, -3.0, -1.0, 1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0]
    assert gp.log2g == [3.0, 1.0, -1.0, -3.0, -5.0, -7.0, -9.0, -11.0, -13.0, -15.0]
    apply(gp, args, np.zeros((3, 4)), np.array([1.0, -1.0, 1.0]))
    from svmbound.search.grid import grid_range
    ln_c, ln_s2 = grid_range(*args.grid_log_c), grid_range(*args.grid_log_sigma2)
    np.testing.assert_allclose(np.exp(ln_c), 2.0 ** np.array(gp.log2c), rtol=1e-12)
    np.testing.assert_allclose(1.0 / (2.0 * np.exp(ln_s2)), 2.0 ** np.array(gp.log2g), rtol=1e-12)
    # without grid.py options the loss stays l2 and nothing changes
    args = _args([])
    assert resolve(args) is None and (args.loss, args.search) == ("l2", "bfgs")
    # -v with annealing keeps annealing over the cv-error criterion
    args = _args(["-v", "4", "--search", "annealing"])
    assert not resolve(args).grid and (args.search, args.criterion) == ("annealing", "cv-error")
    assert grid_values(0.0, 1.0, 0.1)[-1] == pytest.approx(1.0)           # grid.py's range_f
    assert len(grid_values(0.0, 1.0, 0.1)) == 11


def test_criterion_params_reach_the_criterion():
    X = np.random.RandomState(0).normal(size=(30, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    est = BoundSVC(loss="l1", criterion="cv-error", search="grid",
                   criterion_params={"n_folds": 3})
    crit = est.make_criterion(X, y)
    assert crit.n_folds == 3 and len(crit.folds) == 3
    with pytest.raises(ValueError,
                       match=r"criterion 'rm-l1' takes no parameter\(s\) \['n_folds'\]"):
        BoundSVC(loss="l1", criterion="radius-margin", criterion_params={"n_folds": 3}).fit(X, y)
    with pytest.raises(ValueError, match="criterion='auto' runs several"):
        BoundSVC(loss="l1", criterion_params={"n_folds": 3}).fit(X, y)


def test_model_option_writes_the_model_libsvm_predicts_with(files, capsys, tmp_path):
    svmutil = pytest.importorskip("libsvm.svmutil")
    d, _, _, Xt, yt = files
    model = tmp_path / "train.model"
    assert main(["tune", str(d / "train.txt"), "--test", str(d / "test.txt"), "--loss", "l1",
                 "--max-iter", "5", "--model", str(model), "--json", "--quiet"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["model"] == str(model)
    m = svmutil.svm_load_model(str(model))
    _, acc, _ = svmutil.svm_predict(yt.astype(float), Xt, m, "-q")
    assert acc[0] == pytest.approx(100 * r["test_accuracy"])
    assert m.param.gamma == pytest.approx(r["gamma"], rel=1e-15)


def test_model_option_with_sparse_data(capsys, monkeypatch, tmp_path):
    """--sparse yes --model: the model fitted on CSR data is written from its CSR support
    vectors, and LIBSVM predicts the test file with it exactly as svmbound does."""
    svmutil = pytest.importorskip("libsvm.svmutil")
    import scipy.sparse as sp

    from svmbound.datasets import load_libsvm

    rng = np.random.default_rng(5)
    X = sp.random(160, 300, density=0.03, random_state=6, format="csr")
    y = np.where(np.asarray(X[:, :40].sum(axis=1)).ravel() + 0.05 * rng.normal(size=160) > 0.3,
                 1, -1)
    dump_svmlight_file(X[:110], y[:110], str(tmp_path / "train.txt"), zero_based=False)
    dump_svmlight_file(X[110:], y[110:], str(tmp_path / "test.txt"), zero_based=False)
    fitted = []
    save = cli.BoundSVC.save_libsvm_model

    def keep(self, path, **kw):                # the CLI's estimator, to compare with
        fitted.append(self)
        return save(self, path, **kw)

    monkeypatch.setattr(cli.BoundSVC, "save_libsvm_model", keep)
    model = tmp_path / "train.model"
    assert main(["tune", str(tmp_path / "train.txt"), "--test", str(tmp_path / "test.txt"),
                 "--sparse", "yes", "--loss", "l1", "--max-iter", "4", "--model", str(model),
                 "--json", "--quiet"]) == 0
    r = json.loads(capsys.readouterr().out)
    (est,) = fitted
    assert sp.issparse(est.support_vectors_)
    Xt, yt = load_libsvm(tmp_path / "test.txt", n_features=est.n_features_in_, sparse=True)
    m = svmutil.svm_load_model(str(model))
    labels, acc, vals = svmutil.svm_predict(yt, Xt, m, "-q")
    np.testing.assert_array_equal(np.asarray(labels), est.predict(Xt))
    assert set(labels) == {-1.0, 1.0}
    dec = est.decision_function(Xt)
    assert np.abs(np.asarray(vals)[:, 0] - dec).max() <= 1e-12 * np.abs(dec).max()
    assert acc[0] == pytest.approx(100 * r["test_accuracy"])
    assert m.get_nr_sv() == r["n_sv"]
    sv_lines = model.read_text().split("SV\n", 1)[1].splitlines()
    assert sum(line.count(":") for line in sv_lines) == est.support_vectors_.nnz


@pytest.mark.parametrize("argv, match", [
    (["--model", "{t}/no/such/dir/m.txt", "--loss", "l1"], "does not exist"),
    (["--model", "{t}/m.txt", "--loss", "l1", "--train-file", "frac.txt"], "integer labels"),
    (["-v", "3", "--criterion", "span"], "cannot be combined with --criterion span"),
    (["-log2c", "1,3,1", "--kernel", "poly"], "grid.py's grid is over C and the gamma"),
    (["-log2c", "1,3,1", "--search", "annealing"], "cannot be combined with --search annealing"),
    (["-log2c", "null", "-log2g", "null"], "should not be null simultaneously"),
    (["-log2g", "1,3,1", "--kernel", "linear"], "the linear kernel has none"),
    (["-log2c", "3,1,1"], "cannot be reached with step"),
])
def test_bad_combinations_fail_before_the_search(files, capsys, monkeypatch, tmp_path, argv,
                                                   match):
    d = files[0]
    _no_search(monkeypatch)
    train = "train.txt"
    if "--train-file" in argv:
        k = argv.index("--train-file")
        train = argv[k + 1]
        argv = argv[:k] + argv[k + 2:]
    argv = [a.format(t=tmp_path) for a in argv]
    assert main(["tune", str(d / train), "--quiet"] + argv) == 2
    assert match in capsys.readouterr().err
    assert not (tmp_path / "m.txt").exists()


def test_wider_test_file_is_read_with_a_warning(files, capsys):
    """Test features beyond the training file's are ignored (warning), not rejected."""
    d = files[0]
    common = ["--loss", "l1", "-log2c", "0,0,1", "-log2g", "-1,-1,1", "--json", "--quiet"]
    assert main(["tune", str(d / "train.txt"), "--test", str(d / "test.txt")] + common) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["tune", str(d / "train.txt"), "--test", str(d / "wide.txt")] + common) == 0
    out = capsys.readouterr()
    assert "warning: test file" in out.err and "up to 6, beyond the 4 features" in out.err
    assert "ignored" in out.err
    assert json.loads(out.out)["test_accuracy"] == plain["test_accuracy"]


def test_n_features_fixes_the_width(files, capsys):
    """narrow.txt never uses features 5 and 6: --n-features 6 makes the wide test file fit
    (no warning) and gives the same model; fewer features than the file uses is an error."""
    d = files[0]
    common = ["--test", str(d / "wide.txt"), "--loss", "l1", "-log2c", "0,0,1", "-log2g",
              "-1,-1,1", "--json", "--quiet"]
    assert main(["tune", str(d / "narrow.txt"), "--n-features", "6"] + common) == 0
    out = capsys.readouterr()
    assert "warning: test file" not in out.err
    r6 = json.loads(out.out)
    assert main(["tune", str(d / "narrow.txt")] + common) == 0
    out = capsys.readouterr()
    assert "warning: test file" in out.err
    r4 = json.loads(out.out)
    # gamma is fixed by -log2g here, so the two models agree on the training data
    assert r6["train_accuracy"] == r4["train_accuracy"] and r6["n_sv"] == r4["n_sv"]
    assert main(["tune", str(d / "narrow.txt"), "--n-features", "3", "--quiet"]) == 2
    assert "exceeds n_features=3" in capsys.readouterr().err


def test_grid_of_the_cv_error_maps_the_test_error_of_the_full_model(files):
    """The cv-error criterion trains on the folds only; the grid (and its --plot map) then
    trains the full SVM at each point for the test error — not a stale model of another point."""
    from svmbound.criteria import Problem, make_criterion
    from svmbound.kernels import RBFKernel
    from svmbound.search.grid import evaluate_grid

    _, X, y, Xt, yt = files
    y, yt = y.astype(float), yt.astype(float)
    crit = make_criterion("cv-error", Problem(X, y), RBFKernel(), loss="l1", n_folds=3)
    log_c, log_s2 = np.array([-1.0, 2.0]), np.array([-1.0, 1.5])
    g = evaluate_grid(crit, log_c, log_s2, Xt, yt)
    for i, ls in enumerate(log_s2):
        for j, lc in enumerate(log_c):
            svc = SVC(C=np.exp(lc), gamma=1 / (2 * np.exp(ls)), tol=1e-8).fit(X, y)
            assert g.test_error[i, j] == np.mean(svc.predict(Xt) != yt)
            assert g.n_sv[i, j] == svc.support_.size
    assert np.all(evaluate_grid(crit, log_c, log_s2).n_sv == -1)


def test_an_ard_model_file_comes_with_its_range_file(tmp_path):
    """tune --kernel ard --model m: the model on x_k/σ_k and svm-scale's range file m.range;
    scaling the data by the range file's rule then LIBSVM's prediction is ours."""
    from libsvm.svmutil import svm_load_model, svm_predict

    X, y = make_classification(80, 4, n_informative=3, n_redundant=0, random_state=0)
    train = tmp_path / "train.txt"
    dump_svmlight_file(X, y, str(train))
    model = tmp_path / "m.txt"
    assert main(["tune", str(train), "--kernel", "ard", "--search", "lbfgsb", "--loss", "l1",
                 "--model", str(model), "--quiet"]) == 0
    lines = (tmp_path / "m.txt.range").read_text().split("\n")
    assert lines[0] == "x" and lines[1].split() == ["0", "1"]
    sigma = np.array([float(ln.split()[2]) for ln in lines[2:] if ln.strip()])
    m = svm_load_model(str(model))
    rows = [{k: float(v) for k, v in enumerate(r)} for r in X / sigma]   # as the file: from 0
    pred, _, _ = svm_predict([0] * len(X), rows, m, "-q")
    est = BoundSVC(kernel="ard", search="lbfgsb", loss="l1").fit(X, y)
    np.testing.assert_array_equal(pred, est.predict(X))



def _svm_scale_restore(range_file, X, base=1):
    """svm-scale -r's rule (svm-scale.c: output()), at full precision: listed features mapped
    to [lower, upper] (the ends exactly), unlisted ones to 0."""
    lines = open(range_file).read().split("\n")
    assert lines[0] == "x"
    lower, upper = map(float, lines[1].split())
    out = np.zeros_like(X, dtype=float)
    for ln in lines[2:]:
        if not ln.strip():
            continue
        k, lo, hi = ln.split()
        k, lo, hi = int(k) - base, float(lo), float(hi)
        v = X[:, k]
        val = lower + (upper - lower) * (v - lo) / (hi - lo)
        out[:, k] = np.where(v == lo, lower, np.where(v == hi, upper, val))
    return out


@pytest.mark.parametrize("kernel", ["rbf", "ard"])
def test_scale_with_model_writes_the_range_file_libsvm_needs(tmp_path, kernel, capsys):
    """tune --scale --model m: svm-scale's range file m.range beside the model; the raw test
    file scaled by svm-scale's rule and predicted by LIBSVM gives the reported test accuracy
    (issue 30 item 3: it was 37.4 % against 95.3 %)."""
    from libsvm.svmutil import svm_load_model, svm_predict

    X, y = make_classification(160, 4, n_informative=3, n_redundant=0, random_state=2)
    X = X * [1.0, 50.0, 0.02, 3.0] + [0.0, 100.0, -5.0, 1.0]
    X[:, 3] = 7.0                                   # a constant feature: svm-scale leaves it out
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    dump_svmlight_file(X[:100], y[:100], str(train), zero_based=False)   # LIBSVM numbers from 1
    dump_svmlight_file(X[100:], y[100:], str(test), zero_based=False)
    model = tmp_path / "m.txt"
    argv = ["tune", str(train), "--test", str(test), "--scale", "--model", str(model),
            "--loss", "l1", "--json", "--quiet", "--kernel", kernel]
    if kernel == "ard":
        argv += ["--search", "lbfgsb"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["range_file"] == str(model) + ".range"
    m = svm_load_model(str(model))
    scaled = _svm_scale_restore(report["range_file"], X[100:])
    pred, _, _ = svm_predict(list(y[100:]), [list(map(float, r)) for r in scaled], m, "-q")
    assert np.mean(np.asarray(pred) == y[100:]) == pytest.approx(report["test_accuracy"])


def test_gridpy_defaults_stdout_and_out_null(files, capsys, tmp_path):
    """issue 30 item 4: grid options without -v run grid.py's 5-fold CV (not a bound); stdout
    has grid.py's "[local] log2c log2g rate (best ...)" line per point and ends with
    "best_c best_g best_rate"; -out null writes no file."""
    argv = ["tune", str(files[0] / "train.txt"), "-log2c", "-1,3,2", "-log2g", "-3,-1,1",
            "-out", "null", "--quiet"]
    assert main(argv) == 0
    out = capsys.readouterr().out.strip().splitlines()
    local = [ln for ln in out if ln.startswith("[local] ")]
    assert len(local) == 3 * 3
    best_c, best_g, best_rate = map(float, out[-1].split())
    assert np.log2(best_c) in (-1.0, 1.0, 3.0) and np.log2(best_g) in (-3.0, -2.0, -1.0)
    rates = [float(ln.split()[3]) for ln in local]
    assert best_rate == max(rates)
    assert local[-1].endswith(f"rate={best_rate})")
    assert not (tmp_path / "null").exists() and not os.path.exists("null")
    assert main(argv + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["criterion"] == "cv-error" and len(report["path"]) == 9



def test_default_out_file_is_the_dataset_name_dot_out(files, capsys, tmp_path):
    """Without -out the grid search writes grid.py's default <dataset file name>.out in the
    current folder, the lines -out FILE writes; -out null and a non-grid search write none."""
    d = files[0]
    argv = ["tune", str(d / "train.txt"), "-log2c", "-1,1,2", "-log2g", "-1,1,2", "-v", "2",
            "--quiet"]
    assert main(argv + ["-out", str(tmp_path / "given.out")]) == 0
    capsys.readouterr()
    assert main(argv) == 0
    out = capsys.readouterr().out.strip().splitlines()
    default = tmp_path / "train.txt.out"
    assert default.read_text() == (tmp_path / "given.out").read_text()
    rows = [LINE.match(line) for line in default.read_text().splitlines()]
    assert len(rows) == 4 and all(rows)
    assert float(out[-1].split()[-1]) == max(float(m["rate"]) for m in rows)
    default.unlink()
    assert main(argv + ["-out", "null"]) == 0
    assert main(["tune", str(d / "train.txt"), "-v", "2", "--search", "annealing",
                 "--max-epochs", "1", "--quiet", "--json"]) == 0
    capsys.readouterr()
    assert sorted(os.listdir(tmp_path)) == ["given.out"]
    # a folder where the default cannot be written: the error says it is grid.py's default
    os.mkdir(tmp_path / "train.txt.out")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "-out train.txt.out is a folder" in err and "grid.py's default output file" in err


# -- svm-train's options (as grid.py passes them on) and grid.py's -svmtrain/-gnuplot ----------
TINY = ["-log2c", "0,0,1", "-log2g", "-1,-1,1", "-v", "2"]


@pytest.fixture()
def fitted(monkeypatch):
    """The parameters of every estimator the CLI fits (BoundSVC.fit wrapped; it still fits)."""
    seen = []
    real = cli.BoundSVC.fit

    def fit(self, X, y, *a, **kw):
        seen.append(self.get_params())
        return real(self, X, y, *a, **kw)

    monkeypatch.setattr(cli.BoundSVC, "fit", fit)
    return seen


def test_svm_train_options_reach_the_estimator(files, capsys, tmp_path, fitted):
    """-m (cache MB), -e (tolerance), -b 1 (probability=True: the model file has probA/probB),
    -wi (class_weight {label i: weight}; an unknown label is warned about and ignored, as
    svm-train), -s 0, -h 1 and -q (quiet) on the estimator of the grid search."""
    d, _, y, _, _ = files
    model = tmp_path / "m.txt"
    assert main(["tune", str(d / "train.txt")] + TINY + [
        "-s", "0", "-m", "50", "-e", "0.001", "-b", "1", "-h", "1", "-w1", "2", "-w-1", "0.5",
        "-w7", "3", "-q", "--model", str(model), "--json"]) == 0
    cap = capsys.readouterr()
    r = json.loads(cap.out)
    (p,) = fitted
    assert (p["cache_size"], p["tol"], p["probability"]) == (50.0, 0.001, True)
    assert p["class_weight"] == {1.0: 2.0, -1.0: 0.5}
    assert r["class_weight"] == {"-1.0": 0.5, "1.0": 2.0}
    assert (r["loss"], r["criterion"], r["kernel"]) == ("l1", "cv-error", "rbf")
    text = model.read_text()
    assert "probA" in text and "probB" in text
    assert "-w7: class label 7 is not in the training data; ignored" in cap.err
    assert "[svmbound]" not in cap.err                          # -q: quiet
    # the rate of the grid is the weighted accuracy, out of sum w = 2 n(+1) + 0.5 n(-1)
    total = 2.0 * np.sum(y == 1) + 0.5 * np.sum(y == -1)
    (line,) = (tmp_path / "train.txt.out").read_text().splitlines()
    assert float(LINE.match(line)["rate"]) == float(f"{100 * (total - r['value']) / total:g}")
    # without -b 1 the next fit has no probabilities, and BoundSVC is BoundSVC again
    fitted.clear()
    assert main(["tune", str(d / "train.txt")] + TINY + ["--quiet", "--json"]) == 0
    assert fitted[0]["probability"] is False and fitted[0]["class_weight"] is None
    assert cli.BoundSVC is BoundSVC
    # a run that fails between apply and the fit leaves its class; the next run removes it
    bad = tmp_path / "bad_test.txt"
    bad.write_text("5 1:0.5\n")
    assert main(["tune", str(d / "train.txt"), "--test", str(bad), "-b", "1", "--quiet"]
                + TINY) == 2
    assert "svmbound: error" in capsys.readouterr().err
    fitted.clear()
    assert main(["tune", str(d / "train.txt"), "--quiet", "--json"] + TINY) == 0
    assert fitted[0]["probability"] is False and cli.BoundSVC is BoundSVC


@pytest.mark.parametrize("t, kernel, extra", [
    ("0", "linear", ["-log2c", "-1,1,2", "-v", "2"]),
    ("2", "rbf", TINY),
    ("1", "poly", ["-d", "2", "-v", "2", "--search", "annealing", "--max-epochs", "1"]),
])
def test_kernel_type_option(files, capsys, fitted, t, kernel, extra):
    """-t 0|1|2: the linear, polynomial, rbf kernel (-d: the polynomial degree); the
    polynomial kernel has no gamma, so it is tuned by -v with the annealing search."""
    assert main(["tune", str(files[0] / "train.txt"), "-t", t, "--quiet", "--json"]
                + extra) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["kernel"] == kernel == fitted[0]["kernel"]
    if kernel == "poly":
        assert r["degree"] == 2 and r["criterion"] == "cv-error"


@pytest.mark.parametrize("argv, message", [
    (["-t", "3"], "svm-train option -t 3 (sigmoid kernel) is not supported"),
    (["-t", "4"], "svm-train option -t 4 (precomputed kernel) is not supported"),
    (["-t", "9"], "-t 9: expected a kernel type"),
    (["-t", "0", "--kernel", "poly"], "-t 0 (linear) and --kernel poly disagree"),
    (["-t", "1", "-v", "3"], "-v: grid.py's grid is over C and the gamma of the rbf kernel"),
    (["-s", "3"], "svm-train option -s 3 (epsilon-SVR) is not supported"),
    (["-s", "1"], "svm-train option -s 1 (nu-SVC) is not supported"),
    (["-c", "8"], "svm-train option -c 8 is not supported: use -log2c and -log2g"),
    (["-g", "0.5"], "svm-train option -g 0.5 is not supported: use -log2c and -log2g"),
    (["-r", "1"], "svm-train option -r 1 is not supported"),
    (["-n", "0.5"], "svm-train option -n 0.5 is not supported"),
    (["-p", "0.1"], "svm-train option -p 0.1 is not supported"),
    (["-d", "3"], "svm-train option -d 3 sets the degree of the polynomial kernel (-t 1)"),
    (["-m", "0"], "-m 0: expected the kernel cache in MB"),
    (["-m", "100", "--cache-size", "50"], "-m 100 and --cache-size 50 disagree"),
    (["-t", "1", "-d", "2", "--degree", "4"], "-d 2 and --degree 4 disagree"),
    (["-e", "0.1", "--tol", "1e-05"], "-e 0.1 and --tol 1e-05 disagree"),
    (["-e", "2"], "-e 2: expected the stopping tolerance"),
    (["-h", "2"], "-h 2: expected 0 or 1"),
    (["-b", "2"], "-b 2: expected 0 or 1"),
    (["-w1"], "svm-train option -w1 needs a weight"),
    (["-w1", "-2"], "-w1 -2: expected a weight >= 0"),
    (["-w1", "2", "-w1", "3"], "-w1 is given twice"),
    (["-w1", "2", "--class-weight", "balanced"], "-w1 and --class-weight balanced"),
])
def test_svm_train_options_that_mean_nothing_here_are_errors(files, capsys, monkeypatch, argv,
                                                             message):
    _no_search(monkeypatch)
    assert main(["tune", str(files[0] / "train.txt"), "--quiet"] + argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("svmbound: error: ") and message in err, err


def test_gridpy_and_svm_train_options_are_refused_with_svr(files, capsys, monkeypatch):
    _no_search(monkeypatch)
    for argv, option in ((["-t", "0"], "-t"), (["-b", "1"], "-b"), (["-w1", "2"], "-wi"),
                         (["-svmtrain", "x"], "-svmtrain"), (["-q"], "-q")):
        assert main(["tune", str(files[0] / "frac.txt"), "--svr"] + argv) == 2
        assert f"svmbound: error: {option} cannot be used with --svr" in capsys.readouterr().err


def test_h_0_is_svm_train_shrinking_and_runs_the_tuning(files, capsys):
    """-h 0 (svm-train: no shrinking) is accepted with one note and the tuning runs; -h alone is
    still the help."""
    assert main(["tune", str(files[0] / "train.txt"), "-h", "0"] + TINY) == 0
    cap = capsys.readouterr()
    assert cap.err.count("-h 0: svmbound's SMO solver always uses shrinking") == 1
    best_c, best_g, rate = map(float, cap.out.strip().splitlines()[-1].split())
    assert (best_c, best_g) == (1.0, 0.5) and 0 < rate <= 100
    assert main(["tune", str(files[0] / "train.txt"), "-h", "1", "--quiet"] + TINY) == 0
    assert "note" not in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["tune", str(files[0] / "train.txt"), "-h"])
    assert exc.value.code == 0 and "svm-train options" in capsys.readouterr().out


def test_svmtrain_and_gnuplot_are_accepted_with_one_note(files, capsys):
    train = str(files[0] / "train.txt")
    assert main(["tune", train, "-svmtrain", "/no/svm-train", "-gnuplot", "/usr/bin/gnuplot"]
                + TINY) == 0
    cap = capsys.readouterr()
    assert cap.err.count("note:") == 1
    assert "grid.py's -svmtrain and -gnuplot are not needed" in cap.err
    assert len(cap.out.strip().splitlines()[-1].split()) == 3
    assert main(["tune", train, "-gnuplot", "null"] + TINY) == 0
    assert "note" not in capsys.readouterr().err
    assert main(["tune", train, "-gnuplot", "/usr/bin/gnuplot"] + TINY) == 0
    assert "grid.py's -gnuplot is not needed" in capsys.readouterr().err


# -- -resume ------------------------------------------------------------------------------------
def test_resume_skips_the_points_of_the_out_file(files, capsys, tmp_path):
    """-resume: the points of <dataset>.out are not trained again (their rates are read back and
    take part in the best choice), the new points are appended, no line twice; the result is
    that of the full grid run afresh."""
    train = str(files[0] / "train.txt")
    small = ["-log2c", "-1,1,2", "-log2g", "-1,1,2", "-v", "3"]
    large = ["-log2c", "-1,3,1", "-log2g", "-1,1,1", "-v", "3"]
    assert main(["tune", train, "--quiet"] + small) == 0
    capsys.readouterr()
    out = tmp_path / "train.txt.out"
    first = out.read_text().splitlines()
    assert len(first) == 4
    assert main(["tune", train, "--quiet", "--json", "-resume"] + large) == 0
    r = json.loads(capsys.readouterr().out)
    lines = out.read_text().splitlines()
    assert lines[:4] == first and len(lines) == len(set(lines)) == 15
    assert r["nfev"] == 15 and r["n_trainings"] == 11 * 3 + 1      # 11 new points, 3 folds
    # the same as the large grid run afresh: the lines, the chosen point
    assert main(["tune", train, "--quiet", "--json", "-out", str(tmp_path / "fresh.out")]
                + large) == 0
    fresh = json.loads(capsys.readouterr().out)
    assert sorted((tmp_path / "fresh.out").read_text().splitlines()) == sorted(lines)
    assert (r["C"], r["gamma"], r["value"]) == (fresh["C"], fresh["gamma"], fresh["value"])
    # resumed again: every point from the file, no training but the final model's; stdout has
    # grid.py's [resumed] lines and the best line
    assert main(["tune", train, "-resume", str(out), "-out", "null"] + large) == 0
    cap = capsys.readouterr()
    stdout = cap.out.strip().splitlines()
    assert sum(ln.startswith("[resumed] ") for ln in stdout) == 15
    assert not any(ln.startswith("[local] ") for ln in stdout)
    assert "15 function and 0 gradient evaluations, 1 SVM trainings" in cap.out
    best_c, best_g, best_rate = map(float, stdout[-1].split())
    rates = {(float(m["c"]), float(m["g"])): float(m["rate"]) for m in map(LINE.match, lines)}
    assert best_rate == max(rates.values())
    assert (best_c, best_g) == pytest.approx((r["C"], r["gamma"]), rel=1e-12)
    assert rates[math.log2(best_c), math.log2(best_g)] == best_rate
    assert out.read_text().splitlines() == lines                     # -out null: unchanged


def test_resume_with_points_outside_the_grid_and_errors(files, capsys, monkeypatch, tmp_path):
    """A point of the resume file outside the grid is listed and counts for the best line, as in
    grid.py (a note says the model is at the grid's best); a missing file, --log and a search
    other than the grid are errors."""
    train = str(files[0] / "train.txt")
    resume = tmp_path / "old.out"
    resume.write_text("log2c=9.0 log2g=-9.0 rate=100\nno rate here\n")
    assert main(["tune", train, "-resume", str(resume), "-out", "null"] + TINY) == 0
    cap = capsys.readouterr()
    stdout = cap.out.strip().splitlines()
    assert stdout[-3].startswith("[resumed] 9.0 -9.0 100.0 (best c=512.0, g=")
    assert stdout[-2].startswith("[local] 0.0 -1.0 ")
    assert stdout[-1] == f"512.0 {2.0 ** -9} 100.0"
    assert "outside this grid" in cap.err and "log2c=9.0 log2g=-9.0" in cap.err
    _no_search(monkeypatch)
    for argv, message in (
            (["-resume"], "-resume train.txt.out: file for resumption not found"),
            (["-resume", str(resume), "--log", str(tmp_path / "l.jsonl")],
             "-resume (grid.py's output file) and --log"),
            (["-resume", str(resume), "--search", "annealing"], "cannot be combined")):
        assert main(["tune", train, "--quiet"] + argv + TINY) == 2
        assert message in capsys.readouterr().err
    # a rate that is no accuracy in percent decided the model (it reported "value -50")
    resume.write_text("log2c=0.0 log2g=-1.0 rate=150\n")
    assert main(["tune", train, "--quiet", "-resume", str(resume), "-out", "null"] + TINY) == 2
    assert ("the line 'log2c=0.0 log2g=-1.0 rate=150' is no grid point's cross-validation "
            "accuracy (a rate in percent, 0 to 100" in capsys.readouterr().err)


# -- -png ---------------------------------------------------------------------------------------
def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]                # PNG's signature
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_png_is_a_map_of_the_accuracy(files, capsys, tmp_path):
    """-png FILE: a PNG (whatever the name) of the CV accuracy over log2 C and log2 gamma; a grid
    with one value on an axis is drawn as dots; without a gamma axis, or with the file of
    another option, it is an error before the search."""
    train = str(files[0] / "train.txt")
    png = tmp_path / "map.png"
    assert main(["tune", train, "-log2c", "-1,3,1", "-log2g", "-3,1,1", "-v", "3", "-png",
                 str(png)]) == 0
    cap = capsys.readouterr()
    width, height = _png_size(png)
    assert width > 0 and height > 0
    assert f"map of the accuracy in {png}" in cap.err
    assert (tmp_path / "train.txt.out").exists()
    noext = tmp_path / "picture"
    assert main(["tune", train, "--quiet", "-png", str(noext), "-out", "null"] + TINY) == 0
    assert min(_png_size(noext)) > 0
    from matplotlib.image import imread
    assert imread(str(png)).shape[:2] == (height, width)
    capsys.readouterr()
    for argv, message in (
            (["-log2c", "0,1,1", "-log2g", "null"], "-log2g null leaves no gamma axis"),
            (["-log2c", "0,1,1", "--kernel", "linear"], "the linear kernel has no gamma"),
            (["-v", "3", "--search", "annealing"], "cannot be combined with --search annealing"),
            (["-v", "3", "-out", str(png)], "-out and -png name the same file")):
        assert main(["tune", train, "--quiet", "-png", str(png)] + argv) == 2
        assert message in capsys.readouterr().err


def test_a_failed_png_is_reported_after_the_result(files, capsys, monkeypatch, tmp_path):
    import errno

    import svmbound.cli_gridpy as gridpy

    def full(points, file, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(gridpy, "plot_accuracy", full)
    png = tmp_path / "map.png"
    assert main(["tune", str(files[0] / "train.txt"), "-png", str(png), "-out", "null",
                 "-log2c", "0,1,1", "-log2g", "-1,0,1", "-v", "2"]) == 2
    cap = capsys.readouterr()
    assert len(cap.out.strip().splitlines()[-1].split()) == 3         # the best line is out
    assert f"-png {png}: cannot write (No space left" in cap.err
    assert not png.exists() and os.listdir(tmp_path) == []


@pytest.mark.parametrize("extra", [[], ["--scale"], ["--svr"]])
def test_a_zero_based_file_gets_a_model_numbered_as_the_file(tmp_path, capsys, extra):
    """--model from a zero-based training file (dump_svmlight_file's default): the model (and
    --scale's range file) number the features from 0, as the file does, so LIBSVM on the
    file's own lines predicts as reported (the model was numbered from 1: 32.7 % against
    96.7 %)."""
    from libsvm.svmutil import svm_load_model, svm_predict, svm_read_problem

    X, y = make_classification(160, 5, n_informative=3, n_redundant=0, random_state=0)
    if "--svr" in extra:
        y = X @ [1.0, -2.0, 0.5, 0.0, 1.5] + 0.1 * np.sin(7 * X[:, 0])
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    dump_svmlight_file(X[:100], y[:100], str(train), zero_based=True)
    dump_svmlight_file(X[100:], y[100:], str(test), zero_based=True)
    model = tmp_path / "m.txt"
    assert main(["tune", str(train), "--test", str(test), "--model", str(model), "--json",
                 "--quiet", "--max-iter", "5"] + extra) == 0
    cap = capsys.readouterr()
    report = json.loads(cap.out.strip().splitlines()[-1])
    # svm-scale fills a line's missing features from index 1: it leaves feature 0's zeros
    assert ("svm-scale fills a line's missing features from index 1 on" in cap.err) == (
        "--scale" in extra)
    text = model.read_text().split("\nSV\n")[1]
    assert " 0:" in text and " 5:" not in text                    # features 0 … 4
    m = svm_load_model(str(model))
    yt, xt = svm_read_problem(str(test))                          # the file's own numbers
    if "--scale" in extra:
        rng = open(report["range_file"]).read().split("\n")
        assert rng[2].split()[0] == "0"
        scaled = _svm_scale_restore(report["range_file"], X[100:], base=0)
        xt = [{k: float(v) for k, v in enumerate(r) if v != 0} for r in scaled]
    pred, _, _ = svm_predict(yt, xt, m, "-q")
    if "--svr" in extra:
        assert np.mean((np.asarray(pred) - y[100:]) ** 2) == pytest.approx(report["test_mse"])
    else:
        assert np.mean(np.asarray(pred) == y[100:]) == pytest.approx(report["test_accuracy"])
