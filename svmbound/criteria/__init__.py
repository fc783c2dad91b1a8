"""Model-selection criteria: one small class per bound (DESIGN.md §3).

Every criterion is built on a :class:`~svmbound.solvers.Problem` (X, the targets, the
per-sample weights) and a kernel. ``make_criterion(name, problem, kernel, loss=...)`` builds one
by name; the name ``"radius-margin"`` picks the default radius–margin bound of the loss (L2:
R̃²‖w̃‖², Chung 1.8; L1: (R² + Δ/C)(‖w‖² + 2CΣξ), Chung 3.3).
"""

import functools
import inspect

from ..solvers import Problem
from .base import Criterion, Evaluation
from .radius_margin import (DuanL1, RadiusMarginL1, RadiusMarginL1Alpha, RadiusMarginL1Half,
                            RadiusMarginL1Sum, RadiusMarginL2, RadiusMarginL2Half,
                            RadiusMarginL2Quarter)
from .reference import CrossValidationError, LeaveOneOutError
from .span import (JaakkolaHaussler, OpperWinther, RadiusMarginHard, SpanBound, SpanEstimate,
                   SupportVectorCount)
from .svr import (SVRCrossValidation, SVRLeaveOneOut, SVRRadiusMargin, SVRSpanBound,
                  SVRSpanEstimate)
from .validation import SmoothedValidationError, ValidationError

CRITERIA = {c.name: c for c in (RadiusMarginL2, RadiusMarginL2Half, RadiusMarginL2Quarter,
                                RadiusMarginL1, RadiusMarginL1Half, DuanL1, RadiusMarginL1Sum,
                                RadiusMarginL1Alpha, SpanBound, SpanEstimate, JaakkolaHaussler,
                                OpperWinther, SupportVectorCount, RadiusMarginHard,
                                SmoothedValidationError, ValidationError, CrossValidationError,
                                LeaveOneOutError, SVRSpanBound, SVRSpanEstimate,
                                SVRRadiusMargin, SVRCrossValidation, SVRLeaveOneOut)}
DEFAULT_CRITERION = {"l2": "rm-l2", "l1": "rm-l1"}
#: Other names: "radius-margin" resolves by loss; Acevedo et al.'s L1BOUND1–3.
ALIAS_TARGETS = {"l1bound1": "rm-l1-1.9", "l1bound2": "rm-l1-3.2", "l1bound3": "rm-l1"}
ALIASES = ("radius-margin",) + tuple(ALIAS_TARGETS)


def criterion_class(name: str, loss: str | None = None, task: str | None = None) -> type:
    """The criterion class for ``name``; ``radius-margin`` resolves by ``loss``; with ``task``
    ('classification', 'regression') a criterion of the other task is a ValueError."""
    if name == "radius-margin":
        if loss not in DEFAULT_CRITERION:
            raise ValueError(f"unknown loss {loss!r}; valid losses: l1, l2")
        name = DEFAULT_CRITERION[loss]
    name = ALIAS_TARGETS.get(name, name)
    if name not in CRITERIA:
        valid = ", ".join(list(ALIASES) + sorted(CRITERIA))
        raise ValueError(f"unknown criterion {name!r}; valid criteria: {valid}")
    cls = CRITERIA[name]
    if task is not None and cls.task != task:
        valid = ", ".join(sorted(n for n, c in CRITERIA.items() if c.task == task))
        raise ValueError(f"criterion {name!r} is for {cls.task}, not {task}; valid criteria: "
                         f"{valid}")
    if loss is not None and loss not in cls.losses():
        raise ValueError(f"criterion {name!r} is for the {cls.loss.upper()}-SVM, but loss={loss!r}")
    return cls


@functools.lru_cache(maxsize=None)
def _keyword_parameters(cls) -> frozenset:
    """Keyword parameters a criterion class accepts: those of every ``__init__`` along its
    class hierarchy (each passes ``**kw`` on to its base). Kept per class (``inspect`` took
    about 2 ms of a 40 ms fit)."""
    names = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        for p in inspect.signature(init).parameters.values():
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in (
                    "self", "problem", "kernel"):
                names.add(p.name)
    return frozenset(names)


@functools.lru_cache(maxsize=None)
def _own_parameters(cls) -> frozenset:
    """The parameter names of ``cls.__init__`` itself (kept per class, as above)."""
    return frozenset(inspect.signature(cls.__init__).parameters)


def make_criterion(name: str, problem, kernel, *, loss: str | None = None, random_state=None,
                   **kw) -> Criterion:
    """Build a criterion by name. ``loss`` is passed on to criteria that take either loss
    (cv-error, loo-error) and ``random_state`` to those that make random choices."""
    cls = criterion_class(name, loss)
    accepted = _own_parameters(cls)
    unknown = sorted(set(kw) - _keyword_parameters(cls))
    if unknown:
        raise ValueError(f"criterion {cls.name!r} takes no parameter {', '.join(map(repr, unknown))}; "
                         f"its parameters: {', '.join(sorted(_keyword_parameters(cls)))}")
    if loss is not None and "loss" in accepted:
        kw.setdefault("loss", loss)
    if random_state is not None and "random_state" in accepted:
        kw.setdefault("random_state", random_state)
    return cls(problem, kernel, **kw)


__all__ = ["Criterion", "Evaluation", "Problem", "CRITERIA", "criterion_class", "make_criterion",
           "RadiusMarginL1", "RadiusMarginL1Half", "RadiusMarginL2", "RadiusMarginL2Half",
           "RadiusMarginL2Quarter", "DuanL1", "RadiusMarginL1Sum", "RadiusMarginL1Alpha",
           "SpanBound", "SpanEstimate", "JaakkolaHaussler", "OpperWinther", "SupportVectorCount",
           "RadiusMarginHard", "SmoothedValidationError", "ValidationError",
           "CrossValidationError", "LeaveOneOutError", "SVRSpanBound", "SVRSpanEstimate",
           "SVRRadiusMargin", "SVRCrossValidation", "SVRLeaveOneOut"]
