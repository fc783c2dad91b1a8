"""Probability estimates from SVM decision values: Platt's sigmoid and pairwise coupling.

* :func:`sigmoid_train` fits P(y = +1 | f) = 1 / (1 + exp(A·f + B)) to decision values f and
  labels y ∈ {−1, +1} by minimising the cross-entropy against Platt's regularised targets
  t₊ = (N₊ + 1)/(N₊ + 2), t₋ = 1/(N₋ + 2) (Platt 1999), with the Newton method and backtracking
  line search of Lin, Lin & Weng (2007, Algorithm 1) — LIBSVM's ``sigmoid_train``. The decision
  values must be out-of-sample (held out from the SVM that made them): on training points
  they are biased towards the margin.
* :func:`sigmoid_predict` evaluates that sigmoid without overflow.
* :func:`pairwise_coupling` turns the pairwise estimates r_ij ≈ P(y = i | y ∈ {i, j}, x) of the
  one-vs-one machines into class probabilities p by Wu, Lin & Weng (2004), method 2 (LIBSVM's
  ``multiclass_probability``): min_p Σ_i Σ_{j≠i} (r_ji p_i − r_ij p_j)² subject to Σp = 1,
  p ≥ 0, solved by their fixed-point iteration on Q p = (pᵀQp) e, with
  Q_tt = Σ_{j≠t} r_jt², Q_tj = −r_jt r_tj.
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["sigmoid_train", "sigmoid_predict", "pairwise_coupling", "MIN_PROB"]

#: Pairwise probabilities are clipped to [MIN_PROB, 1 − MIN_PROB] before coupling (LIBSVM's).
MIN_PROB = 1e-7


def _cross_entropy(f, t, A, B) -> float:
    """Σ_i −t_i log p_i − (1 − t_i) log(1 − p_i), p_i = 1/(1 + exp(A f_i + B)), computed
    without overflow."""
    z = A * f + B
    return float(np.sum(np.where(z >= 0, t * z + np.log1p(np.exp(-np.abs(z))),
                                 (t - 1.0) * z + np.log1p(np.exp(-np.abs(z))))))


def sigmoid_train(f, y, *, max_iter: int = 100, min_step: float = 1e-10,
                  sigma: float = 1e-12, eps: float = 1e-5) -> tuple[float, float]:
    """(A, B) of Platt's sigmoid for decision values ``f`` and labels ``y`` (> 0: the positive
    class), by Lin, Lin & Weng's Newton method (module docstring). A ValueError when f and y
    differ in length, are empty or not finite."""
    f = np.asarray(f, dtype=np.float64).ravel()
    y = np.asarray(y).ravel()
    if f.size != y.size or f.size == 0:
        raise ValueError(f"sigmoid_train needs one label per decision value, got {f.size} "
                         f"values and {y.size} labels")
    if not np.all(np.isfinite(f)):
        raise ValueError("sigmoid_train: the decision values must be finite")
    pos = y > 0
    prior1, prior0 = float(pos.sum()), float((~pos).sum())
    t = np.where(pos, (prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0))
    A, B = 0.0, float(np.log((prior0 + 1.0) / (prior1 + 1.0)))
    fval = _cross_entropy(f, t, A, B)
    for _ in range(max_iter):
        z = A * f + B
        e = np.exp(-np.abs(z))
        # p = 1/(1 + exp(z)) and q = 1 − p, each without overflow
        p = np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))
        q = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        d2 = p * q
        h11 = sigma + float(np.dot(f * f, d2))
        h22 = sigma + float(d2.sum())
        h21 = float(np.dot(f, d2))
        d1 = t - p
        g1, g2 = float(np.dot(f, d1)), float(d1.sum())
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            newA, newB = A + step * dA, B + step * dB
            newf = _cross_entropy(f, t, newA, newB)
            if newf < fval + 1e-4 * step * gd:
                A, B, fval = newA, newB, newf
                break
            step /= 2.0
        if step < min_step:
            warnings.warn("sigmoid_train: the line search failed; the sigmoid is the last "
                          "accepted one", RuntimeWarning, stacklevel=2)
            break
    return float(A), float(B)


def sigmoid_predict(f, A: float, B: float) -> np.ndarray:
    """P(y = +1 | f) = 1 / (1 + exp(A·f + B)), computed without overflow."""
    z = A * np.asarray(f, dtype=np.float64) + B
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))


def pairwise_coupling(r: np.ndarray, max_iter: int | None = None) -> np.ndarray:
    """Class probabilities from pairwise estimates by Wu, Lin & Weng's method 2 (module
    docstring): ``r`` of shape (k, k) — r[i, j] ≈ P(i | i or j, x), r[j, i] = 1 − r[i, j], the
    diagonal ignored — gives (k,); a stack (n, k, k) gives (n, k), each row iterated as alone.
    A row stops when max_t |(Qp)_t − pᵀQp| < 0.005/k, or after max(100, k) rounds."""
    R = np.asarray(r, dtype=np.float64)
    single = R.ndim == 2
    if single:
        R = R[None]
    n, k, _ = R.shape
    RT = np.swapaxes(R, 1, 2)                 # RT[:, t, j] = R[:, j, t]
    Q = -RT * R                               # Q[:, t, j] = −r[j, t]·r[t, j]
    d = np.arange(k)
    Q[:, d, d] = (RT ** 2).sum(axis=2) - R[:, d, d] ** 2      # Σ_{j≠t} r[j, t]²
    P = np.full((n, k), 1.0 / k)
    eps = 0.005 / k
    active = np.ones(n, dtype=bool)
    for _ in range(max(100, k) if max_iter is None else max_iter):
        Qp = np.einsum("ntj,nj->nt", Q, P)    # recomputed each round, for accuracy
        pQp = (P * Qp).sum(axis=1)
        active &= np.max(np.abs(Qp - pQp[:, None]), axis=1) >= eps
        if not active.any():
            break
        a = np.flatnonzero(active)
        Qa, Pa, Qpa, pQpa = Q[a], P[a], Qp[a], pQp[a]
        for t in range(k):
            diff = (-Qpa[:, t] + pQpa) / Qa[:, t, t]
            Pa[:, t] += diff
            pQpa = ((pQpa + diff * (diff * Qa[:, t, t] + 2.0 * Qpa[:, t]))
                    / (1.0 + diff) / (1.0 + diff))
            Qpa = (Qpa + diff[:, None] * Qa[:, t, :]) / (1.0 + diff)[:, None]
            Pa /= (1.0 + diff)[:, None]
        P[a] = Pa
    return P[0] if single else P
