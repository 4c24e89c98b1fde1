"""The three-phase plan on sampled words (finite-sample training), batched over repetitions.

Knows the model, the distribution and gradient descent; nothing of any claim about them.

Plan (Section 4, with empirical instead of population gradients), from alpha = beta = 0:

* Phase 1: ``beta' = -eta1 grad_beta R_1(0, 0)`` on N1 words (``R_1`` = empirical risk);
* Phase 2: ``alpha' = -eta2 grad_alpha R_1(0, beta')`` on the SAME N1 words;
* Phase 3: T steps ``beta <- beta - eta3 grad_beta R_3(alpha', beta)`` from ``beta'`` on N3 fresh
  words.

Everything goes through count vectors (:meth:`WordDistribution.sample_symbol_counts`: each
word's symbols drawn and counted, d - 1 per word on average).  At alpha = 0 the attention is ``gamma = C/m``.  The Phase-3 risk is quadratic in
beta: with ``Gamma`` the (N3, d) attention matrix at alpha', ``M = Gamma^T Gamma/N3`` and
``v = Gamma^T (1 + y)/N3``, ``grad_beta R_3 = M beta - v``.  In the eigenbasis of ``M``
(``lambda_k`` in [0, 1] since ``|gamma|_2 <= |gamma|_1 = 1``) T steps are exact in closed form:

    c_k(T) = r_k^T c_k(0) + eta3 g_k S_T(r_k),   r_k = 1 - eta3 lambda_k,
    S_T(r) = sum_{t<T} r^t = (1 - r^T)/(1 - r)  (= T when lambda_k = 0),

with ``1 - r^T = -expm1(T log1p(-eta3 lambda))`` for r > 0 (no cancellation for tiny lambda);
the loop form (:func:`phase3_loop`) is kept for the tests.  ``M`` is singular whenever N3 < d:
then the same T steps are written on the (N3 x N3) kernel ``Gamma Gamma^T/N3`` (:func:`phase3`),
which leaves the null-space components of beta' untouched, as GD does.

Randomness: repetition r draws from ``SeedSequence(seed).spawn(R)[r]``, whose two children feed
the Phases 1-2 words and the Phase-3 words.  Words are drawn in blocks of BLOCK from each stream,
so the first N words of a stream do not depend on how many are drawn later: runs with different
N (or different R) share their samples (common random numbers for scans over N).

Population risk of the learned parameters: :func:`verify.engine.general.loss_float`
(alpha' is not background-symmetric); points whose risk lies within ``band`` (relative) of a
given threshold, or whose float error estimate straddles it, are re-evaluated with the mpmath
path :func:`verify.engine.general.loss`.

Also here: the exact Clopper-Pearson interval of a binomial proportion and the power of the test
built on it (scipy.stats: ``binomtest``, ``binom``, ``beta``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.stats import beta as scipy_beta
from scipy.stats import binom, binomtest

from . import general
from .distribution import WordDistribution
from .formulas import softmax_counts

__all__ = [
    "BLOCK",
    "Plan",
    "Training",
    "RiskValue",
    "Repetitions",
    "streams",
    "draw_counts",
    "draw_samples",
    "phase1",
    "phase2",
    "phase3",
    "phase3_loop",
    "train",
    "population_risk",
    "run",
    "clopper_pearson",
    "power_to_reject",
    "power_to_confirm",
    "largest_rejecting",
    "smallest_confirming",
    "decides_both_ways",
    "repetitions_for_power",
    "widest_alternative",
]

BLOCK = 256  # words per draw call; the prefix property holds at any N
TINY = 1e-250  # see _softmax_counts
CHUNK_ELEMENTS = 4_000_000  # float64 elements of count arrays held per batch of repetitions


@dataclass(frozen=True)
class Plan:
    """Step sizes, Phase-3 length and sample sizes of one finite-sample three-phase run."""

    d: int
    s: int
    eta1: float
    eta2: float
    eta3: float
    T: int
    N1: int
    N3: int

    def __post_init__(self) -> None:
        if int(self.d) != self.d or self.d < 2:
            raise ValueError(f"d must be an integer >= 2, got {self.d}")
        if not 0 <= self.s < self.d:
            raise ValueError(f"s must lie in 0..{self.d - 1}")
        if self.N1 < 1 or self.N3 < 1 or self.T < 0:
            raise ValueError("N1, N3 must be >= 1 and T >= 0")


# ------------------------------------------------------------------------------ sampling


def streams(seed: int, R: int, first: int = 0,
            count: int | None = None) -> list[tuple[np.random.Generator, np.random.Generator]]:
    """Per repetition r (``first`` .. ``first + count - 1`` of R): (Phases 1-2 generator,
    Phase-3 generator), from the r-th child of SeedSequence(seed).  A child of ``spawn`` is
    ``SeedSequence(seed, spawn_key=(r,))``, so a chunk of repetitions builds its own generators
    only (the same streams; the chunks of a large R no longer rebuild all R each)."""
    count = R - first if count is None else min(count, R - first)
    out = []
    for r in range(first, first + count):
        a, b = np.random.SeedSequence(seed, spawn_key=(r,)).spawn(2)
        out.append((np.random.default_rng(a), np.random.default_rng(b)))
    return out


def draw_counts(dist: WordDistribution, rng: np.random.Generator, n: int) -> np.ndarray:
    """The first n words of the stream ``rng`` as count vectors (n, d), drawn in blocks of BLOCK
    (so the first n words are the same whatever is drawn after them)."""
    blocks = -(-n // BLOCK)
    return np.concatenate([dist.sample_symbol_counts(rng, BLOCK) for _ in range(blocks)])[:n]


def draw_samples(d: int, seed: int, R: int, N1: int, N3: int, first: int = 0,
                 count: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Count arrays (count, N1, d) and (count, N3, d) of repetitions first..first+count-1 of
    the R-repetition run with this seed."""
    dist = WordDistribution(d)
    count = R - first if count is None else count
    gens = streams(seed, R, first, count)
    c1 = np.stack([draw_counts(dist, g1, N1) for g1, _ in gens]).astype(np.float64)
    c3 = np.stack([draw_counts(dist, g3, N3) for _, g3 in gens]).astype(np.float64)
    return c1, c3


# ------------------------------------------------------------------------------ phases


def _positive(counts: np.ndarray, s: int) -> np.ndarray:
    return (counts[..., s] >= 1).astype(np.float64)  # Y = 1{s occurs} = (1 + y)/2


def _softmax_counts(counts: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """gamma = C e^alpha / sum C e^alpha, batched: counts (R, N, d), alpha (R, d).

    The weights e^(alpha - max alpha) are formed once per repetition.  A word whose weights sum
    below TINY (every symbol it holds lies more than ~570 below the repetition's largest
    logit, where the weights lose precision or underflow) is recomputed with its own shift, the
    largest logit among its symbols (:func:`verify.engine.formulas.softmax_counts`)."""
    e = np.exp(alpha - alpha.max(axis=-1, keepdims=True))[:, None, :]
    w = counts * e
    total = w.sum(axis=-1, keepdims=True)
    low = total[..., 0] < TINY
    if low.any():
        r, n = np.nonzero(low)
        w[r, n] = softmax_counts(counts[r, n], alpha[r])
        total[r, n] = 1.0
    return w / total


def _weighted_sum(w: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """sum_n w[r, n] gamma[r, n, :] for each r (batched matmul)."""
    return (w[:, None, :] @ gamma)[:, 0, :]


def phase1(counts: np.ndarray, s: int, eta1: float) -> np.ndarray:
    """beta' = -eta1 grad_beta R(0, 0) per repetition: counts (R, N, d) -> (R, d).

    At alpha = beta = 0, f = -1 and f - y = -2Y, so grad_beta = -(2/N) sum_n Y_n C_n/m_n.
    """
    gamma = counts / counts.sum(axis=-1, keepdims=True)
    Y = _positive(counts, s)
    return eta1 * 2.0 * _weighted_sum(Y, gamma) / counts.shape[1]


def phase2(counts: np.ndarray, s: int, beta1: np.ndarray, eta2: float) -> np.ndarray:
    """alpha' = -eta2 grad_alpha R(0, beta') per repetition (same words as Phase 1).

    dR/dalpha_l = (1/N) sum_n e_n gamma_nl (beta_l - (f_n + 1)), e_n = f_n - y_n.
    """
    gamma = counts / counts.sum(axis=-1, keepdims=True)
    Y = _positive(counts, s)
    fp1 = np.einsum("rnd,rd->rn", gamma, beta1)
    err = fp1 - 2.0 * Y  # f - y = (f + 1) - (1 + y)
    grad = (_weighted_sum(err, gamma) * beta1 - _weighted_sum(err * fp1, gamma)) / counts.shape[1]
    return -eta2 * grad


def _phase3_gamma(counts: np.ndarray, s: int, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(G, yhat): G = Gamma/sqrt(N3) (rows: attention at alpha'), yhat = 2Y/sqrt(N3), so that
    M = G^T G and v = G^T yhat."""
    gamma = _softmax_counts(counts, alpha)
    root = math.sqrt(counts.shape[1])
    return gamma / root, 2.0 * _positive(counts, s) / root


def _phase3_system(counts: np.ndarray, s: int, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    G, yhat = _phase3_gamma(counts, s, alpha)
    return G.transpose(0, 2, 1) @ G, (yhat[:, None, :] @ G)[:, 0, :]


def _geometric(x: np.ndarray, T: int) -> tuple[np.ndarray, np.ndarray]:
    """(r^T, S_T = sum_{t<T} r^t) for r = 1 - x, x in [0, 2] (S_T = T at x = 0), without
    cancellation for tiny x."""
    r = 1.0 - x
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = r > 0
        log_r = np.log1p(-np.where(pos, x, 0.0))
        rT = np.where(pos, np.exp(T * log_r), np.power(r, T))
        one_minus_rT = np.where(pos, -np.expm1(T * log_r), 1.0 - np.power(r, T))
        S = np.where(x > 0, one_minus_rT / np.where(x > 0, x, 1.0), float(T))
    return rT, S


def phase3(counts: np.ndarray, s: int, alpha: np.ndarray, beta1: np.ndarray, eta3: float,
           T: int) -> np.ndarray:
    """T GD steps on the empirical Phase-3 risk from beta' (closed form; module docstring).

    With G = Gamma/sqrt(N3) and yhat = 2Y/sqrt(N3), GD reads beta <- beta - eta3 G^T (G beta -
    yhat).  N3 >= d: eigendecomposition of M = G^T G (d x d), coefficients as in the module
    docstring.  N3 < d (M singular): beta_t - beta' stays in the row space of G, beta_t =
    beta' + G^T a_t with a_{t+1} = a_t + eta3 (yhat - G beta' - K a_t), K = G G^T (N3 x N3), so
    beta'' = beta' + eta3 G^T S_T(I - eta3 K) (yhat - G beta'), S_T(A) = sum_{t<T} A^t, by the
    eigendecomposition of K: exact, no division by small eigenvalues, and the null space of M is
    left untouched as GD leaves it.
    """
    G, yhat = _phase3_gamma(counts, s, alpha)
    n, d = G.shape[1], G.shape[2]
    if n >= d:
        lam, V = np.linalg.eigh(G.transpose(0, 2, 1) @ G)
        lam = np.clip(lam, 0.0, None)
        v = (yhat[:, None, :] @ G)[:, 0, :]
        c0 = np.einsum("rdk,rd->rk", V, beta1)
        g = np.einsum("rdk,rd->rk", V, v)
        rT, S = _geometric(eta3 * lam, T)
        return np.einsum("rdk,rk->rd", V, rT * c0 + eta3 * g * S)
    lam, U = np.linalg.eigh(G @ G.transpose(0, 2, 1))
    lam = np.clip(lam, 0.0, None)
    _, S = _geometric(eta3 * lam, T)
    resid = yhat - np.einsum("rnd,rd->rn", G, beta1)
    z = np.einsum("rnk,rn->rk", U, resid)
    a = eta3 * np.einsum("rnk,rk->rn", U, S * z)
    return beta1 + np.einsum("rnd,rn->rd", G, a)


def phase3_loop(counts: np.ndarray, s: int, alpha: np.ndarray, beta1: np.ndarray, eta3: float,
                T: int) -> np.ndarray:
    """The same T steps as an explicit loop (for tests; cost T d^2 per repetition)."""
    M, v = _phase3_system(counts, s, alpha)
    beta = beta1.copy()
    for _ in range(T):
        beta = beta - eta3 * (np.einsum("rij,rj->ri", M, beta) - v)
    return beta


@dataclass
class Training:
    """Learned parameters of R repetitions: beta1 = beta', alpha = alpha', beta = beta''."""

    plan: Plan
    seed: int
    beta1: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    seconds: float = 0.0


def train(plan: Plan, seed: int, R: int) -> Training:
    """The three phases for R seeded repetitions, batched over chunks of repetitions."""
    start = time.perf_counter()
    d = plan.d
    per_rep = (plan.N1 + plan.N3) * d
    chunk = max(1, min(R, CHUNK_ELEMENTS // max(per_rep, 1)))
    b1, al, bt = [], [], []
    for first in range(0, R, chunk):
        c1, c3 = draw_samples(d, seed, R, plan.N1, plan.N3, first, min(chunk, R - first))
        beta1 = phase1(c1, plan.s, plan.eta1)
        alpha = phase2(c1, plan.s, beta1, plan.eta2)
        beta = phase3(c3, plan.s, alpha, beta1, plan.eta3, plan.T)
        b1.append(beta1)
        al.append(alpha)
        bt.append(beta)
    return Training(plan, seed, np.concatenate(b1), np.concatenate(al), np.concatenate(bt),
                    time.perf_counter() - start)


# ------------------------------------------------------------------------------ population risk


@dataclass(frozen=True)
class RiskValue:
    """Population risk of one learned point: value, error estimate (float64: |I_h - I_2h| plus
    rounding; mpmath: the quadrature's estimate), and how it was computed."""

    value: float
    error: float
    method: str  # "float64" or "mpmath(dps)"


def population_risk(d: int, s: int, alpha, beta, threshold: float | None = None,
                    band: float = 0.1, dps: int = 20) -> RiskValue:
    """L_s(alpha, beta) by the float64 path; re-evaluated at ``dps`` digits (mpmath path) when
    ``threshold`` is given and the value lies within ``band * threshold`` of it or its error
    estimate straddles it.  Non-finite parameters (a diverged run) give risk +inf."""
    alpha = np.asarray(alpha, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    if not (np.all(np.isfinite(alpha)) and np.all(np.isfinite(beta))):
        return RiskValue(math.inf, 0.0, "non-finite parameters")
    est = general.loss_float(d, s, alpha, beta)
    value, error = est.value, est.error
    if threshold is not None and (abs(value - threshold) <= band * threshold
                                  or abs(value - threshold) <= error):
        att = general.GeneralAttention.from_alpha(d, s, [float(a) for a in alpha], dps)
        loss = general.loss_estimate(att, [float(b) for b in beta])
        return RiskValue(float(loss.value), float(loss.error), f"mpmath({dps})")
    return RiskValue(value, error, "float64")


@dataclass
class Repetitions:
    """Outcome of R repetitions: risks (R,), successes (risk <= threshold), timings."""

    training: Training
    risks: list[RiskValue]
    threshold: float
    seconds: float
    extras: dict = field(default_factory=dict)

    @property
    def values(self) -> np.ndarray:
        return np.array([r.value for r in self.risks])

    @property
    def successes(self) -> int:
        """Repetitions whose risk plus its error estimate is <= the threshold (an undecided point,
        which the mpmath re-evaluation makes practically impossible, counts as a failure)."""
        return int(sum(r.value + r.error <= self.threshold for r in self.risks))

    @property
    def precise(self) -> int:
        return sum(r.method != "float64" for r in self.risks)


def run(plan: Plan, seed: int, R: int, threshold: float, band: float = 0.1,
        dps: int = 20) -> Repetitions:
    """Train R repetitions and evaluate each learned point's population risk."""
    start = time.perf_counter()
    tr = train(plan, seed, R)
    risks = [population_risk(plan.d, plan.s, tr.alpha[r], tr.beta[r], threshold, band, dps)
             for r in range(R)]
    return Repetitions(tr, risks, threshold, time.perf_counter() - start)


# ------------------------------------------------------------------------------ statistics


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval for a binomial proportion, k successes of n
    (``scipy.stats.binomtest(k, n).proportion_ci(method="exact")``)."""
    if n < 1 or not 0 <= k <= n:
        raise ValueError("need 0 <= k <= n, n >= 1")
    ci = binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def _upper_end(k: int, n: int, level: float) -> float:
    """The CP upper end for k of n (the quantile ``binomtest`` inverts; 1 at k = n)."""
    return 1.0 if k >= n else float(scipy_beta.ppf(1 - (1 - level) / 2, k + 1, n - k))


def _lower_end(k: int, n: int, level: float) -> float:
    """The CP lower end for k of n (0 at k = 0)."""
    return 0.0 if k <= 0 else float(scipy_beta.ppf((1 - level) / 2, k, n - k + 1))


def largest_rejecting(goal: float, n: int, level: float = 0.95) -> int:
    """The largest k whose CP upper end is < goal (-1 when none): the counts at which the test
    rejects "P >= goal".  The upper end increases in k, so bisection finds the boundary."""
    lo, hi = -1, n  # upper(lo) < goal by convention; upper(n) = 1 >= goal
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _upper_end(mid, n, level) < goal:
            lo = mid
        else:
            hi = mid
    return lo


def smallest_confirming(line: float, n: int, level: float = 0.95) -> int:
    """The smallest k whose CP lower end is >= line (n + 1 when none: even n of n stays below)."""
    lo, hi = -1, n + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _lower_end(mid, n, level) >= line:
            hi = mid
        else:
            lo = mid
    return hi


def power_to_reject(goal: float, alternative: float, n: int, level: float = 0.95) -> float:
    """P(CP upper end < goal) for n trials with true probability ``alternative``: the chance that
    the test "FAIL when the upper end is below the goal" detects a shortfall of that size."""
    k = largest_rejecting(goal, n, level)
    return 0.0 if k < 0 else float(binom.cdf(k, n, alternative))


def power_to_confirm(line: float, truth: float, n: int, level: float = 0.95) -> float:
    """P(CP lower end >= line) for n trials with true probability ``truth``: the chance that the
    test "PASS when the lower end reaches the line" confirms a claim that holds with P = truth
    (0 when even n successes of n stay below the line)."""
    k = smallest_confirming(line, n, level)
    return 0.0 if k > n else float(binom.sf(k - 1, n, truth))


def decides_both_ways(goal: float, alternative: float, n: int, power: float = 0.9,
                      level: float = 0.95) -> bool:
    """Whether n trials reject "P >= goal" at P = alternative and reach the line ``alternative``
    at P = goal, each with probability >= power."""
    return (power_to_reject(goal, alternative, n, level) >= power
            and power_to_confirm(alternative, goal, n, level) >= power)


@lru_cache(maxsize=None)
def repetitions_for_power(goal: float, alternative: float, power: float = 0.9,
                          level: float = 0.95, step: int = 10, cap: int = 4000) -> int:
    """The smallest multiple of ``step`` (at least ``step``, at most ``cap``) at which the exact
    test decides both ways with probability >= ``power``: it rejects "P >= goal" when the truth
    is ``alternative`` (:func:`power_to_reject`) and its lower end reaches ``alternative`` when
    the truth is ``goal`` (:func:`power_to_confirm`); ``cap`` when none is (the caller reports
    the powers it reaches).  Power to reject alone is not enough: near goal = 1 it is reached at
    an n where even n successes of n cannot pass.  The scan starts where n of n can first pass
    (``level``'s tail^(1/n) >= alternative): no smaller n confirms anything."""
    tail = (1 - level) / 2
    first = step
    if 0 < alternative < 1:
        first = max(step, step * math.ceil(math.log(tail) / math.log(alternative) / step))
    for n in range(first, cap + 1, step):
        if decides_both_ways(goal, alternative, n, power, level):
            return n
    return cap


def widest_alternative(goal: float, n: int, lowest: float, power: float = 0.9,
                       level: float = 0.95) -> float | None:
    """The largest alternative in [lowest, goal) at which n trials decide both ways with
    probability >= power (:func:`decides_both_ways`; both powers grow as the alternative moves
    away from the goal), to 2^-40; None when even ``lowest`` is too close for n."""
    if not decides_both_ways(goal, lowest, n, power, level):
        return None
    lo, hi = lowest, goal
    while hi - lo > 2.0 ** -40:
        mid = (lo + hi) / 2
        if decides_both_ways(goal, mid, n, power, level):
            lo = mid
        else:
            hi = mid
    return lo
