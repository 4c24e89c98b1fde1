"""Propositions 3 and 4 and the low-attention lemma (A.5): values, mutations, reproducibility
and the trust-region solver."""
import re
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from verify import results
from verify.checks import Case, Profile
from verify.engine import general
from verify.results import lemma_low_attention as lemma
from verify.results import prop3, prop4

ROOT = Path(__file__).resolve().parent.parent

BASE = {
    "prop3.c2": Fraction(1, 10),
    "prop4.c4": Fraction(1, 10),
    "prop4.head_factor": Fraction(1),
    "prop4.radius_scale": Fraction(1),
    "lemma.low_attention_factor": Fraction(1),
}


def constants(**overrides):
    c = dict(BASE)
    c.update({k.replace("__", "."): Fraction(v) for k, v in overrides.items()})
    return c


# ------------------------------------------------------------------------------ Proposition 3


@pytest.mark.parametrize("d", [3, 5])
def test_uniform_floor_float_and_mpmath_agree(d):
    fl = prop3.floors_float(d, np.zeros(d), general.FLOAT_STEP)
    assert np.ptp(fl) < 1e-12  # every target alike at alpha = 0
    value, lower, upper = prop3.floor_at(d, 0, [0.0] * d)
    assert lower <= value <= upper and upper - lower < 1e-15
    assert abs(fl[0] - float(value)) < 1e-11


def test_uniform_floor_d3_value_and_d2_is_zero():
    value, err, _ = prop3.uniform_floor(3)
    assert abs(value - mpmath.mpf("0.139326239778")) < 1e-11 and err < 1e-20
    assert prop3.floors_float(2, np.array([1.5, -0.3])).max() < 1e-12  # d = 2: learnable


def test_all_target_moments_match_the_engine():
    rng = np.random.default_rng(3)
    d = 5
    alpha = rng.normal(size=d) * 2
    M, P = general.target_moments_float(d, alpha)
    for s in range(d):
        m = general.moments_float(d, s, alpha)
        assert np.allclose(m.second, M, rtol=1e-12, atol=1e-15)
        assert np.allclose(m.mean_positive, P[:, s], rtol=1e-12, atol=1e-15)
        assert abs(general.best_output_float(d, s, alpha)[1] - prop3.floors_float(d, alpha, general.FLOAT_STEP)[s]) < 1e-12


def test_prop3_mutation_fails():
    case, uniform = Case("d=3", {"d": 3}), results.check("prop3.uniform").judge
    assert uniform(case, constants()).passed is True
    assert uniform(case, constants(prop3__c2="0.6")).passed is False
    search_case = Case("d=3, seed=0", {"d": 3, "seed": 0, "budget": 40})
    floor = results.check("prop3.floor").judge
    assert floor(search_case, constants(prop3__c2="0.6")).passed is False


def test_prop3_search_is_reproducible_and_finds_the_uniform_minimum():
    a = prop3.floor_search(4, 1, 80)
    b = prop3.floor_search(4, 1, 80)
    assert a.value == b.value and np.array_equal(a.x, b.x) and a.effort == b.effort
    assert a.value <= prop3.floors_float(4, np.zeros(4)).max() + 1e-10  # values rounded to 34 bits


# ---------------------------------------------------------------------------------- the lemma


def test_lemma_uniform_value_closed_form():
    # alpha = 0: E[gamma_s^2] = E[(C_s/m)^2] = 1/d^2 + (d-1)/d^2 E[1/m], E[1/m] = -(p/q) ln p
    d = 3
    vals, errs = lemma.head_sums_mp(d, [[0.0] * d])
    with mpmath.workdps(30):
        p = mpmath.mpf(1) / (d - 1)
        closed = 1 / mpmath.mpf(d) ** 2 + (d - 1) / mpmath.mpf(d) ** 2 * (-(p / (1 - p)) * mpmath.log(p))
        assert abs(vals[0] - closed) < 1e-18 and errs[0] < 1e-18
    assert abs(general.second_diagonal_float(d, np.zeros(d), general.FLOAT_STEP)[0] - float(closed)) < 1e-12


def test_lemma_mutation_fails_at_uniform_attention():
    case = Case("d=3, H=1", {"d": 3, "H": 1, "seed": 0, "budget": 30})
    bound = results.check("lemma-low-attention.bound").judge
    per_word = results.check("lemma-low-attention.per_word").judge
    assert bound(case, constants()).passed is True
    assert bound(case, constants(lemma__low_attention_factor="1/2")).passed is False
    (sym,) = lemma.RESULT.checks[0].cases(Profile.QUICK, constants(), {})
    assert per_word(sym, constants()).passed is True
    assert per_word(sym, constants(lemma__low_attention_factor="1/2")).passed is False


def test_lemma_search_is_reproducible():
    a = lemma.lemma_search(4, 2, 5, 40)
    b = lemma.lemma_search(4, 2, 5, 40)
    assert a.value == b.value and np.array_equal(a.x, b.x)
    assert -a.value <= 2 / 4  # the lemma itself


# ------------------------------------------------------------------------------ trust region


def _kkt(Q, g, R, b, mu):
    grad = Q @ b - g + mu * b
    nb = np.linalg.norm(b)
    return (np.linalg.norm(grad) <= 1e-8 * (1 + np.linalg.norm(g)) and mu >= 0
            and nb <= R * (1 + 1e-10) and abs(mu * (R - nb)) <= 1e-8 * (1 + mu))


@pytest.mark.parametrize("singular", [False, True])
def test_trust_region_kkt(singular):
    rng = np.random.default_rng(7)
    n = 8
    A = rng.normal(size=(n, n))
    Q = A @ A.T / n
    if singular:
        w, V = np.linalg.eigh(Q)
        w[:3] = 0.0
        Q = (V * w) @ V.T
    G = rng.normal(size=(n, 4))
    for R in (0.05, 0.5, 5.0, 500.0):
        B, mu, vals = prop4.trust_region(Q, G, R)
        for j in range(G.shape[1]):
            b = B[:, j]
            assert _kkt(Q, G[:, j], R, b, mu[j])
            assert abs(vals[j] - (0.5 * b @ Q @ b - G[:, j] @ b)) < 1e-10
            # no feasible random point does better (convexity: KKT point is a global minimiser)
            for _ in range(20):
                z = rng.normal(size=n)
                z *= R * rng.uniform() / np.linalg.norm(z)
                assert 0.5 * z @ Q @ z - G[:, j] @ z >= vals[j] - 1e-10


def test_trust_region_large_ball_is_the_linear_solve():
    d = 5
    alpha = np.array([0.3, -1.0, 2.0, 0.0, 0.5])
    M, P = general.target_moments_float(d, alpha)
    B, mu, vals = prop4.trust_region(M, 2 * P, 1e6)
    assert np.all(mu == 0)
    assert np.allclose(B, np.linalg.solve(M, 2 * P), rtol=1e-9)
    assert np.allclose(1 + vals, prop3.floors_float(d, alpha, general.FLOAT_STEP), atol=1e-12)


def test_trust_region_mpmath_agrees():
    d, R = 4, 4 ** 0.25
    alpha = [0.5, 0.0, -1.0, 2.0]
    M, P = general.target_moments_float(d, np.array(alpha))
    _, _, vals = prop4.trust_region(M, 2 * P, R)
    value, err = prop4.confirm_mp(d, 1, alpha, 1, R, prop4.DPS)
    assert abs(float(value) - (1 + vals[1])) < 1e-11 and err < 1e-15


def test_two_head_floor_in_mpmath_agrees_with_float64():
    d, H, R = 3, 2, 3 ** 0.25
    x = np.array([0.3, -1.2, 0.7, 1.0, 0.5, -0.8])
    fl = prop4.floors(d, H, x, R, prop4.CONFIRM_STEPS)
    value, err = prop4.confirm_mp(d, 1, x, H, R, 10)
    assert abs(float(value) - fl[1]) < 1e-9 and err < 1e-9
    assert abs(float(value) - fl[0]) > 1e-3  # the targets' floors differ: the test can tell


def test_two_head_case_uses_the_mpmath_route_and_a_disagreement_is_undecided(monkeypatch):
    case = Case("d=4, H=2", {"d": 4, "H": 2, "seed": 0, "budget": 14, "levels": (10.0,),
                             "mpmath": True})
    seen = []

    def agree(d, s, x, H, R, dps):  # stands in for the mpmath route: returns the float value
        seen.append((d, H, dps))
        return mpmath.mpf(float(prop4.floors(d, H, x, R, prop4.CONFIRM_STEPS)[s])), mpmath.mpf(1e-14)

    monkeypatch.setattr(prop4, "confirm_mp", agree)
    floor = results.check("prop4.floor").judge
    out = floor(case, constants())
    assert out.passed is True and seen == [(4, 2, prop4.HEADS_DPS)]
    assert f"mpmath {prop4.HEADS_DPS} digits" in out.detail
    monkeypatch.setattr(prop4, "confirm_mp", lambda *a: (agree(*a)[0] + 1e-3, mpmath.mpf(1e-14)))
    assert floor(case, constants()).passed is None


@pytest.mark.parametrize("d, H", [(9, 3), (16, 4), (25, 5)])
def test_many_head_floor_matches_monte_carlo(d, H):
    """Second route for H >= 2 beyond MP_HEADS_MAX_D: the population loss at the float64
    minimiser B*, estimated from seeded words, is the float64 floor. The heads are the worst the
    full search finds at these d (head h on the symbols i = h mod H, the others at -30)."""
    from verify.engine.distribution import WordDistribution
    from verify.engine.model import predict_heads, squared_loss

    idx = np.arange(d)
    heads = np.array([np.where(idx % H == h, 0.0, -30.0) for h in range(H)])
    Q, P = prop4.head_system(d, H, heads.ravel(), prop4.CONFIRM_STEPS)

    def floor(R):
        B, _, vals = prop4.trust_region(Q, 2.0 * P, R)
        s = int(np.argmax(vals))
        return s, B[:, s].reshape(H, d), 1.0 + vals[s]

    s, B, value = floor(d**0.25)
    counts = WordDistribution(d).sample_counts(np.random.default_rng([d, H]), 200_000)
    y = np.where(counts[:, s] >= 1, 1.0, -1.0)
    loss = squared_loss(predict_heads(counts, heads, B), y)
    se = loss.std(ddof=1) / np.sqrt(len(loss))
    assert abs(loss.mean() - value) <= 5 * se
    assert abs(loss.mean() - floor(1.5 * d**0.25)[2]) > 5 * se  # a wrong radius is caught


def test_prop4_heads_system_is_consistent():
    # two identical heads = one head with the summed output: Q has the single-head blocks
    d = 4
    a = np.array([0.4, -0.2, 1.0, 0.0])
    Q, P = prop4.head_system(d, 2, np.concatenate([a, a]), prop4.CONFIRM_STEPS)
    M, P1 = general.target_moments_float(d, a)
    for blk in (Q[:d, :d], Q[:d, d:], Q[d:, d:]):
        assert np.allclose(blk, M, atol=1e-9)
    assert np.allclose(P[:d], P1) and np.allclose(P[d:], P1)


def test_prop4_mutation_fails_and_search_is_reproducible():
    case = Case("d=9, H=1", {"d": 9, "H": 1, "seed": 0, "budget": 12, "levels": (10.0,)})
    floor = results.check("prop4.floor").judge
    assert floor(case, constants()).passed is True
    assert floor(case, constants(prop4__c4="0.6")).passed is False
    a = prop4.prop4_search(4, 1, 4 ** 0.25, 2, 30)
    b = prop4.prop4_search(4, 1, 4 ** 0.25, 2, 30)
    assert a.value == b.value and np.array_equal(a.x, b.x)


def test_head_counts_follow_the_constant():
    assert prop4.head_counts(9, constants()) == [1, 2, 3]
    assert prop4.head_counts(9, constants(prop4__head_factor=2)) == [1, 2, 3, 6]


# ---------------------------------------------------------------------------------- documents


@pytest.mark.parametrize("module", [prop3, prop4, lemma])
def test_documents_name_their_checks(module):
    refs = set(re.findall(r"`\[([A-Za-z0-9_.\-]+)\]`", (ROOT / module.RESULT.document).read_text()))
    own = {c.id for c in module.RESULT.checks}
    assert own <= refs and refs <= own | {c.id for m in (prop3, prop4, lemma) for c in m.RESULT.checks}


def test_quick_profile_cases_exist():
    for module in (prop3, prop4, lemma):
        for check in module.RESULT.checks:
            assert check.cases(Profile.QUICK, constants(), {})


def test_prop4_head_bound_matters():
    # H = d = 4 heads (2 sqrt(d), allowed by head_factor = 2): near one-hot rotated heads bring
    # the floor to ~0.02 < c4 = 1/10, so the claim needs the head bound
    assert 4 in prop4.head_counts(4, constants(prop4__head_factor=2))
    case = Case("d=4, H=4", {"d": 4, "H": 4, "seed": 0, "budget": 14, "levels": (10.0,)})
    out = results.check("prop4.floor").judge(case, constants(prop4__head_factor=2))
    assert out.passed is False and "s=" in out.detail


def test_uniform_floor_closed_form_is_proved_and_fails_when_c2_is_raised():
    judge = results.check("prop3.uniform_symbolic").judge
    ok = judge(Case("all d >= 3", {}), constants())
    assert ok.passed is True and "SymPy: True" in ok.detail
    assert abs(ok.values["floor_d3"] - 0.139326239778) < 1e-12
    assert judge(Case("all d >= 3", {}), constants(prop3__c2="3/20")).passed is False


def test_head_factor_calibration_figures():
    """proofs/constants.toml: at d = 4 (head_factor's calibration set; default-profile search,
    seed 0, float64 floors at the confirmation steps) H = 2 = 1 sqrt(d) heads keep the smallest
    floor at 0.16938 >= c4, H = 3 at 0.12804, and H = 4 = 2 sqrt(d) bring it to 0.01865 < c4:
    1 is the largest integer factor that keeps it."""
    c = constants()
    R = prop4.radius(4, c)
    found = {}
    for H in (2, 3, 4):
        res = prop4.prop4_search(4, H, R, 0, prop4.budget_for(Profile.DEFAULT, 4, H),
                                 prop4.LEVELS[Profile.DEFAULT])
        found[H] = float(prop4.floors(4, H, res.x, R, prop4.CONFIRM_STEPS).max())
    assert [round(found[H], 5) for H in (2, 3, 4)] == [0.16938, 0.12804, 0.01865]
    c4 = float(c["prop4.c4"])
    assert found[2] >= c4 and found[4] < c4
    assert prop4.head_counts(4, c)[-1] == 2 and prop4.head_counts(4, constants(prop4__head_factor=2))[-1] == 4


def test_head_factor_is_held_out_beyond_its_calibration_d():
    """prop4.floor carries two measured constants: c4 (d = 4, H = 2) and head_factor (d = 4, every
    H); every case at another d is held out, and the headline counts only those."""
    cals = {cal.constant: cal for cal in prop4.RESULT.calibrations_for("prop4.floor")}
    assert set(cals) == {"prop4.c4", "prop4.head_factor"}
    floor_cases = results.check("prop4.floor").cases
    cases = floor_cases(Profile.DEFAULT, constants(), {})
    inside = [c.params for c in cases if any(cal.calibration(c.params) for cal in cals.values())]
    assert {(p["d"], p["H"]) for p in inside} == {(4, 1), (4, 2)}
    assert all(not cals["prop4.head_factor"].calibration(c.params)
               for c in floor_cases(Profile.QUICK, constants(), {}))


def test_a_larger_head_factor_fails_on_a_held_out_d():
    """proofs/prop4.md: head_factor = 2 admits H = 6 heads at d = 9 (held out), whose floor 0.0964
    (one group of symbols per head) is below c4: the held-out cases can refute the constant."""
    c = constants(prop4__head_factor=2)
    floor = results.check("prop4.floor")
    case = next(k for k in floor.cases(Profile.DEFAULT, c, {"d": [9]}) if k.params["H"] == 6)
    assert not prop4.head_factor_calibrated(case.params)
    out = floor.judge(Case(case.label, {**case.params, "budget": 14, "levels": (10.0,)}), c)
    assert out.passed is False and round(out.values["floor"], 4) == 0.0964
