"""Exhibit tables: a row per case of one check, a column per named value (no claim of their own)."""
from __future__ import annotations

from typing import Sequence

from ..checks import Exhibit, Result
from ..run.runner import CheckReport


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
