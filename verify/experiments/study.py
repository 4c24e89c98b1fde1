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


def tuning_runs(tasks: Sequence[str], profile: str, plans: Sequence[str] = PLANS,
                ranges: Mapping[tuple[str, str], protocol.Ranges] | None = None) -> list[Run]:
    """Every tuning run of the plans over their searched ranges (default: the first ranges)."""
    ranges = ranges or {}
    return [r for t in tasks for p in plans
            for r in protocol.tuning_runs(t, settings(t, profile), (p,),
                                          {p: ranges[t, p]} if (t, p) in ranges else None)]


def search(tasks: Sequence[str], profile: str, fetch: Callable[[list[Run]], Mapping | None],
           plans: Sequence[str] = PLANS) -> dict | None:
    """Protocol step 2 with Round 3's extension (:func:`.protocol.widen`): every plan's first
    ranges, then, round by round, each axis whose chosen exponent sits at a searched end widened
    by one half-decade (up to the cap), until no range moves.  ``fetch(runs)`` gives the records
    of the runs (None when they are not to be had: then None)."""
    ranges = {(t, p): protocol.start(p) for t in tasks for p in plans}
    while True:
        records = fetch(tuning_runs(tasks, profile, plans, ranges))
        if records is None:
            return None
        out = summarise(tasks, profile, records, plans, ranges)
        wider = {(t, p): protocol.widen(rg, out[t][p]["chosen"]) for (t, p), rg in ranges.items()}
        if wider == ranges:
            return out
        ranges = wider


def tune(tasks: Sequence[str], profile: str, executor: Executor | None = None,
         journal: Journal | None = None, progress: Progress = None,
         plans: Sequence[str] = PLANS) -> dict:
    """tuning[task][plan] = {"curve", "chosen", "ranges", "status"} (:func:`search`; every
    round's new runs computed on ``executor``, journaled)."""
    records: dict[Run, dict] = {}

    def fetch(runs: list[Run]) -> dict:
        todo = [r for r in runs if r not in records]
        records.update(run_all(todo, profile, executor, journal, progress))
        return records

    return search(tasks, profile, fetch, plans)


def summarise(tasks: Sequence[str], profile: str, records: Mapping[Run, dict],
              plans: Sequence[str] = PLANS,
              ranges: Mapping[tuple[str, str], protocol.Ranges] | None = None) -> dict:
    """Per task and plan: the curve over its searched ranges, the choice, the ranges and each
    chosen exponent's status (:func:`.protocol.status`)."""
    out: dict = {}
    for task in tasks:
        cfg = settings(task, profile)
        out[task] = {}
        for plan in plans:
            rg = (ranges or {}).get((task, plan), protocol.start(plan))
            curve = protocol.curve(task, plan, cfg, records, rg)
            chosen = protocol.choose(curve)
            out[task][plan] = {"curve": curve, "chosen": chosen, "ranges": [list(r) for r in rg],
                               "status": protocol.status(rg, chosen)}
    return out


def recorded_tuning(tasks: Sequence[str], profile: str, journal: Journal | None,
                    plans: Sequence[str] = PLANS) -> dict | None:
    """The tuning from the journal alone, if every run of the finished search is in it (else
    None)."""
    if journal is None:
        return None

    def fetch(runs: list[Run]) -> dict | None:
        if any((r.check_id, r.label) not in journal.done for r in runs):
            return None
        return run_all(runs, profile, None, journal)

    return search(tasks, profile, fetch, plans)


def chosen_of(tuning: Mapping) -> dict:
    """chosen[task][plan] = exponents (a plan whose every point diverged keeps the centre)."""
    return {task: {plan: tuple(row["chosen"]) if row["chosen"] is not None
                   else (0,) * len(protocol.FREE[plan]) for plan, row in plans.items()}
            for task, plans in tuning.items()}


def test_words(task: str, profile: str) -> int:
    """The test words of a task's runs (even pairs: every string of length 1..max_len,
    2^(max_len+1) - 2, the same for every seed)."""
    cfg = settings(task, profile)
    return 2 ** (int(cfg["max_len"]) + 1) - 2 if task == "even_pairs" else int(cfg["test"])


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
    """The records of :func:`study_runs`' runs, in the same shape, each with the number of test
    words its accuracy is a fraction of (``test_words``: the exact bounds on error rates)."""
    table, maps = study_runs(tasks, plans, profile, seeds, map_seeds, chosen)
    every = [r for t in table.values() for rs in t.values() for r in rs]
    every += [r for m in maps.values() for t in m.values() for rs in t.values() for r in rs]
    records = run_all(every, profile, executor, journal, progress)

    words = {t: test_words(t, profile) for t in tasks}

    def fill(runs):
        return {t: {p: [{**records[r], "test_words": words[t]} for r in rs] for p, rs in by_plan.items()}
                for t, by_plan in runs.items()}

    return fill(table), {std: fill(m) for std, m in maps.items()}
