"""What the outcome store (verify/memo.py) saves the contrast (run by hand, not in CI): the CPU-
seconds of the contrast's first case with the store filled by the dedicated checks' cases of the
profile's grid at the same d (as a run of every check leaves it), against the contrast alone.
Each step runs in a fresh process (the engine's caches start cold).

    nice python benchmarks/bench_reuse.py [--profile quick|default|full]

Until verify/results/contrast.py reads its floors through ``memo.judge``, this script routes its
``dedicated`` through it (``hooked``).  Times on a shared machine move by tens of per cent.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verify.run import memo  # noqa: E402
from verify.checks import Profile  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.results import contrast  # noqa: E402

DEDICATED = contrast.FLOORS + ((None, contrast.thm2, "thm2.final", None),)


def hooked(module, check_id, profile, constants, options):
    """contrast.dedicated reading through the store (the one-line change the hook asks for)."""
    check = next(x for x in module.RESULT.checks if x.id == check_id)
    return [memo.judge(check, case, constants) for case in check.cases(profile, constants, options)]


def fill(root: str, profile: Profile) -> tuple[int, float]:
    """Judge the dedicated checks' grid cases at the contrast's first d into the store."""
    consts, store, count = values(load()), memo.OutcomeStore(Path(root), "bench"), 0
    start = time.process_time()
    for _, module, check_id, _ in DEDICATED:
        check = next(x for x in module.RESULT.checks if x.id == check_id)
        for case in check.cases(profile, consts, {}):
            if case.params.get("d") == contrast.D_GRID[profile][0]:
                memo.serving(store, lambda c: memo.judge(check, c, consts), case)
                count += 1
    return count, time.process_time() - start


def judge(root: str | None, profile: Profile):
    """CPU-seconds and outcome of the contrast's first case (through the store when given)."""
    consts = values(load())
    if root:
        contrast.dedicated = hooked
    check = contrast.RESULT.checks[0]
    case = check.cases(profile, consts, {})[0]
    store = memo.OutcomeStore(Path(root), "bench") if root else None
    start = time.process_time()
    outcome = memo.serving(store, lambda c: check.judge(c, consts), case)
    return time.process_time() - start, outcome


def fresh(*call):
    with ProcessPoolExecutor(1) as pool:
        return pool.submit(*call).result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=[p.value for p in Profile], default="quick")
    profile = Profile(parser.parse_args().profile)
    with tempfile.TemporaryDirectory(prefix="verify-bench-reuse-") as root:
        cases, seconds = fresh(fill, root, profile)
        print(f"store filled with {cases} dedicated cases in {seconds:.2f} CPU-s", flush=True)
        hit = fresh(judge, root, profile)
        print(f"contrast [{hit[1].case}] with the store: {hit[0]:.2f} CPU-s", flush=True)
    miss = fresh(judge, None, profile)
    print(f"contrast alone: {miss[0]:.2f} CPU-s; x{miss[0] / hit[0]:.2f} cheaper with the store; "
          f"same outcome: {'yes' if hit[1] == miss[1] else 'NO'}")


if __name__ == "__main__":
    main()
