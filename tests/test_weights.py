"""Per-sample weights C_i = C·w_i (issue 13, part 3): class_weight and sample_weight as
scikit-learn's SVC, through the solvers, the criteria and their gradients, the CV criterion,
warm starts, BoundSVC and ``svmbound tune --class-weight``."""

import json
import warnings

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, make_classification
from sklearn.metrics import recall_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from svmbound import BoundSVC
from svmbound.criteria import (CrossValidationError, RadiusMarginL1, RadiusMarginL2,
                               make_criterion)
from svmbound.kernels import PrecomputedKernel, RBFKernel
from svmbound.solvers import (Problem, decision_function, solve_radius,
                              solve_svm_dual, warm_start_alpha)
from svmbound.training_data import data_fingerprint
from _fd import central_fd

GAMMA, C = 0.5, 3.0
CLASS_W = {0: 0.7, 1: 3.0}


@pytest.fixture(scope="module")
def data():
    """An imbalanced, standardised problem (120 × 4, about 3:1), labels 0/1 and ±1, and
    positive sample weights."""
    X, y01 = make_classification(n_samples=120, n_features=4, n_informative=3, n_redundant=0,
                                 weights=[0.75], flip_y=0.05, random_state=3)
    X = np.ascontiguousarray(StandardScaler().fit_transform(X))
    sw = np.random.default_rng(0).uniform(0.2, 3.0, y01.size)
    return X, y01, np.where(y01 == 1, 1.0, -1.0), sw


def rbf(gamma=GAMMA):
    return RBFKernel(1.0 / (2.0 * gamma))


def svc_coef(svc, n, rows=None):
    """SVC's α_i y_i as a vector over the n training rows (``rows``: the rows SVC's support_
    indexes — it counts within the samples of weight > 0)."""
    coef = np.zeros(n)
    idx = svc.support_ if rows is None else rows[svc.support_]
    coef[idx] = svc.dual_coef_[0]
    return coef


CASES = {"class_weight": (CLASS_W, False), "balanced": ("balanced", False),
         "sample_weight": (None, True), "both": (CLASS_W, True)}


def case_weights(y01, sw, case):
    cw, use_sw = CASES[case]
    cls = {0: 1.0, 1: 1.0} if cw is None else (
        CLASS_W if cw != "balanced" else {k: y01.size / (2.0 * np.sum(y01 == k)) for k in (0, 1)})
    w = np.where(y01 == 1, cls[1], cls[0]) * (sw if use_sw else 1.0)
    return cw, (sw if use_sw else None), w


# -- solvers ------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
def test_l1_solution_equals_svc_with_class_and_sample_weights(data, case):
    X, y01, y, sw = data
    cw, s, w = case_weights(y01, sw, case)
    sol = solve_svm_dual(X, y, rbf(), C, loss="l1", tol=1e-9, weights=w)
    svc = SVC(C=C, gamma=GAMMA, class_weight=cw, tol=1e-9).fit(X, y01, sample_weight=s)
    assert sol.bounded.size > 0                     # the per-sample boxes are active
    np.testing.assert_array_equal(sol.bounded, np.flatnonzero(sol.alpha >= C * w))
    assert np.all(sol.alpha <= C * w)
    np.testing.assert_allclose(sol.alpha * y, svc_coef(svc, y.size), rtol=0, atol=5e-6)
    assert abs(sol.b - svc.intercept_[0]) < 1e-6
    Xn = X[:40] + 0.3
    np.testing.assert_allclose(decision_function(X, y, sol.alpha, sol.b, rbf(), Xn),
                               svc.decision_function(Xn), rtol=0, atol=1e-6)


def test_l2_dual_with_weights_satisfies_its_kkt_conditions(data):
    X, y01, y, sw = data
    w = np.where(y > 0, 2.0, 0.5) * sw
    tol = 1e-8
    sol = solve_svm_dual(X, y, rbf(), C, loss="l2", tol=tol, weights=w)
    assert sol.converged and np.all(sol.alpha >= 0) and abs(y @ sol.alpha) < 1e-10
    K = rbf().block(X)
    Qt = np.outer(y, y) * K + np.diag(1.0 / (C * w))   # Q + diag(1/C_i), built independently
    G = Qt @ sol.alpha - 1.0
    np.testing.assert_allclose(sol.gradient, G, rtol=0, atol=1e-10)
    m = G + y * sol.b                                   # y_i f̃_i − 1
    sv = sol.alpha > 0
    assert np.all(np.abs(m[sv]) <= tol) and np.all(m[~sv] >= -tol)
    # ξ_i = α_i / C_i on the support vectors, ‖w̃‖² = eᵀα, ‖w‖² = αᵀQα
    f = decision_function(X, y, sol.alpha, sol.b, rbf(), X)
    np.testing.assert_allclose(1.0 - y[sv] * f[sv], sol.alpha[sv] / (C * w[sv]), atol=2 * tol)
    np.testing.assert_allclose(sol.quad, sol.alpha.sum(), rtol=1e-7)
    a_y = sol.alpha * y
    np.testing.assert_allclose(sol.w2, a_y @ K @ a_y, rtol=1e-10)
    # and it is the L1 dual on the precomputed kernel K + diag(1/C_i) with no active box
    ref = solve_svm_dual(K + np.diag(1.0 / (C * w)), y, PrecomputedKernel(), 1e8, loss="l1",
                         tol=tol)
    np.testing.assert_allclose(sol.alpha, ref.alpha, rtol=0, atol=1e-6 * sol.alpha.max())


def test_radius_with_per_sample_shift_matches_its_definition(data):
    X, _, y, sw = data
    h = 1.0 / (C * sw)
    sol = solve_radius(X, rbf(), shift=h, tol=1e-10)
    Kt = rbf().block(X) + np.diag(h)
    b = sol.beta
    assert abs(b.sum() - 1.0) < 1e-12 and np.all(b >= 0)
    np.testing.assert_allclose(sol.r2, b @ np.diag(Kt) - b @ Kt @ b, rtol=1e-10)
    # optimality: g_i = K̃_ii − 2(K̃β)_i is maximal (= R̃² − βᵀK̃β + …) on the support of β
    g = np.diag(Kt) - 2.0 * Kt @ b
    assert g[b > 0].min() >= g.max() - 1e-8


def test_unit_weights_reproduce_the_unweighted_solutions_exactly(data):
    X, _, y, _ = data
    ones = np.ones(y.size)
    for loss in ("l1", "l2"):
        a = solve_svm_dual(X, y, rbf(), C, loss=loss, tol=1e-8)
        b = solve_svm_dual(X, y, rbf(), C, loss=loss, tol=1e-8, weights=ones)
        np.testing.assert_array_equal(a.alpha, b.alpha)
        assert a.b == b.b and a.objective == b.objective and a.w2 == b.w2
        np.testing.assert_array_equal(a.bounded, b.bounded)
    r1 = solve_radius(X, rbf(), shift=1.0 / C, tol=1e-8)
    r2 = solve_radius(X, rbf(), shift=np.full(y.size, 1.0 / C), tol=1e-8)
    np.testing.assert_array_equal(r1.beta, r2.beta)
    assert r1.r2 == r2.r2


def test_warm_start_with_weights(data):
    """Scaling α by C_new/C_old keeps the per-sample boxes (they all scale with C): feasible,
    bounded entries stay exactly at C_new·w_i, and the warm-started criteria (kernel changed,
    or only C changed: the gradient-reusing start) reach the cold values."""
    X, _, y, sw = data
    w = np.where(y > 0, 2.0, 0.5) * sw
    prev = solve_svm_dual(X, y, rbf(), C, loss="l1", tol=1e-9, weights=w)
    a0 = warm_start_alpha(prev.alpha, y, C, 0.4 * C, "l1", w)
    assert np.all(a0 >= 0) and np.all(a0 <= 0.4 * C * w + 1e-15)
    assert abs(y @ a0) <= 1e-12 * a0.sum()
    at = prev.alpha >= C * w
    np.testing.assert_array_equal(a0[at], 0.4 * C * w[at])
    for cls in (RadiusMarginL1, RadiusMarginL2):
        warm = cls(Problem(X, y, w), RBFKernel(), tol=1e-9)
        for theta in ([0.0, 0.0], [0.7, 0.0], [0.2, 0.5], [-1.0, 0.5]):
            cold = cls(Problem(X, y, w), RBFKernel(), tol=1e-9, warm_start=False)
            np.testing.assert_allclose(warm.fun(np.array(theta)), cold.fun(np.array(theta)),
                                       rtol=1e-7)


# -- criteria -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["rm-l2", "rm-l1", "span", "rm-l2-2.5", "smoothed-validation"])
@pytest.mark.parametrize("theta", [(0.0, 0.0), (2.0, 1.5), (-2.0, -0.5), (9.5, 1.0)])
def test_weighted_criterion_gradient_matches_finite_differences(data, name, theta):
    X, _, y, sw = data
    w = np.where(y > 0, 2.5, 0.6) * sw
    crit = make_criterion(name, Problem(X, y, w), RBFKernel(), tol=1e-8)
    theta = np.array(theta)
    ev = crit.evaluate(theta)
    fd = central_fd(crit, theta)
    scale = max(np.abs(fd).max(), 1e-3 * abs(ev.value), 1e-8)
    assert np.all(np.abs(ev.grad - fd) <= 1e-4 * scale), (ev.grad, fd)


@pytest.mark.parametrize("theta", [(0.0, 0.0), (-2.0, 1.0), (3.0, -0.5)])
def test_weighted_radius_gradient_matches_finite_differences(data, theta):
    """R̃² with K + diag(1/C_i): ∂/∂ln C = −Σ β_i(1 − β_i)/C_i and the kernel part, against
    central differences of an independent solve_radius."""
    X, _, y, sw = data
    w = np.where(y > 0, 2.5, 0.6) * sw
    crit = RadiusMarginL2(Problem(X, y, w), RBFKernel(), tol=1e-10)
    Cv, kernel = crit.split_theta(theta)
    r2, dr2_dlogc, sol = crit._radius(Cv, kernel)
    grad = np.r_[dr2_dlogc, crit.radius_gradient(kernel, sol)]

    def r2_at(t):
        return solve_radius(X, RBFKernel(np.exp(t[1])), shift=1.0 / (np.exp(t[0]) * w),
                            tol=1e-11).r2

    np.testing.assert_allclose(r2, r2_at(np.array(theta)), rtol=1e-9)
    fd = central_fd(r2_at, np.array(theta))
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7 * abs(r2))
    # the weights matter: the unweighted ∂/∂ln C differs
    assert abs(dr2_dlogc - (-(1.0 - sol.beta @ sol.beta) / Cv)) > 1e-3 * abs(dr2_dlogc)


@pytest.mark.parametrize("name", ["rm-l2", "rm-l1", "span", "cv-error"])
def test_unit_weights_reproduce_the_unweighted_criteria(data, name):
    X, _, y, _ = data
    theta = np.array([0.5, 0.3])
    a = make_criterion(name, Problem(X, y), RBFKernel(), tol=1e-8).evaluate(theta)
    b = make_criterion(name, Problem(X, y, np.ones(y.size)), RBFKernel(), tol=1e-8).evaluate(theta)
    np.testing.assert_allclose(b.value, a.value, rtol=1e-12)
    if a.grad is not None:
        np.testing.assert_allclose(b.grad, a.grad, rtol=1e-10, atol=1e-14)


def test_span_bound_counts_relative_weights(data):
    """Equal weights c scale C alone (C_i = C·c) and count each error as w/w̄ = 1: the value is
    the unweighted one at ln C + ln c. Unequal weights count each point's Ψ(α_p S̃_p² − 1)
    with w_p/w̄ (the points that are not SVs with Ψ(−1)), not once."""
    from svmbound.criteria.span import sigmoid
    from svmbound.criteria.span_algebra import span_squared

    X, _, y, _ = data
    theta = np.array([0.5, 0.3])
    plain = make_criterion("span", Problem(X, y), RBFKernel(), tol=1e-10)
    c = 3.0
    equal = make_criterion("span", Problem(X, y, np.full(y.size, c)), RBFKernel(), tol=1e-10)
    np.testing.assert_allclose(equal.evaluate(theta).value,
                               plain.evaluate(theta + [np.log(c), 0.0]).value, rtol=1e-7)
    w = np.where(y > 0, 4.0, 1.0)
    crit = make_criterion("span", Problem(X, y, w), RBFKernel(), tol=1e-10)
    value = crit.evaluate(theta).value
    _, sv, Kt, a, _, _ = crit._sv_problem(*crit.split_theta(theta))
    psi = sigmoid(a * span_squared(Kt, a, crit.eta)[0] - 1.0)
    rel = w / w.mean()
    counted_once = psi.sum() + (y.size - sv.size) * sigmoid(-1.0)
    weighted = rel[sv] @ psi + (rel.sum() - rel[sv].sum()) * sigmoid(-1.0)
    assert value == pytest.approx(weighted, rel=1e-8)
    assert abs(weighted - counted_once) > 1e-3 * weighted


def test_cv_weights_follow_the_samples_into_the_folds(data):
    """Each fold trains with its training points' weights; a held-out error counts with its
    weight (with class_weight='balanced' that is the balanced error)."""
    X, _, y, sw = data
    w = np.where(y > 0, 2.0, 0.5) * sw
    theta = np.array([1.0, 0.0])
    cv = CrossValidationError(Problem(X, y, w), RBFKernel(), n_folds=3, tol=1e-8)
    ev = cv.evaluate(theta)
    kernel = RBFKernel(1.0)
    value = 0.0
    for tr, te in cv.folds:
        sol = solve_svm_dual(X[tr], y[tr], kernel, np.e, tol=1e-8, weights=w[tr])
        f = decision_function(X[tr], y[tr], sol.alpha, sol.b, kernel, X[te])
        value += w[te][y[te] * f < 0].sum()
    np.testing.assert_allclose(ev.value, value, rtol=1e-12)
    np.testing.assert_allclose(ev.info["rate"], value / w.sum(), rtol=1e-12)


# -- estimator ----------------------------------------------------------------------------------
def fixed_point_svc(**kw):
    """BoundSVC at the single point (C, γ): a one-point grid."""
    lc, ls = np.log(C), np.log(1.0 / (2.0 * GAMMA))
    return BoundSVC(loss="l1", search="grid", tol=1e-9,
                    grid={"log_C": (lc, lc, 1.0), "log_sigma2": (ls, ls, 1.0)}, **kw)


@pytest.mark.parametrize("case", ["class_weight", "balanced", "sample_weight", "both"])
def test_bound_svc_at_a_fixed_point_equals_svc(data, case):
    X, y01, _, sw = data
    cw, s, _ = case_weights(y01, sw, case)
    if s is not None:
        s = s.copy()
        s[:6] = 0.0                                    # dropped, as LIBSVM does
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = fixed_point_svc(class_weight=cw).fit(X, y01, sample_weight=s)
    svc = SVC(C=C, gamma=GAMMA, class_weight=cw, tol=1e-9).fit(X, y01, sample_weight=s)
    np.testing.assert_allclose(est.class_weight_, svc.class_weight_, rtol=1e-15)
    kept = np.arange(y01.size) if s is None else np.flatnonzero(s > 0)
    coef = np.zeros(y01.size)
    coef[est.support_] = est.dual_coef_[0]
    np.testing.assert_allclose(coef, svc_coef(svc, y01.size, kept), rtol=0, atol=5e-6)
    np.testing.assert_array_equal(est.support_vectors_, X[est.support_])
    assert abs(est.intercept_[0] - svc.intercept_[0]) < 1e-6
    np.testing.assert_allclose(est.decision_function(X), svc.decision_function(X), atol=1e-6)


def test_bound_svc_unit_weights_are_the_unweighted_fit(data):
    X, y01, _, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = BoundSVC(loss="l1", random_state=0, max_iter=5).fit(X, y01)
        b = BoundSVC(loss="l1", random_state=0, max_iter=5, class_weight={0: 1, 1: 1.0}).fit(
            X, y01, sample_weight=np.ones(y01.size))
    np.testing.assert_array_equal(a.best_theta_, b.best_theta_)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert a.intercept_[0] == b.intercept_[0] and a.search_.message == b.search_.message


def test_balanced_class_weight_improves_minority_recall():
    X, y = make_classification(n_samples=300, n_features=5, n_informative=3, n_redundant=0,
                               weights=[0.9], flip_y=0.02, class_sep=0.8, random_state=1)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    recall = {}
    for cw in (None, "balanced"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = BoundSVC(class_weight=cw, random_state=0).fit(Xtr, ytr)
        recall[cw] = recall_score(yte, est.predict(Xte))
    assert recall["balanced"] >= recall[None] + 0.2, recall
    assert "weighted" in est.search_.message          # the CV counted weighted errors


@pytest.mark.parametrize("sample_weight, match", [
    (-1.0, "must be >= 0"),
    ("negative", "must be >= 0; entry 3"),
    ("short", r"sample_weight.shape == \(119,\), expected \(120,\)"),
    ("nan", "sample_weight contains NaN"),
    ("inf", "sample_weight contains infinity"),
    ("matrix", "Sample weights must be 1D array or scalar"),
    ("text", "must be numbers"),
    ("one class", "same class"),
])
def test_bad_sample_weights_raise_clear_errors(data, sample_weight, match):
    X, y01, _, sw = data
    s = {"negative": np.r_[sw[:3], -0.5, sw[4:]], "short": sw[:-1], "nan": np.r_[np.nan, sw[1:]],
         "inf": np.r_[sw[:-1], np.inf], "matrix": np.ones((120, 2)), "text": ["a"] * 120,
         "one class": np.where(y01 == 1, 0.0, 1.0)}.get(sample_weight, sample_weight)
    with pytest.raises(ValueError, match=match):
        fixed_point_svc().fit(X, y01, sample_weight=s)


@pytest.mark.parametrize("class_weight, match", [
    ("heavy", "'class_weight' parameter of BoundSVC must be an instance of 'dict', a str among"),
    ({0: -1.0, 1: 1.0}, "finite numbers >= 0"),
    ({0: np.nan, 1: 1.0}, "finite numbers >= 0"),
    ({7: 2.0}, "not in class_weight|not in classes|7"),
])
def test_bad_class_weights_raise_clear_errors(data, class_weight, match):
    X, y01, _, _ = data
    with pytest.raises(ValueError, match=match):
        fixed_point_svc(class_weight=class_weight).fit(X, y01)


def test_bad_weights_at_the_solver_and_criterion_level(data):
    X, _, y, sw = data
    for bad, match in ((np.r_[0.0, sw[1:]], "must be > 0"), (sw[:5], "has 5 entries"),
                       (np.r_[np.nan, sw[1:]], "NaN")):
        with pytest.raises(ValueError, match=match):
            solve_svm_dual(X, y, rbf(), C, weights=bad)
        with pytest.raises(ValueError, match=match):
            RadiusMarginL2(Problem(X, y, bad), RBFKernel())
    with pytest.raises(ValueError, match="shift must be"):
        solve_radius(X, rbf(), shift=-np.ones(y.size))
    with pytest.raises(ValueError, match="convex"):
        BoundSVC(search="convex", class_weight="balanced").fit(X, y)


def test_search_log_fingerprint_holds_the_weights(data):
    X, _, y, sw = data
    assert data_fingerprint(X, y) == data_fingerprint(X, y, None)
    assert data_fingerprint(X, y, sw) != data_fingerprint(X, y)


def test_cli_tune_class_weight_balanced(tmp_path, capsys):
    from svmbound.cli import main

    X, y = make_classification(n_samples=100, n_features=3, n_informative=2, n_redundant=0,
                               weights=[0.8], random_state=0)
    path = tmp_path / "train.txt"
    dump_svmlight_file(X, np.where(y == 1, 1, -1), str(path))
    assert main(["tune", str(path), "--class-weight", "balanced", "--json", "--quiet",
                 "--max-iter", "5"]) == 0
    r = json.loads(capsys.readouterr().out)
    n_pos = int(np.sum(y == 1))
    np.testing.assert_allclose(r["class_weight"]["1.0"], 100 / (2 * n_pos))
    assert "weighted" in r["message"]
    with pytest.raises(SystemExit):
        main(["tune", str(path), "--class-weight", "heavy"])
