"""Each check can fail: a mutated constant or a broken hypothesis turns it red."""
from fractions import Fraction

from verify.checks import Case
from verify.constants import load, values
from verify.results import lemma_symmetry, prop1


def constants(**overrides):
    c = values(load())
    c.update({k.replace("__", "."): Fraction(v) for k, v in overrides.items()})
    return c


def test_prop1_general_fails_with_too_small_gap():
    case = Case("d=5, eps=0.5", {"d": 5, "eps": 0.5, "seed": 0})
    assert prop1._judge_general(case, constants()).passed is True
    assert prop1._judge_general(case, constants(prop1__attention_constant="1/1000")).passed is False


def test_symmetry_lemma_fails_on_asymmetric_start():
    for judge in (lemma_symmetry._judge, lemma_symmetry._judge_enumeration):
        ok = judge(Case("ok", {"d": 3, "seed": 1, "perturb": 0}), constants())
        broken = judge(Case("broken", {"d": 3, "seed": 1, "perturb": 0.3}), constants())
        assert ok.passed is True and broken.passed is False


def test_prop1_long_contribution_and_short_loss_are_symbolic():
    for check in prop1.RESULT.checks:
        if check.evidence.value == "symbolic":
            (case,) = check.cases(None, constants(), {})
            assert check.judge(case, constants()).passed is True


def test_thm2_tightness_reports_a_schedule_that_does_not_reach_eps():
    """Shrunk step sizes: the theorem's own T and eta2 no longer reach eps; the tightness checks
    say so (a failure, not a sentinel value such as -1 or inf turned into a margin)."""
    from verify.results import thm2

    case = Case("d=10, eps=0.01", {"d": 10, "eps": 0.01})
    ok = constants()
    assert thm2._judge_tight_T(case, ok).passed is True
    assert thm2._judge_tight_eta2(case, ok).passed is True
    broken = constants(thm2__T_factor="1/1000")
    assert thm2.smallest_T(thm2.plan_for(case, broken), 0.01) is None
    out = thm2._judge_tight_T(case, broken)
    assert out.passed is False and "does not reach" in out.detail
    weak = constants(thm2__C="1/1000000")
    assert thm2.smallest_eta2(10, 0.01, weak) is None
    out = thm2._judge_tight_eta2(case, weak)
    assert out.passed is False and "does not reach" in out.detail


def test_contrast_separation_fails_when_eps_is_above_a_floor():
    """At eps = 1/2 the three-phase plan still reaches eps, but the floors found for the failing
    plans (~0.19-0.5 at d = 9) are no longer above it: the separation must fail."""
    from verify.checks import Profile
    from verify.results import contrast

    (case,) = contrast._cases(Profile.QUICK, constants(contrast__eps="1/2"), {})
    out = contrast._judge(case, constants(contrast__eps="1/2"))
    assert out.passed is False and "NOT SEPARATED" in out.detail
    assert out.values["three_phase"] <= 0.5
    assert min(out.values[k] for k, *_ in contrast.FLOORS) <= 0.5
