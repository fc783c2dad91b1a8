"""Helpers shared by the tune paths: run control (log, resume, progress, SIGTERM), model files."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import warnings

from . import plots, svm_scale
from .bound_svr import BoundSVR
from .cli_output import check_output_path, write_atomic
from .cli_report import cv_results_report, jsonable_floats, report_interrupted
from .criteria import ALIAS_TARGETS, CRITERIA
from .estimators import BoundSVC
from .exceptions import DataWarning
from .kernels import ARD_KERNELS
from .libsvm_model import libsvm_range_text, range_path_of, write_libsvm_model
from .progress import stderr_is_terminal
from .solvers.interrupt import in_jit_compiler, send_again_later, sigint_handler
from .strategy import ISOTROPIC_CONFIG


class _DefaultSubsample:
    """The default of --tune-subsample: the estimator's (BoundSVC 5000, BoundSVR 3000)."""

    def __repr__(self):
        return "default"


_DEFAULT_SUBSAMPLE = _DefaultSubsample()


def _tune_subsample(args, task: str = "classification"):
    """--tune-subsample for the estimator of ``task`` (its own default when not given)."""
    value = getattr(args, "tune_subsample", _DEFAULT_SUBSAMPLE)
    if isinstance(value, _DefaultSubsample):
        est = BoundSVR if task == "regression" else BoundSVC
        return est().get_params()["tune_subsample"]
    return value


# -- interruption, search log, progress (issue 15) --------------------------------------------
#: Exit status after Ctrl-C (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 130
#: Exit status after SIGTERM (128 + SIGTERM), what batch systems send at a time limit.
EXIT_TERMINATED = 143


class _Termination:
    """SIGTERM handled as Ctrl-C while a command runs (issue 29, item 12): the handler raises
    KeyboardInterrupt in the main thread, so that the best point so far is reported exactly as
    after Ctrl-C, and remembers that it was SIGTERM (``main`` then exits with 143).

    Where Ctrl-C is deferred — ``solvers.interrupt.call_here`` swaps SIGINT's handler for one
    that only records the signal while a short numba call runs, since an exception raised in
    the numba dispatcher turns into a SystemError — the SIGTERM is handed to that handler as a
    SIGINT, and raised when the call returns, under the handler it replaced. When SIGINT was
    ignored at the start (a background job of a script), it stays ignored, but through a
    Python handler that raises a SIGTERM handed over that way (SIG_IGN would drop it).
    A second SIGTERM while the first is handled is ignored, so that the report is written. A
    SIGTERM or Ctrl-C that lands inside numba's or llvmlite's own Python code
    (``solvers.interrupt.in_jit_compiler``) is sent to the main thread again ``RESEND_S``
    later, while the command still runs, instead of raising there (Ctrl-C through a handler
    that is Python's ``default_int_handler`` otherwise).
    """

    def __init__(self):
        self.sigterm = False           # a SIGTERM arrived
        self._pending = False          # handed to a deferring SIGINT handler
        self._raised = False
        self._saved = []               # (signal number, handler to restore)
        #: Ctrl-C while the command runs when SIGINT's handler was Python's own: the same,
        #: but sent again later from the JIT compiler's code
        self._on_sigint = sigint_handler(self.running)

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self
        try:
            self._saved.append((signal.SIGTERM, signal.signal(signal.SIGTERM, self._on_sigterm)))
            sigint = signal.getsignal(signal.SIGINT)
            if sigint == signal.SIG_IGN:
                self._saved.append((signal.SIGINT,
                                    signal.signal(signal.SIGINT, self._on_ignored_sigint)))
            elif sigint is signal.default_int_handler:
                self._saved.append((signal.SIGINT, signal.signal(signal.SIGINT, self._on_sigint)))
        except ValueError:             # not the main interpreter: signals stay as they are
            pass
        return self

    def __exit__(self, *exc):
        for signum, handler in reversed(self._saved):
            signal.signal(signum, handler)
        self._saved.clear()
        return False

    def _on_sigterm(self, signum, frame):
        self.sigterm = True
        if self._raised or self._pending:
            return
        if in_jit_compiler(frame):
            send_again_later(signum, self.running)
            return
        handler = signal.getsignal(signal.SIGINT)
        if (callable(handler) and handler is not signal.default_int_handler
                and handler != self._on_ignored_sigint and handler != self._on_sigint):
            self._pending = True       # Ctrl-C is deferred: defer this one the same way
            handler(signal.SIGINT, frame)
            return
        self._raised = True
        raise KeyboardInterrupt

    def running(self) -> bool:
        """Whether the command still runs (its handlers in place): only then is a signal sent
        again."""
        return bool(self._saved)

    def _on_ignored_sigint(self, signum, frame):
        if self._pending and not self._raised:     # the SIGTERM, handed over
            self._raised = True
            raise KeyboardInterrupt
        # a Ctrl-C: ignored, as SIGINT was when the command started


def run_control_kwargs(args, err=None) -> dict:
    """BoundSVC's verbose/progress/log_file/resume from --quiet/--progress/--log/--resume.

    The progress bar is on with --progress, or on a terminal without --quiet; the per-iteration
    lines of earlier versions are printed instead when stderr is not a terminal (logs, pipes),
    without --quiet. --log refuses an existing non-empty file (use --resume to continue it).
    """
    err = sys.stderr if err is None else err
    log = getattr(args, "log", None)
    resume = getattr(args, "resume", None)
    check_log_options(args)
    bar = bool(getattr(args, "progress", False)) or (not args.quiet and stderr_is_terminal(err))
    if resume is not None and not args.quiet:
        what = ("resuming the run logged in" if os.path.exists(resume)
                else "no log yet: starting a new one in")
        print(f"[svmbound] {what} {resume}", file=err, flush=True)
    return {"verbose": 0 if (args.quiet or bar) else 1, "progress": bar,
            "log_file": resume if resume is not None else log, "resume": resume is not None}


def check_log_options(args) -> None:
    """--log and --resume: one file, not a folder, in a folder where a file can be created;
    --log refuses an existing non-empty file (--resume continues it). ValueErrors naming the
    option."""
    log = getattr(args, "log", None)
    resume = getattr(args, "resume", None)
    if log is not None and resume is not None and os.path.abspath(log) != os.path.abspath(resume):
        raise ValueError(f"--log {log} and --resume {resume} name different files; --resume "
                         "FILE alone continues FILE and logs to it")
    for option, path in (("--resume", resume), ("--log", log)):
        if path is not None:
            check_output_path(path, option)
    if resume is None and log is not None and os.path.isfile(log) and os.path.getsize(log) > 0:
        raise ValueError(f"log file {log} exists: continue that run with --resume {log}, or "
                         "remove it")


#: The ``_Termination`` of the running ``main`` (read when reporting an interruption).
_TERMINATION = [None]


def _degree_arg(values):
    """--degree D (fixed) or --degree LOW HIGH (searched by annealing)."""
    if len(values) == 1:
        return values[0]
    if len(values) == 2:
        return tuple(values)
    raise ValueError(f"--degree takes one degree or a range LOW HIGH, got {len(values)} values")


def _criteria_of(task: str) -> list:
    """The names of the criteria of ``task`` ('classification', 'regression'), sorted."""
    return sorted(n for n, c in CRITERIA.items() if c.task == task)


def _criterion_task(name) -> str | None:
    """'classification' or 'regression' for a criterion name (aliases included); None for
    'auto' and unknown names (the estimator names the valid ones)."""
    if name == "radius-margin":
        return "classification"
    cls = CRITERIA.get(ALIAS_TARGETS.get(name, name))
    return None if cls is None else cls.task


def write_model_files(args, est, libsvm_model, scaling, base: int, report: dict) -> list:
    """``--model``: the LIBSVM model file of the fitted ``est`` and, where the model needs its
    inputs scaled (``scaling``: ``--scale``'s ranges; an ARD kernel, whose ``LibsvmModel`` is
    ``libsvm_model()``), svm-scale's range file beside it — both numbering the features from
    ``base``, as the training file does (a zero-based file's model reads that file's feature
    numbers) — so that ``svm-scale -r FILE.range test | svm-predict`` gives the reported
    predictions. Sets
    ``report["model"]`` (and ``"range_file"``); returns the OSErrors of files not written."""
    try:
        text = None             # svm-scale's range file: --scale, then an ARD model's 1/σ_k
        if scaled_model(args, est):
            model = libsvm_model()
            write_atomic(args.model, "--model",
                         lambda p: write_libsvm_model(model, p, range_path=False, base=base))
            text = (libsvm_range_text(model, base) if scaling is None else
                    svm_scale.ard_range_text(scaling, model.feature_scale, base))
        else:
            write_atomic(args.model, "--model",
                         lambda p: est.save_libsvm_model(p, zero_based=base == 0))
            if scaling is not None:
                text = svm_scale.range_text(scaling, base)
        if text is not None:
            def write_range(path):
                with open(path, "w") as fh:
                    fh.write(text)

            write_atomic(range_path_of(args.model), "--model", write_range)
            report["range_file"] = range_path_of(args.model)
            zero = svm_scale.scaled_zero_of_index0(text) if base == 0 else None
            if zero is not None and zero != 0.0:
                warnings.warn(f"svmbound: {range_path_of(args.model)} numbers the features from 0, "
                              f"as the training file: svm-scale fills a line's missing features "
                              f"from index 1 on, so a line without feature 0 keeps 0 there where "
                              f"the model expects {zero:.6g}; write 0:0 into such lines before "
                              f"svm-scale -r, or number the features from 1", DataWarning,
                              stacklevel=2)
        report["model"] = args.model
    except OSError as exc:
        return [exc]
    return []


def estimator_params(args, degree, err, task: str = "classification") -> dict:
    """The parameters of the estimator of ``task`` (BoundSVC, BoundSVR) that both tune paths
    take from the options: loss, criterion, kernel (``degree``: ``_degree_arg``'s), the search
    (with --search grid its grid: ln C and, for the rbf kernel, ln σ²), the solver's, the run
    control (``run_control_kwargs``) and --tune-subsample."""
    grid_spec = None
    if args.search == "grid":
        grid_spec = {"log_C": tuple(args.grid_log_c)}
        if args.kernel == "rbf":
            grid_spec["log_sigma2"] = tuple(args.grid_log_sigma2)
    return dict(loss=args.loss, criterion=args.criterion, kernel=args.kernel,
                search=args.search, start=args.start, grid=grid_spec, degree=degree,
                coef0=args.coef0, tol=args.tol, max_iter=args.max_iter,
                max_epochs=args.max_epochs, cache_size=args.cache_size,
                random_state=args.random_state, n_jobs=getattr(args, "n_jobs", 1),
                **run_control_kwargs(args, err),
                tune_subsample=_tune_subsample(args, task),
                **({"strategy_config": ISOTROPIC_CONFIG}
                   if getattr(args, "isotropic", False) and task == "classification" else {}))


def fit_reporting_interruption(est, X, y, args, out, t0) -> None:
    """``est.fit(X, y)``; after Ctrl-C or SIGTERM the best point so far is printed
    (``report_interrupted``) before the KeyboardInterrupt goes on to ``main``."""
    try:
        est.fit(X, y)
    except KeyboardInterrupt:
        term = _TERMINATION[0]
        report_interrupted(est, args, out, t0,
                           "SIGTERM" if term is not None and term.sigterm else "SIGINT")
        raise


def add_search_details(report: dict, est, args) -> None:
    """The entries of the report that both tune paths add after the fit: the default
    strategy's candidates (and its subsample), GridSearchCV's ``cv_results_`` (scores: a
    regressor's negated CV MSE), the chosen degree and coef0 of the polynomial kernels and the
    scaling factors of the ARD kernels."""
    res, bp = est.search_, est.best_params_
    if "candidates" in res:
        report["chosen"] = res.chosen
        report["candidates"] = res.candidates
        report["subsample"] = res.get("subsample")
    if hasattr(est, "cv_results_"):       # GridSearchCV's keys, JSON-ready
        report["best_score"] = float(est.best_score_)
        report["cv_results"] = cv_results_report(est.cv_results_)
    if "degree" in bp:
        report["degree"] = int(bp["degree"])
    if "coef0" in bp:
        report["coef0"] = float(bp["coef0"])
    if scaled_model(args, est):
        report["scaling_factors"] = jsonable_floats(est.kernel_.scaling_factors)


def scaled_model(args, est) -> bool:
    """Whether the fitted model has an ARD kernel: --kernel ard/ard-poly, or the default's
    per-feature candidate chosen (``feature_scales_``)."""
    return args.kernel in ARD_KERNELS or getattr(est, "feature_scales_", None) is not None


def print_report(report: dict, failed: list, args, out, summary) -> dict:
    """Print the report of a tuning — one JSON object with --json, else ``summary(report)`` —
    with the errors of the output files that could not be written (``failed``, OSErrors) in
    ``output_errors``; then raise the first of them (the result is printed, the exit status
    says it failed). Returns the report."""
    if failed:
        report["output_errors"] = [str(exc) for exc in failed]
    if args.json:
        print(json.dumps(report), file=out, flush=True)
    else:
        print(summary(report), file=out, flush=True)
    if failed:                  # the result is printed above; the exit status says it failed
        raise failed[0]
    return report


def plot_scales_file(args, est, report, err) -> list:
    """--plot-scales: the chosen model's 1/σ_k (``plots.plot_feature_scales``); an isotropic
    model has none: no file, a note on stderr and ``report["plot_scales"]`` None. Returns the
    OSErrors of a file not written."""
    scales = getattr(est, "feature_scales_", None)
    report["plot_scales"] = None
    if scales is None:
        print("[svmbound] --plot-scales: the chosen model has one sigma^2 for every feature; "
              "no per-feature scales to draw, no file written", file=err, flush=True)
        return []
    try:
        write_atomic(args.plot_scales, "--plot-scales",
                     lambda tmp: plots.plot_feature_scales(scales, tmp))
    except OSError as exc:
        return [exc]
    report["plot_scales"] = args.plot_scales
    return []
