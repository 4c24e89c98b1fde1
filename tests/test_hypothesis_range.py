"""Theorem 2 and Corollary 1 over the whole hypothesis range (proofs/hypothesis-range.md): the
limits u -> 0 and v -> 0 against independent routes, the closed forms at v = 0, the saturating
exponential, and mutations that turn the four-dimensional checks red."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest


from flint import arb  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402

from verify.certify import boxes, plan_range  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.engine import schedules  # noqa: E402
from verify.engine.certified import dual  # noqa: E402
from verify.engine.certified.balls import interval, precision  # noqa: E402
from verify.engine.certified.dual import Dual  # noqa: E402
from verify.engine.enumeration import symmetric_truth  # noqa: E402
from verify.engine.plans import three_phase  # noqa: E402

CONSTANTS = values(load())
BITS = 96
TWO_SIDED = ("thm2.contraction", "thm2.initial_distance", "thm2.delta")


def _thin(d: float, eps: float, u: tuple, v: tuple) -> tuple:
    """A box of width ~1e-12 in (ln d, ln eps) around (d, eps), with the given u and v sides."""
    return boxes.hypothesis_box(d, d * (1 + 1e-12), eps, eps * (1 + 1e-12), u=u, v=v)


def _exact(x) -> Fraction:
    """An mpf as the exact rational it is (the enumeration reads its inputs exactly)."""
    man, exp = mpmath.mpf(x).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _enumerated_margins(d: int, eps: Fraction, u: Fraction, v: Fraction, L: int) -> dict:
    """The five margins of proofs/hypothesis-range.md section 4 at one point, by exact
    enumeration of the population sums (verify/engine/enumeration.py: every word of length
    <= L, proven tail), the plan run step by step from its definition: no closed form, no
    moment integral, no reduction.  T = ceil(T_low), the smallest integer the statement allows."""
    dps = 40
    u, v, eps = (mpmath.mpf(x.numerator) / x.denominator for x in (u, v, eps))
    with mpmath.workdps(dps + 10):
        def truth(gap, bs, bj):
            return symmetric_truth(d, _exact(gap), 0, _exact(bs), _exact(bj), L, dps)

        eta1 = u * mpmath.sqrt(d)
        zero = truth(0, 0, 0)
        b1 = (-eta1 * zero.grad_beta_s, -eta1 * zero.grad_beta_j)
        p2 = truth(0, *b1)
        eta2 = schedules.eta2(mpmath.mpf(d), eps, 2, eta1, mpmath.log) / v
        gap = -eta2 * (p2.grad_alpha_s - p2.grad_alpha_j)
        g = [truth(gap, bs, bj) for bs, bj in ((0, 0), (1, 0), (0, 1))]
        c = mpmath.matrix([-g[0].grad_beta_s, -g[0].grad_beta_j])
        A = mpmath.matrix([[g[1].grad_beta_s + c[0], g[2].grad_beta_s + c[0]],
                           [g[1].grad_beta_j + c[1], g[2].grad_beta_j + c[1]]])
        star = mpmath.lu_solve(A, c)
        T = int(mpmath.ceil(4 * d * mpmath.log(16 * d / eps)))
        e = mpmath.matrix(list(b1)) - star
        end = star + (mpmath.eye(2) - A) ** T * e
        final = truth(gap, end[0], end[1]).loss
        best = truth(gap, star[0], star[1]).loss
        lam = min(mpmath.re(x) for x in mpmath.eig(A)[0])
        delta = 2 * g[0].nu[1]
        return {"thm2.final": 1 - final / eps,
                "thm2.contraction": 8 * d * lam - 1,
                "thm2.initial_distance": 1 - (e[0] ** 2 + (d - 1) * e[1] ** 2) / (16 * d),
                "thm2.optimum": 1 - best / (2 * delta),
                "thm2.delta": 1 - 4 * delta / eps}


def _assert_enclosed(box_margins: dict, reference: dict, tol: float = 1e-20) -> None:
    for claim, m in box_margins.items():
        lo, hi = float(m.lower()), float(m.upper())
        value = float(reference[claim])
        assert lo - tol <= value, (claim, lo, value)  # every margin is a lower bound at least
        if claim in TWO_SIDED:
            assert value <= hi + tol, (claim, value, hi)


@pytest.mark.slow  # u: 15 s, v: 6 min (the enumeration at a gap of 5e6)
@pytest.mark.parametrize("end", ["u", "v"])
def test_the_limit_boxes_contain_the_enumerated_plan_at_1e_6(end):
    """The box [0, 2e-6] of u (resp. v) contains the limit u = 0 (v = 0) and the point 1e-6: the
    enclosures, valid up to the end, must contain the plan's margins there, computed by exact
    enumeration (d = 4: words up to length 200 leave (2/3)^200 ~ 1e-35)."""
    d, eps = 4, Fraction(1, 10)
    u, v = ((0.0, 2e-6), (1 - 2.0 ** -30, 1.0)) if end == "u" else ((1 - 2.0 ** -30, 1.0), (0.0, 2e-6))
    point = (Fraction(1, 10**6), Fraction(1)) if end == "u" else (Fraction(1), Fraction(1, 10**6))
    margins, _ = plan_range.box_margins("thm2-4d", _thin(d, float(eps), u, v), CONSTANTS, BITS,
                                        check_corners=True)
    _assert_enclosed(margins, _enumerated_margins(d, eps, *point, L=200), tol=1e-12)


def _engine_margins(d: int, eps: float, u) -> dict:
    """Theorem 2's relative margins from the mpmath engine's plan at eta1 = u sqrt(d), eta2 and
    T at their minima (tanh-sinh moments: a route of its own)."""
    with mpmath.workdps(40):
        eta1 = u * mpmath.sqrt(d)
        eta2 = schedules.eta2(mpmath.mpf(d), mpmath.mpf(eps), 2, eta1, mpmath.log)
        T = int(mpmath.ceil(4 * d * mpmath.log(16 * d / mpmath.mpf(eps))))
    plan = three_phase(d, eta1, eta2, 1, T, 30)
    e = [plan.beta1[i] - plan.beta_star[i] for i in range(2)]
    return {"thm2.final": 1 - plan.loss / eps,
            "thm2.contraction": 8 * d * (1 - plan.contraction) - 1,
            "thm2.initial_distance": 1 - (e[0] ** 2 + (d - 1) * e[1] ** 2) / (16 * d),
            "thm2.optimum": 1 - plan.optimum.loss / (4 * plan.final.moments[0]),
            "thm2.delta": 1 - 8 * plan.final.moments[0] / eps}


def test_the_u_limit_agrees_with_the_mpmath_engine_at_1e_6():
    """The same at d = 10 against the mpmath engine's plan (tanh-sinh moments, its own route)."""
    d, eps, u = 10, 0.1, 1e-6
    ref = _engine_margins(d, eps, mpmath.mpf(u))
    margins, _ = plan_range.box_margins("thm2-4d", _thin(d, eps, (0.0, 2e-6), (1 - 2.0 ** -30, 1.0)),
                                        CONSTANTS, BITS)
    _assert_enclosed(margins, ref, tol=1e-12)


def test_the_v_limit_is_the_saturated_plan_of_the_note():
    """At v = 0 (a box [0, 1e-300]) the margins are the closed forms of section 3: A =
    diag(1/2, 1/(2(d-1))), beta* = (2, 0), c_1 = beta'_j^2/4, c_2 = (2 - beta'_s)^2/4."""
    for d, eps, u in ((3.5, 0.3, 1.0), (1e6, 0.9, 0.5)):
        box = _thin(d, eps, (u, u + 2.0 ** -40), (0.0, 1e-300))
        margins, _ = plan_range.box_margins("thm2-4d", box, CONSTANTS, BITS)
        bs, bj = 2 * u / math.sqrt(d), u * math.sqrt(d) * (d - 2) / (d * (d - 1))
        T = 4 * d * math.log(16 * d / eps)
        final = 1 - (bj ** 2 / 4 * (1 - 1 / (2 * (d - 1))) ** (2 * T)
                     + (2 - bs) ** 2 / 4 * 4.0 ** -T) / eps
        expected = {"thm2.final": final, "thm2.contraction": (3 * d + 1) / (d - 1),
                    "thm2.initial_distance": 1 - ((2 - bs) ** 2 + (d - 1) * bj ** 2) / (16 * d),
                    "thm2.optimum": 1.0, "thm2.delta": 1.0}
        for claim, m in margins.items():
            assert float(m.mid()) == pytest.approx(expected[claim], rel=1e-9, abs=1e-12), claim


@settings(max_examples=40)
@given(st.floats(0.2, 30), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_saturating_exp_encloses_its_values_and_gradient_up_to_v_0(G0, v_hi, a, b):
    """b = e^(-G/v) over a box of (G, v) with v from 0: the centred enclosure contains the value
    at every point (0 at v = 0), and the mean-value form needs the gradient enclosure."""
    v_hi = max(v_hi, 1e-3)
    with precision(80):
        Gs, vs = interval(G0, G0 * 1.1), interval(0.0, v_hi)
        Gc, vc = arb(G0 * 1.05), arb(v_hi / 2)
        dx = (Gs - Gc, vs - vc)
        G = Dual(Gs, (arb(1), arb(0)), Gc, dx)
        v = Dual(vs, (arb(0), arb(1)), vc, dx)
        out = dual.saturating_exp(G, v)
        g, w = G0 * (1 + 0.1 * a), v_hi * b
        assert out.v.contains(arb(0) if w == 0 else (-arb(g) / w).exp())
        if w > 0:  # the partials at the point lie in the gradient enclosure
            ga, wa = arb(g), arb(w)
            val = (-ga / wa).exp()
            assert out.g[0].contains(-val / wa) and out.g[1].contains(val * ga / wa ** 2)


def test_a_wrong_saturating_derivative_is_caught_by_the_corners(monkeypatch):
    """Mutation: x^2 e^-x (the v-partial's bump) replaced by x e^-x: the enclosure of a box
    with v from 0.2 to 0.4 misses a corner's value (the recheck's corner check)."""
    box = _thin(3.2, 0.5, (0.8, 1.0), (0.2, 0.4))
    plan_range.box_margins("thm2-4d", box, CONSTANTS, BITS, check_corners=True)  # holds
    real = dual._bump
    monkeypatch.setattr(dual, "_bump", lambda k, lo, hi: real(1, lo, hi) / 8)
    with pytest.raises(ArithmeticError):
        plan_range.box_margins("thm2-4d", box, CONSTANTS, BITS, check_corners=True)


def test_a_gap_without_its_u_term_is_not_certified(monkeypatch):
    """Mutation: the gap rate's u sqrt(d) r1 term dropped; the centre check against the step
    sizes (eta2_min/v, the Phase-2 closed forms) leaves every box undecided."""
    from verify.engine.certified import symmetric

    box = _thin(10, 0.1, (0.5, 1.0), (0.5, 1.0))
    assert boxes.judge("thm2-4d", box, CONSTANTS, BITS).status == "certified"
    real = symmetric.arb_gap_rate_parts()
    monkeypatch.setattr(plan_range, "arb_gap_rate_parts", lambda: lambda d, e: [real(d, e)[0], 0 * d])
    assert boxes.judge("thm2-4d", box, CONSTANTS, BITS).status == "undecided"


def test_a_small_C_is_a_counterexample_region_with_a_witness():
    """Mutation: C = 1/4 makes the gap too small at d = 3.2, eps = 0.01: 2 delta > eps/2 on the
    whole box (a two-sided margin below 0), and Corollary 1's final loss, a one-sided margin,
    fails through the exact witness at the box's centre (T = ceil(72/eps) steps)."""
    consts = dict(CONSTANTS, **{"thm2.C": Fraction(1, 4), "cor1.C": Fraction(1, 4)})
    box = _thin(3.2, 0.01, (0.9, 1.0), (0.9, 1.0))
    verdict = boxes.judge("thm2-4d", box, consts, BITS)
    assert verdict.status == "failing" and verdict.margins["thm2.delta"][1] < 0
    verdict = boxes.judge("cor1-4d", box, consts, BITS)
    assert verdict.status == "failing" and verdict.margins["cor1.population"][1] < 0
    assert boxes.judge("cor1-4d", box, CONSTANTS, BITS).status == "certified"


def test_the_whole_u_v_square_of_a_small_box_is_one_certified_leaf():
    """At d in [10, 11], eps in [0.1, 0.12] every step size the hypotheses allow is certified in
    one box: the margins are far from 0 everywhere, the limits included."""
    run = boxes.branch_and_bound("cor1-4d", boxes.hypothesis_box(10, 11, 0.1, 0.12), CONSTANTS,
                                 BITS, 30, max_boxes=20)
    assert run.status is True and len(run.leaves) == 1 and run.certified_share() == 1.0


def test_proposition_1_worst_case_is_proved_for_2e_s_and_not_for_3e_s():
    """proofs/prop1.md step 9: with beta = 2 e_s every step is proved (SymPy, any d); with
    beta = 3 e_s the positive-word loss 1/2 (1 - 3h)^2 falls for h < 1/3, and the step fails."""
    from verify.engine.symbolic import background_worst_case

    assert all(ok for _, ok in background_worst_case())
    assert not background_worst_case(3, 0)[0][1]


def test_proposition_1_box_claims_every_alpha_only_with_the_worst_case(monkeypatch):
    from verify.certify import outcomes
    from verify.engine import symbolic

    case = outcomes.certified_cases("prop1", outcomes.Profile.QUICK, {})[0]
    out = outcomes.judge_certified("prop1", case, CONSTANTS)
    assert out.passed is True and outcomes.WORST_CASE in out.detail
    real = symbolic.background_worst_case
    monkeypatch.setattr(symbolic, "background_worst_case", lambda: real(3, 0))
    out = outcomes.judge_certified("prop1", case, CONSTANTS)
    assert out.passed is None and "worst case NOT proved" in out.detail


# ------------------------------------------------------------------- eps -> 0 (the stretch)

def test_the_eps_tail_reaches_the_seam_and_its_limit_is_the_saturated_plan():
    """tau = 1/(1 - ln eps) covers (0, 1e-6] (rounded up); at tau = 0 every eps-scaled term
    vanishes: final and delta -> 1, the others as at v = 0 (b = 0)."""
    from verify.certify import eps_tail

    box = eps_tail.tail_box(10, 11)
    assert float(eps_tail.eps_of(arb(box[3])).lower()) >= 1e-6
    margins, _ = eps_tail.box_margins(eps_tail.GROUP, (*box[:2], 0.0, 1e-300, *box[4:6], 0.5, 0.5 + 2.0 ** -30),
                                        CONSTANTS, BITS)
    for claim in ("thm2.final", "thm2.delta", "thm2.optimum"):
        assert float(margins[claim].mid()) == pytest.approx(1.0, abs=1e-12)


def test_an_eps_tail_box_contains_the_mpmath_engine_at_eps_1e_8():
    """d = 10, eps = 1e-8, u = v = 1 (gap 66, T = 936): the tail box tau in [tau(1e-9), tau(1e-7)]
    contains the engine's margins (the final one a lower bound for every T >= T_low)."""
    from verify.certify import eps_tail

    d, eps = 10, 1e-8
    ref = _engine_margins(d, eps, mpmath.mpf(1))
    x = math.log(d)
    box = (x - 1e-12, x + 1e-12, eps_tail.tau_of(1e-9), eps_tail.tau_of(1e-7),
           1 - 2.0 ** -30, 1.0, 1 - 2.0 ** -30, 1.0)
    margins, _ = eps_tail.box_margins(eps_tail.GROUP, box, CONSTANTS, BITS, check_corners=True)
    _assert_enclosed(margins, ref, tol=1e-12)


def test_a_small_T_factor_breaks_the_eps_tail():
    """Mutation: T_factor = 1/10 (T >= d ln(16d/eps)/10): Phase 3 no longer contracts faster
    than eps shrinks (A_1 < 0) and the tail is not certified."""
    from verify.certify import eps_tail

    box = eps_tail.tail_box(10, 11)
    assert boxes.judge(eps_tail.GROUP, box, CONSTANTS, BITS).status == "certified"
    bad = dict(CONSTANTS, **{"thm2.T_factor": Fraction(1, 10)})
    assert boxes.judge(eps_tail.GROUP, box, bad, BITS).status != "certified"
