"""Certified checks for the registry: a box of (d, eps) per profile, judged by branch and bound.

Imported lazily by the results modules (python-flint is an optional extra): without it the
outcome is undecided with one line saying so, never a pass.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping

from ..checks import Case, Evidence, Outcome, Profile

# Each profile's boxes (d from, d to, eps from, eps to, boxes judged), one case each: the budget
# is a number of judged boxes, not seconds, so the verdict is the same on any machine.  Quick
# boxes take seconds in CI.  From the default profile on, every claim gets the whole box:
# Proposition 1 (d from 2: 451 leaves, about 900 boxes judged, about 70 s), Theorem 2 (d from 3:
# 1,256 leaves, deepest split 19, about 2,500 boxes judged, 542 s on a loaded machine) and
# Corollary 1 (d from 3: 475 leaves, 162 s); certificates/*-whole-box.json hold the leaves.
WHOLE = (3, 1e9, 1e-6, 0.99, 6000)
BOXES = {
    "prop1": {Profile.QUICK: ((10, 11, 0.1, 0.12, 200),),
              Profile.DEFAULT: ((2, 1e9, 1e-6, 0.99, 2000),),
              Profile.FULL: ((2, 1e9, 1e-6, 0.99, 2000),)},
    "thm2": {Profile.QUICK: ((10, 10.05, 0.1, 0.1005, 200),),
             Profile.DEFAULT: (WHOLE,), Profile.FULL: (WHOLE,)},
    "cor1": {Profile.QUICK: ((10, 11, 0.1, 0.12, 200),),
             Profile.DEFAULT: (WHOLE,), Profile.FULL: (WHOLE,)},
}
BITS = 96
MAX_DEPTH = 30
# a checkout's certificates (certificates/*.json): a run whose box, constants and code match one
# starts from its leaves instead of the root, which judges about half the boxes for the same
# outcome (verify.certify.certificate.seed); without them (an installed package) the run starts
# from the root
CERTIFICATES = Path(__file__).resolve().parent.parent.parent / "certificates"


def registered_box(group: str) -> tuple | None:
    """(d_lo, d_hi, eps_lo, eps_hi) of the default profile's check of ``group`` (None: none):
    the claim a certificate of the group is compared with by `verify recheck`."""
    boxes = BOXES.get(group, {}).get(Profile.DEFAULT)
    return tuple(boxes[0][:4]) if boxes else None


def certified_cases(group: str, profile: Profile, options: Mapping) -> list[Case]:
    """One case per box of the profile (options ``d``/``eps`` replace them by one box: their
    range, with the first box's budget)."""
    boxes = BOXES[group][profile]
    if options.get("d") or options.get("eps"):
        d_lo, d_hi, e_lo, e_hi, budget = boxes[0]
        if options.get("d"):
            d_lo, d_hi = min(options["d"]), max(options["d"])
        if options.get("eps"):
            e_lo, e_hi = min(options["eps"]), max(options["eps"])
        boxes = ((d_lo, d_hi, e_lo, e_hi, budget),)
    return [_case(*box) for box in boxes]


def _case(d_lo: float, d_hi: float, e_lo: float, e_hi: float, budget: int) -> Case:
    if d_lo == d_hi:
        d_hi = d_lo * (1 + 1e-9)
    if e_lo == e_hi:
        e_hi = e_lo * (1 + 1e-9)
    label = f"d in [{d_lo:g}, {d_hi:g}], eps in [{e_lo:g}, {e_hi:g}]"
    return Case(label, {"d_lo": d_lo, "d_hi": d_hi, "eps_lo": e_lo, "eps_hi": e_hi,
                        "boxes": budget})


def judge_certified(group: str, case: Case, constants) -> Outcome:
    """Branch and bound over the case's box: passed when every leaf is certified, failed when a
    leaf is a counterexample region, else undecided.  Margin: the smallest certified margin."""
    try:
        from ..engine.certified import require_flint

        require_flint()
    except ValueError as exc:
        return Outcome(case.label, None, None, Evidence.CERTIFIED, str(exc))
    from .boxes import branch_and_bound, log_box
    from .certificate import seed_from

    p = case.params
    root = log_box(p["d_lo"], p["d_hi"], p["eps_lo"], p["eps_hi"])
    start = seed_from(CERTIFICATES, group, root, constants, BITS, "centred", MAX_DEPTH,
                      p["boxes"]) if CERTIFICATES.is_dir() else None
    run = branch_and_bound(group, root, constants, BITS, MAX_DEPTH, max_boxes=p["boxes"],
                           start=start)
    small = run.smallest_margin()
    margin = small[0] if small and run.status is not False else None
    if run.status is False:
        bad = min((lo for leaf in run.leaves if leaf.status == "failing"
                   for lo, _ in leaf.margins.values()), default=-math.inf)
        margin = bad
    status, detail = run.status, run.summary(timed=False)
    if status is True:  # passes only when the independent checker agrees (proofs/checker.md)
        verdict = independently(run, constants)
        if verdict.ok:
            detail += (f"; checked independently (verify/checker, every leaf: {verdict.boxes} "
                       f"boxes judged, {verdict.split_leaves} leaves split further, the stored "
                       "enclosures agree at centres and corners)")
        else:
            status, detail = False, detail + "; the independent checker REJECTS it: " + \
                verdict.problems[0]
    return Outcome(case.label, status, margin, Evidence.CERTIFIED,
                   ("COUNTEREXAMPLE region: " if run.status is False else "") + detail,
                   margin_kind="difference",
                   values={"leaves": len(run.leaves), "deepest": run.deepest})


def independently(run, constants):
    """The run's certificate judged by the independent checker (verify.checker), which shares
    no code with the engine that found it."""
    from ..checker import recheck as checker
    from .certificate import certificate

    values = getattr(constants, "untracked", lambda: constants)()  # the run has read its own
    return checker.check(checker.read(certificate(run, values)))
