"""BoundSVC: tuning end to end, scikit-learn contract, label mapping, bad input."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmbound import BoundSVC
from svmbound.criteria import Problem, make_criterion
from svmbound.kernels import RBFKernel
from svmbound.strategy import ISOTROPIC_CONFIG


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
    clf = BoundSVC(loss=loss, criterion="radius-margin").fit(X, y)
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
    crit = make_criterion("radius-margin", Problem(X, np.where(y == clf.classes_[1], 1.0, -1.0)),
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


def test_a_grid_search_keeps_its_grid_point_without_bounded_svs():
    """grid.py's way: the C reported is the grid point picked (it was lowered to max α, 1.73
    for log2c = 1, and the command line said ln C had reached its upper bound)."""
    X, y = make_classification(100, 6, random_state=0)
    ls = np.log(0.25)
    grid = {"log_C": (-np.log(2), 15 * np.log(2), 2 * np.log(2)), "log_sigma2": (ls, ls, 1.0)}
    est = BoundSVC(loss="l1", criterion="cv-error", search="grid", grid=grid).fit(X, y)
    assert est.best_params_["C"] == 2.0 and not est.c_projected_
    assert est.alpha_.max() < 2.0                              # no support vector at C


def test_l1_no_bounded_sv_rule_keeps_the_model():
    """Chung §4.3: an L1 solution with no bounded SV is reported with C = max α, same model."""
    X, y = make_classification(n_samples=80, n_features=4, n_informative=4, n_redundant=0,
                               class_sep=3.0, random_state=1)
    clf = BoundSVC(loss="l1", criterion="radius-margin", start=(6.0, 1.0)).fit(X, y)
    assert clf.c_projected_
    C_search = float(np.exp(clf.search_.x[0]))
    assert clf.best_params_["C"] < C_search
    # the reported C is the model's, to the last bit (not exp(ln C)), and the export's
    assert clf.best_params_["C"] == clf.alpha_.max() == clf.solution_.C == clf.to_svc().C
    gamma = clf.best_params_["gamma"]
    at_search = SVC(C=C_search, gamma=gamma, tol=1e-8).fit(X, y)
    at_reported = SVC(C=clf.best_params_["C"], gamma=gamma, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(at_search.decision_function(X), at_reported.decision_function(X),
                               atol=1e-4)
    np.testing.assert_allclose(clf.decision_function(X), at_search.decision_function(X),
                               atol=1e-4)


@pytest.mark.parametrize("kwargs, match", [
    (dict(loss="l3"), "The 'loss' parameter of BoundSVC must be a str among .*'l1'.* Got 'l3'"),
    (dict(kernel="sigmoid"),
     "The 'kernel' parameter of BoundSVC must be a str among .*'ard-poly'.* Got 'sigmoid'"),
    (dict(search="random"), "The 'search' parameter of BoundSVC must be a str among "
                            ".*'projected-gradient'.* Got 'random'"),
    (dict(kernel="poly", degree=(1, 5)), "a degree range .* needs search='annealing'"),
    (dict(kernel="rbf", degree=(1, 5), search="annealing"),
     "a degree range is searched only with kernel='poly'"),
    (dict(kernel="poly", degree=(5, 2), search="annealing"), "low 5 must be < high 2"),
    (dict(kernel="poly", degree=(1, 30), search="annealing"), "outside 1..20"),
    (dict(degree="many"), r"The 'degree' parameter of BoundSVC must be an int in the range "
                          r"\[1, inf\), a str among {'auto'} or an array-like. Got 'many'"),
    (dict(search="annealing", max_epochs=0),
     r"'max_epochs' parameter of BoundSVC must be an int in the range \[1, inf\)"),
    (dict(search="convex", loss="l1"), "tunes C of the L2-SVM only"),
    (dict(search="lbfgsb", loss="l1", criterion="l1bound2"),
     "search='lbfgsb' cannot minimise it"),
    (dict(kernel="rbf", groups=[0, 1]), "groups only apply to the ARD kernels"),
    (dict(kernel="ard", groups=[0, 1]), "groups has 2 entries but X has 30 features"),
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
    with pytest.raises(ValueError, match="continuous"):   # 3+ classes: multi-class
        BoundSVC().fit(X, np.arange(len(y)) / 7.0)
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        BoundSVC().fit(Xn, y)
    clf = BoundSVC(max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but BoundSVC is expecting 30 features as input"):
        clf.predict(Xt[:, :5])


def test_grid_search_picks_the_grid_minimum_of_a_nondifferentiable_bound(cancer):
    from svmbound.search.grid import evaluate_grid

    X, y, _, _ = cancer
    X, y = X[:120], y[:120]
    grid = {"log_C": (-2.0, 4.0, 2.0), "log_sigma2": (0.0, 6.0, 2.0)}
    clf = BoundSVC(loss="l1", criterion="l1bound2", search="grid", grid=grid).fit(X, y)
    crit = make_criterion("rm-l1-3.2", Problem(X, np.where(y == 1, 1.0, -1.0)), RBFKernel(),
                          tol=1e-6)
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


# -- the other searches and kernels ---------------------------------------------------------
def test_lbfgsb_and_projected_gradient_reach_the_bfgs_minimum(cancer):
    """Run to convergence (one bound, no evaluation budget), the three searches find the same
    minimum."""
    X, y, _, _ = cancer
    ref = BoundSVC(criterion="radius-margin").fit(X, y)
    for search in ("lbfgsb", "projected-gradient"):
        clf = BoundSVC(criterion="radius-margin", search=search).fit(X, y)
        np.testing.assert_allclose(clf.best_value_, ref.best_value_, rtol=1e-3)
        np.testing.assert_allclose(clf.best_theta_, ref.best_theta_, atol=0.05)


def test_ard_with_one_group_is_the_isotropic_rbf(cancer):
    """ARD with every feature in one group is exactly the RBF kernel: same path, same model."""
    X, y, Xt, _ = cancer
    ref = BoundSVC(strategy_config=ISOTROPIC_CONFIG).fit(X, y)   # (no per-feature stage)
    clf = BoundSVC(kernel="ard", groups=np.zeros(X.shape[1], dtype=int)).fit(X, y)
    np.testing.assert_allclose(clf.best_theta_, ref.best_theta_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(clf.best_value_, ref.best_value_, rtol=1e-8)
    np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Xt),
                               rtol=1e-6, atol=1e-8)
    assert clf.n_trainings_ == ref.n_trainings_


def test_ard_per_feature_lowers_the_bound_below_the_isotropic_optimum(cancer):
    X, y, Xt, yt = cancer
    X, y = X[:150, :8], y[:150]
    ref = BoundSVC(criterion="radius-margin").fit(X, y)
    clf = BoundSVC(kernel="ard", criterion="radius-margin", search="lbfgsb",
                   start=ref.best_theta_[[0] + [1] * 8]).fit(X, y)
    assert clf.best_params_["sigma2"].shape == (8,)
    assert clf.best_value_ < ref.best_value_ * (1 - 1e-3)
    crit = clf.make_criterion(X, np.where(y == clf.classes_[1], 1.0, -1.0))
    np.testing.assert_allclose(crit.fun(clf.best_theta_), clf.best_value_, rtol=1e-5)


def test_annealing_is_seeded_and_ends_at_its_best_point(cancer):
    X, y, _, _ = cancer
    X, y = X[:120], y[:120]
    kw = dict(loss="l1", criterion="l1bound2", search="annealing", max_epochs=25)
    a = BoundSVC(random_state=3, **kw).fit(X, y)
    b = BoundSVC(random_state=3, **kw).fit(X, y)
    assert [p["x"] for p in a.search_.path] == [p["x"] for p in b.search_.path]
    values = [p["value"] for p in a.search_.path]
    assert a.best_value_ == min(values)
    crit = make_criterion("rm-l1-3.2", Problem(X, np.where(y == a.classes_[1], 1.0, -1.0)),
                          RBFKernel(), tol=1e-6)
    np.testing.assert_allclose(crit.fun(a.best_theta_), a.best_value_, rtol=1e-6)
    assert a.n_trainings_ == a.search_.nfev + 1


def test_annealing_searches_the_polynomial_degree():
    X, y = make_classification(n_samples=80, n_features=3, n_informative=2, n_redundant=0,
                               random_state=1)
    X = X / np.abs(X).max(axis=0)
    clf = BoundSVC(kernel="poly", degree=(1, 4), search="annealing", max_epochs=30,
                   bounds=[(-4, 4), (0, 3)], random_state=0).fit(X, y)
    d = clf.best_params_["degree"]
    assert isinstance(d, int) and 1 <= d <= 4
    degrees = {int(p["x"][2]) for p in clf.search_.path}
    assert len(degrees) > 1 and degrees <= {1, 2, 3, 4}
    best = min(clf.search_.path, key=lambda p: p["value"])
    assert d == int(best["x"][2])
    # the model is the one at the best point: same value when evaluated afresh at that degree
    from svmbound.kernels import PolynomialKernel
    crit = make_criterion("rm-l2", Problem(X, np.where(y == 1, 1.0, -1.0)),
                          PolynomialKernel(degree=d, coef0=1.0), tol=1e-6)
    np.testing.assert_allclose(crit.fun(clf.best_theta_), clf.best_value_, rtol=1e-5)


@pytest.mark.parametrize("criterion, loss", [("cv-error", "l1"), ("span-exact", "l2")])
def test_a_degree_annealed_with_a_rate_criterion_fits(criterion, loss):
    """Criteria reporting an error rate compared the criterion's θ (no degree) with the
    annealed θ (with it): "operands could not be broadcast together", after the search."""
    X, y = make_classification(n_samples=60, n_features=3, n_informative=2, n_redundant=0,
                               random_state=1)
    clf = BoundSVC(kernel="poly", degree=(1, 3), search="annealing", criterion=criterion,
                   loss=loss, max_epochs=4, random_state=0).fit(X / np.abs(X).max(axis=0), y)
    assert clf.best_params_["degree"] in (1, 2, 3)


def test_convex_search_returns_de_bie_c_at_the_start_kernel(cancer):
    from svmbound.search import tune_c_convex

    X, y, _, _ = cancer
    clf = BoundSVC(search="convex", start=(0.0, 2.0)).fit(X, y)
    ref = tune_c_convex(X, y, RBFKernel(np.exp(2.0)))
    np.testing.assert_allclose(clf.best_theta_, [ref.x[0], 2.0])
    assert clf.n_trainings_ == ref.nfev + 1
    assert clf.criterion_name_ == "de-bie-convex"


def test_scaled_polynomial_reports_no_gamma(cancer):
    """gamma = 1/(2σ²) belongs to the RBF kernels; the scaled polynomial has σ² and a degree."""
    X, y, _, _ = cancer
    clf = BoundSVC(kernel="ard-poly", degree=2, search="lbfgsb", max_iter=3).fit(X[:80, :4],
                                                                                 y[:80])
    assert "gamma" not in clf.best_params_ and clf.best_params_["degree"] == 2
    assert clf.best_params_["sigma2"].shape == (4,)


def test_grid_search_over_C_alone_for_the_linear_kernel(cancer):
    X, y, _, _ = cancer
    X, y = X[:120], y[:120]
    clf = BoundSVC(kernel="linear", search="grid", grid={"log_C": (-4.0, 2.0, 1.0)}).fit(X, y)
    crit = clf.make_criterion(X, np.where(y == clf.classes_[1], 1.0, -1.0))
    values = [crit.fun(np.array([lc])) for lc in np.arange(-4.0, 2.1, 1.0)]
    assert clf.search_.nfev == 7
    np.testing.assert_allclose(clf.best_value_, min(values), rtol=1e-6)
    assert clf.best_theta_[0] == np.arange(-4.0, 2.1, 1.0)[int(np.argmin(values))] or \
        clf.c_projected_


def test_a_refit_keeps_nothing_of_the_earlier_model():
    """A 3-class fit, then a binary one on the same estimator: shape_fit_ is the new X's and
    the one-vs-one attributes are gone (shape_fit_ stayed (150, 4), hostile probe)."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    est = BoundSVC(random_state=0).fit(X, y)
    assert est.shape_fit_ == (150, 4) and hasattr(est, "pair_models_")
    est.fit(X[50:120, :3], y[50:120])
    assert est.shape_fit_ == (70, 3) and not hasattr(est, "pair_models_")
    assert list(est.classes_) == [1, 2]


def test_a_final_model_that_is_not_finite_is_an_error_not_a_model(monkeypatch):
    """A numerical failure in the final training (kernel rows a BLAS call left unwritten gave a
    NaN intercept) is a FloatingPointError, and the estimator holds no model after it."""
    from sklearn.exceptions import NotFittedError

    import svmbound.fit_flow as fit_flow

    real = fit_flow.BinaryMachine.install

    def broken(self, tr, kernel0):
        kernel = real(self, tr, kernel0)
        self.est.intercept_ = np.array([np.nan])
        return kernel

    monkeypatch.setattr(fit_flow.BinaryMachine, "install", broken)
    X, y = make_classification(n_samples=80, n_features=4, random_state=0)
    est = BoundSVC(random_state=0)
    with pytest.raises(FloatingPointError, match="coefficients are not finite"):
        est.fit(X, y)
    with pytest.raises(NotFittedError):
        est.predict(X)
