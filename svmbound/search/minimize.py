"""One entry point for the gradient searches, in the shape of ``scipy.optimize.minimize``.

``minimize(fun, x0, bounds, jac=, method=, options=, callback=)`` minimises f over the box
``bounds = (lower, upper)`` with

* ``method='bfgs'``: projected BFGS (Chung et al. 2003, §4.2; :mod:`.bfgs`);
* ``method='lbfgsb'``: SciPy's L-BFGS-B (Chapelle §5; :mod:`.gradient`);
* ``method='projected-gradient'``: projected steepest descent (:mod:`.gradient`).

``options``: ``gtol`` — the stop on the projected gradient, always relative to |f(x0)|
(‖P∇f‖ ≤ gtol·|f(x0)|: a criterion's scale differs by data set); ``max_iter``; ``max_fev`` —
a budget of evaluations of f (bfgs, lbfgsb; None: none); ``backtrack`` ('halve' as Chung, or
'quadratic') and ``max_step`` (bfgs); ``f0`` — f(x0) when the caller knows it (lbfgsb and
projected-gradient evaluate f(x0) for the relative gtol otherwise; gtol 0 needs none);
``stop`` — lbfgsb only: ``stop(values) -> bool`` after each evaluation ends the search at its
lowest value (:func:`.gradient.minimize_lbfgsb`); ``start`` — lbfgsb only: (f(x0), ∇f(x0)) from
an evaluation made elsewhere, x0 then not evaluated.

The searches without gradients take the same call:

* ``method='grid'``: ``fun`` a criterion (its ``evaluate``), ``options={"axes": [ln C values]
  or [ln C values, kernel parameter values]}`` (Chung Tables 2.1–3.1, LIBSVM grid.py;
  :mod:`.grid`); ``x0`` and ``bounds`` are not used;
* ``method='annealing'``: ``fun(x)`` on the points of ``options["space"]`` (a
  :class:`SearchSpace`, integer coordinates allowed; Acevedo et al. §3, :mod:`.annealing`),
  ``options`` ``max_epochs`` and ``random_state``; ``x0`` None: the space's own start.

Returns the method's :class:`SearchResult`.
"""

from __future__ import annotations

import numpy as np

from .annealing import minimize_annealing
from .bfgs import minimize_projected_bfgs
from .gradient import minimize_lbfgsb, minimize_projected_gradient
from .grid import minimize_grid, minimize_grid_1d

__all__ = ["minimize", "GRADIENT_METHODS", "METHODS"]

GRADIENT_METHODS = ("bfgs", "lbfgsb", "projected-gradient")
METHODS = GRADIENT_METHODS + ("grid", "annealing")
_DEFAULTS = {"gtol": 1e-4, "max_iter": 100, "max_fev": None, "backtrack": "halve",
             "max_step": 2.0, "f0": None, "stop": None, "start": None}
_OPTIONS = {"grid": {"axes": None},
            "annealing": {"space": None, "max_epochs": 200, "random_state": None}}


def minimize(fun, x0, bounds, *, jac=None, method: str = "bfgs", options: dict | None = None,
             callback=None):
    """Minimise ``fun`` over the box ``bounds = (lower, upper)`` from ``x0`` with the
    gradient ``jac``, or by a grid or annealing (module docstring)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    opts = dict(_OPTIONS.get(method, _DEFAULTS))
    unknown = set(options or {}) - set(opts)
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)} of method {method!r}; valid: "
                         f"{sorted(opts)}")
    opts.update(options or {})
    if method == "grid":
        axes = list(opts["axes"])
        return minimize_grid(fun, *axes) if len(axes) == 2 else minimize_grid_1d(fun, axes[0])
    if method == "annealing":
        return minimize_annealing(fun, opts["space"], max_epochs=int(opts["max_epochs"]),
                                  random_state=opts["random_state"], x0=x0, callback=callback)
    if jac is None:
        raise ValueError(f"method {method!r} needs the gradient jac")
    lower, upper = bounds
    max_iter = int(opts["max_iter"])
    for name in ("stop", "start"):
        if opts[name] is not None and method != "lbfgsb":
            raise ValueError(f"option {name!r} is for method 'lbfgsb' only, not {method!r}")
    if method == "bfgs":
        return minimize_projected_bfgs(fun, jac, x0, lower, upper, max_iter=max_iter,
                                       gtol_rel=opts["gtol"], max_fev=opts["max_fev"],
                                       backtrack=opts["backtrack"], max_step=opts["max_step"],
                                       callback=callback)
    # the relative gtol made absolute (the search evaluates the start again; a criterion
    # answers it from this evaluation), from ``f0`` = f(x0) when the caller knows it
    if opts["start"] is not None:
        f0 = opts["start"][0]
    elif opts["f0"] is not None or opts["gtol"] == 0:
        f0 = opts["f0"]
    else:
        f0 = fun(x0)
    gtol_abs = opts["gtol"] * max(abs(f0 or 0.0), np.finfo(float).tiny)
    if method == "lbfgsb":
        return minimize_lbfgsb(fun, jac, x0, lower, upper, max_iter=max_iter, gtol=gtol_abs,
                               max_fun=opts["max_fev"], callback=callback, stop=opts["stop"],
                               start=opts["start"])
    return minimize_projected_gradient(fun, jac, x0, lower, upper, max_iter=max_iter,
                                       gtol=gtol_abs, callback=callback)
