"""Projected BFGS (Chung et al. 2003, §4.2): convergence on functions with known minimisers,
the line-search rules checked point by point on the recorded path, evaluation counting, and
input validation. Every expected value is a mathematical fact computed here by hand or by an
independent method, never an output of the code under test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from svmbound.search import SearchResult, minimize_projected_bfgs
from svmbound.search.bfgs import BOUNDARY, STATUS_MESSAGES, bfgs_inverse_update

BOUNDARY_MSG = "on the boundary and the search direction points out of the box"
SIGMA1 = 1e-4


# --------------------------------------------------------------------------------------------
# test functions
# --------------------------------------------------------------------------------------------
def quadratic(A, c):
    """f(x) = (x − c)ᵀA(x − c), ∇f = 2A(x − c); unconstrained minimiser c."""
    A, c = np.asarray(A, float), np.asarray(c, float)
    return (lambda x: float((x - c) @ A @ (x - c))), (lambda x: 2.0 * A @ (x - c))


def rosen(x):
    return float((1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2)


def rosen_grad(x):
    return np.array([-2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] ** 2),
                     200 * (x[1] - x[0] ** 2)])


def himmelblau(x):
    return float((x[0] ** 2 + x[1] - 11) ** 2 + (x[0] + x[1] ** 2 - 7) ** 2)


def himmelblau_grad(x):
    a, b = x[0] ** 2 + x[1] - 11, x[0] + x[1] ** 2 - 7
    return np.array([4 * x[0] * a + 2 * b, 2 * a + 4 * x[1] * b])


def double_well(x):
    return float(x[0] ** 4 / 4 - x[0] ** 2 + 0.3 * x[0] + x[1] ** 2 + 0.5 * x[0] * x[1])


def double_well_grad(x):
    return np.array([x[0] ** 3 - 2 * x[0] + 0.3 + 0.5 * x[1], 2 * x[1] + 0.5 * x[0]])


class Counted:
    """Wraps fun/grad, counts calls and enforces 'grad only right after fun at the same x'."""

    def __init__(self, fun, grad):
        self._fun, self._grad = fun, grad
        self.n_fun = self.n_grad = 0
        self.last_call = None       # ("fun", x) or ("grad", x)
        self.violations = []

    def fun(self, x):
        self.n_fun += 1
        self.last_call = ("fun", np.array(x, dtype=float))
        return self._fun(np.array(x, dtype=float))

    def grad(self, x):
        self.n_grad += 1
        x = np.array(x, dtype=float)
        if self.last_call is None or self.last_call[0] != "fun" \
                or not np.array_equal(self.last_call[1], x):
            self.violations.append(x)
        self.last_call = ("grad", x)
        return self._grad(x)


def accepted(res):
    return [e for e in res.path if e["accepted"]]


# --------------------------------------------------------------------------------------------
# convergence to known minimisers
# --------------------------------------------------------------------------------------------
def test_convex_quadratic_inside_box_reaches_known_minimum():
    A = np.array([[3.0, 1.0, 0.2], [1.0, 2.0, -0.5], [0.2, -0.5, 1.5]])
    c = np.array([1.5, -2.0, 0.7])
    f, g = quadratic(A, c)
    res = minimize_projected_bfgs(f, g, np.zeros(3))
    assert isinstance(res, SearchResult)
    assert res.success
    np.testing.assert_allclose(res.x, c, atol=1e-5)
    assert res.fun == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(res.jac, g(res.x))


def test_rosenbrock_from_origin_reaches_one_one():
    res = minimize_projected_bfgs(rosen, rosen_grad, [0.0, 0.0], max_iter=200)
    assert res.success, res.message
    np.testing.assert_allclose(res.x, [1.0, 1.0], atol=1e-3)
    assert res.fun < 1e-6


def test_first_line_search_on_rosenbrock_by_hand():
    # At (0,0): ∇f = (−2, 0), H = I, p = (2, 0). λ = 1 gives a step of length 2 ≤ 2, so the
    # trials are (2,0), (1,0), (0.5,0), (0.25,0) with f = 1601, 101, 6.5, 0.953125; the first
    # one with f ≤ 1 + 1e-4·(−2)(2λ) is λ = 1/8, i.e. (0.25, 0).
    res = minimize_projected_bfgs(rosen, rosen_grad, [0.0, 0.0], max_iter=1)
    xs = [e["x"] for e in res.path]
    assert xs[:5] == [[0.0, 0.0], [2.0, 0.0], [1.0, 0.0], [0.5, 0.0], [0.25, 0.0]]
    assert [e["accepted"] for e in res.path[:5]] == [True, False, False, False, True]
    assert res.path[4]["value"] == pytest.approx(0.953125)
    assert res.nit == 1 and res.status == 4 and not res.success  # max_iter = 1 reached


def test_initial_step_length_is_capped_at_two():
    # f = ½‖x − (8,6)‖²: at 0, p = −∇f = (8, 6), ‖p‖ = 10. Largest λ ∈ {1, ½, ¼, …} with
    # ‖λp‖ ≤ 2 is 1/8, so the first trial point is (1, 0.75).
    c = np.array([8.0, 6.0])
    res = minimize_projected_bfgs(lambda x: 0.5 * float((x - c) @ (x - c)), lambda x: x - c,
                                  [0.0, 0.0])
    assert res.path[1]["x"] == [1.0, 0.75]
    assert res.path[1]["accepted"]
    np.testing.assert_allclose(res.x, c, atol=1e-5)


# --------------------------------------------------------------------------------------------
# the box
# --------------------------------------------------------------------------------------------
def test_minimum_outside_box_diagonal_stops_at_projection():
    # Separable f: the box-constrained minimiser is P(c) = (10, −3, −10).
    c = np.array([15.0, -3.0, -40.0])
    f, g = quadratic(np.diag([1.0, 2.0, 0.5]), c)
    res = minimize_projected_bfgs(f, g, np.zeros(3))
    assert res.message == BOUNDARY_MSG
    assert res.status == BOUNDARY and res.success
    np.testing.assert_allclose(res.x, [10.0, -3.0, -10.0], atol=1e-5)


def test_minimum_outside_box_coupled_stops_at_constrained_minimiser():
    # f = (x − c)ᵀA(x − c), c = (15, 3): with x₁ = 10 active,
    # ∂f/∂x₂ = 2(a₂₁(x₁−c₁) + a₂₂(x₂−c₂)) = 0 gives x₂ = c₂ − a₂₁(10 − c₁)/a₂₂ = 3 + 0.5·5 = 5.5,
    # and ∂f/∂x₁ < 0 there (points out).
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    c = np.array([15.0, 3.0])
    f, g = quadratic(A, c)
    res = minimize_projected_bfgs(f, g, [0.0, 0.0])
    assert res.message == BOUNDARY_MSG
    np.testing.assert_allclose(res.x, [10.0, 5.5], atol=1e-5)
    assert res.jac[0] < 0  # still points out of the box through x₁ = 10


def test_start_on_boundary_pointing_out_stops_at_once():
    f, g = quadratic(np.eye(2), [15.0, 0.0])
    res = minimize_projected_bfgs(f, g, [10.0, 0.0])
    assert res.message == BOUNDARY_MSG
    assert (res.nit, res.nfev, res.njev) == (0, 1, 1)


def test_stationary_start_stops_at_once():
    f, g = quadratic(np.eye(2), [1.0, 2.0])
    res = minimize_projected_bfgs(f, g, [1.0, 2.0])
    assert res.message == STATUS_MESSAGES[0] == "stationary point"
    assert (res.nit, res.nfev, res.njev) == (0, 1, 1)


def test_custom_box_array_bounds():
    f, g = quadratic(np.eye(2), [5.0, -5.0])
    res = minimize_projected_bfgs(f, g, [0.0, 0.0], lower=[-1.0, -2.0], upper=[1.0, 3.0])
    np.testing.assert_allclose(res.x, [1.0, -2.0], atol=1e-8)
    assert res.message == BOUNDARY_MSG


def _box_qp_exact(A, c, lo, up):
    """Exact minimiser of (x−c)ᵀA(x−c) over [lo, up]ⁿ by enumerating the 3ⁿ active sets and
    keeping the one that satisfies the KKT conditions (unique, A is positive definite)."""
    n = len(c)
    best = None
    for pattern in itertools.product((0, 1, 2), repeat=n):   # 0 free, 1 at lo, 2 at up
        x = np.where(np.array(pattern) == 1, lo, np.where(np.array(pattern) == 2, up, 0.0))
        free = np.array(pattern) == 0
        if free.any():
            # A_ff (x_f − c_f) = −A_fa (x_a − c_a)
            rhs = -A[np.ix_(free, ~free)] @ (x[~free] - c[~free])
            x[free] = c[free] + np.linalg.solve(A[np.ix_(free, free)], rhs)
        g = 2 * A @ (x - c)
        ok = np.all(x >= lo - 1e-12) and np.all(x <= up + 1e-12)
        ok &= np.all(np.abs(g[free]) < 1e-9)
        at_lo, at_up = np.array(pattern) == 1, np.array(pattern) == 2
        ok &= np.all(g[at_lo] >= -1e-9) and np.all(g[at_up] <= 1e-9)
        if ok:
            best = x
            break
    assert best is not None
    return best


def test_random_box_qps_reach_exact_constrained_minimiser():
    # Minimisers mostly outside the box: on the boundary H ≠ I often yields a zero projected
    # step or a clipped ascent step; the search must reset H rather than stop on a stale H.
    rng = np.random.default_rng(12345)
    for _ in range(30):
        n = int(rng.integers(2, 5))
        B = rng.normal(size=(n, n))
        A = B @ B.T + np.eye(n)
        c = rng.normal(scale=15.0, size=n)
        f, g = quadratic(A, c)
        x_star = _box_qp_exact(A, c, -10.0, 10.0)
        f_star = f(x_star)
        # Default tolerances: the relative-decrease test (ftol) may stop first, so compare values.
        res = minimize_projected_bfgs(f, g, np.zeros(n), max_iter=300)
        assert res.success, res.message
        assert res.fun - f_star <= 1e-8 * max(1.0, f_star)
        np.testing.assert_array_equal(np.abs(res.x) == 10.0, np.abs(x_star) == 10.0)
        # Without the step / decrease tests only the first-order stops remain.
        res = minimize_projected_bfgs(f, g, np.zeros(n), max_iter=500, xtol=0.0, ftol=0.0)
        assert res.success, res.message
        np.testing.assert_allclose(res.x, x_star, atol=1e-4)
        if np.any(np.abs(c) > 10):   # ∇f(x*) ≠ 0: x* is a boundary point, never "stationary"
            assert res.message != "stationary point"


# --------------------------------------------------------------------------------------------
# line-search rules checked on the path
# --------------------------------------------------------------------------------------------
PROBLEMS = {
    "rosenbrock": (rosen, rosen_grad, [0.0, 0.0], 200),
    "himmelblau": (himmelblau, himmelblau_grad, [0.0, 0.0], 100),
    "double_well": (double_well, double_well_grad, [0.0, 0.0], 100),
    "outside_box": (*quadratic(np.array([[2.0, 0.5], [0.5, 1.0]]), [15.0, 3.0]), [0.0, 0.0], 100),
    "far_corner": (*quadratic(np.array([[1.0, 0.9], [0.9, 1.0]]), [40.0, -35.0]), [9.0, 9.0], 100),
}


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_path_obeys_chung_rules(name):
    fun, grad, x0, max_iter = PROBLEMS[name]
    res = minimize_projected_bfgs(fun, grad, x0, max_iter=max_iter)
    acc = accepted(res)
    assert acc[0]["x"] == list(map(float, x0))
    assert len(acc) == res.nit + 1
    for prev, new in zip(acc, acc[1:]):
        d = np.subtract(new["x"], prev["x"])
        # sufficient decrease (4.6) with the projected step
        assert new["value"] <= prev["value"] + SIGMA1 * float(np.dot(prev["grad"], d))
        # step cap ‖P(x + λp) − x‖ ≤ 2
        assert np.linalg.norm(d) <= 2.0 + 1e-12
    for e in res.path:
        assert np.all(np.abs(e["x"]) <= 10.0)                  # every trial point in the box
        assert (e["grad"] is not None) == e["accepted"]
        np.testing.assert_allclose(e["value"], fun(np.array(e["x"])))
    times = [e["time_s"] for e in res.path]
    assert all(t >= 0 for t in times) and times == sorted(times)
    np.testing.assert_allclose(res.x, acc[-1]["x"])
    assert res.fun == acc[-1]["value"]
    np.testing.assert_allclose(res.jac, acc[-1]["grad"])


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_counts_and_grad_only_after_fun(name):
    fun, grad, x0, max_iter = PROBLEMS[name]
    c = Counted(fun, grad)
    calls = []
    res = minimize_projected_bfgs(c.fun, c.grad, x0, max_iter=max_iter,
                                  callback=lambda xk, fk: calls.append((xk.copy(), fk)))
    assert res.nfev == c.n_fun == len(res.path)
    assert res.njev == c.n_grad == res.nit + 1     # Chung Table 4.1: #grad = #iter (+ start)
    assert c.violations == []
    assert len(calls) == res.nit
    for (xk, fk), e in zip(calls, accepted(res)[1:]):
        np.testing.assert_array_equal(xk, e["x"])
        assert fk == e["value"]


# --------------------------------------------------------------------------------------------
# H stays positive definite on nonconvex functions (yᵀs ≤ 0 occurs)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fun,grad,minima", [
    (himmelblau, himmelblau_grad,
     [(3.0, 2.0), (-2.805118, 3.131312), (-3.779310, -3.283186), (3.584428, -1.848126)]),
    (double_well, double_well_grad, None),
])
def test_nonconvex_descends_with_positive_definite_H(fun, grad, minima):
    res = minimize_projected_bfgs(fun, grad, [0.0, 0.0])
    acc = accepted(res)
    xs = np.array([e["x"] for e in acc])
    gs = np.array([e["grad"] for e in acc])
    s, y = np.diff(xs, axis=0), np.diff(gs, axis=0)
    ys = np.einsum("ij,ij->i", y, s)
    assert np.any(ys <= 0), "test function should produce a step with yᵀs <= 0"
    values = [e["value"] for e in acc]
    assert all(b < a for a, b in zip(values, values[1:]))   # strictly decreasing
    # every step is a descent step ∇f(x_k)ᵀs_k < 0 (p = −H∇f with H positive definite)
    assert np.all(np.einsum("ij,ij->i", gs[:-1], s) < 0)
    H = res.hess_inv
    np.testing.assert_allclose(H, H.T, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(H) > 0)
    assert res.success
    assert np.linalg.norm(res.jac) < 1e-3
    if minima is not None:
        assert min(np.linalg.norm(res.x - np.array(m)) for m in minima) < 1e-4


def test_bfgs_update_secant_equation_and_skip():
    rng = np.random.default_rng(0)
    B = rng.normal(size=(3, 3))
    H = B @ B.T + np.eye(3)
    s = np.array([1.0, -2.0, 0.5])
    y = s + 0.1 * rng.normal(size=3)
    assert y @ s > 0
    H1, updated = bfgs_inverse_update(H, s, y)
    assert updated
    np.testing.assert_allclose(H1 @ y, s, atol=1e-12)       # secant equation H₊y = s
    assert np.all(np.linalg.eigvalsh(H1) > 0)
    H2, updated = bfgs_inverse_update(H, s, -y)              # yᵀs < 0: H kept
    assert not updated and H2 is H
    H3, updated = bfgs_inverse_update(H, s, np.array([s[1], -s[0], 0.0]))  # yᵀs = 0
    assert not updated and H3 is H


# --------------------------------------------------------------------------------------------
# other stops
# --------------------------------------------------------------------------------------------
def test_line_search_failure_with_wrong_gradient():
    # grad has the wrong sign, so p points uphill and (4.6) can never hold: 1 + 5 trials.
    res = minimize_projected_bfgs(lambda x: float(x @ x), lambda x: -2.0 * x, [1.0, 0.0],
                                  max_backtracks=5)
    assert res.message == "line search failed"
    assert not res.success
    assert (res.nit, res.nfev, res.njev) == (0, 7, 1)
    np.testing.assert_array_equal(res.x, [1.0, 0.0])


def test_max_iter():
    res = minimize_projected_bfgs(rosen, rosen_grad, [0.0, 0.0], max_iter=3)
    assert res.nit == 3 and not res.success
    assert res.message == "maximum number of iterations reached"


def test_small_step_stop():
    # With xtol = 10 every accepted step (≤ 2 long) counts as small.
    f, g = quadratic(np.eye(2), [3.0, 4.0])
    res = minimize_projected_bfgs(f, g, [0.0, 0.0], xtol=10.0)
    assert res.message == "converged (small step)" and res.success and res.nit == 1


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------
def _f(x):
    return float(x @ x)


def _g(x):
    return 2 * x


def test_x0_outside_box_raises():
    with pytest.raises(ValueError, match=r"x0.*outside the box.*x0\[1\].*\[-10\.0, 10\.0\]"):
        minimize_projected_bfgs(_f, _g, [0.0, 11.0])
    with pytest.raises(ValueError, match=r"x0\[0\].*\[0\.0, 1\.0\]"):
        minimize_projected_bfgs(_f, _g, [-0.5, 0.5], lower=0.0, upper=1.0)


def test_empty_box_raises():
    with pytest.raises(ValueError, match=r"lower\[0\].*>= upper\[0\]"):
        minimize_projected_bfgs(_f, _g, [0.0, 0.0], lower=1.0, upper=1.0)
    with pytest.raises(ValueError, match=r"lower\[1\].*>= upper\[1\]"):
        minimize_projected_bfgs(_f, _g, [0.0, 0.0], lower=[-1.0, 2.0], upper=[1.0, 1.0])


def test_nonfinite_x0_raises():
    with pytest.raises(ValueError, match=r"x0.*finite.*x0\[1\]"):
        minimize_projected_bfgs(_f, _g, [0.0, np.nan])
    with pytest.raises(ValueError, match=r"x0.*finite.*x0\[0\]"):
        minimize_projected_bfgs(_f, _g, [np.inf, 0.0])


def test_nonfinite_trial_values_are_rejected():
    # f = (x − 1)² but the "solver fails" (inf) for x ≥ 1.2. From 0: ∇f = −2, p = 2, λ = 1
    # gives the trial x = 2 (f = inf, rejected), then λ = ½ gives x = 1, the minimiser.
    def fun(x):
        return float((x[0] - 1) ** 2) if x[0] < 1.2 else np.inf

    def grad(x):
        return 2 * (x - 1)

    res = minimize_projected_bfgs(fun, grad, [0.0])
    assert [e["x"] for e in res.path] == [[0.0], [2.0], [1.0]]
    assert [e["accepted"] for e in res.path] == [True, False, True]
    assert res.path[1]["value"] == np.inf
    assert res.success and res.x[0] == 1.0 and res.message == "stationary point"


def test_max_fev_budget_stops_at_the_last_accepted_point():
    """With a budget of k evaluations: at most k calls of fun, status MAX_FEV, and the result
    is the last accepted point of the path (the lowest accepted value)."""
    from svmbound.search.bfgs import MAX_FEV

    calls = []

    def f(x):
        calls.append(1)
        return rosen(x)

    full = minimize_projected_bfgs(rosen, rosen_grad, [-1.2, 1.0], -5.0, 5.0)
    assert full.nfev > 6
    res = minimize_projected_bfgs(f, rosen_grad, [-1.2, 1.0], -5.0, 5.0, max_fev=6)
    assert len(calls) == res.nfev <= 6
    assert res.status == MAX_FEV and not res.success
    accepted = [e for e in res.path if e["accepted"]]
    np.testing.assert_array_equal(res.x, accepted[-1]["x"])
    assert res.fun == min(e["value"] for e in accepted)
    with pytest.raises(ValueError, match="max_fev"):
        minimize_projected_bfgs(rosen, rosen_grad, [0.0, 0.0], max_fev=0)


def test_quadratic_backtrack_factor_is_the_minimiser_of_the_interpolant():
    from svmbound.search.bfgs import backtrack_factor

    # φ(t) = 1 − 2t + 5t²: φ(0) = 1, φ'(0) = −2, φ(1) = 4; minimiser t = 2 / 10 = 0.2
    assert backtrack_factor("quadratic", 0.5, 1.0, -2.0, 4.0) == pytest.approx(0.2)
    assert backtrack_factor("quadratic", 0.5, 1.0, -2.0, 1e6) == 0.1       # safeguard below
    assert backtrack_factor("quadratic", 0.5, 1.0, -2.0, -0.5) == 0.5      # and above
    assert backtrack_factor("quadratic", 0.5, 1.0, -2.0, np.inf) == 0.5    # not finite: γ
    assert backtrack_factor("quadratic", 0.5, 1.0, -2.0, np.nan) == 0.5
    assert backtrack_factor("halve", 0.5, 1.0, -2.0, 4.0) == 0.5


def test_quadratic_backtracking_needs_fewer_trials_when_the_first_step_overshoots():
    """f(x) = 100 (x − 0.9)² from 1: the gradient step, capped at length 2 (λ = 1/16), lands at
    −0.25, far beyond the minimum; halving needs three more trials (λ = 1/32, 1/64, 1/128),
    the interpolation one (t clipped to 0.1); both end at the minimiser."""
    def fun(x):
        return float(100.0 * (x[0] - 0.9) ** 2)

    def grad(x):
        return np.array([200.0 * (x[0] - 0.9)])

    runs = {how: minimize_projected_bfgs(fun, grad, [1.0], -10.0, 10.0, gtol=1e-8,
                                         backtrack=how)
            for how in ("halve", "quadratic")}
    for res in runs.values():
        assert res.success and res.x[0] == pytest.approx(0.9, abs=1e-6)
    first = {how: next(i for i, e in enumerate(r.path[1:], 1) if e["accepted"])
             for how, r in runs.items()}
    assert first == {"halve": 4, "quadratic": 2}, first
    assert runs["quadratic"].nfev < runs["halve"].nfev


def test_backtrack_must_be_known():
    with pytest.raises(ValueError, match="backtrack must be one of 'halve', 'quadratic'"):
        minimize_projected_bfgs(lambda x: float(x @ x), lambda x: 2 * x, [1.0],
                                backtrack="cubic")


def test_one_minimize_entry_point_for_every_search():
    """search.minimize: gradient methods, the grid and annealing through one call; an unknown
    method or option is refused by name; gtol is relative to |f(x0)| for every gradient
    method."""
    from svmbound.search.minimize import minimize
    from svmbound.search.space import SearchSpace

    def f(x):
        return float((x[0] - 1.0) ** 2 + 2.0 * (x[1] + 0.5) ** 2 + 3.0)

    def g(x):
        return np.array([2.0 * (x[0] - 1.0), 4.0 * (x[1] + 0.5)])

    box = (np.array([-4.0, -4.0]), np.array([4.0, 4.0]))
    for method in ("bfgs", "lbfgsb", "projected-gradient"):
        res = minimize(f, np.array([3.0, 2.0]), box, jac=g, method=method,
                       options={"gtol": 1e-8, "max_iter": 500})
        np.testing.assert_allclose(res.x, [1.0, -0.5], atol=1e-3)

    from sklearn.datasets import make_classification

    from svmbound.criteria import Problem, make_criterion
    from svmbound.kernels import RBFKernel
    from svmbound.search import minimize_grid

    X, y = make_classification(n_samples=40, n_features=3, n_redundant=0, random_state=0)
    y = np.where(y > 0, 1.0, -1.0)
    axes = [np.arange(-2.0, 3.0), np.arange(-1.0, 2.0)]
    res = minimize(make_criterion("rm-l2", Problem(X, y), RBFKernel()), None, box, method="grid",
                   options={"axes": axes})
    ref = minimize_grid(make_criterion("rm-l2", Problem(X, y), RBFKernel()), *axes)
    np.testing.assert_array_equal(res.x, ref.x)
    assert res.fun == ref.fun and res.nfev == 15
    space = SearchSpace.from_bounds({"a": (-4.0, 4.0), "b": (-4.0, 4.0)})
    res = minimize(f, None, box, method="annealing",
                   options={"space": space, "max_epochs": 60, "random_state": 0})
    assert res.fun < f(np.zeros(2))
    with pytest.raises(ValueError, match="method must be one of"):
        minimize(f, np.zeros(2), box, jac=g, method="newton")
    with pytest.raises(ValueError, match=r"unknown options \['axes'\] of method 'bfgs'"):
        minimize(f, np.zeros(2), box, jac=g, options={"axes": []})
    with pytest.raises(ValueError, match="needs the gradient jac"):
        minimize(f, np.zeros(2), box, method="lbfgsb")
