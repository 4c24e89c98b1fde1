"""The runs of the heads question (Section 6's open question; the study is :mod:`.heads`): one
counting task with H heads at alphabet size d, trained by one plan on one seed.

Settings (ours, the sample route's): the task's configuration (default profile) at alphabet
size d with N = d^2 training and d^2 test words and ``STEPS`` GD steps; model (2) with H heads
(bias -1 for occurrence, trainable for AND; AND's heads anti-symmetric as its configuration
says for even H, Gaussian for odd H, which cannot be paired); every output phase of several
steps at the curvature step of the H-head model (:mod:`.curvature`, the protocol's rule 1).
A run's data depend on the task, d and the seed only, so every H and plan of a seed sees the
same words (pairs over seeds are paired in data).

A run is a :class:`HeadsRun`; :func:`batch` and :func:`worker` let :func:`.grid.run_all`
journal and spread them like the grid's runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from . import config, curvature
from .counting import CountingTask
from .grid import chunks
from .run import generators, run_seed

STEPS = 200
RULES = {"occurrence": ("any", 1, False), "and": ("all", 2, True)}  # rule, targets, trainable bias
TABLE_HEADS = {"occurrence": 1, "and": 4}  # the baseline's model: Table 1's


def task_with(name: str, H: int) -> CountingTask:
    rule, targets, bias = RULES[name]
    return CountingTask(name, targets, rule, H, trainable_bias=bias)


@lru_cache(maxsize=None)
def output_step(name: str, H: int, d: int) -> float:
    """The curvature rule's output step for the H-head model, on the training set of the
    held-out seed ``curvature.SEED``."""
    problem = task_with(name, H).sample(_base(name, d), tuple(generators(name, curvature.SEED)[:3]))
    return curvature.output_step(task_with(name, H), problem)


def _base(name: str, d: int) -> dict[str, Any]:
    flat = dict(config.flat(name, "default"))
    flat.update(d=d, train=d * d, test=d * d, steps=STEPS)
    return config.resolve(flat, d)


def settings_at(name: str, d: int, H: int) -> dict[str, Any]:
    """A run's settings before its plan's overrides (module docstring)."""
    cfg = _base(name, d)
    cfg["eta_output"] = output_step(name, H, d)
    if H % 2:
        cfg["init"] = "gaussian"
    return cfg


@dataclass(frozen=True, order=True)
class HeadsRun:
    """One run: task, d, H, plan, seed and the settings it overrides (sorted pairs)."""

    task: str
    d: int
    heads: int
    plan: str
    seed: int
    overrides: tuple[tuple[str, float], ...] = field(default=())

    @classmethod
    def of(cls, task: str, d: int, heads: int, plan: str, seed: int,
           overrides: Mapping[str, float] | None = None) -> HeadsRun:
        return cls(task, int(d), int(heads), plan, int(seed),
                   tuple(sorted((k, float(v)) for k, v in (overrides or {}).items())))

    @property
    def check_id(self) -> str:
        return f"heads.{self.task}"

    @property
    def label(self) -> str:
        return ", ".join([f"d={self.d}", f"H={self.heads}", f"plan={self.plan}", f"seed={self.seed}",
                          *(f"{k}={v!r}" for k, v in self.overrides)])


def batch(runs: list[HeadsRun], profile: str) -> list[tuple]:
    """The runs grouped by (task, d, H, seed) (:func:`.grid.chunks`: they share the data)."""
    return [(*key, chunk) for key, chunk in chunks(runs, lambda r: (r.task, r.d, r.heads, r.seed))]


def worker(job: tuple) -> list[tuple[HeadsRun, dict]]:
    """One job: the seed's words once, then each run (:func:`.run.run_seed`)."""
    name, d, H, seed, chunk = job
    specs = [(plan, dict(overrides)) for plan, overrides in chunk]
    records = run_seed(name, seed, settings_at(name, d, H), specs, task=task_with(name, H))
    return [(HeadsRun(name, d, H, plan, seed, overrides), rec)
            for (plan, overrides), rec in zip(chunk, records)]
