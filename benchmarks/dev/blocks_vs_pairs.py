"""One large SVM solved by blocks (``solvers._block``, what the library does from 4,096 rows
where the cache holds its working sets) and by pairs (the SMO), a process per solve,
alternated (docs/decisions.md, "block_smo").

Each solve is ``solve_svm_dual`` at a fixed (C, γ), tol 1e-3, on the solve's ``--threads`` (as
``BoundSVC(n_jobs=k)`` gives its final training), after an untimed solve that lets numba load or
compile; the median wall time of ``--repeats`` runs of each is reported with the pair SMO's ÷ the
block solver's. ``--rows N``: a stratified sample of N training rows (seed 0).

    python benchmarks/dev/blocks_vs_pairs.py --case a9a --loss l1 [--C 5.781 --gamma 0.05158]
        [--rows N] [--threads 2] [--repeats 3] [--cache-size 2000] [--data DIR]

The default (C, γ) are ``one_svm.py``'s points. ``--trees A B``: the solve as the library runs
it (blocks from ``qp.BLOCK_MIN_ROWS`` rows) in two source trees instead, alternated, with B ÷
A — a change of the solver measured (e.g. ``git worktree add /tmp/base HEAD~1``).

    python benchmarks/dev/blocks_vs_pairs.py --case ijcnn1 --loss l2 --trees /tmp/base .
        [--cache-size auto]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

here = Path(__file__).resolve()
sys.path.insert(0, str(here.parents[1]))  # benchmarks/


def one_solve(args) -> dict:
    """Solve once in this process (``--child``) and return what the parent prints."""
    from large_data import load, sample_rows, warm_up_large_solves

    from svmbound._blas import limit_blas
    from svmbound.kernels import RBFKernel
    from svmbound.solvers import qp, solve_svm_dual
    from svmbound.solvers.qp import solve_threads_scope

    from _report import data_root

    root = data_root(args.data) if args.case != "dense200" else None
    X, y, _, _ = load(root, args.case)
    y = np.where(y > 0, 1.0, -1.0)
    if args.rows:
        X, y = sample_rows(X, y, args.rows)
    if args.child == "pairs":
        qp.uses_blocks = lambda n, cache_rows, pieces: False
    warm_up_large_solves()
    with limit_blas(1), solve_threads_scope(args.threads):
        t = time.perf_counter()
        sol = solve_svm_dual(X, y, RBFKernel.from_gamma(args.gamma), args.C, loss=args.loss,
                             tol=1e-3, cache_size=args.cache_size)
        seconds = time.perf_counter() - t
    import svmbound

    return {"s": seconds, "iter": int(sol.n_iter), "rows": int(sol.n_kernel_rows),
            "sv": int(np.sum(sol.alpha > 0)), "b": float(sol.b),
            "objective": float(sol.objective), "svmbound": svmbound.__file__}


def cache_size(text: str):
    return text if text == "auto" else float(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="a9a", choices=["ijcnn1", "a9a", "dense200"])
    ap.add_argument("--loss", default="l1", choices=["l1", "l2"])
    ap.add_argument("--C", type=float, default=None)
    ap.add_argument("--gamma", type=float, default=None)
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cache-size", type=cache_size, default=2000.0, help="MB or auto")
    ap.add_argument("--trees", nargs=2, default=None, metavar=("A", "B"))
    ap.add_argument("--data", default=None)
    ap.add_argument("--child", choices=["blocks", "pairs", "A", "B"], default=None,
                    help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child in ("A", "B"):    # that tree's svmbound, before anything imports one
        sys.path.insert(0, str(Path(args.trees["AB".index(args.child)]).resolve()))
    from one_svm import POINTS

    C, gamma = POINTS.get(args.case, (1.0, 0.005))
    args.C = C if args.C is None else args.C
    args.gamma = gamma if args.gamma is None else args.gamma
    if args.child:
        print(json.dumps(one_solve(args)))
        return 0
    from _report import data_root

    if args.case != "dense200" and data_root(args.data) is None:
        return 2
    runs = {"A": [], "B": []} if args.trees else {"blocks": [], "pairs": []}
    child = list(argv if argv is not None else sys.argv[1:])
    for _ in range(args.repeats):
        for mode in runs:
            out = subprocess.run([sys.executable, str(here), *child, "--child", mode],
                                 capture_output=True, text=True, check=True)
            runs[mode].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(mode, runs[mode][-1], flush=True)
    med = {mode: statistics.median(r["s"] for r in rs) for mode, rs in runs.items()}
    if args.trees:
        print(f"{args.case} {args.loss} C={args.C:g} gamma={args.gamma:g} "
              f"rows={args.rows or 'all'} threads={args.threads} cache={args.cache_size}: "
              f"A {med['A']:.2f} s, B {med['B']:.2f} s, B / A {med['B'] / med['A']:.3f}")
        return 0
    print(f"{args.case} {args.loss} C={args.C:g} gamma={args.gamma:g} rows={args.rows or 'all'} "
          f"threads={args.threads}: blocks {med['blocks']:.2f} s, pairs {med['pairs']:.2f} s, "
          f"pairs / blocks {med['pairs'] / med['blocks']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
