"""Branch and bound over boxes in (ln d, ln eps), or (ln d, ln eps, u, v) for the groups over
the whole hypothesis range (certified evidence; :mod:`verify.certify.statements`).

A box is *certified* when every claim's margin ball lies above 0, *failing* when some margin
ball lies below 0 (a counterexample region: the claim fails at every point of the box), and is
split in two along its wider side otherwise, down to ``max_depth``; a box still straddling there
is *undecided* and reported, never counted as a pass.

Margins are enclosed by the centred (mean-value) form (:mod:`verify.certify.centred`,
proofs/centred-form.md) by default; ``method="plain"`` evaluates the claims on the box's balls
directly (:mod:`verify.certify.claims`), the first route, kept as the independent second one.
Four-dimensional boxes use the centred form of :mod:`verify.certify.plan_range` and split the
side along which the least certain margin widens most (its gradient times the side's width).

The boxes of one generation (the queue's contents, in order) are independent: they are judged on
an executor (:mod:`verify.run.executors`) and read back in queue order, and a journal
(:mod:`verify.certify.box_journal`) keeps each judgement, so the leaves, their order and the
certificate's bytes are the same for any executor and worker count, and a stopped run resumes.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

from ..engine.certified.balls import outward
from . import branch, eps_tail, plan_range, statements
from .centred import centred_margins
from .claims import Box, exact_final_margin, margins
from .groups import GROUPS
from .roots import hypothesis_box, log_box  # noqa: F401 (the roots, as before)

METHODS = ("centred", "plain")
WITNESS_AREA = 0.05  # a box not enclosed gets an exact witness try only when this small (log units)
# margins that are only lower bounds (a bound for every T >= T_low, L* <= L(alpha', 2 e_s),
# 2 delta - L* >= delta, rho's upper end): below 0 they make a box failing only when the exact
# loss after the schedule's integer T at the box's centre exceeds eps (a counterexample point)
ONE_SIDED = {"centred": {"thm2.final", "cor1.population", "thm2.optimum"},
             "plain": {"thm2.final", "cor1.population", "thm2.contraction"}}
WITNESS_SIDE = 1 / 8  # ... and, in four dimensions, its u and v sides at most this wide


class Judgement(NamedTuple):
    """A box's verdict: status, each claim's margin as outward floats, and the side to split
    (None: the two-dimensional rule, the wider side)."""

    status: str
    margins: dict
    axis: int | None = None


@dataclass(frozen=True)
class Leaf:
    box: Box
    depth: int
    status: str  # certified / failing / undecided
    margins: dict  # claim -> (lower, upper) floats rounded outward


@dataclass
class Run:
    group: str
    root: Box
    bits: int
    leaves: list[Leaf] = field(default_factory=list)
    seconds: float = 0.0
    method: str = "centred"
    cpu_seconds: float = 0.0  # the judging processes' CPU time (journaled judgements included)
    judged: int = 0  # boxes judged (or read from the journal)

    started: float = field(default_factory=time.perf_counter)

    @property
    def axes(self) -> tuple[str, ...]:
        return statements.axes(self.group)

    def seconds_so_far(self) -> float:
        return time.perf_counter() - self.started

    @property
    def status(self) -> bool | None:
        if any(leaf.status == "failing" for leaf in self.leaves):
            return False
        return True if all(leaf.status == "certified" for leaf in self.leaves) else None

    @property
    def deepest(self) -> int:
        return max((leaf.depth for leaf in self.leaves), default=0)

    def smallest_margin(self) -> tuple[float, str, Box] | None:
        """(margin lower end, claim, box) of the certified leaf closest to failing."""
        rows = [(lo, claim, leaf.box) for leaf in self.leaves if leaf.status == "certified"
                for claim, (lo, _) in leaf.margins.items()]
        return min(rows, default=None)

    def certified_share(self) -> float:
        """The certified leaves' share of the root's volume in its coordinates (area in
        (ln d, ln eps) for two axes)."""
        done = sum(volume(leaf.box) for leaf in self.leaves if leaf.status == "certified")
        return done / volume(self.root) if volume(self.root) > 0 else 0.0

    def summary(self, timed: bool = True) -> str:
        """One line: the box, leaves, deepest split (and the time when ``timed``: a report's
        bytes must not depend on the machine), the smallest margin and any box not certified."""
        r = statements.ranges(self.group, self.root)
        text = f"d in [{r['d'][0]:.6g}, {r['d'][1]:.6g}], eps in [{r['eps'][0]:.3g}, {r['eps'][1]:.3g}]"
        if "u" in r:
            text += f", u in [{r['u'][0]:.3g}, {r['u'][1]:.3g}], v in [{r['v'][0]:.3g}, {r['v'][1]:.3g}]"
        return f"{text}: {self.tally(timed)}"

    def tally(self, timed: bool = False) -> str:
        """:meth:`summary` without the root box."""
        small = self.smallest_margin()
        text = (f"{len(self.leaves)} leaves, deepest split {self.deepest}"
                + (f", {self.seconds:.1f} s" if timed else ""))
        if small:
            kind = ", relative" if len(self.root) == 8 else ""
            text += (f"; smallest margin {small[0]:.3g} ({small[1]}{kind}) at "
                     f"{statements.describe(self.group, small[2])}")
        bad = [leaf for leaf in self.leaves if leaf.status != "certified"]
        if bad:
            what = "area (log units)" if len(self.root) == 4 else "volume (ln d, ln eps, u, v)"
            text += f"; certified {100 * self.certified_share():.3g}% of the box's {what}"
        for leaf in bad[:5]:
            text += f"; {leaf.status.upper()} box {statements.describe(self.group, leaf.box)}"
        return text


def volume(box: Box) -> float:
    """The product of the box's sides (in its coordinates)."""
    return math.prod(box[2 * i + 1] - box[2 * i] for i in range(len(box) // 2))


def box_margins(group: str, box: Box, constants, bits: int, method: str,
                corners: bool = False) -> dict | None:
    """Every claim's margin ball over ``box`` by ``method`` (None: not enclosed); ``corners``
    cross-checks a centred enclosure against the values at the box's corners."""
    if len(GROUPS[group].axes) == 4:
        return _four_axes(group)(group, box, constants, bits, corners)[0]
    if method == "plain":
        return margins(group, box, constants, bits)
    return centred_margins(group, box, constants, bits, GROUPS[group].d_min, corners)


def _enclose(group: str, box: Box, constants, bits: int, method: str,
             corners: bool) -> tuple[dict | None, dict]:
    """(margins or None, smears by claim) -- smears only in four dimensions."""
    if len(GROUPS[group].axes) == 4:
        return _four_axes(group)(group, box, constants, bits, corners)
    return box_margins(group, box, constants, bits, method, corners), {}


def judge(group: str, box: Box, constants, bits: int, method: str = "centred",
          corners: bool = False) -> Judgement:
    """The verdict on one box (and, in four dimensions, the side to split)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    if len(GROUPS[group].axes) == 4 and method != "centred":
        raise ValueError(f"{group}: only the centred method covers four dimensions")
    claims = statements.CLAIMS[group]
    try:
        ms, smears = _enclose(group, box, constants, bits, method, corners)
    except (ArithmeticError, ValueError, ZeroDivisionError):
        ms, smears = None, {}
    pairs = {claim: (-math.inf, math.inf) for claim in claims} if ms is None else \
        {claim: outward(m) for claim, m in ms.items()}
    axis = _axis(box, pairs, smears) if len(box) == 8 else None
    if all(lo > 0 for lo, _ in pairs.values()):
        return Judgement("certified", pairs, axis)
    one_sided = GROUPS[group].one_sided if len(box) == 8 else ONE_SIDED[method]
    if any(hi < 0 for claim, (_, hi) in pairs.items() if claim not in one_sided):
        return Judgement("failing", pairs, axis)
    final = _final(group)
    lo, hi = pairs.get(final, (0.0, 0.0))
    if final and (hi < 0 or (lo == -math.inf and _small(box))):  # a bound above eps, or none
        witness = _exact_witness(group, box, constants, bits)
        if witness is not None:
            return Judgement("failing", {**pairs, final: witness}, axis)
    return Judgement("undecided", pairs, axis)


def judge_box(group: str, box: Box, constants, bits: int,
              method: str = "centred", corners: bool = False) -> tuple[str, dict]:
    """(status, margins as outward float pairs) for one box."""
    status, pairs, _ = judge(group, box, constants, bits, method, corners)
    return status, pairs


def _four_axes(group: str) -> Callable:
    """The box margins of a four-axis group: the eps tail's over (ln d, tau, u, v), else
    plan_range's over (ln d, ln eps, u, v)."""
    return eps_tail.box_margins if GROUPS[group].tail else plan_range.box_margins


def _final(group: str) -> str | None:
    if GROUPS[group].final:
        return GROUPS[group].final
    return {"thm2": "thm2.final", "cor1": "cor1.population"}.get(group)


def _small(box: Box) -> bool:
    """Small enough for an exact witness try: area in (ln d, ln eps) at most WITNESS_AREA (and
    u, v sides at most WITNESS_SIDE)."""
    return (box[1] - box[0]) * (box[3] - box[2]) <= WITNESS_AREA and \
        all(box[2 * i + 1] - box[2 * i] <= WITNESS_SIDE for i in range(2, len(box) // 2))


def _axis(box: Box, pairs: dict, smears: dict) -> int:
    """The side to halve in four dimensions: of the claims not certified, the one with the
    smallest lower end (a condition not proved, if that is why), along the side where its
    enclosure widens most (|gradient| x width); without gradients the widest side relative to
    the whole hypothesis range's (plan_range.SCALES)."""
    open_claims = sorted((lo, claim) for claim, (lo, _) in pairs.items() if not lo > 0)
    key = None if None in smears else (open_claims[0][1] if open_claims else None)
    row = smears.get(key)
    if row and any(x > 0 for x in row) and all(math.isfinite(x) for x in row):
        return max(range(len(row)), key=lambda i: (row[i], -i))
    widths = [(box[2 * i + 1] - box[2 * i]) / plan_range.SCALES[i] for i in range(len(box) // 2)]
    return max(range(len(widths)), key=lambda i: (widths[i], -i))


def _exact_witness(group: str, box: Box, constants, bits: int) -> tuple | None:
    """(lower, upper) of the final margin at the box's centre after exactly T Phase-3 steps,
    when that ball is below 0: the claim fails at that point of the box (a counterexample)."""
    centre = tuple((box[2 * i] + box[2 * i + 1]) / 2 for i in range(len(box) // 2))
    try:
        if len(box) == 8:
            m = plan_range.exact_final_margin(group, centre, constants, bits)
        else:
            d = max(math.exp(centre[0]), GROUPS[group].d_min)
            m = exact_final_margin(group, d, math.exp(centre[1]), constants, bits)
    except (ArithmeticError, ValueError, ZeroDivisionError):
        return None
    return outward(m) if m is not None and m < 0 else None


def split(box: Box, axis: int | None = None) -> tuple[Box, Box]:
    """Halve side ``axis`` (None: the wider of the two sides, in log units); the halves share
    the midpoint exactly."""
    if axis is None:
        axis = 0 if box[1] - box[0] >= box[3] - box[2] else 1
    lo, hi = box[2 * axis], box[2 * axis + 1]
    m = (lo + hi) / 2
    left, right = list(box), list(box)
    left[2 * axis + 1] = right[2 * axis] = m
    return tuple(left), tuple(right)  # type: ignore[return-value]


def encode(judgement: Judgement) -> dict:
    """A judgement as a journal record's fields (floats as ``float.hex``)."""
    return {"status": judgement.status, "axis": judgement.axis,
            "margins": {c: [float(lo).hex(), float(hi).hex()]
                        for c, (lo, hi) in judgement.margins.items()}}


def decode(record: dict) -> Judgement:
    """:func:`encode` read back."""
    return Judgement(record["status"], {c: (float.fromhex(lo), float.fromhex(hi))
                                        for c, (lo, hi) in record["margins"].items()},
                     record.get("axis"))


@dataclass(frozen=True, eq=False)
class Boxes:
    """One group's claims over boxes, as a :class:`verify.certify.branch.Problem`."""

    group: str
    constants: Any
    bits: int
    method: str

    def judge(self, box: Box) -> Judgement:
        return judge(self.group, box, self.constants, self.bits, self.method)

    def split(self, box: Box, judgement: Judgement) -> tuple[Box, Box]:
        return split(box, judgement.axis)

    def leaf(self, box: Box, depth: int, judgement: Judgement | None) -> Leaf:
        if judgement is None:
            return Leaf(box, depth, "unreached", {})
        return Leaf(box, depth, judgement.status, judgement.margins)

    def priority(self, judgement: Judgement) -> float:
        return 0.0

    encode = staticmethod(encode)
    decode = staticmethod(decode)


def branch_and_bound(group: str, root: Box, constants, bits: int = 96,
                     max_depth: int = 24, seconds: float | None = None,
                     max_boxes: int | None = None, method: str = "centred",
                     start: list[tuple[Box, int]] | None = None, executor=None,
                     journal=None, progress: Callable[[Run], None] | None = None) -> Run:
    """Certify every claim of ``group`` over ``root``; after ``seconds``, or after ``max_boxes``
    boxes have been judged (a budget that gives the same answer on any machine), the boxes not
    yet judged are reported undecided (status ``unreached``).  ``start``: (box, depth) pairs
    that tile the root (a certificate's leaves, :func:`verify.certify.certificate.seed`) to
    begin from instead of the root: every one is judged and split as any box.

    Breadth first (a budget cut leaves the hard corners, not the rest of the box, unreached), by
    :func:`verify.certify.branch.search`: the boxes are judged on ``executor`` (None: here, one
    after another) in chunks, read back in queue order, so the result does not depend on the
    executor; ``journal`` (:func:`verify.certify.box_journal.journal`) supplies the judgements it
    holds and records the new ones; ``progress(run)`` is called after each chunk."""
    run = Run(group, root, bits, method=method)
    began = time.perf_counter()
    plain = constants if executor is None else dict(getattr(constants, "untracked",
                                                            lambda: constants)())
    branch.search(Boxes(group, plain, bits, method), run, list(start or [(root, 0)]),
                  max_depth, max_boxes, seconds, executor, journal,
                  progress=None if progress is None else lambda r, _: progress(r))
    run.seconds = time.perf_counter() - began
    return run

