"""What a run prints on the terminal: the per-result summary (``verify all``), every check's
table (``verify check``, ``--verbose``), the exhibits and the failures."""
from __future__ import annotations

from typing import Mapping, Sequence

from rich.markup import escape
from rich.table import Table

from ..checks import Result
from ..ledger import Obligation
from ..run.runner import CheckReport
from ..status import Status
from .cells import fit
from .exhibits import exhibits
from .rows import passed_text, rows, status_text
from .summary import summary_rows



def summary_table(reports: Sequence[CheckReport], results: Sequence[Result],
                  graph: Mapping[str, Obligation] | None = None) -> Table:
    """One row per result: statement, verdict (composed from the proof ledger ``graph``),
    strongest evidence, discrepancies."""
    table = Table(title="Theorem report: one row per result (verify all --verbose prints every check)")
    for col in ("result", "statement", "verdict", "strongest evidence (range covered)", "discrepancies"):
        table.add_column(col, overflow="fold")
    colour = {"proved": "green", "proved in part": "yellow", "supported": "cyan", "failed": "bold red",
              "checked": "green"}
    for row in summary_rows(reports, results, graph):
        table.add_row(row["result"], escape(row["statement"]),
                      f"[{colour[row['category']]}]{escape(row['verdict'])}[/]",
                      escape(row["evidence"]), escape(row["discrepancies"]))
    return table


def terminal_table(reports: Sequence[CheckReport], pending: Sequence[Result]) -> Table:
    table = Table(title="Theorem report")
    for col, just in (("check", "left"), ("claim", "left"), ("cases", "right"), ("passed", "right"),
                      ("worst margin", "right"), ("evidence", "left"), ("status", "left"),
                      ("time", "right")):
        table.add_column(col, justify=just, overflow="fold", no_wrap=col in ("check", "status"))
    for row in rows(reports):
        table.add_row(row["check"], escape(row["claim"]), str(row["cases"]), passed_text(row),
                      row["worst_margin"], row["evidence"],
                      f"[{Status(row['status']).colour}]{status_text(row)}[/]", f"{row['seconds']:.1f}s")
    for result in pending:
        table.add_row(result.id, escape(result.statement), "-", "-", "-", "-", "not checked yet", "-")
    return table


def exhibit_tables(results: Sequence[Result], reports: Sequence[CheckReport]) -> list[Table]:
    tables = []
    for exhibit, body in exhibits(results, reports):
        table = Table(title=escape(f"{exhibit.title} [{exhibit.check}]"), caption=escape(exhibit.caption))
        for _, header in exhibit.columns:
            table.add_column(header, justify="right", overflow="fold")
        for row in body:
            table.add_row(*(escape(c) for c in row))
        tables.append(table)
    return tables


def failures_text(reports: Sequence[CheckReport]) -> list[str]:
    """One line per case that failed, is undecided or contradicts its documented discrepancy."""
    lines = []
    for rep in reports:
        for o in rep.failed + rep.undecided + rep.not_reproduced:
            verdict = "FAILED" if o.passed is False else "UNDECIDED"
            if o.passed is False and rep.in_scope(o):
                verdict = "fails as documented (discrepancy)"
            if o.passed is True:
                verdict = "passes although documented to fail (discrepancy not reproduced)"
            lines.append(f"{rep.check.id} {verdict} at {o.case}: {fit(o.detail, 600)}")
    return lines
