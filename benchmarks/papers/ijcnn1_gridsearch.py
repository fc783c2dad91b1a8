"""What GridSearchCV would cost on the full ijcnn1 (issue 5d), estimated from a sample of its fits.

GridSearchCV(SVC(kernel='rbf'), grid.py's default grid, cv=5, n_jobs=2) on ijcnn1's 49,990
training rows means 110 grid points × 5 folds = 550 fits on 39,992 rows each, plus one refit on
all rows. Running it whole takes hours here, so this script times ``--n-fits`` of those fits
(grid points drawn at random, seeded; each on the first fold's training part, as GridSearchCV
would run it) one at a time, and extrapolates:

    estimated wall time = mean fit time × 550 / n_jobs (2)  (+ the refit, not counted).

The extrapolation is only as good as the sample: fit times vary by orders of magnitude across
the grid (large C with small γ is the slow corner), so the spread of the sampled times is
reported too. ``--quick`` times 2 fits on a 10,000-row sample.

    python benchmarks/papers/ijcnn1_gridsearch.py [--data DIR] [--n-fits 6] [--quick] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/

from _report import data_root, machine_description, write_section  # noqa: E402

from svmbound.datasets import load_ijcnn1  # noqa: E402

GRID_LOG2_C = np.arange(-5, 16, 2)
GRID_LOG2_GAMMA = np.arange(3, -16, -2)


def main(argv=None):
    from sklearn.model_selection import StratifiedKFold
    from sklearn.svm import SVC

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None, help="data root (default $SVMBOUND_DATA or ../shared/data)")
    ap.add_argument("--n-fits", type=int, default=6, help="grid points to time (default 6)")
    ap.add_argument("--quick", action="store_true", help="2 fits on a 10,000-row sample")
    ap.add_argument("--random-state", type=int, default=0)
    ap.add_argument("--out", help="write the result into this markdown file")
    args = ap.parse_args(argv)
    if args.n_fits < 1:
        ap.error("--n-fits must be >= 1")
    root = data_root(args.data)
    if root is None:
        return 2
    n_train = 10_000 if args.quick else None
    n_fits = 2 if args.quick else args.n_fits
    X, y, _, _ = load_ijcnn1(root, n_train=n_train, random_state=0)
    train, _ = next(StratifiedKFold(5, shuffle=True, random_state=args.random_state).split(X, y))
    rng = np.random.RandomState(args.random_state)
    points = [(c, g) for c in GRID_LOG2_C for g in GRID_LOG2_GAMMA]
    sample = [points[i] for i in rng.choice(len(points), n_fits, replace=False)]
    times = []
    for log2c, log2g in sample:
        t0 = time.perf_counter()
        SVC(C=2.0 ** log2c, gamma=2.0 ** log2g).fit(X[train], y[train])
        times.append(time.perf_counter() - t0)
        print(f"log2 C = {log2c:3d}, log2 gamma = {log2g:3d}: {times[-1]:.1f} s", flush=True)
    n_total = len(points) * 5
    est = float(np.mean(times)) * n_total / 2.0
    rows = ["| log2 C | log2 γ | fit s |", "|---:|---:|---:|"]
    rows += [f"| {c} | {g} | {t:.1f} |" for (c, g), t in zip(sample, times)]
    text = (f"{len(train)} training rows per fit (fold 1 of 5 of the {X.shape[0]} rows). Sampled "
            f"{n_fits} of the {len(points)} grid points (seed {args.random_state}), fits run one "
            f"at a time:\n\n" + "\n".join(rows) +
            f"\n\nMean fit {np.mean(times):.1f} s (min {min(times):.1f}, max {max(times):.1f}). "
            f"**Extrapolated** GridSearchCV wall time: {np.mean(times):.1f} s × {n_total} fits "
            f"/ 2 jobs ≈ {est:.0f} s ({est / 3600:.1f} h), refit not counted. This is an "
            f"extrapolation from a sample, not a measured run.")
    print(text)
    if args.out:
        cmd = "python benchmarks/papers/ijcnn1_gridsearch.py " + " ".join(
            argv if argv is not None else sys.argv[1:])
        write_section(args.out, "GridSearchCV on ijcnn1, extrapolated (issue 5d)",
                      f"Command: `{cmd.strip()}`\n\n{machine_description()}\n\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
