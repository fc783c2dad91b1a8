"""The smoothed span bound (Chapelle §4, §6.3–6.4) with its gradient assembled by a kernel
contraction instead of explicit ∂K/∂θ_k matrices.

``SpanBound`` (span.py) forms the weight matrix W over the support vectors and then needs
Σ_ij W_ij ∂K̃_ij/∂θ_k for every kernel parameter k; it builds ∂K/∂θ_k explicitly, which exists
there for the RBF, polynomial and linear kernels only and would be a d×n_sv×n_sv array for ARD.
``SpanBoundContract`` computes the same value and the same gradient, but asks the kernel for
``kernel.contract_matrix(X_sv, W)`` (O(n_sv²·d) with BLAS, see ``svmbound.kernels_ard``) when
the kernel has it, and falls back to span.py's matrices otherwise.

The change span.py itself would need for the same effect is one branch in
``SpanBound._compute``::

    if hasattr(kernel, "contract_matrix"):
        grad[1:] = kernel.contract_matrix(Xsv, W)
    else:
        for k, dK in enumerate(_kernel_derivative_matrices(kernel, Xsv)): ...

This module is not registered in ``svmbound.criteria.CRITERIA`` (its registry name would clash
with "span"); ``svmbound.selection.ScalingSelector(criterion='span')`` uses it directly.
"""

from __future__ import annotations

import numpy as np

from .span import SpanBound, _kernel_derivative_matrices, alpha_b_adjoint, sigmoid, span_squared


class SpanBoundContract(SpanBound):
    """``SpanBound`` whose gradient works for any kernel with ``contract_matrix`` (ARD RBF,
    scaled polynomial). Same value, same gradient formula (see ``SpanBound``)."""

    name = "span"

    def _compute(self, C, kernel, need_grad):
        sol, sv, Kt, a, _ = self._sv_problem(C, kernel)
        ysv = self.y[sv]
        n_sv, n = sv.size, self.y.size
        s2, Ginv, d = span_squared(Kt, a, self.eta)
        z = a * s2 - 1.0
        psi = sigmoid(z, self.A, self.B)
        value = float(psi.sum()) + (n - n_sv) * float(sigmoid(-1.0, self.A, self.B))
        info = self._info(sol, value)
        info.update(eta=self.eta, A=self.A, B=self.B, span2_sum=float(s2.sum()),
                    n_span_errors=int(np.count_nonzero(z > 0)))
        if not need_grad:
            return value, None, info
        dpsi = self.A * psi * (1.0 - psi)
        Bsv = Ginv[:n_sv, :n_sv]
        w = dpsi * a * (s2 + d) ** 2
        P = (Bsv * w) @ Bsv
        g = dpsi * s2
        if self.eta > 0:
            g = g - self.eta * (np.diag(P) - dpsi * a) / a ** 2
        u = alpha_b_adjoint(Kt, ysv, g)
        W = P - np.outer(u * ysv, a * ysv)
        W = 0.5 * (W + W.T)
        grad = np.empty(self.n_params)
        grad[0] = -np.trace(W) / C                       # ∂K̃/∂ln C = −I/C
        Xsv = self.X[sv]
        if hasattr(kernel, "contract_matrix"):
            grad[1:] = kernel.contract_matrix(Xsv, W)
        else:
            for k, dK in enumerate(_kernel_derivative_matrices(kernel, Xsv)):
                grad[1 + k] = float(np.sum(W * dK))
        return value, grad, info


__all__ = ["SpanBoundContract"]
