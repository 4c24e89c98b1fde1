"""The optimum over the output weights at fixed attention: a linear solve.

At fixed attention the loss is the convex quadratic
``L_s(alpha, beta) = 1/2 beta' M beta - 2 beta' m_+ + 1`` with ``M = E[gamma gamma^T]`` and
``m_+ = E[gamma Y]``.  ``beta' M beta = E[(beta.gamma)^2] >= P(w is one symbol i) sum beta_i^2``
gives ``lambda_min(M) >= p/d > 0``: ``M`` is never singular, so ``beta* = 2 M^-1 m_+``
(``mpmath.lu_solve``; a least-squares ``mpmath.qr_solve`` fallback is kept for an exactly singular
computed matrix, which cannot occur unless the inputs are corrupt).  The minimum is evaluated as
the cancellation-free loss at the computed ``beta*`` (an upper bound on the infimum, exact to
second order in the error of ``beta*``), not as ``1 - m_+ . beta*``.

H heads: ``MM`` is singular when two heads coincide (``B[h] = -B[g]`` is invisible), so the
infimum uses a symmetric eigen-decomposition pseudo-inverse (eigenvalues below a relative
threshold dropped); the minimum is ``1 - m_+ . vec(B*)`` (valid for every minimiser).

Searches over the attention need the infimum for every target at once: :func:`target_system_float`
gives ``(M, P)`` (one matrix, one right-hand side per target) and :func:`target_floors_float` the
infima ``1 - 2 m_s' M^-1 m_s``; a norm-bounded (trust-region) infimum is solved by the caller
from the same system.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import mpmath
import numpy as np

from ..estimate import ErrorKind, Estimate
from ..precision import working
from .attention import GeneralAttention, check_d_s
from .backends import FLOAT_STEP
from .heads import HeadMoments, check_alphas, head_moments, head_moments_float
from .loss import evaluate_attention, evaluate_grid
from .moments import GeneralMoments, attention_moments, float_attention_grid, grid_moments
from .moments import target_moments_batch, target_moments_float


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

    @property
    def infimum(self) -> Estimate:
        """The infimum over beta: centre of ``[loss - loss_error - beta_error^2/2,
        loss + loss_error]`` and its half-width (ESTIMATED: the moment errors are estimates)."""
        lower = self.loss - self.loss_error - self.beta_error**2 / 2
        upper = self.loss + self.loss_error
        return Estimate((lower + upper) / 2, (upper - lower) / 2, ErrorKind.ESTIMATED)


def _solve(M: mpmath.matrix, rhs: mpmath.matrix) -> tuple[mpmath.matrix, bool]:
    try:
        return mpmath.lu_solve(M, rhs), False
    except ZeroDivisionError:
        x, _ = mpmath.qr_solve(M, rhs)
        return x, True


def attention_optimum(att: GeneralAttention) -> OutputOptimum:
    """Minimise the convex quadratic L_s(alpha, .): M beta* = 2 m_+ (module docstring).

    >>> opt = attention_optimum(GeneralAttention.from_alpha(2, 1, [0, 0], dps=15))
    >>> [round(float(b), 10) for b in opt.beta], abs(opt.loss) < 1e-20  # d = 2: beta* = 2 e_s
    ([0.0, 2.0], True)
    """
    mom = attention_moments(att, second="full")
    with working(att.dps):
        M = mom.second
        rhs = mpmath.matrix([2 * x for x in mom.mean_positive])
        sol, fallback = _solve(M, rhs)
        beta = [sol[i] for i in range(att.d)]
        ev = evaluate_attention(att, beta)
        # |delta beta| <= (2|e| + ||E||_F |beta|) / (p/d - ||E||_F)
        e_f = mpmath.sqrt(mpmath.fsum(x**2 for x in mom.errors["second"]))
        e_m = mpmath.sqrt(mpmath.fsum(x**2 for x in mom.errors["mean_positive"]))
        gap = att.p / att.dd - e_f
        norm_b = mpmath.sqrt(mpmath.fsum(b * b for b in beta))
        beta_err = (2 * e_m + e_f * norm_b) / gap if gap > 0 else mpmath.inf
        formula = 1 - mpmath.fsum(m * b for m, b in zip(mom.mean_positive, beta))
        return OutputOptimum(tuple(beta), ev.loss, ev.loss_error, beta_err, formula, mom,
                             fallback, mom.evaluations + ev.evaluations)


def solve_output(d: int, s: int, alpha: Sequence, dps: int = 30) -> OutputOptimum:
    """:func:`attention_optimum` of ``GeneralAttention.from_alpha(d, s, alpha, dps)``."""
    return attention_optimum(GeneralAttention.from_alpha(d, s, alpha, dps))


def best_output(d: int, s: int, alpha: Sequence, dps: int = 30) -> tuple:
    """(beta_star, min_loss): :func:`solve_output` without the diagnostics."""
    opt = solve_output(d, s, alpha, dps)
    return opt.beta, opt.loss


# ----------------------------------------------------------------------------------- float64


def best_output_float(d: int, s: int, alpha, h: float = FLOAT_STEP) -> tuple:
    """(beta_star, min_loss) in float64: solve M beta = 2 m_+, loss evaluated at beta_star.

    >>> beta, value = best_output_float(2, 0, [0.0, 0.0])
    >>> [round(float(b), 10) for b in beta], abs(value) < 1e-15
    ([2.0, 0.0], True)
    """
    g = float_attention_grid(d, s, alpha, h)
    mom = grid_moments(g)
    beta = np.linalg.solve(mom.second, 2.0 * mom.mean_positive)
    return beta, evaluate_grid(g, beta, with_errors=False).loss


def target_system_float(d: int, alpha, h: float = FLOAT_STEP) -> tuple:
    """``(M, P)``: ``L_s(alpha, beta) = 1/2 beta' M beta - 2 beta' P[:, s] + 1`` for every target
    s (float64), the system a search solves per target (unconstrained or in a ball)."""
    return target_moments_float(d, alpha, h)


def target_floors_float(d: int, alpha, h: float = FLOAT_STEP) -> np.ndarray:
    """``inf_beta L_s(alpha, beta) = 1 - 2 m_s' M^-1 m_s`` for every target s (float64).

    >>> [round(float(v), 6) for v in target_floors_float(3, [0.0, 0.0, 0.0])]
    [0.139326, 0.139326, 0.139326]
    """
    M, P = target_system_float(d, alpha, h)
    X = np.linalg.solve(M, P)
    return 1.0 - 2.0 * (P * X).sum(axis=0)


def target_floors_batch(d: int, alphas, targets, h: float = FLOAT_STEP) -> tuple:
    """``(values, betas)``: ``inf_beta L_s(alpha, beta)`` and its minimiser for a stack of
    attention vectors ``alphas[k]`` with targets ``targets[k]`` (float64, shapes ``(K,)``,
    ``(K, d)``), from :func:`.moments.target_moments_batch`: ``M beta = 2 m``, the loss at
    ``beta`` as the quadratic ``1 - 2 m.beta + beta.M beta/2`` (its error is second order in
    that of ``beta``).  Tested against :func:`best_output_float`.

    >>> values, _ = target_floors_batch(3, [[0.0, 0.0, 0.0], [0.0, -1.0, 0.0]], [0, 1])
    >>> [round(float(v), 6) for v in values][:1]
    [0.139326]
    """
    M, m = target_moments_batch(d, alphas, targets, h)
    beta = np.linalg.solve(M, 2.0 * m[:, :, None])[:, :, 0]
    Mb = np.matmul(M, beta[:, :, None])[:, :, 0]
    return 1.0 - 2.0 * (m * beta).sum(axis=1) + 0.5 * (beta * Mb).sum(axis=1), beta


# ------------------------------------------------------------------------------------ H heads


def pinv_solve(MM: mpmath.matrix, rhs: list, rel_cut) -> list:
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
    d, s = check_d_s(d, s)
    rows = check_alphas(alphas, d)
    hm = moments_ if moments_ is not None else head_moments(d, s, rows, dps)
    if hm.cross != "nested":
        raise ValueError("best_output_heads needs the cross-head blocks (cross='nested')")
    with working(hm.dps):
        rhs = [2 * x for x in hm.mean_positive]
        b = pinv_solve(hm.second, rhs, mpmath.mpf(10) ** (-(hm.dps // 2)))
        min_loss = 1 - mpmath.fsum(x * y for x, y in zip(b, hm.mean_positive))
        H = len(rows)
        return [tuple(b[h * d:(h + 1) * d]) for h in range(H)], min_loss


def best_output_heads_float(d: int, s: int, alphas, h: float = FLOAT_STEP) -> tuple:
    """(B_star (H x d), min_loss) in float64; least squares (coinciding heads allowed)."""
    MM, mpos, _ = head_moments_float(d, s, alphas, h)
    b, *_ = np.linalg.lstsq(MM, 2.0 * mpos, rcond=1e-12)
    return b.reshape(-1, d), float(1.0 - mpos @ b)
