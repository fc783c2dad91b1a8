"""Regression tests for the defects of issue 15: each test failed before its fix."""

import numpy as np
import pytest

from svmbound.criteria import Problem, make_criterion
from svmbound.kernels import RBFKernel
from svmbound.kernels.ard import ARDRBFKernel


# ---------------------------------------------------------------------------------------------
# 1. RBF gradients on data far from the origin
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("name", ["rm-l2", "rm-l1", "span", "smoothed-validation"])
@pytest.mark.parametrize("kernel, theta", [(RBFKernel(1.0), [1.0, 0.5]),
                                           (ARDRBFKernel(np.ones(3)), [1.0, 0.5, 0.2, -0.3])])
def test_rbf_value_and_gradient_do_not_depend_on_a_shift_of_X(small_problem, name, kernel, theta):
    X, y = small_problem
    ref = make_criterion(name, Problem(X, y), kernel, tol=1e-10, random_state=0).evaluate(theta)
    for off in (1e6, 1e8):
        ev = make_criterion(name, Problem(X + off, y), kernel, tol=1e-10,
                            random_state=0).evaluate(theta)
        # X + 1e8 itself is rounded to ~1.5e-8: the criterion may move that much, no more
        assert ev.value == pytest.approx(ref.value, rel=1e-6)
        np.testing.assert_allclose(ev.grad, ref.grad, rtol=1e-6, atol=1e-6 * np.abs(ref.grad).max())


def test_rbf_contract_is_translation_invariant(small_problem):
    X, _ = small_problem
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=40), rng.normal(size=40)
    k = RBFKernel(0.7)
    ref = k.contract(X, a, b)
    np.testing.assert_allclose(k.contract(X + 1e8, a, b), ref, rtol=1e-6)
    np.testing.assert_allclose(k.contract(X - 3e7, a, a), k.contract(X, a, a), rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# 2, 3, 5, 10. The command line: file loading, test labels, read errors, output paths
# ---------------------------------------------------------------------------------------------
import json  # noqa: E402

from sklearn.datasets import dump_svmlight_file, make_classification  # noqa: E402

from svmbound.cli import main  # noqa: E402
from svmbound.datasets import load_libsvm, load_libsvm_files  # noqa: E402
from svmbound.exceptions import DataWarning  # noqa: E402


@pytest.fixture(scope="module")
def one_based(tmp_path_factory):
    """A 1-based training and test file (LIBSVM's convention), and a copy of the training
    file with a stray ``0:`` in its third line."""
    d = tmp_path_factory.mktemp("onebased")
    X, y = make_classification(n_samples=200, n_features=4, n_informative=3, n_redundant=0,
                               class_sep=2.0, random_state=3)
    y = np.where(y == 1, 1, -1)
    dump_svmlight_file(X[:120], y[:120], str(d / "train.txt"), zero_based=False)
    dump_svmlight_file(X[120:], y[120:], str(d / "test.txt"), zero_based=False)
    lines = (d / "train.txt").read_text().splitlines(keepends=True)
    label, rest = lines[2].split(" ", 1)
    lines[2] = f"{label} 0:0.25 {rest}"
    (d / "stray0.txt").write_text("".join(lines))
    (d / "test01.txt").write_text((d / "test.txt").read_text().replace("-1 ", "0 ", ))
    return d


def _tune_json(capsys, *args):
    code = main(["tune", *map(str, args), "--json", "--quiet", "--max-iter", "8"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out), out.err


def test_stray_zero_index_does_not_shift_the_training_columns(one_based, capsys):
    clean, _ = _tune_json(capsys, one_based / "train.txt", "--test", one_based / "test.txt")
    stray, err = _tune_json(capsys, one_based / "stray0.txt", "--test", one_based / "test.txt")
    assert clean["test_accuracy"] > 0.9
    assert stray["test_accuracy"] >= clean["test_accuracy"] - 0.03
    assert "stray0.txt, line 3: feature index 0" in err and "DataWarning" in err


def test_stray_zero_index_keeps_every_other_column(one_based):
    with pytest.warns(DataWarning, match="line 3"):
        (X, y, Xt, yt), = [load_libsvm_files([one_based / "stray0.txt", one_based / "test.txt"])]
    X1, _, Xt1, _ = load_libsvm_files([one_based / "train.txt", one_based / "test.txt"])
    assert X.shape[1] == Xt.shape[1] == 5               # column 0 holds the stray value
    np.testing.assert_array_equal(X[:, 1:], X1)
    np.testing.assert_array_equal(Xt[:, 1:], Xt1)
    assert X[2, 0] == 0.25 and np.count_nonzero(X[:, 0]) == 1


def test_one_based_select_reports_the_files_feature_numbers(one_based, capsys):
    assert main(["select", str(one_based / "train.txt"), "--keep", "4", "--json", "--quiet"]) == 0
    assert sorted(json.loads(capsys.readouterr().out)["features"]) == [1, 2, 3, 4]


def test_test_labels_not_among_the_training_classes_are_refused(one_based, capsys):
    code = main(["tune", str(one_based / "train.txt"), "--test", str(one_based / "test01.txt"),
                 "--quiet", "--max-iter", "3"])
    err = capsys.readouterr().err
    assert code == 2
    assert "labels [0.0]" in err and "not among the training classes" in err
    assert "Traceback" not in err


def test_plot_into_a_missing_folder_fails_before_the_search(one_based, capsys, monkeypatch):
    import svmbound.estimators

    def no_search(*a, **k):
        raise AssertionError("the search ran")

    monkeypatch.setattr(svmbound.estimators.BoundSVC, "fit", no_search)
    code = main(["tune", str(one_based / "train.txt"), "--quiet",
                 "--plot", str(one_based / "missing" / "map.png")])
    err = capsys.readouterr().err
    assert code == 2 and "--plot" in err and "does not exist" in err
    assert main(["tune", str(one_based / "train.txt"), "--quiet", "--plot",
                 str(one_based / "map.nope")]) == 2
    assert "unknown image format 'nope'" in capsys.readouterr().err
    assert main(["tune", str(one_based / "train.txt"), "--quiet", "--kernel", "linear",
                 "--plot", str(one_based / "map.png")]) == 2
    assert "linear kernel has none" in capsys.readouterr().err
    assert not (one_based / "map.png").exists()


@pytest.fixture(scope="module")
def broken_files(one_based):
    """Files that used to end the CLI with a traceback or a huge allocation."""
    import bz2

    d = one_based
    text = (d / "train.txt").read_text()
    (d / "plain.bz2").write_text(text)
    (d / "plain.gz").write_text(text)
    (d / "trunc.bz2").write_bytes(bz2.compress(text.encode())[:300])
    lines = text.splitlines(keepends=True)
    (d / "huge.txt").write_text(text + "+1 1:1 2000000000:1\n")
    (d / "big.txt").write_text("".join(lines[:79]) + "+1 1:1 50000000:1\n")
    (d / "overflow.txt").write_text(text + "+1 1:1 20000000000:1\n")
    (d / "empty.txt").write_text("")
    return d


@pytest.mark.parametrize("name, message", [
    ("plain.bz2", "cannot decompress as bzip2 data"),
    ("plain.gz", "cannot decompress as gzip data"),
    ("trunc.bz2", "the bzip2 data end too early (truncated file?)"),
    # --sparse auto reads these very sparse files as CSR: the check is then on the column
    # pointers (issue 13); --sparse no keeps the dense check
    ("huge.txt", "huge.txt, line 121: feature index 2000000000 would make a sparse matrix"),
    ("big.txt --sparse no",
     "big.txt, line 80: feature index 50000000 would make a dense 80 x 50000000"),
    ("overflow.txt", "line 121: feature index 20000000000 is too large"),
    ("empty.txt", "no data lines"),
])
def test_unreadable_files_give_one_line_and_status_2(broken_files, capsys, name, message):
    name, *extra = name.split()
    assert main(["tune", str(broken_files / name), "--quiet", "--max-iter", "2"] + extra) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert err.startswith("svmbound: error: ") and err.count("\n") == 1


def test_huge_feature_index_is_refused_before_allocating(broken_files, monkeypatch):
    import scipy.sparse

    def no_dense(self, *a, **k):
        raise AssertionError("densified")

    monkeypatch.setattr(scipy.sparse.csr_matrix, "toarray", no_dense)
    with pytest.raises(ValueError, match="would make a dense"):
        load_libsvm(broken_files / "big.txt")


def test_permission_denied_is_a_clean_error(broken_files, capsys, monkeypatch):
    import svmbound.libsvm_files

    def denied(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(svmbound.libsvm_files, "_open_binary", denied)
    assert main(["tune", str(broken_files / "train.txt"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Permission denied" in err and "train.txt" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------------------
# 6, 7, 8. Estimator input checks
# ---------------------------------------------------------------------------------------------
from sklearn.exceptions import NotFittedError  # noqa: E402

from svmbound import BoundSVC  # noqa: E402


def test_continuous_labels_are_rejected_up_front(small_problem):
    X, y = small_problem
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        BoundSVC(max_iter=2).fit(X, np.where(y > 0, 1.5, 0.5))


def test_predict_before_fit_raises_not_fitted(small_problem):
    X, _ = small_problem
    with pytest.raises(NotFittedError):
        BoundSVC().predict(X)


def test_complex_X_is_rejected(small_problem):
    X, y = small_problem
    with pytest.raises(ValueError, match="Complex data not supported"):
        BoundSVC(max_iter=2).fit(X + 1j, y)
    with pytest.raises(ValueError, match="Complex data not supported"):
        BoundSVC(max_iter=2).fit(X.astype(object) + 0j, y)
    model = BoundSVC(max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="Complex data not supported"):
        model.predict(X + 0j)


# ---------------------------------------------------------------------------------------------
# 4. Warm starts are validated; criteria report solves that did not converge
# ---------------------------------------------------------------------------------------------
from svmbound.exceptions import ConvergenceWarning  # noqa: E402
from svmbound.kernels import LinearKernel  # noqa: E402
from svmbound.solvers import solve_radius, solve_svm_dual  # noqa: E402


@pytest.mark.parametrize("bad, match", [
    ([np.nan] + [0.0] * 39, r"alpha0 must be finite, got alpha0\[0\] = nan"),
    ([0.0] * 39 + [np.inf], r"alpha0 must be finite, got alpha0\[39\] = inf"),
    ([0.0] * 3, r"alpha0 must have shape \(40,\)"),
    (["a"] * 40, "alpha0 must be a numeric vector"),
])
def test_bad_alpha0_is_refused(small_problem, bad, match):
    X, y = small_problem
    with pytest.raises(ValueError, match=match):
        solve_svm_dual(X, y, RBFKernel(1.0), 1.0, alpha0=bad)


@pytest.mark.parametrize("bad, match", [
    ([np.nan] + [0.1] * 39, "beta0 must be finite"),
    ([0.1] * 39 + [-np.inf], "beta0 must be finite"),
    ([0.0] * 40, "no positive entry"),
    ([1.0] * 41, r"beta0 must have shape \(40,\)"),
])
def test_bad_beta0_is_refused(small_problem, bad, match):
    X, _ = small_problem
    with pytest.raises(ValueError, match=match):
        solve_radius(X, RBFKernel(1.0), beta0=bad)


def test_criterion_reports_a_solve_stopped_at_the_iteration_cap(small_problem):
    X, y = small_problem
    crit = make_criterion("rm-l2", Problem(X, y), LinearKernel(), loss="l2", max_iter=3)
    with pytest.warns(ConvergenceWarning, match="rm-l2.*SVM dual: KKT violation"):
        ev = crit.evaluate([10.0])
    assert ev.info["converged"] is False and ev.info["unconverged"]
    assert issubclass(ConvergenceWarning, RuntimeWarning)
    ok = make_criterion("rm-l2", Problem(X, y), LinearKernel(), loss="l2").evaluate([0.0])
    assert ok.info["converged"] is True


@pytest.mark.parametrize("name", ["cv-error", "rm-l1", "span"])
def test_every_criterion_family_reports_convergence(small_problem, name):
    X, y = small_problem
    crit = make_criterion(name, Problem(X, y), RBFKernel(1.0),
                          loss="l2" if name == "span" else "l1", max_iter=2)
    with pytest.warns(ConvergenceWarning):
        ev = crit.evaluate([5.0, 0.0], need_grad=False)
    assert ev.info["converged"] is False


# ---------------------------------------------------------------------------------------------
# 12. The radius QP's tolerance is relative to the scale of the problem
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("log_sigma2", [10.0, 15.0, 20.0])
def test_radius_of_a_wide_kernel_is_not_zero_at_the_default_tol(cancer_data, log_sigma2):
    X, _ = cancer_data
    k = RBFKernel(np.exp(log_sigma2))
    ref = solve_radius(X, k, tol=1e-14).r2
    sol = solve_radius(X, k)                       # default tol 1e-3
    assert sol.converged and sol.r2 > 0
    assert sol.r2 == pytest.approx(ref, rel=4e-3)
    # R²σ² tends to a constant as σ² grows (the kernel becomes 1 − ‖x − z‖²/(2σ²))
    assert sol.r2 * np.exp(log_sigma2) == pytest.approx(211.7, rel=1e-2)


# ---------------------------------------------------------------------------------------------
# 9. Grid search with a criterion that trains only on folds (cv-error)
# ---------------------------------------------------------------------------------------------
def test_grid_search_with_cv_error(small_problem):
    from svmbound.search.grid import evaluate_grid, minimize_grid

    X, y = small_problem
    grid = {"log_C": (-2, 2, 2), "log_sigma2": (-2, 2, 2)}
    model = BoundSVC(criterion="cv-error", search="grid", loss="l1", grid=grid).fit(X, y)
    assert model.search_.nfev == 9 and model.score(X, y) > 0.8
    crit = make_criterion("cv-error", Problem(X, y), RBFKernel(1.0), loss="l1")
    res = minimize_grid(crit, [-2.0, 0.0, 2.0], [-2.0, 2.0])
    assert np.all(res.grid.n_sv == -1)                  # no full-data SVM was trained
    g = evaluate_grid(crit, [-2.0, 0.0, 2.0], [-2.0, 2.0], X, y)
    assert np.all(g.n_sv > 0) and np.all((g.test_error >= 0) & (g.test_error <= 1))


def test_cli_grid_search_with_cv_error_and_plot(one_based, capsys, tmp_path):
    r, _ = _tune_json(capsys, one_based / "train.txt", "--test", one_based / "test.txt",
                      "--criterion", "cv-error", "--search", "grid", "--loss", "l1",
                      "--grid-log-c", "-2", "2", "2", "--grid-log-sigma2", "-2", "2", "2",
                      "--plot", tmp_path / "cv.png")
    assert r["criterion"] == "cv-error" and r["nfev"] == 9 and r["test_accuracy"] > 0.85
    assert (tmp_path / "cv.png").stat().st_size > 0


# ---------------------------------------------------------------------------------------------
# 11. Degenerate data: identical rows, data far from unit scale
# ---------------------------------------------------------------------------------------------
import warnings  # noqa: E402

from svmbound.exceptions import SearchWarning, SvmboundWarning  # noqa: E402


def test_identical_rows_warn(small_problem):
    X, y = small_problem
    with pytest.warns(DataWarning, match="all 40 rows of X are identical"):
        BoundSVC(criterion="radius-margin", max_iter=3).fit(np.ones_like(X), y)
    with pytest.raises(ValueError, match="zero variance"):      # the default strategy
        BoundSVC(max_iter=3).fit(np.ones_like(X), y)


@pytest.mark.parametrize("factor, loss", [(1e12, "l2"), (1e12, "l1"), (1e-12, "l2"),
                                          (1e-12, "l1")])
def test_search_stuck_at_a_flat_start_warns(cancer_data, factor, loss):
    X, y = cancer_data
    X, y = X[:150], y[:150]
    with pytest.warns(SearchWarning, match="log_sigma2 at the start value.*standardise") as rec:
        BoundSVC(loss=loss, criterion="radius-margin", max_iter=20).fit(X * factor, y)
    assert all(issubclass(w.category, RuntimeWarning) for w in rec
               if issubclass(w.category, SearchWarning))


def test_no_search_warning_on_standardised_data(cancer_data):
    X, y = cancer_data
    with warnings.catch_warnings():
        warnings.simplefilter("error", SvmboundWarning)
        BoundSVC(criterion="radius-margin", max_iter=20).fit(X[:150], y[:150])
