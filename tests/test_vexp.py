"""The vectorised exp of the kernel loops (svmbound._vexp) against numpy's exp."""

import numpy as np
import pytest

from svmbound._vexp import X_MIN, exp_nonpositive


def _vexp(x):
    out = np.array(x, dtype=np.float64)
    exp_nonpositive(out)
    return out


def test_exp_is_within_two_ulp_of_numpy_on_the_normal_range():
    rng = np.random.default_rng(0)
    x = np.concatenate([np.linspace(X_MIN, 0.0, 200_001), -rng.exponential(3.0, 100_000),
                        -np.logspace(-300, 2, 5_000)])
    got, ref = _vexp(x), np.exp(x)
    ulps = np.abs(got - ref) / np.spacing(ref)
    assert ulps.max() <= 2.0, f"max error {ulps.max()} ulp at x = {x[np.argmax(ulps)]}"


def test_exp_of_zero_is_one_and_below_the_normal_range_is_zero():
    got = _vexp([0.0, -0.0, X_MIN - 1e-9, -745.2, -1e300, -np.inf])
    assert got[0] == 1.0 and got[1] == 1.0
    assert np.all(got[2:] == 0.0)
    assert np.all(np.exp([X_MIN - 1e-9, -745.2]) < 3.4e-308)   # what that zero stands for


@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_exp_fills_every_entry_of_a_slice_and_nothing_around_it(n):
    x = -np.linspace(0.0, 5.0, n)
    buf = np.full(n + 5, -7.0)
    buf[2:2 + n] = x
    exp_nonpositive(buf[2:2 + n])
    np.testing.assert_allclose(buf[2:2 + n], np.exp(x), rtol=5e-16, atol=0)
    assert np.all(buf[:2] == -7.0) and np.all(buf[2 + n:] == -7.0)


def test_nan_stays_nan():
    assert np.isnan(_vexp([np.nan, -1.0])[0])


def test_the_float32_exp_rounds_to_within_one_float32_ulp_of_numpy():
    """exp_nonpositive_float32 (float32 row caches): rounded to float32, within 1 float32 ulp
    of numpy's exp rounded to float32 over the whole range, 0 → 1 and below X_MIN → 0; and
    exp_nonpositive_for picks it for a float32 destination only."""
    from numba import njit

    from svmbound._vexp import exp_nonpositive_float32, exp_nonpositive_for

    rng = np.random.default_rng(1)
    x = np.concatenate([np.linspace(X_MIN, 0.0, 200_001), -rng.exponential(3.0, 100_000),
                        -np.logspace(-300, 2, 5_000)])
    got = x.copy()
    exp_nonpositive_float32(got)
    a = got.astype(np.float32).view(np.int32).astype(np.int64)
    b = np.exp(x).astype(np.float32).view(np.int32).astype(np.int64)
    assert np.abs(a - b).max() <= 1
    assert np.any(got != np.exp(x))     # (a lower degree than exp_nonpositive's)
    edge = np.array([0.0, -0.0, X_MIN - 1e-9, -1e300])
    exp_nonpositive_float32(edge)
    assert edge[0] == 1.0 and edge[1] == 1.0 and np.all(edge[2:] == 0.0)

    @njit
    def for_type(v, out):
        exp_nonpositive_for(v, out)

    for dtype, same in ((np.float32, False), (np.float64, True)):
        for call in (for_type, exp_nonpositive_for):        # numba, and Python
            v = -np.linspace(0.0, 5.0, 1001)
            call(v, np.empty(1, dtype))
            assert np.array_equal(v, _vexp(-np.linspace(0.0, 5.0, 1001))) == same
