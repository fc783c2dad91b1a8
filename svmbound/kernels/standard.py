"""Kernels K(X, Z; θ) and their parameter-derivative contractions.

Every kernel exposes the parameters a search tunes as a vector ``theta`` (log-space where the
parameter is positive, e.g. θ = ln σ² for the RBF kernel, DESIGN.md §2) and provides

* ``block(X, Z)``            the kernel matrix K(X, Z), built in row blocks;
* ``diag(X)``                K(x_i, x_i);
* ``contract(X, a, b)``      the vector c_k = aᵀ (∂K/∂θ_k) b over the rows where a ≠ 0 and the
                             columns where b ≠ 0 (DESIGN.md §3: the envelope-theorem gradients of
                             ‖w‖² and R² need only these contractions, over support vectors);
* ``diag_contract(X, w)``    c_k = Σ_i w_i ∂K(x_i, x_i)/∂θ_k;
* ``spec()``                 the (code, gamma, coef0, degree) tuple the numba solvers use to
                             compute kernel rows on demand.

Adding a kernel is one class here with these methods; nothing else changes.

X and Z may be dense arrays or scipy CSR matrices (``_sparse``, issue 13): the linear,
polynomial and RBF kernels are functions of inner products and row norms, which are computed
from the sparse data (blocks of the requested rows only, returned dense); no dense copy of a
sparse X is ever made. The ARD kernels (``kernels_ard``) need dense data and say so.
"""

from __future__ import annotations

import numpy as np

from .._sparse import UsedColumns, dots, issparse, sq_norms
from .._validation import check_degree, check_positive
from ._rows import LINEAR, POLY, RBF
from ._sums import rbf_dist_weighted_sum, rbf_exponents_from_dots

# Codes understood by the numba row computation in ``solvers._smo``.

#: Rows per block when building kernel blocks, so that no single product exceeds ~2**27
#: elements (DESIGN.md §5: one 50,000² product crashed OpenBLAS).
_BLOCK_ELEMS = 1 << 21


def _row_blocks(n_rows: int, n_cols: int):
    step = max(1, _BLOCK_ELEMS // max(n_cols, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def column_mean(X) -> np.ndarray:
    """The mean of X's rows, as ``X.mean(axis=0)`` gives it (the same sum, then the same
    division) without its Python layers: the RBF kernel centres its data at every solve."""
    return np.add.reduce(X, axis=0) / X.shape[0]


def _support(v: np.ndarray) -> np.ndarray:
    return np.flatnonzero(v)


def _right(Z):
    """Z as the right factor of repeated ``dots`` blocks: for a sparse Z once its CSC (what
    the sparse product walks) — over the columns it uses (``_sparse.UsedColumns``) when it has
    more columns than stored entries, where a CSC's one pointer per column would cost more than
    the data — Z itself when dense."""
    if isinstance(Z, UsedColumns) or not issparse(Z):
        return Z
    return UsedColumns(Z) if Z.shape[1] > Z.nnz else Z.tocsc()


class Kernel:
    """Base class: a kernel with tunable parameters ``theta``."""

    name = "kernel"
    param_names: tuple = ()

    @property
    def theta(self) -> np.ndarray:
        return np.empty(0)

    def with_theta(self, theta) -> "Kernel":
        """A copy of this kernel with parameters ``theta`` (same order as ``param_names``)."""
        if len(np.atleast_1d(theta)) != 0:
            raise ValueError(f"{self.name} kernel has no tunable parameters, got theta={theta!r}")
        return self

    # -- values -------------------------------------------------------------------------
    def block(self, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        """Kernel matrix K(X, Z) (Z = X when omitted), built in row blocks."""
        Z = X if Z is None else Z
        out = np.empty((X.shape[0], Z.shape[0]))
        zz = self._norms(Z)
        if issparse(X) or issparse(Z):
            Zr = _right(Z)
            for rows in _row_blocks(X.shape[0], Z.shape[0]):
                blk = out[rows]
                Xr = X[rows]
                dots(Xr, Zr, out=blk)
                self._from_dot(blk, Xr, zz)
            return out
        for rows in _row_blocks(X.shape[0], Z.shape[0]):
            blk = out[rows]
            np.matmul(X[rows], Z.T, out=blk)
            self._from_dot(blk, X[rows], zz)      # in place: no block-sized temporaries
        return out

    def block_dot(self, X: np.ndarray, Z: np.ndarray, v: np.ndarray) -> np.ndarray:
        """K(X, Z) @ v (v a vector or a matrix of columns) in row blocks of X: memory
        O(block + len(X)) instead of len(X)·len(Z) (a decision function on 91,701 test rows
        with 14,502 support vectors would otherwise build a 10.6 GB matrix)."""
        out = np.empty((X.shape[0],) + np.shape(v)[1:])
        if issparse(Z) and issparse(X):
            Z = _right(Z)                           # converted once, not per block
        for rows in _row_blocks(X.shape[0], Z.shape[0]):
            out[rows] = self.block(X[rows], Z) @ v
        return out

    def row(self, X, i: int) -> np.ndarray:
        """K(x_i, x_j) for every row j of X."""
        return self.block(X[i:i + 1], X)[0]

    def _norms(self, Z):
        """Per-row data of Z that ``_from_dot`` needs (‖z‖² for the RBF kernel)."""
        return None

    def __call__(self, X, Z=None):
        return self.block(X, Z)

    def diag(self, X: np.ndarray) -> np.ndarray:
        """K(x_i, x_i) for every row of X."""
        return self._diag(X)

    # -- derivatives ---------------------------------------------------------------------
    def contract(self, X: np.ndarray, a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
        """c_k = Σ_ij a_i b_j ∂K(x_i, x_j)/∂θ_k, over i with a_i ≠ 0 and j with b_j ≠ 0."""
        return np.zeros(len(self.param_names))

    def diag_contract(self, X: np.ndarray, w: np.ndarray) -> np.ndarray:
        """c_k = Σ_i w_i ∂K(x_i, x_i)/∂θ_k."""
        return np.zeros(len(self.param_names))

    # -- for the solvers -----------------------------------------------------------------
    def spec(self) -> tuple:
        """(code, gamma, coef0, degree) for the numba row computation on ``prepare(X)``."""
        raise NotImplementedError

    def prepare(self, X: np.ndarray) -> np.ndarray:
        """The data the numba solvers see: K(x, z) must equal the ``spec()`` kernel of
        prepare(x), prepare(z). Identity here; a kernel with per-feature scaling factors
        (ARD) returns X / σ so that the solvers only ever need the isotropic formulas."""
        return X

    def get_params(self) -> dict:
        return {}

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class LinearKernel(Kernel):
    """K(x, z) = ⟨x, z⟩; no tunable parameters."""

    name = "linear"

    def _from_dot(self, dot, Xr, zz):
        return dot

    def _diag(self, X):
        return sq_norms(X)

    def spec(self):
        return (LINEAR, 0.0, 0.0, 1)


class RBFKernel(Kernel):
    """K(x, z) = exp(−‖x − z‖² / (2σ²)), tuned as θ = ln σ² (Chung §1, DESIGN.md §2).

    ∂K/∂(ln σ²) = σ² ∂K/∂σ² = K ‖x − z‖² / (2σ²)   (Chung eq. after 4.5, chain rule).
    The diagonal is constant (K_ii = 1), so its derivative is zero.
    """

    name = "rbf"
    param_names = ("log_sigma2",)

    def __init__(self, sigma2: float = 1.0):
        self.sigma2 = check_positive(sigma2, "sigma2")

    @classmethod
    def from_gamma(cls, gamma: float) -> "RBFKernel":
        """The kernel exp(−γ‖x − z‖²) of scikit-learn, i.e. σ² = 1/(2γ)."""
        return cls(1.0 / (2.0 * check_positive(gamma, "gamma")))

    @property
    def gamma(self) -> float:
        return 1.0 / (2.0 * self.sigma2)

    @property
    def theta(self):
        return np.array([np.log(self.sigma2)])

    def with_theta(self, theta):
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        if theta.shape != (1,):
            raise ValueError(f"rbf kernel takes theta=(log_sigma2,), got {theta!r}")
        return RBFKernel(float(np.exp(theta[0])))

    def _norms(self, Z):
        return sq_norms(Z)

    def block(self, X, Z=None):
        """exp(−γ‖x − z‖²), with X and Z centred on Z's mean first (translation invariance;
        fewer digits lost in ‖x‖² + ‖z‖² − 2⟨x, z⟩) and an exact 1 where Z is X on the diagonal.

        Sparse X or Z are not centred: subtracting the mean would make every entry non-zero.
        Sparse data are in practice bounded and near the origin (tf-idf rows of norm 1, one-hot
        or binary features, [0, 1]-scaled counts), where ‖x‖² + ‖z‖² − 2⟨x, z⟩ loses few
        digits; the cancellation that centring avoids matters for data far from the origin
        (offsets of 1e4 and more), which is dense data."""
        same = Z is None or Z is X
        Z = X if Z is None else Z
        if issparse(X) or issparse(Z):
            K = super().block(X, Z)
            if same:
                np.fill_diagonal(K, 1.0)
            return K
        m = column_mean(Z)
        Xc = X - m
        Zc = Xc if same else Z - m
        K = super().block(Xc, Zc)
        if same:
            np.fill_diagonal(K, 1.0)
        return K

    def row(self, X, i: int) -> np.ndarray:
        """exp(−γ‖x_i − x_j‖²) for every j, from the differences x_j − x_i themselves (dense X:
        exact squared distances, no centring needed; three NumPy calls where ``block`` makes a
        dozen)."""
        if issparse(X):
            return super().row(X, i)
        diff = X - X[i]
        d2 = np.einsum("ij,ij->i", diff, diff)
        d2 *= -self.gamma
        return np.exp(d2, out=d2)

    def _from_dot(self, dot, Xr, zz):
        """dot ← exp(−γ max(‖x‖² + ‖z‖² − 2⟨x, z⟩, 0)), in place (the exponents in one numba
        pass, ``_sums.rbf_exponents_from_dots``)."""
        rbf_exponents_from_dots(dot, sq_norms(Xr), zz, self.gamma)
        return np.exp(dot, out=dot)

    def _diag(self, X):
        return np.ones(X.shape[0])

    def contract(self, X, a, b=None):
        b = a if b is None else b
        ia, ib = _support(a), _support(b)
        if ia.size == 0 or ib.size == 0:
            return np.zeros(1)
        wa, wb = np.ascontiguousarray(a[ia]), np.ascontiguousarray(b[ib])
        if issparse(X):      # not centred: see ``block``
            Xa, Xb = X[ia], X[ib]
            sqa, sqb = sq_norms(Xa), sq_norms(Xb)
            Xbc = _right(Xb)
            total = 0.0
            for rows in _row_blocks(ia.size, ib.size):
                total += rbf_dist_weighted_sum(dots(Xa[rows], Xbc), sqa[rows], sqb, wa[rows],
                                               wb, self.gamma)
            return np.array([total / (2.0 * self.sigma2)])
        # centred on the mean of the b rows, as ``block`` and the SMO centre: ‖x − z‖² is
        # translation invariant, but ‖x‖² + ‖z‖² − 2⟨x, z⟩ on data far from the origin loses
        # every digit (at an offset of 1e8 the gradient even had the wrong sign, issue 15)
        Xb = X[ib]
        m = column_mean(Xb)
        Xa, Xb = X[ia] - m, Xb - m
        sqa, sqb = np.einsum("ij,ij->i", Xa, Xa), np.einsum("ij,ij->i", Xb, Xb)
        total = 0.0
        for rows in _row_blocks(ia.size, ib.size):
            total += rbf_dist_weighted_sum(Xa[rows] @ Xb.T, sqa[rows], sqb, wa[rows], wb,
                                           self.gamma)
        return np.array([total / (2.0 * self.sigma2)])

    def diag_contract(self, X, w):
        return np.zeros(1)

    def spec(self):
        return (RBF, self.gamma, 0.0, 1)

    def get_params(self):
        return {"sigma2": self.sigma2}


class PolynomialKernel(Kernel):
    """Inhomogeneous polynomial K(x, z) = (⟨x, z⟩ + c)^d (Acevedo §2).

    The degree d ≥ 1 is an integer and is not differentiated; θ = (c,), and
    ∂K/∂c = d (⟨x, z⟩ + c)^(d−1). The diagonal (‖x‖² + c)^d is not constant, which is why the
    radius QP must use diag(K) (DESIGN.md §5).
    """

    name = "poly"
    param_names = ("coef0",)

    def __init__(self, degree: int = 2, coef0: float = 1.0):
        self.degree = check_degree(degree)
        coef0 = float(coef0)
        if not np.isfinite(coef0) or coef0 < 0:
            raise ValueError(f"coef0 must be a finite number >= 0, got {coef0!r}")
        self.coef0 = coef0

    @property
    def theta(self):
        return np.array([self.coef0])

    def with_theta(self, theta):
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        if theta.shape != (1,):
            raise ValueError(f"poly kernel takes theta=(coef0,), got {theta!r}")
        return PolynomialKernel(self.degree, float(theta[0]))

    def _from_dot(self, dot, Xr, zz):
        dot += self.coef0
        return np.power(dot, self.degree, out=dot)

    def _diag(self, X):
        return (sq_norms(X) + self.coef0) ** self.degree

    def contract(self, X, a, b=None):
        b = a if b is None else b
        ia, ib = _support(a), _support(b)
        if ia.size == 0 or ib.size == 0:
            return np.zeros(1)
        Xa, Xb = X[ia], X[ib]
        Xbc = _right(Xb)
        total = 0.0
        for rows in _row_blocks(ia.size, ib.size):
            dK = self.degree * (dots(Xa[rows], Xbc) + self.coef0) ** (self.degree - 1)
            total += a[ia[rows]] @ dK @ b[ib]
        return np.array([total])

    def diag_contract(self, X, w):
        base = sq_norms(X) + self.coef0
        return np.array([w @ (self.degree * base ** (self.degree - 1))])

    def spec(self):
        return (POLY, 1.0, self.coef0, self.degree)

    def get_params(self):
        return {"degree": self.degree, "coef0": self.coef0}


KERNELS = {"rbf": RBFKernel, "linear": LinearKernel, "poly": PolynomialKernel}


def is_rbf_params(params) -> bool:
    """Whether kernel parameters ``params`` (``get_params()``, possibly with C) are those of an
    RBF-type kernel, isotropic or ARD (a σ² and no degree; the scaled polynomial kernel has
    both)."""
    return "sigma2" in params and "degree" not in params


def rbf_gamma(params):
    """gamma = 1/(2σ²), scikit-learn's name for the width, of an RBF-type kernel's parameters
    (``is_rbf_params``; an array for ARD); None for other kernels."""
    return 1.0 / (2.0 * params["sigma2"]) if is_rbf_params(params) else None


def with_gamma(params: dict) -> dict:
    """``params`` with ``rbf_gamma`` added as "gamma" where there is one; changed in place
    and returned."""
    gamma = rbf_gamma(params)
    if gamma is not None:
        params["gamma"] = gamma
    return params


def check_kernel(kernel, name: str = "kernel") -> Kernel:
    """``kernel`` if it is a ``Kernel`` object, else a ValueError saying what is expected (a
    name such as 'rbf' is what the estimators take; the solvers and criteria take objects)."""
    if not isinstance(kernel, Kernel):
        hint = (f" (build one with make_kernel({kernel!r}))" if isinstance(kernel, str)
                and kernel in KERNELS else "")
        raise ValueError(f"{name} must be a svmbound Kernel object such as RBFKernel(1.0), got "
                         f"{kernel!r}{hint}")
    return kernel


def make_kernel(name: str, **params) -> Kernel:
    """Kernel by name; an unknown name raises a ValueError listing the valid ones."""
    try:
        cls = KERNELS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown kernel {name!r}; valid kernels: {', '.join(sorted(KERNELS))}") from None
    return cls(**params)
