"""``verify diff OLD.json NEW.json``: what changed between two JSON reports (``verify all --json``).

Checks whose status changed (new failures first), checks whose worst margin moved by more than a
factor, cases added or lost, constants changed.  Checks of OLD missing from NEW (a run of only the
affected checks, ``verify all --affected-by``) are counted as not rerun, not as changes.  A
*regression* is a check that passed in OLD and fails (FAIL, or a documented discrepancy), is
undecided or is incomplete in NEW; ``verify diff`` exits 1 on any.  Reports of different profiles
are not comparable (their cases differ): exit 2.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Mapping

from ..status import Status
from .dependencies import DependencyError, read_json

DEFAULT_FACTOR = 2.0
ORDER = (Status.FAIL, Status.UNDECIDED, Status.INCOMPLETE, Status.DISCREPANCY, Status.PASS)
SEVERITY = {**{s.value: i for i, s in enumerate(ORDER)}, "absent": len(ORDER)}  # worst first


def load_report(path: Path) -> dict:
    data = read_json(path)
    if not isinstance(data.get("checks"), list) or "profile" not in data:
        raise DependencyError(f"{path}: not a verify JSON report (no 'profile' and 'checks')")
    return data


def _number(x) -> float | None:
    if x == "inf":
        return math.inf
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def worst_margin(row: Mapping) -> tuple[float | None, str]:
    """(margin, kind) of the row's worst case, read from its outcomes."""
    for o in row.get("outcomes", []):
        if o.get("case") == row.get("worst_case"):
            return _number(o.get("margin")), o.get("margin_kind", "ratio")
    return None, "ratio"


def moved(old: float | None, new: float | None, factor: float) -> bool:
    """Did a margin move by more than ``factor`` (either way)?  Ratios and differences alike are
    compared by size; a difference that changes sign has moved."""
    if old is None or new is None or old == new:
        return False
    if math.isinf(old) or math.isinf(new) or old == 0 or new == 0 or (old < 0) != (new < 0):
        return True
    ratio = abs(new / old)
    return ratio > factor or ratio < 1 / factor


def provenance_warning(old: Mapping, new: Mapping) -> str | None:
    """One line when both reports carry a provenance block and the blocks differ."""
    a, b = old.get("provenance"), new.get("provenance")
    if not isinstance(a, dict) or not isinstance(b, dict) or not a or not b or a == b:
        return None  # a side without provenance (an older report) says nothing to compare
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return f"warning: the reports differ in provenance ({', '.join(keys)}): not the same code or set-up"


def compare(old: Mapping, new: Mapping, factor: float = DEFAULT_FACTOR) -> dict:
    """The differences between two loaded reports (raises DependencyError on other profiles)."""
    if old["profile"] != new["profile"]:
        raise DependencyError(f"the reports come from different profiles ({old['profile']} vs "
                              f"{new['profile']}): their cases are not comparable")
    rows_old = {r["check"]: r for r in old["checks"]}
    rows_new = {r["check"]: r for r in new["checks"]}
    status, margins, cases = [], [], []
    for cid, b in rows_new.items():
        a = rows_old.get(cid)
        sa, sb = (a or {}).get("status", "absent"), b.get("status")
        if sa != sb:
            status.append({"check": cid, "old": sa, "new": sb,
                           "regression": sa == "pass" and sb in {s.value for s in Status if s.regressed},
                           "worst_case": b.get("worst_case", ""), "detail": b.get("worst_detail", "")})
        if a is None:
            continue
        (ma, kind), (mb, _) = worst_margin(a), worst_margin(b)
        if moved(ma, mb, factor):
            margins.append({"check": cid, "kind": kind, "old": a["worst_margin"], "new": b["worst_margin"],
                            "old_case": a["worst_case"], "new_case": b["worst_case"]})
        la = {o["case"] for o in a.get("outcomes", [])}
        lb = {o["case"] for o in b.get("outcomes", [])}
        if la != lb:
            cases.append({"check": cid, "added": sorted(lb - la), "lost": sorted(la - lb)})
    status.sort(key=lambda s: (not s["regression"], SEVERITY.get(s["new"], 9)))
    consts_a, consts_b = old.get("constants", {}), new.get("constants", {})
    constants = [{"key": k, "old": consts_a.get(k), "new": consts_b.get(k)}
                 for k in sorted(set(consts_a) | set(consts_b)) if consts_a.get(k) != consts_b.get(k)]
    regressions = [s["check"] for s in status if s["regression"]]
    return {"profile": new["profile"], "factor": factor, "constants": constants, "status": status,
            "margins": margins, "cases": cases, "regressions": regressions,
            "not_rerun": [cid for cid in rows_old if cid not in rows_new],
            "provenance_warning": provenance_warning(old, new),
            "exit_code": 1 if regressions else 0}


def markdown(diff: Mapping, old_name: str, new_name: str) -> str:
    """The diff as a pull-request comment."""
    n = len(diff["regressions"])
    head = f"**{n} regression{'s' if n != 1 else ''}**" if n else "**no regression**"
    lines = [f"### verify diff: `{old_name}` → `{new_name}` (profile `{diff['profile']}`)", "",
             f"{head}: {len(diff['status'])} status changes, {len(diff['margins'])} worst margins "
             f"moved by more than x{diff['factor']:g}, {len(diff['cases'])} checks with cases added "
             "or lost" + (f"; {len(diff['not_rerun'])} checks of the old report are not in the new "
                           "one (not rerun)" if diff["not_rerun"] else "") + ".", ""]
    if diff["provenance_warning"]:
        lines += [f"> {diff['provenance_warning']}", ""]
    if diff["constants"]:
        lines.append("Constants changed: " + ", ".join(
            f"`{c['key']}` {c['old'] or '(absent)'} → {c['new'] or '(absent)'}" for c in diff["constants"]) + ".")
        lines.append("")
    if diff["status"]:
        lines += ["| check | was | now | worst case (now) |", "|---|---|---|---|"]
        for s in diff["status"]:
            mark = " ⚠ regression" if s["regression"] else ""
            where = f"{s['worst_case']}: {s['detail']}" if s["worst_case"] else "-"
            lines.append(f"| `{s['check']}` | {s['old']} | **{s['new']}**{mark} | {_cell(where)} |")
        lines.append("")
    if diff["margins"]:
        lines += [f"Worst margins moved by more than x{diff['factor']:g}:", "",
                  "| check | was | now | worst case was → now |", "|---|---|---|---|"]
        lines += [f"| `{m['check']}` | {m['old']} | {m['new']} | {_cell(m['old_case'])} → {_cell(m['new_case'])} |"
                  for m in diff["margins"]]
        lines.append("")
    if diff["cases"]:
        lines += ["| check | cases added | cases lost |", "|---|---|---|"]
        lines += [f"| `{c['check']}` | {_cell('; '.join(c['added']) or '-')} | {_cell('; '.join(c['lost']) or '-')} |"
                  for c in diff["cases"]]
        lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def to_json(diff: Mapping) -> str:
    return json.dumps(diff, indent=2)
