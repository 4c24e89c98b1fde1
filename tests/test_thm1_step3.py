"""Theorem 1's reconstructed step 3 (proofs/thm1.md steps 1, 3, 5, 6, 8, 11): each check passes
for the whole range, and each turns red under a raised constant or a weakened hypothesis; the
chosen target is the one the proof takes and the search at it stays above c3."""
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from verify.checks import Case, Evidence, Reach
from verify.constants import load, values
from verify.results import thm1, thm1_step3 as step3


# step 3's symbols, as SymPy makes them (a name and its assumptions make the symbol)
D, K, J = (sp.Symbol(name, integer=True, positive=True) for name in "dkj")
BETA = sp.IndexedBase("beta")


def constants(**overrides):
    c = values(load())
    c.update({k.replace("__", "."): Fraction(v) for k, v in overrides.items()})
    return c


def judge(check_id, **overrides):
    check = next(c for c in thm1.RESULT.checks if c.id == check_id)
    (case,) = check.cases(None, constants(), {})
    return check.judge(case, constants(**overrides))


NEW = ("thm1.target_choice", "thm1.insertion_attention", "thm1.second_moment",
       "thm1.pointwise_loss", "thm1.conclusion")


@pytest.mark.parametrize("check_id", NEW)
def test_each_step_is_symbolic_over_its_whole_range_and_passes(check_id):
    check = next(c for c in thm1.RESULT.checks if c.id == check_id)
    assert check.evidence is Evidence.SYMBOLIC and check.covers is Reach.RANGE
    out = judge(check_id)
    assert out.passed is True and "NOT PROVED" not in out.detail, out.detail


def test_the_gradient_identities_hold_for_symbolic_d_and_fail_when_broken():
    """Step 1: the per-word partial and the two sums vanish for a symbolic number of symbols; a
    wrong partial (the bias term dropped) and a wrong sum are not proved (SymPy's simplifier
    raising on a non-zero sum counts as not proved, never as a pass)."""
    assert step3.per_word_partial() and step3.shift_sum() and step3.target_sum()
    Z, f, gamma = step3.model()
    k = K
    assert not step3.proved_zero(sp.Sum(gamma(k) * (BETA[k] - f), (k, 1, D)))
    assert not step3.zero_at_points(sp.Sum(gamma(k) * (BETA[k] - f), (k, 1, D)))
    assert step3.mean_relative_logit() == D * sp.Symbol("eta", nonnegative=True) * sp.Symbol(
        "g_s", nonnegative=True) / (D - 1)


def test_target_choice_fails_with_a_label_that_breaks_y_gamma_equals_gamma(monkeypatch):
    """Weakened hypothesis: if a word were positive only when s occurs twice, y_s gamma_s = gamma_s
    fails at C_s = 1 and the sum over targets no longer vanishes."""
    monkeypatch.setattr(step3, "label", lambda c: sp.Piecewise((1, c >= 2), (-1, True)))
    out = judge("thm1.target_choice")
    assert out.passed is False and "NOT PROVED" in out.detail and "label" in out.detail


def test_target_choice_fails_when_the_engine_gradient_is_not_shift_invariant(monkeypatch):
    """The second route reads the engine: a planted fault that adds 1e-3 to every partial (the
    gradient no longer sums to 0) is caught."""
    from verify.engine.one_step import FloorSearch

    real = FloorSearch.grads
    monkeypatch.setattr(FloorSearch, "grads",
                        lambda self, b, t: {s: g + 1e-3 for s, g in real(self, b, t).items()})
    out = judge("thm1.target_choice")
    assert out.passed is False and "agrees: False" in out.detail


def test_target_choice_refuses_a_stronger_mean_than_it_proves(monkeypatch):
    monkeypatch.setattr(step3, "MEAN_RATIO_MIN", sp.Integer(2))
    assert judge("thm1.target_choice").passed is False


def test_engine_route_picks_a_target_with_a_non_negative_own_partial():
    eng = step3.engine_route(9, seed=1)
    assert eng["target_sum"] < 1e-12 and eng["shift_sum"] < 1e-12
    assert eng["g_s"] >= 0 and eng["log_mu"] >= 0


def test_insertion_attention_fails_when_case_1_no_longer_lands_in_G_m(monkeypatch):
    monkeypatch.setattr(step3, "CASE_SPLIT", sp.Rational(1, 8))
    out = judge("thm1.insertion_attention")
    assert out.passed is False and "case1" in out.detail


@pytest.mark.parametrize("name, value, reason", [
    ("MEAN_RATIO_MIN", sp.Rational(1, 4), "FAILS for every d at m = d, mu = 1/4"),  # no target choice
    ("CASE_SPLIT", sp.Integer(4), "FAILS for every d"),  # case 2 up to max a < 4d
    ("GOOD", sp.Rational(5, 8), "FAILS for every d"),  # raised constant (the best is 9/17)
])
def test_second_moment_fails_under_a_weaker_hypothesis_or_a_raised_constant(monkeypatch, name,
                                                                           value, reason):
    monkeypatch.setattr(step3, name, value)
    out = judge("thm1.second_moment")
    assert out.passed is False and reason in out.detail and out.values["smallest_failing_d"] == 9


def test_second_moment_constant_is_exactly_9_over_17():
    slack, best = step3.second_moment_slack()
    assert best == sp.Rational(9, 17)
    assert sp.expand(slack) == sp.expand(sp.Rational(55, 128) * D**2
                                         + sp.Rational(5, 4) * D * J
                                         + sp.Rational(7, 8) * J**2)


def test_second_moment_holds_at_9_over_17_and_not_beyond(monkeypatch):
    monkeypatch.setattr(step3, "GOOD", sp.Rational(9, 17))
    assert judge("thm1.second_moment").passed is True
    monkeypatch.setattr(step3, "GOOD", sp.Rational(9, 17) + sp.Rational(1, 1000))
    assert judge("thm1.second_moment").passed is False


def test_exact_binomial_route_agrees_with_cantelli():
    """Exact P(S <= d/4 | m) over the two-valued ratio vectors: the worst is near e^-2 for large
    d, well below the 8/17 Cantelli proves."""
    worst, (m, k, lo) = step3.two_valued_worst(9, range(9, 15))
    assert worst <= Fraction(8, 17) and (m, k) == (9, 2) and lo == 0
    assert worst == pytest.approx(0.0751, abs=1e-4)


@pytest.mark.parametrize("name, value", [("LARGE", sp.Rational(1, 2)),  # beta_s <= d/2
                                         ("LEVEL", sp.Rational(1, 8))])  # gamma_s(z') <= 8/d
def test_pointwise_loss_fails_under_a_weaker_hypothesis(monkeypatch, name, value):
    monkeypatch.setattr(step3, name, value)
    out = judge("thm1.pointwise_loss")
    assert out.passed is False and "NOT PROVED" in out.detail and "corner" in out.detail


def test_pointwise_loss_bound_is_minus_half_minus_2_over_d():
    links, bound = step3.insertion_loss_corner()
    assert all(links.values()) and sp.simplify(bound - (-sp.Rational(1, 2) - 2 / D)) == 0


def test_conclusion_proves_1_over_2080_and_fails_above_it():
    assert step3.floor_factor() == sp.Rational(1, 256)
    out = judge("thm1.conclusion", thm1__c3="1/2080")
    assert out.passed is True and "1/2080.0" in out.detail
    bad = judge("thm1.conclusion", thm1__c3="1/2000")
    assert bad.passed is False and "c3 > c_large_output" in bad.detail


def test_conclusion_fails_when_a_step_constant_is_raised(monkeypatch):
    """A raised P(G_m) (1/4 instead of 1/8) changes the factor from the 1/256 that
    thm1.rho_bound bounds: the composition no longer matches and the check is red."""
    monkeypatch.setattr(step3, "GOOD", sp.Rational(1, 4))
    assert judge("thm1.conclusion").passed is False


def test_chosen_target_is_the_proofs_and_ties_are_machine_independent():
    d = 9
    fs = thm1.FloorSearch(d)
    grads = fs.grads(2 * np.eye(d)[0], list(range(d)))
    assert grads[0][0] < 0 and thm1.chosen_target(grads) == 1  # not the learnable target 0
    noise = {s: np.full(d, 1e-17 * (-1) ** s) for s in range(d)}  # a zero gradient's rounding noise
    assert thm1.chosen_target(noise) == 0


def test_chosen_target_search_passes_and_fails_when_c3_raised():
    check = next(c for c in thm1.RESULT.checks if c.id == "thm1.chosen_target")
    assert check.evidence is Evidence.SEARCH
    case = Case("d=9", {"d": 9, "seed": 0, "random": 0, "n_eta": 3, "evals": 0, "dps": 15})
    ok = check.judge(case, constants())
    assert ok.passed is True and ok.values["floor"] > 0.28
    assert check.judge(case, constants(thm1__c3="1/2")).passed is False


def test_chosen_target_search_is_reproducible():
    a = thm1.search_chosen(9, 2, 1, 3, 10)
    b = thm1.search_chosen(9, 2, 1, 3, 10)
    assert a.value == b.value and np.array_equal(a.x, b.x) and a.extra == b.extra
