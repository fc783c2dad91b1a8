"""The default strategy with one setting changed, against the recorded GridSearchCV errors.

Re-running GridSearchCV for every variant of the default would take hours on 2 cores; its test
errors on the 94 public cases of ``vs_peers.py`` are recorded in
``benchmarks/results/vs_peers-2cores.jsonl`` (same splits, same data), and on the 22 cases of
the ``aside`` suite (``--suites aside``: cases for checking a change on data no default was
chosen on) in ``benchmarks/results/aside-2cores.jsonl``. This script fits
``BoundSVC(loss=l2|l1, n_jobs=2)`` on each case with a setting of ``svmbound.strategy`` changed
and prints, per loss, the mean and worst test error minus grid search's, the cases more than
2 points worse, the total fit time, and the medians of trainings and of bound-search
evaluations. Used to choose ``STAGE_MAX_FEV`` and to reject a looser ``STAGE_GTOL`` and
3-fold CV (docs/lab-notebook.md, "Variants of the default").

    python benchmarks/dev/default_variants.py [--data DIR] [--suites ida libsvm sklearn aside]
        [--set NAME=VALUE ...] [--n-folds K]
        [--cache-size MB] [--json-out FILE] [--skip-big | --only-big]
    python benchmarks/dev/default_variants.py --compare A1.jsonl,A2.jsonl=B1.jsonl,B2.jsonl

``--set STAGE_MAX_FEV=6`` sets the field ``stage_max_fev`` of the ``StrategyConfig`` passed to the fits (``tune_auto`` reads its
settings when it runs); a dotted name sets that module's setting, e.g.
``--set criteria.reference.SHARED_GRAM_FRACTION=None``. ``--skip-big`` leaves out the six
largest cases (mushrooms, ijcnn1-5k, a1a, w1a, splice, svmguide1); ``--only-big`` runs only
them, a line per fit.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/

from _report import data_root  # noqa: E402
from vs_peers import cases  # noqa: E402

from svmbound.cli import _cache_arg  # noqa: E402

BIG = {"mushrooms", "ijcnn1-5k", "a1a", "w1a", "splice", "svmguide1"}
RECORDED = (Path(__file__).resolve().parents[1] / "results" / "vs_peers-2cores.jsonl",
            Path(__file__).resolve().parents[1] / "results" / "aside-2cores.jsonl")


_config = None     # the StrategyConfig that the undotted settings change (current_config)


def current_config():
    """The default strategy's settings with every undotted NAME=VALUE set so far, for
    ``BoundSVC(strategy_config=current_config())``."""
    from svmbound.strategy import DEFAULT_CONFIG

    return DEFAULT_CONFIG if _config is None else _config


def setting_target(name: str):
    """(module, attribute) of a dotted setting ``sub.module.NAME`` of svmbound (e.g.
    ``criteria.reference.SHARED_GRAM_FRACTION``), or (None, field) for an undotted NAME, a
    field of ``svmbound.strategy.StrategyConfig`` (``STAGE_MAX_FEV`` or ``stage_max_fev``); a
    SystemExit naming it when there is none."""
    import dataclasses
    import importlib

    from svmbound.strategy import StrategyConfig

    module_name, _, attr = name.rpartition(".")
    if not module_name:
        fields = {f.name for f in dataclasses.fields(StrategyConfig)}
        if attr.lower() not in fields:
            raise SystemExit(f"StrategyConfig has no field {attr.lower()!r}; fields: "
                             + ", ".join(sorted(fields)))
        return None, attr.lower()
    try:
        module = importlib.import_module("svmbound." + module_name)
    except ImportError:
        module = None
    if module is None or not hasattr(module, attr):
        raise SystemExit(f"svmbound.{module_name} has no setting {attr!r}")
    return module, attr


def get_setting(name: str):
    module, attr = setting_target(name)
    return getattr(current_config() if module is None else module, attr)


def set_setting(name: str, value) -> None:
    import dataclasses

    global _config
    module, attr = setting_target(name)
    if module is None:
        _config = dataclasses.replace(current_config(), **{attr: value})
    else:
        setattr(module, attr, value)


def parse_settings(items) -> dict:
    """{NAME: value} of NAME=VALUE items (VALUE a Python literal), each NAME a setting of
    ``svmbound.strategy`` or a dotted ``sub.module.NAME`` of svmbound (:func:`setting_target`;
    a SystemExit naming it otherwise)."""
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        setting_target(name)
        out[name] = ast.literal_eval(value)
    return out


def apply_settings(settings) -> None:
    """Set each NAME=VALUE (read when ``tune_auto`` and the criteria run)."""
    for name, value in parse_settings(settings).items():
        set_setting(name, value)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None)
    ap.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE")
    ap.add_argument("--n-folds", type=int, default=5)
    ap.add_argument("--json-out", default=None,
                    help="write one JSON line per case: its test errors and the recorded peers'")
    ap.add_argument("--cache-size", type=_cache_arg, default=None,
                    help="BoundSVC's cache_size (MB or 'auto'; default: the estimator's)")
    ap.add_argument("--compare", nargs="+", metavar="A.jsonl=B.jsonl", default=None,
                    help="no fits: the geometric mean over the cases of the time ratio A/B, each "
                         "side the smallest time over its files (A and B: comma-separated "
                         "--json-out files of two versions, e.g. interleaved runs)")
    ap.add_argument("--suites", nargs="+", default=["ida", "libsvm", "sklearn"],
                    help="suites of vs_peers.py (default: the public ones; 'aside': the cases "
                         "for checking a change, grid errors in results/aside-2cores.jsonl)")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--skip-big", action="store_true")
    which.add_argument("--only-big", action="store_true")
    args = ap.parse_args(argv)
    if args.compare:
        return compare(args.compare)
    root = data_root(args.data)
    if root is None:
        return 2
    from svmbound import BoundSVC

    apply_settings(args.set)
    extra = {} if args.cache_size is None else {"cache_size": args.cache_size}
    recorded = {}
    for path in RECORDED:
        with open(path) as fh:
            for line in fh:
                r = json.loads(line)
                recorded[(r["suite"], r["case"])] = r["methods"]
    diff = {"l2": [], "l1": []}
    total = {"l2": 0.0, "l1": 0.0}
    trainings = {"l2": [], "l1": []}
    evals = {"l2": [], "l1": []}
    per_case = []
    for suite, name, load in cases(root, args.suites):
        if (args.skip_big and name in BIG) or (args.only_big and name not in BIG):
            continue
        X, y, Xt, yt = load()
        for loss in ("l2", "l1"):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = BoundSVC(loss=loss, n_jobs=2, n_folds=args.n_folds,
                               strategy_config=current_config(), **extra).fit(X, y)
            t = time.perf_counter() - t0
            err = float(np.mean(est.predict(Xt) != yt))
            grid = recorded[(suite, name)]["grid"]["error"]
            diff[loss].append(100 * (err - grid))
            total[loss] += t
            trainings[loss].append(est.n_trainings_)
            evals[loss].append(sum(r.nfev for r in est.search_.stages.values()))
            rec = recorded[(suite, name)]
            per_case.append({"suite": suite, "case": name, "loss": loss, "error": err,
                             "n_test": int(len(yt)), "time_s": t,
                             "chosen": est.search_.chosen,
                             **{f"{m}_error": rec[m]["error"] for m in ("grid", "random", "optuna")
                                if m in rec}})
            if args.only_big:
                print(f"{name} {loss}: {100 * err:.2f} % (grid {100 * grid:.2f} %, recorded "
                      f"{100 * recorded[(suite, name)][loss]['error']:.2f} %), {t:.1f} s",
                      flush=True)
    if args.json_out:
        with open(args.json_out, "w") as fh:
            for r in per_case:
                fh.write(json.dumps(r) + "\n")
    label = " ".join(args.set) + (f" n_folds={args.n_folds}" if args.n_folds != 5 else "")
    label += f" cache_size={args.cache_size}" if args.cache_size is not None else ""
    for loss, d in diff.items():
        d = np.array(d)
        print(f"{label or 'default'} {loss}: n={d.size} mean-grid {d.mean():+.3f} "
              f"worst {d.max():+.2f} >+2: {int((d > 2).sum())}  time {total[loss]:.1f}s  "
              f"trainings median {np.median(trainings[loss])} "
              f"search evals median {np.median(evals[loss])}", flush=True)
    return 0


def compare(pairs) -> int:
    """Print, for each A=B pair of --json-out file lists, the geometric mean over the cases
    (and over those whose B time is under 0.1 s) of min time in A / min time in B."""
    def times(files):
        out = {}
        for f in files.split(","):
            for line in open(f):
                r = json.loads(line)
                key = (r["suite"], r["case"], r["loss"])
                out[key] = min(out.get(key, np.inf), r["time_s"])
        return out

    for pair in pairs:
        a, _, b = pair.partition("=")
        ta, tb = times(a), times(b)
        keys = sorted(set(ta) & set(tb))
        ratio = np.array([ta[k] / tb[k] for k in keys])
        small = np.array([ta[k] / tb[k] for k in keys if tb[k] < 0.1])
        print(f"{a} / {b}: {len(keys)} fits, time ratio gmean {np.exp(np.log(ratio).mean()):.3f}"
              + (f"; {small.size} fits under 0.1 s: {np.exp(np.log(small).mean()):.3f}"
                 if small.size else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
