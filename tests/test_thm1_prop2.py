"""Theorem 1 and Proposition 2: the symbolic steps pass, mutated constants fail, searches are
reproducible, and the known-good configuration of Theorem 1 (beta0 = 2 e_k) is seen."""
from fractions import Fraction

import numpy as np
import pytest

from verify.checks import Case, Evidence, Profile
from verify.constants import load, values
from verify.engine import constrained, general
from verify.results import prop2, thm1, thm1_steps


def constants(**overrides):
    c = values(load())
    c.update({k.replace("__", "."): Fraction(v) for k, v in overrides.items()})
    return c


def _check(result, check_id):
    return next(c for c in result.checks if c.id == check_id)


@pytest.mark.parametrize("result", [thm1.RESULT, prop2.RESULT])
def test_symbolic_steps_pass(result):
    for check in result.checks:
        if check.evidence is Evidence.SYMBOLIC:
            (case,) = check.cases(None, constants(), {})
            outcome = check.judge(case, constants())
            assert outcome.passed is True, (check.id, outcome.detail)


def test_insertion_count_is_m_plus_one():
    z = (1, 1, 2, 1)
    assert len(thm1_steps.insertion_words(z, 0)) == 5
    assert thm1_steps.insertion_ratio(3, z, 0) == thm1_steps.insertion_ratio_formula().subs({thm1_steps._d: 3, thm1_steps._m: 4})


def test_rho_bound_exact_threshold_and_mutation():
    check = _check(thm1.RESULT, "thm1.rho_bound")
    (case,) = check.cases(None, constants(), {})
    # the exact minimum over d >= 9 is (7/9)^8/256 ~ 1/1911.6: 1/2000 still holds, 1/1900 fails at d = 9
    assert check.judge(case, constants(thm1__c3="1/2000")).passed is True
    bad = check.judge(case, constants(thm1__c3="1/1900"))
    assert bad.passed is False and "smallest d = 9" in bad.detail
    assert check.judge(case, constants(thm1__c3="0.6")).passed is False


def test_chain_fails_when_c3_raised():
    check = _check(thm1.RESULT, "thm1.chain")
    (case,) = check.cases(None, constants(), {})
    bad = check.judge(case, constants(thm1__c3="1/2000"))
    assert bad.passed is False
    assert "d = 9..37" in bad.detail and "smallest d = 9" in bad.detail


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


def test_floor_search_reproducible():
    a = thm1.search_floor(9, 3, 1, 1, 6, 3)
    b = thm1.search_floor(9, 3, 1, 1, 6, 3)
    assert a.value == b.value and a.extra["eta"] == b.extra["eta"] and np.array_equal(a.x, b.x)
    p = prop2.search_floor(3, 5, 1, 1, 20, 1, 4)
    q = prop2.search_floor(3, 5, 1, 1, 20, 1, 4)
    assert p.value == q.value and np.array_equal(p.x, q.x)


def test_thm1_floor_passes_and_fails_when_c3_raised():
    check = _check(thm1.RESULT, "thm1.floor")
    case = Case("d=9 small", {"d": 9, "seed": 0, "random": 0, "starts": 0, "evals": 0,
                              "n_eta": 4, "dps": 15, "adversarial": False})
    ok = check.judge(case, constants())
    assert ok.passed is True and "1/6912" in ok.detail and "1/2080" in ok.detail
    bad = check.judge(case, constants(thm1__c3="0.6"))
    assert bad.passed is False and "COUNTEREXAMPLE" in bad.detail and "eta" in bad.detail


def test_prop2_floor_passes_and_fails_when_c1_raised():
    check = _check(prop2.RESULT, "prop2.floor")
    case = Case("d=3 small", {"d": 3, "seed": 0, "random": 0, "starts": 1, "steps": 25,
                              "nm_starts": 0, "nm_evals": 0, "dps": 15})
    assert check.judge(case, constants()).passed is True
    bad = check.judge(case, constants(prop2__c1="0.6"))
    assert bad.passed is False and "COUNTEREXAMPLE" in bad.detail and "beta~" in bad.detail


def test_prop2_large_output_search_confirms_quarter():
    check = _check(prop2.RESULT, "prop2.large_output_search")
    for case in check.cases(Profile.QUICK, constants(), {})[:2]:
        out = check.judge(case, constants())
        assert out.passed is True, out.detail


def test_prop2_inner_search_finds_learnable_target():
    """Sanity of the inner infimum: with beta~ = 2 e_s, attention on s learns s (Proposition 1)."""
    val, alpha, _ = prop2.inf_attention(3, 0, [2.0, 0.0, 0.0], 2, 80, 0)
    assert val < 0.05
    loss = prop2.reevaluate(3, 0, alpha, [2.0, 0.0, 0.0], 15)
    assert abs(float(loss.value) - val) < 1e-9


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


def test_large_output_passes_and_fails_when_the_constant_is_raised():
    case = Case("d=9", {"d": 9, "seed": 0, "random": 1, "n_eta": 8, "evals": 0, "dps": 15})
    ok = thm1._judge_large(case, constants())
    assert ok.passed is True and ok.values["floor"] > 1 / 2080
    bad = thm1._judge_large(case, constants(thm1__c_large_output="1/100"))
    assert bad.passed is False and "COUNTEREXAMPLE" in bad.detail


def test_prop2_large_output_is_a_proof_for_every_d_and_a_weaker_hypothesis_fails(monkeypatch):
    """The sign of f is decided for a symbolic d (not d = 2..8); with min beta~ >= 1/2 instead of
    1 the same argument cannot conclude, and the check turns red."""
    import sympy as sp

    f, ok = prop2.prediction_nonnegative(1)
    assert ok and any(isinstance(a, sp.Symbol) and a.name == "d" for a in f.free_symbols)
    assert prop2.prediction_nonnegative(sp.Rational(1, 2))[1] is False
    check = _check(prop2.RESULT, "prop2.large_output")
    (case,) = check.cases(Profile.QUICK, constants(), {})
    assert check.judge(case, constants()).passed is True
    weak = prop2.prediction_nonnegative
    monkeypatch.setattr(prop2, "prediction_nonnegative", lambda t=1: weak(sp.Rational(1, 2)))
    assert check.judge(case, constants()).passed is False


def test_thm1_long_mass_is_symbolic_without_point_fallback(monkeypatch):
    """0 < q(d-1)/d < 1 is proved for every d >= 3; if the proof fails the check does not pass
    (it used to fall back to d in {3, 9, 100, 10^6})."""
    r, proved = thm1_steps.series_ratio()
    assert proved and str(r) == "(d - 2)/d"
    check = _check(thm1.RESULT, "thm1.long_negative_mass")
    (case,) = check.cases(Profile.QUICK, constants(), {})
    assert check.judge(case, constants()).passed is True
    monkeypatch.setattr(thm1_steps, "series_ratio", lambda: (r, False))
    out = check.judge(case, constants())
    assert out.passed is None and "not proved" in out.detail


def test_default_profile_searches_reach_d_50():
    """Issue 12.6: Proposition 2 floors and Theorem 1's adversarial beta0 search up to d = 50."""
    p2 = _check(prop2.RESULT, "prop2.floor").cases(Profile.DEFAULT, constants(), {})
    assert max(c.params["d"] for c in p2) == 50
    t1 = _check(thm1.RESULT, "thm1.floor").cases(Profile.DEFAULT, constants(), {})
    searched = [c.params["d"] for c in t1 if c.params["adversarial"] or c.params["family_evals"]]
    assert max(searched) == 50 and all(c.params["family_evals"] == 0 for c in t1 if c.params["d"] > 50)


def test_output_family_holds_the_structured_outputs_and_its_search_never_raises_the_floor():
    d = 9
    for name, beta0 in thm1.structured_outputs(d):
        assert np.array_equal(beta0, thm1.output_family(d, np.asarray(thm1.FAMILY[name], float)))
    plain = thm1.search_floor(d, 0, 0, 0, 0, 4, adversarial=False)
    fam = thm1.search_floor(d, 0, 0, 0, 0, 4, adversarial=False, family_evals=12)
    assert fam.value <= plain.value and fam.effort["F_evaluations"] > plain.effort["F_evaluations"]
