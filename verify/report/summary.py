"""The report's first table: one row per result of the paper — its statement in a dozen words,
its verdict, the strongest evidence with the range it covers, its discrepancies in a phrase each
— and the Section 5 line.  Everything is read from the run's outcomes (and, for Section 5, from
the claims file `verify experiments` records); nothing here is typed in per result.

The verdict is composed from the result's proof (:mod:`verify.ledger`): proved over its stated
range, over part of it (named), or supported only, with the weakest link named — unless a check
fails, is undecided or incomplete, which the verdict says first.  The evidence column names the
strongest checks of the statement: a check speaks for the result's *statement* unless its step
is a proof step (``A.…``), a tightness exhibit or a configuration check; its ``scope`` says
which part of the statement it covers ("at alpha = 0").  Evidence is ranked: proved or certified
over the whole range, then certified at points, numeric, statistical, searched.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Mapping, Sequence

from ..checks import Evidence, Reach, Result
from ..ledger import Obligation, Verdict, evaluate
from ..ledger.stated import as_stated
from ..run.runner import CheckReport
from ..status import BAD, Status
from . import proof_ledger
from .rows import margin_text, range_values

CLAIMS_FILE = Path("reports") / "experiments" / "claims.json"  # written by `verify experiments`
_RANK = {(Evidence.SYMBOLIC, Reach.RANGE): 0, (Evidence.CERTIFIED, Reach.RANGE): 0,
         (Evidence.CERTIFIED, Reach.POINTS): 1, (Evidence.SYMBOLIC, Reach.POINTS): 1,
         (Evidence.NUMERIC, Reach.POINTS): 2, (Evidence.STATISTICAL, Reach.POINTS): 3,
         (Evidence.SEARCH, Reach.POINTS): 4}
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def pretty(x: float) -> str:
    """A number as a reader writes it: 3, 0.99, 10⁻⁶, 10⁹, 2.5·10⁵."""
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        return f"{x:g}"
    exponent = math.floor(math.log10(abs(x)))
    mantissa = x / 10 ** exponent
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if abs(mantissa - 1) < 1e-9 else f"{mantissa:.3g}·{power}"


def _span(values: list) -> str:
    nums = [v for v in values if isinstance(v, (int, float))]
    if not nums:
        return ", ".join(map(str, values))
    if len(nums) <= 3:
        return ", ".join(pretty(v) for v in nums)
    return f"{pretty(min(nums))}…{pretty(max(nums))}"


def points_text(rep: CheckReport) -> str:
    """Where a check's cases sit: "d = 3…50 (9 cases)", "(d, eps) at 120 points, d = 2…10⁶"."""
    n = len(rep.counted)
    ds, es, hs = range_values(rep, "d"), range_values(rep, "eps"), range_values(rep, "H")
    where = []
    if ds:
        where.append(f"d = {_span(ds)}")
    if hs:
        where.append(f"H = {_span(hs)}")
    if es:
        where.append(f"ε = {_span(es)}")
    cases = f"{n} case{'s' * (n != 1)}"
    return f"{', '.join(where)}; {cases}" if where else cases


def _interval(lo: float, hi: float) -> str:
    """[lo, hi], or (0, hi] when the box reaches a limit at 0 (eps -> 0)."""
    return f"({pretty(lo)}, {pretty(hi)}]" if lo == 0 else f"[{pretty(lo)}, {pretty(hi)}]"


def _joined(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Intervals that touch or overlap, merged (a box and its eps-tail make one range)."""
    out: list[tuple[float, float]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _box_text(rep: CheckReport, outcomes: list) -> str:
    """The range the certified boxes of ``outcomes`` (cases of one check) cover, from the
    outcomes' values (``range`` as words, or the box's ends d_lo..v_hi) or the cases' params."""
    for o in outcomes:
        if isinstance(o.values.get("range"), str):
            return o.values["range"]
    boxes = [{**rep.params.get(o.case, {}), **o.values} for o in outcomes]
    if boxes and all({"d_lo", "d_hi", "eps_lo", "eps_hi"} <= set(b) for b in boxes):
        if len({(b["d_lo"], b["d_hi"]) for b in boxes}) > 1 and len({(b["eps_lo"], b["eps_hi"]) for b in boxes}) > 1:
            return "; ".join(_box_words([b]) for b in boxes)  # a union over both axes: box by box
        return _box_words(boxes)
    labels = [o.case for o in outcomes]
    if labels and all(label.startswith("d=") and label[2:].isdigit() for label in labels):
        return "d = " + ", ".join(label[2:] for label in labels)
    return "; ".join(labels)


def _certified_text(rep: CheckReport) -> str:
    """A certified range in words, the boxes only the engine judged named apart ("engine
    only"), and a note for the boxes that hold a measured constant's calibration cases (a proof
    there as everywhere else, but not a held-out test of the constant)."""
    checked = [o for o in rep.counted if o.values.get("checker") == proof_ledger.CHECKER_ACCEPTED]
    engine = [o for o in rep.counted if o not in checked]
    parts = [_box_text(rep, checked)] if checked else []
    if engine:
        parts.append(f"{_box_text(rep, engine)} (certified, engine only)")
    return "; ".join(parts) + _calibration_note(rep)


def _calibration_note(rep: CheckReport) -> str:
    """For a proof over a range: which of its ranges hold a measured constant's calibration
    cases (a proof there as everywhere, not a held-out test of the constant), with the smallest
    margin among them."""
    inside = [o for o in rep.counted if rep.in_sample(o)]
    if not inside:
        return ""
    keys = ", ".join(c.constant for c in rep.result.calibrations_for(rep.check.id))
    which = ("its range holds" if len(inside) == len(rep.counted)
             else f"{len(inside)} of its {len(rep.counted)} ranges hold")
    scored = [o for o in inside if o.margin is not None]
    low = (f", smallest margin there {margin_text(min(scored, key=lambda o: o.margin))}"
           if scored else "")
    return f" ({which} {keys}'s calibration cases{low})"


def _box_words(boxes: list[dict]) -> str:
    """Boxes that differ along one axis at most, as one range in words."""
    ds = _joined([(b["d_lo"], b["d_hi"]) for b in boxes])
    es = _joined([(b["eps_lo"], b["eps_hi"]) for b in boxes])
    text = (f"every real d ∈ {' ∪ '.join(_interval(*x) for x in ds)}, "
            f"ε ∈ {' ∪ '.join(_interval(*x) for x in es)}")
    if all({"u_lo", "u_hi", "v_lo", "v_hi"} <= set(b) for b in boxes):
        u_hi = min(b["u_hi"] for b in boxes)
        if all(b["u_lo"] == 0 and b["v_lo"] == 0 and b["v_hi"] == 1 for b in boxes):
            eta1 = "√d" if u_hi == 1 else f"{pretty(u_hi)}√d"
            text += f", every η₁ ∈ (0, {eta1}] and η₂ ≥ its minimum"
        else:
            text += (f", η₁/√d ∈ [{pretty(max(b['u_lo'] for b in boxes))}, {pretty(u_hi)}], "
                     f"η₂,min/η₂ ∈ [{pretty(max(b['v_lo'] for b in boxes))}, "
                     f"{pretty(min(b['v_hi'] for b in boxes))}]")
    return text


def _in_sample_note(rep: CheckReport) -> str:
    """For a check whose every case is a calibration case of a measured constant: which."""
    if rep.status is not Status.IN_SAMPLE_ONLY:
        return ""
    keys = ", ".join(c.constant for c in rep.result.calibrations_for(rep.check.id))
    return f" (in-sample: its range holds {keys}'s calibration cases)"


def evidence_phrase(rep: CheckReport) -> str:
    """What one check shows, with its range in words (and, for an in-sample check, whose
    calibration cases its range holds)."""
    return _phrase(rep) + _in_sample_note(rep)


def _phrase(rep: CheckReport) -> str:
    scope = f" {rep.check.scope}" if rep.check.scope else ""
    kind, reach = rep.check.evidence, rep.check.covers
    if kind is Evidence.SYMBOLIC and reach is Reach.RANGE:
        label = "; ".join(dict.fromkeys(o.case for o in rep.counted))
        return f"proved{scope} for {label}" + _calibration_note(rep)
    if kind is Evidence.CERTIFIED and reach is Reach.RANGE:
        return f"certified{scope} for {_certified_text(rep)}"
    verb = {Evidence.CERTIFIED: "certified", Evidence.NUMERIC: "numeric",
            Evidence.STATISTICAL: "statistical", Evidence.SEARCH: "searched",
            Evidence.SYMBOLIC: "proved"}[kind]
    if kind is Evidence.CERTIFIED:
        return f"the value{scope} at the point{'s' * (len(rep.counted) != 1)} a search found certified ({points_text(rep)})"
    return f"{verb}{scope} at {points_text(rep)}"


def is_statement(rep: CheckReport) -> bool:
    """Whether a check tests the result's statement (not a proof step, a tightness exhibit or a
    configuration check)."""
    step = rep.check.step
    return (not step.startswith("A.") and "tightness" not in step and "hypotheses" not in step
            and rep.check.evidence not in (Evidence.EXHIBIT, Evidence.CONFIGURATION))


def _rank(rep: CheckReport) -> int:
    return _RANK.get((rep.check.evidence, rep.check.covers), 5)


def strongest(reps: Sequence[CheckReport], keep: int = 3) -> str:
    """The strongest evidence for the statement (passing checks only), at most ``keep`` kinds
    (how the proof's steps stand is the verdict's: the proof ledger)."""
    held = sorted((r for r in reps if is_statement(r) and r.status.discharges),
                  key=_rank)
    phrases, kinds = [], set()
    for rep in held:
        kind = (rep.check.evidence, rep.check.covers, rep.check.scope)
        if kind in kinds:
            continue
        kinds.add(kind)
        phrases.append(evidence_phrase(rep))
        if len(phrases) == keep:
            break
    return "; ".join(phrases) or "-"


STATED_WORDS = "As the paper states it, a lost constant existential"
STATED_WORDS_ALL = "Read as the paper states them, their lost constants existential and smaller"


def verdict(reps: Sequence[CheckReport], composed: Verdict | None = None) -> str:
    """A result's verdict: a failing, undecided or incomplete check first; else the proof
    ledger's composed verdict (``composed``), or "holds" from the checks' statuses where the
    run did not judge every check of the result; documented discrepancies last."""
    statuses = [r.status for r in reps]
    for bad in BAD:
        if bad in statuses:
            n = statuses.count(bad)
            return f"{bad} ({n} check{'s' * (n != 1)})"
    if not any(s.discharges for s in statuses):
        return "exhibit only"
    n = statuses.count(Status.DISCREPANCY)
    documented = f" (with {n} documented discrepanc{'ies' if n != 1 else 'y'})" if n else ""
    if composed is None:
        return "holds as checked" + documented
    return composed.text + documented


def _composed(reports: Sequence[CheckReport], results: Sequence[Result],
              graph: Mapping[str, Obligation] | None) -> tuple[dict[str, Verdict], dict[str, Verdict]]:
    """The ledger's verdicts of each result whose every check ran here (none without a graph):
    of its configured statement, and of its statement as the paper words it (for the results
    that have one), from one composition of the run's facts."""
    if graph is None:
        return {}, {}
    ran = {r.check.id for r in reports}
    whole = [r for r in results if r.id in graph and all(c.id in ran for c in r.checks)]
    run = proof_ledger.facts(reports)
    standing = evaluate(graph, run)
    return (proof_ledger.verdicts(graph, whole, run, standing),
            proof_ledger.stated_verdicts(graph, whole, run, standing))


def discrepancy_text(reps: Sequence[CheckReport]) -> str:
    parts = [f"`{r.check.id}` fails where {r.discrepancy.scope}" for r in reps if r.discrepancy]
    return "; ".join(parts) or "-"


def summary_rows(reports: Sequence[CheckReport], results: Sequence[Result],
                 graph: Mapping[str, Obligation] | None = None) -> list[dict]:
    """One row per result that ran, in the paper's order; with the proof ledger's ``graph`` the
    verdict is composed from the result's proof (``category``: proved, proved in part,
    supported, failed; "checked" where the ledger did not judge it)."""
    composed, readings = _composed(reports, results, graph)
    out = []
    for result in results:
        reps = [r for r in reports if r.result.id == result.id]
        if not reps:
            continue
        found = composed.get(result.id)
        text = verdict(reps, found)
        category = ("failed" if text.split(" ")[0] in BAD or text.startswith("discrepancy not")
                    else found.category if found else "checked")
        stated = readings.get(result.id)
        row = {"result": result.id, "name": result.name, "statement": result.short or result.statement,
               "verdict": text, "category": category, "evidence": strongest(reps),
               "discrepancies": discrepancy_text(reps)}
        if stated is not None and category != "failed":
            reading = graph[as_stated(result.id)].claim
            row["verdict"] = f"{text}. {STATED_WORDS} ({reading}): {stated.text}"
            row["as_stated"] = {"category": stated.category, "text": stated.text, "reading": reading}
        out.append(row)
    return out


def recorded_claims(folder: Path) -> dict | None:
    """The Section 5 claims as `verify experiments` last judged them on its grid
    (reports/experiments/claims.json beside the report), or None."""
    path = folder / CLAIMS_FILE
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("claims"), dict) else None


def section5_line(reports: Sequence[CheckReport], recorded: Mapping | None) -> str:
    """The experiments' own line: this run's verdicts when it ran them, else the recorded grid."""
    reps = [r for r in reports if r.result.id == "experiments"]
    if reps:
        held = sum(r.status is Status.PASS for r in reps)
        return (f"Section 5 (experiments, this run): {held} of {len(reps)} claims hold "
                f"({', '.join(f'`{r.check.id}` {r.status}' for r in reps)}).")
    if not recorded:
        return "Section 5 (experiments): not run here (`verify experiments` runs the grid)."
    claims = recorded["claims"]
    held = sum(c.get("verdict") == "pass" for c in claims.values())
    shown = ", ".join(f"`{cid}` {c.get('verdict')}" for cid, c in claims.items())
    return (f"Section 5 (experiments, recorded by `verify experiments` on the {recorded.get('grid', 'grid')}): "
            f"{held} of {len(claims)} claims hold ({shown}); see [claims.md]"
            f"({(CLAIMS_FILE.parent / 'claims.md').as_posix()}).")


def headline(reports: Sequence[CheckReport], results: Sequence[Result], recorded: Mapping | None,
             graph: Mapping[str, Obligation] | None = None) -> str:
    """How many results are proved over their stated range, over part of it, or supported only
    (or fail); the same counts with the statements as the paper words them, where some result
    has one; then the Section 5 line."""
    rows = summary_rows(reports, results, graph)
    text = "Results: " + _counts(rows, "category")
    bad = [f"{r['name']} {r['verdict']}" for r in rows if r["category"] == "failed"]
    text += f"; {'; '.join(bad)}." if bad else "."
    named = [r["name"] for r in rows if "as_stated" in r]
    if named:
        text += (f" {STATED_WORDS_ALL} ({', '.join(named)}; each row names the smaller constants): "
                 + _counts([{**r, "stated": r.get("as_stated", {}).get("category", r["category"])}
                            for r in rows], "stated") + ".")
    return text + " " + section5_line(reports, recorded)


def _counts(rows: Sequence[Mapping], key: str) -> str:
    count = {c: sum(r[key] == c for r in rows)
             for c in ("proved", "proved in part", "supported", "failed", "checked")}
    parts = [f"{count['proved']} of {len(rows)} proved over their whole stated range",
             f"{count['proved in part']} over part of it", f"{count['supported']} supported only"]
    if count["checked"]:
        parts.append(f"{count['checked']} checked without the proof ledger")
    if count["failed"]:
        parts.append(f"{count['failed']} failed")
    return ", ".join(parts)
