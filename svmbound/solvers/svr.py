"""ε-SVR dual solver (LIBSVM's formulation, Chang & Lin's LIBSVM paper §2.3), L1 and L2 loss.

L1 loss (ε-insensitive hinge), on the 2l variables a = (α, α*):

    min ½ (α − α*)ᵀ K (α − α*) + ε Σ (α_i + α_i*) − Σ z_i (α_i − α_i*)
    s.t. Σ (α_i − α_i*) = 0,  0 ≤ α_i, α_i* ≤ C_i,

which is the SMO's problem min ½ aᵀQa + pᵀa, yᵀa = 0, 0 ≤ a ≤ u with y = (1…1, −1…−1),
Q_ij = y_i y_j K(x_(i mod l), x_(j mod l)), p = (ε − z, ε + z), u = (C_i, C_i) — solved by the same
numba SMO as the classifier, on the rows of X stacked twice (``run_smo``). L2 loss (squared
ε-insensitive loss, ½‖w‖² + (C/2) Σ (ξ_i² + ξ_i*²)): the same with u = +∞ and the diagonal shift
1/C_i on all 2l variables — the hard-margin problem on K̃ = K + I/C, as for the L2-SVM.

The model is f(x) = Σ_i β_i K(x_i, x) + b with β = α − α* (at most one of α_i, α_i* is nonzero
for ε > 0) and b = −ρ, LIBSVM's ``sv_coef`` and ``−rho``. Per-sample C_i = C·w_i (``weights``:
scikit-learn's sample_weight), warm starts from a solution at another (C, ε, kernel): the 2l
variables scaled by C_new/C_old and clipped (``svm.warm_start_alpha``); the constraints do not
depend on ε or the kernel, so the start is feasible.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._sparse import stack_rows
from .._validation import check_positive
from .._weights import check_weights
from ..kernels import GramRows, Kernel, PrecomputedKernel, check_kernel, gram_if_pays
from .qp import (DEFAULT_CACHE_MB, cache_megabytes, cap_reason, check_tol, n_cache_rows, run_smo,
                 warn_cap)
from .svm import check_loss, l2_shift, upper_bounds, warm_start_alpha


@dataclass
class SVRSolution:
    """Solution of the ε-SVR dual at (C, ε, kernel).

    ``a`` is the SMO's 2l vector (α, α*), ``gradient`` its Qa + p; ``beta`` = α − α*, ``b`` the
    offset. ``objective`` is the dual's minimum ½aᵀQ̃a + pᵀa (Q̃ with the L2 shift)."""

    a: np.ndarray
    b: float
    objective: float
    C: float
    epsilon: float
    loss: str
    n_iter: int
    max_violation: float
    converged: bool
    gradient: np.ndarray = field(repr=False)
    weights: np.ndarray | None = field(default=None, repr=False)
    stop_reason: str | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return self.a.size // 2

    @property
    def beta(self) -> np.ndarray:
        """β = α − α*, the model's coefficients."""
        return self.a[:self.n] - self.a[self.n:]

    @property
    def support(self) -> np.ndarray:
        """Indices with β_i ≠ 0."""
        return np.flatnonzero(self.beta != 0)

    @property
    def upper(self) -> np.ndarray:
        """The box C_i of every α_i (+inf for L2)."""
        return upper_bounds(self.loss, self.C, self.n, self.weights)

    @property
    def bounded(self) -> np.ndarray:
        """Indices with |β_i| = C_i (L1 only; empty for L2)."""
        if self.loss == "l2":
            return np.empty(0, dtype=np.int64)
        return np.flatnonzero(np.abs(self.beta) >= self.upper)

    def training_prediction(self, z) -> np.ndarray:
        """f(x_i) on the training points from the gradient, without a kernel value:
        (Kβ)_i = G_i − p_i − h_i α_i (first half of the 2l variables; h the L2 shift)."""
        n = self.n
        z = np.asarray(z, dtype=np.float64)
        kb = self.gradient[:n] - (self.epsilon - z)
        if self.loss == "l2":
            kb = kb - l2_shift(self.C, self.weights) * self.a[:n]
        return kb + self.b


def _stacked(X):
    """The rows of X twice (dense or CSR): the 2l variables' rows."""
    return stack_rows(X, X)


def _variables_rows(X, kernel: Kernel, cache_size):
    """(X, kernel) for ``run_smo`` on the 2l variables: the rows of X twice, or, where that
    solve reads its rows from a kernel matrix computed at once (``precomputed.gram_if_pays``),
    K(X, X) computed once and each of its rows read for both α_i and α_i* (``GramRows``: a
    quarter of the kernel matrix of the rows twice)."""
    n_cache_rows(2 * X.shape[0], cache_size)          # (validates cache_size)
    K = gram_if_pays(X, kernel, float(cache_megabytes(cache_size)) * 2**20, copies=2)
    if K is None:
        return _stacked(X), kernel
    return GramRows(K, np.tile(np.arange(X.shape[0]), 2)), PrecomputedKernel()


def solve_svr_dual(X, z, kernel: Kernel, C: float, epsilon: float, *, loss: str = "l1",
                   tol: float = 1e-3, start: SVRSolution | None = None,
                   cache_size: float = DEFAULT_CACHE_MB, max_iter: int | None = None,
                   weights=None) -> SVRSolution:
    """Solve the ε-SVR dual (module docstring) by the SMO with shrinking.

    X : (l, d) array or CSR (validated by the caller); z : (l,) real targets; C > 0; ε ≥ 0;
    loss 'l1' | 'l2'; tol : the SMO's KKT tolerance (LIBSVM's eps); start : a solution on the
    same rows at any (C, ε, kernel) to warm-start from; weights : per-sample w_i > 0
    (C_i = C·w_i). A solve stopped at the default iteration cap warns and has
    ``converged=False``.
    """
    kernel = check_kernel(kernel)
    C = check_positive(C, "C")
    epsilon = float(epsilon)
    if not np.isfinite(epsilon) or epsilon < 0:
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    loss = check_loss(loss)
    tol = check_tol(tol)
    z = np.asarray(z, dtype=np.float64)
    n = z.size
    weights = check_weights(weights, n)
    w2 = None if weights is None else np.concatenate([weights, weights])
    y2 = np.concatenate([np.ones(n), -np.ones(n)])
    p = np.concatenate([epsilon - z, epsilon + z])
    ub = upper_bounds(loss, C, 2 * n, w2)
    if start is None:
        a0 = np.zeros(2 * n)
    else:
        if start.a.shape != (2 * n,) or start.loss != loss:
            raise ValueError(f"start must be a {loss} SVR solution on {n} rows")
        a0 = warm_start_alpha(start.a, y2, start.C, C, loss, w2)
    shift = l2_shift(C, w2) if loss == "l2" else 0.0
    rows, rows_kernel = _variables_rows(X, kernel, cache_size)
    res = run_smo(rows, y2, p, ub, a0, rows_kernel, scale=1.0, shift=shift, tol=tol,
                  max_iter=max_iter, cache_mb=cache_size)
    objective = 0.5 * float(res.a @ (res.gradient + p))
    stop_reason = None
    if not res.converged:
        stop_reason = cap_reason(X, kernel, C if weights is None else C * weights)
        if max_iter is None:
            warn_cap(f"SVR dual ({loss}, C = {C:.3g}, epsilon = {epsilon:.3g}, {kernel.name} "
                     "kernel)", res, 2 * n, tol, stop_reason)
    return SVRSolution(a=res.a, b=-res.rho, objective=objective, C=C, epsilon=epsilon,
                       loss=loss, n_iter=res.n_iter, max_violation=res.violation,
                       converged=res.converged, gradient=res.gradient, weights=weights,
                       stop_reason=stop_reason)


def svr_predict(X_train, beta, b, kernel: Kernel, X) -> np.ndarray:
    """f(x) = Σ_i β_i K(x_i, x) + b over the support vectors (β_i ≠ 0)."""
    sv = np.flatnonzero(beta != 0)
    if sv.size == 0:
        return np.full(X.shape[0], float(b))
    return kernel.block_dot(X, X_train[sv], beta[sv]) + b
