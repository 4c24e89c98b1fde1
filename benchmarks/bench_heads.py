"""Proposition 4 with H >= 2 heads: the float64 floor against the mpmath floor, with timings;
a plain script, not a test.

    python benchmarks/bench_heads.py           # (d, H) = (4, 2), (9, 2), (9, 3): about 25 minutes
    python benchmarks/bench_heads.py --quick   # (4, 2) only: about a minute

The heads are the worst ones the prop4 search finds at these d: head h attends to the symbols
i = h mod H (logits 0, the others -30). For the target s with the largest float64 floor it prints
both floors with their error bounds, whether they agree within the sum of the bounds, and the
time of each route. This is the measurement behind ``MP_HEADS_MAX_D`` in verify/results/prop4.py:
the check itself runs the mpmath route for H >= 2 only up to that d.
"""
from __future__ import annotations

import sys
import time

import mpmath
import numpy as np

from verify.results.prop4 import (CONFIRM_STEPS, HEADS_DPS, confirm_mp, floor_error,
                                  head_system, trust_region)


def residue_heads(d: int, H: int, low: float = -30.0) -> np.ndarray:
    idx = np.arange(d)
    return np.concatenate([np.where(idx % H == h, 0.0, low) for h in range(H)])


def main(argv: list[str]) -> int:
    pairs = [(4, 2)] if "--quick" in argv else [(4, 2), (9, 2), (9, 3)]
    print(f"floor = min over ||B||_F <= d^(1/4) of L_s; float64 at steps {CONFIRM_STEPS}, "
          f"mpmath at {HEADS_DPS} digits")
    for d, H in pairs:
        x, R = residue_heads(d, H), d**0.25
        t0 = time.perf_counter()
        Q, P, eQ, eP = head_system(d, H, x, CONFIRM_STEPS, with_errors=True)
        floors = 1.0 + trust_region(Q, 2.0 * P, R)[2]
        s = int(np.argmax(floors))
        f_val, f_err = float(floors[s]), float(floor_error(eQ, eP, R)[s])
        t_float = time.perf_counter() - t0
        t0 = time.perf_counter()
        m_val, m_err = confirm_mp(d, s, x, H, R, HEADS_DPS)
        t_mp = time.perf_counter() - t0
        agree = abs(m_val - f_val) <= m_err + f_err
        print(f"  d = {d}, H = {H}, s = {s}: float64 {f_val:.10f} +- {f_err:.1e} ({t_float:.2f} s); "
              f"mpmath {mpmath.nstr(m_val, 15)} +- {mpmath.nstr(m_err, 2)} ({t_mp:.0f} s); "
              f"{'agree' if agree else 'DISAGREE'}; time ratio x{t_mp / t_float:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
