"""The block working-set solver (``solvers._block.block_smo``, issue 32): the solves whose kernel
rows are computed in pieces run it instead of the pair SMO. Its solution meets the KKT
conditions recomputed from an independently built kernel matrix and has the SMO's objective to
the tolerance; its bits do not depend on the threads; it honours the iteration cap and the stop
flag. ``CHUNKED_ROWS_MIN`` and ``BLOCK_MIN_ROWS`` are lowered so that small data take that
path."""

import numpy as np
import pytest

from svmbound.kernels import LinearKernel, PolynomialKernel, RBFKernel, precomputed
from svmbound.solvers import qp, solve_radius, solve_svm_dual
from svmbound.kernels._rows import LINEAR, RBF, ROW_BATCH, ROW_CHUNK
from svmbound.solvers._block import _get_rows, _new_entries, block_smo
from svmbound.solvers._smo import _get_row, setup
from svmbound.solvers.qp import solve_threads_scope

from test_solvers import assert_kkt, q_tilde


def _data(n=900, d=6, seed=0, zeros=0.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) >= zeros)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.fixture
def blocks(monkeypatch):
    """Rows in pieces (hence the block solver) from 100 rows; counts the block solves."""
    monkeypatch.setattr(precomputed, "CHUNKED_ROWS_MIN", 100)
    monkeypatch.setattr(qp, "BLOCK_MIN_ROWS", 100)
    calls = []

    def counted(*args):
        calls.append(args[-2])
        return block_smo(*args)
    monkeypatch.setattr(qp, "block_smo", counted)
    return calls


def _smo_only(monkeypatch):
    monkeypatch.setattr(qp, "uses_blocks", lambda n, cache_rows, pieces: False)


@pytest.mark.parametrize("size", [512, 16])
@pytest.mark.parametrize("loss", ["l1", "l2"])
@pytest.mark.parametrize("kernel", [RBFKernel(sigma2=2.0), LinearKernel(),
                                    PolynomialKernel(degree=2, coef0=1.0)])
def test_a_block_solve_meets_the_kkt_conditions(blocks, monkeypatch, kernel, loss, size):
    """Working sets of 512 (every variable in the first) and of 16 (hundreds of outer steps:
    the kept halves, the shrinking and the gradient reconstruction at work): the KKT conditions
    hold on a gradient recomputed from K (which the solver's own gradient must equal), and the
    objective is the pair SMO's to the tolerance."""
    monkeypatch.setattr(qp, "BLOCK_SIZE", size)
    X, y = _data(zeros=0.3)
    C, tol = 3.0, 1e-6
    sol = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol)
    assert blocks == [size]
    assert_kkt(sol, y, C, loss, tol, K=kernel.block(X))
    _smo_only(monkeypatch)
    ref = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol)
    assert blocks == [size]
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_block_solve_of_one_feature_meets_the_kkt_conditions(blocks, loss):
    """X of one column: Xᵀ is a 1 × n array numpy strides by 8 bytes, whose leading dimension
    dgemm took as 1 and refused ("DGEMM parameter number 8 had an illegal value"), leaving the
    kernel rows unwritten: NaN models from 4,096 rows (BoundSVR from 2,048), found by fuzzing
    the default fits over data shapes."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((900, 1))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(900) > 0, 1.0, -1.0)
    C, tol = 3.0, 1e-6
    sol = solve_svm_dual(X, y, RBFKernel(sigma2=0.5), C, loss=loss, tol=tol)
    assert blocks == [qp.BLOCK_SIZE]
    assert_kkt(sol, y, C, loss, tol, K=RBFKernel(sigma2=0.5).block(X))


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_block_solve_whose_free_rows_do_not_fit_the_cache(blocks, monkeypatch, loss):
    """A cache of a few dozen rows and hundreds of free support vectors: the reconstruction of
    the shrunk gradients adds the free rows in groups the cache holds at once; the KKT
    conditions hold on a gradient recomputed from K (the solver's own agrees to the rounding of
    the cache's float32 rows), at the pair SMO's objective."""
    monkeypatch.setattr(qp, "BLOCK_SIZE", 16)
    X, y = _data(n=900, seed=3)
    kernel, C, tol = RBFKernel(sigma2=0.5), 10.0, 1e-6
    with solve_threads_scope(2):
        sol = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol, cache_size=0.15)
    assert blocks == [16]
    a = sol.alpha
    free = (a > 0) & (a < (np.inf if loss == "l2" else C))
    assert np.count_nonzero(free) > 100                # several groups of at most ~20 rows
    Q = q_tilde(kernel.block(X), y, C, loss)
    G = Q @ a - 1.0
    slack = 1e-6 * (1.0 + a.sum() * np.abs(Q).max())   # float32 rows in the solver's sums
    np.testing.assert_allclose(sol.gradient, G, rtol=0, atol=slack)
    m = G + y * sol.b                                  # y_i f_i − 1
    assert np.all(np.abs(m[free]) <= tol + slack) and np.all(m[a == 0] >= -tol - slack)
    assert loss == "l2" or np.all(m[a >= C] <= tol + slack)
    _smo_only(monkeypatch)
    ref = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_weighted_block_solve_and_its_gradient_bar(blocks, monkeypatch, loss):
    """Per-sample C_i (weights): the KKT conditions of each box, and Ḡ = Σ_{α_j = C_j} C_j Q_j
    (what a restart at another C reads) equal to Ḡ recomputed from K."""
    monkeypatch.setattr(qp, "BLOCK_SIZE", 32)
    X, y = _data(seed=2)
    w = np.random.default_rng(0).uniform(0.3, 3.0, y.size)
    kernel, C, tol = RBFKernel(sigma2=1.0), 2.0, 1e-6
    sol = solve_svm_dual(X, y, kernel, C, loss=loss, tol=tol, weights=w)
    assert blocks
    assert sol.converged and sol.max_violation < tol
    K = kernel.block(X)
    Q = (y[:, None] * y[None, :]) * K
    h = 1.0 / (C * w) if loss == "l2" else 0.0
    G = Q @ sol.alpha + h * sol.alpha - 1.0
    np.testing.assert_allclose(sol.gradient, G, rtol=0, atol=1e-9 * np.abs(G).max())
    u = C * w if loss == "l1" else np.full(y.size, np.inf)
    bounded = sol.alpha >= u
    if loss == "l1":
        assert bounded.any()
    G_bar = Q[:, bounded] @ u[bounded] + np.where(bounded, h * u, 0.0)
    np.testing.assert_allclose(sol.gradient_bar, G_bar, rtol=0, atol=1e-9 * C * w.max())
    up = ((y > 0) & (sol.alpha < u)) | ((y < 0) & (sol.alpha > 0))
    low = ((y > 0) & (sol.alpha > 0)) | ((y < 0) & (sol.alpha < u))
    assert np.max(-y[up] * G[up]) - np.min(-y[low] * G[low]) < tol + 1e-9


def test_a_warm_started_block_solve(blocks, monkeypatch):
    """A restart at another C from the previous solution (``warm_from``: α scaled, G and Ḡ
    carried over) reaches the optimum of a cold solve at that C."""
    monkeypatch.setattr(qp, "BLOCK_SIZE", 64)
    X, y = _data(seed=3)
    kernel, tol = RBFKernel(sigma2=3.0), 1e-6
    first = solve_svm_dual(X, y, kernel, 1.0, loss="l1", tol=tol)
    warm = solve_svm_dual(X, y, kernel, 4.0, loss="l1", tol=tol, warm_from=first)
    cold = solve_svm_dual(X, y, kernel, 4.0, loss="l1", tol=tol)
    assert len(blocks) == 3
    assert_kkt(warm, y, 4.0, "l1", tol, K=kernel.block(X))
    assert warm.objective == pytest.approx(cold.objective, rel=1e-7)


def test_the_radius_qp_by_blocks(blocks, monkeypatch):
    """R² (the radius QP, y = e, s = 2, p = −diag K) by blocks is R² by pairs."""
    monkeypatch.setattr(qp, "BLOCK_SIZE", 32)
    X, _ = _data(seed=4)
    kernel = PolynomialKernel(degree=2, coef0=1.0)      # a non-constant diagonal
    r = solve_radius(X, kernel, tol=1e-8)
    assert blocks
    _smo_only(monkeypatch)
    ref = solve_radius(X, kernel, tol=1e-8)
    assert r.r2 == pytest.approx(ref.r2, rel=1e-7)


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_block_solve_gives_the_same_bits_on_one_and_two_threads(blocks, monkeypatch, loss):
    """The gradient update runs in pieces on the threads; each entry's sum is formed in the
    working set's order, and the rows' pieces (dense features: one BLAS product each) do not
    depend on where they run, so α, b and G are the same bits on one thread and on two."""
    monkeypatch.setattr(qp, "BLOCK_SIZE", 32)
    monkeypatch.setattr("svmbound.solvers._update.PIECE", 64)     # several pieces
    X, y = _data(n=2 * ROW_CHUNK + 300, seed=5)                  # rows of three pieces
    sols = []
    for threads in (1, 2):
        with solve_threads_scope(threads):
            sols.append(solve_svm_dual(X, y, RBFKernel(sigma2=1.5), 5.0, loss=loss, tol=1e-4))
    a, b = sols
    assert len(blocks) == 2
    assert a.alpha.tobytes() == b.alpha.tobytes() and a.b == b.b
    assert a.gradient.tobytes() == b.gradient.tobytes()


def test_a_block_solve_stops_at_its_iteration_cap(blocks, monkeypatch):
    """``max_iter`` caps the inner pair steps: the solve stops there, unconverged, with a
    feasible α and its full gradient."""
    monkeypatch.setattr(qp, "BLOCK_SIZE", 32)
    X, y = _data(seed=6)
    kernel, C = RBFKernel(sigma2=0.5), 10.0
    sol = solve_svm_dual(X, y, kernel, C, loss="l1", tol=1e-8, max_iter=40)
    assert blocks
    assert not sol.converged and 0 < sol.n_iter <= 40
    assert np.all((sol.alpha >= 0) & (sol.alpha <= C)) and abs(y @ sol.alpha) < 1e-9
    G = (y[:, None] * y[None, :]) * kernel.block(X) @ sol.alpha - 1.0
    np.testing.assert_allclose(sol.gradient, G, rtol=0, atol=1e-9 * np.abs(G).max())


def test_a_set_stop_flag_returns_before_any_step():
    """With the stop flag set the solver returns at once, interrupted, α untouched."""
    X, y = _data(n=300)
    Xt = np.ascontiguousarray(X.T)
    sq = np.einsum("ij,ij->i", X, X)
    alpha = np.zeros(y.size)
    out = block_smo(Xt, sq, y, -np.ones(y.size), np.full(y.size, 1.0), alpha, -np.ones(y.size),
                    np.zeros(y.size), 1, 0.5, 0.0, 3, 1.0, 0.0, 1e-3, 1000,
                    np.empty((64, y.size)), np.ones(1, dtype=np.int64), 1, 1, 16, 0)
    G, n_iter, violation, rows, interrupted = out
    assert interrupted and n_iter == 0 and rows == 0
    assert not alpha.any()


def _pooled_solve(loss, threads, cache_rows, pool_rows):
    """A block solve (working sets of 16) of 900 rows in a cache of ``cache_rows`` rows the
    last ``pool_rows`` of which may hold the pool: (α, G, the rows computed, buf)."""
    X, y = _data(n=900, seed=3)
    Xt = np.ascontiguousarray(X.T)
    sq = np.einsum("ij,ij->i", X, X)
    n = y.size
    ub = np.full(n, 3.0) if loss == "l1" else np.full(n, np.inf)
    alpha, G, G_bar = np.zeros(n), -np.ones(n), np.zeros(n)
    buf = np.full((cache_rows, n), np.nan)
    with solve_threads_scope(threads):
        res = qp._solve_and_offset(block_smo, Xt, sq, y, -np.ones(n), ub, alpha, G, G_bar, RBF,
                                   0.1, 0.0, 3, 1.0, 0.0 if loss == "l1" else 0.01, 1e-6,
                                   10**6, buf, np.zeros(1, dtype=np.int64), threads, 1, 16,
                                   pool_rows)
    assert not res[4] and res[2] < 1e-6
    return alpha.tobytes(), res[0].tobytes(), res[3], buf


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_the_update_over_pooled_rows_gives_the_bits_of_the_cached_rows(loss, threads):
    """Once the active set has shrunk, the gradient update reads the moved rows over its region
    from the pool (``_update._pool_rows``) in the cache's last rows. With a cache that keeps
    every row before them: no pool (every update over the cache's full rows), a pool of 22 rows'
    memory (fewer than the rows it copies: slots taken again by the clock rule) and one of 900
    give the same α and G to the bit."""
    n = 900
    ref = _pooled_solve(loss, threads, n, 0)
    small = _pooled_solve(loss, threads, n + 22, 22)
    large = _pooled_solve(loss, threads, 2 * n, n)
    assert small[:3] == ref[:3] and large[:3] == ref[:3]
    written = [np.isfinite(b[n:]).sum() for b in (small[3], large[3])]
    assert written[0] > 0 and written[1] > 22 * n     # both pools used, the small one full


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_a_pool_never_costs_the_cache_a_row(loss):
    """In a cache of 64 rows the pool's 8 are given back as soon as the cache would grow into
    them: the same rows computed and the same bits as with no pool."""
    assert _pooled_solve(loss, 1, 64, 8)[:3] == _pooled_solve(loss, 1, 64, 0)[:3]


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_an_svr_solve_by_blocks(blocks, monkeypatch, loss):
    """The ε-SVR's dual (X stacked twice, 2n variables) by blocks: the pair SMO's objective to
    the tolerance, and the prediction on the training rows within the tolerance of the pairs'."""
    from svmbound.solvers.svr import solve_svr_dual

    monkeypatch.setattr(qp, "BLOCK_SIZE", 64)
    rng = np.random.default_rng(7)
    X = rng.standard_normal((400, 3))
    z = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(400)
    kernel = RBFKernel(sigma2=1.0)
    sol = solve_svr_dual(X, z, kernel, 5.0, 0.05, loss=loss, tol=1e-6)
    assert blocks and sol.converged
    _smo_only(monkeypatch)
    ref = solve_svr_dual(X, z, kernel, 5.0, 0.05, loss=loss, tol=1e-6)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)
    K = kernel.block(X)
    np.testing.assert_allclose(K @ sol.beta + sol.b, K @ ref.beta + ref.b, atol=1e-4)


def test_request_stop_ends_a_long_block_solve_within_a_fraction_of_a_second(blocks, monkeypatch):
    """A stop request reaches the block solver between its outer steps and between the rows of
    one: a solve of seconds ends within half a second of it."""
    from _stopper import stopped_solve
    from sklearn.datasets import make_classification

    monkeypatch.setattr(qp, "BLOCK_SIZE", 64)
    X, y = make_classification(n_samples=3000, n_features=10, n_informative=6, flip_y=0.2,
                               random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    kernel = RBFKernel(sigma2=5.0)
    late = stopped_solve(lambda: solve_svm_dual(X, y, kernel, np.exp(7.0), loss="l1", tol=1e-6))
    assert blocks
    assert late < 0.5


@pytest.mark.parametrize("zeros", [0.7, 0.0])
def test_rows_fetched_together_are_the_cached_rows_one_by_one(zeros):
    """``_get_rows`` (the moved rows of an outer step, the free rows of a reconstruction): more
    rows than one batch, some already cached; each slot it returns holds that row of Q as
    ``_get_row`` computes it (diagonal shift included) — the same bits where the batch's
    features are mostly zeros (sums skipping them), to rounding where they fill more than
    ``GEMM_MIN_FILL`` (one BLAS product) — only the missing rows are computed, and a set stop
    flag fetches nothing."""
    X, y = _data(n=300, d=5, zeros=zeros)
    Xt, sq = np.ascontiguousarray(X.T), np.einsum("ij,ij->i", X, X)
    n, scale, shift, gamma = 300, 1.0, 0.25, 0.4
    ids = np.arange(5, 5 + 3 * ROW_BATCH + 3, dtype=np.int64)[::-1].copy()

    def cache():
        buf = np.empty((2 * ids.size, n))
        return (buf,) + setup(Xt, sq, n, RBF, gamma, 0.0, 3, scale, shift, buf, 1, 1)[:4]

    buf, slot_of, row_of, last_used, state = cache()
    for i in ids[::7]:          # some of them cached before
        _get_row(i, Xt, sq, y, RBF, gamma, 0.0, 3, scale, shift, buf, slot_of, row_of,
                 last_used, state)
    before = state[2]
    slots = np.empty(ids.size, dtype=np.int64)
    assert _get_rows(ids, slots, Xt, sq, y, RBF, gamma, 0.0, 3, scale, shift, buf, slot_of,
                     row_of, last_used, state, np.zeros(1, dtype=np.int64))
    assert state[2] - before == ids.size - ids[::7].size
    ref_buf, ref_slot_of, ref_row_of, ref_last, ref_state = cache()
    for r, i in enumerate(ids):
        row = _get_row(i, Xt, sq, y, RBF, gamma, 0.0, 3, scale, shift, ref_buf, ref_slot_of,
                       ref_row_of, ref_last, ref_state)
        if zeros:
            assert buf[slots[r]].tobytes() == row.tobytes()
        else:
            np.testing.assert_allclose(buf[slots[r]], row, rtol=1e-12, atol=1e-14)
            assert buf[slots[r], i] == row[i]            # K(x, x) = 1 exactly, plus the shift
    buf, slot_of, row_of, last_used, state = cache()
    assert not _get_rows(ids, slots, Xt, sq, y, RBF, gamma, 0.0, 3, scale, shift, buf, slot_of,
                         row_of, last_used, state, np.ones(1, dtype=np.int64))
    assert state[2] == 0 and (slot_of < 0).all()


@pytest.mark.parametrize("code, kernel", [(RBF, RBFKernel.from_gamma(0.3)),
                                          (LINEAR, LinearKernel())])
@pytest.mark.parametrize("zeros", [0.7, 0.0])
@pytest.mark.parametrize("m, keep", [(40, 12), (150, 70)])     # (the second: several tiles)
def test_the_working_sets_block_of_q(code, kernel, zeros, m, keep):
    """``_new_entries``: the rows and columns of Q_BB of the variables new to the working set
    are s·y_a·y_b·K(x_a, x_b), with Q's diagonal on the diagonal — by sums skipping the zeros
    (features mostly zeros) or by one BLAS product (features filling more than
    ``GEMM_MIN_FILL``) — and the kept variables' block is left as it was."""
    X, y = _data(n=300, d=7, zeros=zeros)
    Xt, sq = np.ascontiguousarray(X.T), np.einsum("ij,ij->i", X, X)
    rng = np.random.default_rng(3)
    q = m + 24
    ws = rng.choice(300, q, replace=False)
    scale = 2.0
    QD = 1.0 + rng.random(300)
    XBt = np.full((7, q), np.nan)
    XBt[:, :keep] = Xt[:, ws[:keep]]
    QB = np.full((q, q), np.nan)
    QB[:keep, :keep] = 7.0
    _new_entries(Xt, sq, ws, m, keep, code, 0.3, 0.0, 3, scale, y, QD, XBt, QB)
    B = ws[:m]
    ref = scale * np.outer(y[B], y[B]) * kernel.block(X[B])
    np.fill_diagonal(ref, QD[B])
    np.testing.assert_allclose(QB[keep:m, :m], ref[keep:], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(QB[:keep, keep:m], ref[:keep, keep:], rtol=1e-12, atol=1e-13)
    assert (QB[:keep, :keep] == 7.0).all() and np.isnan(QB[m:]).all()
    np.testing.assert_array_equal(XBt[:, :m], Xt[:, B])


def test_shrinking_keeps_each_kept_variables_score_with_it():
    """``_shrink`` compacts the active set in order and carries score[k] (−y G of act[k]) with
    each variable it keeps, so that the working set is chosen by the right scores without a
    second pass over the active set."""
    from svmbound.solvers._block import _shrink
    from svmbound.solvers._smo import _be_shrunk, _scores

    rng = np.random.default_rng(5)
    n = 500
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    ub = np.full(n, 2.0)
    alpha = np.where(rng.random(n) < 0.5, 0.0, np.where(rng.random(n) < 0.5, 2.0, 1.0))
    G = rng.standard_normal(n) * 3.0
    act = np.sort(rng.choice(n, 400, replace=False))
    score = np.empty(n)
    _scores(act, act.size, y, G, alpha, ub, score)
    before = set(act.tolist())
    gmax1, gmax2 = 0.5, 0.5                 # (thresholds that shrink some of them)
    active = np.zeros(n, dtype=np.bool_)
    active[act] = True
    m = _shrink(act, act.size, y, G, alpha, ub, gmax1, gmax2, active, score)
    shrunk = [t for t in before if _be_shrunk(t, y, G, alpha, ub, gmax1, gmax2)]
    assert 0 < len(shrunk) < len(before) and m == len(before) - len(shrunk)
    assert (np.diff(act[:m]) > 0).all() and set(act[m:act.size].tolist()) == set(shrunk)
    np.testing.assert_array_equal(score[:m], -y[act[:m]] * G[act[:m]])
    assert active[act[:m]].all() and not active[act[m:act.size]].any()


def test_blocks_from_block_min_rows_where_the_cache_holds_them(monkeypatch):
    """From ``BLOCK_MIN_ROWS`` rows (below ``CHUNKED_ROWS_MIN``) a solve whose configured cache
    holds 2·BLOCK_SIZE of its rows (or all n) runs by blocks, its dense rows laid out in pieces;
    with a smaller cache it stays by pairs with BLAS rows, as below ``BLOCK_MIN_ROWS``."""
    monkeypatch.setattr(qp, "BLOCK_MIN_ROWS", 300)
    seen = []
    real = qp._run

    def spy(args, max_iter, buf, flag, n, d_eff, stall=False, pieces=0):
        seen.append((qp.uses_blocks(n, buf.shape[0], pieces), pieces))
        return real(args, max_iter, buf, flag, n, d_eff, stall, pieces)
    monkeypatch.setattr(qp, "_run", spy)
    X, y = _data(n=900)
    for cache, by_blocks in ((200, True), (1, False)):     # 900 rows: 6.2 MB in float64
        seen.clear()
        sol = solve_svm_dual(X, y, RBFKernel(sigma2=2.0), 3.0, loss="l1", tol=1e-6,
                             cache_size=cache)
        assert seen == [(by_blocks, int(by_blocks))]
        # (1 MB: float32 rows, whose gradient is not K's in float64 to 1e-12)
        assert_kkt(sol, y, 3.0, "l1", 1e-6, K=RBFKernel(sigma2=2.0).block(X) if by_blocks
                   else None)
    seen.clear()
    solve_svm_dual(X[:299], y[:299], RBFKernel(sigma2=2.0), 3.0, loss="l1", cache_size=200)
    assert seen == [(False, 0)]
