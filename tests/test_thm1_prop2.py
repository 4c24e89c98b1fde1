"""Proposition 2: the symbolic steps pass, mutated constants fail, searches are reproducible.
(Theorem 1's tests are in test_thm1_steps.py and test_thm1_step3.py.)"""
from fractions import Fraction

import numpy as np

from verify.checks import Case, Evidence, Profile
from verify.constants import load, values
from verify.results import prop2


def constants(**overrides):
    c = values(load())
    c.update({k.replace("__", "."): Fraction(v) for k, v in overrides.items()})
    return c


def _check(result, check_id):
    return next(c for c in result.checks if c.id == check_id)


def test_symbolic_steps_pass():
    for check in prop2.RESULT.checks:
        if check.evidence is Evidence.SYMBOLIC:
            (case,) = check.cases(None, constants(), {})
            outcome = check.judge(case, constants())
            assert outcome.passed is True, (check.id, outcome.detail)


def test_search_reproducible():
    p = prop2.search_floor(3, 5, 1, 1, 20, 1, 4)
    q = prop2.search_floor(3, 5, 1, 1, 20, 1, 4)
    assert p.value == q.value and np.array_equal(p.x, q.x)


def test_default_profile_searches_reach_d_50():
    """Issue 12.6: Proposition 2 floors up to d = 50."""
    p2 = _check(prop2.RESULT, "prop2.floor").cases(Profile.DEFAULT, constants(), {})
    assert max(c.params["d"] for c in p2) == 50


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
