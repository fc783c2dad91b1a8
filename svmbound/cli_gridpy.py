"""LIBSVM habits of ``svmbound tune``: grid.py's options and the export option.

* ``-log2c begin,end,step`` and ``-log2g begin,end,step`` (or ``null``): grid.py's base-2
  grids of C and of the RBF γ, searched as our grid over ln C = log2c·ln 2 and
  ln σ² = −ln(2γ) = −(log2g + 1)·ln 2 (``--search grid``). ``null`` keeps LIBSVM's default
  (C = 1; γ = 1/number of features). A missing one takes grid.py's default (-5,15,2 and
  3,-15,-2); with the linear kernel there is no γ.
* ``-v n``: n-fold cross-validation, i.e. the criterion 'cv-error' with n folds. With a search
  that cannot minimise it (the gradient searches, bfgs by default) it also implies grid.py's grid.
* ``-out FILE``: grid.py's output, one line per evaluated grid point,
  ``log2c=… log2g=… rate=…`` with rate the cross-validation accuracy in percent (svm-train's
  ``%g``); needs the cv-error criterion; ``-out null`` writes none (grid.py's). Without
  ``-out`` the grid search writes grid.py's default, ``<dataset file name>.out`` in the current
  folder.
* Grid options without ``-v`` run grid.py's default 5-fold cross-validation. On stdout (without
  ``--json``) grid.py's own lines follow the summary: ``[local] log2c log2g rate (best c=…,
  g=…, rate=…)`` per point and, last, ``best_c best_g best_rate``.
* ``-resume [FILE]`` (default ``<dataset file name>.out``): grid.py's resumption. The points
  of FILE (its ``log2c=… log2g=… rate=…`` lines, read as grid.py reads them) are not trained
  again: the grid search's cv-error criterion answers them from the file (the estimator's
  run control wraps it, see below), so their rates take part in the best choice; the points
  evaluated are appended to the -out file; stdout lists the file's points as ``[resumed] …``
  first, as grid.py does. A point of FILE outside the grid counts for the last line (grid.py)
  but the model is trained at the grid's best (a note says so). -out is written when the
  search ends, so a killed run leaves nothing to resume from: svmbound's own --log/--resume
  (not combined with -resume) resume a killed search.
* ``-png FILE``: grid.py's picture, drawn by matplotlib (:func:`plot_accuracy`): contours of
  the cross-validation accuracy over log2 C and log2 γ with the best point marked; needs both
  axes (grid.py draws none without them). Only when given (grid.py's default dataset.png comes
  with gnuplot).
* ``-svmtrain PATH`` and ``-gnuplot PATH``: accepted, with a note that svmbound needs neither
  (it trains the SVMs itself and draws ``-png`` with matplotlib); ``-gnuplot null`` silently.
* svm-train's options, which grid.py passes on to svm-train, where they mean something here:
  ``-s 0`` (C-SVC, the only type), ``-t 0|1|2`` (--kernel linear, poly, rbf), ``-d`` (the
  polynomial degree), ``-m MB`` (--cache-size), ``-e EPS`` (--tol), ``-h 0|1`` (shrinking:
  svmbound always shrinks, ``-h 0`` gets a note; ``-h`` alone still prints the help),
  ``-b 0|1`` (``-b 1``: the final model with probability estimates, ``probability=True``),
  ``-wi W`` (class_weight {label i: W}, C of class i times W) and ``-q`` (--quiet). The
  others — ``-c``/``-g`` (use -log2c/-log2g, as grid.py says), ``-r``, ``-n``, ``-p``, other
  svm types and the sigmoid/precomputed kernels — are errors naming the option. With class
  weights the grid's rate is the weighted accuracy, 100·(1 − Σ w over the errors / Σ w), what
  the cv-error criterion minimises (svm-train prints the plain accuracy).
* With any of them the loss defaults to l1 (LIBSVM's C-SVC, what grid.py tunes).
* ``--model FILE``: write the final model in LIBSVM's format (loss l1; rbf, linear or poly
  kernel), checked before the search runs.

argparse reads ``-log2c -5,15,2`` as two options; ``fix_argv`` joins such values
(``-log2c=-5,15,2``) before parsing, and after ``tune`` turns svm-train's ``-h 0`` and ``-w1 2``
(which argparse would take for the help and for ``-w`` with the value 1) into hidden options.

``-b 1`` needs ``probability=True``, and -resume a criterion answered from the file, on the
estimator ``cli.run_tune`` builds: :func:`apply` returns a hook (:func:`estimator_hook`) that
``run_tune`` hands that estimator to before its fit (``run_tune(..., estimator_hook=…)``).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable

import numpy as np

from .cli_gridpy_files import (GridPy, cv_rate, default_out, out_line, plot_accuracy,
                               read_resume_file, resumed_lookup, rounded_key)
from .cli_output import append_text_atomic, check_output_path, write_atomic, write_text_atomic
from .cli_svmtrain import REFUSED, svm_train_options, tool_options
from .criteria.base import Evaluation
from .export import check_exportable
from .libsvm_model import check_int_labels, range_path_of

#: grid.py's defaults (LIBSVM tools/grid.py).
DEFAULT_LOG2C = (-5.0, 15.0, 2.0)
DEFAULT_LOG2G = (3.0, -15.0, -2.0)
DEFAULT_FOLDS = 5
GRID_OPTIONS = ("-log2c", "-log2g")
_GRADIENT_SEARCHES = ("bfgs", "lbfgsb", "projected-gradient")
#: hidden options that ``fix_argv`` makes of svm-train's ``-h 0|1`` and ``-wi weight``
SHRINKING_OPTION = "--svm-train-h"
WEIGHT_OPTION = "--svm-train-w"
_INT = re.compile(r"[+-]?\d+")
_WEIGHT = re.compile(r"-w([+-]?\d+)")


def _range_arg(text):
    if text == "null":
        return "null"
    parts = text.split(",")
    try:
        values = tuple(float(v) for v in parts)
    except ValueError:
        values = ()
    if len(values) != 3 or not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected begin,end,step or null, got {text!r}")
    return values


def _folds_arg(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 2:
        raise argparse.ArgumentTypeError(f"expected a number of folds >= 2, got {text!r}")
    return n


def add_options(p) -> None:
    """grid.py's options, --model and --n-features on the ``tune`` parser."""
    p.add_argument("--model", metavar="FILE",
                   help="write the final model in LIBSVM's format (svm-predict, svm_load_model); "
                        "needs --loss l1 and the rbf, linear or poly kernel")
    p.add_argument("--n-features", type=int, metavar="N",
                   help="number of features (when the training file does not use the last "
                        "index); test features beyond it are ignored with a warning")
    g = p.add_argument_group(
        "grid.py options", "LIBSVM's tools/grid.py habits; with any of them --loss defaults to l1")
    g.add_argument("-log2c", type=_range_arg, metavar="BEGIN,END,STEP|null",
                   help="grid of log2(C) (grid.py default -5,15,2; null: C = 1); implies "
                        "--search grid")
    g.add_argument("-log2g", type=_range_arg, metavar="BEGIN,END,STEP|null",
                   help="grid of log2(gamma), gamma = 1/(2 sigma^2) of the rbf kernel "
                        "(grid.py default 3,-15,-2; null: gamma = 1/features); implies "
                        "--search grid")
    g.add_argument("-v", type=_folds_arg, dest="folds", metavar="N",
                   help="N-fold cross-validation: --criterion cv-error with N folds (and "
                        "grid.py's grid unless --search annealing)")
    g.add_argument("-out", dest="gridpy_out", metavar="FILE|null",
                   help="grid.py's output: a line 'log2c=.. log2g=.. rate=..' per grid point, "
                        "rate = cross-validation accuracy in percent (default: the training "
                        "file's name + '.out' in the current folder; null: none)")
    g.add_argument("-resume", dest="gridpy_resume", nargs="?", const="", metavar="FILE",
                   help="resume from grid.py's output FILE (default: the training file's name "
                        "+ '.out'): its points are not trained again, their rates take part in "
                        "the best choice, the new points are appended to the -out file")
    g.add_argument("-png", dest="gridpy_png", metavar="FILE",
                   help="contour map of the cross-validation accuracy over log2(C) and "
                        "log2(gamma) with the best point (a PNG drawn by matplotlib; grid.py's "
                        "gnuplot map)")
    g.add_argument("-svmtrain", dest="gridpy_svmtrain", metavar="PATH",
                   help="accepted and ignored: svmbound trains the SVMs itself")
    g.add_argument("-gnuplot", dest="gridpy_gnuplot", metavar="PATH|null",
                   help="accepted and ignored: svmbound draws -png with matplotlib")
    s = p.add_argument_group(
        "svm-train options",
        "LIBSVM svm-train's options (grid.py passes them on to svm-train) where they mean "
        "something here. Also: -h 0|1 (shrinking; svmbound always shrinks, -h 0 is noted and "
        "ignored; -h alone prints this help) and -wi W (C of class label i times W, "
        "class_weight {i: W}, e.g. -w1 2 -w-1 0.5). -c, -g (use -log2c, -log2g), -r, -n, -p "
        "and the svm types other than 0 are refused")
    s.add_argument("-s", dest="svm_s", metavar="0", help="svm type: 0 (C-SVC) only")
    s.add_argument("-t", dest="svm_t", metavar="0|1|2",
                   help="kernel type: 0 linear, 1 polynomial, 2 rbf (--kernel); 3 (sigmoid) "
                        "and 4 (precomputed) are not supported")
    s.add_argument("-d", dest="svm_d", metavar="DEGREE",
                   help="degree of the polynomial kernel -t 1 (--degree)")
    s.add_argument("-m", dest="svm_m", metavar="MB", help="kernel cache in MB (--cache-size)")
    s.add_argument("-e", dest="svm_e", metavar="EPS",
                   help="solver tolerance, in [1e-14, 1] (--tol)")
    s.add_argument("-b", dest="svm_b", metavar="0|1",
                   help="1: the final model with probability estimates (Platt's sigmoid; "
                        "--model writes probA/probB)")
    s.add_argument("-q", dest="svm_q", action="store_true", help="quiet (--quiet)")
    s.add_argument(SHRINKING_OPTION, dest="svm_h", help=argparse.SUPPRESS)
    s.add_argument(WEIGHT_OPTION, dest="svm_w", action="append", help=argparse.SUPPRESS)
    for option in REFUSED:
        s.add_argument(option, dest=f"svm_{option[1]}", help=argparse.SUPPRESS)
    p.set_defaults(loss=None)


def fix_argv(argv):
    """``-log2c -5,15,2`` → ``-log2c=-5,15,2`` (argparse takes '-5,15,2' for an option); after
    ``tune``, svm-train's ``-h 0`` → ``--svm-train-h=0`` (``-h`` followed by anything but an
    integer stays the help) and ``-w1 2`` → ``--svm-train-w=1,2`` (``-w-1 0.5`` too)."""
    out, i = [], 0
    tune = argv.index("tune") if "tune" in argv else len(argv)
    while i < len(argv):
        a = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if a in GRID_OPTIONS and nxt is not None and nxt.startswith("-"):
            out.append(f"{a}={nxt}")
            i += 2
            continue
        if i > tune and a == "-h" and nxt is not None and _INT.fullmatch(nxt):
            out.append(f"{SHRINKING_OPTION}={nxt}")
            i += 2
            continue
        m = _WEIGHT.fullmatch(a) if i > tune else None
        if m:
            out.append(f"{WEIGHT_OPTION}={m.group(1)},{'' if nxt is None else nxt}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def grid_values(begin, end, step) -> list[float]:
    """grid.py's ``range_f``: begin, begin+step, … while not past end (repeated addition)."""
    if step == 0:
        raise ValueError(f"grid step must be non-zero, got {begin},{end},{step}")
    if (end - begin) * step < 0:
        raise ValueError(f"grid range {begin}..{end} cannot be reached with step {step}")
    seq = []
    while not ((step > 0 and begin > end) or (step < 0 and begin < end)):
        seq.append(begin)
        begin = begin + step
    return seq


#: (option, attribute) of the options that only mean something for the classifier grid.py
#: tunes, refused with --svr (``cli_svr.SVR_REFUSED`` checks -log2c, -log2g, -v and -out)
_NOT_WITH_SVR = (("-resume", "gridpy_resume"), ("-png", "gridpy_png"),
                 ("-svmtrain", "gridpy_svmtrain"), ("-gnuplot", "gridpy_gnuplot"),
                 ("-s", "svm_s"), ("-t", "svm_t"), ("-d", "svm_d"), ("-m", "svm_m"),
                 ("-e", "svm_e"), ("-h", "svm_h"), ("-b", "svm_b"), ("-wi", "svm_w"),
                 ("-c", "svm_c"), ("-g", "svm_g"), ("-r", "svm_r"), ("-n", "svm_n"),
                 ("-p", "svm_p"), ("-q", "svm_q"))


def _cv_grid_only(args, grid: bool, what: str) -> None:
    """A ValueError ``what`` + "; it cannot be combined with" the --search or --criterion that
    is not grid.py's grid of the cross-validation accuracy."""
    if not grid or args.criterion != "cv-error":
        raise ValueError(f"{what}; it cannot be combined with "
                         + (f"--search {args.search}" if not grid
                            else f"--criterion {args.criterion}"))


def resolve(args) -> GridPy | None:
    """Before loading the data: turn the grid.py options into tune options (loss, criterion,
    search) and check --model, so that a bad combination fails before the search. Returns the
    resolved grid.py options, or None when none was given."""
    if getattr(args, "svr", False):
        for option, attr in _NOT_WITH_SVR:
            if getattr(args, attr, None) not in (None, False):
                raise ValueError(f"{option} cannot be used with --svr: it is an option of "
                                 "LIBSVM's grid.py or svm-train, which svmbound takes for the "
                                 "classifier grid.py tunes")
    libsvm = svm_train_options(args)
    given = [o for o, v in (("-log2c", args.log2c), ("-log2g", args.log2g), ("-v", args.folds),
                            ("-out", args.gridpy_out), ("-resume", args.gridpy_resume),
                            ("-png", args.gridpy_png)) if v is not None]
    given += tool_options(args)
    if args.loss is None:
        args.loss = "l1" if given or libsvm else "l2"
    if args.model is not None:
        check_exportable(args.loss, args.kernel, with_scaling=True)
        check_output_path(args.model, "--model")
        if args.scale or args.kernel in ("ard", "ard-poly"):   # svm-scale's range file too
            check_output_path(range_path_of(args.model), "--model")
    if args.n_features is not None and args.n_features < 1:
        raise ValueError(f"--n-features must be >= 1, got {args.n_features}")
    if not given:
        return None
    grid_opts = [o for o in given if o != "-v"]
    grid = bool(grid_opts) or args.search in _GRADIENT_SEARCHES or args.search == "grid"
    if grid and args.kernel not in ("rbf", "linear"):
        raise ValueError(f"{', '.join(grid_opts or given)}: grid.py's grid is over C and the "
                         f"gamma of the rbf kernel; use --kernel rbf or linear (-t 2 or -t 0), "
                         f"not {args.kernel!r}"
                         + ("" if grid_opts else " (or -v N --search annealing: the "
                            "cross-validation error over its parameters)"))
    if args.folds is None and grid_opts and args.criterion == "auto":
        args.folds = DEFAULT_FOLDS      # grid.py's default: 5-fold cross-validation accuracy
    out_given = args.gridpy_out is not None
    if args.gridpy_out == "null":       # grid.py's -out null: no output file
        args.gridpy_out = None
    if args.folds is not None:
        if args.criterion not in ("auto", "radius-margin", "cv-error"):
            raise ValueError(f"-v {args.folds} sets the folds of the cv-error criterion; it "
                             f"cannot be combined with --criterion {args.criterion}")
        args.criterion = "cv-error"
        args.criterion_params = {"n_folds": args.folds}
    if args.gridpy_out is not None:
        if args.criterion != "cv-error":
            raise ValueError("-out writes grid.py's lines with rate = cross-validation accuracy; "
                             "give -v N (grid.py's default is -v 5) or --criterion cv-error")
        check_output_path(args.gridpy_out, "-out")
    if grid:
        if args.search not in ("bfgs", "grid"):
            raise ValueError(f"{', '.join(given)}: grid.py's options define a grid search; they "
                             f"cannot be combined with --search {args.search}")
        args.search = "grid"
        if not out_given and args.criterion == "cv-error":
            # grid.py's default output file: <dataset file name>.out in the current folder
            args.gridpy_out = default_out(args.train)
            try:
                check_output_path(args.gridpy_out, "-out")
            except ValueError as exc:
                raise ValueError(f"{exc} (grid.py's default output file; -out FILE writes "
                                 "elsewhere, -out null writes none)") from None
    if args.log2c == "null" and (args.log2g == "null" or args.kernel == "linear"):
        raise ValueError("-log2c and -log2g should not be null simultaneously (grid.py)")
    if args.kernel == "linear" and args.log2g not in (None, "null"):
        raise ValueError("-log2g sets gamma of the rbf kernel; the linear kernel has none")
    log2c = None if args.log2c == "null" else grid_values(*(args.log2c or DEFAULT_LOG2C))
    log2g = (None if args.log2g == "null" or args.kernel == "linear"
             else grid_values(*(args.log2g or DEFAULT_LOG2G)))
    gp = GridPy(log2c=log2c, log2g=log2g, folds=args.folds, out=args.gridpy_out, grid=grid,
                title=os.path.basename(os.fspath(args.train)))
    if args.gridpy_resume is not None:
        _cv_grid_only(args, grid, "-resume continues grid.py's grid of the cross-validation "
                      "accuracy")
        for option in ("--log", "--resume"):
            if getattr(args, option[2:], None) is not None:
                raise ValueError(f"-resume (grid.py's output file) and {option} (svmbound's "
                                 "search log) both resume a run; give one of them")
        gp.resume = args.gridpy_resume or default_out(args.train)
        if not os.path.isfile(gp.resume):
            raise ValueError(f"-resume {gp.resume}: file for resumption not found (grid.py)")
        gp.resumed = read_resume_file(gp.resume)
    if args.gridpy_png is not None:
        _cv_grid_only(args, grid, "-png draws grid.py's map of the cross-validation accuracy")
        if log2c is None or log2g is None:
            raise ValueError("-png draws the accuracy over log2(C) and log2(gamma); "
                             + ("-log2c null leaves no C axis" if log2c is None else
                                "the linear kernel has no gamma" if args.kernel == "linear"
                                else "-log2g null leaves no gamma axis")
                             + " (grid.py draws no map then either)")
        check_output_path(args.gridpy_png, "-png")
        _check_distinct(args)
        gp.png = args.gridpy_png
    return gp


def _check_distinct(args) -> None:
    """-png names a file of its own (``cli.check_outputs`` compares the other outputs)."""
    png = os.path.realpath(os.path.expanduser(args.gridpy_png))
    for option, attr in (("-out", "gridpy_out"), ("--model", "model"), ("--plot", "plot"),
                         ("--log", "log"), ("--resume", "resume"), ("-resume", "gridpy_resume")):
        path = getattr(args, attr, None)
        if path and os.path.realpath(os.path.expanduser(path)) == png:
            raise ValueError(f"{option} and -png name the same file {path}; give each its own")


def apply(gp: GridPy | None, args, X, y) -> Callable | None:
    """After loading the data: the grid axes (γ = 1/features needs X), the integer labels
    a LIBSVM model file needs, the class weights of -wi — still before the search. Returns the
    hook of -b 1 and -resume for ``cli.run_tune``'s estimator (:func:`estimator_hook`), or
    None."""
    labels = np.unique(y)
    if args.model is not None:
        check_int_labels(labels)
    weights = getattr(args, "gridpy_weights", None)
    if weights:
        known = {}
        for label, w in weights.items():
            match = labels[labels == label]
            if match.size:
                known[match[0].item()] = w
            else:                       # svm-train warns and goes on
                print(f"svmbound: warning: -w{label}: class label {label} is not in the "
                      f"training data; ignored (as svm-train)", file=sys.stderr, flush=True)
        args.class_weight = known or None
        if gp is not None and known:    # the rate of the grid: out of the summed weights
            gp.weight_total = float(sum(known.get(v.item(), 1.0) * np.count_nonzero(y == v)
                                        for v in labels))
    if gp is not None:
        gp.n_samples = X.shape[0]
    probability = bool(getattr(args, "gridpy_probability", False))
    resumed = gp is not None and gp.grid and bool(gp.resumed)
    hook = None
    if probability or resumed:
        hook = estimator_hook(probability=probability,
                              known=gp.known_value if resumed else None,
                              total=gp.total() if resumed else None)
    if gp is None or not gp.grid:
        return hook
    args.grid_log_c = list(gp.ln_c_axis())
    if args.kernel == "rbf":
        args.grid_log_sigma2 = list(gp.ln_sigma2_axis(X.shape[1]))
    return hook


# -- the estimator of run_tune (-b 1, -resume) --------------------------------------------------
def estimator_hook(probability: bool = False, known=None, total=None):
    """What grid.py's and svm-train's options change in the estimator ``cli.run_tune`` fits:
    a function that ``run_tune`` hands that estimator to before its fit. ``probability``
    (-b 1): ``probability=True``. ``known`` (-resume; θ → the criterion value from the file,
    or None) and ``total`` (what the CV errors are counted out of): the grid search's cv-error
    criterion answered from the file (:class:`_ResumedCriterion`), through the estimator's run
    control, which wraps every criterion the search evaluates."""

    def hook(est):
        if probability:
            est.probability = True
        if known is not None:
            start = est._start_run_control

            def start_run_control(*args, **kwargs):
                run, bar = start(*args, **kwargs)
                wrap = run.wrap

                def wrap_resumed(criterion, tag="search"):
                    if tag == "search" and getattr(criterion, "name", None) == "cv-error":
                        criterion = _ResumedCriterion(criterion, known, total)
                    return wrap(criterion, tag=tag)

                run.wrap = wrap_resumed
                return run, bar

            est._start_run_control = start_run_control
        return est

    return hook


class _ResumedCriterion:
    """The cv-error criterion of the grid search, its evaluations at the points of -resume's
    file answered from the file (no training; ``info['resumed']``); every other attribute is
    the wrapped criterion's."""

    def __init__(self, criterion, known, total):
        object.__setattr__(self, "_inner", criterion)
        object.__setattr__(self, "_known", known)
        object.__setattr__(self, "_total", total)

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __setattr__(self, name, value):
        setattr(self._inner, name, value)

    def evaluate(self, theta, need_grad: bool = True):
        value = self._known(theta)
        if value is None:
            return self._inner.evaluate(theta, need_grad=need_grad)
        return Evaluation(theta=np.array(theta, dtype=np.float64).ravel(), value=value,
                          grad=None, info={"resumed": True, "rate": value / self._total})


def finish(gp: GridPy | None, report: dict, n_samples: int, err=None, quiet=False,
           out=None, as_json=False) -> None:
    """After the search: write -out (with -resume: the new points appended), report grid.py's
    best point on stderr and, unless the report went out as JSON, grid.py's own stdout: a
    ``[resumed] …`` line per point of -resume's file, a ``[local] log2c log2g rate (best c=…,
    g=…, rate=…)`` line per point evaluated and last ``best_c best_g best_rate`` (what
    ``| tail -1`` scripts read)."""
    if gp is None or not gp.grid or report.get("criterion") != "cv-error":
        return
    err = sys.stderr if err is None else err
    if gp.n_samples is None:
        gp.n_samples = n_samples
    path = report["path"]
    lines = gp.lines(path, gp.total())
    keys = [gp.point(p["x"]) for p in path]
    resumed = resumed_lookup(gp.resumed)
    new = [i for i, key in enumerate(keys) if rounded_key(key) not in resumed]
    if gp.out is not None:
        text = "".join(lines[i] + "\n" for i in new if i < len(lines))
        if gp.resume is None:
            write_text_atomic(gp.out, "-out", text)
        else:                           # grid.py appends to its output file
            append_text_atomic(gp.out, "-out", text)
    rates = [cv_rate(p["value"], gp.total()) for p in path]
    chosen = [p["accepted"] for p in path].index(True)
    entries = ([("resumed", c, g, rate) for (c, g), rate in gp.resumed.items()]
               + [("local", *keys[i], rates[i]) for i in new])
    shown, best = gp.stdout_lines(entries, keys[chosen])
    if not as_json:
        out = sys.stdout if out is None else out
        print("\n".join(shown), file=out, flush=True)
    failed = None
    if gp.png is not None:
        points = [(c, g, rate) for (c, g), rate in zip(keys, rates)]
        try:
            write_atomic(gp.png, "-png", lambda tmp: plot_accuracy(
                points, tmp, best=points[chosen], title=gp.title))
        except OSError as exc:          # reported after the result
            failed = exc
    if not quiet:
        print(f"[svmbound] grid.py: best {lines[chosen]} (C = {report['C']:.6g}"
              + ("" if report.get("gamma") is None else f", gamma = {report['gamma']:.6g}")
              + ")", file=err, flush=True)
        if best is not None and best[:2] != keys[chosen]:
            print(f"[svmbound] grid.py: the best rate, {best[2]}, is that of "
                  f"{out_line(*best).rsplit(' ', 1)[0]} in -resume's file {gp.resume}, outside "
                  "this grid (the last line above, as grid.py); the model is trained at the "
                  "grid's best", file=err, flush=True)
        if gp.png is not None and failed is None:
            print(f"[svmbound] grid.py: map of the accuracy in {gp.png}", file=err, flush=True)
    if failed is not None:
        raise failed


