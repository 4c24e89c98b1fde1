"""Present check reports: the terminal table, REPORT.md and the JSON report."""
from __future__ import annotations

import json
from typing import Mapping, Sequence

from rich.markup import escape
from rich.table import Table

from .checks import Exhibit, Outcome, Profile, Result
from .constants import Constant
from .dependencies import compact, used_by
from .runner import CheckReport


def margin_text(o: Outcome | None) -> str:
    if o is None or o.margin is None:
        return "-"
    if o.margin_kind == "difference":
        return f"{o.margin:+.3g}"
    return "inf" if o.margin == float("inf") else f"x{o.margin:.3g}"


def rows(reports: Sequence[CheckReport]) -> list[dict]:
    out = []
    for rep in reports:
        worst = rep.worst
        out.append({
            "result": rep.result.id,
            "check": rep.check.id,
            "step": rep.check.step,
            "claim": rep.check.claim,
            "cases": len(rep.outcomes),
            "passed": sum(o.passed is True for o in rep.outcomes),
            "status": rep.status,
            "missing": rep.missing,
            "worst_margin": margin_text(worst),
            "worst_case": worst.case if worst else "",
            "worst_detail": worst.detail if worst else "",
            "evidence": rep.check.evidence.value,
            "reconstructed": rep.check.reconstructed,
            "seconds": round(rep.seconds, 2),
        })
    return out


def worst_text(row: dict) -> str:
    return f"{row['worst_case']}: {row['worst_detail']}" if row["worst_case"] else "-"


def status_text(row: dict) -> str:
    return f"{row['status']} ({row['missing']} not run)" if row["missing"] else row["status"]


def overall(reports: Sequence[CheckReport]) -> str:
    """One phrase for the whole run."""
    if any(r.status in ("FAIL", "undecided") for r in reports):
        return "some checks FAIL"
    missing = sum(r.missing for r in reports)
    if missing:
        short = sum(1 for r in reports if r.missing)
        return (f"incomplete: {missing} cases of {short} checks were not run; every case that ran "
                "passes")
    return "all checks pass"


def exit_code(reports: Sequence[CheckReport]) -> int:
    """0 when every check passed (or fails only as a documented discrepancy), 1 otherwise."""
    return 1 if any(r.status in ("FAIL", "undecided", "incomplete") for r in reports) else 0


def terminal_table(reports: Sequence[CheckReport], pending: Sequence[Result]) -> Table:
    table = Table(title="Theorem report")
    for col, just in (("check", "left"), ("claim", "left"), ("cases", "right"), ("passed", "right"),
                      ("worst margin", "right"), ("evidence", "left"), ("status", "left"),
                      ("time", "right")):
        table.add_column(col, justify=just, overflow="fold", no_wrap=col in ("check", "status"))
    colour = {"pass": "green", "FAIL": "bold red", "discrepancy": "yellow", "undecided": "magenta",
              "incomplete": "cyan"}
    for row in rows(reports):
        table.add_row(row["check"], row["claim"], str(row["cases"]), str(row["passed"]),
                      row["worst_margin"], row["evidence"],
                      f"[{colour[row['status']]}]{status_text(row)}[/]", f"{row['seconds']:.1f}s")
    for result in pending:
        table.add_row(result.id, result.statement, "-", "-", "-", "-", "not checked yet", "-")
    return table


def cell(value: object) -> str:
    """One entry of an exhibit: 4 significant digits for a float, text as it is."""
    if isinstance(value, float):
        return f"{value:.4g}"
    return "-" if value is None else str(value)


def exhibit_rows(exhibit: Exhibit, reports: Sequence[CheckReport]) -> list[list[str]]:
    """The exhibit's table body: one row per outcome of its check (empty if it did not run)."""
    rep = next((r for r in reports if r.check.id == exhibit.check), None)
    if rep is None:
        return []
    return [[cell(o.values.get(key)) for key, _ in exhibit.columns] for o in rep.outcomes]


def exhibits(results: Sequence[Result], reports: Sequence[CheckReport]) -> list[tuple[Exhibit, list[list[str]]]]:
    """Every exhibit whose check ran, with its rows."""
    out = []
    for result in results:
        for exhibit in result.exhibits:
            body = exhibit_rows(exhibit, reports)
            if body:
                out.append((exhibit, body))
    return out


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
    lines = []
    for rep in reports:
        for o in rep.failed + rep.undecided:
            verdict = "FAILED" if o.passed is False else "UNDECIDED"
            if o.passed is False and rep.discrepancy:
                verdict = "fails as documented (discrepancy)"
            lines.append(f"{rep.check.id} {verdict} at {o.case}: {o.detail}")
    return lines


def markdown(reports: Sequence[CheckReport], results: Sequence[Result],
             constants: Mapping[str, Constant], profile: Profile, command: str = "verify all",
             see_also: Sequence[str] = ()) -> str:
    """The markdown report; ``see_also`` lines (links to companion reports) follow the header."""
    by_result: dict[str, list[dict]] = {}
    for row in rows(reports):
        by_result.setdefault(row["result"], []).append(row)
    lines = [
        "# Theorem report",
        "",
        f"Generated by `{command}` (profile `{profile.value}`). Overall: "
        f"**{overall(reports)}**. "
        "Evidence: *symbolic* = proved by SymPy for the whole range; *numeric* = high-precision "
        "value with an error bound at each case; *search* = no counterexample found; "
        "*certified* = interval enclosure. Margin: `xR` means the bound is R times the value; "
        "`+D` means the bound exceeds the value by D. Checks marked † test a reconstructed "
        "statement or constant (see the linked document).",
        "",
        *(line for text in see_also for line in (text, "")),
    ]
    for result in results:
        lines.append(f"## {result.name} (`{result.id}`)")
        lines.append("")
        lines.append(f"Statement: {result.statement}. Hypotheses: {result.hypotheses}. "
                     f"Document: [{result.document}]({result.document}).")
        lines.append("")
        if result.id not in by_result:
            lines.append("**Not checked yet.**")
            lines.append("")
            continue
        lines.append("| check | step | claim | cases | passed | worst margin | worst case | evidence | status |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for row in by_result[result.id]:
            mark = " †" if row["reconstructed"] else ""
            lines.append(f"| `{row['check']}`{mark} | {row['step']} | {row['claim']} | {row['cases']} | "
                         f"{row['passed']} | {row['worst_margin']} | {worst_text(row)} | "
                         f"{row['evidence']} | {status_text(row)} |")
        lines.append("")
        for exhibit, body in exhibits([result], reports):
            lines.append(f"### {exhibit.title} (`{exhibit.check}`)")
            lines.append("")
            lines.append(exhibit.caption)
            lines.append("")
            lines.append("| " + " | ".join(header for _, header in exhibit.columns) + " |")
            lines.append("|" + "---|" * len(exhibit.columns))
            lines.extend("| " + " | ".join(row) + " |" for row in body)
            lines.append("")
    discrepancies = [(rep, text) for rep in reports if (text := rep.discrepancy) and rep.failed]
    lines.append("## Discrepancies")
    lines.append("")
    if not discrepancies:
        lines.append("None found.")
    for rep, text in discrepancies:
        first = min(rep.failed, key=lambda o: (o.case))
        lines.append(f"- `{rep.check.id}`: {text} Failing cases: {len(rep.failed)} of {len(rep.outcomes)}; "
                     f"e.g. {first.case}: {first.detail}.")
    lines.append("")
    lines.append("## Constants")
    lines.append("")
    lines.append("| key | value | meaning | source | used by (checks that read it in this run) |")
    lines.append("|---|---|---|---|---|")
    readers = used_by(reports)
    for key, c in sorted(constants.items()):
        lines.append(f"| `{key}` | {c.text} | {c.meaning} | {c.source} | {compact(readers.get(key, [])) or '-'} |")
    lines.append("")
    return "\n".join(lines)


def _json_number(x: float | None) -> float | str | None:
    """JSON has no infinity: an infinite margin (a zero value under a bound) is written "inf"."""
    return "inf" if x == float("inf") else x


def json_report(reports: Sequence[CheckReport], results: Sequence[Result],
                constants: Mapping[str, Constant], profile: Profile) -> str:
    checks = rows(reports)
    for row, rep in zip(checks, reports):
        row["outcomes"] = [{"case": o.case, "passed": o.passed, "margin": _json_number(o.margin),
                            "margin_kind": o.margin_kind, "evidence": o.evidence.value,
                            "detail": o.detail,
                            "values": {k: _json_number(v) for k, v in o.values.items()}}
                           for o in rep.outcomes]
        row["reads"] = sorted(rep.reads)  # the constants the check read (see verify explain)
    pending = [r for r in results if not r.checked]
    return json.dumps({
        "profile": profile.value,
        "exit_code": exit_code(reports),
        "overall": overall(reports),
        "checks": checks,
        "failures": failures_text(reports),
        "exhibits": [{"check": ex.check, "title": ex.title, "caption": ex.caption,
                      "columns": [header for _, header in ex.columns], "rows": body}
                     for ex, body in exhibits(results, reports)],
        "not_checked_yet": [r.id for r in pending],
        "constants": {k: c.text for k, c in constants.items()},
    }, indent=2)
