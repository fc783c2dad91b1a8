"""Numba loops behind the kernels' derivative contractions: one pass over a block of inner
products, no n×n temporaries."""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def rbf_dist_weighted_sum(dot, sqa, sqb, a, b, gamma):
    """Σ_ij a_i b_j exp(−γ d²_ij) d²_ij with d²_ij = sqa_i + sqb_j − 2 dot_ij (clipped at 0).

    The caller centres the rows first (``RBFKernel.contract``): on data far from the origin
    sqa + sqb − 2·dot cancels every digit of d²."""
    total = 0.0
    for i in range(dot.shape[0]):
        row = 0.0
        for j in range(dot.shape[1]):
            d2 = sqa[i] + sqb[j] - 2.0 * dot[i, j]
            if d2 < 0.0:
                d2 = 0.0
            row += b[j] * np.exp(-gamma * d2) * d2
        total += a[i] * row
    return total
