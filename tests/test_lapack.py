"""svmbound._lapack: the numba (GIL-free) LAPACK/BLAS calls give SciPy's f2py results bit for bit."""

import numpy as np
import pytest
from scipy.linalg import lapack
from scipy.linalg.blas import dsyrk

from svmbound._lapack import (gemm_rows, mirror_upper, potrf_upper, potri_upper, potrs_upper,
                              symmetrize, syrk_upper)


def _spd(n, seed=0):
    A = np.random.RandomState(seed).randn(n, n)
    return A @ A.T + n * np.eye(n)


@pytest.mark.parametrize("n", [1, 7, 300])
def test_cholesky_and_inverse_match_scipy_bit_for_bit(n):
    A = _spd(n)
    ref_c, info = lapack.dpotrf(A.T, lower=0, clean=0, overwrite_a=0)   # A.T: A's memory
    assert info == 0
    ours = A.copy()
    assert potrf_upper(ours) == 0
    # LAPACK's upper triangle of the memory is the C-ordered array's lower triangle
    np.testing.assert_array_equal(np.tril(ours), np.tril(ref_c.T))
    np.testing.assert_array_equal(np.triu(ours, 1), np.triu(A, 1))   # other triangle untouched
    ref_inv, info = lapack.dpotri(ref_c, lower=0, overwrite_c=0)
    assert info == 0
    assert potri_upper(ours) == 0
    np.testing.assert_array_equal(np.tril(ours), np.tril(ref_inv.T))
    mirror_upper(ours.T)
    np.testing.assert_array_equal(ours, ours.T)
    np.testing.assert_allclose(ours @ A, np.eye(n), atol=1e-10)


def test_cholesky_reports_a_matrix_that_is_not_positive_definite():
    A = _spd(6)
    A[3, 3] = -50.0
    assert potrf_upper(A.copy()) > 0


def test_triangular_solve_matches_scipy_and_solves_the_system():
    A = _spd(40, seed=1)
    b = np.random.RandomState(2).randn(40)
    c = A.copy()
    assert potrf_upper(c) == 0
    x, info = potrs_upper(c, b)
    ref, ref_info = lapack.dpotrs(c.T, b, lower=0)
    assert info == ref_info == 0
    np.testing.assert_array_equal(x, ref)
    np.testing.assert_allclose(A @ x, b, atol=1e-10)
    assert not np.shares_memory(x, b)


def test_rank_k_update_matches_scipy_bit_for_bit():
    M = np.random.RandomState(3).randn(50, 50)
    P = syrk_upper(M)
    ref = dsyrk(1.0, M.T, trans=1, lower=1).T
    np.testing.assert_array_equal(np.triu(P), np.triu(ref))
    mirror_upper(P)
    np.testing.assert_allclose(P, M @ M.T, rtol=1e-12, atol=1e-10)
    np.testing.assert_array_equal(P, P.T)


def test_symmetrize_averages_the_two_triangles():
    M = np.random.RandomState(4).randn(9, 9)
    expected = 0.5 * (M + M.T)
    symmetrize(M)
    np.testing.assert_array_equal(M, expected)


@pytest.mark.parametrize("d", [1, 3])
def test_rows_by_gemm_are_the_matrix_product_also_for_one_feature(d):
    """gemm_rows(a, b, out): out = b @ a for a slice of a C-ordered d × n array; with d = 1 the
    transpose of an n × 1 array is a 1 × n array of stride 8 bytes, which dgemm refused as a
    leading dimension (out was left unwritten)."""
    X = np.random.RandomState(0).randn(10, d)
    Xt = np.ascontiguousarray(X.T)
    B = np.ascontiguousarray(X[:4])
    out = np.full((4, 6), np.nan)
    gemm_rows(Xt[:, 2:8], B, out)
    np.testing.assert_allclose(out, B @ Xt[:, 2:8], rtol=1e-14, atol=1e-14)
