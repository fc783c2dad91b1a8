"""ARD kernels (Chapelle §7.3), gradient searches over many parameters, feature selection by
scaling factors (Chapelle §8) and its filters, toy problems of §8.1."""

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmbound.criteria import RadiusMarginL2, SpanBound
from svmbound.kernels import PolynomialKernel, RBFKernel
from svmbound.kernels.ard import ARDRBFKernel, ScaledPolynomialKernel, check_groups, tile_groups
from svmbound.search.gradient import STOPPED, minimize_lbfgsb, minimize_projected_gradient
from svmbound.search.minimize import minimize
from svmbound.selection import (FilterSelector, ScalingSelector, fisher_scores, ks_scores,
                                pearson_scores)
from svmbound.solvers import Problem, solve_svm_dual
from svmbound.toy import make_linear_toy, make_nonlinear_toy
from _fd import central_fd

D = 4


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=70, n_features=D, n_informative=3, n_redundant=0,
                               flip_y=0.05, random_state=3)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)




def assert_grad_fd(crit, theta, rel=1e-5):
    ev = crit.evaluate(theta)
    fd = central_fd(crit, theta)
    scale = max(np.abs(fd).max(), 1e-8)
    assert np.all(np.abs(ev.grad - fd) <= rel * scale), (ev.grad, fd)
    return ev


# --------------------------------------------------------------------------------------------
# gradients vs finite differences
# --------------------------------------------------------------------------------------------
THETAS = [np.array([0.0, 0.0, 0.0, 0.0, 0.0]), np.array([1.5, -0.7, 0.4, 1.2, -0.2]),
          np.array([-1.0, 1.0, 2.5, -1.5, 0.3])]


@pytest.mark.parametrize("theta", THETAS, ids=str)
def test_ard_rbf_gradient_matches_finite_differences(data, theta):
    X, y = data
    crit = RadiusMarginL2(Problem(X, y), ARDRBFKernel(np.ones(D)), tol=1e-10)
    assert crit.param_names[0] == "log_C" and len(crit.param_names) == D + 1
    assert_grad_fd(crit, theta)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_scaled_poly_gradient_matches_finite_differences(data, degree):
    X, y = data
    crit = RadiusMarginL2(Problem(X, y), ScaledPolynomialKernel(np.ones(D), degree), tol=1e-10)
    assert_grad_fd(crit, np.array([0.3, 0.5, -0.4, 1.0, 0.2]))


@pytest.mark.parametrize("kernel", [ARDRBFKernel(np.ones(D)), ScaledPolynomialKernel(np.ones(D), 2)],
                         ids=lambda k: k.name)
def test_span_gradient_by_contraction_matches_finite_differences(data, kernel):
    X, y = data
    crit = SpanBound(Problem(X, y), kernel, tol=1e-10)
    assert_grad_fd(crit, np.array([0.5, 0.3, -0.5, 0.8, 0.1]), rel=1e-4)


def test_span_by_contraction_with_one_group_equals_span_for_plain_rbf(data):
    """The contract_matrix path (ARD, one group) gives the derivative-matrix path's gradient."""
    X, y = data
    a = SpanBound(Problem(X, y), RBFKernel(), tol=1e-10).evaluate([0.7, 0.9])
    ard = ARDRBFKernel(np.ones(1), groups=np.zeros(X.shape[1], dtype=int))
    b = SpanBound(Problem(X, y), ard, tol=1e-10).evaluate([0.7, 0.9])
    np.testing.assert_allclose(b.value, a.value, rtol=1e-10)
    np.testing.assert_allclose(b.grad, a.grad, rtol=1e-7)


# --------------------------------------------------------------------------------------------
# equal factors = isotropic kernel; groups = sums
# --------------------------------------------------------------------------------------------
def test_equal_factors_give_isotropic_rbf(data):
    X, y = data
    s2 = 1.7
    iso = RadiusMarginL2(Problem(X, y), RBFKernel(), tol=1e-10).evaluate([0.4, np.log(s2)])
    ard = RadiusMarginL2(Problem(X, y), ARDRBFKernel(np.ones(D)), tol=1e-10).evaluate(
        np.r_[0.4, np.full(D, np.log(s2))])
    np.testing.assert_allclose(ard.value, iso.value, rtol=1e-10)
    np.testing.assert_allclose(ard.grad[0], iso.grad[0], rtol=1e-8)
    np.testing.assert_allclose(ard.grad[1:].sum(), iso.grad[1], rtol=1e-8)
    # one group holding every feature is the isotropic kernel with one parameter
    grp = RadiusMarginL2(Problem(X, y), ARDRBFKernel([1.0], groups=np.zeros(D, int)), tol=1e-10)
    ev = grp.evaluate([0.4, np.log(s2)])
    np.testing.assert_allclose(ev.value, iso.value, rtol=1e-10)
    np.testing.assert_allclose(ev.grad, iso.grad, rtol=1e-8)


def test_equal_factors_give_polynomial_on_scaled_data(data):
    X, y = data
    s2 = 2.5
    ref = RadiusMarginL2(Problem(X / np.sqrt(s2), y), PolynomialKernel(2, 1.0), tol=1e-10)
    ref_val = ref.evaluate([0.2, 1.0]).value
    crit = RadiusMarginL2(Problem(X, y), ScaledPolynomialKernel(np.ones(D), 2), tol=1e-10)
    theta = np.r_[0.2, np.full(D, np.log(s2))]
    ev = crit.evaluate(theta)
    np.testing.assert_allclose(ev.value, ref_val, rtol=1e-10)
    # derivative along the common ln σ² = sum of the per-factor entries
    h = 1e-5
    e = np.r_[0.0, np.ones(D)] * h
    fd = (crit.fun(theta + e) - crit.fun(theta - e)) / (2 * h)
    np.testing.assert_allclose(ev.grad[1:].sum(), fd, rtol=1e-5)


@pytest.mark.parametrize("cls", [ARDRBFKernel, ScaledPolynomialKernel])
def test_grouped_gradient_is_sum_of_member_gradients(data, cls):
    X, y = data
    groups = np.array([1, 0, 1, 0])
    g_sig = np.array([0.8, 1.9])
    crit_g = RadiusMarginL2(Problem(X, y), cls(g_sig, groups=groups), tol=1e-10)
    crit_f = RadiusMarginL2(Problem(X, y), cls(g_sig[groups]), tol=1e-10)
    eg = crit_g.evaluate(np.r_[0.3, np.log(g_sig)])
    ef = crit_f.evaluate(np.r_[0.3, np.log(g_sig[groups])])
    np.testing.assert_allclose(eg.value, ef.value, rtol=1e-12)
    np.testing.assert_allclose(eg.grad[1:], np.bincount(groups, weights=ef.grad[1:]), rtol=1e-9)
    assert_grad_fd(crit_g, np.r_[0.3, np.log(g_sig)])


# --------------------------------------------------------------------------------------------
# kernel values and contractions vs explicit formulas
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small():
    rng = np.random.RandomState(0)
    return rng.normal(size=(9, 5)), rng.normal(size=(6, 5)), np.array([0.5, 1.0, 2.0, 3.0, 0.7])


def explicit(kernel, X, Z, s2):
    """(K, [∂K/∂ln σ_k²]) by elementwise formulas over pairs (no dot-product expansion)."""
    diff2 = (X[:, None, :] - Z[None, :, :]) ** 2 / s2
    if isinstance(kernel, ARDRBFKernel):
        K = np.exp(-0.5 * diff2.sum(-1))
        return K, [K * diff2[:, :, k] / 2 for k in range(s2.size)]
    p = kernel.degree
    prod = X[:, None, :] * Z[None, :, :] / s2
    B = 1 + prod.sum(-1)
    return B ** p, [-p * B ** (p - 1) * prod[:, :, k] for k in range(s2.size)]


@pytest.mark.parametrize("make", [lambda s: ARDRBFKernel(s), lambda s: ScaledPolynomialKernel(s, 2),
                                  lambda s: ScaledPolynomialKernel(s, 3),
                                  lambda s: ScaledPolynomialKernel(s, 1)],
                         ids=["rbf", "poly2", "poly3", "poly1"])
def test_values_and_contractions_match_explicit_formulas(small, make):
    X, Z, s2 = small
    k = make(s2)
    K, dK = explicit(k, X, Z, s2)
    np.testing.assert_allclose(k.block(X, Z), K, rtol=1e-12, atol=1e-12)
    KX, dKX = explicit(k, X, X, s2)
    np.testing.assert_allclose(k.block(X), KX, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(k.diag(X), np.diag(KX), rtol=1e-12)
    rng = np.random.RandomState(1)
    a, b = rng.normal(size=9), rng.normal(size=9)
    a[[1, 4]] = 0.0                                   # only rows with a ≠ 0 count
    want = np.array([a @ M @ b for M in dKX])
    np.testing.assert_allclose(k.contract(X, a, b), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(k.contract(X, a), [a @ M @ a for M in dKX], rtol=1e-10, atol=1e-12)
    W = rng.normal(size=(9, 6))
    np.testing.assert_allclose(k.contract_matrix(X, W, Z), [np.sum(W * M) for M in dK],
                               rtol=1e-10, atol=1e-12)
    w = rng.random(9)
    np.testing.assert_allclose(k.diag_contract(X, w), [w @ np.diag(M) for M in dKX],
                               rtol=1e-10, atol=1e-14)
    assert np.all(k.contract(X, np.zeros(9)) == 0)
    # the numba solvers see prepare(X) through spec(): same SVM as the explicit Gram matrix
    y = np.where(np.arange(9) % 2 == 0, 1.0, -1.0)
    sol = solve_svm_dual(X, y, k, 1.0, loss="l2", tol=1e-10)
    Q = np.outer(y, y) * (KX + np.eye(9))
    np.testing.assert_allclose(sol.objective, sol.alpha.sum() - 0.5 * sol.alpha @ Q @ sol.alpha,
                               rtol=1e-9)


def test_contraction_in_row_blocks(monkeypatch, small):
    import svmbound.kernels.standard as kmod

    X, Z, s2 = small
    a = np.random.RandomState(3).normal(size=9)
    W = np.random.RandomState(4).normal(size=(9, 6))
    kernels = [ARDRBFKernel(s2), ScaledPolynomialKernel(s2, 2)]
    full = [(k.contract(X, a), k.contract_matrix(X, W, Z)) for k in kernels]
    monkeypatch.setattr(kmod, "_BLOCK_ELEMS", 10)     # one row per block
    assert len(list(kmod._row_blocks(9, 9))) == 9
    for k, (c, cm) in zip(kernels, full):
        np.testing.assert_allclose(k.contract(X, a), c, rtol=1e-12)
        np.testing.assert_allclose(k.contract_matrix(X, W, Z), cm, rtol=1e-12)


def test_theta_round_trip_and_params():
    k = ARDRBFKernel([0.5, 2.0, 3.0])
    np.testing.assert_allclose(k.theta, np.log([0.5, 2.0, 3.0]))
    k2 = k.with_theta([0.0, 1.0, -1.0])
    np.testing.assert_allclose(k2.sigma2, np.exp([0.0, 1.0, -1.0]))
    assert k2.param_names == ("log_sigma2_0", "log_sigma2_1", "log_sigma2_2")
    np.testing.assert_allclose(k2.scaling_factors, np.exp(-0.5 * np.array([0.0, 1.0, -1.0])))
    p = ScaledPolynomialKernel([1.0, 2.0], 3, groups=[0, 1, 1, 0])
    assert p.get_params()["degree"] == 3 and p.n_features == 4 and p.n_params == 2
    assert p.with_theta([0.0, 0.0]).groups.tolist() == [0, 1, 1, 0]
    assert tile_groups((16, 16), (4, 4)).max() == 15
    assert np.bincount(tile_groups((16, 16), (4, 4))).tolist() == [16] * 16
    assert tile_groups((8, 8), (2, 2))[:10].tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 0, 0]


@pytest.mark.parametrize("args, match", [
    (([1.0, 0.0],), "sigma2"), (([1.0, -2.0],), "sigma2"), (([1.0, np.nan],), "NaN"),
    (([1.0, np.inf],), "sigma2"), ((1.0,), "one value per feature"), (([],), "non-empty"),
    (([1.0, 2.0], [0, 1, 2]), "3 groups"), (([1.0, 2.0], [0, 2, 2]), "no feature"),
    (([1.0], [0.5, 0]), "integers"), (([1.0], [-1, 0]), "0..G-1"),
])
def test_bad_kernel_arguments(args, match):
    with pytest.raises(ValueError, match=match):
        ARDRBFKernel(*args)


def test_bad_kernel_use():
    k = ARDRBFKernel([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="3 scaling factors"):
        k.block(np.ones((4, 2)))
    with pytest.raises(ValueError, match="3 values"):
        k.with_theta([0.0, 1.0])
    with pytest.raises(ValueError, match="finite"):
        k.with_theta([0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="degree"):
        ScaledPolynomialKernel([1.0], 0)
    with pytest.raises(ValueError, match="W must have shape"):
        k.contract_matrix(np.ones((4, 3)), np.ones((3, 3)))
    assert check_groups(None) is None


# --------------------------------------------------------------------------------------------
# toy problems (Chapelle §8.1)
# --------------------------------------------------------------------------------------------
def test_linear_toy_statistics():
    X, y = make_linear_toy(200_000, random_state=0)
    assert X.shape == (200_000, 202) and set(np.unique(y)) == {-1.0, 1.0}
    assert abs(np.mean(y > 0) - 0.5) < 0.005
    for c in (-1.0, 1.0):
        m = X[y == c].mean(axis=0)
        # E[x_i | y] = 0.7·y·i (i = 1, 2, 3) and 0.3·y·(i − 3) (i = 4, 5, 6)
        np.testing.assert_allclose(m[:6], c * np.r_[0.7 * np.arange(1, 4), 0.3 * np.arange(1, 4)],
                                   atol=0.02)
        np.testing.assert_allclose(m[6:], 0.0, atol=0.05)
    np.testing.assert_allclose(X[:, 6:].var(axis=0).mean(), 20.0, rtol=0.01)
    # x_1..x_3 and x_4..x_6 are never informative together: y·x_1 ~ N(1, 1) exactly when the
    # first block is the relevant one, otherwise N(0, 1); the mixture weight is 0.7
    yx = y * X[:, 0]
    mix = stats.norm.pdf(yx, 1, 1) * 0.7 / (0.7 * stats.norm.pdf(yx, 1, 1)
                                            + 0.3 * stats.norm.pdf(yx, 0, 1))
    assert abs(mix.mean() - 0.7) < 0.01
    X2, y2 = make_linear_toy(50, random_state=0)
    np.testing.assert_array_equal(X2, make_linear_toy(50, random_state=0)[0])


def test_nonlinear_toy_statistics():
    X, y = make_nonlinear_toy(200_000, random_state=1)
    assert X.shape == (200_000, 52)
    neg, pos = X[y < 0], X[y > 0]
    np.testing.assert_allclose(neg[:, :2].mean(axis=0), 0.0, atol=0.03)
    np.testing.assert_allclose(pos[:, :2].mean(axis=0), 0.0, atol=0.03)
    # E[x_1 x_2 | y] = μ₁μ₂ of either component: (¾)(3) = 2.25 for y = −1, −9 for y = +1
    np.testing.assert_allclose((neg[:, 0] * neg[:, 1]).mean(), 2.25, atol=0.05)
    np.testing.assert_allclose((pos[:, 0] * pos[:, 1]).mean(), -9.0, atol=0.1)
    # component means and unit covariance
    up = neg[neg[:, 1] > 0]
    np.testing.assert_allclose(up[:, 0].mean(), 0.75, atol=0.03)
    comp = pos[(pos[:, 1] > 0) & (pos[:, 0] < 0)][:, :2]      # the component at (−3, 3)
    np.testing.assert_allclose(comp.mean(axis=0), [-3.0, 3.0], atol=0.03)
    np.testing.assert_allclose(np.cov(comp.T), np.eye(2), atol=0.03)
    np.testing.assert_allclose(X[:, 2:].var(axis=0).mean(), 20.0, rtol=0.01)
    np.testing.assert_allclose(make_nonlinear_toy(10, noise_var=400, random_state=2)[0][:, 2:].std() ** 2
                               / make_nonlinear_toy(10, random_state=2)[0][:, 2:].std() ** 2, 20.0)


def test_toy_bad_input():
    with pytest.raises(ValueError, match="n_samples"):
        make_linear_toy(0)
    with pytest.raises(ValueError, match="noise_var"):
        make_nonlinear_toy(10, noise_var=-1)


# --------------------------------------------------------------------------------------------
# searches
# --------------------------------------------------------------------------------------------
def _quadratic():
    A = np.diag([1.0, 10.0, 100.0])
    c = np.array([1.0, 2.0, 30.0])               # outside the box in the last coordinate
    calls = []

    def fun(x):
        calls.append(("f", x.copy()))
        return 0.5 * (x - c) @ A @ (x - c)

    def grad(x):
        calls.append(("g", x.copy()))
        return A @ (x - c)

    return fun, grad, calls


@pytest.mark.parametrize("search", [minimize_lbfgsb, minimize_projected_gradient])
def test_search_path_and_count_contract(search):
    fun, grad, calls = _quadratic()
    seen = []
    res = search(fun, grad, np.zeros(3), -10.0, 10.0, max_iter=500,
                 callback=lambda xk, fk: seen.append(fk))
    np.testing.assert_allclose(res.x, [1.0, 2.0, 10.0], atol=1e-2)
    assert res.success
    # every grad call comes right after a fun call at the same point
    for i, (kind, x) in enumerate(calls):
        if kind == "g":
            assert calls[i - 1][0] == "f" and np.array_equal(calls[i - 1][1], x)
    assert res.nfev == sum(k == "f" for k, _ in calls) == len(res.path)
    assert res.njev == sum(k == "g" for k, _ in calls)
    acc = res.accepted_path()
    assert res.path[0]["accepted"] and len(acc) == res.nit + 1 == len(seen) + 1
    if search is minimize_lbfgsb:
        assert res.njev == res.nfev                       # one fun + one grad per evaluation
    else:
        assert res.njev == res.nit + 1
    for e in res.path:
        assert np.all(np.abs(e["x"]) <= 10.0) and np.isfinite(e["value"])
    assert np.allclose(acc[-1]["x"], res.x) and acc[-1]["value"] == res.fun


def test_lbfgsb_stop_rule_ends_at_the_lowest_value_so_far():
    """``stop(values)`` is asked after each evaluation with every value so far (the start's
    first); True ends L-BFGS-B there, at the evaluated point of the lowest value, with its own
    gradient; only lbfgsb takes the option."""
    fun, grad, _ = _quadratic()
    seen = []

    def stop(values):
        seen.append(list(values))
        return len(values) >= 4

    res = minimize_lbfgsb(fun, grad, np.zeros(3), -10.0, 10.0, max_iter=500, stop=stop)
    values = [e["value"] for e in res.path]
    assert res.nfev == res.njev == len(values) == 4
    assert res.status == STOPPED and res.success and "stopped" in res.message
    assert seen[-1] == values and [len(v) for v in seen] == [2, 3, 4]
    best = int(np.argmin(values))
    assert res.fun == values[best] < values[0] and res.path[best]["accepted"]
    np.testing.assert_array_equal(res.x, res.path[best]["x"])
    np.testing.assert_allclose(res.jac, grad(res.x))
    full = minimize_lbfgsb(fun, grad, np.zeros(3), -10.0, 10.0, max_iter=500)
    assert [e["value"] for e in full.path[:4]] == values       # the same steps until then
    with pytest.raises(ValueError, match="'stop' is for method 'lbfgsb' only"):
        minimize(fun, np.zeros(3), (-10.0, 10.0), jac=grad, method="bfgs",
                 options={"stop": stop})


def test_lbfgsb_from_a_known_start_takes_the_same_steps_with_one_evaluation_fewer():
    """``start=(f(x0), ∇f(x0))`` (an evaluation made elsewhere): x0 is not evaluated, the path's
    first entry holds the given values, and the search takes the same steps as when it
    evaluates x0 itself; a gradient of the wrong size, or the option with another method, is
    refused by name."""
    fun, grad, _ = _quadratic()
    calls = []
    counted = lambda x: (calls.append(x.copy()), fun(x))[1]     # noqa: E731
    x0 = np.zeros(3)
    full = minimize_lbfgsb(fun, grad, x0, -10.0, 10.0, max_iter=500)
    known = minimize_lbfgsb(counted, grad, x0, -10.0, 10.0, max_iter=500,
                            start=(fun(x0), grad(x0)))
    assert known.nfev == full.nfev - 1 == len(calls)
    assert not any(np.array_equal(c, x0) for c in calls)
    assert [e["value"] for e in known.path] == [e["value"] for e in full.path]
    np.testing.assert_array_equal(known.x, full.x)
    assert known.path[0]["accepted"] and known.path[0]["grad"] == grad(x0).tolist()
    assert known.path[0]["known"] and not any("known" in e for e in full.path)
    with pytest.raises(ValueError, match="start gives 2 gradient values for a point with 3"):
        minimize_lbfgsb(fun, grad, x0, -10.0, 10.0, start=(fun(x0), np.zeros(2)))
    with pytest.raises(ValueError, match="'start' is for method 'lbfgsb' only"):
        minimize(fun, x0, (-10.0, 10.0), jac=grad, method="bfgs",
                 options={"start": (fun(x0), grad(x0))})


def test_the_span_bounds_per_feature_gradient_is_the_ard_kernels_gradient_there():
    """``SpanBound.per_feature_grad``: an isotropic evaluation also gives Σ_ij W_ij ∂K̃_ij/∂ln
    σ_k² for every feature — the span bound's gradient with the ARD kernel at equal widths
    (where it is the same kernel): equal to that criterion's own gradient (the same solve to
    the solver's tolerance), and summing to the isotropic ∂/∂ln σ²."""
    X, y = make_classification(120, 5, n_informative=3, n_redundant=0, random_state=4)
    X = StandardScaler().fit_transform(X)
    y = np.where(y == 1, 1.0, -1.0)
    theta = np.array([1.3, 0.7])
    iso = SpanBound(Problem(X, y), RBFKernel(), tol=1e-10)
    iso.per_feature_grad = True
    ev = iso.evaluate(theta)
    per = np.array(ev.info["per_feature_grad"])
    ard = SpanBound(Problem(X, y), ARDRBFKernel(np.ones(5)), tol=1e-10)
    ev_ard = ard.evaluate(np.r_[theta[0], np.full(5, theta[1])])
    assert "per_feature_grad" not in ev_ard.info            # (the ARD kernel: not asked)
    np.testing.assert_allclose(ev_ard.value, ev.value, rtol=1e-9)
    np.testing.assert_allclose(ev_ard.grad, np.r_[ev.grad[0], per], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(per.sum(), ev.grad[1], rtol=1e-9)


def test_lbfgsb_runs_fun_with_the_callers_blas_threads_and_limits_nothing_at_one(monkeypatch):
    """L-BFGS-B's own algebra runs on one BLAS thread, ``fun`` and ``grad`` on the caller's
    setting; when BLAS already runs on one thread (inside every fit) no limit is set at all."""
    from svmbound import _blas

    fun, grad, _ = _quadratic()
    seen = []
    watched = lambda x: (seen.append(_blas.blas_threads()), fun(x))[1]   # noqa: E731
    outer = _blas.blas_threads()
    if outer is not None and outer > 1:
        minimize_lbfgsb(watched, grad, np.zeros(3), -10.0, 10.0, max_iter=5)
        assert set(seen) == {outer}
    limits = []
    controller = _blas.controller()
    if controller:
        real = controller.limit
        monkeypatch.setattr(controller, "limit",
                            lambda **kw: (limits.append(kw), real(**kw))[1])
    with _blas.limit_blas(1):
        limits.clear()
        seen.clear()
        res = minimize_lbfgsb(watched, grad, np.zeros(3), -10.0, 10.0, max_iter=5)
    assert res.nfev == len(seen) > 1 and set(seen) <= {1, None}
    assert limits == []


def test_lbfgsb_on_criterion_decreases(data):
    X, y = data
    crit = RadiusMarginL2(Problem(X, y), ARDRBFKernel(np.ones(D)), tol=1e-8)
    res = minimize_lbfgsb(crit.fun, crit.grad, np.zeros(D + 1), -10, 10, max_iter=30)
    assert res.fun < res.path[0]["value"]
    assert res.nfev == crit.n_trainings


def test_search_bad_input():
    fun, grad, _ = _quadratic()
    with pytest.raises(ValueError, match="outside the box"):
        minimize_lbfgsb(fun, grad, [0.0, 0.0, 20.0], -10, 10)
    with pytest.raises(ValueError, match="max_iter"):
        minimize_lbfgsb(fun, grad, np.zeros(3), -10, 10, max_iter=-1)
    with pytest.raises(ValueError, match="step"):
        minimize_projected_gradient(fun, grad, np.zeros(3), -10, 10, step=0)


# --------------------------------------------------------------------------------------------
# filters
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fdata():
    rng = np.random.RandomState(5)
    y = np.where(rng.rand(60) < 0.4, 1, 0)
    X = rng.normal(size=(60, 5)) + np.outer(y, [2.0, -1.0, 0.0, 0.5, 0.0])
    X[:, 4] = 3.0                                     # constant feature
    return X, y


def test_filters_vs_direct_computation(fdata):
    X, y = fdata
    ypm = np.where(y == 1, 1.0, -1.0)
    for r in range(4):
        np.testing.assert_allclose(pearson_scores(X, y)[r], abs(np.corrcoef(X[:, r], ypm)[0, 1]),
                                   rtol=1e-12)
        p, n = X[y == 1, r], X[y == 0, r]
        np.testing.assert_allclose(fisher_scores(X, y)[r],
                                   abs(p.mean() - n.mean()) / (p.std() + n.std()), rtol=1e-12)
        # √ℓ sup_t |P̂{X ≤ t} − P̂{X ≤ t | y = 1}| over every sample value t
        t = np.sort(X[:, r])
        F = np.searchsorted(t, t, side="right") / len(t)
        Fp = np.searchsorted(np.sort(p), t, side="right") / len(p)
        np.testing.assert_allclose(ks_scores(X, y)[r], np.sqrt(len(y)) * np.abs(F - Fp).max(),
                                   rtol=1e-12)
        np.testing.assert_allclose(ks_scores(X, y, one_sided=True)[r],
                                   np.sqrt(len(y)) * max((F - Fp).max(), 0.0), rtol=1e-12, atol=1e-15)
    assert pearson_scores(X, y)[4] == 0 and fisher_scores(X, y)[4] == 0 and ks_scores(X, y)[4] == 0
    sel = FilterSelector("fisher", n_features_to_select=2).fit(X, y)
    assert sel.get_support(indices=True).tolist() == [0, 1]
    assert sel.ranking_[0] == 1 and sel.transform(X).shape == (60, 2)
    assert FilterSelector(lambda X, y: np.arange(5.0), 1).fit(X, y).get_support(indices=True) == [4]
    with pytest.raises(ValueError, match="unknown score"):
        FilterSelector("gini", 2).fit(X, y)
    with pytest.raises(ValueError, match="larger than"):
        FilterSelector("ks", 9).fit(X, y)


# --------------------------------------------------------------------------------------------
# ScalingSelector
# --------------------------------------------------------------------------------------------
def test_scaling_selector_keeps_relevant_features_on_linear_toy():
    X, y = make_linear_toy(100, random_state=0)
    sel = ScalingSelector(6, kernel="linear").fit(X, y)
    kept = sel.get_support(indices=True)
    assert kept.size == 6
    assert np.sum(kept < 6) >= 4, kept                # most of the 6 relevant features
    assert sel.ranking_[kept].tolist() == [1] * 6 and sorted(sel.ranking_) == sorted(
        [1] * 6 + list(range(2, 198)))
    assert sel.history_[0]["n_features"] == 202 and sel.history_[-1]["n_features"] == 6
    assert sum(h["nfev"] for h in sel.history_) == sel.n_evaluations_
    assert sel.scaling_factors_.shape == (202,) and np.all(sel.scaling_factors_ > 0)
    # the kept features have larger factors than the last ones removed
    last_removed = sel.history_[-2]["removed"]
    assert sel.history_[-2]["scaling_factors"].min() <= sel.scaling_factors_[last_removed].max()
    Xt, yt = make_linear_toy(300, random_state=1)
    assert sel.transform(Xt).shape == (300, 6)
    np.testing.assert_array_equal(sel.transform(Xt), Xt[:, kept])
    assert sel.transform_scaled(Xt).shape == (300, 6)


def test_scaling_selector_in_pipeline_and_pca():
    X, y = make_nonlinear_toy(60, n_features=12, random_state=0)
    Xt, yt = make_nonlinear_toy(300, n_features=12, random_state=1)
    pipe = Pipeline([("sel", ScalingSelector(2, kernel="poly", max_iter=15)),
                     ("svc", SVC(kernel="poly", degree=2, coef0=1.0))])
    pipe.fit(X, y)
    assert pipe.named_steps["sel"].get_support(indices=True).tolist() == [0, 1]
    assert pipe.score(Xt, yt) > 0.8
    sel = ScalingSelector(3, space="pca", kernel="rbf", criterion="span", max_iter=5,
                          step=3).fit(X, np.where(y > 0, "a", "b"))
    assert sel.components_.shape == (12, 12) and sel.get_support().shape == (12,)
    assert sel.transform(Xt).shape == (300, 3)
    assert sel.get_feature_names_out().tolist() == [f"pc{j}" for j in sel.get_support(indices=True)]
    fixed = ScalingSelector(2, kernel="rbf", C=10.0, max_iter=5, search="projected-gradient").fit(X, y)
    assert fixed.C_ == 10.0 and all(h["C"] == 10.0 for h in fixed.history_)


@pytest.mark.parametrize("params, match", [
    (dict(kernel="sigmoid"), "kernel"), (dict(space="ica"), "space"), (dict(step=0), "step"),
    (dict(step=1.5), "step"), (dict(C=-1.0), "'C' parameter"), (dict(criterion="sv-count"),
                                                         "not differentiable"),
    (dict(criterion="nope"), "unknown criterion"), (dict(bounds=(1, 2)), "bounds"),
    (dict(n_features_to_select=0), "n_features_to_select"), (dict(search="cg"), "search"),
    (dict(n_features_to_select=50), "larger than"),
    (dict(criterion="svr-span"), "criterion 'svr-span' is for regression, not classification"),
])
def test_scaling_selector_bad_parameters(params, match):
    X, y = make_linear_toy(20, n_features=8, random_state=0)
    with pytest.raises(ValueError, match=match):
        ScalingSelector(**{"n_features_to_select": 2, **params}).fit(X, y)


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_scaling_selector_drops_constant_features_first(kernel):
    """A feature constant over the rows (a LIBSVM index that never occurs: all zeros) has a
    zero gradient, so its factor stayed at 1 and it was kept before informative ones (the
    hostile probe: [1, 8, 9] of 3 kept). Now its factor is 0 and it goes first."""
    X, y = make_classification(n_samples=100, n_features=8, n_informative=3, n_redundant=0,
                               shuffle=False, random_state=0)
    Xc = np.c_[X, np.full(100, 5.0), np.zeros(100)]
    sel = ScalingSelector(3, kernel=kernel, random_state=0).fit(Xc, y)
    assert not sel.support_[8:].any(), sel.get_support(indices=True)
    top = sel.ranking_.max()
    assert sorted(sel.ranking_[8:]) == [top - 1, top]           # the last two ranks
    assert np.all(sel.scaling_factors_[8:] == 0.0)


def test_scaling_selector_auto_box_lets_a_linear_factor_pass_the_fixed_box():
    """bounds='auto' with the linear kernel: ln σ² ≥ −5 − ln D, so factors may exceed e^2.5
    (the cap of the (−5, 10) box) — and never exceed e^((5 + ln D)/2)."""
    from svmbound.selection import ScalingSelector
    from svmbound.toy import make_linear_toy

    X, y = make_linear_toy(60, random_state=0)
    D = X.shape[1]
    auto = ScalingSelector(2, kernel="linear").fit(X, y)
    assert auto.scaling_factors_.max() > np.exp(2.5) * 1.01
    assert auto.scaling_factors_.max() <= np.exp((5 + np.log(D)) / 2) * (1 + 1e-9)
    fixed = ScalingSelector(2, kernel="linear", bounds=(-5.0, 10.0)).fit(X, y)
    assert fixed.scaling_factors_.max() <= np.exp(2.5) * (1 + 1e-9)
    with pytest.raises(ValueError, match="'bounds' parameter of ScalingSelector must be a str among {'auto'} or an array-like"):
        ScalingSelector(2, bounds="wide").fit(X, y)


def test_default_selector_sees_nonlinear_relevance():
    """Issue 12: the default kernel (RBF) finds the two relevant features of Chapelle's
    nonlinear toy problem (§8.1), which the linear kernel cannot see (a symmetric mixture: each
    relevant feature alone has the same mean in both classes)."""
    from svmbound.selection import ScalingSelector
    from svmbound.toy import make_nonlinear_toy

    found = {"rbf": 0, "linear": 0}
    for seed in range(3):
        X, y = make_nonlinear_toy(100, random_state=seed)
        for kernel in found:
            sel = ScalingSelector(2, kernel=kernel, max_iter=15).fit(X, y)
            found[kernel] += set(np.flatnonzero(sel.get_support())) == {0, 1}
    assert ScalingSelector().kernel == "rbf"
    assert found["rbf"] == 3 and found["linear"] <= 1
