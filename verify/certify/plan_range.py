"""Theorem 2 and Corollary 1 over their whole hypothesis range: the margins over boxes of
(ln d, ln eps, u, v) (proofs/hypothesis-range.md).

``u = eta1/sqrt(d)`` runs over ``[0, thm2.eta1_scale]`` (the hypothesis 0 < eta1 <= sqrt(d)) and
``v = eta2_min/eta2`` over ``[0, 1]`` (every eta2 >= eta2_min = C d^2/eta1 ln(d/eps)); the ends
u = 0 and v = 0 are the continuous extensions derived in the note.  Phase 1 is linear in eta1
(``beta' = u sqrt(d) k(d)``) and Phase 2's attention gap is ``G/v`` with
``G = -C ln(d/eps) (r0(d) + u sqrt(d) r1(d))`` (:func:`verify.engine.symbolic.gap_rate_parts`),
finite at u = 0.  As v -> 0 the gap grows without bound; the claims are written in the background
weight ``b = e^(-G/v)`` (:func:`verify.engine.certified.dual.saturating_exp`, 0 at v = 0 with every
derivative) and the scaled moments ``J_r = nu_r / b^r``, finite at b = 0, so every margin is C^1
on the closed box and the centred form (proofs/centred-form.md) holds up to the ends.

Margins are relative (a positive multiple of bound - value, the same sign): ``1 - L/eps``
(the final loss, every integer T >= T_low), ``8 d lambda_min - 1`` (contraction),
``1 - |beta' - beta*|_W^2/(16 d)``, ``1 - nu_2/(2 nu_1)`` (a lower bound of ``1 - L*/(2 delta)``:
``L* <= L(alpha', 2 e_s) = 2 nu_2``, ``delta = 2 nu_1``) and ``1 - 4 delta/eps``.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from flint import arb

from ..engine import schedules
from ..engine.certified.balls import ARB, interval, precision
from ..engine.certified.dual import Dual, increasing, saturating_exp, value
from ..engine.certified.symmetric import (arb_gap_rate_parts, arb_phase1_rates, arb_phases,
                                          ball_three_phase)
from ..engine.expectations import weighted_setup
from ..engine.formulas import det2, phase3_system, solve2
from .centred import (Setups, discriminant, evaluate_reduction, in_d_cells, phase3_weights,
                      setup_centre_moments, setup_moments)
from .claims import constant_ball
from .groups import GROUPS

D_MIN = 3  # the four-axis groups' first d (groups.GROUPS)
# the split rule's scale of each side when a box has no gradient to go by: plain widths (the gap
# moves by C |r| ~ 2-4 per unit of ln d or ln eps, and by G ~ 1-100 per unit of v)
SCALES = (1.0, 1.0, 1.0, 1.0)
DELTA = "thm2.delta"


def steps_low(prefix: str, d, eps, constants):
    """The real lower bound of the integer T: T_factor d ln(16d/eps) (thm2), T_numerator/eps
    (cor1); the claims hold for every integer T >= it (proofs/monotonicity.md)."""
    if prefix == "thm2":
        return schedules.phase3_steps(d, eps, constant_ball(constants, "thm2.T_factor"),
                                      lambda x: x.log())
    return schedules.cor1_steps(eps, constant_ball(constants, "cor1.T_numerator"))


def gap_at_v1(prefix: str, d, eps, u, constants, conditions: list | None = None):
    """G = -C ln(d/eps) (r0 + u sqrt(d) r1): Phase 2's gap at eta2 = eta2_min (v = 1), the gap
    at v being G/v; cell-wise in d over a box (the closed forms cancel near d = 3)."""
    r0, r1 = in_d_cells(d, lambda x: arb_gap_rate_parts()(x, 0))
    if conditions is not None:  # G decreases in u (section 6)
        conditions.append(r1)
    C = constant_ball(constants, f"{prefix}.C")
    return -C * (d.log() - eps.log()) * (r0 + u * r1)  # schedules.phase2_gap, ln(d/eps) split


def direct_gap(prefix: str, d: arb, eps: arb, u: arb, v: arb, constants) -> arb:
    """-eta2 (g_s - g_j) at one point from the step sizes themselves (eta1 = u sqrt(d),
    eta2 = eta2_min/v, the Phase-2 gradient's closed forms): :func:`gap_at_v1`/v must agree."""
    eta1 = u * d.sqrt()
    eta2 = schedules.eta2(d, eps, constant_ball(constants, f"{prefix}.C"), eta1,
                          lambda x: x.log()) / v
    _, _, g2s, g2j = arb_phases()(d, eta1)
    return -eta2 * (g2s - g2j)


class Phase3(NamedTuple):
    """Phase 3 at the attention of Phase 2: the eigenvalues and weights of the per-direction
    bound, the start's error e = beta' - beta* and L(alpha', 2 e_s) (>= L*)."""

    lam: tuple
    weights: tuple
    e: tuple
    loss_two: object


def phase3(d, b, J: tuple, beta1: tuple, conditions: list) -> Phase3:
    """The Phase-3 quadratic at background weight b from the scaled moments J_r = nu_r/b^r,
    with its conditions (real distinct eigenvalues in (0, 2), not 1, sum < 2, det > 0)."""
    nu = tuple(b ** (r + 1) * J[r] for r in range(len(J)))
    # keys: loss, alpha_s, alpha_j, beta_s, beta_j
    A, c = phase3_system(lambda bs, bj: evaluate_reduction("nu", d, nu, bs, bj)[3:5])
    det, star = det2(A), solve2(A, c)
    e = (beta1[0] - star[0], beta1[1] - star[1])
    lam, _, weights = phase3_weights(A, e, d, metric=True)
    conditions += [discriminant(A, d, metric=True), lam[0], 2 - lam[1], (1 - lam[0]) ** 2,
                   (1 - lam[1]) ** 2, 2 - (lam[0] + lam[1]), det]
    return Phase3(lam, tuple(weights), e, evaluate_reduction("nu", d, nu, 2, 0)[0])


def phase1(d, u) -> tuple:
    """beta' = u sqrt(d) (beta'_s/eta1, beta'_j/eta1) (Phase 1 is linear in eta1)."""
    eta1 = u * d.sqrt()
    k_s, k_j = arb_phase1_rates()(d, 0)
    return eta1 * k_s, eta1 * k_j


def pipeline(group: str, d, eps, u, v, constants, moments, conditions: list) -> dict:
    """Every claim's relative margin as a function of (d, eps, u, v) on duals (or balls at a
    point); ``moments(d, b)`` gives the scaled moments J_r = nu_r/b^r; ``conditions`` collects
    what must be > 0 for the smooth formulas to be the claims' bounds."""
    prefix = GROUPS[group].prefix
    G = gap_at_v1(prefix, d, eps, u, constants, conditions)
    conditions.append(G)
    b = saturating_exp(G, v)
    beta1 = phase1(d, u)
    T_low = steps_low(prefix, d, eps, constants)
    J = moments(d, b)
    p3 = phase3(d, b, J, beta1, conditions)
    decay = [w * (T_low * ((1 - lam) ** 2).log()).exp() for w, lam in zip(p3.weights, p3.lam)]
    final = 1 - (p3.loss_two + decay[0] + decay[1]) / eps
    if prefix == "cor1":
        return {"cor1.population": final}
    return {"thm2.final": final, **shared_margins(d, b, J, p3), "thm2.delta": 1 - 8 * b * J[0] / eps}


def shared_margins(d, b, J: tuple, p3: Phase3) -> dict:
    """The margins that do not involve eps: contraction, initial distance, optimum."""
    e = p3.e
    return {"thm2.contraction": 8 * d * p3.lam[0] - 1,
            "thm2.initial_distance": 1 - (e[0] ** 2 + (d - 1) * e[1] ** 2) / (16 * d),
            "thm2.optimum": 1 - b * J[1] / (2 * J[0])}


def _centre_check(group: str, d: Dual, eps: Dual, u: Dual, v: Dual, constants) -> None:
    """The gap G/v of the certified route against -eta2 (g_s - g_j) from the step sizes, at the
    box's centre (a schedule changed in one place only leaves the box undecided)."""
    prefix = GROUPS[group].prefix
    G = gap_at_v1(prefix, d.c, eps.c, u.c, constants)
    if not (G / v.c).overlaps(direct_gap(prefix, d.c, eps.c, u.c, v.c, constants)):
        raise ArithmeticError("phase2_gap and eta2 disagree: the schedule changed in one place")


def _point(group: str, x: tuple, constants, bits: int, plan) -> dict:
    """The margins at one point of a box (on the box's pieces and tail ball)."""
    d = arb(x[0]).exp()
    d = Dual(d if d.lower() >= D_MIN else arb(D_MIN), ())
    eps, u, v = Dual(arb(x[1]).exp(), ()), Dual(arb(x[2]), ()), Dual(arb(x[3]), ())

    def moments(dd, b):
        s = weighted_setup(value(dd), arb(1), value(b), "nu", plan.order, ARB, scaled=True)
        return setup_centre_moments(s, bits, plan)

    out = pipeline(group, d, eps, u, v, constants, moments, [])
    return {claim: value(m) for claim, m in out.items()}


def corners(box: tuple) -> list[tuple]:
    """The 16 corners of a 4-D box."""
    out = [()]
    for i in range(4):
        out = [p + (end,) for p in out for end in box[2 * i:2 * i + 2]]
    return out


def smear(m, widths: tuple) -> tuple:
    """|dm/dx_i| x width_i over the box (upper ends, floats): which side widens m the most."""
    if not isinstance(m, Dual):
        return tuple(0.0 for _ in widths)
    return tuple(float(abs(g).upper()) * w if g.is_finite() else math.inf
                 for g, w in zip(m.g, widths))


def _evaluate(group: str, box: tuple, constants, bits: int, plans: list, conditions: list):
    """The pipeline on the box's centred duals (None: the centre is below d = 3)."""
    X = [interval(box[2 * i], box[2 * i + 1]) for i in range(4)]
    mid = [arb((box[2 * i] + box[2 * i + 1]) / 2) for i in range(4)]
    dx = tuple(Xi - ci for Xi, ci in zip(X, mid))
    zero, one = arb(0), arb(1)
    d_ball, dc = increasing(X[0], arb.exp), mid[0].exp()
    if not d_ball.lower() >= D_MIN:  # the claims start at d = 3: cut the box there
        d_ball = arb(D_MIN).union(d_ball.upper())
    if not dc.lower() >= D_MIN:
        return None
    eps_ball = increasing(X[1], arb.exp)
    d = Dual(d_ball, (d_ball, zero, zero, zero), dc, dx)
    eps = Dual(eps_ball, (zero, eps_ball, zero, zero), mid[1].exp(), dx)
    u = Dual(X[2], (zero, zero, one, zero), mid[2], dx)
    v = Dual(X[3], (zero, zero, zero, one), mid[3], dx)
    _centre_check(group, d, eps, u, v, constants)
    return pipeline(group, d, eps, u, v, constants,
                    lambda dd, b: setup_moments(Setups(dd, back=b), bits, plans), conditions)


def face(box: tuple) -> tuple:
    """The box's face u = u_hi, v = v_hi: where the gap, and so the monotone margins, are
    smallest (proofs/hypothesis-range.md, section 6)."""
    return (*box[:4], box[5], box[5], box[7], box[7])


def box_margins(group: str, box: tuple, constants, bits: int, check_corners: bool = False,
                routes: tuple | None = None) -> tuple[dict | None, dict]:
    """(every claim's margin ball over ``box`` or None when a smoothness condition is not
    proved, each claim's (or the failing condition's, key None) smear by side).

    ``thm2.delta`` decreases with b (section 6), and b is largest on the face u = u_hi,
    v = v_hi of the box (G > 0, r1 > 0 proved on it): when its enclosure over the box is not
    above 0, the face's lower end, a lower bound over the whole box, replaces the box's when
    larger (the upper end stays the box's own, an upper bound over the box), with the face's
    smears.  ``check_corners``: the margins at the 16 corners must lie in the
    enclosures (else ArithmeticError: a wrong gradient or a dropped term shows there).
    ``routes``: (box evaluation, point evaluation) of the group (None: this module's; the eps
    tails pass :mod:`verify.certify.eps_tail`'s)."""
    plans: list = []
    conditions: list = []
    widths = tuple(box[2 * i + 1] - box[2 * i] for i in range(4))
    if routes is None and GROUPS[group].tail:
        raise ValueError(f"{group} is over (ln d, tau, u, v): eps_tail.box_margins judges it")
    evaluate, point = routes or (_evaluate, _point)
    with precision(bits):
        out = evaluate(group, box, constants, bits, plans, conditions)
        if out is None:
            return None, {}
        failing = [c for c in conditions if not value(c) > 0]
        if failing:
            return None, {None: smear(failing[0], widths)}
        margins = {claim: m.v for claim, m in out.items()}
        smears = {claim: smear(m, widths) for claim, m in out.items()}
        if DELTA in margins and not margins[DELTA].lower() > 0 and widths[2:] != (0, 0):
            edge: list = []
            low = evaluate(group, face(box), constants, bits, [], edge)
            if low is not None and all(value(c) > 0 for c in edge) \
                    and low[DELTA].v.lower() > margins[DELTA].lower():
                margins[DELTA] = arb(low[DELTA].v.lower()).union(margins[DELTA].upper())
                smears[DELTA] = smear(low[DELTA], widths)
        for x in corners(box) if check_corners else ():
            for claim, m in point(group, x, constants, bits, plans[0]).items():
                if not m.overlaps(margins[claim]):
                    raise ArithmeticError(f"the enclosure of {claim} misses its value at a corner")
        return margins, smears


def exact_final_margin(group: str, x: tuple, constants, bits: int) -> arb | None:
    """1 - L/eps at the point x = (ln d, ln eps, u, v) (u, v > 0) after exactly T Phase-3 steps,
    T = ceil(T_low) the smallest integer the statement allows: a ball, not a bound (plain route,
    :func:`verify.engine.certified.symmetric.ball_three_phase`).  None when T is ambiguous."""
    if GROUPS[group].tail:  # (ln d, tau, u, v): ln eps = 1 - 1/tau
        if not x[1] > 0:
            return None
        return exact_final_margin(group[:7], (x[0], 1 - 1 / x[1], *x[2:]), constants, bits)
    prefix = GROUPS[group].prefix
    with precision(bits):
        d = max(arb(x[0]).exp(), arb(D_MIN), key=float)
        eps, u, v = arb(x[1]).exp(), arb(x[2]), arb(x[3])
        eta1 = u * d.sqrt()
        eta2 = schedules.eta2(d, eps, constant_ball(constants, f"{prefix}.C"), eta1,
                              lambda y: y.log()) / v
        T_low = steps_low(prefix, d, eps, constants)
        T = int(math.ceil(float(T_low.upper())))
        if not (arb(T) >= T_low.upper() and arb(T - 1) < T_low.lower()):
            return None
    plan = ball_three_phase(d, eta1, eta2, 1, bits)
    loss = plan.loss_after(T)["loss"]
    with precision(bits):
        return 1 - loss / eps
