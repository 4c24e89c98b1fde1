"""Theorem 1: the surviving steps of A.6 and the case beta_s > d/4 (thm1_steps) pass and turn
red under their mutations; the searches are reproducible; the known-good configuration
(beta0 = 2 e_k) is seen; the certified value at the found point says what it bounds.
(Moved from test_thm1_prop2.py; the reconstructed step 3 is in test_thm1_step3.py.)"""
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from verify.checks import Case, Evidence, Profile, Reach
from verify.constants import load, values
from verify.engine import constrained, general
from verify.results import thm1, thm1_steps


# the steps' symbols, as SymPy makes them (a name and its assumptions make the symbol)
D, M, K = sp.symbols("d m k", nonnegative=True)


def constants(**overrides):
    c = values(load())
    c.update({k.replace("__", "."): Fraction(v) for k, v in overrides.items()})
    return c


def _check(check_id):
    return next(c for c in thm1.RESULT.checks if c.id == check_id)


def test_symbolic_steps_pass():
    symbolic = [c for c in thm1.RESULT.checks if c.evidence is Evidence.SYMBOLIC]
    assert {c.id for c in symbolic} == set(thm1.PROOF_ORDER)
    for check in symbolic:
        (case,) = check.cases(None, constants(), {})
        outcome = check.judge(case, constants())
        assert outcome.passed is True, (check.id, outcome.detail)


def test_insertion_count_is_m_plus_one():
    z = (1, 1, 2, 1)
    assert len(thm1_steps.insertion_words(z, 0)) == 5
    formula = thm1_steps.insertion_ratio_formula()
    assert thm1_steps.insertion_ratio(3, z, 0) == formula.subs({D: 3, M: 4})


def test_rho_bound_exact_threshold_and_mutation():
    check = _check("thm1.rho_bound")
    (case,) = check.cases(None, constants(), {})
    # the exact minimum over d >= 9 is (7/9)^8/256 ~ 1/1911.6: 1/2000 still holds, 1/1900 fails at d = 9
    assert check.judge(case, constants(thm1__c3="1/2000")).passed is True
    bad = check.judge(case, constants(thm1__c3="1/1900"))
    assert bad.passed is False and bad.values["smallest_failing_d"] == 9
    assert check.judge(case, constants(thm1__c3="0.6")).passed is False


def test_chain_fails_when_c3_raised():
    check = _check("thm1.chain")
    (case,) = check.cases(None, constants(), {})
    bad = check.judge(case, constants(thm1__c3="1/2000"))
    assert bad.passed is False
    assert bad.values["failing"] == "d = 9..37" and bad.values["smallest_failing_d"] == 9


def test_known_good_configuration_is_learnable_but_floor_stays():
    """beta0 = 2 e_k: the target s = k is learnable at large eta, so the max over s picks another
    target, whose floor stays above c3."""
    d, k, eta = 9, 0, 1e3
    beta0 = 2 * np.eye(d)[k]
    fs = thm1.FloorSearch(d)
    grads = fs.grads(beta0, list(range(d)))
    vals = fs.per_target(grads, eta)
    assert vals[k] < 1e-6
    F, s_max, low, s_min = thm1.floor_of(fs, grads, eta)
    assert s_min == k and s_max != k
    assert F >= float(constants()["thm1.c3"]) and F > 0.4
    # the structured search meets this configuration and still reports a floor above c3
    res = thm1.search_floor(d, 0, 0, 0, 0, 6, adversarial=False)
    assert res.extra["learnable"]["value"] < 1e-6 and res.value >= float(constants()["thm1.c3"])


def test_thm1_floor_passes_and_fails_when_c3_raised():
    check = _check("thm1.floor")
    case = Case("d=9 small", {"d": 9, "seed": 0, "random": 0, "starts": 0, "evals": 0,
                              "n_eta": 4, "dps": 15, "adversarial": False})
    ok = check.judge(case, constants())
    assert ok.passed is True and "1/6912" in ok.detail and "1/2080" in ok.detail
    bad = check.judge(case, constants(thm1__c3="0.6"))
    assert bad.passed is False and "COUNTEREXAMPLE" in bad.detail and "eta" in bad.detail


def test_compress_keeps_order_and_caps_gaps():
    a = np.array([0.0, -1.0, -500.0, -501.0])
    c = thm1.compress(a)
    assert list(np.argsort(c)) == list(np.argsort(a))
    assert np.allclose(np.diff(np.sort(c)), [1.0, thm1.GAP_CAP, 1.0])
    mp = thm1.compress_mp([0, -1, -500, -501])
    assert [float(x) for x in mp] == list(c)
    # capping a gap of 500 at 25 leaves min_beta L unchanged to float precision
    full = general.best_output_float(4, 0, np.array([0.0, -1.0, -60.0, -61.0]))[1]
    capped = general.best_output_float(4, 0, thm1.compress(np.array([0.0, -1.0, -60.0, -61.0])))[1]
    assert abs(full - capped) < 1e-9


def test_symmetric_reevaluation_matches_general_engine():
    """The four-scalar route (used from d = SYMMETRIC_FROM on) agrees with the general engine."""
    import mpmath

    d, s, eta = 9, 0, 10.0
    beta0 = 2 * np.eye(d)[0]
    sym, sym_err, step = thm1.reevaluate_symmetric(d, s, beta0, eta, 15)
    ev = general.evaluate(d, s, [0] * d, [repr(float(x)) for x in beta0], 15)
    raw = [-mpmath.mpf(repr(eta)) * g for g in ev.grad_alpha]
    gen = general.solve_output(d, s, thm1.compress_mp(raw), 15)
    assert abs(sym - gen.loss) < 1e-12 and sym_err < 1e-12 and step == {"capped": False}


def test_constrained_output_matches_a_direct_solve_and_mpmath():
    """The face solve equals minimising with beta_s pinned; float64 and mpmath agree."""
    d, s = 5, 1
    alpha = np.random.default_rng(3).normal(size=d)
    M, P = general.target_moments_float(d, alpha)
    value, beta = constrained.constrained_output_float(M, P[:, s], s, 3.0)
    assert beta[s] == 3.0  # the unconstrained minimiser has beta_s < 3 here: the face is active
    assert value > general.best_output_float(d, s, alpha)[1]
    assert value == pytest.approx(general.evaluate_float(d, s, alpha, beta).loss, abs=1e-12)
    for k in range(d):  # any feasible move along a coordinate raises the loss
        for step in (1e-3, -1e-3):
            moved = beta.copy()
            moved[k] += step
            if moved[s] >= 3.0:
                assert general.evaluate_float(d, s, alpha, moved).loss >= value - 1e-13
    mp_value, mp_err = constrained.constrained_output_mp(d, s, list(alpha), 3, 20)
    assert abs(float(mp_value) - value) < 1e-10 and mp_err < 1e-15


def test_thm1_long_mass_is_symbolic_without_point_fallback(monkeypatch):
    """0 < q(d-1)/d < 1 is proved for every d >= 3; if the proof fails the check does not pass
    (it used to fall back to d in {3, 9, 100, 10^6})."""
    r, proved = thm1_steps.series_ratio()
    assert proved and str(r) == "(d - 2)/d"
    check = _check("thm1.long_negative_mass")
    (case,) = check.cases(Profile.QUICK, constants(), {})
    assert check.judge(case, constants()).passed is True
    monkeypatch.setattr(thm1_steps, "series_ratio", lambda: (r, False))
    out = check.judge(case, constants())
    assert out.passed is None and "not proved" in out.detail


def test_output_family_holds_the_structured_outputs_and_its_search_never_raises_the_floor():
    d = 9
    for name, beta0 in thm1.structured_outputs(d):
        assert np.array_equal(beta0, thm1.output_family(d, np.asarray(thm1.FAMILY[name], float)))
    plain = thm1.search_floor(d, 0, 0, 0, 0, 4, adversarial=False)
    fam = thm1.search_floor(d, 0, 0, 0, 0, 4, adversarial=False, family_evals=12)
    assert fam.value <= plain.value and fam.effort["F_evaluations"] > plain.effort["F_evaluations"]


def test_floor_search_reproducible():
    a = thm1.search_floor(9, 3, 1, 1, 6, 3)
    b = thm1.search_floor(9, 3, 1, 1, 6, 3)
    assert a.value == b.value and a.extra["eta"] == b.extra["eta"] and np.array_equal(a.x, b.x)


def test_default_profile_searches_reach_d_50():
    """Issue 12.6: Theorem 1's adversarial beta0 search up to d = 50."""
    t1 = _check("thm1.floor").cases(Profile.DEFAULT, constants(), {})
    searched = [c.params["d"] for c in t1 if c.params["adversarial"] or c.params["family_evals"]]
    assert max(searched) == 50 and all(c.params["family_evals"] == 0 for c in t1 if c.params["d"] > 50)


def test_insertion_sets_are_disjoint_and_a_broken_enumeration_is_caught(monkeypatch):
    """Step 2: the enumeration also checks that the sets Z(z) of different z never meet; an
    insertion that drops a symbol of z (two z then share inserted words) turns the check red."""
    check = _check("thm1.insertion_ratio")
    (case,) = check.cases(None, constants(), {})
    assert "disjoint" in check.judge(case, constants()).detail
    monkeypatch.setattr(thm1_steps, "insertion_words",
                        lambda z, s: {z[:i] + (s,) + z[i + 1:] for i in range(len(z))} | {z + (s,)})
    assert check.judge(case, constants()).passed is False


def test_appearance_needs_the_power_to_decrease_in_m(monkeypatch):
    """Step 4's link m >= d/2 => (1 - 1/(d-1))^m <= (1 - 1/(d-1))^(d/2) needs 0 < 1 - 1/(d-1) < 1;
    the helper proves it and refuses a ratio outside (0, 1); if it cannot prove it, the check
    does not pass."""
    d = D
    assert thm1_steps.in_unit_interval(1 - 1 / (d - 1))
    assert not thm1_steps.in_unit_interval(1 + 1 / (d - 1)) and not thm1_steps.in_unit_interval(sp.Integer(0))
    check = _check("thm1.appearance")
    (case,) = check.cases(None, constants(), {})
    assert check.judge(case, constants()).passed is True
    monkeypatch.setattr(thm1_steps, "nonneg_poly", lambda *a: False)
    assert check.judge(case, constants()).passed is False


def test_large_output_is_symbolic_exact_at_d9_and_a_raised_constant_fails():
    """Issue 35 item 7: words of s only, probability 1/(d^2-2d+2), the slack
    k(32k+57)/(1040(k^2+16k+65)) with d = 9 + k: 1/2080 holds with equality at d = 9; any
    larger constant fails there, the smallest d."""
    check = _check("thm1.large_output")
    assert check.evidence is Evidence.SYMBOLIC and check.covers is Reach.RANGE
    (case,) = check.cases(None, constants(), {})
    ok = check.judge(case, constants())
    assert ok.passed is True and ok.margin == pytest.approx(1.0) and "1/(d^2-2d+2) [True]" in ok.detail
    k = K
    slack = thm1_steps.large_output_slack(sp.Rational(1, 2080))
    assert sp.simplify(slack - k * (32 * k + 57) / (1040 * (k**2 + 16 * k + 65))) == 0
    assert sp.simplify(thm1_steps.words_of_s_mass() * (D**2 - 2 * D + 2)) == 1
    for raised in ("1/2079", "1/100"):
        bad = check.judge(case, constants(thm1__c_large_output=raised))
        assert bad.passed is False and "at d = 9 (smallest" in bad.detail


def test_large_output_exhibit_sits_above_the_proved_bound():
    check = _check("thm1.large_output_tightness")
    assert check.evidence is Evidence.EXHIBIT
    case = Case("d=9", {"d": 9, "seed": 0, "random": 0, "n_eta": 4, "evals": 0, "dps": 15})
    out = check.judge(case, constants())
    assert out.passed is None and out.values["ratio"] > 1 and out.values["proved"] == pytest.approx(1 / 2080)


def test_certified_value_says_it_is_no_floor_and_names_F0_at_a_zero_step():
    """Issue 35 item 3: the ball at thm1.floor's worst point is a value at a searched point (an
    upper bound of the infimum); at beta0 = 0 the step is 0 and the ball is Proposition 3's F(0)."""
    check = _check("thm1.certified_value")
    assert check.covers is Reach.POINTS and "never a floor" in check.claim
    case = _check("thm1.floor").cases(Profile.QUICK, constants(), {})[0]
    small = {"random": 0, "starts": 0, "evals": 0, "n_eta": 2, "adversarial": False}
    out = check.judge(Case(case.label, {**case.params, **small}), constants())
    assert out.passed is True and "never a floor" in out.detail
    assert "Proposition 3's F(0)" in out.detail and "certified floor" not in out.detail


def test_the_old_id_of_the_certified_value_still_finds_it():
    from verify.results import RENAMED, current_ids, select

    assert RENAMED["thm1.certified_floor"] == "thm1.certified_value"
    assert current_ids(["thm1.certified_floor"]) == ["thm1.certified_value"]
    assert [r.id for r in select(["thm1.certified_floor"])] == ["thm1"]
