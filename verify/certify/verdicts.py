"""The words a certified check records in ``Outcome.values`` beside its detail: what the
independent checker said, which route the leaves took and what the engine's sample found.  The
JSON report, the proof ledger and the tests read these, never the detail's wording
(report/proof_ledger.py compares the checker's word as text: report/ does not import certify).
Each is a ``str`` enum; ``values`` holds the plain ``.value``."""
from __future__ import annotations

from enum import Enum


class Checker(str, Enum):
    """``values["checker"]``: the independent checker's verdict on the leaves as the proof
    ledger counts it.  On the checker-decides route the case stands on the checker and the
    engine's sample together: REJECTED there when either refuses (``values["sample"]`` says
    whether the engine's sample agreed)."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    NOT_ASKED = "not asked"  # this profile does not ask it, or the engine's own run failed first
    ENGINE_ONLY = "engine only"  # it does not read the group, or the committed file is invalid


class Route(str, Enum):
    """``values["route"]``: where the leaves came from."""

    CHECKER_DECIDES = "committed certificate: the checker decides, the engine samples"
    RE_JUDGED = "committed certificate: every leaf re-judged by the engine"
    ROOT = "from the root"
    INVALID = "committed certificate INVALID: not replaced by a run from the root"


class Sample(str, Enum):
    """``values["sample"]``: the engine's seeded sample of the leaves (checker-decides route)."""

    AGREES = "agrees"
    DISAGREES = "disagrees"
