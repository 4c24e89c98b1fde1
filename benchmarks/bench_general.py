"""Timings of the general-attention engine (verify.engine.general); a plain script, not a test.

    python benchmarks/bench_general.py          # mpmath d = 10, 50, 100 (30 digits); float 50, 200
    python benchmarks/bench_general.py --quick  # skips the mpmath d = 100 run

Prints wall-clock times, quadrature node counts and, for the float64 path, its largest relative
deviation from the mpmath values where both were computed.
"""
from __future__ import annotations

import random
import sys
import time

import mpmath
import numpy as np

from verify.engine import general as G


def _alpha(d: int, seed: int, spread: float = 2.0) -> list[str]:
    rng = random.Random(seed)
    return [f"{rng.uniform(-spread, spread):.6f}" for _ in range(d)]


def _timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    dps = 30
    print(f"E[gamma gamma^T] (full matrix, one quadrature pass), mpmath at {dps} digits")
    mp_results = {}
    for d in (10, 50) if quick else (10, 50, 100):
        alpha = _alpha(d, d)
        mom, sec = _timed(G.moments, d, 0, alpha, dps)
        mp_results[d] = (alpha, mom)
        with mpmath.workdps(dps + 10):
            rel = max(mom.errors["second"][i, j] / mom.second[i, j]
                      for i in range(d) for j in range(d))
        size = d * (d + 1) // 2 + 2 * d
        print(f"  d = {d:4d}: {sec:7.2f} s, {mom.evaluations:5d} nodes, {size:5d} components, "
              f"max est. rel. error {mpmath.nstr(rel, 2)}")
    print("  (target: d = 50 within 10 s)")

    print(f"loss and full gradient (O(d) per node), mpmath at {dps} digits")
    for d in (10, 50):
        alpha = _alpha(d, d)
        beta = _alpha(d, d + 1, 1.5)
        ev, sec = _timed(G.evaluate, d, 0, alpha, beta, dps)
        print(f"  d = {d:4d}: {sec:7.2f} s, {ev.evaluations:5d} nodes")

    print("float64 path (moments_float: full matrix; evaluate_float: loss and gradient)")
    for d in (50, 200):
        alpha = _alpha(d, d)
        beta = np.array([float(b) for b in _alpha(d, d + 1, 1.5)])
        G.moments_float(d, 0, alpha)  # warm-up
        reps = 20
        t0 = time.perf_counter()
        for _ in range(reps):
            mf = G.moments_float(d, 0, alpha)
        sec_m = (time.perf_counter() - t0) / reps
        t0 = time.perf_counter()
        for _ in range(reps):
            G.evaluate_float(d, 0, alpha, beta)
        sec_e = (time.perf_counter() - t0) / reps
        line = (f"  d = {d:4d}: moments_float {1e3 * sec_m:7.1f} ms, evaluate_float "
                f"{1e3 * sec_e:7.1f} ms, {mf.nodes} nodes")
        if d in mp_results and mp_results[d][0] == alpha:
            M = np.array(mp_results[d][1].second.tolist(), dtype=float)
            line += f", max rel. deviation from mpmath {np.max(np.abs(mf.second - M) / M):.1e}"
        print(line)

    print("H heads (float64, cross-head blocks by the 2-D rule)")
    for d, H in ((50, 4),):
        alphas = [_alpha(d, 100 + h) for h in range(H)]
        (_, _, _), sec = _timed(G.head_moments_float, d, 0, alphas)
        print(f"  d = {d}, H = {H}: {sec:6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
