"""Python face of the numba solvers (the pair SMO, ``_smo``; by working sets on large dense
data, ``_block``): validated inputs, cache sizing, the choice of solver, result objects.

Two public solvers live on top of this module:
``svm.solve_svm_dual`` (Chung 1.5 / 1.7) and ``radius.solve_radius`` (Chung 1.3 / 1.8).
"""

from __future__ import annotations

import functools
import math
import mmap
import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from numba import config as numba_config
from numba import set_num_threads as numba_set_num_threads

from ..exceptions import ConvergenceWarning
from ..kernels import (GramRows, Kernel, PrecomputedKernel, _row_blocks, precomputed,
                       smo_rows_data)
from ..kernels._rows import RBF, _probe_parallel
from ._block import block_smo
from ._smo import offset, smo
from .interrupt import SolverInterrupted, StopFlag, call_here, call_interruptibly, current_flag

#: Kernel-row cache size: "auto" or a number of megabytes (LIBSVM's ``-m``, SVC's cache_size).
DEFAULT_CACHE_MB = "auto"
#: "auto" = a quarter of the physical memory, at least 200 MB (SVC's default) and at most 4 GB.
#: Rows are allocated lazily (``np.empty``), so a small problem never touches more than its
#: l rows. On ijcnn1 (l = 49,990) the L2-SVM at (C, σ²) = (1, 1) has 12,843 support vectors: a
#: 200 MB cache holds 524 rows and the solve recomputes rows for many minutes; with 4 GB it
#: took 84 s (benchmarks/BENCHMARKS.md, issue 5).
AUTO_CACHE_MIN_MB, AUTO_CACHE_MAX_MB = 200.0, 4096.0


@functools.cache
def auto_cache_mb() -> float:
    """The "auto" cache size in MB (see ``AUTO_CACHE_MIN_MB``/``AUTO_CACHE_MAX_MB``); read
    once per process (it is asked for at every solve)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (ValueError, OSError, AttributeError):
        return AUTO_CACHE_MIN_MB
    return float(min(AUTO_CACHE_MAX_MB, max(AUTO_CACHE_MIN_MB, total / 4)))


_share = threading.local()


def cache_share() -> float:
    """The fraction of the configured cache that a solve started in this thread may fill: 1,
    or 1/k inside :func:`cache_share_scope` for k solves that run at the same time
    (``svmbound._parallel.parallel_map`` sets it for its workers). The configured
    ``cache_size`` is thereby a budget for all the concurrent solves together (issue 14: peak
    memory ≤ the cache plus the data), not for each of them."""
    return getattr(_share, "fraction", 1.0)


@contextmanager
def cache_share_scope(fraction: float):
    """Solves started in this thread inside the ``with`` block use ``fraction`` of the cache."""
    saved = cache_share()
    _share.fraction = float(fraction)
    try:
        yield
    finally:
        _share.fraction = saved


def solve_threads() -> int:
    """How many threads a solve started in this thread may use (``_smo``: its kernel rows in
    pieces and its passes over a large active set): 1, or what :func:`solve_threads_scope` set
    (the estimators: their ``n_jobs``; ``svmbound._parallel.parallel_map`` gives each of k
    workers 1/k of its caller's)."""
    return getattr(_share, "threads", 1)


@functools.cache
def threadsafe_numba() -> bool:
    """Whether numba's parallel loops run on a threading layer that several threads may enter
    at once (OpenMP or TBB): concurrent solves each start their own. Its ``workqueue`` layer
    (neither installed) aborts the process when two threads enter it: solves then run on one
    thread each."""
    try:
        _probe_parallel(2)
        from numba import threading_layer

        return threading_layer() in ("omp", "tbb")
    except Exception:  # pragma: no cover - no layer at all
        return False


@contextmanager
def solve_threads_scope(threads: int):
    """Solves started in this thread inside the ``with`` block use up to ``threads`` threads
    (at least 1, at most numba's thread count; 1 without a thread-safe numba layer)."""
    saved = solve_threads()
    threads = max(1, min(int(threads), numba_config.NUMBA_NUM_THREADS))
    _share.threads = threads if threads == 1 or threadsafe_numba() else 1
    try:
        yield
    finally:
        _share.threads = saved


def cache_megabytes(cache_mb):
    """The megabytes of a cache size setting: "auto" (and None, the default ``DEFAULT_CACHE_MB``)
    resolved by :func:`auto_cache_mb`; anything else returned as it is (validated by
    :func:`n_cache_rows`)."""
    if cache_mb is None:
        cache_mb = DEFAULT_CACHE_MB
    if isinstance(cache_mb, str) and cache_mb == "auto":
        return auto_cache_mb()
    return cache_mb


def n_cache_rows(n: int, cache_mb: float, itemsize: int = 8) -> int:
    """How many kernel rows of length n (``itemsize`` bytes per value) fit in ``cache_mb``
    megabytes ("auto": see :func:`auto_cache_mb`), at least 2, at most n."""
    if cache_mb is not None:                # None is not a size here: the check below says so
        cache_mb = cache_megabytes(cache_mb)
    if (isinstance(cache_mb, (bool, str)) or not isinstance(cache_mb, (int, float, np.number))
            or not np.isfinite(cache_mb) or cache_mb <= 0):
        raise ValueError(f"cache_size must be 'auto' or a positive number of megabytes, "
                         f"got {cache_mb!r}")
    rows = int(cache_mb * 2**20 // (itemsize * n))
    return int(min(n, max(2, rows)))


def row_itemsize(n: int, cache_mb) -> int:
    """The bytes of a cached kernel value: 8 when all n rows fit in ``cache_mb`` in float64, else
    4 (:func:`cache_buffer`)."""
    return 8 if n_cache_rows(n, cache_mb, 8) >= n else 4   # (validates cache_mb)


def cache_buffer(n: int, cache_mb) -> np.ndarray:
    """The SMO's row cache: float64 rows when all n fit in ``cache_mb``, otherwise float32 rows
    (twice as many; LIBSVM always stores Q in float32); as many rows as fit in ``cache_mb`` ×
    :func:`cache_share`. The row type depends on the configured cache alone, not on the share,
    so that the values a solve sees (and its result) do not depend on how many solves run at
    once: a smaller share only means rows evicted and recomputed. Memory is only touched as rows
    are filled, in base-size pages where the buffer is large (:func:`lazy_empty`)."""
    itemsize = row_itemsize(n, cache_mb)
    rows = n_cache_rows(n, float(cache_megabytes(cache_mb)) * cache_share(), itemsize)
    return lazy_empty((rows, n), np.float64 if itemsize == 8 else np.float32)


#: Arrays of at least this many bytes are made by :func:`lazy_empty` on a mapping of their own:
#: glibc's largest mmap threshold, above which malloc maps fresh memory for every array anyway
#: (a smaller one may reuse memory already touched).
LAZY_MIN_BYTES = 32 * 2**20


def lazy_empty(shape, dtype) -> np.ndarray:
    """``np.empty(shape, dtype)``; from ``LAZY_MIN_BYTES`` on a private anonymous mapping of its
    own advised against transparent huge pages (``MADV_NOHUGEPAGE``), where the platform has
    both. numpy advises huge pages for every array of 4 MB or more, so that the first write
    into each 2 MB of a row cache clears a whole huge page: on a virtual machine whose memory
    the host backs lazily that cost 3–8 s of system time in one large solve
    (``docs/decisions.md``, LAZY_MIN_BYTES). The mapping is freed with the array."""
    dtype = np.dtype(dtype)
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    flags = getattr(mmap, "MAP_PRIVATE", None)
    advice = getattr(mmap, "MADV_NOHUGEPAGE", None)
    if nbytes < LAZY_MIN_BYTES or flags is None or advice is None:
        return np.empty(shape, dtype=dtype)
    try:
        region = mmap.mmap(-1, nbytes, flags=flags)
    except OSError:             # refused (ENOMEM): np.empty's MemoryError, or its memory
        return np.empty(shape, dtype=dtype)
    try:
        region.madvise(advice)
    except OSError:             # a kernel without transparent huge pages: nothing to advise
        pass
    return np.frombuffer(region, dtype=dtype, count=count).reshape(shape)


#: The range of a solver tolerance ``tol`` (the SVM's and the radius QP's, hence of every
#: criterion and of ``BoundSVC(tol=)``). The tolerance bounds the maximal KKT violation, a
#: difference of two gradient entries whose natural scale is the margin 1 (LIBSVM's eps).
#: Lower: float64 resolves such a difference to about 16 rounding units of 1, 3.6e-15 (the
#: floor ``solve_radius`` already applies to its effective tolerance); a tol below 1e-14 asks
#: for digits the gradient does not have, and the SMO ran to its iteration cap instead of
#: stopping (``tol=1e-300``: 23 s an evaluation on 200 rows, issue 29 item 7). Upper: at α = 0
#: the violation is exactly 2 (every gradient entry −1, labels ±1), so any tol ≥ 2 stops the
#: SVM before its first step with α = 0 — no support vector, no model (``tol=1e300`` then
#: reached LAPACK with an empty matrix, issue 29 item 8); a tol of 1 already accepts decision
#: values off by the whole margin.
TOL_MIN, TOL_MAX = 1e-14, 1.0


def check_tol(tol, name: str = "tol") -> float:
    """A solver tolerance in [``TOL_MIN``, ``TOL_MAX``] = [1e-14, 1], or a ValueError that
    says why the value has no meaning (constants above)."""
    tol = check_positive_tol(tol, name)
    if tol < TOL_MIN:
        raise ValueError(f"{name} must be >= {TOL_MIN:g}, got {tol!r}: the KKT violation it "
                         f"bounds is a difference of gradient entries of order 1, which float64 "
                         f"resolves to about 4e-15; a smaller {name} cannot be reached and "
                         f"only runs every solve to its iteration cap")
    if tol > TOL_MAX:
        raise ValueError(f"{name} must be <= {TOL_MAX:g}, got {tol!r}: it bounds the KKT "
                         f"violation in units of the margin 1 (at alpha = 0 the violation is "
                         f"2), so a larger {name} stops the solver before or near its first step, "
                         f"with no usable model (the default is 1e-3 for a solve, 1e-6 for "
                         f"BoundSVC)")
    return tol


def check_positive_tol(tol, name: str = "tol") -> float:
    """A finite tolerance > 0, or a ValueError (the internal effective tolerances, e.g. the
    radius QP's tol·min(1, scale), which may lie below ``TOL_MIN``)."""
    try:
        tol = float(tol)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number > 0, got {tol!r}") from None
    if not np.isfinite(tol) or tol <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {tol!r}")
    return tol


#: The default iteration cap of one SMO solve: max(MAX_ITER_MIN, MAX_ITER_PER_ROW·n). It was
#: LIBSVM's max(10⁷, 100·n): on 200 rows a solve that cannot converge (a polynomial kernel on
#: unscaled data, ``BoundSVC(kernel='poly').fit(X * 1e10, y)``; K(x, x) ≈ 1e60) ran 10⁷
#: iterations, 23 s, for every evaluation of a search (issue 29 item 7). Solves that do converge
#: need far fewer: on the issue's 200 × 5 data, over a cv-error grid of 441 points × 5 folds the
#: most was 458·n (RBF, the corner C = e^10), a polynomial kernel of degree 3 at C = 1 took up to
#: 1,617·n; the default fits on breast cancer, digits and those data stayed below 182·n. An
#: iteration costs O(n) (a cached kernel row; 2.3 µs at n = 200), so the cap bounds a solve to
#: O(n²) work: 0.5 s at n = 200.
MAX_ITER_MIN = 100_000
MAX_ITER_PER_ROW = 2_000


def default_max_iter(n: int) -> int:
    """The iteration cap of a solve of n rows given ``max_iter=None``."""
    return max(MAX_ITER_MIN, MAX_ITER_PER_ROW * int(n))


#: K(x, x) above this (for a kernel other than RBF, whose diagonal is 1) names unscaled
#: features as the likely reason a solve ran to its cap: standardised features give a linear
#: kernel K(x, x) ≈ d, a cubic one ≈ (d + 1)³.
KDIAG_UNSCALED = 1e6
#: C_i·K(x, x) above this names a nearly hard margin as the likely reason.
CK_HARD_MARGIN = 1e6


def check_kernel_finite(values, kernel: Kernel, what: str = "K(x, x)") -> None:
    """A ValueError when kernel values the solver depends on (the diagonal K(x, x), or the
    squared row norms every kernel is computed from) overflow float64: a linear kernel on
    X·1e200 has K(x, x) ≈ 1e400 = inf, and the solvers and criteria used to fail far from
    the cause (numpy's "Singular matrix" from the span bound, "tol must be a finite number,
    got inf" from the radius QP; issue 29 item 8)."""
    values = np.asarray(values)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"the {getattr(kernel, 'name', 'kernel')} kernel's values are not "
                         f"finite on these data ({what} of row {i} is {float(values[i])!r}): the "
                         f"features are too large for this kernel in float64; standardise the "
                         f"features (sklearn.preprocessing.StandardScaler, or --scale on the "
                         f"command line)")


def cap_reason(X, kernel: Kernel, upper=None) -> str:
    """The likely reason why a solve on X stopped at its iteration cap, with what to do, from
    the scale of the kernel's diagonal (one O(n·d) pass, only after such a solve): features
    far from unit scale for a kernel without a length scale (the polynomial kernel on raw data:
    K(x, x) ≈ 1e60 for ``X * 1e10``, issue 29 item 7), or a nearly hard margin (C_i·K(x, x)
    large; ``upper``: the boxes C_i, or the L2's C_i), else a plain statement of the cap."""
    try:
        d = (X.K[X.rows, X.rows] if isinstance(X, GramRows) else kernel.diag(X))
        kmax = float(np.max(np.abs(d))) if np.size(d) else 0.0
    except Exception:       # a reason is a courtesy: never an error of its own
        kmax = float("nan")
    name = getattr(kernel, "name", type(kernel).__name__)
    if not np.isfinite(kmax):
        return (f"the {name} kernel's values are not finite (inf or NaN) on these data: "
                "standardise the features")
    if kmax > KDIAG_UNSCALED:
        return (f"K(x, x) reaches {kmax:.3g} with the {name} kernel: the features are far from "
                "unit scale (a polynomial kernel raises their inner products to its degree), "
                "and the dual is then too badly conditioned for the SMO to converge; "
                "standardise the features (sklearn.preprocessing.StandardScaler, or --scale on "
                "the command line)")
    cmax = float(np.max(upper)) if upper is not None and np.size(upper) else 0.0
    if np.isfinite(cmax) and cmax * max(kmax, 1e-300) > CK_HARD_MARGIN:
        return (f"C*K(x, x) reaches {cmax * kmax:.3g}: a nearly hard margin, which the "
                "kernel cannot realise on overlapping classes; a smaller C (or a looser tol) "
                "converges in fewer iterations")
    return "a hard problem at this tolerance: pass a larger max_iter or a looser tol"


def warn_cap(what: str, res: "QPResult", n: int, tol: float, reason: str) -> None:
    """The ``ConvergenceWarning`` of a solve that stopped at the default iteration cap, or
    before it because it had stalled."""
    import warnings


    how = (f"stopped after {res.n_iter:,} iterations on {n} rows, its KKT violation no longer "
           f"falling ({STALL_SLICES} slices of {SLICE_ITER + SLICE_ITER_PER_ROW * n:,} "
           f"iterations without halving)" if res.stalled else
           f"stopped at its iteration cap ({res.n_iter:,} iterations on {n} rows; the default "
           f"cap is max({MAX_ITER_MIN:,}, {MAX_ITER_PER_ROW:,}*n))")
    warnings.warn(f"{what}: the SMO {how}, with KKT violation {res.violation:.3g} above tol "
                  f"{tol:g}. Likely reason: {reason}", ConvergenceWarning, stacklevel=3)


def check_max_iter(max_iter) -> int | None:
    """None (the default cap) or an integer >= 1, else a ValueError."""
    if max_iter is None:
        return None
    if (isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer, float))
            or max_iter != int(max_iter) or max_iter < 1):
        raise ValueError(f"max_iter must be None or an integer >= 1, got {max_iter!r}")
    return int(max_iter)


def check_start(v, n: int | None, name: str) -> np.ndarray:
    """A warm start (``alpha0``, ``beta0``) as a float64 vector: numeric, finite, of shape
    (n,) when ``n`` is given — else a ValueError naming ``name`` (a NaN start used to run the
    SMO into a NaN objective reported as converged)."""
    try:
        a = np.array(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a numeric vector, got {type(v).__name__}") from None
    if n is not None and a.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {a.shape}")
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        k = int(np.flatnonzero(~np.isfinite(a))[0])
        raise ValueError(f"{name} must be finite, got {name}[{k}] = {float(a[k])!r}")
    return a


@dataclass
class QPResult:
    """Raw solution of min ½aᵀQa + pᵀa, yᵀa = const, 0 ≤ a ≤ u."""

    a: np.ndarray
    gradient: np.ndarray
    rho: float
    n_iter: int
    violation: float
    n_kernel_rows: int
    converged: bool
    gradient_bar: np.ndarray | None = None
    #: stopped before the cap because the violation had stopped falling (``STALL_SLICES``)
    stalled: bool = False


def _kernel_columns_times(X, kernel: Kernel, cols: np.ndarray, v: np.ndarray) -> np.ndarray:
    """K(X, X[cols]) @ v (v a vector or a matrix of several weight columns), built in row
    blocks (``Kernel.block_dot``)."""
    if not isinstance(kernel, PrecomputedKernel):
        return kernel.block_dot(X, X[cols], v)
    out = np.empty((X.shape[0],) + v.shape[1:])
    for rows in _row_blocks(X.shape[0], cols.size):
        # (GramRows: the same blocks taken the same way from the shared K: the same bits as
        # on its copied block)
        block = (X.K[X.rows[rows]][:, X.rows[cols]] if isinstance(X, GramRows)
                 else X[rows][:, cols])
        out[rows] = block @ v
    return out


def initial_gradient(X, y, p, ub, a, kernel: Kernel, scale: float, shift):
    """G = Qa + p and Ḡ = Σ_{a_j = u_j} u_j Q_j for Q_ij = s·y_i y_j (K_ij + h_i δ_ij)
    (``shift``: one h, or the vector of h_i).

    A warm start needs one kernel column per nonzero a_j; built as blocked BLAS products with
    vectorised exp this costs a fraction of computing those rows one by one in the SMO. The
    bounded columns are a subset of the nonzero ones, so one pass over K(X, X_nz) multiplies
    both weight vectors at once (each kernel value is computed once).
    """
    G = p.copy()
    G_bar = np.zeros_like(p)
    if not a.any():                 # a cold start: G = p, Ḡ = 0
        return G, G_bar
    nz = np.flatnonzero(a)
    if nz.size:
        at_bound = a[nz] >= ub[nz]
        weights = np.empty((nz.size, 2))
        weights[:, 0] = a[nz] * y[nz]
        weights[:, 1] = np.where(at_bound, ub[nz] * y[nz], 0.0)
        cols = _kernel_columns_times(X, kernel, nz, weights)
        G += scale * y * cols[:, 0] + scale * shift * a
        bounded = nz[at_bound]
        if bounded.size:
            G_bar += scale * y * cols[:, 1]
            G_bar[bounded] += scale * (shift if np.ndim(shift) == 0 else shift[bounded]) \
                * ub[bounded]
    return G, G_bar


def _solve_and_offset(solver, *args):
    """The numba ``solver`` (``_smo.smo`` or ``_block.block_smo``), then the offset ρ (both
    numba, so both run where ``call_interruptibly`` puts them — never in the main thread);
    numba's thread count for that thread set to the solve's ``threads`` (the argument after
    ``stop``) when it has more than one."""
    if args[18] > 1:
        numba_set_num_threads(args[18])
    G, n_iter, violation, n_rows, interrupted = solver(*args)
    y, ub, a = args[2], args[4], args[5]
    rho = 0.0 if interrupted else offset(y, G, a, ub)
    return G, n_iter, violation, n_rows, interrupted, rho


#: Iterations between two shrinking steps of the SMO (``_smo.smo``: every min(n, SHRINK_EVERY);
#: LIBSVM's min(n, 1000)); the reason for the number: ``docs/decisions.md``.
SHRINK_EVERY = 100

#: A problem of n ≥ BLOCK_MIN_ROWS rows whose cache holds 2·BLOCK_SIZE rows (or all n), its
#: rows then laid out in pieces (``smo_rows_data``), is solved by working sets of BLOCK_SIZE
#: variables (``_block.block_smo``) rather than pairs (``_smo.smo``), its rows on the solve's
#: threads; pairs compute theirs on one thread below ``kernels._rows.CHUNKED_ROWS_MIN`` rows.
#: The reasons: ``docs/decisions.md``, "block_smo" and "BLOCK_MIN_ROWS".
BLOCK_SIZE = 512
BLOCK_MIN_ROWS = 4096


#: The share of a block solve's cache rows that may hold its pool of the moved rows over the
#: gradient update's region while the cache has not grown into them (``_block.block_smo``;
#: ``docs/decisions.md``, "block_smo's region").
POOL_SHARE = 0.125


def pool_rows(cache_rows: int) -> int:
    """How many of a block solve's ``cache_rows`` rows may hold its pool (``POOL_SHARE``, 0
    where fewer than 2·BLOCK_SIZE rows would be left before them)."""
    rows = int(POOL_SHARE * cache_rows)
    return rows if cache_rows - rows >= 2 * BLOCK_SIZE else 0


def uses_blocks(n: int, cache_rows: int, pieces: int) -> bool:
    """Whether a solve of n rows whose cache holds ``cache_rows`` rows and whose rows are
    computed in ``pieces`` runs ``_block.block_smo`` (above)."""
    return bool(pieces) and n >= BLOCK_MIN_ROWS and cache_rows >= min(n, 2 * BLOCK_SIZE)


def blocks_fit(n: int, cache_mb) -> bool:
    """Whether a solve of n ≥ BLOCK_MIN_ROWS rows may run by blocks: the configured cache (not
    this thread's share, as :func:`cache_buffer`'s row type) holds 2·BLOCK_SIZE of its rows —
    its rows are then laid out in pieces (``smo_rows_data``'s ``pieces``). ``uses_blocks``'s rule
    on those rows; a smaller solve asks no cache size."""
    return n >= BLOCK_MIN_ROWS and uses_blocks(
        n, n_cache_rows(n, cache_mb, row_itemsize(n, cache_mb)), pieces=1)


def large(n: int) -> bool:
    """Whether a pair solve of n rows is large enough for its kernel rows to run on several
    threads (``CHUNKED_ROWS_MIN``): a parallel region per row of a few pieces cost more than it
    gained (a solve by blocks runs its rows on the threads from ``BLOCK_MIN_ROWS``)."""
    return n >= precomputed.CHUNKED_ROWS_MIN


#: A problem of at most SMALL_ROWS rows and SMALL_WORK = n²·(features per row) is solved in the
#: calling thread, also the main one (``interrupt.call_here``: no hand-off, SIGINT deferred), in
#: slices of at most SLICE_ITER + SLICE_ITER_PER_ROW·n iterations, so that a Ctrl-C waits for
#: one slice at most (about 0.1 s at 1,000 rows); a slice resumes the previous one exactly (α,
#: G, Ḡ in place) with its working set and cache rebuilt. Larger problems go through
#: ``interrupt.call_interruptibly``, whose 0.1–0.2 ms hand-off is nothing next to their solve.
SMALL_ROWS = 1000
SMALL_WORK = 5e7
SLICE_ITER = 10_000
SLICE_ITER_PER_ROW = 100


#: A solve in slices (above) under the default iteration cap stops as *stalled* when the KKT
#: violation at the end of STALL_SLICES consecutive slices has not fallen below half the
#: lowest one before them. A converging SMO falls steadily (on the issue 29 data, slices of
#: 30,000 iterations: 1 → 0.36 → 0.053 → 0.02 → 0.003 → 0.00097, or 9.9 → 2.9 → 0.25 → 0.11 →
#: 0.035 → 0.00096, for a cubic kernel on 200 rows), where a solve that cannot converge
#: wanders (a cubic kernel on X·1e10: 5.6 18 7.1 4.8 4.5 4.2 10 12 7 …; on raw breast-cancer
#: data: 4.4e4 1.6e4 3.1e2 3.9e3 4e3 9.2e3 …, for all of its 1.14 million iterations). The
#: rule needs a fall by 2 every STALL_SLICES slices, about 1.19 per slice; a solve with a
#: caller-given ``max_iter`` is never cut short.
STALL_SLICES = 4


def _run(args, max_iter: int, buf, flag, n: int, d_eff: float, stall: bool = False,
         pieces: int = 0):
    """(G, n_iter, violation, n_kernel_rows, interrupted, ρ, stalled) of ``_solve_and_offset``
    on ``args`` (all but max_iter, the cache and the stop flag): small problems in slices in
    this thread, others handed off, by working sets where ``uses_blocks`` (constants above). The slicing depends on the problem alone,
    not on the thread, so a solve gives the same bits in any thread. ``stall``: stop a sliced
    solve that has stalled (``STALL_SLICES``). ``pieces``: ``_smo.smo``'s. The handed-off
    solves run on this thread's ``solve_threads``; those in slices (small) on one."""
    if uses_blocks(n, buf.shape[0], pieces):
        return call_interruptibly(_solve_and_offset, block_smo, *args, max_iter, buf,
                                  flag.array, solve_threads(), pieces, BLOCK_SIZE,
                                  pool_rows(buf.shape[0]), flag=flag) + (False,)
    if n > SMALL_ROWS or float(n) * n * max(d_eff, 1.0) > SMALL_WORK:
        return call_interruptibly(_solve_and_offset, smo, *args, max_iter, buf, flag.array,
                                  solve_threads() if large(n) else 1, pieces, SHRINK_EVERY,
                                  flag=flag) + (False,)
    tol = args[-1]
    total = rows = 0
    ref, since = np.inf, 0          # the lowest violation at a slice end that halved the last
    while True:
        chunk = min(max_iter - total, SLICE_ITER + SLICE_ITER_PER_ROW * n)
        G, n_iter, violation, n_rows, interrupted, rho = call_here(
            _solve_and_offset, smo, *args, chunk, buf, flag.array, 1, pieces, SHRINK_EVERY,
            flag=flag)
        total += int(n_iter)
        rows += int(n_rows)
        if interrupted or violation < tol or n_iter < chunk or total >= max_iter:
            return G, total, violation, rows, interrupted, rho, False
        if violation < 0.5 * ref:
            ref, since = violation, 0
        else:
            since += 1
            if stall and since >= STALL_SLICES:
                return G, total, violation, rows, interrupted, rho, True
        args = args[:6] + (G,) + args[7:]          # α and Ḡ were updated in place


def run_smo(X, y, p, ub, a0, kernel: Kernel, *, scale=1.0, shift=0.0, tol=1e-3,
            max_iter=None, cache_mb=DEFAULT_CACHE_MB, gradient0=None) -> QPResult:
    """Run the numba SMO from the feasible start ``a0`` (copied, never modified).

    ``shift``: the diagonal shift h of Q = s·Y(K + hI)Y, one number, or a vector of per-sample
    h_i (Q = s·Y(K + diag h)Y: the L2-SVM and R̃² with C_i = C·w_i).

    ``gradient0`` = (G, Ḡ) of ``a0`` when the caller knows them (a start at the same kernel,
    see ``svm.same_kernel_start``): the initial gradient then costs no kernel value.

    Interruptible (``interrupt.py``): Ctrl-C stops the solve within ~0.1 s and raises
    KeyboardInterrupt; a solve stopped by ``interrupt.request_stop()`` (or by its thread's
    ``stop_scope`` flag) raises ``SolverInterrupted``. Not interrupted, the result is the same
    as a direct call of the numba solver.
    """
    n = y.shape[0]
    code, gamma, coef0, degree = kernel.spec()
    X_kernel = X                     # what kernel.block expects (initial gradient)
    n_cache_rows(n, cache_mb)                   # (validates cache_mb)
    cache_bytes = float(cache_megabytes(cache_mb)) * 2**20
    X, sq, d_eff, pieces, rows_code = smo_rows_data(X, kernel, cache_bytes,
                                                    pieces=blocks_fit(n, cache_mb))
    check_kernel_finite(sq, kernel, "the squared norm")
    if code != RBF:              # (an RBF kernel's diagonal is 1; its distances come from sq)
        check_kernel_finite(X_kernel.K[X_kernel.rows, X_kernel.rows]
                            if isinstance(X_kernel, GramRows) else kernel.diag(X_kernel), kernel)
    if rows_code != code:            # K(X, X) computed at once (``precomputed.gram_pays``): its
        cache_mb = (cache_bytes - 8.0 * n * n) / 2**20   # bytes out of the row cache, and the
        X_kernel, kernel = GramRows(*X), PrecomputedKernel()         # warm start's from it
    buf = cache_buffer(n, cache_mb)
    max_iter = check_max_iter(max_iter)
    stall = max_iter is None        # the default cap: a stalled solve stops (``STALL_SLICES``)
    if max_iter is None:
        max_iter = default_max_iter(n)
    a = np.array(a0, dtype=np.float64, copy=True)
    shift = (float(shift) if np.ndim(shift) == 0
             else np.ascontiguousarray(shift, dtype=np.float64))
    if gradient0 is None:
        G0, G_bar0 = initial_gradient(X_kernel, y, p, ub, a, kernel, float(scale), shift)
    else:
        G0, G_bar0 = (np.array(g, dtype=np.float64, copy=True) for g in gradient0)
    args = (X, sq, y, p, ub, a, G0, G_bar0, int(rows_code), float(gamma), float(coef0),
            int(degree), float(scale), shift, check_positive_tol(tol))
    flag = current_flag()
    if flag is None:     # a flag of its own, registered for request_stop() while it runs
        with StopFlag() as flag:
            out = _run(args, int(max_iter), buf, flag, n, d_eff, stall, pieces)
    else:                # the thread's stop_scope flag (registered by the scope's owner)
        out = _run(args, int(max_iter), buf, flag, n, d_eff, stall, pieces)
    G, n_iter, violation, n_rows, interrupted, rho, stalled = out
    if interrupted:
        raise SolverInterrupted("solve interrupted")
    return QPResult(a=a, gradient=G, rho=float(rho), n_iter=int(n_iter), violation=float(violation),
                    n_kernel_rows=int(n_rows), converged=bool(violation < tol),
                    gradient_bar=G_bar0, stalled=bool(stalled))
