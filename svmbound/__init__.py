"""svmbound: tune SVM hyperparameters by minimising leave-one-out error bounds.

The names below are imported on first use (PEP 562), so that ``svmbound``'s command line can
say it is starting before scikit-learn, SciPy and numba are loaded (about 1.5 s).
"""

__version__ = "0.1.0"

_LAZY = {"BoundSVC": ".estimators", "BoundSVR": ".bound_svr", "LinearKernel": ".kernels", "PolynomialKernel": ".kernels",
         "RBFKernel": ".kernels", "make_kernel": ".kernels", "solve_radius": ".solvers",
         "solve_svm_dual": ".solvers"}

__all__ = ["BoundSVC", "BoundSVR", "LinearKernel", "PolynomialKernel", "RBFKernel", "make_kernel",
           "solve_svm_dual", "solve_radius", "__version__"]


def __getattr__(name):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'svmbound' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + [n for n in _LAZY if n not in globals()])
