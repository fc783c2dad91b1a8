"""Multi-class svmbound against GridSearchCV(SVC) (issue 13, part 1).

Data sets: iris, wine, digits (scikit-learn; 50/50 stratified split, seed 0) and, from
``--data`` (LIBSVM files, read with ``load_svmlight_file``), satimage, pendigits, letter and
dna with their given train/test files. The training part of a LIBSVM set larger than
``--max-train`` rows is subsampled to that many rows (stratified, seed 0) so that grid search
finishes on a small machine; the test files are used whole. Every set is standardised with
the training part's mean and standard deviation.

Per data set, in the same process, with the same number of cores (``--jobs``):

* GridSearchCV(SVC(kernel='rbf'), C 2^-5, 2^-3, …, 2^15 × gamma 2^3, 2^1, …, 2^-15 (LIBSVM
  grid.py's grid, 110 points), StratifiedKFold(5, shuffle, seed 0), n_jobs=jobs) — SVC is
  one-vs-one inside;
* BoundSVC(loss='l2') and BoundSVC(loss='l1') with their defaults (criterion='auto': summed
  span and radius–margin bounds over the one-vs-one pairs, one shared θ, candidates picked by
  the 5-fold CV error of the voting machine), n_jobs=jobs, random_state=0.

Printed: test error % and wall time per method and data set, the mean error, and the targets
(mean error ≤ grid search's, no set worse than +3 points, faster than grid search).

    python benchmarks/multiclass.py [--data DIR] [--quick] [--jobs N] [--max-train N]
                                    [--sets NAME ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from svmbound import BoundSVC  # noqa: E402
from svmbound.strategy import ISOTROPIC_CONFIG  # noqa: E402

GRID = {"C": 2.0 ** np.arange(-5, 16, 2), "gamma": 2.0 ** np.arange(3, -16, -2)}
SKLEARN_SETS = ("iris", "wine", "digits")
#: LIBSVM sets: (train file, test file, number of features).
LIBSVM_SETS = {"satimage": ("satimage.scale.bz2", "satimage.scale.t.bz2", 36),
               "pendigits": ("pendigits.bz2", "pendigits.t.bz2", 16),
               "letter": ("letter.scale.bz2", "letter.scale.t.bz2", 16),
               "dna": ("dna.scale.bz2", "dna.scale.t.bz2", 180)}
ALL_SETS = SKLEARN_SETS + tuple(LIBSVM_SETS)
DEFAULT_DATA = "/work/shared/data/multiclass"


def load(name, data_dir, max_train, seed=0):
    """(X, y, Xt, yt, note): standardised train/test parts of data set ``name``."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    note = ""
    if name in SKLEARN_SETS:
        from sklearn import datasets

        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        X, Xt, y, yt = train_test_split(X, y, test_size=0.5, stratify=y, random_state=seed)
    else:
        from sklearn.datasets import load_svmlight_file

        tr, te, d = LIBSVM_SETS[name]
        X, y = load_svmlight_file(os.path.join(data_dir, tr), n_features=d)
        Xt, yt = load_svmlight_file(os.path.join(data_dir, te), n_features=d)
        X, Xt = X.toarray(), Xt.toarray()
        y, yt = y.astype(int), yt.astype(int)
        if max_train and X.shape[0] > max_train:
            note = f"train subsampled {X.shape[0]} → {max_train}"
            X, _, y, _ = train_test_split(X, y, train_size=max_train, stratify=y,
                                          random_state=seed)
    scaler = StandardScaler().fit(X)
    return (np.ascontiguousarray(scaler.transform(X)), y,
            np.ascontiguousarray(scaler.transform(Xt)), yt, note)


def run_gridsearch(X, y, Xt, yt, jobs, grid, subsample=None):
    """GridSearchCV(SVC) with 5 stratified folds; with ``subsample`` on the rows the default
    strategy searches on (``strategy.tuning_rows``), then refit on every row."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    from svmbound.strategy import tuning_rows

    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    split = tuning_rows(y, subsample, 0)
    S = np.arange(y.size) if split is None else split[0]
    t0 = time.perf_counter()
    gs = GridSearchCV(SVC(kernel="rbf"), grid, cv=cv, n_jobs=jobs, refit=False).fit(X[S], y[S])
    model = SVC(kernel="rbf", **gs.best_params_).fit(X, y)
    t = time.perf_counter() - t0
    p = gs.best_params_
    return {"err": 1.0 - model.score(Xt, yt), "time": t, "C": p["C"], "gamma": p["gamma"]}


def run_ours(X, y, Xt, yt, loss, jobs, config=None):
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = BoundSVC(loss=loss, n_jobs=jobs, random_state=0,
                       strategy_config=config).fit(X, y)
    t = time.perf_counter() - t0
    p = clf.best_params_
    gamma = p["gamma"] if np.isscalar(p["gamma"]) else float("nan")   # nan: one per feature
    return {"err": 1.0 - clf.score(Xt, yt), "time": t, "C": p["C"], "gamma": gamma,
            "trainings": clf.n_trainings_, "chosen": clf.search_.get("chosen", ""),
            "warnings": len(caught)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=DEFAULT_DATA, help="folder of the LIBSVM multi-class "
                    f"files (default {DEFAULT_DATA})")
    ap.add_argument("--quick", action="store_true",
                    help="--max-train 600 and a 2^2-coarser grid (C 2^-5..2^15 step 2^4, gamma "
                         "2^3..2^-15 step 2^-4)")
    ap.add_argument("--jobs", type=int, default=2, help="cores for both (default 2)")
    ap.add_argument("--max-train", type=int, default=1500,
                    help="subsample larger LIBSVM training sets to this many rows (default 1500;"
                         " 0: no subsampling)")
    ap.add_argument("--grid-subsample", type=int, default=None, metavar="M",
                    help="GridSearchCV on the M rows BoundSVC's large-data step searches on "
                         "(more than 2M rows), then refit on every row (default: every row)")
    ap.add_argument("--sets", nargs="+", default=None, choices=ALL_SETS, metavar="NAME",
                    help="subset of " + ", ".join(ALL_SETS))
    ap.add_argument("--isotropic", action="store_true",
                    help="ours without the per-feature stage (strategy ISOTROPIC_CONFIG)")
    args = ap.parse_args(argv)
    names = args.sets or ALL_SETS
    max_train = 600 if args.quick and args.max_train == 1500 else args.max_train
    grid = GRID if not args.quick else {"C": 2.0 ** np.arange(-5, 16, 4),
                                        "gamma": 2.0 ** np.arange(3, -16, -4)}
    n_grid = len(grid["C"]) * len(grid["gamma"])
    print(f"jobs={args.jobs}, max-train={max_train}, grid {n_grid} points x 5 folds", flush=True)
    # numba compilation and worker start-up outside the timings
    X, y, _, _, _ = load("iris", args.data, max_train)
    BoundSVC(max_iter=2).fit(X, y)
    BoundSVC(loss="l1", max_iter=2).fit(X, y)
    run_gridsearch(X, y, X, y, args.jobs, {"C": [1.0], "gamma": [0.1]})   # loky workers

    rows = []
    for name in names:
        X, y, Xt, yt, note = load(name, args.data, max_train)
        config = ISOTROPIC_CONFIG if args.isotropic else None
        res = {"gs": run_gridsearch(X, y, Xt, yt, args.jobs, grid, args.grid_subsample),
               "l2": run_ours(X, y, Xt, yt, "l2", args.jobs, config),
               "l1": run_ours(X, y, Xt, yt, "l1", args.jobs, config)}
        k = np.unique(y).size
        rows.append((name, X.shape, Xt.shape[0], k, note, res))
        print(f"{name} ({X.shape[0]}x{X.shape[1]}, {k} classes, test {Xt.shape[0]}"
              f"{', ' + note if note else ''}): " + "; ".join(
                  f"{m} err {100 * r['err']:.2f}% {r['time']:.1f}s C={r['C']:.3g} "
                  f"gamma={r['gamma']:.3g}" + (f" ({r['trainings']} trainings, "
                                               f"{r['chosen']})" if m != "gs" else "")
                  for m, r in res.items()), flush=True)

    lines = ["| data (train × d, classes, test) | GridSearchCV error % | time s | "
             "BoundSVC l2 error % | time s | BoundSVC l1 error % | time s |",
             "|---|---|---|---|---|---|---|"]
    for name, shape, nt, k, note, r in rows:
        lines.append(f"| {name} ({shape[0]} × {shape[1]}, {k}, {nt}){' *' if note else ''} | "
                     + " | ".join(f"{100 * r[m]['err']:.2f} | {r[m]['time']:.1f}"
                                  for m in ("gs", "l2", "l1")) + " |")
    mean = {m: 100 * np.mean([r[m]["err"] for *_, r in rows]) for m in ("gs", "l2", "l1")}
    total = {m: sum(r[m]["time"] for *_, r in rows) for m in ("gs", "l2", "l1")}
    lines.append("| **mean / total** | " + " | ".join(
        f"**{mean[m]:.2f}** | **{total[m]:.1f}**" for m in ("gs", "l2", "l1")) + " |")
    verdict = []
    for m in ("l2", "l1"):
        gaps = [100 * (r[m]["err"] - r["gs"]["err"]) for *_, r in rows]
        speed = [r["gs"]["time"] / r[m]["time"] for *_, r in rows]
        verdict.append(
            f"* {m.upper()}: mean error {mean[m]:.2f} % vs grid search {mean['gs']:.2f} % "
            f"({'met' if mean[m] <= mean['gs'] else 'NOT met'}); worst set "
            f"{max(gaps):+.2f} points ({'met' if max(gaps) <= 3 else 'NOT met'}: ≤ +3); "
            f"time GS/ours {min(speed):.1f}–{max(speed):.1f}× (total "
            f"{total['gs'] / total[m]:.1f}×). Per set (ours − GS): " + ", ".join(
                f"{name} {g:+.2f}" for (name, *_), g in zip(rows, gaps)))
    notes = [f"* {name}: {note}" for name, _, _, _, note, _ in rows if note]
    print("\n".join(lines) + "\n\nTargets:\n" + "\n".join(verdict)
          + ("\n\n(*) " + "; ".join(n[2:] for n in notes) if notes else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
