"""What each registered certified check claims, as plain data: the boxes of the profiles, the
range of the lemma for every d >= D0 and the cube groups of Propositions 2 and 3.  It imports
nothing of the engine, so `verify recheck --independent` can hand the registered claim to the
checker's process (proofs/checker.md, section 13) without loading the code that wrote the
certificate."""
from __future__ import annotations

import math
import re

from ..checks import Profile

# Each profile's boxes (d from, d to, eps from, eps to, boxes judged), one case each; the 4-D
# groups take the whole square of (u, v) with every box.  The budget is a number of judged
# boxes, not seconds, so the verdict is the same on any machine.  Quick boxes take seconds in CI.
# From the default profile on, every claim gets the whole box: Proposition 1 (d from 2: 451
# leaves, about 900 boxes judged, about 70 s); Theorem 2 and Corollary 1 over the four axes,
# started from certificates/{thm2,cor1}-4d-whole-range.json (1,854 and 1,367 leaves: 178 and
# 120 CPU-s from the certificate, 323 and 212 from the root) and the eps tails (20 and 14
# leaves, about 10 CPU-s each): proofs/hypothesis-range.md, section 8.
WHOLE = (3, 1e9, 1e-6, 0.99, 60000)
# Theorem 2 for every eps in (0, 1e-6] as well (the stretch: group thm2-4d-tail, axes
# (ln d, tau = 1/(1 - ln eps), u, v); eps from 0 is the limit eps -> 0)
TAIL = (3, 1e9, 0, 1e-6, 60000, "thm2-4d-tail")
# and every eps in [0.99, 1) (eps = 1 closes it as a limit): 354 and 311 leaves, about 64 CPU-s
# each from the root (certificates/{thm2,cor1}-4d-top-range.json)
TOP = (3, 1e9, 0.99, 1, 60000)
TAIL_COR1 = (3, 1e9, 0, 1e-6, 60000, "cor1-4d-tail")
BOXES = {
    "prop1": {Profile.QUICK: ((10, 11, 0.1, 0.12, 200),),
              Profile.DEFAULT: ((2, 1e9, 1e-6, 0.99, 2000),),
              Profile.FULL: ((2, 1e9, 1e-6, 0.99, 2000),)},
    "thm2-4d": {Profile.QUICK: ((10, 10.05, 0.1, 0.1005, 200), (10, 11, 0, 1e-6, 200, TAIL[-1])),
                Profile.DEFAULT: (WHOLE, TOP, TAIL), Profile.FULL: (WHOLE, TOP, TAIL)},
    "cor1-4d": {Profile.QUICK: ((10, 11, 0.1, 0.12, 200), (10, 11, 0, 1e-6, 200, TAIL_COR1[-1])),
                Profile.DEFAULT: (WHOLE, TOP, TAIL_COR1), Profile.FULL: (WHOLE, TOP, TAIL_COR1)},
}
D0 = 10**9  # where the four-axis boxes end (WHOLE): the lemma covers every d >= D0
LARGE_D = ("thm2-large-d", "cor1-large-d")
CUBE = re.compile(r"(prop3-cube|prop3-sharp|prop2-cone)-d([345])")


def registered_box(group: str) -> tuple | None:
    """(d_lo, d_hi, eps_lo, eps_hi) of the default profile's check of ``group`` (None: none):
    the claim a certificate of the group is compared with by `verify recheck` (the 4-D groups
    take the whole square of (u, v))."""
    if group in LARGE_D:
        return (float(D0), math.inf, 0.0, 1.0)
    for key, profiles in BOXES.items():
        for box in profiles[Profile.DEFAULT]:
            if (box[5] if len(box) > 5 else key) == group:
                return tuple(box[:4])
    return None


def registration(group: str) -> dict:
    """The registered claim of ``group`` as plain data for the checker's process: the box
    (d_lo, d_hi, eps_lo, eps_hi) of a box group (the first) and every box registered for it, or
    the d of a cube group (Propositions 2 and 3 are registered at d = 3, 4, 5); None where
    nothing is registered."""
    cube = CUBE.fullmatch(group)
    boxes = [tuple(box[:4]) for key, profiles in BOXES.items() for box in profiles[Profile.DEFAULT]
             if (box[5] if len(box) > 5 else key) == group]
    return {"group": group, "box": registered_box(group), "boxes": boxes or None,
            "d": int(cube.group(2)) if cube else None}
