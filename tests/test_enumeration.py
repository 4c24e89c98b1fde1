"""Tests of the enumeration ground truth (population sums under rho, models (1), label chi_s)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from verify.engine.enumeration import general_truth, symmetric_truth

DPS = 30


def _mpf(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _close(value, exact, bound) -> bool:
    return abs(value - exact) <= bound


@pytest.mark.parametrize("d, L", [(3, 120), (4, 150), (5, 200)])
def test_symmetric_hand_values_at_origin(d, L):
    """At alpha = beta = 0: dL/dbeta_s = -2/d, dL/dbeta_j = -(d-2)/(d(d-1)), mu_1 = 1/d."""
    with mpmath.workdps(60):
        r = symmetric_truth(d, 0, 0, 0, 0, L, DPS)
        assert r.neglected_mass == (1 - Fraction(1, d - 1)) ** L
        assert _close(r.grad_beta_s, _mpf(Fraction(-2, d)), r.error_bound("grad_beta_s"))
        assert _close(r.grad_beta_j, _mpf(Fraction(-(d - 2), d * (d - 1))),
                      r.error_bound("grad_beta_j"))
        assert _close(r.mu[1], _mpf(Fraction(1, d)), r.error_bound("mu"))
        assert r.tail_bound["grad_beta_s"] < mpmath.mpf("1e-10")
        # beta = 0: the loss is E[2 * 1{y = +1}] = 2 P(y = +1), and no attention gradient.
        assert _close(r.loss, 1, r.error_bound("loss"))
        assert r.grad_alpha_s == 0 and r.grad_alpha_j == 0


@pytest.mark.parametrize("d", [3, 4, 5])
def test_symmetric_mu1_at_zero_attention_is_one_over_d(d):
    """E[gamma 1{k >= 1}] = E[k/m] = 1/d at alpha = 0 whatever beta; truncated: (1 - q^L)/d."""
    L = 40
    with mpmath.workdps(60):
        r = symmetric_truth(d, "0.7", "0.7", "1.3", "-0.4", L, DPS)
        q_l = r.neglected_mass
        assert _close(r.mu[1], _mpf(Fraction(1, d)), r.error_bound("mu"))
        assert _close(r.mu[1], _mpf((1 - q_l) / d), r.rounding_bound["mu"])
        assert r.nu[0] == r.mu[0]


def test_symmetric_internal_identities():
    """Moment identities and the loss as a polynomial in the moments (moderate parameters)."""
    d, L = 4, 60
    beta_s, beta_j = Fraction(3, 2), Fraction(-1, 3)
    with mpmath.workdps(60):
        r = symmetric_truth(d, "1.25", "-0.5", beta_s, beta_j, L, DPS)
        tol = mpmath.mpf(10) ** (-DPS)
        mu, nu = r.mu, r.nu
        assert abs(nu[1] - (mu[0] - mu[1])) < tol
        assert abs(nu[2] - (mu[0] - 2 * mu[1] + mu[2])) < tol
        assert abs(nu[3] - (mu[0] - 3 * mu[1] + 3 * mu[2] - mu[3])) < tol
        assert abs(nu[4] - (mu[0] - 4 * mu[1] + 6 * mu[2] - 4 * mu[3] + mu[4])) < tol
        # P(k = 0, m <= L) = 1 - q^L - P(k >= 1, m <= L), and P(k >= 1) = 1/2 in the limit
        p0 = 1 - _mpf(r.neglected_mass) - mu[0]
        assert _close(mu[0], mpmath.mpf(1) / 2, r.error_bound("mu"))
        cs, cj = _mpf(beta_s - 2), _mpf(beta_j - 2)
        loss = (p0 * _mpf(beta_j) ** 2 + cs**2 * mu[2] + 2 * cs * cj * (mu[1] - mu[2])
                + cj**2 * nu[2]) / 2
        assert abs(r.loss - loss) < tol
        assert abs(r.grad_beta_s - (cs * mu[2] + cj * (mu[1] - mu[2]))) < tol
        grad_bj = (p0 * _mpf(beta_j) + cs * (mu[1] - mu[2]) + cj * nu[2]) / (d - 1)
        assert abs(r.grad_beta_j - grad_bj) < tol
        assert abs(r.grad_alpha_j * (d - 1) + r.grad_alpha_s) < tol


def test_symmetric_large_gap_keeps_relative_accuracy():
    """alpha_s - alpha_j = 80, beta = 2 e_s: loss = 2 nu_2 ~ e^-160, no cancellation."""
    d, L = 3, 60
    with mpmath.workdps(60):
        r = symmetric_truth(d, 80, 0, 2, 0, L, DPS)
        assert r.loss > 0
        assert r.loss < mpmath.exp(-150)
        assert abs(r.loss - 2 * r.nu[2]) <= mpmath.mpf(10) ** (-DPS) * r.loss
        # f - y = -2 (1 - gamma) on positive words, 0 on negative ones
        assert abs(r.grad_beta_s - (-2) * (r.nu[1] - r.nu[2])) <= mpmath.mpf(10) ** (-DPS) * abs(
            r.grad_beta_s
        )


def test_symmetric_d2_is_exact():
    """d = 2: words have length 1, P(k = 1) = 1/2, no tail.  At alpha = beta = 0: loss = 1."""
    with mpmath.workdps(40):
        r = symmetric_truth(2, 0, 0, 0, 0, 10, DPS)
        assert r.neglected_mass == 0 and r.tail_bound["loss"] == 0
        assert abs(r.loss - 1) < mpmath.mpf(10) ** (-DPS)
        assert abs(r.grad_beta_s - (-1)) < mpmath.mpf(10) ** (-DPS)  # -2/d
        assert abs(r.grad_beta_j) < mpmath.mpf(10) ** (-DPS)  # -(d-2)/(d(d-1))
        assert abs(r.mu[0] - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** (-DPS)


def test_symmetric_runs_at_L200():
    r = symmetric_truth(3, "2.5", "-1", 1, "0.25", 200, DPS)
    assert r.tail_bound["loss"] < mpmath.mpf(2) ** -190
    assert all(0 <= x <= 1 for x in r.mu + r.nu)


def test_general_agrees_with_symmetric_at_background_symmetric_point():
    d, s, L = 3, 1, 48
    a_s, a_j = Fraction(7, 5), Fraction(-3, 10)
    b_s, b_j = Fraction(6, 5), Fraction(2, 5)
    alpha = [a_j] * d
    beta = [b_j] * d
    alpha[s], beta[s] = a_s, b_s
    with mpmath.workdps(60):
        sym = symmetric_truth(d, a_s, a_j, b_s, b_j, L, DPS)
        gen = general_truth(d, s, alpha, beta, L, DPS)
        for bound in list(sym.tail_bound.values()) + list(gen.tail_bound.values()):
            assert bound < mpmath.mpf("1e-12")
        # Both sum over exactly the words with m <= L, so they agree to rounding, far below the
        # tail bounds; the tail bounds are the tolerance the two routes promise.
        tol = mpmath.mpf(10) ** (-DPS)
        pairs = [
            (gen.loss, sym.loss),
            (gen.grad_alpha[s], sym.grad_alpha_s),
            (gen.grad_beta[s], sym.grad_beta_s),
            (gen.mean_gamma[s], sym.mu[1]),
            (gen.mean_gamma_positive[s], sym.mu[1]),
            (gen.second_moment[s, s], sym.mu[2]),
        ]
        for j in range(d):
            if j != s:
                pairs += [(gen.grad_alpha[j], sym.grad_alpha_j),
                          (gen.grad_beta[j], sym.grad_beta_j)]
        for g_val, s_val in pairs:
            assert abs(g_val - s_val) < tol
        assert gen.positive_mass == sum(
            Fraction(1, d - 1) * Fraction(d - 2, d - 1) ** (m - 1)
            * (1 - Fraction(d - 1, d) ** m) for m in range(1, L + 1)
        )
        assert abs(_mpf(gen.positive_mass) - sym.mu[0]) < tol


def test_general_gradient_matches_finite_differences_of_its_loss():
    """The truncated loss is a finite smooth sum; its gradient is the truncated gradient."""
    d, s, L = 3, 0, 18
    alpha = [Fraction(3, 10), Fraction(-6, 5), Fraction(7, 10)]
    beta = [Fraction(13, 10), Fraction(-1, 2), Fraction(3, 5)]
    h = Fraction(1, 10**10)
    with mpmath.workdps(DPS):
        base = general_truth(d, s, alpha, beta, L, DPS)
        for i in range(d):
            for which in ("alpha", "beta"):
                plus = [list(alpha), list(beta)]
                minus = [list(alpha), list(beta)]
                k = 0 if which == "alpha" else 1
                plus[k][i] += h
                minus[k][i] -= h
                lp = general_truth(d, s, plus[0], plus[1], L, DPS).loss
                lm = general_truth(d, s, minus[0], minus[1], L, DPS).loss
                fd = (lp - lm) / (2 * _mpf(h))
                grad = base.grad_alpha[i] if which == "alpha" else base.grad_beta[i]
                assert abs(fd - grad) < mpmath.mpf("1e-15"), (which, i, fd, grad)


def test_general_moment_identities():
    d, s, L = 3, 2, 30
    alpha = [Fraction(1, 2), Fraction(-2), Fraction(5, 4)]
    beta = [Fraction(-7, 10), Fraction(9, 5), Fraction(1, 3)]
    with mpmath.workdps(60):
        r = general_truth(d, s, alpha, beta, L, DPS)
        tol = mpmath.mpf(10) ** (-DPS)
        mass = 1 - _mpf(r.neglected_mass)
        # sum_i gamma_i = 1 on every word, so sum_i E[gamma_i 1{m <= L}] = P(m <= L) = 1 - q^L
        assert abs(mpmath.fsum(r.mean_gamma) - mass) < tol
        for i in range(d):
            row = mpmath.fsum(r.second_moment[i, j] for j in range(d))
            assert abs(row - r.mean_gamma[i]) < tol
            for j in range(d):
                assert r.second_moment[i, j] == r.second_moment[j, i]
        assert abs(mpmath.fsum(r.grad_alpha)) < tol  # softmax shift invariance
        assert abs(mpmath.fsum(r.mean_gamma_positive) - _mpf(r.positive_mass)) < tol
        # loss = 1/2 b^T E[gg^T] b - 2 b^T E[g 1{y=1}] + 2 P(y = 1), truncated alike
        b = mpmath.matrix([_mpf(x) for x in beta])
        quad = (b.T * r.second_moment * b)[0, 0] / 2
        lin = 2 * mpmath.fsum(_mpf(beta[i]) * r.mean_gamma_positive[i] for i in range(d))
        assert abs(r.loss - (quad - lin + 2 * _mpf(r.positive_mass))) < tol
        # dL/dbeta = E[gg^T] b - 2 E[g 1{y=1}]
        for i in range(d):
            gb = mpmath.fsum(r.second_moment[i, j] * b[j] for j in range(d))
            assert abs(r.grad_beta[i] - (gb - 2 * r.mean_gamma_positive[i])) < tol


def test_general_d2_exact():
    """d = 2, s = 0: words '0' (y=+1) and '1' (y=-1), each of mass 1/2; gamma is one-hot."""
    with mpmath.workdps(40):
        r = general_truth(2, 0, [5, -3], ["0.5", "1.5"], 7, DPS)
        assert r.neglected_mass == 0 and r.n_vectors == 2
        # f = beta_w - 1: on '0' e = 0.5 - 1 - 1 = -1.5, on '1' e = 1.5 - 1 + 1 = 1.5
        assert abs(r.loss - mpmath.mpf("1.125")) < mpmath.mpf(10) ** (-DPS)
        assert abs(r.grad_beta[0] - mpmath.mpf("-0.75")) < mpmath.mpf(10) ** (-DPS)
        assert abs(r.grad_beta[1] - mpmath.mpf("0.75")) < mpmath.mpf(10) ** (-DPS)
        assert r.grad_alpha[0] == 0 and r.grad_alpha[1] == 0


def test_input_validation():
    with pytest.raises(ValueError):
        symmetric_truth(1, 0, 0, 0, 0, 10, 20)
    with pytest.raises(ValueError):
        symmetric_truth(3, 0, 0, 0, 0, 0, 20)
    with pytest.raises(ValueError):
        symmetric_truth(3, float("nan"), 0, 0, 0, 10, 20)
    with pytest.raises(ValueError):
        general_truth(3, 3, [0, 0, 0], [0, 0, 0], 5, 20)
    with pytest.raises(ValueError):
        general_truth(3, 0, [0, 0], [0, 0, 0], 5, 20)
    with pytest.raises(ValueError):
        general_truth(5, 0, [0] * 5, [0] * 5, 200, 20)  # too many count vectors
