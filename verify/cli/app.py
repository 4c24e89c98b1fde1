"""The ``verify`` command: the parser and the dispatch (the commands live beside it: ``run``,
``point``, ``certified``, ``regression``; ``verify experiments`` in experiments).

Bad input prints one line on stderr and exits 2, never a traceback (ARCHITECTURE.md).  Modules
that compute are imported only by the command that runs, so ``verify --help`` starts at once.
"""
from __future__ import annotations

import argparse
import os
import sys
import textwrap
from typing import Sequence

from .args import UsageError, stdout_problem

DESCRIPTION = """\
Check the results of Han & Ghoshdastidar (2026), "Training Dynamics of Transformers on
Unbounded Inputs", across ranges of d and eps; every line of the report says what kind of
evidence it gives."""
EPILOG = """examples:
  verify all                   every check; prints the summary and the verdict, writes REPORT.md
  verify check prop1 --d 3 --eps 0.5
  verify COMMAND --help        what one command does, with an example

exit codes: 0 every check passes; 1 a check fails, is undecided or incomplete; 2 bad input"""
EXIT_USAGE = 2
# commands without a progress display of their own that may compute for a minute or more (eval
# at 1000 digits, a plan at a large d, the recheck of a certificate of thousands of leaves): the
# display then says at least that they are still at work
TIMED = ("eval", "plan", "recheck")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage too)
        raise UsageError(message)


class _Version(argparse.Action):
    """``--version``: the version, then the provenance a report would carry, one item a line."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and what a report "
                         "would name as its provenance, then exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .. import constants as constants_mod
        from ..report import provenance

        try:
            prov = provenance.record(constants_mod.source_label(), constants_mod.sha256())
        except constants_mod.ConstantsError as exc:
            raise UsageError(str(exc)) from None
        print(f"verify {prov.pop('verify version')}")
        print("\n".join(provenance.lines(prov)))
        parser.exit(0)


def command(sub: argparse._SubParsersAction, name: str, purpose: str,
            example: str) -> argparse.ArgumentParser:
    """A subcommand whose help says what it is for and shows one example."""
    return sub.add_parser(name, help=purpose, description=textwrap.fill(purpose + ".", 78),
                          epilog=f"example:\n  {example}",
                          formatter_class=argparse.RawDescriptionHelpFormatter)


# the subcommands each command module adds (tests/test_cli.py holds this table to the parser)
COMMANDS = {
    "run": ("all", "check", "list"),
    "point": ("eval", "plan"),
    "regression": ("explain", "deps", "slack", "diff"),
    "certified": ("certify", "certify-cube", "recheck"),
    "ledger": ("ledger",),
    "experiments": ("experiments",),
}


def build_parser(command_name: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or, given a subcommand's name, a parser holding only the subcommands of
    its module: a command does not import what the others' arguments need (the claim registry,
    the constants, the regression tools), so a cold ``verify eval`` starts about 0.07 s sooner."""
    import importlib

    modules = [m for m, names in COMMANDS.items() if command_name in names] or list(COMMANDS)
    parser = _Parser(prog="verify", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in modules:
        importlib.import_module(f".{name}", __package__).add_parsers(sub, command)
    if "experiments" in sub.choices:
        from . import io

        experiments = sub.choices["experiments"]
        handle = experiments.get_default("handler")
        experiments.set_defaults(handler=lambda args: handle(args, io.console()))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        args = build_parser(argv[0] if argv else None).parse_args(argv)
        args.argv = argv  # the command as typed (a journal records it)
        problem = stdout_problem()
        if problem:  # > /dev/full, >&-: said now, not after the run
            raise UsageError(f"standard output is not writable ({problem})")
        code = _run(args)
        sys.stdout.flush()
        return code
    except (UsageError, ValueError) as exc:  # the engine's input validation raises ValueError
        print(f"verify: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        problem = stdout_problem()
        if problem is None and not isinstance(exc, BrokenPipeError):
            raise  # not an output that failed: a fault, with its traceback
        _silence_stdout()
        print(f"verify: error: cannot write standard output ({problem or exc.strerror})",
              file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("verify: interrupted (with --journal, the finished cases are kept: run the same "
              "command again to resume)", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    """The command's handler, inside a progress display for the TIMED commands."""
    if args.command not in TIMED:
        return args.handler(args)
    from ..run import progress

    with progress.show(args.command):
        return args.handler(args)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of what could
    not be written adds no second message (the recipe of Python's documentation for SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
