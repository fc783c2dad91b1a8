"""Search layer (DESIGN.md §4): strategies that minimise a criterion over the hyperparameters.

* :func:`minimize_projected_bfgs` — projected BFGS in a box (Chung et al. 2003, §4.2).
* :func:`minimize_lbfgsb`, :func:`minimize_projected_gradient` — many parameters (Chapelle §5).
* :func:`minimize_annealing` — adaptive simulated annealing over a :class:`SearchSpace` with
  integer coordinates (Acevedo et al. §3).
* :func:`minimize_grid` — a grid of (ln C, ln σ²) (Chung Tables 2.1–3.1, LIBSVM grid.py).
* :func:`tune_c_convex` — C of the L2-SVM by a convex program (De Bie et al. 2003).

Every strategy returns a :class:`SearchResult`.
"""

from .annealing import minimize_annealing
from .bfgs import minimize_projected_bfgs
from .convex_c import tune_c_convex
from .gradient import minimize_lbfgsb, minimize_projected_gradient
from .grid import evaluate_grid, minimize_grid, minimize_grid_1d
from .result import SearchResult
from .space import Param, SearchSpace, criterion_objective

__all__ = ["SearchResult", "minimize_projected_bfgs", "minimize_lbfgsb",
           "minimize_projected_gradient", "minimize_annealing", "minimize_grid",
           "minimize_grid_1d", "evaluate_grid",
           "tune_c_convex", "Param", "SearchSpace", "criterion_objective"]
