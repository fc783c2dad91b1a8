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


def test_pairwise_coupling_of_a_stack_is_each_row_alone():
    rng = np.random.default_rng(4)
    k, n = 4, 7
    R = np.zeros((n, k, k))
    iu = np.triu_indices(k, 1)
    for m in range(n):
        R[m][iu] = rng.uniform(0.02, 0.98, iu[0].size)
        R[m].T[iu] = 1 - R[m][iu]
    stacked = pairwise_coupling(R)
    for m in range(n):
        np.testing.assert_array_equal(stacked[m], pairwise_coupling(R[m]))


# -- the estimator -----------------------------------------------------------------------------
import warnings  # noqa: E402

from sklearn.datasets import load_breast_cancer, load_iris  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from svmbound import BoundSVC  # noqa: E402
from svmbound.criteria import make_criterion  # noqa: E402
from svmbound.kernels import RBFKernel  # noqa: E402
from svmbound.solvers import Problem  # noqa: E402


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[::2]
    return X, y[::2]


@pytest.mark.parametrize("loss", ["l2", "l1"])
def test_default_strategy_probabilities_cost_no_training_and_leave_the_model(cancer, loss):
    X, y = cancer
    plain = BoundSVC(loss=loss, random_state=0).fit(X, y)
    est = BoundSVC(loss=loss, random_state=0, probability=True).fit(X, y)
    assert est.n_trainings_ == plain.n_trainings_
    np.testing.assert_array_equal(est.best_theta_, plain.best_theta_)
    np.testing.assert_array_equal(est.dual_coef_, plain.dual_coef_)
    P = est.predict_proba(X)
    assert P.shape == (X.shape[0], 2)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-14)
    f = est.decision_function(X)
    order = np.argsort(f)
    assert np.all(np.diff(P[order, 1]) >= 0)        # classes_[1] more likely as f grows
    assert est.probA_[0] < 0
    np.testing.assert_allclose(est.predict_log_proba(X), np.log(P))


def test_default_strategy_sigmoid_is_platts_on_the_validations_out_of_fold_values(cancer):
    """Fitted again from an independent 5-fold CV (the strategy's folds and tolerance) at the
    chosen point, Platt's (A, B) agree with the estimator's to the solver tolerance."""
    X, y = cancer
    est = BoundSVC(loss="l1", random_state=0, probability=True).fit(X, y)
    chosen = next(c for c in est.search_.candidates if c["source"] == est.search_.chosen)
    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    C, s2 = np.exp(chosen["x"])
    cv = make_criterion("cv-error", Problem(X, y_pm), RBFKernel(s2), loss="l1", random_state=0,
                        tol=1e-2, n_folds=5)
    cv.keep_held_out = True
    cv.evaluate(np.log([C, s2]), need_grad=False)
    _, y_rows, F = cv.held_out_values(np.log([C, s2]))
    A, B = sigmoid_train(F, y_rows)            # P(classes_[1] | f): SVC's B is −B
    np.testing.assert_allclose([est.probA_[0], est.probB_[0]], [A, -B], rtol=0.05, atol=0.05)


def test_named_criterion_probabilities_take_one_cv_at_the_tuned_point(cancer):
    X, y = cancer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = BoundSVC(criterion="radius-margin").fit(X, y)
        est = BoundSVC(criterion="radius-margin", probability=True, n_folds=4).fit(X, y)
    assert est.n_trainings_ == plain.n_trainings_ + 4
    P = est.predict_proba(X)
    assert np.mean(est.classes_[P.argmax(axis=1)] == est.predict(X)) > 0.97


@pytest.mark.parametrize("multiclass_theta", ["shared", "per-pair"])
def test_multiclass_probabilities_by_pairwise_coupling(multiclass_theta):
    X, y = load_iris(return_X_y=True)
    est = BoundSVC(probability=True, random_state=0, multiclass_theta=multiclass_theta,
                   n_jobs=1).fit(X, y)
    assert est.probA_.shape == est.probB_.shape == (3,)
    P = est.predict_proba(X)
    assert P.shape == (150, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert np.mean(est.classes_[P.argmax(axis=1)] == est.predict(X)) > 0.95
    assert np.mean(est.classes_[P.argmax(axis=1)] == y) > 0.9
    if multiclass_theta == "shared":
        plain = BoundSVC(random_state=0, n_jobs=1).fit(X, y)
        assert est.n_trainings_ == plain.n_trainings_


def test_predict_proba_needs_probability_true_as_svc():
    X, y = load_iris(return_X_y=True)
    est = BoundSVC(random_state=0)
    assert not hasattr(est, "predict_proba")
    with pytest.raises(AttributeError, match="predict_proba") as info:
        est.predict_proba(X)
    assert "probability=False" in str(info.value.__cause__)
    est.fit(X[:100], y[:100]).set_params(probability=True)
    with pytest.raises(NotFittedError, match="fitted with probability=False"):
        est.predict_proba(X)


def test_log_loss_scoring_works(cancer):
    X, y = cancer
    scores = cross_val_score(BoundSVC(probability=True, random_state=0), X, y, cv=3,
                             scoring="neg_log_loss")
    assert np.all(np.isfinite(scores)) and np.all(scores < 0)


# -- export ------------------------------------------------------------------------------------
def _libsvm_probabilities(est, X, tmp_path):
    from libsvm.svmutil import svm_load_model, svm_predict

    path = tmp_path / "m.model"
    est.save_libsvm_model(str(path))
    model = svm_load_model(str(path))
    _, _, pv = svm_predict([0] * len(X), [list(map(float, r)) for r in X], model, "-b 1 -q")
    labels = model.get_labels()
    return np.asarray(pv)[:, [labels.index(c) for c in est.classes_]]


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_model_file_carries_the_sigmoid_for_svm_predict_b1(cancer, loss, tmp_path):
    X, y = cancer
    est = BoundSVC(loss=loss, probability=True, random_state=0).fit(X, y)
    np.testing.assert_allclose(_libsvm_probabilities(est, X, tmp_path), est.predict_proba(X),
                               rtol=0, atol=1e-12)
    assert "probA" in (tmp_path / "m.model").read_text()


def test_multiclass_model_file_and_svc_give_our_probabilities(tmp_path):
    X, y = load_iris(return_X_y=True)
    est = BoundSVC(probability=True, random_state=0).fit(X, y)
    P = est.predict_proba(X)
    np.testing.assert_allclose(_libsvm_probabilities(est, X, tmp_path), P, atol=1e-12)
    np.testing.assert_allclose(est.to_svc().predict_proba(X), P, atol=1e-12)


def test_exported_binary_svc_gives_our_probabilities_to_its_coupling_tolerance(cancer):
    """scikit-learn's LIBSVM couples even two classes by Wu, Lin & Weng's iteration (stopping
    at 0.005/k), where LIBSVM 3.25+ and BoundSVC take the sigmoid itself."""
    X, y = cancer
    est = BoundSVC(loss="l1", probability=True, random_state=0).fit(X, y)
    svc = est.to_svc()
    assert svc.probability
    np.testing.assert_allclose(svc.predict_proba(X), est.predict_proba(X), atol=5e-3)
    plain = BoundSVC(loss="l1", random_state=0).fit(X, y).to_svc()
    assert not plain.probability


@pytest.mark.parametrize("three", [None, "shared", "per-pair"])
def test_probA_and_probB_are_svcs_and_give_predict_proba_by_svcs_rule(cancer, three):
    """probA_ / probB_ as a fitted SVC holds them (the hostile probe found a binary model's
    probB_ of the opposite sign): equal to ``to_svc()``'s, and for two classes SVC's rule —
    P(classes_[0]) = 1/(1 + exp(A·(−f) + B)) with f = decision_function — gives
    predict_proba."""
    if three:
        X, y = load_iris(return_X_y=True)
    else:
        X, y = cancer
    est = BoundSVC(probability=True, random_state=0,
                   multiclass_theta=three or "shared").fit(X, y)
    if three == "per-pair":        # no SVC: each pair's sigmoid is its own BoundSVC's
        D = est.set_params(decision_function_shape="ovo").decision_function(X)
        for p, sub in enumerate(est.pair_estimators_):      # pair p's +1: its classes_[1]
            mine = 1.0 / (1.0 + np.exp(est.probA_[p] * D[:, p] + est.probB_[p]))
            np.testing.assert_allclose(np.clip(mine, 1e-7, 1 - 1e-7),
                                       sub.predict_proba(X)[:, 1], rtol=1e-12, atol=1e-15)
        return
    svc = est.to_svc()
    np.testing.assert_array_equal(est.probA_, svc.probA_)
    np.testing.assert_array_equal(est.probB_, svc.probB_)
    if not three:
        f = est.decision_function(X)
        p0 = 1.0 / (1.0 + np.exp(est.probA_[0] * -f + est.probB_[0]))
        np.testing.assert_allclose(est.predict_proba(X)[:, 0], np.clip(p0, 1e-7, 1 - 1e-7),
                                   rtol=1e-12, atol=1e-15)
