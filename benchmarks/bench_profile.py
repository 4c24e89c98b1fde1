"""Where the heavy checks spend their time: one representative case of each, under cProfile,
its own time (``tottime``) summed by module and then by phase (run by hand, not in CI).

    nice python benchmarks/bench_profile.py                      # all eight, quick profile
    nice python benchmarks/bench_profile.py prop1 prop2 --profile default
    nice python benchmarks/bench_profile.py --case thm1.floor:d=16
    nice python benchmarks/bench_profile.py --profile full                # the full profile's
    nice python benchmarks/bench_profile.py --profile full --before /tmp/main   # before/after

``--profile full`` takes the full profile's representative cases (``FULL_REPRESENTATIVE``):
the full case's own parameters, with a smaller budget where the whole case runs for many
minutes (fewer random starts and Nelder-Mead evaluations: each costs what one random start
costs, all targets at all etas or at one, so the budget multiplies a cost the cut case measures).  ``--before PATH`` times each case also with the ``verify`` package of another
checkout (``git archive main | tar -x -C PATH``), alternately in fresh processes, and prints
the ratios: before and after measured in one session, on the same cases.

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
import json
import os
import pstats
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# the environment as the user set it: importing verify sets one BLAS thread per process by
# default, which the other checkout (--before) must not inherit from this process
USER_ENV = dict(os.environ)
sys.path.insert(0, os.environ.get("BENCH_TREE") or str(Path(__file__).resolve().parent.parent))

from verify.checks import Case, Profile  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.results import REGISTRY  # noqa: E402

# result -> (check, options, index of the case among those the options give[, overrides of the
# case's params]): the heaviest check of each result, on a case of the middle of its range.
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
# the full profile: its heaviest cases, a budget cut where one would run for many minutes
FULL_REPRESENTATIVE = {
    "thm1.large_output": ("thm1.large_output", {"d": [32]}, 0, {"random": 2, "evals": 0}),
    "thm1.floor": ("thm1.floor", {"d": [16]}, 0, {"random": 1, "starts": 1, "evals": 20}),
    "cor1": ("cor1.samples", {}, 150, {}),
    "cor1.d100": ("cor1.samples", {"d": [100], "eps": [0.001]}, 1, {}),  # c = 1, R = 230
    "cor1.d200": ("cor1.samples", {"d": [200], "eps": [0.9]}, 0, {}),  # c = 1/2, R = 780
    "prop2.d25": ("prop2.floor", {"d": [25]}, 0, {"random": 1, "nm_starts": 0}),
    "prop1.box": ("prop1.certified_box", {}, 0, {}),  # the whole box (a certificate's, after)
    "cor1.box": ("cor1.certified_box", {}, 0, {}),
    "contrast": ("contrast.separation", {"d": [9]}, 0, {}),
    "prop4": ("prop4.floor", {"d": [16]}, 0, {}),
    "prop2": ("prop2.floor", {"d": [16]}, 0, {}),
    "lemma-low-attention": ("lemma-low-attention.bound", {}, 20, {}),
    "prop1": ("prop1.general", {}, 90, {}),
    "thm2": ("thm2.final", {"d": [10], "eps": [0.01]}, 0, {}),
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


def _judge(check_id: str, options: dict, index: int, profile: Profile, profiled: bool,
           overrides: dict | None = None):
    consts = values(load())
    check = next(c for r in REGISTRY for c in r.checks if c.id == check_id)
    case = check.cases(profile, consts, options)[index]
    if overrides:
        case = Case(case.label + " " + ",".join(f"{k}={v}" for k, v in overrides.items()),
                    {**case.params, **overrides})
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


def profile_case(check_id: str, options: dict, index: int, profile: Profile,
                 overrides: dict | None = None) -> tuple[str, float, dict]:
    """The case's CPU-seconds without the profiler, and its time by module under it: each in a
    fresh process (the engine's caches would make a second run in one process cheaper)."""
    job = (check_id, options, index, profile)
    with ProcessPoolExecutor(1) as pool:
        label, passed, seconds, _ = pool.submit(_judge, *job, False, overrides).result()
    with ProcessPoolExecutor(1) as pool:
        _, _, profiled, modules = pool.submit(_judge, *job, True, overrides).result()
    print(f"{check_id} [{label}]: {'pass' if passed else passed}, {seconds:.2f} CPU-s "
          f"({profiled:.2f} under the profiler)", flush=True)
    return label, seconds, modules


def timed_in(tree: Path, job: tuple, profile: Profile) -> tuple[str, object, float]:
    """(label, passed, CPU-s) of one case with the ``verify`` package of ``tree``, in a fresh
    interpreter (so the other checkout's package and BLAS settings are its own)."""
    check_id, options, index, overrides = job
    code = ("import json, sys; sys.path.insert(0, sys.argv[2]);"
            "import bench_profile as b; from verify.checks import Profile;"
            "a = json.loads(sys.argv[3]);"
            "r = b._judge(a[0], a[1], a[2], Profile(a[3]), False, a[4]);"
            "print(json.dumps(r[:3]))")
    env = {k: v for k, v in USER_ENV.items() if k != "PYTHONPATH"} | {"BENCH_TREE": str(tree)}
    arg = json.dumps([check_id, options, index, profile.value, overrides])
    out = subprocess.run([sys.executable, "-c", code, str(tree), str(Path(__file__).parent), arg],
                         env=env, capture_output=True, text=True, check=True, cwd=tree)
    return tuple(json.loads(out.stdout.strip().splitlines()[-1]))


def compare(jobs: list, profile: Profile, before: Path) -> None:
    """Before (``before``'s package) and after (this checkout's), alternately, one case at a time."""
    after = Path(__file__).resolve().parent.parent
    rows = []
    for job in jobs:
        lb, pb, sb = timed_in(before, job, profile)
        la, pa, sa = timed_in(after, job, profile)
        print(f"{job[0]} [{la}]: before {sb:.2f} CPU-s ({pb}), after {sa:.2f} CPU-s ({pa}), "
              f"x{sb / sa:.2f}", flush=True)
        rows.append((job[0], la, sb, sa, pb, pa))
    print()
    print("| check | case | before CPU-s | after CPU-s | ratio | verdict before / after |")
    print("|---|---|---|---|---|---|")
    for check_id, label, sb, sa, pb, pa in rows:
        print(f"| {check_id} | {label} | {sb:.2f} | {sa:.2f} | x{sb / sa:.2f} | {pb} / {pa} |")


def parse_case(text: str) -> tuple[str, dict, int, dict]:
    """``CHECK``, ``CHECK:d=16`` (one value of d) or ``CHECK:d=32,evals=4`` (with overrides of
    the case's parameters, integers)."""
    check_id, _, rest = text.partition(":")
    pairs = dict(kv.split("=") for kv in rest.split(",")) if rest else {}
    options = {"d": [int(pairs.pop("d"))]} if "d" in pairs else {}
    return check_id, options, 0, {k: int(v) for k, v in pairs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="*", help="result ids (full: the keys of FULL_REPRESENTATIVE)")
    parser.add_argument("--case", action="append", default=[], help="CHECK[:d=N,key=V] instead")
    parser.add_argument("--profile", choices=[p.value for p in Profile], default="quick")
    parser.add_argument("--top", type=int, default=5, help="modules listed per case")
    parser.add_argument("--before", type=Path, help="a checkout to time the same cases with")
    args = parser.parse_args()
    table_of = FULL_REPRESENTATIVE if args.profile == "full" else REPRESENTATIVE
    picked = [table_of[r] for r in (args.results or table_of)]
    jobs = [parse_case(c) for c in args.case] or [(*j[:3], j[3] if len(j) > 3 else {}) for j in picked]
    print(f"profile {args.profile}; pid {os.getpid()}; load average {os.getloadavg()[0]:.1f} "
          "(a shared machine moves these numbers)")
    if args.before:
        compare(jobs, Profile(args.profile), args.before.resolve())
        return
    table = []
    for check_id, options, index, overrides in jobs:
        label, seconds, modules = profile_case(check_id, options, index, Profile(args.profile),
                                               overrides)
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
