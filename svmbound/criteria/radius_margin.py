"""Radius–margin bounds with exact gradients in θ = (ln C, kernel θ).

L2-SVM (a hard-margin SVM with kernel K + I/C, Chapelle eq. 3):
  * ``RadiusMarginL2``      f = R̃² ‖w̃‖²                    (Chung 1.8, Chapelle §6.1–6.2)
  * ``RadiusMarginL2Half``  f = (R² + 0.5/C) ‖w̃‖²          (Chung 2.5)
  * ``RadiusMarginL2Quarter`` f = (R² + 0.25/C) ‖w̃‖²       (Chung 2.7)
  with ‖w̃‖² = 2·D(θ), D the L2 dual optimum (= eᵀα), and by the envelope theorem
  ∂‖w̃‖²/∂ln C = αᵀα / C,  ∂‖w̃‖²/∂θ_k = −αᵀ(∂Q/∂θ_k)α;
  ∂R̃²/∂ln C = −(1 − βᵀβ)/C,  ∂R²/∂θ_k = βᵀ∂diag K/∂θ_k − βᵀ(∂K/∂θ_k)β.

L1-SVM:
  * ``RadiusMarginL1``  f = (R² + Δ/C)(‖w‖² + 2CΣξ)          (Chung 3.3, Δ = 1 by default)
  with ‖w‖² + 2CΣξ = 2·D(θ), D the L1 dual optimum (Chung 1.6), and
  ∂(2D)/∂C = 2Σξ = (2/C)(eᵀα − αᵀQα)   (Chung 4.3, via the rescaling α = Cᾱ of 4.1–4.2),
  ∂(2D)/∂θ_k = −αᵀ(∂Q/∂θ_k)α          (Chung 4.4),
  ∂(R² + Δ/C)/∂C = −Δ/C²              (Chung 4.5); chain rule ∂/∂ln C = C ∂/∂C.

Per-sample weights (C_i = C·w_i, ``Criterion.weights``): the L2 kernel is K + diag(1/C_i) for
both the margin and R̃², so ∂‖w̃‖²/∂ln C = Σ α_i²/C_i and ∂R̃²/∂ln C = −Σ β_i(1 − β_i)/C_i
(= −(1 − βᵀβ)/C for equal weights, as eᵀβ = 1). For L1 the rescaling α = Cᾱ with the boxes
0 ≤ ᾱ_i ≤ w_i leaves the formulas unchanged, with CΣξ → CΣw_iξ_i = eᵀα − ‖w‖² (``xi_sum`` is
then Σw_iξ_i). The common C of R² + κ/C (2.5, 2.7), Δ/C (3.3) and (R² + 1/C) (3.2), and
the Σξ of 1.9 and 3.1, are taken at the mean box C̄ = C·s, s = the mean weight
(``_weights.weight_scale``): Σξ → Σ(w_i/s)ξ_i = (eᵀα − ‖w‖²)/C̄. The bounds then depend on
the C_i alone — uniform weights s at C have the values of unit weights at C·s — where with
the bare C a uniform weight 1e300 made Δ/C = 1e300·Δ/C_i dominate R² and moved the minimum
(issue 29 item 5). Without weights s = 1 and nothing changes; with weights of mean 1 (e.g.
class_weight='balanced') s is 1 up to rounding.
"""

from __future__ import annotations

import numpy as np

from .._weights import weight_scale
from .base import Criterion


def _svm_info(sol, r2sol) -> dict:
    return {"R2": r2sol.r2, "n_sv": int(sol.support.size), "n_bsv": int(sol.bounded.size),
            "b": sol.b, "n_iter": sol.n_iter, "radius_n_iter": r2sol.n_iter,
            "max_violation": max(sol.max_violation, r2sol.max_violation),
            "max_alpha": float(sol.alpha.max())}


def shifted_radius(crit: Criterion, C: float, kernel):
    """(R̃², ∂R̃²/∂ln C, radius solution) of the enclosing ball with the kernel K + diag(1/C_i)
    (Chung 1.8): ∂R̃²/∂ln C = −Σ_i (β_i − β_i²)/C_i at the optimal β (envelope theorem)."""
    sol = crit.solve_radius(kernel, shift=crit.l2_shift(C))
    b = sol.beta
    if crit.weights is None:
        return sol.r2, -(1.0 - float(b @ b)) / C, sol
    return sol.r2, -float((b - b * b) @ crit.l2_shift(C)), sol


class RadiusMarginL2(Criterion):
    """R̃²‖w̃‖² for the L2-SVM (Chung 1.8): both radius and margin use the kernel K + I/C."""

    name = "rm-l2"
    loss = "l2"
    differentiable = True
    needs_radius = True
    formula = "R~^2 ||w~||^2, R~^2 and w~ with kernel K + I/C"
    source = "Chung et al. eq. 1.8; Chapelle et al. sec. 3.2.4, 6.1-6.2"

    def _radius(self, C, kernel):
        """(R² term, its ∂/∂ln C, radius solution)."""
        return shifted_radius(self, C, kernel)

    def _compute(self, C, kernel, need_grad):
        svm, (r2, dr2_dlogc, rad) = self.solve_svm_and_radius(
            C, kernel, lambda: self._radius(C, kernel))
        w2 = 2.0 * svm.objective
        info = _svm_info(svm, rad)
        info.update(w2=w2, radius_term=r2)
        value = r2 * w2
        if not need_grad:
            return value, None, info
        dw2 = np.concatenate([[float(svm.alpha @ self.over_w(svm.alpha)) / C],
                              self.margin_gradient(kernel, svm)])
        dr2 = np.concatenate([[dr2_dlogc], self.radius_gradient(kernel, rad)])
        return value, dr2 * w2 + r2 * dw2, info


class _RadiusMarginL2Plain(RadiusMarginL2):
    """(R² + κ/C)‖w̃‖² with R² of the plain kernel K (no I/C)."""

    kappa = 0.5

    def _radius(self, C, kernel):
        sol = self.solve_radius(kernel, shift=0.0)
        Cm = C * weight_scale(self.weights)             # the mean C_i (module docstring)
        return sol.r2 + self.kappa / Cm, -self.kappa / Cm, sol


class RadiusMarginL2Half(_RadiusMarginL2Plain):
    name = "rm-l2-2.5"
    kappa = 0.5
    formula = "(R^2 + 0.5/C) ||w~||^2"
    source = "Chung et al. eq. 2.5"


class RadiusMarginL2Quarter(_RadiusMarginL2Plain):
    name = "rm-l2-2.7"
    kappa = 0.25
    formula = "(R^2 + 0.25/C) ||w~||^2"
    source = "Chung et al. eq. 2.7"


class RadiusMarginL1(Criterion):
    """(R² + Δ/C)(‖w‖² + 2CΣξ) for the L1-SVM (Chung 3.3), differentiable (Chung §4.1)."""

    name = "rm-l1"
    loss = "l1"
    differentiable = True
    needs_radius = True
    formula = "(R^2 + Delta/C)(||w||^2 + 2 C sum xi), Delta = 1 by default"
    source = "Chung et al. eq. 3.3, derivatives 4.3-4.5"

    def __init__(self, problem, kernel, *, delta: float = 1.0, **kw):
        super().__init__(problem, kernel, **kw)
        delta = float(delta)
        if not np.isfinite(delta) or delta <= 0:
            raise ValueError(f"delta must be a finite number > 0, got {delta!r}")
        self.delta = delta

    def _compute(self, C, kernel, need_grad):
        svm, rad = self.solve_svm_and_radius(C, kernel,
                                             lambda: self.solve_radius(kernel, shift=0.0))
        primal2 = 2.0 * svm.objective                  # ‖w‖² + 2CΣξ
        w2 = svm.w2                                     # αᵀQα
        xi_sum = (float(svm.alpha.sum()) - w2) / C      # Chung 1.6
        Cm = C * weight_scale(self.weights)             # the mean C_i (module docstring)
        radius_term = rad.r2 + self.delta / Cm
        info = _svm_info(svm, rad)
        info.update(w2=w2, xi_sum=xi_sum, primal2=primal2, radius_term=radius_term)
        value = radius_term * primal2
        if not need_grad:
            return value, None, info
        d_primal = np.concatenate([[2.0 * C * xi_sum], self.margin_gradient(kernel, svm)])
        d_radius = np.concatenate([[-self.delta / Cm], self.radius_gradient(kernel, rad)])
        return value, d_radius * primal2 + radius_term * d_primal, info


class RadiusMarginL1Half(RadiusMarginL1):
    """(3.3) with Δ = 0.5 (Chung Table 3.1, last row)."""

    name = "rm-l1-0.5"
    formula = "(R^2 + 0.5/C)(||w||^2 + 2 C sum xi)"
    source = "Chung et al. eq. 3.3 with Delta = 0.5"

    def __init__(self, problem, kernel, *, delta: float = 0.5, **kw):
        super().__init__(problem, kernel, delta=delta, **kw)


class _L1Heuristic(Criterion):
    """Non-differentiable L1 bounds built from R², eᵀα and Σξ = (eᵀα − ‖w‖²)/C (Chung 1.6)."""

    loss = "l1"
    differentiable = False
    needs_radius = True

    def _combine(self, r2, e_alpha, xi_sum, C):  # pragma: no cover - abstract
        raise NotImplementedError

    def _compute(self, C, kernel, need_grad):
        svm, rad = self.solve_svm_and_radius(C, kernel,
                                             lambda: self.solve_radius(kernel, shift=0.0))
        e_alpha = float(svm.alpha.sum())
        w2 = svm.w2
        xi_sum = (e_alpha - w2) / C
        info = _svm_info(svm, rad)
        info.update(w2=w2, xi_sum=xi_sum, e_alpha=e_alpha)
        s = weight_scale(self.weights)                  # at the mean C_i (module docstring)
        return self._combine(rad.r2, e_alpha, xi_sum / s, C * s), None, info


class DuanL1(_L1Heuristic):
    """D² eᵀα + Σξ with D² = 4R² (Chung 1.9; Duan, Keerthi & Poo; Acevedo's L1BOUND1)."""

    name = "rm-l1-1.9"
    formula = "D^2 e'alpha + sum xi, D^2 = 4 R^2"
    source = "Chung et al. eq. 1.9 (Duan et al.); Acevedo et al. L1BOUND1"

    def _combine(self, r2, e_alpha, xi_sum, C):
        return 4.0 * r2 * e_alpha + xi_sum


class RadiusMarginL1Sum(_L1Heuristic):
    """R² eᵀα + Σξ (Chung 3.1)."""

    name = "rm-l1-3.1"
    formula = "R^2 e'alpha + sum xi"
    source = "Chung et al. eq. 3.1"

    def _combine(self, r2, e_alpha, xi_sum, C):
        return r2 * e_alpha + xi_sum


class RadiusMarginL1Alpha(_L1Heuristic):
    """(R² + 1/C) eᵀα (Chung 3.2; Acevedo's L1BOUND2)."""

    name = "rm-l1-3.2"
    formula = "(R^2 + 1/C) e'alpha"
    source = "Chung et al. eq. 3.2; Acevedo et al. L1BOUND2"

    def _combine(self, r2, e_alpha, xi_sum, C):
        return (r2 + 1.0 / C) * e_alpha
