"""CI regression: the quick profile of `verify all` passes, and its report is well formed."""
import json

from verify.cli import main


def test_quick_profile_passes(capsys, tmp_path, monkeypatch):
    from verify.cli import run as cli

    monkeypatch.setattr(cli, "REPORT_PATH", tmp_path / "REPORT.md")
    code = main(["all", "--profile", "quick", "--workers", "2", "--json", str(tmp_path / "r.json"),
                 "--output", str(tmp_path / "REPORT.md")])  # quick writes no report unless asked
    out, _ = capsys.readouterr()
    data = json.loads((tmp_path / "r.json").read_text())
    assert code == 0, data["failures"]
    assert data["exit_code"] == 0
    statuses = {row["check"]: row["status"] for row in data["checks"]}
    assert statuses["prop1.bound"] == "pass"
    assert statuses["thm2.beta1_range"] == "discrepancy"  # documented: d <= 4 at eta1 = sqrt(d)
    report = (tmp_path / "REPORT.md").read_text()
    assert "## Discrepancies" in report and "thm2.beta1_range" in report
    assert data["not_checked_yet"] == []


def test_a_result_without_checks_is_never_reported_as_passed():
    from verify.checks import Profile, Result
    from verify.constants import load
    from verify.report import json_report, markdown

    bare = Result("x", "Result X", "a claim", "none", ())
    text = markdown([], [bare], load(), Profile.QUICK)
    assert "**Not checked yet.**" in text and "some checks FAIL" not in text
    assert '"not_checked_yet": [\n    "x"\n  ]' in json_report([], [bare], load(), Profile.QUICK)


def test_exhibit_is_drawn_from_its_check_outcomes():
    from verify.checks import Check, Evidence, Exhibit, Outcome, Profile, Result
    from verify.constants import load
    from verify.report import exhibit_tables, json_report, markdown
    from verify.run.runner import CheckReport

    check = Check("x.c", "step", "claim", Evidence.NUMERIC, lambda *a: [], lambda *a: None)
    result = Result("x", "Result X", "a claim", "none", (), checks=(check,),
                    exhibits=(Exhibit("x.c", "Side by side", "A caption.", (("d", "d"), ("v", "value"))),))
    rep = CheckReport(result, check, [Outcome("d=3", True, 2.0, Evidence.NUMERIC, "", values={"d": 3, "v": 0.123456}),
                                      Outcome("d=5", True, 2.0, Evidence.NUMERIC, "", values={"d": 5})])
    text = markdown([rep], [result], load(), Profile.QUICK)
    assert rep.status == "pass" and rep.missing == 0
    assert "### Side by side (`x.c`)" in text
    assert "| d | value |" in text and "| 3 | 0.1235 |" in text and "| 5 | - |" in text
    data = json.loads(json_report([rep], [result], load(), Profile.QUICK))
    assert data["exhibits"][0]["rows"] == [["3", "0.1235"], ["5", "-"]]
    assert data["checks"][0]["outcomes"][0]["values"] == {"d": 3, "v": 0.123456}
    assert len(exhibit_tables([result], [rep])) == 1
    assert exhibit_tables([result], []) == []  # the check did not run: no exhibit


def test_default_report_links_the_recorded_full_report(tmp_path, monkeypatch):
    from verify.cli import run as cli
    from verify.checks import Profile
    from verify.constants import load
    from verify.report import markdown

    monkeypatch.setattr(cli, "REPORT_PATH", tmp_path / "REPORT.md")
    assert cli._see_also(tmp_path / "REPORT.md", Profile.DEFAULT) == []  # no full report yet
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "full.md").write_text("# Theorem report\n")
    lines = cli._see_also(tmp_path / "REPORT.md", Profile.DEFAULT)
    assert len(lines) == 1 and "[reports/full.md](reports/full.md)" in lines[0]
    assert cli._see_also(tmp_path / "REPORT.md", Profile.FULL) == []
    assert cli._see_also(tmp_path / "other.md", Profile.DEFAULT) == []
    text = markdown([], [], load(), Profile.DEFAULT, see_also=lines)
    assert lines[0] in text.split("## Discrepancies")[0]
