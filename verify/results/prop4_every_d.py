"""Proposition 4 for every d >= 3 with a smaller head bound: the rest of A.5 reconstructed.

The text of A.5 lost everything after the low-attention lemma.  This argument (proofs/prop4.md,
"Every d: the lemma and the insertion pairing", steps Q1-Q6) takes the lemma's target s
(sum_h E[(gamma_s^(h))^2] <= H/d) and the grouping of the words by their background z that
Proposition 2's argument uses (:mod:`.insertion`: the law of k given z, the sum B(d) over the
backgrounds and B(d) > 1/3, evaluated again by this check).  Write P(w) = sum_h beta_h .
gamma^(h)(w) (f = P - 1), R = radius_scale d^(1/4) and kappa = R^2 H/d.  The identities are
checked by SymPy; the inequalities between them rest on standard facts proofs/prop4.md names
(a square is >= 0, Cauchy-Schwarz, a convex combination lies between its extremes).  Part of
:mod:`verify.results.prop4` (which registers the check).

Q1  per head, model (1): P_h(w) - P_h(z) = g_h (beta_hs - P_h(z)), g_h = gamma_s^(h)(w).
Q2  (sum_h g_h D_h)^2 <= (sum_h g_h^2)(sum_h D_h^2) (Cauchy-Schwarz), D_h = beta_hs - P_h(z)
    with D_h^2 <= max_i (beta_hs - beta_hi)^2 (P_h(z) averages beta_h over z's symbols) and
    (a - b)^2 <= 2a^2 + 2b^2; the entries (h, s) and (h, i_h) are distinct, so
    sum_h D_h^2 <= 2 ||B||_F^2 <= 2 R^2 and |P(w) - P(z)|^2 <= 2 R^2 sum_h g_h^2.
Q3  (a - e)^2 >= (1 - theta) a^2 - (1/theta - 1) e^2 for 0 < theta <= 1 (the difference is a
    square).
Q4  one background with x = P(z), S its words' mass over rho(z): by Q3 with a = 2 - x the
    group costs >= rho(z) [x^2/2 + W (2 - x)^2/2] - (1/theta - 1) R^2 sum_w rho(w) sum_h g_h^2,
    W = (1 - theta)(S - 1); the bracket is >= 2W/(1 + W) >= 2 (1 - theta)(1 - 1/S).
Q5  summed (P4, and the lemma for the attention on s): L_s >= (1 - theta) B(d) - (1/theta - 1)
    kappa for every theta in (0, 1]; when kappa <= B(d), theta = sqrt(kappa/B) lies in (0, 1]
    and gives (sqrt B - sqrt kappa)^2 (for kappa > B the route gives nothing).
Q6  B(d) > 1/3 (P5), so for H <= head_factor_every_d sqrt(d): kappa <= radius_scale^2
    head_factor_every_d =: k, and when k <= 1/3, L_s >= (sqrt(1/3) - sqrt k)^2; this is >= c4
    iff 1/3 - k - c4 >= 0 and (1/3 - k - c4)^2 >= 4 k c4 (exact rationals; the first condition
    gives k <= 1/3).
"""
from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp

from ..checks import Case, Constants, Evidence, Outcome
from . import insertion
from .insertion import LIMIT as THIRD
from .insertion import link_background_sum, link_fibre_law, link_limit, link_pairing

_theta, _kappa, _B = sp.symbols("theta kappa B", positive=True)
_delta = sp.Symbol("delta", nonnegative=True)  # B - kappa >= 0


def link_spread() -> bool:
    """Q2: the inequalities behind |P(w) - P(z)|^2 <= 2 R^2 sum_h g_h^2 that SymPy checks:
    2a^2 + 2b^2 - (a - b)^2 = (a + b)^2, and the Cauchy-Schwarz gap for two heads
    (g1^2 + g2^2)(D1^2 + D2^2) - (g1 D1 + g2 D2)^2 = (g1 D2 - g2 D1)^2 (Lagrange's identity;
    for H heads the sum of such squares, a standard fact)."""
    a, b, g1, g2, D1, D2 = sp.symbols("a b g1 g2 D1 D2", real=True)
    pair = sp.expand(2 * a ** 2 + 2 * b ** 2 - (a - b) ** 2 - (a + b) ** 2) == 0
    cauchy = sp.expand((g1 ** 2 + g2 ** 2) * (D1 ** 2 + D2 ** 2) - (g1 * D1 + g2 * D2) ** 2
                       - (g1 * D2 - g2 * D1) ** 2) == 0
    return bool(pair and cauchy)


def split_square(a, e, theta):
    """Q3's lower bound of (a - e)^2: (1 - theta) a^2 - (1/theta - 1) e^2."""
    return (1 - theta) * a ** 2 - (1 / theta - 1) * e ** 2


def link_split() -> bool:
    """Q3: (a - e)^2 - split_square(a, e, theta) = (sqrt(theta) a - e/sqrt(theta))^2."""
    a, e = sp.symbols("a e", real=True)
    gap = (a - e) ** 2 - split_square(a, e, _theta)
    return sp.simplify(gap - (sp.sqrt(_theta) * a - e / sp.sqrt(_theta)) ** 2) == 0


def link_group() -> bool:
    """Q4: the group minimum (:func:`.insertion.link_group_minimum`) at W = (1 - theta)(S - 1),
    and 2W/(1+W) - 2(1 - theta)(1 - 1/S) = 2 theta (1 - theta)(S - 1)^2/(S (1 + W)) >= 0."""
    S = sp.Symbol("S", positive=True)
    W = (1 - _theta) * (S - 1)
    gap = sp.simplify(insertion.group_minimum(W) - 2 * (1 - _theta) * (1 - 1 / S)
                      - 2 * _theta * (1 - _theta) * (S - 1) ** 2 / (S * (1 + W))) == 0
    return bool(insertion.link_group_minimum() and gap)


def link_theta() -> bool:
    """Q5: (1 - theta) B - (1/theta - 1) kappa at theta = sqrt(kappa/B) is (sqrt B - sqrt kappa)^2,
    a stationary point of a concave function of theta (second derivative -2 kappa/theta^3); the
    point lies in (0, 1] when kappa <= B (theta^2 = kappa/B), which Q6's k <= 1/3 < B(d) gives."""
    value = (1 - _theta) * _B - (1 / _theta - 1) * _kappa
    at = value.subs(_theta, sp.sqrt(_kappa / _B))
    best = sp.simplify(sp.expand(at - (sp.sqrt(_B) - sp.sqrt(_kappa)) ** 2)) == 0
    stationary = sp.simplify(sp.diff(value, _theta).subs(_theta, sp.sqrt(_kappa / _B))) == 0
    concave = sp.simplify(sp.diff(value, _theta, 2) + 2 * _kappa / _theta ** 3) == 0
    inside = sp.simplify((sp.sqrt(_kappa / _B) ** 2).subs(_B, _kappa + _delta) - 1).is_nonpositive
    return bool(best and stationary and concave and inside)


LINKS = (("Q1 one head's pairing", link_pairing), ("Q2 spread over the heads", link_spread),
         ("Q3 split square", link_split), ("Q4 one background", link_group),
         ("Q5 best theta", link_theta), ("P2 law of k given z", link_fibre_law),
         ("P4 sum over z", link_background_sum), ("P5 B(d) > 1/3", link_limit))


def proved_floor_reaches(kappa: Fraction, c4: Fraction) -> bool:
    """Q6: (sqrt(1/3) - sqrt(kappa))^2 >= c4, decided in exact rationals."""
    rest = THIRD - kappa - c4
    return rest >= 0 and rest * rest >= 4 * kappa * c4


def largest_factor(c4: Fraction) -> float:
    """The largest kappa the argument allows for c4: (sqrt(1/3) - sqrt(c4))^2 (0 if c4 >= 1/3)."""
    return max(math.sqrt(1 / 3) - math.sqrt(c4), 0.0) ** 2


def judge_every_d(case: Case, constants: Constants) -> Outcome:
    """prop4.every_d: every link Q1-Q5, and Q6 at kappa = radius_scale^2 head_factor_every_d."""
    c4 = Fraction(constants["prop4.c4"])
    factor = Fraction(constants["prop4.head_factor_every_d"])
    radius = Fraction(constants["prop4.radius_scale"])
    kappa = radius * radius * factor
    links = [(name, bool(fn())) for name, fn in LINKS]
    reaches = proved_floor_reaches(kappa, c4)
    floor = max(math.sqrt(1 / 3) - math.sqrt(kappa), 0.0) ** 2 if kappa <= THIRD else 0.0
    first_d = math.ceil(1 / float(factor) ** 2)
    text_ball = radius >= 1  # the claim is the text's ball d^(1/4): a smaller one proves less
    text = "; ".join(f"{name}: {ok}" for name, ok in links)
    detail = (f"{text}; for H <= {factor} sqrt(d) heads and ||B||_F <= {radius} d^(1/4), the lemma's "
              f"target has inf_B L_s >= (sqrt(1/3) - sqrt({kappa}))^2 = {floor:.6g} for every d >= 3 "
              f"(kappa <= 1/3 needed) "
              f"(B(d) > 1/3: proofs/prop2.md P5) vs prop4.c4 = {c4}: "
              f"{'reached' if reaches else 'NOT reached'} (the argument allows kappa up to "
              f"{largest_factor(c4):.4g}); no H >= 1 is admissible below d = {first_d} (vacuous there); "
              f"the configured head_factor = {constants['prop4.head_factor']} is beyond this route"
              + ("" if text_ball else f"; NOT the text's ball: radius_scale = {radius} < 1 proves "
                 f"inf over a smaller ball than ||B||_F <= d^(1/4), which is less than Proposition 4"))
    margin = floor / float(c4)
    return Outcome(case.label, bool(all(ok for _, ok in links) and reaches and text_ball), margin, Evidence.SYMBOLIC,
                   detail, values={"floor": floor, "first_d_with_a_head": first_d,
                                   "largest_kappa": largest_factor(c4)})
