"""The commands the README and docs/ show run as shown (issue 31.5).

Every fenced ``console`` block is a session: lines starting with ``$ `` are commands, run with
bash in a scratch folder that sees the checkout's examples/, proofs/ and certificates/; the lines
after a command are what it must print, in order — ``...`` alone stands for lines left out,
``...`` inside a line for any text.  A command exits 0 unless it ends in ``echo "exit $?"``,
whose line then shows its code.  A block preceded by ``<!-- slow -->`` runs only with
``pytest -m slow`` (a whole profile, a slack search).
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"(<!-- slow -->\s*\n)?```console\n(.*?)```", re.S)


def blocks() -> list:
    out = []
    for page in PAGES:
        for i, match in enumerate(FENCE.finditer(page.read_text())):
            marks = [pytest.mark.slow] if match.group(1) else []
            out.append(pytest.param(page, match.group(2), id=f"{page.relative_to(ROOT)}#{i + 1}", marks=marks))
    return out


def sessions(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected lines) pairs of one block."""
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def _pattern(line: str) -> re.Pattern:
    parts = [re.escape(" ".join(p.split())) for p in line.split("...")]
    return re.compile(".*".join(parts))


def follows(expected: list[str], actual: str) -> str | None:
    """None when the expected lines appear in order among the actual ones; else the first
    expected line not found."""
    lines = [" ".join(x.split()) for x in actual.splitlines()]
    at = 0
    for want in expected:
        if want.strip() == "...":
            continue
        pattern = _pattern(want)
        while at < len(lines) and not pattern.fullmatch(lines[at]):
            at += 1
        if at == len(lines):
            return want
        at += 1
    return None


def test_the_matcher_can_fail():
    assert follows(["a", "...", "c"], "a\nb\nc") is None
    assert follows(["c", "a"], "a\nb\nc") == "a"
    assert follows(["x...z"], "x y z") is None and follows(["x...z"], "x y") == "x...z"


def test_every_page_has_a_runnable_block():
    assert len(blocks()) >= 6


@pytest.fixture
def scratch(tmp_path):
    for name in ("examples", "proofs", "certificates"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


@pytest.mark.parametrize("page,text", blocks())
def test_console_blocks_run_as_shown(scratch, page, text):
    env = {**os.environ, "COLUMNS": "200"}
    for command, expected in sessions(text):
        done = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=900)
        assert done.returncode == 0, f"{command!r} exited {done.returncode}:\n{done.stdout[-2000:]}"
        missing = follows(expected, done.stdout)
        assert missing is None, f"{command!r}: {missing!r} not in its output:\n{done.stdout[-3000:]}"
