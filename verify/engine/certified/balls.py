"""Arb balls: precision, the context of the shared kernels (:data:`verify.engine.context.ARB`),
and conversions at the boundary."""
from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Iterator

from flint import arb, ctx

from ..context import ARB
from ..estimate import ErrorKind, Estimate


@contextmanager
def precision(bits: int) -> Iterator[None]:
    """Work at ``bits`` bits of Arb precision (restored on exit)."""
    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old


def bits_for(dps: int) -> int:
    """Bits for ``dps`` decimal digits plus guard bits."""
    return int(dps * 3.33) + 32


def interval(lo, hi) -> arb:
    """The ball that contains ``[lo, hi]`` (numbers exact as floats, ints or Fractions)."""
    return ARB.number(lo).union(ARB.number(hi))


def as_estimate(x: arb) -> Estimate:
    """A ball as an :class:`Estimate` of kind ENCLOSURE (midpoint and radius as arb)."""
    return Estimate(x.mid(), x.rad(), ErrorKind.ENCLOSURE)


def outward(x: arb) -> tuple[float, float]:
    """(lower, upper) of a ball as floats rounded outward; (-inf, inf) for a ball that is not
    finite (nothing enclosed)."""
    if not x.is_finite():
        return -math.inf, math.inf
    lo, hi = float(x.lower()), float(x.upper())
    if not arb(lo) <= x.lower():
        lo = math.nextafter(lo, -math.inf)
    if not arb(hi) >= x.upper():
        hi = math.nextafter(hi, math.inf)
    return lo, hi
