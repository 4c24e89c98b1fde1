"""Every calibration set's cases are counted apart wherever they occur (issue 26, item 4): the
values a constant was set from, a symbolic statement resting on that value, and a certified box
containing a calibration case are in-sample; a check without a held-out case is "in-sample
only", never a pass."""
from fractions import Fraction

from verify import results
from verify.checks import Case, Evidence, Outcome, Profile
from verify.constants import load, values
from verify.results import by_id
from verify.run.runner import CheckReport


def constants(**overrides):
    c = values(load())
    c.update({k.replace("__", "."): Fraction(v) for k, v in overrides.items()})
    return c


def _check(check_id):
    result = by_id(check_id.split(".")[0])
    return result, next(c for c in result.checks if c.id == check_id)


def _report(check_id, profile, judge=None):
    """The check's report on the profile's cases, every case passing (``judge`` may say
    otherwise), without running anything."""
    result, check = _check(check_id)
    cases = check.cases(profile, constants(), {})
    outs = [judge(c) if judge else Outcome(c.label, True, 1.0, check.evidence, "")
            for c in cases]
    return CheckReport(result, check, outs, params={c.label: c.params for c in cases})


def test_prop3_uniform_values_at_d3_are_in_sample_but_the_symbolic_floor_is_a_proof():
    """c2 = 1/10 was set from the d = 3 floor 1/2 - 1/(4 ln 2): the numeric value at d = 3 counts
    apart; prop3.uniform_symbolic proves that bound for every d, and a proof over a range holds at
    a calibration case as anywhere: it counts (issue 38), and its row names the calibration."""
    from verify.report.summary import evidence_phrase

    rep = _report("prop3.uniform_symbolic", Profile.DEFAULT)
    assert rep.status == "pass" and len(rep.passed) == 1 and rep.in_sample_passed == (0, 0)
    assert "holds prop3.c2's calibration cases" in evidence_phrase(rep)
    rep = _report("prop3.uniform", Profile.DEFAULT)
    assert rep.in_sample_passed == (1, 1) and len(rep.passed) == len(rep.outcomes) - 1
    assert _report("prop3.uniform", Profile.QUICK).status == "in-sample only"  # d = 3 only


def test_cor1_sample_sweep_without_a_held_out_case_is_in_sample_only():
    result, check = _check("cor1.sample_sweep")

    def judge(case):  # the rows below C are exhibits, the others claims
        claim = case.params["factor"] >= 2
        return Outcome(case.label, True if claim else None, 1.0,
                       Evidence.STATISTICAL if claim else Evidence.EXHIBIT, "")
    rep = _report("cor1.sample_sweep", Profile.DEFAULT, judge)
    assert rep.counted and not rep.held_out and rep.status == "in-sample only"
    assert _report("cor1.sample_sweep", Profile.QUICK, judge).status == "pass"  # eps = 0.5


def test_a_certified_box_containing_calibration_cases_is_in_sample():
    """The default profile's whole boxes contain thm2.C's (d = 3..8) and cor1.C's calibration
    cases: not held out for them; the quick thm2 box (d = 10) holds none."""
    from verify.results import cor1_samples, thm2

    from verify.report.summary import evidence_phrase

    whole = _report("thm2.certified_box", Profile.DEFAULT)  # a proof: it counts, and says so
    assert whole.status == "pass" and len(whole.passed) == len(whole.outcomes)
    assert [o for o in whole.counted if whole.in_sample(o)]  # the box with d = 3..8
    assert "holds thm2.C's calibration cases" in evidence_phrase(whole)
    assert _report("thm2.certified_box", Profile.QUICK).status == "pass"
    cor1 = _report("cor1.certified_box", Profile.DEFAULT)  # the whole box, and the eps tail
    assert cor1.in_sample_passed == (0, 0) and len(cor1.passed) == len(cor1.outcomes)
    inside = [o.case for o in cor1.counted if cor1.in_sample(o)]
    assert inside == [c.label for c in _check("cor1.certified_box")[1].cases(Profile.DEFAULT, constants(), {})
                      if 1e-6 < c.params["eps_hi"] <= 0.99]  # the tail (eps <= 1e-6) and the top
    # range (eps >= 0.99) hold none of cor1.C's cases
    assert "1 of its 3 ranges hold cor1.C's calibration cases" in evidence_phrase(cor1)
    assert _report("prop1.certified_box", Profile.DEFAULT).status == "pass"  # no measured constant
    assert thm2.box_calibration({"d_lo": 3, "d_hi": 1e9}) == (3, 8)
    assert thm2.box_calibration({"d_lo": 8.5, "d_hi": 1e9}) is None
    inside = cor1_samples.box_calibration({"d_lo": 10, "d_hi": 11, "eps_lo": 0.1, "eps_hi": 0.12})
    assert inside == [(10, 0.1)]


def test_the_box_outcome_names_the_calibration_cases_it_contains(monkeypatch):
    from verify.certify import outcomes

    thm2_box = results.check("thm2.certified_box").judge
    plain = Outcome("box", True, 1e-3, Evidence.CERTIFIED, "12 leaves", margin_kind="difference")
    monkeypatch.setattr(outcomes, "judge_certified", lambda group, case, c: plain)
    box = Case("b", {"d_lo": 3, "d_hi": 1e9, "eps_lo": 1e-6, "eps_hi": 0.99, "boxes": 10})
    text = thm2_box(box, constants()).detail
    assert "contains thm2.C's calibration cases (the boundary schedule at d = 3..8" in text
    text = results.check("cor1.certified_box").judge(box, constants()).detail
    assert "contains 14 of cor1.C's calibration cases" in text
    far = Case("b", {"d_lo": 10, "d_hi": 10.05, "eps_lo": 0.1, "eps_hi": 0.1005, "boxes": 10})
    assert "holds none of thm2.C's calibration cases" in thm2_box(far, constants()).detail


def test_prop4_head_factor_counts_the_certified_floor_at_d4_apart():
    rep = _report("prop4.certified_floor", Profile.DEFAULT)
    result, check = _check("prop4.certified_floor")
    assert {c.constant for c in result.calibrations_for(check.id)} == {"prop4.c4", "prop4.head_factor"}
    assert rep.in_sample_passed == (sum(1 for p in rep.params.values() if p["d"] == 4),) * 2
