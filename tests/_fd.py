"""Central finite differences, shared by the gradient tests."""

import numpy as np


def central_fd(f, theta, h=1e-5):
    """(f(θ + h e_k) − f(θ − h e_k)) / 2h for every coordinate k; f is any callable of θ
    (a criterion object is one: ``crit(θ) = crit.fun(θ)``)."""
    theta = np.asarray(theta, dtype=float)
    g = np.zeros_like(theta)
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = h
        g[k] = (f(theta + e) - f(theta - e)) / (2 * h)
    return g
