"""The journal of a branch-and-bound run: every judged box written as one JSON line the moment
its judgement arrives, so a stopped run (hours for a four-dimensional box from its root) resumes
where it stopped, on any executor.

The first line is the run's *key*: group, axes, root, constants, precision, method, depth limit
and the fingerprint of the code that judges (:func:`verify.run.journal.code_fingerprint`); a journal
written under another key is refused, never mixed into the run.  Each record holds the box
(``float.hex``), its depth, the judgement (status, margins, side to split) and its CPU-seconds.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..run.journal import JournalError, code_fingerprint
from .boxes import Judgement


def _hex(box: tuple) -> list[str]:
    return [float(x).hex() for x in box]


def run_key(group: str, axes: tuple, root: tuple, constants, bits: int, method: str,
            max_depth: int, code: str | None = None) -> dict:
    """What must agree for two runs' judgements to be interchangeable."""
    values = getattr(constants, "untracked", lambda: constants)()
    return {"group": group, "axes": list(axes), "root": _hex(root),
            "constants": {k: str(v) for k, v in sorted(values.items())}, "bits": bits,
            "method": method, "max_depth": max_depth,
            "code": code if code is not None else code_fingerprint()}


class BoxJournal:
    """Append-only record of judged boxes, keyed by the box.  Opening an existing journal
    resumes it (a last line cut short by a stop is dropped)."""

    def __init__(self, path: Path, key: dict) -> None:
        self.path = Path(path)
        self.done: dict[tuple, tuple[Judgement, float]] = {}
        if self.path.exists() and self.path.stat().st_size > 0:
            self._load(key)
        else:
            self.path.write_text(json.dumps({"key": key}) + "\n")

    def _load(self, key: dict) -> None:
        lines = self.path.read_text().splitlines()
        try:
            stored = json.loads(lines[0]).get("key")
        except (json.JSONDecodeError, AttributeError):
            raise JournalError(f"{self.path}: not a branch-and-bound journal") from None
        if stored != key:
            changed = sorted(k for k in set(key) | set(stored or {})
                             if (stored or {}).get(k) != key.get(k))
            raise JournalError(f"{self.path} was written by another run (differs in: "
                               f"{', '.join(changed)}); remove it or choose another journal")
        for number, line in enumerate(lines[1:], start=2):
            try:
                r = json.loads(line)
                verdict = Judgement(r["status"], {c: (float.fromhex(lo), float.fromhex(hi))
                                                  for c, (lo, hi) in r["margins"].items()},
                                    r.get("axis"))
                self.done[tuple(r["box"])] = (verdict, float(r["cpu"]))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                if number == len(lines):  # a run stopped while writing its last line
                    self.path.write_text("\n".join(lines[:-1]) + "\n")
                    break
                raise JournalError(f"{self.path}, line {number}: unreadable record") from None

    def get(self, box: tuple) -> tuple[Judgement, float] | None:
        return self.done.get(tuple(_hex(box)))

    def record(self, box: tuple, depth: int, verdict: Judgement, cpu: float) -> None:
        entry = {"box": _hex(box), "depth": depth, "status": verdict.status,
                 "margins": {c: [float(lo).hex(), float(hi).hex()]
                             for c, (lo, hi) in verdict.margins.items()},
                 "axis": verdict.axis, "cpu": cpu}
        with self.path.open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        self.done[tuple(entry["box"])] = (verdict, cpu)
