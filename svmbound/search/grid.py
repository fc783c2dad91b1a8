"""Grid evaluation of any criterion over (ln C, ln σ²), for contour maps (Chung Fig. 1–3,
Chapelle Fig. 1) and for grid search.

Points are visited row by row in a snake order (ln C ascending, then descending on the next
ln σ² row), so every solve is warm-started from a neighbouring grid point. With a test set, the
test error of the SVM trained at each point is recorded too (the map beside the criterion's).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..solvers import decision_function
from ..solvers.svr import svr_predict
from .result import SearchResult


@dataclass
class GridResult:
    log_C: np.ndarray            # (n_C,)
    log_sigma2: np.ndarray       # (n_s,)
    values: np.ndarray           # (n_s, n_C) criterion values
    test_error: np.ndarray | None  # (n_s, n_C) test error rates, or None
    n_sv: np.ndarray             # (n_s, n_C); −1 where the criterion trains no full SVM
    time_s: float
    n_evaluations: int
    path: list | None = None     # every evaluation in visiting order (SearchResult.path format)

    @property
    def argmin(self) -> tuple[float, float]:
        """(ln C, ln σ²) of the smallest criterion value."""
        i, j = np.unravel_index(np.nanargmin(self.values), self.values.shape)
        return float(self.log_C[j]), float(self.log_sigma2[i])


def grid_range(start: float, stop: float, step: float) -> np.ndarray:
    """Inclusive range start, start+step, …, stop (grid.py style; step may be negative)."""
    if step == 0 or not np.isfinite(step):
        raise ValueError(f"grid step must be a finite non-zero number, got {step!r}")
    if (stop - start) * step < 0:
        raise ValueError(f"grid range {start}..{stop} cannot be reached with step {step}")
    n = int(np.floor((stop - start) / step + 1e-9)) + 1
    return start + step * np.arange(n)


def grid_axis(spec, name: str = "grid") -> np.ndarray:
    """``grid_range`` of a (begin, end, step) triple, with a ValueError naming ``name`` when
    ``spec`` is not three finite numbers."""
    try:
        begin, end, step = (float(v) for v in spec)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be three numbers (begin, end, step), got {spec!r}") from None
    if not (np.isfinite(begin) and np.isfinite(end)):
        raise ValueError(f"{name}: begin and end must be finite, got {spec!r}")
    try:
        return grid_range(begin, end, step)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def evaluate_grid(criterion, log_C, log_sigma2, X_test=None, y_test=None,
                  progress=None, fixed=()) -> GridResult:
    """Evaluate ``criterion`` (two parameters: ln C and one kernel parameter, then the values
    ``fixed`` of its further ones — an SVR criterion's ln ε) on the grid.

    y_test must be in {−1, +1} (a regression criterion: real targets, and ``test_error`` holds
    the test mean squared error). ``progress(k, total)`` is called after each point. ``n_sv``
    is that of the SVM trained on the criterion's data at each point; −1 where the criterion
    trains none (cv-error trains on folds) and no test error is asked for.
    """
    log_C = np.asarray(log_C, dtype=float)
    log_s = np.asarray(log_sigma2, dtype=float)
    fixed = [float(v) for v in fixed]
    if criterion.n_params != 2 + len(fixed):
        raise ValueError("grid evaluation needs a criterion with exactly two parameters "
                         f"(ln C and one kernel parameter), got {criterion.param_names}")
    regression = getattr(criterion, "task", "classification") == "regression"
    t0 = time.perf_counter()
    values = np.full((log_s.size, log_C.size), np.nan)
    n_sv = np.zeros((log_s.size, log_C.size), dtype=int)
    err = None if X_test is None else np.full_like(values, np.nan)
    total = values.size
    path = []
    k = 0
    for i, ls in enumerate(log_s):
        cols = range(log_C.size) if i % 2 == 0 else range(log_C.size - 1, -1, -1)
        for j in cols:
            theta = np.array([log_C[j], ls, *fixed])
            before = criterion._svm_prev
            ev = criterion.evaluate(theta, need_grad=False)
            values[i, j] = ev.value
            path.append({"x": [float(v) for v in theta], "value": float(ev.value), "grad": None,
                         "time_s": time.perf_counter() - t0, "accepted": False})
            sol = criterion._svm_prev
            if sol is before:
                # no full-data SVM at this point (cv-error trains on the folds only; an
                # evaluation answered from a search log, search/log.py, trains nothing): train
                # one for the test error, else leave n_sv unknown
                solve = criterion.solve_svr if regression else criterion.solve_svm
                sol = None if err is None else solve(*criterion.split_theta(theta))
            # the evaluation's own count when it has one; −1 when unknown
            n_sv[i, j] = (ev.info["n_sv"] if "n_sv" in ev.info
                          else -1 if sol is None else sol.support.size)
            if err is not None:
                _, kernel = criterion.split_theta(theta)
                if regression:
                    f = svr_predict(criterion.X, sol.beta, sol.b, kernel, X_test)
                    err[i, j] = float(np.mean((f - y_test) ** 2))
                else:
                    f = decision_function(criterion.X, criterion.y, sol.alpha, sol.b, kernel,
                                          X_test)
                    err[i, j] = float(np.mean(np.where(f > 0, 1.0, -1.0) != y_test))
            k += 1
            if progress is not None:
                progress(k, total)
    return GridResult(log_C=log_C, log_sigma2=log_s, values=values, test_error=err, n_sv=n_sv,
                      time_s=time.perf_counter() - t0, n_evaluations=total, path=path)


def minimize_grid(criterion, log_C, log_sigma2, progress=None):
    """Grid search: the grid point with the smallest criterion value, as a ``SearchResult``
    (nfev = number of grid points, njev = 0, ``grid`` = the full ``GridResult``)."""
    grid = evaluate_grid(criterion, log_C, log_sigma2, progress=progress)
    x = np.array(grid.argmin)
    best = int(np.nanargmin([p["value"] for p in grid.path]))
    grid.path[best]["accepted"] = True
    return SearchResult(x=x, fun=float(np.nanmin(grid.values)), jac=None, nfev=grid.n_evaluations,
                        njev=0, nit=0, status=0, success=True,
                        message=f"grid minimum over {grid.values.shape[0]}x{grid.values.shape[1]} points",
                        path=grid.path, grid=grid)


def minimize_grid_1d(criterion, log_C, progress=None):
    """Grid search over ln C alone, for kernels without a tuned parameter (linear): the grid
    point with the smallest criterion value, as a ``SearchResult`` (nfev = points, njev = 0)."""
    log_C = np.asarray(log_C, dtype=float)
    if criterion.n_params != 1:
        raise ValueError("a 1-D grid needs a criterion with ln C as its only parameter, got "
                         f"{criterion.param_names}")
    t0 = time.perf_counter()
    path = []
    for k, lc in enumerate(log_C):
        ev = criterion.evaluate(np.array([lc]), need_grad=False)
        path.append({"x": [float(lc)], "value": float(ev.value), "grad": None,
                     "time_s": time.perf_counter() - t0, "accepted": False})
        if progress is not None:
            progress(k + 1, log_C.size)
    best = int(np.nanargmin([p["value"] for p in path]))
    path[best]["accepted"] = True
    return SearchResult(x=np.array([log_C[best]]), fun=path[best]["value"], jac=None,
                        nfev=log_C.size, njev=0, nit=0, status=0, success=True,
                        message=f"grid minimum over {log_C.size} values of ln C", path=path)
