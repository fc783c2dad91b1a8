"""One big SVM at a fixed (C, γ): ours (on data this large the block working-set solver,
``solvers._block``) against scikit-learn's SVC and scikit-learn-intelex's SVC (issue 32 item 2),
on ijcnn1 and a9a whole and on the generated dense200 (50,000 × 200 dense features).

Each trainer fits the L1-SVM with the RBF kernel at the same (C, γ), tolerance 1e-3 and a
kernel cache of ``--cache-size`` MB (default 2,000; 4,096 is what ``BoundSVC``'s default
``cache_size="auto"`` takes where memory allows), ``--repeats`` times (median wall time reported); the predictions on the
test file are compared with SVC's. sklearnex is the benchmarks-only extra; without it its
column reads "–". The (C, γ) are the default's picks on each set (large_data.py; dense200: its
L1 pick at 20,000 rows).
``--threads``: ours once per thread count (its kernel rows and gradient updates on that many
threads, what ``BoundSVC(n_jobs=k)`` gives its final training; the solution is the same bits at
every count).
On a machine of many cores, ``taskset -c 0,1 python benchmarks/one_svm.py --threads 2`` measures
every trainer on two of them.

    python benchmarks/one_svm.py [--data DIR] [--cases ijcnn1 a9a] [--repeats 3]
                                 [--threads 1 16] [--trainers svc ours sklearnex]
                                 [--cache-size 2000] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import data_root, publish  # noqa: E402
from large_data import intelex_svc, load, warm_up_large_solves  # noqa: E402

#: (C, γ) per case: the L1 default's pick on each set whole (large_data.py, 16-core run); dense200:
#: its L1 pick at 20,000 rows (2-core run, 74f1eb9).
POINTS = {"ijcnn1": (27.34, 0.6745), "a9a": (5.781, 0.05158), "dense200": (7.098, 0.001891)}
HEADING = "One big SVM: ours, SVC and sklearnex's SVC at one (C, γ) (issue 32)"


def fit_ours(X, y, C, gamma, threads=1, cache_size=2000):
    from svmbound._blas import limit_blas
    from svmbound.kernels import RBFKernel
    from svmbound.solvers import decision_function, solve_svm_dual
    from svmbound.solvers.qp import solve_threads_scope

    classes = np.unique(y)
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    kernel = RBFKernel.from_gamma(gamma)
    with limit_blas(1), solve_threads_scope(threads):     # as in BoundSVC.fit
        sol = solve_svm_dual(X, y_pm, kernel, C, loss="l1", tol=1e-3, cache_size=cache_size)

    def predict(Xt):
        f = decision_function(X, y_pm, sol.alpha, sol.b, kernel, Xt)
        return np.where(f > 0, classes[1], classes[0])
    return predict, int(np.sum(sol.alpha > 0))


def fit_svc(svc, X, y, C, gamma, cache_size=2000):
    m = svc(C=C, gamma=gamma, tol=1e-3, cache_size=cache_size).fit(X, y)
    return m.predict, int(m.support_.size)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None)
    ap.add_argument("--cases", nargs="+", default=list(POINTS), choices=list(POINTS))
    ap.add_argument("--repeats", type=int, nargs="+", default=[3],
                    help="fits per trainer, one number for every case or one per case")
    ap.add_argument("--threads", type=int, nargs="+", default=[1],
                    help="ours once per thread count (default 1)")
    ap.add_argument("--trainers", nargs="+", default=["svc", "ours", "sklearnex"],
                    choices=["svc", "ours", "sklearnex"])
    ap.add_argument("--cache-size", type=float, default=2000.0,
                    help="every trainer's kernel cache, MB (default 2000)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    mb = args.cache_size
    root = data_root(args.data)
    if root is None:
        return 2
    from sklearn.svm import SVC

    warm_up_large_solves()           # numba compiles, not timed
    trainers = {}
    if "svc" in args.trainers:
        trainers["sklearn SVC"] = lambda X, y, C, g: fit_svc(SVC, X, y, C, g, mb)
    if "ours" in args.trainers:
        for threads in args.threads:
            trainers[f"svmbound, {threads} thread{'s' if threads > 1 else ''}"] = \
                lambda X, y, C, g, t=threads: fit_ours(X, y, C, g, t, mb)
    intel = intelex_svc() if "sklearnex" in args.trainers else None
    if intel is not None:
        trainers["sklearnex SVC"] = lambda X, y, C, g: fit_svc(intel, X, y, C, g, mb)
    rows = []
    for k, name in enumerate(args.cases):
        repeats = args.repeats[min(k, len(args.repeats) - 1)]
        X, y, Xt, yt = load(root, name)
        C, gamma = POINTS[name]
        ref = None
        for label, fit in trainers.items():
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                predict, n_sv = fit(X, y, C, gamma)
                times.append(time.perf_counter() - t0)
            pred = predict(Xt)
            ref = pred if ref is None else ref      # the first trainer's predictions
            agree = "–" if ref is None else f"{np.mean(pred == ref):.5f}"
            row = (f"| {name} ({X.shape[0]}×{X.shape[1]}) | {C:g} | {gamma:g} | {label} | "
                   f"{np.median(times):.2f} ({min(times):.2f}–{max(times):.2f}) | {n_sv} | "
                   f"{100 * np.mean(pred != yt):.2f} | {agree} |")
            print(row, flush=True)
            rows.append(row)
    body = ("| data | C | γ | trainer | fit s, median (min–max) | support vectors | test err % | "
            "predictions = first trainer's |\n|---|---|---|---|---|---|---|---|\n"
            + "\n".join(rows) + "\n")
    publish(args.out, HEADING, "one_svm.py", argv, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
