"""Certified mode against the mpmath route, and branch and bound per box (run by hand).

    nice python benchmarks/bench_certified.py            [--default] [--heads]
    nice python benchmarks/bench_certified.py --floors   (section 3 only)

1. Time per loss + gradient at 50 digits: mpmath (tanh-sinh, estimated error) against Arb
   (acb.integral, rigorous ball), same points, moments recomputed each time (no cache); prints
   the ratio mpmath / Arb (> 1: Arb faster).
2. Branch and bound: leaf count, deepest split and time for each group's quick box
   (verify/certify/outcomes.py), with the centred form and with plain ball inputs, and their
   ratios; ``--default`` adds the default boxes (the plain route takes minutes there).
3. Certified floors at a found point (verify/engine/certified/general.py, heads.py): the floor of
   Proposition 4 (trust region, dual bound) at d = 9 as an Arb ball against the mpmath route
   (``prop4.confirm_mp``), ratio in one run; ``--heads`` adds H = 2 (the mpmath route's nested
   cross-head integral took 528-743 s there).
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
    profiles = (Profile.QUICK, Profile.DEFAULT) if "--default" in sys.argv else (Profile.QUICK,)
    cases = [(group, profile, box) for group in ("prop1", "thm2", "cor1") for profile in profiles
             for box in BOXES[group][profile]]
    for group, profile, (d_lo, d_hi, e_lo, e_hi, budget) in cases:
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


def bench_floors(heads: bool) -> None:
    """Section 3 of the module docstring."""
    import numpy as np
    from flint import arb

    from verify.engine.certified.floors import dual_floor
    from verify.engine.certified.heads import head_system
    from verify.results import prop4

    d, idx = 9, np.arange(9)
    print("certified floor of Proposition 4 at d = 9 (Arb 64 bits vs mpmath 15-20 digits)")
    for H in (1, 2) if heads else (1,):
        x = np.concatenate([np.where(idx % H == h, 3.0, 0.0) for h in range(H)])
        R = float(d) ** 0.25
        Q, P = prop4.head_system(d, H, x, prop4.CONFIRM_STEPS)
        _, mu, vals = prop4.trust_region(Q, 2.0 * P, R)
        s = int(np.argmax(vals))
        start = time.perf_counter()
        Qb, mb = head_system(d, s, [list(r) for r in x.reshape(H, d)], 64)
        ball = dual_floor(Qb, mb, arb(d).sqrt(), float(mu[s]), 64)
        t_arb = time.perf_counter() - start
        start = time.perf_counter()
        value, err = prop4.confirm_mp(d, s, x, H, R, prop4.DPS if H == 1 else prop4.HEADS_DPS)
        t_mp = time.perf_counter() - start
        print(f"  H={H} s={s}: Arb {ball} in {t_arb:.1f} s; mpmath {float(value):.10f} +- "
              f"{float(err):.1e} in {t_mp:.1f} s; ratio mpmath/Arb {t_mp / t_arb:.1f}")


if __name__ == "__main__":
    if "--floors" in sys.argv:
        bench_floors("--heads" in sys.argv)
    else:
        main()
        bench_floors("--heads" in sys.argv)
