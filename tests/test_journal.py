"""The run journal: outcomes survive a stopped run, are reused on resume, and are never mixed
across runs with other settings."""
import json

import pytest

from verify.checks import Evidence, Outcome
from verify.cli import main
from verify.results import by_id, select
from verify.run.journal import (Journal, JournalError, Timing, code_fingerprint,
                            outcome_from_record, outcome_record, run_key)

KEY = run_key("quick", {"prop3.c2": "1/10"}, {})


def test_record_round_trip_keeps_every_field():
    outcome = Outcome("d=3", None, float("inf"), Evidence.SEARCH, "detail", "difference",
                      {"floor": 0.25, "worst": "s=2"})
    where, back, timing = outcome_from_record(outcome_record("prop3.floor", "d=3", outcome, 1.5))
    assert where == ("prop3.floor", "d=3") and back == outcome and timing == Timing(1.5, None)
    _, _, timing = outcome_from_record(outcome_record("prop3.floor", "d=3", outcome,
                                                      Timing(1.5, 1.25)))
    assert timing == Timing(1.5, 1.25)


def test_a_run_journals_each_cases_cpu_time(tmp_path):
    """The runner records the CPU time of the process that judged each case beside its wall
    time, and the JSON report sums both per check under ``timings``."""
    journal, report = tmp_path / "j.jsonl", tmp_path / "r.json"
    assert main(["check", "prop3.floor", "--profile", "quick", "--workers", "1",
                 "--journal", str(journal), "--json", str(report)]) == 0
    records = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    assert records and all(r["cpu_seconds"] > 0 for r in records)
    timings = json.loads(report.read_text())["timings"]
    assert timings["cpu_seconds"]["prop3.floor"] == pytest.approx(
        sum(r["cpu_seconds"] for r in records), abs=0.01)


def test_a_case_journaled_without_cpu_time_makes_the_checks_cpu_time_unknown(tmp_path):
    """A record from before the runner measured CPU time resumes, and its check's CPU time is
    reported as unknown (null), not as a sum that silently counts it as 0."""
    journal, report = tmp_path / "j.jsonl", tmp_path / "r.json"
    argv = ["check", "prop3.uniform", "--profile", "quick", "--workers", "1",
            "--journal", str(journal), "--json", str(report)]
    assert main(argv) == 0
    lines = journal.read_text().splitlines()
    record = json.loads(lines[1])
    del record["cpu_seconds"]  # as an older runner wrote it
    journal.write_text(lines[0] + "\n" + json.dumps(record) + "\n")
    assert main(argv) == 0
    assert json.loads(report.read_text())["timings"]["cpu_seconds"]["prop3.uniform"] is None


def test_resume_reads_records_and_drops_a_cut_last_line(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path, KEY)
    journal.record("prop3.uniform", "d=3", Outcome("d=3", True, 2.0, Evidence.NUMERIC), 0.1)
    with path.open("a") as handle:
        handle.write('{"check": "prop3.unif')  # the run was stopped mid-write
    resumed = Journal(path, KEY)
    assert set(resumed.done) == {("prop3.uniform", "d=3")}
    resumed.record("prop3.floor", "d=4", Outcome("d=4", False, 0.5, Evidence.SEARCH), 0.2)
    assert set(Journal(path, KEY).done) == {("prop3.uniform", "d=3"), ("prop3.floor", "d=4")}


def test_other_settings_or_garbage_are_refused(tmp_path):
    path = tmp_path / "j.jsonl"
    Journal(path, KEY)
    with pytest.raises(JournalError, match="another run \\(profile quick, not full\\)"):
        Journal(path, run_key("full", {"prop3.c2": "1/10"}, {}))
    with pytest.raises(JournalError, match="another run \\(constants prop3.c2 = 1/10\\)"):
        Journal(path, run_key("quick", {"prop3.c2": "1/5"}, {}))
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(JournalError, match="garbage.jsonl is not a verify journal"):
        Journal(garbage, KEY)
    with pytest.raises(JournalError, match="is a directory"):
        Journal(tmp_path, KEY)
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    with pytest.raises(JournalError, match="not a verify journal"):
        Journal(other, KEY)


def test_cli_takes_finished_cases_from_the_journal(capsys, tmp_path):
    journal, report = tmp_path / "j.jsonl", tmp_path / "r.json"
    assert main(["check", "prop3.uniform", "--profile", "quick", "--journal", str(journal),
                 "--json", str(report)]) == 0
    first = json.loads(report.read_text())
    lines = journal.read_text().splitlines()
    assert len(lines) == 2  # the key and the one case
    # Plant a different verdict for that case: a resumed run must take it, not recompute.
    record = json.loads(lines[1])
    record["outcome"].update(passed=False, detail="planted in the journal")
    journal.write_text(lines[0] + "\n" + json.dumps(record) + "\n")
    assert main(["check", "prop3.uniform", "--profile", "quick", "--journal", str(journal),
                 "--json", str(report), "--output", str(tmp_path / "r.md")]) == 1
    second = json.loads(report.read_text())
    assert second["checks"][0]["outcomes"][0]["detail"] == "planted in the journal"
    assert first["checks"][0]["outcomes"][0]["passed"] is True
    assert "`verify check prop3.uniform`" in (tmp_path / "r.md").read_text()


def test_cli_refuses_a_journal_of_another_run(capsys, tmp_path):
    journal = tmp_path / "j.jsonl"
    Journal(journal, run_key("full", {}, {}))
    code = main(["check", "prop3.uniform", "--profile", "quick", "--journal", str(journal)])
    err = capsys.readouterr().err
    assert code == 2 and "another run (profile full, not quick" in err and len(err.strip().splitlines()) == 1


def test_a_change_to_the_computing_code_invalidates_the_journal(tmp_path):
    package = tmp_path / "pkg"
    (package / "engine").mkdir(parents=True)
    (package / "results").mkdir()
    (package / "checks.py").write_text("A = 1\n")
    (package / "engine" / "model.py").write_text("B = 2\n")
    before = code_fingerprint(package)
    (package / "engine" / "model.py").write_text("B = 3\n")
    assert code_fingerprint(package) != before
    path = tmp_path / "j.jsonl"
    Journal(path, run_key("quick", {}, {}, code=before))
    with pytest.raises(JournalError, match="code"):
        Journal(path, run_key("quick", {}, {}, code=code_fingerprint(package)))


def test_report_only_judges_nothing_and_lists_what_is_missing(capsys, tmp_path):
    journal, report = tmp_path / "j.jsonl", tmp_path / "r.json"
    assert main(["check", "prop3.uniform", "--profile", "quick", "--journal", str(journal)]) == 0
    before = journal.read_text()
    code = main(["check", "prop3", "--profile", "quick", "--journal", str(journal), "--report-only",
                 "--json", str(report), "--output", str(tmp_path / "r.md")])
    assert code == 1 and journal.read_text() == before  # nothing new was judged
    data = json.loads(report.read_text())
    rows = {row["check"]: row for row in data["checks"]}
    # quick: d = 3 only, the case c2 was set from
    assert rows["prop3.uniform"]["status"] == "in-sample only" and rows["prop3.uniform"]["missing"] == 0
    assert rows["prop3.floor"]["status"] == "incomplete" and rows["prop3.floor"]["missing"] == 2
    # prop3.floor (2), prop3.certified_floor (2, it reads prop3.floor's found point), the
    # symbolic uniform case (1), the two cube certificates at d = 3 (all_attention, sharp) and
    # the reconstructed A.4 for every d >= 5 (prop3.every_d, 1)
    assert data["overall"].startswith("incomplete: 8 cases of 6 checks were not run")
    assert "incomplete (2 not run)" in (tmp_path / "r.md").read_text()


@pytest.mark.parametrize("argv,needle", [
    (["check", "prop3", "--report-only"], "--report-only needs --journal"),
    (["check", "prop3", "--report-only", "--journal", "/tmp/no-such-journal.jsonl"], "no such journal"),
])
def test_report_only_usage_errors(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def _slow_first_group(resolve, group):
    """Stands in for runner.run_group: the group of the first case waits, the others do not."""
    import time

    from verify.checks import Evidence, Outcome

    result_id, items, _ = group
    if items[0][1].label == FIRST_LABEL:
        time.sleep(3)
    return [(check_id, case.label, Outcome(case.label, True, 1.0, Evidence.NUMERIC), Timing(0.0))
            for check_id, case in items]


FIRST_LABEL = "d=3"


def test_cases_reach_the_journal_as_they_finish_not_in_order(tmp_path, monkeypatch):
    from verify.run import runner
    from verify.checks import Profile
    from verify.constants import load, values

    monkeypatch.setattr(runner, "run_group", _slow_first_group)  # forked workers inherit it
    journal = Journal(tmp_path / "j.jsonl", KEY)
    results = select(["prop3"])
    reports = runner.run(results, values(load()), Profile.QUICK, workers=2, journal=journal,
                         resolve=by_id)
    lines = [json.loads(x) for x in (tmp_path / "j.jsonl").read_text().splitlines()[1:]]
    assert lines[-1]["case"] == FIRST_LABEL  # the slow group did not hold the others back
    assert len(lines) == sum(len(r.outcomes) for r in reports)
    floor = next(r for r in reports if r.check.id == "prop3.floor")
    labels = [c.label for c in floor.check.cases(Profile.QUICK, values(load()), {})]
    assert [o.case for o in floor.outcomes] == labels  # reports keep the case order


# ------------------------------------------------------------------------------ issue 38

def test_a_journal_records_its_command_and_checks_and_refuses_another_checks(capsys, tmp_path):
    """Item 3: a journal of `verify check prop3.uniform` was appended to by `verify check
    prop3.floor` (the key held no check ids); mutation: drop ``checks`` from the key and the
    second command appends to it again."""
    journal = tmp_path / "j.jsonl"
    argv = ["check", "prop3.uniform", "--profile", "quick", "--workers", "1", "--journal", str(journal)]
    assert main(argv) == 0
    head = json.loads(journal.read_text().splitlines()[0])
    assert head["command"] == "verify " + " ".join(argv) and head["key"]["checks"] == ["prop3.uniform"]
    before = journal.read_text()
    code = main(["check", "prop3.floor", "--profile", "quick", "--journal", str(journal)])
    err = capsys.readouterr().err
    assert code == 2 and journal.read_text() == before
    assert f"was written by `verify {' '.join(argv)}` (checks prop3.uniform, not prop3.floor)" in err
    assert main(argv) == 0  # the same command resumes it


def test_an_empty_file_is_not_a_journal(tmp_path):
    (tmp_path / "j.jsonl").write_text("")
    with pytest.raises(JournalError, match="is an empty file, not a verify journal"):
        Journal(tmp_path / "j.jsonl", KEY)
    assert (tmp_path / "j.jsonl").read_text() == ""


def test_the_fingerprint_ignores_docstrings_comments_and_blank_lines(tmp_path):
    """Item 9: rewording a docstring made every journal, map and certificate look written by
    other code; a change to what runs still changes the fingerprint."""
    from verify.run.journal import code_text

    source = 'def f(x):\n    """Doc."""\n    # a comment\n\n    return x + 1  # why\n'
    assert code_text(source) == "def f(x):\n    return x + 1"
    assert code_text(source.replace("Doc.", "Other words,\n    on two lines.")) == code_text(source)
    assert code_text(source.replace("x + 1", "x + 2")) != code_text(source)
    assert code_text('s = "# not a comment"\n') == 's = "# not a comment"'
