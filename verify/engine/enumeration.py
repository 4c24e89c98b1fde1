"""Ground truth by exact enumeration of the population sums under rho (Section 2).

An independent route, meant for tests of the faster engines: it sums the population
expectations of model (1) over all words of length m <= L, with exact rational weights,
and returns a proven bound on what the neglected words (m > L) can contribute.

Conventions: symbols are 0-based, {0, ..., d-1}; s is the target, y = chi_s(w) = +1 iff C_s >= 1.
Model (1): f = sum_i beta_i gamma_i - 1, gamma_i = C_i e^{alpha_i} / sum_j C_j e^{alpha_j},
loss l = (f - y)^2 / 2.  Every returned expectation E[X] means the truncated sum
E[X 1{m <= L}] = sum over count vectors C with 1 <= |C| <= L of P(C) X(C).

Tail bound (proof).  If |X(w)| <= B_X on every word, then |E[X] - E[X 1{m <= L}]| =
|E[X 1{m > L}]| <= B_X P(m > L) = B_X sum_{m > L} p q^(m-1) = B_X q^L.  The B_X used:
f + 1 = sum_i beta_i gamma_i is a convex combination, so |f + 1| <= B := max_i |beta_i| and
|f - y| <= B + 2; gamma_i in [0, 1]; and
|d f/d alpha_l| = gamma_l |sum_{i != l} (beta_l - beta_i) gamma_i|
               <= gamma_l (1 - gamma_l) (max beta - min beta) <= (max beta - min beta) / 4.

Arithmetic.  The weights P(C) = p q^(m-1) multinomial(m; C) / d^m are exact rationals (a
rational prefactor per length times an exact integer); they are rounded only when they enter the
sums (twice: the prefactor, then its product with the integer).  The sums run in Python's
C-accelerated `decimal` arithmetic (a private context entered with `decimal.localcontext`, so no
global state changes) at dps + 10 significant digits, plus as many digits as the largest exponent
argument has before the decimal point, so that e^{alpha} is as accurate as the rest; mpmath's
pure-Python backend is about four times slower per operation (gmpy2 narrows the gap).  Every
per-word quantity is formed without cancellation-prone differences (1 - gamma_s = n / (k a + n)
directly, f - y = sum_i (beta_i - 1 - y) gamma_i), so large attention gaps keep their relative
accuracy.
Results are converted once, correctly rounded, to mpmath.mpf.  Besides the proven `tail_bound`,
each result carries a `rounding_bound`: the standard first-order floating-point bound
2 (n_terms + c) 10^(1 - dps - 10) B_X (each term carries at most c roundings, recursive summation
adds at most n_terms more, and the weights sum to at most 1).
"""

from __future__ import annotations

import decimal
import functools
import math
import numbers
import operator
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Union

import mpmath
from mpmath import libmp

__all__ = [
    "EnumerationResult",
    "GeneralEnumerationResult",
    "symmetric_truth",
    "general_truth",
]

RealLike = Union[int, float, Fraction, decimal.Decimal, str, mpmath.mpf]

GUARD_DIGITS = 10
"""Digits carried beyond the requested dps."""

_ROUNDINGS_PER_TERM_SYMMETRIC = 60
_MAX_VECTORS_DEFAULT = 2_000_000


@dataclass(frozen=True)
class EnumerationResult:
    """Truncated population quantities at a background-symmetric point (symmetric_truth).

    mu[r] = E[gamma^r 1{k >= 1}] and nu[r] = E[(1 - gamma)^r 1{k >= 1}] for r = 0..4 (so
    mu[0] = nu[0] = P(y = +1, m <= L)); gamma = gamma_s, k = C_s.  Gradients are per
    coordinate: grad_alpha_j and grad_beta_j are the partials along ONE background coordinate.
    tail_bound and rounding_bound map each field name ('loss', 'grad_alpha_s', 'grad_alpha_j',
    'grad_beta_s', 'grad_beta_j', 'mu', 'nu'; the last two apply to every r) to its bound.
    neglected_mass = P(m > L) = q^L exactly.
    """

    d: int
    L: int
    dps: int
    loss: mpmath.mpf
    grad_alpha_s: mpmath.mpf
    grad_alpha_j: mpmath.mpf
    grad_beta_s: mpmath.mpf
    grad_beta_j: mpmath.mpf
    mu: tuple[mpmath.mpf, ...]
    nu: tuple[mpmath.mpf, ...]
    neglected_mass: Fraction
    tail_bound: Mapping[str, mpmath.mpf]
    rounding_bound: Mapping[str, mpmath.mpf]

    def error_bound(self, name: str) -> mpmath.mpf:
        """tail_bound[name] + rounding_bound[name]: distance of the field from the exact value."""
        return self.tail_bound[name] + self.rounding_bound[name]


@dataclass(frozen=True)
class GeneralEnumerationResult:
    """Truncated population quantities of model (1) at arbitrary alpha, beta (general_truth).

    grad_alpha, grad_beta: the full gradients of the loss (length d); mean_gamma = E[gamma];
    second_moment = E[gamma gamma^T] (d x d mpmath.matrix); mean_gamma_positive =
    E[gamma 1{C_s >= 1}].  positive_mass = P(C_s >= 1, m <= L) exactly.  tail_bound and
    rounding_bound map 'loss', 'grad_alpha', 'grad_beta', 'mean_gamma', 'second_moment',
    'mean_gamma_positive' to a bound valid for every component.  neglected_mass = q^L exactly.
    """

    d: int
    s: int
    L: int
    dps: int
    loss: mpmath.mpf
    grad_alpha: tuple[mpmath.mpf, ...]
    grad_beta: tuple[mpmath.mpf, ...]
    mean_gamma: tuple[mpmath.mpf, ...]
    second_moment: mpmath.matrix
    mean_gamma_positive: tuple[mpmath.mpf, ...]
    positive_mass: Fraction
    neglected_mass: Fraction
    n_vectors: int
    tail_bound: Mapping[str, mpmath.mpf]
    rounding_bound: Mapping[str, mpmath.mpf]

    def error_bound(self, name: str) -> mpmath.mpf:
        """tail_bound[name] + rounding_bound[name]: distance of a component from the exact value."""
        return self.tail_bound[name] + self.rounding_bound[name]


# ------------------------------------------------------------------ symmetric


def symmetric_truth(
    d: int,
    alpha_s: RealLike,
    alpha_j: RealLike,
    beta_s: RealLike,
    beta_j: RealLike,
    L: int,
    dps: int,
) -> EnumerationResult:
    """Loss, gradient and moments of model (1) at a background-symmetric point, m <= L.

    All background logits equal alpha_j and all background outputs equal beta_j.  With
    k = C_s, n = m - k, a = e^{alpha_s - alpha_j} and gamma = k a / (k a + n) the sum runs over
    (m, k), 1 <= m <= L, 0 <= k <= m, with P(m, k) = p q^(m-1) binom(m, k) (1/d)^k (1 - 1/d)^(m-k):

        f = beta_j + (beta_s - beta_j) gamma - 1,  y = +1 iff k >= 1,
        loss        = E[(f - y)^2 / 2],
        dL/dalpha_s = E[(f - y) (beta_s - beta_j) gamma (1 - gamma)],
        dL/dalpha_j = -(dL/dalpha_s) / (d - 1)            (one background coordinate),
        dL/dbeta_s  = E[(f - y) gamma],
        dL/dbeta_j  = E[(f - y) (1 - gamma)] / (d - 1)     (one background coordinate),
        mu_r = E[gamma^r 1{k >= 1}],  nu_r = E[(1 - gamma)^r 1{k >= 1}],  r = 0..4.

    Cost O(L^2).  Inputs are taken as exact rationals (floats exactly as stored).
    """
    d = _check_int(d, "d", minimum=2)
    L = _check_int(L, "L", minimum=1)
    dps = _check_int(dps, "dps", minimum=1)
    a_s, a_j, b_s, b_j = (_exact(x) for x in (alpha_s, alpha_j, beta_s, beta_j))
    q = 1 - Fraction(1, d - 1)
    l_eff = _effective_length(L, q)
    gap, delta = a_s - a_j, b_s - b_j
    prec = dps + GUARD_DIGITS + _integer_digits(gap)

    with decimal.localcontext(_decimal_context(prec)):
        sums = _symmetric_sums(d, l_eff, _to_decimal(gap).exp(), _to_decimal(b_s - 2),
                               _to_decimal(b_j - 2))
        p0, s_ee, s_eg, s_eh, s_egh, mu_sums, nu_sums = sums
        loss = (p0 * _to_decimal(b_j * b_j) + s_ee) / 2
        grad_alpha_s = _to_decimal(delta) * s_egh
        grad_alpha_j = -grad_alpha_s / (d - 1)
        grad_beta_s = s_eg
        grad_beta_j = (p0 * _to_decimal(b_j) + s_eh) / (d - 1)

    sup_e = max(abs(b_s), abs(b_j)) + 2
    sup = {
        "loss": sup_e * sup_e / 2,
        "grad_alpha_s": sup_e * abs(delta) / 4,
        "grad_alpha_j": sup_e * abs(delta) / (4 * (d - 1)),
        "grad_beta_s": sup_e,
        "grad_beta_j": sup_e / (d - 1),
        "mu": Fraction(1),
        "nu": Fraction(1),
    }
    n_terms = l_eff * (l_eff + 3) // 2
    bits = _bits(prec)
    return EnumerationResult(
        d=d,
        L=L,
        dps=dps,
        loss=_to_mpf(loss, bits),
        grad_alpha_s=_to_mpf(grad_alpha_s, bits),
        grad_alpha_j=_to_mpf(grad_alpha_j, bits),
        grad_beta_s=_to_mpf(grad_beta_s, bits),
        grad_beta_j=_to_mpf(grad_beta_j, bits),
        mu=tuple(_to_mpf(x, bits) for x in mu_sums),
        nu=tuple(_to_mpf(x, bits) for x in nu_sums),
        neglected_mass=q**L,
        tail_bound=_bounds(sup, q**L, bits),
        rounding_bound=_bounds(
            sup, _rounding_factor(n_terms, _ROUNDINGS_PER_TERM_SYMMETRIC, dps), bits
        ),
    )


def _symmetric_sums(
    d: int, L: int, a: decimal.Decimal, c_s: decimal.Decimal, c_j: decimal.Decimal
) -> tuple:
    """Weighted sums over (m, k) in the current decimal context.

    c_s = beta_s - 2 and c_j = beta_j - 2, so on words with k >= 1, f - y = c_s g + c_j h with
    g = gamma, h = 1 - gamma.  Returns (P(k = 0), S[e^2], S[e g], S[e h], S[e g h], mu_0..4,
    nu_0..4), where S sums over k >= 1 only (the k = 0 words have g = 0, h = 1, f - y = beta_j
    and are restored by the caller from P(k = 0)).
    """
    zero = decimal.Decimal(0)
    p0 = s_ee = s_eg = s_eh = s_egh = zero
    mu0 = mu1 = mu2 = mu3 = mu4 = zero
    nu1 = nu2 = nu3 = nu4 = zero
    bg_powers = [(d - 1) ** n for n in range(L + 1)]
    prefactor = Fraction(1, (d - 1) * d)  # p q^(m-1) / d^m at m = 1
    step = Fraction(d - 2, (d - 1) * d)  # q / d
    for m in range(1, L + 1):
        c_m = _to_decimal(prefactor)
        prefactor *= step
        p0 += c_m * bg_powers[m]
        binom = m  # binom(m, 1)
        for k in range(1, m + 1):
            n = m - k
            w = c_m * (binom * bg_powers[n])
            binom = binom * n // (k + 1)
            ka = a * k
            u = ka + n
            g = ka / u
            h = n / u
            e = c_s * g + c_j * h
            we = w * e
            weg = we * g
            s_ee += we * e
            s_eg += weg
            s_eh += we * h
            s_egh += weg * h
            mu0 += w
            wg = w * g
            mu1 += wg
            wg = wg * g
            mu2 += wg
            wg = wg * g
            mu3 += wg
            mu4 += wg * g
            wh = w * h
            nu1 += wh
            wh = wh * h
            nu2 += wh
            wh = wh * h
            nu3 += wh
            nu4 += wh * h
    return (p0, s_ee, s_eg, s_eh, s_egh, (mu0, mu1, mu2, mu3, mu4), (mu0, nu1, nu2, nu3, nu4))


# -------------------------------------------------------------------- general


def general_truth(
    d: int,
    s: int,
    alpha: Sequence[RealLike],
    beta: Sequence[RealLike],
    L: int,
    dps: int,
    *,
    max_vectors: int = _MAX_VECTORS_DEFAULT,
) -> GeneralEnumerationResult:
    """Loss, full gradient and attention moments of model (1) at arbitrary alpha, beta in R^d.

    Enumerates every count vector C with 1 <= |C| <= L, weight P(C) = p q^(m-1)
    multinomial(m; C) / d^m, and sums

        loss = E[(f - y)^2 / 2],  dL/dbeta_i = E[(f - y) gamma_i],
        dL/dalpha_l = E[(f - y) gamma_l sum_{i != l} (beta_l - beta_i) gamma_i],
        E[gamma], E[gamma gamma^T], E[gamma 1{C_s >= 1}].

    There are binom(L + d, d) - 1 vectors: meant for small d (2..5).  Raises ValueError if the
    count exceeds max_vectors.  Inputs are taken as exact rationals (floats exactly as stored).
    """
    d = _check_int(d, "d", minimum=2)
    s = operator.index(s)
    if not 0 <= s < d:
        raise ValueError(f"s must lie in {{0, ..., {d - 1}}} (0-based symbols)")
    L = _check_int(L, "L", minimum=1)
    dps = _check_int(dps, "dps", minimum=1)
    a_q = [_exact(x) for x in alpha]
    b_q = [_exact(x) for x in beta]
    if len(a_q) != d or len(b_q) != d:
        raise ValueError(f"alpha and beta must have length d = {d}")
    q = 1 - Fraction(1, d - 1)
    l_eff = _effective_length(L, q)
    n_vectors = math.comb(l_eff + d, d) - 1
    if n_vectors > max_vectors:
        raise ValueError(f"{n_vectors} count vectors exceed max_vectors = {max_vectors}")
    shifts = [a - max(a_q) for a in a_q]  # <= 0: e^{alpha_i - max alpha} <= 1
    prec = dps + GUARD_DIGITS + max(_integer_digits(x) for x in shifts)

    with decimal.localcontext(_decimal_context(prec)):
        exps = [_to_decimal(x).exp() for x in shifts]
        coef = {
            True: [_to_decimal(b - 2) for b in b_q],  # beta_i - 1 - y on y = +1
            False: [_to_decimal(b) for b in b_q],  # beta_i - 1 - y on y = -1
        }
        diffs = [[_to_decimal(bl - bi) for bi in b_q] for bl in b_q]
        loss, grad_a, grad_b, mean_g, second, mean_gp = _general_sums(
            d, s, l_eff, exps, coef, diffs
        )

    bits = _bits(prec)
    sup_e = max(abs(b) for b in b_q) + 2
    sup = {
        "loss": sup_e * sup_e / 2,
        "grad_alpha": sup_e * (max(b_q) - min(b_q)) / 4,
        "grad_beta": sup_e,
        "mean_gamma": Fraction(1),
        "second_moment": Fraction(1),
        "mean_gamma_positive": Fraction(1),
    }
    conv = functools.partial(_to_mpf, bits=bits)
    return GeneralEnumerationResult(
        d=d,
        s=s,
        L=L,
        dps=dps,
        loss=conv(loss),
        grad_alpha=tuple(map(conv, grad_a)),
        grad_beta=tuple(map(conv, grad_b)),
        mean_gamma=tuple(map(conv, mean_g)),
        second_moment=mpmath.matrix([[conv(x) for x in row] for row in second]),
        mean_gamma_positive=tuple(map(conv, mean_gp)),
        positive_mass=_positive_mass(d, L),
        neglected_mass=q**L,
        n_vectors=n_vectors,
        tail_bound=_bounds(sup, q**L, bits),
        rounding_bound=_bounds(sup, _rounding_factor(n_vectors, 10 * d + 50, dps), bits),
    )


def _general_sums(
    d: int,
    s: int,
    L: int,
    exps: list[decimal.Decimal],
    coef: dict[bool, list[decimal.Decimal]],
    diffs: list[list[decimal.Decimal]],
) -> tuple:
    """Weighted sums over all count vectors with 1 <= |C| <= L, in the current decimal context.

    exps[i] = e^{alpha_i - max alpha}; coef[y = +1][i] = beta_i - 1 - y; diffs[l][i] =
    beta_l - beta_i.  Returns (loss, grad_alpha, grad_beta, E[gamma], E[gamma gamma^T],
    E[gamma 1{C_s >= 1}]) as Decimals (lists, list of lists).
    """
    zero = decimal.Decimal(0)
    loss = zero
    grad_a, grad_b = [zero] * d, [zero] * d
    mean_g, mean_gp = [zero] * d, [zero] * d
    second = [[zero] * d for _ in range(d)]
    factorials = [math.factorial(i) for i in range(L + 1)]
    prefactor = Fraction(1, (d - 1) * d)  # p q^(m-1) / d^m at m = 1
    step = Fraction(d - 2, (d - 1) * d)  # q / d
    for m in range(1, L + 1):
        c_m = _to_decimal(prefactor)
        prefactor *= step
        for counts in _compositions(m, d):
            present = [i for i in range(d) if counts[i]]
            v = [exps[i] * counts[i] for i in present]
            u = sum(v, zero)
            g = [vi / u for vi in v]
            b = coef[counts[s] > 0]
            e = sum((b[i] * gi for i, gi in zip(present, g)), zero)
            multinomial = factorials[m]
            for c in counts:
                multinomial //= factorials[c]
            w = c_m * multinomial
            we = w * e
            loss += we * e
            for idx, i in enumerate(present):
                wgi, wegi = w * g[idx], we * g[idx]
                grad_b[i] += wegi
                mean_g[i] += wgi
                if counts[s] > 0:
                    mean_gp[i] += wgi
                row = diffs[i]
                slope = sum((row[j] * g[jdx] for jdx, j in enumerate(present) if j != i), zero)
                grad_a[i] += wegi * slope
                for jdx in range(idx, len(present)):
                    second[i][present[jdx]] += wgi * g[jdx]
    for i in range(d):
        for j in range(i):
            second[i][j] = second[j][i]
    return loss / 2, grad_a, grad_b, mean_g, second, mean_gp


def _compositions(m: int, parts: int) -> Iterator[tuple[int, ...]]:
    """All tuples of `parts` non-negative integers summing to m."""
    if parts == 1:
        yield (m,)
        return
    for first in range(m, -1, -1):
        for rest in _compositions(m - first, parts - 1):
            yield (first, *rest)


def _positive_mass(d: int, L: int) -> Fraction:
    """P(C_s >= 1, m <= L) = sum_{m <= L} p q^(m-1) (1 - ((d-1)/d)^m), exactly."""
    p = Fraction(1, d - 1)
    q, r = 1 - p, Fraction(d - 1, d)
    return sum((p * q ** (m - 1) * (1 - r**m) for m in range(1, L + 1)), Fraction(0))


# -------------------------------------------------------------------- helpers


def _check_int(x: int, name: str, minimum: int) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}")
    return int(x)


def _effective_length(L: int, q: Fraction) -> int:
    """For d = 2 (q = 0) every word has length 1, so longer lengths carry no mass."""
    return min(L, 1) if q == 0 else L


def _exact(x: RealLike) -> Fraction:
    """The exact rational value of a finite real input (floats and mpf exactly as stored)."""
    if isinstance(x, bool):
        raise TypeError("expected a real number, got bool")
    if isinstance(x, (int, Fraction, numbers.Rational)):
        return Fraction(x.numerator, x.denominator)
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError("parameters must be finite")
        man, exp = x.man_exp
        return Fraction(man) * Fraction(2) ** exp
    if isinstance(x, decimal.Decimal):
        if not x.is_finite():
            raise ValueError("parameters must be finite")
        return Fraction(x)
    if isinstance(x, str):
        return Fraction(x)
    if isinstance(x, numbers.Real):
        value = float(x)
        if not math.isfinite(value):
            raise ValueError("parameters must be finite")
        return Fraction(value)
    raise TypeError(f"expected a real number, got {type(x).__name__}")


def _integer_digits(x: Fraction) -> int:
    """Decimal digits of ceil(|x|) (0 if |x| < 1): the precision an exp(x) argument eats."""
    n = math.ceil(abs(x))
    return len(str(n)) if n >= 1 else 0


def _decimal_context(prec: int) -> decimal.Context:
    return decimal.Context(
        prec=prec,
        rounding=decimal.ROUND_HALF_EVEN,
        Emax=decimal.MAX_EMAX,
        Emin=decimal.MIN_EMIN,
        traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow],
    )


def _to_decimal(x: Fraction) -> decimal.Decimal:
    """x rounded once to the current decimal context (numerator and denominator are exact)."""
    return decimal.Decimal(x.numerator) / decimal.Decimal(x.denominator)


def _bits(prec_digits: int) -> int:
    return math.ceil(prec_digits * math.log2(10)) + 8


def _to_mpf(x: decimal.Decimal, bits: int) -> mpmath.mpf:
    """The Decimal x as an mpmath.mpf, correctly rounded to `bits` bits."""
    num, den = x.as_integer_ratio()
    return mpmath.mp.make_mpf(libmp.from_rational(num, den, bits, libmp.round_nearest))


def _fraction_to_mpf_up(x: Fraction, bits: int) -> mpmath.mpf:
    """x rounded upwards to `bits` bits (bounds stay bounds)."""
    return mpmath.mp.make_mpf(libmp.from_rational(x.numerator, x.denominator, bits, libmp.round_up))


def _rounding_factor(n_terms: int, roundings_per_term: int, dps: int) -> Fraction:
    """2 (n_terms + c) 10^(1 - dps - GUARD_DIGITS): first-order bound per unit of B_X."""
    return Fraction(2 * (n_terms + roundings_per_term), 10 ** (dps + GUARD_DIGITS - 1))


def _bounds(sup: dict[str, Fraction], factor: Fraction, bits: int) -> Mapping[str, mpmath.mpf]:
    return MappingProxyType({k: _fraction_to_mpf_up(v * factor, bits) for k, v in sup.items()})
