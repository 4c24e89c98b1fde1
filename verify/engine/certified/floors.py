"""Floors as balls: the minimum over the output weights of the quadratic loss at fixed attention.

At fixed attention (proofs/model.md, section 4; :mod:`verify.engine.general.optimum`)

    L_s(b) = 1/2 b' Q b - 2 b' m + 1,   Q = E[Gamma Gamma^T],  m = E[Gamma 1{y=+1}],

so (proofs/certified-general.md):

* unconstrained: ``min_b L_s = 1 - 2 m' Q^-1 m`` exactly; :func:`unconstrained_floor` encloses it
  with an ``arb_mat`` solve (the ball contains the value for every matrix in the ball of Q);
* on the ball ``||b|| <= R`` (Proposition 4): for every ``mu >= 0`` weak duality gives
  ``min_{||b|| <= R} L_s >= 1 - mu R^2/2 - 2 m' (Q + mu I)^-1 m`` (:func:`dual_floor`; equal to the
  constrained minimum at the optimal multiplier, so the float solver's ``mu`` gives a tight
  bound), and any feasible ``b`` gives an upper bound ``L_s(b)`` (:func:`loss_at`).
"""
from __future__ import annotations

from typing import Sequence

from flint import arb, arb_mat

from .balls import precision


def _column(values: Sequence) -> arb_mat:
    return arb_mat([[v] for v in values])


def loss_at(Q: arb_mat, m: Sequence, b: Sequence, bits: int) -> arb:
    """L(b) = 1/2 b'Qb - 2 b'm + 1 as a ball (``b`` numbers, read exactly)."""
    with precision(bits):
        bb = _column([arb(x) for x in b])
        quad = (bb.transpose() * Q * bb)[0, 0]
        lin = sum((arb(x) * y for x, y in zip(b, m)), arb(0))
        return quad / 2 - 2 * lin + 1


def unconstrained_floor(Q: arb_mat, m: Sequence, bits: int) -> arb:
    """1 - 2 m' Q^-1 m (an infinite ball if the solve cannot exclude a singular Q)."""
    return dual_floor(Q, m, 0, 0, bits)


def dual_floor(Q: arb_mat, m: Sequence, R2, mu, bits: int) -> arb:
    """1 - mu R2/2 - 2 m'(Q + mu I)^-1 m: a lower bound of min over ||b||^2 <= R2 of L for any
    ``mu >= 0`` (``R2``, ``mu`` numbers or balls; ``mu`` is read exactly)."""
    with precision(bits):
        mu = arb(mu)
        if mu < 0:
            raise ValueError("the multiplier must be >= 0")
        n = Q.nrows()
        A = arb_mat(n, n)
        for i in range(n):
            for j in range(n):
                A[i, j] = Q[i, j] + (mu if i == j else 0)
        col = _column(m)
        try:
            x = A.solve(col)
        except ZeroDivisionError:
            return arb("nan")
        quad = sum((col[i, 0] * x[i, 0] for i in range(n)), arb(0))
        return 1 - mu * arb(R2) / 2 - 2 * quad


def feasible_upper(Q: arb_mat, m: Sequence, b: Sequence, R2, bits: int) -> arb | None:
    """L(b) when ``||b||^2 <= R2`` is proved (an upper bound of the constrained minimum), else the
    loss at b scaled by 1 - 2^-20 times R/||b|| when that is proved feasible, else None."""
    with precision(bits):
        norm2 = sum((arb(x) ** 2 for x in b), arb(0))
        if norm2 <= arb(R2):
            return loss_at(Q, m, b, bits)
        scale = float(((arb(R2) / norm2).sqrt()).lower()) * (1 - 2.0**-20)
        scaled = [x * scale for x in b]
        if sum((arb(x) ** 2 for x in scaled), arb(0)) <= arb(R2):
            return loss_at(Q, m, scaled, bits)
        return None
