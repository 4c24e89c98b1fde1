"""Finite-sample three-phase plan (verify.engine.sampling) and Corollary 1's sample checks."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.checks import Case, Profile
from verify.constants import load, values
from verify.engine import general, model, sampling
from verify.engine.distribution import labels
from verify.results import cor1_samples


def constants(**overrides):
    c = values(load())
    c.update({k.replace("__", "."): Fraction(v) for k, v in overrides.items()})
    return c


def _plan(d=6, N1=30, N3=9, T=50, eta2=40.0, s=0):
    return sampling.Plan(d, s, math.sqrt(d), eta2, 1.0, T, N1, N3)


def test_training_is_reproducible_per_repetition():
    plan = _plan()
    a = sampling.train(plan, seed=7, R=6)
    b = sampling.train(plan, seed=7, R=6)
    for x, y in ((a.alpha, b.alpha), (a.beta1, b.beta1), (a.beta, b.beta)):
        assert np.array_equal(x, y)
    c = sampling.train(plan, seed=8, R=6)
    assert not np.array_equal(a.alpha, c.alpha)
    # repetition r's words do not depend on the batch it is drawn in
    c1, c3 = sampling.draw_samples(plan.d, 7, 6, plan.N1, plan.N3, first=4, count=2)
    full1, full3 = sampling.draw_samples(plan.d, 7, 6, plan.N1, plan.N3)
    assert np.array_equal(c1, full1[4:]) and np.array_equal(c3, full3[4:])


def test_prefix_property_common_random_numbers():
    small, _ = sampling.draw_samples(5, 3, 4, 10, 2)
    large, _ = sampling.draw_samples(5, 3, 4, 150, 2)
    assert np.array_equal(small, large[:, :10])


def test_batched_phases_match_the_model_gradient():
    plan = _plan(d=5, N1=40, N3=12)
    c1, c3 = sampling.draw_samples(plan.d, 11, 3, plan.N1, plan.N3)
    beta1 = sampling.phase1(c1, plan.s, plan.eta1)
    alpha = sampling.phase2(c1, plan.s, beta1, plan.eta2)
    zero = np.zeros(plan.d)
    for r in range(3):
        y = labels(c1[r], plan.s)
        _, _, gb = model.empirical_risk_and_grad(c1[r], y, zero, zero)
        assert np.allclose(beta1[r], -plan.eta1 * gb, rtol=1e-13, atol=1e-15)
        _, ga, _ = model.empirical_risk_and_grad(c1[r], y, zero, beta1[r])
        assert np.allclose(alpha[r], -plan.eta2 * ga, rtol=1e-12, atol=1e-13)
        assert abs(alpha[r].sum()) < 1e-9  # softmax shift invariance
        # Phase 3: T explicit GD steps with the model's gradient
        y3 = labels(c3[r], plan.s)
        beta = beta1[r].copy()
        for _ in range(plan.T):
            beta -= plan.eta3 * model.empirical_risk_and_grad(c3[r], y3, alpha[r], beta)[2]
        out = sampling.phase3(c3[r:r + 1], plan.s, alpha[r:r + 1], beta1[r:r + 1], plan.eta3, plan.T)
        assert np.allclose(out[0], beta, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("N3", [3, 40])  # N3 < d (singular M) and N3 >= d
def test_phase3_closed_form_matches_the_loop(N3):
    d = 8
    c1, c3 = sampling.draw_samples(d, 5, 4, 30, N3)
    beta1 = sampling.phase1(c1, 0, math.sqrt(d))
    alpha = sampling.phase2(c1, 0, beta1, 100.0)
    for T in (0, 1, 7, 300):
        a = sampling.phase3(c3, 0, alpha, beta1, 1.0, T)
        b = sampling.phase3_loop(c3, 0, alpha, beta1, 1.0, T)
        assert np.allclose(a, b, rtol=1e-9, atol=1e-10), T


def test_sampled_phase1_gradient_is_unbiased():
    """Mean over R repetitions of beta' against the population Phase 1 (engine and closed form):
    the empirical gradient is a mean of i.i.d. per-word gradients, so beta' is unbiased."""
    d, N1, R, eta1 = 5, 20, 1500, 1.0
    c1, _ = sampling.draw_samples(d, 2024, R, N1, 1)
    beta1 = sampling.phase1(c1, 0, eta1)
    # population Phase 1, per coordinate, from the general engine at the origin (the symmetric
    # engine's SymPy derivation is too slow for a unit test), against the closed forms
    pop = -eta1 * general.evaluate_float(d, 0, np.zeros(d), np.zeros(d)).grad_beta
    assert pop[0] == pytest.approx(2 * eta1 / d, rel=1e-10)
    assert np.allclose(pop[1:], eta1 * (d - 2) / (d * (d - 1)), rtol=1e-10)
    mean = beta1.mean(axis=0)
    se = beta1.std(axis=0, ddof=1) / math.sqrt(R)
    truth = pop
    z = np.abs(mean - truth) / se
    assert np.all(z < 4.5), (mean, truth, z)  # per coordinate; ~1e-5 false-alarm rate each


def test_clopper_pearson_known_values():
    lo, hi = sampling.clopper_pearson(0, 10)
    assert lo == 0 and hi == pytest.approx(1 - 0.025 ** 0.1, abs=1e-9)
    lo, hi = sampling.clopper_pearson(10, 10)
    assert hi == 1 and lo == pytest.approx(0.025 ** 0.1, abs=1e-9)
    lo, hi = sampling.clopper_pearson(5, 10)
    assert lo == pytest.approx(0.187086, abs=1e-6) and hi == pytest.approx(0.812914, abs=1e-6)
    lo, hi = sampling.clopper_pearson(3, 20)
    lo2, hi2 = sampling.clopper_pearson(17, 20)
    assert lo == pytest.approx(1 - hi2, abs=1e-10) and hi == pytest.approx(1 - lo2, abs=1e-10)
    with mpmath.workdps(30):  # the defining equations at the ends
        assert float(mpmath.betainc(4, 17, 0, hi, regularized=True)) == pytest.approx(0.975, abs=1e-9)


def test_borderline_risk_is_reevaluated_at_high_precision():
    plan = _plan(d=4, N1=20, N3=8)
    tr = sampling.train(plan, 3, 1)
    fast = sampling.population_risk(4, 0, tr.alpha[0], tr.beta[0])
    assert fast.method == "float64"
    slow = sampling.population_risk(4, 0, tr.alpha[0], tr.beta[0], threshold=fast.value * 1.05)
    assert slow.method.startswith("mpmath")
    assert slow.value == pytest.approx(fast.value, rel=1e-9, abs=1e-12)


def test_samples_check_fails_with_too_few_samples():
    check = {c.id: c for c in cor1_samples.CHECKS}["cor1.samples"]
    case = Case("d=10, eps=0.5, c=2", {"d": 10, "eps": 0.5, "c": "2", "R": 220,
                                       "seed": cor1_samples.seed_for(10, 0.5)})
    ok = check.judge(case, constants(cor1__repetitions="220"))
    assert ok.passed is True and ok.evidence.value == "statistical" and "power" in ok.detail
    assert check.judge(case, constants(cor1__C="1/1000")).passed is False


def test_statistical_verdict_fails_passes_or_is_undecided():
    c = constants()
    goal = 0.7
    assert cor1_samples.verdict(50, 100, goal, c)[0] is False  # upper end < 0.7
    R = cor1_samples.repetitions(goal, c)

    def powers(n):
        return sampling.power_to_reject(goal, 0.65, n), sampling.power_to_confirm(0.65, goal, n)

    assert min(powers(R)) >= 0.9 > min(powers(R - 10))
    assert cor1_samples.verdict(R, R, goal, c)[0] is True
    assert cor1_samples.verdict(int(0.68 * R), R, goal, c)[0] is None  # neither end decides
    assert cor1_samples.verdict(20, 20, goal, c)[0] is None  # all succeed, but underpowered


def test_the_R_rule_makes_a_pass_reachable_near_one():
    """With the absolute zone (cor1.fail_factor so large that delta = cor1.delta = 0.05) at
    pi = 1 - 3/100^2: the power to reject alone is reached at R = 50, where even 50 of 50 have a
    CP lower end (0.929) below the pass line pi - delta = 0.9497: the case could never pass.
    The rule also asks for power to pass when the claim holds with P = pi."""
    c = constants(cor1__fail_factor="1000")
    goal = cor1_samples.target(100, c, 2)
    delta = cor1_samples.indifference(goal, c)
    assert delta == 0.05
    assert sampling.power_to_reject(goal, goal - delta, 50) >= 0.9  # the one-sided rule's R
    assert sampling.power_to_confirm(goal - delta, goal, 50) == 0.0
    assert cor1_samples.verdict(50, 50, goal, c)[0] is None
    R = cor1_samples.repetitions(goal, c)
    assert R == 80 and sampling.clopper_pearson(R, R)[0] >= goal - delta
    assert cor1_samples.verdict(R, R, goal, c)[0] is True


def test_the_indifference_zone_is_relative_to_the_claimed_failure_probability():
    """Issue 26, item 2: at c = 2, d = 50 the claimed failure probability is q0 = 0.0012; the
    absolute zone (0.05) took R = 80, which passes a true failure rate of 1% (8 q0) with
    probability 0.45.  The relative zone (k = 3) takes R = 4380: it passes at 3 q0 with
    probability <= 0.1 (power 0.9 to reject it), at 1% practically never, and at q0 with
    probability >= 0.9."""
    c = constants()
    goal = cor1_samples.target(50, c, 2)
    q0 = 1 - goal
    old_line = goal - 0.05
    assert sampling.power_to_confirm(old_line, 0.99, 80) > 0.4  # the lenient rule: passes 1%
    assert cor1_samples.indifference(goal, c) == 2 * q0
    R = cor1_samples.repetitions(goal, c)
    line = goal - 2 * q0
    assert R == 4380
    assert sampling.power_to_reject(goal, line, R) >= 0.9
    assert sampling.power_to_confirm(line, 1 - 3 * q0, R) <= 0.1
    assert sampling.power_to_confirm(line, 0.99, R) < 1e-6
    assert sampling.power_to_confirm(line, goal, R) >= 0.9
    assert cor1_samples.repetitions(cor1_samples.target(30, c, 2), c) == 1580
    # where k q0 is large the absolute zone still binds: pi = 0.7 keeps delta = 0.05, R = 950
    assert cor1_samples.indifference(0.7, c) == 0.05 and cor1_samples.repetitions(0.7, c) == 950
    passed, text = cor1_samples.verdict(R, R, goal, c)
    assert passed is True and f"{R}/{R}" in text and "(= 3 q0)" in text and "CLAIM TESTED" not in text


def test_a_capped_R_states_the_weaker_claim_it_tests():
    """c = 2 at d = 200 (q0 = 7.5e-5) would need about 76,000 repetitions for k = 3: R stops at
    cor1.max_repetitions and the row says which failure probability it can tell from q0."""
    c = constants()
    goal = cor1_samples.target(200, c, 2)
    R = cor1_samples.repetitions(goal, c)
    assert R == 5000
    line, widened = cor1_samples.tested_line(goal, R, c)
    assert widened and 14 < (1 - line) / (1 - goal) < 16
    passed, text = cor1_samples.verdict(R, R, goal, c)
    assert passed is True and text.startswith("CLAIM TESTED: failure probability <= 14.9 x 3d^-c")
    assert cor1_samples.verdict(R - 2, R, goal, c)[0] is not True  # two failures: no pass
    # an R set by hand is never widened: underpowered, undecided unless it fails
    hand = constants(cor1__repetitions="5000")
    assert cor1_samples.tested_line(goal, 5000, hand)[1] is False
    assert cor1_samples.verdict(5000, 5000, goal, hand)[0] is None


def test_power_to_confirm_is_the_binomial_mass_of_the_passing_counts():
    from scipy.stats import binom

    n, line, truth = 37, 0.8, 0.93
    direct = sum(binom.pmf(k, n, truth) for k in range(n + 1)
                 if sampling.clopper_pearson(k, n)[0] >= line)
    assert 0 < direct < 1
    assert sampling.power_to_confirm(line, truth, n) == pytest.approx(direct, abs=1e-12)
    assert sampling.power_to_confirm(0.99, truth, n) == 0.0  # 37/37 stays below 0.99


def test_vacuous_target_is_not_a_pass():
    check = {c.id: c for c in cor1_samples.CHECKS}["cor1.samples"]
    case = Case("d=3, eps=0.5, c=1", {"d": 3, "eps": 0.5, "c": "1", "R": 0, "seed": 1})
    out = check.judge(case, constants())
    assert out.vacuous and out.passed is None and not out.counted


def test_clopper_pearson_matches_the_boundaries_of_the_power_rule():
    """The power rule's bisections over k find where clopper_pearson's ends cross the line."""
    n, goal, line = 37, 0.9, 0.8
    k = sampling.largest_rejecting(goal, n)
    assert sampling.clopper_pearson(k, n)[1] < goal <= sampling.clopper_pearson(k + 1, n)[1]
    j = sampling.smallest_confirming(line, n)
    assert sampling.clopper_pearson(j - 1, n)[0] < line <= sampling.clopper_pearson(j, n)[0]
    assert sampling.smallest_confirming(0.99, n) == n + 1 and sampling.largest_rejecting(0.01, n) == -1


def test_quick_profile_cases_and_scan_case():
    cases = {c.id: c for c in cor1_samples.CHECKS}["cor1.samples"].cases(Profile.QUICK, constants(), {})
    assert sorted({c.params["c"] for c in cases}) == ["1", "1/2", "2"]
    assert all(c.params["R"] == 0 for c in cases if c.params["d"] == 3 and c.params["c"] != "2")
    C, seen = cor1_samples.smallest_C(10, 0.5, constants(), 20, 1, grid=[1 / 64, 1, 16])
    assert math.isfinite(C) and seen[C]["p"] >= cor1_samples.target(10, constants())


def test_sweep_claims_only_inside_the_hypotheses():
    """N1 = d ln d/16 at d = 10 succeeds in ~15% of runs: an exhibit row below C = cor1.C, and a
    failure once a mutated cor1.C = 1/1000 puts that size inside the corollary's hypotheses."""
    check = {c.id: c for c in cor1_samples.CHECKS}["cor1.sample_sweep"]
    case = Case("d=10, eps=0.1, N1 = 1/16", {"d": 10, "eps": 0.1, "axis": "N1", "factor": 1 / 16,
                                              "R": 40, "seed": cor1_samples.seed_for(10, 0.1, salt=2)})
    below = check.judge(case, constants())
    assert below.passed is None and below.evidence.value == "exhibit" and "no claim" in below.detail
    assert below.values["claim"].startswith("no") and below.values["p"] < 0.5
    inside = check.judge(case, constants(cor1__C="1/1000"))
    assert inside.passed is False and inside.values["claim"] == "yes"


def test_plot_writes_png(tmp_path):
    rows = [dict(axis=a, factor=f, scaled=f, d=5, eps=0.5, target=0.4, p=0.5, lo=0.3, hi=0.7)
            for a in ("N1", "N3") for f in (0.5, 1.0)]
    path = tmp_path / "picture.png"
    fig = cor1_samples.plot_sample_complexity(rows)
    fig.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(fig.axes) == 2


def test_plan_is_equivariant_under_relabelling_the_alphabet():
    """Permuting the symbols (target s -> perm[s]) permutes what is learned and leaves the
    population risk unchanged: the success probability does not depend on s."""
    d, s = 6, 0
    perm = np.array([4, 0, 5, 1, 3, 2])  # symbol i becomes perm[i]
    c1, c3 = sampling.draw_samples(d, 9, 2, 30, 8)
    p1, p3 = np.empty_like(c1), np.empty_like(c3)
    p1[..., perm], p3[..., perm] = c1, c3
    b1 = sampling.phase1(c1, s, 2.0)
    a = sampling.phase2(c1, s, b1, 50.0)
    b = sampling.phase3(c3, s, a, b1, 1.0, 40)
    t = int(perm[s])
    b1p = sampling.phase1(p1, t, 2.0)
    ap = sampling.phase2(p1, t, b1p, 50.0)
    bp = sampling.phase3(p3, t, ap, b1p, 1.0, 40)
    assert np.allclose(b1p[:, perm], b1) and np.allclose(ap[:, perm], a) and np.allclose(bp[:, perm], b)
    L = sampling.population_risk(d, s, a[0], b[0]).value
    Lp = sampling.population_risk(d, t, ap[0], bp[0]).value
    assert Lp == pytest.approx(L, rel=1e-10)


def test_cor1_C_source_figure():
    """proofs/constants.toml: the smallest C on the grid 2^(k/2) meeting 1 - 3/d at d = 10,
    eps = 0.1 is 1 (cor1.sample_C's full-profile scan: R = 200, its seed), so cor1.C = 2 is a
    margin of x2 there."""
    R = cor1_samples.SCAN_R[Profile.FULL]
    C, seen = cor1_samples.smallest_C(10, 0.1, constants(), R, cor1_samples.seed_for(10, 0.1, salt=1))
    assert C == 1.0 and seen[1.0]["p"] >= 0.7 > seen[2 ** -0.5]["p"]


def test_the_constant_grows_with_c_and_the_samples_check_uses_it():
    """C(c) = cor1.C max(1, c): c = 1/2 and 1 share cor1.C, c = 2 doubles it (eta2, N1, N3)."""
    c = constants()
    assert [cor1_samples.sample_constant(x, c) for x in ("1/2", "1", "2")] == [2, 2, 4]
    assert cor1_samples.sample_constant("2", constants(cor1__C="3")) == 6
    case = Case("d=10, eps=0.5, c=2", {"d": 10, "eps": 0.5, "c": "2", "R": 20,
                                       "seed": cor1_samples.seed_for(10, 0.5)})
    out = {c.id: c for c in cor1_samples.CHECKS}["cor1.samples"].judge(case, constants(cor1__repetitions="20"))
    plan = cor1_samples.plan_for(10, 0.5, c, C=4)
    assert "C(c) = 4," in out.detail and f"N1 = {plan.N1}, N3 = {plan.N3}" in out.detail


def test_cor1_C_is_calibrated_on_cases_disjoint_from_the_judged_ones():
    """The scan's (d, eps) are in-sample for cor1.C and its rule; eps = 0.01 and 0.5, d = 3, and
    every interior schedule are held out (the c = 2 case at d = 10, eps = 0.01 among them)."""
    cases = {c.id: c for c in cor1_samples.CHECKS}["cor1.samples"].cases(Profile.DEFAULT, constants(), {})
    inside = {(c.params["d"], c.params["eps"]) for c in cases if cor1_samples.calibrated(c.params)}
    assert inside == {(d, 0.1) for d in (5, 10, 30, 50)}
    assert not cor1_samples.calibrated({"d": 10, "eps": 0.01, "c": "2"})
    assert not cor1_samples.calibrated({"d": 10, "eps": 0.1, "eta1": "1", "above": 1})
    scan = {c.id: c for c in cor1_samples.CHECKS}["cor1.sample_C"].cases(Profile.FULL, constants(), {})
    assert {c.params["seed"] for c in scan}.isdisjoint({c.params["seed"] for c in cases})


def test_cor1_C_rule_at_c2():
    """proofs/constants.toml: at c = 2, d = 10, eps = 0.001 (a calibration case, the scan's seed,
    R = 200) sqrt 2 falls short of 1 - 3/d^2 = 0.97 and C = 2 meets it, so C(2) = 4 is a
    margin of x2 there."""
    c = constants(cor1__c="2")
    C, seen = cor1_samples.smallest_C(10, 0.001, c, 200, cor1_samples.seed_for(10, 0.001, salt=1),
                                      grid=[2 ** 0.5, 2.0])
    assert C == 2.0 and seen[C]["k"] == 196 and seen[2 ** 0.5]["k"] == 181


@pytest.mark.parametrize("spread", [0.0, 30.0, 1000.0, 5000.0])
def test_phase3_attention_matches_the_per_word_softmax(spread):
    """_softmax_counts (weights formed once per repetition, words below TINY recomputed with
    their own shift) against the softmax of each word with its own largest logit: at spreads
    beyond 575 every word without the top symbols takes the second path.  Agreement to 1e-12
    relative and 1e-15 absolute: a weight below 2e-308 times the repetition's largest is
    subnormal, so a component under about 1e-150 may keep only a few digits (it enters every
    later sum as an absolute amount)."""
    rng = np.random.default_rng(3)
    R, N, d = 3, 40, 6
    counts = rng.integers(0, 3, size=(R, N, d)).astype(np.float64)
    counts[counts.sum(axis=-1) == 0] = 1.0
    alpha = -spread * rng.random((R, d))
    got = sampling._softmax_counts(counts, alpha)
    for r in range(R):
        for n in range(N):
            present = counts[r, n] > 0
            top = alpha[r][present].max()
            w = np.where(present, counts[r, n] * np.exp(np.where(present, alpha[r] - top, 0.0)), 0.0)
            assert np.allclose(got[r, n], w / w.sum(), rtol=1e-12, atol=1e-15)
