"""One run: a task, a plan and a seed -> train loss, test metric and the gap trajectory.

Randomness: ``SeedSequence([seed, task number])`` spawns the training-data, test-data, task
(targets, bigram chain, k*, v*) and initialisation generators, so every plan of a seed sees the
same data and the same random initialisation (common random numbers across plans), and the same
seed gives the same bytes.
"""
from __future__ import annotations

import time
from typing import Any, Mapping

import numpy as np

from . import config
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
    """The resolved settings of a task under a profile (config rules evaluated at its size)."""
    task = task_of(name)
    flat = config.flat(name, profile)
    return config.resolve(flat, task.size(flat))


def generators(name: str, seed: int) -> list[np.random.Generator]:
    index = list(TASKS).index(name)
    return [np.random.default_rng(s) for s in np.random.SeedSequence([seed, index]).spawn(4)]


def run_one(name: str, plan: str, seed: int, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Train one plan on one seeded draw of the task; the record stored in the journal."""
    if plan not in PLANS:
        raise ValueError(f"unknown plan {plan!r} (plans: {', '.join(PLANS)})")
    task = task_of(name)
    start = time.perf_counter()
    r_train, r_test, r_task, r_init = generators(name, seed)
    problem = task.sample(cfg, (r_train, r_test, r_task))
    params = task.init(problem, r_init, plan.endswith("-zero"), cfg)
    params, traj, finite = train(task, problem, params, schedule(plan, cfg))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        train_loss = task.loss(params, problem.train) if finite else float("inf")
        test = task.evaluate(params, problem.test) if finite else float("nan")
    return {"train_loss": float(train_loss), "test": float(test), "finite": finite,
            "trajectory": traj.as_dict(), "seconds": time.perf_counter() - start}
