"""Per-sample weights: C_i = C·w_i (LIBSVM's ``svm_parameter.weight`` per class times a weight
per sample, as scikit-learn's ``SVC(class_weight=…).fit(X, y, sample_weight=…)``).

Every layer takes the same vector w (``weights=``; None means all ones and keeps the unweighted
code path): the solvers use the box 0 ≤ α_i ≤ C w_i (L1) or the diagonal K + diag(1/(C w_i))
(L2, and R̃²), the criteria the same C_i in their formulas and gradients. Below the estimator the
weights must be > 0: ``BoundSVC.fit`` drops the samples of weight 0 first, as LIBSVM does.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import _check_sample_weight

__all__ = ["check_weights", "check_sample_weight", "class_weight_vector", "combine_weights",
           "same_weights", "weight_scale", "shift_log_c"]


def check_weights(weights, n: int, name: str = "weights"):
    """None, or a C-contiguous float64 vector of n finite weights > 0 (the solver and
    criterion contract: C_i = C·w_i). Raises a ValueError naming the problem."""
    if weights is None:
        return None
    w = _as_vector(weights, n, name)
    if np.any(w <= 0):
        i = int(np.argmax(w <= 0))
        raise ValueError(f"{name} must be > 0 (C_i = C*w_i); entry {i} is {w[i]!r} "
                         "(drop the samples of weight 0 first, as BoundSVC.fit does)")
    return w


def check_sample_weight(sample_weight, n: int) -> np.ndarray:
    """scikit-learn's ``sample_weight`` as scikit-learn checks it (``_check_sample_weight``:
    None gives ones, a number that number for every sample, else n finite numbers), all >= 0;
    a float64 vector. Entries that are not numbers, and a negative weight, are ValueErrors
    naming sample_weight (scikit-learn's own messages do not)."""
    try:
        np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"sample_weight must be numbers, got {sample_weight!r}") from None
    w = _check_sample_weight(sample_weight, range(n), dtype=np.float64,
                             allow_all_zero_weights=True)
    if np.any(w < 0):
        i = int(np.argmax(w < 0))
        raise ValueError(f"sample_weight must be >= 0; entry {i} is {float(w[i])!r} (negative "
                         "weights have no meaning for C_i = C*w_i)")
    return w


def _as_vector(values, n: int, name: str) -> np.ndarray:
    try:
        w = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {values!r}") from None
    if w.ndim != 1:
        if w.ndim == 2 and 1 in w.shape:
            w = w.ravel()
        else:
            raise ValueError(f"{name} must be 1-D with one weight per sample, got shape {w.shape}")
    if w.shape[0] != n:
        raise ValueError(f"{name} has {w.shape[0]} entries, but there are {n} samples")
    if not np.all(np.isfinite(w)):
        i = int(np.argmax(~np.isfinite(w)))
        raise ValueError(f"{name} contains NaN or infinity (first at entry {i})")
    return np.ascontiguousarray(w)


def class_weight_vector(class_weight, classes, y) -> np.ndarray:
    """The weight of each class in ``classes`` (scikit-learn's ``SVC.class_weight_``): ones for
    None, n_samples / (n_classes · bincount(y)) for 'balanced' (counted on every sample of y,
    whatever its sample weight, as scikit-learn does), or the dict's value per class label
    (classes it does not name get 1). Weights must be finite and >= 0."""
    if class_weight is None:        # what compute_class_weight gives, without its 0.3 ms
        return np.ones(len(classes))
    from sklearn.utils.class_weight import compute_class_weight

    if not (isinstance(class_weight, dict)
            or (isinstance(class_weight, str) and class_weight == "balanced")):
        raise ValueError(f"class_weight must be None, 'balanced' or a dict {{label: weight}}, "
                         f"got {class_weight!r}")
    cw = np.asarray(compute_class_weight(class_weight, classes=np.asarray(classes), y=y),
                    dtype=np.float64)
    if not np.all(np.isfinite(cw)) or np.any(cw < 0):
        raise ValueError(f"class_weight must be finite numbers >= 0, got {class_weight!r}")
    return cw


def combine_weights(class_weight, classes, y, sample_weight):
    """(w, class weights): w_i = class_weight[y_i] · sample_weight_i, C_i = C·w_i (as
    scikit-learn's SVC); ``y`` holds the original labels. w is None when every w_i is 1 (the
    unweighted problem, solved exactly as without weights)."""
    y = np.asarray(y)
    n = y.shape[0]
    sw = check_sample_weight(sample_weight, n)
    cw = class_weight_vector(class_weight, classes, y)
    w = cw[np.searchsorted(classes, y)] * sw
    return (None if np.all(w == 1.0) else w), cw


def same_weights(a, b) -> bool:
    """Whether two weight vectors (None = ones) are the same."""
    if a is None or b is None:
        return a is None and b is None or np.all((a if b is None else b) == 1.0)
    return a.shape == b.shape and bool(np.array_equal(a, b))


def weight_scale(weights) -> float:
    """The scale s of per-sample weights: their mean (1 for None), computed as
    max(w)·mean(w/max(w)) so that weights near float64's largest number (1e308 each, whose sum
    overflows) or its smallest give a finite s > 0. With class_weight='balanced' alone s = 1."""
    if weights is None:
        return 1.0
    w = np.asarray(weights, dtype=np.float64)
    m = float(w.max()) if w.size else 0.0
    if not np.isfinite(m) or m <= 0:
        raise ValueError(f"weights must be finite and have a positive entry, got max {m!r}")
    return m * float(np.mean(w / m))


#: float64's normal range in ln: the moved ln C box must stay inside it (C = e^ln C a normal
#: number). At its edges the products the solvers and criteria form stay finite: C·w_i and
#: 1/(C·w_i) are those of unit weights; uniform weights 1e300 and 1e-300 (ln C down to −700.8,
#: up to 700.8) gave the picks of unit weights for the default strategy, radius–margin, span and
#: the cv-error grid (C·s and σ² to 1e-13 relative).
_LN_NORMAL = (float(np.log(np.finfo(np.float64).tiny)), float(np.log(np.finfo(np.float64).max)))


def shift_log_c(param_names, lower, upper, x0, weights, *, bounds_given: bool = False,
                start_given: bool = False):
    """(lower, upper, x0) with the default ln C box and start moved by −ln s, s the scale of
    the per-sample weights (:func:`weight_scale`; issue 29 item 5).

    C_i = C·w_i: weights of scale s turn the box C ∈ [e^−10, e^10] — Chung's, made for weights
    near 1 — into C_i ∈ s·[e^−10, e^10]. A uniform weight 1e100 made every C_i ≥ 1e95, where
    every criterion is flat in C: the search stayed at its start, without a word (accuracy 0.83
    against 0.90), and 1e-300 made C_i ≈ 1e-300, where the span bound's gradient overflowed
    (bfgs: "grad(x0) is not finite"). Moved by −ln s the box covers the same C_i as without
    weights, so the pick follows the weights: the tuned C is that of unit weights divided by s
    (C·w_i unchanged, as scikit-learn's SVC(C).fit(sample_weight=) defines it). With weights
    of mean 1 (none, class_weight='balanced') nothing moves. A box the user gave
    (``bounds_given``) or a start (``start_given``) is kept: it is in C's own units; the moved
    default start is clipped into the box.

    A ValueError when the moved box leaves float64's normal range (weights of scale beyond about
    1e±303: C = e^ln C would underflow or overflow): only the weights' ratios matter, so
    dividing them by a constant gives the same model.
    """
    lower = np.array(lower, dtype=np.float64)
    upper = np.array(upper, dtype=np.float64)
    x0 = np.array(x0, dtype=np.float64)
    names = list(param_names)
    if weights is None or "log_C" not in names:
        return lower, upper, x0
    s = weight_scale(weights)
    t = -float(np.log(s))
    if t == 0.0:
        return lower, upper, x0
    k = names.index("log_C")
    if not bounds_given:
        lower[k] += t
        upper[k] += t
        lo_ok, hi_ok = _LN_NORMAL
        if lower[k] < lo_ok or upper[k] > hi_ok:
            raise ValueError(
                f"the per-sample weights (class_weight x sample_weight) have scale {s:.3g} "
                f"(their mean): C_i = C*w_i needs ln C in [{lower[k]:.4g}, {upper[k]:.4g}] to "
                f"cover the default range of C*w_i, beyond float64's range (ln C in "
                f"[{lo_ok:.4g}, {hi_ok:.4g}]). Only the ratios of the weights matter: divide "
                f"them by their mean (or give bounds for ln C)")
    if not start_given:
        x0[k] = float(np.clip(x0[k] + t, lower[k], upper[k]))
    return lower, upper, x0
