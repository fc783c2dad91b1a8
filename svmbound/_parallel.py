"""One way to run independent pieces of work in parallel: joblib, threads by default.

Every parallel call of svmbound (the bound searches of the default strategy, the CV folds, the
one-vs-one pairs) goes through :func:`parallel_map`, so that three things hold everywhere:

* **threads by default**: the numba SMO and BLAS release the GIL, and the workers share the
  data without copies. When joblib would use threads (no other backend chosen) the work runs on
  a ``ThreadPoolExecutor`` kept for the process (a call made from a worker, nested, gets one of
  its own; joblib's threading backend costs ~12 ms a call);
  a joblib backend chosen by the caller (``joblib.parallel_config(backend="dask")``,
  ``parallel_backend("loky")``) runs it through ``joblib.Parallel(prefer="threads")``, where
  that backend takes precedence, as joblib's ``prefer`` is only a hint.
* **one cache budget**: each of the k concurrent workers solves with 1/k of the share of the
  kernel-row cache its caller had (``solvers.qp.cache_share``), so ``cache_size`` bounds the
  cache memory of all the solves running at once, nested calls included.
* **one thread budget**: likewise each of the k workers gets 1/k of its caller's solve threads
  (``solvers.qp.solve_threads``: the threads a large solve computes its kernel rows with; the
  estimators start with their ``n_jobs``), so the final training of a fit runs on every core
  while the concurrent solves of a search run on one each. The threads never change a result.
* **Ctrl-C** while waiting stops every solve still running in the other threads
  (``solvers.request_stop``) before the KeyboardInterrupt propagates. It stops only the solves
  of this process: work already sent to other processes (loky, dask workers) runs to its end
  there, and the progress bar and the partial search kept on Ctrl-C see only the evaluations
  made in this process.

**Work functions report back what they change.** Under a process backend (loky, a
dask.distributed cluster: ``pip install "svmbound[dask]"``, then
``with joblib.parallel_config(backend="dask"):`` inside a ``distributed.Client``) ``fn`` runs
on a copy of the objects it uses (pickled by cloudpickle), so whatever it changes in place is
lost: warm starts, training counters, convergence notes. So no work function changes state it
was given: it returns that state with its result and the caller applies it (the CV fold returns
its solution, a pair criterion its ``warm_state()``). Threads and processes then give the same
bits, and the same as ``n_jobs=1`` (the cache share only changes how many kernel rows are
kept, not their type: ``solvers.qp.cache_buffer``). Warnings raised in another process stay
there (the dask worker's log); what they report is in the results too (``info['converged']``,
``search_.problems``).

A worker in another process also gets the caller's BLAS thread count (threadpoolctl; the fit
runs BLAS on one thread): a loky worker would otherwise use cpu_count/n_jobs threads, and a
BLAS call on another number of threads may round differently in the last bit.

Under dask, ``effective_n_jobs`` is the number of worker threads of the cluster whatever
``n_jobs``, except 1. One worker (``n_jobs=1``, or one item) runs here, in the calling thread
(joblib's dask backend would still send ``n_jobs=1`` to the cluster). Each of the k workers of
a call gets 1/k of the cache share, as k threads would, so a run gives the bits of a threaded
run with k workers; the share is a budget per caller, not per machine (on several machines it
is more than needed, never less).
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager, nullcontext
from functools import partial

from ._blas import blas_threads, limit_blas
from .solvers import request_stop
from .solvers.interrupt import StopFlag, current_flag, stop_scope
from .solvers.qp import cache_share, cache_share_scope, solve_threads, solve_threads_scope

__all__ = ["parallel_map", "parallel_map_then", "n_workers", "leaf_pool", "in_pool_worker",
           "worker_cap", "usable_cpus"]

_leaf_pool = None
_leaf_pool_pid = None
_leaf_pool_lock = threading.Lock()


def leaf_pool():
    """A thread pool kept for the life of the process, for *leaf* tasks — work that never
    waits on other tasks of this pool (the radius QP solved beside the SVM of the same
    evaluation, ``Criterion.solve_svm_and_radius``), so that the pool cannot deadlock however
    many callers share it. Starting a thread per evaluation cost 0.1–1 ms, more than a whole
    solve on a 100-row problem. As many workers as CPUs (each task is one solve); made anew in
    a forked child (its threads do not survive a fork)."""
    global _leaf_pool, _leaf_pool_pid
    from concurrent.futures import ThreadPoolExecutor

    with _leaf_pool_lock:
        if _leaf_pool is None or _leaf_pool_pid != os.getpid():
            _leaf_pool = _woken_at_exit(ThreadPoolExecutor(
                max_workers=max(2, os.cpu_count() or 2), thread_name_prefix="svmbound-leaf"))
            _leaf_pool_pid = os.getpid()
        return _leaf_pool


def _woken_at_exit(pool):
    """``pool``, whose idle workers are told to end when the interpreter exits, before it waits
    for them (``threading._register_atexit``, as concurrent.futures does for the workers it has
    registered). A Ctrl-C raised in the main thread while ``submit`` starts a worker
    (``Thread.start`` waits for the new thread) leaves that worker out of concurrent.futures'
    own list: it was never woken, and the process hung at exit, joining it (1 of 10 first fits
    interrupted at random moments)."""
    register = getattr(threading, "_register_atexit", None)
    if register is not None:
        try:
            register(pool.shutdown, wait=False)
        except RuntimeError:        # (the interpreter is exiting already)
            pass
    return pool


_cap = threading.local()
_worker = threading.local()


def in_pool_worker() -> bool:
    """Whether this thread runs a task of a :func:`parallel_map` (or ``parallel_map_then``)
    call with several workers, i.e. whether the cores are already shared out: a solve made
    here starts no thread of its own (``Criterion.solve_svm_and_radius``)."""
    return getattr(_worker, "busy", False)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, e.g. ``taskset``), else ``os.cpu_count``."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


@contextmanager
def worker_cap(k: int | None):
    """Within the ``with`` block, :func:`parallel_map` calls made from this thread (and from
    the threads they start) use at most ``k`` threads (None: no cap). For work whose pieces are
    too small for threads to pay: the Python around each small solve holds the GIL, so extra
    threads only queue for it (``multiclass.pair_threads``)."""
    saved = getattr(_cap, "k", None)
    _cap.k = saved if k is None else (int(k) if saved is None else min(saved, int(k)))
    try:
        yield
    finally:
        _cap.k = saved


def _process() -> tuple:
    """(host name, process id): which process runs the code, on a cluster too."""
    import socket

    return socket.gethostname(), os.getpid()


def _call_in_context(fn, share, caller, blas_threads, cap, x, flag=None):
    """``fn(x)`` with the kernel-row cache share and the solve threads ``share`` = (fraction,
    threads) (thread-local: ``solvers.qp.cache_share``, ``solve_threads``), the caller's
    :func:`worker_cap` ``cap`` and, in a process other than the ``caller`` (``_process()``;
    None: a thread of the caller's), BLAS limited to the caller's ``blas_threads``; with a
    ``flag`` (threads only), every solve of ``fn`` stops on it (``solvers.interrupt.stop_scope``).
    Module-level, so that it pickles by reference (only ``fn`` needs cloudpickle)."""
    here = caller is None or _process() == caller
    busy = getattr(_worker, "busy", False)
    _worker.busy = True
    try:
        with cache_share_scope(share[0]), solve_threads_scope(share[1]), \
                limit_blas(None if here else blas_threads), worker_cap(cap), \
                (nullcontext() if flag is None else stop_scope(flag)):
            return fn(x)
    finally:
        _worker.busy = busy


@contextmanager
def _call_flag():
    """A stop flag for the worker threads of one call, registered while the call runs (Ctrl-C's
    ``request_stop`` reaches it) and already set when the calling thread's own flag is (a call
    made by a worker of an interrupted call). The caller sets it when the call fails (Ctrl-C
    while waiting, an error in one worker): the solves running in the other workers stop at
    their next iteration, and those they would start return at once, instead of the call
    waiting for every worker's whole task (both bound searches, on a Ctrl-C: seconds to
    minutes)."""
    outer = current_flag()
    with StopFlag() as flag:
        if outer is not None and outer.is_set:
            flag.set()
        yield flag


_kept_pools: dict = {}
_kept_pools_lock = threading.Lock()


def _kept_pool(workers: int):
    """A ``ThreadPoolExecutor`` of ``workers`` threads kept for the life of the process (made
    anew in a forked child), for the calls made outside any pool worker: starting the threads
    of a fresh pool at every call cost about 8 % of a tuning on the quick benchmark cases
    (``docs/lab-notebook.md``, "Where a small tuning waits: the GIL")."""
    from concurrent.futures import ThreadPoolExecutor

    key = (os.getpid(), workers)
    with _kept_pools_lock:
        pool = _kept_pools.get(key)
        if pool is None:
            pool = _kept_pools[key] = _woken_at_exit(ThreadPoolExecutor(
                max_workers=workers, thread_name_prefix="svmbound-worker"))
        return pool


class _CallPool:
    """The part of a kept pool that one call uses: ``submit`` as the executor's, each future
    remembered so that the call can wait for its own tasks (and only those) at its end."""

    def __init__(self, pool):
        self.pool = pool
        self.futures: list = []

    def submit(self, fn, *args, **kwargs):
        future = self.pool.submit(fn, *args, **kwargs)
        self.futures.append(future)
        return future


@contextmanager
def _stoppable_pool(workers: int):
    """(pool, flag): a thread pool of ``workers`` threads for one call and the call's stop flag
    (:func:`_call_flag`), set when the ``with`` block fails — before the call waits for its
    tasks, so that they stop instead of running to their end. The pool is a kept one
    (:func:`_kept_pool`) when the call is made outside any pool worker; a call made from a
    worker (a nested call: the multi-class pairs' own searches and folds) gets a pool of its
    own, so that no task ever waits for tasks queued behind it in the same pool. Either way
    the call returns only when every task it submitted has ended."""
    from concurrent.futures import ThreadPoolExecutor, wait

    with _call_flag() as flag:
        if in_pool_worker():
            with ThreadPoolExecutor(max_workers=workers) as pool:
                try:
                    yield pool, flag
                except BaseException:
                    flag.set()
                    raise
            return
        pool = _CallPool(_kept_pool(workers))
        try:
            yield pool, flag
        except BaseException:
            flag.set()
            raise
        finally:
            done = 0           # tasks may submit more (``parallel_map_then``): wait for those too
            while done < len(pool.futures):
                batch, done = pool.futures[done:], len(pool.futures)
                wait(batch)


def _threads_backend() -> bool:
    """Whether joblib would run ``Parallel(prefer="threads")`` on threads here: no other
    backend (dask, loky, ...) chosen by the caller with ``joblib.parallel_config``."""
    try:
        from joblib.parallel import get_active_backend

        backend, _ = get_active_backend(prefer="threads")
    except Exception:  # pragma: no cover - joblib without this helper: let joblib decide
        return False
    return type(backend).__name__ == "ThreadingBackend"


def n_workers(n_jobs, threads: bool | None = None) -> int:
    """How many workers ``parallel_map`` runs for ``n_jobs`` (given enough items): joblib's
    ``effective_n_jobs``, and on threads (``threads``; None: whether joblib would use them
    here) at most the usable CPUs and the :func:`worker_cap` — threads beyond the CPUs only
    wait for the GIL and for each other (letter, 2 cores: n_jobs=8 took 13.6 s against 8.2 s
    with 2). A process backend (loky, dask) has no GIL to share: its count is joblib's."""
    from joblib import effective_n_jobs

    workers = effective_n_jobs(n_jobs)
    if _threads_backend() if threads is None else threads:
        workers = min(workers, usable_cpus(), getattr(_cap, "k", None) or workers)
    return max(1, workers)


def _results_in_order(futures) -> list:
    """The results of ``futures`` in their order, once all have ended; as soon as one has
    failed, the exception of the first failed one in that order (the caller's pool then sets
    its stop flag: ``_stoppable_pool``)."""
    from concurrent.futures import FIRST_EXCEPTION, wait

    wait(futures, return_when=FIRST_EXCEPTION)
    for f in futures:
        if f.done() and f.exception() is not None:
            raise f.exception()
    return [f.result() for f in futures]


def _worker_share(workers: int) -> tuple:
    """What each of ``workers`` concurrent workers gets of its caller's resources: 1/workers of
    the cache share and of the solve threads (at least one), as (fraction, threads)."""
    return cache_share() / workers, max(1, solve_threads() // workers)


def parallel_map(fn, items, n_jobs) -> list:
    """``[fn(x) for x in items]``, on up to ``n_jobs`` joblib workers (threads unless the
    caller chose another backend); results in the order of ``items``. ``fn`` must not rely on
    changing its objects in place (module docstring): return the changes instead."""
    from joblib import Parallel, delayed


    items = list(items)
    if not items:                   # (the CV's candidates all trained already: no pieces left)
        return []
    threads = _threads_backend()
    cap = getattr(_cap, "k", None)
    workers = max(1, min(len(items), n_workers(n_jobs, threads)))
    try:
        if workers == 1:   # here, in this thread: joblib's dask backend would send n_jobs=1 away
            return [fn(x) for x in items]
        share = _worker_share(workers)
        if threads:
            # joblib's own threading backend costs ~12 ms a call in set-up and dispatch (a
            # thread pool per Parallel call), a fresh ThreadPoolExecutor ~0.5 ms, a kept one
            # nothing: on a 100-row problem the whole tuning takes ~25 ms with n_jobs=2
            with _stoppable_pool(workers) as (pool, flag):
                call = partial(_call_in_context, fn, share, None, None, cap, flag=flag)
                return _results_in_order([pool.submit(call, x) for x in items])
        call = partial(_call_in_context, fn, share, _process(), blas_threads(), cap)
        return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(call)(x) for x in items)
    except KeyboardInterrupt:
        request_stop()
        raise


def parallel_map_then(fn, items, then, gn, n_jobs) -> tuple[list, list]:
    """(``[fn(x) for x in items]``, ``[[gn(t) for t in then(i, fn(x_i))] for each i]``): each
    item's follow-up work ``then(i, result)`` (a list of tasks for ``gn``; called by the worker
    that ran the item, so it must be safe to call from any thread and at the same time for two
    items) is started as soon as that item's result is in, on the same workers, so that a
    worker whose item finished early does the follow-up work instead of waiting for the
    others (the default strategy: the CV folds of one bound search's candidates while the other
    search runs). Results in the order of ``items`` and of each ``then`` list, whatever the
    order of completion. On threads (the default) one ``ThreadPoolExecutor`` of
    :func:`n_workers` threads; under another joblib backend, or with one worker, the same as
    ``parallel_map(fn, items)`` and then ``parallel_map(gn, every task)`` (``then`` in the
    order of ``items``). ``fn`` and ``gn`` follow :func:`parallel_map`'s rules."""
    items = list(items)
    threads = _threads_backend()
    cap = getattr(_cap, "k", None)
    workers = n_workers(n_jobs, threads)
    if not threads or workers == 1 or len(items) < 2:
        results = parallel_map(fn, items, n_jobs)
        tasks = [list(then(i, r)) for i, r in enumerate(results)]
        flat = parallel_map(gn, [t for ts in tasks for t in ts], n_jobs)
        out, k = [], 0
        for ts in tasks:
            out.append(flat[k:k + len(ts)])
            k += len(ts)
        return results, out
    share = _worker_share(workers)
    try:
        with _stoppable_pool(workers) as (pool, flag):
            call_fn = partial(_call_in_context, fn, share, None, None, cap, flag=flag)
            call_gn = partial(_call_in_context, gn, share, None, None, cap, flag=flag)

            def item_then_follow(i, x):
                # the worker that ends an item submits its follow-up work itself: a round
                # trip through the calling thread waited for it to wake and to get the GIL
                # from the other workers (up to the 5 ms switch interval)
                result = call_fn(x)
                return result, [pool.submit(call_gn, t) for t in then(i, result)]

            first = _results_in_order([pool.submit(item_then_follow, i, x)
                                       for i, x in enumerate(items)])
            return [r for r, _ in first], [[f.result() for f in fs] for _, fs in first]
    except KeyboardInterrupt:
        request_stop()
        raise
