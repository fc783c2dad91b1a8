"""The θ-derivatives of the kernel matrix in row blocks: ∂K(X[rows], X)/∂θ_k, and their
contraction with a weight matrix, c_k = Σ_ij W_ij ∂K(x_i, x_j)/∂θ_k — the kernel part of the
span bound's gradient (Chapelle eq. 7 smoothed, §6.4) and of the SVR's span estimate — for
dense or CSR rows, without an n × n derivative matrix.
"""

from __future__ import annotations

import numpy as np

from .._sparse import dots, issparse, sq_norms
from .standard import LinearKernel, PolynomialKernel, RBFKernel, _right, column_mean

__all__ = ["derivative_blocks", "derivative_contraction", "rbf_log_sigma2_derivative",
           "BLOCK_ROWS"]

#: rows per block of the span bound's in-place n × n updates and of the derivative blocks (a
#: block of BLOCK_ROWS × n doubles is 1/4 of an n × n array at n = 1,000 SVs, 1/13 at 3,350)
BLOCK_ROWS = 256


def rbf_log_sigma2_derivative(d2, kernel) -> np.ndarray:
    """∂K/∂ln σ² = exp(−γD²) ∘ D²/(2σ²) from the squared distances D², in D²'s memory plus one
    n × n array."""
    E = np.multiply(d2, -kernel.gamma)
    np.exp(E, out=E)
    E *= d2
    E /= 2.0 * kernel.sigma2
    return E


def derivative_blocks(kernel, X, step: int | None = None):
    """Yield (rows, [∂K(X[rows], X)/∂θ_k for every kernel parameter k]) over row blocks of X.

    RBF: ∂K/∂ln σ² = K ∘ D² / (2σ²) (D² the squared distances, dense rows centred on their
    mean first: translation invariant, fewer digits lost); polynomial: ∂K/∂c =
    d (⟨x, z⟩ + c)^(d−1); kernels without parameters (linear, precomputed): nothing is yielded.
    Any other kernel raises NotImplementedError. One block of ``step`` rows (default
    :data:`BLOCK_ROWS`) at a time, so that a caller contracting with a weight matrix never holds an
    n × n derivative matrix (the RBF block costs two block-sized arrays: D² and the result).
    """
    step = BLOCK_ROWS if step is None else step
    kind = type(kernel)
    if kind is LinearKernel or len(kernel.param_names) == 0:
        return
    if kind not in (RBFKernel, PolynomialKernel):
        raise NotImplementedError(
            f"the span-bound gradient needs the explicit matrix dK/dtheta, which is implemented "
            f"for the rbf, poly and linear kernels only, not for kernel {kernel.name!r} "
            f"({type(kernel).__name__})")
    if issparse(X):                       # CSR: not centred (see ``RBFKernel.block``)
        Zr = _right(X)
        sq = sq_norms(X) if kind is RBFKernel else None

        def dot(rows):
            return dots(X[rows], Zr)
    else:
        if kind is RBFKernel:
            X = X - column_mean(X)
            sq = np.einsum("ij,ij->i", X, X)

        def dot(rows):
            return X[rows] @ X.T
    for i0 in range(0, X.shape[0], step):
        rows = slice(i0, min(i0 + step, X.shape[0]))
        if kind is RBFKernel:
            d2 = dot(rows)
            d2 *= -2.0
            d2 += sq[rows, None]
            d2 += sq[None, :]
            np.maximum(d2, 0.0, out=d2)
            yield rows, [rbf_log_sigma2_derivative(d2, kernel)]
        else:
            yield rows, [kernel.degree * (dot(rows) + kernel.coef0) ** (kernel.degree - 1)]


def derivative_contraction(kernel, X, W, step: int | None = None) -> np.ndarray:
    """c_k = Σ_ij W_ij ∂K(x_i, x_j)/∂θ_k for every kernel parameter k — the kernel part of the
    span-bound gradient — accumulated over row blocks of ∂K (:func:`derivative_blocks`):
    memory W plus two blocks, instead of two more n × n arrays for ∂K and D²."""
    c = np.zeros(len(kernel.param_names))
    for rows, dKs in derivative_blocks(kernel, X, step):
        for k, dK in enumerate(dKs):
            c[k] += float(np.vdot(W[rows], dK))
    return c
