"""Command line: ``svmbound tune TRAIN …`` and ``svmbound demo``.

Plain output is a short human summary; ``--json`` prints one JSON object on stdout. Progress
goes to stderr (``--quiet`` silences it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from . import __version__
from .criteria import ALIASES, CRITERIA
from .estimators import SEARCHES, BoundSVC
from .kernels import KERNELS


def _add_tune_options(p):
    p.add_argument("--loss", default="l2", help="l2 (squared hinge) or l1 (hinge); default l2")
    p.add_argument("--criterion", default="radius-margin",
                   help="criterion to minimise: " + ", ".join(list(ALIASES) + sorted(CRITERIA)))
    p.add_argument("--search", default="bfgs", help="search: " + ", ".join(SEARCHES))
    p.add_argument("--kernel", default="rbf", help="kernel: " + ", ".join(sorted(KERNELS)))
    p.add_argument("--start", nargs="+", type=float, metavar="X",
                   help="start point, e.g. LNC LNSIGMA2 (default 0 0)")
    p.add_argument("--degree", type=int, default=3, help="polynomial degree (kernel poly)")
    p.add_argument("--tol", type=float, default=1e-6, help="solver tolerance (default 1e-6)")
    p.add_argument("--max-iter", type=int, default=100, help="maximal BFGS iterations")
    p.add_argument("--cache-size", type=float, default=200.0, help="kernel cache in MB")
    p.add_argument("--random-state", type=int, default=0, help="seed for random choices")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE.png", help="contour map of the criterion with the path")
    p.add_argument("--grid-log-c", nargs=3, type=float, default=[-10.0, 10.0, 1.0],
                   metavar=("BEGIN", "END", "STEP"), help="ln C grid of the plot (default -10 10 1)")
    p.add_argument("--grid-log-sigma2", nargs=3, type=float, default=[-10.0, 10.0, 1.0],
                   metavar=("BEGIN", "END", "STEP"),
                   help="ln σ² grid of the plot (default -10 10 1)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="svmbound",
        description="Tune SVM hyperparameters by minimising leave-one-out error bounds.")
    parser.add_argument("--version", action="version", version=f"svmbound {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    tune = sub.add_parser("tune", help="tune C and kernel parameters on a LIBSVM-format file")
    tune.add_argument("train", help="training file in LIBSVM format (may be .bz2/.gz)")
    tune.add_argument("--test", help="test file in LIBSVM format")
    tune.add_argument("--scale", action="store_true",
                      help="scale features to [-1, 1] like svm-scale (fitted on train)")
    _add_tune_options(tune)

    crit = sub.add_parser("criteria", help="list every model-selection criterion")
    crit.add_argument("--json", action="store_true", help="print a JSON list of objects")

    demo = sub.add_parser("demo", help="tune on scikit-learn's breast-cancer data (built in)")
    _add_tune_options(demo)
    demo.set_defaults(plot="svmbound-demo.png")
    return parser


def load_train_test(train, test=None, scale=False):
    """LIBSVM files → dense arrays; test columns padded to the training width."""
    from .datasets import load_libsvm

    X, y = load_libsvm(train)
    Xt = yt = None
    if test is not None:
        Xt, yt = load_libsvm(test)
        if Xt.shape[1] > X.shape[1]:
            raise ValueError(f"test file {test} has {Xt.shape[1]} features but the training file "
                             f"{train} has {X.shape[1]}")
        if Xt.shape[1] < X.shape[1]:
            Xt = np.hstack([Xt, np.zeros((Xt.shape[0], X.shape[1] - Xt.shape[1]))])
    if scale:
        from sklearn.preprocessing import MinMaxScaler

        scaler = MinMaxScaler(feature_range=(-1, 1)).fit(X)
        X = scaler.transform(X)
        if Xt is not None:
            Xt = scaler.transform(Xt)
    return X, y, Xt, yt


def run_tune(args, X, y, Xt=None, yt=None, out=None, err=None) -> dict:
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    from .search.grid import evaluate_grid, grid_range

    t0 = time.perf_counter()
    grid_spec = None
    if args.search == "grid":
        grid_spec = {"log_C": tuple(args.grid_log_c), "log_sigma2": tuple(args.grid_log_sigma2)}
    est = BoundSVC(loss=args.loss, criterion=args.criterion, kernel=args.kernel,
                   search=args.search, start=args.start, grid=grid_spec, degree=args.degree, tol=args.tol,
                   max_iter=args.max_iter, cache_size=args.cache_size,
                   random_state=args.random_state, verbose=0 if args.quiet else 1)
    if args.plot:  # validate grid options before the (possibly long) search
        gc, gs = grid_range(*args.grid_log_c), grid_range(*args.grid_log_sigma2)
    est.fit(X, y)
    res = est.search_
    report = {
        "C": est.best_params_["C"], "gamma": est.best_params_.get("gamma"),
        "sigma2": est.best_params_.get("sigma2"),
        "log_C": float(est.best_theta_[0]),
        "log_sigma2": float(est.best_theta_[1]) if "sigma2" in est.best_params_ else None,
        "kernel": args.kernel, "loss": args.loss, "criterion": est.criterion_name_,
        "value": est.best_value_, "nfev": int(res.nfev), "njev": int(res.njev),
        "nit": int(res.nit), "message": str(res.message),
        "n_trainings": int(est.n_trainings_), "n_sv": int(est.support_.size),
        "c_projected": bool(est.c_projected_),
        "train_accuracy": float(est.score(X, y)),
    }
    if args.kernel == "poly":
        report.update(degree=est.best_params_["degree"], coef0=est.best_params_["coef0"])
    if Xt is not None:
        report["test_accuracy"] = float(est.score(Xt, yt))
    report["time_s"] = time.perf_counter() - t0
    report["path"] = [{"x": [float(v) for v in p["x"]], "value": float(p["value"]),
                       "grad": None if p.get("grad") is None else [float(v) for v in p["grad"]],
                       "time_s": float(p["time_s"]), "accepted": bool(p.get("accepted", True))}
                      for p in res.path]
    if args.plot:
        from .plots import plot_contours

        crit = est.make_criterion(X, np.where(y == est.classes_[1], 1.0, -1.0))
        if not args.quiet:
            print(f"[svmbound] evaluating the criterion on a {gs.size}x{gc.size} grid for the plot",
                  file=err, flush=True)
        yt_pm = None if yt is None else np.where(yt == est.classes_[1], 1.0, -1.0)
        grid = evaluate_grid(crit, gc, gs, Xt, yt_pm)
        accepted = [p["x"] for p in report["path"] if p["accepted"]]
        if args.search == "grid":
            accepted = None  # the grid minimum is marked on the map already
        plot_contours(grid, args.plot, path=accepted, final=est.best_theta_[:2],
                      title=f"{est.criterion_name_} ({args.loss.upper()}-SVM)")
        report["plot"] = args.plot
    if args.json:
        print(json.dumps(report), file=out)
    else:
        print(summary(report), file=out)
    return report


def summary(r: dict) -> str:
    lines = [f"svmbound: {r['criterion']} bound, {r['loss'].upper()}-SVM, {r['kernel']} kernel",
             f"  chosen   C = {r['C']:.6g} (ln C = {r['log_C']:.4f})"]
    if r.get("sigma2") is not None:
        lines.append(f"           sigma^2 = {r['sigma2']:.6g} (ln sigma^2 = {r['log_sigma2']:.4f}), "
                     f"gamma = {r['gamma']:.6g}")
    if r.get("degree") is not None:
        lines.append(f"           degree = {r['degree']}, coef0 = {r['coef0']:.6g}")
    lines.append(f"  value    {r['value']:.6g}  ({r['message']})")
    lines.append(f"  cost     {r['nfev']} function and {r['njev']} gradient evaluations, "
                 f"{r['n_trainings']} SVM trainings, {r['time_s']:.2f} s")
    lines.append(f"  model    {r['n_sv']} support vectors; train accuracy {100 * r['train_accuracy']:.2f} %")
    if "test_accuracy" in r:
        lines.append(f"  test     accuracy {100 * r['test_accuracy']:.2f} %")
    if r.get("c_projected"):
        lines.append("  note     ln C reached its upper bound with no bounded SV: C set to max alpha "
                     "(Chung §4.3)")
    if "plot" in r:
        lines.append(f"  plot     {r['plot']}")
    return "\n".join(lines)


def criteria_table(as_json: bool) -> str:
    from .criteria import ALIAS_TARGETS

    rows = [cls.describe() for cls in CRITERIA.values()]
    aliases = {v: k for k, v in ALIAS_TARGETS.items()}
    for r in rows:
        r["alias"] = aliases.get(r["name"])
    if as_json:
        return json.dumps(rows)
    head = f"{'name':<22}{'loss':<7}{'grad':<6}source"
    lines = [head, "-" * 78]
    for r in rows:
        name = r["name"] + (f" ({r['alias']})" if r["alias"] else "")
        lines.append(f"{name:<22}{r['loss']:<7}{'yes' if r['differentiable'] else 'no':<6}"
                     f"{r['source']}")
        lines.append(f"    {r['formula']}")
    lines.append("'radius-margin' picks rm-l2 for --loss l2 and rm-l1 for --loss l1.")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "tune":
            X, y, Xt, yt = load_train_test(args.train, args.test, args.scale)
            run_tune(args, X, y, Xt, yt)
        elif args.command == "criteria":
            print(criteria_table(args.json))
        elif args.command == "demo":
            from .datasets import load_demo

            X, y, Xt, yt = load_demo(random_state=args.random_state)
            if not args.quiet:
                print(f"[svmbound] demo: scikit-learn breast-cancer, {X.shape[0]} train / "
                      f"{Xt.shape[0]} test, {X.shape[1]} standardised features", file=sys.stderr)
            run_tune(args, X, y, Xt, yt)
    except (ValueError, FileNotFoundError) as exc:
        print(f"svmbound: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
