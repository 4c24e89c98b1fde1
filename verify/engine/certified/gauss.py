"""Rigorous Gauss-Legendre quadrature of VECTOR integrands on Arb balls (1-D and 2-D).

``acb.integral`` integrates one scalar function at a time; the general engine's integrands are
vectors (2d + d(d+1)/2 entries per head, d^2 per pair of heads) that share every expensive part
(the exponentials, the pgf derivatives), so calling it once per entry would repeat that work for
each entry.  This module runs Petras' scheme (as Arb does) on the whole vector at once:

* on a piece ``[a, b]`` (centre ``m``, half-width ``r``) the m-point Gauss-Legendre sum is formed
  with Arb's ball nodes and weights (``arb.legendre_p_root``), so the ball contains the exact rule;
* the rule's error is bounded from the integrand on the Bernstein ellipse ``E_rho`` (foci a, b):
  if f is analytic inside and ``|f| <= M`` there, then (proofs/certified-general.md)

      |int_a^b f - GL_m(f)| <= r (16/3) M rho^(-2m) / (1 - rho^(-2));

  ``M`` and analyticity come from ONE evaluation of f on the complex rectangle circumscribing
  the ellipse: a finite ball result means no division by a ball containing 0 happened, i.e. f
  is analytic there (the integrands use only +, -, *, /, integer powers and exp);
* pieces whose bound misses the tolerance are bisected.

In 2-D (tensor rule on a rectangle) the error is
``<= 2 r_u r_v [C(rho_u) M_1 + C(rho_v) M_2]`` with ``M_1`` the bound over (ellipse in u) x (real
v-interval) and ``M_2`` over (real u-interval) x (ellipse in v) (same note).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

from flint import acb, arb, ctx

B_MAX = 1.2  # semi-minor axis of the ellipses (< pi/2: inside the strip of analyticity)
COVERS = (2, 8, 32)  # boxes covering the upper half of the ellipse's boundary, tried in turn
MAX_DEPTH = 40
MAX_PIECES = 20_000  # pieces (or rectangles) visited per call before giving up (NaN balls)
RHO_MAX = 8.0


@lru_cache(maxsize=None)
def legendre_rule(m: int, prec: int) -> tuple:
    """(nodes, weights) of the m-point Gauss-Legendre rule on [-1, 1] as Arb balls."""
    old = ctx.prec
    ctx.prec = prec
    try:
        pairs = [arb.legendre_p_root(m, k, weight=True) for k in range(m)]
    finally:
        ctx.prec = old
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def rule_constant(rho: arb, m: int) -> arb:
    """(16/3) rho^(-2m) / (1 - rho^(-2)): the GL error per unit of M and of half-width."""
    inv2 = 1 / (rho * rho)
    return arb(16) / 3 * inv2**m / (1 - inv2)


def ellipse_rho(half: float, b_max: float = B_MAX, rho_max: float = RHO_MAX) -> arb:
    """rho of the ellipse with semi-minor axis ``b_max`` around a piece of half-width ``half``,
    at most ``rho_max`` (so that the ellipse, and the boxes covering it, shrink with the piece)."""
    k = arb(b_max) / arb(half)
    return min(k + (k * k + 1).sqrt(), arb(rho_max), key=float)


def boundary_boxes(mid: arb, half: arb, rho: arb, count: int) -> list:
    """``count`` complex boxes covering the upper half of the boundary of the Bernstein ellipse
    E_rho of [mid - half, mid + half] (arcs theta in [k pi/count, (k+1) pi/count])."""
    A = half * (rho + 1 / rho) / 2
    B = half * (rho - 1 / rho) / 2
    out = []
    for k in range(count):
        theta = (arb.pi() * k / count).union(arb.pi() * (k + 1) / count)
        out.append(acb(mid + A * theta.cos(), B * theta.sin()))
    return out


def _entries(values) -> list:
    """The balls of a list, or of an ``arb_mat``/``acb_mat`` (row-major)."""
    return values.entries() if hasattr(values, "entries") else values


def _bound(values: Sequence) -> arb | None:
    """max |v| over a vector (or matrix) of acb/arb balls, or None if one is not finite."""
    top = arb(0)
    for v in _entries(values):
        if not v.is_finite():
            return None
        top = max(top, arb(abs(v).upper()), key=float)
    return top


def boundary_bound(f: Callable, boxes: list) -> arb | None:
    """max |f| over the boxes (None if an evaluation is not finite).  By the maximum modulus
    principle it bounds |f| on the whole ellipse when f is analytic on a neighbourhood of it
    (the caller's integrands are, on |Im u| < pi/2); f(conj u) = conj f(u) covers the lower half."""
    top = arb(0)
    for box in boxes:
        b = _bound(f(box))
        if b is None:
            return None
        top = max(top, b, key=float)
    return top


def strip_rho(a: float, b: float) -> arb:
    """The ellipse of a piece [a, b] inside the strip |Im u| < pi/2 (:func:`ellipse_rho`)."""
    return ellipse_rho((b - a) / 2)


def gauss_1d(f: Callable, a: float, b: float, tol: float, m: int, prec: int,
             depth: int = 0, budget: list | None = None,
             rho_of: Callable[[float, float], arb] = strip_rho, max_depth: int = MAX_DEPTH) -> list:
    """Balls containing int_a^b f(u) du (f returns a list of arb/acb, the same length at every
    point; real arguments get arb, the error bound acb boxes).  ``f`` must be analytic and real
    on real arguments inside the ellipse ``rho_of(a, b)`` of every piece (by default the strip
    |Im u| < pi/2).  ``tol``: absolute goal per entry (a goal, not a claim: the balls contain
    the integrals whatever they are); pieces whose bound misses it are bisected, at most
    ``max_depth`` times and ``budget[0]`` pieces in all (then NaN balls: a box too wide to
    enclose is split by its caller)."""
    budget = [MAX_PIECES] if budget is None else budget
    budget[0] -= 1
    nodes, weights = legendre_rule(m, prec)
    mid, half = (arb(a) + arb(b)) / 2, (arb(b) - arb(a)) / 2
    rho = rho_of(a, b)
    const = half * rule_constant(rho, m)
    err = None
    for count in COVERS:
        top = boundary_bound(f, boundary_boxes(mid, half, rho, count))
        if top is not None and ((const * top).upper() <= tol or depth >= max_depth):
            err = const * top
            break
    if err is None:
        if depth >= max_depth or budget[0] <= 0:  # no bound: a ball that decides nothing
            return [arb("nan")] * len(_entries(f(mid)))
        c = (a + b) / 2
        left = gauss_1d(f, a, c, tol / 2, m, prec, depth + 1, budget, rho_of, max_depth)
        right = gauss_1d(f, c, b, tol / 2, m, prec, depth + 1, budget, rho_of, max_depth)
        return [x + y for x, y in zip(left, right)]
    total = None
    for x, w in zip(nodes, weights):
        vals = f(mid + half * x)
        total = [w * v for v in vals] if total is None else [t + w * v for t, v in zip(total, vals)]
    slack = arb(0, err.upper())
    return [half * _real(t) + slack for t in total]


def _real(x):
    return x.real if isinstance(x, acb) else x




COVERS_2D = ((3, 1), (8, 2))  # (arcs of the ellipse, real sub-intervals of the other side)
B_MAX_2D, RHO_MAX_2D = 0.8, 4.0  # smaller ellipses in 2-D: tighter boxes, fewer bisections
# (measured on a cross-head block at d = 4: 3.0 s against 10.3 s with the 1-D values)


def _real_parts(mid: arb, half: arb, count: int) -> list:
    """``count`` real balls covering [mid - half, mid + half]."""
    lo = mid - half
    step = 2 * half / count
    return [(lo + step * k).union(lo + step * (k + 1)) for k in range(count)]


def _side_bound(f: Callable, ellipse: list, reals: list, first: bool) -> arb | None:
    top = arb(0)
    for e in ellipse:
        for r in reals:
            b = _bound(f(e, r) if first else f(r, e))
            if b is None:
                return None
            top = max(top, b, key=float)
    return top


def gauss_2d(f: Callable, box: tuple, tol: float, m: int, prec: int, depth: int = 0,
             upper: Callable | None = None, budget: list | None = None) -> list:
    """Balls containing the integral of f(u, v) over ``box = (a, b, c, e)`` = [a, b] x [c, e]
    (tensor Gauss-Legendre).  Error (module docstring): ``2 r_u r_v [C(rho_u) M_1 + C(rho_v) M_2]``
    with ``M_1`` = max |f| over (boundary of the u-ellipse) x [c, e] and ``M_2`` over [a, b] x
    (boundary of the v-ellipse); f must be analytic in each variable on |Im| < pi/2 when the other
    is real.  Bisects the side whose error term dominates until the bound meets ``tol``.
    ``upper(box)``, when given, returns proven upper bounds of the (non-negative) integrals over
    the box, or None: a box where they all meet ``tol`` costs no quadrature."""
    a, b, c, e = box
    budget = [MAX_PIECES] if budget is None else budget
    budget[0] -= 1
    if upper is not None:
        ub = upper(box)
        if ub is not None and all(x.upper() <= tol for x in ub):
            return [arb(0).union(arb(x.upper())) for x in ub]
    nodes, weights = legendre_rule(m, prec)
    mu, hu = (arb(a) + arb(b)) / 2, (arb(b) - arb(a)) / 2
    mv, hv = (arb(c) + arb(e)) / 2, (arb(e) - arb(c)) / 2
    ru = ellipse_rho((b - a) / 2, B_MAX_2D, RHO_MAX_2D)
    rv = ellipse_rho((e - c) / 2, B_MAX_2D, RHO_MAX_2D)
    cu, cv = 2 * hu * hv * rule_constant(ru, m), 2 * hu * hv * rule_constant(rv, m)
    err, split_u = None, (b - a) >= (e - c)
    for arcs, parts in COVERS_2D:
        m1 = _side_bound(f, boundary_boxes(mu, hu, ru, arcs), _real_parts(mv, hv, parts), True)
        m2 = _side_bound(f, boundary_boxes(mv, hv, rv, arcs), _real_parts(mu, hu, parts), False)
        if m1 is None or m2 is None:
            continue
        e1, e2 = cu * m1, cv * m2
        split_u = float(e1) >= float(e2)
        if (e1 + e2).upper() <= tol or depth >= MAX_DEPTH:
            err = e1 + e2
            break
    if err is None:
        if depth >= MAX_DEPTH or budget[0] <= 0:  # no bound: a ball that decides nothing
            return [arb("nan")] * len(_entries(f(mu, mv)))
        if split_u:
            h = (a + b) / 2
            parts2 = [(a, h, c, e), (h, b, c, e)]
        else:
            h = (c + e) / 2
            parts2 = [(a, b, c, h), (a, b, h, e)]
        out = [gauss_2d(f, p, tol / 2, m, prec, depth + 1, upper, budget) for p in parts2]
        return [x + y for x, y in zip(*out)]
    total = None  # f may return a list or a matrix (summed in C: the fast path)
    for x, wx in zip(nodes, weights):
        u = mu + hu * x
        for y, wy in zip(nodes, weights):
            vals = f(u, mv + hv * y)
            if isinstance(vals, list):
                vals = [wx * wy * v for v in vals]
                total = vals if total is None else [t + v for t, v in zip(total, vals)]
            else:
                total = vals * (wx * wy) if total is None else total + vals * (wx * wy)
    slack = arb(0, err.upper())
    return [hu * hv * _real(t) + slack for t in _entries(total)]
