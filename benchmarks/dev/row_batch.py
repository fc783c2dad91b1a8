"""Kernel rows of Q in pieces from Xᵀ, one row at a time against ``--batch`` rows together
(``kernels._rows.q_rows_pieces``, what the block solver does with the rows an outer step
misses; docs/decisions.md, "block_smo", ROW_BATCH).

The same random rows of the case's training set (seed 0) are computed both ways on
``--threads`` threads into a float32 buffer already touched, each way ``--rounds`` times in
alternation (the first round untimed: numba compiles), and the mean milliseconds per row of
the later rounds are printed, with whether the two ways gave the same bits.

    python benchmarks/dev/row_batch.py --case ijcnn1 [--batch 4 8 16 32 64] [--rows 960]
        [--threads 2] [--gamma 0.05] [--rounds 3] [--data DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

here = Path(__file__).resolve()
sys.path.insert(0, str(here.parents[1]))  # benchmarks/


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", default="ijcnn1")
    ap.add_argument("--batch", type=int, nargs="+", default=[4, 8, 16, 32, 64])
    ap.add_argument("--rows", type=int, default=960)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--gamma", type=float, default=0.05)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--data", default=None)
    args = ap.parse_args(argv)

    from numba import njit
    from _report import data_root
    from large_data import load

    from svmbound.kernels import RBFKernel, precomputed
    from svmbound.kernels._rows import RBF, q_row_pieces, q_rows_pieces
    from svmbound.solvers.qp import solve_threads_scope

    @njit
    def one_by_one(Xt, sq, ids, slots, gamma, y, buf, threads):
        for r in range(ids.shape[0]):
            q_row_pieces(Xt, sq, ids[r], RBF, gamma, 0.0, 3, y, y[ids[r]], buf[slots[r]],
                         threads)

    @njit
    def together(Xt, sq, ids, slots, gamma, y, buf, threads, batch):
        for r0 in range(0, ids.shape[0], batch):
            r1 = min(ids.shape[0], r0 + batch)
            q_rows_pieces(Xt, sq, ids[r0:r1], slots[r0:r1], RBF, gamma, 0.0, 3, y, 1.0, buf,
                          threads)

    X, y, _, _ = load(data_root(args.data), args.case)
    laid = precomputed.smo_rows_data(np.asarray(X, dtype=np.float64),
                                     RBFKernel.from_gamma(args.gamma))
    Xt, sq = laid.data, laid.sq
    y = np.where(y == np.unique(y)[1], 1.0, -1.0)
    n = y.size
    ids = np.random.default_rng(0).choice(n, args.rows, replace=False).astype(np.int64)
    slots = np.arange(args.rows, dtype=np.int64)
    bufs = [np.zeros((args.rows, n), dtype=np.float32) for _ in range(2)]
    print(f"{args.case}: {n} rows, {Xt.shape[0]} features, {args.threads} threads, "
          f"{args.rows} rows of Q, ms per row")
    with solve_threads_scope(args.threads):
        for batch in args.batch:
            times = {"alone": [], "together": []}
            for rnd in range(args.rounds):
                t0 = time.perf_counter()
                one_by_one(Xt, sq, ids, slots, args.gamma, y, bufs[0], args.threads)
                t1 = time.perf_counter()
                together(Xt, sq, ids, slots, args.gamma, y, bufs[1], args.threads, batch)
                t2 = time.perf_counter()
                if rnd:
                    times["alone"].append(t1 - t0)
                    times["together"].append(t2 - t1)
            alone, tog = (1e3 * np.mean(times[k]) / args.rows for k in ("alone", "together"))
            same = bufs[0].tobytes() == bufs[1].tobytes()
            print(f"batch {batch:3d}: alone {alone:.3f}, together {tog:.3f} "
                  f"({alone / tog:.2f}x), same bits: {same}")


if __name__ == "__main__":
    main()
