"""exp(x) for x ≤ 0 over an array, in a form LLVM vectorises (numba has no vector exp).

Numba compiles ``np.exp`` in a loop to one call of the C library's scalar ``exp`` per entry
(about 6 ns on the development machine: the SIMD math library SVML is not available), while an
RBF kernel row is n exponentials: they were about half of a row's time, and kernel rows about
half of an SMO solve (``docs/lab-notebook.md``, "Solvers": 7.8 ns of a row's 19.5 ns per value
on ijcnn1). Written with arithmetic and a bit shift only, the same loop runs on the vector units;
compiled with ``fastmath={"contract"}`` (each multiply-add of the polynomial and of the
reduction one fused FMA instruction, nothing else relaxed) and 2^k made in the same loop by
reinterpreting the bits of an integer, it takes about 1.2 ns per value against 2.7 ns as two
loops without FMAs (Intel Xeon with AVX-512, 50,000 values; docs/decisions.md, "_vexp").

Method (Cody & Waite range reduction, as the C libraries do):

    exp(x) = 2^k · exp(r),   k = round(x / ln 2),   r = x − k·ln 2  (|r| ≤ ln 2 / 2),

with k·ln 2 subtracted in two parts (``LN2_HI`` exact in 32 bits, ``LN2_LO`` the rest), exp(r)
by its Taylor polynomial of degree 13 (truncation below r¹⁴/14! ≤ 1.1e-17 relative, less than
a tenth of an ulp), and 2^k built as the float64 whose exponent field is k + 1023. For
−708 ≤ x ≤ 0 the result is within 1 ulp of numpy's exp(x) (different in the last bit for about
8 % of the arguments with the FMAs, 11 % without; ``tests/test_vexp.py`` checks ≤ 2 ulp over
that range); below −708, exp(x) < 3.4e-308, at the edge of the subnormal numbers, and the
result is 0 (every kernel value and sum here is of order 1, so that is an absolute error under
3.4e-308). x = 0 gives exactly 1. No NaN is expected (callers clip distances at 0); NaN is
passed through.
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

LN2_HI = 6.93147180369123816490e-01    # ln 2 to 32 bits: k·LN2_HI is exact for |k| < 2^21
LN2_LO = 1.90821492927058770002e-10    # ln 2 − LN2_HI
INV_LN2 = 1.44269504088896338700e+00
#: Below this, exp(x) is subnormal: the result is 0.
X_MIN = -708.0


@intrinsic
def _float64_of_bits(typingctx, bits):
    """The float64 whose 64 bits are those of the int64 ``bits`` (a register reinterpreted,
    as ``ndarray.view`` does for arrays: nothing computed, so the loop stays vectorised)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))
    return types.float64(types.int64), codegen


@njit(cache=True, nogil=True, inline="always")
def _reduce(v):
    """(x < X_MIN, k, r) of the range reduction x = k·ln 2 + r, x clipped at X_MIN."""
    low = v < X_MIN
    if low:
        v = X_MIN
    k = np.floor(v * INV_LN2 + 0.5)
    return low, k, (v - k * LN2_HI) - k * LN2_LO


@njit(cache=True, nogil=True, inline="always")
def _times_2k(p, k, low):
    """p·2^k, 2^k the float64 whose exponent field is k + 1023; 0 below X_MIN."""
    return 0.0 if low else p * _float64_of_bits((np.int64(k) + 1023) << 52)


@njit(cache=True, nogil=True, inline="always")
def _horner_from_7(p, r):
    """exp(r)'s Taylor polynomial by Horner's rule from the coefficient of r⁷, p (the higher
    terms folded into it): (…((p·r + 1/6!)·r + 1/5!)…)·r + 1."""
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    return p * r + 1.0


@njit(cache=True, nogil=True, fastmath={"contract"})
def exp_nonpositive(x):
    """x ← exp(x) in place, for a 1-D float64 array of values ≤ 0 (module docstring)."""
    n = x.shape[0]
    for j in range(n):
        low, k, r = _reduce(x[j])
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        x[j] = _times_2k(_horner_from_7(p, r), k, low)


@njit(cache=True, nogil=True, fastmath={"contract"})
def exp_nonpositive_float32(x):
    """x ← exp(x) in place to float32's precision, for values stored as float32 afterwards
    (a row cache of float32 rows): the same range reduction, the Taylor polynomial of degree
    7 (truncation below r⁸/8! ≤ 5.2e-9 relative, a twenty-third of float32's ulp 2⁻²³ ≈
    1.19e-7), in float64. Rounded to float32, a value is within 1 float32 ulp of the rounded
    exact exp (the same in ~99 % of the entries of an RBF row); 1.1 ns a value against 1.7
    (docs/decisions.md, "_vexp")."""
    n = x.shape[0]
    for j in range(n):
        low, k, r = _reduce(x[j])
        x[j] = _times_2k(_horner_from_7(1.0 / 5040.0, r), k, low)


def exp_nonpositive_for(x, out):
    """x ← exp(x) in place to the precision of ``out``'s type, where x's values go next:
    :func:`exp_nonpositive_float32` for float32, else :func:`exp_nonpositive` (the choice
    made at compile time in numba code)."""
    if np.asarray(out).dtype == np.float32:
        exp_nonpositive_float32(x)
    else:
        exp_nonpositive(x)


@overload(exp_nonpositive_for, jit_options={"cache": True, "nogil": True})
def _exp_nonpositive_for_overload(x, out):
    if isinstance(out, types.Array) and out.dtype == types.float32:
        return lambda x, out: exp_nonpositive_float32(x)
    return lambda x, out: exp_nonpositive(x)
