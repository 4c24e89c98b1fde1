"""Proposition 3 for every d >= 5, with the constant the argument gives (A.4 reconstructed).

The text of A.4 is lost.  This is the argument proofs/prop3.md ("Every d: the low-attention
target", steps A1-A9) writes out, built from Lemma A.5 (in its first-moment form) and A.6's
insertion pairing; each link is discharged here by SymPy for every d in its range, and the
final comparison is an exact rational evaluation at the start of the range (the links carry it
to every larger d).  Part of :mod:`verify.results.prop3` (which registers the check).

A1  some target s has E[gamma_s] <= 1/d (sum_s gamma_s(w) = 1 on every word; Lemma A.5).
A2  z = w without its s's (length n), k = C_s(w): gamma_i(w) = (1 - gamma_s(w)) gamma_i(z)
    (i != s) and gamma_s(w) = k c/(1 + k c), c = e^(alpha_s)/U(z); so the prediction
    b.gamma(w) = B(z) + (b_s - B(z)) g_k(c) takes, on the words of one background z, values in
    span{1, g(c)} as a function of k.
A3  rho(z, k) = rho(z) C(n+k, k) (q/d)^k (the C(n+k, k) places of the k s's).
A4  on k = 0, 1, 2 the distance of Y = 1{k >= 1} from span{1, g} is
    1/(1/pi0 + 4(1+c)^2/pi1 + (1+2c)^2/pi2); with u = c/(1+c) and r_k = pi_k/pi0 it is
    rho(z) h(u), h = (1-u)^2/((1-u)^2 + 4/r1 + (1+u)^2/r2), and g_2 = 2u/(1+u).
A5  inf_beta L_s = 2 min_b E[(b.gamma - Y)^2] >= 2 (sum_z rho(z) min_u [h(u) + lam (r1 u
    + r2 2u/(1+u))] - lam/d) for every lam >= 0 (the low attention of A1 as a Lagrange term).
A6  the bracket increases in r1 and in r2; r2 >= r1^2/2; on n >= nu d, r1 >= nu (d-2)/(d-1),
    which increases in d.
A7  P(y = -1, |w| >= N) = (1/2)(1 - 2/d)^(N-1), and (1 - 2/d)^(nu d) increases in d (d > 2).
A8  per band N (n >= (N/D) d): the bracket's minimum over u in [0, 1] at r1 = rho_N, r2 =
    rho_N^2/2 is >= phi_N, a rational proved by exact root counting.
A9  summation by parts over the nested bands: inf_beta L_s >= 2 (sum_N (1/2)(1 - 2/D)^N
    (phi_N - phi_(N-1)) - lam/D) for every d >= D, an exact rational.  At one d (d = 5..9) the
    bands are n >= N themselves, with r1, r2 exact at n = N and the tails (1/2)(1 - 2/d)^(N-1).
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np
import sympy as sp

from ..checks import Case, Constants, Evidence, Outcome

FROM_D = 10  # A9 over bands proves every d >= FROM_D at once
AT_D = (5, 6, 7, 8, 9)  # and A9 at one d proves each of these (the argument gives nothing at d = 3)
REPORTED_FROM = (10,)  # the starting points whose bounds the detail reports (d >= 20: proofs/prop3.md)
BANDS_PER_D = 6  # bands n >= (N/D) d for N = 1 .. BANDS_PER_D * D; at one d, n >= N for N <= 3d
LAMBDAS = tuple(Fraction(k, 200) for k in range(1, 61))  # the Lagrange weights tried (A5)
GRID = 4001  # float grid in u that proposes each band's rational lower bound (A8 proves it)

_d, _n, _k, _N = sp.symbols("d n k N", positive=True)
_u, _c, _r1, _r2, _lam, _x, _t = sp.symbols("u c r1 r2 lambda x t", positive=True)


def bracket(u, r1, r2, lam):
    """h(u) + lam (r1 u + r2 2u/(1+u)): A4's three-point residual in units of rho(z) plus the
    Lagrange term of A5 (the k = 1, 2 words' share of E[gamma_s])."""
    h = (1 - u) ** 2 / ((1 - u) ** 2 + 4 / r1 + (1 + u) ** 2 / r2)
    return h + lam * (r1 * u + r2 * 2 * u / (1 + u))


def three_point_residual(c, pi0, pi1, pi2):
    """A4's closed form of min_{x,y} sum_{k<=2} pi_k (1{k>=1} - x - y g_k)^2, g_k = kc/(1+kc)."""
    return 1 / (1 / pi0 + 4 * (1 + c) ** 2 / pi1 + (1 + 2 * c) ** 2 / pi2)


def link_low_attention() -> bool:
    """A1: sum_i C_i a_i / sum_j C_j a_j = 1 for a symbolic alphabet size, so the d means
    E[gamma_s] sum to 1 and the smallest is <= 1/d."""
    i = sp.Symbol("i", integer=True, positive=True)
    C, a = sp.IndexedBase("C"), sp.IndexedBase("a")
    total = sp.Sum(C[i] * a[i], (i, 1, _d))
    return sp.simplify(sp.Sum(C[i] * a[i] / total, (i, 1, _d)) - 1) == 0


def link_factorisation() -> bool:
    """A2: with U = sum_{i != s} C_i e^(alpha_i) > 0 and a = e^(alpha_s), for a background
    symbol's term X = C_i e^(alpha_i): X/(k a + U) = (1 - k a/(k a + U)) X/U, and
    k a/(k a + U) = k c/(1 + k c) with c = a/U."""
    a, U, X = sp.symbols("a U X", positive=True)
    gs = _k * a / (_k * a + U)
    first = sp.simplify(X / (_k * a + U) - (1 - gs) * X / U) == 0
    second = sp.simplify(gs - _k * (a / U) / (1 + _k * (a / U))) == 0
    return first and second


def link_conditional_law() -> bool:
    """A3: C(n+k, k) p q^(n+k-1) d^-(n+k) = p q^(n-1) d^-n C(n+k, k) (q/d)^k (SymPy), and the
    sum of rho over the words with background z and k s's is that, enumerated exactly at
    d = 3 (n <= 3) and d = 4 (n <= 2), k <= 2."""
    from ..engine.distribution import WordDistribution

    p = 1 / (_d - 1)
    q = 1 - p
    lhs = sp.binomial(_n + _k, _k) * p * q ** (_n + _k - 1) / _d ** (_n + _k)
    rhs = p * q ** (_n - 1) / _d ** _n * sp.binomial(_n + _k, _k) * (q / _d) ** _k
    proved = sp.simplify(lhs / rhs) == 1
    for d, longest in ((3, 3), (4, 2)):
        dist = WordDistribution(d)
        qd = (1 - Fraction(1, d - 1)) / d
        for n in range(1, longest + 1):
            for z in itertools.product(range(1, d), repeat=n):
                for k in range(3):
                    words = [w for w in itertools.product(range(d), repeat=n + k)
                             if w.count(0) == k and tuple(x for x in w if x) == z]
                    total = sum(dist.word_probability(w) for w in words)
                    proved &= total == dist.word_probability(z) * comb(n + k, k) * qd ** k
    return bool(proved)


def link_three_points() -> bool:
    """A4: the normal equations of the weighted least squares over k = 0, 1, 2 solved by
    SymPy give :func:`three_point_residual`; their Gram determinant is pi0 pi1 g1^2 + pi0 pi2
    g2^2 + pi1 pi2 (g1 - g2)^2 > 0, so the stationary point is the minimum; and in u = c/(1+c)
    the residual is rho(z) h(u) and g2 = 2u/(1+u)."""
    p0, p1, p2, X, Y = sp.symbols("pi0 pi1 pi2 X Y", positive=True)
    g1, g2 = _c / (1 + _c), 2 * _c / (1 + 2 * _c)
    obj = p0 * X**2 + p1 * (1 - X - Y * g1) ** 2 + p2 * (1 - X - Y * g2) ** 2
    sol = sp.solve([sp.diff(obj, X), sp.diff(obj, Y)], [X, Y], dict=True)
    if len(sol) != 1:
        return False
    residual = sp.simplify(obj.subs(sol[0]) - three_point_residual(_c, p0, p1, p2)) == 0
    gram = sp.Matrix([[p0 + p1 + p2, p1 * g1 + p2 * g2], [p1 * g1 + p2 * g2, p1 * g1**2 + p2 * g2**2]])
    det = sp.simplify(gram.det() - (p0 * p1 * g1**2 + p0 * p2 * g2**2 + p1 * p2 * (g1 - g2) ** 2)) == 0
    in_u = {_c: _u / (1 - _u)}
    h = sp.simplify(three_point_residual(_c, 1, _r1, _r2).subs(in_u) - bracket(_u, _r1, _r2, 0))
    g2u = sp.simplify(g2.subs(in_u) - 2 * _u / (1 + _u))
    return residual and det and h == 0 and g2u == 0


def link_lagrange() -> bool:
    """A5: the bracket's Lagrange term is the k = 1, 2 words' share of E[gamma_s] in units of
    rho(z): bracket(u) - h(u) = lam (r1 g_1(c) + r2 g_2(c)) with g_k = k c/(1 + k c) (A2's
    gamma_s) and u = c/(1+c) (A4), so with rho(z, k) = rho(z) r_k (A3) and gamma_s >= 0 on the
    words with k >= 3, E[gamma_s] >= sum_z rho(z) (r1 u + r2 2u/(1+u)); u = c/(1+c) lies in
    (0, 1) for c > 0 (the minimum over u in [0, 1] covers every attention); and for lam >= 0
    and E[gamma_s] = 1/d - e with e >= 0 (A1), the term lam (E[gamma_s] - 1/d) = -lam e is
    <= 0, so adding it to a lower bound of the loss keeps one (weak duality)."""
    e = sp.Symbol("e", nonnegative=True)
    g = lambda k: k * _c / (1 + k * _c)  # noqa: E731  (A2's gamma_s on a word with k s's)
    in_u = {_u: _c / (1 + _c)}
    share = sp.simplify((bracket(_u, _r1, _r2, _lam) - bracket(_u, _r1, _r2, 0)).subs(in_u)
                        - _lam * (_r1 * g(1) + _r2 * g(2))) == 0
    inside = bool((_c / (1 + _c)).is_positive) and bool(sp.simplify(1 - _c / (1 + _c)).is_positive)
    sign = bool((_lam * ((1 / _d - e) - 1 / _d)).is_nonpositive)
    return bool(share and inside and sign)


def link_monotone() -> bool:
    """A6: d/dr1 and d/dr2 of the bracket equal sums of non-negative terms (0 <= u <= 1,
    r > 0); r1 and r2 increase in n (by t and (n+2) t^2); r2 - r1^2/2 = (n+1) t^2/2 >= 0 for r1 = (n+1)t, r2 = C(n+2, 2) t^2; at n = nu d,
    r1 - nu (d-2)/(d-1) = (d-2)/(d(d-1)) >= 0 (and r1 grows with n); nu (d-2)/(d-1) has
    derivative nu/(d-1)^2 > 0."""
    den = (1 - _u) ** 2 + 4 / _r1 + (1 + _u) ** 2 / _r2
    b = bracket(_u, _r1, _r2, _lam)
    d1 = sp.simplify(sp.diff(b, _r1) - (4 * (1 - _u) ** 2 / (_r1**2 * den**2) + _lam * _u)) == 0
    d2 = sp.simplify(sp.diff(b, _r2) - ((1 - _u) ** 2 * (1 + _u) ** 2 / (_r2**2 * den**2)
                                       + _lam * 2 * _u / (1 + _u))) == 0
    r1, r2 = (_n + 1) * _t, sp.binomial(_n + 2, 2) * _t**2
    square = sp.simplify(sp.expand_func(r2) - r1**2 / 2 - (_n + 1) * _t**2 / 2) == 0
    in_n = (sp.simplify(r1.subs(_n, _n + 1) - r1 - _t) == 0
            and sp.simplify(sp.expand_func(r2.subs(_n, _n + 1) - r2) - (_n + 2) * _t**2) == 0)
    nu = sp.Symbol("nu", positive=True)
    t = (1 - 1 / (_d - 1)) / _d
    at_band = sp.simplify(((nu * _d + 1) * t) - nu * (_d - 2) / (_d - 1) - (_d - 2) / (_d * (_d - 1))) == 0
    grows = sp.simplify(sp.diff(nu * (_d - 2) / (_d - 1), _d) - nu / (_d - 1) ** 2) == 0
    return d1 and d2 and square and in_n and at_band and grows


def link_tails() -> bool:
    """A7: S(N) = (1/2)(1 - 2/d)^(N-1) satisfies S(N) - S(N+1) = P(y = -1, |w| = N) =
    p q^(N-1) ((d-1)/d)^N and S(N) -> 0 (0 < 1 - 2/d < 1 for d > 2), so S(N) = P(y = -1,
    |w| >= N); d ln(1 - 2/d) has derivative psi(2/d), psi(x) = ln(1-x) + x/(1-x), psi(0) = 0,
    psi'(x) = x/(1-x)^2 >= 0: so (1 - 2/d)^(nu d) increases in d."""
    p = 1 / (_d - 1)
    S = lambda N: (1 - 2 / _d) ** (N - 1) / 2  # noqa: E731
    term = p * (1 - p) ** (_N - 1) * ((_d - 1) / _d) ** _N
    # with d = 2 + x, x > 0, the powers of d - 2 and d - 1 combine
    ratio = ((S(_N) - S(_N + 1)) / term).subs(_d, 2 + _x)
    telescopes = sp.simplify(sp.powsimp(sp.expand_power_base(sp.powdenest(ratio, force=True), force=True),
                                        force=True)) == 1
    psi = sp.log(1 - _x) + _x / (1 - _x)
    psi_ok = psi.subs(_x, 0) == 0 and sp.simplify(sp.diff(psi, _x) - _x / (1 - _x) ** 2) == 0
    chain = sp.simplify(sp.diff(_d * sp.log(1 - 2 / _d), _d) - psi.subs(_x, 2 / _d)) == 0
    return bool(telescopes and psi_ok and chain)


def band_bound(r1: Fraction, r2: Fraction, lam: Fraction) -> tuple[Fraction, bool]:
    """A8: (phi, proved): a rational phi <= min over u in [0, 1] of the bracket at (r1, r2),
    proposed from a float grid and proved by counting the real roots of the numerator of
    bracket - phi on [0, 1] (none, positive at u = 0; the denominators are positive there).
    phi = 0 needs no proof (the bracket is >= 0)."""
    us = np.linspace(0.0, 1.0, GRID)
    low = float(np.min(bracket(us, float(r1), float(r2), float(lam))))
    phi = max(Fraction(int(low * 1e6) - 2, 10**6), Fraction(0))
    if phi == 0:
        return phi, True
    num, den = sp.fraction(sp.together(bracket(_u, sp.Rational(r1), sp.Rational(r2), sp.Rational(lam))
                                       - sp.Rational(phi)))
    poly = sp.Poly(sp.expand(num), _u)
    sign_den = sp.Poly(sp.expand(den), _u)
    ok = (poly.count_roots(0, 1) == 0 and sign_den.count_roots(0, 1) == 0
          and poly.eval(0) * sign_den.eval(0) > 0)
    return phi, bool(ok)


def summed(phis: list[Fraction], tails: list[Fraction], lam: Fraction, d: int) -> Fraction:
    """A9: 2 (sum_N tail_N (phi_N - phi_(N-1)) - lam/d), the phi made non-decreasing first
    (each replaced by the smallest later one: still a lower bound, and summation by parts
    needs them non-decreasing)."""
    phis = list(phis)
    for i in range(len(phis) - 2, -1, -1):
        phis[i] = min(phis[i], phis[i + 1])
    total, prev = Fraction(0), Fraction(0)
    for tail, phi in zip(tails, phis):
        total += tail * (phi - prev)
        prev = phi
    return 2 * (total - lam / d)


def band_rates(D: int) -> list[tuple[Fraction, Fraction, Fraction]]:
    """(r1, r2, tail) lower bounds on the bands n >= (N/D) d, valid for every d >= D (A6, A7)."""
    out = []
    for N in range(1, BANDS_PER_D * D + 1):
        rho = Fraction(N, D) * Fraction(D - 2, D - 1)
        out.append((rho, rho * rho / 2, Fraction(D - 2, D) ** N / 2))
    return out


def point_rates(d: int) -> list[tuple[Fraction, Fraction, Fraction]]:
    """(r1, r2, tail) at n = N exactly, for one d: r1 = (N+1) t, r2 = C(N+2, 2) t^2 with
    t = q/d, and P(y = -1, |w| >= N) = (1/2)(1 - 2/d)^(N-1) (A3, A7)."""
    t = (1 - Fraction(1, d - 1)) / d
    return [((N + 1) * t, comb(N + 2, 2) * t * t, Fraction(d - 2, d) ** (N - 1) / 2)
            for N in range(1, 3 * d + 1)]


@lru_cache(maxsize=32)
def proved_bound(key: tuple[str, int], lam: Fraction) -> tuple[Fraction, bool]:
    """A8-A9 for ("from", D) (every d >= D) or ("at", d) (that d): (bound, every band proved)."""
    kind, d = key
    rates = band_rates(d) if kind == "from" else point_rates(d)
    found = [band_bound(r1, r2, lam) for r1, r2, _ in rates]
    return summed([phi for phi, _ in found], [tail for *_, tail in rates], lam, d), all(ok for _, ok in found)


def float_bound(key: tuple[str, int], lam: float) -> float:
    """A9 in float64 (chooses lam; the chosen one is then evaluated exactly)."""
    kind, d = key
    us = np.linspace(0.0, 1.0, GRID)
    rates = band_rates(d) if kind == "from" else point_rates(d)
    phis = [float(np.min(bracket(us, float(r1), float(r2), lam))) for r1, r2, _ in rates]
    phis = list(np.minimum.accumulate(phis[::-1])[::-1])
    total, prev = 0.0, 0.0
    for (*_, tail), phi in zip(rates, phis):
        total += float(tail) * (phi - prev)
        prev = phi
    return 2 * (total - lam / d)


def best_bound(key: tuple[str, int]) -> tuple[Fraction, Fraction, bool]:
    """(bound, lam, proved): lam chosen among LAMBDAS in float64, the bound then exact."""
    lam = max(LAMBDAS, key=lambda x: float_bound(key, float(x)))
    bound, proved = proved_bound(key, lam)
    return bound, lam, proved


LINKS = (("A1 low attention", link_low_attention), ("A2 factorisation", link_factorisation),
         ("A3 law of k given z", link_conditional_law), ("A4 three points", link_three_points),
         ("A5 Lagrange term", link_lagrange), ("A6 monotone in r and d", link_monotone), ("A7 tails", link_tails))


def judge_every_d(case: Case, constants: Constants) -> Outcome:
    """prop3.every_d: every link of A1-A9 proved, and the bounds at d = 5..9 and over every
    d >= FROM_D all >= prop3.c2_every_d; the detail also compares them with prop3.c2."""
    c_weak, c2 = constants["prop3.c2_every_d"], constants["prop3.c2"]
    links = [(name, bool(fn())) for name, fn in LINKS]
    keys = [("at", d) for d in AT_D] + [("from", D) for D in REPORTED_FROM]
    bounds = {key: best_bound(key) for key in keys}
    needed = [("at", d) for d in AT_D] + [("from", FROM_D)]
    worst = min(bounds[key][0] for key in needed)
    proved = all(ok for _, ok in links) and all(b[2] for b in bounds.values())
    text = "; ".join(f"{name}: {ok}" for name, ok in links)
    words = {"at": "d = ", "from": "d >= "}
    reach = ", ".join(f"{words[k]}{d}: {float(b):.6g} (lambda = {lm})" for (k, d), (b, lm, _) in bounds.items())
    detail = (f"{text}; A8 every band's minimum proved by root counting: "
              f"{all(b[2] for b in bounds.values())}; A9 max_s inf_beta L_s >= {reach} (exact "
              f"rationals); for every d >= {AT_D[0]}: {float(worst):.6g} vs prop3.c2_every_d = "
              f"{c_weak}; vs prop3.c2 = {c2}: "
              f"{'reached' if max(b[0] for b in bounds.values()) >= c2 else 'not reached'} "
              f"(the route's own limit, proofs/prop3.md)")
    return Outcome(case.label, bool(proved and worst >= c_weak), float(worst / c_weak), Evidence.SYMBOLIC,
                   detail, values={f"bound_{k}_{d}": float(b[0]) for (k, d), b in bounds.items()})
