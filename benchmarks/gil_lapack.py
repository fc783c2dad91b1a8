"""Do the span bound's LAPACK/BLAS calls let another thread run? (issue 14)

Two threads each factorise (or rank-k update) their own SPD matrix ``--repeats`` times; the
wall time is compared with doing both one after the other. A ratio of 0.5 means the calls ran
side by side (the GIL was released), 1.0 that they took turns. Rows: SciPy's f2py wrappers
(``scipy.linalg.lapack.dpotrf``, ``scipy.linalg.blas.dsyrk``), NumPy's ``np.linalg.cholesky``
for reference, and svmbound's numba calls of the same routines (``svmbound._lapack``). BLAS is
limited to one thread, as in a fit.

    python benchmarks/gil_lapack.py [--n 800] [--repeats 10]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def side_by_side(work, repeats: int) -> tuple[float, float]:
    """(serial s, two threads s) of ``work(k)`` for k = 0, 1, each ``repeats`` times."""
    def run(k):
        for _ in range(repeats):
            work(k)

    run(0)                                   # warm-up (numba compilation, page faults)
    t = time.perf_counter()
    run(0)
    run(1)
    serial = time.perf_counter() - t
    threads = [threading.Thread(target=run, args=(k,)) for k in (0, 1)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return serial, time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=800)
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args(argv)
    from scipy.linalg import lapack
    from scipy.linalg.blas import dsyrk

    from svmbound._blas import limit_blas
    from svmbound._lapack import potrf_upper, syrk_upper

    rng = np.random.RandomState(0)
    A = rng.randn(args.n, args.n)
    A = A @ A.T + args.n * np.eye(args.n)
    work = [A.copy() for _ in range(2)]

    def f2py_potrf(k):
        lapack.dpotrf(A.T, lower=0, clean=0, overwrite_a=0)

    def numpy_cholesky(k):
        np.linalg.cholesky(A)

    def numba_potrf(k):
        work[k][:] = A
        potrf_upper(work[k])

    def f2py_syrk(k):
        dsyrk(1.0, A.T, trans=1, lower=1)

    def numba_syrk(k):
        syrk_upper(A)

    rows = [("scipy.linalg.lapack.dpotrf (f2py)", f2py_potrf),
            ("numpy.linalg.cholesky", numpy_cholesky),
            ("svmbound._lapack.potrf_upper (numba)", numba_potrf),
            ("scipy.linalg.blas.dsyrk (f2py)", f2py_syrk),
            ("svmbound._lapack.syrk_upper (numba)", numba_syrk)]
    print(f"n = {args.n}, {args.repeats} calls per thread, BLAS on one thread\n")
    print("| call | one after the other (s) | two threads (s) | ratio |")
    print("|---|---|---|---|")
    with limit_blas(1):
        for name, fn in rows:
            serial, both = side_by_side(fn, args.repeats)
            print(f"| {name} | {serial:.3f} | {both:.3f} | {both / serial:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
