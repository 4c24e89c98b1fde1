"""One run: a task, a plan and a seed -> train loss, test metric and the gap trajectory.

Randomness: ``SeedSequence([seed, task number])`` spawns the training-data, test-data, task
(targets, bigram chain, k*, v*) and initialisation generators, so every plan of a seed sees the
same data and the same random initialisation (common random numbers across plans), and the same
seed gives the same bytes.
"""
from __future__ import annotations

import time
from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from . import config, curvature
from .bigram import BIGRAM
from .counting import AND, OCCURRENCE, OR
from .evenpairs import EVEN_PAIRS
from .plans import PLANS, schedule, train
from .slr import SLR

TASKS = {t.name: t for t in (OCCURRENCE, OR, AND, EVEN_PAIRS, BIGRAM, SLR)}
TASK_LABELS = {"occurrence": "Occurrence", "or": "OR", "and": "AND", "even_pairs": "Even pairs",
               "icl_bigram": "ICL bigram", "slr": "SLR"}


def task_of(name: str):
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r} (tasks: {', '.join(TASKS)})") from None


def settings(name: str, profile: str) -> dict[str, Any]:
    """The resolved settings of a task under a profile (config rules evaluated at its size; an
    output step written "curvature" is the curvature rule's, :func:`curvature_step`)."""
    task = task_of(name)
    flat = config.flat(name, profile)
    cfg = config.resolve(flat, task.size(flat))
    if cfg.get("eta_output") == "curvature":
        cfg["eta_output"] = curvature_step(name, profile)
    return cfg


@lru_cache(maxsize=None)
def curvature_step(name: str, profile: str) -> float:
    """eta_O = 1 / lambda_max at the ideal attention on the training set of the held-out seed
    :data:`curvature.SEED` (:mod:`.curvature`), once per task and profile and process."""
    task = task_of(name)
    flat = config.flat(name, profile)
    cfg = config.resolve(flat, task.size(flat))
    problem = task.sample(cfg, tuple(generators(name, curvature.SEED)[:3]))
    return curvature.output_step(task, problem)


def generators(name: str, seed: int) -> list[np.random.Generator]:
    index = list(TASKS).index(name)
    return [np.random.default_rng(s) for s in np.random.SeedSequence([seed, index]).spawn(4)]


def run_one(name: str, plan: str, seed: int, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Train one plan on one seeded draw of the task; the record stored in the journal."""
    return run_seed(name, seed, cfg, [(plan, {})])[0]


def run_seed(name: str, seed: int, cfg: Mapping[str, Any],
             specs: list[tuple[str, Mapping[str, Any]]], task=None) -> list[dict[str, Any]]:
    """Train each (plan, overrides) of ``specs`` on the same seeded draw of the task, drawn
    once: the records of :func:`run_one` for ``dict(cfg, **overrides)``, byte for byte (each run
    starts its initialisation generator afresh).  The draw's cost is counted in the first
    record's times.  ``task`` is the registered task of that name unless given (a variant with
    another number of heads: its data, drawn from the name's generators, are the same)."""
    task = task_of(name) if task is None else task
    for plan, _ in specs:
        if plan not in PLANS:
            raise ValueError(f"unknown plan {plan!r} (plans: {', '.join(PLANS)})")
    wall, cpu = time.perf_counter(), time.process_time()
    r_train, r_test, r_task, _ = generators(name, seed)
    problem = task.sample(cfg, (r_train, r_test, r_task))
    records = []
    for plan, overrides in specs:
        run_cfg = {**cfg, **overrides}
        params = task.init(problem, generators(name, seed)[3], plan.endswith("-zero"), run_cfg)
        params, traj, blown = train(task, problem, params, schedule(plan, run_cfg))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            train_loss = float("inf") if blown else task.loss(params, problem.train)
            test = float("nan") if blown else task.evaluate(params, problem.test)
        now_wall, now_cpu = time.perf_counter(), time.process_time()
        records.append({"train_loss": float(train_loss), "test": float(test), "diverged": blown,
                        "trajectory": traj.as_dict(), "seconds": now_wall - wall,
                        "cpu_seconds": now_cpu - cpu})
        wall, cpu = now_wall, now_cpu
    return records
