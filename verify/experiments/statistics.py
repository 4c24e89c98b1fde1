"""The tests Section 5's runs are judged by (Student-t bounds with an indifference zone, the
Wilcoxon signed-rank test with Pratt's zeros and its exact null, exact Clopper-Pearson bounds
on error rates, power at a standard deviation and a shift fixed in advance), shared by the
claims' checks (``verify/results/experiments.py``, whose docstring states the rules) and the
experiments' own studies (the heads question); the levels are :mod:`.thresholds`', the rules
proofs/experiments.md's (Round 3, items 4-7)."""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Mapping, Sequence

import numpy as np
import scipy.stats

from .thresholds import DELTA, LEVEL

SIGMA = DELTA  # the per-seed standard deviation at which the zone tests state power (Round 3, item 6)
LAG_SHIFT = 0.5  # the standardised shift of the differences at which the lag test states power
LAG_DRAWS = 4000  # Monte Carlo draws for that power (generator seed 0; standard error <= 0.008)


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with df degrees of freedom (SciPy)."""
    return float(scipy.stats.t.ppf(p, df))


def mean_bounds(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, lower, upper): one-sided 95% Student-t bounds on the mean (infinite for n < 2)."""
    arr = np.asarray(values, dtype=np.float64)
    n, mean = arr.size, float(np.mean(arr))
    if n < 2:
        return mean, -math.inf, math.inf
    half = t_quantile(1 - LEVEL, n - 1) * float(np.std(arr, ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def at_least(values: Sequence[float], target: float) -> tuple[bool | None, float, float, float]:
    """Is the mean >= target, with the indifference zone [target - DELTA, target)?  (verdict,
    mean, lower, upper), module docstring."""
    mean, lower, upper = mean_bounds(values)
    if lower >= target - DELTA:
        return True, mean, lower, upper
    if upper < target - DELTA:
        return False, mean, lower, upper
    return None, mean, lower, upper


def planned_power(n: int, sd: float = SIGMA) -> float:
    """P(pass) of :func:`at_least` over n seeds for a mean exactly at the target when the
    per-seed standard deviation is ``sd``, fixed before the runs (Round 3, item 6): the
    noncentral t's 1 - F(t_{0.95, n-1}) at noncentrality DELTA sqrt(n) / sd; 0 for n < 2."""
    if n < 2:
        return 0.0
    return float(scipy.stats.nct.sf(t_quantile(1 - LEVEL, n - 1), n - 1, DELTA * math.sqrt(n) / sd))


def power(values: Sequence[float]) -> float:
    """P(pass) of :func:`at_least` for a mean exactly at the target, at the observed standard
    deviation (noncentral t; 1 when every value is the same, 0 for fewer than 2 values): the
    heads study's (round 2); the claims state :func:`planned_power`."""
    arr = np.asarray(values, dtype=np.float64)
    n = arr.size
    if n < 2:
        return 0.0
    sd = float(np.std(arr, ddof=1))
    if sd == 0.0:
        return 1.0
    return float(scipy.stats.nct.sf(t_quantile(1 - LEVEL, n - 1), n - 1, DELTA * math.sqrt(n) / sd))


def null_counts(doubled_ranks: Sequence[int]) -> np.ndarray:
    """counts[j]: the number of the 2^m sign patterns of m non-zero differences whose doubled
    positive rank sum is j (ranks doubled so that mid-ranks are integers): the exact null of the
    signed-rank statistic given the ranks, ties and zeros included (integer counts; m < 63)."""
    ranks = [int(r) for r in doubled_ranks]
    if len(ranks) >= 63:
        raise ValueError("the exact null counts 2^m patterns in 64-bit integers: m < 63")
    counts = np.zeros(sum(ranks) + 1, dtype=np.int64)
    counts[0] = 1
    for r in ranks:
        counts[r:] = counts[r:] + counts[:counts.size - r].copy()
    return counts


def signed_rank(differences: Sequence[float]) -> tuple[float, float, float]:
    """(R+, p_greater, p_less): the Wilcoxon signed-rank statistic of the differences with
    Pratt's rule for zeros (``scipy.stats.wilcoxon(zero_method='pratt')``: zeros ranked, then
    their ranks dropped; tied |d| at mid-ranks), and its one-sided p-values from the exact null
    over the sign patterns of the non-zero differences given their ranks (:func:`null_counts`;
    SciPy's ``method='exact'`` agrees where there are no ties or zeros).  No non-zero
    difference: (0, 1, 1)."""
    d = np.asarray(differences, dtype=np.float64)
    if not np.any(d != 0):
        return 0.0, 1.0, 1.0
    stat = float(scipy.stats.wilcoxon(d, zero_method="pratt", alternative="greater",
                                      method="asymptotic").statistic)
    ranks = scipy.stats.rankdata(np.abs(d))[d != 0]
    counts = null_counts(np.rint(2 * ranks).astype(np.int64))
    at = int(round(2 * stat))
    total = float(counts.sum())
    return stat, float(counts[at:].sum()) / total, float(counts[:at + 1].sum()) / total


@lru_cache(maxsize=None)
def lag_power(n: int, shift: float = LAG_SHIFT) -> float:
    """P(p_greater < LEVEL) of :func:`signed_rank` over n seeds whose differences are
    N(shift, 1) (no ties: the null is that of ranks 1..n), fixed before the runs (Round 3,
    item 6): the fraction of ``LAG_DRAWS`` draws (generator seed 0) at or above the exact
    critical rank sum; 0 for n = 0."""
    if n < 1:
        return 0.0
    counts = null_counts(range(2, 2 * n + 1, 2))
    tail = np.cumsum(counts[::-1])[::-1] / counts.sum()  # tail[j] = P(2 R+ >= j)
    passing = np.nonzero(tail < LEVEL)[0]
    if passing.size == 0:
        return 0.0
    critical = int(passing[0])
    d = np.random.default_rng(0).normal(shift, 1.0, size=(LAG_DRAWS, n))
    ranks = scipy.stats.rankdata(np.abs(d), axis=1)
    doubled = 2 * np.where(d > 0, ranks, 0.0).sum(axis=1)
    return float(np.mean(doubled >= critical))


def error_bounds(errors: int, words: int) -> tuple[float, float]:
    """Exact Clopper-Pearson bounds on an error rate from ``errors`` in ``words`` Bernoulli
    trials, each one-sided at LEVEL (``scipy.stats.binomtest(...).proportion_ci(method=
    'exact')`` at confidence 1 - 2 LEVEL): (lower, upper) (Round 3, item 5)."""
    ci = scipy.stats.binomtest(int(errors), int(words)).proportion_ci(
        confidence_level=1 - 2 * LEVEL, method="exact")
    return float(ci.low), float(ci.high)


def errors_of(accuracy: float, words: int) -> int:
    """The number of test errors behind an accuracy measured on ``words`` test words."""
    return int(round((1.0 - accuracy) * words))


def error_rate(runs: Sequence[Mapping]) -> dict | None:
    """Exact Clopper-Pearson bounds on a plan's test error rate, 95% per side
    (:func:`error_bounds`): pooled over the seeds' test words (one rate assumed) and
    the largest per-seed upper bound, over the runs that did not diverge; None without test
    words or runs (proofs/experiments.md, Round 3, item 5)."""
    kept = [r for r in runs if not r["diverged"]]
    if not kept or "test_words" not in kept[0]:
        return None
    words = int(kept[0]["test_words"])
    errors = [errors_of(r["test"], words) for r in kept]
    low, high = error_bounds(sum(errors), words * len(errors))
    return {"errors": sum(errors), "words": words * len(errors), "lower": low, "upper": high,
            "per_seed_upper_max": max(error_bounds(e, words)[1] for e in errors)}


def first_reach(steps: Sequence[int], gaps: Sequence[float], fraction: float = 0.1) -> int:
    """The first recorded step at which the gap has covered ``fraction`` of its largest change
    from its initial value, |gap - gap at step 0| (the end of the run if it never moves): a
    gap's 10% crossing (proofs/experiments.md, Round 3, items 3-4)."""
    g = np.abs(np.asarray(gaps, dtype=np.float64) - gaps[0])
    reach = g.max()
    return int(steps[int(np.argmax(g >= fraction * reach))]) if reach > 0 else int(steps[-1])
