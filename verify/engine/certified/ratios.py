"""The model's moments over a box of successive ratios, stratified by the heaviest symbol.

Coordinates (proofs/prop3.md, "The compact parameter space").  Softmax is shift invariant and
the model is invariant under permuting the symbols, so an attention vector can be taken sorted,
``alpha_0 >= alpha_1 >= ... >= alpha_(d-1)``, ``alpha_0 = 0``; its *successive ratios*
``r_k = e^(alpha_k - alpha_(k-1))`` (k = 1..d-1) lie in (0, 1], and ``c_j = r_1 ... r_j`` is
symbol j's weight relative to the largest.  The closed cube [0, 1]^(d-1) adds the limits where
some gaps are infinite.

Strata.  A word's *heaviest symbol* h is the smallest index it contains.  On the words of
stratum h (symbols in {h, .., d-1}, C_h >= 1) divide every weight by c_h: ``w_j = r_(h+1) ...
r_j`` in [0, 1] (j >= h), ``w_h = 1``; gamma_i = C_i w_i / sum_j C_j w_j is a rational function of
r whose denominator is >= C_h >= 1, so it stays continuous on the closed cube, and in the
Laplace representation (proofs/model.md, section 4) ``x_j = e^(-t w_j)`` always has ``x_h = e^(-t)``:
every integrand decays like e^(-t) for every r in the cube.  With ``A = 1 - q z``
(z = sum_{j in stratum} x_j/d), ``A' = A + q x_h/d`` (the slice C_h = 0), for a target s > h
``A_s = A + q x_s/d``, ``A_s' = A' + q x_s/d`` (the slice C_s = 0), G'(z) = p/A^2,
G''(z) = 2pq/A^3 and the differences ``D_n(A, A') = A^-n - A'^-n = (q x_h/d) sum_i A^-(i+1)
A'^-(n-i)`` (sums of positive terms, no cancellation), the stratum's integrands (in t) are
(local indices, 0 = h):

    E[gamma_0 1{S}]       = int x_0 (p/d) A^-2 dt
    E[gamma_i 1{S}]       = int w_i x_i (p/d) D_2(A, A') dt                      (i >= 1)
    E[gamma_0 1{S, no s}] = int x_0 (p/d) A_s^-2 dt
    E[gamma_i 1{S, no s}] = int w_i x_i (p/d) D_2(A_s, A_s') dt                  (i != 0, s)
    E[gamma_0^2 1{S}]     = int t [x_0^2 (2pq/d^2) A^-3 + x_0 (p/d) A^-2] dt
    E[gamma_0 gamma_i 1{S}] = int t w_i x_0 x_i (2pq/d^2) A^-3 dt
    E[gamma_i gamma_j 1{S}] = int t w_i w_j [x_i x_j (2pq/d^2) D_3(A, A') + [i = j] x_i (p/d) D_2(A, A')] dt

(proofs/prop3.md derives them).  Then M = E[gamma gamma^T] is the sum of the strata's second
moments and ``m_s = E[gamma 1{y_s = +1}]`` the sum over h <= s of the stratum's mean minus (for
h < s) its part without s.

Quadrature (proofs/prop3.md, "Enclosures over a box"): [0, T_FIRST] in t by Gauss-Legendre on
an ellipse inside the half-plane Re t > -delta (where |q z| < 1: the integrands are analytic
there), [T_FIRST, T] in v = ln(t/T_FIRST) by :func:`verify.engine.certified.gauss.gauss_1d`
(strip |Im v| < pi/2), and [T, inf) by the proven envelope |f| <= K0 (1 + t) e^-t and its
derivatives' (:func:`envelope`, :func:`tails`).  Over a box the integrands run on second-order
jets (:class:`verify.engine.certified.jets.Jet`: gradient and Hessian over the whole box) and at
its centre on first-order ones; the Taylor forms of :func:`box_moments` combine them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from flint import arb, arb_mat

from ..context import ARB
from .balls import precision
from .gauss import B_MAX, RHO_MAX, gauss_1d
from .jets import Jet, index

T_FIRST = 0.5  # [0, T_FIRST] in t, then v = ln(t/T_FIRST) up to the cut
T_CUT = 40.0  # the tail [T_CUT, inf) is left to the proven bounds (values below 1e-15)
U_PIECES = 5  # pieces of [0, ln(T_CUT/T_FIRST)] in v (each 0.88 long)
MAX_DEPTH = 30  # bisections of the first piece [0, T_FIRST]
MAX_PIECES = 48  # pieces per integral (all of [0, T]) before giving up: the box is split
POINT_RULE, BOX_RULE = 20, 12  # Gauss-Legendre points per piece at a point / over a box
POINT_TOL, BOX_TOL = 2.0**-44, 2.0**-24  # goals per entry (goals, not claims)


# ------------------------------------------------------------------------------ the integrands


@dataclass(frozen=True)
class Stratum:
    """Words whose heaviest symbol is ``h``: ``n = d - h`` symbols, and the targets (local
    indices s >= 1) whose slice without s is wanted."""

    d: int
    h: int
    targets: tuple

    @property
    def n(self) -> int:
        return self.d - self.h

    @property
    def size(self) -> int:
        n = self.n
        return n + len(self.targets) * (n - 1) + n * (n + 1) // 2

    def neg_offset(self, k: int) -> int:
        """Where the k-th target's entries (E[gamma_i 1{S, no s}], i != s) start."""
        return self.n + k * (self.n - 1)

    def second_index(self, i: int, j: int) -> int:
        """Where E[gamma_i gamma_j 1{S}] (i <= j, local) sits."""
        n = self.n
        i, j = min(i, j), max(i, j)
        base = self.n + len(self.targets) * (n - 1)
        return base + i * n - i * (i - 1) // 2 + (j - i)


def _diff(e0, inv, inv2, order: int) -> list:
    """``D_order(A, A') = A^-order - A'^-order`` from e0 = A' - A and the inverse powers
    ``inv[k] = A^-k``, ``inv2[k] = A'^-k`` (a sum of positive terms)."""
    acc = inv[1] * inv2[order]
    for i in range(1, order):
        acc = acc + inv[i + 1] * inv2[order - i]
    return e0 * acc


def _powers(x, top: int) -> list:
    out = [None, x]
    for _ in range(top - 1):
        out.append(out[-1] * x)
    return out


def stratum_terms(st: Stratum, t, w: Sequence, consts: tuple) -> list:
    """The stratum's integrands (in t) at ``t``, every entry in :class:`Stratum`'s order.

    ``w``: the weights w_1..w_(n-1) (w_0 = 1 is implied), numbers of any type that supports
    + - * / exp expm1 (arb, acb, :class:`~verify.engine.certified.jets.Jet`, float);
    ``consts = (p, q, 1/d, a0)`` with ``a0 = 1 - q n/d``."""
    p, q, inv_d, a0 = consts
    n = st.n
    x0 = (-t).exp()
    x = [x0] + [(-(t * wj)).exp() for wj in w]
    om = (-t).expm1()
    for wj in w:
        om = om + (-(t * wj)).expm1()
    A = a0 - q * inv_d * om  # 1 - q z = a0 + q sum (1 - x_j)/d: positive terms on t >= 0
    e0 = q * inv_d * x0
    c1, c2 = p * inv_d, 2 * p * q * inv_d * inv_d
    iA = _powers(1 / A, 3)
    iB = _powers(1 / (A + e0), 3)
    D2, D3 = _diff(e0, iA, iB, 2), _diff(e0, iA, iB, 3)
    wx = [x0] + [wj * xj for wj, xj in zip(w, x[1:])]
    out = [x0 * c1 * iA[2]] + [v * c1 * D2 for v in wx[1:]]
    for s in st.targets:
        es = q * inv_d * x[s]
        iS = _powers(1 / (A + es), 2)
        iT = _powers(1 / (A + e0 + es), 2)
        D2s = _diff(e0, iS, iT, 2)
        out += [x0 * c1 * iS[2]] + [wx[i] * c1 * D2s for i in range(1, n) if i != s]
    for i in range(n):
        for j in range(i, n):
            if i == 0:
                val = wx[j] * x0 * c2 * iA[3] + (x0 * c1 * iA[2] if j == 0 else 0)
            else:
                val = wx[i] * wx[j] * c2 * D3 + (wx[i] * w[i - 1] * c1 * D2 if i == j else 0)
            out.append(t * val)
    return out


def constants(d: int, n: int) -> tuple:
    """(p, q, 1/d, a0 = 1 - q n/d) as exact balls."""
    p = 1 / arb(d - 1)
    q = arb(d - 2) / (d - 1)
    return p, q, 1 / arb(d), 1 - q * n / d


# ------------------------------------------------------------------------------- tail bounds


def envelope(d: int) -> tuple[arb, arb]:
    """(K0, P): on real t >= 0, for every stratum, r in the cube and entry f, |f| <= K0 (1 + t)
    e^-t, |df/dr_k| <= 8 P K0 (1 + t)^2 e^-t and |d^2 f/dr_k dr_l| <= 80 P^2 K0 (1 + t)^3 e^-t,
    P = 1/p = d - 1 (proofs/prop3.md, "Tail bounds": A, A', A_s, A_s' lie in [p, 1]; every
    entry is a sum of terms, each a product of at most 8 factors -- weights, x_j, inverses of
    the A's -- whose first and second derivatives are at most tau and 3 tau^2 times the factor's
    bound, tau = (1 + t) P)."""
    P = arb(d - 1)
    q = arb(d - 2) / (d - 1)
    dd = arb(d)
    k_a = P / dd  # x_0 p/(d A^2) <= P/d e^-t
    k_b = 2 * q * P**2 / dd**2  # x (p/d) D_2 <= 2 q P^2 e^-t / d^2
    k_c = 6 * q**2 * P**3 / dd**3  # x x (2pq/d^2) D_3 <= 6 q^2 P^3 e^-t / d^3
    return max(k_a, k_b, k_a + k_b, k_b + k_c, key=float), P


def tails(d: int, T: arb) -> tuple[arb, arb, arb]:
    """(B0, B1, B2): for every stratum, r in the cube and entry f, ``0 <= int_T^inf f dt <= B0``,
    ``|int_T^inf df/dr_k dt| <= B1`` and ``|int_T^inf d^2f/dr_k dr_l dt| <= B2``: the integrals
    of :func:`envelope`'s bounds, int_T^inf (1 + t)^n e^-t dt = e^-T sum_j n!/j! (1 + T)^j."""
    K0, P = envelope(d)

    def moment(n: int) -> arb:
        return (-T).exp() * sum((arb(math.factorial(n) // math.factorial(j)) * (1 + T) ** j
                                 for j in range(n + 1)), arb(0))

    B0, B1, B2 = K0 * moment(1), 8 * P * K0 * moment(2), 80 * P * P * K0 * moment(3)
    return arb(B0.upper()), arb(B1.upper()), arb(B2.upper())


# ------------------------------------------------------------------------------- quadrature


def halfplane_delta(d: int) -> float:
    """delta with |q z| < 1 on Re t > -delta (|x_j| <= e^delta, |z| <= e^delta): half of
    ln(1/q), so that 1 - q|z| >= 1 - sqrt(q) there."""
    return 0.5 * math.log((d - 1) / (d - 2))


def _first_rho(a: float, b: float, delta: float) -> float:
    """rho of the Bernstein ellipse of [a, b] whose leftmost point is -delta (semi-minor axis at
    most B_MAX): inside Re t > -delta."""
    c, h = (a + b) / 2, (b - a) / 2
    big = c + delta
    small = min(math.sqrt(big * big - h * h), B_MAX)
    big = math.sqrt(h * h + small * small)
    return min((big + small) / h, RHO_MAX)


def integrate(f: Callable, d: int, tol: float, m: int, bits: int) -> tuple[list, arb]:
    """(balls containing int_0^T f(t) dt, a lower bound of T) for f returning a list:
    [0, T_FIRST] in t, then [T_FIRST, T] in v = ln(t/T_FIRST) up to the float v_hi, so that the
    pieces meet exactly at t = T_FIRST (v = 0); the tail starts at T = T_FIRST e^v_hi."""
    budget = [MAX_PIECES]
    delta = halfplane_delta(d)
    # f is analytic on Re t > -delta: the first piece's ellipses stay inside that half-plane
    first = gauss_1d(f, 0.0, T_FIRST, tol / 2, m, bits, budget=budget,
                     rho_of=lambda a, b: arb(_first_rho(a, b, delta)), max_depth=MAX_DEPTH)
    v_hi = math.log(T_CUT / T_FIRST)
    start = arb(T_FIRST)

    def g(v):
        t = start * v.exp()
        return [t * y for y in f(t)]

    total = first
    ends = [v_hi * k / U_PIECES for k in range(U_PIECES + 1)]
    for a, b in zip(ends, ends[1:]):
        vals = gauss_1d(g, a, b, tol / (2 * U_PIECES), m, bits, budget=budget)
        total = [x + y for x, y in zip(total, vals)]
    return total, arb((start * arb(v_hi).exp()).lower())


# ---------------------------------------------------------------------------- moments


@dataclass(frozen=True)
class RatioMoments:
    """``second`` = M = E[gamma gamma^T] (an ``arb_mat``) and ``positive[s]`` = m_s =
    E[gamma 1{y_s = +1}] (d balls) for each target s: at a point, over a box, or (as a
    derivative) their partial derivatives in some r_k."""

    d: int
    second: arb_mat
    positive: dict

    def entries(self) -> list:
        """Every ball, M row by row then each m_s (the order :meth:`like` reads back)."""
        d = self.d
        out = [self.second[i, j] for i in range(d) for j in range(d)]
        for s in sorted(self.positive):
            out += list(self.positive[s])
        return out

    def like(self, values: Sequence) -> "RatioMoments":
        """A RatioMoments of the same shape holding ``values`` (in :meth:`entries`' order)."""
        d = self.d
        M = arb_mat(d, d)
        for i in range(d):
            for j in range(d):
                M[i, j] = values[i * d + j]
        k, positive = d * d, {}
        for s in sorted(self.positive):
            positive[s] = tuple(values[k:k + d])
            k += d
        return RatioMoments(d, M, positive)


def strata(d: int, targets: Sequence[int]) -> list[Stratum]:
    """The d strata, each with the targets (local indices) it has a slice without s for."""
    return [Stratum(d, h, tuple(s - h for s in sorted(set(targets)) if s > h)) for h in range(d)]


def assemble(d: int, targets: Sequence[int], values: Sequence[Sequence]) -> RatioMoments:
    """M and the m_s from every stratum's entries (``values[h]`` in :class:`Stratum`'s order, or
    None for a stratum that contributes 0); linear, so it also assembles derivatives."""
    M = arb_mat(d, d)
    positive = {s: [arb(0)] * d for s in sorted(set(targets))}
    for st, vals in zip(strata(d, targets), values):
        if vals is None:
            continue
        n, h = st.n, st.h
        for i in range(n):
            for j in range(i, n):
                M[h + i, h + j] += vals[st.second_index(i, j)]
                if i != j:
                    M[h + j, h + i] += vals[st.second_index(i, j)]
        for s, m in positive.items():
            if s < h:
                continue
            for i in range(n):  # the stratum's words all contain s when s = h
                m[h + i] = m[h + i] + vals[i]
            if s > h:  # minus its words without s
                k = st.targets.index(s - h)
                others = [i for i in range(n) if i != s - h]
                for pos, i in enumerate(others):
                    m[h + i] = m[h + i] - vals[st.neg_offset(k) + pos]
    return RatioMoments(d, M, {s: tuple(m) for s, m in positive.items()})


def stratum_weights(h: int, n: int, r: Sequence) -> list:
    """w_1..w_(n-1) of stratum h: w_j = r_(h+1) ... r_(h+j) (``r[k-1]`` = r_k)."""
    out = []
    for j in range(1, n):
        out.append(r[h] if j == 1 else out[-1] * r[h + j - 1])
    return out


def _check_box(d: int, box: Sequence[tuple[float, float]]) -> None:
    if d < 3 or len(box) != d - 1 or not all(0.0 <= lo <= hi <= 1.0 for lo, hi in box):
        raise ValueError(f"need d >= 3 and d - 1 intervals inside [0, 1], got d = {d}, {box!r}")


def _run(st: Stratum, w: Sequence, tol: float, m: int, bits: int) -> tuple[list, arb]:
    """Integrate the stratum's entries with weights ``w``; each entry flattened to its value,
    gradient and Hessian parts (whatever the number type carries)."""
    consts = constants(st.d, st.n)

    def f(t):
        out = []
        for v in stratum_terms(st, t, w, consts):
            if isinstance(v, Jet):
                out += [v.v, *v.g, *v.H]
            else:
                out.append(v)
        return out

    return integrate(f, st.d, tol, m, bits)


def point_moments(d: int, r: Sequence, targets: Sequence[int], bits: int = 64) -> RatioMoments:
    """Enclosures of M and the m_s at the point r of the closed cube (floats, read exactly, or
    balls inside [0, 1]: then for every point of the ball)."""
    _check_box(d, [(float(x), float(x)) for x in r])
    with precision(bits):
        rr = [x if isinstance(x, arb) else arb(float(x)) for x in r]
        values = []
        for st in strata(d, targets):
            vals, T = _run(st, stratum_weights(st.h, st.n, rr), POINT_TOL, POINT_RULE, bits)
            B0 = tails(d, T)[0]
            values.append([v + arb(0).union(B0) for v in vals])
        return assemble(d, targets, values)


@dataclass(frozen=True)
class BoxMoments:
    """The moments over a box X of r with centre c: ``at_centre`` and ``centre_gradient[k]``
    (d/dr_(k+1) at c), ``over_box`` and ``gradient[k]`` (enclosures over X by the Taylor forms,
    intersected with the plain jet enclosures), ``hessian[(k, l)]`` (k <= l, over X); ``dx[k]``
    is the ball X_(k+1) - c_(k+1)."""

    d: int
    box: tuple
    centre: tuple
    dx: tuple
    at_centre: RatioMoments
    centre_gradient: tuple
    over_box: RatioMoments
    gradient: tuple
    hessian: dict


def quadratic_term(H: dict, dx: Sequence[arb]) -> dict:
    """The balls 1/2 dx_k dx_l H_kl summed as the Taylor remainder needs them: per (k, l), the
    factor (1/2 dx_k^2 = [0, h_k^2/2] on the diagonal, dx_k dx_l off it)."""
    out = {}
    for (k, l) in H:
        if k == l:
            h = abs(dx[k]).upper()
            out[(k, l)] = arb(0).union(h * h / 2)
        else:
            out[(k, l)] = dx[k] * dx[l]
    return out


def _stratum_parts(st: Stratum, vals: list, nv: int, order: int, tails_: tuple) -> tuple:
    """(values, gradients[l], hessians[(l1, l2)]) of one stratum from the flat integrals, each
    with its tail ball."""
    B0, B1, B2 = tails_
    width = 1 + nv + (nv * (nv + 1) // 2 if order == 2 else 0)
    value = [vals[e * width] + arb(0).union(B0) for e in range(st.size)]
    grads = [[vals[e * width + 1 + l] + arb(-B1).union(B1) for e in range(st.size)]
             for l in range(nv)]
    hess = {}
    if order == 2:
        for l1 in range(nv):
            for l2 in range(l1, nv):
                pos = 1 + nv + index(l1, l2, nv)
                hess[(l1, l2)] = [vals[e * width + pos] + arb(-B2).union(B2) for e in range(st.size)]
    return value, grads, hess


def _pass(d: int, targets: Sequence[int], balls: Sequence[arb], order: int, tol: float,
          m: int, bits: int) -> tuple:
    """(values, gradients[k], hessians[(k, l)]) assembled over the strata: weights as jets of
    order 1 or 2 in the global variables r_1..r_(d-1)."""
    sts = strata(d, targets)
    per = []
    for st in sts:
        nv = st.n - 1
        rho = [Jet.variable(balls[st.h + l], l, nv, order) for l in range(nv)]
        r = [None] * st.h + rho
        vals, T = _run(st, stratum_weights(st.h, st.n, r), tol, m, bits)
        per.append(_stratum_parts(st, vals, nv, order, tails(d, T)))
    values = assemble(d, targets, [p[0] for p in per])
    grads = tuple(assemble(d, targets, [p[1][k - st.h] if st.h <= k else None
                                        for st, p in zip(sts, per)]) for k in range(d - 1))
    hess = {}
    if order == 2:
        for k in range(d - 1):
            for l in range(k, d - 1):
                hess[(k, l)] = assemble(d, targets, [p[2][(k - st.h, l - st.h)] if st.h <= k else None
                                                     for st, p in zip(sts, per)])
    return values, grads, hess


def box_moments(d: int, box: Sequence[tuple[float, float]], targets: Sequence[int],
                bits: int = 64) -> BoxMoments:
    """The moments over the closed box ``prod_k [lo_k, hi_k]`` of the cube (floats, exact):
    a dual pass at the centre (values and gradients) and a jet pass over the box (plain
    enclosures and the Hessians), combined by the Taylor forms

        grad(X) = grad(c) + H(X) dx,   m(X) = m(c) + grad(c) dx + 1/2 dx' H(X) dx

    (each intersected with the plain enclosure and, for m, with m(c) + grad(X) dx)."""
    _check_box(d, box)
    centre = tuple((lo + hi) / 2 for lo, hi in box)
    with precision(bits):
        dx = tuple((arb(lo) - arb(c)).union(arb(hi) - arb(c)) for (lo, hi), c in zip(box, centre))
        at_c, grad_c, _ = _pass(d, targets, [arb(c) for c in centre], 1, POINT_TOL, POINT_RULE, bits)
        balls = [arb(lo).union(arb(hi)) for lo, hi in box]
        plain, grad_p, hess = _pass(d, targets, balls, 2, BOX_TOL, BOX_RULE, bits)
        quad = quadratic_term(hess, dx)
        gradient = []
        for k in range(d - 1):
            acc = grad_c[k].entries()
            for (a, b), H in hess.items():
                if k in (a, b):
                    other = b if a == k else a
                    acc = [x + h * dx[other] for x, h in zip(acc, H.entries())]
            meet = [ARB.meet(x, y) for x, y in zip(acc, grad_p[k].entries())]
            gradient.append(grad_c[k].like(meet))
        second = at_c.entries()
        first = at_c.entries()
        for k in range(d - 1):
            second = [x + g * dx[k] for x, g in zip(second, grad_c[k].entries())]
            first = [x + g * dx[k] for x, g in zip(first, gradient[k].entries())]
        for key, H in hess.items():
            second = [x + h * quad[key] for x, h in zip(second, H.entries())]
        over = [ARB.meet(ARB.meet(a, b), c) for a, b, c in zip(second, first, plain.entries())]
        return BoxMoments(d, tuple(box), centre, dx, at_c, grad_c, at_c.like(over),
                          tuple(gradient), hess)
