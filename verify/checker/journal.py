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
from pathlib import Path

from .recheck import LeafVerdict


def key(certificate: bytes, request: dict) -> str:
    """What a journal is bound to: the file's bytes, the request's claim and constants, and the
    source of every module of the checker."""
    h = hashlib.sha256(certificate)
    h.update(json.dumps([request.get(k) for k in ("registered", "constants", "any_box")],
                        sort_keys=True).encode())
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(path.read_bytes())
    return h.hexdigest()


def read(path: Path, bound: str) -> dict[int, LeafVerdict]:
    """The leaves accepted so far (none for a new journal, which is started); ValueError for a
    journal bound to anything else.  A line cut short by a stop ends the reading."""
    if not path.exists():
        path.write_text(json.dumps({"key": bound}) + "\n")
    lines, done = path.read_text().splitlines(), {}
    try:
        if json.loads(lines[0])["key"] != bound:
            raise KeyError
    except (IndexError, ValueError, KeyError, TypeError):
        raise ValueError(f"the journal {path} was written for another file, claim, constants or "
                         "checker (remove it to start again)") from None
    for line in lines[1:]:
        try:
            r = json.loads(line)
            done[int(r["leaf"])] = LeafVerdict(int(r["leaf"]), None, int(r["boxes"]), int(r["depth"]),
                                               float.fromhex(r["low"]))
        except (ValueError, KeyError, TypeError):
            break
    return done


def write(path: Path, found: LeafVerdict) -> None:
    """Append one accepted leaf."""
    with path.open("a") as f:
        f.write(json.dumps({"leaf": found.index, "boxes": found.boxes, "depth": found.depth,
                            "low": found.low.hex()}) + "\n")
