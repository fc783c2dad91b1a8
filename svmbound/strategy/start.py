"""Step 1 of the default strategy: the data-driven box and start.

θ₀ = (ln C = 0, ln σ² = ln(d·Var(X)/2)) — scikit-learn's ``gamma='scale'``, γ₀ = 1/(d·Var(X)),
σ² = 1/(2γ) — with the ln σ² box centred on it (± ``log_sigma2_half_width``, the width of
Chung's [−10, 10]), so that rescaling X rescales the search with it. Other parameters keep
Chung's box and start (``search.box``).
"""

from __future__ import annotations

import numpy as np

from .._sparse import entry_variance
from .._validation import check_data_scale
from ..kernels import is_rbf_params
from ..search.box import DEFAULT_BOUNDS, DEFAULT_START, box_and_start, clip_into_bounds, default_for
from .config import DEFAULT_CONFIG, StrategyConfig

__all__ = ["scale_log_sigma2", "auto_box_and_start"]


def scale_log_sigma2(X) -> float:
    """ln σ² of scikit-learn's ``gamma='scale'``: γ = 1/(d·Var(X)), σ² = 1/(2γ) = d·Var(X)/2.

    Var(X) is the variance of all entries of X (as scikit-learn computes it). Raises a
    ValueError when it is 0 (every entry equal: no kernel can tell the rows apart), or when
    the values are too large or too small for it to be computed
    (``_validation.check_data_scale``)."""
    check_data_scale(X)
    var = entry_variance(X)
    if not np.isfinite(var) or var <= 0.0:
        raise ValueError("X has zero variance (every value is the same): no kernel can tell the "
                         "rows apart, there is nothing to tune")
    return float(np.log(X.shape[1] * var / 2.0))


def auto_box_and_start(param_names, X, kernel, bounds=None, start=None,
                       config: StrategyConfig = DEFAULT_CONFIG):
    """(lower, upper, x0) of the default strategy: Chung's box and start, except that every
    ln σ² parameter of an RBF kernel (isotropic or ARD) is centred on :func:`scale_log_sigma2`
    unless the user gave ``bounds`` / ``start`` (half-width ``config.log_sigma2_half_width``)."""

    is_ls = np.array([p == "log_sigma2" or p.startswith("log_sigma2_") for p in param_names])
    centre = scale_log_sigma2(X) if is_ls.any() and _is_rbf(kernel) else None
    if start is None:
        # the default start, with ln σ² at the data's scale, clipped into a given box
        start = np.array([default_for(DEFAULT_START, p) for p in param_names], dtype=float)
        if centre is not None:
            start[is_ls] = centre
        if bounds is not None:
            start = clip_into_bounds(start, bounds, len(param_names))
    if bounds is None and centre is not None:
        bounds = np.array([default_for(DEFAULT_BOUNDS, p) for p in param_names], dtype=float)
        bounds[is_ls] = (centre - config.log_sigma2_half_width,
                            centre + config.log_sigma2_half_width)
    return box_and_start(param_names, bounds, start)


def _is_rbf(kernel) -> bool:
    """RBF-type kernels (σ² a length scale of X): isotropic RBF and ARD RBF, not the scaled
    polynomial kernel."""
    return is_rbf_params(kernel.get_params())
