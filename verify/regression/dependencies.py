"""Which checks read which constants: recorded while the checks run, never declared by hand.

The runner judges every case through :class:`verify.constants.Tracked`, so each outcome carries the
keys it read (``Outcome.reads``) and every JSON report lists them per check (``"reads"``).  The
*recorded map* ``verify/dependency_map.json`` is that list from a real run of the quick profile
(``verify deps --write`` makes it, ``verify deps`` checks it): commands that must know the
dependencies *before* running anything (``verify explain``, ``verify all --affected-by``,
``verify slack``) read it.  A check missing from the map (added since it was written) is counted
as reading every constant, so a stale map runs too much, never too little.
"""
from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from ..checks import Check, Result
from ..constants import Constant

MAP_FILE = Path(__file__).resolve().parent / "dependency_map.json"
PROOFS = Path(__file__).resolve().parents[2] / "proofs"
MAP_PROFILE = "quick"


class DependencyError(ValueError):
    """Unusable input to a dependency command (reported in one line, exit 2)."""


@dataclass(frozen=True)
class DependencyMap:
    """check id -> the constants it read, from one run (``profile``, ``code`` fingerprint)."""

    reads: Mapping[str, tuple[str, ...]]
    profile: str
    code: str

    def readers(self, key: str, checks: Iterable[Check]) -> list[str]:
        """The check ids that read ``key`` (a check the map does not know reads everything)."""
        return [c.id for c in checks if c.id not in self.reads or key in self.reads[c.id]]

    def unknown(self, checks: Iterable[Check]) -> list[str]:
        return [c.id for c in checks if c.id not in self.reads]


def all_checks(results: Iterable[Result]) -> list[Check]:
    return [check for result in results for check in result.checks]


def from_reports(reports: Sequence, profile: str, code: str) -> DependencyMap:
    """The map of a finished run (runner.CheckReport objects)."""
    return DependencyMap({rep.check.id: tuple(sorted(rep.reads)) for rep in reports}, profile, code)


def from_json_report(path: Path) -> DependencyMap:
    """The map a ``verify all --json`` report recorded (its checks' ``reads``)."""
    data = read_json(path)
    try:
        reads = {row["check"]: tuple(row["reads"]) for row in data["checks"]}
    except (KeyError, TypeError):
        raise DependencyError(f"{path}: a JSON report without recorded reads (written by an older "
                              "verify?)") from None
    prov = data.get("provenance") or {}
    return DependencyMap(reads, str(data.get("profile")), str(prov.get("code", "")))


def read_json(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise DependencyError(f"no such file: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise DependencyError(f"{path}: not a JSON file") from None
    if not isinstance(data, dict):
        raise DependencyError(f"{path}: not a verify JSON report")
    return data


def dumps(dep: DependencyMap) -> str:
    """The map file's bytes: sorted, one check per line, so that a rerun gives the same bytes."""
    lines = ",\n".join(f"    {json.dumps(cid)}: {json.dumps(list(keys))}"
                       for cid, keys in sorted(dep.reads.items()))
    return (f'{{\n  "generated_by": "verify deps --write (a run of the {dep.profile} profile)",\n'
            f'  "profile": {json.dumps(dep.profile)},\n  "code": {json.dumps(dep.code)},\n'
            f'  "reads": {{\n{lines}\n  }}\n}}\n')


def differences(dep: DependencyMap, recorded: DependencyMap) -> list[str]:
    """The check ids whose reads differ between two maps (or that one of them lacks)."""
    return sorted(c for c in set(dep.reads) | set(recorded.reads)
                  if dep.reads.get(c) != recorded.reads.get(c))


def map_json(dep: DependencyMap, changed: Sequence[str], written: bool) -> str:
    """``verify deps --json``: the map, and how it compares with the recorded one."""
    return json.dumps({"profile": dep.profile, "code": dep.code,
                       "reads": {cid: list(keys) for cid, keys in sorted(dep.reads.items())},
                       "differs_from_recorded": list(changed), "written": written}, indent=2) + "\n"


def load_map(path: Path = MAP_FILE) -> DependencyMap:
    """The recorded map; a missing file is an empty map (every check then counts as a reader)."""
    if not Path(path).exists():
        return DependencyMap({}, MAP_PROFILE, "")
    data = read_json(path)
    return DependencyMap({k: tuple(v) for k, v in data["reads"].items()}, data["profile"], data["code"])


def changed_keys(old: Mapping[str, Constant], new: Mapping[str, Constant]) -> list[str]:
    """Keys whose exact value differs between two constants sets, or present in only one."""
    keys = set(old) | set(new)
    return sorted(k for k in keys if k not in old or k not in new or old[k].value != new[k].value)


def check_keys(keys: Iterable[str], known: Mapping[str, Constant]) -> list[str]:
    """``keys`` validated against the constants file (an unknown key names the closest one)."""
    out = []
    for key in keys:
        if key not in known:
            close = difflib.get_close_matches(key, list(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else " (see proofs/constants.toml)"
            raise DependencyError(f"unknown constant {key!r}{hint}")
        out.append(key)
    return out


def affected(keys: Sequence[str], checks: Iterable[Check], dep: DependencyMap) -> list[str]:
    """The check ids that read any of ``keys``, in registry order."""
    return [c.id for c in checks if c.id not in dep.reads or set(keys) & set(dep.reads[c.id])]


def used_by(reports: Sequence) -> dict[str, list[str]]:
    """constant -> the ids of the checks of this run that read it."""
    out: dict[str, list[str]] = {}
    for rep in reports:
        for key in sorted(rep.reads):
            out.setdefault(key, []).append(rep.check.id)
    return out


def compact(check_ids: Sequence[str]) -> str:
    """``thm2.{final, delta}, contrast.separation``: check ids grouped by result."""
    groups: dict[str, list[str]] = {}
    for cid in check_ids:
        result, _, name = cid.partition(".")
        groups.setdefault(result, []).append(name)
    return ", ".join(f"{r}.{names[0]}" if len(names) == 1 else f"{r}.{{{', '.join(names)}}}"
                     for r, names in groups.items())


# ------------------------------------------------------------------------------ proof steps

_STEP = re.compile(r"^\s*(\d+)\.\s")


def proof_blocks(text: str) -> list[tuple[str, str]]:
    """A proof document as (label, text) blocks: each numbered step (``step N``, continuation
    lines included) and each other paragraph (``line L``).  A line that starts with a number and
    a dot opens a step only where Markdown would open a list item: after a blank line, inside a
    list of steps, or as step 1; inside a paragraph ("... at most `cor1.max_repetitions` =" /
    "5000. Examples ...") it is the paragraph's wrapped text."""
    blocks: list[tuple[str, list[str]]] = []
    fresh = True
    for number, line in enumerate(text.splitlines(), start=1):
        step = _STEP.match(line)
        if not line.strip():
            fresh = True
            continue
        in_list = bool(blocks) and blocks[-1][0].startswith("step ")
        if step and not (fresh or in_list or step.group(1) == "1"):
            step = None
        if step or fresh:
            blocks.append((f"step {step.group(1)}" if step else f"line {number}", [line.strip()]))
        else:
            blocks[-1][1].append(line.strip())
        fresh = False
    return [(label, " ".join(lines)) for label, lines in blocks]


def proof_steps(key: str, check_ids: Sequence[str], root: Path = PROOFS) -> list[tuple[str, str, str]]:
    """(document, step label, text) of every block of proofs/*.md that names ``key`` or one of
    ``check_ids`` as ``[check.id]``."""
    needles = [f"`{key}`", *(f"[{cid}]" for cid in check_ids)]
    out = []
    for doc in sorted(root.glob("*.md")) if root.is_dir() else []:
        for label, block in proof_blocks(doc.read_text()):
            if any(n in block for n in needles):
                out.append((f"proofs/{doc.name}", label, block))
    return out


def explain(key: str, constants: Mapping[str, Constant], results: Sequence[Result],
            dep: DependencyMap) -> dict:
    """What ``verify explain KEY`` prints: value, meaning, source, reading checks, proof steps."""
    (key,) = check_keys([key], constants)
    c = constants[key]
    checks = all_checks(results)
    readers = set(dep.readers(key, checks))
    rows = [{"check": ch.id, "step": ch.step, "claim": ch.claim, "evidence": ch.evidence.value,
             "recorded": ch.id in dep.reads}
            for ch in checks if ch.id in readers]
    return {"key": key, "value": c.text, "exact": str(Fraction(c.value)), "meaning": c.meaning,
            "source": c.source, "domain": c.domain.text if c.domain else None,
            "domain_reason": c.domain.reason if c.domain else "", "checks": rows,
            "proof_steps": [{"document": d, "step": s, "text": t}
                            for d, s, t in proof_steps(key, [r["check"] for r in rows])],
            "map": {"profile": dep.profile, "code": dep.code}}
