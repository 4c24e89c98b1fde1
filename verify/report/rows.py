"""What every presentation of a run shares: one row per check (claim, range, counts, worst case,
evidence, status), the ledger of counts, the overall phrase and the exit code."""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from ..checks import Evidence, Outcome, Reach
from ..run.runner import CheckReport
from ..status import Status

RANGE_KEYS = ("d", "eps", "c", "eta1", "H", "s")
# statuses that neither fail the run nor count as passes: "in-sample only" (every counted case
# is one a measured constant was calibrated on), "configuration ok", "exhibit", "vacuous"
EXIT_MEANING = "0: every check passes; 1: a check fails, is undecided or incomplete; 2: bad input"


def margin_text(o: Outcome | None, evidence: Evidence | None = None) -> str:
    """``xR`` (the bound is R times the value), ``+D`` (it exceeds the value by D), or
    ``proved`` for a symbolic step whose margin is 0 or not a number (a proof has no slack to
    show: ``+0`` would read as "none")."""
    if evidence is Evidence.SYMBOLIC and o is not None and o.passed is True and (
            o.margin is None or o.margin == 0):
        return "proved"
    if o is None or o.margin is None:
        return "-"
    if o.margin_kind == "difference":
        return f"{o.margin:+.3g}"
    return "inf" if o.margin == float("inf") else f"x{o.margin:.3g}"


def _sorted_values(values: set) -> list:
    """Numbers (and exact rationals written as text, such as "1/2") in order, other text after."""
    def key(v):
        try:
            return (0, Fraction(str(v)), "")
        except (ValueError, ZeroDivisionError):
            return (1, Fraction(0), str(v))
    return sorted(values, key=key)


def range_values(rep: CheckReport, key: str) -> list:
    """The values ``key`` took over the check's cases, in order."""
    return _sorted_values({rep.params[o.case][key] for o in rep.outcomes
                           if o.case in rep.params and key in rep.params[o.case]})


def range_text(rep: CheckReport) -> str:
    """The range the run covered, read from its cases (so a claim never reads wider than its
    grid): "d in {3, 10}; eps in {0.001, 0.5}", or the case labels of a check without params."""
    parts = []
    for key in RANGE_KEYS:
        seen = range_values(rep, key)
        if seen:
            shown = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in seen)
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
            "held_out": len(rep.held_out),
            "in_sample": "{}/{}".format(*rep.in_sample_passed) if rep.in_sample_passed[1] else "",
            "exhibits": len(rep.exhibited),
            "vacuous": len(rep.vacuous),
            "status": rep.status,
            "missing": rep.missing,
            "worst_margin": margin_text(worst, rep.check.evidence)
            + (" (in-sample)" if worst is not None and worst.counted and not rep.proves_range
               and rep.in_sample(worst) else ""),
            "worst_case": worst.case if worst else "",
            "worst_detail": worst.detail if worst else "",
            "evidence": rep.check.evidence.value,
            "reach": rep.check.covers.value,
            "reconstructed": rep.check.reconstructed,
            "seconds": round(rep.seconds, 2),
            "cpu_seconds": None if rep.cpu_seconds is None else round(rep.cpu_seconds, 2),
        })
    return out


def worst_text(row: dict) -> str:
    """The worst case and its detail, without repeating the case's label when the detail
    already opens with it."""
    if not row["worst_case"]:
        return "-"
    case, detail = row["worst_case"], row["worst_detail"]
    while detail.startswith(case + ": "):
        detail = detail[len(case) + 2:]
    return f"{case}: {detail}" if detail else case


def status_text(row: dict) -> str:
    notes = [f"{row['missing']} not run"] if row["missing"] else []
    notes += [f"{row['vacuous']} vacuous"] if row["vacuous"] and row["status"] != "vacuous" else []
    notes += [f"{row['exhibits']} exhibit rows"] if row["exhibits"] and row["status"] != "exhibit" else []
    return f"{row['status']} ({', '.join(notes)})" if notes else row["status"]


def passed_text(row: dict) -> str:
    """Held-out passes out of held-out cases, with the in-sample passes of a calibrated
    constant beside them: ``60/60 held-out, +25/25 in-sample`` ("-" for a check that claims
    nothing: an exhibit or only vacuous cases)."""
    if Status(row["status"]).shown_only:
        return "-"
    text = f"{row['passed']}/{row['held_out']}"
    if row["in_sample"]:
        return f"{text} held-out, +{row['in_sample']} in-sample"
    return text


def evidence_label(evidence: str, reach: str) -> str:
    """``certified over a box`` and ``certified at points`` are counted apart."""
    if evidence == Evidence.CERTIFIED.value:
        return "certified over a box" if reach == Reach.RANGE.value else "certified at points"
    return evidence


def ledger(reports: Sequence[CheckReport]) -> dict:
    """The counts a referee asks for: checks by evidence kind (certified over a box and at
    points apart) and by status, and cases by how they count (held-out passes, in-sample cases
    of a measured constant, exhibits, vacuous)."""
    by_kind: dict[str, int] = {}
    by_status: dict[str, int] = {}
    for rep in reports:
        kind = evidence_label(rep.check.evidence.value, rep.check.covers.value)
        by_kind[kind] = by_kind.get(kind, 0) + 1
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
    if any(r.status is Status.FAIL for r in reports):
        return "some checks FAIL"
    if any(r.status in (Status.UNDECIDED, Status.NOT_REPRODUCED) for r in reports):
        return "some checks are undecided or contradict a documented discrepancy"
    missing = sum(r.missing for r in reports)
    if missing:
        short = sum(1 for r in reports if r.missing)
        return (f"incomplete: {missing} cases of {short} checks were not run; every case that ran "
                "passes")
    text = "every check passes (exhibits, vacuous cases and documented discrepancies aside)"
    only = sum(1 for r in reports if r.status is Status.IN_SAMPLE_ONLY)
    if only:
        text += f"; {only} check{'s' if only > 1 else ''} in-sample only (not counted)"
    return text


def exit_code(reports: Sequence[CheckReport]) -> int:
    """0 when every check passed (or fails only as a documented discrepancy inside its scope, or
    is an exhibit, vacuous, a configuration inside the hypotheses, or in-sample only), 1
    otherwise."""
    return 1 if any(r.status.bad for r in reports) else 0


CODE_MEANING = {0: "success", 1: "a check fails, is undecided or incomplete"}


def verdict_line(reports: Sequence[CheckReport]) -> str:
    """The last line a run prints: the overall phrase and what its exit code means."""
    code = exit_code(reports)
    return f"Verdict: {overall(reports)}; exit code {code} ({CODE_MEANING[code]})."
