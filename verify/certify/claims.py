"""The claims certified over boxes: each is a *margin* (bound - value) enclosed by a ball for
every (d, eps) in a box of (ln d, ln eps); a box is certified for a claim when the ball's lower
end is > 0.  Integer quantities (T = ceil(T_factor d ln(16d/eps)), ceil(72/eps)) enter through
the Phase-3 bound for every T >= the real lower bound (proofs/monotonicity.md).

Groups share their expensive part (the plan) per box: ``prop1`` (Proposition 1), ``thm2``
(Theorem 2 and the A.7 steps), ``cor1`` (Corollary 1's population schedule).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Mapping

from flint import arb

from ..engine import schedules
from ..engine.certified.balls import ARB, interval, precision
from ..engine.certified.symmetric import ball_evaluate, ball_state, ball_three_phase, delta
from .groups import GROUPS

EVAL_LIMIT = 4000  # integrand evaluations per piece: a wide box fails fast and is split
Box = tuple[float, float, float, float]  # ln d from, to; ln eps from, to
D_MIN = {name: GROUPS[name].d_min for name in ("prop1", "thm2", "cor1")}  # the 2-D groups
CLAIMS = {name: GROUPS[name].claims for name in ("prop1", "thm2", "cor1")}


def box_balls(box: Box, d_min: int) -> tuple[arb, arb]:
    """(d, eps) balls covering the box; d is cut at d_min (the claims start there)."""
    d = interval(box[0], box[1]).exp()
    if not d.lower() >= d_min:
        d = arb(d_min).union(d.upper())
    return d, interval(box[2], box[3]).exp()


def _log(x: arb) -> arb:
    return x.log()


def constant_ball(constants: Mapping[str, Fraction], key: str) -> arb:
    """The constant ``key`` as an exact Arb ball (constants are rationals)."""
    return ARB.number(constants[key])


def prop1_margins(d: arb, eps: arb, constants, bits: int) -> dict:
    """eps - L_s(ln(c d/eps^2) e_s, 2 e_s)."""
    with precision(bits):
        gap = schedules.prop1_gap(d, eps, constant_ball(constants, "prop1.attention_constant"), _log)
    loss = ball_evaluate(ball_state(d, gap, bits, EVAL_LIMIT), 2, 0)["loss"]
    with precision(bits):
        return {"prop1.bound": eps - loss}


def schedule_balls(d, eps, constants, prefix: str) -> tuple:
    """(eta1, eta2, T_low): eta1 = scale sqrt(d), eta2 = C d^2/eta1 ln(d/eps), and the real lower
    bound of the integer T (T_factor d ln(16d/eps) for thm2, T_numerator/eps for cor1), for
    (d, eps) Arb balls or the centred form's dual numbers over them."""
    eta1 = schedules.eta1(d, constant_ball(constants, "thm2.eta1_scale"), lambda x: x.sqrt())
    eta2 = schedules.eta2(d, eps, constant_ball(constants, f"{prefix}.C"), eta1, _log)
    if prefix == "thm2":
        T_low = schedules.phase3_steps(d, eps, constant_ball(constants, "thm2.T_factor"), _log)
    else:
        T_low = schedules.cor1_steps(eps, constant_ball(constants, "cor1.T_numerator"))
    return eta1, eta2, T_low


def thm2_margins(d: arb, eps: arb, constants, bits: int, prefix: str = "thm2") -> dict:
    """Theorem 2's final loss and the A.7 steps (or Corollary 1's final loss, prefix cor1)."""
    with precision(bits):
        eta1, eta2, T_low = schedule_balls(d, eps, constants, prefix)
    plan = ball_three_phase(d, eta1, eta2, 1, bits, EVAL_LIMIT)
    with precision(bits):
        final = eps - plan.loss_bound(T_low)
        if prefix == "cor1":
            return {"cor1.population": final}
        dl = delta(plan.state)
        e = (plan.beta1[0] - plan.beta_star[0], plan.beta1[1] - plan.beta_star[1])
        return {
            "thm2.final": final,
            "thm2.contraction": 1 - 1 / (8 * d) - arb(plan.rho.upper()),
            "thm2.initial_distance": 16 * d - (e[0] ** 2 + (d - 1) * e[1] ** 2),
            "thm2.optimum": 2 * dl - plan.loss_star,
            "thm2.delta": eps / 2 - 2 * dl,
        }


def exact_final_margin(group: str, d: float, eps: float, constants, bits: int) -> arb | None:
    """eps - L after exactly T Phase-3 steps at the point (d, eps), T the integer of the
    schedule (repeated squaring of I - A, :meth:`BallPlan.loss_after`): a ball, not a bound.
    None when the ball of T's real expression contains an integer (T ambiguous)."""
    prefix = "thm2" if group == "thm2" else "cor1"
    with precision(bits):
        dd, ee = arb(d), arb(eps)
        eta1, eta2, T_low = schedule_balls(dd, ee, constants, prefix)
        T = int(math.ceil(float(T_low.upper())))
        if not (arb(T) >= T_low.upper() and arb(T - 1) < T_low.lower()):
            return None
    plan = ball_three_phase(dd, eta1, eta2, 1, bits)
    loss = plan.loss_after(T)["loss"]
    with precision(bits):
        return ee - loss


MARGINS: dict[str, Callable[..., dict]] = {
    "prop1": prop1_margins,
    "thm2": thm2_margins,
    "cor1": lambda d, eps, constants, bits: thm2_margins(d, eps, constants, bits, "cor1"),
}


def margins(group: str, box: Box, constants, bits: int) -> dict:
    """Every claim of ``group`` as a margin ball over ``box``."""
    d, eps = box_balls(box, D_MIN[group])
    return MARGINS[group](d, eps, constants, bits)
