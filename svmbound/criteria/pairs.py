"""Multi-class criteria over the one-vs-one pairs (DESIGN.md §6, "Multi-class above binary").

A k-class problem is split into its k(k−1)/2 one-vs-one binary problems (``svmbound.ovo``:
pair (i, j) holds the rows of classes i and j, y = +1 for i). Two objects make a multi-class
objective that the search layer and the default strategy see as ONE criterion of θ:

* :class:`PairwiseSum` — Σ_pairs c_p(θ) for one binary criterion per pair, all at the same θ
  (one C and kernel shared by the pairs, as SVC and LIBSVM share them); its gradient is the
  sum of the pairs' gradients. The pairs are evaluated in ``n_jobs`` joblib workers (threads by
  default: the numba SMO and BLAS release the GIL); each returns its ``warm_state()``, which is
  set back on the pair criterion (it may have run on a copy in another process), and values and
  gradients are summed in pair order, so the result does not depend on ``n_jobs``.

  Why the sum is the right objective for the count-valued criteria (radius–margin, span,
  LOO/CV counts): with voting, a point x_p of class c is predicted correctly when every one of
  the k − 1 pair machines (c, ·) classifies it as c (c then has k − 1 votes, every other class
  fewer). So a leave-one-out error of the multi-class machine on x_p needs a leave-one-out error
  of at least one pair machine on x_p, and

      #multi-class LOO errors ≤ Σ_pairs #LOO errors of the pair ≤ Σ_pairs bound_p(θ):

  the summed bound is a bound on the multi-class LOO error (``info['rate']`` = value/ℓ).
* :class:`OvOCrossValidationError` — the k-fold CV error of the **voting** machine: on each
  fold every pair is trained on the fold's training rows of its two classes, the held-out rows
  (all classes) are predicted by voting, and the misclassified ones are counted. This, and not
  the sum of the pairs' CV errors, is what the default strategy picks candidates by. The sum
  over pairs counts a point once per pair machine that misclassifies it (up to k − 1 times)
  and counts errors that voting repairs (a point that loses one of its k − 1 pairs is usually
  still predicted right), so it ranks candidates by a different quantity than the test error
  the user will see; the voting error costs the same trainings (every pair on every fold).
"""

from __future__ import annotations

import time

import numpy as np

from .._parallel import parallel_map as _parallel
from ..kernels import rbf_gamma
from ..ovo import class_pairs, pair_subsets, vote
from ..solvers import DEFAULT_CACHE_MB, check_problem, solve_svm_dual
from ..solvers.svm import check_loss
from . import criterion_class, make_criterion
from .base import Criterion, Evaluation, _kernel_key
from .reference import (HeldOutValues, check_folds, held_out_decision, held_out_total, shared_gram,
                        stratified_folds, training_rows)

__all__ = ["PairwiseSum", "OvOCrossValidationError", "pairwise_criterion"]


def _pair_rate(crit, ev) -> float | None:
    """The pair criterion's estimate of its LOO error rate (as ``BoundSVC._criterion_rate``):
    value/ℓ_p for the radius–margin bounds, else ``info['rate']``."""
    if crit.name.startswith("rm-"):
        return float(ev.value) / crit.y.size
    r = ev.info.get("rate")
    return None if r is None else float(r)


class PairwiseSum(Criterion):
    """Σ_pairs of one binary criterion per one-vs-one pair, at one shared θ (module docstring).

    Parameters
    ----------
    criteria : the pair criteria (same class, same kernel type, θ of the same layout), in
        ``svmbound.ovo.class_pairs`` order.
    pairs : the (i, j) class-index pairs of ``criteria`` (for reports), default class_pairs.
    n_samples : ℓ, the rows of the multi-class problem (``info['rate']`` = value/ℓ); default
        the sum of the pairs' sizes divided by k − 1 (exact for every class in k − 1 pairs).
    n_jobs : joblib threads over the pairs (None: 1 or the active ``parallel_config``).

    It has the face of a :class:`~svmbound.criteria.base.Criterion` (``evaluate``, ``fun``,
    ``grad``, ``param_names``, ``split_theta``, ``n_trainings``, ``warm_state``…): the name,
    loss and differentiability are the pair criterion's. Evaluation info: ``pair_values``,
    ``pair_rates`` (each pair's LOO-rate estimate, None where it has none), summed ``n_sv`` /
    ``n_iter``, ``converged`` (all pairs), ``rate`` = value/ℓ when the pair criterion is a
    count of (bounded) LOO errors.
    """

    pairwise = True

    def __init__(self, criteria, *, pairs=None, n_samples: int | None = None, n_jobs=None):
        criteria = list(criteria)
        if not criteria:
            raise ValueError("PairwiseSum needs at least one pair criterion")
        names = {c.name for c in criteria}
        if len(names) != 1:
            raise ValueError(f"the pair criteria must be of one kind, got {sorted(names)}")
        params = {tuple(c.param_names) for c in criteria}
        if len(params) != 1:
            raise ValueError(f"the pair criteria must share one θ layout, got {sorted(params)}")
        first = criteria[0]
        self.criteria = criteria
        self.name = first.name
        self.loss = first.loss
        self.differentiable = all(c.differentiable for c in criteria)
        self.needs_radius = getattr(first, "needs_radius", False)
        self.formula = f"sum over the one-vs-one pairs of: {first.formula}"
        self.source = first.source
        n_classes = int(round((1 + np.sqrt(1 + 8 * len(criteria))) / 2))
        self.pairs = list(pairs) if pairs is not None else class_pairs(n_classes)
        if len(self.pairs) != len(criteria):
            raise ValueError(f"{len(criteria)} criteria but {len(self.pairs)} pairs")
        self.n_samples = int(n_samples) if n_samples is not None else int(
            round(sum(c.y.size for c in criteria) / max(n_classes - 1, 1)))
        self.n_jobs = n_jobs
        self.tol = first.tol
        self.cache_size = first.cache_size
        self.warm_start = first.warm_start
        self._last = None

    # -- shared state, distributed over the pairs ---------------------------------------
    @property
    def kernel(self):
        return self.criteria[0].kernel

    @kernel.setter
    def kernel(self, kernel):   # annealing over the polynomial degree replaces it
        for c in self.criteria:
            c.kernel = kernel

    @property
    def n_trainings(self) -> int:
        return int(sum(c.n_trainings for c in self.criteria))

    @property
    def n_radius_solves(self) -> int:
        return int(sum(getattr(c, "n_radius_solves", 0) for c in self.criteria))

    @property
    def _svm_prev(self):
        """The pairs' last SVM solutions (a new tuple after each evaluation that trained)."""
        prevs = tuple(c._svm_prev for c in self.criteria)
        return None if all(p is None for p in prevs) else prevs

    @property
    def _radius_prev(self):
        return {}

    @_radius_prev.setter
    def _radius_prev(self, value):
        # the only writer (search.space, when the polynomial degree changes) forgets the key of
        # the cached R² and keeps β as warm start: do that in every pair
        for c in self.criteria:
            prev = c._radius_prev.get("sol")
            c._radius_prev = {} if prev is None else {"sol": prev, "key": None}

    def warm_state(self) -> dict:
        return {"pairs": [c.warm_state() for c in self.criteria]}

    def first_solve_key(self):
        """``Criterion.first_solve_key`` of every pair (None when a pair's is None)."""
        keys = tuple(c.first_solve_key() for c in self.criteria)
        return None if None in keys else ("pairs",) + keys

    def solve_at(self, theta) -> None:
        """Every pair's SVM solve at θ, on ``n_jobs`` threads."""
        out = _parallel(lambda c: (c.solve_at(theta), c.warm_state())[1], self.criteria,
                        self.n_jobs)
        for c, state in zip(self.criteria, out):   # a no-op unless c ran on a copy
            c.set_warm_state(state)

    def start_from(self, other) -> None:
        """Each pair starts from the same pair's solution of ``other``."""
        for c, o in zip(self.criteria, other.criteria):
            c.start_from(o)

    def set_warm_state(self, state: dict) -> None:
        for c, s in zip(self.criteria, state["pairs"]):
            c.set_warm_state(s)

    # -- evaluation ----------------------------------------------------------------------
    def evaluate(self, theta, need_grad: bool = True) -> Evaluation:
        t0 = time.perf_counter()
        theta = np.array(theta, dtype=np.float64).ravel()
        C, kernel = self.split_theta(theta)
        need = bool(need_grad and self.differentiable)
        out = _parallel(lambda c: (c.evaluate(theta, need_grad=need), c.warm_state()),
                        self.criteria, self.n_jobs)
        for c, (_, state) in zip(self.criteria, out):   # a no-op unless c ran on a copy
            c.set_warm_state(state)
        evs = [ev for ev, _ in out]
        value = 0.0
        for ev in evs:                   # in pair order: the same bits for any n_jobs
            value += ev.value
        grad = None
        if need:
            grad = np.zeros_like(theta)
            for ev in evs:
                grad += ev.grad
        rates = [_pair_rate(c, ev) for c, ev in zip(self.criteria, evs)]
        info = {"n_pairs": len(evs), "pair_values": [float(ev.value) for ev in evs],
                "pair_rates": rates,
                "converged": all(bool(ev.info.get("converged", True)) for ev in evs)}
        for key in ("n_sv", "n_bsv", "n_iter"):
            if all(key in ev.info for ev in evs):
                info[key] = int(sum(ev.info[key] for ev in evs))
        if all(r is not None for r in rates):
            info["rate"] = value / self.n_samples
        info.update(C=C, kernel=kernel.get_params(), time_s=time.perf_counter() - t0)
        gamma = rbf_gamma(info["kernel"])
        if gamma is not None:
            info["gamma"] = gamma
        ev = Evaluation(theta=theta, value=float(value), grad=grad, info=info)
        self._last = ev
        return ev

    def _compute(self, C, kernel, need_grad):  # pragma: no cover - evaluate is overridden
        raise NotImplementedError


class OvOCrossValidationError(HeldOutValues, Criterion):
    """k-fold cross-validation error count of the one-vs-one voting machine (module docstring).

    Folds: ``StratifiedKFold(n_folds, shuffle=True, random_state)`` over the class labels, fixed
    at construction (``self.folds``), or explicit ``folds=`` as for the binary
    ``CrossValidationError`` (a hold-out validation: rate and hinge over the held-out rows). On
    each fold each pair is trained on the fold's training rows of its two classes (when only C
    changed since the previous θ, started from that (fold, pair)'s solution with its gradient,
    ``solvers.same_kernel_start``; else cold), all held-out rows are predicted by voting
    (``svmbound.ovo.vote``), and the errors counted. The n_folds · k(k−1)/2 trainings run in
    ``n_jobs`` joblib threads; the result does not depend on it.

    Value: the number of errors over the ℓ rows (each held out once); ``info['rate']`` =
    value/ℓ; ``info['hinge']``: the held-out hinge loss max(0, 1 − s·f) of each row, averaged
    over its k − 1 pairs (s = +1 when the row's class is the pair's first), summed and divided
    by ℓ (ties between candidates are broken by it, ``strategy._cv_key``).

    The problem's targets are class indices 0..k−1 (``svmbound._validation.check_class_y``).

    Per-sample weights (the problem's, C_i = C·w_i, computed on all rows): each (fold, pair)
    training gets the weights of its rows, and a held-out row in error counts with its weight
    (value = Σ w over the errors, ``rate`` = value/Σw, ``hinge`` weighted and over Σw), as the
    binary ``CrossValidationError`` does.
    """

    name = "cv-error"
    differentiable = False
    formula = ("number of held-out points misclassified by one-vs-one voting over k stratified "
               "folds (rate = value/l)")
    source = "k-fold cross-validation of the multi-class (one-vs-one) SVM (reference measure)"
    warm_state_attrs = Criterion.warm_state_attrs + ("_fold_prev", "_fold_key")

    def __init__(self, problem, kernel, *, loss: str = "l1", n_folds: int = 5, random_state=0,
                 n_jobs=None, tol: float = 1e-6, cache_size: float = DEFAULT_CACHE_MB,
                 warm_start: bool = True, folds=None):

        problem = check_problem(problem, type(self).__name__)
        self.X = problem.X
        y = problem.y
        if not np.array_equal(y, np.round(y)) or y.min() < 0:
            raise ValueError("y must hold class indices 0..k-1 (check_class_y encodes labels)")
        self.y = y.astype(np.intp)
        self.n_classes = int(self.y.max()) + 1
        counts = np.bincount(self.y, minlength=self.n_classes)
        if self.n_classes < 2 or np.any(counts == 0):
            raise ValueError(f"y must hold every class index 0..{self.n_classes - 1} at least "
                             f"once, got counts {counts.tolist()}")
        #: per-sample weights w_i > 0 (C_i = C·w_i), None when all are 1
        self.weights = problem.weights
        self.kernel = kernel
        self.loss = check_loss(loss)
        self.tol = float(tol)
        self.cache_size = cache_size
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.n_trainings = 0
        self.n_radius_solves = 0
        self._svm_prev = None
        self._svm_prev_key = None
        self._radius_prev = {}
        self._last = None

        self.folds = (stratified_folds(self.X, self.y, n_folds, random_state) if folds is None
                      else check_folds(folds, self.y.size))
        self.n_folds = len(self.folds)
        self.random_state = random_state
        # per fold: the pairs of its training part, rows as indices of X
        self._fold_pairs = [[(tr[rows], y_pm) for _, _, rows, y_pm in
                             pair_subsets(self.y[tr], self.n_classes)] for tr, _ in self.folds]
        self.pairs = class_pairs(self.n_classes)
        self._fold_prev = [[None] * len(self.pairs) for _ in range(self.n_folds)]
        self._fold_key = None

    def _total(self) -> float:
        """What the errors are counted out of: the held-out rows (ℓ for k folds), or their
        summed weights."""
        return held_out_total(self.folds, self.weights, self.y.size)

    def _train(self, task, C, kernel, gram=None):
        """Train pair p on fold k: (solution, its decision values on fold k's held-out rows).
        ``gram``: K(X, X) at ``kernel`` shared by every (fold, pair) training
        (``reference.shared_gram``). Changes nothing in ``self``: the caller keeps the
        solution for the next warm start."""
        k, p = task
        rows, y_pm = self._fold_pairs[k][p]
        Xp, solve_kernel = training_rows(self.X, rows, kernel, gram)
        wp = None if self.weights is None else self.weights[rows]
        prev = self._fold_prev[k][p]
        # warm start only where the kernel is the previous θ's (a step in C): the solution's
        # gradient carries over without a kernel pass (``solvers.same_kernel_start``); across
        # kernels a start from the old α saved under 0.5 % of the SMO iterations (letter, 4
        # candidates: 951,266 against 954,930) and its initial gradient cost a kernel pass
        warm_from = None
        if self.warm_start and prev is not None and self._fold_key == _kernel_key(kernel):
            warm_from = prev
        sol = solve_svm_dual(Xp, y_pm, solve_kernel, C, loss=self.loss, tol=self.tol,
                             warm_from=warm_from, cache_size=self.cache_size, check_input=False,
                             weights=wp)
        te = self.folds[k][1]
        return sol, held_out_decision(self.X, rows, y_pm, sol, kernel, gram, te)

    def _compute(self, C, kernel, need_grad):
        n_pairs = len(self.pairs)
        tasks = [(k, p) for k in range(self.n_folds) for p in range(n_pairs)]
        gram = shared_gram(self.X, kernel, self.n_folds, self.cache_size)
        out = _parallel(lambda t: self._train(t, C, kernel, gram), tasks, self.n_jobs)
        del gram
        for (k, p), (sol, _) in zip(tasks, out):
            self._fold_prev[k][p] = sol
        self._fold_key = _kernel_key(kernel)
        self.n_trainings += len(tasks)
        errors, hinge = 0, 0.0
        fold_rates = []
        n_iter = sum(sol.n_iter for sol, _ in out)
        F = np.full((self.y.size, n_pairs), np.nan) if self.keep_held_out else None
        for k, (_, te) in enumerate(self.folds):
            dec = np.column_stack([d for _, d in out[k * n_pairs:(k + 1) * n_pairs]])
            if F is not None:
                F[te] = dec
            yte = self.y[te]
            wrong = vote(dec, self.n_classes) != yte
            h = np.zeros(te.size)
            for p, (i, j) in enumerate(self.pairs):
                mi, mj = yte == i, yte == j
                h[mi] += np.maximum(0.0, 1.0 - dec[mi, p])
                h[mj] += np.maximum(0.0, 1.0 + dec[mj, p])
            fold_rates.append(float(np.count_nonzero(wrong)) / te.size if self.weights is None
                              else float(self.weights[te][wrong].sum() / self.weights[te].sum()))
            if self.weights is None:
                errors += int(np.count_nonzero(wrong))
                hinge += float(h.sum()) / (self.n_classes - 1)
            else:
                wte = self.weights[te]
                errors += float(wte[wrong].sum())
                hinge += float(wte @ h) / (self.n_classes - 1)
        if F is not None:
            self._keep_held_out(C, _kernel_key(kernel), F)
        value = float(errors)
        n = self._total()
        return value, None, {"n_folds": self.n_folds, "fold_rates": fold_rates,
                             "n_pairs": n_pairs, "n_iter": int(n_iter),
                             "rate": value / n, "hinge": hinge / n}


def pairwise_criterion(name: str, problem, kernel, *, n_classes: int | None = None,
                       n_jobs=None, loss: str | None = None, random_state=None, **kw):
    """The multi-class criterion ``name`` on a :class:`~svmbound.solvers.Problem` whose targets
    are class indices: 'cv-error' is :class:`OvOCrossValidationError` (the voting CV error;
    ``n_jobs`` its threads), every other name the :class:`PairwiseSum` of that binary criterion
    over the one-vs-one pairs (built with ``svmbound.criteria.make_criterion`` on each pair's
    rows and ±1 labels, the weights following the rows; ``n_jobs`` threads over the pairs).
    Keyword arguments go to the criterion as for ``make_criterion``."""
    problem = check_problem(problem, "pairwise_criterion")
    y_idx = np.asarray(problem.y).astype(np.intp)
    k = int(y_idx.max()) + 1 if n_classes is None else int(n_classes)
    if criterion_class(name, loss).name == "cv-error":
        if loss is not None:
            kw.setdefault("loss", loss)
        if random_state is not None:
            kw.setdefault("random_state", random_state)
        return OvOCrossValidationError(problem, kernel, n_jobs=n_jobs, **kw)
    subsets = pair_subsets(y_idx, k)
    crits = [make_criterion(name, problem.take(rows, y_pm), kernel, loss=loss,
                            random_state=random_state, **kw)
             for _, _, rows, y_pm in subsets]
    return PairwiseSum(crits, pairs=[(i, j) for i, j, _, _ in subsets], n_samples=y_idx.size,
                       n_jobs=n_jobs)
