"""``BoundSVR``: ε-SVR whose C, kernel parameters and ε are tuned by leave-one-out estimates — a
drop-in for ``GridSearchCV(SVR(), {C, gamma, epsilon})``.

The fit is the classifier's one flow (``fit_flow.fit_bound_svm``) with the regression machine
(``svmbound.regression``): the default strategy (``svmbound.strategy``, settings
``SVR_CONFIG``) searches the L2-SVR's span estimate of the leave-one-out mean squared error
(``criteria.svr``) with projected BFGS over θ = (ln C, ln σ², ln ε) from a data-driven start,
validates its minimum and the minimum with C·e² (L1 loss: the minimum with C at the 50th, 90th
and 100th percentile of the L2 solution's |β_i|) by the k-fold CV mean squared error of the
loss's SVR, and trains the chosen model on every row.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .criteria import criterion_class, make_criterion
from .criteria.svr import check_targets
from .estimator_base import COMMON_CONSTRAINTS, GRADIENT_SEARCHES, SEARCHES, BoundSVMBase
from .export import feature_base, regression_model, write_libsvm_model
from .export import to_svr as export_to_svr
from .fit_flow import fit_bound_svm
from .kernels import base_kernel, split_degree
from .regression import RegressionMachine
from .solvers import DEFAULT_CACHE_MB, Problem
from .strategy import SVR_CONFIG
from .training_data import TrainingData

__all__ = ["BoundSVR"]


class BoundSVR(RegressorMixin, BoundSVMBase):
    """ε-SVR (LIBSVM's, and scikit-learn's ``SVR``) whose C, kernel parameters and ε are tuned
    by minimising a leave-one-out estimate, then checked by a short cross-validation.

    Parameters
    ----------
    loss : 'l2' (default) | 'l1'
        'l1': the ε-insensitive loss of SVR and LIBSVM's ε-SVR (0 ≤ α, α* ≤ C); 'l2': its
        square, C/2·Σ(ξ² + ξ*²) — the hard-margin problem on K + I/C, whose span estimate
        the default searches (for 'l1' too; the CV then scores the L1 model).
    criterion : 'auto' (default) or a regression criterion of ``svmbound.criteria.CRITERIA``
        ('svr-span', 'svr-span-exact', 'svr-cv', 'svr-loo') minimised by ``search``. 'auto':
        the default strategy (module docstring); with a non-gradient search it means 'svr-span'.
    kernel : 'rbf' | 'linear' | 'poly' | 'ard' | 'ard-poly' (as ``BoundSVC``).
    search : 'bfgs' | 'lbfgsb' | 'projected-gradient' | 'grid' | 'annealing' (as ``BoundSVC``).
    start, bounds : θ = (ln C, kernel θ…, ln ε): a start point and (lower, upper) per parameter
        (or one pair for all); default the data-driven start and box of
        ``svmbound.regression``.
    grid, degree, coef0, groups, tol, max_iter, max_epochs, gtol, cache_size, random_state,
    verbose, progress, log_file, resume, criterion_params, n_jobs, strategy_config :
        as ``BoundSVC``'s.
    n_folds : folds of the CV that picks among the candidates (KFold, shuffled with
        ``random_state``).
    tune_subsample : int or None (default 3000)
        On more than 2·tune_subsample rows the search runs on a random subsample of that many
        rows (drawn within quantile bins of the targets) and the candidates are compared on up
        to 4·tune_subsample other rows; the final SVR is trained on every row.

    Attributes
    ----------
    best_params_ (C, gamma, sigma2 / …, epsilon), best_theta_, best_value_, search_,
    n_trainings_ (SVR solves, the final one included), n_iter_, cv_results_, best_score_
    (negated CV mean squared error of the chosen candidate, scikit-learn's
    'neg_mean_squared_error'), support_, support_vectors_, dual_coef_ (α_i − α_i*, shape
    (1, n_SV)), intercept_, n_support_, kernel_, epsilon_, n_features_in_, feature_names_in_.
    """

    _default_config = SVR_CONFIG

    _parameter_constraints: dict = {**COMMON_CONSTRAINTS,
                                     "search": [StrOptions(set(SEARCHES) - {"convex"})]}

    _FITTED = ("dual_coef_", "intercept_", "support_", "support_vectors_", "n_support_",
               "solution_", "kernel_", "epsilon_", "best_params_", "best_theta_",
               "best_value_", "c_projected_", "n_trainings_", "n_iter_", "fit_time_",
               "criterion_name_", "shape_fit_", "cv_results_", "best_score_", "feature_scales_")

    def __init__(self, loss="l2", criterion="auto", kernel="rbf", search="bfgs", start=None,
                 bounds=None, grid=None, degree=3, coef0=1.0, groups=None, tol=1e-6,
                 max_iter=100, max_epochs=200, gtol=1e-4, n_folds=5,
                 cache_size=DEFAULT_CACHE_MB, random_state=None, verbose=0, progress=False,
                 log_file=None, resume=False, criterion_params=None, n_jobs=None,
                 tune_subsample=3000, strategy_config=None):
        self.loss = loss
        self.criterion = criterion
        self.kernel = kernel
        self.search = search
        self.start = start
        self.bounds = bounds
        self.grid = grid
        self.degree = degree
        self.coef0 = coef0
        self.groups = groups
        self.tol = tol
        self.max_iter = max_iter
        self.max_epochs = max_epochs
        self.gtol = gtol
        self.n_folds = n_folds
        self.cache_size = cache_size
        self.random_state = random_state
        self.verbose = verbose
        self.progress = progress
        self.log_file = log_file
        self.resume = resume
        self.criterion_params = criterion_params
        self.n_jobs = n_jobs
        self.tune_subsample = tune_subsample
        self.strategy_config = strategy_config

    # -- fitting ----------------------------------------------------------------------------
    def _criterion_name(self) -> str:
        return "svr-span" if self.criterion == "auto" else self.criterion

    def _validate(self, params_checked: bool = False):
        if not params_checked:
            self._validate_params()
        split_degree(self.degree, self.kernel, self.search)
        cls = criterion_class(self._criterion_name(), task="regression")
        if self.search in GRADIENT_SEARCHES and not cls.differentiable:
            raise ValueError(f"criterion {cls.name!r} is not differentiable; search="
                             f"{self.search!r} cannot minimise it — use the grid or annealing "
                             "search")
        if self._uses_auto() and self.criterion_params:
            raise ValueError("criterion_params apply to one named criterion; criterion='auto' "
                             "runs several (its CV folds are set by n_folds)")
        self._criterion_params(cls)
        return cls

    def make_criterion(self, X, y, weights=None):
        """The criterion a single search minimises (for criterion='auto' the span estimate,
        e.g. for contour plots), on real targets ``y``."""
        cls = self._validate()
        degree, _ = split_degree(self.degree, self.kernel, self.search)
        kernel = base_kernel(self.kernel, degree, self.coef0, X.shape[1], self.groups)
        loss = self.loss if self.loss in cls.losses() else None
        return make_criterion(cls.name, Problem(X, y, weights), kernel, loss=loss,
                              random_state=self.random_state, tol=self.tol,
                              cache_size=self.cache_size, **self._criterion_params(cls))

    def _fit(self, X, y, sample_weight=None):
        t0 = time.perf_counter()
        X = self._check_input(X, reset=True)
        if X.shape[0] < 2:
            raise ValueError(f"X has {X.shape[0]} sample; an SVR needs at least 2 samples")
        z = check_targets(column_or_1d(y, warn=True), X.shape[0])
        data = TrainingData.for_regression(X, z, sample_weight)
        self._validate(params_checked=True)
        fit_bound_svm(self, data, RegressionMachine(self, data), t0)
        self.shape_fit_ = data.shape
        return self

    # -- prediction -------------------------------------------------------------------------
    def predict(self, X):
        """f(x) = Σ_i (α_i − α_i*) K(x_i, x) + b."""
        check_is_fitted(self, "dual_coef_")
        X = self._check_input(X, reset=False)
        if self.support_.size == 0:
            return np.full(X.shape[0], self.intercept_[0])
        return (self.kernel_.block_dot(X, self.support_vectors_, self.dual_coef_[0])
                + self.intercept_[0])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # -- export -----------------------------------------------------------------------------
    def _model(self):
        check_is_fitted(self, "dual_coef_")
        return regression_model(self.kernel_, self.support_vectors_, self.dual_coef_,
                                self.intercept_, C=self.best_params_["C"],
                                epsilon=self.epsilon_, support=self.support_,
                                n_samples=self.shape_fit_[0])

    def to_svr(self):
        """A fitted ``sklearn.svm.SVR`` with this model — nothing is retrained, so ``predict``
        is equal up to rounding (``svmbound.export``): the tuned C, ε and kernel parameters,
        the same support vectors, coefficients and intercept. Either loss: the L2-SVR's
        prediction has the same form (``clone(svr).fit`` trains the L1 ε-SVR). ARD kernels give
        a ``Pipeline`` of a per-feature scaler (x_k/σ_k) and the SVR."""
        return export_to_svr(self._model(), tol=self._final_tol())

    def save_libsvm_model(self, path, range_path=None, zero_based=False):
        """Write this model in LIBSVM's text format (``svm_type epsilon_svr``; ``svm-predict``
        reads it). An ARD model is written on the scaled features x_k/σ_k, with svm-scale's
        range file beside it (``range_path``, default ``<path>.range``). Column j is feature j +
        1, or j with ``zero_based=True`` (as ``BoundSVC.save_libsvm_model``)."""
        write_libsvm_model(self._model(), path, range_path=range_path,
                           base=feature_base(zero_based))
        return self
