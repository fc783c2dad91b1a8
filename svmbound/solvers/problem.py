"""One training problem, checked once and carried down the layers (LIBSVM's ``svm_problem``).

``Problem(X, y, weights)`` holds

* ``X``: the rows, a float64 array (C order) or a canonical float64 CSR matrix
  (``_validation.check_X``);
* ``y``: one target per row — ±1 labels for a binary criterion, class indices 0..k−1 for a
  one-vs-one one, real targets for a regression one (each criterion checks the kind it takes:
  ``Criterion.check_labels``);
* ``weights``: the per-sample weights w_i > 0 of the dual's box or diagonal, C_i = C·w_i
  (``_weights.check_weights``; None when every one is 1).

The estimators build it once from their ``TrainingData`` (``Problem.checked``: X and the
weights have been checked there) and hand it to the strategy and the criteria; a criterion on
a part of the rows (a pair of classes, a subsample, a validation split) takes
:meth:`Problem.take`, which checks nothing again. The solvers take the arrays themselves
(``solve_svm_dual(X, y, kernel, C, weights=...)``), as scikit-learn's ``libsvm.fit``.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_X
from .._weights import check_weights

__all__ = ["Problem", "check_problem"]


class Problem:
    """X, y and the per-sample weights of one training problem (module docstring)."""

    __slots__ = ("X", "y", "weights")

    def __init__(self, X, y, weights=None):
        X = check_X(X)
        y = np.ravel(np.asarray(y))
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X and y have different lengths: {X.shape[0]} samples in X, "
                             f"{y.shape[0]} labels in y")
        self.X, self.y, self.weights = X, y, check_weights(weights, y.shape[0])

    @classmethod
    def checked(cls, X, y, weights=None) -> "Problem":
        """The problem of arrays that have passed ``check_X`` and ``check_weights`` (the
        estimators' ``TrainingData``): nothing is checked again."""
        problem = cls.__new__(cls)
        problem.X, problem.y, problem.weights = X, np.asarray(y), weights
        return problem

    @property
    def n(self) -> int:
        """The number of rows."""
        return int(self.y.shape[0])

    def take(self, rows, y=None) -> "Problem":
        """The problem on ``rows`` (an index array), with the targets ``y`` of those rows when
        given (a pair's ±1 labels), else ``self.y[rows]``; the weights follow the rows."""
        rows = np.asarray(rows)
        return Problem.checked(self.X[rows], self.y[rows] if y is None else y,
                               None if self.weights is None else self.weights[rows])

    def __repr__(self) -> str:
        weighted = "" if self.weights is None else ", weighted"
        return f"Problem({self.n} rows x {self.X.shape[1]} features{weighted})"


def check_problem(problem, who: str) -> Problem:
    """``problem`` itself when it is a :class:`Problem`, else a TypeError saying what ``who``
    takes."""
    if not isinstance(problem, Problem):
        raise TypeError(f"{who} takes a Problem(X, y, weights) (svmbound.solvers.Problem), got "
                        f"{type(problem).__name__}; build one with Problem(X, y) or "
                        f"Problem(X, y, weights)")
    return problem
