"""What every command shares: the rich console for its human output, the constants its flags
name (validated, one line on bad input) and its provenance record."""
from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from .args import UsageError


def load_constants(args: argparse.Namespace) -> dict:
    """The constants the flags name (file, then ``--set``), validated: one line on bad input."""
    from .. import constants as constants_mod

    try:
        base = constants_mod.load(Path(args.constants) if args.constants else None)
        return constants_mod.with_overrides(base, args.set or [])
    except constants_mod.ConstantsError as exc:
        raise UsageError(str(exc)) from None


def provenance_of(args: argparse.Namespace, profile: str | None = None) -> dict[str, str]:
    """The command's provenance record; its constants must already have loaded."""
    from .. import constants as constants_mod
    from ..report import provenance

    given = getattr(args, "constants", None)
    path = Path(given) if given else None
    return provenance.record(constants_mod.source_label(path), constants_mod.sha256(path),
                             getattr(args, "set", None) or [], profile, getattr(args, "seed", None))


def console(stderr: bool = False):
    """The rich console for a command's human output: standard error when the JSON goes to
    standard output; the terminal's width, or COLUMNS, or 160 columns in a pipe or a file (rich's
    default of 80 folds the report table mid-word in a log).  A reader that goes away (``| head``)
    ends the command in one line with exit code 2, as any output that cannot be written (rich
    would exit with 1 and say nothing)."""
    import os

    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise UsageError("cannot write standard output (Broken pipe)")

    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty() or os.environ.get("COLUMNS"):
        return _Console(stderr=stderr)
    return _Console(stderr=stderr, width=160)
