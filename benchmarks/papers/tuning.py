"""Radius–margin tuning from (0, 0) on IDA banana, image, waveform split 1 (Chung Table 4.1).

For the L1-SVM bound (3.3, Δ = 1) and the L2-SVM bound R̃²‖w̃‖², run ``BoundSVC`` from
θ = (ln C, ln σ²) = (0, 0) and report #fun, #grad, the chosen (ln C, ln σ²), the number of
support vectors, test accuracy and wall time, beside Chung et al.'s Table 4.1.

    python benchmarks/papers/tuning.py [--data DIR] [--quick] [--ijcnn1 N|full] [--out FILE.md]

``--quick`` runs banana only. ``--ijcnn1 full`` adds the whole ijcnn1 training set (49,990 rows,
Chung's setting), ``--ijcnn1 N`` a stratified N-row sample; both are tested on the full ijcnn1
test set (91,701 rows). ``--only-ijcnn1`` skips the IDA sets. Peak RSS is the process's
maximum resident set size after each row (``resource.getrusage``), so it only grows down the
table; ijcnn1 runs last.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/

from _report import data_root, machine_description, write_section  # noqa: E402

from svmbound import BoundSVC  # noqa: E402
from svmbound.datasets import load_ida, load_ijcnn1  # noqa: E402

#: Chung et al. (2003) Table 4.1: (#fun, #grad, accuracy %) for L1 and L2 from (0, 0).
CHUNG_41 = {
    "banana": {"l1": (9, 6, 88.96), "l2": (8, 5, 88.53)},
    "image": {"l1": (17, 13, 96.24), "l2": (11, 6, 97.03)},
    "waveform": {"l1": (16, 13, 88.57), "l2": (8, 7, 89.83)},
    "ijcnn1": {"l1": (9, 9, 97.09), "l2": (7, 7, 97.83)},
}


def run(name, X, y, Xt, yt, loss, tol):
    t0 = time.perf_counter()
    clf = BoundSVC(loss=loss, tol=tol).fit(X, y)
    fit_s = time.perf_counter() - t0
    acc = 100.0 * clf.score(Xt, yt)
    r = clf.search_
    return {"data": name, "n": X.shape[0], "loss": loss, "nfev": r.nfev, "njev": r.njev,
            "log_C": clf.best_theta_[0], "log_sigma2": clf.best_theta_[1],
            "n_sv": clf.support_.size, "acc": acc, "time": fit_s,
            "projected": clf.c_projected_, "message": r.message,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}


def table(rows):
    out = ["| data | n | loss | #fun | #grad | ln C | ln σ² | #SV | test acc. % | time s | "
           "peak RSS MB | Chung #fun / #grad / acc. % | stop |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p = CHUNG_41[r["data"].split("-")[0]][r["loss"]]
        lnc = f"{r['log_C']:.2f}" + (" (§4.3)" if r["projected"] else "")
        out.append(f"| {r['data']} | {r['n']} | {r['loss'].upper()} | {r['nfev']} | {r['njev']} | "
                   f"{lnc} | {r['log_sigma2']:.2f} | {r['n_sv']} | {r['acc']:.2f} | "
                   f"{r['time']:.2f} | {r['rss_mb']:.0f} | {p[0]} / {p[1]} / {p[2]:.2f} | "
                   f"{r['message']} |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None, help="data root (default $SVMBOUND_DATA or ../shared/data)")
    ap.add_argument("--quick", action="store_true", help="banana only")
    ap.add_argument("--ijcnn1", default=None, metavar="N|full",
                    help="also tune on ijcnn1: the full training set or an N-row sample")
    ap.add_argument("--only-ijcnn1", action="store_true", help="skip the IDA data sets")
    ap.add_argument("--tol", type=float, default=1e-6, help="solver tolerance (Chung: 1e-6)")
    ap.add_argument("--out", help="write the table into this markdown file")
    args = ap.parse_args(argv)
    root = data_root(args.data)
    if root is None:
        return 2
    # warm-up: numba compilation is not part of the tuning time
    Xw, yw, _, _ = load_ida("banana", 1, root)
    BoundSVC(max_iter=1).fit(Xw[:50], yw[:50])

    names = ["banana"] if args.quick else ["banana", "image", "waveform"]
    if args.only_ijcnn1:
        names = []
    rows = []
    for name in names:
        X, y, Xt, yt = load_ida(name, 1, root)
        for loss in ("l1", "l2"):
            rows.append(run(name, X, y, Xt, yt, loss, args.tol))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    if args.ijcnn1:
        n = None if args.ijcnn1 == "full" else int(args.ijcnn1)
        X, y, Xt, yt = load_ijcnn1(root, n_train=n, random_state=0)
        label = "ijcnn1" if n is None else f"ijcnn1-{n}"
        for loss in ("l2", "l1"):
            rows.append(run(label, X, y, Xt, yt, loss, args.tol))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    text = table(rows)
    print(text)
    if args.out:
        cmd = "python benchmarks/papers/tuning.py " + " ".join(argv if argv is not None else sys.argv[1:])
        body = (f"Command: `{cmd.strip()}`\n\n{machine_description()}\n\n"
                f"IDA split 1 (train/test sizes as in Chung) / ijcnn1 as in LIBSVM's files, "
                f"start (ln C, ln σ²) = (0, 0), "
                f"box [−10, 10]², solver tol {args.tol:g}. `(§4.3)`: ln C reached 10 with no "
                f"bounded SV and was set to ln max α.\n\n{text}\n")
        heading = ("Radius–margin tuning on ijcnn1, Chung Table 4.1 layout (issue 5a, 5d)"
                   if args.only_ijcnn1 else
                   "Radius–margin tuning, Chung Table 4.1 layout (issue 3)")
        write_section(args.out, heading, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
