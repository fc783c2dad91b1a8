"""grid.py's files of a tune run: the grid and its -out lines, the -resume file, the -png map."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

_LN2 = math.log(2.0)


@dataclass
class GridPy:
    """The grid.py options of one ``svmbound tune`` call, resolved."""

    log2c: list | None        # grid.py's sequence of log2 C, None for null
    log2g: list | None        # grid.py's sequence of log2 gamma, None for null / no gamma
    folds: int | None         # -v
    out: str | None           # -out (grid.py's default <dataset>.out), None for -out null
    grid: bool                # the grid search over the grid.py grid
    weight_total: float | None = None   # Σ w of the rows with -wi class weights (else None)
    resume: str | None = None           # -resume's file
    #: -resume: the file's points {(log2c, log2g): rate} in its order (None for a null axis)
    resumed: dict = field(default_factory=dict)
    n_samples: int | None = None        # rows of the training data (set by ``apply``)
    png: str | None = None              # -png
    title: str = ""                     # the training file's name (grid.py's plot title)

    def ln_c_axis(self):
        """(begin, end, step) of ln C for ``--grid-log-c``."""
        if self.log2c is None:
            return (0.0, 0.0, 1.0)
        step = (self.log2c[1] - self.log2c[0]) if len(self.log2c) > 1 else 1.0
        return (self.log2c[0] * _LN2, self.log2c[-1] * _LN2, step * _LN2)

    def ln_sigma2_axis(self, n_features=None):
        """(begin, end, step) of ln σ² = −(log2 γ + 1)·ln 2 for ``--grid-log-sigma2``; for
        ``-log2g null`` the single point γ = 1/n_features."""
        if self.log2g is None:
            v = math.log(n_features / 2.0)            # LIBSVM's default γ = 1/n_features
            return (v, v, 1.0)
        step = (self.log2g[1] - self.log2g[0]) if len(self.log2g) > 1 else -1.0
        return (-(self.log2g[0] + 1.0) * _LN2, -(self.log2g[-1] + 1.0) * _LN2, -step * _LN2)

    def point(self, x):
        """(log2c, log2g) of the grid point x = (ln C[, ln σ²]) (None for a null axis), or
        None when x is not a point of the grid."""
        key = []
        for values, k, axis in ((self.log2c, 0, self.ln_c_axis),
                                (self.log2g, 1, self.ln_sigma2_axis)):
            if values is None:
                key.append(None)
                continue
            begin, _, step = axis()
            i = int(round((x[k] - begin) / step))
            if not 0 <= i < len(values) or abs(begin + i * step - x[k]) > 1e-6 * abs(step):
                return None
            key.append(values[i])
        return tuple(key)

    def lines(self, path, n_samples) -> list[str]:
        """grid.py's output lines for the evaluated points of a grid search (``path``: the
        search result's path, x = (ln C[, ln σ²]), value = number of CV errors)."""
        out = []
        for p in path:
            c, g = self.point(p["x"])
            out.append(out_line(c, g, cv_rate(p["value"], n_samples)))
        return out

    def total(self) -> float:
        """What the CV errors are counted out of: the rows, or Σ w with class weights."""
        return self.n_samples if self.weight_total is None else self.weight_total

    def resumed_rate(self, key):
        """The rate -resume's file gives the point ``key`` (log2c, log2g), or None."""
        return resumed_lookup(self.resumed).get(rounded_key(key))

    def known_value(self, theta):
        """The criterion value (number of CV errors, Σ w over them with class weights) at the
        grid point θ from -resume's file, or None when the file does not have the point."""
        key = self.point(np.asarray(theta, dtype=float))
        rate = None if key is None else self.resumed_rate(key)
        if rate is None:
            return None
        errors = self.total() * (100.0 - rate) / 100.0
        return float(round(errors)) if self.weight_total is None else errors

    def stdout_lines(self, entries, chosen) -> tuple[list[str], tuple | None]:
        """grid.py's stdout for ``entries`` [(worker, log2c, log2g, rate)]: per point
        ``[worker] log2c log2g rate (best c=…, g=…, rate=…)`` with the best so far — the
        first of the largest rate, or the search's ``chosen`` (log2c, log2g) among equal
        rates, so that the best is the point the model was trained at — then ``best_c best_g
        best_rate`` with c = 2^log2c and g = 2^log2g. Returns (the lines, the best
        (log2c, log2g, rate))."""
        out, best = [], None
        for worker, c, g, rate in entries:
            if best is None or rate > best[2] or (rate == best[2] and (c, g) == chosen):
                best = (c, g, rate)
            shown = [str(v) for v in (c, g) if v is not None]
            best_txt = ", ".join([f"{n}={2.0 ** v}" for n, v in zip("cg", best[:2])
                                  if v is not None] + [f"rate={best[2]}"])
            out.append(f"[{worker}] {' '.join(shown)} {rate} (best {best_txt})")
        if best is not None:
            last = [str(2.0 ** v) for v in best[:2] if v is not None] + [str(best[2])]
            out.append(" ".join(last))
        return out, best


def out_line(c, g, rate) -> str:
    """grid.py's output line of one point."""
    return (f"log2c={c} " * (c is not None) + f"log2g={g} " * (g is not None)
            + f"rate={rate}")


def rounded_key(key):
    return tuple(None if v is None else round(float(v), 9) for v in key)


def resumed_lookup(resumed: dict) -> dict:
    return {rounded_key(k): v for k, v in resumed.items()}


def read_resume_file(path) -> dict:
    """grid.py's reading of a -resume file: {(log2c, log2g): rate} from every line with a
    ``rate=``; a point given twice keeps its first place and its last rate (grid.py's dict). A
    rate outside [0, 100] (an accuracy in percent) is a ValueError naming the line: the
    rates decide the model."""
    found = {}
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            for line in fh:
                rate = re.findall(r"rate=([0-9.]+)", line)
                if not rate:
                    continue
                c = re.findall(r"log2c=([0-9.-]+)", line)
                g = re.findall(r"log2g=([0-9.-]+)", line)
                try:
                    key = (float(c[0]) if c else None, float(g[0]) if g else None)
                    found[key] = float(rate[0])
                except ValueError:
                    raise ValueError(f"-resume {path}: cannot read the line {line.strip()!r} "
                                     "(grid.py's 'log2c=.. log2g=.. rate=..')") from None
                if not 0.0 <= found[key] <= 100.0 or not all(
                        v is None or np.isfinite(v) for v in key):
                    raise ValueError(f"-resume {path}: the line {line.strip()!r} is no grid "
                                     "point's cross-validation accuracy (a rate in percent, 0 "
                                     "to 100, at finite log2c and log2g)")
    except OSError as exc:
        raise ValueError(f"-resume {path}: cannot read it ({exc.strerror or exc})") from None
    return found


def default_out(train) -> str:
    """grid.py's default ``-out``: ``<dataset file name>.out``, in the current folder."""
    return f"{os.path.basename(os.fspath(train))}.out"


def cv_rate(n_errors, n_samples) -> float:
    """Cross-validation accuracy in percent as svm-train prints it (``%g``) and grid.py reads it.
    With class weights ``n_errors`` is Σ w over the errors and ``n_samples`` Σ w (a weighted
    accuracy)."""
    if abs(n_errors - round(n_errors)) < 1e-9:
        n_errors = round(n_errors)
    return float(f"{100.0 * (n_samples - n_errors) / n_samples:g}")


def plot_accuracy(points, file, *, best, title=""):
    """Write grid.py's picture as a PNG: contours of the cross-validation accuracy (%) over
    log2(C) (x) and log2(gamma) (y) at ``points`` [(log2c, log2g, rate)], with grid.py's
    contour lines (every 0.5 % from 3 % below the best rate) over filled contours, the
    evaluated points as dots and ``best`` (log2c, log2g, rate) marked, labelled as grid.py's
    gnuplot map ('Best log2(C) = … log2(gamma) = … accuracy = …%', 'C = … gamma = …').
    Points that do not span two values on each axis, or one rate everywhere, are drawn as dots
    coloured by their rate. Points missing from the rectangle of the axes' values are left
    blank. The file is PNG whatever its name. Returns the file name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    P = np.asarray(points, dtype=float).reshape(-1, 3)
    cs, gs = np.unique(P[:, 0]), np.unique(P[:, 1])
    Z = np.full((gs.size, cs.size), np.nan)
    Z[np.searchsorted(gs, P[:, 1]), np.searchsorted(cs, P[:, 0])] = P[:, 2]
    lo, hi = float(np.nanmin(Z)), float(np.nanmax(Z))
    fig, ax = plt.subplots(figsize=(6.4, 5.4))
    if cs.size > 1 and gs.size > 1 and hi > lo and np.count_nonzero(np.isfinite(Z)) >= 4:
        CC, GG = np.meshgrid(cs, gs)
        Zm = np.ma.masked_invalid(Z)
        levels = MaxNLocator(15).tick_values(lo, hi)
        filled = ax.contourf(CC, GG, Zm, levels=levels, cmap="viridis")
        fig.colorbar(filled, ax=ax, label="cross-validation accuracy (%)")
        steps = np.arange(round(hi) - 3.0, hi + 1e-9, 0.5)      # grid.py's gnuplot levels
        steps = steps[(steps > lo) & (steps < hi)]
        if steps.size:
            lines = ax.contour(CC, GG, Zm, levels=steps, colors="k", linewidths=0.8)
            ax.clabel(lines, fmt="%g", fontsize=7)
        ax.plot(P[:, 0], P[:, 1], ".", color="white", ms=3)
    else:
        dots = ax.scatter(P[:, 0], P[:, 1], c=P[:, 2], cmap="viridis", s=40,
                          vmin=lo, vmax=hi if hi > lo else lo + 1.0)
        fig.colorbar(dots, ax=ax, label="cross-validation accuracy (%)")
    bc, bg, rate = best
    ax.plot(bc, bg, "*", color="orange", mec="k", ms=16, label="best")
    ax.set_xlabel("log2(C)")
    ax.set_ylabel("log2(gamma)")
    ax.set_title(f"{title}\nBest log2(C) = {bc:g}  log2(gamma) = {bg:g}  accuracy = {rate:g}%\n"
                 f"C = {2.0 ** bc:g}  gamma = {2.0 ** bg:g}".lstrip("\n"), fontsize=9)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(file, dpi=100, format="png")
    plt.close(fig)
    return file
