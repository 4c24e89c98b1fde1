"""A whole profile's CPU-seconds, per check and in all, for this checkout or another one (run by
hand, not in CI): how issue 16's cut of the full profile was measured (profile_full.md).

    nice python benchmarks/bench_full.py --profile full --out /tmp/after
    git archive 9823878 | tar -x -C /tmp/before-tree
    nice python benchmarks/bench_full.py --profile full --tree /tmp/before-tree --out /tmp/before
    python benchmarks/bench_full.py --compare /tmp/before/cpu.json /tmp/after/cpu.json
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_full.py --tree /tmp/before-tree --check thm1 \
        --workers 1 --out /tmp/before-thm1-1blas          # one result, as `verify check thm1`

Each run is ``verify all --profile P --workers N`` of the tree's own ``verify`` package in a fresh
interpreter, with one instrument added from outside the tree, so that an old checkout is measured
exactly like this one: the runner's ``run_group`` (one task: the checks of a result on one
case, in one worker) is wrapped to read ``time.process_time()`` (every thread of the worker, its
BLAS threads included) around the task.  A task's CPU time is shared among its checks in
proportion to their wall time.  ``cpu_seconds`` is the sum over the tasks; ``all_cpu_seconds``
(``getrusage`` of the finished command and its workers) adds the main process: listing the
cases, the report, the pool's start-up.  The wrapper changes no outcome; it only needs ``run_group``
to take a task and return ``(check, case, outcome, time)`` tuples, as every version since the
process pool has.  The environment is passed on as it is (``OPENBLAS_NUM_THREADS`` included):
a checkout that does not set one BLAS thread per process spins a second one, and that is what
its users pay.  ``cpu.json`` holds the per-check sums, the total, the wall time and the exit code.

Compare runs made one after the other on the same machine with nothing else running: CPU time
barely moves with the load, but a spinning BLAS thread and hyper-threads sharing a core do.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import textwrap
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

DRIVER = textwrap.dedent("""
    import json, os, sys, time
    sys.path.insert(0, sys.argv[1])
    log = sys.argv[2]
    try:
        from verify.cli import app as cli
        from verify.run import runner
    except ImportError:  # a checkout from before verify/cli/ and verify/run/
        from verify import cli, runner
    name = "run_group" if hasattr(runner, "run_group") else "_run_group"  # before issue 36
    real = getattr(runner, name)
    def timed(*args):  # (group) before verify/run/, (resolve, group) after
        cpu = time.process_time()
        out = real(*args)
        cpu = time.process_time() - cpu
        walls = [(row[0], row[1], float(row[3][0] if isinstance(row[3], tuple) else row[3]))
                 for row in out]
        line = json.dumps({"pid": os.getpid(), "cpu": cpu, "cases": walls})
        with open(log, "a") as handle:
            handle.write(line + "\\n")
        return out
    setattr(runner, name, timed)
    sys.exit(cli.main(sys.argv[3:]))
""")


def per_check(log: Path) -> dict[str, float]:
    """CPU-seconds per check: each task's CPU time shared by its checks' wall times."""
    out: dict[str, float] = defaultdict(float)
    for line in log.read_text().splitlines():
        task = json.loads(line)
        walls = sum(w for _, _, w in task["cases"])
        for check, _, wall in task["cases"]:
            out[check] += task["cpu"] * (wall / walls if walls else 1 / len(task["cases"]))
    return dict(out)


def measure(tree: Path, profile: str, workers: int, out: Path, only: list[str]) -> dict:
    """Run the profile (``verify all``, or ``verify check ID`` for each of ``only``) and write
    cpu.json."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / "tasks.jsonl"
    log.unlink(missing_ok=True)
    commands = [["check", check] for check in only] or [["all"]]
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = 0
    for index, command in enumerate(commands):
        name = "report" if not only else f"report-{index}"
        argv = [sys.executable, "-c", DRIVER, str(tree), str(log), *command, "--profile", profile,
                "--workers", str(workers), "--json", str(out / f"{name}.json"),
                "--output", str(out / f"{name}.md")]
        code = max(code, subprocess.run(argv, cwd=out, stdout=subprocess.DEVNULL).returncode)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    everything = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    checks = per_check(log)
    data = {"tree": str(tree), "profile": profile, "workers": workers, "only": only,
            "exit_code": code,
            "wall_seconds": round(wall, 1), "cpu_seconds": round(sum(checks.values()), 1),
            "all_cpu_seconds": round(everything, 1),
            "by_check": {k: round(v, 2) for k, v in sorted(checks.items())},
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS")}
    (out / "cpu.json").write_text(json.dumps(data, indent=1) + "\n")
    return data


def verdicts(folder: Path) -> dict[str, tuple[str, int, int]]:
    """check -> (status, cases, held-out passes) from the run's report*.json."""
    return {c["check"]: (c["status"], c["cases"], c["passed"])
            for path in sorted(folder.glob("report*.json"))
            for c in json.loads(path.read_text())["checks"]}


def compare_verdicts(before: dict, after: dict) -> None:
    """The checks whose status, case count or pass count differ between the two runs."""
    same = 0
    for check in sorted(set(before) | set(after)):
        b, a = before.get(check), after.get(check)
        if b == a:
            same += 1
            continue
        def text(v):
            return "absent" if v is None else f"{v[0]} ({v[2]}/{v[1]} held-out passes)"
        print(f"  {check}: {text(b)} -> {text(a)}")
    print(f"  {same} checks with the same status, cases and passes")


def compare(before: dict, after: dict) -> None:
    """Per result (the check ids' first part) and in all: before, after and the ratio."""
    def by_result(data: dict) -> dict[str, float]:
        sums: dict[str, float] = defaultdict(float)
        for check, cpu in data["by_check"].items():
            sums[check.split(".")[0]] += cpu
        return sums

    b, a = by_result(before), by_result(after)
    print(f"{'result':24s} {'before':>9s} {'after':>9s} {'ratio':>7s}")
    for key in sorted(set(b) | set(a), key=lambda k: -b.get(k, 0.0)):
        ratio = b.get(key, 0.0) / a[key] if a.get(key) else float("nan")
        print(f"{key:24s} {b.get(key, 0.0):9.1f} {a.get(key, 0.0):9.1f} {ratio:7.2f}")
    print(f"{'total':24s} {before['cpu_seconds']:9.1f} {after['cpu_seconds']:9.1f} "
          f"{before['cpu_seconds'] / after['cpu_seconds']:7.2f}")
    print(f"wall: {before['wall_seconds']:.0f} s and {after['wall_seconds']:.0f} s "
          f"({before['workers']} and {after['workers']} workers)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=HERE, help="checkout to measure (default: this one)")
    parser.add_argument("--profile", default="full")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--check", action="append", default=[], metavar="ID",
                        help="run `verify check ID` instead of `verify all` (repeatable)")
    parser.add_argument("--out", type=Path, help="folder for the report, the task log and cpu.json")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                        help="print two cpu.json files side by side instead of running")
    args = parser.parse_args()
    if args.compare:
        compare(*(json.loads(p.read_text()) for p in args.compare))
        print("verdicts (report.json beside each cpu.json):")
        compare_verdicts(*(verdicts(p.parent) for p in args.compare))
        return
    if args.out is None:
        parser.error("--out is needed to run")
    data = measure(args.tree.resolve(), args.profile, args.workers, args.out, args.check)
    print(json.dumps({k: v for k, v in data.items() if k != "by_check"}))


if __name__ == "__main__":
    main()
