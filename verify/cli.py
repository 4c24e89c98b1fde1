"""The ``verify`` command: presents the engine's and the checks' results, computes nothing itself.

Bad input gives one line on stderr and exit code 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

import mpmath
from rich.console import Console
from rich.table import Table

from .engine.symbolic import GRAD_KEYS
from .engine.symmetric import SymmetricPoint, evaluate

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage too)
        raise UsageError(message)


def decimal_string(x: mpmath.mpf, digits: int) -> str:
    """``x`` with ``digits`` significant digits, trailing zeros kept."""
    return mpmath.nstr(x, digits, strip_zeros=False)


def number(text: str) -> str:
    """Validate a real number given on the command line; kept as text so that it is read at the
    working precision, not rounded to a float first."""
    try:
        value = mpmath.mpf(text)
    except (ValueError, TypeError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not mpmath.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return text


def dimension(text: str) -> int:
    try:
        d = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"d must be an integer >= 2, got {text!r}") from None
    if d < 2:
        raise argparse.ArgumentTypeError(f"d must be an integer >= 2, got {d}")
    return d


def precision(text: str) -> int:
    try:
        dps = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"dps must be an integer >= 5, got {text!r}") from None
    if dps < 5:
        raise argparse.ArgumentTypeError(f"dps must be an integer >= 5, got {dps}")
    return dps


def _cmd_eval(args: argparse.Namespace, console: Console) -> int:
    point = SymmetricPoint(args.d, args.alpha_s, args.alpha_j, args.beta_s, args.beta_j)
    ev = evaluate(point, args.dps)
    digits = args.dps
    if args.json:
        out = {
            "d": args.d,
            "dps": args.dps,
            "loss": decimal_string(ev.loss, digits),
            "grad": {key: decimal_string(ev.grad[key], digits) for key in GRAD_KEYS},
        }
        print(json.dumps(out))
        return 0
    table = Table(title=f"Population loss and gradient, d = {args.d}, {args.dps} digits "
                        f"(moments of {'gamma' if ev.family == 'mu' else '1 - gamma'})")
    table.add_column("quantity")
    table.add_column("value", justify="right", overflow="fold")
    table.add_column("error bound (quadrature)", justify="right")
    table.add_row("L_s", decimal_string(ev.loss, digits), mpmath.nstr(ev.error["loss"], 3))
    for key in GRAD_KEYS:
        label = f"dL/d{key}" + (" (one coordinate)" if key.endswith("_j") else "")
        table.add_row(label, decimal_string(ev.grad[key], digits), mpmath.nstr(ev.error[key], 3))
    console.print(table)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verify", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    ev = sub.add_parser("eval", help="population loss and gradient at a background-symmetric point")
    ev.add_argument("--d", type=dimension, required=True, help="alphabet size (>= 2)")
    for name in ("alpha-s", "alpha-j", "beta-s", "beta-j"):
        ev.add_argument(f"--{name}", type=number, default="0", help=f"{name} (default 0)")
    ev.add_argument("--dps", type=precision, default=30, help="decimal digits (default 30)")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.set_defaults(handler=_cmd_eval)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    console = Console()
    try:
        args = build_parser().parse_args(argv)
        return args.handler(args, console)
    except UsageError as exc:
        print(f"verify: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("verify: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
