"""Feature selection by optimised scaling factors (Chapelle et al. 2002 §8), and the filters it is
compared with (§8.1).

``ScalingSelector`` — Chapelle §8, steps 1–6::
    1. initialise the scaling factors θ = (1, …, 1);
    2. in principal-component space: perform PCA (``space='pca'``);
    3. solve the SVM;
    4. minimise the error estimate T (R²/γ² or the span bound) over θ by gradient steps;
    5. until a local minimum of T is reached, go to 3   (3–5 = one L-BFGS-B run, which solves one
       SVM per evaluation);
    6. discard the dimensions with the smallest scaling factors and return to 2 (keeping the
       factors of the remaining ones), until ``n_features_to_select`` are left; then 3–5 once
       more on the kept dimensions (so ``scaling_factors_``, ``C_`` and ``kernel_`` describe the
       final machine).

The kernel is K_θ(x, z) = k(θ ∘ x̃, θ ∘ z̃) with θ_k = 1/σ_k (Chapelle's K(θᵀx, θᵀz)), realised as
``svmbound.kernels.ard.ScaledPolynomialKernel`` (kernel 'linear' = degree 1, 'poly') or
``ARDRBFKernel`` ('rbf') with θ_k = ln σ_k² searched in [−10, 10] together with ln C (unless C is
fixed). x̃ is the working-space vector: the input standardised with the training mean and
standard deviation (``standardize=True``; constant features get scale 1), divided by √d₀ (d₀ the
number of working dimensions at the start, Chapelle §7.2's 2nσ² normalisation), so that all the
factors start at 1 with a kernel of sensible width and a factor is comparable between features.
In ``space='pca'`` x̃ are the principal-component scores of the standardised data (whitened to
unit variance when ``standardize=True``), and ``get_support``/``transform``/``ranking_``/
``scaling_factors_`` refer to the **components** (rows of ``components_``), not input features.

``FilterSelector`` and the score functions ``pearson_scores``, ``fisher_scores``, ``ks_scores``
are the three filters of Chapelle §8.1 (footnotes 4 and 5).
"""

from __future__ import annotations

import math
import numbers
import time
from numbers import Integral, Real

import numpy as np
from scipy import stats
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._sparse import reject_sparse
from ._validation import check_binary_y, check_class_y
from .criteria import criterion_class
from .criteria.pairs import pairwise_criterion
from .kernels.ard import ARDRBFKernel, ScaledPolynomialKernel
from .search.gradient import minimize_lbfgsb, minimize_projected_gradient
from .solvers import Problem

__all__ = ["ScalingSelector", "FilterSelector", "pearson_scores", "fisher_scores", "ks_scores",
           "FILTER_SCORES"]

KERNELS = ("linear", "poly", "rbf")
SPACES = ("input", "pca")
SEARCHES = ("lbfgsb", "projected-gradient")


# --------------------------------------------------------------------------------------------
# filters (Chapelle §8.1)
# --------------------------------------------------------------------------------------------
def _xy(X, y):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinity")
    y_pm, _ = check_binary_y(y, X.shape[0])
    return X, y_pm


def pearson_scores(X, y) -> np.ndarray:
    """|Pearson correlation coefficient| between every feature and the label (y as ±1).
    A constant feature scores 0."""
    X, y = _xy(X, y)
    Xc = X - X.mean(axis=0)
    yc = y - y.mean()
    num = yc @ Xc
    den = np.sqrt((Xc * Xc).sum(axis=0) * (yc @ yc))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return np.abs(r)


def fisher_scores(X, y) -> np.ndarray:
    """Chapelle footnote 4: F(r) = |(μ_r⁺ − μ_r⁻)/(σ_r⁺ + σ_r⁻)|, with the class means and
    standard deviations (ddof = 0) of feature r. 0/0 scores 0; a non-zero difference of
    means with σ⁺ + σ⁻ = 0 scores inf."""
    X, y = _xy(X, y)
    P, N = X[y > 0], X[y < 0]
    diff = np.abs(P.mean(axis=0) - N.mean(axis=0))
    den = P.std(axis=0) + N.std(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, diff / np.where(den > 0, den, 1.0),
                        np.where(diff > 0, np.inf, 0.0))


def ks_scores(X, y, *, one_sided: bool = False) -> np.ndarray:
    """Chapelle footnote 5: KS(r) = √ℓ · sup_t |P̂{X_r ≤ t} − P̂{X_r ≤ t | y = 1}|.

    P̂{X ≤ t} − P̂{X ≤ t | y = 1} = (ℓ₋/ℓ)(F̂₋(t) − F̂₊(t)) exactly for the empirical distribution
    functions, so KS(r) = √ℓ (ℓ₋/ℓ) D_r with D_r the two-sample Kolmogorov–Smirnov statistic of
    the two classes (``scipy.stats.ks_2samp``). The footnote writes sup(·) without the absolute
    value; ``one_sided=True`` gives that literal version (which scores 0 a feature whose values
    are smaller in the positive class), the default the two-sided one.
    """
    X, y = _xy(X, y)
    n = y.size
    P, N = X[y > 0], X[y < 0]
    alt = "greater" if one_sided else "two-sided"
    # ks_2samp(N, P, 'greater') has statistic max(F̂₋ − F̂₊)
    D = np.atleast_1d(stats.ks_2samp(N, P, alternative=alt, axis=0, method="asymp").statistic)
    return math.sqrt(n) * (N.shape[0] / n) * np.asarray(D, dtype=np.float64)


FILTER_SCORES = {"pearson": pearson_scores, "fisher": fisher_scores, "ks": ks_scores}


def _n_to_select(k, d: int) -> int:
    if k is None:
        return max(1, d // 2)
    if isinstance(k, bool) or not isinstance(k, numbers.Real):
        raise ValueError(f"n_features_to_select must be an int >= 1, a fraction in (0, 1) or None, "
                         f"got {k!r}")
    if isinstance(k, numbers.Integral) or float(k).is_integer() and k >= 1:
        k = int(k)
        if k < 1:
            raise ValueError(f"n_features_to_select must be >= 1, got {k}")
        if k > d:
            raise ValueError(f"n_features_to_select={k} is larger than the number of features "
                             f"({d})")
        return k
    if 0 < k < 1:
        return max(1, int(round(k * d)))
    raise ValueError(f"n_features_to_select must be an int >= 1 or a fraction in (0, 1), got {k!r}")


class FilterSelector(SelectorMixin, BaseEstimator):
    """Keep the ``n_features_to_select`` features with the largest filter score (Chapelle §8.1).

    Parameters
    ----------
    score : 'pearson' | 'fisher' | 'ks' or a callable ``score(X, y) -> array of d``
    n_features_to_select : int, fraction in (0, 1), or None (half)

    Attributes
    ----------
    scores_, support_, ranking_ (1 = best score), n_features_in_.
    """

    def __init__(self, score="fisher", n_features_to_select=None):
        self.score = score
        self.n_features_to_select = n_features_to_select

    def fit(self, X, y):
        reject_sparse(X, "FilterSelector")
        X, y = validate_data(self, X, y, dtype=np.float64)
        if callable(self.score):
            fn = self.score
        elif self.score in FILTER_SCORES:
            fn = FILTER_SCORES[self.score]
        else:
            raise ValueError(f"unknown score {self.score!r}; valid scores: "
                             f"{', '.join(FILTER_SCORES)} or a callable")
        d = X.shape[1]
        k = _n_to_select(self.n_features_to_select, d)
        scores = np.asarray(fn(X, y), dtype=np.float64)
        if scores.shape != (d,):
            raise ValueError(f"score returned shape {scores.shape}, expected ({d},)")
        order = np.argsort(-np.nan_to_num(scores, nan=-np.inf), kind="stable")
        self.scores_ = scores
        self.ranking_ = np.empty(d, dtype=np.int64)
        self.ranking_[order] = np.arange(1, d + 1)
        self.support_ = self.ranking_ <= k
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_


# --------------------------------------------------------------------------------------------
# Chapelle §8
# --------------------------------------------------------------------------------------------
class ScalingSelector(SelectorMixin, BaseEstimator):
    """Feature selection by minimising a leave-one-out bound over one scaling factor per feature
    (Chapelle et al. 2002 §8, steps 1–6; see the module docstring).

    Three or more classes: the criterion minimised is the SUM of the binary criterion over the
    k(k−1)/2 one-vs-one class pairs, all at the same θ (one C and one set of scaling factors,
    so one feature subset for every class) — ``svmbound.criteria.pairs.PairwiseSum``, the
    objective of ``BoundSVC``'s shared one-vs-one θ. Why one-vs-one and not one-vs-rest: the
    summed pair bounds bound the leave-one-out error of the one-vs-one voting machine (a point
    misclassified by voting is misclassified by at least one of its pair machines), the
    machine ``BoundSVC`` and SVC train on the selected features; one-vs-rest problems are
    unbalanced (one class against k − 1) and their sum bounds no such voting error. Two
    classes: the binary criterion, unchanged.

    Parameters
    ----------
    n_features_to_select : int, fraction in (0, 1), or None (half of the working dimensions)
    criterion : 'rm-l2' (R²/γ² = R̃²‖w̃‖² of the L2-SVM, Chapelle's recommendation) | 'span'
        (the smoothed span bound, gradient by kernel contraction) | any other differentiable
        criterion name of ``svmbound.criteria`` (e.g. 'rm-l2-2.5', 'rm-l1').
    kernel : 'rbf' (default) | 'linear' | 'poly'
        The RBF kernel sees nonlinear relevance: on Chapelle's nonlinear toy problem (§8.1,
        100 points) it finds the two relevant features for 10 of 10 seeds where the linear
        kernel finds them for none (issue 12; ``tests/test_ard.py``). Chapelle §8.1 uses the
        linear kernel for the linear toy problem (still available, ``kernel='linear'``) and the
        polynomial of degree 2 for the nonlinear one; §7.3 also the RBF.
    degree : int, degree of 'poly'.
    space : 'input' | 'pca'
        Scale (and select) input features, or principal components (Chapelle §8, §8.3).
    step : int >= 1 or float in (0, 1)
        Dimensions discarded per round (step 6): that many, or that fraction of the remaining
        ones (at least 1), never going below ``n_features_to_select``.
    C : 'auto', None or float > 0
        None: ln C is optimised with the factors (Chapelle §9, non-separable case); a number:
        C fixed. 'auto' (default): tuned, except for kernel='linear', where C = 1 is fixed
        because ln C is redundant there: with K̃ = K_θ/s + I/C, R̃²‖w̃‖² (and every criterion that
        depends on the kernel only through K̃ up to scale) is invariant under σ² → sσ², C → C/s,
        so the common scale of the factors already plays the role of C, and tuning both leaves
        a flat valley along which the search drifts to huge C (slow, ill-conditioned solves).
    standardize : bool
        Standardise the inputs (training mean and std) before scaling; with space='pca', whiten
        the component scores.
    n_components : int or None
        space='pca' only: number of components (default min(n_samples − 1, n_features)).
    search : 'lbfgsb' | 'projected-gradient'
    max_iter : int, iterations of the search per round (default 30; Chapelle §7.1: a loose
        stop is enough — the ranking, not the exact minimiser, matters).
    bounds : (lower, upper) for ln σ_k² (relative to the start 0), or 'auto' (default):
        (−5 − ln D, 10) for the linear kernel, with D the working dimensions (the data are
        scaled by √D, so one feature alone needs a factor of about √D times the start to carry
        the classifier — 84× for D = 7129 genes; a box of e^2.5 ≈ 12× then leaves every factor on
        the bound and the ranking to feature order, see docs/lab-notebook.md, Golub), and (−5, 10)
        for the other kernels. With (−5, 10) a factor
        can shrink by e⁵ ≈ 150 (what selection needs) but grow only by e^2.5 ≈ 12. With
        factors e⁵ times the start (lower bound −10) the polynomial kernel reaches ~10⁸ and
        the L2-SVM solves stop converging within 10⁷ SMO iterations (seconds each).
    log_C_bounds : (lower, upper) for ln C, or None for ``bounds``; default (−10, 5): near the
        hard-margin end (ln C ≈ 10) the SMO needs ~10⁶ iterations (over a second) per solve
        with the polynomial kernel, and the span bound tends to go there.
    tol : float, solver tolerance of each criterion evaluation.
    random_state : None, int or RandomState — not used (the procedure is deterministic); kept so
        that benchmark code can pass one seed everywhere.
    verbose : int

    Attributes
    ----------
    support_ : bool mask over the working dimensions (input features, or components)
    ranking_ : int per dimension; 1 = kept; then 2, 3, … in reverse order of elimination (the
        last dimension discarded has rank 2; within a round, larger factor = smaller rank)
    scaling_factors_ : float per dimension, 1/σ_k relative to the start (all start at 1): the
        final factor for kept dimensions, the factor at elimination for the others (0 for a
        dimension constant over the training rows: it carries nothing and goes first)
    C_ : C of the final machine; kernel_ : its ARD kernel over the kept dimensions (acting on
        ``transform_working(X)``); criterion_value_ : final value of the criterion
    history_ : list of dicts, one per round: n_features, features (working indices), theta,
        value, C, scaling_factors, nfev, nit, message, removed, time_s
    classes_ : the class labels (two, or three and more: summed one-vs-one criteria)
    components_ (pca only), mean_, scale_, base_scale_ (√d₀), n_features_in_,
        feature_names_in_ (fitted on a DataFrame with string column names), n_evaluations_ (criterion evaluations = SVM trainings), n_iter_ (search iterations,
        all rounds), n_rounds_
    """

    #: scikit-learn's parameter validation, run at the start of ``fit``: a wrong type or value
    #: is an ``InvalidParameterError`` (a ValueError) naming the parameter; ``_check_params``
    #: then checks what one constraint cannot say (a differentiable criterion, the boxes).
    _parameter_constraints: dict = {
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"),
                                 Interval(Real, 0, 1, closed="neither"), None],
        "criterion": [str],
        "kernel": [StrOptions(set(KERNELS))],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "space": [StrOptions(set(SPACES))],
        "step": [Interval(Integral, 1, None, closed="left"),
                 Interval(Real, 0, 1, closed="neither")],
        "C": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither"), None],
        "standardize": ["boolean"],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "search": [StrOptions(set(SEARCHES))],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "bounds": [StrOptions({"auto"}), "array-like"],
        "log_C_bounds": ["array-like", None],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_features_to_select=None, *, criterion="rm-l2", kernel="rbf",
                 degree=2, space="input", step=0.5, C="auto", standardize=True, n_components=None,
                 search="lbfgsb", max_iter=30, bounds="auto", log_C_bounds=(-10.0, 5.0),
                 tol=1e-6,
                 random_state=None, verbose=0):
        self.n_features_to_select = n_features_to_select
        self.criterion = criterion
        self.kernel = kernel
        self.degree = degree
        self.space = space
        self.step = step
        self.C = C
        self.standardize = standardize
        self.n_components = n_components
        self.search = search
        self.max_iter = max_iter
        self.bounds = bounds
        self.log_C_bounds = log_C_bounds
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    # -- checks -----------------------------------------------------------------------------
    def _check_params(self):
        self._validate_params()
        crit_cls = criterion_class(self.criterion, task="classification")
        if not crit_cls.differentiable:
            raise ValueError(f"criterion {self.criterion!r} is not differentiable; the "
                             "scaling factors need a gradient (use 'rm-l2' or 'span')")
        if isinstance(self.bounds, str):     # 'auto'
            b = np.array([-5.0, 10.0])
        else:
            try:
                b = np.asarray(self.bounds, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"bounds must be 'auto' or (lower, upper), got "
                                 f"{self.bounds!r}") from None
        if b.shape != (2,) or not np.all(np.isfinite(b)) or b[0] >= 0 or b[1] <= 0:
            raise ValueError(f"bounds must be (lower, upper) with lower < 0 < upper, got "
                             f"{self.bounds!r}")
        cb = b if self.log_C_bounds is None else np.asarray(self.log_C_bounds, dtype=np.float64)
        if cb.shape != (2,) or not np.all(np.isfinite(cb)) or cb[0] >= cb[1]:
            raise ValueError(f"log_C_bounds must be (lower, upper) with lower < upper, got "
                             f"{self.log_C_bounds!r}")
        self._log_C_box = (float(cb[0]), float(cb[1]))
        return crit_cls, b

    def _make_kernel(self, d: int):
        ones = np.ones(d)
        if self.kernel == "rbf":
            return ARDRBFKernel(ones)
        degree = 1 if self.kernel == "linear" else self.degree
        return ScaledPolynomialKernel(ones, degree)

    # -- working space ----------------------------------------------------------------------
    def _fit_space(self, X):
        n, d = X.shape
        self.mean_ = X.mean(axis=0)
        if self.standardize:
            sd = X.std(axis=0)
            self.scale_ = np.where(sd > 0, sd, 1.0)
        else:
            self.scale_ = np.ones(d)
        Z = (X - self.mean_) / self.scale_
        if self.space == "pca":
            n_comp = self.n_components
            max_comp = max(1, min(n - 1, d))
            if n_comp is None:
                n_comp = max_comp
            if isinstance(n_comp, bool) or int(n_comp) != n_comp or not 1 <= n_comp <= min(n, d):
                raise ValueError(f"n_components must be an integer in [1, {min(n, d)}], got "
                                 f"{self.n_components!r}")
            _, s, Vt = np.linalg.svd(Z, full_matrices=False)
            self.components_ = Vt[:int(n_comp)]
            var = s[:int(n_comp)] ** 2 / max(n - 1, 1)
            self.explained_variance_ = var
            if self.standardize:
                tiny = var <= 1e-12 * max(var.max(), 1e-300)
                self.pc_scale_ = np.where(tiny, 1.0, np.sqrt(np.where(tiny, 1.0, var)))
            else:
                self.pc_scale_ = np.ones(int(n_comp))
            Z = (Z @ self.components_.T) / self.pc_scale_
        self.base_scale_ = math.sqrt(Z.shape[1])
        return Z / self.base_scale_

    def transform_working(self, X) -> np.ndarray:
        """All working-space coordinates x̃ of X (standardised / PCA scores, divided by √d₀)."""
        check_is_fitted(self, "support_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Z = (X - self.mean_) / self.scale_
        if self.space == "pca":
            Z = (Z @ self.components_.T) / self.pc_scale_
        return Z / self.base_scale_

    def transform_scaled(self, X) -> np.ndarray:
        """θ ∘ x̃ over the kept dimensions: the data on which the final machine is the isotropic
        kernel (``kernel_.spec()``): linear/poly with coef0 = 1, or RBF with γ = ½."""
        return self.kernel_.prepare(self.transform_working(X)[:, self.support_])

    # -- fit ----------------------------------------------------------------------------------
    def fit(self, X, y):
        reject_sparse(X, "ScalingSelector (feature scaling in the PCA space of X)")
        crit_cls, (lo, hi) = self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        y_idx, classes = check_class_y(y, X.shape[0])
        if classes.size == 2:
            y_pm, self.classes_ = check_binary_y(y, X.shape[0])

            def make_crit(Zs, kernel):
                return crit_cls(Problem(Zs, y_pm), kernel, tol=float(self.tol))
        else:   # one-vs-one pairs, their criteria summed at one θ (class docstring)

            self.classes_ = classes

            def make_crit(Zs, kernel):
                return pairwise_criterion(crit_cls.name, Problem(Zs, y_idx), kernel,
                                          n_classes=classes.size, tol=float(self.tol))
        Z = self._fit_space(X)
        D = Z.shape[1]
        k = _n_to_select(self.n_features_to_select, D)
        if isinstance(self.bounds, str) and self.kernel == "linear":
            lo = -5.0 - math.log(D)
        if isinstance(self.C, str):           # 'auto'
            tune_C = self.kernel != "linear"
            fixed_C = None if tune_C else 1.0
        else:
            tune_C = self.C is None
            fixed_C = None if tune_C else float(self.C)
        log_C = 0.0 if tune_C else math.log(fixed_C)

        def C_of(lc):
            return math.exp(lc) if tune_C else fixed_C

        active = np.arange(D)
        theta = np.zeros(D)                      # ln σ_k², all factors 1 (step 1)
        factors = np.ones(D)
        # a dimension constant over the rows carries nothing: its gradient is 0, so its factor
        # would stay at 1 and outlive informative ones; it gets factor 0 and goes first
        constant = np.ptp(Z, axis=0) == 0.0
        elim_round = np.full(D, -1)
        history = []
        n_eval = 0
        rnd = 0
        while True:
            t0 = time.perf_counter()
            kernel = self._make_kernel(active.size)
            crit = make_crit(Z[:, active], kernel)
            x0 = np.concatenate([[log_C], theta[active]]) if tune_C else theta[active].copy()

            if tune_C:
                fun, grad = crit.fun, crit.grad
            else:
                def fun(z, _c=crit):
                    return _c.fun(np.concatenate([[log_C], z]))

                def grad(z, _c=crit):
                    return _c.grad(np.concatenate([[log_C], z]))[1:]
            if tune_C:
                lower = np.r_[self._log_C_box[0], np.full(active.size, lo)]
                upper = np.r_[self._log_C_box[1], np.full(active.size, hi)]
            else:
                lower, upper = np.full(active.size, lo), np.full(active.size, hi)
            x0 = np.clip(x0, lower, upper)
            opts = dict(max_iter=int(self.max_iter), record_path=False)
            if self.search == "lbfgsb":
                res = minimize_lbfgsb(fun, grad, x0, lower, upper, ftol=1e-6, gtol=1e-6, **opts)
            else:
                res = minimize_projected_gradient(fun, grad, x0, lower, upper, ftol=1e-6, **opts)
            n_eval += res.nfev
            if tune_C:
                log_C = float(res.x[0])
                theta[active] = res.x[1:]
            else:
                theta[active] = res.x
            factors[active] = np.where(constant[active], 0.0, np.exp(-0.5 * theta[active]))
            entry = {"round": rnd, "n_features": int(active.size), "features": active.copy(),
                     "theta": np.concatenate([[log_C], theta[active]]), "value": float(res.fun),
                     "C": C_of(log_C), "scaling_factors": factors[active].copy(),
                     "nfev": int(res.nfev), "nit": int(res.nit), "message": res.message,
                     "removed": np.empty(0, dtype=np.int64)}
            if active.size <= k:
                entry["time_s"] = time.perf_counter() - t0
                history.append(entry)
                break
            if isinstance(self.step, numbers.Integral):
                n_remove = int(self.step)
            else:
                n_remove = max(1, int(self.step * active.size))
            n_remove = min(n_remove, active.size - k)
            order = np.argsort(factors[active], kind="stable")   # smallest factors first
            removed = active[order[:n_remove]]
            elim_round[removed] = rnd
            entry["removed"] = removed
            entry["time_s"] = time.perf_counter() - t0
            history.append(entry)
            if self.verbose:
                print(f"[ScalingSelector] round {rnd}: {active.size} dims, T = {res.fun:.6g}, "
                      f"{res.nfev} evaluations, removing {n_remove}", flush=True)
            active = np.sort(active[order[n_remove:]])
            rnd += 1

        support = np.zeros(D, dtype=bool)
        support[active] = True
        # ranking: kept = 1; then later-eliminated first, larger factor first within a round
        others = np.flatnonzero(~support)
        order = sorted(others, key=lambda j: (-elim_round[j], -factors[j], j))
        ranking = np.ones(D, dtype=np.int64)
        ranking[np.asarray(order, dtype=np.int64)] = np.arange(2, 2 + len(order))
        self.support_ = support
        self.ranking_ = ranking
        self.scaling_factors_ = factors
        self.C_ = C_of(log_C)
        self.kernel_ = kernel.with_theta(theta[active])
        self.criterion_value_ = history[-1]["value"]
        self.history_ = history
        self.n_evaluations_ = n_eval
        self.n_iter_ = int(sum(h["nit"] for h in history))
        self.n_rounds_ = len(history)
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def transform(self, X):
        """The selected input features (space='input') or the selected principal-component
        scores (space='pca', standardised/whitened as in fit, not divided by √d₀)."""
        if self.space != "pca":
            return super().transform(X)
        return self.transform_working(X)[:, self.support_] * self.base_scale_

    def inverse_transform(self, X):
        if self.space == "pca":
            raise NotImplementedError("inverse_transform is not available with space='pca'")
        return super().inverse_transform(X)

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self, "support_")
        if self.space == "pca":
            return np.array([f"pc{j}" for j in np.flatnonzero(self.support_)], dtype=object)
        return super().get_feature_names_out(input_features)
