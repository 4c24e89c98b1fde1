"""What every task provides: data, parameters split into an attention and an output group, a
loss with its hand-written gradient, a test metric and the two gaps of Figure 3."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

Params = dict[str, np.ndarray]


@dataclass(frozen=True)
class Problem:
    """One seeded draw of a task: training and test data plus what the gaps need (targets)."""

    train: Any
    test: Any
    info: Mapping[str, Any] = field(default_factory=dict)


def gaussian(rng: np.random.Generator, shape, std: float, zero: bool) -> np.ndarray:
    """Initial parameters: N(0, std^2) entries, or zeros for the fixed initialisation."""
    return np.zeros(shape) if zero else np.asarray(std * rng.standard_normal(shape))


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax over the last axis restricted to ``mask`` (at least one True per row); masked
    entries get weight exactly 0."""
    masked = np.where(mask, logits, -np.inf)
    shift = masked.max(axis=-1, keepdims=True)
    w = np.where(mask, np.exp(np.where(mask, logits - shift, -np.inf)), 0.0)
    return w / w.sum(axis=-1, keepdims=True)


def contrast(values: np.ndarray, chosen) -> float:
    """mean(values[chosen]) - mean(values[others]) along the last axis (a 1-D array)."""
    idx = np.zeros(values.shape[-1], dtype=bool)
    idx[list(chosen)] = True
    return float(values[..., idx].mean() - values[..., ~idx].mean())


@dataclass(frozen=True)
class Quadratic:
    """A squared-loss output phase at frozen attention: the output parameters ``names`` packed
    into one vector theta, features Phi (N x k) and targets y', so that

        L(theta) = |Phi theta - y'|^2 / (2N) = theta^T M theta / 2 - r^T theta + c,
        grad L = M theta - r,   M = Phi^T Phi / N,  r = Phi^T y' / N,  c = |y'|^2 / (2N):

    a GD step costs a k x k product instead of two passes over the N x k features.  The loss by
    the quadratic form cancels where it is small (absolute error about 1e-16 c), so it serves
    the divergence test only; recorded losses are computed from the residual."""

    M: np.ndarray
    r: np.ndarray
    c: float
    names: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, phi: np.ndarray, target: np.ndarray, params: Params, names: tuple[str, ...]):
        n = phi.shape[0]
        shapes = tuple(np.shape(params[k]) for k in names)
        return cls(phi.T @ phi / n, phi.T @ target / n, float(target @ target) / (2 * n),
                   names, shapes)

    def pack(self, params: Params) -> np.ndarray:
        return np.concatenate([np.ravel(params[k]) for k in self.names])

    def unpack(self, theta: np.ndarray) -> Params:
        out, at = {}, 0
        for name, shape in zip(self.names, self.shapes):
            size = int(np.prod(shape))
            out[name] = theta[at:at + size].reshape(shape)
            at += size
        return out

    def loss_grad(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        Mt = self.M @ theta
        return float(0.5 * theta @ Mt - self.r @ theta + self.c), Mt - self.r
