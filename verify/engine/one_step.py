"""One attention step from alpha = 0, then the best output, on the float64 path (Theorem 1).

For an output beta0 and a step size eta, the attention after one gradient step on target s is
alpha'_s = -eta grad_alpha L_s(0, beta0) (logit gaps capped, :mod:`verify.engine.logits`), and
the best output after it gives min_beta L_s(alpha'_s, beta).  :class:`FloorSearch` computes the
gradients once per beta0 and the minima for every target at one or many etas in one batch of the
float engine (:func:`verify.engine.general.target_floors_batch`), with counters for the report.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from . import general
from .logits import compress


def target_classes(beta0: np.ndarray) -> list[int]:
    """One representative target per value of beta0: a transposition of two symbols with equal
    beta0 maps the problem for one to the other, so their min_beta L_s are equal."""
    seen, reps = set(), []
    for s, v in enumerate(beta0):
        if float(v) not in seen:
            seen.add(float(v))
            reps.append(s)
    return reps


class FloorSearch:
    """min_beta L_s(alpha'_s, beta) for the targets of one beta0 and one eta on the float64 path,
    with counters (the max over s, F(beta0, eta), is taken by the caller)."""

    def __init__(self, d: int, h: float = general.FLOAT_STEP):
        self.d = d
        self.h = h  # the rule's step in ln t for the minima (the gradients at 0 use FLOAT_STEP)
        self.solves = 0
        self.gradients = 0
        self.evaluations = 0  # F evaluations (one beta0, one eta)
        self._grid0 = None  # the float grid at alpha = 0 (target 0)

    def grads(self, beta0: np.ndarray, targets: list[int]) -> dict:
        """{s: grad_alpha L_s(0, beta0)}.  At alpha = 0 every symbol has the same weight, so the
        float grid (nodes, exponentials, pgf terms) is the same for every target and every
        beta0: built once, its target set per call (the same numbers ``evaluate_float`` forms)."""
        if self._grid0 is None:
            self._grid0 = general.float_attention_grid(self.d, 0, np.zeros(self.d))
        out = {}
        for s in targets:
            grid = dataclasses.replace(self._grid0, s=s)
            out[s] = general.evaluate_grid(grid, np.asarray(beta0, dtype=np.float64),
                                           with_errors=False).grad_alpha
            self.gradients += 1
        return out

    def per_target(self, grads: dict, eta: float) -> dict:
        """{s: min_beta L_s(alpha'_s, beta)} at one eta (:meth:`per_eta` for one eta)."""
        return self.per_eta(grads, [eta])[0]

    def per_eta(self, grads: dict, etas) -> list[dict]:
        """[{s: min_beta L_s(alpha'_s, beta)} for each eta]: every (eta, target) pair in one
        batch of the float engine."""
        pairs = [(float(eta), s) for eta in etas for s in grads]
        alphas = [compress(-eta * grads[s]) for eta, s in pairs]
        values, _ = general.target_floors_batch(self.d, alphas, [s for _, s in pairs], self.h)
        self.solves += len(pairs)
        self.evaluations += len(etas)
        out = [{} for _ in etas]
        for k, (_, s) in enumerate(pairs):
            out[k // len(grads)][s] = float(values[k])
        return out
