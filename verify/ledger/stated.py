"""A result's statement as the paper words it, beside the configured one.

Where the text lost a constant and says only "there is c > 0" or "O(sqrt(d)) heads", a result's
root node judges the constant configured in proofs/constants.toml, and a second node, named by
:func:`as_stated`, the existential statement: one constant for every d, the smallest that a
proof on its path uses (its claim names it).  The report and `verify ledger` show both
verdicts; a result without the node has one statement.
"""
from __future__ import annotations

from .region import Span, at_least, points

AS_STATED = "as-stated"


def as_stated(result_id: str) -> str:
    """The id of the node that holds ``result_id``'s statement as the paper words it."""
    return f"{result_id}.{AS_STATED}"


def integers_from(lo: int, upto: int = 10) -> Span:
    """Every integer d >= lo as a span: the points lo .. upto - 1, then [upto, inf) (the ledger's
    spans are real; an alphabet size is an integer, and a proof at single d covers no gap)."""
    return points(*range(lo, upto)).union(at_least(max(lo, upto)))
