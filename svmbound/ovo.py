"""One-vs-one bookkeeping shared by the multi-class criteria and the estimator.

Conventions are LIBSVM's (and so scikit-learn's ``SVC``):

* classes are indices 0..k−1 (``classes_`` sorted); the pairs are (i, j), i < j, in the order
  (0, 1), (0, 2), …, (0, k−1), (1, 2), … (:func:`class_pairs`);
* the binary problem of pair (i, j) holds the rows of classes i and j in their original order,
  with y = +1 for class i and −1 for class j, so that its decision value
  f(x) = Σ α_m y_m K(x_m, x) + b is positive for class i — LIBSVM's decision value
  Σ coef K − ρ with ρ = −b;
* prediction by voting: f > 0 votes for i, otherwise (f ≤ 0) for j; the class with the most
  votes wins, ties going to the smaller index (LIBSVM's ``svm_predict_values``);
* ``decision_function_shape='ovr'`` is scikit-learn's ``_ovr_decision_function(dec < 0, −dec,
  k)``: votes plus the summed confidences squashed into (−1/3, 1/3), so that the order of the
  votes is kept and ties between votes are broken by the confidences.
"""

from __future__ import annotations

import numpy as np

__all__ = ["class_pairs", "pair_subsets", "vote", "ovr_decision", "n_pairs"]


def n_pairs(n_classes: int) -> int:
    return n_classes * (n_classes - 1) // 2


def class_pairs(n_classes: int) -> list[tuple[int, int]]:
    """[(i, j) for i < j] in LIBSVM's order."""
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


def pair_subsets(y_idx, n_classes: int) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """[(i, j, rows, y_pm)] per pair: the rows of classes i and j (ascending) and their labels,
    +1.0 for class i, −1.0 for class j."""
    y_idx = np.asarray(y_idx)
    out = []
    for i, j in class_pairs(n_classes):
        rows = np.flatnonzero((y_idx == i) | (y_idx == j))
        out.append((i, j, rows, np.where(y_idx[rows] == i, 1.0, -1.0)))
    return out


def vote(dec, n_classes: int) -> np.ndarray:
    """Class indices chosen by one-vs-one voting from decision values ``dec`` (n, n_pairs) in
    :func:`class_pairs` order: f > 0 votes for i, f ≤ 0 for j; ties to the smaller index."""
    dec = np.asarray(dec, dtype=float).reshape(-1, n_pairs(n_classes))
    votes = np.zeros((dec.shape[0], n_classes), dtype=np.int64)
    rows = np.arange(dec.shape[0])
    for p, (i, j) in enumerate(class_pairs(n_classes)):
        np.add.at(votes, (rows, np.where(dec[:, p] > 0, i, j)), 1)
    return np.argmax(votes, axis=1)   # the first maximum: the smaller class index


def ovr_decision(dec, n_classes: int) -> np.ndarray:
    """(n, k) one-vs-rest shaped decision values from one-vs-one values, exactly as
    scikit-learn's ``SVC.decision_function`` with ``decision_function_shape='ovr'``."""
    dec = np.asarray(dec, dtype=float)
    try:
        from sklearn.utils.multiclass import _ovr_decision_function
    except ImportError:  # pragma: no cover - private helper moved: the same formula
        return _ovr_decision_function_copy(dec < 0, -dec, n_classes)
    return _ovr_decision_function(dec < 0, -dec, n_classes)


def _ovr_decision_function_copy(predictions, confidences, n_classes):
    """scikit-learn's ``sklearn.utils.multiclass._ovr_decision_function`` (BSD licence)."""
    n = predictions.shape[0]
    votes = np.zeros((n, n_classes))
    sum_of_confidences = np.zeros((n, n_classes))
    k = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            sum_of_confidences[:, i] -= confidences[:, k]
            sum_of_confidences[:, j] += confidences[:, k]
            votes[predictions[:, k] == 0, i] += 1
            votes[predictions[:, k] == 1, j] += 1
            k += 1
    transformed_confidences = sum_of_confidences / (3 * (np.abs(sum_of_confidences) + 1))
    return votes + transformed_confidences
