"""The default strategy on large data (strategy step 5, ``BoundSVC(tune_subsample=m)``): the
searches on a stratified subsample, the pick by a hold-out error on other rows, the final SVM
on every row; and the explicit folds of the CV criteria that the hold-out is made of."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.svm import SVC

from svmbound import BoundSVC
from svmbound.criteria import Problem, make_criterion
from svmbound.criteria.reference import check_folds
from svmbound.kernels import RBFKernel
from svmbound.solvers import decision_function, solve_svm_dual
from svmbound.strategy import DEFAULT_CONFIG, ISOTROPIC_CONFIG, tuning_rows
from svmbound.strategy.rows import search_rows
from svmbound.strategy.ard import candidate_kernel

VALIDATION_FACTOR = DEFAULT_CONFIG.validation_factor


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=600, n_features=6, n_informative=4, weights=[0.8],
                               flip_y=0.02, random_state=1)
    return X, y


@pytest.mark.parametrize("n, m", [(200, 100), (200, 150), (50, None)])
def test_every_row_is_used_up_to_twice_the_subsample(n, m):
    assert tuning_rows(np.arange(n) % 2, m, 0) is None


@pytest.mark.parametrize("n, rows", [(2000, 1000), (4001, 2000), (5000, 2500), (9000, 2500),
                                     (20000, 2500), (32000, 4000), (48000, 5000)])
def test_from_half_split_rows_the_searches_use_a_subsample_and_others_validate(n, rows):
    """From ``half_split_rows`` rows (issue 32) the searches use min(n/2, m, max(m/2, n/8))
    stratified rows of a binary problem (m = 5,000) and up to 4 times as many others validate;
    below, every row."""
    y = (np.arange(n) % 3 == 0).astype(int)
    S, V = tuning_rows(y, 5000, 0)
    assert search_rows(n, 5000, DEFAULT_CONFIG.search_share) == rows
    assert abs(S.size - rows) <= 2 and V.size == min(n - S.size, VALIDATION_FACTOR * S.size)
    assert np.intersect1d(S, V).size == 0
    assert abs(y[S].mean() - y.mean()) <= 2.0 / S.size
    assert tuning_rows(y[:DEFAULT_CONFIG.half_split_rows - 1], 5000, 0) is None
    assert tuning_rows(y, None, 0) is None


@pytest.mark.parametrize("n, n_b, rows", [(10000, None, 2500), (30000, 30000, 3750),
                                          (10000, 4000, 5000), (15000, 1200, 5000),
                                          (12000, 8000, 3750), (4435, 2000, 2217)])
def test_the_share_caps_the_largest_binary_problem_searched(n, n_b, rows):
    """Beyond m/2 rows the searches hold at most an eighth of the rows of the largest binary
    problem they solve (issue 32: its cost): n for a binary one; one-vs-one, the two largest
    classes — 26 classes of 15,000 rows (letter) keep min(n/2, m), as does the search without
    the share (``search_share=None``, BoundSVR's)."""
    share = DEFAULT_CONFIG.search_share
    assert search_rows(n, 5000, share, n_b) == rows
    assert search_rows(n, 5000, None, n_b) == min(n // 2, 5000)
    # the largest pair of the subsample has at most max(m/2, share·n_b) rows (within rounding)
    b = n if n_b is None else n_b
    assert rows * b / n <= max(2500, share * b) + 1


def test_a_one_vs_one_fit_subsamples_by_its_largest_pair():
    """The estimator's multi-class fit passes its largest pair to the rule: 6,000 rows of 12
    balanced classes (pairs of 1,000 rows) search on one half, 3,000 rows; 6,000 rows of 2
    classes on 2,500 (m/2)."""
    from svmbound.strategy.tune import _rows

    rng = np.random.RandomState(0)
    X = rng.randn(6000, 3)
    for k, rows in ((12, 3000), (2, 2500)):
        y = np.arange(6000) % k
        problem = Problem(X, y if k > 2 else np.where(y == 1, 1.0, -1.0))
        split, searched, validated, _ = _rows(problem, 5000, None, 0, 5, DEFAULT_CONFIG)
        assert abs(split[0].size - rows) <= k and searched.n == split[0].size
        assert validated.n == split[0].size + split[1].size


@pytest.mark.parametrize("n, m, n_classes", [(1000, 100, 2), (201, 100, 3), (5000, 300, 7)])
def test_tuning_rows_are_stratified_disjoint_and_reproducible(n, m, n_classes):
    rng = np.random.RandomState(0)
    y = rng.choice(n_classes, size=n, p=np.r_[0.5, np.full(n_classes - 1, 0.5 / (n_classes - 1))])
    y[:n_classes] = np.arange(n_classes)            # every class present, some rare
    S, V = tuning_rows(y, m, 3)
    rows = search_rows(n, m, DEFAULT_CONFIG.search_share)
    assert abs(S.size - rows) <= n_classes
    assert V.size == min(n - S.size, VALIDATION_FACTOR * rows) or abs(
        V.size - VALIDATION_FACTOR * rows) <= n_classes
    assert np.intersect1d(S, V).size == 0
    assert set(np.unique(y[S])) == set(range(n_classes))
    for part in (S, V):   # class shares within a row or two per class of the data's
        share = np.bincount(y[part], minlength=n_classes) / part.size
        assert np.all(np.abs(share - np.bincount(y, minlength=n_classes) / n)
                      <= 2.0 / part.size + 1e-12)
    S2, V2 = tuning_rows(y, m, 3)
    assert np.array_equal(S, S2) and np.array_equal(V, V2)
    assert not np.array_equal(S, tuning_rows(y, m, 4)[0])


def test_hold_out_criterion_counts_the_errors_of_the_model_trained_on_the_first_part(data):
    X, y = data
    y_pm = np.where(y == 1, 1.0, -1.0)
    S, V = np.arange(0, 600, 3), np.setdiff1d(np.arange(600), np.arange(0, 600, 3))
    C, sigma2 = 2.0, 3.0
    crit = make_criterion("cv-error", Problem(X, y_pm), RBFKernel(sigma2), loss="l1", tol=1e-8,
                          folds=[(S, V)])
    ev = crit.evaluate([np.log(C), np.log(sigma2)], need_grad=False)
    svc = SVC(C=C, gamma=1 / (2 * sigma2), tol=1e-8).fit(X[S], y_pm[S])
    errors = int(np.count_nonzero(svc.decision_function(X[V]) * y_pm[V] < 0))
    assert ev.value == errors
    assert ev.info["rate"] == pytest.approx(errors / V.size)
    assert crit.n_folds == 1


@pytest.mark.parametrize("folds, match", [
    ([(np.arange(5), np.arange(4, 9))], "both the training and the test"),
    ([(np.arange(5), np.array([5, 10]))], "indices must be in 0..9"),
    ([(np.arange(5), np.array([], dtype=int))], "non-empty"),
    ([(np.arange(5.0), np.arange(5, 10))], "row indices"),
    ([], "at least one"),
])
def test_bad_folds_are_refused(folds, match):
    with pytest.raises(ValueError, match=match):
        check_folds(folds, 10)


def test_large_data_searches_a_subsample_and_trains_on_every_row(data):
    X, y = data
    box = dict(start=[0.0, 1.0], bounds=[(-5.0, 5.0), (-4.0, 6.0)], random_state=0)
    est = BoundSVC(tune_subsample=100, n_jobs=2, **box).fit(X, y)
    sub = est.search_.subsample
    rows = search_rows(600, 100, DEFAULT_CONFIG.search_share)   # an eighth of 600 beyond 50
    assert rows == 75
    assert sub == {"search": rows, "validation": VALIDATION_FACTOR * rows, "of": 600}
    assert "hold-out error" in est.search_.message
    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    S, V = tuning_rows(y_pm, 100, 0)
    # the bound searches are those of the default strategy on the subsample alone
    alone = BoundSVC(tune_subsample=None, **box).fit(X[S], y[S])
    for name, stage in est.search_.stages.items():
        np.testing.assert_array_equal(stage.x, alone.search_.stages[name].x)
    # each candidate's hold-out errors are those of the SVM trained on S, counted on V
    for cand in est.search_.candidates:
        kernel = candidate_kernel(cand["x"], RBFKernel(1.0), X.shape[1], 2)  # or per-feature
        ours = make_criterion("cv-error", Problem(X, y_pm), kernel, loss="l2", tol=1e-8,
                              folds=[(S, V)]).evaluate(cand["x"], need_grad=False)
        assert cand["cv_errors"] == ours.value
        assert cand["cv_rate"] == pytest.approx(ours.value / V.size)
    # the final model is trained on every row: support vectors from outside the subsample
    assert np.setdiff1d(est.support_, S).size > 0


def test_tune_subsample_none_uses_every_row(data):
    X, y = data
    est = BoundSVC(tune_subsample=None, random_state=0).fit(X[:300], y[:300])
    assert est.search_.subsample is None and "5-fold CV error" in est.search_.message
    small = BoundSVC(random_state=0).fit(X[:300], y[:300])    # 300 ≤ 2·5000
    np.testing.assert_array_equal(small.best_theta_, est.best_theta_)


def test_multiclass_large_data_keeps_every_class():
    X, y = make_classification(n_samples=700, n_features=6, n_informative=4, n_classes=3,
                               weights=[0.6, 0.3, 0.1], random_state=2)
    est = BoundSVC(tune_subsample=120, random_state=0, n_jobs=2).fit(X, y)
    assert est.search_.subsample["of"] == 700
    assert est.score(X, y) > 0.8
    assert set(est.predict(X)) == {0, 1, 2}


def test_tune_subsample_is_validated():
    with pytest.raises(ValueError, match="tune_subsample"):
        BoundSVC(tune_subsample=3).fit(np.random.RandomState(0).randn(30, 2), np.arange(30) % 2)


def test_cli_tune_subsample(tmp_path, data):
    import json
    import subprocess
    import sys

    from sklearn.datasets import dump_svmlight_file

    X, y = data
    path = tmp_path / "train.libsvm"
    dump_svmlight_file(X, y, str(path))
    run = [sys.executable, "-m", "svmbound.cli", "tune", str(path), "--json", "--quiet"]
    out = subprocess.run(run + ["--tune-subsample", "100"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["subsample"] == {"search": 75, "validation": 300, "of": 600}
    bad = subprocess.run(run + ["--tune-subsample", "5"], capture_output=True, text=True)
    assert bad.returncode == 2 and "at least 10 rows" in bad.stderr


def test_large_data_with_csr_input_and_class_weights(data):
    """The subsample and the hold-out rows are taken from CSR X as from dense X, and carry the
    weights: the same candidates, errors (weighted) and pick as on the dense array."""
    import scipy.sparse as sp

    X, y = data
    X = np.where(np.abs(X) < 0.5, 0.0, X)          # a third of the entries zero
    kw = dict(tune_subsample=100, class_weight="balanced", random_state=0,
              strategy_config=ISOTROPIC_CONFIG)    # (CSR rows skip the per-feature search)
    dense = BoundSVC(**kw).fit(X, y)
    csr = BoundSVC(**kw).fit(sp.csr_matrix(X), y)
    assert csr.search_.subsample == dense.search_.subsample
    assert [c["source"] for c in csr.search_.candidates] == [
        c["source"] for c in dense.search_.candidates]
    for a, b in zip(csr.search_.candidates, dense.search_.candidates):
        np.testing.assert_allclose(a["x"], b["x"], rtol=1e-6, atol=1e-8)
        assert a["cv_errors"] == pytest.approx(b["cv_errors"], rel=1e-9)
    assert "weighted" in dense.search_.message
    np.testing.assert_allclose(csr.best_theta_, dense.best_theta_, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(csr.predict(sp.csr_matrix(X)), dense.predict(X))


@pytest.mark.parametrize("cache_mb", [200.0, 1000.0, 4096.0])
def test_span_memory_rows_is_the_largest_subsample_whose_span_memory_fits_half_the_cache(cache_mb):
    from svmbound.strategy import span_memory_rows

    MIN_MEMORY_ROWS = DEFAULT_CONFIG.min_memory_rows
    SPAN_WORKING_ARRAYS = DEFAULT_CONFIG.span_working_arrays

    m = span_memory_rows(cache_mb)
    need = lambda rows: SPAN_WORKING_ARRAYS * 8.0 * rows ** 2     # noqa: E731 - bytes
    assert need(m) <= cache_mb / 2 * 2**20 < need(m + 1)
    assert span_memory_rows(0.5) == MIN_MEMORY_ROWS


def test_a_small_cache_makes_the_searches_use_a_smaller_subsample():
    """With cache_size=5 MB the span search's memory caps m at MIN_MEMORY_ROWS: 2,100 rows are
    searched on 1,000 of them and validated on the other 1,100, where tune_subsample (5,000)
    alone searches one half."""
    MIN_MEMORY_ROWS = DEFAULT_CONFIG.min_memory_rows

    X, y = make_classification(n_samples=2100, n_features=5, random_state=2)
    assert BoundSVC(tune_subsample=5000).fit(X[:300], y[:300]).search_.subsample is None
    clf = BoundSVC(cache_size=5, tune_subsample=5000).fit(X, y)
    rows = search_rows(2100, MIN_MEMORY_ROWS)
    sub = clf.search_.subsample
    assert rows == MIN_MEMORY_ROWS and abs(sub["search"] - rows) <= 2
    assert sub["search"] + sub["validation"] == sub["of"] == 2100
    assert clf.support_vectors_.shape[1] == 5 and clf.score(X, y) > 0.8
    assert abs(BoundSVC(tune_subsample=5000).fit(X, y).search_.subsample["search"] - 1050) <= 2
    # tune_subsample=None: every row, whatever the memory
    from svmbound.strategy import tuning_rows as rows_of

    assert rows_of(y, None, 0) is None


def test_a_rare_class_keeps_every_row_up_to_twice_the_subsample():
    """From ``half_split_rows`` rows the halves are used only when every class has at least
    ``half_split_min_class`` rows: 2 positives of 2,400 would all be searched and none left to
    validate on, so the k-fold CV on every row picks; on more than 2·subsample rows the
    subsample stays (its memory)."""
    k = DEFAULT_CONFIG.half_split_min_class
    y = np.zeros(2400, int)
    y[:k - 1] = 1
    assert tuning_rows(y, 5000, 0) is None
    y[:k] = 1
    S, V = tuning_rows(y, 5000, 0)
    assert y[V].sum() >= k // 2 - 1 and y[S].sum() + y[V].sum() == k
    y = np.zeros(48000, int)
    y[:2] = 1
    assert abs(tuning_rows(y, 5000, 0)[0].size - 5000) <= 2
    X, yy = make_classification(n_samples=2400, n_features=5, random_state=0)
    yy = np.zeros(2400, int)
    yy[:2] = 1
    X[:2] += 3
    est = BoundSVC(random_state=0, n_jobs=2).fit(X, yy)
    assert est.search_.subsample is None and "fold CV" in est.search_.message


def test_a_hold_out_whose_training_part_comes_first_starts_from_the_given_solve(data):
    """``start_fold_from``: the fold training on rows 0..m−1 at (C, kernel) starts from a
    solution there (no SMO iteration when it is converged at the criterion's tolerance) and
    counts that model's errors on the held-out rows; a fold on other rows, or a solution on
    another number of rows, starts as before."""
    X, y = data
    y_pm = np.where(y == 1, 1.0, -1.0)
    m, theta = 200, np.array([np.log(4.0), np.log(2.0)])
    kernel = RBFKernel(2.0)
    sol = solve_svm_dual(X[:m], y_pm[:m], kernel, 4.0, loss="l2", tol=1e-3)
    f = decision_function(X[:m], y_pm[:m], sol.alpha, sol.b, kernel, X[m:])

    def first_fold(folds, start):
        crit = make_criterion("cv-error", Problem(X, y_pm), kernel, loss="l2", tol=1e-3,
                              folds=folds)
        if start is not None:
            crit.start_fold_from(4.0, kernel, start)
        return crit.run_piece(crit.pieces([theta])[0])[0]

    held = [(np.arange(m), np.arange(m, 600))]
    started, cold = first_fold(held, sol), first_fold(held, None)
    assert started[0].n_iter == 0 and cold[0].n_iter > 0
    np.testing.assert_array_equal(started[0].alpha, sol.alpha)
    np.testing.assert_allclose(started[3], f, rtol=1e-12, atol=1e-12)
    assert started[1] == int(np.count_nonzero(f * y_pm[m:] <= 0))
    shifted = [(np.arange(1, m + 1), np.arange(m + 1, 600))]      # not rows 0..m−1
    assert first_fold(shifted, sol)[0].n_iter == first_fold(shifted, None)[0].n_iter > 0
    unsorted = np.r_[np.arange(1, m - 1), m, m - 1]                 # m rows, last m − 1
    fold = [(unsorted, np.setdiff1d(np.arange(600), unsorted))]
    assert first_fold(fold, sol)[0].n_iter == first_fold(fold, None)[0].n_iter > 0
    other = solve_svm_dual(X[:m - 1], y_pm[:m - 1], kernel, 4.0, loss="l2", tol=1e-3)
    held2 = [(np.arange(m - 1), np.arange(m - 1, 600))]
    assert first_fold(held, other)[0].n_iter == cold[0].n_iter
    assert first_fold(held2, other)[0].n_iter == 0


def test_the_hold_out_at_a_bound_minimum_starts_from_that_search_solve(data, monkeypatch):
    """With a subsample the searches' own solves at their minima (on S, which the hold-out
    trains on) are handed to the validation: one per isotropic search of the estimator's loss
    whose last evaluation was its minimum, on |S| rows."""
    from svmbound.criteria.reference import CrossValidationError

    X, y = data
    seen = []
    inner = CrossValidationError.start_fold_from

    def record(self, C, kernel, sol):
        seen.append((C, kernel.theta.copy(), sol))
        return inner(self, C, kernel, sol)

    monkeypatch.setattr(CrossValidationError, "start_fold_from", record)
    box = dict(start=[0.0, 1.0], bounds=[(-5.0, 5.0), (-4.0, 6.0)], random_state=0)
    est = BoundSVC(tune_subsample=100, n_jobs=2, loss="l2", **box).fit(X, y)
    rows = est.search_.subsample["search"]
    assert seen and all(sol.alpha.size == rows and sol.loss == "l2" for _, _, sol in seen)
    minima = [np.asarray(s.x) for s in est.search_.stages.values()]
    for C, kern_theta, _ in seen:
        here = np.concatenate([[np.log(C)], kern_theta])
        assert any(np.allclose(here, x, rtol=0, atol=1e-12) for x in minima)
