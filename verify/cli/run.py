"""``verify all``, ``verify check`` and ``verify list``: run the registered checks, show the
summary (or every table) and the verdict last, write REPORT.md and the JSON report.

Every output path is checked before the run starts; the engine, the results and rich are
imported only when a command runs (``verify --help`` stays fast).
"""
from __future__ import annotations

import argparse
import contextlib
import re
import sys
import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

from . import args as cli_args
from .args import UsageError

REPORT_PATH = Path("REPORT.md")  # in the current folder, never inside the installed package
FULL_REPORT = Path("reports") / "full.md"  # relative to REPORT_PATH's folder
EXPERIMENTS_DIR = Path("reports") / "experiments"
EXPERIMENT_FILES = (("Table 1", "table1.md"), ("Figure 3", "figure3.png"),
                    ("the claims on that grid", "claims.md"),
                    ("heads needed (open question)", "heads.md"),
                    ("heads needed on the population loss", "heads-population.md"))
PLAIN_PROGRESS_SECONDS = 30.0  # a progress line this often when stderr is not a terminal
PROFILE_HELP = ("quick (about a minute; what the tests run), default (about 1,400 CPU-seconds: "
                "12-14 minutes on 2 cores), or full (widest ranges, longest searches: an estimated "
                "4,000 CPU-seconds)")


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
    default of 80 folds the report table mid-word in a log)."""
    import os

    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty() or os.environ.get("COLUMNS"):
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=160)


@contextlib.contextmanager
def progress() -> Iterator[Callable[[int, int], None]]:
    """``update(done, total)`` as cases finish: a bar on a terminal; else (CI logs) one plain
    line every PLAIN_PROGRESS_SECONDS and a last one, so that a long run is never silent."""
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        with Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True),
                      transient=True) as bar:
            task = bar.add_task("cases", total=None)
            yield lambda done, total: bar.update(task, completed=done, total=total)
        return
    import threading

    began = time.monotonic()
    state = {"done": 0, "total": 0}
    stop = threading.Event()

    def line() -> None:
        print(f"verify: {state['done']}/{state['total']} cases done, {time.monotonic() - began:.0f} s",
              file=sys.stderr, flush=True)

    def tick() -> None:  # a line every PLAIN_PROGRESS_SECONDS, even while one long case runs
        while not stop.wait(PLAIN_PROGRESS_SECONDS):
            line()

    ticker = threading.Thread(target=tick, name="verify-progress", daemon=True)
    ticker.start()
    try:
        yield lambda done, total: state.update(done=done, total=total)
    finally:
        stop.set()
        ticker.join()
    if time.monotonic() - began >= PLAIN_PROGRESS_SECONDS:
        line()


def report_path(args: argparse.Namespace, ids: Sequence[str] | None, profile: str) -> Path | None:
    """Where the markdown report goes: --output; else REPORT.md in the current folder for
    `verify all` with the default profile; else nowhere (quick and full print the summary)."""
    if args.output:
        return Path(args.output)
    return REPORT_PATH if ids is None and profile == "default" else None


def _see_also(path: Path, profile: str) -> list[str]:
    """The default report links the recorded full-profile report and the experiments' outputs
    when they sit beside it."""
    here = REPORT_PATH.resolve().parent
    if path.resolve() != REPORT_PATH.resolve() or profile == "full":
        return []
    out = []
    if (here / FULL_REPORT).exists():
        commit = re.search(r"git commit: `([0-9a-f]{7})", (here / FULL_REPORT).read_text())
        written = f", written at commit `{commit.group(1)}`" if commit else ""
        out.append(f"The full profile (wider ranges of d and eps, longer searches, larger samples) "
                   f"has its own report, [{FULL_REPORT.as_posix()}]({FULL_REPORT.as_posix()})"
                   f"{written}; it is regenerated by hand and may lag this one (`verify all "
                   f"--profile full --output {FULL_REPORT.as_posix()}`).")
    links = [f"[{name}]({(EXPERIMENTS_DIR / file).as_posix()})" for name, file in EXPERIMENT_FILES
             if (here / EXPERIMENTS_DIR / file).exists()]
    if links:
        out.append("Section 5's experiments (`verify experiments`): " + ", ".join(links) + ".")
    return out


def _executor(args: argparse.Namespace):
    """The executor the flags ask for (--scheduler, --cluster local, --workers); none is
    started for --report-only, which judges nothing."""
    from ..run import executors

    if args.report_only:
        return executors.Serial()
    try:
        return executors.choose(args.workers, args.scheduler, args.cluster)
    except executors.ExecutorError as exc:
        raise UsageError(str(exc)) from None


@contextlib.contextmanager
def _outcome_store(args: argparse.Namespace):
    """Outcomes shared between checks: kept beside the journal (PATH.outcomes) so that a resumed
    run reuses them too, else for this run only."""
    from ..run import memo
    from ..run.journal import code_fingerprint

    if args.journal:
        yield memo.OutcomeStore(Path(args.journal + ".outcomes"), code_fingerprint())
        return
    with memo.temporary() as store:
        yield store


def _open_journal(args: argparse.Namespace, consts: dict, options: dict):
    from ..run.journal import Journal, JournalError, run_key

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


def run_checks(args: argparse.Namespace, ids: Sequence[str] | None, options: dict) -> int:
    """Run the selected checks (all with ``ids`` None) and present them; the exit code."""
    from .. import constants as constants_mod
    from ..checks import Profile
    from .. import report
    from ..results import REGISTRY, RENAMED, by_id, current_ids, proof_graph, select
    from ..run import runner
    from . import regression as cli_regression

    consts = load_constants(args)
    profile = Profile(args.profile)
    prov = provenance_of(args, profile.value)  # taken before the run: the code and constants it starts from
    for old in [i for i in ids or () if i in RENAMED]:
        print(f"note: check {old} is now called {RENAMED[old]}", file=sys.stderr)
    ids = current_ids(ids) if ids else ids
    try:
        results = select(ids)
    except KeyError as exc:
        raise UsageError(f"unknown result or check: {exc.args[0]} (see `verify list`)") from None
    checked = [r for r in results if r.checked]
    journal = _open_journal(args, consts, options)
    with _executor(args) as pool, _outcome_store(args) as store, progress() as update:
        reports = runner.run(checked, constants_mod.values(consts), profile, options,
                             executor=pool, store=store, check_ids=ids, journal=journal,
                             resolve=by_id, judge=not args.report_only, progress=update)
    out = console(stderr=args.json == cli_args.STDOUT)
    if ids is None and not args.verbose:
        out.print(report.summary_table(reports, REGISTRY, proof_graph()))
    else:
        out.print(report.terminal_table(reports, [r for r in results if not r.checked]))
        for table in report.exhibit_tables(results, reports):
            out.print(table)
    for line in report.failures_text(reports):
        out.print(line, style="red", highlight=False, markup=False)
    if args.json:
        cli_args.write_text(args.json, report.json_report(reports, results, consts, profile, prov,
                                                          graph=proof_graph()), "--json")
    path = report_path(args, ids, profile.value)
    if path is not None:
        command = "verify all" if ids is None else f"verify check {' '.join(ids)}"
        see_also = _see_also(path, profile.value) + cli_regression.slack_link(path, REPORT_PATH)
        drawn, note = _figures(reports, consts, path, profile.value)
        text = report.markdown(reports, results, consts, profile, command, see_also, prov,
                               folder=path.parent, figures=drawn, figure_note=note, graph=proof_graph())
        cli_args.write_text(str(path), text, "--output")
        out.print(f"wrote {path}", highlight=False)
    out.print(report.verdict_line(reports), highlight=False)
    return report.exit_code(reports)


def figure_folder(path: Path) -> Path:
    """Where a report's figures go: figures/ beside REPORT.md, else <stem>-figures/ beside it."""
    return path.parent / ("figures" if path.name == REPORT_PATH.name else f"{path.stem}-figures")


def _certificates(reports, profile: str) -> list[tuple[str, Path]]:
    """The committed certificates of the certified boxes this run judged (default and full
    profiles: their boxes are the certificates' roots), as (check id, file)."""
    if profile == "quick":
        return []
    import json

    from ..certify.outcomes import CERTIFICATES, check_of

    ran = {r.check.id for r in reports if r.check.id.endswith(".certified_box")}
    out = []
    for cert in sorted(CERTIFICATES.glob("*.json")) if CERTIFICATES.is_dir() else []:
        try:
            group = str(json.loads(cert.read_text()).get("group", ""))
        except (OSError, ValueError):
            continue
        check = check_of(group)
        if check in ran:
            out.append((check, cert))
    return out


def _figures(reports, consts, path: Path, profile: str) -> tuple[list, str | None]:
    """Draw the report's figures beside it: (title, relative path) of each, or a one-line note
    when matplotlib is missing."""
    from ..report import figures

    if not figures.available():
        return [], figures.NO_MATPLOTLIB
    from ..results import REGISTRY, proof_graph

    ran = {r.result.id for r in reports}
    results = [r.id for r in REGISTRY if r.id in ran]
    return figures.draw(reports, consts, figure_folder(path), path.parent,
                        _certificates(reports, profile), proof_graph(), results), None


def cmd_all(args: argparse.Namespace) -> int:
    cli_args.check_outputs(args)
    consts = load_constants(args)
    if args.certified:
        from .certified import certified_ids

        return run_checks(args, certified_ids(None), {})
    from . import regression as cli_regression

    ids = cli_regression.affected_ids(args, consts)
    if ids == []:
        return 0
    return run_checks(args, ids, {})


def cmd_check(args: argparse.Namespace) -> int:
    cli_args.check_outputs(args)
    load_constants(args)
    options = {k: v for k, v in {"d": args.d, "eps": args.eps}.items() if v}
    if args.certified:
        from .certified import certified_ids

        return run_checks(args, certified_ids([args.id]), options)
    return run_checks(args, [args.id], options)


def cmd_list(args: argparse.Namespace) -> int:
    from rich.table import Table

    from ..results import EXPERIMENTS, REGISTRY

    table = Table(title="Registered results and checks")
    table.add_column("id")
    table.add_column("step / statement", overflow="fold")
    table.add_column("evidence")
    for result in REGISTRY + EXPERIMENTS:
        table.add_row(f"[bold]{result.id}[/]", result.statement, "" if result.checked else "not checked yet")
        for check in result.checks:
            table.add_row(f"  {check.id}", f"{check.step}: {check.claim}", check.evidence.value)
    console().print(table)
    return 0


def add_run_options(p: argparse.ArgumentParser) -> None:
    """The options every run of checks takes (all, check)."""
    from ..run.executors import available_cores

    p.add_argument("--profile", choices=["quick", "default", "full"], default="default", help=PROFILE_HELP)
    cli_args.add_constants(p)
    p.add_argument("--workers", type=cli_args.positive, default=available_cores(),
                   help="processes to spread the cases over (default: the available cores, "
                        f"{available_cores()} here; with --cluster local, the Dask workers)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the cases on the Dask scheduler at ADDRESS (tcp://HOST:8786); "
                        "needs the extra 'cluster'")
    p.add_argument("--cluster", choices=["local"],
                   help="start a local Dask cluster of --workers processes for the run")
    p.add_argument("--certified", action="store_true",
                   help="run only the certified checks (Arb balls; needs python-flint)")
    cli_args.add_json(p, "the report (every check, case and constant)")
    p.add_argument("--journal", metavar="PATH",
                   help="record each finished case in PATH and resume from it: a stopped run "
                        "keeps its outcomes (the journal must come from the same profile, "
                        "constants, options and computing code)")
    p.add_argument("--report-only", action="store_true",
                   help="judge nothing: report the journal's cases and list the missing ones as "
                        "not run (exit 1 while any are missing)")
    p.add_argument("--verbose", action="store_true",
                   help="print every check's table, not only the per-result summary")


def add_parsers(sub, command: Callable) -> None:
    """Register all, check and list; ``command(sub, name, purpose, example)`` makes a
    subcommand whose help says what it is for, with an example."""
    from . import regression as cli_regression

    al = command(sub, "all", "run every check; prints the per-result summary and the verdict, "
                 "and with the default profile writes REPORT.md in the current folder (quick and "
                 "full write a report only with --output)", "verify all --workers 2")
    add_run_options(al)
    cli_args.add_output(al, "where to write the markdown report (default: REPORT.md in the "
                        "current folder, default profile only)")
    cli_regression.add_affected_options(al)
    al.set_defaults(handler=cmd_all)

    ch = command(sub, "check", "run the checks of one result or one check, on chosen d and eps "
                 "if given; prints their tables and the verdict",
                 "verify check prop1 --d 3 --eps 0.5")
    ch.add_argument("id", help="result id (prop1) or check id (prop1.bound)")
    ch.add_argument("--d", type=cli_args.d_range, help="values of d: N, A-B or a comma list")
    ch.add_argument("--eps", type=cli_args.eps_list, help="comma list of eps in (0, 1)")
    cli_args.add_output(ch, "also write a markdown report of these checks")
    add_run_options(ch)
    ch.set_defaults(handler=cmd_check)

    ls = command(sub, "list", "list the paper's results and their checks, with the evidence "
                 "each gives", "verify list")
    ls.set_defaults(handler=cmd_list)
