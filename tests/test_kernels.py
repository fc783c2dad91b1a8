"""Kernels: values against direct formulas, parameter-derivative contractions against central
finite differences, row blocking, parameter round trips (issue 2, DESIGN.md §2–§3)."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

import svmbound.kernels.standard as kernels_mod
from svmbound.kernels import LinearKernel, PolynomialKernel, RBFKernel, make_kernel
from _fd import central_fd


@pytest.fixture(scope="module")
def XZ():
    rng = np.random.RandomState(7)
    X = rng.standard_normal((23, 4))
    Z = rng.standard_normal((11, 4))
    return X, Z


def direct(kernel, X, Z):
    """The kernel matrix by an elementwise formula (no dot-product expansion)."""
    if isinstance(kernel, RBFKernel):
        d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
        return np.exp(-d2 / (2.0 * kernel.sigma2))
    dots = (X[:, None, :] * Z[None, :, :]).sum(-1)
    if isinstance(kernel, LinearKernel):
        return dots
    return (dots + kernel.coef0) ** kernel.degree


KERNELS = [RBFKernel(0.7), RBFKernel(5.0), LinearKernel(), PolynomialKernel(2, 1.0),
           PolynomialKernel(3, 0.5), PolynomialKernel(1, 0.0), PolynomialKernel(4, 2.0)]


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_block_matches_direct_formula(XZ, kernel):
    X, Z = XZ
    np.testing.assert_allclose(kernel.block(X, Z), direct(kernel, X, Z), rtol=1e-12, atol=1e-12)
    # Z omitted means Z = X; the result is symmetric; __call__ is block
    K = kernel.block(X)
    np.testing.assert_allclose(K, direct(kernel, X, X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(K, K.T, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(kernel(X, Z), kernel.block(X, Z))


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_block_matches_scikit_learn(XZ, kernel):
    X, Z = XZ
    if isinstance(kernel, RBFKernel):
        ref = rbf_kernel(X, Z, gamma=kernel.gamma)
    elif isinstance(kernel, LinearKernel):
        ref = linear_kernel(X, Z)
    else:
        ref = polynomial_kernel(X, Z, degree=kernel.degree, gamma=1.0, coef0=kernel.coef0)
    np.testing.assert_allclose(kernel.block(X, Z), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_diag_matches_block_diagonal(XZ, kernel):
    X, _ = XZ
    np.testing.assert_allclose(kernel.diag(X), np.diag(kernel.block(X)), rtol=1e-13, atol=1e-13)


def test_rbf_diagonal_is_one(XZ):
    X, _ = XZ
    np.testing.assert_array_equal(RBFKernel(0.3).diag(X), np.ones(X.shape[0]))
    np.testing.assert_allclose(np.diag(RBFKernel(0.3).block(X)), 1.0, rtol=0, atol=1e-14)


def test_rbf_block_diagonal_is_exactly_one_on_unscaled_data():
    # one raw (unstandardised) point, σ² = e⁻⁵ — inside the search box ln σ² ∈ [−10, 10]
    X = np.array([[123.456, 789.012, 345.678]])
    k = RBFKernel(np.exp(-5.0))
    assert rbf_kernel(X, gamma=k.gamma)[0, 0] == 1.0
    assert k.block(X)[0, 0] == k.diag(X)[0] == 1.0


def test_rbf_block_values_stay_in_unit_interval():
    X = np.full((3, 5), 1e4) + np.arange(3)[:, None] * 1e-9
    K = RBFKernel(1e-6).block(X)
    assert np.all((K >= 0.0) & (K <= 1.0))  # the clip at d² ≥ 0 keeps exp(−γd²) ≤ 1


# ---------------------------------------------------------------------------------------------
# derivative contractions vs central finite differences in θ




def sparse_weights(rng, n, frac_zero=0.4):
    w = rng.standard_normal(n)
    w[rng.rand(n) < frac_zero] = 0.0  # contract() works over the non-zero entries only
    return w


CONTRACT_KERNELS = [RBFKernel(0.7), RBFKernel(5.0), PolynomialKernel(2, 1.0),
                    PolynomialKernel(3, 0.5), PolynomialKernel(1, 0.3)]


@pytest.mark.parametrize("kernel", CONTRACT_KERNELS, ids=repr)
@pytest.mark.parametrize("same", [True, False], ids=["a=b", "a!=b"])
def test_contract_matches_finite_differences(XZ, kernel, same):
    X, _ = XZ
    rng = np.random.RandomState(3)
    a = sparse_weights(rng, X.shape[0])
    b = a if same else sparse_weights(rng, X.shape[0])

    def f(theta):
        return a @ kernel.with_theta(theta).block(X) @ b

    # θ = ln σ² for RBF (h in log space), θ = coef0 for the polynomial
    fd = central_fd(f, kernel.theta, h=1e-5)
    got = kernel.contract(X, a) if same else kernel.contract(X, a, b)
    assert got.shape == (len(kernel.param_names),) == kernel.theta.shape
    np.testing.assert_allclose(got, fd, rtol=1e-7, atol=1e-9 * np.abs(fd).max())
    assert abs(fd[0]) > 1e-3  # a non-trivial check


@pytest.mark.parametrize("kernel", CONTRACT_KERNELS, ids=repr)
def test_diag_contract_matches_finite_differences(XZ, kernel):
    X, _ = XZ
    w = sparse_weights(np.random.RandomState(4), X.shape[0])

    def f(theta):
        return w @ kernel.with_theta(theta).diag(X)

    fd = central_fd(f, kernel.theta, h=1e-5)
    got = kernel.diag_contract(X, w)
    assert got.shape == kernel.theta.shape
    if isinstance(kernel, RBFKernel):
        np.testing.assert_array_equal(got, 0.0)  # K_ii = 1 whatever σ²
        assert np.all(np.abs(fd) < 1e-10)
    else:
        np.testing.assert_allclose(got, fd, rtol=1e-7)
        assert abs(fd[0]) > 1e-3


def test_rbf_contract_with_respect_to_sigma2_not_log(XZ):
    # chain rule check: ∂/∂ln σ² = σ² ∂/∂σ² (FD directly in σ²)
    X, _ = XZ
    a = np.random.RandomState(5).standard_normal(X.shape[0])
    s2 = 2.5
    h = 1e-6
    fd_sigma2 = (a @ RBFKernel(s2 + h).block(X) @ a - a @ RBFKernel(s2 - h).block(X) @ a) / (2 * h)
    np.testing.assert_allclose(RBFKernel(s2).contract(X, a), s2 * fd_sigma2, rtol=1e-7)


def test_contract_all_zero_weights_is_zero(XZ):
    X, _ = XZ
    z = np.zeros(X.shape[0])
    a = np.ones(X.shape[0])
    for k in CONTRACT_KERNELS:
        np.testing.assert_array_equal(k.contract(X, z), [0.0])
        np.testing.assert_array_equal(k.contract(X, a, z), [0.0])


def test_linear_kernel_has_no_parameters(XZ):
    X, _ = XZ
    k = LinearKernel()
    assert k.theta.shape == (0,)
    assert k.contract(X, np.ones(X.shape[0])).shape == (0,)
    assert k.diag_contract(X, np.ones(X.shape[0])).shape == (0,)
    assert k.with_theta([]) is k
    with pytest.raises(ValueError, match="no tunable parameters"):
        k.with_theta([1.0])


# ---------------------------------------------------------------------------------------------
# row blocking


@pytest.mark.parametrize("kernel", [RBFKernel(1.3), LinearKernel(), PolynomialKernel(3, 1.0)],
                         ids=repr)
@pytest.mark.parametrize("elems", [1, 7, 50])
def test_row_blocking_gives_same_results(XZ, monkeypatch, kernel, elems):
    X, Z = XZ
    rng = np.random.RandomState(9)
    a = sparse_weights(rng, X.shape[0])
    b = sparse_weights(rng, X.shape[0])
    K_one, KZ_one = kernel.block(X), kernel.block(X, Z)
    c_one, cab_one = kernel.contract(X, a), kernel.contract(X, a, b)
    assert len(list(kernels_mod._row_blocks(X.shape[0], Z.shape[0]))) == 1  # default: one product

    monkeypatch.setattr(kernels_mod, "_BLOCK_ELEMS", elems)
    blocks = list(kernels_mod._row_blocks(X.shape[0], Z.shape[0]))
    assert len(blocks) > 1  # really blocked now
    covered = np.concatenate([np.arange(X.shape[0])[s] for s in blocks])
    np.testing.assert_array_equal(covered, np.arange(X.shape[0]))  # every row exactly once

    np.testing.assert_allclose(kernel.block(X), K_one, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(kernel.block(X, Z), KZ_one, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(kernel.contract(X, a), c_one, rtol=1e-12)
    np.testing.assert_allclose(kernel.contract(X, a, b), cab_one, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# parameters


@pytest.mark.parametrize("gamma", [1e-3, 0.1, 0.5, 2.0, 37.0])
def test_rbf_from_gamma_round_trip(XZ, gamma):
    X, Z = XZ
    k = RBFKernel.from_gamma(gamma)
    np.testing.assert_allclose(k.gamma, gamma, rtol=1e-15)
    np.testing.assert_allclose(k.sigma2, 1.0 / (2.0 * gamma), rtol=1e-15)
    np.testing.assert_allclose(RBFKernel.from_gamma(RBFKernel(k.sigma2).gamma).sigma2, k.sigma2,
                               rtol=1e-15)
    np.testing.assert_allclose(k.block(X, Z), rbf_kernel(X, Z, gamma=gamma), rtol=1e-12,
                               atol=1e-300)


def test_theta_round_trips():
    k = RBFKernel(3.7)
    np.testing.assert_allclose(k.theta, [np.log(3.7)], rtol=1e-15)
    np.testing.assert_allclose(k.with_theta(k.theta).sigma2, 3.7, rtol=1e-14)
    np.testing.assert_allclose(k.with_theta([0.0]).sigma2, 1.0)
    p = PolynomialKernel(3, 0.25)
    np.testing.assert_array_equal(p.theta, [0.25])
    q = p.with_theta([1.5])
    assert (q.degree, q.coef0) == (3, 1.5)  # the degree is kept, not tuned
    assert (p.degree, p.coef0) == (3, 0.25)  # with_theta returns a copy
    with pytest.raises(ValueError, match="theta"):
        k.with_theta([1.0, 2.0])
    with pytest.raises(ValueError, match="theta"):
        p.with_theta([1.0, 2.0])


def test_make_kernel_builds_each_kernel():
    assert isinstance(make_kernel("rbf", sigma2=2.0), RBFKernel)
    assert make_kernel("rbf", sigma2=2.0).sigma2 == 2.0
    assert isinstance(make_kernel("linear"), LinearKernel)
    p = make_kernel("poly", degree=3, coef0=0.5)
    assert isinstance(p, PolynomialKernel) and (p.degree, p.coef0) == (3, 0.5)


def test_spec_matches_scikit_learn_parameterisation():
    # the numba row computation uses (code, gamma, coef0, degree) like LIBSVM
    assert RBFKernel(2.0).spec()[1] == pytest.approx(0.25)
    assert PolynomialKernel(3, 0.5).spec()[1:] == (1.0, 0.5, 3)
    assert len({RBFKernel().spec()[0], LinearKernel().spec()[0], PolynomialKernel().spec()[0]}) == 3


@pytest.mark.parametrize("make", [lambda d: RBFKernel(2.0), lambda d: LinearKernel(),
                                  lambda d: PolynomialKernel(3, 1.0),
                                  lambda d: __import__("svmbound.kernels.ard", fromlist=["x"])
                                  .ARDRBFKernel(np.linspace(0.5, 2.0, d))])
def test_block_dot_in_row_blocks_equals_the_full_product(monkeypatch, make):
    import svmbound.kernels.standard as kernels_mod

    rng = np.random.RandomState(3)
    X, Z = rng.randn(37, 4), rng.randn(11, 4)
    v, V = rng.randn(11), rng.randn(11, 2)
    kernel = make(4)
    full_v, full_V = kernel.block(X, Z) @ v, kernel.block(X, Z) @ V
    monkeypatch.setattr(kernels_mod, "_BLOCK_ELEMS", 30)     # 2 rows per block
    np.testing.assert_allclose(kernel.block_dot(X, Z, v), full_v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel.block_dot(X, Z, V), full_V, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_kernel_row_is_the_row_of_the_kernel_matrix(sparse):
    import scipy.sparse as sp

    rng = np.random.RandomState(5)
    X = rng.randn(40, 6) + 100.0          # far from the origin: the direct differences are exact
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X - 100.0) > 1.0, X - 100.0, 0.0))
    for kernel in (RBFKernel(3.0), LinearKernel(), PolynomialKernel(2, 1.0)):
        K = kernel.block(X)
        for i in (0, 17, 39):
            np.testing.assert_allclose(kernel.row(X, i), K[i], rtol=1e-12, atol=1e-14)
    assert RBFKernel(3.0).row(X, 17)[17] == 1.0


def test_rbf_exponents_in_numba_are_the_numpy_steps_bit_for_bit():
    from svmbound.kernels._sums import rbf_exponents_from_dots

    rng = np.random.RandomState(6)
    A, B = rng.randn(30, 5), rng.randn(20, 5)
    sqa, sqb = np.einsum("ij,ij->i", A, A), np.einsum("ij,ij->i", B, B)
    dot = A @ B.T
    dot[3, 4] = 0.5 * (sqa[3] + sqb[4]) + 1e-9        # a slightly negative distance: clipped
    ref = dot.copy()
    ref *= -2.0
    ref += sqa[:, None]
    ref += sqb[None, :]
    np.maximum(ref, 0.0, out=ref)
    ref *= -0.7
    rbf_exponents_from_dots(dot, sqa, sqb, 0.7)
    np.testing.assert_array_equal(dot, ref)
    assert dot[3, 4] == 0.0


def test_held_out_sums_are_the_decision_values_read_from_a_symmetric_kernel_matrix():
    """kernels._sums.held_out_sums(K, test, cols, coef) = K[test][:, cols] @ coef for a
    symmetric K, the indices in any order, repeated test rows too."""
    from svmbound.kernels._sums import held_out_sums

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    K = RBFKernel(1.5).block(X)
    test = np.array([7, 3, 3, 39, 0])
    cols = np.array([12, 1, 30, 8])
    coef = rng.normal(size=4)
    np.testing.assert_allclose(held_out_sums(K, test, cols, coef), K[test][:, cols] @ coef,
                               rtol=1e-13, atol=1e-13)
    assert held_out_sums(K, test, cols[:0], coef[:0]).tolist() == [0.0] * 5
