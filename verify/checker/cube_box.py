"""max_s inf_beta L_s over a box of successive ratios (proofs/checker.md, section 15): a centred
form of second order.  The moments at the box's centre come from ``cube.moments_at``; their
gradient in r at the centre and their Hessian over the whole box from interval Riemann sums in
t of the stratified integrands of section 15, differentiated in forward mode (:class:`Dual`,
:class:`Jet`), plus tail bounds; inf_beta L_s is bounded below at a fixed beta* without
inverting an interval matrix.
"""
from __future__ import annotations

import math
from itertools import chain, repeat
from operator import add, mul, neg, sub, truediv
from typing import Iterable

from flint import arb, arb_mat

CUT = 32  # [0, CUT] summed in cells; [CUT, inf) bounded by the word law (section 15)
FIRST = 2.0 ** -7  # the width of the first cell in t (first derivatives)
SECOND = 2.0 ** -5  # the same for the Hessians (their term is second order in the box's width)


def _map(f, a, b) -> Cells:
    """f cell by cell, a or b :class:`Cells` (the other a ball or an int), operands in order."""
    if isinstance(a, Cells):
        return Cells(list(map(f, a.x, b.x if isinstance(b, Cells) else repeat(b))))
    return Cells(list(map(f, repeat(a), b.x)))


class Cells:
    """One arb ball per cell of t (:func:`_cells`): each operation is the ball operation every
    cell's own ball would get, with its operands in the same order, so the integrands of all
    cells are formed in one pass with the results of cell-by-cell evaluation, bit for bit.
    ``c > 0`` holds when it holds in every cell (:meth:`Dual.inv`: one cell's A reaching 0
    makes every cell not finite, and the sum was not finite already)."""
    __slots__ = ("x",)

    def __init__(self, x: list[arb]):
        self.x = x

    __add__ = lambda s, o: _map(add, s, o)
    __sub__ = lambda s, o: _map(sub, s, o)
    __mul__ = lambda s, o: _map(mul, s, o)
    __rmul__ = lambda s, o: _map(mul, o, s)
    __rtruediv__ = lambda s, o: _map(truediv, o, s)
    __neg__ = lambda s: Cells(list(map(neg, s.x)))
    __pow__ = lambda s, n: Cells([a ** n for a in s.x])
    __gt__ = lambda s, o: all(a > o for a in s.x)  # in every cell
    lower = lambda s: Cells([a.lower() for a in s.x])
    upper = lambda s: Cells([a.upper() for a in s.x])
    exp = lambda s: Cells([a.exp() for a in s.x])
    union = lambda s, o: _map(arb.union, s, o)


class Dual:
    """A value and its gradient in (r_2 .. r_d), each an arb ball (forward mode)."""
    __slots__ = ("v", "g")

    def __init__(self, v: arb, g: list[arb]):
        self.v, self.g = v, g

    def __add__(self, o: Dual | arb | int) -> Dual:
        if isinstance(o, Dual):
            return Dual(self.v + o.v, [a + b for a, b in zip(self.g, o.g)])
        return Dual(self.v + o, self.g)

    __radd__ = __add__

    def __neg__(self) -> Dual:
        return Dual(-self.v, [-a for a in self.g])

    def __rsub__(self, o: arb | int) -> Dual:
        return (-self) + o

    def __mul__(self, o: Dual | arb | int) -> Dual:
        if isinstance(o, Dual):
            return Dual(self.v * o.v, [a * o.v + self.v * b for a, b in zip(self.g, o.g)])
        return Dual(self.v * o, [a * o for a in self.g])

    __rmul__ = __mul__

    def inv(self, n: int) -> Dual:
        """self^-n for self > 0 (here A >= 1 - q), from the ends (Arb's power of a wide ball
        can be NaN, section 9); not finite when the enclosure reaches 0."""
        lo, hi = self.v.lower(), self.v.upper()
        if not lo > 0:
            nan = lo * arb("nan")
            return Dual(nan, [nan] * len(self.g))
        y = (1 / hi ** n).union(1 / lo ** n)
        dy = -(n / hi ** (n + 1)).union(n / lo ** (n + 1))
        return Dual(y, [dy * a for a in self.g])


class Jet(Dual):
    """A value, its gradient and its Hessian in (r_2 .. r_d) (``H[k][l]``, l >= k only), each an
    arb ball: the second-order forward mode of :class:`Dual`, for the centred form of second
    order (section 15, step 3)."""
    __slots__ = ("H",)

    def __init__(self, v: arb, g: list[arb], H: list[list[arb]]):
        super().__init__(v, g)
        self.H = H

    def __add__(self, o: Jet | arb | int) -> Jet:
        if isinstance(o, Jet):
            return Jet(self.v + o.v, [a + b for a, b in zip(self.g, o.g)],
                       [[a + b for a, b in zip(r, s)] for r, s in zip(self.H, o.H)])
        return Jet(self.v + o, self.g, self.H)

    __radd__ = __add__

    def __neg__(self) -> Jet:
        return Jet(-self.v, [-a for a in self.g], [[-a for a in r] for r in self.H])

    def __mul__(self, o: Jet | arb | int) -> Jet:
        if isinstance(o, Jet):  # (uv)_kl = u_kl v + u v_kl + u_k v_l + u_l v_k
            u, v = self.g, o.g
            return Jet(self.v * o.v, [a * o.v + self.v * b for a, b in zip(u, v)],
                       [[a * o.v + self.v * b + u[k] * v[l] + u[l] * v[k]
                         for l, a, b in zip(range(k, len(u)), r, s)]
                        for k, (r, s) in enumerate(zip(self.H, o.H))])
        return Jet(self.v * o, [a * o for a in self.g], [[a * o for a in r] for r in self.H])

    __rmul__ = __mul__

    def inv(self, n: int) -> Jet:
        """self^-n for self > 0 from the ends, as :meth:`Dual.inv`; (f(u))_kl = f'' u_k u_l +
        f' u_kl with f'' = n (n + 1) u^-(n+2) over the enclosure of u."""
        lo, hi, g = self.v.lower(), self.v.upper(), self.g
        if not lo > 0:
            nan = lo * arb("nan")
            return Jet(nan, [nan] * len(g), [[nan] * len(r) for r in self.H])
        y = (1 / hi ** n).union(1 / lo ** n)
        dy = -(n / hi ** (n + 1)).union(n / lo ** (n + 1))
        ddy = (n * (n + 1) / hi ** (n + 2)).union(n * (n + 1) / lo ** (n + 2))
        return Jet(y, [dy * a for a in g], [[ddy * g[k] * g[l] + dy * a
                                             for l, a in zip(range(k, len(g)), r)]
                                            for k, r in enumerate(self.H)])


def _product(box: list[arb], ls: Iterable[int]) -> arb:
    """The range of prod_(l in ls) r_l over the box, from the ends (every r_l >= 0)."""
    lo = hi = arb(1)
    for l in ls:
        lo, hi = lo * box[l].lower(), hi * box[l].upper()
    return lo.union(hi)


def _decay(t: arb, w: Dual) -> Dual:
    """x = e^(-t w) for t, w >= 0, its value from the ends (Arb's exp and product of wide balls
    reach below 0: section 7)."""
    e = (-(t.upper() * w.v.upper())).exp().union((-(t.lower() * w.v.lower())).exp())
    if not isinstance(w, Jet):
        return Dual(e, [-t * e * g for g in w.g])
    g = w.g  # (e^(-tw))_kl = t^2 e w_k w_l - t e w_kl
    return Jet(e, [-t * e * a for a in g], [[t * e * (t * g[k] * g[l] - a)
                                             for l, a in zip(range(k, len(g)), r)]
                                            for k, r in enumerate(w.H)])


def _weights(d: int, h: int, box: list[arb], second: bool) -> dict[int, Dual]:
    """w_j = r_(h+1) .. r_j (j >= h) over the box, as Duals (``second``: Jets; a product of
    distinct ratios: its d^2/dr_k^2 is 0, its d^2/dr_k dr_l the product of the others).  No
    w_j of stratum h holds r_2 .. r_h, so neither does any of its integrands: their partials
    carry only k >= h (``g[k - h]``, ``H[k - h][l - k]``); the others are 0."""
    n = d - 1
    out: dict[int, Dual] = {}
    for j in range(h, d):
        ks = range(h, j)
        v = _product(box, ks)
        g = [_product(box, [l for l in ks if l != k]) if k in ks else arb(0) for k in range(h, n)]
        out[j] = Jet(v, g, [[_product(box, [i for i in ks if i not in (k, l)])
                             if k != l and k in ks and l in ks else arb(0) for l in range(k, n)]
                            for k in range(h, n)]) if second else Dual(v, g)
    return out


def _integrands(d: int, h: int, w: dict[int, Dual], t: arb) -> tuple[dict, dict, dict]:
    """The stratum-h integrands of section 15 at t (a ball), given :func:`_weights` over the
    box, as Duals or Jets: (second moments {(i, j): ...}, means {i: ...}, means of the words
    without s {(s, i): ...})."""
    p = arb(1) / (d - 1)
    q = 1 - p
    x = {j: _decay(t, w[j]) for j in w}
    xw = {j: x[j] * w[j] for j in w}
    delta = x[h] * (q / d)  # A' - A

    def means(no: int | None) -> tuple[dict[int, Dual], Dual, Dual]:
        """A^-2 - A'^-2 = delta (A + A') A^-2 A'^-2, without cancellation."""
        a = 1 - sum((x[j] for j in w if j != no), x[h] * 0) * (q / d)
        b = a + delta
        a2 = a.inv(2)
        gap = delta * (a + b) * a2 * b.inv(2) * (p / d)
        a2 = a2 * (p / d)
        return {i: xw[i] * (gap if i != h else a2) for i in w if i != no}, a, b

    mean, a, b = means(None)
    a3 = a.inv(3)
    gap3 = delta * (a * a + a * b + b * b) * a3 * b.inv(3) * (2 * p * q / d ** 2)  # A^-3 - A'^-3
    a3 = a3 * (2 * p * q / d ** 2)
    second = {}
    for i in w:
        for j in w:
            if j >= i:
                both = xw[i] * xw[j] * (gap3 if h not in (i, j) else a3)
                second[i, j] = (both + w[i] * mean[i] if i == j else both) * t
    without = {(s, i): f for s in w if s != h for i, f in means(s)[0].items()}
    return second, mean, without


def _cells(first: float) -> list[tuple[arb, arb]]:
    """(t, dt): cells tiling [0, CUT], t the cell as a ball; the width grows as e^(t/2) (every
    integrand decays at least as e^-t, section 15), from ``first`` at 0."""
    out, a = [], 0.0
    while a < CUT:
        b = min(CUT, a + first * math.exp(a / 2))
        out.append((arb(a).union(arb(b)), arb(b) - a))
        a = b
    return out


def tail(d: int, second: bool = False) -> arb:
    """[-e, e]: the part beyond CUT of every derivative entry (section 15: each integrand's
    r_k-derivative is at most e^-t (1 + 3t + t^2) m^3 in absolute value, E[m^3] <= 6/p^3, two
    terms of each of d strata); ``second``: of every second derivative (at most e^-t (1 + 4t +
    5t^2 + t^3) m^4, E[m^4] <= 24/p^4)."""
    p, T = arb(1) / (d - 1), CUT
    e = (48 * d * (T ** 3 + 8 * T * T + 20 * T + 21) / p ** 4 if second
         else 12 * d * (T * T + 5 * T + 6) / p ** 3) * arb(-T).exp()
    return arb(0).union(e).union(-e)


def _sums(d: int, box: list[arb], first: float, second: bool) -> tuple[dict, dict]:
    """({c: dM_c[i][j]}, {c: dm_c[s][i]}) for every component c of the integrands' derivatives
    (k; ``second``: (k, l), l >= k): the Riemann sum over the cells of the integrands' derivative
    over the cell and the box, plus :func:`tail`."""
    n = d - 1
    comps = [(k, l) for k in range(n) for l in range(k, n)] if second else [(k,) for k in range(n)]
    dM = {c: [[arb(0)] * d for _ in range(d)] for c in comps}
    dm = {c: [[arb(0)] * d for _ in range(d)] for c in comps}
    weights = [_weights(d, h, box, second) for h in range(d)]  # constant in t
    cells = _cells(first)
    t, dt = Cells([c for c, _ in cells]), Cells([w for _, w in cells])
    strata = [_integrands(d, h, weights[h], t) for h in range(d)]  # every cell at once
    part = (lambda f, c, h: f.H[c[0] - h][c[1] - c[0]]) if second else (lambda f, c, h: f.g[c[0] - h])
    for c in comps:
        terms: dict = {}  # ("M", i, j) or ("m", s, i): the terms of each stratum, h ascending
        for h, (sec, mean, without) in enumerate(strata[:c[0] + 1]):  # above k: no r_k, terms 0
            for (i, j), f in sec.items():
                terms.setdefault(("M", i, j), []).append(dt * part(f, c, h))
            for s in range(h, d):  # the words of stratum h holding s (section 15)
                for i, f in mean.items():
                    off = part(without[s, i], c, h) if (s, i) in without else 0
                    terms.setdefault(("m", s, i), []).append(dt * (part(f, c, h) - off))
        for (kind, i, j), ts in terms.items():  # the Riemann sum: cell by cell, strata in order
            (dM if kind == "M" else dm)[c][i][j] = sum(chain.from_iterable(zip(*(x.x for x in ts))), arb(0))
    e = tail(d, second)
    for c in comps:
        for i in range(d):
            for j in range(d):
                dM[c][i][j] = dM[c][min(i, j)][max(i, j)] + (e if j >= i else 0)
                dm[c][i][j] += e
    return dM, dm


def derivatives(d: int, box: list[arb], first: float = FIRST) -> tuple[list, list]:
    """(dM[k][i][j], dm[k][s][i]): balls holding every d/dr_k of M and m_s over the box."""
    dM, dm = _sums(d, box, first, False)
    return [dM[k,] for k in range(d - 1)], [dm[k,] for k in range(d - 1)]


def hessians(d: int, box: list[arb], first: float = SECOND) -> tuple[dict, dict]:
    """({(k, l): H_kl M}, {(k, l): H_kl m}) for l >= k: balls holding every d^2/dr_k dr_l of M
    and m_s over the box."""
    return _sums(d, box, first, True)


def quadratic(A: list[list[arb]], v: list[arb], beta: list[arb]) -> arb:
    """1/2 beta' A beta - 2 beta' v (L_s without its constant 1, or its derivative)."""
    n = len(beta)
    return sum((A[i][j] * beta[i] * beta[j] for i in range(n) for j in range(n)), arb(0)) / 2 \
        - 2 * sum((beta[i] * v[i] for i in range(n)), arb(0))


def centred(sides: list[tuple[float, float]]) -> tuple[list[arb], list[arb]]:
    """(the box as balls, r - c over it) for sides (a, b) and centre c = (a + b)/2."""
    centre = [(a + b) / 2 for a, b in sides]
    return ([arb(a).union(arb(b)) for a, b in sides],
            [(arb(a) - c).union(arb(b) - c) for (a, b), c in zip(sides, centre)])


def floors_over(d: int, sides: list[tuple[float, float]], M: list[list[arb]],
                m: list[list[arb]], shift: dict[int, list[arb]] | None, grad: tuple,
                hess: tuple) -> list[arb]:
    """Lower bounds of every F_s = inf_beta L_s over the box (sides (a, b)), given M and m_s at
    its centre c = (a + b)/2 (section 15, step 3).  L_s(beta) = 1/2 beta' M beta - 2 beta' m_s
    + 1 and, for any fixed beta*, inf_beta L_s = L_s(beta*) - 1/2 g' M^-1 g with g = M beta* -
    2 m_s, so F_s >= L_s(beta*) - (d/(2p)) |g|^2 (M >= (p/d) I).  beta* = 2 M^-1 m_s at the
    centre (its midpoints).  L_s(beta*) and each g_i are linear in (M, m_s): over the box, by
    Taylor's theorem with the Lagrange remainder (the box convex), their values at c, plus
    their gradients at c (``grad`` = (dM, dm) of :func:`derivatives` on the point c) times
    r - c, plus 1/2 (r - c)' H (r - c) with H their Hessians over the box or any box holding it
    (``hess`` = :func:`hessians`).  ``shift``: {s: v} judges only those targets, with m_s + v
    (v constant in r: the cones' dual bound, section 15)."""
    out = []
    for s in shift or range(d):
        ms = [a + b for a, b in zip(m[s], shift[s])] if shift else m[s]
        y = arb_mat(M).solve(arb_mat([[x] for x in ms]))
        beta = [2 * arb(y[i, 0].mid()) for i in range(d)]
        value, g = taylor(sides, M, ms, s, beta, grad, hess)
        out.append(1 + value - arb(d * (d - 1)) / 2 * sum((x * x for x in g), arb(0)))
    return out


def taylor(sides: list[tuple[float, float]], M: list[list[arb]], ms: list[arb], s: int,
           beta: list[arb], grad: tuple, hess: tuple) -> tuple[arb, list[arb]]:
    """(L_s(beta) - 1, g = M beta - 2 m_s) over the box at a fixed beta by the second-order form
    of :func:`floors_over` (M, ms at the centre; grad, hess as there)."""
    d, step, (gM, gm), (HM, Hm) = len(M), centred(sides)[1], grad, hess
    sq = {(k, l): step[k] * step[l] if k != l else arb(0).union(abs(step[k]).upper() ** 2) / 2
          for k, l in HM}  # (r_k - c_k)(r_l - c_l), halved on the diagonal
    terms = [(M, ms, arb(1))] + [(gM[k], gm[k][s], x) for k, x in enumerate(step)] \
        + [(HM[c], Hm[c][s], sq[c]) for c in HM]
    g = [sum((sum((A[i][j] * beta[j] for j in range(d)), -2 * v[i]) * x for A, v, x in terms),
             arb(0)) for i in range(d)]
    return sum((quadratic(A, v, beta) * x for A, v, x in terms), arb(0)), g


def descends(d: int, sides: list[tuple[float, float]], M: list[list[arb]], m: list[list[arb]],
             first: float) -> bool:
    """Some target's F_s = 1 - 2 m_s' M^-1 m_s has dF_s/dr_k = 2 y' dM_k y - 4 y' dm_k < 0 (y =
    M^-1 m_s) for every k at every point of the box (section 15), given M and m_s at its
    centre: M, m_s over the box by the mean-value form, y by Arb's solve of that interval
    system (it encloses M(r)^-1 m_s(r) for every r of the box), dM, dm by :func:`derivatives`
    with cells of ``first``.  Then F_s(r) >= F_s(b) with b the box's upper corner, raising one
    side at a time."""
    n = d - 1
    box, step = centred(sides)
    dM, dm = derivatives(d, box, first)
    over = arb_mat([[M[i][j] + sum((dM[k][i][j] * step[k] for k in range(n)), arb(0))
                     for j in range(d)] for i in range(d)])
    for s in range(d):
        y = over.solve(arb_mat([[m[s][i] + sum((dm[k][s][i] * step[k] for k in range(n)), arb(0))]
                                for i in range(d)]))
        y = [y[i, 0] for i in range(d)]
        if all(2 * sum((y[i] * dM[k][i][j] * y[j] for i in range(d) for j in range(d)), arb(0))
               - 4 * sum((y[i] * dm[k][s][i] for i in range(d)), arb(0)) < 0 for k in range(n)):
            return True
    return False
