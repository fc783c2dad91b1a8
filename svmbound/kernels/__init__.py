"""Kernel layer (DESIGN.md §2): the only place that knows dense X from sparse X.

* :mod:`.standard` — linear, RBF (θ = ln σ²) and polynomial kernels with their θ-derivatives
  (Chung §1, DESIGN.md §2), rows and blocks from dense or CSR data;
* :mod:`.ard` — the RBF and scaled polynomial kernels with one ln σ_k² per feature or group
  (Chapelle §7.3, §8);
* :mod:`.choice` — the kernel a search starts from, by the estimators' ``kernel`` name;
* :mod:`.derivatives` — ∂K/∂θ_k in row blocks and its contraction with a weight matrix (the
  span bound's gradient), dense or CSR;
* :mod:`.precomputed` — a kernel given as its matrix, rows of a shared kernel matrix, and the
  data the numba SMO computes kernel rows from;
* :mod:`._rows` — those rows in numba (dense, CSR, a kernel matrix; in pieces on threads);
* :mod:`._sums` — numba sums over kernel values (the RBF contractions, held-out decision values
  from a shared kernel matrix).
"""

from ._sums import held_out_sums
from .ard import ARDRBFKernel, ScaledPolynomialKernel, check_groups, tile_groups
from .choice import ARD_KERNELS, DEFAULT_DEGREE_RANGE, ESTIMATOR_KERNELS, base_kernel, split_degree
from .precomputed import (GramRows, PrecomputedKernel, SmoRowsData, gram_can_be_shared,
                          gram_if_pays, gram_pays, smo_rows_data)
from .standard import (KERNELS, POLY, RBF, Kernel, LinearKernel, PolynomialKernel, RBFKernel,
                       _right, _row_blocks, _support, check_kernel, column_mean, is_rbf_params,
                       make_kernel, rbf_gamma, with_gamma)

__all__ = ["Kernel", "LinearKernel", "RBFKernel", "PolynomialKernel", "ARDRBFKernel",
           "ScaledPolynomialKernel", "KERNELS", "ARD_KERNELS", "ESTIMATOR_KERNELS",
           "DEFAULT_DEGREE_RANGE", "POLY", "RBF", "base_kernel", "split_degree", "check_kernel",
           "check_groups", "tile_groups", "column_mean", "is_rbf_params", "make_kernel",
           "rbf_gamma", "with_gamma", "PrecomputedKernel", "GramRows", "SmoRowsData",
           "smo_rows_data", "gram_can_be_shared", "gram_pays", "gram_if_pays",
           "held_out_sums"]
