"""The machine-readable report (``--json``): every check, case, value and constant, whole."""
from __future__ import annotations

import json
from typing import Mapping, Sequence

from ..checks import Profile, Result
from ..constants import Constant
from ..ledger import Obligation
from ..run.runner import CheckReport
from . import proof_ledger
from .exhibits import exhibits
from .rows import exit_code, ledger, overall, rows
from .summary import summary_rows
from .terminal import failures_text

FORMAT = "verify-report/2"


def _json_number(x: float | None) -> float | str | None:
    """JSON has no infinity: an infinite margin (a zero value under a bound) is written "inf"."""
    return "inf" if x == float("inf") else x


def json_report(reports: Sequence[CheckReport], results: Sequence[Result],
                constants: Mapping[str, Constant], profile: Profile,
                provenance: Mapping[str, str] | None = None,
                graph: Mapping[str, Obligation] | None = None) -> str:
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
        "format": FORMAT,
        "command": "all",
        "profile": profile.value,
        "exit_code": exit_code(reports),
        "overall": overall(reports),
        "summary": summary_rows(reports, results, graph),
        "proof_ledger": (proof_ledger.ledger_json(graph, results, proof_ledger.facts(reports))
                         if graph is not None else None),
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
