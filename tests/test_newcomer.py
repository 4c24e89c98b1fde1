"""A newcomer's round (issue 38): a fresh clone installed exactly as the README says, its quick
start, one small command of each row of its table of commands, and one notebook executed
headlessly as it says; the round fails on any traceback and on any command that stays silent
for more than SILENT_SECONDS.  Slow (a virtual environment, an install, a few minutes of
commands): run it with ``python -m pytest -m slow tests/test_newcomer.py``.

The clone is of this checkout's committed HEAD (uncommitted changes are not in it)."""
from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SILENT_SECONDS = 60.0  # the longest a command may print nothing (a progress line comes every 30 s)
# one small command for each row of the README's table, by the row's command ("verify NAME");
# a row without one here fails the test, so a new command gets its smoke command
SMALL = {
    "verify all": "verify all --profile quick --output my.md",  # the quick start's: run once
    "verify check": "verify check thm2.final --d 3 --eps 0.5",
    "verify list": "verify list",
    "verify eval": "verify eval --d 3 --alpha-s 1.5 --beta-s 1.2 --certified",
    "verify plan": "verify plan three-phase --d 3 --eps 0.5",
    "verify certify": "verify certify prop1 --d 2 10 --eps 0.1 0.5 --output prop1.cert.json",
    "verify certify-cube": "verify certify-cube prop3-cube-d3 --output cube.json",
    "verify recheck": "verify recheck cube.json",
    "verify explain": "verify explain thm2.C",
    "verify slack": "verify slack thm2.T_factor --only thm2.T_chain",
    "verify diff": "verify diff examples/baseline-quick.json examples/baseline-quick.json",
    "verify deps": "verify deps --from examples/baseline-quick.json",
    "verify experiments": ("verify experiments --profile quick --tasks occurrence --plans joint,A "
                           "--seeds 1 --map-seeds 0 --output exp"),
}
EXIT_OK = {"verify deps": (0, 1)}  # 1: the recorded map differs from the baseline's reads


def reader_install() -> str:
    """The README's command for a reader, without its last step (`verify all`, run here on the
    quick profile by the quick start and the table's row)."""
    text = README.read_text()
    line = re.search(r"# for a reader[^\n]*\n(.+)\n", text).group(1)
    assert line.endswith(" && verify all"), line
    return line[: -len(" && verify all")]


def quick_start() -> list[str]:
    block = re.search(r"## Quick start\s+```console\n(.*?)```", README.read_text(), re.S).group(1)
    return [line[2:] for line in block.splitlines() if line.startswith("$ ")]


def table_rows() -> list[str]:
    """The command of each row of the README's table ("verify NAME")."""
    table = README.read_text().split("## Commands", 1)[1].split("\n\n", 2)[1]
    return [" ".join(m.group(1).split()[:2]) for m in re.finditer(r"^\| `(verify [^`]*)`", table, re.M)]


def watched(command: str, cwd: Path, env: dict, timeout: float = 1800) -> tuple[int, str, float]:
    """Run ``command`` in bash; (exit code, output, the longest silence in seconds).  Killed, and
    the test fails, when it prints nothing for SILENT_SECONDS."""
    proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    last = [time.monotonic()]
    longest = [0.0]

    def read() -> None:
        for line in proc.stdout:
            now = time.monotonic()
            longest[0] = max(longest[0], now - last[0])
            last[0] = now
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    began = time.monotonic()
    while proc.poll() is None:
        quiet = time.monotonic() - last[0]
        if quiet > SILENT_SECONDS or time.monotonic() - began > timeout:
            os.killpg(proc.pid, 9)
            proc.wait()
            pytest.fail(f"{command!r} printed nothing for {quiet:.0f} s:\n{''.join(lines)[-3000:]}")
        time.sleep(0.5)
    reader.join(timeout=10)
    longest[0] = max(longest[0], time.monotonic() - last[0])
    return proc.returncode, "".join(lines), longest[0]


def _digest(folder: Path) -> dict[str, tuple[str, float]]:
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime)
            for p in sorted(folder.glob("*.py"))}


@pytest.mark.slow
def test_a_newcomer_round_from_a_fresh_clone(tmp_path):
    clone = tmp_path / "verify"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "COLUMNS")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not p.startswith(str(ROOT)))  # not this checkout's venv
    began = time.monotonic()
    code, out, _ = watched(reader_install(), clone, env, timeout=3600)
    assert code == 0, out[-3000:]
    timings = [("install", time.monotonic() - began, 0.0)]
    activate = ". .venv/bin/activate && "
    commands = quick_start()
    assert commands and all(c.startswith("verify ") for c in commands)
    rows = table_rows()
    assert set(rows) == set(SMALL), f"rows without a smoke command: {set(rows) - set(SMALL)}"
    commands += [SMALL[row] for row in rows if SMALL[row] not in commands]
    for command in commands:
        start = time.monotonic()
        code, out, silence = watched(activate + command, clone, env)
        row = " ".join(command.split()[:2])
        assert code in EXIT_OK.get(row, (0,)), f"{command!r} exited {code}:\n{out[-3000:]}"
        assert "Traceback" not in out, f"{command!r}:\n{out[-3000:]}"
        timings.append((command, time.monotonic() - start, silence))
    # a notebook executed headlessly as the README says, the .py files untouched
    notebook = re.search(r"`(jupytext --to ipynb --execute --output \S+ notebooks/\S+\.py)`",
                         " ".join(README.read_text().split())).group(1)
    out_file = tmp_path / "prop1.ipynb"
    notebook = notebook.replace(shlex.split(notebook)[5], str(out_file))
    before = _digest(clone / "notebooks")
    code, out, _ = watched(activate + "pip install -q -e '.[notebooks]'", clone, env, timeout=3600)
    assert code == 0, out[-3000:]
    start = time.monotonic()
    code, out, silence = watched(activate + notebook, clone, env)
    assert code == 0 and "Traceback" not in out, out[-3000:]
    timings.append((notebook, time.monotonic() - start, silence))
    assert out_file.exists() and '"output_type": "error"' not in out_file.read_text()
    assert _digest(clone / "notebooks") == before
    assert not list((clone / "notebooks").glob("*.ipynb"))
    report = "\n".join(f"{seconds:7.1f} s (longest silence {quiet:4.1f} s)  {what}"
                       for what, seconds, quiet in timings)
    print(f"\nnewcomer round, {time.monotonic() - began:.0f} s in all:\n{report}")
    shutil.rmtree(clone / ".venv", ignore_errors=True)
