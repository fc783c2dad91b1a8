#!/usr/bin/env python
"""Benchmark the numba SMO solvers against scikit-learn's SVC (LIBSVM) and measure warm starts.

For IDA banana, image, waveform (split 1) and a 10,000-row stratified sample of ijcnn1
(random_state=0), at C = 1, σ² = d (number of features), tol 1e-3 and 1e-6:

* cold ``solve_svm_dual`` vs ``SVC(C, gamma=kernel.gamma, tol, cache_size=200, shrinking=True).fit``
  (median wall time of ``--repeat`` runs), with the relative difference of the dual objectives
  (SVC's from its ``dual_coef_`` and our kernel's ``.block`` on its support vectors);
* a step of +0.3 in both ln C and ln σ²: cold solve vs one warm-started from the base solution
  (``warm_start_alpha``), and the same for the radius QP (``warm_start_beta``);
* a per-phase profile: the time per kernel row (alone, with one BLAS thread, into a fresh
  buffer, its dot-product part), the warm start's gradient initialisation alone
  (``max_iter=0``), our cold solve with one BLAS thread, and SVC with shrinking off;
  a short analysis generated from these numbers follows the tables.

Numba compile time is excluded by a warm-up call and reported separately (also a fresh compile
in a subprocess with an empty NUMBA_CACHE_DIR).

    python benchmarks/dev/solvers.py [--data DIR] [--quick] [--repeat N] [--out FILE.md]

With ``--out`` the section "## Solvers (issue 2)" of that markdown file is written or replaced;
the rest of the file is kept. Exit status 2 if the data directory is missing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/

from _report import machine_info, write_section  # noqa: E402

HEADING = "Solvers (issue 2)"
SECTION = "## " + HEADING
TOLS = (1e-3, 1e-6)
STEP = 0.3
IDA_SETS = ("banana", "image", "waveform")
IJCNN1_ROWS = 10_000
IJCNN1_ROWS_QUICK = 2_000
TARGET_COLD = 1.0      # ours cold ≤ 1.0 × SVC.fit for n ≥ 1000
TARGET_COLD_MIN_N = 1000
TARGET_WARM = 0.3      # warm-started ≤ 0.3 × cold
DEFAULT_CACHE = 200    # MB, both solvers


# ---------------------------------------------------------------------------------------------
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", metavar="DIR", default=None,
                   help="data root containing ida/ and libsvm/ (default: $SVMBOUND_DATA, else "
                        "../shared/data relative to the current directory or the repository)")
    p.add_argument("--quick", action="store_true",
                   help=f"one repeat and a {IJCNN1_ROWS_QUICK}-row ijcnn1 sample (smoke test)")
    p.add_argument("--repeat", type=int, default=None, metavar="N",
                   help="timed repeats per measurement, the median is reported (default 5, "
                        "1 with --quick)")
    p.add_argument("--out", metavar="FILE", default=None,
                   help=f"write/replace the section '{SECTION}' in this markdown file")
    args = p.parse_args(argv)
    if args.repeat is None:
        args.repeat = 1 if args.quick else 5
    if args.repeat < 1:
        p.error("--repeat must be >= 1")
    return args


_COMPILE_SNIPPET = """
import time, numpy as np
from svmbound.kernels import RBFKernel
from svmbound.solvers import solve_svm_dual, solve_radius
rng = np.random.default_rng(0)
X = rng.normal(size=(40, 3)); y = np.where(np.arange(40) % 2 == 0, 1.0, -1.0)
t = time.perf_counter()
solve_svm_dual(X, y, RBFKernel(1.0), 1.0)
solve_radius(X, RBFKernel(1.0))
print(time.perf_counter() - t)
"""


def fresh_compile_time() -> float | None:
    """Seconds for the first solver calls in a new process with an empty numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        try:
            out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=env, check=True,
                                 capture_output=True, text=True, timeout=600)
            return float(out.stdout.strip().splitlines()[-1])
        except (subprocess.SubprocessError, ValueError, IndexError):
            return None


def warm_up() -> float:
    """First calls in this process (numba compile or on-disk cache load), in seconds."""
    from svmbound.kernels import RBFKernel
    from svmbound.solvers import solve_radius, solve_svm_dual

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(np.arange(40) % 2 == 0, 1.0, -1.0)
    t = time.perf_counter()
    solve_svm_dual(X, y, RBFKernel(1.0), 1.0)
    solve_radius(X, RBFKernel(1.0))
    return time.perf_counter() - t


# ---------------------------------------------------------------------------------------------
def load_sets(data, quick):
    from svmbound.datasets import load_ida, load_ijcnn1

    sets = []
    for name in IDA_SETS:
        X, y, _, _ = load_ida(name, split=1, data=data)
        sets.append((name, X, y))
    rows = IJCNN1_ROWS_QUICK if quick else IJCNN1_ROWS
    X, y, _, _ = load_ijcnn1(data=data, n_train=rows, random_state=0)
    sets.append((f"ijcnn1 ({rows // 1000}k sample)", X, y))
    return sets


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


#: Fast calls are repeated until they have run this long in total (at most MAX_RUNS times), so
#: that millisecond timings are medians of many runs.
MIN_TOTAL_S = 0.5
MAX_RUNS = 200


def median_times(fns, repeat):
    """Run the callables interleaved (so load changes hit all alike) at least ``repeat`` times
    and until each has used MIN_TOTAL_S in total (at most MAX_RUNS); medians and last outputs."""
    times = [[] for _ in fns]
    outs = [None] * len(fns)
    runs = 0
    while runs < repeat or (runs < MAX_RUNS and min(map(sum, times)) < MIN_TOTAL_S):
        for k, fn in enumerate(fns):
            t, outs[k] = timed(fn)
            times[k].append(t)
        runs += 1
    return [statistics.median(t) for t in times], outs


def median_time(fn, repeat):
    (t,), (out,) = median_times([fn], repeat)
    return t, out


def svc_objective(model, X, kernel) -> float:
    """Dual objective Σα − ½ (yα)ᵀ K (yα) of a fitted binary SVC (sign of dual_coef_ irrelevant)."""
    coef = model.dual_coef_.ravel()
    Xs = X[model.support_]
    return float(np.abs(coef).sum() - 0.5 * coef @ kernel.block(Xs) @ coef)


def row_timings(X, kernel, n_rows=300) -> dict:
    """Seconds per kernel row of the solver's numba ``kernel_row``: into one reused buffer
    (``t_row``), the same with BLAS limited to one thread (``t_row_1t``), into fresh rows of a
    newly allocated buffer as the solver's cache does (``t_row_fresh``, includes first-touch
    page faults), and the ``X @ x_i`` part alone (``t_dot``: the same call with the linear
    kernel's code)."""
    from threadpoolctl import threadpool_limits

    from svmbound.kernels._rows import LINEAR as LINEAR_CODE, kernel_row

    code, gamma, coef0, degree = kernel.spec()
    sq = np.einsum("ij,ij->i", X, X)
    out = np.empty(X.shape[0])
    m = min(n_rows, X.shape[0])
    kernel_row(X, sq, 0, code, gamma, coef0, degree, out)

    def rows_into(target, code=code):
        t = time.perf_counter()
        for i in range(m):
            kernel_row(X, sq, i, code, gamma, coef0, degree, target(i))
        return (time.perf_counter() - t) / m

    def med(fn, min_total=0.3, min_runs=5, max_runs=500):
        times = []
        while len(times) < min_runs or (sum(times) * m < min_total and len(times) < max_runs):
            times.append(fn())
        return statistics.median(times)

    res = {"t_row": med(lambda: rows_into(lambda i: out))}
    with threadpool_limits(limits=1, user_api="blas"):
        res["t_row_1t"] = med(lambda: rows_into(lambda i: out))

    def fresh_rows():
        buf = np.empty((m, X.shape[0]))
        return rows_into(lambda i: buf[i])

    res["t_row_fresh"] = med(fresh_rows)
    # the same call with the linear kernel's code: X @ x_i plus a copy, the dot-product part
    res["t_dot"] = med(lambda: rows_into(lambda i: out, LINEAR_CODE))
    v = -np.abs(np.random.default_rng(0).normal(size=X.shape[0]))

    def np_exp():
        t = time.perf_counter()
        for _ in range(m):
            np.exp(v, out=out)
        return (time.perf_counter() - t) / m

    res["t_npexp"] = med(np_exp)  # numpy's vectorised exp of one row's worth of values
    return res


_CONTROLLER = None


def one_blas_thread(fn):
    """``fn`` run with BLAS limited to one thread (a cached ThreadpoolController keeps the
    switch at tens of microseconds, so limited and unlimited calls can be interleaved)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        from threadpoolctl import ThreadpoolController
        _CONTROLLER = ThreadpoolController()

    def run():
        with _CONTROLLER.limit(limits=1, user_api="blas"):
            return fn()
    return run


def bench(name, X, y, repeat):
    from sklearn.svm import SVC

    from svmbound.kernels import RBFKernel
    from svmbound.solvers import (solve_radius, solve_svm_dual, warm_start_alpha,
                                  warm_start_beta)

    n, d = X.shape
    k0, C0 = RBFKernel(float(d)), 1.0
    k1, C1 = RBFKernel(float(d) * np.exp(STEP)), float(np.exp(STEP))
    rows = row_timings(X, k0)
    results = []
    for tol in TOLS:
        r = {"name": name, "n": n, "d": d, "tol": tol, **rows}

        def svc(shrinking):
            return lambda: SVC(C=C0, gamma=k0.gamma, tol=tol, cache_size=200,
                               shrinking=shrinking).fit(X, y)

        cold = lambda: solve_svm_dual(X, y, k0, C0, tol=tol)  # noqa: E731
        (r["cold"], r["svc"], r["svc_noshrink"], r["cold_1t"]), (base, m, m2, _) = median_times(
            [cold, svc(True), svc(False), one_blas_thread(cold)], repeat)
        r["it_cold"], r["rows_cold"], r["converged"] = base.n_iter, base.n_kernel_rows, base.converged
        r["it_svc"], r["it_svc_noshrink"] = int(np.sum(m.n_iter_)), int(np.sum(m2.n_iter_))
        obj_svc = svc_objective(m, X, k0)
        r["obj_rel"] = (base.objective - obj_svc) / abs(obj_svc)
        r["n_sv"] = int(np.sum(base.alpha > 0))

        # ---- warm start across a step in (ln C, ln σ²); init = the warm call stopped at once ----
        a0 = warm_start_alpha(base.alpha, y, C0, C1, "l1")
        cold1_f = lambda: solve_svm_dual(X, y, k1, C1, tol=tol)  # noqa: E731
        warm1_f = lambda: solve_svm_dual(  # noqa: E731
            X, y, k1, C1, tol=tol, alpha0=warm_start_alpha(base.alpha, y, C0, C1, "l1"))
        init_f = lambda: solve_svm_dual(X, y, k1, C1, tol=tol, alpha0=a0, max_iter=0)  # noqa
        (r["cold1"], r["warm1"], r["init"], r["cold1_1t"], r["warm1_1t"], r["init_1t"]), \
            (cold1, warm1, init, _, _, _) = median_times(
                [cold1_f, warm1_f, init_f, one_blas_thread(cold1_f), one_blas_thread(warm1_f),
                 one_blas_thread(init_f)], repeat)
        r["it_cold1"], r["rows_cold1"] = cold1.n_iter, cold1.n_kernel_rows
        r["it_warm1"], r["rows_warm1"] = warm1.n_iter, warm1.n_kernel_rows
        r["warm_obj_rel"] = (warm1.objective - cold1.objective) / abs(cold1.objective)
        r["nnz_a0"], r["rows_init"] = int(np.sum(a0 > 0)), init.n_kernel_rows
        r["bnd_a0"] = int(np.sum(a0 >= C1))
        r["init_values"] = count_block_values(
            lambda kern: solve_svm_dual(X, y, kern, C1, tol=tol, alpha0=a0, max_iter=0), k1)

        # ---- radius QP ----
        rad0 = solve_radius(X, k0, tol=tol)
        b0 = warm_start_beta(rad0.beta)
        rcold_f = lambda: solve_radius(X, k1, tol=tol)  # noqa: E731
        rwarm_f = lambda: solve_radius(  # noqa: E731
            X, k1, tol=tol, beta0=warm_start_beta(rad0.beta))
        (r["rcold1"], r["rwarm1"], r["rcold1_1t"], r["rwarm1_1t"]), (rc, rw, _, _) = \
            median_times([rcold_f, rwarm_f, one_blas_thread(rcold_f), one_blas_thread(rwarm_f)],
                         repeat)
        r["rit_cold1"], r["rrows_cold1"] = rc.n_iter, rc.n_kernel_rows
        r["rit_warm1"], r["rrows_warm1"] = rw.n_iter, rw.n_kernel_rows
        r["r2_rel"] = (rw.r2 - rc.r2) / abs(rc.r2)
        r["nnz_b0"] = int(np.sum(b0 > 0))
        results.append(r)
        print(f"  {name} tol={tol:g}: cold {r['cold']:.4f}s SVC {r['svc']:.4f}s "
              f"warm/cold {r['warm1'] / r['cold1']:.2f}", file=sys.stderr)
    return results


def count_block_values(call, kernel) -> int:
    """Kernel values computed through ``Kernel.block`` (the blocked, vectorised path) during
    ``call(counting_kernel)``; the numba SMO rows are counted separately by n_kernel_rows."""
    counter = [0]
    base = type(kernel)

    class Counting(base):
        def block(self, X, Z=None):
            counter[0] += X.shape[0] * (X.shape[0] if Z is None else Z.shape[0])
            return super().block(X, Z)

    k = Counting.__new__(Counting)
    k.__dict__.update(kernel.__dict__)
    call(k)
    return counter[0]


def solver_facts() -> dict:
    """What the benchmark needs to know about the solver under test (for the analysis)."""
    import inspect

    from svmbound.solvers import _smo

    facts = {"shrinking": "shrinking" in inspect.signature(_smo.smo.py_func).parameters,
             "commit": None}
    try:
        root = Path(__file__).resolve().parents[2]
        paths = ["svmbound/solvers", "svmbound/kernels.py"]
        out = subprocess.run(["git", "log", "-1", "--format=%h", "--", *paths], cwd=root,
                             capture_output=True, text=True, timeout=30)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                *paths], cwd=root,
                               capture_output=True, text=True, timeout=30)
        if out.returncode == 0 and out.stdout.strip():
            facts["commit"] = out.stdout.strip() + (" + uncommitted changes"
                                                    if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return facts


def blas_threads() -> str:
    try:
        from threadpoolctl import threadpool_info
        info = [f"{d['internal_api']}×{d['num_threads']}" for d in threadpool_info()
                if d.get("user_api") == "blas"]
        return ", ".join(dict.fromkeys(info)) or "n/a"
    except Exception:  # pragma: no cover - diagnostics only
        return "n/a"


# ---------------------------------------------------------------------------------------------
def _f(t):
    return f"{t:.4f}" if t < 10 else f"{t:.2f}"


def render(results, info, facts, compile_first, compile_fresh, args, wall) -> str:
    """The section body (without its '## ' heading)."""
    cmd = "python benchmarks/dev/solvers.py" + (" --quick" if args.quick else "") + \
          (f" --repeat {args.repeat}" if args.repeat != (1 if args.quick else 5) else "") + \
          (f" --data {args.data}" if args.data else "") + \
          (f" --out {args.out}" if args.out else "")
    L = []
    L.append(f"Command: `{cmd}` (from the repository root; data from `--data`, else "
             f"`$SVMBOUND_DATA`, else `../shared/data`). Generated by `benchmarks/dev/solvers.py`; "
             f"rerunning replaces this section only.")
    L.append("")
    L.append(f"Machine: {info['nproc']} CPU(s) available, {info['cpu']}; {info['platform']}; "
             f"Python {info['python']}, numpy {info['numpy']}, scipy {info['scipy']}, "
             f"scikit-learn {info['sklearn']}, numba {info['numba']}; BLAS threads: "
             f"{blas_threads()}. Load average at start: {info['load']} (the machine is shared "
             f"with other jobs, so timings carry noise). Solver under test "
             f"(`svmbound/solvers/`, `svmbound/kernels.py`): last commit "
             f"{facts['commit'] or 'unknown'}. "
             f"Wall time of the run: {wall:.0f} s.")
    L.append("")
    fresh = f"{compile_fresh:.2f} s" if compile_fresh is not None else "n/a"
    L.append(f"Numba compile time, excluded from every timing below by a warm-up call: first "
             f"solver calls in this process {compile_first:.2f} s (numba's on-disk cache was "
             f"{'used' if compile_fresh is None or compile_first < 0.5 * compile_fresh else 'not used'}); "
             f"fresh compile in a subprocess with an empty `NUMBA_CACHE_DIR`: {fresh}.")
    L.append("")
    L.append(f"Setup: RBF kernel, C = 1, σ² = d (γ = 1/(2d)), L1 loss. Times are wall-clock "
             f"medians of at least {args.repeat} run(s); calls that take less than "
             f"{MIN_TOTAL_S} s in total are repeated up to {MAX_RUNS} times, and the calls "
             f"compared with each other (including the one-BLAS-thread variants) run "
             f"interleaved. *ours cold* = `solve_svm_dual` from "
             f"α = 0; *SVC.fit* = `sklearn.svm.SVC(C, gamma=kernel.gamma, tol, cache_size=200, "
             f"shrinking=True).fit` (LIBSVM; same stopping rule, maximal KKT violation < tol). "
             f"*rel. obj. diff* = (ours − SVC)/|SVC| of the dual objective (SVC's from "
             f"`dual_coef_` and our kernel's `.block` on its support vectors; > 0: ours is "
             f"higher, i.e. closer to the maximum). *Warm start*: one step of +{STEP} in both "
             f"ln C and ln σ² from the base solution at the same tol; *cold@step* solves there "
             f"from α = 0, *warm* from `warm_start_alpha(α_base, y, 1, e^{STEP}, 'l1')` (time "
             f"includes that call). Iterations = SMO pair updates; kernel rows = rows of Q "
             f"computed (cache misses; 200 MB cache, as SVC).")
    L.append("")
    L.append("| dataset | n | d | tol | ours cold (s) | SVC.fit (s) | ours/SVC | rel. obj. diff "
             "| cold@step (s) | warm (s) | warm/cold | iterations ours / SVC / cold@step / warm "
             "| kernel rows cold / cold@step / warm |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        L.append(f"| {r['name']} | {r['n']} | {r['d']} | {r['tol']:g} | {_f(r['cold'])} | "
                 f"{_f(r['svc'])} | {r['cold'] / r['svc']:.2f} | {r['obj_rel']:+.1e} | "
                 f"{_f(r['cold1'])} | {_f(r['warm1'])} | {r['warm1'] / r['cold1']:.2f} | "
                 f"{r['it_cold']} / {r['it_svc']} / {r['it_cold1']} / {r['it_warm1']} | "
                 f"{r['rows_cold']} / {r['rows_cold1']} / {r['rows_warm1']} |")
    L.append("")
    L.append(f"Radius QP (`solve_radius`, shift 0) at the stepped kernel σ² = d·e^{STEP}: cold "
             f"(β = e_i at the largest K_ii) vs warm (`warm_start_beta(β)` of the base kernel's "
             f"solution).")
    L.append("")
    L.append("| dataset | n | tol | cold (s) | warm (s) | warm/cold | warm/cold 1 BLAS thr. "
             "| iterations cold / warm | kernel rows cold / warm | nnz(β₀) "
             "| rel. R² diff warm vs cold |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        L.append(f"| {r['name']} | {r['n']} | {r['tol']:g} | {_f(r['rcold1'])} | "
                 f"{_f(r['rwarm1'])} | {r['rwarm1'] / r['rcold1']:.2f} | "
                 f"{r['rwarm1_1t'] / r['rcold1_1t']:.2f} | "
                 f"{r['rit_cold1']} / {r['rit_warm1']} | {r['rrows_cold1']} / "
                 f"{r['rrows_warm1']} | {r['nnz_b0']} | {r['r2_rel']:+.1e} |")
    L.append("")

    # ---- targets ----
    big = [r for r in results if r["n"] >= TARGET_COLD_MIN_N]
    cold_miss = [r for r in big if r["cold"] / r["svc"] > TARGET_COLD]
    warm_miss = [r for r in results if r["warm1"] / r["cold1"] > TARGET_WARM]
    rwarm_miss = [r for r in results if r["rwarm1"] / r["rcold1"] > TARGET_WARM]

    def lst(rs, num, den):
        return ", ".join(f"{r['name']} tol {r['tol']:g}: {r[num] / r[den]:.2f}" for r in rs)

    def rng(num, den):
        v = [r[num] / r[den] for r in results]
        return f"{min(v):.2f} to {max(v):.2f}"

    L.append("### Targets")
    L.append("")
    L.append(f"* Cold solve ≤ {TARGET_COLD:.1f}× SVC.fit for n ≥ {TARGET_COLD_MIN_N}: "
             + (f"**met** on all {len(big)} rows ({lst(big, 'cold', 'svc')})." if not cold_miss
                else f"**missed** on {len(cold_miss)} of {len(big)} rows "
                     f"({lst(cold_miss, 'cold', 'svc')})."))
    L.append(f"* Warm-started SVM ≤ {TARGET_WARM}× cold: "
             + ("**met** on every row." if not warm_miss else
                f"**missed** on {len(warm_miss)} of {len(results)} rows (warm/cold "
                f"{rng('warm1', 'cold1')})."))
    w1 = [r["warm1_1t"] / r["cold1_1t"] for r in results]
    L.append(f"  With BLAS limited to one thread (see the profile): warm/cold "
             f"{min(w1):.2f} to {max(w1):.2f}, ≤ {TARGET_WARM} on "
             f"{sum(v <= TARGET_WARM for v in w1)} of {len(w1)} rows.")
    L.append(f"* Warm-started radius QP ≤ {TARGET_WARM}× cold: "
             + ("**met** on every row." if not rwarm_miss else
                f"**missed** on {len(rwarm_miss)} of {len(results)} rows (warm/cold "
                f"{rng('rwarm1', 'rcold1')})."))
    L.append("")

    # ---- profile ----
    L.append("### Where the time goes (profile)")
    L.append("")
    L.append("*t/row* = one RBF kernel row by the solver's own numba `kernel_row` (`np.dot(X, "
             "x_i)`, then a scalar `exp` per entry) into a reused buffer, timed alone; *1 BLAS "
             "thr.* = the same with BLAS limited to one thread; *fresh* = into the rows of a "
             "newly allocated buffer, as when the solver fills its row cache (first-touch page "
             "faults included); *dot* = the same call for the linear kernel, i.e. the "
             "`X @ x_i` part. *rows share* = kernel rows of the cold solve × fresh ÷ cold "
             "time. *init* = the warm-started call stopped before its first iteration "
             "(`max_iter=0`): the initial gradient G = Qα₀ − e, which needs the n × nnz(α₀) "
             "kernel values K(X, X_{α₀≠0}) at the new kernel, plus one working-set selection. "
             "*init values ÷ n·nnz(α₀)* = kernel values the initialisation computes through "
             "`Kernel.block` (counted), relative to the n × nnz(α₀) it needs; *init ns/value* = "
             "init time ÷ those values, vs *row ns/value* = fresh ÷ n for an SMO row. "
             "*init 1 thr.*, *warm/cold 1 thr.* = the same with BLAS limited to one thread. "
             "*SMO rows after init* = kernel rows the warm solve computes beyond those counted "
             "by the `max_iter=0` call. *ours 1 thr.* = our cold solve with BLAS limited to one "
             "thread (LIBSVM is single-threaded); *SVC "
             "no-shrink* = SVC with `shrinking=False`.")
    L.append("")
    L.append("| dataset | tol | t/row (ms) | 1 BLAS thr. | fresh | dot | rows share "
             "| nnz(α₀) (at C) | init (s) | init values ÷ n·nnz(α₀) | init ns/value "
             "| row ns/value | init ÷ cold@step | init ÷ warm | SMO rows after init / cold@step "
             "| warm/cold | init 1 thr. (s) | warm/cold 1 thr. | ours 1 thr. (s) "
             "| SVC no-shrink (s) | SVC iters shrink / no-shrink |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
             "---:|---:|---:|---:|")
    for r in results:
        L.append(f"| {r['name']} | {r['tol']:g} | {r['t_row'] * 1e3:.3f} | "
                 f"{r['t_row_1t'] * 1e3:.3f} | {r['t_row_fresh'] * 1e3:.3f} | "
                 f"{r['t_dot'] * 1e3:.3f} | {r['rows_cold'] * r['t_row_fresh'] / r['cold']:.2f} | "
                 f"{r['nnz_a0']} ({r['bnd_a0']}) | {_f(r['init'])} | "
                 f"{r['init_values'] / (r['n'] * r['nnz_a0']):.2f} | "
                 f"{_ns(r['init'], r['init_values'])} | {r['t_row_fresh'] / r['n'] * 1e9:.1f} | "
                 f"{r['init'] / r['cold1']:.2f} | "
                 f"{r['init'] / r['warm1']:.2f} | {r['rows_warm1'] - r['rows_init']} / "
                 f"{r['rows_cold1']} | {r['warm1'] / r['cold1']:.2f} | {_f(r['init_1t'])} | "
                 f"{r['warm1_1t'] / r['cold1_1t']:.2f} | {_f(r['cold_1t'])} | "
                 f"{_f(r['svc_noshrink'])} | {r['it_svc']} / {r['it_svc_noshrink']} |")
    L.append("")
    L.append(analysis(results, facts))
    L.append("")
    return "\n".join(L)


def _ns(seconds, values):
    return f"{seconds / values * 1e9:.1f}" if values else "n/a"


def _span(values, fmt="{:.2f}"):
    lo, hi = min(values), max(values)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else \
        f"{fmt.format(lo)}–{fmt.format(hi)}"


def analysis(results, facts) -> str:
    """A short factual reading of the numbers; every figure comes from ``results``."""
    big = max(results, key=lambda r: r["n"])
    bigs = [r for r in results if r["name"] == big["name"]]
    r3 = bigs[0]
    rows_s = r3["rows_cold"] * r3["t_row_fresh"]
    exp_share = max(0.0, 1.0 - r3["t_dot"] / r3["t_row"])
    exp_ns = max(0.0, r3["t_row"] - r3["t_dot"]) / r3["n"] * 1e9
    shrink_txt = ("shrinks like LIBSVM, but its `kernel_row` always computes all n entries of a "
                  "row (LIBSVM computes only the active, unshrunk part of an uncached row)"
                  if facts["shrinking"] else "does not shrink")
    parts = []
    parts.append(
        f"**Cold solve.** On the largest set ({r3['name']}) at tol {r3['tol']:g} our cold solve "
        f"computes {r3['rows_cold']} kernel rows ({r3['rows_cold'] / r3['n_sv']:.2f}× its "
        f"{r3['n_sv']} support vectors) in {r3['it_cold']} iterations (LIBSVM: {r3['it_svc']}). "
        f"A row costs {r3['t_row'] * 1e3:.3f} ms into a reused buffer and "
        f"{r3['t_row_fresh'] * 1e3:.3f} ms into a freshly allocated one"
        + (" (first-touch page faults; the solver allocates its row cache in every call)"
           if r3["t_row_fresh"] > 1.1 * r3["t_row"] else "")
        + f", so kernel rows account for about "
        f"{rows_s:.2f} s of the {r3['cold']:.2f} s ({rows_s / r3['cold']:.0%}); the rest is "
        f"working-set selection, gradient updates and shrinking. Of a row, `X @ x_i` takes "
        f"{r3['t_dot'] * 1e3:.3f} ms and the {r3['n']} scalar `exp` calls the other "
        f"{exp_share:.0%}, i.e. {exp_ns:.1f} ns per value, where numpy's vectorised `np.exp` "
        f"takes {r3['t_npexp'] / r3['n'] * 1e9:.1f} ns. "
        f"With BLAS limited to one thread a row takes {r3['t_row_1t'] * 1e3:.3f} ms and the "
        f"cold solve {r3['cold_1t']:.2f} s ({r3['cold_1t'] / r3['svc']:.2f}× SVC.fit, which is "
        f"single-threaded). The solver {shrink_txt}; SVC with `shrinking=False` takes "
        f"{r3['svc_noshrink']:.2f} s vs {r3['svc']:.2f} s with it ({r3['it_svc_noshrink']} vs "
        f"{r3['it_svc']} iterations).")
    ratios = [r["warm1"] / r["cold1"] for r in results]
    rows_frac = [r["nnz_a0"] / r["rows_cold1"] for r in results]
    floors = [r["init"] / r["cold1"] for r in results]
    shares = [r["init"] / r["warm1"] for r in results]
    after = [(r["rows_warm1"] - r["rows_init"]) / r["rows_cold1"] for r in results]
    smo_part = [max(0.0, r["warm1"] - r["init"]) / r["cold1"] for r in results]
    its = "; ".join(f"{r['name']} {r['tol']:g}: {r['it_warm1']} vs {r['it_cold1']}"
                    for r in results)
    big_ratios = ", ".join(f"{r['warm1'] / r['cold1']:.2f}" for r in bigs)
    txt = (f"**Warm start.** warm/cold is {_span(ratios)} ({r3['name']}: {big_ratios}). "
           f"The initial gradient G = Qα₀ − e at the new kernel needs the n × nnz(α₀) kernel "
           f"values K(X, X_{{α₀≠0}}); nnz(α₀) is the previous solution's support-vector count, "
           f"{_span(rows_frac, '{:.0%}')} of the number of rows a cold solve computes, and since "
           f"σ² changed nothing from the previous solve is reusable. Measured alone, this "
           f"initialisation costs {_span(floors)}× the cold solve and is "
           f"{_span(shares, '{:.0%}')} of the warm time. The rest of the warm solve (warm − "
           f"init, clipped at 0) costs {_span(smo_part)}× the cold solve; in it the SMO computes "
           f"{_span(after, '{:.0%}')} as many kernel rows as the whole cold solve. Iterations, "
           f"warm vs cold: {its}. ")
    vals = [r["init_values"] / (r["n"] * r["nnz_a0"]) for r in results if r["nnz_a0"]]
    if vals and max(vals) > 1.05:
        expected = [1.0 + r["bnd_a0"] / r["nnz_a0"] for r in results if r["nnz_a0"]]
        twice = all(abs(v - e) < 0.02 for v, e in zip(vals, expected))
        txt += (f"The initialisation computes {_span(vals)}× the n × nnz(α₀) kernel values it "
                f"needs (counted through `Kernel.block`)"
                + (f", which matches 1 + (α₀ at C)/nnz(α₀) on every row: the columns of the "
                   f"bounded α₀ ({_span([r['bnd_a0'] / r['nnz_a0'] for r in results], '{:.0%}')} "
                   f"of the nonzero ones) are evaluated a second time, for Ḡ. One pass over "
                   f"K(X, X_{{α₀≠0}}) multiplied by both weight vectors at once would avoid "
                   f"that. " if twice else ". "))
    init_ns = [r["init"] / r["init_values"] * 1e9 for r in results if r["init_values"]]
    row_ns = [r["t_row_fresh"] / r["n"] * 1e9 for r in results if r["init_values"]]
    if init_ns:
        txt += (f"Per kernel value the initialisation costs {_span(init_ns, '{:.1f}')} ns, an "
                f"SMO row {_span(row_ns, '{:.1f}')} ns. ")
    slow = [r["init"] / r["init_1t"] for r in results]
    w1 = [r["warm1_1t"] / r["cold1_1t"] for r in results]
    f1 = [r["init_1t"] / r["cold1_1t"] for r in results]
    if max(slow) > 1.5:
        txt += (f"BLAS threading matters for the initialisation: with the default "
                f"{blas_threads()} it takes {_span(slow)}× as long as with one BLAS thread "
                f"(for the cold solve, which runs in numba apart from `np.dot`, the ratio is "
                f"{_span([r['cold'] / r['cold_1t'] for r in results])}), consistent with BLAS "
                f"threads oversubscribing the "
                f"{os.cpu_count()} CPUs of this shared machine. With one BLAS thread the initialisation costs {_span(f1)}× "
                f"the cold solve and warm/cold is {_span(w1)}. ")
    else:
        txt += (f"With one BLAS thread the initialisation costs {_span(f1)}× the cold solve "
                f"and warm/cold is {_span(w1)}. ")
    floors = [min(a, b) for a, b in zip(floors, f1)]
    if min(floors) > TARGET_WARM:
        txt += (f"Since the initialisation alone exceeds {TARGET_WARM}× the cold time on every "
                f"row (with either BLAS setting), the ≤ {TARGET_WARM}× target cannot be met for a joint (C, σ²) step "
                f"without making it cheaper, however good α₀ is. ")
    else:
        txt += (f"The initialisation alone is ≤ {TARGET_WARM}× cold on "
                f"{sum(f <= TARGET_WARM for f in floors)} of {len(floors)} rows; there the "
                f"remaining SMO phase decides. ")
    if max(after) > 0.5:
        txt += ("Where the SMO after the initialisation computes most of the rows a cold solve "
                "needs, the kernel values computed for the initial gradient are evidently not "
                "reused by the row cache (K is symmetric: the columns K(X, x_j) for α₀_j ≠ 0 are "
                "exactly the rows the SMO asks for first). ")
    txt += ("For steps that change only C, the kernel is unchanged and `warm_start_alpha` "
            "rescales α (bounded entries stay at the bound, yᵀα = 0 is kept), so for L1 "
            "G = (C_new/C_old)·(G_prev + e) − e would need no kernel value at all.")
    parts.append(txt)
    rr = [r["rwarm1"] / r["rcold1"] for r in results]
    rr1 = [r["rwarm1_1t"] / r["rcold1_1t"] for r in results]
    parts.append(
        f"**Radius QP.** warm/cold is {_span(rr)} ({_span(rr1)} with one BLAS thread). The cold start (β = e_i at the largest "
        f"K_ii) converges in {_span([r['rit_cold1'] for r in results], '{}')} iterations with "
        f"{_span([r['rrows_cold1'] for r in results], '{}')} kernel rows (few points support "
        f"the ball), and the warm start has {_span([r['nnz_b0'] for r in results], '{}')} "
        f"nonzero β₀, whose kernel values are needed before the first iteration — about as "
        f"many as the whole cold solve uses — so warm starting cannot make it much cheaper. The "
        f"cold radius solve takes at most {max(r['rcold1'] for r in results) * 1e3:.1f} ms here, "
        f"at most {max(r['rcold1'] / r['cold1'] for r in results):.0%} of the SVM solve at the "
        f"same point.")
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    args = parse_args(argv)
    from svmbound.datasets import data_dir

    try:
        data = data_dir(args.data)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    t_start = time.perf_counter()
    info = machine_info()
    facts = solver_facts()
    compile_first = warm_up()
    print(f"warm-up (compile / cache load): {compile_first:.2f} s", file=sys.stderr)
    compile_fresh = fresh_compile_time()
    print(f"fresh compile (subprocess): {compile_fresh}", file=sys.stderr)
    try:
        sets = load_sets(data, args.quick)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: cannot load the benchmark data from {data}: {exc}", file=sys.stderr)
        return 2
    results = []
    for name, X, y in sets:
        results += bench(name, X, y, args.repeat)
    wall = time.perf_counter() - t_start
    body = render(results, info, facts, compile_first, compile_fresh, args, wall)
    print(SECTION + "\n\n" + body)
    if args.out:
        write_section(args.out, HEADING, body)
        print(f"wrote section '{SECTION}' to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
