"""Numba-compiled SMO for the generic dual QP shared by the SVM and the radius problem.

    min_a  ½ aᵀ Q a + pᵀ a     s.t.  yᵀ a = const,  0 ≤ a_i ≤ u_i  (u_i may be +inf)

with Q_ij = s · y_i y_j (K_ij + h δ_ij), K computed row by row from X on demand and kept in an
LRU cache of at most ``n_slots`` rows (as LIBSVM's Cache). The working set is chosen by the
second-order rule of Fan, Chen & Lin (2005), exactly as LIBSVM's ``select_working_set``; the
two-variable update and its clipping are LIBSVM's ``Solver::Solve``. The loop stops when the
maximal KKT violation m(a) − M(a) = Gmax + Gmax2 falls below ``tol``.

* L1-SVM (Chung 1.5): p = −e, u = C, s = 1, h = 0.
* L2-SVM (Chung 1.7): p = −e, u = +inf, s = 1, h = 1/C.
* Radius (Chung 1.3/1.8): y = e, p = −(diag K + h), u = +inf, s = 2, eᵀβ = 1; optimum = −R².
"""

import numpy as np
from numba import njit

TAU = 1e-12
LINEAR, RBF, POLY, PRECOMPUTED = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def kernel_row(X, sq, i, code, gamma, coef0, degree, out):
    """out[j] = K(x_i, x_j) for every j (for PRECOMPUTED, X is the kernel matrix itself)."""
    n = X.shape[0]
    if code == PRECOMPUTED:
        for j in range(n):
            out[j] = X[i, j]
        return
    dots = np.dot(X, X[i])
    if code == LINEAR:
        for j in range(n):
            out[j] = dots[j]
    elif code == RBF:
        sqi = sq[i]
        for j in range(n):
            d2 = sqi + sq[j] - 2.0 * dots[j]
            if d2 < 0.0:
                d2 = 0.0
            out[j] = np.exp(-gamma * d2)
    else:
        for j in range(n):
            out[j] = (gamma * dots[j] + coef0) ** degree


@njit(cache=True, nogil=True)
def kernel_diag(X, sq, code, gamma, coef0, degree):
    n = X.shape[0]
    d = np.empty(n)
    for i in range(n):
        if code == PRECOMPUTED:
            d[i] = X[i, i]
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
    """Row i of Q from the LRU cache, computing it on a miss. state = [clock, n_filled, misses]."""
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
    kernel_row(X, sq, i, code, gamma, coef0, degree, row)
    yi = y[i] * scale
    for j in range(row.shape[0]):
        row[j] *= yi * y[j]
    row[i] += scale * shift
    slot_of[i] = s
    row_of[s] = i
    last_used[s] = state[0]
    return row


@njit(cache=True, nogil=True)
def smo(X, sq, y, p, ub, alpha, code, gamma, coef0, degree, scale, shift, tol, max_iter, n_slots):
    """Solve the QP in place on ``alpha`` (which must be feasible).

    Returns (G, n_iter, violation, n_kernel_rows): G = Qa + p is the final gradient.
    """
    n = y.shape[0]
    buf = np.empty((n_slots, n))
    slot_of = -np.ones(n, dtype=np.int64)
    row_of = -np.ones(n_slots, dtype=np.int64)
    last_used = np.zeros(n_slots, dtype=np.int64)
    state = np.zeros(3, dtype=np.int64)

    QD = kernel_diag(X, sq, code, gamma, coef0, degree)
    for i in range(n):
        QD[i] = scale * (QD[i] + shift)

    G = p.copy()
    for i in range(n):
        if alpha[i] != 0.0:
            Qi = _get_row(i, X, sq, y, code, gamma, coef0, degree, scale, shift,
                          buf, slot_of, row_of, last_used, state)
            ai = alpha[i]
            for k in range(n):
                G[k] += ai * Qi[k]

    n_iter = 0
    violation = np.inf
    while True:
        # ---- working set selection (WSS 2 of Fan, Chen & Lin) ----
        Gmax = -np.inf
        Gmax2 = -np.inf
        i = -1
        for t in range(n):
            if y[t] > 0:
                if alpha[t] < ub[t] and -G[t] >= Gmax:
                    Gmax = -G[t]
                    i = t
            else:
                if alpha[t] > 0.0 and G[t] >= Gmax:
                    Gmax = G[t]
                    i = t
        j = -1
        obj_diff_min = np.inf
        if i >= 0:
            Qi = _get_row(i, X, sq, y, code, gamma, coef0, degree, scale, shift,
                          buf, slot_of, row_of, last_used, state)
            for t in range(n):
                if y[t] > 0:
                    if alpha[t] > 0.0:
                        grad_diff = Gmax + G[t]
                        if G[t] >= Gmax2:
                            Gmax2 = G[t]
                        if grad_diff > 0.0:
                            quad = QD[i] + QD[t] - 2.0 * y[i] * Qi[t]
                            if quad <= 0.0:
                                quad = TAU
                            obj_diff = -(grad_diff * grad_diff) / quad
                            if obj_diff <= obj_diff_min:
                                j = t
                                obj_diff_min = obj_diff
                else:
                    if alpha[t] < ub[t]:
                        grad_diff = Gmax - G[t]
                        if -G[t] >= Gmax2:
                            Gmax2 = -G[t]
                        if grad_diff > 0.0:
                            quad = QD[i] + QD[t] + 2.0 * y[i] * Qi[t]
                            if quad <= 0.0:
                                quad = TAU
                            obj_diff = -(grad_diff * grad_diff) / quad
                            if obj_diff <= obj_diff_min:
                                j = t
                                obj_diff_min = obj_diff
        violation = Gmax + Gmax2
        if violation < tol or j == -1 or n_iter >= max_iter:
            break
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
        for k in range(n):
            G[k] += Qi[k] * dai + Qj[k] * daj
    return G, n_iter, violation, state[2]


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
