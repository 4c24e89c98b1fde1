"""The general engine on Arb balls: agreement with mpmath, the head and tail bounds, the floors,
and mutations (a dropped term, a wrong tail bound) that make a ball miss the true value."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest

import flint
from flint import arb  # noqa: E402

from verify.engine import general  # noqa: E402
from verify.engine.certified import general as cg  # noqa: E402
from verify.engine.certified.balls import bits_for, precision  # noqa: E402
from verify.engine.certified.floors import dual_floor, feasible_upper, loss_at, unconstrained_floor  # noqa: E402
from verify.engine.certified.gauss import gauss_1d  # noqa: E402


def _ball_of(value, error, dps) -> arb:
    """[value - error, value + error] read at high precision (not through 53-bit floats)."""
    with mpmath.workdps(dps + 20):
        lo, hi = mpmath.nstr(value - error, dps + 15), mpmath.nstr(value + error, dps + 15)
    with precision(bits_for(dps + 20)):
        return arb(lo).union(arb(hi))


def _agree(ball: arb, value, err, dps) -> bool:
    promised = max(err, abs(value) * mpmath.mpf(10) ** -dps)
    return ball.overlaps(_ball_of(value, promised, dps))


POINTS = [(2, [0.0, 0.0]), (2, [200.0, 0.0]), (2, [0.0, 200.0]), (3, [0.0, 0.0, 0.0]),
          (3, [1.5, -0.5, 0.25]), (3, [200.0, 0.0, -3.0]), (3, [-200.0, 0.0, 1.0]),
          (9, [0.3 * i for i in range(9)]), (9, [0.0, -7.5, 2.0, 0.0, 1.0, -1.0, 3.0, 0.5, -20.0])]


def _check_against_mpmath(d, alpha, dps, s=0):
    bits = bits_for(dps)
    bm = cg.ball_moments(d, s, alpha, bits)
    ref = general.moments(d, s, [repr(a) for a in alpha], dps)
    for i in range(d):
        assert _agree(bm.mean[i], ref.mean[i], ref.errors["mean"][i], dps), ("mean", i)
        assert _agree(bm.mean_positive[i], ref.mean_positive[i],
                      ref.errors["mean_positive"][i], dps), ("pos", i)
        for j in range(d):
            assert _agree(bm.second[i, j], ref.second[i, j], ref.errors["second"][i, j], dps)
    with precision(bits):  # narrow: the goal is 2^-(bits - 24) absolute
        assert all(x.rad() < arb(2) ** (24 - bits) * 100 for x in bm.mean + bm.mean_positive)


@pytest.mark.parametrize("d, alpha", POINTS)
def test_ball_moments_contain_mpmath_15_digits(d, alpha):
    _check_against_mpmath(d, alpha, 15, s=d - 1)


@pytest.mark.slow
@pytest.mark.parametrize("d, alpha", [p for p in POINTS if p[0] <= 3])
def test_ball_moments_contain_mpmath_100_digits(d, alpha):
    _check_against_mpmath(d, alpha, 100)


def test_diagonal_pass_matches_full():
    full = cg.ball_moments(4, 1, [0.5, 0.0, -2.0, 1.0], 96)
    diag = cg.ball_moments(4, 1, [0.5, 0.0, -2.0, 1.0], 96, full=False)
    assert all(a.overlaps(b) for a, b in zip(full.second_diagonal, diag.second_diagonal))


def _t_integrand(att, t, entry):
    """The t-measure integrands of a mean entry and a second-moment entry, in mpmath (a direct
    formula, independent of the kernels)."""
    d, c = att.d, [float(x.mid()) for x in att.c]
    p, q = mpmath.mpf(1) / (d - 1), 1 - mpmath.mpf(1) / (d - 1)
    x = [mpmath.exp(-t * cl) for cl in c]
    z = mpmath.fsum(x) / d
    g1 = p / (1 - q * z) ** 2
    g2 = 2 * p * q / (1 - q * z) ** 3
    kind, i, j = entry
    if kind == "mean":
        return c[i] * x[i] * g1 / d
    return t * c[i] * c[j] * x[i] * x[j] * g2 / d**2 + (t * c[i] ** 2 * x[i] * g1 / d if i == j else 0)


@pytest.mark.parametrize("d, alpha", [(3, [0.0, -1.0, 2.0]), (9, [0.0] * 8 + [-4.0]), (2, [0.0, 5.0])])
def test_head_and_tail_bounds_dominate(d, alpha):
    """int_0^t_lo and int_T^inf (mpmath quadrature) below the proven bounds, at cuts where they
    are not negligible."""
    att = cg.BallAttention.from_alpha(d, 0, alpha, 96)
    with precision(96):
        for T in (0.5, 3.0, 20.0):
            bounds = cg.tail_bounds(att, arb(T), True)
            heads = cg.head_bounds(att, arb(T), True)
            for k, entry in ((0, ("mean", 0, 0)), (2 * d, ("second", 0, 0)),
                             (2 * d + 1, ("second", 0, 1))):
                with mpmath.workdps(30):
                    tail = mpmath.quad(lambda t: _t_integrand(att, t, entry), [T, 10 * T, mpmath.inf])
                    head = mpmath.quad(lambda t: _t_integrand(att, t, entry), [0, T])
                slack = 1 + mpmath.mpf(10) ** -12  # at d = 2 the tail bound is exact
                assert tail <= slack * mpmath.mpf(float(bounds[k].upper())), (T, entry, tail)
                assert head <= slack * mpmath.mpf(float(heads[k].upper())), (T, entry, head)


def test_wrong_tail_bound_is_caught(monkeypatch):
    """An early cut with the tail bound replaced by 0: the ball misses the true moment."""
    d, alpha = 3, [0.0, -1.0, 2.0]
    ref = general.moments(d, 0, [repr(a) for a in alpha], 20)
    right = cg.cut_points
    early = lambda att, tol_bits: (right(att, tol_bits)[0], 1.0)  # noqa: E731
    monkeypatch.setattr(cg, "cut_points", early)
    monkeypatch.setattr(cg, "tail_bounds", lambda att, T, full: [arb(0)] * (2 * d + d * (d + 1) // 2))
    bm = cg.ball_moments(d, 0, alpha, 96)
    assert not _agree(bm.mean[0], ref.mean[0], ref.errors["mean"][0], 15)


def test_dropped_term_is_caught(monkeypatch):
    """The diagonal term of E[gamma gamma^T] dropped from the kernel: the ball misses."""
    d, alpha = 3, [0.0, -1.0, 2.0]
    ref = general.moments(d, 0, [repr(a) for a in alpha], 20)
    right = cg.gram_weights
    monkeypatch.setattr(cg, "gram_weights", lambda G1, G2, d: (right(G1, G2, d)[0], 0 * G1))
    bm = cg.ball_moments(d, 0, alpha, 96)
    assert not _agree(bm.second[0, 0], ref.second[0, 0], ref.errors["second"][0, 0], 15)


def test_gauss_rule_encloses_known_integrals():
    with precision(96):
        vals = gauss_1d(lambda u: [u.exp(), (u * u).exp()], 0.0, 1.5, 1e-20, 16, 96)
        assert vals[0].contains(arb(1.5).exp() - 1)
        ref = mpmath.quad(lambda u: mpmath.exp(u * u), [0, 1.5])
        assert vals[1].overlaps(_ball_of(ref, mpmath.mpf(10) ** -14, 15))


def test_floors_enclose_the_mpmath_optimum():
    d, alpha = 4, [0.3, 0.0, -1.2, 0.8]
    bm = cg.ball_moments(d, 2, alpha, 96)
    ball = unconstrained_floor(bm.second, bm.mean_positive, 96)
    opt = general.solve_output(d, 2, [repr(a) for a in alpha], 20)
    inf = opt.infimum
    assert _agree(ball, inf.value, inf.error, 15)
    beta = [float(b) for b in opt.beta]
    assert loss_at(bm.second, bm.mean_positive, beta, 96).overlaps(_ball_of(opt.loss, opt.loss_error + mpmath.mpf(10) ** -14, 15))


def test_dual_bound_brackets_the_trust_region_minimum():
    from verify.results.prop4 import trust_region

    d, alpha, s = 4, [0.0, 0.0, 2.0, -1.0], 1
    bm = cg.ball_moments(d, s, alpha, 96)
    Q = np.array([[float(bm.second[i, j].mid()) for j in range(d)] for i in range(d)])
    m = np.array([float(x.mid()) for x in bm.mean_positive])
    R = 0.5
    B, mu, vals = trust_region(Q, 2.0 * m[:, None], R)
    assert mu[0] > 0  # the constraint is active
    lower = dual_floor(bm.second, bm.mean_positive, arb(R) ** 2, float(mu[0]), 96)
    upper = feasible_upper(bm.second, bm.mean_positive, list(B[:, 0]), arb(R) ** 2, 96)
    assert float(lower.upper()) <= 1 + vals[0] + 1e-12 and float(upper.lower()) >= 1 + vals[0] - 1e-12
    assert float(upper.mid() - lower.mid()) < 1e-8  # strong duality at the solver's multiplier
    assert float(dual_floor(bm.second, bm.mean_positive, arb(R) ** 2, 10 * float(mu[0]), 96).upper()) < float(lower.lower())


def test_ball_loss_contains_mpmath_loss():
    d, alpha = 9, [0.0, -7.5, 2.0, 0.0, 1.0, -1.0, 3.0, 0.5, -20.0]
    beta = [1.0, -0.5, 2.0, 0.0, 0.3, 0.1, -1.0, 0.5, 0.25]
    value, err = general.loss(d, 2, [repr(a) for a in alpha], [repr(b) for b in beta], 20)
    assert _agree(cg.ball_loss(d, 2, alpha, beta, 64), value, err, 12)


def test_cross_block_of_equal_heads_is_the_single_head_second_moment():
    """Two equal heads: the 2-D route (double Laplace) must give E[gamma gamma^T] of the 1-D
    route; the diagonal term dropped from the 2-D kernel is caught."""
    from verify.engine.certified import heads

    alpha = [0.5, 0.0, -1.0]
    single = cg.ball_moments(3, 0, alpha, 64).second
    block = heads.cross_block(3, alpha, alpha, 64, 20)
    assert all(block[i, j].overlaps(single[i, j]) for i in range(3) for j in range(3))
    assert max(float(block[i, j].rad()) for i in range(3) for j in range(3)) < 1e-5


def test_cross_block_with_a_dropped_term_is_caught(monkeypatch):
    from verify.engine.certified import heads

    right = heads.gram_weights
    monkeypatch.setattr(heads, "gram_weights", lambda G1, G2, d: (right(G1, G2, d)[0], 0 * G1))
    alpha = [0.5, 0.0, -1.0]
    single = cg.ball_moments(3, 0, alpha, 64).second
    block = heads.cross_block(3, alpha, alpha, 64, 20)
    assert not block[0, 0].overlaps(single[0, 0])


@pytest.mark.slow
def test_cross_block_contains_the_mpmath_nested_integral():
    """Against the mpmath engine's Feynman-parameter route (an independent formula)."""
    from verify.engine.certified import heads
    from verify.engine.general.attention import GeneralAttention
    from verify.engine.general.heads import _cross_block

    d, ah, ag = 3, [1.0, 0.0, -2.0], [0.0, 0.5, 0.0]
    block = heads.cross_block(d, ah, ag, 64, 20)
    ch = GeneralAttention.from_alpha(d, 0, ah, 15).c
    cq = GeneralAttention.from_alpha(d, 0, ag, 15).c
    ref, err, _ = _cross_block(d, 0, ch, cq, 15)
    for i in range(d):
        for j in range(d):
            assert _agree(block[i, j], ref[i, j], err[i, j], 12), (i, j)


def test_a_wrong_moment_makes_the_certified_floor_fail(monkeypatch):
    """prop3.certified_floor at alpha = 0, d = 3 passes (1/2 - 1/(4 ln 2) >= 1/10); with
    E[gamma 1{y=+1}] tripled in the kernel (an injected fault) the whole ball drops below c2."""
    from verify.checks import Case, Evidence, Outcome
    from verify.constants import load, values
    from verify import results
    from verify.results import prop3

    found = Outcome("d=3", True, 1.0, Evidence.SEARCH, "", values={"alpha": [0.0] * 3, "s": 0})
    monkeypatch.setattr(prop3, "dedicated_outcome", lambda *a: found)
    case, constants = Case("d=3", {"d": 3}), values(load())
    judge = results.check("prop3.certified_floor").judge
    good = judge(case, constants)
    assert good.passed is True and good.evidence is Evidence.CERTIFIED
    assert abs(good.values["lower"] - 0.139326) < 1e-6
    right = cg.mean_terms
    monkeypatch.setattr(cg, "mean_terms", lambda nt: (right(nt)[0], 3 * right(nt)[1]))
    assert judge(case, constants).passed is False


def test_an_integrand_without_bound_gives_an_undeciding_ball():
    """When no box evaluation on the ellipse is finite (here: forced), the result is NaN
    (undecided), not an exception and never a finite ball."""
    from flint import acb

    with precision(64):
        vals = gauss_1d(lambda u: [arb("nan")] if isinstance(u, acb) else [u], -1.0, 1.5,
                        1e-10, 8, 64)
    assert not vals[0].is_finite()


@pytest.mark.parametrize("check_id", ["prop3.certified_floor", "lemma-low-attention.certified_ceiling",
                                      "thm1.certified_value"])
def test_certified_floor_details_do_not_depend_on_the_clock(check_id, monkeypatch):
    """Same seed, same bytes: a certified floor's detail carries no wall time (a clock that
    jumps by 1000 s at every reading leaves it unchanged)."""
    import itertools
    import time

    from verify.checks import Profile
    from verify.constants import load, values
    from verify.results import by_id

    constants = values(load())
    check = next(c for c in by_id(check_id.split(".")[0]).checks if c.id == check_id)
    case = check.cases(Profile.QUICK, constants, {})[0]
    first = check.judge(case, constants)
    ticks = itertools.count(start=10**6, step=1000)
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(ticks)))
    assert check.judge(case, constants).detail == first.detail


def test_each_certified_point_value_says_what_it_bounds(monkeypatch):
    """Issue 26, item 5: prop2's ball is the loss at one alpha (an upper bound of inf_alpha, no
    floor), the lemma's an upper end (a ceiling); the old ids still find them; thm1's detail
    says whether a logit gap was capped."""
    from verify.checks import Case, Evidence, Outcome, Profile, Reach
    from verify.constants import load, values
    from verify.results import RENAMED, by_id, current_ids, prop2, select, thm1

    constants = values(load())
    checks = {c.id: c for r in (prop2.RESULT, by_id("lemma-low-attention"), thm1.RESULT)
              for c in r.checks}
    assert "upper bound of inf_alpha" in checks["prop2.certified_value"].claim
    assert "ceiling" in checks["lemma-low-attention.certified_ceiling"].claim
    points = ("prop2.certified_value", "lemma-low-attention.certified_ceiling", "thm1.certified_value")
    assert all(checks[i].covers is Reach.POINTS for i in points if i in checks)
    assert checks["prop2.all_parameters"].covers is Reach.RANGE  # the cube certificate (issue 29)
    assert current_ids(list(RENAMED)) == list(RENAMED.values())
    assert [r.id for r in select(["prop2.certified_floor"])] == ["prop2"]
    at = dict(alpha=[0.0, -1.0, 0.5], beta=[1.0, 1.0, 1.0], s=0)
    value = prop2.reevaluate(3, 0, at["alpha"], at["beta"], 20)
    found = Outcome("d=3", True, 1.0, Evidence.SEARCH, "",
                    values={**at, "floor": float(value.value), "floor_error": float(value.error)})
    monkeypatch.setattr(prop2, "dedicated_outcome", lambda *a: found)
    out = checks["prop2.certified_value"].judge(Case("d=3", {"d": 3}), constants)
    assert out.passed is True and "an upper bound of inf_alpha there: no floor" in out.detail
    assert "certified floor" not in out.detail and "value lies in it" in out.detail
    case = checks["thm1.floor"].cases(Profile.QUICK, constants, {})[0]
    small = {"random": 0, "starts": 0, "evals": 0, "n_eta": 2, "adversarial": False}
    value = checks["thm1.certified_value"].judge
    text = value(Case(case.label, {**case.params, **small}), constants).detail
    assert "from the 20-digit step, rounded to float64" in text and "none capped" in text
