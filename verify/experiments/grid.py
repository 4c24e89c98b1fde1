"""The grid of runs (task x plan x seed) through the journal of ``verify all``: each finished run
is one journal line (check id ``experiments.<task>``, case ``plan=<plan>, seed=<seed>``), so a
stopped grid resumes where it stopped, and runs of a smaller grid are reused by a larger one.

The journal's key holds the profile, a digest of the task configurations and a fingerprint of
the code that computes runs (this package and the engine); a journal of another key is refused.
Runs are spread over worker processes; records are returned in grid order whatever the workers'
completion order, so the outputs' bytes do not depend on ``--workers``.
"""
from __future__ import annotations

import hashlib
import json
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Callable, Sequence

from ..checks import Evidence, Outcome
from ..run.journal import PACKAGE, Journal, run_key
from . import config
from .run import TASKS, run_one, settings

RECORD_KEYS = ("train_loss", "test", "finite")


def job_label(plan: str, seed: int) -> str:
    return f"plan={plan}, seed={seed}"


def check_id(task: str) -> str:
    return f"experiments.{task}"


def fingerprint(tasks: Sequence[str]) -> str:
    """SHA-256 over the computing code (this package, the engine) and the tasks' configs."""
    digest = hashlib.sha256()
    files = sorted((PACKAGE / "experiments").rglob("*.py")) + sorted((PACKAGE / "engine").rglob("*.py"))
    for f in files:
        digest.update(str(f.relative_to(PACKAGE)).encode() + b"\0" + f.read_bytes() + b"\0")
    for task in sorted(tasks):
        digest.update(task.encode() + b"\0" + config.text(task).encode() + b"\0")
    return digest.hexdigest()


def open_journal(path: Path, profile: str) -> Journal:
    key = run_key(profile, {}, {"experiments": True}, code=fingerprint(list(TASKS)))
    return Journal(path, key)


def _outcome(label: str, record: dict) -> Outcome:
    values = {k: record[k] for k in RECORD_KEYS}
    values["trajectory"] = json.dumps(record["trajectory"], separators=(",", ":"))
    return Outcome(label, None, None, Evidence.EXHIBIT, "experiment run", values=values)


def _record(outcome: Outcome) -> dict:
    values = dict(outcome.values)
    values["trajectory"] = json.loads(values["trajectory"])
    return values


def _work(job: tuple[str, str, int, str]) -> tuple[str, str, int, dict]:
    task, plan, seed, profile = job
    return task, plan, seed, run_one(task, plan, seed, settings(task, profile))


def run_grid(tasks: Sequence[str], plans: Sequence[str], seeds: Sequence[int], profile: str,
             workers: int = 1, journal: Journal | None = None,
             progress: Callable[[int, int], None] | None = None) -> dict:
    """records[task][plan] = list of run records, one per seed, in seed order."""
    for task in tasks:
        settings(task, profile)  # validate every configuration before any work
    records: dict = {t: {p: {} for p in plans} for t in tasks}
    todo = []
    for task in tasks:
        for plan in plans:
            for seed in seeds:
                key = (check_id(task), job_label(plan, seed))
                if journal is not None and key in journal.done:
                    records[task][plan][seed] = _record(journal.done[key][0])
                else:
                    todo.append((task, plan, seed, profile))
    total = len(tasks) * len(plans) * len(seeds)
    done = total - len(todo)
    if progress:
        progress(done, total)
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 and todo else None
    stream = (f.result() for f in as_completed([pool.submit(_work, j) for j in todo])) if pool \
        else map(_work, todo)
    try:
        for task, plan, seed, record in stream:
            if journal is not None:
                journal.record(check_id(task), job_label(plan, seed),
                               _outcome(job_label(plan, seed), record), record["seconds"])
            records[task][plan][seed] = record
            done += 1
            if progress:
                progress(done, total)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return {t: {p: [records[t][p][s] for s in seeds] for p in plans} for t in tasks}
