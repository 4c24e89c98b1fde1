"""One type for a computed number and what is known about its error.

The general engine (:mod:`verify.engine.general`: moments, loss, optimum) returns its values
with their errors as :class:`Estimate`; the certified engine's balls carry their radius
themselves (:mod:`verify.engine.certified.balls` turns one into an Estimate of kind
``enclosure``); the outcome helpers in ``verify.results.common`` consume them.  The ``kind`` says how much the error
is worth, and the report prints it:

* ``proven`` -- ``|true - value| <= error`` is a theorem (a proven tail bound, exact arithmetic,
  an error propagated from proven inputs);
* ``estimated`` -- ``error`` is a heuristic estimate (tanh-sinh extrapolation, agreement of two
  precisions, a step-halving difference): a good guide, not a bound;
* ``enclosure`` -- ``[lower, upper]`` comes from interval (ball) arithmetic and contains the true
  value rigorously.

>>> e = Estimate(1.0, 0.25, ErrorKind.PROVEN)
>>> (e.lower, e.upper)
(0.75, 1.25)
>>> (e + Estimate(2.0, 0.5, ErrorKind.ESTIMATED)).kind
<ErrorKind.ESTIMATED: 'estimated'>
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class ErrorKind(str, Enum):
    ENCLOSURE = "enclosure"
    PROVEN = "proven"
    ESTIMATED = "estimated"


_STRENGTH = {ErrorKind.ENCLOSURE: 0, ErrorKind.PROVEN: 1, ErrorKind.ESTIMATED: 2}


def weakest(*kinds: ErrorKind) -> ErrorKind:
    """The kind of a value computed from values of these kinds (an estimate anywhere makes the
    result an estimate; proven beats nothing but an estimate)."""
    return max(kinds, key=_STRENGTH.__getitem__)


@dataclass(frozen=True)
class Estimate:
    """``value`` with absolute error ``error`` (>= 0) of the given ``kind``.

    Works on any number type with ``+``, ``-``, ``*`` and ``abs`` (mpmath mpf, float, Fraction).
    """

    value: Any
    error: Any
    kind: ErrorKind = ErrorKind.ESTIMATED

    @property
    def lower(self) -> Any:
        return self.value - self.error

    @property
    def upper(self) -> Any:
        return self.value + self.error

    def __add__(self, other: "Estimate") -> "Estimate":
        return Estimate(self.value + other.value, self.error + other.error,
                        weakest(self.kind, other.kind))

    def __sub__(self, other: "Estimate") -> "Estimate":
        return Estimate(self.value - other.value, self.error + other.error,
                        weakest(self.kind, other.kind))

    def __neg__(self) -> "Estimate":
        return Estimate(-self.value, self.error, self.kind)

    def scale(self, factor: Any) -> "Estimate":
        """``factor * self`` for an exact ``factor``."""
        return Estimate(factor * self.value, abs(factor) * self.error, self.kind)

    @classmethod
    def exact(cls, value: Any) -> "Estimate":
        """A value known exactly (error 0, proven)."""
        return cls(value, 0 * value, ErrorKind.PROVEN)
