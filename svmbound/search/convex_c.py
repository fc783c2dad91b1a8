"""Convex tuning of C for the L2-SVM at a fixed kernel (De Bie, Lanckriet & Cristianini 2003).

Unlike the other strategies this one is not a local search: for a fixed kernel K the criterion
is convex in a re-parameterisation γ of 1/C and its global minimum is found directly. With
r = trace K, l samples and γ_o = 1/C (De Bie §2, before eq. 3):

    γ = γ_o l / (γ_o l + r) = l / (l + C r),        C = l (1 − γ) / (γ r),

    K_γ = (K + γ_o I) / trace(K + γ_o I) = (1 − γ) K/r + γ I/l,                 (trace one)

    V(γ) = max_{α ≥ 0, yᵀα = 0}  eᵀα − ½ αᵀ G(K_γ) α,     G(K)_ij = y_i y_j K_ij,   (eq. 3)

the hard-margin dual (1/margin²) in the augmented feature space at fixed trace, equal to
½ · trace(K + I/C) · ‖w̃‖² of the L2-SVM at C. It is minimised over γ ∈ [0, 1] (De Bie §3.2,
``gamma_range="unit"``, C ∈ [0, ∞]) or over the PSD interval [γ_min, γ_max] (§3.1, eq. 4–5,
``gamma_range="general"``), either as the QCQP of eq. 5 / §3.2 (``method="qcqp"``, needs
``pip install 'svmbound[convex]'``) or by a bounded 1-D search over γ with warm-started SMO
solves (``method="interchange"``, the default: no extra dependency and much faster). Details
and the handling of the ends are in :mod:`svmbound.solvers.qcqp`.

The returned :class:`SearchResult` has ``x = [ln C]`` — ``nan`` when the optimum is not an
L2-SVM with 0 < C < ∞: γ = 0 (C = ∞, the hard-margin SVM), γ = 1 (C = 0) or, on the general
range, γ < 0 / γ > 1 (a negative C); ``message`` then says so, and the full
:class:`~svmbound.solvers.qcqp.ConvexCResult` is under the ``convex`` key.
"""

from __future__ import annotations

import math
import time

import numpy as np

from .._validation import check_binary_y, check_X
from ..kernels import Kernel
from ..solvers.qcqp import ConvexCResult, solve_convex_c
from .result import SearchResult

__all__ = ["tune_c_convex"]


def _log_c(C: float) -> float:
    return math.log(C) if 0.0 < C < math.inf else math.nan


def tune_c_convex(X, y, kernel: Kernel, *, gamma_range: str = "unit",
                  method: str = "interchange", tol: float = 1e-7) -> SearchResult:
    """Tune C of the L2-SVM for a fixed ``kernel`` by De Bie's convex criterion (eq. 3–5).

    Parameters
    ----------
    X : (l, d) data; y : two label values (mapped to ±1 as scikit-learn does);
    kernel : a ``svmbound.kernels.Kernel`` (its parameters are not tuned here);
    gamma_range : "unit" (γ ∈ [0, 1], De Bie §3.2) or "general" (γ ∈ [γ_min, γ_max], §3.1);
    method : "interchange" (1-D search with SMO solves) or "qcqp" (cvxpy + Clarabel);
    tol : tolerance on γ (interchange) / of the conic solver (qcqp).

    Returns
    -------
    SearchResult with ``x = [ln C]`` (nan if C is ∞, 0 or negative), ``fun`` = min V(γ),
    ``nfev`` = solver calls, ``njev = 0``, ``nit`` (Brent iterations or Clarabel iterations),
    ``path`` (one entry per evaluation: ``x = [ln C(γ)]``, ``value``, ``gamma``, ``time_s``),
    and ``convex``: the :class:`~svmbound.solvers.qcqp.ConvexCResult`.
    """
    t0 = time.perf_counter()
    X = check_X(X)
    y_pm, _ = check_binary_y(y, X.shape[0])
    if not isinstance(kernel, Kernel):
        raise ValueError(f"kernel must be a svmbound.kernels.Kernel, got {type(kernel).__name__}")
    K = kernel.block(X)
    t_kernel = time.perf_counter() - t0
    res: ConvexCResult = solve_convex_c(K, y_pm, gamma_range=gamma_range, method=method, tol=tol)
    l, r = res.n_samples, res.trace

    def entry(gamma, value, t, accepted):
        C = l * (1.0 - gamma) / (gamma * r) if gamma != 0 else math.inf
        return {"x": [_log_c(C)], "value": float(value), "grad": None, "time_s": t_kernel + t,
                "accepted": accepted, "gamma": float(gamma)}

    if res.path:
        path = [entry(e["gamma"], e["value"], e["time_s"], False) for e in res.path]
        for e in path:                       # mark the returned optimum
            if e["gamma"] == res.gamma and e["value"] == res.objective:
                e["accepted"] = True
                break
    else:
        path = [entry(res.gamma, res.objective, res.time_s, True)]

    if 0.0 < res.C < math.inf:
        message = (f"De Bie convex C ({gamma_range} range, {method}): optimum at "
                   f"gamma = {res.gamma:.6g}, C = {res.C:.6g}")
    else:
        message = (f"De Bie convex C ({gamma_range} range, {method}): optimum at "
                   f"gamma = {res.gamma:.6g}, C = {res.C:.6g} is not a finite positive C — "
                   f"{res.note}")
    return SearchResult(x=np.array([_log_c(res.C)]), fun=res.objective, jac=None,
                        nfev=res.n_solves, njev=0, nit=int(res.info.get("nit", 0)),
                        status=0, success=True, message=message, path=path, convex=res,
                        time_s=time.perf_counter() - t0)
