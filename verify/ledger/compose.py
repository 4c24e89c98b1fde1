"""Each node's standing, composed from a run's outcomes, and a result's verdict from its root.

A node's standing is a list of :class:`Piece` s: over this region, this :class:`Level` of
evidence, set by these weakest links.  A checked node takes its level from its kind and its
checks' statuses (a failed or undecided check: ``FAILED``; a check the run did not judge:
``NOT_RUN``); a certified node is ``PROVED`` only where the independent checker accepted its
certificate, else ``ENGINE`` ("certified, engine only").  A node that uses others holds, over
the intersection of their regions, at the weakest of their levels (``FOLLOWS`` and every
leaf's premises); an ``EITHER`` node holds wherever one of its uses does.  The verdict of a
result: proved over its stated region, over part of it, or supported only, naming the weakest
link where the proof is not complete.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Iterable, Mapping

from ..status import Status
from .obligations import Discharge, Obligation
from .region import Region, covers, merge


class Level(IntEnum):
    """How strongly a piece of a node is established (higher is stronger)."""

    FAILED = 0
    NOT_RUN = 1
    OPEN = 2
    SEARCH = 3
    STATISTICAL = 4
    NUMERIC = 5
    ENGINE = 6  # an engine-only certificate also rests on the engine's hand-proved lemmas
    HAND = 7
    PROVED = 8

    @property
    def words(self) -> str:
        return LEVEL_WORDS[self]


LEVEL_WORDS = {Level.FAILED: "FAILED", Level.NOT_RUN: "not run", Level.OPEN: "open",
               Level.SEARCH: "searched at points", Level.STATISTICAL: "statistical at points",
               Level.NUMERIC: "numeric at points", Level.HAND: "hand proof",
               Level.ENGINE: "certified, engine only", Level.PROVED: "proved"}
_KIND_LEVEL = {Discharge.SYMBOLIC: Level.PROVED, Discharge.HAND: Level.HAND,
               Discharge.NUMERIC: Level.NUMERIC, Discharge.STATISTICAL: Level.STATISTICAL,
               Discharge.SEARCH: Level.SEARCH, Discharge.OPEN: Level.OPEN}


@dataclass(frozen=True)
class CheckFacts:
    """What a run says of one check: its status, and for a certified check the region each
    passing case's box covers with whether the independent checker accepted it (None: the
    outcome does not say)."""

    status: str
    boxes: tuple[tuple[Region, bool | None], ...] = ()


@dataclass(frozen=True)
class Piece:
    region: Region
    level: Level
    weakest: tuple[str, ...] = ()  # the nodes at this level that set it (none when proved)


def _own(ob: Obligation, facts: Mapping[str, CheckFacts] | None) -> list[Piece]:
    """The node's own pieces, before its uses."""
    if ob.discharge in (Discharge.FOLLOWS, Discharge.EITHER):
        return [Piece(ob.region, Level.PROVED)]
    if ob.discharge is Discharge.CERTIFIED:
        return _certified(ob, facts)
    level = _KIND_LEVEL[ob.discharge]
    if facts is not None and ob.checks:
        level = min(level, _status_level(ob, facts))
    return [Piece(ob.region, level, () if level is Level.PROVED else (ob.id,))]


def _status_level(ob: Obligation, facts: Mapping[str, CheckFacts]) -> Level:
    if any(c in facts and not Status(facts[c].status).discharges for c in ob.checks):
        return Level.FAILED
    return Level.NOT_RUN if any(c not in facts for c in ob.checks) else Level.PROVED


def _certified(ob: Obligation, facts: Mapping[str, CheckFacts] | None) -> list[Piece]:
    """Without a run: the declared region, proved when the checker is declared to read it.
    With one: each case's box, proved where the checker accepted it, else engine only."""
    declared = Level.PROVED if ob.checker else Level.ENGINE
    if facts is None:
        return [Piece(ob.region, declared, () if ob.checker else (ob.id,))]
    status = _status_level(ob, facts)
    if status is not Level.PROVED:
        return [Piece(ob.region, status, (ob.id,))]
    boxes = [box for c in ob.checks for box in facts[c].boxes]
    if not boxes:
        return [Piece(ob.region, declared, () if ob.checker else (ob.id,))]
    out = []
    for region, accepted in boxes:
        level = Level.PROVED if accepted else Level.ENGINE
        out.append(Piece(region.intersect(ob.region), level, () if accepted else (ob.id,)))
    return out


def _both(a: Piece, b: Piece) -> Piece:
    level = min(a.level, b.level)
    weakest = tuple(dict.fromkeys((a.weakest if a.level == level else ())
                                  + (b.weakest if b.level == level else ())))
    return Piece(a.region.intersect(b.region), level, weakest)


def _all(groups: Iterable[list[Piece]]) -> list[Piece]:
    out: list[Piece] | None = None
    for group in groups:
        out = group if out is None else [_both(a, b) for a in out for b in group]
        out = [p for p in out if not p.region.empty]
    return out or []


def simplified(pieces: list[Piece]) -> list[Piece]:
    """Pieces a stronger (or equal) piece contains dropped; equal levels and links merged."""
    def dominates(j: int, q: Piece, i: int, p: Piece) -> bool:
        if q.level < p.level or not q.region.contains(p.region):
            return False
        if q.level > p.level or q.region != p.region:
            return True
        return (len(q.weakest), j) < (len(p.weakest), i)  # the same: fewer links, then first

    kept = [p for i, p in enumerate(pieces)
            if not any(dominates(j, q, i, p) for j, q in enumerate(pieces) if j != i)]
    groups: dict[tuple[Level, tuple[str, ...]], list[Region]] = {}
    for p in kept:
        groups.setdefault((p.level, p.weakest), []).append(p.region)
    out = [Piece(r, level, weakest) for (level, weakest), regions in groups.items()
           for r in merge(regions)]
    return sorted(out, key=lambda p: -p.level)


def evaluate(graph: Mapping[str, Obligation],
             facts: Mapping[str, CheckFacts] | None = None) -> dict[str, list[Piece]]:
    """Every node's standing (``facts`` None: as declared, every check assumed to pass)."""
    done: dict[str, list[Piece]] = {}

    def visit(node_id: str, path: tuple[str, ...]) -> list[Piece]:
        if node_id in done:
            return done[node_id]
        if node_id in path:
            raise ValueError("the proof ledger has a cycle: " + " -> ".join(path + (node_id,)))
        ob = graph[node_id]
        children = [visit(u, path + (node_id,)) for u in ob.uses]
        own = _own(ob, facts)
        if ob.discharge is Discharge.EITHER:
            pieces = [Piece(p.region.intersect(ob.region), p.level, p.weakest)
                      for group in children for p in group]
        else:
            pieces = _all([own, *children, [Piece(ob.region, Level.PROVED)]])
        done[node_id] = simplified([p for p in pieces if not p.region.empty])
        return done[node_id]

    for node_id in graph:
        visit(node_id, ())
    return done


@dataclass(frozen=True)
class Verdict:
    """A result's verdict: ``category`` is "proved" (its whole stated region), "proved in part",
    "supported" or "failed"; ``text`` says it with its ranges and weakest links."""

    category: str
    text: str
    proved: tuple[Region, ...] = ()
    weakest: tuple[str, ...] = ()


def verdict(root: Obligation, pieces: list[Piece]) -> Verdict:
    """The verdict of a result from its root's pieces: the proved part of its stated region
    (each range written with the parameters where it differs from the statement), then the
    strongest evidence for the rest and its weakest link."""
    stated = root.region
    proved = merge(p.region for p in pieces if p.level is Level.PROVED)
    rest = [p for p in pieces if p.level is not Level.PROVED]
    failed = [p for p in rest if p.level is Level.FAILED]
    if failed:
        links = _links(failed)
        return Verdict("failed", f"FAILED (link: {', '.join(links)})", tuple(proved), links)
    if covers(proved, stated):
        return Verdict("proved", f"proved for {stated.text()}", tuple(proved))
    shown_rest = _strongest_rest(rest, stated)
    links = _links(shown_rest)
    weaker = "; ".join(
        f"{_relative(p.region, stated) + ': ' if not p.region.contains(stated) else ''}"
        f"{p.level.words} ({', '.join(p.weakest)})" for p in shown_rest) or "nothing else"
    if proved:
        shown = sorted({name for r in proved for name, s in r.axes if stated.get(name) != s})
        where = "; ".join(_relative(r, stated) for r in proved)
        return Verdict("proved in part", f"proved for {where} (stated: {stated.text(shown)}); {weaker}",
                       tuple(proved), links)
    return Verdict("supported", f"supported: {weaker}", (), links)


def _strongest_rest(rest: list[Piece], stated: Region, most: int = 3) -> list[Piece]:
    """The strongest pieces that are not proved, strongest first, until one covers the stated
    region (at most ``most``): what the verdict names as the weakest links."""
    out: list[Piece] = []
    for piece in sorted(rest, key=lambda p: -p.level):
        out.append(piece)
        if piece.region.contains(stated) or len(out) == most:
            break
    return out


def _relative(region: Region, stated: Region) -> str:
    """``region`` in words, the parameters where it agrees with ``stated`` left out."""
    return region.text(sorted(name for name, s in region.axes if stated.get(name) != s))


def _links(pieces: list[Piece]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(w for p in pieces for w in p.weakest))


def problems(graph: Mapping[str, Obligation], check_ids: Iterable[str]) -> list[str]:
    """Everything that makes a ledger ill-formed: a node's own problems, a use or a check that
    does not exist, a cycle (raised by :func:`evaluate`)."""
    known = set(check_ids)
    out = [text for ob in graph.values() for text in ob.problems()]
    out += [f"{ob.id} uses unknown node {u}" for ob in graph.values() for u in ob.uses if u not in graph]
    out += [f"{ob.id} names unknown check {c}" for ob in graph.values() for c in ob.checks if c not in known]
    return out
