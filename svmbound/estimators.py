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
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._validation import check_binary_y, check_degree, check_X, data_scale, warn_if_degenerate
from .criteria import criterion_class
from .exceptions import ConvergenceWarning, SearchWarning
from .kernels import KERNELS, make_kernel
from .solvers import DEFAULT_CACHE_MB, solve_svm_dual, warm_start_alpha
from .solvers.svm import check_loss

SEARCHES = ("bfgs", "lbfgsb", "projected-gradient", "grid", "annealing", "convex")

#: Kernels of the estimator: the isotropic ones of ``svmbound.kernels`` and the ARD kernels
#: with one ln σ² per feature (or per group) of ``svmbound.kernels_ard`` (Chapelle §7.3, §8).
ARD_KERNELS = ("ard", "ard-poly")
ESTIMATOR_KERNELS = tuple(sorted(KERNELS)) + ARD_KERNELS

#: Default box per tuned parameter (Chung §4.2: [−10, 10] for ln C and ln σ²); the ARD
#: parameters log_sigma2_<k> take the log_sigma2 entry.
DEFAULT_BOUNDS = {"log_C": (-10.0, 10.0), "log_sigma2": (-10.0, 10.0), "coef0": (0.0, 10.0)}
DEFAULT_START = {"log_C": 0.0, "log_sigma2": 0.0, "coef0": 1.0}
#: Degree range of the polynomial kernel searched by annealing (Acevedo §4: d ∈ {1, …, 10}).
DEFAULT_DEGREE_RANGE = (1, 10)


def _default(table: dict, name: str):
    """``table[name]``, with ``log_sigma2_<k>`` (ARD) falling back to ``log_sigma2``."""
    if name in table:
        return table[name]
    base, _, k = name.rpartition("_")
    if k.isdigit() and base in table:
        return table[base]
    raise ValueError(f"no default for parameter {name!r}; give bounds and start explicitly")


def base_kernel(name: str, degree: int = 3, coef0: float = 1.0, n_features: int | None = None,
                groups=None):
    """The kernel object a search starts from (its θ is overwritten by the search)."""
    if name in ARD_KERNELS:
        from .kernels_ard import ARDRBFKernel, ScaledPolynomialKernel, check_groups

        g = check_groups(groups)
        if g is not None and n_features is not None and g.size != n_features:
            raise ValueError(f"groups has {g.size} entries but X has {n_features} features")
        n = int(g.max()) + 1 if g is not None else n_features
        if n is None:
            raise ValueError(f"the {name} kernel needs the number of features")
        sigma2 = np.ones(n)
        if name == "ard":
            return ARDRBFKernel(sigma2, groups=g)
        return ScaledPolynomialKernel(sigma2, degree=degree, groups=g)
    if groups is not None:
        raise ValueError(f"groups only apply to the ARD kernels ('ard', 'ard-poly'), not "
                         f"kernel={name!r}")
    if name == "poly":
        return make_kernel("poly", degree=degree, coef0=coef0)
    return make_kernel(name)


def check_kernel_name(name) -> str:
    if name not in ESTIMATOR_KERNELS:
        raise ValueError(f"unknown kernel {name!r}; valid kernels: {', '.join(ESTIMATOR_KERNELS)}")
    return name


def check_search(name: str) -> str:
    if name not in SEARCHES:
        raise ValueError(f"unknown search {name!r}; valid searches: {', '.join(SEARCHES)}")
    return name


def split_degree(degree, kernel: str, search: str):
    """(fixed degree, searched (lo, hi) range or None) from the ``degree`` parameter: an int
    fixes it; a pair (lo, hi) — or 'auto' for 1..10 — is searched, which only annealing can do
    (the degree is an integer, Acevedo §3)."""
    if isinstance(degree, str):
        if degree != "auto":
            raise ValueError(f"degree must be an int, a (low, high) pair or 'auto', got {degree!r}")
        degree = DEFAULT_DEGREE_RANGE
    if np.ndim(degree) == 0:
        return check_degree(degree), None
    d = tuple(degree)
    if len(d) != 2:
        raise ValueError(f"a degree range must be a pair (low, high), got {degree!r}")
    lo, hi = (check_degree(v) for v in d)
    if lo >= hi:
        raise ValueError(f"degree range: low {lo} must be < high {hi}")
    if kernel != "poly":
        raise ValueError(f"a degree range is searched only with kernel='poly', not {kernel!r}")
    if search != "annealing":
        raise ValueError(f"a degree range (an integer parameter) needs search='annealing', "
                         f"not {search!r}")
    return lo, (lo, hi)


def _floats(value, name: str, ravel: bool = True) -> np.ndarray:
    """``value`` as a float array, or a ValueError naming ``name``."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {value!r}") from None
    return a.ravel() if ravel else a


def box_and_start(param_names, bounds=None, start=None):
    """(lower, upper, x0) arrays for the tuned parameters, validated."""
    n = len(param_names)
    if bounds is None:
        lower = np.array([_default(DEFAULT_BOUNDS, p)[0] for p in param_names])
        upper = np.array([_default(DEFAULT_BOUNDS, p)[1] for p in param_names])
    else:
        b = _floats(bounds, "bounds", ravel=False)
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
    x0 = (np.array([_default(DEFAULT_START, p) for p in param_names]) if start is None
          else _floats(start, "start"))
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


def _warn_flat_start(result, x0, param_names, X) -> None:
    """A ``SearchWarning`` (RuntimeWarning) when the search left parameters at their start
    value where the criterion was flat (``flat_start_parameters``): the answer is then the
    start point, not a minimum — typically data far from unit scale for an RBF kernel."""
    from .search.result import flat_start_parameters

    flat = flat_start_parameters(result, x0)
    if not flat:
        return
    names = [param_names[k] for k in flat]
    msg = (f"the search stopped with {', '.join(names)} at the start value "
           f"{[float(x0[k]) for k in flat]}, where the criterion is flat (gradient 0 relative "
           f"to its value): the result is the start point, not a minimum")
    if any(n.startswith("log_sigma2") for n in names):
        scale = data_scale(X)
        msg += (f". The kernel is numerically constant there: the mean squared distance between "
                f"rows is {scale:.3g} (ln = {np.log(scale):.3g}), far from sigma^2 = "
                f"{np.exp(x0[flat[-1]]):.3g}; standardise the features (StandardScaler, or "
                f"--scale on the command line) or give start/bounds for ln sigma^2 near "
                f"{np.log(scale / 2):.3g}" if scale > 0 else "")
    warnings.warn(msg, SearchWarning, stacklevel=3)


class BoundSVC(ClassifierMixin, BaseEstimator):
    """Binary SVM whose C and kernel parameters are tuned by minimising a leave-one-out bound.

    Parameters
    ----------
    loss : 'l2' | 'l1'
        L2-SVM (squared hinge, Chung 1.7) or L1-SVM (hinge, Chung 1.5; the usual SVC).
    criterion : str
        'radius-margin' (the default bound of the loss) or a criterion name from
        ``svmbound.criteria.CRITERIA``.
    kernel : 'rbf' | 'linear' | 'poly' | 'ard' | 'ard-poly'
        'ard' is the RBF kernel with one σ_k² per feature, exp(−Σ(x_k − z_k)²/(2σ_k²)), and
        'ard-poly' the scaled polynomial (1 + Σ x_k z_k/σ_k²)^degree (Chapelle §7.3, §8); both
        tune ln C and every ln σ_k² (or one per group, see ``groups``).
    search : 'bfgs' | 'lbfgsb' | 'projected-gradient' | 'grid' | 'annealing' | 'convex'
        'bfgs': projected BFGS of Chung §4.2. 'lbfgsb' / 'projected-gradient': SciPy's L-BFGS-B
        / projected gradient steps (Chapelle §5), for many parameters (ARD). 'grid': an
        exhaustive grid over (ln C, kernel parameter). 'annealing': Acevedo's adaptive simulated
        annealing (§3) — any criterion, differentiable or not, and an integer degree.
        'convex': C of the L2-SVM by De Bie's convex criterion at the kernel of ``start``
        (``criterion`` is not used).
    grid : dict or None
        For search='grid': {"log_C": (begin, end, step), "<kernel param>": (begin, end, step)};
        default: the box with step 1.
    start : array or None
        Start point in θ = (ln C, kernel θ); default (0, 0) for the RBF kernel, 0 for every
        ARD ln σ_k². For search='annealing' the default is Acevedo's uniform random start.
    bounds : (lower, upper) or one pair per parameter, or None for [−10, 10] (Chung §4.2).
    degree : int, or (low, high) / 'auto' (= 1..10) to search the polynomial degree by annealing.
    coef0 : start value of the polynomial kernel's c (tuned).
    groups : None, or an int array mapping each feature to a group that shares one σ² (ARD
        kernels only; e.g. ``svmbound.kernels_ard.tile_groups``, Chapelle Fig. 4).
    tol : solver tolerance of criterion evaluations (Chung §4.3 uses 1e-6).
    max_iter : maximal iterations of the gradient searches.
    max_epochs : epochs (evaluations after the start) of the annealing search (Acevedo §3).
    gtol : gradient searches stop when the projected gradient is below gtol·|f(start)|
        (relative, because the criterion's gradient is only as accurate as the solver
        tolerance, Chung §4.3).
    cache_size : kernel-row cache in MB, or "auto" (a quarter of the memory, 200 MB to 4 GB).
    random_state : seed for every random choice (annealing, validation splits, CV folds).
    verbose : progress on stderr when > 0.

    Attributes
    ----------
    classes_, best_params_ (C, gamma, sigma2 / degree, coef0 …), best_theta_, best_value_,
    search_ (the search result with its path), n_trainings_ (SVM solves, final training
    included), support_, support_vectors_, dual_coef_ (α_i y_i), intercept_, alpha_,
    n_support_, kernel_.
    """

    def __init__(self, loss="l2", criterion="radius-margin", kernel="rbf", search="bfgs",
                 start=None, bounds=None, grid=None, degree=3, coef0=1.0, groups=None, tol=1e-6,
                 max_iter=100, max_epochs=200, gtol=1e-4,
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
        self.groups = groups
        self.tol = tol
        self.max_iter = max_iter
        self.max_epochs = max_epochs
        self.gtol = gtol
        self.cache_size = cache_size
        self.random_state = random_state
        self.verbose = verbose

    # -- fitting -------------------------------------------------------------------------
    def _validate(self):
        check_loss(self.loss)
        check_kernel_name(self.kernel)
        check_search(self.search)
        split_degree(self.degree, self.kernel, self.search)
        cls = criterion_class(self.criterion, self.loss)
        if self.search in ("bfgs", "lbfgsb", "projected-gradient") and not cls.differentiable:
            raise ValueError(f"criterion {cls.name!r} is not differentiable; search="
                             f"{self.search!r} cannot minimise it — use the grid or annealing "
                             "search")
        if self.search == "convex" and self.loss != "l2":
            raise ValueError("search='convex' (De Bie et al.) tunes C of the L2-SVM only; "
                             "use loss='l2'")
        return cls

    def make_criterion(self, X, y_pm):
        """The criterion object this estimator minimises, on ±1 labels."""
        from .criteria import make_criterion

        cls = self._validate()
        degree, _ = split_degree(self.degree, self.kernel, self.search)
        kernel = base_kernel(self.kernel, degree, self.coef0, X.shape[1], self.groups)
        return make_criterion(cls.name, X, y_pm, kernel, loss=self.loss,
                              random_state=self.random_state, tol=self.tol,
                              cache_size=self.cache_size)

    def _grid_axes(self, param_names, lower, upper):
        from .search.grid import grid_axis

        if len(param_names) not in (1, 2):
            raise ValueError(f"search='grid' needs one or two parameters, the {self.kernel} "
                             f"kernel gives {len(param_names)}")
        if self.grid is not None and not isinstance(self.grid, dict):
            raise ValueError(f"grid must be a dict {{parameter: (begin, end, step)}} with "
                             f"parameters {param_names}, got {self.grid!r}")
        spec = {} if self.grid is None else dict(self.grid)
        unknown = set(spec) - set(param_names)
        if unknown:
            raise ValueError(f"grid keys {sorted(unknown)} are not parameters; valid: {param_names}")
        return [grid_axis(spec.get(p, (lo, hi, 1.0)), f"grid[{p!r}]")
                for p, lo, hi in zip(param_names, lower, upper)]

    def _check_max(self, value, name):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        return int(value)

    def _run_search(self, crit, X, y_pm, lower, upper, x0, callback):
        """Minimise the criterion with the chosen search; returns (result, θ)."""
        from .search import (minimize_annealing, minimize_grid, minimize_grid_1d, minimize_lbfgsb,
                             minimize_projected_bfgs, minimize_projected_gradient, tune_c_convex)
        from .search.space import SearchSpace, criterion_objective

        search = self.search
        if search == "grid":
            axes = self._grid_axes(crit.param_names, lower, upper)
            result = (minimize_grid(crit, *axes) if len(axes) == 2 else
                      minimize_grid_1d(crit, axes[0]))
            return result, np.asarray(result.x, dtype=float).copy()
        if search == "annealing":
            _, degree_range = split_degree(self.degree, self.kernel, self.search)
            box = {p: (lo, hi) for p, lo, hi in zip(crit.param_names, lower, upper)}
            start = None if self.start is None else x0
            if degree_range is not None:
                box["degree"] = degree_range
                if start is not None:
                    start = np.append(start, crit.kernel.degree)
            space = SearchSpace.from_bounds(box)
            obj = criterion_objective(crit, space)
            result = minimize_annealing(obj, space, max_epochs=self._check_max(
                self.max_epochs, "max_epochs"), random_state=self.random_state, x0=start,
                callback=callback)
            return result, obj.apply(result.x)
        if search == "convex":
            result = tune_c_convex(X, y_pm, crit.split_theta(x0)[1])
            log_c = float(result.x[0])
            if not np.isfinite(log_c):
                C = result.convex.C
                log_c = upper[0] if C == np.inf else lower[0]
                warnings.warn(f"{result.message}; using ln C = {log_c:g}, the end of the box",
                              RuntimeWarning, stacklevel=3)
            theta = x0.copy()
            theta[0] = min(max(log_c, lower[0]), upper[0])
            return result, theta
        max_iter = self._check_max(self.max_iter, "max_iter")
        if search == "bfgs":
            result = minimize_projected_bfgs(crit.fun, crit.grad, x0, lower, upper,
                                             max_iter=max_iter, gtol_rel=self.gtol,
                                             callback=callback)
        else:
            # gtol relative to |f(start)| as for BFGS (the start is evaluated again by the
            # search; the criterion answers the gradient from this evaluation).
            gtol = self.gtol * max(abs(crit.fun(x0)), np.finfo(float).tiny)
            minimize = minimize_lbfgsb if search == "lbfgsb" else minimize_projected_gradient
            result = minimize(crit.fun, crit.grad, x0, lower, upper, max_iter=max_iter,
                              gtol=gtol, callback=callback)
        return result, np.asarray(result.x, dtype=float).copy()

    def fit(self, X, y):
        t0 = time.perf_counter()
        X = check_X(X)
        y_pm, self.classes_ = check_binary_y(y, X.shape[0])
        self.n_features_in_ = X.shape[1]
        degenerate = warn_if_degenerate(X)
        crit = self.make_criterion(X, y_pm)
        lower, upper, x0 = box_and_start(crit.param_names, self.bounds, self.start)

        callback = None
        if self.verbose:
            def callback(xk, fk):
                print(f"[svmbound] iter: theta={np.round(xk, 4).tolist()} value={fk:.6g} "
                      f"trainings={crit.n_trainings} {time.perf_counter() - t0:.1f}s",
                      file=sys.stderr, flush=True)
        result, theta = self._run_search(crit, X, y_pm, lower, upper, x0, callback)
        if not degenerate:
            _warn_flat_start(result, x0, crit.param_names, X)
        self.search_ = result
        self.criterion_name_ = "de-bie-convex" if self.search == "convex" else crit.name

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
        if not final.converged:
            warnings.warn(f"the final SVM at C={C:.6g} stopped at the iteration cap with a KKT "
                          f"violation of {final.max_violation:.3g} > tol={self.tol:g}",
                          ConvergenceWarning, stacklevel=2)
        self.c_projected_ = False
        if self.loss == "l1" and final.bounded.size == 0 and final.alpha.max() > 0:
            C = float(final.alpha.max())
            theta[0] = np.log(C)
            final.C = C
            self.c_projected_ = True
        n_search = result.nfev if self.search == "convex" else crit.n_trainings
        self.n_trainings_ = n_search + 1
        self.best_theta_ = theta
        self.best_value_ = float(result.fun)
        self.best_params_ = {"C": C, **kernel.get_params()}
        if "sigma2" in self.best_params_ and "degree" not in self.best_params_:  # RBF, ARD RBF
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
        return (self.kernel_.block_dot(X, self.support_vectors_, self.dual_coef_[0])
                + self.intercept_[0])

    def predict(self, X):
        """``classes_[1]`` where the decision function is positive, else ``classes_[0]``
        (``NotFittedError`` before ``fit``, as ``decision_function``)."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
