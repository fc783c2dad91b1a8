"""The ε-SVR's machine for the one fit flow (``fit_flow.fit_bound_svm``), its default box and
start, and the checks of a tuned regression model.

θ = (ln C, kernel θ…, ln ε). The default start (the classifier's for the kernel: ln σ² of
``gamma='scale'``): ε₀ = 0.1·s_z, s_z the targets' standard deviation, and C₀ = 1 — the search
runs on the L2-SVR's span estimate for either loss, and the L2-SVR's solution scales with the
targets at any C (K̃ = K + I/C does not depend on them). Box: ln ε within
[ln(10⁻³ s_z), ln s_z], ln C within [−10, 10] (the classifier's) — for the L1 loss widened to
[−10 + min(0, ln s_z), 10 + max(0, ln s_z)]: its C is a box on |β|, which scales with the targets
(an SVR on s·z at (sC, sε) is s times the one on z), and its candidates take C from the L2
solution's coefficients (``strategy.tune._coef_candidates``).

The checks (reported in ``search_.problems``, a ``ModelWarning``): a model with no support
vector predicts a constant (severe: the next candidate is tried); a training mean squared error
at or above the targets' variance — no better than predicting their mean (severe); an unconverged
final solve; a named criterion whose leave-one-out estimate at the model is no better than
predicting the mean (vacuous).
"""

from __future__ import annotations

import numpy as np

from .criteria import make_criterion
from .fit_flow import Trained, project_c
from .kernels import with_gamma
from .search.box import box_and_start, clip_into_bounds
from .solvers.svr import SVRSolution, solve_svr_dual
from .strategy import auto_box_and_start

__all__ = ["RegressionMachine", "regression_problems", "target_strata"]

#: ε₀ and the ε box, as fractions of the targets' standard deviation (module docstring)
EPSILON_START = 0.1
EPSILON_BOX = (1e-3, 1.0)


def target_scale(z, weights=None) -> float:
    """The targets' (weighted) standard deviation, 1 for constant targets."""
    s = float(np.sqrt(np.cov(z, aweights=weights))) if z.size > 1 else 0.0
    return s if np.isfinite(s) and s > 0 else 1.0


def target_strata(z, n_bins: int = 10) -> np.ndarray:
    """Quantile bins of the targets: the subsample and hold-out rows of large data are drawn
    within them (``strategy.rows``), as a classifier's within its classes."""
    edges = np.unique(np.quantile(z, np.linspace(0, 1, n_bins + 1)[1:-1]))
    return np.searchsorted(edges, z, side="right")


def regression_problems(z, prediction, converged: bool, weights=None,
                        estimate=None) -> list[str]:
    """The sentences of the module docstring's checks on a final model's training
    predictions; ``estimate``: (name, metric 'mse' | 'mae', value) of a named criterion's
    leave-one-out estimate at the model, vacuous when no better than predicting the mean."""
    problems = []
    w = np.ones(z.size) if weights is None else weights
    if estimate is not None:
        name, metric, value = estimate
        dev = z - np.average(z, weights=w)
        trivial = float(np.average(dev ** 2 if metric == "mse" else np.abs(dev), weights=w))
        if value is not None and np.isfinite(value) and value >= trivial > 0:
            problems.append(f"the {name} criterion's estimate of the leave-one-out "
                            f"{'mean squared' if metric == 'mse' else 'mean absolute'} error "
                            f"({value:.4g}) is no better than predicting the mean "
                            f"({trivial:.4g}): it certifies nothing")
    if np.ptp(prediction) == 0 and np.ptp(z) > 0:
        problems.append("the model predicts a constant (no support vector)")
    else:
        mean = np.average(z, weights=w)
        mse = float(np.average((z - prediction) ** 2, weights=w))
        var = float(np.average((z - mean) ** 2, weights=w))
        if var > 0 and mse >= var:
            problems.append(f"its training error (mean squared {mse:.4g}) is no better than "
                            f"predicting the mean ({var:.4g})")
    if not converged:
        problems.append("the final SVR's solver stopped before its tolerance")
    return problems


class RegressionMachine:
    """One ε-SVR on real targets (``TrainingData.for_regression``)."""

    n_models = 1
    falls_back = False

    def __init__(self, est, data):
        self.est, self.data = est, data
        self.y = data.targets
        self.problem = data.problem(self.y)
        self.log_labels = self.y
        self.factory = None

    @property
    def strata(self):
        return target_strata(self.y)

    def check(self):
        if self.est.search == "convex":
            raise ValueError("search='convex' (De Bie et al.) tunes the L2-SVM classifier's C; "
                             "use another search for BoundSVR")

    # -- θ = (ln C, kernel θ…, ln ε) ---------------------------------------------------------
    def param_names(self, kernel0) -> tuple:
        return ("log_C",) + tuple(kernel0.param_names) + ("log_epsilon",)

    def _default_box(self, names, kernel0):
        est, z, w = self.est, self.y, self.data.weights
        s = target_scale(z, w)
        lower, upper, x0 = auto_box_and_start(names[:-1], self.data.X_full, kernel0, None,
                                              None, est._config())
        if est.loss == "l1":
            lower[0] += min(0.0, np.log(s))
            upper[0] += max(0.0, np.log(s))
        e_lo, e_hi = (np.log(f * s) for f in EPSILON_BOX)
        return (np.append(lower, e_lo), np.append(upper, e_hi),
                np.append(x0, np.log(EPSILON_START * s)))

    def auto_box_and_start(self, names, kernel0):
        """(lower, upper, x0): the module docstring's, or the user's ``bounds``/``start``
        (one entry per parameter of ``names``; a default start clipped into given bounds)."""
        lower, upper, x0 = self._default_box(names, kernel0)
        est = self.est
        if est.bounds is None and est.start is None:
            return lower, upper, x0
        bounds = np.column_stack([lower, upper]) if est.bounds is None else est.bounds
        start = clip_into_bounds(x0, bounds, len(names)) if est.start is None else est.start
        return box_and_start(names, bounds, start)

    named_box_and_start = auto_box_and_start

    def kernel_at(self, theta, kernel0):
        return kernel0.with_theta(np.asarray(theta)[1:-1])

    def params_at(self, theta, kernel=None, kernel0=None) -> dict:
        """{C, kernel parameters, gamma, epsilon} at θ."""
        kernel = self.kernel_at(theta, kernel0) if kernel is None else kernel
        return {**with_gamma({"C": float(np.exp(theta[0])), **kernel.get_params()}),
                "epsilon": float(np.exp(theta[-1]))}

    @staticmethod
    def score_of(rate: float) -> float:
        """``cv_results_``'s score of a validation mean squared error: its negative
        (scikit-learn's 'neg_mean_squared_error')."""
        return -rate

    # -- the flow's steps ------------------------------------------------------------------
    def named_criterion(self, cls, kernel0):
        est = self.est
        loss = est.loss if est.loss in cls.losses() else None
        return make_criterion(cls.name, self.problem, kernel0, loss=loss,
                              random_state=est.random_state, tol=est.tol,
                              cache_size=est.cache_size, **est._criterion_params(cls))

    def before_auto(self, run):
        pass

    def after_search(self, crit, result, theta):
        """(warm start of the final training, the criterion's estimate at θ)."""
        prev = getattr(crit, "_svm_prev", None)
        if (not isinstance(prev, SVRSolution) or prev.a.size != 2 * self.y.size
                or prev.loss != self.est.loss):
            prev = None
        last = getattr(crit, "last", None)
        rate = None
        if last is not None and np.allclose(last.theta, theta):
            rate = (crit.name, getattr(crit, "metric", "mse").lower(), last.info.get("rate"))
        return prev, rate

    def train(self, theta, kernel0, prev=None, rate=None, warm_from=None) -> Trained:
        """The SVR at θ, checked. For the L1 loss with no bounded support vector the solution
        is the same for every C ≥ max |β_i|/w_i, and that C is reported (Chung §4.3, as the
        classifier)."""
        est, X, z, weights = self.est, self.data.X, self.y, self.data.weights
        theta = np.asarray(theta, dtype=float).copy()
        C, eps = float(np.exp(theta[0])), float(np.exp(theta[-1]))
        kernel = self.kernel_at(theta, kernel0)
        start = prev if isinstance(prev, SVRSolution) and prev.loss == est.loss else None
        sol = solve_svr_dual(X, z, kernel, C, eps, loss=est.loss, tol=est._final_tol(),
                             start=start, cache_size=est.cache_size, weights=weights)
        projected = project_c(est, sol, np.abs(sol.beta), theta, weights)
        problems = regression_problems(z, sol.training_prediction(z), sol.converged, weights,
                                       rate)
        return Trained(theta, sol, problems, [], projected)

    def validation_at(self, kernel0):
        est = self.est
        return make_criterion("svr-cv", self.problem, kernel0, loss=est.loss,
                              random_state=0 if est.random_state is None else est.random_state,
                              tol=est._final_tol(), n_folds=min(est.n_folds, self.y.size),
                              cache_size=est.cache_size)

    def install(self, tr: Trained, kernel0):
        """Set the fitted model on the estimator (SVR's attributes); returns its kernel."""
        est, sol, kept = self.est, tr.model, self.data.kept
        kernel = self.kernel_at(tr.theta, kernel0)
        sv = sol.support
        est.support_ = (sv if kept is None else kept[sv]).astype(np.int32)
        est.support_vectors_ = self.data.X_full[sv]
        est.dual_coef_ = sol.beta[sv][None, :]
        est.intercept_ = np.array([sol.b])
        est.n_support_ = np.array([sv.size], dtype=np.int32)
        est.solution_ = sol
        est.kernel_ = kernel
        est.epsilon_ = sol.epsilon
        return kernel
