"""Numba block working-set solver for the SMO's QP (``_smo``), for large dense problems
(issue 32).

    min_a  ½ aᵀ Q a + pᵀ a     s.t.  yᵀ a = const,  0 ≤ a_i ≤ u_i  (u_i may be +inf)

with Q_ij = s · y_i y_j (K_ij + h_i δ_ij): the problem, kernel rows, row cache, shrinking and
stopping rule of ``_smo.smo``, by another path to the optimum — the decomposition of ThunderSVM
(Wen et al., JMLR 2018) and of oneDAL's "thunder" method. At each outer step

1. LIBSVM's shrinking of the active set (``_smo._be_shrunk``; G of the shrunk variables
   recomputed as LIBSVM's reconstruct_gradient, on the threads, once the violation is below
   10·tol and at the end: ``_unshrink``);
2. the working set B keeps those of the last ``size``/2 variables chosen that are still active,
   and takes the most violating others — alternately the largest −y_t G_t of I_up = {t : y_t α_t
   may grow} and the least of I_low = {t : y_t α_t may fall} (one pass, a partition, a sort of
   at most ``size`` of them); the first step chooses ``size``;
3. Q_BB: the kept block as it was, the new entries from the features (Xᵀ, the layout of rows
   in pieces): one BLAS product where the new variables' features are mostly non-zero, else
   sums of rows of X_Bᵀ over the non-zero features (as ``_rows.q_rows_pieces`` decides);
4. the sub-problem on B is solved by the SMO's own steps (WSS 2 of Fan, Chen & Lin,
   ``_smo._first``/``_second``; LIBSVM's clipped pair update ``_smo.pair_step``) until its
   violation is below max(tol, ``INNER_REL``·its first), or ``INNER_ITER``·|B| steps;
5. G += Σ_{k ∈ B, Δα_k ≠ 0} Δα_k Q_k over the update's region — every variable, or, once the
   active set has fallen below ``REGION_REL`` of the region, the active set as it is then (a
   superset of the active set until the next reconstruction; G of the variables shrunk since
   is updated too, and recomputed at the reconstruction anyway) — the rows Q_k from the LRU
   cache (``_get_rows``: computed only for the variables that moved, ``ROW_BATCH`` of them
   together so that each piece of Xᵀ is read from memory once for them all — one BLAS product
   a piece for features mostly non-zero), read contiguously: the cache's full rows while the
   region is every variable, else their copies over the region in a pool (``_update``): the
   last ``pool_rows`` rows of the cache's memory, used only while the cache has not grown into
   them — given back as soon as it would (``_update._cache_reaches``), so that the pool never
   costs the cache a row; without it the update reads the full rows contiguously while the
   active set is at least ``REGION_REL`` of n, through its index below. The copies are made at
   a row's first use in a region (LIBSVM keeps its cached rows in the active set's order by
   swapping entries at each shrinking; a read through the active set's index took 3× as long).
   In pieces of ``_update.PIECE`` positions on ``threads`` threads, each entry summed in B's
   order: the same bits on any number of threads, and with or without the pool where the
   cache keeps its rows (a row computed again after its eviction may differ in its last bits:
   the BLAS product of its batch, ``_rows.q_rows_pieces``). Ḡ += ±u_k Q_k for each α_k that
   reached or left its bound u_k.

It stops when the maximal KKT violation over all n, max_{I_up} −y G − min_{I_low} −y G (the
SMO's Gmax + Gmax2), falls below ``tol``. The SMO pays three passes over the active set for
every pair step (a9a: 55,000 steps over up to 32,561); here the passes are once an outer step,
the pair steps stay in B's |B|² block, and only the update reads rows over the active set —
about one row per pair step (measurements: ``docs/decisions.md``, "block_smo"). ``n_iter``
counts the inner pair steps (the SMO's iterations); ``max_iter`` caps them. The caller gives a
cache of at least 2·``size`` rows, or of all n (``qp.uses_blocks``).
"""

import numpy as np
from numba import njit

from .._lapack import gemm_rows
from .._vexp import exp_nonpositive
from ..kernels._rows import (LINEAR, RBF, ROW_BATCH, gemm_pays, q_rows_pieces, rows_in_pieces,
                             shift_at)
from ._smo import (_add_row, _be_shrunk, _first, _get_row, _scores, _second, _slot_for, in_low,
                   in_up, pair_step, setup)
from ._update import (_add_free_rows, _add_free_rows_parallel, _add_rows, _add_rows_parallel,
                      _cache_reaches, _pool_rows)

#: Inner solve: stop below max(tol, INNER_REL × its first violation), or after INNER_ITER × |B|
#: pair updates (ThunderSVM's 0.1 — the form of its ν-SVM; its C-SVM's takes the min — and its
#: 100·|B| without its floor of 100,000; not tuned here: ``docs/decisions.md``).
INNER_REL = 0.1
INNER_ITER = 100
#: The gradient update's region follows the active set once that is below REGION_REL of the
#: region, if the pool then holds POOL_MIN_ROWS working sets' rows of its length
#: (``docs/decisions.md``, "block_smo's region").
REGION_REL = 0.4
POOL_MIN_ROWS = 2
#: Q_BB's kept rows get their new columns in tiles of _TILE × _TILE entries.
_TILE = 32


@njit(cache=True, nogil=True)
def _best(act, m, score, y, alpha, ub, in_ws, want, up, key, var):
    """The (at most) ``want`` active variables not in the working set with the largest score
    −yG in I_up (``up``) or the least in I_low, best first: one pass, a partition at the
    ``want``-th, and a sort of those. Returns their number; they are var[:count]."""
    c = 0
    for k in range(m):
        t = act[k]
        if in_ws[t]:
            continue
        if in_up(y[t], alpha[t], ub[t]) if up else in_low(y[t], alpha[t], ub[t]):
            key[c] = -score[k] if up else score[k]
            var[c] = t
            c += 1
    if c > want:
        cut = np.partition(key[:c], want - 1)[want - 1]
        kept = 0
        for k in range(c):
            if key[k] <= cut:
                key[kept] = key[k]
                var[kept] = var[k]
                kept += 1
        c = kept
    rank = np.argsort(key[:c], kind="mergesort")
    chosen = var[:c][rank]
    var[:c] = chosen
    return min(c, want)


@njit(cache=True, nogil=True)
def _take(var, count, i, in_ws, ws, m):
    """Append to ws[:m] the first of var[i:count] not in the working set. Returns (the
    position after it, the new size)."""
    while i < count:
        t = var[i]
        i += 1
        if not in_ws[t]:
            in_ws[t] = True
            ws[m] = t
            return i, m + 1
    return i, m


@njit(cache=True, nogil=True)
def _choose(act, m_act, score, y, alpha, ub, in_ws, ws, m, want, key, up_var, low_var):
    """Append up to ``want`` variables to ws[:m]: alternately the next most violating of I_up
    (largest −yG) and of I_low (least −yG) among the active ones, skipping those in the
    working set (a free variable is in both). Returns the new size."""
    n_up = _best(act, m_act, score, y, alpha, ub, in_ws, want, True, key, up_var)
    n_low = _best(act, m_act, score, y, alpha, ub, in_ws, want, False, key, low_var)
    end = m + want
    i = 0
    j = 0
    while m < end and (i < n_up or j < n_low):
        i, m = _take(up_var, n_up, i, in_ws, ws, m)
        if m < end:
            j, m = _take(low_var, n_low, j, in_ws, ws, m)
    return m


@njit(cache=True, nogil=True)
def _inner(QB, yB, GB, aB, uB, QDB, local, tol, max_steps):
    """The SMO on the working set's sub-problem (positions 0..q−1), in place on aB and GB.
    Returns the number of pair updates."""
    q = yB.shape[0]
    steps = 0
    eps = tol
    while True:
        Gmax, i = _first(local, 0, q, yB, GB, aB, uB)
        if i < 0:
            break
        Gmax2, j, _ = _second(local, 0, q, yB, GB, aB, uB, QDB, QB[i], yB[i], QDB[i], Gmax)
        if steps == 0:
            eps = max(tol, INNER_REL * (Gmax + Gmax2))
        if j < 0 or Gmax + Gmax2 < eps or steps >= max_steps:
            break
        steps += 1
        old_i, old_j = aB[i], aB[j]
        aB[i], aB[j] = pair_step(yB[i], yB[j], old_i, old_j, uB[i], uB[j], GB[i], GB[j],
                                 QDB[i], QDB[j], QB[i, j])
        dai = aB[i] - old_i
        daj = aB[j] - old_j
        Qi = QB[i]
        Qj = QB[j]
        for k in range(q):
            GB[k] += Qi[k] * dai + Qj[k] * daj
    return steps


@njit(cache=True, nogil=True)
def _get_rows(ids, slots, X, sq, y, code, gamma, coef0, degree, scale, shift, buf, slot_of,
              row_of, last_used, state, stop):
    """slots[r] = the cache slot of row ids[r] of Q (``_smo._get_row`` for each; all of them
    cached at once: the caller asks for at most the cache's rows), the missing rows computed
    ``ROW_BATCH`` at a time (``_rows.q_rows_pieces``: each piece of Xᵀ read once for them).
    Returns False, the rows from there on not fetched, when ``stop[0]`` is set."""
    if not rows_in_pieces(X, state[4]):
        for r in range(ids.shape[0]):
            if stop[0] != 0:
                return False
            _get_row(ids[r], X, sq, y, code, gamma, coef0, degree, scale, shift, buf,
                     slot_of, row_of, last_used, state)
            slots[r] = slot_of[ids[r]]
        return True
    missing = np.empty(ROW_BATCH, dtype=np.int64)
    missing_slots = np.empty(ROW_BATCH, dtype=np.int64)
    r = 0
    while r < ids.shape[0]:
        if stop[0] != 0:
            return False
        count = 0
        while r < ids.shape[0] and count < ROW_BATCH:
            s, cached = _slot_for(ids[r], buf, slot_of, row_of, last_used, state)
            slots[r] = s
            if not cached:
                missing[count] = ids[r]
                missing_slots[count] = s
                count += 1
            r += 1
        if count > 0:
            q_rows_pieces(X, sq, missing[:count], missing_slots[:count], code, gamma, coef0,
                          degree, y, scale, buf, state[3])
            for k in range(count):
                i = missing[k]
                buf[missing_slots[k], i] += scale * shift_at(shift, i)
    return True


@njit(cache=True, nogil=True)
def _new_entries(Xt, sq, ws, m, keep, code, gamma, coef0, degree, scale, y, QD, XBt, QB):
    """Q_BB's entries in the rows and columns of ws[keep:m] (the others are the previous
    step's). XBt[:, k] holds the features of ws[k] (gathered here for the new ones from Xt =
    Xᵀ, the solver's layout for dense data); ⟨x_a, x_b⟩ for every b by one BLAS product when
    at least ``GEMM_MIN_ROWS`` new variables' non-zero features fill at least ``GEMM_MIN_FILL``
    of theirs (``_rows.gemm_pays``, the rule of ``q_rows_pieces``), else as a sum of XBt's rows
    over the non-zero features of x_a (as ``_rows._q_piece``); then the kernel, the labels, the
    scale, and Q's diagonal QD on the diagonal. Entries between two new variables are those of
    the row computed for each (equal to rounding)."""
    d = Xt.shape[0]
    if keep == m:
        return
    new = m - keep
    XN = np.empty((new, d))         # the new variables' features, one row each
    filled = 0
    for f in range(d):
        row = Xt[f]
        for k in range(keep, m):
            v = row[ws[k]]
            XBt[f, k] = v
            XN[k - keep, f] = v
            if v != 0.0:
                filled += 1
    gemm = gemm_pays(new, filled, d)
    if gemm:
        dots = np.empty((new, m))
        gemm_rows(XBt[:, :m], XN, dots)
    sqB = np.empty(m)
    yB = np.empty(m)
    for b in range(m):
        sqB[b] = sq[ws[b]]
        yB[b] = y[ws[b]]
    nz = np.empty(d, dtype=np.int64)
    for ka in range(keep, m):
        acc = QB[ka, :m]                # the row, computed in place
        if gemm:
            acc[:] = dots[ka - keep]
        else:
            n_nz = 0
            for f in range(d):
                if XN[ka - keep, f] != 0.0:
                    nz[n_nz] = f
                    n_nz += 1
            acc[:] = 0.0
            for t in range(n_nz):
                f = nz[t]
                v = XN[ka - keep, f]
                src = XBt[f]
                for b in range(m):
                    acc[b] += v * src[b]
        if code == RBF:
            sqa = sqB[ka]
            for b in range(m):
                d2 = sqa + sqB[b] - 2.0 * acc[b]
                acc[b] = -gamma * d2 if d2 > 0.0 else 0.0
            exp_nonpositive(acc)
        elif code != LINEAR:
            for b in range(m):
                acc[b] = (gamma * acc[b] + coef0) ** degree
        ya = yB[ka] * scale
        for b in range(m):
            acc[b] *= ya * yB[b]
        QB[ka, ka] = QD[ws[ka]]
    # the kept rows' new columns: the new rows' entries across the diagonal, in tiles (a
    # column written entry by entry took a third of this function's time)
    for b0 in range(0, keep, _TILE):
        for a0 in range(keep, m, _TILE):
            for b in range(b0, min(keep, b0 + _TILE)):
                for a in range(a0, min(m, a0 + _TILE)):
                    QB[b, a] = QB[a, b]


@njit(cache=True, nogil=True)
def _shrink(act, m, y, G, alpha, ub, Gmax1, Gmax2, active, score):
    """LIBSVM's shrinking of act[:m] (``_smo._be_shrunk``), keeping the order of those that
    stay (act[:m] stays sorted), and their score[k] (−yG of act[k], ``_smo._scores``) with
    them; the shrunk ones follow them. Returns the new m."""
    keep = 0
    out = np.empty(m, dtype=np.int64)
    n_out = 0
    for k in range(m):
        t = act[k]
        if _be_shrunk(t, y, G, alpha, ub, Gmax1, Gmax2):
            active[t] = False
            out[n_out] = t
            n_out += 1
        else:
            act[keep] = t
            score[keep] = score[k]
            keep += 1
    for k in range(n_out):
        act[keep + k] = out[k]
    return keep


@njit(cache=True, nogil=True)
def _unshrink(act, m, n, G, G_bar, p, alpha, ub, X, sq, y, code, gamma, coef0, degree,
              scale, shift, buf, slot_of, row_of, last_used, state, stop, active, threads):
    """G on the shrunk variables act[m:] recomputed, G = Ḡ + p + Σ_{free j} α_j Q_j (LIBSVM's
    reconstruct_gradient, as ``_smo._reconstruct``), the free rows read contiguously over all
    n positions and added where a variable is shrunk (``_add_free_rows``: most positions are,
    and a gather over them alone cost about 4× more), in pieces on ``threads`` threads (the same
    bits on any number), in groups of at most half the cache's rows (all of a group's rows
    cached at once); every variable active after. Returns early (G then incomplete) when
    ``stop[0]`` is set."""
    if m < n:
        for k in range(m, n):
            t = act[k]
            G[t] = G_bar[t] + p[t]
        free = np.empty(m, dtype=np.int64)
        n_free = 0
        for k in range(m):
            t = act[k]
            if 0.0 < alpha[t] < ub[t]:
                free[n_free] = t
                n_free += 1
        group = max(1, buf.shape[0] // 2)
        slots = np.empty(min(group, max(n_free, 1)), dtype=np.int64)
        coef = np.empty(slots.shape[0])
        for g0 in range(0, n_free, group):
            g1 = min(n_free, g0 + group)
            if not _get_rows(free[g0:g1], slots, X, sq, y, code, gamma, coef0, degree, scale,
                             shift, buf, slot_of, row_of, last_used, state, stop):
                return m
            for k in range(g0, g1):
                coef[k - g0] = alpha[free[k]]
            if threads > 1:
                _add_free_rows_parallel(G, buf, slots[:g1 - g0], coef[:g1 - g0], active, n)
            else:
                _add_free_rows(G, buf, slots[:g1 - g0], coef[:g1 - g0], active, 0, n)
    act.sort()
    active[:] = True
    return n


@njit(cache=True, nogil=True)
def block_smo(X, sq, y, p, ub, alpha, G, G_bar, code, gamma, coef0, degree, scale, shift, tol,
              max_iter, buf, stop, threads, pieces, size, pool_rows):
    """Solve the QP in place on ``alpha`` (feasible) by working sets of ``size`` variables
    (even; ``buf`` holds at least 2·``size`` rows); X is Xᵀ (``pieces``: dense features laid
    out for rows in pieces); ``pool_rows``: how many of buf's last rows may hold the pool of
    moved rows over the update's region while the cache does not need them (step 5; 0: every
    update over the cache's full rows). Arguments and
    result as ``_smo.smo``'s: (G, n_iter, violation, n_kernel_rows, interrupted); G is the
    full gradient unless interrupted."""
    n = y.shape[0]
    slot_of, row_of, last_used, state, QD = setup(X, sq, n, code, gamma, coef0, degree, scale,
                                                  shift, buf, threads, pieces)
    q = size
    half = q // 2
    ws = np.empty(q, dtype=np.int64)
    slots = np.empty(q, dtype=np.int64)
    moved = np.empty(q, dtype=np.int64)
    moved_at = np.empty(q, dtype=np.int64)
    moved_slots = np.empty(q, dtype=np.int64)
    in_ws = np.zeros(n, dtype=np.bool_)
    active = np.ones(n, dtype=np.bool_)
    act = np.arange(n)
    m_act = n
    local = np.arange(q)
    score = np.empty(n)
    key = np.empty(n)
    up_var = np.empty(n, dtype=np.int64)
    low_var = np.empty(n, dtype=np.int64)
    kept_at = np.empty(q, dtype=np.int64)
    QB = np.empty((q, q))
    QB_old = np.empty((q, q))
    XBt = np.empty((X.shape[0], q))
    XBt_old = np.empty((X.shape[0], q))
    unshrink = False
    # the gradient update's region reg[:m_reg] ⊇ the active set, and the pool of moved rows
    # over it
    reg = np.arange(n)
    m_reg = n
    pool_start = buf.shape[0] - pool_rows          # (the cache fills its slots from 0 up)
    pool = buf[pool_start:].reshape(-1)
    pool_of = np.empty(n, dtype=np.int64)
    var_of = np.empty(0, dtype=np.int64)
    used = np.empty(0, dtype=np.int64)
    clock = np.zeros(2, dtype=np.int64)
    rows = buf
    m = 0
    n_iter = 0
    violation = np.inf
    interrupted = False
    while True:
        if stop[0] != 0:
            interrupted = True
            break
        up, low = _scores(act, m_act, y, G, alpha, ub, score)     # score[k]: −yG of act[k]
        violation = up - low
        # optimal on the active set: check on every variable; LIBSVM's shrinking
        # (do_shrinking) once an outer step, every variable back once the violation is below
        # 10·tol
        done = violation < tol or n_iter >= max_iter
        if done and m_act == n:
            break
        if done or (not unshrink and violation <= 10.0 * tol):
            unshrink = unshrink or not done
            if pool_start < buf.shape[0] and _cache_reaches(act, m_act, True, alpha, ub,
                                                            slot_of, state, pool_start):
                pool_start = buf.shape[0]       # the pool's rows given back to the cache
            m_act = _unshrink(act, m_act, n, G, G_bar, p, alpha, ub, X, sq, y, code, gamma,
                              coef0, degree, scale, shift, buf, slot_of, row_of, last_used,
                              state, stop, active, threads)
            if stop[0] != 0:
                interrupted = True
                break
            m_reg = n
            reg[:] = act        # (0, …, n − 1 again)
            rows = buf
            if done:
                continue
            # every variable back, G reconstructed: their scores (the shrinking below keeps
            # this step's thresholds up, low, as LIBSVM's)
            _scores(act, m_act, y, G, alpha, ub, score)
        m_act = _shrink(act, m_act, y, G, alpha, ub, up, -low, active, score)
        if (pool_start < buf.shape[0] and 0 < m_act < REGION_REL * m_reg
                and pool.shape[0] // m_act >= POOL_MIN_ROWS * q):
            # a new region, the active set; the pool carved into rows of its length
            m_reg = m_act
            reg[:m_reg] = act[:m_reg]
            n_pool = min(pool.shape[0] // m_reg, n)
            rows = pool[:n_pool * m_reg].reshape((n_pool, m_reg))
            pool_of[:] = -1
            var_of = -np.ones(n_pool, dtype=np.int64)
            used = -np.ones(n_pool, dtype=np.int64)
            clock[1] = 0
        # the working set: the last half chosen that is still active, then the most violating
        # of the others
        keep = 0
        for k in range(m):
            t = ws[k]
            in_ws[t] = False
            if k >= m - half and active[t]:
                ws[keep] = t
                kept_at[keep] = k
                keep += 1
        QB, QB_old = QB_old, QB
        XBt, XBt_old = XBt_old, XBt
        for k in range(keep):
            in_ws[ws[k]] = True
        m = _choose(act, m_act, score, y, alpha, ub, in_ws, ws, keep, q - keep, key, up_var,
                    low_var)
        # Q_BB: the block of the kept variables as it was, the new ones' entries computed
        for k in range(keep):
            XBt[:, k] = XBt_old[:, kept_at[k]]
            for l in range(keep):
                QB[k, l] = QB_old[kept_at[k], kept_at[l]]
        _new_entries(X, sq, ws, m, keep, code, gamma, coef0, degree, scale, y, QD, XBt, QB)
        yB, GB, aB, uB, QDB = np.empty(m), np.empty(m), np.empty(m), np.empty(m), np.empty(m)
        for k in range(m):
            t = ws[k]
            yB[k] = y[t]
            GB[k] = G[t]
            aB[k] = alpha[t]
            uB[k] = ub[t]
            QDB[k] = QD[t]
        steps = _inner(QB, yB, GB, aB, uB, QDB, local[:m], tol, min(INNER_ITER * m,
                                                                    max_iter - n_iter))
        n_iter += steps
        # the rows of the variables that moved (a stop between them leaves α as it was: the
        # block's changes keep yᵀα only all together)
        delta = np.zeros(m)
        n_moved = 0
        for k in range(m):
            delta[k] = aB[k] - alpha[ws[k]]
            if delta[k] != 0.0:
                moved[n_moved] = ws[k]
                moved_at[n_moved] = k
                n_moved += 1
        if pool_start < buf.shape[0] and _cache_reaches(moved, n_moved, False, alpha, ub,
                                                        slot_of, state, pool_start):
            pool_start = buf.shape[0]           # the pool's rows given back to the cache;
            m_reg = n                           # this update and the next over full rows
            reg[:] = np.arange(n)
            rows = buf
        fetched = _get_rows(moved[:n_moved], moved_slots, X, sq, y, code, gamma, coef0,
                            degree, scale, shift, buf, slot_of, row_of, last_used, state, stop)
        for k in range(n_moved):
            slots[moved_at[k]] = moved_slots[k]
        if not fetched or stop[0] != 0:
            interrupted = True
            break
        for k in range(m):
            t = ws[k]
            was = alpha[t] >= ub[t]
            alpha[t] = aB[k]
            if was != (aB[k] >= ub[t]):     # keep Ḡ = Σ_{α_j = u_j} u_j Q_j over all n
                _add_row(G_bar, -ub[t] if was else ub[t], buf[slots[k]], threads)
        if m_reg < n:           # the moved rows over the region, from the pool
            _pool_rows(moved, moved_slots, n_moved, buf, rows, reg, m_reg, pool_of, var_of,
                       used, clock, threads)
            for k in range(n_moved):
                slots[moved_at[k]] = moved_slots[k]
        # over the region; or, with no pool for a small active set, through its index
        gather = m_reg == n and m_act < REGION_REL * n
        at, m_at = (act, m_act) if gather else (reg, m_reg)
        if threads > 1:
            _add_rows_parallel(G, rows, slots[:m], delta, at, m_at, gather)
        else:
            _add_rows(G, rows, slots[:m], delta, at, 0, m_at, gather)
        if steps == 0:          # no pair of the working set improves: the SMO's j = −1
            if m_act < n:       # (the last fetch: the pool is not read after it)
                m_act = _unshrink(act, m_act, n, G, G_bar, p, alpha, ub, X, sq, y, code,
                                  gamma, coef0, degree, scale, shift, buf, slot_of, row_of,
                                  last_used, state, stop, active, threads)
            up, low = _scores(act, m_act, y, G, alpha, ub, score)
            violation = up - low
            interrupted = stop[0] != 0
            break
    return G, n_iter, violation, state[2], interrupted
