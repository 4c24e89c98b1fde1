"""Tests of the word distribution rho (Section 2) and of models (1) and (2) on count vectors."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from verify.engine.distribution import WordDistribution, labels
from verify.engine.model import (
    attention,
    attention_heads,
    empirical_risk_and_grad,
    predict,
    predict_heads,
    squared_loss,
)

N_SAMPLES = 100_000


def _compositions(m: int, parts: int):
    if parts == 1:
        yield (m,)
        return
    for first in range(m + 1):
        for rest in _compositions(m - first, parts - 1):
            yield (first, *rest)


def _within_sigma(estimate: float, mean: float, variance: float, n: int, k: float = 4.0) -> bool:
    return abs(estimate - mean) <= k * math.sqrt(variance / n)


# ------------------------------------------------------------------ distribution


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, "3", True, None])
def test_invalid_d_rejected(bad):
    with pytest.raises(ValueError, match="d must be an integer >= 2"):
        WordDistribution(bad)


@pytest.mark.parametrize("d", [2, 3, 4, 10])
def test_p_q(d):
    rho = WordDistribution(d)
    assert rho.p == Fraction(1, d - 1)
    assert rho.q == 1 - Fraction(1, d - 1)
    assert isinstance(rho.p, Fraction) and isinstance(rho.q, Fraction)
    assert WordDistribution(np.int64(d)).d == d


@pytest.mark.parametrize("d", [2, 3, 4, 7, 50])
def test_negative_label_mass_is_one_half_exactly(d):
    """P(y = -1) = sum_m p q^(m-1) ((d-1)/d)^m = 1/2: closed form, and partial sums + tail."""
    rho = WordDistribution(d)
    p, q, r = rho.p, rho.q, Fraction(d - 1, d)
    assert p * r / (1 - q * r) == Fraction(1, 2)
    big_m = 400
    partial = sum(p * q ** (m - 1) * r**m for m in range(1, big_m + 1))
    assert partial <= Fraction(1, 2) <= partial + q**big_m


@pytest.mark.parametrize("d", [3, 4])
def test_negative_label_mass_from_counts_probability(d):
    """Summing counts_probability over vectors with C_s = 0 gives p q^(m-1) ((d-1)/d)^m."""
    rho = WordDistribution(d)
    s = d - 1
    for m in range(1, 7):
        mass = sum(rho.counts_probability(c) for c in _compositions(m, d) if c[s] == 0)
        assert mass == rho.p * rho.q ** (m - 1) * Fraction(d - 1, d) ** m


@pytest.mark.parametrize("d", [2, 3, 5])
def test_empirical_label_balance(d):
    rho = WordDistribution(d)
    rng = np.random.default_rng(12345 + d)
    y = labels(rho.sample_counts(rng, N_SAMPLES), s=0)
    frac_negative = float(np.mean(y == -1.0))
    assert _within_sigma(frac_negative, 0.5, 0.25, N_SAMPLES)


def test_empirical_label_balance_from_words():
    rho = WordDistribution(4)
    rng = np.random.default_rng(7)
    words = rho.sample_words(rng, N_SAMPLES)
    negative = np.mean([not np.any(w == 2) for w in words])
    assert _within_sigma(float(negative), 0.5, 0.25, N_SAMPLES)


@pytest.mark.parametrize("d", [3, 10])
def test_mean_length(d):
    rho = WordDistribution(d)
    rng = np.random.default_rng(99 + d)
    lengths = rho.sample_lengths(rng, N_SAMPLES)
    p = float(rho.p)
    assert lengths.dtype == np.int64 and lengths.min() >= 1
    assert _within_sigma(float(lengths.mean()), 1.0 / p, (1.0 - p) / p**2, N_SAMPLES)


def test_d2_words_have_length_one():
    rho = WordDistribution(2)
    rng = np.random.default_rng(0)
    assert np.all(rho.sample_lengths(rng, 1000) == 1)
    counts = rho.sample_counts(rng, 1000)
    assert np.all(counts.sum(axis=1) == 1)
    assert all(len(w) == 1 for w in rho.sample_words(rng, 100))


def test_sample_counts_shape_and_marginals():
    d = 5
    rho = WordDistribution(d)
    rng = np.random.default_rng(2024)
    counts = rho.sample_counts(rng, N_SAMPLES)
    assert counts.shape == (N_SAMPLES, d) and counts.dtype == np.int64
    assert counts.min() >= 0 and counts.sum(axis=1).min() >= 1
    # E[C_i] = E[m]/d = (d-1)/d; Var(C_i) <= E[C_i^2] = E[m]/d (1 - 1/d) + E[m^2]/d^2.
    p = 1.0 / (d - 1)
    mean_m, second_m = 1.0 / p, (2.0 - p) / p**2
    var_bound = mean_m / d * (1 - 1 / d) + second_m / d**2
    for i in range(d):
        assert _within_sigma(float(counts[:, i].mean()), mean_m / d, var_bound, N_SAMPLES)


def _law_pvalue(rho: WordDistribution, counts: np.ndarray) -> float:
    """Chi-square p-value of sampled count vectors against the exact masses P(C(w) = c)
    (counts_probability): one cell per count vector of length <= 4, one for the longer words."""
    from scipy.stats import chisquare

    cells = [c for m in range(1, 5) for c in _compositions(m, rho.d)]
    index = {c: i for i, c in enumerate(cells)}
    observed = np.zeros(len(cells) + 1)
    for row, n in zip(*np.unique(counts, axis=0, return_counts=True)):
        observed[index.get(tuple(int(x) for x in row), len(cells))] += n
    masses = [float(rho.counts_probability(c)) for c in cells]
    expected = np.array(masses + [1.0 - sum(masses)]) * len(counts)
    return float(chisquare(observed, expected).pvalue)


@pytest.mark.parametrize("method", ["sample_symbol_counts", "sample_counts"])
@pytest.mark.parametrize("d", [3, 5])
def test_count_samplers_have_the_law_of_rho(d, method):
    """Both samplers have the law of rho; their rows sum to the lengths the same generator
    state gives (lengths are drawn first)."""
    rho = WordDistribution(d)
    counts = getattr(rho, method)(np.random.default_rng(77 + d), N_SAMPLES)
    assert counts.shape == (N_SAMPLES, d) and counts.dtype == np.int64
    lengths = rho.sample_lengths(np.random.default_rng(77 + d), N_SAMPLES)
    assert np.array_equal(counts.sum(axis=1), lengths)
    assert _law_pvalue(rho, counts) > 1e-4


def test_the_law_test_sees_a_wrong_alphabet():
    """The chi-square above rejects a sampler that never draws the last symbol."""
    rho, rng = WordDistribution(3), np.random.default_rng(5)
    lengths = rho.sample_lengths(rng, N_SAMPLES)
    rows = np.repeat(np.arange(N_SAMPLES), lengths)
    symbols = rng.integers(0, 2, size=int(lengths.sum()))  # the fault: symbols 0 and 1 only
    counts = np.bincount(rows * 3 + symbols, minlength=N_SAMPLES * 3).reshape(N_SAMPLES, 3)
    assert _law_pvalue(rho, counts) < 1e-10


def test_symbol_counts_of_d2_are_single_letters():
    counts = WordDistribution(2).sample_symbol_counts(np.random.default_rng(0), 1000)
    assert np.all(counts.sum(axis=1) == 1) and 400 < counts[:, 0].sum() < 600


def test_sampling_is_reproducible_and_empty_sizes():
    rho = WordDistribution(3)
    a = rho.sample_counts(np.random.default_rng(5), 50)
    b = rho.sample_counts(np.random.default_rng(5), 50)
    assert np.array_equal(a, b)
    rng = np.random.default_rng(0)
    assert rho.sample_counts(rng, 0).shape == (0, 3)
    assert rho.sample_words(rng, 0) == []
    words = rho.sample_words(rng, 200)
    assert len(words) == 200 and all(w.min() >= 0 and w.max() < 3 for w in words)


def test_word_probability_sums_to_one_minus_tail():
    d, big_l = 3, 6
    rho = WordDistribution(d)
    total = sum(
        rho.word_probability(w)
        for m in range(1, big_l + 1)
        for w in itertools.product(range(d), repeat=m)
    )
    assert total == 1 - rho.q**big_l


@pytest.mark.parametrize("d", [2, 3, 4])
def test_counts_probability_sums_to_length_mass(d):
    rho = WordDistribution(d)
    for m in range(1, 8):
        total = sum(rho.counts_probability(c) for c in _compositions(m, d))
        assert total == rho.p * rho.q ** (m - 1)


def test_counts_probability_aggregates_word_probability():
    d = 3
    rho = WordDistribution(d)
    by_counts: dict[tuple[int, ...], Fraction] = {}
    for w in itertools.product(range(d), repeat=4):
        c = tuple(int(np.sum(np.array(w) == i)) for i in range(d))
        by_counts[c] = by_counts.get(c, Fraction(0)) + rho.word_probability(w)
    for c, mass in by_counts.items():
        assert rho.counts_probability(c) == mass
        assert rho.counts_probability(np.array(c)) == mass


def test_exact_probability_validation():
    rho = WordDistribution(3)
    with pytest.raises(ValueError):
        rho.word_probability([])
    with pytest.raises(ValueError):
        rho.word_probability([0, 3])
    with pytest.raises(ValueError):
        rho.counts_probability([0, 0, 0])
    with pytest.raises(ValueError):
        rho.counts_probability([1, 1])
    with pytest.raises(ValueError):
        rho.counts_probability([1, -1, 1])


def test_labels():
    counts = np.array([[0, 2, 1], [1, 0, 0], [0, 0, 3]])
    assert labels(counts, 0).tolist() == [-1.0, 1.0, -1.0]
    assert labels(counts, 2).tolist() == [1.0, -1.0, 1.0]
    assert labels(counts, 0).dtype == np.float64
    with pytest.raises(ValueError):
        labels(counts, 3)


# -------------------------------------------------------------------------- model


def _random_counts(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    return WordDistribution(d).sample_counts(rng, n)


def test_attention_rows_sum_to_one_over_present_symbols():
    rng = np.random.default_rng(1)
    d = 6
    counts = _random_counts(rng, 2000, d)
    alpha = rng.normal(size=d) * 3
    gamma = attention(counts, alpha)
    assert gamma.shape == counts.shape
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(gamma[counts == 0] == 0.0)
    assert np.all(gamma[counts > 0] > 0.0)
    # direct formula on a small case
    c = np.array([[2.0, 0.0, 1.0]])
    a = np.array([0.5, 9.0, -1.0])
    w = c * np.exp(a)
    np.testing.assert_allclose(attention(c, a), w / w.sum(), rtol=1e-14)


def test_attention_stable_for_extreme_logits():
    rng = np.random.default_rng(2)
    d = 5
    counts = _random_counts(rng, 5000, d)
    counts = np.vstack([counts, [[0, 1, 0, 0, 0], [0, 3, 0, 0, 2], [1, 1, 1, 1, 1]]])
    alpha = np.array([700.0, -700.0, 700.0, -700.0, 0.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        gamma = attention(counts, alpha)
    assert np.all(np.isfinite(gamma))
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert gamma[-3, 1] == 1.0  # only the -700 symbol present
    np.testing.assert_allclose(gamma[-2], [0, 0, 0, 0, 1.0], atol=1e-300)
    np.testing.assert_allclose(gamma[-1], [0.5, 0, 0.5, 0, 0], atol=1e-300)
    heads = attention_heads(counts, np.vstack([alpha, -alpha]))
    assert np.all(np.isfinite(heads))


def test_predict_saturated_attention_is_the_label():
    """beta = 2 e_s and a huge alpha_s: f = 2 gamma_s - 1 = chi_s(w) on every word."""
    rng = np.random.default_rng(3)
    d, s = 4, 1
    counts = _random_counts(rng, 20_000, d)
    alpha = np.zeros(d)
    alpha[s] = 700.0
    beta = np.zeros(d)
    beta[s] = 2.0
    f = predict(counts, alpha, beta)
    y = labels(counts, s)
    assert np.any(y == 1.0) and np.any(y == -1.0)
    np.testing.assert_allclose(f, y, rtol=0, atol=1e-12)
    assert np.max(squared_loss(f, y)) <= 1e-24


def test_predict_heads_matches_single_head_and_bias():
    rng = np.random.default_rng(4)
    d, h = 5, 3
    counts = _random_counts(rng, 300, d)
    alphas = rng.normal(size=(h, d))
    big_b = rng.normal(size=(h, d))
    gam = attention_heads(counts, alphas)
    assert gam.shape == (300, h, d)
    for k in range(h):
        np.testing.assert_allclose(gam[:, k, :], attention(counts, alphas[k]), rtol=1e-13)
    expected = sum(predict(counts, alphas[k], big_b[k]) + 1.0 for k in range(h)) - 1.0
    np.testing.assert_allclose(predict_heads(counts, alphas, big_b), expected, rtol=1e-12)
    np.testing.assert_allclose(
        predict_heads(counts, alphas, big_b, bias=0.25), expected + 1.25, rtol=1e-12
    )
    np.testing.assert_allclose(
        predict_heads(counts, alphas[:1], big_b[:1]), predict(counts, alphas[0], big_b[0]),
        rtol=1e-13,
    )


def test_squared_loss():
    np.testing.assert_array_equal(squared_loss(np.array([1.0, -3.0]), np.array([-1.0, -1.0])),
                                  [2.0, 2.0])


def test_empirical_risk_and_grad_matches_finite_differences():
    rng = np.random.default_rng(5)
    d, s = 4, 2
    counts = _random_counts(rng, 64, d)
    y = labels(counts, s)
    alpha = rng.normal(size=d)
    beta = rng.normal(size=d) * 1.5
    risk, g_alpha, g_beta = empirical_risk_and_grad(counts, y, alpha, beta)
    assert risk == pytest.approx(float(np.mean(squared_loss(predict(counts, alpha, beta), y))),
                                 rel=1e-14)

    def risk_at(a: np.ndarray, b: np.ndarray) -> float:
        return empirical_risk_and_grad(counts, y, a, b)[0]

    step = 1e-5
    fd_alpha, fd_beta = np.zeros(d), np.zeros(d)
    for i in range(d):
        e = np.zeros(d)
        e[i] = step
        fd_alpha[i] = (risk_at(alpha + e, beta) - risk_at(alpha - e, beta)) / (2 * step)
        fd_beta[i] = (risk_at(alpha, beta + e) - risk_at(alpha, beta - e)) / (2 * step)
    np.testing.assert_allclose(g_alpha, fd_alpha, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g_beta, fd_beta, rtol=1e-6, atol=1e-9)
    assert abs(g_alpha.sum()) < 1e-12  # softmax shift invariance


def test_model_input_validation():
    counts = np.array([[1, 0], [0, 0]])
    with pytest.raises(ValueError):
        attention(counts, np.zeros(2))
    with pytest.raises(ValueError):
        attention(np.array([[1, 0]]), np.zeros(3))
    with pytest.raises(ValueError):
        attention(np.array([1, 0]), np.zeros(2))
    with pytest.raises(ValueError):
        attention(np.array([[1, -1]]), np.zeros(2))
    with pytest.raises(ValueError):
        attention_heads(np.array([[1, 0]]), np.zeros(2))
    with pytest.raises(ValueError):
        predict(np.array([[1, 0]]), np.zeros(2), np.zeros(3))
