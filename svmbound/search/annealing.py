"""Adaptive simulated annealing over a box of hyperparameters (Acevedo et al., §3).

For criteria that are not differentiable (Acevedo's L1BOUND1 = ``rm-l1-1.9`` and L1BOUND2 =
``rm-l1-3.2``), that have several local minima, or kernels with an integer parameter (the degree d
of the inhomogeneous polynomial kernel, Acevedo eq. 3). With D parameters x = (ln C, θ…) in a
:class:`~svmbound.search.space.SearchSpace`, the search is Acevedo's steps 1–7:

1. x⁰ uniform in the ranges (integer parameters uniform over their integers).
2. f⁰ = f(x⁰).
3. T₀ = E₀ = f⁰, T_f = T₀ ε with ε = 10⁻⁴; x^global = x⁰, f^global = f⁰.
   If f⁰ ≤ 0 the temperature must still be positive: T₀ = |f⁰| when f⁰ < 0 and T₀ = 1 when
   f⁰ = 0 (radius–margin bounds are > 0, so this only concerns other objectives). ``T0=`` sets
   T₀ explicitly.
4. A candidate x^N = x + y around the current point x, each coordinate by the neighbourhood
   function (8)::

       y_j = sgn(u_j − ½) · T · [(1 + 1/T)^|2u_j − 1| − 1] · Range_j,   u_j ~ U[0, 1],   (8)

   |y_j| ≤ Range_j = upper_j − lower_j at every T; at high T the step is nearly uniform over
   ±Range_j, at low T it concentrates near 0 with a heavy tail. x^N is then rounded in its integer
   coordinates and clipped to the box (Acevedo does not say what happens outside the ranges;
   ``boundary="resample"`` redraws the coordinates that leave it instead, as Ingber's ASA does).
   f^N = f(x^N).
5. If f^N < f^global: x^global ← x^N, f^global ← f^N, and x^N is accepted. Otherwise x^N is
   accepted with probability (9)::

       p = exp(−|f^global − f^N| / T)                                                (9)

   (note: measured from the best value so far, as Acevedo writes, not from the current energy
   E). An accepted candidate becomes the current point x (and E ← f^N); a candidate with a
   non-finite value is never accepted.
6. Cooling schedule (10)::

       T(k) = T₀ exp(−h k / D),   h = D ln(1/ε) / K,                                 (10)

   with K = ``max_epochs``: h is fixed by T(K) = T_f, i.e. T(k) = T₀ ε^(k/K) (so D cancels).
7. Stop after K epochs; return x^global, f^global.

One epoch is one pass through steps 4–6: one candidate (all D coordinates perturbed at once),
one evaluation, one temperature update — Acevedo's loop evaluates a single candidate per
temperature. Epoch k = 1…K generates and judges its candidate at T(k − 1) (T₀ for the first)
and then cools to T(k); the last cooling reaches T_f. A run therefore makes K + 1 calls to f
(the start point and one per epoch), minus the cache hits below.

Evaluations are cheap where it matters: the neighbour of a point is close to it (at low T
almost always), and the criterion warm-starts its solvers from the previous evaluation's α and β
(DESIGN.md §5), so a training near the current point costs a fraction of a cold one. Repeated
candidates (likely with rounded integer coordinates, or clipped onto a face of the box) are taken
from a cache of the values already computed and cost no training; ``nfev`` counts only the calls
actually made to ``fun``, ``n_cache_hits`` the candidates answered from the cache.

``neighbour_temperature`` chooses the T of (8): ``"absolute"`` (default, Acevedo: the same T as
in (9), starting at T₀ = f⁰) or ``"relative"`` (T/T₀, running from 1 down to ε whatever the scale
of f — Ingber's normalised generating temperature). With ``"absolute"`` the step sizes depend on
the units of f: for f⁰ ≫ 1 the steps are nearly uniform over the whole range until T has cooled
to about 1, and the last ones are still coarse when T_f = 10⁻⁴f⁰ is not ≪ 1 (f⁰ = 366 gives a
median final |y_j| of ~0.16·Range_j; the median of |y_j|/Range_j is T[(1 + 1/T)^½ − 1]).
Multiplying f by a constant changes the search only through (8); with ``"relative"`` the search is
invariant to it.

Random numbers: per epoch D uniforms for (8) and one for (9), always drawn (plus redraws with
``boundary="resample"``), so the same seed gives the same path for a deterministic f.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np
from sklearn.utils import check_random_state

from .result import SearchResult
from .space import SearchSpace

__all__ = ["minimize_annealing", "neighbour_step", "acceptance_probability", "temperature",
           "cooling_constant", "DEFAULT_EPOCHS", "EPSILON"]

#: Default number of epochs (= candidate evaluations).
DEFAULT_EPOCHS = 200
#: T_f = T₀ ε (Acevedo §3 step 3).
EPSILON = 1e-4
NEIGHBOUR_TEMPERATURES = ("absolute", "relative")
BOUNDARIES = ("clip", "resample")


def neighbour_step(u: np.ndarray, T: float, ranges: np.ndarray) -> np.ndarray:
    """Acevedo (8): y_j = sgn(u_j − ½) T [(1 + 1/T)^|2u_j − 1| − 1] Range_j.

    Computed as T · expm1(|2u − 1| · log1p(1/T)), which is exact also for T ≫ 1 (where the
    bracket would cancel) and for T ≪ 1.
    """
    u = np.asarray(u, dtype=np.float64)
    v = np.abs(2.0 * u - 1.0)
    mag = T * np.expm1(v * np.log1p(1.0 / T))
    return np.sign(u - 0.5) * mag * np.asarray(ranges, dtype=np.float64)


def acceptance_probability(f_new: float, f_global: float, T: float) -> float:
    """Acevedo (9): 1 if f^N < f^global, else exp(−|f^global − f^N| / T); 0 for non-finite f^N."""
    if not np.isfinite(f_new):
        return 0.0
    if f_new < f_global:
        return 1.0
    return float(np.exp(-abs(f_global - f_new) / T))


def cooling_constant(n_params: int, max_epochs: int, epsilon: float = EPSILON) -> float:
    """h of (10) from T(K) = T_f = T₀ε:  h = D ln(1/ε) / K."""
    return n_params * np.log(1.0 / epsilon) / max_epochs


def temperature(k, T0: float, h: float, n_params: int):
    """Acevedo (10): T(k) = T₀ exp(−h k / D)."""
    return T0 * np.exp(-h * np.asarray(k, dtype=np.float64) / n_params)


def _check_epochs(max_epochs) -> int:
    if isinstance(max_epochs, bool) or not isinstance(max_epochs, (int, np.integer)):
        if not (isinstance(max_epochs, (float, np.floating)) and float(max_epochs).is_integer()):
            raise ValueError(f"epochs must be a positive integer (max_epochs), got {max_epochs!r}")
    if max_epochs <= 0:
        raise ValueError(f"epochs must be a positive integer (max_epochs >= 1), got {max_epochs!r}")
    return int(max_epochs)


def minimize_annealing(fun: Callable[[np.ndarray], float], space: SearchSpace, *,
                       max_epochs: int = DEFAULT_EPOCHS, random_state=None, x0=None,
                       T0: float | None = None, epsilon: float = EPSILON,
                       neighbour_temperature: str = "absolute", boundary: str = "clip",
                       cache: bool = True,
                       callback: Callable[[np.ndarray, float], None] | None = None,
                       ) -> SearchResult:
    """Minimise ``fun`` over ``space`` by Acevedo's adaptive simulated annealing (§3, steps 1–7).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> float`` for a point x of ``space`` (a 1-D float array, integer coordinates
        holding whole numbers) — e.g. ``criterion_objective(criterion, space)``.
    space : SearchSpace
        The parameters and their ranges (Range_j of (8) = upper_j − lower_j).
    max_epochs : int
        K, the number of epochs = candidates evaluated after the start point (≥ 1). Also fixes
        the cooling constant h of (10) through T(K) = T_f.
    random_state : None, int, RandomState or Generator
        Seed for the start point and the u_j of (8) and (9); the same seed gives the identical
        path (for a deterministic ``fun``). An int or None goes through
        ``sklearn.utils.check_random_state``; a ``numpy.random.Generator`` is used as is.
    x0 : array_like, optional
        Start point instead of the uniform random one of step 1 (clipped to the box, integer
        coordinates rounded).
    T0 : float, optional
        Initial temperature; default from f⁰ (step 3; |f⁰| if f⁰ < 0, 1 if f⁰ = 0).
    epsilon : float
        T_f = T₀ ε, 0 < ε < 1 (Acevedo: 10⁻⁴).
    neighbour_temperature : 'absolute' | 'relative'
        T of (8): the acceptance temperature itself (Acevedo), or T/T₀ (scale-free).
    boundary : 'clip' | 'resample'
        A candidate coordinate outside its range is clipped to the range (default) or drawn
        again from (8) until it falls inside (Ingber's ASA; at most 100 draws, then clipped).
    cache : bool
        Answer a repeated candidate from the values already computed (no training).
    callback : callable, optional
        ``callback(xk, fk)`` after each accepted candidate (the new current point).

    Returns
    -------
    SearchResult
        ``x`` / ``fun``: the best point seen and its value; ``jac`` None; ``nfev``: calls made to
        ``fun`` (start point included, cache hits excluded); ``njev`` 0; ``nit``: epochs run
        (= K); ``n_cache_hits``; ``n_accepted``: candidates accepted by (9); ``x_last`` /
        ``f_last``: the current point at the end; ``T0``, ``Tf``, ``h``; ``params``: the best
        point as {name: value} (integers as int); ``path``: one entry per point judged
        (start point first, ``len(path) == K + 1``) with ``x``, ``value``, ``grad`` (None),
        ``time_s``, ``accepted`` (the start point and candidates accepted by (9)), ``T`` (the
        temperature it was generated and judged at), ``cached`` (answered from the cache) and
        ``best`` (a new best value).

    Raises
    ------
    ValueError
        max_epochs < 1 or not an integer ("epochs must be ..."), bad ε / T₀ /
        neighbour_temperature, x0 not a point of the space, or f not finite at the start point.
    """
    if not isinstance(space, SearchSpace):
        raise ValueError(f"space must be a SearchSpace, got {type(space).__name__}")
    K = _check_epochs(max_epochs)
    eps = float(epsilon)
    if not (0.0 < eps < 1.0):
        raise ValueError(f"epsilon must be in (0, 1), got {epsilon!r}")
    if neighbour_temperature not in NEIGHBOUR_TEMPERATURES:
        raise ValueError(f"neighbour_temperature must be one of {NEIGHBOUR_TEMPERATURES}, "
                         f"got {neighbour_temperature!r}")
    if boundary not in BOUNDARIES:
        raise ValueError(f"boundary must be one of {BOUNDARIES}, got {boundary!r}")
    if T0 is not None:
        T0 = float(T0)
        if not (np.isfinite(T0) and T0 > 0.0):
            raise ValueError(f"T0 must be a finite number > 0, got {T0!r}")
    rng = random_state if isinstance(random_state, np.random.Generator) \
        else check_random_state(random_state)
    D = len(space)
    ranges = space.ranges

    t_start = time.perf_counter()
    path: list[dict] = []
    values: dict = {}
    counts = {"nfev": 0, "hits": 0}

    def evaluate(z: np.ndarray) -> tuple[float, bool]:
        key = tuple(z.tolist())
        if cache and key in values:
            counts["hits"] += 1
            return values[key], True
        v = float(fun(z.copy()))
        counts["nfev"] += 1
        if cache:
            values[key] = v
        return v, False

    def record(z, v, T, accepted, cached, best):
        path.append({"x": z.tolist(), "value": v, "grad": None,
                     "time_s": time.perf_counter() - t_start, "accepted": accepted,
                     "T": T, "cached": cached, "best": best})

    # Steps 1–3.
    x = space.random_point(rng) if x0 is None else space.clip(x0)
    f, _ = evaluate(x)
    if not np.isfinite(f):
        raise ValueError(f"fun is not finite ({f!r}) at the start point {space.as_dict(x)}")
    if T0 is None:
        T0 = abs(f) if f != 0.0 else 1.0
    Tf = T0 * eps
    h = cooling_constant(D, K, eps)
    x_best, f_best = x.copy(), f
    E = f
    record(x, f, T0, True, False, True)

    T = T0
    n_accepted = 0
    for k in range(1, K + 1):
        # Step 4: a neighbour by (8), rounded and clipped to the box.
        u = rng.uniform(0.0, 1.0, size=D)
        u_accept = rng.uniform(0.0, 1.0)
        T_gen = T if neighbour_temperature == "absolute" else T / T0
        y = neighbour_step(u, T_gen, ranges)
        if boundary == "resample":
            # redraw the coordinates that leave the box (Ingber's ASA), at most 100 times
            for _ in range(100):
                out = (x + y < space.lower) | (x + y > space.upper)
                if not out.any():
                    break
                y[out] = neighbour_step(rng.uniform(0.0, 1.0, size=int(out.sum())), T_gen,
                                        ranges[out])
        x_new = space.clip(x + y)
        f_new, cached = evaluate(x_new)
        # Step 5: new best, or acceptance (9) measured from f^global.
        improved = bool(np.isfinite(f_new) and f_new < f_best)
        accepted = improved or (u_accept < acceptance_probability(f_new, f_best, T))
        record(x_new, f_new, T, accepted, cached, improved)
        if improved:
            x_best, f_best = x_new.copy(), f_new
        if accepted:
            x, E = x_new, f_new
            n_accepted += 1
            if callback is not None:
                callback(x.copy(), E)
        # Step 6: cooling (10).
        T = float(temperature(k, T0, h, D))

    return SearchResult(x=x_best, fun=f_best, jac=None, nfev=counts["nfev"], njev=0, nit=K,
                        message=f"maximum number of epochs reached ({K}; T = T_f)",
                        success=True, status=0, path=path, n_cache_hits=counts["hits"],
                        n_accepted=n_accepted, x_last=x, f_last=E, T0=T0, Tf=Tf, h=h,
                        params=space.as_dict(x_best))
