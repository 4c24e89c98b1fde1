"""Every bad input a user can type ends in one line on stderr and exit code 2 — never a
traceback, never a late failure after the work — and leaves every file it was not asked to
write untouched (issue 26, items 11-14; issue 38, items 1-3 and 5).  The commands that would
run for minutes are refused before any work starts, so this whole table takes seconds."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from verify.cli import main
from verify.constants import CHECKOUT_FILE, load
from verify.run.journal import Journal, run_key

ROOT = Path(__file__).resolve().parent.parent
FULL = "/dev/full"  # every write fails with ENOSPC (Linux)
needs_full = pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full here")

READ_ONLY = "/proc/version"  # not writable even by root (os.access says it is)


def _constants_without(key: str) -> str:
    text = CHECKOUT_FILE.read_text()
    return re.sub(rf"\[{re.escape(key)}\][^\[]*", "", text)


@pytest.fixture
def place(tmp_path, monkeypatch):
    """A working folder with the files the bad inputs name; returns the folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_dir").mkdir()
    (tmp_path / "empty.toml").write_text("")
    (tmp_path / "no_C.toml").write_text(_constants_without("thm2.C"))
    (tmp_path / "not_a_cert.json").write_text(json.dumps({"hello": 1}))
    (tmp_path / "garbage.jsonl").write_bytes(bytes(range(256)) * 8)
    Journal(tmp_path / "other.jsonl", run_key("full", {}, {}))
    (tmp_path / "empty.jsonl").write_text("")
    texts = {k: c.text for k, c in load().items()}
    Journal(tmp_path / "thm2.jsonl", run_key("default", texts, {"d": [3], "eps": [0.5]},
                                             checks=["thm2.final"]),
            "verify check thm2.final --d 3 --eps 0.5 --journal thm2.jsonl")
    return tmp_path


BAD = [
    # outputs that cannot be written: refused before the run
    (["all", "--profile", "quick", "--output", "a_dir"], "is a directory"),
    (["all", "--profile", "quick", "--output", READ_ONLY], "is not writable"),
    (["all", "--profile", "quick", "--json", "a_dir"], "is a directory"),
    (["all", "--profile", "quick", "--json", "/proc/report.json"], "is not writable"),
    (["check", "prop1.bound", "--journal", "a_dir"], "is a directory"),
    (["check", "prop1.bound", "--journal", "/proc/run.jsonl"], "is not writable"),
    (["check", "prop1.bound", "--output", "/no/such/dir/r.md"], "no such directory"),
    (["eval", "--d", "3", "--json", "a_dir"], "is a directory"),
    (["certify", "prop1", "--d", "2", "3", "--eps", "0.1", "0.2", "--output", "a_dir"], "is a directory"),
    # constants outside their domain, or files that lack a key
    (["check", "thm2.final", "--set", "thm2.C=-1"], "thm2.C = -1 is outside its domain (0, inf)"),
    (["check", "thm2.final", "--set", "thm2.C=0"], "thm2.C = 0 is outside its domain"),
    (["check", "prop3.floor", "--set", "prop3.c2=1"], "prop3.c2 = 1 is outside its domain (0, 1)"),
    (["check", "cor1.samples", "--set", "cor1.repetitions=2.5"], "outside its domain integer in [0, 100000]"),
    (["check", "prop1.bound", "--constants", "no_C.toml"], "no_C.toml has no thm2.C"),
    (["check", "prop1.bound", "--constants", "empty.toml"], "empty.toml has no"),
    (["plan", "three-phase", "--d", "5", "--eps", "0.1", "--set", "thm2.C=-2"], "outside its domain"),
    # inputs that would hang or slip through
    (["eval", "--d", "3", "--dps", "100000"], "dps must be an integer in [5, 1000]"),
    (["certify", "prop1", "--d", "1", "10", "--eps", "0.1", "0.2", "--output", "c.json"], "claimed for d >= 2"),
    (["certify", "thm2", "--d", "2", "10", "--eps", "0.1", "0.2", "--output", "c.json"], "claimed for d >= 3"),
    (["recheck", "not_a_cert.json"], "is not a verify certificate"),
    (["recheck", "garbage.jsonl"], "cannot read certificate garbage.jsonl"),
    (["check", "prop1.bound", "--journal", "garbage.jsonl"], "garbage.jsonl is not a verify journal"),
    (["check", "prop1.bound", "--profile", "quick", "--journal", "other.jsonl"],
     "written by another run (profile full, not quick"),
    (["check", "prop1.bound", "--workers", "x"], "expected an integer >= 1"),
    (["check", "prop1.bound", "--workers", "0"], "expected an integer >= 1"),
    # issue 38: a range of d is measured before it is expanded (item 1; it filled the memory)
    (["check", "thm2.final", "--d", "3-1000000000", "--eps", "0.5"],
     "names 999,999,998 values of d; at most 1,000 per run"),
    (["check", "thm2.final", "--d", "3,5-2000"], "names 1,997 values of d"),
    (["check", "thm2.final", "--d", "10-3"], "--d 10-3: a range A-B needs A <= B"),
    # item 3: a journal of another check, an empty file, a constant that underflows or would run
    # for hours
    (["check", "prop1", "--d", "3", "--eps", "0.5", "--journal", "thm2.jsonl"],
     "thm2.jsonl was written by `verify check thm2.final --d 3 --eps 0.5 --journal thm2.jsonl` "
     "(checks thm2.final, not prop1"),
    (["check", "prop1.bound", "--journal", "empty.jsonl"], "empty.jsonl is an empty file, not a verify journal"),
    (["check", "thm2.final", "--set", "thm2.C=1e-400"], "outside the range of a float64"),
    (["check", "thm2.final", "--set", "thm2.C=1e400"], "would judge thm2.C = inf"),
    (["check", "cor1.samples", "--set", "cor1.repetitions=10000000"],
     "outside its domain integer in [0, 100000] (--set): 0 asks for the power rule"),
    # the cube's branch and bound: a budget runs in one process; a remote scheduler's workers
    # cannot write the journal
    (["certify-cube", "prop3-cube-d3", "--output", "c.json", "--boxes", "5", "--workers", "2"],
     "--boxes (a budget in judged boxes) runs in one process"),
    (["certify-cube", "prop3-cube-d3", "--output", "c.json", "--journal", "j.jsonl",
      "--scheduler", "tcp://127.0.0.1:1"], "a remote scheduler's workers do not see the file"),
    (["certify-cube", "prop3-cube-d3", "--output", "c.json", "--workers", "0"], "expected an integer >= 1"),
    # the one branch and bound's journal (verify/certify/branch.py): another run's is refused
    (["certify-cube", "prop3-cube-d3", "--output", "c.json", "--journal", "other.jsonl"],
     "other.jsonl was written by another run (differs in: bits, code, constants, group"),
    (["certify-cube", "prop3-cube-d3", "--output", "c.json", "--journal", "garbage.jsonl"],
     "garbage.jsonl: not a branch-and-bound journal"),
    (["certify", "prop1", "--d", "3", "10", "--eps", "0.1", "0.2", "--output", "c.json",
      "--journal", "garbage.jsonl"], "garbage.jsonl: not a branch-and-bound journal"),
    # item 5: an unknown id, refused before the results are imported (see the test below)
    (["check", "nonsense"], "unknown result or check: nonsense (see `verify list`)"),
]


def _snapshot(folder) -> dict:
    return {p: (p.stat().st_size, p.read_bytes()) for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("argv,needle", BAD, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_bad_input_is_one_line_exit_2_and_touches_nothing(place, capsys, argv, needle):
    before = _snapshot(place)
    proc_before = os.path.getsize(READ_ONLY) if os.path.exists(READ_ONLY) else None
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert needle in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err + out
    assert _snapshot(place) == before  # no report, journal or certificate was written or changed
    assert not (place / "REPORT.md").exists()
    if proc_before is not None:
        assert os.path.getsize(READ_ONLY) == proc_before


def test_a_deprecated_spelling_still_works_with_one_note(place, capsys):
    """certify's --out keeps working for one release (a note on stderr), like --output."""
    code = main(["certify", "prop1", "--d", "1", "10", "--eps", "0.1", "0.2", "--out", "c.json"])
    err = capsys.readouterr().err
    assert code == 2 and "--out is deprecated, use --output" in err and "claimed for d >= 2" in err


# ------------------------------------------------------------------------------ issue 38

def _verify(*argv: str, stdout=None, before: str = "") -> subprocess.CompletedProcess:
    """``verify ARGV`` in a fresh interpreter; it then writes to stderr, as its last line, the
    heavy modules it had imported (the engine, the results, SymPy, SciPy)."""
    script = (f"import sys\n{before}\nfrom verify.cli import main\ncode = main({list(argv)!r})\n"
              "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('sympy', 'scipy') "
              "or m.startswith(('verify.results', 'verify.engine')))\n"
              "print('HEAVY', len(heavy), file=sys.stderr)\nsys.exit(code)\n")
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, text=True,
                          stdout=stdout if stdout is not None else subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=300)


def _lines(err: str) -> list[str]:
    return [x for x in err.strip().splitlines() if not x.startswith("HEAVY ")]


def test_an_unknown_id_and_a_foreign_journal_are_refused_before_the_heavy_imports(tmp_path):
    """Item 5: the id index (verify/cli/ids.py) and the journal are checked before the engine
    and the results load (they took 16 s on a loaded machine); mutation: check the id after
    importing the results, as before, and the count of heavy modules is no longer 0."""
    done = _verify("check", "nonsense")
    assert done.returncode == 2 and _lines(done.stderr) == [
        "verify: error: unknown result or check: nonsense (see `verify list`)"]
    assert "HEAVY 0" in done.stderr
    journal = tmp_path / "j.jsonl"
    Journal(journal, run_key("full", {}, {}))
    done = _verify("check", "prop1.bound", "--journal", str(journal))
    assert done.returncode == 2 and "written by another run" in done.stderr and "HEAVY 0" in done.stderr


@needs_full
def test_a_full_standard_output_fails_in_one_line_before_the_run():
    """Item 2: ``--json > /dev/full`` ended in an OSError traceback after the whole run; it is
    now refused at once (a write of zero bytes fails on a full device)."""
    with open(FULL, "w") as full:
        done = _verify("check", "thm2.final", "--d", "3", "--eps", "0.5", "--json", stdout=full)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert _lines(done.stderr) == ["verify: error: standard output is not writable (No space left "
                                   "on device)"]
    assert "HEAVY 0" in done.stderr  # nothing was run


@needs_full
def test_a_full_file_named_by_json_is_refused_before_the_run(capsys):
    """Item 2: ``--json /dev/full`` failed cleanly, but only after the whole run."""
    code = main(["check", "thm2.final", "--d", "3", "--eps", "0.5", "--json", FULL])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == f"verify: error: --json: {FULL} is not writable (No space left on device)"


def test_standard_output_that_breaks_during_the_command_is_one_line_exit_2():
    """Item 2, the late case: the reader of the pipe has gone when the table is printed (a zero
    write to such a pipe still succeeds, so this passes the early probe)."""
    script = ("import sys\nfrom verify.cli import main\nsys.exit(main(['list']))\n")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # the reader goes away before anything is written
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert proc.returncode == 2 and "Traceback" not in err, err
    assert err.strip().splitlines() == ["verify: error: cannot write standard output (Broken pipe)"]


def test_workers_are_capped_at_the_cores_with_one_note(capsys, monkeypatch):
    """Item 3: --workers 1000 ran 1000 processes on 2 cores (110 s against 14-21 s)."""
    from verify.cli import args as cli_args
    from verify.run import executors

    monkeypatch.setattr(executors, "available_cores", lambda: 2)
    assert cli_args.workers("1000") == 2 and cli_args.workers("2") == 2 and cli_args.workers("1") == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["verify: note: --workers 1000 is more than the 2 cores "
                                        "available here: using 2"]
    code = main(["check", "prop1.short_attention", "--workers", "1000"])
    err = capsys.readouterr().err
    assert code == 0 and "verify: note: --workers 1000 is more than the 2 cores" in err


def test_a_value_that_underflows_a_float_is_refused_wherever_it_comes_from(tmp_path):
    """Item 3: --set thm2.C=1e-400 passed (the float routes read it as 0); a constants file
    with it is refused too, and every domain states its reason in proofs/constants.toml."""
    from verify.constants import ConstantsError, with_overrides

    text = CHECKOUT_FILE.read_text().replace('[thm2.C]\nvalue = "2"', '[thm2.C]\nvalue = "1e-400"')
    (tmp_path / "c.toml").write_text(text)
    with pytest.raises(ConstantsError, match="outside the range of a float64"):
        load(tmp_path / "c.toml")
    assert with_overrides(load(), ["thm2.C=1e-300"])["thm2.C"].value > 0  # a normal double passes
    assert all(c.domain.reason for c in load().values())
    bare = CHECKOUT_FILE.read_text().replace("domain_reason = ", "why = ", 1)
    (tmp_path / "bare.toml").write_text(bare)
    assert load(tmp_path / "bare.toml")  # a file of one's own may leave the reasons out
