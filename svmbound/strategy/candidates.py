"""Steps 3–4 of the default strategy: the candidates and how one is picked.

The candidates are each bound search's minimum and, per loss, one of them moved by
``neighbour_steps`` (C·e²: the bounds' bias is towards too small a C, Chung §4.3); θ₀ only when
every other candidate validates no better than always predicting the larger class. The
validation (stratified k-fold CV, or a hold-out on large data) picks the fewest errors; ties go
to the smaller C, then the smaller held-out hinge loss (:func:`cv_key`). A pick whose model
proves unusable gives way to the next (:func:`next_usable_candidate`); a pick no better than
chance is reported (:func:`validation_problems`).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..checks import is_severe
from ..criteria.reference import held_out_trivial_errors
from .._validation import shown_label
from ..exceptions import DataWarning
from .config import DEFAULT_CONFIG, StrategyConfig

__all__ = ["loss_steps", "candidate_points", "distinct_points", "cv_key", "next_usable_candidate",
           "validation_problems", "single_sample_classes", "check_validation_classes",
           "trivial_errors", "n_folds_for"]


def loss_steps(steps, loss: str | None):
    """The steps of the loss ``loss`` when ``steps`` is a dict by loss ('l1', 'l2'; a loss it
    does not name: no steps), else ``steps`` itself (a dict by bound name, or one sequence of
    steps for every bound)."""
    if isinstance(steps, dict) and steps and set(steps) <= {"l1", "l2"}:
        return steps.get(loss, {})
    return steps



def candidate_points(x0, minima, lower, upper, steps=None, start_steps=None,
                     include_start=None, loss=None, config: StrategyConfig = DEFAULT_CONFIG):
    """[(source, θ)]: each bound's minimum followed by it moved by each of its ``steps``
    (Δ ln C, Δ ln σ²), then — with ``include_start`` — θ₀ and θ₀ moved by each of
    ``start_steps`` (all clipped to the box); duplicates (to 1e-9) dropped. ``steps``: a
    dict from a bound's name to its steps (a bound not in it: none), or one sequence of steps
    for every bound; defaults ``config.neighbour_steps``, ``start_steps``, ``start_candidate``. Points
    of one kernel come one after the other, so the CV's warm start between them is a step in C
    alone (no kernel value)."""
    steps = loss_steps(config.neighbour_steps if steps is None else steps, loss)
    start_steps = config.start_steps if start_steps is None else start_steps
    include_start = config.start_candidate if include_start is None else include_start
    cands = []
    moved = [(f"{name} minimum", x, steps.get(name, ()) if isinstance(steps, dict) else steps)
             for name, x in minima]
    if include_start:
        moved.append(("start", x0, start_steps))
    for name, x, st in moved:
        cands.append((name, np.asarray(x, float)))
        for dc, ds in st:
            t = np.asarray(x, float).copy()
            t[0] += dc
            if t.size > 1:
                t[1:] += ds
            elif ds:
                continue
            t = np.clip(t, lower, upper)
            label = ", ".join(f"{v} {d:+g}" for v, d in (("ln C", dc), ("ln sigma2", ds)) if d)
            cands.append((f"{name}, {label}", t))
    return distinct_points(cands)


def distinct_points(points, kept=()) -> list:
    """``kept`` followed by those of ``points`` ([(source, θ)]) that are neither among them nor
    an earlier one (to 1e-9 in every coordinate)."""
    out = list(kept)
    for src, t in points:
        if not any(float(np.max(np.abs(t - u))) <= 1e-9 for _, u in out):
            out.append((src, t))
    return out


def cv_key(record) -> tuple:
    """Order of the candidates: the smallest validation error rate (weighted counts compared as
    rates: rounded to 12 decimals, counts of weight 1e-300 were all ties), then the smaller C
    (``record["x"][0]``, ln C), then the smaller mean held-out hinge loss (ties:
    ``docs/decisions.md``, "Ties go to the smaller C")."""
    return (round(record["cv_rate"], 12), round(float(record["x"][0]), 12),
            round(record["cv_hinge"], 12))



def next_usable_candidate(result, problems, train):
    """After the chosen candidate's model proved unusable (``problems``, severe): the other
    candidates of ``result`` in the order of the pick (``cv_key``) are trained with
    ``train(θ) -> (θ used, outcome, problems)`` until one's problems are not severe; that one
    becomes ``result``'s choice (``chosen``, ``x``, ``fun``, and the message says why).
    A per-feature candidate that did not meet its margin (``strategy.ard``) is not one.
    Returns (its outcome or None, the number of candidates trained)."""
    order = sorted((i for i, c in enumerate(result.candidates)
                    if c.get("margin_met", True) and c["source"] != result.chosen),
                   key=lambda i: cv_key(result.candidates[i]))
    for tried, i in enumerate(order, start=1):
        cand = result.candidates[i]
        theta, outcome, cand_problems = train(np.asarray(cand["x"], dtype=float))
        if not is_severe(cand_problems):
            result.message += (f"; the chosen model was unusable ({'; '.join(problems)}), "
                               f"took the {cand['source']} instead")
            result.chosen = cand["source"]
            result.x, result.fun = theta, cand["cv_rate"]
            return outcome, tried
    return None, len(order)



def validation_problems(result) -> list[str]:
    """[a sentence] when the chosen candidate's validation error rate (``result.fun``, kept up
    to date by :func:`next_usable_candidate`) is no better than always predicting the larger
    class, else []: a model we cannot stand behind, reported (not severe: its training
    predictions may look fine — a memorising SVM fits every training point)."""
    val = result.get("validation")
    if not val or not np.isfinite(val["trivial_rate"]):
        return []
    if float(result.fun) < val["trivial_rate"] - 1e-12:
        return []
    what = val.get("trivial_what", "always predicting the larger class")
    measure = val.get("measure", f"{val['how']} rate")
    return [f"the chosen model's {measure} {float(result.fun):.3g} is no better than {what} "
            f"({val['trivial_rate']:.3g})"]



def trivial_errors(cv) -> float:
    """The validation errors of always predicting the class with the largest held-out total
    (``criteria.reference.held_out_trivial_errors``); +inf for a validation criterion that
    does not expose its folds (no candidate is then judged against it). A regressor's
    validation gives its own (``trivial_value``: the error of predicting the mean)."""
    if hasattr(cv, "trivial_value"):
        return cv.trivial_value()
    folds = getattr(cv, "folds", None)
    if folds is None:
        return float("inf")
    return held_out_trivial_errors(folds, cv.y, getattr(cv, "weights", None))



def single_sample_classes(labels) -> list:
    """The classes of ``labels`` (the user's labels, one per sample) that have one sample."""
    values, counts = np.unique(np.asarray(labels), return_counts=True)
    return values[counts < 2].tolist()



def check_validation_classes(labels) -> None:
    """A ValueError naming the classes with a single sample: the default strategy validates
    its candidates by stratified folds (or a stratified hold-out on large data), which need
    at least two samples of every class. (SVC trains on such data; GridSearchCV warns and its
    folds then miss the class.)"""
    single = single_sample_classes(labels)
    if single:
        shown = ", ".join(shown_label(c) for c in single[:5]) + (" …" if len(single) > 5 else "")
        raise ValueError(
            f"{'class' if len(single) == 1 else 'classes'} {shown} "
            f"{'has a single sample' if len(single) == 1 else 'have a single sample each'}: "
            "criterion='auto' (the default) picks among its "
            "candidates by stratified cross-validation, which needs at least 2 samples of "
            "every class. Add samples of that class, leave it out, or name a criterion that "
            "needs no validation, e.g. criterion='radius-margin' or criterion='span'")



def n_folds_for(y, n_folds: int) -> int:
    """``n_folds``, lowered to the size of the smallest class (at least 2), with a
    ``DataWarning`` that says so (stratified folds need a sample of every class in each);
    ``y`` holds ±1 labels or class indices."""
    n_minor = int(np.unique(np.asarray(y), return_counts=True)[1].min())
    k = max(2, min(int(n_folds), n_minor))
    if k < int(n_folds):
        warnings.warn(f"n_folds={int(n_folds)} but the smallest class has {n_minor} samples: "
                      f"the validation uses {k} stratified folds", DataWarning, stacklevel=3)
    return k
