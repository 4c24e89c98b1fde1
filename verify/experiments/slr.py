"""Single-location regression (Section 5, task (vi); Marion et al. 2025).

Data (Marion et al.'s generator, ``dynamics.py``, ``generate_batch``): unit vectors k*, v* in R^D
with v* orthogonal to k* (drawn per seed); a sequence of L tokens, one of them at a uniform
position J0 drawn from N(sqrt(D/2) k*, token_variance I) (theirs: gamma^2 = 1/2; they put it at
position 0, which a model that treats positions alike cannot tell apart), the others from
N(0, I); target y = <x_J0, v*> + N(0, noise_label^2) (theirs: eps = 0.1).  D = d.

Model ("a one-layer, single-head model with similar parameters to our attention and output",
Section 5; our reading): logits s_l = <x_l, k>, gamma = softmax over the L positions,
prediction f = <sum_l gamma_l x_l, v>.  Attention parameter k, output v.  Squared loss
(f - y)^2 / 2; the test metric is the test loss.  Gradients (e = f - y):

    dL/dv = mean(e z),  z = sum_l gamma_l x_l,
    dL/dk = mean(e sum_l gamma_l (<x_l, v> - f) x_l).

Gaps (ours): <v, v*> (output) and <k, k*> (attention).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .base import Params, Problem, Quadratic, gaussian


BLOCK_BYTES = 1 << 20  # tokens per block of the full step: about a megabyte (stays in cache)


@dataclass(frozen=True)
class Sequences:
    X: np.ndarray  # (N, L, D)
    y: np.ndarray  # (N,)
    where: np.ndarray  # (N,) int: the relevant token's position J0


def _unit_pair(rng: np.random.Generator, D: int) -> tuple[np.ndarray, np.ndarray]:
    k = rng.standard_normal(D)
    k /= np.linalg.norm(k)
    v = rng.standard_normal(D)
    v -= (v @ k) * k
    return k, v / np.linalg.norm(v)


def sample_sequences(rng: np.random.Generator, n: int, L: int, k_star, v_star,
                     token_variance: float, noise_label: float) -> Sequences:
    D = k_star.shape[0]
    X = rng.standard_normal((n, L, D))
    J0 = rng.integers(0, L, size=n)
    rows = np.arange(n)
    X[rows, J0] = np.sqrt(D / 2) * k_star + np.sqrt(token_variance) * rng.standard_normal((n, D))
    y = X[rows, J0] @ v_star + noise_label * rng.standard_normal(n)
    return Sequences(X, y, J0)


@dataclass(frozen=True)
class SLRTask:
    name: str = "slr"
    metric: str = "loss"

    @property
    def groups(self) -> Mapping[str, tuple[str, ...]]:
        return {"attention": ("k",), "output": ("v",)}

    def size(self, cfg: Mapping) -> int:
        return int(cfg["d"])

    def sample(self, cfg: Mapping, rngs) -> Problem:
        D = int(cfg["d"])
        r_train, r_test, r_task = rngs
        k_star, v_star = _unit_pair(r_task, D)
        make = lambda rng, n: sample_sequences(rng, int(n), int(cfg["seq_len"]), k_star, v_star,
                                               float(cfg["token_variance"]), float(cfg["noise_label"]))
        return Problem(make(r_train, cfg["train"]), make(r_test, cfg["test"]),
                       {"k_star": k_star, "v_star": v_star, "D": D})

    def init(self, problem: Problem, rng: np.random.Generator, zero: bool, cfg: Mapping) -> Params:
        D, std = problem.info["D"], float(cfg["init_std"])
        return {"k": gaussian(rng, D, std, zero), "v": gaussian(rng, D, std, zero)}

    def _scores(self, params: Params, data: Sequences):
        """gamma (N, L), <x_l, v> (N, L) and f (N,) from one product of the (N L, D) tokens with
        [k, v] (BLAS)."""
        n, L, D = data.X.shape
        kv = data.X.reshape(n * L, D) @ np.stack([params["k"], params["v"]], axis=1)
        s, value = kv[:, 0].reshape(n, L), kv[:, 1].reshape(n, L)
        s = s - s.max(axis=1, keepdims=True)
        w = np.exp(s)
        gamma = w / w.sum(axis=1, keepdims=True)
        return gamma, value, (gamma * value).sum(axis=1)

    def loss(self, params: Params, data: Sequences) -> float:
        f = self._scores(params, data)[2]
        return float(np.mean(0.5 * (f - data.y) ** 2))

    def readout(self, params: Params, data: Sequences) -> np.ndarray:
        """z = sum_l gamma_l x_l: what an output-only phase keeps fixed."""
        gamma = self._scores(params, data)[0]
        return np.matmul(gamma[:, None, :], data.X)[:, 0, :]

    def output_loss_grad(self, params: Params, data: Sequences, z: np.ndarray) -> tuple[float, Params]:
        err = z @ params["v"] - data.y
        return float(np.mean(0.5 * err * err)), {"v": (err @ z) / err.shape[0]}

    def quadratic(self, params: Params, data: Sequences, z: np.ndarray) -> Quadratic:
        """The output phase at fixed attention (read-out z) as a quadratic in v."""
        return Quadratic.of(z, data.y, params, ("v",))

    def loss_grad(self, params: Params, data: Sequences) -> tuple[float, Params]:
        """dL/dv = mean(e sum_l gamma_l x_l), dL/dk = mean(e sum_l gamma_l (<x_l, v> - f) x_l):
        both X^T (coefficients per token).  Block by block of about ``BLOCK_BYTES`` of tokens,
        so that each block is read from memory once for the forward and the backward product
        (the step is memory-bound: X is 50 MB at the paper's size)."""
        n, L, D = data.X.shape
        X2 = data.X.reshape(n * L, D)
        kv = np.stack([params["k"], params["v"]], axis=1)
        rows = max(1, BLOCK_BYTES // (L * D * 8))
        g = np.zeros((D, 2))
        sq = 0.0
        for a in range(0, n, rows):
            Xb = X2[a * L:(a + rows) * L]
            m = Xb.shape[0] // L
            sv = Xb @ kv
            s, value = sv[:, 0].reshape(m, L), sv[:, 1].reshape(m, L)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            gamma = w / w.sum(axis=1, keepdims=True)
            f = (gamma * value).sum(axis=1)
            err = f - data.y[a:a + m]
            sq += float(err @ err)
            eg = err[:, None] * gamma
            g += Xb.T @ np.stack([eg.ravel(), (eg * (value - f[:, None])).ravel()], axis=1)
        g /= n
        return 0.5 * sq / n, {"k": g[:, 1], "v": g[:, 0]}

    def evaluate(self, params: Params, data: Sequences) -> float:
        return self.loss(params, data)

    def ideal_features(self, problem: Problem) -> tuple[np.ndarray, np.ndarray, float]:
        """The output's features at the ideal attention (all weight on the relevant token:
        z = x_J0), weights 1/N, c_loss = 1 (squared loss).  In the population
        E[z z^T] = (D/2) k* k*^T + token_variance I, so lambda_max -> D/2 + token_variance."""
        data = problem.train
        n = data.y.shape[0]
        return data.X[np.arange(n), data.where], np.full(n, 1.0 / n), 1.0

    def gaps(self, params: Params, problem: Problem) -> tuple[float, float]:
        return float(params["v"] @ problem.info["v_star"]), float(params["k"] @ problem.info["k_star"])


SLR = SLRTask()
