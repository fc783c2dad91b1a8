"""``svmbound tune --svr``: the options an epsilon-SVR takes, its tuning, report and plot."""

from __future__ import annotations

import sys
import time

import numpy as np

from . import plots
from .bound_svr import BoundSVR
from .cli_common import (_criteria_of, _criterion_task, _degree_arg, add_search_details,
                         estimator_params, fit_reporting_interruption, plot_scales_file,
                         print_report, write_model_files)
from .cli_output import write_atomic
from .cli_report import (fallback_report, jsonable_floats, path_report, regression_metrics,
                         regression_summary)
from .search.grid import evaluate_grid, grid_range


#: Options of ``tune`` that only mean something for a classifier, refused with --svr:
#: (option, attribute of the parsed arguments).
SVR_REFUSED = (("--class-weight", "class_weight"), ("-log2c", "log2c"), ("-log2g", "log2g"),
               ("-v", "folds"), ("-out", "gridpy_out"))


def check_svr_options(args) -> None:
    """``tune --svr``: a ValueError naming the first given option that only means something for
    a classifier — --class-weight (class weights), grid.py's -log2c/-log2g/-v/-out (grid.py
    tunes a C-SVC by its cross-validation accuracy; gridregression.py's habits are not
    implemented) — or a classification criterion. (--plot draws the SVR's criterion over ln C
    and ln σ² at the chosen ε.)"""
    for option, attr in SVR_REFUSED:
        if getattr(args, attr, None) is None:
            continue
        if option == "--class-weight":
            why = "it weighs the classes of a classifier, and a regression has no classes"
        else:
            why = ("it is an option of LIBSVM's grid.py, which tunes a classifier by its "
                   "cross-validation accuracy (gridregression.py's options are not "
                   "supported); for the cross-validated mean squared error use --criterion "
                   "svr-cv --search annealing")
        raise ValueError(f"{option} cannot be used with --svr: {why}")
    if _criterion_task(args.criterion) == "classification":
        valid = ", ".join(["auto"] + _criteria_of("regression"))
        raise ValueError(f"--criterion {args.criterion} is a classification criterion; with "
                         f"--svr use one of: {valid}")


def check_class_labels(y, path) -> None:
    """``tune`` without --svr: a ValueError saying "use --svr" when the labels of the training
    file ``path`` look like regression targets — more than two distinct values with non-integer
    ones among them (no classifier takes those), or integer values of which there are more
    than 20, more than half of them on a single row (classes a classifier cannot learn)."""
    values, counts = np.unique(np.asarray(y, dtype=float), return_counts=True)
    if values.size <= 2:
        return
    frac = values[values != np.round(values)]
    if frac.size:
        what = (f"{values.size} distinct values, non-integer ones among them, e.g. "
                f"{', '.join(f'{v:.6g}' for v in frac[:3])}")
    elif values.size > 20 and 2 * int(np.sum(counts == 1)) > values.size:
        what = (f"{values.size} distinct integer values in {len(y)} rows, "
                f"{int(np.sum(counts == 1))} of them on a single row")
    else:
        return
    raise ValueError(f"{path}: the labels are real-valued regression targets ({what}), not "
                     "class labels; svmbound tune trains a classifier — use --svr to tune an "
                     "epsilon-SVR (regression)")


def run_tune_svr(args, X, y, Xt=None, yt=None, out=None, err=None, scaling=None,
                 base: int = 1) -> dict:
    """``tune --svr``: tune a ``BoundSVR`` on real targets ``y`` and report — the chosen C,
    kernel parameters and ε, the cost (evaluations, SVR trainings, time), the training and,
    with a test set, the test mean squared error, mean absolute error and R². With ``--model``
    LIBSVM's epsilon_svr model file and, where the model needs its inputs scaled, svm-scale's
    range file beside it (``write_model_files``)."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    t0 = time.perf_counter()
    degree = _degree_arg(args.degree)
    est = BoundSVR(**estimator_params(args, degree, err, "regression"))
    fit_reporting_interruption(est, X, y, args, out, t0)
    res = est.search_
    bp = est.best_params_
    sigma2 = bp.get("sigma2")
    train = regression_metrics(y, est.predict(X))
    report = {
        "task": "regression",
        "C": float(bp["C"]), "gamma": jsonable_floats(bp.get("gamma")),
        "sigma2": jsonable_floats(sigma2), "epsilon": float(bp["epsilon"]),
        "log_C": float(est.best_theta_[0]),
        "log_sigma2": None if sigma2 is None else jsonable_floats(np.log(sigma2)),
        "log_epsilon": float(est.best_theta_[-1]),
        "best_params": {k: jsonable_floats(v) for k, v in bp.items()},
        "kernel": args.kernel, "loss": args.loss, "criterion": est.criterion_name_,
        "value": float(est.best_value_), "nfev": int(res.nfev), "njev": int(res.njev),
        "nit": int(res.nit), "message": str(res.message),
        "n_trainings": int(est.n_trainings_), "n_sv": int(est.support_.size),
        "c_projected": bool(est.c_projected_),
        "train_mse": train["mse"], "train_mae": train["mae"], "train_r2": train["r2"],
        "problems": list(res.get("problems", [])),
        "fallback": fallback_report(res.get("fallback")),
    }
    add_search_details(report, est, args)
    if Xt is not None:
        test = regression_metrics(yt, est.predict(Xt))
        report.update(test_mse=test["mse"], test_mae=test["mae"], test_r2=test["r2"],
                      n_test=int(Xt.shape[0]))
    failed = []                 # output files that could not be written (full disk, ...)
    if getattr(args, "model", None):
        failed += write_model_files(args, est, est._model, scaling, base, report)
    report["fit_time_s"] = float(est.fit_time_)
    report["time_s"] = time.perf_counter() - t0
    report["path"] = path_report(res.path)
    if args.plot:
        failed += plot_svr(args, est, X, y, Xt, yt, report, err)
    if getattr(args, "plot_scales", None):
        failed += plot_scales_file(args, est, report, err)
    return print_report(report, failed, args, out, regression_summary)


def plot_svr(args, est, X, y, Xt, yt, report, err) -> list:
    """``tune --svr --plot``: the SVR's criterion (the span estimate for criterion='auto') over
    ln C and ln σ² at the chosen ln ε, the bound search's path and the candidates with their
    CV mean squared errors, and the test MSE map beside it with a test set. Returns the
    OSErrors of a file not written."""
    gc, gs = grid_range(*args.grid_log_c), grid_range(*args.grid_log_sigma2)
    crit = est.make_criterion(X, y)
    if not args.quiet:
        print(f"[svmbound] evaluating the criterion on a {gs.size}x{gc.size} grid for the plot "
              f"(at ln epsilon = {est.best_theta_[-1]:.3g})", file=err, flush=True)
    grid = evaluate_grid(crit, gc, gs, Xt, yt, fixed=est.best_theta_[2:])
    res = est.search_
    paths = candidates = accepted = None
    if "candidates" in res:
        paths = {f"{name} search": [p["x"][:2] for p in stage.path if p["accepted"]]
                 for name, stage in res.stages.items()}
        candidates = [(c["x"][:2], f"CV MSE {c['cv_rate']:.4g}") for c in res.candidates]
    elif args.search != "grid":
        accepted = [p["x"][:2] for p in report["path"] if p["accepted"]]
    title = (f"{crit.name} at ln eps = {est.best_theta_[-1]:.2f}; "
             f"{est.criterion_name_} ({args.loss.upper()}-SVR)")
    try:
        write_atomic(args.plot, "--plot", lambda tmp: plots.plot_contours(
            grid, tmp, path=accepted, paths=paths, candidates=candidates,
            final=est.best_theta_[:2], title=title, test_label="test MSE", test_scale=1.0))
        report["plot"] = args.plot
    except OSError as exc:
        return [exc]
    return []
