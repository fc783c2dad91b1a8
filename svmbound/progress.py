"""Progress bar of a tuning run on stderr (tqdm): one step per criterion evaluation.

:class:`Progress` is shown as soon as it is created (before the first, possibly long, solve),
advances by one for every evaluation — one per grid point for the grid search, one per
candidate for annealing, one per trial point for the gradient searches, one per candidate of
the default strategy's validation — and shows the stage (``info['stage']``: the criterion's
tag, e.g. span, rm-l2, cv-error) and the best value of that stage so far (values of different
criteria are not comparable); evaluations answered from a resumed log count as "replayed".
``total`` is known for the grid and annealing searches and, from its budgets, for the default
strategy (tqdm then shows an ETA); a running count for a named gradient search. The final
training is one more step, shown as the stage "final training" (:meth:`Progress.stage`,
:meth:`Progress.step`). With ``echo`` (``verbose`` ≥ 3) every evaluation is also one line.
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["Progress", "stderr_is_terminal"]


def stderr_is_terminal(stream=None) -> bool:
    """Whether ``stream`` (default ``sys.stderr``) is an interactive terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """A tqdm bar on ``file`` (stderr), or nothing when ``enabled`` is false.

    ``on_evaluation(ev, replayed)`` is the hook for ``search.log.LoggedCriterion``;
    ``write(text)`` prints a line without breaking the bar; ``close()`` ends it.
    """

    def __init__(self, enabled: bool = True, total: int | None = None,
                 desc: str = "svmbound", file=None, echo: bool = False):
        self.best = {}                  # stage -> the best value of that stage's criterion
        self.echo = echo
        self.n_replayed = 0
        self.file = sys.stderr if file is None else file
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="eval", file=self.file,
                            dynamic_ncols=True, leave=True)

    def __reduce__(self):
        """A copy in another process (a loky or dask worker running a bound search,
        ``svmbound._parallel``) is a Progress without bar: the tqdm bar and its stream belong
        to this process and do not unpickle elsewhere; ``write`` there goes to that process's
        stderr."""
        return Progress, (False, None, "svmbound", None, self.echo)

    def on_evaluation(self, ev, replayed: bool = False) -> None:
        stage = ev.info.get("stage", "search")
        if np.isfinite(ev.value) and ev.value < self.best.get(stage, np.inf):
            self.best[stage] = float(ev.value)
        self.n_replayed += bool(replayed)
        if self.echo:
            self.write(f"[svmbound] eval {stage}: theta={np.round(ev.theta, 4).tolist()} "
                       f"value={ev.value:.6g}" + (" (replayed)" if replayed else ""))
        if self.bar is None:
            return
        post = {"stage": stage, "best": f"{self.best.get(stage, np.inf):.6g}"}
        if self.n_replayed:
            post["replayed"] = self.n_replayed
        self.bar.set_postfix(post, refresh=False)
        self.bar.update(1)

    def stage(self, name: str) -> None:
        """Show ``name`` as the current stage (the final training) before its step."""
        if self.bar is not None:
            self.bar.set_postfix({"stage": name}, refresh=True)

    def step(self) -> None:
        """One step done outside the evaluations (the final training)."""
        if self.bar is not None:
            self.bar.update(1)

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.file)
        else:
            print(text, file=self.file, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
