"""Do the leaves tile the root?  Exact rational arithmetic on boxes ``(lo1, hi1, lo2, hi2, ...)``
of any dimension (proofs/checker.md, section 8): every leaf inside the root with lo < hi on
every axis, the volumes adding up to the root's, and interiors pairwise disjoint.  Together
these say the leaves cover the root up to a set of volume zero, and the claims are closed
conditions on each closed leaf, so they hold on the whole closed root."""
from __future__ import annotations

from fractions import Fraction
from math import prod

Box = tuple[Fraction, ...]


def volume(box: Box) -> Fraction:
    return prod((box[2 * i + 1] - box[2 * i] for i in range(len(box) // 2)), start=Fraction(1))


def inside(box: Box, root: Box) -> bool:
    return all(root[2 * i] <= box[2 * i] < box[2 * i + 1] <= root[2 * i + 1]
               for i in range(len(root) // 2))


def interiors_meet(a: Box, b: Box) -> bool:
    return all(a[2 * i] < b[2 * i + 1] and b[2 * i] < a[2 * i + 1] for i in range(len(a) // 2))


def tiling_problems(root: Box, leaves: list[Box]) -> list[str]:
    """What keeps ``leaves`` from tiling ``root`` (empty when they do)."""
    if volume(root) <= 0:
        return ["the root box has zero volume: it claims nothing"]
    out = [f"leaf {i} is empty or outside the root" for i, b in enumerate(leaves)
           if len(b) != len(root) or not inside(b, root)]
    if out:
        return out
    if sum((volume(b) for b in leaves), Fraction(0)) != volume(root):
        out.append("the leaves' volumes do not add up to the root's: a gap or an overlap")
    order = sorted(range(len(leaves)), key=lambda i: leaves[i][0])
    for pos, i in enumerate(order):  # sweep along the first axis
        for j in order[pos + 1:]:
            if leaves[j][0] >= leaves[i][1]:
                break
            if interiors_meet(leaves[i], leaves[j]):
                out.append(f"leaves {min(i, j)} and {max(i, j)} overlap")
    return out
