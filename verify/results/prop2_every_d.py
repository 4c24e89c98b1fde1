"""Proposition 2 for every d >= 2: A.3 reconstructed through the insertion pairing.

The text of A.3 lost its case beta~_s < 1.  This argument (proofs/prop2.md, "Every d: the
insertion pairing", steps P1-P6) covers both cases at once, for s = argmin beta~ and every
attention alpha.  Its identities are checked by SymPy from model (1) and the word law as
:mod:`verify.engine.symbolic_word` writes them (P1, P2, P4, P5 in :mod:`.insertion`, shared with
Proposition 4); the inequalities between them rest on the standard facts proofs/prop2.md names
(a square is >= 0; squares increase on [0, inf); grouping a sum by a function of its terms).
Part of :mod:`verify.results.prop2` (which registers the check).  Write P(w) = beta~ . gamma(w)
= f(w) + 1, so that a negative word costs P^2/2 and a positive one (2 - P)^2/2.

P1  the pairing: a word w with k >= 1 copies of s and background z (n >= 1 symbols):
    P(w) = g beta~_s + (1 - g) P(z), g = gamma_s(w) in [0, 1], and P(z) >= beta~_s
    (s = argmin beta~), so P(w) <= P(z).
P2  rho(w) = rho(z) C(n+k, k) (q/d)^k, and sum_k C(n+k, k) t^k = (1 - t)^(-(n+1)) =: S(z).
P3  each background z: with x = P(z) <= 2 every positive word of the group costs >= (2 - x)^2/2,
    and x^2/2 + (S - 1)(2 - x)^2/2 = 2(S - 1)/S + (S/2)(x - 2(S - 1)/S)^2 >= 2(S - 1)/S; with
    x > 2 the negative word alone costs x^2/2 > 2 > 2(S - 1)/S.  So the group costs
    >= rho(z) 2(1 - (1 - t)^(n+1)).
P4  sum_z rho(z) u^n = G((d-1) u/d), so L_s >= B(d) = 2 (G((d-1)/d) - (1 - t) G((d-1)(1 - t)/d))
    = (d-2)(d^3 + d^2 - 4d + 4) / (d (d-1)(3d^2 - 6d + 4)).
P5  B(d) > 1/3 for every real d >= 3; B -> 1/3.
P6  d = 2: every word has length 1 (q = 0), each symbol with probability 1/2, so
    L_s = ((2 - b_s)^2 + b_j^2)/4 with b_j >= b_s; and (2 - b)^2 + b^2 - 2 = 2(b - 1)^2 >= 0
    gives L_s >= 1/2 (b_s >= 0; b_s < 0 gives (2 - b_s)^2/4 > 1).
"""
from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp

from ..checks import Case, Constants, Evidence, Outcome
from ..engine import symbolic_word
from ..engine.symbolic_word import Letter
from . import insertion
from .insertion import (LIMIT, bound_at, bound_formula, link_background_sum, link_fibre_law,
                        link_limit, link_pairing)

AT_TWO = Fraction(1, 2)  # P6: the bound at d = 2

_d, _t, _n = sp.symbols("d t n", positive=True)


def link_fibre() -> bool:
    """P3: the group minimum (:func:`.insertion.link_group_minimum`) with W = S - 1 positive
    words per negative one is 2(S - 1)/S = 2(1 - (1 - t)^(n+1)) at S = (1 - t)^(-(n+1))."""
    S = (1 - _t) ** (-(_n + 1))
    per_z = sp.simplify(insertion.group_minimum(S - 1) - 2 * (1 - (1 - _t) ** (_n + 1))) == 0
    return bool(insertion.link_group_minimum() and per_z)


def link_two() -> bool:
    """P6: at d = 2 the law gives each one-letter word 1/2 and every longer word 0 (q = 0), and
    (2 - b)^2 + b^2 - 2 = 2 (b - 1)^2."""
    def law(first: int, second: int):
        return symbolic_word.word_law([Letter(sp.Integer(first), sp.Symbol("a_j"), sp.Symbol("b_j")),
                                       Letter(sp.Integer(second), sp.Symbol("a_s"), sp.Symbol("b_s"))],
                                      dd=sp.Integer(2))
    single = law(1, 0) == sp.Rational(1, 2) and law(0, 1) == sp.Rational(1, 2)
    longer = all(law(m, 0) == 0 and law(0, m) == 0 and law(1, m - 1) == 0 for m in (2, 3, 4))
    b = sp.Symbol("b", real=True)
    square = sp.expand((2 - b) ** 2 + b ** 2 - 2 - 2 * (b - 1) ** 2) == 0
    return bool(single and longer and square)


LINKS = (("P1 pairing", link_pairing), ("P2 law of k given z", link_fibre_law),
         ("P3 each background", link_fibre), ("P4 sum over z", link_background_sum),
         ("P5 B(d) > 1/3", link_limit), ("P6 d = 2", link_two))


def smallest_failing_d(c1: Fraction) -> int | None:
    """The smallest integer d >= 2 at which the route's bound is below c1 (None if none): d = 2
    has 1/2; for d >= 3 the bound is B(d), which tends to 1/3 from above, so a c1 > 1/3 fails
    from some d on (the real roots of B - c1 bound where)."""
    if c1 > AT_TWO:
        return 2
    if c1 <= LIMIT:
        return None
    num, _ = sp.fraction(sp.together(bound_formula() - sp.Rational(c1.numerator, c1.denominator)))
    roots = [r for r in sp.Poly(sp.expand(num), _d).real_roots() if r >= 3]
    d = 3
    for r in sorted(roots) + [None]:
        if bound_at(d) < c1:
            return d
        if r is None:
            break
        d = max(d, math.floor(r) + 1)  # the sign can change only at a root
    return d


def judge_every_d(case: Case, constants: Constants) -> Outcome:
    """prop2.every_d: every link P1-P6 proved, and c1 <= 1/3 (so c1 < B(d) for every d >= 3)
    and c1 <= 1/2 (d = 2); otherwise the smallest failing d."""
    c1 = Fraction(constants["prop2.c1"])
    links = [(name, bool(fn())) for name, fn in LINKS]
    failing = smallest_failing_d(c1)
    proved = all(ok for _, ok in links)
    text = "; ".join(f"{name}: {ok}" for name, ok in links)
    reach = (f"B(d) = (d-2)(d^3+d^2-4d+4)/(d(d-1)(3d^2-6d+4)) > 1/3 for every d >= 3 "
             f"(B(3) = {float(bound_at(3)):.4f}, B(5) = {float(bound_at(5)):.4f}, B -> 1/3) and 1/2 at d = 2")
    verdict = (f"c1 = {c1} <= 1/3: proved for every d >= 2" if failing is None
               else f"c1 = {c1} is above the bound at d = {failing} (the smallest failing d; bound there "
                    f"{float(bound_at(failing)) if failing >= 3 else 0.5:.6g})")
    detail = f"{text}; for s = argmin beta~ and every alpha, L_s >= {reach}; {verdict}"
    return Outcome(case.label, bool(proved and failing is None), float(LIMIT / c1), Evidence.SYMBOLIC,
                   detail, values={"bound_d3": float(bound_at(3)), "bound_limit": float(LIMIT),
                                   "smallest_failing_d": failing if failing is not None else "none"})
