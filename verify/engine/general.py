"""Population expectations of models (1) and (2) at ARBITRARY attention (notes, sections 1, 2, 4).

Conventions (as in :mod:`verify.engine.enumeration`): symbols are 0-based, ``s`` is the target,
``Y = 1{C_s >= 1}`` (so ``y = 2Y - 1``), ``c_l = e^{alpha_l}`` (internally rescaled to
``c_l = e^{alpha_l - max alpha}``: gamma does not change), ``x_l(t) = exp(-t c_l)``,
``z = sum_l x_l / d``, ``G(z) = p z / (1 - q z)``, ``p = 1/(d-1)``, ``q = 1 - p``,
``gamma_i = C_i c_i / u`` with ``u = sum_l C_l c_l``.

Laplace representation
----------------------
For a word ``u >= min_l c_l > 0``, so ``u^-r = (1/(r-1)!) int_0^inf t^(r-1) e^(-t u) dt`` and, by
Tonelli, for any function ``g >= 0`` of the counts (and then for signed ``g`` by linearity)

    E[g(C) / u^r] = (1/(r-1)!) int_0^inf t^(r-1) E[g(C) prod_l x_l^(C_l)] dt.

``E[prod x^C] = G(z)`` (section 2), and multiplying by a count is the operator ``x_l d/dx_l``:
``E[C_l x^C] = x_l G'(z)/d``.  For a vector ``v`` write ``D_v = sum_i v_i x_i d/dx_i`` (so
``E[(v.C) h(C) x^C] = D_v E[h(C) x^C]``) and

    V1 = sum_i v_i x_i / d,   V2 = sum_i v_i^2 x_i / d;
    D_v G^(k)(z) = V1 G^(k+1)(z),   D_v V1 = V2.

The three slices.  All words: ``F = G(z)``.  Negative words (``C_s = 0``) are the ``x_s = 0``
slice, ``F = G(z0)`` with ``z0 = z - x_s/d``.  Positive words: ``F = G(z) - G(z0)``.  On the
slice ``z0`` the sums ``V1', V2'`` run over ``i != s`` only (``D_v z0 = V1'``).  Write
``e = v_s x_s/d = V1 - V1'``, ``e2 = v_s^2 x_s/d = V2 - V2'`` and
``Delta_j = G^(j)(z) - G^(j)(z0)``, computed without cancellation by
:func:`verify.engine.expectations.pgf_derivative_gap` from ``big = 1 - q z0`` and
``small = 1 - q z`` with ``big - small = q x_s/d`` (``1 - q z = (1 - z) + p z`` is summed from
the ``1 - x_l``, each formed without cancellation).

Second moments (moments pass).  With ``u^-2`` and ``C_i C_j``:

    E[gamma_i]           = c_i int x_i G'(z)/d dt,
    E[gamma_i gamma_j]   = c_i c_j int t x_i x_j G''(z)/d^2 dt                       (i != j),
    E[gamma_i^2]         = c_i^2 int t (x_i G'(z)/d + x_i^2 G''(z)/d^2) dt,
    E[gamma_l Y]         = c_l int x_l Delta_1/d dt (l != s),   c_s int x_s G'(z)/d dt (l = s)

(``x_s d/dx_s`` does not act on ``G(z0)``; for ``l != s`` it acts on both parts).  Every
integrand is a sum of non-negative terms: no digits cancel.

Contractions with an output vector (loss pass).  For ``w in R^d`` put ``v_i = w_i c_i``; then
``w.gamma = (v.C)/u`` and

    A_l(w) = E[slice gamma_l (w.gamma)]   = c_l   int t   D_v (x_l d/dx_l F) dt,
    B_l(w) = E[slice gamma_l (w.gamma)^2] = c_l/2 int t^2 D_v^2 (x_l d/dx_l F) dt,
    Q(w)   = E[slice (w.gamma)^2]         =       int t   D_v^2 F dt.

For ``F = G(z)``: ``x_l d/dx_l G = x_l G'/d``, ``D_v (x_l G'/d) = (x_l/d)(v_l G' + V1 G'')`` and

    D_v^2 (x_l G'/d) = (x_l/d) [v_l^2 G' + 2 v_l V1 G'' + V2 G'' + V1^2 G'''],
    D_v^2 G = V2 G' + V1^2 G''.

(This is the brief's ``E[(beta.gamma)^2 gamma_l] = 1/2 int t^2 c_l x_l [v_l^2 G'/d + S2 G''/d +
2 v_l S1 G''/d + S1^2 G'''/d] dt`` with ``S1 = V1``, ``S2 = V2``: checked, and tested against
enumeration.)  On the negative slice the same formulas hold at ``z0`` with ``V1', V2'``, and
are 0 for ``l = s``.  On the positive slice, subtracting the two (``V1 = V1' + e``,
``V2 = V2' + e2``), for ``l != s``

    D_v (x_l d/dx_l F)   = (x_l/d) [v_l Delta_1 + V1' Delta_2 + e G''(z)],
    D_v^2 (x_l d/dx_l F) = (x_l/d) [v_l^2 Delta_1 + 2 v_l (V1' Delta_2 + e G''(z))
                                    + V2' Delta_2 + e2 G''(z) + V1'^2 Delta_3
                                    + (2 V1' e + e^2) G'''(z)],
    D_v^2 F              = V2' Delta_1 + e2 G'(z) + V1'^2 Delta_2 + (2 V1' e + e^2) G''(z),

and for ``l = s`` the all-words formulas at ``z``.  No difference of nearly equal numbers is
formed: all ``G(z) - G(z0)`` differences come from ``pgf_derivative_gap``.

Loss and gradient (slice form, used by :func:`evaluate`).  With ``f + 1 = beta.gamma`` and
``sum_i gamma_i = 1``: on negative words ``f - y = beta.gamma``; on positive words
``f - y = beta.gamma - 2 = w.gamma`` with ``w = beta - 2`` (componentwise).  Hence, with
``A^-, B^-, Q^-`` on the negative slice at ``beta`` and ``A^+, B^+, Q^+`` on the positive slice at
``w``:

    L            = (Q^-(beta) + Q^+(w)) / 2,
    dL/dbeta_l   = E[(f - y) gamma_l]                  = A^-_l(beta) + A^+_l(w),
    dL/dalpha_l  = E[(f - y) gamma_l (beta_l - f - 1)] = beta_l A^-_l - B^-_l + w_l A^+_l - B^+_l

(``d gamma_i/d alpha_l = gamma_i (delta_il - gamma_l)``, and ``beta_l - f - 1 = w_l - w.gamma`` on
positive words).  Algebraically this equals the combination of the brief,

    L            = 1/2 beta' M beta - 2 beta' m_+ + 1,   dL/dbeta = M beta - 2 m_+,
    dL/dalpha_l  = beta_l ((M beta)_l - 2 m_+l) - T_l + 2 (M_+ beta)_l

with ``M = E[gamma gamma^T]``, ``m_+ = E[gamma Y]``, ``T_l = E[(beta.gamma)^2 gamma_l]``,
``(M_+ beta)_l = E[gamma_l (beta.gamma) Y]`` (:func:`gradient_terms` computes these pieces), but
near the optimum at large attention gaps (``beta ~ 2 e_s``, ``alpha_s - alpha_j >> 1``) the
combination subtracts O(1) numbers to get a tiny result, whereas every slice term is itself small.
``A`` is integrated as ``A(w+) - A(w-)`` (positive and negative parts of ``w``) so every integrand
whose value can vanish has a non-negative integrand, and ``B``, ``Q`` have non-negative values.

Quadrature: one :func:`verify.engine.quadrature.integrate` call per pass, vector integrand over
shared nodes, break points from :func:`verify.engine.expectations.scales` plus every 1/c_l, a
proven tail bound (below).  Reported errors = the rule's heuristic extrapolation + the proven
tail + a rounding allowance (:func:`_rounding_rel`); errors of derived quantities are propagated
linearly from the component errors.  Work precision: dps + 10 digits, ``rel_tol = 10^-(dps+2)``.

Tail bounds (proofs).  For ``t >= T``: ``x_i(t) <= x_i(T)``, so ``z(t), z0(t) <= z(T)`` and,
``G^(j)`` being increasing on ``[0, 1/q)``,
``G^(j)(z), G^(j)(z0), Delta_j <= G^(j)(z(T)) =: Ghat_j``
(``Delta_j <= G^(j)(z)`` since ``G^(j)(z0) >= 0``).  Also ``|V1(t)| <= N1 := sum |v_i| x_i(T)/d``,
``V2(t) <= N2 := sum v_i^2 x_i(T)/d`` (and the same bounds hold for ``V1', e`` with
``|V1'| + |e| <= N1``).  The remaining factor ``t^(r-1) x_l(t) = t^(r-1) e^(-t c_l)`` integrates to
``Gamma(r, c_l T)/c_l^r`` (``mpmath.gammainc``).  Each bound is doubled to absorb the rounding of
its own evaluation.

Minimiser over beta.  ``beta' M beta = E[(beta.gamma)^2] >= P(w is one symbol i) sum beta_i^2``
gives ``lambda_min(M) >= p/d > 0``: ``M`` is never singular, so ``beta* = 2 M^-1 m_+`` is a linear
solve (``mpmath.lu_solve``; a least-squares ``mpmath.qr_solve`` fallback is kept for an exactly
singular computed matrix, which cannot occur unless the inputs are corrupt).  The minimum is
evaluated as the cancellation-free loss at the computed ``beta*`` (an upper bound on the infimum,
exact to second order in the error of ``beta*``), not as ``1 - m_+ . beta*``.

H heads (model (2)) are at the end of the module; the float64 path after the mpmath one.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

import mpmath
import numpy as np
from mpmath.libmp import fone, fzero, mpf_add, mpf_exp, mpf_neg, mpf_pos, mpf_sub, round_nearest

from .expectations import MERGE_RATIO, pgf_derivative, pgf_derivative_gap, scales
from .quadrature import integrate

__all__ = [
    "GeneralMoments",
    "Evaluation",
    "GradientTerms",
    "OutputOptimum",
    "moments",
    "evaluate",
    "loss_and_grad",
    "loss",
    "gradient_terms",
    "solve_output",
    "best_output",
    "FloatMoments",
    "FloatEvaluation",
    "moments_float",
    "loss_and_grad_float",
    "evaluate_float",
    "best_output_float",
    "HeadMoments",
    "head_moments",
    "heads_loss",
    "best_output_heads",
    "head_moments_float",
    "best_output_heads_float",
]

GUARD_DIGITS = 10
TAIL_SAFETY = 2  # tail bounds are doubled (rounding of their own evaluation)
_make = mpmath.mp.make_mpf
_ZERO = mpmath.mpf(0)


# ------------------------------------------------------------------------------ validation


def _check_d_s(d, s) -> tuple[int, int]:
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    if isinstance(s, bool) or not isinstance(s, numbers.Integral):
        raise ValueError(f"s must be an integer symbol in 0..{int(d) - 1}, got {s!r}")
    if not 0 <= s < d:
        raise ValueError(f"s must lie in 0..{int(d) - 1} (0-based symbols), got {s}")
    return int(d), int(s)


def _check_dps(dps) -> int:
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) or dps < 5:
        raise ValueError(f"dps must be an integer >= 5, got {dps!r}")
    return int(dps)


def _mpf_vector(values, d: int, name: str) -> list:
    """Entries as mpf at the current precision (strings are read exactly at that precision)."""
    try:
        vals = list(values)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of length d = {d}") from None
    if len(vals) != d:
        raise ValueError(f"{name} must have length d = {d}, got {len(vals)}")
    out = []
    for v in vals:
        if isinstance(v, bool):
            raise ValueError(f"{name} entries must be real numbers, got a bool")
        try:
            if isinstance(v, Fraction):
                x = mpmath.mpf(v.numerator) / v.denominator
            elif isinstance(v, (np.floating, np.integer)):
                x = mpmath.mpf(v.item())
            else:
                x = mpmath.mpf(v)
        except (TypeError, ValueError):
            raise ValueError(f"{name} entries must be real numbers, got {v!r}") from None
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} entries must be finite, got {v!r}")
        out.append(x)
    return out


def _float_vector(values, d: int, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} entries must be finite")
    return arr


# ------------------------------------------------------------------------ per-node quantities


@dataclass
class _Setup:
    """Constants of one attention vector at the working precision."""

    d: int
    s: int
    dd: mpmath.mpf
    p: mpmath.mpf
    q: mpmath.mpf
    c: list  # e^{alpha_l - max alpha}
    rel_tol: mpmath.mpf
    inv_d: mpmath.mpf = None
    points: list = field(default_factory=list)


def _setup(d: int, s: int, alpha: list, dps: int) -> _Setup:
    """Rescaled weights, rule tolerance and break points (call inside the workdps block)."""
    top = max(alpha)
    return _setup_c(d, s, [mpmath.exp(a - top) for a in alpha], dps)


def _setup_c(d: int, s: int, c: list, dps: int) -> _Setup:
    """As :func:`_setup` from positive weights ``c`` (any common scale)."""
    dd = mpmath.mpf(d)
    p = 1 / (dd - 1)
    q = 1 - p
    rel_tol = mpmath.mpf(10) ** (-(dps + 2))
    st = _Setup(d, s, dd, p, q, c, rel_tol, 1 / dd)
    st.points = _break_points(st)
    return st


def _rounding_rel(st: _Setup):
    """Relative allowance added to every error estimate: ``2^-prec 10^4 (1 + max|ln t_k|)``.

    The quadrature's estimate sees only the discretisation.  Rounding adds: each node
    ``t = e^u`` carries a relative error ~ |u| 2^-prec, which ``e^(-t c)`` amplifies by
    ``t c`` (<= ~100 where anything is left), plus a few dozen operations per term.  In a sweep
    (d = 2..20, logit spreads 1..400, dps 15 and 25, against runs at 35 more digits) the actual
    errors stayed below ``2^-prec 2000 (1 + max|u|)``, and the extrapolated discretisation
    estimate alone fell short by up to 1.7x (values were still 4 digits better than asked);
    this allowance covers both with a margin and stays far below ``rel_tol``.
    """
    logs = [abs(mpmath.log(pt)) for pt in st.points[1:]]
    return mpmath.mpf(2) ** (-mpmath.mp.prec) * 10**4 * (1 + max(logs))


def _break_points(st: _Setup) -> list:
    """Break points: ``scales`` (p/c_max, p/c_mean, 1/c_max, 1/c_mean, 1/c_min), every symbol's
    own scale 1/c_l (merged when within a factor MERGE_RATIO), and a first cut for the tail.

    Between consecutive scales every component grows like a power of t (the symbols not yet
    decayed have x_l ~ 1) and its mass piles up at the next scale, so widely spread weights need
    all the 1/c_l as break points (halves the nodes at logit spreads of ~100).  The cut is where
    every tail bound of this module has fallen by ``rel_tol * p^3 / d`` below its value at
    ``t ~ 1/c_min``; :func:`integrate` doubles it if needed.
    """
    base = scales(st.c, st.p)[1:-1]
    candidates = sorted(set(base) | {1 / cl for cl in st.c})
    merged = [candidates[0]]
    for t in candidates[1:]:
        if t > MERGE_RATIO * merged[-1]:
            merged.append(t)
    points = [mpmath.mpf(0), *merged]
    c_min = min(st.c)
    cut = (-mpmath.log(st.rel_tol) - 3 * mpmath.log(st.p) + mpmath.log(st.dd) + 10) / c_min
    if cut > points[-1]:
        points.append(cut)
    return points


def _exp_pair(tc):
    """(e^{-tc}, 1 - e^{-tc}) for tc >= 0 at the current precision, without cancellation.

    Below 1/2 the exponential is formed with as many extra bits as ``tc`` has leading zeros, so
    ``1 - e^{-tc}`` keeps full relative accuracy (cheaper than ``mpmath.expm1``).
    """
    prec = mpmath.mp.prec
    r = tc._mpf_
    _, man, exp, bc = r
    if not man:
        return _make(fone), _make(fzero)
    if exp + bc < 0:  # tc < 1/2
        xh = mpf_exp(mpf_neg(r), prec + 10 - (exp + bc), round_nearest)
        x, om = mpf_pos(xh, prec, round_nearest), mpf_sub(fone, xh, prec, round_nearest)
        return _make(x), _make(om)
    x = mpf_exp(mpf_neg(r), prec, round_nearest)
    return _make(x), _make(mpf_sub(fone, x, prec, round_nearest))


def _sum(values):
    """Recursive sum at the working precision (for sums of non-negative terms, or where the
    cancellation is intrinsic to the data)."""
    prec = mpmath.mp.prec
    acc = fzero
    for v in values:
        acc = mpf_add(acc, v._mpf_, prec, round_nearest)
    return _make(acc)


@dataclass
class _Node:
    """Everything the integrands need at one node t."""

    x: list  # x_l = e^{-t c_l}
    xd: list  # x_l / d
    G: list  # G[j] = G^(j)(z), j = 1..order (index 0 unused)
    G0: list | None  # G^(j)(z0)
    D: list  # Delta_j = G^(j)(z) - G^(j)(z0)


def _node(t, st: _Setup, order: int, slices: bool) -> _Node:
    p, q, inv_d = st.p, st.q, st.inv_d
    x, om = [], []
    for cl in st.c:
        a, b = _exp_pair(t * cl)
        x.append(a)
        om.append(b)
    z = _sum(x) * inv_d
    small = _sum(om) * inv_d + p * z  # 1 - q z = (1 - z) + p z
    xd = [xl * inv_d for xl in x]
    G = [None] + [pgf_derivative(j, small, p, q) for j in range(1, order + 1)]
    diff = q * xd[st.s]
    big = small + diff  # 1 - q z0
    D = [None] + [pgf_derivative_gap(j, big, small, diff, p, q) for j in range(1, order + 1)]
    G0 = ([None] + [pgf_derivative(j, big, p, q) for j in range(1, order + 1)]) if slices else None
    return _Node(x, xd, G, G0, D)


def _g_hat(T, st: _Setup, order: int) -> tuple[list, list, list]:
    """Bounds valid for all t >= T: (x_l(T), Ghat, Dhat).

    ``Ghat[j] = G^(j)(z(T))`` bounds ``G^(j)(z), G^(j)(z0)`` and ``Delta_j``; ``Dhat[j] =
    min(Ghat[j], j! p q^(j-1) (j+1) q x_s(T) / (d p^(2j+2)))`` bounds ``Delta_j`` (from the gap
    formula with ``p <= small <= big <= 1``; it vanishes with ``q``, as ``Delta_j`` does at d = 2).
    """
    xs, oms = zip(*(_exp_pair(T * cl) for cl in st.c))
    z = _sum(xs) * st.inv_d
    small = _sum(oms) * st.inv_d + st.p * z
    gh = [None] + [pgf_derivative(j, small, st.p, st.q) for j in range(1, order + 1)]
    diff = st.q * xs[st.s] * st.inv_d
    dh = [None] + [min(gh[j], pgf_derivative(j, st.p, st.p, st.q) * st.p ** (j + 1) * (j + 1)
                       * diff / st.p ** (2 * j + 2)) for j in range(1, order + 1)]
    return list(xs), gh, dh


# ---------------------------------------------------------------------------- moments pass


@dataclass(frozen=True)
class GeneralMoments:
    """E[gamma], E[gamma gamma^T], E[gamma 1{y=+1}] at attention alpha (target s).

    ``second`` is the full d x d ``mpmath.matrix`` (``None`` when only the diagonal was asked);
    ``second_diagonal`` its diagonal.  ``errors`` maps 'mean', 'mean_positive',
    'second_diagonal' to tuples and 'second' to a matrix of absolute error estimates (the
    quadrature's heuristic estimate + the proven tail + a rounding allowance).  Values are mpf
    at dps + 10 digits.
    """

    d: int
    s: int
    dps: int
    mean: tuple
    mean_positive: tuple
    second: mpmath.matrix | None
    second_diagonal: tuple
    errors: dict
    evaluations: int


def moments(d: int, s: int, alpha: Sequence, dps: int = 30, second: str = "full") -> GeneralMoments:
    """E[gamma] (d), E[gamma 1{y=+1}] (d) and E[gamma gamma^T] from one quadrature pass.

    ``second="full"`` integrates the whole upper triangle (O(d^2) per node); ``"diagonal"``
    only E[gamma_i^2] (O(d) per node).  Formulas: module docstring.

    >>> m = moments(3, 0, [0, 0, 0], dps=15)
    >>> print(mpmath.nstr(m.mean[0], 12), mpmath.nstr(m.mean_positive[0], 12))  # 1/3, 1/3
    0.333333333333 0.333333333333
    """
    d, s = _check_d_s(d, s)
    dps = _check_dps(dps)
    if second not in ("full", "diagonal"):
        raise ValueError(f"second must be 'full' or 'diagonal', got {second!r}")
    full = second == "full"
    with mpmath.workdps(dps + GUARD_DIGITS):
        alpha = _mpf_vector(alpha, d, "alpha")
        st = _setup(d, s, alpha, dps)
        dd, c = st.dd, st.c
        dd2 = dd * dd
        n_second = d * (d + 1) // 2 if full else d
        size = 2 * d + n_second

        def integrand(t):
            nd = _node(t, st, 2, slices=False)
            g1d, d1d = nd.G[1] / dd, nd.D[1] / dd
            a = t * nd.G[2] / dd2
            tg1d = t * g1d
            y = [cl * xl for cl, xl in zip(c, nd.x)]  # c_l x_l
            out = [yl * g1d for yl in y]
            pos = [yl * d1d for yl in y]
            pos[s] = out[s]
            out += pos
            ay = [a * yl for yl in y]
            if full:
                for i in range(d):
                    ayi, yi = ay[i], y[i]
                    out.append(c[i] * yi * tg1d + ayi * yi)
                    out += [ayi * yj for yj in y[i + 1:]]
            else:
                out += [cl * yl * tg1d + ayl * yl for cl, yl, ayl in zip(c, y, ay)]
            return out

        def tail_bound(T):
            _, gh, dh = _g_hat(T, st, 2)
            g1d, g2d2 = gh[1] / dd, gh[2] / dd2
            decay = [mpmath.exp(-cl * T) for cl in c]
            out = [TAIL_SAFETY * g1d * e for e in decay]
            pos = [TAIL_SAFETY * dh[1] / dd * e for e in decay]
            pos[s] = out[s]
            out += pos
            if full:
                for i in range(d):
                    out.append(TAIL_SAFETY * (g1d + g2d2) * mpmath.gammainc(2, c[i] * T))
                    for j in range(i + 1, d):
                        sig = c[i] + c[j]
                        out.append(TAIL_SAFETY * c[i] * c[j] * g2d2 * mpmath.gammainc(2, sig * T)
                                   / sig**2)
            else:
                out += [TAIL_SAFETY * (g1d + g2d2) * mpmath.gammainc(2, cl * T) for cl in c]
            return out

        res = integrate(integrand, st.points, size, tail_bound, rel_tol=st.rel_tol)
        rr = _rounding_rel(st)
        v, evaluations = res.values, res.evaluations
        e = [err + rr * abs(val) for err, val in zip(res.errors, v)]  # positive integrands
        mean, pos = tuple(v[:d]), tuple(v[d:2 * d])
        errors = {"mean": tuple(e[:d]), "mean_positive": tuple(e[d:2 * d])}
        if full:
            M, EM = mpmath.matrix(d, d), mpmath.matrix(d, d)
            k = 2 * d
            for i in range(d):
                for j in range(i, d):
                    M[i, j] = M[j, i] = v[k]
                    EM[i, j] = EM[j, i] = e[k]
                    k += 1
            diag = tuple(M[i, i] for i in range(d))
            errors["second"] = EM
            errors["second_diagonal"] = tuple(EM[i, i] for i in range(d))
        else:
            M = None
            diag = tuple(v[2 * d:])
            errors["second_diagonal"] = tuple(e[2 * d:])
        return GeneralMoments(d, s, dps, mean, pos, M, diag, errors, evaluations)


# ------------------------------------------------------------------- contractions (loss pass)


class _Contraction:
    """Per-node A_l, B_l, Q of one slice for one vector v (v_i = w_i c_i); see module docstring.

    ``kind`` is 'all', 'neg' or 'pos'.  ``want`` is a subset of {'A', 'B', 'Q'}; the components
    come in the order A_0..A_{d-1}, B_0..B_{d-1}, Q (those wanted).
    """

    def __init__(self, kind: str, w: list, st: _Setup, want: set):
        self.kind, self.st = kind, st
        self.want_a, self.want_b, self.want_q = "A" in want, "B" in want, "Q" in want
        zero = mpmath.mpf(0)
        self.v = [wi * ci for wi, ci in zip(w, st.c)]
        if kind == "neg":
            self.v[st.s] = zero
        self.abs_v = [abs(vi) for vi in self.v]
        self.sq_v = [vi * vi for vi in self.v]
        # sums over i != s exclude s by a zero weight (the slice z0 does not see x_s)
        self.v_bg = list(self.v)
        self.v_bg[st.s] = zero
        self.sq_bg = list(self.sq_v)
        self.sq_bg[st.s] = zero
        self.trivial = all(vi == 0 for vi in self.v)

    @property
    def size(self) -> int:
        return self.st.d * (self.want_a + self.want_b) + self.want_q

    def values(self, t, nd: _Node, tcx: list) -> list:
        """Integrand values at t; ``tcx[l] = t c_l x_l / d``."""
        st, v, sq = self.st, self.v, self.sq_v
        s, kind, d = st.s, self.kind, st.d
        if self.trivial:
            return [_ZERO] * self.size
        xd = nd.xd
        V1p = _sum([vi * xi for vi, xi in zip(self.v_bg, xd)])
        V2p = _sum([si * xi for si, xi in zip(self.sq_bg, xd)])
        e, e2 = v[s] * xd[s], sq[s] * xd[s]
        V1, V2 = V1p + e, V2p + e2
        G, G0, D = nd.G, nd.G0, nd.D
        if kind == "all":
            a_lin, a_const = G[1], V1 * G[2]
            b_lin = 2 * a_const
            b_const = V2 * G[2] + V1 * V1 * G[3] if self.want_b else None
            q_val = V2 * G[1] + V1 * V1 * G[2]
        elif kind == "neg":
            a_lin, a_const = G0[1], V1p * G0[2]
            b_lin = 2 * a_const
            b_const = V2p * G0[2] + V1p * V1p * G0[3] if self.want_b else None
            q_val = V2p * G0[1] + V1p * V1p * G0[2]
        else:
            cross = (V1p + V1) * e  # V1^2 - V1'^2
            a_lin, a_const = D[1], V1p * D[2] + e * G[2]
            b_lin = 2 * a_const
            b_const = (V2p * D[2] + e2 * G[2] + V1p * V1p * D[3] + cross * G[3]
                       if self.want_b else None)
            q_val = V2p * D[1] + e2 * G[1] + V1p * V1p * D[2] + cross * G[2]
        out = []
        if self.want_a:
            out += [tc * (vl * a_lin + a_const) for tc, vl in zip(tcx, v)]
        if self.want_b:
            ht = t / 2
            out += [ht * tc * (sl * a_lin + vl * b_lin + b_const)
                    for tc, vl, sl in zip(tcx, v, sq)]
        if self.want_q:
            out.append(t * q_val)
        if kind == "neg":  # gamma_s = 0 on negative words
            if self.want_a:
                out[s] = _ZERO
            if self.want_b:
                out[self.want_a * d + s] = _ZERO
        elif kind == "pos":  # l = s: x_s d/dx_s does not act on G(z0): all-words formulas at z
            if self.want_a:
                out[s] = tcx[s] * (v[s] * G[1] + V1 * G[2])
            if self.want_b:
                out[self.want_a * d + s] = t / 2 * tcx[s] * (
                    sq[s] * G[1] + 2 * v[s] * V1 * G[2] + V2 * G[2] + V1 * V1 * G[3])
        return out

    def tail(self, T, xT: list, gh: list, dh: list) -> list:
        """Proven bounds on int_T^inf |component| (module docstring, tail bounds).

        On the positive slice the terms linear and quadratic in ``v_l`` (l != s) carry
        ``Delta_1`` only, bounded by ``dh[1]``; all other terms by ``gh``.
        """
        st, dd, d = self.st, self.st.dd, self.st.d
        if self.trivial:
            return [_ZERO] * self.size
        n1 = _sum([a * x for a, x in zip(self.abs_v, xT)]) / dd
        n2 = _sum([sq * x for sq, x in zip(self.sq_v, xT)]) / dd
        lin = [dh[1] if self.kind == "pos" and l != st.s else gh[1] for l in range(d)]
        out = []
        if self.want_a:
            out += [TAIL_SAFETY * (a * g1 + n1 * gh[2]) / dd * mpmath.gammainc(2, cl * T) / cl
                    for a, cl, g1 in zip(self.abs_v, st.c, lin)]
        if self.want_b:
            out += [TAIL_SAFETY * (sq * g1 + 2 * a * n1 * gh[2] + n2 * gh[2] + n1 * n1 * gh[3])
                    / (2 * dd) * mpmath.gammainc(3, cl * T) / cl**2
                    for a, sq, cl, g1 in zip(self.abs_v, self.sq_v, st.c, lin)]
        if self.want_q:
            gam = [mpmath.gammainc(2, cl * T) / cl**2 for cl in st.c]
            s2 = _sum([sq * g for sq, g in zip(self.sq_v, gam)]) / dd
            s1 = _sum([a * g for a, g in zip(self.abs_v, gam)]) / dd
            out.append(TAIL_SAFETY * (gh[1] * s2 + gh[2] * n1 * s1))
        if self.kind == "neg":  # those components vanish identically
            if self.want_a:
                out[st.s] = _ZERO
            if self.want_b:
                out[self.want_a * d + st.s] = _ZERO
        return out


def _split(w: list) -> tuple[list, list]:
    zero = mpmath.mpf(0)
    return [max(x, zero) for x in w], [max(-x, zero) for x in w]


def _run_contractions(st: _Setup, parts: list, extra=None):
    """One integrate call over all contraction parts (+ optional extra (f, tail, size) part)."""
    sizes = [pt.size for pt in parts]
    total = sum(sizes) + (extra[2] if extra else 0)
    slices_needed = any(pt.kind != "all" for pt in parts)

    def integrand(t):
        nd = _node(t, st, 3, slices=slices_needed)
        tcx = [t * cl * xl for cl, xl in zip(st.c, nd.xd)]
        out = []
        for pt in parts:
            out += pt.values(t, nd, tcx)
        if extra:
            out += extra[0](t, nd)
        return out

    def tail_bound(T):
        xT, gh, dh = _g_hat(T, st, 3)
        out = []
        for pt in parts:
            out += pt.tail(T, xT, gh, dh)
        if extra:
            out += extra[1](T, xT, gh, dh)
        return out

    res = integrate(integrand, st.points, total, tail_bound, rel_tol=st.rel_tol)
    chunks, k = [], 0
    for n in sizes + ([extra[2]] if extra else []):
        chunks.append((res.values[k:k + n], res.errors[k:k + n]))
        k += n
    return chunks, res.evaluations


@dataclass(frozen=True)
class Evaluation:
    """Loss and gradient of model (1) with their error estimates (absolute).

    Also the slice pieces: ``negative`` = (A^-(beta), B^-(beta), Q^-(beta)) and ``positive`` =
    (A^+(beta - 2), B^+(beta - 2), Q^+(beta - 2)) (module docstring).
    """

    d: int
    s: int
    dps: int
    loss: mpmath.mpf
    grad_alpha: tuple
    grad_beta: tuple
    loss_error: mpmath.mpf
    grad_alpha_error: tuple
    grad_beta_error: tuple
    negative: tuple
    positive: tuple
    evaluations: int


def _evaluate_at(st: _Setup, beta: list, dps: int) -> Evaluation:
    d, s = st.d, st.s
    w = [b - 2 for b in beta]
    bp, bm = _split(beta)
    wp, wm = _split(w)
    parts = [
        _Contraction("neg", bp, st, {"A"}),
        _Contraction("neg", bm, st, {"A"}),
        _Contraction("neg", beta, st, {"B", "Q"}),
        _Contraction("pos", wp, st, {"A"}),
        _Contraction("pos", wm, st, {"A"}),
        _Contraction("pos", w, st, {"B", "Q"}),
    ]
    chunks, evals = _run_contractions(st, parts)
    (anp, anp_e), (anm, anm_e), (bqn, bqn_e), (app, app_e), (apm, apm_e), (bqp, bqp_e) = chunks
    rr = _rounding_rel(st)
    a_neg = [x - y for x, y in zip(anp, anm)]
    a_neg_abs = [x + y for x, y in zip(anp, anm)]  # A^-(|beta|)
    a_neg_e = [x + y + rr * z for x, y, z in zip(anp_e, anm_e, a_neg_abs)]
    a_pos = [x - y for x, y in zip(app, apm)]
    a_pos_abs = [x + y for x, y in zip(app, apm)]  # A^+(|w|)
    a_pos_e = [x + y + rr * z for x, y, z in zip(app_e, apm_e, a_pos_abs)]
    b_neg, q_neg = bqn[:d], bqn[d]
    b_pos, q_pos = bqp[:d], bqp[d]
    # rounding inside the B, Q kernels: |terms| <= the kernels at |w|, and
    # B_l(|w|) <= max|w| A_l(|w|), Q(|w|) = sum_l |w_l| A_l(|w|)
    bg = [l for l in range(d) if l != s]
    top_n = max((abs(beta[l]) for l in bg), default=_ZERO)
    top_p = max(abs(x) for x in w)
    b_neg_e = [e + rr * top_n * a for e, a in zip(bqn_e[:d], a_neg_abs)]
    b_pos_e = [e + rr * top_p * a for e, a in zip(bqp_e[:d], a_pos_abs)]
    q_neg_e = bqn_e[d] + rr * _sum([abs(beta[l]) * a_neg_abs[l] for l in bg])
    q_pos_e = bqp_e[d] + rr * _sum([abs(x) * a for x, a in zip(w, a_pos_abs)])
    loss = (q_neg + q_pos) / 2
    loss_e = (q_neg_e + q_pos_e) / 2
    grad_b = tuple(a_neg[l] + a_pos[l] for l in range(d))
    grad_b_e = tuple(a_neg_e[l] + a_pos_e[l] for l in range(d))
    grad_a = tuple(beta[l] * a_neg[l] - b_neg[l] + w[l] * a_pos[l] - b_pos[l] for l in range(d))
    grad_a_e = tuple(abs(beta[l]) * a_neg_e[l] + b_neg_e[l] + abs(w[l]) * a_pos_e[l] + b_pos_e[l]
                     for l in range(d))
    return Evaluation(d, s, dps, loss, grad_a, grad_b, loss_e, grad_a_e, grad_b_e,
                      (tuple(a_neg), tuple(b_neg), q_neg), (tuple(a_pos), tuple(b_pos), q_pos),
                      evals)


def evaluate(d: int, s: int, alpha: Sequence, beta: Sequence, dps: int = 30) -> Evaluation:
    """Population loss L_s(alpha, beta) of model (1), its full gradient and error estimates.

    One quadrature pass, O(d) work per node; slice form of the module docstring (no cancellation
    between O(1) moments near the optimum).
    """
    d, s = _check_d_s(d, s)
    dps = _check_dps(dps)
    with mpmath.workdps(dps + GUARD_DIGITS):
        a = _mpf_vector(alpha, d, "alpha")
        b = _mpf_vector(beta, d, "beta")
        return _evaluate_at(_setup(d, s, a, dps), b, dps)


def loss_and_grad(d: int, s: int, alpha: Sequence, beta: Sequence, dps: int = 30) -> tuple:
    """(loss, grad_alpha, grad_beta) of model (1) at (alpha, beta); see :func:`evaluate`."""
    ev = evaluate(d, s, alpha, beta, dps)
    return ev.loss, ev.grad_alpha, ev.grad_beta


def loss(d: int, s: int, alpha: Sequence, beta: Sequence, dps: int = 30) -> tuple:
    """(L_s(alpha, beta), error estimate) alone: (Q^-(beta) + Q^+(beta - 2))/2, two components."""
    d, s = _check_d_s(d, s)
    dps = _check_dps(dps)
    with mpmath.workdps(dps + GUARD_DIGITS):
        a = _mpf_vector(alpha, d, "alpha")
        b = _mpf_vector(beta, d, "beta")
        st = _setup(d, s, a, dps)
        parts = [_Contraction("neg", b, st, {"Q"}),
                 _Contraction("pos", [x - 2 for x in b], st, {"Q"})]
        ((qn, qn_e), (qp, qp_e)), _ = _run_contractions(st, parts)
        # rounding inside the kernels: Q(|w|) <= max|w|^2 P(slice) = max|w|^2 / 2 per slice
        top_n = max((abs(x) for l, x in enumerate(b) if l != s), default=_ZERO)
        top_p = max(abs(x - 2) for x in b)
        rounding = _rounding_rel(st) * (top_n**2 + top_p**2) / 2
        return (qn[0] + qp[0]) / 2, (qn_e[0] + qp_e[0] + rounding) / 2


@dataclass(frozen=True)
class GradientTerms:
    """The expectations of the brief's combination for dL/dalpha (all-words form).

    ``mean_positive[l] = E[gamma_l Y]``, ``second_beta[l] = E[gamma_l (beta.gamma)] = (M beta)_l``,
    ``second_beta_positive[l] = E[gamma_l (beta.gamma) Y] = (M_+ beta)_l``,
    ``third[l] = E[(beta.gamma)^2 gamma_l]``; ``grad_alpha`` is
    ``beta_l (second_beta_l - 2 mean_positive_l) - third_l + 2 second_beta_positive_l``.
    ``errors`` maps each name to its tuple of absolute error estimates.
    """

    mean_positive: tuple
    second_beta: tuple
    second_beta_positive: tuple
    third: tuple
    grad_alpha: tuple
    errors: dict
    evaluations: int


def gradient_terms(d: int, s: int, alpha: Sequence, beta: Sequence, dps: int = 30) -> GradientTerms:
    """E[gamma_l Y], E[gamma_l beta.gamma], E[gamma_l beta.gamma Y], E[(beta.gamma)^2 gamma_l].

    Computed with the all-words generating function (third moments by the t^2/2 Laplace
    identity) for cross-checks of :func:`evaluate`; the combination loses
    ``log10(1/|grad|)`` digits near the optimum at large gaps, so :func:`evaluate` does not use it.
    """
    d, s = _check_d_s(d, s)
    dps = _check_dps(dps)
    with mpmath.workdps(dps + GUARD_DIGITS):
        a = _mpf_vector(alpha, d, "alpha")
        beta = _mpf_vector(beta, d, "beta")
        st = _setup(d, s, a, dps)
        bp, bm = _split(beta)
        ones = [mpmath.mpf(1)] * d
        parts = [
            _Contraction("pos", ones, st, {"A"}),  # w = 1: w.gamma = 1, so A^+_l = E[gamma_l Y]
            _Contraction("all", bp, st, {"A"}),
            _Contraction("all", bm, st, {"A"}),
            _Contraction("pos", bp, st, {"A"}),
            _Contraction("pos", bm, st, {"A"}),
            _Contraction("all", beta, st, {"B"}),
        ]
        chunks, evals = _run_contractions(st, parts)
        (mp_, mp_e), (sp_, sp_e), (sm_, sm_e), (pp_, pp_e), (pm_, pm_e), (th, th_e) = chunks
        rr = _rounding_rel(st)  # see _evaluate_at for the kernels' rounding
        top = max(abs(x) for x in beta)
        mp_e = [e + rr * v for e, v in zip(mp_e, mp_)]
        sb = tuple(x - y for x, y in zip(sp_, sm_))
        sb_e = tuple(x + y + rr * (a + b) for x, y, a, b in zip(sp_e, sm_e, sp_, sm_))
        sbp = tuple(x - y for x, y in zip(pp_, pm_))
        sbp_e = tuple(x + y + rr * (a + b) for x, y, a, b in zip(pp_e, pm_e, pp_, pm_))
        th_e = [e + rr * top * (a + b) for e, a, b in zip(th_e, sp_, sm_)]
        grad = tuple(beta[l] * (sb[l] - 2 * mp_[l]) - th[l] + 2 * sbp[l] for l in range(d))
        errors = {"mean_positive": tuple(mp_e), "second_beta": sb_e,
                  "second_beta_positive": sbp_e, "third": tuple(th_e),
                  "grad_alpha": tuple(abs(beta[l]) * (sb_e[l] + 2 * mp_e[l]) + th_e[l]
                                      + 2 * sbp_e[l] for l in range(d))}
        return GradientTerms(tuple(mp_), sb, sbp, tuple(th), grad, errors, evals)


# --------------------------------------------------------------------------- inf over beta


@dataclass(frozen=True)
class OutputOptimum:
    """inf over beta of L_s(alpha, beta): the computed minimiser and the loss there.

    ``beta_error`` bounds |beta - beta*|_2 given the moment error estimates
    (``lambda_min(M) >= p/d``); ``loss`` is the loss AT ``beta`` (>= the infimum), with
    ``loss_error`` its estimate; the infimum lies in
    ``[loss - loss_error - beta_error^2/2, loss + loss_error]`` (``lambda_max(M) <= 1``).
    ``loss_formula = 1 - m_+ . beta`` is the (cancellation-prone) closed form, for comparison.
    ``fallback`` is True if the least-squares fallback was used.
    """

    beta: tuple
    loss: mpmath.mpf
    loss_error: mpmath.mpf
    beta_error: mpmath.mpf
    loss_formula: mpmath.mpf
    moments: GeneralMoments
    fallback: bool
    evaluations: int


def _solve(M: mpmath.matrix, rhs: mpmath.matrix) -> tuple[mpmath.matrix, bool]:
    try:
        return mpmath.lu_solve(M, rhs), False
    except ZeroDivisionError:
        x, _ = mpmath.qr_solve(M, rhs)
        return x, True


def solve_output(d: int, s: int, alpha: Sequence, dps: int = 30) -> OutputOptimum:
    """Minimise the convex quadratic L_s(alpha, .): M beta* = 2 m_+ (module docstring)."""
    d, s = _check_d_s(d, s)
    dps = _check_dps(dps)
    mom = moments(d, s, alpha, dps, second="full")
    with mpmath.workdps(dps + GUARD_DIGITS):
        a = _mpf_vector(alpha, d, "alpha")
        M = mom.second
        rhs = mpmath.matrix([2 * x for x in mom.mean_positive])
        sol, fallback = _solve(M, rhs)
        beta = [sol[i] for i in range(d)]
        st = _setup(d, s, a, dps)
        ev = _evaluate_at(st, beta, dps)
        # |delta beta| <= (2|e| + ||E||_F |beta|) / (p/d - ||E||_F)
        e_f = mpmath.sqrt(mpmath.fsum(x**2 for x in mom.errors["second"]))
        e_m = mpmath.sqrt(mpmath.fsum(x**2 for x in mom.errors["mean_positive"]))
        gap = st.p / st.dd - e_f
        norm_b = mpmath.sqrt(mpmath.fsum(b * b for b in beta))
        beta_err = (2 * e_m + e_f * norm_b) / gap if gap > 0 else mpmath.inf
        formula = 1 - mpmath.fsum(m * b for m, b in zip(mom.mean_positive, beta))
        return OutputOptimum(tuple(beta), ev.loss, ev.loss_error, beta_err, formula, mom,
                             fallback, mom.evaluations + ev.evaluations)


def best_output(d: int, s: int, alpha: Sequence, dps: int = 30) -> tuple:
    """(beta_star, min_loss): :func:`solve_output` without the diagnostics."""
    opt = solve_output(d, s, alpha, dps)
    return opt.beta, opt.loss


# ============================================================================ float64 path
#
# The same representation in numpy for searches that need thousands of evaluations.  The rule is
# the trapezoid rule in u = ln t on a uniform grid (step h) over [u_lo, u_hi]: after the
# substitution t = e^u every integrand is analytic in the strip |Im u| < pi/2 (there
# Re(t c_l) > 0, so |x_l| < 1, |z| < 1 and 1 - q z != 0) and decays like e^u at -inf and
# double-exponentially at +inf, so the rule converges like exp(-c/h) and one grid resolves every
# scale 1/c_l however widely the c_l spread (a fixed tanh-sinh map would thin its nodes where the
# scales are spread).  Everything is written in tau_l = t c_l = exp(u + alpha_l - max alpha), so
# nothing over- or underflows for logit spreads up to ~1400.  Truncation: below u_lo,
# t c_max <= 1e-18 p^2, which bounds the neglected part of every component by ~1e-18 of its value
# (each integrand is O(t c_max / p^2) times its size there); above u_hi, t c_min >= 60 + 3 ln(1/p).
# The error estimate is |I_h - I_2h| (the rule on every other node).

FLOAT_STEP = 0.125


def _float_setup(d: int, s: int, alpha, h: float):
    a = _float_vector(alpha, d, "alpha")
    return float_grid(d, s, a - a.max(), h)


def float_grid(d: int, s: int, a: np.ndarray, h: float) -> dict:
    """Nodes and per-node quantities of the trapezoid rule in u = ln t for log-weights
    ``a = alpha - max alpha`` (<= 0) and target ``s``: keys ``u`` (nodes), ``h`` (step),
    ``x[:, l] = exp(-tau_l)``, ``tk[k][:, l] = tau_l^k x_l`` (k = 1, 2, 3), ``G[j]`` and ``G0[j]``
    (the j-th derivative of the length pgf at z and at z - x_s/d), ``D[j]`` (their difference,
    formed without cancellation), and ``p``, ``q``, ``d``, ``s``.

    ``tk[k] = tau^k x`` (k = 1, 2, 3) are formed as ``exp(k ln tau - tau)``: no overflow where
    ``tau`` is huge and ``x`` is 0.
    """
    p = 1.0 / (d - 1)
    q = 1.0 - p
    u_lo = math.log(1e-18 * p * p)
    u_hi = math.log(60.0 + 3.0 * math.log(1.0 / p)) - a.min()
    n = int(math.ceil((u_hi - u_lo) / h))
    n += n % 2
    u = u_lo + h * np.arange(n + 1)
    log_tau = u[:, None] + a[None, :]
    with np.errstate(over="ignore"):
        tau = np.exp(log_tau)
    x = np.exp(-tau)
    om = -np.expm1(-tau)
    tk = [None] + [np.exp(k * log_tau - tau) for k in range(1, 4)]
    small = om.mean(axis=1) + p * x.mean(axis=1)  # 1 - q z
    diff = q * x[:, s] / d
    big = small + diff  # 1 - q z0
    k = [None] + [math.factorial(j) * p * q ** (j - 1) for j in range(1, 4)]
    G = [None] + [k[j] / small ** (j + 1) for j in range(1, 4)]
    G0 = [None] + [k[j] / big ** (j + 1) for j in range(1, 4)]
    D = [None] + [k[j] * diff * sum(big**i * small ** (j - i) for i in range(j + 1))
                  / (big * small) ** (j + 1) for j in range(1, 4)]
    return dict(d=d, s=s, p=p, q=q, h=h, u=u, x=x, tk=tk, G=G, G0=G0, D=D)


def target_moments_float(d: int, alpha, h: float = FLOAT_STEP) -> tuple:
    """(M, P) in float64: M = E[gamma gamma^T] (target-free) and P[:, s] = E[gamma 1{C_s >= 1}].

    The same trapezoid rule in u = ln t as :func:`moments_float` (its grid
    is reused), with the positive-word slice formed for every target at once:
    ``E[gamma_l 1{C_s >= 1}] = int tau_l x_l Delta_1^(s)/d du`` (l != s) with
    ``Delta_1^(s) = G'(z) - G'(z - x_s/d)``, and ``E[gamma_s 1{C_s >= 1}] = E[gamma_s]``.
    Tested against ``moments_float`` target by target.
    """
    a = np.asarray(alpha, dtype=np.float64)
    if a.shape != (d,) or not np.all(np.isfinite(a)):
        raise ValueError(f"alpha must be {d} finite numbers")
    g = float_grid(d, 0, a - a.max(), h)
    p, q = g["p"], g["q"]
    Y, x, G1, G2 = g["tk"][1], g["x"], g["G"][1], g["G"][2]
    small = np.sqrt(p / G1)  # 1 - q z  (G' = p / (1 - q z)^2)
    M = (Y * (h * G2 / (d * d))[:, None]).T @ Y
    M[np.diag_indices(d)] += h * (g["tk"][2] * (G1 / d)[:, None]).sum(axis=0)
    mean = h * (Y * (G1 / d)[:, None]).sum(axis=0)
    diff = q * x / d  # (1 - q z0^(s)) - (1 - q z), per target s
    big = small[:, None] + diff
    D1 = p * diff * (big + small[:, None]) / (big * small[:, None]) ** 2
    P = h * Y.T @ (D1 / d)
    P[np.diag_indices(d)] = mean
    return M, P


def second_diagonal_float(d: int, alpha, h: float = FLOAT_STEP) -> np.ndarray:
    """E[gamma_i^2], i = 1..d, in float64 (the diagonal of ``moments_float``'s second matrix)."""
    a = np.asarray(alpha, dtype=np.float64)
    g = float_grid(d, 0, a - a.max(), h)
    Y, G1, G2 = g["tk"][1], g["G"][1], g["G"][2]
    return h * (Y * Y * (G2 / (d * d))[:, None] + g["tk"][2] * (G1 / d)[:, None]).sum(axis=0)


def _float_rounding_rel(g: dict) -> float:
    """Rounding allowance per unit of absolute scale: 10 eps (1 + max|u|) (cf. _rounding_rel;
    measured: below 1 eps (1 + max|u|) at logit spread 400)."""
    return 10 * np.finfo(np.float64).eps * (1.0 + np.abs(g["u"]).max())


def _trap(values: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """(I_h, |I_h - I_2h|) along axis 0 (the node axis)."""
    full = h * values.sum(axis=0)
    half = 2 * h * values[::2].sum(axis=0)
    return full, np.abs(full - half)


@dataclass(frozen=True)
class FloatMoments:
    """float64 E[gamma], E[gamma 1{y=+1}], E[gamma gamma^T] and |I_h - I_2h| estimates."""

    mean: np.ndarray
    mean_positive: np.ndarray
    second: np.ndarray
    errors: dict
    nodes: int


def moments_float(d: int, s: int, alpha, h: float = FLOAT_STEP) -> FloatMoments:
    """float64 version of :func:`moments` (full matrix): O(n d^2) matrix products."""
    d, s = _check_d_s(d, s)
    g = _float_setup(d, s, alpha, h)
    return _moments_float_grid(g)


def _moments_float_grid(g: dict) -> FloatMoments:
    d, s, h, tk, G, D = g["d"], g["s"], g["h"], g["tk"], g["G"], g["D"]
    Y = tk[1]  # t c_l x_l (the u-measure carries the other t)
    mean, mean_e = _trap(Y * (G[1] / d)[:, None], h)
    posv = Y * (D[1] / d)[:, None]
    posv[:, s] = Y[:, s] * G[1] / d
    pos, pos_e = _trap(posv, h)
    w2 = G[2] / (d * d)
    diag_part = tk[2] * (G[1] / d)[:, None]

    def second_with(rows, step):
        Yr = Y[rows]
        M = (Yr * (step * w2[rows])[:, None]).T @ Yr
        M[np.diag_indices(d)] += step * diag_part[rows].sum(axis=0)
        return M

    M = second_with(slice(None), h)
    M_half = second_with(slice(None, None, 2), 2 * h)
    rr = _float_rounding_rel(g)
    errors = {"mean": mean_e + rr * mean, "mean_positive": pos_e + rr * pos,
              "second": np.abs(M - M_half) + rr * M}
    return FloatMoments(mean, pos, M, errors, len(g["u"]))


def _float_contraction(g: dict, kind: str, w: np.ndarray) -> tuple:
    """Per-node (A (n, d), B (n, d), Q (n,)) integrands in u for one slice.

    In u = ln t every component is a polynomial in ``t v_i = w_i tau_i`` times ``x_i``, so only
    ``tau^k x`` (k <= 3) is needed: ``A_l = int tau_l x_l/d kA(t v) du``,
    ``B_l = 1/2 int tau_l x_l/d kB(t v) du``, ``Q = int kQ(t v) du`` (kA, kB, kQ homogeneous of
    degree 1, 2, 2 in v).
    """
    d, s = g["d"], g["s"]
    tk, G, G0, D = g["tk"], g["G"], g["G0"], g["D"]
    w = np.array(w, dtype=np.float64)
    if kind == "neg":
        w[s] = 0.0
    wb = w.copy()
    wb[s] = 0.0
    V1p = tk[1] @ wb / d  # sum_{i != s} t v_i x_i / d
    V2p = tk[2] @ (wb * wb) / d
    e = w[s] * tk[1][:, s] / d
    e2 = w[s] ** 2 * tk[2][:, s] / d
    V1, V2 = V1p + e, V2p + e2
    if kind == "all":
        a_lin, a_const = G[1], V1 * G[2]
        b_const = V2 * G[2] + V1 * V1 * G[3]
        q_val = V2 * G[1] + V1 * V1 * G[2]
    elif kind == "neg":
        a_lin, a_const = G0[1], V1p * G0[2]
        b_const = V2p * G0[2] + V1p * V1p * G0[3]
        q_val = V2p * G0[1] + V1p * V1p * G0[2]
    else:
        cross = (V1p + V1) * e
        a_lin, a_const = D[1], V1p * D[2] + e * G[2]
        b_const = V2p * D[2] + e2 * G[2] + V1p * V1p * D[3] + cross * G[3]
        q_val = V2p * D[1] + e2 * G[1] + V1p * V1p * D[2] + cross * G[2]
    # tau_l x_l / d * (t v_l)^k = w_l^k tau_l^(k+1) x_l / d
    t1, t2, t3 = tk[1] / d, tk[2] / d, tk[3] / d
    A = t2 * w * a_lin[:, None] + t1 * a_const[:, None]
    B = 0.5 * (t3 * w * w * a_lin[:, None] + t2 * w * (2 * a_const)[:, None]
               + t1 * b_const[:, None])
    if kind == "neg":
        A[:, s] = 0.0
        B[:, s] = 0.0
    elif kind == "pos":
        A[:, s] = t2[:, s] * w[s] * G[1] + t1[:, s] * V1 * G[2]
        B[:, s] = 0.5 * (t3[:, s] * w[s] ** 2 * G[1] + t2[:, s] * w[s] * 2 * V1 * G[2]
                         + t1[:, s] * (V2 * G[2] + V1 * V1 * G[3]))
    return A, B, q_val


@dataclass(frozen=True)
class FloatEvaluation:
    """float64 loss and gradient of model (1) with |I_h - I_2h| error estimates."""

    loss: float
    grad_alpha: np.ndarray
    grad_beta: np.ndarray
    loss_error: float
    grad_alpha_error: np.ndarray
    grad_beta_error: np.ndarray
    nodes: int


def _evaluate_float(g: dict, beta: np.ndarray, with_errors: bool = True) -> FloatEvaluation:
    h = g["h"]
    w = beta - 2.0
    an, bn, qn = _float_contraction(g, "neg", beta)
    ap, bp, qp = _float_contraction(g, "pos", w)
    loss_vals = 0.5 * (qn + qp)
    gb_vals = an + ap
    ga_vals = beta[None, :] * an - bn + w[None, :] * ap - bp
    loss, loss_e = _trap(loss_vals, h)
    gb, gb_e = _trap(gb_vals, h)
    ga, ga_e = _trap(ga_vals, h)
    if not with_errors:
        nan = np.full(len(beta), np.nan)
        return FloatEvaluation(float(loss), ga, gb, math.nan, nan, nan, len(g["u"]))
    # absolute scales: the same integrands at |beta|, |w| dominate every term (module docstring)
    an_a, bn_a, qn_a = _float_contraction(g, "neg", np.abs(beta))
    ap_a, bp_a, qp_a = _float_contraction(g, "pos", np.abs(w))
    rr = _float_rounding_rel(g)
    loss_e += rr * _trap(0.5 * (qn_a + qp_a), h)[0]
    gb_e += rr * _trap(an_a + ap_a, h)[0]
    ga_e += rr * _trap(np.abs(beta) * an_a + bn_a + np.abs(w) * ap_a + bp_a, h)[0]
    return FloatEvaluation(float(loss), ga, gb, float(loss_e), ga_e, gb_e, len(g["u"]))


def evaluate_float(d: int, s: int, alpha, beta, h: float = FLOAT_STEP,
                   with_errors: bool = True) -> FloatEvaluation:
    """float64 version of :func:`evaluate` (slice form, O(n d)).

    Errors: ``|I_h - I_2h|`` plus a rounding allowance relative to the absolute scale of the
    terms (gradients are differences of O(loss) terms, so a tiny gradient is accurate only
    relative to that scale).  ``with_errors=False`` skips them (about half the cost).
    """
    d, s = _check_d_s(d, s)
    beta = _float_vector(beta, d, "beta")
    return _evaluate_float(_float_setup(d, s, alpha, h), beta, with_errors)


def loss_and_grad_float(d: int, s: int, alpha, beta, h: float = FLOAT_STEP) -> tuple:
    """(loss, grad_alpha, grad_beta) in float64; see :func:`evaluate_float`."""
    ev = evaluate_float(d, s, alpha, beta, h, with_errors=False)
    return ev.loss, ev.grad_alpha, ev.grad_beta


def best_output_float(d: int, s: int, alpha, h: float = FLOAT_STEP) -> tuple:
    """(beta_star, min_loss) in float64: solve M beta = 2 m_+, loss evaluated at beta_star."""
    d, s = _check_d_s(d, s)
    g = _float_setup(d, s, alpha, h)
    mom = moments_float(d, s, alpha, h)
    beta = np.linalg.solve(mom.second, 2.0 * mom.mean_positive)
    return beta, _evaluate_float(g, beta, with_errors=False).loss


# ============================================================================ H heads
#
# Model (2): f = sum_h B[h].gamma^(h) - 1.  With Gamma = vec(gamma^(1), ..., gamma^(H)) (index
# h*d + i) the loss is L = 1/2 vec(B)' MM vec(B) - 2 vec(B)' m_+ + 1 with MM = E[Gamma Gamma^T] and
# m_+ = E[Gamma Y] (the single-head identity, y = 2Y - 1, P(Y = 1) = 1/2), so inf over B is a
# linear solve.  Same-head blocks and m_+ come from :func:`moments`.  Cross-head blocks:
#
#   E[gamma^h_i gamma^g_j] = c^h_i c^g_j E[C_i C_j / (u_h u_g)],
#   1/(u_h u_g) = int_0^1 dlam / (lam u_h + (1 - lam) u_g)^2            (Feynman parameter),
#
# and lam u_h + (1 - lam) u_g = sum_l C_l c^lam_l is ONE head with weights c^lam = lam c^h +
# (1 - lam) c^g, so the inner expectation is the single-head Laplace integral
# N(c)_ij = E[C_i C_j / u^2] = int t (x_i x_j G''/d^2 + delta_ij x_i G'/d) dt at c = c^lam.  This is
# the 2-D Laplace identity int int e^(-t u_h - t' u_g) dt dt' in the coordinates t = r lam,
# t' = r (1 - lam).  [1/2, 1] is mapped onto [0, 1/2] by swapping the heads, so both halves have
# their scale changes near lam = 0 (at lam ~ c^g_l / c^h_l), where the log-scale intervals of
# :func:`integrate` resolve them.  In mpmath this is a NESTED integrate (an inner t-integral per
# outer node): correct but slow (8-50 s per pair of heads at d = 4, minutes at d = 9, 15 digits);
# :func:`head_moments_float` does the same 2-D integral on a product grid in numpy.
#
# MM is singular when two heads coincide (B[h] = -B[g] is invisible), so inf over B uses a
# symmetric eigen-decomposition pseudo-inverse (eigenvalues below a relative threshold dropped);
# the minimum is 1 - m_+ . vec(B*) (valid for every minimiser; it cancels when the loss is small).


def _inner_second(st: _Setup):
    """(values, errors) of the upper triangle of N(c)_ij = E[C_i C_j / u^2], u = sum C_l c_l."""
    d, dd, c = st.d, st.dd, st.c
    dd2 = dd * dd

    def integrand(t):
        nd = _node(t, st, 2, slices=False)
        a = t * nd.G[2] / dd2
        b = t * nd.G[1] / dd
        x = nd.x
        ax = [a * xl for xl in x]
        out = []
        for i in range(d):
            out.append(b * x[i] + ax[i] * x[i])
            out += [ax[i] * xj for xj in x[i + 1:]]
        return out

    def tail_bound(T):
        _, gh, _ = _g_hat(T, st, 2)
        g1d, g2d2 = gh[1] / dd, gh[2] / dd2
        out = []
        for i in range(d):
            out.append(TAIL_SAFETY * (g1d + g2d2) * mpmath.gammainc(2, c[i] * T) / c[i] ** 2)
            for j in range(i + 1, d):
                sig = c[i] + c[j]
                out.append(TAIL_SAFETY * g2d2 * mpmath.gammainc(2, sig * T) / sig**2)
        return out

    res = integrate(integrand, st.points, d * (d + 1) // 2, tail_bound, rel_tol=st.rel_tol)
    rr = _rounding_rel(st)
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
            vals, errs, n = _inner_second(_setup_c(d, s, mix, dps))
            counter[0] += n
            for k in range(size):  # N(c)_ij > 0: track the largest relative inner error
                inner_rel[k] = max(inner_rel[k], errs[k] / vals[k] if vals[k] else mpmath.inf)
            return list(vals)

        def tail_bound(T):
            # the integrand is only used on [0, 1/2]; beyond the last point it is taken as 0
            return [mpmath.mpf(0)] * size

        # Outer tolerance 10^-dps: the inner values are only good to ~10^-(dps+2) relative, so a
        # tighter outer tolerance never converges and refines to the rule's top degree (at
        # 10^-(dps+2) one block at d = 4 ran for over 10 minutes; at 10^-dps, 8 s).
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
    left as NaN: only the same-head blocks are exact).  ``errors`` holds matching error estimates.
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


def _check_alphas(alphas, d: int | None = None) -> list:
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
    """Second moments of the concatenated attention of H heads (model (2)); see the notes above."""
    d, s = _check_d_s(d, s)
    dps = _check_dps(dps)
    if cross not in ("nested", "none"):
        raise ValueError(f"cross must be 'nested' or 'none', got {cross!r}")
    rows = _check_alphas(alphas, d)
    H = len(rows)
    singles = [moments(d, s, r, dps) for r in rows]
    evaluations = sum(m.evaluations for m in singles)
    with mpmath.workdps(dps + GUARD_DIGITS):
        MM = mpmath.matrix(H * d, H * d)
        EE = mpmath.matrix(H * d, H * d)
        cs = []
        for r in rows:
            a = _mpf_vector(r, d, "alpha")
            top = max(a)
            cs.append([mpmath.exp(x - top) for x in a])
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


def _heads_quadratic(MM: mpmath.matrix, mpos: tuple, B: list):
    """1/2 b' MM b - 2 b' m_+ + 1 for b = vec(B)."""
    n = len(B)
    quad = mpmath.fsum(B[a] * MM[a, b] * B[b] for a in range(n) for b in range(n))
    return quad / 2 - 2 * mpmath.fsum(x * y for x, y in zip(B, mpos)) + 1


def heads_loss(d: int, s: int, alphas, B, dps: int = 20, moments_: HeadMoments | None = None):
    """L_s for model (2) (bias -1) at attention ``alphas`` (H x d) and output ``B`` (H x d)."""
    d, s = _check_d_s(d, s)
    rows = _check_alphas(alphas, d)
    Brows = _check_alphas(B, d)
    if len(Brows) != len(rows):
        raise ValueError("B must have one row per head")
    hm = moments_ if moments_ is not None else head_moments(d, s, rows, dps)
    with mpmath.workdps(hm.dps + GUARD_DIGITS):
        b = [x for r in Brows for x in _mpf_vector(r, d, "B row")]
        return _heads_quadratic(hm.second, hm.mean_positive, b)


def _pinv_solve(MM: mpmath.matrix, rhs: list, rel_cut) -> list:
    """Minimum-norm least-squares solution of MM b = rhs (MM symmetric) by eigen-decomposition."""
    evals, evecs = mpmath.eigsy(MM)
    n = MM.rows
    top = max(abs(evals[k]) for k in range(n))
    out = [mpmath.mpf(0)] * n
    for k in range(n):
        if abs(evals[k]) <= rel_cut * top:
            continue
        coef = mpmath.fsum(evecs[i, k] * rhs[i] for i in range(n)) / evals[k]
        for i in range(n):
            out[i] += coef * evecs[i, k]
    return out


def best_output_heads(d: int, s: int, alphas, dps: int = 20,
                      moments_: HeadMoments | None = None) -> tuple:
    """(B_star as H rows, min_loss) for model (2) at fixed attention: MM vec(B) = 2 m_+.

    Pseudo-inverse (eigenvalues below 10^(-dps/2) of the largest dropped), so coinciding heads
    are handled; the minimum is 1 - m_+ . vec(B*).
    """
    d, s = _check_d_s(d, s)
    rows = _check_alphas(alphas, d)
    hm = moments_ if moments_ is not None else head_moments(d, s, rows, dps)
    if hm.cross != "nested":
        raise ValueError("best_output_heads needs the cross-head blocks (cross='nested')")
    with mpmath.workdps(hm.dps + GUARD_DIGITS):
        rhs = [2 * x for x in hm.mean_positive]
        b = _pinv_solve(hm.second, rhs, mpmath.mpf(10) ** (-(hm.dps // 2)))
        min_loss = 1 - mpmath.fsum(x * y for x, y in zip(b, hm.mean_positive))
        H = len(rows)
        return [tuple(b[h * d:(h + 1) * d]) for h in range(H)], min_loss


# ------------------------------------------------------------------------ H heads, float64

FLOAT_THETA_STEP = 0.5


def head_moments_float(d: int, s: int, alphas, h: float = FLOAT_STEP,
                       h_theta: float = FLOAT_THETA_STEP) -> tuple:
    """(MM, m_+, errors) in float64 for H heads; cross blocks by a 2-D product trapezoid rule.

    Outer variable theta = logit(lam): dlam/(lam u_h + (1-lam) u_g)^2 = e^theta dtheta /
    (e^theta u_h + u_g)^2 (analytic for |Im theta| < pi, decays like e^(-|theta|) beyond the
    crossover range [ln min_l c^g_l/c^h_l, ln max_l ...], which is padded by 40 on each side);
    inner variable u = ln t on one grid valid for every mixture (its range covers both heads).
    Errors: |I - I(every other node)| in each variable, added.
    """
    d, s = _check_d_s(d, s)
    rows = [_float_vector(r, d, "alpha") for r in _check_alphas(alphas, d)]
    H = len(rows)
    singles = [moments_float(d, s, r, h) for r in rows]
    logc = [r - r.max() for r in rows]
    p = 1.0 / (d - 1)
    q = 1.0 - p
    u_lo = math.log(1e-18 * p * p)
    u_hi = math.log(60.0 + 3.0 * math.log(1.0 / p)) - min(lc.min() for lc in logc)
    n = int(math.ceil((u_hi - u_lo) / h))
    n += n % 2
    u = u_lo + h * np.arange(n + 1)
    k1, k2 = p, 2 * p * q
    MM = np.zeros((H * d, H * d))
    EE = np.zeros((H * d, H * d))
    for a, m in enumerate(singles):
        MM[a * d:(a + 1) * d, a * d:(a + 1) * d] = m.second
        EE[a * d:(a + 1) * d, a * d:(a + 1) * d] = m.errors["second"]
    for a in range(H):
        for b in range(a + 1, H):
            lt_a = u[:, None] + logc[a][None, :]  # ln(t c^a_l)
            lt_b = u[:, None] + logc[b][None, :]
            ratio = logc[b] - logc[a]  # ln c^b_l / c^a_l
            th_lo, th_hi = ratio.min() - 40.0, ratio.max() + 40.0
            m_th = int(math.ceil((th_hi - th_lo) / h_theta))
            m_th += m_th % 2
            thetas = th_lo + h_theta * np.arange(m_th + 1)
            acc = np.zeros((4, d, d))  # [full, half-theta, half-u, half-u and half-theta]
            for k, th in enumerate(thetas):
                log_lam, log_mu = -np.logaddexp(0.0, -th), -np.logaddexp(0.0, th)
                weight = math.exp(log_lam + log_mu)  # lam (1 - lam)
                with np.errstate(over="ignore"):
                    mix = np.exp(np.logaddexp(log_lam + lt_a, log_mu + lt_b))  # t c^lam_l
                x = np.exp(-mix)
                om = -np.expm1(-mix)
                small = om.mean(axis=1) + p * x.mean(axis=1)
                g1, g2 = k1 / small**2, k2 / small**3
                Ya, Yb = np.exp(lt_a - mix), np.exp(lt_b - mix)  # t c^a_l x_l, t c^b_l x_l
                Yab = np.exp(lt_a + lt_b - mix)  # t^2 c^a_l c^b_l x_l
                for half_u, rows_u, step in ((0, slice(None), h), (1, slice(None, None, 2), 2 * h)):
                    blk = (Ya[rows_u] * (g2[rows_u] / d**2)[:, None]).T @ Yb[rows_u]
                    blk[np.diag_indices(d)] += (Yab[rows_u] * (g1[rows_u] / d)[:, None]).sum(axis=0)
                    blk *= step * weight
                    acc[2 * half_u] += h_theta * blk
                    if k % 2 == 0:
                        acc[2 * half_u + 1] += 2 * h_theta * blk
            block = acc[0]
            err = np.abs(acc[0] - acc[1]) + np.abs(acc[0] - acc[2])
            MM[a * d:(a + 1) * d, b * d:(b + 1) * d] = block
            MM[b * d:(b + 1) * d, a * d:(a + 1) * d] = block.T
            EE[a * d:(a + 1) * d, b * d:(b + 1) * d] = err
            EE[b * d:(b + 1) * d, a * d:(a + 1) * d] = err.T
    mpos = np.concatenate([m.mean_positive for m in singles])
    epos = np.concatenate([m.errors["mean_positive"] for m in singles])
    return MM, mpos, {"second": EE, "mean_positive": epos}


def best_output_heads_float(d: int, s: int, alphas, h: float = FLOAT_STEP) -> tuple:
    """(B_star (H x d), min_loss) in float64; least squares (coinciding heads allowed)."""
    MM, mpos, _ = head_moments_float(d, s, alphas, h)
    b, *_ = np.linalg.lstsq(MM, 2.0 * mpos, rcond=1e-12)
    return b.reshape(-1, d), float(1.0 - mpos @ b)
