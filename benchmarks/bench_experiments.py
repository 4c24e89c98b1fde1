"""Cost of the Section 5 grid (`verify experiments`), before and after a change, in one run; a
plain script, not a test.

    python benchmarks/bench_experiments.py [--before REV] [--profile default|quick]
        [--seeds 0] [--tasks occurrence,...] [--steps centre|chosen]
    python benchmarks/bench_experiments.py --journal reports/experiments/journal.jsonl

For each task, alternately on the package at ``REV`` (``git archive REV verify``, default
``BEFORE``: the commit before the count-matrix rewrite, with the fixed generators) and on this
checkout: the CPU seconds (``time.process_time`` in a fresh single-BLAS-thread process) of one
seed of every plan at the profile's sizes, data generation and evaluation included (the way
each version runs a seed: the old code draws the data once per plan, the new once per seed).
Then the 50-seed grid's CPU seconds (50 times the sum over tasks), the ratio, and how far the
two versions' results are apart: per plan the relative difference of the final train loss and
the difference of the test metric (float order changed; a run that diverged in one version only
is listed).  ``--steps chosen`` runs every plan at its frozen step sizes and Table 1's scale
(what the grid runs; both versions must have the protocol, issue 30), ``centre`` (default) at
the configurations' values.

``--journal PATH`` instead sums the CPU seconds a run of ``verify experiments`` recorded (each
run's ``time.process_time`` in its worker), per stage and task: the tuning (seeds 50-54),
Table 1's grid (seeds 0-49 at Table 1's scale, the zero plan at 0) and the init map's further
runs (seeds 0-9 at std 0 and 0.01).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "9e63801"  # generators fixed (issue 30 item 1), count-matrix rewrite not yet
TASKS = ("occurrence", "or", "and", "even_pairs", "icl_bigram", "slr")
GRID_SEEDS = 50

CHILD = r"""
import json, sys, time
args = json.loads(sys.argv[1])
import verify  # one BLAS thread (verify/__init__.py), before numpy loads
from verify.experiments import run
from verify.experiments.plans import PLANS
task, profile, seeds = args["task"], args["profile"], args["seeds"]
cfg = run.settings(task, profile)
specs = [(p, {}) for p in PLANS]
if args["steps"] == "chosen":
    from verify.experiments import protocol
    specs = [(p, protocol.overrides(p, cfg, protocol.frozen(task, p, profile), float(cfg["init_std"])))
             for p in PLANS]
start = time.process_time()
results = {}
for seed in seeds:
    if hasattr(run, "run_seed"):
        records = run.run_seed(task, seed, cfg, specs)
    else:
        records = [run.run_one(task, p, seed, {**cfg, **o}) for p, o in specs]
    for plan, rec in zip(PLANS, records):
        blown = rec["diverged"] if "diverged" in rec else not rec["finite"]
        results[f"{plan}/{seed}"] = [rec["train_loss"], rec["test"], blown]
print(json.dumps({"cpu": time.process_time() - start, "results": results}))
"""


def extract(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "verify"], check=True,
                             capture_output=True).stdout
    tree = into / "before"
    tree.mkdir()
    with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def measure(tree: Path, task: str, profile: str, seeds: list[int], steps: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(
        {"task": task, "profile": profile, "seeds": seeds, "steps": steps})], check=True, capture_output=True,
        text=True, env=env, cwd=tree)
    return json.loads(out.stdout.splitlines()[-1])


def compare(before: dict, after: dict) -> tuple[float, float, list[str]]:
    """Largest relative train-loss difference, largest test difference, runs diverged in one."""
    rel = test = 0.0
    odd = []
    for key, (loss_b, test_b, bad_b) in before.items():
        loss_a, test_a, bad_a = after[key]
        if bad_a or bad_b:
            if bad_a != bad_b:
                odd.append(key)
            continue
        rel = max(rel, abs(loss_a - loss_b) / max(abs(loss_b), 1e-300))
        if math.isfinite(test_a) and math.isfinite(test_b):
            test = max(test, abs(test_a - test_b))
    return rel, test, odd


def stage_of(case: str, table_std: float) -> str:
    """tuning, grid or map, from a journal case label ("plan=P, seed=S, ..., init_std=X"): the
    protocol's tuning seeds, Table 1's scale ``table_std`` (and the zero plan), the rest."""
    from verify.experiments import protocol

    fields = dict(part.split("=", 1) for part in case.split(", "))
    if int(fields["seed"]) in protocol.TUNING_SEEDS:
        return "tuning"
    if float(fields["init_std"]) == table_std or fields["plan"].endswith("-zero"):
        return "grid"
    return "map"


def journal_costs(path: Path) -> int:
    """Print the CPU seconds per stage and task recorded in a journal."""
    from verify.experiments import run

    costs: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    with path.open() as handle:
        next(handle)  # the key
        for line in handle:
            rec = json.loads(line)
            task = rec["check"].split(".", 1)[1]
            stage = stage_of(rec["case"], float(run.settings(task, "default")["init_std"]))
            costs.setdefault(stage, {}).setdefault(task, 0.0)
            costs[stage][task] += rec["cpu_seconds"] or 0.0
            counts[stage] = counts.get(stage, 0) + 1
    for stage in ("tuning", "grid", "map"):
        if stage in costs:
            parts = ", ".join(f"{t} {c:,.0f}" for t, c in sorted(costs[stage].items(), key=lambda x: -x[1]))
            print(f"{stage}: {counts[stage]:,} runs, {sum(costs[stage].values()):,.0f} CPU s ({parts})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--profile", default="default", choices=("quick", "default"))
    parser.add_argument("--seeds", default="0", help="comma list of seeds (default 0)")
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--steps", default="centre", choices=("centre", "chosen"),
                        help="the configurations' step sizes, or each plan's frozen ones")
    parser.add_argument("--journal", type=Path, help="sum the CPU seconds recorded in this journal instead")
    args = parser.parse_args(argv)
    if args.journal:
        return journal_costs(args.journal)
    seeds = [int(s) for s in args.seeds.split(",")]
    tasks = args.tasks.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        old = extract(args.before, Path(tmp))
        totals = {"before": 0.0, "after": 0.0}
        print(f"profile {args.profile}, seeds {seeds}, {args.steps} steps: CPU s per seed of all 7 plans "
              f"(before = {args.before}, after = this checkout)")
        print(f"  {'task':12s} {'before':>9s} {'after':>9s} {'ratio':>7s}   "
              f"max rel. train-loss diff, max test diff")
        for task in tasks:
            b = measure(old, task, args.profile, seeds, args.steps)
            a = measure(ROOT, task, args.profile, seeds, args.steps)
            per_b, per_a = b["cpu"] / len(seeds), a["cpu"] / len(seeds)
            totals["before"] += per_b
            totals["after"] += per_a
            rel, test, odd = compare(b["results"], a["results"])
            note = f"; diverged in one version only: {', '.join(odd)}" if odd else ""
            print(f"  {task:12s} {per_b:9.2f} {per_a:9.2f} {per_b / per_a:7.1f}   "
                  f"{rel:.1e}, {test:.1e}{note}", flush=True)
        grid_b, grid_a = GRID_SEEDS * totals["before"], GRID_SEEDS * totals["after"]
        print(f"one seed, all tasks: {totals['before']:.1f} -> {totals['after']:.1f} CPU s; the "
              f"{GRID_SEEDS}-seed grid: {grid_b:,.0f} -> {grid_a:,.0f} CPU s "
              f"(x{grid_b / grid_a:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
