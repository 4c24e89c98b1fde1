"""The vocabulary of checks: results, checks, cases and outcomes (no mathematics here).

A *result* of the paper (``prop1``, ``thm2``, ...) owns its statement and a list of *checks*; a
check expands into *cases* for a profile and judges each case independently, so cases can run in
parallel processes.  Every outcome states its kind of evidence (:class:`Evidence`; the
one-line definitions in :data:`EVIDENCE_DEFINITIONS` are the report's legend).

An outcome is ``True`` (holds, margin > 0), ``False`` (fails) or ``None`` (undecided: never
counted as a pass).  An exhibit (evidence ``exhibit``) and a vacuous case (``vacuous``: the claim's
target is <= 0, so nothing was tested) are shown but never counted as passes; nor is a passing
configuration check (evidence ``configuration``: the configured constants lie inside a
statement's hypotheses, a check of the input, not of the paper), whose failure fails the run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Callable, Mapping, Sequence

from .ledger import Obligation
from .status import Status  # noqa: F401  (a check's status in a run, beside its evidence)


class Evidence(str, Enum):
    SYMBOLIC = "symbolic"
    CERTIFIED = "certified"
    NUMERIC = "numeric"
    STATISTICAL = "statistical"
    SEARCH = "search"
    EXHIBIT = "exhibit"
    CONFIGURATION = "configuration"


EVIDENCE_DEFINITIONS: Mapping[Evidence, str] = {
    Evidence.SYMBOLIC: "SymPy proved the inequality for the whole stated range (a case that falls "
                       "back to points is numeric, never symbolic)",
    Evidence.CERTIFIED: "an interval (ball-arithmetic) enclosure decides it rigorously",
    Evidence.NUMERIC: "a high-precision value with an error ESTIMATE at each case, not a bound "
                      "(only the quadrature's tail bound is proven; the detail says which kind "
                      "of error each value carries)",
    Evidence.STATISTICAL: "a named hypothesis test on seeded samples (an exact binomial "
                          "Clopper-Pearson test, Student t bounds on a mean, or a Wilcoxon signed-rank test): the "
                          "detail names the null, the level and the power or the effect it detects",
    Evidence.SEARCH: "a seeded search found no counterexample (the detail gives the effort)",
    Evidence.EXHIBIT: "a measured figure with no claim (tightness values, rows the statement does "
                      "not cover); shown, never counted as a pass",
    Evidence.CONFIGURATION: "the configured constants lie inside the statement's hypotheses (a "
                            "check of the input, not of the paper): a violation fails the run, a "
                            "pass is shown, never counted",
}


def legend() -> str:
    """The evidence kinds and their definitions, one sentence (the report's legend)."""
    return "; ".join(f"*{e.value}* = {text}" for e, text in EVIDENCE_DEFINITIONS.items()) + "."


class Reach(str, Enum):
    """How much of its claim's range a check's evidence covers: the whole stated range (a
    symbolic proof, a certified box) or finitely many points (a grid of cases, the point a
    search found).  The ledger counts "certified over a box" and "certified at a point" apart."""

    RANGE = "range"
    POINTS = "points"


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
    vacuous: bool = False  # the claim's target is <= 0 at this case: nothing was tested
    # the constants the verdict read (recorded by the runner, see constants.Tracked); not compared
    reads: tuple[str, ...] = field(default=(), compare=False)

    @property
    def counted(self) -> bool:
        """Whether the outcome judges a claim (an exhibit, a vacuous case or a passing
        configuration check does not; a failing configuration check counts, as a failure)."""
        if self.evidence is Evidence.CONFIGURATION:
            return self.passed is not True
        return self.evidence is not Evidence.EXHIBIT and not self.vacuous


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
    reach: Reach | None = None  # None: the whole range for symbolic evidence, points otherwise
    scope: str = ""  # the part of the result's statement it tests ("" the whole; "at alpha = 0")
    reads_outcomes: tuple[str, ...] = ()  # checks whose outcomes its judge reads: run after them

    @property
    def covers(self) -> Reach:
        """What the evidence covers (see :class:`Reach`)."""
        if self.reach is not None:
            return self.reach
        return Reach.RANGE if self.evidence is Evidence.SYMBOLIC else Reach.POINTS


@dataclass(frozen=True)
class Exhibit:
    """A table the report draws from one check's outcomes: a row per case, a column per named
    value (``Outcome.values``); it adds no claim of its own and computes nothing."""

    check: str  # the check whose outcomes fill the rows
    title: str
    caption: str
    columns: tuple[tuple[str, str], ...]  # (key in Outcome.values, column header)


@dataclass(frozen=True)
class Discrepancy:
    """A documented failure of the paper, scoped to the cases where it is expected: ``expected``
    (over a case's params) says which cases fail and ``scope`` says it in words.  A failure
    outside the scope is a FAIL; a case inside it that passes is "discrepancy not reproduced"."""

    reason: str
    scope: str
    expected: Callable[[Mapping[str, object]], bool]


@dataclass(frozen=True)
class Calibration:
    """A constant measured on some cases: ``calibration`` (over a case's params) marks the cases
    it was tuned on; every other case of the checks in ``checks`` is held out.  The headline
    counts held-out cases only; the in-sample cases are shown beside them."""

    constant: str
    checks: tuple[str, ...]
    scope: str
    calibration: Callable[[Mapping[str, object]], bool]


@dataclass(frozen=True)
class Result:
    """A result of the paper with its reconstructed statement and its checks."""

    id: str
    name: str
    statement: str
    hypotheses: str
    constants: tuple[str, ...]
    checks: tuple[Check, ...] = ()
    short: str = ""  # the statement in about a dozen plain words (the report's summary row)
    document: str = ""
    notes: str = ""
    discrepancies: Mapping[str, Discrepancy] = field(default_factory=dict)  # by check id
    exhibits: tuple[Exhibit, ...] = ()
    calibrations: tuple[Calibration, ...] = ()
    # the proof as a graph of obligations (verify.ledger): the node whose id is the result's
    # id is the statement; the verdict is composed from it
    proof: tuple[Obligation, ...] = ()

    def calibrations_for(self, check_id: str) -> tuple[Calibration, ...]:
        """The measured constants a check's cases were calibrated on (a case is in-sample when
        any of them marks it)."""
        return tuple(c for c in self.calibrations if check_id in c.checks)

    @property
    def checked(self) -> bool:
        return bool(self.checks)
