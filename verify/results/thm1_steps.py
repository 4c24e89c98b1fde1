"""Theorem 1's surviving proof steps of A.6, proved by SymPy for the whole range of d: the
insertion ratio, the appearance probability, the mass of long negative words and the final
constant (once exactly, once along the paper's chain).  Part of :mod:`verify.results.thm1`
(which registers these checks with its measured floor)."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from ..checks import Case, Check, Constants, Evidence, Outcome
from ..engine.precision import to_mpf
from .common import rational, single_case

_d, _m, _k, _j = sp.symbols("d m k j", nonnegative=True)
_x = sp.Symbol("x", positive=True)


def nonneg_poly(expr, *symbols) -> bool:
    """True when expr, expanded as a polynomial in non-negative symbols, has only non-negative
    coefficients (hence is >= 0 on the whole orthant)."""
    poly = sp.Poly(sp.expand(expr), *symbols)
    return all(c >= 0 for c in poly.coeffs())


def insertion_words(z: tuple, s: int) -> set:
    """The set Z(z): every word obtained by inserting one s anywhere into z."""
    return {z[:i] + (s,) + z[i:] for i in range(len(z) + 1)}


def insertion_ratio(d: int, z: tuple, s: int) -> sp.Rational:
    """rho(Z(z))/rho(z), exactly, from the distribution module's word probabilities."""
    from ..engine.distribution import WordDistribution

    dist = WordDistribution(d)
    total = sum(dist.word_probability(w) for w in insertion_words(z, s))
    return sp.Rational(total / dist.word_probability(z))


def insertion_ratio_formula() -> sp.Expr:
    """rho(Z(z))/rho(z) = (m + 1) q/d: each of the m + 1 insertions is a distinct word (s occurs
    once in it, at the insertion point) of probability rho(z) q/d."""
    d, m = _d, _m
    p = 1 / (d - 1)
    q = 1 - p
    rho = lambda length: p * q ** (length - 1) / d**length  # noqa: E731
    return sp.simplify((m + 1) * rho(m + 1) / rho(m))


def _judge_insertion(case: Case, constants: Constants) -> Outcome:
    ratio = insertion_ratio_formula()
    # slack (m+1) q/d - 1/2 with d = 3 + k, m = d + j: numerator polynomial in k, j >= 0
    slack = sp.together(ratio.subs({_m: _d + _j}).subs({_d: 3 + _k}) - sp.Rational(1, 2))
    num, den = sp.fraction(sp.factor(slack))
    proved = (nonneg_poly(num, _k, _j) and nonneg_poly(den, _k, _j)
              and sp.Poly(num, _k, _j).coeffs()[-1] > 0)
    # cross-check of the count and the ratio on every negative word of small length (exact), and
    # of the disjointness the sum over z uses: deleting the one s of z' gives back z, so the sets
    # {z} u Z(z) of different negative z never meet (a hand proof; enumerated here)
    import itertools
    brute = disjoint = True
    for d in (3, 4):
        for m in range(d, d + 2):
            seen: set = set()
            for z in itertools.product(range(1, d), repeat=m):  # s = 0 absent
                Z = insertion_words(z, 0)
                if len(Z) != m + 1 or insertion_ratio(d, z, 0) != ratio.subs({_d: d, _m: m}):
                    brute = False
                if seen & Z or any(tuple(a for a in w if a != 0) != z for w in Z):
                    disjoint = False
                seen |= Z
    return Outcome(case.label, bool(proved and brute and disjoint), None, Evidence.SYMBOLIC,
                   f"rho(Z)/rho(z) = {sp.sstr(ratio)}; with d = 3+k, m = d+j: "
                   f"ratio - 1/2 = ({sp.sstr(sp.expand(num))})/({sp.sstr(den)}) >= 0; "
                   f"exact enumeration d = 3, 4, m = d, d+1 agrees: {brute}; the sets Z(z) are "
                   f"disjoint and deleting s inverts the insertion there (hand proof, "
                   f"enumerated): {disjoint}")


def appearance_probability() -> sp.Expr:
    """1 - (1 - 1/(d-1))^(d/2): the chance that a fixed background symbol occurs among d/2
    background draws (A.6, case max a_i >= d/2), as an expression in d."""
    return 1 - (1 - 1 / (_d - 1)) ** (_d / 2)


def _judge_appearance(case: Case, constants: Constants) -> Outcome:
    """1 - (1 - 1/(d-1))^(d/2) >= 1 - e^(-1/2) >= 1/8 for d >= 3.

    Links: ln(1 - x) <= -x (h(x) = -x - ln(1-x) has h(0) = 0, h' = x/(1-x) >= 0), so
    (d/2) ln(1 - 1/(d-1)) <= -d/(2(d-1)) = -1/2 - 1/(2(d-1)) <= -1/2; and e^(-1/2) <= 7/8."""
    h = -_x - sp.log(1 - _x)
    link1 = sp.simplify(sp.diff(h, _x) - _x / (1 - _x)) == 0 and h.subs(_x, 0) == 0
    expo = sp.simplify(_d / (2 * (_d - 1)) - sp.Rational(1, 2))  # 1/(2(d-1)) >= 0
    link2 = sp.simplify(expo - 1 / (2 * (_d - 1))) == 0
    link3 = bool(sp.exp(sp.Rational(-1, 2)) <= sp.Rational(7, 8))
    # m >= d >= d/2: (1 - 1/(d-1))^m <= (1 - 1/(d-1))^(d/2) since 0 < 1 - 1/(d-1) < 1 (d = 3 + k:
    # (k+1)/(k+2) and 1/(k+2), positive)
    r = sp.factor(sp.together((1 - 1 / (_d - 1)).subs(_d, 3 + _k)))
    link0 = all(nonneg_poly(part, _k) and sp.Poly(part, _k).eval(0) > 0
                for e in (r, 1 - r) for part in sp.fraction(sp.factor(sp.together(e))))
    value = 1 - sp.exp(sp.Rational(-1, 2))
    # numeric confirmation on a dense range (the exact quantity, not the chain)
    exact = sp.lambdify(_d, appearance_probability(), "mpmath")
    worst = min(exact(mpmath.mpf(d)) for d in range(3, 2001))
    proved = link0 and link1 and link2 and link3 and worst >= mpmath.mpf(1) / 8
    return Outcome(case.label, bool(proved), float(value - sp.Rational(1, 8)), Evidence.SYMBOLIC,
                   f"P(the maximiser occurs in z | |z| = m >= d) = 1 - (1 - 1/(d-1))^m >= "
                   f"1 - (1 - 1/(d-1))^(d/2) (0 < 1 - 1/(d-1) < 1: {link0}) >= 1 - e^(-1/2) = "
                   f"{float(value):.5f} >= 1/8; min over d = 3..2000 of the exact "
                   f"quantity {mpmath.nstr(worst, 6)}", margin_kind="difference")


def in_unit_interval(r: sp.Expr, start: int = 3) -> bool:
    """0 < r(d) < 1 for every d >= start: with d = start + k, r and 1 - r are quotients of
    polynomials in k >= 0 with non-negative coefficients and a positive constant term."""
    proved = True
    for expr in (r, 1 - r):
        num, den = sp.fraction(sp.factor(sp.together(expr.subs(_d, start + _k))))
        for part in (num, den):
            poly = sp.Poly(sp.expand(part), _k)
            proved &= nonneg_poly(part, _k) and poly.eval(0) > 0
    return bool(proved)


def series_ratio() -> tuple[sp.Expr, bool]:
    """(r, proved): the ratio r = q (d-1)/d of the geometric series in the word length, and
    whether 0 < r < 1 is proved for every d >= 3 (:func:`in_unit_interval`): SymPy simplifies r
    to (d-2)/d; with d = 3 + k, r = (k+1)/(k+3) and 1 - r = 2/(k+3)."""
    r = (1 - 1 / (_d - 1)) * (_d - 1) / _d
    same = sp.simplify(r - (_d - 2) / _d) == 0
    return sp.simplify(r), bool(same and in_unit_interval(r))


def long_negative_mass() -> sp.Expr:
    """P(y = -1, |w| >= d) by SymPy summation of the geometric series in the length.

    SymPy returns the closed form under the condition r < 1; :func:`series_ratio` proves
    0 < r < 1 for every d >= 3, so the closed form holds on the whole range (no point checks).
    Raises ArithmeticError if SymPy's condition is anything else or the proof fails."""
    d, m = _d, sp.Symbol("m", integer=True, positive=True)
    r = sp.Symbol("r", positive=True)
    p = 1 / (d - 1)
    q = 1 - p
    # sum_{m >= d} p q^(m-1) ((d-1)/d)^m = p (d-1)/d sum_{m >= d} r^(m-1), r = q (d-1)/d
    series = sp.piecewise_fold(sp.summation(r ** (m - 1), (m, d, sp.oo)))
    closed = series
    if isinstance(series, sp.Piecewise):  # (closed form, condition), (unevaluated sum, True)
        closed, condition = series.args[0]
        value, proved = series_ratio()
        if condition not in (r < 1, sp.Abs(r) < 1) or not proved:
            raise ArithmeticError(f"convergence condition {condition} not proved for all d >= 3")
    return sp.simplify(p * (d - 1) / d * closed.subs(r, q * (d - 1) / d))


def _judge_long_mass(case: Case, constants: Constants) -> Outcome:
    """The closed form (proved for every d >= 3, :func:`long_negative_mass`) equals
    1/2 (1 - 2/d)^(d-1) (SymPy, no point checks); an independent route at d = 9: the exact
    partial sum of the series with a bound on its tail."""
    try:
        mass = long_negative_mass()
    except ArithmeticError as exc:
        return Outcome(case.label, None, None, Evidence.SYMBOLIC, f"not proved: {exc}")
    target = sp.Rational(1, 2) * (1 - 2 / _d) ** (_d - 1)
    r, ratio_ok = series_ratio()
    same = sp.simplify(mass / target) == 1
    d = 9
    p, q = sp.Rational(1, d - 1), 1 - sp.Rational(1, d - 1)
    partial = sum(p * q ** (m - 1) * sp.Rational(d - 1, d) ** m for m in range(d, d + 400))
    tail = sp.Rational(1, 2) * (1 - sp.Rational(2, d)) ** (d + 399) * 2  # crude: geometric tail
    numeric = abs(partial - target.subs(_d, d)) <= tail
    return Outcome(case.label, bool(same and ratio_ok and numeric), None, Evidence.SYMBOLIC,
                   f"ratio r = q(d-1)/d = {sp.sstr(r)} in (0, 1) for every d >= 3 (proved: "
                   f"{ratio_ok}); sum_(m>=d) p q^(m-1) ((d-1)/d)^m = {sp.sstr(mass)} = "
                   f"1/2 (1-2/d)^(d-1) (SymPy: {same}); partial sum at d = 9 agrees within its "
                   f"tail: {bool(numeric)}")


def exact_floor_constant() -> sp.Rational:
    """min over d >= 9 of (1/256)(1 - 2/d)^(d-1) = (7/9)^8/256 (the expression increases in d)."""
    return sp.Rational(7, 9) ** 8 / 256


def _increasing() -> bool:
    """(d-1) ln(1 - 2/d) increases in d: with x = 2/d its d-derivative is
    phi(x) = ln(1-x) + x(1 - x/2)/(1-x), phi(0) = 0, phi'(x) = x^2/(2(1-x)^2) >= 0."""
    deriv = sp.diff((_d - 1) * sp.log(1 - 2 / _d), _d)
    phi = sp.log(1 - _x) + _x * (1 - _x / 2) / (1 - _x)
    same = sp.simplify(deriv - phi.subs(_x, 2 / _d)) == 0
    dphi = sp.simplify(sp.diff(phi, _x) - _x**2 / (2 * (1 - _x) ** 2)) == 0
    return bool(same and dphi and phi.subs(_x, 0) == 0)


def _judge_rho_bound(case: Case, constants: Constants) -> Outcome:
    """(1/256)(1 - 2/d)^(d-1) >= c3 for every d >= 9, exactly: the expression increases in d, so
    it holds iff c3 <= (7/9)^8/256 (about 1/1911.6)."""
    c3 = rational(constants["thm1.c3"])
    best = exact_floor_constant()
    mono = _increasing()
    if c3 <= best:
        return Outcome(case.label, mono, float(best / c3), Evidence.SYMBOLIC,
                       f"min_(d>=9) (1/256)(1-2/d)^(d-1) = (7/9)^8/256 = 1/{float(1 / best):.1f} "
                       f">= c3 = {c3} (increasing in d: {mono})")
    # the failing range: d from 9 up to the largest d with the expression < c3
    limit = sp.exp(-2) / 256
    if c3 >= limit:
        top = "every d >= 9"
    else:
        lo, hi = 9, 10
        while (1 - sp.Rational(2, hi)) ** (hi - 1) / 256 < c3:
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if (1 - sp.Rational(2, mid)) ** (mid - 1) / 256 < c3:
                lo = mid
            else:
                hi = mid
        top = f"d = 9..{lo}"
    return Outcome(case.label, False, float(best / c3), Evidence.SYMBOLIC,
                   f"FAILS for {top} (smallest d = 9): (1/256)(7/9)^8 = 1/{float(1 / best):.1f} "
                   f"< c3 = {c3}", values={"smallest_failing_d": 9, "failing": top})


def _judge_chain(case: Case, constants: Constants) -> Outcome:
    """The paper's chain for the last inequality of A.6, link by link, against the configured c3:
    (d-1) ln(1-2/d) >= -2(d-1)/(d-2) [ln(1-x) >= -x/(1-x)] >= -16/7 [d >= 9] > -3, e^-3 > 1/27,
    so (1/256)(1-2/d)^(d-1) > 1/(256*27) = 1/6912 >= c3.  The chain gives at best
    e^(-2(d-1)/(d-2))/256 at each d; a larger c3 fails where that is below it."""
    c3 = rational(constants["thm1.c3"])
    h = sp.log(1 - _x) + _x / (1 - _x)  # >= 0: h(0) = 0, h' = x/(1-x)^2
    link1 = sp.simplify(sp.diff(h, _x) - _x / (1 - _x) ** 2) == 0 and h.subs(_x, 0) == 0
    sub = sp.simplify((_d - 1) * (-(2 / _d) / (1 - 2 / _d)) + 2 * (_d - 1) / (_d - 2)) == 0
    slack2 = sp.together((sp.Rational(16, 7) - 2 * (_d - 1) / (_d - 2)).subs(_d, 9 + _k))
    num2, den2 = sp.fraction(sp.factor(slack2))
    link2 = nonneg_poly(num2, _k) and nonneg_poly(den2, _k)
    link3 = bool(sp.Rational(-16, 7) > -3) and bool(sp.exp(-3) > sp.Rational(1, 27))
    links = bool(link1 and sub and link2 and link3)
    paper = sp.Rational(1, 6912)
    strongest = sp.exp(sp.Rational(-16, 7)) / 256  # the chain's uniform bound before -3
    if bool(c3 <= strongest):
        return Outcome(case.label, links, float(strongest / c3), Evidence.SYMBOLIC,
                       f"links hold: {links}; the chain gives e^(-16/7)/256 = "
                       f"1/{float(1 / strongest):.1f} >= c3 = {c3} for every d >= 9 (the text "
                       f"relaxes it to 1/6912 via e^-3 > 1/27: {bool(paper <= strongest)})")
    # e^(-2(d-1)/(d-2))/256 < c3 iff 2(d-1)/(d-2) > L := ln(1/(256 c3)); 2(d-1)/(d-2) decreases
    # to 2, so the failing d are all d >= 9 when L <= 2, else the d < (2L - 2)/(L - 2)
    with mpmath.workdps(40):
        L = -mpmath.log(256 * to_mpf(constants["thm1.c3"]))
        if L <= 2:
            where, first = "every d >= 9", 9
        else:
            top = int(mpmath.ceil((2 * L - 2) / (L - 2))) - 1
            while top >= 9 and not 2 * mpmath.mpf(top - 1) / (top - 2) > L:
                top -= 1
            where, first = (f"d = 9..{top}", 9) if top >= 9 else ("no d >= 9 (only the link e^-3 > 1/27)", None)
    return Outcome(case.label, False, float(paper / c3), Evidence.SYMBOLIC,
                   f"the paper's chain does not reach c3 = {c3} > 1/6912: its per-d bound "
                   f"e^(-2(d-1)/(d-2))/256 is below c3 for {where} (smallest d = {first}); "
                   f"the exact bound is thm1.rho_bound",
                   values={"failing": where, **({"smallest_failing_d": first} if first else {})})


def words_of_s_mass() -> sp.Expr:
    """P(w = s s ... s) = sum_(m >= 1) p q^(m-1) d^(-m) by SymPy summation of the geometric series
    in the length, under its condition r = q/d < 1, which :func:`in_unit_interval` proves for
    every d >= 3.  Raises ArithmeticError if SymPy's condition is anything else."""
    m = sp.Symbol("m", integer=True, positive=True)
    r = sp.Symbol("r", positive=True)
    p = 1 / (_d - 1)
    q = 1 - p
    series = sp.piecewise_fold(sp.summation(r ** (m - 1), (m, 1, sp.oo)))
    closed = series
    if isinstance(series, sp.Piecewise):
        closed, condition = series.args[0]
        if condition not in (r < 1, sp.Abs(r) < 1) or not in_unit_interval(q / _d):
            raise ArithmeticError(f"convergence condition {condition} not proved for all d >= 3")
    return sp.simplify(p / _d * closed.subs(r, q / _d))


def large_output_slack(bound: sp.Rational) -> sp.Expr:
    """(1/2)(d/4 - 2)^2 P(w = s...s) - bound with d = 9 + k, as one fraction in k."""
    d = 9 + _k
    return sp.factor(sp.together(sp.Rational(1, 2) * (d / 4 - 2) ** 2 / (d**2 - 2 * d + 2) - bound))


def _judge_large_output(case: Case, constants: Constants) -> Outcome:
    """The case beta_s > d/4 of A.6, for every attention and every d >= 9: on the words made only
    of s, gamma_s = 1 whatever alpha is, so f = beta_s - 1, y = +1 and l = (beta_s - 2)^2/2, which
    exceeds (d/4 - 2)^2/2 when beta_s > d/4 >= 2; those words have probability 1/(d^2 - 2d + 2),
    and (1/2)(d/4 - 2)^2/(d^2 - 2d + 2) >= c_large_output (equality at d = 9 for 1/2080)."""
    bound = rational(constants["thm1.c_large_output"])
    try:
        mass = words_of_s_mass()
    except ArithmeticError as exc:
        return Outcome(case.label, None, None, Evidence.SYMBOLIC, f"not proved: {exc}")
    links = dict(mass=sp.simplify(mass - 1 / (_d**2 - 2 * _d + 2)) == 0)
    m, a, bs = sp.Symbol("m", positive=True), sp.Symbol("a", real=True), sp.Symbol("beta_s", real=True)
    gamma_s = m * sp.exp(a) / (m * sp.exp(a))  # C_s = m and every other count 0
    links["gamma"] = sp.simplify(gamma_s) == 1
    loss = (bs * gamma_s - 1 - 1) ** 2 / 2
    links["loss"] = sp.simplify(loss - (bs - 2) ** 2 / 2) == 0
    x = sp.Symbol("x", nonnegative=True)  # beta_s = d/4 + x: the loss increases in x
    links["increasing"] = nonneg_poly(sp.diff(((9 + _k) / 4 + x - 2) ** 2 / 2, x), _k, x)
    slack = large_output_slack(bound)
    num, den = sp.fraction(slack)
    links["bound"] = nonneg_poly(num, _k) and nonneg_poly(den, _k)
    # the engine's word law at d = 9 (a second route): exact partial sum and its geometric tail
    from ..engine.distribution import WordDistribution

    dist = WordDistribution(9)
    partial = sum(dist.word_probability((0,) * n) for n in range(1, 41))
    tail = dist.word_probability((0,) * 41) / (1 - dist.q / 9)
    engine = partial <= Fraction(1, 65) <= partial + tail
    proved = all(links.values())
    detail = (f"SymPy: P(w = s...s) = {sp.sstr(mass)} = 1/(d^2-2d+2) [{links['mass']}]; gamma_s = 1 "
              f"there for every alpha [{links['gamma']}], l = (beta_s-2)^2/2 [{links['loss']}], "
              f"increasing in beta_s >= d/4 [{links['increasing']}]; (1/2)(d/4-2)^2/(d^2-2d+2) - "
              f"{bound} = {sp.sstr(slack)} (d = 9+k) >= 0 [{links['bound']}]; engine word law at "
              f"d = 9: P(w = s...s) = 1/65 within the partial sum and its tail [{engine}]")
    if not links["bound"]:
        first = next((d for d in range(9, 2001)
                      if sp.Rational(1, 2) * (sp.Rational(d, 4) - 2) ** 2 / (d**2 - 2 * d + 2) < bound),
                     None)
        detail += (f"; FAILS: the bound exceeds (1/2)(d/4-2)^2/(d^2-2d+2) at d = {first} "
                   f"(smallest; tight at d = 9 for 1/2080)" if first else "; not proved")
    value = sp.Rational(1, 2) * sp.Rational(1, 4) ** 2 / 65  # at d = 9
    return Outcome(case.label, bool(proved and engine), float(value / bound), Evidence.SYMBOLIC,
                   detail)


STEPS = (
    Check("thm1.insertion_ratio", "A.6 step 1",
          "rho(Z(z))/rho(z) = (m+1) q/d >= 1/2 for negative z, |z| = m >= d >= 3",
          Evidence.SYMBOLIC, single_case("all d >= 3, m >= d"), _judge_insertion),
    Check("thm1.appearance", "A.6 case max a_i >= d/2",
          "1 - (1 - 1/(d-1))^(d/2) >= 1 - e^(-1/2) >= 1/8", Evidence.SYMBOLIC,
          single_case("all d >= 3"), _judge_appearance),
    Check("thm1.long_negative_mass", "A.6 end", "P(y = -1, |w| >= d) = 1/2 (1 - 2/d)^(d-1)",
          Evidence.SYMBOLIC, single_case("all d >= 3"), _judge_long_mass),
    Check("thm1.rho_bound", "A.6 end (exact)", "(1/256)(1 - 2/d)^(d-1) >= c3 for all d >= 9",
          Evidence.SYMBOLIC, single_case("all d >= 9"), _judge_rho_bound),
    Check("thm1.chain", "A.6 end (the paper's chain)",
          "(d-1) ln(1-2/d) >= -2(d-1)/(d-2) >= -16/7 (> -3, e^-3 > 1/27) gives e^(-16/7)/256 >= c3",
          Evidence.SYMBOLIC, single_case("all d >= 9"), _judge_chain),
    Check("thm1.large_output", "A.6 case beta_s > d/4 (text: >= 1/2080)",
          "beta_s > d/4: L_s(alpha, beta) >= (1/2)(d/4-2)^2/(d^2-2d+2) >= c_large_output for every "
          "alpha (words of s only)", Evidence.SYMBOLIC, single_case("all d >= 9, every alpha"),
          _judge_large_output, reconstructed=True, scope="case beta_s > d/4"),
)
