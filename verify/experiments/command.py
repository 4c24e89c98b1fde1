"""``verify experiments``: run the grid of Section 5 and write Table 1 and Figure 3.

Outputs in ``--out`` (default reports/experiments): ``table1.md``, ``table1.json``,
``figure3.png``, ``claims.md`` (the claims of the ``experiments`` checks judged on this grid,
when it has every task and plan) and ``journal.jsonl`` (every finished run; the same command
resumes from it).
Bad input: one line on stderr, exit 2 (raised as ValueError, reported by ``verify.cli.main``).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ..run.journal import JournalError
from . import figure, grid, table
from .plans import PLANS
from .run import TASKS, settings

SEEDS = {"quick": 3, "default": 50}
DEFAULT_OUT = Path("reports") / "experiments"


def _names(allowed, what: str):
    def parse(text: str) -> list[str]:
        names = [n.strip() for n in text.split(",") if n.strip()]
        unknown = [n for n in names if n not in allowed]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(unknown) or '(none)'}; choose from {', '.join(allowed)}")
        return names
    return parse


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {n}")
    return n


def add_parser(sub, command) -> None:
    """Register the subcommand on ``verify``'s subparsers; ``command(sub, name, purpose,
    example)`` makes a subcommand whose help says what it is for, with an example."""
    ex = command(sub, "experiments", "rerun Section 5: six tasks x seven training plans over "
                 "seeds; writes Table 1 (Markdown, JSON) and Figure 3 (PNG)",
                 "verify experiments --profile quick")
    ex.add_argument("--tasks", type=_names(list(TASKS), "task"), default=list(TASKS),
                    help=f"comma list (default all: {','.join(TASKS)})")
    ex.add_argument("--plans", type=_names(list(PLANS), "plan"), default=list(PLANS),
                    help=f"comma list (default all: {','.join(PLANS)})")
    ex.add_argument("--seeds", type=_positive, help="number of seeds 0..N-1 (quick 3, default 50)")
    ex.add_argument("--workers", type=_positive, default=1, help="processes to spread the runs over")
    ex.add_argument("--out", default=str(DEFAULT_OUT), metavar="DIR",
                    help="output directory (default reports/experiments)")
    ex.add_argument("--profile", choices=("quick", "default"), default="default",
                    help="quick: small d and few steps (CI); default: the paper's sizes")
    ex.set_defaults(handler=handle)


def handle(args: argparse.Namespace, console) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    figure.require()
    out = Path(args.out)
    if not out.resolve().parent.is_dir():
        raise ValueError(f"--out: no such directory: {out.parent}")
    out.mkdir(exist_ok=True)
    seeds = list(range(args.seeds or SEEDS[args.profile]))
    try:
        journal = grid.open_journal(out / "journal.jsonl", args.profile)
    except JournalError as exc:
        raise ValueError(str(exc)) from None
    with Progress(TextColumn("experiments"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task_bar = bar.add_task("runs", total=None)
        records = grid.run_grid(args.tasks, args.plans, seeds, args.profile, args.workers, journal,
                                lambda done, total: bar.update(task_bar, completed=done, total=total))
    data = table.build(records, args.profile, len(seeds),
                       {t: settings(t, args.profile) for t in args.tasks})
    markdown = table.to_markdown(data)
    (out / "table1.md").write_text(markdown)
    (out / "table1.json").write_text(table.to_json(data))
    figure.draw(records, out / "figure3.png", f"Figure 3 (reproduction): median over "
                f"{len(seeds)} seeds (finite runs), profile {args.profile}")
    written = [out / "table1.md", out / "table1.json", out / "figure3.png"]
    if set(args.tasks) == set(TASKS) and set(args.plans) == set(PLANS):
        (out / "claims.md").write_text(claims_markdown(records, args.profile, len(seeds)))
        written.append(out / "claims.md")
    console.print(markdown, markup=False, highlight=False)
    console.print("wrote " + ", ".join(str(p) for p in written)
                  + ("" if len(written) == 4 else " (claims.md needs every task and plan)"))
    return 0


def claims_markdown(records, profile: str, seeds: int) -> str:
    """The claims of the registered ``experiments`` checks judged on this grid (the checks
    themselves run the quick grid), with the result's documented discrepancies named: they
    were written for the quick grid, so on another grid a failure is a plain FAIL."""
    from ..results import experiments as claims  # the CLI presents a result's verdicts

    label = f"{profile} grid, {seeds} seeds"
    statements = {check.id: check.claim for check in claims.CHECKS}
    lines = [f"# The claims of Section 5 on this grid ({label})", "",
             "The tests of `verify check experiments` (`verify/results/experiments.py`: Student-t "
             "bounds over seeds, paired differences, exact sign tests; level 5%), run on the "
             "records of this grid; evidence statistical, reconstructed claims "
             "(proofs/experiments.md).", "",
             "| check | claim | case | verdict | detail |", "|---|---|---|---|---|"]
    for check_id, task, outcome in claims.judge_grid(records, label):
        verdict = {True: "pass", False: "FAIL", None: "undecided"}[outcome.passed]
        known = claims.RESULT.discrepancies.get(check_id)
        if (profile == "quick" and known is not None and outcome.passed is not True
                and known.expected({"task": task})):
            verdict += " (documented discrepancy)"
        lines.append(f"| `{check_id}` | {statements[check_id]} | {outcome.case} | {verdict} | "
                     f"{outcome.detail} |")
    notes = [f"- `{check_id}` (expected to fail on {d.scope}): {d.reason}"
             for check_id, d in claims.RESULT.discrepancies.items()]
    heading = ("Documented discrepancies:" if profile == "quick" else
               "Documented discrepancies of the quick grid (not applied to this grid; what this "
               "grid shows is discussed in proofs/experiments.md):")
    return "\n".join(lines + ["", heading, *notes, ""])
