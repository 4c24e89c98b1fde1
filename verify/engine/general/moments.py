"""The moments pass: E[gamma], E[gamma 1{y=+1}] and E[gamma gamma^T] at arbitrary attention.

Laplace representation (proofs/model.md, sections 1, 2).  For a word ``u = sum_l C_l c_l >= min c > 0``, so
``u^-r = (1/(r-1)!) int_0^inf t^(r-1) e^(-t u) dt`` and, by Tonelli,
``E[g(C) / u^r] = (1/(r-1)!) int_0^inf t^(r-1) E[g(C) prod_l x_l^(C_l)] dt`` with
``E[prod x^C] = G(z)``; multiplying by a count is the operator ``x_l d/dx_l``.  The integrands
(:func:`.kernels.mean_terms`, :func:`.kernels.gram_weights`) are sums of non-negative terms: no
digits cancel.

Two rules run the same kernels: the adaptive tanh-sinh rule in mpmath (:func:`moments`; its
error = the rule's heuristic extrapolation + a proven tail bound + a rounding allowance, so an
*estimate*) and the float64 trapezoid rule in ``u = ln t`` (:func:`moments_float`; error
``|I_h - I_2h|``, an estimate).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import mpmath
import numpy as np

from ..context import FP
from ..estimate import ErrorKind, Estimate
from ..formulas import pgf_terms
from ..precision import working
from ..quadrature import integrate
from .attention import TAIL_SAFETY, GeneralAttention, check_d_s, float_vector
from .backends import FLOAT_STEP, FloatGrid, float_grid, float_nodes, trapezoid
from .kernels import gram_weights, mean_terms


@dataclass(frozen=True)
class GeneralMoments:
    """E[gamma], E[gamma gamma^T], E[gamma 1{y=+1}] at attention alpha (target s).

    ``second`` is the full d x d ``mpmath.matrix`` (``None`` when only the diagonal was asked);
    ``second_diagonal`` its diagonal.  ``errors`` maps 'mean', 'mean_positive',
    'second_diagonal' to tuples and 'second' to a matrix of absolute error estimates (the
    quadrature's heuristic estimate + the proven tail + a rounding allowance: ESTIMATED).
    Values are mpf at dps + GUARD_DIGITS digits.
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

    def estimate(self, name: str, i: int, j: int | None = None) -> Estimate:
        """Entry ``i`` (or ``(i, j)`` of 'second') of ``name`` with its error, as an Estimate.

        >>> m = attention_moments(GeneralAttention.from_alpha(2, 0, [0, 0], dps=15))
        >>> e = m.estimate("mean", 0)
        >>> (mpmath.nstr(e.value, 10), e.kind.value)
        ('0.5', 'estimated')
        """
        if j is None:
            return Estimate(getattr(self, name)[i], self.errors[name][i], ErrorKind.ESTIMATED)
        return Estimate(self.second[i, j], self.errors["second"][i, j], ErrorKind.ESTIMATED)


def attention_moments(att: GeneralAttention, second: str = "full") -> GeneralMoments:
    """E[gamma] (d), E[gamma 1{y=+1}] (d) and E[gamma gamma^T] from one quadrature pass.

    ``second="full"`` integrates the whole upper triangle (O(d^2) per node); ``"diagonal"``
    only E[gamma_i^2] (O(d) per node).
    """
    if second not in ("full", "diagonal"):
        raise ValueError(f"second must be 'full' or 'diagonal', got {second!r}")
    full = second == "full"
    d, s, c = att.d, att.s, att.c
    with working(att.dps):
        dd = att.dd
        dd2 = dd * dd
        size = 2 * d + (d * (d + 1) // 2 if full else d)

        def integrand(t):
            nt = att.node(t, 2, slices=False)  # pgf terms scaled by 1/t: integrands in t
            mean, pos = mean_terms(nt)
            w_outer, w_diag = gram_weights(nt.G[1], nt.G[2], d)
            T1, diag = nt.T[1], nt.T[2] * w_diag
            out = list(mean) + list(pos)
            if full:  # the upper triangle of T1_i T1_j w_outer + delta_ij diag_i
                y, wy, dg = list(T1), list(T1 * w_outer), list(diag)
                for i in range(d):
                    wi = wy[i]
                    out.append(wi * y[i] + dg[i])
                    out += [wi * yj for yj in y[i + 1:]]
            else:
                out += list(T1 * T1 * w_outer + diag)
            return out

        def tail_bound(T):
            _, gh, dh = att.tail_values(T, 2)
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

        res = integrate(integrand, att.points, size, tail_bound, rel_tol=att.rel_tol)
        rr = att.rounding_rel()
        v = res.values
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
        return GeneralMoments(d, s, att.dps, mean, pos, M, diag, errors, res.evaluations)


def moments(d: int, s: int, alpha: Sequence, dps: int = 30, second: str = "full") -> GeneralMoments:
    """:func:`attention_moments` of ``GeneralAttention.from_alpha(d, s, alpha, dps)``.

    >>> m = moments(3, 0, [0, 0, 0], dps=15)
    >>> print(mpmath.nstr(m.mean[0], 12), mpmath.nstr(m.mean_positive[0], 12))  # 1/3, 1/3
    0.333333333333 0.333333333333
    """
    if second not in ("full", "diagonal"):
        raise ValueError(f"second must be 'full' or 'diagonal', got {second!r}")
    return attention_moments(GeneralAttention.from_alpha(d, s, alpha, dps), second)


# ----------------------------------------------------------------------------------- float64


@dataclass(frozen=True)
class FloatMoments:
    """float64 E[gamma], E[gamma 1{y=+1}], E[gamma gamma^T] and |I_h - I_2h| estimates."""

    mean: np.ndarray
    mean_positive: np.ndarray
    second: np.ndarray
    errors: dict
    nodes: int


def float_attention_grid(d: int, s: int, alpha, h: float = FLOAT_STEP) -> FloatGrid:
    """The float64 grid of a validated attention vector (``alpha - max alpha``)."""
    d, s = check_d_s(d, s)
    a = float_vector(alpha, d, "alpha")
    return float_grid(d, s, a - a.max(), h)


def float_gram(Y: np.ndarray, T2: np.ndarray, w_outer: np.ndarray, w_diag: np.ndarray, h: float,
               diagonal: bool = False) -> np.ndarray:
    """E[gamma gamma^T] on the float64 rule, written once for every float64 pass: the integrand
    ``T1_i T1_j w_outer + delta_ij T2_i w_diag`` (:func:`.kernels.gram_weights`) summed over the
    nodes, ``Y = T1`` and ``T2`` of shape ``(..., n, d)`` (a leading axis of attention vectors
    allowed), the weights ``(..., n)``; ``w_outer`` already carries the rule's step ``h``,
    ``w_diag`` does not.  ``diagonal``: only E[gamma_i^2], in O(n d)."""
    diag = h * (T2 * w_diag[..., None]).sum(axis=-2)
    if diagonal:
        return (Y * Y * w_outer[..., None]).sum(axis=-2) + diag
    M = np.matmul(np.swapaxes(Y * w_outer[..., None], -1, -2), Y)
    idx = np.arange(Y.shape[-1])
    M[..., idx, idx] += diag
    return M


def grid_moments(g: FloatGrid) -> FloatMoments:
    """The float64 moments on one grid: O(n d^2) matrix products."""
    d, h = g.d, g.h
    nt = g.terms()
    Y = g.T[1]  # t c_l x_l (the u-measure carries the other t)
    mean_v, pos_v = mean_terms(nt)
    mean, mean_e = trapezoid(mean_v, h)
    pos, pos_e = trapezoid(pos_v, h)
    w2, wd = gram_weights(g.G[1], g.G[2], d)
    M = float_gram(Y, g.T[2], h * w2, wd, h)
    half = slice(None, None, 2)
    M_half = float_gram(Y[half], g.T[2][half], 2 * h * w2[half], wd[half], 2 * h)
    rr = g.rounding_rel()
    errors = {"mean": mean_e + rr * mean, "mean_positive": pos_e + rr * pos,
              "second": np.abs(M - M_half) + rr * M}
    return FloatMoments(mean, pos, M, errors, g.nodes)


def moments_float(d: int, s: int, alpha, h: float = FLOAT_STEP) -> FloatMoments:
    """float64 version of :func:`moments` (full matrix).

    >>> m = moments_float(3, 0, [0.0, 0.0, 0.0])
    >>> [round(float(x), 12) for x in m.mean]  # 1/3 each
    [0.333333333333, 0.333333333333, 0.333333333333]
    """
    return grid_moments(float_attention_grid(d, s, alpha, h))


def target_moments_float(d: int, alpha, h: float = FLOAT_STEP) -> tuple:
    """(M, P) in float64: M = E[gamma gamma^T] (target-free) and P[:, s] = E[gamma 1{C_s >= 1}].

    The same rule and kernels as :func:`moments_float`, with the positive-word slice formed for
    every target at once: ``E[gamma_l 1{C_s >= 1}] = int tau_l x_l Delta_1^(s)/d du`` (l != s)
    with ``Delta_1^(s) = G'(z) - G'(z - x_s/d)``, and ``E[gamma_s 1{C_s >= 1}] = E[gamma_s]``.
    Tested against ``moments_float`` target by target.
    """
    a = np.asarray(alpha, dtype=np.float64)
    if a.shape != (d,) or not np.all(np.isfinite(a)):
        raise ValueError(f"alpha must be {d} finite numbers")
    g = float_grid(d, 0, a - a.max(), h)
    p, q = g.p, g.q
    Y, x, G1 = g.T[1], g.x, g.G[1]
    w2, wd = gram_weights(G1, h * g.G[2], d)
    small = np.sqrt(p / G1)  # 1 - q z  (G' = p / (1 - q z)^2)
    M = float_gram(Y, g.T[2], w2, wd, h)
    mean = h * (Y * wd[:, None]).sum(axis=0)
    diff = q * x / d  # (1 - q z0^(s)) - (1 - q z), per target s
    _, _, D = pgf_terms(FP, small[:, None], small[:, None] + diff, diff, p, q, 1)
    P = h * Y.T @ (D[1] / d)
    P[np.diag_indices(d)] = mean
    return M, P


def second_diagonal_float(d: int, alpha, h: float = FLOAT_STEP) -> np.ndarray:
    """E[gamma_i^2], i = 1..d, in float64 (the diagonal of ``moments_float``'s second matrix)."""
    a = np.asarray(alpha, dtype=np.float64)
    g = float_grid(d, 0, a - a.max(), h)
    w2, wd = gram_weights(g.G[1], h * g.G[2], d)
    return float_gram(g.T[1], g.T[2], w2, wd, h, diagonal=True)


BATCH_ELEMENTS = 1_500_000  # float64 elements of one (alphas x nodes x symbols) block


def target_moments_batch(d: int, alphas, targets, h: float = FLOAT_STEP) -> tuple:
    """(M, m) for a stack of attention vectors at once, in float64: ``M[k] = E[gamma gamma^T]``
    and ``m[k] = E[gamma 1{C_s >= 1}]`` with ``s = targets[k]`` at ``alphas[k]`` (shapes
    ``(K, d, d)``, ``(K, d)``): the column ``s`` of :func:`target_moments_float`'s ``P``.

    The searches' workhorse (Theorem 1: every target at every step size): one pass of numpy
    over blocks of alphas instead of a call per alpha, only the column of ``P`` the target
    needs, and ``T_1 = tau x``, ``T_2 = tau T_1`` formed by products (exact to an ulp; ``tau`` is
    clipped at e^7, where ``x`` and every ``T_k`` are 0).  Each alpha keeps its own rule: the
    nodes of :func:`.backends.float_nodes` share ``u_lo`` and ``h``, so a block runs on the
    longest grid with the nodes beyond an alpha's own grid weighted 0 (its sums are those of
    :func:`target_moments_float` up to the order of the additions).  Blocks group alphas of
    similar grid length.  Tested against ``target_moments_float``.
    """
    A = np.asarray(alphas, dtype=np.float64).reshape(-1, d)
    S = np.asarray(targets, dtype=np.int64).reshape(-1)
    if len(S) != len(A) or not np.all(np.isfinite(A)) or np.any((S < 0) | (S >= d)):
        raise ValueError(f"alphas must be K x {d} finite numbers with K targets in 0..{d - 1}")
    A = A - A.max(axis=1, keepdims=True)
    lengths = np.array([len(float_nodes(d, float(a.min()), h)) for a in A], dtype=np.int64)
    M = np.empty((len(A), d, d))
    m = np.empty((len(A), d))
    order = np.argsort(lengths, kind="stable")
    start = 0
    while start < len(order):
        stop = start + 1
        while stop < len(order) and (stop - start + 1) * lengths[order[stop]] * d <= BATCH_ELEMENTS:
            stop += 1
        rows = order[start:stop]
        M[rows], m[rows] = _block_moments(d, A[rows], S[rows], lengths[rows], h)
        start = stop
    return M, m


def _block_moments(d: int, A: np.ndarray, S: np.ndarray, lengths: np.ndarray, h: float) -> tuple:
    """:func:`target_moments_batch` on one block (alphas ``A`` with max 0, grid lengths)."""
    p = 1.0 / (d - 1)
    q = 1.0 - p
    n = int(lengths.max())
    u = float_nodes(d, 0.0, h)[0] + h * np.arange(n)
    live = np.arange(n)[None, :] < lengths[:, None]  # (K, n): the nodes of each alpha's own grid
    log_tau = np.minimum(u[None, :, None] + A[:, None, :], 7.0)
    tau = np.exp(log_tau)
    x = np.exp(-tau)
    om = -np.expm1(-tau)
    Y = tau * x  # T_1
    T2 = tau * Y
    small = om.mean(axis=2) + p * x.mean(axis=2)  # 1 - q z, (K, n)
    diff = q * x[np.arange(len(A)), :, S] / d  # (1 - q z0) - (1 - q z) for each alpha's target
    G, _, D = pgf_terms(FP, small, small + diff, diff, p, q, 2, g0=False)
    G1, G2, D1 = (v * live for v in (G[1], G[2], D[1]))
    w2, wd = gram_weights(G1, h * G2, d)
    M = float_gram(Y, T2, w2, wd, h)
    mean = h * (Y * wd[:, :, None]).sum(axis=1)
    m = h * np.matmul(Y.transpose(0, 2, 1), (D1 / d)[:, :, None])[:, :, 0]
    m[np.arange(len(A)), S] = mean[np.arange(len(A)), S]
    return M, m
