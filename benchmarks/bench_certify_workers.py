"""`verify certify` on a four-dimensional box: 2 workers against 1 (run by hand, on an idle
machine: the ratio measures the machine as much as the code).

    nice python benchmarks/bench_certify_workers.py [--dask] [--box small|medium]
    python benchmarks/bench_certify_workers.py --capacity     (what 2 processes get here)
    python benchmarks/bench_certify_workers.py --model JOURNAL (the schedule's bound)

Runs the same branch and bound of ``thm2-4d`` over a box of (d, eps, u, v) with ``--workers 1``
(in this process), ``--workers 2`` (a process pool kept for the run) and, with ``--dask``, a
LocalCluster of 2; prints wall-clock seconds, CPU-seconds of the judging processes, the ratio
1 worker / 2 workers (target >= 1.8) and whether the certificates' bytes agree (they must).

``--capacity`` burns the CPU for 15 s in 1 and then in 2 processes and prints the CPU-seconds
each got: on a machine shared under a fair-share scheduler (Linux autogroups) 2 processes of one
session get the CPU time of 1, and no executor can be faster there.  ``--model JOURNAL`` reads
a run's box journal (``verify certify --journal``), replays its generations in chunks on 2
workers that each take the next box when free, from each box's recorded CPU-seconds, and
prints serial / parallel: the ratio the branch and bound's structure allows on an idle machine.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verify.cli import main  # noqa: E402

BOXES = {
    # d, eps, u, v: about 200 boxes judged, 25 CPU-s (a region where the 2-D box needed 44 leaves)
    "small": ["--d", "3", "3.1", "--eps", "0.5", "0.99"],
    # about 2,500 boxes
    "medium": ["--d", "3", "4", "--eps", "0.1", "0.99"],
}


def run(box: list[str], out: Path, *flags: str) -> tuple[float, str]:
    start = time.perf_counter()
    code = main(["certify", "thm2-4d", *box, "--max-depth", "40", "--output", str(out), *flags])
    seconds = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"certify failed with exit code {code}")
    return seconds, out.read_text()


def _burn(seconds: float) -> float:
    start, cpu = time.time(), time.process_time()
    while time.time() - start < seconds:
        pass
    return time.process_time() - cpu


def capacity() -> None:
    from concurrent.futures import ProcessPoolExecutor

    for n in (1, 2):
        with ProcessPoolExecutor(n) as pool:
            got = list(pool.map(_burn, [15.0] * n))
        print(f"{n} process(es), 15 s: CPU-s {[round(x, 2) for x in got]} (total {sum(got):.1f})")


def model(journal: Path) -> None:
    import json
    from collections import defaultdict

    from verify.certify.branch import CHUNK

    records = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    generations = defaultdict(list)
    for r in records:  # a run from the root: generation = depth, in queue order
        generations[r["depth"]].append(r["cpu"])
    serial = sum(r["cpu"] for r in records)
    parallel = 0.0
    for costs in generations.values():
        for pos in range(0, len(costs), CHUNK):
            busy = [0.0, 0.0]
            for c in costs[pos:pos + CHUNK]:
                busy[busy.index(min(busy))] += c
            parallel += max(busy)
    print(f"{len(records)} boxes: serial {serial:.1f} CPU-s, 2 workers {parallel:.1f} s; "
          f"ratio {serial / parallel:.3f}")


def main_bench() -> None:
    if "--capacity" in sys.argv:
        return capacity()
    if "--model" in sys.argv:
        return model(Path(sys.argv[sys.argv.index("--model") + 1]))
    box = BOXES["medium" if "--box" in sys.argv and "medium" in sys.argv else "small"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        one, cert1 = run(box, folder / "one.json")
        two, cert2 = run(box, folder / "two.json", "--workers", "2")
        print(f"1 worker: {one:.1f} s; 2 workers (pool): {two:.1f} s; ratio {one / two:.2f} "
              f"(target >= 1.8); same bytes: {cert1 == cert2}")
        if "--dask" in sys.argv:
            dask, cert3 = run(box, folder / "dask.json", "--cluster", "local", "--workers", "2")
            print(f"2 workers (Dask LocalCluster): {dask:.1f} s; ratio {one / dask:.2f}; "
                  f"same bytes: {cert1 == cert3}")


if __name__ == "__main__":
    main_bench()
