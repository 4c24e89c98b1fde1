"""In-context bigram learning (Section 5, task (v); Bietti et al. 2023, simplified by the paper).

Data (Bietti et al.'s induction-head task, their generator ``ihead_data.py``; sizes ours):
vocabulary {0..V-1} (V = d); a global bigram chain with transition rows drawn from
Dirichlet(``concentration``) per seed (theirs: character bigrams of tiny Shakespeare); per
sequence K trigger tokens drawn from the chain's marginal and, for each, an output token drawn
uniformly; every occurrence of a trigger is followed by its output, nothing is planted.  The
query is a trigger at a position where it occurred before (ours: one such position per
sequence, drawn uniformly; theirs: the loss at all of them), its context the positions up to
it; the target is that trigger's output, which can only be read in context.

Model: the first attention layer is fixed so that each position attends to its predecessor,
giving position l the key token z_{l-1} and the value token z_l.  Second layer, from the query
token q = z_t: logits s_l = W_K[z_{l-1}, q] over the positions l = 1..t, gamma = softmax,
output logits o = W_O p with p = sum_l gamma_l e_{z_l}.  Attention parameter W_K, output W_O
(V x V each).  Cross-entropy at the query.  Gradients (G = (softmax(o) - e_target)/N):

    dL/dW_O = G^T P,   h_l = (G W_O)[z_l],   dL/ds_l = gamma_l (h_l - sum_l' gamma_l' h_l'),
    dL/dW_K[a, b] = sum of dL/ds_l over the (query, position) pairs with z_{l-1} = a, q = b.

Layout: the per-query arrays are held class by query, V x N (P^T, o^T, G^T), so that the sums
and maxima over the V classes run along contiguous rows of N and the contractions over the N
queries are matrix products (W_O P^T, G^T P, W_O^T G^T: BLAS); the scatters into V x V and V x N
are bincounts.  Where the logits are shifted (|W| > ``SAFE``), weights below the smallest normal
double are set to 0: a subnormal operand costs a matrix product about twice the time and adds
less than 1e-308 to any sum.

Gaps (ours): mean of the diagonal minus mean off the diagonal of W_O (output) and W_K
(attention); the induction head is W_K = lambda I, W_O = mu I.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .base import Params, Problem, gaussian


SAFE = 300.0  # logits within +-SAFE: the softmax needs no shift (e^300 and e^-300 are normal)
NORMAL = float(np.finfo(np.float64).tiny)  # the smallest normal double


@dataclass(frozen=True)
class Queries:
    key: np.ndarray  # (N, T) int: token before each position
    value: np.ndarray  # (N, T) int: token at each position
    mask: np.ndarray  # (N, T) bool: positions 1..t (the context of the query at t)
    query: np.ndarray  # (N,) int: the queried trigger z_t
    target: np.ndarray  # (N,) int: its output token
    V: int
    triggers: np.ndarray  # (N, K) int: the sequence's triggers
    outputs: np.ndarray  # (N, K) int: their outputs
    # the context positions of all queries, concatenated (query n's are a contiguous segment):
    segment: np.ndarray  # (M,) int: the query of each context position
    starts: np.ndarray  # (N,) int: where each query's segment starts
    key_index: np.ndarray  # (M,) int: z_{l-1} V + q, the entry of W_K that scores position l
    value_index: np.ndarray  # (M,) int: z_l N + n, the entry of P^T (V x N) that position l feeds


def queries(key, value, mask, query, target, V, triggers, outputs) -> Queries:
    """The queries with their flattened context (the model's work is over context positions
    only; the mask's positions, in order)."""
    segment, position = np.nonzero(mask)
    n = query.shape[0]
    starts = np.searchsorted(segment, np.arange(n))
    return Queries(key, value, mask, query, target, V, triggers, outputs, segment, starts,
                   key[segment, position] * V + query[segment], value[segment, position] * n + segment)


def stationary(bigram: np.ndarray) -> np.ndarray:
    """The chain's stationary law pi (pi P = pi, sum 1): the unigram marginal of long sequences,
    which Bietti et al. draw the first token and the triggers from."""
    V = bigram.shape[0]
    A = bigram.T - np.eye(V)
    A[-1] = 1.0
    b = np.zeros(V)
    b[-1] = 1.0
    pi = np.clip(np.linalg.solve(A, b), 0.0, None)
    return pi / pi.sum()


def chain_sequences(rng: np.random.Generator, n: int, V: int, K: int, seq_len: int,
                    bigram: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n sequences of Bietti et al.'s generator (``ihead_data.py``, ``gen_seq``): per sequence K
    distinct triggers drawn from the marginal without replacement (Gumbel top-K, the law of
    sequential draws), outputs uniform over the vocabulary; the first token from the marginal,
    then every token after a trigger is that trigger's output and every other token follows
    the bigram chain.  Nothing is planted.  Returns (sequences, triggers, outputs)."""
    pi = stationary(bigram)
    with np.errstate(divide="ignore"):
        keys = np.log(pi) + rng.gumbel(size=(n, V))
    triggers = np.argsort(-keys, axis=1, kind="stable")[:, :K]
    outputs = rng.integers(0, V, size=(n, K))
    rows = np.arange(n)
    out_of = np.full((n, V), -1, dtype=np.int64)
    out_of[rows[:, None], triggers] = outputs
    cum, first = np.cumsum(bigram, axis=1), np.cumsum(pi)
    seqs = np.empty((n, seq_len), dtype=np.int64)
    seqs[:, 0] = (first[None, :] < rng.random(n)[:, None]).sum(axis=1).clip(max=V - 1)
    for t in range(1, seq_len):
        prev = seqs[:, t - 1]
        draw = (cum[prev] < rng.random(n)[:, None]).sum(axis=1).clip(max=V - 1)
        seqs[:, t] = np.where(out_of[rows, prev] >= 0, out_of[rows, prev], draw)
    return seqs, triggers, outputs


def repeated_triggers(seqs: np.ndarray, triggers: np.ndarray) -> np.ndarray:
    """(N, T) bool: position t holds a trigger that occurred at an earlier position (Bietti et
    al.'s ``outs >= 2``: the positions where the output can be read in context)."""
    T = seqs.shape[1]
    is_trigger = (seqs[:, :, None] == triggers[:, None, :]).any(axis=2)
    earlier = (seqs[:, :, None] == seqs[:, None, :]) & np.tril(np.ones((T, T), dtype=bool), -1)
    return is_trigger & earlier.any(axis=2)


def sample_sequences(rng: np.random.Generator, n: int, V: int, K: int, seq_len: int,
                     bigram: np.ndarray) -> Queries:
    """n queries: sequences of :func:`chain_sequences` that hold a repeated trigger, each queried
    at one repeated trigger drawn uniformly among its repeated triggers (ours: one query per
    sequence; Bietti et al. take the loss at all of them), its context the positions up to the
    query.  Sequences without a repeated trigger are dropped and drawn anew (in rounds, so the
    same generator state gives the same queries)."""
    kept: list[tuple[np.ndarray, ...]] = []
    have = 0
    while have < n:
        seqs, triggers, outputs = chain_sequences(rng, 2 * (n - have) + 16, V, K, seq_len, bigram)
        eligible = repeated_triggers(seqs, triggers)
        ok = eligible.any(axis=1)
        seqs, triggers, outputs, eligible = seqs[ok], triggers[ok], outputs[ok], eligible[ok]
        # the query: a uniform choice among the eligible positions of each sequence
        score = np.where(eligible, rng.random(eligible.shape), -1.0)
        where = np.argmax(score, axis=1)
        kept.append((seqs, triggers, outputs, where))
        have += seqs.shape[0]
    seqs, triggers, outputs, where = (np.concatenate(parts)[:n] for parts in zip(*kept))
    rows = np.arange(n)
    query = seqs[rows, where]
    target = outputs[rows, np.argmax(triggers == query[:, None], axis=1)]
    key = np.concatenate([np.zeros((n, 1), dtype=np.int64), seqs[:, :-1]], axis=1)
    positions = np.arange(seq_len)[None, :]
    mask = (positions >= 1) & (positions <= where[:, None])  # position 0 has no predecessor
    return queries(key, seqs, mask, query, target, V, triggers, outputs)


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
        """gamma over the context positions (flat, segment by segment) and P^T (V, N)."""
        s = params["WK"].ravel()[data.key_index]
        shifted = np.abs(params["WK"]).max() > SAFE  # else e^s neither overflows nor underflows
        if shifted:
            s = s - np.maximum.reduceat(s, data.starts)[data.segment]
        e = np.exp(s)
        gamma = e / np.add.reduceat(e, data.starts)[data.segment]
        if shifted:
            gamma[gamma < NORMAL] = 0.0
        n, V = data.query.shape[0], data.V
        PT = np.bincount(data.value_index, weights=gamma, minlength=V * n).reshape(V, n)
        return gamma, PT

    def loss(self, params: Params, data: Queries) -> float:
        return self._output(params, data, self._forward(params, data)[1])[0]

    def readout(self, params: Params, data: Queries) -> np.ndarray:
        """P^T (V, N), column n = sum_l gamma_l e_{z_l}: what an output-only phase keeps fixed."""
        return self._forward(params, data)[1]

    def _output(self, params: Params, data: Queries, PT: np.ndarray):
        """Cross-entropy at the query and G^T = (softmax(o) - e_target)^T / N, o^T = W_O P^T."""
        oT = params["WO"] @ PT
        n = oT.shape[1]
        cols = np.arange(n)
        shifted = np.abs(params["WO"]).max() > SAFE  # |o| <= max |W_O| since p sums to 1
        if shifted:
            oT -= oT.max(axis=0)
        GT = np.exp(oT)
        total = GT.sum(axis=0)
        loss = float(np.mean(np.log(total) - oT[data.target, cols]))
        GT /= n * total
        if shifted:
            GT[GT < NORMAL] = 0.0
        GT[data.target, cols] -= 1.0 / n
        return loss, GT

    def output_loss_grad(self, params: Params, data: Queries, PT: np.ndarray) -> tuple[float, Params]:
        loss, GT = self._output(params, data, PT)
        return loss, {"WO": GT @ PT.T}

    def _attention_grad(self, params: Params, data: Queries, gamma: np.ndarray,
                        GT: np.ndarray) -> np.ndarray:
        """dL/dW_K from the positions' weights and G^T (module docstring)."""
        V = data.V
        h = (params["WO"].T @ GT).ravel()[data.value_index]
        gh = gamma * h
        ds = gh - gamma * np.add.reduceat(gh, data.starts)[data.segment]
        return np.bincount(data.key_index, weights=ds, minlength=V * V).reshape(V, V)

    def loss_grad(self, params: Params, data: Queries) -> tuple[float, Params]:
        gamma, PT = self._forward(params, data)
        loss, GT = self._output(params, data, PT)
        return loss, {"WK": self._attention_grad(params, data, gamma, GT), "WO": GT @ PT.T}

    def attention_loss_grad(self, params: Params, data: Queries) -> tuple[float, Params]:
        """:meth:`loss_grad` without the output gradient (an attention-only step's work)."""
        gamma, PT = self._forward(params, data)
        loss, GT = self._output(params, data, PT)
        return loss, {"WK": self._attention_grad(params, data, gamma, GT)}

    def evaluate(self, params: Params, data: Queries) -> float:
        logits = params["WO"] @ self._forward(params, data)[1]
        return float(np.mean(np.argmax(logits, axis=0) == data.target))

    def ideal_features(self, problem: Problem) -> tuple[np.ndarray, np.ndarray, float]:
        """The output's features at the ideal attention (the induction head: every attended
        position holds the target, p = e_target), weights 1/N, c_loss = 1/2 (the softmax block
        diag(s) - s s^T of the cross-entropy has largest eigenvalue at most 1/2)."""
        data = problem.train
        n = data.target.shape[0]
        phi = np.zeros((n, data.V))
        phi[np.arange(n), data.target] = 1.0
        return phi, np.full(n, 1.0 / n), 0.5

    def gaps(self, params: Params, problem: Problem) -> tuple[float, float]:
        return _diagonal_gap(params["WO"]), _diagonal_gap(params["WK"])


def _diagonal_gap(M: np.ndarray) -> float:
    V = M.shape[0]
    diag = np.trace(M) / V
    return float(diag - (M.sum() - np.trace(M)) / (V * V - V))


BIGRAM = BigramTask()
