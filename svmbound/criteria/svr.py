"""Leave-one-out estimates and validation errors for ε-SVR (``solvers.svr``), over
θ = (ln C, kernel θ…, ln ε).

The span of a support vector, for regression (Vapnik & Chapelle 2000; Chang & Lin, "Leave-one-out
bounds for support vector regression model selection", Neural Computation 17(5), 2005). Write the
L2-SVR (loss ½‖w‖² + (C/2)Σ(ξ² + ξ*²)) on the l points with β = α − α*: min ½βᵀK̃β + ε‖β‖₁ − zᵀβ,
Σβ = 0, K̃ = K + diag(1/C_i), a hard-margin problem whose support vectors (β_p ≠ 0) all satisfy
the KKT equations f̃(x_p) = z_p − ε s_p, s_p = sign β_p, with f̃ = K̃β + b. With a_p = |β_p| this is
Chapelle's §6.3 system H (a, b) = (s∘z − ε, 0), H = [[K̃^S, s], [sᵀ, 0]], K̃^S = S K̃ S. If the set
of support vectors does not change when x_p is left out, the model trained without it predicts
there f^p(x_p) = f̃(x_p) − β_p S_p², S_p² = 1/(M̃⁻¹)_pp, M̃ = [[K̃_SV, 1], [1ᵀ, 0]] (the span, Chapelle
eq. 12), so its leave-one-out residual is

    z_p − f^p(x_p) = s_p (ε + a_p S_p²),

while a point that is not a support vector keeps its residual z_i − f(x_i), |z_i − f(x_i)| ≤ ε.

* ``SVRSpanEstimate`` ["svr-span-exact"]: (1/l) [Σ_SV (ε + a_p S_p²)² + Σ_other (z_i − f(x_i))²],
  the leave-one-out mean squared error when the support set does not change (exact there).
* ``SVRSpanBound`` ["svr-span"]: the same with the regularised span of Chapelle §6.4
  (S̃_p² = 1/((M̃ + D)⁻¹)_pp − D_pp, D = diag(η/a_p, 0), η = 0.1) and each non-support vector's
  residual replaced by its bound ε: (1/l) [Σ_SV (ε + a_p S̃_p²)² + (l − n_SV) ε²]. Continuous
  where a point enters the support set (a_p → 0 gives ε² on both sides) and differentiable:
  with c_p = 2(ε + a_p S̃_p²)/l, ∂/∂θ = Σ_p c_p ∂(a_p S̃_p²)/∂θ (+ the ε terms), assembled as the
  classifier's span bound (``span.span_sum_adjoint``): ∂(a, b)/∂θ = −H⁻¹(∂H/∂θ)(a, b) for the
  kernel and ln C (∂K̃/∂ln C = −diag(1/C_i)), and H ∂(a, b)/∂ln ε = (−ε·1, 0).
* ``SVRCrossValidation`` ["svr-cv"]: the k-fold CV mean squared error (KFold, shuffled) of the
  loss's SVR — the default strategy's validation; ``svr-loo``: the exact LOO mean squared
  error (reference, l trainings).

Per-sample weights (C_i = C·w_i): the errors are averaged with the relative weights w_i/w̄.
"""

from __future__ import annotations

import numpy as np

from .._parallel import parallel_map
from ..kernels import Kernel
from ..kernels.derivatives import derivative_contraction
from ..solvers.svm import check_loss
from ..solvers.svr import SVRSolution, solve_svr_dual, svr_predict
from .base import Criterion, _kernel_key
from .radius_margin import shifted_radius
from .reference import check_folds
from .span_algebra import (HyperplaneSolver, alpha_b_adjoint, span_squared, span_sum_adjoint,
                           span_weight_matrix)

__all__ = ["SVRCriterion", "SVRSpanBound", "SVRSpanEstimate", "SVRRadiusMargin", "SVRCrossValidation",
           "SVRLeaveOneOut", "check_targets", "kfolds"]


def check_targets(y, n: int) -> np.ndarray:
    """Real regression targets: n finite numbers whose squared errors add up in float64
    (n·max|y|² below its largest number), else a ValueError naming the problem."""
    try:
        z = np.asarray(y, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"Unknown label type: regression targets must be numbers, got "
                         f"{np.asarray(y).dtype} values such as {np.asarray(y).ravel()[:1]}"
                         ) from None
    if z.size != n:
        raise ValueError(f"{z.size} targets for {n} rows")
    if not np.all(np.isfinite(z)):
        raise ValueError("regression targets must be finite (no NaN or infinity)")
    m = float(np.abs(z).max()) if z.size else 0.0
    if m > 0.0 and np.log10(max(n, 1)) + 2.0 * np.log10(m) > np.log10(np.finfo(np.float64).max):
        raise ValueError(f"regression targets too large for float64: the largest |y| is {m:.3g}, "
                         f"so a sum of {n} squared errors (about 1e"
                         f"{np.log10(max(n, 1)) + 2.0 * np.log10(m):.0f}) overflows. Rescale "
                         "the targets (e.g. TransformedTargetRegressor(BoundSVR(), "
                         "transformer=StandardScaler()))")
    return z


def kfolds(n: int, n_folds: int, random_state) -> list:
    """(train, test) pairs of ``KFold(n_folds, shuffle=True, random_state)`` over n rows."""
    from sklearn.model_selection import KFold

    n_folds = int(n_folds)
    if n_folds < 2 or n_folds > n:
        raise ValueError(f"n_folds must be between 2 and the number of rows ({n}), got {n_folds}")
    return list(KFold(n_splits=n_folds, shuffle=True, random_state=random_state).split(np.empty(n)))


class SVRCriterion(Criterion):
    """Base of the ε-SVR criteria: ``self.y`` holds the real targets z, θ = (ln C, kernel θ…,
    ln ε); ``solve_svr`` warm-starts from the previous solution at the same kernel."""

    loss = "l2"
    task = "regression"
    #: what the value estimates: the leave-one-out 'MSE' (or 'MAE': the radius–margin bound)
    metric = "MSE"

    check_labels = staticmethod(check_targets)

    def __init__(self, problem, kernel: Kernel, **kw):
        super().__init__(problem, kernel, **kw)
        self._epsilon = None

    @property
    def n_params(self) -> int:
        return 2 + len(self.kernel.param_names)

    @property
    def param_names(self) -> tuple:
        return ("log_C",) + tuple(self.kernel.param_names) + ("log_epsilon",)

    def split_theta(self, theta):
        """(C, kernel) at θ = (ln C, kernel θ…, ln ε); ε is kept in ``self._epsilon``."""
        theta = self.check_theta(theta)
        self._epsilon = float(np.exp(theta[-1]))
        return float(np.exp(theta[0])), self.kernel.with_theta(theta[1:-1])

    def relative_weights(self):
        """w_i/w̄ (ones without weights): each point's share in an average error."""
        return (np.ones(self.y.size) if self.weights is None
                else self.weights / self.weights.mean())

    def solve_svr(self, C: float, kernel: Kernel, X=None, z=None, weights=None,
                  start: SVRSolution | None = None) -> SVRSolution:
        """The SVR at (C, ε, kernel) on the criterion's rows (or on X, z, weights given),
        warm-started from ``start`` or, on its own rows, from the previous solution at the same
        kernel."""
        own = X is None
        if own:
            X, z, weights = self.X, self.y, self.weights
            key = _kernel_key(kernel)
            if self.warm_start and self._svm_prev is not None and self._svm_prev_key == key:
                start = self._svm_prev
        sol = solve_svr_dual(X, z, kernel, C, self._epsilon, loss=self.loss, tol=self.tol,
                             start=start, cache_size=self.cache_size, max_iter=self.max_iter,
                             weights=weights)
        self.n_trainings += 1
        if own:
            self._svm_prev, self._svm_prev_key = sol, key
        self.note_solution(sol, "SVR dual")
        return sol

    def _info(self, sol: SVRSolution, value: float) -> dict:
        return {"n_sv": int(sol.support.size), "b": sol.b, "n_iter": sol.n_iter,
                "epsilon": sol.epsilon, "max_violation": sol.max_violation,
                "rate": float(value)}


class _SVRSpan(SVRCriterion):
    """The span quantities of the L2-SVR (module docstring) at (C, ε, kernel)."""

    loss = "l2"

    def _sv_system(self, C, kernel):
        """(solution, SV indices, K̃_SV, a = |β_SV| polished by the §6.3 system, signs, system
        or None)."""
        sol = self.solve_svr(C, kernel)
        beta = sol.beta
        sv = np.flatnonzero(beta != 0)
        if sv.size == 0:
            return sol, sv, None, None, None, None
        s = np.sign(beta[sv])
        a = np.abs(beta[sv])
        Kt = self.shifted_gram(C, kernel, sv)
        try:
            system = HyperplaneSolver(Kt, s)
            polished = system.solve(s * self.y[sv] - self._epsilon, 0.0)
            if np.all(np.isfinite(polished)) and np.all(polished[:-1] > 0):
                a = polished[:-1]
        except np.linalg.LinAlgError:
            system = None
        return sol, sv, Kt, a, s, system


class SVRSpanBound(_SVRSpan):
    """Smoothed span estimate of the L2-SVR's leave-one-out mean squared error (module
    docstring): (1/l)[Σ_SV ω_p (ε + a_p S̃_p²)² + ε² Σ_other ω_i], ω = w/w̄."""

    name = "svr-span"
    differentiable = True
    formula = ("(1/l)[sum_SV (eps + |beta_p| S~_p^2)^2 + (l - n_SV) eps^2], S~_p^2 the "
               "regularised span over the L2-SVR's support vectors with K~ = K + I/C, eta=0.1")
    source = ("Chang & Lin 2005 (span for SVR); Chapelle et al. 2002 sec. 6.3-6.4 (regularised "
              "span, gradient)")

    def __init__(self, problem, kernel, *, eta: float = 0.1, **kw):
        super().__init__(problem, kernel, **kw)
        eta = float(eta)
        if not np.isfinite(eta) or eta < 0:
            raise ValueError(f"eta must be a finite number >= 0, got {eta!r}")
        self.eta = eta

    def _compute(self, C, kernel, need_grad):
        eps, n = self._epsilon, self.y.size
        sol, sv, Kt, a, s, system = self._sv_system(C, kernel)
        omega = self.relative_weights()
        w_out = float(omega.sum() - omega[sv].sum())
        grad = np.zeros(self.n_params)
        if sv.size == 0:        # a constant model inside the tube: every residual at most ε
            value = eps * eps * w_out / n
            grad[-1] = 2.0 * value
            info = self._info(sol, value)
            return value, (grad if need_grad else None), info
        keep_kt = system is None                # the §6.3 solves then need K̃_SV itself
        try:
            s2, Bsv, d = span_squared(Kt, a, self.eta, overwrite=not keep_kt, sv_block=True)
        except np.linalg.LinAlgError:           # not positive definite: LU on a fresh K̃_SV
            s2, Bsv, d = span_squared(self.shifted_gram(C, kernel, sv), a, self.eta,
                                      sv_block=True)
        if not keep_kt:
            Kt = None                           # its memory now holds B
        res = eps + a * s2                      # |leave-one-out residual| of each SV
        value = (float(np.sum(omega[sv] * res * res)) + eps * eps * w_out) / n
        info = self._info(sol, value)
        info.update(eta=self.eta, mae=(float(np.sum(omega[sv] * res)) + eps * w_out) / n)
        if not need_grad:
            return value, None, info
        coef = 2.0 * omega[sv] * res / n
        w, u = span_sum_adjoint(Bsv, s2, d, a, s, coef, self.eta, Kt, system)
        system = Kt = None
        W = span_weight_matrix(Bsv, w, u, a, s)
        del Bsv
        grad[0] = -np.sum(self.over_w(np.diag(W), sv)) / C    # ∂K̃/∂ln C = −diag(1/C_i)
        Xsv = self.X[sv]
        if hasattr(kernel, "contract_matrix"):
            grad[1:-1] = kernel.contract_matrix(Xsv, W)
        else:
            grad[1:-1] = derivative_contraction(kernel, Xsv, W)
        # ln ε: directly, and through a (H ∂(a, b)/∂ln ε = (−ε·1, 0))
        grad[-1] = (2.0 * eps * (float(np.sum(omega[sv] * res)) + eps * w_out) / n
                    - eps * float(np.sum(u)))
        return value, grad, info


class SVRSpanEstimate(_SVRSpan):
    """The span estimate of the L2-SVR's leave-one-out mean squared error, unsmoothed
    (η = 0) with the non-support vectors' own residuals: exact when the support set does not
    change in the leave-one-out procedure (module docstring)."""

    name = "svr-span-exact"
    differentiable = False
    formula = ("(1/l)[sum_SV (eps + |beta_p| S_p^2)^2 + sum_other (z_i - f(x_i))^2], "
               "S_p^2 = 1/(M~^-1)_pp over the L2-SVR's support vectors")
    source = "Vapnik & Chapelle 2000; Chang & Lin 2005 (span for SVR)"

    def loo_residuals(self, theta) -> np.ndarray:
        """The estimated leave-one-out residual z_i − f^i(x_i) of every row at θ."""
        return self._residuals(*self.split_theta(theta))

    def _residuals(self, C, kernel) -> np.ndarray:
        eps = self._epsilon
        sol, sv, Kt, a, s, _ = self._sv_system(C, kernel)
        r = self.y - sol.training_prediction(self.y)
        if sv.size:
            s2 = span_squared(Kt, a)[0]
            r[sv] = s * (eps + a * s2)
        return r

    def _compute(self, C, kernel, need_grad):
        r = self._residuals(C, kernel)
        omega = self.relative_weights()
        value = float(np.sum(omega * r * r)) / r.size
        info = self._info(self._svm_prev, value)
        info["mae"] = float(np.sum(omega * np.abs(r))) / r.size
        return value, None, info


class SVRRadiusMargin(_SVRSpan):
    """Radius–margin bound of the L2-SVR's leave-one-out mean absolute error (Chang & Lin 2005):
    the span of a support vector is at most the diameter 2R̃ of the points in the feature space
    of K̃ = K + diag(1/C_i), so each LOO residual is at most ε + 4R̃²|β_p| and

        V = ε + (4R̃²/l) Σ_i ω_i |β_i|,   ω = w/w̄.

    Gradient: R̃² by the envelope theorem (``radius_margin.shifted_radius``, the radius QP's β
    held fixed); Σ ω_p a_p (a = |β_SV|) through Chapelle's §6.3 system H (a, b) = (s∘z − ε, 0):
    with u = H⁻¹ (4R̃²ω/l, 0), ∂/∂θ = −Σ_ij (u∘s)_i (a∘s)_j ∂K̃_ij/∂θ − ε Σu ∂ln ε/∂θ."""

    name = "svr-rm-l2"
    metric = "MAE"
    differentiable = True
    needs_radius = True
    formula = "eps + (4 R~^2 / l) sum_i |beta_i|, R~ the radius with K~ = K + I/C (L2-SVR)"
    source = "Chang & Lin 2005 (radius-margin bound for L2-SVR); Chung et al. eq. 1.8"

    def _compute(self, C, kernel, need_grad):
        eps, n = self._epsilon, self.y.size
        sol, sv, Kt, a, s, system = self._sv_system(C, kernel)
        r2, dr2_dlogc, rad = shifted_radius(self, C, kernel)
        omega = self.relative_weights()
        total = float(np.sum(omega[sv] * a)) if sv.size else 0.0
        value = eps + 4.0 * r2 * total / n
        info = self._info(sol, value)
        info.update(R2=r2, radius_n_iter=rad.n_iter, beta_sum=total)
        if not need_grad:
            return value, None, info
        grad = np.zeros(self.n_params)
        grad[:-1] = 4.0 * total / n * np.concatenate([[dr2_dlogc],
                                                       self.radius_gradient(kernel, rad)])
        grad[-1] = eps
        if sv.size:
            u = alpha_b_adjoint(Kt, s, 4.0 * r2 * omega[sv] / n, system=system)
            us, as_ = u * s, a * s
            grad[0] += float(np.sum(self.over_w(us * as_, sv))) / C   # ∂K̃_ii/∂ln C = −1/C_i
            grad[1:-1] -= kernel.contract(self.X[sv], us, as_)
            grad[-1] -= eps * float(np.sum(u))
        return value, grad, info


class _SVRHeldOut(SVRCriterion):
    """Held-out errors of the loss's SVR over (train, test) pairs ``self.folds``."""

    differentiable = False
    #: the value is an average error, not a count (the default strategy's report)
    counts_errors = False
    #: what ``trivial_value`` is the error of (the default strategy's report and warning)
    trivial_what = "predicting the training part's mean"

    def __init__(self, problem, kernel, *, loss: str = "l2", **kw):
        super().__init__(problem, kernel, **kw)
        self.loss = check_loss(loss)

    def _total(self) -> float:
        return 1.0

    def _fold(self, k, C, kernel, start):
        """(solution, held-out residuals) of fold k, trained on its training part."""
        tr, te = self.folds[k]
        w = None if self.weights is None else self.weights[tr]
        sol = self.solve_svr(C, kernel, self.X[tr], self.y[tr], w, start=start)
        f = svr_predict(self.X[tr], sol.beta, sol.b, kernel, self.X[te])
        return sol, self.y[te] - f

    def _average(self, parts):
        """(weighted MSE, weighted MAE, per-fold MSE) of the held-out residuals ``parts``."""
        omega = self.relative_weights()
        se = ae = tot = 0.0
        fold_rates = []
        for (_, te), r in zip(self.folds, parts):
            wt = omega[te]
            se += float(np.sum(wt * r * r))
            ae += float(np.sum(wt * np.abs(r)))
            tot += float(wt.sum())
            fold_rates.append(float(np.sum(wt * r * r) / wt.sum()))
        return se / tot, ae / tot, fold_rates

    def trivial_value(self) -> float:
        """The held-out MSE of predicting each training part's (weighted) mean."""
        parts = []
        for tr, te in self.folds:
            w = None if self.weights is None else self.weights[tr]
            parts.append(self.y[te] - np.average(self.y[tr], weights=w))
        return self._average(parts)[0]


class SVRCrossValidation(_SVRHeldOut):
    """k-fold cross-validation mean squared error of the loss's ε-SVR: Σ_folds Σ_{p in fold}
    ω_p (z_p − f^{−fold}(x_p))² / Σ ω_p (``KFold(n_folds, shuffle=True, random_state)``, or the
    explicit ``folds=``); the folds trained on ``n_jobs`` threads, each warm-started from its
    solution at the previous θ when the kernel is the same. ``info['hinge']`` holds the mean
    absolute error (the tie-break of the default strategy's pick)."""

    name = "svr-cv"
    formula = "mean squared held-out error over k shuffled folds (KFold)"
    source = "k-fold cross-validation (reference measure)"

    def __init__(self, problem, kernel, *, loss: str = "l2", n_folds: int = 5, random_state=0,
                 n_jobs=None, folds=None, **kw):
        super().__init__(problem, kernel, loss=loss, **kw)
        self.n_jobs = n_jobs
        self.folds = (kfolds(self.y.size, n_folds, random_state) if folds is None
                      else check_folds(folds, self.y.size))
        self.n_folds = len(self.folds)
        self.random_state = random_state
        self._fold_prev: list = [None] * self.n_folds

    warm_state_attrs = Criterion.warm_state_attrs + ("_fold_prev",)

    def _compute(self, C, kernel, need_grad):
        key = _kernel_key(kernel)
        starts = [prev[0] if (self.warm_start and prev is not None and prev[1] == key)
                  else None for prev in self._fold_prev]
        n0 = self.n_trainings
        out = parallel_map(lambda k: self._fold(k, C, kernel, starts[k]), range(self.n_folds),
                           self.n_jobs)
        self.n_trainings = n0 + self.n_folds      # (the workers' increments may race)
        self._fold_prev = [(sol, key) for sol, _ in out]
        mse, mae, fold_rates = self._average([r for _, r in out])
        info = {"rate": mse, "hinge": mae, "mae": mae, "fold_rates": fold_rates,
                "epsilon": self._epsilon, "n_folds": self.n_folds}
        return mse, None, info


class SVRLeaveOneOut(_SVRHeldOut):
    """Exact leave-one-out mean squared error of the loss's ε-SVR (l trainings; a reference
    for checking the estimates on small problems)."""

    name = "svr-loo"
    formula = "(1/l) sum_p (z_p - f^p(x_p))^2, f^p trained without x_p"
    source = "leave-one-out (reference measure)"

    def __init__(self, problem, kernel, *, loss: str = "l2", **kw):
        super().__init__(problem, kernel, loss=loss, **kw)
        n = self.y.size
        self.folds = [(np.delete(np.arange(n), p), np.array([p])) for p in range(n)]
        self.n_folds = n

    def loo_residuals(self, theta) -> np.ndarray:
        """The exact leave-one-out residual z_i − f^i(x_i) of every row at θ."""
        C, kernel = self.split_theta(theta)
        return np.concatenate([self._fold(k, C, kernel, None)[1] for k in range(self.n_folds)])

    def _compute(self, C, kernel, need_grad):
        parts = [self._fold(k, C, kernel, None)[1] for k in range(self.n_folds)]
        mse, mae, _ = self._average(parts)
        return mse, None, {"rate": mse, "mae": mae, "epsilon": self._epsilon}
