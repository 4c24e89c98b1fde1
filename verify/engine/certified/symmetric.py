"""Loss, gradient and the three-phase plan at background-symmetric parameters, on Arb balls.

The same SymPy reduction as :mod:`verify.engine.symmetric` (exact rational coefficients, see
:func:`verify.engine.symbolic.form_source`) evaluated on the ball moments of
:mod:`verify.engine.certified.moments`; Phase 1 and Phase 2 from their closed forms
(:func:`verify.engine.symbolic.three_phase_closed_forms`), Phase 3 from the 2x2 quadratic:

* exactly, for an integer T: ``b(T) = b* + (I - eta3 A)^T (b' - b*)`` by repeated squaring;
* as a bound for every ``T >= T_low`` (proofs/monotonicity.md): ``A`` is self-adjoint and positive
  in the metric ``diag(1, d-1)``, so with ``rho = max |1 - eta3 lambda(A)|``,
  ``L(b(T)) - L* <= rho^(2T) (L(b') - L*)``, and for ``rho <= 1`` more steps never raise the loss.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from flint import arb

from ..formulas import phase3_system, solve2
from ..symbolic import (GRAD_KEYS, Family, lambdify_gap_rate, lambdify_gap_rate_parts,
                        lambdify_phase1_rates, lambdify_phases, lambdify_reduction,
                        reduce_symmetric)
from .balls import ARB, precision
from .dual import dilog_q
from .moments import symmetric_ball_moments

NAMESPACE = {"mpf": ARB.number, "log": lambda x: x.log(), "sqrt": lambda x: x.sqrt(),
             "polylog": lambda s, z: z.polylog(s),
             "dilog_q": dilog_q}
KEYS = ("loss", *GRAD_KEYS)


@lru_cache(maxsize=None)
def arb_reduction(family: Family):
    """The four-scalar reduction of ``family`` (loss and gradient) as a function of Arb balls."""
    return lambdify_reduction(family, NAMESPACE)


@lru_cache(maxsize=None)
def arb_phases():
    """Phases 1-2 closed forms (proofs/model.md, section 3) as a function of Arb balls."""
    return lambdify_phases(NAMESPACE)


@lru_cache(maxsize=None)
def arb_gap_rate():
    """d^2 (grad2_alpha_s - grad2_alpha_j)/eta1 in closed form as a function of Arb balls."""
    return lambdify_gap_rate(NAMESPACE)


@lru_cache(maxsize=None)
def arb_gap_rate_parts():
    """[r0, sqrt(d) r1] with the gap rate r0 + eta1 r1 (symbolic.gap_rate_parts) on Arb balls."""
    return lambdify_gap_rate_parts(NAMESPACE)


@lru_cache(maxsize=None)
def arb_phase1_rates():
    """[beta'_s/eta1, beta'_j/eta1] (Phase 1 is linear in eta1) on Arb balls."""
    return lambdify_phase1_rates(NAMESPACE)


@dataclass(frozen=True)
class BallState:
    """Ball moments of gamma_s at one attention gap (a ball: a whole range of gaps)."""

    d: arb
    gap: arb
    family: Family
    moments: tuple
    bits: int


def family_for(gap: arb) -> Family:
    """``nu`` when the gap is proved positive, else ``mu`` (as the mpmath route)."""
    return "nu" if gap > 0 else "mu"


def ball_state(d, gap, bits: int, eval_limit: int | None = None) -> BallState:
    """Moments at ``gap`` (number or ball) for ``d`` (number or ball)."""
    with precision(bits):
        dd, g = ARB.number(d), ARB.number(gap)
        family = family_for(g)
        order = reduce_symmetric(family).order
        mom = symmetric_ball_moments(dd, g, family, order, bits, eval_limit)
    return BallState(dd, g, family, mom.values, bits)


def ball_evaluate(state: BallState, beta_s, beta_j) -> dict:
    """{loss, dL/dalpha_s, dL/dalpha_j, dL/dbeta_s, dL/dbeta_j} (per coordinate) as balls."""
    with precision(state.bits):
        padded = list(state.moments) + [arb(0)] * (4 - len(state.moments))
        out = arb_reduction(state.family)(state.d, ARB.number(beta_s), ARB.number(beta_j), *padded)
    return dict(zip(KEYS, out))


def delta(state: BallState) -> arb:
    """delta = 1 - E[gamma_s | y = 1] = 1 - 2 mu_1 = 2 nu_1 (A.7; P(y = 1) = 1/2)."""
    with precision(state.bits):
        return 2 * state.moments[0] if state.family == "nu" else 1 - 2 * state.moments[0]


def output_system(state: BallState) -> tuple[tuple, tuple]:
    """(A, c) with per-coordinate output gradient ``A b - c``
    (:func:`verify.engine.formulas.phase3_system` on the ball reduction)."""

    def gradient(bs, bj) -> tuple:
        g = ball_evaluate(state, bs, bj)
        return g["beta_s"], g["beta_j"]

    with precision(state.bits):
        return phase3_system(gradient)


def contraction(A: tuple, eta3) -> arb:
    """A ball whose upper end bounds ``rho = max |1 - eta3 lambda|`` over A's eigenvalues.

    The eigenvalues are real (A is self-adjoint in the metric diag(1, d-1): a12 = (d-1) a21), so
    they lie in ``tr/2 -+ sqrt(disc)`` with ``disc = ((a11 - a22)/2)^2 + a12 a21 >= 0``; the
    square root is taken of disc's upper end (a ball straddling 0 has no real root)."""
    half = (A[0][0] + A[1][1]) / 2
    disc = ((A[0][0] - A[1][1]) / 2) ** 2 + A[0][1] * A[1][0]
    root = arb(disc.upper()).sqrt() if disc.upper() > 0 else arb(0)
    lo, hi = half - root, half + root
    return arb(0).union(1 - eta3 * lo).union(eta3 * hi - 1)  # max |1 - eta3 l| on [lo, hi]


@dataclass(frozen=True)
class BallPlan:
    """The three-phase plan with every quantity a ball (per-coordinate values)."""

    d: arb
    eta1: arb
    eta2: arb
    eta3: arb
    beta1: tuple
    alpha: tuple
    state: BallState  # moments at alpha'
    A: tuple
    c: tuple
    beta_star: tuple
    loss_start: arb  # L(alpha', beta')
    loss_star: arb  # L(alpha', beta*)
    rho: arb  # contraction factor of Phase 3 (its upper end is the bound)

    @property
    def gap(self) -> arb:
        return self.alpha[0] - self.alpha[1]

    def loss_bound(self, T_low) -> arb:
        """A ball whose upper end bounds L(alpha', beta(T)) for every T >= T_low (a number or a
        ball); needs rho <= 1 (else returns an infinite ball)."""
        with precision(self.state.bits):
            rho = arb(self.rho.upper())
            if not rho <= 1:
                return arb("inf")
            factor = (2 * ARB.number(T_low).lower() * rho.log()).exp() if rho > 0 else arb(0)
            gap = arb(0).union(self.loss_start - self.loss_star)
            return self.loss_star + factor * gap

    def loss_after(self, T: int) -> dict:
        """Loss and gradient after exactly T Phase-3 steps (balls)."""
        with precision(self.state.bits):
            step = ((1 - self.eta3 * self.A[0][0], -self.eta3 * self.A[0][1]),
                    (-self.eta3 * self.A[1][0], 1 - self.eta3 * self.A[1][1]))
            power = _power(step, int(T))
            e = (self.beta1[0] - self.beta_star[0], self.beta1[1] - self.beta_star[1])
            b = tuple(self.beta_star[i] + power[i][0] * e[0] + power[i][1] * e[1] for i in range(2))
        return ball_evaluate(self.state, *b)


def _mul(x: tuple, y: tuple) -> tuple:
    return tuple(tuple(x[i][0] * y[0][j] + x[i][1] * y[1][j] for j in range(2)) for i in range(2))


def _power(m: tuple, n: int) -> tuple:
    result = ((arb(1), arb(0)), (arb(0), arb(1)))
    while n:
        if n & 1:
            result = _mul(result, m)
        m = _mul(m, m)
        n >>= 1
    return result


def phase_closed_forms(d, eta1, bits: int) -> tuple:
    """(beta'_s, beta'_j, grad2_alpha_s, grad2_alpha_j) from the closed forms, as balls."""
    with precision(bits):
        return tuple(arb_phases()(ARB.number(d), ARB.number(eta1)))


def ball_three_phase(d, eta1, eta2, eta3, bits: int, eval_limit: int | None = None) -> BallPlan:
    """Phases 1 and 2 in closed form, Phase 3's quadratic at alpha' (inputs numbers or balls)."""
    with precision(bits):
        dd, eta1, eta2, eta3 = (ARB.number(x) for x in (d, eta1, eta2, eta3))
        b1s, b1j, g2s, g2j = phase_closed_forms(dd, eta1, bits)
        alpha = (-eta2 * g2s, -eta2 * g2j)
    state = ball_state(dd, alpha[0] - alpha[1], bits, eval_limit)
    A, c = output_system(state)
    with precision(bits):
        star = solve2(A, c)
    start = ball_evaluate(state, b1s, b1j)["loss"]
    best = ball_evaluate(state, *star)["loss"]
    with precision(bits):
        rho = contraction(A, eta3)
    return BallPlan(dd, eta1, eta2, eta3, (b1s, b1j), alpha, state, A, c, star, start, best, rho)
