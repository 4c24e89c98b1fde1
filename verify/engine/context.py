"""Number contexts: what a kernel needs from a number type, in the manner of mpmath's mp/fp/iv.

A kernel of the engine is written once as plain arithmetic (``+ - * /``, integer powers) over a
context ``ctx``; the context supplies the rest: numbers at its precision (``ctx.number``,
``ctx.zero``, ``ctx.one``), ``exp``, ``expm1``, ``log``, ``sqrt`` and, for enclosures, ``meet``
(the intersection of two enclosures of one number).  The routes of the engine differ only in the
context they pass:

* :data:`MP`: mpmath ``mpf`` at the working precision (:mod:`verify.engine.precision`): the
  symmetric engine (:mod:`verify.engine.expectations`) and the general one's mpmath backend;
* :data:`FP`: float64, scalars or numpy arrays: the searches' path (the general engine's
  trapezoid rule, :mod:`verify.engine.general.backends`);
* :data:`ARB`: python-flint Arb balls at ``flint.ctx.prec``: the certified engine
  (:mod:`verify.engine.certified`), its (d, eps), 4-D and ratio boxes;
* ``DUAL`` (:mod:`verify.engine.certified.dual`): first-order duals over Arb balls, the centred
  form over a box (it meets enclosures with :data:`ARB`'s ``meet``).

The shared kernels written against a context are in :mod:`verify.engine.formulas` (pgf terms,
break points, the Phase-3 system, softmax over counts) and :mod:`verify.engine.general.kernels`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

import mpmath
from mpmath.libmp import fnone, mpf_add, mpf_exp, mpf_pos

if TYPE_CHECKING:
    from flint import arb


@dataclass(frozen=True)
class Context:
    """A number type for the kernels: ``number`` (an int, Fraction, string or the type itself ->
    the type, at the working precision), the elementary functions, and ``meet`` (None for point
    types: two values of one number have nothing to intersect)."""

    name: str
    number: Callable[[Any], Any]
    exp: Callable[[Any], Any]
    expm1: Callable[[Any], Any]
    log: Callable[[Any], Any]
    sqrt: Callable[[Any], Any]
    meet: Callable[[Any, Any], Any] | None = None

    @cached_property
    def zero(self) -> Any:
        """0, exact in every number type: formed once (the kernels ask for it at every node)."""
        return self.number(0)

    @cached_property
    def one(self) -> Any:
        """1, exact in every number type: formed once."""
        return self.number(1)


def _ball(x):
    """int, Fraction, str, arb or acb -> a ball (a Fraction exactly: numerator / denominator)."""
    from flint import acb, arb

    if isinstance(x, (arb, acb)):
        return x
    if isinstance(x, Fraction):
        return arb(x.numerator) / x.denominator
    return arb(x)


def meet_balls(a: arb, b: arb) -> arb:
    """Two enclosures of one number: their intersection (a non-finite one is dropped; disjoint
    ones are a defect of the code that formed them, never a property of the number).

    >>> from flint import arb
    >>> x = meet_balls(arb(1, 1), arb(2, 1))  # [0, 2] and [1, 3]
    >>> x.contains(arb(1.5)), x.contains(arb(0.9))
    (True, False)
    """
    if not a.is_finite():
        return b
    if not b.is_finite():
        return a
    if not a.overlaps(b):
        raise ArithmeticError("two enclosures of one quantity are disjoint")
    return a.intersection(b)


def _numpy(name: str) -> Callable[[Any], Any]:
    """numpy's ufunc ``name``, imported on first use (numpy and python-flint load only with the
    routes that use them: a cold `verify eval` on the mpmath route loads neither)."""
    def ufunc(x):
        import numpy

        return getattr(numpy, name)(x)

    return ufunc


def mp_expm1(x) -> mpmath.mpf:
    """``mpmath.expm1(x)`` for a real x, bit for bit, at half its cost (the moment integrands
    call it twice per node).  mpmath 1.3 forms ``exp(x) - 1`` at 25 bits above the working
    precision, with more while the subtraction cancels, and rounds to the working precision;
    this is the same arithmetic on mpmath's low-level numbers, without its generic wrappers and
    its summation loop.  Zero and |x| < 2^-(prec+10) go to mpmath.expm1 itself
    (``tests/test_context.py`` compares the two at many precisions and magnitudes)."""
    x = mpmath.mp.convert(x)
    prec, v = mpmath.mp.prec, x._mpf_
    if not v[1] or v[2] + v[3] < -prec - 10:  # zero, a special value, or tiny
        return mpmath.expm1(x)
    extra = 10
    while True:
        wp = prec + extra + 15
        e = mpf_exp(v, wp, "n")
        s = mpf_add(e, fnone, wp, "n")
        cancelled = max(e[2] + e[3], 1) - (s[2] + s[3] if s[1] else -math.inf)
        if cancelled < extra:
            return mpmath.mpf(mpf_pos(s, prec, "n"))
        extra += min(wp, cancelled)


MP = Context("mpmath", mpmath.mpf, mpmath.exp, mp_expm1, mpmath.log, mpmath.sqrt)
FP = Context("float64", float, _numpy("exp"), _numpy("expm1"), _numpy("log"), _numpy("sqrt"))
ARB = Context("arb", _ball, lambda x: x.exp(), lambda x: x.expm1(), lambda x: x.log(),
              lambda x: x.sqrt(), meet_balls)
