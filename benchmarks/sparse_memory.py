"""Peak memory and time of tuning on sparse text data (issue 13: Reuters, 7,770 × 8,315 CSR).

Each configuration runs in its own process (peak RSS is per process): one ``SVC().fit`` (what
the target is relative to), the same with the cache svmbound's default 'auto' gives (a quarter
of the memory, at most 4 GB: the comparison at equal cache), ``BoundSVC().fit`` with the default
cache, and ``BoundSVC`` with the 200 MB cache SVC uses. The data are read as CSR (``load_libsvm(..., sparse=True)``) and
never densified.

    python benchmarks/sparse_memory.py [--data DIR] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import data_root, publish  # noqa: E402

_RUN = """
import json, resource, sys, time
import numpy as np
from svmbound.datasets import load_libsvm
root, which = sys.argv[1], sys.argv[2]
X, y = load_libsvm(root + "/sparse/reuters.trn.bz2", n_features=8315, sparse=True)
Xt, yt = load_libsvm(root + "/sparse/reuters.tst.bz2", n_features=8315, sparse=True)
loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
if which in ("svc", "svc-auto"):
    from sklearn.svm import SVC
    from svmbound.solvers.qp import cache_megabytes
    kw = {} if which == "svc" else {"cache_size": float(cache_megabytes("auto"))}
    m = SVC(**kw).fit(X, y)
    extra = {"cache_mb": kw.get("cache_size", 200.0)}
else:
    from svmbound import BoundSVC
    kw = {} if which == "boundsvc" else {"cache_size": 200}
    m = BoundSVC(**kw).fit(X, y)
    extra = {"trainings": int(m.n_trainings_), "C": float(m.best_params_["C"]),
             "gamma": float(m.best_params_["gamma"])}
fit = time.perf_counter() - t
print(json.dumps({"which": which, "fit_s": fit, "test_accuracy": float(np.mean(m.predict(Xt) == yt)),
                  "rss_after_load_mb": loaded,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "nnz": int(X.nnz), **extra}))
"""

CONFIGS = {"svc": "SVC().fit", "svc-auto": "SVC(cache_size=<svmbound's 'auto' in MB>).fit",
           "boundsvc": "BoundSVC().fit (cache_size='auto')",
           "boundsvc-200": "BoundSVC(cache_size=200).fit"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", help="write the table into this markdown file")
    args = ap.parse_args(argv)
    root = data_root(args.data)
    if root is None:
        return 2
    rows = []
    for which in CONFIGS:
        r = subprocess.run([sys.executable, "-c", _RUN, str(root), which], capture_output=True,
                           text=True, check=True)
        rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    peak = {r["which"]: r["peak_rss_mb"] for r in rows}
    svc = peak["svc"]
    # the SVC fit with the same cache size: SVC's 200 MB for BoundSVC(cache_size=200), the
    # 'auto' size for the default BoundSVC
    same_cache = {"svc": "svc", "svc-auto": "svc-auto", "boundsvc": "svc-auto",
                  "boundsvc-200": "svc"}
    lines = ["| configuration | fit s | test accuracy | peak RSS MB | ÷ SVC's peak | "
             "÷ SVC's peak at the same cache | trainings |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {CONFIGS[r['which']]} | {r['fit_s']:.1f} | {100 * r['test_accuracy']:.2f} % "
                     f"| {r['peak_rss_mb']:.0f} | {r['peak_rss_mb'] / svc:.2f} | "
                     f"{r['peak_rss_mb'] / peak[same_cache[r['which']]]:.2f} | "
                     f"{r.get('trainings', 1)} |")
    text = (f"Reuters (`sparse/reuters.trn.bz2`, 7,770 × 8,315, {rows[0]['nnz']:,} non-zeros; "
            f"test file 3,299 rows), read as CSR; RSS after loading the data "
            f"{rows[0]['rss_after_load_mb']:.0f} MB.\n\n" + "\n".join(lines))
    publish(args.out, "Sparse input: memory on Reuters (issue 13)", "sparse_memory.py", argv,
            text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
