"""A box of hyperparameters for derivative-free searches (simulated annealing, Acevedo §3).

A :class:`SearchSpace` is an ordered list of :class:`Param` — a name, a closed range
[lower, upper] (Acevedo's "ranks" of step 1) and whether the parameter only takes integer values
(the degree d of the inhomogeneous polynomial kernel, Acevedo eq. 3). Points are 1-D float
arrays in the order of the parameters; integer coordinates hold whole numbers.

:func:`criterion_objective` turns a criterion into the ``f(x) -> float`` a search minimises over
such a space: the space holds ``"log_C"``, the names of the kernel's θ (``"log_sigma2"`` for the
RBF kernel, ``"coef0"`` for the polynomial one) and, for the polynomial kernel, optionally an
integer ``"degree"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from ..kernels import PolynomialKernel

__all__ = ["Param", "SearchSpace", "CriterionObjective", "criterion_objective", "DEGREE_RANGE"]

#: Allowed range of a polynomial degree parameter (inclusive).
DEGREE_RANGE = (1, 20)


def _finite(value, what: str) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if not np.isfinite(v):
        raise ValueError(f"{what} must be finite, got {value!r}")
    return v


@dataclass(frozen=True)
class Param:
    """One searched parameter: ``name`` over the closed range [``lower``, ``upper``].

    ``integer=True`` restricts it to whole numbers (the bounds must then be integers). A
    parameter named ``"degree"`` is always integer (``integer`` is set for it) and its range must
    lie within 1..20. Raises ``ValueError`` for non-finite bounds or ``lower >= upper`` — a
    parameter with a single value is not searched; leave it out of the space.
    """

    name: str
    lower: float
    upper: float
    integer: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"parameter name must be a non-empty string, got {self.name!r}")
        lo = _finite(self.lower, f"lower bound of {self.name!r}")
        up = _finite(self.upper, f"upper bound of {self.name!r}")
        integer = bool(self.integer) or self.name == "degree"
        if integer:
            for what, v in (("lower", lo), ("upper", up)):
                if not float(v).is_integer():
                    raise ValueError(f"{what} bound of the integer parameter {self.name!r} must be "
                                     f"an integer, got {v!r}")
        if lo >= up:
            raise ValueError(f"empty range for {self.name!r}: lower {lo!r} must be < upper {up!r}")
        if self.name == "degree" and (lo < DEGREE_RANGE[0] or up > DEGREE_RANGE[1]):
            raise ValueError(f"degree range {int(lo)}..{int(up)} is outside "
                             f"{DEGREE_RANGE[0]}..{DEGREE_RANGE[1]}")
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", up)
        object.__setattr__(self, "integer", integer)

    @property
    def range(self) -> float:
        """upper − lower (Range_j of Acevedo eq. 8)."""
        return self.upper - self.lower


class SearchSpace:
    """An ordered box of :class:`Param` (names must be unique).

    ``SearchSpace.from_bounds({"log_C": (-10, 10), "degree": (1, 10)})`` builds one from a
    mapping name → (lower, upper); ``"degree"`` becomes integer automatically.
    """

    def __init__(self, params: Iterable[Param]):
        params = tuple(params)
        if not params:
            raise ValueError("a search space needs at least one parameter")
        for p in params:
            if not isinstance(p, Param):
                raise ValueError(f"search space entries must be Param objects, got {p!r}")
        names = [p.name for p in params]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"duplicate parameter names in the search space: {dup}")
        self.params = params

    @classmethod
    def from_bounds(cls, bounds: Mapping[str, tuple], integer: Iterable[str] = ()) -> "SearchSpace":
        integer = set(integer)
        out = []
        for name, b in bounds.items():
            try:
                lo, up = b
            except (TypeError, ValueError):
                raise ValueError(f"bounds of {name!r} must be a pair (lower, upper), got {b!r}") from None
            out.append(Param(name, lo, up, integer=name in integer))
        return cls(out)

    # -- description -----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.params)

    def __iter__(self):
        return iter(self.params)

    def __repr__(self):
        body = ", ".join(f"{p.name}∈[{p.lower:g}, {p.upper:g}]" + (" int" if p.integer else "")
                         for p in self.params)
        return f"SearchSpace({body})"

    @property
    def names(self) -> tuple:
        return tuple(p.name for p in self.params)

    @property
    def lower(self) -> np.ndarray:
        return np.array([p.lower for p in self.params])

    @property
    def upper(self) -> np.ndarray:
        return np.array([p.upper for p in self.params])

    @property
    def ranges(self) -> np.ndarray:
        """upper − lower per parameter (Range_j of Acevedo eq. 8)."""
        return self.upper - self.lower

    @property
    def integer(self) -> np.ndarray:
        """Boolean mask of the integer parameters."""
        return np.array([p.integer for p in self.params])

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"{name!r} is not a parameter of {self!r}") from None

    # -- points ----------------------------------------------------------------------------
    def _as_point(self, x) -> np.ndarray:
        try:
            x = np.array(x, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"a point must be numeric: {exc}") from None
        if x.shape != (len(self),):
            raise ValueError(f"a point of {self!r} has {len(self)} coordinates {self.names}, "
                             f"got {x.size}")
        if np.any(np.isnan(x)):
            raise ValueError(f"point has NaN coordinates: {x.tolist()}")
        return x

    def clip(self, x) -> np.ndarray:
        """x with integer coordinates rounded to the nearest integer, then every coordinate
        clipped to its range."""
        x = self._as_point(x)
        mask = self.integer
        x[mask] = np.round(x[mask])
        return np.minimum(np.maximum(x, self.lower), self.upper)

    def contains(self, x) -> bool:
        x = self._as_point(x)
        mask = self.integer
        return bool(np.all(x >= self.lower) and np.all(x <= self.upper)
                    and np.all(x[mask] == np.round(x[mask])))

    def random_point(self, rng) -> np.ndarray:
        """A point drawn uniformly from the box (Acevedo §3 step 1): continuous coordinates from
        U[lower, upper], integer ones uniformly from {lower, …, upper}. ``rng`` is a
        ``numpy.random.Generator`` or ``RandomState`` (e.g. from
        ``sklearn.utils.check_random_state``); one uniform is drawn per parameter."""
        u = rng.uniform(0.0, 1.0, size=len(self))
        x = self.lower + u * self.ranges
        mask = self.integer
        # u·(n values) floored: uniform over the n = upper − lower + 1 integers.
        n = self.ranges[mask] + 1.0
        x[mask] = self.lower[mask] + np.minimum(np.floor(u[mask] * n), n - 1.0)
        return x

    def as_dict(self, x) -> dict:
        """{name: value} with integer parameters as ``int``."""
        x = self._as_point(x)
        return {p.name: (int(round(v)) if p.integer else float(v)) for p, v in zip(self.params, x)}


class CriterionObjective:
    """``f(x) = criterion.evaluate(θ(x)).value`` over a :class:`SearchSpace` (see
    :func:`criterion_objective`). ``last`` is the last ``Evaluation``; ``n_calls`` counts calls."""

    def __init__(self, criterion, space: SearchSpace):
        self.criterion = criterion
        self.space = space
        names = space.names
        expected = tuple(criterion.param_names)
        missing = [n for n in expected if n not in names]
        extra = [n for n in names if n not in expected and n != "degree"]
        if missing or extra:
            raise ValueError(f"the search space {names} does not match the criterion's parameters "
                             f"{expected} (+ optional 'degree' for the polynomial kernel): "
                             + "; ".join(filter(None, [missing and f"missing {missing}",
                                                       extra and f"unknown {extra}"])))
        self._theta_index = np.array([names.index(n) for n in expected])
        self._degree_index = names.index("degree") if "degree" in names else None
        if self._degree_index is not None and not isinstance(criterion.kernel, PolynomialKernel):
            raise ValueError(f"'degree' can only be searched with the polynomial kernel, the "
                             f"criterion's kernel is {criterion.kernel!r}")
        self.last = None
        self.n_calls = 0

    def theta(self, x) -> np.ndarray:
        """θ = (ln C, kernel θ…) of the point x (the degree, if any, is not part of θ)."""
        x = self.space._as_point(x)
        return x[self._theta_index]

    def degree(self, x) -> int | None:
        if self._degree_index is None:
            return None
        d = float(self.space._as_point(x)[self._degree_index])
        if not d.is_integer():
            raise ValueError(f"degree must be an integer, got {d!r}")
        return int(d)

    def apply(self, x) -> np.ndarray:
        """Set the criterion's base kernel to the degree of x (if the space has one) and return
        θ(x), so that ``criterion.split_theta(θ)`` / ``criterion.evaluate(θ)`` give the model at x.
        """
        d = self.degree(x)
        crit = self.criterion
        if d is not None and d != crit.kernel.degree:
            crit.kernel = PolynomialKernel(degree=d, coef0=crit.kernel.coef0)
            # The criterion caches R² by kernel θ = (coef0,), which does not hold the degree:
            # forget the key so R² is recomputed, keep the solution as β warm start (β stays
            # feasible — the simplex constraints do not depend on the kernel).
            prev = crit._radius_prev.get("sol")
            crit._radius_prev = {} if prev is None else {"sol": prev, "key": None}
        return self.theta(x)

    def kernel_at(self, x):
        """The kernel of the point x (without changing the criterion)."""
        d = self.degree(x)
        base = self.criterion.kernel
        if d is not None:
            base = PolynomialKernel(degree=d, coef0=base.coef0)
        return base.with_theta(self.theta(x)[1:])

    def evaluate(self, x):
        ev = self.criterion.evaluate(self.apply(x), need_grad=False)
        self.n_calls += 1
        self.last = ev
        return ev

    def __call__(self, x) -> float:
        return self.evaluate(x).value


def criterion_objective(criterion, space: SearchSpace) -> CriterionObjective:
    """The function x ↦ criterion value that a search over ``space`` minimises.

    ``space`` must hold exactly the criterion's parameters ``criterion.param_names``
    (``"log_C"`` and the kernel's θ names, e.g. ``"log_sigma2"`` or ``"coef0"``), in any order,
    plus optionally an integer ``"degree"`` when the criterion's kernel is a
    :class:`~svmbound.kernels.PolynomialKernel`. Calling the result at x

    1. if the space has ``"degree"`` and it differs from the current one, replaces the
       criterion's base kernel: ``criterion.kernel = PolynomialKernel(degree=int(d),
       coef0=...)`` (coef0 is then overridden by θ anyway);
    2. evaluates ``criterion.evaluate(θ, need_grad=False)`` at θ = (ln C, kernel θ…) taken from
       x, and returns the value.

    The solver warm start (DESIGN.md §5) carries over from one evaluation to the next also
    across degrees: the previous α is rescaled to the new C and stays feasible (0 ≤ α ≤ C,
    yᵀα = 0 do not involve the kernel), and so does the radius QP's β (Σβ = 1, β ≥ 0); only the
    cached R², keyed by the kernel θ = (coef0,) that does not contain the degree, is
    invalidated when the degree changes. Raises ``ValueError`` if the space does not match.

    The returned :class:`CriterionObjective` also offers ``theta(x)``, ``kernel_at(x)`` and
    ``apply(x)`` (set the criterion's kernel to x's degree and return θ — call it on the best
    point before training the final model with ``criterion.split_theta``).
    """
    if not isinstance(space, SearchSpace):
        raise ValueError(f"space must be a SearchSpace, got {type(space).__name__}")
    return CriterionObjective(criterion, space)

