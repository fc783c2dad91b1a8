"""The training data of one fit, built once and passed down (LIBSVM's ``svm_problem``).

``TrainingData.build(X, y_idx, classes, sample_weight, class_weight)`` holds

* ``X``: the validated rows (dense float64 or CSR), samples of weight 0 dropped;
* ``y_idx``: each row's class index into ``classes``; ``y_pm`` the ±1 labels of a binary
  problem (``classes[1]`` ↦ +1, scikit-learn's convention);
* ``weights``: the per-sample weights w_i = class_weight[y_i]·sample_weight_i of the rows kept
  (C_i = C·w_i, as SVC; None when every one is 1);
* ``kept``: the rows of the X given to fit that ``X`` holds (None when none was dropped), so
  that ``support_`` indexes the user's rows; ``shape``: the shape of the X given;
* ``X_full``: the kept rows with every column. For a sparse X, ``X`` holds only the columns
  that store a value (``_sparse.compact_columns``): a column
  without a value adds nothing to any dot product or distance, so the kernels (linear, RBF,
  polynomial) are unchanged, while the solvers' column-indexed copies of X no longer cost
  one pointer per empty column (a stray index such as ``134217728:1`` made a fit take 85 s and
  2.6 GB, issue 29 item 9). The model's support vectors and what depends on the width
  (``gamma='scale'``'s d·Var(X), the search log's data fingerprint) use ``X_full``.

The zero-weight drop is LIBSVM's: such a sample has the box 0 ≤ α_i ≤ 0 and cannot change the
model. Every class must keep a sample of weight > 0.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ._sparse import compact_columns, issparse
from ._weights import check_sample_weight, combine_weights
from .solvers import Problem

__all__ = ["TrainingData", "weights_and_kept", "class_label", "data_fingerprint"]


def class_label(v) -> str:
    """A class label as text (numpy scalars without their type)."""
    return str(v.item() if isinstance(v, np.generic) else v)


@dataclass
class TrainingData:
    """One fit's rows, labels and per-sample weights (module docstring)."""

    X: object
    X_full: object
    y_idx: np.ndarray
    classes: np.ndarray
    weights: np.ndarray | None
    kept: np.ndarray | None
    shape: tuple
    class_weight: dict | None
    #: the real targets of a regression problem (rows kept), None for classification
    targets: np.ndarray | None = None

    @classmethod
    def build(cls, X, y_idx, classes, sample_weight=None, class_weight=None) -> "TrainingData":
        """The data of a fit: weights from ``class_weight`` (None, 'balanced' — counted on all
        of y, as scikit-learn — or a dict) and ``sample_weight``; rows of weight 0 dropped."""
        classes = np.asarray(classes)
        y_idx = np.asarray(y_idx)
        w, kept, used = weights_and_kept(y_idx, classes, sample_weight, class_weight)
        shape = X.shape
        if kept is not None:
            X, y_idx = X[kept], y_idx[kept]
        X_fit = compact_columns(X)[0] if issparse(X) else X
        return cls(X=X_fit, X_full=X, y_idx=y_idx, classes=classes, weights=w, kept=kept,
                   shape=shape, class_weight=used)

    @classmethod
    def for_regression(cls, X, targets, sample_weight=None) -> "TrainingData":
        """The data of a regression fit: real ``targets``, per-sample weights from
        ``sample_weight`` (C_i = C·w_i, as SVR), rows of weight 0 dropped (no class labels:
        ``y_idx`` is all zeros, ``classes`` empty)."""
        targets = np.asarray(targets, dtype=np.float64)
        sw = check_sample_weight(sample_weight, targets.size)
        w = None if np.all(sw == 1.0) else sw
        kept = None
        if w is not None and not np.all(w > 0):
            kept = np.flatnonzero(w > 0)
            if kept.size < 2:
                raise ValueError(f"{targets.size - kept.size} of {targets.size} samples have "
                                 "weight zero: an SVR needs at least 2 samples of "
                                 "sample_weight > 0")
            w = w[kept]
        shape = X.shape
        if kept is not None:
            X, targets = X[kept], targets[kept]
        X_fit = compact_columns(X)[0] if issparse(X) else X
        return cls(X=X_fit, X_full=X, y_idx=np.zeros(targets.size, dtype=np.int64),
                   classes=np.empty(0), weights=w, kept=kept, shape=shape, class_weight=None,
                   targets=targets)

    @property
    def n_classes(self) -> int:
        return int(self.classes.size)

    @property
    def y_pm(self) -> np.ndarray:
        """±1 labels of a binary problem (``classes[1]`` ↦ +1)."""
        return np.where(self.y_idx == 1, 1.0, -1.0)

    def problem(self, targets) -> Problem:
        """The :class:`~svmbound.solvers.Problem` of these rows with ``targets`` (±1 labels,
        class indices or real targets, one per row kept) and the weights; nothing is checked
        again."""
        return Problem.checked(self.X, targets, self.weights)

    @property
    def labels(self) -> np.ndarray:
        """The user's label of each row kept."""
        return self.classes[self.y_idx]


def weights_and_kept(y_idx, classes, sample_weight=None, class_weight=None):
    """(w, kept, class_weight used): the weights w_i = class_weight[y_i]·sample_weight_i of
    the samples of weight > 0 (None when every one is 1), the indices of those samples (None
    when none has weight 0) and the class weights as ``class_weight_``."""
    classes = np.asarray(classes)
    w, used = combine_weights(class_weight, classes, classes[y_idx], sample_weight)
    if w is None or np.all(w > 0):
        return w, None, used
    kept = np.flatnonzero(w > 0)
    _check_kept(y_idx, kept, classes)
    return w[kept], kept, used


def _check_kept(y_idx, kept, classes) -> None:
    """A ValueError when the rows of weight > 0 leave a class (or, with two classes, a
    class) without a sample."""
    if classes.size == 2:
        if kept.size == 0:
            raise ValueError("every sample has weight zero (weights are class_weight x "
                             "sample_weight): the weights must contain at least one non-zero "
                             "number")
        if np.unique(y_idx[kept]).size < 2:
            raise ValueError("every sample of weight > 0 belongs to the same class (weights "
                             "are class_weight x sample_weight); an SVM needs two classes")
        return
    empty = np.flatnonzero(np.bincount(y_idx[kept], minlength=classes.size) == 0)
    if empty.size:
        names = ", ".join(class_label(classes[c]) for c in empty)
        raise ValueError(f"every sample of class {names} has weight zero (weights are "
                         "class_weight x sample_weight): each of the classes needs a sample of "
                         "weight > 0")


def data_fingerprint(X, y, weights=None) -> str:
    """sha256 over the shapes, dtypes and bytes of X and y, and of the per-sample weights when
    there are any (what a log was written for)."""
    h = hashlib.sha256()
    if issparse(X):           # the CSR arrays (never densified); a different dtype tag
        X = X.tocsr()
        h.update(f"csr{X.shape}".encode())
        for a in (X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data):
            h.update(np.ascontiguousarray(a).tobytes())
        X = np.empty(0)
    for a in (X, y) if weights is None else (X, y, weights):
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()
