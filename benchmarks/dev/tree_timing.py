"""Wall time of the default fit in two source trees, run in turn, case by case (issue 14).

``setting_timing.py`` compares two settings of ``svmbound.strategy`` in one process; a change of
the code needs two trees, e.g. ``git worktree add /tmp/base HEAD~1``. This script runs one
child process per tree and round (``--rounds``, the trees alternating, so that drifts of the
shared machine fall on both), each fitting ``BoundSVC(loss=..., n_jobs=..., random_state=0)``
``--repeats`` times per case; it prints per case the median over the rounds of each child's
median time, B/A, whether the test errors differ between the trees (they should not, unless
the change was meant to change results), and the geometric mean of B/A. ``--large CASE
--rows N …``: ``large_data.py``'s case on stratified samples of N rows (0: whole) instead, its
large solves compiled before timing (the cost curve's cells).

    python benchmarks/dev/tree_timing.py --a /tmp/base --b . [--loss l2] [--jobs 2]
        [--repeats 7] [--rounds 3] [--suites ida libsvm sklearn] [--quick] [--data DIR]
        [--large ijcnn1 --rows 5000 10000 0]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]   # benchmarks/: _report, vs_peers
sys.path.insert(0, str(HERE))
from large_data import add_sample_arguments  # noqa: E402

CHILD = r"""
import json, sys, time, warnings
tree, here, loss, jobs, repeats, quick, data, large, rows = sys.argv[1:10]
suites = sys.argv[10:]
sys.path.insert(0, tree)
sys.path.insert(0, here)
import svmbound
assert svmbound.__file__.startswith(tree), svmbound.__file__
from svmbound import BoundSVC
from _report import data_root
from vs_peers import cases
warnings.simplefilter("ignore")
root = data_root(None if data == "-" else data)
out = {}
if large == "-":
    todo = [(name, load()) for _, name, load in cases(root, suites, quick=quick == "1")]
else:       # large_data.py's case, whole (0) or on stratified samples of these many rows
    from large_data import sampled_cases
    todo = sampled_cases(root, large, [int(r) for r in rows.split(",")])
BoundSVC(loss=loss, random_state=0, n_jobs=int(jobs)).fit(*todo[0][1][:2])    # warm-up
for name, (X, y, Xt, yt) in todo:
    times = []
    for _ in range(int(repeats)):
        t = time.perf_counter()
        model = BoundSVC(loss=loss, random_state=0, n_jobs=int(jobs)).fit(X, y)
        times.append(time.perf_counter() - t)
    times.sort()
    out[name] = [times[len(times) // 2], float((model.predict(Xt) != yt).mean())]
print(json.dumps(out))
"""


def run_child(tree, args) -> dict:
    cmd = [sys.executable, "-c", CHILD, str(Path(tree).resolve()), str(HERE), args.loss,
           str(args.jobs), str(args.repeats), "1" if args.quick else "0", args.data or "-",
           args.large or "-", ",".join(map(str, args.rows)), *args.suites]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="source tree A (the reference)")
    ap.add_argument("--b", required=True, help="source tree B")
    ap.add_argument("--loss", default="l2", choices=("l2", "l1"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--suites", nargs="+", default=["ida", "libsvm", "sklearn"])
    ap.add_argument("--quick", action="store_true", help="vs_peers.py's quick cases")
    ap.add_argument("--data", default=None)
    add_sample_arguments(ap)
    args = ap.parse_args(argv)
    runs = {"a": [], "b": []}
    for r in range(args.rounds):
        for side in ("a", "b") if r % 2 == 0 else ("b", "a"):
            runs[side].append(run_child(getattr(args, side), args))
    ratios = []
    print(f"| case | A ms | B ms | B/A | test error |\n|---|---|---|---|---|")
    for name in runs["a"][0]:
        a = float(np.median([r[name][0] for r in runs["a"]]))
        b = float(np.median([r[name][0] for r in runs["b"]]))
        same = len({r[name][1] for side in runs.values() for r in side}) == 1
        ratios.append(b / a)
        print(f"| {name} | {1e3 * a:.1f} | {1e3 * b:.1f} | {b / a:.3f} | "
              f"{'same' if same else 'DIFFERS'} |", flush=True)
    print(f"\n{len(ratios)} cases, loss {args.loss}, n_jobs {args.jobs}, {args.rounds} rounds: "
          f"geometric mean of B/A {np.exp(np.mean(np.log(ratios))):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
