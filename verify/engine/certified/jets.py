"""Second-order jets over Arb balls: a value, its gradient and its Hessian, all balls
(first-order ones carry an empty Hessian).

``Jet(v, g, H)`` stands for a function of n real variables over a box X (or at a point): ``v``
encloses its values, ``g[k]`` its partial derivatives and ``H[k][l]`` (k <= l, stored as the
upper triangle ``H[index(k, l)]``) its second partial derivatives, over whatever set the input
balls describe.  The kernels of :mod:`verify.engine.certified.ratios` are written once over any
number type; run on jets they give the Hessian of every integrand over a box, which the
second-order (Taylor) form turns into tight enclosures of the moments and of their gradients
(proofs/prop3.md, "Enclosures over a box").  Only what those kernels use is defined:
+ - * / with jets and plain numbers (arb, acb, int, float), exp and expm1.

>>> from flint import arb
>>> x = Jet.variable(arb(2), 0, 1)
>>> y = (x * x + 1).exp()                        # e^(x^2 + 1)
>>> y.g[0].contains(4 * arb(5).exp()), y.H[0].contains(18 * arb(5).exp())
(True, True)
"""
from __future__ import annotations

from typing import Any

from .dual import increasing


def index(k: int, l: int, n: int) -> int:
    """Position of H[k][l] (k <= l) in the upper triangle stored row by row."""
    k, l = min(k, l), max(k, l)
    return k * n - k * (k - 1) // 2 + (l - k)


class Jet:
    """Value, gradient and (upper-triangle) Hessian of a function of ``n`` variables."""

    __slots__ = ("v", "g", "H")

    def __init__(self, v: Any, g, H) -> None:
        self.v, self.g, self.H = v, tuple(g), tuple(H)

    @classmethod
    def variable(cls, value: Any, k: int, n: int, order: int = 2) -> "Jet":
        """The k-th coordinate function (gradient e_k, Hessian 0) with values in ``value``;
        ``order = 1`` carries no Hessian (an empty one: first derivatives only)."""
        zero = 0 * value
        return cls(value, [zero + (1 if j == k else 0) for j in range(n)],
                   [zero] * (n * (n + 1) // 2 if order == 2 else 0))

    @property
    def n(self) -> int:
        return len(self.g)

    def __repr__(self) -> str:
        return f"Jet({self.v!r}, {self.g!r}, {self.H!r})"

    def _outer(self, a, b) -> list:
        """a b^T + b a^T on the upper triangle (a, b gradients)."""
        n = self.n
        return [a[k] * b[l] + b[k] * a[l] for k in range(n) for l in range(k, n)]

    def _square(self, a) -> list:
        n = self.n
        return [a[k] * a[l] for k in range(n) for l in range(k, n)]

    # arithmetic ------------------------------------------------------------------------
    def __add__(self, o):
        if isinstance(o, Jet):
            return Jet(self.v + o.v, [a + b for a, b in zip(self.g, o.g)],
                       [a + b for a, b in zip(self.H, o.H)])
        return Jet(self.v + o, self.g, self.H)

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.v, [-a for a in self.g], [-a for a in self.H])

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if isinstance(o, Jet):
            H = ()
            if self.H:
                H = [a * o.v + self.v * b for a, b in zip(self.H, o.H)]
                H = [h + x for h, x in zip(H, self._outer(self.g, o.g))]
            return Jet(self.v * o.v, [a * o.v + self.v * b for a, b in zip(self.g, o.g)], H)
        return Jet(self.v * o, [a * o for a in self.g], [a * o for a in self.H])

    __rmul__ = __mul__

    def inverse(self) -> "Jet":
        """1/f: gradient -g/v^2, Hessian 2 g g^T/v^3 - H/v^2."""
        iv = 1 / self.v
        iv2 = iv * iv
        H = ()
        if self.H:
            H = [2 * s * iv2 * iv - h * iv2 for s, h in zip(self._square(self.g), self.H)]
        return Jet(iv, [-a * iv2 for a in self.g], H)

    def __truediv__(self, o):
        if isinstance(o, Jet):
            return self * o.inverse()
        return self * (1 / o)

    def __rtruediv__(self, o):
        return self.inverse() * o

    # functions -------------------------------------------------------------------------
    def _compose(self, f0, f1) -> "Jet":
        """phi(f) for phi with phi(v) = f0 and phi' = phi'' = f1 (exp, expm1)."""
        H = [f1 * (h + s) for h, s in zip(self.H, self._square(self.g))] if self.H else ()
        return Jet(f0, [f1 * a for a in self.g], H)

    def exp(self) -> "Jet":
        e = increasing(self.v, lambda x: x.exp())  # from the ends of a wide real ball
        return self._compose(e, e)

    def expm1(self) -> "Jet":
        return self._compose(increasing(self.v, lambda x: x.expm1()),
                             increasing(self.v, lambda x: x.exp()))
