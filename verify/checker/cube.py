"""The cube and cone certificates of Propositions 2 and 3 (prop3-cube-dD, prop3-sharp-dD,
prop2-cone-dD; proofs/checker.md, section 15): read and bound to the registered claim (written
from the kind, the d of the axes and the constants, never the file's text), and Proposition 3's
stored margins compared with the checker's own values at points (the stratified moments, the
floors).  :func:`check` judges the prop3-cube leaves over their boxes (the centred form of
``cube_box``); the sharp and cone leaves it refuses.
"""
from __future__ import annotations

import math
import re
import time
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from itertools import product
from typing import Mapping

from flint import acb, arb, arb_mat, ctx

from . import cube_box, recheck
from .tiling import tiling_problems

CUBE = re.compile(r"(prop3-cube|prop3-sharp|prop2-cone)-d([345])")
MAX_SPLIT = 8  # further halvings of a cube leaf before the checker gives up on it
KINDS = {  # kind -> (the claim id a leaf stores, the constant it is measured against)
    "prop3-cube": ("prop3.all_attention", "prop3.c2"),
    "prop3-sharp": ("prop3.sharp", None),
    "prop2-cone": ("prop2.all_parameters", "prop2.c1"),
}


def axes(kind: str, d: int) -> tuple[str, ...]:
    return (("s",) if kind == "prop2-cone" else ()) + tuple(f"r{k}" for k in range(2, d + 1))


def root(kind: str, d: int) -> tuple[float, ...]:
    return ((0.0, float(d)) if kind == "prop2-cone" else ()) + (0.0, 1.0) * (d - 1)


def read(data: dict) -> recheck.Certificate:
    """The certificate's parts; NotACertificate (one line, exit 2) when malformed."""
    found = CUBE.fullmatch(str(data.get("group")))
    if found is None:
        raise recheck.NotACertificate(f"not a cube group: {data.get('group')!r}")
    kind, d = found.group(1), int(found.group(2))
    claim, key = KINDS[kind]
    try:
        constants = {k: Fraction(v) for k, v in data["constants"].items()}
        if key is not None and key not in constants:
            raise recheck.NotACertificate(f"constants missing: {key}")
        if tuple(data["axes"]) != axes(kind, d):
            raise recheck.NotACertificate(f"axes {data['axes']} are not {list(axes(kind, d))} "
                                          f"(d = {d})")
        box = tuple(float.fromhex(x) for x in data["root"])
        leaves = [{"box": tuple(float.fromhex(x) for x in leaf["box"]),
                   "status": leaf.get("status"),
                   "margins": {claim: tuple(float.fromhex(x) for x in leaf["margins"][claim])}}
                  for leaf in data["leaves"]]
    except recheck.NotACertificate:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise recheck.NotACertificate(f"malformed certificate: {exc!r}") from None
    if not all(math.isfinite(x) for b in [box, *(leaf["box"] for leaf in leaves)] for x in b) \
            or any(len(leaf["box"]) != len(box) for leaf in leaves) or len(box) != 2 * (d - 1) \
            + 2 * (kind == "prop2-cone"):
        raise recheck.NotACertificate("box ends are not finite numbers, two per axis")
    return recheck.Certificate(data["group"], axes(kind, d), constants, box, kind, leaves)


def statement(kind: str, d: int, k: Mapping[str, Fraction]) -> str:
    """The claim in words, from the kind, d and the constants alone."""
    if kind == "prop3-cube":
        return (f"d = {d}: for every attention alpha in R^{d} some target s has inf_beta "
                f"L_s(alpha, beta) >= {k['prop3.c2']}")
    if kind == "prop3-sharp":
        return (f"d = {d}: for every attention alpha in R^{d}, max_s inf_beta L_s(alpha, beta) "
                f">= F(0) = 1/2 - (d-2)/(2(d-1) ln(d-1)), equality only at alpha = 0")
    return (f"d = {d}: for every output beta~ and every attention alpha in R^{d}, "
            f"L_s(alpha, beta~) >= {k['prop2.c1']} for s = argmin beta~")


def bind(cert: recheck.Certificate, registered: Mapping | None,
         file_constants: Mapping[str, Fraction]) -> recheck.Binding:
    """The claim and its differences from the registered d and the constants file."""
    kind, d = cert.method, len([a for a in cert.axes if a != "s"]) + 1
    key = KINDS[kind][1]
    claim = f"{cert.group}: {statement(kind, d, cert.constants)}"
    mismatches, notes = [], []
    mine, theirs = (cert.constants[key], file_constants.get(key, "absent")) if key else (0, 0)
    if mine != theirs:  # a larger lower bound than the file's implies the file's claim
        above = isinstance(theirs, Fraction) and mine > theirs
        claim += f"; {key} = {mine} (file: {theirs})"
        (notes if above else mismatches).append(
            f"constant {key} = {mine} is {'above' if above else 'not'} the constants file's "
            f"{theirs}" + (" (the bound it proves implies the file's)" if above else ""))
    want = (registered or {}).get("d") if isinstance(registered, Mapping) else None
    if want != d:
        mismatches.append(f"no registered check of {kind} at d = {d}")
    if cert.root != root(kind, d):
        mismatches.append(f"the root is not the whole cube of successive ratios at d = {d}")
    notes += [f"constant {k} differs from the file but the claim does not read it"
              for k in sorted(cert.constants) if k != key and cert.constants[k] != file_constants.get(k)]
    return recheck.Binding(claim, notes, mismatches)


def check(cert: recheck.Certificate, corners: bool = True, workers: int = 1) -> recheck.Verdict:
    """The tiling, then every prop3-cube leaf judged over its box by the centred form of
    ``cube_box`` (split further where it is too wide; on ``workers`` processes), then the stored
    enclosures against the checker's values at points (section 15).  prop3-sharp and
    prop2-cone are refused (exit 2)."""
    if cert.method != "prop3-cube":
        raise recheck.NotACertificate(f"the independent checker does not judge the leaves of "
                                      f"{cert.group} (section 15; drop --independent for the "
                                      f"engine's recheck)")
    began = time.perf_counter()
    verdict = recheck.Verdict(len(cert.leaves))
    verdict.problems = tiling_problems(tuple(Fraction(x) for x in cert.root),
                                       [tuple(map(Fraction, leaf["box"])) for leaf in cert.leaves])
    if not cert.leaves and not verdict.problems:
        verdict.problems.append("no leaves")
    if not all(0 <= x <= 1 for x in cert.root):  # --any-box: the model lives on the cube
        verdict.problems.append("the root leaves the cube [0, 1]^(d-1) of successive ratios")
    items = [(i, leaf, len(cert.axes) + 1, cert.constants["prop3.c2"])
             for i, leaf in enumerate(cert.leaves if not verdict.problems else [])]
    old, ctx.prec = ctx.prec, recheck.BITS
    pool = ProcessPoolExecutor(workers) if workers > 1 and len(items) > 1 else None
    try:
        for found in pool.map(_judge_item, items) if pool else map(_judge_item, items):
            if verdict.take(found):
                break
        if not verdict.problems:
            verdict.problems = _agreement(cert, "prop3-cube", len(cert.axes) + 1,
                                          KINDS["prop3-cube"][0], corners)
    finally:
        ctx.prec = old
        if pool:
            pool.shutdown(wait=True, cancel_futures=True)
    verdict.seconds = time.perf_counter() - began
    return verdict


def _judge_item(item: tuple) -> recheck.LeafVerdict:
    """:func:`judge_leaf` on (index, leaf, d, c2 as a Fraction), at the checker's precision
    (set here: a pool's process does not inherit the parent's context)."""
    index, leaf, d, c2 = item
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        return judge_leaf(index, leaf, d, arb(c2.numerator) / c2.denominator)
    finally:
        ctx.prec = old


def _where(sides: list[tuple[float, float]]) -> str:
    return " x ".join(f"r{k + 2} [{a:.6g}, {b:.6g}]" for k, (a, b) in enumerate(sides))


def judge_leaf(index: int, leaf: dict, d: int, bound: arb) -> recheck.LeafVerdict:
    """One leaf: status and stored enclosure, then max_s F_s - c2 > 0 over its box by
    ``cube_box.floors_over`` (a piece halved along its widest side up to MAX_SPLIT times); a
    piece whose centre has max_s F_s < c2 disproves the claim there (section 15)."""
    out = recheck.LeafVerdict(index)
    claim = KINDS["prop3-cube"][0]
    lo, hi = leaf["margins"][claim]
    box = [(leaf["box"][2 * k], leaf["box"][2 * k + 1]) for k in range(d - 1)]
    if leaf["status"] != "certified" or not (math.isfinite(hi) and 0 < lo <= hi):
        out.problem = (f"leaf {index} ({_where(box)}) is recorded {leaf['status']!r} with the "
                       f"stored enclosure [{lo:.12g}, {hi:.12g}]: not certified, or not a finite "
                       f"enclosure above 0")
        return out
    todo = [(box, 0)]
    while todo:
        sides, depth = todo.pop()
        out.boxes += 1
        out.depth = max(out.depth, depth)
        M, m = moments_at(d, [arb((a + b) / 2) for a, b in sides])
        here = max((f.upper() for f in _floors(M, m)), key=float) - bound
        if here < 0:
            out.problem = (f"leaf {index} ({_where(box)}), {claim}: FALSE at the centre of "
                           f"{_where(sides)} (max_s F_s - c2 = {recheck.ball(here)} there)")
            return out
        low = max((f.lower() for f in cube_box.floors_over(d, sides, M, m)), key=float) - bound
        if low > 0:
            out.low = min(out.low, float(low))
            continue
        if depth == MAX_SPLIT:
            out.problem = (f"leaf {index} ({_where(box)}), {claim}: not shown > 0 on "
                           f"{_where(sides)} after {depth} further splits (the checker's lower "
                           f"bound there is {recheck.ball(low)})")
            return out
        todo += [(half, depth + 1) for half in _halves(sides)]
    return out


def _halves(sides: list[tuple[float, float]]) -> list[list[tuple[float, float]]]:
    """Halved along the widest side; the halves share the midpoint exactly."""
    k = max(range(len(sides)), key=lambda i: sides[i][1] - sides[i][0])
    (a, b), mid = sides[k], (sides[k][0] + sides[k][1]) / 2
    return [sides[:k] + [half] + sides[k + 1:] for half in ((a, mid), (mid, b))]


# -- values at a point of the cube (section 15): the stratified moments, the floors ----------------
CUT = 64  # [0, CUT] integrated; [CUT, inf) bounded by the word law (section 15)


def _entry(f, p: arb) -> arb:
    """int_0^inf f dt, f <= (1 + t) e^-t E[m^2] <= (1 + t) e^-t 2/p^2 (S >= 1 on a stratum)."""
    return acb.integral(lambda t, _: f(t), 0, CUT, rel_tol=2.0**-60).real \
        + arb(0).union(2 * (CUT + 1) * arb(-CUT).exp() / (p * p))


def moments_at(d: int, r: list[arb]) -> tuple[list[list[arb]], list[list[arb]]]:
    """(M = E[gamma gamma^T], [m_s = E[gamma 1{s in the word}]]) at a point r, by the heaviest
    symbol h of the word (section 15): w_j = r_(h+1) .. r_j, x_j = e^(-t w_j), A = 1 - q z,
    z = sum_(j >= h) x_j/d, A' = A + q x_h/d (no h); "without s" sets x_s = 0."""
    p = arb(1) / (d - 1)
    q = 1 - p
    M = [[arb(0)] * d for _ in range(d)]
    m = [[arb(0)] * d for _ in range(d)]
    for h in range(d):
        w = {h: arb(1)}
        for j in range(h + 1, d):
            w[j] = w[j - 1] * r[j - 1]

        def parts(t, no=None):
            x = {j: (-t * w[j]).exp() if j != no else acb(0) for j in w}
            a = 1 - q * sum(x.values()) / d
            return x, a, a + q * x[h] / d

        def first(i, no=None):
            def f(t):
                x, a, b = parts(t, no)
                return w[i] * x[i] * p / d * (a ** -2 - (b ** -2 if i != h else 0))
            return _entry(f, p)

        def second(i, j):
            def f(t):
                x, a, b = parts(t)
                both = x[i] * x[j] * 2 * p * q / d ** 2 * (a ** -3 - (b ** -3 if h not in (i, j) else 0))
                return t * w[i] * w[j] * (both + (x[i] * p / d * (a ** -2 - (b ** -2 if i != h else 0))
                                                   if i == j else 0))
            return _entry(f, p)

        for i, j in product(w, w):
            M[i][j] += second(i, j) if j >= i else 0
            M[j][i] = M[i][j] if j >= i else M[j][i]
        mean = {i: first(i) for i in w}
        for s in w:  # words of stratum h hold s when s = h, else all but those without s
            for i in w:
                m[s][i] += mean[i] - (first(i, no=s) if s != h and i != s else 0)
    return M, m


def floors_at(d: int, r: list[arb]) -> list[arb]:
    """F_s = inf_beta L_s = 1 - 2 m_s' M^-1 m_s at a point r for every target s (L_s = 1/2 b'Mb
    - 2 b'm_s + 1; M >= (p/d) I, the words of length 1, so the solve is regular)."""
    return _floors(*moments_at(d, r))


def _floors(M: list[list[arb]], m: list[list[arb]]) -> list[arb]:
    out = []
    for s in range(len(M)):
        y = arb_mat(M).solve(arb_mat([[x] for x in m[s]]))
        out.append(1 - 2 * sum((m[s][i] * y[i, 0] for i in range(len(M))), arb(0)))
    return out


def agreement(cert: recheck.Certificate) -> list[str]:
    """The first Proposition 3 leaf whose stored [lo, hi] disagrees with the checker's max_s F_s
    - bound (lo at most its value at the centre and corners, hi at least its value at the
    centre); cones and the sharp leaves at alpha = 0 (a derivative's sign) are not compared."""
    kind, d = cert.method, len(cert.axes) + 1
    claim = KINDS[kind][0]
    if kind == "prop2-cone":
        return []
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        return _agreement(cert, kind, d, claim)
    finally:
        ctx.prec = old


def _agreement(cert: recheck.Certificate, kind: str, d: int, claim: str,
               corners: bool = True) -> list[str]:
    bound = (arb(1) / 2 - arb(d - 2) / (2 * (d - 1) * arb(d - 1).log()) if kind == "prop3-sharp"
             else arb(cert.constants["prop3.c2"].numerator) / cert.constants["prop3.c2"].denominator)
    seen: dict[tuple, arb] = {}  # max_s F_s at the points met so far (leaves share corners)

    def top(pt: tuple) -> arb:
        if pt not in seen:
            fs = floors_at(d, [arb(x) for x in pt])
            seen[pt] = arb(max((f.lower() for f in fs), key=float)).union(
                arb(max((f.upper() for f in fs), key=float)))
        return seen[pt]

    for index, leaf in enumerate(cert.leaves):
        lo, hi = leaf["margins"][claim]
        box = leaf["box"]
        if not math.isfinite(hi):
            continue
        sides = [(box[2 * k], box[2 * k + 1]) for k in range(d - 1)]
        points = [("centre", tuple((a + b) / 2 for a, b in sides))] + \
            [("corner", c) for c in product(*sides) if corners]
        for where, pt in points:
            value = top(pt) - bound
            if not (lo <= value.upper() and (where != "centre" or value.lower() <= hi)):
                return [f"leaf {index}, {claim}: the stored margin [{lo:.12g}, {hi:.12g}] is not "
                        f"consistent with the checker's value {float(value.mid()):.12g} +- "
                        f"{float(value.rad()):.2g} at the {where} {list(pt)}"]
    return []
