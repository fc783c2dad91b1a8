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
* ``check_output_path`` and ``write_atomic``: the checks of an output path before the search
  and the write by a temporary file and a rename, for every output file of ``tune``.

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
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .criteria.base import Evaluation
from .export import check_exportable, check_int_labels, range_path_of

#: grid.py's defaults (LIBSVM tools/grid.py).
DEFAULT_LOG2C = (-5.0, 15.0, 2.0)
DEFAULT_LOG2G = (3.0, -15.0, -2.0)
DEFAULT_FOLDS = 5
GRID_OPTIONS = ("-log2c", "-log2g")
_GRADIENT_SEARCHES = ("bfgs", "lbfgsb", "projected-gradient")
_LN2 = math.log(2.0)
#: hidden options that ``fix_argv`` makes of svm-train's ``-h 0|1`` and ``-wi weight``
SHRINKING_OPTION = "--svm-train-h"
WEIGHT_OPTION = "--svm-train-w"
_INT = re.compile(r"[+-]?\d+")
_WEIGHT = re.compile(r"-w([+-]?\d+)")
SVM_TYPES = {0: "C-SVC", 1: "nu-SVC", 2: "one-class SVM", 3: "epsilon-SVR", 4: "nu-SVR"}
KERNEL_TYPES = {0: "linear", 1: "poly", 2: "rbf"}
#: svm-train's options that svmbound refuses, and why
REFUSED = {
    "-c": "use -log2c and -log2g (grid.py); a fixed C is -log2c L,L,1 with L = log2(C)",
    "-g": "use -log2c and -log2g (grid.py); a fixed gamma is -log2g L,L,1 with L = "
          "log2(gamma)",
    "-r": "svm-train's coef0 of the polynomial and sigmoid kernels; svmbound tunes the "
          "polynomial kernel's c itself (--coef0 sets where its search starts)",
    "-n": "svm-train's nu of nu-SVC, the one-class SVM and nu-SVR; grid.py's options tune "
          "svm-train's C-SVC (-s 0)",
    "-p": "svm-train's epsilon of epsilon-SVR; grid.py's options tune svm-train's C-SVC (-s 0) "
          "(for regression use --svr, without grid.py's options)",
}


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


@dataclass
class GridPy:
    """The grid.py options of one ``svmbound tune`` call, resolved."""

    log2c: list | None        # grid.py's sequence of log2 C, None for null
    log2g: list | None        # grid.py's sequence of log2 gamma, None for null / no gamma
    folds: int | None         # -v
    out: str | None           # -out (grid.py's default <dataset>.out), None for -out null
    grid: bool                # the grid search over the grid.py grid
    weight_total: float | None = None   # Σ w of the rows with -wi class weights (else None)
    resume: str | None = None           # -resume's file
    #: -resume: the file's points {(log2c, log2g): rate} in its order (None for a null axis)
    resumed: dict = field(default_factory=dict)
    n_samples: int | None = None        # rows of the training data (set by ``apply``)
    png: str | None = None              # -png
    title: str = ""                     # the training file's name (grid.py's plot title)

    def ln_c_axis(self):
        """(begin, end, step) of ln C for ``--grid-log-c``."""
        if self.log2c is None:
            return (0.0, 0.0, 1.0)
        step = (self.log2c[1] - self.log2c[0]) if len(self.log2c) > 1 else 1.0
        return (self.log2c[0] * _LN2, self.log2c[-1] * _LN2, step * _LN2)

    def ln_sigma2_axis(self, n_features=None):
        """(begin, end, step) of ln σ² = −(log2 γ + 1)·ln 2 for ``--grid-log-sigma2``; for
        ``-log2g null`` the single point γ = 1/n_features."""
        if self.log2g is None:
            v = math.log(n_features / 2.0)            # LIBSVM's default γ = 1/n_features
            return (v, v, 1.0)
        step = (self.log2g[1] - self.log2g[0]) if len(self.log2g) > 1 else -1.0
        return (-(self.log2g[0] + 1.0) * _LN2, -(self.log2g[-1] + 1.0) * _LN2, -step * _LN2)

    def point(self, x):
        """(log2c, log2g) of the grid point x = (ln C[, ln σ²]) (None for a null axis), or
        None when x is not a point of the grid."""
        key = []
        for values, k, axis in ((self.log2c, 0, self.ln_c_axis),
                                (self.log2g, 1, self.ln_sigma2_axis)):
            if values is None:
                key.append(None)
                continue
            begin, _, step = axis()
            i = int(round((x[k] - begin) / step))
            if not 0 <= i < len(values) or abs(begin + i * step - x[k]) > 1e-6 * abs(step):
                return None
            key.append(values[i])
        return tuple(key)

    def lines(self, path, n_samples) -> list[str]:
        """grid.py's output lines for the evaluated points of a grid search (``path``: the
        search result's path, x = (ln C[, ln σ²]), value = number of CV errors)."""
        out = []
        for p in path:
            c, g = self.point(p["x"])
            out.append(_line(c, g, cv_rate(p["value"], n_samples)))
        return out

    def total(self) -> float:
        """What the CV errors are counted out of: the rows, or Σ w with class weights."""
        return self.n_samples if self.weight_total is None else self.weight_total

    def resumed_rate(self, key):
        """The rate -resume's file gives the point ``key`` (log2c, log2g), or None."""
        return _resumed_lookup(self.resumed).get(_rounded(key))

    def known_value(self, theta):
        """The criterion value (number of CV errors, Σ w over them with class weights) at the
        grid point θ from -resume's file, or None when the file does not have the point."""
        key = self.point(np.asarray(theta, dtype=float))
        rate = None if key is None else self.resumed_rate(key)
        if rate is None:
            return None
        errors = self.total() * (100.0 - rate) / 100.0
        return float(round(errors)) if self.weight_total is None else errors

    def stdout_lines(self, entries, chosen) -> tuple[list[str], tuple | None]:
        """grid.py's stdout for ``entries`` [(worker, log2c, log2g, rate)]: per point
        ``[worker] log2c log2g rate (best c=…, g=…, rate=…)`` with the best so far — the
        first of the largest rate, or the search's ``chosen`` (log2c, log2g) among equal
        rates, so that the best is the point the model was trained at — then ``best_c best_g
        best_rate`` with c = 2^log2c and g = 2^log2g. Returns (the lines, the best
        (log2c, log2g, rate))."""
        out, best = [], None
        for worker, c, g, rate in entries:
            if best is None or rate > best[2] or (rate == best[2] and (c, g) == chosen):
                best = (c, g, rate)
            shown = [str(v) for v in (c, g) if v is not None]
            best_txt = ", ".join([f"{n}={2.0 ** v}" for n, v in zip("cg", best[:2])
                                  if v is not None] + [f"rate={best[2]}"])
            out.append(f"[{worker}] {' '.join(shown)} {rate} (best {best_txt})")
        if best is not None:
            last = [str(2.0 ** v) for v in best[:2] if v is not None] + [str(best[2])]
            out.append(" ".join(last))
        return out, best


def _line(c, g, rate) -> str:
    """grid.py's output line of one point."""
    return (f"log2c={c} " * (c is not None) + f"log2g={g} " * (g is not None)
            + f"rate={rate}")


def _rounded(key):
    return tuple(None if v is None else round(float(v), 9) for v in key)


def _resumed_lookup(resumed: dict) -> dict:
    return {_rounded(k): v for k, v in resumed.items()}


def read_resume_file(path) -> dict:
    """grid.py's reading of a -resume file: {(log2c, log2g): rate} from every line with a
    ``rate=``; a point given twice keeps its first place and its last rate (grid.py's dict)."""
    found = {}
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            for line in fh:
                rate = re.findall(r"rate=([0-9.]+)", line)
                if not rate:
                    continue
                c = re.findall(r"log2c=([0-9.-]+)", line)
                g = re.findall(r"log2g=([0-9.-]+)", line)
                try:
                    key = (float(c[0]) if c else None, float(g[0]) if g else None)
                    found[key] = float(rate[0])
                except ValueError:
                    raise ValueError(f"-resume {path}: cannot read the line {line.strip()!r} "
                                     "(grid.py's 'log2c=.. log2g=.. rate=..')") from None
    except OSError as exc:
        raise ValueError(f"-resume {path}: cannot read it ({exc.strerror or exc})") from None
    return found


def default_out(train) -> str:
    """grid.py's default ``-out``: ``<dataset file name>.out``, in the current folder."""
    return f"{os.path.basename(os.fspath(train))}.out"


def cv_rate(n_errors, n_samples) -> float:
    """Cross-validation accuracy in percent as svm-train prints it (``%g``) and grid.py reads it.
    With class weights ``n_errors`` is Σ w over the errors and ``n_samples`` Σ w (a weighted
    accuracy)."""
    if abs(n_errors - round(n_errors)) < 1e-9:
        n_errors = round(n_errors)
    return float(f"{100.0 * (n_samples - n_errors) / n_samples:g}")


# -- output files (issue 29, item 11) ----------------------------------------------------------
def _destination(path) -> Path:
    """Where writing ``path`` lands: the file a symbolic link points to (replacing the link by
    a file would change what the user gave)."""
    p = Path(path).expanduser()
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def check_output_path(path, option: str) -> None:
    """Raise a ValueError naming ``option`` unless ``path`` can be written the way
    :func:`write_atomic` writes it: not a folder; its folder exists and a file can be created
    there (probed with a temporary file, removed at once); an existing regular file must be
    writable. Called before a search, so that a typo in an output path does not cost the whole
    search."""
    p = _destination(path)
    if p.is_dir():
        raise ValueError(f"{option} {path} is a folder, not a file name")
    folder = p.parent
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: folder {folder} does not exist")
    if p.exists() and not p.is_file():        # /dev/null, a pipe: written in place
        if not os.access(p, os.W_OK):
            raise ValueError(f"{option} {path}: cannot write there (not writable)")
        return
    if p.exists() and not os.access(p, os.W_OK):
        raise ValueError(f"{option} {path}: the file exists and is not writable")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{p.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None


def write_atomic(path, option: str, write) -> None:
    """``write(tmp)`` writes the file at the path ``tmp``, a new file in the folder of ``path``
    with the same suffix (matplotlib picks the image format by it); once it has written and
    synced, ``tmp`` replaces ``path`` (``os.replace``): a full disk or an error leaves no
    partial file, and an existing file as it was. The new file has the permissions an
    ordinary ``open`` gives it (or those of the file it replaces). A path that exists and is
    not a regular file (``/dev/null``, a pipe) is written in place. Errors: an ``OSError``
    naming ``option`` and the path."""
    p = _destination(path)
    if p.exists() and not p.is_file():
        try:
            write(os.fspath(p))
        except OSError as exc:
            raise _write_error(exc, f"{option} {path}: cannot write ({exc.strerror or exc})") \
                from None
        return
    try:
        mode = p.stat().st_mode & 0o7777
    except OSError:
        mode = 0o666 & ~_umask()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=p.suffix)
        os.close(fd)
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        os.replace(tmp, p)
        tmp = None
    except OSError as exc:
        raise _write_error(exc, f"{option} {path}: cannot write ({exc.strerror or exc}); "
                           f"{'the file is unchanged' if p.exists() else 'no file was written'}") \
            from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _write_error(exc: OSError, message: str) -> OSError:
    """An OSError whose text is ``message`` alone, with the errno of ``exc``."""
    err = OSError(message)
    err.errno = exc.errno
    return err


def write_text_atomic(path, option: str, text: str) -> None:
    """:func:`write_atomic` of an ASCII text."""
    def write(tmp):
        with open(tmp, "w", encoding="ascii") as fh:
            fh.write(text)

    write_atomic(path, option, write)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _number(option, text, what, low=None, high=None, integer=False):
    """The value of an svm-train option, a ValueError naming it unless a number in [low, high]
    (an integer with ``integer``)."""
    try:
        v = int(text) if integer else float(text)
    except (TypeError, ValueError):
        v = None
    if v is None or not math.isfinite(v) or (low is not None and v < low) or (
            high is not None and v > high):
        raise ValueError(f"{option} {text}: expected {what}")
    return v


def _note(args, text) -> None:
    if not args.quiet:
        print(f"[svmbound] note: {text}", file=sys.stderr, flush=True)


def _svm_train_options(args) -> list[str]:
    """svm-train's options (module docstring) turned into tune options, or a ValueError naming
    the first refused one. Returns the options given."""
    given = []
    if args.svm_q:
        args.quiet = True
        given.append("-q")
    for option in REFUSED:
        value = getattr(args, f"svm_{option[1]}", None)
        if value is not None:
            raise ValueError(f"svm-train option {option} {value} is not supported: "
                             f"{REFUSED[option]}")
    if args.svm_s is not None:
        v = _number("-s", args.svm_s, "an svm type, 0 to 4", integer=True)
        if v != 0:
            kind = SVM_TYPES.get(v)
            raise ValueError(
                f"svm-train option -s {args.svm_s}"
                + (f" ({kind})" if kind else "") + " is not supported: svmbound tunes "
                "svm-train's C-SVC (-s 0)"
                + (", the only svm type of grid.py's options; for regression use --svr "
                   "(without grid.py's options)" if v in (3, 4) else ""))
        given.append("-s")
    if args.svm_t is not None:
        v = _number("-t", args.svm_t, "a kernel type: 0 linear, 1 polynomial, 2 rbf",
                    integer=True)
        if v in (3, 4):
            raise ValueError(f"svm-train option -t {args.svm_t} "
                             f"({'sigmoid' if v == 3 else 'precomputed'} kernel) is not "
                             "supported: svmbound tunes the linear (-t 0), polynomial (-t 1) "
                             "and rbf (-t 2) kernels (and --kernel ard, ard-poly)")
        if v not in KERNEL_TYPES:
            raise ValueError(f"-t {args.svm_t}: expected a kernel type: 0 linear, 1 polynomial, "
                             "2 rbf")
        if args.kernel not in ("rbf", KERNEL_TYPES[v]):
            raise ValueError(f"-t {args.svm_t} ({KERNEL_TYPES[v]}) and --kernel {args.kernel} "
                             "disagree; give one of them")
        args.kernel = KERNEL_TYPES[v]
        given.append("-t")
    if args.svm_d is not None:
        if args.kernel != "poly":
            raise ValueError(f"svm-train option -d {args.svm_d} sets the degree of the "
                             f"polynomial kernel (-t 1); the {args.kernel} kernel has none")
        args.degree = [_number("-d", args.svm_d, "a degree >= 1", low=1, integer=True)]
        given.append("-d")
    if args.svm_m is not None:
        v = _number("-m", args.svm_m, "the kernel cache in MB, a number > 0", low=0.0)
        if v <= 0:
            raise ValueError(f"-m {args.svm_m}: expected the kernel cache in MB, a number > 0")
        if args.cache_size not in ("auto", v):
            raise ValueError(f"-m {args.svm_m} and --cache-size {args.cache_size:g} disagree; "
                             "give one of them")
        args.cache_size = v
        given.append("-m")
    if args.svm_e is not None:
        args.tol = _number("-e", args.svm_e, "the stopping tolerance, a number in [1e-14, 1]",
                           low=1e-14, high=1.0)
        given.append("-e")
    if args.svm_h is not None:
        v = _number("-h", args.svm_h, "0 or 1 (shrinking heuristics)", 0, 1, integer=True)
        if v == 0:
            _note(args, "-h 0: svmbound's SMO solver always uses shrinking (svm-train's -h 1); "
                        "ignored")
        given.append("-h")
    args.gridpy_probability = False
    if args.svm_b is not None:
        v = _number("-b", args.svm_b, "0 or 1 (probability estimates)", 0, 1, integer=True)
        args.gridpy_probability = v == 1
        given.append("-b")
    args.gridpy_weights = None
    if args.svm_w:
        weights = {}
        for text in args.svm_w:
            label, _, value = text.partition(",")
            option = f"-w{label}"
            if not value:
                raise ValueError(f"svm-train option {option} needs a weight (-w{label} W: C of "
                                 f"class {label} times W)")
            if int(label) in weights:
                raise ValueError(f"{option} is given twice")
            weights[int(label)] = _number(option, value, "a weight >= 0", low=0.0)
        if getattr(args, "class_weight", None) is not None:
            raise ValueError(f"-w{next(iter(weights))} and --class-weight "
                             f"{args.class_weight} both set class weights; give one of them")
        args.gridpy_weights = weights
        given.append("-w")
    return given


def _tool_options(args) -> list[str]:
    """grid.py's -svmtrain and -gnuplot: accepted, with one note."""
    given = [o for o, v in (("-svmtrain", args.gridpy_svmtrain),
                            ("-gnuplot", args.gridpy_gnuplot)) if v is not None]
    noted = [o for o in given if not (o == "-gnuplot" and args.gridpy_gnuplot == "null")]
    if noted:
        _note(args, f"grid.py's {' and '.join(noted)} {'is' if len(noted) == 1 else 'are'} not "
                    "needed: svmbound trains the SVMs itself and draws -png with matplotlib; "
                    "ignored")
    return given


#: (option, attribute) of the options that only mean something for the classifier grid.py
#: tunes, refused with --svr (``cli.SVR_REFUSED`` checks -log2c, -log2g, -v and -out)
_NOT_WITH_SVR = (("-resume", "gridpy_resume"), ("-png", "gridpy_png"),
                 ("-svmtrain", "gridpy_svmtrain"), ("-gnuplot", "gridpy_gnuplot"),
                 ("-s", "svm_s"), ("-t", "svm_t"), ("-d", "svm_d"), ("-m", "svm_m"),
                 ("-e", "svm_e"), ("-h", "svm_h"), ("-b", "svm_b"), ("-wi", "svm_w"),
                 ("-c", "svm_c"), ("-g", "svm_g"), ("-r", "svm_r"), ("-n", "svm_n"),
                 ("-p", "svm_p"), ("-q", "svm_q"))


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
    libsvm = _svm_train_options(args)
    given = [o for o, v in (("-log2c", args.log2c), ("-log2g", args.log2g), ("-v", args.folds),
                            ("-out", args.gridpy_out), ("-resume", args.gridpy_resume),
                            ("-png", args.gridpy_png)) if v is not None]
    given += _tool_options(args)
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
        if not grid or args.criterion != "cv-error":
            raise ValueError("-resume continues grid.py's grid of the cross-validation "
                             "accuracy; it cannot be combined with "
                             + (f"--search {args.search}" if not grid
                                else f"--criterion {args.criterion}"))
        for option in ("--log", "--resume"):
            if getattr(args, option[2:], None) is not None:
                raise ValueError(f"-resume (grid.py's output file) and {option} (svmbound's "
                                 "search log) both resume a run; give one of them")
        gp.resume = args.gridpy_resume or default_out(args.train)
        if not os.path.isfile(gp.resume):
            raise ValueError(f"-resume {gp.resume}: file for resumption not found (grid.py)")
        gp.resumed = read_resume_file(gp.resume)
    if args.gridpy_png is not None:
        if not grid or args.criterion != "cv-error":
            raise ValueError("-png draws grid.py's map of the cross-validation accuracy; it "
                             "cannot be combined with "
                             + (f"--search {args.search}" if not grid
                                else f"--criterion {args.criterion}"))
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
    resumed = _resumed_lookup(gp.resumed)
    new = [i for i, key in enumerate(keys) if _rounded(key) not in resumed]
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
                  f"{_line(*best).rsplit(' ', 1)[0]} in -resume's file {gp.resume}, outside "
                  "this grid (the last line above, as grid.py); the model is trained at the "
                  "grid's best", file=err, flush=True)
        if gp.png is not None and failed is None:
            print(f"[svmbound] grid.py: map of the accuracy in {gp.png}", file=err, flush=True)
    if failed is not None:
        raise failed


def append_text_atomic(path, option: str, text: str) -> None:
    """:func:`write_atomic` of the file at ``path`` (if it is a regular file) followed by the
    ASCII ``text`` on lines of its own."""
    p = _destination(path)
    old = p.read_bytes() if p.is_file() else b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    data = old + text.encode("ascii")

    def write(tmp):
        with open(tmp, "wb") as fh:
            fh.write(data)

    write_atomic(path, option, write)


def plot_accuracy(points, file, *, best, title=""):
    """Write grid.py's picture as a PNG: contours of the cross-validation accuracy (%) over
    log2(C) (x) and log2(gamma) (y) at ``points`` [(log2c, log2g, rate)], with grid.py's
    contour lines (every 0.5 % from 3 % below the best rate) over filled contours, the
    evaluated points as dots and ``best`` (log2c, log2g, rate) marked, labelled as grid.py's
    gnuplot map ('Best log2(C) = … log2(gamma) = … accuracy = …%', 'C = … gamma = …').
    Points that do not span two values on each axis, or one rate everywhere, are drawn as dots
    coloured by their rate. Points missing from the rectangle of the axes' values are left
    blank. The file is PNG whatever its name. Returns the file name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    P = np.asarray(points, dtype=float).reshape(-1, 3)
    cs, gs = np.unique(P[:, 0]), np.unique(P[:, 1])
    Z = np.full((gs.size, cs.size), np.nan)
    Z[np.searchsorted(gs, P[:, 1]), np.searchsorted(cs, P[:, 0])] = P[:, 2]
    lo, hi = float(np.nanmin(Z)), float(np.nanmax(Z))
    fig, ax = plt.subplots(figsize=(6.4, 5.4))
    if cs.size > 1 and gs.size > 1 and hi > lo and np.count_nonzero(np.isfinite(Z)) >= 4:
        CC, GG = np.meshgrid(cs, gs)
        Zm = np.ma.masked_invalid(Z)
        levels = MaxNLocator(15).tick_values(lo, hi)
        filled = ax.contourf(CC, GG, Zm, levels=levels, cmap="viridis")
        fig.colorbar(filled, ax=ax, label="cross-validation accuracy (%)")
        steps = np.arange(round(hi) - 3.0, hi + 1e-9, 0.5)      # grid.py's gnuplot levels
        steps = steps[(steps > lo) & (steps < hi)]
        if steps.size:
            lines = ax.contour(CC, GG, Zm, levels=steps, colors="k", linewidths=0.8)
            ax.clabel(lines, fmt="%g", fontsize=7)
        ax.plot(P[:, 0], P[:, 1], ".", color="white", ms=3)
    else:
        dots = ax.scatter(P[:, 0], P[:, 1], c=P[:, 2], cmap="viridis", s=40,
                          vmin=lo, vmax=hi if hi > lo else lo + 1.0)
        fig.colorbar(dots, ax=ax, label="cross-validation accuracy (%)")
    bc, bg, rate = best
    ax.plot(bc, bg, "*", color="orange", mec="k", ms=16, label="best")
    ax.set_xlabel("log2(C)")
    ax.set_ylabel("log2(gamma)")
    ax.set_title(f"{title}\nBest log2(C) = {bc:g}  log2(gamma) = {bg:g}  accuracy = {rate:g}%\n"
                 f"C = {2.0 ** bc:g}  gamma = {2.0 ** bg:g}".lstrip("\n"), fontsize=9)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(file, dpi=100, format="png")
    plt.close(fig)
    return file
