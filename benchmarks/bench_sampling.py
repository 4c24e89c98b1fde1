"""Timings of the finite-sample plan (verify.engine.sampling); a plain script, not a test.

    python benchmarks/bench_sampling.py          # d = 10, 100, 200 at eps = 0.1, R = 50
    python benchmarks/bench_sampling.py --quick  # d = 10, 100

Prints, per d: the two samplers of count vectors (a multinomial per word,
``WordDistribution.sample_counts``, against the symbols drawn and counted,
``sample_symbol_counts``, which the plan uses) in microseconds per word and their ratio; sample
sizes at C = 1, the time to train R repetitions (sampling + three phases), the time to evaluate
their population risks (float64 loss alone), the success count and the closed-form Phase 3
against the explicit loop (largest deviation, on 5 repetitions).
"""
from __future__ import annotations

import math
import sys
import time

import numpy as np

from verify.engine import sampling
from verify.engine.distribution import WordDistribution


def per_word(draw, words: int = 20_000) -> float:
    """CPU microseconds per word of ``draw(rng, block)`` in blocks of sampling.BLOCK words."""
    rng = np.random.default_rng(0)
    start = time.process_time()
    for _ in range(-(-words // sampling.BLOCK)):
        draw(rng, sampling.BLOCK)
    return (time.process_time() - start) / words * 1e6


def plan(d: int, eps: float, C: float = 1.0) -> sampling.Plan:
    eta1 = math.sqrt(d)
    return sampling.Plan(d, 0, eta1, C * d * d / eta1 * math.log(d / eps), 1.0, math.ceil(72 / eps),
                         math.ceil(C * d * math.log(d)), math.ceil(C * math.log(d) / eps))


def main(argv: list[str]) -> int:
    ds = (10, 100) if "--quick" in argv else (10, 100, 200)
    eps, R = 0.1, 50
    for d in ds:
        dist = WordDistribution(d)
        multi, symbols = per_word(dist.sample_counts), per_word(dist.sample_symbol_counts)
        print(f"d={d:4d} samplers: multinomial {multi:.2f} us/word, symbols counted "
              f"{symbols:.2f} us/word (x{multi / symbols:.2f})")
        p = plan(d, eps)
        t0 = time.perf_counter()
        tr = sampling.train(p, seed=d, R=R)
        t1 = time.perf_counter()
        risks = [sampling.population_risk(d, 0, tr.alpha[r], tr.beta[r], eps) for r in range(R)]
        t2 = time.perf_counter()
        ok = sum(r.value + r.error <= eps for r in risks)
        c1, c3 = sampling.draw_samples(d, d, R, p.N1, p.N3, 0, 5)
        b1 = sampling.phase1(c1, 0, p.eta1)
        a = sampling.phase2(c1, 0, b1, p.eta2)
        dev = np.abs(sampling.phase3(c3, 0, a, b1, 1.0, p.T)
                     - sampling.phase3_loop(c3, 0, a, b1, 1.0, p.T)).max()
        print(f"d={d:4d} N1={p.N1:5d} N3={p.N3:4d} T={p.T}: train {t1 - t0:6.2f}s, "
              f"risks {t2 - t1:6.2f}s, {ok}/{R} reach eps, closed form vs loop {dev:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
