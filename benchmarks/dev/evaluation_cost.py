"""Cost of one criterion evaluation (value and gradient) against one SVC fit at the same θ
(issue 14: "≤ 1.5 SVC fits per evaluation").

IDA split 1 of banana, german, image, waveform, ringnorm; θ = (ln C = 1, ln σ² of
gamma='scale'); each criterion is evaluated once at a neighbour (θ − (0.3, 0.1)) and then at θ,
warm-started from it as in a search; best of 3. SVC: ``SVC(C, gamma).fit``, best of 5 (LIBSVM,
tol 1e-3). The criteria solve at ``--tol`` (default 1e-6; the default strategy's searches solve
at 1e-3). BLAS on one thread, as in a fit.

    python benchmarks/dev/evaluation_cost.py [--data DIR] [--tol TOL]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _report import data_root  # noqa: E402

CRITERIA = (("span", "l2"), ("rm-l2", "l2"), ("rm-l1", "l1"))


def _best(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None)
    ap.add_argument("--tol", type=float, default=1e-6,
                    help="solver tolerance of the criteria (the default strategy's searches: "
                         "1e-3, strategy.STAGE_TOL)")
    args = ap.parse_args(argv)
    root = data_root(args.data)
    if root is None:
        return 2
    from sklearn.svm import SVC

    from svmbound._blas import limit_blas
    from svmbound.criteria import Problem, make_criterion
    from svmbound.datasets import load_ida
    from svmbound.kernels import RBFKernel
    from svmbound.strategy import scale_log_sigma2

    print("| IDA set (split 1) | SVC fit ms | " + " | ".join(f"{c} ms (÷ SVC)" for c, _ in CRITERIA)
          + " |")
    print("|---" * (len(CRITERIA) + 2) + "|")
    with limit_blas(1):
        for name in ("banana", "german", "image", "waveform", "ringnorm"):
            X, y, _, _ = load_ida(name, 1, root)
            y = np.where(y > 0, 1, -1)
            theta = np.array([1.0, scale_log_sigma2(X)])
            near = theta - [0.3, 0.1]
            svc = _best(lambda: SVC(C=np.exp(theta[0]), gamma=0.5 / np.exp(theta[1])).fit(X, y),
                        5)
            cells = []
            for cname, loss in CRITERIA:
                crit = make_criterion(cname, Problem(X, y), RBFKernel(), loss=loss, tol=args.tol)
                crit.evaluate(near, need_grad=True)

                def one():
                    crit.evaluate(near, need_grad=True)
                    t0 = time.perf_counter()
                    crit.evaluate(theta, need_grad=True)
                    return time.perf_counter() - t0

                t = min(one() for _ in range(3))
                cells.append(f"{1e3 * t:.1f} ({t / svc:.1f}×)")
            print(f"| {name} | {1e3 * svc:.1f} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
