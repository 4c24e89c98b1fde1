"""The runner on a local process pool against a Dask LocalCluster, with 1 and 2 workers (run by
hand, not in CI): wall-clock times as ratios, the Dask overhead per task, and a check that all
four runs give the same report.

    nice python benchmarks/bench_cluster.py                       # the quick profile, every check
    nice python benchmarks/bench_cluster.py --profile default     # the issue's target (>= 1.8x)
    nice python benchmarks/bench_cluster.py prop1 prop3 --workers 1,2
    nice python benchmarks/bench_cluster.py --profile default --executors process

Every configuration runs its cases in fresh worker processes (a pool of one for one worker, not
this process: the engine's caches must start cold for every configuration alike).  The Dask
cluster's start-up is timed apart from the run.  On a shared machine the times move by tens of
per cent from run to run: compare the ratios of one session, and repeat.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verify import report
from verify.run import executors, memo, runner  # noqa: E402
from verify.checks import Profile  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.results import by_id, select  # noqa: E402


def timed_run(executor: executors.Executor, ids: list[str], profile: Profile) -> tuple[float, int, dict]:
    """Wall-clock seconds of one run, its number of tasks, and its JSON report without timings."""
    consts = load()
    results = [r for r in select(ids or None) if r.checked]
    tasks = 0

    def count(done: int, total: int) -> None:
        nonlocal tasks
        tasks += 1  # called once up front and once per finished task

    with memo.temporary() as store:
        start = time.perf_counter()
        reports = runner.run(results, values(consts), profile, executor=executor, store=store, resolve=by_id,
                             check_ids=ids or None, progress=count)
        seconds = time.perf_counter() - start
    data = json.loads(report.json_report(reports, results, consts, profile))
    data.pop("timings")  # run times are kept apart from the reproducible report
    return seconds, tasks - 1, data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="results or checks (default: every check)")
    parser.add_argument("--profile", choices=[p.value for p in Profile], default="quick")
    parser.add_argument("--workers", default="1,2", help="comma list of worker counts")
    parser.add_argument("--executors", default="process,dask",
                        help="comma list of executors to time (process, dask)")
    args = parser.parse_args()
    profile = Profile(args.profile)
    counts = [int(w) for w in args.workers.split(",")]
    kinds = args.executors.split(",")
    both = {"process", "dask"} <= set(kinds)
    print(f"profile {profile.value}, checks {' '.join(args.ids) or 'all'}; "
          f"{executors.available_cores()} cores, load average {os.getloadavg()[0]:.1f}")
    times: dict[tuple[str, int], float] = {}
    reports = []
    tasks = 0
    for workers in counts:
        for kind in kinds:
            start = time.perf_counter()
            executor = executors.Process(workers) if kind == "process" else executors.Dask(workers=workers)
            startup = time.perf_counter() - start
            with executor:
                seconds, tasks, data = timed_run(executor, args.ids, profile)
            times[(kind, workers)] = seconds
            reports.append(data)
            print(f"{kind:7s} {workers} worker(s): {seconds:8.2f} s for {tasks} tasks"
                  + (f" (cluster start-up {startup:.2f} s, not counted)" if kind == "dask" else ""),
                  flush=True)
    print(f"same report in every run: {'yes' if all(r == reports[0] for r in reports) else 'NO'}")
    low, high = counts[0], counts[-1]
    for kind in kinds:
        print(f"{kind}: {high} workers vs {low}: x{times[(kind, low)] / times[(kind, high)]:.2f}")
    for workers in counts if both else ():
        print(f"{workers} worker(s): dask / process = {times[('dask', workers)] / times[('process', workers)]:.3f}")
    if 1 in counts and both:
        overhead = (times[("dask", 1)] - times[("process", 1)]) / max(tasks, 1)
        print(f"Dask overhead per task (one worker each): {1000 * overhead:+.1f} ms")


if __name__ == "__main__":
    main()
