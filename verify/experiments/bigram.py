"""In-context bigram learning (Section 5, task (v); Bietti et al. 2023, simplified by the paper).

Data (Bietti et al.'s induction-head task; sizes ours): vocabulary {0..V-1} (V = d); a global
bigram chain with transition rows drawn from Dirichlet(``concentration``) per seed; per sequence
K trigger tokens and, for each, an output token drawn uniformly, such that every occurrence of a
trigger is followed by its output.  Every sequence of length ``seq_len`` ends on a trigger that
occurred earlier (ours: one query per sequence, at its end; the target is that trigger's output,
which can only be read in context).

Model: the first attention layer is fixed so that each position attends to its predecessor,
giving position l the key token z_{l-1} and the value token z_l.  Second layer, from the query
token q = z_t: logits s_l = W_K[z_{l-1}, q] over the positions l = 1..t, gamma = softmax,
output logits o = W_O p with p = sum_l gamma_l e_{z_l}.  Attention parameter W_K, output W_O
(V x V each).  Cross-entropy at the query.  Gradients (G = (softmax(o) - e_target)/N):

    dL/dW_O = G^T P,   h_l = (G W_O)[z_l],   dL/ds_l = gamma_l (h_l - sum_l' gamma_l' h_l'),
    dL/dW_K[a, b] = sum of dL/ds_l over the (query, position) pairs with z_{l-1} = a, q = b.

Gaps (ours): mean of the diagonal minus mean off the diagonal of W_O (output) and W_K
(attention); the induction head is W_K = lambda I, W_O = mu I.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .base import Params, Problem, gaussian, masked_softmax


@dataclass(frozen=True)
class Queries:
    key: np.ndarray  # (N, T) int: token before each position
    value: np.ndarray  # (N, T) int: token at each position
    mask: np.ndarray  # (N, T) bool: positions 1..t
    query: np.ndarray  # (N,) int: the trigger at the end
    target: np.ndarray  # (N,) int: its output token
    V: int


def sample_sequences(rng: np.random.Generator, n: int, V: int, K: int, seq_len: int,
                     bigram: np.ndarray) -> Queries:
    """n sequences of length seq_len, each ending on a trigger that occurred before."""
    seqs = np.empty((n, seq_len), dtype=np.int64)
    cum = np.cumsum(bigram, axis=1)
    triggers = np.stack([rng.choice(V, size=K, replace=False) for _ in range(n)])
    outputs = rng.integers(0, V, size=(n, K))
    out_of = np.full((n, V), -1, dtype=np.int64)
    rows = np.arange(n)
    out_of[rows[:, None], triggers] = outputs
    seqs[:, 0] = rng.integers(0, V, size=n)
    # plant one occurrence of the queried trigger early, so every sequence has its answer
    queried = triggers[rows, rng.integers(0, K, size=n)]
    plant = rng.integers(1, seq_len - 2, size=n)
    for t in range(1, seq_len - 1):
        prev = seqs[:, t - 1]
        draw = (cum[prev] < rng.random(n)[:, None]).sum(axis=1).clip(max=V - 1)
        nxt = np.where(out_of[rows, prev] >= 0, out_of[rows, prev], draw)
        seqs[:, t] = np.where(plant == t, queried, nxt)
    seqs[:, seq_len - 1] = queried
    key = np.concatenate([np.zeros((n, 1), dtype=np.int64), seqs[:, :-1]], axis=1)
    mask = np.ones((n, seq_len), dtype=bool)
    mask[:, 0] = False  # position 0 has no predecessor
    return Queries(key, seqs, mask, queried, out_of[rows, queried], V)


@dataclass(frozen=True)
class BigramTask:
    name: str = "icl_bigram"
    metric: str = "accuracy"

    @property
    def groups(self) -> Mapping[str, tuple[str, ...]]:
        return {"attention": ("WK",), "output": ("WO",)}

    def size(self, cfg: Mapping) -> int:
        return int(cfg["d"])

    def sample(self, cfg: Mapping, rngs) -> Problem:
        V = int(cfg["d"])
        r_train, r_test, r_task = rngs
        bigram = r_task.dirichlet(np.full(V, float(cfg["concentration"])), size=V)
        make = lambda rng, n: sample_sequences(rng, int(n), V, int(cfg["triggers"]),
                                               int(cfg["seq_len"]), bigram)
        return Problem(make(r_train, cfg["train"]), make(r_test, cfg["test"]), {"V": V})

    def init(self, problem: Problem, rng: np.random.Generator, zero: bool, cfg: Mapping) -> Params:
        V, std = problem.info["V"], float(cfg["init_std"])
        return {"WK": gaussian(rng, (V, V), std, zero), "WO": gaussian(rng, (V, V), std, zero)}

    def _forward(self, params: Params, data: Queries):
        s = params["WK"][data.key, data.query[:, None]]
        gamma = masked_softmax(s, data.mask)
        n, V = data.query.shape[0], data.V
        flat = (np.arange(n)[:, None] * V + data.value).ravel()
        P = np.bincount(flat, weights=gamma.ravel(), minlength=n * V).reshape(n, V)
        return gamma, P

    def loss(self, params: Params, data: Queries) -> float:
        return self._output(params, data, self._forward(params, data)[1])[0]

    def readout(self, params: Params, data: Queries) -> np.ndarray:
        """P = sum_l gamma_l e_{z_l}: what an output-only phase keeps fixed."""
        return self._forward(params, data)[1]

    def _output(self, params: Params, data: Queries, P: np.ndarray):
        logp = log_softmax(np.einsum("nb,ab->na", P, params["WO"]))
        n = logp.shape[0]
        rows = np.arange(n)
        loss = float(-np.mean(logp[rows, data.target]))
        G = np.exp(logp)
        G[rows, data.target] -= 1.0
        return loss, G / n

    def output_loss_grad(self, params: Params, data: Queries, P: np.ndarray) -> tuple[float, Params]:
        loss, G = self._output(params, data, P)
        return loss, {"WO": np.einsum("na,nb->ab", G, P)}

    def loss_grad(self, params: Params, data: Queries) -> tuple[float, Params]:
        gamma, P = self._forward(params, data)
        loss, G = self._output(params, data, P)
        V = P.shape[1]
        h = np.take_along_axis(np.einsum("na,ab->nb", G, params["WO"]), data.value, axis=1)
        ds = gamma * (h - (gamma * h).sum(axis=1, keepdims=True))
        flat = (data.key * V + data.query[:, None]).ravel()
        g_K = np.bincount(flat, weights=ds.ravel(), minlength=V * V).reshape(V, V)
        return loss, {"WK": g_K, "WO": np.einsum("na,nb->ab", G, P)}

    def evaluate(self, params: Params, data: Queries) -> float:
        logits = np.einsum("nb,ab->na", self._forward(params, data)[1], params["WO"])
        return float(np.mean(np.argmax(logits, axis=1) == data.target))

    def gaps(self, params: Params, problem: Problem) -> tuple[float, float]:
        return _diagonal_gap(params["WO"]), _diagonal_gap(params["WK"])


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def _diagonal_gap(M: np.ndarray) -> float:
    V = M.shape[0]
    diag = np.trace(M) / V
    return float(diag - (M.sum() - np.trace(M)) / (V * V - V))


BIGRAM = BigramTask()
