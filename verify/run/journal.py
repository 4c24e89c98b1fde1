"""A run's journal: every finished case written as one JSON line the moment it is judged, so that a
long run (the full profile takes thousands of CPU-seconds) that is stopped keeps what it has computed and
resumes where it stopped.  Knows nothing of any particular result.

The first line holds the run's *key* (profile, constants, options and a fingerprint of the code
that computes outcomes); a journal written under a different key is refused rather than mixed
into this run, so a journal never mixes outcomes of two versions of a check.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Mapping, NamedTuple

from ..checks import Evidence, Outcome


class JournalError(Exception):
    """The journal cannot be used for this run (other key, unreadable line)."""


PACKAGE = Path(__file__).resolve().parent.parent  # the verify package
COMPUTING = ("checks.py", "engine", "results", "certify", "checker")  # what outcomes depend on (not the presentation)


def code_fingerprint(root: Path = PACKAGE) -> str:
    """SHA-256 over the sources that compute outcomes."""
    digest = hashlib.sha256()
    for name in COMPUTING:
        files = [root / name] if name.endswith(".py") else sorted((root / name).rglob("*.py"))
        for f in files:
            digest.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()


def run_key(profile: str, constants: Mapping[str, str], options: Mapping[str, object],
            code: str | None = None) -> dict:
    """What must agree for two runs' cases to be interchangeable."""
    return {"profile": profile, "constants": dict(sorted(constants.items())),
            "options": {k: options[k] for k in sorted(options)},
            "code": code if code is not None else code_fingerprint()}


class Timing(NamedTuple):
    """What judging one case cost: wall-clock seconds and the CPU-seconds of the process that
    judged it (``time.process_time``: every thread of that process; ``None`` in a record written
    before the runner measured it)."""

    seconds: float
    cpu: float | None = None

    @classmethod
    def of(cls, timing: Timing | float) -> Timing:
        """A timing, or wall seconds alone (the CPU time unknown)."""
        return timing if isinstance(timing, Timing) else cls(float(timing))


def outcome_record(check_id: str, label: str, outcome: Outcome, timing: Timing | float) -> str:
    data = asdict(outcome)
    data["evidence"] = outcome.evidence.value
    timing = Timing.of(timing)
    return json.dumps({"check": check_id, "case": label, "seconds": timing.seconds,
                       "cpu_seconds": timing.cpu, "outcome": data})


def outcome_from_record(line: str) -> tuple[tuple[str, str], Outcome, Timing]:
    record = json.loads(line)
    data = dict(record["outcome"])
    data["evidence"] = Evidence(data["evidence"])
    cpu = record.get("cpu_seconds")
    return ((record["check"], record["case"]), Outcome(**data),
            Timing(float(record["seconds"]), None if cpu is None else float(cpu)))


def key_difference(stored: object, key: Mapping) -> str:
    """Which settings of two run keys differ, in a few words ("profile quick, not default";
    "constants thm2.C"; "computing code")."""
    if not isinstance(stored, Mapping):
        return "no run key"
    out = []
    if stored.get("profile") != key.get("profile"):
        out.append(f"profile {stored.get('profile')}, not {key.get('profile')}")
    old, new = stored.get("constants") or {}, key.get("constants") or {}
    changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    if changed:
        shown = ", ".join(f"{k} = {old.get(k, '(absent)')}" for k in changed[:3])
        out.append(f"constants {shown}" + (f" and {len(changed) - 3} more" if len(changed) > 3 else ""))
    if stored.get("options") != key.get("options"):
        out.append(f"options {json.dumps(stored.get('options'), sort_keys=True)}")
    if stored.get("code") != key.get("code"):
        out.append("other computing code")
    return "; ".join(out) or "another key"


class Journal:
    """Append-only record of finished cases, keyed by (check id, case label).  Opening an
    existing journal resumes it (a last line cut short by a stop is dropped)."""

    def __init__(self, path: Path, key: dict) -> None:
        self.path = path
        self.done: dict[tuple[str, str], tuple[Outcome, Timing]] = {}
        try:
            if path.exists() and path.stat().st_size > 0:
                self._load(key)
            else:
                path.write_text(json.dumps({"key": key}) + "\n")
        except IsADirectoryError:
            raise JournalError(f"journal {path} is a directory: name a file") from None
        except OSError as exc:
            raise JournalError(f"cannot use journal {path}: {exc.strerror}") from None

    def _load(self, key: dict) -> None:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
            stored = json.loads(lines[0]).get("key")
        except (UnicodeDecodeError, json.JSONDecodeError, AttributeError, IndexError):
            raise JournalError(f"{self.path} is not a verify journal (its first line is not a "
                               "run key); remove it or choose another journal") from None
        if stored != key:
            raise JournalError(f"{self.path} was written by another run ({key_difference(stored, key)}); "
                               "remove it or choose another journal")
        for number, line in enumerate(lines[1:], start=2):
            try:
                where, outcome, timing = outcome_from_record(line)
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                if number == len(lines):  # a run stopped while writing its last line
                    self.path.write_text("\n".join(lines[:-1]) + "\n")
                    break
                raise JournalError(f"{self.path}, line {number}: unreadable record") from None
            self.done[where] = (outcome, timing)

    def record(self, check_id: str, label: str, outcome: Outcome, timing: Timing | float) -> None:
        timing = Timing.of(timing)
        with self.path.open("a") as handle:
            handle.write(outcome_record(check_id, label, outcome, timing) + "\n")
        self.done[(check_id, label)] = (outcome, timing)
