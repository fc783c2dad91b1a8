"""The one fit flow of ``BoundSVC``, for a binary SVM and for one-vs-one with a shared θ.

``fit_bound_svm(est, data, machine, t0)`` runs, on a :class:`TrainingData`:

1. the box and start: the default strategy's (``strategy.auto_box_and_start``) for
   criterion='auto', else Chung's (``search.box``) for the named criterion;
2. the search: the default strategy (``strategy.tune_auto``), or the named criterion
   minimised by the chosen search (:func:`run_search`), under the run control (search log,
   progress bar, Ctrl-C keeping the search so far);
3. the final training at the chosen θ (``machine.train``), with Chung §4.3 for the L1 loss: a
   solution with no bounded support vector is unchanged when C is lowered to max α_i/w_i, and
   that C is reported;
4. the model checks (``checks.model_problems``): an unusable model of the default strategy gives
   way to the next candidate by validation error; a named criterion's unusable model falls back
   to the default strategy, whose pick is validated (binary; not on data whose rows are all
   equal, nor where a class has a single sample); a model we cannot stand behind is reported in
   a ``ModelWarning``.

The *machine* is what differs between two classes and more: :class:`BinaryMachine` (one SVM
on ±1 labels) and :class:`OneVsOneMachine` (an SVM per pair of classes at one θ, the
criteria summed over the pairs, the CV error of the voting machine; ``svmbound.multiclass``).
"""

from __future__ import annotations

import time
import warnings
from typing import NamedTuple

import numpy as np
from scipy.stats import rankdata

from ._parallel import n_workers
from ._validation import warn_if_degenerate
from ._weights import shift_log_c
from .checks import ModelWarning, finite_model, is_severe, model_problems, warn_flat_start
from .criteria import criterion_class, make_criterion
from .criteria.pairs import pairwise_criterion
from .kernels import base_kernel, split_degree, with_gamma
from .multiclass import check_pairs, pair_model, set_pair_models, train_pairs
from .probability import sigmoid_train
from .ovo import pair_subsets
from .search import tune_c_convex
from .search.box import box_and_start
from .search.grid import grid_axis
from .search.minimize import GRADIENT_METHODS, minimize
from .search.space import SearchSpace, criterion_objective
from .solvers import as_interrupt, solve_svm_dual, warm_start_alpha
from .strategy import (auto_box_and_start, check_validation_classes, next_usable_candidate,
                       single_sample_classes, tune_auto, validation_problems)
from .strategy.ard import candidate_kernel
from .strategy.candidates import n_folds_for
from .training_data import TrainingData

__all__ = ["fit_bound_svm", "BinaryMachine", "OneVsOneMachine", "run_search", "grid_axes"]


class Trained(NamedTuple):
    """The final model at θ and what its checks found."""

    theta: np.ndarray
    model: object            # DualSolution (binary) or [PairModel] (one-vs-one)
    problems: list           # the sentences reported (and warned)
    pair_problems: list      # one-vs-one: every pair machine's; binary: []
    c_projected: bool        # Chung §4.3 lowered C to max α

    @property
    def severe(self) -> bool:
        return is_severe(self.problems + self.pair_problems)

    @property
    def C(self) -> float:
        """The model's C (after Chung §4.3 max α, which exp(θ₀) may miss in the last bit)."""
        return float((self.model[0] if isinstance(self.model, list) else self.model).C)


# -------------------------------------------------------------------------------------------
# the machines
# -------------------------------------------------------------------------------------------
class ClassifierMachine:
    """What the classifiers' machines share: θ = (ln C, kernel θ…), the default strategy's box
    and start, the fitted parameters at θ, accuracy as the validation score. A machine of
    another task (``svmbound.regression.RegressionMachine``) provides the same methods."""

    #: what the large-data rows are drawn within (``tune_auto``): None, the classes
    strata = None

    def param_names(self, kernel0) -> tuple:
        return ("log_C",) + tuple(kernel0.param_names)

    def auto_box_and_start(self, names, kernel0):
        """(lower, upper, x0) of the default strategy (its stratified validation needs two
        samples of every class)."""
        est = self.est
        check_validation_classes(self.data.labels)
        return auto_box_and_start(names, self.data.X_full, kernel0, est.bounds, est.start,
                                  est._config())

    def named_box_and_start(self, names, kernel0):
        """(lower, upper, x0) of a named criterion's search: Chung's box and start, or the
        user's ``bounds``/``start``."""
        return box_and_start(names, self.est.bounds, self.est.start)

    def kernel_at(self, theta, kernel0):
        return kernel0.with_theta(theta[1:]) if len(theta) > 1 else kernel0

    def params_at(self, theta, kernel=None, kernel0=None) -> dict:
        """{C, kernel parameters, gamma} at θ (of ``kernel``, or ``kernel0`` at θ)."""
        kernel = self.kernel_at(theta, kernel0) if kernel is None else kernel
        return with_gamma({"C": float(np.exp(theta[0])), **kernel.get_params()})

    @staticmethod
    def score_of(rate: float) -> float:
        """``cv_results_``'s score of a validation error rate: the accuracy."""
        return 1.0 - rate


def project_c(est, sol, coef, theta, weights) -> bool:
    """Chung §4.3: an L1 solution ``sol`` with no bounded variable and coefficients ``coef``
    (α; an SVR's |β|) is the solution at every C ≥ max coef_i/w_i, so C is lowered to that (in
    ``theta[0]`` and ``sol.C``: the same model). Not for a grid search, whose C is the grid
    point it was asked for. Returns whether C was lowered."""
    if est.loss != "l1" or sol.bounded.size or coef.max() <= 0 or est.search == "grid":
        return False
    C = float(coef.max() if weights is None else (coef / weights).max())
    theta[0] = np.log(C)
    sol.C = C
    return True


class BinaryMachine(ClassifierMachine):
    """One SVM on the ±1 labels of a two-class problem."""

    n_models = 1
    #: a named criterion's unusable model falls back to the default strategy
    falls_back = True

    def __init__(self, est, data: TrainingData):
        self.est, self.data = est, data
        self.y = data.y_pm            # the labels the criteria take
        self.problem = data.problem(self.y)
        self.log_labels = self.y      # what a search log's data fingerprint covers
        self.factory = None           # tune_auto builds make_criterion on ±1 labels

    def check(self):
        if self.data.weights is not None and self.est.search == "convex":
            raise ValueError("search='convex' (De Bie et al.) has no per-sample C_i; use "
                             "another search with class_weight / sample_weight")

    def named_criterion(self, cls, kernel0):
        est = self.est
        return make_criterion(cls.name, self.problem, kernel0, loss=est.loss,
                              random_state=est.random_state, tol=est.tol,
                              cache_size=est.cache_size, **est._criterion_params(cls))

    def before_auto(self, run):
        pass

    def after_search(self, crit, result, theta):
        """(warm start of the final training, the criterion's LOO rate estimate)."""
        prev = crit._svm_prev
        if prev is not None and prev.alpha.shape != self.y.shape:
            prev = None   # the criterion trained on a subset (validation split, CV folds)
        return prev, criterion_rate(crit, result, self.y.size)

    def train(self, theta, kernel0, prev=None, rate=None, warm_from=None) -> Trained:
        """The SVM at θ, checked. ``prev``: a solution to warm-start α from; ``warm_from``:
        (solution, its θ), a bound search's solve at its minimum, started from with its
        gradient when its θ is this θ (the solve then stops at once); ignored at another θ."""
        est, X, y_pm, weights = self.est, self.data.X, self.y, self.data.weights
        theta = np.asarray(theta, dtype=float).copy()
        C = float(np.exp(theta[0]))
        kernel = kernel0.with_theta(theta[1:]) if theta.size > 1 else kernel0
        if warm_from is not None:
            # only at its own θ: one step in C away, 6–17 % more SMO iterations than cold
            sol, at = warm_from
            warm_from = sol if np.array_equal(at, theta) else None
        final = solve_svm_dual(X, y_pm, kernel, C, loss=est.loss, tol=est._final_tol(),
                               alpha0=None if prev is None or warm_from is not None else
                               warm_start_alpha(prev.alpha, y_pm, prev.C, C, est.loss, weights),
                               warm_from=warm_from, cache_size=est.cache_size,
                               check_input=False, weights=weights)
        projected = project_c(est, final, final.alpha, theta, weights)
        f = final.training_decision(y_pm)      # from the solver's gradient: no kernel pass
        problems = model_problems(y_pm, f, final.converged, rate,
                                  getattr(est, "criterion_name_", None), weights)
        return Trained(theta, final, problems, [], projected)

    def validation_at(self, kernel0):
        """The k-fold CV error criterion of this loss (the out-of-fold decision values of
        ``probability=True`` after a named criterion)."""
        est = self.est
        return make_criterion("cv-error", self.problem, kernel0, loss=est.loss,
                              random_state=0 if est.random_state is None else est.random_state,
                              tol=est._final_tol(), n_folds=n_folds_for(self.y, est.n_folds),
                              cache_size=est.cache_size)

    def platt(self, y_rows, F):
        """Platt's (A, B) of the machine from out-of-fold decision values (1,) each, as SVC's:
        P(classes_[0] | −f) = 1/(1 + exp(A·(−f) + B)), i.e. −B of P(classes_[1] | f)'s."""
        A, B = sigmoid_train(F, y_rows)
        return np.array([A]), np.array([-B])

    def install(self, tr: Trained, kernel0):
        """Set the fitted model on the estimator; returns its kernel."""
        est, sol, y_pm, kept = self.est, tr.model, self.y, self.data.kept
        kernel = kernel0.with_theta(tr.theta[1:]) if tr.theta.size > 1 else kernel0
        sv = sol.support
        est.alpha_ = sol.alpha[sv]
        est.support_ = sv if kept is None else kept[sv]
        est.support_vectors_ = self.data.X_full[sv]
        est.dual_coef_ = (sol.alpha[sv] * y_pm[sv])[None, :]
        est.intercept_ = np.array([sol.b])
        est.n_support_ = np.array([(y_pm[sv] < 0).sum(), (y_pm[sv] > 0).sum()])
        est.solution_ = sol
        est.kernel_ = kernel
        for stale in ("pair_models_", "pair_estimators_"):   # from an earlier fit
            est.__dict__.pop(stale, None)
        return kernel


class OneVsOneMachine(ClassifierMachine):
    """An SVM per pair of classes (``ovo.pair_subsets``) at one θ shared by the pairs; the
    bounds summed over the pairs and the CV error of the voting machine
    (``criteria.pairs``)."""

    #: a named criterion's unusable model is reported, not replaced (as before the one flow;
    #: the binary fallback has not been measured on multi-class data)
    falls_back = False

    def __init__(self, est, data: TrainingData):
        self.est, self.data = est, data
        self.y = data.y_idx
        self.problem = data.problem(self.y)
        self.log_labels = self.y.astype(np.float64)   # a search log's data fingerprint
        self.subsets = pair_subsets(data.y_idx, data.n_classes)
        self.n_models = len(self.subsets)
        self.pair_jobs = est.n_jobs   # the bound searches' threads over the pairs

    def factory(self, name, problem, kernel, **kw):
        kw.setdefault("n_jobs", self.pair_jobs)      # the strategy passes its own for the CV
        return pairwise_criterion(name, problem, kernel, n_classes=self.data.n_classes, **kw)

    def check(self):
        if self.est.search == "convex":
            raise ValueError("search='convex' (De Bie et al.) tunes C of one binary L2-SVM; "
                             "with three or more classes use multiclass_theta='per-pair'")

    def named_criterion(self, cls, kernel0):
        est = self.est
        return self.factory(cls.name, self.problem, kernel0, loss=est.loss,
                            random_state=est.random_state, tol=est.tol,
                            cache_size=est.cache_size, **est._criterion_params(cls))

    def before_auto(self, run):
        """The default strategy runs its bound searches side by side (unless a search log needs
        them in order): each gets its share of the n_jobs threads for its pairs, so that no
        more than n_jobs threads run at once (``docs/decisions.md``, multi-class threads)."""
        if run is None or run.log is None:
            n_bounds = len(self.est._config().bounds_by_loss[self.est.loss])
            self.pair_jobs = max(1, n_workers(self.est.n_jobs) // n_bounds)

    def after_search(self, crit, result, theta):
        last, pair_rates = crit.last, None
        if last is not None and np.allclose(last.theta, theta) and "pair_rates" in last.info:
            pair_rates = last.info["pair_rates"]
        prevs = [c._svm_prev for c in crit.criteria] if hasattr(crit, "criteria") else None
        return prevs, pair_rates

    def train(self, theta, kernel0, prevs=None, pair_rates=None, warm_from=None) -> Trained:
        """Every pair at the shared θ, set on the estimator (the checks predict with it) and
        checked. Chung §4.3 for L1: when no pair has a bounded support vector, C = the largest
        α_i/w_i of all pairs leaves every pair's solution unchanged and is reported."""
        est, X, y_idx, weights = self.est, self.data.X, self.y, self.data.weights
        theta = np.asarray(theta, dtype=float).copy()
        C = float(np.exp(theta[0]))
        kernel = kernel0.with_theta(theta[1:]) if theta.size > 1 else kernel0
        sols = train_pairs(X, self.subsets, kernel, C, loss=est.loss, tol=est._final_tol(),
                           cache_size=est.cache_size, n_jobs=est.n_jobs, prevs=prevs,
                           weights=weights)
        projected = False
        if est.loss == "l1":
            max_alpha = max(float(s.alpha.max() if weights is None else
                                  (s.alpha / weights[rows]).max())
                            for s, (_, _, rows, _) in zip(sols, self.subsets))
            if all(s.bounded.size == 0 for s in sols) and max_alpha > 0:
                C = max_alpha
                theta[0] = np.log(C)
                for s in sols:
                    s.C = C
                projected = True
        models = [pair_model(i, j, rows, y_pm, s, kernel, theta)
                  for (i, j, rows, y_pm), s in zip(self.subsets, sols)]
        set_pair_models(est, X, y_idx, models, kernel)
        problems, pair_problems = check_pairs(est, X, y_idx, self.subsets, pair_rates,
                                              getattr(est, "criterion_name_", None))
        return Trained(theta, models, problems, pair_problems, projected)

    def validation_at(self, kernel0):
        """The voting machine's k-fold CV error criterion (out-of-fold pair decision values)."""
        est = self.est
        return self.factory("cv-error", self.problem, kernel0, loss=est.loss,
                            random_state=0 if est.random_state is None else est.random_state,
                            tol=est._final_tol(), n_folds=n_folds_for(self.y, est.n_folds),
                            cache_size=est.cache_size, n_jobs=est.n_jobs)

    def platt(self, y_rows, F):
        """Platt's (A, B) of each pair (i, j) from the out-of-fold decision values of the rows
        of its two classes (+1: class i)."""
        A, B = np.empty(self.n_models), np.empty(self.n_models)
        for p, (i, j, _, _) in enumerate(self.subsets):
            mine = (y_rows == i) | (y_rows == j)
            A[p], B[p] = sigmoid_train(F[mine, p], np.where(y_rows[mine] == i, 1, -1))
        return A, B

    def install(self, tr: Trained, kernel0):
        kernel = tr.model[0].kernel
        set_pair_models(self.est, self.data.X_full, self.y, tr.model, kernel)
        return kernel


# -------------------------------------------------------------------------------------------
# the flow
# -------------------------------------------------------------------------------------------
def fit_bound_svm(est, data: TrainingData, machine, t0: float):
    """Tune and train ``est`` on ``data`` with ``machine`` (module docstring); sets the fitted
    attributes and returns ``est``."""
    machine.check()
    X = data.X
    degenerate = warn_if_degenerate(X)
    degree, _ = split_degree(est.degree, est.kernel, est.search)
    kernel0 = base_kernel(est.kernel, degree, est.coef0, X.shape[1], est.groups)
    auto = est._uses_auto()
    if auto:
        crit = None
        names = machine.param_names(kernel0)
        lower, upper, x0 = machine.auto_box_and_start(names, kernel0)
    else:
        cls = criterion_class(est._criterion_name(), est.loss)
        crit = machine.named_criterion(cls, kernel0)
        lower, upper, x0 = machine.named_box_and_start(crit.param_names, kernel0)
    # weights of scale s: the default ln C box and start move by −ln s (C_i = C·w_i)
    lower, upper, x0 = shift_log_c(names if auto else crit.param_names, lower, upper, x0,
                                   data.weights, bounds_given=est.bounds is not None,
                                   start_given=est.start is not None)
    # the run control checks reproducibility / counts grid points on one pair's criterion
    first = getattr(crit, "criteria", [crit])[0]
    run, bar = est._start_run_control(data.X_full, machine.log_labels, first, lower, upper,
                                      data.weights)
    callback = est._iteration_printer(bar, t0)
    notify = est._notifier(bar, t0)
    prev = rate = warm = None
    with est._searching(run, bar):
        if auto:
            machine.before_auto(run)
            result, theta, n_search, warm = run_auto(est, machine.problem, kernel0, lower,
                                                     upper, x0, callback, run, machine.factory,
                                                     machine.strata, notify)
            est.criterion_name_ = "auto"
        else:
            crit = run.wrap(crit)
            result, theta = run_search(est, crit, X, machine.y, lower, upper, x0, callback)
            if not degenerate:
                warn_flat_start(result, x0, crit.param_names, X)
            est.criterion_name_ = "de-bie-convex" if est.search == "convex" else crit.name
            n_search = result.nfev if est.search == "convex" else crit.n_trainings
            prev, rate = machine.after_search(crit, result, theta)
            kernel0 = crit.kernel        # annealing may have set the polynomial degree
            if notify is not None:
                notify(f"{est.criterion_name_} {est.search} search: {result.message}")

    kernel_of = candidate_kernels(machine, kernel0, X.shape[1])
    try:
        bar.stage("final training")
        if notify is not None:
            params = machine.params_at(theta, kernel0=kernel_of(theta))
            shown = ", ".join(f"{k}={v:.4g}" for k, v in params.items()
                              if isinstance(v, (int, float)))
            notify(f"final training at {shown} on {data.X.shape[0]} rows")
        out = _after_search(est, data, machine, result, theta, n_search, kernel0, auto,
                            degenerate, prev, rate, warm, callback, t0)
        bar.step()
        if notify is not None:
            notify(f"done: {est.n_trainings_} trainings, {est.fit_time_:.2f} s")
        return out
    except BaseException as exc:
        interrupt = as_interrupt(exc)
        if interrupt is None:
            raise
        # the search had ended: keep it, with the point it chose, and say which phase was cut
        chosen = result.get("x")
        if chosen is not None:
            chosen = np.asarray(chosen, dtype=float)
            result.params = machine.params_at(chosen, kernel0=kernel_of(chosen))
        result.pop("held_out", None)
        result.pop("final_warm_start", None)
        result.interrupted, result.phase = True, "final training"
        result.message = f"{result.message}; interrupted in the final training"
        est.search_ = interrupt.search_result = result
        est._forget_model()
        raise interrupt from None        # (also when a Ctrl-C caused a SystemError: as_interrupt)
    finally:
        bar.close()


def _after_search(est, data, machine, result, theta, n_search, kernel0, auto, degenerate,
                  prev, rate, warm, callback, t0):
    """Steps 3–4 of :func:`fit_bound_svm` and the fitted attributes."""
    X = data.X
    kernel_of = candidate_kernels(machine, kernel0, X.shape[1])
    tr = machine.train(theta, kernel_of(theta), prev, rate, warm_from=warm)
    if tr.severe and auto:
        # the next candidates by validation error, until one gives a usable model
        def train(t):
            out = machine.train(t, kernel_of(t))
            return out.theta, out, out.problems + out.pair_problems

        taken, tried = next_usable_candidate(result, tr.problems, train)
        n_search += tried * machine.n_models
        if taken is not None:
            tr = taken
    problems = tr.problems + (validation_problems(result) if auto else [])
    result.problems = problems
    result.fallback = None
    if (machine.falls_back and is_severe(problems) and not auto and not degenerate
            and not single_sample_classes(data.labels)):
        # the named criterion/search gave an unusable model (e.g. the minimum of a bound that
        # is vacuous everywhere, at C → 0): fall back to the default strategy, whose pick is
        # validated, with the same kernel (not for data whose rows are all equal, where no
        # model can do better)
        first = {"criterion": est.criterion_name_, "search": est.search,
                 "x": tr.theta.tolist(), "value": float(result.fun), "problems": problems,
                 "nfev": int(result.nfev), "message": str(result.message),
                 "path": result.get("path", [])}
        warnings.warn(f"the {est.criterion_name_} {est.search} search gave a model we cannot "
                      f"stand behind ({'; '.join(problems)}); falling back to the default "
                      "strategy (bounds + cross-validation)", ModelWarning, stacklevel=4)
        result, theta, n_auto, _ = run_auto_fallback(est, machine.problem, kernel0, callback,
                                                     machine.factory, X_full=data.X_full)
        tr = machine.train(theta, kernel_of(theta))
        n_search += n_auto
        problems = tr.problems
        result.problems = problems
        result.fallback = first
        est.criterion_name_ = "auto"
    if isinstance(machine, OneVsOneMachine):
        result.pair_problems = tr.pair_problems
    held_out = result.pop("held_out", None)
    if result.get("candidates"):
        est.cv_results_, est.best_score_ = validation_results(result, kernel_of, machine)
    else:
        for stale in ("cv_results_", "best_score_"):
            est.__dict__.pop(stale, None)
    if getattr(est, "probability", False):
        n_search += fit_probabilities(est, machine, result, tr, kernel_of(tr.theta), held_out)
    else:
        for stale in ("probA_", "probB_"):
            est.__dict__.pop(stale, None)
    if problems:
        warnings.warn("svmbound: " + "; ".join(problems), ModelWarning, stacklevel=4)
    kernel = machine.install(tr, kernel_of(tr.theta))
    if not finite_model(est.dual_coef_, est.intercept_):
        est._forget_model()
        raise FloatingPointError("svmbound: the final SVM's coefficients are not finite (NaN or "
                                 "inf): a numerical failure, no model is returned")
    est.feature_scales_ = getattr(kernel, "feature_scales", None)
    est.c_projected_ = tr.c_projected
    est.search_ = result
    est.n_iter_ = int(result.nfev)
    est.n_trainings_ = n_search + machine.n_models
    est.best_theta_ = tr.theta
    est.best_value_ = float(result.fun)
    est.best_params_ = {**machine.params_at(tr.theta, kernel), "C": tr.C}
    est.fit_time_ = time.perf_counter() - t0
    return est


def candidate_kernels(machine, kernel0, n_features: int):
    """θ ↦ the kernel of a candidate θ of ``machine``'s search with ``kernel0``: ``kernel0``, or
    the ARD kernel of a per-feature candidate (``strategy.ard.candidate_kernel``)."""
    n_params = len(machine.param_names(kernel0))
    return lambda theta: candidate_kernel(theta, kernel0, n_features, n_params)


def validation_results(result, kernel_of, machine) -> tuple[dict, float]:
    """(``cv_results_``, ``best_score_``) of the candidates the default strategy's validation
    scored, with GridSearchCV's keys: ``params``, ``param_<name>`` (masked object arrays),
    ``split{k}_test_score`` (``machine.score_of`` the error rate on fold k: the accuracy,
    weighted with weights, or a regressor's negated mean squared error), ``mean_test_score``
    and ``std_test_score`` over the folds, ``rank_test_score`` (by mean score, ties sharing the
    best rank), and ``source`` (which search's minimum, or its step in C). ``kernel_of(θ)``:
    a candidate's kernel (:func:`candidate_kernels`). The bound searches'
    paths are in ``search_.stages``. ``best_score_``: the chosen candidate's mean score."""
    cands = result.candidates
    params = [machine.params_at(np.asarray(c["x"], dtype=float),
                                kernel0=kernel_of(np.asarray(c["x"], dtype=float)))
              for c in cands]
    n_folds = max(len(c.get("fold_rates") or []) for c in cands)
    score = machine.score_of
    scores = np.array([[score(r) for r in c["fold_rates"]] if c.get("fold_rates")
                       else [score(c["cv_rate"])] * n_folds for c in cands]).reshape(
                           len(cands), n_folds)
    out = {"params": params}
    for name in dict.fromkeys(k for p in params for k in p):
        out[f"param_{name}"] = np.ma.MaskedArray(
            np.array([p.get(name) for p in params] + [None], dtype=object)[:-1],
            mask=[name not in p for p in params])
    for k in range(n_folds):
        out[f"split{k}_test_score"] = scores[:, k]
    mean = scores.mean(axis=1)
    out["mean_test_score"] = mean
    out["std_test_score"] = scores.std(axis=1)
    out["rank_test_score"] = rankdata(-mean, method="min").astype(np.int32)
    out["source"] = [c["source"] for c in cands]
    chosen = next(i for i, c in enumerate(cands) if c["source"] == result.get("chosen"))
    return out, float(mean[chosen])


def fit_probabilities(est, machine, result, tr, kernel0, held_out) -> int:
    """Platt's sigmoid of each machine (``probA_``, ``probB_``; ``svmbound.probability``) on
    out-of-fold decision values: with the default strategy those of the validation of the
    chosen candidate (no training), else — a named criterion, or a resumed run whose
    validation came from its log — of an ``n_folds``-fold CV at the final θ (as LIBSVM's
    ``-b 1``). Returns the trainings made."""
    values = None
    if held_out is not None:
        values = held_out.get(result.get("chosen"))
    n_trainings = 0
    if values is None:
        cv = machine.validation_at(kernel0)
        cv.keep_held_out = True
        cv.evaluate(tr.theta, need_grad=False)
        values = cv.held_out_values(tr.theta)
        n_trainings = cv.n_trainings
    _, y_rows, F = values
    est.probA_, est.probB_ = machine.platt(y_rows, F)
    return n_trainings


# -------------------------------------------------------------------------------------------
# the searches
# -------------------------------------------------------------------------------------------
def grid_axes(est, param_names, lower, upper):
    """The axes of ``search='grid'`` from ``est.grid`` ({parameter: (begin, end, step)}; a
    parameter it does not name: its box in steps of 1)."""
    if len(param_names) not in (1, 2):
        raise ValueError(f"search='grid' needs one or two parameters, this search has "
                         f"{len(param_names)} ({', '.join(param_names)}): use "
                         "search='annealing' or a gradient search")
    if est.grid is not None and not isinstance(est.grid, dict):
        raise ValueError(f"grid must be a dict {{parameter: (begin, end, step)}} with "
                         f"parameters {param_names}, got {est.grid!r}")
    spec = {} if est.grid is None else dict(est.grid)
    unknown = set(spec) - set(param_names)
    if unknown:
        raise ValueError(f"grid keys {sorted(unknown)} are not parameters; valid: {param_names}")
    return [grid_axis(spec.get(p, (lo, hi, 1.0)), f"grid[{p!r}]")
            for p, lo, hi in zip(param_names, lower, upper)]


def run_search(est, crit, X, y, lower, upper, x0, callback):
    """Minimise the named criterion with ``est.search``; returns (result, θ). ``y``: the ±1
    labels (the convex search of De Bie et al. solves on them)."""
    search = est.search
    if search == "grid":
        result = minimize(crit, x0, (lower, upper), method="grid",
                          options={"axes": grid_axes(est, crit.param_names, lower, upper)})
        return result, np.asarray(result.x, dtype=float).copy()
    if search == "annealing":
        _, degree_range = split_degree(est.degree, est.kernel, est.search)
        box = {p: (lo, hi) for p, lo, hi in zip(crit.param_names, lower, upper)}
        start = None if est.start is None else x0
        if degree_range is not None:
            box["degree"] = degree_range
            if start is not None:
                start = np.append(start, crit.kernel.degree)
        space = SearchSpace.from_bounds(box)
        obj = criterion_objective(crit, space)
        result = minimize(obj, start, (lower, upper), method="annealing",
                          options={"space": space, "max_epochs": est.max_epochs,
                                   "random_state": est.random_state}, callback=callback)
        return result, obj.apply(result.x)
    if search == "convex":
        result = tune_c_convex(X, y, crit.split_theta(x0)[1])
        log_c = float(result.x[0])
        if not np.isfinite(log_c):
            C = result.convex.C
            log_c = upper[0] if C == np.inf else lower[0]
            warnings.warn(f"{result.message}; using ln C = {log_c:g}, the end of the box",
                          RuntimeWarning, stacklevel=4)
        theta = x0.copy()
        theta[0] = min(max(log_c, lower[0]), upper[0])
        return result, theta
    result = minimize(crit.fun, x0, (lower, upper), jac=crit.grad, method=search,
                      options={"gtol": est.gtol, "max_iter": est.max_iter}, callback=callback)
    return result, np.asarray(result.x, dtype=float).copy()


def run_auto(est, problem, kernel, lower, upper, x0, callback, run=None,
             criterion_factory=None, strata=None, notify=None):
    """The default strategy (``svmbound.strategy``): (result, θ, trainings, warm), warm the
    (solution, θ) a bound search made at the chosen minimum or None (the final training's
    start). With a run control ``run`` every criterion it builds is wrapped (search log,
    progress), one tag per stage. ``criterion_factory``: see ``tune_auto``."""
    result, n_trainings = tune_auto(
        problem, kernel, loss=est.loss, lower=lower, upper=upper, x0=x0, tol=est.tol,
        n_folds=est.n_folds, random_state=est.random_state, cache_size=est.cache_size,
        callback=callback, n_jobs=est.n_jobs, max_iter=est.max_iter,
        # the fallback after a grid / annealing / convex search: the default's BFGS
        method=est.search if est.search in GRADIENT_METHODS else "bfgs",
        wrap=None if run is None else (lambda crit, tag: run.wrap(crit, tag=tag)),
        sequential_searches=run is not None and run.log is not None,
        criterion_factory=criterion_factory, subsample=est.tune_subsample,
        held_out=bool(getattr(est, "probability", False)), config=est._config(),
        strata=strata, notify=notify)
    warm = result.pop("final_warm_start", None)
    return result, np.asarray(result.x, dtype=float).copy(), n_trainings, warm


def run_auto_fallback(est, problem, kernel, callback, criterion_factory=None, X_full=None):
    """The default strategy with ``kernel`` (its degree kept), its box and start (from
    ``X_full``, every column, when given), without search log (the fallback after a search
    whose model failed the checks)."""
    names = ("log_C",) + tuple(kernel.param_names)
    lower, upper, x0 = auto_box_and_start(names, problem.X if X_full is None else X_full,
                                          kernel, None, None, est._config())
    lower, upper, x0 = shift_log_c(names, lower, upper, x0, problem.weights)
    return run_auto(est, problem, kernel, lower, upper, x0, callback,
                    criterion_factory=criterion_factory)


def criterion_rate(crit, result, n):
    """The criterion's estimate of the LOO error rate at the result (None if it has none):
    value/ℓ for the radius–margin bounds (bounds on the number of LOO errors, Chung §2–3),
    else ``info['rate']`` of the last evaluation when it was made at the result's θ (not known
    when the result's θ holds more than the criterion's: an annealed polynomial degree)."""
    if crit.name.startswith("rm-"):
        return float(result.fun) / n
    last, x = crit.last, np.asarray(result.x, dtype=float)
    if (last is not None and "rate" in last.info and np.shape(last.theta) == x.shape
            and np.allclose(last.theta, x)):
        return float(last.info["rate"])
    return None
