"""Theorem 2 and Corollary 1 for every eps in (0, 1e-6] (the stretch;
proofs/hypothesis-range.md, section 9): boxes of (ln d, tau, u, v) with tau = 1/(1 - ln eps), so that eps = e^(1 - 1/tau)
and eps -> 0 is tau -> 0, a limit like v -> 0.

Every quantity that grows or vanishes with 1/eps is a flat exponential of tau written through
:func:`verify.engine.certified.dual.saturating_exp` (e^(-X/t), 0 at t = 0 with every derivative):

* the gap at v = 1 is G = Gamma/tau, Gamma = -C rate (1 + tau (ln d - 1)), and the background
  weight b = e^(-G/v) = sat(Gamma, tau v);
* 4 delta/eps = 8 J_1 b/eps = 8 J_1 e^-1 sat(Gamma - v, tau v) (needs Gamma > v: the attention
  gap grows faster than ln(1/eps));
* L(alpha', 2 e_s)/eps = 2 J_2 b^2/eps = 2 J_2 e^-1 sat(2 Gamma - v, tau v);
* c_i (1 - lambda_i)^(2 T_low)/eps with T_low = T_factor d ln(16 d/eps)
  = T_factor d (1 + tau (ln 16d - 1))/tau: c_i e^-1 sat(A_i, tau),
  A_i = T_factor d Lambda_i (1 + tau (ln 16d - 1)) - 1, Lambda_i = -ln((1 - lambda_i)^2) (needs
  A_i > 0: Phase 3 contracts faster than eps shrinks);
* Corollary 1's T_low = 72/eps: c_i (1 - lambda_i)^(144/eps)/eps = c_i/(72 Lambda_i) s e^-s with
  s = 72 Lambda_i e^(1/tau - 1) (:func:`verify.engine.certified.dual.doubly_saturating`).

Each "needs" is a condition proved on the box.  The other margins (contraction, initial
distance, optimum) depend on eps only through b and are those of :mod:`.plan_range`.
"""
from __future__ import annotations

import math

from flint import arb

from ..engine.certified.balls import interval
from ..engine.certified.dual import Dual, doubly_saturating, increasing, saturating_exp, value
from ..engine.certified.symmetric import arb_gap_rate_parts
from . import plan_range
from .centred import Setups, in_d_cells, setup_moments
from .claims import constant_ball
from .groups import GROUPS, TAIL
from .roots import log_box

GROUP = TAIL
EPS_SEAM = 1e-6  # the four-dimensional box of (ln d, ln eps, u, v) starts here


def tau_of(eps: float) -> float:
    """tau = 1/(1 - ln eps), rounded up so that e^(1 - 1/tau) >= eps (the tail reaches the
    seam: no eps of (0, eps] is left out)."""
    t = 1 / (1 - math.log(eps))
    while not (arb(1) - 1 / arb(t)).exp() >= eps:
        t = math.nextafter(t, math.inf)
    return t


def eps_of(tau) -> object:
    """eps = e^(1 - 1/tau) (a ball or dual; tau > 0)."""
    return (1 - 1 / tau).exp()


def tail_box(d_lo: float, d_hi: float, eps_hi: float = EPS_SEAM,
             u: tuple = (0.0, 1.0), v: tuple = (0.0, 1.0)) -> tuple:
    """(ln d, tau, u, v) covering [d_lo, d_hi] x (0, eps_hi] x u x v."""
    d = log_box(d_lo, d_hi, 0.5, 0.6)[:2]
    return (*d, 0.0, tau_of(eps_hi), float(u[0]), float(u[1]), float(v[0]), float(v[1]))


def pipeline(group: str, d, tau, u, v, constants, moments, conditions: list) -> dict:
    """The relative margins as functions of (d, tau, u, v) (see the module's text)."""
    prefix = GROUPS[group].prefix
    r0, r1 = in_d_cells(d, lambda x: arb_gap_rate_parts()(x, 0))
    conditions.append(r1)
    C = constant_ball(constants, f"{prefix}.C")
    gamma = -C * (r0 + u * r1) * (1 + tau * (d.log() - 1))
    conditions += [gamma, gamma - v]
    if not all(value(c) > 0 for c in conditions):
        return _open(group)
    tv = tau * v
    b = saturating_exp(gamma, tv)
    beta1 = plan_range.phase1(d, u)
    J = moments(d, b)
    p3 = plan_range.phase3(d, b, J, beta1, conditions)
    scale = arb(-1).exp()
    terms = [2 * J[1] * scale * saturating_exp(2 * gamma - v, tv)]
    for w, lam in zip(p3.weights, p3.lam):
        Lam = -((1 - lam) ** 2).log()
        if prefix == "cor1":
            K = constant_ball(constants, "cor1.T_numerator") * Lam
            conditions.append(K)
            if not all(value(c) > 0 for c in conditions):
                return _open(group)
            if not _saturated(K, tau):  # only halving tau meets it: a condition along tau
                conditions.append(Dual(arb(-1), tau.g) if isinstance(tau, Dual) else arb(-1))
                return _open(group)
            terms.append(w / K * doubly_saturating(K, tau))
            continue
        T_factor = constant_ball(constants, "thm2.T_factor")
        A = T_factor * d * Lam * (1 + tau * ((16 * d).log() - 1)) - 1
        conditions.append(A)
        if not all(value(c) > 0 for c in conditions):
            return _open(group)
        terms.append(w * scale * saturating_exp(A, tau))
    final = 1 - (terms[0] + terms[1] + terms[2])
    if prefix == "cor1":
        return {"cor1.population": final}
    return {"thm2.final": final, **plan_range.shared_margins(d, b, J, p3),
            "thm2.delta": 1 - 8 * J[0] * scale * saturating_exp(gamma - v, tv)}


def _saturated(K, tau) -> bool:
    """Whether :func:`doubly_saturating` can bound its tau-derivative: tau > 0 on the box, or
    s >= 4 already at its largest tau."""
    t = value(tau)
    return t.lower() > 0 or t.upper() == 0 or \
        value(K).lower() * (1 / arb(t.upper()) - 1).exp() >= 4


def _open(group: str) -> dict:
    """No enclosure (a condition is not proved: the caller sees it among the conditions)."""
    return {claim: arb("nan") for claim in GROUPS[group].claims}


def _centre_check(group: str, d: Dual, tau: Dual, u: Dual, v: Dual, constants) -> None:
    """The gap Gamma/(tau v) against -eta2 (g_s - g_j) from the step sizes, at the centre."""
    prefix = GROUPS[group].prefix
    r0, r1 = arb_gap_rate_parts()(d.c, 0)
    C = constant_ball(constants, f"{prefix}.C")
    gamma = -C * (r0 + u.c * r1) * (1 + tau.c * (d.c.log() - 1))
    direct = plan_range.direct_gap(prefix, d.c, eps_of(tau.c), u.c, v.c, constants)
    if not (gamma / (tau.c * v.c)).overlaps(direct):
        raise ArithmeticError("the tail's gap and eta2 disagree: the schedule changed in one place")


def evaluate(group: str, box: tuple, constants, bits: int, plans: list,
             conditions: list) -> dict | None:
    """The pipeline on the box's centred duals (None: the centre is below d = 3)."""
    X = [interval(box[2 * i], box[2 * i + 1]) for i in range(4)]
    mid = [arb((box[2 * i] + box[2 * i + 1]) / 2) for i in range(4)]
    dx = tuple(Xi - ci for Xi, ci in zip(X, mid))
    zero, one = arb(0), arb(1)
    d_ball, dc = increasing(X[0], arb.exp), mid[0].exp()
    if not d_ball.lower() >= plan_range.D_MIN:
        d_ball = arb(plan_range.D_MIN).union(d_ball.upper())
    if not dc.lower() >= plan_range.D_MIN:
        return None
    d = Dual(d_ball, (d_ball, zero, zero, zero), dc, dx)
    tau = Dual(X[1], (zero, one, zero, zero), mid[1], dx)
    u = Dual(X[2], (zero, zero, one, zero), mid[2], dx)
    v = Dual(X[3], (zero, zero, zero, one), mid[3], dx)
    _centre_check(group, d, tau, u, v, constants)
    return pipeline(group, d, tau, u, v, constants,
                    lambda dd, b: setup_moments(Setups(dd, back=b), bits, plans), conditions)


def point(group: str, x: tuple, constants, bits: int, plan) -> dict:
    """The margins at one point (tau = 0 allowed: the limit eps -> 0)."""
    from ..engine.certified.balls import ARB
    from ..engine.expectations import weighted_setup
    from .centred import setup_centre_moments

    d = arb(x[0]).exp()
    d = Dual(d if d.lower() >= plan_range.D_MIN else arb(plan_range.D_MIN), ())
    tau, u, v = (Dual(arb(c), ()) for c in x[1:])

    def moments(dd, b):
        s = weighted_setup(value(dd), arb(1), value(b), "nu", plan.order, ARB, scaled=True)
        return setup_centre_moments(s, bits, plan)

    return {c: value(m) for c, m in pipeline(group, d, tau, u, v, constants, moments, []).items()}


def box_margins(group: str, box: tuple, constants, bits: int,
                check_corners: bool = False) -> tuple[dict | None, dict]:
    """:func:`verify.certify.plan_range.box_margins` of a tail group over (ln d, tau, u, v)."""
    return plan_range.box_margins(group, box, constants, bits, check_corners, (evaluate, point))
