"""svmbound's joblib calls on other backends than threads (issue 14, "Beyond one machine").

Under a process backend (a dask.distributed cluster, loky) every work function runs on a copy of
its objects, so state it changed in place would be lost: the CV folds' warm starts, the pair
criteria's warm starts and training counts. The work functions return that state instead
(``svmbound._parallel``); these tests check that a fit on worker processes gives the bits of
the ``n_jobs=1`` fit: θ, predictions, trainings, every evaluation of the search and every CV
candidate (whose values depend on the warm starts).
"""

import os

import joblib
import numpy as np
import pytest
from sklearn.datasets import make_classification
from threadpoolctl import threadpool_info, threadpool_limits

from svmbound import BoundSVC
from svmbound._parallel import parallel_map
from svmbound.criteria import make_criterion
from svmbound.criteria.pairs import pairwise_criterion
from svmbound.kernels import RBFKernel
from svmbound.solvers import Problem
from svmbound.solvers.qp import cache_share

distributed = pytest.importorskip("distributed")

BINARY = make_classification(n_samples=120, n_features=5, n_informative=3, flip_y=0.05,
                             random_state=0)
THREE = make_classification(n_samples=150, n_features=6, n_informative=4, n_classes=3,
                            n_clusters_per_class=1, random_state=1)
CASES = {"binary-l2": (dict(loss="l2"), BINARY), "binary-l1": (dict(loss="l1"), BINARY),
         "3-class": (dict(loss="l2"), THREE),
         "3-class-per-pair": (dict(loss="l1", multiclass_theta="per-pair"), THREE)}


@pytest.fixture(scope="module")
def client():
    """Two worker processes of one thread each: every task runs on a copy of its objects."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def assert_same_fit(a, b, X):
    """Same θ, decision values, every search evaluation and CV candidate, and trainings (the
    L2 searches' common solve at θ₀ is made once, before they go to the workers:
    ``StrategyConfig.share_cold_solves``)."""
    np.testing.assert_array_equal(a.best_theta_, b.best_theta_)
    assert b.n_trainings_ == a.n_trainings_
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert [(e["x"], e["value"]) for e in a.search_.path] == \
        [(e["x"], e["value"]) for e in b.search_.path]
    assert getattr(a.search_, "candidates", None) == getattr(b.search_, "candidates", None)


def evaluate_twice(crit):
    """Two evaluations, the second warm-started from the first (C changed, kernel not)."""
    x = np.array([0.0, 1.0])
    return [crit.evaluate(t, need_grad=False) for t in (x, x + [1.0, 0.0])]


@pytest.mark.parametrize("case", CASES)
def test_a_fit_on_dask_workers_is_the_fit_of_n_jobs_1(client, case):
    kw, (X, y) = CASES[case]
    one = BoundSVC(n_jobs=1, **kw).fit(X, y)
    with joblib.parallel_config(backend="dask"):
        cluster = BoundSVC(n_jobs=-1, **kw).fit(X, y)
    assert_same_fit(one, cluster, X)


def test_cv_folds_on_dask_workers_keep_their_warm_starts(client):
    X, y = BINARY
    y = np.where(y == 1, 1.0, -1.0)
    one = make_criterion("cv-error", Problem(X, y), RBFKernel(), loss="l1", n_jobs=1)
    with joblib.parallel_config(backend="dask"):
        crit = make_criterion("cv-error", Problem(X, y), RBFKernel(), loss="l1", n_jobs=-1)
        evs = evaluate_twice(crit)
    assert all(s is not None for s in crit._fold_prev)   # the fold solutions came back
    for a, b in zip(evaluate_twice(one), evs):   # SMO iterations count the warm start
        assert (a.value, a.info["n_iter"], a.info["hinge"]) == \
            (b.value, b.info["n_iter"], b.info["hinge"])


@pytest.mark.parametrize("name", ["span", "cv-error"])
def test_pair_criteria_on_dask_workers_keep_their_state(client, name):
    X, y = THREE
    one = pairwise_criterion(name, Problem(X, y), RBFKernel(), loss="l2", n_jobs=1)
    with joblib.parallel_config(backend="dask"):
        crit = pairwise_criterion(name, Problem(X, y), RBFKernel(), loss="l2", n_jobs=-1)
        evs = evaluate_twice(crit)
    for a, b in zip(evaluate_twice(one), evs):
        assert (a.value, a.info["n_iter"]) == (b.value, b.info["n_iter"])
    assert crit.n_trainings == one.n_trainings > 0


def blas_threads():
    return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")


def test_dask_runs_on_every_worker_thread_with_the_callers_cache_share_and_blas(client):
    """effective_n_jobs under dask: the cluster's 2 threads whatever n_jobs > 1; each of the
    2 workers gets half the cache and the caller's BLAS threads (the workers start with 1);
    n_jobs=1 runs in this process."""
    with joblib.parallel_config(backend="dask"):
        assert joblib.effective_n_jobs(8) == 2
        assert parallel_map(lambda _: cache_share(), range(3), 8) == [0.5] * 3
        assert os.getpid() not in parallel_map(lambda _: os.getpid(), range(2), -1)
        assert parallel_map(lambda _: os.getpid(), range(2), 1) == [os.getpid()] * 2
        for n in (1, 2):
            with threadpool_limits(n, user_api="blas"):
                assert parallel_map(lambda _: blas_threads(), range(2), -1) == [n, n]


def test_many_data_sets_tuned_at_once_on_the_cluster(client):
    sets = [make_classification(n_samples=80, n_features=4, random_state=s) for s in range(3)]
    with joblib.parallel_config(backend="dask"):
        fits = joblib.Parallel()(joblib.delayed(BoundSVC().fit)(X, y) for X, y in sets)
    for (X, y), fit in zip(sets, fits):     # each fit's two searches again on the cluster
        assert_same_fit(BoundSVC().fit(X, y), fit, X)


@pytest.mark.parametrize("case", ["binary-l2", "3-class"])
def test_a_fit_on_loky_processes_is_the_fit_of_n_jobs_1(case):
    kw, (X, y) = CASES[case]
    one = BoundSVC(n_jobs=1, **kw).fit(X, y)
    with joblib.parallel_config(backend="loky"):
        loky = BoundSVC(n_jobs=2, progress=True, **kw).fit(X, y)   # the bar stays here
    assert_same_fit(one, loky, X)
