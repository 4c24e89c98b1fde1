"""The command line: JSON shapes, exit codes, one-line errors, and mutations that must fail."""
import contextlib
import json

import mpmath
import pytest

from verify.cli import main
from verify.engine.enumeration import symmetric_truth


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_json_matches_enumeration(capsys):
    code, out, _ = run(capsys, "eval", "--d", "3", "--alpha-s", "1.5", "--alpha-j", "-0.5",
                       "--beta-s", "1.2", "--beta-j", "0.3", "--dps", "30", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"command", "d", "dps", "evidence", "moments", "loss", "grad", "error", "provenance"}
    assert data["evidence"] == "numeric" and set(data["error"]) >= {"kind", "loss", *data["grad"]}
    assert set(data["grad"]) == {"alpha_s", "alpha_j", "beta_s", "beta_j"}
    truth = symmetric_truth(3, "1.5", "-0.5", "1.2", "0.3", L=400, dps=40)
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(data["loss"]) - truth.loss) < 1e-28
        for key, value in data["grad"].items():
            assert abs(mpmath.mpf(value) - getattr(truth, "grad_" + key)) < 1e-28
        assert len(data["loss"].replace("0.", "", 1).lstrip("0").replace(".", "")) >= 30


@pytest.mark.parametrize("argv,needle", [
    (["eval", "--d", "1"], "d must be an integer >= 2"),
    (["eval", "--d", "3", "--beta-s", "x"], "not a number"),
    (["eval", "--d", "3", "--dps", "3"], "dps must be"),
    (["plan", "three-phase", "--d", "5", "--eps", "1.5"], "eps must be in (0, 1)"),
    (["plan", "three-phase", "--d", "5", "--eps", "0"], "eps must be in (0, 1)"),
    (["plan", "three-phase", "--d", "5", "--eps", "0.1", "--T", "-3"], "T must be an integer >= 0"),
    (["check", "prop1.bound", "--workers", "x"], "expected an integer >= 1"),
    (["check", "prop1", "--d", "1"], "d must be >= 2, got 1"),
    (["check", "nonsense"], "unknown result or check"),
    (["check", "prop1.bound", "--set", "nope=1"], "unknown constant"),
    (["check", "prop1.bound", "--set", "prop1.attention_constant=abc"], "not an exact number"),
    (["all", "--output", "/no/such/dir/report.md"], "no such directory"),
    (["check", "prop1.bound", "--output", "/no/such/dir/report.md"], "no such directory"),
    (["all", "--journal", "/no/such/dir/run.jsonl"], "no such directory"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_malformed_constants_file(capsys, tmp_path):
    bad = tmp_path / "c.toml"
    bad.write_text("[prop1.attention_constant\nvalue = 4")
    code, _, err = run(capsys, "check", "prop1.bound", "--constants", str(bad))
    assert code == 2 and "malformed constants file" in err and len(err.strip().splitlines()) == 1
    missing = tmp_path / "m.toml"
    missing.write_text('[prop1.attention_constant]\nvalue = 4.0\nmeaning = "x"\nsource = "y"\n')
    code, _, err = run(capsys, "check", "prop1.bound", "--constants", str(missing))
    assert code == 2 and "value must be a string" in err


def test_plan_json(capsys):
    code, out, _ = run(capsys, "plan", "three-phase", "--d", "10", "--eps", "0.01", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data["beta1"]) == {"beta_s", "beta_j"} and set(data["alpha"]) == {"alpha_s", "alpha_j"}
    assert set(data["beta3"]) == {"beta_s", "beta_j"}
    assert mpmath.mpf(data["loss"]) <= 0.01
    # Phase 1 by hand (notes section 3): beta'_s = 2 eta1/d with eta1 = sqrt(d)
    assert abs(mpmath.mpf(data["beta1"]["beta_s"]) - 2 * mpmath.sqrt(10) / 10) < 1e-25


def test_prop1_passes_and_mutation_fails(capsys):
    code, out, _ = run(capsys, "check", "prop1.bound", "--d", "10,1000", "--eps", "0.01,0.5")
    assert code == 0
    code, out, _ = run(capsys, "check", "prop1.bound", "--d", "10,1000", "--eps", "0.01,0.5",
                       "--set", "prop1.attention_constant=0.001")
    assert code == 1
    assert "prop1.bound FAILED at d=10, eps=0.5" in out


def test_prop1_symbolic_step_fails_when_constant_too_small(capsys):
    code, out, _ = run(capsys, "check", "prop1.short_attention", "--set", "prop1.attention_constant=3")
    assert code == 1 and "prop1.short_attention FAILED" in out


def test_thm2_mutation_fails(capsys):
    code, out, _ = run(capsys, "check", "thm2.final", "--d", "10", "--eps", "0.01", "--set", "thm2.C=1e-6")
    assert code == 1
    assert "thm2.final FAILED at d=10, eps=0.01" in out


def test_thm2_t_chain_mutation_fails(capsys):
    code, out, _ = run(capsys, "check", "thm2.T_chain", "--set", "thm2.T_factor=3")
    assert code == 1


def test_cor1_mutation_fails(capsys):
    code, out, _ = run(capsys, "check", "cor1.population", "--d", "10", "--eps", "0.01",
                       "--set", "cor1.T_numerator=1/100")
    assert code == 1


def test_list(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "list")
    from verify.results import REGISTRY

    assert code == 0 and "prop1.bound" in out
    assert all(result.id in out for result in REGISTRY)


def test_thm2_hypotheses_reject_a_schedule_outside_them(capsys):
    assert run(capsys, "check", "thm2.hypotheses", "--profile", "quick")[0] == 0
    code, out, _ = run(capsys, "check", "thm2.hypotheses", "--profile", "quick", "--set", "thm2.eta1_scale=2")
    assert code == 1 and "violated: eta1_scale = 2 > 1" in out


def test_piped_table_is_wide_enough_for_its_headers(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, _ = run(capsys, "check", "prop1.short_attention")
    assert code == 0
    assert "worst margin" in out and "evidence" in out  # not folded as "wors t" / "evide nce"
    assert max(len(line) for line in out.splitlines()) <= 160


def test_every_option_of_every_command_has_help():
    """One convention everywhere, and no option a user must guess (issue 26.14)."""
    import argparse

    from verify.cli.app import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    bare = [f"verify {name} {'/'.join(a.option_strings) or a.dest}" for name, p in sub.choices.items()
            for a in p._actions if not isinstance(a, argparse._HelpAction) and not a.help]
    assert not bare, bare
    json_flags = {name: next((a for a in p._actions if "--json" in a.option_strings), None)
                  for name, p in sub.choices.items()}
    assert all(a.nargs == "?" and a.const == "-" for a in json_flags.values() if a is not None), json_flags
    assert not [name for name, p in sub.choices.items() for a in p._actions if "--out" in a.option_strings
                and a.dest != "output"]


def test_a_command_builds_only_its_modules_parser_and_parses_as_the_whole_one():
    """build_parser(name) holds only the subcommands of name's module (COMMANDS), so a cold
    `verify eval` does not import the claim registry or the constants; the table must match the
    modules, and each subcommand must parse its example the same way in both parsers."""
    import argparse
    import shlex

    from verify.cli.app import COMMANDS, build_parser

    def choices(parser):
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return sub.choices

    whole = choices(build_parser())
    assert sorted(whole) == sorted(n for names in COMMANDS.values() for n in names)
    for names in COMMANDS.values():
        for name in names:
            part = choices(build_parser(name))
            assert sorted(part) == sorted(names)
            example = whole[name].epilog.split("example:")[1].split("\n")[1].split()
            argv = shlex.split(" ".join(example[1:]))  # the example without "verify"
            ns_whole, ns_part = (build_parser(n).parse_args(argv) for n in (None, name))
            assert {k: v for k, v in vars(ns_whole).items() if k != "handler"} == \
                {k: v for k, v in vars(ns_part).items() if k != "handler"}
    assert sorted(choices(build_parser("no-such-command"))) == sorted(whole)


def test_eval_does_not_import_the_claim_registry_or_numpy():
    """The point of the partial parser and of formulas' lazy numpy: a fresh process running
    `verify eval` loads neither (the cold start of bench_startup.py; with --json the provenance
    record names numpy's version and the constants' hash, so it loads both)."""
    import subprocess
    import sys

    code = ("import sys\nfrom verify.cli import main\n"
            "main(['eval', '--d', '4', '--alpha-s', '1', '--beta-s', '2', '--dps', '15'])\n"
            "heavy = ('numpy', 'sympy', 'verify.checks', 'verify.constants')\n"
            "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr


def test_a_run_in_a_log_prints_plain_progress_lines(capsys, monkeypatch):
    """Standard error is not a terminal under pytest, as in a CI log: the run reports through
    the plain progress lines (a line every PLAIN_SECONDS and a last one) instead of a silent
    bar. The last line is printed when the run took at least one interval (a case served from
    the outcome store may take less, so the display is made to last one here)."""
    import time

    from verify.run import progress

    real, updates = progress.show, []

    @contextlib.contextmanager
    def lasting(*args, **kw):
        with real(*args, **kw) as board:
            board.listeners.append(lambda: updates.append((board.done, board.total)))
            yield board
            time.sleep(0.1)

    monkeypatch.setattr(progress, "PLAIN_SECONDS", 0.05)
    monkeypatch.setattr(progress, "show", lasting)
    code = main(["check", "prop1.short_attention", "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 0 and updates[-1] == (1, 1) and "verify: checking: 1/1 cases done" in err


def test_the_plain_progress_line_comes_while_one_long_case_runs(capsys, monkeypatch):
    """No case finishes for minutes (a certified box): the lines still come, from a timer."""
    import time

    from verify.run import progress

    monkeypatch.setattr(progress, "PLAIN_SECONDS", 0.02)
    seen, deadline = "", time.monotonic() + 30  # a loaded machine may wake the timer late
    with progress.show("checking", "cases", terminal=False) as board:
        board.update(0, 3)
        while seen.count("verify: checking: 0/3 cases done") < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
            seen += capsys.readouterr().err
    assert seen.count("verify: checking: 0/3 cases done") >= 3


# ------------------------------------------------------------------------------ issue 38

def _slow_judge(case, constants):
    """A case that runs for a while and says so (a stand-in for a certified box)."""
    import time

    from verify.checks import Evidence, Outcome
    from verify.run.progress import note

    note("halfway through the boxes", force=True)
    time.sleep(1.5)
    return Outcome(case.label, True, 2.0, Evidence.NUMERIC)


def _slow_result():
    from verify.checks import Case, Check, Evidence, Result

    check = Check("slow.case", "step", "claim", Evidence.NUMERIC,
                  lambda profile, constants, options: [Case("d=3", {"d": 3})], _slow_judge)
    return Result("slow", "a slow result", "", "", (), (check,))


def _resolve_slow(result_id):
    return _slow_result()


def test_a_long_case_in_a_worker_process_says_what_it_is_doing(capsys, monkeypatch):
    """Item 4: `verify all` printed "1/942 cases done" for 30 minutes; the plain line now
    carries the note of the running case, written in a worker process (mutation: the runner
    stops handing its workers the notes folder, and the note never shows)."""
    from verify.checks import Profile
    from verify.run import executors, progress, runner

    monkeypatch.setattr(progress, "PLAIN_SECONDS", 0.2)
    with executors.Process(2) as pool, progress.show("checking", "cases", terminal=False) as board:
        runner.run([_slow_result()], {}, Profile.QUICK, executor=pool, resolve=_resolve_slow,
                   progress=board.update, notes=board.folder)
    err = capsys.readouterr().err
    assert "verify: checking: 0/1 cases done" in err
    assert "slow.case: halfway through the boxes (at d=3)" in err


def test_a_certified_box_notes_the_boxes_it_judges(monkeypatch):
    """Items 4 and 6: inside the certified box the branch and bound reports the boxes judged
    and the leaves certified (on the default profile thousands, for minutes)."""
    from verify.certify import outcomes
    from verify.checks import Profile
    from verify.constants import load, values
    from verify.run import progress

    heard = []
    monkeypatch.setattr(progress, "note", lambda text, force=False: heard.append(text))
    (case,) = outcomes.certified_cases("prop1", Profile.QUICK, {})
    assert outcomes.judge_certified("prop1", case, values(load())).passed is True
    *boxes, checker = heard
    assert boxes and all(" boxes judged (from the root), " in t and " certified), " in t for t in boxes)
    assert checker.startswith("the independent checker judges the ")


def test_a_changed_constant_says_the_certificate_does_not_apply_and_how_to_write_it(capsys, monkeypatch,
                                                                                   tmp_path):
    """Item 7: with --set thm2.C=3 the certified box was proved from the root without a word.
    Now the terminal says that the committed certificate was made for thm2.C = 2, that the box
    is proved from the root (its boxes in the progress display), and ends with the command that
    writes the certificate for thm2.C = 3; that command works, and the next run starts from
    the certificate it wrote and says nothing more.  A certificate made before an unrelated
    constant was added or changed still seeds the run (mutation: compare every constant of the
    file, not those the claims read, as before: the default run is then proved from the root,
    as every default run had been since cor1.fail_factor was added)."""
    import re
    import shlex

    from verify.certify import outcomes
    from verify.run import progress

    folder = tmp_path / "certificates"
    folder.mkdir()
    monkeypatch.setattr(outcomes, "CERTIFICATES", folder)
    monkeypatch.chdir(tmp_path)
    box = ["--d", "10", "10.05", "--eps", "0.1", "0.1005", "--max-depth", "40"]
    assert main(["certify", "thm2-4d", *box, "--output", str(folder / "thm2-4d-quick.json")]) == 0
    capsys.readouterr()
    made = json.loads((folder / "thm2-4d-quick.json").read_text())
    made["constants"]["prop2.c1"] = "1/4"  # constants the claims do not read, changed or added
    del made["constants"]["cor1.fail_factor"]  # since (so were the committed certificates)
    (folder / "thm2-4d-quick.json").write_text(json.dumps(made))
    heard = []
    monkeypatch.setattr(progress, "note", lambda text, force=False: heard.append(text))
    argv = ["check", "thm2.certified_box", "--profile", "quick", "--workers", "1"]
    assert main(argv) == 0  # the default constants: the certificate seeds the run, nothing said
    out, err = capsys.readouterr()
    assert "was made for" not in err and "proved from the root" not in out
    assert any("(the certificate's 1 leaves first)" in t for t in heard)
    heard.clear()
    assert main([*argv, "--set", "thm2.C=3"]) == 0
    out, err = capsys.readouterr()
    assert ("verify: note: certificates/thm2-4d-quick.json was made for thm2.C = 2, not 3; "
            "thm2.certified_box proves d in [10, 10.05], eps in [0.1, 0.1005]") in err
    assert any("boxes judged (from the root)" in t for t in heard)
    command = re.search(r"to keep its certificate for these constants \(a later run starts from "
                        r"it\): (verify certify thm2-4d .*\.json)", out).group(1)
    assert "--set thm2.C=3" in command and "--output certificates/thm2-4d-thm2.C-3.json" in command
    assert main(shlex.split(command)[1:]) == 0
    capsys.readouterr()
    heard.clear()
    assert main([*argv, "--set", "thm2.C=3"]) == 0
    out, err = capsys.readouterr()
    assert "was made for" not in err and "proved from the root" not in out
    assert any("(the certificate's 1 leaves first)" in t for t in heard)


def test_the_id_index_is_the_registry():
    """Item 5: `verify check ID` refuses an unknown id from verify/cli/ids.py, before the results
    load; the index must name every id the registry knows, and no other."""
    from verify.cli import ids
    from verify.results import EXPERIMENTS, REGISTRY, RENAMED

    known = REGISTRY + EXPERIMENTS
    missing = sorted({r.id for r in known} - set(ids.RESULTS)) + sorted(
        {c.id for r in known for c in r.checks} - set(ids.CHECKS))
    assert not missing, f"add to verify/cli/ids.py: {missing}"
    assert set(ids.RESULTS) == {r.id for r in known}
    assert set(ids.CHECKS) == {c.id for r in known for c in r.checks}
    assert ids.RENAMED == RENAMED


@pytest.mark.parametrize("command,default", [("all", "(default: default)"), ("check", "(default: default)"),
                                             ("slack", "(default quick)"), ("experiments", "default (the default)"),
                                             ("deps", "quick profile, always")])
def test_each_help_states_its_default_profile(command, default):
    """Item 9: `verify check --help` did not say which profile it runs by default."""
    import argparse

    from verify.cli.app import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    text = " ".join(sub.choices[command].format_help().split())
    assert default in text, text


def test_eval_prints_a_table_with_the_error_kind_of_its_evidence(capsys, monkeypatch):
    """Without --json: the numeric table says its errors are quadrature estimates; the
    certified one gives midpoints and rigorous radii (the paths the JSON tests do not take)."""
    monkeypatch.setenv("COLUMNS", "200")  # a narrow terminal (pytest-xdist) folds the headers
    point = ["eval", "--d", "4", "--alpha-s", "1", "--beta-s", "2", "--dps", "15"]
    code, out, _ = run(capsys, *point)
    assert code == 0 and "error estimate (quadrature)" in out and "dL/dbeta_j (one coordinate)" in out
    code, out, _ = run(capsys, *point, "--certified")
    assert code == 0 and "radius (rigorous)" in out and "Arb enclosures" in out


def test_plan_warns_for_each_input_outside_theorem_2_and_still_runs(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one warning per line, as on a wide terminal
    code, out, err = run(capsys, "plan", "three-phase", "--d", "2", "--eps", "0.5", "--eta1", "5",
                         "--eta2", "1", "--eta3", "0.5", "--T", "3", "--dps", "15")
    assert code == 0 and "L_s(alpha', beta'')" in out
    for words in ("d = 2 is outside", "eta1 = 5.0 is outside", "eta2 = 1.0 is below",
                  "eta3 = 0.5", "T = 3 is below"):
        assert words in err
    code, out, err = run(capsys, "plan", "three-phase", "--d", "5", "--eps", "0.5", "--dps", "15")
    assert code == 0 and "warning" not in err  # the defaults satisfy the hypotheses
