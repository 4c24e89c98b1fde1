"""The moments mu_r, nu_r of gamma_s as Arb balls (rigorous enclosures).

Same integrand as the mpmath route (:func:`verify.engine.expectations.moment_integrand`), run on
complex balls by ``acb.integral`` (Petras' algorithm: Gauss-Legendre with a rigorous error bound
from the integrand's values on ellipses).  The range ``[0, T]`` is split at the integrand's scales
(the first piece in ``t``, later ones in ``u = ln t``, as in :mod:`verify.engine.quadrature`);
``[T, inf)`` is replaced by the ball ``[0, B_r(T)]`` with the proven tail bound ``B_r`` of
proofs/tail-bound.md, the cut ``T`` doubled until ``B_r(T)`` is below the working precision
relative to the value.  ``d`` and ``gap`` may be balls: the result then contains the moment for
every point of the box.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from flint import acb, arb, ctx

from ..expectations import MomentSetup, moment_integrand, moment_setup, tail_bound, tail_coefficients
from ..formulas import merge_scales
from ..symbolic import Family
from .balls import ARB, precision

MAX_DOUBLINGS = 200


@dataclass(frozen=True)
class SymmetricBallMoments:
    """``values[r-1]`` is a ball containing E[g^r 1{k>=1}] (g = gamma or 1 - gamma)."""

    family: Family
    values: tuple
    bits: int
    cut: float  # the tail starts at t = cut
    tail: tuple  # the proven tail bounds B_r(cut) included in the radii


def log_break_points(s: MomentSetup) -> list[float]:
    """ln of the integrand's scales (see :func:`verify.engine.expectations.scales`), from the
    balls' midpoints: where to split is a choice, not a claim, so floats are enough."""
    lc = [_log_mid(s.c_target), _log_mid(s.c_back)]
    lp = _log_mid(s.p)
    l_max, l_min = max(lc), min(lc)
    l_mean = l_max + math.log1p(math.exp(l_min - l_max)) - math.log(2)
    return merge_scales({lp - l_max, lp - l_mean, -l_max, -l_mean, -l_min}, log=True)


def _log_mid(x: arb) -> float:
    """ln of a positive ball's midpoint as a float, also when the midpoint is below the float
    range (a background weight e^-gap at gaps beyond 700)."""
    mid = float(x.mid())
    return math.log(mid) if mid > 1e-300 else float(x.mid().log())


def gap_log(s: MomentSetup) -> arb:
    """ln c_target (the decay rate of the tail is c_target)."""
    return s.c_target.log()


def _references(values: list) -> list[arb]:
    """The size each tail is measured against: the magnitude of the value's midpoint, or the
    largest of the family when a midpoint is 0 (as :func:`verify.engine.quadrature._references`)."""
    mids = [abs(v.mid()) for v in values]
    top = max(mids, key=float)
    top = top if top > 0 else arb(1)
    return [m if m > 0 else top for m in mids]


def piece_integrals(s: MomentSetup, piece: tuple, t0: float, abs_tol: list,
                    eval_limit: int | None = None) -> list[arb]:
    """int of integrand_r over one ``piece = (a, b, log_scale)`` for r = 1..order: [a, b] in t,
    or [t0 e^a, t0 e^b] in v = ln(t/t0), one ``acb.integral`` per r (``abs_tol[r-1]`` is a goal
    for the error, not a claim: the returned ball contains the integral whatever it is).  Every
    end point is a float, exact in both variables, so the pieces meet exactly: the t-piece ends
    at t0 where the v-pieces start (v = 0).  Every ball route of the symmetric moments integrates
    through it.

    :func:`moment_integrand` gives every r at once, and the integrals of the r's evaluate it at
    many of the same nodes (wherever their subdivisions agree): each node's vector is formed
    once and kept for the piece, keyed by the node's exact midpoints and radii and the working
    precision, so every integral sees the balls a fresh evaluation would give."""
    a, b, log_scale = piece
    start, memo = arb(t0), {}

    def vector(z: acb) -> list:
        key = (ctx.prec, *(x.man_exp() for x in (z.real.mid(), z.real.rad(), z.imag.mid(),
                                                  z.imag.rad())))
        if key not in memo:
            if log_scale:
                t = start * z.exp()
                memo[key] = [y * t for y in moment_integrand(t, s, ARB)]
            else:
                memo[key] = moment_integrand(z, s, ARB)
        return memo[key]

    return [acb.integral(lambda z, _analytic, r=r: vector(z)[r], arb(a), arb(b), abs_tol=tol,
                         eval_limit=eval_limit).real for r, tol in enumerate(abs_tol)]


def _integrate(s: MomentSetup, K: list, pieces: list, logs: list, abs_tol: list, bits: int,
               eval_limit: int | None = None):
    """Integrate every piece, then double the cut until the tail bound is negligible; returns
    (values without the tail, tail bounds at the cut, the cut).  ``logs`` are v = ln(t/t0)."""
    values = [arb(0)] * s.order
    t0 = pieces[0][1]
    for _ in range(MAX_DOUBLINGS):
        for a, b, log_scale in pieces:
            values = [v + x for v, x in zip(values, piece_integrals(s, (a, b, log_scale), t0,
                                                                   abs_tol, eval_limit))]
        if not all(v.is_finite() for v in values):  # parameter balls too wide: caller splits
            raise ArithmeticError("the integral's enclosure is not finite")
        end = (arb(t0) * arb(logs[-1]).exp()).lower()  # the bound decreases in the cut
        tail = tail_bound(end, s, ARB, K)
        # negligible against the working precision, or against the ball's own width (wide
        # parameter balls)
        refs = [max(arb(2) ** -bits * ref, v.rad() / 1024, key=float)
                for v, ref in zip(values, _references(values))]
        if all(t.upper() <= ref for t, ref in zip(tail, refs)):
            return values, tail, end
        pieces = [(logs[-1], logs[-1] + math.log(2), True)]
        logs.append(logs[-1] + math.log(2))
    raise ArithmeticError("tail bound did not fall below the tolerance")


def symmetric_ball_moments(d, gap, family: Family, order: int, bits: int,
                           eval_limit: int | None = None) -> SymmetricBallMoments:
    """Enclosures of mu_r (family ``mu``) or nu_r (``nu``), r = 1..order, at ``bits`` bits.

    ``d`` (>= 2) and ``gap`` (= alpha_s - alpha_j) are numbers or balls; ``eval_limit`` caps the
    integrand evaluations per piece (Arb's default otherwise): with wide balls a capped
    integral returns a wide ball quickly, and branch and bound splits the box."""
    with precision(bits):
        s = moment_setup(d, gap, family, order, ARB)
        K = tail_coefficients(s)
        if all(k.upper() <= 0 for k in K):  # 0 <= integrand <= K t^(r-1) e^(-ct) = 0 (nu at d = 2)
            return SymmetricBallMoments(family, tuple(arb(0) for _ in K), bits, 0.0, tuple(K))
        logs = log_break_points(s)
        k_max = max(float(k.upper().log()) for k in K)
        log_cut = math.log(max(k_max + bits * math.log(2) + 5 * order, 1.0)) - float(gap_log(s))
        if log_cut > logs[-1]:
            logs.append(log_cut)
        t0 = math.exp(logs[0])
        logs = [u - logs[0] for u in logs]  # v = ln(t / t0): v = 0 is exactly t0
        first = [(0.0, t0, False)] + [(a, b, True) for a, b in zip(logs, logs[1:])]
        # size of each integral: the tail bound from 0 (an upper bound, often far above the
        # value); once the value is known, a second pass if that was too coarse a goal
        scale = [k.upper() * math.factorial(r) / s.c_target.upper() ** (r + 1)
                 for r, k in enumerate(K)]
        for _ in range(2):
            tol = [x * arb(2) ** -bits for x in scale]
            values, tail, end = _integrate(s, K, first, list(logs), tol, bits, eval_limit)
            mids = [abs(v.mid()) for v in values]
            if all(x <= m * 2**20 for x, m in zip(scale, mids)):
                break
            scale = [m if m > 0 else x * arb(2) ** -bits for m, x in zip(mids, scale)]
        out = tuple(v + arb(0).union(t.upper()) for v, t in zip(values, tail))
        return SymmetricBallMoments(family, out, bits, float(end), tuple(tail))
