"""Search layer (DESIGN.md §4): strategies that minimise a criterion over the hyperparameters.

* :func:`minimize_projected_bfgs` — projected BFGS in a box (Chung et al. 2003, §4.2).

Every strategy returns a :class:`SearchResult`.
"""

from .bfgs import minimize_projected_bfgs
from .result import SearchResult

__all__ = ["SearchResult", "minimize_projected_bfgs"]
