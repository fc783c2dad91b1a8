"""BLAS thread limits, from one threadpoolctl controller per process.

``threadpool_limits(...)`` scans the process's loaded libraries (reading /proc/self/maps) on
every call: 3–5 ms, which is 5–10 % of a whole tuning on a 100-row problem. The controller is
made once, after NumPy's and SciPy's BLAS are loaded (``scipy.linalg`` is imported first: SciPy
ships its own OpenBLAS, which the span bound's factorisations use), and reused.
"""

from __future__ import annotations

from contextlib import nullcontext

_controller = None


def controller():
    """The process's ``threadpoolctl.ThreadpoolController`` (False when threadpoolctl fails)."""
    global _controller
    if _controller is None:
        try:
            import scipy.linalg  # noqa: F401  (load SciPy's BLAS before the scan)
            from threadpoolctl import ThreadpoolController

            _controller = ThreadpoolController()
        except Exception:  # pragma: no cover - threadpoolctl comes with scikit-learn
            _controller = False
    return _controller


def limit_blas(threads: int | None):
    """A context in which BLAS uses at most ``threads`` threads (None or no threadpoolctl:
    no change)."""
    c = controller()
    if threads is None or not c:
        return nullcontext()
    return c.limit(limits=int(threads), user_api="blas")


def blas_threads() -> int | None:
    """The most threads a BLAS library of this process may use now; None without BLAS."""
    c = controller()
    libs = c.select(user_api="blas").lib_controllers if c else []
    return max((lib.num_threads for lib in libs), default=None)
