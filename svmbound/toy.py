"""The two artificial feature-selection problems of Chapelle et al. (2002) §8.1 (after Weston
et al. 2000), exactly as described there.

Linear problem (6 relevant features of 202), P(y = 1) = P(y = −1) = ½:
  with probability 0.7:  x_i = y·N(i, 1) for i = 1, 2, 3   and  x_i = N(0, 1) for i = 4, 5, 6;
  otherwise:             x_i = N(0, 1)   for i = 1, 2, 3   and  x_i = y·N(i − 3, 1) for i = 4, 5, 6;
  noise:                 x_i = N(0, 20)  for i = 7, …, 202.

Nonlinear problem (2 relevant features of 52), P(y = 1) = P(y = −1) = ½:
  y = −1: (x_1, x_2) ~ N(μ_1, Σ) or N(μ_2, Σ) with equal probability, μ_1 = (−¾, −3), μ_2 = (¾, 3);
  y = +1: (x_1, x_2) ~ N(μ_1, Σ) or N(μ_2, Σ) with equal probability, μ_1 = (3, −3), μ_2 = (−3, 3);
  Σ = I;  noise: x_i = N(0, 20) for i = 3, …, 52.

Notation: N(μ, s) with the second argument a variance (the paper writes N(μ, Σ) with Σ = I a
covariance, and N(i, 1)), so the noise features have variance 20 (standard deviation √20 ≈ 4.47)
by default. The paper's "N(0, 20)" is sometimes read as a standard deviation of 20; pass
``noise_var=400`` for that reading. Feature indices in the returned arrays are 0-based: the
relevant features are columns 0–5 (linear) and 0–1 (nonlinear) — see ``LINEAR_RELEVANT``,
``NONLINEAR_RELEVANT``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["make_linear_toy", "make_nonlinear_toy", "LINEAR_RELEVANT", "NONLINEAR_RELEVANT"]

LINEAR_RELEVANT = np.arange(6)
NONLINEAR_RELEVANT = np.arange(2)


def _check_int(value, name: str, least: int) -> int:
    """``value`` as an int: a whole number (5 or 5.0, not True, "5", nan or inf) ≥ ``least``,
    else a ValueError naming ``name``."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number))
            or not float(value).is_integer() or value < least):
        raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    return int(value)


def _check_n(n_samples) -> int:
    return _check_int(n_samples, "n_samples", 1)


def _check_var(noise_var) -> float:
    if isinstance(noise_var, (bool, np.bool_)) or not isinstance(noise_var, (numbers.Real,
                                                                            np.number)) \
            or not np.isfinite(noise_var) or noise_var < 0:
        raise ValueError(f"noise_var must be a finite number >= 0, got {noise_var!r}")
    return float(noise_var)


def _labels(rng, n):
    return np.where(rng.random_sample(n) < 0.5, 1.0, -1.0)


def make_linear_toy(n_samples: int, *, n_features: int = 202, noise_var: float = 20.0,
                    random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Chapelle §8.1 linear problem: X of shape (n_samples, n_features), y in {−1, +1}.

    Six relevant, redundant features (columns 0–5), ``n_features − 6`` noise features N(0, noise_var).
    """
    n = _check_n(n_samples)
    n_features = _check_int(n_features, "n_features", 6)
    noise_var = _check_var(noise_var)
    rng = check_random_state(random_state)
    y = _labels(rng, n)
    X = np.empty((n, int(n_features)))
    first = rng.random_sample(n) < 0.7            # the first three features carry the class
    means = np.arange(1, 4, dtype=float)          # i = 1, 2, 3 (and i − 3 for i = 4, 5, 6)
    rel = y[:, None] * rng.normal(means, 1.0, size=(n, 3))     # y·N(i, 1)
    irr = rng.normal(0.0, 1.0, size=(n, 3))                     # N(0, 1)
    X[:, 0:3] = np.where(first[:, None], rel, irr)
    X[:, 3:6] = np.where(first[:, None], irr, rel)
    X[:, 6:] = rng.normal(0.0, np.sqrt(noise_var), size=(n, int(n_features) - 6))
    return X, y


def make_nonlinear_toy(n_samples: int, *, n_features: int = 52, noise_var: float = 20.0,
                       random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Chapelle §8.1 nonlinear problem: X of shape (n_samples, n_features), y in {−1, +1}.

    Two relevant features (columns 0–1, a mixture of two Gaussians per class),
    ``n_features − 2`` noise features N(0, noise_var).
    """
    n = _check_n(n_samples)
    n_features = _check_int(n_features, "n_features", 2)
    noise_var = _check_var(noise_var)
    rng = check_random_state(random_state)
    y = _labels(rng, n)
    mu_neg = np.array([[-0.75, -3.0], [0.75, 3.0]])
    mu_pos = np.array([[3.0, -3.0], [-3.0, 3.0]])
    comp = (rng.random_sample(n) < 0.5).astype(int)
    centres = np.where((y > 0)[:, None], mu_pos[comp], mu_neg[comp])
    X = np.empty((n, int(n_features)))
    X[:, :2] = centres + rng.normal(0.0, 1.0, size=(n, 2))       # Σ = I
    X[:, 2:] = rng.normal(0.0, np.sqrt(noise_var), size=(n, int(n_features) - 2))
    return X, y
