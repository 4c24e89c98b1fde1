"""Certified mode (Arb balls): agreement with the mpmath route, the tail bound, mutations."""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import flint
from flint import arb  # noqa: E402

from verify.engine import expectations  # noqa: E402
from verify.engine.certified.balls import bits_for, interval, precision  # noqa: E402
from verify.engine.certified.moments import symmetric_ball_moments  # noqa: E402
from verify.engine.context import MP  # noqa: E402
from verify.engine.certified.symmetric import (ball_evaluate, ball_state, ball_three_phase,  # noqa: E402
                                                phase_closed_forms)
from verify.engine.expectations import (moment_integrand, moment_setup, symmetric_moments,  # noqa: E402
                                        tail_bound)
from verify.engine.symbolic import d as d_sym, moments_at_zero_attention  # noqa: E402
from verify.engine.symmetric import SymmetricPoint, evaluate  # noqa: E402
from verify.engine.plans import three_phase  # noqa: E402


def _ball_of(value, error, dps) -> arb:
    """[value - error, value + error] as a ball (the decimal strings read at high precision:
    at Arb's default 53 bits the ball would be 1e-16 wide and every comparison would pass)."""
    with mpmath.workdps(dps + 20):
        lo, hi = mpmath.nstr(value - error, dps + 15), mpmath.nstr(value + error, dps + 15)
    with precision(bits_for(dps + 20)):
        return arb(lo).union(arb(hi))


CASES = [(2, -200), (2, 3), (3, 0), (3, 200), (3, -200), (10, 1.7), (10**9, -200), (10**9, 20),
         (10**9, 200), (17, -0.3)]


@pytest.mark.parametrize("dps", [15, 100])
@pytest.mark.parametrize("d, gap", CASES)
def test_ball_moments_contain_mpmath(d, gap, dps):
    family = "nu" if gap > 0 else "mu"
    bits = bits_for(dps)
    balls = symmetric_ball_moments(d, gap, family, 3, bits).values
    ref = symmetric_moments(d, gap, family, 3, dps)
    for ball, value, err in zip(balls, ref.values, ref.errors):
        # the mpmath route promises dps digits; its own error figure is a heuristic (at d = 1e9,
        # gap 20, 15 digits it says 8e-21 while the true error is 4e-18: the balls showed it)
        promised = max(err, abs(value) * mpmath.mpf(10) ** -dps)
        assert ball.overlaps(_ball_of(value, promised, dps)), (ball, value)
        with precision(bits):
            assert ball.rad() <= arb(10) ** (-dps) * abs(ball.mid()) or ball.mid() == 0, ball  # narrow


def test_moments_at_zero_match_closed_form_and_a_dropped_term_is_caught(monkeypatch):
    """Second, independent route: SymPy's sums of the binomial moments at alpha = 0."""
    bits = bits_for(30)
    for d in (3, 7, 1000):
        exact = [sp.N(m.subs(d_sym, d), 45) for m in moments_at_zero_attention(3)]
        balls = symmetric_ball_moments(d, 0, "mu", 3, bits).values
        for ball, value in zip(balls, exact):
            with mpmath.workdps(50):
                ref = _ball_of(mpmath.mpf(str(value)), mpmath.mpf(10) ** -42, 45)
            assert ball.overlaps(ref)
    original = expectations.moment_integrand

    def dropped(t, s, be=MP):  # the j = r term of each moment lost
        out = original(t, s, be)
        return [v * 0.999 if r == 2 else v for r, v in enumerate(out)]

    monkeypatch.setattr("verify.engine.certified.moments.moment_integrand", dropped)
    ball = symmetric_ball_moments(7, 0, "mu", 3, bits).values[2]
    value = sp.N(moments_at_zero_attention(3)[2].subs(d_sym, 7), 45)
    with mpmath.workdps(50):
        ref = _ball_of(mpmath.mpf(str(value)), mpmath.mpf(10) ** -42, 45)
    assert not ball.overlaps(ref)


@pytest.mark.parametrize("d, gap, family", [(3, -2, "mu"), (10, 0, "mu"), (10, 4, "nu"),
                                            (1000, 30, "nu"), (2, -5, "mu")])
def test_tail_bound_dominates_the_tail(d, gap, family):
    """int_T^inf integrand_r <= B_r(T) at several cuts T (mpmath quadrature of the tail); a bound
    that is too small is caught by test_wrong_tail_bound_is_caught."""
    with mpmath.workdps(30):
        s = moment_setup(d, gap, family, 3)
        for T in (0.1, 1, 5, 20):
            T = mpmath.mpf(T) / s.c_target
            tails = [mpmath.quad(lambda t, r=r: moment_integrand(t, s)[r], [T, 2 * T, 10 * T, mpmath.inf])
                     for r in range(3)]
            bounds = tail_bound(T, s)
            # at d = 2 the bound is exact (tail = bound): allow the quadrature's rounding
            assert all(t <= b * (1 + mpmath.mpf(10) ** -25) for t, b in zip(tails, bounds)), (T, tails, bounds)


def test_wrong_tail_bound_is_caught(monkeypatch):
    """A tail bound that is too small gives a ball that misses the true moment when the cut is
    forced early (the cut is where the bound says the rest is negligible)."""
    def tiny(s):
        return [k * arb(10) ** -60 for k in expectations.tail_coefficients(s)]

    monkeypatch.setattr("verify.engine.certified.moments.tail_coefficients", tiny)
    bits = bits_for(30)
    ball = symmetric_ball_moments(10, -3, "mu", 3, bits).values[0]
    ref = symmetric_moments(10, -3, "mu", 3, 30)
    assert not ball.overlaps(_ball_of(ref.values[0], ref.errors[0], 30))


@pytest.mark.parametrize("piece", [(0.0, 0.5, False), (0.0, 1.5, True)])
def test_piece_integrals_share_nodes_and_give_the_balls_of_fresh_evaluations(piece):
    """One piece's integrals for every r (the integrand's vector formed once per node) are the
    balls, midpoint and radius, of one ``acb.integral`` per r evaluating the integrand afresh at
    every node (the route before the memo); a key that forgot the node's radius, or a vector
    kept across pieces, would hand an integral another node's balls."""
    from flint import acb

    from verify.engine.certified.balls import ARB
    from verify.engine.certified.moments import piece_integrals

    with precision(96):
        for family, gap in (("mu", 1.5), ("nu", 4)):
            s = moment_setup(arb(7), arb(gap), family, 3, ARB)
            tol = [arb(2) ** -90] * 3
            shared = piece_integrals(s, piece, 0.25, tol)
            a, b, log_scale = piece
            for r, ball in enumerate(shared):
                def f(z, _analytic, r=r):  # as before the memo (a product with 1 widens a radius)
                    if not log_scale:
                        return moment_integrand(z, s, ARB)[r]
                    t = arb(0.25) * z.exp()
                    return moment_integrand(t, s, ARB)[r] * t
                fresh = acb.integral(f, arb(a), arb(b), abs_tol=tol[r]).real
                assert (ball.mid(), ball.rad()) == (fresh.mid(), fresh.rad())


def test_ball_inputs_enclose_every_point():
    """d and gap given as balls: the enclosure contains the mpmath value at points inside."""
    d_ball, gap_ball = interval(995, 1005), interval(2.5, 2.75)
    ball = symmetric_ball_moments(d_ball, gap_ball, "nu", 3, 128).values[0]
    for d, gap in ((995, 2.5), (1000, 2.6), (1005, 2.75)):
        ref = symmetric_moments(d, gap, "nu", 3, 20)
        assert ball.overlaps(_ball_of(ref.values[0], ref.errors[0], 20))


@pytest.mark.parametrize("d, gap, bs, bj", [(3, -1, 2, 0), (10, 4, 1.5, 0.25), (10**6, 12, 2, 0)])
def test_loss_and_gradient_contain_mpmath(d, gap, bs, bj):
    balls = ball_evaluate(ball_state(d, gap, bits_for(30)), bs, bj)
    ev = evaluate(SymmetricPoint(d, gap, 0, bs, bj), 30)
    refs = {"loss": ev.loss, **ev.grad}
    for key, ball in balls.items():
        assert ball.overlaps(_ball_of(refs[key], ev.error[key] + mpmath.mpf(10) ** -28 * abs(refs[key]), 30)), key


def test_three_phase_contains_mpmath_and_bound_dominates():
    d, eps = 10, mpmath.mpf("0.01")
    eta1, eta2 = mpmath.sqrt(d), 2 * d**2 / mpmath.sqrt(d) * mpmath.log(d / eps)
    T = int(mpmath.ceil(4 * d * mpmath.log(16 * d / eps)))
    bits = bits_for(30)
    with precision(bits):
        eta1_ball, eta2_ball = arb(mpmath.nstr(eta1, 40)), arb(mpmath.nstr(eta2, 40))
    plan = ball_three_phase(d, eta1_ball, eta2_ball, 1, bits)
    ref = three_phase(d, eta1, eta2, 1, T, 30)
    with mpmath.workdps(40):
        assert plan.gap.overlaps(_ball_of(ref.alpha[0] - ref.alpha[1], mpmath.mpf(10) ** -25, 30))
    exact = plan.loss_after(T)["loss"]
    assert exact.overlaps(_ball_of(ref.loss, ref.final.error["loss"] + abs(ref.loss) * mpmath.mpf(10) ** -25, 30))
    bound = plan.loss_bound(T)
    assert exact.upper() <= bound.upper()


def test_phase_closed_forms_match_the_integrals_at_zero():
    """Phase 1 from the closed form against the gradient from the ball moments at alpha = 0."""
    bits = bits_for(30)
    for d in (3, 50):
        with precision(bits):
            eta1 = arb(d).sqrt()
        b1s, b1j, _, _ = phase_closed_forms(d, eta1, bits)
        g = ball_evaluate(ball_state(d, 0, bits), 0, 0)
        with precision(bits):
            assert b1s.overlaps(-eta1 * g["beta_s"])
            assert b1j.overlaps(-eta1 * g["beta_j"])


def test_ball_as_estimate_is_an_enclosure():
    from verify.engine.certified.balls import as_estimate
    from verify.engine.estimate import ErrorKind

    with precision(128):
        ball = symmetric_ball_moments(10, -3, "mu", 3, 128).values[0]
        est = as_estimate(ball)
        assert est.kind is ErrorKind.ENCLOSURE
        assert (est.lower - ball.lower()).contains(0) and (est.upper - ball.upper()).contains(0)
