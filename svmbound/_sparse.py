"""Sparse (scipy CSR) training data: the products the kernels, solvers and criteria need,
without ever building a dense copy of X (issue 13).

A CSR matrix stays CSR through every layer (DESIGN.md §6: X is a dense array or CSR). All a
dot-product kernel (linear, polynomial, RBF) needs is

* the row norms ‖x_i‖² (from the CSR data alone),
* blocks of inner products ⟨x_i, z_j⟩ for the requested rows only, returned dense
  (``dots``): dense @ dense by BLAS, CSR with dense by scipy (the result is dense), CSR with
  CSR by a numba loop that scatters each row of X over the columns of Z (Z as CSC): the cost is
  the number of products of matching non-zeros, the output the dense block;
* for the SMO's kernel rows, ``numba_data``: a tuple of the CSR and CSC arrays of X, from which
  ``solvers._smo`` computes ⟨x_i, x_j⟩ for all j in one pass over the non-zeros of the columns
  x_i touches.

Dense-only features (ARD kernels, PCA-space selection) call ``reject_sparse`` for a clear error.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from sklearn.utils.extmath import row_norms
from sklearn.utils.sparsefuncs import mean_variance_axis


def issparse(X) -> bool:
    """True for a scipy sparse matrix or array (or a :class:`UsedColumns` of one)."""
    if type(X) is np.ndarray:        # the common case, without the import (called per solve)
        return False
    if isinstance(X, UsedColumns):
        return True
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover
        return False
    return sp.issparse(X)


def entries_per_row(X) -> float:
    """The entries a row of X holds: its stored values per row (nnz / n) for sparse X, the
    number of columns for dense X — what one kernel value costs."""
    return X.nnz / max(X.shape[0], 1) if issparse(X) else X.shape[1]


def c_contiguous(X):
    """X itself when sparse, else X as a C-contiguous array (the kernels' row layout)."""
    return X if issparse(X) else np.ascontiguousarray(X)


def stack_rows(*blocks):
    """The rows of ``blocks`` one under the other: CSR when any of them is sparse, else a dense
    array."""
    if any(issparse(B) for B in blocks):
        import scipy.sparse as sp

        return sp.vstack([sp.csr_matrix(B) for B in blocks], format="csr")
    return np.vstack(blocks)


def reject_sparse(X, what: str) -> None:
    """A ValueError naming ``what`` when X is sparse (a feature that needs dense data)."""
    if issparse(X):
        raise ValueError(f"{what} needs dense input and does not support sparse X "
                         f"({X.shape[0]} x {X.shape[1]} {type(X).__name__} with {X.nnz} "
                         f"non-zeros); use a kernel without per-feature scaling (rbf, poly, "
                         f"linear), or densify X yourself (X.toarray()) if it fits in memory")


def check_csr(X, name: str = "X"):
    """A canonical float64 CSR copy-if-needed of the scipy sparse ``X``: sorted indices, no
    duplicates, finite values; the same
    checks as the dense ``check_X`` (complex values, empty shape, NaN/infinity)."""
    import scipy.sparse as sp

    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    if np.dtype(X.dtype).kind == "c":
        raise ValueError(f"Complex data not supported: {name} has complex values "
                         f"(dtype {X.dtype}); pass the real part, or real and imaginary parts "
                         "as separate features")
    if np.dtype(X.dtype).kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got a sparse matrix of dtype {X.dtype}")
    if X.shape[0] == 0:
        raise ValueError(f"{name} is empty: 0 samples")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has 0 features")
    X = sp.csr_matrix(X, dtype=np.float64)        # converts COO, CSC, LIL, ... (copies those)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()                        # also sorts the indices
    if not np.all(np.isfinite(X.data)):
        k = int(np.flatnonzero(~np.isfinite(X.data))[0])
        row = int(np.searchsorted(X.indptr, k, side="right") - 1)
        raise ValueError(f"{name} contains NaN or infinity (first at row {row}, column "
                         f"{int(X.indices[k])})")
    return X


def sq_norms(X) -> np.ndarray:
    """‖x_i‖² for every row (dense or sparse): scikit-learn's ``row_norms(X, squared=True)``
    (the same values as this module's former numba loop, bit for bit, and as fast); for a dense
    NumPy array the einsum that ``row_norms`` makes, without its array-API dispatch (~15 µs a
    call, made for every kernel block and solve)."""
    if type(X) is np.ndarray:
        return np.einsum("ij,ij->i", X, X)
    if isinstance(X, UsedColumns):
        X = X.csr
    if issparse(X) and X.format != "csr":
        X = X.tocsr()
    return row_norms(X, squared=True)


@njit(cache=True, nogil=True)
def _csr_csc_dots(adata, aind, aptr, bdata, bind, bptr, out):
    """out[i, j] = ⟨a_i, b_j⟩ for A in CSR and B in CSC (B's columns are A's features)."""
    for i in range(out.shape[0]):
        row = out[i]
        for j in range(row.shape[0]):
            row[j] = 0.0
        for p in range(aptr[i], aptr[i + 1]):
            k = aind[p]
            if k < 0:          # a feature B never uses (UsedColumns)
                continue
            v = adata[p]
            for q in range(bptr[k], bptr[k + 1]):
                row[bind[q]] += v * bdata[q]


def dots(X, Z, out=None) -> np.ndarray:
    """The dense block of inner products X Zᵀ (X, Z dense or CSR), written to ``out`` when
    given. X and Z themselves are never densified: where the walk would read about as much as
    BLAS (:func:`_blas_pays`), dense copies of them over the columns Z uses, no larger than the
    block, are multiplied instead."""
    sx, sz = issparse(X), issparse(Z)
    if not sx and not sz:
        if out is None:
            return X @ Z.T
        return np.matmul(X, Z.T, out=out)
    if out is None:
        out = np.empty((X.shape[0], Z.shape[0]))
    if sx and sz:
        X = X.tocsr()
        Zr = Z.csr if isinstance(Z, UsedColumns) else Z.tocsr()
        cols = Z.cols if isinstance(Z, UsedColumns) else column_counts(Zr)[0]
        if _blas_pays(X, Zr, cols.size, out.shape):
            np.matmul(_dense(X, cols), _dense(Zr, cols).T, out=out)
            return out
        if isinstance(Z, UsedColumns):
            _csr_csc_dots(X.data, Z.position(X.indices), X.indptr, Z.data, Z.indices,
                          Z.indptr, out)
            return out
        Zc = Z.tocsc()           # column k: the rows of Z with feature k
        _csr_csc_dots(X.data, X.indices, X.indptr, Zc.data, Zc.indices, Zc.indptr, out)
        return out
    if isinstance(Z, UsedColumns):
        Z = Z.csr
    if sx:                       # CSR @ dense: scipy returns a dense array
        out[...] = np.asarray(X @ np.ascontiguousarray(Z.T))
    else:                        # dense @ CSRᵀ = (CSR @ denseᵀ)ᵀ
        out[...] = np.asarray(Z @ np.ascontiguousarray(X.T)).T
    return out


def _blas_pays(X, Z, n_cols, shape) -> bool:
    """Whether X Zᵀ (X, Z CSR) is computed from dense copies by BLAS (:func:`dots`): the walk
    share of X against Z at least ``DENSE_MIN_WALK``, and the dense copies of X and Z (over the
    ``n_cols`` columns Z uses) no larger than the block computed."""
    return ((shape[0] + shape[1]) * n_cols <= shape[0] * shape[1]
            and walk_share(X, Z) >= DENSE_MIN_WALK)


def _positions(used, indices) -> np.ndarray:
    """Each column index's position in the sorted ``used``, −1 where it is not used."""
    if used.size == 0:
        return np.full(indices.shape, -1, dtype=np.int64)
    pos = np.searchsorted(used, indices)
    hit = used[np.minimum(pos, used.size - 1)] == indices
    return np.where(hit, pos, -1).astype(np.int64)


def compact_columns(X) -> tuple:
    """(CSR X without the columns that store no entry, the indices of the columns kept),
    (X, None) when every column stores one. The stored entries keep their order within each
    row, so every row's dot products and norms are summed in the same order."""
    X = X.tocsr()
    used = np.unique(X.indices)
    if used.size == X.shape[1]:
        return X, None
    indices = np.searchsorted(used, X.indices).astype(X.indices.dtype)
    return X.__class__((X.data, indices, X.indptr), shape=(X.shape[0], used.size)), used


class UsedColumns:
    """A CSR matrix Z as the right factor of repeated ``dots``: its CSC arrays over the columns
    it uses (``cols``) only. ``Z.tocsc()`` holds one pointer per column, used or not: a stray
    feature index such as 134217728 made every prediction allocate 0.5 GB (issue 29 item 9).
    ``dots`` maps X's column indices to these columns (−1 for a column Z never uses, which adds
    nothing to any product); the products are summed in the same order as with the full CSC."""

    def __init__(self, Z):
        self.csr = Z.tocsr()
        self.shape = self.csr.shape
        compact, cols = compact_columns(self.csr)
        self.cols = np.arange(self.shape[1]) if cols is None else cols
        csc = compact.tocsc()
        self.data, self.indices, self.indptr = csc.data, csc.indices, csc.indptr

    def position(self, indices) -> np.ndarray:
        """Each column index's position in ``cols``, −1 where Z does not use the column."""
        return _positions(self.cols, indices)


def numba_data(X) -> tuple:
    """What the numba SMO needs to compute kernel rows of the CSR matrix X: the tuple
    (row data, row indices, row pointers, column data, column row-indices, column pointers),
    indices as int64 (one compiled version of the solver)."""
    X = X.tocsr()
    Xc = X.tocsc()
    Xc.sort_indices()
    i64 = np.int64
    return (np.ascontiguousarray(X.data, dtype=np.float64),
            np.ascontiguousarray(X.indices, dtype=i64), np.ascontiguousarray(X.indptr, dtype=i64),
            np.ascontiguousarray(Xc.data, dtype=np.float64),
            np.ascontiguousarray(Xc.indices, dtype=i64),
            np.ascontiguousarray(Xc.indptr, dtype=i64))


#: Sparse data whose walk share (:func:`walk_share`) reaches this are computed on as dense
#: arrays: kernel rows in pieces from a dense Xᵀ (``kernels.precomputed.smo_rows_data``) and
#: blocks of inner products by BLAS (:func:`dots`); reasons: ``docs/decisions.md``, "Sparse
#: data as dense arrays".
DENSE_MIN_WALK = 0.3


def walk_share(X, Z=None) -> float:
    """Σ_k nnz_X(k)·nnz_Z(k) / (nnz(X) · n_Z) over the columns k of the sparse X and Z (Z = X
    by default; nnz_X(k): column k's stored entries in X): what the inner products of every row
    of X with every row of Z read by the sparse walk (for each non-zero x_ik, column k's entries
    of Z: ``kernels._rows.row_dots``, :func:`dots`), as a share of what they read from a dense
    Zᵀ (for each non-zero x_ik, all n_Z entries of row k of Zᵀ). 1 for a column full in every
    row; the density itself when the columns are equally filled."""
    X = X.tocsr()
    Z = X if Z is None else Z.tocsr()
    if X.nnz == 0 or Z.nnz == 0:
        return 0.0
    cols, nx = column_counts(X)
    if Z is X:
        shared = float(nx @ nx)
    else:
        z_cols, nz = column_counts(Z)
        _, ix, iz = np.intersect1d(cols, z_cols, assume_unique=True, return_indices=True)
        shared = float(nx[ix] @ nz[iz])
    return shared / (float(X.nnz) * Z.shape[0])


def column_counts(X) -> tuple:
    """(the columns of the CSR matrix X that store entries, rising; their numbers of entries,
    as floats): by one count over the columns when X is not much wider than its entries, else by
    sorting the column indices (no array of a width such as 10⁸, issue 29 item 9)."""
    if X.shape[1] <= 4 * X.nnz + 1024:
        counts = np.bincount(X.indices, minlength=X.shape[1])
        cols = np.flatnonzero(counts)
        return cols, counts[cols].astype(np.float64)
    cols, counts = np.unique(X.indices, return_counts=True)
    return cols, counts.astype(np.float64)


def _dense(X, cols, transpose=False) -> np.ndarray:
    """The canonical CSR matrix X over its columns ``cols`` only (rising; X's entries in other
    columns dropped: with a Z that stores nothing there they add nothing to an inner product),
    as a dense C-ordered array, or its transpose."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    pos = _positions(cols, X.indices)
    keep = pos >= 0
    if transpose:
        out = np.zeros((cols.size, X.shape[0]))
        out[pos[keep], rows[keep]] = X.data[keep]
    else:
        out = np.zeros((X.shape[0], cols.size))
        out[rows[keep], pos[keep]] = X.data[keep]
    return out


def dense_transpose(X, cols) -> np.ndarray:
    """Xᵀ of the canonical CSR matrix X over the columns ``cols`` that store its entries
    (``column_counts``: the others add nothing to any inner product), dense, C-ordered."""
    return _dense(X, cols, transpose=True)


def all_rows_equal(X) -> bool:
    """Whether every row of the canonical CSR matrix X is the same point (exact)."""
    X = X.tocsr()
    n = X.shape[0]
    lengths = np.diff(X.indptr)
    if np.any(lengths != lengths[0]):
        return False
    k = int(lengths[0])
    if k == 0:
        return True
    ind = X.indices.reshape(n, k)
    dat = X.data.reshape(n, k)
    return bool(np.all(ind == ind[0]) and np.all(dat == dat[0]))


def column_variance_sum(X) -> float:
    """Σ_k Var(X_k) of a CSR matrix (population variance, as ``np.var``): scikit-learn's
    ``mean_variance_axis``."""
    return float(mean_variance_axis(X.tocsr(), axis=0)[1].sum())


def entry_variance(X) -> float:
    """Variance of all n·d entries of X (``X.var()``; of the dense matrix for CSR X)."""
    if not issparse(X):
        return float(np.asarray(X).var())
    N = float(X.shape[0]) * X.shape[1]
    m = X.data.sum() / N
    return float(max((X.data @ X.data) / N - m * m, 0.0))
