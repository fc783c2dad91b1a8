"""Convex tuning of C for the L2 (2-norm soft-margin) SVM — De Bie, Lanckriet & Cristianini (2003).

The problem (De Bie eq. 3)
--------------------------
The L2-SVM dual (De Bie eq. 2, Chung 1.7) with kernel K and γ_o = 1/C is a hard-margin SVM
with kernel K + γ_o I. De Bie fixes the trace of that kernel (the generalisation bound of
Shawe-Taylor & Cristianini grows with it) and re-parameterises γ_o as

    γ = γ_o l / (γ_o l + r),      r = trace K,  l = number of samples,

so that (K + γ_o I)/trace(K + γ_o I) = (1 − γ) K/r + γ I/l =: K_γ, a kernel of trace 1 that is
*linear* in γ. The criterion is the optimal value of the hard-margin dual with kernel K_γ,

    V(γ) = max_{α ≥ 0, yᵀα = 0}  eᵀα − ½ αᵀ G(K_γ) α,          G(K)_ij = y_i y_j K_ij,   (3)

(1/margin² in the augmented feature space at fixed trace), minimised over γ. In terms of the
original C, V = ½ · trace(K + I/C) · ‖w̃‖² = (r + l/C) · W_L2(C), W_L2 the L2-SVM dual optimum
at C, because the dual optimum scales as 1/s when the kernel is scaled by s.

* ``gamma_range="unit"`` — De Bie §3.2, γ ∈ [0, 1]: both K and I get non-negative weights,
  i.e. C ∈ [0, ∞].
* ``gamma_range="general"`` — De Bie §3.1, γ ∈ [γ_min, γ_max], the widest interval on which K_γ
  is positive semidefinite:

      γ_min = −l λ_min / (r − l λ_min) ≤ 0,      γ_max = l λ_max / (l λ_max − r) > 1,

  (λ_min, λ_max the extreme eigenvalues of K; the paper's text attaches the labels "γ ≥ 1" and
  "γ < 1" the wrong way round to the two derivations, the bounds themselves are as above). At
  the two ends the eigenvalues of K_γ are (λ − λ_min)/(r − lλ_min) and (λ_max − λ)/(lλ_max − r),
  which is how they are computed here (no cancellation). A γ < 0 is a *reduced* feature space
  (K − |γ_o| I), a γ > 1 puts a negative weight on K; neither is an L2-SVM with a C > 0.

Mapping back to C
-----------------
Inverting the re-parameterisation: γ_o = γ r / (l (1 − γ)), so

    C = 1/γ_o = l (1 − γ) / (γ r),        γ = l / (l + C r).

γ = 0 gives C = ∞ (the hard-margin SVM on K), γ = 1 gives C = 0 (K has weight zero). For γ < 0
and γ > 1 the formula gives a negative C (1/C is the diagonal shift, negative for a reduced
space; for γ > 1 the normalising trace r + l/C is negative too); it is returned as such, with
an explanation in ``ConvexCResult.note``. See :func:`gamma_to_C`, :func:`C_to_gamma`.

Two methods
-----------
* ``method="qcqp"`` — the paper's QCQP (De Bie eq. 5, and its §3.2 form for the unit range):

      max_{α, t}  eᵀα − ½ t   s.t.  α ≥ 0, yᵀα = 0,  t ≥ αᵀG(K_{γ_hi})α,  t ≥ αᵀG(K_{γ_lo})α,

  (γ_lo, γ_hi) = (0, 1) or (γ_min, γ_max), obtained from min_γ max_α by interchanging min and
  max (the objective is linear in γ, so the inner max over γ sits at an end of the interval).
  Solved with cvxpy + Clarabel (optional dependency: ``pip install 'svmbound[convex]'``).
  As written the problem does not solve (α ≈ l, objective ≈ l²; DESIGN.md §5 — Clarabel
  already fails at l = 200), so it is rescaled: α = l·a, t = l·u, maximise eᵀa − ½u with
  u ≥ l·aᵀG(K_γ)a (a is then O(1); the value is l·(eᵀa − ½u)). Rescaling by l² instead solved
  too but was less accurate. The quadratic forms are written as sums of squares of a factor from
  the eigen-decomposition K = V Λ Vᵀ (tiny negative eigenvalues clipped to 0), never quad_form
  of an almost singular matrix, and the dense factor enters only through an equality with
  auxiliary variables (fewer Clarabel iterations than sum_squares(F @ a)):

  - unit range:    u ≥ aᵀa,   u ≥ ‖w‖²,  w = (l/r)^{1/2} Λ^{1/2} Vᵀ(y∘a)  (eigenvalues below
    1e-13·λ_max dropped);
  - general range: z = Vᵀ(y∘a),  w_± = (l c_±)^{1/2} ∘ z,  u ≥ ‖w_+‖², u ≥ ‖w_−‖², c_± the
    eigenvalues of K_γ at γ_max and γ_min.

  **γ is recovered from the dual variables** η_hi, η_lo of the two quadratic constraints, as
  in the paper: stationarity in t gives η_hi + η_lo = ½ and the Lagrangian is
  eᵀα − ½αᵀG(K_γ)α with γ = (η_hi γ_hi + η_lo γ_lo)/(η_hi + η_lo). When one constraint has a
  clear relative slack (> 1e-6) it is inactive, its dual is zero in exact arithmetic, and γ is
  put exactly on the corresponding end (complementary slackness; otherwise a dual of ~1e-9
  would turn C = ∞ into C ≈ 1e8). As a cross-check (and the fallback when the solver reports no
  duals) γ is also fitted from the optimal α alone: on the support vectors α is optimal for K_γ
  iff (G(K_γ)α)_i − b y_i = 1, linear in (γ, b); the α-weighted least-squares fit is stored in
  ``info["gamma_from_alpha"]`` (it agrees with the duals to ~1e-5–1e-3: an interior-point α is
  never exactly sparse). Accuracy against the interchange method: value ~1e-7 relative, γ
  ~1e-5 (Clarabel gap/feasibility tolerances 1e-8).
* ``method="interchange"`` — the same value as min over μ ∈ [γ_lo, γ_hi] of V(μ) (the min–max
  interchange read the other way, DESIGN.md §5). V is convex in μ (a max of linear functions),
  so a bounded 1-D search (:func:`scipy.optimize.minimize_scalar`, ``method="bounded"``,
  ``xatol=tol``) finds it; each evaluation is one warm-started SMO solve:

  - 0 < μ ≤ 1: V(μ) is our L2-SVM dual with the kernel (1 − μ)K/r (a precomputed Gram
    matrix) and 1/C = μ/l — K_μ is then positive definite and V(μ) finite;
  - μ ≤ 0 or μ > 1 (and the hard margin at μ = 0): the L2 solver cannot take a negative
    diagonal shift, and near γ_max K_μ becomes singular, so the Gram matrix K_μ is formed
    explicitly (PSD for μ in [γ_min, γ_max]) and the hard-margin dual is solved as an L1-SVM
    with a huge box C = 1e12. If some α reaches that box the hard margin is infeasible in that
    feature space (e.g. μ = 0 with a singular K and non-separable data) and V(μ) = +∞ is
    recorded (a clipped α would otherwise still give a value ≥ 5e11, far above the minimum).

  The bounded search never evaluates the ends themselves; when it stops within 10·tol of an
  end, that end is evaluated too and the better of the two is returned (an optimum at γ = 0 is
  the hard-margin SVM, C = ∞).

Both methods return the De Bie α (for the trace-one kernel K_γ); the α of the L2-SVM with the
original kernel K and that C is ``alpha / (r + l/C)``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
from scipy.optimize import minimize_scalar

from .._validation import check_pm1
from ..kernels import PrecomputedKernel
from .svm import solve_svm_dual

GAMMA_RANGES = ("unit", "general")
METHODS = ("qcqp", "interchange")

#: Box used for the hard-margin dual at μ ≤ 0 (L1 solver with a huge C).
HARD_MARGIN_BOX = 1e12

#: Eigenvalues below this fraction of λ_max are dropped from the unit-range QCQP factor.
_EIG_DROP = 1e-13

#: Relative slack above which a quadratic constraint of the QCQP counts as inactive.
_SLACK_INACTIVE = 1e-6

_INSTALL_HINT = ("method='qcqp' needs cvxpy with the Clarabel solver: "
                 "pip install 'svmbound[convex]' (or: pip install 'cvxpy>=1.4' 'clarabel>=0.6')")


@dataclass
class ConvexCResult:
    """Result of :func:`solve_convex_c`.

    Fields
    ------
    gamma : De Bie's γ at the optimum (re-parameterised 1/C, eq. 3), in [gamma_min, gamma_max].
    C : the L2-SVM C = l(1 − γ)/(γ r): ``inf`` for γ = 0 (hard margin), 0.0 for γ = 1, negative
        for γ < 0 or γ > 1 (see ``note``).
    objective : min_γ V(γ), the optimal value of eq. 3 / the QCQP (5) — 1/margin² at trace one,
        equal to ½ · trace(K + I/C) · ‖w̃‖².
    alpha : optimal α of eq. 3 (kernel K_γ of trace one); the L2-SVM α for (K, C) is
        alpha / (r + l/C).
    method : "qcqp" or "interchange".
    n_solves : QCQP solves (1) or SMO solves (interchange).
    time_s : wall time, including the eigen-decomposition when one is needed.
    gamma_min, gamma_max : the interval searched: (0, 1) for "unit", the PSD limits for
        "general".
    gamma_range : "unit" or "general".
    note : plain-language remark on C (C = ∞, C = 0, negative C); empty for 0 < γ < 1.
    trace, n_samples : r = trace K and l.
    path : interchange only — every evaluation as {"gamma": μ, "value": V(μ), "time_s": seconds
        since the search started} in order (V = inf where the hard margin is infeasible).
    info : method details (solver status, duals, γ fitted from α, SMO violations, …).
    """

    gamma: float
    C: float
    objective: float
    alpha: np.ndarray = field(repr=False)
    method: str
    n_solves: int
    time_s: float
    gamma_min: float
    gamma_max: float
    gamma_range: str = "unit"
    note: str = ""
    trace: float = math.nan
    n_samples: int = 0
    path: list = field(default_factory=list, repr=False)
    info: dict = field(default_factory=dict, repr=False)


# ------------------------------------------------------------------------------------------
# the γ ↔ C mapping
# ------------------------------------------------------------------------------------------
def gamma_to_C(gamma: float, trace: float, n_samples: int) -> float:
    """C = l(1 − γ)/(γ r), the inverse of De Bie's γ = γ_o l/(γ_o l + r) with γ_o = 1/C.

    γ = 0 ↦ C = inf (hard margin); γ = 1 ↦ C = 0; γ < 0 or γ > 1 ↦ a negative C (no L2-SVM).
    """
    gamma = float(gamma)
    if gamma == 0.0:
        return math.inf
    return n_samples * (1.0 - gamma) / (gamma * float(trace))


def C_to_gamma(C: float, trace: float, n_samples: int) -> float:
    """γ = l/(l + C r) = γ_o l/(γ_o l + r) with γ_o = 1/C (De Bie §2, before eq. 3); C = inf ↦ 0."""
    C = float(C)
    if math.isinf(C):
        return 0.0
    return n_samples / (n_samples + C * float(trace))


def c_note(gamma: float, C: float) -> str:
    """Plain-language remark on the C that a γ maps to (empty for an ordinary 0 < C < ∞)."""
    if math.isinf(C):
        return ("gamma = 0: the optimum is the hard-margin SVM on K (no diagonal term), "
                "i.e. C = inf")
    if gamma == 1.0 or C == 0.0:
        return ("gamma = 1: K gets weight zero and the kernel is I/l alone, i.e. C = 0; the "
                "criterion prefers no data kernel at all")
    if gamma < 0:
        return (f"gamma = {gamma:.6g} < 0: a reduced feature space, kernel K - {abs(1 / C):.6g}*I "
                "(a negative diagonal shift 1/C); not an L2-SVM with C > 0, C is reported as "
                "the negative value of the formula l(1-gamma)/(gamma r)")
    if gamma > 1:
        return (f"gamma = {gamma:.6g} > 1: K gets a negative weight (1 - gamma < 0); not an "
                "L2-SVM with C > 0, C is reported as the negative value of the formula "
                "l(1-gamma)/(gamma r)")
    return ""


def _clip_lambda_min(lambda_min, lambda_max) -> float:
    lmin = float(lambda_min)
    return 0.0 if lmin <= 1e-12 * abs(float(lambda_max)) else lmin


def psd_gamma_range(lambda_min: float, lambda_max: float, trace: float,
                    n_samples: int) -> tuple[float, float]:
    """(γ_min, γ_max) of De Bie §3.1: the widest γ interval with (1 − γ)K/r + γI/l ⪰ 0.

    A λ_min below 1e-12·λ_max is round-off on a singular K and taken as 0, so γ_min = 0 then.
    """
    lmin = _clip_lambda_min(lambda_min, lambda_max)
    l, r = n_samples, float(trace)
    den = l * float(lambda_max) - r
    if den <= 1e-12 * r or r - l * lmin <= 1e-12 * r:
        raise ValueError("K is a multiple of the identity: every gamma gives the same kernel "
                         "I/l and the general range [gamma_min, gamma_max] is unbounded")
    gmin = -l * lmin / (r - l * lmin) if lmin > 0 else 0.0
    return gmin, l * float(lambda_max) / den


# ------------------------------------------------------------------------------------------
# input checks
# ------------------------------------------------------------------------------------------
def _check_problem(K, y, gamma_range, method, tol):
    if gamma_range not in GAMMA_RANGES:
        raise ValueError(f"unknown gamma_range {gamma_range!r}; valid: {', '.join(GAMMA_RANGES)}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; valid methods: {', '.join(METHODS)}")
    try:
        tol = float(tol)
    except (TypeError, ValueError):
        raise ValueError(f"tol must be a number > 0, got {tol!r}") from None
    if not np.isfinite(tol) or tol <= 0:
        raise ValueError(f"tol must be a finite number > 0, got {tol!r}")
    try:
        K = np.array(K, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"K must be a numeric (l, l) Gram matrix: {exc}") from None
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square (l, l) Gram matrix, got shape {K.shape}")
    l = K.shape[0]
    if l < 2:
        raise ValueError(f"K must have at least 2 samples, got {l}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or infinity")
    scale = float(np.max(np.abs(K)))
    asym = float(np.max(np.abs(K - K.T)))
    if asym > 1e-8 * max(scale, 1e-300):
        raise ValueError(f"K is not symmetric (max |K - K^T| = {asym:.3g})")
    K = 0.5 * (K + K.T)
    y_arr = np.asarray(y)
    if y_arr.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y_arr.shape}")
    if y_arr.shape[0] != l:
        raise ValueError(f"K and y have different lengths: K is {l}x{l}, y has {y_arr.shape[0]} "
                         "labels")
    try:
        y = check_pm1(y_arr, l)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"labels: {exc}") from None
    r = float(np.trace(K))
    if not r > 0:
        raise ValueError(f"trace K must be > 0, got {r!r}")
    if np.any(np.diag(K) < -1e-12 * r):
        raise ValueError("K has a negative diagonal entry: not a positive semidefinite kernel")
    return np.ascontiguousarray(K), y, tol, r


def _check_psd(lam_min, lam_max):
    if lam_min < -1e-8 * max(abs(lam_max), 1e-300):
        raise ValueError(f"K is not positive semidefinite: smallest eigenvalue {lam_min:.3g} "
                         f"(largest {lam_max:.3g})")


# ------------------------------------------------------------------------------------------
# solver
# ------------------------------------------------------------------------------------------
def solve_convex_c(K, y, *, gamma_range: str = "unit", method: str = "qcqp",
                   tol: float = 1e-7) -> ConvexCResult:
    """Minimise De Bie's criterion V(γ) (eq. 3) over γ and map the optimum back to C.

    Parameters
    ----------
    K : (l, l) symmetric positive semidefinite Gram matrix.
    y : (l,) labels in {−1, +1}, both present.
    gamma_range : "unit" (De Bie §3.2, γ ∈ [0, 1], C ∈ [0, ∞]) or "general" (§3.1,
        γ ∈ [γ_min, γ_max], the PSD limits; may return a γ < 0 or > 1, i.e. a negative C).
    method : "qcqp" (cvxpy + Clarabel on the rescaled QCQP, γ from its dual variables) or
        "interchange" (bounded 1-D search over γ, one warm-started SMO solve per evaluation).
    tol : "interchange": xatol of the γ search; the SMO stopping tolerance (maximal KKT
        violation) is 0.1·min(tol, 1e-6). "qcqp": Clarabel's gap and feasibility tolerances
        are min(1e-8, tol).

    Returns
    -------
    ConvexCResult — see its docstring and the module docstring for the formulas.
    """
    t0 = time.perf_counter()
    K, y, tol, r = _check_problem(K, y, gamma_range, method, tol)
    l = K.shape[0]
    lam = V = None
    info: dict = {}
    if method == "qcqp":
        cp = _import_cvxpy()
        lam, V = scipy.linalg.eigh(K)
        _check_psd(lam[0], lam[-1])
    elif gamma_range == "general":
        lam = scipy.linalg.eigvalsh(K)
        _check_psd(lam[0], lam[-1])
    if gamma_range == "general":
        g_lo, g_hi = psd_gamma_range(lam[0], lam[-1], r, l)
        info.update(lambda_min=float(lam[0]), lambda_max=float(lam[-1]))
    else:
        g_lo, g_hi = 0.0, 1.0

    path: list = []
    if method == "qcqp":
        gamma, objective, alpha, n_solves = _solve_qcqp(cp, K, y, r, lam, V, g_lo, g_hi,
                                                        gamma_range, tol, info)
    else:
        gamma, objective, alpha, n_solves = _solve_interchange(K, y, r, g_lo, g_hi, tol, path,
                                                               info)
    C = gamma_to_C(gamma, r, l)
    return ConvexCResult(gamma=float(gamma), C=float(C), objective=float(objective),
                         alpha=alpha, method=method, n_solves=int(n_solves),
                         time_s=time.perf_counter() - t0, gamma_min=float(g_lo),
                         gamma_max=float(g_hi), gamma_range=gamma_range,
                         note=c_note(gamma, C), trace=r, n_samples=l, path=path, info=info)


def _import_cvxpy():
    try:
        import cvxpy as cp
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    if "CLARABEL" not in cp.installed_solvers():
        raise ImportError(_INSTALL_HINT)
    return cp


def kernel_eigenvalues_at(lam, r, l, gamma):
    """Eigenvalues of K_γ = (1 − γ)K/r + γI/l from those of K (exact at γ_min and γ_max)."""
    lam = np.asarray(lam, dtype=np.float64)
    lmin, lmax = _clip_lambda_min(lam[0], lam[-1]), float(lam[-1])
    gmin, gmax = (psd_gamma_range(lmin, lmax, r, l) if lmax * l > r * (1 + 1e-12)
                  else (0.0, 1.0))
    if gamma == gmin and gmin < 0:
        return (np.maximum(lam, lmin) - lmin) / (r - l * lmin)
    if gamma == gmax and gmax > 1:
        return (lmax - lam) / (l * lmax - r)
    return np.maximum((1.0 - gamma) * np.maximum(lam, 0.0) / r + gamma / l, 0.0)


def _solve_qcqp(cp, K, y, r, lam, V, g_lo, g_hi, gamma_range, tol, info):
    """The rescaled QCQP (De Bie eq. 5 / §3.2) with Clarabel; returns (γ, value, α, 1)."""
    l = K.shape[0]
    lam_c = np.maximum(lam, 0.0)
    a = cp.Variable(l, nonneg=True)
    u = cp.Variable()
    # The dense factor enters only through an equality with auxiliary variables, so each cone
    # holds plain variables: 2–15× fewer Clarabel iterations/time than sum_squares(F @ a) or
    # quad_form at l = 500–1000 (measured).
    if gamma_range == "unit":
        keep = lam_c > _EIG_DROP * lam_c[-1]
        Fy = (V[:, keep] * np.sqrt(l * lam_c[keep] / r)).T * y  # ‖Fy a‖² = l aᵀG(K/r)a
        w = cp.Variable(int(keep.sum()))
        q_hi = cp.sum_squares(a)                                # γ = 1: l aᵀ(I/l)a = aᵀa
        q_lo = cp.sum_squares(w)
        extra = [w == Fy @ a]
        info["qcqp_rank"] = int(keep.sum())
    else:
        c_hi = kernel_eigenvalues_at(lam, r, l, g_hi) * l
        c_lo = kernel_eigenvalues_at(lam, r, l, g_lo) * l
        z, w_hi, w_lo = cp.Variable(l), cp.Variable(l), cp.Variable(l)
        q_hi, q_lo = cp.sum_squares(w_hi), cp.sum_squares(w_lo)  # l aᵀG(K_γ)a at γ_hi, γ_lo
        extra = [z == (V.T * y) @ a, w_hi == cp.multiply(np.sqrt(c_hi), z),
                 w_lo == cp.multiply(np.sqrt(c_lo), z)]
    con_hi, con_lo = q_hi <= u, q_lo <= u
    prob = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * u),
                      [y @ a == 0, con_hi, con_lo] + extra)
    ctol = min(1e-8, tol)
    try:
        prob.solve(solver="CLARABEL", tol_gap_abs=ctol, tol_gap_rel=ctol, tol_feas=ctol,
                   max_iter=200)
    except cp.error.SolverError as exc:
        raise RuntimeError(f"Clarabel failed on the rescaled QCQP: {exc}") from exc
    info["solver_status"] = prob.status
    stats = getattr(prob, "solver_stats", None)
    info["nit"] = int(getattr(stats, "num_iters", 0) or 0)
    if prob.status not in ("optimal", "optimal_inaccurate") or a.value is None:
        raise RuntimeError(f"Clarabel did not solve the QCQP: status {prob.status!r}")
    alpha = l * np.maximum(np.asarray(a.value, dtype=np.float64), 0.0)
    value = l * float(prob.value)
    g_alpha = _gamma_from_alpha(K, y, r, alpha)
    info["gamma_from_alpha"] = g_alpha
    eta_hi, eta_lo = con_hi.dual_value, con_lo.dual_value
    # Complementary slackness: at an optimum on an end of the interval only one quadratic
    # constraint is active and the other's dual is 0 up to the solver's accuracy (~1e-9 of the
    # active one), which would map to a C of 1e7–1e9 instead of ∞ at γ = 0. A constraint with
    # a clear relative slack is therefore taken as inactive and γ put on the end exactly.
    u_val = float(u.value)
    slack_hi = (u_val - float(q_hi.value)) / max(abs(u_val), 1e-300)
    slack_lo = (u_val - float(q_lo.value)) / max(abs(u_val), 1e-300)
    info.update(slack_hi=slack_hi, slack_lo=slack_lo)
    gamma = None
    if slack_hi > _SLACK_INACTIVE and slack_lo <= _SLACK_INACTIVE:
        gamma, source = g_lo, "slack"
    elif slack_lo > _SLACK_INACTIVE and slack_hi <= _SLACK_INACTIVE:
        gamma, source = g_hi, "slack"
    if eta_hi is not None and eta_lo is not None:
        eta_hi, eta_lo = float(np.squeeze(eta_hi)), float(np.squeeze(eta_lo))
        info.update(eta_hi=eta_hi, eta_lo=eta_lo)
        s = eta_hi + eta_lo
        if gamma is None and s > 0:
            w = min(max(eta_hi / s, 0.0), 1.0)
            gamma, source = g_lo + w * (g_hi - g_lo), "duals"
    if gamma is None:
        gamma, source = min(max(g_alpha, g_lo), g_hi), "alpha"
    info["gamma_source"] = source
    return float(gamma), value, alpha, 1


def _gamma_from_alpha(K, y, r, alpha):
    """Least-squares γ (and b) with (G(K_γ)α)_i − b y_i = 1 on the support vectors (α_i >
    1e-4 max α), each equation weighted by α_i.

    (G(K_γ)α)_i = (Gα)_i/r + γ(α_i/l − (Gα)_i/r): linear in (γ, b). nan when undetermined.
    """
    l = K.shape[0]
    amax = float(alpha.max())
    sv = alpha > 1e-4 * amax
    if amax <= 0 or sv.sum() < 2:
        return math.nan
    ya = y * alpha
    g0 = y[sv] * (K[sv] @ ya) / r
    A = np.column_stack([alpha[sv] / l - g0, -y[sv]])
    wt = alpha[sv] / amax       # an interior-point α is never exactly 0: weight by α
    sol, *_ = np.linalg.lstsq(A * wt[:, None], (1.0 - g0) * wt, rcond=None)
    return float(sol[0])


def _solve_interchange(K, y, r, g_lo, g_hi, tol, path, info):
    """min over μ ∈ [g_lo, g_hi] of V(μ) by bounded Brent, one warm-started SMO per evaluation."""
    l = K.shape[0]
    buf = np.empty_like(K)
    pk = PrecomputedKernel()
    smo_tol = min(tol, 1e-6) * 0.1
    state = {"alpha": None, "n": 0, "best": (math.inf, None, None), "max_violation": 0.0}
    t0 = time.perf_counter()

    def evaluate(mu):
        mu = float(mu)
        if 0 < mu <= 1:
            np.multiply(K, (1.0 - mu) / r, out=buf)
            sol = solve_svm_dual(buf, y, pk, l / mu, loss="l2", tol=smo_tol,
                                 alpha0=state["alpha"], check_input=False)
            value = sol.objective
        else:
            np.multiply(K, (1.0 - mu) / r, out=buf)
            buf.flat[:: l + 1] += mu / l
            sol = solve_svm_dual(buf, y, pk, HARD_MARGIN_BOX, loss="l1", tol=smo_tol,
                                 alpha0=state["alpha"], check_input=False)
            value = sol.objective
            if float(sol.alpha.max()) >= HARD_MARGIN_BOX * (1 - 1e-9):
                value = math.inf        # hard margin infeasible in this feature space
        state["n"] += 1
        state["max_violation"] = max(state["max_violation"], float(sol.max_violation))
        if math.isfinite(value):
            state["alpha"] = sol.alpha
        path.append({"gamma": mu, "value": float(value), "time_s": time.perf_counter() - t0})
        if value < state["best"][0]:
            state["best"] = (float(value), mu, sol.alpha.copy())
        return value

    res = minimize_scalar(lambda m: min(evaluate(m), 1e300), bounds=(g_lo, g_hi),
                          method="bounded", options={"xatol": tol, "maxiter": 500})
    info.update(search_message=str(res.message), search_success=bool(res.success),
                nit=int(getattr(res, "nit", 0) or 0))
    for end in (g_lo, g_hi):
        if abs(res.x - end) <= 10 * tol:
            evaluate(end)
    value, gamma, alpha = state["best"]
    if gamma is None:
        raise RuntimeError("no finite value of the criterion was found on the gamma interval")
    info["smo_max_violation"] = state["max_violation"]
    info["smo_tol"] = smo_tol
    return gamma, value, alpha, state["n"]
