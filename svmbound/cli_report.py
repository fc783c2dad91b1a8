"""What ``svmbound tune`` and ``svmbound criteria`` print: the human summary of a tuning, the
JSON-ready pieces of its report, and the table of criteria."""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from .criteria import ALIAS_TARGETS, CRITERIA

__all__ = ["summary", "regression_summary", "criteria_table", "jsonable_floats",
           "fallback_report", "report_interrupted", "cv_results_report", "path_report",
           "regression_metrics"]


def fallback_report(fb):
    """The search that failed the model checks before the fallback (JSON-ready), or None."""
    if fb is None:
        return None
    out = {k: v for k, v in fb.items() if k != "path"}
    out["path"] = [{"x": [float(v) for v in p["x"]], "value": float(p["value"])}
                   for p in fb.get("path", [])]
    return out


def jsonable_floats(v):
    """Floats and lists of floats for JSON (ARD parameters are arrays)."""
    if v is None:
        return None
    a = np.asarray(v, dtype=float)
    return float(a) if a.ndim == 0 else a.tolist()


def cv_results_report(cv_results) -> dict:
    """``cv_results_`` (GridSearchCV's keys) JSON-ready."""
    return {k: ([{n: jsonable_floats(v) for n, v in p.items()} for p in c] if k == "params"
                else [jsonable_floats(v) for v in np.ma.getdata(c)] if k.startswith("param_")
                else list(c) if k == "source" else np.asarray(c).tolist())
            for k, c in cv_results.items()}


def path_report(path) -> list:
    """The search path (``search_.path``) JSON-ready."""
    return [{"x": [float(v) for v in p["x"]], "value": float(p["value"]),
             "grad": None if p.get("grad") is None else [float(v) for v in p["grad"]],
             "time_s": float(p["time_s"]), "accepted": bool(p.get("accepted", True)),
             **({"stage": p["stage"]} if "stage" in p else {})}
            for p in path]


def regression_metrics(y_true, y_pred) -> dict:
    """Mean squared error, mean absolute error and R² (scikit-learn's ``r2_score``, 1 − SSE/SST;
    None for a single row, where it is undefined) of a prediction."""
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

    y_true = np.asarray(y_true, dtype=float).ravel()
    y_pred = np.asarray(y_pred, dtype=float).ravel()
    return {"mse": float(mean_squared_error(y_true, y_pred)),
            "mae": float(mean_absolute_error(y_true, y_pred)),
            "r2": float(r2_score(y_true, y_pred)) if y_true.size > 1 else None}


def span_text(v) -> str:
    a = np.asarray(v, dtype=float)
    if a.ndim == 0:
        return f"{float(a):.6g}"
    return f"{a.size} values in [{a.min():.4g}, {a.max():.4g}]"


def _kernel_lines(r: dict) -> list:
    """The summary's lines of the chosen kernel parameters (σ², γ; ARD factors; degree)."""
    lines = []
    if isinstance(r.get("sigma2"), list):
        lines.append(f"           sigma^2 = {span_text(r['sigma2'])} (one per feature/group)")
        top = np.argsort(r["scaling_factors"])[::-1][:10]
        lines.append("           largest scaling factors 1/sigma (feature: factor): " + ", ".join(
            f"{k + 1}: {r['scaling_factors'][k]:.3g}" for k in top))
    elif r.get("sigma2") is not None:
        lines.append(f"           sigma^2 = {r['sigma2']:.6g} (ln sigma^2 = {r['log_sigma2']:.4f}), "
                     f"gamma = {r['gamma']:.6g}")
    if r.get("degree") is not None:
        lines.append(f"           degree = {r['degree']}, coef0 = {r['coef0']:.6g}")
    return lines


def _method(r: dict, named: str, searched: str) -> str:
    """What chose the model: the named criterion (``named``: "bound", "estimate"), or the
    default strategy's ``searched`` criteria + its validation (on a subsample: a hold-out)."""
    if r["criterion"] != "auto":
        return f"{r['criterion']} {named}"
    sub = r.get("subsample")
    return (f"{searched} + cross-validation" if not sub else
            f"{searched} on {sub['search']} of {sub['of']} rows + hold-out validation")


def summary(r: dict) -> str:
    what = _method(r, "bound", "bounds")
    lines = [f"svmbound: {what}, {r['loss'].upper()}-SVM, {r['kernel']} kernel",
             f"  chosen   C = {r['C']:.6g} (ln C = {r['log_C']:.4f})"]
    lines += _kernel_lines(r)
    lines.append(f"  value    {r['value']:.6g}  ({r['message']})")
    if r.get("fallback"):
        fb = r["fallback"]
        lines.append(f"  WARNING  the {fb['criterion']} {fb['search']} search gave an unusable "
                     f"model ({'; '.join(fb['problems'])}); fell back to the default strategy")
    for p in r.get("problems", []):
        lines.append(f"  WARNING  {p}")
    lines.append(f"  cost     {r['nfev']} function and {r['njev']} gradient evaluations, "
                 f"{r['n_trainings']} SVM trainings, {r['time_s']:.2f} s")
    lines.append(f"  model    {r['n_sv']} support vectors; train accuracy {100 * r['train_accuracy']:.2f} %")
    if "test_accuracy" in r:
        lines.append(f"  test     accuracy {100 * r['test_accuracy']:.2f} %")
    if r.get("c_projected"):
        lines.append("  note     no support vector at its bound C: C lowered to max alpha, which "
                     "trains the same model (Chung §4.3)")
    if "plot" in r:
        lines.append(f"  plot     {r['plot']}")
    if "model" in r:
        lines.append(f"  saved    LIBSVM model {r['model']}")
    return "\n".join(lines)


def regression_summary(r: dict) -> str:
    """The human summary of ``tune --svr`` (the report of ``cli.run_tune_svr``)."""
    what = _method(r, "estimate", "span estimate")
    lines = [f"svmbound: {what}, {r['loss'].upper()}-SVR (epsilon-SVR), {r['kernel']} kernel",
             f"  chosen   C = {r['C']:.6g} (ln C = {r['log_C']:.4f})"]
    lines += _kernel_lines(r)
    lines.append(f"           epsilon = {r['epsilon']:.6g} (ln epsilon = {r['log_epsilon']:.4f})")
    lines.append(f"  value    {r['value']:.6g}  ({r['message']})")
    for p in r.get("problems", []):
        lines.append(f"  WARNING  {p}")
    lines.append(f"  cost     {r['nfev']} function and {r['njev']} gradient evaluations, "
                 f"{r['n_trainings']} SVR trainings, {r['time_s']:.2f} s")
    lines.append(f"  model    {r['n_sv']} support vectors; train MSE {r['train_mse']:.6g}, "
                 f"MAE {r['train_mae']:.6g}, R^2 {_r2_text(r['train_r2'])}")
    if "test_mse" in r:
        lines.append(f"  test     MSE {r['test_mse']:.6g}, MAE {r['test_mae']:.6g}, "
                     f"R^2 {_r2_text(r['test_r2'])} ({r['n_test']} rows)")
    if r.get("c_projected"):
        lines.append("  note     no support vector at its bound C: C lowered to max "
                     "|alpha - alpha*|, which trains the same model (Chung §4.3)")
    if "model" in r:
        lines.append(f"  saved    LIBSVM model {r['model']}"
                     + (f" (svm-scale ranges {r['range_file']})" if "range_file" in r else ""))
    return "\n".join(lines)


def _r2_text(v) -> str:
    return "n/a" if v is None else f"{v:.4f}"


def criteria_table(as_json: bool) -> str:
    rows = [cls.describe() for cls in CRITERIA.values()]
    aliases = {v: k for k, v in ALIAS_TARGETS.items()}
    for r in rows:
        r["alias"] = aliases.get(r["name"])
    if as_json:
        return json.dumps(rows)
    head = f"{'name':<22}{'task':<16}{'loss':<7}{'grad':<6}source"
    lines = [head, "-" * 94]
    for r in rows:
        name = r["name"] + (f" ({r['alias']})" if r["alias"] else "")
        lines.append(f"{name:<22}{r['task']:<16}{r['loss']:<7}"
                     f"{'yes' if r['differentiable'] else 'no':<6}{r['source']}")
        lines.append(f"    {r['formula']}")
    lines.append("'radius-margin' picks rm-l2 for --loss l2 and rm-l1 for --loss l1.")
    lines.append("Classification criteria tune a classifier (svmbound tune); regression criteria "
                 "an epsilon-SVR (svmbound tune --svr).")
    return "\n".join(lines)


def report_interrupted(est, args, out=None, t0=None, signal: str = "SIGINT") -> dict:
    """After Ctrl-C or SIGTERM: print the best point found so far (``est.search_``, the partial
    search result ``BoundSVC.fit`` keeps) — one JSON object with ``"interrupted": true`` and
    ``"signal"`` (SIGINT or SIGTERM) under --json, else a short summary — and return it.
    ``main`` then exits with status 130 (SIGINT) or 143 (SIGTERM): ``signal``."""
    out = sys.stdout if out is None else out
    res = getattr(est, "search_", None)
    report = {"interrupted": True, "kernel": args.kernel, "loss": args.loss,
              "criterion": (res or {}).get("criterion", args.criterion),
              "value": None, "theta": None, "nfev": 0, "njev": 0,
              "message": "interrupted before the first evaluation", "path": []}
    if res is not None and res.get("x") is not None:
        x = np.asarray(res.x, dtype=float)
        params = res.get("params") or {}
        report.update(value=float(res.fun), theta=x.tolist(), log_C=float(x[0]),
                      nfev=int(res.nfev), njev=int(res.get("njev", 0)),
                      message=str(res.message))
        for k, v in params.items():
            report[k] = jsonable_floats(v)
        if params.get("sigma2") is not None:
            report["log_sigma2"] = jsonable_floats(np.log(params["sigma2"]))
        if getattr(args, "svr", False):        # tune --svr: θ ends with ln ε
            report.setdefault("epsilon", float(np.exp(x[-1])))
            report["log_epsilon"] = float(x[-1])
        report["path"] = [{"x": [float(v) for v in p["x"]], "value": float(p["value"]),
                           "grad": None if p.get("grad") is None else [float(v) for v in p["grad"]],
                           "time_s": float(p.get("time_s", 0.0)),
                           "accepted": bool(p.get("accepted", False))} for p in res.path]
    log = getattr(args, "resume", None) or getattr(args, "log", None)
    if log is not None:
        report["log"] = log
        report["resume"] = f"--resume {log}"
    report["signal"] = signal
    if t0 is not None:
        report["time_s"] = time.perf_counter() - t0
    if args.json:
        print(json.dumps(report), file=out, flush=True)
    else:
        what = "terminated (SIGTERM)" if report["signal"] == "SIGTERM" else "interrupted"
        lines = [f"svmbound: {what} after {report['nfev']} evaluations"]
        if report["value"] is not None:
            c = f" (C = {report['C']:.6g})" if "C" in report else ""
            lines.append(f"  best so far: value {report['value']:.6g} at theta = "
                         f"{np.round(report['theta'], 6).tolist()}{c}")
        if log is not None:
            lines.append(f"  continue with: --resume {log}")
        print("\n".join(lines), file=out, flush=True)
    return report
