"""Wide sparse data for the tests that sparse X is never densified (fit, export)."""

import numpy as np
import scipy.sparse as sp


def wide_csr(n, dim=100_000, k=20, seed=0):
    """(X, y): an n × dim CSR matrix with k random non-zeros in [0, 1) a row (a dense copy
    would take n · dim · 8 bytes) and labels ±1 from a random linear function."""
    rng = np.random.default_rng(seed)
    cols = np.sort(np.stack([rng.choice(dim, k, replace=False) for _ in range(n)]), axis=1)
    X = sp.csr_matrix((rng.random(n * k), cols.ravel(), np.arange(0, n * k + 1, k)),
                      shape=(n, dim))
    return X, np.where(X @ rng.normal(size=dim) > 0, 1, -1)


def forbid_densifying(monkeypatch):
    """Make ``toarray`` / ``todense`` of scipy's sparse matrices and arrays raise."""
    def refuse(*args, **kwargs):
        raise AssertionError("a sparse matrix was densified")

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array,
                sp.coo_array):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
