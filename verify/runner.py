"""Run the registered checks over their cases (optionally in worker processes) and collect
outcomes.  Knows nothing of any particular result."""
from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from .checks import Case, Check, Constants, Outcome, Profile, Result
from .results import REGISTRY


@dataclass
class CheckReport:
    result: Result
    check: Check
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def discrepancy(self) -> str | None:
        """The documented discrepancy this check exhibits, if any (see Result.discrepancies)."""
        for text in self.result.discrepancies:
            if text.startswith(self.check.id + ":"):
                return text
        return None

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.passed is False]

    @property
    def undecided(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.passed is None]

    @property
    def status(self) -> str:
        if self.failed:
            return "discrepancy" if self.discrepancy else "FAIL"
        if self.undecided:
            return "undecided"
        return "pass"

    @property
    def worst(self) -> Outcome | None:
        """The outcome with the smallest margin (the failing one first)."""
        def key(o: Outcome):
            m = o.margin if o.margin is not None else float("inf")
            return (o.passed is not False, m)
        return min(self.outcomes, key=key, default=None)


def _run_task(task: tuple[str, str, Case, Constants]) -> tuple[str, str, Outcome, float]:
    result_id, check_id, case, constants = task
    from .results import by_id

    check = next(c for c in by_id(result_id).checks if c.id == check_id)
    start = time.perf_counter()
    outcome = check.judge(case, constants)
    return result_id, check_id, outcome, time.perf_counter() - start


def select(ids: Sequence[str] | None = None) -> list[Result]:
    """The registered results, or those named (a result id or a check id)."""
    if not ids:
        return list(REGISTRY)
    chosen = [r for r in REGISTRY if r.id in ids or any(c.id in ids for c in r.checks)]
    unknown = set(ids) - {r.id for r in REGISTRY} - {c.id for r in REGISTRY for c in r.checks}
    if unknown:
        raise KeyError(", ".join(sorted(unknown)))
    return chosen


def run(results: Iterable[Result], constants: Constants, profile: Profile,
        options: Mapping[str, object] | None = None, workers: int = 1,
        check_ids: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None) -> list[CheckReport]:
    """Judge every case of every check; ``progress(done, total)`` is called as cases finish."""
    options = options or {}
    reports: dict[str, CheckReport] = {}
    tasks = []
    for result in results:
        for check in result.checks:
            if check_ids and check.id not in check_ids and result.id not in check_ids:
                continue
            reports[check.id] = CheckReport(result, check)
            for case in check.cases(profile, constants, options):
                tasks.append((result.id, check.id, case, dict(constants)))
    total, done = len(tasks), 0
    if progress:
        progress(0, total)
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            stream = pool.map(_run_task, tasks)
            for _, check_id, outcome, secs in stream:
                reports[check_id].outcomes.append(outcome)
                reports[check_id].seconds += secs
                done += 1
                if progress:
                    progress(done, total)
    else:
        for task in tasks:
            _, check_id, outcome, secs = _run_task(task)
            reports[check_id].outcomes.append(outcome)
            reports[check_id].seconds += secs
            done += 1
            if progress:
                progress(done, total)
    return list(reports.values())
