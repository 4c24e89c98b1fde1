"""The evidence ledger: exhibits and vacuous cases are never passes, discrepancies are scoped to
their cases, calibration cases are counted apart, and the helpers name the error's kind."""
from verify.checks import (Calibration, Case, Check, Discrepancy, Evidence, EVIDENCE_DEFINITIONS,
                           Outcome, Profile, Result, legend)
from verify.constants import load
from verify.engine.estimate import ErrorKind, Estimate
from verify.report import exit_code, markdown
from verify.results.common import difference_outcome, ratio_outcome
from verify.run.runner import CheckReport

PARAMS = {"d=3": {"d": 3}, "d=4": {"d": 4}, "d=10": {"d": 10}}


def report(outcomes, discrepancy=None, calibration=None):
    check = Check("x.c", "step", "claim", Evidence.NUMERIC, lambda *a: [], lambda *a: None)
    cals = calibration if isinstance(calibration, tuple) else (calibration,) if calibration else ()
    result = Result("x", "Result X", "a claim", "none", (), checks=(check,),
                    discrepancies={"x.c": discrepancy} if discrepancy else {}, calibrations=cals)
    return CheckReport(result, check, list(outcomes), params=dict(PARAMS))


def out(case, passed, evidence=Evidence.NUMERIC, **kw):
    return Outcome(case, passed, 1.0, evidence, "detail", **kw)


SMALL_D = Discrepancy("fails for small d.", "d <= 4", lambda p: p["d"] <= 4)


def test_every_evidence_kind_has_a_legend_line():
    assert set(EVIDENCE_DEFINITIONS) == set(Evidence)
    assert "ESTIMATE" in legend() and "never counted as a pass" in legend()


def test_failure_inside_the_scope_is_a_discrepancy():
    rep = report([out("d=3", False), out("d=4", False), out("d=10", True)], SMALL_D)
    assert rep.status == "discrepancy" and exit_code([rep]) == 0


def test_failure_outside_the_scope_is_a_fail():
    rep = report([out("d=3", False), out("d=4", False), out("d=10", False)], SMALL_D)
    assert rep.status == "FAIL" and exit_code([rep]) == 1
    assert "FAILS OUTSIDE ITS SCOPE at d=10" in markdown([rep], [rep.result], load(), Profile.QUICK)


def test_a_scoped_case_that_passes_is_not_reproduced():
    rep = report([out("d=3", False), out("d=4", True), out("d=10", True)], SMALL_D)
    assert rep.status == "discrepancy not reproduced" and exit_code([rep]) == 1
    assert "NOT REPRODUCED at d=4" in markdown([rep], [rep.result], load(), Profile.QUICK)


def test_exhibits_and_vacuous_cases_are_not_passes():
    rep = report([out("d=3", None, Evidence.EXHIBIT), out("d=4", None, Evidence.EXHIBIT)])
    assert rep.status == "exhibit" and rep.passed == [] and exit_code([rep]) == 0
    rep = report([out("d=3", None, Evidence.STATISTICAL, vacuous=True)])
    assert rep.status == "vacuous" and rep.passed == []
    rep = report([out("d=3", None, Evidence.STATISTICAL, vacuous=True), out("d=10", True)])
    assert rep.status == "pass" and len(rep.passed) == 1


def test_headline_counts_held_out_cases_only():
    cal = Calibration("x.C", ("x.c",), "d in {3, 4}", lambda p: p["d"] <= 4)
    rep = report([out("d=3", True), out("d=4", True), out("d=10", True)], calibration=cal)
    assert len(rep.passed) == 1 and rep.in_sample_passed == (2, 2)
    text = markdown([rep], [rep.result], load(), Profile.QUICK)
    assert "| 1/1 held-out, +2/2 in-sample |" in text and "| `x.c` | `x.C` | d in {3, 4} | 2/2 | 1/1 |" in text


def test_two_constants_measured_on_one_check_each_show_their_cases():
    """A case is held out only when no constant of the check was calibrated on it; the table
    shows each constant's in-sample cases."""
    c4 = Calibration("x.C", ("x.c",), "d = 3", lambda p: p["d"] == 3)
    heads = Calibration("x.H", ("x.c",), "d <= 4", lambda p: p["d"] <= 4)
    rep = report([out("d=3", True), out("d=4", True), out("d=10", True)], calibration=(c4, heads))
    assert len(rep.passed) == 1 and rep.in_sample_passed == (2, 2)
    assert rep.calibration_passed(c4) == (1, 1) and rep.calibration_passed(heads) == (2, 2)
    text = markdown([rep], [rep.result], load(), Profile.QUICK)
    assert "| `x.c` | `x.C` | d = 3 | 1/1 | 1/1 |" in text and "| `x.c` | `x.H` | d <= 4 | 2/2 | 1/1 |" in text


def test_outcome_helpers_name_the_kind_of_error():
    case = Case("c", {})
    assert "error estimate" in ratio_outcome(case, Estimate(1, 0.1, ErrorKind.ESTIMATED), 2).detail
    assert "proven error bound" in ratio_outcome(case, Estimate(1, 0.1, ErrorKind.PROVEN), 2).detail
    assert "enclosure radius" in ratio_outcome(case, Estimate(1, 0.1, ErrorKind.ENCLOSURE), 2).detail
    assert ratio_outcome(case, Estimate(1.95, 0.1), 2).passed is None
    assert difference_outcome(case, Estimate(0.05, 0.1), Evidence.NUMERIC, "s").passed is None
    assert difference_outcome(case, 0.05, Evidence.NUMERIC, "s").passed is True


def test_ledger_counts_held_out_cases_and_sets_exhibits_apart():
    from verify.report import ledger, ledger_text

    cal = Calibration("x.C", ("x.c",), "d <= 4", lambda p: p["d"] <= 4)
    rep = report([out("d=3", True), out("d=4", None, Evidence.EXHIBIT), out("d=10", True)],
                 calibration=cal)
    led = ledger([rep])
    assert (led["held_out_cases"], led["held_out_passed"], led["in_sample_cases"],
            led["exhibit_rows"]) == (1, 1, 1, 1)
    assert led["checks_by_evidence"] == {"numeric": 1}
    assert "1 of 1 held-out cases pass" in ledger_text([rep])


def test_a_check_with_no_held_out_case_is_in_sample_only():
    """Every counted case in the calibration set: not a pass (none counted), not a failure of
    the run; a failing in-sample case still fails it (issue 26, item 4)."""
    from verify.report.rows import ledger, overall, passed_text, rows

    cal = Calibration("x.C", ("x.c",), "d <= 4", lambda p: p["d"] <= 4)
    rep = report([out("d=3", True), out("d=4", True)], calibration=cal)
    assert rep.status == "in-sample only" and rep.passed == [] and exit_code([rep]) == 0
    assert passed_text(rows([rep])[0]) == "0/0 held-out, +2/2 in-sample"
    assert ledger([rep])["held_out_cases"] == 0 and "1 check in-sample only" in overall([rep])
    rep = report([out("d=3", True), out("d=4", False)], calibration=cal)
    assert rep.status == "FAIL" and exit_code([rep]) == 1
    rep = report([out("d=3", True), out("d=10", True)], calibration=cal)
    assert rep.status == "pass" and len(rep.passed) == 1


def test_a_configuration_check_fails_the_run_but_never_counts_as_a_pass():
    from verify.report.rows import ledger, passed_text, rows

    rep = report([out("d=3", True, Evidence.CONFIGURATION)])
    assert rep.status == "configuration ok" and rep.passed == [] and exit_code([rep]) == 0
    assert ledger([rep])["held_out_cases"] == 0 and passed_text(rows([rep])[0]) == "-"
    rep = report([out("d=3", False, Evidence.CONFIGURATION)])
    assert rep.status == "FAIL" and exit_code([rep]) == 1
