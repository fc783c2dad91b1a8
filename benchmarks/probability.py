"""Probability estimates: BoundSVC(probability=True) against SVC(probability=True) at the same
(C, γ) (issue 30 item 1).

For each binary case of ``vs_peers.py`` (``--quick``: IDA splits 1–2, three LIBSVM sets, the
scikit-learn tasks) and each loss: ``BoundSVC(loss, probability=True, random_state=0)``, whose
sigmoid is fitted on the out-of-fold decision values its validation already computed, and
``SVC(C, gamma, probability=True, random_state=0)`` at the tuned (C, γ), whose LIBSVM trains 5
more SVMs for its sigmoid. Reported: test log-loss and Brier score of both, their ratio (ours ÷
SVC's; per suite the geometric mean), and the trainings each spent on its sigmoid.

    python benchmarks/probability.py [--data DIR] [--quick] [--suites ida libsvm sklearn]
        [--out FILE.md]
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import data_root, publish  # noqa: E402
from vs_peers import cases  # noqa: E402

HEADING = "Probabilities against SVC(probability=True) (issue 30)"


def _scores(y, classes, P):
    from sklearn.metrics import brier_score_loss, log_loss

    return (float(log_loss(y, P, labels=classes)),
            float(brier_score_loss(y == classes[1], P[:, 1])))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--suites", nargs="+", default=["ida", "libsvm", "sklearn"])
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    root = data_root(args.data)
    if root is None:
        return 2
    from sklearn.svm import SVC

    from svmbound import BoundSVC

    rows, ratios = [], {}
    for suite, name, load in cases(root, args.suites, args.quick):
        X, y, Xt, yt = load()
        X, Xt = np.asarray(X, dtype=float), np.asarray(Xt, dtype=float)
        for loss in ("l2", "l1"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                plain = BoundSVC(loss=loss, random_state=0).fit(X, y)
                est = BoundSVC(loss=loss, random_state=0, probability=True).fit(X, y)
                p, s = est.best_params_, est.feature_scales_
                # a per-feature pick: SVC with γ = ½ on x_k/σ_k, as its export
                f = (lambda Z: Z) if s is None else (lambda Z: Z * s)
                svc = SVC(C=p["C"], gamma=p["gamma"] if s is None else 0.5, probability=True,
                          random_state=0).fit(f(X), y)
            ours = _scores(yt, est.classes_, est.predict_proba(Xt))
            theirs = _scores(yt, svc.classes_, svc.predict_proba(f(Xt)))
            r = (ours[0] / theirs[0], ours[1] / theirs[1])
            ratios.setdefault((suite, loss), []).append(r)
            rows.append(f"| {name} | {loss} | {ours[0]:.4f} | {theirs[0]:.4f} | {r[0]:.3f} | "
                        f"{ours[1]:.4f} | {theirs[1]:.4f} | {r[1]:.3f} | "
                        f"{est.n_trainings_ - plain.n_trainings_} |")
            print(rows[-1], flush=True)
    summary = ["| suite | loss | cases | log-loss ours ÷ SVC (gmean) | Brier ours ÷ SVC (gmean) |",
               "|---|---|---|---|---|"]
    for (suite, loss), rs in ratios.items():
        g = [math.exp(np.mean(np.log([x[k] for x in rs]))) for k in (0, 1)]
        summary.append(f"| {suite} | {loss} | {len(rs)} | {g[0]:.3f} | {g[1]:.3f} |")
    body = ("\n".join(summary) + "\n\n| case | loss | log-loss ours | log-loss SVC | ratio | "
            "Brier ours | Brier SVC | ratio | our extra trainings (SVC: 5) |\n"
            "|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    publish(args.out, HEADING, "probability.py", argv, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
