"""The step sizes and step counts of the paper's plans, written once over any number type.

Theorem 2 and Corollary 1 (Section 4, A.7; the step sizes were lost from the text and are
reconstructed in proofs/thm2.md) and Proposition 1's attention gap.  Each function is plain
arithmetic plus the ``log`` (and ``sqrt``) it is handed, so the same formula runs on mpmath
numbers (``mpmath.log``) and on Arb balls (``lambda x: x.log()``); constants arrive as numbers
of that type.

>>> import mpmath
>>> mpmath.nstr(eta2(mpmath.mpf(4), mpmath.mpf("0.5"), 2, mpmath.mpf(2), mpmath.log), 6)
'33.2711'
>>> mpmath.nstr(phase3_steps(mpmath.mpf(4), mpmath.mpf("0.5"), 4, mpmath.log), 6)
'77.6325'
"""
from __future__ import annotations

from typing import Any, Callable

Log = Callable[[Any], Any]


def prop1_gap(d: Any, eps: Any, c: Any, log: Log) -> Any:
    """Proposition 1's attention gap ln(c d / eps^2) (c = 4 in the paper)."""
    return log(c * d / eps**2)


def eta1(d: Any, scale: Any, sqrt: Callable[[Any], Any]) -> Any:
    """eta1 = scale sqrt(d) (the hypothesis eta1 <= sqrt(d) at scale 1; Corollary 1)."""
    return scale * sqrt(d)


def eta2(d: Any, eps: Any, C: Any, eta1_: Any, log: Log) -> Any:
    """eta2 = C d^2 / eta1 ln(d/eps) (Theorem 2 and Corollary 1, reconstructed)."""
    return C * d**2 / eta1_ * log(d / eps)


def phase2_gap(d: Any, eps: Any, C: Any, rate: Any, log: Log) -> Any:
    """Phase 2's attention gap -eta2 (g_s - g_j) written as -C ln(d/eps) rate, with
    rate = d^2 (g_s - g_j)/eta1 (:func:`verify.engine.symbolic.gap_rate_closed_form`): the
    :func:`eta2` above with its d^2/eta1 moved into the gradient difference.  Change both
    together (the certified route checks them against each other at every box's centre)."""
    return -C * log(d / eps) * rate


def phase3_steps(d: Any, eps: Any, T_factor: Any, log: Log) -> Any:
    """The real lower bound T_factor d ln(16d/eps) on Theorem 2's Phase-3 steps (A.7)."""
    return T_factor * d * log(16 * d / eps)


def cor1_steps(eps: Any, T_numerator: Any) -> Any:
    """The real lower bound T_numerator/eps on Corollary 1's Phase-3 steps (72/eps)."""
    return T_numerator / eps
