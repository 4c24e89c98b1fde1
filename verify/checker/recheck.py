"""The independent recheck of a certificate (proofs/checker.md, section 8): whatever code wrote
it, the leaves tile the root (exact rationals), on every leaf every claim's margin is > 0 by
the checker's own enclosure over the whole leaf (the leaf split further where that enclosure is
too wide), and at the leaf's centre and corners each stored enclosure agrees with the
checker's value there (a wrong model is caught even where its claim happens to hold).

:func:`bind` says what a certificate claims and compares its root and constants with the ones
a caller expects (the registered check's box and the constants file).
"""
from __future__ import annotations

import math
import re
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Iterable, Mapping

from flint import arb, ctx

from .claims import EXACT, GROUPS, OWN, evaluate, recorded
from .tiling import tiling_problems

FORMATS = ("verify-certificate/1", "verify-certificate/2")
BITS = 96
MAX_SPLIT = 12  # further halvings of a leaf before the checker gives up on it


class NotACertificate(ValueError):
    """The input is not a certificate the checker can read (exit 2)."""


@dataclass(frozen=True)
class Certificate:
    group: str
    axes: tuple[str, ...]
    constants: dict[str, Fraction]
    root: tuple[float, ...]
    method: str
    leaves: list[dict]


def read(data: object) -> Certificate:
    """The parts of a certificate the checker uses; NotACertificate when malformed."""
    from . import cube, large_d  # the lemma for every d >= d0 (section 12), the cubes (15)

    if isinstance(data, dict) and data.get("group") in large_d.GROUPS \
            and data.get("format") in FORMATS:
        return large_d.read(data)
    if isinstance(data, dict) and cube.CUBE.fullmatch(str(data.get("group"))) \
            and data.get("format") in FORMATS:
        return cube.read(data)
    try:
        if not isinstance(data, dict) or data.get("format") not in FORMATS:
            raise NotACertificate("not a verify certificate (format 1 or 2)")
        group = GROUPS.get(data["group"])
        if group is None:
            raise NotACertificate(f"the checker has no margins for group {data['group']!r}")
        axes = tuple(data.get("axes", ("ln d", "ln eps")))
        if axes != group.axes:
            raise NotACertificate(f"axes {list(axes)} are not the group's {list(group.axes)}")
        constants = {k: Fraction(v) for k, v in data["constants"].items()}
        missing = [k for k in group.constants if k not in constants]
        if missing or not all(re.fullmatch(r"[\w.]+", k) for k in constants):
            raise NotACertificate(f"constants missing or misnamed: {missing or list(constants)}")
        method = data.get("method", "plain")
        if method not in recorded(data["group"]):
            raise NotACertificate(f"unknown method {method!r}")
        root = tuple(float.fromhex(x) for x in data["root"])
        leaves = [{"box": tuple(float.fromhex(x) for x in leaf["box"]),
                   "status": leaf.get("status"),
                   "margins": {c: tuple(float.fromhex(x) for x in m)
                               for c, m in leaf.get("margins", {}).items()}}
                  for leaf in data["leaves"]]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, NotACertificate):
            raise
        raise NotACertificate(f"malformed certificate: {exc!r}") from None
    if len(root) != 2 * len(axes) or any(len(leaf["box"]) != len(root) for leaf in leaves):
        raise NotACertificate("boxes do not have two ends per axis")
    if not all(math.isfinite(x) for x in root) or \
            not all(math.isfinite(x) for leaf in leaves for x in leaf["box"]):
        raise NotACertificate("a box end is not a finite number")
    if len(axes) == 4 and not (root[4] >= 0 and root[6] >= 0):
        raise NotACertificate("u = eta1/sqrt(d) and v = eta2_min/eta2 start at 0 or above")
    if axes[1] == "tau" and not 0 <= root[2] < root[3] < 1:
        raise NotACertificate("tau = 1/(1 - ln eps) lies in [0, 1)")
    return Certificate(data["group"], axes, constants, root, method, leaves)


@dataclass
class LeafVerdict:
    index: int
    problem: str | None = None
    boxes: int = 0  # boxes the checker judged for this leaf (1 when the leaf needed no split)
    depth: int = 0  # deepest further split
    low: float = math.inf  # the smallest lower end of its enclosures of the stored margins


def split(box: tuple) -> tuple[tuple, tuple]:
    """Halve the widest axis; the halves share the midpoint exactly."""
    i = max(range(len(box) // 2), key=lambda k: box[2 * k + 1] - box[2 * k])
    mid = (box[2 * i] + box[2 * i + 1]) / 2
    lo, hi = list(box), list(box)
    lo[2 * i + 1], hi[2 * i] = mid, mid
    return tuple(lo), tuple(hi)


def eps_of(x: float, tau: bool) -> float:  # e^x, or e^(1 - 1/x) on a tau axis (0 at 0)
    return (math.exp(1 - 1 / x) if x > 0 else 0.0) if tau else math.exp(x)


def fmt(box: tuple, group: str = "") -> str:
    tau = group in GROUPS and GROUPS[group].axes[1] == "tau"
    text = (f"d [{math.exp(box[0]):.6g}, {math.exp(box[1]):.6g}] x "
            f"eps [{eps_of(box[2], tau):.4g}, {eps_of(box[3], tau):.4g}]")
    return text + (f" x u [{box[4]:.4g}, {box[5]:.4g}] x v [{box[6]:.4g}, {box[7]:.4g}]"
                   if len(box) == 8 else "")


def ball(x: arb) -> str:
    """A ball as 'midpoint +- radius' with enough digits to tell two values apart."""
    return f"{float(x.mid()):.12g} +- {float(x.rad()):.2g}" if x.is_finite() else "not finite"


def _weakest(group: str, box: tuple, constants, method: str) -> tuple[tuple | None, float]:
    """(the first claim whose own margin over ``box`` is not shown > 0 or None; the smallest
    lower end of its enclosures over ``box`` of the stored margins, rounded down)."""
    try:
        q = evaluate(group, box, constants)
    except (ArithmeticError, ValueError, ZeroDivisionError):
        return (GROUPS[group].claims[0], arb("nan")), -math.inf
    low = min(math.nextafter(float(q[recorded(group)[method][c][1]].lower()), -math.inf)
              for c in GROUPS[group].claims)
    if not q["ok"] > 0:
        return ("the conditions of section 6", q["ok"]), low
    return next(((c, q[OWN[c]]) for c in GROUPS[group].claims if not q[OWN[c]] > 0), None), low


def judge_leaf(item: tuple) -> LeafVerdict:
    """One leaf: its status and stored margins, and its own margins (split as needed), at BITS
    bits (the caller's restored); :func:`agreement` compares the stored enclosures after."""
    old = ctx.prec
    ctx.prec = BITS
    try:
        return _judge_leaf(*item)
    finally:
        ctx.prec = old


def _judge_leaf(index: int, group: str, box: tuple, leaf: dict, constants, method: str) -> LeafVerdict:
    out = LeafVerdict(index)
    if leaf["status"] != "certified":
        out.problem = f"leaf {index} ({fmt(box, group)}) is recorded {leaf['status']!r}, not certified"
        return out
    for claim in GROUPS[group].claims:
        lo, hi = leaf["margins"].get(claim, (math.nan, math.nan))
        if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo <= hi):
            out.problem = (f"leaf {index} ({fmt(box, group)}), {claim}: the stored enclosure "
                           f"[{lo:.12g}, {hi:.12g}] is not a finite enclosure above 0")
            return out
    todo = [(box, 0)]
    while todo:
        sub, depth = todo.pop()
        out.boxes += 1
        out.depth = max(out.depth, depth)
        weak, low = _weakest(group, sub, constants, method)
        if weak is None:
            out.low = min(out.low, low)
            continue
        if weak[1] < 0:  # an exact margin below 0 disproves; a bound below 0 cannot prove
            what = "FALSE on" if weak[0] in EXACT else "the checker's bound is below 0 on"
            out.problem = (f"leaf {index} ({fmt(box, group)}), {weak[0]}: {what} the whole of "
                           f"{fmt(sub, group)} (the checker's margin there is {ball(weak[1])})")
            return out
        if depth == MAX_SPLIT:
            out.problem = (f"leaf {index} ({fmt(box, group)}), {weak[0]}: not shown > 0 on {fmt(sub, group)} "
                           f"after {depth} further splits (enclosure {ball(weak[1])})")
            return out
        todo += [(half, depth + 1) for half in split(sub)]
    return out


def _points(box: tuple, corners: bool) -> Iterable[tuple[str, tuple]]:
    n = len(box) // 2
    yield "centre", tuple(x for i in range(n) for x in [(box[2 * i] + box[2 * i + 1]) / 2] * 2)
    for corner in product(*[(box[2 * i], box[2 * i + 1]) for i in range(n)]) if corners else ():
        yield "corner", tuple(x for c in corner for x in (c, c))


def _agree_at(item: tuple) -> tuple[int, str] | None:
    """At one point, every stored enclosure of the leaves that meet there against the checker's
    value (BITS bits): (the first leaf that disagrees, why) or None."""
    group, pt, constants, method, refs = item
    old, ctx.prec = ctx.prec, BITS
    try:
        try:
            q = evaluate(group, pt, constants)
        except (ArithmeticError, ValueError, ZeroDivisionError) as exc:
            return refs[0][0], f"leaf {refs[0][0]}: the checker cannot evaluate its {refs[0][1]} ({exc})"
        for index, where, box, margins in refs:
            for claim in GROUPS[group].claims:
                kind, key = recorded(group)[method][claim]
                (lo, hi), mine = margins[claim], q[key]
                agree = mine.overlaps(arb(lo).union(arb(hi))) if kind == "two" else arb(lo) <= mine.upper()
                if not agree:
                    return index, (f"leaf {index} ({fmt(box, group)}), {claim}: the stored enclosure "
                                   f"[{lo:.12g}, {hi:.12g}] {'misses' if kind == 'two' else 'lies above'} "
                                   f"the checker's value {ball(mine)} at the {where} {fmt(pt, group)}")
        return None
    finally:
        ctx.prec = old


def agreement(cert: Certificate, corners: bool = False, leaves: Iterable[int] | None = None,
              pool: ProcessPoolExecutor | None = None) -> list[str]:
    """The first stored enclosure (in leaf order) that misses the checker's value at its leaf's
    centre (and corners): each point is evaluated once, for every leaf that meets there."""
    at: dict[tuple, list] = {}
    for i in range(len(cert.leaves)) if leaves is None else leaves:
        for where, pt in _points(cert.leaves[i]["box"], corners):
            at.setdefault(pt, []).append((i, where, cert.leaves[i]["box"], cert.leaves[i]["margins"]))
    items = [(cert.group, pt, cert.constants, cert.method, refs) for pt, refs in at.items()]
    found = [f for f in (pool.map(_agree_at, items, chunksize=16) if pool else map(_agree_at, items)) if f]
    return [min(found, key=lambda f: f[0])[1]] if found else []

@dataclass
class Verdict:
    leaves: int
    problems: list[str] = field(default_factory=list)
    boxes: int = 0  # boxes the checker judged in all
    split_leaves: int = 0  # leaves it had to split further
    deepest: int = 0
    seconds: float = 0.0
    low: float = math.inf  # over every leaf judged (LeafVerdict.low)
    from_journal: int = 0  # leaves taken from the journal of an earlier run (cube.check)
    journal: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems

    def take(self, found) -> bool:
        """Count one judged leaf (a LeafVerdict); True when it failed (judging stops)."""
        self.boxes += found.boxes
        self.split_leaves += found.boxes > 1
        self.deepest = max(self.deepest, found.depth)
        self.low = min(self.low, found.low)
        if found.problem:
            self.problems.append(found.problem)
        return bool(found.problem)

    def summary(self) -> str:
        return (f"{self.leaves} leaves: {self.boxes} boxes judged by the checker, "
                f"{self.split_leaves} leaves split further (deepest {self.deepest}), smallest "
                f"enclosed margin {self.low!r}, {self.seconds:.1f} s"
                + (f"; {self.from_journal} of the leaves (and their boxes) were judged by an earlier "
                   f"run and taken unjudged from the journal {self.journal}: "
                   f"{self.leaves - self.from_journal} judged in this run" if self.from_journal else ""))


def check(cert: Certificate, workers: int = 1, leaves: Iterable[int] | None = None,
          corners: bool = True, kept: tuple | None = None) -> Verdict:
    """The independent recheck; stops at the first failing leaf (in leaf order).  ``leaves``:
    the indices to judge (default all; the tiling is always checked in full); ``corners``:
    compare the stored enclosures at the leaf's corners too, not only at its centre; ``kept``:
    a cube or cone check's journal (:mod:`journal`)."""
    began = time.perf_counter()
    from . import cube, large_d

    if cert.group in large_d.GROUPS:
        return large_d.check(cert)
    if cube.CUBE.fullmatch(cert.group):
        return cube.check(cert, corners, workers, kept)
    root = tuple(Fraction(x) for x in cert.root)
    verdict = Verdict(len(cert.leaves))
    verdict.problems = tiling_problems(root, [tuple(Fraction(x) for x in leaf["box"])
                                              for leaf in cert.leaves])
    if not cert.leaves and not verdict.problems:
        verdict.problems.append("no leaves")
    if verdict.problems:  # not a tiling: no leaf can make it a proof
        return verdict
    chosen = range(len(cert.leaves)) if leaves is None else list(leaves)
    items = [(i, cert.group, cert.leaves[i]["box"], cert.leaves[i], cert.constants, cert.method)
             for i in chosen]
    pool = ProcessPoolExecutor(workers) if workers > 1 and len(items) > 1 else None
    try:
        results = pool.map(judge_leaf, items, chunksize=4) if pool else map(judge_leaf, items)
        if not any(verdict.take(found) for found in results):
            verdict.problems = agreement(cert, corners, chosen, pool)
    finally:
        if pool:
            pool.shutdown(wait=True, cancel_futures=True)
    verdict.seconds = time.perf_counter() - began
    return verdict


@dataclass(frozen=True)
class Binding:
    claim: str  # what the certificate proves, in words
    notes: list[str]  # constants that differ from the file but that the claim does not read
    mismatches: list[str]  # differences from what the caller expected (exit 1 unless --any-box)


def _range(lo: float, hi: float) -> tuple[float, float]:
    return float(arb(lo).exp().lower()), float(arb(hi).exp().upper())


def bind(cert: Certificate, registered: Mapping | tuple | None,
         file_constants: Mapping[str, Fraction]) -> Binding:
    """The claim in words, and its differences from the registered claim (plain data:
    ``{"box": (d_lo, d_hi, eps_lo, eps_hi) or None, "d": a cube's d or None}``, or the box alone;
    None: no registered check) and the constants file."""
    from . import cube, large_d

    expected_box = registered.get("box") if isinstance(registered, Mapping) else registered
    if cube.CUBE.fullmatch(cert.group):
        return cube.bind(cert, registered, file_constants)
    if cert.group in large_d.GROUPS:
        return large_d.bind(cert, expected_box, file_constants)
    group = GROUPS[cert.group]
    text = re.sub(r"\{([\w.]+)\}", lambda m: str(cert.constants[m.group(1)]), group.statement)
    tau = group.axes[1] == "tau"
    d = _range(*cert.root[:2])
    e = tuple(eps_of(x, True) for x in cert.root[2:4]) if tau else _range(*cert.root[2:4])
    d_lo = max(d[0], group.d_min)
    claim = (f"{cert.group}: {text}, for every real d in [{d_lo:.6g}, {d[1]:.6g}] and eps in "
             + (f"(0, {e[1]:.4g}] (eps = e^(1 - 1/tau), 0 the limit tau -> 0)" if tau and e[0] == 0
                else f"[{e[0]:.4g}, {e[1]:.4g}]"))
    if len(cert.root) == 8:  # u = eta1/sqrt(d), v = eta2_min/eta2; 0 is a limit, not a point
        claim += "".join(f", {f'0 < {n}' if lo == 0 else f'{lo:.6g} <= {n}'} <= {hi:.6g}"
                         for n, lo, hi in (("u = eta1/sqrt(d)", *cert.root[4:6]),
                                           ("v = eta2_min/eta2", *cert.root[6:8])))
    differ = {k: v for k, v in cert.constants.items() if file_constants.get(k) != v}
    used = [k for k in group.constants if k in differ]
    if differ:
        claim += "; constants differing from proofs/constants.toml: " + ", ".join(
            f"{k} = {v} (file: {file_constants.get(k, 'absent')})" for k, v in sorted(differ.items()))
    mismatches = [f"constant {k} = {cert.constants[k]} is not the constants file's "
                  f"{file_constants.get(k, 'absent')}" for k in used]
    notes = [f"constant {k} differs from the file but the claim does not read it"
             for k in sorted(differ) if k not in used]
    if expected_box is None:
        mismatches.append(f"no registered check has a box for group {cert.group!r}")
    else:
        lo = [arb(x).exp() for x in cert.root[0::2]]
        hi = [arb(x).exp() for x in cert.root[1::2]]
        if tau:  # eps = e^(1 - 1/tau): 0 at tau = 0
            lo[1], hi[1] = (arb(0) if x <= 0 else (1 - 1 / arb(x)).exp() for x in cert.root[2:4])
        boxes = (registered.get("boxes") if isinstance(registered, Mapping) else None) \
            or [expected_box]  # a group may be registered over several boxes: one must be covered
        wants = [[(max(b[0], group.d_min), b[1]), b[2:4]] for b in boxes]
        if not any(all(l.upper() <= a and h.lower() >= b for l, h, (a, b) in zip(lo, hi, want))
                   for want in wants):
            mismatches.append("the root does not cover the registered box " + " or ".join(
                f"d in [{w[0][0]:g}, {w[0][1]:g}], eps in [{w[1][0]:g}, {w[1][1]:g}]"
                for w in wants))
    if len(cert.root) == 8:  # every 0 < eta1 <= eta1_scale sqrt(d) and every eta2 >= eta2_min
        u_max = file_constants.get("thm2.eta1_scale", Fraction(1))
        if not (cert.root[4] <= 0 and cert.root[6] <= 0 and Fraction(cert.root[5]) >= u_max
                and cert.root[7] >= 1):
            mismatches.append(f"the root does not cover every step size: u in [0, {u_max}] "
                              "and v in [0, 1]")
    if volume_zero(cert.root):
        mismatches.append("the root box has zero volume: it claims nothing")
    return Binding(claim, notes, mismatches)


def volume_zero(root: tuple) -> bool:
    return any(root[2 * i + 1] <= root[2 * i] for i in range(len(root) // 2))
