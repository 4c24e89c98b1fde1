"""The tests Section 5's runs are judged by (Student-t bounds with an indifference zone, the
exact sign test), shared by the claims' checks (``verify/results/experiments.py``, whose
docstring states the rules) and the experiments' own studies (the heads question); the levels
are :mod:`.thresholds`'."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import scipy.stats

from .thresholds import DELTA, LEVEL


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


def power(values: Sequence[float]) -> float:
    """P(pass) of :func:`at_least` for a mean exactly at the target, at the observed standard
    deviation (noncentral t; 1 when every value is the same, 0 for fewer than 2 values)."""
    arr = np.asarray(values, dtype=np.float64)
    n = arr.size
    if n < 2:
        return 0.0
    sd = float(np.std(arr, ddof=1))
    if sd == 0.0:
        return 1.0
    return float(scipy.stats.nct.sf(t_quantile(1 - LEVEL, n - 1), n - 1, DELTA * math.sqrt(n) / sd))


def sign_test(k: int, n: int) -> float:
    """P(X >= k) for X ~ Binomial(n, 1/2): the exact one-sided binomial test (SciPy)."""
    return float(scipy.stats.binomtest(k, n, 0.5, alternative="greater").pvalue)
