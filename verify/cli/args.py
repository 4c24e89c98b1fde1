"""What every command's arguments share: the value types (each refuses bad input with one line),
the conventions for outputs (``--json [PATH]``, ``-`` for standard output; ``--output PATH``),
paths checked before any work starts, and deprecated spellings kept for one release.

Nothing here imports the engine or the results, so that ``verify --help`` starts at once.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

STDOUT = "-"
MAX_DPS = 1000  # verify eval at 1000 digits takes about a minute; 100000 would take hours
MAX_D_VALUES = 1000  # values of --d in one run: a case per value and check (d = 3..1002 is hours)
DEPRECATED_RELEASE = "0.4"  # old spellings keep working until this release


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""


def _mpf(text: str):
    import mpmath

    return mpmath.mpf(text)


def number(text: str) -> str:
    """A finite real number, kept as text so that the engine reads it at its working precision
    (``0.1`` is not rounded to a float first)."""
    import mpmath

    try:
        value = _mpf(text)
    except (ValueError, TypeError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not mpmath.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return text


def dimension(text: str) -> int:
    """An alphabet size d >= 2."""
    try:
        d = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"d must be an integer >= 2, got {text!r}") from None
    if d < 2:
        raise argparse.ArgumentTypeError(f"d must be an integer >= 2, got {d}")
    return d


def precision(text: str) -> int:
    """Decimal digits, 5 to MAX_DPS (the quadrature's cost grows like dps^2 to dps^3)."""
    try:
        dps = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"dps must be an integer in [5, {MAX_DPS}], got {text!r}") from None
    if not 5 <= dps <= MAX_DPS:
        raise argparse.ArgumentTypeError(
            f"dps must be an integer in [5, {MAX_DPS}], got {dps} (1000 digits take about a minute)")
    return dps


def unit_interval(text: str) -> float:
    """A tolerance eps in (0, 1)."""
    try:
        eps = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"eps must be a number in (0, 1), got {text!r}") from None
    if not 0 < eps < 1:
        raise argparse.ArgumentTypeError(f"eps must be in (0, 1), got {text}")
    return eps


def d_range(text: str) -> list[int]:
    """"5", "3-10" or "3,10,100": integers >= 2, at most MAX_D_VALUES of them.  The size of
    each range is computed before it is expanded, so "3-1000000000" is refused at once rather
    than filling the memory."""
    bounds: list[tuple[int, int]] = []
    for part in text.split(","):
        lo, sep, hi = part.partition("-")
        try:
            bounds.append((int(lo), int(hi)) if sep else (int(lo), int(lo)))
        except ValueError:
            raise argparse.ArgumentTypeError(f"--d expects N, A-B or a comma list, got {text!r}") from None
    for lo, hi in bounds:
        if lo > hi:
            raise argparse.ArgumentTypeError(f"--d {lo}-{hi}: a range A-B needs A <= B")
        if lo < 2:
            raise argparse.ArgumentTypeError(f"d must be >= 2, got {lo} in {text!r}")
    count = sum(hi - lo + 1 for lo, hi in bounds)
    if count > MAX_D_VALUES:
        raise argparse.ArgumentTypeError(
            f"--d {text} names {count:,} values of d; at most {MAX_D_VALUES:,} per run (each is a "
            "case of every check; `verify certify` proves a claim over a whole range of d)")
    return [d for lo, hi in bounds for d in range(lo, hi + 1)]


def eps_list(text: str) -> list[float]:
    """A comma list of tolerances in (0, 1)."""
    return [unit_interval(part) for part in text.split(",")]


def steps(text: str) -> int:
    """A number of steps T >= 0."""
    try:
        T = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"T must be an integer >= 0, got {text!r}") from None
    if T < 0:
        raise argparse.ArgumentTypeError(f"T must be an integer >= 0, got {T}")
    return T


def positive(text: str) -> int:
    """An integer >= 1 (workers, seeds)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {n}")
    return n


def workers(text: str) -> int:
    """A number of worker processes: an integer >= 1, capped at the cores available, with a
    one-line note (more processes than cores only share them: a check that took 14-21 s took
    110 s with --workers 1000)."""
    from ..run.executors import available_cores

    n = positive(text)
    available = available_cores()
    if n > available:
        print(f"verify: note: --workers {n} is more than the {available} cores available here: "
              f"using {available}", file=sys.stderr)
        return available
    return n


def _probe(target: Path, flag: str, directory: bool) -> None:
    """Try to write at ``target`` without changing anything there: open an existing file for
    appending and write zero bytes to it (a full device such as /dev/full refuses even those),
    or create a new file (in the folder, for a directory) and remove it.  Permission bits alone
    do not say it (root passes ``os.access`` on a read-only file)."""
    try:
        if directory:
            with tempfile.TemporaryFile(dir=target):
                pass
        elif target.exists():
            fd = os.open(target, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, b"")
            finally:
                os.close(fd)
        else:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
            target.unlink()
    except OSError as exc:
        raise UsageError(f"{flag}: {target} is not writable ({exc.strerror})") from None


def stdout_problem() -> str | None:
    """Why standard output cannot be written (a full device, a closed descriptor), or None: a
    write of zero bytes, which changes nothing but fails where a real write would."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a capture (tests): nothing to probe
        return None
    try:
        os.write(fd, b"")
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def writable(path: str, flag: str, directory: bool = False) -> None:
    """Raise :class:`UsageError` unless ``path`` can be written: a file (or, with ``directory``,
    a folder) whose parent exists, which is not of the other kind, and which a probe can write.
    Called before any work starts, so that a long run never ends in an unwritable path."""
    if path == STDOUT and not directory:
        problem = stdout_problem()
        if problem:
            raise UsageError(f"{flag}: standard output is not writable ({problem})")
        return
    target = Path(path)
    if directory and target.exists() and not target.is_dir():
        raise UsageError(f"{flag}: {path} is a file, not a directory")
    if not directory and target.is_dir():
        raise UsageError(f"{flag}: {path} is a directory: name a file")
    folder = target if directory and target.exists() else target.parent
    if not folder.is_dir():
        raise UsageError(f"{flag}: no such directory: {folder}")
    _probe(target if not directory or target.exists() else folder, flag, directory)


def check_outputs(args: argparse.Namespace, files: tuple[str, ...] = ("output", "json", "journal"),
                  folders: tuple[str, ...] = ()) -> None:
    """Every output path the command was given, checked before any work (see :func:`writable`)."""
    for name in files:
        value = getattr(args, name, None)
        if value:
            writable(value, "--" + name.replace("_", "-"))
    for name in folders:
        value = getattr(args, name, None)
        if value:
            writable(value, "--" + name.replace("_", "-"), directory=True)


def write_text(path: str, text: str, flag: str) -> None:
    """Write an output, or print it for ``-``; a failure at the end of a run is one line."""
    try:
        if path == STDOUT:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
            sys.stdout.flush()
            return
        Path(path).write_text(text)
    except OSError as exc:
        where = "standard output" if path == STDOUT else path
        raise UsageError(f"{flag}: cannot write {where}: {exc.strerror or exc}") from None


class Deprecated(argparse.Action):
    """An old spelling of an option: works as the new one, with one line on stderr."""

    def __init__(self, option_strings, dest, new: str = "", **kwargs) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"verify: note: {option_string} is deprecated, use {self.new} (the old spelling "
              f"goes in release {DEPRECATED_RELEASE})", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_json(p: argparse.ArgumentParser, what: str) -> None:
    """``--json [PATH]``: ``what`` as JSON into PATH, or on standard output without a PATH (or
    with ``-``); the human-readable output then goes to standard error."""
    p.add_argument("--json", nargs="?", const=STDOUT, metavar="PATH",
                   help=f"write {what} as JSON to PATH (no PATH, or '-': standard output)")


def add_output(p: argparse.ArgumentParser, what: str, old: tuple[str, ...] = (),
               metavar: str = "PATH", required: bool = False) -> None:
    """``--output PATH`` (and deprecated old spellings such as ``--out``)."""
    p.add_argument("--output", metavar=metavar, required=required, help=what)
    for spelling in old:
        p.add_argument(spelling, dest="output", metavar=metavar, action=Deprecated, new="--output",
                       help=f"deprecated spelling of --output (until release {DEPRECATED_RELEASE})")


def add_constants(p: argparse.ArgumentParser) -> None:
    """``--constants FILE`` and ``--set KEY=VALUE``, with the same help everywhere."""
    p.add_argument("--constants", metavar="FILE", help="constants file (default: "
                   "proofs/constants.toml in a checkout, else the copy installed with verify)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override one constant for this run (repeatable); the value is checked "
                        "against the constant's domain")
