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
solver in which ``block_dots`` computes ⟨x_i, x_j⟩ for a block of j by walking, for each
non-zero x_ik, the part of column k in the block (a pass over the non-zeros sharing a feature
with x_i, at most nnz(X)). The LRU cache, the working-set selection and everything else are the
same code.

Kernel rows on several threads (issue 14): a row is computed in blocks of ``ROW_BLOCK``
entries, each by ``_row_block`` with a fixed order of operations per entry (``block_dots``
sums the features in order, not BLAS), so a row's values do not depend on which thread
computes which block. ``_get_row`` spreads the blocks over ``ctl[0]`` numba threads
(``prange``) when the caller allows it (``qp.row_threads_scope``: large n, and one solve at a
time may launch parallel regions, since numba's workqueue threading layer aborts the process
when two threads launch them at once) and the threads have been the faster way so far
(``_rows_on_threads``: timed with the cycle counter, as busy cores make them slower);
otherwise it runs them in its own thread. Either way α, G, the iterations and the rows are
bit-identical: ``ctl`` and the timings only move work between cores.
"""

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

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


#: Entries per block of a kernel row: a row is computed block by block, each block by the same
#: code whichever thread runs it (``_row_block``), so the values do not depend on the threads.
ROW_BLOCK = 512


def block_dots(X, i, lo, hi, out):
    """out[j − lo] = ⟨x_i, x_j⟩ for lo ≤ j < hi, each summed over the features k in increasing
    order from 0.0: ((0 + x_i0 x_j0) + x_i1 x_j1) + … (sparse: over the non-zeros of x_i, in
    their CSR order). X is a dense 2-D array or the CSR/CSC tuple of sparse data.

    A fixed order per entry, not BLAS: a BLAS gemv sums in an order that depends on how it
    splits the rows (its threads, its kernels for the last rows), so entries computed in blocks
    on several threads would differ in the last bit from the same row computed at once."""
    if isinstance(X, tuple):
        rdata, rind, rptr, cdata, cind, cptr = X
        out[:hi - lo] = 0.0
        for p in range(rptr[i], rptr[i + 1]):
            k, v = rind[p], rdata[p]
            for q in range(cptr[k], cptr[k + 1]):
                if lo <= cind[q] < hi:
                    out[cind[q] - lo] += v * cdata[q]
        return
    for j in range(lo, hi):
        s = 0.0
        for k in range(X.shape[1]):
            s += X[i, k] * X[j, k]
        out[j - lo] = s


@overload(block_dots, jit_options={"cache": True, "nogil": True})
def _block_dots_overload(X, i, lo, hi, out):
    if isinstance(X, types.BaseTuple):
        def csc_dots(X, i, lo, hi, out):
            # for each non-zero x_ik, the entries of column k with a row in [lo, hi) (CSC row
            # indices are sorted: a binary search finds the first)
            rdata, rind, rptr, cdata, cind, cptr = X
            for j in range(hi - lo):
                out[j] = 0.0
            for p in range(rptr[i], rptr[i + 1]):
                k = rind[p]
                v = rdata[p]
                start = cptr[k]
                end = cptr[k + 1]
                q = start + np.searchsorted(cind[start:end], lo)
                while q < end and cind[q] < hi:
                    out[cind[q] - lo] += v * cdata[q]
                    q += 1
        return csc_dots

    def row_dots(X, i, lo, hi, out):
        # four entries at a time (four independent sums), each in the order k. Row-major X is
        # read as one stream: in the SMO, where X no longer sits in the cache between rows,
        # this took 15-20 % fewer cycles per row than a column-major X whose column pieces
        # were summed with vector instructions (faster only with X in the cache)
        d = X.shape[1]
        xi = X[i]
        Xb = X[lo:hi]
        m = hi - lo
        j = 0
        while j + 4 <= m:
            s0 = 0.0
            s1 = 0.0
            s2 = 0.0
            s3 = 0.0
            for k in range(d):
                c = xi[k]
                s0 += Xb[j, k] * c
                s1 += Xb[j + 1, k] * c
                s2 += Xb[j + 2, k] * c
                s3 += Xb[j + 3, k] * c
            out[j] = s0
            out[j + 1] = s1
            out[j + 2] = s2
            out[j + 3] = s3
            j += 4
        while j < m:
            s = 0.0
            for k in range(d):
                s += Xb[j, k] * xi[k]
            out[j] = s
            j += 1
    return row_dots


def matrix_entry(X, i, j):
    """X[i, j] of a PRECOMPUTED kernel matrix (never reached with sparse data: 0)."""
    return 0.0 if isinstance(X, tuple) else X[i, j]


@overload(matrix_entry, jit_options={"cache": True, "nogil": True})
def _matrix_entry_overload(X, i, j):
    if isinstance(X, types.BaseTuple):
        return lambda X, i, j: 0.0
    return lambda X, i, j: X[i, j]


def row_threads(ctl):
    """How many threads may compute this solve's kernel rows now: ``ctl[0]`` (set by
    ``qp.row_threads_scope`` while the solve runs), 0 (one thread) without a ``ctl`` array."""
    return 0 if ctl is None else ctl[0]


@overload(row_threads, jit_options={"cache": True, "nogil": True})
def _row_threads_overload(ctl):
    if isinstance(ctl, types.Array):
        return lambda ctl: ctl[0]
    return lambda ctl: 0


def row_value(out, v):
    """v rounded to the element type of ``out`` (float32 rows: LIBSVM's Qfloat), as a number."""
    return np.float32(v) if out.dtype == np.float32 else v


@overload(row_value, jit_options={"cache": True, "nogil": True})
def _row_value_overload(out, v):
    if out.dtype == types.float32:
        return lambda out, v: np.float32(v)
    return lambda out, v: v


@njit(cache=True, nogil=True)
def _row_block(X, sq, i, code, gamma, coef0, degree, lo, hi, dots, out, y, yi_s):
    """out[j] = K(x_i, x_j)·yi_s·y_j for lo ≤ j < hi (the row of Q for yi_s = s·y_i; a kernel
    row for y = e, yi_s = 1), K rounded to the row's type before the product, as when the
    kernel value was stored first and scaled after. ``dots``: scratch of ≥ hi − lo values.
    Each entry's arithmetic is the same whichever block or thread computes it (``block_dots``).

    One pass per block (kernel and scaling together: 10-15 % less time per ijcnn1 row than a
    kernel pass then a scaling pass), over slices from index 0: with j known to be ≥ 0 numba
    drops its check for negative indices (``for j in range(lo, hi)`` was 1.6 times slower on
    an RBF row)."""
    m = hi - lo
    o = out[lo:hi]
    yy = y[lo:hi]
    if code == PRECOMPUTED:
        for j in range(m):
            o[j] = row_value(out, matrix_entry(X, i, lo + j)) * (yi_s * yy[j])
        return
    block_dots(X, i, lo, hi, dots)
    if code == LINEAR:
        for j in range(m):
            o[j] = row_value(out, dots[j]) * (yi_s * yy[j])
    elif code == RBF:
        sqi = sq[i]
        s = sq[lo:hi]
        for j in range(m):
            d2 = sqi + s[j] - 2.0 * dots[j]
            if d2 < 0.0:
                d2 = 0.0
            o[j] = row_value(out, np.exp(-gamma * d2)) * (yi_s * yy[j])
        if lo <= i < hi:
            out[i] = row_value(out, 1.0) * (yi_s * y[i])
    else:
        for j in range(m):
            o[j] = row_value(out, (gamma * dots[j] + coef0) ** degree) * (yi_s * yy[j])


@njit(cache=True, nogil=True)
def _fill_row(X, sq, i, code, gamma, coef0, degree, out, y, yi_s):
    """``_row_block`` over the blocks of ``ROW_BLOCK`` entries of ``out``, in this thread."""
    n = out.shape[0]
    dots = np.empty(min(n, ROW_BLOCK))
    for lo in range(0, n, ROW_BLOCK):
        _row_block(X, sq, i, code, gamma, coef0, degree, lo, min(n, lo + ROW_BLOCK), dots, out,
                   y, yi_s)


@njit(parallel=True, cache=True, nogil=True)
def _fill_row_parallel(X, sq, i, code, gamma, coef0, degree, out, y, yi_s, threads):
    """The blocks of ``_fill_row`` shared among ``threads`` numba threads (``prange`` over
    ``threads`` runs of consecutive blocks): the same values, computed by several cores — as
    LIBSVM's OpenMP build computes the entries of a Q row in parallel. The number of threads is
    the number of runs, not ``numba.set_num_threads`` (which would stop numba from caching the
    compiled function)."""
    n = out.shape[0]
    n_blocks = (n + ROW_BLOCK - 1) // ROW_BLOCK
    for t in prange(threads):
        dots = np.empty(ROW_BLOCK)
        for b in range(t * n_blocks // threads, (t + 1) * n_blocks // threads):
            lo = b * ROW_BLOCK
            _row_block(X, sq, i, code, gamma, coef0, degree, lo, min(n, lo + ROW_BLOCK), dots,
                       out, y, yi_s)


@njit(cache=True, nogil=True)
def kernel_row(X, sq, i, code, gamma, coef0, degree, out):
    """out[j] = K(x_i, x_j) for every j (for PRECOMPUTED, X is the kernel matrix itself): the
    SMO's ``_fill_row`` with y = e (a vector of ones made for the call; the SMO itself calls
    ``_fill_row`` with the labels)."""
    _fill_row(X, sq, i, code, gamma, coef0, degree, out, np.ones(sq.shape[0]), 1.0)


@njit(cache=True, nogil=True)
def dense_sq_norms(X):
    """‖x_j‖² for every row of the dense X, summed as ``block_dots`` sums ⟨x_i, x_j⟩ (features
    in order from 0.0), so that ‖x_i‖² + ‖x_j‖² − 2⟨x_i, x_j⟩ is exactly 0 when x_j = x_i."""
    n = X.shape[0]
    sq = np.empty(n)
    for j in range(n):
        s = 0.0
        for k in range(X.shape[1]):
            s += X[j, k] * X[j, k]
        sq[j] = s
    return sq


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


@intrinsic
def _cycles(typingctx):
    """The CPU's cycle counter (``llvm.readcyclecounter``: RDTSC on x86; 0 where the target
    has none), to time rows without leaving compiled code."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.int64(), codegen


# The adaptive choice of one thread or several for a row (``_rows_on_threads``), in the SMO's
# ``state`` array: cycles per row on one thread and on several (running means, 0 = not yet
# measured), rows left until the next try of the slower way, and the current gap between tries.
S_ONE, S_MANY, S_NEXT_TRY, S_TRY_GAP = 3, 4, 5, 6
STATE_SIZE = 7
FIRST_TRY_GAP, LAST_TRY_GAP = 16, 1024


@njit(cache=True, nogil=True)
def _rows_on_threads(state):
    """Whether the next row should be computed on the threads granted (else on this one): the
    way that has been faster so far — each is measured first, the threads twice (their first
    row also starts them) — and, every ``state[S_TRY_GAP]`` rows, the other way once, to
    notice a change. The gap doubles (up to ``LAST_TRY_GAP``) each time the try confirms the
    choice and falls back to ``FIRST_TRY_GAP`` when it does not.

    Why measure: the threads only pay when a core is free. On the 2-core test machine, with
    other processes keeping about one core busy, a row split over two threads took 2-5 times
    as long as on one thread inside the SMO (the second thread, asleep between rows, waits for
    the busy core), though 1.6 times less when rows follow each other; no in-process
    bookkeeping sees other processes."""
    if state[S_MANY] <= 0:
        return True
    if state[S_ONE] == 0:
        return False
    many_faster = state[S_MANY] < state[S_ONE]
    state[S_NEXT_TRY] -= 1
    if state[S_NEXT_TRY] > 0:
        return many_faster
    return not many_faster


@njit(cache=True, nogil=True)
def _record_row_time(state, many, cycles):
    """Fold the cycles of a row computed one way into its running mean (weight 1/4; a sample
    counts at most twice the mean, so that one row held up by the system does not flip the
    choice), and after a try of the slower way set the gap to the next try
    (``_rows_on_threads``). The threads' first row is not counted (it starts them): −1."""
    k = S_MANY if many else S_ONE
    if many and state[k] == 0:
        state[k] = -1
        return
    was_many_faster = state[S_MANY] < state[S_ONE]
    tried = state[S_NEXT_TRY] <= 0 and state[S_ONE] > 0 and state[S_MANY] > 0
    c = max(cycles, 1)                  # ≥ 1: 0 means "not measured yet"
    if state[k] <= 0:
        state[k] = c
    else:
        state[k] = (3 * state[k] + min(c, 2 * state[k])) // 4
    if tried:
        if (state[S_MANY] < state[S_ONE]) == was_many_faster:
            state[S_TRY_GAP] = min(2 * state[S_TRY_GAP], LAST_TRY_GAP)
        else:
            state[S_TRY_GAP] = FIRST_TRY_GAP
        state[S_NEXT_TRY] = state[S_TRY_GAP]


@njit(cache=True, nogil=True)
def _get_row(i, X, sq, y, code, gamma, coef0, degree, scale, shift,
             buf, slot_of, row_of, last_used, state, ctl):
    """Row i of Q from the LRU cache, computing it on a miss. state = [clock, n_filled, misses,
    then the timings of ``_rows_on_threads``]. A missed row is computed on ``row_threads(ctl)``
    threads when that is 2 or more and that has been the faster way (same values as on one
    thread: ``_fill_row_parallel``)."""
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
    threads = row_threads(ctl)
    if threads >= 2 and row.shape[0] > ROW_BLOCK:
        many = _rows_on_threads(state)
        t0 = _cycles()
        if many:
            _fill_row_parallel(X, sq, i, code, gamma, coef0, degree, row, y, y[i] * scale,
                               threads)
        else:
            _fill_row(X, sq, i, code, gamma, coef0, degree, row, y, y[i] * scale)
        _record_row_time(state, many, _cycles() - t0)
    else:
        _fill_row(X, sq, i, code, gamma, coef0, degree, row, y, y[i] * scale)
    row[i] += scale * shift_at(shift, i)
    slot_of[i] = s
    row_of[s] = i
    last_used[s] = state[0]
    return row


@njit(cache=True, nogil=True)
def _select(act, m, y, G, alpha, ub, QD, X, sq, code, gamma, coef0, degree, scale, shift,
            buf, slot_of, row_of, last_used, state, ctl):
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
                  buf, slot_of, row_of, last_used, state, ctl)
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
                 scale, shift, buf, slot_of, row_of, last_used, state, stop, ctl):
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
                          buf, slot_of, row_of, last_used, state, ctl)
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
        max_iter, buf, stop, shrinking=True, ctl=None):
    """Solve the QP in place on ``alpha`` (which must be feasible), with LIBSVM's shrinking.

    G = Qα + p and Ḡ = Σ_{α_j = u_j} u_j Q_j at the start are given (computed in blocks by the
    caller, updated in place). ``stop`` is a one-element int64 array: when another thread sets
    ``stop[0]`` the loop returns before its next iteration. ``ctl``: None (rows on this thread)
    or an int64 array whose ``ctl[0]``, read at each row computed, is the number of threads
    that row may use (``qp.row_threads_scope``; results do not depend on it). Returns (G, n_iter, violation,
    n_kernel_rows, interrupted): G is the final (full) gradient; after an interruption α is
    feasible but not optimal and G may be stale on shrunk variables — discard the result.
    """
    n = y.shape[0]
    n_slots = buf.shape[0]
    slot_of = -np.ones(n, dtype=np.int64)
    row_of = -np.ones(n_slots, dtype=np.int64)
    last_used = np.zeros(n_slots, dtype=np.int64)
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[S_NEXT_TRY] = FIRST_TRY_GAP
    state[S_TRY_GAP] = FIRST_TRY_GAP

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
                             degree, scale, shift, buf, slot_of, row_of, last_used, state, stop,
                             ctl)
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
                                  scale, shift, buf, slot_of, row_of, last_used, state, ctl)
        if violation < tol or j == -1 or n_iter >= max_iter:
            # optimal on the active set: check on the whole set
            _reconstruct(act, m, n, G, G_bar, p, alpha, ub, X, sq, y, code, gamma, coef0,
                         degree, scale, shift, buf, slot_of, row_of, last_used, state, stop, ctl)
            m = n
            if stop[0] != 0:
                interrupted = True
                break
            i, j, violation = _select(act, m, y, G, alpha, ub, QD, X, sq, code, gamma, coef0,
                                      degree, scale, shift, buf, slot_of, row_of, last_used, state,
                                      ctl)
            if violation < tol or j == -1 or n_iter >= max_iter:
                break
            counter = 1
        n_iter += 1

        # ---- two-variable update (LIBSVM Solver::Solve) ----
        Qi = _get_row(i, X, sq, y, code, gamma, coef0, degree, scale, shift,
                      buf, slot_of, row_of, last_used, state, ctl)
        Qj = _get_row(j, X, sq, y, code, gamma, coef0, degree, scale, shift,
                      buf, slot_of, row_of, last_used, state, ctl)
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
