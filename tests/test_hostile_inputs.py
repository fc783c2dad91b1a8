"""Hostile inputs, round two (issue 29): each case below was silently wrong or ungraceful before.

Data of the issue: ``Xb, yb = make_classification(200, 5, n_informative=3, n_redundant=0,
random_state=0)`` (100/100).
"""

import time
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification

from svmbound import BoundSVC, solve_radius, solve_svm_dual
from svmbound.criteria import Problem, make_criterion
from svmbound.exceptions import ConvergenceWarning
from svmbound.kernels import LinearKernel, PolynomialKernel, RBFKernel

Xb, yb = make_classification(200, 5, n_informative=3, n_redundant=0, random_state=0)
YB_PM = np.where(yb > 0, 1.0, -1.0)


# ---------------------------------------------------------------------------------------------
# item 2: an error is counted exactly as predict decides (f = 0 predicts classes_[0], i.e. −1)


def test_misclassified_is_predicts_rule():
    from svmbound.criteria.reference import misclassified

    y = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 1.0, -1.0])
    f = np.array([0.5, 0.0, -0.5, 0.5, 0.0, -0.5, np.nan, np.nan])
    # predict: f > 0 -> +1, else (0 and NaN included) -> -1
    pred = np.where(f > 0, 1.0, -1.0)
    np.testing.assert_array_equal(misclassified(y, f), pred != y)
    np.testing.assert_array_equal(misclassified(y, f),
                                  [False, True, True, True, False, False, True, False])


def test_cv_error_counts_zero_decision_as_predict_does():
    """At θ = (−10, −10) every held-out kernel value underflows to 0 and b = 0 on the balanced
    folds: f = 0 on every held-out point, which predict sends to −1 — every +1 point is an
    error (the CV error of this chance-level model was 0)."""
    crit = make_criterion("cv-error", Problem(Xb, YB_PM), RBFKernel(), loss="l1")
    value = crit.fun(np.array([-10.0, -10.0]))
    assert value >= 80, value           # 100 positive points, each predicted −1
    assert crit.last.info["rate"] >= 0.4


def test_validation_error_counts_zero_decision_as_predict_does():
    """A balanced training part (50 + 50): at θ = (−10, −10) b = 0 and every validation f = 0:
    the 50 positive validation points are errors (the count was 0)."""
    pos, neg = np.flatnonzero(YB_PM > 0), np.flatnonzero(YB_PM < 0)
    tr, va = np.r_[pos[:50], neg[:50]], np.r_[pos[50:], neg[50:]]
    crit = make_criterion("validation-error", Problem(Xb[tr], YB_PM[tr]), RBFKernel(),
                          X_val=Xb[va], y_val=YB_PM[va])
    assert crit.fun(np.array([-10.0, -10.0])) == 50.0
    crit = make_criterion("smoothed-validation", Problem(Xb[tr], YB_PM[tr]), RBFKernel(),
                          X_val=Xb[va], y_val=YB_PM[va])
    crit.fun(np.array([-10.0, -10.0]))
    assert crit.last.info["validation_errors"] == 50


def test_cv_error_grid_does_not_pick_chance_model():
    """The issue's case: the grid search on cv-error picked θ = (−10, −10), value 0, a model at
    chance level on new data (0.50 against 0.85–0.95)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = BoundSVC(criterion="cv-error", search="grid", loss="l1").fit(Xb, yb)
    assert not np.allclose(m.best_theta_, [-10.0, -10.0])
    assert m.best_value_ > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = BoundSVC(criterion="cv-error", search="grid", loss="l1").fit(Xb[:150], yb[:150])
    assert m.score(Xb[150:], yb[150:]) > 0.75


def test_gridpy_rates_count_zero_decision_as_svc_does(tmp_path, capsys):
    """Through the CLI with grid.py's options: at C = 2^-15..-13, gamma = 2^13..15 every
    held-out kernel value underflows to 0 and f = 0; the rates were 100.0 (SVC's 5-fold CV
    there: 51 %). Each rate is now the accuracy predict (and SVC) gives, at most ~50 %."""
    import re

    from sklearn.datasets import dump_svmlight_file

    from svmbound.cli import main

    path = tmp_path / "base.txt"
    dump_svmlight_file(Xb, np.where(yb == 1, 1, -1), str(path), zero_based=False)
    out = tmp_path / "base.out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["tune", str(path), "-log2c", "-15,-13,1", "-log2g", "13,15,1", "-v", "5",
                     "-out", str(out), "--json", "--quiet"]) == 0
    capsys.readouterr()
    rates = [float(re.search(r"rate=(\S+)", line).group(1))
             for line in out.read_text().splitlines()]
    assert len(rates) == 9 and max(rates) <= 55.0, rates


# ---------------------------------------------------------------------------------------------
# items 4 and 14a: object-dtype y with NaN is refused as SVC refuses it


@pytest.mark.parametrize("criterion", ["radius-margin", "auto"])
def test_object_y_with_nan_refused(criterion):
    y = yb.astype(float).astype(object)
    y[5:8] = np.nan
    with pytest.raises(ValueError, match=r"Input y contains NaN \(first at entry 5"):
        BoundSVC(criterion=criterion).fit(Xb, y)


# ---------------------------------------------------------------------------------------------
# item 6: extreme scales are named as such, not as "zero variance"


@pytest.mark.parametrize("s, word", [(1e300, "too large"), (1e200, "too large"),
                                     (1e-300, "too small"), (1e-170, "too small")])
def test_extreme_scale_is_not_zero_variance(s, word):
    with pytest.raises(ValueError, match=f"X has values {word} to compute the scale") as exc:
        BoundSVC().fit(Xb * s, yb)
    assert "zero variance (every value is the same)" not in str(exc.value)


@pytest.mark.parametrize("s, word", [(1e300, "too large"), (1e-300, "too small")])
def test_extreme_scale_multiclass_and_sparse(s, word):
    import scipy.sparse as sp

    X3, y3 = make_classification(150, 5, n_informative=3, n_redundant=0, n_classes=3,
                                 random_state=0)
    with pytest.raises(ValueError, match=f"X has values {word} to compute the scale"):
        BoundSVC().fit(X3 * s, y3)
    with pytest.raises(ValueError, match=f"X has values {word} to compute the scale"):
        BoundSVC().fit(sp.csr_matrix(Xb) * s, yb)


@pytest.mark.parametrize("s", [1e150, 1e-150])
def test_large_but_representable_scale_still_fits(s):
    m = BoundSVC().fit(Xb * s, yb)
    assert m.score(Xb * s, yb) > 0.85


# ---------------------------------------------------------------------------------------------
# items 7 and 8: tol out of range; what a solve may cost; the reason when it stops early


@pytest.mark.parametrize("tol, word, criterion", [(1e300, "<= 1", "auto"),
                                                  (1e300, "<= 1", "radius-margin"),
                                                  (1e-300, ">= 1e-14", "radius-margin")])
def test_estimator_tol_out_of_range(tol, word, criterion, capfd):
    """tol=1e300 raised numpy's 'Singular matrix' from span.py and printed LAPACK's 'DPOTRF
    parameter number 4 had an illegal value' on stdout; tol=1e-300 ran every solve to its
    cap. Both are a clear ValueError now, at once, and nothing reaches stdout. (criterion='auto'
    solves at max(tol, 1e-3): a tiny tol is refused there by the estimator's parameter check.)"""
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=f"tol.*(must be {word}|range)"):
        BoundSVC(tol=tol, criterion=criterion).fit(Xb, yb)
    assert time.perf_counter() - t0 < 10
    out, _ = capfd.readouterr()
    assert "DPOTRF" not in out and out == ""


def test_default_iteration_cap_scales_with_n():
    from svmbound.solvers.qp import MAX_ITER_MIN, MAX_ITER_PER_ROW, default_max_iter

    assert default_max_iter(10) == MAX_ITER_MIN
    assert default_max_iter(200) == MAX_ITER_PER_ROW * 200
    assert default_max_iter(10**6) == MAX_ITER_PER_ROW * 10**6


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_unscaled_poly_solve_is_bounded_and_says_why(loss):
    """A cubic kernel on X·1e10 (K(x, x) ≈ 1e64) cannot converge: each solve ran 10⁷ SMO
    iterations (23 s). Now it stops at the default cap, or earlier once the violation has
    stalled, with a ConvergenceWarning that names unscaled features."""
    from svmbound.solvers.qp import default_max_iter

    t0 = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="far from unit scale.*standardise"):
        sol = solve_svm_dual(Xb * 1e10, YB_PM, PolynomialKernel(3), 1.0, loss=loss)
    assert time.perf_counter() - t0 < 10
    assert not sol.converged and sol.n_iter <= default_max_iter(200)
    assert "far from unit scale" in sol.stop_reason


def test_explicit_max_iter_is_not_cut_short():
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # an explicit cap: no warning, exactly max_iter
        sol = solve_svm_dual(Xb * 1e10, YB_PM, PolynomialKernel(3), 1.0, loss="l2",
                             max_iter=300_000)
    assert sol.n_iter == 300_000 and not sol.converged


def test_slow_converging_solve_still_converges():
    """A cubic kernel with c = 0 on the issue's data needs about 170,000 iterations (850·n),
    falling steadily: the stall rule and the cap leave it alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for loss in ("l1", "l2"):
            sol = solve_svm_dual(Xb, YB_PM, PolynomialKernel(3, 0.0), 1.0, loss=loss, tol=1e-3)
            assert sol.converged and sol.n_iter > 100_000


def test_unscaled_poly_fit_is_bounded():
    """The issue's case: unfinished after 150 s. Now bounded, with the reason."""
    t0 = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="far from unit scale"):
        m = BoundSVC(kernel="poly").fit(Xb * 1e10, yb)
    assert time.perf_counter() - t0 < 120
    assert hasattr(m, "best_params_")


def test_linear_kernel_on_huge_values_is_a_clear_error(capfd):
    """kernel='linear' on Xb·1e200 raised numpy's 'Singular matrix' from span.py (and LAPACK
    wrote to stdout): the estimator names the scale, the solvers the non-finite kernel."""
    with pytest.raises(ValueError, match="X has values too large"):
        BoundSVC(kernel="linear").fit(Xb * 1e200, yb)
    with pytest.raises(ValueError, match="linear kernel's values are not finite.*standardise"):
        solve_svm_dual(Xb * 1e200, YB_PM, LinearKernel(), 1.0)
    with pytest.raises(ValueError, match="linear kernel's values are not finite.*standardise"):
        solve_radius(Xb * 1e200, LinearKernel())
    with pytest.raises(ValueError, match="rbf kernel's values are not finite"):
        solve_radius(Xb * 1e200, RBFKernel())
    with pytest.raises(ValueError, match="linear kernel's values are not finite"):
        make_criterion("span", Problem(Xb * 1e200, YB_PM), LinearKernel()).fun(np.array([0.0]))
    assert capfd.readouterr().out == ""


def test_span_singular_system_says_why():
    """On Xb·1e150 the linear kernel is finite (K ≈ 3e301) but K + I/C keeps none of 1/C's
    digits: numpy's bare 'singular hyperplane system' is now an error naming the scale."""
    crit = make_criterion("span", Problem(Xb * 1e150, YB_PM), LinearKernel())
    with pytest.raises(np.linalg.LinAlgError, match="far from unit scale.*standardise"):
        crit.fun(np.array([0.0]))


# ---------------------------------------------------------------------------------------------
# item 5: weights scale C (C_i = C·w_i): the pick follows a uniform weight of any scale


def test_weight_scale_is_the_mean_without_overflow():
    from svmbound._weights import weight_scale

    assert weight_scale(None) == 1.0
    assert weight_scale(np.array([1.0, 3.0])) == 2.0
    assert weight_scale(np.full(200, 1e308)) == pytest.approx(1e308, rel=1e-12)   # sum: inf
    assert weight_scale(np.full(200, 1e-300)) == pytest.approx(1e-300, rel=1e-12)


def test_shift_log_c_moves_the_default_box_only():
    from svmbound._weights import shift_log_c

    names = ("log_C", "log_sigma2")
    lo, hi, x0 = np.array([-10.0, -8.0]), np.array([10.0, 12.0]), np.array([0.0, 2.0])
    w = np.full(5, 1e100)
    t = -np.log(1e100)
    a, b, c = shift_log_c(names, lo, hi, x0, w)
    np.testing.assert_allclose(a, [-10 + t, -8]) and np.testing.assert_allclose(b, [10 + t, 12])
    np.testing.assert_allclose(c, [t, 2.0])
    a, b, c = shift_log_c(names, lo, hi, x0, w, bounds_given=True, start_given=True)
    np.testing.assert_array_equal(a, lo) and np.testing.assert_array_equal(c, x0)
    a, b, c = shift_log_c(names, lo, hi, x0, w, bounds_given=True)     # start clipped into box
    assert c[0] == -10.0
    for w in (None, np.ones(5), np.array([0.5, 1.5])):                 # mean 1: nothing moves
        a, b, c = shift_log_c(names, lo, hi, x0, w)
        np.testing.assert_array_equal(a, lo) and np.testing.assert_array_equal(c, x0)
    with pytest.raises(ValueError, match="scale 1e\\+305 .*beyond float64's range.*divide them"):
        shift_log_c(names, lo, hi, x0, np.full(5, 1e305))


@pytest.mark.parametrize("name", ["rm-l1", "rm-l1-0.5", "rm-l2-2.5", "rm-l1-1.9", "rm-l1-3.1",
                                  "rm-l1-3.2", "rm-l2", "span"])
@pytest.mark.parametrize("s", [1e-300, 1e-100, 1e100, 1e300])
def test_bounds_depend_on_the_boxes_alone(name, s):
    """Uniform weights s at C are the boxes C_i = C·s of unit weights at C·s: every bound has
    the same value there. The L1 bounds' Δ/C (and κ/C, Σξ) used the bare C: a weight 1e300
    made Δ/C = 1e300·Δ/C_i and moved their minimum."""
    theta = np.array([0.3, 0.5])
    plain = make_criterion(name, Problem(Xb, YB_PM), RBFKernel(), tol=1e-10)
    weighted = make_criterion(name, Problem(Xb, YB_PM, np.full(YB_PM.size, s)), RBFKernel(),
                              tol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = plain.evaluate(theta)
        b = weighted.evaluate(theta - [np.log(s), 0.0])
    assert b.value == pytest.approx(a.value, rel=1e-6)
    if a.grad is not None:
        np.testing.assert_allclose(b.grad, a.grad, rtol=1e-5, atol=1e-8 * abs(a.value))




@pytest.mark.parametrize("kw", [{}, {"criterion": "radius-margin", "loss": "l1"}])
@pytest.mark.parametrize("s", [1e100, 1e300, 1e-300])
def test_uniform_weight_pick_follows(kw, s):
    """The issue's case: sample_weight 1e100 or 1e300 left C at its start (accuracy 0.83
    against 0.90, no warning); 1e-300 ended in bfgs' 'grad(x0) is not finite'. The pick is
    now that of unit weights, C divided by the weight: C·w_i the same."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = BoundSVC(**kw).fit(Xb, yb)
        m = BoundSVC(**kw).fit(Xb, yb, sample_weight=np.full(200, s))
    # C·w_i equal up to its last bits: the SMO solutions the search follows differ within their
    # tolerance, and its minimum by about 1e-6 (1.05e-6 at s = 1e-300 with the L1 bound)
    assert m.best_params_["C"] * s == pytest.approx(ref.best_params_["C"], rel=1e-5)
    assert m.best_params_["sigma2"] == pytest.approx(ref.best_params_["sigma2"], rel=1e-5)
    np.testing.assert_array_equal(m.predict(Xb), ref.predict(Xb))
