"""The training problem carried down the layers (``svmbound.solvers.Problem``)."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from svmbound.criteria import SpanBound, make_criterion
from svmbound.criteria.pairs import pairwise_criterion
from svmbound.kernels import LinearKernel, RBFKernel, gram_can_be_shared
from svmbound.solvers import Problem
from svmbound.training_data import TrainingData


def _data(n=60, seed=0):
    X, y = make_classification(n_samples=n, n_features=4, n_informative=3, n_redundant=0,
                               random_state=seed)
    w = np.random.RandomState(seed).uniform(0.5, 2.0, n)
    return X, np.where(y == 1, 1.0, -1.0), w


def test_a_criterion_takes_a_problem_and_says_so_otherwise():
    X, y, _ = _data()
    with pytest.raises(TypeError, match=r"SpanBound takes a Problem\(X, y, weights\)"):
        SpanBound(X, RBFKernel())
    with pytest.raises(TypeError, match="pairwise_criterion takes a Problem"):
        pairwise_criterion("rm-l2", X, RBFKernel())


def test_bad_rows_and_weights_are_refused_when_the_problem_is_built():
    X, y, w = _data()
    with pytest.raises(ValueError, match="X and y have different lengths"):
        Problem(X, y[:-1])
    with pytest.raises(ValueError, match="must be > 0"):
        Problem(X, y, np.where(np.arange(y.size) == 3, 0.0, w))
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Problem(bad, y)


def test_take_keeps_the_rows_targets_and_weights_together():
    X, y, w = _data()
    rows = np.array([5, 1, 30, 7, 44, 12, 50, 2])
    part = Problem(X, y, w).take(rows)
    np.testing.assert_array_equal(part.X, X[rows])
    np.testing.assert_array_equal(part.y, y[rows])
    np.testing.assert_array_equal(part.weights, w[rows])
    # a criterion on the part is the criterion on those rows built from scratch
    theta = np.array([0.3, 0.5])
    rows = np.arange(0, 60, 2)
    a = make_criterion("rm-l2", Problem(X, y, w).take(rows), RBFKernel(), tol=1e-8)
    b = make_criterion("rm-l2", Problem(X[rows], y[rows], w[rows]), RBFKernel(), tol=1e-8)
    assert a.fun(theta) == b.fun(theta)
    relabelled = Problem(X, y).take(rows, -y[rows])
    np.testing.assert_array_equal(relabelled.y, -y[rows])


def test_the_problem_survives_pickling_for_process_workers():
    X, y, w = _data()
    problem = Problem(sp.csr_matrix(X), y, w)
    back = pickle.loads(pickle.dumps(problem))
    assert (back.X != problem.X).nnz == 0
    np.testing.assert_array_equal(back.y, y)
    np.testing.assert_array_equal(back.weights, w)
    theta = np.array([0.0, 0.7])
    assert (make_criterion("span", back, RBFKernel(), tol=1e-8).fun(theta)
            == make_criterion("span", problem, RBFKernel(), tol=1e-8).fun(theta))


def test_training_data_hands_its_checked_arrays_down_without_a_copy():
    X, y, w = _data()
    data = TrainingData.build(X, (y > 0).astype(int), np.array([0, 1]), sample_weight=w)
    problem = data.problem(data.y_pm)
    assert problem.X is data.X and problem.weights is data.weights
    crit = make_criterion("rm-l2", problem, RBFKernel())
    assert crit.X is data.X and crit.weights is data.weights


def test_only_dense_rbf_and_polynomial_rows_share_a_gram_matrix():
    X, _, _ = _data()
    assert gram_can_be_shared(X, RBFKernel())
    assert not gram_can_be_shared(sp.csr_matrix(X), RBFKernel())
    assert not gram_can_be_shared(X, LinearKernel())
