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
