"""The block solver's updates of the gradient by rows of Q (``_block.block_smo``, issue 32).

* ``_add_rows``: G_t += Σ_{k ∈ B, Δα_k ≠ 0} Δα_k Q_kt over the update's region (step 5 of
  ``_block``), each row read contiguously — a full row of the cache, or its copy over the region
  in the pool — or, for a small active set with no pool, through the active set's index; each
  entry's sum formed in B's order, two rows at a time, the same bits either way and on any
  number of threads (pieces of ``PIECE`` positions).
* ``_pool_rows``: the pool's copies of the moved rows over the region (LIBSVM keeps its cached
  rows in the active set's order by swapping entries at each shrinking; here a copy at a row's
  first use in a region), slots taken by the clock rule; ``_cache_reaches``: whether a fetch
  would grow the cache into the pool's rows (then given back).
* ``_add_free_rows``: G_t += Σ_{free k} α_k Q_kt at the shrunk positions, the rows read over all
  n (LIBSVM's reconstruct_gradient, ``_block._unshrink``).
"""

import numpy as np
from numba import njit, prange

from ..kernels._rows import _probe_parallel

#: Positions of the active set per piece of the gradient update on several threads.
PIECE = 4096


@njit(cache=True, nogil=True)
def _add_rows(G, rows, slots, delta, at, lo, hi, gather):
    """G_t += Σ_k delta_k Q_k[t] for t = at[j], j in [lo, hi), over the k of the working set with
    delta_k ≠ 0 in its order, two rows at a time; R_k = rows[slots[k]] is either Q_k over the
    positions at[:] in order, read contiguously (a full row of the cache when the region is
    every variable, else its copy over the region in the pool: ``_pool_rows``), or, with
    ``gather``, a full row of the cache read at at[j] (the active set, where it is small and
    no pool holds its rows). Each entry's sum is formed in the same order either way and
    wherever the piece runs."""
    w = hi - lo
    acc = np.zeros(w)
    idx = at[lo:hi]
    first = -1
    for k in range(slots.shape[0]):
        if delta[k] == 0.0:
            continue
        if first < 0:
            first = k
            continue
        d0 = delta[first]
        d1 = delta[k]
        if gather:
            r0 = rows[slots[first]]
            r1 = rows[slots[k]]
            for j in range(w):
                t = idx[j]
                acc[j] += d0 * r0[t] + d1 * r1[t]
        else:
            r0 = rows[slots[first]][lo:hi]
            r1 = rows[slots[k]][lo:hi]
            for j in range(w):
                acc[j] += d0 * r0[j] + d1 * r1[j]
        first = -1
    if first >= 0:
        d0 = delta[first]
        if gather:
            r0 = rows[slots[first]]
            for j in range(w):
                acc[j] += d0 * r0[idx[j]]
        else:
            r0 = rows[slots[first]][lo:hi]
            for j in range(w):
                acc[j] += d0 * r0[j]
    for j in range(w):
        G[idx[j]] += acc[j]


@njit(cache=True, nogil=True, parallel=True)
def _add_rows_parallel(G, rows, slots, delta, at, m, gather):
    for c in prange((m + PIECE - 1) // PIECE):
        _add_rows(G, rows, slots, delta, at, c * PIECE, min(m, (c + 1) * PIECE), gather)


@njit(cache=True, nogil=True)
def _copy_rows(buf, rows, src, dst, count, reg, lo, hi):
    """rows[dst[r]][j] = buf[src[r]][reg[j]] for r < count and j in [lo, hi)."""
    for r in range(count):
        source = buf[src[r]]
        target = rows[dst[r]]
        for j in range(lo, hi):
            target[j] = source[reg[j]]


@njit(cache=True, nogil=True, parallel=True)
def _copy_rows_parallel(buf, rows, src, dst, count, reg, m):
    for c in prange((m + PIECE - 1) // PIECE):
        _copy_rows(buf, rows, src, dst, count, reg, c * PIECE, min(m, (c + 1) * PIECE))


@njit(cache=True, nogil=True)
def _pool_rows(ids, slots, count, buf, rows, reg, m, pool_of, var_of, used, clock, threads):
    """Point slots[:count] — the cache slots of the variables ids[:count] — at their rows in the
    pool instead (``rows``: one pool slot a row, Q_t over the region's m positions reg[:m]),
    copying there from the cache those not in it yet (``_copy_rows``). A free pool slot is found
    by the clock rule (second chance): the hand clock[1] passes over the slots used since it
    last came by, and over those of this call, and takes the first other (the caller's pool has
    more slots than ``count``). pool_of[t]: variable t's pool slot or −1, var_of its inverse;
    used[s]: the call (clock[0]) that last used slot s, −1 once the hand passed it."""
    n_slots = rows.shape[0]
    clock[0] += 1
    now = clock[0]
    src = np.empty(count, dtype=np.int64)
    dst = np.empty(count, dtype=np.int64)
    n_copy = 0
    for r in range(count):
        t = ids[r]
        ps = pool_of[t]
        if ps < 0:
            while True:
                ps = clock[1]
                clock[1] = (ps + 1) % n_slots
                if used[ps] == now:
                    continue
                if used[ps] < 0:
                    break
                used[ps] = -1
            if var_of[ps] >= 0:
                pool_of[var_of[ps]] = -1
            var_of[ps] = t
            pool_of[t] = ps
            src[n_copy] = slots[r]
            dst[n_copy] = ps
            n_copy += 1
        used[ps] = now
        slots[r] = ps
    if n_copy > 0:
        if threads > 1:
            _copy_rows_parallel(buf, rows, src, dst, n_copy, reg, m)
        else:
            _copy_rows(buf, rows, src, dst, n_copy, reg, 0, m)


@njit(cache=True, nogil=True)
def _cache_reaches(ids, count, free_only, alpha, ub, slot_of, state, limit):
    """Whether fetching the rows of ids[:count] (of those free, 0 < α < u, with ``free_only``:
    what ``_unshrink`` fetches) would grow the cache (``_slot_for``: state[1] slots filled,
    from 0 up) beyond ``limit`` slots."""
    missing = 0
    for r in range(count):
        t = ids[r]
        if slot_of[t] < 0 and (not free_only or 0.0 < alpha[t] < ub[t]):
            missing += 1
    return state[1] + missing > limit


@njit(cache=True, nogil=True)
def _add_free_rows(G, buf, slots, coef, active, lo, hi):
    """G_t += Σ_k coef_k Q_k[t] for the positions t in [lo, hi) that are not ``active``, the
    rows Q_k = buf[slots[k]] read contiguously, two at a time in their order (the same bits
    wherever the piece runs)."""
    w = hi - lo
    acc = np.zeros(w)
    k = 0
    while k + 2 <= slots.shape[0]:
        r0 = buf[slots[k]][lo:hi]
        r1 = buf[slots[k + 1]][lo:hi]
        c0 = coef[k]
        c1 = coef[k + 1]
        for j in range(w):
            acc[j] += c0 * r0[j] + c1 * r1[j]
        k += 2
    if k < slots.shape[0]:
        r0 = buf[slots[k]][lo:hi]
        c0 = coef[k]
        for j in range(w):
            acc[j] += c0 * r0[j]
    for j in range(w):
        if not active[lo + j]:
            G[lo + j] += acc[j]


@njit(cache=True, nogil=True, parallel=True)
def _add_free_rows_parallel(G, buf, slots, coef, active, n):
    for c in prange((n + PIECE - 1) // PIECE):
        _add_free_rows(G, buf, slots, coef, active, c * PIECE, min(n, (c + 1) * PIECE))


# Cached functions here call parallel ones: numba's threading layer is loaded first (as in
# ``_smo``).
_probe_parallel(1)
