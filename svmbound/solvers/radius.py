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
from ..kernels import Kernel, check_kernel
from .qp import (DEFAULT_CACHE_MB, cap_reason, check_kernel_finite, check_start, check_tol,
                 run_smo, warn_cap)


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
    """Clip to β ≥ 0 and renormalise to eᵀβ = 1 (a ValueError for NaN, infinity or no
    positive entry)."""
    b = check_start(beta_prev, None, "beta0")
    b = np.clip(b, 0.0, None)
    s = b.sum()
    if not np.isfinite(s) or s <= 0:
        raise ValueError("beta0 has no positive entry; cannot warm-start the radius problem")
    return b / s


def radius_scale(X, kernel: Kernel, d: np.ndarray, i: int, shift) -> float:
    """max_j (K_ii + K_jj − 2K_ij) + 2h for the point i: the spread of the gradient of the
    radius QP at β = e_i (its KKT violation there), which lies between R² and 4R² + 2h (every
    point is at most 2R from x_i in feature space and one is at least R away). One kernel row."""
    row = kernel.row(X, i)
    s = np.broadcast_to(np.asarray(shift, dtype=np.float64), d.shape)
    dist2 = (d[i] - s[i]) + (d - s) - 2.0 * row
    return float(max(dist2.max(), 0.0) + 2.0 * s.max())


def solve_radius(X, kernel: Kernel, *, shift=0.0, tol: float = 1e-3, beta0=None,
                 cache_size: float = DEFAULT_CACHE_MB, max_iter: int | None = None,
                 check_input: bool = True) -> RadiusSolution:
    """R² (shift = 0) or R̃² (shift = 1/C, or the vector of 1/C_i) with the optimal β.

    ``tol`` is relative to the scale of the problem when that is below 1: the SMO stops when
    the KKT violation falls below tol·min(1, s), s = ``radius_scale`` ∈ [R², 4R² + 2h] (but not
    below 16 rounding units of the largest K_ii + h, which the gradient cannot resolve: a
    smaller tol is raised to that, where the SMO used to run to max_iter). The
    gradient differences of this QP are squared feature-space distances, so with a wide kernel
    (ln σ² = 10 on standardised data: all below 1e-3) an absolute tolerance stopped at the
    start point with R² = 0 and converged=True; with the relative one R² is accurate to about
    4·tol relative whatever the kernel width. ``beta0`` must be finite, of shape (n,), with a
    positive entry (a ValueError otherwise).
    """
    kernel = check_kernel(kernel)
    if check_input:
        X = check_X(X)
    n = X.shape[0]
    if np.ndim(shift) == 0:
        try:
            shift = float(shift)
        except (TypeError, ValueError):
            raise ValueError(f"shift must be a finite number >= 0, got {shift!r}") from None
        if not np.isfinite(shift) or shift < 0:
            raise ValueError(f"shift must be a finite number >= 0, got {shift!r}")
    else:
        try:
            shift = np.ascontiguousarray(shift, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"shift must be finite numbers >= 0, got {shift!r}") from None
        if shift.shape != (n,) or not np.all(np.isfinite(shift)) or np.any(shift < 0):
            raise ValueError(f"shift must be a finite number >= 0 or {n} of them, got an array "
                             f"of shape {shift.shape}")
    tol = check_tol(tol)
    d = kernel.diag(X)
    check_kernel_finite(d, kernel)
    d = d + shift
    i0 = int(np.argmax(d))
    if beta0 is None:
        b0 = np.zeros(n)
        b0[i0] = 1.0
    else:
        b0 = warm_start_beta(check_start(beta0, n, "beta0"))
    # relative below scale 1 (never looser than tol there), but not below what the float64
    # rounding of G (entries up to about max d) can resolve
    floor = 16.0 * np.finfo(np.float64).eps * float(np.abs(d).max())
    scale = radius_scale(X, kernel, d, i0, shift)
    check_kernel_finite([scale], kernel, f"the largest squared distance from row {i0}")
    tol_eff = max(tol * min(1.0, scale), floor)
    if tol_eff <= 0.0:        # every point at the origin of feature space: R² = 0 at any β
        tol_eff = tol
    res = run_smo(X, np.ones(n), -d, np.full(n, np.inf), b0, kernel, scale=2.0, shift=shift,
                  tol=tol_eff, max_iter=max_iter, cache_mb=cache_size)
    # optimum of min ½βᵀ(2K̃)β − dᵀβ is −R²; ½βᵀ(G + p) with G = 2K̃β − d.
    r2 = -0.5 * float(res.a @ (res.gradient - d))
    if not res.converged and max_iter is None:   # the default cap: say so, with the reason
        warn_cap(f"radius QP ({kernel.name} kernel)", res, n, tol_eff, cap_reason(X, kernel))
    return RadiusSolution(beta=res.a, r2=r2, shift=shift, n_iter=res.n_iter,
                          max_violation=res.violation, converged=res.converged,
                          n_kernel_rows=res.n_kernel_rows)
