"""Steps 2–4 of the default strategy: two bound searches, the candidates' validation, the pick.

:func:`tune_auto` runs, from θ₀ (:mod:`.start`), one gradient search per bound of
``config.bounds_by_loss`` — the span bound of the L2-SVM (Chapelle eq. 7 smoothed, §4, §6.4)
and the radius–margin bound of the loss (Chung 1.8 for L2, 3.3 for L1) — side by side on
``n_jobs`` threads, each stopped early (``stage_gtol``, ``stage_max_fev``: it only has to find
the region), then validates the candidates (:mod:`.candidates`) by a stratified k-fold CV of
the loss's SVM (or a hold-out on large data, :mod:`.rows`), then searches one width per
feature from the span bound's minimum (:mod:`.ard`; its minimum validated on the same folds
where the bound fell enough) and returns the candidate with the fewest errors (the per-feature
one only by a margin). The CV of a search's candidates starts as soon as that search ends
(``overlap_cv``), and so does the per-feature search when the span search ends, beside the other
search and the CV; the results do not depend on the threads.
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np

from .._parallel import parallel_map, parallel_map_then
from ..criteria import criterion_class, make_criterion
from ..criteria.base import solve_once_at
from ..search.gradient import STOPPED
from ..search.minimize import minimize
from ..search.result import SearchResult
from ..solvers.svm import DualSolution
from .candidates import (candidate_points, cv_key, distinct_points, loss_steps, n_folds_for,
                         trivial_errors)
from .config import DEFAULT_CONFIG, StrategyConfig
from .ard import ARD_SOURCE, ard_accepted, ard_reason, ard_rows, ard_start, ard_stop
from .rows import span_memory_rows, tuning_rows

__all__ = ["tune_auto", "evaluation_budget"]


def tune_auto(problem, kernel, *, loss: str, lower, upper, x0, tol: float = 1e-6,
              gtol: float | None = None, max_iter: int = 100, n_folds: int = 5,
              cv_tol: float | None = None, steps=None, start_steps=None, bounds_by_loss=None,
              random_state=None, cache_size=None,
              callback=None, method: str = "bfgs", n_jobs=None, wrap=None,
              sequential_searches=False,
              criterion_factory=None, subsample=None,
              max_fev=None, held_out: bool = False, config: StrategyConfig = DEFAULT_CONFIG,
              strata=None, notify=None) -> tuple[SearchResult, int]:
    """Run the default strategy (module docstring) and return (result, number of SVM
    trainings). ``result.x`` is the chosen θ, ``result.fun`` its CV error rate,
    ``result.candidates`` the candidates with their CV errors, ``result.stages`` the bound
    searches (each a SearchResult with its path), ``result.path`` every evaluation in order.
    ``method`` is the gradient search of each bound (``search.minimize``; default the
    projected BFGS of Chung §4.2) with ``max_iter``, ``gtol`` relative to |f(θ₀)| (None:
    ``config.stage_gtol``) and the budget ``max_fev`` of evaluations of each search (a number
    or a dict by criterion name; None: ``config.stage_max_fev``). ``config``: the strategy's
    settings (:class:`StrategyConfig`).
    ``n_jobs``: joblib threads for the bound searches (run side by side) and the CV folds
    (one thread on at most ``config.serial_rows`` search rows); the result does not depend on
    it. ``wrap(criterion, tag)``, if given, wraps every criterion
    built here (search log, progress: ``svmbound.search.log.RunControl.wrap``), with the
    criterion's name as its tag; ``sequential_searches`` runs the bound searches one after the
    other (a search log replays evaluations in the order they were made).
    ``problem``: the :class:`~svmbound.solvers.Problem` (X, targets, per-sample weights) that
    every criterion is built on, or a part of its rows; with weights (C_i = C·w_i) the CV
    counts each held-out error with its weight (``cv_errors`` is that weighted count,
    ``cv_rate`` it over Σw).
    ``criterion_factory(name, problem, kernel, loss=, random_state=, tol=, **kw)`` builds every
    criterion (the bounds by name, and 'cv-error' with ``n_folds``/``n_jobs``); default
    ``svmbound.criteria.make_criterion`` on ±1 labels. The multi-class estimator passes
    ``svmbound.criteria.pairs.pairwise_criterion`` with class indices as targets: the bounds
    are then summed over the one-vs-one pairs and the CV error is that of the voting machine.
    ``subsample``: m = min(``subsample``, :func:`span_memory_rows` (``cache_size``)); from
    ``config.half_split_rows`` rows or on more than 2·m, step 5 of the module docstring (the
    searches on a stratified subsample of ``rows.search_rows`` rows, its budget ``subsample``
    and, one-vs-one, its largest binary problem the two largest classes; a hold-out validation);
    ``result.subsample`` then gives the rows used ({"search": |S|, "validation": |V|, "of": n}),
    else None. ``subsample`` None: every row, whatever the memory. ``held_out``: also
    ``result.held_out``, {candidate source: the validation's out-of-fold decision values there
    (``held_out_values``) or None}, for probability estimates without another training (popped
    by the estimator).
    ``strata``: what the subsample and hold-out rows are drawn within (default the targets, the
    classes; a regressor passes bins of its targets). The validation is the criterion
    ``config.validation_criterion`` ('cv-error'; a regressor's 'svr-cv', whose value is a mean
    squared error instead of a count). ``notify(text)``, if given, is told each search's end,
    each candidate's validation error and the pick (``verbose``). ``result.ard``: the
    per-feature stage (:func:`_per_feature`): whether it ran and why not, its bound's fall, and
    whether its minimum was validated and met its margin."""
    make = make_criterion if criterion_factory is None else criterion_factory
    max_fev = config.stage_max_fev if max_fev is None else max_fev
    gtol = config.stage_gtol if gtol is None else gtol
    search_tol = tol if config.stage_tol is None else max(float(tol), config.stage_tol)
    t0 = time.perf_counter()
    names = (bounds_by_loss or config.bounds_by_loss)[loss]
    kw = {} if cache_size is None else {"cache_size": cache_size}
    weights = problem.weights
    split, searched, validated, val_kw = _rows(problem, subsample, cache_size, random_state,
                                               n_folds, config, strata)
    if searched.y.size <= config.serial_rows:
        n_jobs = 1          # (the result does not depend on it)

    def bound(name, kern=kernel, rows=None):
        crit_loss = loss if loss in criterion_class(name).losses() else None
        return make(name, searched if rows is None else searched.take(rows), kern,
                    loss=crit_loss, random_state=random_state, tol=search_tol, **kw)

    bounds = {name: bound(name) for name in names}    # the searches from θ₀
    if config.share_cold_solves:        # the solve at θ₀ that both need (L2), made once
        solve_once_at([bounds[name] for name in names], x0)

    def search(name, kern=kernel, start=x0, box=(lower, upper), how=method, fev=None,
               tag=None, f0=None, rows=None, stop=None, known=None):
        crit = (bounds.pop(name) if kern is kernel and rows is None and name in bounds
                else bound(name, kern, rows))
        if wrap is not None:
            crit = wrap(crit, tag or name)
        opts = {"gtol": gtol, "max_iter": max_iter, "f0": f0, "stop": stop,
                "max_fev": _budget(max_fev, name) if fev is None else fev,
                "backtrack": config.stage_backtrack, "max_step": config.stage_max_step}
        if known is not None:                   # (f, ∇f) at the start: not evaluated again
            opts["start"] = known
        seen = {}       # the evaluations that gave a gradient over one width per feature

        def fun(theta):
            value = crit.fun(theta)
            ev = crit.last
            if ev is not None and ev.grad is not None and "per_feature_grad" in ev.info:
                seen[ev.theta.tobytes()] = ev
            return value

        res = minimize(fun, start, box, jac=crit.grad, method=how, options=opts,
                       callback=callback)
        res.criterion = crit.name
        ev = seen.get(np.asarray(res.x, dtype=np.float64).tobytes())
        if ev is not None:
            # the per-feature search's start (``_per_feature_search``), carried by the result
            # to wherever that search runs (a process of its own on dask's workers); an
            # attribute, not one of the result's keys
            object.__setattr__(res, "per_feature_start",
                               (ev.value, np.r_[ev.grad[0], ev.info["per_feature_grad"]]))
        if notify is not None:
            notify(f"{tag or crit.name} search: {res.nfev} evaluations, minimum {res.fun:.6g} "
                   f"at theta = {np.round(res.x, 4).tolist()}")
        return (tag or crit.name, res, crit.n_trainings,
                None if rows is not None else _solution_at(crit, res.x, loss),
                _coef_candidates(crit, res.x, config.coef_quantiles.get(loss, ()), lower,
                                 upper))

    def own_candidates(name, x, extra=()):
        return candidate_points(x0, [(name, np.asarray(x, float))], lower, upper, steps,
                                start_steps, loss=loss, config=config) + list(extra)

    def validation(kern):
        return make(config.validation_criterion, validated, kern, loss=loss,
                    random_state=0 if random_state is None else random_state,
                    tol=_cv_tol(tol, config) if cv_tol is None else cv_tol,
                    n_jobs=n_jobs, **val_kw, **kw)

    cv = validation(kernel)
    reason = ard_reason(searched.X, kernel, loss, config)
    if reason is None and config.ard_bound not in names:
        reason = f"no isotropic {config.ard_bound} minimum to start from"
    if (reason is None and ard_rows(searched.y, config, random_state) is None
            and hasattr(bounds.get(config.ard_bound), "per_feature_grad")):
        bounds[config.ard_bound].per_feature_grad = True    # its start, on the same rows

    def per_feature(res):        # step 4's search, from the isotropic minimum ``res``
        return _per_feature_search(search, res, searched.y, searched.X.shape[1], lower, upper,
                                   config, random_state)

    done, ard_out = _run_searches(search, names, cv, own_candidates, n_jobs,
                                  sequential_searches, config,
                                  None if reason is not None else (config.ard_bound,
                                                                   per_feature))
    minima = [(name, np.asarray(res.x, float)) for name, res, _, _, _ in done]
    stages = {name: res for name, res, _, _, _ in done}
    path = [dict(e, stage=name) for name, res, _, _, _ in done for e in res.path]
    solutions = {f"{name} minimum": sol for name, _, _, sol, _ in done
                 if sol is not None and split is None}     # (on S: the hold-out's start)
    extra = [c for *_, cands in done for c in cands]
    n_trainings = sum(n for _, _, n, _, _ in done)

    if held_out and hasattr(cv, "held_out_values"):
        cv.keep_held_out = True
    if wrap is not None:
        cv = wrap(cv, config.validation_criterion)
    records, start_added, trivial = _validate_candidates(
        cv, lambda include_start: _with_extra(
            candidate_points(x0, minima, lower, upper, steps, start_steps,
                             include_start=include_start, loss=loss, config=config), extra),
        weights, path, t0)
    n_trainings += cv.n_trainings
    checked = {r["source"]: cv for r in records}
    if reason is None and ard_out is None:     # not overlapped: after the validation
        ard_out = per_feature(stages[config.ard_bound])
    ard, rec, cv_ard, n = _per_feature(ard_out, reason, validation, stages, records, path,
                                       solutions if split is None else {}, config, weights, t0,
                                       wrap, held_out,
                                       validated.n if split is None else split[1].size)
    n_trainings += n
    if rec is not None:
        records.append(rec)
        checked[rec["source"]] = cv_ard
    result = _choice(records, cv, stages, path, split, problem.n, weights is not None,
                     start_added, trivial)
    result.ard = ard
    if notify is not None:
        if ard.get("reason"):
            notify(f"no per-feature candidate: {ard['reason']}")
        for r in records:
            notify(f"{cv.name} of the {r['source']} (theta = {np.round(r['x'], 4).tolist()}): "
                   f"rate {r['cv_rate']:.6g}")
        notify(result.message)
    # (solution, θ) of the search's own solve when a minimum is chosen (not a step from it),
    # for the final training (popped by the estimator: not part of search_)
    warm = solutions.get(result.chosen)
    if warm is not None:
        result.final_warm_start = warm
    if held_out:
        result.held_out = {r["source"]: getattr(checked[r["source"]], "held_out_values",
                                                lambda x: None)(np.asarray(r["x"]))
                           for r in records}
    return result, n_trainings


def _per_feature_search(search, minimum, ys, d, lower, upper, config, random_state) -> tuple:
    """Step 4's search (:mod:`.ard`): L-BFGS-B on ``config.ard_bound`` over one width per
    feature of the ``d`` from that bound's isotropic search result ``minimum``, on at most
    ``config.ard_rows`` of the search rows (labels ``ys``). Returns ``search``'s tuple (tag,
    result, trainings, solution at the minimum, extra candidates), its kernel and its number
    of rows."""
    bound = config.ard_bound
    ard_kernel, a0, a_lo, a_hi = ard_start(minimum.x, lower, upper, d)
    # on at most ard_rows of the search rows; on all of them its start is the isotropic
    # minimum: the same kernel, the same bound value there
    rows = ard_rows(ys, config, random_state)
    # on every row, the isotropic search's evaluation at its minimum gave the gradient over the
    # d widths there too (``SpanBound.per_feature_grad``): the start is not evaluated again
    known = getattr(minimum, "per_feature_start", None) if rows is None else None
    out = search(bound, ard_kernel, a0, (a_lo, a_hi), "lbfgsb", config.ard_max_fev,
                 f"{ARD_SOURCE} {bound}", rows=rows, f0=minimum.fun if rows is None else None,
                 stop=ard_stop(config), known=known)
    return out, ard_kernel, int(ys.size if rows is None else rows.size)


def _per_feature(out, reason, validation, stages, records, path, solutions, config, weights,
                 t0, wrap, held_out, n_val):
    """Step 4 of the package docstring (:mod:`.ard`) after its search ``out``
    (:func:`_per_feature_search`, or None when ``reason`` says why it did not run): the
    validation of its minimum when the bound fell by ``config.ard_min_gain`` or more. Returns
    (``search_.ard``, its validation record or None, that validation criterion or None, the
    trainings made); adds the search to ``stages``, ``path`` and (its solve at the minimum)
    ``solutions`` — the final training's start, so the caller passes a dict that is kept only
    where the searches ran on every row (no hold-out split; the search's own rows subset gives
    no solve)."""
    ard = {"ran": reason is None, "reason": reason}
    if reason is not None:
        return ard, None, None, 0
    bound = config.ard_bound
    (tag, res, n, sol, _), ard_kernel, n_rows = out
    stages[tag] = res
    # (a start known from the isotropic search is its evaluation, in the path already)
    path += [dict(e, stage=tag) for e in res.path if not e.get("known")]
    if sol is not None:
        solutions[f"{tag} minimum"] = sol
    start_value = res.path[0]["value"]          # the bound at the start, on the same rows
    gain = 1.0 - float(res.fun) / start_value if start_value > 0 else 0.0
    stopped = res.status == STOPPED
    ard.update(bound=bound, nfev=int(res.nfev), rows=n_rows, gain=gain,
               validated=gain >= config.ard_min_gain, stopped=stopped)
    if not ard["validated"]:
        ard["reason"] = (f"the {bound} bound fell by {gain:.0%} of its isotropic minimum, less "
                         f"than ard_min_gain = {config.ard_min_gain:.0%}: not validated"
                         + (f" (stopped after {res.nfev} evaluations: it could not reach it "
                            "at its best pace so far)" if stopped else ""))
        return ard, None, None, n
    cv_ard = validation(ard_kernel)
    if held_out and hasattr(cv_ard, "held_out_values"):
        cv_ard.keep_held_out = True
    if wrap is not None:
        cv_ard = wrap(cv_ard, f"{ARD_SOURCE} {config.validation_criterion}")
    rec = _validate(cv_ard, [(f"{tag} minimum", np.asarray(res.x, float))], weights, path,
                    t0)[0]
    best = records[min(range(len(records)), key=lambda i: cv_key(records[i]))]
    rec["margin_met"] = ard_accepted(rec, best, n_val, config.ard_margin)
    ard.update(cv_rate=rec["cv_rate"], margin_met=rec["margin_met"], margin=config.ard_margin)
    return ard, rec, cv_ard, n + cv_ard.n_trainings


def _rows(problem, subsample, cache_size, random_state, n_folds, config, strata=None):
    """(split, the problem of the searches, that of the validation, the validation's fold
    arguments): every row and ``n_folds`` stratified folds, or on large data (:mod:`.rows`)
    the subsample S for the searches and one hold-out fold, S against the rows V."""
    y = problem.y
    # the span search's memory within the cache budget
    memory = None if subsample is None else span_memory_rows(cache_size, config)
    largest = None                      # one-vs-one: the two largest classes' rows
    if strata is None:
        counts = np.unique(y, return_counts=True)[1]
        largest = int(np.sort(counts)[-2:].sum()) if counts.size > 2 else None
    split = tuning_rows(y if strata is None else strata, subsample, random_state, config,
                        largest, memory)
    if split is None:
        k = n_folds_for(y, n_folds) if strata is None else n_folds
        return None, problem, problem, {"n_folds": k}
    S, V = split
    fold = [(np.arange(S.size), np.arange(S.size, S.size + V.size))]
    return split, problem.take(S), problem.take(np.concatenate([S, V])), {"folds": fold}


def _run_searches(search, names, cv, own_candidates, n_jobs, sequential, config,
                  follow=None) -> tuple[list, object]:
    """([search(name) for each bound], the follow-up's result or None): the searches side by
    side on ``n_jobs`` threads (numba's SMO and BLAS release the GIL), or one after the other
    when a search log replays them in order. With ``config.overlap_cv`` a search that ends
    first trains the CV pieces of its own candidates (``own_candidates(name, minimum)``) on the
    worker it leaves while the other still runs; they are kept in the order of the searches,
    so the results do not depend on timing. ``follow`` = (name, fn): ``fn(result)`` of the
    search of that name (the per-feature search from the span bound's minimum) goes out first
    of that search's follow-up work, so that it runs beside the other search and the CV; the
    follow-up's result is None when it was not overlapped (the caller runs it)."""
    if sequential or not config.overlap_cv or not hasattr(cv, "pieces"):
        return parallel_map(search, names, 1 if sequential else n_jobs), None
    pieces, follow_at = {}, None if follow is None else names.index(follow[0])

    def then(i, out):
        if out[3] is not None and hasattr(cv, "start_fold_from"):   # the search's own solve
            cv.start_fold_from(*cv.split_theta(out[3][1]), out[3][0])
        pieces[i] = cv.pieces([theta for _, theta in own_candidates(names[i], out[1].x,
                                                                    out[4])], rank=i)
        first = [partial(follow[1], out[1])] if i == follow_at else []
        return first + [partial(cv.run_piece, piece) for piece in pieces[i]]

    done, trained = parallel_map_then(search, names, then, _call, n_jobs)
    followed = None
    for i, outs in enumerate(trained):
        if i == follow_at:
            followed, outs = outs[0], outs[1:]
        cv.keep_pieces(pieces[i], outs)
    return done, followed


def _call(task):
    """``task()``: a follow-up task of :func:`_run_searches`."""
    return task()


def _validate(cv, points, weights, path, t0) -> list:
    """The validation records of ``points`` ([(source, θ)]) by ``cv``, each evaluation also
    appended to ``path`` (fold pieces trained already are reused)."""
    if hasattr(cv, "precompute"):  # every candidate's folds at once (CrossValidationError)
        logged = cv.logged_ahead() if hasattr(cv, "logged_ahead") else 0
        cv.precompute([theta for _, theta in points], skip=logged)
    records = []
    for src, theta in points:
        ev = cv.evaluate(theta, need_grad=False)
        counts = getattr(cv, "counts_errors", True)
        errors = int(ev.value) if weights is None and counts else float(ev.value)
        records.append({"source": src, "x": theta.tolist(), "cv_errors": errors,
                        "cv_rate": ev.info["rate"], "cv_hinge": ev.info["hinge"],
                        "fold_rates": ev.info.get("fold_rates")})
        path.append({"x": theta.tolist(), "value": ev.value, "grad": None,
                     "time_s": time.perf_counter() - t0, "accepted": False,
                     "stage": cv.name})
    return records


def _validate_candidates(cv, candidates, weights, path, t0) -> tuple[list, bool, float]:
    """(records, whether θ₀ was added, the errors of always predicting the larger class): the
    validation error of each of ``candidates(False)``; when none beats always predicting the
    larger class (both searches ran off, e.g. to a σ² so small that the SVM memorises), θ₀ too
    (``candidates(True)``: the same list with the start appended)."""
    cands = candidates(False)
    records = _validate(cv, cands, weights, path, t0)
    trivial = trivial_errors(cv)
    if min(r["cv_errors"] for r in records) < trivial * (1.0 - 1e-12):
        return records, False, trivial
    extra = candidates(True)[len(cands):]
    records += _validate(cv, extra, weights, path, t0)
    return records, bool(extra), trivial


def _choice(records, cv, stages, path, split, n_rows, weighted, start_added,
            trivial) -> SearchResult:
    """The SearchResult of the candidate with the fewest validation errors (:func:`cv_key`:
    ties to the smaller C, then the smaller held-out hinge loss), saying how it was picked."""
    eligible = [i for i, r in enumerate(records) if r.get("margin_met", True)]
    chosen = records[min(eligible, key=lambda i: cv_key(records[i]))]
    n_held = cv._total()
    out_of = (f"{cv.metric} {chosen['cv_rate']:.6g}" if not getattr(cv, "counts_errors", True)
              else f"weighted {chosen['cv_errors']:.6g} of {n_held:.6g}" if weighted else
              f"{chosen['cv_errors']} of {int(n_held)}")
    how = f"{cv.n_folds}-fold CV error"
    sub = None
    if split is not None:
        sub = {"search": int(split[0].size), "validation": int(split[1].size), "of": int(n_rows)}
        how = (f"hold-out error (searches and trainings on {sub['search']} of {sub['of']} "
               f"rows, validated on {sub['validation']} others)")
    message = f"chose the {chosen['source']} by {how} ({out_of}) among {len(records)} candidates"
    trivial_what = getattr(cv, "trivial_what", "always predicting the larger class")
    if start_added:
        message += (f"; the bounds' candidates were no better than {trivial_what}, so the start "
                    "was validated too")
    return SearchResult(
        x=np.asarray(chosen["x"]), fun=chosen["cv_rate"], jac=None,
        nfev=sum(r.nfev for r in stages.values()) + len(records),
        njev=sum(r.njev for r in stages.values()), nit=sum(r.nit for r in stages.values()),
        success=True, status=0, message=message, path=path, candidates=records, stages=stages,
        chosen=chosen["source"], n_folds=cv.n_folds, subsample=sub,
        validation={"how": how.split(" (")[0], "trivial_rate": trivial / n_held,
                    "trivial_what": trivial_what, "measure": _measure(cv, how)})


def _measure(cv, how: str) -> str:
    """What the validation's value is, for the report: "5-fold CV error rate" (a classifier's
    share of errors), "5-fold CV MSE" (a regressor's ``metric``), "hold-out …" likewise."""
    how = how.split(" (")[0]
    if getattr(cv, "counts_errors", True):
        return f"{how} rate"
    return f"{how[:-len(' error')] if how.endswith(' error') else how} {cv.metric}"


def _cv_tol(tol: float, config: StrategyConfig) -> float:
    """The CV trainings' solver tolerance: ``config.cv_tol`` (``validation_tol`` when None), at least
    the estimator's ``tol``."""
    return max(float(tol), config.validation_tol if config.cv_tol is None else config.cv_tol)


def evaluation_budget(config: StrategyConfig, loss: str, per_feature: bool = False
                      ) -> int | None:
    """The evaluations a default tuning makes, about: each bound search's budget
    (:func:`_budget`) and one per candidate (each minimum and its steps), and with
    ``per_feature`` (:func:`.ard.ard_reason` lets that search run) its budget (it may stop
    sooner: :func:`.ard.ard_stop`) and its candidate; None when a search has no budget."""
    bounds = config.bounds_by_loss[loss]
    budgets = [_budget(config.stage_max_fev, name) for name in bounds]
    if any(b is None for b in budgets):
        return None
    steps = loss_steps(config.neighbour_steps, loss)
    n_steps = sum(len(steps.get(b, ()) if isinstance(steps, dict) else steps) for b in bounds)
    n_steps += len(config.coef_quantiles.get(loss, ())) * len(bounds)
    ard = config.ard_max_fev + 1 if per_feature else 0
    return int(sum(budgets)) + len(bounds) + n_steps + ard


def _budget(max_fev, name: str) -> int | None:
    """The evaluation budget of the search of criterion ``name``: ``max_fev`` itself, or its
    entry for ``name`` when it is a dict (a criterion it does not name gets its largest)."""
    if isinstance(max_fev, dict):
        return max_fev.get(name, max(max_fev.values()))
    return max_fev


def _with_extra(cands, extra) -> list:
    """The candidates ``cands``, then those of ``extra`` that are not among them (to 1e-9),
    before θ₀ when it was appended last."""
    start = [c for c in cands if c[0] == "start"]
    return distinct_points(extra, [c for c in cands if c[0] != "start"]) + start


def _coef_candidates(crit, x, quantiles, lower, upper) -> list:
    """[(source, θ)]: the minimum ``x`` with ln C set to the q-th percentile of the search's
    solution's coefficients |β_i|/w_i there, for each q of ``quantiles`` (``config.coef_quantiles``).
    The L1-SVR's C is a box on |β|; the L2-SVR that the span search solves has none, and the
    size of its coefficients says where the box of an L1 model of the same fit lies
    (``docs/decisions.md``). When the criterion's last solve was not at ``x`` (a rejected
    trial step), an SVR criterion solves there once more; another criterion gives []."""
    if not quantiles:
        return []
    inner = getattr(crit, "criterion", crit)
    last, sol = getattr(inner, "last", None), getattr(inner, "_svm_prev", None)
    if last is None or sol is None or not np.array_equal(last.theta, np.asarray(x, float)):
        if not hasattr(inner, "solve_svr"):
            return []
        sol = inner.solve_svr(*inner.split_theta(x))   # (a warm-started solve at x)
    coef = np.abs(sol.beta if hasattr(sol, "beta") else sol.alpha)
    if sol.weights is not None:
        coef = coef / sol.weights
    coef = coef[coef > 0]
    if coef.size == 0:
        return []
    out = []
    for q in quantiles:
        t = np.asarray(x, float).copy()
        t[0] = np.clip(np.log(np.percentile(coef, q)), lower[0], upper[0])
        out.append((f"{crit.name} minimum, C = {q}th percentile of |coef|", t))
    return out


def _solution_at(crit, x, loss: str) -> tuple | None:
    """(solution, θ): the SVM solution a bound search made at its minimum ``x``, when it is
    one a training can start from: the criterion's last evaluation was at ``x`` (not a
    rejected trial after it), of the estimator's loss, a binary solution. On every row (no
    subsample), when the minimum is chosen, the final training (same θ, same tolerance:
    ``stage_tol`` = ``validation_tol``) starts from it and stops at once — one training on
    every row saved; on the subsample S the hold-out's training at that minimum, whose training
    part is S, does (``CrossValidationError.start_fold_from``). None otherwise."""
    inner = getattr(crit, "criterion", crit)   # a search log's wrapper: the real criterion
    last, sol = getattr(inner, "last", None), getattr(inner, "_svm_prev", None)
    if (last is None or not isinstance(sol, DualSolution)
            or sol.loss != loss or sol.gradient_bar is None
            or not np.array_equal(last.theta, np.asarray(x, dtype=float))):
        return None
    return sol, np.array(last.theta, dtype=float)
