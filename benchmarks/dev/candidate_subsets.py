"""Which candidates the default strategy's CV should see, from recorded candidate errors.

Reads the JSON lines of ``vs_peers.py --candidate-errors`` (every candidate's CV errors, hinge
loss and test error, per case and loss) and, for subsets of the candidate kinds, replays the
pick (fewest CV errors, then the smallest held-out hinge loss: ``strategy._cv_key``) among the
candidates of those kinds only. Prints per subset and loss the mean and worst test error minus
GridSearchCV's, and the cases more than 2 and 1 points worse. Grid search's error is the one in
the same file, else the one recorded in ``results/vs_peers-2cores.jsonl`` (same splits).

    python benchmarks/dev/candidate_subsets.py FILE.jsonl [FILE.jsonl ...]

Kinds: ``span`` / ``rm`` (a bound's minimum), ``span+2`` / ``rm+2`` (the minimum with C·e²),
``start`` (θ₀). A run that had fewer kinds than a subset names replays what it had.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

RECORDED = Path(__file__).resolve().parents[1] / "results" / "vs_peers-2cores.jsonl"
KINDS = ("span", "span+2", "rm", "rm+2", "start")


def kind(source: str) -> str:
    """The kind of a candidate from its ``source`` label (``strategy.candidate_points``)."""
    base = "span" if source.startswith("span") else "rm" if source.startswith("rm") else "start"
    return base + ("+2" if "ln C +2" in source else "")


def replay(records, loss, subset):
    """Test error − grid's, in points, of the pick among ``subset`` in each record."""
    out = []
    for r in records:
        cands = [c for c in r["methods"][loss]["candidates"] if kind(c["source"]) in subset]
        best = min(cands, key=lambda c: (round(c["cv_errors"], 12), round(c["cv_hinge"], 12)))
        out.append(100.0 * (best["test_error"] - r["grid_error"]))
    return np.array(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    recorded = {}
    if RECORDED.exists():
        for line in open(RECORDED):
            r = json.loads(line)
            recorded[(r["suite"], r["case"])] = r["methods"]["grid"]["error"]
    records = []
    for f in args.files:
        for line in open(f):
            r = json.loads(line)
            grid = r["methods"].get("grid", {}).get("error", recorded.get((r["suite"], r["case"])))
            if grid is None:
                raise SystemExit(f"{r['case']}: no grid search error in {f} nor recorded")
            records.append(dict(r, grid_error=grid))
    losses = [loss for loss in ("l2", "l1") if all(loss in r["methods"] for r in records)]
    print(f"{len(records)} cases")
    print("| candidates | " + " | ".join(f"{loss} mean − grid | worst | > +2 | > +1"
                                          for loss in losses) + " |")
    print("|---|" + "---|---|---|---|" * len(losses))
    for k in range(len(KINDS), 0, -1):
        for subset in itertools.combinations(KINDS, k):
            if "span" not in subset and "rm" not in subset:
                continue
            cells = []
            for loss in losses:
                d = replay(records, loss, subset)
                cells.append(f"{d.mean():+.3f} | {d.max():+.2f} | {int((d > 2).sum())} | "
                             f"{int((d > 1).sum())}")
            print(f"| {', '.join(subset)} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
