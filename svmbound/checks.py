"""Checks of a tuned model that we cannot stand behind (issue 12, item 2).

After a search the final SVM is checked for:

* **one class**: every training point gets the same predicted label although there are two
  classes (e.g. all α at the box with b deciding alone);
* **trivial training error**: the training error is at or above the minority rate r_min =
  min(ℓ₊, ℓ₋)/ℓ, the error of always predicting the majority class — the model is no better
  than no model at all;
* **vacuous criterion**: the criterion's estimate of the leave-one-out error rate (its value /
  ℓ for the bounds and error counts, ``info['rate']``) is at or above r_min, so it certifies
  nothing (the radius–margin bound on ijcnn1: 0.29 against r_min = 0.10);
* **unconverged solve**: the final SVM dual stopped above tolerance, at its iteration cap or
  stalled (``solvers.qp.STALL_SLICES``); the solver's ``ConvergenceWarning`` gives the reason.

With per-sample weights w (class_weight, sample_weight) the rates are weighted: the training
error Σ w_i [wrong_i]/Σw against r_min = min(W₊, W₋)/(W₊ + W₋), W± the classes' total weights
(with class_weight='balanced' r_min = ½ and the training error is the balanced error), so a
model that trades majority errors for minority ones, as weights ask, is not flagged.

Each problem is a short sentence; the estimator falls back to the default strategy or warns
with a :class:`ModelWarning` (a ``RuntimeWarning``) and records them in ``search_.problems``.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._validation import data_scale
from .exceptions import SearchWarning, SvmboundWarning
from .search.result import flat_start_parameters


class ModelWarning(SvmboundWarning, RuntimeWarning):
    """A tuned model svmbound cannot stand behind (see :mod:`svmbound.checks`)."""


def minority_rate(y_pm, weights=None) -> float:
    """min(ℓ₊, ℓ₋)/ℓ: the error rate of always predicting the majority class (with weights:
    min(W₊, W₋)/(W₊ + W₋), W± the total weight of each class)."""
    y_pm = np.asarray(y_pm)
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        w_pos = float(w[y_pm > 0].sum())
        return min(w_pos, float(w.sum()) - w_pos) / float(w.sum())
    n_pos = int(np.count_nonzero(y_pm > 0))
    return min(n_pos, y_pm.size - n_pos) / y_pm.size


def model_problems(y_pm, train_decision, converged: bool = True,
                   criterion_rate: float | None = None, criterion: str | None = None,
                   weights=None) -> list[str]:
    """The problems (list of sentences, empty when none) of a final binary model, from its
    decision values on the training points (y_pm in {−1, +1}); ``weights``: per-sample
    weights (the rates are then weighted, module docstring)."""
    y_pm = np.asarray(y_pm)
    f = np.asarray(train_decision)
    problems = []
    r_min = minority_rate(y_pm, weights)
    pred = np.where(f > 0, 1.0, -1.0)
    if np.unique(pred).size < 2 and np.unique(y_pm).size == 2:
        problems.append("the model predicts one class for every training point")
    err = float(np.mean(pred != y_pm) if weights is None
                else np.asarray(weights) @ (pred != y_pm) / np.sum(weights))
    if r_min > 0 and err >= r_min:
        problems.append(f"training error {err:.3g} is at or above the majority-class rate "
                        f"{r_min:.3g} (no better than always predicting the larger class)")
    if criterion_rate is not None and np.isfinite(criterion_rate) and r_min > 0 \
            and criterion_rate >= r_min:
        problems.append(f"the {criterion or 'criterion'} estimate of the error rate, "
                        f"{criterion_rate:.3g}, is at or above the majority-class rate "
                        f"{r_min:.3g}: the bound is vacuous there")
    if not converged:
        problems.append("the final SVM solve did not converge (it stopped at its iteration "
                        "cap, or once its KKT violation had stopped falling; its "
                        "ConvergenceWarning names the likely reason)")
    return problems


#: Problems that make a model unusable (a fallback is tried); the others only warn.
SEVERE = ("predicts one class", "training error", "predicts a constant")


def is_severe(problems) -> bool:
    return any(any(key in p for key in SEVERE) for p in problems)


def warn_flat_start(result, x0, param_names, X) -> None:
    """A ``SearchWarning`` (RuntimeWarning) when the search left parameters at their start
    value where the criterion was flat (``flat_start_parameters``): the answer is then the
    start point, not a minimum — typically data far from unit scale for an RBF kernel."""
    flat = flat_start_parameters(result, x0)
    if not flat:
        return
    names = [param_names[k] for k in flat]
    msg = (f"the search stopped with {', '.join(names)} at the start value "
           f"{[float(x0[k]) for k in flat]}, where the criterion is flat (gradient 0 relative "
           f"to its value): the result is the start point, not a minimum")
    if any(n.startswith("log_sigma2") for n in names):
        scale = data_scale(X)
        msg += (f". The kernel is numerically constant there: the mean squared distance between "
                f"rows is {scale:.3g} (ln = {np.log(scale):.3g}), far from sigma^2 = "
                f"{np.exp(x0[flat[-1]]):.3g}; standardise the features (StandardScaler, or "
                f"--scale on the command line) or give start/bounds for ln sigma^2 near "
                f"{np.log(scale / 2):.3g}" if scale > 0 else "")
    warnings.warn(msg, SearchWarning, stacklevel=5)


def finite_model(dual_coef, intercept) -> bool:
    """Whether a fitted model's coefficients (dense or sparse) and intercepts are all finite: a
    model that is not is never returned (a numerical failure, e.g. kernel rows left unwritten)."""
    coef = getattr(dual_coef, "data", dual_coef)
    return bool(np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept)))
