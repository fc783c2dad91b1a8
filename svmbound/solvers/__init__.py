"""Dual solvers: the SVM (L1 box / L2 diagonal shift) and the enclosing-ball radius QP."""

from .interrupt import SolverInterrupted, as_interrupt, request_stop
from .problem import Problem, check_problem
from .qp import DEFAULT_CACHE_MB
from .qcqp import ConvexCResult, solve_convex_c
from .radius import RadiusSolution, solve_radius, warm_start_beta
from .svm import DualSolution, decision_function, solve_svm_dual, warm_start_alpha

__all__ = ["DEFAULT_CACHE_MB", "Problem", "check_problem", "DualSolution", "RadiusSolution",
           "solve_svm_dual", "solve_radius", "warm_start_alpha", "warm_start_beta",
           "decision_function", "ConvexCResult", "solve_convex_c", "SolverInterrupted",
           "request_stop", "as_interrupt"]
