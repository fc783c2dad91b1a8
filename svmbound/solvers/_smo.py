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

Sparse data (issue 13): X is then not a 2-D array but the tuple of ``_sparse.numba_data``
(CSR data, indices, pointers, then the CSC ones); numba compiles a second version of the
solver in which ``row_dots`` computes ⟨x_i, x_j⟩ for all j by walking, for each non-zero x_ik,
the column k (a pass over the non-zeros sharing a feature with x_i, at most nnz(X)). The LRU
cache, the working-set selection and everything else are the same code.

Threads (issue 32): a kernel row of n ≥ ``CHUNKED_ROWS_MIN`` entries over dense features is
computed in fixed pieces of ``ROW_CHUNK`` entries (one BLAS product, the kernel function and the
labels each), spread over ``threads`` threads (numba ``prange``) — the row is most of a large
solve's time. The pieces depend on n alone, so a row has the same bits on any number of threads
(though not the bits of one product over all n: BLAS blocks a long product differently).

Rows of a shared kernel matrix (``qp.GramRows``, code PRECOMPUTED): X is the pair (K, rows)
and K_ij of the sub-problem is K[rows[i], rows[j]], read from K without copying the block
(the folds of a cross-validation at one θ share the K of all their points).
"""

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from .._vexp import exp_nonpositive

TAU = 1e-12
LINEAR, RBF, POLY, PRECOMPUTED = 0, 1, 2, 3


def shift_at(shift, i):
    """h_i: ``shift[i]`` for a vector of diagonal shifts, ``shift`` itself for one number."""
    return shift if np.ndim(shift) == 0 else shift[i]


@overload(shift_at, jit_options={"cache": True, "nogil": True})
def _shift_at_overload(shift, i):
    if isinstance(shift, types.Array):
        return lambda shift, i: shift[i]
    return lambda shift, i: shift


def row_dots(X, i):
    """⟨x_i, x_j⟩ for every j: X a dense 2-D array, or the CSR/CSC tuple of sparse data (the
    pair (K, rows) of ``qp.GramRows`` has no features: never called for it)."""
    if isinstance(X, tuple) and len(X) == 2:
        return np.zeros(X[1].shape[0])
    if isinstance(X, tuple):
        rdata, rind, rptr, cdata, cind, cptr = X
        out = np.zeros(rptr.shape[0] - 1)
        for p in range(rptr[i], rptr[i + 1]):
            k, v = rind[p], rdata[p]
            for q in range(cptr[k], cptr[k + 1]):
                out[cind[q]] += v * cdata[q]
        return out
    return np.dot(X, X[i])


@overload(row_dots, jit_options={"cache": True, "nogil": True})
def _row_dots_overload(X, i):
    if isinstance(X, types.BaseTuple) and len(X) == 2:
        return lambda X, i: np.zeros(X[1].shape[0])
    if isinstance(X, types.BaseTuple):
        def csr_dots(X, i):
            rdata, rind, rptr, cdata, cind, cptr = X
            out = np.zeros(rptr.shape[0] - 1)
            for p in range(rptr[i], rptr[i + 1]):
                k = rind[p]
                v = rdata[p]
                for q in range(cptr[k], cptr[k + 1]):
                    out[cind[q]] += v * cdata[q]
            return out
        return csr_dots
    return lambda X, i: np.dot(X, X[i])


def matrix_entry(X, i, j):
    """X[i, j] of a PRECOMPUTED kernel matrix, or K[rows[i], rows[j]] for the pair (K, rows)
    of ``qp.GramRows`` (never reached with sparse data: 0)."""
    if isinstance(X, tuple) and len(X) == 2:
        return X[0][X[1][i], X[1][j]]
    return 0.0 if isinstance(X, tuple) else X[i, j]


@overload(matrix_entry, jit_options={"cache": True, "nogil": True})
def _matrix_entry_overload(X, i, j):
    if isinstance(X, types.BaseTuple) and len(X) == 2:
        return lambda X, i, j: X[0][X[1][i], X[1][j]]
    if isinstance(X, types.BaseTuple):
        return lambda X, i, j: 0.0
    return lambda X, i, j: X[i, j]


@njit(cache=True, nogil=True)
def kernel_row(X, sq, i, code, gamma, coef0, degree, out):
    """out[j] = K(x_i, x_j) for every j (for PRECOMPUTED, X is the kernel matrix itself)."""
    n = sq.shape[0]
    if code == PRECOMPUTED:
        for j in range(n):
            out[j] = matrix_entry(X, i, j)
        return
    dots = row_dots(X, i)
    if code == LINEAR:
        for j in range(n):
            out[j] = dots[j]
    elif code == RBF:
        sqi = sq[i]
        for j in range(n):
            d2 = sqi + sq[j] - 2.0 * dots[j]
            if d2 < 0.0:
                d2 = 0.0
            dots[j] = -gamma * d2
        exp_nonpositive(dots, np.empty(n, dtype=np.int64))   # vectorised (svmbound._vexp)
        for j in range(n):
            out[j] = dots[j]
        out[i] = 1.0
    else:
        for j in range(n):
            out[j] = (gamma * dots[j] + coef0) ** degree


#: Entries of one piece of a chunked kernel row, and the least n whose rows are chunked (module
#: docstring; the reasons for the numbers: ``docs/decisions.md``).
ROW_CHUNK = 512
CHUNKED_ROWS_MIN = 8192


def chunked_rows(X, code, n):
    """Whether row i of Q is computed in pieces (``q_row_chunked``): dense features, n large."""
    return (not isinstance(X, tuple)) and code != PRECOMPUTED and n >= CHUNKED_ROWS_MIN


@overload(chunked_rows, jit_options={"cache": True, "nogil": True})
def _chunked_rows_overload(X, code, n):
    if isinstance(X, types.BaseTuple):
        return lambda X, code, n: False
    return lambda X, code, n: code != PRECOMPUTED and n >= CHUNKED_ROWS_MIN


@njit(cache=True, nogil=True)
def _q_piece(c, X, sq, i, xi, code, gamma, coef0, degree, y, yi, out):
    """out[lo:hi] = y_i y_j s K(x_i, x_j) for the c-th piece [lo, hi) of ``ROW_CHUNK`` rows (the
    entries ``kernel_row`` and ``_get_row`` give, piece by piece)."""
    lo = c * ROW_CHUNK
    hi = min(sq.shape[0], lo + ROW_CHUNK)
    dots = np.dot(X[lo:hi], xi)
    if code == RBF:
        sqi = sq[i]
        for j in range(hi - lo):
            d2 = sqi + sq[lo + j] - 2.0 * dots[j]
            if d2 < 0.0:
                d2 = 0.0
            dots[j] = -gamma * d2
        exp_nonpositive(dots, np.empty(hi - lo, dtype=np.int64))
        if lo <= i < hi:
            dots[i - lo] = 1.0
    elif code == POLY:
        for j in range(hi - lo):
            dots[j] = (gamma * dots[j] + coef0) ** degree
    for j in range(hi - lo):
        out[lo + j] = dots[j]
    for j in range(hi - lo):
        out[lo + j] *= yi * y[lo + j]


@njit(cache=True, nogil=True, parallel=True)
def _q_pieces_parallel(X, sq, i, xi, code, gamma, coef0, degree, y, yi, out, n_pieces):
    for c in prange(n_pieces):
        _q_piece(c, X, sq, i, xi, code, gamma, coef0, degree, y, yi, out)


@njit(cache=True, nogil=True, parallel=True)
def _probe_parallel(n):
    """A trivial parallel loop: its first call loads numba's threading layer (``qp``)."""
    total = 0
    for k in prange(n):
        total += k
    return total


def q_row_chunked(X, sq, i, code, gamma, coef0, degree, y, yi, out, threads):
    """out = y_i·s·y ∘ K(x_i, ·) in pieces (module docstring), on ``threads`` threads; dense X."""
    n_pieces = (sq.shape[0] + ROW_CHUNK - 1) // ROW_CHUNK
    xi = np.ascontiguousarray(X[i])
    for c in range(n_pieces):
        _q_piece(c, X, sq, i, xi, code, gamma, coef0, degree, y, yi, out)


@overload(q_row_chunked, jit_options={"cache": True, "nogil": True})
def _q_row_chunked_overload(X, sq, i, code, gamma, coef0, degree, y, yi, out, threads):
    if isinstance(X, types.BaseTuple):      # never called: ``chunked_rows`` is False
        return lambda X, sq, i, code, gamma, coef0, degree, y, yi, out, threads: None

    def impl(X, sq, i, code, gamma, coef0, degree, y, yi, out, threads):
        n_pieces = (sq.shape[0] + ROW_CHUNK - 1) // ROW_CHUNK
        xi = X[i].copy()
        if threads > 1:      # (numba's thread count for this thread: set by the caller)
            _q_pieces_parallel(X, sq, i, xi, code, gamma, coef0, degree, y, yi, out, n_pieces)
        else:
            for c in range(n_pieces):
                _q_piece(c, X, sq, i, xi, code, gamma, coef0, degree, y, yi, out)
    return impl


@njit(cache=True, nogil=True)
def kernel_diag(X, sq, code, gamma, coef0, degree):
    n = sq.shape[0]
    d = np.empty(n)
    for i in range(n):
        if code == PRECOMPUTED:
            d[i] = matrix_entry(X, i, i)
        elif code == LINEAR:
            d[i] = sq[i]
        elif code == RBF:
            d[i] = 1.0
        else:
            d[i] = (gamma * sq[i] + coef0) ** degree
    return d


@njit(cache=True, nogil=True)
def _get_row(i, X, sq, y, code, gamma, coef0, degree, scale, shift,
             buf, slot_of, row_of, last_used, state):
    """Row i of Q from the LRU cache, computing it on a miss. state = [clock, n_filled, misses,
    threads]."""
    state[0] += 1
    s = slot_of[i]
    if s >= 0:
        last_used[s] = state[0]
        return buf[s]
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
    row = buf[s]
    yi = y[i] * scale
    if chunked_rows(X, code, row.shape[0]):
        q_row_chunked(X, sq, i, code, gamma, coef0, degree, y, yi, row, state[3])
    else:
        kernel_row(X, sq, i, code, gamma, coef0, degree, row)
        for j in range(row.shape[0]):
            row[j] *= yi * y[j]
    row[i] += scale * shift_at(shift, i)
    slot_of[i] = s
    row_of[s] = i
    last_used[s] = state[0]
    return row


@njit(cache=True, nogil=True)
def _select(act, m, y, G, alpha, ub, QD, X, sq, code, gamma, coef0, degree, scale, shift,
            buf, slot_of, row_of, last_used, state):
    """Second-order working-set selection (WSS 2 of Fan, Chen & Lin) over act[:m].

    Returns (i, j, Gmax + Gmax2); j = −1 when no pair improves.
    """
    Gmax = -np.inf
    Gmax2 = -np.inf
    i = -1
    for k in range(m):
        t = act[k]
        if y[t] > 0:
            if alpha[t] < ub[t] and -G[t] >= Gmax:
                Gmax = -G[t]
                i = t
        else:
            if alpha[t] > 0.0 and G[t] >= Gmax:
                Gmax = G[t]
                i = t
    j = -1
    if i < 0:
        return i, j, -np.inf
    obj_diff_min = np.inf
    Qi = _get_row(i, X, sq, y, code, gamma, coef0, degree, scale, shift,
                  buf, slot_of, row_of, last_used, state)
    yi = y[i]
    QDi = QD[i]
    for k in range(m):
        t = act[k]
        if y[t] > 0:
            if alpha[t] > 0.0:
                Gt = G[t]
                if Gt >= Gmax2:
                    Gmax2 = Gt
                grad_diff = Gmax + Gt
                if grad_diff > 0.0:
                    quad = QDi + QD[t] - 2.0 * yi * Qi[t]
                    if quad <= 0.0:
                        quad = TAU
                    obj_diff = -(grad_diff * grad_diff) / quad
                    if obj_diff <= obj_diff_min:
                        j = t
                        obj_diff_min = obj_diff
        else:
            if alpha[t] < ub[t]:
                Gt = -G[t]
                if Gt >= Gmax2:
                    Gmax2 = Gt
                grad_diff = Gmax + Gt
                if grad_diff > 0.0:
                    quad = QDi + QD[t] + 2.0 * yi * Qi[t]
                    if quad <= 0.0:
                        quad = TAU
                    obj_diff = -(grad_diff * grad_diff) / quad
                    if obj_diff <= obj_diff_min:
                        j = t
                        obj_diff_min = obj_diff
    return i, j, Gmax + Gmax2


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
            Qj = _get_row(jj, X, sq, y, code, gamma, coef0, degree, scale, shift,
                          buf, slot_of, row_of, last_used, state)
            for kk in range(m, n):
                t = act[kk]
                G[t] += aj * Qj[t]


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
def smo(X, sq, y, p, ub, alpha, G, G_bar, code, gamma, coef0, degree, scale, shift, tol,
        max_iter, buf, stop, threads=1, shrinking=True):
    """Solve the QP in place on ``alpha`` (which must be feasible), with LIBSVM's shrinking.

    G = Qα + p and Ḡ = Σ_{α_j = u_j} u_j Q_j at the start are given (computed in blocks by the
    caller, updated in place). ``stop`` is a one-element int64 array: when another thread sets
    ``stop[0]`` the loop returns before its next iteration. ``threads``: how many threads compute
    a chunked kernel row (``chunked_rows``; the result does not depend on it). Returns (G, n_iter, violation,
    n_kernel_rows, interrupted): G is the final (full) gradient; after an interruption α is
    feasible but not optimal and G may be stale on shrunk variables — discard the result.
    """
    n = y.shape[0]
    n_slots = buf.shape[0]
    slot_of = -np.ones(n, dtype=np.int64)
    row_of = -np.ones(n_slots, dtype=np.int64)
    last_used = np.zeros(n_slots, dtype=np.int64)
    state = np.zeros(4, dtype=np.int64)
    state[3] = threads

    QD = kernel_diag(X, sq, code, gamma, coef0, degree)
    for i in range(n):
        QD[i] = scale * (QD[i] + shift_at(shift, i))


    act = np.arange(n)
    m = n
    unshrink = False
    counter = min(n, 1000) + 1
    n_iter = 0
    violation = np.inf
    interrupted = False
    while True:
        if stop[0] != 0:
            interrupted = True
            break
        counter -= 1
        if shrinking and counter == 0:
            counter = min(n, 1000)
            # ---- shrinking (LIBSVM do_shrinking) ----
            Gmax1 = -np.inf
            Gmax2 = -np.inf
            for k in range(m):
                t = act[k]
                if y[t] > 0:
                    if alpha[t] < ub[t] and -G[t] >= Gmax1:
                        Gmax1 = -G[t]
                    if alpha[t] > 0.0 and G[t] >= Gmax2:
                        Gmax2 = G[t]
                else:
                    if alpha[t] < ub[t] and -G[t] >= Gmax2:
                        Gmax2 = -G[t]
                    if alpha[t] > 0.0 and G[t] >= Gmax1:
                        Gmax1 = G[t]
            if not unshrink and Gmax1 + Gmax2 <= tol * 10.0:
                unshrink = True
                _reconstruct(act, m, n, G, G_bar, p, alpha, ub, X, sq, y, code, gamma, coef0,
                             degree, scale, shift, buf, slot_of, row_of, last_used, state, stop)
                m = n
                if stop[0] != 0:
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

        i, j, violation = _select(act, m, y, G, alpha, ub, QD, X, sq, code, gamma, coef0, degree,
                                  scale, shift, buf, slot_of, row_of, last_used, state)
        if violation < tol or j == -1 or n_iter >= max_iter:
            # optimal on the active set: check on the whole set
            _reconstruct(act, m, n, G, G_bar, p, alpha, ub, X, sq, y, code, gamma, coef0,
                         degree, scale, shift, buf, slot_of, row_of, last_used, state, stop)
            m = n
            if stop[0] != 0:
                interrupted = True
                break
            i, j, violation = _select(act, m, y, G, alpha, ub, QD, X, sq, code, gamma, coef0,
                                      degree, scale, shift, buf, slot_of, row_of, last_used, state)
            if violation < tol or j == -1 or n_iter >= max_iter:
                break
            counter = 1
        n_iter += 1

        # ---- two-variable update (LIBSVM Solver::Solve) ----
        Qi = _get_row(i, X, sq, y, code, gamma, coef0, degree, scale, shift,
                      buf, slot_of, row_of, last_used, state)
        Qj = _get_row(j, X, sq, y, code, gamma, coef0, degree, scale, shift,
                      buf, slot_of, row_of, last_used, state)
        Ci = ub[i]
        Cj = ub[j]
        old_i = alpha[i]
        old_j = alpha[j]
        if y[i] != y[j]:
            quad = QD[i] + QD[j] + 2.0 * Qi[j]
            if quad <= 0.0:
                quad = TAU
            delta = (-G[i] - G[j]) / quad
            diff = alpha[i] - alpha[j]
            alpha[i] += delta
            alpha[j] += delta
            if diff > 0.0:
                if alpha[j] < 0.0:
                    alpha[j] = 0.0
                    alpha[i] = diff
            else:
                if alpha[i] < 0.0:
                    alpha[i] = 0.0
                    alpha[j] = -diff
            if Ci < np.inf or Cj < np.inf:
                if diff > Ci - Cj:
                    if alpha[i] > Ci:
                        alpha[i] = Ci
                        alpha[j] = Ci - diff
                else:
                    if alpha[j] > Cj:
                        alpha[j] = Cj
                        alpha[i] = Cj + diff
        else:
            quad = QD[i] + QD[j] - 2.0 * Qi[j]
            if quad <= 0.0:
                quad = TAU
            delta = (G[i] - G[j]) / quad
            total = alpha[i] + alpha[j]
            alpha[i] -= delta
            alpha[j] += delta
            if total > Ci:
                if alpha[i] > Ci:
                    alpha[i] = Ci
                    alpha[j] = total - Ci
            else:
                if alpha[j] < 0.0:
                    alpha[j] = 0.0
                    alpha[i] = total
            if total > Cj:
                if alpha[j] > Cj:
                    alpha[j] = Cj
                    alpha[i] = total - Cj
            else:
                if alpha[i] < 0.0:
                    alpha[i] = 0.0
                    alpha[j] = total
        dai = alpha[i] - old_i
        daj = alpha[j] - old_j
        for k in range(m):
            t = act[k]
            G[t] += Qi[t] * dai + Qj[t] * daj
        # keep Ḡ (the bounded variables' part of G) for gradient reconstruction
        ui_old = old_i >= Ci
        if ui_old != (alpha[i] >= Ci):
            sgn = Ci if not ui_old else -Ci
            for k in range(n):
                G_bar[k] += sgn * Qi[k]
        uj_old = old_j >= Cj
        if uj_old != (alpha[j] >= Cj):
            sgn = Cj if not uj_old else -Cj
            for k in range(n):
                G_bar[k] += sgn * Qj[k]
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
