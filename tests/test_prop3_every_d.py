"""Proposition 3 for every d >= 5 (proofs/prop3.md, 'Every d: the low-attention target'): the
check passes with the constant the argument gives, and turns red under a raised constant or a
broken link."""
from fractions import Fraction

import numpy as np
import pytest

from verify.checks import Case
from verify.results import prop3_every_d as every

CASE = Case("all d >= 5", {})
CONSTANTS = {"prop3.c2": Fraction(1, 10), "prop3.c2_every_d": Fraction(1, 100)}


def test_the_argument_proves_a_positive_floor_for_every_d_from_5_and_reports_it():
    out = every.judge_every_d(CASE, CONSTANTS)
    assert out.passed is True, out.detail
    assert 0.0136 < out.values["bound_at_5"] < out.values["bound_at_6"] < out.values["bound_at_9"] < 1 / 10
    assert 0.0137 < out.values["bound_from_10"] < 1 / 10
    assert "not reached" in out.detail  # c2 = 1/10 is beyond this route


def test_a_raised_constant_turns_it_red():
    out = every.judge_every_d(CASE, {**CONSTANTS, "prop3.c2_every_d": Fraction(1, 50)})
    assert out.passed is False


def test_a_broken_link_turns_it_red(monkeypatch):
    """The three-point residual without its factor 4 is not what the normal equations give."""
    monkeypatch.setattr(every, "three_point_residual",
                        lambda c, p0, p1, p2: 1 / (1 / p0 + (1 + c) ** 2 / p1 + (1 + 2 * c) ** 2 / p2))
    assert every.link_three_points() is False
    assert every.judge_every_d(CASE, CONSTANTS).passed is False


def test_a_lagrange_term_that_is_not_the_attention_on_s_breaks_a5(monkeypatch):
    """A5's Lagrange term must be the k = 1, 2 words' share of E[gamma_s]: with the k = 2
    words weighted u (not 2u/(1+u), their gamma_s) the link fails."""
    right = every.bracket
    assert every.link_lagrange() is True
    monkeypatch.setattr(every, "bracket",
                        lambda u, r1, r2, lam: right(u, r1, r2, 0) + lam * (r1 * u + r2 * u))
    assert every.link_lagrange() is False


def test_a_band_bound_above_the_minimum_is_refused(monkeypatch):
    """A8 proves each band's rational by root counting: a float proposal raised by 1/100 fails."""
    rho, lam = Fraction(5, 6), Fraction(1, 10)
    phi, ok = every.band_bound(rho, rho * rho / 2, lam)
    assert ok and phi > 0
    real_min = np.min
    monkeypatch.setattr(every.np, "min", lambda a: real_min(a) + 0.01)
    assert every.band_bound(rho, rho * rho / 2, lam)[1] is False


def test_the_three_point_residual_is_the_least_squares_distance():
    rng = np.random.default_rng(1)
    for _ in range(5):
        pi, c = rng.uniform(0.1, 1, 3), rng.uniform(0.01, 5)
        g = np.array([0, c / (1 + c), 2 * c / (1 + 2 * c)])
        A = np.stack([np.ones(3), g], 1) * np.sqrt(pi)[:, None]
        y = np.array([0.0, 1.0, 1.0]) * np.sqrt(pi)
        sol = np.linalg.lstsq(A, y, rcond=None)[0]
        assert np.sum((A @ sol - y) ** 2) == pytest.approx(every.three_point_residual(c, *pi), rel=1e-9)


def test_steps_a2_to_a4_hold_word_by_word_at_random_parameters():
    """On each background z (d = 4, s = 0, n <= 4), the loss of any output b over the words with
    k <= 2 s's is at least rho(z) h(u_z) (A2-A4), at random attention and output."""
    import itertools
    from math import comb

    d, rng = 4, np.random.default_rng(7)
    q = 1 - 1 / (d - 1)
    for _ in range(5):
        alpha, b = rng.normal(0, 2, d), rng.normal(0, 3, d)
        for n in range(1, 5):
            t = q / d
            r1, r2 = (n + 1) * t, comb(n + 2, 2) * t * t
            for z in itertools.product(range(1, d), repeat=n):
                counts = np.bincount(z, minlength=d).astype(float)
                U = float(np.sum(counts * np.exp(alpha)))
                c = np.exp(alpha[0]) / U
                u = c / (1 + c)
                loss = 0.0
                for k in range(3):
                    cnt = counts.copy()
                    cnt[0] = k
                    gamma = cnt * np.exp(alpha) / np.sum(cnt * np.exp(alpha))
                    loss += comb(n + k, k) * t**k * (b @ gamma - (k >= 1)) ** 2  # in units of rho(z)
                assert loss >= every.bracket(u, r1, r2, 0.0) - 1e-12
