"""Common machinery of every model-selection criterion.

A criterion is evaluated at θ = (ln C, kernel.theta…) (DESIGN.md §2). ``evaluate(θ)`` solves the
SVM dual (and, if needed, the radius QP) at θ, warm-started from the previous evaluation's α and
β (DESIGN.md §5: scale α by C_new/C_old, clip, repair yᵀα = 0), and returns an ``Evaluation``
(value, gradient or None, diagnostics). ``fun``/``grad`` are the two-callable face the search
layer uses: ``grad(θ)`` returns the gradient of the evaluation ``fun(θ)`` just made.

Gradients come from the envelope theorem (Chapelle Lemma 2, Chung §4.1): with the optimal dual
variables held fixed, ∂‖w̃‖²/∂θ = −αᵀ(∂Q̃/∂θ)α and ∂R²/∂θ = βᵀ∂diag(K)/∂θ − βᵀ(∂K/∂θ)β, which
the kernel provides as contractions over the support vectors only.

A criterion is built on a :class:`~svmbound.solvers.Problem` (X, the targets, the per-sample
weights; checked once, by whoever built it) and a kernel: ``SpanBound(Problem(X, y), kernel)``.
Per-sample weights (``Problem(X, y, weights)``, C_i = C·w_i): the criterion keeps
``self.w`` (ones by default; ``self.weights`` is None then) and hands it to every solve; the few
formulas that involve C use C_i through :meth:`Criterion.l2_shift` (1/C_i, the L2 diagonal) and
:meth:`Criterion.over_w` (v/w). Without weights both give the unweighted numbers bit for bit.
"""

from __future__ import annotations

import functools
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._parallel import in_pool_worker, leaf_pool
from .._validation import check_pm1
from ..exceptions import ConvergenceWarning
from ..kernels import Kernel, check_kernel, rbf_gamma
from ..solvers import (DEFAULT_CACHE_MB, DualSolution, Problem, RadiusSolution, check_problem,
                       solve_radius, solve_svm_dual, warm_start_alpha)
from ..solvers.interrupt import StopFlag, stop_scope
from ..solvers.qp import cache_share, cache_share_scope, check_tol


def _kernel_key(kernel: Kernel) -> tuple:
    """What identifies a kernel's values: its class, its numba spec (holds the polynomial
    degree, which θ does not) and θ."""
    return (type(kernel).__name__, kernel.spec(), tuple(np.atleast_1d(kernel.theta).tolist()))


def solve_once_at(criteria, theta) -> None:
    """Make the SVM solve at θ that several criteria would each make first — the same loss,
    tolerance and iteration cap on the same rows (the default strategy's L2 span and rm-l2
    searches at θ₀) — once: the first criterion of each such group solves
    (:meth:`Criterion.solve_at`), the others take its solution as their previous one
    (:meth:`Criterion.start_from`), and a solve at the θ of the previous solution returns it as
    it is (``solve_svm``). Each criterion then sees the solution it would have made, bit for bit
    (the solve is deterministic); one training is counted. The caller passes criteria on the
    same rows, targets and weights only."""
    groups: dict = {}
    for c in criteria:
        key = c.first_solve_key()
        if key is not None:
            groups.setdefault(key, []).append(c)
    for first, *others in groups.values():
        if others:
            first.solve_at(theta)
            for c in others:
                c.start_from(first)


@dataclass
class Evaluation:
    """One criterion evaluation: value f(θ), gradient ∇f(θ) (None if not differentiable or not
    asked for), and diagnostics (C, kernel parameters, R², ‖w‖², n_sv, solver iterations…)."""

    theta: np.ndarray
    value: float
    grad: np.ndarray | None
    info: dict = field(default_factory=dict)


class Objective:
    """``fun``/``grad``/``__call__`` of an object with ``evaluate(theta, need_grad)``,
    ``differentiable``, ``name`` and ``_last`` (the last Evaluation): the face the searches
    see, shared by the criteria and by the search log's wrapper of one
    (``search.log.LoggedCriterion``). ``grad`` at the point just evaluated with a gradient
    reuses that evaluation (a search asks for f then ∇f at the same θ)."""

    def __call__(self, theta) -> float:
        return self.fun(theta)

    def fun(self, theta) -> float:
        return self.evaluate(theta, need_grad=self.differentiable).value

    def grad(self, theta) -> np.ndarray:
        """Gradient at θ, reusing the evaluation just made there."""
        if not self.differentiable:
            raise ValueError(f"criterion {self.name!r} is not differentiable; use the grid or "
                             "annealing search")
        self._count_grad_call()
        last = self._last
        theta = np.asarray(theta, dtype=np.float64).ravel()
        if last is None or last.grad is None or not np.array_equal(last.theta, theta):
            last = self.evaluate(theta, need_grad=True)
        return last.grad

    def _count_grad_call(self) -> None:
        """Hook called by every ``grad`` call (the search log's wrapper counts them)."""

#: Below this many rows an evaluation alone (outside a pool worker) solves the radius QP after
#: the SVM in its own thread instead of beside it in a second one: handing a solve of a few
#: milliseconds to another thread and waiting for it cost more than it saved
#: (``docs/decisions.md``).
RADIUS_THREAD_MIN_ROWS = 200


class Criterion(Objective):
    """Base class. Subclasses set ``name``, ``loss``, ``differentiable``, ``formula``,
    ``source`` and implement ``_compute(C, kernel, need_grad) -> (value, grad, info)``."""

    name = "criterion"
    loss = "l1"
    #: 'classification' (±1 labels) or 'regression' (real targets, ``criteria.svr``)
    task = "classification"
    differentiable = False
    needs_radius = False
    formula = ""
    source = ""
    #: The attributes that carry over from one evaluation to the next — warm starts, the
    #: cached R², counters, the base kernel (annealing changes its degree). A resumed search
    #: (``search.log``) restores them as they were after the last logged evaluation, so that
    #: it goes on exactly as the interrupted run did. Subclasses with more state extend it.
    warm_state_attrs = ("kernel", "n_trainings", "n_radius_solves", "_svm_prev",
                        "_svm_prev_key", "_radius_prev", "_last")

    #: Whether a solve at new kernel parameters starts from the previous solution's α
    #: (``warm_start_alpha``: its initial gradient costs a kernel pass over the support
    #: vectors) or cold (cold: faster along the default's search paths, ``docs/decisions.md``).
    #: A step in C alone still starts from the previous solution and its gradient (no kernel
    #: pass).
    warm_across_kernels = False

    def __init__(self, problem: Problem, kernel: Kernel, *, tol: float = 1e-6,
                 cache_size: float = DEFAULT_CACHE_MB, warm_start: bool = True,
                 max_iter: int | None = None):
        problem = check_problem(problem, type(self).__name__)
        self.X = problem.X
        self.y = self.check_labels(problem.y, problem.n)
        #: per-sample weights w_i > 0 (C_i = C·w_i), None when all are 1
        self.weights = problem.weights
        self.kernel = check_kernel(kernel)
        self.tol = check_tol(tol)
        self.cache_size = cache_size
        self.warm_start = warm_start
        if max_iter is not None and (isinstance(max_iter, bool) or int(max_iter) != max_iter
                                     or max_iter < 1):
            raise ValueError(f"max_iter must be None or an integer >= 1, got {max_iter!r}")
        #: iteration cap of every SMO solve (None: the solvers' default)
        self.max_iter = None if max_iter is None else int(max_iter)
        self._unconverged: list = []   # solves of the current evaluation that hit the cap
        self.n_trainings = 0       # SVM dual solves made
        self.n_radius_solves = 0
        self._svm_prev: DualSolution | None = None
        self._svm_prev_key = None
        self._radius_prev: dict = {}
        self._last: Evaluation | None = None

    @staticmethod
    def check_labels(y, n: int) -> np.ndarray:
        """The labels a criterion takes: ±1 (a regression criterion takes real targets)."""
        return check_pm1(y, n)

    # -- per-sample weights -----------------------------------------------------------------
    @property
    def w(self) -> np.ndarray:
        """The per-sample weights w (C_i = C·w_i); ones without weights."""
        return np.ones(self.y.size) if self.weights is None else self.weights

    def l2_shift(self, C: float, idx=None):
        """1/C_i = 1/(C w_i), the L2-SVM's diagonal shift (K̃ = K + diag(1/C_i)), for the samples
        ``idx`` (all by default): the number 1/C without weights."""
        if self.weights is None:
            return 1.0 / C
        return 1.0 / (C * (self.weights if idx is None else self.weights[idx]))

    def shifted_gram(self, C: float, kernel: Kernel, rows) -> np.ndarray:
        """K̃ = K(X_rows, X_rows) + diag(1/C_i) over ``rows`` (the support vectors): the L2
        machine's kernel (Chapelle eq. 3), a new array the caller may overwrite."""
        Kt = kernel.block(self.X[rows])
        Kt[np.diag_indices_from(Kt)] += self.l2_shift(C, rows)
        return Kt

    def over_w(self, v, idx=None):
        """v_i / w_i for the samples ``idx`` (all by default); v itself without weights."""
        if self.weights is None:
            return v
        return v / (self.weights if idx is None else self.weights[idx])

    # -- θ handling ----------------------------------------------------------------------
    @property
    def n_params(self) -> int:
        return 1 + len(self.kernel.param_names)

    @property
    def param_names(self) -> tuple:
        return ("log_C",) + tuple(self.kernel.param_names)

    def split_theta(self, theta) -> tuple[float, Kernel]:
        """(C, kernel) at θ = (ln C, kernel θ…); a ValueError unless θ is that many finite
        numbers."""
        theta = self.check_theta(theta)
        return float(np.exp(theta[0])), self.kernel.with_theta(theta[1:])

    def check_theta(self, theta) -> np.ndarray:
        """θ as ``n_params`` finite float64 numbers (a ValueError naming ``param_names``)."""
        try:
            theta = np.asarray(theta, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise ValueError(f"theta must be {self.n_params} numbers {self.param_names}, got "
                             f"{theta!r}") from None
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta must have {self.n_params} entries {self.param_names}, "
                             f"got {theta.shape[0]}")
        if not np.all(np.isfinite(theta)):
            raise ValueError(f"theta must be finite, got {theta!r}")
        return theta

    # -- solves with warm starts ---------------------------------------------------------
    def first_solve_key(self):
        """What makes two criteria's SVM solves at one θ the same on the same rows
        (:func:`solve_once_at`): the loss, tolerance and iteration cap of a classification
        criterion that warm-starts; None for one that does not share (a regression criterion
        solves the SVR, a criterion without warm starts solves every time)."""
        if self.task != "classification" or not self.warm_start:
            return None
        return (self.loss, self.tol, self.max_iter)

    def solve_at(self, theta) -> None:
        """The SVM solve at θ (kept as the previous solution)."""
        self.solve_svm(*self.split_theta(theta))

    def start_from(self, other: "Criterion") -> None:
        """Take ``other``'s last SVM solution (same rows, ``first_solve_key``) as this
        criterion's previous one: a solve at its θ returns it (:func:`solve_once_at`)."""
        self._svm_prev, self._svm_prev_key = other._svm_prev, other._svm_prev_key

    def _starts_cold(self, key) -> bool:
        """Whether the next SVM solve at the kernel of ``_kernel_key`` ``key`` starts cold:
        no warm start, or no previous solution, or a new kernel without
        ``warm_across_kernels``."""
        return not (self.warm_start and self._svm_prev is not None
                    and (self._svm_prev_key == key or self.warm_across_kernels))

    def solve_svm(self, C: float, kernel: Kernel) -> DualSolution:
        """The SVM at (C, kernel): warm-started from the previous solution where
        ``_starts_cold`` allows; the previous solution itself when it was made at this very C
        and kernel and converged (a solve from it would stop at once with the same α)."""
        prev = self._svm_prev
        alpha0 = warm_from = None
        key = _kernel_key(kernel)
        cold = self._starts_cold(key)
        if not cold and self._svm_prev_key == key and prev.C == C and prev.converged:
            return prev
        if not cold:
            if self._svm_prev_key == key:    # only C changed: reuse the gradient (no kernel value)
                warm_from = prev
            else:                            # warm_across_kernels
                alpha0 = warm_start_alpha(prev.alpha, self.y, prev.C, C, self.loss,
                                          self.weights)

        sol = solve_svm_dual(self.X, self.y, kernel, C, loss=self.loss, tol=self.tol,
                             alpha0=alpha0, warm_from=warm_from, cache_size=self.cache_size,
                             check_input=False, max_iter=self.max_iter, weights=self.weights)
        self.n_trainings += 1
        self._svm_prev = sol
        self._svm_prev_key = key
        self.note_solution(sol, "SVM dual")
        return sol

    def note_solution(self, sol, what: str) -> None:
        """Record a solve of the current evaluation that stopped before its tolerance (at the
        iteration cap); ``evaluate`` reports it in ``info['converged']`` and warns."""
        if not sol.converged:
            why = getattr(sol, "stop_reason", None)
            self._unconverged.append(f"{what}: KKT violation {sol.max_violation:.3g} after "
                                     f"{sol.n_iter} iterations" + (f" ({why})" if why else ""))

    def solve_svm_and_radius(self, C: float, kernel: Kernel, radius):
        """(SVM solution at (C, kernel), ``radius()``), the radius QP running in a second thread
        while the SVM is solved: the two problems are independent and both solvers release the
        GIL (numba ``nogil``, BLAS), so on two cores an evaluation costs about the larger of the
        two solves instead of their sum. The results do not depend on the threading. Each of
        the two solves gets half of this thread's share of the kernel-row cache
        (``solvers.qp.cache_share``), so that together they stay within it.

        The radius thread solves under a stop flag of this call (``solvers.interrupt``): a
        Ctrl-C while the SVM is solved, or while its result is awaited, stops the radius QP too
        (also one that has not started yet), so the interruption is not held up by it.

        In a worker of a parallel call (``_parallel.in_pool_worker``: the default strategy's
        two searches with ``n_jobs=2``, the CV folds, the multi-class pairs) the cores are
        usually taken already, and the two solves then run one after the other in this
        thread: a third thread only queued for the cores and the GIL (4 % slower on the quick
        benchmark cases, both losses; ``docs/decisions.md``). On fewer than
        ``RADIUS_THREAD_MIN_ROWS`` rows (the one-vs-one pairs of most multi-class data) the two
        solves always run one after the other: the hand-off cost more than the overlap saved."""
        if self.y.size >= RADIUS_THREAD_MIN_ROWS and not in_pool_worker():
            return self._svm_beside_radius(C, kernel, radius)
        svm = self.solve_svm(C, kernel)
        return svm, radius()

    def _svm_beside_radius(self, C: float, kernel: Kernel, radius):
        """``solve_svm_and_radius`` with ``radius()`` in a thread of the leaf pool."""
        half = cache_share() / 2.0    # the two solves share this thread's part of the cache

        def radius_in_scope():
            with stop_scope(flag), cache_share_scope(half):
                return radius()

        with StopFlag() as flag:
            future = leaf_pool().submit(radius_in_scope)   # a kept thread: none started here
            try:
                with cache_share_scope(half):
                    svm = self.solve_svm(C, kernel)
                return svm, future.result()
            except BaseException:
                flag.set()
                # the radius stops at its next iteration (or never starts): wait for it, so
                # that nothing of this evaluation runs on after it has failed
                from concurrent.futures import wait
                wait([future])
                raise

    def solve_radius(self, kernel: Kernel, shift=0.0) -> RadiusSolution:
        """R² (shift 0) or R̃² (shift 1/C, or ``l2_shift(C)``: the vector of 1/C_i); with shift 0
        the result is reused while the kernel parameters do not change (R² does not depend on
        C)."""
        # the key holds the whole kernel: θ alone misses a changed integer degree (polynomial)
        key = _kernel_key(kernel) if np.ndim(shift) == 0 and shift == 0.0 else None
        prev = self._radius_prev.get("sol")
        if key is not None and self._radius_prev.get("key") == key:
            self.note_solution(prev, "radius QP")
            return prev
        beta0 = prev.beta if (self.warm_start and prev is not None) else None
        sol = solve_radius(self.X, kernel, shift=shift, tol=self.tol, beta0=beta0,
                           cache_size=self.cache_size, check_input=False,
                           max_iter=self.max_iter)
        self.n_radius_solves += 1
        self._radius_prev = {"sol": sol, "key": key}
        self.note_solution(sol, "radius QP")
        return sol

    def radius_gradient(self, kernel: Kernel, sol: RadiusSolution) -> np.ndarray:
        """∂R²/∂θ_k = Σ β_i ∂K_ii/∂θ_k − βᵀ(∂K/∂θ_k)β   (kernel parameters only)."""
        return kernel.diag_contract(self.X, sol.beta) - kernel.contract(self.X, sol.beta, sol.beta)

    def margin_gradient(self, kernel: Kernel, sol: DualSolution) -> np.ndarray:
        """−αᵀ(∂Q/∂θ_k)α = −Σ α_i α_j y_i y_j ∂K_ij/∂θ_k   (kernel parameters only)."""
        ay = sol.alpha * self.y
        return -kernel.contract(self.X, ay, ay)

    def warm_state(self) -> dict:
        """The state listed in ``warm_state_attrs``: references, not copies — serialise it
        (pickle) before the next evaluation, which may change some of it in place."""
        return {a: getattr(self, a) for a in self.warm_state_attrs if hasattr(self, a)}

    def set_warm_state(self, state: dict) -> None:
        """Restore a ``warm_state()``."""
        for a, v in state.items():
            setattr(self, a, v)

    # -- public face ---------------------------------------------------------------------
    def evaluate(self, theta, need_grad: bool = True) -> Evaluation:
        """f(θ) (and ∇f(θ) when asked for and differentiable) with diagnostics in ``info``.

        ``info['converged']`` is False when a solve behind the value stopped at its iteration
        cap before reaching ``tol`` (``info['unconverged']`` then says which); the value is
        still returned, with a ``ConvergenceWarning`` (a RuntimeWarning), since it may be
        inaccurate.
        """
        t0 = time.perf_counter()
        C, kernel = self.split_theta(theta)
        self._unconverged = []
        value, grad, info = self._compute(C, kernel, need_grad and self.differentiable)
        info.update(C=C, kernel=kernel.get_params(), time_s=time.perf_counter() - t0)
        info["converged"] = not self._unconverged
        if self._unconverged:
            info["unconverged"] = list(self._unconverged)
            warnings.warn(f"criterion {self.name} at theta={np.round(theta, 4).tolist()}: "
                          f"{'; '.join(self._unconverged[:3])} (tol {self.tol:g}); the value "
                          "may be inaccurate (raise the solver's max_iter or loosen tol)",
                          ConvergenceWarning, stacklevel=2)
        gamma = rbf_gamma(info["kernel"])
        if gamma is not None:
            info["gamma"] = gamma
        ev = Evaluation(theta=np.array(theta, dtype=np.float64), value=float(value),
                        grad=None if grad is None else np.asarray(grad, dtype=np.float64),
                        info=info)
        self._last = ev
        return ev

    @property
    def last(self) -> Evaluation | None:
        return self._last

    def _compute(self, C, kernel, need_grad):  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def losses(cls) -> tuple:
        """The losses this criterion can be computed for (a class with a ``loss`` constructor
        argument, e.g. CV error, takes both)."""
        return ("l1", "l2") if _takes_loss(cls.__init__) else (cls.loss,)

    @classmethod
    def describe(cls) -> dict:
        return {"name": cls.name, "task": cls.task, "loss": "/".join(cls.losses()),
                "differentiable": cls.differentiable, "formula": cls.formula,
                "source": cls.source}


@functools.lru_cache(maxsize=None)
def _takes_loss(init) -> bool:
    """Whether a criterion's ``__init__`` has a ``loss`` parameter (kept per function)."""
    import inspect

    return "loss" in inspect.signature(init).parameters
