"""Certificates of a branch-and-bound run, and their independent recheck.

A certificate (JSON, format 2) holds the claim group, the statement proved in words, the axes,
the constants, the root box, the precision, the fingerprint of the code that judges a leaf
(:func:`code_fingerprint`: certify/boxes.py and what it imports), the enclosure method (centred or plain,
:mod:`verify.certify.boxes`) and every leaf: its box (floats written exactly, as ``float.hex``)
and each claim's margin enclosure ``[lower, upper]``; nothing that depends on the machine or
the executor (no timings), so the same run writes the same bytes anywhere.  Format 1 (the
first certificates: two axes, no "axes" and no "claim") is read as before.
:func:`recheck` trusts none of it: it checks that the leaves tile the root box
(:mod:`verify.certify.tiling`, exact rationals), re-evaluates every leaf (optionally in worker
processes), and rejects a leaf whose recomputed margin is not > 0 or does not overlap the stored
enclosure; a centred leaf is also cross-checked against its values at the corners (a wrong
gradient shows there).  A reader then trusts one leaf evaluation, not the search.
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

from ..run.journal import finder_fingerprint
from . import statements
from .boxes import Box, Run, branch_and_bound, judge_box
from .tiling import coverage_problems

FORMAT = "verify-certificate/2"
FINDER = "certify/boxes.py"  # the judge of every leaf; the fingerprint covers what it imports


def code_fingerprint() -> str:
    """The fingerprint of the code that judges a leaf (:func:`verify.run.journal.finder_fingerprint`)."""
    return finder_fingerprint(FINDER)

FORMATS = ("verify-certificate/1", FORMAT)


def _hex_box(box: Box) -> list[str]:
    return [float(x).hex() for x in box]


def _box(values: list[str]) -> Box:
    return tuple(float.fromhex(x) for x in values)  # type: ignore[return-value]


def certificate(run: Run, constants) -> dict:
    """The JSON document of a run (format 2)."""
    values = getattr(constants, "untracked", lambda: constants)()
    return {
        "format": FORMAT,
        "group": run.group,
        "claim": statements.statement(run.group, run.root, values),
        "axes": list(statements.axes(run.group)),
        "constants": {k: str(v) for k, v in sorted(values.items())},
        "root": _hex_box(run.root),
        "bits": run.bits,
        "method": run.method,
        "code": code_fingerprint(),
        "leaves": [{"box": _hex_box(leaf.box), "depth": leaf.depth, "status": leaf.status,
                    "margins": {c: [float(lo).hex(), float(hi).hex()]
                                for c, (lo, hi) in leaf.margins.items()}}
                   for leaf in run.leaves],
    }


def axes_of(data: dict) -> list[str]:
    """A certificate's axes (format 1: the two of (ln d, ln eps))."""
    return list(data.get("axes") or statements.AXES_2D)


def write(run: Run, constants, path: Path) -> None:
    path.write_text(json.dumps(certificate(run, constants), indent=1) + "\n")


@dataclass(frozen=True)
class Recheck:
    leaves: int
    problems: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def seed(data: dict, group: str, root: Box, constants, bits: int, method: str,
         max_depth: int, max_boxes: int | None) -> list[tuple[Box, int]] | None:
    """A certificate's leaves as (box, depth) pairs to start a branch and bound from, when they
    are what a run from ``root`` would end with: the same group, axes, root, constants,
    precision and method, the same values of the constants the group reads
    (:data:`verify.certify.statements.READS`: a constant added to the file since, or changed,
    that the claims do not read does not matter), every leaf certified, none deeper than ``max_depth``, and the run
    from the root within ``max_boxes`` judged boxes (2 leaves - 1: every split box and every
    leaf).  The run then judges each leaf once, certifies it as the run from the root would,
    and returns the same leaves in the same order: the same outcome for about half the boxes
    judged.  The code that wrote it need not be this code: every leaf is judged again, so a
    fingerprint that differs is only reported (:func:`seed_note`).  None otherwise (or when the
    leaves do not tile the root)."""
    leaves = data.get("leaves") or []
    values = getattr(constants, "untracked", lambda: constants)()  # comparing is not reading
    if (data.get("format") not in FORMATS or data.get("group") != group
            or axes_of(data) != list(statements.axes(group))
            or data.get("root") != _hex_box(root) or data.get("bits") != bits
            or data.get("method") != method
            or not _same_reads(data, group, values)
            or any(leaf.get("status") != "certified" or leaf.get("depth", max_depth + 1) > max_depth
                   for leaf in leaves)
            or not leaves or (max_boxes is not None and 2 * len(leaves) - 1 > max_boxes)):
        return None
    boxes = [_box(leaf["box"]) for leaf in leaves]
    if coverage_problems(root, boxes):
        return None
    return [(box, int(leaf["depth"])) for box, leaf in zip(boxes, leaves)]


def _same_reads(data: dict, group: str, values) -> bool:
    """Whether the certificate was made with this run's values of the constants ``group`` reads."""
    made = data.get("constants") or {}
    return all(made.get(k) == str(values[k]) for k in statements.READS.get(group, tuple(values)))


def seed_note(data: dict, name: str) -> str:
    """What an outcome says about the certificate it started from."""
    same = data.get("code") == code_fingerprint()
    return (f"started from the {len(data['leaves'])} leaves of {name}"
            + ("" if same else " (its fingerprint differs: written before a change to the code "
               "that computes outcomes; every leaf judged again by this code)"))


class Seed(NamedTuple):
    start: list  # (box, depth) pairs
    note: str
    name: str = ""  # the file, as certificates/NAME.json


def seed_from(folder: Path, group: str, root: Box, constants, bits: int, method: str,
              max_depth: int, max_boxes: int | None) -> Seed | None:
    """:func:`seed` from the first certificate of ``group`` in ``folder`` that gives one."""
    for path in sorted(folder.glob(f"{group}-*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        found = seed(data, group, root, constants, bits, method, max_depth, max_boxes)
        if found is not None:
            name = f"{folder.name}/{path.name}"
            return Seed(found, seed_note(data, name), name)
    return None


def invalid_note(folder: Path, group: str, root: Box, constants, max_depth: int) -> str | None:
    """Why a committed certificate of ``group`` over ``root`` made for these values of the
    constants its claims read is not a certificate at all (unreadable, a leaf not certified or
    deeper than ``max_depth``, leaves that do not tile the root), in words naming the file; None
    when every such file is one (a file made for another root or other constants is not this
    case's: :func:`stale_note`)."""
    values = getattr(constants, "untracked", lambda: constants)()  # comparing is not reading
    for path in sorted(folder.glob(f"{group}-*.json")):
        try:
            data = json.loads(path.read_text())
            if data.get("group") != group or data.get("root") != _hex_box(root) \
                    or not _same_reads(data, group, values):
                continue
            leaves = data.get("leaves") or []
            bad = next((i for i, leaf in enumerate(leaves) if leaf.get("status") != "certified"
                        or leaf.get("depth", max_depth + 1) > max_depth), None)
            why = ("it has no leaves" if not leaves else
                   f"leaf {bad} is not a certified leaf within depth {max_depth}"
                   if bad is not None else
                   "; ".join(coverage_problems(root, [_box(leaf["box"]) for leaf in leaves])))
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            why = f"it cannot be read ({exc})"
        if why:
            return f"{folder.name}/{path.name} is INVALID: {why}"
    return None

def stale_note(folder: Path, group: str, root: Box, constants) -> str | None:
    """Why the committed certificates of ``group`` over ``root`` in ``folder`` do not seed this
    run when every one was made for other values of the constants the group reads, in words
    ("certificates/thm2-4d-whole-range.json was made for thm2.C = 2, not 3"); None when one was
    made for these values, or none of that group and root is there."""
    values = getattr(constants, "untracked", lambda: constants)()  # comparing is not reading
    first = None
    for path in sorted(folder.glob(f"{group}-*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if data.get("group") != group or data.get("root") != _hex_box(root):
            continue
        if _same_reads(data, group, values):
            return None
        if first is None:
            made = data.get("constants") or {}
            differ = [k for k in statements.READS.get(group, sorted(values))
                      if made.get(k) != str(values[k])]
            first = (f"{folder.name}/{path.name} was made for "
                     f"{', '.join(f'{k} = {made.get(k)}' for k in differ)}, "
                     f"not {', '.join(str(values[k]) for k in differ)}")
    return first


def stored_margins(leaf: dict) -> dict:
    """A leaf's stored enclosures as floats: claim -> (lower, upper)."""
    return {c: (float.fromhex(lo), float.fromhex(hi)) for c, (lo, hi) in leaf["margins"].items()}


def leaf_box(leaf: dict) -> Box:
    """A leaf's box as floats."""
    return _box(leaf["box"])


def leaf_item(data: dict, index: int, constants) -> tuple:
    """The work item of :func:`recheck_leaf` for leaf ``index`` of the certificate ``data``."""
    leaf = data["leaves"][index]
    return (index, data["group"], leaf_box(leaf), stored_margins(leaf), constants,
            int(data["bits"]), data.get("method", "plain"))


def recheck_leaf(item: tuple) -> list[str]:
    index, group, box, stored, constants, bits, method = item
    status, pairs = judge_box(group, box, constants, bits, method, corners=True)
    out = []
    if status != "certified":
        out.append(f"leaf {index}: not certified on recomputation ({status})")
    for claim, (lo, hi) in pairs.items():
        if claim not in stored:
            out.append(f"leaf {index}: margin of {claim} missing")
            continue
        s_lo, s_hi = stored[claim]
        if not (math.isfinite(s_lo) and math.isfinite(s_hi) and 0 < s_lo <= s_hi):
            out.append(f"leaf {index}: stored margin of {claim} [{s_lo:.6g}, {s_hi:.6g}] is not a "
                       "finite enclosure above 0 (a certified leaf's)")
        if hi < s_lo or lo > s_hi:
            out.append(f"leaf {index}: stored margin of {claim} [{s_lo:.6g}, {s_hi:.6g}] disagrees "
                       f"with the recomputed [{lo:.6g}, {hi:.6g}]")
    return out


def recheck(data: dict, workers: int = 1, check_code: bool = False) -> Recheck:
    """Re-verify a certificate independently of the run that wrote it.  Every leaf is judged
    again by this code, so another code fingerprint is a note, not a problem (``check_code``:
    make it a problem)."""
    if data.get("format") not in FORMATS:
        return Recheck(0, ("not a verify certificate",))
    group = data.get("group")
    if group not in statements.AXES or axes_of(data) != list(statements.axes(group)):
        return Recheck(0, (f"unknown claim group {group!r} or axes {axes_of(data)}",))
    problems, notes = [], []
    if data.get("code") != code_fingerprint():
        (problems if check_code else notes).append(
            "the fingerprint differs: the code that judges a leaf (certify/boxes.py and the "
            "modules it imports; docstrings and comments aside) has changed since this "
            "certificate was written; every leaf is judged again by this code, so the verdict "
            "does not rest on the old one")
    constants = {k: Fraction(v) for k, v in data["constants"].items()}
    root = _box(data["root"])
    leaves = data["leaves"]
    boxes = [_box(leaf["box"]) for leaf in leaves]
    problems += coverage_problems(root, boxes)
    items = [leaf_item(data, i, constants) for i in range(len(leaves))]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            found = list(pool.map(recheck_leaf, items, chunksize=16))
    else:
        found = [recheck_leaf(item) for item in items]
    problems += [p for leaf in found for p in leaf]
    return Recheck(len(leaves), tuple(problems), tuple(notes))


def slice_leaves(data: dict, point: dict[int, float]) -> list[tuple[Box, dict]]:
    """The leaves of a certificate whose box contains ``point`` on the given axes (axis index
    -> coordinate), as (box, stored margins): e.g. the tiling of (u, v) at one (ln d, ln eps)."""
    out = []
    for leaf in data["leaves"]:
        box = _box(leaf["box"])
        if all(box[2 * i] <= x <= box[2 * i + 1] for i, x in point.items()):
            out.append((box, stored_margins(leaf)))
    return out


def rewrite(data: dict, executor=None) -> tuple[dict | None, str]:
    """The certificate written again by this code: every leaf judged again from its own box
    (the same group, root, constants, precision and method), and the document of that run —
    the same leaves in the same order, their enclosures and the fingerprint this code gives
    them.  (None, why) when this code does not certify every leaf again without a split."""
    group = data.get("group")
    if data.get("format") not in FORMATS or group not in statements.AXES:
        return None, f"not a box certificate of a known group ({group!r})"
    constants = {k: Fraction(v) for k, v in data["constants"].items()}
    start = [(_box(leaf["box"]), int(leaf["depth"])) for leaf in data["leaves"]]
    gaps = coverage_problems(_box(data["root"]), [box for box, _ in start]) if start else ["no leaves"]
    if gaps:
        return None, f"its leaves do not tile its root ({gaps[0]}): not rewritten"
    run = branch_and_bound(group, _box(data["root"]), constants, int(data["bits"]),
                           max(depth for _, depth in start), method=data.get("method", "plain"),
                           start=start, executor=executor)
    lost = [i for i, (leaf, (box, _)) in enumerate(zip(run.leaves, start))
            if leaf.box != box or leaf.status != "certified"]
    if len(run.leaves) != len(start) or lost:
        return None, (f"leaf {lost[0] if lost else len(start)} does not certify again without a "
                      "split: not rewritten (`verify certify` from the root writes a new one)")
    return certificate(run, constants), f"{len(run.leaves)} leaves judged again"
