"""Forward-mode dual numbers over Arb balls: a value and its gradient, both balls.

``Dual(v, g)`` stands for a function of n real variables: ``v`` encloses its value and ``g[i]``
its partial derivative in variable i, over whatever set the input balls describe.  The kernels
(moment integrand, SymPy-lambdified reductions, the schedules) are written once over any number
type, so running them on duals gives value and gradient with every rounding inside the balls.
Only what those kernels use is defined: + - * /, integer powers, exp, expm1, log, sqrt and the
dilogarithm ``polylog(2, z)`` (d/dz Li_s(z) = Li_(s-1)(z) / z).

>>> from flint import arb
>>> x = Dual(arb(2), (arb(1),))
>>> y = (x * x + 1).log()
>>> y.v.contains(arb(5).log()), y.g[0].contains(arb(4) / 5)   # ln 5, 2x/(x^2+1) = 4/5
(True, True)
"""
from __future__ import annotations

from typing import Any

from flint import arb

from ..context import ARB, Context


class Dual:
    """A function of n real variables over a box X: ``v`` encloses its values on X, ``g[i]``
    its i-th partial derivative on X.  With a centre (``c``: the value at a point x_c of X, a
    tiny ball; ``dx[i]``: the ball X_i - x_c,i) every operation also carries the centre value
    and re-encloses its result by the mean-value form ``c + sum_i g[i] dx[i]`` (intersected
    with the plain enclosure), so later operations start from tight enclosures."""

    __slots__ = ("v", "g", "c", "dx")

    def __init__(self, v: Any, g, c: Any = None, dx: tuple | None = None) -> None:
        self.g = tuple(g)
        self.c, self.dx = c, dx
        self.v = v if c is None else tighten(v, c, self.g, dx)

    def __repr__(self) -> str:
        return f"Dual({self.v!r}, {self.g!r}, c={self.c!r})"

    def _new(self, v, g, c_fn) -> "Dual":
        """A result with the same centre structure (``c_fn`` computes its centre value)."""
        return Dual(v, g) if self.c is None else Dual(v, g, c_fn(), self.dx)

    # arithmetic --------------------------------------------------------------------------
    def __add__(self, o):
        if isinstance(o, Dual):
            return self._new(self.v + o.v, [a + b for a, b in zip(self.g, o.g)],
                             lambda: self.c + o.c)
        return self._new(self.v + o, self.g, lambda: self.c + o)

    __radd__ = __add__

    def __neg__(self):
        return self._new(-self.v, [-a for a in self.g], lambda: -self.c)

    def __sub__(self, o):
        if isinstance(o, Dual):
            return self._new(self.v - o.v, [a - b for a, b in zip(self.g, o.g)],
                             lambda: self.c - o.c)
        return self._new(self.v - o, self.g, lambda: self.c - o)

    def __rsub__(self, o):
        return self._new(o - self.v, [-a for a in self.g], lambda: o - self.c)

    def __mul__(self, o):
        if isinstance(o, Dual):
            return self._new(mul(self.v, o.v), [a * o.v + self.v * b for a, b in zip(self.g, o.g)],
                             lambda: self.c * o.c)
        return self._new(mul(self.v, o), [a * o for a in self.g], lambda: self.c * o)

    __rmul__ = __mul__

    def __truediv__(self, o):
        if isinstance(o, Dual):
            q = mul(self.v, inverse(o.v))
            return self._new(q, [(a - q * b) / o.v for a, b in zip(self.g, o.g)],
                             lambda: self.c / o.c)
        return self._new(mul(self.v, inverse(o)), [a / o for a in self.g], lambda: self.c / o)

    def __rtruediv__(self, o):
        q = mul(o, inverse(self.v))
        return self._new(q, [-q * a / self.v for a in self.g], lambda: o / self.c)

    def __pow__(self, n):
        if not isinstance(n, int):
            return (n * self.log()).exp()
        if n == 0:
            return self._new(self.v * 0 + 1, [0 * a for a in self.g], lambda: self.c * 0 + 1)
        p = power(self.v, n - 1)
        return self._new(power(self.v, n), [n * p * a for a in self.g],
                         lambda: power(self.c, n))

    # functions ---------------------------------------------------------------------------
    def exp(self):
        e = increasing(self.v, lambda x: x.exp())
        return self._new(e, [e * a for a in self.g], lambda: self.c.exp())

    def expm1(self):
        e = increasing(self.v, lambda x: x.expm1())
        return self._new(e, [(e + 1) * a for a in self.g], lambda: self.c.expm1())

    def log(self):
        return self._new(increasing(self.v, lambda x: x.log()), [a / self.v for a in self.g],
                         lambda: self.c.log())

    def sqrt(self):
        s = increasing(self.v, lambda x: x.sqrt())
        return self._new(s, [a / (2 * s) for a in self.g], lambda: self.c.sqrt())

    def dilog_q(self):
        """Li_2((d - 2)/(d - 1)) of d = self (d > 2): increasing in d, with derivative
        ln(d - 1)/((d - 1)(d - 2)), so neither the value nor the gradient goes through the
        ratio, whose interval over a range of large d reaches past 1."""
        return self._new(dilog_q(self.v),
                         [(self.v - 1).log() / mul(self.v - 1, self.v - 2) * a for a in self.g],
                         lambda: dilog_q(self.c))

    def polylog(self, s: int):
        """Li_s(self); its derivative Li_(s-1)(z)/z (Li_1(z) = -ln(1 - z))."""
        lower = -(1 - self.v).log() if s == 2 else self.v.polylog(s - 1)
        return self._new(self.v.polylog(s), [lower / self.v * a for a in self.g],
                         lambda: self.c.polylog(s))


def _wide(x: Any) -> bool:
    """A finite real ball whose radius is not negligible against its midpoint: there Arb's
    midpoint-radius products overestimate (``[0.05, 0.99]^2`` has a negative lower end)."""
    return isinstance(x, arb) and x.is_finite() and float(x.rad()) > 2.0**-20 * abs(float(x.mid()))


def _ends(x: arb) -> tuple:
    return arb(x.lower()), arb(x.upper())


def mul(x: Any, y: Any) -> Any:
    """x y; for wide real balls the hull of the four end products (interval arithmetic)."""
    if not (_wide(x) or _wide(y)) or not (isinstance(x, arb) and isinstance(y, arb)) \
            or not (x.is_finite() and y.is_finite()):
        return x * y
    out = None
    for a in _ends(x):
        for b in _ends(y):
            out = a * b if out is None else out.union(a * b)
    return out


def inverse(y: Any) -> Any:
    """1/y; for a wide real ball of one sign the hull of the ends' inverses."""
    if _wide(y) and (y > 0 or y < 0):
        lo, hi = _ends(y)
        return (1 / lo).union(1 / hi)
    return 1 / y


def _ipow(x: Any, n: int) -> Any:
    """x^n for an integer n >= 0 by repeated squaring (python-flint's ``arb ** int`` goes
    through exp/log: NaN for a ball that contains 0 or a negative number)."""
    out = None
    while n:
        if n & 1:
            out = x if out is None else out * x
        n >>= 1
        if n:
            x = x * x
    return out if out is not None else x * 0 + 1


def power(x: Any, n: int) -> Any:
    """x^n (integer n); for a wide real ball from its ends (x^n is monotone on each sign,
    and an even power of a ball around 0 is [0, max end^n])."""
    if n < 0:
        return inverse(power(x, -n))
    if not _wide(x):
        return _ipow(x, n)
    lo, hi = _ends(x)
    hull = _ipow(lo, n).union(_ipow(hi, n))
    return arb(0).union(hull) if n % 2 == 0 and lo < 0 < hi else hull


def increasing(x: Any, f) -> Any:
    """``f`` (increasing) on a real ball from its two ends: ``[f(lo), f(hi)]``.  Arb's own
    ``exp`` of a wide ball is ``e^mid (1 +- (e^rad - 1))``, whose lower end can be far below
    ``e^lo`` (even negative): the dependency problem this module exists to avoid."""
    if not isinstance(x, arb) or x.rad() == 0 or not x.is_finite():
        return f(x)
    return f(arb(x.lower())).union(f(arb(x.upper())))


def dilog_q(x: Any) -> Any:
    """Li_2((d - 2)/(d - 1)) for d = ``x`` (a dual, or a ball enclosed from its two ends: the
    function increases in d)."""
    if isinstance(x, Dual):
        return x.dilog_q()
    return increasing(x, lambda y: ((y - 2) / (y - 1)).polylog(2))


def _bump(k: int, lo: Any, hi: Any) -> Any:
    """x^k e^(-x) over x in [lo, hi] (0 < lo <= hi, hi possibly +inf): it rises to its maximum
    k^k e^(-k) at x = k and falls to 0 as x -> inf, so the range is the hull of its values at
    the ends, and of the maximum when k lies between them."""
    def at(x):
        return arb(0) if not x.is_finite() else _ipow(x, k) * (-x).exp()

    out = at(lo).union(at(hi))
    return out.union(at(arb(k))) if lo <= k and (not hi.is_finite() or hi >= k) else out


def saturating_exp(G: Any, v: Any) -> Any:
    """``b = e^(-G/v)`` for ``G > 0``, ``v >= 0``, extended by 0 at ``v = 0`` (there ``b`` and
    all its derivatives tend to 0: the extension is smooth).  ``G`` and ``v`` are duals with one
    gradient layout, or balls.  With ``x = G/v`` in ``[G_lo/v_hi, G_hi/v_lo]`` (``+inf`` when
    ``v_lo = 0``) the partials ``db/dG = -x e^(-x)/G`` and ``db/dv = x^2 e^(-x)/G`` are
    enclosed through :func:`_bump`, bounded up to and including ``v = 0``, where the chain rule
    through ``G/v`` would multiply 0 by an unbounded ball (proofs/hypothesis-range.md)."""
    gv, vv = value(G), value(v)
    if not (gv > 0 and vv.upper() >= 0):
        raise ArithmeticError("saturating_exp needs G > 0 and v >= 0")
    if vv == 0:  # the limit itself (a point): b = 0 and every partial 0
        return Dual(arb(0), [0 * a for a in G.g]) if isinstance(G, Dual) else arb(0)
    g_lo, g_hi = _ends(gv)
    v_lo, v_hi = _ends(vv)
    # v is defined on [0, inf): a ball of [0, v1] reaches below 0 only by its rounded radius
    v_lo = v_lo if v_lo > 0 else arb(0)
    x_lo = g_lo / v_hi
    x_hi = g_hi / v_lo if v_lo > 0 else arb("inf")
    b = (-x_lo).exp().union(arb(0) if not x_hi.is_finite() else (-x_hi).exp())
    if not isinstance(G, Dual):
        return b
    inv = inverse(gv)
    d_g, d_v = -mul(_bump(1, x_lo, x_hi), inv), mul(_bump(2, x_lo, x_hi), inv)
    grad = [d_g * a + d_v * c for a, c in zip(G.g, v.g)]
    if G.c is None:
        return Dual(b, grad)
    return Dual(b, grad, _point_saturating(G.c, v.c), G.dx)


def doubly_saturating(K: Any, tau: Any) -> Any:
    """``s e^(-s)`` with ``s = K e^(1/tau - 1)`` for ``K > 0``, ``tau`` in ``[0, 1]``, extended by 0
    at ``tau = 0`` (``s -> inf``; every derivative tends to 0): Corollary 1's slow Phase-3 term
    ``c (1 - lambda)^(2T)/eps`` at ``T = 72/eps``, ``eps = e^(1 - 1/tau)`` (proofs/
    hypothesis-range.md, section 9).  ``d/dK = (s - s^2) e^(-s)/K``; ``d/dtau = -(s - s^2)
    e^(-s)/tau^2``, bounded at ``tau_lo = 0`` (where 1/tau = 1 + ln(s/K) <= 1 + ln(s/K_lo)) by its
    value at ``s_lo`` once ``s_lo >= 4``: ``(s + s^2) e^(-s) (1 + ln(s/K_lo))^2`` decreases there
    (its log-derivative is <= 9/20 - 1 + 1/2 < 0 for s >= 4, ln(s/K_lo) >= 0).  Else, at
    ``tau_lo = 0``, no enclosure (ArithmeticError: the box is split)."""
    kv, tv = value(K), value(tau)
    if not (kv > 0 and tv.upper() >= 0 and tv.upper() <= 1):
        raise ArithmeticError("doubly_saturating needs K > 0 and 0 <= tau <= 1")
    k_lo, k_hi = _ends(kv)
    t_lo, t_hi = _ends(tv)
    t_lo = t_lo if t_lo > 0 else arb(0)
    if t_hi == 0:  # the limit itself
        return Dual(arb(0), [0 * a for a in K.g]) if isinstance(K, Dual) else arb(0)
    s_lo = k_lo * (1 / t_hi - 1).exp()
    s_hi = k_hi * (1 / t_lo - 1).exp() if t_lo > 0 else arb("inf")
    out = _bump(1, s_lo, s_hi)
    if not isinstance(K, Dual):
        return out
    slope = (_bump(1, s_lo, s_hi) - _bump(2, s_lo, s_hi))  # (s - s^2) e^-s
    d_k = mul(slope, inverse(kv))
    if t_lo > 0:
        d_t = -mul(slope, inverse(power(tv, 2)))
    elif s_lo >= 4:
        m = (s_lo + s_lo * s_lo) * (-s_lo).exp() * (1 + (s_lo / k_lo).log()) ** 2
        d_t = (-m).union(m)
    else:
        raise ArithmeticError("doubly_saturating: s not yet large enough at tau = 0")
    grad = [d_k * a + d_t * c for a, c in zip(K.g, tau.g)]
    if K.c is None:
        return Dual(out, grad)
    return Dual(out, grad, _point_doubly(K.c, tau.c), K.dx)


def _point_doubly(k: Any, t: Any) -> Any:
    if t == 0:
        return arb(0)
    s = k * (1 / t - 1).exp()
    return s * (-s).exp()


def _point_saturating(g: Any, v: Any) -> Any:
    """e^(-g/v) at a point (0 for v = 0)."""
    return arb(0) if v == 0 else (-g / v).exp()


def tighten(plain: Any, centre: Any, g: tuple, dx: tuple) -> Any:
    """The mean-value enclosure ``centre + sum g_i dx_i`` intersected with ``plain`` (both
    enclose the function on the box; a non-finite one is dropped)."""
    centred = centre
    for a, h in zip(g, dx):
        centred = centred + a * h
    return ARB.meet(centred, plain)  # both contain the function's values


def value(x: Any) -> Any:
    """The value part of a dual (a plain number is its own value)."""
    return x.v if isinstance(x, Dual) else x


def _number(x):
    return x if isinstance(x, Dual) else ARB.number(x)


DUAL = Context("dual", _number, lambda x: x.exp(), lambda x: x.expm1(), lambda x: x.log(),
               lambda x: x.sqrt())
