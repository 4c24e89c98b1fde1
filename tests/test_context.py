"""The number contexts' branches CI left uncovered (engine/context.py, 87 %): meeting an
enclosure with a non-finite one keeps the finite one, two disjoint enclosures of one number are
a defect and raise, and the three contexts agree on one formula."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import given, settings, strategies as st

from verify.engine.context import ARB, FP, MP, meet_balls, mp_expm1


def test_a_non_finite_enclosure_is_dropped_and_disjoint_ones_raise():
    finite, wide = arb(1, 0.5), arb("nan")
    assert meet_balls(wide, finite) is finite and meet_balls(finite, wide) is finite
    with pytest.raises(ArithmeticError):
        meet_balls(arb(1, 0.1), arb(2, 0.1))


def test_one_formula_on_the_three_contexts():
    """log(1 + expm1(x)) / sqrt(x) at x = 1/4 (= sqrt(x) = 1/2) on mpf, float64 and Arb balls:
    the Arb ball holds the exact value, the others lie within their precision of it."""
    def formula(ctx, x):
        x = ctx.number(x)
        return ctx.log(ctx.one + ctx.expm1(x)) / ctx.sqrt(x) + ctx.zero

    assert abs(formula(MP, "0.25") - mpmath.mpf("0.5")) < mpmath.mpf(10) ** -14
    assert abs(formula(FP, 0.25) - 0.5) < 1e-15
    ball = formula(ARB, Fraction(1, 4))
    assert ball.contains(arb(1) / 2) and ball.rad() < 1e-15


@settings(max_examples=400)
@given(man=st.integers(-(2 ** 200), 2 ** 200), exp=st.integers(-700, 10),
       prec=st.sampled_from([53, 80, 113, 133, 200, 333]))
def test_mp_expm1_is_mpmaths_expm1_bit_for_bit(man, exp, prec):
    """The MP context's expm1 returns mpmath.expm1's number exactly (sign, mantissa, exponent),
    for arguments of any size and of more bits than the working precision, zero and tiny ones
    included, at several precisions (the moment integrands' values depend on it to the bit)."""
    with mpmath.workprec(800):
        x = mpmath.mpf((man, exp)) if man else mpmath.mpf(0)  # up to 200 bits, exactly
    with mpmath.workprec(prec):
        assert mp_expm1(x)._mpf_ == mpmath.expm1(x)._mpf_
        assert mp_expm1(-x)._mpf_ == mpmath.expm1(-x)._mpf_
