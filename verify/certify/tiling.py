"""Do a certificate's leaves tile its root box?  Exact rational arithmetic, any number of axes.

Each leaf must lie inside the root with every side of positive length, the volumes must add up
to the root's exactly, and the interiors must be pairwise disjoint.  Disjointness is shown fast
by merging: two leaves equal on every axis but one, where they meet end to end, are replaced by
their union (a box, whose interior is the disjoint union of theirs); when repeated merging ends
at the root alone, the leaves tile it.  A tiling that merging cannot reduce (one that no run of
halvings produces) is checked pair by pair instead, which also names the overlapping leaves.
"""
from __future__ import annotations

from collections import defaultdict
from fractions import Fraction


def _sides(box: tuple) -> list[tuple[Fraction, Fraction]]:
    return [(Fraction(box[2 * i]), Fraction(box[2 * i + 1])) for i in range(len(box) // 2)]


def _volume(sides: list) -> Fraction:
    out = Fraction(1)
    for lo, hi in sides:
        out *= hi - lo
    return out


def merges_to_root(root: tuple, boxes: list[tuple]) -> bool:
    """Whether repeated merging of face-adjacent leaves with equal cross-sections ends at the
    root alone (then the leaves tile the root; floats compared exactly)."""
    live = {tuple(b) for b in boxes}
    if len(live) != len(boxes):
        return False  # a leaf twice
    n = len(root) // 2
    changed = True
    while changed and len(live) > 1:
        changed = False
        for axis in range(n):
            rows = defaultdict(list)
            for b in live:
                rows[b[:2 * axis] + b[2 * axis + 2:]].append(b)
            for row in rows.values():
                if len(row) < 2:
                    continue
                row.sort(key=lambda b: b[2 * axis])
                i = 0
                while i + 1 < len(row):
                    a, c = row[i], row[i + 1]
                    if a[2 * axis + 1] == c[2 * axis]:
                        live -= {a, c}
                        merged = a[:2 * axis + 1] + c[2 * axis + 1:]
                        live.add(merged)
                        changed = True
                        i += 2
                    else:
                        i += 1
    return live == {tuple(root)}


def coverage_problems(root: tuple, boxes: list[tuple]) -> list[str]:
    """Do the boxes tile the root (exact rationals)?  The problems found (none: they do)."""
    r = _sides(root)
    if any(not lo < hi for lo, hi in r):
        return ["the root box has a side of zero length: it claims nothing"]
    fr = [_sides(b) for b in boxes]
    out = []
    for i, b in enumerate(fr):
        if len(b) != len(r) or not all(rl <= lo < hi <= rh for (lo, hi), (rl, rh) in zip(b, r)):
            out.append(f"leaf {i} is empty or outside the root box")
    if out:
        return out
    if sum(_volume(b) for b in fr) != _volume(r):
        out.append("the leaves' volumes do not add up to the root box's: a gap or an overlap")
    if not out and merges_to_root(root, boxes):
        return []
    order = sorted(range(len(fr)), key=lambda i: fr[i][0][0])
    for pos, i in enumerate(order):  # interiors pairwise disjoint
        for j in order[pos + 1:]:
            if fr[j][0][0] >= fr[i][0][1]:
                break
            if all(fj[0] < fi[1] and fi[0] < fj[1] for fi, fj in zip(fr[i][1:], fr[j][1:])):
                out.append(f"leaves {i} and {j} overlap")
    return out
