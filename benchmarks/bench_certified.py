"""Certified mode against the mpmath route, and branch and bound per box (run by hand).

    nice python benchmarks/bench_certified.py

1. Time per loss + gradient at 50 digits: mpmath (tanh-sinh, estimated error) against Arb
   (acb.integral, rigorous ball), same points, moments recomputed each time (no cache); prints
   the ratio mpmath / Arb (> 1: Arb faster).
2. Branch and bound: leaf count, deepest split and time for each group's quick box
   (verify/certify/outcomes.py), with the centred form and with plain ball inputs, and their
   ratios; ``--default`` adds the default boxes (the plain route takes minutes there).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verify.certify.boxes import branch_and_bound, log_box  # noqa: E402
from verify.certify.outcomes import BOXES  # noqa: E402
from verify.checks import Profile  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.engine.certified.balls import bits_for  # noqa: E402
from verify.engine.certified.symmetric import ball_evaluate, ball_state  # noqa: E402
from verify.engine.symmetric import attention_state, evaluate_at  # noqa: E402

DPS = 50
POINTS = [(3, -1.0, 2, 0), (10, 3.0, 1.5, 0.25), (1000, 8.0, 2, 0), (10**6, 15.0, 2, 0)]
REPEATS = 3


def _time(fn) -> float:
    runs = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    print(f"loss + gradient at {DPS} digits (median of {REPEATS})")
    ratios = []
    for d, gap, bs, bj in POINTS:
        t_mp = _time(lambda: evaluate_at(attention_state.__wrapped__(d, gap, DPS), bs, bj))
        t_arb = _time(lambda: ball_evaluate(ball_state(d, gap, bits_for(DPS)), bs, bj))
        ratios.append(t_mp / t_arb)
        print(f"  d={d:<8} gap={gap:<5} mpmath {t_mp * 1e3:8.1f} ms   Arb {t_arb * 1e3:8.1f} ms   "
              f"ratio mpmath/Arb {t_mp / t_arb:5.2f}")
    print(f"  geometric-mean ratio {statistics.geometric_mean(ratios):.2f}")
    constants = values(load())
    print("branch and bound (96 bits): centred form against plain ball inputs, same session")
    for group in ("prop1", "thm2", "cor1"):
        for profile in (Profile.QUICK, Profile.DEFAULT) if "--default" in sys.argv else (Profile.QUICK,):
            d_lo, d_hi, e_lo, e_hi, budget = BOXES[group][profile]
            runs = {}
            for method in ("centred", "plain"):
                run = branch_and_bound(group, log_box(d_lo, d_hi, e_lo, e_hi), constants, 96, 30,
                                       max_boxes=budget, method=method)
                runs[method] = run
                verdict = {True: "certified", False: "FAILS", None: "undecided"}[run.status]
                print(f"  {group} {profile.value} {method}: {verdict}: {run.summary()}")
            c, p = runs["centred"], runs["plain"]
            print(f"  {group} {profile.value}: plain/centred leaves {len(p.leaves) / len(c.leaves):.1f}x, "
                  f"time {p.seconds / c.seconds:.1f}x")


if __name__ == "__main__":
    main()
