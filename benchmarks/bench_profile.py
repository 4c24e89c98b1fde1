"""Where the heavy checks spend their time: one representative case of each, under cProfile,
its own time (``tottime``) summed by module and then by phase (run by hand, not in CI).

    nice python benchmarks/bench_profile.py                      # all eight, quick profile
    nice python benchmarks/bench_profile.py prop1 prop2 --profile default
    nice python benchmarks/bench_profile.py --case thm1.floor:d=16

Phases (a module belongs to the first that matches):

* ``search``          -- verify.search, scipy.optimize and the results modules' own search loops;
* ``float64 floors``  -- numpy and the engine's float64 paths (verify.engine.*);
* ``high precision``  -- mpmath, gmpy2, python-flint (the confirmations at many digits);
* ``symbolic``        -- sympy;
* ``other``           -- everything else (Python itself, the runner, pickling).

The CPU-seconds come from a run without the profiler; the shares from a second run under it
(wall-clock, each in a fresh process).  On a shared machine both
move by tens of per cent from run to run: compare ratios taken in one session.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verify.checks import Profile  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.results import REGISTRY  # noqa: E402

# result -> (check, options, index of the case among those the options give): the heaviest
# check of each result, on a case of the middle of its range.
REPRESENTATIVE = {
    "thm1": ("thm1.floor", {"d": [9]}, 0),
    "cor1": ("cor1.samples", {}, 0),
    "contrast": ("contrast.separation", {"d": [9]}, 0),
    "prop4": ("prop4.floor", {"d": [9]}, -1),
    "prop2": ("prop2.floor", {"d": [9]}, 0),
    "lemma-low-attention": ("lemma-low-attention.bound", {}, 0),
    "prop1": ("prop1.general", {}, 0),
    "thm2": ("thm2.final", {"d": [10], "eps": [0.01]}, 0),
}
PHASES = (
    ("search", ("verify.search", "scipy.optimize", "verify.results")),
    ("float64 floors", ("numpy", "scipy", "verify.engine")),
    ("high precision", ("mpmath", "gmpy2", "flint")),
    ("symbolic", ("sympy",)),
)


def module_of(filename: str) -> str:
    """A dotted module name for a profiled file: ``verify.engine.general``, ``mpmath``, ..."""
    if filename.startswith("<") or filename == "~":
        return "builtins"
    parts = Path(filename).with_suffix("").parts
    for anchor in ("site-packages", "dist-packages"):
        if anchor in parts:
            rest = parts[parts.index(anchor) + 1:]
            return rest[0] if rest else "builtins"
    if "verify" in parts:
        rest = parts[len(parts) - 1 - parts[::-1].index("verify"):]
        return ".".join(rest[:3] if rest[1:2] in (("engine",), ("results",)) else rest[:2])
    return "python"


def phase_of(module: str) -> str:
    for name, prefixes in PHASES:
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return name
    return "other"


def by_module(stats: pstats.Stats) -> dict[str, float]:
    """Own time per module; a built-in function's (``len``, a gmpy2 or numpy C call) goes to the
    modules that called it, in proportion to the calls' times."""
    out: dict[str, float] = defaultdict(float)
    for (filename, _, _), (_, _, tottime, _, callers) in stats.stats.items():  # type: ignore[attr-defined]
        module = module_of(filename)
        if module == "builtins" and callers:
            shares = {caller: numbers[2] for caller, numbers in callers.items()}
            whole = sum(shares.values())
            for caller, t in shares.items():
                share = t / whole if whole else 1 / len(shares)
                out[module_of(caller[0])] += tottime * share
        else:
            out[module] += tottime
    return dict(out)


def _judge(check_id: str, options: dict, index: int, profile: Profile, profiled: bool):
    consts = values(load())
    check = next(c for r in REGISTRY for c in r.checks if c.id == check_id)
    case = check.cases(profile, consts, options)[index]
    # the default (wall) timer: process_time costs a system call per event and swells the
    # share of small functions; the shares are what this run is for, the CPU-s come unprofiled
    profiler = cProfile.Profile() if profiled else None
    start = time.process_time()
    if profiler:
        profiler.enable()
    outcome = check.judge(case, consts)
    if profiler:
        profiler.disable()
    seconds = time.process_time() - start
    return case.label, outcome.passed, seconds, by_module(pstats.Stats(profiler)) if profiler else {}


def profile_case(check_id: str, options: dict, index: int, profile: Profile) -> tuple[str, float, dict]:
    """The case's CPU-seconds without the profiler, and its time by module under it: each in a
    fresh process (the engine's caches would make a second run in one process cheaper)."""
    with ProcessPoolExecutor(1) as pool:
        label, passed, seconds, _ = pool.submit(_judge, check_id, options, index, profile, False).result()
    with ProcessPoolExecutor(1) as pool:
        _, _, profiled, modules = pool.submit(_judge, check_id, options, index, profile, True).result()
    print(f"{check_id} [{label}]: {'pass' if passed else passed}, {seconds:.2f} CPU-s "
          f"({profiled:.2f} under the profiler)", flush=True)
    return label, seconds, modules


def parse_case(text: str) -> tuple[str, dict, int]:
    """``CHECK`` or ``CHECK:d=16`` (one value of d)."""
    check_id, _, rest = text.partition(":")
    options = {"d": [int(rest.split("=")[1])]} if rest else {}
    return check_id, options, 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="*", default=list(REPRESENTATIVE), help="result ids")
    parser.add_argument("--case", action="append", default=[], help="CHECK or CHECK:d=N instead")
    parser.add_argument("--profile", choices=[p.value for p in Profile], default="quick")
    parser.add_argument("--top", type=int, default=5, help="modules listed per case")
    args = parser.parse_args()
    jobs = [parse_case(c) for c in args.case] or [REPRESENTATIVE[r] for r in args.results]
    print(f"profile {args.profile}; pid {os.getpid()}; load average {os.getloadavg()[0]:.1f} "
          "(a shared machine moves these numbers)")
    table = []
    for check_id, options, index in jobs:
        label, seconds, modules = profile_case(check_id, options, index, Profile(args.profile))
        total = sum(modules.values()) or 1.0
        phases: dict[str, float] = defaultdict(float)
        for module, t in modules.items():
            phases[phase_of(module)] += t
        table.append((check_id, label, seconds, phases))
        for module, t in sorted(modules.items(), key=lambda kv: -kv[1])[:args.top]:
            print(f"    {module:34s} {t:8.2f} s  {100 * t / total:5.1f} %")
    names = [name for name, _ in PHASES] + ["other"]
    print()
    print("| check | case | CPU-s | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for check_id, label, seconds, phases in table:
        total = sum(phases.values()) or 1.0
        print(f"| {check_id} | {label} | {seconds:.2f} | "
              + " | ".join(f"{100 * phases[n] / total:.0f} %" for n in names) + " |")


if __name__ == "__main__":
    main()
