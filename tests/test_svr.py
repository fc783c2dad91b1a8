"""ε-SVR: the dual solver against scikit-learn's SVR, the span estimate against exact
leave-one-out, its gradient against finite differences, the CV criterion, and BoundSVR."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_friedman1
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from svmbound import BoundSVC, BoundSVR
from svmbound.criteria import make_criterion
from svmbound.criteria.svr import (SVRCrossValidation, SVRLeaveOneOut, SVRRadiusMargin,
                                   SVRSpanBound, SVRSpanEstimate)
from svmbound.kernels import LinearKernel, RBFKernel
from svmbound.kernels.ard import ARDRBFKernel
from svmbound.solvers import Problem
from svmbound.solvers.svr import solve_svr_dual, svr_predict

from _fd import central_fd


def _data(n=80, seed=0):
    X, y = make_friedman1(n, noise=0.5, random_state=seed)
    X = StandardScaler().fit_transform(X)
    return X, (y - y.mean()) / y.std()


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("C,eps", [(1.0, 0.1), (20.0, 0.02)])
def test_l1_solver_agrees_with_sklearn_svr(C, eps, sparse):
    X, y = _data()
    w = np.linspace(0.5, 2.0, y.size)
    Xs = sp.csr_matrix(X) if sparse else X
    k = RBFKernel(sigma2=5.0)
    sol = solve_svr_dual(Xs, y, k, C, eps, tol=1e-8, weights=w)
    ref = SVR(C=C, epsilon=eps, gamma=k.gamma, tol=1e-8).fit(X, y, sample_weight=w)
    assert set(sol.support) == set(ref.support_)
    np.testing.assert_allclose(sol.beta[ref.support_], ref.dual_coef_[0], atol=1e-5)
    np.testing.assert_allclose(sol.b, ref.intercept_[0], atol=1e-5)
    np.testing.assert_allclose(svr_predict(X, sol.beta, sol.b, k, X), ref.predict(X), atol=1e-5)
    np.testing.assert_allclose(sol.training_prediction(y), ref.predict(X), atol=1e-5)


def test_l2_solver_meets_its_kkt_conditions():
    """L2-SVR: every support vector p has |z_p − f(x_p)| = ε + |β_p|/C_p (ξ = |β|/C), every
    other point lies inside the tube, and Σβ = 0."""
    X, y = _data()
    w = np.linspace(0.5, 2.0, y.size)
    C, eps = 3.0, 0.1
    sol = solve_svr_dual(X, y, RBFKernel(sigma2=4.0), C, eps, loss="l2", tol=1e-10, weights=w)
    r = y - sol.training_prediction(y)
    sv = sol.support
    beta = sol.beta
    np.testing.assert_allclose(np.abs(r[sv]), eps + np.abs(beta[sv]) / (C * w[sv]), atol=1e-8)
    np.testing.assert_array_equal(np.sign(r[sv]), np.sign(beta[sv]))
    others = np.setdiff1d(np.arange(y.size), sv)
    assert np.all(np.abs(r[others]) <= eps + 1e-8)
    assert abs(beta.sum()) < 1e-10
    assert np.all(sol.a[:y.size] * sol.a[y.size:] == 0)     # α_i α_i* = 0


def test_warm_start_gives_the_same_solution():
    X, y = _data()
    k = RBFKernel(sigma2=5.0)
    prev = solve_svr_dual(X, y, k, 2.0, 0.1, tol=1e-9)
    cold = solve_svr_dual(X, y, k, 5.0, 0.05, tol=1e-9)
    warm = solve_svr_dual(X, y, k, 5.0, 0.05, tol=1e-9, start=prev)
    np.testing.assert_allclose(warm.beta, cold.beta, atol=1e-6)


@pytest.mark.parametrize("kernel,theta", [
    (RBFKernel(sigma2=5.0), [1.0, np.log(5.0), np.log(0.3)]),
    (LinearKernel(), [-0.5, np.log(0.2)]),
    (ARDRBFKernel(np.ones(10)), [1.0, 0.5, 1.0, 1.5, 2.0, 2.5, 1.2, 1.4, 3.0, 0.8, 1.1,
                                 np.log(0.3)])])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("cls", [SVRSpanBound, SVRRadiusMargin])
def test_bound_gradients_match_finite_differences(cls, kernel, theta, weighted):
    X, y = _data(60, seed=1)
    w = np.linspace(0.5, 2.0, y.size) if weighted else None
    crit = cls(Problem(X, y, w), kernel, tol=1e-11)
    theta = np.array(theta)
    ev = crit.evaluate(theta)
    fd = central_fd(lambda t: crit.evaluate(t, need_grad=False).value, theta, h=1e-5)
    np.testing.assert_allclose(ev.grad, fd, rtol=1e-4, atol=1e-7)


def test_span_estimate_is_exact_loo_where_the_support_set_stays():
    """The span estimate of a support vector's LOO residual equals the exact LOO residual
    whenever leaving it out keeps the other points' support status."""
    X, y = _data(50, seed=2)
    k = RBFKernel(sigma2=5.0)
    C, eps = 2.0, 0.2
    theta = np.array([np.log(C), np.log(5.0), np.log(eps)])
    est = SVRSpanEstimate(Problem(X, y), k, tol=1e-12)
    r_est = est.loo_residuals(theta)
    full = solve_svr_dual(X, y, k, C, eps, loss="l2", tol=1e-12)
    sv = set(full.support)
    r_loo = SVRLeaveOneOut(Problem(X, y), k, tol=1e-12).loo_residuals(theta)
    checked = 0
    for p in range(y.size):
        keep = np.delete(np.arange(y.size), p)
        sol = solve_svr_dual(X[keep], y[keep], k, C, eps, loss="l2", tol=1e-12)
        if set(keep[sol.support]) == sv - {p}:
            checked += 1
            assert r_est[p] == pytest.approx(r_loo[p], abs=1e-6)
    assert checked >= 10
    # and where it changes the estimate is still close: it is an estimate of the same thing
    assert np.corrcoef(r_est, r_loo)[0, 1] > 0.99


def test_radius_margin_bounds_the_span_estimate():
    """4R̃² ≥ S_p² for every support vector: the radius–margin bound is at least the span
    estimate of the LOO mean absolute error."""
    X, y = _data(60, seed=3)
    theta = np.array([1.0, np.log(5.0), np.log(0.1)])
    rm = SVRRadiusMargin(Problem(X, y), RBFKernel(), tol=1e-10).evaluate(theta, need_grad=False)
    span = SVRSpanEstimate(Problem(X, y), RBFKernel(), tol=1e-10)
    r = span.loo_residuals(theta)
    sv = span._svm_prev.support
    mae_sv_bound = (np.abs(r[sv]).sum() + 0.1 * (y.size - sv.size)) / y.size
    assert rm.value >= mae_sv_bound


def test_cv_criterion_is_kfold_mse_of_sklearn_svr():
    X, y = _data()
    k = RBFKernel(sigma2=5.0)
    C, eps = 4.0, 0.1
    cv = SVRCrossValidation(Problem(X, y), k, loss="l1", n_folds=4, random_state=3, tol=1e-8)
    value = cv.evaluate([np.log(C), np.log(5.0), np.log(eps)]).value
    errs = []
    for tr, te in KFold(4, shuffle=True, random_state=3).split(X):
        m = SVR(C=C, epsilon=eps, gamma=k.gamma, tol=1e-8).fit(X[tr], y[tr])
        errs.append((m.predict(X[te]) - y[te]) ** 2)
    assert value == pytest.approx(np.mean(np.concatenate(errs)), rel=1e-5)
    assert cv.trivial_value() > value


def test_regression_criteria_refuse_bad_targets_and_tasks():
    X, y = _data(20)
    with pytest.raises(ValueError, match="finite"):
        make_criterion("svr-span", Problem(X, np.where(np.arange(20) == 3, np.nan, y)),
                       RBFKernel())
    with pytest.raises(ValueError, match="X and y have different lengths"):
        make_criterion("svr-span", Problem(X, y[:5]), RBFKernel())
    with pytest.raises(ValueError, match="for regression, not classification"):
        BoundSVC(criterion="svr-span").fit(X, np.where(y > 0, 1, -1))
    with pytest.raises(ValueError, match="for classification, not regression"):
        BoundSVR(criterion="span").fit(X, y)
    with pytest.raises(ValueError, match="must be numbers"):
        BoundSVR().fit(X, np.array(["a"] * 20))
    # y·1e152 ran into "fun(x0) is not finite (inf) at x0 = [...]": its squares overflow
    with pytest.raises(ValueError, match=r"regression targets too large for float64: the "
                                         r"largest \|y\| is .* Rescale the targets"):
        BoundSVR().fit(X, y * 1e160)
    BoundSVR(criterion="svr-span", max_iter=2).fit(X, y * 1e140)     # n·max|y|² still finite


@pytest.mark.parametrize("loss", ["l2", "l1"])
def test_bound_svr_fits_and_predicts_as_its_model(loss):
    X, y = _data(120)
    est = BoundSVR(loss=loss, random_state=0).fit(X, y)
    assert set(est.best_params_) >= {"C", "gamma", "epsilon"}
    # prediction = Σ β_i K(sv_i, x) + b of the solution, and ε-SVR KKT on the training rows
    sol = est.solution_
    np.testing.assert_allclose(est.predict(X), sol.training_prediction(y), atol=1e-8)
    if loss == "l1":   # scikit-learn's SVR at the tuned point trains the same model
        p = est.best_params_
        ref = SVR(C=p["C"], gamma=p["gamma"], epsilon=p["epsilon"], tol=1e-3).fit(X, y)
        np.testing.assert_allclose(est.predict(X), ref.predict(X), atol=5e-3)
    assert est.cv_results_["mean_test_score"].max() == pytest.approx(est.best_score_)
    assert est.best_score_ < 0                 # negated mean squared error
    # better than predicting the mean on held-out data
    Xt, yt = _data(400, seed=5)
    assert est.score(Xt, yt) > 0.5


def test_bound_svr_zero_weight_rows_and_sparse_input():
    X, y = _data(100)
    w = np.ones(100)
    w[:10] = 0.0
    a = BoundSVR(random_state=0).fit(X, y, sample_weight=w)
    b = BoundSVR(random_state=0).fit(X[10:], y[10:])
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-10)
    np.testing.assert_array_equal(a.support_, b.support_ + 10)
    c = BoundSVR(random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(c.predict(X), BoundSVR(random_state=0).fit(X, y).predict(X),
                               atol=1e-6)


@pytest.mark.parametrize("loss", ["l2", "l1"])
def test_bound_svr_exports_to_svr_and_libsvm(loss, tmp_path):
    from libsvm.svmutil import svm_load_model, svm_predict

    X, y = _data(100)
    est = BoundSVR(loss=loss, random_state=0).fit(X, y)
    svr = est.to_svr()
    np.testing.assert_allclose(svr.predict(X), est.predict(X), rtol=1e-10, atol=1e-12)
    path = tmp_path / "m.model"
    est.save_libsvm_model(path)
    pred, _, _ = svm_predict(np.zeros(y.size), X.tolist(), svm_load_model(str(path)), "-q")
    np.testing.assert_allclose(pred, est.predict(X), rtol=1e-8, atol=1e-10)



def test_bound_svr_log_and_resume(tmp_path):
    """A logged BoundSVR fit stores its SVR solutions in the state file (no warning) and a
    resumed run replays it to the same model."""
    import warnings

    X, y = _data(80)
    log = tmp_path / "run.jsonl"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        a = BoundSVR(random_state=0, log_file=str(log)).fit(X, y)
        b = BoundSVR(random_state=0, log_file=str(log), resume=True).fit(X, y)
    assert a.best_params_ == b.best_params_
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_vacuous_bound_and_constant_model_are_reported():
    """A radius–margin search on pure noise: its estimate is no better than predicting the
    mean, which the model checks report (search_.problems and a ModelWarning)."""
    from svmbound.checks import ModelWarning

    rng = np.random.RandomState(0)
    X, y = rng.randn(60, 3), rng.randn(60)
    with pytest.warns(ModelWarning, match="no better than predicting the mean"):
        est = BoundSVR(criterion="svr-rm-l2", random_state=0).fit(X, y)
    assert any("certifies nothing" in p for p in est.search_.problems)


def test_a_default_svr_no_better_than_the_mean_says_so_in_regression_terms():
    """The default strategy on a target independent of X: its validation MSE is no better than
    predicting the training part's mean, said with the MSE (not an error rate of the larger
    class, as the classifier's)."""
    from svmbound.checks import ModelWarning

    rng = np.random.RandomState(0)
    X, y = rng.randn(200, 5), rng.randn(200)
    with pytest.warns(ModelWarning) as seen:
        est = BoundSVR(random_state=0).fit(X, y)
    said = [str(w.message) for w in seen if "no better than" in str(w.message)]
    assert said and all("larger class" not in m and "rate" not in m for m in said), said
    assert "CV MSE" in said[0] and "predicting the training part's mean" in said[0]
    mse, mean_mse = est.search_.fun, est.search_.validation["trivial_rate"]
    assert mse >= mean_mse - 1e-12 and f"{mse:.3g}" in said[0] and f"{mean_mse:.3g}" in said[0]


def test_grid_of_an_svr_criterion_at_a_fixed_epsilon():
    """evaluate_grid on an SVR criterion with ln ε fixed: each value is the criterion at
    (ln C, ln σ², ln ε) and each test error the test MSE of the L2-SVR trained there."""
    from svmbound.search.grid import evaluate_grid

    X, y = _data(60)
    Xt, yt = _data(40, seed=7)
    crit = SVRSpanBound(Problem(X, y), RBFKernel(), tol=1e-8)
    log_eps = np.log(0.1)
    grid = evaluate_grid(crit, [0.0, 2.0], [1.0, 2.0], Xt, yt, fixed=[log_eps])
    for i, ls in enumerate([1.0, 2.0]):
        for j, lc in enumerate([0.0, 2.0]):
            theta = np.array([lc, ls, log_eps])
            fresh = SVRSpanBound(Problem(X, y), RBFKernel(), tol=1e-8)
            assert grid.values[i, j] == pytest.approx(
                fresh.evaluate(theta, need_grad=False).value, rel=1e-6)
            k = RBFKernel(sigma2=np.exp(ls))
            sol = solve_svr_dual(X, y, k, np.exp(lc), 0.1, loss="l2", tol=1e-8)
            mse = np.mean((svr_predict(X, sol.beta, sol.b, k, Xt) - yt) ** 2)
            assert grid.test_error[i, j] == pytest.approx(mse, rel=1e-5)


def test_bound_svr_subsample_path_on_large_data():
    """More than 2·tune_subsample rows: the search runs on a subsample drawn within quantile
    bins of the targets and a hold-out on other rows picks; the final SVR uses every row."""
    X, y = _data(400)
    est = BoundSVR(tune_subsample=60, random_state=0).fit(X, y)
    sub = est.search_.subsample
    assert sub == {"search": 60, "validation": 240, "of": 400}
    assert "hold-out" in est.search_.message
    assert est.solution_.a.size == 2 * 400
    Xt, yt = _data(400, seed=5)
    assert est.score(Xt, yt) > 0.5
