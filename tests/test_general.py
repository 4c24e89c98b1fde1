"""The general-attention engine (verify.engine.general) against independent routes.

(a) exact enumeration of count vectors, (b) the background-symmetric engine and the SymPy
reduction, (c) central finite differences, (d) float64 path vs mpmath path, (e) Monte Carlo,
(f) the minimiser over beta, (g) extreme logits; then the H-head blocks.
"""
import random

import mpmath
import numpy as np
import pytest

from verify.engine import general as G
from verify.engine import symbolic
from verify.engine.distribution import WordDistribution, labels
from verify.engine.enumeration import general_truth
from verify.engine.expectations import symmetric_moments
from verify.engine.model import attention, attention_heads


def _point(d, seed, spread="2"):
    """A reproducible non-symmetric (alpha, beta) as decimal strings."""
    rng = random.Random(seed)
    alpha = [f"{rng.uniform(-float(spread), float(spread)):.6f}" for _ in range(d)]
    beta = [f"{rng.uniform(-1.0, 3.0):.6f}" for _ in range(d)]
    return alpha, beta


def _f(x):
    return np.array([float(v) for v in x])


# ----------------------------------------------------------------------------- validation


@pytest.mark.parametrize("call", [
    lambda: G.moments(1, 0, [0]),
    lambda: G.moments(3, 3, [0, 0, 0]),
    lambda: G.moments(3, -1, [0, 0, 0]),
    lambda: G.moments(3, 0, [0, 0]),
    lambda: G.moments(3, 0, [0, 0, "inf"]),
    lambda: G.moments(3, 0, [0, 0, 0], dps=3),
    lambda: G.moments(3, 0, [0, 0, 0], second="upper"),
    lambda: G.evaluate(3, 0, [0, 0, 0], [1, 2]),
    lambda: G.moments_float(3, 0, [0, 0]),
    lambda: G.evaluate_float(3, 5, [0, 0, 0], [0, 0, 0]),
    lambda: G.head_moments_float(3, 0, [[0, 0, 0], [0, 0]]),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError) as info:
        call()
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------- (a) enumeration, d = 3


@pytest.mark.parametrize("s, seed", [(0, 11), (1, 12), (2, 13)])
def test_matches_enumeration_d3(s, seed):
    """E[gamma], E[gamma gamma^T], E[gamma Y], loss and full gradient vs exact enumeration."""
    d, dps = 3, 25
    alpha, beta = _point(d, seed)
    truth = general_truth(d, s, alpha, beta, L=70, dps=20)
    mom = G.moments(d, s, alpha, dps)
    ev = G.evaluate(d, s, alpha, beta, dps)
    terms = G.gradient_terms(d, s, alpha, beta, dps)
    with mpmath.workdps(40):
        slack = mpmath.mpf(10) ** -22

        def check(value, exact, name, err):
            bound = truth.error_bound(name) + err + slack * (1 + abs(exact))
            assert abs(value - exact) <= bound, (name, value, exact, bound)

        for i in range(d):
            check(mom.mean[i], truth.mean_gamma[i], "mean_gamma", mom.errors["mean"][i])
            check(mom.mean_positive[i], truth.mean_gamma_positive[i], "mean_gamma_positive",
                  mom.errors["mean_positive"][i])
            for j in range(d):
                check(mom.second[i, j], truth.second_moment[i, j], "second_moment",
                      mom.errors["second"][i, j])
            check(ev.grad_alpha[i], truth.grad_alpha[i], "grad_alpha", ev.grad_alpha_error[i])
            check(ev.grad_beta[i], truth.grad_beta[i], "grad_beta", ev.grad_beta_error[i])
            # the brief's combination of all-words moments gives the same gradient
            check(terms.grad_alpha[i], truth.grad_alpha[i], "grad_alpha",
                  terms.errors["grad_alpha"][i])
            check(terms.mean_positive[i], truth.mean_gamma_positive[i], "mean_gamma_positive",
                  terms.errors["mean_positive"][i])
        check(ev.loss, truth.loss, "loss", ev.loss_error)
        # the two formulas for the loss agree: 1/2 b'Mb - 2 b'm_+ + 1
        b = [mpmath.mpf(x) for x in beta]
        quad = sum(b[i] * mom.second[i, j] * b[j] for i in range(d) for j in range(d))
        formula = quad / 2 - 2 * sum(x * y for x, y in zip(b, mom.mean_positive)) + 1
        assert abs(formula - ev.loss) < mpmath.mpf(10) ** -23
        # shift invariance of the softmax: the attention gradient sums to zero
        assert abs(sum(ev.grad_alpha)) < mpmath.mpf(10) ** -25


# ------------------------------------------------------------- (b) background-symmetric points


@pytest.mark.parametrize("d, gap, b_s, b_j", [(5, "1.5", "1.7", "0.3"), (5, "-2", "0.4", "1.1")])
def test_symmetric_point_full_matrix(d, gap, b_s, b_j):
    """mu_r, nu_r of expectations.symmetric_moments and the SymPy reduction, d = 5."""
    s, dps = 2, 20
    alpha = ["0"] * d
    alpha[s] = gap
    beta = [b_j] * d
    beta[s] = b_s
    mu = symmetric_moments(d, gap, "mu", order=4, dps=dps).values
    nu = symmetric_moments(d, gap, "nu", order=1, dps=dps).values
    mom = G.moments(d, s, alpha, dps)
    tol = mpmath.mpf(10) ** -(dps - 2)
    with mpmath.workdps(dps + 10):
        assert abs(mom.mean[s] - mu[0]) < tol
        assert abs(mom.mean_positive[s] - mu[0]) < tol
        assert abs(mom.second[s, s] - mu[1]) < tol
        for j in range(d):
            if j == s:
                continue
            assert abs(mom.mean[j] - (1 - mu[0]) / (d - 1)) < tol
            assert abs(mom.mean_positive[j] - nu[0] / (d - 1)) < tol
            assert abs(mom.second[s, j] - (mu[0] - mu[1]) / (d - 1)) < tol
        _check_reduction(d, s, alpha, beta, b_s, b_j, mu, dps)


def _check_reduction(d, s, alpha, beta, b_s, b_j, mu, dps):
    fn = symbolic.lambdify_reduction("mu")
    ev = G.evaluate(d, s, alpha, beta, dps)
    with mpmath.workdps(dps + 10):
        loss, g_as, g_aj, g_bs, g_bj = fn(d, mpmath.mpf(b_s), mpmath.mpf(b_j), *mu)
        tol = mpmath.mpf(10) ** -(dps - 3)
        assert abs(ev.loss - loss) < tol
        assert abs(ev.grad_alpha[s] - g_as) < tol
        assert abs(ev.grad_beta[s] - g_bs) < tol
        for j in range(d):
            if j != s:
                assert abs(ev.grad_alpha[j] - g_aj) < tol
                assert abs(ev.grad_beta[j] - g_bj) < tol


def test_symmetric_point_d50():
    """d = 50 (vectors and the diagonal only: O(d) per node), loss and gradient."""
    d, s, dps, gap, b_s, b_j = 50, 7, 20, "2.5", "1.9", "0.2"
    alpha = ["0"] * d
    alpha[s] = gap
    beta = [b_j] * d
    beta[s] = b_s
    mu = symmetric_moments(d, gap, "mu", order=4, dps=dps).values
    nu = symmetric_moments(d, gap, "nu", order=2, dps=dps).values
    mom = G.moments(d, s, alpha, dps, second="diagonal")
    assert mom.second is None
    tol = mpmath.mpf(10) ** -(dps - 2)
    with mpmath.workdps(dps + 10):
        assert abs(mom.mean_positive[s] - mu[0]) < tol
        assert abs(mom.second_diagonal[s] - mu[1]) < tol
        assert abs(mom.mean_positive[0] - nu[0] / (d - 1)) < tol
        assert abs(mom.mean[d - 1] - (1 - mu[0]) / (d - 1)) < tol
    _check_reduction(d, s, alpha, beta, b_s, b_j, mu, dps)


def test_large_gap_loss_has_all_its_digits():
    """alpha = 60 e_s, beta = 2 e_s: L = 2 nu_2 ~ e^-120 and dL/dalpha_s = -4 (nu_2 - nu_3).

    The slice form keeps full relative accuracy; the all-words combination would cancel.
    """
    d, s, dps = 5, 1, 20
    alpha = ["0"] * d
    alpha[s] = "60"
    beta = ["0"] * d
    beta[s] = "2"
    nu = symmetric_moments(d, "60", "nu", order=3, dps=dps).values
    ev = G.evaluate(d, s, alpha, beta, dps)
    with mpmath.workdps(dps + 10):
        assert ev.loss < mpmath.mpf(10) ** -40
        assert abs(ev.loss / (2 * nu[1]) - 1) < mpmath.mpf(10) ** -(dps - 2)
        assert abs(ev.grad_alpha[s] / (-4 * (nu[1] - nu[2])) - 1) < mpmath.mpf(10) ** -(dps - 2)


# ------------------------------------------------------------------ (c) finite differences


def test_gradient_matches_central_differences_40_digits():
    d, s, dps = 4, 2, 40
    alpha, beta = _point(d, 21)
    ev = G.evaluate(d, s, alpha, beta, dps)
    with mpmath.workdps(dps + 10):
        h = mpmath.mpf(10) ** -14
        a0 = [mpmath.mpf(x) for x in alpha]
        b0 = [mpmath.mpf(x) for x in beta]
        for which, base, grad in (("alpha", a0, ev.grad_alpha), ("beta", b0, ev.grad_beta)):
            for l in range(d):
                plus, minus = list(base), list(base)
                plus[l] += h
                minus[l] -= h
                args_p = (plus, b0) if which == "alpha" else (a0, plus)
                args_m = (minus, b0) if which == "alpha" else (a0, minus)
                fd = (G.loss(d, s, *args_p, dps)[0] - G.loss(d, s, *args_m, dps)[0]) / (2 * h)
                assert abs(fd - grad[l]) < mpmath.mpf(10) ** -24, (which, l)


# ------------------------------------------------------------------ (d) float64 vs mpmath


@pytest.mark.parametrize("d, s, seed, spread", [(3, 0, 31, "2"), (6, 4, 32, "3"),
                                                (12, 11, 33, "1"), (4, 1, 34, "200")])
def test_float_path_matches_mpmath(d, s, seed, spread):
    alpha, beta = _point(d, seed, spread)
    mom = G.moments(d, s, alpha, 20)
    ev = G.evaluate(d, s, alpha, beta, 20)
    mf = G.moments_float(d, s, alpha)
    ef = G.evaluate_float(d, s, alpha, beta)
    M = np.array(mom.second.tolist(), dtype=float)
    assert np.all(np.abs(mf.second - M) <= 1e-10 * np.abs(M))
    assert np.all(np.abs(mf.mean - _f(mom.mean)) <= 1e-10 * _f(mom.mean))
    assert np.all(np.abs(mf.mean_positive - _f(mom.mean_positive)) <= 1e-10 * _f(mom.mean_positive))
    assert abs(ef.loss - float(ev.loss)) <= 1e-10 * float(ev.loss)
    # gradients are differences of O(loss) terms: float64 is accurate relative to that scale
    scale_a = max(np.abs(_f(ev.grad_alpha)).max(), float(ev.loss))
    scale_b = max(np.abs(_f(ev.grad_beta)).max(), float(ev.loss))
    assert np.all(np.abs(ef.grad_alpha - _f(ev.grad_alpha)) <= 1e-10 * scale_a)
    assert np.all(np.abs(ef.grad_beta - _f(ev.grad_beta)) <= 1e-10 * scale_b)
    # the half-rule estimates are small where the rule has converged
    assert mf.errors["second"].max() < 1e-12 and ef.loss_error < 1e-12
    b_f, l_f = G.best_output_float(d, s, alpha)
    b_m, l_m = G.best_output(d, s, alpha, 20)
    assert abs(l_f - float(l_m)) <= 1e-9 * float(l_m)
    assert np.allclose(b_f, _f(b_m), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("d, seed, spread", [(2, 41, 1.0), (3, 42, 3.0), (9, 43, 30.0),
                                             (50, 44, 300.0), (200, 45, 600.0)])
def test_loss_alone_is_the_loss_pass_bit_for_bit(d, seed, spread):
    """loss_float (the Q integrands only) returns the loss pass's loss and error unchanged."""
    rng = np.random.default_rng(seed)
    alpha, beta, s = rng.normal(size=d) * spread, 2 * rng.normal(size=d), int(rng.integers(d))
    ev, est = G.evaluate_float(d, s, alpha, beta), G.loss_float(d, s, alpha, beta)
    assert (est.value, est.error) == (ev.loss, ev.loss_error)


# ------------------------------------------------------------------------- (e) Monte Carlo


def test_second_moment_matches_monte_carlo():
    d, s, n = 5, 3, 100_000
    alpha = np.array([0.8, -0.5, 1.7, 0.1, -1.2])
    rng = np.random.default_rng(20240)
    counts = WordDistribution(d).sample_counts(rng, n)
    gam = attention(counts, alpha)
    pos = labels(counts, s) > 0
    outer = gam[:, :, None] * gam[:, None, :]
    emp, se = outer.mean(axis=0), outer.std(axis=0, ddof=1) / np.sqrt(n)
    mom = G.moments(d, s, [repr(float(a)) for a in alpha], 15)
    M = np.array(mom.second.tolist(), dtype=float)
    assert np.all(np.abs(M - emp) <= 5 * se)
    gp = gam * pos[:, None]
    assert np.all(np.abs(_f(mom.mean_positive) - gp.mean(axis=0))
                  <= 5 * gp.std(axis=0, ddof=1) / np.sqrt(n))


# -------------------------------------------------------------------------- (f) inf over beta


def test_best_output_is_the_minimiser():
    d, s, dps = 4, 0, 25
    alpha, _ = _point(d, 41)
    opt = G.solve_output(d, s, alpha, dps)
    assert not opt.fallback
    ev = G.evaluate(d, s, alpha, opt.beta, dps)
    with mpmath.workdps(dps + 10):
        assert max(abs(g) for g in ev.grad_beta) < mpmath.mpf(10) ** -(dps - 3)
        assert abs(opt.loss - opt.loss_formula) < mpmath.mpf(10) ** -(dps - 3)
        assert opt.beta_error < mpmath.mpf(10) ** -(dps - 5)
        M = opt.moments.second
        rng = random.Random(5)
        for _ in range(3):
            delta = [mpmath.mpf(rng.uniform(-1, 1)) / 100 for _ in range(d)]
            moved = [b + e for b, e in zip(opt.beta, delta)]
            gain = G.loss(d, s, alpha, moved, dps)[0] - opt.loss
            expected = sum(delta[i] * M[i, j] * delta[j] for i in range(d) for j in range(d)) / 2
            assert gain > 0
            assert abs(gain - expected) < mpmath.mpf(10) ** -(dps - 4)
    # the optimum lies between 0 and the loss at beta = 0 (= 1)
    assert 0 < opt.loss < 1


# ---------------------------------------------------------------------------- (g) extremes


@pytest.mark.parametrize("alpha", [["-200", "200"], ["200", "-200"], ["0", "0"]])
@pytest.mark.parametrize("s", [0, 1])
def test_extreme_logits_d2_exact(alpha, s):
    """d = 2: every word is one symbol, gamma = e_w: everything is known exactly."""
    beta = ["1.25", "-0.75"]
    mom = G.moments(2, s, alpha, 20)
    ev = G.evaluate(2, s, alpha, beta, 20)
    half = mpmath.mpf(1) / 2
    tol = mpmath.mpf(10) ** -20
    with mpmath.workdps(30):
        b = [mpmath.mpf(x) for x in beta]
        j = 1 - s
        assert all(abs(m - half) < tol for m in mom.mean)
        assert abs(mom.mean_positive[s] - half) < tol and mom.mean_positive[j] == 0
        assert abs(mom.second[0, 0] - half) < tol and abs(mom.second[1, 1] - half) < tol
        assert mom.second[0, 1] == 0
        assert abs(ev.loss - ((b[s] - 2) ** 2 + b[j] ** 2) / 4) < tol
        assert abs(ev.grad_beta[s] - (b[s] - 2) / 2) < tol
        assert abs(ev.grad_beta[j] - b[j] / 2) < tol
        assert all(abs(g) < tol for g in ev.grad_alpha)
    ef = G.evaluate_float(2, s, alpha, beta)
    assert abs(ef.loss - float(ev.loss)) < 1e-14


def test_extreme_logits_d3_vs_enumeration():
    """Logits spread over [-200, 200] (weight ratios e^400) at d = 3."""
    d, s = 3, 1
    alpha = ["-200", "137.5", "200"]
    beta = ["0.5", "2.5", "-1"]
    truth = general_truth(d, s, alpha, beta, L=70, dps=20)
    mom = G.moments(d, s, alpha, 20)
    ev = G.evaluate(d, s, alpha, beta, 20)
    with mpmath.workdps(30):
        slack = mpmath.mpf(10) ** -19
        for i in range(d):
            assert abs(mom.mean[i] - truth.mean_gamma[i]) <= truth.error_bound("mean_gamma") + slack
            for j in range(d):
                assert abs(mom.second[i, j] - truth.second_moment[i, j]) <= \
                    truth.error_bound("second_moment") + slack
            for name in ("grad_alpha", "grad_beta"):
                got, want = getattr(ev, name)[i], getattr(truth, name)[i]
                assert abs(got - want) <= truth.error_bound(name) + slack, name
        assert abs(ev.loss - truth.loss) <= truth.error_bound("loss") + slack
        # entries of size e^-400 keep their relative accuracy: gamma_0 gamma_2 ~ c_0 / c_2
        assert 0 < mom.second[0, 2] < mpmath.mpf(10) ** -150
    mf = G.moments_float(d, s, alpha)
    M = np.array(mom.second.tolist(), dtype=float)
    assert np.all(np.abs(mf.second - M) <= 1e-10 * M)


# ------------------------------------------------------------------------------- H heads


ALPHAS = [["0.3", "-1.2", "0.7"], ["1.0", "0.5", "-0.8"]]


def test_heads_nested_cross_block_matches_float_and_monte_carlo():
    d, s = 3, 0
    hm = G.head_moments(d, s, ALPHAS, dps=8)
    MM, mpos, errs = G.head_moments_float(d, s, ALPHAS)
    ref = np.array(hm.second.tolist(), dtype=float)
    assert np.all(np.abs(MM - ref) <= 1e-12)
    assert np.all(np.abs(mpos - _f(hm.mean_positive)) <= 1e-14)
    rng = np.random.default_rng(7)
    counts = WordDistribution(d).sample_counts(rng, 100_000)
    gam = attention_heads(counts, np.array(ALPHAS, dtype=float)).reshape(len(counts), -1)
    outer = gam[:, :, None] * gam[:, None, :]
    se = outer.std(axis=0, ddof=1) / np.sqrt(len(counts))
    assert np.all(np.abs(MM - outer.mean(axis=0)) <= 5 * se)


def test_heads_cross_block_survives_logits_spread_over_hundreds():
    """Hard attention (logits 900 apart): the terms t c^a_l x_l alone overflow float64; the
    block, scaled row by row in log space, is finite and matches Monte Carlo."""
    d, s = 4, 1
    alphas = np.array([[900.0, 0.0, -300.0, 50.0], [-800.0, 10.0, 400.0, 0.0]])
    with np.errstate(over="raise", invalid="raise"):
        MM, _, _ = G.head_moments_float(d, s, alphas)
    counts = WordDistribution(d).sample_counts(np.random.default_rng(0), 200_000)
    gam = attention_heads(counts, alphas).reshape(len(counts), -1)
    outer = gam[:, :, None] * gam[:, None, :]
    se = outer.std(axis=0, ddof=1) / np.sqrt(len(counts))
    assert np.all(np.abs(MM - outer.mean(axis=0)) <= 5 * se + 1e-12)


def test_heads_identical_heads_and_one_head():
    d, s = 3, 2
    MM, mpos, _ = G.head_moments_float(d, s, [ALPHAS[0], ALPHAS[0]])
    assert np.allclose(MM[:d, d:], MM[:d, :d], rtol=1e-13, atol=0)
    # coinciding heads: MM is singular, the pseudo-inverse still finds the single-head optimum
    _, l_two = G.best_output_heads_float(d, s, [ALPHAS[0], ALPHAS[0]])
    b_one, l_one = G.best_output_float(d, s, ALPHAS[0])
    assert abs(l_two - l_one) < 1e-12
    B1, l1 = G.best_output_heads(d, s, [ALPHAS[0]], dps=15)
    assert abs(float(l1) - l_one) < 1e-12
    assert np.allclose(_f(B1[0]), b_one, rtol=1e-10)
    # more heads can only help, and the loss formula matches the single-head one at B = [beta, 0]
    _, l_pair = G.best_output_heads_float(d, s, ALPHAS)
    assert l_pair <= l_one + 1e-14
    hm = G.head_moments(d, s, [ALPHAS[0]], dps=15, cross="none")
    beta = ["1.5", "0.2", "-0.3"]
    assert abs(G.heads_loss(d, s, [ALPHAS[0]], [beta], moments_=hm)
               - G.loss(d, s, ALPHAS[0], beta, 15)[0]) < mpmath.mpf(10) ** -14


def test_heads_cross_block_error_stays_small_for_spread_logits():
    """Heads that put e^-20 on some symbols: the inner integrals are large where the mixture is
    small, so their errors are propagated relatively (the integrand is positive), not as the
    largest absolute inner error times the interval length (which gave 1e-4 at d = 4, L = 30)."""
    d, s = 3, 0
    heads = [["20", "0", "20"], ["0", "20", "0"]]
    hm = G.head_moments(d, s, heads, dps=8)
    MM, _, _ = G.head_moments_float(d, s, heads)
    ref = np.array(hm.second.tolist(), dtype=float)
    err = np.array(hm.errors["second"].tolist(), dtype=float)
    assert np.all(np.abs(MM - ref) <= 1e-12)
    assert err[:d, d:].max() < 1e-8
