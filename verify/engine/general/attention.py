"""One attention vector, validated once: weights, break points, tolerances and tail bounds.

:class:`GeneralAttention` mirrors :class:`verify.engine.symmetric.AttentionState`: everything the
population moments and the loss need from the attention ``alpha`` (and the target ``s``) is
computed once at construction, at the working precision of :mod:`verify.engine.precision`, and
reused by every pass (moments, loss, optimum over the output weights).

Conventions (as in :mod:`verify.engine.enumeration`): symbols are 0-based, ``s`` is the target,
``c_l = e^{alpha_l - max alpha}`` (gamma does not change), ``x_l(t) = exp(-t c_l)``,
``z = sum_l x_l / d``, ``G(z) = p z / (1 - q z)``, ``p = 1/(d-1)``, ``q = 1 - p``.

Tail bounds (proofs).  For ``t >= T``: ``x_i(t) <= x_i(T)``, so ``z(t), z0(t) <= z(T)`` and,
``G^(j)`` being increasing on ``[0, 1/q)``,
``G^(j)(z), G^(j)(z0), Delta_j <= G^(j)(z(T)) =: Ghat_j``
(``Delta_j <= G^(j)(z)`` since ``G^(j)(z0) >= 0``).  The remaining factor
``t^(r-1) x_l(t) = t^(r-1) e^(-t c_l)`` integrates to ``Gamma(r, c_l T)/c_l^r``
(``mpmath.gammainc``).  Each bound is doubled (``TAIL_SAFETY``) to absorb the rounding of its own
evaluation.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

import mpmath
import numpy as np

from ..context import MP
from ..expectations import scales
from ..formulas import merge_scales, pgf_terms
from ..precision import check_dps, working
from .backends import exp_pair, mp_exponentials, mp_node, mp_sum
from .kernels import NodeTerms

TAIL_SAFETY = 2  # tail bounds are doubled (rounding of their own evaluation)
NODE_CACHE_LIMIT = 100_000  # cached nodes times d (d = 10: ~1000 nodes, ~4 MB)


# ------------------------------------------------------------------------------ validation


def check_d_s(d, s) -> tuple[int, int]:
    """``(d, s)`` as ints: ``d >= 2`` symbols and a 0-based target ``s``, else ValueError.

    >>> check_d_s(3, 2)
    (3, 2)
    >>> check_d_s(3, 3)
    Traceback (most recent call last):
    ...
    ValueError: s must lie in 0..2 (0-based symbols), got 3
    """
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    if isinstance(s, bool) or not isinstance(s, numbers.Integral):
        raise ValueError(f"s must be an integer symbol in 0..{int(d) - 1}, got {s!r}")
    if not 0 <= s < d:
        raise ValueError(f"s must lie in 0..{int(d) - 1} (0-based symbols), got {s}")
    return int(d), int(s)


def mpf_vector(values, d: int, name: str) -> list:
    """Entries as mpf at the current precision (strings and Fractions are read exactly there)."""
    try:
        vals = list(values)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of length d = {d}") from None
    if len(vals) != d:
        raise ValueError(f"{name} must have length d = {d}, got {len(vals)}")
    out = []
    for v in vals:
        if isinstance(v, bool):
            raise ValueError(f"{name} entries must be real numbers, got a bool")
        try:
            if isinstance(v, Fraction):
                x = mpmath.mpf(v.numerator) / v.denominator
            elif isinstance(v, (np.floating, np.integer)):
                x = mpmath.mpf(v.item())
            else:
                x = mpmath.mpf(v)
        except (TypeError, ValueError):
            raise ValueError(f"{name} entries must be real numbers, got {v!r}") from None
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} entries must be finite, got {v!r}")
        out.append(x)
    return out


def float_vector(values, d: int, name: str) -> np.ndarray:
    """Entries as a float64 array of shape ``(d,)``, all finite, else ValueError."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} entries must be finite")
    return arr


# ------------------------------------------------------------------------ the attention state


@dataclass(frozen=True, eq=False)
class GeneralAttention:
    """Attention ``alpha`` (length ``d``), target ``s``, ``dps`` requested digits, validated once.

    Holds, at ``dps + GUARD_DIGITS`` working digits, the rescaled weights ``c``, ``p``, ``q``, the
    quadrature tolerance ``rel_tol = 10^-(dps+2)`` and the break points of the ``t`` integral.
    Build it with :meth:`from_alpha` (or :meth:`from_weights` for weights at any common scale).

    >>> att = GeneralAttention.from_alpha(3, 0, [0, 0, 0], dps=15)
    >>> (att.d, att.s, len(att.points) > 2)
    (3, 0, True)
    """

    d: int
    s: int
    dps: int
    c: list  # e^{alpha_l - max alpha}
    dd: mpmath.mpf = field(init=False)
    inv_d: mpmath.mpf = field(init=False)
    p: mpmath.mpf = field(init=False)
    q: mpmath.mpf = field(init=False)
    rel_tol: mpmath.mpf = field(init=False)
    points: list = field(init=False)
    _nodes: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        with working(self.dps):
            dd = mpmath.mpf(self.d)
            p = 1 / (dd - 1)
            for name, value in (("dd", dd), ("p", p), ("q", 1 - p), ("inv_d", 1 / dd),
                                ("rel_tol", mpmath.mpf(10) ** (-(self.dps + 2)))):
                object.__setattr__(self, name, value)  # frozen: set once, here
            object.__setattr__(self, "points", _break_points(self))

    @classmethod
    def from_alpha(cls, d: int, s: int, alpha: Sequence, dps: int = 30) -> "GeneralAttention":
        """Validate ``(d, s, alpha, dps)`` and rescale the weights (``max c = 1``)."""
        d, s = check_d_s(d, s)
        dps = check_dps(dps)
        with working(dps):
            a = mpf_vector(alpha, d, "alpha")
            top = max(a)
            c = [mpmath.exp(x - top) for x in a]
        return cls(d, s, dps, c)

    @classmethod
    def from_weights(cls, d: int, s: int, c: list, dps: int) -> "GeneralAttention":
        """From positive weights ``c`` (mpf, any common scale; no validation: internal use)."""
        return cls(d, s, dps, c)

    def node(self, t, order: int, slices: bool) -> NodeTerms:
        """The mpmath :class:`.kernels.NodeTerms` at ``t`` (derivatives up to ``order``, the
        negative slice when ``slices``), scaled by ``1/t`` so that the kernels, written in
        ``du = dt/t``, give integrands in ``t`` (:func:`.backends.mp_node`).  The exponentials are computed once per node and
        precision and reused by every later pass on this attention (all passes split the
        integral at the same break points, so they share their nodes); the cache stops growing
        at ``NODE_CACHE_LIMIT`` node-symbols (about 2 mpf each)."""
        key = (t._mpf_, mpmath.mp.prec)
        ex = self._nodes.get(key)
        if ex is None:
            ex = mp_exponentials(t, self)
            if (len(self._nodes) + 1) * self.d <= NODE_CACHE_LIMIT:
                self._nodes[key] = ex
        return mp_node(ex, self, order, slices, scale=1 / t)

    def rounding_rel(self) -> mpmath.mpf:
        """Relative allowance added to every error estimate: ``2^-prec 10^4 (1 + max|ln t_k|)``.

        The quadrature's estimate sees only the discretisation.  Rounding adds: each node
        ``t = e^u`` carries a relative error ~ |u| 2^-prec, which ``e^(-t c)`` amplifies by
        ``t c`` (<= ~100 where anything is left), plus a few dozen operations per term.  In a
        sweep (d = 2..20, logit spreads 1..400, dps 15 and 25, against runs at 35 more digits)
        the actual errors stayed below ``2^-prec 2000 (1 + max|u|)``, and the extrapolated
        discretisation estimate alone fell short by up to 1.7x (values were still 4 digits better
        than asked); this allowance covers both with a margin and stays far below ``rel_tol``.
        Call inside ``working(self.dps)``.
        """
        logs = [abs(mpmath.log(pt)) for pt in self.points[1:]]
        return mpmath.mpf(2) ** (-mpmath.mp.prec) * 10**4 * (1 + max(logs))

    def tail_values(self, T, order: int) -> tuple[list, list, list]:
        """Bounds valid for all t >= T: ``(x_l(T), Ghat, Dhat)`` (module docstring).

        ``Ghat[j] = G^(j)(z(T))`` bounds ``G^(j)(z), G^(j)(z0)`` and ``Delta_j``; ``Dhat[j] =
        min(Ghat[j], j! p q^(j-1) (j+1) q x_s(T) / (d p^(2j+2)))`` bounds ``Delta_j`` (from the
        gap formula with ``p <= small <= big <= 1``; it vanishes with ``q``, as ``Delta_j`` does
        at d = 2).
        """
        xs, oms = zip(*(exp_pair(T * cl) for cl in self.c))
        z = mp_sum(xs) * self.inv_d
        small = mp_sum(oms) * self.inv_d + self.p * z
        gh, _, _ = pgf_terms(MP, small, None, None, self.p, self.q, order)
        diff = self.q * xs[self.s] * self.inv_d
        at_p, _, _ = pgf_terms(MP, self.p, None, None, self.p, self.q, order)
        dh = [None] + [min(gh[j], at_p[j] * self.p ** (j + 1) * (j + 1) * diff
                           / self.p ** (2 * j + 2)) for j in range(1, order + 1)]
        return list(xs), gh, dh


def _break_points(att: GeneralAttention) -> list:
    """Break points: ``scales`` (p/c_max, p/c_mean, 1/c_max, 1/c_mean, 1/c_min), every symbol's
    own scale 1/c_l (merged by :func:`verify.engine.formulas.merge_scales`), and a first cut for
    the tail.

    Between consecutive scales every component grows like a power of t (the symbols not yet
    decayed have x_l ~ 1) and its mass piles up at the next scale, so widely spread weights need
    all the 1/c_l as break points (halves the nodes at logit spreads of ~100).  The cut is where
    every tail bound of this package has fallen by ``rel_tol * p^3 / d`` below its value at
    ``t ~ 1/c_min``; :func:`verify.engine.quadrature.integrate` doubles it if needed.
    """
    base = scales(att.c, att.p)[1:-1]
    points = [mpmath.mpf(0), *merge_scales(set(base) | {1 / cl for cl in att.c})]
    c_min = min(att.c)
    cut = (-mpmath.log(att.rel_tol) - 3 * mpmath.log(att.p) + mpmath.log(att.dd) + 10) / c_min
    if cut > points[-1]:
        points.append(cut)
    return points
