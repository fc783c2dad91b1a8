"""One way to run independent pieces of work in parallel: joblib, threads by default.

Every parallel call of svmbound (the bound searches of the default strategy, the CV folds, the
one-vs-one pairs) goes through :func:`parallel_map`, so that three things hold everywhere:

* **threads by default** (``prefer="threads"``): the numba SMO and BLAS release the GIL, and the
  workers share the data without copies. A joblib backend chosen by the caller
  (``joblib.parallel_config(backend="dask")``, ``parallel_backend("loky")``) takes precedence,
  as joblib's ``prefer`` is only a hint.
* **one cache budget**: each of the k concurrent workers solves with 1/k of the share of the
  kernel-row cache its caller had (``solvers.qp.cache_share``), so ``cache_size`` bounds the
  cache memory of all the solves running at once, nested calls included.
* **Ctrl-C** while waiting stops every solve still running in the other threads
  (``solvers.request_stop``) before the KeyboardInterrupt propagates.
"""

from __future__ import annotations

__all__ = ["parallel_map"]


def _with_share(fn, fraction):
    """``fn`` wrapped to run with the kernel-row cache share ``fraction``."""
    def call(x):
        from .solvers.qp import cache_share_scope

        with cache_share_scope(fraction):
            return fn(x)
    return call


def parallel_map(fn, items, n_jobs) -> list:
    """``[fn(x) for x in items]``, on up to ``n_jobs`` joblib workers (threads unless the
    caller chose another backend); results in the order of ``items``."""
    from joblib import Parallel, delayed, effective_n_jobs

    from .solvers import request_stop
    from .solvers.qp import cache_share

    items = list(items)
    workers = max(1, min(len(items), effective_n_jobs(n_jobs)))
    call = _with_share(fn, cache_share() / workers)
    try:
        return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(call)(x) for x in items)
    except KeyboardInterrupt:
        request_stop()
        raise
