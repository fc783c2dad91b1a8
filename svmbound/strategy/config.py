"""The knobs of the default strategy, in one frozen object passed in.

``BoundSVC(strategy_config=StrategyConfig(...))`` and ``tune_auto(..., config=...)`` take one;
benchmarks and tests set fields with ``dataclasses.replace(DEFAULT_CONFIG, field=value)``.
Why each default has its value, with the measurement that chose it: ``docs/decisions.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["StrategyConfig", "DEFAULT_CONFIG", "ISOTROPIC_CONFIG", "SVR_CONFIG"]


@dataclass(frozen=True)
class StrategyConfig:
    """The default strategy's settings (``svmbound.strategy``), one line each."""

    #: bound criteria searched, by loss (names of ``svmbound.criteria.CRITERIA``)
    bounds_by_loss: dict = field(default_factory=lambda: {"l2": ("span", "rm-l2"),
                                                          "l1": ("span", "rm-l1")})
    #: half-width of the ln σ² box around the data-driven start (Chung's box is ±10)
    log_sigma2_half_width: float = 10.0
    #: gradient stop of each bound search, relative to |f(θ₀)|
    stage_gtol: float = 1e-2
    #: evaluations each bound search may make: a number, or a dict by criterion name
    stage_max_fev: object = field(default_factory=lambda: {"span": 4, "rm-l2": 5, "rm-l1": 6})
    #: the bound searches' solver tolerance, at least (None: the estimator's ``tol``)
    stage_tol: float | None = 1e-3
    #: line-search reduction of the bound searches ('quadratic' or Chung's 'halve')
    stage_backtrack: str = "quadratic"
    #: longest first trial step of a bound search's line search, ‖Δθ‖
    stage_max_step: float = 2.0
    #: whether the searches make a cold solve they both need once (L2: span and rm-l2 at θ₀)
    share_cold_solves: bool = True
    #: steps (Δ ln C, Δ ln σ²) from a bound's minimum that are candidates too, by loss, by bound
    neighbour_steps: dict = field(default_factory=lambda: {"l2": {"rm-l2": ((2.0, 0.0),)},
                                                           "l1": {"span": ((2.0, 0.0),)}})
    #: steps from θ₀ that are candidates when θ₀ is one
    start_steps: tuple = ()
    #: whether θ₀ is always a candidate (else only when every other is no better than chance)
    start_candidate: bool = False
    #: solver tolerance of the final model (LIBSVM's and SVC's 1e-3)
    validation_tol: float = 1e-3
    #: solver tolerance of the CV trainings (None: ``validation_tol``), at least ``tol``
    cv_tol: float | None = 1e-2
    #: whether a search that ends first starts the CV of its own candidates at once
    overlap_cv: bool = True
    #: searches on at most this many rows run with their CV in one thread whatever ``n_jobs``:
    #: a second thread costs more than it saves there (``docs/decisions.md``)
    serial_rows: int = 100
    #: on large data, validation rows per subsample row (outside the subsample)
    validation_factor: int = 4
    #: from this many rows the searches use a subsample (``rows.search_rows``), others validate
    half_split_rows: int = 2000
    #: beyond ``tune_subsample``/2 search rows, the most rows of the largest binary problem
    #: searched, as a share of its rows (``rows.search_rows``); None: min(n/2, m) alone
    search_share: float | None = 0.125
    #: up to 2·``tune_subsample`` rows, the subsample only when every class has this many rows
    half_split_min_class: int = 20
    #: working memory of one span evaluation with gradient, in m × m doubles (m support vectors)
    span_working_arrays: float = 2.4
    #: the least number of search rows the memory cap leaves
    min_memory_rows: int = 1000
    #: the criterion that validates the candidates (k-fold CV, or a hold-out on large data)
    validation_criterion: str = "cv-error"
    #: by loss: percentiles q of a bound search's coefficients |β_i|/w_i at its minimum, each
    #: a candidate with C at that percentile (``tune._coef_candidates``)
    coef_quantiles: dict = field(default_factory=dict)
    #: evaluations of the per-feature (ARD) search after the isotropic ones; 0: none (:mod:`.ard`)
    ard_max_fev: int = 8
    #: the bound the per-feature search minimises, from its isotropic minimum
    ard_bound: str = "span"
    #: the numbers of features (least, most) for which the per-feature search runs
    ard_features: tuple = (2, 1000)
    #: the most search rows the per-feature search uses (a stratified draw beyond)
    ard_rows: int = 2000
    #: z of the margin by which the per-feature candidate must beat the isotropic ones
    ard_margin: float = 2.0
    #: the least relative fall of the bound in the per-feature search for its minimum to be
    #: validated (a candidate at all)
    ard_min_gain: float = 0.4
    #: the per-feature search stops once its fall plus this many times its pace (its largest
    #: fall in one evaluation), for each evaluation left, is below ``ard_min_gain``
    #: (``ard.ard_stop``); None: it runs to its budget
    ard_stop_factor: float | None = 1.0
    #: the pace of ``ard_stop_factor`` is taken over the last this many evaluations (None: all)
    ard_stop_window: int | None = 2


#: The settings ``BoundSVC`` uses when given none.
DEFAULT_CONFIG = StrategyConfig()

#: The default without its per-feature stage: one σ² for every feature, as grid search.
ISOTROPIC_CONFIG = StrategyConfig(ard_max_fev=0)

#: The settings ``BoundSVR`` uses when given none: one search, on the L2-SVR's span estimate
#: of the leave-one-out mean squared error (``criteria.svr``), over (ln C, ln σ², ln ε); its
#: minimum and the minimum with C·e² validated by the k-fold CV mean squared error of the loss.
SVR_CONFIG = StrategyConfig(bounds_by_loss={"l2": ("svr-span",), "l1": ("svr-span",)},
                            stage_max_fev={"svr-span": 8},
                            neighbour_steps={"l2": {"svr-span": ((2.0, 0.0),)}, "l1": {}},
                            coef_quantiles={"l1": (50.0, 90.0, 100.0)},
                            validation_criterion="svr-cv", ard_max_fev=0,
                            half_split_rows=6000, search_share=None)
