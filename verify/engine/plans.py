"""The paper's training plans on the exact population loss, at background-symmetric parameters.

Three-phase plan (Section 4), from alpha = beta = 0:

* Phase 1: beta' = -eta1 grad_beta L_s(0, 0);
* Phase 2: alpha' = -eta2 grad_alpha L_s(0, beta');
* Phase 3: T steps beta <- beta - eta3 grad_beta L_s(alpha', beta) from beta'.

By the symmetry lemma (A.7) all iterates are background-symmetric, so four scalars carry the plan.
At fixed attention the output gradient is affine, ``g = A b - c`` (per coordinate), so Phase 3 is
the linear recursion ``b(t) - b* = (I - eta3 A)^t (b(0) - b*)`` with ``b* = A^-1 c``; it is
evaluated by repeated squaring, so T = 10^6 steps cost twenty 2x2 products, not 10^6 gradient
evaluations.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import mpmath

from .precision import working
from .symmetric import Evaluation, attention_state, evaluate_at, output_gradient_system


@dataclass(frozen=True)
class ThreePhase:
    """Every intermediate quantity of the plan (per-coordinate values)."""

    d: int
    eta1: mpmath.mpf
    eta2: mpmath.mpf
    eta3: mpmath.mpf
    T: int
    beta1: tuple  # (beta'_s, beta'_j)
    alpha: tuple  # (alpha'_s, alpha'_j)
    beta3: tuple  # (beta''_s, beta''_j)
    beta_star: tuple  # minimiser of L_s(alpha', .) on the symmetric subspace
    phase3_matrix: mpmath.matrix  # A: gradient = A b - c
    final: Evaluation  # L_s(alpha', beta'') and its gradient
    optimum: Evaluation  # L_s(alpha', beta*)

    @property
    def loss(self) -> mpmath.mpf:
        return self.final.loss

    @property
    def contraction(self) -> mpmath.mpf:
        """max |1 - eta3 lambda| over the eigenvalues of A (= the Hessian on span{e_s, 1_-s})."""
        with mpmath.workdps(40):
            eig = mpmath.eig(self.phase3_matrix)[0]
            return max(abs(1 - self.eta3 * mpmath.re(lam)) for lam in eig)


def output_steps(A: mpmath.matrix, c: mpmath.matrix, start: mpmath.matrix, eta, T: int):
    """T gradient steps b <- b - eta (A b - c) in closed form; returns (b(T), b*)."""
    star = mpmath.lu_solve(A, c)
    step = mpmath.eye(2) - eta * A
    return star + _power(step, T) * (start - star), star


def _power(m: mpmath.matrix, n: int) -> mpmath.matrix:
    result = mpmath.eye(m.rows)
    base = m
    while n:
        if n & 1:
            result = result * base
        base = base * base
        n >>= 1
    return result


def three_phase(d: int, eta1, eta2, eta3, T: int, dps: int = 30) -> ThreePhase:
    """Run the three-phase plan exactly (population gradients) and return every phase."""
    if T < 0 or int(T) != T:
        raise ValueError(f"T must be a non-negative integer, got {T}")
    with working(dps):
        eta1, eta2, eta3 = mpmath.mpf(eta1), mpmath.mpf(eta2), mpmath.mpf(eta3)
    zero = attention_state(d, mpmath.mpf(0), dps)  # Phases 1 and 2 both see alpha = 0
    origin = evaluate_at(zero, 0, 0)
    with working(dps):
        beta1 = (-eta1 * origin.grad["beta_s"], -eta1 * origin.grad["beta_j"])
    phase2 = evaluate_at(zero, *beta1)
    with working(dps):
        alpha = (-eta2 * phase2.grad["alpha_s"], -eta2 * phase2.grad["alpha_j"])
        gap = alpha[0] - alpha[1]
    state = attention_state(d, gap, dps)
    A, c = output_gradient_system(state)
    with working(dps):
        end, star = output_steps(A, c, mpmath.matrix(list(beta1)), eta3, int(T))
        beta3, beta_star = (end[0], end[1]), (star[0], star[1])
    final = evaluate_at(state, *beta3)
    optimum = evaluate_at(state, *beta_star)
    return ThreePhase(d, eta1, eta2, eta3, int(T), beta1, alpha, beta3, beta_star, A, final,
                      optimum)


@lru_cache(maxsize=256)
def run_plan(d: int, eta1, eta2, eta3, T: int, dps: int = 30) -> ThreePhase:
    """:func:`three_phase`, memoised on its arguments (several checks read the same plan)."""
    return three_phase(d, eta1, eta2, eta3, T, dps)
