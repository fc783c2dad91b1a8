"""Radius of the smallest ball enclosing the mapped training points.

R² = max_β βᵀ(diag K + h) − βᵀ(K + hI)β   s.t. eᵀβ = 1, β ≥ 0     (Chung 1.3, Chapelle 6.2)

with h = 0 for R² and h = 1/C for R̃² of the L2-SVM (Chung 1.8: kernel K + I/C), or per-sample
h_i = 1/(C w_i) for the L2-SVM with weights (kernel K + diag(1/C_i)): then
R̃² = max βᵀ(diag K + h) − βᵀ(K + diag h)β. Any kernel
works, including a non-constant diagonal (polynomial). Solved by the same SMO as the SVM with
y = e, p = −(diag K + h), Q = 2(K + hI). The cold start is β = e_i for the point with the largest
K_ii (DESIGN.md §5: much faster than the uniform start).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_X
from ..kernels import Kernel
from .qp import DEFAULT_CACHE_MB, run_smo


@dataclass
class RadiusSolution:
    beta: np.ndarray
    r2: float
    shift: float | np.ndarray
    n_iter: int
    max_violation: float
    converged: bool
    n_kernel_rows: int = 0


def warm_start_beta(beta_prev) -> np.ndarray:
    """Clip to β ≥ 0 and renormalise to eᵀβ = 1."""
    b = np.clip(np.asarray(beta_prev, dtype=np.float64), 0.0, None)
    s = b.sum()
    if not np.isfinite(s) or s <= 0:
        raise ValueError("beta0 has no positive entry; cannot warm-start the radius problem")
    return b / s


def solve_radius(X, kernel: Kernel, *, shift=0.0, tol: float = 1e-3, beta0=None,
                 cache_size: float = DEFAULT_CACHE_MB, max_iter: int | None = None,
                 check_input: bool = True) -> RadiusSolution:
    """R² (shift = 0) or R̃² (shift = 1/C, or the vector of 1/C_i) with the optimal β."""
    if check_input:
        X = check_X(X)
    n = X.shape[0]
    if np.ndim(shift) == 0:
        shift = float(shift)
        if not np.isfinite(shift) or shift < 0:
            raise ValueError(f"shift must be a finite number >= 0, got {shift!r}")
    else:
        shift = np.ascontiguousarray(shift, dtype=np.float64)
        if shift.shape != (n,) or not np.all(np.isfinite(shift)) or np.any(shift < 0):
            raise ValueError(f"shift must be a finite number >= 0 or {n} of them, got an array "
                             f"of shape {shift.shape}")
    d = kernel.diag(X) + shift
    if beta0 is None:
        b0 = np.zeros(n)
        b0[int(np.argmax(d))] = 1.0
    else:
        b0 = np.asarray(beta0, dtype=np.float64)
        if b0.shape != (n,):
            raise ValueError(f"beta0 must have shape ({n},), got {b0.shape}")
        b0 = warm_start_beta(b0)
    res = run_smo(X, np.ones(n), -d, np.full(n, np.inf), b0, kernel, scale=2.0, shift=shift,
                  tol=tol, max_iter=max_iter, cache_mb=cache_size)
    # optimum of min ½βᵀ(2K̃)β − dᵀβ is −R²; ½βᵀ(G + p) with G = 2K̃β − d.
    r2 = -0.5 * float(res.a @ (res.gradient - d))
    return RadiusSolution(beta=res.a, r2=r2, shift=shift, n_iter=res.n_iter,
                          max_violation=res.violation, converged=res.converged,
                          n_kernel_rows=res.n_kernel_rows)
