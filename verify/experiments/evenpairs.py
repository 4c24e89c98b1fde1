"""Even pairs (Section 5, task (iv); Huang, Liang & Yang 2025).

Binary alphabet {a, b}; a string is positive iff "ab" and "ba" occur an even number of times in
total, i.e. iff its first and last symbols agree.  Training and test set: all 2046 strings of
length 1..10 (the paper).

Model (Huang et al.'s one-layer softmax attention read out at the last position): each position
is embedded as x_l = (e_token, e_position) in R^(2 + L_max) (token and position embeddings
orthogonal), logits s_l = x_l^T W x_L, attention gamma = softmax over the string's positions,
output T(X) = u^T sum_l gamma_l x_l.  Attention parameter W (merged key-query), output u.
Logistic loss l = log(1 + exp(-y T)), weighted so that every length has the same total weight
(Huang et al. average per length).  Gradients:

    dL/du = sum_n g_n z_n,   z_n = sum_l gamma_nl x_nl,   g_n = -w_n y_n sigmoid(-y_n T_n),
    dL/dW = sum_n g_n (sum_l gamma_nl (u.x_nl - T_n) x_nl) x_nL^T.

Gaps (ours): output gap = u on the first position minus its mean on the other positions;
attention gap = mean over strings of length >= 2 of y (s_1 - mean_{l>1} s_l): how much more the
last position looks at the first one on positive strings than on negative ones.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .base import Params, Problem, gaussian, masked_softmax


@dataclass(frozen=True)
class Strings:
    X: np.ndarray  # (N, L, D) embeddings, zero rows past the end
    mask: np.ndarray  # (N, L) bool
    last: np.ndarray  # (N, D) embedding of the last position
    y: np.ndarray  # (N,) in {-1, +1}
    weight: np.ndarray  # (N,) loss weights, summing to 1


def all_strings(max_len: int) -> Strings:
    """Every binary string of length 1..max_len, embedded (2^(max_len+1) - 2 strings)."""
    D = 2 + max_len
    rows = [(np.array(bits, dtype=np.int64)) for m in range(1, max_len + 1)
            for bits in np.ndindex(*(2,) * m)]
    N = len(rows)
    X = np.zeros((N, max_len, D))
    mask = np.zeros((N, max_len), dtype=bool)
    y = np.empty(N)
    lengths = np.empty(N, dtype=np.int64)
    for n, w in enumerate(rows):
        m = w.shape[0]
        X[n, np.arange(m), w] = 1.0
        X[n, np.arange(m), 2 + np.arange(m)] = 1.0
        mask[n, :m] = True
        y[n] = 1.0 if w[0] == w[-1] else -1.0
        lengths[n] = m
    per_length = np.bincount(lengths)[lengths]
    weight = 1.0 / (max_len * per_length)
    last = X[np.arange(N), lengths - 1]
    return Strings(X, mask, last, y, weight)


@dataclass(frozen=True)
class EvenPairsTask:
    name: str = "even_pairs"
    metric: str = "accuracy"

    @property
    def groups(self) -> Mapping[str, tuple[str, ...]]:
        return {"attention": ("W",), "output": ("u",)}

    def size(self, cfg: Mapping) -> int:
        return int(cfg["max_len"])

    def sample(self, cfg: Mapping, rngs) -> Problem:
        data = all_strings(int(cfg["max_len"]))  # deterministic: train = test (the paper)
        return Problem(data, data, {"max_len": int(cfg["max_len"])})

    def init(self, problem: Problem, rng: np.random.Generator, zero: bool, cfg: Mapping) -> Params:
        D = problem.train.X.shape[2]
        std = float(cfg["init_std"])
        return {"W": gaussian(rng, (D, D), std, zero), "u": gaussian(rng, D, std, zero)}

    def _forward(self, params: Params, data: Strings):
        q = np.einsum("ne,de->nd", data.last, params["W"])  # (N, D): W x_L
        s = np.einsum("nld,nd->nl", data.X, q)
        gamma = masked_softmax(s, data.mask)
        z = np.einsum("nl,nld->nd", gamma, data.X)
        return s, gamma, z, np.einsum("nd,d->n", z, params["u"])

    def loss(self, params: Params, data: Strings) -> float:
        T = self._forward(params, data)[3]
        return float(data.weight @ np.logaddexp(0.0, -data.y * T))

    def readout(self, params: Params, data: Strings) -> np.ndarray:
        """z = sum_l gamma_l x_l: what an output-only phase keeps fixed."""
        return self._forward(params, data)[2]

    def _output(self, params: Params, data: Strings, z: np.ndarray):
        T = np.einsum("nd,d->n", z, params["u"])
        margin = data.y * T
        loss = float(data.weight @ np.logaddexp(0.0, -margin))
        g = -data.weight * data.y * np.exp(-np.logaddexp(0.0, margin))  # dl/dT
        return loss, g, T

    def output_loss_grad(self, params: Params, data: Strings, z: np.ndarray) -> tuple[float, Params]:
        loss, g, _ = self._output(params, data, z)
        return loss, {"u": np.einsum("n,nd->d", g, z)}

    def loss_grad(self, params: Params, data: Strings) -> tuple[float, Params]:
        _, gamma, z, _ = self._forward(params, data)
        loss, g, T = self._output(params, data, z)
        value = np.einsum("nld,d->nl", data.X, params["u"])  # u . x_l
        ds = g[:, None] * gamma * (value - T[:, None])
        r = np.einsum("nl,nld->nd", ds, data.X)
        return loss, {"W": np.einsum("nd,ne->de", r, data.last), "u": np.einsum("n,nd->d", g, z)}

    def evaluate(self, params: Params, data: Strings) -> float:
        T = self._forward(params, data)[3]
        return float(np.mean(np.where(T > 0, 1.0, -1.0) == data.y))

    def ideal_features(self, problem: Problem) -> tuple[np.ndarray, np.ndarray, float]:
        """The output's features at the ideal attention (the last position reads the first:
        z = x_1), the loss weights, c_loss = 1/4 (the logistic loss's largest curvature)."""
        data = problem.train
        return data.X[:, 0, :], data.weight, 0.25

    def gaps(self, params: Params, problem: Problem) -> tuple[float, float]:
        data = problem.train
        u_pos = params["u"][2:]
        out_gap = float(u_pos[0] - u_pos[1:].mean())
        s = self._forward(params, data)[0]
        long = data.mask[:, 1]
        rest = np.where(data.mask[:, 1:], s[:, 1:], 0.0).sum(axis=1) / np.maximum(
            data.mask[:, 1:].sum(axis=1), 1)
        att_gap = float(np.mean((data.y * (s[:, 0] - rest))[long]))
        return out_gap, att_gap


EVEN_PAIRS = EvenPairsTask()
