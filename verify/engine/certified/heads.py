"""H heads on Arb balls: the cross-head blocks E[gamma^h gamma^g^T] and the stacked system
(Q = E[Gamma Gamma^T], m = E[Gamma 1{y=+1}]) of model (2) (:mod:`verify.engine.general.heads`).

Cross-head block, by the double Laplace identity 1/(u_h u_g) = int int e^(-t u_h - tau u_g) dt dtau
(the mpmath engine uses the Feynman parameter instead: an independent route):

    E[gamma^h_i gamma^g_j] = int_0^inf int_0^inf c^h_i c^g_j [x_i x_j G''(z)/d^2 + [i = j] x_i G'(z)/d] dt dtau,
    x_l = exp(-(t c^h_l + tau c^g_l)),  z = sum_l x_l / d,

in ``(u, v) = (ln t, ln tau)`` the integrand is ``A_i B_j G''/d^2 + [i = j] A_i (tau c^g_i) G'/d``
with ``A_l = t c^h_l x_l``, ``B_l = tau c^g_l x_l``: the single head's Gram kernel
(:func:`verify.engine.general.kernels.gram_weights`, :func:`~verify.engine.formulas.pgf_terms`)
with two exponent sources.  For real ``v`` it is analytic in ``u`` on ``|Im u| < pi/2`` (then
``Re(t c^h_l + tau c^g_l) > 0``, ``|z| < 1``) and vice versa, which is what
:func:`verify.engine.certified.gauss.gauss_2d` needs.  The strips ``t < t_lo``, ``tau < tau_lo``,
``t > T``, ``tau > T'`` are bounded in closed form (proofs/certified-general.md, section 5).
"""
from __future__ import annotations

import math
from typing import Sequence

from flint import acb, acb_mat, arb, arb_mat

from ..context import ARB
from ..formulas import pgf_terms
from ..general.kernels import gram_weights
from .balls import precision
from .gauss import gauss_2d
from .general import BallAttention, log_pieces, upper_ball, ball_vector, ball_moments

RULE_POINTS_2D = 10  # Gauss-Legendre points per side
CROSS_TOL_BITS = 20  # absolute goal 2^-20 per cross-head entry (the 2-D rule is the slow part)
WIDTH_2D = 4.0  # longest initial side of a rectangle in u or v (bisected further when needed)


def _cross_integrand(h: BallAttention, g: BallAttention):
    d, p, q = h.d, h.p, h.q

    def f(u, v):
        ta = ball_vector([(u + al).exp() for al in h.a])  # t c^h_l
        tb = ball_vector([(v + al).exp() for al in g.a])  # tau c^g_l
        ex = ta + tb
        x = ball_vector([(-e).exp() for e in ex])
        om = [-((-e).expm1()) for e in ex]
        small = (sum(om[1:], om[0]) + p * sum(x[1:], x[0])) / d  # 1 - q z, no cancellation
        G, _, _ = pgf_terms(ARB, small, None, None, p, q, 2)
        w_outer, w_diag = gram_weights(G[1], G[2], d)
        A, B = ta * x, tb * x
        mat = acb_mat if isinstance(u, acb) or isinstance(v, acb) else arb_mat
        out = mat([[a] for a in A * w_outer]) * mat([list(B)])  # outer product, in C
        diag = A * tb * w_diag
        for i in range(d):
            out[i, i] += diag[i]
        return out

    return f


def _corner_bound(f):
    """Upper bounds of the cell integrals from the lower corner: in (t, tau) the integrand
    F = c^h_i c^g_j E[C_i C_j e^(-t u_h - tau u_g)] decreases in t and in tau, so over
    [t0, t1] x [tau0, tau1] its integral is at most F(t0, tau0) (t1 - t0)(tau1 - tau0), and
    F(t0, tau0) = f(u0, v0) / (t0 tau0)."""
    def upper(box):
        a, b, c, e = box
        vals = f(arb(a), arb(c))
        scale = (arb(b - a).exp() - 1) * (arb(e - c).exp() - 1)
        return (vals * scale).entries()

    return upper


def _cut(att: BallAttention, other: BallAttention, tol_bits: int) -> tuple[float, float]:
    """(ln t_lo, ln T) for the variable of ``att`` (t_lo also scaled by the other head's smallest
    weight: the strip bound has c^g_j / c^g_i in it)."""
    p = float(att.p.mid())
    c_min = min(float(x.mid()) for x in att.c)
    o_min = min(float(x.mid()) for x in other.c)
    lo = math.log(p * o_min) - tol_bits * math.log(2) - 2
    T = (tol_bits * math.log(2) + 3 * math.log(1 / p) + math.log(att.d) + 30) / c_min
    return lo, math.log(T)


def strip_bounds(h: BallAttention, g: BallAttention, t_lo: arb, tau_lo: arb, T: arb,
                 T2: arb) -> list:
    """Upper bounds of the integral over the four strips, per entry (i, j) row-major."""
    d, p, q = h.d, h.p, h.q
    g1, g2 = 1 / p, 2 * q / (p * p)  # G'(1), G''(1)

    def hat(att, cut):  # G^(j)(z) on the strip beyond the cut: z <= mean e^(-cut c_l)
        x = [(-cut * cl).exp() for cl in att.c]
        small = arb(((sum(1 - xl for xl in x) + p * sum(x)) / d).lower())
        G, _, _ = pgf_terms(ARB, small, None, None, p, q, 2)
        return upper_ball(G[1]), upper_ball(G[2])

    h1, h2 = hat(h, T)
    k1, k2 = hat(g, T2)
    out = []
    for i in range(d):
        for j in range(d):
            ch, cg = h.c, g.c
            sh, sg = ch[i] + ch[j], cg[i] + cg[j]
            pre = ch[i] * cg[j]
            val = t_lo * pre * g2 / (d * d * sg) + tau_lo * pre * g2 / (d * d * sh)
            val += pre * h2 / (d * d) * (-T * sh).exp() / (sh * sg)
            val += pre * k2 / (d * d) * (-T2 * sg).exp() / (sh * sg)
            if i == j:
                val += t_lo * pre * g1 / (d * cg[i]) + tau_lo * pre * g1 / (d * ch[i])
                val += pre * h1 / d * (-T * ch[i]).exp() / (ch[i] * cg[i])
                val += pre * k1 / d * (-T2 * cg[i]).exp() / (ch[i] * cg[i])
            out.append(upper_ball(val))
    return out


def cross_block(d: int, alpha_h: Sequence[float], alpha_g: Sequence[float], bits: int = 64,
                tol_bits: int | None = None) -> arb_mat:
    """E[gamma^h gamma^g^T] (d x d) as balls, for two heads given exactly (floats)."""
    tol_bits = bits - 24 if tol_bits is None else tol_bits
    h = BallAttention.from_alpha(d, 0, alpha_h, bits)
    g = BallAttention.from_alpha(d, 0, alpha_g, bits)
    with precision(bits):
        ulo, uhi = _cut(h, g, tol_bits)
        vlo, vhi = _cut(g, h, tol_bits)
        us, vs = log_pieces(h, ulo, uhi, WIDTH_2D), log_pieces(g, vlo, vhi, WIDTH_2D)
        f = _cross_integrand(h, g)
        tol = 2.0**-tol_bits / (len(us) * len(vs))
        total = [arb(0)] * (d * d)
        for a, b in us:
            for c, e in vs:
                vals = gauss_2d(f, (a, b, c, e), tol, RULE_POINTS_2D, bits, upper=_corner_bound(f))
                total = [x + y for x, y in zip(total, vals)]
        strips = strip_bounds(h, g, arb(arb(ulo).exp().upper()), arb(arb(vlo).exp().upper()),
                              arb(arb(uhi).exp().lower()), arb(arb(vhi).exp().lower()))
        M = arb_mat(d, d)
        for k, (v, s) in enumerate(zip(total, strips)):
            M[k // d, k % d] = v + arb(0).union(s)
        return M


def head_system(d: int, s: int, rows: Sequence[Sequence[float]], bits: int = 64,
                cross_tol_bits: int = CROSS_TOL_BITS) -> tuple:
    """(Q, m): Q = E[Gamma Gamma^T] ((H d) x (H d), index h*d + i) and m = E[Gamma 1{y=+1}]
    (target s) as balls, for the H heads ``rows`` (floats, read exactly); the cross-head blocks
    to an absolute goal of 2^-cross_tol_bits (a floor needs Q to ~1e-6, not to 1e-12)."""
    H = len(rows)
    singles = [ball_moments(d, s, list(r), bits) for r in rows]
    Q = arb_mat(H * d, H * d)
    for k, mom in enumerate(singles):
        for i in range(d):
            for j in range(d):
                Q[k * d + i, k * d + j] = mom.second[i, j]
    for a in range(H):
        for b in range(a + 1, H):
            block = cross_block(d, rows[a], rows[b], bits, cross_tol_bits)
            for i in range(d):
                for j in range(d):
                    Q[a * d + i, b * d + j] = Q[b * d + j, a * d + i] = block[i, j]
    return Q, [x for mom in singles for x in mom.mean_positive]
