"""CI regression: the quick profile of `verify all` passes, and its report is well formed."""
import json

from verify.cli import main


def test_quick_profile_passes(capsys, tmp_path, monkeypatch):
    import verify.cli as cli

    monkeypatch.setattr(cli, "REPORT_PATH", tmp_path / "REPORT.md")
    code = main(["all", "--profile", "quick", "--workers", "2", "--json", str(tmp_path / "r.json")])
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
