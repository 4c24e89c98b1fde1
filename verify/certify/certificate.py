"""Certificates of a branch-and-bound run, and their independent recheck.

A certificate (JSON) holds the claim group, the constants, the root box, the precision, the
code fingerprint (:func:`verify.journal.code_fingerprint`), the enclosure method (centred or
plain, :mod:`verify.certify.boxes`) and every leaf: its box (floats
written exactly, as ``float.hex``) and each claim's margin enclosure ``[lower, upper]``.
:func:`recheck` trusts none of it: it checks that the leaves tile the root box (inside it,
interiors disjoint, areas summing to the root's, in exact rational arithmetic), re-evaluates every
leaf (optionally in worker processes), and rejects a leaf whose recomputed margin is not > 0 or
does not overlap the stored enclosure; a centred leaf is also cross-checked against its values at the
four corners (a wrong gradient shows there).  A reader then trusts one leaf evaluation, not the search.
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..run.journal import code_fingerprint
from .boxes import Box, Run, judge_box

FORMAT = "verify-certificate/1"


def _hex_box(box: Box) -> list[str]:
    return [float(x).hex() for x in box]


def _box(values: list[str]) -> Box:
    return tuple(float.fromhex(x) for x in values)  # type: ignore[return-value]


def certificate(run: Run, constants) -> dict:
    """The JSON document of a run."""
    return {
        "format": FORMAT,
        "group": run.group,
        "constants": {k: str(v) for k, v in sorted(constants.items())},
        "root": _hex_box(run.root),
        "bits": run.bits,
        "method": run.method,
        "code": code_fingerprint(),
        "seconds": run.seconds,
        "leaves": [{"box": _hex_box(leaf.box), "depth": leaf.depth, "status": leaf.status,
                    "margins": {c: [float(lo).hex(), float(hi).hex()]
                                for c, (lo, hi) in leaf.margins.items()}}
                   for leaf in run.leaves],
    }


def write(run: Run, constants, path: Path) -> None:
    path.write_text(json.dumps(certificate(run, constants), indent=1) + "\n")


@dataclass(frozen=True)
class Recheck:
    leaves: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def coverage_problems(root: Box, boxes: list[Box]) -> list[str]:
    """Do the boxes tile the root (exact rationals)?"""
    fr = [tuple(Fraction(x) for x in b) for b in boxes]
    r = tuple(Fraction(x) for x in root)
    if not (r[0] < r[1] and r[2] < r[3]):
        return ["the root box has zero area: it claims nothing"]
    out = []
    for i, b in enumerate(fr):
        if not (r[0] <= b[0] < b[1] <= r[1] and r[2] <= b[2] < b[3] <= r[3]):
            out.append(f"leaf {i} is empty or outside the root box")
    area = sum((b[1] - b[0]) * (b[3] - b[2]) for b in fr)
    if area != (r[1] - r[0]) * (r[3] - r[2]):
        out.append("the leaves' areas do not add up to the root box's: a gap or an overlap")
    order = sorted(range(len(fr)), key=lambda i: fr[i][0])
    for pos, i in enumerate(order):  # interiors pairwise disjoint
        for j in order[pos + 1:]:
            if fr[j][0] >= fr[i][1]:
                break
            if fr[j][2] < fr[i][3] and fr[i][2] < fr[j][3]:
                out.append(f"leaves {i} and {j} overlap")
    return out


def seed(data: dict, group: str, root: Box, constants, bits: int, method: str,
         max_depth: int, max_boxes: int | None) -> list[tuple[Box, int]] | None:
    """A certificate's leaves as (box, depth) pairs to start a branch and bound from, when they
    are what a run from ``root`` would end with: the same group, root, constants, precision,
    method and code, every leaf certified, none deeper than ``max_depth``, and the run from the
    root within ``max_boxes`` judged boxes (2 leaves - 1: every split box and every leaf).  The
    run then judges each leaf once, certifies it as the run from the root would, and returns the
    same leaves in the same order: the same outcome for about half the boxes judged.  None
    otherwise (or when the leaves do not tile the root)."""
    leaves = data.get("leaves") or []
    values = getattr(constants, "untracked", lambda: constants)()  # comparing is not reading
    if (data.get("format") != FORMAT or data.get("group") != group
            or data.get("root") != _hex_box(root) or data.get("bits") != bits
            or data.get("method") != method or data.get("code") != code_fingerprint()
            or data.get("constants") != {k: str(v) for k, v in sorted(values.items())}
            or any(leaf.get("status") != "certified" or leaf.get("depth", max_depth + 1) > max_depth
                   for leaf in leaves)
            or not leaves or (max_boxes is not None and 2 * len(leaves) - 1 > max_boxes)):
        return None
    boxes = [_box(leaf["box"]) for leaf in leaves]
    if coverage_problems(root, boxes):
        return None
    return [(box, int(leaf["depth"])) for box, leaf in zip(boxes, leaves)]


def seed_from(folder: Path, group: str, root: Box, constants, bits: int, method: str,
              max_depth: int, max_boxes: int | None) -> list[tuple[Box, int]] | None:
    """:func:`seed` from the first certificate of ``group`` in ``folder`` that gives one."""
    for path in sorted(folder.glob(f"{group}-*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        found = seed(data, group, root, constants, bits, method, max_depth, max_boxes)
        if found is not None:
            return found
    return None


def _recheck_leaf(item: tuple) -> list[str]:
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


def recheck(data: dict, workers: int = 1, check_code: bool = True) -> Recheck:
    """Re-verify a certificate independently of the run that wrote it."""
    if data.get("format") != FORMAT:
        return Recheck(0, ("not a verify certificate",))
    problems = []
    if check_code and data.get("code") != code_fingerprint():
        problems.append("written by another version of the code (fingerprint differs)")
    constants = {k: Fraction(v) for k, v in data["constants"].items()}
    root = _box(data["root"])
    leaves = data["leaves"]
    boxes = [_box(leaf["box"]) for leaf in leaves]
    problems += coverage_problems(root, boxes)
    items = [(i, data["group"], boxes[i],
              {c: (float.fromhex(a), float.fromhex(b)) for c, (a, b) in leaf["margins"].items()},
              constants, int(data["bits"]), data.get("method", "plain"))
             for i, leaf in enumerate(leaves)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            found = list(pool.map(_recheck_leaf, items))
    else:
        found = [_recheck_leaf(item) for item in items]
    problems += [p for leaf in found for p in leaf]
    return Recheck(len(leaves), tuple(problems))
