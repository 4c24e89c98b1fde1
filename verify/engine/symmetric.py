"""Population loss and gradient at background-symmetric parameters (the four scalars of A.7).

The expressions come from :mod:`verify.engine.symbolic` (SymPy, derived from the model; their code
through the cache of :mod:`verify.engine.generated`) and the
moments from :mod:`verify.engine.expectations`; nothing is typed twice.  The moment family is
chosen so that no digits cancel: ``mu`` (moments of gamma) for a gap ``alpha_s - alpha_j <= 0``,
``nu`` (moments of 1 - gamma) for a positive gap, where gamma -> 1 on positive words and the loss
is a small difference in the ``mu`` family.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import mpmath

from .expectations import GUARD_DIGITS, symmetric_moments
from .formulas import phase3_system, solve2
from .generated import GRAD_KEYS, Family, order, reduction


@dataclass(frozen=True)
class SymmetricPoint:
    """Background-symmetric parameters: alpha = alpha_s e_s + alpha_j 1_{-s}, likewise beta."""

    d: int
    alpha_s: object = 0
    alpha_j: object = 0
    beta_s: object = 0
    beta_j: object = 0

    def __post_init__(self) -> None:
        if int(self.d) != self.d or self.d < 2:
            raise ValueError(f"d must be an integer >= 2, got {self.d}")

    def gap(self):
        """Attention gap alpha_s - alpha_j (the model depends on alpha only through it), at the
        current mpmath precision (inputs given as strings are read at that precision)."""
        return mpmath.mpf(self.alpha_s) - mpmath.mpf(self.alpha_j)


@dataclass(frozen=True)
class Evaluation:
    """Population loss and per-coordinate gradient at a symmetric point.

    ``error`` bounds the absolute error of each output coming from the quadrature's error
    estimates of the moments (the expressions are exact polynomials in the moments).
    """

    point: SymmetricPoint
    dps: int
    family: Family
    loss: mpmath.mpf
    grad: dict
    error: dict
    moments: tuple


@lru_cache(maxsize=None)
def _numeric(family: Family):
    return reduction(family)


def family_for(gap) -> Family:
    """The moment family that keeps every digit at this gap."""
    return "nu" if mpmath.mpf(gap) > 0 else "mu"


@dataclass(frozen=True)
class AttentionState:
    """The moments of gamma_s at one attention gap: everything the loss needs from the attention.

    At fixed attention the loss is a quadratic in (beta_s, beta_j), so one state serves any number
    of output weights (Phase 3, the optimum, a scan over beta).
    """

    d: int
    gap: mpmath.mpf
    dps: int
    family: Family
    moments: tuple
    errors: tuple


@lru_cache(maxsize=64)
def attention_state(d: int, gap, dps: int = 30) -> AttentionState:
    """Moments at ``gap = alpha_s - alpha_j`` in the family that keeps every digit."""
    family = family_for(gap)
    mom = symmetric_moments(d, gap, family, order(family), dps)
    return AttentionState(d, gap, dps, family, mom.values, mom.errors)


def evaluate_at(state: AttentionState, beta_s, beta_j) -> Evaluation:
    """Population loss L_s and its gradient (dL/dalpha_s, dL/dalpha_j for one background
    coordinate, dL/dbeta_s, dL/dbeta_j for one background coordinate) at the state's attention
    and output weights (beta_s, beta_j)."""
    fn = _numeric(state.family)
    used = len(state.moments)
    with mpmath.workdps(state.dps + GUARD_DIGITS):
        args = (mpmath.mpf(state.d), mpmath.mpf(beta_s), mpmath.mpf(beta_j))
        padded = list(state.moments) + [mpmath.mpf(0)] * (4 - used)
        base = fn(*args, *padded)
        error = [mpmath.mpf(0)] * len(base)
        for r in range(used):  # outputs are affine in each moment: propagate exactly
            shifted = list(padded)
            shifted[r] += 1
            slope = fn(*args, *shifted)
            error = [e + abs(s - b) * state.errors[r] for e, s, b in zip(error, slope, base)]
    keys = ("loss", *GRAD_KEYS)
    with mpmath.workdps(state.dps + GUARD_DIGITS):
        point = SymmetricPoint(state.d, state.gap, 0, beta_s, beta_j)
    return Evaluation(
        point=point,
        dps=state.dps,
        family=state.family,
        loss=base[0],
        grad=dict(zip(GRAD_KEYS, base[1:])),
        error=dict(zip(keys, error)),
        moments=state.moments,
    )


def evaluate(point: SymmetricPoint, dps: int = 30) -> Evaluation:
    """:func:`evaluate_at` for a point given by its four scalars."""
    with mpmath.workdps(dps + GUARD_DIGITS):
        gap = point.gap()
    ev = evaluate_at(attention_state(point.d, gap, dps), point.beta_s, point.beta_j)
    return Evaluation(point, ev.dps, ev.family, ev.loss, ev.grad, ev.error, ev.moments)


def output_gradient_system(state: AttentionState) -> tuple[mpmath.matrix, mpmath.matrix]:
    """At fixed attention the output gradient is affine: (dL/dbeta_s, dL/dbeta_j) = A b - c for
    b = (beta_s, beta_j), per coordinate.  Returns (A, c) as mpmath matrices, read off the
    reduction by :func:`verify.engine.formulas.phase3_system`."""

    def gradient(bs, bj) -> tuple:
        grad = evaluate_at(state, bs, bj).grad
        return grad["beta_s"], grad["beta_j"]

    with mpmath.workdps(state.dps + GUARD_DIGITS):
        A, c = phase3_system(gradient)
        return mpmath.matrix([list(row) for row in A]), mpmath.matrix(list(c))


def best_output(state: AttentionState) -> Evaluation:
    """L_s and its gradient at the minimiser of the convex quadratic beta -> L_s(alpha, beta) on
    the background-symmetric subspace: b* = A^-1 c (:func:`output_gradient_system`,
    :func:`verify.engine.formulas.solve2`)."""
    A, c = output_gradient_system(state)
    with mpmath.workdps(state.dps + GUARD_DIGITS):
        b = solve2(A.tolist(), (c[0], c[1]))
    return evaluate_at(state, b[0], b[1])
