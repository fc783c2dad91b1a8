"""Chapelle et al. (2002) criteria: span bound and estimates, validation criteria, CV and LOO.

Gradients against central finite differences; spans against an explicit constrained least-squares
solve; the exact LOO error against brute-force retraining with scikit-learn; the LOO identities
and bounds of Chapelle §3.2 on examples; Platt's fit against a direct minimisation.
"""

import numpy as np
import pytest
from scipy.optimize import minimize, nnls
from sklearn.datasets import make_classification
from sklearn.model_selection import cross_val_score
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import svmbound.criteria.validation as validation_mod
from svmbound.criteria.radius_margin import RadiusMarginL2
from svmbound.criteria.base import _kernel_key
from svmbound.criteria.reference import CrossValidationError, LeaveOneOutError
from svmbound.criteria.span import (JaakkolaHaussler, OpperWinther, RadiusMarginHard, SpanBound,
                                    SpanEstimate, SupportVectorCount, span_squared)
from svmbound.criteria.validation import (SmoothedValidationError, ValidationError, platt_fit,
                                          platt_nll, platt_targets)
from svmbound.kernels import PolynomialKernel, RBFKernel
from svmbound.solvers import Problem, decision_function, solve_svm_dual
from _fd import central_fd


@pytest.fixture(scope="module")
def data():
    """Overlapping classes, 70 × 4, standardised."""
    X, y = make_classification(n_samples=70, n_features=4, n_informative=3, n_redundant=0,
                               flip_y=0.08, random_state=7)
    return np.ascontiguousarray(StandardScaler().fit_transform(X)), np.where(y == 1, 1.0, -1.0)


@pytest.fixture(scope="module")
def small():
    """40 × 3, for the brute-force leave-one-out comparisons."""
    X, y = make_classification(n_samples=40, n_features=3, n_informative=2, n_redundant=0,
                               flip_y=0.1, random_state=11)
    return np.ascontiguousarray(StandardScaler().fit_transform(X)), np.where(y == 1, 1.0, -1.0)




def assert_grad_close(grad, fd, value, rel=1e-4):
    scale = max(np.abs(fd).max(), 1e-3 * abs(value), 1e-8)
    assert np.all(np.abs(grad - fd) <= rel * scale), (grad, fd)


def l2_problem(X, y, C, kernel, tol=1e-12):
    """Solved L2-SVM with its support set and K̃_SV = K_SV + I/C."""
    sol = solve_svm_dual(X, y, kernel, C, loss="l2", tol=tol)
    sv = sol.support
    Kt = kernel.block(X[sv]) + np.eye(sv.size) / C
    return sol, sv, Kt


THETAS = [(0.0, 0.0), (2.0, 1.0), (-1.5, 1.5), (4.0, -1.0), (1.0, 4.0)]


# -- gradients --------------------------------------------------------------------------------
@pytest.mark.parametrize("theta", THETAS)
@pytest.mark.parametrize("eta", [0.1, 0.0])
def test_span_bound_gradient_matches_finite_differences(data, theta, eta):
    X, y = data
    crit = SpanBound(Problem(X, y), RBFKernel(), eta=eta, tol=1e-10)
    theta = np.array(theta)
    ev = crit.evaluate(theta)
    assert_grad_close(ev.grad, central_fd(crit.fun, theta), ev.value)


def test_span_bound_gradient_polynomial_kernel_and_sigmoid_constants(data):
    X, y = data
    crit = SpanBound(Problem(X, y), PolynomialKernel(degree=2, coef0=1.0), A=2.0, B=0.5, eta=0.05,
                     tol=1e-10)
    theta = np.array([0.3, 0.8])
    ev = crit.evaluate(theta)
    assert_grad_close(ev.grad, central_fd(crit.fun, theta), ev.value)


def test_span_bound_unsupported_kernel_raises(data):
    class ScaledRBF(RBFKernel):
        name = "scaled-rbf"

        def with_theta(self, theta):
            return ScaledRBF(float(np.exp(theta[0])))

    X, y = data
    crit = SpanBound(Problem(X, y), ScaledRBF())
    with pytest.raises(NotImplementedError, match="scaled-rbf"):
        crit.evaluate(np.zeros(2))
    assert np.isfinite(crit.evaluate(np.zeros(2), need_grad=False).value)


@pytest.mark.parametrize("theta", THETAS)
@pytest.mark.parametrize("fit_offset", [False, True])
def test_smoothed_validation_gradient_matches_finite_differences(data, theta, fit_offset):
    X, y = data
    crit = SmoothedValidationError(Problem(X, y), RBFKernel(), tol=1e-10, fit_offset=fit_offset)
    theta = np.array(theta)
    ev = crit.evaluate(theta)
    assert_grad_close(ev.grad, central_fd(crit.fun, theta), ev.value)


def test_smoothed_validation_fixed_platt_gradient(data, monkeypatch):
    """fixed_platt=True: the derivative of T with (A, B) frozen at their fitted values."""
    X, y = data
    crit = SmoothedValidationError(Problem(X, y), RBFKernel(), fixed_platt=True, fit_offset=True,
                                   tol=1e-10)
    theta = np.array([1.0, 0.5])
    ev = crit.evaluate(theta)
    A, B = ev.info["platt_A"], ev.info["platt_B"]
    monkeypatch.setattr(validation_mod, "platt_fit", lambda f, y, **kw: (A, B))
    fd = central_fd(lambda t: crit.evaluate(t, need_grad=False).value, theta)
    assert_grad_close(ev.grad, fd, ev.value)
    total = SmoothedValidationError(Problem(X, y), RBFKernel(), tol=1e-10, fit_offset=True)
    assert not np.allclose(total.evaluate(theta).grad, ev.grad, rtol=1e-3)


def test_smoothed_validation_polynomial_kernel(data):
    X, y = data
    crit = SmoothedValidationError(Problem(X, y), PolynomialKernel(degree=3, coef0=1.0), tol=1e-10,
                                   validation_fraction=0.4, random_state=3)
    theta = np.array([-0.5, 1.2])
    ev = crit.evaluate(theta)
    assert_grad_close(ev.grad, central_fd(crit.fun, theta), ev.value)


# -- spans ------------------------------------------------------------------------------------
def constrained_span(Kt, p, reg=None):
    """min_λ ‖Φ(x_p) − Σ_{i≠p} λ_i Φ(x_i)‖² + Σ_{i≠p} reg_i λ_i²  s.t. Σ λ_i = 1, in kernel
    form through its KKT system [[2(K_oo + diag reg), 1], [1ᵀ, 0]] (λ, μ) = (2 k_op, 1)."""
    o = np.delete(np.arange(Kt.shape[0]), p)
    Koo = Kt[np.ix_(o, o)] + (np.diag(reg[o]) if reg is not None else 0.0)
    m = o.size
    kkt = np.zeros((m + 1, m + 1))
    kkt[:m, :m] = 2 * Koo
    kkt[:m, m] = kkt[m, :m] = 1.0
    lam = np.linalg.solve(kkt, np.r_[2 * Kt[o, p], 1.0])[:m]
    value = Kt[p, p] - 2 * lam @ Kt[o, p] + lam @ Kt[np.ix_(o, o)] @ lam
    if reg is not None:
        value += lam @ (reg[o] * lam)
    return value, lam


@pytest.mark.parametrize("theta", [(0.0, 0.0), (3.0, 1.0)])
def test_span_equals_constrained_least_squares(data, theta):
    X, y = data
    C, kern = np.exp(theta[0]), RBFKernel(np.exp(theta[1]))
    sol, sv, Kt = l2_problem(X, y, C, kern)
    alpha = sol.alpha[sv]
    s2, _, _ = span_squared(Kt)                         # eq. 12
    s2_reg, _, _ = span_squared(Kt, alpha, 0.1)         # §6.4, η = 0.1
    for p in range(sv.size):
        exact, lam = constrained_span(Kt, p)
        np.testing.assert_allclose(s2[p], exact, rtol=1e-7)
        np.testing.assert_allclose(lam.sum(), 1.0, rtol=1e-12)
        reg, _ = constrained_span(Kt, p, 0.1 / alpha)
        np.testing.assert_allclose(s2_reg[p], reg, rtol=1e-7)
    # the regulariser can only increase the span; Opper–Winther drops Σλ = 1, which decreases it
    assert np.all(s2_reg >= s2 * (1 - 1e-9))
    ow = 1.0 / np.diag(np.linalg.inv(Kt))
    assert np.all(ow <= s2 * (1 + 1e-9))


def test_span_bound_value_matches_formula(data):
    X, y = data
    theta = np.array([1.0, 0.5])
    C, kern = np.exp(theta[0]), RBFKernel(np.exp(theta[1]))
    sol, sv, Kt = l2_problem(X, y, C, kern)
    alpha = sol.alpha[sv]
    s2 = np.array([constrained_span(Kt, p, 0.1 / alpha)[0] for p in range(sv.size)])
    psi = lambda x: 1.0 / (1.0 + np.exp(-5.0 * x))
    expected = psi(alpha * s2 - 1).sum() + (y.size - sv.size) * psi(-1.0)
    ev = SpanBound(Problem(X, y), RBFKernel(), tol=1e-12).evaluate(theta)
    np.testing.assert_allclose(ev.value, expected, rtol=1e-8)
    np.testing.assert_allclose(ev.info["rate"], expected / y.size, rtol=1e-8)


def test_estimates_match_their_formulas(data):
    X, y = data
    theta = np.array([0.5, 0.0])
    C, kern = np.exp(theta[0]), RBFKernel(np.exp(theta[1]))
    sol, sv, Kt = l2_problem(X, y, C, kern)
    a = sol.alpha[sv]
    s2 = np.array([constrained_span(Kt, p)[0] for p in range(sv.size)])
    expected = {
        SupportVectorCount: sv.size,
        SpanEstimate: np.count_nonzero(a * s2 > 1),
        JaakkolaHaussler: np.count_nonzero(a * (1.0 + 1.0 / C) > 1),
        OpperWinther: np.count_nonzero(a / np.diag(np.linalg.inv(Kt)) > 1),
    }
    for cls, value in expected.items():
        ev = cls(Problem(X, y), RBFKernel(), tol=1e-12).evaluate(theta)
        assert ev.value == value, cls.name
        assert ev.grad is None and not cls.differentiable and cls.loss == "l2"
    # SpanBound with η = 0 counts the same errors as the unsmoothed estimate
    ev = SpanBound(Problem(X, y), RBFKernel(), eta=0.0, tol=1e-12).evaluate(theta)
    assert ev.info["n_span_errors"] == expected[SpanEstimate]


def test_r2_gamma2_is_rm_l2(data):
    X, y = data
    theta = np.array([1.2, -0.3])
    a = RadiusMarginHard(Problem(X, y), RBFKernel(), tol=1e-10).evaluate(theta)
    b = RadiusMarginL2(Problem(X, y), RBFKernel(), tol=1e-10).evaluate(theta)
    np.testing.assert_allclose(a.value, b.value, rtol=1e-12)
    np.testing.assert_allclose(a.grad, b.grad, rtol=1e-12)


# -- leave-one-out: identities and bounds -----------------------------------------------------
def loo_margins_l2(X, y, C, kern, sol):
    """For every support vector p: (1 − y_p f^p(x_p), SV set of f^p unchanged?)."""
    sv = sol.support
    out = []
    for p in sv:
        keep = np.arange(y.size) != p
        sp = solve_svm_dual(X[keep], y[keep], kern, C, loss="l2", tol=1e-12)
        f = decision_function(X[keep], y[keep], sp.alpha, sp.b, kern, X[p:p + 1])[0]
        same = np.array_equal(np.flatnonzero(keep)[sp.support], sv[sv != p])
        out.append((1.0 - y[p] * f, same))
    return out


@pytest.mark.parametrize("theta", [(0.0, 0.0), (2.0, 0.5)])
def test_span_identity_when_support_set_unchanged(small, theta):
    """Chapelle §3.2.5: y_p (f⁰(x_p) − f^p(x_p)) = α_p S_p² when the SV set does not change
    (f⁰ the K̃-machine, y_p f⁰(x_p) = 1 on every SV); then span-exact counts the LOO errors."""
    X, y = small
    C, kern = np.exp(theta[0]), RBFKernel(np.exp(theta[1]))
    sol, sv, Kt = l2_problem(X, y, C, kern)
    s2, _, _ = span_squared(Kt)
    a = sol.alpha[sv]
    checked = 0
    for (drop, same), a_p, s2_p in zip(loo_margins_l2(X, y, C, kern, sol), a, s2):
        if same:
            np.testing.assert_allclose(drop, a_p * s2_p, rtol=1e-6, atol=1e-9)
            assert (drop > 1) == (a_p * s2_p > 1)
            checked += 1
    assert checked >= sv.size // 2


def no_threshold_l2(Kt, y):
    """Hard-margin SVM without threshold on K̃: min ½αᵀQ̃α − eᵀα, α ≥ 0, as NNLS."""
    L = np.linalg.cholesky(Kt * np.outer(y, y))
    alpha, _ = nnls(L.T, np.linalg.solve(L, np.ones(y.size)), maxiter=50 * y.size)
    return alpha


def test_jaakkola_haussler_and_opper_winther_without_threshold(small):
    """For the SVM without threshold (Chapelle §3.2.2–3.2.3): 1 − y_p f^p(x_p) ≤ α_p K̃_pp
    (so a LOO error implies α_p K̃_pp > 1 and the count bounds the LOO error), and = α_p/(K̃_SV⁻¹)_pp
    when the support set does not change."""
    X, y = small
    C, kern = np.exp(1.0), RBFKernel(np.exp(0.3))
    Kt = kern.block(X) + np.eye(y.size) / C
    alpha = no_threshold_l2(Kt, y)
    sv = np.flatnonzero(alpha > 1e-12)
    np.testing.assert_allclose((Kt * np.outer(y, y))[sv] @ alpha, 1.0, rtol=1e-8)  # on margin
    inv_diag = np.diag(np.linalg.inv(Kt[np.ix_(sv, sv)]))
    loo, jh, checked = 0, 0, 0
    for k, p in enumerate(sv):
        keep = np.flatnonzero(np.arange(y.size) != p)
        ap = no_threshold_l2(Kt[np.ix_(keep, keep)], y[keep])
        drop = 1.0 - y[p] * (Kt[p, keep] @ (ap * y[keep]))
        assert drop <= alpha[p] * Kt[p, p] + 1e-9                     # Jaakkola–Haussler
        loo += drop > 1
        jh += alpha[p] * Kt[p, p] > 1
        if np.array_equal(keep[ap > 1e-12], sv[sv != p]):
            np.testing.assert_allclose(drop, alpha[p] / inv_diag[k], rtol=1e-6)  # Opper–Winther
            checked += 1
    assert loo <= jh and checked >= sv.size // 2


@pytest.mark.parametrize("theta", [(0.0, 0.0), (2.0, 0.5), (-1.0, 1.5), (4.0, -1.0)])
def test_loo_bounded_by_sv_count_and_radius_margin(small, theta):
    """LOO errors of the L2-SVM (with threshold) ≤ N_SV (§3.2.1) and ≤ 4 R̃²‖w̃‖² (§3.2.5)."""
    X, y = small
    theta = np.array(theta)
    loo = LeaveOneOutError(Problem(X, y), RBFKernel(), loss="l2", tol=1e-10).evaluate(theta).value
    nsv = SupportVectorCount(Problem(X, y), RBFKernel(), tol=1e-10).evaluate(theta).value
    rm = RadiusMarginHard(Problem(X, y), RBFKernel(), tol=1e-10).evaluate(theta).value
    assert loo <= nsv
    assert loo <= 4 * rm


# -- exact LOO and CV against scikit-learn ----------------------------------------------------
@pytest.mark.parametrize("theta", [(0.0, 0.0), (2.0, -0.5), (-1.0, 1.0)])
def test_loo_error_matches_sklearn_bruteforce(small, theta):
    X, y = small
    C, kern = np.exp(theta[0]), RBFKernel(np.exp(theta[1]))
    crit = LeaveOneOutError(Problem(X, y), RBFKernel(), tol=1e-10)
    ev = crit.evaluate(np.array(theta))
    errors = []
    for p in range(y.size):
        keep = np.arange(y.size) != p
        svc = SVC(C=C, kernel="rbf", gamma=kern.gamma, tol=1e-10).fit(X[keep], y[keep])
        if svc.predict(X[p:p + 1])[0] != y[p]:
            errors.append(p)
    assert ev.info["loo_errors"] == errors
    assert ev.value == len(errors)
    # only the support vectors were retrained (plus the full solve)
    assert crit.n_trainings == 1 + ev.info["n_sv"] < 1 + y.size


def test_loo_error_l2_matches_cold_bruteforce(small):
    X, y = small
    theta = np.array([1.0, 0.2])
    C, kern = np.exp(theta[0]), RBFKernel(np.exp(theta[1]))
    ev = LeaveOneOutError(Problem(X, y), RBFKernel(), loss="l2", tol=1e-10).evaluate(theta)
    errors = []
    for p in range(y.size):
        keep = np.arange(y.size) != p
        s = solve_svm_dual(X[keep], y[keep], kern, C, loss="l2", tol=1e-10)
        if y[p] * decision_function(X[keep], y[keep], s.alpha, s.b, kern, X[p:p + 1])[0] < 0:
            errors.append(p)
    assert ev.info["loo_errors"] == errors


@pytest.mark.parametrize("theta", [(0.0, 0.0), (1.5, -0.5)])
def test_cv_error_matches_sklearn_cross_val_score(data, theta):
    X, y = data
    C, kern = np.exp(theta[0]), RBFKernel(np.exp(theta[1]))
    crit = CrossValidationError(Problem(X, y), RBFKernel(), n_folds=5, random_state=4, tol=1e-10)
    ev = crit.evaluate(np.array(theta))
    acc = cross_val_score(SVC(C=C, kernel="rbf", gamma=kern.gamma, tol=1e-10), X, y,
                          cv=crit.folds)
    sizes = np.array([te.size for _, te in crit.folds])
    assert ev.value == int(np.rint(((1 - acc) * sizes).sum()))
    np.testing.assert_allclose(ev.info["rate"], ev.value / y.size)
    # folds are stratified and cover every point once
    assert np.array_equal(np.sort(np.concatenate([te for _, te in crit.folds])), np.arange(y.size))
    # warm-started evaluation after a move equals a cold one
    theta2 = np.array(theta) + 0.3
    cold = CrossValidationError(Problem(X, y), RBFKernel(), n_folds=5, random_state=4, tol=1e-10)
    assert crit.evaluate(theta2).value == cold.evaluate(theta2).value



@pytest.mark.parametrize("n_jobs", [1, 2])
def test_cv_precompute_answers_as_the_runs_evaluated_one_after_the_other(data, n_jobs):
    """precompute cuts the θ into runs of one kernel; each run equals a fresh criterion
    evaluating its θ in order (cold at the run's first θ, warm after): the same fold solutions,
    so the same values, whatever n_jobs."""
    X, y = data
    a, b, c = (0.0, 0.5), (2.0, 0.5), (1.0, -0.4)      # a, b: one kernel; c: another
    kw = dict(n_folds=5, random_state=4, tol=1e-3)
    pre = CrossValidationError(Problem(X, y), RBFKernel(), n_jobs=n_jobs, **kw)
    pre.precompute([a, b, c])
    assert pre.n_trainings == 0                 # counted when evaluate answers from them
    got = [pre.evaluate(np.array(t), need_grad=False) for t in (a, b, c)]
    assert pre.n_trainings == 15 and not pre._precomputed
    run1 = CrossValidationError(Problem(X, y), RBFKernel(), **kw)
    want = [run1.evaluate(np.array(t), need_grad=False) for t in (a, b)]
    want.append(CrossValidationError(Problem(X, y), RBFKernel(), **kw).evaluate(np.array(c),
                                                                                 need_grad=False))
    for g, w in zip(got, want):
        assert g.value == w.value and g.info["hinge"] == w.info["hinge"]
        assert g.info["n_iter"] == w.info["n_iter"]
    # the first θ answered elsewhere (a resumed run's log): its run is still trained for the
    # warm start of b, but only b is kept; c's run is not needed by anything skipped
    skip = CrossValidationError(Problem(X, y), RBFKernel(), **kw)
    skip.precompute([a, b, c], skip=1)
    C_a, k_a = skip.split_theta(np.array(a))
    kept = set(skip._precomputed)
    assert len(kept) == 2 and (C_a, _kernel_key(k_a)) not in kept
    assert skip.evaluate(np.array(b), need_grad=False).value == got[1].value
    skip.precompute([a, b, c], skip=3)          # everything answered elsewhere: nothing trained
    assert len(skip._precomputed) == 1

# -- validation criteria and Platt's fit ------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_platt_fit_matches_direct_minimisation(seed):
    rng = np.random.RandomState(seed)
    n = 40
    y = np.where(rng.rand(n) < 0.45, 1.0, -1.0)
    f = y * rng.gamma(2.0, 0.6, n) + 0.8 * rng.randn(n)
    if seed == 2:
        f = y * (1.0 + rng.rand(n))            # separated: finite (A, B) thanks to the targets
    A, B = platt_fit(f, y)
    t = platt_targets(y)
    res = minimize(lambda v: platt_nll(v[0], v[1], f, t), x0=np.array([-1.0, 0.0]),
                   method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose([A, B], res.x, rtol=1e-5, atol=1e-6)
    assert platt_nll(A, B, f, t) <= res.fun + 1e-10
    assert A < 0
    n_pos = (y > 0).sum()
    np.testing.assert_allclose(t[y > 0], (n_pos + 1) / (n_pos + 2))
    np.testing.assert_allclose(t[y < 0], 1 / (n - n_pos + 2))


def test_validation_criteria_values(data):
    X, y = data
    theta = np.array([0.7, 0.1])
    C, kern = np.exp(theta[0]), RBFKernel(np.exp(theta[1]))
    smooth = SmoothedValidationError(Problem(X, y), RBFKernel(), tol=1e-12, fit_offset=True)
    plain = ValidationError(Problem(X, y), RBFKernel(), tol=1e-12)
    # stratified 30 % split, identical for both criteria
    assert np.array_equal(smooth.val_index_, plain.val_index_)
    assert smooth.y_val.size == round(0.3 * y.size)
    assert abs((smooth.y_val > 0).mean() - (y > 0).mean()) < 0.05
    sol = solve_svm_dual(smooth.X, smooth.y, kern, C, loss="l2", tol=1e-12)
    f = decision_function(smooth.X, smooth.y, sol.alpha, sol.b, kern, smooth.X_val)
    A, B = platt_fit(f, smooth.y_val)
    P = 1 / (1 + np.exp(A * f + B))
    ev = smooth.evaluate(theta)
    np.testing.assert_allclose(ev.value, np.minimum(P, 1 - P).sum(), rtol=1e-8)
    # the default holds B = 0: the sigmoid is centred on the returned classifier's threshold
    A0, B0 = platt_fit(f, smooth.y_val, fit_offset=False)
    assert B0 == 0.0
    t = platt_targets(smooth.y_val)
    a_grid = np.linspace(A0 - 0.5, A0 + 0.5, 101)
    assert platt_nll(A0, 0.0, f, t) <= min(platt_nll(a, 0.0, f, t) for a in a_grid) + 1e-12
    P0 = 1 / (1 + np.exp(A0 * f))
    default = SmoothedValidationError(Problem(X, y), RBFKernel(), tol=1e-12)
    np.testing.assert_allclose(default.evaluate(theta).value, np.minimum(P0, 1 - P0).sum(),
                               rtol=1e-8)
    np.testing.assert_allclose([ev.info["platt_A"], ev.info["platt_B"]], [A, B], rtol=1e-6)
    assert plain.evaluate(theta).value == np.count_nonzero(smooth.y_val * f < 0)
    # explicit validation set: all of X is used for training
    ext = ValidationError(Problem(X[:50], y[:50]), RBFKernel(), X_val=X[50:], y_val=y[50:],
                          tol=1e-12)
    sol = solve_svm_dual(X[:50], y[:50], kern, C, loss="l2", tol=1e-12)
    f = decision_function(X[:50], y[:50], sol.alpha, sol.b, kern, X[50:])
    assert ext.evaluate(theta).value == np.count_nonzero(y[50:] * f < 0)


def test_constructor_errors(data):
    X, y = data
    with pytest.raises(ValueError, match="validation_fraction"):
        ValidationError(Problem(X, y), RBFKernel(), validation_fraction=1.5)
    with pytest.raises(ValueError, match="X_val and y_val"):
        SmoothedValidationError(Problem(X, y), RBFKernel(), X_val=X)
    with pytest.raises(ValueError, match="loss"):
        LeaveOneOutError(Problem(X, y), RBFKernel(), loss="hinge")
    with pytest.raises(ValueError, match="n_folds"):
        CrossValidationError(Problem(X, y), RBFKernel(), n_folds=1)
    with pytest.raises(ValueError, match="eta"):
        SpanBound(Problem(X, y), RBFKernel(), eta=-1)


def test_cholesky_paths_equal_the_lu_paths():
    """The span's bordered inverse (Cholesky of K~ + D) and the §6.3 hyperplane solves (Cholesky
    of K~^Y with the border eliminated) equal the plain LU solutions of the bordered systems."""
    from svmbound.criteria.span_algebra import (HyperplaneSolver, _bordered_inverse_spd,
                                                hyperplane_system)

    rng = np.random.default_rng(3)
    Z = rng.normal(size=(25, 3))
    K = np.exp(-0.5 * ((Z[:, None] - Z[None]) ** 2).sum(-1)) + np.eye(25) / 2.0
    y = np.where(rng.random(25) > 0.4, 1.0, -1.0)
    A = K + np.diag(rng.uniform(0.1, 1.0, 25))
    G = np.zeros((26, 26))
    G[:25, :25], G[:25, 25], G[25, :25] = A, 1.0, 1.0
    np.testing.assert_allclose(_bordered_inverse_spd(A), np.linalg.inv(G), atol=1e-10)
    r, q = rng.normal(size=25), 0.7
    np.testing.assert_allclose(HyperplaneSolver(K, y).solve(r, q),
                               np.linalg.solve(hyperplane_system(K, y), np.r_[r, q]), atol=1e-10)
    # not positive definite: the bordered inverse says so, the solver falls back to LU
    assert _bordered_inverse_spd(-A) is None
    np.testing.assert_allclose(HyperplaneSolver(-K, y).solve(r, q),
                               np.linalg.solve(hyperplane_system(-K, y), np.r_[r, q]), atol=1e-8)


@pytest.mark.parametrize("kernel, weighted", [("rbf", False), ("rbf", True), ("poly", False)])
def test_cv_folds_on_the_shared_kernel_matrix_solve_the_same_problems(data, monkeypatch, kernel,
                                                                      weighted):
    """With the folds reading one K(X, X) (``SHARED_GRAM_FRACTION``) each fold solves the
    problem it solves with its own kernel rows: the same α up to the solver's tolerance and the
    same error counts, through ``evaluate`` and through the pieces of ``precompute`` — with
    per-sample weights (C_i = C·w_i) and the polynomial kernel too."""
    from svmbound.criteria import reference
    from svmbound.kernels import PolynomialKernel

    X, y = data
    kern = RBFKernel() if kernel == "rbf" else PolynomialKernel(2, 1.0)
    w = np.linspace(0.5, 2.0, y.size) if weighted else None
    kw = dict(n_folds=5, random_state=4, tol=1e-10)
    thetas = ([(0.0, 0.5), (2.0, 0.5), (1.0, -0.4)] if kernel == "rbf" else
              [(0.0, 0.0), (2.0, 0.0), (1.0, 0.7)])
    got = {}
    for fraction in (None, 0.25):
        monkeypatch.setattr(reference, "SHARED_GRAM_FRACTION", fraction)
        crit = CrossValidationError(Problem(X, y, w), kern, **kw)
        assert (crit.shared_gram(kern) is None) == (fraction is None)
        got[fraction] = [crit.evaluate(np.array(t), need_grad=False) for t in thetas]
        pre = CrossValidationError(Problem(X, y, w), kern, **kw)
        pre.precompute(thetas)
        got[fraction] += [pre.evaluate(np.array(t), need_grad=False) for t in thetas]
        got[fraction].append([s.alpha for s in crit._fold_prev])
    for a, b in zip(got[None][:-1], got[0.25][:-1]):
        assert a.value == b.value
        np.testing.assert_allclose(a.info["hinge"], b.info["hinge"], rtol=1e-7)
    for a, b in zip(got[None][-1], got[0.25][-1]):
        np.testing.assert_allclose(a, b, atol=1e-7)


def test_cv_shares_a_kernel_matrix_only_where_it_pays_and_fits(data):
    """K(X, X) is shared for dense data, rbf or polynomial kernels, several folds and a matrix
    within a quarter of the cache; it is the kernel's own block."""
    import scipy.sparse as sp

    from svmbound.kernels import LinearKernel, PolynomialKernel

    X, y = data
    crit = CrossValidationError(Problem(X, y), RBFKernel(), n_folds=5, random_state=4)
    np.testing.assert_array_equal(crit.shared_gram(RBFKernel(2.0)), RBFKernel(2.0).block(X))
    assert crit.shared_gram(PolynomialKernel(2, 1.0)) is not None
    assert crit.shared_gram(LinearKernel()) is None
    sparse = CrossValidationError(Problem(sp.csr_matrix(X), y), RBFKernel(), n_folds=5,
                                  random_state=4)
    assert sparse.shared_gram(RBFKernel()) is None
    n = y.size
    tiny = CrossValidationError(Problem(X, y), RBFKernel(), n_folds=5, random_state=4,
                                cache_size=8.0 * n * n / 2**20)     # K is the whole cache
    assert tiny.shared_gram(RBFKernel()) is None
    hold_out = CrossValidationError(Problem(X, y), RBFKernel(), folds=[crit.folds[0]])
    assert hold_out.shared_gram(RBFKernel()) is None
