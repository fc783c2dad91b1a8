"""The linear algebra of the span estimates (Chapelle et al. 2002 §6.3–6.4), shared by the
classifier's span bound (``criteria.span``) and the ε-SVR's (``criteria.svr``).

* :func:`span_squared`: S_p² = 1/((M̃ + D)⁻¹)_pp − D_pp over the support vectors, M̃ = [[K̃_SV, 1],
  [1ᵀ, 0]], D = diag(η/α, 0) (eq. 12 and its regularised form), from a Cholesky factor of
  K̃_SV + D with the border eliminated by its Schur complement;
* :class:`HyperplaneSolver`: H (x, t) = (r, q), H = [[K̃^Y, y], [yᵀ, 0]] (§6.3), from one
  factorisation; :func:`polish_alpha_b` and :func:`alpha_b_adjoint` on it;
* :func:`span_sum_adjoint`, :func:`span_weight_matrix`: the gradient of Σ_p c_p α_p S̃_p² in
  adjoint form, as a weight matrix W on ∂K̃/∂θ.
"""

from __future__ import annotations

import numpy as np

from .._lapack import (mirror_upper, potrf_upper, potri_upper, potrs_upper, symmetrize,
                       syrk_upper)
from ..kernels.derivatives import BLOCK_ROWS as _BLOCK   # rows per in-place block update

__all__ = ["span_squared", "HyperplaneSolver", "hyperplane_system", "polish_alpha_b",
           "alpha_b_adjoint", "span_sum_adjoint", "span_weight_matrix"]


def _c_ordered(M):
    """M as a C-ordered array over the same memory: M itself, or M.T for a Fortran-ordered M
    (the same matrix when M is symmetric). A matrix that is neither is refused: the numba
    routines work on the memory, not on strided views."""
    if M.flags.c_contiguous:
        return M
    if M.flags.f_contiguous:
        return M.T
    raise ValueError("a contiguous matrix is needed")


def _diag_scaled_square(B, w) -> np.ndarray:
    """diag(B diag(w) B) = (B ∘ B) w for a symmetric B (Σ_k B_ik w_k B_ki with B_ki = B_ik), in
    row blocks: the diagonal of the span gradient's P without forming P."""
    out = np.empty(B.shape[0])
    for i0 in range(0, B.shape[0], _BLOCK):
        blk = B[i0:i0 + _BLOCK]
        out[i0:i0 + _BLOCK] = np.square(blk) @ w
    return out


def _scaled_square(B, w) -> np.ndarray:
    """P = B diag(w) B for a symmetric B and w ≥ 0, as P = M Mᵀ with M = B diag(√w).

    M is made in B's memory (B's content is lost) and P by one BLAS rank-k update (dsyrk: one
    triangle, n³ flops against the 2n³ of a general product), then mirrored in place: one new
    n × n array, where (B diag(w)) B makes two."""
    B = np.ascontiguousarray(B)                 # (only the LU fallback's block is not)
    B *= np.sqrt(w)                             # columns: M = B diag(√w)
    P = syrk_upper(B)                           # C-ordered, its upper triangle filled
    mirror_upper(P)
    return P


def _bordered_inverse_blocks_spd(A, overwrite: bool = False):
    """The blocks (B, v, c) of [[A, 1], [1ᵀ, 0]]⁻¹ = [[B, v], [vᵀ, c]] for a symmetric positive
    definite A, by its Cholesky factor, or None when A is not numerically positive definite.

    With u = A⁻¹1 and s = 1ᵀu (Schur complement −s): B = A⁻¹ − uuᵀ/s, v = u/s, c = −1/s —
    about n³ flops against the 2n³ of an LU inverse of the bordered matrix. The factorisation,
    A⁻¹ and B are all made in place, in A's memory when ``overwrite`` (else in one copy): B is
    returned C-ordered and no other n × n array is made, so that a caller that needs only the
    n × n block (the span bound) holds one n × n array, not two."""
    n = A.shape[0]
    if not overwrite or not (A.flags.c_contiguous or A.flags.f_contiguous):
        A = np.array(A, order="C")
    # LAPACK works on A's memory (its upper triangle, column-major): the same matrix, A being
    # symmetric; numba calls that release the GIL (``svmbound._lapack``)
    Ainv = _c_ordered(A)
    if potrf_upper(Ainv) != 0 or potri_upper(Ainv) != 0:
        return None
    mirror_upper(Ainv.T)                        # LAPACK's triangle onto the other one
    u = Ainv.sum(axis=1)
    s = float(u.sum())
    if not np.isfinite(s) or s <= 0 or not np.all(np.isfinite(u)):
        return None
    B = Ainv
    v = u / s
    for i0 in range(0, n, _BLOCK):                  # B ← A⁻¹ − u uᵀ/s, row block by block
        i1 = min(i0 + _BLOCK, n)
        B[i0:i1] -= np.outer(u[i0:i1], v)
        if not np.all(np.isfinite(B[i0:i1])):
            return None
    return B, v, -1.0 / s


def _bordered_inverse_spd(A, overwrite: bool = False) -> np.ndarray | None:
    """[[A, 1], [1ᵀ, 0]]⁻¹ for a symmetric positive definite A, assembled from the blocks of
    ``_bordered_inverse_blocks_spd`` (None when A is not numerically positive definite). The
    peak is two n × n arrays: the block B (in A's memory when ``overwrite``) and the result."""
    blocks = _bordered_inverse_blocks_spd(A, overwrite)
    if blocks is None:
        return None
    B, v, c = blocks
    n = B.shape[0]
    G = np.empty((n + 1, n + 1))
    G[:n, :n] = B
    del blocks, B
    G[:n, n] = v
    G[n, :n] = v
    G[n, n] = c
    return G


def span_squared(K_sv, alpha_sv=None, eta: float = 0.0, overwrite: bool = False,
                 sv_block: bool = False):
    """Squared spans of the support vectors (Chapelle eq. 12 and its regularised form, §6.4).

    S_p² = 1/((M̃ + D)⁻¹)_pp − D_pp,  M̃ = [[K_SV, 1], [1ᵀ, 0]],  D = diag(η/α_1, …, η/α_n, 0).

    With η = 0 this is eq. 12, the squared distance from Φ(x_p) to the affine hull
    {Σ_{i≠p} λ_i Φ(x_i), Σ λ_i = 1} of the other support vectors (eq. 6). With η > 0 it is
    min_{Σλ=1} ‖Φ(x_p) − Σ_{i≠p} λ_i Φ(x_i)‖² + η Σ_{i≠p} λ_i²/α_i.

    The inverse is formed from the Cholesky factor of K_SV + D (positive definite for the
    L2-SVM's K̃ = K + I/C), falling back to an LU inverse of the bordered matrix. With
    ``overwrite`` K_sv's memory is used for the factorisation (its content is lost).
    Returns (S², (M̃ + D)⁻¹, diag D[:n]); with ``sv_block`` the second item is only the n × n
    support-vector block of (M̃ + D)⁻¹ — all the span-bound gradient needs — which the
    Cholesky path makes in place (in K_sv's memory with ``overwrite``) instead of copying it
    into a new (n + 1)² array.
    """
    K_sv = np.asarray(K_sv, dtype=np.float64)
    n = K_sv.shape[0]
    d = np.zeros(n)
    A = K_sv if overwrite else K_sv.copy()
    if eta > 0:
        d = eta / np.asarray(alpha_sv, dtype=np.float64)
        A[np.arange(n), np.arange(n)] += d
    if sv_block:
        blocks = _bordered_inverse_blocks_spd(A, overwrite=overwrite)
        Ginv = None if blocks is None else blocks[0]
        del blocks
    else:
        Ginv = _bordered_inverse_spd(A, overwrite=overwrite)
    if Ginv is None:
        if overwrite:
            raise np.linalg.LinAlgError("K~_SV + D is not positive definite; call span_squared "
                                        "without overwrite for the LU fallback")
        G = np.zeros((n + 1, n + 1))
        G[:n, :n] = A
        G[:n, n] = 1.0
        G[n, :n] = 1.0
        Ginv = np.linalg.inv(G)
        if sv_block:
            Ginv = Ginv[:n, :n]
    with np.errstate(divide="ignore"):
        s2 = 1.0 / np.diag(Ginv)[:n] - d
    return s2, Ginv, d


class HyperplaneSolver:
    """Solves Chapelle's §6.3 system H (x, t) = (r, q), H = [[K̃^Y, y], [yᵀ, 0]], from one
    factorisation: the Cholesky factor of K̃^Y = Y K̃ Y (positive definite for the L2-SVM), with
    the border eliminated by its Schur complement — with a = (K̃^Y)⁻¹y, z = (K̃^Y)⁻¹r:
    t = (yᵀz − q)/(yᵀa), x = z − a t. Falls back to an LU factorisation of H. Used twice per
    span evaluation (``polish_alpha_b`` and ``alpha_b_adjoint``)."""

    def __init__(self, Kt_sv, y_sv):
        from scipy.linalg import lu_factor

        self.y = np.asarray(y_sv, dtype=np.float64)
        self.n = self.y.size
        # K̃^Y = Y K̃ Y without an outer product, made Fortran-ordered so that LAPACK factors it
        # in place (a C-ordered one would be copied: three n × n arrays alive instead of two)
        A = np.multiply(Kt_sv, self.y[:, None], order="F")
        A *= self.y[None, :]
        self._cho = self._lu = None
        try:
            if potrf_upper(A.T) != 0:           # A.T: the C-ordered view of A's memory
                raise np.linalg.LinAlgError("K~^Y is not positive definite")
            self._cho = A.T
            self._a = self._cho_solve(self.y)
            self._s = float(self.y @ self._a)
            if not (np.isfinite(self._s) and self._s > 0 and np.all(np.isfinite(self._a))):
                raise np.linalg.LinAlgError("Schur complement not positive")
        except np.linalg.LinAlgError:
            self._cho = A = None                     # A: the failed factor, n × n
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a singular H raises below, in solve
                self._lu = lu_factor(hyperplane_system(Kt_sv, y_sv), check_finite=False)

    def _cho_solve(self, r):
        x, info = potrs_upper(self._cho, np.ascontiguousarray(r, dtype=np.float64))
        if info != 0:  # pragma: no cover - only for invalid arguments
            raise np.linalg.LinAlgError(f"dpotrs failed (info {info})")
        return x

    def solve(self, r, q: float = 0.0) -> np.ndarray:
        """(x, t) with K̃^Y x + y t = r, yᵀx = q."""
        if self._cho is not None:
            z = self._cho_solve(np.asarray(r, dtype=np.float64))
            t = (float(self.y @ z) - q) / self._s
            return np.concatenate([z - self._a * t, [t]])
        from scipy.linalg import lu_solve

        sol = lu_solve(self._lu, np.concatenate([r, [q]]), check_finite=False)
        if not np.all(np.isfinite(sol)):
            raise np.linalg.LinAlgError("singular hyperplane system")
        return sol


def hyperplane_system(Kt_sv, y_sv) -> np.ndarray:
    """Chapelle §6.3: H = [[K̃^Y, y], [yᵀ, 0]], K̃^Y_ij = y_i y_j K̃_ij over the support vectors,
    so that H (α, b) = (1, 0) and ∂(α, b)/∂θ = −H⁻¹ (∂H/∂θ) (α, b)."""
    n = y_sv.size
    H = np.zeros((n + 1, n + 1))
    H[:n, :n] = Kt_sv * np.outer(y_sv, y_sv)
    H[:n, n] = y_sv
    H[n, :n] = y_sv
    return H


def polish_alpha_b(Kt_sv, y_sv, alpha_sv, b, system: HyperplaneSolver | None = None):
    """(α, b) on the support set from Chapelle's §6.3 system H (α, b) = (1, 0).

    For the L2-SVM every support vector is on the K̃-margin, so this linear system holds exactly
    at the optimum; solving it removes the solver's tolerance-level error from α and b (which the
    span's η/α_i terms would amplify) and makes the value consistent with the §6.3 derivatives.
    Falls back to the solver's (α, b) if the solve fails or gives a non-positive α_i (the SV set
    returned by the solver was then not exact). ``system``: a ``HyperplaneSolver`` of
    (Kt_sv, y_sv) to reuse its factorisation.
    """
    n = y_sv.size
    try:
        if system is None:
            system = HyperplaneSolver(Kt_sv, y_sv)
        sol = system.solve(np.ones(n), 0.0)
    except np.linalg.LinAlgError:
        return alpha_sv, b
    if not np.all(np.isfinite(sol)) or np.any(sol[:n] <= 0):
        return alpha_sv, b
    return sol[:n], float(sol[n])


def alpha_b_adjoint(Kt_sv, y_sv, g_alpha, g_b: float = 0.0,
                    system: HyperplaneSolver | None = None) -> np.ndarray:
    """u = H⁻¹ (g_α, g_b), so that g_αᵀ dα + g_b db = −u[:n]ᵀ (∂K̃^Y/∂θ) α
    = −Σ_ij (u∘y)_i (α∘y)_j ∂K̃_ij/∂θ   (Chapelle §6.3 in adjoint form, H symmetric)."""
    if system is None:
        system = HyperplaneSolver(Kt_sv, y_sv)
    return system.solve(np.asarray(g_alpha, dtype=np.float64), g_b)[:y_sv.size]


def span_sum_adjoint(Bsv, s2, d, a, y_sv, coef, eta: float, Kt_sv=None,
                     system: HyperplaneSolver | None = None):
    """(w, u), the first step of the gradient of Σ_p c_p·(a_p S̃_p²) over the support vectors p,
    where a solves Chapelle's §6.3 system H (a, b) = (r, 0), H = [[K̃^Y, y], [yᵀ, 0]], with a
    right-hand side r that does not depend on K̃, and S̃_p² is the regularised span (§6.4,
    ``span_squared``; Bsv the SV block of (M̃ + D)⁻¹, D = diag(η/a)); ``coef`` = c.

    w_p = c_p a_p (S̃_p² + D_pp)², g_i = c_i S̃_i² − η (P_ii − c_i a_i)/a_i² with P = B diag(w) B,
    u = H⁻¹ (g, 0)[:n]. Then (:func:`span_weight_matrix`) Σ_p c_p d(a_p S̃_p²) =
    Σ_ij W_ij dK̃_ij − uᵀ dr, W = P − (u∘y)(a∘y)ᵀ — the span bound's gradient (c_p = Ψ'_p,
    r = 1) and the ε-SVR span's (y = sign β, a = |β|, r = y∘z − ε). Two steps, so that the caller
    releases the §6.3 factor between them (the peak memory: two n_SV × n_SV arrays)."""
    w = coef * a * (s2 + d) ** 2                # (S̃² + D_pp)² = 1/B_pp²; w ≥ 0
    g = coef * s2
    if eta > 0:                                 # diag P = (B ∘ B) w, without P
        g = g - eta * (_diag_scaled_square(Bsv, w) - coef * a) / a ** 2
    return w, alpha_b_adjoint(Kt_sv, y_sv, g, system=system)


def span_weight_matrix(Bsv, w, u, a, y_sv) -> np.ndarray:
    """W = B diag(w) B − (u∘y)(a∘y)ᵀ, symmetrised (:func:`span_sum_adjoint`), made in Bsv's
    memory (its content is lost)."""
    W = _scaled_square(Bsv, w)                  # P = B diag(w) B
    uy, ay = u * y_sv, a * y_sv                 # W = P − (u∘y)(a∘y)ᵀ, symmetrised, in place
    for i0 in range(0, a.size, _BLOCK):
        W[i0:i0 + _BLOCK] -= np.outer(uy[i0:i0 + _BLOCK], ay)
    symmetrize(W)                               # (numba, GIL released)
    return W
