"""The proof ledger: each result's proof as a graph of obligations, and verdicts composed from it
(a result is proved over a range only when every obligation on its path is)."""
from .compose import CheckFacts, Level, Piece, Verdict, evaluate, verdict
from .obligations import Discharge, Obligation
from .region import Interval, Region, Span, at_least, between, closed, points

__all__ = ["CheckFacts", "Discharge", "Interval", "Level", "Obligation", "Piece", "Region", "Span",
           "Verdict", "at_least", "between", "closed", "evaluate", "points", "verdict"]
