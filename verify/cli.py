"""The ``verify`` command: presents the engine's and the checks' results, computes nothing itself.

Bad input gives one line on stderr and exit code 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Sequence

import mpmath
from rich.console import Console
from rich.table import Table

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from . import constants as constants_mod
from . import report, runner
from .checks import Evidence, Profile
from .engine.plans import three_phase
from .engine.symbolic import GRAD_KEYS
from .engine.symmetric import SymmetricPoint, evaluate
from .journal import Journal, JournalError, run_key
from .results import REGISTRY

REPORT_PATH = Path(__file__).resolve().parent.parent / "REPORT.md"
FULL_REPORT = Path("reports") / "full.md"  # relative to the project's root

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


def _cmd_eval_certified(args: argparse.Namespace, console: Console) -> int:
    """Loss and gradient as Arb balls (midpoint +- radius, both printed as decimal strings)."""
    from .engine.certified import require_flint

    require_flint()
    from .engine.certified.balls import bits_for, precision
    from .engine.certified.symmetric import ball_evaluate, ball_state

    bits = bits_for(args.dps)
    with precision(bits):
        from flint import arb

        gap = arb(args.alpha_s) - arb(args.alpha_j)
        bs, bj = arb(args.beta_s), arb(args.beta_j)
    balls = ball_evaluate(ball_state(args.d, gap, bits), bs, bj)
    with precision(bits + 64):
        out = {}
        for key, ball in balls.items():
            mid = ball.mid().str(args.dps, radius=False)
            # the printed midpoint is rounded: its distance to the ball's centre joins the
            # radius, and the radius is printed rounded up (x 1.01 before 3 digits)
            rad = (ball.rad() + abs(ball.mid() - arb(mid))) * arb("1.01")
            out[key] = {"mid": mid, "rad": rad.upper().str(3, radius=False)}
    if args.json:
        print(json.dumps({"d": args.d, "dps": args.dps, "evidence": "certified", **out}))
        return 0
    table = Table(title=f"Population loss and gradient, d = {args.d}: Arb enclosures ({bits} bits)")
    table.add_column("quantity")
    table.add_column("midpoint", justify="right", overflow="fold")
    table.add_column("radius (rigorous)", justify="right")
    for key, ball in out.items():
        table.add_row(key, ball["mid"], ball["rad"])
    console.print(table)
    return 0


def _cmd_eval(args: argparse.Namespace, console: Console) -> int:
    if getattr(args, "certified", False):
        return _cmd_eval_certified(args, console)
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
        base = constants_mod.load(Path(args.constants) if args.constants else constants_mod.DEFAULT_FILE)
        return constants_mod.with_overrides(base, args.set or [])
    except constants_mod.ConstantsError as exc:
        raise UsageError(str(exc)) from None


def _run_checks(args: argparse.Namespace, console: Console, ids: Sequence[str] | None,
                options: dict) -> int:
    consts = _load_constants(args)
    profile = Profile(args.profile)
    try:
        results = runner.select(ids)
    except KeyError as exc:
        raise UsageError(f"unknown result or check: {exc.args[0]} (see `verify list`)") from None
    checked = [r for r in results if r.checked]
    pending = [r for r in results if not r.checked]
    journal = _open_journal(args, consts, options)
    with Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("cases", total=None)
        reports = runner.run(checked, constants_mod.values(consts), profile, options,
                             workers=args.workers, check_ids=ids, journal=journal,
                             judge=not args.report_only,
                             progress=lambda done, total: bar.update(task, completed=done, total=total))
    console.print(report.terminal_table(reports, pending))
    for table in report.exhibit_tables(results, reports):
        console.print(table)
    for line in report.failures_text(reports):
        console.print(f"[red]{line}[/]", highlight=False)
    if args.json:
        Path(args.json).write_text(report.json_report(reports, results, consts, profile))
    path = Path(args.output) if args.output else (REPORT_PATH if ids is None else None)
    if path is not None:
        command = "verify all" if ids is None else f"verify check {' '.join(ids)}"
        path.write_text(report.markdown(reports, results, consts, profile, command,
                                        _see_also(path, profile)))
        console.print(f"wrote {path}")
    return report.exit_code(reports)


def _see_also(path: Path, profile: Profile) -> list[str]:
    """The default report links the recorded full-profile report when it sits beside it."""
    full = REPORT_PATH.parent / FULL_REPORT
    if path.resolve() != REPORT_PATH or profile is Profile.FULL or not full.exists():
        return []
    return [f"The full profile (wider ranges of d and eps, longer searches, larger samples; over an "
            f"hour) has its own report: [{FULL_REPORT.as_posix()}]({FULL_REPORT.as_posix()}), written by "
            f"`verify all --profile full --workers 2 --journal reports/full.jsonl --output "
            f"{FULL_REPORT.as_posix()}`."]


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


def _certified_ids(ids: Sequence[str] | None) -> list[str]:
    """With --certified: the checks of certified evidence among the selection (python-flint
    required: one line and exit 2 without it)."""
    from .engine.certified import require_flint

    require_flint()
    try:
        chosen = runner.select(ids)
    except KeyError as exc:
        raise UsageError(f"unknown result or check: {exc.args[0]} (see `verify list`)") from None
    out = [c.id for r in chosen for c in r.checks if c.evidence is Evidence.CERTIFIED
           and (not ids or r.id in ids or c.id in ids)]
    if not out:
        raise UsageError("no certified check in the selection")
    return out


def _cmd_all(args: argparse.Namespace, console: Console) -> int:
    _check_paths(args)
    if getattr(args, "certified", False):
        return _run_checks(args, console, _certified_ids(None), {})
    return _run_checks(args, console, None, {})


def _cmd_check(args: argparse.Namespace, console: Console) -> int:
    _check_paths(args)
    options = {"d": args.d, "eps": args.eps}
    ids = _certified_ids([args.id]) if getattr(args, "certified", False) else [args.id]
    return _run_checks(args, console, ids, {k: v for k, v in options.items() if v})


def _cmd_list(args: argparse.Namespace, console: Console) -> int:
    table = Table(title="Registered results and checks")
    table.add_column("id")
    table.add_column("step / statement", overflow="fold")
    table.add_column("evidence")
    for result in REGISTRY:
        table.add_row(f"[bold]{result.id}[/]", result.statement, "" if result.checked else "not checked yet")
        for check in result.checks:
            table.add_row(f"  {check.id}", f"{check.step}: {check.claim}", check.evidence.value)
    console.print(table)
    return 0


def _cmd_plan(args: argparse.Namespace, console: Console) -> int:
    from .results.thm2 import schedule

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
        print(json.dumps(out))
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


def _cmd_certify(args: argparse.Namespace, console: Console) -> int:
    """Branch and bound over a box of (d, eps); writes a certificate (certified evidence)."""
    from .engine.certified import require_flint

    require_flint()
    from .certify import boxes, certificate

    if not (args.d[0] < args.d[1] and 0 < args.eps[0] < args.eps[1] < 1):
        raise ValueError("need --d LO HI with LO < HI and --eps LO HI with 0 < LO < HI < 1")
    consts = constants_mod.values(_load_constants(args))
    run = boxes.branch_and_bound(args.group, boxes.log_box(*args.d, *args.eps), consts,
                                 args.bits, args.max_depth, args.seconds)
    certificate.write(run, consts, Path(args.out))
    verdict = {True: "CERTIFIED", False: "FAILS (counterexample region)", None: "undecided"}[run.status]
    console.print(f"{args.group}: {verdict}: {run.summary()}; certificate {args.out}", soft_wrap=True)
    return 0 if run.status else 1


def _cmd_recheck(args: argparse.Namespace, console: Console) -> int:
    """Re-verify a certificate leaf by leaf and check that its leaves tile the box."""
    from .engine.certified import require_flint

    require_flint()
    from .certify.certificate import recheck

    try:
        data = json.loads(Path(args.certificate).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read certificate {args.certificate}: {exc}") from None
    result = recheck(data, args.workers)
    for problem in result.problems:
        console.print(f"REJECTED: {problem}", soft_wrap=True)
    if result.ok:
        console.print(f"certificate holds: {result.leaves} leaves re-verified, the box is covered")
    return 0 if result.ok else 1


def _add_certify_parsers(sub) -> None:
    ce = sub.add_parser("certify", help="certify a claim group over a box of (d, eps) by branch and bound")
    ce.add_argument("group", choices=["prop1", "thm2", "cor1"])
    ce.add_argument("--d", type=float, nargs=2, metavar=("LO", "HI"), required=True)
    ce.add_argument("--eps", type=float, nargs=2, metavar=("LO", "HI"), required=True)
    ce.add_argument("--bits", type=int, default=96, help="Arb precision in bits (default 96)")
    ce.add_argument("--max-depth", type=int, default=24)
    ce.add_argument("--seconds", type=float, help="stop splitting after this long (rest undecided)")
    ce.add_argument("--out", required=True, metavar="FILE", help="certificate (JSON)")
    ce.add_argument("--constants", metavar="FILE")
    ce.add_argument("--set", action="append", metavar="KEY=VALUE")
    ce.set_defaults(handler=_cmd_certify)
    rc = sub.add_parser("recheck", help="re-verify a certificate written by 'verify certify'")
    rc.add_argument("certificate")
    rc.add_argument("--workers", type=int, default=1)
    rc.set_defaults(handler=_cmd_recheck)


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", choices=[x.value for x in Profile], default="default")
    p.add_argument("--constants", metavar="FILE", help="constants file (default proofs/constants.toml)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override one constant")
    p.add_argument("--workers", type=int, default=1, help="processes to spread the cases over")
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
    parser = _Parser(prog="verify", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    ev = sub.add_parser("eval", help="population loss and gradient at a background-symmetric point")
    ev.add_argument("--d", type=dimension, required=True, help="alphabet size (>= 2)")
    for name in ("alpha-s", "alpha-j", "beta-s", "beta-j"):
        ev.add_argument(f"--{name}", type=number, default="0", help=f"{name} (default 0)")
    ev.add_argument("--dps", type=precision, default=30, help="decimal digits (default 30)")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--certified", action="store_true",
                    help="Arb ball enclosures (midpoint +- radius; needs python-flint)")
    ev.set_defaults(handler=_cmd_eval)

    al = sub.add_parser("all", help="run every check, print the report, write REPORT.md")
    _add_run_options(al)
    al.add_argument("--output", metavar="PATH", help="where to write the markdown report "
                    "(default REPORT.md at the project's root)")
    al.set_defaults(handler=_cmd_all)

    ch = sub.add_parser("check", help="run the checks of one result or one check")
    ch.add_argument("id", help="result id (prop1) or check id (prop1.bound)")
    ch.add_argument("--d", type=d_range, help="values of d: N, A-B or a comma list")
    ch.add_argument("--eps", type=eps_list, help="comma list of eps in (0, 1)")
    ch.add_argument("--output", metavar="PATH", help="also write a markdown report of these checks")
    _add_run_options(ch)
    ch.set_defaults(handler=_cmd_check)

    ls = sub.add_parser("list", help="list the registered results and checks")
    ls.set_defaults(handler=_cmd_list)

    pl = sub.add_parser("plan", help="run a training plan on the exact population loss")
    pl.add_argument("plan", choices=["three-phase"])
    pl.add_argument("--d", type=dimension, required=True)
    pl.add_argument("--eps", type=unit_interval, required=True)
    for name in ("eta1", "eta2", "eta3"):
        pl.add_argument(f"--{name}", type=number, help=f"{name} (default: the theorem's schedule)")
    pl.add_argument("--T", type=steps, help="Phase-3 steps (default: ceil(4d ln(16d/eps)))")
    pl.add_argument("--dps", type=precision, default=30)
    pl.add_argument("--constants", metavar="FILE")
    pl.add_argument("--set", action="append", metavar="KEY=VALUE")
    pl.add_argument("--json", action="store_true")
    pl.set_defaults(handler=_cmd_plan)
    _add_certify_parsers(sub)
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
