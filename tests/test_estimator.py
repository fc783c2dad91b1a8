"""BoundSVC: tuning end to end, scikit-learn contract, label mapping, bad input."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmbound import BoundSVC
from svmbound.criteria import make_criterion
from svmbound.kernels import RBFKernel


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.RandomState(0)
    idx = rng.permutation(len(y))
    tr, te = idx[:300], idx[300:]
    sc = StandardScaler().fit(X[tr])
    return sc.transform(X[tr]), y[tr], sc.transform(X[te]), y[te]


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_fit_reaches_lower_bound_than_start_and_predicts(cancer, loss):
    X, y, Xt, yt = cancer
    clf = BoundSVC(loss=loss).fit(X, y)
    res = clf.search_
    assert res.path[0]["x"] == [0.0, 0.0]
    assert res.fun < res.path[0]["value"]
    assert res.nfev >= res.njev >= 1
    # cheap: far fewer trainings than a grid search
    assert clf.n_trainings_ == res.nfev + 1
    assert clf.score(Xt, yt) > 0.9
    assert set(clf.best_params_) >= {"C", "sigma2", "gamma"}
    np.testing.assert_allclose(clf.best_params_["gamma"], 1 / (2 * clf.best_params_["sigma2"]))
    # the final criterion value matches a fresh evaluation at the chosen point
    crit = make_criterion("radius-margin", X, np.where(y == clf.classes_[1], 1.0, -1.0),
                          RBFKernel(), loss=loss, tol=1e-6)
    if not clf.c_projected_:
        np.testing.assert_allclose(crit.fun(clf.best_theta_), clf.best_value_, rtol=1e-5)


def test_l1_model_matches_sklearn_svc_at_chosen_point(cancer):
    X, y, Xt, yt = cancer
    clf = BoundSVC(loss="l1").fit(X, y)
    svc = SVC(C=clf.best_params_["C"], gamma=clf.best_params_["gamma"], tol=1e-6).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(Xt), svc.decision_function(Xt),
                               rtol=1e-3, atol=1e-3)
    assert np.array_equal(clf.predict(Xt), svc.predict(Xt))


def test_string_labels_round_trip(cancer):
    X, y, Xt, yt = cancer
    names = np.array(["benign", "malignant"])[y]
    clf = BoundSVC(max_iter=3).fit(X, names)
    assert list(clf.classes_) == ["benign", "malignant"]
    pred = clf.predict(Xt)
    assert set(pred) <= {"benign", "malignant"}
    np.testing.assert_array_equal(pred == "malignant", clf.decision_function(Xt) > 0)


def test_clone_get_params_pipeline(cancer):
    X, y, Xt, yt = cancer
    est = BoundSVC(loss="l1", max_iter=3, start=(1.0, 2.0))
    c = clone(est)
    assert c.get_params() == est.get_params()
    pipe = make_pipeline(StandardScaler(), BoundSVC(max_iter=3)).fit(X, y)
    assert pipe.score(Xt, yt) > 0.85


def test_l1_no_bounded_sv_rule_keeps_the_model():
    """Chung §4.3: an L1 solution with no bounded SV is reported with C = max α, same model."""
    X, y = make_classification(n_samples=80, n_features=4, n_informative=4, n_redundant=0,
                               class_sep=3.0, random_state=1)
    clf = BoundSVC(loss="l1", start=(6.0, 1.0)).fit(X, y)
    assert clf.c_projected_
    C_search = float(np.exp(clf.search_.x[0]))
    assert clf.best_params_["C"] < C_search
    np.testing.assert_allclose(clf.alpha_.max(), clf.best_params_["C"])
    gamma = clf.best_params_["gamma"]
    at_search = SVC(C=C_search, gamma=gamma, tol=1e-8).fit(X, y)
    at_reported = SVC(C=clf.best_params_["C"], gamma=gamma, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(at_search.decision_function(X), at_reported.decision_function(X),
                               atol=1e-4)
    np.testing.assert_allclose(clf.decision_function(X), at_search.decision_function(X),
                               atol=1e-4)


@pytest.mark.parametrize("kwargs, match", [
    (dict(loss="l3"), "unknown loss 'l3'; valid losses: l1, l2"),
    (dict(kernel="sigmoid"), "unknown kernel 'sigmoid'; valid kernels: linear, poly, rbf"),
    (dict(search="random"), "unknown search 'random'; valid searches: bfgs"),
    (dict(criterion="spam"), "unknown criterion 'spam'; valid criteria: radius-margin"),
    (dict(start=(11.0, 0.0)), r"outside the box: log_C = 11.0 not in \[-10.0, 10.0\]"),
    (dict(start=(0.0,)), "start must have 2 entries"),
    (dict(bounds=[(1.0, 1.0), (0.0, 2.0)], start=(1.0, 1.0)), "lower 1.0 must be < upper 1.0"),
])
def test_bad_parameters_raise(cancer, kwargs, match):
    X, y, _, _ = cancer
    with pytest.raises(ValueError, match=match):
        BoundSVC(**kwargs).fit(X, y)


def test_bad_data_raise(cancer):
    X, y, Xt, _ = cancer
    with pytest.raises(ValueError, match="different lengths"):
        BoundSVC().fit(X, y[:-1])
    with pytest.raises(ValueError, match="single class"):
        BoundSVC().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="3 classes"):
        BoundSVC().fit(X, np.arange(len(y)) % 3)
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        BoundSVC().fit(Xn, y)
    clf = BoundSVC(max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but BoundSVC was fitted with 30"):
        clf.predict(Xt[:, :5])


def test_grid_search_picks_the_grid_minimum_of_a_nondifferentiable_bound(cancer):
    from svmbound.search.grid import evaluate_grid

    X, y, _, _ = cancer
    X, y = X[:120], y[:120]
    grid = {"log_C": (-2.0, 4.0, 2.0), "log_sigma2": (0.0, 6.0, 2.0)}
    clf = BoundSVC(loss="l1", criterion="l1bound2", search="grid", grid=grid).fit(X, y)
    crit = make_criterion("rm-l1-3.2", X, np.where(y == 1, 1.0, -1.0), RBFKernel(), tol=1e-6)
    ref = evaluate_grid(crit, np.arange(-2.0, 4.1, 2.0), np.arange(0.0, 6.1, 2.0))
    assert clf.search_.nfev == 16 and clf.search_.njev == 0
    np.testing.assert_allclose(clf.search_.x, ref.argmin)
    np.testing.assert_allclose(clf.best_value_, np.nanmin(ref.values), rtol=1e-6)


def test_bfgs_refuses_a_nondifferentiable_bound(cancer):
    X, y, _, _ = cancer
    with pytest.raises(ValueError, match="'rm-l1-1.9' is not differentiable.*grid or annealing"):
        BoundSVC(loss="l1", criterion="l1bound1").fit(X, y)
    with pytest.raises(ValueError, match="grid keys \\['gamma'\\] are not parameters"):
        BoundSVC(search="grid", grid={"gamma": (0, 1, 1)}).fit(X, y)
