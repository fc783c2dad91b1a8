"""The box and start point of a search over θ = (ln C, kernel θ).

Chung §4.2 searches ln C and ln σ² in [−10, 10] from (0, 0); the ARD parameters
``log_sigma2_<k>`` take the ``log_sigma2`` entry; the polynomial kernel's ``coef0`` c ∈ [0, 10]
from 1. :func:`box_and_start` validates a user's ``bounds`` / ``start`` against the tuned
parameters' names and returns (lower, upper, x0).
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_BOUNDS", "DEFAULT_START", "default_for", "box_and_start", "clip_into_bounds"]

#: Default box per tuned parameter (Chung §4.2: [−10, 10] for ln C and ln σ²); the ARD
#: parameters log_sigma2_<k> take the log_sigma2 entry.
DEFAULT_BOUNDS = {"log_C": (-10.0, 10.0), "log_sigma2": (-10.0, 10.0), "coef0": (0.0, 10.0)}
DEFAULT_START = {"log_C": 0.0, "log_sigma2": 0.0, "coef0": 1.0}
def default_for(table: dict, name: str):
    """``table[name]``, with ``log_sigma2_<k>`` (ARD) falling back to ``log_sigma2``."""
    if name in table:
        return table[name]
    base, _, k = name.rpartition("_")
    if k.isdigit() and base in table:
        return table[base]
    raise ValueError(f"no default for parameter {name!r}; give bounds and start explicitly")


def _floats(value, name: str, ravel: bool = True) -> np.ndarray:
    """``value`` as a float array, or a ValueError naming ``name``."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {value!r}") from None
    return a.ravel() if ravel else a


def clip_into_bounds(start, bounds, n: int) -> np.ndarray:
    """A default ``start`` of n parameters clipped into a user's ``bounds`` — (lower, upper) or
    one pair per parameter — when they have one of those shapes (else unchanged: ``box_and_start``
    then names the problem)."""
    b = np.asarray(bounds, dtype=float)
    b = np.tile(b, (n, 1)) if b.shape == (2,) else b
    return np.clip(start, b[:, 0], b[:, 1]) if b.shape == (n, 2) else start


def box_and_start(param_names, bounds=None, start=None):
    """(lower, upper, x0) arrays for the tuned parameters, validated."""
    n = len(param_names)
    if bounds is None:
        lower = np.array([default_for(DEFAULT_BOUNDS, p)[0] for p in param_names])
        upper = np.array([default_for(DEFAULT_BOUNDS, p)[1] for p in param_names])
    else:
        b = _floats(bounds, "bounds", ravel=False)
        if b.shape == (2,):
            b = np.tile(b, (n, 1))
        if b.shape != (n, 2):
            raise ValueError(f"bounds must be (lower, upper) or one (lower, upper) per parameter "
                             f"{param_names}, got shape {b.shape}")
        lower, upper = b[:, 0].copy(), b[:, 1].copy()
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError("bounds must be finite")
    if np.any(lower >= upper):
        k = int(np.argmax(lower >= upper))
        raise ValueError(f"bounds for {param_names[k]}: lower {lower[k]} must be < upper {upper[k]}")
    x0 = (np.array([default_for(DEFAULT_START, p) for p in param_names]) if start is None
          else _floats(start, "start"))
    if x0.shape != (n,):
        raise ValueError(f"start must have {n} entries {param_names}, got {x0.size}")
    if not np.all(np.isfinite(x0)):
        raise ValueError(f"start must be finite, got {x0.tolist()}")
    out = (x0 < lower) | (x0 > upper)
    if np.any(out):
        k = int(np.argmax(out))
        raise ValueError(f"start point {x0.tolist()} is outside the box: {param_names[k]} = "
                         f"{x0[k]} not in [{lower[k]}, {upper[k]}]")
    return lower, upper, x0
