"""Wall time of the default strategy with two settings, interleaved, case by case.

``default_variants.py --compare`` compares whole runs made one after the other; on a shared
2-core machine their times drift by 5–15 % between runs, more than most changes of the default
are worth. This script fits ``BoundSVC(loss=..., n_jobs=...)`` on each case with setting A, then
with setting B, ``--repeats`` times in turn, and prints per case the median time of each and
B/A, then the geometric mean of B/A over the cases. Accuracy is not measured here
(``default_variants.py`` does that).

    python benchmarks/dev/setting_timing.py --a 'NAME=VALUE' [...] --b 'NAME=VALUE' [...]
        [--loss l2] [--jobs 2] [--repeats 7] [--suites ida libsvm sklearn] [--quick]
        [--cases NAME ...] [--data DIR]

NAME is a setting of ``svmbound.strategy``, or a dotted ``sub.module.NAME`` of svmbound (as
``default_variants.py --set``); a side with no setting is the current default.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/

from _report import data_root  # noqa: E402
from default_variants import current_config, get_setting, parse_settings, set_setting  # noqa: E402
from vs_peers import cases  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", nargs="*", default=[], metavar="NAME=VALUE")
    ap.add_argument("--b", nargs="*", default=[], metavar="NAME=VALUE")
    ap.add_argument("--loss", default="l2", choices=("l2", "l1"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--suites", nargs="+", default=["ida", "libsvm", "sklearn"])
    ap.add_argument("--quick", action="store_true", help="vs_peers.py's quick cases")
    ap.add_argument("--cases", nargs="*", default=None, help="only these cases")
    ap.add_argument("--data", default=None)
    args = ap.parse_args(argv)
    root = data_root(args.data)
    if root is None:
        return 2
    from svmbound import BoundSVC

    sides = [parse_settings(args.a), parse_settings(args.b)]
    default = {name: get_setting(name) for side in sides for name in side}
    ratios = []
    for suite, name, load in cases(root, args.suites, quick=args.quick):
        if args.cases and name not in args.cases:
            continue
        X, y, _, _ = load()
        times = ([], [])
        for _ in range(args.repeats):
            for k, side in enumerate(sides):
                for setting, value in {**default, **side}.items():
                    set_setting(setting, value)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.perf_counter()
                    BoundSVC(loss=args.loss, random_state=0, n_jobs=args.jobs,
                             strategy_config=current_config()).fit(X, y)
                    times[k].append(time.perf_counter() - t0)
        a, b = float(np.median(times[0])), float(np.median(times[1]))
        ratios.append(b / a)
        print(f"{name:16s} A {1e3 * a:8.1f} ms  B {1e3 * b:8.1f} ms  B/A {b / a:.3f}",
              flush=True)
    for setting, value in default.items():
        set_setting(setting, value)
    if ratios:
        print(f"{len(ratios)} cases, loss {args.loss}, n_jobs {args.jobs}: geometric mean of "
              f"B/A {np.exp(np.mean(np.log(ratios))):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
