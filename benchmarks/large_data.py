"""The default strategy on large data (issue 14 item 6, strategy step 5): ijcnn1 and a9a whole.

For each case: ``BoundSVC(loss=...)`` with the defaults (``tune_subsample=5000``: the bound
searches on a stratified subsample of 2,500–5,000 rows (``strategy.search_rows``), the
candidates picked by their hold-out error on up to 20,000 other rows, the final SVM on every
row), timed end to end (the median of fits repeated up to 2 s, as SVC's below), with its
test error, SVM trainings and chosen (C, γ); then one
``SVC.fit`` on every row at the chosen (C, γ) (tol 1e-3, cache 2000 MB; the median of repeats up
to 2 s), so that the tuning's cost reads as "fits at θ*". Peers that a user with this much data
runs, on a stratified 5,000-row subsample (``strategy.tuning_rows``) and refit on every row:
``random-sub`` = RandomizedSearchCV(SVC(), 30 log-uniform draws over grid.py's box, 5-fold),
``grid-sub`` = GridSearchCV(SVC(), grid.py's grid, 5-fold). GridSearchCV on every row is not
run: 550 fits of ~15 s on ijcnn1 ≈ 1.2 h on 2 cores (docs/lab-notebook.md, issue 5d).
``--rows N …``: the cost curve (issue 32 item 1): each case on a stratified sample of N of its training
rows (seed 0; the test file as it is), every method on the same sample; up to 2 × 5,000 rows the
peers search on the whole sample. ``dense200``: a generated dense set (``make_classification``,
200 features of which 20 informative and 20 redundant, 2 % flipped labels, seed 0; 50,000
training and 20,000 test rows). ``--csr``: X and the test rows as scipy CSR matrices, as
``load_svmlight_file`` gives a LIBSVM user (every method, SVC at θ* included, fits them).

    python benchmarks/large_data.py [--data DIR] [--cases ijcnn1 a9a] [--jobs 2]
        [--methods l2 l1 random-sub grid-sub] [--rows 2000 5000 …] [--cache-size MB] [--csr]
        [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import data_root, publish  # noqa: E402
from vs_peers import BOX, GRID, _libsvm  # noqa: E402

from svmbound.cli import _cache_arg  # noqa: E402

CASES = {"ijcnn1": ("ijcnn1.bz2", "ijcnn1.t.bz2", 22), "a9a": ("a9a.bz2", "a9a.t.bz2", 123),
         "dense200": None}
HEADING = "Large data: ijcnn1 and a9a whole (issue 14)"


def load(root, name):
    if name == "dense200":      # a dense 200-feature set (issue 32): generated, 50,000 + 20,000
        from sklearn.datasets import make_classification

        X, y = make_classification(n_samples=70000, n_features=200, n_informative=20,
                                   n_redundant=20, flip_y=0.02, random_state=0)
        y = np.where(y == 1, 1, -1)
        return X[:50000], y[:50000], X[50000:], y[50000:]
    tr, te, d = CASES[name]
    X, y = _libsvm(root, tr, d)
    Xt, yt = _libsvm(root, te, d)
    return np.asarray(X), y, np.asarray(Xt), yt


def sample_rows(X, y, n_rows):
    """A stratified sample of ``n_rows`` training rows (seed 0), in their order (``--rows``)."""
    from sklearn.model_selection import train_test_split

    keep, _ = train_test_split(np.arange(y.size), train_size=n_rows, stratify=y, random_state=0)
    keep = np.sort(keep)
    return X[keep], y[keep]


def warm_up_large_solves():
    """Let numba compile (untimed) what a solve of n ≥ CHUNKED_ROWS_MIN rows runs: rows in
    pieces, the block solver on float64 rows (2,000 MB) and on float32 ones (300 MB), the pair
    SMO on float32 rows (1 MB)."""
    from sklearn.datasets import make_classification

    from svmbound.kernels import RBFKernel
    from svmbound.kernels._rows import CHUNKED_ROWS_MIN
    from svmbound.solvers import solve_svm_dual

    X, y = make_classification(CHUNKED_ROWS_MIN, 4, random_state=0)
    for mb in (2000, 300, 1):
        solve_svm_dual(X, np.where(y == 1, 1.0, -1.0), RBFKernel.from_gamma(0.1), 1.0,
                       cache_size=mb)


def sampled_cases(root, name, rows):
    """[(label, (X, y, X_test, y_test))]: case ``name`` whole (0) or on a stratified sample of
    each number of training rows in ``rows`` (``sample_rows``), the large solves compiled
    (``warm_up_large_solves``); for the dev scripts' ``--large CASE --rows N …``."""
    X0, y0, Xt, yt = load(root, name)
    warm_up_large_solves()
    return [(f"{name}/{r or 'all'}", (*(sample_rows(X0, y0, r) if r else (X0, y0)), Xt, yt))
            for r in rows]


def add_sample_arguments(ap):
    """The dev scripts' ``--large CASE --rows N …`` (``sampled_cases``)."""
    ap.add_argument("--large", default=None, choices=list(CASES),
                    help="large_data.py's case instead of the suites")
    ap.add_argument("--rows", type=int, nargs="+", default=[0],
                    help="with --large: stratified samples of these many rows (0: whole)")


def median_seconds(fit, min_total: float = 2.0, max_repeats: int = 5):
    """(``fit()``'s last result, the median seconds of the calls): ``fit`` repeated until
    ``min_total`` seconds are spent, at most ``max_repeats`` times (one sub-second fit moved by
    ±40 % from run to run on the 2-core machine)."""
    times = []
    while not times or (sum(times) < min_total and len(times) < max_repeats):
        t = time.perf_counter()
        out = fit()
        times.append(time.perf_counter() - t)
    return out, float(np.median(times))


def run_ours(loss, X, y, jobs, cache_size=None):
    """(the fitted default, seconds of one fit): the median of repeated fits
    (``median_seconds``, as SVC's in ``fit_at``; every fit is the same)."""
    from svmbound import BoundSVC

    extra = {} if cache_size is None else {"cache_size": cache_size}
    return median_seconds(lambda: BoundSVC(loss=loss, n_jobs=jobs, random_state=0,
                                           **extra).fit(X, y))


def run_peer(method, X, y, jobs):
    from scipy.stats import loguniform
    from sklearn.model_selection import GridSearchCV, RandomizedSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    from dataclasses import replace

    from svmbound.strategy import DEFAULT_CONFIG, tuning_rows

    # what such a user runs: every row up to 10,000, else a stratified 5,000-row sample (our
    # searches' draw with one half up to 2 × 5,000 rows, search_share=None: the peers' rows do
    # not follow the share of our searches)
    half = replace(DEFAULT_CONFIG, search_share=None)
    S = np.arange(y.size) if y.size <= 10000 else tuning_rows(y, 5000, 0, half)[0]
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    t = time.perf_counter()
    if method == "grid-sub":
        search = GridSearchCV(SVC(), GRID, cv=cv, n_jobs=jobs, refit=False)
    else:
        search = RandomizedSearchCV(SVC(), {k: loguniform(*v) for k, v in BOX.items()},
                                    n_iter=30, cv=cv, n_jobs=jobs, random_state=0, refit=False)
    search.fit(X[S], y[S])
    model = SVC(**search.best_params_, cache_size=2000).fit(X, y)
    return model, search.best_params_, time.perf_counter() - t, len(search.cv_results_["params"]) * 5 + 1


def fit_at(params, X, y, svc=None):
    """Seconds of one ``SVC(C, gamma, cache_size=2000).fit`` at the chosen point, the median
    of repeated fits (``median_seconds``); ``svc`` is the class (scikit-learn's by default, or
    scikit-learn-intelex's)."""
    if svc is None:
        from sklearn.svm import SVC as svc

    return median_seconds(lambda: svc(**params, cache_size=2000).fit(X, y))[1]


def _seconds(t: float) -> str:
    """A time for the table: two decimals below 10 s (sub-second fits' ratios), else one."""
    return f"{t:.2f}" if t < 10 else f"{t:.1f}"


def intelex_svc():
    """scikit-learn-intelex's SVC (the benchmarks-only extra), or None where not installed."""
    try:
        from sklearnex.svm import SVC
    except (ImportError, OSError):     # not installed, or its oneDAL library not found
        return None
    return SVC


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None)
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--methods", nargs="+", default=["l2", "l1", "random-sub"],
                    choices=["l2", "l1", "random-sub", "grid-sub"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache-size", type=_cache_arg, default=None,
                    help="BoundSVC's cache_size (MB or 'auto'; default: the estimator's)")
    ap.add_argument("--rows", type=int, nargs="+", default=None,
                    help="samples of this many training rows (default: every row)")
    ap.add_argument("--csr", action="store_true", help="X as CSR matrices (sparse input)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    root = data_root(args.data)
    if root is None:
        return 2
    from sklearn.datasets import make_classification

    from svmbound import BoundSVC

    for extra in ({}, {"cache_size": 0.01}):   # numba compiles, not timed: float64 rows, then
        BoundSVC(**extra).fit(*make_classification(60, 4, random_state=0))   # float32 ones
    warm_up_large_solves()
    intel = intelex_svc()
    rows = []
    cases = [(name, n) for name in args.cases for n in (args.rows or [None])]
    for name, n_rows in cases:
        X, y, Xt, yt = load(root, name)
        if args.csr:
            import scipy.sparse as sp

            X, Xt = sp.csr_matrix(X), sp.csr_matrix(Xt)
        if n_rows is not None and n_rows < y.size:
            X, y = sample_rows(X, y, n_rows)
        for m in args.methods:
            if m in ("l2", "l1"):
                est, t = run_ours(m, X, y, args.jobs, args.cache_size)
                bp, scales = est.best_params_, est.feature_scales_
                # a per-feature pick: the SVC of its export, γ = ½ on x_k/σ_k
                Xf = X if scales is None else X * scales
                params = {"C": float(bp["C"]),
                          "gamma": 0.5 if scales is not None else float(bp["gamma"])}
                n_fit = est.n_trainings_
                err = float(np.mean(est.predict(Xt) != yt))
                t_fit = fit_at(params, Xf, y)
                sub = est.search_.subsample
                extra = (f"chose the {est.search_.chosen}; searched on {sub['search']} rows, "
                         f"validated on {sub['validation']}" if sub else est.search_.chosen)
            else:
                model, params, t, n_fit = run_peer(m, X, y, args.jobs)
                Xf = X
                err = float(np.mean(model.predict(Xt) != yt))
                t_fit = fit_at(params, Xf, y)
                extra = ("searched on the 5,000-row subsample, refit on all rows"
                         if y.size > 10000 else "searched on every row")
            t_intel = _seconds(fit_at(params, Xf, y, intel)) if intel is not None else "–"
            row = (f"| {name} ({X.shape[0]}×{X.shape[1]}, test {Xt.shape[0]}) | {m} | "
                   f"{100 * err:.2f} | {_seconds(t)} | {n_fit} | {_seconds(t_fit)} | {t_intel} | "
                   f"{t / t_fit:.1f} | "
                   f"{params['C']:.4g} | {params['gamma']:.4g}"
                   f"{' on x/σ' if Xf is not X else ''} | {extra} |")
            print(row, flush=True)
            rows.append(row)
    body = ("| data | method | test err % | tuning s (incl. final fit) | trainings | one SVC.fit "
            "at θ* s | one sklearnex SVC.fit at θ* s | tuning ÷ fit | C | γ | notes |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n"
            + "\n".join(rows) + "\n")
    publish(args.out, HEADING, "large_data.py", argv, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
