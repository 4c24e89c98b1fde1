"""Ranges of the paper's parameters, as the proof ledger composes them.

A :class:`Region` names, for each parameter it constrains (d, eps, eta1/sqrt(d), ...), a
:class:`Span`: a finite union of intervals, each end open or closed, infinite ends allowed.  A
parameter the region does not name is unconstrained.  Two operations carry the ledger: the
intersection (a step that needs two premises holds where both do) and the union of regions
that differ along one parameter at most (a box and its eps-tail cover one range together).
Containment answers "is the stated range proved?".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

INF = math.inf
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def pretty(x: float) -> str:
    """A number as a reader writes it: 3, 0.99, 10⁻⁶, 10⁹, 2.5·10⁵, ∞."""
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        return f"{x:g}"
    exponent = math.floor(math.log10(abs(x)))
    mantissa = x / 10 ** exponent
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if abs(mantissa - 1) < 1e-9 else f"{mantissa:.3g}·{power}"


@dataclass(frozen=True, order=True)
class Interval:
    """``lo .. hi``; an open end excludes its point (an infinite end is always open)."""

    lo: float
    hi: float
    lo_open: bool = False
    hi_open: bool = False

    def __post_init__(self) -> None:
        if math.isinf(self.lo):
            object.__setattr__(self, "lo_open", True)
        if math.isinf(self.hi):
            object.__setattr__(self, "hi_open", True)

    @property
    def empty(self) -> bool:
        return self.lo > self.hi or (self.lo == self.hi and (self.lo_open or self.hi_open))

    def intersect(self, other: Interval) -> Interval:
        lo, lo_open = max((self.lo, self.lo_open), (other.lo, other.lo_open))
        hi, hi_open = min((self.hi, not self.hi_open), (other.hi, not other.hi_open))
        return Interval(lo, hi, lo_open, not hi_open)

    def joins(self, other: Interval) -> bool:
        """Whether the union of the two (self starting no later) is one interval."""
        return other.lo < self.hi or (other.lo == self.hi and not (self.hi_open and other.lo_open))

    def contains(self, other: Interval) -> bool:
        if other.empty:
            return True
        lo_ok = self.lo < other.lo or (self.lo == other.lo and (not self.lo_open or other.lo_open))
        hi_ok = self.hi > other.hi or (self.hi == other.hi and (not self.hi_open or other.hi_open))
        return lo_ok and hi_ok

    def text(self) -> str:
        if self.lo == self.hi:
            return pretty(self.lo)
        if math.isinf(self.hi) and not math.isinf(self.lo):
            return f"{'>' if self.lo_open else '≥'} {pretty(self.lo)}"
        return (("(" if self.lo_open else "[") + f"{pretty(self.lo)}, {pretty(self.hi)}"
                + (")" if self.hi_open else "]"))


@dataclass(frozen=True)
class Span:
    """A finite union of disjoint intervals, sorted (build with :func:`span`)."""

    parts: tuple[Interval, ...]

    @property
    def empty(self) -> bool:
        return not self.parts

    @property
    def everything(self) -> bool:
        return self.parts == (Interval(-INF, INF),)

    def intersect(self, other: Span) -> Span:
        return span(a.intersect(b) for a in self.parts for b in other.parts)

    def union(self, other: Span) -> Span:
        return span(self.parts + other.parts)

    def contains(self, other: Span) -> bool:
        return all(any(mine.contains(part) for mine in self.parts) for part in other.parts)

    def text(self) -> str:
        points = [p for p in self.parts if p.lo == p.hi]
        if len(points) == len(self.parts) > 1:
            return "{" + ", ".join(pretty(p.lo) for p in points) + "}"
        return " ∪ ".join(p.text() for p in self.parts)


def span(intervals: Iterable[Interval]) -> Span:
    """The union of ``intervals`` in canonical form: empty ones dropped, touching ones merged."""
    merged: list[Interval] = []
    for part in sorted((i for i in intervals if not i.empty), key=lambda i: (i.lo, i.lo_open)):
        if merged and merged[-1].joins(part):
            last = merged[-1]
            hi, hi_open = max((last.hi, not last.hi_open), (part.hi, not part.hi_open))
            merged[-1] = Interval(last.lo, hi, last.lo_open, not hi_open)
        else:
            merged.append(part)
    return Span(tuple(merged))


def closed(lo: float, hi: float) -> Span:
    return span([Interval(lo, hi)])


def at_least(lo: float) -> Span:
    return span([Interval(lo, INF)])


def between(lo: float, hi: float, lo_open: bool = False, hi_open: bool = False) -> Span:
    return span([Interval(lo, hi, lo_open, hi_open)])


def points(*values: float) -> Span:
    return span(Interval(v, v) for v in values)


# how the report writes each parameter (the key is the ledger's name for it)
AXIS_NAMES: Mapping[str, str] = {"d": "d", "eps": "ε", "u": "η₁/√d", "v": "η₂,min/η₂",
                                 "H": "H", "eta": "η", "c": "c"}


@dataclass(frozen=True)
class Region:
    """Parameter name -> :class:`Span`; a name not listed is unconstrained."""

    axes: tuple[tuple[str, Span], ...] = ()

    @staticmethod
    def of(**spans: Span) -> Region:
        return Region(tuple(sorted((k, v) for k, v in spans.items() if not v.everything)))

    def get(self, axis: str) -> Span:
        return dict(self.axes).get(axis, span([Interval(-INF, INF)]))

    @property
    def empty(self) -> bool:
        return any(s.empty for _, s in self.axes)

    def intersect(self, other: Region) -> Region:
        names = dict(self.axes).keys() | dict(other.axes).keys()
        return Region.of(**{n: self.get(n).intersect(other.get(n)) for n in names})

    def contains(self, other: Region) -> bool:
        if other.empty:
            return True
        return all(s.contains(other.get(name)) for name, s in self.axes)

    def joined(self, other: Region) -> Region | None:
        """The union as one region when the two differ along one parameter at most, else None."""
        names = dict(self.axes).keys() | dict(other.axes).keys()
        differ = [n for n in names if self.get(n) != other.get(n)]
        if len(differ) > 1:
            return None
        if not differ:
            return self
        n = differ[0]
        return Region.of(**{**dict(self.axes), n: self.get(n).union(other.get(n))})

    def text(self, only: Iterable[str] | None = None) -> str:
        """"d ≥ 3, ε ∈ (0, 1)": each constrained parameter (those in ``only``, if given);
        "every parameter" when none is."""
        parts = []
        keep = None if only is None else set(only)
        for name, s in self.axes:
            if keep is not None and name not in keep:
                continue
            label = AXIS_NAMES.get(name, name)
            body = s.text()
            if len(s.parts) == 1 and s.parts[0].lo != s.parts[0].hi and body[0] in "≥>":
                parts.append(f"{label} {body}")
            elif len(s.parts) == 1 and s.parts[0].lo == s.parts[0].hi:
                parts.append(f"{label} = {body}")
            else:
                parts.append(f"{label} ∈ {body}")
        return ", ".join(parts) or ("every parameter" if keep is None else "")


def merge(regions: Iterable[Region]) -> list[Region]:
    """``regions`` with every pair that makes one region joined, until none does (the union)."""
    out = [r for r in regions if not r.empty]
    changed = True
    while changed:
        changed = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                if out[i].contains(out[j]):
                    joined: Region | None = out[i]
                elif out[j].contains(out[i]):
                    joined = out[j]
                else:
                    joined = out[i].joined(out[j])
                if joined is not None:
                    out = [r for k, r in enumerate(out) if k not in (i, j)] + [joined]
                    changed = True
                    break
            if changed:
                break
    return out


def covers(regions: Iterable[Region], target: Region) -> bool:
    """Whether the union of ``regions`` contains ``target`` (decided after :func:`merge`: a
    union that merging cannot write as one region counts as not covering)."""
    return any(r.contains(target) for r in merge(regions))
