"""Outcomes shared between checks, so that a check built on other checks' outcomes (the contrast
reads the floors of prop2, prop3, prop4 and thm1 and the plan of thm2) takes them from the run
instead of recomputing them.

An :class:`OutcomeStore` is a directory of finished outcomes, one small JSON file per case, keyed
by a SHA-256 of the check id, the case (label and parameters), the constants and the fingerprint of the
computing code (the journal's).  Two cases with the same key are the same computation (checks are
seeded), so an outcome read from the store is the outcome the check would compute.  Files are
written atomically; concurrent workers on one machine share the directory.  A worker that cannot
see it (a Dask worker on another host) finds nothing and computes: the store only saves time,
never changes an answer.

The runner activates a store around each task (:func:`serving`) and judges every case through
:func:`judge`, which stores what it computes; a check that needs another check's outcome calls
``judge(other_check, case, constants)`` instead of ``other_check.judge(case, constants)``.
Outside a run (no store active) :func:`judge` is ``check.judge``.
"""
from __future__ import annotations

import contextvars
import hashlib
import json
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from ..checks import Case, Check, Constants, Outcome
from ..constants import Tracked
from .journal import code_fingerprint, outcome_from_record, outcome_record

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class OutcomeStore:
    root: Path
    code: str  # the journal's code fingerprint

    def key(self, check_id: str, case: Case, constants: Constants) -> str:
        text = json.dumps({"check": check_id, "case": case.label, "params": dict(case.params),
                           "code": self.code,
                           "constants": {k: str(v) for k, v in constants.items()}},
                          sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, check_id: str, case: Case, constants: Constants) -> Outcome | None:
        path = self.root / self.key(check_id, case, constants)
        try:
            _, outcome, _ = outcome_from_record(path.read_text())
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return outcome

    def put(self, check_id: str, case: Case, constants: Constants, outcome: Outcome) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-")
        with os.fdopen(fd, "w") as handle:
            handle.write(outcome_record(check_id, case.label, outcome, 0.0))
        os.replace(tmp, self.root / self.key(check_id, case, constants))


_ACTIVE: contextvars.ContextVar[OutcomeStore | None] = contextvars.ContextVar("verify_store", default=None)


def judge(check: Check, case: Case, constants: Constants) -> Outcome:
    """``check.judge(case, constants)`` through a :class:`Tracked` view, so the outcome carries
    the constants it read (``Outcome.reads``); read from the active store when it holds the case,
    and stored there when computed.  When ``constants`` is itself a tracked view (a check judging
    another check's case), the reads of the inner outcome are recorded on it as well."""
    store = _ACTIVE.get()
    plain = constants.untracked() if isinstance(constants, Tracked) else constants
    outcome = store.get(check.id, case, plain) if store is not None else None
    if outcome is None:
        view = Tracked(plain)
        outcome = replace(check.judge(case, view), reads=tuple(sorted(view.reads)))
        if store is not None:
            store.put(check.id, case, plain, outcome)
    if isinstance(constants, Tracked):
        constants.record(outcome.reads)
    return outcome


@contextmanager
def temporary() -> Iterator[OutcomeStore]:
    """A store for one run, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="verify-outcomes-") as root:
        yield OutcomeStore(Path(root), code_fingerprint())


def serving(store: OutcomeStore | None, fn: Callable[[T], R], task: T) -> R:
    """``fn(task)`` with ``store`` active (picklable with ``functools.partial``: this is what the
    runner sends to the workers)."""
    token = _ACTIVE.set(store)
    try:
        return fn(task)
    finally:
        _ACTIVE.reset(token)
