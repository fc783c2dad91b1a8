"""What ``BoundSVC`` and ``BoundSVR`` share: the fit's run control (search log, progress bar,
Ctrl-C), the input bookkeeping, and how the default strategy's settings are read.

A subclass sets ``_default_config`` (the ``StrategyConfig`` used when ``strategy_config`` is
None), ``_FITTED`` (what a fit sets besides ``search_``) and implements ``_fit``.
"""

from __future__ import annotations

import inspect
import os
import time
from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_feature_names, _check_n_features

from ._blas import limit_blas
from ._parallel import n_workers
from ._validation import check_X
from .fit_flow import grid_axes
from .kernels import ESTIMATOR_KERNELS, RBFKernel
from .progress import Progress
from .solvers.interrupt import as_interrupt, ctrl_c_outside_the_compiler
from .solvers.qp import TOL_MAX, TOL_MIN, solve_threads_scope
from .search.log import RunControl, SearchLog
from .strategy import DEFAULT_CONFIG, StrategyConfig, ard_reason, evaluation_budget
from .training_data import data_fingerprint

__all__ = ["BoundSVMBase", "SEARCHES", "GRADIENT_SEARCHES", "COMMON_CONSTRAINTS"]

SEARCHES = ("bfgs", "lbfgsb", "projected-gradient", "grid", "annealing", "convex")
GRADIENT_SEARCHES = ("bfgs", "lbfgsb", "projected-gradient")


#: scikit-learn's parameter validation of the parameters both estimators have (each adds its
#: own; ``sklearn.utils._param_validation``).
COMMON_CONSTRAINTS: dict = {
    "loss": [StrOptions({"l1", "l2"})],
    "criterion": [str],
    "kernel": [StrOptions(set(ESTIMATOR_KERNELS))],
    "start": ["array-like", None],
    "bounds": ["array-like", None],
    "grid": [dict, None],
    "degree": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}),
               "array-like"],
    "coef0": [Interval(Real, 0, None, closed="left")],
    "groups": ["array-like", None],
    "tol": [Interval(Real, TOL_MIN, TOL_MAX, closed="both")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "max_epochs": [Interval(Integral, 1, None, closed="left")],
    "gtol": [Interval(Real, 0, None, closed="left")],
    "n_folds": [Interval(Integral, 2, None, closed="left")],
    "cache_size": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    "progress": ["boolean", Integral],
    "log_file": [str, os.PathLike, None],
    "resume": ["boolean"],
    "criterion_params": [dict, None],
    "n_jobs": [Integral, None],
    "tune_subsample": [Interval(Integral, 10, None, closed="left"), None],
    "strategy_config": [StrategyConfig, None],
}


class BoundSVMBase(BaseEstimator):
    """The part of a bound-tuned SVM estimator that does not depend on its task."""

    _default_config = DEFAULT_CONFIG
    _FITTED: tuple = ()

    # -- log, resume, progress ------------------------------------------------------------
    #: Parameters that do not change the search (left out of a log's header).
    #: Parameters that do not change the result: a log does not record them, so a run may be
    #: resumed with other values (n_jobs: the same bits on any number of workers).
    _RUN_CONTROL_PARAMS = ("verbose", "progress", "log_file", "resume", "n_jobs",
                           "probability", "break_ties")

    def _uses_auto(self) -> bool:
        """Whether fit runs the default strategy of ``svmbound.strategy`` (criterion='auto'
        with a gradient search)."""
        return self.criterion == "auto" and self.search in GRADIENT_SEARCHES

    def _final_tol(self) -> float:
        """Solver tolerance of the final model: that of the validation that picked it for
        criterion='auto' (at least ``strategy.VALIDATION_TOL``), else ``tol``."""
        return (max(float(self.tol), self._config().validation_tol) if self._uses_auto()
                else float(self.tol))

    def _config(self) -> StrategyConfig:
        """The default strategy's settings: ``strategy_config``, or ``DEFAULT_CONFIG``."""
        return self._default_config if self.strategy_config is None else self.strategy_config

    def _criterion_name(self) -> str:
        """The criterion a single search minimises: 'auto' outside the default strategy (grid,
        annealing) means the radius–margin bound of the loss, as before."""
        return "radius-margin" if self.criterion == "auto" else self.criterion

    def _iteration_printer(self, bar, t0):
        """The ``verbose`` ≥ 2 callback of the searches: one line per iteration through the
        progress bar (None below)."""
        if self.verbose < 2:
            return None

        def callback(xk, fk):
            bar.write(f"[svmbound] iter: theta={np.round(xk, 4).tolist()} value={fk:.6g} "
                      f"{time.perf_counter() - t0:.1f}s")
        return callback

    def _notifier(self, bar, t0):
        """The ``verbose`` ≥ 1 reporter of the fit's steps — each search's end, each
        candidate's validation, the pick, the final training — one line each through the
        progress bar (None when not verbose). Levels as scikit-learn's searches use them:
        1 the steps, 2 also every search iteration, 3 also every evaluation."""
        if not self.verbose:
            return None

        def notify(text):
            bar.write(f"[svmbound] {time.perf_counter() - t0:6.1f}s {text}")
        return notify

    def fit(self, X, y, sample_weight=None):
        """Tune (C, kernel θ) and train the final SVM. ``sample_weight``: per-sample weights
        >= 0 (C_i = C·class_weight[y_i]·sample_weight_i, as scikit-learn's SVC).

        BLAS runs on one thread during the fit (threadpoolctl): svmbound's parallelism is its
        ``n_jobs`` threads (shared out among concurrent solves; a solve alone, as the final
        training, computes its kernel rows on all of them: ``solvers.qp.solve_threads``), and
        the BLAS calls of a criterion evaluation (kernel blocks, the span bound's
        factorisations) are too small to gain from threads of their own — with two
        OpenBLAS threads per call a default fit on IDA german took 4.4 s instead of 0.75 s, on a
        5,000-row sample of ijcnn1 51 s instead of 10 s (2 cores, other jobs running).

        Ctrl-C stops the fit with a KeyboardInterrupt that holds the search so far
        (``search_result``, also in ``search_``); one that lands while numba loads a compiled
        function on its first call is raised a moment later, outside numba's code
        (``solvers.interrupt.ctrl_c_outside_the_compiler``)."""
        self._validate_params()
        self._forget_model()       # an earlier fit's model is not kept beside this one's
        with limit_blas(1), solve_threads_scope(n_workers(self.n_jobs)), \
                ctrl_c_outside_the_compiler():
            return self._fit(X, y, sample_weight)

    def _check_input(self, X, reset: bool):
        """X as a float64 array (``check_X``'s messages), with scikit-learn's bookkeeping of
        the input: ``feature_names_in_`` (set by fit from a DataFrame's string column names;
        at prediction a frame with other or reordered columns is a ValueError, as for SVC) and
        ``n_features_in_`` (at prediction a different number of features is a ValueError)."""
        _check_feature_names(self, X, reset=reset)
        X = check_X(X)
        _check_n_features(self, X, reset=reset)
        return X

    def _progress_total(self, crit, lower, upper, X=None):
        """Evaluations the search will make, where known (grid, annealing; the default
        strategy on ``X``: its searches' budgets and its candidates), else None."""
        if crit is None:
            per_feature = (X is not None and self.kernel == "rbf" and
                           ard_reason(X, RBFKernel(1.0), self.loss, self._config()) is None)
            return evaluation_budget(self._config(), self.loss, per_feature)
        if self.search == "grid":
            try:
                return int(np.prod([a.size for a in grid_axes(self, crit.param_names, lower,
                                                                upper)]))
            except ValueError:
                return None
        if self.search == "annealing":
            return int(self.max_epochs) + 1
        return None

    def _check_reproducible(self, crit):
        """A log can only be resumed if the run is deterministic: annealing and the criteria
        that draw a split (validation, CV folds) need an int ``random_state``."""
        if crit is None:  # criterion='auto': its CV folds use random_state, 0 when None
            random = False
        else:
            random = self.search == "annealing" or any(
                "random_state" in inspect.signature(c.__init__).parameters
                for c in type(crit).__mro__ if "__init__" in vars(c))
        if random and (isinstance(self.random_state, bool)
                       or not isinstance(self.random_state, (int, np.integer))):
            raise ValueError(f"log_file: this run draws random numbers (search={self.search!r}, "
                             f"criterion {crit.name!r}), so it can only be logged and "
                             f"resumed with an int random_state, got {self.random_state!r}")

    @contextmanager
    def _searching(self, run, bar):
        """Around a fit's searches (binary and multi-class): on Ctrl-C (also one that numba's
        dispatcher turned into a SystemError: ``solvers.interrupt.as_interrupt``) keep the
        search so far in ``search_`` and on the KeyboardInterrupt as ``search_result`` before
        re-raising it; always close the search log, and the progress bar when the searches
        fail (otherwise it stays open for the final training, and the fit closes it)."""
        try:
            yield
        except BaseException as exc:
            bar.close()
            interrupt = as_interrupt(exc)
            if interrupt is None:
                raise
            self.search_ = interrupt.search_result = run.partial_result()
            self.search_.phase = "search"
            self._forget_model()
            raise interrupt from None    # (also when a Ctrl-C caused a SystemError: as_interrupt)
        finally:
            run.close()

    def _forget_model(self) -> None:
        for name in self._FITTED:
            self.__dict__.pop(name, None)

    def _start_run_control(self, X, y_pm, crit, lower, upper, weights=None):
        """(``search.log.RunControl``, ``progress.Progress``) of this fit: the search log
        (opened, or resumed, when ``log_file`` is set) and the progress bar (``progress``)."""
        log = None
        if self.log_file is not None:
            self._check_reproducible(crit)
            run = {k: v for k, v in self.get_params().items()
                   if k not in self._RUN_CONTROL_PARAMS
                   and not (k == "strategy_config" and v is None)}   # logs before it
            log = SearchLog(self.log_file, data_fingerprint(X, y_pm, weights), run,
                            resume=bool(self.resume))
        total = self._progress_total(crit, lower, upper, X)
        bar = Progress(bool(self.progress), total=None if total is None else total + 1,
                       desc=f"svmbound {self.search}", echo=self.verbose >= 3)
        return RunControl(log, on_evaluation=bar.on_evaluation), bar

    def _criterion_params(self, cls) -> dict:
        """``criterion_params``, checked against the keyword arguments of the criterion class
        (those the estimator passes itself — loss, random_state, tol, cache_size — excluded)."""
        if self.criterion_params is None:
            return {}
        if not isinstance(self.criterion_params, dict):
            raise ValueError(f"criterion_params must be a dict or None, got "
                             f"{self.criterion_params!r}")
        accepted = set()
        for klass in cls.__mro__:
            if "__init__" in vars(klass):
                accepted |= {n for n, p in inspect.signature(klass.__init__).parameters.items()
                             if p.kind is p.KEYWORD_ONLY}
        accepted -= {"loss", "random_state", "tol", "cache_size", "weights"}
        unknown = sorted(set(self.criterion_params) - accepted)
        if unknown:
            valid = ", ".join(sorted(accepted)) or "none"
            raise ValueError(f"criterion {cls.name!r} takes no parameter(s) {unknown} in "
                             f"criterion_params; it takes: {valid}")
        return dict(self.criterion_params)
