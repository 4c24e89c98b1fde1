"""Branch and bound over boxes in (ln d, ln eps) (certified evidence).

A box is *certified* when every claim's margin ball lies above 0, *failing* when some margin
ball lies below 0 (a counterexample region: the claim fails at every point of the box), and is
split in two along its wider side otherwise, down to ``max_depth``; a box still straddling there
is *undecided* and reported, never counted as a pass.

Margins are enclosed by the centred (mean-value) form (:mod:`verify.certify.centred`,
proofs/centred-form.md) by default; ``method="plain"`` evaluates the claims on the box's balls
directly (:mod:`verify.certify.claims`), the first route, kept as the independent second one.
"""
from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field

from flint import arb

from .centred import centred_margins
from .claims import Box, CLAIMS, D_MIN, exact_final_margin, margins

METHODS = ("centred", "plain")
WITNESS_AREA = 0.05  # a box not enclosed gets an exact witness try only when this small (log units)
# margins that are only lower bounds (a bound for every T >= T_low, L* <= L(alpha', 2 e_s),
# 2 delta - L* >= delta, rho's upper end): below 0 they make a box failing only when the exact
# loss after the schedule's integer T at the box's centre exceeds eps (a counterexample point)
ONE_SIDED = {"centred": {"thm2.final", "cor1.population", "thm2.optimum"},
             "plain": {"thm2.final", "cor1.population", "thm2.contraction"}}


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
        """The certified leaves' share of the root's area in (ln d, ln eps)."""
        area = lambda b: (b[1] - b[0]) * (b[3] - b[2])  # noqa: E731
        done = sum(area(leaf.box) for leaf in self.leaves if leaf.status == "certified")
        return done / area(self.root) if area(self.root) > 0 else 0.0

    def summary(self, timed: bool = True) -> str:
        """One line: the box, leaves, deepest split (and the time when ``timed``: a report's
        bytes must not depend on the machine), the smallest margin and any box not certified."""
        small = self.smallest_margin()
        d = f"d in [{math.exp(self.root[0]):.6g}, {math.exp(self.root[1]):.6g}]"
        e = f"eps in [{math.exp(self.root[2]):.3g}, {math.exp(self.root[3]):.3g}]"
        text = (f"{d}, {e}: {len(self.leaves)} leaves, deepest split {self.deepest}"
                + (f", {self.seconds:.1f} s" if timed else ""))
        if small:
            text += f"; smallest margin {small[0]:.3g} ({small[1]}) at {_fmt_box(small[2])}"
        bad = [leaf for leaf in self.leaves if leaf.status != "certified"]
        if bad:
            text += f"; certified {100 * self.certified_share():.3g}% of the box's area (log units)"
        for leaf in bad[:5]:
            text += f"; {leaf.status.upper()} box {_fmt_box(leaf.box)}"
        return text


def _fmt_box(box: Box) -> str:
    return (f"d [{math.exp(box[0]):.4g}, {math.exp(box[1]):.4g}] x "
            f"eps [{math.exp(box[2]):.3g}, {math.exp(box[3]):.3g}]")


def outward(x: arb) -> tuple[float, float]:
    """(lower, upper) of a ball as floats rounded outward."""
    lo, hi = float(x.lower()), float(x.upper())
    if not arb(lo) <= x.lower():
        lo = math.nextafter(lo, -math.inf)
    if not arb(hi) >= x.upper():
        hi = math.nextafter(hi, math.inf)
    return lo, hi


def box_margins(group: str, box: Box, constants, bits: int, method: str,
                corners: bool = False) -> dict | None:
    """Every claim's margin ball over ``box`` by ``method`` (None: not enclosed); ``corners``
    cross-checks a centred enclosure against the values at the four corners."""
    if method == "plain":
        return margins(group, box, constants, bits)
    return centred_margins(group, box, constants, bits, D_MIN[group], corners)


def judge_box(group: str, box: Box, constants, bits: int,
              method: str = "centred", corners: bool = False) -> tuple[str, dict]:
    """(status, margins as outward float pairs) for one box."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    try:
        ms = box_margins(group, box, constants, bits, method, corners)
    except (ArithmeticError, ValueError, ZeroDivisionError):
        ms = None
    pairs = {claim: (-math.inf, math.inf) for claim in CLAIMS[group]} if ms is None else \
        {claim: outward(m) if m.is_finite() else (-math.inf, math.inf) for claim, m in ms.items()}
    if all(lo > 0 for lo, _ in pairs.values()):
        return "certified", pairs
    if any(hi < 0 for claim, (_, hi) in pairs.items() if claim not in ONE_SIDED[method]):
        return "failing", pairs
    final = f"{group}.final" if group == "thm2" else f"{group}.population"
    lo, hi = pairs.get(final, (0.0, 0.0))
    small = (box[1] - box[0]) * (box[3] - box[2]) <= WITNESS_AREA
    if group != "prop1" and (hi < 0 or (lo == -math.inf and small)):  # a bound above eps, or none
        witness = _exact_witness(group, box, constants, bits)
        if witness is not None:
            return "failing", {**pairs, final: witness}
    return "undecided", pairs


def _exact_witness(group: str, box: Box, constants, bits: int) -> tuple | None:
    """(lower, upper) of eps - L(T) at the box's centre after exactly T Phase-3 steps, when
    that ball is below 0: the claim fails at that point of the box (a counterexample)."""
    d = max(math.exp((box[0] + box[1]) / 2), D_MIN[group])
    eps = math.exp((box[2] + box[3]) / 2)
    try:
        m = exact_final_margin(group, d, eps, constants, bits)
    except (ArithmeticError, ValueError, ZeroDivisionError):
        return None
    return outward(m) if m is not None and m < 0 else None


def split(box: Box) -> tuple[Box, Box]:
    """Halve the wider side (in log units); the halves share the midpoint exactly."""
    a, b, c, d = box
    if b - a >= d - c:
        m = (a + b) / 2
        return (a, m, c, d), (m, b, c, d)
    m = (c + d) / 2
    return (a, b, c, m), (a, b, m, d)


def branch_and_bound(group: str, root: Box, constants, bits: int = 96,
                     max_depth: int = 24, seconds: float | None = None,
                     max_boxes: int | None = None, method: str = "centred",
                     start: list[tuple[Box, int]] | None = None) -> Run:
    """Certify every claim of ``group`` over ``root``; after ``seconds``, or after ``max_boxes``
    boxes have been judged (a budget that gives the same answer on any machine), the boxes not
    yet judged are reported undecided (status ``unreached``).  ``start``: (box, depth) pairs
    that tile the root (a certificate's leaves, :func:`verify.certify.certificate.seed`) to
    begin from instead of the root: every one is judged and split as any box."""
    run = Run(group, root, bits, method=method)
    began = time.perf_counter()
    queue = deque(start or [(root, 0)])  # breadth first: a budget cut leaves the hard corners, not the
    judged = 0                   # rest of the box, unreached
    while queue:
        box, depth = queue.popleft()
        if (seconds is not None and time.perf_counter() - began > seconds) or \
                (max_boxes is not None and judged >= max_boxes):
            run.leaves.append(Leaf(box, depth, "unreached", {}))
            continue
        judged += 1
        status, pairs = judge_box(group, box, constants, bits, method)
        if status == "undecided" and depth < max_depth:
            lo, hi = split(box)
            queue += [(lo, depth + 1), (hi, depth + 1)]
            continue
        run.leaves.append(Leaf(box, depth, status, pairs))
    run.seconds = time.perf_counter() - began
    return run


def log_box(d_lo: float, d_hi: float, eps_lo: float, eps_hi: float) -> Box:
    """The box of (ln d, ln eps) with float ends rounded outward, so that it covers
    [d_lo, d_hi] x [eps_lo, eps_hi]."""
    def down(x: float) -> float:
        v = math.log(x)
        while not arb(v).exp() <= x:
            v = math.nextafter(v, -math.inf)
        return v

    def up(x: float) -> float:
        v = math.log(x)
        while not arb(v).exp() >= x:
            v = math.nextafter(v, math.inf)
        return v

    return down(d_lo), up(d_hi), down(eps_lo), up(eps_hi)
