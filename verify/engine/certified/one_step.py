"""Theorem 1's floor at one found point, as a ball: ``min_beta L_s(alpha'_s, beta)`` after one
attention step ``alpha'_s = -eta grad_alpha L_s(0, beta0)`` from alpha = 0 (gaps capped at
``GAP_CAP`` as the float64 search does: :mod:`verify.engine.logits`)."""
from __future__ import annotations

from typing import Sequence

from ..logits import GAP_CAP


def certified_symmetric(d: int, s: int, beta0, eta: float, bits: int):
    """(ball, gap ball, capped) of min_beta L_s(alpha'_s, beta) for background-symmetric beta0,
    with the four-scalar Arb engine: the step's gap -eta (g_s - g_j) from the ball gradient at
    alpha = 0 (exact: a ball), capped at GAP_CAP as the search does when it lies beyond, then
    the 2x2 output optimum (the minimiser over all beta is background-symmetric: the lemma of
    A.7 and convexity)."""
    from flint import arb

    from .balls import precision
    from ..formulas import solve2
    from .symmetric import ball_evaluate, ball_state, output_system

    bs, bj = float(beta0[s]), float(beta0[(s + 1) % d])
    grad = ball_evaluate(ball_state(d, 0, bits), bs, bj)
    with precision(bits):
        gap = -arb(eta) * (grad["alpha_s"] - grad["alpha_j"])
        cap = arb(GAP_CAP)
        capped = bool(gap > cap or gap < -cap)
        gap = cap if gap > cap else -cap if gap < -cap else gap
    state = ball_state(d, gap, bits)
    star = solve2(*output_system(state))
    return ball_evaluate(state, *star)["loss"], gap, capped


def certified_general(d: int, s: int, alpha: Sequence[float], bits: int):
    """min_beta L_s(alpha, beta) as a ball at the attention ``alpha`` (exact binary floats: the
    caller's one-step attention), from the general Arb moments and an arb_mat solve."""
    from .floors import unconstrained_floor
    from .general import ball_moments

    mom = ball_moments(d, s, list(alpha), bits)
    return unconstrained_floor(mom.second, mom.mean_positive, bits)


def certified_floor(d: int, s: int, beta0, eta: float, alpha: Sequence[float] | None,
                    bits: int = 64) -> tuple:
    """(ball, route text): :func:`certified_symmetric` when ``alpha`` is None (beta0
    background-symmetric for s), else :func:`certified_general` at ``alpha``; the text names the
    route and the precision (no wall time: the report's bytes must not depend on the machine;
    times live in the run's ``timings``)."""
    if alpha is None:
        ball, gap, capped = certified_symmetric(d, s, beta0, eta, bits)
        text = (f"four-scalar Arb engine at the exact one-step gap alpha'_s - alpha'_j in "
                f"[{float(gap.lower()):.6g}, {float(gap.upper()):.6g}]"
                + (f" (capped at {GAP_CAP:g})" if capped else ""))
    else:
        ball = certified_general(d, s, alpha, bits)
        shown = ", ".join(f"{a:.4g}" for a in alpha[:12]) + (", ..." if len(alpha) > 12 else "")
        text = f"general Arb engine at alpha'_s from the 20-digit step, rounded to float64 = [{shown}]"
    return ball, f"{text}; Arb, {bits} bits"
