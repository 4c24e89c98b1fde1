"""The claims of each certificate group as margins (bound - value; the claim holds where > 0),
over a box of the group's axes, in plain Arb interval arithmetic (proofs/checker.md, sections
5-7).  ``GROUPS`` maps a group to its axes, the constants it reads and its margin function; a new
group (a 4-D box, a cube of Proposition 3) is one more entry.

A margin function returns named quantities: ``OWN`` names the one whose lower end > 0 proves
each claim on the box; ``RECORDED`` says, per writing method, which quantity a certificate's
stored enclosure must agree with, and how: ``two`` (both enclose the same function, so they
overlap) or ``lower`` (the stored one is a lower bound of the true margin, so its lower end is
at most the checker's upper end).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping

from flint import arb

from .model import ends, hull, loss_gradient, moments, nu, phase1, phase2_rate


def increasing(f: Callable[[arb], arb], x: arb) -> arb:
    """f over a ball, f increasing: from the two ends (Arb's exp of a wide ball reaches below 0)."""
    return hull(f(arb(x.lower())), f(arb(x.upper())))


def exact(q: Fraction) -> arb:
    """A rational constant as a ball."""
    return arb(q.numerator) / q.denominator


@dataclass(frozen=True)
class Point:
    """The box as balls: d and eps, ln d and ln eps, the eta1 scale and v = eta2_min/eta2."""

    d: arb
    u: arb
    eps: arb
    w: arb
    scale: arb
    v: arb
    tau: arb | None = None  # the eps tails: tau = 1/(1 - ln eps), eps = e^(1 - 1/tau) (section 14)


def prop1(x: Point, k: Mapping[str, Fraction]) -> dict:
    """eps - L_s(ln(c d/eps^2) e_s, 2 e_s) = eps - 2 nu_2 at c_nu = d e^(-gap) = eps^2/c."""
    c = increasing(lambda t: t.exp(), 2 * x.w - exact(k["prop1.attention_constant"]).log())
    n1, n2 = nu(x.d, c)
    return {"prop1": x.eps - loss_gradient(x.d, n1, n2, arb(2), arb(0))[0], "ok": arb(1)}


def times(a: arb, b: arb) -> arb:
    """a b over two balls from the four products of their ends (a bilinear function takes its
    extremes there; tighter than the midpoint-radius product of two wide balls)."""
    return hull(*(x * y for x in ends(a) for y in ends(b)))


def decay(weight: arb, lam: arb, T: arb) -> arb:
    """weight (1 - lam)^(2T) for 0 < lam < 2: decreasing in T, so T's ball may hold any
    T >= T_low; where 1 - lam may be 0, the upper end |1 - lam|^(2 T_low) (section 6)."""
    r = 1 - lam
    if r > 0 or r < 0:
        log = (-lam).log1p() if r > 0 else (lam - 1).log()
        return weight * increasing(lambda t: t.exp(), 2 * times(T, log))
    return weight * arb(0).union((2 * arb(T.lower()) * arb(abs(r).upper()).log()).exp())


def three_phase(x: Point, C: arb, T_low: arb) -> dict:
    """Phases 1-2 in closed form, Phase 3 as the 2x2 quadratic at alpha' (sections 5-6)."""
    k = C * phase2_rate(x.d, x.scale) / x.v
    c = increasing(lambda t: t.exp(), x.u * (1 - k) + k * x.w)  # d e^(-gap)
    n1, n2 = nu(x.d, c)
    q = phase3(x, n1, n2, T_low)
    return {
        "final_own": x.eps - (q["l_up"] + q["decay"]),
        "final_centred": x.eps - (q["loss_two"] + q["decay"]),
        "final_upper": x.eps - q["l_star"],
        "contraction": (q["lam1t"] - (1 - 1 / x.d) / 8) * (1 / (x.d - 1)),  # lambda_1 - 1/(8d)
        "distance": 16 * x.d - q["distance"],
        "optimum": 4 * n1 - q["l_star"],  # 2 delta - L*, delta = 2 nu_1
        "optimum_own": 4 * n1 - q["l_up"],
        "delta": x.eps / 2 - 4 * n1,
        "ok": q["ok"],  # > 0: the formulas above are the claims' (section 6)
    }


def phase3(x: Point, n1: arb, n2: arb, T_low: arb | None,
           decayer: Callable[[arb, arb], arb] | None = None) -> dict:
    """Phase 3 from beta' at the attention moments nu_1, nu_2 of alpha' (sections 5-6); the
    decay of each term is ``decayer(weight, lambda)`` when given (the eps tails), else
    weight (1 - lambda)^(2T) for every T >= T_low."""
    d, p = x.d, 1 / (x.d - 1)
    sq = increasing(lambda t: t.sqrt(), d)
    b1s, _ = phase1(d, x.scale * sq)
    a, e, h = 1 / arb(2) - 2 * n1 + n2, n1 - n2, 1 / arb(2) + n2
    den = 1 / arb(4) - n1 + n2 - n1 * n1  # a h - e^2 = (d - 1) det A
    bsj = (n2 - 2 * n1 * n1) / den  # beta*_j; L* = beta*_j / 2
    l_star = bsj / 2
    hd = h * p
    half = (a - hd) / 2
    root = (half * half + e * e * p).sqrt()  # x * x, not x ** 2: python-flint's power of a
    # ball around 0 goes through exp and log and is NaN
    lam2 = (a + hd) / 2 + root
    lam1t = den / lam2  # (d - 1) lambda_1
    lam1 = lam1t * p
    gap2 = half + root  # a - lambda_1 = lambda_2 - h/(d - 1)
    sdm = increasing(lambda t: (t - 1).sqrt(), d)
    err_s = b1s - 2 - e / den
    err_j = x.scale * (1 + p).sqrt() * (1 - 2 / d) - sdm * bsj  # sqrt(d - 1) (beta'_j - beta*_j)
    tau = e / gap2
    slow_part = err_j - tau * err_s / sdm
    fast_part = err_s + e * err_j / (sdm * gap2)
    proj1 = slow_part * slow_part / (1 + tau * tau * p)
    proj2 = fast_part * fast_part / (1 + e * e * p / (gap2 * gap2))
    decayer = decayer or (lambda weight, lam: decay(weight, lam, T_low))
    slow, fast = decayer(lam1 * proj1 / 2, lam1), decayer(lam2 * proj2 / 2, lam2)
    loss_two = loss_gradient(d, n1, n2, arb(2), arb(0))[0]  # L(alpha', 2 e_s) = 2 nu_2 >= L*
    l_up = arb(min(l_star.upper(), loss_two.upper(), key=float))
    conditions = (lam1t, 2 - lam1 - lam2, root, gap2)
    ok = min((y.lower() for y in conditions), key=float) \
        if all(y.is_finite() for y in conditions) else arb("nan")
    return {"l_star": l_star, "l_up": l_up, "loss_two": loss_two, "decay": slow + fast,
            "lam1t": lam1t, "den": den, "distance": err_s * err_s + err_j * err_j, "ok": arb(ok)}


def thm2(x: Point, k: Mapping[str, Fraction], plan: Callable = three_phase) -> dict:
    T_low = exact(k["thm2.T_factor"]) * times(x.d, arb(16).log() + x.u - x.w)
    return plan(x, exact(k["thm2.C"]), T_low)


def cor1(x: Point, k: Mapping[str, Fraction], plan: Callable = three_phase) -> dict:
    return plan(x, exact(k["cor1.C"]), exact(k["cor1.T_numerator"]) / x.eps)


# -- the four-axis boxes (ln d, ln eps, u = eta1/sqrt(d), v = eta2_min/eta2): section 11 ---------

def meet(*balls: arb) -> arb:
    """The common part of enclosures of one quantity (each holds all its values on the box)."""
    finite = [b for b in balls if b.is_finite()] or [balls[0]]
    lo, hi = max((b.lower() for b in finite), key=float), min((b.upper() for b in finite), key=float)
    return arb(lo).union(arb(hi)) if lo <= hi else arb("nan")


def low(a: arb, b: arb) -> arb:
    """An upper bound of a quantity known to be at most both a and b: the smaller upper end."""
    return arb(min(a.upper(), b.upper(), key=float))


def weights(x: Point, rate: arb) -> tuple[arb, arb]:
    """(c, c/eps) with c = d e^(-gap), gap = rate ln(d/eps)/v, over v in [v_lo, v_hi] with
    v_lo >= 0: ln c = ln d (1 - k) + k ln eps, ln(c/eps) = ln(d/eps)(1 - k), k = rate/v.  Where
    v reaches 0 (the limit eta2 -> inf, gap -> inf: rate > 0 is a condition), both decrease in
    k >= k_lo = rate_lo/v_hi (ln(d/eps) > 0), so c, c/eps lie in [0, their values at k_lo]."""
    if x.v > 0:
        k = rate / x.v
        return (increasing(lambda t: t.exp(), x.u * (1 - k) + k * x.w),
                increasing(lambda t: t.exp(), (x.u - x.w) * (1 - k)))
    if not (x.v.upper() > 0 and rate > 0):
        return arb(0), arb(0)  # v = 0 exactly, or rate not shown > 0 (then `ok` fails)
    k_lo = arb((arb(rate.lower()) / arb(x.v.upper())).lower())
    top = (x.u * (1 - k_lo) + k_lo * x.w, (x.u - x.w) * (1 - k_lo))
    return tuple(arb(0).union(arb(arb(t.upper()).exp().upper())) for t in top)


def whole_range(x: Point, C: arb, T_low: arb) -> dict:
    """The four-axis claims as relative margins (the certificate's: bound/value - 1 times a
    positive factor), in nu_r = c^r J_r so that nothing is divided by a c that may be 0."""
    rate = C * phase2_rate(x.d, x.scale)  # the gap at v = 1 over ln(d/eps)
    c, ce = weights(x, rate)
    n1, n2, j1, j2 = moments(x.d, c)
    q = phase3(x, n1, n2, T_low)
    inv = 1 / x.eps
    two = meet(2 * n2 * inv, 2 * ce * c * j2)  # L(alpha', 2 e_s)/eps = 2 nu_2/eps
    star = meet(q["l_star"] * inv, ce * c * (j2 - 2 * j1 * j1) / (2 * q["den"]))  # L*/eps
    decay = q["decay"] * inv
    half = c * j2 / (2 * j1)  # nu_2/(2 nu_1) = L(alpha', 2 e_s)/(2 delta) >= L*/(2 delta)
    ratio = c * (j2 - 2 * j1 * j1) / (8 * j1 * q["den"])  # L*/(2 delta)
    ok = q["ok"] if rate > 0 else arb(rate.lower()) if rate.is_finite() else arb("nan")
    return {
        "final_own": 1 - (low(star, two) + decay),
        "final_centred": 1 - (two + decay),
        "final_upper": 1 - star,
        "contraction": 8 * (1 + 1 / (x.d - 1)) * q["lam1t"] - 1,  # 8 d lambda_1 - 1
        "distance": 1 - q["distance"] / (16 * x.d),
        "optimum": 1 - half,
        "optimum_own": 1 - low(ratio, half),
        "delta": 1 - 8 * meet(n1 * inv, ce * j1),  # 1 - 4 delta/eps
        "ok": ok,
    }


def thm2_range(x: Point, k: Mapping[str, Fraction]) -> dict:
    return thm2(x, k, whole_range)


def cor1_range(x: Point, k: Mapping[str, Fraction]) -> dict:
    return cor1(x, k, whole_range)


@dataclass(frozen=True)
class Group:
    axes: tuple[str, ...]
    d_min: int
    claims: tuple[str, ...]
    constants: tuple[str, ...]
    margins: Callable[[Point, Mapping[str, Fraction]], dict]
    statement: str
    balls: Callable[..., Point] | None = None  # box -> Point; None: the (ln d, ln eps) boxes
    recorded: Mapping | None = None  # None: RECORDED


PLAN = "the three-phase plan from alpha = beta = 0 (eta1 = {thm2.eta1_scale} sqrt(d), "
GROUPS = {
    "prop1": Group(("ln d", "ln eps"), 2, ("prop1.bound",), ("prop1.attention_constant",), prop1,
                   "L_s(ln({prop1.attention_constant} d/eps^2) e_s, 2 e_s) <= eps"),
    "thm2": Group(("ln d", "ln eps"), 3, ("thm2.final", "thm2.contraction",
                                          "thm2.initial_distance", "thm2.optimum", "thm2.delta"),
                  ("thm2.C", "thm2.eta1_scale", "thm2.T_factor"), thm2,
                  PLAN + "eta2 = {thm2.C} d^2/eta1 ln(d/eps), eta3 = 1) reaches L_s <= eps after "
                  "every T >= {thm2.T_factor} d ln(16d/eps) Phase-3 steps, with the A.7 steps "
                  "(contraction <= 1 - 1/(8d), |beta' - beta*|^2 <= 16d, L* <= 2 delta, "
                  "2 delta <= eps/2)"),
    "cor1": Group(("ln d", "ln eps"), 3, ("cor1.population",),
                  ("cor1.C", "thm2.eta1_scale", "cor1.T_numerator"), cor1,
                  PLAN + "eta2 = {cor1.C} d^2/eta1 ln(d/eps), eta3 = 1) reaches L_s <= eps after "
                  "T = ceil({cor1.T_numerator}/eps) Phase-3 steps (population gradients)"),
}
AXES4 = ("ln d", "ln eps", "u", "v")
STEPS = ("every 0 < eta1 <= {thm2.eta1_scale} sqrt(d) and every eta2 >= eta2_min = {C} d^2/eta1 "
         "ln(d/eps), eta3 = 1, reaches L_s <= eps after ")


def point4(group: Group, box: tuple, k: Mapping[str, Fraction]) -> Point:
    """The balls of a box of (ln d, ln eps, u, v): the first two as :func:`point`, eta1 = u sqrt(d)
    (u from 0, the limit eta1 -> 0) and v = eta2_min/eta2 (from 0, the limit eta2 -> inf)."""
    x = point(group, box[:4], k)
    return Point(x.d, x.u, x.eps, x.w, arb(box[4]).union(arb(box[5])),
                 arb(box[6]).union(arb(box[7])))


# the four-axis certificates' enclosures (relative margins, L* <= L(alpha', 2 e_s), delta's lower
# end possibly from the face u = u_hi, v = v_hi) enclose the same functions as these
RECORDED4 = {"centred": {claim: ("two", key) for claim, key in (
    ("thm2.final", "final_centred"), ("cor1.population", "final_centred"),
    ("thm2.contraction", "contraction"), ("thm2.initial_distance", "distance"),
    ("thm2.optimum", "optimum"), ("thm2.delta", "delta"))}}
GROUPS["thm2-4d"] = Group(AXES4, 3, GROUPS["thm2"].claims, GROUPS["thm2"].constants, thm2_range,
                          "the three-phase plan from alpha = beta = 0 with " + STEPS.replace(
                              "{C}", "{thm2.C}") + "every T >= {thm2.T_factor} d ln(16d/eps) "
                          "Phase-3 steps, with the A.7 steps (contraction <= 1 - 1/(8d), "
                          "|beta' - beta*|^2 <= 16d, L* <= 2 delta, 2 delta <= eps/2)", point4, RECORDED4)
GROUPS["cor1-4d"] = Group(AXES4, 3, GROUPS["cor1"].claims, GROUPS["cor1"].constants, cor1_range,
                          "the three-phase plan from alpha = beta = 0 with " + STEPS.replace(
                              "{C}", "{cor1.C}") + "T = ceil({cor1.T_numerator}/eps) Phase-3 "
                          "steps (population gradients)", point4, RECORDED4)
OWN = {"prop1.bound": "prop1", "thm2.final": "final_own", "cor1.population": "final_own",
       "thm2.contraction": "contraction", "thm2.initial_distance": "distance",
       "thm2.optimum": "optimum_own", "thm2.delta": "delta"}
# the claims whose own margin is exact (the others bound L* and the decay above): an enclosure
# of an exact margin below 0 disproves the claim there
EXACT = {"prop1.bound", "thm2.contraction", "thm2.initial_distance", "thm2.delta"}
_SAME = {"prop1.bound": ("two", "prop1"), "thm2.initial_distance": ("two", "distance"),
         "thm2.delta": ("two", "delta")}
RECORDED = {
    "centred": {**_SAME, "thm2.final": ("two", "final_centred"),
                "cor1.population": ("two", "final_centred"),
                "thm2.contraction": ("two", "contraction"), "thm2.optimum": ("lower", "optimum")},
    "plain": {**_SAME, "thm2.final": ("lower", "final_upper"),
              "cor1.population": ("lower", "final_upper"),
              "thm2.contraction": ("lower", "contraction"), "thm2.optimum": ("two", "optimum")},
}


# -- the eps tails (ln d, tau = 1/(1 - ln eps), u, v): eps -> 0 is tau -> 0 (section 14) ----------

def flat(X: arb, t: arb) -> arb:
    """e^(-X/t) for X > 0 and t >= 0, with its limit 0 at t = 0: decreasing in X, increasing in
    t, so from the ends (nan unless X > 0 is shown: the box is split)."""
    if not X > 0:
        return arb("nan")
    t_hi, t_lo = arb(t.upper()), arb(t.lower())
    hi = (-arb(X.lower()) / t_hi).exp().upper() if t_hi > 0 else 0
    lo = (-arb(X.upper()) / t_lo).exp().lower() if t_lo > 0 and X.is_finite() else 0
    return arb(lo).union(arb(hi))


def bump(s_lo: arb, s_hi: arb) -> arb:
    """s e^-s over s in [s_lo, s_hi] (s_hi may be inf): it rises to 1/e at s = 1, then falls."""
    at = lambda s: s * (-s).exp() if s.is_finite() else arb(0)  # noqa: E731
    top = at(s_lo) if s_lo >= 1 else at(s_hi) if s_hi <= 1 else (-arb(1)).exp()
    return hull(arb(0) if not s_hi.is_finite() else arb(min(at(s_lo).lower(), at(s_hi).lower(),
                                                            key=float)), arb(top.upper()))


def contraction_log(lam: arb) -> arb:
    """Lambda = -ln((1 - lambda)^2), 0 < lambda < 2; where 1 - lambda may be 0, [Lambda_lo, 2^64]:
    then only the decay's upper end is right, which is all the verdict reads (section 14)."""
    r = 1 - lam
    if r > 0 or r < 0:
        return -2 * abs(r).log()
    return arb(-2 * arb(abs(r).upper()).log()).union(arb(2) ** 64)


def thm2_decay(x: Point, k: Mapping[str, Fraction]) -> Callable[[arb, arb], arb]:
    """weight (1 - lambda)^(2 T_low)/eps = weight e^-1 flat(A, tau), A = T_factor d Lambda (1 +
    tau (ln 16d - 1)) - 1 > 0 (a condition; T_low = T_factor d ln(16d/eps), section 14)."""
    def term(weight: arb, lam: arb) -> arb:
        A = exact(k["thm2.T_factor"]) * times(times(x.d, contraction_log(lam)),
                                              1 + times(x.tau, arb(16).log() + x.u - 1)) - 1
        return weight * (-arb(1)).exp() * flat(A, x.tau)
    return term


def cor1_decay(x: Point, k: Mapping[str, Fraction]) -> Callable[[arb, arb], arb]:
    """weight (1 - lambda)^(2N/eps)/eps = weight/K s e^-s, K = N Lambda, s = K e^(1/tau - 1)."""
    def term(weight: arb, lam: arb) -> arb:
        K = exact(k["cor1.T_numerator"]) * contraction_log(lam)
        if not K > 0:
            return arb("nan")
        t_lo, t_hi = arb(max(x.tau.lower(), 0, key=float)), arb(x.tau.upper())
        s_lo = arb(K.lower()) * (1 / t_hi - 1).exp() if t_hi > 0 else arb("inf")
        s_hi = arb(K.upper()) * (1 / t_lo - 1).exp() if t_lo > 0 else arb("inf")
        if not s_lo.is_finite():
            return arb(0)
        return weight / K * bump(s_lo, s_hi)
    return term


def tail_range(x: Point, C: arb, decayer: Callable[[arb, arb], arb]) -> dict:
    """Section 11's relative margins, every term that grows or vanishes with 1/eps a flat
    exponential of tau (section 14); the decay terms come divided by eps from ``decayer``."""
    rate = C * phase2_rate(x.d, x.scale)
    gamma = times(rate, 1 + times(x.tau, x.u - 1))
    tv = times(x.tau, x.v)
    c = x.d * flat(gamma, tv)
    ce = x.d * (-arb(1)).exp() * flat(gamma - x.v, tv)
    if not (c.is_finite() and ce.is_finite()):
        bad = arb((gamma - x.v).lower()) if (gamma - x.v).is_finite() else arb("nan")
        keys = {*OWN.values(), *(key for _, key in RECORDED4["centred"].values())}
        return {key: arb("nan") for key in keys} | {"ok": bad}
    n1, n2, j1, j2 = moments(x.d, c)
    q = phase3(x, n1, n2, None, decayer)
    two = 2 * ce * c * j2  # L(alpha', 2 e_s)/eps
    star = ce * c * (j2 - 2 * j1 * j1) / (2 * q["den"])  # L*/eps
    half = c * j2 / (2 * j1)
    ratio = c * (j2 - 2 * j1 * j1) / (8 * j1 * q["den"])
    return {
        "final_own": 1 - (low(star, two) + q["decay"]),
        "final_centred": 1 - (two + q["decay"]),
        "contraction": 8 * (1 + 1 / (x.d - 1)) * q["lam1t"] - 1,
        "distance": 1 - q["distance"] / (16 * x.d),
        "optimum": 1 - half,
        "optimum_own": 1 - low(ratio, half),
        "delta": 1 - 8 * ce * j1,
        "ok": q["ok"],
    }


def point_tail(group: Group, box: tuple, k: Mapping[str, Fraction]) -> Point:
    """The balls of a box of (ln d, tau, u, v); eps = e^(1 - 1/tau) (0 at tau = 0)."""
    x = point(group, (*box[:2], 0.0, 0.0), k)
    tau = arb(box[2]).union(arb(box[3]))
    return Point(x.d, x.u, arb(1).exp() * flat(arb(1), tau), arb("nan"),
                 arb(box[4]).union(arb(box[5])), arb(box[6]).union(arb(box[7])), tau)

for _name in ("thm2", "cor1"):
    GROUPS[f"{_name}-4d-tail"] = Group(
        ("ln d", "tau", "u", "v"), 3, GROUPS[_name].claims, GROUPS[_name].constants,
        (lambda name: lambda x, k: tail_range(x, exact(k[f"{name}.C"]), (
            thm2_decay if name == "thm2" else cor1_decay)(x, k)))(_name),
        GROUPS[f"{_name}-4d"].statement, point_tail, RECORDED4)


def recorded(group: str) -> Mapping:
    """Per writing method, how each stored enclosure of ``group`` must agree with the checker."""
    return GROUPS[group].recorded or RECORDED


def point(group: Group, box: tuple, k: Mapping[str, Fraction]) -> Point:
    """The balls of a box ``(lo1, hi1, lo2, hi2)`` of (ln d, ln eps) (floats, exact in Arb);
    d is cut at the group's d_min (its claims start there)."""
    u = arb(box[0]).union(arb(box[1]))
    w = arb(box[2]).union(arb(box[3]))
    d = increasing(lambda t: t.exp(), u)
    if not d.lower() >= group.d_min:
        top = arb(d.upper()) if d.upper() > group.d_min else arb(group.d_min)
        d = arb(group.d_min).union(top)
        u = increasing(lambda t: t.log(), d)
    scale = exact(k["thm2.eta1_scale"]) if "thm2.eta1_scale" in group.constants else arb(1)
    return Point(d, u, increasing(lambda t: t.exp(), w), w, scale, arb(1))


def evaluate(name: str, box: tuple, constants: Mapping[str, Fraction]) -> dict:
    """Every quantity of group ``name`` over ``box`` (balls); ``ok`` > 0 when the formulas hold."""
    group = GROUPS[name]
    return group.margins((group.balls or point)(group, box, constants), constants)
