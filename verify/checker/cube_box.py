"""max_s inf_beta L_s over a box of successive ratios (proofs/checker.md, section 15): a centred
form.  The moments at the box's centre come from ``cube.moments_at``; their partial derivatives
in r over the whole box from an interval Riemann sum in t of the stratified integrands of
section 15, differentiated in forward mode (:class:`Dual`), plus a tail bound; inf_beta L_s is
bounded below at a fixed beta* without inverting an interval matrix.
"""
from __future__ import annotations

import math
from typing import Iterable

from flint import arb, arb_mat

CUT = 32  # [0, CUT] summed in cells; [CUT, inf) bounded by the word law (section 15)
FIRST = 2.0 ** -7  # the width of the first cell in t


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
            return Dual(arb("nan"), [arb("nan")] * len(self.g))
        y = (1 / hi ** n).union(1 / lo ** n)
        dy = -(n / hi ** (n + 1)).union(n / lo ** (n + 1))
        return Dual(y, [dy * a for a in self.g])


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
    return Dual(e, [-t * e * g for g in w.g])


def _integrands(d: int, h: int, box: list[arb], t: arb) -> tuple[dict, dict, dict]:
    """The stratum-h integrands of section 15 at t (a ball) over the box, as Duals: (second
    moments {(i, j): ...}, means {i: ...}, means of the words without s {(s, i): ...})."""
    p = arb(1) / (d - 1)
    q = 1 - p
    n = d - 1
    w = {j: Dual(_product(box, range(h, j)), [_product(box, [l for l in range(h, j) if l != k])
                                               if h <= k < j else arb(0) for k in range(n)])
         for j in range(h, d)}
    x = {j: _decay(t, w[j]) for j in w}
    xw = {j: x[j] * w[j] for j in w}
    delta = x[h] * (q / d)  # A' - A

    def means(no: int | None) -> tuple[dict[int, Dual], Dual, Dual]:
        """A^-2 - A'^-2 = delta (A + A') A^-2 A'^-2, without cancellation."""
        a = 1 - sum((x[j] for j in w if j != no), Dual(arb(0), [arb(0)] * n)) * (q / d)
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


def tail(d: int) -> arb:
    """[-e, e]: the part beyond CUT of every derivative entry (section 15: each integrand's
    r_k-derivative is at most e^-t (1 + 3t + t^2) m^3 in absolute value, E[m^3] <= 6/p^3, two
    terms of each of d strata)."""
    p = arb(1) / (d - 1)
    e = 12 * d * (CUT * CUT + 5 * CUT + 6) * arb(-CUT).exp() / (p * p * p)
    return arb(0).union(e).union(-e)


def derivatives(d: int, box: list[arb], first: float = FIRST) -> tuple[list, list]:
    """(dM[k][i][j], dm[k][s][i]): balls holding every d/dr_k of M and m_s over the box (the
    Riemann sum of the integrands' derivatives over the cells, plus :func:`tail`)."""
    n = d - 1
    dM = [[[arb(0)] * d for _ in range(d)] for _ in range(n)]
    dm = [[[arb(0)] * d for _ in range(d)] for _ in range(n)]
    for t, dt in _cells(first):
        for h in range(d):
            second, mean, without = _integrands(d, h, box, t)
            for k in range(n):
                for (i, j), f in second.items():
                    dM[k][i][j] += dt * f.g[k]
                for s in range(h, d):  # the words of stratum h holding s (section 15)
                    for i, f in mean.items():
                        off = without[s, i].g[k] if (s, i) in without else 0
                        dm[k][s][i] += dt * (f.g[k] - off)
    e = tail(d)
    for k in range(n):
        for i in range(d):
            for j in range(d):
                dM[k][i][j] = dM[k][min(i, j)][max(i, j)] + (e if j >= i else 0)
                dm[k][i][j] += e
    return dM, dm


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
                m: list[list[arb]], shift: dict[int, list[arb]] | None, derivs: tuple) -> list[arb]:
    """Lower bounds of every F_s = inf_beta L_s over the box (sides (a, b)), given M and m_s at
    its centre c = (a + b)/2 (section 15).  L_s(beta) = 1/2 beta' M beta - 2 beta' m_s + 1 and,
    for any fixed beta*, inf_beta L_s = L_s(beta*) - 1/2 g' M^-1 g with g = M beta* - 2 m_s, so
    F_s >= L_s(beta*) - (d/(2p)) |g|^2 (M >= (p/d) I).  beta* = 2 M^-1 m_s at the centre (its
    midpoints); L_s(beta*) and g over the box by the mean-value form: their values at c plus
    their derivatives over the box times r - c; ``derivs`` = (dM, dm) enclose those derivatives
    over the box or any box holding it (:func:`derivatives`).  ``shift``: {s: v} judges only
    those targets, with m_s + v (v constant in r: the cones' dual bound, section 15)."""
    n = d - 1
    step, (dM, dm) = centred(sides)[1], derivs
    out = []
    for s in shift or range(d):
        ms = [a + b for a, b in zip(m[s], shift[s])] if shift else m[s]
        y = arb_mat(M).solve(arb_mat([[x] for x in ms]))
        beta = [2 * arb(y[i, 0].mid()) for i in range(d)]
        g = [sum((M[i][j] * beta[j] for j in range(d)), -2 * ms[i])
             + sum((sum((dM[k][i][j] * beta[j] for j in range(d)), -2 * dm[k][s][i]) * step[k]
                    for k in range(n)), arb(0)) for i in range(d)]
        value = 1 + quadratic(M, ms, beta) + sum((quadratic(dM[k], dm[k][s], beta) * step[k]
                                                     for k in range(n)), arb(0))
        out.append(value - arb(d * n) / 2 * sum((x * x for x in g), arb(0)))
    return out


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
