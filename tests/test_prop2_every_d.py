"""Proposition 2 for every d >= 2 (proofs/prop2.md, 'Every d: the insertion pairing'): the
check passes for c1 <= 1/3, names the smallest failing d above it, turns red under an engine
fault in the model or the word law, and its bound lies below the loss computed by the engine."""
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import minimize

import test_mutations as tm
from verify.checks import Case
from verify.engine.formulas import softmax_counts
from verify.engine.general.moments import moments_float
from verify.results import prop2_every_d as every

CASE = Case("all d >= 2", {})


def test_the_argument_proves_the_configured_c1_for_every_d_and_reports_the_bound():
    out = every.judge_every_d(CASE, {"prop2.c1": Fraction(1, 5)})
    assert out.passed is True and out.margin == pytest.approx(5 / 3)
    assert out.values["bound_d3"] == pytest.approx(14 / 39) and out.values["smallest_failing_d"] == "none"
    assert every.bound_at(3) == Fraction(14, 39) and every.bound_at(5) == Fraction(201, 490)


def test_the_bound_tends_to_one_third_from_above():
    values = [every.bound_at(d) for d in (3, 5, 10, 100, 10**4)]
    assert all(v > Fraction(1, 3) for v in values)
    assert values[2] > values[3] > values[4] and values[4] - Fraction(1, 3) < Fraction(1, 10**3)


@pytest.mark.parametrize("c1, first", [("34/100", 99), ("36/100", 3), ("51/100", 2)])
def test_a_constant_above_the_bound_fails_at_its_smallest_failing_d(c1, first):
    out = every.judge_every_d(CASE, {"prop2.c1": Fraction(c1)})
    assert out.passed is False and out.values["smallest_failing_d"] == first
    if first >= 4:  # the d before it still holds: the smallest failing d, not just one
        assert every.bound_at(first - 1) >= Fraction(c1) > every.bound_at(first)


def test_one_third_itself_holds_for_every_d():
    assert every.judge_every_d(CASE, {"prop2.c1": Fraction(1, 3)}).passed is True


@pytest.mark.parametrize("fault, link", [(tm._tilted_word_law, "P2 law of k given z"),
                                         (tm._biased_word_model, "P1 pairing")])
def test_an_engine_fault_in_the_word_model_or_law_turns_it_red(monkeypatch, fault, link):
    fault(monkeypatch)
    assert dict(every.LINKS)[link]() is False
    assert every.judge_every_d(CASE, {"prop2.c1": Fraction(1, 5)}).passed is False


def test_a_wrong_group_minimum_breaks_p3_and_proposition_4s_q4(monkeypatch):
    """A background's words cost at least 2W/(1 + W); a larger claimed minimum (the negative
    word's cost left out: (2W + 1)/(W + 1)) is not the quadratic's, in the shared module that
    both every-d arguments use."""
    from verify.results import insertion, prop4_every_d

    monkeypatch.setattr(insertion, "group_minimum", lambda W: (2 * W + 1) / (W + 1))
    assert every.link_fibre() is False and prop4_every_d.link_group() is False
    assert every.judge_every_d(CASE, {"prop2.c1": Fraction(1, 5)}).passed is False


def test_the_pairing_on_words_in_float64():
    """P1 on the model itself: inserting s's into a word z moves the prediction beta~.gamma
    towards beta~_s = min beta~, so it never exceeds the prediction on z."""
    rng = np.random.default_rng(7)
    d, s = 6, 0
    for _ in range(200):
        alpha, beta = rng.normal(0, 3, d), rng.normal(0, 2, d)
        beta[s] = beta.min() - rng.random()
        z = rng.integers(0, 4, d).astype(float)
        z[s] = 0
        if z.sum() == 0:
            continue
        before = softmax_counts(z, alpha) @ beta
        for k in (1, 2, 5):
            w = z.copy()
            w[s] = k
            assert softmax_counts(w, alpha) @ beta <= before + 1e-12


@pytest.mark.parametrize("d", [3, 4, 6])
def test_the_bound_is_below_the_engine_loss_minimised_over_the_cone(d):
    """A second route: the engine's float64 moments, the loss minimised over beta~ in the cone
    beta~_s <= beta~_j (SLSQP), at seeded attention (the target's logit low: the adversarial
    direction the searches found) stay above B(d)."""
    rng = np.random.default_rng(d)
    s = 0
    for scale in (0.0, 2.0, 5.0):
        alpha = rng.normal(0, scale, d) if scale else np.zeros(d)
        alpha[s] -= scale * 3
        m = moments_float(d, s, alpha)
        M, ms = m.second, m.mean_positive
        cons = [{"type": "ineq", "fun": (lambda b, j=j: b[j] - b[s])} for j in range(d) if j != s]
        found = minimize(lambda b: 0.5 * b @ M @ b - 2 * b @ ms + 1, np.ones(d),
                         jac=lambda b: M @ b - 2 * ms, constraints=cons, method="SLSQP",
                         options={"ftol": 1e-12, "maxiter": 500})
        assert found.fun >= float(every.bound_at(d)) - 1e-9
