"""Numba-compiled SMO for the generic dual QP shared by the SVM and the radius problem.

    min_a  ½ aᵀ Q a + pᵀ a     s.t.  yᵀ a = const,  0 ≤ a_i ≤ u_i  (u_i may be +inf)

with Q_ij = s · y_i y_j (K_ij + h_i δ_ij), K computed row by row from X on demand and kept in an
LRU cache ``buf`` of ``buf.shape[0]`` rows (as LIBSVM's Cache). The caller picks the cache's
dtype: float64, or float32 (LIBSVM's Qfloat) to hold twice the rows when float64 rows would not
all fit; numba compiles one version per dtype. G, Ḡ and α are float64 either way.
The working set is chosen by the second-order rule of Fan, Chen & Lin (2005), exactly as LIBSVM's ``select_working_set``; the
two-variable update and its clipping are LIBSVM's ``Solver::Solve``. The loop stops when the
maximal KKT violation m(a) − M(a) = Gmax + Gmax2 falls below ``tol``.

* L1-SVM (Chung 1.5): p = −e, u = C, s = 1, h = 0.
* L2-SVM (Chung 1.7): p = −e, u = +inf, s = 1, h = 1/C.
* Radius (Chung 1.3/1.8): y = e, p = −(diag K + h), u = +inf, s = 2, eᵀβ = 1; optimum = −R².

Per-sample weights (C_i = C·w_i, ``svmbound._weights``): u is a vector already (u_i = C w_i for
L1); the diagonal shift ``shift`` is either one number h (every h_i equal, the unweighted case:
numba compiles the same code as before) or a vector of h_i = 1/(C w_i) (L2, R̃²).

Interruption: ``smo`` reads ``stop[0]`` (a one-element int64 array owned by the caller, see
``qp.StopFlag``) before every iteration and while reconstructing the gradient, and returns
at once with ``interrupted = True`` when another thread has set it to a non-zero value. The
check is one memory read per O(n) iteration: it costs nothing measurable, and a solve stops
within one iteration (plus at most one kernel row) of the request.

Layout: the active set is kept sorted by index, and the passes over it read y, G, α, u and
Q_tt from copies packed in that order (``_pack``; position k holds variable act[k]), so that a
position costs one read of each row it needs, at rising indices, instead of six scattered
reads; G of the active variables lives in the packed copy between two changes of the active
set (shrinking, gradient reconstruction, the end), when it is written back (``_unpack``).
Among equal candidates the pass takes the largest index (its last position).

Kernel rows (``_rows``): from dense features, sparse ones (CSR/CSC arrays) or a kernel
matrix; for large dense solves in pieces on several threads (issue 32).

Threads (issue 32): with ``threads`` ≥ ``PARALLEL_PASS_THREADS`` the passes over an active set
of at least ``PARALLEL_PASS_MIN`` positions — WSS 2's two passes, the gradient update, Ḡ's
update — run in pieces of ``PASS_PIECE`` positions on numba's threads (``prange``); on fewer
threads only the kernel rows do (parallel regions started three or four times an iteration cost
two threads more than they gain). Each piece finds its own maximum (or least decrease) at its
last position, and the pieces are combined in their order by the same rule (≥, resp. ≤), so the
pair (i, j), and with it every bit of the solve, is that of one pass on one thread.
"""

import numpy as np
from numba import njit, prange

from ..kernels._rows import (_probe_parallel, kernel_diag, kernel_row, q_row_pieces,
                             rows_in_pieces, shift_at)

TAU = 1e-12


@njit(cache=True, nogil=True)
def _cached(i, slot_of, last_used, state):
    """The slot of row i of Q when the LRU cache holds it (its use recorded, as
    ``_slot_for``'s hit, which is this), else −1 (nothing recorded: ``_get_row`` then takes
    the row).
    The SMO's loops ask this first, ``Q_i = buf[s] if s >= 0 else _get_row(...)``, written out
    at each of them: a call of ``_get_row`` cost ~170 ns even when the row was cached (it
    passes a dozen arrays, each reference-counted), more than a whole pass over a 40-variable
    active set, and so did a helper of its arguments inlined by numba; this call ~15 ns. The
    passes of a pair step (``_select``, ``_first``/``_second`` and their ``_pass`` forms,
    ``_update``) are inlined for the same reason (``inline="always"``): a 40-row solve 92 →
    47 µs, the same bits."""
    s = slot_of[i]
    if s >= 0:
        state[0] += 1
        last_used[s] = state[0]
    return s


@njit(cache=True, nogil=True)
def _slot_for(i, buf, slot_of, row_of, last_used, state):
    """(slot, cached) of row i in the LRU cache: its slot when cached, otherwise the next empty
    slot or the least recently used one (its row dropped), now row i's, to be filled by the
    caller (``_get_row``, ``_block._get_rows``). state = [clock, n_filled, misses, threads,
    pieces] (``smo``)."""
    s = _cached(i, slot_of, last_used, state)
    if s >= 0:
        return s, True
    state[0] += 1
    n_slots = buf.shape[0]
    if state[1] < n_slots:
        s = state[1]
        state[1] += 1
    else:
        s = 0
        oldest = last_used[0]
        for t in range(1, n_slots):
            if last_used[t] < oldest:
                oldest = last_used[t]
                s = t
        slot_of[row_of[s]] = -1
    state[2] += 1
    slot_of[i] = s
    row_of[s] = i
    last_used[s] = state[0]
    return s, False


@njit(cache=True, nogil=True)
def _get_row(i, X, sq, y, code, gamma, coef0, degree, scale, shift,
             buf, slot_of, row_of, last_used, state):
    """Row i of Q from the LRU cache, computing it on a miss (``_slot_for``)."""
    s, cached = _slot_for(i, buf, slot_of, row_of, last_used, state)
    row = buf[s]
    if cached:
        return row
    yi = y[i] * scale
    if rows_in_pieces(X, state[4]):
        q_row_pieces(X, sq, i, code, gamma, coef0, degree, y, yi, row, state[3])
    else:
        kernel_row(X, sq, i, code, gamma, coef0, degree, row)
        for j in range(row.shape[0]):
            row[j] *= yi * y[j]
    row[i] += scale * shift_at(shift, i)
    return row


@njit(cache=True, nogil=True, inline="always")
def _first(act, lo, hi, yA, GA, aA, uA):
    """(Gmax, i) of WSS 2's first pass over positions lo..hi−1 of the active set: the largest
    −y_t G_t over the variables that may move up, at its last position (i = −1, Gmax = −inf
    when none may). yA, GA, aA, uA: y, G, α, u in active-set order (``_pack``)."""
    Gmax = -np.inf
    i = -1
    for k in range(lo, hi):
        if yA[k] > 0:
            if aA[k] < uA[k] and -GA[k] >= Gmax:
                Gmax = -GA[k]
                i = act[k]
        else:
            if aA[k] > 0.0 and GA[k] >= Gmax:
                Gmax = GA[k]
                i = act[k]
    return Gmax, i


@njit(cache=True, nogil=True, inline="always")
def _second(act, lo, hi, yA, GA, aA, uA, QDA, Qi, yi, QDi, Gmax):
    """(Gmax2, j, min objective decrease) of WSS 2's second pass over positions lo..hi−1 of
    the active set (packed as in ``_first``; Qi indexed by variable); j at the last position of
    the least decrease (−1 when no pair improves)."""
    Gmax2 = -np.inf
    j = -1
    obj_diff_min = np.inf
    for k in range(lo, hi):
        if yA[k] > 0:
            if aA[k] > 0.0:
                Gt = GA[k]
                if Gt >= Gmax2:
                    Gmax2 = Gt
                grad_diff = Gmax + Gt
                if grad_diff > 0.0:
                    quad = QDi + QDA[k] - 2.0 * yi * Qi[act[k]]
                    if quad <= 0.0:
                        quad = TAU
                    obj_diff = -(grad_diff * grad_diff) / quad
                    if obj_diff <= obj_diff_min:
                        j = act[k]
                        obj_diff_min = obj_diff
        else:
            if aA[k] < uA[k]:
                Gt = -GA[k]
                if Gt >= Gmax2:
                    Gmax2 = Gt
                grad_diff = Gmax + Gt
                if grad_diff > 0.0:
                    quad = QDi + QDA[k] + 2.0 * yi * Qi[act[k]]
                    if quad <= 0.0:
                        quad = TAU
                    obj_diff = -(grad_diff * grad_diff) / quad
                    if obj_diff <= obj_diff_min:
                        j = act[k]
                        obj_diff_min = obj_diff
    return Gmax2, j, obj_diff_min


#: Positions of the active set per piece of a pass run on several threads, the least active
#: set that is, and the least number of threads that run the passes in pieces (fewer run them
#: in one pass and only the kernel rows in pieces; ``docs/decisions.md``).
PASS_PIECE = 2048
PARALLEL_PASS_MIN = 8192
PARALLEL_PASS_THREADS = 4


@njit(cache=True, nogil=True, parallel=True)
def _first_parallel(act, m, yA, GA, aA, uA, best, where):
    for c in prange(best.shape[0]):
        best[c], where[c] = _first(act, c * PASS_PIECE, min(m, (c + 1) * PASS_PIECE),
                                   yA, GA, aA, uA)


@njit(cache=True, nogil=True, parallel=True)
def _second_parallel(act, m, yA, GA, aA, uA, QDA, Qi, yi, QDi, Gmax, best2, where, least):
    for c in prange(best2.shape[0]):
        best2[c], where[c], least[c] = _second(act, c * PASS_PIECE,
                                               min(m, (c + 1) * PASS_PIECE), yA, GA, aA, uA,
                                               QDA, Qi, yi, QDi, Gmax)


@njit(cache=True, nogil=True)
def _in_pieces(threads, m):
    """Whether a pass over m positions runs in pieces on several threads."""
    return threads >= PARALLEL_PASS_THREADS and m >= PARALLEL_PASS_MIN


@njit(cache=True, nogil=True, inline="always")
def _first_pass(act, m, yA, GA, aA, uA, threads):
    """``_first`` over act[:m]: one pass, or its pieces combined in order by its rule (≥)."""
    if not _in_pieces(threads, m):
        return _first(act, 0, m, yA, GA, aA, uA)
    n_p = (m + PASS_PIECE - 1) // PASS_PIECE
    best = np.empty(n_p)
    where = np.empty(n_p, dtype=np.int64)
    _first_parallel(act, m, yA, GA, aA, uA, best, where)
    Gmax, i = -np.inf, -1
    for c in range(n_p):
        if where[c] >= 0 and best[c] >= Gmax:
            Gmax, i = best[c], where[c]
    return Gmax, i


@njit(cache=True, nogil=True, inline="always")
def _second_pass(act, m, yA, GA, aA, uA, QDA, Qi, yi, QDi, Gmax, threads):
    """``_second`` over act[:m]: one pass, or its pieces combined in order by its rules (the
    largest Gmax2; the least decrease, ≤)."""
    if not _in_pieces(threads, m):
        return _second(act, 0, m, yA, GA, aA, uA, QDA, Qi, yi, QDi, Gmax)
    n_p = (m + PASS_PIECE - 1) // PASS_PIECE
    best2 = np.empty(n_p)
    where = np.empty(n_p, dtype=np.int64)
    least = np.empty(n_p)
    _second_parallel(act, m, yA, GA, aA, uA, QDA, Qi, yi, QDi, Gmax, best2, where, least)
    Gmax2, j, obj_diff_min = -np.inf, -1, np.inf
    for c in range(n_p):
        Gmax2 = max(Gmax2, best2[c])
        if where[c] >= 0 and least[c] <= obj_diff_min:
            j, obj_diff_min = where[c], least[c]
    return Gmax2, j, obj_diff_min


@njit(cache=True, nogil=True, inline="always")
def _update(act, m, GA, Qi, Qj, dai, daj, threads):
    """G_t += Q_it Δα_i + Q_jt Δα_j over the active set (G packed: GA[k] is G of act[k]; each
    entry its own sum: the same bits in pieces on several threads as in one pass)."""
    if _in_pieces(threads, m):
        _update_parallel(act, m, GA, Qi, Qj, dai, daj)
    else:
        for k in range(m):
            t = act[k]
            GA[k] += Qi[t] * dai + Qj[t] * daj


@njit(cache=True, nogil=True)
def _add_row(G_bar, sgn, Q, threads):
    """Ḡ += sgn·Q (a variable reached or left its bound u = |sgn|)."""
    if _in_pieces(threads, G_bar.shape[0]):
        _add_row_parallel(G_bar, sgn, Q)
    else:
        for k in range(G_bar.shape[0]):
            G_bar[k] += sgn * Q[k]


@njit(cache=True, nogil=True, inline="always")
def _select(act, m, yA, GA, aA, uA, QDA, y, QD, X, sq, code, gamma, coef0, degree, scale,
            shift, buf, slot_of, row_of, last_used, state):
    """Second-order working-set selection (WSS 2 of Fan, Chen & Lin) over act[:m].

    Returns (i, j, Gmax + Gmax2); j = −1 when no pair improves. With at least
    PARALLEL_PASS_THREADS threads (state[3]) and m ≥ PARALLEL_PASS_MIN, each pass runs in pieces
    of PASS_PIECE positions (``_first_pass``, ``_second_pass``): the same (i, j) as one pass, on
    any number of threads."""
    Gmax, i = _first_pass(act, m, yA, GA, aA, uA, state[3])
    if i < 0:
        return i, -1, -np.inf
    s = _cached(i, slot_of, last_used, state)
    Qi = buf[s] if s >= 0 else _get_row(i, X, sq, y, code, gamma, coef0, degree, scale, shift,
                                        buf, slot_of, row_of, last_used, state)
    Gmax2, j, _ = _second_pass(act, m, yA, GA, aA, uA, QDA, Qi, y[i], QD[i], Gmax, state[3])
    return i, j, Gmax + Gmax2


@njit(cache=True, nogil=True, parallel=True)
def _update_parallel(act, m, GA, Qi, Qj, dai, daj):
    """``_update`` in pieces on several threads."""
    for c in prange((m + PASS_PIECE - 1) // PASS_PIECE):
        for k in range(c * PASS_PIECE, min(m, (c + 1) * PASS_PIECE)):
            t = act[k]
            GA[k] += Qi[t] * dai + Qj[t] * daj


@njit(cache=True, nogil=True, parallel=True)
def _add_row_parallel(G_bar, sgn, Q):
    """Ḡ += sgn·Q over every entry, in pieces on several threads (the same bits as one pass)."""
    n = G_bar.shape[0]
    for c in prange((n + PASS_PIECE - 1) // PASS_PIECE):
        for k in range(c * PASS_PIECE, min(n, (c + 1) * PASS_PIECE)):
            G_bar[k] += sgn * Q[k]


@njit(cache=True, nogil=True)
def _reconstruct(act, m, n, G, G_bar, p, alpha, ub, X, sq, y, code, gamma, coef0, degree,
                 scale, shift, buf, slot_of, row_of, last_used, state, stop):
    """Recompute G on the shrunk variables act[m:]: G = Ḡ + p + Σ_{free j} α_j Q_j (LIBSVM's
    reconstruct_gradient; Ḡ_k = Σ_{α_j = u_j} u_j Q_jk). Returns early (G then incomplete)
    when ``stop[0]`` is set: the caller checks the flag and abandons the solve."""
    if m == n:
        return
    for k in range(m, n):
        t = act[k]
        G[t] = G_bar[t] + p[t]
    for k in range(m):
        jj = act[k]
        aj = alpha[jj]
        if aj > 0.0 and aj < ub[jj]:
            if stop[0] != 0:
                return
            s = _cached(jj, slot_of, last_used, state)
            Qj = buf[s] if s >= 0 else _get_row(jj, X, sq, y, code, gamma, coef0, degree, scale,
                                                shift, buf, slot_of, row_of, last_used, state)
            for kk in range(m, n):
                t = act[kk]
                G[t] += aj * Qj[t]


@njit(cache=True, nogil=True)
def _pack(act, m, y, G, alpha, ub, QD, yA, GA, aA, uA, QDA, pos):
    """Sort the active variables act[:m] by index, then copy their y, G, α, u and Q_tt in that
    order (the passes read them in sequence, not through act, and the rows Q_i, Q_j at rising
    indices), and set pos[t] = the position of variable t."""
    act[:m].sort()
    for k in range(m):
        t = act[k]
        yA[k] = y[t]
        GA[k] = G[t]
        aA[k] = alpha[t]
        uA[k] = ub[t]
        QDA[k] = QD[t]
        pos[t] = k


@njit(cache=True, nogil=True)
def _unpack(act, m, G, GA):
    """G of the active variables back from their packed copy (G is kept packed while the
    active set does not change)."""
    for k in range(m):
        G[act[k]] = GA[k]


@njit(cache=True, nogil=True)
def _be_shrunk(t, y, G, alpha, ub, Gmax1, Gmax2):
    if alpha[t] >= ub[t]:
        if y[t] > 0:
            return -G[t] > Gmax1
        return -G[t] > Gmax2
    if alpha[t] <= 0.0:
        if y[t] > 0:
            return G[t] > Gmax2
        return G[t] > Gmax1
    return False


@njit(cache=True, nogil=True)
def in_up(yt, at, ut):
    """Whether y_t α_t may grow: t ∈ I_up = {y = +1, α < u} ∪ {y = −1, α > 0}."""
    return (yt > 0 and at < ut) or (yt < 0 and at > 0.0)


@njit(cache=True, nogil=True)
def in_low(yt, at, ut):
    """Whether y_t α_t may fall: t ∈ I_low = {y = +1, α > 0} ∪ {y = −1, α < u}."""
    return (yt > 0 and at > 0.0) or (yt < 0 and at < ut)


@njit(cache=True, nogil=True)
def _scores(act, m, y, G, alpha, ub, score):
    """(up, low) = (max over I_up, min over I_low) of −y_t G_t over the active variables
    act[:m], and score[k] = −y G of act[k]. The KKT violation is up − low; LIBSVM's shrinking
    thresholds are Gmax1 = up, Gmax2 = −low."""
    up = -np.inf
    low = np.inf
    for k in range(m):
        t = act[k]
        s = -y[t] * G[t]
        score[k] = s
        if in_up(y[t], alpha[t], ub[t]) and s > up:
            up = s
        if in_low(y[t], alpha[t], ub[t]) and s < low:
            low = s
    return up, low


@njit(cache=True, nogil=True)
def setup(X, sq, n, code, gamma, coef0, degree, scale, shift, buf, threads, pieces):
    """A solve's empty LRU cache bookkeeping (slot_of, row_of, last_used: ``_get_row``), its
    state [clock, n_filled, misses, threads, pieces], and Q's diagonal QD_t = s·(K_tt + h_t)."""
    n_slots = buf.shape[0]
    slot_of = -np.ones(n, dtype=np.int64)
    row_of = -np.ones(n_slots, dtype=np.int64)
    last_used = np.zeros(n_slots, dtype=np.int64)
    state = np.zeros(5, dtype=np.int64)
    state[3] = threads
    state[4] = pieces
    QD = kernel_diag(X, sq, code, gamma, coef0, degree)
    for i in range(n):
        QD[i] = scale * (QD[i] + shift_at(shift, i))
    return slot_of, row_of, last_used, state, QD


@njit(cache=True, nogil=True)
def pair_step(yi, yj, ai, aj, Ci, Cj, Gi, Gj, QDi, QDj, Qij):
    """The new (α_i, α_j) of LIBSVM's two-variable update (``Solver::Solve``): the Newton step
    along y_i α_i + y_j α_j = const, clipped to the box [0, C_i] × [0, C_j] (C may be +inf).
    G_i, G_j: the gradient; QD: Q's diagonal; Qij: Q_ij."""
    alpha_i, alpha_j = ai, aj
    if yi != yj:
        quad = QDi + QDj + 2.0 * Qij
        if quad <= 0.0:
            quad = TAU
        delta = (-Gi - Gj) / quad
        diff = alpha_i - alpha_j
        alpha_i += delta
        alpha_j += delta
        if diff > 0.0:
            if alpha_j < 0.0:
                alpha_j = 0.0
                alpha_i = diff
        else:
            if alpha_i < 0.0:
                alpha_i = 0.0
                alpha_j = -diff
        if Ci < np.inf or Cj < np.inf:
            if diff > Ci - Cj:
                if alpha_i > Ci:
                    alpha_i = Ci
                    alpha_j = Ci - diff
            else:
                if alpha_j > Cj:
                    alpha_j = Cj
                    alpha_i = Cj + diff
    else:
        quad = QDi + QDj - 2.0 * Qij
        if quad <= 0.0:
            quad = TAU
        delta = (Gi - Gj) / quad
        total = alpha_i + alpha_j
        alpha_i -= delta
        alpha_j += delta
        if total > Ci:
            if alpha_i > Ci:
                alpha_i = Ci
                alpha_j = total - Ci
        else:
            if alpha_j < 0.0:
                alpha_j = 0.0
                alpha_i = total
        if total > Cj:
            if alpha_j > Cj:
                alpha_j = Cj
                alpha_i = total - Cj
        else:
            if alpha_i < 0.0:
                alpha_i = 0.0
                alpha_j = total
    return alpha_i, alpha_j


@njit(cache=True, nogil=True)
def smo(X, sq, y, p, ub, alpha, G, G_bar, code, gamma, coef0, degree, scale, shift, tol,
        max_iter, buf, stop, threads=1, pieces=0, shrink_every=1000):
    """Solve the QP in place on ``alpha`` (which must be feasible), with LIBSVM's shrinking,
    every min(n, ``shrink_every``) iterations (LIBSVM's every min(n, 1000); ``qp.SHRINK_EVERY``).

    G = Qα + p and Ḡ = Σ_{α_j = u_j} u_j Q_j at the start are given (computed in blocks by the
    caller, updated in place). ``stop`` is a one-element int64 array: when another thread sets
    ``stop[0]`` the loop returns before its next iteration. ``threads``: how many threads the
    kernel rows run on with ``pieces`` (X then Xᵀ: ``_rows``), and from PARALLEL_PASS_THREADS
    the passes over a large active set (``_select``, the gradient update); the result does not
    depend on it. Returns (G, n_iter, violation, n_kernel_rows, interrupted): G is the final
    (full) gradient; after an interruption α is feasible but not optimal and G may be stale on
    shrunk variables — discard the result.
    """
    n = y.shape[0]
    slot_of, row_of, last_used, state, QD = setup(X, sq, n, code, gamma, coef0, degree, scale,
                                                  shift, buf, threads, pieces)

    act = np.arange(n)
    m = n
    # the active variables' y, G, α, u, Q_tt in active-set order (``_pack``): G of an active
    # variable lives in GA until the active set changes (shrinking, reconstruction, the end)
    yA, GA, aA, uA, QDA = (np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n))
    pos = np.empty(n, dtype=np.int64)
    score = np.empty(n)             # (``_scores``'s −yG, unused here)
    _pack(act, m, y, G, alpha, ub, QD, yA, GA, aA, uA, QDA, pos)
    unshrink = False
    counter = min(n, shrink_every) + 1
    n_iter = 0
    violation = np.inf
    interrupted = False
    while True:
        if stop[0] != 0:
            interrupted = True
            break
        counter -= 1
        if counter == 0:
            counter = min(n, shrink_every)
            # ---- shrinking (LIBSVM do_shrinking) ----
            _unpack(act, m, G, GA)
            Gmax1, low = _scores(act, m, y, G, alpha, ub, score)
            Gmax2 = -low
            if not unshrink and Gmax1 + Gmax2 <= tol * 10.0:
                unshrink = True
                _reconstruct(act, m, n, G, G_bar, p, alpha, ub, X, sq, y, code, gamma, coef0,
                             degree, scale, shift, buf, slot_of, row_of, last_used, state, stop)
                m = n
                if stop[0] != 0:
                    _pack(act, m, y, G, alpha, ub, QD, yA, GA, aA, uA, QDA, pos)
                    interrupted = True
                    break
            k = 0
            while k < m:
                if _be_shrunk(act[k], y, G, alpha, ub, Gmax1, Gmax2):
                    m -= 1
                    tmp = act[k]
                    act[k] = act[m]
                    act[m] = tmp
                else:
                    k += 1
            _pack(act, m, y, G, alpha, ub, QD, yA, GA, aA, uA, QDA, pos)

        i, j, violation = _select(act, m, yA, GA, aA, uA, QDA, y, QD, X, sq, code, gamma,
                                  coef0, degree, scale, shift, buf, slot_of, row_of, last_used,
                                  state)
        if violation < tol or j == -1 or n_iter >= max_iter:
            # optimal on the active set: check on the whole set
            _unpack(act, m, G, GA)
            _reconstruct(act, m, n, G, G_bar, p, alpha, ub, X, sq, y, code, gamma, coef0,
                         degree, scale, shift, buf, slot_of, row_of, last_used, state, stop)
            m = n
            _pack(act, m, y, G, alpha, ub, QD, yA, GA, aA, uA, QDA, pos)
            if stop[0] != 0:
                interrupted = True
                break
            i, j, violation = _select(act, m, yA, GA, aA, uA, QDA, y, QD, X, sq, code, gamma,
                                      coef0, degree, scale, shift, buf, slot_of, row_of,
                                      last_used, state)
            if violation < tol or j == -1 or n_iter >= max_iter:
                break
            counter = 1
        n_iter += 1

        # ---- two-variable update (LIBSVM Solver::Solve) ----
        s = _cached(i, slot_of, last_used, state)
        Qi = buf[s] if s >= 0 else _get_row(i, X, sq, y, code, gamma, coef0, degree, scale,
                                            shift, buf, slot_of, row_of, last_used, state)
        s = _cached(j, slot_of, last_used, state)
        Qj = buf[s] if s >= 0 else _get_row(j, X, sq, y, code, gamma, coef0, degree, scale,
                                            shift, buf, slot_of, row_of, last_used, state)
        Ci = ub[i]
        Cj = ub[j]
        old_i = alpha[i]
        old_j = alpha[j]
        pi = pos[i]
        pj = pos[j]
        alpha[i], alpha[j] = pair_step(y[i], y[j], old_i, old_j, Ci, Cj, GA[pi], GA[pj],
                                       QD[i], QD[j], Qi[j])
        aA[pi] = alpha[i]
        aA[pj] = alpha[j]
        dai = alpha[i] - old_i
        daj = alpha[j] - old_j
        _update(act, m, GA, Qi, Qj, dai, daj, threads)
        # keep Ḡ (the bounded variables' part of G) for gradient reconstruction
        ui_old = old_i >= Ci
        if ui_old != (alpha[i] >= Ci):
            _add_row(G_bar, Ci if not ui_old else -Ci, Qi, threads)
        uj_old = old_j >= Cj
        if uj_old != (alpha[j] >= Cj):
            _add_row(G_bar, Cj if not uj_old else -Cj, Qj, threads)
    _unpack(act, m, G, GA)
    return G, n_iter, violation, state[2], interrupted


@njit(cache=True, nogil=True)
def offset(y, G, alpha, ub):
    """LIBSVM's calculate_rho: ρ from the free variables' y_i G_i, or the middle of the feasible
    interval when none is free. For the SVM, b = −ρ."""
    upper = np.inf
    lower = -np.inf
    n_free = 0
    total = 0.0
    for i in range(y.shape[0]):
        yG = y[i] * G[i]
        if alpha[i] >= ub[i]:
            if y[i] < 0:
                upper = min(upper, yG)
            else:
                lower = max(lower, yG)
        elif alpha[i] <= 0.0:
            if y[i] > 0:
                upper = min(upper, yG)
            else:
                lower = max(lower, yG)
        else:
            n_free += 1
            total += yG
    if n_free > 0:
        return total / n_free
    if np.isinf(upper):
        return lower
    if np.isinf(lower):
        return upper
    return 0.5 * (upper + lower)


# The cached functions above call parallel ones: numba's threading layer must be loaded before
# any of them is loaded from the cache, else LLVM stops the process ("Symbol not found:
# allocate_sched"). A parallel function's own first call loads it.
_probe_parallel(1)
