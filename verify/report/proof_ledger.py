"""The proof ledger as the report shows it: a run's outcomes turned into the ledger's facts,
each result's verdict composed from its proof, and the proof as an indented tree.

Only presentation: the composition is :mod:`verify.ledger`'s; the graph (every result's
``proof`` and the engine's lemmas) is handed in by the caller.
"""
from __future__ import annotations

import math
import re
from typing import Iterable, Mapping, Sequence

from ..checks import Evidence, Result
from ..ledger import CheckFacts, Level, Obligation, Piece, Region, Verdict, between, evaluate, verdict
from ..ledger.region import covers, points
from ..ledger.stated import as_stated
from ..run.runner import CheckReport

CHECKER_ACCEPTED = "accepted"  # Outcome.values["checker"] of a certificate the checker accepted


def _number(x) -> float | None:
    """A value as a float ("inf" is how the JSON report writes an infinite one)."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    return math.inf if x == "inf" else None


def region_of(values: Mapping[str, object]) -> Region | None:
    """The range a certified case covers, from its outcome's values: a box (d_lo .. v_hi; an
    end at 0 of eps, u or v is a limit, so open, as is eps = 1 and an infinite d) or one d (a
    cube at that d)."""
    ends = {k: _number(values.get(k)) for k in ("d_lo", "d_hi", "eps_lo", "eps_hi")}
    if all(v is not None for v in ends.values()):
        spans = {"d": between(ends["d_lo"], ends["d_hi"], hi_open=math.isinf(ends["d_hi"])),
                 "eps": _from_zero(ends["eps_lo"], ends["eps_hi"], hi_open=ends["eps_hi"] >= 1)}
        for axis in ("u", "v"):
            lo, hi = _number(values.get(f"{axis}_lo")), _number(values.get(f"{axis}_hi"))
            if lo is not None and hi is not None:
                spans[axis] = _from_zero(lo, hi)
        return Region.of(**spans)
    d = _number(values.get("d"))
    return Region.of(d=points(d)) if d is not None else None


def _from_zero(lo: float, hi: float, hi_open: bool = False):
    return between(lo, hi, lo_open=lo == 0, hi_open=hi_open)


def _facts(status: str, certified: bool, outcomes: Iterable[tuple[bool | None, Mapping]]) -> CheckFacts:
    boxes = []
    if certified:
        for passed, values in outcomes:
            region = region_of(values) if passed is True else None
            if region is not None:
                boxes.append((region, values.get("checker") == CHECKER_ACCEPTED))
    return CheckFacts(status, tuple(boxes))


def facts(reports: Sequence[CheckReport]) -> dict[str, CheckFacts]:
    """The ledger's facts from a run: each check's status, and each passing certified case's
    range with whether the independent checker accepted its certificate."""
    out = {}
    for rep in reports:
        values = [(o.passed, {**rep.params.get(o.case, {}), **o.values}) for o in rep.counted]
        out[rep.check.id] = _facts(rep.status, rep.check.evidence is Evidence.CERTIFIED, values)
    return out


def facts_from_json(data: Mapping) -> dict[str, CheckFacts]:
    """The same facts from a JSON report (``verify all --json``)."""
    out = {}
    for row in data.get("checks", []):
        values = [(o.get("passed"), o.get("values", {})) for o in row.get("outcomes", [])]
        out[row["check"]] = _facts(row["status"], row.get("evidence") == Evidence.CERTIFIED.value, values)
    return out


def verdicts(graph: Mapping[str, Obligation], results: Sequence[Result],
             run: Mapping[str, CheckFacts] | None,
             standing: Mapping[str, list[Piece]] | None = None) -> dict[str, Verdict]:
    """Each result's verdict composed from its proof (results without one are left out);
    ``standing``: :func:`evaluate` of ``graph`` and ``run`` where the caller has it already."""
    standing = evaluate(graph, run) if standing is None else standing
    return {r.id: verdict(graph[r.id], standing[r.id]) for r in results if r.id in graph}


def stated_verdicts(graph: Mapping[str, Obligation], results: Sequence[Result],
                    run: Mapping[str, CheckFacts] | None,
                    standing: Mapping[str, list[Piece]] | None = None) -> dict[str, Verdict]:
    """The verdict of each result that has a node for its statement as the paper words it
    (:func:`verify.ledger.stated.as_stated`: a lost constant read as existential), composed
    from that node, its ranges in words (:func:`integer_words`); ``standing`` as in
    :func:`verdicts`."""
    standing = evaluate(graph, run) if standing is None else standing
    out = {}
    for r in results:
        node = as_stated(r.id)
        if node in graph:
            found = verdict(graph[node], standing[node])
            out[r.id] = Verdict(found.category, integer_words(found.text), found.proved, found.weakest)
    return out


_RUN = re.compile(r"d ∈ ((?:\d+ ∪ )+)≥ (\d+)(?![\d.])")


def integer_words(text: str) -> str:
    """Each "d ∈ 3 ∪ 4 ∪ … ∪ 9 ∪ ≥ 10" in ``text`` whose points are the consecutive integers up
    to the interval's end (:func:`verify.ledger.stated.integers_from`) written "every integer
    d ≥ 3"; any other union is left as it is."""
    def words(match: re.Match) -> str:
        ks = [int(k) for k in match.group(1).split(" ∪ ") if k]
        if ks == list(range(ks[0], int(match.group(2)))):
            return f"every integer d ≥ {ks[0]}"
        return match.group(0)

    return _RUN.sub(words, text)


def range_words(region: Region) -> str:
    """A region in words (:func:`integer_words` of its text)."""
    return integer_words(region.text())


def headline_counts(found: Mapping[str, Verdict]) -> str:
    """"2 of 10 results proved over their whole stated range, 1 over part of it, 7 supported
    only" (and how many failed)."""
    count = {c: sum(v.category == c for v in found.values())
             for c in ("proved", "proved in part", "supported", "failed")}
    text = (f"{count['proved']} of {len(found)} results proved over their whole stated range, "
            f"{count['proved in part']} over part of it, {count['supported']} supported only")
    return text + (f", {count['failed']} with a failed link" if count["failed"] else "")


def _piece_text(piece: Piece, region: Region) -> str:
    """A piece's level, with its range where it is narrower than the node's (only the
    parameters where they differ)."""
    if piece.region.contains(region):
        return piece.level.words
    differ = [name for name, s in piece.region.axes if region.get(name) != s]
    return f"{piece.level.words} for {piece.region.text(differ)}"


def unreached(region: Region, pieces: list[Piece]) -> str:
    """The points of a node's finite set of values along one parameter (d ∈ {3, 4, 5}) that no
    piece reaches, in words ("" when every one is reached, or none)."""
    for name, s in region.axes:
        if len(s.parts) > 1 and all(p.lo == p.hi for p in s.parts):
            reached = [q.region for q in pieces]
            missing = [p.lo for p in s.parts
                       if not covers(reached, region.intersect(Region.of(**{name: points(p.lo)})))]
            if pieces and missing:
                return f"; {Region.of(**{name: points(*missing)}).text()} not reached by this run"
    return ""


def node_line(ob: Obligation, pieces: list[Piece]) -> str:
    """One node: its id, its standing (each piece with its range where narrower than the node's;
    the points of its range no piece reaches), what discharges it and its claim."""
    standing = "; ".join(_piece_text(p, ob.region) for p in pieces) or "nothing"
    standing += unreached(ob.region, pieces)
    how = ob.discharge.value + (f" by {', '.join(ob.checks)}" if ob.checks else "")
    where = f" [{ob.where}]" if ob.where else ""
    return f"{ob.id}: {standing} — {how}: {ob.claim} ({range_words(ob.region)}){where}"


def tree_lines(graph: Mapping[str, Obligation], root: str, standing: Mapping[str, list[Piece]],
               seen: set[str] | None = None) -> list[str]:
    """The proof under ``root`` as an indented tree; a node met again (here, or in ``seen``: the
    trees printed before, which this one extends) is named, not repeated."""
    lines: list[str] = []
    seen = set() if seen is None else seen

    def walk(node: str, depth: int) -> None:
        pad = "  " * depth
        if node in seen:
            lines.append(f"{pad}{node}: (above)")
            return
        seen.add(node)
        lines.append(pad + node_line(graph[node], standing[node]))
        for used in graph[node].uses:
            walk(used, depth + 1)

    walk(root, 0)
    return lines


def ledger_json(graph: Mapping[str, Obligation], results: Sequence[Result],
                run: Mapping[str, CheckFacts] | None) -> dict:
    """Every node with its standing, and every result's verdict (the ``ledger`` command's and the
    JSON report's form)."""
    standing = evaluate(graph, run)
    found = verdicts(graph, results, run, standing)
    stated = stated_verdicts(graph, results, run, standing)
    return {
        "statuses": "from a run" if run is not None else "as declared (every check assumed to pass)",
        "results": {rid: {"verdict": v.category, "text": v.text, "weakest": list(v.weakest),
                          **({"as_stated": {"verdict": stated[rid].category, "text": stated[rid].text,
                                            "weakest": list(stated[rid].weakest)}}
                             if rid in stated else {})}
                    for rid, v in found.items()},
        "nodes": {nid: {"claim": ob.claim, "region": ob.region.text(), "discharge": ob.discharge.value,
                        "checks": list(ob.checks), "uses": list(ob.uses), "where": ob.where,
                        "standing": [{"level": p.level.words, "region": p.region.text(),
                                      "weakest": list(p.weakest)} for p in standing[nid]]}
                  for nid, ob in graph.items()},
    }


def best_level(pieces: list[Piece]) -> Level:
    """The strongest level a node reaches on some part of its range (its colour in the
    blueprint)."""
    return max((p.level for p in pieces), default=Level.OPEN)



def trees(graph: Mapping[str, Obligation], results: Sequence[Result],
          reports: Sequence[CheckReport]) -> dict[str, list[str]]:
    """Each result's proof tree with the standings of this run's outcomes."""
    standing = evaluate(graph, facts(reports))
    return {r.id: tree_lines(graph, r.id, standing) for r in results if r.id in graph}
