"""A check's status in a run, with what each status means for the run and for the proof ledger.

A leaf module (no imports from the package): :mod:`verify.checks` re-exports :class:`Status`
beside :class:`~verify.checks.Evidence`; the runner computes it (:attr:`CheckReport.status`),
the report, the ledger and ``verify diff`` read its properties instead of lists of strings.
The values are the words the report prints (a ``StrEnum``: a status equals its word).
"""
from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    FAIL = "FAIL"
    UNDECIDED = "undecided"
    INCOMPLETE = "incomplete"
    NOT_REPRODUCED = "discrepancy not reproduced"
    DISCREPANCY = "discrepancy"
    CONFIGURATION_OK = "configuration ok"
    VACUOUS = "vacuous"
    EXHIBIT = "exhibit"
    IN_SAMPLE_ONLY = "in-sample only"
    PASS = "pass"

    @property
    def bad(self) -> bool:
        """Fails the run (exit code 1) and the result's verdict."""
        return self in BAD

    @property
    def discharges(self) -> bool:
        """The check's cases hold (a documented discrepancy holds outside its scope): it can
        discharge a proof obligation (:mod:`verify.ledger.compose`)."""
        return self in (Status.PASS, Status.DISCREPANCY, Status.IN_SAMPLE_ONLY)

    @property
    def shown_only(self) -> bool:
        """Nothing counted: shown in the report, neither a pass nor a failure."""
        return self in (Status.EXHIBIT, Status.VACUOUS, Status.CONFIGURATION_OK)

    @property
    def regressed(self) -> bool:
        """A change from a pass to this status is a regression (``verify diff``)."""
        return self in (Status.FAIL, Status.DISCREPANCY, Status.UNDECIDED, Status.INCOMPLETE)

    @property
    def colour(self) -> str:
        """The terminal table's colour (rich style)."""
        return _COLOUR[self]


BAD: tuple[Status, ...] = (Status.FAIL, Status.UNDECIDED, Status.INCOMPLETE,
                           Status.NOT_REPRODUCED)  # worst first: the order a verdict names them
_COLOUR = {Status.PASS: "green", Status.FAIL: "bold red", Status.DISCREPANCY: "yellow",
           Status.UNDECIDED: "magenta", Status.INCOMPLETE: "cyan",
           Status.NOT_REPRODUCED: "bold magenta", Status.EXHIBIT: "blue", Status.VACUOUS: "blue",
           Status.IN_SAMPLE_ONLY: "cyan", Status.CONFIGURATION_OK: "blue"}
