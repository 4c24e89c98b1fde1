"""The certified floors' branches CI did not reach (coverage: engine/certified/floors.py 76 %,
one_step.py 48 %): weak duality on the ball ||b||^2 <= R^2 as a property, the feasible upper
bound when b lies outside the ball, a singular or negative multiplier refused, and Theorem 1's
certified floor by its two routes (the four-scalar Arb engine, the general Arb engine) at one
background-symmetric point."""
from __future__ import annotations

import numpy as np
import pytest
from flint import arb, arb_mat
from hypothesis import given, strategies as st

from verify.engine.certified.floors import dual_floor, feasible_upper, loss_at, unconstrained_floor
from verify.engine.certified.one_step import certified_general, certified_symmetric

BITS = 64


def _problem(seed: int, n: int = 3):
    """A positive definite Q and a vector m, as balls (exact binary floats)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n))
    q = a @ a.T + 0.5 * np.eye(n)
    return arb_mat([[arb(float(x)) for x in row] for row in q]), [arb(float(x)) for x in rng.normal(size=n)]


@given(st.integers(0, 10_000), st.floats(0.0, 10.0), st.floats(0.05, 4.0))
def test_weak_duality_bounds_every_feasible_point_below(seed, mu, radius):
    """For every mu >= 0 the dual bound lies below L(b) at every b of the ball (and at the scaled
    point feasible_upper returns for a b outside it)."""
    Q, m = _problem(seed)
    R2 = radius * radius
    low = dual_floor(Q, m, R2, mu, BITS)
    rng = np.random.default_rng(seed + 1)
    for b in (rng.normal(size=3) * radius, rng.normal(size=3) * 10 * radius):
        up = feasible_upper(Q, m, [float(x) for x in b], R2, BITS)
        assert up is not None and low.lower() <= up.upper()


def test_a_point_outside_the_ball_is_scaled_onto_it():
    Q, m = _problem(3)
    b = [4.0, -3.0, 0.0]  # ||b|| = 5
    up = feasible_upper(Q, m, b, 1.0, BITS)
    inside = [x / 5 * (1 - 2.0 ** -20) for x in b]
    assert up is not None and up.overlaps(loss_at(Q, m, inside, BITS))
    assert feasible_upper(Q, m, [0.6, 0.0, 0.0], 1.0, BITS).overlaps(loss_at(Q, m, [0.6, 0.0, 0.0], BITS))


def test_a_negative_multiplier_is_refused_and_a_singular_matrix_gives_no_floor():
    Q, m = _problem(5)
    with pytest.raises(ValueError):
        dual_floor(Q, m, 1.0, -0.5, BITS)
    singular = arb_mat([[arb(1), arb(1)], [arb(1), arb(1)]])
    assert not unconstrained_floor(singular, [arb(1), arb(0)], BITS).is_finite()


def test_theorem_1_floor_by_the_four_scalar_and_the_general_arb_routes_agree():
    """beta0 background-symmetric for s = 0: the four-scalar route steps alpha exactly (a gap
    ball) and solves the 2x2 output system; the general route, handed that gap as a float,
    solves the d x d system.  The floors agree to the gap ball's width (|dF/dgap| <= 1 here)."""
    d, s, beta0, eta = 5, 0, [2.0] + [0.25] * 4, 3.0
    ball, gap, capped = certified_symmetric(d, s, beta0, eta, BITS)
    assert not capped and gap > 0
    general = certified_general(d, s, [float(gap.mid())] + [0.0] * (d - 1), BITS)
    slack = float(gap.rad()) + float(ball.rad()) + float(general.rad())
    assert abs(float(ball.mid()) - float(general.mid())) <= slack + 1e-12
    wrong = certified_general(d, s, [float(gap.mid()) + 0.5] + [0.0] * (d - 1), BITS)
    assert abs(float(ball.mid()) - float(wrong.mid())) > 1e-6  # the comparison can fail
