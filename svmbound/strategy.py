"""The default tuning strategy: the bounds find the region, a validation picks.

``BoundSVC(criterion='auto')`` (the default) and ``svmbound tune`` with no options run
:func:`tune_auto`:

1. **Data-driven start** (scikit-learn's ``gamma='scale'``): θ₀ = (ln C = 0, ln σ² =
   ln(d·Var(X)/2)), i.e. γ₀ = 1/(d·Var(X)) and σ² = 1/(2γ); the ln σ² box is centred on it
   (ln σ₀² ± 10, the width of Chung's [−10, 10]), so rescaling X rescales the search with it.
2. **Two differentiable bounds, two projected-BFGS searches** from θ₀ (Chung §4.2): the span
   bound of the L2-SVM (Chapelle eq. 7 smoothed, §4, §6.4) and the radius–margin bound of the
   estimator's loss (Chung 1.8 for L2, 3.3 for L1). Each lands in a region of good (C, σ²);
   neither is reliable alone: the radius–margin bound can be vacuous (R²‖w‖²/ℓ above the
   minority rate) with its minimum at too small a C (ijcnn1), and the L1 bound (3.3) can prefer a
   near hard-margin machine (heart, australian). Each search stops at a relative gradient
   tolerance (``STAGE_GTOL``) or after ``STAGE_MAX_FEV`` evaluations (span 4, radius–margin
   5 for L2 and 6 for L1), and solves at ``STAGE_TOL`` (1e-3) at least: it only has to find
   the region. A failed trial step is shortened by quadratic interpolation
   (``STAGE_BACKTRACK``) rather than Chung's halving. Both searches start cold at θ₀; for
   the L2 loss they solve the same L2-SVM there, which is made once (``SHARE_COLD_SOLVES``,
   ``criteria.base.SharedColdSolves``; the radius QP of rm-l2 meanwhile).
3. **Candidates**: each search's minimum, and one of them with C multiplied by e²
   (``NEIGHBOUR_STEPS``; the bounds' known bias is towards too small a C — Chung §4.3): the L2
   radius–margin minimum's for the L2 loss, the span minimum's for the L1 loss: three points,
   two kernels. (θ₀ was a candidate too until measured to add nothing: ``START_CANDIDATE``,
   BENCHMARKS.md "Fewer candidates".)
   When every one of them validates no better than always predicting the larger class (both
   searches ran off, e.g. to a σ² at which the SVM memorises: seen with balanced class
   weights on a hard imbalanced problem), θ₀ is validated too; a pick that is still no better
   is reported (:func:`validation_problems`, a ``ModelWarning``).
4. **Validation picks**: the stratified k-fold CV error (``n_folds``, folds fixed by
   ``random_state``) of an SVM of the estimator's loss at each candidate; the smallest error
   wins; ties go to the smaller C, then the smaller held-out hinge loss (:func:`_cv_key`).
   These are ``n_folds`` trainings per candidate at tolerance 1e-2 (``CV_TOL``: they only
   have to count held-out errors), trained in (fold, kernel) pieces on ``n_jobs`` workers
   (``CrossValidationError.pieces``): a minimum's step in C is warm-started from the
   minimum's fold solution and reuses its gradient, and the folds of one kernel read one
   K(X, X) computed for them (``criteria.reference.shared_gram``). The pieces of a search's
   candidates start as soon as that search ends, on the worker it leaves, while the other
   search still runs (``OVERLAP_CV``, ``_parallel.parallel_map_then``); the results are the
   same as when every piece waits for both searches. The chosen model is then trained on
   every row at LIBSVM's tolerance 1e-3 (``VALIDATION_TOL``).

5. **Large data** (more than 2·``subsample`` rows, ``BoundSVC(tune_subsample=5000)``; the
   subsample is smaller where the span bound's working memory on it, about 2.4·8·m² bytes,
   would not fit in half of ``cache_size``: :func:`span_memory_rows`, 2,336 rows for SVC's
   200 MB): steps 2–4 run on a stratified random subsample of ``subsample`` rows, and the validation of step 4
   is a hold-out one: each candidate is trained once on the subsample and its errors counted
   on up to 4·``subsample`` other rows (stratified; :func:`tuning_rows`). Only the final model
   is trained on every row. A search evaluation costs O(n²)–O(n³) in the rows, the final
   training once; the hold-out error on 20,000 rows is a finer measure than a 5-fold CV on the
   subsample, at a fifth of the trainings. Measured on ijcnn1 (49,990 rows): see
   BENCHMARKS.md, "Large data".

Measured reason (``benchmarks/vs_peers.py``, BENCHMARKS.md, 94 public binary cases on 2 cores):
the radius–margin minimum alone was +0.30 (L2) / +1.71 (L1) test-error points against
GridSearchCV on average, with misses of 5–27 points (ijcnn1 sample 7.2 % against 2.4 %,
australian with the L1 bound 41.7 % against 14.2 %); this strategy is −0.15 (L2) / −0.17 (L1)
points (ijcnn1 1.85 %, australian 13.0 %), at 13× less wall time than grid search.
"""

from __future__ import annotations

import time

import numpy as np

from .search.bfgs import minimize_projected_bfgs
from .search.result import SearchResult

#: Criteria whose minima are candidates, by loss (names of ``svmbound.criteria.CRITERIA``).
AUTO_BOUNDS = {"l2": ("span", "rm-l2"), "l1": ("span", "rm-l1")}
#: Width of the ln σ² box on either side of the data-driven start (Chung's box is ±10).
LOG_SIGMA2_HALF_WIDTH = 10.0


def scale_log_sigma2(X) -> float:
    """ln σ² of scikit-learn's ``gamma='scale'``: γ = 1/(d·Var(X)), σ² = 1/(2γ) = d·Var(X)/2.

    Var(X) is the variance of all entries of X (as scikit-learn computes it). Raises a
    ValueError when it is 0 (every entry equal: no kernel can tell the rows apart)."""
    from ._sparse import entry_variance, issparse

    if issparse(X):
        var = entry_variance(X)
    else:
        X = np.asarray(X)
        var = float(X.var())
    if not np.isfinite(var) or var <= 0.0:
        raise ValueError("X has zero variance (every value is the same): no kernel can tell the "
                         "rows apart, there is nothing to tune")
    return float(np.log(X.shape[1] * var / 2.0))


def auto_box_and_start(param_names, X, kernel, bounds=None, start=None):
    """(lower, upper, x0) of the default strategy: Chung's box and start, except that every
    ln σ² parameter of an RBF kernel (isotropic or ARD) is centred on :func:`scale_log_sigma2`
    unless the user gave ``bounds`` / ``start``."""
    from .estimators import DEFAULT_BOUNDS, DEFAULT_START, _default, box_and_start

    is_ls = np.array([p == "log_sigma2" or p.startswith("log_sigma2_") for p in param_names])
    centre = scale_log_sigma2(X) if is_ls.any() and _is_rbf(kernel) else None
    if start is None:
        # the default start, with ln σ² at the data's scale, clipped into a given box
        start = np.array([_default(DEFAULT_START, p) for p in param_names], dtype=float)
        if centre is not None:
            start[is_ls] = centre
        if bounds is not None:
            b = np.asarray(bounds, dtype=float)
            b = np.tile(b, (len(param_names), 1)) if b.shape == (2,) else b
            if b.shape == (len(param_names), 2):
                start = np.clip(start, b[:, 0], b[:, 1])
    if bounds is None and centre is not None:
        bounds = np.array([_default(DEFAULT_BOUNDS, p) for p in param_names], dtype=float)
        bounds[is_ls] = (centre - LOG_SIGMA2_HALF_WIDTH, centre + LOG_SIGMA2_HALF_WIDTH)
    return box_and_start(param_names, bounds, start)


def _is_rbf(kernel) -> bool:
    """RBF-type kernels (σ² a length scale of X): isotropic RBF and ARD RBF, not the scaled
    polynomial kernel."""
    from .kernels import is_rbf_params

    return is_rbf_params(kernel.get_params())


#: Gradient tolerance of the bound searches, relative to |f(θ₀)|: they only have to find the
#: region (CV picks, and the candidates step e² in C around the minima). 1e-2 instead of the
#: 1e-4 of a single search halves the span search on IDA split 1 (image 15 → 8 trainings,
#: german 12 → 5, heart 13 → 5, ringnorm 17 → 8) and moves the minima only along the flat
#: valleys of the bounds (ln C 9.5 → 3.3 on ringnorm at the same bound value to 1.3 %).
STAGE_GTOL = 1e-2
#: Budget of criterion evaluations of each bound search (None: none). The searches only have to
#: find the region (CV picks among the minima and their neighbours); most stop on ``STAGE_GTOL``
#: within 8 evaluations, and those that do not creep along a flat valley of a bound whose value
#: jumps as support vectors come and go (IDA image split 2: the span search took 21 evaluations,
#: 66.8 → 63.5 after the 5th). Measured on the 88 public cases of ``benchmarks/vs_peers.py``
#: without the six largest (``benchmarks/default_variants.py``; test error − GridSearchCV's,
#: mean over the cases, L2 / L1): no budget −0.148 / −0.153 points, 10: −0.143 / −0.151,
#: 8: −0.143 / −0.141, 6: −0.141 / −0.039, 5: −0.157 / −0.032 — 8 keeps the accuracy and cuts
#: the long searches: 36 s for the 88 cases instead of 51 s (BENCHMARKS.md, "Variants of the
#: default").
#:
#: The budget is per criterion (a dict by criterion name; a number is the same for all): 4 for
#: the span search, 5 for the L2 radius–margin search, 6 for the L1 one. The searches run side
#: by side, and the span search is the slower one: an evaluation costs 1.4–2.8 SVC fits
#: against 0.5–1.7 (BENCHMARKS.md, "Cost of one criterion evaluation"). A minimum whose step
#: C·e² is a candidate too (``NEIGHBOUR_STEPS``: the span one for L1, the L2 radius–margin
#: one) is covered there when its search stopped early in C. The L2 radius–margin budget 5
#: instead of 6 (BENCHMARKS.md, "The L2 radius–margin search: 5 evaluations"): 4.6 % less time
#: on the quick cases (``setting_timing.py``), mean test error − GridSearchCV's within noise
#: (IDA −0.166 → −0.129, LIBSVM −0.078 → −0.107, aside −0.083 → −0.073 points; the same on
#: the six largest). Measured for 4 / 6 / 6 against 8 for both (BENCHMARKS.md,
#: "A budget per search"; test error − GridSearchCV's, mean, L2 / L1): public 88 −0.190 /
#: −0.202 against −0.198 / −0.212; aside 22 −0.053 / −0.042 against −0.054 / −0.082; six
#: largest −0.196 / −0.189 against −0.167 / −0.077; LIBSVM L1 +0.051 against +0.222. Time was
#: 6–29 % less (geometric mean per suite), with a median of 8.5–10 evaluations a tuning
#: against 10–13.5.
STAGE_MAX_FEV = {"span": 4, "rm-l2": 5, "rm-l1": 6}
#: Solver tolerance of the bound searches' SVM and radius solves, at least (None: the
#: estimator's ``tol``). Chung §4.3 solves at 1e-6 so that the last steps of a search that must
#: reach the minimum get exact gradients; these searches stop at ``STAGE_GTOL`` or after
#: ``STAGE_MAX_FEV`` evaluations, and CV picks. Measured with ``benchmarks/default_variants.py``
#: (test error − GridSearchCV's, mean, L2 / L1; fit time): 88 public cases, 1e-6 −0.143 /
#: −0.141 points, 18.8 / 18.7 s; 1e-3 −0.134 / −0.160, 17.2 / 16.3 s; the six largest,
#: 1e-6 −0.213 / −0.262, 24.4 / 21.9 s; 1e-3 −0.236 / −0.216, 21.1 / 14.8 s
#: (BENCHMARKS.md, "Variants of the default").
STAGE_TOL = 1e-3
#: Whether the bound searches make a cold SVM solve they both need once
#: (``criteria.base.SharedColdSolves``: for the L2 loss, the span and rm-l2 solves at θ₀).
SHARE_COLD_SOLVES = True
#: Line-search reduction of the bound searches (``minimize_projected_bfgs(backtrack=)``):
#: after a failed trial, the minimiser of the quadratic through f(θ), ∇f(θ)ᵀd and f(θ + d)
#: (safeguarded to [0.1, 0.5] of the step) instead of Chung's ½. 18 % of the searches'
#: evaluations were rejected trials, often four halvings in a row after an overshoot (IDA
#: banana rm-l1: 340.9 → 490.7, 373.5, 348.0, 342.2, 340.9). Measured with
#: ``benchmarks/default_variants.py`` (mean test error − GridSearchCV's, L2 / L1; BENCHMARKS.md
#: "Interpolated backtracking"): public 88 cases −0.120 / −0.204 with halving, −0.119 / −0.257
#: interpolated; aside 22 cases −0.013 / −0.006 and −0.023 / −0.059; 4 % less time.
STAGE_BACKTRACK = "quadratic"
#: Longest first trial step of a line search of the bound searches, ‖Δθ‖ in (ln C, ln σ²)
#: (``minimize_projected_bfgs(max_step=)``; Chung's 2). The radius–margin search's first trial
#: is rejected in about half of the cases (it overshoots), but 1 did not save evaluations
#: (median 9.5–10 both) and moved the picks (``default_variants.py``, mean test error −
#: GridSearchCV's, L2 / L1: public 88 −0.294 / +0.012 against −0.217 / −0.202, aside −0.186 /
#: −0.146 against −0.083 / −0.042, six largest +0.005 / −0.181 against −0.184 / −0.189).
STAGE_MAX_STEP = 2.0
#: Steps (Δ ln C, Δ ln σ²) from a bound's minimum that are candidates too, by loss, then by the
#: bound's name (a bound not listed: its minimum alone; ``loss_steps``). The bounds' known bias
#: is towards too small a C (Chung §4.3, Table 4.1; ijcnn1 in issue 12): each loss has one
#: minimum with a step C·e². Measured (``benchmarks/vs_peers.py --candidate-errors``,
#: ``benchmarks/default_variants.py``, ``benchmarks/multiclass.py``; BENCHMARKS.md "Fewer
#: candidates", "Multi-class: the radius–margin step back" and "One step per loss"):
#:
#: * L2: the radius–margin minimum's step. It is the CV's pick on multi-class data (letter: 227
#:   CV errors against 236 for the best span candidate, 12.2 % test error against 12.9 %). The
#:   span minimum's step, a candidate too until measured, was picked in 11 of 116 binary cases;
#:   without it the picks are as good (mean test error − GridSearchCV's: public 88 cases −0.217
#:   against −0.190 points, aside 22 −0.083 against −0.053, six largest −0.184 against −0.196,
#:   multi-class 5.49 % both), with five CV trainings less: 8 % less time on the quick cases,
#:   15 % on the multi-class sets;
#: * L1: the span minimum's step (the more reliable bound, Chapelle). No step for the L1
#:   radius–margin bound (Chung 3.3): its minimum is a (near) hard-margin machine, no α at its
#:   bound C, so a larger C trains the same machine: the same CV errors and hinge loss at the
#:   minimum and its step on all 7 multi-class sets, and over the binary suites the same mean
#:   test error with and without the step (public −0.256 / −0.257, aside −0.059 both) — five
#:   trainings for nothing. Without the span step the L1 pick loses 0.2 points on the public
#:   cases, with 9 cases more than 2 points worse instead of 5;
#: * θ₀ and its steps (``START_CANDIDATE``): the picks without them are as good.
NEIGHBOUR_STEPS = {"l2": {"rm-l2": ((2.0, 0.0),)}, "l1": {"span": ((2.0, 0.0),)}}
#: Steps from the start θ₀ (scikit-learn's defaults C = 1, gamma='scale') that are candidates,
#: when the start is a candidate (``START_CANDIDATE``).
START_STEPS = ()
#: Whether θ₀ itself is a candidate (it was until the measurement above: the CV picked it in
#: 14–16 of 94 cases, but the picks without it are as good).
START_CANDIDATE = False
#: Solver tolerance of the final model (LIBSVM's and SVC's default): the model users get is
#: trained as SVC trains it. (It was the CV trainings' tolerance too, until ``CV_TOL``.)
VALIDATION_TOL = 1e-3
#: Solver tolerance of the CV trainings (at least the estimator's ``tol``; None:
#: ``VALIDATION_TOL``). They only count held-out errors: the sign of f(x) at held-out points,
#: which a KKT violation of 1e-2 instead of 1e-3 changes at a point only where |f(x)| is about
#: that small. Measured (``benchmarks/default_variants.py``, mean test error − GridSearchCV's,
#: L2 / L1, cases > +2; BENCHMARKS.md "The CV trainings at tolerance 1e-2"): 1e-3: public 88
#: −0.187 (3) / −0.202 (5), aside 22 −0.073 / −0.042, six largest −0.184 / −0.189; 1e-2: the
#: same but L1 public −0.210 (5); 1e-1: −0.177 (4) / −0.191 (5), −0.085 / −0.069, −0.163 /
#: −0.189. Time with 1e-2 (``setting_timing.py``, quick cases): −4.3 % (L2), −1.9 % (L1); the
#: six largest cases, one run each: 13.4 s in all against 15.4–16.2 s (L2), 10.0 s against
#: 10.7–13.4 s (L1).
CV_TOL = 1e-2
#: Whether a bound search that ends before the other starts the CV trainings of its own
#: candidates at once, on the worker it leaves (``_parallel.parallel_map_then``), instead of
#: every CV training waiting for both searches. The same trainings, the same results (a θ
#: that both searches' candidates share keeps the first search's fold results:
#: ``CrossValidationError.keep_pieces``). The two searches rarely take the same time (IDA
#: german/1: span 220 ms, radius–margin 112 ms); measured (``benchmarks/setting_timing.py
#: --quick --b OVERLAP_CV=False``, 23 quick cases, 2 cores): without it a fit takes 8.0 %
#: (L2) and 8.8 % (L1) longer (geometric mean), the same test errors on all 116 binary cases.
OVERLAP_CV = True
#: On large data (n > 2·subsample) the candidates are validated on up to this many times
#: ``subsample`` rows outside the subsample.
VALIDATION_FACTOR = 4
#: Working memory of one span-bound evaluation with gradient, in m × m arrays of doubles for m
#: support vectors (``criteria/span.py``; traced: 2.1 at m = 3,350, 2.4 at m = 1,000).
SPAN_WORKING_ARRAYS = 2.4
#: The memory cap of the search rows never goes below this many rows (19 MB of span memory).
MIN_MEMORY_ROWS = 1000


def span_memory_rows(cache_size) -> int:
    """The most rows m on which a span-bound evaluation fits in half of the cache budget, every
    row a support vector: SPAN_WORKING_ARRAYS·8·m² bytes ≤ cache_size/2 (at least
    ``MIN_MEMORY_ROWS``). The span search runs beside the radius–margin search, whose solves
    hold the other half of the budget (``solvers.qp.cache_share``), so that the tuning's
    memory stays about the cache plus the data (issue 14). ``cache_size``: MB, "auto" or None
    (the solvers' default; ``solvers.qp.cache_megabytes``); 200 MB (SVC's) gives 2,336 rows,
    "auto" on a machine with 16 GB or more (4 GB) 10,575 rows."""
    from .solvers.qp import cache_megabytes

    mb = float(cache_megabytes(cache_size))
    m = int(np.sqrt(mb / 2.0 * 2**20 / (8.0 * SPAN_WORKING_ARRAYS)))
    return max(MIN_MEMORY_ROWS, m)


def _stratified_pick(rng, y, rows, m: int) -> np.ndarray:
    """m of ``rows`` at random, each class of y[rows] in proportion (at least one row of each
    class, at least two where it has them), sorted."""
    labels = y[rows]
    classes, counts = np.unique(labels, return_counts=True)
    want = np.maximum(np.minimum(counts, 2), np.round(m * counts / rows.size).astype(int))
    want = np.minimum(want, counts)
    picked = [rng.choice(rows[labels == c], size=k, replace=False)
              for c, k in zip(classes, want)]
    return np.sort(np.concatenate(picked))


def tuning_rows(y, subsample: int | None, random_state=None):
    """(S, V): the rows the bound searches use and the rows that validate the candidates, or
    None when every row is used (``subsample`` None, or n ≤ 2·subsample).

    S: ``subsample`` rows drawn at random within each class in proportion (stratified, every
    class present); V: up to ``VALIDATION_FACTOR``·``subsample`` of the other rows, drawn the
    same way. Both sorted; ``random_state`` fixes the draw (None: 0, as the CV folds)."""
    y = np.asarray(y)
    n = y.size
    if subsample is None or n <= 2 * int(subsample):
        return None
    from sklearn.utils import check_random_state

    rng = check_random_state(0 if random_state is None else random_state)
    every = np.arange(n)
    S = _stratified_pick(rng, y, every, int(subsample))
    rest = np.setdiff1d(every, S, assume_unique=True)
    m_val = min(rest.size, VALIDATION_FACTOR * int(subsample))
    V = rest if m_val == rest.size else _stratified_pick(rng, y, rest, m_val)
    return S, V


def loss_steps(steps, loss: str | None):
    """The steps of the loss ``loss`` when ``steps`` is a dict by loss ('l1', 'l2'; a loss it
    does not name: no steps), else ``steps`` itself (a dict by bound name, or one sequence of
    steps for every bound)."""
    if isinstance(steps, dict) and steps and set(steps) <= {"l1", "l2"}:
        return steps.get(loss, {})
    return steps


def candidate_points(x0, minima, lower, upper, steps=None, start_steps=None,
                     include_start=None, loss=None):
    """[(source, θ)]: each bound's minimum followed by it moved by each of its ``steps``
    (Δ ln C, Δ ln σ²), then — with ``include_start`` — θ₀ and θ₀ moved by each of
    ``start_steps`` (all clipped to the box); duplicates (to 1e-9) dropped. ``steps``: a
    dict from a bound's name to its steps (a bound not in it: none), or one sequence of steps
    for every bound; defaults ``NEIGHBOUR_STEPS``, ``START_STEPS``, ``START_CANDIDATE``. Points
    of one kernel come one after the other, so the CV's warm start between them is a step in C
    alone (no kernel value)."""
    steps = loss_steps(NEIGHBOUR_STEPS if steps is None else steps, loss)
    start_steps = START_STEPS if start_steps is None else start_steps
    include_start = START_CANDIDATE if include_start is None else include_start
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
    out = []
    for src, t in cands:
        if not any(float(np.max(np.abs(t - u))) <= 1e-9 for _, u in out):
            out.append((src, t))
    return out


def tune_auto(X, y_pm, kernel, *, loss: str, lower, upper, x0, tol: float = 1e-6,
              gtol: float | None = None, max_iter: int = 100, n_folds: int = 5,
              cv_tol: float | None = None, steps=None, start_steps=None, bounds_by_loss=None,
              random_state=None, cache_size=None,
              callback=None, minimize=None, n_jobs=None, wrap=None,
              sequential_searches=False, weights=None,
              criterion_factory=None, subsample=None,
              max_fev=None) -> tuple[SearchResult, int]:
    """Run the default strategy (module docstring) and return (result, number of SVM
    trainings). ``result.x`` is the chosen θ, ``result.fun`` its CV error rate,
    ``result.candidates`` the candidates with their CV errors, ``result.stages`` the bound
    searches (each a SearchResult with its path), ``result.path`` every evaluation in order.
    ``minimize(fun, grad, x0, lower, upper, callback)`` is the gradient search (default: the
    projected BFGS of Chung §4.2 with ``max_iter`` and ``gtol`` relative to |f(θ₀)|, None
    for ``STAGE_GTOL`` as it is when called;
    ``minimize`` is called with ``gtol=`` that relative tolerance, ``max_fev=``, the budget
    of evaluations of each search: ``max_fev``, a number or a dict by criterion name, None for
    ``STAGE_MAX_FEV``, and ``backtrack=`` / ``max_step=``, ``STAGE_BACKTRACK`` /
    ``STAGE_MAX_STEP``).
    ``n_jobs``: joblib threads for the bound searches (run side by side) and the CV folds;
    the result does not depend on it. ``wrap(criterion, tag)``, if given, wraps every criterion
    built here (search log, progress: ``svmbound.search.log.RunControl.wrap``), with the
    criterion's name as its tag; ``sequential_searches`` runs the bound searches one after the
    other (a search log replays evaluations in the order they were made).
    ``weights``: per-sample weights w_i > 0 (C_i = C·w_i) of every criterion and of the CV
    trainings; the CV then counts each held-out error with its weight (``cv_errors`` is that
    weighted count, ``cv_rate`` it over Σw).
    ``criterion_factory(name, X, y, kernel, loss=, random_state=, tol=, **kw)`` builds every
    criterion (the bounds by name, and 'cv-error' with ``n_folds``/``n_jobs``); default
    ``svmbound.criteria.make_criterion`` on ±1 labels. The multi-class estimator passes
    ``svmbound.criteria.pairs.pairwise_criterion`` with class indices as ``y``: the bounds are
    then summed over the one-vs-one pairs and the CV error is that of the voting machine.
    ``subsample``: on more than 2·m rows, m = min(``subsample``, :func:`span_memory_rows`
    (``cache_size``)), step 5 of the module docstring (the searches on a stratified subsample
    of m rows, a hold-out validation); ``result.subsample`` then gives the rows used
    ({"search": m, "validation": v, "of": n}), else None. ``subsample`` None: every row,
    whatever the memory."""
    from .criteria import criterion_class, make_criterion

    make = make_criterion if criterion_factory is None else criterion_factory
    max_fev = STAGE_MAX_FEV if max_fev is None else max_fev
    gtol = STAGE_GTOL if gtol is None else gtol
    search_tol = tol if STAGE_TOL is None else max(float(tol), STAGE_TOL)

    t0 = time.perf_counter()
    names = (bounds_by_loss or AUTO_BOUNDS)[loss]
    kw = {} if cache_size is None else {"cache_size": cache_size}
    if subsample is not None:           # the span search's memory within the cache budget
        subsample = min(int(subsample), span_memory_rows(cache_size))
    split = tuning_rows(y_pm, subsample, random_state)
    if split is None:
        Xs, ys, ws = Xv, yv, wv = X, y_pm, weights
        val_kw = {"n_folds": _n_folds(y_pm, n_folds)}
    else:
        S, V = split
        Xs, ys, ws = _take_rows(X, y_pm, weights, S)
        Xv, yv, wv = _take_rows(X, y_pm, weights, np.concatenate([S, V]))
        val_kw = {"folds": [(np.arange(S.size), np.arange(S.size, S.size + V.size))]}

    # the two searches start at the same θ₀: a cold solve both need is made once
    from .criteria.base import SharedColdSolves
    shared = SharedColdSolves()

    def search(name):
        crit_loss = loss if loss in criterion_class(name).losses() else None
        crit = make(name, Xs, ys, kernel, loss=crit_loss, random_state=random_state,
                    tol=search_tol, weights=ws, **kw)
        if SHARE_COLD_SOLVES and hasattr(crit, "share_cold_solves"):
            crit.share_cold_solves(shared)     # the same rows (Xs, ys, ws) for every search
        if wrap is not None:
            crit = wrap(crit, name)
        fev = _budget(max_fev, name)
        if minimize is None:
            res = minimize_projected_bfgs(crit.fun, crit.grad, x0, lower, upper,
                                          max_iter=max_iter, gtol_rel=gtol, max_fev=fev,
                                          backtrack=STAGE_BACKTRACK, max_step=STAGE_MAX_STEP,
                                          callback=callback)
        else:
            res = minimize(crit.fun, crit.grad, x0, lower, upper, callback, gtol=gtol,
                           max_fev=fev, backtrack=STAGE_BACKTRACK, max_step=STAGE_MAX_STEP)
        res.criterion = crit.name
        return crit.name, res, crit.n_trainings, _solution_at(crit, res.x, loss, split)

    # the searches are independent: joblib threads (numba SMO and BLAS release the GIL)
    from ._parallel import parallel_map, parallel_map_then

    cv = make("cv-error", Xv, yv, kernel, loss=loss,
              random_state=0 if random_state is None else random_state,
              tol=_cv_tol(tol) if cv_tol is None else cv_tol,
              n_jobs=n_jobs, weights=wv, **val_kw, **kw)
    if sequential_searches or not OVERLAP_CV or not hasattr(cv, "pieces"):
        done = parallel_map(search, names, 1 if sequential_searches else n_jobs)
    else:
        # a search that ends first validates its own candidates while the other still runs
        # (the candidate list below is the same points: its pieces are then found trained)
        pieces = {}

        def then(i, out):
            own = candidate_points(x0, [(names[i], np.asarray(out[1].x, float))], lower,
                                   upper, steps, start_steps, loss=loss)
            pieces[i] = cv.pieces([theta for _, theta in own], rank=i)
            return pieces[i]

        done, trained = parallel_map_then(search, names, then, cv.run_piece, n_jobs)
        for i, outs in enumerate(trained):      # in the order of the searches: deterministic
            cv.keep_pieces(pieces[i], outs)
    minima, stages, path = [], {}, []
    n_trainings = nfev = njev = 0
    solutions = {}
    for name, res, n_train, sol in done:
        stages[name] = res
        if sol is not None:
            solutions[f"{name} minimum"] = sol
        minima.append((name, np.asarray(res.x, float)))
        n_trainings += n_train
        nfev += res.nfev
        njev += res.njev
        path.extend(dict(e, stage=name) for e in res.path)

    cands = candidate_points(x0, minima, lower, upper, steps, start_steps, loss=loss)
    if wrap is not None:
        cv = wrap(cv, "cv-error")
    records = []

    def validate(points):
        if hasattr(cv, "precompute"):  # every candidate's folds at once (CrossValidationError)
            logged = cv.logged_ahead() if hasattr(cv, "logged_ahead") else 0
            cv.precompute([theta for _, theta in points], skip=logged)
        for src, theta in points:
            ev = cv.evaluate(theta, need_grad=False)
            errors = int(ev.value) if weights is None else float(ev.value)
            records.append({"source": src, "x": theta.tolist(), "cv_errors": errors,
                            "cv_rate": ev.info["rate"], "cv_hinge": ev.info["hinge"]})
            path.append({"x": theta.tolist(), "value": ev.value, "grad": None,
                         "time_s": time.perf_counter() - t0, "accepted": False,
                         "stage": "cv-error"})

    validate(cands)
    trivial = _trivial_errors(cv)
    start_added = False
    if min(r["cv_errors"] for r in records) >= trivial - 1e-9:
        # every bound's candidate is no better than predicting the larger class (both
        # searches ran off, e.g. to a σ² so small that the SVM memorises): validate θ₀ too
        # the same list with the start appended (candidate_points drops its duplicates)
        extra = candidate_points(x0, minima, lower, upper, steps, start_steps,
                                 include_start=True, loss=loss)[len(cands):]
        validate(extra)
        start_added = bool(extra)
    n_trainings += cv.n_trainings
    best = min(range(len(records)), key=lambda i: _cv_key(records[i]))
    chosen = records[best]
    n_held = cv._total()
    out_of = (f"{chosen['cv_errors']} of {int(n_held)}" if wv is None else
              f"weighted {chosen['cv_errors']:.6g} of {n_held:.6g}")
    how = f"{cv.n_folds}-fold CV error"
    sub = None
    if split is not None:
        sub = {"search": int(split[0].size), "validation": int(split[1].size),
               "of": int(np.asarray(y_pm).size)}
        how = (f"hold-out error (searches and trainings on {sub['search']} of {sub['of']} "
               f"rows, validated on {sub['validation']} others)")
    message = f"chose the {chosen['source']} by {how} ({out_of}) among {len(records)} candidates"
    if start_added:
        message += ("; the bounds' candidates were no better than always predicting the larger "
                    "class, so the start was validated too")
    result = SearchResult(
        x=np.asarray(chosen["x"]), fun=chosen["cv_rate"], jac=None, nfev=nfev + len(records),
        njev=njev, nit=sum(r.nit for r in stages.values()), success=True, status=0,
        message=message, path=path, candidates=records, stages=stages, chosen=chosen["source"],
        n_folds=cv.n_folds, subsample=sub,
        validation={"how": how.split(" (")[0], "trivial_rate": trivial / n_held})
    # (solution, θ) of the search's own solve when a minimum is chosen (not a step from it),
    # for the final training (popped by the estimator: not part of search_)
    warm = solutions.get(chosen["source"])
    if warm is not None:
        result.final_warm_start = warm
    return result, n_trainings


def _cv_tol(tol: float) -> float:
    """The CV trainings' solver tolerance: ``CV_TOL`` (``VALIDATION_TOL`` when None), at least
    the estimator's ``tol``."""
    return max(float(tol), VALIDATION_TOL if CV_TOL is None else CV_TOL)


def _budget(max_fev, name: str) -> int | None:
    """The evaluation budget of the search of criterion ``name``: ``max_fev`` itself, or its
    entry for ``name`` when it is a dict (a criterion it does not name gets its largest)."""
    if isinstance(max_fev, dict):
        return max_fev.get(name, max(max_fev.values()))
    return max_fev


def _solution_at(crit, x, loss: str, split) -> tuple | None:
    """(solution, θ): the SVM solution a bound search made at its minimum ``x``, when it is
    one the final model can start from: the criterion's last evaluation was at ``x`` (not a
    rejected trial after it), on every row (no subsample), of the estimator's loss, a binary
    solution. When the minimum is chosen the final training (same θ, same tolerance:
    ``STAGE_TOL`` = ``VALIDATION_TOL``) starts from it and stops at once — one training on
    every row saved. None otherwise."""
    from .solvers.svm import DualSolution

    inner = getattr(crit, "criterion", crit)   # a search log's wrapper: the real criterion
    last, sol = getattr(inner, "last", None), getattr(inner, "_svm_prev", None)
    if (split is not None or last is None or not isinstance(sol, DualSolution)
            or sol.loss != loss or sol.gradient_bar is None
            or not np.array_equal(last.theta, np.asarray(x, dtype=float))):
        return None
    return sol, np.array(last.theta, dtype=float)


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
    return [f"the chosen model's {val['how']} rate {float(result.fun):.3f} is no better than "
            f"always predicting the larger class ({val['trivial_rate']:.3f})"]


def next_usable_candidate(result, problems, train):
    """After the chosen candidate's model proved unusable (``problems``, severe): the other
    candidates of ``result`` in the order of the pick (``_cv_key``) are trained with
    ``train(θ) -> (θ used, outcome, problems)`` until one's problems are not severe; that one
    becomes ``result``'s choice (``chosen``, ``x``, ``fun``, and the message says why).
    Returns (its outcome or None, the number of candidates trained)."""
    from .checks import is_severe

    order = sorted(range(len(result.candidates)), key=lambda i: _cv_key(result.candidates[i]))
    for tried, i in enumerate(order[1:], start=1):
        cand = result.candidates[i]
        theta, outcome, cand_problems = train(np.asarray(cand["x"], dtype=float))
        if not is_severe(cand_problems):
            result.message += (f"; the chosen model was unusable ({'; '.join(problems)}), "
                               f"took the {cand['source']} instead")
            result.chosen = cand["source"]
            result.x, result.fun = theta, cand["cv_rate"]
            return outcome, tried
    return None, len(order) - 1


def _trivial_errors(cv) -> float:
    """The validation errors of always predicting the class with the largest held-out total
    (``criteria.reference.held_out_trivial_errors``); +inf for a validation criterion that
    does not expose its folds (no candidate is then judged against it)."""
    from .criteria.reference import held_out_trivial_errors

    folds = getattr(cv, "folds", None)
    if folds is None:
        return float("inf")
    return held_out_trivial_errors(folds, cv.y, getattr(cv, "weights", None))


def _take_rows(X, y, weights, rows) -> tuple:
    """(X, y, weights) restricted to ``rows`` (weights None stays None)."""
    return X[rows], np.asarray(y)[rows], None if weights is None else np.asarray(weights)[rows]


def _cv_key(record) -> tuple:
    """Order of the candidates: fewest CV errors, then the smaller C (``record["x"][0]``, ln C),
    then the smaller mean held-out hinge loss.

    Ties are common: on 41 of 116 binary cases two or more candidates had the same CV error
    count. Among equally good machines the smaller C is the more regularised one — the one
    GridSearchCV takes too (its grid lists C ascending and it keeps the first best). Measured
    against the former tie-break by the held-out hinge loss, which favours the larger C
    (``vs_peers.py --candidate-errors``, replayed; BENCHMARKS.md "Ties go to the smaller C"):
    mean test error − GridSearchCV's, L2 / L1, public 94 cases −0.089 / −0.254 → −0.207 /
    −0.216, cases worse by more than 2 points 5 / 5 → 3 / 5; aside 22 cases −0.086 / −0.059 →
    −0.057 / −0.082; the 7 multi-class sets 5.86 / 5.95 % → 5.48 / 5.76 % (grid search
    5.87 %)."""
    return (round(record["cv_errors"], 12), round(float(record["x"][0]), 12),
            round(record["cv_hinge"], 12))


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
        shown = ", ".join(repr(c) for c in single[:5]) + (" …" if len(single) > 5 else "")
        raise ValueError(
            f"class {shown} has a single sample: criterion='auto' (the default) picks among its "
            "candidates by stratified cross-validation, which needs at least 2 samples of "
            "every class. Add samples of that class, leave it out, or name a criterion that "
            "needs no validation, e.g. criterion='radius-margin' or criterion='span'")


def _n_folds(y, n_folds: int) -> int:
    """``n_folds``, lowered to the size of the smallest class (at least 2); ``y`` holds ±1
    labels or class indices."""
    n_minor = int(np.unique(np.asarray(y), return_counts=True)[1].min())
    return max(2, min(int(n_folds), n_minor))
