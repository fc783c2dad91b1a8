"""svmbound: tune SVM hyperparameters by minimising leave-one-out error bounds."""

from .kernels import LinearKernel, PolynomialKernel, RBFKernel, make_kernel
from .solvers import solve_radius, solve_svm_dual
from .estimators import BoundSVC

__version__ = "0.1.0"

__all__ = ["BoundSVC", "LinearKernel", "PolynomialKernel", "RBFKernel", "make_kernel",
           "solve_svm_dual", "solve_radius", "__version__"]
