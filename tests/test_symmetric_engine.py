"""The four-scalar population engine against independent routes (issue: cross-validation a–f)."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from verify.engine import symbolic
from verify.engine.distribution import WordDistribution, labels
from verify.engine.enumeration import symmetric_truth
from verify.engine.expectations import symmetric_moments
from verify.engine.model import predict, squared_loss
from verify.engine.symmetric import SymmetricPoint, attention_state, evaluate, output_gradient_system

POINTS = [
    (3, "0.5", "-0.2", "1.3", "0.4"),
    (4, "3", "0", "2", "0.1"),
    (3, "-2", "1", "-1", "2"),
    (3, "30", "0", "2", "0"),
    (5, "0", "0", "0", "0"),
]


@pytest.mark.parametrize("d,a_s,a_j,b_s,b_j", POINTS)
def test_matches_exhaustive_enumeration(d, a_s, a_j, b_s, b_j):
    """(a) exact enumeration of (length, target count) with rational weights and a tail bound."""
    dps = 40
    ev = evaluate(SymmetricPoint(d, a_s, a_j, b_s, b_j), dps)
    truth = symmetric_truth(d, a_s, a_j, b_s, b_j, L=500, dps=dps)
    with mpmath.workdps(dps + 10):
        tol = truth.tail_bound["loss"] + ev.error["loss"] + mpmath.mpf(10) ** -dps * (1 + abs(ev.loss))
        assert abs(ev.loss - truth.loss) <= tol
        for key in ev.grad:
            t = getattr(truth, "grad_" + key)
            tol = truth.error_bound("grad_" + key) + ev.error[key] + mpmath.mpf(10) ** -dps * (1 + abs(t))
            assert abs(ev.grad[key] - t) <= tol, key


@pytest.mark.parametrize("family", ["mu", "nu"])
@pytest.mark.parametrize("d,gap", [(3, "0"), (4, "2.5"), (5, "-3"), (3, "40"), (3, "-40")])
def test_moments_match_enumeration(family, d, gap):
    mom = symmetric_moments(d, gap, family, order=4, dps=50)
    truth = symmetric_truth(d, gap, 0, 0, 0, L=700, dps=50)
    ref = truth.mu if family == "mu" else truth.nu
    with mpmath.workdps(60):
        for r in range(1, 5):
            # the wrong family at a large |gap| is a difference of nearly equal numbers; allow the
            # loss of log10(e^|gap|) digits there, nothing else
            slack = mpmath.mpf(10) ** (-45)
            assert abs(mom.values[r - 1] - ref[r]) <= slack * abs(ref[r]) + truth.tail_bound["mu"]


def test_monte_carlo_agrees():
    """(b) 2e5 sampled words through the numpy model: the loss within 5 standard errors."""
    d, s = 6, 0
    rng = np.random.default_rng(20261130)
    counts = WordDistribution(d).sample_counts(rng, 200_000)
    y = labels(counts, s)
    alpha = np.zeros(d)
    alpha[s] = 1.5
    beta = np.full(d, 0.3)
    beta[s] = 1.7
    losses = squared_loss(predict(counts, alpha, beta), y)
    ev = evaluate(SymmetricPoint(d, "1.5", "0", "1.7", "0.3"), 20)
    se = losses.std(ddof=1) / np.sqrt(len(losses))
    assert abs(losses.mean() - float(ev.loss)) < 5 * se


@pytest.mark.parametrize("d,point", [(4, ("0.7", "-0.3", "1.1", "0.2")), (7, ("-1", "0.5", "2", "-0.5")),
                                     (3, ("12", "0", "1.9", "0.1"))])
def test_gradient_equals_finite_differences(d, point):
    """(d) central differences of the loss at 40 digits; background partials are the tied
    derivative divided by d - 1."""
    dps = 40
    base = dict(zip(("alpha_s", "alpha_j", "beta_s", "beta_j"), point))
    ev = evaluate(SymmetricPoint(d, **base), dps)
    h = mpmath.mpf(10) ** -12
    with mpmath.workdps(dps + 10):
        for key in base:
            plus, minus = dict(base), dict(base)
            plus[key] = mpmath.mpf(base[key]) + h
            minus[key] = mpmath.mpf(base[key]) - h
            fd = (evaluate(SymmetricPoint(d, **plus), dps).loss
                  - evaluate(SymmetricPoint(d, **minus), dps).loss) / (2 * h)
            per_coordinate = fd / (d - 1) if key.endswith("_j") else fd
            assert abs(per_coordinate - ev.grad[key]) < mpmath.mpf(10) ** -20, key


def test_hand_values_at_origin():
    """Notes section 3: at alpha = beta = 0, dL/dbeta_s = -2/d, dL/dbeta_j = -(d-2)/(d(d-1))."""
    for d in (2, 3, 10, 1000):
        ev = evaluate(SymmetricPoint(d), 30)
        with mpmath.workdps(30):
            assert abs(ev.grad["beta_s"] + mpmath.mpf(2) / d) < mpmath.mpf(10) ** -28
            assert abs(ev.grad["beta_j"] + mpmath.mpf(d - 2) / (d * (d - 1))) < mpmath.mpf(10) ** -28
            assert abs(ev.loss - mpmath.mpf(1)) < mpmath.mpf(10) ** -28  # f = -1: loss = P(y=1)*2


def test_symbolic_closed_forms_match_engine():
    """Phases 1-2 at alpha = 0 in closed form (SymPy sums over the length) against the engine."""
    cf = symbolic.three_phase_closed_forms()
    for d_val, eta_val in ((3, "0.5"), (10, "2"), (1000, "30")):
        subs = {symbolic.d: d_val, symbolic.eta1: sp.Rational(eta_val)}
        b1s = sp.N(cf["beta1_s"].subs(subs), 40)
        b1j = sp.N(cf["beta1_j"].subs(subs), 40)
        ev = evaluate(SymmetricPoint(d_val, 0, 0, str(b1s), str(b1j)), 35)
        with mpmath.workdps(35):
            assert abs(mpmath.mpf(str(sp.N(cf["grad2_alpha_s"].subs(subs), 40))) - ev.grad["alpha_s"]) < 1e-30
            assert abs(mpmath.mpf(str(sp.N(cf["grad2_alpha_j"].subs(subs), 40))) - ev.grad["alpha_j"]) < 1e-30
        origin = evaluate(SymmetricPoint(d_val), 35)
        with mpmath.workdps(35):
            assert abs(mpmath.mpf(str(b1s)) + mpmath.mpf(eta_val) * origin.grad["beta_s"]) < 1e-30


def test_zero_attention_moments_closed_form():
    mus = symbolic.moments_at_zero_attention(3)
    for d_val in (3, 7, 100):
        mom = symmetric_moments(d_val, 0, "mu", 3, 40)
        for r in range(3):
            with mpmath.workdps(40):
                exact = mpmath.mpf(str(sp.N(mus[r].subs(symbolic.d, d_val), 45)))
                assert abs(mom.values[r] - exact) < mpmath.mpf(10) ** -35 * exact


def test_probability_positive_is_half():
    assert sp.simplify(symbolic.prob_positive() - sp.Rational(1, 2)) == 0


@pytest.mark.parametrize("d", [2, 3, 10**9])
@pytest.mark.parametrize("gap", ["-200", "200"])
def test_extremes_two_precisions(d, gap):
    """(f) gap +-200, d = 2, 3, 1e9: 15 and 100 digits agree to 15 digits, and the quadrature's
    error estimate at 15 digits covers its actual error (measured against 100 digits)."""
    point = SymmetricPoint(d, gap, "0", "2", "0.25")
    low, high = evaluate(point, 15), evaluate(point, 100)
    with mpmath.workdps(110):
        for key in ("loss", "alpha_s", "beta_s", "beta_j"):
            lo = low.loss if key == "loss" else low.grad[key]
            hi = high.loss if key == "loss" else high.grad[key]
            assert abs(lo - hi) <= mpmath.mpf(10) ** -14 * abs(hi) + low.error[key] + 1e-300, key
    with mpmath.workdps(110):
        assert high.loss >= 0


@pytest.mark.parametrize("d,gap,family,dps", [(10**9, "14.2", "nu", 15), (1000, "120", "nu", 50),
                                               (10, "120", "mu", 50), (50, "40", "nu", 50)])
def test_large_gap_moments_reach_their_tolerance(d, gap, family, dps):
    """Each moment within its tolerance 10^-(dps+2) (relative) of the same moment at dps + 40.
    Red when the range runs on to the far scale 1/c_back where the integrand is long dead (the
    engine until 2026-12-05: the log-scale interval [1, e^gap] left errors up to 58x the
    tolerance, 5.8e-16 at d = 10^9, gap 14.2, 15 digits)."""
    g = mpmath.mpf(gap)
    low, high = symmetric_moments(d, g, family, 3, dps), symmetric_moments(d, g, family, 3, dps + 40)
    with mpmath.workdps(dps + 60):
        for lo, hi in zip(low.values, high.values):
            assert abs(lo - hi) <= mpmath.mpf(10) ** -(dps + 2) * abs(hi)


def test_large_gap_loss_keeps_digits():
    """Prototype trap (notes section 4): at a = e^80 the loss ~ e^-160 must stay positive and exact."""
    point = SymmetricPoint(3, "80", "0", "2", "0")
    a, b = evaluate(point, 30), evaluate(point, 60)
    with mpmath.workdps(60):
        assert a.loss > 0
        assert abs(a.loss - b.loss) < mpmath.mpf(10) ** -28 * b.loss


def test_output_gradient_system_is_the_gradient():
    d, gap = 6, "1.3"
    with mpmath.workdps(40):
        A, c = output_gradient_system(attention_state(d, mpmath.mpf(gap), 30))
    ev = evaluate(SymmetricPoint(d, gap, 0, "0.7", "-0.4"), 30)
    with mpmath.workdps(30):
        g = A * mpmath.matrix(["0.7", "-0.4"]) - c
        assert abs(g[0] - ev.grad["beta_s"]) < 1e-25
        assert abs(g[1] - ev.grad["beta_j"]) < 1e-25
