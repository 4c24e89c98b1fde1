"""Branch and bound over the cube [0, 1]^(d-1) of successive ratios (certified evidence).

Propositions 2 and 3 quantify over every attention alpha in R^d.  In the sorted successive-ratio
coordinates of :mod:`verify.engine.certified.ratios` every alpha is a point of the closed cube
(up to a shift and a permutation of the symbols, which change nothing), so a tiling of the cube
by boxes, each with a proof over the whole box, proves the claim for every alpha.  Problems
(``PROBLEMS``, one claim group each):

* ``prop3-cube-dD``: some target s has inf_beta L_s(alpha, beta) >= c2 on the box
  (margin: the lower end of the floor's enclosure minus c2, for the best target);
* ``prop3-sharp-dD``: the floor F = max_s inf_beta L_s is >= F(0) = 1/2 - (d-2)/(2(d-1) ln(d-1))
  on the box (margin: lower end of F_s minus the upper end of F(0)); a box whose monotone face
  (below) is the corner r = (1, .., 1) (alpha = 0) is certified by the signs alone:
  F >= F_s >= F_s(1, .., 1) = F(0) there (margin: the smallest distance of those derivatives
  from 0);
* ``prop2-cone-dD``: with the target s at sorted position k (an extra axis "s": the unit interval
  [k, k+1] is position k), the minimum over the cone {beta~_s <= beta~_j for all j} of
  L_s(alpha, beta~) is >= c1 on the box, by weak duality with multipliers chosen at the centre
  (margin: the dual bound's lower end minus c1).

Every leaf's margin is an interval [lo, hi] around (the smallest value of the claimed quantity
on the box) minus the bound: lo from the enclosure over the box, hi from values at points of it
(prop3: the largest upper end of the targets' floors at the centre; prop2: the loss at a beta~ of
the cone at the centre), so the leaves also give an upper bound of the infimum.  A leaf certified by the
signs at alpha = 0 stores (the smallest distance of those derivatives from 0, inf).

Monotonicity test (:func:`descend`): when the enclosure over the box does not decide it, the
partial derivatives of the active target's floor that have a certified sign move the box to the
face where the floor is smallest, which is judged instead (for Proposition 2 the dual bound with
the same multipliers).

A box is *certified* when its margin's lower end is > 0, *disagree* when the moments at its
centre miss the general engine's (a defect, never a pass), *failing* when the claim fails at a
point of it, its centre (prop3: every target's floor there below the bound; prop2: the loss at
a beta~ of the cone there below c1), and split in two otherwise (along s first, then along the r-side whose
share of the floor's centred width is largest), down to ``max_depth``; a box still straddling
there is *undecided*.  Judged boxes can go to a journal (JSON lines) so that a stopped run resumes.
Certificates and their recheck: :mod:`verify.certify.cube_certificate`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
from flint import arb

from ..engine.certified.balls import outward, precision
from ..engine.certified.ratio_floors import cone_shift, loss_at, quadratic_floor
from ..engine.certified.general import ball_moments
from ..engine.certified.ratios import box_moments, point_moments
from ..run.journal import finder_fingerprint
from ..run.progress import note
from . import branch

BITS = 64
MAX_DEPTH = 40
PRESPLIT = 0.25  # a box with an r-side wider than this is split unjudged (a choice: such boxes
# never certify, and their jet passes are the slowest)
Box = tuple  # ((lo, hi), ...) floats: the s-axis first for prop2, then r_1 .. r_(d-1)


@dataclass(frozen=True)
class Problem:
    group: str
    kind: str  # floor | sharp | cone
    d: int
    claim: str  # the claim id whose margin a leaf stores
    constant: str | None  # the constant the margin is measured against (sharp: F(0), no key)

    @property
    def axes(self) -> list[str]:
        return (["s"] if self.kind == "cone" else []) + [f"r{k}" for k in range(2, self.d + 1)]

    @property
    def root(self) -> Box:
        r = tuple((0.0, 1.0) for _ in range(self.d - 1))
        return (((0.0, float(self.d)),) if self.kind == "cone" else ()) + r

    @property
    def statement(self) -> str:
        d = self.d
        if self.kind == "floor":
            return (f"d = {d}: for every attention alpha in R^{d} some target s has inf_beta "
                    f"L_s(alpha, beta) >= prop3.c2 (every box of the cube of successive ratios)")
        if self.kind == "sharp":
            return (f"d = {d}: for every attention alpha, max_s inf_beta L_s(alpha, beta) >= "
                    f"F(0) = 1/2 - (d-2)/(2(d-1) ln(d-1)), with equality only at alpha = 0 "
                    f"(up to a shift)")
        return (f"d = {d}: for every output beta~ and every attention alpha, L_s(alpha, beta~) >= "
                f"prop2.c1 for s = argmin beta~ (every target position s among the sorted logits)")


PROBLEMS = {f"{name}-d{d}": Problem(f"{name}-d{d}", kind, d, claim, const)
            for d in (3, 4, 5)
            for name, kind, claim, const in (("prop3-cube", "floor", "prop3.all_attention", "prop3.c2"),
                                             ("prop3-sharp", "sharp", "prop3.sharp", None),
                                             ("prop2-cone", "cone", "prop2.all_parameters", "prop2.c1"))}


def uniform_floor(d: int) -> arb:
    """F(0) = 1/2 - (d-2)/(2(d-1) ln(d-1)) (prop3.uniform_symbolic proves it) as a ball."""
    return arb(1) / 2 - arb(d - 2) / (2 * (d - 1) * arb(d - 1).log())


def gradient_constant(d: int) -> tuple[arb, bool]:
    """(a, consistent): at alpha = 0 every target's floor has gradient a (e_s - 1/d) in alpha (by
    symmetry), so in r the lowest logit's target has dF/dr_k = a (k - 1)/d (symbols 1..d,
    k = 2..d) at r = (1, .., 1); a from each k (balls at the point), intersected, and whether the
    k agree (the symmetry, checked).  a != 0 makes the minimum at alpha = 0 V-shaped."""
    corner = tuple((1.0, 1.0) for _ in range(d - 1))
    fl = quadratic_floor(box_moments(d, corner, [d - 1], BITS), d - 1, None, BITS)
    with precision(BITS):
        parts = [g * d / (k + 1) for k, g in enumerate(fl.centre_gradient)]
        a, ok = parts[0], True
        for x in parts[1:]:
            ok = ok and a.overlaps(x)
            a = a.intersection(x) if ok else a
    return a, ok


@dataclass(frozen=True)
class Judgement:
    status: str  # certified / failing / undecided
    margin: tuple  # (lower, upper) floats rounded outward (-inf, inf when not enclosed)
    target: int | None  # the target whose floor decided the box
    axis: int  # the side to split along when undecided (index into the box)


def _ratio_box(problem: Problem, box: Box) -> tuple[Box, int | None]:
    """(the r-part of the box, the target position or None when the s-side is wider than 1)."""
    if problem.kind != "cone":
        return box, None
    lo, hi = box[0]
    return box[1:], (int(lo) if hi - lo == 1 and lo == int(lo) else None)


def _widest(box: Box, offset: int) -> int:
    return offset + max(range(len(box) - offset), key=lambda k: box[offset + k][1] - box[offset + k][0])


def _split_axis(box: Box, offset: int, gradient) -> int:
    """The r-side with the largest share |dF/dr_k(X)| (hi - lo) of the centred width (the widest
    side when the gradient is not finite)."""
    shares = []
    for k, g in enumerate(gradient):
        lo, hi = box[offset + k]
        shares.append(float(abs(g).upper()) * (hi - lo) if g.is_finite() else math.inf)
    if not all(math.isfinite(s) for s in shares) or max(shares) <= 0:
        return _widest(box, offset)
    return offset + max(range(len(shares)), key=lambda k: shares[k])


def _bound_ball(problem: Problem, constants) -> arb:
    if problem.kind == "sharp":
        return uniform_floor(problem.d)
    c = Fraction(constants[problem.constant])
    return arb(c.numerator) / c.denominator


def agrees_with_general(d: int, r: tuple, s: int, bits: int = BITS) -> bool:
    """Two routes to M and m_s at an interior point r (all r_k > 0): the stratified moments of
    :mod:`verify.engine.certified.ratios` and the general engine's (one integral over all words
    at alpha = cumulative ln r, :func:`verify.engine.certified.general.ball_moments`, its own
    integrands, pieces and bounds) must overlap entry by entry.  The ratios of the float alpha
    are balls (exp of exact differences), so both enclose the moments at the same point."""
    alpha = [0.0]
    for x in r:
        alpha.append(alpha[-1] + math.log(x))
    with precision(bits):
        rr = [min((arb(b) - arb(a)).exp(), arb(1), key=float) if b != a else arb(1)
              for a, b in zip(alpha, alpha[1:])]
    mine = point_moments(d, rr, [s], bits)
    theirs = ball_moments(d, s, alpha, bits)
    ok = all(mine.second[i, j].overlaps(theirs.second[i, j]) for i in range(d) for j in range(d))
    return ok and all(a.overlaps(b) for a, b in zip(mine.positive[s], theirs.mean_positive))


def _face(box: Box, gradient) -> tuple[Box, float | None]:
    """The face of ``box`` where F is smallest along every side whose derivative has a certified
    sign (hi_k where dF/dr_k < 0, lo_k where > 0), and the smallest distance of those
    derivatives from 0 (None when no sign is certain)."""
    face, sign = [], None
    for (lo, hi), g in zip(box, gradient):
        if lo < hi and g.is_finite() and (g < 0 or g > 0):
            v = hi if g < 0 else lo
            face.append((v, v))
            gap = outward(-g)[0] if g < 0 else outward(g)[0]
            sign = gap if sign is None else min(sign, gap)
        else:
            face.append((lo, hi))
    return tuple(face), sign


def descend(d: int, box: Box, s: int, shift, floor) -> tuple[Box, object, float | None]:
    """(face, its floor, sign margin): the monotonicity test, iterated.  If dF/dr_k has a
    certified sign on the box, F >= its values on the face r_k = hi_k (derivative < 0) or lo_k
    (> 0) -- the mean value theorem along r_k inside the box -- so the box's minimum is its
    face's.  The face is judged again (fewer free sides: a tighter enclosure) until no sign is
    certain; ``floor`` is F's :class:`~verify.engine.certified.ratio_floors.Floor` on ``box``."""
    sign = None
    while True:
        face, gap = _face(box, floor.gradient)
        if gap is None:
            return box, floor, sign
        sign = gap if sign is None else min(sign, gap)
        box = face
        floor = quadratic_floor(box_moments(d, box, [s], BITS), s, shift, BITS)


def _judge_prop3(problem: Problem, box: Box, bound: arb) -> Judgement:
    d = problem.d
    bm = box_moments(d, box, range(d), BITS)
    floors = [quadratic_floor(bm, s, None, BITS) for s in range(d)]
    best = max(range(d), key=lambda s: outward(floors[s].value)[0])
    axis = _split_axis(box, 0, floors[best].gradient)
    with precision(BITS):
        lo = outward(floors[best].value - arb(bound.upper()))[0]
        hi = max(outward(f.centre - arb(bound.lower()))[1] for f in floors)  # at the centre
    if lo > 0:
        return Judgement("certified", (lo, hi), best, axis)
    if hi < 0:  # every target's floor at the centre is below the bound: a counterexample point
        return Judgement("failing", (lo, hi), best, axis)
    top = max(range(d), key=lambda s: float(floors[s].centre.mid()))  # the active target
    face, fl, sign = descend(d, box, top, None, floors[top])
    if sign is not None:
        if problem.kind == "sharp" and all(a == b == 1.0 for a, b in face):
            # alpha = 0: F >= F_top >= F_top(1, .., 1) = F(0), strictly off the corner; the
            # margin is the smallest distance of the derivatives from 0 (no upper end).  The
            # closed form of F(0) must be the value there (else the bound is wrong: a defect)
            status = "certified" if fl.value.overlaps(bound) else "disagree"
            return Judgement(status, (sign, math.inf), top, axis)
        with precision(BITS):
            lo_face = outward(fl.value - arb(bound.upper()))[0]
        if lo_face > 0:
            return Judgement("certified", (lo_face, hi), top, axis)
    return Judgement("undecided", (lo, hi), best, axis)


def cone_multipliers(M: np.ndarray, m: np.ndarray, s: int) -> tuple[np.ndarray, np.ndarray]:
    """(lambda, beta~) from floats: the multipliers maximising the dual bound of min over the cone
    {beta_s <= beta_j} of 1/2 b'Mb - 2 b'm + 1 (non-negative least squares on
    ||L^-1 (2m - B lambda)||, M = L L'), and the cone's minimiser beta~ = M^-1 (2m - B lambda)
    moved into the cone (beta_j >= beta_s).  A choice: any lambda >= 0 gives a valid bound."""
    from scipy.optimize import nnls

    d = len(m)
    others = [j for j in range(d) if j != s]
    B = np.zeros((d, d - 1))
    for k, j in enumerate(others):
        B[s, k], B[j, k] = 1.0, -1.0
    L = np.linalg.cholesky(M)
    lam, _ = nnls(np.linalg.solve(L, B), np.linalg.solve(L, 2 * m))
    beta = np.linalg.solve(M, 2 * m - B @ lam)
    beta[others] = np.maximum(beta[others], beta[s])
    return lam, beta


def _judge_prop2(problem: Problem, box: Box, bound: arb) -> Judgement:
    d = problem.d
    rbox, s = _ratio_box(problem, box)
    if s is None:
        return Judgement("undecided", (-math.inf, math.inf), None, 0)
    bm = box_moments(d, rbox, [s], BITS)
    Mc = np.array([[float(bm.at_centre.second[i, j].mid()) for j in range(d)] for i in range(d)])
    mc = np.array([float(x.mid()) for x in bm.at_centre.positive[s]])
    lam, beta = cone_multipliers(Mc, mc, s)
    shift = cone_shift(d, s, [float(x) for x in lam])
    fl = quadratic_floor(bm, s, shift, BITS)
    axis = _split_axis(box, 1, fl.gradient)
    with precision(BITS):
        lo = outward(fl.value - arb(bound.upper()))[0]
        hi = outward(loss_at(bm.at_centre, s, [float(x) for x in beta], BITS) - arb(bound.lower()))[1]
    if lo <= 0 and hi >= 0:  # the monotonicity test on the dual bound with the same multipliers
        face, face_fl, sign = descend(d, rbox, s, shift, fl)
        if sign is not None:
            with precision(BITS):
                lo = max(lo, outward(face_fl.value - arb(bound.upper()))[0])
    status = "certified" if lo > 0 else "failing" if hi < 0 else "undecided"
    return Judgement(status, (lo, hi), s, axis)


def judge(problem: Problem, box: Box, constants) -> Judgement:
    """One box's verdict (an enclosure that cannot be formed leaves the box undecided; so does
    a box wider than PRESPLIT, unjudged).  Every box judged is also a test of the engine: at
    its centre the moments must agree with the general engine's (:func:`agrees_with_general`),
    else the box is ``disagree`` (a defect: the run fails)."""
    offset = 1 if problem.kind == "cone" else 0
    if max(hi - lo for lo, hi in box[offset:]) > PRESPLIT:
        return Judgement("undecided", (-math.inf, math.inf), None, _widest(box, offset))
    bound = _bound_ball(problem, constants)
    try:
        if problem.kind == "cone":
            j = _judge_prop2(problem, box, bound)
        else:
            j = _judge_prop3(problem, box, bound)
    except (ArithmeticError, ValueError, ZeroDivisionError, np.linalg.LinAlgError):
        return Judgement("undecided", (-math.inf, math.inf), None, _widest(box, offset))
    rbox = box[offset:]
    if j.target is not None and not agrees_with_general(problem.d, tuple((lo + hi) / 2 for lo, hi in rbox), j.target):
        return Judgement("disagree", j.margin, j.target, j.axis)
    return j


def split(box: Box, axis: int) -> tuple[Box, Box]:
    """Halve side ``axis`` (the s-side at an integer: target positions are whole cells); the
    halves share the midpoint exactly."""
    lo, hi = box[axis]
    whole = hi - lo > 1 and lo == int(lo) and hi == int(hi)  # an s-side of several positions
    mid = float(math.floor((lo + hi) / 2)) if whole else (lo + hi) / 2
    left = box[:axis] + ((lo, mid),) + box[axis + 1:]
    right = box[:axis] + ((mid, hi),) + box[axis + 1:]
    return left, right


@dataclass(frozen=True)
class Leaf:
    box: Box
    depth: int
    status: str
    margin: tuple
    target: int | None


@dataclass
class Run:
    problem: Problem
    leaves: list[Leaf] = field(default_factory=list)
    judged: int = 0
    cpu_seconds: float = 0.0

    @property
    def status(self) -> bool | None:
        if any(leaf.status in ("failing", "disagree") for leaf in self.leaves):
            return False
        return True if self.leaves and all(leaf.status == "certified" for leaf in self.leaves) else None

    @property
    def deepest(self) -> int:
        return max((leaf.depth for leaf in self.leaves), default=0)

    def smallest(self) -> Leaf | None:
        """The certified leaf closest to failing."""
        done = [leaf for leaf in self.leaves if leaf.status == "certified"]
        return min(done, key=lambda leaf: leaf.margin[0], default=None)


def encode(judgement: Judgement) -> dict:
    """A judgement as a journal record's fields (floats as ``float.hex``)."""
    return {"status": judgement.status, "margin": [float(x).hex() for x in judgement.margin],
            "target": judgement.target, "axis": judgement.axis}


def decode(record: dict) -> Judgement:
    """:func:`encode` read back."""
    return Judgement(record["status"], tuple(float.fromhex(x) for x in record["margin"]),
                     record["target"], record["axis"])


def journal_key(problem: Problem, constants) -> dict:
    """What must agree for two runs' judgements to be interchangeable (the code: the
    fingerprint of this module and what it imports)."""
    values = getattr(constants, "untracked", lambda: constants)()
    return {"group": problem.group, "root": branch.hex_box(problem.root),
            "constants": {k: str(v) for k, v in sorted(values.items())}, "bits": BITS,
            "code": finder_fingerprint("certify/cube.py")}


@dataclass(frozen=True, eq=False)
class Cubes:
    """One cube problem under given constants, as a :class:`verify.certify.branch.Problem`
    (best first: the children of the box with the smallest upper margin first)."""

    problem: Problem
    constants: object

    def judge(self, box: Box) -> Judgement:
        return judge(self.problem, box, self.constants)

    def split(self, box: Box, judgement: Judgement) -> tuple[Box, Box]:
        return split(box, judgement.axis)

    def leaf(self, box: Box, depth: int, judgement: Judgement | None) -> Leaf:
        if judgement is None:
            return Leaf(box, depth, "unreached", (-math.inf, math.inf), None)
        return Leaf(box, depth, judgement.status, judgement.margin, judgement.target)

    def priority(self, judgement: Judgement) -> float:
        return judgement.margin[1]

    encode = staticmethod(encode)
    decode = staticmethod(decode)


def _note(run: Run, queued: int) -> None:
    """The progress display (throttled)."""
    note(f"{run.judged} boxes judged, {len(run.leaves)} leaves, {queued} boxes queued, "
         f"{run.cpu_seconds:.0f} CPU-s")


def branch_and_bound(problem: Problem, constants, start: list[tuple] | None = None,
                     max_boxes: int | None = None, max_depth: int = MAX_DEPTH,
                     journal: Path | None = None, stop_on_failure: bool = False,
                     executor=None) -> Run:
    """Certify ``problem`` over its root (or from ``start``: (box, depth) or (box, depth,
    priority) items tiling it, e.g. a certificate's leaves), breadth first.  After ``max_boxes`` judged boxes (a budget that
    gives the same answer on any machine) the rest are left ``unreached``; with
    ``stop_on_failure`` also after the first failing or disagreeing box (the claim is red); the
    boxes are then judged best first (the likeliest to fail first: a red claim shows at once).
    ``executor``: where the boxes are judged (:mod:`verify.run.executors`; None: here; best
    first judges one box at a time).  ``journal``: judged boxes are appended there (:class:`verify.certify.branch.Journal`, under
    :func:`journal_key`) and read back on a restart.  The search itself is
    :func:`verify.certify.branch.search`."""
    values = getattr(constants, "untracked", lambda: constants)()
    book = None if journal is None else branch.Journal(journal, journal_key(problem, values), decode)
    return branch.search(Cubes(problem, constants), Run(problem), start or [(problem.root, 0)],
                         max_depth, max_boxes, executor=executor, journal=book,
                         best_first=stop_on_failure,
                         stop_on_failure=stop_on_failure, progress=_note)
