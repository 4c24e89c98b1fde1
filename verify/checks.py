"""The vocabulary of checks: results, checks, cases and outcomes (no mathematics here).

A *result* of the paper (``prop1``, ``thm2``, ...) owns its statement and a list of *checks*; a
check expands into *cases* for a profile and judges each case independently, so cases can run in
parallel processes.  Every outcome states its kind of evidence:

* ``symbolic`` -- SymPy proved the inequality for a whole range of d or eps;
* ``certified`` -- an interval enclosure decides it;
* ``numeric`` -- a high-precision value with an error bound at one point;
* ``search`` -- no counterexample was found by a search.

An outcome is ``True`` (holds, margin > 0), ``False`` (fails) or ``None`` (undecided: never
counted as a pass).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Callable, Mapping, Sequence


class Evidence(str, Enum):
    SYMBOLIC = "symbolic"
    CERTIFIED = "certified"
    NUMERIC = "numeric"
    SEARCH = "search"
    STATISTICAL = "statistical"  # a hypothesis test over seeded runs (issue 12)
    EXHIBIT = "exhibit"  # a measured figure with no claim; never counted as a pass (issue 12)


class Profile(str, Enum):
    QUICK = "quick"
    DEFAULT = "default"
    FULL = "full"


Constants = Mapping[str, Fraction]


@dataclass(frozen=True)
class Case:
    """One point of a check's range; ``params`` must be picklable (numbers and strings)."""

    label: str
    params: Mapping[str, object]


@dataclass(frozen=True)
class Outcome:
    """The verdict on one case. ``margin`` is how far inside the bound the value lies, as the
    ratio bound/value (> 1 holds) unless ``margin_kind`` says ``difference`` (bound - value:
    > 0 holds a strict inequality, >= 0 a non-strict one)."""

    case: str
    passed: bool | None
    margin: float | None
    evidence: Evidence
    detail: str = ""
    margin_kind: str = "ratio"
    values: Mapping[str, float | str] = field(default_factory=dict)  # measured quantities, by name


@dataclass(frozen=True)
class Check:
    """One inequality of a result (a statement or a proof step), over a range of cases."""

    id: str
    step: str  # where in the paper: "Proposition 1", "A.2 step 2", ...
    claim: str  # the inequality in one line
    evidence: Evidence
    cases: Callable[[Profile, Constants, Mapping[str, object]], Sequence[Case]]
    judge: Callable[[Case, Constants], Outcome]
    reconstructed: bool = False  # claim or constants are a reconstruction (see proofs/)


@dataclass(frozen=True)
class Exhibit:
    """A table the report draws from one check's outcomes: a row per case, a column per named
    value (``Outcome.values``); it adds no claim of its own and computes nothing."""

    check: str  # the check whose outcomes fill the rows
    title: str
    caption: str
    columns: tuple[tuple[str, str], ...]  # (key in Outcome.values, column header)


@dataclass(frozen=True)
class Result:
    """A result of the paper with its reconstructed statement and its checks."""

    id: str
    name: str
    statement: str
    hypotheses: str
    constants: tuple[str, ...]
    checks: tuple[Check, ...] = ()
    document: str = ""
    notes: str = ""
    discrepancies: Mapping[str, str] = field(default_factory=dict)  # check id -> what fails and why
    exhibits: tuple[Exhibit, ...] = ()

    @property
    def checked(self) -> bool:
        return bool(self.checks)
