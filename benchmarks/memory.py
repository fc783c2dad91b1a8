"""Peak memory of a tuning against its kernel-row cache (issue 14 item 5: peak ≤ cache + data).

Dense ``make_classification`` data (default 20,000 × 20, the case of issue 14), each
configuration in its own process (peak RSS is per process): one ``SVC(cache_size=200).fit`` for
scale, then ``BoundSVC(cache_size=..., n_jobs=2)`` with the default ``tune_subsample`` and with
``tune_subsample=None`` (every row searched and cross-validated, the issue's setting). Reported:
RSS after the data are made (the interpreter, the libraries and X), the peak, and the peak minus
that baseline against the configured cache. The cache is one budget shared by the solves that
run at once (``svmbound._parallel``), allocated lazily.

    python benchmarks/memory.py [--rows 20000] [--features 20] [--skip-all-rows] [--warm-up]
        [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import publish  # noqa: E402

_RUN = """
import json, resource, sys, time
import numpy as np
from sklearn.datasets import make_classification
n, d, which, cache, sub = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
warm = sys.argv[6] == "warm"
X, y = make_classification(n_samples=n, n_features=d, n_informative=10, flip_y=0.05,
                           random_state=0)
cache = cache if cache == "auto" else float(cache)
import sklearn.svm, svmbound.solvers  # libraries loaded before the baseline
if warm:  # the solvers' machine code loaded too (numba's cache, LLVM): not the tuning's memory
    from svmbound import BoundSVC
    Xw, yw = make_classification(n_samples=60, n_features=d, random_state=1)
    sklearn.svm.SVC().fit(Xw, yw) if which == "svc" else BoundSVC(n_jobs=2).fit(Xw, yw)
loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
if which == "svc":
    m = sklearn.svm.SVC(cache_size=cache).fit(X, y)
    extra = {"trainings": 1}
else:
    from svmbound import BoundSVC
    m = BoundSVC(cache_size=cache, n_jobs=2, random_state=0,
                 tune_subsample=None if sub == "all" else int(sub)).fit(X, y)
    extra = {"trainings": int(m.n_trainings_)}
print(json.dumps({"fit_s": time.perf_counter() - t, "rss_after_load_mb": loaded,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "train_accuracy": float(m.score(X, y)), **extra}))
"""

#: (label, which, cache, tune_subsample)
CONFIGS = (("SVC(cache_size=200).fit", "svc", "200", "-"),
           ("BoundSVC(cache_size=200, n_jobs=2)", "bound", "200", "5000"),
           ("BoundSVC(cache_size=1000, n_jobs=2)", "bound", "1000", "5000"),
           ("BoundSVC(cache_size='auto', n_jobs=2)", "bound", "auto", "5000"),
           ("BoundSVC(cache_size=200, n_jobs=2, tune_subsample=None)", "bound", "200", "all"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--skip-all-rows", action="store_true",
                    help="leave out the tune_subsample=None configuration (slow)")
    ap.add_argument("--warm-up", action="store_true",
                    help="fit a 60-row problem before the baseline is taken, so that the "
                         "solvers' compiled code (numba, LLVM) is in the baseline, not in the "
                         "growth")
    ap.add_argument("--out", help="write the table into this markdown file")
    args = ap.parse_args(argv)
    from svmbound.solvers.qp import auto_cache_mb

    lines = ["| configuration | cache MB | fit s | trainings | RSS after data MB | peak RSS MB | "
             "peak − baseline MB | ÷ cache |", "|---|---|---|---|---|---|---|---|"]
    for label, which, cache, sub in CONFIGS:
        if sub == "all" and args.skip_all_rows:
            continue
        r = subprocess.run([sys.executable, "-c", _RUN, str(args.rows), str(args.features),
                            which, cache, sub, "warm" if args.warm_up else "cold"],
                           capture_output=True, text=True, check=True)
        r = json.loads(r.stdout.strip().splitlines()[-1])
        mb = auto_cache_mb() if cache == "auto" else float(cache)
        grown = r["peak_rss_mb"] - r["rss_after_load_mb"]
        lines.append(f"| {label} | {mb:.0f} | {r['fit_s']:.1f} | {r['trainings']} | "
                     f"{r['rss_after_load_mb']:.0f} | {r['peak_rss_mb']:.0f} | {grown:.0f} | "
                     f"{grown / mb:.2f} |")
        print(lines[-1], flush=True)
    text = (f"`make_classification({args.rows} × {args.features})`, float64 X = "
            f"{args.rows * args.features * 8 / 2**20:.1f} MB.\n\n" + "\n".join(lines))
    publish(args.out, "Memory against the cache (issue 14)", "memory.py", argv, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
