"""Root boxes of the branch and bound in its coordinates, covering ranges of the parameters:
(ln d, ln eps) with float ends rounded outward, and (ln d, ln eps, u, v) for the four-axis
groups (u = eta1/sqrt(d), v = eta2_min/eta2; proofs/hypothesis-range.md)."""
from __future__ import annotations

import math

from flint import arb

Box = tuple


def log_box(d_lo: float, d_hi: float, eps_lo: float, eps_hi: float) -> Box:
    """The box of (ln d, ln eps) with float ends rounded outward, so that it covers
    [d_lo, d_hi] x [eps_lo, eps_hi]."""
    def down(x: float) -> float:
        v = math.log(x)
        while not arb(v).exp() <= x:
            v = math.nextafter(v, -math.inf)
        return v

    def up(x: float) -> float:
        v = math.log(x)
        while not arb(v).exp() >= x:
            v = math.nextafter(v, math.inf)
        return v

    return down(d_lo), up(d_hi), down(eps_lo), up(eps_hi)


def hypothesis_box(d_lo: float, d_hi: float, eps_lo: float, eps_hi: float,
                   u: tuple[float, float] = (0.0, 1.0), v: tuple[float, float] = (0.0, 1.0)) -> Box:
    """The box of (ln d, ln eps, u, v) covering [d_lo, d_hi] x [eps_lo, eps_hi] x u x v
    (u = eta1/sqrt(d), v = eta2_min/eta2; proofs/hypothesis-range.md)."""
    if not (0 <= u[0] < u[1] and 0 <= v[0] < v[1] <= 1):
        raise ValueError("need 0 <= u_lo < u_hi and 0 <= v_lo < v_hi <= 1")
    return (*log_box(d_lo, d_hi, eps_lo, eps_hi), float(u[0]), float(u[1]), float(v[0]),
            float(v[1]))  # type: ignore[return-value]
