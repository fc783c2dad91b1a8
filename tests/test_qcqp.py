"""De Bie, Lanckriet & Cristianini (2003): convex tuning of C for the L2-SVM.

Every expected value is computed here independently of the code under test: the criterion
V(γ) = max_{α ≥ 0, yᵀα = 0} eᵀα − ½αᵀG((1 − γ)K/r + γI/l)α (De Bie eq. 3) is evaluated by
scipy's SLSQP on an explicit Gram matrix and minimised by brute force over a dense γ grid; PSD
limits are checked with numpy's eigvalsh; the γ ↔ C mapping against the definition
(K + I/C)/trace(K + I/C); and the optimum against the L2-SVM solved at nearby values of C.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

from svmbound.kernels import LinearKernel, RBFKernel
from svmbound.search.convex_c import tune_c_convex
from svmbound.search.result import SearchResult
from svmbound.kernels import PrecomputedKernel
from svmbound.solvers import solve_svm_dual
from svmbound.solvers.qcqp import (ConvexCResult, C_to_gamma, gamma_to_C, psd_gamma_range,
                                   solve_convex_c)


# --------------------------------------------------------------------------------------------
# problems
# --------------------------------------------------------------------------------------------
def _interior(n=40):
    """Overlapping classes, RBF σ² = 1: optimum 0 < γ < 1 and λ_min(K) ≈ 0.026 > 0."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y, RBFKernel(1.0).block(X)


def _reduced(n=40, seed=2, sigma2=0.5):
    """Diagonally dominant RBF (σ² = 0.5 in 5-D): the general optimum is at γ_min < γ < 0
    (≈ −0.30), the unit one at γ = 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y, RBFKernel(sigma2).block(X)


def _at_gamma_min(n=40):
    """Even more diagonally dominant (σ² = 0.25): the general optimum is the end γ_min."""
    return _reduced(n, seed=4, sigma2=0.25)


def _flat(n=40):
    """K ≈ eeᵀ (constant kernel + 1e-2 linear) and labels unrelated to it: K only hurts, so
    the unit optimum is γ = 1 (C = 0) and the general one γ > 1."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y, np.ones((n, n)) + 1e-2 * LinearKernel().block(X)


def _separated(n=40):
    """Two tight, distant clusters with an RBF kernel: the hard margin is best, γ = 0, C = ∞."""
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(size=(n // 2, 2)) * 0.1 + [3, 0],
              rng.normal(size=(n // 2, 2)) * 0.1 - [3, 0]]
    y = np.r_[np.ones(n // 2), -np.ones(n // 2)]
    return X, y, RBFKernel(1.0).block(X)


def _kernel_at(K, gamma):
    l, r = K.shape[0], np.trace(K)
    return (1.0 - gamma) * K / r + gamma * np.eye(l) / l


def v_reference(K, y, gamma):
    """V(γ) by SLSQP on the hard-margin dual with the explicit Gram matrix K_γ."""
    G = y[:, None] * _kernel_at(K, gamma) * y[None, :]
    l = K.shape[0]
    a0 = np.ones(l)
    for ftol in (1e-14, 1e-12):   # SLSQP sometimes stalls exactly at the optimum (status 8):
        res = minimize(lambda a: 0.5 * a @ G @ a - a.sum(), a0, jac=lambda a: G @ a - 1.0,
                       method="SLSQP", bounds=[(0.0, None)] * l,
                       constraints=[{"type": "eq", "fun": lambda a: y @ a, "jac": lambda a: y}],
                       options={"ftol": ftol, "maxiter": 2000})
        if res.success:
            break
        a0 = res.x                # restart from where it stopped
    assert res.success, res.message
    return -float(res.fun)


def brute_force(K, y, lo, hi, n_coarse=61, n_fine=41):
    """min over a dense grid of γ in [lo, hi], refined around the best coarse point."""
    grid = np.linspace(lo, hi, n_coarse)
    vals = np.array([v_reference(K, y, g) for g in grid])
    k = int(np.argmin(vals))
    h = grid[1] - grid[0]
    fine = np.linspace(max(lo, grid[k] - h), min(hi, grid[k] + h), n_fine)
    fvals = np.array([v_reference(K, y, g) for g in fine])
    j = int(np.argmin(fvals))
    return fine[j], fvals[j], fine[1] - fine[0]


def v_from_C(K, y, C):
    """V via the original L2-SVM: V = (r + l/C) · W_L2(K, C) (kernel scaling, De Bie §2)."""
    l, r = K.shape[0], np.trace(K)
    sol = solve_svm_dual(np.ascontiguousarray(K), y, PrecomputedKernel(), C, loss="l2", tol=1e-10)
    return (r + l / C) * sol.objective, sol


@pytest.fixture(scope="module", autouse=True)
def _single_threaded_blas():
    """Small BLAS calls with 2 OpenBLAS threads on a busy 2-core machine ran ~10× slower
    (the SLSQP brute force took 23 s instead of 2.5 s): keep this module's runtime stable."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.fixture(scope="module")
def interior():
    return _interior()


@pytest.fixture(scope="module")
def brute_interior(interior):
    _, y, K = interior
    return brute_force(K, y, 0.0, 1.0)


# --------------------------------------------------------------------------------------------
# the γ ↔ C mapping
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("C", [1e-4, 0.03, 1.0, 7.5, 1e3, 1e6])
def test_mapping_round_trip_and_definition(interior, C):
    _, _, K = interior
    l, r = K.shape[0], np.trace(K)
    g = C_to_gamma(C, r, l)
    assert 0.0 < g < 1.0
    assert gamma_to_C(g, r, l) == pytest.approx(C, rel=1e-12)
    # the re-parameterisation of De Bie §2: (K + I/C)/trace(K + I/C) = (1 − γ)K/r + γI/l
    lhs = (K + np.eye(l) / C) / np.trace(K + np.eye(l) / C)
    np.testing.assert_allclose(lhs, _kernel_at(K, g), rtol=0, atol=1e-15)


def test_mapping_special_values():
    assert gamma_to_C(0.0, 10.0, 10) == math.inf
    assert C_to_gamma(math.inf, 10.0, 10) == 0.0
    assert gamma_to_C(1.0, 10.0, 10) == 0.0
    assert C_to_gamma(0.0, 10.0, 10) == 1.0
    # outside [0, 1]: a negative C (reduced space, or negative weight on K), still invertible
    for g in (-0.3, 1.2):
        C = gamma_to_C(g, 7.0, 20)
        assert C < 0
        assert C_to_gamma(C, 7.0, 20) == pytest.approx(g, rel=1e-12)
    for g in (0.1, 0.5, 0.99):
        assert C_to_gamma(gamma_to_C(g, 3.0, 11), 3.0, 11) == pytest.approx(g, rel=1e-12)


# --------------------------------------------------------------------------------------------
# the PSD interval of De Bie §3.1
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [_interior, _reduced, _at_gamma_min])
def test_psd_gamma_range(make):
    _, _, K = make()
    lam = np.linalg.eigvalsh(K)
    l, r = K.shape[0], np.trace(K)
    gmin, gmax = psd_gamma_range(lam[0], lam[-1], r, l)
    assert gmin < 0.0 < 1.0 < gmax
    for g in (gmin, gmax):
        assert np.linalg.eigvalsh(_kernel_at(K, g))[0] >= -1e-9
        assert np.trace(_kernel_at(K, g)) == pytest.approx(1.0, rel=1e-12)
    # and the interval is the widest one: just outside, K_γ has a negative eigenvalue
    width = gmax - gmin
    assert np.linalg.eigvalsh(_kernel_at(K, gmin - 1e-3 * width))[0] < -1e-9
    assert np.linalg.eigvalsh(_kernel_at(K, gmax + 1e-3 * width))[0] < -1e-9


def test_general_result_reports_psd_interval(interior):
    _, y, K = interior
    lam = np.linalg.eigvalsh(K)
    res = solve_convex_c(K, y, gamma_range="general", method="interchange")
    assert res.gamma_min < 0.0 < 1.0 < res.gamma_max
    assert (res.gamma_min, res.gamma_max) == pytest.approx(
        psd_gamma_range(lam[0], lam[-1], np.trace(K), K.shape[0]), rel=1e-9)
    unit = solve_convex_c(K, y, gamma_range="unit", method="interchange")
    assert (unit.gamma_min, unit.gamma_max) == (0.0, 1.0)


def test_singular_kernel_has_gamma_min_zero():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))            # linear kernel of rank 2: λ_min = 0
    K = LinearKernel().block(X)
    lam = np.linalg.eigvalsh(K)
    gmin, gmax = psd_gamma_range(lam[0], lam[-1], np.trace(K), 30)
    assert gmin == 0.0 and gmax > 1.0


# --------------------------------------------------------------------------------------------
# against brute force
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["interchange", "qcqp"])
def test_unit_range_matches_brute_force(interior, brute_interior, method):
    if method == "qcqp":
        pytest.importorskip("cvxpy")
    _, y, K = interior
    g_bf, v_bf, h = brute_interior
    res = solve_convex_c(K, y, gamma_range="unit", method=method)
    assert isinstance(res, ConvexCResult) and res.method == method
    assert 0.0 < res.gamma < 1.0
    assert res.gamma == pytest.approx(g_bf, abs=h + 1e-4)
    # the grid minimum can only be above the true minimum, and only slightly
    assert res.objective <= v_bf * (1 + 1e-7)
    assert res.objective == pytest.approx(v_bf, rel=1e-6)
    assert res.objective == pytest.approx(v_reference(K, y, res.gamma), rel=1e-6)
    assert res.C == pytest.approx(K.shape[0] * (1 - res.gamma) / (res.gamma * np.trace(K)))
    assert res.note == ""


@pytest.fixture(scope="module")
def brute_reduced():
    _, y, K = _reduced()
    lam = np.linalg.eigvalsh(K)
    lo, hi = psd_gamma_range(lam[0], lam[-1], np.trace(K), K.shape[0])
    return brute_force(K, y, lo, hi, n_coarse=41, n_fine=21)


@pytest.mark.parametrize("method", ["interchange", "qcqp"])
def test_general_range_negative_gamma_matches_brute_force(brute_reduced, method):
    if method == "qcqp":
        pytest.importorskip("cvxpy")
    _, y, K = _reduced()
    res = solve_convex_c(K, y, gamma_range="general", method=method)
    g_bf, v_bf, h = brute_reduced
    assert g_bf < 0
    assert res.gamma == pytest.approx(g_bf, abs=h + 1e-4)
    assert res.objective == pytest.approx(v_bf, rel=1e-6)
    assert res.objective <= v_bf * (1 + 1e-7)
    assert res.C < 0 and "reduced feature space" in res.note


# --------------------------------------------------------------------------------------------
# the two methods agree
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [_interior, _reduced, _at_gamma_min, _flat, _separated])
@pytest.mark.parametrize("gamma_range", ["unit", "general"])
def test_qcqp_and_interchange_agree(make, gamma_range):
    pytest.importorskip("cvxpy")
    _, y, K = make()
    a = solve_convex_c(K, y, gamma_range=gamma_range, method="qcqp")
    b = solve_convex_c(K, y, gamma_range=gamma_range, method="interchange")
    assert a.objective == pytest.approx(b.objective, rel=1e-5)
    assert a.gamma == pytest.approx(b.gamma, abs=1e-3)
    assert (a.gamma_min, a.gamma_max) == pytest.approx((b.gamma_min, b.gamma_max), abs=1e-12)
    assert a.n_solves == 1 and b.n_solves > 1
    # both α solve eq. 3 at their γ (KKT of the hard-margin dual with kernel K_γ)
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=0, atol=1e-3 * b.alpha.max())


def test_qcqp_larger_problem_agrees():
    pytest.importorskip("cvxpy")
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 6))
    y = np.where(X[:, 0] - X[:, 1] + 0.7 * rng.normal(size=80) > 0, 1.0, -1.0)
    K = RBFKernel(6.0).block(X)
    a = solve_convex_c(K, y, method="qcqp")
    b = solve_convex_c(K, y, method="interchange")
    assert a.objective == pytest.approx(b.objective, rel=1e-6)
    assert a.gamma == pytest.approx(b.gamma, abs=1e-4)
    assert a.info["gamma_source"] == "duals"
    assert a.info["gamma_from_alpha"] == pytest.approx(a.gamma, abs=1e-3)


# --------------------------------------------------------------------------------------------
# ends of the interval
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["interchange", "qcqp"])
def test_hard_margin_optimum_gives_infinite_C(method):
    if method == "qcqp":
        pytest.importorskip("cvxpy")
    _, y, K = _separated()
    res = solve_convex_c(K, y, method=method)
    assert res.gamma == 0.0 and res.C == math.inf
    assert "hard-margin" in res.note
    # V is increasing at γ = 0: every interior γ is worse
    for g in (1e-3, 0.1, 0.5):
        assert v_reference(K, y, g) > res.objective
    assert res.objective == pytest.approx(v_reference(K, y, 0.0), rel=1e-6)


@pytest.mark.parametrize("method", ["interchange", "qcqp"])
def test_flat_kernel_gamma_one_and_above(method):
    if method == "qcqp":
        pytest.importorskip("cvxpy")
    _, y, K = _flat()
    unit = solve_convex_c(K, y, method=method)
    assert unit.gamma == 1.0 and unit.C == 0.0 and "weight zero" in unit.note
    assert unit.objective == pytest.approx(v_reference(K, y, 1.0), rel=1e-6)
    gen = solve_convex_c(K, y, gamma_range="general", method=method)
    assert gen.gamma > 1.0 and gen.C < 0 and "negative weight" in gen.note
    assert gen.objective < unit.objective
    assert gen.objective == pytest.approx(v_reference(K, y, gen.gamma), rel=1e-6)


def test_singular_nonseparable_kernel_interior_optimum():
    """Linear kernel in 2-D with overlapping classes: the hard margin is infeasible (V(0) = ∞),
    the optimum is interior and finite."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] + rng.normal(size=40) > 0, 1.0, -1.0)
    K = LinearKernel().block(X)
    res = solve_convex_c(K, y, method="interchange")
    assert 0.0 < res.gamma < 1.0 and np.isfinite(res.objective)
    assert res.objective == pytest.approx(v_reference(K, y, res.gamma), rel=1e-6)
    assert all(e["value"] >= res.objective * (1 - 1e-9) for e in res.path)


# --------------------------------------------------------------------------------------------
# the optimum as a C of the L2-SVM
# --------------------------------------------------------------------------------------------
def test_optimum_beats_nearby_C(interior):
    _, y, K = interior
    res = solve_convex_c(K, y, method="interchange")
    l, r = K.shape[0], np.trace(K)
    v_at, sol = v_from_C(K, y, res.C)
    assert v_at == pytest.approx(res.objective, rel=1e-7)
    # α of eq. 3 is the L2-SVM α scaled by the trace r + l/C
    np.testing.assert_allclose(res.alpha / (r + l / res.C), sol.alpha, rtol=0,
                               atol=1e-6 * sol.alpha.max())
    # V = ½ · trace(K + I/C) · ‖w̃‖², ‖w̃‖² = eᵀα at the L2 optimum
    assert res.objective == pytest.approx(0.5 * (r + l / res.C) * sol.alpha.sum(), rel=1e-7)
    for f in (0.3, 0.7, 0.9, 0.99, 1.01, 1.1, 1.5, 3.0):
        assert v_from_C(K, y, f * res.C)[0] >= res.objective * (1 - 1e-9)
    # strictly worse a bit further away
    assert v_from_C(K, y, 0.5 * res.C)[0] > res.objective
    assert v_from_C(K, y, 2.0 * res.C)[0] > res.objective


def test_interchange_path_is_consistent(interior):
    _, y, K = interior
    res = solve_convex_c(K, y, method="interchange", tol=1e-6)
    assert res.n_solves == len(res.path)
    assert min(e["value"] for e in res.path) == res.objective
    assert all(0.0 <= e["gamma"] <= 1.0 for e in res.path)
    # convexity in γ: V along the path sorted by γ is unimodal
    pts = sorted((e["gamma"], e["value"]) for e in res.path)
    vals = [v for _, v in pts]
    k = int(np.argmin(vals))
    assert all(np.diff(vals[: k + 1]) <= 1e-9 * res.objective)
    assert all(np.diff(vals[k:]) >= -1e-9 * res.objective)


# --------------------------------------------------------------------------------------------
# search-layer wrapper
# --------------------------------------------------------------------------------------------
def test_tune_c_convex_returns_search_result(interior):
    X, y, K = interior
    labels = np.where(y > 0, "pos", "neg")     # any two labels; "pos" sorts last ↦ +1
    out = tune_c_convex(X, labels, RBFKernel(1.0))
    ref = solve_convex_c(K, y, method="interchange")
    assert isinstance(out, SearchResult)
    assert out.x.shape == (1,)
    assert out.x[0] == pytest.approx(math.log(ref.C), abs=1e-6)
    assert out.fun == pytest.approx(ref.objective, rel=1e-9)
    assert out.nfev == out.convex.n_solves == len(out.path)
    assert out.njev == 0 and out.success and out.jac is None
    assert isinstance(out.convex, ConvexCResult)
    acc = out.accepted_path()
    assert len(acc) == 1 and acc[0]["value"] == out.fun
    assert acc[0]["x"][0] == pytest.approx(out.x[0], rel=1e-12)
    for e in out.path:
        assert e["x"][0] == pytest.approx(math.log(gamma_to_C(e["gamma"], np.trace(K), 40)))


def test_tune_c_convex_qcqp_and_infinite_C():
    pytest.importorskip("cvxpy")
    X, y, _ = _separated()
    out = tune_c_convex(X, y, RBFKernel(1.0), method="qcqp")
    assert math.isnan(out.x[0]) and out.convex.C == math.inf
    assert out.nfev == 1 and len(out.path) == 1
    assert "not a finite positive C" in out.message


# --------------------------------------------------------------------------------------------
# bad inputs
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, match", [
    ({"gamma_range": "positive"}, "unknown gamma_range 'positive'"),
    ({"method": "sdp"}, "unknown method 'sdp'"),
    ({"tol": 0.0}, "tol must be a finite number > 0"),
    ({"tol": "x"}, "tol must be a number"),
])
def test_bad_options(interior, kwargs, match):
    _, y, K = interior
    with pytest.raises(ValueError, match=match):
        solve_convex_c(K, y, **kwargs)


def test_bad_inputs(interior):
    _, y, K = interior
    with pytest.raises(ValueError, match="square"):
        solve_convex_c(K[:, :-1], y)
    with pytest.raises(ValueError, match="square"):
        solve_convex_c(K.ravel(), y)
    with pytest.raises(ValueError, match="different lengths"):
        solve_convex_c(K, y[:-1])
    with pytest.raises(ValueError, match=r"only -1 and \+1"):
        solve_convex_c(K, (y + 1) / 2)
    with pytest.raises(ValueError, match="single class"):
        solve_convex_c(K, np.ones_like(y))
    with pytest.raises(ValueError, match="not symmetric"):
        Kb = K.copy()
        Kb[0, 1] += 0.1
        solve_convex_c(Kb, y)
    with pytest.raises(ValueError, match="NaN"):
        Kb = K.copy()
        Kb[2, 2] = np.nan
        solve_convex_c(Kb, y)
    with pytest.raises(ValueError, match="trace K must be > 0"):
        solve_convex_c(np.zeros_like(K), y)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        solve_convex_c(K - 0.5 * np.eye(K.shape[0]), y, gamma_range="general",
                       method="interchange")
    with pytest.raises(ValueError, match="multiple of the identity"):
        solve_convex_c(np.eye(K.shape[0]), y, gamma_range="general", method="interchange")
    with pytest.raises(ValueError, match="Kernel"):
        tune_c_convex(np.ones((4, 2)), [0, 1, 0, 1], "rbf")


def test_missing_cvxpy_raises_import_error(interior, monkeypatch):
    _, y, K = interior
    monkeypatch.setitem(sys.modules, "cvxpy", None)     # makes `import cvxpy` fail
    with pytest.raises(ImportError, match=r"pip install 'svmbound\[convex\]'"):
        solve_convex_c(K, y, method="qcqp")
    # the interchange method does not need it
    assert solve_convex_c(K, y, method="interchange").gamma > 0
