"""Multi-class BoundSVC (issue 13, part 1): one-vs-one pairs, voting, one θ shared by the pairs
(summed criteria) or one per pair; SVC's layout and values; the voting CV error."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from _fd import central_fd
from svmbound import BoundSVC
from svmbound.checks import ModelWarning
from svmbound.criteria.pairs import OvOCrossValidationError, PairwiseSum, pairwise_criterion
from svmbound.kernels import RBFKernel
from svmbound.ovo import class_pairs, ovr_decision, vote
from svmbound.solvers import Problem, decision_function, solve_svm_dual

LOG_C, LOG_S2 = 1.3, 0.4          # a fixed θ = (ln C, ln σ²)
C, GAMMA = np.exp(LOG_C), 1.0 / (2.0 * np.exp(LOG_S2))


@pytest.fixture(scope="module")
def data():
    """Three overlapping classes, 90 train / 60 test, labels 5, 7, 9 (not 0..k−1)."""
    X, y = make_classification(n_samples=150, n_features=4, n_informative=3, n_redundant=0,
                               n_classes=3, n_clusters_per_class=1, flip_y=0.05, random_state=4)
    X = StandardScaler().fit_transform(X)
    y = np.array([5, 7, 9])[y]
    return X[:90], y[:90], X[90:], y[90:]


@pytest.fixture(scope="module")
def four_class():
    """Four classes, 100 rows (for the criteria)."""
    X, y = make_classification(n_samples=100, n_features=5, n_informative=4, n_redundant=0,
                               n_classes=4, n_clusters_per_class=1, random_state=7)
    return StandardScaler().fit_transform(X), y


pytestmark = pytest.mark.filterwarnings(
    "ignore:svmbound.*the bound is vacuous:svmbound.checks.ModelWarning")


def fixed(loss, **kw):
    """A BoundSVC at the fixed θ: a one-point grid."""
    return BoundSVC(loss=loss, search="grid", tol=1e-10,
                    grid={"log_C": (LOG_C, LOG_C, 1), "log_sigma2": (LOG_S2, LOG_S2, 1)}, **kw)


@pytest.mark.parametrize("loss", ["l2", "l1"])
def test_predicts_as_voting_of_the_pairwise_binary_models(data, loss):
    X, y, Xt, _ = data
    est = fixed(loss, decision_function_shape="ovo").fit(X, y)
    np.testing.assert_array_equal(est.classes_, [5, 7, 9])
    kernel = RBFKernel(np.exp(LOG_S2))
    dec = np.empty((Xt.shape[0], 3))
    for p, (a, b) in enumerate([(5, 7), (5, 9), (7, 9)]):
        rows = (y == a) | (y == b)
        yp = np.where(y[rows] == a, 1.0, -1.0)
        sol = solve_svm_dual(X[rows], yp, kernel, C, loss=loss, tol=1e-10)
        dec[:, p] = decision_function(X[rows], yp, sol.alpha, sol.b, kernel, Xt)
    votes = np.zeros((Xt.shape[0], 3), dtype=int)
    for p, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        for n in range(Xt.shape[0]):
            votes[n, i if dec[n, p] > 0 else j] += 1
    expected = np.array([5, 7, 9])[[int(np.flatnonzero(v == v.max())[0]) for v in votes]]
    np.testing.assert_array_equal(est.predict(Xt), expected)
    np.testing.assert_allclose(est.decision_function(Xt), dec, rtol=0, atol=1e-7)
    assert est.best_params_["gamma"] == pytest.approx(GAMMA)


@pytest.mark.parametrize("shape", ["ovo", "ovr"])
def test_l1_at_fixed_theta_equals_sklearn_svc(data, shape):
    X, y, Xt, _ = data
    est = fixed("l1", decision_function_shape=shape).fit(X, y)
    svc = SVC(kernel="rbf", C=C, gamma=GAMMA, tol=1e-10,
              decision_function_shape=shape).fit(X, y)
    for Z in (X, Xt):
        assert est.decision_function(Z).shape == svc.decision_function(Z).shape
        np.testing.assert_allclose(est.decision_function(Z), svc.decision_function(Z),
                                   rtol=0, atol=1e-6)
        np.testing.assert_array_equal(est.predict(Z), svc.predict(Z))
    np.testing.assert_array_equal(est.support_, svc.support_)
    np.testing.assert_array_equal(est.n_support_, svc.n_support_)
    # LIBSVM caches the kernel in float32: its α are accurate to ~1e-6 relative to C
    np.testing.assert_allclose(est.dual_coef_, svc.dual_coef_, rtol=0, atol=1e-5)
    np.testing.assert_allclose(est.intercept_, svc.intercept_, rtol=0, atol=1e-5)
    np.testing.assert_array_equal(est.support_vectors_, svc.support_vectors_)


def test_export_of_a_multiclass_model_predicts_identically(data, tmp_path):
    X, y, Xt, _ = data
    est = BoundSVC(loss="l1").fit(X, y)
    svc = est.to_svc()
    assert isinstance(svc, SVC) and svc.gamma == est.best_params_["gamma"]
    for Z in (X, Xt):
        np.testing.assert_array_equal(svc.predict(Z), est.predict(Z))
        np.testing.assert_allclose(svc.decision_function(Z), est.decision_function(Z),
                                   rtol=0, atol=1e-10)
    svmutil = pytest.importorskip("libsvm.svmutil", reason="libsvm-official (test extra) missing")
    path = tmp_path / "mc.model"
    est.save_libsvm_model(path)
    m = svmutil.svm_load_model(str(path))
    assert m.get_labels() == [5, 7, 9] and m.get_nr_sv() == est.support_.size
    labels, _, vals = svmutil.svm_predict(np.zeros(len(Xt)), Xt, m, "-q")
    np.testing.assert_array_equal(np.asarray(labels), est.predict(Xt))
    est.set_params(decision_function_shape="ovo")
    np.testing.assert_allclose(np.asarray(vals), est.decision_function(Xt), rtol=0, atol=1e-8)
    # the SVC takes the estimator's decision_function_shape and break_ties (it dropped them:
    # (n, 3) 'ovr' values against (n, 3) 'ovo', and 32 of 5,000 points predicted otherwise)
    svc = est.to_svc()
    assert svc.decision_function_shape == "ovo"
    np.testing.assert_allclose(svc.decision_function(Xt), est.decision_function(Xt), rtol=0,
                               atol=1e-10)
    est.set_params(decision_function_shape="ovr", break_ties=True)
    Z = np.random.RandomState(0).randn(3000, X.shape[1]) * 2 * X.std(axis=0) + X.mean(axis=0)
    assert est.to_svc().break_ties
    np.testing.assert_array_equal(est.to_svc().predict(Z), est.predict(Z))


@pytest.mark.parametrize("name, theta", [("rm-l2", (0.5, 0.3)), ("span", (1.0, 0.8)),
                                         ("rm-l1", (0.7, 1.2))])
def test_summed_criterion_gradient_matches_finite_differences(four_class, name, theta):
    X, y = four_class
    crit = pairwise_criterion(name, Problem(X, y), RBFKernel(), tol=1e-10)
    assert isinstance(crit, PairwiseSum) and len(crit.criteria) == 6
    theta = np.array(theta)
    ev = crit.evaluate(theta)
    fd = central_fd(crit, theta)
    scale = max(np.abs(fd).max(), 1e-3 * abs(ev.value))
    assert np.all(np.abs(ev.grad - fd) <= 1e-4 * scale), (ev.grad, fd)
    # value and gradient are the sums of the pairs' own
    parts = [c.evaluate(theta) for c in crit.criteria]
    assert ev.value == pytest.approx(sum(p.value for p in parts), rel=1e-9)
    np.testing.assert_allclose(ev.grad, np.sum([p.grad for p in parts], axis=0), rtol=1e-7)
    assert ev.info["rate"] == pytest.approx(ev.value / 100)
    assert crit.n_trainings > 0 and crit.param_names == ("log_C", "log_sigma2")


def test_cv_error_is_the_voting_error_on_held_out_folds(four_class):
    X, y = four_class
    cv = pairwise_criterion("cv-error", Problem(X, y), RBFKernel(), loss="l1", n_folds=4,
                            random_state=3, tol=1e-10)
    assert isinstance(cv, OvOCrossValidationError)
    ev = cv.evaluate(np.array([LOG_C, LOG_S2]))
    errors = 0
    for tr, te in StratifiedKFold(4, shuffle=True, random_state=3).split(X, y):
        svc = SVC(kernel="rbf", C=C, gamma=GAMMA, tol=1e-10).fit(X[tr], y[tr])
        errors += int(np.sum(svc.predict(X[te]) != y[te]))
    assert ev.value == errors and ev.info["rate"] == errors / 100
    assert cv.n_trainings == 4 * 6 and ev.info["hinge"] > 0


def test_cv_error_pairs_read_one_shared_kernel_matrix_or_their_own_rows_alike(four_class,
                                                                             monkeypatch):
    """Every (fold, pair) training reads K(X, X) computed once per θ
    (``reference.SHARED_GRAM_FRACTION``) or computes its own rows: the same voting errors and
    held-out hinge loss."""
    from svmbound.criteria import reference

    X, y = four_class
    got = []
    for fraction in (None, 0.25):
        monkeypatch.setattr(reference, "SHARED_GRAM_FRACTION", fraction)
        cv = pairwise_criterion("cv-error", Problem(X, y), RBFKernel(), loss="l1", n_folds=4,
                                random_state=3, tol=1e-10)
        got.append([cv.evaluate(np.array(t)) for t in ([LOG_C, LOG_S2], [LOG_C + 1, LOG_S2])])
    for a, b in zip(*got):
        assert a.value == b.value
        assert a.info["hinge"] == pytest.approx(b.info["hinge"], rel=1e-7)


def test_cv_error_step_in_c_starts_from_the_previous_solutions(four_class):
    """A step in C alone (same kernel) starts every (fold, pair) training from its solution at
    the previous θ: fewer SMO iterations, the same value as a cold evaluation; a new kernel
    starts cold (the same iterations as a fresh criterion)."""
    X, y = four_class
    kw = dict(loss="l1", n_folds=4, random_state=3, tol=1e-8)
    a, b = (np.array([LOG_C, LOG_S2]), np.array([LOG_C + 1.0, LOG_S2]))
    other = np.array([LOG_C, LOG_S2 + 0.5])
    warm = pairwise_criterion("cv-error", Problem(X, y), RBFKernel(), **kw)
    warm.evaluate(a)
    ev_b = warm.evaluate(b)
    ev_other = warm.evaluate(other)
    cold_b = pairwise_criterion("cv-error", Problem(X, y), RBFKernel(), **kw).evaluate(b)
    cold_other = pairwise_criterion("cv-error", Problem(X, y), RBFKernel(), **kw).evaluate(other)
    assert ev_b.value == cold_b.value and ev_b.info["hinge"] == pytest.approx(
        cold_b.info["hinge"], rel=1e-5)
    assert ev_b.info["n_iter"] < cold_b.info["n_iter"]
    assert ev_other.info["n_iter"] == cold_other.info["n_iter"]
    assert ev_other.value == cold_other.value


def test_string_labels(data):
    X, y, Xt, yt = data
    names = np.array(["five", "seven", "nine"], dtype=object)
    ys = names[(y - 5) // 2]
    est = BoundSVC(loss="l1").fit(X, ys)
    ref = BoundSVC(loss="l1").fit(X, y)
    np.testing.assert_array_equal(est.classes_, ["five", "nine", "seven"])   # sorted
    pred = est.predict(Xt)
    assert set(pred) <= set(names)
    # the same problem up to the order of the classes: the same θ, the same predictions
    np.testing.assert_allclose(est.best_theta_, ref.best_theta_, rtol=1e-6)
    np.testing.assert_array_equal(pred, names[(ref.predict(Xt) - 5) // 2])
    assert est.decision_function(Xt).shape == (len(Xt), 3)
    np.testing.assert_array_equal(est.to_svc().predict(Xt), pred)
    with pytest.raises(ValueError, match="integer labels"):
        est.save_libsvm_model("never-written.txt")


def test_bad_labels_raise(data):
    X, y, _, _ = data
    with pytest.raises(ValueError, match="single class"):
        BoundSVC().fit(X, np.full(len(y), "a"))
    with pytest.raises(ValueError, match="single class"):
        BoundSVC().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="continuous"):
        BoundSVC().fit(X, np.linspace(0.0, 1.0, len(y)))
    with pytest.raises(ValueError, match="decision_function_shape"):
        BoundSVC(decision_function_shape="ovx").fit(X, y)
    with pytest.raises(ValueError, match="multiclass_theta"):
        BoundSVC(multiclass_theta="each").fit(X, y)
    with pytest.raises(ValueError, match="convex"):
        BoundSVC(search="convex").fit(X, y)


def _svm_solve_threads(monkeypatch):
    """A list that collects the thread of every SVM solve (the radius QP runs beside it in a
    kept thread of its own, whatever n_jobs)."""
    import threading

    from svmbound.solvers import svm

    seen, run = [], svm.run_smo

    def spy(*a, **k):
        seen.append(threading.get_ident())
        return run(*a, **k)

    monkeypatch.setattr(svm, "run_smo", spy)
    return seen


def test_small_pairs_run_on_one_thread_whatever_n_jobs(data, monkeypatch):
    """Pairs below PAIR_THREADS_MIN_WORK (here 60 rows × 4 features) are fitted in the calling
    thread: threads would only queue for the GIL. Above it, n_jobs threads solve."""
    import threading

    from svmbound import multiclass

    X, y, _, _ = data
    assert multiclass.pair_threads(X, np.searchsorted([5, 7, 9], y), 3) == 1
    seen = _svm_solve_threads(monkeypatch)
    BoundSVC(loss="l2", n_jobs=2).fit(X, y)
    assert set(seen) == {threading.get_ident()}
    seen.clear()
    monkeypatch.setattr(multiclass, "PAIR_THREADS_MIN_WORK", 0.0)
    assert multiclass.pair_threads(X, np.searchsorted([5, 7, 9], y), 3) is None
    BoundSVC(loss="l2", n_jobs=2).fit(X, y)
    assert len(set(seen) - {threading.get_ident()}) >= 1


@pytest.mark.parametrize("threads", ["pair threads", "one thread"])
def test_n_jobs_does_not_change_the_result(data, threads, monkeypatch):
    from svmbound import multiclass

    if threads == "pair threads":   # the pairs of `data` are small: force threads on them
        monkeypatch.setattr(multiclass, "PAIR_THREADS_MIN_WORK", 0.0)
    X, y, Xt, _ = data
    # n_jobs=4: the two bound searches side by side, each summing its pairs on 2 threads
    a, *others = [BoundSVC(loss="l2", n_jobs=n).fit(X, y) for n in (1, 2, 4)]
    for b in others:
        np.testing.assert_array_equal(a.best_theta_, b.best_theta_)
        np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))
        assert a.n_trainings_ == b.n_trainings_
        assert [c["cv_errors"] for c in a.search_.candidates] == \
            [c["cv_errors"] for c in b.search_.candidates]
    pp = [BoundSVC(loss="l1", multiclass_theta="per-pair", n_jobs=n).fit(X, y) for n in (1, 2)]
    np.testing.assert_array_equal(pp[0].best_theta_, pp[1].best_theta_)
    np.testing.assert_array_equal(pp[0].decision_function(Xt), pp[1].decision_function(Xt))


def test_shared_auto_fit_attributes(data):
    X, y, Xt, yt = data
    est = BoundSVC(loss="l2").fit(X, y)
    assert est.criterion_name_ == "auto" and est.kernel_ is not None
    assert est.dual_coef_.shape == (2, est.support_.size) and est.intercept_.shape == (3,)
    assert est.n_support_.sum() == est.support_.size and len(est.pair_models_) == 3
    assert "voting" not in est.search_.message and "5-fold CV error" in est.search_.message
    assert {"span", "rm-l2"} <= set(est.search_.stages)
    # the stages minimised the sums over the pairs
    # (and the per-feature search's over ln C and one ln σ_k² per feature)
    assert all(len(e["x"]) == 2 for e in est.search_.path if len(e["x"]) != 1 + X.shape[1])
    assert all(len(e["x"]) == 1 + X.shape[1] for e in est.search_.path
               if e["stage"].startswith("per-feature"))
    assert est.score(Xt, yt) > 0.7
    assert est.n_trainings_ > 3
    ovr = est.decision_function(Xt)
    assert ovr.shape == (len(Xt), 3)
    # ovr = votes + confidences squashed into (−1/3, 1/3): its argmax is the vote's winner;
    # on a tie of votes predict takes the smallest class index (LIBSVM), ovr the confidences
    votes = np.round(ovr)
    top = votes == votes.max(axis=1, keepdims=True)
    unique = top.sum(axis=1) == 1
    pred = est.predict(Xt)
    np.testing.assert_array_equal(est.classes_[np.argmax(ovr, axis=1)][unique], pred[unique])
    np.testing.assert_array_equal(est.classes_[np.argmax(top, axis=1)], pred)


def test_per_pair_theta(data):
    X, y, Xt, yt = data
    est = BoundSVC(loss="l1", multiclass_theta="per-pair").fit(X, y)
    assert set(est.best_params_) == {(5, 7), (5, 9), (7, 9)}
    assert est.best_theta_.shape == (3, 2) and est.kernel_ is None
    # each pair is the binary BoundSVC of that pair (checked for one)
    for (a, b), sub, m in zip([(5, 9)], est.pair_estimators_[1:], est.pair_models_[1:]):
        rows = (y == a) | (y == b)
        ref = BoundSVC(loss="l1").fit(X[rows], (y[rows] == a).astype(int))
        np.testing.assert_array_equal(ref.best_theta_, m.theta)
        np.testing.assert_allclose(ref.decision_function(Xt), sub.decision_function(Xt))
    dec = est.set_params(decision_function_shape="ovo").decision_function(Xt)
    np.testing.assert_array_equal(est.predict(Xt), est.classes_[vote(dec, 3)])
    assert est.score(Xt, yt) > 0.7
    if len({m.kernel.sigma2 for m in est.pair_models_}) > 1:
        with pytest.raises(ValueError, match="one kernel per class pair"):
            est.to_svc()


def test_degenerate_model_is_never_silent(data):
    """ln C = −10 with a huge σ²: the pair machines predict one class — warned, and listed in
    search_.problems per pair and for the voting machine."""
    X, y, _, _ = data
    est = BoundSVC(loss="l1", search="grid", grid={"log_C": (-10, -10, 1),
                                                   "log_sigma2": (10, 10, 1)})
    with pytest.warns(ModelWarning, match="pair 5 vs 7: the model predicts one class"):
        est.fit(X, y)
    assert any("voting machine" in p or "one class for every" in p
               for p in est.search_.problems)
    assert len(est.search_.pair_problems) >= 3


def test_ovo_helpers_follow_libsvm():
    assert class_pairs(4) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    # f = 0 votes for the second class (LIBSVM: dec > 0 → i, else j); ties to the smaller index
    np.testing.assert_array_equal(vote(np.array([[0.0, -1.0, 1.0]]), 3), [1])
    np.testing.assert_array_equal(vote(np.array([[1.0, -1.0, 1.0]]), 3), [0])
    dec = np.random.RandomState(0).randn(7, 6)
    from sklearn.utils.multiclass import _ovr_decision_function
    from svmbound.ovo import _ovr_decision_function_copy
    np.testing.assert_array_equal(ovr_decision(dec, 4), _ovr_decision_function(dec < 0, -dec, 4))
    np.testing.assert_array_equal(_ovr_decision_function_copy(dec < 0, -dec, 4),
                                  ovr_decision(dec, 4))


def test_two_classes_stay_binary(data):
    X, y, Xt, _ = data
    rows = y != 9
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        est = BoundSVC(loss="l1", max_iter=3).fit(X[rows], y[rows])
    assert est.dual_coef_.shape[0] == 1 and est.decision_function(Xt).shape == (len(Xt),)
    assert not hasattr(est, "pair_models_")


def test_search_log_and_resume_with_the_summed_criterion(data, tmp_path):
    """The summed criterion is one logged criterion: a resumed run answers every evaluation
    from the log (no line added) and ends at the same θ; its warm state holds every pair's."""
    X, y, _, _ = data
    log = tmp_path / "mc.jsonl"
    kw = dict(loss="l2", criterion="rm-l2", max_iter=4, log_file=str(log), random_state=0)
    a = BoundSVC(**kw).fit(X, y)
    n_lines = len(log.read_text().splitlines())
    assert n_lines == 1 + a.search_.nfev
    b = BoundSVC(resume=True, **kw).fit(X, y)
    assert len(log.read_text().splitlines()) == n_lines
    np.testing.assert_array_equal(a.best_theta_, b.best_theta_)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-8)


# -------------------------------------------------------------------------------------------
# class_weight / sample_weight with three or more classes
# -------------------------------------------------------------------------------------------
def _weighted_blobs():
    from sklearn.datasets import make_blobs

    return make_blobs(n_samples=[50, 30, 15], centers=[[0, 0], [3, 0], [0, 3]],
                      cluster_std=2.0, random_state=0)


_LC, _LS = 0.5, 1.0   # the fixed θ: ln C, ln σ²


def _fixed_theta_fit(X, y, sample_weight=None, **params):
    import warnings

    from svmbound import BoundSVC

    grid = {"log_C": (_LC, _LC, 1), "log_sigma2": (_LS, _LS, 1)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BoundSVC(loss="l1", search="grid", grid=grid, criterion="cv-error", tol=1e-8,
                        decision_function_shape="ovo", **params).fit(
            X, y, sample_weight=sample_weight)


@pytest.mark.parametrize("theta", ["shared", "per-pair"])
@pytest.mark.parametrize("weighting", ["dict", "balanced", "sample", "sample-zeros", "both"])
def test_weighted_multiclass_matches_libsvm(theta, weighting):
    from sklearn.svm import SVC

    X, y = _weighted_blobs()
    rng = np.random.RandomState(1)
    cw = sw = None
    if weighting in ("dict", "both"):
        cw = {0: 1.0, 1: 3.0, 2: 0.5}
    if weighting == "balanced":
        cw = "balanced"
    if weighting in ("sample", "both"):
        sw = rng.uniform(0.2, 2.0, y.size)
    if weighting == "sample-zeros":
        sw = rng.uniform(0.2, 2.0, y.size)
        sw[::7] = 0.0
    est = _fixed_theta_fit(X, y, sw, class_weight=cw, multiclass_theta=theta)
    ref = SVC(C=np.exp(_LC), gamma=1 / (2 * np.exp(_LS)), class_weight=cw, tol=1e-10,
              decision_function_shape="ovo").fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X), atol=1e-6)
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))
    np.testing.assert_allclose(est.class_weight_, ref.class_weight_)
    if weighting == "sample-zeros":
        # rows of the X given to fit (as binary BoundSVC); SVC's index the rows of weight > 0
        kept = np.flatnonzero(sw > 0)
        np.testing.assert_array_equal(np.sort(est.support_), np.sort(kept[ref.support_]))
        assert est.shape_fit_ == X.shape


@pytest.mark.parametrize("theta", ["shared", "per-pair"])
def test_unit_weights_reproduce_unweighted_multiclass(theta):
    X, y = _weighted_blobs()
    plain = _fixed_theta_fit(X, y, multiclass_theta=theta)
    ones = _fixed_theta_fit(X, y, np.ones(y.size), class_weight={0: 1.0, 1: 1.0, 2: 1.0},
                            multiclass_theta=theta)
    np.testing.assert_array_equal(ones.decision_function(X), plain.decision_function(X))
    np.testing.assert_array_equal(ones.support_, plain.support_)
    np.testing.assert_array_equal(plain.class_weight_, np.ones(3))


def test_balanced_improves_minority_recall_multiclass():
    """Default strategy (bounds + voting CV counting weighted errors), imbalanced 3 classes."""
    import warnings

    from sklearn.datasets import make_classification
    from sklearn.metrics import recall_score

    from svmbound import BoundSVC

    X, y = make_classification(n_samples=300, n_features=4, n_informative=3, n_redundant=0,
                               n_classes=3, n_clusters_per_class=1, weights=[0.75, 0.2, 0.05],
                               class_sep=0.6, flip_y=0, random_state=3)
    Xt, yt = make_classification(n_samples=3000, n_features=4, n_informative=3, n_redundant=0,
                                 n_classes=3, n_clusters_per_class=1,
                                 weights=[0.75, 0.2, 0.05], class_sep=0.6, flip_y=0,
                                 random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = BoundSVC(max_iter=10).fit(X, y)
        bal = BoundSVC(max_iter=10, class_weight="balanced").fit(X, y)
    r_plain = recall_score(y, plain.predict(X), average=None)
    r_bal = recall_score(y, bal.predict(X), average=None)
    assert r_bal[2] > r_plain[2], (r_plain, r_bal)
    assert bal.search_.message.count("weighted") == 1


def test_break_ties_predicts_the_largest_ovr_decision_value():
    """break_ties=True (as SVC's): the class of the largest one-vs-rest decision value, which
    agrees with the vote wherever the vote has no tie; a ValueError with the 'ovo' shape."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    est = BoundSVC(random_state=0).fit(X, y)
    voted = est.predict(X)
    est.set_params(break_ties=True)
    broken = est.predict(X)
    np.testing.assert_array_equal(broken, est.classes_[np.argmax(est.decision_function(X), 1)])
    votes = est.decision_function(X).round()       # SVC's ovr values: votes + confidences/3
    clear = np.sort(votes, axis=1)[:, -1] > np.sort(votes, axis=1)[:, -2]
    np.testing.assert_array_equal(broken[clear], voted[clear])
    est.set_params(decision_function_shape="ovo")
    with pytest.raises(ValueError, match="break_ties must be False"):
        est.predict(X)


def test_weights_follow_the_subsampled_rows_into_every_pair():
    """From 2,000 rows the searches run on a subsample (strategy step 5): each pair's criterion
    gets the weights of its rows of that subsample (a weighted multi-class fit there raised
    "weights has 2000 entries, but there are 1000 samples": the pairs were given every row's
    weights). Uniform weights s give the pick of unit weights with C divided by s."""
    X, y = make_classification(n_samples=2400, n_features=5, n_informative=3, n_redundant=0,
                               n_classes=3, random_state=0)
    ref = BoundSVC(random_state=0).fit(X, y)
    m = BoundSVC(random_state=0).fit(X, y, sample_weight=np.full(y.size, 4.0))
    assert m.search_.subsample is not None and ref.search_.subsample is not None
    assert m.best_params_["C"] * 4.0 == pytest.approx(ref.best_params_["C"], rel=1e-5)
    assert m.best_params_["sigma2"] == pytest.approx(ref.best_params_["sigma2"], rel=1e-5)
    np.testing.assert_array_equal(m.predict(X), ref.predict(X))
