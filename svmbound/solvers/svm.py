"""SVM dual solver for L1 and L2 loss, with warm starts.

L1-SVM (Chung eq. 1.5):  max eᵀα − ½ αᵀQα,            0 ≤ α ≤ C, yᵀα = 0.
L2-SVM (Chung eq. 1.7):  max eᵀα − ½ αᵀ(Q + I/C)α,    α ≥ 0,     yᵀα = 0.

Q_ij = y_i y_j K(x_i, x_j). The decision function is f(x) = Σ α_i y_i K(x_i, x) + b.
At the optimum ‖w‖² = αᵀQα and, for L1, C·Σξ = eᵀα − ‖w‖² (Chung 1.6); for L2,
‖w̃‖² = ‖w‖² + C Σξ² = eᵀα and ξ = α/C.

Per-sample weights ``weights`` = w (C_i = C·w_i, scikit-learn's class_weight × sample_weight):
the L1 box becomes 0 ≤ α_i ≤ C w_i and the L2 diagonal I/C becomes diag(1/(C w_i)); the
formulas above hold with CΣξ → CΣw_iξ_i (L1), ξ_i = α_i/(C w_i) (L2). weights=None is the
unweighted problem, solved by exactly the same code as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_pm1, check_positive, check_X
from .._weights import check_weights, same_weights
from ..kernels import Kernel, check_kernel
from .qp import DEFAULT_CACHE_MB, cap_reason, check_start, check_tol, run_smo, warn_cap

LOSSES = ("l1", "l2")


def check_loss(loss: str) -> str:
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; valid losses: {', '.join(LOSSES)}")
    return loss


@dataclass
class DualSolution:
    """Solution of the SVM dual at (C, kernel).

    ``objective`` is the dual value eᵀα − ½αᵀQ̃α (Q̃ = Q for L1, Q + I/C for L2), equal to the
    primal optimum ½‖w‖² + CΣξ (L1) or ½‖w‖² + (C/2)Σξ² (L2). ``gradient`` is Q̃α − e, so
    αᵀQ̃α = αᵀ(gradient + e) needs no further kernel evaluation.
    """

    alpha: np.ndarray
    b: float
    objective: float
    C: float
    loss: str
    n_iter: int
    max_violation: float
    converged: bool
    gradient: np.ndarray = field(repr=False)
    n_kernel_rows: int = 0
    #: Ḡ = Σ_{α_j = C} C Q_j (L1; zeros for L2): with ``gradient`` what a restart at another C
    #: and the same kernel needs (``same_kernel_start``).
    gradient_bar: np.ndarray | None = field(default=None, repr=False)
    #: Per-sample weights w (C_i = C·w_i), None for all ones.
    weights: np.ndarray | None = field(default=None, repr=False)
    #: Why the solve stopped at its iteration cap (``qp.cap_reason``), None when it converged.
    stop_reason: str | None = field(default=None, repr=False)

    @property
    def upper(self) -> np.ndarray:
        """The box C_i = C·w_i of every α_i (+inf for L2)."""
        return upper_bounds(self.loss, self.C, self.alpha.size, self.weights)

    @property
    def support(self) -> np.ndarray:
        """Indices with α_i > 0."""
        return np.flatnonzero(self.alpha > 0)

    @property
    def bounded(self) -> np.ndarray:
        """Indices with α_i = C_i (L1 only; empty for L2)."""
        if self.loss == "l2":
            return np.empty(0, dtype=np.int64)
        return np.flatnonzero(self.alpha >= self.upper)

    @property
    def quad(self) -> float:
        """αᵀQ̃α."""
        return float(self.alpha @ (self.gradient + 1.0))

    def training_decision(self, y) -> np.ndarray:
        """f(x_i) = Σ_j α_j y_j K(x_i, x_j) + b on the training points, from the gradient
        without a kernel value: y_i f(x_i) = (Qα)_i + y_i b, Qα = gradient + e (L1) and
        gradient + e − α/C_i (L2, whose Q̃ adds diag(1/C_i))."""
        qa = self.gradient + 1.0
        if self.loss == "l2":
            qa = qa - _over_w(self.alpha, self.weights) / self.C
        return np.asarray(y, dtype=np.float64) * qa + self.b

    @property
    def w2(self) -> float:
        """‖w‖² = αᵀQα (for L2 the diag(1/C_i) part is removed)."""
        q = self.quad
        if self.loss == "l2":
            q -= float(self.alpha @ _over_w(self.alpha, self.weights)) / self.C
        return q


def _over_w(v, weights):
    """v / w (v itself for weights None: the unweighted formulas, bit for bit)."""
    return v if weights is None else v / weights


def upper_bounds(loss: str, C: float, n: int, weights=None) -> np.ndarray:
    """u_i = C·w_i for L1, +inf for L2."""
    if loss != "l1":
        return np.full(n, np.inf)
    return np.full(n, C) if weights is None else C * weights


def l2_shift(C: float, weights=None):
    """The L2-SVM's diagonal shift 1/C_i = 1/(C w_i): one number 1/C without weights."""
    return 1.0 / C if weights is None else 1.0 / (C * weights)


def warm_start_alpha(alpha_prev, y, C_prev: float, C_new: float, loss: str = "l1",
                     weights=None) -> np.ndarray:
    """A feasible starting α for a new C from the solution at C_prev (DESIGN.md §5).

    Scale by C_new/C_prev (the solution of the rescaled problem 4.1 moves little), clip to the
    new box, then repair yᵀα = 0 on the class whose sum is larger: its free variables
    (0 < α < C) are scaled down first, and only if they cannot absorb the excess are its
    bounded ones reduced too — so variables at the bound stay exactly at C, which is what lets
    the SMO keep them out of the working set. A relative imbalance below 1e-13 is rounding and
    is left alone. With per-sample ``weights`` the boxes are C w_i; they all scale with C, so
    the same rescaling applies.
    """
    y = np.asarray(y, dtype=np.float64)
    if loss == "l1":
        ub = C_new if weights is None else C_new * weights
        ub_prev = C_prev if weights is None else C_prev * weights
    else:
        ub = ub_prev = np.inf
    a = np.asarray(alpha_prev, dtype=np.float64) * (C_new / C_prev)
    if loss == "l1":
        at_bound = np.asarray(alpha_prev) >= ub_prev  # keep bounded variables exactly at the bound
        a[at_bound] = C_new if weights is None else ub[at_bound]
    a = np.clip(a, 0.0, ub)
    pos, neg = a[y > 0].sum(), a[y < 0].sum()
    excess = pos - neg
    if abs(excess) <= 1e-13 * max(pos, neg, 1e-300):
        return a
    side = (y > 0) if excess > 0 else (y < 0)
    excess = abs(excess)
    free = side & (a > 0) & (a < ub)
    free_sum = a[free].sum()
    if free_sum >= excess:
        a[free] *= (free_sum - excess) / free_sum
    else:
        a[free] = 0.0
        rest = side & (a > 0)
        a[rest] *= 1.0 - (excess - free_sum) / a[rest].sum()
    return a


def same_kernel_start(prev: DualSolution, C_new: float):
    """(α₀, (G₀, Ḡ₀)) for a solve at C_new with the kernel (and data) of ``prev`` unchanged.

    α₀ = r α with r = C_new/C_prev keeps yᵀα = 0 and the box (bounded entries set exactly to
    C_new), and the gradient follows without a kernel value (DESIGN.md §5):
    L1 (Q̃ = Q):        G₀ = r (G + e) − e,                       Ḡ₀ = r Ḡ;
    L2 (Q̃ = Q + I/C):  G₀ = r (G + e − α/C_prev) + α₀/C_new − e,  Ḡ₀ = 0
    (with ``prev.weights``: boxes C_new·w_i, and α/(C w) for α/C).
    """
    if prev.gradient_bar is None:
        raise ValueError("same_kernel_start needs a solution that carries gradient_bar")
    r = C_new / prev.C
    a = prev.alpha * r
    G = prev.gradient + 1.0
    w = prev.weights
    if prev.loss == "l1":
        if w is None:
            a[prev.alpha >= prev.C] = C_new
            a = np.minimum(a, C_new)
        else:
            ub = C_new * w
            a[prev.alpha >= prev.C * w] = ub[prev.alpha >= prev.C * w]
            a = np.minimum(a, ub)
        G0 = r * G - 1.0
    else:
        G0 = r * (G - _over_w(prev.alpha, w) / prev.C) + _over_w(a, w) / C_new - 1.0
    return a, (G0, r * prev.gradient_bar)


def solve_svm_dual(X, y, kernel: Kernel, C: float, *, loss: str = "l1", tol: float = 1e-3,
                   alpha0=None, cache_size: float = DEFAULT_CACHE_MB,
                   max_iter: int | None = None, check_input: bool = True,
                   warm_from: DualSolution | None = None, weights=None) -> DualSolution:
    """Solve the L1 or L2 SVM dual by SMO with second-order working-set selection.

    Parameters
    ----------
    X : (l, d) array; y : labels in {−1, +1}; kernel : a ``svmbound.kernels.Kernel``;
    C : > 0; loss : 'l1' | 'l2'; tol : stopping tolerance on the maximal KKT violation
    (LIBSVM's eps; its natural scale is the margin 1), in [1e-14, 1] (``qp.TOL_MIN``,
    ``qp.TOL_MAX``); max_iter : the SMO's iteration cap, None for
    ``qp.default_max_iter(n)`` = max(100,000, 2,000·n) — a solve stopped there warns
    (``ConvergenceWarning``, with the likely reason, also in ``stop_reason``) and has
    ``converged=False``; alpha0 : optional warm start, finite,
    of shape (l,), made feasible first (see
    ``warm_start_alpha`` for a start from a different C); cache_size : kernel-row cache in MB
    or "auto";
    warm_from : a solution for the same X, y, loss and kernel at any C — the start is
    ``same_kernel_start(warm_from, C)``, which needs no kernel value (the caller vouches that
    the kernel is unchanged); excludes ``alpha0``;
    weights : None, or n per-sample weights w_i > 0: C_i = C·w_i, i.e. the box 0 ≤ α_i ≤ C w_i
    (L1) or the diagonal K + diag(1/(C w_i)) (L2) — scikit-learn's class_weight × sample_weight.
    """
    kernel = check_kernel(kernel)
    if check_input:
        X = check_X(X)
        y = check_pm1(y, X.shape[0])
    C = check_positive(C, "C")
    loss = check_loss(loss)
    tol = check_tol(tol)
    n = y.shape[0]
    weights = check_weights(weights, n)
    ub = upper_bounds(loss, C, n, weights)
    gradient0 = None
    if warm_from is not None:
        if alpha0 is not None:
            raise ValueError("give alpha0 or warm_from, not both")
        if not isinstance(warm_from, DualSolution):
            raise ValueError(f"warm_from must be a DualSolution (the result of solve_svm_dual), "
                             f"got {type(warm_from).__name__}")
        if warm_from.loss != loss or warm_from.alpha.shape != (n,):
            raise ValueError(f"warm_from must be a {loss} solution with {n} variables, got a "
                             f"{warm_from.loss} solution with {warm_from.alpha.size}")
        if not same_weights(warm_from.weights, weights):
            raise ValueError("warm_from was solved with other per-sample weights")
        a0, gradient0 = same_kernel_start(warm_from, C)
    elif alpha0 is None:
        a0 = np.zeros(n)
    else:
        a0 = check_start(alpha0, n, "alpha0")
        a0 = warm_start_alpha(a0, y, C, C, loss, weights)  # clip + repair, no rescaling
    res = run_smo(X, y, -np.ones(n), ub, a0, kernel, scale=1.0,
                  shift=(l2_shift(C, weights) if loss == "l2" else 0.0), tol=tol,
                  max_iter=max_iter, cache_mb=cache_size, gradient0=gradient0)
    objective = -0.5 * float(res.a @ (res.gradient - 1.0))
    stop_reason = None
    if not res.converged:
        stop_reason = cap_reason(X, kernel, C if weights is None else C * weights)
        if max_iter is None:        # the default cap: say so (a cap the caller set is known)
            warn_cap(f"SVM dual ({loss}, C = {C:.3g}, {kernel.name} kernel)", res, n, tol,
                     stop_reason)
    return DualSolution(alpha=res.a, b=-res.rho, objective=objective, C=C, loss=loss,
                        n_iter=res.n_iter, max_violation=res.violation, converged=res.converged,
                        gradient=res.gradient, n_kernel_rows=res.n_kernel_rows,
                        gradient_bar=res.gradient_bar, weights=weights, stop_reason=stop_reason)


def decision_function(X_train, y, alpha, b, kernel: Kernel, X) -> np.ndarray:
    """f(x) = Σ_i α_i y_i K(x_i, x) + b over the support vectors (α_i > 0)."""
    sv = np.flatnonzero(alpha > 0)
    if sv.size == 0:
        return np.full(X.shape[0], b)
    coef = alpha[sv] * y[sv]
    return kernel.block_dot(X, X_train[sv], coef) + b
