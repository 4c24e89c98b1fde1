"""Cost of the Section 5 grid (verify experiments); a plain script, not a test.

    python benchmarks/bench_experiments.py [--profile default|quick] [--reps 5]

Per task: CPU seconds (time.process_time, so a loaded machine inflates them less than wall
time) of one full gradient step (attention and output) and of one output-only step (frozen
read-out), and from them the CPU time of one seed of all seven plans, then of the grid's 50
seeds on two worker processes.  Plans: joint and A take ``steps`` full steps; the other plans
take their attention steps in full and the rest as output-only steps.
"""
from __future__ import annotations

import sys
import time

from verify.experiments.plans import PLANS, schedule
from verify.experiments.run import TASKS, generators, settings


def per_step(task, params, data, fn, reps: int) -> float:
    fixed = task.readout(params, data) if fn == "output" else None
    start = time.process_time()
    for _ in range(reps):
        if fixed is None:
            task.loss_grad(params, data)
        else:
            task.output_loss_grad(params, data, fixed)
    return (time.process_time() - start) / reps


def seed_cost(name: str, profile: str, reps: int) -> tuple[float, float, float]:
    cfg = settings(name, profile)
    task = TASKS[name]
    rngs = generators(name, 0)
    problem = task.sample(cfg, tuple(rngs[:3]))
    params = task.init(problem, rngs[3], False, cfg)
    full = per_step(task, params, problem.train, "full", reps)
    output = per_step(task, params, problem.train, "output", reps)
    total = 0.0
    for plan in PLANS:
        for phase in schedule(plan, cfg):
            only_output = set(phase.rates) == {"output"} and phase.steps > 1
            total += phase.steps * (output if only_output else full)
    return full, output, total


def main(argv: list[str]) -> int:
    profile = argv[argv.index("--profile") + 1] if "--profile" in argv else "default"
    reps = int(argv[argv.index("--reps") + 1]) if "--reps" in argv else 5
    seed_total = 0.0
    print(f"profile {profile}: CPU seconds per step and per seed (7 plans)")
    for name in TASKS:
        full, output, total = seed_cost(name, profile, reps)
        seed_total += total
        print(f"  {name:12s} full step {full * 1e3:8.2f} ms  output step {output * 1e3:8.2f} ms"
              f"  seed {total:8.1f} s")
    print(f"one seed, all tasks: {seed_total:.0f} CPU s; 50 seeds on 2 workers: "
          f"{50 * seed_total / 2 / 3600:.2f} h (plus data generation and evaluation)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
