"""Bad input: every check raises a ValueError whose message names the problem (issue 2)."""

import numpy as np
import pytest

from svmbound._validation import check_binary_y, check_degree, check_pm1, check_positive, check_X
from svmbound.kernels import LinearKernel, PolynomialKernel, RBFKernel, make_kernel
from svmbound.solvers import solve_radius, solve_svm_dual, warm_start_beta


@pytest.fixture
def Xy():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((12, 3))
    y = np.where(np.arange(12) % 2 == 0, 1.0, -1.0)
    return X, y


# ---------------------------------------------------------------------------------------------
# X


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X(Xy, bad):
    X, y = Xy
    X = X.copy()
    X[4, 2] = bad
    with pytest.raises(ValueError, match=r"NaN or infinity \(first at row 4, column 2\)"):
        solve_svm_dual(X, y, RBFKernel(), 1.0)
    with pytest.raises(ValueError, match="NaN or infinity"):
        solve_radius(X, RBFKernel())


def test_empty_X(Xy):
    _, y = Xy
    with pytest.raises(ValueError, match="empty: 0 samples"):
        solve_svm_dual(np.empty((0, 3)), y[:0], LinearKernel(), 1.0)
    with pytest.raises(ValueError, match="empty: 0 samples"):
        solve_radius(np.empty((0, 3)), LinearKernel())
    with pytest.raises(ValueError, match="0 features"):
        solve_svm_dual(np.empty((12, 0)), y, LinearKernel(), 1.0)


def test_X_must_be_two_dimensional(Xy):
    X, y = Xy
    with pytest.raises(ValueError, match="must be 2-D.*1-D array of length 12.*reshape"):
        solve_svm_dual(X[:, 0], y, LinearKernel(), 1.0)
    with pytest.raises(ValueError, match=r"must be 2-D .*shape \(12, 3, 1\)"):
        solve_svm_dual(X[:, :, None], y, LinearKernel(), 1.0)


def test_non_numeric_X(Xy):
    _, y = Xy
    with pytest.raises(ValueError, match="X must be numeric"):
        solve_svm_dual(np.array([["a", "b"]] * 12), y, LinearKernel(), 1.0)


def test_check_X_accepts_lists_and_sparse_and_copies_to_contiguous_float():
    sp = pytest.importorskip("scipy.sparse")
    X = check_X([[1, 2], [3, 4]])
    assert X.dtype == np.float64 and X.flags.c_contiguous
    F = np.asfortranarray(np.arange(6.0).reshape(3, 2))
    assert check_X(F).flags.c_contiguous
    S = check_X(sp.coo_matrix(F))          # sparse stays sparse: CSR float64 (issue 13)
    assert sp.issparse(S) and S.format == "csr" and S.dtype == np.float64
    np.testing.assert_array_equal(S.toarray(), F)


# ---------------------------------------------------------------------------------------------
# y at the solver level (±1 only)


def test_mismatched_lengths(Xy):
    X, y = Xy
    with pytest.raises(ValueError, match="different lengths: 12 samples in X, 11 labels in y"):
        solve_svm_dual(X, y[:-1], RBFKernel(), 1.0)
    with pytest.raises(ValueError, match="different lengths"):
        check_binary_y(np.r_[y, 1.0], 12)


@pytest.mark.parametrize("labels", [[0.0, 1.0], [1.0, 2.0], [-1.0, 0.5]])
def test_labels_not_pm1_at_solver_level(Xy, labels):
    X, _ = Xy
    y = np.where(np.arange(12) % 2 == 0, labels[1], labels[0])
    with pytest.raises(ValueError, match="only -1 and \\+1"):
        solve_svm_dual(X, y, RBFKernel(), 1.0)


def test_nan_label_at_solver_level(Xy):
    X, y = Xy
    y = y.copy()
    y[3] = np.nan
    with pytest.raises(ValueError, match="only -1 and \\+1"):
        solve_svm_dual(X, y, RBFKernel(), 1.0)


@pytest.mark.parametrize("value", [1.0, -1.0])
def test_single_class_at_solver_level(Xy, value):
    X, _ = Xy
    with pytest.raises(ValueError, match="single class"):
        solve_svm_dual(X, np.full(12, value), RBFKernel(), 1.0)


def test_check_pm1_accepts_column_vector(Xy):
    _, y = Xy
    out = check_pm1(y[:, None], 12)
    assert out.shape == (12,) and out.dtype == np.float64
    np.testing.assert_array_equal(out, y)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("s, word", [(1e300, "too large"), (1e200, "too large"),
                                     (1e155, "too large"), (1e-300, "too small"),
                                     (1e-170, "too small"), (1e-155, "too small")])
def test_check_data_scale_overflow_underflow(Xy, s, word, sparse):
    """Issue 29 item 6: values whose variance overflows or underflows are refused as such, not as
    "zero variance"; the data at scales float64 can square pass."""
    import scipy.sparse as sp

    from svmbound._validation import check_data_scale

    X, _ = Xy
    Z = (sp.csr_matrix(X) * s) if sparse else X * s
    with np.errstate(all="raise"):          # the check itself neither overflows nor underflows
        with pytest.raises(ValueError, match=f"X has values {word} to compute the scale of the "
                                             "data in float64.*Standardise"):
            check_data_scale(Z)


@pytest.mark.parametrize("s", [1.0, 1e150, 1e-150, 1e100, 1e-100])
def test_check_data_scale_accepts_representable_scales(Xy, s):
    from svmbound._validation import check_data_scale, data_scale

    X, _ = Xy
    check_data_scale(X * s)
    check_data_scale(np.ones((4, 3)) * s)   # a real zero variance: for the caller's message
    check_data_scale(np.zeros((4, 3)))
    np.testing.assert_allclose(data_scale(X * s), data_scale(X) * s * s, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# check_binary_y: any two labels ↦ ±1


def test_check_binary_y_string_labels_map_to_pm1():
    y_pm, classes = check_binary_y(np.array(["spam", "ham", "spam", "ham", "ham"]), 5)
    assert list(classes) == ["ham", "spam"]  # sorted; classes[0] ↦ −1, classes[1] ↦ +1
    np.testing.assert_array_equal(y_pm, [1.0, -1.0, 1.0, -1.0, -1.0])
    assert y_pm.dtype == np.float64


def test_check_binary_y_numeric_labels_follow_sorted_order():
    y_pm, classes = check_binary_y([7, 3, 3, 7], 4)
    np.testing.assert_array_equal(classes, [3, 7])
    np.testing.assert_array_equal(y_pm, [1.0, -1.0, -1.0, 1.0])
    y_pm, _ = check_binary_y(np.array([[1], [0], [1]]), 3)  # column vector accepted
    np.testing.assert_array_equal(y_pm, [1.0, -1.0, 1.0])


def test_check_binary_y_more_than_two_labels():
    with pytest.raises(ValueError, match="3 classes .*binary"):
        check_binary_y(np.array([0, 1, 2, 1]), 4)
    with pytest.raises(ValueError, match="3 classes"):
        check_binary_y(np.array(["a", "b", "c"]), 3)


def test_check_binary_y_single_class_and_bad_values():
    with pytest.raises(ValueError, match=r"single class \('a'\)|single class \(np.str_\('a'\)\)"):
        check_binary_y(np.array(["a", "a"]), 2)
    with pytest.raises(ValueError, match="NaN or infinity"):
        check_binary_y(np.array([0.0, np.nan, 1.0]), 3)
    with pytest.raises(ValueError, match="y must be 1-D"):
        check_binary_y(np.zeros((2, 2)), 2)


@pytest.mark.parametrize("bad", [np.nan, float("nan"), np.inf, -np.inf])
def test_class_labels_object_dtype_non_finite_refused(bad):
    """Issue 29 items 4 and 14: NaN (or infinity) in an object-dtype y is refused as SVC refuses
    it ("Input y contains NaN"), by the multiclass encoder too — NaN ≠ NaN made each NaN a class
    of its own (a 9-"class" model, or "class 1.0, nan, nan, nan has a single sample")."""
    from svmbound._validation import check_class_y

    y = np.array([0.0, 1.0, 0.0, 1.0, 2.0, 2.0], dtype=object)
    y[3] = bad
    word = "NaN" if bad != bad else "infinity"
    with pytest.raises(ValueError, match=f"Input y contains {word} \\(first at entry 3"):
        check_class_y(y, 6)
    with pytest.raises(ValueError, match=f"Input y contains {word}"):
        check_binary_y(y, 6)
    s = np.array(["a", "b", "a", "b"], dtype=object)
    s[2] = bad
    with pytest.raises(ValueError, match=f"Input y contains {word} \\(first at entry 2"):
        check_class_y(s, 4)


def test_class_labels_object_dtype_finite_unchanged():
    from svmbound._validation import check_class_y

    y_idx, classes = check_class_y(np.array(["b", "a", "c", "a"], dtype=object), 4)
    np.testing.assert_array_equal(y_idx, [1, 0, 2, 0])
    y_idx, classes = check_class_y(np.array([2, 0, 1, 0], dtype=object), 4)
    np.testing.assert_array_equal(classes, [0, 1, 2])


# ---------------------------------------------------------------------------------------------
# C, tolerance, loss, cache, warm starts


@pytest.mark.parametrize("C", [0.0, -1.0, np.nan, np.inf, "abc", None])
def test_bad_C(Xy, C):
    X, y = Xy
    with pytest.raises(ValueError, match="C must be"):
        solve_svm_dual(X, y, RBFKernel(), C)


@pytest.mark.parametrize("tol", [0.0, -1e-3, np.nan])
def test_bad_tol(Xy, tol):
    X, y = Xy
    with pytest.raises(ValueError, match="tol must be"):
        solve_svm_dual(X, y, RBFKernel(), 1.0, tol=tol)
    with pytest.raises(ValueError, match="tol must be"):
        solve_radius(X, RBFKernel(), tol=tol)


@pytest.mark.parametrize("tol, word", [(1e-300, ">= 1e-14"), (1e-15, ">= 1e-14"),
                                       (2.0, "<= 1"), (1e300, "<= 1")])
def test_tol_out_of_range(Xy, tol, word):
    """Issue 29 items 7 and 8: a tol below what float64 resolves ran every solve to its cap
    (1e-300: 23 s an evaluation); one above the violation at alpha = 0 stopped with no support
    vector and reached LAPACK with an empty matrix (1e300). Both are refused, saying why."""
    from svmbound.criteria import Problem, make_criterion

    X, y = Xy
    with pytest.raises(ValueError, match=f"tol must be {word}, got"):
        solve_svm_dual(X, y, RBFKernel(), 1.0, tol=tol)
    with pytest.raises(ValueError, match=f"tol must be {word}, got"):
        solve_radius(X, RBFKernel(), tol=tol)
    with pytest.raises(ValueError, match=f"tol must be {word}, got"):
        make_criterion("span", Problem(X, y), RBFKernel(), tol=tol)


@pytest.mark.parametrize("tol", [1e-14, 1e-12, 1.0])
def test_tol_range_limits_accepted(Xy, tol):
    X, y = Xy
    assert solve_svm_dual(X, y, RBFKernel(), 1.0, tol=tol).alpha.max() > 0
    solve_radius(X, RBFKernel(), tol=tol)


def test_bad_loss(Xy):
    X, y = Xy
    with pytest.raises(ValueError, match="unknown loss 'hinge'.*l1, l2"):
        solve_svm_dual(X, y, RBFKernel(), 1.0, loss="hinge")


@pytest.mark.parametrize("cache", [0.0, -5.0, np.inf, "big", True, None])
def test_bad_cache_size(Xy, cache):
    X, y = Xy
    with pytest.raises(ValueError, match="cache_size must be"):
        solve_svm_dual(X, y, RBFKernel(), 1.0, cache_size=cache)


def test_bad_warm_starts(Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"alpha0 must have shape \(12,\)"):
        solve_svm_dual(X, y, RBFKernel(), 1.0, alpha0=np.zeros(5))
    with pytest.raises(ValueError, match=r"beta0 must have shape \(12,\)"):
        solve_radius(X, RBFKernel(), beta0=np.ones(3))
    with pytest.raises(ValueError, match="no positive entry"):
        solve_radius(X, RBFKernel(), beta0=np.zeros(12))
    with pytest.raises(ValueError, match="no positive entry"):
        warm_start_beta([-1.0, 0.0])


@pytest.mark.parametrize("shift", [-0.1, np.nan, np.inf])
def test_bad_radius_shift(Xy, shift):
    X, _ = Xy
    with pytest.raises(ValueError, match="shift must be"):
        solve_radius(X, RBFKernel(), shift=shift)


# ---------------------------------------------------------------------------------------------
# kernel parameters


@pytest.mark.parametrize("sigma2", [0.0, -2.0, np.nan, np.inf, "wide"])
def test_bad_sigma2(sigma2):
    with pytest.raises(ValueError, match="sigma2 must be"):
        RBFKernel(sigma2)
    with pytest.raises(ValueError, match="sigma2 must be"):
        make_kernel("rbf", sigma2=sigma2)


@pytest.mark.parametrize("gamma", [0.0, -1.0])
def test_bad_gamma(gamma):
    with pytest.raises(ValueError, match="gamma must be"):
        RBFKernel.from_gamma(gamma)


@pytest.mark.parametrize("degree", [0, -1, 2.5, 0.5, "3", None, True])
def test_bad_degree(degree):
    with pytest.raises(ValueError, match="degree must be an integer >= 1"):
        PolynomialKernel(degree=degree)
    with pytest.raises(ValueError, match="degree must be an integer >= 1"):
        make_kernel("poly", degree=degree)


def test_integral_degree_accepted():
    assert PolynomialKernel(degree=3.0).degree == 3 and isinstance(PolynomialKernel(3.0).degree, int)
    assert PolynomialKernel(degree=np.int64(2)).degree == 2
    assert check_degree(1) == 1


@pytest.mark.parametrize("coef0", [-0.5, np.nan, np.inf])
def test_bad_coef0(coef0):
    with pytest.raises(ValueError, match="coef0 must be"):
        PolynomialKernel(2, coef0)


@pytest.mark.parametrize("name", ["sigmoid", "RBF ", "", None, ["rbf"]])
def test_unknown_kernel_name(name):
    with pytest.raises(ValueError, match="unknown kernel .*valid kernels: linear, poly, rbf"):
        make_kernel(name)


def test_check_positive_names_the_parameter():
    assert check_positive("2.5", "C") == 2.5
    with pytest.raises(ValueError, match="^C must be a finite number > 0, got 0$"):
        check_positive(0, "C")
    with pytest.raises(ValueError, match="^width must be a number > 0, got 'x'$"):
        check_positive("x", "width")


def test_auto_cache_size_is_within_its_limits_and_solves_the_same(Xy):
    from svmbound.solvers.qp import (AUTO_CACHE_MAX_MB, AUTO_CACHE_MIN_MB, auto_cache_mb,
                                     n_cache_rows)

    X, y = Xy
    assert AUTO_CACHE_MIN_MB <= auto_cache_mb() <= AUTO_CACHE_MAX_MB
    assert n_cache_rows(50_000, "auto") == int(auto_cache_mb() * 2**20 // (8 * 50_000))
    a = solve_svm_dual(X, y, RBFKernel(), 1.0, cache_size="auto", tol=1e-8)
    b = solve_svm_dual(X, y, RBFKernel(), 1.0, cache_size=0.01, tol=1e-8)
    np.testing.assert_allclose(a.alpha, b.alpha, atol=1e-6)
