"""Kernel rows on several threads (issue 14): the same bits as on one thread, safe with solves
running at once in threads, and the same solution as scikit-learn's SVC.

The threshold ``qp.PARALLEL_ROWS_MIN`` is lowered in the tests (``parallel`` fixture) so that
problems of ~1,000 rows take the parallel path; ``None`` turns it off (one thread).
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.svm import SVC

from svmbound._parallel import parallel_map
from svmbound._sparse import numba_data, sq_norms
from svmbound.kernels import LinearKernel, PolynomialKernel, RBFKernel
from svmbound.solvers import qp, solve_radius, solve_svm_dual
from svmbound.solvers._smo import (LINEAR, POLY, RBF, ROW_BLOCK, _fill_row, _fill_row_parallel,
                                   dense_sq_norms)

from _stopper import stopped_solve

N = 1100                    # > 2 blocks of ROW_BLOCK entries, several runs per thread
LOW = 600                   # the lowered threshold
KERNELS = {"rbf": RBFKernel(4.0), "linear": LinearKernel(), "poly": PolynomialKernel(3, 1.0)}

needs_threads = pytest.mark.skipif(qp.row_threads_available() < 2,
                                   reason="numba has a single thread here")


def _data(n=N, d=8, seed=0, density=None):
    """Overlapping classes (10 % flipped labels), standardised-ish; with ``density`` a CSR
    matrix with that fraction of the entries kept (the rest set to 0)."""
    X, y = make_classification(n_samples=n, n_features=d, n_informative=5, flip_y=0.1,
                               random_state=seed)
    X = X / X.std(axis=0)
    if density is not None:
        keep = np.random.RandomState(seed).rand(*X.shape) < density
        X = sp.csr_matrix(X * keep)
    return X, np.where(y == 1, 1.0, -1.0)


@pytest.fixture
def parallel(monkeypatch):
    """Rows of n ≥ LOW on several threads; returns the list of ``ctl[0]`` values that the
    solves saw when they started (to check that the parallel path was taken)."""
    seen = []
    scope = qp.row_threads_scope

    def recording_scope(n):
        cm = scope(n)

        class Wrapped:
            def __enter__(self):
                ctl = cm.__enter__()
                seen.append(int(ctl[0]))
                return ctl

            def __exit__(self, *exc):
                return cm.__exit__(*exc)
        return Wrapped()

    monkeypatch.setattr(qp, "PARALLEL_ROWS_MIN", LOW)
    monkeypatch.setattr(qp, "row_threads_scope", recording_scope)
    return seen


def _solve(X, y, kernel, C=1.0, loss="l1", tol=1e-3, cache_size=0.1):
    """A solve whose cache (0.1 MB: ~10 rows of 1,100) makes it recompute rows all along."""
    return solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol, cache_size=cache_size)


def _assert_same_bits(a, b):
    np.testing.assert_array_equal(a.alpha, b.alpha)
    np.testing.assert_array_equal(a.gradient, b.gradient)
    assert a.b == b.b
    assert (a.n_iter, a.n_kernel_rows) == (b.n_iter, b.n_kernel_rows)


# -- the rows themselves -----------------------------------------------------------------------
@pytest.mark.parametrize("layout", ["F", "C", "sparse"])
@pytest.mark.parametrize("code", [RBF, LINEAR, POLY])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_row_has_the_same_bits_on_any_number_of_threads(layout, code, dtype):
    X, y = _data(2 * ROW_BLOCK + 77, density=0.4 if layout == "sparse" else None)
    n = y.size
    if layout == "sparse":
        Xn, sq = numba_data(X), sq_norms(X)
        K = X @ X.T
        K = K.toarray()
    else:
        Xn = np.asfortranarray(X) if layout == "F" else np.ascontiguousarray(X)
        sq = dense_sq_norms(Xn)
        K = X @ X.T
    gamma, coef0, degree = (0.3, 1.0, 3)
    if code == RBF:
        K = np.exp(-gamma * np.maximum(sq[:, None] + sq[None, :] - 2 * K, 0.0))
    elif code == POLY:
        K = (gamma * K + coef0) ** degree
    for i in (0, ROW_BLOCK - 1, ROW_BLOCK, n - 1):
        one = np.empty(n, dtype=dtype)
        _fill_row(Xn, sq, i, code, gamma, coef0, degree, one, y, 2.0 * y[i])
        for threads in (2, 3, 7):
            many = np.full(n, np.nan, dtype=dtype)
            _fill_row_parallel(Xn, sq, i, code, gamma, coef0, degree, many, y, 2.0 * y[i],
                               threads)
            np.testing.assert_array_equal(many, one)
        ref = 2.0 * y[i] * y * K[i]
        np.testing.assert_allclose(one, ref, rtol=1e-6 if dtype == np.float32 else 1e-12,
                                   atol=1e-6 if dtype == np.float32 else 1e-12)


def test_dense_rows_do_not_depend_on_the_layout_and_match_sparse_rows():
    """Column- and row-major X give the same bits; so does the CSR form of the same data for
    the linear kernel (zeros add nothing to a sum in feature order)."""
    X, y = _data(700, density=0.5)
    Xd = X.toarray()
    n = y.size
    rows = {}
    for name, Xn in (("F", np.asfortranarray(Xd)), ("C", np.ascontiguousarray(Xd)),
                     ("sparse", numba_data(X))):
        out = np.empty(n)
        _fill_row(Xn, np.zeros(n), 5, LINEAR, 1.0, 0.0, 1, out, np.ones(n), 1.0)
        rows[name] = out
    np.testing.assert_array_equal(rows["F"], rows["C"])
    np.testing.assert_array_equal(rows["F"], rows["sparse"])


# -- whole solves: bit-identical with and without threads ----------------------------------------
@needs_threads
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("kernel", list(KERNELS), ids=list(KERNELS))
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_solve_gives_the_same_bits_with_parallel_rows(parallel, monkeypatch, sparse, kernel,
                                                        loss):
    X, y = _data(density=0.5 if sparse else None)
    k = KERNELS[kernel]
    C = 0.1 if kernel == "poly" else 1.0
    with_threads = _solve(X, y, k, C, loss)
    assert parallel == [qp.row_threads_available()]          # alone: every numba thread
    monkeypatch.setattr(qp, "PARALLEL_ROWS_MIN", None)
    alone = _solve(X, y, k, C, loss)
    assert parallel[-1] == 0
    _assert_same_bits(with_threads, alone)
    assert with_threads.n_kernel_rows > 5 * 10                # the tiny cache made it recompute


@needs_threads
def test_the_radius_gives_the_same_bits_with_parallel_rows(parallel, monkeypatch):
    X, _ = _data()
    k = PolynomialKernel(2, 1.0)
    a = solve_radius(X, k, tol=1e-6, cache_size=0.1)
    monkeypatch.setattr(qp, "PARALLEL_ROWS_MIN", None)
    b = solve_radius(X, k, tol=1e-6, cache_size=0.1)
    assert parallel == [qp.row_threads_available(), 0]
    np.testing.assert_array_equal(a.beta, b.beta)
    assert a.r2 == b.r2


# -- against scikit-learn ----------------------------------------------------------------------
@needs_threads
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("kernel", list(KERNELS), ids=list(KERNELS))
def test_a_parallel_solve_matches_svc(parallel, sparse, kernel):
    """At tol 1e-8 the decision values agree with SVC's to 1e-5 (LIBSVM keeps Q in float32:
    ~1e-7 relative per kernel value), α to 1e-3 (α is ill-determined on the free set: two
    tight solutions differ by ~tol/λ_min), and the support vectors are the same. X is scaled to
    ‖x‖² ≈ 1 so that every kernel value is O(1)."""
    X, y = _data(density=0.5 if sparse else None)
    X = X / np.sqrt(X.shape[1])
    k = {"rbf": RBFKernel(0.5), "linear": LinearKernel(), "poly": PolynomialKernel(3, 1.0)}[kernel]
    C = 0.1 if kernel == "poly" else 1.0
    sol = _solve(X, y, k, C, tol=1e-8, cache_size="auto")
    assert parallel == [qp.row_threads_available()]
    svc = {"rbf": SVC(C=C, kernel="rbf", gamma=1.0, tol=1e-8),
           "linear": SVC(C=C, kernel="linear", tol=1e-8),
           "poly": SVC(C=C, kernel="poly", gamma=1.0, coef0=1.0, degree=3, tol=1e-8)}[kernel]
    svc.fit(X, y)
    coef = svc.dual_coef_
    coef = coef.toarray() if sp.issparse(coef) else coef
    alpha = np.zeros(y.size)
    alpha[svc.support_] = np.abs(coef[0])
    np.testing.assert_allclose(sol.training_decision(y), svc.decision_function(X), rtol=0,
                               atol=1e-5)
    assert abs(sol.b - svc.intercept_[0]) < 1e-5
    np.testing.assert_allclose(sol.alpha, alpha, rtol=0, atol=1e-3)
    assert set(np.flatnonzero(sol.alpha > 1e-6 * C)) == set(svc.support_[alpha[svc.support_] > 1e-6 * C])


# -- several solves at once ----------------------------------------------------------------------
@needs_threads
def test_solves_in_threads_at_once_finish_with_the_bits_of_solves_alone(parallel):
    problems = [(_data(N + 37 * s, seed=s, density=0.5 if s % 2 else None),
                 list(KERNELS.values())[s % 3]) for s in range(6)]

    def solve(p):
        (X, y), k = p
        return _solve(X, y, k, 0.1)

    alone = [solve(p) for p in problems]
    assert parallel == [qp.row_threads_available()] * 6
    for _ in range(2):
        with ThreadPoolExecutor(max_workers=4) as pool:
            together = list(pool.map(solve, problems))
        for a, b in zip(alone, together):
            _assert_same_bits(a, b)
    assert len(parallel) == 18 and max(parallel) == qp.row_threads_available()
    # through svmbound's own parallel_map too (cache share 1/3: more rows recomputed)
    for a, b in zip(alone, parallel_map(solve, problems, 3)):
        np.testing.assert_array_equal(a.alpha, b.alpha)
        assert a.n_iter == b.n_iter


def test_only_one_running_solve_ever_gets_threads(monkeypatch):
    """The bookkeeping of ``row_threads_scope``, on a pretend 4-thread numba: a solve alone
    gets 4 threads, c − (k − 1) with k solves running, the holder keeps the right to threads
    until it ends, then passes it to a running solve large enough, never to a small one."""
    monkeypatch.setattr(qp, "row_threads_available", lambda: 4)
    monkeypatch.setattr(qp, "PARALLEL_ROWS_MIN", 100)
    big1, small, big2 = qp.row_threads_scope(500), qp.row_threads_scope(50), \
        qp.row_threads_scope(500)
    a = big1.__enter__()
    assert a[0] == 4
    b = small.__enter__()
    assert (a[0], b[0]) == (3, 0)
    c = big2.__enter__()
    assert (a[0], b[0], c[0]) == (2, 0, 0)
    big1.__exit__(None, None, None)
    assert (a[0], b[0], c[0]) == (0, 0, 3)
    small.__exit__(None, None, None)
    assert c[0] == 4
    big2.__exit__(None, None, None)
    assert c[0] == 0 and not qp._rows_running and qp._rows_holder is None
    s = qp.row_threads_scope(50)
    assert s.__enter__()[0] == 0                                  # below the threshold
    s.__exit__(None, None, None)


def test_a_forked_child_of_a_process_that_used_threads_computes_rows_on_one(monkeypatch):
    """GNU OpenMP (numba's 'omp' layer) aborts a forked child that launches a parallel region:
    after a fork (a pid other than the one that used threads) rows stay on one thread."""
    monkeypatch.setattr(qp, "PARALLEL_ROWS_MIN", 100)
    monkeypatch.setattr(qp, "row_threads_available", lambda: 2)
    monkeypatch.setattr(qp, "_rows_pid", -1)
    with qp.row_threads_scope(500) as ctl:
        assert ctl[0] == 0


@needs_threads
def test_a_solve_on_parallel_rows_can_still_be_stopped(parallel):
    X, y = make_classification(n_samples=3000, n_features=10, n_informative=6, flip_y=0.2,
                               random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    late = stopped_solve(lambda: solve_svm_dual(X, y, RBFKernel(5.0), np.exp(7.0), tol=1e-6,
                                                cache_size=1))
    assert parallel == [qp.row_threads_available()]
    assert late < 0.5
    assert not qp._rows_running and qp._rows_holder is None      # the scope was left


# -- the adaptive choice between one thread and several -----------------------------------------
def test_rows_go_the_faster_way_and_try_the_other_ever_less_often():
    from svmbound.solvers._smo import (FIRST_TRY_GAP, LAST_TRY_GAP, S_NEXT_TRY, S_TRY_GAP, STATE_SIZE,
                                       _record_row_time, _rows_on_threads)

    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[S_NEXT_TRY] = state[S_TRY_GAP] = FIRST_TRY_GAP

    def row(cost_many, cost_one):
        many = bool(_rows_on_threads(state))
        _record_row_time(state, many, cost_many if many else cost_one)
        return many

    assert row(5000, 1000) is True            # starts the threads: not counted
    assert row(100, 1000) is True             # each way measured once, threads first
    assert row(100, 1000) is False
    ways = [row(100, 1000) for _ in range(FIRST_TRY_GAP)]
    assert ways == [True] * (FIRST_TRY_GAP - 1) + [False]      # one try of the slower way
    assert state[S_TRY_GAP] == 2 * FIRST_TRY_GAP               # confirmed: tried less often
    ways = [row(100, 1000) for _ in range(2 * FIRST_TRY_GAP)]
    assert ways.count(False) == 1 and state[S_TRY_GAP] == 4 * FIRST_TRY_GAP
    # one row held up 100 times longer does not flip the choice
    assert row(10_000, 1000) is True and row(100, 1000) is True
    # the cores get busy: threads now cost 20 times more; after a few rows the running mean
    # of the threads passes that of one thread, which is then used, the threads tried rarely
    ways = [row(2000, 1000) for _ in range(8 * FIRST_TRY_GAP)]
    first_one = ways.index(False)
    assert 2 <= first_one <= 12 and ways[first_one:].count(True) <= 3
    # and back: threads cheap again, found at the next try
    ways = [row(100, 1000) for _ in range(LAST_TRY_GAP + 2 * FIRST_TRY_GAP)]
    assert ways[-2 * FIRST_TRY_GAP:].count(True) >= 2 * FIRST_TRY_GAP - 1


# -- numba's workqueue layer, which aborts on concurrent parallel regions -------------------------
SUBPROCESS = r"""
import numpy as np, numba
from concurrent.futures import ThreadPoolExecutor
from sklearn.datasets import make_classification
from svmbound.kernels import RBFKernel
from svmbound.solvers import qp, solve_svm_dual
qp.PARALLEL_ROWS_MIN = 600
problems = []
for s in range(6):
    X, y = make_classification(n_samples=1100 + 37 * s, n_features=8, random_state=s)
    problems.append((X, np.where(y == 1, 1.0, -1.0)))
solve = lambda p: solve_svm_dual(p[0], p[1], RBFKernel(4.0), 1.0, cache_size=0.1)
alone = [solve(p) for p in problems]
with ThreadPoolExecutor(max_workers=4) as pool:
    together = list(pool.map(solve, problems * 2))
assert all(np.array_equal(a.alpha, b.alpha) for a, b in zip(alone * 2, together))
print(numba.threading_layer())
"""


@needs_threads
def test_solves_in_threads_at_once_do_not_crash_the_workqueue_layer():
    import os
    import subprocess
    import sys

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue",
               PYTHONPATH=repo + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", SUBPROCESS], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-1] == "workqueue"
