"""A run's journal: every finished case written as one JSON line the moment it is judged, so that a
long run (the full profile takes thousands of CPU-seconds) that is stopped keeps what it has computed and
resumes where it stopped.  Knows nothing of any particular result.

The first line holds the run's *key* (profile, constants, options, the checks it judges and a
fingerprint of the code that computes outcomes) and the command that wrote it; a journal written
under a different key (another command's, or an empty file) is refused rather than mixed into
this run, so a journal never mixes outcomes of two runs or two versions of a check.

The fingerprints (:func:`code_fingerprint`, :func:`fingerprint`) hash what runs: the sources
without their docstrings, comments and blank lines, so that rewording a docstring does not make
a journal, a recorded map or a certificate look as if other code had written it.
"""
from __future__ import annotations

import ast
import hashlib
import io
import json
import tokenize
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple, Sequence

from ..checks import Evidence, Outcome


class JournalError(Exception):
    """The journal cannot be used for this run (other key, unreadable line)."""


PACKAGE = Path(__file__).resolve().parent.parent  # the verify package
COMPUTING = ("checks.py", "engine", "results", "certify", "checker")  # what outcomes depend on (not the presentation)


def code_text(source: str) -> str:
    """A module's source without its docstrings, comments and blank lines (what runs), so that
    a fingerprint of it is the same on any Python version and ignores rewording."""
    drop: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                drop.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    kept = (line.rstrip() for number, line in enumerate(lines, start=1) if number not in drop)
    return "\n".join(line for line in kept if line)


@lru_cache(maxsize=1024)
def _code_digest(raw: bytes) -> bytes:
    """SHA-256 of a source file's :func:`code_text`, cached by its bytes (parsing every module
    costs about 0.4 CPU-s; a run asks for the fingerprint several times)."""
    return hashlib.sha256(code_text(raw.decode("utf-8")).encode()).digest()


def fingerprint(files: Iterable[Path], root: Path = PACKAGE) -> str:
    """SHA-256 over the code of ``files`` (paths under ``root``), named relative to it."""
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.relative_to(root).as_posix().encode() + b"\0" + _code_digest(f.read_bytes()))
    return digest.hexdigest()


def code_fingerprint(root: Path = PACKAGE) -> str:
    """SHA-256 over the code that computes outcomes (``COMPUTING``)."""
    files = []
    for name in COMPUTING:
        files += [root / name] if name.endswith(".py") else sorted((root / name).rglob("*.py"))
    return fingerprint(files, root)


def finder_fingerprint(module: str, root: Path = PACKAGE) -> str:
    """SHA-256 over the code a certificate's judge runs: ``module`` (a path under ``root``,
    "certify/boxes.py") and everything it imports (:func:`imported_modules`).  A change to other
    code (the report, the checker, another result) leaves a certificate's fingerprint alone."""
    return fingerprint(imported_modules(module, root), root)


def imported_modules(module: str, root: Path = PACKAGE) -> list[Path]:
    """The files of this package that ``module`` (a path under ``root``, "certify/cube.py")
    runs: itself, every module of the package it imports, at any depth and inside functions
    too, and their packages' ``__init__.py``; sorted.  What a certificate's fingerprint covers:
    the code its judge runs, and nothing else."""
    seen: set[Path] = set()
    todo = [root / module]
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        todo += [d / "__init__.py" for d in path.parents if root in d.parents]  # subpackages
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            todo += _targets(node, path, root)
    return sorted(seen)


def _targets(node: ast.AST, path: Path, root: Path) -> list[Path]:
    """The package files an import statement may load (a module, or a package's modules)."""
    if isinstance(node, ast.Import):
        bases = [root.parent.joinpath(*a.name.split(".")) for a in node.names
                 if a.name.split(".")[0] == root.name]
        names: Sequence[str] = ()
    elif isinstance(node, ast.ImportFrom):
        if node.level == 0:
            if (node.module or "").split(".")[0] != root.name:
                return []
            base = root.parent.joinpath(*node.module.split("."))
        else:
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            base = base.joinpath(*node.module.split(".")) if node.module else base
        bases, names = [base], [a.name for a in node.names]
    else:
        return []
    out = []
    for base in bases + [b / name for b in bases for name in names]:
        out += [f for f in (base.with_suffix(".py"), base / "__init__.py") if f.is_file()]
    return out


def run_key(profile: str, constants: Mapping[str, str], options: Mapping[str, object],
            code: str | None = None, checks: Sequence[str] | None = None) -> dict:
    """What must agree for two runs' cases to be interchangeable; ``checks``: the ids the run
    judges (a journal of other checks is another run's, not one to append to)."""
    key = {"profile": profile, "constants": dict(sorted(constants.items())),
           "options": {k: options[k] for k in sorted(options)},
           "code": code if code is not None else code_fingerprint()}
    if checks is not None:
        key["checks"] = sorted(checks)
    return key


class Timing(NamedTuple):
    """What judging one case cost: wall-clock seconds and the CPU-seconds of the process that
    judged it and of the children it waited for (every thread; the checker's process a case
    starts); ``None`` in a record written before the runner measured it)."""

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
    if "checks" in stored and stored.get("checks") != key.get("checks"):
        held, want = (", ".join(k.get("checks") or ["(not recorded)"]) for k in (stored, key))
        out.append(f"checks {held}, not {want}")
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
    if not out and "checks" not in stored:
        out.append("an older journal that does not record its checks")
    return "; ".join(out) or "another key"


class Journal:
    """Append-only record of finished cases, keyed by (check id, case label).  Opening an
    existing journal resumes it (a last line cut short by a stop is dropped); a new one starts
    with the run's key and ``command`` (the command line that wrote it, named when another run
    is refused).  ``read_only`` (a report of what the journal holds): the journal may hold
    other checks than the key names (nothing is appended to it)."""

    def __init__(self, path: Path, key: dict, command: str | None = None,
                 read_only: bool = False) -> None:
        self.path = path
        self.done: dict[tuple[str, str], tuple[Outcome, Timing]] = {}
        try:
            if path.exists():
                self._load(key, read_only)
            else:
                head = {"key": key, **({"command": command} if command else {})}
                path.write_text(json.dumps(head) + "\n")
        except IsADirectoryError:
            raise JournalError(f"journal {path} is a directory: name a file") from None
        except OSError as exc:
            raise JournalError(f"cannot use journal {path}: {exc.strerror}") from None

    def _load(self, key: dict, read_only: bool = False) -> None:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
            head = json.loads(lines[0])
            stored = head.get("key")
        except IndexError:
            raise JournalError(f"{self.path} is an empty file, not a verify journal; remove it or "
                               "choose another journal (a new one is created by the run)") from None
        except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            raise JournalError(f"{self.path} is not a verify journal (its first line is not a "
                               "run key); remove it or choose another journal") from None
        if read_only and isinstance(stored, dict):
            stored = {**stored, "checks": key.get("checks")}
        if stored != key:
            by = f" `{head['command']}`" if isinstance(head.get("command"), str) else " another run"
            raise JournalError(f"{self.path} was written by{by} ({key_difference(stored, key)}); "
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
