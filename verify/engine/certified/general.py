"""The general engine's moments on Arb balls: E[gamma], E[gamma 1{y=+1}], E[gamma gamma^T] and
the cross-head blocks of H heads, at an attention given exactly (floats are exact binary
rationals: ``arb(float)`` loses nothing).

The integrands are the general engine's own kernels (:func:`verify.engine.general.kernels.
mean_terms`, :func:`~verify.engine.general.kernels.gram_weights`,
:func:`~verify.engine.formulas.pgf_terms`) run on a third number type: this module is the
Arb backend (the mpmath and float64 ones are in :mod:`verify.engine.general.backends`).  It
supplies, at a node ``u = ln t`` (an ``arb``, or an ``acb`` rectangle for the error bound):
``tau_l = exp(u + a_l)`` (``a_l = alpha_l - max alpha``), ``x_l = exp(-tau_l)``,
``1 - x_l = -expm1(-tau_l)`` and ``1 - q z = mean(1 - x) + p mean(x)`` (no cancellation near
t = 0, where the naive ``1 - q z`` is a ball around 0 at the ellipse test).

Quadrature: :func:`verify.engine.certified.gauss.gauss_1d` (vector Petras rule, rigorous) on
pieces in ``u`` between the scales ``ln p``, ``-a_l`` (merged within a factor 8) and the cut;
below ``t_lo`` and above ``T`` the integrals are replaced by the proven bounds of
proofs/certified-general.md (a ball ``[0, bound]`` added to each entry).  Cross-head blocks use the
double Laplace integral over ``(t, tau)`` with :func:`~verify.engine.certified.gauss.gauss_2d`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from flint import arb, arb_mat

from ..context import ARB
from ..formulas import merge_scales, pgf_terms
from ..general.kernels import NodeTerms, gram_weights, mean_terms, slice_contraction
from .balls import precision
from .gauss import gauss_1d

RULE_POINTS = 16  # Gauss-Legendre points per piece (1-D)
PIECE_WIDTH = 1.2  # longest first piece in u (bisected further when needed)


# ------------------------------------------------------------------------------- the backend


def ball_vector(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _dot(V, w):
    acc = 0 * V[0]
    for v, x in zip(V, w):
        acc = acc + v * x
    return acc


def _col(V, s: int):
    return V[s]


def _put(V, s: int, value) -> None:
    V[s] = value


@dataclass(frozen=True)
class BallAttention:
    """One attention vector as balls: ``a_l = alpha_l - max alpha`` (exact), ``c_l = e^(a_l)``,
    ``p``, ``q``, ``d``, target ``s``, precision ``bits``."""

    d: int
    s: int
    a: tuple
    c: tuple
    p: arb
    q: arb
    bits: int

    @classmethod
    def from_alpha(cls, d: int, s: int, alpha: Sequence[float], bits: int) -> "BallAttention":
        vals = [float(x) for x in alpha]
        if len(vals) != d or not all(math.isfinite(x) for x in vals):
            raise ValueError(f"alpha must be {d} finite numbers")
        with precision(bits):
            top = max(vals)
            a = tuple(arb(x) - arb(top) for x in vals)
            p = 1 / arb(d - 1)
            return cls(d, s, a, tuple(x.exp() for x in a), p, 1 - p, bits)

    def exponentials(self, u) -> tuple:
        """(tau, x, 1 - q z, q x_s / d) at ``u = ln t`` (arb or acb)."""
        tau = [(u + al).exp() for al in self.a]
        x = [(-tl).exp() for tl in tau]
        om = [-((-tl).expm1()) for tl in tau]
        small = (sum(om[1:], om[0]) + self.p * sum(x[1:], x[0])) / self.d
        return ball_vector(tau), ball_vector(x), small, self.q * x[self.s] / self.d

    def node(self, u, order: int = 2) -> NodeTerms:
        """The kernels' view at ``u`` (integrands in ``du``): T_k = tau^k x (k <= 2), G, D."""
        tau, x, small, diff = self.exponentials(u)
        G, _, D = pgf_terms(ARB, small, small + diff, diff, self.p, self.q, order, g0=False)
        T1 = tau * x
        T2 = tau * T1
        return NodeTerms((x, T1, T2, None), (None, T1 / self.d, T2 / self.d, None), G, None, D,
                         self.d, self.s, _dot, _col, _put)


# ------------------------------------------------------------------------------ 1-D moments


def log_pieces(att: BallAttention, log_lo: float, log_hi: float,
            width: float = PIECE_WIDTH) -> list[tuple[float, float]]:
    """Pieces of [log_lo, log_hi] in u between the scales ln p and -a_l (merged), each at most
    ``width`` long."""
    merged = merge_scales({math.log(float(att.p.mid()))} | {-float(x.mid()) for x in att.a},
                          log=True)
    points = [log_lo] + [u for u in merged if log_lo < u < log_hi] + [log_hi]
    ends = [points[0]]
    for lo, hi in zip(points, points[1:]):
        n = max(1, math.ceil((hi - lo) / width))
        ends += [lo + (hi - lo) * k / n for k in range(1, n)] + [hi]
    return list(zip(ends, ends[1:]))  # consecutive pieces share their end points exactly


def cut_points(att: BallAttention, tol_bits: int) -> tuple[float, float]:
    """(ln t_lo, ln T): the head [0, t_lo] and the tail [T, inf) are left to the proven bounds
    (:func:`head_bounds`, :func:`tail_bounds`); chosen so that both fall below 2^-tol_bits."""
    p = float(att.p.mid())
    c_min = min(float(x.mid()) for x in att.c)
    lo = math.log(p) - tol_bits * math.log(2) - 2
    T = (tol_bits * math.log(2) + 3 * math.log(1 / p) + math.log(att.d) + 30) / c_min
    return lo, math.log(T)


def upper_ball(x: arb) -> arb:
    return arb(x.upper())


def head_bounds(att: BallAttention, t_lo: arb, full: bool) -> list:
    """Upper bounds of int_0^t_lo of every integrand (in t): G'(z) <= G'(1) = 1/p and
    G''(z) <= G''(1) = 2q/p^2 (z <= 1), x_l <= 1."""
    d, p, q = att.d, att.p, att.q
    g1, g2 = 1 / p, 2 * q / (p * p)
    mean = [t_lo * cl * g1 / d for cl in att.c]
    out = mean + mean
    for i in range(d):
        for j in range(i, d) if full else (i,):
            val = t_lo * t_lo / 2 * att.c[i] * att.c[j] * g2 / (d * d)
            if i == j:
                val += t_lo * t_lo / 2 * att.c[i] ** 2 * g1 / d
            out.append(val)
    return [upper_ball(v) for v in out]


def tail_bounds(att: BallAttention, T: arb, full: bool) -> list:
    """Upper bounds of int_T^inf of every integrand (in t), with Ghat_j = G^(j)(z(T)) (z decreases
    in t, G^(j) increases on [0, 1]): mean, positive part ``Ghat_1/d e^(-c_l T)``; second moment
    ``c_i c_j Ghat_2/d^2 Gamma(2, s T)/s^2`` (s = c_i + c_j) plus ``Ghat_1/d Gamma(2, c_i T)`` on the
    diagonal, Gamma(2, x) = (1 + x) e^(-x)."""
    d = att.d
    x = [(-T * cl).exp() for cl in att.c]
    small = (sum(1 - xl for xl in x) + att.p * sum(x)) / d
    small = arb(small.lower())  # a smaller 1 - q z gives larger G^(j)
    G, _, _ = pgf_terms(ARB, small, None, None, att.p, att.q, 2)
    g1, g2 = upper_ball(G[1]), upper_ball(G[2])
    mean = [g1 / d * xl for xl in x]
    out = mean + mean
    for i in range(d):
        for j in range(i, d) if full else (i,):
            sig = att.c[i] + att.c[j]
            val = att.c[i] * att.c[j] * g2 / (d * d) * (1 + sig * T) * (-sig * T).exp() / (sig * sig)
            if i == j:
                val += g1 / d * (1 + att.c[i] * T) * (-att.c[i] * T).exp()
            out.append(val)
    return [upper_ball(v) for v in out]


def _moment_integrand(att: BallAttention, full: bool):
    d = att.d

    def f(u):
        nt = att.node(u)
        mean, pos = mean_terms(nt)
        w_outer, w_diag = gram_weights(nt.G[1], nt.G[2], d)
        T1, diag = nt.T[1], nt.T[2] * w_diag
        out = list(mean) + list(pos)
        wy = T1 * w_outer
        for i in range(d):
            out.append(wy[i] * T1[i] + diag[i])
            if full:
                out += [wy[i] * T1[j] for j in range(i + 1, d)]
        return out

    return f


@dataclass(frozen=True)
class BallMoments:
    """E[gamma] (``mean``), E[gamma 1{y=+1}] (``mean_positive``) and E[gamma gamma^T] (``second``,
    an ``arb_mat``; only its diagonal when ``full`` is False) as balls."""

    d: int
    s: int
    mean: tuple
    mean_positive: tuple
    second: arb_mat | None
    second_diagonal: tuple
    bits: int


def ball_moments(d: int, s: int, alpha: Sequence[float], bits: int = 96,
                 full: bool = True) -> BallMoments:
    """Rigorous enclosures of the general engine's moments at ``alpha`` (exact floats)."""
    att = BallAttention.from_alpha(d, s, alpha, bits)
    tol_bits = bits - 24
    with precision(bits):
        lo, hi = cut_points(att, tol_bits)
        tol = 2.0 ** -tol_bits
        f = _moment_integrand(att, full)
        pieces = log_pieces(att, lo, hi)
        total = None
        for a, b in pieces:
            vals = gauss_1d(f, a, b, tol / len(pieces), max(RULE_POINTS, tol_bits // 4), bits)
            total = vals if total is None else [x + y for x, y in zip(total, vals)]
        t_lo, T = arb(lo).exp(), arb(hi).exp()
        extra = [h + t for h, t in zip(head_bounds(att, arb(t_lo.upper()), full),
                                       tail_bounds(att, arb(T.lower()), full))]
        vals = [v + arb(0).union(e) for v, e in zip(total, extra)]
        mean, pos = tuple(vals[:d]), tuple(vals[d:2 * d])
        rest = vals[2 * d:]
        if not full:
            return BallMoments(d, s, mean, pos, None, tuple(rest), bits)
        M = arb_mat(d, d)
        k = 0
        for i in range(d):
            for j in range(i, d):
                M[i, j] = M[j, i] = rest[k]
                k += 1
        return BallMoments(d, s, mean, pos, M, tuple(M[i, i] for i in range(d)), bits)


def ball_loss(d: int, s: int, alpha: Sequence[float], beta: Sequence[float], bits: int = 96) -> arb:
    """L_s(alpha, beta) = 1/2 E[(beta.gamma)^2] - 2 beta.E[gamma 1{y=+1}] + 1 as a ball, in O(d)
    per node: E[(beta.gamma)^2] from the kernels' slice contraction
    (:func:`verify.engine.general.kernels.slice_contraction`, all words, 'Q'), the linear term
    from :func:`~verify.engine.general.kernels.mean_terms`.  Head and tail: the entries' bounds
    weighted by |beta_i beta_j| and |beta_l| (the integrands are sums of those entries)."""
    att = BallAttention.from_alpha(d, s, alpha, bits)
    tol_bits = bits - 24
    with precision(bits):
        w = ball_vector([arb(float(b)) for b in beta])
        if len(w) != d:
            raise ValueError(f"beta must have length d = {d}")

        def f(u):
            nt = att.node(u)
            _, pos = mean_terms(nt)
            _, _, quad = slice_contraction("all", nt, w, want="Q")
            return [quad, _dot(pos, w)]

        lo, hi = cut_points(att, tol_bits)
        pieces = log_pieces(att, lo, hi)
        total = [arb(0), arb(0)]
        for a, b in pieces:
            vals = gauss_1d(f, a, b, 2.0**-tol_bits / len(pieces), max(RULE_POINTS, tol_bits // 4), bits)
            total = [x + y for x, y in zip(total, vals)]
        bounds = [h + t for h, t in zip(head_bounds(att, arb(arb(lo).exp().upper()), True),
                                       tail_bounds(att, arb(arb(hi).exp().lower()), True))]
        aw = [abs(x) for x in w]
        lin = sum((aw[l] * bounds[d + l] for l in range(d)), arb(0))
        quad, k = arb(0), 2 * d
        for i in range(d):
            for j in range(i, d):
                quad += (1 if i == j else 2) * aw[i] * aw[j] * bounds[k]
                k += 1
        second = total[0] + arb(0).union(upper_ball(quad))
        first = total[1] + arb(0).union(upper_ball(lin)) - arb(0).union(upper_ball(lin))
        return second / 2 - 2 * first + 1
