"""Reference measures: k-fold cross-validation error and the exact leave-one-out error.

Not differentiable; used with the grid or annealing searches and to check the bounds and
estimates of ``span.py`` / ``radius_margin.py``. Both work with our SMO solver for either loss
(``loss='l1'``, the default, or ``'l2'``) and count errors with Chapelle's step function
(eq. 4–5): a held-out point x_p is an error when the label the model predicts for it is not
y_p, decided exactly as ``BoundSVC.predict`` decides (:func:`misclassified`: f > 0 ↦ +1, every
other f — 0 included — ↦ −1). Chapelle's y_p f(x_p) < 0 differs only at f = 0, and there it
counted no error while ``predict`` gives ``classes_[0]`` (issue 29 item 2: at θ = (−10, −10) every
held-out kernel value underflows to 0, b = 0 on balanced folds, every f = 0, and the CV error of
a chance-level model was 0).

Scale: both values are **numbers of errors on the ℓ training points** (every point is held out
exactly once in either procedure), the scale of Chapelle's ℒ (eq. 5) and of the other LOO
estimates in svmbound; ``info['rate']`` = value/ℓ is the usual error rate.

Per-sample weights (the problem's, C_i = C·w_i): every training keeps its points' weights (they
follow the samples into the folds), and a held-out point in error counts with its weight:
value = Σ w_p over the errors, ``info['rate']`` = value/Σw (with class_weight='balanced' this
is the balanced error rate). Without weights the value is the plain count, as before.
"""

from __future__ import annotations

import threading

import numpy as np

from .._parallel import parallel_map
from ..kernels import GramRows, PrecomputedKernel, gram_can_be_shared, held_out_sums
from ..solvers import decision_function, solve_svm_dual, warm_start_alpha
from ..solvers.qp import cache_megabytes, cache_share
from ..solvers.svm import check_loss
from .base import Criterion, _kernel_key

#: The k folds of a CV at one kernel share its matrix K(X, X) (``kernels.GramRows``) when it
#: takes at most this fraction of the configured cache (× the thread's share of it: with
#: ``cache_size='auto'``, at least 200 MB, up to 2,560 rows); each kernel value is then
#: computed once instead of in every fold that trains on both points. None: never.
SHARED_GRAM_FRACTION = 0.25


def misclassified(y, f) -> np.ndarray:
    """Boolean mask of the points whose predicted label is not y (±1): the prediction is
    +1 where f > 0 and −1 everywhere else (f = 0 and NaN included), exactly the rule of
    ``BoundSVC.predict`` (``classes_[1]`` where the decision function is positive, else
    ``classes_[0]``) and of ``svmbound.checks.model_problems``. Every held-out or validation
    error count of the criteria uses it, so that a count is the error ``predict`` makes."""
    return (np.asarray(f) > 0) != (np.asarray(y) > 0)


def stratified_folds(X, labels, n_folds, random_state) -> list:
    """(train, test) index pairs of ``StratifiedKFold(n_folds, shuffle=True, random_state)``
    over ``labels`` (±1 or class indices); ``n_folds`` must be between 2 and the size of the
    smallest class (a ValueError otherwise)."""
    from sklearn.model_selection import StratifiedKFold

    n_folds = int(n_folds)
    n_minor = int(np.unique(labels, return_counts=True)[1].min())
    if n_folds < 2 or n_folds > n_minor:
        raise ValueError(f"n_folds must be between 2 and the size of the smallest class "
                         f"({n_minor}), got {n_folds}")
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    return [(tr, te) for tr, te in skf.split(X, labels)]


def check_folds(folds, n: int) -> list:
    """Explicit (train, test) index pairs over n rows, as integer arrays: each part non-empty,
    within 0..n−1, train and test disjoint (a ValueError otherwise). One pair is a hold-out
    validation (the default strategy's on large data, ``strategy.tuning_rows``)."""
    out = []
    for k, pair in enumerate(folds):
        tr, te = (np.asarray(part) for part in pair)
        for part, what in ((tr, "training"), (te, "test")):
            if part.ndim != 1 or part.size == 0 or part.dtype.kind not in "iu":
                raise ValueError(f"fold {k}: the {what} part must be a non-empty 1-D array of "
                                 f"row indices")
            if part.min() < 0 or part.max() >= n:
                raise ValueError(f"fold {k}: {what} indices must be in 0..{n - 1}")
        if np.intersect1d(tr, te).size:
            raise ValueError(f"fold {k}: a row is in both the training and the test part")
        out.append((tr.astype(np.intp), te.astype(np.intp)))
    if not out:
        raise ValueError("folds must hold at least one (train, test) pair")
    return out


def held_out_total(folds, weights, n: int) -> float:
    """What a validation's errors are counted out of: the held-out rows over all folds (ℓ for
    a k-fold CV, where each row is held out once), or their summed weights."""
    held = np.concatenate([te for _, te in folds])
    return float(held.size) if weights is None else float(np.asarray(weights)[held].sum())


def held_out_trivial_errors(folds, y, weights) -> float:
    """The errors a validation would count for the classifier that always predicts the class
    with the largest held-out total (count, or summed weights): that total subtracted from
    ``held_out_total``. A candidate with at least this many errors is no better than it."""
    held = np.concatenate([te for _, te in folds])
    labels = np.asarray(y)[held]
    w = np.ones(held.size) if weights is None else np.asarray(weights, dtype=float)[held]
    _, inverse = np.unique(labels, return_inverse=True)
    per_class = np.bincount(inverse, weights=w)
    return float(per_class.sum() - per_class.max())


_PIECES_LOCK = threading.Lock()


def shared_gram(X, kernel, n_folds: int, cache_size) -> np.ndarray | None:
    """K(X, X) at ``kernel`` for the trainings of a k-fold CV to share (``kernels.GramRows``),
    or None where it would not pay or not fit: sparse X, kernels other than RBF and polynomial
    (a linear kernel row costs no more than reading it), one fold (a hold-out validation), or
    more than ``SHARED_GRAM_FRACTION`` of the thread's share of the cache ``cache_size``."""
    if SHARED_GRAM_FRACTION is None or n_folds < 2 or not gram_can_be_shared(X, kernel):
        return None
    n = X.shape[0]
    budget = float(cache_megabytes(cache_size)) * 2**20 * cache_share()
    if 8.0 * n * n > SHARED_GRAM_FRACTION * budget:
        return None
    return kernel.block(X)


def training_rows(X, rows, kernel, gram):
    """(X, kernel) of a training on ``rows``: the rows themselves, or the rows of the shared
    ``gram`` (:func:`shared_gram`) with the precomputed kernel."""
    if gram is None:
        return X[rows], kernel
    return GramRows(gram, rows), PrecomputedKernel()


def held_out_decision(X, rows, y_rows, sol, kernel, gram, test) -> np.ndarray:
    """f(x) = Σ α_i y_i K(x_i, x) + b at the rows ``test`` of X for a training on ``rows``
    (labels ``y_rows``), from the shared ``gram`` when there is one."""
    if gram is None:
        return decision_function(X[rows], y_rows, sol.alpha, sol.b, kernel, X[test])

    sv = np.flatnonzero(sol.alpha > 0)
    # (np.ix_ blocks of K took 150 µs a training on letter, copies of whole rows 80 µs; the
    # numba loop reads the entries in place: 21 µs)
    return held_out_sums(gram, np.ascontiguousarray(test, dtype=np.int64),
                         np.ascontiguousarray(rows[sv], dtype=np.int64),
                         sol.alpha[sv] * y_rows[sv]) + sol.b


class HeldOutValues:
    """The out-of-fold decision values of a cross-validation criterion, kept per θ when
    ``keep_held_out`` is set (Platt's sigmoid of ``probability=True`` is fitted on them,
    ``svmbound.probability``); ``folds`` and ``y`` are the criterion's."""

    keep_held_out = False

    def _keep_held_out(self, C, key, F) -> None:
        """Keep F, the decision values of every held-out row (rows × machines), at (C, kernel
        key) when asked to."""
        if self.keep_held_out:
            self.__dict__.setdefault("_held_out", {})[(C, key)] = F

    def held_out_values(self, theta):
        """(held-out rows, their labels, the decision values there of the machines trained
        without them) at θ, when an evaluation there kept them, else None."""
        C, kernel = self.split_theta(np.asarray(theta, dtype=float))
        F = self.__dict__.get("_held_out", {}).get((C, _kernel_key(kernel)))
        if F is None:
            return None
        rows = np.concatenate([te for _, te in self.folds])
        return rows, self.y[rows], F[rows]


class _ReferenceCriterion(Criterion):
    loss = "l1"
    differentiable = False

    def __init__(self, problem, kernel, *, loss: str = "l1", **kw):
        super().__init__(problem, kernel, **kw)
        self.loss = check_loss(loss)

    def _solve(self, X, y, kernel, C, alpha0, weights=None):
        sol = solve_svm_dual(X, y, kernel, C, loss=self.loss, tol=self.tol, alpha0=alpha0,
                             cache_size=self.cache_size, check_input=False,
                             max_iter=self.max_iter, weights=weights)
        self.n_trainings += 1
        self.note_solution(sol, "SVM dual (held-out training)")
        return sol

    def _errors(self, idx, wrong):
        """The number of errors among the held-out points ``idx`` (a boolean mask over them),
        each counted with its weight when there are weights."""
        if self.weights is None:
            return int(np.count_nonzero(wrong))
        return float(self.weights[idx][wrong].sum())

    def _total(self) -> float:
        """What the errors are counted out of: ℓ, or Σw."""
        return self.y.size if self.weights is None else float(self.weights.sum())


class CrossValidationError(HeldOutValues, _ReferenceCriterion):
    """k-fold cross-validation error count: Σ_folds #{p in the fold : predict^{−fold}(x_p) ≠ y_p}
    (:func:`misclassified`: f = 0 predicts −1, as ``BoundSVC.predict``).

    Folds: ``StratifiedKFold(n_folds, shuffle=True, random_state)``, fixed at construction
    (``self.folds`` lists (train, test) index pairs, usable as scikit-learn's ``cv``), or the
    explicit ``folds=`` (e.g. one (train, validation) pair: a hold-out error, whose ``rate`` is
    over the held-out rows); the folds are trained in ``n_jobs`` joblib workers (threads by
    default). After a step in C alone each fold's SVM starts from that fold's solution at the
    previous θ with its gradient; at new kernel parameters it starts cold
    (``Criterion.warm_across_kernels``).

    :meth:`precompute` trains the folds of several θ at once (the default strategy's
    candidates), in more parallel pieces than the folds of one θ; ``evaluate`` then answers
    those θ from its results. :meth:`pieces`, :meth:`run_piece` and :meth:`keep_pieces` are
    its three steps, for a caller that schedules the pieces itself (the default strategy
    starts a bound search's pieces as soon as that search ends).
    """

    name = "cv-error"
    formula = "number of misclassified held-out points over k stratified folds (rate = value/l)"
    source = "k-fold cross-validation (reference measure)"

    def __init__(self, problem, kernel, *, loss: str = "l1", n_folds: int = 5, random_state=0,
                 n_jobs=None, folds=None, **kw):
        super().__init__(problem, kernel, loss=loss, **kw)
        self.n_jobs = n_jobs
        self.folds = (stratified_folds(self.X, self.y, n_folds, random_state) if folds is None
                      else check_folds(folds, self.y.size))
        self.n_folds = len(self.folds)
        self.random_state = random_state
        self._fold_prev: list = [None] * self.n_folds
        self._fold_key: list = [None] * self.n_folds
        self._precomputed: dict = {}
        self._fold_ranks: dict = {}         # (C, kernel key) -> rank of each fold's result
        self._starts: dict = {}             # (C, kernel key) -> a solution on rows 0..m-1

    def _total(self) -> float:
        return held_out_total(self.folds, self.weights, self.y.size)

    def _fold_total(self, te) -> float:
        """What one fold's errors are counted out of: its held-out rows, or their weights."""
        return float(te.size) if self.weights is None else float(self.weights[te].sum())

    warm_state_attrs = Criterion.warm_state_attrs + ("_fold_prev", "_fold_key")

    def shared_gram(self, kernel) -> np.ndarray | None:
        """:func:`shared_gram` of this criterion's data, folds and cache."""
        return shared_gram(self.X, kernel, self.n_folds, self.cache_size)

    def start_fold_from(self, C, kernel, sol) -> None:
        """Let a fold whose training rows are exactly rows 0, …, m − 1 (a hold-out whose
        training part is the rows a bound search ran on, S, first: ``strategy.tune``) start
        its training at (C, ``kernel``) from ``sol``, that search's own solution there on those
        m rows (same loss, weights and C; its gradient reused: no kernel value), instead of
        cold. Only the start changes: the training still runs to this criterion's tolerance."""
        self._starts[(C, _kernel_key(kernel))] = sol

    def _fold(self, k, C, kernel, prev, prev_key, gram=None):
        """(solution, errors, hinge loss, held-out decision values) of fold k: train on its training part (warm-started
        from ``prev``, this fold's solution at a previous θ whose kernel has ``prev_key``, or
        cold when None), count the held-out points ``predict`` gets wrong (:func:`misclassified`)
        and sum their hinge losses
        max(0, 1 − y f(x)). ``gram``: K(X, X) at ``kernel`` (``shared_gram``), whose rows the
        training then reads instead of computing its own. Changes nothing in ``self``: the
        caller keeps the solution for the next warm start (a fold may run on a copy in another
        process, ``svmbound._parallel``)."""
        tr, te = self.folds[k]
        ytr = self.y[tr]
        wtr = None if self.weights is None else self.weights[tr]
        Xtr, solve_kernel = training_rows(self.X, tr, kernel, gram)
        alpha0 = warm_from = None
        start = self._starts.get((C, _kernel_key(kernel))) if prev is None else None
        if (self.warm_start and start is not None and start.alpha.size == tr.size
                and np.array_equal(tr, np.arange(tr.size))):    # rows 0, …, m − 1
            warm_from = start
        elif self.warm_start and prev is not None:
            if prev_key == _kernel_key(kernel):   # only C changed: reuse the gradient
                warm_from = prev
            elif self.warm_across_kernels:        # (Criterion: off, cold is faster)
                alpha0 = warm_start_alpha(prev.alpha, ytr, prev.C, C, self.loss, wtr)
        sol = solve_svm_dual(Xtr, ytr, solve_kernel, C, loss=self.loss, tol=self.tol,
                             alpha0=alpha0, warm_from=warm_from, cache_size=self.cache_size,
                             check_input=False, max_iter=self.max_iter, weights=wtr)
        f = held_out_decision(self.X, tr, ytr, sol, kernel, gram, te)
        margin = self.y[te] * f
        hinge = np.maximum(0.0, 1.0 - margin)
        return (sol, self._errors(te, misclassified(self.y[te], f)),
                float(hinge.sum() if self.weights is None else self.weights[te] @ hinge), f)

    def precompute(self, thetas, skip: int = 0) -> None:
        """Train every fold at every θ of ``thetas``, for ``evaluate`` to answer them later;
        the first ``skip`` θ are answered elsewhere (a resumed run's log): a run (below) of
        them alone is not trained, and their results are not kept. A run whose θ all have
        results already (:meth:`keep_pieces`) is not trained again.

        The θ are cut into runs of consecutive points with one kernel (one ln σ², C varying:
        the default strategy's minimum and its step in C); the pieces of work are (fold, run),
        all independent, on ``n_jobs`` workers. Within a run each fold is warm-started from its
        solution at the run's previous θ (a step in C alone reuses its gradient); the first θ of
        a run starts cold. Warm starts across kernels saved no SMO iterations on the IDA sets
        (43,630 against 43,436 on image), and independent runs let 5 folds × 3 kernels go out
        as 15 pieces: with 2 workers no round of 5 folds leaves one worker idle, with 16 the
        candidates train side by side. The pieces, hence the results, do not depend on
        ``n_jobs``."""
        tasks = self.pieces(thetas, skip)
        self.keep_pieces(tasks, parallel_map(self.run_piece, tasks, self.n_jobs))

    def pieces(self, thetas, skip: int = 0, rank: float = np.inf) -> list:
        """The (fold, run, rank, gram) pieces of work of :meth:`precompute` for ``thetas`` (a
        run: [(C, kernel, kernel key, keep)]), without the runs whose kept θ all have results
        of this ``rank`` or a lower one already (rank ∞, the default: of any rank). ``rank``
        orders pieces that train the same θ in different runs (the default strategy's
        searches, each validating its own candidates as soon as it ends): the result of the
        lowest rank is kept, whichever finished first. ``gram``: a dict shared by the folds of
        one run, {"K": its kernel's :meth:`shared_gram`, "left": folds not yet trained},
        computed here, once per run, and dropped when the run's last fold has been trained
        (or by :meth:`keep_pieces`)."""
        runs: list = []
        for i, theta in enumerate(thetas):
            C, kernel = self.split_theta(theta)
            key = _kernel_key(kernel)
            if runs and runs[-1][-1][2] == key:
                runs[-1].append((C, kernel, key, i >= skip))
            else:
                runs.append([(C, kernel, key, i >= skip)])
        runs = [run for run in runs if run[-1][3]]
        runs = [run for run in runs
                if not all(self._has_results(C, key, rank) for C, _, key, keep in run if keep)]
        grams = [{"K": self.shared_gram(run[0][1]), "left": self.n_folds} for run in runs]
        return [(k, run, rank, gram) for run, gram in zip(runs, grams)
                for k in range(self.n_folds)]

    def run_piece(self, task) -> list:
        """The (solution, errors, hinge loss, held-out values) of one fold at each θ of one run
        (a piece of :meth:`pieces`), warm-started along the run; changes nothing in ``self``."""
        k, run, _, gram = task
        prev = prev_key = None
        out = []
        for C, kernel, key, _ in run:
            res = self._fold(k, C, kernel, prev, prev_key, gram["K"])
            out.append(res)
            prev, prev_key = res[0], key
        with _PIECES_LOCK:          # the run's last fold releases its K (the other search's
            gram["left"] -= 1       # CV may still be running: one K less alive meanwhile)
            if gram["left"] == 0:
                gram["K"] = None
        return out

    def keep_pieces(self, tasks, outputs) -> None:
        """Keep the results of :meth:`run_piece` for ``evaluate``; a fold result of a lower
        rank is not replaced (one of the same rank is: the last one kept stands). The runs'
        shared kernel matrices are released."""
        for (k, run, rank, gram), outs in zip(tasks, outputs):
            gram["K"] = None
            for (C, _, key, keep), res in zip(run, outs):
                if not keep:
                    continue
                ranks = self._fold_ranks.setdefault((C, key), [None] * self.n_folds)
                if ranks[k] is None or rank <= ranks[k]:
                    ranks[k] = rank
                    self._precomputed.setdefault((C, key), [None] * self.n_folds)[k] = res

    def _has_results(self, C, key, rank) -> bool:
        """Whether every fold at (C, kernel key) has a kept result of at most ``rank``."""
        ranks = self._fold_ranks.get((C, key))
        return ranks is not None and all(r is not None and r <= rank for r in ranks)

    def _compute(self, C, kernel, need_grad):
        key = _kernel_key(kernel)
        out = self._precomputed.pop((C, key), None)
        self._fold_ranks.pop((C, key), None)
        if out is None or any(r is None for r in out):
            # the folds are independent: joblib threads (the SMO and BLAS release the GIL)

            gram = self.shared_gram(kernel)
            out = parallel_map(lambda k: self._fold(k, C, kernel, self._fold_prev[k],
                                                    self._fold_key[k], gram),
                               range(self.n_folds), self.n_jobs)
            del gram
        for k, (sol, *_) in enumerate(out):
            self.note_solution(sol, f"SVM dual of fold {k}")
            self._fold_prev[k], self._fold_key[k] = sol, key
        if self.keep_held_out:
            F = np.full(self.y.size, np.nan)
            for (_, te), res in zip(self.folds, out):
                F[te] = res[3]
            self._keep_held_out(C, key, F)
        self.n_trainings += self.n_folds
        value = float(sum(res[1] for res in out))
        return value, None, {"n_folds": self.n_folds,
                             "fold_rates": [float(res[1]) / self._fold_total(te)
                                            for res, (_, te) in zip(out, self.folds)],
                             "n_iter": int(sum(res[0].n_iter for res in out)),
                             "rate": value / self._total(),
                             "hinge": float(sum(res[2] for res in out)) / self._total()}


class LeaveOneOutError(_ReferenceCriterion):
    """Exact leave-one-out error count ℒ = Σ_p step(−y_p f^p(x_p)) (Chapelle eq. 5).

    Only support vectors are retrained: removing a point with α_p = 0 does not change the
    solution (Chapelle §3.2.1, §6.3), so for it f^p = f⁰ and it is an error iff ``predict``
    gets it wrong (:func:`misclassified`; never, at an exact optimum, since y_p f⁰(x_p) ≥ 1
    there). For a support vector p the SVM
    on the other ℓ − 1 points is warm-started from the full solution with α_p removed and
    yᵀα = 0 repaired (``warm_start_alpha``). ``info['loo_errors']`` lists the indices in error.
    """

    name = "loo-error"
    formula = ("#{p : sign(f^p(x_p)) != y_p}, f^p trained without point p, f = 0 predicting -1 "
               "as predict does (LOO error count; rate = value/l)")
    source = "Chapelle et al. 2002 eq. 5 (exact leave-one-out procedure)"

    def _compute(self, C, kernel, need_grad):
        full = self.solve_svm(C, kernel)
        y = self.y
        # y_i f⁰(x_i) = (Q̃α)_i + y_i b = gradient_i + 1 + y_i b for every α_i = 0 point
        margin0 = full.gradient + 1.0 + y * full.b
        # (f⁰ = y·margin0 exactly, y = ±1)
        errors = [int(i) for i in np.flatnonzero((full.alpha == 0)
                                                 & misclassified(y, y * margin0))]
        sv = full.support
        keep = np.ones(y.size, dtype=bool)
        for p in sv:
            keep[p] = False
            Xp, yp = self.X[keep], y[keep]
            wp = None if self.weights is None else self.weights[keep]
            alpha0 = warm_start_alpha(full.alpha[keep], yp, C, C, self.loss, wp)
            sol = self._solve(Xp, yp, kernel, C, alpha0, wp)
            f = decision_function(Xp, yp, sol.alpha, sol.b, kernel, self.X[p:p + 1])[0]
            if misclassified(y[p], f):
                errors.append(int(p))
            keep[p] = True
        errors.sort()
        value = float(len(errors) if self.weights is None else self.weights[errors].sum())
        return value, None, {"n_sv": int(sv.size), "n_retrained": int(sv.size),
                             "loo_errors": errors, "rate": value / self._total(), "b": full.b}


__all__ = ["CrossValidationError", "LeaveOneOutError", "misclassified"]
