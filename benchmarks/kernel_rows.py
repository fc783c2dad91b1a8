"""Cost of one RBF kernel row of the SMO (``svmbound.solvers._smo.kernel_row``), in ns per
kernel value, against the same row with numba's scalar ``np.exp`` (what the solver did before
``svmbound._vexp``).

A row is ⟨x_i, x_j⟩ for every j (one BLAS gemv), the squared distances, and n exponentials.
Random normal data of n rows and d features, γ = 1/(2d); rows taken in turn, the two
implementations interleaved, best of 5 rounds; BLAS on one thread, as in a fit.

    python benchmarks/kernel_rows.py [--sizes N:D ...]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit


@njit(cache=False, nogil=True)
def scalar_exp_row(X, sq, i, gamma, out):
    """The row as the solver computed it before: a scalar exp call per entry."""
    dots = np.dot(X, X[i])
    sqi = sq[i]
    for j in range(sq.shape[0]):
        d2 = sqi + sq[j] - 2.0 * dots[j]
        if d2 < 0.0:
            d2 = 0.0
        out[j] = np.exp(-gamma * d2)
    out[i] = 1.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", nargs="*",
                    default=["400:2", "1300:18", "5000:22", "5000:112", "20000:22"],
                    help="N:D pairs (rows:features)")
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    from svmbound.solvers._smo import RBF, kernel_row

    threadpool_limits(1)
    rng = np.random.default_rng(0)
    print("| n | d | scalar exp ns/value | vectorised exp ns/value | ratio | max rel. diff |")
    print("|---:|---:|---:|---:|---:|---:|")
    for item in args.sizes:
        n, d = (int(v) for v in item.split(":"))
        X = rng.standard_normal((n, d))
        sq = np.einsum("ij,ij->i", X, X)
        gamma = 1.0 / (2 * d)
        ref, out = np.empty(n), np.empty(n)
        scalar_exp_row(X, sq, 0, gamma, ref)
        kernel_row(X, sq, 0, RBF, gamma, 0.0, 3, out)
        diff = float(np.max(np.abs(out - ref) / ref))
        reps = max(20, 2_000_000 // n)
        best = {"scalar": np.inf, "vector": np.inf}
        for _ in range(5):
            t0 = time.perf_counter()
            for k in range(reps):
                scalar_exp_row(X, sq, k % n, gamma, ref)
            best["scalar"] = min(best["scalar"], (time.perf_counter() - t0) / reps)
            t0 = time.perf_counter()
            for k in range(reps):
                kernel_row(X, sq, k % n, RBF, gamma, 0.0, 3, out)
            best["vector"] = min(best["vector"], (time.perf_counter() - t0) / reps)
        print(f"| {n} | {d} | {best['scalar'] / n * 1e9:.1f} | {best['vector'] / n * 1e9:.1f} | "
              f"{best['vector'] / best['scalar']:.2f} | {diff:.1e} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
