"""Step 5 of the default strategy: from a few thousand rows, the rows the searches and the
validation use.

From ``half_split_rows`` rows (or on more than 2·m) the bound searches run on a stratified
subsample S and the candidates are validated on up to ``validation_factor``·|S| other rows V (a
hold-out error); only the final model sees every row. With b = ``tune_subsample`` and m = min(b,
:func:`span_memory_rows`), the most rows on which one span-bound evaluation fits in half of the
cache budget, S has :func:`search_rows` = min(n/2, m, max(b/2, n_b/8)·n/n_b) rows, n_b the rows
of the largest binary problem the searches solve (n; one-vs-one, the two largest classes): for a
binary problem and a cache that holds b rows, one half of the data up to b rows, b/2 up to 4b
rows, an eighth up to 8b rows, b beyond (issue 32: with every row searched the searches cost
25–50 SVC fits from 2,000 to 10,000 rows, with one half 8–12 at 10,000). The eighth caps what
the searches cost, not what they hold (a search's cost grows as its binary problem's rows, the
span bound's as their cube): a one-vs-one search on many classes, whose pairs are small, keeps
min(n/2, m); the choice and its measurements: docs/decisions.md, "half_split_rows".
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from ..solvers.qp import cache_megabytes
from .config import DEFAULT_CONFIG, StrategyConfig

__all__ = ["span_memory_rows", "search_rows", "tuning_rows",
           "stratified_pick"]


def span_memory_rows(cache_size, config: StrategyConfig = DEFAULT_CONFIG) -> int:
    """The most rows m on which a span-bound evaluation fits in half of the cache budget, every
    row a support vector: ``span_working_arrays``·8·m² bytes ≤ cache_size/2 (at least
    ``min_memory_rows``). The span search runs beside the radius–margin search, whose solves
    hold the other half of the budget (``solvers.qp.cache_share``), so that the tuning's
    memory stays about the cache plus the data (issue 14). ``cache_size``: MB, "auto" or None
    (the solvers' default; ``solvers.qp.cache_megabytes``); 200 MB (SVC's) gives 2,336 rows,
    "auto" on a machine with 16 GB or more (4 GB) 10,575 rows."""
    mb = float(cache_megabytes(cache_size))
    m = int(np.sqrt(mb / 2.0 * 2**20 / (8.0 * config.span_working_arrays)))
    return max(config.min_memory_rows, m)


def stratified_pick(rng, y, rows, m: int) -> np.ndarray:
    """m of ``rows`` at random, each class of y[rows] in proportion (at least one row of each
    class, at least two where it has them), sorted."""
    labels = y[rows]
    classes, counts = np.unique(labels, return_counts=True)
    want = np.maximum(np.minimum(counts, 2), np.round(m * counts / rows.size).astype(int))
    want = np.minimum(want, counts)
    picked = [rng.choice(rows[labels == c], size=k, replace=False)
              for c, k in zip(classes, want)]
    return np.sort(np.concatenate(picked))


def search_rows(n: int, m: int, share: float | None = None, n_b: int | None = None,
                budget: int | None = None) -> int:
    """|S|, the rows the searches use of n (module docstring): min(n/2, m), and with ``share``
    at most max(b/2, ``share``·n_b)·n/n_b, b = ``budget`` (``tune_subsample``; None: m), so that
    the largest binary problem searched, n_b rows of the n (None: n), has at most max(b/2,
    ``share``·n_b) of its rows in S. The memory cap lowers m, not b: a small cache keeps
    min(n/2, m)."""
    rows = min(n // 2, m)
    if share is None:
        return rows
    b = m if budget is None else int(budget)
    n_b = n if n_b is None else min(int(n_b), n)
    return min(rows, int(max(b // 2, share * n_b) * n / n_b))


def tuning_rows(y, subsample: int | None, random_state=None,
                config: StrategyConfig = DEFAULT_CONFIG, largest_problem: int | None = None,
                memory_rows: int | None = None):
    """(S, V): the rows the bound searches use and the rows that validate the candidates, or
    None when every row is used (``subsample`` None, or n ≤ 2·m (below) and either n <
    ``config.half_split_rows`` or a class of ``y`` has fewer than ``config.half_split_min_class``
    rows: its half would be too few to validate on, the k-fold CV uses every one).

    ``memory_rows``: the most rows the cache holds a span evaluation of (:func:`span_memory_rows`;
    None: no cap), m = min(``subsample``, ``memory_rows``). S: :func:`search_rows` (n, m,
    ``config.search_share``, ``largest_problem``: the rows of the largest binary problem the
    searches solve, None: n; budget ``subsample``) rows drawn at random within each class in
    proportion (stratified, every class present); V: up to ``validation_factor``·|S| of the
    other rows, drawn the same way. Both sorted; ``random_state`` fixes the draw (None: 0, as the
    CV folds)."""
    y = np.asarray(y)
    n = y.size
    if subsample is None:
        return None
    budget = int(subsample)
    m = budget if memory_rows is None else min(budget, int(memory_rows))
    if n <= 2 * m and (n < config.half_split_rows
                       or np.unique(y, return_counts=True)[1].min() < config.half_split_min_class):
        return None
    m = search_rows(n, m, config.search_share, largest_problem, budget)
    rng = check_random_state(0 if random_state is None else random_state)
    every = np.arange(n)
    S = stratified_pick(rng, y, every, m)
    rest = np.setdiff1d(every, S, assume_unique=True)
    m_val = min(rest.size, config.validation_factor * m)
    V = rest if m_val == rest.size else stratified_pick(rng, y, rest, m_val)
    return S, V
