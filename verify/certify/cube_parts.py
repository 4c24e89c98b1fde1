"""The cube branch and bound (:mod:`verify.certify.cube`) from the root, its parts on an executor.

The root is halved, with nothing computed, until no r-side is wider than ``cube.PRESPLIT`` (the
boxes :func:`verify.certify.cube.judge` would split unjudged in any case; 256 parts at d = 5).
Each part then runs :func:`verify.certify.cube.branch_and_bound` on its own, as one task of an
executor (:mod:`verify.run.executors`: serial, a process pool, a Dask cluster).  The parts'
leaves are put together in the parts' order, so the leaves, their order and the count of judged
boxes are the same for any number of workers; only the CPU-seconds differ.

With a journal every part appends its judged boxes to the one file
(:class:`verify.certify.branch.Journal`, one ``write`` per box; its key line written here first)
and reads it when it starts, so a stopped run resumes box by box.  The
workers must see that file: a process pool or a local cluster, not a remote scheduler.

The code that judges a box is cube's; this module only schedules it, so it lies outside the
certificates' fingerprint (certify/cube.py and what it imports).
"""
from __future__ import annotations

from collections import deque
from functools import partial
from pathlib import Path
from typing import Callable

from ..run import progress
from ..run.executors import Executor, Serial
from . import branch
from .cube import (PRESPLIT, Box, Leaf, Problem, Run, branch_and_bound, decode, journal_key,
                   judge, split)


def parts(problem: Problem, constants) -> list[tuple[Box, int]]:
    """The root halved breadth first along the sides :func:`judge` names, until no r-side is
    wider than PRESPLIT: (box, depth) pairs tiling the root, in a fixed order."""
    offset = 1 if problem.kind == "cone" else 0  # the s-side of a cone is not an r-side
    todo, out = deque([(problem.root, 0)]), []
    while todo:
        box, depth = todo.popleft()
        if max(hi - lo for lo, hi in box[offset:]) <= PRESPLIT:
            out.append((box, depth))
            continue
        axis = judge(problem, box, constants).axis  # unjudged: only the side to halve
        todo.extend((half, depth + 1) for half in split(box, axis))
    return out


def _part(task: tuple) -> tuple[int, list[Leaf], int, float]:
    """One part's branch and bound: (its index, leaves, boxes judged, CPU-seconds)."""
    index, problem, constants, box, depth, journal = task
    with progress.task(f"{problem.group} part {index + 1}"):
        run = branch_and_bound(problem, constants, start=[(box, depth)], journal=journal)
    return index, run.leaves, run.judged, run.cpu_seconds


def certify(problem: Problem, constants, executor: Executor | None = None,
            journal: Path | None = None, notes: Path | None = None,
            done: Callable[[int, int], None] = lambda finished, total: None) -> Run:
    """The branch and bound of ``problem`` from its root over :func:`parts` on ``executor``
    (serial by default); ``notes``: the progress display's folder the parts write to; ``done``
    is told (parts finished, parts) as they finish."""
    values = dict(getattr(constants, "untracked", lambda: constants)())
    if journal is not None:  # its key line, before the parts open it (a foreign one is refused)
        branch.Journal(journal, journal_key(problem, values), decode)
    top = parts(problem, values)
    tasks = [(i, problem, values, box, depth, journal) for i, (box, depth) in enumerate(top)]
    found: dict[int, tuple[list[Leaf], int, float]] = {}
    done(0, len(tasks))
    for index, leaves, judged, cpu in (executor or Serial()).completed(
            partial(progress.serving, notes, _part), tasks):
        found[index] = (leaves, judged, cpu)
        done(len(found), len(tasks))
    run = Run(problem)
    run.judged = len(top) - 1  # the halvings above the parts (binary: parts - 1 inner boxes)
    for index in range(len(top)):
        leaves, judged, cpu = found[index]
        run.leaves += leaves
        run.judged += judged
        run.cpu_seconds += cpu
    return run
