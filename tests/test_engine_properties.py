"""Laws of the engine, checked on many generated inputs (hypothesis).

* count-vector compression: a word matters only through its counts, and the counts law is the
  word law summed over the words with those counts;
* the length pgf: G^(j)(z) = j! p q^(j-1) / (1 - q z)^(j+1) and the cancellation-free gap;
* softmax shift invariance of the general engine (adding a constant to every alpha);
* one kernel, two number types: the mpmath and float64 backends agree through the same kernel.
"""
from fractions import Fraction
from itertools import product

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.engine import general as G
from verify.engine.distribution import WordDistribution
from verify.engine.estimate import ErrorKind
from verify.engine.context import MP
from verify.engine.general.backends import mp_exponentials, mp_node
from verify.engine.formulas import pgf_terms
from verify.engine.general.kernels import slice_contraction
from verify.engine.model import attention
from verify.engine.precision import working

FAST = settings(max_examples=40)
SLOW = settings(max_examples=3)

logits = st.floats(-4.0, 4.0, allow_nan=False, allow_infinity=False)


# ------------------------------------------------------------------ count-vector compression


@FAST
@given(st.integers(2, 5), st.lists(st.integers(0, 4), min_size=1, max_size=6), st.data())
def test_attention_depends_on_the_word_only_through_its_counts(d, raw, data):
    """gamma of a word (softmax over its positions, summed per symbol) = gamma of its counts,
    for the word and for any reordering of it."""
    word = [a % d for a in raw]
    alpha = np.array(data.draw(st.lists(logits, min_size=d, max_size=d)))
    counts = np.bincount(word, minlength=d)[None, :]
    weights = np.exp(alpha[word] - alpha[word].max())
    direct = np.zeros(d)
    np.add.at(direct, word, weights / weights.sum())
    shuffled = data.draw(st.permutations(word))
    again = np.bincount(shuffled, minlength=d)[None, :]
    assert np.allclose(attention(counts, alpha)[0], direct, rtol=1e-12, atol=1e-15)
    assert np.array_equal(attention(again, alpha), attention(counts, alpha))


@FAST
@given(st.integers(2, 4), st.integers(1, 4))
def test_counts_law_is_the_word_law_summed(d, m):
    """P(C = c) = sum of rho(w) over the words w with counts c, and sums to P(|w| = m)."""
    rho = WordDistribution(d)
    by_counts: dict = {}
    for word in product(range(d), repeat=m):
        c = tuple(np.bincount(word, minlength=d))
        by_counts[c] = by_counts.get(c, Fraction(0)) + rho.word_probability(word)
    for c, mass in by_counts.items():
        assert rho.counts_probability(c) == mass
    assert sum(by_counts.values()) == rho.length_probability(m)


# ------------------------------------------------------------------------------ the length pgf


def closed_form(j: int, one_minus_qz, p, q):
    """G^(j)(z) = j! p q^(j-1) / (1 - q z)^(j+1) written out here, independently of the engine."""
    return mpmath.factorial(j) * p * q ** (j - 1) / one_minus_qz ** (j + 1)


@FAST
@given(st.integers(3, 40), st.fractions(Fraction(0), Fraction(99, 100)), st.integers(1, 4))
def test_pgf_derivative_is_the_derivative_of_g(d, z, j):
    """pgf_terms' G[j] = d^j/dz^j [p z / (1 - q z)] (mpmath's numerical derivative)."""
    with mpmath.workdps(30):
        p = mpmath.mpf(1) / (d - 1)
        q = 1 - p
        zz = mpmath.mpf(z.numerator) / z.denominator
        numeric = mpmath.diff(lambda x: p * x / (1 - q * x), zz, j)
        exact = pgf_terms(MP, 1 - q * zz, None, None, p, q, j)[0][j]
        assert abs(numeric - exact) <= mpmath.mpf(10) ** -18 * abs(exact)


@FAST
@given(st.integers(3, 40), st.floats(0.0, 0.9), st.floats(1e-12, 0.05), st.integers(1, 3))
def test_pgf_gap_is_the_difference_without_cancellation(d, z, x_s, j):
    """Delta_j = G^(j)(z) - G^(j)(z0) from the gap formula, against the closed form's difference
    at 50 digits (which loses up to 13 of them to cancellation)."""
    with mpmath.workdps(50):
        p = mpmath.mpf(1) / (d - 1)
        q = 1 - p
        small = 1 - q * mpmath.mpf(z)
        diff = q * mpmath.mpf(x_s)
        big = small + diff
        exact = closed_form(j, small, p, q) - closed_form(j, big, p, q)
        G, G0, D = pgf_terms(MP, small, big, diff, p, q, j)
        assert abs(D[j] - exact) <= mpmath.mpf(10) ** -30 * exact
        tight = mpmath.mpf(10) ** -45
        assert abs(G[j] - closed_form(j, small, p, q)) <= tight * G[j]
        assert abs(G0[j] - closed_form(j, big, p, q)) <= tight * G0[j]


# -------------------------------------------------------------- softmax shift invariance


@SLOW
@given(st.integers(2, 3), st.data())
def test_general_engine_is_shift_invariant_mpmath(d, data):
    """Adding a constant to every alpha leaves E[gamma], the loss and the gradient unchanged."""
    s = data.draw(st.integers(0, d - 1))
    alpha = [repr(a) for a in data.draw(st.lists(logits, min_size=d, max_size=d))]
    beta = data.draw(st.lists(st.floats(-1.0, 3.0), min_size=d, max_size=d))
    shift = data.draw(st.sampled_from(["7.25", "-3.5", "40"]))
    with working(20):
        moved = [mpmath.mpf(a) + mpmath.mpf(shift) for a in alpha]
    e0, e1 = G.evaluate(d, s, alpha, beta, 15), G.evaluate(d, s, moved, beta, 15)
    m0, m1 = G.moments(d, s, alpha, 15, "diagonal"), G.moments(d, s, moved, 15, "diagonal")
    tol = mpmath.mpf(10) ** -17
    with working(15):
        assert abs(e0.loss - e1.loss) <= tol + e0.loss_error + e1.loss_error
        for i in range(d):
            assert abs(e0.grad_alpha[i] - e1.grad_alpha[i]) <= tol + e0.grad_alpha_error[i] * 2
            assert abs(e0.grad_beta[i] - e1.grad_beta[i]) <= tol + e0.grad_beta_error[i] * 2
            assert abs(m0.mean[i] - m1.mean[i]) <= tol + m0.errors["mean"][i] * 2


@FAST
@given(st.integers(2, 12), st.data())
def test_general_engine_is_shift_invariant_float(d, data):
    s = data.draw(st.integers(0, d - 1))
    alpha = np.array(data.draw(st.lists(logits, min_size=d, max_size=d)))
    beta = np.array(data.draw(st.lists(st.floats(-1.0, 3.0), min_size=d, max_size=d)))
    shift = data.draw(st.floats(-50.0, 50.0))
    e0, e1 = G.evaluate_float(d, s, alpha, beta), G.evaluate_float(d, s, alpha + shift, beta)
    m0, m1 = G.moments_float(d, s, alpha), G.moments_float(d, s, alpha + shift)
    assert e1.loss == pytest.approx(e0.loss, rel=1e-12, abs=1e-15)
    assert np.allclose(e1.grad_alpha, e0.grad_alpha, rtol=1e-10, atol=1e-13)
    assert np.allclose(e1.grad_beta, e0.grad_beta, rtol=1e-10, atol=1e-13)
    assert np.allclose(m1.mean, m0.mean, rtol=1e-12)
    assert np.allclose(m1.second, m0.second, rtol=1e-12)
    # the gradient of a shift-invariant function is orthogonal to the all-ones direction
    assert abs(e0.grad_alpha.sum()) <= 1e-12 * (1 + np.abs(e0.grad_alpha).max())


# ------------------------------------------------------ one kernel, mpmath vs float64 backend


@FAST
@given(st.integers(2, 6), st.data(), st.sampled_from(["all", "neg", "pos"]),
       st.floats(-3.0, 3.0))
def test_backends_agree_through_the_same_kernel(d, data, kind, u):
    """slice_contraction at one node u = ln t: the mpmath node (object arrays of mpf) and the
    float64 grid (arrays over nodes) give the same A, B, Q to float64 accuracy."""
    s = data.draw(st.integers(0, d - 1))
    alpha = np.array(data.draw(st.lists(logits, min_size=d, max_size=d)))
    w = np.array(data.draw(st.lists(st.floats(-2.0, 2.0), min_size=d, max_size=d)))
    grid = G.float_attention_grid(d, s, alpha)
    k = int(np.argmin(np.abs(grid.u - u)))  # a node of the float grid
    A_f, B_f, Q_f = slice_contraction(kind, grid.terms(), w)
    att = G.GeneralAttention.from_alpha(d, s, [float(a) for a in alpha], dps=20)
    with working(20):
        t = mpmath.exp(mpmath.mpf(grid.u[k]))
        nt = mp_node(mp_exponentials(t, att), att, 3, slices=True)  # in u, like the grid
        w_mp = np.array([mpmath.mpf(x) for x in w], dtype=object)
        A_m, B_m, Q_m = slice_contraction(kind, nt, w_mp)
        scale = float(sum(abs(x) for x in A_m)) + float(abs(Q_m)) + 1e-300
        assert np.allclose(A_f[k], [float(x) for x in A_m], rtol=1e-11, atol=1e-13 * scale)
        assert np.allclose(B_f[k], [float(x) for x in B_m], rtol=1e-11, atol=1e-13 * scale)
        assert float(Q_f[k, 0]) == pytest.approx(float(Q_m), rel=1e-11, abs=1e-13 * scale)


@SLOW
@given(st.integers(2, 5), st.data())
def test_backends_agree_on_loss_and_moments(d, data):
    """The whole passes: mpmath (tanh-sinh in t) and float64 (trapezoid in ln t)."""
    s = data.draw(st.integers(0, d - 1))
    alpha = np.array(data.draw(st.lists(logits, min_size=d, max_size=d)))
    beta = np.array(data.draw(st.lists(st.floats(-1.0, 3.0), min_size=d, max_size=d)))
    mp_loss = G.loss_estimate(G.GeneralAttention.from_alpha(d, s, [float(a) for a in alpha], 15),
                              [float(b) for b in beta])
    fl = G.evaluate_float(d, s, alpha, beta).loss_estimate
    assert mp_loss.kind == fl.kind == ErrorKind.ESTIMATED
    assert abs(fl.value - float(mp_loss.value)) <= 1e-11 * abs(float(mp_loss.value)) + 1e-15


# ------------------------------------------------------------- the optimum over the output


@FAST
@given(st.integers(3, 8), st.data())
def test_output_optimum_is_stationary_and_matches_the_floors(d, data):
    """KKT of the unconstrained output solve: dL/dbeta = 0 at beta*, the loss there is the
    target's floor 1 - 2 m_s' M^-1 m_s, and moving beta* never lowers the loss."""
    s = data.draw(st.integers(0, d - 1))
    alpha = np.array(data.draw(st.lists(logits, min_size=d, max_size=d)))
    beta, value = G.best_output_float(d, s, alpha)
    ev = G.evaluate_float(d, s, alpha, beta)
    assert np.abs(ev.grad_beta).max() <= 1e-11
    assert value == pytest.approx(G.target_floors_float(d, alpha)[s], abs=1e-12)
    step = np.array(data.draw(st.lists(st.floats(-0.1, 0.1), min_size=d, max_size=d)))
    assert G.evaluate_float(d, s, alpha, beta + step).loss >= value - 1e-13


def test_the_registered_profile_is_derandomised_unless_asked():
    """tests/conftest.py loads the "ci" profile: the same examples on any machine (the
    "explore" profile, HYPOTHESIS_PROFILE=explore, draws random ones)."""
    import os

    if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci":
        assert settings.default.derandomize and settings.default.deadline is None
    assert settings.get_profile("explore").derandomize is False
