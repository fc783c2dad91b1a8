"""svmbound._parallel.parallel_map: order, the shared kernel-row cache budget, nesting."""

import functools

import numpy as np
import pytest

from svmbound._parallel import parallel_map
from svmbound.solvers.qp import cache_buffer, cache_share, cache_share_scope


def test_results_keep_the_order_of_the_items():
    assert parallel_map(lambda x: x * x, range(7), 2) == [x * x for x in range(7)]


@pytest.fixture
def four_cpus(monkeypatch):
    """parallel_map sees 4 usable CPUs, whatever this machine has."""
    from svmbound import _parallel

    monkeypatch.setattr(_parallel, "usable_cpus", lambda: 4)


@pytest.mark.parametrize("n_jobs, n_items, share", [(1, 3, 1.0), (2, 3, 0.5), (2, 1, 1.0),
                                                    (3, 2, 0.5), (-1, 1, 1.0), (8, 6, 0.25)])
def test_each_worker_gets_its_part_of_the_cache(n_jobs, n_items, share, four_cpus):
    assert parallel_map(lambda _: cache_share(), range(n_items), n_jobs) == [share] * n_items


def _threads(n_items, n_jobs):
    import threading
    import time

    def ident(_):
        time.sleep(0.01)   # overlap: every worker takes items
        return threading.get_ident()

    return set(parallel_map(ident, range(n_items), n_jobs))


def test_no_more_threads_than_usable_cpus(four_cpus):
    assert len(_threads(12, 8)) == 4


def test_worker_cap_holds_in_the_block_and_in_nested_calls(four_cpus):
    import threading

    from svmbound._parallel import n_workers, worker_cap

    with worker_cap(1):
        assert _threads(4, 4) == {threading.get_ident()} and n_workers(4) == 1
    with worker_cap(2):
        inner = parallel_map(lambda _: (n_workers(4), len(_threads(6, 4))), range(2), 2)
        assert inner == [(2, 2), (2, 2)]
        with worker_cap(3):          # a cap inside a cap keeps the smaller one
            assert n_workers(4) == 2
    assert n_workers(4) == 4 and len(_threads(8, 4)) == 4


def test_a_process_backend_is_not_capped_by_the_cpus(four_cpus):
    import joblib

    from svmbound._parallel import n_workers, worker_cap

    with joblib.parallel_config(backend="loky"), worker_cap(1):
        assert n_workers(8) == 8


def test_the_work_wrapper_pickles_by_reference():
    """Workers of loky and dask receive the wrapped function pickled: the wrapper is a partial
    of a module-level function (plain pickle takes it when the work function is one too)."""
    import pickle

    from svmbound import _parallel

    call = functools.partial(_parallel._call_in_context, abs, (0.5, 1), ("elsewhere", -1), 1,
                             None)
    assert pickle.loads(pickle.dumps(call))(-3) == 3


def test_nested_calls_split_the_share_again_and_restore_it():
    inner = parallel_map(lambda _: parallel_map(lambda _: cache_share(), range(2), 2),
                         range(2), 2)
    assert inner == [[0.25, 0.25], [0.25, 0.25]]
    assert cache_share() == 1.0


def test_the_cache_buffer_holds_the_share_of_the_rows():
    n = 1000   # 4 kB a float32 row: 1 MB holds 262 rows, half of it 131, a quarter 65
    shapes = [cache_buffer(n, 1.0).shape]
    for share in (0.5, 0.25):
        with cache_share_scope(share):
            shapes.append(cache_buffer(n, 1.0).shape)
    assert shapes == [(262, n), (131, n), (65, n)]
    assert cache_share() == 1.0


def test_the_row_type_does_not_depend_on_the_share():
    n = 1000   # all 1000 float64 rows fit in 8 MB: float64, also with a quarter of it
    with cache_share_scope(0.25):
        buf = cache_buffer(n, 8.0)
    assert buf.dtype == np.float64 and buf.shape == (262, n)


def test_a_small_share_gives_the_same_solution():
    """Fewer cached rows only means rows recomputed: the solve is the same."""
    from sklearn.datasets import make_classification

    from svmbound.kernels import RBFKernel
    from svmbound.solvers import solve_svm_dual

    X, y = make_classification(n_samples=400, n_features=5, random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    full = solve_svm_dual(X, y, RBFKernel(2.0), 10.0, loss="l1", tol=1e-6, cache_size=2.0)
    with cache_share_scope(0.02):   # 40 kB: 12 rows of 400
        small = solve_svm_dual(X, y, RBFKernel(2.0), 10.0, loss="l1", tol=1e-6, cache_size=2.0)
    np.testing.assert_array_equal(full.alpha, small.alpha)
    assert full.b == small.b


def test_the_radius_qp_beside_the_svm_solve_shares_the_cache(monkeypatch):
    """solve_svm_and_radius runs two solves at once: each gets half of the caller's share,
    also in the radius QP's own thread (a thread-local share is not inherited)."""
    from sklearn.datasets import make_classification

    from svmbound.criteria import base, make_criterion
    from svmbound.kernels import RBFKernel
    from svmbound.solvers import Problem

    monkeypatch.setattr(base, "RADIUS_THREAD_MIN_ROWS", 0)     # two threads on 60 rows too
    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    crit = make_criterion("rm-l2", Problem(X, np.where(y == 1, 1.0, -1.0)), RBFKernel(2.0))
    seen = {}
    svm, radius = crit.solve_svm, crit.solve_radius

    def spy_svm(*a, **k):
        seen["svm"] = cache_share()
        return svm(*a, **k)

    def spy_radius(*a, **k):
        seen["radius"] = cache_share()
        return radius(*a, **k)

    crit.solve_svm, crit.solve_radius = spy_svm, spy_radius
    with cache_share_scope(0.5):
        crit.evaluate([0.0, np.log(2.0)])
    assert seen == {"svm": 0.25, "radius": 0.25}


def test_the_radius_qp_runs_beside_the_svm_alone_else_after_it(monkeypatch):
    """One evaluation alone: the radius QP in a second thread (from ``RADIUS_THREAD_MIN_ROWS``
    rows; after the SVM in the same thread below). In a worker of a parallel call: in the
    worker's own thread, after the SVM; the same values every way."""
    import threading

    from sklearn.datasets import make_classification

    import svmbound._parallel as par
    from svmbound._parallel import in_pool_worker, parallel_map
    from svmbound.criteria import base, make_criterion
    from svmbound.kernels import RBFKernel
    from svmbound.solvers import Problem

    X, y = make_classification(n_samples=80, n_features=4, random_state=1)
    y = np.where(y == 1, 1.0, -1.0)
    points = [[0.0, 0.5], [1.0, 1.0]]
    started, evaluated = (threading.Barrier(len(points), timeout=30) for _ in range(2))

    def evaluate(theta, wait=False):
        if wait:        # both workers hold their cores until both have evaluated
            started.wait()
        crit = make_criterion("rm-l2", Problem(X, y), RBFKernel(2.0))
        threads = {}
        svm, radius = crit.solve_svm, crit.solve_radius

        def spy_svm(*a, **k):
            threads["svm"] = threading.get_ident()
            return svm(*a, **k)

        def spy_radius(*a, **k):
            threads["radius"] = threading.get_ident()
            return radius(*a, **k)

        crit.solve_svm, crit.solve_radius = spy_svm, spy_radius
        ev = crit.evaluate(theta)
        if wait:
            evaluated.wait()
        return ev.value, ev.grad, threads["svm"] == threads["radius"], in_pool_worker()

    monkeypatch.setattr(base, "RADIUS_THREAD_MIN_ROWS", 81)     # 80 rows: one thread
    small = [evaluate(p) for p in points]
    assert [a[2:] for a in small] == [(True, False)] * 2
    monkeypatch.setattr(base, "RADIUS_THREAD_MIN_ROWS", 80)
    alone = [evaluate(p) for p in points]
    assert [a[2:] for a in alone] == [(False, False)] * 2
    for a, b in zip(alone, small):
        assert a[0] == b[0]
        np.testing.assert_array_equal(a[1], b[1])
    for cpus in (2, 4):
        monkeypatch.setattr(par, "usable_cpus", lambda cpus=cpus: cpus)
        pooled = parallel_map(lambda p: evaluate(p, wait=True), points, 2)
        assert [p[2:] for p in pooled] == [(True, True)] * 2, cpus
        for a, p in zip(alone, pooled):
            assert a[0] == p[0]
            np.testing.assert_array_equal(a[1], p[1])
    assert not in_pool_worker()


def test_calls_from_outside_a_pool_reuse_kept_threads_and_nested_calls_get_their_own():
    """Top-level calls run on threads kept for the process; a call made inside a worker runs
    on a pool of its own (were it queued on the kept pool behind its caller, it would wait for
    ever with two workers both waiting)."""
    import threading

    from svmbound._parallel import parallel_map

    def thread(_):
        return threading.current_thread()

    seen = set()
    for _ in range(4):
        seen |= set(parallel_map(thread, range(6), 2))
    assert len(seen) <= 2 and threading.current_thread() not in seen
    assert all(t.is_alive() for t in seen)          # kept between the calls

    def nested(_):
        return threading.current_thread(), set(parallel_map(thread, range(4), 2))

    for outer, inner in parallel_map(nested, range(2), 2):
        assert outer in seen or len(seen) < 2
        assert not inner & seen and outer not in inner


def test_threads_by_default_and_the_callers_backend_otherwise():
    import threading

    import joblib

    from svmbound._parallel import _threads_backend

    seen = _threads(6, 2)
    assert len(seen) == 2 and threading.get_ident() not in seen
    assert _threads_backend()
    with joblib.parallel_config(backend="threading"):
        assert _threads_backend()
    with joblib.parallel_config(backend="loky"):
        assert not _threads_backend()


def test_an_error_in_a_worker_reaches_the_caller():
    def boom(x):
        if x == 3:
            raise ValueError("item 3")
        return x

    with pytest.raises(ValueError, match="item 3"):
        parallel_map(boom, range(5), 2)


def test_follow_up_work_starts_when_its_item_ends_not_after_all_items(four_cpus):
    """parallel_map_then: the follow-up of the item that ends first runs while another item
    still runs. Item 0 waits for an event that only item 1's follow-up sets: run one after the
    other, it would time out."""
    import threading

    from svmbound._parallel import parallel_map_then

    follow_up_ran = threading.Event()

    def fn(i):
        if i == 0:
            return follow_up_ran.wait(timeout=10.0)     # True only if the follow-up ran meanwhile
        return "quick"

    def then(i, result):
        return [("set", i)] if i == 1 else [("noop", i), ("noop", i)]

    def gn(task):
        if task[0] == "set":
            follow_up_ran.set()
        return task

    results, follow = parallel_map_then(fn, [0, 1], then, gn, 2)
    assert results == [True, "quick"]
    assert follow == [[("noop", 0), ("noop", 0)], [("set", 1)]]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_follow_up_results_keep_the_order_of_items_and_tasks(n_jobs):
    from svmbound._parallel import parallel_map_then

    results, follow = parallel_map_then(lambda x: x * 10, range(4),
                                        lambda i, r: [(r, j) for j in range(i)],
                                        lambda t: t[0] + t[1], n_jobs)
    assert results == [0, 10, 20, 30]
    assert follow == [[], [10], [20, 21], [30, 31, 32]]


def _solves_until_stopped(seconds=30.0):
    """Small SVM solves one after another for up to ``seconds``; returns how long it ran. A
    solve whose stop flag is set raises SolverInterrupted, which ends it."""
    import time

    from sklearn.datasets import make_classification

    from svmbound.kernels import RBFKernel
    from svmbound.solvers import solve_svm_dual

    X, y = make_classification(n_samples=300, n_features=8, random_state=0)
    y = np.where(y > 0, 1.0, -1.0)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        solve_svm_dual(X, y, RBFKernel(sigma2=4.0), 10.0, tol=1e-3)
    return time.perf_counter() - t0


@pytest.mark.parametrize("then", [False, True])
def test_a_failing_worker_stops_the_solves_of_the_others_at_once(then, four_cpus):
    """An error in one worker (or a Ctrl-C while the caller waits) ends the call within a
    fraction of a second: the other workers' solves stop on the call's flag instead of running
    their tasks to the end (here 30 s of solves)."""
    import time

    from svmbound._parallel import parallel_map_then

    def fn(i):
        if i == 0:
            return _solves_until_stopped()
        time.sleep(0.3)                      # the long task is well under way
        raise ValueError("worker 1 failed")

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="worker 1 failed"):
        if then:
            parallel_map_then(fn, [0, 1], lambda i, r: [], lambda t: t, 2)
        else:
            parallel_map(fn, [0, 1], 2)
    assert time.perf_counter() - t0 < 5.0


def test_a_call_made_by_a_stopped_worker_starts_stopped(four_cpus):
    """A worker whose call was stopped may still start a nested call: its solves stop at once
    too (the nested call's flag starts set)."""
    from svmbound.solvers import SolverInterrupted
    from svmbound.solvers.interrupt import StopFlag, stop_scope

    outer = StopFlag()
    outer.set()
    with outer, stop_scope(outer):
        with pytest.raises(SolverInterrupted):
            parallel_map(lambda _: _solves_until_stopped(), [0, 1], 2)


@pytest.mark.parametrize("pool", ["leaf_pool()", "_kept_pool(2)"])
def test_a_worker_left_unregistered_by_a_ctrl_c_does_not_hang_the_exit(pool):
    """A Ctrl-C in the main thread while ``submit`` starts a pool's worker (``Thread.start``
    waits for it) leaves the worker out of concurrent.futures' list of threads to wake at exit;
    the kept pools wake their own: the process exits instead of joining it forever."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(f"""
        import concurrent.futures.thread as cft
        from svmbound._parallel import leaf_pool, _kept_pool
        pool = {pool}
        pool.submit(int).result()
        for t in list(pool._threads):
            cft._threads_queues.pop(t, None)     # as after the interrupted start
        print("left", len(pool._threads), flush=True)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0 and out.stdout.strip() == "left 1", out.stderr
