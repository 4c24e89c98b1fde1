"""The centred (mean-value) form: dual numbers over Arb, centred margins over boxes, their
mutations, and certificates written with it (proofs/centred-form.md)."""
from __future__ import annotations

import json
import math

import pytest


from flint import arb  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402

from verify.certify import boxes, certificate, centred  # noqa: E402
from verify.certify.claims import margins as plain_margins  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.engine.certified import dual  # noqa: E402
from verify.engine.certified.balls import interval, precision  # noqa: E402
from verify.engine.certified.dual import Dual  # noqa: E402

CONSTANTS = values(load())
BOX = (0.5, 0.6, -0.9, -0.8)  # (x from, to; y from, to)


def _f(x, y):
    """Uses every operation the kernels use: + - * /, powers, exp, expm1, log, sqrt, Li_2."""
    z = (x * x * y + 3) / (2 + y ** 2)
    return z.log() * (-x).exp() + (x * y).expm1() ** 3 - (1 + x).sqrt() / y + (x / 2).polylog(2)


def _box_dual(box=BOX):
    X, Y = interval(box[0], box[1]), interval(box[2], box[3])
    xc, yc = arb((box[0] + box[1]) / 2), arb((box[2] + box[3]) / 2)
    dx = (X - xc, Y - yc)
    return Dual(X, (arb(1), arb(0)), xc, dx), Dual(Y, (arb(0), arb(1)), yc, dx)


@settings(max_examples=60)
@given(st.floats(0, 1), st.floats(0, 1))
def test_centred_enclosure_contains_every_point_value(a, b):
    with precision(80):
        out = _f(*_box_dual())
        x, y = BOX[0] + a * (BOX[1] - BOX[0]), BOX[2] + b * (BOX[3] - BOX[2])
        assert out.v.contains(_f(Dual(arb(x), ()), Dual(arb(y), ())).v)


def test_centred_form_beats_the_dependency_problem():
    """f - f + x is x: interval arithmetic doubles f's width, the centred form sees a gradient
    (1, 0) plus the width of the gradients' own enclosures (second order)."""
    with precision(80):
        X, Y = interval(BOX[0], BOX[1]), interval(BOX[2], BOX[3])
        x, y = Dual(X, ()), Dual(Y, ())
        plain = _f(x, y) - _f(x, y) + x
        xd, yd = _box_dual()
        centred = _f(xd, yd) - _f(xd, yd) + xd
        assert centred.v.rad() < plain.v.rad() / 3 and centred.v.contains(X)


def test_gradient_agrees_with_a_central_difference():
    with precision(120):
        x, y = Dual(arb("0.6"), (arb(1), arb(0))), Dual(arb("-0.7"), (arb(0), arb(1)))
        out = _f(x, y)
        h = arb(10) ** -15
        fx = (_f(Dual(x.v + h, ()), Dual(y.v, ())).v - _f(Dual(x.v - h, ()), Dual(y.v, ())).v) / (2 * h)
        fy = (_f(Dual(x.v, ()), Dual(y.v + h, ())).v - _f(Dual(x.v, ()), Dual(y.v - h, ())).v) / (2 * h)
        assert abs(float(out.g[0].mid() - fx.mid())) < 1e-20
        assert abs(float(out.g[1].mid() - fy.mid())) < 1e-20


def test_a_wrong_derivative_misses_point_values(monkeypatch):
    """Mutation: exp's derivative halved; the centred enclosure no longer holds every value."""
    def wrong_exp(self):
        e = dual.increasing(self.v, lambda x: x.exp())
        return self._new(e, [e * a / 2 for a in self.g], lambda: self.c.exp())

    monkeypatch.setattr(Dual, "exp", wrong_exp)
    box = (0.0, 2.0, 0.0, 0.001)
    with precision(80):
        X, Y = _box_dual(box)
        out = X.exp()
        ends = [Dual(arb(box[0]), ()).exp().v, Dual(arb(box[1]), ()).exp().v]
        assert not all(out.v.contains(e) for e in ends)


@pytest.mark.parametrize("d0", [1e3, 1e6, 1e9])
def test_phases_over_a_cell_of_large_d_enclose_the_point_values(d0):
    """Li_2((d - 2)/(d - 1)) enters the Phase 1-2 closed forms as one increasing function of d
    (symbolic.lambdify_phases): over a cell of large d the ratio's interval reaches past 1 and
    Li_2 of it is NaN; the enclosure must be finite and hold the forms at the cell's ends and
    middle (point balls at twice the precision)."""
    lo, hi = math.log(d0), math.log(d0) + 0.02
    with precision(96):
        U = interval(lo, hi)
        uc = arb((lo + hi) / 2)
        dd = dual.increasing(U, arb.exp)
        out = centred.phases(Dual(dd, (dd, arb(0)), uc.exp(), (U - uc, arb(0))), arb(1))
    assert all(o.v.is_finite() and o.g[0].is_finite() for o in out)
    with precision(192):
        for u in (lo, (lo + hi) / 2, hi):
            x = arb(u).exp()
            point = centred.arb_phases()(x, x.sqrt())
            assert all(o.v.contains(p) for o, p in zip(out, point))
    assert out[2].v < 0 and out[3].v > 0  # signs proved over the cell (grad2_alpha_s, _j)


def test_dilog_q_gradient_and_default_agree():
    """dilog_q's derivative ln(d - 1)/((d - 1)(d - 2)) against a central difference, and the
    default (mpmath) phases against the SymPy closed forms with Li_2 kept."""
    import mpmath
    import sympy as sp

    from verify.engine import symbolic

    with precision(160):
        x = Dual(arb(37), (arb(1),))
        h = arb(10) ** -20
        fd = (dual.dilog_q(arb(37) + h) - dual.dilog_q(arb(37) - h)) / (2 * h)
        assert abs(float(x.dilog_q().g[0].mid() - fd.mid())) < 1e-25
    forms = symbolic.three_phase_closed_forms()
    with mpmath.workdps(30):
        got = symbolic.lambdify_phases()(mpmath.mpf(37), mpmath.sqrt(37))
        for key, value in zip(symbolic.PHASE_KEYS, got):
            ref = forms[key].subs({symbolic.d: 37, symbolic.eta1: sp.sqrt(37)}).evalf(30)
            assert abs(value - mpmath.mpf(str(ref))) <= 1e-25 * max(1, abs(value))


def test_gap_rate_is_the_phase2_gap_per_C_ln_d_over_eps():
    """schedules.phase2_gap(-C ln(d/eps) rate) is -eta2 (grad2_s - grad2_j) with the closed-form
    rate d^2 (grad2_s - grad2_j)/eta1, which tends to -2; and a box whose schedule changed in
    eta2 alone is caught at its centre (the box is not certified)."""
    import mpmath

    from verify.engine import schedules, symbolic

    phases, rate = symbolic.lambdify_phases(), symbolic.lambdify_gap_rate()
    with mpmath.workdps(40):
        for dd, eps in ((3, 0.5), (10, 1e-3), (1e4, 0.1), (1e9, 1e-6)):
            x = mpmath.mpf(dd)
            eta1 = mpmath.sqrt(x)
            _, _, g2s, g2j = phases(x, eta1)
            direct = -schedules.eta2(x, eps, 2, eta1, mpmath.log) * (g2s - g2j)
            (r,) = rate(x, eta1)
            assert mpmath.almosteq(schedules.phase2_gap(x, eps, 2, r, mpmath.log), direct, 1e-30)
        assert abs(rate(mpmath.mpf(10) ** 9, mpmath.sqrt(10**9))[0] + 2) < 1e-4


def test_a_schedule_changed_in_one_place_is_not_certified(monkeypatch):
    from verify.engine import schedules

    box = boxes.log_box(1000, 1100, 0.1, 0.11)
    assert boxes.judge_box("thm2", box, CONSTANTS, 96)[0] == "certified"
    monkeypatch.setattr(schedules, "eta2", lambda d, eps, C, e1, log: C * d**2 / e1 * log(2 * d / eps))
    assert boxes.judge_box("thm2", box, CONSTANTS, 96)[0] != "certified"


def test_integer_powers_of_balls_around_zero():
    """python-flint's arb ** int is NaN on a ball around 0; the duals' powers are not."""
    with precision(64):
        ball = arb(0).union(arb("1e-30")) - arb("5e-31")
        assert dual.power(ball, 2).is_finite() and dual.power(ball, 2).contains(0)
        wide = interval(-1, 2)
        sq = dual.power(wide, 2)
        assert sq.lower() > -1e-6 and sq.contains(0) and sq.contains(4)  # mid-rad: [0, 4] +- ulp


@pytest.mark.parametrize("group, box, point", [
    ("prop1", (5, 6, 0.2, 0.25), (5.5, 0.22)),
    ("thm2", (10, 10.2, 0.01, 0.0102), (10.1, 0.0101)),
])
def test_centred_margins_contain_the_plain_route_at_a_point(group, box, point):
    """Two routes: the centred enclosure over a box contains the plain route's (claims.py)
    value at a point inside, for the margins that are enclosures in both."""
    ms = centred.centred_margins(group, boxes.log_box(*box), CONSTANTS, 96, 2, corners=True)
    d, eps = point
    at = plain_margins(group, boxes.log_box(d, d * (1 + 1e-12), eps, eps * (1 + 1e-12)),
                       CONSTANTS, 96)
    for claim in ("prop1.bound", "thm2.initial_distance", "thm2.delta", "thm2.contraction"):
        if claim in ms:
            assert ms[claim].overlaps(at[claim]), claim


def test_a_wrong_derivative_is_caught_by_the_corner_check(monkeypatch):
    """Mutation: log's derivative divided by 4.  The centred enclosures of Theorem 2's margins
    shrink below the true range; the corner cross-check (used by recheck) finds a corner
    value outside and leaves the box undecided instead of certified."""
    def bad_log(self):
        return self._new(dual.increasing(self.v, lambda x: x.log()),
                         [a / (4 * self.v) for a in self.g], lambda: self.c.log())

    box = boxes.log_box(10, 10.01, 0.1, 0.1001)
    status, _ = boxes.judge_box("thm2", box, CONSTANTS, 96, corners=True)
    assert status == "certified"
    monkeypatch.setattr(Dual, "log", bad_log)
    status, pairs = boxes.judge_box("thm2", box, CONSTANTS, 96, corners=True)
    assert status == "undecided" and pairs["thm2.final"] == (-math.inf, math.inf)


def test_a_wrong_constant_is_a_counterexample_region_with_the_centred_form():
    from fractions import Fraction

    bad = dict(CONSTANTS, **{"prop1.attention_constant": Fraction(1, 10**6)})
    run = boxes.branch_and_bound("prop1", boxes.log_box(10, 11, 0.01, 0.012), bad, 96, 4)
    assert run.status is False


def test_one_sided_margins_never_make_a_counterexample_region():
    """thm2.final and cor1.population are lower bounds (every T >= T_low, L* <= L(2 e_s)):
    below 0 they leave a box undecided."""
    assert "cor1.population" in boxes.ONE_SIDED["centred"]
    assert "prop1.bound" not in boxes.ONE_SIDED["centred"]


def test_recheck_validates_a_centred_certificate_and_rejects_a_forged_one(tmp_path):
    run = boxes.branch_and_bound("cor1", boxes.log_box(10, 12, 0.1, 0.12), CONSTANTS, 96, 6)
    assert run.status is True and run.method == "centred"
    data = certificate.certificate(run, CONSTANTS)
    assert data["method"] == "centred"
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    assert certificate.recheck(json.loads(path.read_text())).ok
    forged = json.loads(path.read_text())
    forged["leaves"][0]["margins"]["cor1.population"] = [(5.0).hex(), (6.0).hex()]
    assert not certificate.recheck(forged).ok


def test_the_default_boxes_need_few_leaves():
    """The reason for the centred form: Theorem 2's default box is one leaf (142 with plain
    balls); the plain route stays available as method="plain"."""
    run = boxes.branch_and_bound("thm2", boxes.log_box(10, 10.05, 0.1, 0.1005), CONSTANTS, 96, 8)
    assert run.status is True and len(run.leaves) <= 2
    with pytest.raises(ValueError):
        boxes.judge_box("thm2", run.root, CONSTANTS, 96, method="nonsense")


def test_phase3_per_direction_bound_is_exact_at_integer_T_and_decreases():
    """proofs/monotonicity.md: L(T) - L* = sum_i c_i (1 - lambda_i)^(2T) exactly at integer T
    (against Phase 3 run step by step on balls), and the bound at a real T_low <= T covers it."""
    from verify.engine.certified.symmetric import ball_three_phase

    d = 10
    with precision(128):
        eta1 = arb(d).sqrt()
        eta2 = 2 * arb(d) ** 2 / eta1 * (arb(d) / arb("0.1")).log()
    plan = ball_three_phase(d, eta1, eta2, 1, 128)
    with precision(128):
        A = tuple(tuple(Dual(x, ()) for x in row) for row in plan.A)
        e = tuple(Dual(b - s, ()) for b, s in zip(plan.beta1, plan.beta_star))
        previous = None
        for T in (1, 2, 5, 20, 100):
            exact = plan.loss_after(T)["loss"]
            _, _, decay = centred.phase3_decay(A, e, Dual(arb(d), ()), Dual(arb(T), ()))
            bound = plan.loss_star + decay[0].v + decay[1].v
            assert bound.overlaps(exact)
            _, _, early = centred.phase3_decay(A, e, Dual(arb(d), ()), Dual(arb(T) - arb("0.5"), ()))
            assert (plan.loss_star + early[0].v + early[1].v).upper() >= exact.lower()
            if previous is not None:
                assert exact.upper() <= previous.upper()
            previous = exact


def test_a_one_sided_margin_fails_only_through_an_exact_witness():
    """Mutation cor1.C = 1e-6: the centred route cannot enclose the box (the margin is one-sided
    anyway); the exact loss after T = ceil(72/eps) steps at the box's centre is above eps, so
    the box is failing with that point's margin as its witness."""
    from fractions import Fraction

    bad = dict(CONSTANTS, **{"cor1.C": Fraction(1, 10**6)})
    status, pairs = boxes.judge_box("cor1", boxes.log_box(10, 11, 0.1, 0.12), bad, 96)
    lo, hi = pairs["cor1.population"]
    assert status == "failing" and lo <= hi < 0
