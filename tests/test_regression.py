"""Regression against changed constants: recorded reads, the dependency map, --affected-by,
slack, diff, and their bad input (one line, no traceback)."""
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.regression import dependencies as deps
from verify.regression import diff as diff_mod
from verify.run import runner
from verify.regression import slack as slack_mod
from verify.checks import Profile
from verify.cli import main
from verify.constants import Tracked, load, values
from verify.run.journal import Journal, code_fingerprint
from verify.results import REGISTRY, by_id, select

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "examples" / "baseline-quick.json"
# cheap checks of the quick profile (under a second each), with the reads a run records
CHEAP = ("thm2.hypotheses", "thm2.T_chain", "prop1.long_words", "prop1.short_attention",
         "thm1.rho_bound", "thm1.chain", "lemma-low-attention.per_word", "prop2.negative_mass")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def quick(ids, **kw):
    return runner.run(select(list(ids)), values(load()), Profile.QUICK, check_ids=list(ids),
                      resolve=by_id, **kw)


# ------------------------------------------------------------------------------ recorded reads

def test_tracked_records_lookups_and_a_bulk_copy_reads_everything():
    view = Tracked({"a": Fraction(1), "b": Fraction(2), "c": Fraction(3)})
    assert view["a"] == 1 and view.get("zz") is None and "b" in view
    assert view.reads == {"a", "b", "zz"}
    dict(view)  # a copy depends on every key: recorded, never hidden
    assert view.reads >= {"a", "b", "c"}


def test_each_outcome_carries_what_its_judge_read():
    reports = {r.check.id: r for r in quick(CHEAP)}
    assert reports["thm2.T_chain"].reads == {"thm2.T_factor"}
    assert reports["thm2.hypotheses"].reads == {"thm2.T_factor", "thm2.eta1_scale"}
    assert reports["prop1.long_words"].reads == frozenset()
    assert all(o.reads == ("thm1.c3",) for o in reports["thm1.rho_bound"].outcomes)


def test_reads_survive_worker_processes_and_the_journal(tmp_path):
    ids = ("thm2.T_chain", "thm2.hypotheses", "thm1.chain")
    pooled = {r.check.id: r.reads for r in quick(ids, workers=2)}
    assert pooled == {r.check.id: r.reads for r in quick(ids)}
    key = {"test": 1}
    quick(ids, journal=Journal(tmp_path / "j.jsonl", key))
    resumed = quick(ids, journal=Journal(tmp_path / "j.jsonl", key), judge=False)
    assert {r.check.id: r.reads for r in resumed} == pooled  # known to a resumed run
    assert all(r.missing == 0 for r in resumed)


def test_the_recorded_map_agrees_with_a_real_run():
    recorded = deps.load_map()
    assert set(recorded.reads) == {c.id for c in deps.all_checks(REGISTRY)}  # every check, no other
    known = set(load())
    assert all(set(keys) <= known for keys in recorded.reads.values())
    for rep in quick(CHEAP):
        assert set(recorded.reads[rep.check.id]) == rep.reads, rep.check.id


@pytest.mark.slow
def test_the_recorded_map_is_reproduced_by_a_quick_run(capsys):
    """`verify deps` reruns the quick profile and compares (about a minute on two cores)."""
    code, out, _ = run_cli(capsys, "deps", "--workers", "2")
    assert code == 0 and "up to date" in out
    assert deps.load_map().code == code_fingerprint()


def test_the_map_file_has_stable_bytes():
    recorded = deps.load_map()
    assert deps.dumps(recorded) == deps.MAP_FILE.read_text()


def test_a_check_the_map_does_not_know_counts_as_reading_everything():
    empty = deps.DependencyMap({}, "quick", "")
    checks = deps.all_checks(REGISTRY)
    assert deps.affected(["thm1.c3"], checks, empty) == [c.id for c in checks]


# ------------------------------------------------------------------------------ affected by

def _asked(monkeypatch):
    """Replace runner.run by a recorder of the checks it is asked to run."""
    asked = []

    def fake(results, constants, profile, options=None, workers=1, check_ids=None, **kw):
        asked.append(list(check_ids or []))
        return []
    monkeypatch.setattr(runner, "run", fake)
    return asked


def test_changing_thm1_c3_runs_only_the_checks_that_read_it(capsys, monkeypatch, tmp_path):
    asked = _asked(monkeypatch)
    code, out, _ = run_cli(capsys, "all", "--affected-by", "thm1.c3", "--output", str(tmp_path / "r.md"))
    assert code == 0
    # Theorem 1's six checks that compare with c3 (the assembled proof, the searches and the
    # certified value too), and the contrast, whose judge runs thm1.floor
    assert asked == [["thm1.rho_bound", "thm1.chain", "thm1.conclusion", "thm1.chosen_target",
                      "thm1.floor", "thm1.certified_value", "contrast.separation"]]
    assert "affected by thm1.c3: 7 checks" in out
    old = (deps.PROOFS / "constants.toml").read_text()
    changed = tmp_path / "old.toml"
    changed.write_text(old.replace('value = "1/6912"', 'value = "1/7000"'))
    code, out, _ = run_cli(capsys, "all", "--affected-by-diff", str(changed), "--output", str(tmp_path / "r.md"))
    assert code == 0 and asked[-1] == asked[0]


def test_changing_nothing_runs_nothing(capsys, monkeypatch, tmp_path):
    asked = _asked(monkeypatch)
    same = tmp_path / "same.toml"
    same.write_text((deps.PROOFS / "constants.toml").read_text())
    code, out, _ = run_cli(capsys, "all", "--affected-by-diff", str(same))
    assert code == 0 and asked == []
    assert out.strip() == f"no constant differs from {same}: no check to run"


def test_a_changed_value_under_set_is_seen_by_affected_by_diff(capsys, monkeypatch, tmp_path):
    asked = _asked(monkeypatch)
    code, out, _ = run_cli(capsys, "all", "--affected-by-diff", str(deps.PROOFS / "constants.toml"),
                           "--set", "thm2.T_factor=3", "--output", str(tmp_path / "r.md"))
    assert code == 0 and "thm2.T_chain" in asked[0] and "contrast.separation" in asked[0]
    assert all(c.startswith(("thm2.", "contrast.")) for c in asked[0])


# ------------------------------------------------------------------------------ explain, report

def test_explain_prints_value_meaning_source_checks_and_proof_steps(capsys):
    code, out, _ = run_cli(capsys, "explain", "thm1.c3")
    assert code == 0
    assert out.startswith("thm1.c3 = 1/6912")
    assert "meaning: risk floor c3 of Theorem 1" in out and "source:  paper, end of A.6" in out
    assert "thm1.rho_bound" in out and "thm1.floor" in out and "prop2.floor" not in out
    assert "proofs/thm1.md step 9" in out  # the last inequality (step 5 before step 3 was rebuilt)
    code, out, _ = run_cli(capsys, "explain", "thm2.T_factor", "--json")
    data = json.loads(out)
    assert data["exact"] == "4" and "thm2.T_chain" in [c["check"] for c in data["checks"]]
    assert any(s["document"] == "proofs/thm2.md" and s["step"] == "step 5" for s in data["proof_steps"])


def test_report_constants_table_says_which_checks_used_each_constant():
    from verify.report import markdown

    reports = quick(("thm2.T_chain", "thm1.chain"))
    text = markdown(reports, list(REGISTRY), load(), Profile.QUICK)
    assert "| used by (checks that read it in this run) |" in text
    row = next(line for line in text.splitlines() if line.startswith("| `thm2.T_factor`"))
    assert row.endswith("| thm2.T_chain |")
    row = next(line for line in text.splitlines() if line.startswith("| `prop2.c1`"))
    assert row.endswith("| - |")
    assert deps.compact(["thm1.a", "thm1.b", "contrast.c"]) == "thm1.{a, b}, contrast.c"


# ------------------------------------------------------------------------------ slack

def threshold_probe(threshold: Fraction, larger_fails: bool):
    """A stand-in prober: one case whose margin is the distance to the threshold."""
    def probe(value, early):
        margin = float(threshold - value if larger_fails else value - threshold)
        fails = (("x.check", "d=9", "beyond"),) if margin < 0 else ()
        return slack_mod.Probe(value, fails, {("x.check", "d=9"): margin})
    return probe


@pytest.mark.parametrize("threshold,larger_fails,direction", [
    (Fraction(37, 1000), True, "largest"), (Fraction(2, 7), False, "smallest")])
def test_search_finds_the_threshold_in_either_direction(threshold, larger_fails, direction):
    probe = threshold_probe(threshold, larger_fails)
    value = Fraction(1, 6912) if larger_fails else Fraction(4)
    found = slack_mod.search("k", value, probe, baseline=probe(value, False))
    assert found.direction == direction
    assert probe(found.limit, True).passed and not probe(found.failing, True).passed
    assert abs(found.failing - found.limit) <= slack_mod.DEFAULT_RTOL * found.limit


def test_search_with_a_bracket_and_without_a_passing_value():
    probe = threshold_probe(Fraction(3), True)
    found = slack_mod.search("k", Fraction(1), probe, Fraction(1), Fraction(10))
    assert found.direction == "largest" and found.limit <= 3 < found.failing
    with pytest.raises(slack_mod.NoPassingValue, match=r"no passing value in \[4, 10\]"):
        slack_mod.search("k", Fraction(1), probe, Fraction(4), Fraction(10))
    assert slack_mod.search("k", Fraction(1), probe, Fraction(1), Fraction(2)).direction is None


@given(st.fractions(min_value=-50, max_value=50, max_denominator=60),
       st.fractions(min_value=0, max_value=5, max_denominator=60))
def test_simplest_between_is_the_smallest_denominator_in_the_interval(a, width):
    x = slack_mod.simplest_between(a, a + width)
    assert a <= x <= a + width
    smaller = (Fraction(n, q) for q in range(1, x.denominator)
               for n in range(math.floor(a * q), math.ceil((a + width) * q) + 1))
    assert not any(a <= f <= a + width for f in smaller)


def test_slack_of_t_factor_is_bound_by_the_symbolic_step(capsys):
    """T_chain holds exactly when T_factor >= 4 (SymPy): the slack is 4 and T_chain binds."""
    code, out, _ = run_cli(capsys, "slack", "thm2.T_factor", "--d", "3", "--eps", "0.5",
                           "--only", "thm2.T_chain")
    assert code == 0
    assert out.startswith("thm2.T_factor = 4: smallest passing value 4 (~4, the current value: no room); "
                          "first to fail, at 107/27 (~3.963): thm2.T_chain at all d >= 3")


def test_slack_with_no_passing_value_is_one_line_exit_1(capsys):
    code, out, err = run_cli(capsys, "slack", "thm2.T_factor", "--only", "thm2.T_chain",
                             "--lo", "1", "--hi", "2")
    assert code == 1 and out == ""
    errors = [line for line in err.splitlines() if not line.startswith("verify: note:")]
    assert len(errors) == 1 and errors[0].startswith("verify: thm2.T_factor: no passing value in [1, 2]")


def test_slack_all_writes_the_exhibit(capsys, tmp_path, monkeypatch):
    fake = lambda key, consts, checks, *a, **kw: slack_mod.Slack(
        key, consts[key], "largest", consts[key] * 2, consts[key] * 3, ("c.x", "d=3", "why"),
        tuple(c.id for c in checks), 0, 5, 1.0)
    monkeypatch.setattr(slack_mod, "slack", fake)
    code, out, _ = run_cli(capsys, "slack", "--all", "--output", str(tmp_path / "s.md"))
    text = (tmp_path / "s.md").read_text()
    assert code == 0 and text.startswith("# Slack of the measured constants (exhibit)")
    assert all(f"| `{k}` |" in text for k in slack_mod.MEASURED)
    assert "Generated by `verify slack --all --profile quick`" in text


# ------------------------------------------------------------------------------ diff

def report(status="pass", margin=2.0, cases=("d=3", "d=5"), profile="quick", provenance=None, **consts):
    rows = [{"check": "thm2.final", "status": status, "worst_margin": f"x{margin:.3g}",
             "worst_case": cases[0], "worst_detail": "L = 0.1",
             "outcomes": [{"case": c, "passed": status == "pass", "margin": margin,
                           "margin_kind": "ratio"} for c in cases]},
            {"check": "thm2.T_chain", "status": "pass", "worst_margin": "+1", "worst_case": "d=3",
             "worst_detail": "", "outcomes": [{"case": "d=3", "margin": 1.0, "margin_kind": "difference"}]}]
    data = {"profile": profile, "checks": rows, "constants": {"thm2.T_factor": "4", **consts}}
    if provenance is not None:
        data["provenance"] = provenance
    return data


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_diff_puts_new_failures_first_and_exits_1(capsys, tmp_path):
    old = write(tmp_path, "old.json", report())
    new_data = report("FAIL", 0.5, cases=("d=3", "d=7"), **{"thm2.T_factor": "1/5"})
    new_data["checks"][1]["status"] = "undecided"
    new_data["checks"].reverse()
    new = write(tmp_path, "new.json", new_data)
    code, out, _ = run_cli(capsys, "diff", old, new)
    assert code == 1
    assert "**2 regressions**" in out and "`thm2.T_factor` 4 → 1/5" in out
    lines = [x for x in out.splitlines() if x.startswith("| `")]
    assert lines[0].startswith("| `thm2.final` | pass | **FAIL** ⚠ regression")  # FAIL before undecided
    assert lines[1].startswith("| `thm2.T_chain` | pass | **undecided** ⚠ regression")
    assert any(x.startswith("| `thm2.final` | x2 | x0.5 |") for x in lines)  # margin moved x4
    assert any(x.startswith("| `thm2.final` | d=7 | d=5 |") for x in lines)  # cases added, lost
    code, out, _ = run_cli(capsys, "diff", old, new, "--json")
    data = json.loads(out)
    assert code == 1 and data["regressions"] == ["thm2.final", "thm2.T_chain"]
    assert data["cases"] == [{"check": "thm2.final", "added": ["d=7"], "lost": ["d=5"]}]


def test_diff_without_regression_and_with_a_factor(capsys, tmp_path):
    old = write(tmp_path, "old.json", report(margin=2.0))
    new = write(tmp_path, "new.json", report(margin=3.0))
    code, out, _ = run_cli(capsys, "diff", old, new, "--markdown")
    assert code == 0 and "**no regression**: 0 status changes, 0 worst margins" in out
    code, out, _ = run_cli(capsys, "diff", old, new, "--factor", "1.2", "--json")
    assert code == 0 and json.loads(out)["margins"][0]["check"] == "thm2.final"


def test_diff_of_a_partial_run_counts_the_rest_as_not_rerun(capsys, tmp_path):
    old = write(tmp_path, "old.json", report())
    partial = report()
    partial["checks"] = partial["checks"][1:]
    code, out, _ = run_cli(capsys, "diff", old, write(tmp_path, "new.json", partial))
    assert code == 0 and "1 checks of the old report are not in the new one (not rerun)" in out


def test_diff_warns_when_provenance_differs_and_tolerates_its_absence(capsys, tmp_path):
    a = write(tmp_path, "a.json", report(provenance={"commit": "abc", "code": "1"}))
    b = write(tmp_path, "b.json", report(provenance={"commit": "def", "code": "1"}))
    c = write(tmp_path, "c.json", report())
    code, out, err = run_cli(capsys, "diff", a, b)
    assert code == 0 and err.strip() == ("verify: warning: the reports differ in provenance (commit): "
                                         "not the same code or set-up")
    code, out, err = run_cli(capsys, "diff", a, c)
    assert code == 0 and err == ""
    empty = write(tmp_path, "e.json", report(provenance={}))  # as the shipped baseline had
    code, out, err = run_cli(capsys, "diff", empty, a)
    assert code == 0 and err == ""


def test_diff_of_the_committed_baseline_with_itself_is_empty():
    base = diff_mod.load_report(BASELINE)
    result = diff_mod.compare(base, base)
    assert result["exit_code"] == 0 and not result["status"] and not result["margins"]


# ------------------------------------------------------------------------------ bad input

@pytest.mark.parametrize("argv,needle", [
    (["explain", "thm1.c4"], "unknown constant 'thm1.c4'; did you mean 'thm1.c3'?"),
    (["all", "--affected-by", "nope"], "unknown constant 'nope'"),
    (["all", "--affected-by", ","], "--affected-by expects KEY[,KEY], got no key"),
    (["slack", "nope"], "unknown constant 'nope'"),
    (["slack", "thm1.c3", "--lo", "abc", "--hi", "1"], "--lo: not an exact number: 'abc'"),
    (["slack", "thm1.c3", "--lo", "1"], "--lo and --hi go together"),
    (["slack", "thm1.c3", "--lo", "2", "--hi", "1"], "--lo must be below --hi"),
    (["slack"], "give one KEY or --all"),
    (["slack", "thm1.c3", "--only", "thm9"], "--only: unknown result or check: thm9"),
    (["explain", "thm1.c3", "--set", "thm1.c3=0.1.2"], "thm1.c3: not an exact number"),
    (["diff", "/no/such.json", "/no/such.json"], "no such file: /no/such.json"),
    (["diff", str(ROOT / "README.md"), str(ROOT / "README.md")], "README.md: not a JSON file"),
    (["all", "--affected-by", "thm1.c3", "--affected-by-diff", "x.toml"], "not both"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    lines = [x for x in err.strip().splitlines() if not x.startswith("verify: note:")]
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in err


def test_diff_of_reports_from_different_profiles_is_refused(capsys, tmp_path):
    a = write(tmp_path, "a.json", report(profile="quick"))
    b = write(tmp_path, "b.json", report(profile="default"))
    code, out, err = run_cli(capsys, "diff", a, b)
    assert code == 2 and out == ""
    assert err.strip() == ("verify: error: the reports come from different profiles (quick vs default): "
                           "their cases are not comparable")
    code, _, err = run_cli(capsys, "diff", a, a, "--factor", "1")
    assert code == 2 and "--factor must be > 1" in err


def test_deps_from_a_json_report_compares_with_the_map(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "deps", "--from", str(BASELINE))
    assert code == 0 and out.strip().endswith("the recorded map is up to date")
    data = json.loads(BASELINE.read_text())
    row = next(r for r in data["checks"] if r["check"] == "thm1.floor")
    row["reads"] = []  # as if thm1.floor had stopped reading thm1.c3
    code, out, _ = run_cli(capsys, "deps", "--from", write(tmp_path, "r.json", data))
    assert code == 1 and "thm1.floor: recorded ['thm1.c3'], now []" in out


def test_the_default_report_links_the_slack_exhibit_when_it_exists(tmp_path):
    from verify.cli.regression import slack_link

    report_path = tmp_path / "REPORT.md"
    report_path = report_path.resolve()
    assert slack_link(report_path, report_path) == []
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "slack.md").write_text("x")
    assert "[reports/slack.md](reports/slack.md)" in slack_link(report_path, report_path)[0]
    assert slack_link(tmp_path / "other.md", report_path) == []


def test_affected_by_diff_with_a_non_rational_value_is_one_line_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text((deps.PROOFS / "constants.toml").read_text().replace('value = "1/6912"', 'value = "abc"'))
    code, _, err = run_cli(capsys, "all", "--affected-by-diff", str(bad))
    assert code == 2 and err.strip() == "verify: error: thm1.c3: not an exact number: 'abc'"
    code, _, err = run_cli(capsys, "slack", "cor1.repetitions")  # 0 has no doubling: needs a bracket
    assert code == 2 and "cor1.repetitions is 0: give a bracket with --lo and --hi" in err


def test_the_ci_recipe_uses_commands_that_parse():
    """Every `verify ...` line of examples/constants-regression.yml is a valid command line."""
    import re
    import shlex

    from verify.cli.app import build_parser

    text = (ROOT / "examples" / "constants-regression.yml").read_text().replace("\\\n", " ")
    commands = [m.group(1) for m in re.finditer(r"^[\s#]*(verify \S.*)$", text, re.M)]
    assert len(commands) >= 3
    for command in commands:
        argv = shlex.split(re.split(r"\s(?:\|\||>)", command)[0])[1:]
        build_parser().parse_args(argv)  # raises on an unknown flag
    assert any("--affected-by-diff" in c for c in commands) and any(c.startswith("verify diff") for c in commands)


# ------------------------------------------------------------------------------ issue 38

def _fake_check(judge):
    from verify.checks import Case, Check, Evidence

    return Check("fake.bound", "step", "claim", Evidence.NUMERIC,
                 lambda profile, constants, options: [Case("d=3", {"d": 3}), Case("d=4", {"d": 4}),
                                                       Case("d=5", {"d": 5})], judge)


def _judge_fake(case, constants):
    """d = 3 fails at every value (a documented discrepancy, say); the others need k <= 2."""
    from verify.checks import Evidence, Outcome

    k = constants["k"]
    passed = case.params["d"] != 3 and k <= 2
    return Outcome(case.label, passed, float(2 / k), Evidence.NUMERIC, f"k = {k}")


def test_slack_names_the_cases_it_leaves_out_and_reports_its_probes():
    """Item 8: "4 cases already failing at the current value left out" named none of them;
    the line, the JSON and the progress now do (mutation: count them again, and the names are
    gone)."""
    heard = []
    s = slack_mod.slack("k", {"k": Fraction(1)}, [_fake_check(_judge_fake)], Profile.QUICK, {},
                        progress=lambda probes, text: heard.append((probes, text)))
    assert s.direction == "largest" and s.limit <= 2 < s.failing
    assert s.left_out == (("fake.bound", "d=3"),)
    assert ("; 1 cases already failing at the current value left out: fake.bound at d=3"
            in slack_mod.line(s))
    data = slack_mod.as_dict(s)
    assert data["left_out"] == 1 and data["left_out_cases"] == [{"check": "fake.bound", "case": "d=3"}]
    assert heard[0] == (1, "probe 1: k = 1: fake.bound (check 1 of 1) at d=3")
    assert [p for p, _ in heard] == sorted(p for p, _ in heard) and heard[-1][0] == s.probes
    many = slack_mod.left_out_text([("c", f"d={d}") for d in range(9)])
    assert many.endswith("c at d=5; and 3 more (--json lists them)")


def test_deps_shows_the_map_as_a_table_and_as_json(capsys, tmp_path):
    """Item 9: `verify deps` said "dependency map up to date" and never showed the map."""
    code, out, _ = run_cli(capsys, "deps", "--from", str(BASELINE), "--json", str(tmp_path / "m.json"))
    assert code == 0 and "Which constants each check reads" in out
    assert any(line.split()[1:3] == ["thm1.floor", "│"] and "thm1.c3" in line for line in out.splitlines()
               if len(line.split()) > 3), out
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["reads"]["thm1.floor"] == ["thm1.c3"] and data["differs_from_recorded"] == []
    assert set(data["reads"]) == set(deps.load_map().reads)
    code, out, _ = run_cli(capsys, "deps", "--from", str(BASELINE), "--json")
    assert code == 0 and json.loads(out)["reads"] == data["reads"]  # the table went to stderr
    from test_json_schema import validator

    validator("deps.schema.json").validate(data)


def test_explain_reads_steps_only_from_numbered_step_lines():
    """Item 9: a wrapped prose line that starts with "5000." was listed as "step 5000"."""
    text = ("**Step F1.** the test stops at most at `cor1.max_repetitions` =\n5000. Examples follow.\n\n"
            "1. The first step\n   goes on here.\n2. The second step.\n\nProse after.\n")
    assert deps.proof_blocks(text) == [
        ("line 1", "**Step F1.** the test stops at most at `cor1.max_repetitions` = 5000. Examples follow."),
        ("step 1", "1. The first step goes on here."), ("step 2", "2. The second step."),
        ("line 8", "Prose after.")]
    steps = [s for _, s, _ in deps.proof_steps("cor1.C", [])]
    assert steps and all(s.startswith("line ") or s.split()[1].isdigit() and int(s.split()[1]) < 100
                         for s in steps)
    assert "step 5000" not in steps


def test_the_cube_certificates_fingerprint_covers_the_code_their_judge_runs():
    """Item 9: the committed cube certificates rechecked with "written by another version of the
    finding code": the fingerprint hashed seven whole files (docstrings, comments and the 4-D
    boxes' functions of dual.py included) and missed engine/certified/general.py, whose
    ball_moments the judge calls.  It now covers certify/cube.py and every module it imports,
    without docstrings and comments, and the note says so."""
    from verify.certify import cube_certificate
    from verify.run.journal import PACKAGE, imported_modules

    covered = {p.relative_to(PACKAGE).as_posix() for p in imported_modules(cube_certificate.FINDER)}
    assert {"certify/cube.py", "engine/certified/general.py", "engine/certified/ratios.py",
            "engine/certified/balls.py"} <= covered
    assert not any(p.startswith(("results/", "cli/", "report/", "checker/")) for p in covered)
    data = json.loads((ROOT / "certificates" / "prop3-cube-d3.json").read_text())
    data["leaves"] = data["leaves"][:1]  # one leaf is enough to read the notes
    data["code"] = "0" * 64
    (note,) = cube_certificate.recheck(data).notes
    assert note.startswith("the code that judges the leaves has changed since this certificate "
                           "was written (its fingerprint covers certify/cube.py and the")
    data["code"] = cube_certificate.code_fingerprint()
    assert cube_certificate.recheck(data).notes == ()


def test_slack_and_deps_are_never_silent(capsys, monkeypatch):
    """Item 4: `verify slack thm2.C` (9 probes, about 9 minutes) and `verify deps` (about 6)
    printed nothing before their result; both now run inside the progress display, whose plain
    line (every PLAIN_SECONDS in a log) counts the probes or the cases done."""
    import contextlib

    from verify.run import progress

    real, boards = progress.show, []

    @contextlib.contextmanager
    def kept(*args, **kw):
        with real(*args, **kw) as board:
            boards.append(board)
            yield board
    monkeypatch.setattr(progress, "show", kept)
    code, out, err = run_cli(capsys, "slack", "thm2.T_factor", "--only", "thm2.T_chain")
    probes = int(out.split(" probes, ")[0].rsplit("(", 1)[1])
    assert code == 0 and boards[-1].line().startswith(f"verify: slack: {probes}/? probes done, ")

    def fake(results, constants, profile, options=None, workers=1, progress=None, **kw):
        progress(0, 2)
        progress(1, 2)
        return []
    monkeypatch.setattr(runner, "run", fake)
    run_cli(capsys, "deps")
    assert boards[-1].line().startswith("verify: recording the reads (quick profile): 1/2 cases done, ")
