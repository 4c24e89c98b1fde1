"""Working precision: one guard-digit constant and one context for the whole engine.

Callers ask for ``dps`` correct digits; the engine computes at ``dps + GUARD_DIGITS`` inside
:func:`working`, so no caller writes ``dps + 10`` or ``workdps(30)`` by hand.

>>> import mpmath
>>> with working(15):
...     mpmath.mp.dps
25
"""
from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from typing import Iterator

import mpmath

GUARD_DIGITS = 10
MIN_DPS = 5


def check_dps(dps: object) -> int:
    """A valid decimal precision (an integer >= MIN_DPS), else ValueError."""
    if isinstance(dps, bool) or not isinstance(dps, int) or dps < MIN_DPS:
        raise ValueError(f"dps must be an integer >= {MIN_DPS}, got {dps!r}")
    return dps


@contextmanager
def working(dps: int) -> Iterator[None]:
    """Compute at ``dps`` plus the guard digits (mpmath's precision is restored on exit)."""
    with mpmath.workdps(dps + GUARD_DIGITS):
        yield


def to_mpf(x: Fraction | int | str | float) -> mpmath.mpf:
    """An exact rational (or integer, or decimal string) as an mpf at the current precision:
    numerator and denominator are divided there, never through a float."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)
