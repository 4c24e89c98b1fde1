"""Runs of the experiments through the journal and the executors of ``verify all``.

A run is a :class:`Run`: task, plan, seed and the settings it overrides (the initialisation
scale, the plan's step sizes).  Each finished run is one journal line (check id
``experiments.<task>``, case ``plan=<plan>, seed=<seed>[, key=value ...]``), so a stopped grid
resumes where it stopped and a run asked for twice (the init map's runs at Table 1's scale, a
tuning value) is computed once.  The journal's key holds the profile and a fingerprint of the
code that computes runs (this package, the engine) and of the tasks' configurations; a journal
of another key is refused.

Work is sent to an executor (:mod:`verify.run.executors`: in this process, a process pool, Dask) in
jobs of at most ``JOB_RUNS`` runs of one task and seed, which share the seed's data (common
random numbers: every plan of a seed sees the same data and initialisation).  Records are
returned keyed by their run, whatever the order in which jobs finished, so the outputs' bytes do
not depend on the executor or on ``--workers``.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from ..checks import Evidence, Outcome
from ..run.executors import Executor, Serial
from ..run.journal import PACKAGE, Journal, Timing, run_key
from .run import TASKS, run_seed, settings

RECORD_KEYS = ("train_loss", "test", "diverged")
# the modules a run's record depends on (with the engine and the configurations); the
# presentation (table, figure), the protocol's bookkeeping and the scripts are not among them:
# a run carries its settings in its label
COMPUTING = ("__init__", "base", "bigram", "config", "counting", "curvature", "evenpairs", "plans",
             "run", "slr", "thresholds")  # __init__ holds the plans' and tasks' names
ENGINE_USED = ("distribution", "formulas")  # the engine modules COMPUTING imports (tested)
JOB_RUNS = 8  # runs per job: enough to share the data, few enough to lose little on a stop


@dataclass(frozen=True, order=True)
class Run:
    """One training run; ``overrides`` are (setting, value) pairs applied to the profile's
    settings (sorted, so that equal runs are equal)."""

    task: str
    plan: str
    seed: int
    overrides: tuple[tuple[str, float], ...] = field(default=())

    @classmethod
    def of(cls, task: str, plan: str, seed: int, overrides: Mapping[str, float] | None = None):
        return cls(task, plan, int(seed), tuple(sorted((k, float(v)) for k, v in (overrides or {}).items())))

    @property
    def label(self) -> str:
        return ", ".join([f"plan={self.plan}", f"seed={self.seed}",
                          *(f"{k}={v!r}" for k, v in self.overrides)])

    @property
    def check_id(self) -> str:
        return f"experiments.{self.task}"


def fingerprint(tasks: Sequence[str], root: Path = PACKAGE, extra: Sequence[str] = ()) -> str:
    """SHA-256 over the code that computes runs (``COMPUTING``, the modules ``extra`` of this
    package that a study adds, and the engine modules they import, ``ENGINE_USED``) and the
    tasks' configurations."""
    digest = hashlib.sha256()
    files = [root / "experiments" / f"{name}.py" for name in (*COMPUTING, *extra)]
    files += [root / "engine" / f"{name}.py" for name in ENGINE_USED]
    for f in files:
        digest.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    for task in sorted(tasks):
        text = (root / "experiments" / "config" / f"{task}.toml").read_text()
        digest.update(task.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()


def open_journal(path: Path, profile: str, study: str = "experiments",
                 extra: Sequence[str] = ()) -> Journal:
    """The journal of a study (``verify experiments``'s grid, or another study whose runs are
    computed by the modules ``extra`` as well); a journal of another study, profile or code is
    refused."""
    key = run_key(profile, {}, {study: True}, code=fingerprint(list(TASKS), extra=extra))
    return Journal(path, key)


def _outcome(label: str, record: dict) -> Outcome:
    values = {k: record[k] for k in RECORD_KEYS}
    values["trajectory"] = json.dumps(record["trajectory"], separators=(",", ":"))
    return Outcome(label, None, None, Evidence.EXHIBIT, "experiment run", values=values)


def _record(outcome: Outcome, timing: Timing) -> dict:
    values = dict(outcome.values)
    values["trajectory"] = json.loads(values["trajectory"])
    values["seconds"], values["cpu_seconds"] = timing.seconds, timing.cpu
    return values


def chunks(runs: Iterable, key: Callable) -> list[tuple[tuple, tuple]]:
    """The runs grouped by ``key(run)`` (runs that share their data), in sorted order, in
    chunks of at most JOB_RUNS: [(key, ((plan, overrides), ...))]."""
    groups: dict[tuple, list] = {}
    for run in sorted(set(runs)):
        groups.setdefault(key(run), []).append(run)
    return [(k, tuple((r.plan, r.overrides) for r in members[at:at + JOB_RUNS]))
            for k, members in groups.items() for at in range(0, len(members), JOB_RUNS)]


def jobs(runs: Iterable[Run], profile: str) -> list[tuple[str, str, int, tuple]]:
    """The runs grouped by task and seed (:func:`chunks`)."""
    return [(task, profile, seed, chunk)
            for (task, seed), chunk in chunks(runs, lambda r: (r.task, r.seed))]


def work(job: tuple[str, str, int, tuple]) -> list[tuple[Run, dict]]:
    """One job in a worker: the seed's data once, then each run."""
    task, profile, seed, chunk = job
    specs = [(plan, dict(overrides)) for plan, overrides in chunk]
    records = run_seed(task, seed, settings(task, profile), specs)
    return [(Run(task, plan, seed, overrides), rec) for (plan, overrides), rec in zip(chunk, records)]


def run_all(runs: Iterable, profile: str, executor: Executor | None = None,
            journal: Journal | None = None,
            progress: Callable[[int, int], None] | None = None,
            batch: Callable[[list, str], list] = jobs, worker: Callable = work) -> dict:
    """Every run's record (from the journal, else computed on ``executor``).  A run is a
    :class:`Run`, or any ordered, hashable object with ``task``, ``check_id`` and ``label`` that
    ``batch(runs, profile)`` groups into jobs and the picklable ``worker(job)`` computes into
    [(run, record)] (a study's own runs, such as the heads question's)."""
    runs = sorted(set(runs))
    for task in sorted({r.task for r in runs}):
        settings(task, profile)  # validate every configuration before any work
    records: dict[Run, dict] = {}
    todo = []
    for run in runs:
        key = (run.check_id, run.label)
        if journal is not None and key in journal.done:
            records[run] = _record(*journal.done[key])
        else:
            todo.append(run)
    done = len(runs) - len(todo)
    if progress:
        progress(done, len(runs))
    executor = executor or Serial()
    for finished in executor.completed(worker, batch(todo, profile)):
        for run, record in finished:
            if journal is not None:
                journal.record(run.check_id, run.label, _outcome(run.label, record),
                               Timing(record["seconds"], record["cpu_seconds"]))
            records[run] = record
            done += 1
        if progress:
            progress(done, len(runs))
    return records


def run_grid(tasks: Sequence[str], plans: Sequence[str], seeds: Sequence[int], profile: str,
             executor: Executor | None = None, journal: Journal | None = None,
             progress: Callable[[int, int], None] | None = None,
             overrides: Callable[[str, str], Mapping[str, float]] | None = None) -> dict:
    """records[task][plan] = list of run records, one per seed, in seed order;
    ``overrides(task, plan)`` gives each plan's settings (default: none)."""
    spec = {(t, p): Run.of(t, p, s, overrides(t, p) if overrides else None)
            for t in tasks for p in plans for s in [0]}
    runs = {(t, p, s): Run(t, p, s, spec[t, p].overrides) for t in tasks for p in plans for s in seeds}
    records = run_all(runs.values(), profile, executor, journal, progress)
    return {t: {p: [records[runs[t, p, s]] for s in seeds] for p in plans} for t in tasks}
