"""Regression tests for the defects of issue 15: each test failed before its fix."""

import numpy as np
import pytest

from svmbound.criteria import make_criterion
from svmbound.kernels import RBFKernel
from svmbound.kernels_ard import ARDRBFKernel


# ---------------------------------------------------------------------------------------------
# 1. RBF gradients on data far from the origin
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("name", ["rm-l2", "rm-l1", "span", "smoothed-validation"])
@pytest.mark.parametrize("kernel, theta", [(RBFKernel(1.0), [1.0, 0.5]),
                                           (ARDRBFKernel(np.ones(3)), [1.0, 0.5, 0.2, -0.3])])
def test_rbf_value_and_gradient_do_not_depend_on_a_shift_of_X(small_problem, name, kernel, theta):
    X, y = small_problem
    ref = make_criterion(name, X, y, kernel, tol=1e-10, random_state=0).evaluate(theta)
    for off in (1e6, 1e8):
        ev = make_criterion(name, X + off, y, kernel, tol=1e-10, random_state=0).evaluate(theta)
        # X + 1e8 itself is rounded to ~1.5e-8: the criterion may move that much, no more
        assert ev.value == pytest.approx(ref.value, rel=1e-6)
        np.testing.assert_allclose(ev.grad, ref.grad, rtol=1e-6, atol=1e-6 * np.abs(ref.grad).max())


def test_rbf_contract_is_translation_invariant(small_problem):
    X, _ = small_problem
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=40), rng.normal(size=40)
    k = RBFKernel(0.7)
    ref = k.contract(X, a, b)
    np.testing.assert_allclose(k.contract(X + 1e8, a, b), ref, rtol=1e-6)
    np.testing.assert_allclose(k.contract(X - 3e7, a, a), k.contract(X, a, a), rtol=1e-6)
