"""The number contexts' branches CI left uncovered (engine/context.py, 87 %): meeting an
enclosure with a non-finite one keeps the finite one, two disjoint enclosures of one number are
a defect and raise, and the three contexts agree on one formula."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from verify.engine.context import ARB, FP, MP, meet_balls


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
