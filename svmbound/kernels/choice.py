"""The kernel a search starts from, chosen by name: the estimators' ``kernel`` and ``degree``.

``base_kernel(name, degree, coef0, n_features, groups)`` builds the kernel object whose θ a
search overwrites: the isotropic kernels of :mod:`.standard` ('rbf', 'linear', 'poly') and
the ARD kernels of :mod:`.ard` with one ln σ² per feature or per group ('ard', 'ard-poly',
Chapelle §7.3, §8), every σ_k² = 1 at the start. ``split_degree`` reads the ``degree``
parameter: an int fixes the polynomial degree; a pair (lo, hi) or 'auto' (Acevedo §4: d ∈
{1, …, 10}) is searched, by annealing only (the degree is an integer, Acevedo §3).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_degree
from .ard import ARDRBFKernel, ScaledPolynomialKernel, check_groups
from .standard import KERNELS, make_kernel

__all__ = ["ARD_KERNELS", "ESTIMATOR_KERNELS", "DEFAULT_DEGREE_RANGE", "base_kernel",
           "split_degree"]

#: Kernels with one ln σ² per feature (or per group) (Chapelle §7.3, §8).
ARD_KERNELS = ("ard", "ard-poly")
#: Every kernel name the estimators take.
ESTIMATOR_KERNELS = tuple(sorted(KERNELS)) + ARD_KERNELS
#: Degree range of the polynomial kernel searched by annealing (Acevedo §4: d ∈ {1, …, 10}).
DEFAULT_DEGREE_RANGE = (1, 10)


def base_kernel(name: str, degree: int = 3, coef0: float = 1.0, n_features: int | None = None,
                groups=None):
    """The kernel object a search starts from (its θ is overwritten by the search)."""
    if name in ARD_KERNELS:
        g = check_groups(groups)
        if g is not None and n_features is not None and g.size != n_features:
            raise ValueError(f"groups has {g.size} entries but X has {n_features} features")
        n = int(g.max()) + 1 if g is not None else n_features
        if n is None:
            raise ValueError(f"the {name} kernel needs the number of features")
        sigma2 = np.ones(n)
        if name == "ard":
            return ARDRBFKernel(sigma2, groups=g)
        return ScaledPolynomialKernel(sigma2, degree=degree, groups=g)
    if groups is not None:
        raise ValueError(f"groups only apply to the ARD kernels ('ard', 'ard-poly'), not "
                         f"kernel={name!r}")
    if name == "poly":
        return make_kernel("poly", degree=degree, coef0=coef0)
    return make_kernel(name)


def split_degree(degree, kernel: str, search: str):
    """(fixed degree, searched (lo, hi) range or None) from the ``degree`` parameter: an int
    fixes it; a pair (lo, hi) — or 'auto' for 1..10 — is searched, which only annealing can do
    (the degree is an integer, Acevedo §3)."""
    if isinstance(degree, str):
        if degree != "auto":
            raise ValueError(f"degree must be an int, a (low, high) pair or 'auto', got {degree!r}")
        degree = DEFAULT_DEGREE_RANGE
    if np.ndim(degree) == 0:
        return check_degree(degree), None
    d = tuple(degree)
    if len(d) != 2:
        raise ValueError(f"a degree range must be a pair (low, high), got {degree!r}")
    lo, hi = (check_degree(v) for v in d)
    if lo >= hi:
        raise ValueError(f"degree range: low {lo} must be < high {hi}")
    if kernel != "poly":
        raise ValueError(f"a degree range is searched only with kernel='poly', not {kernel!r}")
    if search != "annealing":
        raise ValueError(f"a degree range (an integer parameter) needs search='annealing', "
                         f"not {search!r}")
    return lo, (lo, hi)
