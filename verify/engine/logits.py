"""Logits with capped gaps: attention after a large step without overflow or lost digits.

One attention step alpha' = -eta grad (Theorem 1) can spread the logits over thousands of units;
beyond a gap of GAP_CAP the attention weights below it are below e^-GAP_CAP of the rest, so every
gap above the cap is replaced by the cap (order kept, max 0).  The caller bounds the effect on
what it computes (``verify.results.thm1.reevaluate`` does for the loss).
"""
from __future__ import annotations

import mpmath
import numpy as np

GAP_CAP = 25.0


def compress(alpha: np.ndarray, cap: float = GAP_CAP) -> np.ndarray:
    """Logits with every gap between consecutive sorted values capped at ``cap`` (order kept,
    max 0).  A gap g > cap changes each gamma by at most m e^(-cap): far below the reported
    digits for the word lengths that carry mass."""
    order = np.argsort(alpha, kind="stable")
    gaps = np.minimum(np.diff(alpha[order]), cap)
    out = np.empty_like(alpha, dtype=np.float64)
    out[order] = np.concatenate([[0.0], np.cumsum(gaps)])
    return out - out.max()


def compress_mp(alpha: list, cap: float = GAP_CAP) -> list:
    """:func:`compress` on mpf logits (the same order; exact arithmetic at the working precision)."""
    order = sorted(range(len(alpha)), key=lambda i: alpha[i])
    out = [mpmath.mpf(0)] * len(alpha)
    acc = mpmath.mpf(0)
    for a, b in zip(order, order[1:]):
        acc += min(alpha[b] - alpha[a], mpmath.mpf(cap))
        out[b] = acc
    return [x - acc for x in out]
