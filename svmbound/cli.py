"""Command line: argument parsing, ``main``, the classifier's ``tune``, ``select`` and ``demo``.

``svmbound tune TRAIN …`` (``--svr``: regression, ``cli_svr``; grid.py's options:
``cli_gridpy``), ``svmbound select TRAIN --keep K``, ``svmbound criteria`` and ``svmbound demo``.

Plain output is a short human summary; ``--json`` prints one JSON object on stdout. Progress
goes to stderr (``--quiet`` silences it). Every output path (--model, -out, --plot, --log,
--resume) is checked before the data are read; model, plot and -out files are written to a
temporary file in their folder and then renamed over the target.

Exit status: 0 done; 2 an error (one line ``svmbound: error: …`` on stderr; a result already
computed is printed first); 130 Ctrl-C and 143 SIGTERM, after the best point so far.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

from . import __version__, cli_gridpy, plots
from ._validation import check_known_labels
from .cli_common import (_DEFAULT_SUBSAMPLE, _TERMINATION, EXIT_INTERRUPTED, EXIT_TERMINATED,
                         _criteria_of, _criterion_task, _degree_arg, _Termination,
                         add_search_details, check_log_options, estimator_params,
                         fit_reporting_interruption, plot_scales_file, print_report,
                         scaled_model, write_model_files)
from .cli_output import check_output_path, write_atomic
from .cli_report import criteria_table, fallback_report, jsonable_floats, path_report, summary
from .cli_svmtrain import DEFAULT_DEGREE, DEFAULT_TOL
from .cli_svr import check_class_labels, check_svr_options, run_tune_svr
from .criteria import ALIASES, CRITERIA
from .datasets import load_demo, load_libsvm_files
from .estimators import SEARCHES, BoundSVC
from . import svm_scale
from .export import model_of
from .kernels import ARD_KERNELS, ESTIMATOR_KERNELS
from .search.grid import evaluate_grid, grid_range
from .selection import ScalingSelector


def _add_tune_options(p):
    p.add_argument("--loss", default="l2",
                   help="l2 (squared hinge) or l1 (hinge); default l2 (tune: l1 with grid.py's "
                        "options). With --svr: l2 (squared) or l1 (LIBSVM's) "
                        "epsilon-insensitive loss")
    p.add_argument("--criterion", default="auto",
                   help="auto (default: the span and radius-margin bounds find candidates, "
                        "k-fold CV picks; with --svr the SVR's span estimate and the CV mean "
                        "squared error) or one criterion to minimise: "
                        + ", ".join(list(ALIASES) + sorted(CRITERIA))
                        + " (the svr-* ones with --svr; see 'svmbound criteria')")
    p.add_argument("--search", default="bfgs", help="search: " + ", ".join(SEARCHES))
    p.add_argument("--kernel", default="rbf",
                   help="kernel: " + ", ".join(ESTIMATOR_KERNELS) + " (ard: one sigma^2 per "
                   "feature, ard-poly: scaled polynomial; use --search lbfgsb for many features)")
    p.add_argument("--isotropic", action="store_true",
                   help="--criterion auto with --kernel rbf: one sigma^2 for every feature, "
                        "as grid search (no per-feature search; the model exports as a plain "
                        "SVC / LIBSVM model without a range file)")
    p.add_argument("--start", nargs="+", type=float, metavar="X",
                   help="start point, e.g. LNC LNSIGMA2 (default: ln C = 0 and, for --criterion auto, the ln sigma^2 of scikit-learn's gamma='scale'; 0 0 otherwise)")
    p.add_argument("--degree", nargs="+", type=int, default=[DEFAULT_DEGREE], metavar="D",
                   help="polynomial degree D, or a range LOW HIGH searched by --search annealing "
                        "(default 3)")
    p.add_argument("--coef0", type=float, default=1.0,
                   help="start value of the polynomial kernel's c (tuned; default 1)")
    p.add_argument("--tol", type=float, default=DEFAULT_TOL,
                   help="solver tolerance, in [1e-14, 1] (default 1e-6)")
    p.add_argument("--max-iter", type=int, default=100,
                   help="maximal iterations of the gradient searches (default 100)")
    p.add_argument("--max-epochs", type=int, default=200,
                   help="epochs of --search annealing (default 200)")
    p.add_argument("--cache-size", type=_cache_arg, default="auto",
                   help="kernel cache in MB, or auto (default: a quarter of the memory, "
                        "200 MB to 4 GB)")
    p.add_argument("--random-state", type=int, default=0, help="seed for random choices")
    p.add_argument("--n-jobs", type=_n_jobs_arg, default=1, metavar="N",
                   help="worker threads for the independent work of --criterion auto (its two "
                        "bound searches side by side, the CV folds) and of the one-vs-one "
                        "pairs; -1: every core (default 1). The result is the same for any N")
    p.add_argument("--tune-subsample", type=_subsample_arg, default=_DEFAULT_SUBSAMPLE,
                   metavar="M",
                   help="criterion auto from 2000 rows: search on a stratified half of the rows, "
                        "beyond M/2 an eighth (one-vs-one: of the two largest classes), at most "
                        "M, pick by the hold-out error on up to 4 times as many others, train "
                        "the final SVM on all rows (default 5000, "
                        "fewer where the span bound's memory would not fit in half the cache; "
                        "with --svr 3000, on more than 2*M rows only, sampled within quantile "
                        "bins of the targets; 'all': always use every row)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE.png", help="contour map of the criterion with the path")
    p.add_argument("--plot-scales", metavar="FILE.png",
                   help="bar chart of the chosen model's per-feature scaling factors 1/sigma_k "
                        "(Chapelle Fig. 7): --kernel ard, or the default's per-feature pick; "
                        "an isotropic model writes none and says so")
    p.add_argument("--grid-log-c", nargs=3, type=float, default=[-10.0, 10.0, 1.0],
                   metavar=("BEGIN", "END", "STEP"), help="ln C grid of the plot (default -10 10 1)")
    p.add_argument("--grid-log-sigma2", nargs=3, type=float, default=[-10.0, 10.0, 1.0],
                   metavar=("BEGIN", "END", "STEP"),
                   help="ln σ² grid of the plot (default -10 10 1)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    _add_run_control_options(p)


def _subsample_arg(text: str):
    """--tune-subsample: a number of rows >= 10, or 'all' (None: every row)."""
    if text.strip().lower() == "all":
        return None
    try:
        m = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of rows or 'all', got {text!r}")
    if m < 10:
        raise argparse.ArgumentTypeError(f"must be at least 10 rows, got {m}")
    return m


def _add_weight_options(p):
    """--class-weight of ``tune`` (issue 13): BoundSVC's class_weight."""
    p.add_argument("--class-weight", choices=["balanced"], default=None,
                   help="balanced: C of each class times n_samples / (2 * its size), as "
                        "scikit-learn's class_weight='balanced' (for imbalanced classes; the "
                        "CV of --criterion auto then counts the balanced error)")


def _add_run_control_options(p):
    """--log / --resume / --progress of ``tune`` and ``demo``."""
    p.add_argument("--log", metavar="FILE",
                   help="append one JSON line per criterion evaluation to FILE (a new file; "
                        "solver state in FILE.state), so that a killed run can be resumed")
    p.add_argument("--resume", metavar="FILE",
                   help="continue the run logged in FILE (same data and options): logged "
                        "evaluations are not repeated, new ones are appended to FILE; a "
                        "missing FILE starts a new log")
    p.add_argument("--progress", action="store_true",
                   help="progress bar on stderr even when it is not a terminal (default: only "
                        "on a terminal, never with --quiet)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="svmbound",
        description="Tune SVM hyperparameters by minimising leave-one-out error bounds.")
    parser.add_argument("--version", action="version", version=f"svmbound {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    tune = sub.add_parser("tune", help="tune C and kernel parameters on a LIBSVM-format file")
    tune.add_argument("train", help="training file in LIBSVM format (may be .bz2/.gz)")
    tune.add_argument("--test", help="test file in LIBSVM format")
    tune.add_argument("--svr", action="store_true",
                      help="regression: tune an epsilon-SVR (BoundSVR: C, kernel parameters and "
                           "epsilon) on real-valued labels instead of a classifier; criteria "
                           "auto, " + ", ".join(_criteria_of("regression")) + "; --test reports "
                           "the test MSE, MAE and R^2; --model writes LIBSVM's epsilon_svr model "
                           "(with --scale its svm-scale range file, FILE.range). Not with "
                           "--class-weight, --plot or grid.py's options")
    tune.add_argument("--scale", action="store_true",
                      help="scale features to [-1, 1] like svm-scale (fitted on train)")
    tune.add_argument("--sparse", choices=("auto", "yes", "no"), default="auto",
                      help="keep the data sparse (CSR, never densified): auto = when at most "
                           "10%% of the entries are non-zero, without --scale and ARD kernels "
                           "(default: auto)")
    _add_tune_options(tune)
    _add_weight_options(tune)
    cli_gridpy.add_options(tune)

    crit = sub.add_parser("criteria", help="list every model-selection criterion")
    crit.add_argument("--json", action="store_true", help="print a JSON list of objects")

    sel = sub.add_parser("select", help="feature selection by scaling factors (Chapelle §8)")
    sel.add_argument("train", help="training file in LIBSVM format (may be .bz2/.gz)")
    sel.add_argument("--keep", type=int, required=True, metavar="K", help="features to keep")
    sel.add_argument("--criterion", default="rm-l2",
                     help="differentiable criterion: rm-l2 (R^2/gamma^2, default) or span, ...")
    sel.add_argument("--kernel", default="rbf", help="rbf (default), linear or poly")
    sel.add_argument("--degree", type=int, default=2, help="degree of --kernel poly (default 2)")
    sel.add_argument("--space", default="input", help="input (default) or pca")
    sel.add_argument("--scale", action="store_true",
                     help="scale features to [-1, 1] like svm-scale before selecting")
    sel.add_argument("--json", action="store_true", help="print one JSON object")
    sel.add_argument("--quiet", action="store_true", help="no progress on stderr")

    demo = sub.add_parser("demo", help="tune on scikit-learn's breast-cancer data (built in)")
    _add_tune_options(demo)
    demo.set_defaults(plot="svmbound-demo.png")
    return parser


def load_inputs(train, test=None, scale=False, n_features=None, sparse=False) -> dict:
    """LIBSVM files → ``{"X", "y", "X_test", "y_test", "base"}`` (dense arrays, or CSR
    matrices with ``sparse`` True, or "auto" and at most 10 % non-zeros — svmbound fits CSR
    without densifying; the test entries None without ``test``; ``base``: the file's index of
    column 0, 1 unless the files use the index 0). ``scale`` (svm-scale to [-1, 1] maps 0 to
    −1, which makes sparse data dense) reads dense with ``sparse="auto"`` and is a ValueError
    with ``sparse=True``.

    Both files are read together (``datasets.load_libsvm_files`` with ``width="first"``): one
    column numbering for both, so that a stray ``0:`` in either never shifts one file's columns
    against the other's. The width is the training file's (or ``n_features``: a training file
    using more is a ValueError naming the line); test features beyond it are dropped with a
    ``DataWarning``. The size checks (the dense limit, the warning for costly empty columns)
    see the final width. With ``scale``, features are scaled to [-1, 1] as svm-scale scales
    them (a constant feature to 0), fitted on the training data; ``scaling`` holds the ranges
    (``svm_scale.SvmScaleRanges``, None without ``scale``).
    """
    paths = [train] if test is None else [train, test]
    if scale:
        if sparse is True:
            raise ValueError("--scale maps every 0 to -1 (svm-scale to [-1, 1]), which makes "
                             "sparse data dense: use --sparse no with --scale, or no --scale")
        sparse = False
    parts, info = load_libsvm_files(paths, n_features, return_info=True, sparse=sparse,
                                    width="first")
    X, y = parts[0], parts[1]
    Xt, yt = (parts[2], parts[3]) if test is not None else (None, None)
    ranges = None
    if scale:                  # svm-scale's map (svmbound.svm_scale), fitted on the training rows
        ranges = svm_scale.fit_ranges(X)
        X = svm_scale.scale(X, ranges)
        if Xt is not None:
            Xt = svm_scale.scale(Xt, ranges)
    return {"X": X, "y": y, "X_test": Xt, "y_test": yt, "base": info["base"],
            "scaling": ranges}


def _sparse_mode(args):
    """``--sparse`` as ``load_inputs`` takes it: auto reads dense for the ARD kernels (which
    need dense data)."""
    if args.sparse == "auto":
        return False if str(getattr(args, "kernel", "")).startswith("ard") else "auto"
    return args.sparse == "yes"


def load_train_test(train, test=None, scale=False, n_features=None):
    """LIBSVM files → ``(X, y, X_test, y_test)`` dense arrays (see ``load_inputs``)."""
    d = load_inputs(train, test, scale, n_features)
    return d["X"], d["y"], d["X_test"], d["y_test"]


def check_outputs(args) -> None:
    """Every output path of ``tune``/``demo`` checked before the data are read and the search
    runs, each error naming its option (issue 29, item 11): --plot (and its options), --log
    and --resume here; --model and -out in ``cli_gridpy.resolve``. Two options naming one file
    are refused, and so is an output naming the training or the --test file (it would replace
    the data)."""
    check_plot_options(args)
    check_log_options(args)
    if getattr(args, "plot_scales", None):
        _check_image_path(args.plot_scales, "--plot-scales")
    named = {}
    for what, attr in (("the training file", "train"), ("--test", "test")):
        path = getattr(args, attr, None)
        if path is not None:
            named[os.path.realpath(os.path.expanduser(path))] = what
    for option in ("--model", "-out", "-png", "--plot", "--plot-scales", "--log", "--resume"):
        path = getattr(args, {"--model": "model", "-out": "gridpy_out", "-png": "gridpy_png",
                              "--plot": "plot", "--plot-scales": "plot_scales", "--log": "log",
                              "--resume": "resume"}[option], None)
        if path is None:
            continue
        key = os.path.realpath(os.path.expanduser(path))
        other = named.setdefault(key, option)
        if other in ("the training file", "--test"):
            data = "the --test file" if other == "--test" else other
            raise ValueError(f"{option} {path} is {data}: the output would replace the data; "
                             "give it a file of its own")
        if other != option and {other, option} != {"--log", "--resume"}:
            raise ValueError(f"{other} and {option} name the same file {path}; give each its "
                             "own")


def check_plot_options(args) -> None:
    """What ``--plot`` needs, checked before the search: a writable file of an image format
    matplotlib knows, and a kernel with one parameter besides ln C (the map is 2-D)."""
    if not args.plot:
        return
    if args.kernel in ARD_KERNELS:
        raise ValueError(f"--plot draws a map over two parameters (ln C and one kernel "
                         f"parameter); the {args.kernel} kernel has one per feature")
    if args.kernel == "linear":
        raise ValueError("--plot draws a map over ln C and one kernel parameter; the linear "
                         "kernel has none (use --kernel rbf or poly)")
    _check_image_path(args.plot, "--plot")


def _check_image_path(path, option: str) -> None:
    """An image file matplotlib can write at ``path`` (by its extension), writable."""
    from pathlib import Path

    ext = Path(path).suffix.lower().lstrip(".")
    if ext:
        from matplotlib.backend_bases import FigureCanvasBase

        formats = FigureCanvasBase.get_supported_filetypes()
        if ext not in formats:
            raise ValueError(f"{option} {path}: unknown image format {ext!r}; use one of "
                             f"{', '.join(sorted(formats))}")
    check_output_path(path, option)


def run_tune(args, X, y, Xt=None, yt=None, out=None, err=None, scaling=None,
             base: int = 1, estimator_hook=None) -> dict:
    """Tune and report; with ``--model`` also the model file and, where the model needs its
    inputs scaled (``scaling``: ``--scale``'s ranges; an ARD kernel), svm-scale's range file
    beside it (features numbered from ``base``, as in the training file). ``estimator_hook``:
    None, or a function given the estimator before its fit (grid.py's -b 1 and -resume,
    ``cli_gridpy.apply``)."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    t0 = time.perf_counter()
    degree = _degree_arg(args.degree)
    check_plot_options(args)
    if yt is not None:
        check_known_labels(yt, np.unique(y), "the test set")
    est = BoundSVC(**estimator_params(args, degree, err),
                   criterion_params=getattr(args, "criterion_params", None),
                   class_weight=getattr(args, "class_weight", None))
    if estimator_hook is not None:
        estimator_hook(est)
    if args.plot:  # validate grid options before the (possibly long) search
        gc, gs = grid_range(*args.grid_log_c), grid_range(*args.grid_log_sigma2)
    fit_reporting_interruption(est, X, y, args, out, t0)
    res = est.search_
    bp = est.best_params_
    sigma2 = bp.get("sigma2")
    report = {
        "C": float(bp["C"]), "gamma": jsonable_floats(bp.get("gamma")), "sigma2": jsonable_floats(sigma2),
        "log_C": float(est.best_theta_[0]),
        "log_sigma2": None if sigma2 is None else jsonable_floats(np.log(sigma2)),
        # the model's kernel: 'ard' where the default chose one width per feature
        "kernel": "ard" if args.kernel == "rbf" and scaled_model(args, est) else args.kernel,
        "loss": args.loss, "criterion": est.criterion_name_,
        "value": est.best_value_, "nfev": int(res.nfev), "njev": int(res.njev),
        "nit": int(res.nit), "message": str(res.message),
        "n_trainings": int(est.n_trainings_), "n_sv": int(est.support_.size),
        "c_projected": bool(est.c_projected_),
        "train_accuracy": float(est.score(X, y)),
        "problems": list(res.get("problems", [])),
        "fallback": fallback_report(res.get("fallback")),
    }
    if est.class_weight is not None:
        report["class_weight"] = dict(zip(jsonable_floats(est.classes_), est.class_weight_.tolist()))
    add_search_details(report, est, args)
    if Xt is not None:
        report["test_accuracy"] = float(est.score(Xt, yt))
    failed = []                 # output files that could not be written (full disk, ...)
    if getattr(args, "model", None):
        failed += write_model_files(args, est, lambda: model_of(est), scaling, base, report)
    report["time_s"] = time.perf_counter() - t0
    report["path"] = path_report(res.path)
    if getattr(args, "plot_scales", None):
        failed += plot_scales_file(args, est, report, err)
    if args.plot:
        y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
        crit = est.make_criterion(X, y_pm, est.sample_weights(y_pm)[0])
        if not args.quiet:
            print(f"[svmbound] evaluating the criterion on a {gs.size}x{gc.size} grid for the plot",
                  file=err, flush=True)
        yt_pm = None if yt is None else np.where(yt == est.classes_[1], 1.0, -1.0)
        grid = evaluate_grid(crit, gc, gs, Xt, yt_pm)
        paths = candidates = None
        title = f"{est.criterion_name_} ({args.loss.upper()}-SVM)"
        if "candidates" in res:    # the default strategy: every bound search, the candidates
            # (on the map of one σ² for every feature: not the per-feature search's)
            paths = {f"{name} search": [p["x"][:2] for p in stage.path if p["accepted"]]
                     for name, stage in res.stages.items() if len(stage.x) == 2}
            candidates = [(c["x"][:2], f"{c['cv_errors']:.4g} CV errors") for c in
                          res.candidates if len(c["x"]) == 2]
            accepted = None
            title = f"{crit.name} contours; auto ({args.loss.upper()}-SVM)"
        else:
            accepted = [p["x"] for p in report["path"] if p["accepted"]]
        if args.search == "grid":
            accepted = None  # the grid minimum is marked on the map already
        try:
            write_atomic(args.plot, "--plot", lambda tmp: plots.plot_contours(
                grid, tmp, path=accepted, paths=paths, candidates=candidates,
                final=est.best_theta_[:2] if est.best_theta_.size == 2 else None,
                title=title))
            report["plot"] = args.plot
        except OSError as exc:
            failed.append(exc)
    return print_report(report, failed, args, out, summary)


def _n_jobs_arg(text):
    """--n-jobs: a non-zero integer (joblib's n_jobs: -1 every core, -2 all but one, ...)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n == 0:
        raise argparse.ArgumentTypeError(f"expected a non-zero integer (-1: every core), got "
                                         f"{text!r}")
    return n


def _cache_arg(text):
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'auto' or megabytes, got {text!r}") from None


def run_select(args, X, y, out=None, err=None, feature_base=1) -> dict:
    """``svmbound select``: Chapelle §8 feature selection; prints the kept features (numbered
    as in the LIBSVM file: column k is feature k + ``feature_base``; principal components from
    1) and their scaling factors."""
    out = sys.stdout if out is None else out
    t0 = time.perf_counter()
    sel = ScalingSelector(n_features_to_select=args.keep, criterion=args.criterion,
                          kernel=args.kernel, degree=args.degree, space=args.space,
                          verbose=0 if args.quiet else 1)
    sel.fit(X, y)
    kept = np.flatnonzero(sel.support_)
    order = kept[np.argsort(sel.scaling_factors_[kept])[::-1]]
    report = {"keep": int(args.keep), "space": args.space, "criterion": args.criterion,
              "kernel": args.kernel,
              "features": [int(k) + (feature_base if args.space == "input" else 1)
                           for k in order],
              "scaling_factors": [float(sel.scaling_factors_[k]) for k in order],
              "ranking": [int(r) for r in sel.ranking_],
              "n_evaluations": int(sel.n_evaluations_), "n_rounds": int(sel.n_rounds_),
              "time_s": time.perf_counter() - t0}
    if args.json:
        print(json.dumps(report), file=out)
    else:
        what = "feature" if args.space == "input" else "principal component"
        lines = [f"svmbound select: {args.keep} of {sel.support_.size} "
                 f"{what}s kept by {args.criterion} ({args.kernel} kernel), "
                 f"{report['n_evaluations']} SVM trainings in {report['n_rounds']} rounds, "
                 f"{report['time_s']:.2f} s",
                 f"  {what:<20} scaling factor"]
        lines += [f"  {f:<20} {v:.6g}" for f, v in zip(report["features"],
                                                       report["scaling_factors"])]
        print("\n".join(lines), file=out)
    return report


def main(argv=None) -> int:
    parser = build_parser()
    argv = cli_gridpy.fix_argv(sys.argv[1:] if argv is None else list(argv))
    args = parser.parse_args(argv)
    with _Termination() as term:
        _TERMINATION[0] = term
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _show_warning
                _run_command(args)
        except (ValueError, OSError, EOFError, MemoryError) as exc:
            print(f"svmbound: error: {_one_line(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            if term.sigterm:
                print("svmbound: terminated (SIGTERM)", file=sys.stderr)
                return EXIT_TERMINATED
            print("svmbound: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        finally:
            _TERMINATION[0] = None
    return 0


def _one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (a MemoryError gets a sentence of its own)."""
    if isinstance(exc, MemoryError):
        return f"out of memory ({exc or 'the data or kernel matrix do not fit'})"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings as one line on stderr: ``svmbound: warning: …`` (no source line)."""
    text = _one_line(message)
    text = text[len("svmbound: "):] if text.startswith("svmbound: ") else text
    print(f"svmbound: warning: {text} ({category.__name__})",
          file=sys.stderr if file is None else file, flush=True)


def _run_command(args) -> None:
    """Run the parsed sub-command (errors propagate to ``main``)."""
    if args.command == "tune":
        if args.svr:
            check_svr_options(args)
        elif _criterion_task(args.criterion) == "regression":
            raise ValueError(f"--criterion {args.criterion} is a regression criterion: use "
                             "--svr to tune an epsilon-SVR")
        gridpy = cli_gridpy.resolve(args)
        check_outputs(args)
        data = load_inputs(args.train, args.test, args.scale, args.n_features,
                           sparse=_sparse_mode(args))
        X, y = data["X"], data["y"]
        if args.svr:
            run_tune_svr(args, X, y, data["X_test"], data["y_test"], scaling=data["scaling"],
                         base=data["base"])
            return
        check_class_labels(y, args.train)
        hook = cli_gridpy.apply(gridpy, args, X, y)
        report = run_tune(args, X, y, data["X_test"], data["y_test"],
                          scaling=data["scaling"], base=data["base"], estimator_hook=hook)
        cli_gridpy.finish(gridpy, report, X.shape[0], quiet=args.quiet, as_json=args.json)
    elif args.command == "select":
        data = load_inputs(args.train, None, args.scale)
        run_select(args, data["X"], data["y"], feature_base=data["base"])
    elif args.command == "criteria":
        print(criteria_table(args.json))
    elif args.command == "demo":
        check_outputs(args)
        X, y, Xt, yt = load_demo(random_state=args.random_state)
        if not args.quiet:
            print(f"[svmbound] demo: scikit-learn breast-cancer, {X.shape[0]} train / "
                  f"{Xt.shape[0]} test, {X.shape[1]} standardised features", file=sys.stderr)
        run_tune(args, X, y, Xt, yt)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
