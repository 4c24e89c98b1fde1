"""Proposition 2 for every d >= 2: A.3 reconstructed through the insertion pairing.

The text of A.3 lost its case beta~_s < 1.  This argument (proofs/prop2.md, "Every d: the
insertion pairing", steps P1-P6) covers both cases at once, for s = argmin beta~ and every
attention alpha; each link is discharged here by SymPy from model (1) and the word law as
:mod:`verify.engine.symbolic_word` writes them.  Part of :mod:`verify.results.prop2` (which
registers the check).  Write P(w) = beta~ . gamma(w) = f(w) + 1 for the prediction before the
bias, so that a negative word costs P^2/2 and a positive one (2 - P)^2/2.

P1  the pairing: a word w with k >= 1 copies of s and background z (w with its s's deleted,
    length n >= 1): P(w) = g beta~_s + (1 - g) P(z), g = gamma_s(w) in [0, 1]; and
    P(z) >= beta~_s (a softmax average of beta~ over the symbols of z, s = argmin beta~), so
    P(w) <= P(z).
P2  the law of k given z: rho(w) = rho(z) C(n+k, k) (q/d)^k (from the model's word law), and
    sum_k C(n+k, k) t^k = (1 - t)^(-(n+1)) =: S(z) for 0 <= t < 1 (t = q/d).
P3  each background z: with x = P(z) <= 2 every positive word of the fibre costs >= (2 - x)^2/2,
    and x^2/2 + (S - 1)(2 - x)^2/2 = 2(S - 1)/S + (S/2)(x - 2(S - 1)/S)^2 >= 2(S - 1)/S; with
    x > 2 the negative word alone costs x^2/2 > 2 > 2(S - 1)/S.  So the fibre costs
    >= rho(z) 2(1 - (1 - t)^(n+1)).
P4  the sum over the negative words: sum_z rho(z) u^n = G((d-1) u/d) (the count generating
    function with x_s = 0), so L_s >= B(d) = 2 (G((d-1)/d) - (1 - t) G((d-1)(1 - t)/d))
    = (d-2)(d^3 + d^2 - 4d + 4) / (d (d-1)(3d^2 - 6d + 4)).
P5  B(d) - 1/3 = 2(3d^3 - 14d^2 + 20d - 12) / (3d(d-1)(3d^2 - 6d + 4)): in d = 3 + x both
    polynomials have positive coefficients, so B(d) > 1/3 for every real d >= 3; B -> 1/3.
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
from ..engine.symbolic import p_of_d, pgf
from ..engine.symbolic_word import Letter, Rest

AT_TWO = Fraction(1, 2)  # P6: the bound at d = 2
LIMIT = Fraction(1, 3)  # P5: inf over d >= 3 of B(d), approached as d -> infinity, never attained

_d, _x, _t, _n, _k = sp.symbols("d x t n k", positive=True)


def bound_formula(dd=_d) -> sp.Expr:
    """P4's B(d) = 2 (G((d-1)/d) - (1 - t) G((d-1)(1 - t)/d)), t = q/d, from the engine's G."""
    t = (1 - p_of_d(dd)) / dd
    return 2 * (pgf((dd - 1) / dd, dd) - (1 - t) * pgf((dd - 1) * (1 - t) / dd, dd))


def bound_at(d: int) -> Fraction:
    """B(d) as an exact rational at one integer d >= 3."""
    value = sp.Rational(sp.simplify(bound_formula(sp.Integer(d))))
    return Fraction(int(value.p), int(value.q))


def link_pairing() -> bool:
    """P1: model (1) on w = (k copies of s) + z and on z (every other symbol in the sums V, U of
    :class:`~verify.engine.symbolic_word.Rest`): P(w) = g b_s + (1 - g) P(z) with
    g = k e^(a_s)/(k e^(a_s) + U) in [0, 1]; P(z) - b_s = sum_i C_i e^(a_i)(b_i - b_s)/U >= 0 by
    linearity (b_i >= b_s, s = argmin); so P(z) - P(w) = g (P(z) - b_s) >= 0."""
    k = sp.Symbol("k", positive=True)
    a, b = sp.symbols("a_s b_s", real=True)
    V, U, excess = sp.symbols("V U E", positive=True)  # E = sum_i C_i e^(a_i) (b_i - b_s) >= 0
    background = Rest(count=_n, numerator=V, denominator=U)
    P_w = symbolic_word.word_output([Letter(k, a, b)], background) + 1
    P_z = symbolic_word.word_output([], background) + 1
    g = k * sp.exp(a) / (k * sp.exp(a) + U)
    convex = sp.simplify(P_w - (g * b + (1 - g) * P_z)) == 0
    unit = bool(g.is_positive) and bool(sp.simplify(1 - g).is_positive)
    above = sp.simplify((P_z - b).subs(V, b * U + excess) - excess / U) == 0
    below = sp.simplify((P_z - P_w) - g * (P_z - b)) == 0
    return bool(convex and unit and above and below)


def link_fibre_law() -> bool:
    """P2: the model's word law with k s's added to a background (one named symbol j with count
    c, the others n0 symbols with multinomial factor F; n = c + n0) is the background's times
    C(n+k, k) (q/d)^k; and the negative binomial series sum_k C(n+k, k) t^k = (1 - t)^(-(n+1))
    for t < 1, with 0 < t = q/d < 1 for d >= 3 (d = 3 + x)."""
    F = sp.Symbol("F", positive=True)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    c, n0 = sp.symbols("c n0", integer=True, nonnegative=True)
    j = Letter(c, sp.Symbol("a_j"), sp.Symbol("b_j"))
    def law(count):  # the target named second
        return symbolic_word.word_law([j, Letter(count, sp.Symbol("a_s"), sp.Symbol("b_s"))],
                                      Rest(count=n0, factorials=F))
    t = (1 - p_of_d()) / _d
    n = c + n0
    law_ok = sp.simplify(sp.combsimp(law(k) / law(sp.Integer(0)) / (sp.binomial(n + k, k) * t ** k))) == 1
    m = sp.Symbol("m", integer=True, positive=True)
    series = sp.summation(sp.binomial(m + k, k) * _t ** k, (k, 0, sp.oo))
    branch = series.args[0] if isinstance(series, sp.Piecewise) else (series, True)
    sums = sp.simplify(branch[0] - (1 - _t) ** (-(m + 1))) == 0 and branch[1] in (sp.true, _t < 1)
    t3 = sp.simplify(t.subs(_d, 3 + _x))
    inside = bool(t3.is_positive) and bool(sp.simplify(1 - t3).is_positive)
    return bool(law_ok and sums and inside)


def fibre_minimum(S):
    """P3: min over x of x^2/2 + (S - 1)(2 - x)^2/2, the cost of one background's words in units
    of rho(z) when they all predict at most x (S = the fibre's mass over rho(z))."""
    return 2 * (S - 1) / S


def link_fibre() -> bool:
    """P3: x^2/2 + (S - 1)(2 - x)^2/2 - m = (S/2)(x - m)^2 with m = :func:`fibre_minimum` (a
    square, S >= 1); 2 - m = 2/S > 0 (the case x > 2, where the negative word alone costs
    x^2/2 > 2); m = 2(1 - (1 - t)^(n+1)) at S = (1 - t)^(-(n+1))."""
    S = sp.Symbol("S", positive=True)
    x = sp.Symbol("x", real=True)
    best = fibre_minimum(S)
    square = sp.simplify(x ** 2 / 2 + (S - 1) * (2 - x) ** 2 / 2 - best - S / 2 * (x - best) ** 2) == 0
    gap = sp.simplify(2 - best - 2 / S) == 0
    per_z = sp.simplify(fibre_minimum((1 - _t) ** (-(_n + 1))) - 2 * (1 - (1 - _t) ** (_n + 1))) == 0
    return bool(square and gap and per_z)


def link_sum() -> bool:
    """P4: the count generating function with x_s = 0 and every other x_i = u is G((d-1) u/d)
    (u = 1: P(y = -1) = 1/2; u = 1 - t: sum_z rho(z) (1 - t)^n); B(d) in closed form."""
    u = sp.Symbol("u", positive=True)
    slice_ = sp.simplify(symbolic_word.count_pgf([sp.Integer(0)], (_d - 1) * u)
                         - pgf((_d - 1) * u / _d)) == 0
    half = sp.simplify(pgf((_d - 1) / _d) - sp.Rational(1, 2)) == 0
    closed = sp.simplify(bound_formula() - (_d - 2) * (_d ** 3 + _d ** 2 - 4 * _d + 4)
                         / (_d * (_d - 1) * (3 * _d ** 2 - 6 * _d + 4))) == 0
    return bool(slice_ and half and closed)


def positive_from_three(expr: sp.Expr) -> bool:
    """expr(d) > 0 for every real d >= 3: numerator and denominator in d = 3 + x have
    non-negative coefficients and positive constant terms (or the same with both signs flipped)."""
    num, den = sp.fraction(sp.together(expr))
    signs = []
    for part in (num, den):
        coeffs = sp.Poly(sp.expand(part.subs(_d, 3 + _x)), _x).all_coeffs()
        if all(c >= 0 for c in coeffs) and coeffs[-1] > 0:
            signs.append(1)
        elif all(c <= 0 for c in coeffs) and coeffs[-1] < 0:
            signs.append(-1)
        else:
            return False
    return signs[0] == signs[1]


def link_limit() -> bool:
    """P5: B(d) > 1/3 for every real d >= 3 (:func:`positive_from_three`) and B -> 1/3."""
    B = bound_formula()
    return bool(positive_from_three(B - sp.Rational(1, 3))
                and sp.limit(B, _d, sp.oo) == sp.Rational(1, 3))


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
         ("P3 each background", link_fibre), ("P4 sum over z", link_sum),
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
               else f"c1 = {c1} is above the bound from d = {failing} on (smallest failing d = {failing}, "
                    f"B = {float(bound_at(failing)) if failing >= 3 else 0.5:.6g})")
    detail = f"{text}; for s = argmin beta~ and every alpha, L_s >= {reach}; {verdict}"
    return Outcome(case.label, bool(proved and failing is None), float(LIMIT / c1), Evidence.SYMBOLIC,
                   detail, values={"bound_d3": float(bound_at(3)), "bound_limit": float(LIMIT),
                                   "smallest_failing_d": failing if failing is not None else "none"})
