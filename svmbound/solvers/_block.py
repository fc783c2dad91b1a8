"""Numba block working-set solver for the SMO's QP (``_smo``), for large problems (issue 32).

    min_a  ½ aᵀ Q a + pᵀ a     s.t.  yᵀ a = const,  0 ≤ a_i ≤ u_i  (u_i may be +inf)

with Q_ij = s · y_i y_j (K_ij + h_i δ_ij), the same problem, rows, cache and stopping rule as
``_smo.smo``; the path to the optimum differs. This is the decomposition of ThunderSVM (Wen et
al., JMLR 2018) and of oneDAL's "thunder" method: at each outer step

1. the working set B takes the ``size``/2 most violating variables not already in it —
   alternately the largest −y_t G_t of I_up = {t : y_t α_t may grow} and the least of
   I_low = {t : y_t α_t may fall} — and keeps the half chosen at the previous step (the first
   step chooses ``size``);
2. the sub-problem on B (G_B, Q_BB from B's cached rows) is solved by the SMO's own steps
   (WSS 2 of Fan, Chen & Lin, ``_smo._first``/``_second``; LIBSVM's clipped pair update,
   ``_smo.pair_step``) until its violation is below max(tol, ``INNER_REL``·its first), or
   ``INNER_ITER``·|B| steps;
3. G += Σ_{k ∈ B} Δα_k Q_k over all n (and Ḡ += ±u_k Q_k for each α_k that reached or left
   its bound u_k), on ``threads`` threads in pieces of ``PIECE`` entries, each entry summed in
   the order of B (the same bits on any number of threads).

It stops when the maximal KKT violation over all n, max_{I_up} −y G − min_{I_low} −y G (the
SMO's Gmax + Gmax2), falls below ``tol``. Where the SMO's cost is thousands of iterations each
passing over an active set of thousands (a9a: 55,000 of them over up to 32,561), an outer step
here passes over n a few times and its |B|·(inner steps) work stays in a q×q block; kernel rows
come from the same LRU cache as the SMO's (``_smo._get_row``), so a row is computed once while
the cache holds it. The caller gives a cache of at least 2·``size`` rows.

``n_iter`` counts the pair updates of the inner solves (the SMO's iterations), and ``max_iter``
caps them.
"""

import numpy as np
from numba import njit, prange

from ..kernels._rows import kernel_diag, shift_at
from ._smo import _first, _get_row, _second, pair_step

#: Inner solve: stop below max(tol, INNER_REL × its first violation), or after INNER_ITER × |B|
#: pair updates (ThunderSVM's 0.1 and 100; ``docs/decisions.md``).
INNER_REL = 0.1
INNER_ITER = 100
#: Entries of G per piece of the update on several threads.
PIECE = 4096


@njit(cache=True, nogil=True)
def _violation(y, G, alpha, ub, score):
    """(max_{I_up} −yG − min_{I_low} −yG, and score_t = −y_t G_t for every t)."""
    up = -np.inf
    low = np.inf
    for t in range(y.shape[0]):
        s = -y[t] * G[t]
        score[t] = s
        if y[t] > 0:
            if alpha[t] < ub[t] and s > up:
                up = s
            if alpha[t] > 0.0 and s < low:
                low = s
        else:
            if alpha[t] > 0.0 and s > up:
                up = s
            if alpha[t] < ub[t] and s < low:
                low = s
    return up - low


@njit(cache=True, nogil=True)
def _choose(order, y, alpha, ub, in_ws, ws, m, want):
    """Append up to ``want`` variables to ws[:m] (``order``: the variables by rising score
    −yG): alternately the next of I_up from the top and of I_low from the bottom, skipping
    those in the working set. Returns the new size."""
    n = order.shape[0]
    top = n - 1
    bottom = 0
    end = m + want
    while m < end:
        before = m
        while top >= 0:
            t = order[top]
            top -= 1
            if not in_ws[t] and ((y[t] > 0 and alpha[t] < ub[t])
                                 or (y[t] < 0 and alpha[t] > 0.0)):
                in_ws[t] = True
                ws[m] = t
                m += 1
                break
        if m == end:
            break
        while bottom < n:
            t = order[bottom]
            bottom += 1
            if not in_ws[t] and ((y[t] > 0 and alpha[t] > 0.0)
                                 or (y[t] < 0 and alpha[t] < ub[t])):
                in_ws[t] = True
                ws[m] = t
                m += 1
                break
        if m == before:
            break
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
def _add_rows(G, G_bar, buf, slots, delta, flip, lo, hi):
    """G[lo:hi] += Σ_k delta_k Q_k and Ḡ[lo:hi] += Σ_k flip_k Q_k, k in the working set's
    order (Q_k = buf[slots[k]])."""
    for k in range(slots.shape[0]):
        d = delta[k]
        f = flip[k]
        if d == 0.0 and f == 0.0:
            continue
        row = buf[slots[k]]
        if d != 0.0:
            for t in range(lo, hi):
                G[t] += d * row[t]
        if f != 0.0:
            for t in range(lo, hi):
                G_bar[t] += f * row[t]


@njit(cache=True, nogil=True, parallel=True)
def _add_rows_parallel(G, G_bar, buf, slots, delta, flip):
    n = G.shape[0]
    for c in prange((n + PIECE - 1) // PIECE):
        _add_rows(G, G_bar, buf, slots, delta, flip, c * PIECE, min(n, (c + 1) * PIECE))


@njit(cache=True, nogil=True)
def block_smo(X, sq, y, p, ub, alpha, G, G_bar, code, gamma, coef0, degree, scale, shift, tol,
              max_iter, buf, stop, threads, pieces, size):
    """Solve the QP in place on ``alpha`` (feasible) by working sets of ``size`` (even, at most
    n; ``buf`` holds at least ``size`` rows). Arguments and result as ``_smo.smo``'s: (G,
    n_iter, violation, n_kernel_rows, interrupted); G is always complete here (no shrinking)."""
    n = y.shape[0]
    n_slots = buf.shape[0]
    slot_of = -np.ones(n, dtype=np.int64)
    row_of = -np.ones(n_slots, dtype=np.int64)
    last_used = np.zeros(n_slots, dtype=np.int64)
    state = np.zeros(5, dtype=np.int64)
    state[3] = threads
    state[4] = pieces
    QD = kernel_diag(X, sq, code, gamma, coef0, degree)
    for t in range(n):
        QD[t] = scale * (QD[t] + shift_at(shift, t))

    q = size
    half = q // 2
    ws = np.empty(q, dtype=np.int64)
    slots = np.empty(q, dtype=np.int64)
    in_ws = np.zeros(n, dtype=np.bool_)
    local = np.arange(q)
    score = np.empty(n)
    m = 0
    n_iter = 0
    interrupted = False
    while True:
        if stop[0] != 0:
            interrupted = True
            break
        violation = _violation(y, G, alpha, ub, score)
        if violation < tol or n_iter >= max_iter:
            break
        # the working set: the last half chosen, then the most violating others
        keep = min(m, half) if m > 0 else 0
        for k in range(m - keep):
            in_ws[ws[k]] = False
        for k in range(keep):
            ws[k] = ws[m - keep + k]
        order = np.argsort(score)
        m = _choose(order, y, alpha, ub, in_ws, ws, keep, q - keep)
        for k in range(m):
            _get_row(ws[k], X, sq, y, code, gamma, coef0, degree, scale, shift,
                     buf, slot_of, row_of, last_used, state)
            slots[k] = slot_of[ws[k]]
            if stop[0] != 0:
                break
        if stop[0] != 0:
            interrupted = True
            break
        QB = np.empty((m, m))
        yB, GB, aB, uB, QDB = np.empty(m), np.empty(m), np.empty(m), np.empty(m), np.empty(m)
        for k in range(m):
            t = ws[k]
            row = buf[slots[k]]
            for l in range(m):
                QB[k, l] = row[ws[l]]
            yB[k] = y[t]
            GB[k] = G[t]
            aB[k] = alpha[t]
            uB[k] = ub[t]
            QDB[k] = QD[t]
        steps = _inner(QB, yB, GB, aB, uB, QDB, local[:m], tol, min(INNER_ITER * m,
                                                                    max_iter - n_iter))
        n_iter += steps
        delta = np.zeros(m)
        flip = np.zeros(m)
        for k in range(m):
            t = ws[k]
            delta[k] = aB[k] - alpha[t]
            was = alpha[t] >= ub[t]
            now = aB[k] >= ub[t]
            if was != now:
                flip[k] = ub[t] if now else -ub[t]
            alpha[t] = aB[k]
        if threads > 1:
            _add_rows_parallel(G, G_bar, buf, slots[:m], delta, flip)
        else:
            _add_rows(G, G_bar, buf, slots[:m], delta, flip, 0, n)
        if steps == 0:          # no pair of the working set improves: the SMO's j = −1
            break
    return G, n_iter, violation, state[2], interrupted
