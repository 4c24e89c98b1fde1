"""Progress that never goes quiet: what a long command is doing, while it does it.

Two parts, which know nothing of any result:

* **Notes from inside a task.**  Code that runs for minutes inside one case (a branch and bound
  over a certificate's leaves, the probes of ``verify slack``) calls :func:`note` with a few
  words ("480 boxes judged, 231 leaves certified").  Inside :func:`task` the note goes to a small
  file of the command's notes folder, so that a task in a worker process (a process pool, a
  local Dask cluster) reaches the display as well; outside a task :func:`note` does nothing.  A
  note is written at most every ``NOTE_SECONDS`` and never fails the work: a folder that cannot
  be written (a remote Dask worker) only loses the note.
* **The display** (:func:`show`): on a terminal a rich bar (done/total of the command's unit,
  elapsed time, ETA) with one line per running task's note below it; elsewhere (a CI log, a
  pipe) one plain line every ``PLAIN_SECONDS`` with the same content, and a last one when the
  command took that long.
"""
from __future__ import annotations

import contextlib
import contextvars
import itertools
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, TypeVar

PLAIN_SECONDS = 30.0  # a progress line this often when standard error is not a terminal
NOTE_SECONDS = 1.0  # a task rewrites its note at most this often
SUFFIX = ".note"
T = TypeVar("T")
R = TypeVar("R")


class _Writer:
    """The note file of one running task."""

    _count = itertools.count()

    def __init__(self, folder: Path, name: str, where: str = "") -> None:
        self.path = folder / f"{os.getpid()}-{next(self._count)}{SUFFIX}"
        self.name, self.where = name, where
        self.last = 0.0

    def write(self, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < NOTE_SECONDS:
            return
        self.last = now
        try:
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w") as handle:
                handle.write(self.line(text))
            os.replace(tmp, self.path)
        except OSError:  # a folder this process cannot reach: the note is lost, not the work
            pass

    def line(self, text: str) -> str:
        """The note as shown: what is being done first (a narrow terminal cuts the end)."""
        if not text:
            return f"{self.name} at {self.where}" if self.where else self.name
        return f"{self.name}: {text}" + (f" (at {self.where})" if self.where else "")

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()


_TASK: contextvars.ContextVar[_Writer | None] = contextvars.ContextVar("verify_task", default=None)
_FOLDER: contextvars.ContextVar[Path | None] = contextvars.ContextVar("verify_notes", default=None)


def serving(folder: Path | None, fn: Callable[[T], R], arg: T) -> R:
    """``fn(arg)`` with ``folder`` as the notes folder of the tasks it runs (picklable with
    ``functools.partial``: how the runner hands the folder to a worker process)."""
    token = _FOLDER.set(folder)
    try:
        return fn(arg)
    finally:
        _FOLDER.reset(token)


@contextlib.contextmanager
def task(name: str, folder: Path | None = None, where: str = "") -> Iterator[None]:
    """Run the body as a task named ``name`` (a check id; ``where``: its case) whose notes go
    to ``folder`` (default: the one :func:`serving` set; none: the notes go nowhere)."""
    folder = folder if folder is not None else _FOLDER.get()
    if folder is None:
        yield
        return
    writer = _Writer(Path(folder), name, where)
    writer.write("", force=True)
    token = _TASK.set(writer)
    try:
        yield
    finally:
        _TASK.reset(token)
        writer.remove()


def note(text: str, force: bool = False) -> None:
    """What the current task is doing, in a few words (nothing outside :func:`task`)."""
    writer = _TASK.get()
    if writer is not None:
        writer.write(text, force)


def read_notes(folder: Path) -> list[str]:
    """The running tasks' notes, oldest task first."""
    out = []
    for path in sorted(Path(folder).glob(f"*{SUFFIX}"), key=_started):
        with contextlib.suppress(OSError):
            out.append(path.read_text().strip())
    return out


def _started(path: Path) -> tuple[int, int]:
    pid, _, count = path.stem.partition("-")
    return (int(count) if count.isdigit() else 0, int(pid) if pid.isdigit() else 0)


class Board:
    """What the display shows: ``done`` of ``total`` units (cases, probes; None: unknown), the
    elapsed time, and the notes of the running tasks (:attr:`folder`)."""

    def __init__(self, what: str, unit: str | None, folder: Path) -> None:
        self.what, self.unit, self.folder = what, unit, folder
        self.done, self.total = 0, None
        self.status = ""  # what this process is doing, when it reports it itself
        self.began = time.monotonic()
        self.listeners: list[Callable[[], None]] = []

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` units finished of ``total`` (the runner's ``progress(done, total)``)."""
        self.done, self.total = done, total if total is not None else self.total
        for listener in self.listeners:
            listener()

    def say(self, status: str) -> None:
        """What this process is doing (shown above the tasks' notes)."""
        self.status = status
        for listener in self.listeners:
            listener()

    def notes(self) -> list[str]:
        return ([self.status] if self.status else []) + read_notes(self.folder)

    def line(self) -> str:
        """The plain progress line."""
        seconds = time.monotonic() - self.began
        if self.unit:
            total = "?" if self.total is None else self.total
            head = f"verify: {self.what}: {self.done}/{total} {self.unit} done, {seconds:.0f} s"
        else:
            head = f"verify: {self.what}, {seconds:.0f} s"
        return "; ".join([head, *self.notes()])


@contextlib.contextmanager
def show(what: str, unit: str | None = None, terminal: bool | None = None) -> Iterator[Board]:
    """A display for one command (see the module docstring); ``terminal``: draw the rich bar
    (default: when standard error is a terminal)."""
    with tempfile.TemporaryDirectory(prefix="verify-notes-") as folder:
        board = Board(what, unit, Path(folder))
        tty = sys.stderr.isatty() if terminal is None else terminal
        with (_rich(board) if tty else _plain(board)):
            yield board


@contextlib.contextmanager
def _plain(board: Board) -> Iterator[None]:
    """A line every PLAIN_SECONDS, from a timer (a case that runs for minutes finishes no
    unit), and a last one when the command took that long."""
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(PLAIN_SECONDS):
            print(board.line(), file=sys.stderr, flush=True)

    ticker = threading.Thread(target=tick, name="verify-progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()
    if time.monotonic() - board.began >= PLAIN_SECONDS:
        print(board.line(), file=sys.stderr, flush=True)


@contextlib.contextmanager
def _rich(board: Board) -> Iterator[None]:
    """The bar and, below it, a line per running task; transient (gone when the command
    prints its result).  Lines the command prints meanwhile appear above it."""
    from rich.console import Console, Group
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    class _Bar(Progress):
        def get_renderables(self):
            yield self.make_tasks_table(self.tasks)
            notes = [Text("  " + n, no_wrap=True, overflow="ellipsis") for n in board.notes()]
            if notes:
                yield Group(*notes)

    columns = [TextColumn(board.what)]
    if board.unit:
        columns += [BarColumn(), MofNCompleteColumn(), TextColumn(board.unit)]
    columns += [TimeElapsedColumn()]
    if board.unit:
        columns += [TextColumn("ETA"), TimeRemainingColumn()]
    with _Bar(*columns, console=Console(stderr=True), transient=True, refresh_per_second=2) as bar:
        handle = bar.add_task(board.what, total=None)
        board.listeners.append(lambda: bar.update(handle, completed=board.done, total=board.total))
        yield
