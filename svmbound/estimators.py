"""scikit-learn estimator that tunes its own hyperparameters by minimising a LOO bound.

``BoundSVC.fit`` (1) builds the criterion (e.g. the radius–margin bound of the chosen loss),
(2) minimises it over θ = (ln C, kernel θ) with the chosen search (projected BFGS, Chung §4.2),
(3) applies Chung §4.3 — an L1 solution with no bounded support vector (typically after the
search ran towards ln C = 10) is reported with C = max α, which leaves the model unchanged —
and (4) trains the final SVM of that loss at the chosen point.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._validation import check_binary_y, check_X
from .criteria import criterion_class
from .kernels import KERNELS, make_kernel
from .solvers import DEFAULT_CACHE_MB, solve_svm_dual, warm_start_alpha
from .solvers.svm import check_loss

SEARCHES = ("bfgs", "grid")

#: Default box per tuned parameter (Chung §4.2: [−10, 10] for ln C and ln σ²).
DEFAULT_BOUNDS = {"log_C": (-10.0, 10.0), "log_sigma2": (-10.0, 10.0), "coef0": (0.0, 10.0)}
DEFAULT_START = {"log_C": 0.0, "log_sigma2": 0.0, "coef0": 1.0}


def base_kernel(name: str, degree: int = 3, coef0: float = 1.0):
    """The kernel object a search starts from (its θ is overwritten by the search)."""
    if name == "poly":
        return make_kernel("poly", degree=degree, coef0=coef0)
    return make_kernel(name)


def check_search(name: str) -> str:
    if name not in SEARCHES:
        raise ValueError(f"unknown search {name!r}; valid searches: {', '.join(SEARCHES)}")
    return name


def box_and_start(param_names, bounds=None, start=None):
    """(lower, upper, x0) arrays for the tuned parameters, validated."""
    n = len(param_names)
    if bounds is None:
        lower = np.array([DEFAULT_BOUNDS[p][0] for p in param_names])
        upper = np.array([DEFAULT_BOUNDS[p][1] for p in param_names])
    else:
        b = np.asarray(bounds, dtype=float)
        if b.shape == (2,):
            b = np.tile(b, (n, 1))
        if b.shape != (n, 2):
            raise ValueError(f"bounds must be (lower, upper) or one (lower, upper) per parameter "
                             f"{param_names}, got shape {b.shape}")
        lower, upper = b[:, 0].copy(), b[:, 1].copy()
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError("bounds must be finite")
    if np.any(lower >= upper):
        k = int(np.argmax(lower >= upper))
        raise ValueError(f"bounds for {param_names[k]}: lower {lower[k]} must be < upper {upper[k]}")
    x0 = (np.array([DEFAULT_START[p] for p in param_names]) if start is None
          else np.asarray(start, dtype=float).ravel())
    if x0.shape != (n,):
        raise ValueError(f"start must have {n} entries {param_names}, got {x0.size}")
    if not np.all(np.isfinite(x0)):
        raise ValueError(f"start must be finite, got {x0.tolist()}")
    out = (x0 < lower) | (x0 > upper)
    if np.any(out):
        k = int(np.argmax(out))
        raise ValueError(f"start point {x0.tolist()} is outside the box: {param_names[k]} = "
                         f"{x0[k]} not in [{lower[k]}, {upper[k]}]")
    return lower, upper, x0


class BoundSVC(ClassifierMixin, BaseEstimator):
    """Binary SVM whose C and kernel parameters are tuned by minimising a leave-one-out bound.

    Parameters
    ----------
    loss : 'l2' | 'l1'
        L2-SVM (squared hinge, Chung 1.7) or L1-SVM (hinge, Chung 1.5; the usual SVC).
    criterion : str
        'radius-margin' (the default bound of the loss) or a criterion name from
        ``svmbound.criteria.CRITERIA``.
    kernel : 'rbf' | 'linear' | 'poly'
    search : 'bfgs' | 'grid'
        Projected BFGS of Chung §4.2, or an exhaustive grid over (ln C, kernel parameter).
    grid : dict or None
        For search='grid': {"log_C": (begin, end, step), "<kernel param>": (begin, end, step)};
        default: the box with step 1.
    start : array or None
        Start point in θ = (ln C, kernel θ); default (0, 0) for the RBF kernel.
    bounds : (lower, upper) or one pair per parameter, or None for [−10, 10] (Chung §4.2).
    degree, coef0 : polynomial kernel (coef0 is tuned, degree is fixed).
    tol : solver tolerance of criterion evaluations (Chung §4.3 uses 1e-6).
    max_iter : maximal quasi-Newton iterations.
    gtol : BFGS stops when the projected gradient is below gtol·|f(start)| (relative, because
        the criterion's gradient is only as accurate as the solver tolerance, Chung §4.3).
    cache_size : kernel-row cache in MB.
    random_state : seed for any random choice (kept for API stability; BFGS is deterministic).
    verbose : progress on stderr when > 0.

    Attributes
    ----------
    classes_, best_params_ (C, gamma, sigma2 …), best_theta_, best_value_, search_ (the
    search result with its path), n_trainings_ (SVM solves, final training included),
    support_, support_vectors_, dual_coef_ (α_i y_i), intercept_, alpha_, n_support_.
    """

    def __init__(self, loss="l2", criterion="radius-margin", kernel="rbf", search="bfgs",
                 start=None, bounds=None, grid=None, degree=3, coef0=1.0, tol=1e-6, max_iter=100,
                 gtol=1e-4,
                 cache_size=DEFAULT_CACHE_MB, random_state=None, verbose=0):
        self.loss = loss
        self.criterion = criterion
        self.kernel = kernel
        self.search = search
        self.start = start
        self.bounds = bounds
        self.grid = grid
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.gtol = gtol
        self.cache_size = cache_size
        self.random_state = random_state
        self.verbose = verbose

    # -- fitting -------------------------------------------------------------------------
    def _validate(self):
        check_loss(self.loss)
        if self.kernel not in KERNELS:
            raise ValueError(f"unknown kernel {self.kernel!r}; valid kernels: "
                             f"{', '.join(sorted(KERNELS))}")
        check_search(self.search)
        cls = criterion_class(self.criterion, self.loss)
        if self.search == "bfgs" and not cls.differentiable:
            raise ValueError(f"criterion {cls.name!r} is not differentiable; BFGS cannot minimise "
                             "it — use the grid or annealing search")
        return cls

    def make_criterion(self, X, y_pm):
        """The criterion object this estimator minimises, on ±1 labels."""
        from .criteria import make_criterion

        cls = self._validate()
        kernel = base_kernel(self.kernel, self.degree, self.coef0)
        return make_criterion(cls.name, X, y_pm, kernel, loss=self.loss,
                              random_state=self.random_state, tol=self.tol,
                              cache_size=self.cache_size)

    def _grid_axes(self, param_names, lower, upper):
        from .search.grid import grid_range

        if len(param_names) != 2:
            raise ValueError(f"search='grid' needs exactly two parameters, the {self.kernel} "
                             f"kernel gives {param_names}")
        spec = {} if self.grid is None else dict(self.grid)
        unknown = set(spec) - set(param_names)
        if unknown:
            raise ValueError(f"grid keys {sorted(unknown)} are not parameters; valid: {param_names}")
        return [grid_range(*spec.get(p, (lo, hi, 1.0)))
                for p, lo, hi in zip(param_names, lower, upper)]

    def fit(self, X, y):
        from .search import minimize_projected_bfgs
        from .search.grid import minimize_grid

        t0 = time.perf_counter()
        X = check_X(X)
        y_pm, self.classes_ = check_binary_y(y, X.shape[0])
        self.n_features_in_ = X.shape[1]
        crit = self.make_criterion(X, y_pm)
        lower, upper, x0 = box_and_start(crit.param_names, self.bounds, self.start)

        callback = None
        if self.verbose:
            def callback(xk, fk):
                print(f"[svmbound] iter: theta={np.round(xk, 4).tolist()} value={fk:.6g} "
                      f"trainings={crit.n_trainings} {time.perf_counter() - t0:.1f}s",
                      file=sys.stderr, flush=True)
        if self.search == "grid":
            axes = self._grid_axes(crit.param_names, lower, upper)
            result = minimize_grid(crit, *axes)
        else:
            result = minimize_projected_bfgs(crit.fun, crit.grad, x0, lower, upper,
                                             max_iter=self.max_iter, gtol_rel=self.gtol,
                                             callback=callback)
        theta = np.asarray(result.x, dtype=float).copy()
        self.search_ = result
        self.criterion_name_ = crit.name

        # Chung §4.3 (Table 4.1, Fig. 3): an L1 solution with no bounded SV is unchanged when C
        # is lowered to max α, so report that C (the search may have run on towards ln C = 10).
        C, kernel = crit.split_theta(theta)
        prev = crit._svm_prev
        if prev is not None and prev.alpha.shape != y_pm.shape:
            prev = None  # the criterion trained on a subset (validation split, CV folds)
        final = solve_svm_dual(X, y_pm, kernel, C, loss=self.loss, tol=self.tol,
                               alpha0=None if prev is None else
                               warm_start_alpha(prev.alpha, y_pm, prev.C, C, self.loss),
                               cache_size=self.cache_size, check_input=False)
        self.c_projected_ = False
        if self.loss == "l1" and final.bounded.size == 0 and final.alpha.max() > 0:
            C = float(final.alpha.max())
            theta[0] = np.log(C)
            final.C = C
            self.c_projected_ = True
        self.n_trainings_ = crit.n_trainings + 1
        self.best_theta_ = theta
        self.best_value_ = float(result.fun)
        self.best_params_ = {"C": C, **kernel.get_params()}
        if "sigma2" in self.best_params_:
            self.best_params_["gamma"] = 1.0 / (2.0 * self.best_params_["sigma2"])
        self.kernel_ = kernel
        self._set_model(X, y_pm, final)
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _set_model(self, X, y_pm, sol):
        sv = sol.support
        self.alpha_ = sol.alpha[sv]
        self.support_ = sv
        self.support_vectors_ = X[sv]
        self.dual_coef_ = (sol.alpha[sv] * y_pm[sv])[None, :]
        self.intercept_ = np.array([sol.b])
        self.n_support_ = np.array([(y_pm[sv] < 0).sum(), (y_pm[sv] > 0).sum()])
        self.solution_ = sol

    # -- prediction ----------------------------------------------------------------------
    def decision_function(self, X):
        """f(x) = Σ α_i y_i K(x_i, x) + b; positive values predict ``classes_[1]``."""
        check_is_fitted(self, "dual_coef_")
        X = check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but BoundSVC was fitted with "
                             f"{self.n_features_in_}")
        if self.support_.size == 0:
            return np.full(X.shape[0], self.intercept_[0])
        return self.kernel_.block(X, self.support_vectors_) @ self.dual_coef_[0] + self.intercept_[0]

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
