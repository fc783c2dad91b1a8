"""Gradient searches over many hyperparameters (Chapelle et al. 2002 §5, §7.3; DESIGN.md §4).

Two strategies for θ = (ln C, ln σ_1², …, ln σ_d²) in a box, both with the fun/grad contract of
``bfgs.py`` (``grad`` is called only right after ``fun`` at the same point, so a criterion can
return the gradient of the solve it has just made) and both returning a :class:`SearchResult`
with the evaluation ``path``:

* :func:`minimize_lbfgsb` — SciPy's L-BFGS-B (``scipy.optimize.minimize(method="L-BFGS-B",
  jac=True)``): limited memory, so it scales to thousands of scaling factors (one per gene), and
  box constraints by projection. SciPy's combined fun+jac callable is wrapped so that every
  SciPy evaluation is exactly one ``fun`` call followed by one ``grad`` call at the same point:
  ``nfev == njev == len(path)``. The path entries of the iterates (start point and the point
  after each L-BFGS-B iteration) have ``accepted=True``; line-search trials that were not
  accepted have ``accepted=False`` but carry their gradient too.

* :func:`minimize_projected_gradient` — Chapelle §5 step 3 literally: the gradient step
  δθ = −ε ∇T, projected onto the box ("additional constraints can be imposed through projection
  of the gradient"), with ε chosen by backtracking on the sufficient-decrease condition
  f(P(θ − ε∇f)) ≤ f(θ) + σ₁ ∇fᵀ(P(θ − ε∇f) − θ) (Chung 4.6 along the projection arc). ε starts
  at ``step`` and is doubled after each accepted step that needed no backtracking, halved during
  backtracking ("a small and eventually decreasing ε"). Counting as in ``bfgs.py``: ``fun`` once
  per trial point, ``grad`` once per accepted point (``njev == nit + 1``).

Status codes (``status`` / ``message`` / ``success``) of the projected gradient search:

====  ====================================================================  =======
0     ``stationary point``: ‖P(θ − ∇f) − θ‖ ≤ gtol                           True
2     ``converged (small step)``: ‖Δθ‖ ≤ xtol or relative decrease ≤ ftol     True
3     ``line search failed``                                                False
4     ``maximum number of iterations reached``                              False
5     ``gradient is not finite``                                             False
====  ====================================================================  =======

For L-BFGS-B the status is SciPy's (0 converged, 1 too many evaluations or iterations,
2 abnormal termination in the line search, …) and the message is SciPy's, or 3
(:data:`STOPPED`) when the caller's ``stop`` rule ended it.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np
from scipy.optimize import minimize

from .._blas import blas_threads, controller
from .bfgs import (BAD_GRADIENT, LINE_SEARCH_FAILED, MAX_ITER, SMALL_STEP, STATIONARY,
                   STATUS_MESSAGES, _check_box, _check_positive, project, projected_gradient_step,
                   sufficient_decrease)
from .result import SearchResult

__all__ = ["minimize_lbfgsb", "minimize_projected_gradient"]


class _SingleThreadBlas:
    """BLAS limited to one thread inside SciPy's L-BFGS-B (its small dense products pay more
    for thread start-up than they gain: ~3 ms instead of ~0.1 ms per iteration at 200
    parameters on 2 loaded cores), with the user's setting restored around every fun/grad
    call. A no-op when threadpoolctl is not available, and when BLAS runs on one thread
    already (the estimators' fits): a limit and its restore cost ~26 µs, twice per evaluation."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and (blas_threads() or 1) > 1
        self._limiter = None

    def single(self):
        c = controller() if self.enabled else False
        if c:
            self._limiter = c.limit(limits=1, user_api="blas")

    def restore(self):
        if self._limiter is not None:
            self._limiter.restore_original_limits()
            self._limiter = None


#: ``status`` of an L-BFGS-B search that its ``stop`` rule ended (SciPy's own codes are 0–2).
STOPPED = 3


class _Stopped(Exception):
    """Raised out of SciPy's L-BFGS-B when the caller's ``stop`` rule ends the search."""


def _check_int(value, name: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or int(value) != value or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


class _Recorder:
    """fun/grad wrapper that counts calls and records the path (the format of ``bfgs.py``)."""

    def __init__(self, fun, grad, n, record_x: bool = True):
        self.fun, self.grad, self.n = fun, grad, n
        self.record_x = record_x
        self.path: list[dict] = []
        self.xs: list[np.ndarray] = []       # the evaluated points (to find the iterates)
        self.nfev = self.njev = 0
        self.t0 = time.perf_counter()

    def eval_fun(self, z):
        value = float(self.fun(z.copy()))
        self.nfev += 1
        self.path.append({"x": z.tolist() if self.record_x else None, "value": value,
                          "grad": None, "time_s": time.perf_counter() - self.t0,
                          "accepted": False})
        self.xs.append(z.copy())
        return value

    def known(self, z, value, grad):
        """(f, ∇f) at z from an evaluation made elsewhere: the path's entry, accepted and marked
        ``"known"``, not counted in ``nfev``/``njev``."""
        g = np.array(grad, dtype=np.float64).reshape(-1)
        if g.shape != (self.n,):
            raise ValueError(f"start gives {g.size} gradient values for a point with {self.n} "
                             f"coordinates")
        value = float(value)
        self.path.append({"x": z.tolist() if self.record_x else None, "value": value,
                          "grad": g.tolist() if self.record_x else None, "time_s": 0.0,
                          "accepted": True, "known": True})
        self.xs.append(z.copy())
        return value, g

    def eval_grad(self, z, accept: bool = True):
        g = np.array(self.grad(z.copy()), dtype=np.float64).reshape(-1)
        self.njev += 1
        if g.shape != (self.n,):
            raise ValueError(f"grad returned {g.size} values for a point with {self.n} coordinates")
        entry = self.path[-1]
        entry["grad"] = g.tolist() if self.record_x else None
        entry["accepted"] = accept
        entry["time_s"] = time.perf_counter() - self.t0
        return g


# --------------------------------------------------------------------------------------------
# L-BFGS-B
# --------------------------------------------------------------------------------------------
def minimize_lbfgsb(fun: Callable[[np.ndarray], float],
                    grad: Callable[[np.ndarray], np.ndarray],
                    x0, lower=-10.0, upper=10.0, *, max_iter: int = 200,
                    max_fun: int | None = None, gtol: float = 1e-5, ftol: float = 1e-9,
                    maxcor: int = 10, record_path: bool = True,
                    single_thread_blas: bool = True,
                    callback: Callable[[np.ndarray, float], None] | None = None,
                    stop: Callable[[list], bool] | None = None,
                    start: tuple | None = None) -> SearchResult:
    """Minimise ``fun`` over the box [lower, upper] with SciPy's L-BFGS-B.

    Parameters
    ----------
    fun, grad : callables
        ``fun(x) -> float`` and ``grad(x) -> ndarray``; ``grad`` is only ever called right after
        ``fun`` at the same x (one SciPy evaluation = one fun + one grad call).
    x0 : array_like
        Start point, inside the box.
    lower, upper : float or array_like
        Box bounds, scalars or one per coordinate.
    max_iter : int
        Maximum number of L-BFGS-B iterations (SciPy ``maxiter``).
    max_fun : int or None
        Maximum number of evaluations (SciPy ``maxfun``); default ``max(15000, 2 max_iter)``.
    gtol : float
        SciPy's ``pgtol``: stop when max_i |projected gradient_i| ≤ gtol.
    ftol : float
        SciPy's ``ftol``: stop when (fᵏ − fᵏ⁺¹)/max(|fᵏ|, |fᵏ⁺¹|, 1) ≤ ftol. Chapelle (§7.1) uses a
        loose stopping criterion: the exact minimiser does not matter.
    maxcor : int
        Number of correction pairs kept by L-BFGS-B.
    record_path : bool
        Store x and the gradient in every path entry (set False for very many parameters to
        keep only values, times and flags).
    single_thread_blas : bool
        Run L-BFGS-B's own linear algebra with one BLAS thread (fun and grad still run with the
        caller's setting).
    callback : callable, optional
        ``callback(xk, fk)`` after each iteration.
    stop : callable, optional
        ``stop(values) -> bool`` after each evaluation, ``values`` the values of f so far (the
        start's first): True ends the search there, at the evaluated point of the lowest value
        (an iterate or a line-search trial, each with its gradient), with ``status`` 3
        (:data:`STOPPED`) and ``success`` True.
    start : (float, array_like), optional
        f(x0) and ∇f(x0) when an evaluation made elsewhere gives them: x0 is then not
        evaluated (not counted in ``nfev``); the path's first entry holds them, marked
        ``"known": True``.

    Returns
    -------
    SearchResult
        ``x, fun, jac, nfev, njev, nit, message, success, status, path``.
    """
    x, lower, upper = _check_box(x0, lower, upper)
    max_iter = _check_int(max_iter, "max_iter")
    max_fun = max(15000, 2 * max_iter) if max_fun is None else _check_int(max_fun, "max_fun", 1)
    gtol = _check_positive(gtol, "gtol", allow_zero=True)
    ftol = _check_positive(ftol, "ftol", allow_zero=True)
    maxcor = _check_int(maxcor, "maxcor", 1)
    rec = _Recorder(fun, grad, x.size, record_path)
    best: dict = {}                  # the evaluation of the lowest value: (index, x, f, g)
    iters = [0]

    def fg(z):
        z = np.asarray(z, dtype=np.float64)
        # L-BFGS-B may step a rounding error outside the box: project (stays the same point).
        z = project(z, lower, upper)
        f = rec.eval_fun(z)
        g = rec.eval_grad(z, accept=False)
        if "min" not in best or f < best["min"][2]:
            best["min"] = (len(rec.path) - 1, z.copy(), f, g)
        return f, g

    if start is None:
        f0, g0 = fg(x)
    else:       # an evaluation made elsewhere at x0: the path's first entry, not counted
        f0, g0 = rec.known(x, *start)
        best["min"] = (0, x.copy(), f0, g0)
    if not np.isfinite(f0):
        raise ValueError(f"fun(x0) is not finite ({f0!r}) at x0 = {x.tolist()}")
    if not np.all(np.isfinite(g0)):
        raise ValueError(f"grad(x0) is not finite at x0 = {x.tolist()}")
    rec.path[0]["accepted"] = True
    start = {"x": x.copy(), "f": f0, "g": g0, "used": False}

    blas = _SingleThreadBlas(single_thread_blas)

    def fg_scipy(z):
        # SciPy's first call is at x0: reuse the evaluation made above (counted once).
        if not start["used"] and np.array_equal(np.asarray(z, dtype=np.float64), start["x"]):
            start["used"] = True
            return start["f"], start["g"].copy()
        start["used"] = True
        blas.restore()
        try:
            out = fg(z)
            if stop is not None and stop([e["value"] for e in rec.path]):
                raise _Stopped
            return out
        finally:
            blas.single()

    def on_iter(intermediate_result):
        iters[0] += 1
        xk = np.asarray(intermediate_result.x, dtype=np.float64)
        # the iterate is the most recent evaluation at xk (normally the last one)
        for i in range(len(rec.xs) - 1, -1, -1):
            if np.array_equal(rec.xs[i], xk):
                rec.path[i]["accepted"] = True
                break
        if callback is not None:
            callback(xk.copy(), float(intermediate_result.fun))

    def on_iter_user_blas(intermediate_result):
        blas.restore()
        try:
            on_iter(intermediate_result)
        finally:
            blas.single()

    blas.single()
    try:
        res = minimize(fg_scipy, x, jac=True, method="L-BFGS-B",
                       bounds=list(zip(lower, upper)), callback=on_iter_user_blas,
                       options={"maxiter": max_iter, "maxfun": max_fun, "gtol": gtol,
                                "ftol": ftol, "maxcor": maxcor})
    except _Stopped:
        i, x_best, f_best, g_best = best["min"]
        rec.path[i]["accepted"] = True
        return SearchResult(x=x_best, fun=float(f_best), jac=g_best, nfev=rec.nfev,
                            njev=rec.njev, nit=iters[0], success=True, status=STOPPED,
                            message=f"stopped by the caller's rule after {rec.nfev} "
                                    "evaluations", path=rec.path)
    finally:
        blas.restore()
    x_final = project(np.asarray(res.x, dtype=np.float64), lower, upper)
    jac = np.asarray(res.jac, dtype=np.float64)
    message = res.message if isinstance(res.message, str) else res.message.decode()
    return SearchResult(x=x_final, fun=float(res.fun), jac=jac, nfev=rec.nfev, njev=rec.njev,
                        nit=int(res.nit), message=message, success=bool(res.success),
                        status=int(res.status), path=rec.path)


# --------------------------------------------------------------------------------------------
# projected gradient (Chapelle §5)
# --------------------------------------------------------------------------------------------
def minimize_projected_gradient(fun: Callable[[np.ndarray], float],
                                grad: Callable[[np.ndarray], np.ndarray],
                                x0, lower=-10.0, upper=10.0, *, step: float = 1.0,
                                max_step: float | None = 2.0, sigma1: float = 1e-4,
                                gamma: float = 0.5, gtol: float = 1e-5, xtol: float = 1e-6,
                                ftol: float = 1e-9, max_iter: int = 200,
                                max_backtracks: int = 30, record_path: bool = True,
                                callback: Callable[[np.ndarray, float], None] | None = None,
                                ) -> SearchResult:
    """Minimise ``fun`` over the box by projected gradient steps θ ← P(θ − ε∇f(θ)) (Chapelle §5).

    Parameters
    ----------
    step : float
        Initial ε.
    max_step : float or None
        Cap on ‖P(θ − ε∇f) − θ‖ for the first trial of every iteration (as Chung's 2 in
        ``bfgs.py``); None for no cap.
    sigma1, gamma : float
        Sufficient-decrease constant and backtracking factor (ε ← γε).
    gtol, xtol, ftol, max_iter, max_backtracks : stopping rules (module docstring).
    record_path, callback : as in :func:`minimize_lbfgsb`.
    """
    x, lower, upper = _check_box(x0, lower, upper)
    eps = _check_positive(step, "step")
    if max_step is not None:
        max_step = _check_positive(max_step, "max_step")
    sigma1 = _check_positive(sigma1, "sigma1")
    gamma = _check_positive(gamma, "gamma")
    if not (sigma1 < 1.0 and gamma < 1.0):
        raise ValueError(f"sigma1 and gamma must be in (0, 1), got {sigma1!r}, {gamma!r}")
    gtol = _check_positive(gtol, "gtol", allow_zero=True)
    xtol = _check_positive(xtol, "xtol", allow_zero=True)
    ftol = _check_positive(ftol, "ftol", allow_zero=True)
    max_iter = _check_int(max_iter, "max_iter")
    max_backtracks = _check_int(max_backtracks, "max_backtracks")
    rec = _Recorder(fun, grad, x.size, record_path)

    f = rec.eval_fun(x)
    if not np.isfinite(f):
        raise ValueError(f"fun(x0) is not finite ({f!r}) at x0 = {x.tolist()}")
    g = rec.eval_grad(x)
    if not np.all(np.isfinite(g)):
        raise ValueError(f"grad(x0) is not finite at x0 = {x.tolist()}")

    nit, status = 0, None
    while status is None:
        if np.linalg.norm(projected_gradient_step(x, g, lower, upper)) <= gtol:
            status = STATIONARY
            break
        if nit >= max_iter:
            status = MAX_ITER
            break
        lam = eps
        if max_step is not None:
            while np.linalg.norm(project(x - lam * g, lower, upper) - x) > max_step and lam > 0:
                lam *= gamma
        accepted = False
        for k in range(max_backtracks + 1):
            if k > 0:
                lam *= gamma
            s = project(x - lam * g, lower, upper) - x
            if not np.any(s):
                break
            x_trial = x + s
            f_trial = rec.eval_fun(x_trial)
            if sufficient_decrease(f_trial, f, g, s, sigma1):
                accepted = True
                break
        if not accepted:
            status = LINE_SEARCH_FAILED
            break
        eps = 2.0 * lam if k == 0 else lam
        g_new = rec.eval_grad(x_trial)
        nit += 1
        f_old = f
        x, f, g = x_trial, f_trial, g_new
        if callback is not None:
            callback(x.copy(), f)
        if not np.all(np.isfinite(g)):
            status = BAD_GRADIENT
            break
        if np.linalg.norm(s) <= xtol or (f_old - f) <= ftol * max(abs(f_old), abs(f), 1.0):
            status = SMALL_STEP
            break

    return SearchResult(x=x, fun=f, jac=g, nfev=rec.nfev, njev=rec.njev, nit=nit,
                        message=STATUS_MESSAGES[status],
                        success=status in (STATIONARY, SMALL_STEP), status=status,
                        path=rec.path)
