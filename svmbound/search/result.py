"""The object every search strategy returns.

``SearchResult`` is a :class:`scipy.optimize.OptimizeResult` (a dict with attribute access), so
code written for ``scipy.optimize.minimize`` reads it unchanged. On top of SciPy's usual fields it
carries ``path``: every criterion evaluation in the order it was made, which is what the contour
plots of Chung Fig. 2–3 draw and what the #fun / #grad columns of Chung Table 4.1 count.
"""

from __future__ import annotations

from scipy.optimize import OptimizeResult


class SearchResult(OptimizeResult):
    """Result of a hyperparameter search.

    Fields
    ------
    x : ndarray
        Final point (the last accepted iterate).
    fun : float
        Criterion value at ``x``.
    jac : ndarray or None
        Gradient at ``x`` (None for derivative-free searches).
    nfev : int
        Number of calls made to ``fun`` (Chung Table 4.1, "#fun").
    njev : int
        Number of calls made to ``grad`` (Chung Table 4.1, "#grad").
    nit : int
        Number of accepted steps (quasi-Newton iterations). For the BFGS search
        ``njev == nit + 1``: one gradient at the start point and one per accepted step.
    message : str
        Why the search stopped.
    success : bool
        Whether the stop is a normal termination.
    status : int
        Code of the stop reason (each strategy documents its codes).
    path : list of dict
        One dict per function evaluation, in order::

            {"x": list[float],          # the point evaluated
             "value": float,            # fun(x)
             "grad": list[float] | None,  # grad(x) for accepted points, else None
             "time_s": float,           # seconds since the search started, when done
             "accepted": bool}          # True for the start point and accepted iterates

    Strategies may add fields (the BFGS search adds ``hess_inv``, the final inverse-Hessian
    approximation H).
    """

    def accepted_path(self) -> list[dict]:
        """The entries of ``path`` that are iterates (start point and accepted steps)."""
        return [e for e in self.get("path", []) if e["accepted"]]


def flat_start_parameters(result, x0, rtol: float = 1e-6) -> list[int]:
    """Indices k of the parameters a gradient search left at their start value although —
    or because — the criterion was flat there: |∂f/∂θ_k(x0)| ≤ rtol·|f(x0)|. Empty for
    derivative-free searches (no gradient in the path).

    A kernel parameter that is flat at the start usually means the kernel is numerically
    constant there (K ≈ I when the data scale is huge against σ², K ≈ 11ᵀ when it is tiny), so
    the search never moves it: data far from unit scale, or identical rows.
    """
    import numpy as np

    path = result.get("path") or []
    if not path or path[0].get("grad") is None:
        return []
    x0 = np.asarray(x0, dtype=float)
    g0 = np.asarray(path[0]["grad"], dtype=float)
    f0 = abs(float(path[0]["value"]))
    x = np.asarray(result.x, dtype=float)
    if x.shape != x0.shape or g0.shape != x0.shape:
        return []
    unmoved = np.abs(x - x0) <= 1e-8 * np.maximum(1.0, np.abs(x0))
    flat = np.abs(g0) <= rtol * max(f0, np.finfo(float).tiny)
    return [int(k) for k in np.flatnonzero(unmoved & flat)]
