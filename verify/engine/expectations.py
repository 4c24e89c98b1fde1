"""Exact population moments at background-symmetric attention (proofs/model.md, section 4).

For a word with ``k = C_s`` target symbols and ``n`` background symbols, and attention gap
``alpha_s - alpha_j = ln a``, the target attention is ``gamma = k a / (k a + n)``.  The Laplace
identity ``u^-r = (1/(r-1)!) int_0^inf t^(r-1) e^(-t u) dt`` and the generating function
``G(z) = p z / (1 - q z)`` of the length turn each moment into one integral over ``t``:

``mu_r = E[gamma^r 1{k>=1}] = a^r/(r-1)! int t^(r-1) sum_j S(r,j) (x/d)^j G^(j)(z) dt``
with ``x = e^(-t a)``, ``y = e^(-t)``, ``z = (x + (d-1) y)/d``, and

``nu_r = E[(1-gamma)^r 1{k>=1}] = b^r/(r-1)! int t^(r-1) sum_j S(r,j) ((d-1)y/d)^j
[G^(j)(z) - G^(j)(z0)] dt`` with ``b = 1/a``, ``x = e^(-t)``, ``y = e^(-t b)``,
``z0 = (d-1) y / d`` (the words without ``s`` removed).

No word length is truncated and the cost does not depend on ``d``.  Every integrand is a sum of
positive terms: ``1 - q z`` is formed from ``expm1`` and the slice difference uses
``B^-(j+1) - A^-(j+1) = (A - B) sum_i A^i B^(j-i) / (A B)^(j+1)`` with ``A - B = q x / d``, so
no digits cancel even at gaps of several hundred.  Use ``mu`` for negative gaps and ``nu`` for
positive ones (the other family is then a difference of nearly equal numbers).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import factorial
from typing import Any

import mpmath

from .context import MP, Context
from .formulas import merge_scales, pgf_coefficients, pgf_terms, powers
from .quadrature import integrate
from .generated import Family

GUARD_DIGITS = 10


@lru_cache(maxsize=None)
def stirling2(r: int, j: int) -> int:
    """Stirling numbers of the second kind S(r, j)."""
    if r == j:
        return 1
    if j == 0 or j > r:
        return 0
    return j * stirling2(r - 1, j) + stirling2(r - 1, j - 1)


def scales(coefficients: list, p) -> list:
    """Break points for the ``t`` integral: where ``e^(-t c)`` and ``1 - q z(t)`` turn over.

    ``coefficients`` are the attention weights ``e^(alpha_l)`` (any common scale); returns the
    sorted points ``0 < ... < inf`` to split the integral at.
    """
    c_max, c_min = max(coefficients), min(coefficients)
    c_mean = mpmath.fsum(coefficients) / len(coefficients)
    merged = merge_scales({p / c_max, p / c_mean, 1 / c_max, 1 / c_mean, 1 / c_min})
    return [mpmath.mpf(0), *merged, mpmath.inf]


@dataclass(frozen=True)
class Moments:
    """``values[r-1]`` = E[g^r 1{k>=1}] for g = gamma (``mu``) or 1 - gamma (``nu``), r = 1..order."""

    family: Family
    values: tuple
    errors: tuple
    evaluations: int


@dataclass(frozen=True)
class MomentSetup:
    """The constants of one moment integral (family, order, d, gap), in one number type.

    mu: target weight ``c_target = e^gap``, background ``c_back = 1``; nu: target 1, background
    ``e^-gap``; ``lead`` is the weight whose power multiplies the r-th moment.
    """

    family: Family
    order: int
    d: Any
    p: Any
    q: Any
    c_target: Any
    c_back: Any
    lead: Any
    coeff: tuple  # coeff[r-1][j] = S(r, j) lead^r / (r-1)!
    pgf: list  # pgf[j] = j! p q^(j-1) (formulas.pgf_coefficients)
    d1: Any  # d - 1, formed once


def moment_setup(d, gap, family: Family, order: int, be: Context = MP) -> MomentSetup:
    """Constants of the moment integrals; ``d`` and ``gap`` may be numbers of the context ``be``
    (:mod:`verify.engine.context`: mpf, Arb balls, duals)."""
    gap = be.number(gap)
    one = be.number(1)
    c_target, c_back = (be.exp(gap), one) if family == "mu" else (one, be.exp(-gap))
    return weighted_setup(d, c_target, c_back, family, order, be)


def weighted_setup(d, c_target, c_back, family: Family, order: int, be: Context = MP,
                   scaled: bool = False) -> MomentSetup:
    """:func:`moment_setup` from the attention weights themselves (``nu``: ``c_back = e^-gap``,
    which may be 0: the limit gap -> inf).  ``scaled``: the r-th integral without the factor
    ``lead^r``, i.e. ``mu_r / a^r`` or ``nu_r / b^r`` (finite and positive as ``b -> 0``)."""
    dd = be.number(d)
    p = 1 / (dd - 1)
    q = 1 - p
    lead = c_target if family == "mu" else c_back
    if scaled:
        lead = be.number(1)
    coeff = tuple(tuple(stirling2(r, j) * lead**r / factorial(r - 1) for j in range(r + 1))
                  for r in range(1, order + 1))
    return MomentSetup(family, order, dd, p, q, c_target, c_back, lead, coeff,
                       pgf_coefficients(p, q, order), dd - 1)


def moment_integrand(t, s: MomentSetup, be: Context = MP) -> list:
    """The r = 1..order integrands at ``t`` (proofs/model.md, section 4), written once for every number type.

    ``1 - q z`` is formed as ``(1 - x + (d-1)(1 - y))/d + p z`` with ``1 - x`` from ``expm1``:
    a sum of positive terms, so a ball ``t`` near 0 gives a ball away from 0 (``1 - (q z)``
    would contain 0 there and the integrand would blow up).
    """
    dd, d1, p, order = s.d, s.d1, s.p, s.order
    u_target, u_back = -t * s.c_target, -t * s.c_back
    x, y = be.exp(u_target), be.exp(u_back)
    one_minus_x, one_minus_y = -be.expm1(u_target), -be.expm1(u_back)
    back, back_gap = d1 * y, d1 * one_minus_y  # the d - 1 background symbols' x and 1 - x
    z = (x + back) / dd
    small = (one_minus_x + back_gap) / dd + p * z  # 1 - q z
    mu = s.family == "mu"
    if mu:  # G^(j)(z)
        base, big, diff = x / dd, None, None
    else:  # G^(j)(z) - G^(j)(z0)
        base = back / dd
        big = (1 + back_gap) / dd + p * base  # 1 - q z0
        diff = s.q * x / dd  # (1 - q z0) - (1 - q z)
    G, _, D = pgf_terms(be, small, big, diff, p, s.q, order, g=mu, g0=False, coefficients=s.pgf)
    derivs = G if mu else D
    weight = [None] + [b * g for b, g in zip(powers(base, order, be.one)[1:], derivs[1:])]
    out, tr = [], be.one
    for r in range(1, order + 1):
        out.append(tr * sum(s.coeff[r - 1][j] * weight[j] for j in range(1, r + 1)))
        tr = tr * t
    return out


def tail_coefficients(s: MomentSetup) -> list:
    """K_r with ``integrand_r(t) <= K_r t^(r-1) e^(-c t)`` for every t >= 0, ``c = c_target``
    (proofs/tail-bound.md).  Every term carries ``e^(-t c_target)`` (mu: through x^j; nu: through
    the slice difference, whose ``A - B = q x / d``), and ``1 - q z >= p`` bounds the rest."""
    dd, p, q = s.d, s.p, s.q
    if s.family == "mu":  # (x/d)^j G^(j)(z) <= d^-j j! q^(j-1) p^-j e^(-t a)
        term = [factorial(j) * q ** (j - 1) / (dd**j * p**j) for j in range(1, s.order + 1)]
    else:  # base^j (G^(j)(z) - G^(j)(z0)) <= ((d-1)/d)^j (j+1)! q^j / (d p^(j+1)) e^(-t)
        term = [((dd - 1) / dd) ** j * factorial(j + 1) * q**j / (dd * p ** (j + 1))
                for j in range(1, s.order + 1)]
    return [s.lead**r / factorial(r - 1) * sum(stirling2(r, j) * term[j - 1] for j in range(1, r + 1))
            for r in range(1, s.order + 1)]


def tail_bound(T, s: MomentSetup, be: Context = MP, coefficients: list | None = None) -> list:
    """Proven bound on ``int_T^inf integrand_r``: ``K_r Gamma(r, c T) / c^r``, with the upper
    incomplete gamma function of integer order in closed form,
    ``Gamma(r, x) = (r-1)! e^-x sum_(k<r) x^k / k!``."""
    K = tail_coefficients(s) if coefficients is None else coefficients
    c = s.c_target
    x = c * T
    e = be.exp(-x)
    out = []
    for r in range(1, s.order + 1):
        gamma_upper = factorial(r - 1) * e * sum(x**k / factorial(k) for k in range(r))
        out.append(K[r - 1] * gamma_upper / c**r)
    return out


def _validate(d: int, dps: int) -> None:
    if int(d) != d or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d}")
    if dps < 5:
        raise ValueError(f"dps must be >= 5, got {dps}")


def symmetric_moments(d: int, gap, family: Family, order: int = 3, dps: int = 30) -> Moments:
    """Moments ``mu_r`` or ``nu_r`` (r = 1..order) at attention gap ``alpha_s - alpha_j = gap``.

    Values are returned as mpf at ``dps + GUARD_DIGITS`` working digits; ``errors`` are the
    quadrature's estimates (absolute).
    """
    _validate(d, dps)
    with mpmath.workdps(dps + GUARD_DIGITS):
        s = moment_setup(d, gap, family, order)
        K = tail_coefficients(s)
        rel_tol = mpmath.mpf(10) ** (-(dps + 2))
        points = scales([s.c_target, s.c_back], s.p)[:-1]
        # first guess of the cut: where the bound K_r e^(-t c_target) reaches rel_tol, and no
        # earlier than the decay scale 1/c_target (K may be tiny, or 0 at d = 2 for nu); doubled
        # if needed.  Every integrand decays like e^(-t c_target), so a scale beyond the cut
        # (1/c_back for nu at a large gap, where y = e^(-t c_back) turns over) holds nothing the
        # tolerance sees: the range ends at the cut, and the proven tail bound covers the rest.
        cut = max((mpmath.log(max(K)) - mpmath.log(rel_tol) + order * 5) / s.c_target, 1 / s.c_target)
        points = [pt for pt in points if pt < cut] + [cut]
        result = integrate(lambda t: moment_integrand(t, s), points, order,
                           lambda T: tail_bound(T, s, coefficients=K), rel_tol=rel_tol)
        return Moments(family, result.values, result.errors, result.evaluations)
