"""Simulated annealing (Acevedo et al. §3) and the search space it runs over."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler

from svmbound.criteria import make_criterion
from svmbound.kernels import PolynomialKernel, RBFKernel
from svmbound.search.annealing import (acceptance_probability, cooling_constant,
                                       minimize_annealing, neighbour_step, temperature)
from svmbound.search.grid import evaluate_grid, grid_range
from svmbound.search.space import Param, SearchSpace, criterion_objective
from svmbound.solvers import Problem


def quadratic(z):
    """f(x, d) = (x − 1.3)² + (d − 4)², minimum 0 at x = 1.3, d = 4."""
    return (z[0] - 1.3) ** 2 + (z[1] - 4.0) ** 2


QUAD_SPACE = SearchSpace([Param("x", -5, 5), Param("d", 1, 10, integer=True)])


@pytest.fixture(scope="module")
def small_svm():
    """80 × 5 overlapping classes (10 % flipped labels), standardised."""
    X, y = make_classification(n_samples=80, n_features=5, n_informative=3, flip_y=0.1,
                               random_state=1)
    return np.ascontiguousarray(StandardScaler().fit_transform(X)), np.where(y == 1, 1.0, -1.0)


def _paths_equal(a, b):
    return ([(e["x"], e["value"], e["accepted"]) for e in a.path]
            == [(e["x"], e["value"], e["accepted"]) for e in b.path])


# -- the formulas -------------------------------------------------------------------------------
def test_neighbour_step_is_acevedo_8():
    ranges = np.array([10.0, 2.0])
    u = np.array([0.9, 0.2])
    for T in (1e-4, 0.3, 1.0, 50.0):
        expected = (np.sign(u - 0.5) * T * ((1 + 1 / T) ** np.abs(2 * u - 1) - 1) * ranges)
        np.testing.assert_allclose(neighbour_step(u, T, ranges), expected, rtol=1e-12)
    # |y_j| ≤ Range_j, equality at u ∈ {0, 1}; nearly uniform (2u − 1)·Range at high T
    np.testing.assert_allclose(neighbour_step(np.array([0.0, 1.0]), 0.01, ranges), [-10.0, 2.0])
    np.testing.assert_allclose(neighbour_step(u, 1e9, ranges), (2 * u - 1) * ranges, rtol=1e-6)
    # small steps dominate at low temperature
    rng = np.random.default_rng(0)
    steps = np.abs(neighbour_step(rng.uniform(size=10000), 1e-4, 1.0))
    assert np.all(steps <= 1.0) and np.median(steps) < 0.02


def test_acceptance_and_cooling():
    assert acceptance_probability(1.0, 2.0, 0.5) == 1.0
    assert acceptance_probability(3.0, 2.0, 0.5) == pytest.approx(np.exp(-2.0))
    assert acceptance_probability(np.nan, 2.0, 0.5) == 0.0
    h = cooling_constant(3, 50, 1e-4)
    assert temperature(0, 7.0, h, 3) == pytest.approx(7.0)
    assert temperature(50, 7.0, h, 3) == pytest.approx(7.0e-4)   # T(K) = T_f = T0·1e-4


def test_schedule_and_bookkeeping():
    calls = []

    def f(z):
        calls.append(z.copy())
        return quadratic(z)

    K = 60
    r = minimize_annealing(f, QUAD_SPACE, max_epochs=K, random_state=3)
    assert r.nit == K and len(r.path) == K + 1
    assert r.nfev == len(calls) and r.nfev + r.n_cache_hits == K + 1
    assert r.n_cache_hits > 0                      # the rounded degree makes repeats likely
    assert r.T0 == pytest.approx(r.path[0]["value"]) and r.Tf == pytest.approx(1e-4 * r.T0)
    assert r.path[-1]["T"] == pytest.approx(r.T0 * 1e-4 ** ((K - 1) / K))
    values = np.array([e["value"] for e in r.path])
    assert r.fun == values.min() and r.x.tolist() == r.path[int(values.argmin())]["x"]
    for e in r.path:
        assert QUAD_SPACE.contains(e["x"]) and float(e["x"][1]).is_integer()
    assert r.n_accepted == sum(e["accepted"] for e in r.path[1:])
    assert isinstance(r.params["d"], int)


def test_variants_stay_in_box_and_are_reproducible():
    sp = SearchSpace([Param("x", -1, 1), Param("d", 1, 4, integer=True)])
    for nt in ("absolute", "relative"):
        a = minimize_annealing(quadratic, sp, max_epochs=40, random_state=2, boundary="resample",
                               neighbour_temperature=nt)
        b = minimize_annealing(quadratic, sp, max_epochs=40, random_state=2, boundary="resample",
                               neighbour_temperature=nt)
        assert _paths_equal(a, b) and all(sp.contains(e["x"]) for e in a.path)
    # 'relative' uses T/T0 in (8): multiplying f by a constant leaves the path unchanged
    r1 = minimize_annealing(quadratic, QUAD_SPACE, max_epochs=40, random_state=4,
                            neighbour_temperature="relative")
    r2 = minimize_annealing(lambda z: 1e6 * quadratic(z), QUAD_SPACE, max_epochs=40,
                            random_state=4, neighbour_temperature="relative")
    assert [e["x"] for e in r1.path] == [e["x"] for e in r2.path]
    with pytest.raises(ValueError, match="boundary"):
        minimize_annealing(quadratic, sp, max_epochs=5, boundary="wrap")
    with pytest.raises(ValueError, match="neighbour_temperature"):
        minimize_annealing(quadratic, sp, max_epochs=5, neighbour_temperature="hot")


def test_nonpositive_start_value_temperature():
    sp = SearchSpace([Param("x", -1, 1)])
    r = minimize_annealing(lambda z: -3.0 + 0 * z[0], sp, max_epochs=3, random_state=0)
    assert r.T0 == 3.0                                       # |f0|
    r = minimize_annealing(lambda z: 0.0 * z[0], sp, max_epochs=3, random_state=0)
    assert r.T0 == 1.0                                       # f0 = 0
    r = minimize_annealing(lambda z: 0.0 * z[0], sp, max_epochs=3, random_state=0, T0=5.0)
    assert r.T0 == 5.0


# -- reproducibility ----------------------------------------------------------------------------
def test_same_seed_same_path_different_seed_different_path(small_svm):
    a = minimize_annealing(quadratic, QUAD_SPACE, max_epochs=80, random_state=7)
    b = minimize_annealing(quadratic, QUAD_SPACE, max_epochs=80, random_state=7)
    c = minimize_annealing(quadratic, QUAD_SPACE, max_epochs=80, random_state=8)
    assert _paths_equal(a, b) and not _paths_equal(a, c)
    g = minimize_annealing(quadratic, QUAD_SPACE, max_epochs=80,
                           random_state=np.random.default_rng(7))
    h = minimize_annealing(quadratic, QUAD_SPACE, max_epochs=80,
                           random_state=np.random.default_rng(7))
    assert _paths_equal(g, h)

    # the same on a criterion (fresh criterion per run: warm starts depend on the history)
    X, y = small_svm
    sp = SearchSpace([Param("log_C", -5, 5), Param("log_sigma2", -5, 5)])

    def run(seed):
        crit = make_criterion("rm-l1-3.2", Problem(X, y), RBFKernel(), tol=1e-6)
        return minimize_annealing(criterion_objective(crit, sp), sp, max_epochs=25,
                                  random_state=seed)

    r1, r2, r3 = run(11), run(11), run(12)
    assert _paths_equal(r1, r2) and not _paths_equal(r1, r3)


# -- finding minima -----------------------------------------------------------------------------
def test_finds_minimum_with_integer_coordinate():
    found = 0
    for seed in range(10):
        r = minimize_annealing(quadratic, QUAD_SPACE, max_epochs=300, random_state=seed)
        found += abs(r.x[0] - 1.3) <= 0.1 and r.x[1] == 4.0 and r.fun <= 0.01
    assert found >= 9, found


def test_svm_nondifferentiable_bound_reaches_grid_minimum(small_svm):
    """Acevedo's L1BOUND2 (R² + 1/C)eᵀα over ln C, ln σ² ∈ [−5, 5]: the annealing's best value
    is within 1 % of the minimum of a 0.25-step grid in at least 7 of 10 seeds.

    This landscape has a narrow valley around an interior minimum: with Acevedo's schedule the
    success rate is ~2/10 at 100 epochs, ~1–2/10 at 200, 45 % at 300, 62 % at 400 and 82 % at 600
    (40 seeds; seeds 0–9 at 600 epochs: 9/10), hence 600 epochs here."""
    X, y = small_svm
    axis = grid_range(-5, 5, 0.25)
    grid = evaluate_grid(make_criterion("rm-l1-3.2", Problem(X, y), RBFKernel(), tol=1e-6),
                         axis, axis)
    f_grid = float(np.nanmin(grid.values))
    sp = SearchSpace([Param("log_C", -5, 5), Param("log_sigma2", -5, 5)])
    ok = 0
    for seed in range(10):
        crit = make_criterion("rm-l1-3.2", Problem(X, y), RBFKernel(), tol=1e-6)
        r = minimize_annealing(criterion_objective(crit, sp), sp, max_epochs=EPOCHS_SVM,
                               random_state=seed)
        ok += r.fun <= 1.01 * f_grid
    assert ok >= 7, ok


EPOCHS_SVM = 600


def test_polynomial_space_with_degree(small_svm):
    X, y = small_svm
    sp = SearchSpace([Param("log_C", -3, 3), Param("coef0", 0, 3), Param("degree", 1, 5)])
    assert sp.integer.tolist() == [False, False, True]      # 'degree' is always integer
    crit = make_criterion("rm-l1-3.2", Problem(X, y), PolynomialKernel(degree=2), tol=1e-6)
    obj = criterion_objective(crit, sp)
    r = minimize_annealing(obj, sp, max_epochs=30, random_state=0)
    d = r.params["degree"]
    assert isinstance(d, int) and 1 <= d <= 5 and r.x[2] == d
    assert len({e["x"][2] for e in r.path}) > 1                # several degrees were visited
    # the best value is the criterion's value there, computed from scratch (R² is recomputed
    # when only the degree changes)
    theta = obj.apply(r.x)
    assert crit.kernel.degree == d and obj.kernel_at(r.x).get_params() == {
        "degree": d, "coef0": pytest.approx(r.x[1])}
    fresh = make_criterion("rm-l1-3.2", Problem(X, y), PolynomialKernel(degree=d), tol=1e-6)
    assert fresh.evaluate(theta, need_grad=False).value == pytest.approx(r.fun, rel=1e-4)
    # also with the L2 radius-margin bound
    crit2 = make_criterion("rm-l2", Problem(X, y), PolynomialKernel(degree=2), tol=1e-6)
    r2 = minimize_annealing(criterion_objective(crit2, sp), sp, max_epochs=10, random_state=1)
    assert isinstance(r2.params["degree"], int) and np.isfinite(r2.fun)


# -- bad input ----------------------------------------------------------------------------------
def test_bad_input():
    with pytest.raises(ValueError, match="log_C.*lower 2.0 must be < upper 1.0"):
        Param("log_C", 2, 1)
    with pytest.raises(ValueError, match="log_sigma2"):
        Param("log_sigma2", 3, 3)
    with pytest.raises(ValueError, match="degree range 0..5 is outside 1..20"):
        Param("degree", 0, 5)
    with pytest.raises(ValueError, match="degree range 2..25 is outside 1..20"):
        SearchSpace.from_bounds({"degree": (2, 25)})
    with pytest.raises(ValueError, match="integer"):
        Param("k", 1.5, 4, integer=True)
    with pytest.raises(ValueError, match="finite"):
        Param("log_C", -np.inf, 1)
    with pytest.raises(ValueError, match="finite"):
        Param("log_C", 0, np.nan)
    with pytest.raises(ValueError, match="duplicate"):
        SearchSpace([Param("a", 0, 1), Param("a", 0, 2)])
    for epochs in (0, -3, 2.5):
        with pytest.raises(ValueError, match="epochs must be"):
            minimize_annealing(quadratic, QUAD_SPACE, max_epochs=epochs)
    with pytest.raises(ValueError, match="finite"):
        minimize_annealing(lambda z: np.nan, QUAD_SPACE, max_epochs=5)


def test_space_must_match_criterion(small_svm):
    X, y = small_svm
    crit = make_criterion("rm-l1-3.2", Problem(X, y), RBFKernel(), tol=1e-6)
    with pytest.raises(ValueError, match="missing.*log_sigma2"):
        criterion_objective(crit, SearchSpace([Param("log_C", -1, 1)]))
    with pytest.raises(ValueError, match="polynomial"):
        criterion_objective(crit, SearchSpace([Param("log_C", -1, 1), Param("log_sigma2", -1, 1),
                                               Param("degree", 1, 3)]))


def test_space_points():
    sp = SearchSpace.from_bounds({"log_C": (-10, 10), "coef0": (0, 3), "degree": (1, 10)})
    rng = np.random.RandomState(0)
    pts = np.array([sp.random_point(rng) for _ in range(2000)])
    assert np.all(pts >= sp.lower) and np.all(pts <= sp.upper)
    assert set(pts[:, 2]) == set(range(1, 11))               # every degree, whole numbers only
    assert sp.clip([12.0, -1.0, 3.6]).tolist() == [10.0, 0.0, 4.0]
    assert sp.ranges.tolist() == [20.0, 3.0, 9.0]
