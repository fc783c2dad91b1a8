"""Kernels with one scaling factor per feature (or per group of features): ARD.

Chapelle et al. (2002) §7.3 and §8 tune the kernels

    ARD RBF             K(x, z) = exp(−Σ_k (x_k − z_k)² / (2σ_k²))
    scaled polynomial   K(x, z) = (1 + Σ_k x_k z_k / σ_k²)^p

with θ_k = ln σ_k² (log-space, DESIGN.md §2); Chapelle's scaling factor of feature k is 1/σ_k
(K_θ(x, z) = K(θᵀx, θᵀz) of §8 with θ_k = 1/σ_k). With ``groups`` (an int array of length d that
maps each feature to a group, e.g. the 16 tiles of 16 pixels of Chapelle Fig. 4, see
``tile_groups``) all the features of a group share one σ², and there is one θ per group.

Both kernels are the isotropic kernels of ``svmbound.kernels`` applied to the rescaled data
u = X/σ, so ``prepare(X)`` returns u and ``spec()`` the isotropic kernel (RBF with γ = ½, or the
polynomial with coef0 = 1): the numba solvers never see the scaling.

Derivative contractions (DESIGN.md §3), with u = X/σ and M = W ∘ (a kernel-sized factor):

* ARD RBF: ∂K/∂θ_k = K · (u_k − v_k)² / 2, so for a weight matrix W over the pairs (i, j),
  with M = W ∘ K,
      c_k = ½ Σ_ij M_ij (u_ik − u_jk)²
          = ½ [Σ_i (M1)_i u_ik² + Σ_j (Mᵀ1)_j u_jk² − 2 Σ_i u_ik (M U)_ik],
  i.e. three BLAS products, O(n_a n_b d), never a d×n×n array. ∂K_ii/∂θ = 0.
* scaled polynomial: ∂K/∂θ_k = −p B^(p−1) u_k v_k with B = 1 + ⟨u, v⟩, so with
  M = W ∘ (p B^(p−1)),  c_k = −Σ_i u_ik (M V)_ik,  and on the diagonal
  ∂K_ii/∂θ_k = −p (1 + ‖u_i‖²)^(p−1) u_ik².

Per-group values are the sums over the member features (``np.bincount``). Both build their
blocks in rows so that no product exceeds ~2²⁴ elements (DESIGN.md §5).

``contract(X, a, b)`` (the rank-one contraction the radius–margin criteria need) and
``contract_matrix(X, W)`` (a general weight matrix, which the span-bound gradient needs; see
``svmbound.criteria.span.SpanBound``) share the same code.
"""

from __future__ import annotations

import functools

import numpy as np

from .._sparse import issparse, reject_sparse
from .._validation import check_degree
from .standard import POLY, RBF, Kernel, PolynomialKernel, RBFKernel, _row_blocks, _support

__all__ = ["ARDRBFKernel", "ScaledPolynomialKernel", "tile_groups", "check_groups",
           "takes_rows"]


def takes_rows(X) -> bool:
    """Whether the per-feature kernels take the rows X: dense only (the scaling X/σ of a CSR
    matrix is computed dense; ``_check_X`` refuses it with the reason)."""
    return not issparse(X)


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------
def check_groups(groups) -> np.ndarray | None:
    """``groups`` as an int64 array of length d with values 0..G−1, every group non-empty."""
    if groups is None:
        return None
    g = np.asarray(groups)
    if g.ndim != 1 or g.size == 0:
        raise ValueError(f"groups must be a non-empty 1-D array mapping each feature to a group "
                         f"index, got shape {g.shape}")
    if g.dtype.kind == "b" or g.dtype.kind not in "iuf":
        raise ValueError(f"groups must contain integers 0..G-1, got dtype {g.dtype}")
    if g.dtype.kind == "f":
        if not np.all(np.isfinite(g)) or not np.all(g == np.round(g)):
            raise ValueError("groups must contain integers 0..G-1 (found a non-integer or NaN)")
    g = g.astype(np.int64)
    if g.min() < 0:
        raise ValueError(f"groups must contain integers 0..G-1, found {int(g.min())}")
    n_groups = int(g.max()) + 1
    counts = np.bincount(g, minlength=n_groups)
    if np.any(counts == 0):
        empty = np.flatnonzero(counts == 0)[:10].tolist()
        raise ValueError(f"groups must use every index 0..{n_groups - 1}; groups {empty} have no "
                         "feature")
    return g


def _check_sigma2(sigma2, n_expected: int | None) -> np.ndarray:
    try:
        s = np.array(sigma2, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"sigma2 must be an array of numbers > 0, got {sigma2!r}") from None
    if s.ndim == 0:
        if n_expected is None:
            raise ValueError("sigma2 must be an array with one value per feature (a scalar is "
                             "accepted only together with groups)")
        s = np.full(n_expected, float(s))
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"sigma2 must be a non-empty 1-D array, got shape {s.shape}")
    if n_expected is not None and s.size != n_expected:
        raise ValueError(f"sigma2 has {s.size} values but groups define {n_expected} groups "
                         "(one sigma2 per group)")
    if np.any(np.isnan(s)):
        raise ValueError(f"sigma2 contains NaN (first at index {int(np.flatnonzero(np.isnan(s))[0])})")
    bad = ~np.isfinite(s) | (s <= 0)
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"sigma2 must be finite and > 0, got sigma2[{k}] = {s[k]!r}")
    return s


def tile_groups(shape=(16, 16), tile=(4, 4)) -> np.ndarray:
    """Groups of pixels in square tiles, row-major pixel order (Chapelle Fig. 4: a 16×16 image in
    16 tiles of 4×4 pixels). Returns an int array of length shape[0]·shape[1]."""
    h, w = (int(v) for v in shape)
    th, tw = (int(v) for v in tile)
    if min(h, w, th, tw) < 1 or h % th or w % tw:
        raise ValueError(f"tile {tile} must divide the image shape {shape}")
    r, c = np.divmod(np.arange(h * w), w)
    return (r // th) * (w // tw) + c // tw


@functools.lru_cache(maxsize=32)
def _param_names(prefix: str, n: int) -> tuple:
    return tuple(f"{prefix}_{k}" for k in range(n))


# --------------------------------------------------------------------------------------------
# common part
# --------------------------------------------------------------------------------------------
class _ScaledKernel(Kernel):
    """A kernel of u = X/σ with one ln σ² per feature or per group."""

    _param_prefix = "log_sigma2"

    def __init__(self, sigma2, groups=None):
        g = check_groups(groups)
        self.groups = g
        self.sigma2 = _check_sigma2(sigma2, None if g is None else int(g.max()) + 1)
        self._feature_sigma2 = self.sigma2 if g is None else self.sigma2[g]
        self._inv_sigma = 1.0 / np.sqrt(self._feature_sigma2)

    # -- parameters -----------------------------------------------------------------------
    @property
    def n_features(self) -> int:
        return self._feature_sigma2.size

    @property
    def n_params(self) -> int:
        return self.sigma2.size

    @property
    def param_names(self) -> tuple:
        # cached: criteria ask for it on every evaluation (n_params), and formatting 7129
        # names took ~2.4 ms, half the cost of a whole gradient at d = 7129
        return _param_names(self._param_prefix, self.sigma2.size)

    @property
    def theta(self):
        return np.log(self.sigma2)

    @property
    def scaling_factors(self) -> np.ndarray:
        """Chapelle's scaling factor 1/σ per parameter (per feature, or per group)."""
        return 1.0 / np.sqrt(self.sigma2)

    @property
    def feature_sigma2(self) -> np.ndarray:
        """σ² of every feature (group values expanded)."""
        return self._feature_sigma2.copy()

    def _check_theta(self, theta) -> np.ndarray:
        try:
            t = np.atleast_1d(np.asarray(theta, dtype=np.float64))
        except (TypeError, ValueError):
            raise ValueError(f"{self.name} kernel: theta must be numeric, got {theta!r}") from None
        if t.shape != (self.n_params,):
            raise ValueError(f"{self.name} kernel takes {self.n_params} values of ln sigma2, "
                             f"got theta of shape {t.shape}")
        if not np.all(np.isfinite(t)):
            raise ValueError(f"{self.name} kernel: theta must be finite, got {t!r}")
        return t

    def _check_X(self, X, name="X") -> np.ndarray:
        reject_sparse(X, f"the {self.name} kernel (per-feature scaling factors)")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"{self.name} kernel has {self.n_features} scaling factors "
                             f"(features), but {name} has shape {X.shape}")
        return X

    def prepare(self, X):
        """u = X / σ (the data the numba solvers see with the isotropic ``spec()`` kernel)."""
        return self._check_X(X) * self._inv_sigma

    def _sum_groups(self, per_feature: np.ndarray) -> np.ndarray:
        if self.groups is None:
            return per_feature
        return np.bincount(self.groups, weights=per_feature, minlength=self.n_params)

    # -- contractions ---------------------------------------------------------------------
    def contract(self, X, a, b=None):
        """c_k = Σ_ij a_i b_j ∂K(x_i, x_j)/∂θ_k over i with a_i ≠ 0 and j with b_j ≠ 0."""
        X = self._check_X(X)
        a = np.asarray(a, dtype=np.float64)
        sym = b is None or b is a
        b = a if b is None else np.asarray(b, dtype=np.float64)
        sym = sym or (b.shape == a.shape and np.array_equal(a, b))
        ia = _support(a)
        ib = ia if sym else _support(b)
        if ia.size == 0 or ib.size == 0:
            return np.zeros(self.n_params)
        # scale only the support rows (all of X when every weight is non-zero: no row copy)
        Ua = (X if ia.size == X.shape[0] else X[ia]) * self._inv_sigma
        if sym:         # aᵀ(∂K/∂θ_k)a: both radius and margin gradients are of this form
            return self._sum_groups(self._contract_sym(Ua, a[ia]))
        Ub = (X if ib.size == X.shape[0] else X[ib]) * self._inv_sigma
        return self._sum_groups(self._contract_u(Ua, Ub, a[ia], b[ib], None))

    def _contract_sym(self, U, a):
        """Per-feature aᵀ(∂K/∂θ_k)a over the rows of U (all with a_i ≠ 0); subclasses may
        use the symmetry (U is a fresh array and may be overwritten)."""
        return self._contract_u(U, U, a, a, None)

    def contract_matrix(self, X, W, Z=None):
        """c_k = Σ_ij W_ij ∂K(x_i, z_j)/∂θ_k for a full weight matrix W (Z = X when omitted);
        what the span-bound gradient needs (Σ_ij W_ij ∂K̃_ij/∂θ over the support vectors)."""
        X = self._check_X(X)
        Z = X if Z is None else self._check_X(Z, "Z")
        W = np.asarray(W, dtype=np.float64)
        if W.shape != (X.shape[0], Z.shape[0]):
            raise ValueError(f"W must have shape {(X.shape[0], Z.shape[0])}, got {W.shape}")
        U, V = X * self._inv_sigma, Z * self._inv_sigma
        return self._sum_groups(self._contract_u(U, V, None, None, W))

    @property
    def feature_scales(self) -> np.ndarray:
        """Chapelle's scaling factor of each feature, 1/σ_k (a group's for its members; one
        per parameter: ``scaling_factors``)."""
        return self._inv_sigma.copy()

    def get_params(self):
        return {"sigma2": self.sigma2.copy(),
                "groups": None if self.groups is None else self.groups.copy()}

    def __repr__(self):
        g = "" if self.groups is None else f", groups=<{self.n_params} groups of {self.n_features} features>"
        return f"{type(self).__name__}(sigma2=<{self.sigma2.size} values>{g})"


# --------------------------------------------------------------------------------------------
# ARD RBF
# --------------------------------------------------------------------------------------------
class ARDRBFKernel(_ScaledKernel):
    """K(x, z) = exp(−Σ_k (x_k − z_k)²/(2σ_k²)),  θ = ln σ_k² (one per feature or per group).

    Chapelle et al. 2002 §7.3; equal σ_k² = σ² gives ``RBFKernel(σ²)`` exactly.
    """

    name = "ard-rbf"

    def with_theta(self, theta):
        return ARDRBFKernel(np.exp(self._check_theta(theta)), self.groups)

    def block(self, X, Z=None):
        """K(X, Z) = RBF with σ² = 1 of X/σ and Z/σ (centred, exact 1 on the diagonal when Z is X)."""
        same = Z is None or Z is X
        U = self.prepare(X)
        return _UNIT_RBF.block(U, U if same else self.prepare(Z))

    def diag(self, X):
        return np.ones(self._check_X(X).shape[0])

    def diag_contract(self, X, w):
        return np.zeros(self.n_params)

    def spec(self):
        return (RBF, 0.5, 0.0, 1)

    def _contract_sym(self, U, a):
        """½ Σ_ij M_ij (u_ik − u_jk)² with M = (a aᵀ) ∘ K symmetric, which equals
        Σ_i u_ik (L U)_ik with the Laplacian L = diag(M1) − M: one Gram product and one product
        L U per row block, where the general path needs two centrings, two Gram-size products
        and three more n×d passes (about 1.7× faster at n = 38, d = 7129). L1 = 0, so the
        value is translation invariant; U is centred first all the same (fewer digits lost
        in ‖u‖² + ‖v‖² − 2⟨u, v⟩)."""
        U -= U.mean(axis=0)
        sq = np.einsum("ij,ij->i", U, U)
        acc = np.zeros(U.shape[1])
        for rows in _row_blocks(U.shape[0], U.shape[0]):
            Ur = U[rows]
            M = Ur @ U.T
            M *= -2.0
            M += sq[rows][:, None]
            M += sq[None, :]
            np.maximum(M, 0.0, out=M)
            M *= -0.5
            np.exp(M, out=M)                          # K block
            M *= a[rows][:, None]
            M *= a[None, :]
            r = M.sum(axis=1)
            M *= -1.0
            M[np.arange(M.shape[0]), np.arange(rows.start, rows.start + M.shape[0])] += r
            acc += np.einsum("ik,ik->k", Ur, M @ U)
        return acc

    def _contract_u(self, U, V, a, b, W):
        """Per-feature ½ Σ_ij M_ij (u_ik − v_jk)², M = (a bᵀ or W) ∘ K(U, V), in row blocks."""
        m = V.mean(axis=0)            # translation invariant: centre (fewer digits lost)
        U, V = U - m, V - m
        V2 = V * V
        sqv = V2.sum(axis=1)
        col_sum = np.zeros(V.shape[0])
        acc = np.zeros(U.shape[1])
        for rows in _row_blocks(U.shape[0], V.shape[0]):
            Ur = U[rows]
            sqr = np.einsum("ij,ij->i", Ur, Ur)
            M = Ur @ V.T
            M *= -2.0
            M += sqr[:, None]
            M += sqv[None, :]
            np.maximum(M, 0.0, out=M)
            M *= -0.5
            np.exp(M, out=M)                          # K block
            if W is None:
                M *= a[rows][:, None]
                M *= b[None, :]
            else:
                M *= W[rows]
            row_sum = M.sum(axis=1)
            col_sum += M.sum(axis=0)
            acc += row_sum @ (Ur * Ur)
            acc -= 2.0 * np.einsum("ik,ik->k", Ur, M @ V)
        acc += col_sum @ V2
        return 0.5 * acc


# --------------------------------------------------------------------------------------------
# scaled polynomial
# --------------------------------------------------------------------------------------------
class ScaledPolynomialKernel(_ScaledKernel):
    """K(x, z) = (1 + Σ_k x_k z_k/σ_k²)^p,  θ = ln σ_k² (one per feature or per group); the
    degree p ≥ 1 is fixed. Chapelle et al. 2002 §7.3 (p = 2). p = 1 is the scaled linear kernel
    (plus a constant, which changes neither R² nor ‖w‖² of an SVM with threshold). Equal σ_k² = σ²
    gives ``PolynomialKernel(p, coef0=1)`` on X/σ."""

    name = "scaled-poly"

    def __init__(self, sigma2, degree: int = 2, groups=None):
        super().__init__(sigma2, groups)
        self.degree = check_degree(degree)
        self._poly = PolynomialKernel(self.degree, 1.0)

    def with_theta(self, theta):
        return ScaledPolynomialKernel(np.exp(self._check_theta(theta)), self.degree, self.groups)

    def block(self, X, Z=None):
        U = self.prepare(X)
        return self._poly.block(U, U if (Z is None or Z is X) else self.prepare(Z))

    def diag(self, X):
        U = self.prepare(X)
        return (1.0 + np.einsum("ij,ij->i", U, U)) ** self.degree

    def diag_contract(self, X, w):
        """Σ_i w_i ∂K_ii/∂θ_k = −p Σ_i w_i (1 + ‖u_i‖²)^(p−1) u_ik²."""
        X = self._check_X(X)
        w = np.asarray(w, dtype=np.float64)
        nz = _support(w)
        if nz.size == 0:
            return np.zeros(self.n_params)
        Un = (X if nz.size == X.shape[0] else X[nz]) * self._inv_sigma
        base = 1.0 + np.einsum("ij,ij->i", Un, Un)
        coef = w[nz] * self.degree * base ** (self.degree - 1)
        return self._sum_groups(-(coef @ (Un * Un)))

    def spec(self):
        return (POLY, 1.0, 1.0, self.degree)

    def _contract_u(self, U, V, a, b, W):
        """Per-feature −Σ_i u_ik (M V)_ik with M = (a bᵀ or W) ∘ p B^(p−1), B = 1 + U Vᵀ."""
        p = self.degree
        if p == 1 and W is None:      # M = a bᵀ has rank one: c = −(aᵀU) ∘ (bᵀV), O((n_a + n_b) d)
            return -(a @ U) * (b @ V)
        acc = np.zeros(U.shape[1])
        for rows in _row_blocks(U.shape[0], V.shape[0]):
            Ur = U[rows]
            if p == 1:
                M = np.ones((Ur.shape[0], V.shape[0]))
            else:
                M = Ur @ V.T
                M += 1.0
                if p > 2:
                    M **= p - 1
                M *= p
            if W is None:
                M *= a[rows][:, None]
                M *= b[None, :]
            else:
                M *= W[rows]
            acc -= np.einsum("ik,ik->k", Ur, M @ V)
        return acc

    def get_params(self):
        params = super().get_params()
        params["degree"] = self.degree
        return params


_UNIT_RBF = RBFKernel(1.0)
