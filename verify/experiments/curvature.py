"""The output step by curvature (the protocol's rule, proofs/experiments.md): an output phase of
several GD steps uses eta_O = 1 / lambda_max, with lambda_max the largest eigenvalue of the
Hessian of the training loss in the output parameters at the *ideal attention* (the attention
of the solution, which each task names in its ``ideal_features``).

A task's output is linear in its output parameters, f = <theta, phi>, so the Hessian is
E[l''(f) phi phi^T] (times an identity over classes for the cross-entropy); we bound l'' by its
largest value over all outputs (1 for the squared loss, 1/4 for the logistic loss, 1/2 for the
cross-entropy's softmax block diag(s) - s s^T), so that the step is stable wherever the output
goes:

    lambda_max = c_loss * lambda_max(sum_n w_n phi_n phi_n^T).

Gradient descent on a quadratic is stable below 2 / lambda_max; 1 / lambda_max is the step that
removes the stiffest direction's error in one step.  The features are those of the training set
of one held-out seed (``SEED``, the first tuning seed), so the step is one number per task and
profile, the same for every plan and seed.
"""
from __future__ import annotations

import numpy as np

SEED = 50  # the held-out seed whose training set sets the step (the tuning seeds are 50..54)


def largest_curvature(task, problem) -> float:
    """c_loss * lambda_max(Phi^T diag(w) Phi) at the task's ideal attention (module docstring)."""
    phi, weights, c_loss = task.ideal_features(problem)
    second = phi.T @ (weights[:, None] * phi)
    return float(c_loss * np.linalg.eigvalsh(second)[-1])


def output_step(task, problem) -> float:
    """eta_O = 1 / lambda_max."""
    return 1.0 / largest_curvature(task, problem)
