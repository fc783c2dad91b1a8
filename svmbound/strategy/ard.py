"""Step 4a of the default strategy: one scaling factor per feature, when it may pay (issue 33).

Grid search tunes one width for every feature. Chapelle et al. (§7–8) tune one σ_k² per
feature by the gradient of the same bounds, with the ARD kernel

    K(x, z) = exp(−Σ_k (x_k − z_k)² / (2σ_k²)),   θ = (ln C, ln σ_1², …, ln σ_d²).

After the isotropic searches and their validation, :func:`ard_start` broadcasts the isotropic
minimum (ln C, ln σ²) of the bound ``config.ard_bound`` (the span bound) to every feature —
the ARD kernel there is the isotropic one, and the start is that bound's own minimum, so the
first quasi-Newton step moves the σ_k and not far along ln C — and ``tune_auto`` minimises the
same bound over the d + 1 parameters with L-BFGS-B: at most about ``config.ard_max_fev``
evaluations (SciPy's maxfun: it may end the line search it is in), stopped by the isotropic
searches' relative gtol, so that where no feature wants its own width it stops at its start.
Its minimum is validated like the other candidates, on the same folds. On more than
``config.ard_rows`` search rows it searches a stratified draw of that many (:func:`ard_rows`):
the span bound costs O(n_sv³) an evaluation.

Its minimum becomes a candidate only when the bound fell by ``config.ard_min_gain`` (40 %) of
its isotropic minimum in the search: where it fell less, per-feature widths did not pay on any
case measured (``docs/decisions.md``; on ijcnn1 a smaller fall was validated on 20,000 honest
hold-out rows and lost 1.8 points on the test file), and the candidate's CV is not made. So the
search stops (:func:`ard_stop`) once even its recent pace — the largest fall one of its last w
evaluations has made — repeated at every evaluation left, could not bring it to that 40 %: after
k ≥ 2 evaluations beyond the start, with fall g_k = 1 − min_{j≤k} f_j/f_0 and pace
Δ = max_{k−w<j≤k} (g_j − g_{j−1}), it stops when g_k + c·Δ·(m + 1 − k) < ``ard_min_gain``
(m = ``ard_max_fev``, c = ``config.ard_stop_factor``, w = ``config.ard_stop_window``; the
first step, often L-BFGS-B's largest, no longer props up a search that has slowed). It is an
extrapolation, not a bound: on every case measured the
searches it stopped would have ended below 40 % (the same picks, a few evaluations sooner;
``docs/decisions.md``), but a search whose later steps fall faster than its earlier ones could be
cut short; a larger c leaves it more room.

The ARD parameters are tuned on every training row, so the CV error of the ARD candidate is
biased low (its folds' held-out rows helped choose the σ_k); with d of hundreds it can be far
below the test error. The candidate is therefore taken only when it beats the best isotropic
candidate by a margin (:func:`ard_accepted`): e_iso − e_ard > z·√(e_iso + e_ard) errors, z =
``config.ard_margin`` — McNemar's statistic with the discordant count bounded by the sum of
the errors. ``docs/decisions.md`` has the measurements behind the bound, the budget and z.

:func:`ard_reason` says when the stage does not run (and ``search_.ard`` says why): the
isotropic RBF kernel only, dense rows only (the ARD kernels need them), d within
``config.ard_features``.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from ..kernels import RBFKernel, base_kernel
from ..kernels.ard import takes_rows
from .config import StrategyConfig
from .rows import stratified_pick

__all__ = ["ard_reason", "ard_start", "ard_rows", "ard_stop", "ard_accepted",
           "candidate_kernel", "ARD_SOURCE"]

#: the ``source`` of the ARD candidate in ``search_.candidates`` (the bound's name follows)
ARD_SOURCE = "per-feature"


def ard_reason(X, kernel, loss: str, config: StrategyConfig) -> str | None:
    """None when the per-feature search runs on ``X`` with the isotropic ``kernel``, else the
    reason it does not (kept in ``search_.ard``)."""
    bound = config.ard_bound
    lo, hi = config.ard_features
    d = X.shape[1]
    if not config.ard_max_fev:
        return "not in this strategy's configuration (ard_max_fev = 0)"
    if bound not in config.bounds_by_loss[loss]:
        return (f"its bound {bound!r} is not one of the isotropic searches "
                f"{tuple(config.bounds_by_loss[loss])} it starts from")
    if type(kernel) is not RBFKernel:
        return f"the kernel is {kernel.name}, not the isotropic RBF"
    if not takes_rows(X):
        return "sparse input (the per-feature kernel needs dense rows)"
    if not lo <= d <= hi:
        return f"{d} features, outside ard_features = [{lo}, {hi}]"
    return None


def ard_start(minimum, lower, upper, d: int):
    """(kernel, x0, lower, upper) of the per-feature search: the ARD kernel on d features,
    the isotropic ``minimum`` (ln C, ln σ²) with ln σ² for every feature, and the isotropic
    box likewise."""
    kernel = base_kernel("ard", n_features=d)
    spread = lambda v: np.r_[v[0], np.full(d, v[1])]   # noqa: E731
    return (kernel, spread(np.asarray(minimum, float)), spread(np.asarray(lower, float)),
            spread(np.asarray(upper, float)))


def ard_rows(y, config: StrategyConfig, random_state=None) -> np.ndarray | None:
    """The rows of the per-feature search: None (every search row) up to ``config.ard_rows``
    of them, else that many drawn within each class of ``y`` in proportion (the span bound's
    O(n_sv³) per evaluation: 5,000 rows of ijcnn1 took 7× the isotropic tuning)."""
    y = np.asarray(y)
    if y.size <= config.ard_rows:
        return None
    rng = check_random_state(0 if random_state is None else random_state)
    return stratified_pick(rng, y, np.arange(y.size), config.ard_rows)


def ard_stop(config: StrategyConfig):
    """The per-feature search's stop rule (module docstring) as ``stop(values) -> bool``
    for ``search.minimize``'s lbfgsb (``values``: the bound's values so far, the start's
    first), or None when ``config.ard_stop_factor`` is None."""
    c = config.ard_stop_factor
    if c is None:
        return None
    min_gain, budget = config.ard_min_gain, config.ard_max_fev + 1
    window = config.ard_stop_window

    def stop(values) -> bool:
        k = len(values) - 1                  # evaluations beyond the start
        if k < 2 or not values[0] > 0:
            return False
        fall = 1.0 - np.minimum.accumulate(np.asarray(values, float)) / values[0]
        steps = np.diff(fall)
        pace = float(np.max(steps if window is None else steps[-window:]))
        return bool(fall[-1] + c * pace * max(budget - k, 0) < min_gain)

    return stop


def ard_accepted(ard: dict, best: dict, n_rows: int, z: float) -> bool:
    """Whether the per-feature candidate ``ard`` beats the isotropic ``best`` (validation
    records) by the margin of the module docstring: with e = rate·n_rows errors on the
    ``n_rows`` validated rows (weights count by their rate), e_best − e_ard > z·√(e_best +
    e_ard)."""
    e_ard, e_best = ard["cv_rate"] * n_rows, best["cv_rate"] * n_rows
    return bool(e_best - e_ard > z * np.sqrt(max(e_best + e_ard, 0.0)))


def candidate_kernel(theta, kernel0, n_features: int, n_params: int):
    """The kernel of the default strategy's candidate θ: ``kernel0`` when θ has the
    ``n_params`` entries of the search's parameters with ``kernel0``, else — θ = (ln C, ln σ_1²,
    …, ln σ_d²) of the per-feature search, 1 + d entries where 2 ≤ d, an isotropic RBF θ has 2
    — the ARD kernel."""
    if np.size(theta) == n_params:
        return kernel0
    return base_kernel("ard", n_features=n_features)
