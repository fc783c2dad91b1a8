"""LIBSVM's svm-scale: each feature mapped linearly to [lower, upper], and its range file.

svm-scale maps feature k, whose training values span [m_k, M_k], to

    lower + (upper − lower)·(x − m_k)/(M_k − m_k)     (x = m_k ↦ lower, x = M_k ↦ upper exactly)

and leaves out a feature with M_k = m_k (its value is 0 then, whatever x). Its range file (the
``-s`` output, read back by ``svm-scale -r``) is::

    x
    lower upper
    k m_k M_k          one line per feature that is not constant, k its index in the file

``svm-scale -r`` gives an unlisted feature the value 0. ``tune --scale`` scales this way, and
with ``--model`` writes the range file beside the model, so that ``svm-scale -r`` and
``svm-predict`` on the raw test file give the predictions reported. With an ARD model (a kernel
on x_k/σ_k) the two maps compose into one range file with [lower, upper] = [0, 1]: u_k =
s_k(x)/σ_k = (x − a_k)/(b_k − a_k), a_k = (m_k + M_k)/2, b_k = a_k + (M_k − m_k)·σ_k/2.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SvmScaleRanges", "fit_ranges", "scale", "range_text", "ard_range_text"]


class SvmScaleRanges:
    """The per-feature training ranges of svm-scale (dense data), and its [lower, upper]."""

    def __init__(self, mins, maxs, lower: float = -1.0, upper: float = 1.0):
        self.mins = np.asarray(mins, dtype=np.float64)
        self.maxs = np.asarray(maxs, dtype=np.float64)
        self.lower, self.upper = float(lower), float(upper)


def fit_ranges(X, lower: float = -1.0, upper: float = 1.0) -> SvmScaleRanges:
    """The ranges of the columns of the dense training matrix X."""
    X = np.asarray(X, dtype=np.float64)
    return SvmScaleRanges(X.min(axis=0), X.max(axis=0), lower, upper)


def scale(X, r: SvmScaleRanges) -> np.ndarray:
    """X mapped as svm-scale maps it with the ranges ``r`` (module docstring)."""
    X = np.asarray(X, dtype=np.float64)
    span = r.maxs - r.mins
    varies = span != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = r.lower + (r.upper - r.lower) * (X - r.mins) / np.where(varies, span, 1.0)
    out = np.where(X == r.mins, r.lower, np.where(X == r.maxs, r.upper, out))
    return np.where(varies, out, 0.0)


def _num(v) -> str:
    return repr(float(v))


def range_text(r: SvmScaleRanges, base: int = 1) -> str:
    """svm-scale's range file of ``r``; feature k of the matrix has index k + ``base``."""
    lines = ["x", f"{_num(r.lower)} {_num(r.upper)}"]
    lines += [f"{k + base} {_num(lo)} {_num(hi)}"
              for k, (lo, hi) in enumerate(zip(r.mins, r.maxs)) if lo != hi]
    return "\n".join(lines) + "\n"


def ard_range_text(r: SvmScaleRanges, sigma, base: int = 1) -> str:
    """One range file for ``--scale`` (ranges ``r`` to [−1, 1]) followed by an ARD model's
    1/σ_k: [0, 1] and (a_k, b_k) per feature (module docstring)."""
    if (r.lower, r.upper) != (-1.0, 1.0):
        raise ValueError("the ARD composition assumes svm-scale's default [-1, 1]")
    sigma = np.asarray(sigma, dtype=np.float64)
    a = (r.mins + r.maxs) / 2.0
    b = a + (r.maxs - r.mins) * sigma / 2.0
    lines = ["x", "0 1"]
    lines += [f"{k + base} {_num(lo)} {_num(hi)}"
              for k, (lo, hi, m, M) in enumerate(zip(a, b, r.mins, r.maxs)) if m != M]
    return "\n".join(lines) + "\n"


def scaled_zero_of_index0(text: str) -> float | None:
    """The value a range file (``text``, svm-scale's format) gives a zero of feature index 0,
    None when it lists no feature 0. svm-scale writes a line's missing features from index 1 on
    (svm-scale.c: ``next_index = 1``), so a zero-based line without ``0:`` keeps feature 0 at 0
    where the scaling gives it this value."""
    lines = text.split("\n")
    lower, upper = map(float, lines[1].split())
    for line in lines[2:]:
        parts = line.split()
        if len(parts) == 3 and parts[0] == "0":
            lo, hi = float(parts[1]), float(parts[2])
            return lower + (upper - lower) * (0.0 - lo) / (hi - lo)
    return None
