"""Interrupt first fits at random moments: does every one end as Ctrl-C should?

Each run is a fresh process (numba then loads its cached functions during that fit, the window
where an exception raised in numba's or llvmlite's own code is lost, becomes a SystemError, or
leaves LLVM without its buffer) that fits ``BoundSVC(n_jobs=1, random_state=0)`` on
``make_classification(300, 8, random_state=0)`` (~0.25 s as a first fit) and is interrupted
after a delay drawn uniformly in [``--low``, ``--high``] s (seed ``--seed``):

* ``--how sigint``: SIGINT sent to the main thread (Python's own handler, as a terminal's Ctrl-C);
* ``--how raise``: SIGALRM whose handler raises KeyboardInterrupt wherever it lands, also inside
  ``call_here``'s short solves, where a real Ctrl-C is deferred: the harsher test;
* ``--how delegate``: SIGALRM whose handler runs SIGINT's handler of that moment on the frame it
  interrupted — a Ctrl-C at an exact moment (the itimer), without a thread to send it.

It counts the outcomes: ``KI search_result`` (the KeyboardInterrupt with the search so far),
``KI no-result`` (before the search began), ``FINISHED`` (the interruption was lost, or came
after the fit), ``SYSTEMERROR``, a death by a signal (rc < 0 or > 128: -11/139 a segmentation
fault) and ``HANG`` (no exit within 60 s). Used in session 21 (docs/lab-notebook.md, "Ctrl-C in
a first fit").

    python benchmarks/dev/interrupt_scan.py [--runs 120] [--how sigint|raise|delegate] [--seed 0]
"""

from __future__ import annotations

import argparse
import collections
import random
import subprocess
import sys

CHILD = """
import signal, sys, threading
from sklearn.datasets import make_classification
from svmbound import BoundSVC
X, y = make_classification(300, 8, random_state=0)
signal.signal(signal.SIGINT, signal.default_int_handler)   # (a background job starts ignored)
delay, how = float(sys.argv[1]), sys.argv[2]
if how in ("raise", "delegate"):
    def on_alarm(signum, frame):
        if how == "raise":
            raise KeyboardInterrupt
        handler = signal.getsignal(signal.SIGINT)      # what a Ctrl-C would run, at this frame
        if callable(handler):
            handler(signal.SIGINT, frame)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, delay)
else:
    main = threading.main_thread().ident
    timer = threading.Timer(delay, lambda: signal.pthread_kill(main, signal.SIGINT))
    timer.daemon = True
    timer.start()
try:
    BoundSVC(n_jobs=1, random_state=0).fit(X, y)
    print("FINISHED")
except KeyboardInterrupt as exc:
    print("KI", "search_result" if hasattr(exc, "search_result") else "no-result")
except SystemError as exc:
    print("SYSTEMERROR", type(exc.__cause__).__name__)
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=120)
    ap.add_argument("--how", choices=["sigint", "raise", "delegate"], default="sigint")
    ap.add_argument("--low", type=float, default=0.03)
    ap.add_argument("--high", type=float, default=0.25)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    counts = collections.Counter()
    for i in range(args.runs):
        delay = rng.uniform(args.low, args.high)
        try:
            out = subprocess.run([sys.executable, "-c", CHILD, f"{delay:.4f}", args.how],
                                 capture_output=True, text=True, timeout=60)
            lines = out.stdout.strip().splitlines()
            what = (lines[-1] if lines and out.returncode == 0
                    else f"died rc={out.returncode}")
        except subprocess.TimeoutExpired:
            what = "HANG"
        counts[what] += 1
        print(f"{i:4d} {delay:.4f} s  {what}", flush=True)
    print({k: v for k, v in counts.most_common()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
