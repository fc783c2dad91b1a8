"""How far a tuner's test error moves when only its CV folds change: the noise floor of the
"test error − GridSearchCV's" measure.

``vs_peers.py --seed S`` runs every method with other CV folds (and other random draws). This
script compares such a run with the recorded one (seed 0: ``results/vs_peers-2cores.jsonl``,
``results/aside-2cores.jsonl``, same cases, same splits) and prints, per suite and method, the
mean and worst test error minus the recorded GridSearchCV's, in points, and the cases more than
2 points worse. The row ``grid`` is GridSearchCV with other folds against itself: what the
"no case worse than +2 points" target of issue 12 looks like for grid search itself.

    python benchmarks/dev/fold_noise.py RUN.jsonl [RUN.jsonl ...] [--recorded FILE ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parents[1] / "results"
RECORDED = (RESULTS / "vs_peers-2cores.jsonl", RESULTS / "aside-2cores.jsonl")


def load(paths) -> list[dict]:
    return [json.loads(line) for p in paths for line in open(p) if line.strip()]


def table(runs, recorded) -> str:
    """Markdown rows: suite, method, cases, mean and worst − recorded grid, cases > +2."""
    grid0 = {(r["suite"], r["case"]): r["methods"]["grid"]["error"] for r in recorded
             if "error" in r["methods"].get("grid", {})}
    diffs: dict = {}
    for r in runs:
        key = (r["suite"], r["case"])
        if key not in grid0:
            continue
        for m, v in r["methods"].items():
            if "error" in v:
                diffs.setdefault((r["suite"], m), []).append(
                    (100.0 * (v["error"] - grid0[key]), r["case"]))
    lines = ["| suite | method (other folds) | cases | mean − recorded grid | worst (case) | "
             "cases > +2 |", "|---|---|---|---|---|---|"]
    for (suite, m), d in sorted(diffs.items()):
        vals = np.array([x for x, _ in d])
        worst = max(d)
        lines.append(f"| {suite} | {m} | {vals.size} | {vals.mean():+.3f} | {worst[0]:+.2f} "
                     f"({worst[1]}) | {int((vals > 2).sum())} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="JSON-line files of vs_peers.py --seed S")
    ap.add_argument("--recorded", nargs="+", default=[str(p) for p in RECORDED],
                    help="the seed-0 runs (default: the recorded ones)")
    args = ap.parse_args(argv)
    print(table(load(args.runs), load(args.recorded)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
