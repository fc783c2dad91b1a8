"""How long a Ctrl-C takes to stop a tuning: SIGINT to a child process fitting the default.

The child fits ``BoundSVC(n_jobs=N, random_state=0)`` on ``make_classification(ROWS, 20,
n_informative=8, flip_y=0.05, random_state=0)`` (about 5 s for 4,000 rows on 2 cores). The
parent sends SIGINT after each of ``--delays`` seconds, one child per delay, and prints when
the child stopped and how long after the signal it exited (Python's own shutdown included,
about 0.2 s). A fit that ends before the signal is reported as finished.

    python benchmarks/dev/interrupt_latency.py [--jobs 2] [--rows 4000] [--delays 0.8 1.5 2.5 3.5]
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time

CHILD = """
import sys, time
from sklearn.datasets import make_classification
from svmbound import BoundSVC
X, y = make_classification({rows}, 20, n_informative=8, flip_y=0.05, random_state=0)
print("ready", flush=True)
t0 = time.perf_counter()
try:
    BoundSVC(n_jobs={jobs}, random_state=0).fit(X, y)
    print("finished", time.perf_counter() - t0, flush=True)
except KeyboardInterrupt:
    print("interrupted", time.perf_counter() - t0, flush=True)
    raise
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rows", type=int, default=4000)
    ap.add_argument("--delays", type=float, nargs="+", default=[0.8, 1.5, 2.5, 3.5])
    args = ap.parse_args(argv)
    code = CHILD.format(rows=args.rows, jobs=args.jobs)
    print("| SIGINT after (s) | child's state | exit after the signal (s) |")
    print("|---|---|---|")
    for delay in args.delays:
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        if p.stdout.readline().strip() != b"ready":
            print(p.communicate()[1].decode(), file=sys.stderr)
            return 1
        time.sleep(delay)
        t0 = time.perf_counter()
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=600)
        waited = time.perf_counter() - t0
        last = (out.decode().split() or ["?"])
        state = f"{last[0]} at {float(last[1]):.2f} s" if len(last) > 1 else last[0]
        print(f"| {delay:g} | {state} | {waited:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
