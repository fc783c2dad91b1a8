"""Projected BFGS quasi-Newton search in a box (Chung et al. 2003, §4.2).

The hyperparameters θ = (ln C, ln σ², …) are searched inside a box ``lower ≤ θ ≤ upper``
(Chung: [−10, 10]ⁿ). With f the criterion, g = ∇f and H ≈ (∇²f)⁻¹, one iteration from θᵏ is:

1. Search direction (§4.2 step 1)::

       p = −H_k ∇f(θᵏ),        H_0 = I.

   If ∇fᵀp ≥ 0 (p is not a descent direction) H is reset to I.

2. Projected backtracking line search (§4.2 step 2, projection P and condition (4.6))::

       P(θ)_i = max(lower_i, min(θ_i, upper_i)),
       θ(λ)   = P(θᵏ + λp),         λ ∈ {1, γ, γ², …},   γ = ½,

   the first λ tried is the largest one with ‖θ(λ) − θᵏ‖ ≤ 2 (``max_step``; for γ = ½ this is
   the largest of {1, ½, ¼, …}, for other γ the powers of γ are used); then λ ← γλ until
   the sufficient-decrease (first Wolfe) condition (4.6) holds::

       f(θ(λ)) ≤ f(θᵏ) + σ₁ ∇f(θᵏ)ᵀ(θ(λ) − θᵏ),      σ₁ = 10⁻⁴.

   A trial point where f is not finite (e.g. the solver failed) never satisfies it.

   Without projection θ(λ) − θᵏ = λp and this is Chung's (4.6) verbatim,
   f(θᵏ + λp) ≤ f(θᵏ) + σ₁λ∇f(θᵏ)ᵀp.

3. BFGS inverse update with the curvature test η = 0 (§4.2 step 3 and the cases formula
   after (4.7))::

       s = θᵏ⁺¹ − θᵏ,   y = ∇f(θᵏ⁺¹) − ∇f(θᵏ),
       H_{k+1} = (I − s yᵀ/yᵀs) H_k (I − y sᵀ/yᵀs) + s sᵀ/yᵀs    if yᵀs > 0,
       H_{k+1} = H_k                                            otherwise,

   so H stays symmetric positive definite and the second Wolfe condition (4.7) is not needed.

Stopping rules (``status`` / ``message``):

====  ======================================================================  =========
code  message                                                                 success
====  ======================================================================  =========
0     ``stationary point``: ‖∇f‖ over the coordinates not held by an          True
      active bound ≤ gtol (``free_gradient_norm``; ≥ ‖P(θ − ∇f) − θ‖)
1     ``on the boundary and the search direction points out of the box``      True
      (Chung: "once the optimization procedure has reached the boundary and
      still tends to move out, we stop it"): either the projected gradient
      vanishes only because ∇f points out through active bounds, or the
      projected step P(θ + λp) − θ is zero although p ≠ 0 — and stays zero
      after one reset H = I (a stale H is not allowed to stop the search)
2     ``converged (small step)``: ‖θᵏ⁺¹ − θᵏ‖ ≤ xtol or                      True
      (fᵏ − fᵏ⁺¹)/max(|fᵏ|, |fᵏ⁺¹|, 1) ≤ ftol — for a quasi-Newton step
      whose free gradient is > gtol, H is first reset to I and the search
      goes on; the stop is declared when a steepest-descent step is small
3     ``line search failed``: (4.6) not met after ``max_backtracks``          False
      reductions of λ
4     ``maximum number of iterations reached``                                False
5     ``gradient is not finite`` at an accepted point                         False
====  ======================================================================  =========

Evaluation counting follows Chung Table 4.1: ``fun`` is called once per trial point (#fun),
``grad`` once per accepted point (#grad = #iterations + 1 for the start point), always right
after ``fun`` at the same point so a criterion can return the gradient of the solve it cached.

Chung gives no stopping rule besides the boundary one; rules 0, 2, 3, 4 are ours. Additions to
the letter of §4.2, all of the form "reset H = I and go on instead of trusting a stale H":

* only when the projection is active: a quasi-Newton direction p with ∇fᵀp < 0 can become an
  ascent direction once clipped at the box (∇fᵀ(P(θ + λp) − θ) ≥ 0), and then (4.6) would
  accept an increase of f. The line search then restarts along −∇f, whose projection is always
  a descent direction (so accepted values decrease strictly);
* before the boundary stop (1, zero projected step) and the small-step stop (2), as described
  in the table. On a
  face of the box H keeps curvature pairs that couple free and clipped coordinates, and the
  clipped quasi-Newton steps can stall well before the constrained minimiser.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from .result import SearchResult

__all__ = ["minimize_projected_bfgs", "STATUS_MESSAGES", "STATIONARY", "BOUNDARY",
           "SMALL_STEP", "LINE_SEARCH_FAILED", "MAX_ITER", "BAD_GRADIENT", "MAX_FEV"]

STATIONARY, BOUNDARY, SMALL_STEP, LINE_SEARCH_FAILED, MAX_ITER, BAD_GRADIENT, MAX_FEV = range(7)

STATUS_MESSAGES = {
    STATIONARY: "stationary point",
    BOUNDARY: "on the boundary and the search direction points out of the box",
    SMALL_STEP: "converged (small step)",
    LINE_SEARCH_FAILED: "line search failed",
    MAX_ITER: "maximum number of iterations reached",
    BAD_GRADIENT: "gradient is not finite",
    MAX_FEV: "evaluation budget reached",
}
_SUCCESS = {STATIONARY: True, BOUNDARY: True, SMALL_STEP: True,
            LINE_SEARCH_FAILED: False, MAX_ITER: False, BAD_GRADIENT: False, MAX_FEV: False}

_EPS = np.finfo(np.float64).eps


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------
def _check_box(x0, lower, upper) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x0 as a finite 1-D float array inside the box [lower, upper] (broadcast to x0's shape)."""
    try:
        x = np.array(x0, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"x0 must be numeric: {exc}") from None
    if x.ndim == 0:
        x = x.reshape(1)
    if x.ndim != 1:
        raise ValueError(f"x0 must be 1-D, got shape {x.shape}")
    if x.size == 0:
        raise ValueError("x0 is empty")
    if not np.all(np.isfinite(x)):
        i = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(f"x0 must be finite, got x0[{i}] = {float(x[i])!r} (NaN or infinity)")
    bounds = []
    for name, b in (("lower", lower), ("upper", upper)):
        try:
            b = np.asarray(b, dtype=np.float64)
            b = np.broadcast_to(b, x.shape).copy()
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a number or an array of {x.size} numbers "
                             f"(one per coordinate of x0): {exc}") from None
        if np.any(np.isnan(b)):
            i = int(np.flatnonzero(np.isnan(b))[0])
            raise ValueError(f"{name}[{i}] is NaN")
        bounds.append(b)
    lo, up = bounds
    if np.any(lo >= up):
        i = int(np.flatnonzero(lo >= up)[0])
        raise ValueError(f"empty box: lower[{i}] = {float(lo[i])!r} >= "
                         f"upper[{i}] = {float(up[i])!r} "
                         "(need lower < upper in every coordinate)")
    outside = (x < lo) | (x > up)
    if np.any(outside):
        i = int(np.flatnonzero(outside)[0])
        raise ValueError(f"x0 is outside the box: x0[{i}] = {float(x[i])!r} is not in "
                         f"[lower[{i}], upper[{i}]] = [{float(lo[i])!r}, {float(up[i])!r}]")
    return x, lo, up


def _check_positive(value, name: str, *, allow_zero: bool = False) -> float:
    v = float(value)
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be a finite number {'>=' if allow_zero else '>'} 0, "
                         f"got {value!r}")
    return v


# --------------------------------------------------------------------------------------------
# the pieces of Chung §4.2
# --------------------------------------------------------------------------------------------
def project(x: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Projection onto the box (Chung §4.2): P(x)_i = max(lower_i, min(x_i, upper_i))."""
    return np.minimum(np.maximum(x, lower), upper)


def projected_gradient_step(x, g, lower, upper) -> np.ndarray:
    """P(x − ∇f(x)) − x: zero exactly at the first-order (KKT) points of min f over the box."""
    return project(x - g, lower, upper) - x


def free_gradient_norm(x, g, lower, upper) -> float:
    """‖∇f‖ over the coordinates not held by an active bound (x_i at lower with ∂f/∂x_i > 0, or
    at upper with ∂f/∂x_i < 0): the norm of lim_{t→0} (P(x − t∇f) − x)/t, the first-order
    measure of the stop tests.

    It is at least ‖P(x − ∇f) − x‖, equal to it wherever x − ∇f stays in the box, and zero
    exactly at the same (KKT) points; unlike it, it is not capped by the size of the box, so it
    can be compared with a tolerance relative to |f(x0)| (``gtol_rel``). With the capped
    measure a criterion whose value is large against its box — a bound summed over the 45
    one-vs-one pairs of digits: f = 1488, 1e-2·|f| = 14.9 against a box diagonal of 14.1 from
    the start — was declared stationary at its start point with ‖∇f‖ = 393.
    """
    blocked = ((x <= lower) & (g > 0)) | ((x >= upper) & (g < 0))
    return float(np.linalg.norm(g[~blocked]))


def initial_step_length(x, p, lower, upper, max_step: float, gamma: float) -> float:
    """Largest λ ∈ {1, γ, γ², …} with ‖P(x + λp) − x‖ ≤ max_step (Chung §4.2, max_step = 2).

    ‖P(x + λp) − x‖ is non-decreasing in λ (each coordinate moves along a clipped ray), so the
    first λ of the sequence that satisfies the cap is the largest.
    """
    lam = 1.0
    while np.linalg.norm(project(x + lam * p, lower, upper) - x) > max_step:
        lam *= gamma
        if lam == 0.0:  # pragma: no cover - only for absurd p (‖p‖ ~ 1e300)
            break
    return lam


#: Line-search reductions of ``minimize_projected_bfgs`` (``backtrack``).
BACKTRACKS = ("halve", "quadratic")


def backtrack_factor(how: str, gamma: float, f0: float, slope: float, f1) -> float:
    """The factor t of λ ← tλ after the trial point x + d failed (4.6): γ for 'halve'; for
    'quadratic' the minimiser of the quadratic through φ(0) = f0, φ'(0) = slope = ∇fᵀd < 0 and
    φ(1) = f1 (Nocedal & Wright eq. 3.57), clipped to [0.1, 0.5] — γ when f1 is not finite."""
    if how == "halve" or f1 is None or not np.isfinite(f1):
        return gamma
    curvature = f1 - f0 - slope          # > 0 whenever (4.6) failed with slope < 0
    if not curvature > 0.0:
        return gamma
    return float(np.clip(-slope / (2.0 * curvature), 0.1, 0.5))


def sufficient_decrease(f_new: float, f: float, g: np.ndarray, step: np.ndarray,
                        sigma1: float) -> bool:
    """Chung (4.6) with the projected step d = P(x + λp) − x:  f(x + d) ≤ f(x) + σ₁∇f(x)ᵀd.

    A non-finite f_new (the criterion failed there) never satisfies it.
    """
    return bool(np.isfinite(f_new) and f_new <= f + sigma1 * float(g @ step))


def bfgs_inverse_update(H: np.ndarray, s: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, bool]:
    """BFGS update of the inverse Hessian (Chung §4.2 step 3, with η = 0).

    H₊ = (I − s yᵀ/yᵀs) H (I − y sᵀ/yᵀs) + s sᵀ/yᵀs  if yᵀs > 0, else H unchanged.
    Returns (H₊, updated). When yᵀs > 0, H₊ is symmetric positive definite whenever H is.
    """
    ys = float(y @ s)
    if not (ys > 0.0 and np.isfinite(ys)):
        return H, False
    rho = 1.0 / ys
    V = np.eye(len(s)) - rho * np.outer(s, y)
    H_new = V @ H @ V.T + rho * np.outer(s, s)
    H_new = 0.5 * (H_new + H_new.T)  # keep exact symmetry against rounding
    return H_new, True


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------
def minimize_projected_bfgs(fun: Callable[[np.ndarray], float],
                            grad: Callable[[np.ndarray], np.ndarray],
                            x0, lower=-10.0, upper=10.0, *, sigma1: float = 1e-4,
                            gamma: float = 0.5, max_step: float = 2.0, gtol: float = 1e-5,
                            xtol: float = 1e-6, ftol: float = 1e-9, max_iter: int = 100,
                            max_backtracks: int = 30, gtol_rel: float = 0.0,
                            max_fev: int | None = None, backtrack: str = "halve",
                            callback: Callable[[np.ndarray, float], None] | None = None,
                            ) -> SearchResult:
    """Minimise ``fun`` over the box [lower, upper] by Chung's projected BFGS (§4.2).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> float``, the criterion. One call = one function evaluation (``nfev``).
    grad : callable
        ``grad(x) -> ndarray``, the gradient at a point where ``fun`` was just called (the
        search never calls it anywhere else). One call = one gradient evaluation (``njev``).
    x0 : array_like
        Start point, inside the box (Chung: (0, 0)).
    lower, upper : float or array_like
        Box bounds, scalars or one per coordinate (Chung: −10 and 10).
    sigma1 : float
        σ₁ of the sufficient-decrease condition (4.6), 0 < σ₁ < 1.
    gamma : float
        Step-length reduction factor γ, 0 < γ < 1 (Chung: ½). Trial step lengths are γⁱ.
    max_step : float
        Cap on ‖P(x + λp) − x‖ for the first trial step length (Chung: 2).
    gtol : float
        Stop when ``free_gradient_norm`` ≤ max(gtol, gtol_rel·|f(x0)|).
    gtol_rel : float
        Gradient tolerance relative to the start value (default 0: off). A criterion computed
        by a solver to a finite tolerance has a gradient that is only accurate to about that
        relative size (Chung §4.3), so demanding more only makes steepest-descent retries.
    xtol, ftol : float
        Stop after an accepted step with ‖s‖ ≤ xtol or relative decrease ≤ ftol.
    max_iter : int
        Maximum number of accepted steps.
    max_backtracks : int
        Maximum number of reductions λ ← γλ in one line search.
    backtrack : 'halve' or 'quadratic'
        How λ is reduced after a trial point fails (4.6). 'halve' (Chung): λ ← γλ.
        'quadratic': λ ← tλ with t the minimiser of the quadratic through φ(0) = f(x),
        φ'(0) = ∇f(x)ᵀd and φ(1) = f(x + d) along the failed step d (Nocedal & Wright §3.5,
        eq. 3.57), t = −φ'(0) / (2(φ(1) − φ(0) − φ'(0))), safeguarded to [0.1, 0.5]; γλ when
        f(x + d) is not finite. Same test (4.6), fewer trial points when the first step
        overshoots a minimum by far.
    max_fev : int or None
        Budget of function evaluations (None: none). When a trial point would be the
        ``max_fev + 1``-th evaluation, the search stops at the last accepted point (status
        ``MAX_FEV``, not a success: the point is the best found, not a stationary one).
    callback : callable, optional
        ``callback(xk, fk)`` after each accepted step.

    Returns
    -------
    SearchResult
        With ``x, fun, jac, nfev, njev, nit, message, success, status, path`` and
        ``hess_inv`` (the final H). See the module docstring for the status codes.

    Raises
    ------
    ValueError
        x0 not finite or outside the box, lower >= upper in some coordinate, bad tolerances,
        or fun / grad not finite at x0.
    """
    x, lower, upper = _check_box(x0, lower, upper)
    n = x.size
    sigma1 = _check_positive(sigma1, "sigma1")
    gamma = _check_positive(gamma, "gamma")
    if not (sigma1 < 1.0):
        raise ValueError(f"sigma1 must be in (0, 1), got {sigma1!r}")
    if not (gamma < 1.0):
        raise ValueError(f"gamma must be in (0, 1), got {gamma!r}")
    max_step = _check_positive(max_step, "max_step")
    if backtrack not in BACKTRACKS:
        raise ValueError(f"backtrack must be one of {', '.join(map(repr, BACKTRACKS))}, got "
                         f"{backtrack!r}")
    gtol = _check_positive(gtol, "gtol", allow_zero=True)
    gtol_rel = _check_positive(gtol_rel, "gtol_rel", allow_zero=True)
    xtol = _check_positive(xtol, "xtol", allow_zero=True)
    ftol = _check_positive(ftol, "ftol", allow_zero=True)
    if int(max_iter) != max_iter or max_iter < 0:
        raise ValueError(f"max_iter must be an integer >= 0, got {max_iter!r}")
    if int(max_backtracks) != max_backtracks or max_backtracks < 0:
        raise ValueError(f"max_backtracks must be an integer >= 0, got {max_backtracks!r}")
    if max_fev is not None and (int(max_fev) != max_fev or max_fev < 1):
        raise ValueError(f"max_fev must be None or an integer >= 1, got {max_fev!r}")
    max_iter, max_backtracks = int(max_iter), int(max_backtracks)

    t_start = time.perf_counter()
    path: list[dict] = []
    counts = {"nfev": 0, "njev": 0}

    def eval_fun(z: np.ndarray) -> float:
        value = float(fun(z.copy()))
        counts["nfev"] += 1
        path.append({"x": z.tolist(), "value": value, "grad": None,
                     "time_s": time.perf_counter() - t_start, "accepted": False})
        return value

    def eval_grad(z: np.ndarray) -> np.ndarray:
        # Called only right after eval_fun(z): the last path entry is this point.
        gz = np.array(grad(z.copy()), dtype=np.float64).reshape(-1)
        counts["njev"] += 1
        if gz.shape != (n,):
            raise ValueError(f"grad returned {gz.size} values for a point with {n} coordinates")
        entry = path[-1]
        entry["grad"] = gz.tolist()
        entry["accepted"] = True
        entry["time_s"] = time.perf_counter() - t_start
        return gz

    # --- start point ------------------------------------------------------------------------
    f = eval_fun(x)
    if not np.isfinite(f):
        raise ValueError(f"fun(x0) is not finite ({f!r}) at x0 = {x.tolist()}")
    g = eval_grad(x)
    if not np.all(np.isfinite(g)):
        raise ValueError(f"grad(x0) is not finite ({g.tolist()}) at x0 = {x.tolist()}")
    gtol = max(gtol, gtol_rel * abs(f))

    H = np.eye(n)
    H_is_identity = True
    nit = 0
    status = None

    while status is None:
        # Stops 0 and 1: first-order test on the projected gradient; boundary vs interior.
        if free_gradient_norm(x, g, lower, upper) <= gtol:
            at_lower, at_upper = x <= lower, x >= upper
            pushing_out = (at_lower & (g > 0)) | (at_upper & (g < 0))
            status = BOUNDARY if np.linalg.norm(g[pushing_out]) > gtol else STATIONARY
            break
        if nit >= max_iter:
            status = MAX_ITER
            break

        # One quasi-Newton step; at most two attempts: with H, then (if needed) with H = I.
        accepted = False
        while True:
            p = -(H @ g)
            if not (float(g @ p) < 0.0) and not H_is_identity:   # not a descent direction
                H, H_is_identity = np.eye(n), True
                p = -g.copy()
            scale = max(1.0, float(np.max(np.abs(x))))
            lam = initial_step_length(x, p, lower, upper, max_step, gamma)
            step = project(x + lam * p, lower, upper) - x
            # Stop 1: projected step numerically zero although p ≠ 0 (tried with H = I first).
            if np.linalg.norm(step) <= 10.0 * _EPS * scale and np.any(p != 0.0):
                if not H_is_identity:
                    H, H_is_identity = np.eye(n), True
                    continue
                status = BOUNDARY
                break
            # Backtracking on (4.6).
            restart = False
            f_trial = None
            for k in range(max_backtracks + 1):
                if k > 0:
                    lam *= backtrack_factor(backtrack, gamma, f, float(g @ step), f_trial)
                    step = project(x + lam * p, lower, upper) - x
                if not (float(g @ step) < 0.0):
                    # clipped quasi-Newton step is not a descent step: retry along −∇f
                    if not H_is_identity:
                        restart = True
                    break
                if max_fev is not None and counts["nfev"] >= max_fev:
                    status = MAX_FEV
                    break
                x_trial = x + step
                f_trial = eval_fun(x_trial)
                if sufficient_decrease(f_trial, f, g, step, sigma1):
                    accepted = True
                    break
            if restart:
                H, H_is_identity = np.eye(n), True
                continue
            if not accepted and status is None:
                status = LINE_SEARCH_FAILED
            break
        if not accepted:
            break

        # Accept θᵏ⁺¹, gradient there, BFGS update (§4.2 step 3).
        g_new = eval_grad(x_trial)
        nit += 1
        s = x_trial - x
        y = g_new - g
        f_old = f
        x, f, g = x_trial, f_trial, g_new
        if callback is not None:
            callback(x.copy(), f)
        if not np.all(np.isfinite(g)):
            status = BAD_GRADIENT
            break
        stepped_with_identity = H_is_identity
        H, updated = bfgs_inverse_update(H, s, y)
        if updated:
            H_is_identity = False
        # Stop 2: small step / small relative decrease. As for stop 1, a stale H may not stop the
        # search: if the step was a quasi-Newton one and the projected gradient is not yet
        # small, retry from H = I; the stop is declared only when a steepest-descent step stalls.
        if (np.linalg.norm(s) <= xtol
                or (f_old - f) <= ftol * max(abs(f_old), abs(f), 1.0)):
            if (not stepped_with_identity
                    and free_gradient_norm(x, g, lower, upper) > gtol):
                H, H_is_identity = np.eye(n), True
                continue
            status = SMALL_STEP
            break

    return SearchResult(x=x, fun=f, jac=g, nfev=counts["nfev"], njev=counts["njev"], nit=nit,
                        message=STATUS_MESSAGES[status], success=_SUCCESS[status],
                        status=status, path=path, hess_inv=H)
