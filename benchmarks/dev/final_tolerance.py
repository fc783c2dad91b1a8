"""Solver tolerance of the final model: one SVM training on 20,000 rows at tol 1e-6 (the
criterion tolerance, the old final model of criterion='auto') and at 1e-3 (SVC's, the new one),
test error on 10,000 other rows (issue 14; ``BoundSVC._final_tol``).

``make_classification(30000, 20, random_state=0)``, the first 20,000 rows to train, RBF kernel
at gamma='scale', ln C ∈ {0, 2}, both losses, ``cache_size=200``, BLAS on one thread.

    python benchmarks/dev/final_tolerance.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main(argv=None):
    import argparse

    argparse.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    from sklearn.datasets import make_classification

    from svmbound._blas import limit_blas
    from svmbound.kernels import RBFKernel
    from svmbound.solvers.svm import decision_function, solve_svm_dual

    X, y = make_classification(n_samples=30000, n_features=20, random_state=0)
    y = np.where(y > 0, 1.0, -1.0)
    X, Xt, y, yt = X[:20000], X[20000:], y[:20000], y[20000:]
    kernel = RBFKernel(float(X.shape[1] * X.var() / 2))
    print("| ln C | loss | tol | fit s | iterations | test err % | SVs |")
    print("|---|---|---|---|---|---|---|")
    with limit_blas(1):
        for log_c in (0.0, 2.0):
            for loss in ("l2", "l1"):
                for tol in (1e-6, 1e-3):
                    t0 = time.perf_counter()
                    sol = solve_svm_dual(X, y, kernel, np.exp(log_c), loss=loss, tol=tol,
                                         cache_size=200)
                    t = time.perf_counter() - t0
                    f = decision_function(X, y, sol.alpha, sol.b, kernel, Xt)
                    print(f"| {log_c:g} | {loss} | {tol:g} | {t:.1f} | {sol.n_iter} | "
                          f"{100 * np.mean(f * yt < 0):.3f} | {np.count_nonzero(sol.alpha > 0)} |",
                          flush=True)


if __name__ == "__main__":
    main()
