"""The insertion pairing: the words grouped by their background, shared by the every-d
arguments of Propositions 2 and 4 (proofs/prop2.md steps P1, P2, P4, P5; proofs/prop4.md Q1).

For a target s and a word w, the background z is w with its s's deleted (n = |z| >= 1 symbols,
k = C_s(w) copies of s).  Each function below is a SymPy link that returns whether it holds;
the checks that use them evaluate them themselves, so each check's verdict rests on its own run.

* :func:`link_pairing` — on model (1), P(w) = g beta_s + (1 - g) P(z) with g = gamma_s(w) in
  [0, 1], P = beta . gamma (the prediction before the bias); and P(z) >= beta_s when every other
  output weight is >= beta_s.
* :func:`link_fibre_law` — rho(w) = rho(z) C(n+k, k) (q/d)^k from the model's word law, and
  sum_k C(n+k, k) t^k = (1 - t)^(-(n+1)) for 0 < t = q/d < 1.
* :func:`link_group_minimum` — one background's words, all predicting at most x: x^2/2 +
  W (2 - x)^2/2 >= :func:`group_minimum` (W) = 2W/(1 + W), a completed square.
* :func:`link_background_sum` — sum over the words without s of rho(z) u^n = G((d-1) u/d),
  summed by SymPy from the law of their lengths; and the closed form of :func:`bound_formula`.
* :func:`link_limit` — B(d) > 1/3 for every real d >= 3, and B -> 1/3.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ..engine import symbolic_word
from ..engine.symbolic import p_of_d, pgf
from ..engine.symbolic_word import Letter, Rest

LIMIT = Fraction(1, 3)  # inf over d >= 3 of B(d), approached as d -> infinity, never attained

_d, _x, _t, _u = sp.symbols("d x t u", positive=True)


def bound_formula(dd=_d) -> sp.Expr:
    """B(d) = 2 (G((d-1)/d) - (1 - t) G((d-1)(1 - t)/d)), t = q/d: twice the mass of the words
    without s weighted by 1 - (1 - t)^(n+1), their background's chance of an s (P3, P4)."""
    t = (1 - p_of_d(dd)) / dd
    return 2 * (pgf((dd - 1) / dd, dd) - (1 - t) * pgf((dd - 1) * (1 - t) / dd, dd))


def bound_at(d: int) -> Fraction:
    """B(d) as an exact rational at one integer d >= 3."""
    value = sp.Rational(sp.simplify(bound_formula(sp.Integer(d))))
    return Fraction(int(value.p), int(value.q))


def link_pairing() -> bool:
    """On model (1) with k copies of s added to a background of two named symbols (output weights
    b_s + e_1, b_s + e_2, e_i >= 0) and the rest (softmax sums V = b_s U_r + E_r, U_r; E_r =
    sum C_i e^(a_i)(b_i - b_s) >= 0 over the rest): P(w) - P(z) = g (b_s - P(z)) with
    g = k e^(a_s)/(k e^(a_s) + U) in (0, 1), and P(z) - b_s >= 0 (SymPy's sign inference: a
    ratio of sums of products of non-negatives)."""
    k = sp.Symbol("k", positive=True)
    a_s, b_s, a1, a2 = sp.symbols("a_s b_s a_1 a_2", real=True)
    c1 = sp.Symbol("c_1", positive=True)  # z is not empty: name one of its symbols
    c2, e1, e2, U_r, E_r, n_r = sp.symbols("c_2 e_1 e_2 U_r E_r n_r", nonnegative=True)
    named = [Letter(c1, a1, b_s + e1), Letter(c2, a2, b_s + e2)]
    rest = Rest(count=n_r, numerator=b_s * U_r + E_r, denominator=U_r)
    P_z = symbolic_word.word_output(named, rest) + 1
    P_w = symbolic_word.word_output([Letter(k, a_s, b_s), *named], rest) + 1
    U = c1 * sp.exp(a1) + c2 * sp.exp(a2) + U_r
    g = k * sp.exp(a_s) / (k * sp.exp(a_s) + U)
    moves = sp.simplify(P_w - P_z - g * (b_s - P_z)) == 0
    unit = bool(g.is_nonnegative) and bool(sp.simplify(1 - g).is_nonnegative)
    above = sp.factor(sp.simplify(P_z - b_s))
    return bool(moves and unit and above.is_nonnegative)


def link_fibre_law() -> bool:
    """The model's word law with k s's added to a background (one named symbol j with count c,
    the others n0 symbols with multinomial factor F; n = c + n0) is the background's times
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


def group_minimum(W):
    """min over x of x^2/2 + W (2 - x)^2/2: one background's words in units of rho(z), the
    negative word at x and positive words of total weight W predicting at most x (x <= 2)."""
    return 2 * W / (1 + W)


def link_group_minimum() -> bool:
    """x^2/2 + W (2 - x)^2/2 - m = ((1 + W)/2)(x - m)^2 with m = :func:`group_minimum` (W) (a
    square, W >= 0), and 2 - m = 2/(1 + W) > 0 (the case x > 2, where the negative word alone
    costs x^2/2 > 2 > m)."""
    x = sp.Symbol("x", real=True)
    W = sp.Symbol("W", nonnegative=True)
    best = group_minimum(W)
    square = sp.simplify(x ** 2 / 2 + W * (2 - x) ** 2 / 2 - best - (1 + W) / 2 * (x - best) ** 2) == 0
    gap = sp.simplify(2 - best - 2 / (1 + W)) == 0
    return bool(square and gap)


def link_background_sum() -> bool:
    """The words without s of length n have mass p q^(n-1) ((d-1)/d)^n ((d-1)^n sequences, each
    p q^(n-1) d^-n by the word law; counting the sequences is standard); SymPy sums
    sum_n p q^(n-1) ((d-1) u/d)^n to G((d-1) u/d) for 0 < u <= 1 (d = 3 + x), which is 1/2 at
    u = 1; and B(d) in closed form."""
    n = sp.Symbol("n", integer=True, positive=True)
    p = p_of_d(3 + _x)
    one = symbolic_word.word_law([Letter(n, sp.Symbol("a_j"), sp.Symbol("b_j")),
                                  Letter(sp.Integer(0), sp.Symbol("a_s"), sp.Symbol("b_s"))], dd=3 + _x)
    sequence = sp.simplify(sp.combsimp(one - p * (1 - p) ** (n - 1) * (3 + _x) ** (-n))) == 0
    u = sp.Symbol("u", positive=True)
    series = sp.piecewise_fold(sp.summation(p * (1 - p) ** (n - 1) * ((2 + _x) * u / (3 + _x)) ** n,
                                            (n, 1, sp.oo)))
    value, condition = series.args[0] if isinstance(series, sp.Piecewise) else (series, sp.true)
    summed = sp.simplify(value - pgf((2 + _x) * u / (3 + _x), 3 + _x)) == 0
    converges = sp.simplify(condition.subs(u, 1)) == sp.true  # and so for every u <= 1
    half = sp.simplify(pgf((_d - 1) / _d) - sp.Rational(1, 2)) == 0
    closed = sp.simplify(bound_formula() - (_d - 2) * (_d ** 3 + _d ** 2 - 4 * _d + 4)
                         / (_d * (_d - 1) * (3 * _d ** 2 - 6 * _d + 4))) == 0
    return bool(sequence and summed and converges and half and closed)


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
    """B(d) > 1/3 for every real d >= 3 (:func:`positive_from_three`) and B -> 1/3."""
    B = bound_formula()
    return bool(positive_from_three(B - sp.Rational(1, 3)) and sp.limit(B, _d, sp.oo) == sp.Rational(1, 3))
