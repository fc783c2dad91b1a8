"""Radius–margin criteria: gradients vs central finite differences, values vs independent
computations, Chung Theorem 1."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler

from svmbound.criteria import (CRITERIA, DuanL1, RadiusMarginL1, RadiusMarginL1Alpha,
                               RadiusMarginL1Sum, RadiusMarginL2Quarter, RadiusMarginL2, RadiusMarginL2Half,
                               criterion_class, make_criterion)
from svmbound.kernels import PolynomialKernel, RBFKernel
from svmbound.solvers import Problem
from _fd import central_fd


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=120, n_features=5, n_informative=3, flip_y=0.05,
                               random_state=3)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)




# Points include the box edges (ln C = ±9.5), large C and small σ².
POINTS = [(0.0, 0.0), (2.0, 1.5), (-3.0, 2.5), (9.5, 1.0), (-9.5, 0.5), (5.0, -1.5), (1.0, 9.0)]


DIFFERENTIABLE = sorted(n for n, c in CRITERIA.items()
                        if c.differentiable and c.task == "classification")


@pytest.mark.parametrize("name", DIFFERENTIABLE)
@pytest.mark.parametrize("theta", POINTS)
def test_gradient_matches_finite_differences(data, name, theta):
    X, y = data
    crit = make_criterion(name, Problem(X, y), RBFKernel(), tol=1e-8)
    theta = np.array(theta)
    ev = crit.evaluate(theta)
    fd = central_fd(crit, theta)
    scale = max(np.abs(fd).max(), 1e-3 * abs(ev.value), 1e-8)
    assert np.all(np.abs(ev.grad - fd) <= 1e-4 * scale), (ev.grad, fd)


def test_l1_gradient_with_polynomial_coef0(data):
    X, y = data
    crit = RadiusMarginL1(Problem(X, y), PolynomialKernel(degree=2, coef0=1.0), tol=1e-9)
    theta = np.array([0.5, 1.3])
    ev = crit.evaluate(theta)
    fd = central_fd(crit, theta, h=1e-5)
    np.testing.assert_allclose(ev.grad, fd, rtol=1e-4, atol=1e-6 * abs(ev.value))


def _dual_by_kernel(K, y, alpha):
    return alpha.sum() - 0.5 * (alpha * y) @ K @ (alpha * y)


def test_l2_value_equals_explicit_formula(data):
    """R̃²‖w̃‖² recomputed from the returned α, β with an explicit kernel matrix."""
    X, y = data
    C = np.exp(1.0)
    kern = RBFKernel(np.exp(0.7))
    crit = RadiusMarginL2(Problem(X, y), RBFKernel(), tol=1e-10)
    ev = crit.evaluate(np.array([1.0, 0.7]))
    alpha = crit._svm_prev.alpha
    beta = crit._radius_prev["sol"].beta
    Kt = kern.block(X) + np.eye(len(y)) / C
    w2 = 2 * _dual_by_kernel(Kt, y, alpha)
    r2 = beta @ np.diag(Kt) - beta @ Kt @ beta
    np.testing.assert_allclose(w2, alpha.sum(), rtol=1e-7)  # ‖w̃‖² = eᵀα at the optimum
    np.testing.assert_allclose(ev.value, r2 * w2, rtol=1e-9)


def test_l1_value_equals_primal(data):
    """‖w‖² + 2CΣξ from the primal: ξ_i = max(0, 1 − y_i f(x_i))."""
    X, y = data
    C = np.exp(0.5)
    kern = RBFKernel(np.exp(1.0))
    crit = RadiusMarginL1(Problem(X, y), RBFKernel(), tol=1e-10)
    ev = crit.evaluate(np.array([0.5, 1.0]))
    sol = crit._svm_prev
    K = kern.block(X)
    f = K @ (sol.alpha * y) + sol.b
    xi = np.maximum(0.0, 1 - y * f)
    w2 = (sol.alpha * y) @ K @ (sol.alpha * y)
    np.testing.assert_allclose(ev.info["primal2"], w2 + 2 * C * xi.sum(), rtol=1e-6)
    np.testing.assert_allclose(ev.value, (ev.info["R2"] + 1.0 / C) * (w2 + 2 * C * xi.sum()),
                               rtol=1e-6)


def test_chung_theorem_1(data):
    """σ fixed and R² > ½ ⇒ (R² + 0.5/C)‖w̃‖² ≤ R̃²‖w̃‖² (Chung Theorem 1)."""
    X, y = data
    for logc in (-4.0, -1.0, 0.0, 2.0, 6.0):
        theta = np.array([logc, 1.0])
        tilde = RadiusMarginL2(Problem(X, y), RBFKernel(), tol=1e-9).evaluate(theta)
        half = RadiusMarginL2Half(Problem(X, y), RBFKernel(), tol=1e-9).evaluate(theta)
        assert half.info["R2"] > 0.5
        assert half.value <= tilde.value * (1 + 1e-9)


def test_warm_start_reaches_cold_value(data):
    X, y = data
    warm = RadiusMarginL1(Problem(X, y), RBFKernel(), tol=1e-9)
    path = [np.array([0.0, 0.0]), np.array([0.3, 0.3]), np.array([0.2, 0.6])]
    for theta in path:
        v_warm = warm.fun(theta)
        v_cold = RadiusMarginL1(Problem(X, y), RBFKernel(), tol=1e-9, warm_start=False).fun(theta)
        np.testing.assert_allclose(v_warm, v_cold, rtol=1e-7)
    assert warm.n_trainings == len(path)


@pytest.mark.parametrize("cls", [RadiusMarginL1, RadiusMarginL2])
def test_new_kernel_starts_cold_a_step_in_c_from_the_last_solution(data, cls):
    """Criterion.warm_across_kernels (False): at new kernel parameters the SVM is solved cold —
    the same SMO iterations as a fresh criterion —, after a step in C alone it starts from the
    previous solution and its gradient (fewer iterations, the same value); with the class
    attribute switched on, the start from the previous α is used across kernels again."""
    X, y = data
    a, step_c, new_kernel = (np.array([0.5, 0.2]), np.array([1.0, 0.2]), np.array([0.5, 0.7]))

    def iterations(crit, theta):
        crit.evaluate(theta)
        return crit._svm_prev.n_iter

    crit = cls(Problem(X, y), RBFKernel(), tol=1e-6)
    crit.evaluate(a)
    cold_step = cls(Problem(X, y), RBFKernel(), tol=1e-6)
    assert iterations(crit, step_c) < iterations(cold_step, step_c)
    assert crit.fun(step_c) == pytest.approx(cold_step.fun(step_c), rel=1e-6)
    assert iterations(crit, new_kernel) == iterations(cls(Problem(X, y), RBFKernel(), tol=1e-6),
                                                      new_kernel)
    warm = cls(Problem(X, y), RBFKernel(), tol=1e-6)
    warm.warm_across_kernels = True
    warm.evaluate(step_c)
    assert iterations(warm, new_kernel) != iterations(cls(Problem(X, y), RBFKernel(), tol=1e-6),
                                                      new_kernel)


def test_registry_errors(data):
    X, y = data
    with pytest.raises(ValueError, match="unknown criterion 'nope'.*valid criteria:.*rm-l1"):
        criterion_class("nope")
    with pytest.raises(ValueError, match="L2-SVM.*loss='l1'"):
        criterion_class("rm-l2", "l1")
    assert criterion_class("radius-margin", "l1") is RadiusMarginL1
    assert criterion_class("radius-margin", "l2") is RadiusMarginL2
    with pytest.raises(ValueError, match="delta must be"):
        RadiusMarginL1(Problem(X, y), RBFKernel(), delta=0.0)
    with pytest.raises(ValueError, match="theta must have 2 entries"):
        RadiusMarginL1(Problem(X, y), RBFKernel()).fun(np.zeros(3))


def test_l1_heuristic_bounds_match_their_formulas(data):
    """(1.9), (3.1), (3.2) recomputed from R² (independent QP) and the primal slacks."""
    from scipy.optimize import minimize

    X, y = data
    X, y = X[:40], y[:40]
    C, kern = np.exp(0.3), RBFKernel(np.exp(0.8))
    theta = np.array([0.3, 0.8])
    K = kern.block(X)
    # R² by a generic QP (SLSQP) — independent of our SMO
    cons = ({"type": "eq", "fun": lambda b: b.sum() - 1.0},)
    r = minimize(lambda b: -(b @ np.diag(K) - b @ K @ b), np.full(40, 1 / 40), method="SLSQP",
                 bounds=[(0, None)] * 40, constraints=cons, options={"ftol": 1e-14, "maxiter": 500})
    r2 = -r.fun
    problem = Problem(X, y)
    crit = DuanL1(problem, RBFKernel(), tol=1e-10)
    ev = crit.evaluate(theta)
    sol = crit._svm_prev
    xi = np.maximum(0, 1 - y * (K @ (sol.alpha * y) + sol.b))
    ea = sol.alpha.sum()
    np.testing.assert_allclose(ev.info["R2"], r2, rtol=1e-6)
    np.testing.assert_allclose(ev.value, 4 * r2 * ea + xi.sum(), rtol=1e-5)
    np.testing.assert_allclose(RadiusMarginL1Sum(problem, RBFKernel(), tol=1e-10).fun(theta),
                               r2 * ea + xi.sum(), rtol=1e-5)
    np.testing.assert_allclose(RadiusMarginL1Alpha(problem, RBFKernel(), tol=1e-10).fun(theta),
                               (r2 + 1 / C) * ea, rtol=1e-5)
    assert ev.grad is None
    with pytest.raises(ValueError, match="not differentiable; use the grid or annealing"):
        crit.grad(theta)


def test_sigma_to_infinity_limits(data):
    """Chung §2: as σ → ∞, R̃²‖w̃‖² → 4l₁l₂/(l₁+l₂), (2.5) → 2l₁l₂/(l₁+l₂), (2.7) → l₁l₂/(l₁+l₂)."""
    X, y = data
    l1, l2 = (y > 0).sum(), (y < 0).sum()
    base = l1 * l2 / (l1 + l2)
    theta = np.array([0.0, 25.0])
    tilde = RadiusMarginL2(Problem(X, y), RBFKernel(), tol=1e-10).fun(theta)
    half = RadiusMarginL2Half(Problem(X, y), RBFKernel(), tol=1e-10).fun(theta)
    quarter = RadiusMarginL2Quarter(Problem(X, y), RBFKernel(), tol=1e-10).fun(theta)
    np.testing.assert_allclose(tilde, 4 * base * (1 - 1 / len(y)), rtol=1e-4)
    np.testing.assert_allclose(half, 2 * base, rtol=1e-4)
    np.testing.assert_allclose(quarter, base, rtol=1e-4)


def test_optimal_c_decreases_with_tighter_l2_bound(data):
    """Chung §2: from R̃² to R² + 0.5/C to R² + 0.25/C (σ fixed) the minimising C decreases."""
    X, y = data
    grid = np.linspace(-6, 8, 57)
    best = []
    for cls in (RadiusMarginL2, RadiusMarginL2Half, RadiusMarginL2Quarter):
        crit = cls(Problem(X, y), RBFKernel(), tol=1e-8)
        vals = [crit.fun(np.array([c, 1.0])) for c in grid]
        best.append(grid[int(np.argmin(vals))])
    assert best[0] >= best[1] >= best[2]
    assert best[0] > best[2]


@pytest.mark.parametrize("name", ["rm-l2", "rm-l1"])
def test_step_in_C_alone_reuses_the_gradient_and_gives_the_fresh_value(data, name, monkeypatch):
    """Consecutive evaluations differing only in ln C start from the rescaled α and its
    gradient (no kernel value); value and gradient equal a fresh criterion's."""
    import svmbound.criteria.base as base_mod

    calls = []
    real = base_mod.solve_svm_dual

    def spy(*args, **kwargs):
        calls.append(kwargs.get("warm_from") is not None)
        return real(*args, **kwargs)

    monkeypatch.setattr(base_mod, "solve_svm_dual", spy)
    X, y = data
    crit = make_criterion(name, Problem(X, y), RBFKernel(), tol=1e-9)
    crit.evaluate([0.0, 1.0])
    crit.evaluate([0.3, 1.5])                    # kernel changed: ordinary warm start
    ev = crit.evaluate([0.4, 1.5])               # only C changed: gradient reused
    assert calls == [False, False, True]
    fresh = make_criterion(name, Problem(X, y), RBFKernel(), tol=1e-9).evaluate([0.4, 1.5])
    np.testing.assert_allclose(ev.value, fresh.value, rtol=1e-6)
    np.testing.assert_allclose(ev.grad, fresh.grad, rtol=1e-4, atol=1e-6 * abs(fresh.value))


@pytest.mark.parametrize("name", ["rm-l2", "rm-l1", "rm-l1-3.2"])
def test_radius_in_a_second_thread_gives_the_sequential_result(data, name, monkeypatch):
    """solve_svm_and_radius overlaps the two solves; the values must be those of solving one
    after the other."""
    import svmbound.criteria.base as base_mod

    X, y = data
    monkeypatch.setattr(base_mod, "RADIUS_THREAD_MIN_ROWS", 0)    # a second thread, any size
    points = [[0.0, 1.0], [0.5, 1.5], [0.7, 1.5], [-0.3, 0.2]]
    crit = make_criterion(name, Problem(X, y), RBFKernel(), tol=1e-8)
    threaded = [crit.evaluate(p) for p in points]

    def sequential(self, C, kernel, radius):
        svm = self.solve_svm(C, kernel)
        return svm, radius()

    monkeypatch.setattr(base_mod.Criterion, "solve_svm_and_radius", sequential)
    crit = make_criterion(name, Problem(X, y), RBFKernel(), tol=1e-8)
    for p, ev in zip(points, threaded):
        ref = crit.evaluate(p)
        assert ev.value == ref.value
        if ref.grad is not None:
            np.testing.assert_array_equal(ev.grad, ref.grad)


# -- the solve at θ₀ made once for two criteria (criteria.base.solve_once_at) ----------------
def test_two_criteria_start_from_one_solve_and_get_what_each_would_have_made(data):
    """span and rm-l2 at the same θ solve the same L2-SVM: made once, the second takes the
    first's solution (one training in all) and both evaluations are those of criteria solving
    on their own, bit for bit; after that each warm-starts from its own."""
    from svmbound.criteria.base import solve_once_at

    X, y = data
    points = [[0.3, 0.5], [0.8, 0.5]]
    alone = [make_criterion(n, Problem(X, y), RBFKernel(), tol=1e-6).evaluate(points[0])
             for n in ("span", "rm-l2")]
    crits = [make_criterion(n, Problem(X, y), RBFKernel(), tol=1e-6) for n in ("span", "rm-l2")]
    solve_once_at(crits, points[0])
    assert crits[0]._svm_prev is crits[1]._svm_prev
    evs = [c.evaluate(points[0]) for c in crits]
    assert crits[0]._svm_prev is crits[1]._svm_prev
    assert crits[0].n_trainings + crits[1].n_trainings == 1
    for ev, ref in zip(evs, alone):
        assert ev.value == ref.value
        np.testing.assert_array_equal(ev.grad, ref.grad)
    for c in crits:                      # only C changes: each warm-starts from its own
        c.evaluate(points[1])
    assert crits[0]._svm_prev is not crits[1]._svm_prev
    assert crits[0].n_trainings + crits[1].n_trainings == 3


def test_only_criteria_that_make_the_same_solve_share_it(data):
    """The L1 loss's span (an L2-SVM) and rm-l1 (an L1-SVM) share nothing, nor does a
    criterion without warm starts; a solve at the previous θ that stopped at its iteration cap
    is made again."""
    from svmbound.criteria.base import solve_once_at

    X, y = data
    theta = [0.3, 0.5]
    crits = [make_criterion(n, Problem(X, y), RBFKernel(), tol=1e-6) for n in ("span", "rm-l1")]
    solve_once_at(crits, theta)
    assert [c.n_trainings for c in crits] == [0, 0]
    cold = [make_criterion("rm-l2", Problem(X, y), RBFKernel(), tol=1e-6, warm_start=w)
            for w in (True, False)]
    solve_once_at(cold, theta)
    assert [c.n_trainings for c in cold] == [0, 0]
    capped = make_criterion("rm-l2", Problem(X, y), RBFKernel(), tol=1e-6, max_iter=2)
    capped.solve_at(theta)
    assert not capped._svm_prev.converged
    first = capped._svm_prev
    capped.solve_at(theta)
    assert capped.n_trainings == 2 and capped._svm_prev is not first
    done = make_criterion("rm-l2", Problem(X, y), RBFKernel(), tol=1e-6)
    done.solve_at(theta)
    sol = done._svm_prev
    done.solve_at(theta)
    assert done.n_trainings == 1 and done._svm_prev is sol
