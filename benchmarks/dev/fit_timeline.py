"""Where the wall time of one default fit goes, phase by phase (issue 14).

For each case of ``vs_peers.py`` it fits ``BoundSVC(loss=..., n_jobs=..., random_state=0)``
``--repeats`` times (after one warm-up fit) and, for the fastest fit, prints as percentages of
its wall time:

* ``first eval``: when the first bound evaluation starts (what runs before it is serial:
  input checks, the box, the CV folds, the threads' start);
* ``searches end`` / ``CV end``: when the last bound evaluation and the last CV piece end;
* ``final``: the final training at the chosen θ (serial);
* ``one search alone``: from the end of the search that ends first to the end of the other,
  and ``CV beside it``: the CV pieces run meanwhile (summed over the threads). With two
  workers the difference is about the time a core had nothing to do while one search ran
  on: what more workers cannot shorten, and what work started before that search ends
  (its own candidates' CV) could fill;
* the busy time of each kind of work, summed over the threads (``rm-l2``/``rm-l1``, ``span``
  evaluations, ``cv piece``: one fold of one or two candidates; at most ``n_jobs`` × 100 %).
  Busy time includes waiting for the GIL inside that work.

The phases are found by wrapping ``Criterion.evaluate``, ``CrossValidationError.run_piece``
and ``fit_flow.BinaryMachine.train`` (timing only: the fits are unchanged).

    python benchmarks/dev/fit_timeline.py [--data DIR] [--loss l2] [--jobs 2] [--repeats 5]
        [--quick] [--suites ida libsvm sklearn] [--cases NAME ...] [--events]
        [--large ijcnn1 --rows 2000 5000 0]

``--large CASE --rows N …``: ``large_data.py``'s case on stratified samples of N rows (0:
whole) instead of the suites; ``--events``: every timed piece of the fastest fit, by thread.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _report import data_root  # noqa: E402
from large_data import add_sample_arguments, sampled_cases  # noqa: E402
from vs_peers import cases  # noqa: E402

RECORDS: list = []      # (thread, kind, start, end)


def _timed(cls, method, kind):
    inner = getattr(cls, method)

    def wrapper(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return inner(self, *args, **kwargs)
        finally:
            RECORDS.append((threading.get_ident(), kind(self) if callable(kind) else kind, t0,
                            time.perf_counter()))

    setattr(cls, method, wrapper)


def phases(records, t0: float, wall: float) -> dict:
    """The phase ends and busy shares (percent of ``wall``) of one fit's ``records``."""
    def pct(t):
        return 100.0 * t / wall

    evals = [r for r in records if r[1] not in ("cv piece", "final", "cv-error")]
    pieces = [r for r in records if r[1] == "cv piece"]
    final = [r for r in records if r[1] == "final"]
    out = {"first eval": pct(min(r[2] for r in evals) - t0),
           "searches end": pct(max(r[3] for r in evals) - t0),
           "CV end": pct(max((r[3] for r in pieces), default=t0) - t0),
           "final": pct(sum(r[3] - r[2] for r in final))}
    ends: dict = {}
    for _, kind, _, b in evals:
        ends[kind] = max(ends.get(kind, b), b)
    if len(ends) > 1:   # from the end of the first search to the end of the last one
        first, last = min(ends.values()), max(ends.values())
        out["one search alone"] = pct(last - first)
        out["CV beside it"] = pct(sum(max(0.0, min(b, last) - max(a, first))
                                      for _, _, a, b in pieces))
    busy: dict = {}
    for _, kind, a, b in records:
        if kind not in ("final", "cv-error"):
            busy[kind] = busy.get(kind, 0.0) + b - a
    out.update({f"busy {k}": pct(v) for k, v in sorted(busy.items())})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None)
    ap.add_argument("--loss", default="l2", choices=["l1", "l2"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="IDA splits 1–2, three LIBSVM sets")
    ap.add_argument("--suites", nargs="+", default=["ida", "libsvm", "sklearn"])
    ap.add_argument("--cases", nargs="+", default=None, help="only these case names")
    add_sample_arguments(ap)
    ap.add_argument("--events", action="store_true",
                    help="also list every timed piece of the fastest fit (thread, start, end)")
    args = ap.parse_args(argv)
    root = data_root(args.data)
    if root is None:
        return 2
    from svmbound import BoundSVC
    from svmbound.criteria import base, reference
    from svmbound.fit_flow import BinaryMachine

    _timed(base.Criterion, "evaluate", lambda crit: crit.name)
    _timed(reference.CrossValidationError, "run_piece", "cv piece")
    _timed(BinaryMachine, "train", "final")
    warnings.simplefilter("ignore")
    rows = []
    if args.large is None:
        todo = [(name, load) for _, name, load in cases(root, args.suites, args.quick)]
    else:
        todo = [(name, lambda data=data: data)
                for name, data in sampled_cases(root, args.large, args.rows)]
    for name, load in todo:
        if args.cases and name not in args.cases:
            continue
        X, y, _, _ = load()

        def fit():
            return BoundSVC(loss=args.loss, random_state=0, n_jobs=args.jobs).fit(X, y)

        fit()
        best = None
        for _ in range(args.repeats):
            RECORDS.clear()
            t0 = time.perf_counter()
            fit()
            wall = time.perf_counter() - t0
            if best is None or wall < best[0]:
                best = (wall, list(RECORDS), t0)
        wall, records, t0 = best
        ph = phases(records, t0, wall)
        rows.append(ph)
        print(f"{name:16s} n={len(y):5d} {1e3 * wall:7.1f} ms  "
              + "  ".join(f"{k} {v:3.0f}%" for k, v in ph.items()), flush=True)
        if args.events:
            threads: dict = {}
            for th, kind, a, b in sorted(records, key=lambda r: r[2]):
                print(f"    T{threads.setdefault(th, len(threads))} {kind:10s} "
                      f"{1e3 * (a - t0):8.1f} → {1e3 * (b - t0):8.1f} ms", flush=True)
    keys = sorted({k for r in rows for k in r}, key=lambda k: (k.startswith("busy"), k))
    print("mean over the cases: " + "  ".join(
        f"{k} {np.mean([r.get(k, 0.0) for r in rows]):.1f}%" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
