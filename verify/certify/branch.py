"""One branch and bound for every certificate kind (certified evidence).

The (d, eps) and four-axis boxes of :mod:`verify.certify.boxes` and the cubes and cones of
:mod:`verify.certify.cube` are each a :class:`Problem`: it judges a box, splits an undecided
one, makes a leaf of a judgement and writes and reads a judgement as JSON.  :func:`search` does
the rest, once for all of them: the queue (breadth first, or best first: the box the parent's
margin says is likeliest to fail first), the depth limit, the budgets (boxes judged: the same
answer on any machine; seconds), the executor (:mod:`verify.run.executors`: here, a process
pool, Dask) and the :class:`Journal`.

Breadth first, the boxes are handed to the executor CHUNK at a time and read back in queue
order, so the leaves, their order and the count of judged boxes are the same for any executor
and worker count; best first takes one box at a time, so that a failing box stops the run
before any box the queue would have judged after it.  Whether a leaf is valid depends only on
its problem's judge; this module decides which boxes are judged, never what a judgement says.
"""
from __future__ import annotations

import heapq
import json
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, Sequence, TypeVar

from ..run.journal import JournalError

CHUNK = 64  # boxes handed to the executor at once (the budgets are checked between chunks)
RED = ("failing", "disagree")  # statuses that make a claim red (stop_on_failure)

J = TypeVar("J")


class Problem(Protocol[J]):
    """What :func:`search` needs of a certificate kind; a judgement ``J`` has a ``status``
    (certified / failing / undecided / disagree)."""

    def judge(self, box: Any) -> J: ...

    def split(self, box: Any, judgement: J) -> tuple[Any, Any]: ...

    def leaf(self, box: Any, depth: int, judgement: J | None) -> Any:
        """The kind's leaf (``None``: a box left unreached by a budget)."""

    def priority(self, judgement: J) -> float:
        """Best first: the children of the smallest come first."""

    def encode(self, judgement: J) -> dict: ...

    def decode(self, record: dict) -> J: ...


class Tally(Protocol):
    """The kind's run, which :func:`search` fills."""

    leaves: list
    judged: int
    cpu_seconds: float


def hex_box(box: Sequence) -> list:
    """The box's floats as ``float.hex`` strings, nested as the box is."""
    return [hex_box(x) if isinstance(x, (tuple, list)) else float(x).hex() for x in box]


class Journal:
    """Append-only JSON lines: the run's key (what must agree for two runs' judgements to be
    interchangeable), then one record per judged box, written the moment its judgement arrives
    (box, depth, CPU-seconds and the problem's encoding of the judgement).  Opening an existing
    journal resumes it (a last line cut short by a stop is dropped); one written under another
    key is refused, never mixed into the run."""

    def __init__(self, path: Path, key: dict, decode: Callable[[dict], Any]) -> None:
        self.path, self.key, self.decode = Path(path), key, decode
        self.done: dict[str, tuple[Any, float]] = {}
        if self.path.exists() and self.path.stat().st_size > 0:
            self._load()
        else:
            self.path.write_text(json.dumps({"key": key}) + "\n")

    def _load(self) -> None:
        try:
            lines = self.path.read_text().splitlines()
            stored = json.loads(lines[0]).get("key")
        except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            raise JournalError(f"{self.path}: not a branch-and-bound journal") from None
        if stored != self.key:
            changed = sorted(k for k in set(self.key) | set(stored or {})
                             if (stored or {}).get(k) != self.key.get(k))
            raise JournalError(f"{self.path} was written by another run (differs in: "
                               f"{', '.join(changed)}); remove it or choose another journal")
        for number, line in enumerate(lines[1:], start=2):
            try:
                r = json.loads(line)
                self.done[json.dumps(r["box"])] = (self.decode(r), float(r["cpu"]))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                if number == len(lines):  # a run stopped while writing its last line
                    self.path.write_text("\n".join(lines[:-1]) + "\n")
                    break
                raise JournalError(f"{self.path}, line {number}: unreadable record") from None

    def get(self, box: Sequence) -> tuple[Any, float] | None:
        return self.done.get(json.dumps(hex_box(box)))

    def record(self, box: Sequence, depth: int, encoded: dict, judgement: Any, cpu: float) -> None:
        entry = {"box": hex_box(box), "depth": depth, **encoded, "cpu": cpu}
        with self.path.open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        self.done[json.dumps(entry["box"])] = (judgement, cpu)


def judge_task(item: tuple) -> tuple[int, Any, float]:
    """(index, judgement, CPU-seconds) of one box: the unit of work an executor runs."""
    index, problem, box = item
    cpu = time.process_time()
    judgement = problem.judge(box)
    return index, judgement, time.process_time() - cpu


def _judgements(problem: Problem, items: list, executor, journal: Journal | None
                ) -> Iterator[tuple[Any, float]]:
    """(judgement, CPU-seconds) of each (box, depth) in ``items``, in their order: from the
    journal, else on the executor (all at once), else here, one at a time as asked for; each
    new one journaled as it arrives."""
    found: list = [journal.get(box) if journal else None for box, _ in items]
    if executor is not None:
        todo = [(i, problem, items[i][0]) for i in range(len(items)) if found[i] is None]
        for i, judgement, cpu in executor.completed(judge_task, todo):
            if journal:
                journal.record(*items[i], problem.encode(judgement), judgement, cpu)
            found[i] = (judgement, cpu)
    for i, (box, depth) in enumerate(items):
        if found[i] is None:
            _, judgement, cpu = judge_task((i, problem, box))
            if journal:
                journal.record(box, depth, problem.encode(judgement), judgement, cpu)
            found[i] = (judgement, cpu)
        yield found[i]


class _Queue:
    """Boxes to judge: first in, first out, or, ``best_first``, the smallest priority first
    (ties in the order pushed)."""

    def __init__(self, best_first: bool) -> None:
        self.best_first, self.count = best_first, 0
        self.items: deque | list = [] if best_first else deque()

    def __len__(self) -> int:
        return len(self.items)

    def push(self, priority: float, box: Any, depth: int) -> None:
        self.count += 1
        if self.best_first:
            heapq.heappush(self.items, (priority, self.count, box, depth))
        else:
            self.items.append((box, depth))

    def take(self, n: int) -> list[tuple[Any, int]]:
        n = min(n, len(self.items))
        if self.best_first:
            return [heapq.heappop(self.items)[2:] for _ in range(n)]
        return [self.items.popleft() for _ in range(n)]


def search(problem: Problem, run: Tally, start: list[tuple], max_depth: int,
           max_boxes: int | None = None, seconds: float | None = None, executor=None,
           journal: Journal | None = None, best_first: bool = False,
           stop_on_failure: bool = False, progress: Callable[[Any, int], None] | None = None
           ) -> Any:
    """Judge the boxes of ``start`` ((box, depth) or (box, depth, priority) items tiling the
    root) and split every undecided one down to ``max_depth``, filling ``run`` (its leaves in
    the order they are found, boxes judged, CPU-seconds).  After ``max_boxes`` judged boxes,
    after ``seconds``, or (``stop_on_failure``) after the first failing or disagreeing box,
    every box not yet judged becomes an unreached leaf.  ``progress(run, queued)`` is called
    after each chunk.  Returns ``run``."""
    began = time.perf_counter()
    queue = _Queue(best_first)
    for item in start:
        queue.push(item[2] if len(item) > 2 else 0.0, item[0], item[1])
    red = False
    while queue:
        chunk = queue.take(1 if best_first else CHUNK)
        allowed = len(chunk)
        if max_boxes is not None:
            allowed = max(0, min(allowed, max_boxes - run.judged))
        if (seconds is not None and time.perf_counter() - began > seconds) or red:
            allowed = 0
        judged = _judgements(problem, chunk[:allowed], executor, journal)
        for pos, (box, depth) in enumerate(chunk):
            if pos >= allowed or red:
                run.leaves.append(problem.leaf(box, depth, None))
                continue
            judgement, cpu = next(judged)
            run.judged += 1
            run.cpu_seconds += cpu
            if judgement.status == "undecided" and depth < max_depth:
                for half in problem.split(box, judgement):
                    queue.push(problem.priority(judgement), half, depth + 1)
            else:
                run.leaves.append(problem.leaf(box, depth, judgement))
                red = stop_on_failure and judgement.status in RED
        if progress:
            progress(run, len(queue))
        if allowed < len(chunk) or red:
            run.leaves += [problem.leaf(box, depth, None) for box, depth in queue.take(len(queue))]
    return run
