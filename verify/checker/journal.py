"""The journal of a cube or cone check (proofs/checker.md, section 18): the leaves this checker
accepted in an earlier run on the same file, claim, constants and checker code, so that a run
of hours that is stopped resumes where it stopped.  The first line names what the journal is
bound to; then one JSON line per accepted leaf, written as it is accepted.  It is read by the
checker only, on request (`verify recheck --independent --journal FILE`): whoever can write the
file can make the checker skip a leaf, so it is trusted as the checker's own code is.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import flint

from .recheck import LeafVerdict


def key(certificate: bytes, request: dict) -> str:
    """What a journal is bound to: the file's bytes, the request's claim and constants, the
    Python and python-flint versions, and every module of the checker (name and source).  It is
    no secret: it catches a journal of another run, not a forged one (section 18)."""
    h = hashlib.sha256(certificate)
    h.update(json.dumps([request.get(k) for k in ("registered", "constants", "any_box")]
                        + [sys.version, flint.__version__], sort_keys=True).encode())
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _leaf(line: str, n: int) -> LeafVerdict:
    """One line: a leaf index below n, at least one box, a depth >= 0, a lower end > 0."""
    r = json.loads(line)
    i, boxes, depth, low = r["leaf"], r["boxes"], r["depth"], float.fromhex(r["low"])
    if not all(type(v) is int for v in (i, boxes, depth)) or not (0 <= i < n and boxes >= 1
                                                                   and depth >= 0 and low > 0):
        raise ValueError(f"not an accepted leaf of this file: {line[:80]}")
    return LeafVerdict(i, None, boxes, depth, low)


def read(path: Path, bound: str, n: int) -> dict[int, LeafVerdict]:
    """The leaves accepted so far of a file of n leaves (none for a new journal, which is
    started); ValueError for a journal of anything else or a line that is not an accepted leaf.
    A last line cut short by a stop is removed (its leaf is judged again)."""
    if not path.exists() or not path.read_text():  # new, or stopped before its first line
        path.write_text(json.dumps({"key": bound}) + "\n")
    try:
        text = path.read_text()
        lines = text.splitlines()
        if json.loads(lines[0])["key"] != bound:
            raise KeyError
    except (IndexError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"the journal {path} is not one of this file, claim, constants and "
                         f"checker ({type(exc).__name__}; remove it to start again)") from None
    done: dict[int, LeafVerdict] = {}
    whole = len(lines)
    for k, line in enumerate(lines[1:], 1):
        try:
            found = _leaf(line, n)
        except (ValueError, KeyError, TypeError, OverflowError) as exc:
            if k < len(lines) - 1 or text.endswith("\n"):
                raise ValueError(f"the journal {path}, line {k + 1}: {exc}") from None
            whole = k
            break
        done[found.index] = found
    if not text.endswith("\n"):  # a stop cut the last line short: keep the whole lines only
        path.write_text("\n".join(lines[:whole]) + "\n")
    return done


def write(path: Path, found: LeafVerdict) -> None:
    """Append one accepted leaf."""
    with path.open("a") as f:
        f.write(json.dumps({"leaf": found.index, "boxes": found.boxes, "depth": found.depth,
                            "low": found.low.hex()}) + "\n")
