"""Timing of the population engine (run by hand: python benchmarks/bench_engine.py).

Prints, at 50 digits, the time of one moment family and of one loss+gradient evaluation for
d = 10, 1e3, 1e6, 1e9 (targets: 0.5 s per evaluation, at most 2x that at d = 1e9), and the same
moment by exact enumeration (truncated double series) and by Monte Carlo where feasible, as
ratios.  Not a test: the numbers depend on the machine.
"""
from __future__ import annotations

import time

import mpmath
import numpy as np

from verify.engine.distribution import WordDistribution
from verify.engine.enumeration import symmetric_truth
from verify.engine.expectations import symmetric_moments
from verify.engine.symmetric import SymmetricPoint, attention_state, evaluate


def timed(fn, repeat: int = 3):
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> None:
    evaluate(SymmetricPoint(3), 50)  # SymPy derivation and lambdify happen once
    print(f"{'d':>12} {'moment (s)':>11} {'eval (s)':>9} {'series (s)':>11} {'ratio':>7} {'MC 1e5 (s)':>11}")
    base = None
    for d in (10, 10**3, 10**6, 10**9):
        t_mom, _ = timed(lambda: symmetric_moments(d, "1", "nu", 3, 50))
        t_eval, _ = timed(lambda: (attention_state.cache_clear(),  # time the moments, not the cache
                                   evaluate(SymmetricPoint(d, "1", "0", "1.5", "0.2"), 50)))
        base = base or t_eval
        series = "-"
        ratio = "-"
        if d <= 10:
            L = int(50 * np.log(10) * (d - 1)) + 10  # q^L < 1e-50
            t_series, _ = timed(lambda: symmetric_truth(d, "1", "0", "1.5", "0.2", L=L, dps=50), 1)
            series, ratio = f"{t_series:.3f}", f"{t_series / t_eval:.1f}x"
        rng = np.random.default_rng(0)
        t_mc, _ = timed(lambda: WordDistribution(d).sample_counts(rng, 10**5) if d <= 10**3 else None, 1)
        mc = f"{t_mc:.3f}" if d <= 10**3 else "-"
        print(f"{d:>12} {t_mom:>11.3f} {t_eval:>9.3f} {series:>11} {ratio:>7} {mc:>11}  "
              f"(eval at d / eval at d=10: {t_eval / base:.2f})")
    with mpmath.workdps(15):
        print("Monte Carlo gives ~3 digits with 1e5 words; the engine gives 50.")


if __name__ == "__main__":
    main()
