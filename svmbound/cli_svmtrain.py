"""svm-train's options (grid.py passes them on) and -svmtrain/-gnuplot, as tune options."""

from __future__ import annotations

import math
import sys

SVM_TYPES = {0: "C-SVC", 1: "nu-SVC", 2: "one-class SVM", 3: "epsilon-SVR", 4: "nu-SVR"}
KERNEL_TYPES = {0: "linear", 1: "poly", 2: "rbf"}
#: tune's --degree and --tol when not given (``cli.py``): an svm-train -d or -e that differs from
#: a value given to them is refused as -t/--kernel and -m/--cache-size are
DEFAULT_DEGREE = 3
DEFAULT_TOL = 1e-6
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


def svm_train_options(args) -> list[str]:
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
        v = _number("-d", args.svm_d, "a degree >= 1", low=1, integer=True)
        if list(args.degree) not in ([DEFAULT_DEGREE], [v]):
            raise ValueError(f"-d {args.svm_d} and --degree "
                             f"{' '.join(map(str, args.degree))} disagree; give one of them")
        args.degree = [v]
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
        v = _number("-e", args.svm_e, "the stopping tolerance, a number in [1e-14, 1]",
                    low=1e-14, high=1.0)
        if args.tol not in (DEFAULT_TOL, v):
            raise ValueError(f"-e {args.svm_e} and --tol {args.tol:g} disagree; give one of "
                             "them")
        args.tol = v
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


def tool_options(args) -> list[str]:
    """grid.py's -svmtrain and -gnuplot: accepted, with one note."""
    given = [o for o, v in (("-svmtrain", args.gridpy_svmtrain),
                            ("-gnuplot", args.gridpy_gnuplot)) if v is not None]
    noted = [o for o in given if not (o == "-gnuplot" and args.gridpy_gnuplot == "null")]
    if noted:
        _note(args, f"grid.py's {' and '.join(noted)} {'is' if len(noted) == 1 else 'are'} not "
                    "needed: svmbound trains the SVMs itself and draws -png with matplotlib; "
                    "ignored")
    return given
