"""Validation-set criteria of Chapelle et al. (2002): the plain validation error (eq. 4) and its
smoothed version built on Platt's posterior (§4, eq. 9), differentiable through §6.3.

The training data given to the criterion are split once (stratified; ``validation_fraction`` of
the points held out, ``random_state``) unless an explicit validation set ``X_val, y_val`` is given
(then all of X, y is used for training). The L2-SVM (a hard-margin SVM with K̃ = K + I/C,
Chapelle eq. 3) is trained on the training part at every θ = (ln C, kernel θ); a validation
point x' is scored with f(x') = Σ_j α_j y_j K(x', x_j) + b (plain K: x' is not a training point).

For the smoothed criterion α and b are refined on the support set by the §6.3 linear system
(``span.polish_alpha_b``) before f is computed, as in the span bound.

Scale: both values are **numbers of (smoothed) errors on the validation set** — eq. 9 is a sum;
eq. 4 is used without its 1/p so that the two are on the same scale. ``info['rate']`` = value/p.

Per-sample weights (``Problem(X, y, weights)``, C_i = C·w_i): the training part keeps its
points' weights (K̃ = K + diag(1/C_i)), and each validation point counts with its weight v_i
(the weights of the held-out points; ones for an explicit ``X_val``): T = Σ v_i step(−y'_i
f(x'_i)), resp. Σ v_i min(P̃_i, 1 − P̃_i), and ``info['rate']`` = T/Σv. Platt's fit is not
weighted.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from .._sparse import c_contiguous, stack_rows
from .._validation import check_pm1, check_X
from ..solvers import check_problem, decision_function
from .base import Criterion
from .reference import misclassified
from .span_algebra import alpha_b_adjoint, polish_alpha_b


def platt_targets(y) -> np.ndarray:
    """Platt's smoothed targets: t = (N₊ + 1)/(N₊ + 2) for y = +1, 1/(N₋ + 2) for y = −1."""
    y = np.asarray(y, dtype=np.float64)
    n_pos = float(np.count_nonzero(y > 0))
    n_neg = float(y.size - n_pos)
    return np.where(y > 0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


def platt_nll(A: float, B: float, f, t) -> float:
    """Negative log-likelihood of P̃(x) = 1/(1 + exp(A f(x) + B)) for targets t:
    −Σ t_i log P̃_i + (1 − t_i) log(1 − P̃_i) = Σ (t_i − 1) z_i + log(1 + e^{z_i}), z = A f + B."""
    z = A * np.asarray(f) + B
    return float(np.sum((t - 1.0) * z + np.logaddexp(0.0, z)))


def platt_fit(f, y, *, max_iter: int = 200, fit_offset: bool = True) -> tuple[float, float]:
    """Platt's (A, B): maximum likelihood of P̃ = 1/(1 + exp(A f + B)) with Platt's target
    smoothing (Chapelle §4; Platt 2000), by Newton's method with Armijo backtracking (as in
    Lin, Lin & Weng 2007) and plain Newton steps once in the quadratic region, iterated to
    machine precision (until a full Newton step moves z = A f + B by less than 1e-13, relative),
    so that (A, B) — and the smoothed validation error — are smooth functions of f.

    The smoothed targets keep (A, B) finite even when the validation set is separated; with the
    0/1 targets of Chapelle's formula A would go to −∞ there (as he notes).

    ``fit_offset=False``: B = 0 is held (the sigmoid is centred on the SVM's own threshold
    f = 0) and A alone is fitted.
    """
    f = np.asarray(f, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    t = platt_targets(y)
    n_pos = float(np.count_nonzero(y > 0))
    n_neg = float(y.size - n_pos)
    A, B = 0.0, (float(np.log((n_neg + 1.0) / (n_pos + 1.0))) if fit_offset else 0.0)
    fval = platt_nll(A, B, f, t)
    f_scale = float(np.abs(f).max(initial=0.0))
    for _ in range(max_iter):
        P = expit(-(A * f + B))
        r = t - P                                  # ∂NLL/∂z
        q = P * (1.0 - P)                          # ∂²NLL/∂z²
        gA, gB = float(r @ f), float(r.sum())
        h11, h21, h22 = float(q @ (f * f)), float(q @ f), float(q.sum())
        det = h11 * h22 - h21 * h21
        if not fit_offset:                         # B = 0 held: Newton in A alone
            dA, dB = (-gA / h11 if h11 > 0 else 0.0), 0.0
        elif det > 1e-14 * h11 * h22 and det > 0:
            dA = -(h22 * gA - h21 * gB) / det
            dB = -(-h21 * gA + h11 * gB) / det
        else:                                      # (nearly) constant f: fit B alone
            dA, dB = 0.0, (-gB / h22 if h22 > 0 else 0.0)
        gd = gA * dA + gB * dB
        if gd >= 0:
            break
        step = 1.0
        if -gd <= 1e-9 * (1.0 + abs(fval)):
            # quadratic region: take the plain Newton step (the likelihood decrease is below
            # rounding there, so a line search would wrongly reject it)
            new = platt_nll(A + dA, B + dB, f, t)
        else:
            while step >= 1e-12:
                new = platt_nll(A + step * dA, B + step * dB, f, t)
                if new <= fval + 1e-4 * step * gd:
                    break
                step *= 0.5
            else:
                break                              # no decrease possible: at the minimum
        A, B, fval = A + step * dA, B + step * dB, new
        moved = step * (abs(dA) * f_scale + abs(dB))
        if step == 1.0 and moved <= 1e-13 * (1.0 + abs(A) * f_scale + abs(B)):
            break
    return A, B


def _stratified_split(y, fraction: float, random_state):
    from sklearn.model_selection import train_test_split

    idx = np.arange(y.size)
    return train_test_split(idx, test_size=fraction, stratify=y, random_state=random_state)


class _HeldOutCriterion(Criterion):
    """Base: hold out a validation set; train the L2-SVM on the rest."""

    loss = "l2"

    def __init__(self, problem, kernel, *, validation_fraction: float = 0.3, random_state=0,
                 X_val=None, y_val=None, **kw):
        problem = check_problem(problem, type(self).__name__)
        y = check_pm1(problem.y, problem.n)
        w_val = None
        if (X_val is None) != (y_val is None):
            raise ValueError("give both X_val and y_val, or neither")
        if X_val is None:
            fraction = float(validation_fraction)
            if not 0.0 < fraction < 1.0:
                raise ValueError(f"validation_fraction must be in (0, 1), got {validation_fraction!r}")
            train, val = _stratified_split(y, fraction, random_state)
            train, val = np.sort(train), np.sort(val)
            X_val, y_val = problem.X[val], y[val]
            if problem.weights is not None:
                w_val = problem.weights[val]
            problem = problem.take(train, y[train])
            self.train_index_, self.val_index_ = train, val
        else:
            X_val = check_X(X_val, "X_val")
            if X_val.shape[1] != problem.X.shape[1]:
                raise ValueError(f"X_val has {X_val.shape[1]} features, X has {problem.X.shape[1]}")
            y_val = np.asarray(y_val, dtype=np.float64).ravel()
            if y_val.shape[0] != X_val.shape[0] or not np.all(np.abs(y_val) == 1.0):
                raise ValueError("y_val must hold one label in {-1, +1} per row of X_val")
            self.train_index_ = self.val_index_ = None
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        super().__init__(problem, kernel, **kw)
        self.X_val = c_contiguous(X_val)
        self.y_val = np.ascontiguousarray(y_val)
        #: weights of the validation points (None: ones)
        self.w_val = w_val

    def _info(self, sol, value) -> dict:
        total = self.y_val.size if self.w_val is None else float(self.w_val.sum())
        return {"n_sv": int(sol.support.size), "b": sol.b, "n_iter": sol.n_iter,
                "max_violation": sol.max_violation, "n_train": int(self.y.size),
                "n_val": int(self.y_val.size), "rate": float(value) / total}


class ValidationError(_HeldOutCriterion):
    """Validation error (Chapelle eq. 4) of the L2-SVM trained on the training part:
    T = Σ_{i=1}^{p} step(−y'_i f(x'_i)), step(x) = 1 for x > 0 — a count (info['rate'] = T/p),
    with a point at f = 0 an error unless y'_i = −1: the label ``predict`` gives it
    (``reference.misclassified``)."""

    name = "validation-error"
    differentiable = False
    formula = ("#{i in validation set : sign(f(x'_i)) != y'_i, f = 0 predicting -1 as predict "
               "does} (error count; L2-SVM trained on the rest)")
    source = "Chapelle et al. 2002 eq. 4"

    def _compute(self, C, kernel, need_grad):
        sol = self.solve_svm(C, kernel)
        f = decision_function(self.X, self.y, sol.alpha, sol.b, kernel, self.X_val)
        wrong = misclassified(self.y_val, f)
        value = float(np.count_nonzero(wrong) if self.w_val is None else self.w_val[wrong].sum())
        return value, None, self._info(sol, value)


class SmoothedValidationError(_HeldOutCriterion):
    """Smoothed validation error (Chapelle §4, eq. 9) with its gradient (§6.3).

    T(θ) = Σ_{i=1}^{p} min(P̃(x'_i), 1 − P̃(x'_i)),  P̃(x) = 1/(1 + exp(A f(x) + B)),
    f(x) = Σ_{j∈SV} α_j y_j K(x, x_j) + b, (A, B) = Platt's maximum-likelihood fit on the
    validation outputs (with Platt's smoothed targets, see ``platt_fit``).

    Gradient: with s_i = +1 if P̃_i < ½ else −1 and q_i = P̃_i(1 − P̃_i),
      ∂T/∂θ = Σ_i −s_i q_i (A ∂f_i/∂θ + f_i ∂A/∂θ + ∂B/∂θ),
      ∂f_i/∂θ = Σ_j (∂α_j/∂θ) y_j K_ij + ∂b/∂θ + Σ_j α_j y_j ∂K(x'_i, x_j)/∂θ,
      ∂(α, b)/∂θ = −H⁻¹ (∂H/∂θ) (α, b),  H = [[K̃^Y, y], [yᵀ, 0]] on the support vectors (§6.3),
    evaluated in adjoint form (one (n_sv+1)-system solve, kernel contractions only — any kernel).
    (A, B) depend on θ through f; by default (``fixed_platt=False``) ∂(A, B)/∂θ is included by
    implicit differentiation of Platt's likelihood equations ∇_{A,B} NLL = 0 (a 2×2 solve, 1×1
    with ``fit_offset=False``), so the gradient is the exact derivative of the value returned.

    ``fit_offset`` (default False): whether Platt's offset B is fitted. With B fitted (Platt,
    Chapelle) the sigmoid moves its threshold to wherever it ranks the validation outputs best,
    so T scores the *ranking* of f, not the classifier sign(f) that is returned: at small C the
    L2-SVM's b is dominated by the class sizes, every point falls on one side, and T can still
    be small — the search then ends at a model that predicts one class (IDA ringnorm split 2:
    50.8 % test error; LIBSVM breast-cancer 35.1 %, issue 12). With B = 0 the sigmoid is centred
    on the returned classifier's threshold f = 0, and T is a smoothed count of its validation
    errors (eq. 4 smoothed). With ``fixed_platt=True`` A and B
    are held constant, as in the paper (which does not differentiate them); that is *not* the
    derivative of T, because (A, B) maximise the likelihood, not T (no envelope theorem here).
    """

    name = "smoothed-validation"
    differentiable = True
    formula = ("sum_{i in validation set} min(P~_i, 1 - P~_i), P~ = 1/(1+exp(A f + B)), A "
               "Platt's ML fit on the validation outputs, B = 0 (fit_offset=True: B fitted "
               "too, as Platt/Chapelle) (a smoothed error count)")
    source = "Chapelle et al. 2002 sec. 4 eq. 9, sec. 6.3; Platt 2000"

    def __init__(self, problem, kernel, *, fixed_platt: bool = False, fit_offset: bool = False,
                 **kw):
        super().__init__(problem, kernel, **kw)
        self.fixed_platt = bool(fixed_platt)
        self.fit_offset = bool(fit_offset)

    def _compute(self, C, kernel, need_grad):
        sol = self.solve_svm(C, kernel)
        sv = sol.support
        Xsv, ysv = self.X[sv], self.y[sv]
        Kt = kernel.block(Xsv)
        Kt[np.diag_indices_from(Kt)] += self.l2_shift(C, sv)
        a, b = polish_alpha_b(Kt, ysv, sol.alpha[sv], sol.b)
        Kv = kernel.block(self.X_val, Xsv)             # K(x'_i, x_j), j ∈ SV
        f = Kv @ (a * ysv) + b
        A, B = platt_fit(f, self.y_val, fit_offset=self.fit_offset)
        P = expit(-(A * f + B))
        value = float(np.minimum(P, 1.0 - P).sum() if self.w_val is None
                      else self.w_val @ np.minimum(P, 1.0 - P))
        info = self._info(sol, value)
        info.update(platt_A=A, platt_B=B,
                    validation_errors=int(np.count_nonzero(misclassified(self.y_val, f))))
        if not need_grad:
            return value, None, info
        s = np.where(P < 0.5, 1.0, -1.0)
        if self.w_val is not None:
            s = s * self.w_val                          # each term of T counts with v_i
        q = P * (1.0 - P)
        c = -s * q * A                                  # ∂T/∂f_i at fixed (A, B)
        if not self.fixed_platt:
            t = platt_targets(self.y_val)
            r = np.array([-(s * q) @ f, -(s * q).sum()])           # ∂T/∂(A, B)
            Hn = np.array([[q @ (f * f), q @ f], [q @ f, q.sum()]])  # ∇² NLL
            J = np.vstack([(t - P) + A * q * f, A * q])            # ∂∇NLL/∂f
            if not self.fit_offset:                     # B = 0 is not a function of f
                r, Hn, J = r[:1], Hn[:1, :1], J[:1]
            v = np.linalg.solve(Hn, r)
            c = c - v @ J                               # + ∂T/∂(A,B) · ∂(A,B)/∂f
        # Σ_i c_i ∂f_i = g_αᵀ dα + g_b db + Σ_ij c_i α_j y_j ∂K(x'_i, x_j)
        u = alpha_b_adjoint(Kt, ysv, ysv * (Kv.T @ c), float(c.sum()))
        grad = np.empty(self.n_params)
        grad[0] = float(u @ self.over_w(a, sv)) / C    # ∂K̃/∂ln C = −diag(1/C_i); cross K has none
        nv, ns = self.y_val.size, sv.size
        Z = stack_rows(self.X_val, Xsv)
        cross = kernel.contract(Z, np.r_[c, np.zeros(ns)], np.r_[np.zeros(nv), a * ysv])
        held = kernel.contract(Xsv, u * ysv, a * ysv)
        grad[1:] = cross - held
        return value, grad, info


__all__ = ["SmoothedValidationError", "ValidationError", "platt_fit", "platt_nll",
           "platt_targets"]
