"""Multi-class ``BoundSVC``: one-vs-one pairs, voting, one θ shared by the pairs (or one each).

``BoundSVC.fit`` fits a problem with three or more classes through the one fit flow
(``svmbound.fit_flow.OneVsOneMachine``, which trains the pairs here: :func:`train_pairs`,
:func:`set_pair_models`, :func:`check_pairs`), or pair by pair (:func:`fit_per_pair`); the
prediction methods hand a fitted multi-class model to :func:`decision_function` /
:func:`predict`. Conventions (``svmbound.ovo``) are those of LIBSVM and scikit-learn's ``SVC``:
k(k−1)/2 binary machines, pair (i, j) trained on the rows of classes i and j with y = +1 for i;
prediction by voting, ties to the smaller class index; ``decision_function`` of shape (n, k)
('ovr', scikit-learn's ``_ovr_decision_function``) or (n, k(k−1)/2) ('ovo', the pairs'
values, positive for the first class of the pair); the fitted attributes in SVC's layout:

* ``support_`` (rows of the training data, grouped by class in ``classes_`` order, ascending
  within a class), ``support_vectors_``, ``n_support_`` (per class);
* ``dual_coef_`` (k − 1, n_SV): for pair (i, j) the coefficients α·y of its support vectors of
  class i sit in row j − 1, those of class j in row i (0 where a support vector of the model is
  not one of that pair) — LIBSVM's ``sv_coef``;
* ``intercept_`` (one b per pair, = −ρ of LIBSVM);
* ``pair_models_``: per pair its classes, C, kernel, θ, support rows, α·y and b.

Hyperparameters (``multiclass_theta``):

* 'shared' (default, as SVC and LIBSVM): one θ = (ln C, kernel θ) for every pair, tuned by
  minimising the SUM of the pairs' criteria — one criterion object
  (``svmbound.criteria.pairs.PairwiseSum``, pairs evaluated in ``n_jobs`` threads), so every
  search and the default strategy run unchanged on it. With criterion='auto' the strategy's two
  bound searches minimise the summed span and radius–margin bounds and the candidates are
  compared by the k-fold CV error of the **voting** machine
  (``svmbound.criteria.pairs.OvOCrossValidationError``; why not the sum of the pairs' CV
  errors: see that module).
* 'per-pair': each pair is a binary ``BoundSVC`` of its own (the same parameters; its own
  search, default strategy and checks), the pairs fitted in ``n_jobs`` threads. The pairs then
  have different kernels: such a model cannot be exported to SVC / LIBSVM (one kernel for all
  pairs) unless the kernels happen to coincide.

Weights (``class_weight``, ``fit(sample_weight=)``): w_i = class_weight[y_i]·sample_weight_i
on all samples (scikit-learn's semantics; 'balanced' counts the classes on all of y), samples
of weight 0 dropped (``support_`` indexes the rows given to fit); every pair's criteria,
trainings and final machine get the weights of its rows (C_i = C·w_i), the voting CV counts
held-out errors with their weights; with 'per-pair' each pair's BoundSVC is fitted with
``sample_weight`` = its rows' w.

Model checks (``svmbound.checks``, "never silent"): every pair's machine is checked on its own
training rows (one class only, training error at or above its minority rate, a vacuous
criterion estimate, an unconverged solve), and the voting machine on all training rows (one
class only, training error at or above the error of always predicting the largest class).
With criterion='auto' and 'shared' a severe problem makes the fit take the next candidate by CV
error, as in the binary case; problems left are warned as one ``ModelWarning``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from sklearn.base import clone

from ._sparse import entries_per_row
from .checks import ModelWarning, model_problems
from .criteria.pairs import _parallel
from .kernels import Kernel, _row_blocks
from .ovo import class_pairs, ovr_decision, pair_subsets, vote
from .probability import MIN_PROB, pairwise_coupling, sigmoid_predict
from .search.result import SearchResult
from .solvers import solve_svm_dual, warm_start_alpha
from .training_data import class_label

__all__ = ["MULTICLASS_THETA", "DECISION_FUNCTION_SHAPES", "PairModel", "train_pairs",
           "pair_model", "set_pair_models", "check_pairs", "fit_per_pair", "pair_threads",
           "decision_function", "predict", "ovo_decision_values"]

MULTICLASS_THETA = ("shared", "per-pair")
DECISION_FUNCTION_SHAPES = ("ovr", "ovo")
#: Pair problems listed one by one in ``search_.problems`` (all are in ``pair_problems``).
MAX_LISTED_PAIR_PROBLEMS = 5


@dataclass
class PairModel:
    """The binary machine of one class pair (i, j), y = +1 for class i."""

    classes: tuple            # (i, j), indices into classes_
    C: float
    kernel: Kernel
    theta: np.ndarray
    support: np.ndarray       # rows of the training data with α > 0, ascending
    dual_coef: np.ndarray     # α·y at those rows
    intercept: float          # b
    n_iter: int
    converged: bool
    bounded: int = 0          # number of α at C (L1)
    sv_cols: np.ndarray | None = None   # columns of support_vectors_ (set with the model)


# -------------------------------------------------------------------------------------------
# fitting
# -------------------------------------------------------------------------------------------
def _pair_name(labels, i: int, j: int) -> str:
    """"a vs b" for the pair of classes i, j."""
    return f"{class_label(labels[i])} vs {class_label(labels[j])}"


#: Pairs whose median size, rows² × features per row, is below this are fitted on one thread
#: whatever ``n_jobs`` (:func:`pair_threads`): such a pair's solve is shorter than the Python
#: around it, which holds the GIL (``docs/decisions.md``).
PAIR_THREADS_MIN_WORK = 5e5


def pair_threads(X, y_idx, n_classes: int) -> int | None:
    """The cap on threads (``_parallel.worker_cap``) of a multi-class fit: 1 when the median
    pair is smaller than :data:`PAIR_THREADS_MIN_WORK` (rows² × features per row; stored
    entries per row for sparse X), else None (``n_jobs`` threads)."""
    counts = np.bincount(y_idx, minlength=n_classes).astype(float)
    i, j = np.triu_indices(n_classes, k=1)
    rows = float(np.median(counts[i] + counts[j]))
    return 1 if rows * rows * max(entries_per_row(X), 1.0) < PAIR_THREADS_MIN_WORK else None


def train_pairs(X, subsets, kernel, C, *, loss, tol, cache_size, n_jobs=None, prevs=None,
                weights=None):
    """The SVM of every pair of ``subsets`` (``ovo.pair_subsets``) at (C, kernel), in
    ``n_jobs`` threads; ``prevs`` optional per-pair warm-start solutions; ``weights``
    per-sample weights over the rows of X (pair p trains with ``weights[rows]``)."""
    def one(p):
        _, _, rows, y_pm = subsets[p]
        wp = None if weights is None else weights[rows]
        prev = None if prevs is None else prevs[p]
        alpha0 = None
        if prev is not None and prev.alpha.shape == y_pm.shape:
            alpha0 = warm_start_alpha(prev.alpha, y_pm, prev.C, C, loss, wp)
        return solve_svm_dual(X[rows], y_pm, kernel, C, loss=loss, tol=tol, alpha0=alpha0,
                              cache_size=cache_size, check_input=False, weights=wp)

    return _parallel(one, range(len(subsets)), n_jobs)


def pair_model(i, j, rows, y_pm, sol, kernel, theta) -> PairModel:
    sv = sol.support
    return PairModel(classes=(i, j), C=float(sol.C), kernel=kernel,
                     theta=np.asarray(theta, dtype=float).copy(), support=rows[sv],
                     dual_coef=sol.alpha[sv] * y_pm[sv], intercept=float(sol.b),
                     n_iter=int(sol.n_iter), converged=bool(sol.converged),
                     bounded=int(sol.bounded.size))


def fit_per_pair(est, X, y_idx, weights=None):
    """Every pair a binary BoundSVC of its own (labels 1 = class i ↦ +1), in n_jobs threads,
    fitted with ``sample_weight`` = the weights of its rows (class_weight already in them).
    The pairs' ModelWarnings are collected into one; their other warnings are passed on once."""
    k = est.classes_.size
    subsets = pair_subsets(y_idx, k)
    labels = est.classes_

    def fit_pair(p):
        i, j, rows, y_pm = subsets[p]
        sub = clone(est).set_params(n_jobs=1, multiclass_theta="shared", progress=False,
                                    class_weight=None)
        if est.log_file is not None:
            sub.set_params(log_file=f"{est.log_file}.pair-{i}-{j}")
        return sub.fit(X[rows], (y_pm > 0).astype(np.int8),
                       sample_weight=None if weights is None else weights[rows])

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        subs = _parallel(fit_pair, range(len(subsets)), est.n_jobs)
    seen = set()
    for w in caught:
        key = (w.category, str(w.message))
        if issubclass(w.category, ModelWarning) or key in seen:
            continue
        seen.add(key)
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)

    models = []
    for (i, j, rows, _), sub in zip(subsets, subs):
        models.append(PairModel(
            classes=(i, j), C=float(sub.best_params_["C"]), kernel=sub.kernel_,
            theta=np.asarray(sub.best_theta_, dtype=float).copy(), support=rows[sub.support_],
            dual_coef=np.asarray(sub.dual_coef_[0], dtype=float).copy(),
            intercept=float(sub.intercept_[0]), n_iter=int(sub.solution_.n_iter),
            converged=bool(sub.solution_.converged), bounded=int(sub.solution_.bounded.size)))
    set_pair_models(est, X, y_idx, models, None)
    given = [[f"pair {_pair_name(labels, i, j)}: {s}" for s in sub.search_.problems]
             for (i, j, _, _), sub in zip(subsets, subs)]
    problems, pair_problems = check_pairs(est, X, y_idx, subsets, None, None, given)
    if problems:
        warnings.warn("svmbound: " + "; ".join(problems), ModelWarning, stacklevel=4)
    stages = {_pair_name(labels, i, j): sub.search_ for (i, j, _, _), sub in zip(subsets, subs)}
    path = [dict(e, stage=name) for name, r in stages.items() for e in r.get("path", [])]
    thetas = [m.theta for m in models]
    if len({t.size for t in thetas}) == 1:
        est.best_theta_ = np.array(thetas)
    else:       # some pairs per-feature (strategy.ard): one θ array per pair
        est.best_theta_ = np.empty(len(thetas), dtype=object)
        est.best_theta_[:] = thetas
    est.feature_scales_ = None    # each pair's: pair_estimators_[k].feature_scales_
    est.best_value_ = np.array([float(sub.best_value_) for sub in subs])
    est.best_params_ = {(labels[i], labels[j]): dict(sub.best_params_)
                        for (i, j, _, _), sub in zip(subsets, subs)}
    est.criterion_name_ = subs[0].criterion_name_
    est.c_projected_ = np.array([bool(sub.c_projected_) for sub in subs])
    est.n_trainings_ = int(sum(sub.n_trainings_ for sub in subs))
    est.pair_estimators_ = subs
    if est.probability:      # each pair's BoundSVC: +1 (its classes_[1]) is class i
        est.probA_ = np.array([sub.probA_[0] for sub in subs])
        est.probB_ = np.array([-sub.probB_[0] for sub in subs])    # (a binary one's is SVC's)
    est.search_ = SearchResult(
        x=est.best_theta_, fun=est.best_value_, jac=None,
        nfev=int(sum(s.search_.get("nfev", 0) for s in subs)),
        njev=int(sum(s.search_.get("njev", 0) for s in subs)),
        nit=int(sum(s.search_.get("nit", 0) for s in subs)), success=True, status=0,
        message=f"tuned each of the {len(subs)} class pairs separately (multiclass_theta="
                "'per-pair')", path=path, stages=stages, problems=problems,
        pair_problems=pair_problems)


# -------------------------------------------------------------------------------------------
# the fitted model in SVC's layout
# -------------------------------------------------------------------------------------------
def set_pair_models(est, X, y_idx, models, shared_kernel):
    """The pair models in SVC's layout on ``est``: ``support_`` (every support vector once,
    by class), ``dual_coef_`` ((k − 1) × n_SV, LIBSVM's), ``intercept_``, ``pair_models_``."""
    k = est.classes_.size
    in_support = np.zeros(X.shape[0], dtype=bool)
    for m in models:
        in_support[m.support] = True
    support = np.concatenate([np.flatnonzero(in_support & (y_idx == c)) for c in range(k)])
    pos = np.full(X.shape[0], -1, dtype=np.intp)
    pos[support] = np.arange(support.size)
    dual = np.zeros((k - 1, support.size))
    for m in models:
        i, j = m.classes
        cols = pos[m.support]
        of_i = y_idx[m.support] == i
        dual[j - 1, cols[of_i]] = m.dual_coef[of_i]
        dual[i, cols[~of_i]] = m.dual_coef[~of_i]
        m.sv_cols = cols
    est.support_ = support.astype(np.int32)
    est.support_vectors_ = X[support]
    est.n_support_ = np.bincount(y_idx[support], minlength=k).astype(np.int32)
    est.dual_coef_ = dual
    est.intercept_ = np.array([m.intercept for m in models])
    est.pair_models_ = models
    est.kernel_ = shared_kernel
    for stale in ("alpha_", "solution_", "pair_estimators_"):   # from an earlier fit
        est.__dict__.pop(stale, None)


def check_pairs(est, X, y_idx, subsets, pair_rates, criterion, given=None):
    """(problems, pair problems) of the fitted multi-class model (module docstring). The
    problems list the first ``MAX_LISTED_PAIR_PROBLEMS`` pair problems and the voting
    machine's own; ``given``: per-pair problem sentences already found (per-pair θ)."""
    labels = est.classes_
    dec = ovo_decision_values(est, X)
    pair_problems = []
    for p, ((i, j, rows, y_pm), m) in enumerate(zip(subsets, est.pair_models_)):
        if given is not None:
            pair_problems += given[p]
            continue
        rate = None if pair_rates is None else pair_rates[p]
        pair_problems += [f"pair {_pair_name(labels, i, j)}: {s}" for s in model_problems(
            y_pm, dec[rows, p], m.converged, rate, criterion)]
    problems = pair_problems[:MAX_LISTED_PAIR_PROBLEMS]
    if len(pair_problems) > MAX_LISTED_PAIR_PROBLEMS:
        problems.append(f"{len(pair_problems) - MAX_LISTED_PAIR_PROBLEMS} more problems of "
                        f"pair machines (search_.pair_problems lists all)")
    k = labels.size
    pred = vote(dec, k)
    if np.unique(pred).size < 2:
        problems.append("the model predicts one class for every training point")
    counts = np.bincount(y_idx, minlength=k)
    r_maj = 1.0 - counts.max() / y_idx.size
    err = float(np.mean(pred != y_idx))
    if err >= r_maj:
        problems.append(f"training error {err:.3f} of the voting machine is at or above "
                        f"{r_maj:.3f}, the error of always predicting the largest class")
    return problems, pair_problems


# -------------------------------------------------------------------------------------------
# prediction
# -------------------------------------------------------------------------------------------
def ovo_decision_values(est, X) -> np.ndarray:
    """(n, k(k−1)/2) decision values of the pairs, positive for the pair's first class."""
    k = est.classes_.size
    models = est.pair_models_
    out = np.empty((X.shape[0], len(models)))
    sv = est.support_vectors_
    if est.kernel_ is not None:
        # one kernel block against all support vectors per row block; each pair reads its two
        # classes' columns (LIBSVM's svm_predict_values)
        starts = np.concatenate([[0], np.cumsum(est.n_support_)])
        D, b = est.dual_coef_, est.intercept_
        for rows in _row_blocks(X.shape[0], max(sv.shape[0], 1)):
            Kb = est.kernel_.block(X[rows], sv) if sv.shape[0] else np.zeros((0, 0))
            for p, (i, j) in enumerate(class_pairs(k)):
                si, sj = slice(starts[i], starts[i + 1]), slice(starts[j], starts[j + 1])
                out[rows, p] = Kb[:, si] @ D[j - 1, si] + Kb[:, sj] @ D[i, sj] + b[p]
        return out
    for p, m in enumerate(models):
        if m.support.size == 0:
            out[:, p] = m.intercept
        else:
            out[:, p] = m.kernel.block_dot(X, sv[m.sv_cols], m.dual_coef) + m.intercept
    return out


def _checked_X(est, X):
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(est, "dual_coef_")
    return est._check_input(X, reset=False)


def decision_function(est, X) -> np.ndarray:
    """'ovo': (n, k(k−1)/2) pair values; 'ovr': (n, k), scikit-learn's transformation."""
    dec = ovo_decision_values(est, _checked_X(est, X))
    if est.decision_function_shape == "ovo":
        return dec
    return ovr_decision(dec, est.classes_.size)


def predict_proba(est, X) -> np.ndarray:
    """(n, k) class probabilities: each pair's Platt sigmoid (``probA_``, ``probB_``) of its
    decision value, clipped to [1e-7, 1 − 1e-7], coupled by Wu, Lin & Weng's method 2."""
    dec = ovo_decision_values(est, _checked_X(est, X))
    k = est.classes_.size
    R = np.zeros((dec.shape[0], k, k))
    for p, (i, j) in enumerate(class_pairs(k)):
        r = np.clip(sigmoid_predict(dec[:, p], est.probA_[p], est.probB_[p]), MIN_PROB,
                    1.0 - MIN_PROB)
        R[:, i, j], R[:, j, i] = r, 1.0 - r
    return pairwise_coupling(R)


def predict(est, X) -> np.ndarray:
    """Voting over the pairs (LIBSVM: f > 0 votes for the pair's first class; ties to the
    smaller class index) — what SVC.predict does, whatever ``decision_function_shape``."""
    dec = ovo_decision_values(est, _checked_X(est, X))
    return est.classes_[vote(dec, est.classes_.size)]
