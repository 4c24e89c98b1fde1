"""Run checks over their cases (optionally in worker processes) and collect outcomes.  Knows
nothing of any particular result: the caller hands over the results and ``resolve`` (result id ->
Result, :func:`verify.results.by_id`), which a worker process uses to find a check's judge."""
from __future__ import annotations

import json
import resource
import time
from pathlib import Path
from dataclasses import dataclass, field
from functools import lru_cache, partial
from importlib import resources
from typing import Callable, Iterable, Mapping, Sequence

from . import executors, memo, progress as progress_notes
from ..checks import (Calibration, Case, Check, Constants, Discrepancy, Evidence, Outcome, Profile,
                     Reach, Result)
from ..constants import Tracked
from ..status import Status
from .journal import Journal, Timing


@dataclass
class CheckReport:
    result: Result
    check: Check
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0
    # the judging processes' CPU time; None when some case has none (journaled by an older run)
    cpu_seconds: float | None = 0.0
    expected: int | None = None  # cases in the check's range (None: every case was judged)
    params: dict[str, Mapping[str, object]] = field(default_factory=dict)  # case label -> params
    case_reads: frozenset[str] = frozenset()  # constants read while listing the cases

    def add_time(self, timing: Timing) -> None:
        self.seconds += timing.seconds
        if self.cpu_seconds is not None and timing.cpu is not None:
            self.cpu_seconds += timing.cpu
        else:
            self.cpu_seconds = None

    @property
    def reads(self) -> frozenset[str]:
        """Every constant this check read: while listing its cases and judging each of them."""
        return self.case_reads.union(*(o.reads for o in self.outcomes))

    @property
    def discrepancy(self) -> Discrepancy | None:
        """The documented discrepancy of this check, if any (see Result.discrepancies)."""
        return self.result.discrepancies.get(self.check.id)

    def in_scope(self, o: Outcome) -> bool:
        """Whether the documented discrepancy expects this case to fail."""
        d = self.discrepancy
        return d is not None and o.case in self.params and bool(d.expected(self.params[o.case]))

    def in_sample(self, o: Outcome, calibration: Calibration | None = None) -> bool:
        """Whether this case is one a measured constant of the check (``calibration``, or any of
        them) was calibrated on."""
        cals = (calibration,) if calibration else self.result.calibrations_for(self.check.id)
        return o.case in self.params and any(bool(c.calibration(self.params[o.case])) for c in cals)

    @property
    def counted(self) -> list[Outcome]:
        """Outcomes that judge a claim (exhibits and vacuous cases excluded)."""
        return [o for o in self.outcomes if o.counted]

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.counted if o.passed is False]

    @property
    def unexpected(self) -> list[Outcome]:
        """Failures outside the documented discrepancy's scope (all failures when there is none)."""
        return [o for o in self.failed if not self.in_scope(o)]

    @property
    def not_reproduced(self) -> list[Outcome]:
        """Cases the documented discrepancy expects to fail that pass."""
        return [o for o in self.counted if o.passed is True and self.in_scope(o)]

    @property
    def undecided(self) -> list[Outcome]:
        return [o for o in self.counted if o.passed is None]

    @property
    def vacuous(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.vacuous]

    @property
    def exhibited(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.evidence is Evidence.EXHIBIT]

    @property
    def configured(self) -> list[Outcome]:
        """Configuration outcomes (the constants against a statement's hypotheses)."""
        return [o for o in self.outcomes if o.evidence is Evidence.CONFIGURATION]

    @property
    def proves_range(self) -> bool:
        """Whether the check's evidence covers its whole range (a symbolic proof, a certified
        box): a proof holds at a constant's calibration cases as everywhere else, so its cases
        are never set apart as in-sample (the report says which calibration cases a range
        holds)."""
        return self.check.covers is Reach.RANGE

    @property
    def held_out(self) -> list[Outcome]:
        """Counted outcomes of cases no measured constant of the check was calibrated on (every
        counted outcome of a check that proves its range)."""
        if self.proves_range:
            return self.counted
        return [o for o in self.counted if not self.in_sample(o)]

    @property
    def passed(self) -> list[Outcome]:
        """Held-out passes: the headline count (in-sample cases of a calibrated constant are
        shown apart, see :attr:`in_sample_passed`)."""
        return [o for o in self.held_out if o.passed is True]

    @property
    def in_sample_passed(self) -> tuple[int, int]:
        """(passes, cases) among the cases a constant was calibrated on, set apart from the
        held-out ones ((0, 0) for a check that proves its range)."""
        return (0, 0) if self.proves_range else self.calibration_passed()

    def calibration_passed(self, calibration: Calibration | None = None) -> tuple[int, int]:
        """(passes, cases) among the cases ``calibration`` (default: any constant) was tuned on."""
        inside = [o for o in self.counted if self.in_sample(o, calibration)]
        return sum(o.passed is True for o in inside), len(inside)

    @property
    def missing(self) -> int:
        """Cases of the range without an outcome (a run that judged only part of it)."""
        return 0 if self.expected is None else self.expected - len(self.outcomes)

    @property
    def status(self) -> Status:
        """FAIL, undecided, incomplete, discrepancy not reproduced, discrepancy; then for a check
        with nothing counted: configuration ok, vacuous or exhibit; "in-sample only" when every
        counted case passes but each is a case a measured constant was calibrated on (no
        held-out case: shown, never counted as a pass, and not a failure of the run); else
        pass."""
        if self.unexpected:
            return Status.FAIL
        if self.undecided:
            return Status.UNDECIDED
        if self.missing:
            return Status.INCOMPLETE
        if self.not_reproduced:
            return Status.NOT_REPRODUCED
        if self.failed:
            return Status.DISCREPANCY
        if not self.counted and self.outcomes:
            if len(self.configured) == len(self.outcomes):
                return Status.CONFIGURATION_OK
            return Status.VACUOUS if self.vacuous and not self.exhibited else Status.EXHIBIT
        if self.counted and not self.held_out:
            return Status.IN_SAMPLE_ONLY
        return Status.PASS

    @property
    def worst(self) -> Outcome | None:
        """The outcome with the smallest margin: a failing one first; then the held-out cases
        (a calibration case's margin is where its constant was set, not a test of it); then
        in-sample cases; exhibits last."""
        def key(o: Outcome):
            m = o.margin if o.margin is not None else float("inf")
            apart = o.counted and not self.proves_range and self.in_sample(o)
            return (not o.counted, o.passed is not False, bool(apart), m)
        return min(self.outcomes, key=key, default=None)


def list_cases(check: Check, profile: Profile, constants: Constants,
               options: Mapping[str, object]) -> tuple[Sequence[Case], frozenset[str]]:
    """The check's cases and the constants read while listing them."""
    view = Tracked(constants)
    return check.cases(profile, view, options), frozenset(view.reads)


def raised(check: Check, case: Case, exc: Exception) -> Outcome:
    """The outcome of a case whose judge raised: undecided (never a pass; the run exits 1), with
    the exception named, so one broken formula turns its checks red without stopping the run."""
    return Outcome(case.label, None, None, check.evidence,
                   f"ERROR: the check raised {type(exc).__name__}: {exc}")


def cpu_seconds() -> float:
    """This process's CPU time and that of its children it has waited for (the independent
    checker's process, a pool a case starts): what a case costs, wherever it ran."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def run_group(resolve: Callable[[str], Result],
              group: tuple[str, list[tuple[str, Case]], Constants]
              ) -> list[tuple[str, str, Outcome, Timing]]:
    """Judge several checks of one result on one case in one process, so that work they share
    (a training plan, a moment set) is computed once and reused through the engine's caches;
    ``resolve`` finds the result by its id in the worker process; each case is a task of the
    display (:mod:`verify.run.progress`: what a long case is doing)."""
    result_id, items, constants = group
    checks = {c.id: c for c in resolve(result_id).checks}
    out = []
    for check_id, case in items:
        start, cpu = time.perf_counter(), cpu_seconds()
        with progress_notes.task(check_id, where=case.label):
            try:
                outcome = memo.judge(checks[check_id], case, constants)
            except Exception as exc:  # a fault in the engine: this case is red, the run goes on
                outcome = raised(checks[check_id], case, exc)
        out.append((check_id, case.label, outcome,
                    Timing(time.perf_counter() - start, cpu_seconds() - cpu)))
    return out


@lru_cache(maxsize=None)
def case_seconds(profile: str) -> Mapping[str, float]:
    """Measured seconds per case of each check in a profile (verify/run/costs.json, written by
    benchmarks/write_costs.py from a run's timings); empty for a profile not measured."""
    table = json.loads(resources.files("verify.run").joinpath("costs.json").read_text())
    return table.get(profile, {})


def longest_first(tasks: list, seconds: Mapping[str, float]) -> list:
    """The tasks, those expected to take longest first (the sum of their checks' measured
    seconds; unmeasured checks count 0, ties keep their order).  A pool that starts a long
    task last waits on it alone: the default profile's certified box of Theorem 2 is half of
    its CPU time.  Only the order of starting changes; outcomes are collected per case."""
    return sorted(tasks, key=lambda task: -sum(seconds.get(cid, 0.0) for cid, _ in task[1]))


def stages(tasks: list, checks: Mapping[str, Check]) -> list[list]:
    """The tasks in waves: a task whose checks read the outcomes of checks that other tasks of
    this run judge (``Check.reads_outcomes``: the contrast reads the floors) waits for the waves
    before it, so that it finds them in the outcome store instead of judging them again; inside a
    wave the order (longest first) is kept."""
    in_task = [{cid for cid, _ in items} for _, items, _ in tasks]
    judged = set().union(*in_task) if in_task else set()
    level: list[int] = [0] * len(tasks)
    for _ in range(len(tasks)):  # relax: a reader's level is above its sources' levels
        changed = False
        for i, ids in enumerate(in_task):
            needs = {r for cid in ids for r in checks[cid].reads_outcomes if cid in checks} & judged
            sources = [level[j] for j, other in enumerate(in_task) if j != i and other & needs]
            want = 1 + max(sources) if sources else 0
            if want > level[i]:
                level[i], changed = want, True
        if not changed:
            break
    return [[t for t, lv in zip(tasks, level) if lv == k] for k in range(max(level, default=-1) + 1)]


def run(results: Iterable[Result], constants: Constants, profile: Profile,
        options: Mapping[str, object] | None = None, workers: int = 1,
        check_ids: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
        journal: Journal | None = None, judge: bool = True,
        executor: executors.Executor | None = None,
        store: memo.OutcomeStore | None = None, *,
        resolve: Callable[[str], Result], notes: Path | None = None) -> list[CheckReport]:
    """Judge every case of every check; ``progress(done, total)`` is called as cases finish,
    and a case that runs for long says what it is doing in ``notes`` (a display's folder,
    :func:`verify.run.progress.show`).
    With a ``journal``, cases it already holds are taken from it and each new outcome is
    recorded in it as soon as it is judged; with ``judge=False`` nothing new is judged and the
    cases the journal lacks are left missing (status ``incomplete``).  Outcomes are listed in
    each check's case order.  The tasks run on ``executor`` (default: serial for one worker,
    else a process pool), which yields them as they finish; with a ``store``, the outcomes
    are shared between the tasks (see :mod:`verify.run.memo`)."""
    options = options or {}
    reports: dict[str, CheckReport] = {}
    order: dict[tuple[str, str], int] = {}
    groups: dict[tuple[str, str], list[tuple[str, Case]]] = {}
    recorded = journal.done if journal else {}
    for result in results:
        for check in result.checks:
            if check_ids and check.id not in check_ids and result.id not in check_ids:
                continue
            cases, case_reads = list_cases(check, profile, constants, options)
            reports[check.id] = CheckReport(result, check, case_reads=case_reads)
            reports[check.id].expected = len(cases)
            for index, case in enumerate(cases):
                order[(check.id, case.label)] = index
                reports[check.id].params[case.label] = case.params
                if (check.id, case.label) in recorded:
                    outcome, timing = recorded[(check.id, case.label)]
                    reports[check.id].outcomes.append(outcome)
                    reports[check.id].add_time(timing)
                elif judge:
                    groups.setdefault((result.id, case.label), []).append((check.id, case))
    tasks = longest_first([(rid, items, dict(constants)) for (rid, _), items in groups.items()],
                          case_seconds(Profile(profile).value))
    done = sum(len(rep.outcomes) for rep in reports.values())
    total = done + sum(len(items) for _, items, _ in tasks)
    if progress:
        progress(0, total)
    executor = executor or executors.choose(workers)
    job = partial(progress_notes.serving, notes,
                  partial(memo.serving, store, partial(run_group, resolve)))
    for stage in stages(tasks, {c.id: c for rep in reports.values() for c in (rep.check,)}):
        stream = executor.completed(job, stage)
        try:
            for finished in stream:
                for check_id, label, outcome, timing in finished:
                    if journal:
                        journal.record(check_id, label, outcome, timing)
                    reports[check_id].outcomes.append(outcome)
                    reports[check_id].add_time(timing)
                done += len(finished)
                if progress:
                    progress(done, total)
        finally:
            getattr(stream, "close", lambda: None)()  # cancels the unfinished tasks
    for check_id, rep in reports.items():
        rep.outcomes.sort(key=lambda o: order[(check_id, o.case)])
    return list(reports.values())
