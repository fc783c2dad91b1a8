"""The default strategy against one variant of its settings on samples of the large sets, paired.

For each case (``ijcnn1``, ``a9a``, ``dense200`` of ``large_data.py``), each number of rows N
and each seed s: a stratified sample of N training rows (``train_test_split(..., stratify=y,
random_state=s)``), fitted by ``BoundSVC(loss=..., n_jobs=..., random_state=0)`` with the
default settings (A) and with the settings of ``--set NAME=VALUE ...`` (B, fields of
``svmbound.strategy.StrategyConfig``), alternating which goes first; each model tested on the
first 20,000 rows of the test set. Prints a line per fit, then per case, N and loss: the mean
test error of A and B over the seeds, the paired mean difference B − A with a paired t-test's
two-sided p, and the geometric mean of B's time ÷ A's. Used for the search rows of issue 32
(docs/decisions.md, "half_split_rows"); sampling several seeds is what tells a change of the
pick from the draw.

    python benchmarks/dev/sample_ab.py --set search_share=None [--cases ijcnn1 a9a dense200]
        [--rows 10000] [--seeds 0 1 2 3 4] [--losses l2 l1] [--jobs 2] [--data DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/
sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/dev/

from _report import data_root  # noqa: E402
from default_variants import parse_settings, setting_target  # noqa: E402
from large_data import CASES, load  # noqa: E402


def config_fields(items) -> dict:
    """{field: value} of ``--set`` NAME=VALUE items, each NAME a field of ``StrategyConfig``
    (``default_variants.parse_settings``): variant B is a config of its own, so a dotted
    module setting, which would change A as well, is refused."""
    out = {}
    for name, value in parse_settings(items).items():
        module, field = setting_target(name)
        if module is not None:
            raise SystemExit(f"{name}: sample_ab.py varies StrategyConfig fields only")
        out[field] = value
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", nargs="+", required=True, metavar="NAME=VALUE")
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--rows", type=int, nargs="+", default=[10000])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--losses", nargs="+", default=["l2", "l1"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--data", default=None)
    args = ap.parse_args(argv)
    root = data_root(args.data)
    if root is None:
        return 2
    from scipy.stats import ttest_rel
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    from svmbound import BoundSVC
    from svmbound.strategy import DEFAULT_CONFIG

    warnings.simplefilter("ignore")
    variants = {"A": DEFAULT_CONFIG, "B": dataclasses.replace(DEFAULT_CONFIG,
                                                              **config_fields(args.set))}
    BoundSVC().fit(*make_classification(60, 4, random_state=0))     # numba compiles
    print(f"B: {args.set}", flush=True)
    summary = []
    for name in args.cases:
        X0, y0, Xt, yt = load(root, name)
        Xt, yt = Xt[:20000], yt[:20000]
        for n in args.rows:
            res = {(loss, v): [] for loss in args.losses for v in variants}
            for s in args.seeds:
                keep = np.sort(train_test_split(np.arange(y0.size), train_size=n, stratify=y0,
                                                random_state=s)[0])
                X, y = X0[keep], y0[keep]
                for loss in args.losses:
                    order = ("A", "B") if s % 2 == 0 else ("B", "A")
                    for v in order:
                        t = time.perf_counter()
                        est = BoundSVC(loss=loss, n_jobs=args.jobs, random_state=0,
                                       strategy_config=variants[v]).fit(X, y)
                        t = time.perf_counter() - t
                        err = 100.0 * float(np.mean(est.predict(Xt) != yt))
                        res[(loss, v)].append((err, t))
                        bp, sub = est.best_params_, est.search_.subsample
                        print(f"{name} n={n} seed={s} {loss} {v}: err {err:.3f} %, {t:.2f} s, "
                              f"{est.n_trainings_} trainings, C={bp['C']:.4g} "
                              f"gamma={bp['gamma']:.4g}, searched "
                              f"{sub['search'] if sub else 'all'}, {est.search_.chosen}",
                              flush=True)
            for loss in args.losses:
                a, b = (np.array(res[(loss, v)]) for v in ("A", "B"))
                d = b[:, 0] - a[:, 0]
                p = ttest_rel(b[:, 0], a[:, 0]).pvalue if len(d) > 1 and d.any() else 1.0
                summary.append(f"| {name} | {n} | {loss} | {a[:, 0].mean():.3f} | "
                               f"{b[:, 0].mean():.3f} | {d.mean():+.3f} | {p:.2f} | "
                               f"{np.exp(np.mean(np.log(b[:, 1] / a[:, 1]))):.2f} |")
    print("\n| case | rows | loss | A err % | B err % | B − A | paired t p | time B ÷ A |\n"
          "|---|---|---|---|---|---|---|---|")
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
