"""ε-SVR tuning: svmbound.BoundSVR against the tuners users run today, on the same splits.

    python benchmarks/regression.py --quick --jobs 2          # the quick run (< 10 min, 2 cores)
    python benchmarks/regression.py --jobs 2 [--data DIR] [--suites libsvm uci sklearn]
        [--sets NAME ...] [--splits N] [--max-train N] [--seed S]
        [--methods grid random optuna l2 l1] [--out DIR]

Methods (scikit-learn's SVR, RBF kernel; every CV is KFold(5, shuffle=True, random_state=seed)
scored by MSE):
* ``grid``: GridSearchCV over LIBSVM gridregression.py's grid, log2 C = -1..6, log2 γ = 0..-8,
  log2 ε = -8..-1 (576 points; 576·5 + 1 trainings);
* ``random``: RandomizedSearchCV, 30 draws log-uniform over the same box (151 trainings);
* ``optuna``: Optuna TPE (seeded), 30 trials of the same CV over the same box (log scale), then
  one SVR at the best point (151 trainings; skipped with a note without optuna);
* ``l2`` / ``l1``: ``svmbound.BoundSVR(loss=..., n_jobs=--jobs, random_state=seed)`` (skipped
  with a note while svmbound has no BoundSVR); trainings = its ``n_trainings_``.

Scaling: X is standardised with the training part's mean and std (StandardScaler fit on the
training rows; zero-std columns kept as they are), and so is the target y (training mean and
std), so that the ε grid 2^-8..2^-1 means the same on every set. Test MSE and MAE are reported
on the ORIGINAL target scale.

Cases (data from ``--data``, else $SVMBOUND_DATA, else ../shared/data; see its
regression/MANIFEST.md):
* ``libsvm``: housing_scale, mg_scale, bodyfat_scale and abalone; random halves
  (train_test_split(test_size=0.5, random_state=split)), except abalone: 1,000 training rows
  (random_state=split), tested on the other 3,177;
* ``uci``: bostonHousing, concrete, kin8nm, power-plant, wine-quality-red (Hernández-Lobato &
  Adams' splits 0..9); a training part above ``--max-train`` rows (default 2,000: kin8nm,
  power-plant) is a random subset of that many rows (random_state=split), tested on the full
  test split;
* ``sklearn`` (no files needed): load_diabetes, make_friedman1/2/3 (600 rows, noise 1.0 / 125 /
  0.1, the last two at Friedman's 3:1 signal-to-noise ratio, random_state=0); random halves.
``--quick``: splits 0 and 1 of the sets with at most 700 training rows (QUICK_MAX_TRAIN):
housing_scale, mg_scale, bodyfat_scale, bostonHousing and the sklearn suite (16 cases).

Reported per case: test MSE, MAE, wall time of the tuning (fit only) and SVR trainings; per
suite and method: the mean of (test MSE ÷ grid's test MSE), a one-sided paired Wilcoxon
signed-rank p-value of "worse than grid" (method − grid MSE > 0; n/a under 6 cases), the
geometric means of grid time ÷ time and random time ÷ time; per data set: mean test MSE over
its splits ÷ grid's.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import re
import sys
import time
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import git_commit, gmean, machine_description  # noqa: E402

LOG2 = {"C": np.arange(-1, 7), "gamma": np.arange(0, -9, -1), "epsilon": np.arange(-8, 0)}
GRID = {k: list(2.0 ** v) for k, v in LOG2.items()}
BOX = {k: (2.0 ** float(v.min()), 2.0 ** float(v.max())) for k, v in LOG2.items()}
N_GRID = int(np.prod([len(v) for v in GRID.values()]))     # 576
N_DRAWS = 30
PEERS = ("grid", "random", "optuna")
OURS = ("l2", "l1")
SUITES = {"libsvm": ("housing_scale", "mg_scale", "bodyfat_scale", "abalone"),
          "uci": ("bostonHousing", "concrete", "kin8nm", "power-plant", "wine-quality-red"),
          "sklearn": ("diabetes", "friedman1", "friedman2", "friedman3")}
LIBSVM_FILES = {"housing_scale": "housing_scale.xz", "mg_scale": "mg_scale.txt.xz",
                "bodyfat_scale": "bodyfat_scale.txt.xz", "abalone": "abalone.trn.bz2"}
ABALONE_TRAIN = 1000
FRIEDMAN_NOISE = {"friedman1": 1.0, "friedman2": 125.0, "friedman3": 0.1}
UCI_SPLITS = 10
#: --quick: only the sets with at most this many training rows (after capping). CPU seconds of
#: one grid search in one process: bodyfat 12, diabetes 20, housing 21, friedman1-3 26-30,
#: bostonHousing 51, mg 66, abalone 126, concrete 149, wine 303; up to 700 rows, 2 splits are
#: ~510 CPU s of grid (~4.5 min on 2 idle cores), up to 1,500 rows ~2,400 CPU s.
QUICK_MAX_TRAIN = 700


# -- data -----------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _full(root, name):
    """The whole data set (X, y) of a set without given splits."""
    from sklearn import datasets as d

    if name == "diabetes":
        return d.load_diabetes(return_X_y=True)
    if name in FRIEDMAN_NOISE:
        return getattr(d, f"make_{name}")(600, noise=FRIEDMAN_NOISE[name], random_state=0)
    path = Path(root) / "regression" / "libsvm" / LIBSVM_FILES[name]
    if path.suffix == ".xz":
        with lzma.open(path) as fh:
            X, y = d.load_svmlight_file(fh)
    else:
        X, y = d.load_svmlight_file(str(path))
    return X.toarray(), y


@lru_cache(maxsize=None)
def _uci(root, name):
    folder = Path(root) / "regression" / "uci_bdl" / name
    data = np.loadtxt(folder / "data.txt.xz")
    fi = np.atleast_1d(np.loadtxt(folder / "index_features.txt.xz", dtype=int))
    ti = int(np.loadtxt(folder / "index_target.txt.xz"))
    return data, fi, ti


def load_case(root, name, split, max_train):
    """(X, y, Xt, yt, note) of one split, unscaled."""
    from sklearn.model_selection import train_test_split

    if name in SUITES["uci"]:
        data, fi, ti = _uci(root, name)
        folder = Path(root) / "regression" / "uci_bdl" / name
        tr = np.loadtxt(folder / f"index_train_{split}.txt.xz", dtype=int)
        te = np.loadtxt(folder / f"index_test_{split}.txt.xz", dtype=int)
        note = "" if tr.size <= max_train else \
            f"training part {tr.size} subsampled to {max_train} rows"
        if tr.size > max_train:
            tr = np.sort(np.random.RandomState(split).choice(tr, max_train, replace=False))
        return data[tr][:, fi], data[tr, ti], data[te][:, fi], data[te, ti], note
    X, y = _full(root, name)
    if name == "abalone":
        X, Xt, y, yt = train_test_split(X, y, train_size=ABALONE_TRAIN, random_state=split)
        return X, y, Xt, yt, f"{ABALONE_TRAIN} training rows, the rest tested"
    X, Xt, y, yt = train_test_split(X, y, test_size=0.5, random_state=split)
    return X, y, Xt, yt, ""


def _n_train(root, name, max_train):
    if name in SUITES["uci"]:
        n = np.loadtxt(Path(root) / "regression" / "uci_bdl" / name / "index_train_0.txt.xz").size
        return min(n, max_train)
    if name == "abalone":
        return ABALONE_TRAIN
    n = _full(root, name)[0].shape[0]
    return n - int(np.ceil(0.5 * n))


def cases(root, suites, sets, n_splits, quick, max_train):
    """[(suite, set, split)] in a fixed order; root None: the sklearn suite only."""
    out = []
    for suite in suites:
        if suite != "sklearn" and root is None:
            continue
        for name in SUITES[suite]:
            if sets and name not in sets:
                continue
            if quick and _n_train(root, name, max_train) > QUICK_MAX_TRAIN:
                continue
            k = min(n_splits, UCI_SPLITS) if suite == "uci" else n_splits
            out += [(suite, name, s) for s in range(k)]
    return out


def scale(X, y, Xt):
    """X and y standardised on the training part; returns (X, y, Xt, y_mean, y_std)."""
    from sklearn.preprocessing import StandardScaler

    sc = StandardScaler().fit(X)
    mu, sd = float(np.mean(y)), float(np.std(y))
    sd = sd if sd > 0 else 1.0
    return sc.transform(X), (y - mu) / sd, sc.transform(Xt), mu, sd


# -- methods --------------------------------------------------------------------------------
def _cv(seed):
    from sklearn.model_selection import KFold

    return KFold(5, shuffle=True, random_state=seed)


def run_method(method, X, y, seed, jobs):
    """(fitted estimator, trainings)."""
    from sklearn.svm import SVR

    scoring = "neg_mean_squared_error"
    if method == "grid":
        from sklearn.model_selection import GridSearchCV

        est = GridSearchCV(SVR(), GRID, cv=_cv(seed), scoring=scoring, n_jobs=jobs).fit(X, y)
        return est, len(est.cv_results_["params"]) * 5 + 1
    if method == "random":
        from scipy.stats import loguniform
        from sklearn.model_selection import RandomizedSearchCV

        dist = {k: loguniform(*v) for k, v in BOX.items()}
        est = RandomizedSearchCV(SVR(), dist, n_iter=N_DRAWS, cv=_cv(seed), scoring=scoring,
                                 n_jobs=jobs, random_state=seed).fit(X, y)
        return est, N_DRAWS * 5 + 1
    if method == "optuna":
        import optuna
        from sklearn.model_selection import cross_val_score

        optuna.logging.set_verbosity(optuna.logging.WARNING)

        def objective(trial):
            p = {k: trial.suggest_float(k, *BOX[k], log=True) for k in BOX}
            return -cross_val_score(SVR(**p), X, y, cv=_cv(seed), scoring=scoring,
                                    n_jobs=jobs).mean()

        study = optuna.create_study(direction="minimize",
                                    sampler=optuna.samplers.TPESampler(seed=seed))
        study.optimize(objective, n_trials=N_DRAWS)
        est = SVR(**study.best_params).fit(X, y)
        est.best_params_ = dict(study.best_params)
        return est, N_DRAWS * 5 + 1
    if method in OURS:
        from svmbound import BoundSVR

        est = BoundSVR(loss=method, n_jobs=jobs, random_state=seed).fit(X, y)
        return est, getattr(est, "n_trainings_", None)
    raise ValueError(method)


def evaluate_case(root, suite, name, split, methods, jobs, seed, max_train):
    X, y, Xt, yt, note = load_case(root, name, split, max_train)
    Xs, ys, Xts, mu, sd = scale(np.asarray(X, float), np.asarray(y, float), np.asarray(Xt, float))
    rec = {"suite": suite, "set": name, "split": split, "n_train": int(X.shape[0]),
           "n_test": int(Xt.shape[0]), "n_features": int(X.shape[1]), "note": note,
           "y_mean": mu, "y_std": sd, "methods": {}}
    for m in methods:
        t0 = time.perf_counter()
        est, n_train = run_method(m, Xs, ys, seed, jobs)
        t = time.perf_counter() - t0
        err = est.predict(Xts) * sd + mu - yt
        r = {"mse": float(np.mean(err ** 2)), "mae": float(np.mean(np.abs(err))), "time_s": t,
             "trainings": None if n_train is None else int(n_train)}
        params = getattr(est, "best_params_", None)
        if isinstance(params, dict):
            r["params"] = {k: float(v) for k, v in params.items() if np.isscalar(v)}
        rec["methods"][m] = r
    return rec


def available_methods(methods):
    """(the methods that can run here, a line on each import that failed)."""
    keep, skipped = [], {}
    for m in methods:
        try:
            if m == "optuna":
                import optuna  # noqa: F401
            elif m in OURS:
                from svmbound import BoundSVR  # noqa: F401
            keep.append(m)
        except ImportError as exc:
            what = "optuna" if m == "optuna" else "svmbound.BoundSVR"
            skipped.setdefault(f"{what} not available: {exc}", []).append(m)
    lines = [f"{k} (methods {', '.join(v)} skipped)" for k, v in skipped.items()]
    for ln in lines:
        print(ln, file=sys.stderr)
    return keep, lines


def warm_up(methods, jobs):
    """Untimed: the peers' worker pool and BoundSVR's numba compilation."""
    from sklearn.datasets import make_regression

    X, y = make_regression(60, 4, noise=1.0, random_state=0)
    y = y / np.std(y)
    if any(m in PEERS for m in methods):
        from sklearn.model_selection import GridSearchCV
        from sklearn.svm import SVR

        GridSearchCV(SVR(), {"C": [1.0, 2.0]}, cv=2, n_jobs=jobs).fit(X, y)
    for m in methods:
        if m in OURS:
            run_method(m, X, y, 0, jobs)


# -- report ---------------------------------------------------------------------------------
def _p_worse(d):
    from scipy.stats import wilcoxon

    if len(d) < 6:
        return "n/a"
    if not np.any(d != 0):
        return "n/a (all equal)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f"{wilcoxon(d, alternative='greater').pvalue:.3g}"


def _f(v, spec, unit=""):
    return "–" if v is None or not np.isfinite(v) else f"{v:{spec}}{unit}"


def _cell(r):
    if r is None:
        return "–"
    n = "?" if r["trainings"] is None else r["trainings"]
    return f"{r['mse']:.4g} / {r['mae']:.4g} ({r['time_s']:.1f} s, {n})"


def report(records, methods):
    lines = []
    for suite in dict.fromkeys(r["suite"] for r in records):
        rs = [r for r in records if r["suite"] == suite]
        lines += [f"### Suite `{suite}` ({len(rs)} cases)", "",
                  "Per case: test MSE / MAE (original target scale) (tuning time, trainings).",
                  "", "| set | split | n train | n test | " + " | ".join(methods) + " |",
                  "|" + "---|" * (4 + len(methods))]
        for r in rs:
            lines.append(f"| {r['set']} | {r['split']} | {r['n_train']} | {r['n_test']} | "
                         + " | ".join(_cell(r["methods"].get(m)) for m in methods) + " |")
        notes = dict.fromkeys(f"{r['set']}: {r['note']}" for r in rs if r["note"])
        if notes:
            lines += [""] + [f"* {n}" for n in notes]
        ok = [r for r in rs if "grid" in r["methods"]]
        lines += ["", "| method | mean MSE ÷ grid | p (worse than grid) | grid time ÷ time "
                  "(gmean) | random time ÷ time (gmean) | trainings (median) | time s (mean) |",
                  "|---|---|---|---|---|---|---|"]
        for m in methods:
            mine = [r["methods"][m] for r in rs if m in r["methods"]]
            both = [r for r in ok if m in r["methods"]]
            mr = [r["methods"][m]["mse"] / r["methods"]["grid"]["mse"] for r in both]
            d = np.array([r["methods"][m]["mse"] - r["methods"]["grid"]["mse"] for r in both])
            tg = gmean([r["methods"]["grid"]["time_s"] / r["methods"][m]["time_s"]
                        for r in both])
            tr = gmean([r["methods"]["random"]["time_s"] / r["methods"][m]["time_s"]
                        for r in rs if m in r["methods"] and "random" in r["methods"]])
            tn = [x["trainings"] for x in mine if x["trainings"] is not None]
            tm = np.mean([x["time_s"] for x in mine])
            p = "–" if m == "grid" or not mr else _p_worse(d)
            lines.append(f"| {m} | {_f(np.mean(mr) if mr else None, '.3f')} | {p} | "
                         f"{_f(tg, '.1f', '×')} | {_f(tr, '.1f', '×')} | "
                         f"{_f(np.median(tn) if tn else None, '.0f')} | {tm:.1f} |")
        sets = list(dict.fromkeys(r["set"] for r in ok))
        if sets:
            lines += ["", "Per data set: mean test MSE over its splits ÷ grid's.", "",
                      "| set | splits | grid mean MSE | " + " | ".join(methods) + " |",
                      "|" + "---|" * (3 + len(methods))]
            for s in sets:
                sr = [r for r in ok if r["set"] == s]
                g = np.mean([r["methods"]["grid"]["mse"] for r in sr])
                cells = []
                for m in methods:
                    v = [r["methods"][m]["mse"] for r in sr if m in r["methods"]]
                    cells.append(f"{np.mean(v) / g:.3f}" if len(v) == len(sr) else "–")
                lines.append(f"| {s} | {len(sr)} | {g:.4g} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def find_data(data):
    """(data root holding regression/, '') or (None, where it was looked for)."""
    from svmbound.datasets import data_dir

    try:
        root = data_dir(data)
    except FileNotFoundError as exc:
        found = re.search(r"looked in: (.*?)\. Point", str(exc))
        return None, "looked in " + (found.group(1) if found else str(exc))
    if not (root / "regression").is_dir():
        return None, f"{root / 'regression'} is not a folder"
    return root, ""


def header(args, methods, root, looked, skipped):
    return "\n".join([
        "## ε-SVR tuning against the peers (benchmarks/regression.py)", "",
        f"Command: `python benchmarks/regression.py {' '.join(args.argv)}`".rstrip(), "",
        f"Commit {git_commit()}; os.cpu_count() = {os.cpu_count()}; --jobs {args.jobs}; "
        f"seed {args.seed}. {machine_description()}", "",
        f"Data: {root / 'regression' if root else f'not found ({looked}): built-in sets only'}. "
        f"Methods: {', '.join(methods)}." + "".join(f" Skipped: {x}." for x in skipped), "",
        "Scaling: X standardised with the training part's mean/std, y standardised with the "
        "training part's mean/std (so the ε grid 2^-8..2^-1 is relative to the target's std); "
        "test MSE / MAE on the original target scale. abalone: 1,000 training rows, tested on "
        f"the rest; uci training parts above {args.max_train} rows subsampled to that many "
        "(random_state=split), tested on the full test split."
        + (f" --quick: splits 0-1 of the sets with ≤ {QUICK_MAX_TRAIN} training rows."
           if args.quick else ""), ""])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="data root holding regression/ (default $SVMBOUND_DATA, "
                    "else ../shared/data)")
    ap.add_argument("--quick", action="store_true",
                    help=f"splits 0-1 of the sets with ≤ {QUICK_MAX_TRAIN} training rows")
    ap.add_argument("--suites", nargs="+", default=list(SUITES), choices=list(SUITES))
    ap.add_argument("--sets", nargs="+", help="only these data sets")
    ap.add_argument("--splits", type=int, default=None, help="splits per set (default 10, "
                    "--quick 2; uci has 10)")
    ap.add_argument("--max-train", type=int, default=2000,
                    help="uci: subsample larger training parts to this many rows (default 2000)")
    ap.add_argument("--jobs", type=int, default=1, help="n_jobs of every method (default 1)")
    ap.add_argument("--methods", nargs="+", default=list(PEERS + OURS),
                    choices=list(PEERS + OURS))
    ap.add_argument("--seed", type=int, default=0, help="CV folds, draws, random_state")
    ap.add_argument("--out", help="folder to write regression.json (every case) and .md into")
    args = ap.parse_args(argv)
    args.argv = list(argv if argv is not None else sys.argv[1:])
    known = {n for v in SUITES.values() for n in v}
    if args.sets and set(args.sets) - known:
        ap.error(f"unknown sets {sorted(set(args.sets) - known)}; known: {sorted(known)}")
    root, looked = None, ""
    if set(args.suites) - {"sklearn"}:
        root, looked = find_data(args.data)
        if root is None:
            print(f"regression data not found ({looked}): running only the built-in sets "
                  "(suite sklearn)", file=sys.stderr)
    methods, skipped = available_methods(args.methods)
    n_splits = args.splits or (2 if args.quick else 10)
    todo = cases(root, args.suites, args.sets, n_splits, args.quick, args.max_train)
    head = header(args, methods, root, looked, skipped)
    print(head, flush=True)
    warm_up(methods, args.jobs)
    records, t_start = [], time.perf_counter()
    for suite, name, split in todo:
        rec = evaluate_case(root, suite, name, split, methods, args.jobs, args.seed,
                            args.max_train)
        records.append(rec)
        print(f"[{time.perf_counter() - t_start:6.0f} s] {name}/{split}: " + ", ".join(
            f"{m} {v['mse']:.4g} ({v['time_s']:.1f} s)" for m, v in rec["methods"].items()),
            file=sys.stderr, flush=True)
    text = report(records, methods) + (
        f"\nWall time of the cases: {time.perf_counter() - t_start:.0f} s.\n")
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "regression.md").write_text(head + "\n" + text)
        (out / "regression.json").write_text(json.dumps(
            {"argv": args.argv, "commit": git_commit(), "cpu_count": os.cpu_count(),
             "methods": methods, "grid": {k: [float(x) for x in v] for k, v in GRID.items()},
             "records": records}, indent=1))
        print(f"wrote {out / 'regression.md'} and {out / 'regression.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
