"""The span bound's LAPACK and BLAS calls, made from numba with the GIL released.

SciPy's ``scipy.linalg.lapack`` and ``scipy.linalg.blas`` wrappers (f2py) hold the GIL while
the Fortran routine runs. The span bound factorises and inverts n_SV × n_SV matrices at every
evaluation (about 17 ms at n_SV = 615), and the default strategy runs it beside the
radius–margin search in another thread: while ``dpotrf`` held the GIL, the other search could
run no Python at all, and the two threads took each other's turns (two threads factorising
800 × 800 matrices: 1.06 times the time of doing it one after the other, against 0.52 here).

The functions below call the *same* routines of the same library — SciPy's
``scipy.linalg.cython_lapack`` / ``cython_blas`` function pointers, registered with LLVM under
names of ours so that numba's on-disk cache keeps working — from ``nogil`` numba code, with the
same arguments as the f2py calls they replace: the results are the same bits.

Layout: every matrix argument is a C-contiguous square array whose *memory* the routine
works on as a column-major matrix, so "upper" below is LAPACK's upper triangle of that memory,
which is the lower triangle of the C-ordered array. For a symmetric matrix both are the same
matrix, which is all the span bound passes.
"""

from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
from numba import njit, types
from numba.extending import get_cython_function_address

_P = types.voidptr


def _external(module: str, name: str, n_args: int):
    llvm.add_symbol(f"svmbound_{name}", get_cython_function_address(module, name))
    return types.ExternalFunction(f"svmbound_{name}", types.void(*([_P] * n_args)))


_dpotrf = _external("scipy.linalg.cython_lapack", "dpotrf", 5)
_dpotri = _external("scipy.linalg.cython_lapack", "dpotri", 5)
_dpotrs = _external("scipy.linalg.cython_lapack", "dpotrs", 8)
_dsyrk = _external("scipy.linalg.cython_blas", "dsyrk", 10)
_dgemm = _external("scipy.linalg.cython_blas", "dgemm", 13)

_U, _L, _T, _N = ord("U"), ord("L"), ord("T"), ord("N")


@njit(cache=True, nogil=True)
def _upper_in_place(a, inverse: bool) -> int:
    """LAPACK dpotri (``inverse``) or dpotrf on ``a``'s memory, uplo 'U'; returns info."""
    n = np.array([a.shape[0]], dtype=np.int32)
    uplo = np.array([_U], dtype=np.uint8)
    info = np.zeros(1, dtype=np.int32)
    if inverse:
        _dpotri(uplo.ctypes, n.ctypes, a.ctypes, n.ctypes, info.ctypes)
    else:
        _dpotrf(uplo.ctypes, n.ctypes, a.ctypes, n.ctypes, info.ctypes)
    return info[0]


@njit(cache=True, nogil=True)
def potrf_upper(a) -> int:
    """Cholesky factor UᵀU of the symmetric positive definite matrix in ``a``'s memory, in
    place (LAPACK dpotrf, uplo 'U'); returns LAPACK's info (0: done; > 0: not positive
    definite). The other triangle of the memory is not touched."""
    return _upper_in_place(a, False)


@njit(cache=True, nogil=True)
def potri_upper(a) -> int:
    """The inverse of UᵀU from its factor U (as left by :func:`potrf_upper`), in place in the
    same triangle (LAPACK dpotri, uplo 'U'); returns info."""
    return _upper_in_place(a, True)


@njit(cache=True, nogil=True)
def potrs_upper(c, b):
    """(x, info): x solves (UᵀU) x = b for the factor U in ``c`` (LAPACK dpotrs, uplo 'U',
    one right-hand side); ``b`` is not changed."""
    x = b.copy()
    n = np.array([c.shape[0]], dtype=np.int32)
    nrhs = np.ones(1, dtype=np.int32)
    uplo = np.array([_U], dtype=np.uint8)
    info = np.zeros(1, dtype=np.int32)
    _dpotrs(uplo.ctypes, n.ctypes, nrhs.ctypes, c.ctypes, n.ctypes, x.ctypes, n.ctypes,
            info.ctypes)
    return x, info[0]


@njit(cache=True, nogil=True)
def syrk_upper(m):
    """P = M Mᵀ for a C-ordered square M, by one BLAS rank-k update (dsyrk: n³ flops against
    the 2n³ of a product): only the upper triangle of the C-ordered result is filled. (The
    call is SciPy's ``dsyrk(1.0, M.T, trans=1, lower=1).T``.)"""
    n = m.shape[0]
    out = np.zeros((n, n))
    nn = np.array([n], dtype=np.int32)
    uplo = np.array([_L], dtype=np.uint8)
    trans = np.array([_T], dtype=np.uint8)
    alpha = np.ones(1)
    beta = np.zeros(1)
    _dsyrk(uplo.ctypes, trans.ctypes, nn.ctypes, nn.ctypes, alpha.ctypes, m.ctypes, nn.ctypes,
           beta.ctypes, out.ctypes, nn.ctypes)
    return out


@njit(cache=True, nogil=True)
def gemm_rows(a, b, out) -> None:
    """out[r, j] = Σ_k b[r, k]·a[k, j] for every row r of b (b × d, C order) and column j of a
    (d × w, any layout whose rows are contiguous: a slice a[:, lo:hi] of a C-ordered d × n array),
    i.e. out = b @ a into a C-ordered b × w array, by one BLAS dgemm (column-major: outᵀ = aᵀ·bᵀ,
    the memory of a read as a w × d matrix with leading dimension a.strides[0]); the kernel rows
    of ``kernels._rows`` computed together."""
    d, w = a.shape
    nb = b.shape[0]
    mm = np.array([w], dtype=np.int32)
    nn = np.array([nb], dtype=np.int32)
    kk = np.array([d], dtype=np.int32)
    # one row (d = 1): its stride is any number (numpy gives a 1 × n array from the transpose
    # of an n × 1 one a stride of 8 bytes), and dgemm refuses lda < w and leaves out unwritten
    lda = np.array([a.strides[0] // 8 if d > 1 else w], dtype=np.int32)
    ldc = np.array([w], dtype=np.int32)
    trans = np.array([_N], dtype=np.uint8)
    alpha = np.ones(1)
    beta = np.zeros(1)
    _dgemm(trans.ctypes, trans.ctypes, mm.ctypes, nn.ctypes, kk.ctypes, alpha.ctypes, a.ctypes,
           lda.ctypes, b.ctypes, kk.ctypes, beta.ctypes, out.ctypes, ldc.ctypes)


@njit(cache=True, nogil=True)
def mirror_upper(m) -> None:
    """m[j, i] = m[i, j] for j > i, in place (the upper triangle of the C-ordered array copied
    onto the lower one; ``mirror_upper(m.T)`` copies the lower triangle, i.e. LAPACK's upper
    triangle of m's memory, onto the upper one)."""
    n = m.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            m[j, i] = m[i, j]


@njit(cache=True, nogil=True)
def symmetrize(m) -> None:
    """m ← (m + mᵀ)/2, in place."""
    n = m.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            v = 0.5 * (m[i, j] + m[j, i])
            m[i, j] = v
            m[j, i] = v
