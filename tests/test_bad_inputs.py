"""A battery of bad inputs (issue 15 item 5): each must end in a clean error whose message names
the problem — through the API (BoundSVC, solve_svm_dual, solve_radius, make_criterion,
ScalingSelector) and through the command line (``svmbound tune`` / ``select`` run in-process:
exit status 2, one line ``svmbound: error: …`` on stderr, no traceback).
"""

import bz2

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from svmbound import BoundSVC, BoundSVR, solve_radius, solve_svm_dual
from svmbound._validation import check_binary_y
from svmbound.cli import main
from svmbound.criteria import Problem, make_criterion
from svmbound.kernels import LinearKernel, RBFKernel
from svmbound.selection import ScalingSelector

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 3))
Y = np.where(X[:, 0] + 0.3 * RNG.normal(size=30) > 0, 1.0, -1.0)
K = RBFKernel(1.0)


def _with(a, i, j, v):
    a = np.array(a, dtype=float)
    a[i, j] = v
    return a


# ---------------------------------------------------------------------------------------------
# API
# ---------------------------------------------------------------------------------------------
API_CASES = {
    # BoundSVC.fit: data
    "fit-nan-X": (lambda: BoundSVC().fit(_with(X, 3, 1, np.nan), Y), "NaN or infinity (first at row 3, column 1)"),
    "fit-inf-X": (lambda: BoundSVC().fit(_with(X, 0, 2, np.inf), Y), "NaN or infinity"),
    "fit-1d-X": (lambda: BoundSVC().fit(X[:, 0], Y), "must be 2-D"),
    "fit-3d-X": (lambda: BoundSVC().fit(X[:, :, None], Y), "must be 2-D"),
    "fit-empty-X": (lambda: BoundSVC().fit(np.empty((0, 3)), []), "0 samples"),
    "fit-no-features": (lambda: BoundSVC().fit(np.empty((30, 0)), Y), "0 features"),
    "fit-string-X": (lambda: BoundSVC().fit(X.astype(str), Y), "must be numeric"),
    "fit-complex-X": (lambda: BoundSVC().fit(X + 1j, Y), "Complex data not supported"),
    "fit-ragged-X": (lambda: BoundSVC().fit([[1, 2], [3]], [1, -1]), "X must be"),
    "fit-y-length": (lambda: BoundSVC().fit(X, Y[:-1]), "different lengths"),
    "fit-one-class": (lambda: BoundSVC().fit(X, np.ones(30)), "y has a single class (1.0)"),
    "binary-y-three-object-labels": (lambda: check_binary_y(
        np.array(["a", "b", "c"], dtype=object), 3), "y has 3 classes ['a', 'b', 'c']"),
    "fit-two-single-sample-classes": (lambda: BoundSVC().fit(X, np.r_[np.zeros(28), 1.0, 2.0]),
                                      "classes 1.0, 2.0 have a single sample each"),
    "fit-svr-grid-three-parameters": (lambda: BoundSVR(criterion="svr-cv", search="grid").fit(
        X, np.arange(30.0)), "needs one or two parameters, this search has 3 (log_C, "
                              "log_sigma2, log_epsilon)"),
    "fit-three-classes-negative-weight": (lambda: BoundSVC().fit(
        X, np.arange(30) % 3, sample_weight=_with(np.ones((30, 1)), 4, 0, -1.0)[:, 0]),
        "sample_weight must be >= 0; entry 4 is"),
    "fit-three-classes-zero-weight-class": (lambda: BoundSVC(class_weight={2: 0.0}).fit(
        X, np.arange(30) % 3), "every sample of class 2 has weight zero"),
    "fit-single-sample-class": (lambda: BoundSVC().fit(X, np.r_[np.zeros(29), 1.0]),
                                "class 1.0 has a single sample: criterion='auto'"),
    "fit-single-sample-class-multiclass": (lambda: BoundSVC().fit(
        X, np.array(["a"] * 15 + ["b"] * 14 + ["c"])), "class 'c' has a single sample"),
    "fit-continuous-y": (lambda: BoundSVC().fit(X, np.where(Y > 0, 1.5, 0.5)), "Unknown label type: continuous"),
    "fit-nan-y": (lambda: BoundSVC().fit(X, _with(Y[:, None], 4, 0, np.nan)[:, 0]), "y contains NaN"),
    "fit-object-y-nan": (lambda: BoundSVC(criterion="radius-margin").fit(
        X, np.r_[Y[:4], np.nan, Y[5:]].astype(object)), "Input y contains NaN (first at entry 4"),
    "fit-huge-X": (lambda: BoundSVC().fit(X * 1e300, Y), "X has values too large to compute the scale"),
    "fit-tiny-X": (lambda: BoundSVC().fit(X * 1e-170, Y), "X has values too small to compute the scale"),
    "fit-2d-y": (lambda: BoundSVC().fit(X, np.c_[Y, Y]), "y must be 1-D"),
    "fit-complex-y": (lambda: BoundSVC().fit(X, Y + 0j), "Complex data not supported"),
    # BoundSVC: parameters
    "loss": (lambda: BoundSVC(loss="l3").fit(X, Y), "'loss' parameter of BoundSVC must be a str among"),
    "kernel": (lambda: BoundSVC(kernel="gauss").fit(X, Y), "'kernel' parameter of BoundSVC must be a str among"),
    "search": (lambda: BoundSVC(search="newton").fit(X, Y), "'search' parameter of BoundSVC must be a str among"),
    "criterion": (lambda: BoundSVC(criterion="aic").fit(X, Y), "unknown criterion 'aic'"),
    "criterion-loss": (lambda: BoundSVC(criterion="rm-l2", loss="l1").fit(X, Y), "is for the L2-SVM"),
    "not-differentiable": (lambda: BoundSVC(criterion="cv-error").fit(X, Y), "not differentiable"),
    "start-length": (lambda: BoundSVC(start=[0.0]).fit(X, Y), "start must have 2 entries"),
    "start-outside": (lambda: BoundSVC(start=[11.0, 0.0]).fit(X, Y), "outside the box"),
    "start-string": (lambda: BoundSVC(start="ab").fit(X, Y), "'start' parameter of BoundSVC must be an array-like or None. Got 'ab'"),
    "start-nan": (lambda: BoundSVC(start=[np.nan, 0.0]).fit(X, Y), "start must be finite"),
    "bounds-order": (lambda: BoundSVC(bounds=(3.0, -3.0)).fit(X, Y), "lower 3.0 must be < upper -3.0"),
    "bounds-shape": (lambda: BoundSVC(bounds=[1, 2, 3]).fit(X, Y), "bounds must be (lower, upper)"),
    "bounds-nan": (lambda: BoundSVC(bounds=(np.nan, 1.0)).fit(X, Y), "bounds must be finite"),
    # (the range itself is the estimator's: tol in [1e-14, 1] once its constraint says so)
    "tol-zero": (lambda: BoundSVC(tol=0).fit(X, Y), "'tol' parameter of BoundSVC must be a float in the range"),
    "tol-string": (lambda: BoundSVC(tol="tight").fit(X, Y), "'tol' parameter of BoundSVC must be a float in the range"),
    "tol-huge": (lambda: BoundSVC(tol=1e300).fit(X, Y), "tol"),
    "tol-tiny-named-criterion": (lambda: BoundSVC(tol=1e-300, criterion="span").fit(X, Y), "tol"),
    "max-iter-zero": (lambda: BoundSVC(max_iter=0).fit(X, Y), "'max_iter' parameter of BoundSVC must be an int in the range [1, inf). Got 0"),
    "max-iter-float": (lambda: BoundSVC(max_iter=2.5).fit(X, Y), "'max_iter' parameter of BoundSVC must be an int in the range [1, inf). Got 2.5"),
    "gtol-negative": (lambda: BoundSVC(criterion="radius-margin", gtol=-1.0).fit(X, Y), "gtol"),
    "degree-zero": (lambda: BoundSVC(kernel="poly", degree=0).fit(X, Y), "'degree' parameter of BoundSVC must be an int in the range [1, inf), a str among {'auto'} or an array-like. Got 0"),
    "degree-range": (lambda: BoundSVC(kernel="poly", degree=(5, 2), search="annealing").fit(X, Y), "low 5 must be < high 2"),
    "degree-range-bfgs": (lambda: BoundSVC(kernel="poly", degree=(1, 3)).fit(X, Y), "needs search='annealing'"),
    "coef0-negative": (lambda: BoundSVC(kernel="poly", coef0=-1.0).fit(X, Y), "'coef0' parameter of BoundSVC must be a float in the range [0.0, inf). Got -1.0"),
    "cache-size": (lambda: BoundSVC(cache_size=-5).fit(X, Y), "'cache_size' parameter of BoundSVC must be a float in the range (0.0, inf) or a str among {'auto'}. Got -5"),
    "groups-rbf": (lambda: BoundSVC(groups=[0, 0, 1]).fit(X, Y), "groups only apply to the ARD kernels"),
    "groups-length": (lambda: BoundSVC(kernel="ard", groups=[0, 1]).fit(X, Y), "groups has 2 entries but X has 3"),
    "grid-not-dict": (lambda: BoundSVC(search="grid", grid=[1, 2]).fit(X, Y), "'grid' parameter of BoundSVC must be an instance of 'dict' or None. Got [1, 2]"),
    "grid-pair": (lambda: BoundSVC(search="grid", grid={"log_C": (0, 1)}).fit(X, Y), "grid['log_C'] must be three numbers"),
    "grid-step": (lambda: BoundSVC(search="grid", grid={"log_C": (0, 1, 0)}).fit(X, Y), "grid step must be a finite non-zero"),
    "grid-key": (lambda: BoundSVC(search="grid", grid={"gamma": (0, 1, 1)}).fit(X, Y), "grid keys ['gamma'] are not parameters"),
    "convex-l1": (lambda: BoundSVC(search="convex", loss="l1").fit(X, Y), "tunes C of the L2-SVM only"),
    "max-epochs": (lambda: BoundSVC(search="annealing", criterion="cv-error", max_epochs=0).fit(X, Y), "'max_epochs' parameter of BoundSVC must be an int in the range [1, inf). Got 0"),
    # BoundSVC: prediction
    "predict-unfitted": (lambda: BoundSVC().predict(X), "not fitted"),
    "decision-unfitted": (lambda: BoundSVC().decision_function(X), "not fitted"),
    "predict-features": (lambda: BoundSVC(max_iter=2).fit(X, Y).predict(X[:, :2]), "X has 2 features, but BoundSVC is expecting 3 features as input"),
    "predict-complex": (lambda: BoundSVC(max_iter=2).fit(X, Y).predict(X + 1j), "Complex data not supported"),
    # solve_svm_dual
    "svm-C-zero": (lambda: solve_svm_dual(X, Y, K, 0.0), "C must be a finite number > 0"),
    "svm-C-nan": (lambda: solve_svm_dual(X, Y, K, np.nan), "C must be a finite number > 0"),
    "svm-C-string": (lambda: solve_svm_dual(X, Y, K, "big"), "C must be a number > 0"),
    "svm-loss": (lambda: solve_svm_dual(X, Y, K, 1.0, loss="hinge"), "unknown loss 'hinge'"),
    "svm-tol": (lambda: solve_svm_dual(X, Y, K, 1.0, tol=-1e-3), "tol must be a finite number > 0"),
    "svm-tol-huge": (lambda: solve_svm_dual(X, Y, K, 1.0, tol=1e300), "tol must be <= 1, got 1e+300"),
    "svm-tol-tiny": (lambda: solve_svm_dual(X, Y, K, 1.0, tol=1e-300), "tol must be >= 1e-14, got 1e-300"),
    "svm-kernel-overflow": (lambda: solve_svm_dual(X * 1e200, Y, LinearKernel(), 1.0), "kernel's values are not finite"),
    "svm-labels-01": (lambda: solve_svm_dual(X, (Y > 0) * 1.0, K, 1.0), "y must contain only -1 and +1"),
    "svm-alpha0-nan": (lambda: solve_svm_dual(X, Y, K, 1.0, alpha0=np.r_[np.nan, np.zeros(29)]), "alpha0 must be finite"),
    "svm-alpha0-shape": (lambda: solve_svm_dual(X, Y, K, 1.0, alpha0=np.zeros(5)), "alpha0 must have shape (30,)"),
    "svm-kernel-name": (lambda: solve_svm_dual(X, Y, "rbf", 1.0), "kernel must be a svmbound Kernel"),
    "svm-max-iter": (lambda: solve_svm_dual(X, Y, K, 1.0, max_iter=0), "max_iter must be None or an integer >= 1"),
    "svm-cache": (lambda: solve_svm_dual(X, Y, K, 1.0, cache_size="huge"), "cache_size must be 'auto'"),
    "svm-warm-from": (lambda: solve_svm_dual(X, Y, K, 1.0, warm_from="previous"), "warm_from must be a DualSolution"),
    # solve_radius
    "radius-shift": (lambda: solve_radius(X, K, shift=-1.0), "shift must be a finite number >= 0"),
    "radius-shift-string": (lambda: solve_radius(X, K, shift="a"), "shift must be a finite number >= 0"),
    "radius-beta0-nan": (lambda: solve_radius(X, K, beta0=np.full(30, np.nan)), "beta0 must be finite"),
    "radius-beta0-zero": (lambda: solve_radius(X, K, beta0=np.zeros(30)), "beta0 has no positive entry"),
    "radius-beta0-shape": (lambda: solve_radius(X, K, beta0=np.ones(3)), "beta0 must have shape (30,)"),
    "radius-tol": (lambda: solve_radius(X, K, tol=np.nan), "tol must be a finite number > 0"),
    "radius-tol-huge": (lambda: solve_radius(X, K, tol=2.0), "tol must be <= 1"),
    "radius-kernel-overflow": (lambda: solve_radius(X * 1e200, LinearKernel()), "kernel's values are not finite"),
    "radius-kernel": (lambda: solve_radius(X, None), "kernel must be a svmbound Kernel"),
    # make_criterion / evaluate
    "crit-name": (lambda: make_criterion("aic", Problem(X, Y), K), "unknown criterion 'aic'"),
    "crit-loss": (lambda: make_criterion("rm-l1", Problem(X, Y), K, loss="l2"), "is for the L1-SVM"),
    "crit-kernel": (lambda: make_criterion("rm-l2", Problem(X, Y), "rbf"), "kernel must be a svmbound Kernel"),
    "crit-labels": (lambda: make_criterion("rm-l2", Problem(X, np.where(Y > 0, 1.0, 0.0)), K), "y must contain only -1 and +1"),
    "crit-kwarg": (lambda: make_criterion("rm-l2", Problem(X, Y), K, C=3.0), "takes no parameter 'C'"),
    "crit-tol": (lambda: make_criterion("rm-l2", Problem(X, Y), K, tol=0.0), "tol must be a finite number > 0"),
    "crit-max-iter": (lambda: make_criterion("rm-l2", Problem(X, Y), K, max_iter=-1), "max_iter must be None or an integer >= 1"),
    "crit-folds": (lambda: make_criterion("cv-error", Problem(X, Y), K, n_folds=1), "n_folds must be between 2"),
    "crit-validation": (lambda: make_criterion("smoothed-validation", Problem(X, Y), K, validation_fraction=1.5), "validation_fraction must be in (0, 1)"),
    "crit-theta-length": (lambda: make_criterion("rm-l2", Problem(X, Y), K).evaluate([0.0]), "theta must have 2 entries"),
    "crit-theta-nan": (lambda: make_criterion("rm-l2", Problem(X, Y), K).evaluate([0.0, np.nan]), "theta must be finite"),
    "crit-theta-string": (lambda: make_criterion("rm-l2", Problem(X, Y), K).evaluate(["a", "b"]), "theta must be 2 numbers"),
    # ScalingSelector
    "sel-keep-zero": (lambda: ScalingSelector(n_features_to_select=0).fit(X, Y), "'n_features_to_select' parameter of ScalingSelector must be an int in the range [1, inf), a float in the range (0.0, 1.0) or None. Got 0"),
    "sel-keep-many": (lambda: ScalingSelector(n_features_to_select=9).fit(X, Y), "larger than the number of features (3)"),
    "sel-criterion": (lambda: ScalingSelector(1, criterion="cv-error").fit(X, Y), "not differentiable"),
    "sel-kernel": (lambda: ScalingSelector(1, kernel="gauss").fit(X, Y), "'kernel' parameter of ScalingSelector must be a str among"),
    "sel-space": (lambda: ScalingSelector(1, space="wavelet").fit(X, Y), "'space' parameter of ScalingSelector must be a str among"),
    "sel-complex": (lambda: ScalingSelector(1).fit(X + 1j, Y), "Complex data not supported"),
    "sel-continuous": (lambda: ScalingSelector(1).fit(X, np.where(Y > 0, 1.5, 0.5)), "Unknown label type: continuous"),
    "sel-nan": (lambda: ScalingSelector(1).fit(_with(X, 0, 0, np.nan), Y), "NaN"),
    "sel-unfitted": (lambda: ScalingSelector(1).transform(X), "not fitted"),
}


@pytest.mark.parametrize("case", sorted(API_CASES))
def test_api_bad_input(case):
    call, message = API_CASES[case]
    with pytest.raises((ValueError, NotFittedError)) as exc:
        call()
    assert message in str(exc.value)


# ---------------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def d(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    lines = [f"{'+1' if y > 0 else '-1'} " + " ".join(f"{k + 1}:{v:.6g}" for k, v in enumerate(x))
             for x, y in zip(X, Y)]
    text = "\n".join(lines) + "\n"
    (d / "train.txt").write_text(text)
    (d / "test01.txt").write_text(text.replace("-1 ", "0 "))
    (d / "wide.txt").write_text("+1 1:1 7:1\n-1 2:1\n")
    (d / "three.txt").write_text(text + "2 1:0.5\n")
    (d / "half.txt").write_text(text.replace("+1 ", "1.5 ").replace("-1 ", "0.5 "))
    (d / "badline.txt").write_text("+1 1:0.5\n-1 1:x\n")
    (d / "decreasing.txt").write_text("+1 2:0.5 1:1\n-1 1:1\n")
    (d / "plain.bz2").write_text(text)
    (d / "plain.gz").write_text(text)
    (d / "plain.xz").write_text(text)
    (d / "trunc.bz2").write_bytes(bz2.compress(text.encode())[:200])
    (d / "huge.txt").write_text(text + "+1 1:1 2000000000:1\n")
    (d / "overflow.txt").write_text(text + "+1 99999999999:1\n")
    (d / "empty.txt").write_text("# nothing\n")
    (d / "nofeatures.txt").write_text("+1\n-1\n")
    (d / "folder").mkdir()
    return d


CLI_CASES = {
    # input files
    "missing-file": (["tune", "{d}/absent.txt"], "LIBSVM file not found"),
    "directory": (["tune", "{d}/folder"], "is a directory"),
    "bad-line": (["tune", "{d}/badline.txt"], "badline.txt, line 2: value 'x'"),
    "decreasing-indices": (["tune", "{d}/decreasing.txt"], "line 1: feature indices must be strictly increasing"),
    "plain-bz2": (["tune", "{d}/plain.bz2"], "cannot decompress as bzip2 data"),
    "plain-gz": (["tune", "{d}/plain.gz"], "cannot decompress as gzip data"),
    "plain-xz": (["tune", "{d}/plain.xz"], "cannot decompress as xz data"),
    "truncated-bz2": (["tune", "{d}/trunc.bz2"], "truncated file?"),
    "huge-index": (["tune", "{d}/huge.txt"], "feature index 2000000000 would make a sparse matrix"),
    "overflow-index": (["tune", "{d}/overflow.txt"], "feature index 99999999999 is too large"),
    "empty-file": (["tune", "{d}/empty.txt"], "no data lines"),
    "no-features": (["tune", "{d}/nofeatures.txt"], "no line has a feature"),
    "three-classes-weighted": (["tune", "{d}/three.txt", "--class-weight", "balanced"],
                               "class 2.0 has a single sample: criterion='auto'"),
    "continuous-labels": (["tune", "{d}/half.txt"], "Unknown label type: continuous"),
    "test-labels": (["tune", "{d}/train.txt", "--test", "{d}/test01.txt"], "test set has labels [0.0] that are not among the training classes"),
    "n-features": (["tune", "{d}/train.txt", "--n-features", "2"], "line 1: feature index 3 exceeds n_features=2"),
    "test-missing": (["tune", "{d}/train.txt", "--test", "{d}/absent.txt"], "absent.txt"),
    # options
    "loss": (["tune", "{d}/train.txt", "--loss", "l3"], "'loss' parameter of BoundSVC must be a str among"),
    "criterion": (["tune", "{d}/train.txt", "--criterion", "aic"], "unknown criterion 'aic'"),
    "search": (["tune", "{d}/train.txt", "--search", "newton"], "'search' parameter of BoundSVC must be a str among"),
    "kernel": (["tune", "{d}/train.txt", "--kernel", "gauss"], "'kernel' parameter of BoundSVC must be a str among"),
    "tol": (["tune", "{d}/train.txt", "--tol", "0"], "'tol' parameter of BoundSVC must be a float in the range"),
    "tol-nan": (["tune", "{d}/train.txt", "--tol", "nan"], "'tol' parameter of BoundSVC must be a float in the range"),
    "tol-huge": (["tune", "{d}/train.txt", "--tol", "1e300"], "tol"),
    "max-iter": (["tune", "{d}/train.txt", "--max-iter", "0"], "'max_iter' parameter of BoundSVC must be an int in the range [1, inf). Got 0"),
    "cache-size": (["tune", "{d}/train.txt", "--cache-size", "-1"], "'cache_size' parameter of BoundSVC must be a float in the range (0.0, inf)"),
    "start": (["tune", "{d}/train.txt", "--start", "1"], "start must have 2 entries"),
    "start-outside": (["tune", "{d}/train.txt", "--start", "0", "20"], "outside the box"),
    "degree": (["tune", "{d}/train.txt", "--kernel", "poly", "--degree", "0"], "'degree' parameter of BoundSVC must be an int in the range [1, inf)"),
    "coef0": (["tune", "{d}/train.txt", "--kernel", "poly", "--coef0", "-2"], "'coef0' parameter of BoundSVC must be a float in the range [0.0, inf). Got -2.0"),
    "not-differentiable": (["tune", "{d}/train.txt", "--criterion", "loo-error"], "not differentiable"),
    "grid-step": (["tune", "{d}/train.txt", "--search", "grid", "--grid-log-c", "0", "1", "0"], "grid step must be a finite non-zero"),
    "plot-folder": (["tune", "{d}/train.txt", "--plot", "{d}/nowhere/map.png"], "does not exist"),
    "plot-format": (["tune", "{d}/train.txt", "--plot", "{d}/map.docx"], "unknown image format 'docx'"),
    "plot-is-folder": (["tune", "{d}/train.txt", "--plot", "{d}/folder"], "is a folder"),
    "plot-linear": (["tune", "{d}/train.txt", "--kernel", "linear", "--plot", "{d}/map.png"], "linear kernel has none"),
    "plot-ard": (["tune", "{d}/train.txt", "--kernel", "ard", "--plot", "{d}/map.png"], "the ard kernel has one per feature"),
    # select
    "select-missing": (["select", "{d}/absent.txt", "--keep", "1"], "LIBSVM file not found"),
    "select-keep-zero": (["select", "{d}/train.txt", "--keep", "0"], "'n_features_to_select' parameter of ScalingSelector must be an int in the range [1, inf)"),
    "select-keep-many": (["select", "{d}/train.txt", "--keep", "9"], "larger than the number of features"),
    "select-criterion": (["select", "{d}/train.txt", "--keep", "1", "--criterion", "cv-error"], "not differentiable"),
    "select-kernel": (["select", "{d}/train.txt", "--keep", "1", "--kernel", "gauss"], "'kernel' parameter of ScalingSelector must be a str among"),
    "select-space": (["select", "{d}/train.txt", "--keep", "1", "--space", "fourier"], "'space' parameter of ScalingSelector must be a str among"),
    "select-labels": (["select", "{d}/half.txt", "--keep", "1"], "Unknown label type: continuous"),
    "select-plain-gz": (["select", "{d}/plain.gz", "--keep", "1"], "cannot decompress as gzip data"),
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_bad_input(case, d, capsys):
    argv, message = CLI_CASES[case]
    argv = [a.format(d=d) for a in argv] + ["--quiet"]
    assert main(argv) == 2
    out = capsys.readouterr()
    assert out.err.startswith("svmbound: error: ") and out.err.count("\n") == 1, out.err
    assert message in out.err
    assert "Traceback" not in out.err and out.out == ""


@pytest.mark.parametrize("argv", [["tune"], ["tune", "x.txt", "--max-iter", "many"],
                                  ["select", "x.txt"], ["frobnicate"]])
def test_cli_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage: svmbound" in capsys.readouterr().err


def test_cli_permission_denied(d, capsys, monkeypatch):
    import svmbound.libsvm_files

    def denied(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(svmbound.libsvm_files, "_open_binary", denied)
    assert main(["select", str(d / "train.txt"), "--keep", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Permission denied" in err and "train.txt" in err and "Traceback" not in err


def test_battery_size():
    assert len(API_CASES) + len(CLI_CASES) >= 40
