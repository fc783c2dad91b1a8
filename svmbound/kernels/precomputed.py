"""A kernel given as its matrix, rows of a shared kernel matrix, and the data the numba SMO
computes its kernel rows from (``_rows``).

* :class:`PrecomputedKernel`: X is the l×l Gram matrix itself (tests, small problems);
* :class:`GramRows`: the sub-problem on some rows of a sample whose K is computed already
  (the folds of a cross-validation at one θ share it);
* :func:`smo_rows_data`: X as the SMO's rows need it — the pair (K, rows) of ``GramRows``, the
  CSR/CSC arrays of sparse data (a dense Xᵀ of them where the walk reads as much,
  ``_sparse.walk_share``), or dense C-ordered rows (centred for the RBF kernel unless
  mostly zeros, or Xᵀ for rows computed in pieces: large n, or features mostly zeros) — with
  the squared row norms ‖x_i‖² the RBF distances come from; or, for dense data of many features
  and a middling number of rows, K(X, X) computed at once by BLAS (:func:`gram_pays`), the SMO
  then reading its rows from K as from a precomputed kernel.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _sparse
from .._sparse import (check_csr, column_counts, dense_transpose, entries_per_row, issparse,
                       numba_data, sq_norms, walk_share)
from ._rows import CHUNKED_ROWS_MIN, PRECOMPUTED, RBF
from .standard import Kernel, PolynomialKernel, RBFKernel, column_mean

__all__ = ["PrecomputedKernel", "GramRows", "SmoRowsData", "smo_rows_data",
           "gram_can_be_shared", "gram_pays", "gram_if_pays"]


class PrecomputedKernel(Kernel):
    """A kernel given as its full matrix (X is then the l×l Gram matrix). For tests and small
    problems; has no tunable parameters."""

    name = "precomputed"

    def spec(self):
        return (PRECOMPUTED, 0.0, 0.0, 1)

    def _diag(self, K):
        return np.ascontiguousarray(np.diag(K))

    def row(self, K, i: int) -> np.ndarray:
        """Row i of the kernel matrix K itself."""
        return np.asarray(K[i], dtype=np.float64)


class GramRows:
    """The sub-problem on ``rows`` of a sample whose kernel matrix K is computed already, as
    the X of a solve with :class:`PrecomputedKernel`: K_ij = K[rows[i], rows[j]], read by the
    numba SMO from K itself (no copy of the block). The k folds of a cross-validation at one θ
    share one K: each kernel value is then computed once instead of once per fold that trains
    on both points (3.2 times on average with 5 folds). ``K`` is kept as given when it is a
    C-ordered float64 array (it is read, never written)."""

    def __init__(self, K, rows):
        self.K = np.ascontiguousarray(K, dtype=np.float64)
        self.rows = np.ascontiguousarray(rows, dtype=np.int64)
        if self.K.ndim != 2 or self.K.shape[0] != self.K.shape[1]:
            raise ValueError(f"K must be a square matrix, got shape {self.K.shape}")
        if self.rows.ndim != 1 or (self.rows.size and (self.rows.min() < 0 or
                                                        self.rows.max() >= self.K.shape[0])):
            raise ValueError(f"rows must be a 1-D array of indices in 0..{self.K.shape[0] - 1}")
        self.shape = (self.rows.size, self.rows.size)


def gram_can_be_shared(X, kernel: Kernel) -> bool:
    """Whether trainings on parts of X's rows may read one K(X, X) (:class:`GramRows`) instead
    of computing their own kernel rows: dense X and an RBF or polynomial kernel (a linear
    kernel row costs no more than reading it; sparse rows are computed in the SMO)."""
    return not issparse(X) and type(kernel) in (RBFKernel, PolynomialKernel)


class SmoRowsData(NamedTuple):
    """What the numba SMO computes kernel rows from (:func:`smo_rows_data`)."""

    data: object        # the pair (K, rows), the CSR/CSC tuple, X, or Xᵀ when ``pieces``
    sq: np.ndarray      # ‖x_i‖² of the rows as the SMO sees them (zeros for a kernel matrix)
    d_eff: float        # what one kernel value costs: entries read per row
    pieces: int         # 1: rows computed in pieces from Xᵀ on the solve's threads (``_rows``)
    code: int           # the kernel code the SMO computes with: PRECOMPUTED for a pair (K, rows)


#: Sparse X whose walk share reaches ``_sparse.DENSE_MIN_WALK`` gets its rows in pieces from a
#: dense Xᵀ, as dense features mostly zeros do, when that Xᵀ takes at most this share of the row
#: cache (reasons: ``docs/decisions.md``, "Sparse data as dense arrays").
DENSE_SPARSE_CACHE_SHARE = 0.25

#: Dense X of at least GRAM_MIN_ROWS rows (and fewer than the rows in pieces need) and
#: GRAM_MIN_FEATURES features whose K(X, X) takes at most GRAM_CACHE_SHARE of the row cache: the
#: SMO reads its rows from K computed at once by BLAS (``Kernel.block``) instead of computing each
#: row as it needs it (reasons: ``docs/decisions.md``, "A solve's kernel matrix at once").
GRAM_MIN_ROWS = 1000
GRAM_MIN_FEATURES = 100
GRAM_CACHE_SHARE = 0.25


def smo_rows_data(X, kernel: Kernel, cache_bytes: float = 0.0,
                  pieces: bool = False) -> SmoRowsData:
    """X (dense, CSR or :class:`GramRows`) laid out for the numba SMO's kernel rows at
    ``kernel`` (module docstring); ``cache_bytes``: the solve's row cache, which bounds a dense
    Xᵀ of sparse X (``DENSE_SPARSE_CACHE_SHARE``) and the kernel matrix of dense X
    (``GRAM_CACHE_SHARE``); ``pieces``: the rows of dense X in pieces whatever n (the caller's
    solver works by blocks, ``qp.blocks_fit``), not from K computed at once."""
    code = kernel.spec()[0]
    n = X.shape[0]
    if isinstance(X, GramRows):
        if code != PRECOMPUTED:
            raise ValueError("rows of a kernel matrix (GramRows) need the PrecomputedKernel")
        return SmoRowsData((X.K, X.rows), np.zeros(n), 1.0, 0, code)   # a row costs n reads
    if issparse(X):
        # CSR: rows computed in numba from the CSR/CSC arrays, not centred (centring would
        # densify; see ``RBFKernel.block`` for why sparse data do not need it)
        d_eff = entries_per_row(X)
        X = kernel.prepare(X)
        if code != PRECOMPUTED and walk_share(X) >= _sparse.DENSE_MIN_WALK:
            X = check_csr(X)
            cols = column_counts(X)[0]
            if 8.0 * n * cols.size <= DENSE_SPARSE_CACHE_SHARE * cache_bytes:
                # rows in pieces from a dense Xᵀ of the columns used (not centred: as sparse)
                return SmoRowsData(dense_transpose(X, cols), sq_norms(X), d_eff, 1, code)
        return SmoRowsData(numba_data(X), sq_norms(X), d_eff, 0, code)
    K = None if pieces else gram_if_pays(X, kernel, cache_bytes)
    if K is not None:
        return SmoRowsData((K, np.arange(n)), np.zeros(n), 1.0, 0, PRECOMPUTED)
    X = np.ascontiguousarray(kernel.prepare(X))
    # rows in pieces (``_rows``, issue 32), the solver then taking Xᵀ: from CHUNKED_ROWS_MIN
    # rows, on the solve's threads; for a solve by blocks (``pieces``: the block solver's
    # layout); at any n for data mostly zeros (one-hot features stored dense), whose pieces
    # skip the zeros that a BLAS row multiplies (a9a: 14 of 123 columns)
    mostly_zeros = 2 * np.count_nonzero(X) <= X.size
    pieces = int(code != PRECOMPUTED and (n >= CHUNKED_ROWS_MIN or mostly_zeros or pieces))
    if code == RBF and not mostly_zeros:
        # exp(−γ‖x − z‖²) is translation invariant: centring makes ‖x‖² + ‖z‖² − 2⟨x, z⟩
        # lose far fewer digits on data far from the origin. Not for data mostly zeros, as
        # not for sparse data (``RBFKernel.block``): centring would make every entry
        # non-zero, which the pieces skip.
        X = np.ascontiguousarray(X - column_mean(X))
    sq = np.einsum("ij,ij->i", X, X) if code != PRECOMPUTED else np.zeros(n)
    d_eff = X.shape[1]
    if pieces:
        X = np.ascontiguousarray(X.T)
    return SmoRowsData(X, sq, d_eff, pieces, code)


def gram_pays(X, kernel: Kernel, cache_bytes: float, copies: int = 1) -> bool:
    """Whether a solve on the rows of dense X, ``copies`` times over (the SVR's 2l variables:
    twice), reads its kernel rows from K(X, X) computed at once (``GRAM_MIN_ROWS``,
    ``GRAM_MIN_FEATURES``, ``GRAM_CACHE_SHARE``, counted on the copies' rows): an RBF or
    polynomial kernel (a linear row costs no more than reading it), features mostly non-zero
    (else rows in pieces skip the zeros), fewer rows than ``CHUNKED_ROWS_MIN``. One BLAS product
    makes all n rows at the speed of a matrix product, where the SMO makes each row it needs by
    a matrix–vector product that reads all of X (200 features: 9 times slower a row)."""
    n, d = copies * X.shape[0], X.shape[1]
    return (gram_can_be_shared(X, kernel) and GRAM_MIN_ROWS <= n < CHUNKED_ROWS_MIN
            and d >= GRAM_MIN_FEATURES and 8.0 * n * n <= GRAM_CACHE_SHARE * cache_bytes
            and 2 * np.count_nonzero(X) > X.size)


def gram_if_pays(X, kernel: Kernel, cache_bytes: float, copies: int = 1):
    """K(X, X) where :func:`gram_pays`, else None — None also where K is not finite (features
    too large for the kernel in float64): the rows computed one by one then, whose squared norms
    and diagonal the solver checks and reports (``qp.check_kernel_finite``)."""
    if not gram_pays(X, kernel, cache_bytes, copies):
        return None
    with np.errstate(over="ignore", invalid="ignore"):     # (reported by the rows' check)
        K = kernel.block(X)
    return K if np.isfinite(K).all() else None
