"""The centred (mean-value) form of the claims' margins over a box (proofs/centred-form.md).

For a margin ``m`` that is C^1 on a box ``X`` of (u, v) = (ln d, ln eps) with a point ``c`` in it,
``m(X) ⊆ m(c) + m_u(X) (U - u_c) + m_v(X) (V - v_c)``: ``m(c)`` is enclosed at the point (a tiny
ball, so the enclosure is as tight as the quadrature), the gradient over the whole box by
forward-mode dual numbers (:mod:`verify.engine.certified.dual`).  Plain ball evaluation widens
in proportion to the box's width times the whole computation's dependency problem; the
centred form widens only by the true gradient times the width, plus a second-order excess.

The moments ``mu_r(d, gap)`` are integrals over t in [0, inf).  Both passes integrate the same
finite range [0, T] (same pieces, same cut) and add the same tail ball ``[0, B_T(X)]``
(proofs/tail-bound.md, evaluated over the whole box); the gradient differentiates only the
finite integral under the integral sign, so no tail bound for the derivatives is needed:
``m(x) = g(x, R(x))`` with ``R(x)`` in the fixed ball ``P = [0, B_T(X)]``, and the mean-value
theorem is applied to ``g(., rho)`` for each fixed ``rho`` in P.

Non-smooth steps of the plain route (``rho = max |1 - eta3 lambda|``, upper ends) are replaced by
smooth formulas whose validity on the box is checked first (:func:`_thm2`); when a condition
cannot be proved the box is left to the plain route.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

from flint import arb

from ..engine import schedules
from ..engine.certified.balls import ARB, interval, precision
from ..engine.certified.dual import DUAL, Dual, increasing, value
from ..engine.certified.moments import log_break_points, piece_integrals
from ..engine.certified.symmetric import arb_gap_rate, arb_phases, arb_reduction, family_for
from ..engine.expectations import (moment_integrand, moment_setup, tail_bound, tail_coefficients,
                                    weighted_setup)
from ..engine.formulas import det2, phase3_system, solve2
from ..engine.symbolic import reduce_symmetric

RIEMANN_CELLS = 24  # cells per piece of the box integrals (rough is enough: they multiply the width)
MAX_EXTRA = 40  # cut doublings
PHASE_CELLS = 8  # at least this many cells of the d-range for the closed forms of Phases 1-2,
PHASE_CELL_WIDTH = 0.002  # each at most this wide in u = ln d (their N/D both ~ d^3 .. d^5)
OPTIMUM_FLOOR = "thm2.optimum<="  # delta <= 2 delta - L(alpha', 2 e_s) <= 2 delta - L*


@dataclass
class MomentPlan:
    """Where both passes integrate: family, pieces of [0, T] and the tail ball over the box."""

    family: str
    order: int
    t0: float
    pieces: list  # (a, b, log_scale): [0, t0] in t, then in v = ln(t / t0)
    tail: list = field(default_factory=list)  # upper ends of B_T(X), per r
    scale: list = field(default_factory=list)  # magnitude of each moment (tolerances)
    low: list = field(default_factory=list)  # lower bounds of the moments over the box


@dataclass(frozen=True)
class Setups:
    """How the moment integrals' constants are formed over a box, in three number types: "box"
    (interval arithmetic: duals without a gradient; Arb's midpoint-radius powers of a wide ball
    such as p = 1/(d - 1) would contain 0), "dual" (values and gradients) and "centre" (balls at
    the box's centre).  From the attention gap (``back`` None), or, for the family ``nu``, from
    the background weight ``back`` = e^-gap itself with the scaled moments nu_r / b^r
    (:func:`verify.engine.expectations.weighted_setup`; b may reach 0, the limit gap -> inf)."""

    d: Dual
    gap: Dual | None = None
    back: Dual | None = None

    @property
    def family(self) -> str:
        return "nu" if self.back is not None else family_for(self.gap.v)

    def make(self, kind: str, order: int):
        d, w = self.d, (self.gap if self.back is None else self.back)
        if kind == "centre":
            args = (d.c, w.c, ARB)
        elif kind == "box":
            args = (Dual(d.v, ()), Dual(w.v, ()), DUAL)
        else:
            args = (Dual(d.v, d.g), Dual(w.v, w.g), DUAL)
        if self.back is None:
            return moment_setup(args[0], args[1], self.family, order, args[2])
        return weighted_setup(args[0], args[2].number(1), args[1], "nu", order, args[2],
                              scaled=True)


def _box_setup(setups: Setups, order: int):
    """The moment constants over the box in interval arithmetic, and the tail coefficients."""
    s = setups.make("box", order)
    return s, [value(k) for k in tail_coefficients(s)]


def _tail(T: arb, s, K: list) -> list:
    """Upper ends of the proven tail bounds from T over the box (proofs/tail-bound.md)."""
    return [value(t).upper() for t in tail_bound(T, s, DUAL, [Dual(k, ()) for k in K])]


def _setup_plan(setups: Setups, bits: int) -> MomentPlan:
    """Family, pieces and cut from the box's balls (choices, not claims: floats)."""
    family = setups.family
    order = reduce_symmetric(family).order
    s, K = _box_setup(setups, order)
    logs = log_break_points(replace(s, c_target=value(s.c_target), c_back=value(s.c_back),
                                    p=value(s.p)))
    k_max = max(float(k.upper().log()) for k in K)
    c_lo = float(value(s.c_target).lower().log())
    log_cut = math.log(max(k_max + bits * math.log(2) + 5 * order, 1.0)) - c_lo
    # the integrand decays like e^(-c_target t): scales beyond the cut matter not (the tail
    # bound covers [cut, inf) whatever they are), and wide cells there only widen the balls
    logs = [u for u in logs if u < log_cut] + [log_cut]
    if len(logs) < 2:
        logs = [log_cut - math.log(8), log_cut]
    t0 = math.exp(logs[0])
    logs = [u - logs[0] for u in logs]
    pieces = [(0.0, t0, False)] + [(a, b, True) for a, b in zip(logs, logs[1:])]
    return MomentPlan(family, order, t0, pieces)


def _cut(plan: MomentPlan) -> arb:
    """A lower bound of T = t0 e^(last v)."""
    return (arb(plan.t0) * arb(plan.pieces[-1][1]).exp()).lower()


def _riemann(s, piece: tuple, t0: float, cells: int) -> tuple:
    """Enclosures of int over one piece of every integrand_r: sum over cells of (cell length) x
    (integrand on the cell's ball).  Real balls only, so a wide parameter box never meets the
    complex singularities Petras' ellipses would; the integrand is a dual, so one pass gives the
    values and the gradients.  Also the sums of the cells' lower ends (a lower bound kept apart:
    a ball [lo, hi] with lo/hi below 2^-30 has a negative lower end, Arb's radii have 30 bits)."""
    a, b, log_scale = piece
    out = [arb(0)] * s.order
    lows = [arb(0)] * s.order
    edges = [a + (b - a) * i / cells for i in range(cells + 1)]
    edges[-1] = b
    for lo, hi in zip(edges, edges[1:]):
        cell = interval(lo, hi)
        t = arb(t0) * increasing(cell, arb.exp) if log_scale else cell
        width = arb(hi) - arb(lo)
        values = moment_integrand(t, s, DUAL)
        terms = [f * (t * width if log_scale else width) for f in values]
        out = [o + f for o, f in zip(out, terms)]
        # every integrand is >= 0 for real t >= 0 (proofs/tail-bound.md): a cell whose ball
        # reaches below 0 contributes 0 to the lower bound
        lows = [low + max(arb(value(f).lower()), arb(0), key=float) for low, f in zip(lows, terms)]
    return out, lows


def box_moments(d: Dual, gap: Dual, bits: int, plans: list) -> tuple:
    """The moments as centred duals: over the box, value ``I_T(X) + [0, B_T(X)]`` and gradient
    ``int_0^T grad f``; at the centre ``I_T(c) + [0, B_T(X)]`` on the same pieces.

    The cut is doubled until the tail bound over the box is below 2^-(bits/2) of each moment's
    size (a choice: whatever the cut, the tail ball is added to both passes)."""
    return setup_moments(Setups(d, gap=gap), bits, plans)


def setup_moments(setups: Setups, bits: int, plans: list) -> tuple:
    """:func:`box_moments` for moment constants formed by ``setups`` (from the gap, or the
    scaled moments ``nu_r / b^r`` from the background weight b)."""
    d = setups.d
    plan = _setup_plan(setups, bits)
    s_box, K = _box_setup(setups, plan.order)
    s_dual = setups.make("dual", plan.order)
    c_lo = value(s_box.c_target).lower()
    scale = [k.upper() * math.factorial(r) / c_lo ** (r + 1) for r, k in enumerate(K)]
    total = [Dual(arb(0), tuple(arb(0) for _ in d.g))] * plan.order
    todo = list(plan.pieces)
    for _ in range(MAX_EXTRA):
        for piece in todo:
            parts, lows = _riemann(s_dual, piece, plan.t0, RIEMANN_CELLS)
            total = [x + y for x, y in zip(total, parts)]
            plan.low = [a + b for a, b in zip(plan.low or [arb(0)] * plan.order, lows)]
        if not all(x.v.is_finite() and all(g.is_finite() for g in x.g) for x in total):
            raise ArithmeticError("the box integrals are not finite")
        tail = _tail(_cut(plan), s_box, K)
        sizes = [max(abs(x.v.mid()), x.v.rad(), key=float) for x in total]
        if all(t <= m * arb(2) ** -(bits // 2) for t, m in zip(tail, sizes)):
            break
        last = plan.pieces[-1][1]
        todo = [(last, last + math.log(2), True)]
        plan.pieces += todo
    else:
        raise ArithmeticError("tail bound did not fall below the tolerance")
    plan.tail = tail
    plan.scale = [m if m > 0 else x for m, x in zip(sizes, scale)]
    plans.append(plan)
    centre = setup_centre_moments(setups.make("centre", plan.order), bits, plan)
    return tuple(Dual(x.v + arb(0).union(t), x.g, c, d.dx)
                 for x, t, c in zip(total, plan.tail, centre))


def centre_moments(d: arb, gap: arb, bits: int, plan: MomentPlan) -> tuple:
    """Moments at the centre on the box's pieces: ``I_T(c) + [0, B_T(X)]`` (tight balls)."""
    return setup_centre_moments(moment_setup(d, gap, plan.family, plan.order, ARB), bits, plan)


def setup_centre_moments(s, bits: int, plan: MomentPlan) -> tuple:
    """:func:`centre_moments` for the moment constants ``s`` (Arb balls at one point)."""
    tol = [x * arb(2) ** -bits for x in plan.scale]
    total = [arb(0)] * plan.order
    for piece in plan.pieces:
        total = [x + y for x, y in zip(total, piece_integrals(s, piece, plan.t0, tol))]
    return tuple(x + arb(0).union(t) for x, t in zip(total, plan.tail))


Moments = Callable[[object, object], tuple]


def evaluate_reduction(family: str, d, moments: tuple, bs, bj) -> tuple:
    padded = list(moments) + [arb(0)] * (4 - len(moments))
    return arb_reduction(family)(d, bs, bj, *padded)


def _prop1(d, eps, constants, moments: Moments, family: Callable) -> dict:
    """eps - L_s(ln(c d/eps^2) e_s, 2 e_s) (Proposition 1), smooth in (d, eps)."""
    from .claims import constant_ball

    gap = schedules.prop1_gap(d, eps, constant_ball(constants, "prop1.attention_constant"), lambda x: x.log())
    mom = moments(d, gap)
    loss = evaluate_reduction(family(), d, mom, 2, 0)[0]
    return {"prop1.bound": eps - loss}


def _thm2(d, eps, constants, moments: Moments, family: Callable, prefix: str,
          conditions: list) -> dict:
    """Theorem 2's final loss and the A.7 steps (Corollary 1's final loss for prefix cor1) as
    smooth functions; ``conditions`` collects the balls that must be > 0 on the box for the
    smooth formulas to be the claims' bounds (proofs/centred-form.md)."""
    from .claims import constant_ball, schedule_balls

    eta1, eta2, T_low = schedule_balls(d, eps, constants, prefix)
    b1s, b1j, g2s, g2j, rate = phases(d, constant_ball(constants, "thm2.eta1_scale"))
    gap = schedules.phase2_gap(d, eps, constant_ball(constants, f"{prefix}.C"), rate,
                               lambda x: x.log())
    direct = (-eta2 * g2s) - (-eta2 * g2j)  # the same gap through eta2: must agree at the centre
    if not _centre(gap).overlaps(_centre(direct)):
        raise ArithmeticError("phase2_gap and eta2 disagree: the schedule changed in one place")
    mom = moments(d, gap)
    fam = family()
    # keys: loss, alpha_s, alpha_j, beta_s, beta_j
    A, c = phase3_system(lambda bs, bj: evaluate_reduction(fam, d, mom, bs, bj)[3:5])
    det, star = det2(A), solve2(A, c)
    loss_star = evaluate_reduction(fam, d, mom, *star)[0]
    e = (b1s - star[0], b1j - star[1])
    lam, root, decay = phase3_decay(A, e, d, T_low)
    rho = 1 - lam[0]  # eta3 = 1; = max|1 - lambda| when lambda_min + lambda_max <= 2
    trace = lam[0] + lam[1]
    # smooth and the bounds of the claims where: distinct real eigenvalues, 0 < lambda < 2,
    # lambda != 1, lambda_min + lambda_max < 2, det != 0
    conditions += [root, lam[0], 2 - lam[1], (1 - lam[0]) ** 2, (1 - lam[1]) ** 2, 2 - trace,
                   det]
    # L* <= L(alpha', 2 e_s) (beta* minimises the convex quadratic): free of L*'s cancellation
    loss_two = evaluate_reduction(fam, d, mom, 2, 0)[0]
    final = eps - (loss_two + decay[0] + decay[1])
    if prefix == "cor1":
        return {"cor1.population": final}
    dl = 2 * mom[0] if fam == "nu" else 1 - 2 * mom[0]
    return {
        "thm2.final": final,
        "thm2.contraction": 1 - 1 / (8 * d) - rho,
        "thm2.initial_distance": 16 * d - (e[0] ** 2 + (d - 1) * e[1] ** 2),
        "thm2.optimum": 2 * dl - loss_star,
        # beta* minimises the convex quadratic: L* <= L(alpha', 2 e_s) = 2 nu_2 <= 2 nu_1 =
        # delta, so 2 delta - L* >= delta: a lower bound free of L*'s cancellation, positive
        # when delta's enclosure is (combined in centred_margins)
        OPTIMUM_FLOOR: dl,
        "thm2.delta": eps / 2 - 2 * dl,
    }


def _centre(x):
    """A dual's value at the box centre (its value ball when it has no centre)."""
    return x.c if isinstance(x, Dual) and x.c is not None else value(x)


def discriminant(A: tuple, d, metric: bool = False):
    """((a11 - a22)/2)^2 + a12 a21, whose square root separates A's eigenvalues; ``metric``:
    ``a12 a21`` written ``a12^2/(d - 1)`` (the same number, as ``a21 = a12/(d - 1)``: ``W A = H``
    is symmetric), so the enclosure is never below 0 but by rounding."""
    cross = A[0][1] ** 2 / (d - 1) if metric else A[0][1] * A[1][0]
    return ((A[0][0] - A[1][1]) / 2) ** 2 + cross


def phase3_decay(A: tuple, e: tuple, d, T_low, metric: bool = False) -> tuple:
    """(eigenvalues (lambda_1 <= lambda_2), sqrt(disc), [c_i (1 - lambda_i)^(2 T_low)]) with
    ``L(T) - L* = sum_i c_i (1 - lambda_i)^(2T)`` (eta3 = 1): ``c_i = 1/2 lambda_i |P_i e|_W^2``,
    ``P_i = (A - lambda_j)/(lambda_i - lambda_j)``, ``W = diag(1, d - 1)``
    (proofs/monotonicity.md, per eigen-direction).  Real eigenvalues: A is W-self-adjoint.
    ``metric``: see :func:`discriminant`."""
    lam, root, weights = phase3_weights(A, e, d, metric)
    decay = [w * (T_low * ((1 - l) ** 2).log()).exp() for w, l in zip(weights, lam)]
    return lam, root, decay


def phase3_weights(A: tuple, e: tuple, d, metric: bool = False) -> tuple:
    """(eigenvalues, sqrt(disc), [c_1, c_2]) of :func:`phase3_decay`."""
    trace = A[0][0] + A[1][1]
    root = discriminant(A, d, metric).sqrt()
    lam = (trace / 2 - root, trace / 2 + root)
    weights = []
    for i in range(2):
        lj = lam[1 - i]
        gap_ij = 2 * root if i else -2 * root
        pe = (((A[0][0] - lj) * e[0] + A[0][1] * e[1]) / gap_ij,
              (A[1][0] * e[0] + (A[1][1] - lj) * e[1]) / gap_ij)
        weights.append(lam[i] * (pe[0] ** 2 + (d - 1) * pe[1] ** 2) / 2)
    return lam, root, weights


def phases(d, scale) -> list:
    """Phase 1 and 2 closed forms (functions of d alone: eta1 = scale sqrt(d)) as centred
    duals: beta1_s, beta1_j, grad2_alpha_s, grad2_alpha_j and the gap rate
    d^2 (grad2_alpha_s - grad2_alpha_j)/eta1 (schedules.phase2_gap).  They are ratios of
    polynomials in d, sqrt(d), ln(d - 1), Li_2 of degree up to 5, whose interval quotients over
    a whole box are far wider than the true range (and near d = 3 their terms cancel); the
    d-range is cut into cells at most PHASE_CELL_WIDTH wide in u, each its own centred box, and
    the value and the u-derivative (d f'(d)) are the unions over the cells."""
    def at(x):
        eta1 = schedules.eta1(x, scale, lambda y: y.sqrt())
        return [*arb_phases()(x, eta1), *arb_gap_rate()(x, eta1)]

    return in_d_cells(d, at)


def in_d_cells(d, at: Callable) -> list:
    """``at(d)`` (a list of functions of d alone) as centred duals over the box of ``d`` (a dual
    whose gradient is in its first variable, ln d): the d-range is cut into cells at most
    PHASE_CELL_WIDTH wide in ln d, each its own centred box, and each value and ln-d derivative
    is the union over the cells (the other partials are 0).  A point (no centre): ``at(d)``."""
    if not isinstance(d, Dual) or d.c is None:
        return at(d)
    lo, hi = d.v.lower().log(), d.v.upper().log()  # the cut d-range, in u = ln d
    n = min(max(PHASE_CELLS, math.ceil(float(hi.upper() - lo.lower()) / PHASE_CELL_WIDTH)), 400)
    ends = [lo + (hi - lo) * i / n for i in range(n + 1)]
    parts = []
    for a, b in zip(ends, ends[1:]):
        cell = a.union(b)  # each cell is its own centred box (centre: its midpoint)
        mid = arb(cell.mid())
        dd = increasing(cell, arb.exp)
        parts.append(at(Dual(dd, (dd,), mid.exp(), (cell - mid,))))  # g: d f'(d) = df/du
    centre = at(d.c)
    out = []
    for k in range(len(centre)):
        v = parts[0][k].v
        g = parts[0][k].g[0]
        for part in parts[1:]:
            v, g = v.union(part[k].v), g.union(part[k].g[0])
        out.append(Dual(v, (g, *(0 * g for _ in d.g[1:])), centre[k], d.dx))
    return out


def _pipeline(group: str, d, eps, constants, moments: Moments, family: Callable,
              conditions: list) -> dict:
    if group == "prop1":
        return _prop1(d, eps, constants, moments, family)
    return _thm2(d, eps, constants, moments, family, group, conditions)


def _at_point(group: str, u: float, v: float, constants, bits: int, d_min: int,
              plan: MomentPlan) -> dict:
    """The smooth margins at one point of the box (on the box's pieces and tail ball)."""
    d = arb(u).exp()
    d = Dual(d if d.lower() >= d_min else arb(d_min), ())  # duals without a gradient: exact
    eps = Dual(arb(v).exp(), ())                             # integer powers of any ball
    out = _pipeline(group, d, eps, constants,
                    lambda dd, gap: centre_moments(value(dd), value(gap), bits, plan),
                    lambda: plan.family, [])
    return {claim: value(m) for claim, m in out.items()}


def centred_margins(group: str, box: tuple, constants, bits: int, d_min: int,
                    corners: bool = False) -> dict | None:
    """Every claim's margin over ``box`` in the centred form (each intermediate re-enclosed by
    its own mean-value form, intersected with its plain enclosure); None when a smoothness
    condition of the formulas is not proved on the box.

    ``corners``: also evaluate the margins at the four corners and raise ArithmeticError
    if an enclosure misses a corner's value (a wrong gradient or a dropped term would: the
    recheck of a certificate does this)."""
    plans: list = []
    conditions: list = []

    def moments(d, gap):
        return box_moments(d, gap, bits, plans)

    with precision(bits):
        U, V = interval(box[0], box[1]), interval(box[2], box[3])
        uc, vc = arb((box[0] + box[1]) / 2), arb((box[2] + box[3]) / 2)
        dx = (U - uc, V - vc)
        d_ball, dc = increasing(U, arb.exp), uc.exp()
        if not d_ball.lower() >= d_min:  # the claims start at d_min: cut the box there
            d_ball = arb(d_min).union(d_ball.upper())
        if not dc.lower() >= d_min:
            return None
        d = Dual(d_ball, (d_ball, arb(0)), dc, dx)
        eps_ball = increasing(V, arb.exp)
        eps = Dual(eps_ball, (arb(0), eps_ball), vc.exp(), dx)
        out = _pipeline(group, d, eps, constants, moments, lambda: plans[0].family, conditions)
        if not all(value(x) > 0 for x in conditions):
            return None
        margins = {claim: m.v for claim, m in out.items()}
        for u, v in ((u, v) for u in box[:2] for v in box[2:]) if corners else ():
            for claim, m in _at_point(group, u, v, constants, bits, d_min, plans[0]).items():
                if not m.overlaps(margins[claim]):
                    raise ArithmeticError(f"the enclosure of {claim} misses its value at a corner")
        floor = margins.pop(OPTIMUM_FLOOR, None)
        if floor is not None:  # the larger of two lower bounds (one-sided: boxes.ONE_SIDED)
            low = floor.lower()
            if plans[0].family == "nu":  # delta = 2 nu_1 >= twice nu_1's lower sum
                low = max(low, 2 * plans[0].low[0].lower(), key=float)
            m = margins["thm2.optimum"]
            if not m.lower() > 0 and low > 0:
                margins["thm2.optimum"] = arb(low)
        return margins
