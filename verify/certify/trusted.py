"""The default profile's route through a committed certificate: the small checker decides, the
engine only samples (the de Bruijn criterion, proofs/checker.md section 17).

A certified-box case that starts from a committed certificate made for its constants is judged
by the independent checker, in its own process (:func:`verify.checker.process.ask`: isolated
imports, nothing of the engine), over every leaf: the tiling, the binding to the registered
claim and constants, its own margins over each closed leaf, the stored enclosures against its
values at each leaf's centre.  The engine then re-judges a seeded sample of the leaves
(:data:`SAMPLE` of them, at least one, corners included) and each must certify again with an
enclosure that overlaps the stored one: a consistency check between the two routes, not what
the verdict rests on.  The full profile and `verify recheck` keep the engine's recheck of every
leaf.
"""
from __future__ import annotations

import hashlib
import json
import math
import random
import re
from pathlib import Path
from typing import Callable, Mapping, NamedTuple

from .boxes import Leaf, Run
from .verdicts import Sample

SAMPLE = 0.05  # the share of the leaves the engine re-judges on the default profile


def sample(count: int, share: float, key: str) -> list[int]:
    """A seeded choice of ``ceil(share * count)`` leaf indices (at least one; none of none),
    sorted: ``random.Random(key)`` seeds from the text itself (the route passes the file's
    SHA-256), so every machine and every PYTHONHASHSEED draws the same leaves."""
    if count <= 0:
        return []
    return sorted(random.Random(key).sample(range(count), max(1, math.ceil(share * count))))


def stored_run(data: dict, group: str, root: tuple) -> Run:
    """The certificate's leaves as a :class:`Run` (its boxes, depths, statuses and stored
    enclosures), nothing judged: what the outcome reports once the checker has accepted them."""
    from .certificate import leaf_box, stored_margins

    run = Run(group, root, int(data["bits"]), method=data.get("method", "plain"))
    run.leaves = [Leaf(leaf_box(leaf), int(leaf["depth"]), leaf["status"], stored_margins(leaf))
                  for leaf in data["leaves"]]
    return run


def checker_verdict(path: Path, group: str, box: tuple, constants: Mapping) -> tuple[bool, str]:
    """(accepted, its last line or first rejection) of the independent checker run in its own
    process on the file at ``path``, bound to the case's claim (``group`` over ``box`` = (d_lo,
    d_hi, eps_lo, eps_hi), as plain data) and these constants' values; the stored enclosures
    are compared at every leaf's centre (`verify recheck --independent` adds the corners)."""
    from .independent import ask

    registered = {"group": group, "box": list(box), "boxes": [list(box)], "d": None}
    request = {"certificate": str(path), "registered": registered,
               "constants": {k: str(v) for k, v in constants.items()}, "corners": False}
    return said(*ask(request))


def said(code: int, lines: list[str], errors: str) -> tuple[bool, str]:
    """(accepted, its last line or first rejection) from the checker process's exit code,
    lines and standard error."""
    if code == 0:
        return True, lines[-1] if lines else "certificate holds"
    bad = [line for line in lines if line.startswith(("REJECTED", "MISMATCH", "not rechecked"))]
    return False, (bad or [errors.strip() or f"exit {code}"])[0]


def engine_sample(data: dict, indices: list[int]) -> list[str]:
    """The engine's recheck of the leaves ``indices`` (box, corners, overlap with the stored
    enclosures: :func:`verify.certify.certificate.recheck_leaf`), then each leaf's centre
    evaluated by both the engine and the checker as a point (:func:`point_problems`); the
    problems found."""
    from fractions import Fraction

    from .certificate import leaf_item, recheck_leaf

    constants = {k: Fraction(v) for k, v in data["constants"].items()}
    out: list[str] = []
    for i in indices:
        item = leaf_item(data, i, constants)
        out += recheck_leaf(item) + point_problems(i, data, item[2], constants)
    return out


def point_problems(index: int, data: dict, box: tuple, constants: Mapping) -> list[str]:
    """The engine's margins at the leaf's centre (a box of zero width: balls as narrow as the
    precision allows) against the checker's own values there: the same function must overlap,
    a lower bound may not lie above the checker's value.  A box's enclosure is wide enough to
    hide an engine fault that moves a value by less than its width (the Phase-3 weights without
    their background part: docs/faults.md); two narrow balls of two routes are not."""
    from flint import arb, ctx

    from ..checker.claims import GROUPS, evaluate, recorded
    from .boxes import box_margins

    group, method = data["group"], data.get("method", "plain")
    n = len(box) // 2
    point = tuple(x for i in range(n) for x in [(box[2 * i] + box[2 * i + 1]) / 2] * 2)
    old = ctx.prec
    try:
        engine = box_margins(group, point, constants, int(data["bits"]), method)
        ctx.prec = int(data["bits"])
        mine = evaluate(group, point, constants)
    except (ArithmeticError, ValueError) as exc:
        return [f"leaf {index}: its centre cannot be evaluated by both routes ({exc})"]
    finally:
        ctx.prec = old
    if engine is None:
        return [f"leaf {index}: the engine does not enclose its margins at the centre"]
    out = []
    for claim in GROUPS[group].claims:
        kind, key = recorded(group)[method][claim]
        e, c = engine[claim], mine[key]
        if not (e.overlaps(c) if kind == "two" else arb(e.lower()) <= c.upper()):
            out.append(f"leaf {index}, {claim}: the engine's value {e.str(6, radius=False)} at the "
                       f"centre {'misses' if kind == 'two' else 'lies above'} the checker's "
                       f"{c.str(6, radius=False)}")
    return out


def checker_summary(said: str) -> tuple[str, float]:
    """(what the checker counted, without its timing: the same bytes on any machine; the
    smallest lower end of its enclosures of the stored margins, -inf when it did not say) from
    its last line."""
    found = re.search(r"\(independent checker, (.*), smallest enclosed margin ([^,]+), [0-9.]+ s\)",
                      said)
    return (found.group(1), float(found.group(2))) if found else (said, -math.inf)


def tightest_leaf(run: Run) -> int:
    """The index of the leaf whose stored margin is the smallest (the one the outcome reports):
    the engine always re-judges it, so the number in the report is this code's."""
    box = run.smallest_margin()[2]
    return next(i for i, leaf in enumerate(run.leaves) if leaf.box == box)


class Decision(NamedTuple):
    """What the checker-decides route found on one committed certificate."""

    said: str  # the checker's last line, or its first rejection
    summary: str  # what it counted, without its timing (the same bytes on any machine)
    enclosed: float  # the smallest lower end of its enclosures of the stored margins (-inf: not said)
    sampled: int  # how many leaves the seeded sample drew (the tightest leaf comes on top)
    problems: tuple[str, ...]  # what the engine found re-judging the sample and the tightest
    sample: Sample | None  # None: the checker rejected the file and the engine was not asked


def decide(raw: bytes, count: int, tightest: int, share: float,
           ask: Callable[[], tuple[bool, str]],
           rejudge: Callable[[list[int]], list[str]]) -> Decision:
    """The route's one procedure for every certificate kind: ``ask`` the independent checker (in
    its own process) over the ``count`` leaves of the file whose bytes are ``raw``; when it
    accepts, the engine re-judges (``rejudge``) a seeded sample of ``share`` of the leaves,
    drawn from the file's SHA-256 (:func:`sample`), and the leaf ``tightest`` of the smallest
    stored margin, whose number the outcome reports."""
    from ..run.progress import note

    note(f"the independent checker judges the {count} leaves in its own process", force=True)
    accepted, said = ask()
    if not accepted:
        return Decision(said, said, -math.inf, 0, (), None)
    summary, enclosed = checker_summary(said)
    chosen = sample(count, share, hashlib.sha256(raw).hexdigest())
    note(f"the engine re-judges a seeded sample of {len(chosen)} leaves", force=True)
    problems = tuple(rejudge(sorted(set(chosen) | {tightest})))
    return Decision(said, summary, enclosed, len(chosen), problems,
                    Sample.DISAGREES if problems else Sample.AGREES)


def judge(path: Path, group: str, root: tuple, box: tuple, constants: Mapping,
          share: float = SAMPLE) -> tuple[bool, Run, str, float | None, Sample | None]:
    """(passed, the certificate's leaves as a run, what to add to the detail, the smallest
    margin, what the engine's sample found: None when the checker rejected the file and the
    engine was not asked): the checker over every leaf (bound to the case's ``box``, :func:`checker_verdict`),
    then the engine over the seeded sample and the leaf of the smallest stored margin; passed
    only when both agree.  The margin is the smaller of the smallest stored lower end and the
    smallest lower end of the checker's own enclosures of the stored margins over the leaves:
    a lower bound the checker vouches for, whatever the file says."""
    raw = path.read_bytes()
    data = json.loads(raw)
    run = stored_run(data, group, root)
    tightest = tightest_leaf(run)
    found = decide(raw, len(run.leaves), tightest, share,
                   lambda: checker_verdict(path, group, box, constants),
                   lambda chosen: engine_sample(data, chosen))
    if found.sample is None:
        return False, run, f"; the independent checker REJECTS it: {found.said}", None, None
    stored = run.smallest_margin()
    margin = min(stored[0], found.enclosed) if stored else None
    checked = (f"; checked independently (verify/checker in its own process, every leaf: "
               f"{found.summary}); the smallest margin reported is the "
               f"smaller of the stored {stored[0] if stored else None:.6g} and the checker's "
               f"lowest enclosure {found.enclosed:.6g}; the engine re-judged the leaf of the "
               f"smallest stored margin ({tightest}) and a seeded sample of {found.sampled} of "
               f"the {len(run.leaves)} leaves")
    if found.problems:
        return False, run, checked + f", and DISAGREES: {found.problems[0]}", None, found.sample
    return True, run, checked + " and agrees", margin, found.sample
