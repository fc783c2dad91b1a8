"""Chapelle et al. (2002) §3.2 leave-one-out estimates for the L2-SVM, and the smoothed span
bound of §4/§6.4 with its exact gradient.

Every criterion here works, as Chapelle does, with the *hard-margin* SVM and the L2 soft margin
folded into the kernel (Chapelle eq. 3):

    K̃ = K + I/C,   so   ∂K̃/∂ln C = −I/C   and   ∂K̃/∂θ_k = ∂K/∂θ_k.

The L2-SVM has no upper bound on α, so every support vector (α_p > 0) is "free" and lies on the
margin of the K̃-machine: y_p f̃⁰(x_p) = 1. The leave-one-out (LOO) error of this hard-margin
machine is exactly the LOO error of the L2-SVM (a left-out point only meets the other points,
where K̃ = K), so the estimates below estimate the LOO error of the L2-SVM.

Scale: every value is a **number of (estimated) LOO errors on the ℓ training points** — Chapelle's
T without its 1/ℓ, as in DESIGN.md §3 ("Σ_p Ψ(α_p S_p² − 1)") — directly comparable with the
exact count of ``LeaveOneOutError`` and with R̃²‖w̃‖² (``rm-l2``). ``info["rate"]`` holds value/ℓ.

Classes (registry name in brackets):

* ``SpanBound`` ["span"]: Σ_{p=1..ℓ} Ψ(α_p S̃_p² − 1) with the sigmoid Ψ(x) = 1/(1 + exp(−A x + B))
  (Chapelle §4; A = 5, B = 0 as in its Fig. 1) and the regularised span of §6.4,
  S̃_p² = 1/((M̃ + D)⁻¹)_pp − D_pp, D = diag(η/α_1, …, η/α_n, 0), η = 0.1,
  M̃ = [[K̃_SV, 1], [1ᵀ, 0]]. Differentiable (§6.3 + §6.4).
* ``SpanEstimate`` ["span-exact"]: Chapelle eq. 7 with the step function and S_p² = 1/(M̃⁻¹)_pp
  (eq. 12): the exact LOO error count when the SV set does not change in the LOO procedure.
* ``JaakkolaHaussler`` ["jaakkola-haussler"]: Σ_p step(α_p K̃_pp − 1) (§3.2.2).
* ``OpperWinther`` ["opper-winther"]: Σ_p step(α_p/(K̃_SV⁻¹)_pp − 1) (§3.2.3).
* ``SupportVectorCount`` ["sv-count"]: N_SV (§3.2.1).
* ``RadiusMarginHard`` ["r2-gamma2"]: R²/γ² = R̃²‖w̃‖² (§3.2.4 with eq. 3) — identical to ``rm-l2``.

Before the span formulas are applied, α and b are refined on the support set by solving
Chapelle's §6.3 system H (α, b) = (1, 0) (``polish_alpha_b``): for the L2-SVM it holds exactly at
the optimum, and it removes the solver's tolerance-level error that the η/α_i terms of the
regularised span would otherwise amplify (so value and gradient agree to ~1e-8 even at tol 1e-8).

Jaakkola–Haussler, Opper–Winther and R²/γ² are bounds/estimates proven for SVMs *without*
threshold; here they are evaluated on the solution of the SVM with threshold b, as Chapelle does
in his experiments. Only N_SV and 4R̃²‖w̃‖² are upper bounds on the LOO error of the SVM with
threshold.

Per-sample weights (C_i = C·w_i, ``Criterion.weights``): K̃ = K + diag(1/C_i), so
∂K̃/∂ln C = −diag(1/C_i). ``SpanBound`` then counts each point's smoothed LOO error with its
relative weight w_p/mean(w): Σ_p (w_p/w̄) Ψ(α_p S̃_p² − 1), the weighted error that the CV of
the default strategy counts too (with class_weight='balanced', the balanced error). It is the
plain count for equal weights. Unweighted, a hard problem with 10 % positives and balanced
weights led the span search to a σ² so small that the model predicts one class
(``test_balanced_class_weight_improves_minority_recall``; BENCHMARKS.md, "The span bound
counts weighted errors"). The other estimates here stay unweighted counts.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..kernels import ARDRBFKernel, RBFKernel
from ..kernels.derivatives import derivative_contraction
from .base import Criterion
from .radius_margin import RadiusMarginL2
from .span_algebra import (HyperplaneSolver, polish_alpha_b, span_squared,
                           span_sum_adjoint, span_weight_matrix)


# --------------------------------------------------------------------------------------------
# helpers shared with validation.py
# --------------------------------------------------------------------------------------------
def sigmoid(x, A: float = 5.0, B: float = 0.0):
    """Chapelle §4: Ψ(x) = 1/(1 + exp(−A x + B))."""
    return expit(A * np.asarray(x, dtype=np.float64) - B)


def _check_finite_positive(value, name):
    v = float(value)
    if not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return v


# --------------------------------------------------------------------------------------------
# criteria
# --------------------------------------------------------------------------------------------
class _L2SVEstimate(Criterion):
    """Base: solve the L2-SVM and build K̃_SV = K_SV + I/C over the support vectors."""

    loss = "l2"
    differentiable = False

    def _sv_problem(self, C, kernel):
        """(solution, SV indices, K̃_SV, α_SV, b, system): α and b polished by
        ``polish_alpha_b``; system the ``HyperplaneSolver`` of (K̃_SV, y_SV) for further §6.3
        solves (None when it could not be built). The system holds an n_SV × n_SV factor: it is
        returned, not kept on the criterion, so that it is freed with the evaluation (or as
        soon as the caller drops it)."""
        sol = self.solve_svm(C, kernel)
        sv = sol.support
        if sv.size == 0:     # (a converged L2-SVM has support vectors of both classes)
            raise ValueError(f"the L2-SVM at C = {C:.3g} has no support vector (KKT violation "
                             f"{sol.max_violation:.3g} after {sol.n_iter} iterations): the "
                             f"{self.name} criterion needs them")
        Kt = self.shifted_gram(C, kernel, sv)
        try:
            system = HyperplaneSolver(Kt, self.y[sv])
        except np.linalg.LinAlgError:
            system = None
        a, b = polish_alpha_b(Kt, self.y[sv], sol.alpha[sv], sol.b, system)
        return sol, sv, Kt, a, b, system


    def _singular(self, C, kernel, sv, exc) -> np.linalg.LinAlgError:
        """The error of a linear system of the criterion that float64 cannot solve (numpy's
        bare "Singular matrix" or "singular hyperplane system" before, issue 29 item 8), with
        its cause: kernel values so far above the L2-SVM's diagonal term 1/C_i that K̃ = K +
        diag(1/C_i) keeps none of its digits (a linear kernel on X·1e100: K ≈ 1e200 against
        1/C ≥ 4.5e-5), or support vectors that coincide in feature space. A LinAlgError (a
        ValueError)."""
        try:
            kmax = float(np.max(np.abs(kernel.diag(self.X[sv])))) if sv.size else 0.0
        except Exception:       # (the message is a courtesy)
            kmax = float("nan")
        shift = float(np.min(self.l2_shift(C, sv))) if sv.size else 1.0 / C
        head = (f"the {self.name} criterion's linear systems over the {sv.size} support vectors "
                f"at C = {C:.3g} are singular in float64 ({exc})")
        if not np.isfinite(kmax):
            return np.linalg.LinAlgError(f"{head}: the {kernel.name} kernel's values are not "
                                         "finite on these data; standardise the features")
        if kmax * np.finfo(np.float64).eps > shift:
            return np.linalg.LinAlgError(
                f"{head}: the {kernel.name} kernel's values reach {kmax:.3g}, while the "
                f"L2-SVM's diagonal term 1/C is {shift:.3g} — below their rounding, so K + I/C "
                f"is as singular as K. The kernel is far from unit scale for the C range "
                f"searched: standardise the features (or give bounds for ln C near "
                f"{-np.log(kmax):.3g}, the scale of 1/K)")
        return np.linalg.LinAlgError(f"{head}: support vectors that coincide in feature space")

    def _info(self, sol, value) -> dict:
        n = self.y.size
        return {"n_sv": int(sol.support.size), "b": sol.b, "n_iter": sol.n_iter,
                "max_violation": sol.max_violation, "max_alpha": float(sol.alpha.max()),
                "rate": float(value) / n}


class SpanBound(_L2SVEstimate):
    """Smoothed, regularised span estimate (Chapelle eq. 7 smoothed as in §4, span of §6.4).

    T(θ) = Σ_{p=1}^{ℓ} Ψ(α_p S̃_p² − 1),   Ψ(x) = 1/(1 + exp(−A x + B)),
    S̃_p² = 1/((M̃ + D)⁻¹)_pp − D_pp,  M̃ = [[K̃_SV, 1], [1ᵀ, 0]],  D = diag(η/α_SV, 0),
    K̃ = K + I/C. Non-support vectors (α_p = 0) contribute the constant Ψ(−1) each (eq. 7 sums
    over all p), which keeps T continuous when a point enters or leaves the support set.

    Value: a smoothed number of LOO errors (Chapelle's T times ℓ; ``info['rate']`` = T/ℓ).

    Gradient (θ = (ln C, kernel θ)), with Ψ'_p = A Ψ_p (1 − Ψ_p), G = M̃ + D, B = G⁻¹:
      ∂S̃_p²/∂θ = (S̃_p² + D_pp)² (B (∂G/∂θ) B)_pp − ∂D_pp/∂θ       (eqs. 11–12, §6.4)
      ∂G/∂θ = [[∂K̃_SV/∂θ + ∂D/∂θ, 0], [0, 0]],  ∂D_ii/∂θ = −η (∂α_i/∂θ)/α_i²
      ∂(α, b)/∂θ = −H⁻¹ (∂H/∂θ) (α, b),  H = [[K̃^Y, y], [yᵀ, 0]]      (§6.3)
    assembled in adjoint form: with w_p = Ψ'_p α_p (S̃_p² + D_pp)², P = B diag(w) B (SV block),
    g_i = Ψ'_i S̃_i² − η (P_ii − Ψ'_i α_i)/α_i² and u = H⁻¹ (g, 0):
      ∂T/∂θ = Σ_ij [P_ij − (u∘y)_i (α∘y)_j] ∂K̃_ij/∂θ.
    This is exact for the SV set at θ (it is locally constant for the L2-SVM except where a
    point crosses the margin). The kernel derivative matrices are formed explicitly over the
    support vectors (RBF, polynomial, linear kernels), a block of rows at a time.

    Memory: at most two n_SV × n_SV arrays at once (plus row blocks): P is formed as M Mᵀ,
    M = B diag(√w) (w ≥ 0), in the memory of B, itself made in the memory of K̃_SV.
    """

    name = "span"
    differentiable = True
    #: with the isotropic RBF kernel, a gradient evaluation also gives the gradient over one
    #: width per feature at the same point, ``info["per_feature_grad"]`` (Σ_ij W_ij ∂K̃_ij/∂ln
    #: σ_k², the ARD kernel there being this one): the per-feature search's start on the same
    #: rows (``strategy.tune``) is this search's minimum, whose evaluation it reuses
    per_feature_grad = False
    formula = ("sum_p Psi(alpha_p S~_p^2 - 1) over all l points (a smoothed LOO error count), "
               "Psi(x) = 1/(1+exp(-A x + B)), S~_p^2 = 1/((M~ + D)^-1)_pp - D_pp, "
               "M~ = [[K~_SV, 1], [1', 0]], D = diag(eta/alpha), K~ = K + I/C; A=5, B=0, eta=0.1")
    source = "Chapelle et al. 2002 eq. 7, sec. 4 (sigmoid), sec. 6.3-6.4 (regularised span, gradient)"

    def __init__(self, problem, kernel, *, A: float = 5.0, B: float = 0.0, eta: float = 0.1, **kw):
        super().__init__(problem, kernel, **kw)
        self.A = _check_finite_positive(A, "A")
        B = float(B)
        if not np.isfinite(B):
            raise ValueError(f"B must be a finite number, got {B!r}")
        self.B = B
        eta = float(eta)
        if not np.isfinite(eta) or eta < 0:
            raise ValueError(f"eta must be a finite number >= 0, got {eta!r}")
        self.eta = eta

    def _compute(self, C, kernel, need_grad):
        # Memory, in n_SV × n_SV arrays of doubles (traced peak of one evaluation: 2.1 at
        # n_SV = 3,350, 2.4 at 1,000; it was 4.05): at most two are alive at once, plus row
        # blocks of BLOCK_ROWS rows —
        #   K̃_SV + the hyperplane factor (``_sv_problem``)
        #   → B, the SV block of (M̃ + D)⁻¹, made in K̃_SV's memory, + the factor
        #   → diag(P) from B in row blocks, u = H⁻¹(g, 0), the factor released: B alone
        #   → P = M Mᵀ with M = B diag(√w) in B's memory: M + P, then P alone
        #   → W = P − (u∘y)(α∘y)ᵀ in P's memory; Σ W ∘ ∂K̃/∂θ over row blocks of ∂K̃.
        sol, sv, Kt, a, _, system = self._sv_problem(C, kernel)
        ysv = self.y[sv]
        n_sv, n = sv.size, self.y.size
        keep_kt = system is None                # the §6.3 solves then need K̃_SV itself
        try:
            s2, Bsv, d = span_squared(Kt, a, self.eta, overwrite=not keep_kt, sv_block=True)
        except np.linalg.LinAlgError:           # not positive definite: LU on a fresh K̃_SV
            try:
                s2, Bsv, d = span_squared(self.shifted_gram(C, kernel, sv), a, self.eta,
                                          sv_block=True)
            except np.linalg.LinAlgError as exc:
                raise self._singular(C, kernel, sv, exc) from None
        if not keep_kt:
            Kt = None                           # its memory now holds B
        z = a * s2 - 1.0
        psi = sigmoid(z, self.A, self.B)
        if self.weights is None:
            wsv, w_out = 1.0, float(n - n_sv)
        else:   # relative weights w_p / w̄: the weighted smoothed LOO error count
            rel = self.weights / self.weights.mean()
            wsv = rel[sv]
            w_out = float(rel.sum() - wsv.sum())       # the points that are not SVs
        value = float(np.sum(wsv * psi)) + w_out * float(sigmoid(-1.0, self.A, self.B))
        info = self._info(sol, value)
        info.update(eta=self.eta, A=self.A, B=self.B, span2_sum=float(s2.sum()),
                    n_span_errors=int(np.count_nonzero(z > 0)))
        if not need_grad:
            return value, None, info
        dpsi = wsv * self.A * psi * (1.0 - psi)
        try:
            w, u = span_sum_adjoint(Bsv, s2, d, a, ysv, dpsi, self.eta, Kt, system)
        except np.linalg.LinAlgError as exc:
            raise self._singular(C, kernel, sv, exc) from None
        system = Kt = None                      # the last §6.3 solve: release the factor
        W = span_weight_matrix(Bsv, w, u, a, ysv)
        del Bsv
        grad = np.empty(self.n_params)
        grad[0] = -np.sum(self.over_w(np.diag(W), sv)) / C    # ∂K̃/∂ln C = −diag(1/C_i)
        Xsv = self.X[sv]
        if hasattr(kernel, "contract_matrix"):
            # many parameters (ARD): Σ_ij W_ij ∂K_ij/∂θ_k by BLAS contractions, no d×n×n array
            grad[1:] = kernel.contract_matrix(Xsv, W)
        else:
            grad[1:] = derivative_contraction(kernel, Xsv, W)
        if self.per_feature_grad and type(kernel) is RBFKernel:
            ard = ARDRBFKernel(np.full(Xsv.shape[1], kernel.sigma2))
            info["per_feature_grad"] = ard.contract_matrix(Xsv, W).tolist()
        return value, grad, info


class SpanEstimate(_L2SVEstimate):
    """Unsmoothed span estimate (Chapelle eq. 7 with the step function, S_p² from eq. 12).

    T = Σ_p step(α_p S_p² − 1),  S_p² = 1/(M̃⁻¹)_pp,  M̃ = [[K̃_SV, 1], [1ᵀ, 0]],  K̃ = K + I/C,
    step(x) = 1 for x > 0. Under the assumption that the set of support vectors does not change
    when a point is left out, y_p (f⁰(x_p) − f^p(x_p)) = α_p S_p² (§3.2.5) and T is the exact
    number of LOO errors of the L2-SVM. Value: a count (≤ ℓ).
    """

    name = "span-exact"
    formula = ("#{p : alpha_p S_p^2 > 1} (LOO error count), S_p^2 = 1/(M~^-1)_pp, "
               "M~ = [[K~_SV, 1], [1', 0]], K~ = K + I/C")
    source = "Chapelle et al. 2002 eq. 6-7, eq. 12"

    def _compute(self, C, kernel, need_grad):
        sol, sv, Kt, a, _, _ = self._sv_problem(C, kernel)
        try:
            s2, _, _ = span_squared(Kt)
        except np.linalg.LinAlgError as exc:
            raise self._singular(C, kernel, sv, exc) from None
        value = float(np.count_nonzero(a * s2 > 1.0))
        info = self._info(sol, value)
        info.update(span2_sum=float(s2.sum()), alpha_span2_sum=float(a @ s2))
        return value, None, info


class JaakkolaHaussler(_L2SVEstimate):
    """Jaakkola–Haussler bound (Chapelle §3.2.2): T = Σ_p step(α_p K̃(x_p, x_p) − 1), K̃ = K + I/C.

    A bound on the LOO error count for SVMs without threshold; evaluated here on the L2-SVM with
    threshold. ``info['wahba']`` holds Wahba's estimate Σ_p α_p K̃_pp (≥ T)."""

    name = "jaakkola-haussler"
    formula = "#{p : alpha_p K~_pp > 1} (LOO error count), K~ = K + I/C"
    source = "Chapelle et al. 2002 sec. 3.2.2 (Jaakkola & Haussler)"

    def _compute(self, C, kernel, need_grad):
        sol = self.solve_svm(C, kernel)
        sv = sol.support
        a = sol.alpha[sv]
        kdiag = kernel.diag(self.X[sv]) + self.l2_shift(C, sv)
        value = float(np.count_nonzero(a * kdiag > 1.0))
        info = self._info(sol, value)
        info.update(wahba=float(a @ kdiag))
        return value, None, info


class OpperWinther(_L2SVEstimate):
    """Opper–Winther estimate (Chapelle §3.2.3): T = Σ_p step(α_p/(K̃_SV⁻¹)_pp − 1), K̃ = K + I/C.

    Exact LOO count for the SVM without threshold when the SV set does not change; evaluated
    here on the L2-SVM with threshold (the span without the constraint Σλ = 1)."""

    name = "opper-winther"
    formula = "#{p : alpha_p / (K~_SV^-1)_pp > 1} (LOO error count), K~ = K + I/C"
    source = "Chapelle et al. 2002 sec. 3.2.3 (Opper & Winther)"

    def _compute(self, C, kernel, need_grad):
        sol, sv, Kt, a, _, _ = self._sv_problem(C, kernel)
        try:
            inv_diag = np.diag(np.linalg.inv(Kt))
        except np.linalg.LinAlgError as exc:
            raise self._singular(C, kernel, sv, exc) from None
        value = float(np.count_nonzero(a / inv_diag > 1.0))
        return value, None, self._info(sol, value)


class SupportVectorCount(_L2SVEstimate):
    """Support-vector count (Chapelle §3.2.1): T = N_SV, an upper bound on the LOO error count
    (removing a non-support vector does not change the solution)."""

    name = "sv-count"
    formula = "N_SV (number of support vectors of the L2-SVM; bounds the LOO error count)"
    source = "Chapelle et al. 2002 sec. 3.2.1"

    def _compute(self, C, kernel, need_grad):
        sol = self.solve_svm(C, kernel)
        value = float(sol.support.size)
        return value, None, self._info(sol, value)


class RadiusMarginHard(RadiusMarginL2):
    """R²/γ² of Chapelle §3.2.4 / Theorem 1 in his hard-margin framework: with the L2 soft margin
    folded into the kernel (eq. 3), R²/γ² = R̃²‖w̃‖², R̃ and w̃ computed with K̃ = K + I/C.

    This is the same quantity (value and gradient) as ``rm-l2`` (Chung 1.8), exposed under
    Chapelle's name. A literal hard margin with the plain kernel (C → ∞) is not used: for
    overlapping classes and wide kernels it is (nearly) infeasible, α grows without bound and
    the dual solver does not converge. Note 4R̃²‖w̃‖² (not R̃²‖w̃‖²) is the proven bound on the
    LOO error count for the SVM with threshold (Chapelle §3.2.5, 'Link with R²/γ²').
    """

    name = "r2-gamma2"
    formula = "R~^2 ||w~||^2 = R^2/gamma^2 with K~ = K + I/C (same as rm-l2)"
    source = "Chapelle et al. 2002 sec. 3.2.4, Theorem 1, eq. 3, sec. 6.1-6.2"


__all__ = ["SpanBound", "SpanEstimate", "JaakkolaHaussler", "OpperWinther",
           "SupportVectorCount", "RadiusMarginHard", "span_squared", "sigmoid"]
