"""H heads (model (2)): second moments of the concatenated attention, both number types.

Model (2): f = sum_h B[h].gamma^(h) - 1.  With Gamma = vec(gamma^(1), ..., gamma^(H)) (index
h*d + i) the loss is L = 1/2 vec(B)' MM vec(B) - 2 vec(B)' m_+ + 1 with MM = E[Gamma Gamma^T] and
m_+ = E[Gamma Y] (the single-head identity), so inf over B is a linear solve
(:mod:`.optimum`).  Same-head blocks and m_+ come from the moments pass.  Cross-head blocks:

  E[gamma^h_i gamma^g_j] = c^h_i c^g_j E[C_i C_j / (u_h u_g)],
  1/(u_h u_g) = int_0^1 dlam / (lam u_h + (1 - lam) u_g)^2            (Feynman parameter),

and lam u_h + (1 - lam) u_g = sum_l C_l c^lam_l is ONE head with weights c^lam = lam c^h +
(1 - lam) c^g, so the inner expectation is the single-head Laplace integral
N(c)_ij = E[C_i C_j / u^2] = int t (x_i x_j G''/d^2 + delta_ij x_i G'/d) dt at c = c^lam
(:func:`.kernels.gram_weights`).  [1/2, 1] is mapped onto [0, 1/2] by swapping the heads, so both
halves have their scale changes near lam = 0 (at lam ~ c^g_l / c^h_l).  In mpmath this is a
NESTED integrate (an inner t-integral per outer node): correct but slow (8-50 s per pair of heads
at d = 4, minutes at d = 9, 15 digits); :func:`head_moments_float` does the same 2-D integral on
a product grid in numpy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from ..context import FP, MP
from ..formulas import pgf_terms
from ..precision import check_dps, working
from ..quadrature import integrate
from .attention import TAIL_SAFETY, GeneralAttention, check_d_s, float_vector, mpf_vector
from .backends import FLOAT_STEP, float_nodes, mp_exponentials
from .kernels import gram_weights
from .moments import moments, moments_float

FLOAT_THETA_STEP = 0.5


def _inner_second(att: GeneralAttention):
    """(values, errors, evaluations) of the upper triangle of N(c)_ij = E[C_i C_j / u^2]."""
    d, dd, c = att.d, att.dd, att.c
    dd2 = dd * dd

    def integrand(t):  # only G', G'' of the word pgf and the x_l (not mp_node's other terms)
        ex = mp_exponentials(t, att)
        G, _, _ = pgf_terms(MP, ex.small, None, None, att.p, att.q, 2)
        w_outer, w_diag = gram_weights(G[1], G[2], d)
        x = ex.x
        ax = x * (t * w_outer)
        b = t * w_diag
        out = []
        for i in range(d):
            out.append(b * x[i] + ax[i] * x[i])
            out += list(x[i + 1:] * ax[i])  # the array on the left of the mpf
        return out

    def tail_bound(T):
        _, gh, _ = att.tail_values(T, 2)
        g1d, g2d2 = gh[1] / dd, gh[2] / dd2
        out = []
        for i in range(d):
            out.append(TAIL_SAFETY * (g1d + g2d2) * mpmath.gammainc(2, c[i] * T) / c[i] ** 2)
            for j in range(i + 1, d):
                sig = c[i] + c[j]
                out.append(TAIL_SAFETY * g2d2 * mpmath.gammainc(2, sig * T) / sig**2)
        return out

    res = integrate(integrand, att.points, d * (d + 1) // 2, tail_bound, rel_tol=att.rel_tol)
    rr = att.rounding_rel()
    return res.values, [e + rr * abs(v) for e, v in zip(res.errors, res.values)], res.evaluations


def _lambda_points(ch: list, cg: list) -> list:
    """Outer break points in (0, 1/2]: the crossovers lam c^h_l = (1 - lam) c^g_l, merged."""
    half = mpmath.mpf(1) / 2
    cross = sorted({r / (1 + r) for r in (g / h for h, g in zip(ch, cg))})
    inner = [x for x in cross if x < half / 8]
    pts = []
    for x in inner:
        if not pts or x > 8 * pts[-1]:
            pts.append(x)
    return [mpmath.mpf(0), *pts, half]


def _cross_block(d: int, s: int, ch: list, cg: list, dps: int):
    """E[gamma^h gamma^g^T] (d x d) and its error matrix, by the nested integral above."""
    size = d * (d + 1) // 2
    total = [mpmath.mpf(0)] * size
    err = [mpmath.mpf(0)] * size
    evaluations = 0
    for first, second in ((ch, cg), (cg, ch)):
        inner_rel = [mpmath.mpf(0)] * size
        counter = [0]

        def integrand(lam, first=first, second=second, inner_rel=inner_rel, counter=counter):
            mix = [lam * a + (1 - lam) * b for a, b in zip(first, second)]
            vals, errs, n = _inner_second(GeneralAttention.from_weights(d, s, mix, dps))
            counter[0] += n
            for k in range(size):  # N(c)_ij > 0: track the largest relative inner error
                inner_rel[k] = max(inner_rel[k], errs[k] / vals[k] if vals[k] else mpmath.inf)
            return list(vals)

        def tail_bound(T):
            # the integrand is only used on [0, 1/2]; beyond the last point it is taken as 0
            return [mpmath.mpf(0)] * size

        # Outer tolerance 10^-dps: the inner values are only good to ~10^-(dps+2) relative, so a
        # tighter outer tolerance never converges and refines to the rule's top degree.
        res = integrate(integrand, _lambda_points(first, second), size, tail_bound,
                        rel_tol=mpmath.mpf(10) ** (-dps))
        total = [a + b for a, b in zip(total, res.values)]
        # outer estimate + propagated inner error: the integrand is positive, so an inner
        # relative error <= r at every node moves the integral by <= r times its value
        err = [a + b + r * v for a, b, r, v in zip(err, res.errors, inner_rel, res.values)]
        evaluations += counter[0]
    block, eblock = mpmath.matrix(d, d), mpmath.matrix(d, d)
    k = 0
    for i in range(d):
        for j in range(i, d):
            for (a, b) in ((i, j), (j, i)):
                block[a, b] = ch[a] * cg[b] * total[k]
                eblock[a, b] = ch[a] * cg[b] * err[k]
            k += 1
    return block, eblock, evaluations


@dataclass(frozen=True)
class HeadMoments:
    """E[Gamma Gamma^T] ((H d) x (H d), index h*d + i) and E[Gamma 1{y=+1}] for H heads.

    ``cross`` is 'nested' (cross-head blocks by the nested integral) or 'none' (cross blocks
    left as NaN: only the same-head blocks are exact).  ``errors`` holds matching error
    estimates (ESTIMATED).
    """

    H: int
    d: int
    s: int
    dps: int
    second: mpmath.matrix
    mean_positive: tuple
    errors: dict
    cross: str
    evaluations: int


def check_alphas(alphas, d: int | None = None) -> list:
    """The rows of an H x d attention (or output) array, else ValueError."""
    try:
        rows = [list(r) for r in alphas]
    except TypeError:
        raise ValueError("alphas must be a sequence of H attention vectors") from None
    if not rows:
        raise ValueError("alphas must hold at least one head")
    if d is not None and any(len(r) != d for r in rows):
        raise ValueError(f"every head's alpha must have length d = {d}")
    return rows


def head_moments(d: int, s: int, alphas, dps: int = 20, cross: str = "nested") -> HeadMoments:
    """Second moments of the concatenated attention of H heads (model (2)); module docstring."""
    d, s = check_d_s(d, s)
    dps = check_dps(dps)
    if cross not in ("nested", "none"):
        raise ValueError(f"cross must be 'nested' or 'none', got {cross!r}")
    rows = check_alphas(alphas, d)
    H = len(rows)
    singles = [moments(d, s, r, dps) for r in rows]
    evaluations = sum(m.evaluations for m in singles)
    with working(dps):
        MM = mpmath.matrix(H * d, H * d)
        EE = mpmath.matrix(H * d, H * d)
        cs = [GeneralAttention.from_alpha(d, s, r, dps).c for r in rows]
        for h, m in enumerate(singles):
            for i in range(d):
                for j in range(d):
                    MM[h * d + i, h * d + j] = m.second[i, j]
                    EE[h * d + i, h * d + j] = m.errors["second"][i, j]
        for h in range(H):
            for g in range(h + 1, H):
                if cross == "nested":
                    block, eblock, n = _cross_block(d, s, cs[h], cs[g], dps)
                    evaluations += n
                else:
                    block = mpmath.matrix([[mpmath.nan] * d for _ in range(d)])
                    eblock = mpmath.matrix([[mpmath.nan] * d for _ in range(d)])
                for i in range(d):
                    for j in range(d):
                        MM[h * d + i, g * d + j] = MM[g * d + j, h * d + i] = block[i, j]
                        EE[h * d + i, g * d + j] = EE[g * d + j, h * d + i] = eblock[i, j]
        mpos = tuple(x for m in singles for x in m.mean_positive)
        epos = tuple(x for m in singles for x in m.errors["mean_positive"])
        return HeadMoments(H, d, s, dps, MM, mpos, {"second": EE, "mean_positive": epos},
                           cross, evaluations)


def heads_quadratic(MM, mpos, B: list):
    """1/2 b' MM b - 2 b' m_+ + 1 for b = vec(B) (mpmath)."""
    n = len(B)
    quad = mpmath.fsum(B[a] * MM[a, b] * B[b] for a in range(n) for b in range(n))
    return quad / 2 - 2 * mpmath.fsum(x * y for x, y in zip(B, mpos)) + 1


def heads_loss(d: int, s: int, alphas, B, dps: int = 20, moments_: HeadMoments | None = None):
    """L_s for model (2) (bias -1) at attention ``alphas`` (H x d) and output ``B`` (H x d)."""
    d, s = check_d_s(d, s)
    rows = check_alphas(alphas, d)
    Brows = check_alphas(B, d)
    if len(Brows) != len(rows):
        raise ValueError("B must have one row per head")
    hm = moments_ if moments_ is not None else head_moments(d, s, rows, dps)
    with working(hm.dps):
        b = [x for r in Brows for x in mpf_vector(r, d, "B row")]
        return heads_quadratic(hm.second, hm.mean_positive, b)


# ----------------------------------------------------------------------------------- float64


@dataclass(frozen=True)
class FloatHeadMoments:
    """float64 MM = E[Gamma Gamma^T], m_+ = E[Gamma Y] and their estimates (ESTIMATED).

    Unpacks as ``(second, mean_positive, errors)``, the shape callers used before.
    """

    second: np.ndarray
    mean_positive: np.ndarray
    errors: dict

    def __iter__(self):
        return iter((self.second, self.mean_positive, self.errors))


def _float_cross_block(d: int, u: np.ndarray, la: np.ndarray, lb: np.ndarray, h: float,
                       h_theta: float) -> tuple:
    """(block, error) of E[gamma^a gamma^b^T] on the product grid (theta, u)."""
    p = 1.0 / (d - 1)
    q = 1.0 - p
    lt_a = u[:, None] + la[None, :]  # ln(t c^a_l)
    lt_b = u[:, None] + lb[None, :]
    ratio = lb - la  # ln c^b_l / c^a_l
    th_lo, th_hi = ratio.min() - 40.0, ratio.max() + 40.0
    m_th = int(math.ceil((th_hi - th_lo) / h_theta))
    m_th += m_th % 2
    thetas = th_lo + h_theta * np.arange(m_th + 1)
    acc = np.zeros((4, d, d))  # [full, half-theta, half-u, half-u and half-theta]
    for k, th in enumerate(thetas):
        log_lam, log_mu = -np.logaddexp(0.0, -th), -np.logaddexp(0.0, th)
        with np.errstate(over="ignore"):
            mix = np.exp(np.logaddexp(log_lam + lt_a, log_mu + lt_b))  # t c^lam_l
        x = np.exp(-mix)
        om = -np.expm1(-mix)
        small = om.mean(axis=1) + p * x.mean(axis=1)
        G, _, _ = pgf_terms(FP, small, None, None, p, q, 2)
        w2, wd = gram_weights(G[1], G[2], d)
        # t c^a_l x_l, t c^b_l x_l and t^2 c^a_l c^b_l x_l overflow alone when the logits
        # spread over hundreds (t c^a_l ~ e^700 where the mixture is small); every term of the
        # block is >= 0 and the block is <= 1, so each row's largest term with its weights
        # folded in is moderate: scale each row by it in log space.
        log_a, log_b = lt_a - mix, lt_b - mix
        top_a, top_b = log_a.max(axis=1), log_b.max(axis=1)  # -inf where t c^lam_l = inf
        with np.errstate(divide="ignore", over="ignore"):  # weight 0, tops ~ -1e308: rows of 0
            row = np.exp(top_a + top_b + log_lam + log_mu + np.log(w2))
            diag = np.exp(lt_a + log_b + log_lam + log_mu + np.log(wd)[:, None])
        shift_a, shift_b = (np.where(np.isfinite(t), t, 0.0)[:, None] for t in (top_a, top_b))
        Ya, Yb = np.exp(log_a - shift_a) * row[:, None], np.exp(log_b - shift_b)
        for half_u, rows_u, step in ((0, slice(None), h), (1, slice(None, None, 2), 2 * h)):
            blk = Ya[rows_u].T @ Yb[rows_u]
            blk[np.diag_indices(d)] += diag[rows_u].sum(axis=0)
            blk *= step
            acc[2 * half_u] += h_theta * blk
            if k % 2 == 0:
                acc[2 * half_u + 1] += 2 * h_theta * blk
    return acc[0], np.abs(acc[0] - acc[1]) + np.abs(acc[0] - acc[2])


def head_moments_float(d: int, s: int, alphas, h: float = FLOAT_STEP,
                       h_theta: float = FLOAT_THETA_STEP) -> FloatHeadMoments:
    """(MM, m_+, errors) in float64 for H heads; cross blocks by a 2-D product trapezoid rule.

    Outer variable theta = logit(lam): dlam/(lam u_h + (1-lam) u_g)^2 = e^theta dtheta /
    (e^theta u_h + u_g)^2 (analytic for |Im theta| < pi, decays like e^(-|theta|) beyond the
    crossover range [ln min_l c^g_l/c^h_l, ln max_l ...], which is padded by 40 on each side);
    inner variable u = ln t on one grid valid for every mixture (its range covers both heads).
    Errors: |I - I(every other node)| in each variable, added.

    >>> MM, mpos, _ = head_moments_float(3, 0, [[0, 0, 0], [0, 0, 0]])  # two equal heads
    >>> bool(np.allclose(MM[:3, 3:], MM[:3, :3], rtol=1e-12))
    True
    """
    d, s = check_d_s(d, s)
    rows = [float_vector(r, d, "alpha") for r in check_alphas(alphas, d)]
    H = len(rows)
    singles = [moments_float(d, s, r, h) for r in rows]
    logc = [r - r.max() for r in rows]
    u = float_nodes(d, min(lc.min() for lc in logc), h)
    MM = np.zeros((H * d, H * d))
    EE = np.zeros((H * d, H * d))
    for a, m in enumerate(singles):
        MM[a * d:(a + 1) * d, a * d:(a + 1) * d] = m.second
        EE[a * d:(a + 1) * d, a * d:(a + 1) * d] = m.errors["second"]
    for a in range(H):
        for b in range(a + 1, H):
            block, err = _float_cross_block(d, u, logc[a], logc[b], h, h_theta)
            MM[a * d:(a + 1) * d, b * d:(b + 1) * d] = block
            MM[b * d:(b + 1) * d, a * d:(a + 1) * d] = block.T
            EE[a * d:(a + 1) * d, b * d:(b + 1) * d] = err
            EE[b * d:(b + 1) * d, a * d:(a + 1) * d] = err.T
    mpos = np.concatenate([m.mean_positive for m in singles])
    epos = np.concatenate([m.errors["mean_positive"] for m in singles])
    return FloatHeadMoments(MM, mpos, {"second": EE, "mean_positive": epos})
