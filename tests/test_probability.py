"""Platt's sigmoid (Lin, Lin & Weng's Newton method) and Wu, Lin & Weng's pairwise coupling
(svmbound.probability)."""

import numpy as np
import pytest
from scipy.optimize import minimize

from svmbound.probability import pairwise_coupling, sigmoid_predict, sigmoid_train


def _platt_objective(params, f, y):
    A, B = params
    n1, n0 = np.sum(y > 0), np.sum(y <= 0)
    t = np.where(y > 0, (n1 + 1.0) / (n1 + 2.0), 1.0 / (n0 + 2.0))
    p = 1.0 / (1.0 + np.exp(A * f + B))
    return -np.sum(t * np.log(p) + (1 - t) * np.log(1 - p))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sigmoid_train_minimises_platts_regularised_cross_entropy(seed):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(300) < 0.3, 1, -1)
    f = y * 1.2 + rng.normal(scale=1.0, size=300)
    A, B = sigmoid_train(f, y)
    ref = minimize(_platt_objective, [0.0, 0.0], args=(f, y), method="BFGS",
                   options={"gtol": 1e-10}).x
    np.testing.assert_allclose([A, B], ref, rtol=1e-4, atol=1e-5)
    assert A < 0          # larger decision values: more likely the positive class
    assert _platt_objective([A, B], f, y) <= _platt_objective(ref, f, y) + 1e-8


def test_sigmoid_train_separable_data_stays_finite():
    f = np.array([-3.0, -2.0, -1.5, 1.5, 2.0, 3.0])
    y = np.array([-1, -1, -1, 1, 1, 1])
    A, B = sigmoid_train(f, y)          # the targets are regularised: a finite optimum
    assert np.isfinite(A) and np.isfinite(B) and A < 0
    p = sigmoid_predict(f, A, B)
    assert np.all(p[y > 0] > 0.5) and np.all(p[y < 0] < 0.5)


def test_sigmoid_train_refuses_bad_input_by_name():
    with pytest.raises(ValueError, match="one label per decision value"):
        sigmoid_train([0.1, 0.2], [1])
    with pytest.raises(ValueError, match="finite"):
        sigmoid_train([0.1, np.nan], [1, -1])


def test_sigmoid_predict_is_the_logistic_function_without_overflow():
    f = np.array([-5.0, -0.3, 0.0, 0.7, 4.0])
    np.testing.assert_allclose(sigmoid_predict(f, -1.7, 0.2), 1 / (1 + np.exp(-1.7 * f + 0.2)),
                               rtol=1e-15)
    with np.errstate(over="raise"):
        p = sigmoid_predict(np.array([-1e300, 1e300]), -1.0, 0.0)
    np.testing.assert_array_equal(p, [0.0, 1.0])


def _pairwise(p):
    r = p[:, None] / (p[:, None] + p[None, :])
    np.fill_diagonal(r, 0.0)
    return r


@pytest.mark.parametrize("p", [np.array([0.2, 0.3, 0.5]), np.array([0.7, 0.1, 0.1, 0.1]),
                               np.full(6, 1 / 6)])
def test_pairwise_coupling_recovers_consistent_probabilities(p):
    """When r_ij = p_i / (p_i + p_j) exactly, p is the optimum of Wu, Lin & Weng's problem
    (every term r_ji p_i − r_ij p_j vanishes)."""
    q = pairwise_coupling(_pairwise(p))
    np.testing.assert_allclose(q, p, atol=2e-3)
    assert q.sum() == pytest.approx(1.0, abs=1e-12)


def test_pairwise_coupling_meets_its_optimality_conditions():
    """Inconsistent pairwise estimates: the result satisfies Q p = (pᵀQp) e to the stopping
    tolerance, p ≥ 0, Σp = 1 (Wu, Lin & Weng 2004, Theorem 2)."""
    rng = np.random.default_rng(3)
    k = 5
    r = np.zeros((k, k))
    iu = np.triu_indices(k, 1)
    r[iu] = rng.uniform(0.05, 0.95, iu[0].size)
    r.T[iu] = 1 - r[iu]
    p = pairwise_coupling(r)
    Q = -r.T * r
    np.fill_diagonal(Q, [sum(r[j, t] ** 2 for j in range(k) if j != t) for t in range(k)])
    Qp = Q @ p
    assert np.max(np.abs(Qp - p @ Qp)) < 0.005 / k
    assert np.all(p >= 0) and p.sum() == pytest.approx(1.0, abs=1e-12)
