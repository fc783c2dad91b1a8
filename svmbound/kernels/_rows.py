"""Rows of the kernel matrix for the numba SMO (``_smo``): K(x_i, x_j) for every j, from
dense features, sparse ones or a kernel matrix, and the diagonal.

Dense data: X a C-ordered 2-D array, ⟨x_i, x_j⟩ for all j by one BLAS product.

Sparse data (issue 13): X is then not a 2-D array but the tuple of ``_sparse.numba_data``
(CSR data, indices, pointers, then the CSC ones); numba compiles a second version of the
solver in which ``row_dots`` computes ⟨x_i, x_j⟩ for all j by walking, for each non-zero x_ik,
the column k (a pass over the non-zeros sharing a feature with x_i, at most nnz(X)). The LRU
cache, the working-set selection and everything else are the same code. Sparse data whose walk
would read about as much as rows in pieces (``_sparse.walk_share``) come as a dense Xᵀ instead
(``precomputed.smo_rows_data``), as dense features mostly zeros do.

Threads (issue 32): for dense features and n ≥ ``CHUNKED_ROWS_MIN``, and for dense features
mostly zeros at any n (``precomputed.smo_rows_data`` decides), the solver gets Xᵀ instead of X
and computes each kernel row in fixed pieces of ``ROW_CHUNK`` entries (``_q_piece``: the inner
products as sums of rows of Xᵀ over the non-zeros of x_i, skipping the zeros that a BLAS row
multiplies; the kernel function and the labels), spread over ``threads`` threads (numba
``prange``; from ``CHUNKED_ROWS_MIN`` rows, ``qp.large``): the rows are most of a large solve's
time. A piece's additions are in the same order wherever the piece runs, so a row has the same
bits on any number of threads (not those of the BLAS product that other solves use). The block
solver computes the rows it misses ``ROW_BATCH`` at a time (``q_rows_pieces``), each piece of
every row in turn: a piece of Xᵀ is then read from memory once for them all — for features
mostly non-zero (``GEMM_MIN_FILL``) by one BLAS product a piece, whose sums are those of a row
alone to rounding, else by the sums skipping zeros, the same bits as a row alone.

Rows of a shared kernel matrix (``precomputed.GramRows``, code PRECOMPUTED): X is the pair (K,
rows) and K_ij of the sub-problem is K[rows[i], rows[j]], read from K without copying the block
(the folds of a cross-validation at one θ share the K of all their points).
"""

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from .._lapack import gemm_rows
from .._vexp import exp_nonpositive_for

LINEAR, RBF, POLY, PRECOMPUTED = 0, 1, 2, 3


def shift_at(shift, i):
    """h_i: ``shift[i]`` for a vector of diagonal shifts, ``shift`` itself for one number."""
    return shift if np.ndim(shift) == 0 else shift[i]


@overload(shift_at, jit_options={"cache": True, "nogil": True})
def _shift_at_overload(shift, i):
    if isinstance(shift, types.Array):
        return lambda shift, i: shift[i]
    return lambda shift, i: shift


def row_dots(X, i):
    """⟨x_i, x_j⟩ for every j: X a dense 2-D array, or the CSR/CSC tuple of sparse data (the
    pair (K, rows) of ``precomputed.GramRows`` has no features: never called for it)."""
    if isinstance(X, tuple) and len(X) == 2:
        return np.zeros(X[1].shape[0])
    if isinstance(X, tuple):
        rdata, rind, rptr, cdata, cind, cptr = X
        out = np.zeros(rptr.shape[0] - 1)
        for p in range(rptr[i], rptr[i + 1]):
            k, v = rind[p], rdata[p]
            for q in range(cptr[k], cptr[k + 1]):
                out[cind[q]] += v * cdata[q]
        return out
    return np.dot(X, X[i])


@overload(row_dots, jit_options={"cache": True, "nogil": True})
def _row_dots_overload(X, i):
    if isinstance(X, types.BaseTuple) and len(X) == 2:
        return lambda X, i: np.zeros(X[1].shape[0])
    if isinstance(X, types.BaseTuple):
        def csr_dots(X, i):
            rdata, rind, rptr, cdata, cind, cptr = X
            out = np.zeros(rptr.shape[0] - 1)
            for p in range(rptr[i], rptr[i + 1]):
                k = rind[p]
                v = rdata[p]
                for q in range(cptr[k], cptr[k + 1]):
                    out[cind[q]] += v * cdata[q]
            return out
        return csr_dots
    return lambda X, i: np.dot(X, X[i])


def matrix_entry(X, i, j):
    """X[i, j] of a PRECOMPUTED kernel matrix, or K[rows[i], rows[j]] for the pair (K, rows)
    of ``precomputed.GramRows`` (never reached with sparse data: 0)."""
    if isinstance(X, tuple) and len(X) == 2:
        return X[0][X[1][i], X[1][j]]
    return 0.0 if isinstance(X, tuple) else X[i, j]


@overload(matrix_entry, jit_options={"cache": True, "nogil": True})
def _matrix_entry_overload(X, i, j):
    if isinstance(X, types.BaseTuple) and len(X) == 2:
        return lambda X, i, j: X[0][X[1][i], X[1][j]]
    if isinstance(X, types.BaseTuple):
        return lambda X, i, j: 0.0
    return lambda X, i, j: X[i, j]


@njit(cache=True, nogil=True)
def kernel_row(X, sq, i, code, gamma, coef0, degree, out):
    """out[j] = K(x_i, x_j) for every j (for PRECOMPUTED, X is the kernel matrix itself)."""
    n = sq.shape[0]
    if code == PRECOMPUTED:
        for j in range(n):
            out[j] = matrix_entry(X, i, j)
        return
    dots = row_dots(X, i)
    if code == LINEAR:
        for j in range(n):
            out[j] = dots[j]
    elif code == RBF:
        sqi = sq[i]
        for j in range(n):
            d2 = sqi + sq[j] - 2.0 * dots[j]
            if d2 < 0.0:
                d2 = 0.0
            dots[j] = -gamma * d2
        exp_nonpositive_for(dots, out)      # vectorised, to the precision of out's type
        for j in range(n):
            out[j] = dots[j]
        out[i] = 1.0
    else:
        for j in range(n):
            out[j] = (gamma * dots[j] + coef0) ** degree


#: Entries of one piece of a row computed in pieces, and the least n whose rows are (module
#: docstring; the reasons for the numbers: ``docs/decisions.md``).
ROW_CHUNK = 1024
CHUNKED_ROWS_MIN = 8192


def rows_in_pieces(X, pieces):
    """Whether row i of Q is computed in pieces (``q_row_pieces``): ``pieces`` set by the caller
    (``precomputed.smo_rows_data``: dense features, not a kernel matrix, n large or the
    features mostly zeros), who then
    passes the *transposed* features Xᵀ (d × n, C order) as X."""
    return bool(pieces) and not isinstance(X, tuple)


@overload(rows_in_pieces, jit_options={"cache": True, "nogil": True})
def _rows_in_pieces_overload(X, pieces):
    if isinstance(X, types.BaseTuple):
        return lambda X, pieces: False
    return lambda X, pieces: pieces != 0


@njit(cache=True, nogil=True)
def _q_piece(c, Xt, sq, i, xi, nzk, code, gamma, coef0, degree, y, yi, out):
    """out[lo:hi] = y_i y_j s K(x_i, x_j) for the c-th piece [lo, hi) of ``ROW_CHUNK`` entries.

    ⟨x_i, x_j⟩ = Σ_k x_ik Xᵀ[k, j] over the non-zero features k of x_i (``xi``, ``nzk``), added
    four features at a time in their order: a sum over contiguous rows of Xᵀ that the vector
    units run, skipping the zeros of x_i (one-hot data stored dense: a9a's 123 columns hold 14
    non-zeros a row), and whose order of additions does not depend on the piece."""
    lo = c * ROW_CHUNK
    hi = min(sq.shape[0], lo + ROW_CHUNK)
    w = hi - lo
    acc = np.zeros(w)
    m = nzk.shape[0]
    t = 0
    while t + 4 <= m:
        v0, v1, v2, v3 = xi[t], xi[t + 1], xi[t + 2], xi[t + 3]
        s0 = Xt[nzk[t], lo:hi]
        s1 = Xt[nzk[t + 1], lo:hi]
        s2 = Xt[nzk[t + 2], lo:hi]
        s3 = Xt[nzk[t + 3], lo:hi]
        for j in range(w):
            acc[j] += (s0[j] * v0 + s1[j] * v1) + (s2[j] * v2 + s3[j] * v3)
        t += 4
    while t < m:
        v = xi[t]
        src = Xt[nzk[t], lo:hi]
        for j in range(w):
            acc[j] += src[j] * v
        t += 1
    _finish_piece(acc, lo, i, sq, code, gamma, coef0, degree, y, yi, out)


@njit(cache=True, nogil=True)
def _finish_piece(acc, lo, i, sq, code, gamma, coef0, degree, y, yi, out):
    """out[lo:lo + w] = y_i y_j s K(x_i, x_j) from acc[j] = ⟨x_i, x_{lo+j}⟩ (w = acc's length;
    acc is overwritten): the kernel function (RBF: exp(−γ(‖x_i‖² + ‖x_j‖² − 2⟨x_i, x_j⟩)), 1 on
    the diagonal), then the labels and the scale."""
    w = acc.shape[0]
    # slices, not out[lo + j]: an index that may be negative is wrapped around entry by
    # entry, which kept these loops off the vector units (3.4x slower)
    o = out[lo:lo + w]
    yw = y[lo:lo + w]
    if code == RBF:
        sqi = sq[i]
        sqw = sq[lo:lo + w]
        for j in range(w):
            d2 = sqi + sqw[j] - 2.0 * acc[j]
            if d2 < 0.0:
                d2 = 0.0
            acc[j] = -gamma * d2
        exp_nonpositive_for(acc, out)       # to float32's precision for float32 rows
        if lo <= i < lo + w:
            acc[i - lo] = 1.0
    elif code == POLY:
        for j in range(w):
            acc[j] = (gamma * acc[j] + coef0) ** degree
    for j in range(w):
        o[j] = acc[j]
    for j in range(w):
        o[j] *= yi * yw[j]


@njit(cache=True, nogil=True, parallel=True)
def _q_pieces_parallel(Xt, sq, i, xi, nzk, code, gamma, coef0, degree, y, yi, out, n_pieces):
    for c in prange(n_pieces):
        _q_piece(c, Xt, sq, i, xi, nzk, code, gamma, coef0, degree, y, yi, out)


@njit(cache=True, nogil=True, parallel=True)
def _probe_parallel(n):
    """A trivial parallel loop: its first call loads numba's threading layer (``qp``)."""
    total = 0
    for k in prange(n):
        total += k
    return total


def q_row_pieces(Xt, sq, i, code, gamma, coef0, degree, y, yi, out, threads):
    """out = y_i·s·y ∘ K(x_i, ·) in pieces (module docstring), on ``threads`` threads; Xt = Xᵀ."""
    nzk = np.flatnonzero(Xt[:, i])
    xi = Xt[nzk, i]
    n_pieces = (sq.shape[0] + ROW_CHUNK - 1) // ROW_CHUNK
    for c in range(n_pieces):
        _q_piece(c, Xt, sq, i, xi, nzk, code, gamma, coef0, degree, y, yi, out)


@njit(cache=True, nogil=True)
def _nonzeros(Xt, i, nzk, xi):
    """The non-zero features of x_i into nzk[:m] (their indices, rising) and xi[:m] (their
    values); returns m."""
    m = 0
    for k in range(Xt.shape[0]):
        if Xt[k, i] != 0.0:
            nzk[m] = k
            xi[m] = Xt[k, i]
            m += 1
    return m


@overload(q_row_pieces, jit_options={"cache": True, "nogil": True})
def _q_row_pieces_overload(Xt, sq, i, code, gamma, coef0, degree, y, yi, out, threads):
    if isinstance(Xt, types.BaseTuple):      # never called: ``rows_in_pieces`` is False
        return lambda Xt, sq, i, code, gamma, coef0, degree, y, yi, out, threads: None

    def impl(Xt, sq, i, code, gamma, coef0, degree, y, yi, out, threads):
        d = Xt.shape[0]
        nzk = np.empty(d, dtype=np.int64)
        xi = np.empty(d)
        m = _nonzeros(Xt, i, nzk, xi)
        n_pieces = (sq.shape[0] + ROW_CHUNK - 1) // ROW_CHUNK
        if threads > 1:      # (numba's thread count for this thread: set by the caller)
            _q_pieces_parallel(Xt, sq, i, xi[:m], nzk[:m], code, gamma, coef0, degree, y, yi,
                               out, n_pieces)
        else:
            for c in range(n_pieces):
                _q_piece(c, Xt, sq, i, xi[:m], nzk[:m], code, gamma, coef0, degree, y, yi, out)
    return impl


#: Rows computed together by ``q_rows_pieces`` (reasons: ``docs/decisions.md``, "block_smo").
ROW_BATCH = 32
#: A batch of at least GEMM_MIN_ROWS rows whose non-zero features fill at least GEMM_MIN_FILL of
#: its rows × d features is computed by one BLAS product a piece (``_q_batch_piece_gemm``)
#: instead of by sums skipping the zeros (reasons: ``docs/decisions.md``).
GEMM_MIN_FILL = 0.5
GEMM_MIN_ROWS = 4


@njit(cache=True, nogil=True)
def gemm_pays(rows, nonzeros, d) -> bool:
    """Whether ``rows`` rows of d features holding ``nonzeros`` non-zero features in all take
    one BLAS product (``GEMM_MIN_ROWS``, ``GEMM_MIN_FILL``): the rule of ``q_rows_pieces`` and
    of the block solver's new Q_BB entries (``solvers._block._new_entries``)."""
    return rows >= GEMM_MIN_ROWS and nonzeros >= GEMM_MIN_FILL * rows * d


@njit(cache=True, nogil=True)
def _q_batch_piece(c, Xt, sq, ids, nzk, xi, nnz, code, gamma, coef0, degree, y, scale, buf,
                   slots):
    """The c-th piece of every row of the batch (``q_rows_pieces``), by sums skipping zeros."""
    for r in range(ids.shape[0]):
        i = ids[r]
        m = nnz[r]
        _q_piece(c, Xt, sq, i, xi[r, :m], nzk[r, :m], code, gamma, coef0, degree, y,
                 y[i] * scale, buf[slots[r]])


@njit(cache=True, nogil=True)
def _q_batch_piece_gemm(c, Xt, sq, ids, XB, code, gamma, coef0, degree, y, scale, buf, slots):
    """The c-th piece of every row of the batch (``q_rows_pieces``): the inner products of the
    batch's rows (XB, b × d) with the piece's columns of Xᵀ by one BLAS product (``_lapack.
    gemm_rows``; each row to rounding as ``_q_piece``'s), then ``_finish_piece``."""
    lo = c * ROW_CHUNK
    hi = min(sq.shape[0], lo + ROW_CHUNK)
    acc = np.empty((ids.shape[0], hi - lo))
    gemm_rows(Xt[:, lo:hi], XB, acc)
    for r in range(ids.shape[0]):
        i = ids[r]
        _finish_piece(acc[r], lo, i, sq, code, gamma, coef0, degree, y, y[i] * scale,
                      buf[slots[r]])


@njit(cache=True, nogil=True, parallel=True)
def _q_batch_parallel(Xt, sq, ids, nzk, xi, nnz, code, gamma, coef0, degree, y, scale, buf,
                      slots, n_pieces):
    for c in prange(n_pieces):
        _q_batch_piece(c, Xt, sq, ids, nzk, xi, nnz, code, gamma, coef0, degree, y, scale,
                       buf, slots)


@njit(cache=True, nogil=True, parallel=True)
def _q_batch_gemm_parallel(Xt, sq, ids, XB, code, gamma, coef0, degree, y, scale, buf, slots,
                           n_pieces):
    for c in prange(n_pieces):
        _q_batch_piece_gemm(c, Xt, sq, ids, XB, code, gamma, coef0, degree, y, scale, buf,
                            slots)


def q_rows_pieces(Xt, sq, ids, slots, code, gamma, coef0, degree, y, scale, buf, threads):
    """buf[slots[r]] = y_i·s·y ∘ K(x_i, ·) for i = ids[r]: ``q_row_pieces`` for several rows
    at once, each piece of every row in turn, so that a piece of Xᵀ is read from memory once
    for all of them; Xt = Xᵀ. At least ``GEMM_MIN_ROWS`` rows whose non-zero features fill at
    least ``GEMM_MIN_FILL`` of the batch's take one BLAS product a piece (each row then equal
    to its ``q_row_pieces`` bits to rounding, not bit for bit); the others the same bits as
    alone. Either way a row's bits do not depend on ``threads``."""
    for r in range(ids.shape[0]):
        q_row_pieces(Xt, sq, ids[r], code, gamma, coef0, degree, y, y[ids[r]] * scale,
                     buf[slots[r]], threads)


@overload(q_rows_pieces, jit_options={"cache": True, "nogil": True})
def _q_rows_pieces_overload(Xt, sq, ids, slots, code, gamma, coef0, degree, y, scale, buf,
                            threads):
    if isinstance(Xt, types.BaseTuple):      # never called: ``rows_in_pieces`` is False
        return lambda Xt, sq, ids, slots, code, gamma, coef0, degree, y, scale, buf, threads: None
    gemm = Xt.dtype == types.float64 and Xt.layout == "C"   # what BLAS dgemm reads in place

    def impl(Xt, sq, ids, slots, code, gamma, coef0, degree, y, scale, buf, threads):
        d = Xt.shape[0]
        b = ids.shape[0]
        nzk = np.empty((b, d), dtype=np.int64)
        xi = np.empty((b, d))
        nnz = np.empty(b, dtype=np.int64)
        for r in range(b):
            nnz[r] = _nonzeros(Xt, ids[r], nzk[r], xi[r])
        n_pieces = (sq.shape[0] + ROW_CHUNK - 1) // ROW_CHUNK
        if gemm and gemm_pays(b, nnz.sum(), d):
            XB = np.empty((b, d))
            for r in range(b):
                for k in range(d):
                    XB[r, k] = Xt[k, ids[r]]
            if threads > 1:
                _q_batch_gemm_parallel(Xt, sq, ids, XB, code, gamma, coef0, degree, y, scale,
                                       buf, slots, n_pieces)
            else:
                for c in range(n_pieces):
                    _q_batch_piece_gemm(c, Xt, sq, ids, XB, code, gamma, coef0, degree, y,
                                        scale, buf, slots)
        elif threads > 1:
            _q_batch_parallel(Xt, sq, ids, nzk, xi, nnz, code, gamma, coef0, degree, y, scale,
                              buf, slots, n_pieces)
        else:
            for c in range(n_pieces):
                _q_batch_piece(c, Xt, sq, ids, nzk, xi, nnz, code, gamma, coef0, degree, y,
                               scale, buf, slots)
    return impl


@njit(cache=True, nogil=True)
def kernel_diag(X, sq, code, gamma, coef0, degree):
    n = sq.shape[0]
    d = np.empty(n)
    for i in range(n):
        if code == PRECOMPUTED:
            d[i] = matrix_entry(X, i, i)
        elif code == LINEAR:
            d[i] = sq[i]
        elif code == RBF:
            d[i] = 1.0
        else:
            d[i] = (gamma * sq[i] + coef0) ** degree
    return d
