"""Every bad input a user can type ends in one line on stderr and exit code 2 — never a
traceback, never a late failure after the work — and leaves every file it was not asked to
write untouched (issue 26, items 11-14).  The commands that would run for minutes are refused
before any work starts, so this whole table takes seconds."""
import json
import os
import re

import pytest

from verify.cli import main
from verify.constants import CHECKOUT_FILE
from verify.run.journal import Journal, run_key

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
    (["check", "cor1.samples", "--set", "cor1.repetitions=2.5"], "outside its domain integer in [0, inf)"),
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
