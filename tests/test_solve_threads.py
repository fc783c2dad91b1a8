"""Kernel rows on several threads (issue 32): a large dense solve computes each row of Q in
fixed pieces (``solvers._smo.ROW_CHUNK``) from Xᵀ, on the threads ``solvers.qp.solve_threads``
allows; a piece's sums do not depend on where it runs, so the threads never change a result."""

import numba
import numpy as np
import pytest
from numba import njit

from svmbound._parallel import parallel_map
from svmbound.kernels import LinearKernel, PolynomialKernel, RBFKernel
from svmbound.solvers import solve_svm_dual
from svmbound.kernels._rows import (CHUNKED_ROWS_MIN, LINEAR, POLY, RBF, ROW_CHUNK, kernel_row,
                                    q_row_pieces, q_rows_pieces)
from svmbound.solvers._smo import (PARALLEL_PASS_MIN, PARALLEL_PASS_THREADS, PASS_PIECE, _add_row,
                                   _first_pass, _second_pass, _update)
from svmbound.solvers.qp import solve_threads, solve_threads_scope, threadsafe_numba


@njit   # (not cached: numba would not see a change of the function it calls)
def _pieces(Xt, sq, i, code, gamma, coef0, degree, y, yi, out, threads):
    q_row_pieces(Xt, sq, i, code, gamma, coef0, degree, y, yi, out, threads)


@njit   # (not cached, as above)
def _batch(Xt, sq, ids, slots, code, gamma, coef0, degree, y, scale, buf, threads):
    q_rows_pieces(Xt, sq, ids, slots, code, gamma, coef0, degree, y, scale, buf, threads)


def _expected_threads(k):
    """What ``solve_threads_scope(k)`` gives: at most numba's threads, one without a
    thread-safe numba layer (OpenMP or TBB)."""
    return min(k, numba.config.NUMBA_NUM_THREADS) if threadsafe_numba() else 1


def _data(n, d=5, seed=0, zeros=0.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) >= zeros)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("code, gamma, coef0, degree", [(RBF, 0.3, 0.0, 3), (LINEAR, 0.0, 0.0, 1),
                                                        (POLY, 0.2, 1.0, 3)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d, zeros", [(7, 0.0), (13, 0.8)])
def test_a_row_in_pieces_is_the_row_on_any_number_of_threads(code, gamma, coef0, degree, dtype,
                                                             d, zeros):
    """Q_i· = s·y_i·y ∘ K(x_i, ·) from the pieces of Xᵀ equals the BLAS row to rounding, with
    the same bits on 1, 2 and 3 threads (d not a multiple of the 4 features summed at a time;
    data with many zeros, which the pieces skip)."""
    n = 3 * ROW_CHUNK + 17                 # a last piece shorter than the others
    X, y = _data(n, d, zeros=zeros)
    Xt = np.ascontiguousarray(X.T)
    sq = np.einsum("ij,ij->i", X, X)
    for i in (0, 700, n - 1):
        ref = np.empty(n)
        kernel_row(X, sq, i, code, gamma, coef0, degree, ref)
        ref *= 2.0 * y[i] * y
        rows = []
        for threads in (1, 2, 3):
            out = np.empty(n, dtype=dtype)
            _pieces(Xt, sq, i, code, gamma, coef0, degree, y, 2.0 * y[i], out, threads)
            rows.append(out)
        assert rows[0].tobytes() == rows[1].tobytes() == rows[2].tobytes()
        np.testing.assert_allclose(rows[0], ref.astype(dtype), rtol=1e-6 if dtype == np.float32
                                   else 1e-12, atol=1e-12)
        if code == RBF:
            assert rows[0][i] == 2.0          # K(x, x) = 1 exactly


@pytest.mark.parametrize("code, gamma, coef0, degree", [(RBF, 0.3, 0.0, 3), (POLY, 0.2, 1.0, 3)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("zeros", [0.6, 0.0])
def test_rows_computed_together_are_each_row_alone(code, gamma, coef0, degree, dtype, zeros):
    """``q_rows_pieces`` (the block solver's moved rows, each piece of Xᵀ read once for the
    batch) writes into the given slots of the cache what ``q_row_pieces`` gives each row alone,
    with the same bits on 1 and 2 threads: bit for bit where the features are mostly zeros
    (sums skipping them; rows with different numbers of non-zero features), to rounding where
    they fill more than ``GEMM_MIN_FILL`` (one BLAS product a piece)."""
    n = 3 * ROW_CHUNK + 17
    X, y = _data(n, 13, zeros=zeros)
    Xt = np.ascontiguousarray(X.T)
    sq = np.einsum("ij,ij->i", X, X)
    ids = np.array([700, 0, n - 1, 5, 1234, 3000], dtype=np.int64)
    slots = np.array([4, 0, 6, 2, 1, 3], dtype=np.int64)
    bufs = []
    for threads in (1, 2):
        buf = np.full((8, n), np.nan, dtype=dtype)
        _batch(Xt, sq, ids, slots, code, gamma, coef0, degree, y, 2.0, buf, threads)
        for i, s in zip(ids, slots):
            alone = np.empty(n, dtype=dtype)
            _pieces(Xt, sq, i, code, gamma, coef0, degree, y, y[i] * 2.0, alone, 1)
            if zeros:
                assert buf[s].tobytes() == alone.tobytes()
            else:
                np.testing.assert_allclose(buf[s], alone, rtol=1e-6 if dtype == np.float32
                                           else 1e-12, atol=1e-12)
                assert code != RBF or buf[s, i] == 2.0        # K(x, x) = 1 exactly
        assert np.isnan(buf[[5, 7]]).all()            # no other slot written
        bufs.append(buf)
    assert bufs[0].tobytes() == bufs[1].tobytes()


@pytest.mark.parametrize("kernel", [RBFKernel(sigma2=2.0), PolynomialKernel(degree=2, coef0=1.0)])
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_large_solve_gives_the_same_bits_on_one_and_on_two_threads(kernel, loss):
    """A solve of n ≥ CHUNKED_ROWS_MIN rows (its rows in pieces), stopped after a few hundred
    iterations: α, b and the gradient are the same bits whatever the threads."""
    X, y = _data(CHUNKED_ROWS_MIN + 100)
    sols = []
    for threads in (1, 2):
        with solve_threads_scope(threads):
            sols.append(solve_svm_dual(X, y, kernel, 1.0, loss=loss, max_iter=300,
                                       cache_size=20))
    a, b = sols
    assert a.n_kernel_rows > 0
    assert a.alpha.tobytes() == b.alpha.tobytes() and a.b == b.b
    assert a.gradient.tobytes() == b.gradient.tobytes()


@pytest.mark.parametrize("ties", [False, True])
def test_the_passes_in_pieces_pick_what_one_pass_picks(ties):
    """WSS 2's two passes, the gradient update and Ḡ's update over an active set of at least
    PARALLEL_PASS_MIN positions, run in pieces on PARALLEL_PASS_THREADS threads (numba's
    threads, however many this machine has), give what one pass on one thread gives: the same
    (Gmax, i), (Gmax2, j, least decrease) — ties, at the last position, included — and the same
    bits of G and Ḡ."""
    rng = np.random.default_rng(1)
    n = PARALLEL_PASS_MIN + 3 * PASS_PIECE + 123           # a last piece shorter than the others
    act = np.sort(rng.choice(n + 500, n, replace=False))   # variable numbers, not positions
    m = n - 40                                             # the last 40 shrunk
    yA = np.where(rng.random(n) < 0.3, 1.0, -1.0)
    aA = np.where(rng.random(n) < 0.6, 0.0, rng.random(n))
    uA = np.where(rng.random(n) < 0.5, 1.0, np.inf)
    aA[rng.random(n) < 0.1] = 1.0                          # some at the bound C = 1
    GA = rng.standard_normal(n)
    if ties:
        GA = np.round(GA, 1)                               # many equal candidates
    QDA = 1.0 + rng.random(n)
    Qi, Qj, G_bar0 = (rng.standard_normal(n + 500) for _ in range(3))
    out = []
    for threads in (1, PARALLEL_PASS_THREADS):
        Gmax, i = _first_pass(act, m, yA, GA, aA, uA, threads)
        second = _second_pass(act, m, yA, GA, aA, uA, QDA, Qi, 1.0, 1.5, Gmax, threads)
        G, G_bar = GA.copy(), G_bar0.copy()
        _update(act, m, G, Qi, Qj, 0.3, -0.7, threads)
        _add_row(G_bar, -1.0, Qi, threads)
        out.append((Gmax, i, second, G.tobytes(), G_bar.tobytes()))
    assert out[0][1] >= 0 and out[0][2][1] >= 0
    assert out[0] == out[1]


def test_the_solution_of_a_large_solve_meets_its_kkt_conditions():
    """The L1-SVM on n ≥ CHUNKED_ROWS_MIN rows (rows in pieces, two threads) converges: its
    maximal KKT violation, recomputed from the kernel, is below the tolerance."""
    X, y = _data(CHUNKED_ROWS_MIN + 50, d=6, zeros=0.5)
    kernel, C, tol = LinearKernel(), 0.5, 1e-3
    with solve_threads_scope(2):
        sol = solve_svm_dual(X, y, kernel, C, loss="l1", tol=tol)
    assert sol.converged
    g = y * (X @ (X.T @ (sol.alpha * y))) - 1.0       # ∇ of ½αᵀQα − eᵀα, Q = YXXᵀY
    up = ((y > 0) & (sol.alpha < C)) | ((y < 0) & (sol.alpha > 0))
    low = ((y > 0) & (sol.alpha > 0)) | ((y < 0) & (sol.alpha < C))
    assert np.max(-y[up] * g[up]) - np.min(-y[low] * g[low]) < tol + 1e-9
    # the solver's own gradient (kept packed in active-set order, written back at the end, the
    # shrunk variables' reconstructed) is that gradient on every variable
    np.testing.assert_allclose(sol.gradient, g, rtol=0, atol=1e-8 * np.abs(g).max())



@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_small_solve_on_features_mostly_zeros_computes_its_rows_in_pieces(monkeypatch, loss):
    """Dense features mostly zeros (one-hot data stored dense) of fewer than CHUNKED_ROWS_MIN
    rows: ``smo_rows_data`` gives Xᵀ, not centred, for rows in pieces that skip the zeros; the
    solve is by pairs, its rows on one thread whatever the solve's threads, and it meets the
    KKT conditions on K recomputed from X, with the BLAS rows' objective; data with more
    non-zeros keep the BLAS rows of centred X."""
    from svmbound.kernels.precomputed import smo_rows_data
    from svmbound.solvers import qp
    from test_solvers import assert_kkt

    X, y = _data(1500, d=40, zeros=0.85)
    kernel, C, tol = RBFKernel(sigma2=4.0), 2.0, 1e-6
    laid = smo_rows_data(X, kernel)
    assert laid.pieces == 1 and np.array_equal(laid.data, X.T)
    dense = smo_rows_data(_data(1500, d=40, zeros=0.3)[0], kernel)
    assert dense.pieces == 0 and abs(dense.data.mean(axis=0)).max() < 1e-12   # centred
    calls = []
    monkeypatch.setattr(qp, "block_smo", lambda *a: calls.append("blocks"))
    inner = qp.smo
    monkeypatch.setattr(qp, "smo", lambda *a: calls.append(a[-3:]) or inner(*a))
    with solve_threads_scope(2):
        sol = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol)
    assert calls and all(c == (1, 1, qp.SHRINK_EVERY) for c in calls)   # pairs, one thread
    assert_kkt(sol, y, C, loss, tol, K=kernel.block(X))

    def blas_rows(X, kernel, *_, **__):   # what such data had before: BLAS rows of centred X
        Xc = np.ascontiguousarray(X - X.mean(axis=0))
        return smo_rows_data(X, kernel)._replace(data=Xc, sq=np.einsum("ij,ij->i", Xc, Xc),
                                                 pieces=0)
    monkeypatch.setattr(qp, "smo_rows_data", blas_rows)
    ref = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-9)


def test_threads_are_shared_out_among_workers_and_restored():
    with solve_threads_scope(4):
        t = solve_threads()
        assert t == _expected_threads(4)
        assert parallel_map(lambda _: solve_threads(), range(2), 2) == [max(1, t // 2)] * 2
        assert solve_threads() == t
    assert solve_threads() == 1


def test_a_fit_lends_its_n_jobs_to_the_final_training(monkeypatch):
    """BoundSVC(n_jobs=k).fit trains its final SVM with min(k, CPUs, numba's) solve threads."""
    from sklearn.datasets import make_classification

    from svmbound import BoundSVC, _parallel, fit_flow

    seen = []
    solve = fit_flow.solve_svm_dual

    def spy(*args, **kwargs):
        seen.append(solve_threads())
        return solve(*args, **kwargs)

    monkeypatch.setattr(fit_flow, "solve_svm_dual", spy)
    monkeypatch.setattr(_parallel, "usable_cpus", lambda: 4)
    X, y = make_classification(80, 4, random_state=0)
    BoundSVC(n_jobs=3).fit(X, y)
    assert seen and seen[-1] == _expected_threads(3)
