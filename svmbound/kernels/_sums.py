"""Numba loops behind the kernels' derivative contractions and the held-out decision values
from a shared kernel matrix: one pass over a block of inner products, no n×n temporaries."""

import numpy as np
from numba import njit

from .._vexp import exp_nonpositive


@njit(cache=True, nogil=True)
def rbf_dist_weighted_sum(dot, sqa, sqb, a, b, gamma):
    """Σ_ij a_i b_j exp(−γ d²_ij) d²_ij with d²_ij = sqa_i + sqb_j − 2 dot_ij (clipped at 0).

    The caller centres the rows first (``RBFKernel.contract``): on data far from the origin
    sqa + sqb − 2·dot cancels every digit of d²."""
    m = dot.shape[1]
    d2 = np.empty(m)
    e = np.empty(m)
    total = 0.0
    for i in range(dot.shape[0]):
        for j in range(m):
            v = sqa[i] + sqb[j] - 2.0 * dot[i, j]
            if v < 0.0:
                v = 0.0
            d2[j] = v
            e[j] = -gamma * v
        exp_nonpositive(e)                   # vectorised (svmbound._vexp)
        row = 0.0
        for j in range(m):
            row += b[j] * e[j] * d2[j]
        total += a[i] * row
    return total


@njit(cache=True, nogil=True)
def rbf_exponents_from_dots(dot, sqx, sqz, gamma):
    """dot_ij ← −γ max(‖x_i‖² + ‖z_j‖² − 2 dot_ij, 0), in place: the RBF kernel's exponents from
    a block of inner products, in one pass with the GIL released. The same operations in the
    same order as the NumPy steps it replaced ((−2·dot + ‖x‖²) + ‖z‖², clip, ×(−γ)), so the
    same bits."""
    for i in range(dot.shape[0]):
        for j in range(dot.shape[1]):
            v = dot[i, j] * -2.0
            v = v + sqx[i]
            v = v + sqz[j]
            if v < 0.0:
                v = 0.0
            dot[i, j] = v * -gamma


@njit(cache=True, nogil=True)
def held_out_sums(K, test, cols, coef):
    """f_t = Σ_k coef_k K[cols_k, test_t] for every t: the decision values (without b) at the
    rows ``test`` of a model whose support vectors are the rows ``cols`` of a sample with the
    symmetric kernel matrix K (``criteria.reference.held_out_decision``). Reads single entries
    of K in place, with the GIL released: NumPy's fancy indexing copied blocks of K first."""
    out = np.zeros(test.shape[0])
    for k in range(cols.shape[0]):
        row = K[cols[k]]
        c = coef[k]
        for t in range(test.shape[0]):
            out[t] += c * row[test[t]]
    return out
