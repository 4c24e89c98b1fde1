"""The journal of a cube or cone check (verify/checker/journal.py, proofs/checker.md section 18):
a stopped run of the independent checker resumes from the leaves it accepted, the journal is
bound to the file, the claim, the constants and the checker's code, and a line cut short by a
stop is judged again."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.checker import cube, journal, recheck
from verify.cli import main

CERTS = Path(__file__).resolve().parent.parent / "certificates"
REQUEST = {"registered": None, "constants": {"prop3.c2": "1/10"}, "any_box": False}


def d3() -> tuple[bytes, recheck.Certificate]:
    raw = (CERTS / "prop3-cube-d3.json").read_bytes()
    return raw, recheck.read(json.loads(raw))


def test_a_second_run_takes_the_accepted_leaves_from_the_journal_and_judges_none(tmp_path, monkeypatch):
    raw, cert = d3()
    path, bound = tmp_path / "j.jsonl", journal.key(raw, REQUEST)
    first = cube.check(cert, kept=(path, journal.read(path, bound, 25)))
    assert first.ok and first.from_journal == 0
    assert len(path.read_text().splitlines()) == 1 + len(cert.leaves)

    def judged(item):
        raise AssertionError(f"leaf {item[0]} judged again")

    monkeypatch.setattr(cube, "_judge_item", judged)
    again = cube.check(cert, kept=(path, journal.read(path, bound, 25)))
    assert again.ok and again.from_journal == len(cert.leaves)
    assert (again.boxes, again.split_leaves, again.deepest, again.low) == \
        (first.boxes, first.split_leaves, first.deepest, first.low)
    assert "25 of the leaves (and their boxes) were judged by an earlier run and taken unjudged " \
        f"from the journal {path}: 0 judged in this run" in again.summary()


def test_a_line_cut_short_by_a_stop_is_removed_and_later_runs_resume_past_it(tmp_path):
    """A stop leaves the last line without its newline: the next read drops it (its leaf is
    judged again) so that the lines written after it are read too (red when the cut line stays
    and the next line is glued to it)."""
    raw, cert = d3()
    path, bound = tmp_path / "j.jsonl", journal.key(raw, REQUEST)
    cube.check(cert, kept=(path, journal.read(path, bound, 25)))
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:4] + [lines[4][:20]]))
    done = journal.read(path, bound, 25)
    assert sorted(done) == [0, 1, 2]
    resumed = cube.check(cert, kept=(path, done))
    assert resumed.ok and resumed.from_journal == 3
    assert sorted(journal.read(path, bound, 25)) == list(range(25))


@pytest.mark.parametrize("line", [
    '{"leaf": 25, "boxes": 1, "depth": 0, "low": "0x1p-4"}',  # no such leaf
    '{"leaf": -1, "boxes": 1, "depth": 0, "low": "0x1p-4"}',
    '{"leaf": 0.9, "boxes": 1, "depth": 0, "low": "0x1p-4"}',
    '{"leaf": 0, "boxes": -100000, "depth": 0, "low": "0x1p-4"}',
    '{"leaf": 0, "boxes": 1, "depth": 0, "low": "-inf"}',  # not accepted
    '{"leaf": 0, "boxes": 1, "depth": 0, "low": "nan"}',
    '{"leaf": 0, "boxes": 1, "depth": 0, "low": "0x1p99999"}',  # overflow
    '{"leaf": 1e400, "boxes": 1, "depth": 0, "low": "0x1p-4"}',
])
def test_a_line_that_is_not_an_accepted_leaf_of_the_file_is_refused(tmp_path, line):
    raw, _ = d3()
    path, bound = tmp_path / "j.jsonl", journal.key(raw, REQUEST)
    path.write_text(json.dumps({"key": bound}) + "\n" + line + "\n")
    with pytest.raises(ValueError, match="line 2"):
        journal.read(path, bound, 25)


def test_a_journal_skips_the_judging_only_the_records_are_read_again(tmp_path):
    """A journal with the right first line that says every leaf was accepted, for a file whose
    records are not certificates (the forger's attack): the records are read again and the
    leaf is rejected (red when journaled leaves are taken without reading their record)."""
    raw, cert = d3()
    for leaf in cert.leaves:
        leaf["margins"]["prop3.all_attention"] = [-1.0, 1.0]
    path, bound = tmp_path / "j.jsonl", journal.key(raw, REQUEST)
    path.write_text(json.dumps({"key": bound}) + "\n" + "".join(
        json.dumps({"leaf": i, "boxes": 1, "depth": 0, "low": "0x1p-1"}) + "\n" for i in range(25)))
    verdict = cube.check(cert, kept=(path, journal.read(path, bound, 25)))
    assert not verdict.ok and "leaf 0" in verdict.problems[0] and "recorded" in verdict.problems[0]


@pytest.mark.parametrize("change", ["file", "constants", "claim"])
def test_the_journal_is_bound_to_the_file_the_constants_and_the_claim(tmp_path, change):
    raw, cert = d3()
    path = tmp_path / "j.jsonl"
    journal.read(path, journal.key(raw, REQUEST), 25)
    other = dict(REQUEST)
    if change == "file":
        raw = raw.replace(b"certified", b"certified ", 1)
    elif change == "constants":
        other["constants"] = {"prop3.c2": "1/11"}
    else:
        other["registered"] = {"group": "prop3-cube-d3", "root": [0, 1, 0, 1]}
    with pytest.raises(ValueError, match="is not one of this file"):
        journal.read(path, journal.key(raw, other), 25)


def test_the_key_covers_the_checkers_code(tmp_path, monkeypatch):
    raw, _ = d3()
    before = journal.key(raw, REQUEST)
    code = tmp_path / "checker"
    code.mkdir()
    for p in Path(journal.__file__).parent.glob("*.py"):
        (code / p.name).write_bytes(p.read_bytes())
    (code / "cube.py").write_text((code / "cube.py").read_text() + "\n# changed\n")
    monkeypatch.setattr(journal, "__file__", str(code / "journal.py"))
    assert journal.key(raw, REQUEST) != before


def test_the_command_resumes_and_refuses_a_journal_of_another_file(tmp_path, capsys):
    path = tmp_path / "j.jsonl"
    cert = str(CERTS / "prop3-cube-d3.json")
    assert main(["recheck", cert, "--independent", "--journal", str(path)]) == 0
    assert main(["recheck", cert, "--independent", "--journal", str(path)]) == 0
    assert "25 of the leaves (and their boxes) were judged by an earlier run" in capsys.readouterr().out
    assert main(["recheck", str(CERTS / "prop3-sharp-d3.json"), "--independent", "--journal",
                 str(path)]) == 2
    assert "is not one of this file" in capsys.readouterr().err
    assert main(["recheck", cert, "--journal", str(path)]) == 2
    assert "give --independent too" in capsys.readouterr().err
    assert main(["recheck", cert, "--independent", "--journal", ""]) == 2
    assert "--journal needs a file name" in capsys.readouterr().err
    assert main(["recheck", cert, "--independent", "--journal", str(tmp_path)]) == 2  # a folder
    assert capsys.readouterr().err.count("\n") == 1
