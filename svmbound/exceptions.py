"""Warnings of svmbound (errors are plain ``ValueError``s naming the problem).

Every warning is a subclass of a standard category, so ``warnings.simplefilter("error",
RuntimeWarning)`` (or ``UserWarning``) catches it, and of ``SvmboundWarning``, so that
``warnings.filterwarnings("ignore", category=SvmboundWarning)`` silences all of them.
"""

from __future__ import annotations


class SvmboundWarning(Warning):
    """Base class of svmbound's warnings."""


class ConvergenceWarning(SvmboundWarning, RuntimeWarning):
    """A solver stopped at its iteration cap before its KKT violation fell below ``tol``: the
    value (and gradient) computed from that solution may be inaccurate."""


class SearchWarning(SvmboundWarning, RuntimeWarning):
    """A search ended in a way that usually means the problem is badly posed at the chosen
    scale (e.g. it stopped at its start point with a zero gradient)."""


class DataWarning(SvmboundWarning, UserWarning):
    """Something in the input data looks wrong but was read (e.g. a lone feature index 0 in
    an otherwise 1-based LIBSVM file, or all rows identical)."""


class SearchLogWarning(SvmboundWarning, UserWarning):
    """A new search log replaced the log of an earlier run at the same path (``log_file``
    without ``resume``)."""


__all__ = ["SvmboundWarning", "ConvergenceWarning", "SearchWarning", "DataWarning",
           "SearchLogWarning"]
