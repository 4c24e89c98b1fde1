"""The cube and cone certificates of Propositions 2 and 3 (prop3-cube-dD, prop3-sharp-dD,
prop2-cone-dD; proofs/checker.md, section 15): read and bound to the registered claim (written
from the kind, the d of the axes and the constants, never the file's text), and Proposition 3's
stored margins compared with the checker's own values at points (the stratified moments, the
floors, the cones' dual bound).  :func:`check` judges every leaf over its box (the centred form
of ``cube_box``).
"""
from __future__ import annotations

import math
import re
import time
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Mapping

from flint import acb, arb, arb_mat, ctx

from . import cube_box, journal, recheck
from .tiling import tiling_problems

CUBE = re.compile(r"(prop3-cube|prop3-sharp|prop2-cone)-d([345])")
MAX_SPLIT = 8  # further halvings of a cube leaf before the checker gives up on it
CORNER = 2.0 ** -10  # prop3-sharp: the widest piece at alpha = 0 shown by signs (section 15)
FINE = (2.0 ** -9, 2.0 ** -13)  # the cells in t in the leaf at alpha = 0: its pieces, the signs
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


def check(cert: recheck.Certificate, corners: bool = True, workers: int = 1,
          kept: tuple[Path, dict] | None = None) -> recheck.Verdict:
    """The tiling, then every leaf judged over its box by :func:`judge_leaf` (split further where
    it is too wide; on ``workers`` processes), then the stored enclosures against the checker's
    values at points (section 15).  ``kept``: a journal's path and the leaves it holds
    (:func:`journal.read`), taken as judged; each leaf accepted now is appended to it."""
    began = time.perf_counter()
    verdict = recheck.Verdict(len(cert.leaves))
    verdict.problems = tiling_problems(tuple(Fraction(x) for x in cert.root),
                                       [tuple(map(Fraction, leaf["box"])) for leaf in cert.leaves])
    if not cert.leaves and not verdict.problems:
        verdict.problems.append("no leaves")
    kind, d = cert.method, len(cert.axes) + 1 - (cert.method == "prop2-cone")
    if not all(0 <= x <= 1 for x in cert.root[2 * (kind == "prop2-cone"):]) \
            or not all(0 <= x <= d for x in cert.root[:2 * (kind == "prop2-cone")]):  # --any-box
        verdict.problems.append("the root leaves the cube [0, 1]^(d-1) of successive ratios "
                                "(or the targets [0, d])")
    key = KINDS[kind][1]
    done = kept[1] if kept and not verdict.problems else {}
    for i in sorted(done):  # the journal skips the judging only: each record is read again
        done[i].problem = stored(i, cert.leaves[i], kind, d)
        if verdict.take(done[i]):
            break
    verdict.from_journal, verdict.journal = len(done), str(kept[0]) if kept else ""
    items = [(i, leaf, kind, d, cert.constants[key] if key else None)
             for i, leaf in enumerate(cert.leaves if not verdict.problems else []) if i not in done]
    old, ctx.prec = ctx.prec, recheck.BITS
    pool = ProcessPoolExecutor(workers) if workers > 1 and len(items) > 1 else None
    try:
        for found in pool.map(_judge_item, items) if pool else map(_judge_item, items):
            if verdict.take(found):
                break
            if kept:
                journal.write(kept[0], found)
        if not verdict.problems:
            verdict.problems = _agreement(cert, kind, d, KINDS[kind][0], corners)
    finally:
        ctx.prec = old
        if pool:
            pool.shutdown(wait=True, cancel_futures=True)
    verdict.seconds = time.perf_counter() - began
    return verdict


def _judge_item(item: tuple) -> recheck.LeafVerdict:
    """:func:`judge_leaf` on (index, leaf, kind, d, the constant as a Fraction or None: F(0)),
    at the checker's precision (set here: a pool's process does not inherit the parent's)."""
    index, leaf, kind, d, c = item
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        return judge_leaf(index, leaf, kind, d, _bound(d, c))
    finally:
        ctx.prec = old


def _bound(d: int, c: Fraction | None) -> arb:
    """The constant as a ball; None: F(0) = 1/2 - (d-2)/(2(d-1) ln(d-1)) (prop3-sharp)."""
    if c is None:
        return arb(1) / 2 - arb(d - 2) / (2 * (d - 1) * arb(d - 1).log())
    return arb(c.numerator) / c.denominator


def _where(sides: list[tuple[float, float]]) -> str:
    return " x ".join(f"r{k + 2} [{a:.6g}, {b:.6g}]" for k, (a, b) in enumerate(sides))


def _parts(leaf: dict, kind: str, d: int) -> tuple[tuple, list[tuple[float, float]], bool]:
    """(the target's side ((0, 1) but for a cone), the ratios' sides, whether alpha = 0 is the
    leaf's corner (prop3-sharp))."""
    cone = kind == "prop2-cone"
    r = leaf["box"][2 * cone:]
    box = [(r[2 * k], r[2 * k + 1]) for k in range(d - 1)]
    return (tuple(leaf["box"][:2]) if cone else (0.0, 1.0), box,
            kind == "prop3-sharp" and all(b == 1.0 for a, b in box))


def stored(index: int, leaf: dict, kind: str, d: int) -> str | None:
    """What is wrong with a leaf's record (judged, or taken from a journal): not certified, not
    a finite enclosure above 0 (hi = inf only at alpha = 0), or not one target position."""
    lo, hi = leaf["margins"][KINDS[kind][0]]
    (s_lo, s_hi), box, at_zero = _parts(leaf, kind, d)
    if leaf["status"] != "certified" or not 0 < lo <= hi or not math.isfinite(lo) \
            or (hi == math.inf) != at_zero or s_hi - s_lo != 1 or s_lo % 1 or not 0 <= s_lo < d:
        return (f"leaf {index} ({_where(box)}) is recorded {leaf['status']!r} with the stored "
                f"enclosure [{lo:.12g}, {hi:.12g}]: not certified, not a finite enclosure above 0 "
                f"(hi = inf only at alpha = 0), or not one target position")
    return None


def judge_leaf(index: int, leaf: dict, kind: str, d: int, bound: arb) -> recheck.LeafVerdict:
    """One leaf: status and stored enclosure, then (the claim's quantity) - bound > 0 over its
    box, each piece halved along its widest side up to MAX_SPLIT times (section 15).  prop3:
    max_s F_s by ``cube_box.floors_over``, and a piece whose centre has max_s F_s below the bound
    disproves the claim there; prop3-sharp's leaf at alpha = 0 (r = (1, .., 1), where max_s F_s
    = F(0)) is halved until its piece at the corner is CORNER wide, and there some target's F_s
    must decrease in every r_k (``cube_box.descends``, cells of FINE) from the floor at the
    corner, whose value is F(0) (prop3.uniform_symbolic; here its ball must hold F(0)); its
    other pieces as above, with cells of FINE[0].  A piece its gradient's midpoints would hold
    is judged again with the gradient on cells 4 times finer before it is halved.  prop2-cone
    (target s at position s of the sorted logits, the s-side [s, s + 1]): the dual bound of min
    over the cone {beta_s <= beta_j} of L_s with the multipliers :func:`dual` chooses at the
    piece's centre, and a point of the cone with L_s below c1 there disproves the claim."""
    out = recheck.LeafVerdict(index, stored(index, leaf, kind, d))
    if out.problem:
        return out
    claim, cone = KINDS[kind][0], kind == "prop2-cone"
    (s_lo, _), box, at_zero = _parts(leaf, kind, d)
    first = FINE[0] if at_zero else cube_box.FIRST
    todo = [(box, 0, None)]  # a piece, its depth, the Hessians over the piece it was cut from
    while todo:
        sides, depth, above = todo.pop()
        out.boxes += 1
        out.depth = max(out.depth, depth)
        centre = [arb((a + b) / 2) for a, b in sides]
        M, m = moments_at(d, centre)
        corner = at_zero and all(b == 1.0 for a, b in sides)
        if corner and max(b - a for a, b in sides) <= CORNER:  # max_s F_s >= F_s >= F_s(1..1)
            if not (cube_box.descends(d, sides, M, m, FINE[1])
                    and all(f.is_finite() and f.rad() < 1e-12 and f.overlaps(bound)
                            for f in floors_at(d, [arb(1)] * (d - 1)))):
                out.problem = (f"leaf {index} ({_where(box)}), {claim}: no target's floor is "
                               f"shown to decrease in every r_k on {_where(sides)} to F(0)")
                return out
            continue
        if cone:
            shift, beta = dual(M, m[int(s_lo)], int(s_lo))
            here = _loss(M, m[int(s_lo)], beta).upper() - bound
        else:
            here = max((f.upper() for f in _floors(M, m)), key=float) - bound
        if here < 0:
            out.problem = (f"leaf {index} ({_where(box)}), {claim}: FALSE at the centre of "
                           f"{_where(sides)} (the claim's quantity minus its bound is "
                           f"{recheck.ball(here)} there)")
            return out
        low, own, only = arb(-math.inf), above, {int(s_lo): shift} if cone else None
        grad = None if corner else cube_box.derivatives(d, centre, first)  # at the point c
        for hess in [] if corner else [above, None] if above else [None]:  # its own last
            own = hess or cube_box.hessians(d, cube_box.centred(sides)[0])
            low = _low(d, sides, M, m, only, grad, own) - bound
            if low > 0:
                break
        if grad and not low > 0 and _low(d, sides, M, m, only, _midpoints(grad), own) > bound:
            # the gradient's width (its cells in t) is what stops the piece: cells 4 times finer
            low = _low(d, sides, M, m, only, cube_box.derivatives(d, centre, first / 4), own) - bound
        if low > 0:
            out.low = min(out.low, float(low))
            continue
        if depth == MAX_SPLIT + at_zero * 10 * (d - 1):
            out.problem = (f"leaf {index} ({_where(box)}), {claim}: not shown > 0 on "
                           f"{_where(sides)} after {depth} further splits (the checker's lower "
                           f"bound there is {recheck.ball(low)})")
            return out
        todo += [(half, depth + 1, own) for half in _halves(sides)]
    return out


def _midpoints(grad: tuple) -> tuple:
    """The gradient's balls shrunk to their midpoints (does their width stop a piece?)."""
    return tuple([[[arb(x.mid()) for x in row] for row in A] for A in D] for D in grad)


def _low(d: int, sides: list, M: list, m: list, only: dict | None, grad: tuple, hess: tuple) -> arb:
    """The lower end of max_s of :func:`cube_box.floors_over`'s bounds."""
    return max((f.lower() for f in cube_box.floors_over(d, sides, M, m, only, grad, hess)), key=float)


def dual(M: list[list[arb]], ms: list[arb], s: int) -> tuple[list[arb], list[float]]:
    """(v, beta) at a point, for min over the cone {beta_s <= beta_j} of L_s = 1/2 b'Mb - 2 b'm_s
    + 1 (section 15).  For multipliers lambda_j >= 0, L_s >= L_s + sum_j lambda_j (b_s - b_j) on
    the cone, whose minimum over all b is the floor with m_s + v, v_s = -sum lambda/2, v_j =
    lambda_j/2 (weak duality: any lambda >= 0 gives a lower bound).  lambda: the best of the
    candidates of every set S of active constraints (G lambda_S = 2 (u_s - u_i), u = M^-1 m_s,
    G_ij = (e_i - e_s)' M^-1 (e_j - e_s)), in floats; beta: 2 M^-1 (m_s + v), moved into the
    cone (beta_j >= beta_s), a point where L_s is an upper bound of the minimum."""
    d = len(M)
    inv = arb_mat(M).inv()
    N = [[float(inv[i, j].mid()) for j in range(d)] for i in range(d)]
    u = [sum(N[i][j] * float(ms[j].mid()) for j in range(d)) for i in range(d)]
    others = [j for j in range(d) if j != s]
    best, lam = -math.inf, [0.0] * d
    for k in range(2 ** (d - 1)):
        S = [j for n, j in enumerate(others) if k >> n & 1]
        G = [[N[i][j] - N[i][s] - N[s][j] + N[s][s] for j in S] for i in S]
        y = arb_mat(G).solve(arb_mat([[2 * (u[s] - u[i])] for i in S])) if S else None
        x = [0.0] * d
        for n, j in enumerate(S):
            x[j] = float(y[n, 0].mid())
        v = [x[i] / 2 - (sum(x) / 2 if i == s else 0) for i in range(d)]
        value = -sum((float(ms[i].mid()) + v[i]) * N[i][j] * (float(ms[j].mid()) + v[j])
                     for i in range(d) for j in range(d))
        if min(x) >= 0 and value > best:
            best, lam = value, x
    v = [arb(x) / 2 for x in lam]  # lam[s] = 0; v_s = -sum(lam)/2 in ball arithmetic, exactly held
    v[s] = -sum((arb(x) for x in lam), arb(0)) / 2
    beta = [2 * sum(N[i][j] * (float(ms[j].mid()) + float(v[j].mid())) for j in range(d))
            for i in range(d)]
    return v, [max(b, beta[s]) if i != s else b for i, b in enumerate(beta)]


def _loss(M: list[list[arb]], ms: list[arb], beta: list[float]) -> arb:
    b = [arb(x) for x in beta]
    return cube_box.quadratic(M, ms, b) + 1


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
    return [_floor(M, ms) for ms in m]


def _floor(M: list[list[arb]], ms: list[arb]) -> arb:
    """min over beta of 1/2 b'Mb - 2 b'ms + 1 = 1 - 2 ms' M^-1 ms."""
    y = arb_mat(M).solve(arb_mat([[x] for x in ms]))
    return 1 - 2 * sum((ms[i] * y[i, 0] for i in range(len(M))), arb(0))


def agreement(cert: recheck.Certificate) -> list[str]:
    """The first leaf whose stored [lo, hi] disagrees with the checker's values of the claim's
    quantity minus its bound at points: lo at most its upper end at the centre and the corners,
    hi at least its lower end at the centre (prop3: max_s F_s; prop2-cone: between the dual bound
    and L_s at :func:`dual`'s point of the cone); the sharp leaf at alpha = 0 (hi = inf, a
    derivative's sign) is not compared."""
    kind = cert.method
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        return _agreement(cert, kind, len(cert.axes) + 1 - (kind == "prop2-cone"), KINDS[kind][0])
    finally:
        ctx.prec = old


def _agreement(cert: recheck.Certificate, kind: str, d: int, claim: str,
               corners: bool = True) -> list[str]:
    key = KINDS[kind][1]
    bound = _bound(d, cert.constants[key] if key else None)
    seen: dict[tuple, arb] = {}  # the values at the points met so far (leaves share corners)

    def value(pt: tuple, s: int | None) -> arb:
        if (pt, s) not in seen:
            M, m = moments_at(d, [arb(x) for x in pt])
            if s is None:
                fs = _floors(M, m)
                ends = max((f.lower() for f in fs), key=float), max((f.upper() for f in fs), key=float)
            else:
                v, beta = dual(M, m[s], s)
                ends = _floor(M, [a + b for a, b in zip(m[s], v)]).lower(), _loss(M, m[s], beta).upper()
            seen[pt, s] = arb(ends[0]).union(arb(ends[1]))
        return seen[pt, s]

    for index, leaf in enumerate(cert.leaves):
        lo, hi = leaf["margins"][claim]
        s, box = (int(leaf["box"][0]), leaf["box"][2:]) if kind == "prop2-cone" else (None, leaf["box"])
        if kind == "prop3-sharp" and all(b == 1.0 for b in box[1::2]):
            continue  # the leaf at alpha = 0: its stored lo is a derivative's sign
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return [f"leaf {index}, {claim}: the stored margin [{lo}, {hi}] is not finite"]
        sides = [(box[2 * k], box[2 * k + 1]) for k in range(d - 1)]
        points = [("centre", tuple((a + b) / 2 for a, b in sides))] + \
            [("corner", c) for c in product(*sides) if corners]
        for where, pt in points:
            here = value(pt, s) - bound
            if not (lo <= here.upper() and (where != "centre" or here.lower() <= hi)):
                return [f"leaf {index}, {claim}: the stored margin [{lo:.12g}, {hi:.12g}] is not "
                        f"consistent with the checker's value {float(here.mid()):.12g} +- "
                        f"{float(here.rad()):.2g} at the {where} {list(pt)}"]
    return []
