"""The minimum of the loss over output weights with one coordinate bounded below.

L_s(alpha, .) is the convex quadratic 1 - 2 m.beta + beta.M beta/2 (M = E[gamma gamma^T],
m = E[gamma 1{C_s >= 1}]); Theorem 1's sub-case beta_s > d/4 (A.6) needs its minimum over
{beta_s >= lower}: the unconstrained minimiser when it is feasible, else the minimiser on the face
beta_s = lower (one linear constraint on a convex quadratic).  Float64 for searches, mpmath with
an error bound to confirm.
"""
from __future__ import annotations

import mpmath
import numpy as np

from . import general
from .precision import working


def constrained_output_float(M: np.ndarray, m: np.ndarray, s: int, lower: float) -> tuple:
    """min of L(beta) = 1 - 2 m.beta + beta.M beta/2 (L_s(alpha, .) with M = E[gamma gamma^T],
    m = E[gamma 1{C_s >= 1}]) over beta_s >= lower: the unconstrained minimiser if it is feasible,
    else the minimiser on the face beta_s = lower (one linear constraint on a convex quadratic).
    Returns (value, beta)."""
    beta = np.linalg.solve(M, 2.0 * m)
    if beta[s] < lower:
        rest = np.arange(len(m)) != s
        beta = np.empty_like(m)
        beta[rest] = np.linalg.solve(M[np.ix_(rest, rest)], 2.0 * m[rest] - lower * M[rest, s])
        beta[s] = lower
    return float(1.0 - 2.0 * m @ beta + 0.5 * beta @ M @ beta), beta


def constrained_output_mp(d: int, s: int, alpha: list, lower, dps: int) -> tuple:
    """:func:`constrained_output_float` on the mpmath path, as (value, error): the minimiser
    from the engine's moments, the loss there from the engine, and the distance to the true
    constrained minimum bounded by |g|^2/(2 lambda_min) with the feasible part g of the gradient
    there and lambda_min(M) >= p/d = 1/(d(d-1)) (the engine's bound)."""
    att = general.GeneralAttention.from_alpha(d, s, alpha, dps)
    mom = general.attention_moments(att)
    with working(dps):
        M = mom.second
        m = list(mom.mean_positive)
        lower = mpmath.mpf(lower)
        beta = mpmath.lu_solve(M, mpmath.matrix([2 * x for x in m]))
        on_face = beta[s] < lower
        if on_face:
            rest = [i for i in range(d) if i != s]
            MR = mpmath.matrix([[M[i, j] for j in rest] for i in rest])
            rhs = mpmath.matrix([2 * m[i] - lower * M[i, s] for i in rest])
            sol = mpmath.lu_solve(MR, rhs)
            beta = mpmath.matrix(d, 1)
            for k, i in enumerate(rest):
                beta[i] = sol[k]
            beta[s] = lower
        point = [beta[i] for i in range(d)]
    ev = general.evaluate_attention(att, point)
    with working(dps):
        g = [abs(x) + e for x, e in zip(ev.grad_beta, ev.grad_beta_error)]
        if on_face and ev.grad_beta[s] > 0:  # the constraint is active: beta_s cannot decrease
            g[s] = mpmath.mpf(0)
        gap = mpmath.fsum(x**2 for x in g) * d * (d - 1) / 2
        return ev.loss, ev.loss_error + gap
