"""Input checks shared by every layer. Each failure is a ValueError naming the problem."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.validation import check_array

from ._sparse import all_rows_equal, check_csr, column_variance_sum, entry_variance, issparse
from .exceptions import DataWarning


def check_positive(value, name: str) -> float:
    """A finite float > 0, or a ValueError naming ``name``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number > 0, got {value!r}") from None
    if not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return v


def check_degree(degree) -> int:
    """An integer polynomial degree d >= 1."""
    if isinstance(degree, bool):
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
    if not isinstance(degree, numbers.Integral):
        if isinstance(degree, numbers.Real) and float(degree).is_integer():
            degree = int(degree)
        else:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
    if degree < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
    return int(degree)


def check_X(X, name: str = "X"):
    """A 2-D, non-empty, finite float64 C-contiguous copy-if-needed of ``X``; scipy sparse
    input stays sparse: a canonical float64 CSR matrix (other formats converted, sorted
    indices; ``_sparse.check_csr``), never densified.

    Checks, as scikit-learn's ``check_array`` does, each a ValueError naming ``name``: complex
    values ("Complex data not supported", never a silently dropped imaginary part), strings or
    other non-numeric entries (a TypeError, as ``check_array``, for an entry such as a dict that
    is neither a number nor a string), a number of dimensions other than 2, no samples or no
    features, NaN or infinity (with the first position).
    """
    if issparse(X):  # scipy sparse (e.g. from load_svmlight_file): kept as CSR
        return check_csr(X, name)
    try:
        raw = np.asarray(X)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array: {exc}") from None
    if raw.dtype.kind == "c" or (raw.dtype.kind == "O" and any(
            isinstance(v, (complex, np.complexfloating)) for v in raw.ravel())):
        raise ValueError(f"Complex data not supported: {name} has complex values "
                         f"(dtype {raw.dtype}); pass the real part, or real and imaginary parts "
                         "as separate features")
    if raw.dtype.kind in "USV":
        raise ValueError(f"{name} must be numeric, got an array of dtype {raw.dtype} (strings or "
                         "bytes); convert it to numbers first")
    if raw.ndim == 1:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features); got a 1-D array of length "
                         f"{X.shape[0]}. Reshape your data: {name}.reshape(-1, 1) for a single "
                         f"feature, {name}.reshape(1, -1) for a single sample")
    if raw.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {raw.shape}")
    if raw.shape[0] == 0:
        raise ValueError(f"{name} is empty: 0 samples (found array with 0 sample(s) "
                         f"(shape={raw.shape}) while a minimum of 1 is required)")
    if raw.shape[1] == 0:
        raise ValueError(f"{name} has 0 features: found array with 0 feature(s) "
                         f"(shape={raw.shape}) while a minimum of 1 is required.")
    # the conversion itself is scikit-learn's (float64, C order); the checks above and the
    # position of the first non-finite value below give the messages a user can act on
    try:
        X = check_array(raw, dtype=np.float64, order="C", ensure_all_finite=False,
                        input_name=name)
    except TypeError as exc:   # e.g. a dict in an object array (TypeError, as check_array)
        raise TypeError(f"{name} must be numeric: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"{name} must be numeric: {exc}") from None
    if not np.all(np.isfinite(X)):
        bad = np.argwhere(~np.isfinite(X))[0]
        raise ValueError(f"{name} contains NaN or infinity (first at row {bad[0]}, column {bad[1]})")
    return X


#: float64's range: the largest finite number and the smallest normal one (below it a number
#: keeps fewer than 53 bits, and a square of it is 0).
_FMAX = float(np.finfo(np.float64).max)
_FTINY = float(np.finfo(np.float64).tiny)


def _max_abs_and_unit_variance(X) -> tuple[float, float]:
    """(m, v): m = max |x| over the entries of X, v = the variance of all entries of X/m
    (``X.var()`` of X scaled to [−1, 1]: no overflow or underflow whatever the scale of X);
    v = 0 when every entry is the same. The variance of X itself is v·m², which float64 may not
    hold."""
    if issparse(X):
        m = float(np.abs(X.data).max()) if X.nnz else 0.0
        if m == 0.0:
            return 0.0, 0.0
        return m, entry_variance(X / m)
    X = np.asarray(X)
    m = float(np.abs(X).max())
    if m == 0.0:
        return 0.0, 0.0
    return m, float((X / m).var())


def check_data_scale(X, name: str = "X") -> None:
    """A ValueError when the values of X are so large or so small that the spread of the data —
    the variance behind scikit-learn's ``gamma='scale'``, the squared distances of an RBF kernel,
    the inner products of a linear one — cannot be computed in float64 (issue 29 item 6: X·1e300,
    X·1e200, X·1e-300, X·1e-170 were refused as "X has zero variance (every value is the same)",
    which is false: ``np.var`` overflowed to inf or underflowed to 0).

    Too large: a squared distance between two rows can reach 4·d·max|x|², which must stay below
    float64's largest number 1.8e308 (so must the variance). Too small: the variance must be a
    normal float64 (≥ 2.2e-308); below it the squares of the values have lost their digits and
    every kernel distance is 0. X whose entries are all equal (variance exactly 0) passes: that is
    a real zero variance, for the callers' own message. The scale is computed on X/max|x|, so the
    check itself neither overflows nor underflows; O(n·d)."""
    m, v = _max_abs_and_unit_variance(X)
    if v == 0.0:
        return
    d = X.shape[1]
    # log10 of the variance and of the largest squared distance, without computing them
    log_var = np.log10(v) + 2.0 * np.log10(m)
    log_dist = np.log10(4.0 * d) + 2.0 * np.log10(m)
    advice = ("Standardise the features (sklearn.preprocessing.StandardScaler, or --scale on "
              "the command line)")
    if log_var > np.log10(_FMAX) or log_dist > np.log10(_FMAX):
        raise ValueError(
            f"{name} has values too large to compute the scale of the data in float64: the "
            f"largest |value| is {m:.3g}, so the variance of {name} (about 1e{log_var:.0f}) or "
            f"a squared distance between two rows (up to 1e{log_dist:.0f}) overflows the "
            f"largest float64, {_FMAX:.3g}: no kernel value can be computed. {advice}")
    if log_var < np.log10(_FTINY):
        raise ValueError(
            f"{name} has values too small to compute the scale of the data in float64: the "
            f"largest |value| is {m:.3g}, so the variance of {name} (about 1e{log_var:.0f}) "
            f"underflows below the smallest normal float64, {_FTINY:.3g}; every kernel "
            f"distance would be 0. {name} does not have zero variance: its values differ, but "
            f"at a scale float64 cannot square. {advice}")


def shown_label(v) -> str:
    """A label as a message shows it: the Python value's repr (1.0, 'a'), not NumPy's
    (np.float64(1.0))."""
    return repr(v.item() if isinstance(v, np.generic) else v)


def warn_if_degenerate(X) -> bool:
    """A ``DataWarning`` (and True) when every row of X is the same point: no kernel can tell
    the samples apart, every criterion is flat and the SVM predicts one class.

    First a ValueError (:func:`check_data_scale`) when the values of X are too large or too
    small for the scale of the data to be computed in float64."""
    import warnings



    check_data_scale(X)

    same = (all_rows_equal(X) if issparse(X) else bool(np.all(X == X[0])))
    if X.shape[0] > 1 and same:
        warnings.warn(f"all {X.shape[0]} rows of X are identical: no kernel distinguishes the "
                      "samples, so the criterion is flat and the model predicts one value "
                      "everywhere",
                      DataWarning, stacklevel=3)
        return True
    return False


def data_scale(X) -> float:
    """Mean squared distance between two rows of X, 2·Σ_k Var(X_k) (O(n·d)): the scale that
    σ² of an RBF kernel has to match (σ² far below it gives K ≈ I, far above K ≈ 11ᵀ)."""
    # on X/max|x| (no overflow or underflow in the squares), then scaled back
    m, _ = _max_abs_and_unit_variance(X)
    if m == 0.0:
        return 0.0
    if issparse(X):
        return 2.0 * column_variance_sum(X / m) * m * m
    return float(2.0 * np.var(np.asarray(X) / m, axis=0).sum() * m * m)


def check_binary_y(y, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
    """Map two label values to −1/+1.

    Returns (y_pm, classes) with classes sorted as numpy sorts them; classes[0] ↦ −1,
    classes[1] ↦ +1 (scikit-learn's convention for binary SVC).
    """
    y = np.asarray(y)
    if y.ndim != 1:
        y = y.ravel() if y.ndim == 2 and 1 in y.shape else y
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {np.shape(y)}")
    if y.shape[0] != n_samples:
        raise ValueError(f"X and y have different lengths: {n_samples} samples in X, {y.shape[0]} labels in y")
    if y.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: y has complex labels (dtype {y.dtype})")
    check_finite_labels(y)
    _check_class_labels(y)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(f"y has a single class ({shown_label(classes[0])}); an SVM needs two "
                         "classes")
    if classes.size > 2:
        raise ValueError(f"y has {classes.size} classes {classes[:10].tolist()}; "
                         "svmbound handles binary "
                         "problems (exactly two label values)")
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    return y_pm, classes


def check_finite_labels(y) -> None:
    """A ValueError when the labels ``y`` (1-D) hold NaN or infinity, as scikit-learn's SVC
    refuses them ("Input y contains NaN"), whatever the dtype: float labels, and object labels
    too (issue 29 item 4: ``yb.astype(float).astype(object)`` with NaN entries was taken as a
    one-vs-one problem of 9 "classes", each NaN one of its own, since NaN ≠ NaN for
    ``np.unique``). Object arrays go through scikit-learn's own ``_assert_all_finite`` (NaN,
    including ``float('nan')`` among strings) and, for their numeric entries, a test for
    infinity."""
    if y.dtype.kind == "f":
        bad = ~np.isfinite(y)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"Input y contains NaN or infinity (first at entry {i}: {y[i]!r}); "
                             "every label must be a class value")
        return
    if y.dtype != object:
        return
    from sklearn.utils.validation import _assert_all_finite

    try:
        _assert_all_finite(y, allow_nan=False, input_name="y")
    except ValueError:
        i = next(k for k, v in enumerate(y) if _is_nan(v))
        raise ValueError(f"Input y contains NaN (first at entry {i}: {y[i]!r}); every label "
                         "must be a class value") from None
    for i, v in enumerate(y):
        if isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) \
                and not np.isfinite(float(v)):
            raise ValueError(f"Input y contains infinity (first at entry {i}: {v!r}); every "
                             "label must be a class value")


def _is_nan(v) -> bool:
    """Whether one label is NaN (NaN is the only value not equal to itself)."""
    try:
        return bool(v != v)
    except (TypeError, ValueError):
        return False


def _check_class_labels(y) -> None:
    """Reject targets that are not class labels, as scikit-learn's classifiers do
    (``check_classification_targets``): continuous values such as 0.5 and 1.5 ("Unknown label
    type: continuous"), or a mixture of types (e.g. strings and numbers)."""
    if y.dtype.kind in "iubUS" or (y.dtype.kind == "f" and np.all(y == np.round(y))):
        return     # what type_of_target would call binary or multiclass, without its 0.2 ms
    from sklearn.utils.multiclass import type_of_target

    try:
        kind = type_of_target(y, input_name="y")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y does not hold class labels: {exc}") from None
    if kind == "continuous" or kind == "continuous-multioutput":
        frac = y[(y != np.round(y)) & np.isfinite(y)] if y.dtype.kind == "f" else y
        raise ValueError(f"Unknown label type: continuous. y must hold class labels (two distinct "
                         f"values such as -1/+1, 0/1 or strings), got non-integer values such as "
                         f"{frac[:3].tolist()}; for regression targets use svmbound.BoundSVR")
    if kind == "unknown":
        raise ValueError(f"Unknown label type: y of dtype {y.dtype} must hold class labels of one "
                         f"type (numbers or strings), got e.g. {y[:5].tolist()}")


def check_known_labels(y, classes, name: str = "y") -> None:
    """Every label of ``y`` (e.g. of a test set) is one of ``classes`` (those the model was
    trained on); otherwise a ValueError naming the unknown labels — an accuracy computed with
    them would be meaningless (0/1 test labels against a model of −1/+1)."""
    y = np.asarray(y).ravel()
    classes = np.asarray(classes)
    unknown = np.setdiff1d(np.unique(y), classes)
    if unknown.size:
        raise ValueError(f"{name} has labels {unknown[:10].tolist()} that are not among the "
                         f"training classes {classes.tolist()}; the labels of both sets must use "
                         "the same values")


def check_pm1(y, n_samples: int) -> np.ndarray:
    """Labels already in {−1, +1} (the solver-level contract), as float64."""
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.shape[0] != n_samples:
        raise ValueError(f"X and y have different lengths: {n_samples} samples in X, {y.shape[0]} labels in y")
    if not np.all((y == 1.0) | (y == -1.0)):
        raise ValueError("y must contain only -1 and +1 at the solver level "
                         "(the estimators map any two labels to ±1)")
    if np.all(y == 1.0) or np.all(y == -1.0):
        raise ValueError("y has a single class; an SVM needs two classes")
    return np.ascontiguousarray(y)


def check_class_y(y, n_samples: int, warn: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Encode class labels — any values (numbers, strings), two or more classes — as indices.

    Returns (y_idx, classes): ``classes`` sorted as numpy sorts them (as scikit-learn's
    ``classes_``), ``y_idx`` the int index of each label in it. A single class, mixed label
    types, and more than two non-integer float values (a regression target, "continuous") are
    ValueErrors, and so is y=None ("requires y"). ``warn``: a column vector y of shape (n, 1)
    gives scikit-learn's ``DataConversionWarning`` (as ``column_or_1d(y, warn=True)``). For two
    classes ``check_binary_y`` gives the ±1 labels of the binary path.
    """
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    y = np.asarray(y)
    if y.ndim != 1:
        if warn and y.ndim == 2 and y.shape[1] == 1:
            import warnings

            from sklearn.exceptions import DataConversionWarning

            warnings.warn("A column-vector y was passed when a 1d array was expected. Please "
                          "change the shape of y to (n_samples,), for example using ravel().",
                          DataConversionWarning, stacklevel=3)
        y = y.ravel() if y.ndim == 2 and 1 in y.shape else y
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {np.shape(y)}")
    if y.shape[0] != n_samples:
        raise ValueError(f"X and y have different lengths: {n_samples} samples in X, "
                         f"{y.shape[0]} labels in y")
    if y.dtype.kind == "c" or (y.dtype == object and any(isinstance(v, complex) for v in y)):
        raise ValueError(f"Complex data not supported: y has complex labels (dtype {y.dtype})")
    check_finite_labels(y)
    try:
        classes, y_idx = np.unique(y, return_inverse=True)
    except TypeError:
        raise ValueError(f"y mixes label types (e.g. strings and numbers): {y[:5].tolist()}; "
                         "use labels of one type") from None
    if classes.size < 2:
        raise ValueError(f"y has a single class ({shown_label(classes[0])}); an SVM needs two "
                         "classes")
    if classes.size > 2 and y.dtype.kind == "f" and not np.all(classes == np.round(classes)):
        raise ValueError(f"Unknown label type: continuous. y has {classes.size} distinct values, "
                         f"non-integer ones among them (e.g. {classes[classes != np.round(classes)][:3].tolist()}); "
                         "y must hold class labels; for regression targets use svmbound.BoundSVR")
    return np.asarray(y_idx, dtype=np.intp).ravel(), classes
