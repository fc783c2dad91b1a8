"""Shared data sets for the kernel and solver tests (issue 2).

Every fixture returns ``(X, y)`` with X standardised (float64, C-contiguous) and y in {−1, +1}
as float64 — the solver-level contract. Session scope: the data are read-only in the tests.
"""

import signal

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.preprocessing import StandardScaler


def _pm1(y, positive):
    return np.where(positive(y), 1.0, -1.0)


def _scale(X):
    return np.ascontiguousarray(StandardScaler().fit_transform(X))


@pytest.fixture(scope="session")
def cancer_data():
    """scikit-learn breast cancer: 569 × 30, standardised; malignant (0) ↦ −1."""
    X, y = load_breast_cancer(return_X_y=True)
    return _scale(X), _pm1(y, lambda v: v == 1)


@pytest.fixture(scope="session")
def digits_data():
    """Digits 0–4 (−1) vs 5–9 (+1): a fixed random subsample of 400 of the 1797 rows, 64
    features standardised (constant pixels stay 0)."""
    X, y = load_digits(return_X_y=True)
    idx = np.random.RandomState(0).choice(len(y), 400, replace=False)
    return _scale(X[idx]), _pm1(y[idx], lambda v: v >= 5)


@pytest.fixture(scope="session")
def noisy_data():
    """Generated, overlapping classes (10 % flipped labels): 80 × 5."""
    X, y = make_classification(n_samples=80, n_features=5, n_informative=3, flip_y=0.1,
                               random_state=1)
    return _scale(X), _pm1(y, lambda v: v == 1)


@pytest.fixture(scope="session")
def separable_data():
    """Generated, well separated classes: 60 × 4. Used for the linear kernel at large C, where
    SMO on overlapping classes needs ~10⁶ iterations (LIBSVM as much) and LIBSVM's float32
    kernel cache limits the accuracy of its intercept when α ~ 10⁴."""
    X, y = make_classification(n_samples=60, n_features=4, n_informative=3, n_redundant=0,
                               flip_y=0.0, class_sep=2.0, random_state=2)
    return _scale(X), _pm1(y, lambda v: v == 1)


@pytest.fixture(scope="session")
def qp_data():
    """Small random problem (40 × 4) for the generic scipy QP reference."""
    X, y = make_classification(n_samples=40, n_features=4, random_state=5)
    return _scale(X), _pm1(y, lambda v: v == 1)


@pytest.fixture(scope="session")
def random_data():
    """Plain Gaussian points with random labels (no structure at all): 50 × 3."""
    rng = np.random.RandomState(42)
    X = rng.standard_normal((50, 3))
    y = np.where(rng.rand(50) < 0.4, 1.0, -1.0)
    return X, y


@pytest.fixture
def dataset(request):
    """Indirect parametrisation: ``@pytest.mark.parametrize("dataset", ["cancer", ...],
    indirect=True)`` gives the (X, y) of the fixture ``<name>_data``."""
    return request.getfixturevalue(f"{request.param}_data")


@pytest.fixture()
def default_sigint():
    """SIGINT's handler is Python's ``default_int_handler`` during the test, as in a terminal.
    A background job of a shell without job control (``cmd &``, as in some CI runners) starts
    with SIGINT ignored; the CLI keeps it ignored then, and a test of what Ctrl-C does would
    fail for that reason alone."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
