"""Present check reports: the terminal table, REPORT.md and the JSON report."""
from __future__ import annotations

import json
from fractions import Fraction
from typing import Mapping, Sequence

from rich.markup import escape
from rich.table import Table

from ..checks import Exhibit, Outcome, Profile, Result, legend
from ..constants import Constant
from ..regression.dependencies import compact, used_by
from ..run.runner import CheckReport


def margin_text(o: Outcome | None) -> str:
    if o is None or o.margin is None:
        return "-"
    if o.margin_kind == "difference":
        return f"{o.margin:+.3g}"
    return "inf" if o.margin == float("inf") else f"x{o.margin:.3g}"


RANGE_KEYS = ("d", "eps", "c", "eta1", "H", "s")


def _sorted_values(values: set) -> list:
    """Numbers (and exact rationals written as text, such as "1/2") in order, other text after."""
    def key(v):
        try:
            return (0, Fraction(str(v)), "")
        except (ValueError, ZeroDivisionError):
            return (1, Fraction(0), str(v))
    return sorted(values, key=key)


def range_text(rep: CheckReport) -> str:
    """The range the run covered, read from its cases (so a claim never reads wider than its
    grid): "d in {3, 10}; eps in {0.001, 0.5}", or the case labels of a check without params."""
    params = [rep.params[o.case] for o in rep.outcomes if o.case in rep.params]
    parts = []
    for key in RANGE_KEYS:
        seen = {p[key] for p in params if key in p}
        if seen:
            shown = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in _sorted_values(seen))
            parts.append(f"{key} in {{{shown}}}")
    if parts:
        return "; ".join(parts)
    return "; ".join(dict.fromkeys(o.case for o in rep.outcomes))


def rows(reports: Sequence[CheckReport]) -> list[dict]:
    out = []
    for rep in reports:
        worst = rep.worst
        out.append({
            "result": rep.result.id,
            "check": rep.check.id,
            "step": rep.check.step,
            "claim": rep.check.claim,
            "range": range_text(rep),
            "cases": len(rep.outcomes),
            "passed": len(rep.passed),
            "in_sample": "{}/{}".format(*rep.in_sample_passed) if rep.in_sample_passed[1] else "",
            "exhibits": len(rep.exhibited),
            "vacuous": len(rep.vacuous),
            "status": rep.status,
            "missing": rep.missing,
            "worst_margin": margin_text(worst),
            "worst_case": worst.case if worst else "",
            "worst_detail": worst.detail if worst else "",
            "evidence": rep.check.evidence.value,
            "reconstructed": rep.check.reconstructed,
            "seconds": round(rep.seconds, 2),
            "cpu_seconds": None if rep.cpu_seconds is None else round(rep.cpu_seconds, 2),
        })
    return out


def worst_text(row: dict) -> str:
    return f"{row['worst_case']}: {row['worst_detail']}" if row["worst_case"] else "-"


def status_text(row: dict) -> str:
    notes = [f"{row['missing']} not run"] if row["missing"] else []
    notes += [f"{row['vacuous']} vacuous"] if row["vacuous"] and row["status"] != "vacuous" else []
    notes += [f"{row['exhibits']} exhibit rows"] if row["exhibits"] and row["status"] != "exhibit" else []
    return f"{row['status']} ({', '.join(notes)})" if notes else row["status"]


def passed_text(row: dict) -> str:
    """Held-out passes, with the in-sample passes of a calibrated constant beside them ("-" for
    a check that claims nothing: an exhibit or only vacuous cases)."""
    if row["status"] in ("exhibit", "vacuous", "configuration ok"):
        return "-"
    return f"{row['passed']} (in-sample {row['in_sample']})" if row["in_sample"] else str(row["passed"])


BAD = ("FAIL", "undecided", "incomplete", "discrepancy not reproduced")
# statuses that neither fail the run nor count as passes: "in-sample only" (every counted case
# is one a measured constant was calibrated on), "configuration ok", "exhibit", "vacuous"


def ledger(reports: Sequence[CheckReport]) -> dict:
    """The counts a referee asks for: checks by evidence kind and by status, and cases by how
    they count (held-out passes, in-sample cases of a measured constant, exhibits, vacuous)."""
    by_kind: dict[str, int] = {}
    by_status: dict[str, int] = {}
    for rep in reports:
        by_kind[rep.check.evidence.value] = by_kind.get(rep.check.evidence.value, 0) + 1
        by_status[rep.status] = by_status.get(rep.status, 0) + 1
    counted = [(rep, o) for rep in reports for o in rep.counted]
    held = [(rep, o) for rep, o in counted if not rep.in_sample(o)]
    return {
        "checks_by_evidence": by_kind,
        "checks_by_status": by_status,
        "cases": sum(len(rep.outcomes) for rep in reports),
        "held_out_cases": len(held),
        "held_out_passed": sum(o.passed is True for _, o in held),
        "in_sample_cases": len(counted) - len(held),
        "exhibit_rows": sum(len(rep.exhibited) for rep in reports),
        "vacuous_cases": sum(len(rep.vacuous) for rep in reports),
    }


def ledger_text(reports: Sequence[CheckReport]) -> str:
    led = ledger(reports)
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(led["checks_by_evidence"].items()))
    return (f"Checks by evidence: {kinds}. Cases: {led['held_out_passed']} of "
            f"{led['held_out_cases']} held-out cases pass; {led['in_sample_cases']} in-sample "
            f"cases of measured constants, {led['exhibit_rows']} exhibit rows and "
            f"{led['vacuous_cases']} vacuous cases are shown apart, never counted.")


def overall(reports: Sequence[CheckReport]) -> str:
    """One phrase for the whole run."""
    if any(r.status == "FAIL" for r in reports):
        return "some checks FAIL"
    if any(r.status in ("undecided", "discrepancy not reproduced") for r in reports):
        return "some checks are undecided or contradict a documented discrepancy"
    missing = sum(r.missing for r in reports)
    if missing:
        short = sum(1 for r in reports if r.missing)
        return (f"incomplete: {missing} cases of {short} checks were not run; every case that ran "
                "passes")
    text = "every check passes (exhibits, vacuous cases and documented discrepancies aside)"
    only = sum(1 for r in reports if r.status == "in-sample only")
    if only:
        text += (f"; {only} check{'s' if only > 1 else ''} in-sample only (no held-out case: "
                 "not counted as passes)")
    return text


def exit_code(reports: Sequence[CheckReport]) -> int:
    """0 when every check passed (or fails only as a documented discrepancy inside its scope, or
    is an exhibit, vacuous, a configuration inside the hypotheses, or in-sample only), 1
    otherwise."""
    return 1 if any(r.status in BAD for r in reports) else 0


def terminal_table(reports: Sequence[CheckReport], pending: Sequence[Result]) -> Table:
    table = Table(title="Theorem report")
    for col, just in (("check", "left"), ("claim", "left"), ("cases", "right"), ("passed", "right"),
                      ("worst margin", "right"), ("evidence", "left"), ("status", "left"),
                      ("time", "right")):
        table.add_column(col, justify=just, overflow="fold", no_wrap=col in ("check", "status"))
    colour = {"pass": "green", "FAIL": "bold red", "discrepancy": "yellow", "undecided": "magenta",
              "incomplete": "cyan", "discrepancy not reproduced": "bold magenta", "exhibit": "blue",
              "vacuous": "blue", "in-sample only": "yellow", "configuration ok": "blue"}
    for row in rows(reports):
        table.add_row(row["check"], row["claim"], str(row["cases"]), passed_text(row),
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
        for o in rep.failed + rep.undecided + rep.not_reproduced:
            verdict = "FAILED" if o.passed is False else "UNDECIDED"
            if o.passed is False and rep.in_scope(o):
                verdict = "fails as documented (discrepancy)"
            if o.passed is True:
                verdict = "passes although documented to fail (discrepancy not reproduced)"
            lines.append(f"{rep.check.id} {verdict} at {o.case}: {o.detail}")
    return lines


def provenance_markdown(provenance: Mapping[str, str]) -> list[str]:
    """The report's last section: what produced it, one item per line."""
    return ["## Provenance", "",
            "What produced this report: the code, the constants, the settings and the machine "
            "(`verify --version` prints the same items).", "",
            *(f"- {name}: `{value}`" for name, value in provenance.items()), ""]


def markdown(reports: Sequence[CheckReport], results: Sequence[Result],
             constants: Mapping[str, Constant], profile: Profile, command: str = "verify all",
             see_also: Sequence[str] = (), provenance: Mapping[str, str] | None = None) -> str:
    """The markdown report; ``see_also`` lines (links to companion reports) follow the header,
    the ``provenance`` record (:mod:`verify.provenance`) closes it."""
    by_result: dict[str, list[dict]] = {}
    for row in rows(reports):
        by_result.setdefault(row["result"], []).append(row)
    lines = [
        "# Theorem report",
        "",
        f"Generated by `{command}` (profile `{profile.value}`). Overall: "
        f"**{overall(reports)}**. {ledger_text(reports)}",
        "",
        f"Evidence: {legend()} "
        "Vacuous cases (a target <= 0: nothing tested) are shown, never counted as passes. "
        "*passed* counts held-out cases only: where a constant was measured on some cases, those "
        "in-sample cases are shown apart. Margin: `xR` means the bound is R times the value; "
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
            checked = f" (checked on {row['range']})" if row["range"] else ""
            lines.append(f"| `{row['check']}`{mark} | {row['step']} | {row['claim']}{checked} | {row['cases']} | "
                         f"{passed_text(row)} | {row['worst_margin']} | {worst_text(row)} | "
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
    discrepancies = [rep for rep in reports if rep.discrepancy]
    lines.append("## Discrepancies")
    lines.append("")
    if not discrepancies:
        lines.append("None documented.")
    for rep in discrepancies:
        d = rep.discrepancy
        expected = [o for o in rep.failed if rep.in_scope(o)]
        scoped = [o for o in rep.counted if rep.in_scope(o)]
        text = (f"- `{rep.check.id}` (expected to fail where {d.scope}): {d.reason} "
                f"Failing as documented: {len(expected)} of the {len(scoped)} cases in scope")
        if expected:
            first = min(expected, key=lambda o: o.case)
            text += f"; e.g. {first.case}: {first.detail}"
        if rep.not_reproduced:
            text += f". NOT REPRODUCED at {', '.join(o.case for o in rep.not_reproduced)}"
        if rep.unexpected:
            text += f". FAILS OUTSIDE ITS SCOPE at {', '.join(o.case for o in rep.unexpected)}"
        lines.append(text + ".")
    lines.append("")
    calibrated = [(rep, cal) for rep in reports for cal in rep.result.calibrations_for(rep.check.id)]
    if calibrated:
        lines.append("## Measured constants: in-sample and held-out cases")
        lines.append("")
        lines.append("| check | constant | calibrated on | in-sample passed | held-out passed |")
        lines.append("|---|---|---|---|---|")
        for rep, cal in calibrated:
            held = [o for o in rep.counted if not rep.in_sample(o)]
            inside, total = rep.calibration_passed(cal)
            lines.append(f"| `{rep.check.id}` | `{cal.constant}` | {cal.scope} | {inside}/{total} | "
                         f"{len(rep.passed)}/{len(held)} |")
        lines.append("")
    lines.append("## Constants")
    lines.append("")
    lines.append("| key | value | meaning | source | used by (checks that read it in this run) |")
    lines.append("|---|---|---|---|---|")
    readers = used_by(reports)
    for key, c in sorted(constants.items()):
        lines.append(f"| `{key}` | {c.text} | {c.meaning} | {c.source} | {compact(readers.get(key, [])) or '-'} |")
    lines.append("")
    if provenance:
        lines.extend(provenance_markdown(provenance))
    return "\n".join(lines)


def _json_number(x: float | None) -> float | str | None:
    """JSON has no infinity: an infinite margin (a zero value under a bound) is written "inf"."""
    return "inf" if x == float("inf") else x


def json_report(reports: Sequence[CheckReport], results: Sequence[Result],
                constants: Mapping[str, Constant], profile: Profile,
                provenance: Mapping[str, str] | None = None) -> str:
    """The machine-readable report.  Run times are kept apart under ``timings`` (seconds per
    check; they change from run to run), so that everything else reproduces byte for byte."""
    checks = rows(reports)
    timings = {row["check"]: row.pop("seconds") for row in checks}
    cpu = {row["check"]: row.pop("cpu_seconds") for row in checks}
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
        "ledger": ledger(reports),
        "checks": checks,
        "failures": failures_text(reports),
        "exhibits": [{"check": ex.check, "title": ex.title, "caption": ex.caption,
                      "columns": [header for _, header in ex.columns], "rows": body}
                     for ex, body in exhibits(results, reports)],
        "not_checked_yet": [r.id for r in pending],
        "constants": {k: c.text for k, c in constants.items()},
        "provenance": dict(provenance or {}),
        "timings": {"note": "seconds per check (wall clock) and cpu_seconds (the judging "
                            "processes' CPU time; null when a case was journaled without it); "
                            "not reproducible, left out of comparisons",
                    "seconds": timings, "cpu_seconds": cpu},
    }, indent=2)
