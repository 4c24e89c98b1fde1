"""The ``verify`` command line.

Bad input gives one line on stderr and exit code 2, never a traceback.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Iterator, Sequence

import mpmath
from rich.console import Console
from rich.table import Table

from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from . import regression as cli_regression
from .. import constants as constants_mod
from . import certified as cli_certified
from ..report import provenance, tables as report
from ..run import executors, memo, runner
from ..checks import Profile
from ..engine.plans import three_phase
from ..experiments.command import add_parser as add_experiments
from ..engine.symbolic import GRAD_KEYS
from ..engine.symmetric import SymmetricPoint, evaluate
from ..run.journal import Journal, JournalError, code_fingerprint, run_key
from ..results import EXPERIMENTS, REGISTRY, RENAMED, by_id, current_ids, select

REPORT_PATH = Path("REPORT.md")  # in the current folder, never inside the installed package
FULL_REPORT = Path("reports") / "full.md"  # relative to REPORT_PATH's folder
EXPERIMENTS_DIR = Path("reports") / "experiments"
EXPERIMENT_FILES = (("Table 1", "table1.md"), ("Figure 3", "figure3.png"),
                    ("the claims on that grid", "claims.md"),
                    ("heads needed (open question)", "heads.md"),
                    ("heads needed on the population loss", "heads-population.md"))

DESCRIPTION = """\
Check the results of Han & Ghoshdastidar (2026), "Training Dynamics of Transformers on
Unbounded Inputs", across ranges of d and eps; every line of the report says what kind of
evidence it gives."""
EPILOG = """examples:
  verify all --workers 2       every check; prints the table, writes REPORT.md here
  verify check thm2.contraction --d 3,10 --eps 0.01
  verify COMMAND --help        what one command does, with an example"""

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
    if getattr(args, "certified", False):
        return cli_certified.cmd_eval(args, console)
    point = SymmetricPoint(args.d, args.alpha_s, args.alpha_j, args.beta_s, args.beta_j)
    ev = evaluate(point, args.dps)
    digits = args.dps
    if args.json:
        out = {
            "d": args.d,
            "dps": args.dps,
            "loss": decimal_string(ev.loss, digits),
            "grad": {key: decimal_string(ev.grad[key], digits) for key in GRAD_KEYS},
            "provenance": provenance.record(),
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


def unit_interval(text: str) -> float:
    try:
        eps = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"eps must be a number in (0, 1), got {text!r}") from None
    if not 0 < eps < 1:
        raise argparse.ArgumentTypeError(f"eps must be in (0, 1), got {text}")
    return eps


def d_range(text: str) -> list[int]:
    """"5", "3-10" or "3,10,100"."""
    out: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.partition("-")
        try:
            vals = range(int(lo), int(hi) + 1) if sep else [int(lo)]
        except ValueError:
            raise argparse.ArgumentTypeError(f"--d expects N, A-B or a comma list, got {text!r}") from None
        out.extend(vals)
    if not out or min(out) < 2:
        raise argparse.ArgumentTypeError(f"d must be integers >= 2, got {text!r}")
    return out


def steps(text: str) -> int:
    try:
        T = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"T must be an integer >= 0, got {text!r}") from None
    if T < 0:
        raise argparse.ArgumentTypeError(f"T must be an integer >= 0, got {T}")
    return T


def eps_list(text: str) -> list[float]:
    return [unit_interval(part) for part in text.split(",")]


def _load_constants(args: argparse.Namespace) -> dict:
    try:
        base = constants_mod.load(Path(args.constants) if args.constants else None)
        return constants_mod.with_overrides(base, args.set or [])
    except constants_mod.ConstantsError as exc:
        raise UsageError(str(exc)) from None


def _provenance(args: argparse.Namespace, profile: Profile | None = None) -> dict[str, str]:
    """The command's provenance record; its constants must already have loaded."""
    path = Path(args.constants) if args.constants else None
    return provenance.record(constants_mod.source_label(path), constants_mod.sha256(path),
                             args.set or [], profile.value if profile else None,
                             getattr(args, "seed", None))  # a run's --seed, where one exists


def report_path(args: argparse.Namespace, ids: Sequence[str] | None, profile: Profile) -> Path | None:
    """Where the markdown report goes: --output; else REPORT.md in the current folder for
    `verify all` with the default profile; else nowhere (quick and full print the table only)."""
    if args.output:
        return Path(args.output)
    return REPORT_PATH if ids is None and profile is Profile.DEFAULT else None


def _run_checks(args: argparse.Namespace, console: Console, ids: Sequence[str] | None,
                options: dict) -> int:
    consts = _load_constants(args)
    profile = Profile(args.profile)
    prov = _provenance(args, profile)  # taken before the run: the code and constants it starts from
    for old in [i for i in ids or () if i in RENAMED]:
        print(f"note: check {old} is now called {RENAMED[old]}", file=sys.stderr)
    ids = current_ids(ids) if ids else ids
    try:
        results = select(ids)
    except KeyError as exc:
        raise UsageError(f"unknown result or check: {exc.args[0]} (see `verify list`)") from None
    checked = [r for r in results if r.checked]
    pending = [r for r in results if not r.checked]
    journal = _open_journal(args, consts, options)
    with _executor(args) as pool, _outcome_store(args) as store, Progress(
            TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("cases", total=None)
        reports = runner.run(checked, constants_mod.values(consts), profile, options,
                             executor=pool, store=store, check_ids=ids, journal=journal, resolve=by_id,
                             judge=not args.report_only,
                             progress=lambda done, total: bar.update(task, completed=done, total=total))
    console.print(report.terminal_table(reports, pending))
    for table in report.exhibit_tables(results, reports):
        console.print(table)
    for line in report.failures_text(reports):
        console.print(f"[red]{line}[/]", highlight=False)
    if args.json:
        Path(args.json).write_text(report.json_report(reports, results, consts, profile, prov))
    path = report_path(args, ids, profile)
    if path is not None:
        command = "verify all" if ids is None else f"verify check {' '.join(ids)}"
        see_also = _see_also(path, profile) + cli_regression.slack_link(path, REPORT_PATH)
        path.write_text(report.markdown(reports, results, consts, profile, command, see_also, prov))
        console.print(f"wrote {path}")
    return report.exit_code(reports)


def _executor(args: argparse.Namespace) -> executors.Executor:
    """The executor the flags ask for (--scheduler, --cluster local, --workers); none is
    started for --report-only, which judges nothing."""
    if args.report_only:
        return executors.Serial()
    try:
        return executors.choose(args.workers, args.scheduler, args.cluster)
    except executors.ExecutorError as exc:
        raise UsageError(str(exc)) from None


@contextlib.contextmanager
def _outcome_store(args: argparse.Namespace) -> Iterator[memo.OutcomeStore]:
    """Outcomes shared between checks: kept beside the journal (PATH.outcomes) so that a resumed
    run reuses them too, else for this run only."""
    if args.journal:
        yield memo.OutcomeStore(Path(args.journal + ".outcomes"), code_fingerprint())
        return
    with memo.temporary() as store:
        yield store


def _see_also(path: Path, profile: Profile) -> list[str]:
    """The default report links the recorded full-profile report and the experiments' outputs
    (Table 1, Figure 3, the claims' report) when they sit beside it."""
    here = REPORT_PATH.resolve().parent
    if path.resolve() != REPORT_PATH.resolve() or profile is Profile.FULL:
        return []
    out = []
    if (here / FULL_REPORT).exists():
        out.append(f"The full profile (wider ranges of d and eps, longer searches, larger samples; "
                   f"about 1,800 CPU-seconds) has its own report: [{FULL_REPORT.as_posix()}]"
                   f"({FULL_REPORT.as_posix()}), written by `verify all --profile full --workers 2 "
                   f"--journal reports/full.jsonl --output {FULL_REPORT.as_posix()}`.")
    links = [f"[{name}]({(EXPERIMENTS_DIR / file).as_posix()})" for name, file in EXPERIMENT_FILES
             if (here / EXPERIMENTS_DIR / file).exists()]
    if links:
        out.append("Section 5's experiments (`verify experiments`, `verify check experiments`): "
                   + ", ".join(links) + ".")
    return out


def _open_journal(args: argparse.Namespace, consts: dict, options: dict) -> Journal | None:
    if args.report_only and not args.journal:
        raise UsageError("--report-only needs --journal: it reports what a journal holds")
    if args.report_only and not Path(args.journal).exists():
        raise UsageError(f"--report-only: no such journal: {args.journal}")
    if not args.journal:
        return None
    key = run_key(args.profile, {k: c.text for k, c in consts.items()}, options)
    try:
        return Journal(Path(args.journal), key)
    except JournalError as exc:
        raise UsageError(str(exc)) from None


def _check_paths(args: argparse.Namespace) -> None:
    for flag in ("output", "json", "journal"):
        value = getattr(args, flag)
        if value and not Path(value).resolve().parent.is_dir():
            raise UsageError(f"--{flag}: no such directory: {Path(value).parent}")


def _cmd_all(args: argparse.Namespace, console: Console) -> int:
    _check_paths(args)
    if getattr(args, "certified", False):
        return _run_checks(args, console, cli_certified.certified_ids(None), {})
    ids = cli_regression.affected_ids(args, _load_constants(args))
    if ids == []:
        return 0
    return _run_checks(args, console, ids, {})


def _cmd_check(args: argparse.Namespace, console: Console) -> int:
    _check_paths(args)
    options = {"d": args.d, "eps": args.eps}
    ids = cli_certified.certified_ids([args.id]) if getattr(args, "certified", False) else [args.id]
    return _run_checks(args, console, ids, {k: v for k, v in options.items() if v})


def _cmd_list(args: argparse.Namespace, console: Console) -> int:
    table = Table(title="Registered results and checks")
    table.add_column("id")
    table.add_column("step / statement", overflow="fold")
    table.add_column("evidence")
    for result in REGISTRY + EXPERIMENTS:
        table.add_row(f"[bold]{result.id}[/]", result.statement, "" if result.checked else "not checked yet")
        for check in result.checks:
            table.add_row(f"  {check.id}", f"{check.step}: {check.claim}", check.evidence.value)
    console.print(table)
    return 0


def _cmd_plan(args: argparse.Namespace, console: Console) -> int:
    from ..results.thm2 import schedule

    consts = constants_mod.values(_load_constants(args))
    eta1, eta2, eta3, T = schedule(args.d, args.eps, consts)
    eta1 = args.eta1 if args.eta1 is not None else eta1
    eta2 = args.eta2 if args.eta2 is not None else eta2
    eta3 = args.eta3 if args.eta3 is not None else eta3
    T = args.T if args.T is not None else T
    plan = three_phase(args.d, eta1, eta2, eta3, T, args.dps)
    digits = args.dps
    pair = lambda v, a, b: {a: decimal_string(v[0], digits), b: decimal_string(v[1], digits)}
    out = {
        "d": args.d, "eps": args.eps, "T": plan.T,
        "eta1": decimal_string(plan.eta1, digits), "eta2": decimal_string(plan.eta2, digits),
        "eta3": decimal_string(plan.eta3, digits),
        "beta1": pair(plan.beta1, "beta_s", "beta_j"),
        "alpha": pair(plan.alpha, "alpha_s", "alpha_j"),
        "beta3": pair(plan.beta3, "beta_s", "beta_j"),
        "loss": decimal_string(plan.loss, digits),
    }
    if args.json:
        print(json.dumps({**out, "provenance": _provenance(args)}))
        return 0
    table = Table(title=f"Three-phase plan, d = {args.d}, eps = {args.eps:g}, T = {plan.T}")
    table.add_column("quantity")
    table.add_column("value", justify="right", overflow="fold")
    for key in ("eta1", "eta2", "eta3"):
        table.add_row(key, out[key])
    for phase in ("beta1", "alpha", "beta3"):
        for key, val in out[phase].items():
            table.add_row(f"{phase}.{key}", val)
    table.add_row("L_s(alpha', beta'')", out["loss"])
    console.print(table)
    return 0


class _Version(argparse.Action):
    """``--version``: the version, then the provenance a report would carry, one item a line."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and what a report "
                         "would name as its provenance, then exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        try:
            prov = provenance.record(constants_mod.source_label(), constants_mod.sha256())
        except constants_mod.ConstantsError as exc:
            raise UsageError(str(exc)) from None
        print(f"verify {prov.pop('verify version')}")
        print("\n".join(provenance.lines(prov)))
        parser.exit(0)


def _command(sub: argparse._SubParsersAction, name: str, purpose: str,
             example: str) -> argparse.ArgumentParser:
    """A subcommand whose help says what it is for and shows one example."""
    return sub.add_parser(name, help=purpose, description=textwrap.fill(purpose + ".", 78),
                          epilog=f"example:\n  {example}",
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", choices=[x.value for x in Profile], default="default",
                   help="quick (about a minute), default, or full (widest ranges, hours)")
    p.add_argument("--constants", metavar="FILE", help="constants file (default: "
                   "proofs/constants.toml in a checkout, else the copy installed with verify)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override one constant")
    p.add_argument("--workers", type=int, default=executors.available_cores(),
                   help="processes to spread the cases over (default: the available cores, "
                        f"{executors.available_cores()} here; with --cluster local, the Dask workers)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the cases on the Dask scheduler at ADDRESS (tcp://HOST:8786); "
                        "needs the extra 'cluster'")
    p.add_argument("--cluster", choices=["local"],
                   help="start a local Dask cluster of --workers processes for the run")
    p.add_argument("--certified", action="store_true",
                   help="run only the certified checks (Arb balls over boxes; needs python-flint)")
    p.add_argument("--json", metavar="PATH", help="also write a machine-readable report")
    p.add_argument("--journal", metavar="PATH",
                   help="record each finished case in PATH and resume from it: a stopped run "
                        "keeps its outcomes (the journal must come from the same profile, "
                        "constants, options and computing code)")
    p.add_argument("--report-only", action="store_true",
                   help="judge nothing: report the journal's cases and list the missing ones as "
                        "not run (exit 1 while any are missing)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verify", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    ev = _command(sub, "eval", "the population loss and its gradient at a background-symmetric "
                  "point, to the digits asked for",
                  "verify eval --d 3 --alpha-s 1.5 --alpha-j -0.5 --beta-s 1.2 --beta-j 0.3 --dps 30")
    ev.add_argument("--d", type=dimension, required=True, help="alphabet size (>= 2)")
    for name in ("alpha-s", "alpha-j", "beta-s", "beta-j"):
        ev.add_argument(f"--{name}", type=number, default="0", help=f"{name} (default 0)")
    ev.add_argument("--dps", type=precision, default=30, help="decimal digits (default 30)")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--certified", action="store_true",
                    help="Arb ball enclosures (midpoint +- radius; needs python-flint)")
    ev.set_defaults(handler=_cmd_eval)

    al = _command(sub, "all", "run every check and print the theorem table; the default profile "
                  "writes REPORT.md in the current folder (quick and full write a file only with "
                  "--output)", "verify all --workers 2")
    _add_run_options(al)
    al.add_argument("--output", metavar="PATH", help="where to write the markdown report "
                    "(default: REPORT.md in the current folder, default profile only)")
    cli_regression.add_affected_options(al)
    al.set_defaults(handler=_cmd_all)

    ch = _command(sub, "check", "run the checks of one result or one check, on chosen d and eps "
                  "if given", "verify check thm2.contraction --d 3,10 --eps 0.01")
    ch.add_argument("id", help="result id (prop1) or check id (prop1.bound)")
    ch.add_argument("--d", type=d_range, help="values of d: N, A-B or a comma list")
    ch.add_argument("--eps", type=eps_list, help="comma list of eps in (0, 1)")
    ch.add_argument("--output", metavar="PATH", help="also write a markdown report of these checks")
    _add_run_options(ch)
    ch.set_defaults(handler=_cmd_check)

    ls = _command(sub, "list", "list the paper's results and their checks, with the evidence "
                  "each gives", "verify list")
    ls.set_defaults(handler=_cmd_list)

    pl = _command(sub, "plan", "run Theorem 2's three-phase training plan on the exact population "
                  "loss", "verify plan three-phase --d 10 --eps 0.01")
    pl.add_argument("plan", choices=["three-phase"])
    pl.add_argument("--d", type=dimension, required=True)
    pl.add_argument("--eps", type=unit_interval, required=True)
    for name in ("eta1", "eta2", "eta3"):
        pl.add_argument(f"--{name}", type=number, help=f"{name} (default: the theorem's schedule)")
    pl.add_argument("--T", type=steps, help="Phase-3 steps (default: ceil(4d ln(16d/eps)))")
    pl.add_argument("--dps", type=precision, default=30)
    pl.add_argument("--constants", metavar="FILE")
    pl.add_argument("--set", action="append", metavar="KEY=VALUE")
    pl.add_argument("--json", action="store_true", help="print one JSON object")
    pl.set_defaults(handler=_cmd_plan)
    cli_regression.add_parsers(sub, _command, lambda fn: lambda args, console: fn(args, console, _load_constants),
                               d_range, eps_list)
    add_experiments(sub, _command)
    cli_certified.add_parsers(sub, _command, _load_constants)
    return parser


PIPE_WIDTH = 160  # columns of the table when stdout is a file or a pipe (CI logs) and COLUMNS is unset


def output_console() -> Console:
    """The console for stdout: the terminal's width, or COLUMNS, or else PIPE_WIDTH (rich's
    default of 80 folds the report table's headers and claims mid-word in a log)."""
    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return Console()
    return Console(width=PIPE_WIDTH)


def main(argv: Sequence[str] | None = None) -> int:
    console = output_console()
    try:
        args = build_parser().parse_args(argv)
        return args.handler(args, console)
    except (UsageError, ValueError) as exc:  # the engine's input validation raises ValueError
        print(f"verify: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("verify: interrupted (with --journal, the finished cases are kept: run the same "
              "command again to resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
