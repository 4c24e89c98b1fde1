"""Occurrence, OR and AND (Section 5, tasks (i)-(iii)): words from rho as count vectors.

Words are drawn by :meth:`verify.engine.distribution.WordDistribution.sample_counts` (O(d) per word
of any length).  Targets are ``n_targets`` distinct symbols drawn per seed (unknown to the learner):
occurrence = one target; OR = positive if at least one of two targets occurs; AND = both occur.

Models (notes/math.md section 1):

* model (1), one head, fixed bias -1: f = beta . gamma(alpha) - 1, with
  dR/dbeta = mean(e gamma), dR/dalpha_l = mean(e gamma_l (beta_l - (f + 1))) (the formulas of
  :func:`verify.engine.model.empirical_risk_and_grad`, which the tests use as a second route);
* model (2), H heads, bias b (trainable for AND, else -1): f = sum_h B_h . gamma^(h) + b, with
  dR/dB_h = mean(e gamma^(h)), dR/db = mean(e),
  dR/dalpha^(h)_l = mean(e gamma^(h)_l (B_{h,l} - B_h . gamma^(h))),  e = f - y.

Squared loss l = (f - y)^2 / 2; accuracy = P(sign f = y) with f > 0 read as +1.
Gaps (ours): output gap = mean of the output weights on the targets minus their mean on the
other symbols; attention gap the same for the logits.  For H heads, the head with the largest
attention gap gives both (the head that learned to attend).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..engine.distribution import WordDistribution
from .base import Params, Problem, contrast, gaussian


IDEAL = 40.0  # the target's logit at the ideal attention (e^-40: the others' weight vanishes)


@dataclass(frozen=True)
class Words:
    counts: np.ndarray  # (N, d) float64
    y: np.ndarray  # (N,) in {-1, +1}
    log_counts: np.ndarray  # (N, d): ln C, -inf where a symbol is absent


def words(counts: np.ndarray, y: np.ndarray) -> Words:
    with np.errstate(divide="ignore"):
        return Words(counts, y, np.log(counts))


def attention(data: Words, alpha: np.ndarray) -> np.ndarray:
    """gamma_i = C_i e^alpha_i / sum_j C_j e^alpha_j as softmax(ln C + alpha): alpha (d,) gives
    (N, d), alpha (H, d) gives (N, H, d).  The same numbers as
    :func:`verify.engine.model.attention` (the tests compare them), without its input checks,
    which would cost a pass over the data at every step."""
    logits = data.log_counts + alpha if alpha.ndim == 1 else data.log_counts[:, None, :] + alpha
    logits = logits - logits.max(axis=-1, keepdims=True)
    w = np.exp(logits)
    return w / w.sum(axis=-1, keepdims=True)


def _labels(counts: np.ndarray, targets: tuple[int, ...], rule: str) -> np.ndarray:
    present = counts[:, list(targets)] >= 1
    hit = present.all(axis=1) if rule == "all" else present.any(axis=1)
    return np.where(hit, 1.0, -1.0)


@dataclass(frozen=True)
class CountingTask:
    """Occurrence (n_targets = 1, rule any), OR (2, any) or AND (2, all, H heads)."""

    name: str
    n_targets: int
    rule: str  # "any" or "all"
    heads: int  # 1: model (1); H > 1: model (2)
    trainable_bias: bool = False  # model (2)'s bias: trainable (AND), else fixed at -1
    metric: str = "accuracy"

    @property
    def groups(self) -> Mapping[str, tuple[str, ...]]:
        if self.heads == 1:
            return {"attention": ("alpha",), "output": ("beta",)}
        return {"attention": ("alpha",), "output": ("B", "bias") if self.trainable_bias else ("B",)}

    def size(self, cfg: Mapping) -> int:
        return int(cfg["d"])

    def sample(self, cfg: Mapping, rngs: tuple[np.random.Generator, ...]) -> Problem:
        d = int(cfg["d"])
        r_train, r_test, r_task = rngs
        targets = tuple(int(t) for t in r_task.choice(d, size=self.n_targets, replace=False))
        dist = WordDistribution(d)
        data = []
        for rng, n in ((r_train, cfg["train"]), (r_test, cfg["test"])):
            counts = dist.sample_counts(rng, int(n)).astype(np.float64)
            data.append(words(counts, _labels(counts, targets, self.rule)))
        return Problem(data[0], data[1], {"targets": targets, "d": d})

    def init(self, problem: Problem, rng: np.random.Generator, zero: bool, cfg: Mapping) -> Params:
        d, std = problem.info["d"], float(cfg["init_std"])
        if self.heads == 1:
            return {"alpha": gaussian(rng, d, std, zero), "beta": gaussian(rng, d, std, zero)}
        shape = (self.heads, d)
        params = {"alpha": gaussian(rng, shape, std, zero), "B": gaussian(rng, shape, std, zero)}
        if self.trainable_bias:
            params["bias"] = gaussian(rng, (), std, zero)
        return params

    def readout(self, params: Params, data: Words) -> np.ndarray:
        """The attention at the current logits: what an output-only phase keeps fixed."""
        return attention(data, params["alpha"])

    def _predict(self, params: Params, gamma: np.ndarray) -> np.ndarray:
        if self.heads == 1:
            return np.einsum("nd,d->n", gamma, params["beta"]) - 1.0
        bias = float(params["bias"]) if self.trainable_bias else -1.0
        return np.einsum("nhd,hd->n", gamma, params["B"]) + bias

    def loss(self, params: Params, data: Words) -> float:
        err = self._predict(params, self.readout(params, data)) - data.y
        return float(np.mean(0.5 * err * err))

    def output_loss_grad(self, params: Params, data: Words, gamma: np.ndarray) -> tuple[float, Params]:
        """Risk and output gradients at fixed attention gamma."""
        err = self._predict(params, gamma) - data.y
        n, risk = err.shape[0], float(np.mean(0.5 * err * err))
        if self.heads == 1:
            return risk, {"beta": np.einsum("n,nd->d", err, gamma) / n}
        grads = {"B": np.einsum("n,nhd->hd", err, gamma) / n}
        if self.trainable_bias:
            grads["bias"] = np.asarray(err.mean())
        return risk, grads

    def loss_grad(self, params: Params, data: Words) -> tuple[float, Params]:
        gamma = self.readout(params, data)
        risk, grads = self.output_loss_grad(params, data, gamma)
        err = self._predict(params, gamma) - data.y
        n = err.shape[0]
        if self.heads == 1:
            fp1 = err + 1.0 + data.y
            grads["alpha"] = np.einsum("n,nd->d", err, gamma * (params["beta"] - fp1[:, None])) / n
        else:
            head_out = np.einsum("nhd,hd->nh", gamma, params["B"])
            grads["alpha"] = np.einsum("n,nhd->hd", err,
                                       gamma * (params["B"][None] - head_out[:, :, None])) / n
        return risk, grads

    def evaluate(self, params: Params, data: Words) -> float:
        f = self._predict(params, self.readout(params, data))
        return float(np.mean(np.where(f > 0, 1.0, -1.0) == data.y))

    def ideal_features(self, problem: Problem) -> tuple[np.ndarray, np.ndarray, float]:
        """The output's features at the ideal attention (logits IDEAL on the targets, 0 on the
        other symbols; with H heads, head h on target h mod n_targets), weights 1/N, c_loss = 1
        (squared loss); for model (2) the trainable bias adds a constant feature."""
        data, targets = problem.train, problem.info["targets"]
        d = problem.info["d"]
        if self.heads == 1:
            alpha = np.zeros(d)
            alpha[list(targets)] = IDEAL
            phi = attention(data, alpha)
        else:
            alpha = np.zeros((self.heads, d))
            for h in range(self.heads):
                alpha[h, targets[h % len(targets)]] = IDEAL
            phi = attention(data, alpha).reshape(data.y.shape[0], -1)
            if self.trainable_bias:
                phi = np.concatenate([phi, np.ones((phi.shape[0], 1))], axis=1)
        return phi, np.full(phi.shape[0], 1.0 / phi.shape[0]), 1.0

    def gaps(self, params: Params, problem: Problem) -> tuple[float, float]:
        targets = problem.info["targets"]
        if self.heads == 1:
            return contrast(params["beta"], targets), contrast(params["alpha"], targets)
        att = [contrast(a, targets) for a in params["alpha"]]
        h = int(np.argmax(att))
        return contrast(params["B"][h], targets), att[h]


OCCURRENCE = CountingTask("occurrence", 1, "any", 1)
OR = CountingTask("or", 2, "any", 1)
AND = CountingTask("and", 2, "all", 4, trainable_bias=True)
