"""The stages of ``verify experiments`` under the protocol (:mod:`.protocol`): the tuning, Table
1's grid and the initialisation map, each a set of runs through :func:`.grid.run_all` (one
journal, any executor).  Returns records; writes nothing."""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ..run.executors import Executor
from ..run.journal import Journal
from . import protocol
from .grid import Run, run_all
from .plans import PLANS
from .run import settings

Progress = Callable[[int, int], None] | None


def tuning_runs(tasks: Sequence[str], profile: str, plans: Sequence[str] = PLANS) -> list[Run]:
    return [r for t in tasks for r in protocol.tuning_runs(t, settings(t, profile), plans)]


def tune(tasks: Sequence[str], profile: str, executor: Executor | None = None,
         journal: Journal | None = None, progress: Progress = None,
         plans: Sequence[str] = PLANS) -> dict:
    """tuning[task][plan] = {"curve": [...], "chosen": exponents or None} (protocol step 2)."""
    records = run_all(tuning_runs(tasks, profile, plans), profile, executor, journal, progress)
    return summarise(tasks, profile, records, plans)


def summarise(tasks: Sequence[str], profile: str, records: Mapping[Run, dict],
              plans: Sequence[str] = PLANS) -> dict:
    out: dict = {}
    for task in tasks:
        cfg = settings(task, profile)
        out[task] = {}
        for plan in plans:
            curve = protocol.curve(task, plan, cfg, records)
            out[task][plan] = {"curve": curve, "chosen": protocol.choose(curve)}
    return out


def recorded_tuning(tasks: Sequence[str], profile: str, journal: Journal | None,
                    plans: Sequence[str] = PLANS) -> dict | None:
    """The tuning from the journal alone, if every tuning run is in it (else None)."""
    if journal is None:
        return None
    runs = tuning_runs(tasks, profile, plans)
    if any((r.check_id, r.label) not in journal.done for r in runs):
        return None
    return summarise(tasks, profile, run_all(runs, profile, None, journal), plans)


def chosen_of(tuning: Mapping) -> dict:
    """chosen[task][plan] = exponents (a plan whose every point diverged keeps the centre)."""
    return {task: {plan: tuple(row["chosen"]) if row["chosen"] is not None
                   else (0,) * len(protocol.FREE[plan]) for plan, row in plans.items()}
            for task, plans in tuning.items()}


def study_runs(tasks: Sequence[str], plans: Sequence[str], profile: str, seeds: Sequence[int],
               map_seeds: Sequence[int], chosen: Mapping) -> tuple[dict, dict]:
    """Table 1's runs (seeds at the configured scale) and the init map's (``map_seeds`` at each
    scale of ``protocol.SCALES``; empty for no map): table[task][plan] = [Run], maps[std][task][plan]."""
    table, maps = {}, {std: {} for std in (protocol.SCALES if map_seeds else ())}
    for task in tasks:
        cfg = settings(task, profile)
        table[task] = protocol.grid_runs(task, cfg, profile, plans, seeds, float(cfg["init_std"]), chosen)
        for std in maps:
            maps[std][task] = protocol.grid_runs(task, cfg, profile, protocol.map_plans(std, plans),
                                                 map_seeds, std, chosen)
    return table, maps


def run_study(tasks: Sequence[str], plans: Sequence[str], profile: str, seeds: Sequence[int],
              map_seeds: Sequence[int], chosen: Mapping, executor: Executor | None = None,
              journal: Journal | None = None, progress: Progress = None) -> tuple[dict, dict]:
    """The records of :func:`study_runs`' runs, in the same shape."""
    table, maps = study_runs(tasks, plans, profile, seeds, map_seeds, chosen)
    every = [r for t in table.values() for rs in t.values() for r in rs]
    every += [r for m in maps.values() for t in m.values() for rs in t.values() for r in rs]
    records = run_all(every, profile, executor, journal, progress)

    def fill(runs):
        return {t: {p: [records[r] for r in rs] for p, rs in by_plan.items()} for t, by_plan in runs.items()}

    return fill(table), {std: fill(m) for std, m in maps.items()}
