"""The default tuning strategy: the bounds find the region, a validation picks.

``BoundSVC(criterion='auto')`` (the default) and ``svmbound tune`` with no options run
:func:`tune_auto`, in five steps:

1. **Start** (:mod:`.start`): θ₀ = (ln C = 0, ln σ² = ln(d·Var(X)/2)), scikit-learn's
   ``gamma='scale'``, with the ln σ² box centred on it.
2. **Two bound searches** (:mod:`.tune`): projected BFGS (Chung §4.2) from θ₀ on the span
   bound of the L2-SVM (Chapelle eq. 7 smoothed, §4) and on the radius–margin bound of the
   loss (Chung 1.8, 3.3), side by side, each stopped early: it only has to find the region.
3. **Candidates** (:mod:`.candidates`): each search's minimum, and one of them with C·e²
   (the bounds' bias towards too small a C, Chung §4.3).
4. **Validation picks**: the stratified k-fold CV error of the loss's SVM at each candidate;
   ties go to the smaller C. Then (:mod:`.ard`) one σ_k² per feature from the span bound's
   isotropic minimum by L-BFGS-B on that bound; where the bound fell by 40 % or more its
   minimum is validated on the same folds and taken only when it beats the pick by a margin.
   The chosen model is trained on every row at LIBSVM's 1e-3.
5. **Large data** (:mod:`.rows`): from ``half_split_rows`` (2,000) rows, steps 2–4 run on a
   stratified subsample (half the rows, beyond ``tune_subsample``/2 an eighth of them, at most
   ``tune_subsample``) and a hold-out error on other rows picks.

Every setting is a field of :class:`StrategyConfig` (:mod:`.config`); why each default has
its value: ``docs/decisions.md``. Measured accuracy and speed against the peers:
BENCHMARKS.md.
"""

from .candidates import (candidate_points, check_validation_classes, cv_key, loss_steps,
                         next_usable_candidate, single_sample_classes, validation_problems)
from .ard import ard_reason
from .config import DEFAULT_CONFIG, ISOTROPIC_CONFIG, SVR_CONFIG, StrategyConfig
from .rows import search_rows, span_memory_rows, tuning_rows
from .start import auto_box_and_start, scale_log_sigma2
from .tune import evaluation_budget, tune_auto

__all__ = ["StrategyConfig", "DEFAULT_CONFIG", "ISOTROPIC_CONFIG", "SVR_CONFIG", "ard_reason",
           "tune_auto", "evaluation_budget", "auto_box_and_start", "scale_log_sigma2",
           "candidate_points", "loss_steps", "cv_key", "next_usable_candidate",
           "validation_problems", "single_sample_classes", "check_validation_classes",
           "span_memory_rows", "search_rows", "tuning_rows"]
