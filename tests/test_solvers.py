"""SVM dual and radius solvers against independent references (issue 2, DESIGN.md §2, §5).

References: scikit-learn's SVC (LIBSVM) for the L1 dual, SVC(kernel='precomputed') on K + I/C
for the L2 dual, OneClassSVM(ν = 1/l) for R² with a constant kernel diagonal, and
scipy.optimize (SLSQP) for R² / R̃² with a non-constant diagonal. Every solution is also checked
against its own KKT conditions, recomputed from a kernel matrix built independently of the
solver's numba kernel rows.
"""

import os

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.svm import SVC, OneClassSVM

from svmbound.kernels import LinearKernel, PolynomialKernel, RBFKernel
from svmbound.kernels import PrecomputedKernel
from svmbound.solvers import (decision_function, solve_radius, solve_svm_dual,
                              warm_start_alpha, warm_start_beta)

TOL = 1e-6
OBJ_RTOL = 1e-6


# ---------------------------------------------------------------------------------------------
# helpers


def q_tilde(K, y, C, loss):
    """Q̃ = diag(y) K diag(y) (+ I/C for the L2 loss), from an independently built K."""
    Q = (y[:, None] * y[None, :]) * K
    if loss == "l2":
        Q = Q + np.eye(len(y)) / C
    return Q


def assert_kkt(sol, y, C, loss, tol, K=None):
    """KKT conditions of the SVM dual at tolerance ``tol``.

    With G = Q̃α − e and the offset b, y_i f_i − 1 = G_i + y_i b must be ≥ −tol where α_i = 0,
    within ±tol where 0 < α_i < C, ≤ tol where α_i = C (L1). The box holds exactly; yᵀα = 0 to
    1e-10 relative. When the kernel matrix K is given, G is recomputed from it (and must agree
    with the solver's incrementally updated gradient) instead of trusting ``sol.gradient``.
    """
    a = sol.alpha
    assert sol.converged
    assert sol.max_violation < tol
    assert a.shape == y.shape
    # box, exactly
    assert np.all(a >= 0.0)
    if loss == "l1":
        assert np.all(a <= C)
    # equality constraint
    assert abs(y @ a) <= 1e-10 * max(a.sum(), 1e-300)
    slack = 1e-12
    if K is not None:
        Q = q_tilde(K, y, C, loss)
        G = Q @ a - 1.0
        slack = 1e-12 * (1.0 + a.sum() * np.abs(Q).max())  # rounding of the O(l) sums in G
        np.testing.assert_allclose(sol.gradient, G, rtol=0, atol=slack)
        # the reported objective and ‖w‖² are those of α
        obj = a.sum() - 0.5 * a @ Q @ a
        np.testing.assert_allclose(sol.objective, obj, rtol=1e-10, atol=slack)
        Q1 = q_tilde(K, y, C, "l1")
        np.testing.assert_allclose(sol.w2, a @ Q1 @ a, rtol=1e-10, atol=slack)
    else:
        G = sol.gradient
    m = G + y * sol.b  # y_i f_i − 1
    at0 = a == 0.0
    upper = (a >= C) if loss == "l1" else np.zeros_like(at0)
    free = ~at0 & ~upper
    lim = tol + slack
    assert np.all(m[at0] >= -lim), m[at0].min()
    assert np.all(np.abs(m[free]) <= lim), np.abs(m[free]).max()
    assert np.all(m[upper] <= lim), m[upper].max()
    # the properties agree with α
    np.testing.assert_array_equal(sol.support, np.flatnonzero(a > 0))
    if loss == "l1":
        np.testing.assert_array_equal(sol.bounded, np.flatnonzero(a >= C))
    else:
        assert sol.bounded.size == 0


def assert_radius_kkt(sol, K, tol):
    """KKT of the ball: β ≥ 0, Σβ = 1, every mapped point inside the ball of centre Σβ_iφ(x_i)
    (distance² ≤ R² + tol) and every point with β_i > 0 on its surface (|distance² − R²| ≤
    tol). K is the (shifted) kernel matrix K + hI, built independently."""
    b = sol.beta
    assert sol.converged
    assert sol.max_violation < tol
    assert np.all(b >= 0.0)
    assert abs(b.sum() - 1.0) <= 1e-12
    d = np.diag(K)
    Kb = K @ b
    r2 = b @ d - b @ Kb
    scale = max(1.0, np.abs(K).max())
    np.testing.assert_allclose(sol.r2, r2, rtol=1e-10, atol=1e-13 * scale)
    dist2 = d - 2.0 * Kb + b @ Kb  # ‖φ(x_i) − c‖²
    lim = tol + 1e-11 * scale
    assert np.all(dist2 <= sol.r2 + lim), (dist2 - sol.r2).max()
    sup = b > 0
    assert np.all(np.abs(dist2[sup] - sol.r2) <= lim)


def svc_for(kernel, C, tol=1e-6):
    """The scikit-learn SVC with the same kernel (LIBSVM's parameterisation)."""
    if isinstance(kernel, RBFKernel):
        return SVC(C=C, kernel="rbf", gamma=kernel.gamma, tol=tol)
    if isinstance(kernel, LinearKernel):
        return SVC(C=C, kernel="linear", tol=tol)
    if isinstance(kernel, PolynomialKernel):
        return SVC(C=C, kernel="poly", gamma=1.0, coef0=kernel.coef0, degree=kernel.degree,
                   tol=tol)
    raise TypeError(kernel)


def svc_alpha(svc, n):
    """α in training order from SVC.dual_coef_ = y_i α_i on the support vectors."""
    a = np.zeros(n)
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    return a


def svc_objective(svc, K):
    """The L1 dual objective eᵀα − ½αᵀQα of an SVC fit, with the full kernel matrix K."""
    c = svc.dual_coef_[0]
    sv = svc.support_
    return np.abs(c).sum() - 0.5 * c @ K[np.ix_(sv, sv)] @ c


def rel(a, b):
    return abs(a - b) / abs(b)


# ---------------------------------------------------------------------------------------------
# L1 dual vs scikit-learn SVC

CS = (1e-3, 1.0, 1e2, 1e4)
L1_CASES = (
    [("cancer", RBFKernel(30.0), C) for C in CS]          # σ² = d
    + [("digits", RBFKernel(64.0), C) for C in CS]
    + [("noisy", RBFKernel(1.0), C) for C in CS]
    + [("noisy", PolynomialKernel(3, 1.0), C) for C in CS]
    + [("noisy", LinearKernel(), C) for C in CS[:3]]
    + [("separable", LinearKernel(), C) for C in CS]
    + [("separable", PolynomialKernel(2, 0.5), C) for C in CS]
    + [("random", RBFKernel(0.5), C) for C in CS[:3]]
)


@pytest.mark.parametrize("dataset,kernel,C", L1_CASES, indirect=["dataset"],
                         ids=[f"{d}-{k!r}-C={C:g}" for d, k, C in L1_CASES])
def test_l1_matches_svc(dataset, kernel, C):
    X, y = dataset
    K = kernel.block(X)
    sol = solve_svm_dual(X, y, kernel, C, loss="l1", tol=TOL)
    assert_kkt(sol, y, C, "l1", TOL, K=K)

    svc = svc_for(kernel, C).fit(X, y)
    assert list(svc.classes_) == [-1.0, 1.0]  # decision > 0 ↦ +1, so b ↔ intercept_
    assert rel(sol.objective, svc_objective(svc, K)) <= OBJ_RTOL
    assert set(sol.support.tolist()) == set(svc.support_.tolist())
    assert abs(sol.b - svc.intercept_[0]) <= 1e-4
    # close α: two tol-1e-6 solutions differ by ~tol/λ_min(Q on the free set) in α, not by
    # a fixed fraction of C, hence the floor
    np.testing.assert_allclose(sol.alpha, svc_alpha(svc, len(y)), rtol=0,
                               atol=max(1e-3 * C, 1e-5))


def test_l1_primal_dual_identities_and_decision_function(cancer_data):
    """Chung 1.6: C·Σξ = eᵀα − ‖w‖², and dual objective = primal ½‖w‖² + CΣξ; the decision
    function agrees with SVC's on new points."""
    X, y = cancer_data
    kernel, C = RBFKernel(30.0), 1.0
    sol = solve_svm_dual(X, y, kernel, C, tol=1e-8)
    f = decision_function(X, y, sol.alpha, sol.b, kernel, X)
    xi = np.maximum(0.0, 1.0 - y * f)
    np.testing.assert_allclose(C * xi.sum(), sol.alpha.sum() - sol.w2, rtol=1e-6)
    np.testing.assert_allclose(0.5 * sol.w2 + C * xi.sum(), sol.objective, rtol=1e-6)

    rng = np.random.RandomState(0)
    Xnew = X[rng.choice(len(y), 50)] + 0.3 * rng.standard_normal((50, X.shape[1]))
    svc = svc_for(kernel, C, tol=1e-8).fit(X, y)
    fnew = decision_function(X, y, sol.alpha, sol.b, kernel, Xnew)
    np.testing.assert_allclose(fnew, svc.decision_function(Xnew), rtol=0, atol=1e-5)
    assert np.all(np.sign(fnew) == svc.predict(Xnew))


def test_decision_function_without_support_vectors_is_the_offset():
    X = np.zeros((3, 2))
    np.testing.assert_array_equal(
        decision_function(X, np.array([1.0, -1.0, 1.0]), np.zeros(3), 0.25, LinearKernel(), X),
        [0.25, 0.25, 0.25])


# ---------------------------------------------------------------------------------------------
# L2 dual vs SVC on the precomputed kernel K + I/C (hard margin: C_svc = 1e10)

L2_CASES = (
    [("cancer", RBFKernel(30.0), C) for C in CS]
    + [("digits", RBFKernel(64.0), C) for C in CS]
    + [("noisy", LinearKernel(), C) for C in CS[:3]]
    + [("noisy", PolynomialKernel(2, 1.0), C) for C in CS[:2]]
    + [("separable", PolynomialKernel(2, 0.5), C) for C in CS]
)


@pytest.mark.parametrize("dataset,kernel,C", L2_CASES, indirect=["dataset"],
                         ids=[f"{d}-{k!r}-C={C:g}" for d, k, C in L2_CASES])
def test_l2_matches_svc_on_shifted_kernel(dataset, kernel, C):
    X, y = dataset
    n = len(y)
    K = kernel.block(X)
    Kt = K + np.eye(n) / C
    sol = solve_svm_dual(X, y, kernel, C, loss="l2", tol=TOL)
    assert_kkt(sol, y, C, "l2", TOL, K=K)

    svc = SVC(C=1e10, kernel="precomputed", tol=TOL).fit(Kt, y)
    a_svc = svc_alpha(svc, n)
    assert a_svc.max() < 1e9  # the box of the hard-margin SVC is never active
    assert rel(sol.objective, svc_objective(svc, Kt)) <= OBJ_RTOL
    np.testing.assert_allclose(sol.alpha, a_svc, rtol=0, atol=1e-4 * a_svc.max())
    assert set(sol.support.tolist()) == set(svc.support_.tolist())
    assert abs(sol.b - svc.intercept_[0]) <= 1e-4

    # Chung 1.7 / Chapelle eq. 3: at the optimum ‖w̃‖² = αᵀQ̃α = eᵀα and ξ = α/C
    np.testing.assert_allclose(sol.quad, sol.alpha.sum(), rtol=1e-5)
    np.testing.assert_allclose(sol.w2, sol.quad - sol.alpha @ sol.alpha / C, rtol=1e-12)
    f = decision_function(X, y, sol.alpha, sol.b, kernel, X)
    sv = sol.support
    np.testing.assert_allclose(1.0 - y[sv] * f[sv], sol.alpha[sv] / C, rtol=0, atol=2 * TOL)


@pytest.mark.parametrize("C", [1e-2, 1.0, 1e2])
def test_l2_equals_l1_hard_margin_on_shifted_precomputed_kernel(noisy_data, C):
    """Our own two routes to the L2 dual agree: loss='l2' with the kernel, and loss='l1' with a
    huge C on the precomputed K + I/C (which also exercises PrecomputedKernel)."""
    X, y = noisy_data
    kernel = RBFKernel(2.0)
    Kt = kernel.block(X) + np.eye(len(y)) / C
    l2 = solve_svm_dual(X, y, kernel, C, loss="l2", tol=1e-8)
    hm = solve_svm_dual(Kt, y, PrecomputedKernel(), 1e10, loss="l1", tol=1e-8)
    assert_kkt(hm, y, 1e10, "l1", 1e-8, K=Kt)
    assert hm.bounded.size == 0
    assert rel(l2.objective, hm.objective) <= 1e-9
    np.testing.assert_allclose(l2.alpha, hm.alpha, rtol=0, atol=1e-6 * l2.alpha.max())
    assert abs(l2.b - hm.b) <= 1e-6


@pytest.mark.parametrize("kernel", [RBFKernel(1.5), LinearKernel(), PolynomialKernel(3, 1.0)],
                         ids=repr)
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_builtin_kernel_rows_match_precomputed_matrix(noisy_data, kernel, loss):
    """The numba kernel rows (spec()) and Kernel.block describe the same kernel."""
    X, y = noisy_data
    C = 1.0
    a = solve_svm_dual(X, y, kernel, C, loss=loss, tol=1e-8)
    b = solve_svm_dual(kernel.block(X), y, PrecomputedKernel(), C, loss=loss, tol=1e-8)
    assert rel(a.objective, b.objective) <= 1e-10
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=0, atol=1e-5)
    assert abs(a.b - b.b) <= 1e-6


# ---------------------------------------------------------------------------------------------
# radius: OneClassSVM (constant diagonal) and scipy.optimize (any diagonal)


def ocsvm_r2(K):
    """R² = βᵀdiag K − βᵀKβ from OneClassSVM(ν = 1/l) on the precomputed K. LIBSVM's one-class
    dual is min ½αᵀKα, 0 ≤ α ≤ 1, eᵀα = νl = 1, i.e. the ball problem when K_ii is constant;
    the coefficients are normalised to sum to one."""
    n = K.shape[0]
    oc = OneClassSVM(kernel="precomputed", nu=1.0 / n, tol=1e-10).fit(K)
    beta = np.zeros(n)
    beta[oc.support_] = oc.dual_coef_[0]
    assert np.all(beta >= 0)
    beta /= beta.sum()
    return beta @ np.diag(K) - beta @ K @ beta, beta


@pytest.mark.parametrize("dataset,sigma2", [("cancer", 30.0), ("digits", 64.0), ("noisy", 1.0),
                                            ("random", 0.5)], indirect=["dataset"])
@pytest.mark.parametrize("C", [None, 1.0, 1e2], ids=["R2", "R2tilde-C=1", "R2tilde-C=100"])
def test_radius_matches_one_class_svm(dataset, sigma2, C):
    X, _ = dataset
    kernel = RBFKernel(sigma2)
    shift = 0.0 if C is None else 1.0 / C
    Kt = kernel.block(X) + shift * np.eye(X.shape[0])  # still a constant diagonal
    sol = solve_radius(X, kernel, shift=shift, tol=1e-9)
    assert_radius_kkt(sol, Kt, 1e-9)
    assert sol.shift == shift
    r2, beta = ocsvm_r2(Kt)
    assert rel(sol.r2, r2) <= 1e-6
    np.testing.assert_allclose(sol.beta, beta, rtol=0, atol=1e-4)
    assert 0.0 < sol.r2 <= 1.0 + shift  # R² ≤ max K̃_ii for RBF


def slsqp_r2(K):
    """max βᵀdiag K − βᵀKβ s.t. eᵀβ = 1, β ≥ 0 by scipy's SLSQP (scaled by max K_ii)."""
    n = K.shape[0]
    s = np.diag(K).max()
    Ks, d = K / s, np.diag(K) / s
    res = minimize(lambda b: -(b @ d - b @ Ks @ b), np.full(n, 1.0 / n),
                   jac=lambda b: -(d - 2.0 * Ks @ b), method="SLSQP",
                   bounds=[(0.0, None)] * n,
                   constraints=[{"type": "eq", "fun": lambda b: b.sum() - 1.0,
                                 "jac": lambda b: np.ones((1, n))}],
                   options={"ftol": 1e-14, "maxiter": 1000})
    assert res.success, res.message
    return -res.fun * s, res.x


SLSQP_CASES = [
    (PolynomialKernel(3, 1.0), 0.0),
    (PolynomialKernel(2, 0.5), 0.0),
    (PolynomialKernel(3, 1.0), 1.0),     # R̃² at C = 1
    (PolynomialKernel(2, 1.0), 1e-2),    # R̃² at C = 100
    (LinearKernel(), 0.0),
    (RBFKernel(2.0), 0.1),               # R̃² at C = 10
]


@pytest.mark.parametrize("kernel,shift", SLSQP_CASES, ids=[f"{k!r}-h={h:g}" for k, h in SLSQP_CASES])
def test_radius_matches_scipy_qp(qp_data, kernel, shift):
    X, _ = qp_data
    K = kernel.block(X)
    if isinstance(kernel, PolynomialKernel):
        assert np.ptp(np.diag(K)) > 1.0  # the non-constant diagonal this test is about
    Kt = K + shift * np.eye(X.shape[0])
    sol = solve_radius(X, kernel, shift=shift, tol=1e-9)
    assert_radius_kkt(sol, Kt, 1e-9)
    r2, beta = slsqp_r2(Kt)
    assert rel(sol.r2, r2) <= 1e-6
    np.testing.assert_allclose(sol.beta, beta, rtol=0, atol=1e-5)


def test_radius_polynomial_differs_from_constant_diagonal_formula(qp_data):
    """With a non-constant diagonal the ball is not the one-class SVM's (DESIGN.md §5): the
    solver must use diag(K). The minimiser of βᵀKβ alone (what OneClassSVM computes) gives a
    strictly smaller value of the R² objective than the solver's maximum."""
    X, _ = qp_data
    kernel = PolynomialKernel(3, 1.0)
    K = kernel.block(X)
    sol = solve_radius(X, kernel, tol=1e-9)
    oc = OneClassSVM(kernel="precomputed", nu=1.0 / len(K), tol=1e-10).fit(K)
    b = np.zeros(len(K))
    b[oc.support_] = oc.dual_coef_[0]
    b /= b.sum()
    assert b @ np.diag(K) - b @ K @ b < sol.r2 * (1 - 1e-3)


def test_radius_linear_kernel_explicit_ball(noisy_data):
    """For the linear kernel the centre is explicit: c = Σβ_i x_i, every point within R of c."""
    X, _ = noisy_data
    sol = solve_radius(X, LinearKernel(), tol=1e-10)
    c = sol.beta @ X
    d2 = ((X - c) ** 2).sum(1)
    assert np.all(d2 <= sol.r2 + 1e-9)
    np.testing.assert_allclose(d2[sol.beta > 0], sol.r2, rtol=0, atol=1e-9)
    # the ball's diameter is at least the largest pairwise distance
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    assert 4 * sol.r2 >= D2.max() - 1e-9


# ---------------------------------------------------------------------------------------------
# warm starts (DESIGN.md §5): a step of +0.3 in ln C and ln σ²

STEP = 0.3
WARM_CASES = [("cancer", 30.0, 1e-3), ("cancer", 30.0, 1.0), ("cancer", 30.0, 1e2),
              ("digits", 64.0, 1e-3), ("digits", 64.0, 1.0), ("digits", 64.0, 1e2),
              ("noisy", 1.0, 1.0), ("noisy", 1.0, 1e4)]
WARM_IDS = [f"{d}-s2={s:g}-C={C:g}" for d, s, C in WARM_CASES]


def warm_and_cold(X, y, sigma2, C, loss):
    base = solve_svm_dual(X, y, RBFKernel(sigma2), C, loss=loss, tol=TOL)
    C1, k1 = C * np.exp(STEP), RBFKernel(sigma2 * np.exp(STEP))
    cold = solve_svm_dual(X, y, k1, C1, loss=loss, tol=TOL)
    a0 = warm_start_alpha(base.alpha, y, C, C1, loss)
    # the warm start is feasible for the new problem
    assert np.all(a0 >= 0) and (loss == "l2" or np.all(a0 <= C1))
    assert abs(y @ a0) <= 1e-10 * a0.sum()
    warm = solve_svm_dual(X, y, k1, C1, loss=loss, tol=TOL, alpha0=a0)
    return cold, warm, C1, k1


@pytest.mark.parametrize("dataset,sigma2,C", WARM_CASES, indirect=["dataset"], ids=WARM_IDS)
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_warm_start_reaches_same_solution(dataset, sigma2, C, loss):
    X, y = dataset
    cold, warm, C1, k1 = warm_and_cold(X, y, sigma2, C, loss)
    assert_kkt(warm, y, C1, loss, TOL)
    assert rel(warm.objective, cold.objective) <= OBJ_RTOL
    assert abs(warm.b - cold.b) <= 1e-4


# At C = 1e4 on the noisy set warm and cold need the same iterations to within rounding
# (740 vs 737): no saving to assert there.
FEWER_CASES = [c for c in WARM_CASES if c != ("noisy", 1.0, 1e4)]


@pytest.mark.parametrize("dataset,sigma2,C", FEWER_CASES, indirect=["dataset"],
                         ids=[f"{d}-s2={s:g}-C={C:g}" for d, s, C in FEWER_CASES])
def test_warm_start_needs_fewer_iterations_l1(dataset, sigma2, C):
    X, y = dataset
    cold, warm, _, _ = warm_and_cold(X, y, sigma2, C, "l1")
    assert warm.n_iter < cold.n_iter, (warm.n_iter, cold.n_iter)


def test_warm_start_alpha_minimal_example_keeps_the_bound():
    """Minimal reproduction: five points, C = 1, yᵀα = 2.2e-16 by rounding only."""
    y = np.array([1.0, 1.0, 1.0, -1.0, -1.0])
    a = np.array([1.0, 0.3, 0.4, 1.0, 0.7])  # feasible in exact arithmetic: 1 + 0.3 + 0.4 = 1 + 0.7
    a0 = warm_start_alpha(a, y, 1.0, 1.0)
    np.testing.assert_allclose(a0, a, rtol=1e-15)  # only a rounding-level repair ...
    assert abs(y @ a0) <= 1e-15
    assert a0[0] == 1.0 and a0[3] == 1.0  # ... but the bound must be kept exactly


@pytest.mark.parametrize("dataset,sigma2,C,factor", [
    ("cancer", 30.0, 1.0, 1.0),
    ("cancer", 30.0, 1.0, np.exp(STEP)),
    ("digits", 64.0, 1.0, 1.0),
    ("digits", 64.0, 1.0, np.exp(STEP)),
], indirect=["dataset"])
def test_warm_start_alpha_keeps_bounded_variables_at_the_bound(dataset, sigma2, C, factor):
    X, y = dataset
    sol = solve_svm_dual(X, y, RBFKernel(sigma2), C, tol=TOL)
    at_bound = sol.alpha >= C
    assert at_bound.sum() > 10
    C1 = C * factor
    a0 = warm_start_alpha(sol.alpha, y, C, C1)
    # the rule of DESIGN.md §5: scale by C_new/C_old (the repair only fixes rounding here)
    np.testing.assert_allclose(a0, sol.alpha * (C1 / C), rtol=1e-12)
    assert np.all(a0[at_bound] >= C1), f"{(a0[at_bound] < C1).sum()} of {at_bound.sum()} left the bound"


@pytest.mark.parametrize("dataset,sigma2,C", [
    ("cancer", 30.0, 1.0), ("cancer", 30.0, 1e2), ("noisy", 1.0, 1.0),
    ("digits", 64.0, 1.0),
], indirect=["dataset"])
def test_warm_start_from_the_optimum_of_the_same_problem_is_immediate(dataset, sigma2, C):
    X, y = dataset
    sol = solve_svm_dual(X, y, RBFKernel(sigma2), C, tol=TOL)
    again = solve_svm_dual(X, y, RBFKernel(sigma2), C, tol=TOL, alpha0=sol.alpha)
    assert again.n_iter == 0
    np.testing.assert_allclose(again.alpha, sol.alpha, rtol=1e-14)


RADIUS_WARM_CASES = [("cancer", 30.0), ("digits", 64.0), ("noisy", 1.0)]


def radius_warm_and_cold(X, sigma2, C):
    """Radius at (C, σ²), then at (C·e^0.3, σ²·e^0.3) cold and warm (shift = 1/C; C=None: R²)."""
    shift0 = 0.0 if C is None else 1.0 / C
    shift1 = 0.0 if C is None else 1.0 / (C * np.exp(STEP))
    base = solve_radius(X, RBFKernel(sigma2), shift=shift0, tol=TOL)
    k1 = RBFKernel(sigma2 * np.exp(STEP))
    cold = solve_radius(X, k1, shift=shift1, tol=TOL)
    b0 = warm_start_beta(base.beta)
    assert np.all(b0 >= 0) and abs(b0.sum() - 1) <= 1e-14
    warm = solve_radius(X, k1, shift=shift1, tol=TOL, beta0=b0)
    return cold, warm, k1, shift1


@pytest.mark.parametrize("dataset,sigma2", RADIUS_WARM_CASES, indirect=["dataset"])
@pytest.mark.parametrize("C", [None, 1.0, 1e2], ids=["R2", "R2tilde-C=1", "R2tilde-C=100"])
def test_radius_warm_start_reaches_same_solution(dataset, sigma2, C):
    X, _ = dataset
    cold, warm, k1, shift1 = radius_warm_and_cold(X, sigma2, C)
    Kt = k1.block(X) + shift1 * np.eye(X.shape[0])
    assert_radius_kkt(warm, Kt, TOL)
    assert rel(warm.r2, cold.r2) <= OBJ_RTOL


@pytest.mark.parametrize("dataset,sigma2", RADIUS_WARM_CASES, indirect=["dataset"])
@pytest.mark.parametrize("C", [None, 1e2], ids=["R2", "R2tilde-C=100"])
def test_radius_warm_start_needs_fewer_iterations(dataset, sigma2, C):
    X, _ = dataset
    cold, warm, _, _ = radius_warm_and_cold(X, sigma2, C)
    assert warm.n_iter < cold.n_iter, (warm.n_iter, cold.n_iter)


def test_warm_start_beta_clips_and_normalises():
    np.testing.assert_allclose(warm_start_beta([2.0, -1.0, 0.0, 2.0]), [0.5, 0.0, 0.0, 0.5])


# ---------------------------------------------------------------------------------------------
# singular Q: duplicated points, identical points with opposite labels


@pytest.mark.parametrize("kernel", [RBFKernel(1.0), LinearKernel(), PolynomialKernel(2, 1.0)],
                         ids=repr)
@pytest.mark.parametrize("C", [1e-3, 1.0, 1e2])
def test_duplicated_rows(noisy_data, kernel, C):
    X, y = noisy_data
    X2, y2 = np.repeat(X, 2, axis=0), np.repeat(y, 2)  # every row twice: rank(Q) ≤ l/2
    K2 = kernel.block(X2)
    sol = solve_svm_dual(X2, y2, kernel, C, tol=TOL)
    assert_kkt(sol, y2, C, "l1", TOL, K=K2)
    svc = svc_for(kernel, C).fit(X2, y2)
    assert rel(sol.objective, svc_objective(svc, K2)) <= OBJ_RTOL
    # primal: ½‖w‖² + C Σ 2ξ_i, i.e. the original problem at 2C (α of twins sum to its α)
    orig = solve_svm_dual(X, y, kernel, 2 * C, tol=1e-8)
    assert rel(sol.objective, orig.objective) <= OBJ_RTOL
    np.testing.assert_allclose(sol.alpha[0::2] + sol.alpha[1::2], orig.alpha, rtol=0,
                               atol=1e-3 * C)


@pytest.mark.parametrize("kernel", [RBFKernel(1.0), LinearKernel(), PolynomialKernel(2, 1.0)],
                         ids=repr)
@pytest.mark.parametrize("C", [1e-3, 1.0, 1e2])
def test_identical_points_with_opposite_labels(noisy_data, kernel, C):
    X, y = noisy_data
    X3 = np.vstack([X, X[:10]])
    y3 = np.concatenate([y, -y[:10]])  # 10 points carry both labels: no separating function
    K3 = kernel.block(X3)
    sol = solve_svm_dual(X3, y3, kernel, C, tol=TOL)
    assert_kkt(sol, y3, C, "l1", TOL, K=K3)
    svc = svc_for(kernel, C).fit(X3, y3)
    assert rel(sol.objective, svc_objective(svc, K3)) <= OBJ_RTOL
    assert set(sol.support.tolist()) == set(svc.support_.tolist())
    # of the two copies of a contradicted point, the one with y·f ≤ 0 < 1 violates the margin
    # and must sit exactly at the bound α = C
    f = decision_function(X3, y3, sol.alpha, sol.b, kernel, X3)
    n = len(y)
    for i in range(10):
        j = n + i
        worse = i if y3[i] * f[i] <= y3[j] * f[j] else j
        assert y3[worse] * f[worse] <= 0.0
        assert sol.alpha[worse] == C


def test_all_points_identical_with_both_labels():
    X = np.ones((6, 2))
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
    for loss in ("l1", "l2"):
        sol = solve_svm_dual(X, y, RBFKernel(1.0), 1.0, loss=loss, tol=TOL)
        K = np.ones((6, 6))
        assert_kkt(sol, y, 1.0, loss, TOL, K=K)
    r = solve_radius(X, RBFKernel(1.0), tol=TOL)
    assert r.converged and abs(r.r2) <= 1e-15


# ---------------------------------------------------------------------------------------------
# kernel cache, tolerance, iteration limit


@pytest.mark.parametrize("dataset,sigma2", [("cancer", 30.0), ("digits", 64.0)],
                         indirect=["dataset"])
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_tiny_cache_gives_same_solution(dataset, sigma2, loss):
    """A cache too small for every row holds float32 rows (LIBSVM's Qfloat) and thrashes; the
    solution is the same up to float32 rounding of Q: same support set, objective to 1e-6."""
    from svmbound.solvers.qp import cache_buffer

    X, y = dataset
    n = len(y)
    assert cache_buffer(n, 200.0).dtype == np.float64
    assert cache_buffer(n, 0.01).dtype == np.float32
    kernel = RBFKernel(sigma2)
    # 0.01 MB holds 0.01·2²⁰ / (4·l) float32 rows: 4 rows for l = 569, 6 for l = 400
    big = solve_svm_dual(X, y, kernel, 10.0, loss=loss, tol=TOL, cache_size=200.0)
    tiny = solve_svm_dual(X, y, kernel, 10.0, loss=loss, tol=TOL, cache_size=0.01)
    assert tiny.n_kernel_rows > 5 * big.n_kernel_rows  # the cache really thrashed
    # KKT against the exact float64 kernel: float32 rows shift G by ~1e-7·Σα
    assert_kkt(tiny, y, 10.0, loss, tol=1e-4, K=None)
    K = kernel.block(X)
    G = q_tilde(K, y, 10.0, loss) @ tiny.alpha - 1.0
    np.testing.assert_allclose(tiny.gradient, G, rtol=0, atol=1e-5 * (1.0 + tiny.alpha.sum()))
    np.testing.assert_allclose(tiny.objective, big.objective, rtol=1e-6)
    assert np.array_equal(tiny.support, big.support)
    np.testing.assert_allclose(tiny.alpha, big.alpha, atol=1e-3 * max(1.0, big.alpha.max()))
    rb = solve_radius(X, kernel, tol=TOL, cache_size=200.0)
    rt = solve_radius(X, kernel, tol=TOL, cache_size=0.01)
    assert rt.n_kernel_rows > rb.n_kernel_rows
    np.testing.assert_allclose(rt.r2, rb.r2, rtol=1e-6)


def _vm_flags(address: int) -> list:
    """The VmFlags of the mapping of this process that holds ``address`` (Linux smaps)."""
    mapping = None
    with open("/proc/self/smaps") as fh:
        for line in fh:
            head = line.split()[0]
            if "-" in head and all(c in "0123456789abcdef-" for c in head):
                lo, hi = (int(v, 16) for v in head.split("-"))
                mapping = lo <= address < hi
            elif mapping and line.startswith("VmFlags:"):
                return line.split()[1:]
    raise AssertionError("no mapping holds the address")


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="Linux smaps needed")
def test_a_large_row_cache_is_mapped_without_huge_pages(monkeypatch):
    """From ``qp.LAZY_MIN_BYTES`` the row cache is a mapping of its own advised against
    transparent huge pages (VmFlags ``nh``), where numpy's np.empty advises them; smaller
    buffers are np.empty's. The mapping is C-ordered and writable, and goes with the array."""
    from svmbound.solvers import qp

    big = qp.lazy_empty((4096, 2048), np.float32)          # 32 MiB
    assert big.shape == (4096, 2048) and big.dtype == np.float32
    assert big.flags.c_contiguous and big.flags.writeable
    big[-1, -1] = 1.0
    assert "nh" in _vm_flags(big.ctypes.data)
    small = qp.lazy_empty((10, 10), np.float64)
    assert small.base is None
    monkeypatch.setattr(qp, "LAZY_MIN_BYTES", 0)
    assert qp.cache_buffer(300, 200.0).base is not None     # (a view of its mapping)


@pytest.mark.skipif(not hasattr(__import__("mmap"), "MADV_NOHUGEPAGE"),
                    reason="a platform with madvise(MADV_NOHUGEPAGE)")
def test_a_refused_mapping_or_advice_still_gives_the_cache(monkeypatch):
    """A kernel without transparent huge pages refuses the advice (EINVAL): the mapping is
    kept; a refused mapping (ENOMEM) falls back to np.empty (whose MemoryError, if any, is
    the one a user knows). Either way the array has the shape and type asked for."""
    import mmap
    import types

    from svmbound.solvers import qp

    class NoAdvice(mmap.mmap):
        def madvise(self, *args):
            raise OSError(22, "Invalid argument")

    def refused(*args, **kwargs):
        raise OSError(12, "Cannot allocate memory")

    for factory, mapped in ((NoAdvice, True), (refused, False)):
        monkeypatch.setattr(qp, "mmap", types.SimpleNamespace(
            mmap=factory, MAP_PRIVATE=mmap.MAP_PRIVATE, MADV_NOHUGEPAGE=mmap.MADV_NOHUGEPAGE))
        a = qp.lazy_empty((4096, 2048), np.float32)
        assert a.shape == (4096, 2048) and a.dtype == np.float32 and a.flags.writeable
        assert (a.base is not None) == mapped


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_solve_on_a_mapped_cache_is_the_same_solve(cancer_data, monkeypatch, loss):
    """The row cache on a mapping of its own (``qp.lazy_empty``, every size here) or from
    np.empty: the same bits of α and the same iterations."""
    from svmbound.solvers import qp

    X, y = cancer_data
    monkeypatch.setattr(qp, "LAZY_MIN_BYTES", 2**62)
    plain = solve_svm_dual(X, y, RBFKernel(30.0), 10.0, loss=loss, tol=TOL)
    monkeypatch.setattr(qp, "LAZY_MIN_BYTES", 0)
    mapped = solve_svm_dual(X, y, RBFKernel(30.0), 10.0, loss=loss, tol=TOL)
    assert np.array_equal(mapped.alpha, plain.alpha) and mapped.n_iter == plain.n_iter


@pytest.mark.parametrize("dataset,sigma2,C", [("cancer", 30.0, 1.0), ("cancer", 30.0, 1e2),
                                              ("digits", 64.0, 1.0), ("noisy", 1.0, 1e4)],
                         indirect=["dataset"])
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_tight_tolerance(dataset, sigma2, C, loss):
    X, y = dataset
    kernel = RBFKernel(sigma2)
    sol = solve_svm_dual(X, y, kernel, C, loss=loss, tol=1e-8)
    assert_kkt(sol, y, C, loss, 1e-8, K=kernel.block(X))
    loose = solve_svm_dual(X, y, kernel, C, loss=loss, tol=1e-3)
    assert loose.converged and loose.n_iter <= sol.n_iter
    assert loose.objective <= sol.objective * (1 + 1e-12)  # maximisation: never above the optimum
    r = solve_radius(X, kernel, tol=1e-8)
    assert_radius_kkt(r, kernel.block(X), 1e-8)


def test_max_iter_stops_early_and_reports_not_converged(cancer_data):
    X, y = cancer_data
    sol = solve_svm_dual(X, y, RBFKernel(30.0), 1.0, tol=TOL, max_iter=5)
    assert sol.n_iter == 5 and not sol.converged and sol.max_violation >= TOL
    # still feasible
    assert np.all((sol.alpha >= 0) & (sol.alpha <= 1.0)) and abs(y @ sol.alpha) < 1e-12
    r = solve_radius(X, RBFKernel(30.0), tol=TOL, max_iter=3)
    assert r.n_iter == 3 and not r.converged


def test_loose_tolerance_violation_is_reported(cancer_data):
    X, y = cancer_data
    sol = solve_svm_dual(X, y, RBFKernel(30.0), 1.0, tol=1e-1)
    assert sol.converged and sol.max_violation < 1e-1
    assert_kkt(sol, y, 1.0, "l1", 1e-1, K=RBFKernel(30.0).block(X))


@pytest.mark.parametrize("dataset,sigma2,C", WARM_CASES, indirect=["dataset"], ids=WARM_IDS)
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_same_kernel_start_gradient_is_exact_and_reaches_the_solution(dataset, sigma2, C, loss):
    """A step in C alone: the rescaled α's gradient (G, Ḡ) from the previous one equals the one
    computed from kernel columns, and the solve reaches the cold solution."""
    from svmbound.solvers.qp import initial_gradient
    from svmbound.solvers.svm import same_kernel_start, upper_bounds

    X, y = dataset
    kernel = RBFKernel(sigma2)
    base = solve_svm_dual(X, y, kernel, C, loss=loss, tol=TOL)
    C1 = C * np.exp(STEP)
    a0, (G0, Gbar0) = same_kernel_start(base, C1)
    assert np.all(a0 >= 0) and (loss == "l2" or np.all(a0 <= C1))
    assert abs(y @ a0) <= 1e-10 * a0.sum()
    G_ref, Gbar_ref = initial_gradient(X, y, -np.ones(len(y)), upper_bounds(loss, C1, len(y)),
                                       a0, kernel, 1.0, 1.0 / C1 if loss == "l2" else 0.0)
    scale = 1.0 + np.abs(G_ref).max()
    np.testing.assert_allclose(G0, G_ref, rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(Gbar0, Gbar_ref, rtol=0, atol=1e-8 * scale)
    cold = solve_svm_dual(X, y, kernel, C1, loss=loss, tol=TOL)
    warm = solve_svm_dual(X, y, kernel, C1, loss=loss, tol=TOL, warm_from=base)
    assert_kkt(warm, y, C1, loss, TOL)
    assert rel(warm.objective, cold.objective) <= OBJ_RTOL
    with pytest.raises(ValueError, match="alpha0 or warm_from"):
        solve_svm_dual(X, y, kernel, C1, loss=loss, alpha0=a0, warm_from=base)


@pytest.mark.parametrize("loss", ["l1", "l2"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("C", [0.1, 10.0, 1e4])
def test_training_decision_from_the_gradient_equals_the_kernel_sum(loss, weighted, C):
    """DualSolution.training_decision (Qα from the gradient, no kernel value) equals
    Σ_j α_j y_j K(x_i, x_j) + b computed from the kernel."""
    from sklearn.datasets import make_classification

    from svmbound.solvers import decision_function

    X, y = make_classification(120, 5, random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    w = np.random.RandomState(1).uniform(0.5, 2.0, y.size) if weighted else None
    k = RBFKernel(2.0)
    sol = solve_svm_dual(X, y, k, C, loss=loss, tol=1e-6, weights=w)
    np.testing.assert_allclose(sol.training_decision(y),
                               decision_function(X, y, sol.alpha, sol.b, k, X), atol=1e-9)


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_small_solve_in_slices_reaches_the_same_optimum(monkeypatch, loss):
    """Small problems are solved in slices of iterations (``qp.SLICE_ITER``), each resuming the
    last one's α, G and Ḡ: cut into slices of 25 iterations, a solve reaches the tolerance, with
    the objective and the decision values of the solve in one piece, and more than one slice
    (its iterations add up)."""
    from svmbound.solvers import qp

    rng = np.random.default_rng(3)
    X = rng.standard_normal((120, 4))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.4 * rng.standard_normal(120) > 0, 1.0, -1.0)
    kernel = RBFKernel(sigma2=0.7)
    whole = solve_svm_dual(X, y, kernel, 20.0, loss=loss, tol=1e-8)
    assert whole.n_iter > 100
    monkeypatch.setattr(qp, "SLICE_ITER", 25)
    monkeypatch.setattr(qp, "SLICE_ITER_PER_ROW", 0)
    sliced = solve_svm_dual(X, y, kernel, 20.0, loss=loss, tol=1e-8)
    assert sliced.converged and sliced.max_violation < 1e-8
    assert sliced.n_iter > 25
    assert sliced.objective == pytest.approx(whole.objective, rel=1e-9)
    np.testing.assert_allclose(decision_function(X, y, sliced.alpha, sliced.b, kernel, X),
                               decision_function(X, y, whole.alpha, whole.b, kernel, X),
                               atol=1e-6)


@pytest.mark.parametrize("every", [1, 7])
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_shrinking_at_any_interval_reaches_the_optimum(cancer_data, monkeypatch, loss, every):
    """The SMO shrinks every min(n, ``qp.SHRINK_EVERY``) iterations; shrinking at every
    iteration (or every 7th) still ends at the KKT conditions, checked against a gradient
    computed afresh from K (a wrong reconstruction of the shrunk variables' gradient fails
    it), with the objective of the solve at the default interval."""
    from svmbound.solvers import qp

    X, y = cancer_data
    kernel = RBFKernel(30.0)
    C = 10.0
    ref = solve_svm_dual(X, y, kernel, C, loss=loss, tol=1e-8)
    monkeypatch.setattr(qp, "SHRINK_EVERY", every)
    sol = solve_svm_dual(X, y, kernel, C, loss=loss, tol=1e-8)
    assert sol.converged
    assert_kkt(sol, y, C, loss, 1e-8, K=kernel.block(X))
    assert sol.objective == pytest.approx(ref.objective, rel=1e-9)


# ---------------------------------------------------------------------------------------------
# rows of a shared kernel matrix (GramRows)


@pytest.mark.parametrize("loss", ["l1", "l2"])
@pytest.mark.parametrize("warm", [False, True])
def test_a_solve_on_gram_rows_is_the_solve_on_the_copied_block(loss, warm):
    """GramRows(K, rows) reads K[rows[i], rows[j]] in the SMO: the same values as the block
    K[rows][:, rows] copied out, hence the same solution, bit for bit (a warm start's initial
    gradient too)."""
    from svmbound.kernels import GramRows

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=60) > 0, 1.0, -1.0)
    K = RBFKernel(2.0).block(X)
    rows = np.sort(rng.choice(60, size=45, replace=False))
    alpha0 = rng.uniform(0.0, 0.5, size=45) if warm else None
    kw = dict(loss=loss, tol=1e-8, alpha0=alpha0, check_input=False)
    on_rows = solve_svm_dual(GramRows(K, rows), y[rows], PrecomputedKernel(), 3.0, **kw)
    on_block = solve_svm_dual(np.ascontiguousarray(K[np.ix_(rows, rows)]), y[rows],
                              PrecomputedKernel(), 3.0, **kw)
    np.testing.assert_array_equal(on_rows.alpha, on_block.alpha)
    np.testing.assert_array_equal(on_rows.gradient, on_block.gradient)
    assert on_rows.b == on_block.b and on_rows.n_iter == on_block.n_iter


def test_gram_rows_refuse_what_they_cannot_read():
    from svmbound.kernels import GramRows

    with pytest.raises(ValueError, match="square"):
        GramRows(np.zeros((3, 4)), [0, 1])
    with pytest.raises(ValueError, match=r"indices in 0\.\.2"):
        GramRows(np.eye(3), [0, 3])
    with pytest.raises(ValueError, match="PrecomputedKernel"):
        solve_svm_dual(GramRows(np.eye(3), [0, 1]), np.array([1.0, -1.0]), RBFKernel(), 1.0,
                       check_input=False)


def test_the_smo_cache_hit_records_a_use_for_the_lru_order():
    """The SMO's loops ask ``_cached`` before ``_get_row`` (a call of ``_get_row`` costs more
    than a pass over a small active set): on a cached row it returns that row's slot and records
    the use (the clock, the slot's last use), so that a full cache then evicts the row used
    least recently; on a row not cached it returns −1 and records nothing."""
    from svmbound.kernels._rows import RBF
    from svmbound.solvers._smo import _cached, _get_row, setup

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    sq = np.einsum("ij,ij->i", X, X)
    y = np.where(rng.random(12) > 0.5, 1.0, -1.0)
    buf = np.empty((3, 12))                 # three rows: full after three fetches
    slot_of, row_of, last_used, state, _ = setup(X, sq, 12, RBF, 0.5, 0.0, 1, 1.0, 0.1, buf,
                                                 1, 0)

    def fetch(i):
        return _get_row(i, X, sq, y, RBF, 0.5, 0.0, 1, 1.0, 0.1, buf, slot_of, row_of,
                        last_used, state)

    for i in (3, 7, 1):                     # clock 1, 2, 3; row 3 the least recently used
        fetch(i)
    s = _cached(3, slot_of, last_used, state)
    assert s == slot_of[3] >= 0 and state[0] == 4 and last_used[s] == 4
    before = [v.copy() for v in (slot_of, last_used, state)]
    assert _cached(5, slot_of, last_used, state) == -1
    for mine, ref in zip((slot_of, last_used, state), before):
        np.testing.assert_array_equal(mine, ref)
    fetch(5)                                # a miss: evicts row 7, now the least recently used
    assert slot_of[7] == -1 and slot_of[3] >= 0 and slot_of[1] >= 0 and slot_of[5] >= 0
    assert state[2] == 4                    # four rows computed
