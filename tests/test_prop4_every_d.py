"""Proposition 4 for every d with a smaller head bound (proofs/prop4.md, 'Every d'): the check
passes with the configured head_factor_every_d, turns red under a larger one, a broken link or
an engine fault in model (1), and the inequality it sums holds on the engine's own moments."""
from fractions import Fraction

import numpy as np
import pytest

import test_mutations as tm
from verify.checks import Case
from verify.engine import general
from verify.results import prop2_every_d, prop4_every_d as every

CASE = Case("all d >= 3", {})
CONSTANTS = {"prop4.c4": Fraction(1, 10), "prop4.head_factor_every_d": Fraction(1, 20),
             "prop4.radius_scale": Fraction(1), "prop4.head_factor": Fraction(1)}


def test_the_argument_proves_c4_under_the_smaller_head_bound_and_says_where_it_is_vacuous():
    out = every.judge_every_d(CASE, CONSTANTS)
    assert out.passed is True and out.margin == pytest.approx((3 ** -0.5 - 20 ** -0.5) ** 2 * 10)
    assert out.values["first_d_with_a_head"] == 400
    assert out.values["largest_kappa"] == pytest.approx(0.0681849617)


@pytest.mark.parametrize("change", [{"prop4.head_factor_every_d": Fraction(7, 100)},
                                    {"prop4.radius_scale": Fraction(6, 5)},
                                    {"prop4.c4": Fraction(13, 100)}])
def test_a_larger_head_factor_radius_or_floor_turns_it_red(change):
    assert every.judge_every_d(CASE, {**CONSTANTS, **change}).passed is False


def test_a_ball_smaller_than_the_texts_is_refused():
    """radius_scale < 1 makes the bound easier (kappa smaller) but proves the floor over a
    smaller ball than ||B||_F <= d^(1/4): less than the claim, so the check fails and says why."""
    out = every.judge_every_d(CASE, {**CONSTANTS, "prop4.radius_scale": Fraction(1, 2)})
    assert out.passed is False and "NOT the text's ball" in out.detail


def test_the_exact_comparison_agrees_with_floats_near_the_edge():
    c4 = Fraction(1, 10)
    edge = every.largest_factor(c4)
    assert every.proved_floor_reaches(Fraction(edge * 0.999), c4)
    assert not every.proved_floor_reaches(Fraction(edge * 1.001), c4)


def test_a_split_without_its_penalty_breaks_q3(monkeypatch):
    monkeypatch.setattr(every, "split_square", lambda a, e, theta: (1 - theta) * a ** 2)
    assert every.link_split() is False
    assert every.judge_every_d(CASE, CONSTANTS).passed is False


def test_the_word_model_with_another_bias_breaks_q1(monkeypatch):
    tm._biased_word_model(monkeypatch)
    assert dict(every.LINKS)["Q1 one head's pairing"]() is False
    assert every.judge_every_d(CASE, CONSTANTS).passed is False


def test_it_does_not_rest_on_proposition_2s_check():
    """The grouping facts it shares with Proposition 2 are evaluated by this check itself, so a
    c1 that Proposition 2's route cannot reach leaves it alone (its constants do not include c1)."""
    names = dict(every.LINKS)
    assert {"P2 law of k given z", "P4 sum over z", "P5 B(d) > 1/3"} <= set(names)
    assert "prop2.c1" not in CONSTANTS and every.judge_every_d(CASE, CONSTANTS).passed is True


@pytest.mark.parametrize("d, seed", [(4, 0), (5, 1)])
def test_the_summed_inequality_holds_on_the_engine_moments(d, seed):
    """A second route for Q1-Q5 before the lemma: for two random heads, every target s, random
    outputs B of several norms and several theta, L_s(B) >= (1 - theta) B(d) - (1/theta - 1)
    ||B||_F^2 E[sum_h (gamma_s^(h))^2], with the engine's float64 moments (cross-head blocks
    included)."""
    rng = np.random.default_rng(seed)
    heads = rng.normal(0, 2, (2, d))
    floor = float(prop2_every_d.bound_at(d))
    for s in range(d):
        MM, mpos, _ = general.head_moments_float(d, s, heads)
        attention_on_s = MM[s, s] + MM[d + s, d + s]
        for scale in (0.3, 1.0, 3.0):
            b = rng.normal(0, 1, 2 * d)
            b *= scale / np.linalg.norm(b)
            loss = 0.5 * b @ MM @ b - 2 * b @ mpos + 1
            for theta in (0.2, 0.5, 0.9):
                bound = (1 - theta) * floor - (1 / theta - 1) * scale ** 2 * attention_on_s
                assert loss >= bound - 1e-9
