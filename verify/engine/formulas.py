"""The small formulas every route shares, written once against a number context.

Each function here is plain arithmetic over a :class:`verify.engine.context.Context` (or over
whatever numbers it is handed: mpf, float64 scalars and arrays, Arb balls, duals), so the
symmetric, general, ratio and box routes differ only in the context they pass:

* :func:`pgf_terms`: the derivatives of the length pgf and their slice differences
  (proofs/model.md, section 2);
* :func:`merge_scales`: the break points of a Laplace integral, one per scale;
* :func:`phase3_system`, :func:`det2`, :func:`solve2`: Phase 3's 2x2 quadratic on the
  background-symmetric subspace (A.7);
* :func:`softmax_counts`: the attention of a word, ``gamma = C e^alpha / sum C e^alpha`` (float64).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:  # the contexts are handed in: nothing of context.py runs here
    import numpy as np

    from .context import Context

MERGE_RATIO = 8  # break points closer than this factor are one scale


def powers(x, n: int, one) -> list:
    """``[1, x, x^2, ..., x^n]`` (``one``: 1 in x's number type; each power one product more).

    >>> powers(0.5, 3, 1.0)
    [1.0, 0.5, 0.25, 0.125]
    """
    out = [one]
    for _ in range(n):
        out.append(out[-1] * x)
    return out


def pgf_coefficients(p, q, order: int) -> list:
    """``k[j] = j! p q^(j-1)`` for j = 1..order (index 0 is None):
    ``G^(j)(z) = k[j] / (1 - q z)^(j+1)`` for the length pgf ``G(z) = p z / (1 - q z)`` (proofs/model.md, section 2)."""
    return [None] + [math.factorial(j) * p * q ** (j - 1) for j in range(1, order + 1)]


def pgf_terms(ctx: Context, small, big, diff, p, q, order: int, g0: bool = True,
              coefficients: list | None = None,
              g: bool = True) -> tuple[list | None, list | None, list | None]:
    """``(G, G0, D)`` with ``G[j] = G^(j)(z)``, ``G0[j] = G^(j)(z0)`` and ``D[j] = G[j] - G0[j]``
    for j = 1..order (index 0 is None), from ``small = 1 - q z``, ``big = 1 - q z0`` and
    ``diff = big - small > 0``; ``G0``, ``D`` are None when ``big`` is None, ``G0`` when not
    ``g0``, ``G`` when not ``g`` (a caller that reads only the gaps).  ``coefficients``:
    :func:`pgf_coefficients` of ``(p, q, order)`` when the caller holds them.

    ``G^(j)(z) = j! p q^(j-1) / (1 - q z)^(j+1)`` (proofs/model.md, section 2), and the gap is
    formed without cancellation, a sum of positive terms:
    ``D[j] = j! p q^(j-1) diff sum_(i=0..j) big^-(j+1-i) small^-(i+1)``.  Both from the powers of
    ``1/small`` and ``1/big``: on duals over a box the form ``k / small^(j+1)`` widened the centred
    margins (prop1.bound's radius by 2% on a box of d in [5, 6]).

    >>> from verify.engine.context import FP
    >>> G, G0, D = pgf_terms(FP, 0.5, 0.75, 0.25, 0.5, 0.5, 2)
    >>> G[1], G0[1], D[1], G[1] - G0[1]
    (2.0, 0.8888888888888888, 1.1111111111111112, 1.1111111111111112)
    """
    k = pgf_coefficients(p, q, order) if coefficients is None else coefficients
    inv_small = powers(1 / small, order + 1, ctx.one)
    G = [None] + [k[j] * inv_small[j + 1] for j in range(1, order + 1)] if g else None
    if big is None:
        return G, None, None
    inv_big = powers(1 / big, order + 1, ctx.one)
    G0 = [None] + [k[j] * inv_big[j + 1] for j in range(1, order + 1)] if g0 else None
    D = [None] + [k[j] * diff * sum(inv_big[j + 1 - i] * inv_small[i + 1] for i in range(j + 1))
                  for j in range(1, order + 1)]
    return G, G0, D


def merge_scales(points: Iterable, log: bool = False) -> list:
    """The distinct ``points`` in increasing order, each kept only when it lies more than a
    factor :data:`MERGE_RATIO` above the last one kept (``log``: the points are logarithms, so
    more than ``ln MERGE_RATIO`` above it).  Between consecutive scales of a Laplace integral
    every integrand grows like a power of t, so one break point per scale is enough.

    >>> merge_scales([1.0, 4.0, 9.0, 100.0])
    [1.0, 9.0, 100.0]
    >>> merge_scales([0.0, 1.5, 2.5], log=True)
    [0.0, 2.5]
    """
    ordered = sorted(set(points))
    step = math.log(MERGE_RATIO) if log else MERGE_RATIO
    merged = [ordered[0]]
    for t in ordered[1:]:
        if (t > merged[-1] + step) if log else (t > step * merged[-1]):
            merged.append(t)
    return merged


def phase3_system(gradient: Callable[[Any, Any], tuple]) -> tuple[tuple, tuple]:
    """``(A, c)`` of Phase 3 (A.7): at fixed attention the output gradient is affine,
    ``(dL/dbeta_s, dL/dbeta_j) = A b - c`` for ``b = (beta_s, beta_j)`` (per coordinate), so it is
    read off ``gradient(beta_s, beta_j)`` (the pair) at b = 0, e_1, e_2, exactly by linearity.

    >>> phase3_system(lambda bs, bj: (2 * bs + bj - 1, bs + 3 * bj))
    (((2, 1), (1, 3)), (1, 0))
    """
    g = [gradient(bs, bj) for bs, bj in ((0, 0), (1, 0), (0, 1))]
    c = (-g[0][0], -g[0][1])
    A = ((g[1][0] + c[0], g[2][0] + c[0]), (g[1][1] + c[1], g[2][1] + c[1]))
    return A, c


def det2(A: tuple) -> Any:
    """The determinant of a 2x2 matrix given as rows."""
    return A[0][0] * A[1][1] - A[0][1] * A[1][0]


def solve2(A: tuple, c: tuple) -> tuple:
    """``A^-1 c`` for a 2x2 matrix given as rows (Cramer: the optimum ``b* = A^-1 c`` of Phase 3).

    >>> solve2(((2.0, 1.0), (1.0, 3.0)), (1.0, 0.0))
    (0.6, -0.2)
    """
    det = det2(A)
    return ((A[1][1] * c[0] - A[0][1] * c[1]) / det, (A[0][0] * c[1] - A[1][0] * c[0]) / det)


def softmax_counts(counts: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """``gamma_i = C_i e^(l_i) / sum_j C_j e^(l_j)`` over the last axis (the model's attention on
    a word with counts ``C``); counts and logits broadcast (float64).

    The shift is the max of the logits over the present symbols (C_i > 0), so the largest
    present weight is C_i * 1 >= a positive count and nothing overflows; absent symbols get
    exponent -inf, i.e. weight exactly 0, however large their logit.

    >>> import numpy as np
    >>> softmax_counts(np.array([2.0, 0.0, 1.0]), np.array([0.0, 1e6, 0.0])).tolist()
    [0.6666666666666666, 0.0, 0.3333333333333333]
    """
    import numpy as np  # here, not above: the mpf routes (a cold verify eval) never load numpy

    present = counts > 0
    masked = np.where(present, logits, -np.inf)
    shift = masked.max(axis=-1, keepdims=True)
    weights = counts * np.exp(np.where(present, logits - shift, -np.inf))
    return weights / weights.sum(axis=-1, keepdims=True)
