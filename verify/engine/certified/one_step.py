"""Theorem 1's floor at one found point, as a ball: ``min_beta L_s(alpha'_s, beta)`` after one
attention step ``alpha'_s = -eta grad_alpha L_s(0, beta0)`` from alpha = 0 (gaps capped at
``GAP_CAP`` as the float64 search does: :mod:`verify.engine.logits`)."""
from __future__ import annotations

import numpy as np

from ..logits import GAP_CAP, compress


def certified_symmetric(d: int, s: int, beta0, eta: float, bits: int):
    """(ball, gap ball) of min_beta L_s(alpha'_s, beta) for background-symmetric beta0, with the
    four-scalar Arb engine: the step's gap -eta (g_s - g_j) from the ball gradient at alpha = 0,
    capped at GAP_CAP as the search does, then the 2x2 output optimum (the minimiser over all
    beta is background-symmetric: the lemma of A.7 and convexity)."""
    from flint import arb

    from .balls import precision
    from .symmetric import ball_evaluate, ball_state, output_system, solve2

    bs, bj = float(beta0[s]), float(beta0[(s + 1) % d])
    grad = ball_evaluate(ball_state(d, 0, bits), bs, bj)
    with precision(bits):
        gap = -arb(eta) * (grad["alpha_s"] - grad["alpha_j"])
        cap = arb(GAP_CAP)
        gap = cap if gap > cap else -cap if gap < -cap else gap
    state = ball_state(d, gap, bits)
    star = solve2(*output_system(state))
    return ball_evaluate(state, *star)["loss"], gap


def certified_general(d: int, s: int, beta0, eta: float, bits: int):
    """(ball, alpha') of min_beta L_s(alpha', beta) at the attention the float64 search evaluates,
    alpha' = compress(-eta grad_alpha L_s(0, beta0)) (exact binary floats), from the general
    Arb moments and an arb_mat solve."""
    from .. import general
    from .floors import unconstrained_floor
    from .general import ball_moments

    grad = general.evaluate_float(d, s, np.zeros(d), np.asarray(beta0, dtype=float),
                                  with_errors=False).grad_alpha
    alpha = compress(-eta * np.asarray(grad))
    mom = ball_moments(d, s, list(alpha), bits)
    return unconstrained_floor(mom.second, mom.mean_positive, bits), alpha


def certified_floor(d: int, s: int, beta0, eta: float, symmetric: bool, bits: int = 64) -> tuple:
    """(ball, route text): :func:`certified_symmetric` when ``symmetric`` (beta0 background-
    symmetric for s), else :func:`certified_general`; the text names the route and the precision
    (no wall time: the report's bytes must not depend on the machine; times live in the run's
    ``timings``)."""
    ball, text = _certified_floor(d, s, beta0, eta, symmetric, bits)
    return ball, f"{text}; Arb, {bits} bits"


def _certified_floor(d: int, s: int, beta0, eta: float, symmetric: bool, bits: int) -> tuple:
    if symmetric:
        ball, gap = certified_symmetric(d, s, beta0, eta, bits)
        return ball, (f"four-scalar Arb engine, gap alpha'_s - alpha'_j in "
                      f"[{float(gap.lower()):.6g}, {float(gap.upper()):.6g}]")
    ball, alpha = certified_general(d, s, beta0, eta, bits)
    shown = ", ".join(f"{a:.4g}" for a in alpha[:12]) + (", ..." if len(alpha) > 12 else "")
    return ball, f"general Arb engine at the float64 step alpha' = [{shown}]"
