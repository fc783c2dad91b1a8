"""Per-sample weights: C_i = C·w_i (LIBSVM's ``svm_parameter.weight`` per class times a weight
per sample, as scikit-learn's ``SVC(class_weight=…).fit(X, y, sample_weight=…)``).

Every layer takes the same vector w (``weights=``; None means all ones and keeps the unweighted
code path): the solvers use the box 0 ≤ α_i ≤ C w_i (L1) or the diagonal K + diag(1/(C w_i))
(L2, and R̃²), the criteria the same C_i in their formulas and gradients. Below the estimator the
weights must be > 0: ``BoundSVC.fit`` drops the samples of weight 0 first, as LIBSVM does.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_weights", "check_sample_weight", "class_weight_vector", "combine_weights",
           "same_weights"]


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


def check_sample_weight(sample_weight, n: int, name: str = "sample_weight") -> np.ndarray:
    """scikit-learn's ``sample_weight``: None (ones), a number (the same for every sample) or
    n finite numbers >= 0; a float64 vector. Negative, NaN or infinite weights and a wrong
    length raise a ValueError."""
    if sample_weight is None:
        return np.ones(n)
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {sample_weight!r}") from None
    w = _as_vector(np.full(n, w) if w.ndim == 0 else w, n, name)
    if np.any(w < 0):
        i = int(np.argmax(w < 0))
        raise ValueError(f"{name} must be >= 0; entry {i} is {w[i]!r} (negative weights have "
                         "no meaning for C_i = C*w_i)")
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
