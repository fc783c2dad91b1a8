"""What ``svmbound tune`` and ``svmbound criteria`` print: the human summary of a tuning, the
JSON-ready pieces of its report, and the table of criteria."""

from __future__ import annotations

import json

import numpy as np

from .criteria import ALIAS_TARGETS, CRITERIA

__all__ = ["summary", "criteria_table", "jsonable_floats", "fallback_report"]


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


def span_text(v) -> str:
    a = np.asarray(v, dtype=float)
    if a.ndim == 0:
        return f"{float(a):.6g}"
    return f"{a.size} values in [{a.min():.4g}, {a.max():.4g}]"


def summary(r: dict) -> str:
    what = f"{r['criterion']} bound"
    if r["criterion"] == "auto":
        sub = r.get("subsample")
        what = ("bounds + cross-validation" if not sub else
                f"bounds on {sub['search']} of {sub['of']} rows + hold-out validation")
    lines = [f"svmbound: {what}, {r['loss'].upper()}-SVM, {r['kernel']} kernel",
             f"  chosen   C = {r['C']:.6g} (ln C = {r['log_C']:.4f})"]
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
        lines.append("  note     ln C reached its upper bound with no bounded SV: C set to max alpha "
                     "(Chung §4.3)")
    if "plot" in r:
        lines.append(f"  plot     {r['plot']}")
    if "model" in r:
        lines.append(f"  saved    LIBSVM model {r['model']}")
    return "\n".join(lines)


def criteria_table(as_json: bool) -> str:
    rows = [cls.describe() for cls in CRITERIA.values()]
    aliases = {v: k for k, v in ALIAS_TARGETS.items()}
    for r in rows:
        r["alias"] = aliases.get(r["name"])
    if as_json:
        return json.dumps(rows)
    head = f"{'name':<22}{'loss':<7}{'grad':<6}source"
    lines = [head, "-" * 78]
    for r in rows:
        name = r["name"] + (f" ({r['alias']})" if r["alias"] else "")
        lines.append(f"{name:<22}{r['loss']:<7}{'yes' if r['differentiable'] else 'no':<6}"
                     f"{r['source']}")
        lines.append(f"    {r['formula']}")
    lines.append("'radius-margin' picks rm-l2 for --loss l2 and rm-l1 for --loss l1.")
    return "\n".join(lines)
