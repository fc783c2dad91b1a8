"""The per-feature search's path on every case: how far its bound falls, evaluation by evaluation.

For each case of ``vs_peers.py`` (``--suites``) it fits ``BoundSVC(loss=..., n_jobs=...,
random_state=0)`` once and writes one JSON line: the case, n, d, the per-feature (ARD) search's
bound values in the order evaluated with their ``accepted`` flags and times, the relative fall
1 − f/f₀ of the best value after each evaluation, whether its minimum was validated
(``ard_min_gain``) and met its margin, the chosen candidate, and the fit's wall time. The span
bound's per-feature search is the same for both losses (it starts from the span bound's
isotropic minimum), so one loss is enough to see every path. Used to decide when that search
can stop early (``docs/decisions.md``, "ard_stop_factor").

    python benchmarks/dev/ard_paths.py --out FILE [--suites ida libsvm sklearn aside relevant]
        [--loss l2] [--jobs 2] [--quick] [--data DIR] [--set NAME=VALUE ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/
sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/dev/
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _report import data_root  # noqa: E402
from sample_ab import config_fields  # noqa: E402
from vs_peers import cases  # noqa: E402


def ard_record(est) -> dict:
    """The per-feature stage of a fitted ``est``: its path and outcome (empty when it did not
    run, with the reason)."""
    res = est.search_
    ard = dict(res.get("ard") or {})
    out = {"ran": bool(ard.get("ran")), "reason": ard.get("reason"),
           "chosen": res.get("chosen"), "validated": ard.get("validated"),
           "margin_met": ard.get("margin_met"), "gain": ard.get("gain")}
    stage = next((v for k, v in res.stages.items() if k.startswith("per-feature")), None)
    if stage is not None:
        values = [float(e["value"]) for e in stage.path]
        best = np.minimum.accumulate(values)
        out.update(values=values, accepted=[bool(e.get("accepted")) for e in stage.path],
                   fall=[float(1.0 - b / values[0]) if values[0] > 0 else 0.0 for b in best],
                   rows=ard.get("rows"))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--data", default=None)
    ap.add_argument("--loss", default="l2", choices=["l1", "l2"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--suites", nargs="+", default=["ida", "libsvm", "sklearn", "aside",
                                                   "relevant"])
    ap.add_argument("--cases", nargs="+", default=None)
    ap.add_argument("--set", nargs="+", default=[], metavar="NAME=VALUE",
                    help="StrategyConfig fields of the fits")
    args = ap.parse_args(argv)
    root = data_root(args.data)
    if root is None:
        return 2
    from svmbound import BoundSVC
    from svmbound.strategy import DEFAULT_CONFIG

    config = dataclasses.replace(DEFAULT_CONFIG, **config_fields(args.set))
    warnings.simplefilter("ignore")
    with open(args.out, "a") as fh:
        for suite, name, load in cases(root, args.suites, args.quick):
            if args.cases and name not in args.cases:
                continue
            X, y, Xt, yt = load()
            t0 = time.perf_counter()
            est = BoundSVC(loss=args.loss, random_state=0, n_jobs=args.jobs,
                           strategy_config=config).fit(X, y)
            wall = time.perf_counter() - t0
            rec = {"suite": suite, "case": name, "n": int(X.shape[0]), "d": int(X.shape[1]),
                   "wall_s": wall, "test_error": float(np.mean(est.predict(Xt) != yt)),
                   **ard_record(est)}
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            fall = rec.get("fall")
            print(f"{suite:8s} {name:28s} n={rec['n']:6d} d={rec['d']:5d} {wall:7.2f} s  "
                  + (f"fall {' '.join(f'{f:.2f}' for f in fall)}  validated "
                     f"{rec['validated']} chosen {rec['chosen']}" if fall else
                     f"no search: {rec['reason']}"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
