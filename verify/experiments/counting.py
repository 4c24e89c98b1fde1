"""Occurrence, OR and AND (Section 5, tasks (i)-(iii)): words from rho as count vectors.

Words are drawn by :meth:`verify.engine.distribution.WordDistribution.sample_counts` (O(d) per word
of any length).  Targets are ``n_targets`` distinct symbols drawn per seed (unknown to the learner):
occurrence = one target; OR = positive if at least one of two targets occurs; AND = both occur.

Models (proofs/model.md, section 1):

* model (1), one head, fixed bias -1: f = beta . gamma(alpha) - 1, with
  dR/dbeta = mean(e gamma), dR/dalpha_l = mean(e gamma_l (beta_l - (f + 1))) (the formulas of
  :func:`verify.engine.model.empirical_risk_and_grad`, which the tests use as a second route);
* model (2), H heads, bias b (trainable for AND, else -1): f = sum_h B_h . gamma^(h) + b, with
  dR/dB_h = mean(e gamma^(h)), dR/db = mean(e),
  dR/dalpha^(h)_l = mean(e gamma^(h)_l (B_{h,l} - B_h . gamma^(h))),  e = f - y.

Computation (the count matrix, no exp over N x d): with w_h = e^(alpha_h - max alpha_h) and
s_h = C w_h (one matrix product), gamma^(h) = C diag(w_h) / s_h, so a head's output is
(C (w_h B_h)) / s_h and every gradient is a product C^T (coefficients / s_h) scaled by w_h: a
joint step is two products with the N x d count matrix (:class:`Attention`).  Where s_h
underflows (a word whose symbols all have logits far below the largest, spread > ~640) that
(word, head) pair's gamma is formed densely as softmax(ln C + alpha), the stable form
(:func:`attention`); the operator then uses the dense row.

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
from ..engine.formulas import softmax_counts
from .base import Params, Problem, Quadratic, contrast, gaussian


IDEAL = 40.0  # the target's logit at the ideal attention (e^-40: the others' weight vanishes)
TINY = 1e-280  # s_h below it: the pair's weights may have underflowed, its gamma is formed densely


@dataclass(frozen=True)
class Words:
    counts: np.ndarray  # (N, d) float64
    y: np.ndarray  # (N,) in {-1, +1}


def words(counts: np.ndarray, y: np.ndarray) -> Words:
    return Words(np.asarray(counts, dtype=np.float64), y)


def attention(data: Words, alpha: np.ndarray) -> np.ndarray:
    """gamma_i = C_i e^alpha_i / sum_j C_j e^alpha_j, densely
    (:func:`verify.engine.formulas.softmax_counts`): alpha (d,) gives (N, d), alpha (H, d) gives
    (N, H, d).  :func:`verify.engine.model.attention` without its input checks."""
    return softmax_counts(data.counts if alpha.ndim == 1 else data.counts[:, None, :], alpha)


@dataclass(frozen=True)
class Attention:
    """H heads' attention on N words as an operator on the count matrix (module docstring)."""

    counts: np.ndarray  # (N, d)
    w: np.ndarray  # (H, d): e^(alpha_h - max alpha_h)
    s: np.ndarray  # (N, H): C w_h, 1 at the dense pairs
    rows: np.ndarray  # (k,): the (word, head) pairs whose gamma is dense ...
    heads: np.ndarray  # (k,)
    dense: np.ndarray  # (k, d): ... and their gamma

    def outputs(self, B: np.ndarray) -> np.ndarray:
        """(N, H): gamma^(h)_n . B_h."""
        o = (self.counts @ (self.w * B).T) / self.s
        return self.patch(o, B)

    def features(self) -> np.ndarray:
        """(N, H d): gamma^(1), ..., gamma^(H) side by side, formed densely."""
        N, H = self.s.shape
        gam = self.counts[:, None, :] * (self.w[None, :, :] / self.s[:, :, None])
        if self.rows.size:
            gam[self.rows, self.heads] = self.dense
        return gam.reshape(N, -1)

    def patch(self, o: np.ndarray, B: np.ndarray) -> np.ndarray:
        if self.rows.size:
            o[self.rows, self.heads] = np.sum(self.dense * B[self.heads], axis=1)
        return o

    def pullback(self, *coefficients: np.ndarray) -> list[np.ndarray]:
        """For each (N, H) array V: the (H, d) array sum_n V_nh gamma^(h)_n, all in one product
        with C^T."""
        H = self.w.shape[0]
        U = np.concatenate(coefficients, axis=1) / np.tile(self.s, len(coefficients))
        if self.rows.size:
            for j in range(len(coefficients)):
                U[self.rows, j * H + self.heads] = 0.0
        prod = self.counts.T @ U  # (d, k H)
        out = []
        for j, V in enumerate(coefficients):
            G = prod[:, j * H:(j + 1) * H].T * self.w
            if self.rows.size:
                np.add.at(G, self.heads, self.dense * V[self.rows, self.heads][:, None])
            out.append(G)
        return out


def attend(counts: np.ndarray, alphas: np.ndarray, B: np.ndarray | None = None):
    """The attention of the heads ``alphas`` (H, d), and with ``B`` (H, d) also their outputs
    (N, H), from one product with the count matrix."""
    H = alphas.shape[0]
    w = np.exp(alphas - alphas.max(axis=1, keepdims=True))
    prod = counts @ (w.T if B is None else np.concatenate([w, w * B]).T)
    s = prod[:, :H]
    rows, heads = np.nonzero(s < TINY)
    dense = np.empty((0, counts.shape[1]))
    if rows.size:
        s = s.copy()
        s[rows, heads] = 1.0
        dense = softmax_counts(counts[rows], alphas[heads])  # row k: word rows[k], head heads[k]
    att = Attention(counts, w, s, rows, heads, dense)
    if B is None:
        return att
    return att, att.patch(prod[:, H:] / s, B)


def antisymmetric(rng: np.random.Generator, H: int, d: int, std: float,
                  zero: bool) -> tuple[np.ndarray, np.ndarray]:
    """The anti-symmetric initialisation of H = 2m heads (ours: the paper's construction is in
    its lost Appendix B): heads 1..m draw logits and output weights N(0, std^2); head m + h
    copies head h's logits and negates its output weights (the anti-symmetrical initialisation
    of Zhang et al. 2020, Chizat et al.'s doubling trick).  Paired heads' outputs are exact
    negatives, so f starts at the bias (to rounding), and for every symbol one head of each
    pair has a non-negative output weight on it: some heads favour each target from the start."""
    if H % 2:
        raise ValueError(f"the anti-symmetric initialisation needs an even number of heads, got {H}")
    alpha = gaussian(rng, (H // 2, d), std, zero)
    B = gaussian(rng, (H // 2, d), std, zero)
    return np.concatenate([alpha, alpha]), np.concatenate([B, -B])


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
    trainable_bias: bool = False  # the bias: trainable (AND, with any number of heads), else fixed at -1
    metric: str = "accuracy"

    @property
    def groups(self) -> Mapping[str, tuple[str, ...]]:
        bias = ("bias",) if self.trainable_bias else ()
        return {"attention": ("alpha",), "output": ("beta" if self.heads == 1 else "B", *bias)}

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
        """N(0, init_std^2) entries (zeros for the fixed initialisation); with H heads and
        ``init = "antisymmetric"``, :func:`antisymmetric`."""
        d, std = problem.info["d"], float(cfg["init_std"])
        if self.heads == 1:
            params = {"alpha": gaussian(rng, d, std, zero), "beta": gaussian(rng, d, std, zero)}
        elif cfg.get("init", "gaussian") == "antisymmetric":
            alpha, B = antisymmetric(rng, self.heads, d, std, zero)
            params = {"alpha": alpha, "B": B}
        else:
            shape = (self.heads, d)
            params = {"alpha": gaussian(rng, shape, std, zero), "B": gaussian(rng, shape, std, zero)}
        if self.trainable_bias:
            params["bias"] = gaussian(rng, (), std, zero)
        return params

    def _alphas(self, params: Params) -> np.ndarray:
        return params["alpha"][None] if self.heads == 1 else params["alpha"]

    def _outs(self, params: Params) -> np.ndarray:
        return params["beta"][None] if self.heads == 1 else params["B"]

    def _bias(self, params: Params) -> float:
        return float(params["bias"]) if self.trainable_bias else -1.0

    def readout(self, params: Params, data: Words) -> Attention:
        """The attention at the current logits: what an output-only phase keeps fixed."""
        return attend(data.counts, self._alphas(params))

    def _predict(self, params: Params, data: Words) -> tuple[np.ndarray, Attention, np.ndarray]:
        att, o = attend(data.counts, self._alphas(params), self._outs(params))
        return o.sum(axis=1) + self._bias(params), att, o

    def loss(self, params: Params, data: Words) -> float:
        err = self._predict(params, data)[0] - data.y
        return float(np.mean(0.5 * err * err))

    def _output_grads(self, params: Params, err: np.ndarray, gB: np.ndarray) -> Params:
        grads = {"beta": gB[0]} if self.heads == 1 else {"B": gB}
        if self.trainable_bias:
            grads["bias"] = np.asarray(err.mean())
        return grads

    def output_loss_grad(self, params: Params, data: Words, att: Attention) -> tuple[float, Params]:
        """Risk and output gradients at fixed attention ``att`` (:meth:`readout`)."""
        B = self._outs(params)
        err = att.outputs(B).sum(axis=1) + self._bias(params) - data.y
        n = err.shape[0]
        (gB,) = att.pullback(np.repeat(err[:, None], self.heads, axis=1))
        return float(np.mean(0.5 * err * err)), self._output_grads(params, err, gB / n)

    def quadratic(self, params: Params, data: Words, att: Attention) -> Quadratic:
        """The output phase at fixed attention ``att`` as a quadratic (:class:`Quadratic`):
        features gamma (and 1 for a trainable bias), targets y - bias (y + 1 for bias -1)."""
        phi = att.features()
        if self.trainable_bias:
            return Quadratic.of(np.concatenate([phi, np.ones((phi.shape[0], 1))], axis=1), data.y,
                                params, self.groups["output"])
        return Quadratic.of(phi, data.y + 1.0, params, self.groups["output"])

    def loss_grad(self, params: Params, data: Words) -> tuple[float, Params]:
        f, att, o = self._predict(params, data)
        err = f - data.y
        n = err.shape[0]
        E = np.repeat(err[:, None], self.heads, axis=1)
        gB, gO = att.pullback(E, E * o)
        gB, gO = gB / n, gO / n
        grads = self._output_grads(params, err, gB)
        g_alpha = self._outs(params) * gB - gO  # mean(e gamma_l (B_l - B . gamma)) per head
        grads["alpha"] = g_alpha[0] if self.heads == 1 else g_alpha
        return float(np.mean(0.5 * err * err)), grads

    def evaluate(self, params: Params, data: Words) -> float:
        f = self._predict(params, data)[0]
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
            if self.trainable_bias:
                phi = np.concatenate([phi, np.ones((phi.shape[0], 1))], axis=1)
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
