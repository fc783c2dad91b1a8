"""A solve's kernel matrix at once (``kernels.precomputed.gram_pays``): dense data of many
features and a middling number of rows whose K(X, X) fits a quarter of the row cache are solved
from K computed by one BLAS product, not from rows computed one by one; the solution is the
same optimum, warm starts included."""

import numpy as np
import pytest
from scipy import sparse

from svmbound.kernels import LinearKernel, PolynomialKernel, RBFKernel, precomputed
from svmbound.kernels._rows import CHUNKED_ROWS_MIN, PRECOMPUTED
from svmbound.kernels.precomputed import (GRAM_CACHE_SHARE, GRAM_MIN_FEATURES, GRAM_MIN_ROWS,
                                          gram_pays, smo_rows_data)
from svmbound.solvers import solve_radius, solve_svm_dual

from test_solvers import assert_kkt


def _data(n, d, seed=0, zeros=0.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) >= zeros)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.8 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def test_when_the_kernel_matrix_is_computed_at_once():
    """Dense rows, RBF or polynomial, GRAM_MIN_ROWS ≤ n < CHUNKED_ROWS_MIN, at least
    GRAM_MIN_FEATURES features, K within GRAM_CACHE_SHARE of the cache; each condition alone
    failing keeps the rows one by one."""
    n, d = GRAM_MIN_ROWS, GRAM_MIN_FEATURES
    X, _ = _data(n, d)
    need = 8.0 * n * n / GRAM_CACHE_SHARE
    rbf = RBFKernel(sigma2=d)
    assert gram_pays(X, rbf, need) and gram_pays(X, PolynomialKernel(degree=2), need)
    assert not gram_pays(X, rbf, 0.99 * need)
    assert not gram_pays(X, LinearKernel(), need)
    assert not gram_pays(X[:, :-1], rbf, need)
    assert not gram_pays(X[:-1], rbf, need)
    assert not gram_pays(_data(n, d, zeros=0.6)[0], rbf, need)
    big = np.zeros((CHUNKED_ROWS_MIN, d))
    assert not gram_pays(big, rbf, 8.0 * CHUNKED_ROWS_MIN**2 / GRAM_CACHE_SHARE)
    laid = smo_rows_data(X, rbf, need)
    assert laid.code == PRECOMPUTED and laid.pieces == 0
    K, rows = laid.data
    np.testing.assert_array_equal(rows, np.arange(n))
    np.testing.assert_allclose(K, rbf.block(X), rtol=0, atol=0)
    assert smo_rows_data(sparse.csr_matrix(X), rbf, need).code != PRECOMPUTED


@pytest.mark.parametrize("kernel", [RBFKernel(sigma2=150.0), PolynomialKernel(degree=2,
                                                                              coef0=1.0)])
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_solve_from_the_kernel_matrix_is_the_solve_by_rows(monkeypatch, kernel, loss):
    """The same problem solved from K at once and (GRAM_MIN_FEATURES raised) by rows: both meet
    the KKT conditions on an independently built K and have the same objective to the
    tolerance; a warm start from the solution at another C (its gradient from K's columns)
    gives the cold start's optimum."""
    X, y = _data(GRAM_MIN_ROWS + 200, GRAM_MIN_FEATURES)
    if isinstance(kernel, PolynomialKernel):
        X = X / np.sqrt(X.shape[1])
    K = kernel.block(X)
    C, tol = 2.0, 1e-6
    sol = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol, cache_size=200)
    assert gram_pays(X, kernel, 200 * 2**20)
    assert_kkt(sol, y, C, loss, tol, K=K)
    warm = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol, cache_size=200,
                          alpha0=solve_svm_dual(X, y, kernel, 0.5, loss=loss, tol=tol,
                                                cache_size=200).alpha)
    assert_kkt(warm, y, C, loss, tol, K=K)
    assert warm.objective == pytest.approx(sol.objective, rel=1e-7)
    monkeypatch.setattr(precomputed, "GRAM_MIN_FEATURES", X.shape[1] + 1)
    rows = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol, cache_size=200)
    assert rows.objective == pytest.approx(sol.objective, rel=1e-7)
    assert abs(rows.b - sol.b) < 1e-4


def test_the_radius_from_the_kernel_matrix(monkeypatch):
    """The radius QP (the SMO with scale 2 and the diagonal in p) from K at once: R² as by
    rows, to the tolerance."""
    X, _ = _data(GRAM_MIN_ROWS, GRAM_MIN_FEATURES, seed=2)
    kernel = RBFKernel(sigma2=60.0)
    r = solve_radius(X, kernel, tol=1e-8)
    monkeypatch.setattr(precomputed, "GRAM_MIN_FEATURES", X.shape[1] + 1)
    assert r.r2 == pytest.approx(solve_radius(X, kernel, tol=1e-8).r2, rel=1e-7)


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_an_svr_solve_from_the_kernel_matrix(monkeypatch, loss):
    """The SVR's 2l variables read K(X, X) computed once, each row for both α_i and α_i*
    (``GramRows`` of K with the rows twice), where the stacked rows' solve would read a kernel
    matrix: the same optimum as the rows twice one by one."""
    from svmbound.solvers.svr import _variables_rows, solve_svr_dual

    X, _ = _data(GRAM_MIN_ROWS // 2 + 50, GRAM_MIN_FEATURES, seed=4)
    z = np.sin(X[:, 0]) + 0.1 * X[:, 1]
    kernel = RBFKernel(sigma2=150.0)
    rows, rows_kernel = _variables_rows(X, kernel, 200)
    assert rows.K.shape == (X.shape[0],) * 2 and rows.shape == (2 * X.shape[0],) * 2
    assert rows_kernel.name == "precomputed"
    sol = solve_svr_dual(X, z, kernel, 3.0, 0.1, loss=loss, tol=1e-7)
    monkeypatch.setattr(precomputed, "GRAM_MIN_FEATURES", X.shape[1] + 1)
    assert _variables_rows(X, kernel, 200)[1] is kernel
    ref = solve_svr_dual(X, z, kernel, 3.0, 0.1, loss=loss, tol=1e-7)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-9)
    assert sol.b == pytest.approx(ref.b, abs=1e-6)


def test_features_too_large_for_the_kernel_are_reported_as_by_rows():
    """Features that overflow float64 in the RBF distances make K non-finite: no kernel matrix
    is used, and the solve raises the rows' clear error (``qp.check_kernel_finite``)."""
    X, y = _data(GRAM_MIN_ROWS, GRAM_MIN_FEATURES)
    with pytest.raises(ValueError, match="not finite on these data"):
        solve_svm_dual(X * 1e200, y, RBFKernel(sigma2=1.0), 1.0)
