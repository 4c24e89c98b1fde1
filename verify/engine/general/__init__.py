"""Population expectations of models (1) and (2) at ARBITRARY attention (proofs/model.md, sections 1, 2, 4).

The package, one job per module:

* :mod:`.attention` -- validation, :class:`GeneralAttention` (one attention vector validated
  once, with its weights, tolerance and break points) and the proven tail bounds;
* :mod:`.backends` -- the number types: mpmath (one node at a time, adaptive tanh-sinh) and
  float64 (:class:`FloatGrid`, the trapezoid rule in ``u = ln t``, all nodes at once);
* :mod:`.kernels` -- the integrands, written once as plain arithmetic over either number type;
* :mod:`.moments` -- E[gamma], E[gamma 1{y=+1}], E[gamma gamma^T];
* :mod:`.loss` -- the loss and its full gradient (slice form, no cancellation);
* :mod:`.heads` -- H heads (model (2)), cross-head blocks;
* :mod:`.optimum` -- the infimum over the output weights (linear solves).

New code uses the state-passing API (``att = GeneralAttention.from_alpha(d, s, alpha, dps)``,
then :func:`attention_moments`, :func:`evaluate_attention`, :func:`loss_estimate` (an
:class:`verify.engine.estimate.Estimate`), :func:`attention_optimum`); the functions of the
former single module (``moments(d, s, alpha, dps)``, ``loss(...) -> (value, error)``, ...) are
kept with their signatures and return shapes as one-call forms for notebooks and interactive
use; the package's own modules use the state-passing API (``tests/test_shape.py`` checks it).

Errors.  mpmath values carry the tanh-sinh rule's heuristic extrapolation + a proven tail bound
+ a rounding allowance: ``ErrorKind.ESTIMATED`` overall; float64 values carry the step-halving
difference ``|I_h - I_2h|`` + a rounding allowance: ``ESTIMATED``.  Values are returned at the
working precision ``dps + GUARD_DIGITS`` (:mod:`verify.engine.precision`).

>>> att = GeneralAttention.from_alpha(3, 0, ["0.5", "0", "-0.5"], dps=15)
>>> e = loss_estimate(att, [1, 1, 1])
>>> e.kind.value, float(e.value) == float(loss(3, 0, ["0.5", "0", "-0.5"], [1, 1, 1], 15)[0])
('estimated', True)
"""
from __future__ import annotations

from typing import Sequence

from .attention import TAIL_SAFETY, GeneralAttention
from .backends import FLOAT_STEP, FloatGrid, float_grid
from .heads import (FLOAT_THETA_STEP, FloatHeadMoments, HeadMoments, head_moments,
                    head_moments_float, heads_loss)
from .loss import (Evaluation, FloatEvaluation, GradientTerms, attention_gradient_terms,
                   evaluate_attention, evaluate_float, evaluate_grid, loss_estimate, loss_float)
from .moments import (FloatMoments, GeneralMoments, attention_moments, float_attention_grid,
                      moments, moments_float, second_diagonal_float, target_moments_batch,
                      target_moments_float)
from .optimum import (OutputOptimum, attention_optimum, best_output, best_output_float,
                      best_output_heads, best_output_heads_float, solve_output,
                      target_floors_batch, target_floors_float, target_system_float)

__all__ = [
    # state-passing API
    "GeneralAttention", "attention_moments", "evaluate_attention", "loss_estimate",
    "attention_gradient_terms", "attention_optimum", "FloatGrid", "float_attention_grid",
    "target_system_float", "target_floors_float", "FloatHeadMoments", "target_moments_batch",
    "target_floors_batch", "evaluate_grid", "loss_float",
    # the former module's names
    "GeneralMoments", "Evaluation", "GradientTerms", "OutputOptimum", "moments", "evaluate",
    "loss_and_grad", "loss", "gradient_terms", "solve_output", "best_output", "FloatMoments",
    "FloatEvaluation", "moments_float", "loss_and_grad_float", "evaluate_float",
    "best_output_float", "target_moments_float", "second_diagonal_float", "float_grid",
    "HeadMoments", "head_moments", "heads_loss", "best_output_heads", "head_moments_float",
    "best_output_heads_float", "FLOAT_STEP", "FLOAT_THETA_STEP", "TAIL_SAFETY",
]


def evaluate(d: int, s: int, alpha: Sequence, beta: Sequence, dps: int = 30) -> Evaluation:
    """Population loss L_s(alpha, beta) of model (1), its full gradient and error estimates
    (:func:`evaluate_attention`)."""
    return evaluate_attention(GeneralAttention.from_alpha(d, s, alpha, dps), beta)


def loss_and_grad(d: int, s: int, alpha: Sequence, beta: Sequence, dps: int = 30) -> tuple:
    """(loss, grad_alpha, grad_beta) of model (1) at (alpha, beta); see :func:`evaluate`."""
    ev = evaluate(d, s, alpha, beta, dps)
    return ev.loss, ev.grad_alpha, ev.grad_beta


def loss(d: int, s: int, alpha: Sequence, beta: Sequence, dps: int = 30) -> tuple:
    """(L_s(alpha, beta), error estimate) alone (:func:`loss_estimate` as a pair)."""
    e = loss_estimate(GeneralAttention.from_alpha(d, s, alpha, dps), beta)
    return e.value, e.error


def gradient_terms(d: int, s: int, alpha: Sequence, beta: Sequence, dps: int = 30) -> GradientTerms:
    """:func:`attention_gradient_terms` at ``GeneralAttention.from_alpha(d, s, alpha, dps)``."""
    return attention_gradient_terms(GeneralAttention.from_alpha(d, s, alpha, dps), beta)


def loss_and_grad_float(d: int, s: int, alpha, beta, h: float = FLOAT_STEP) -> tuple:
    """(loss, grad_alpha, grad_beta) in float64; see :func:`evaluate_float`."""
    ev = evaluate_float(d, s, alpha, beta, h, with_errors=False)
    return ev.loss, ev.grad_alpha, ev.grad_beta
