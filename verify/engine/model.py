"""The paper's models evaluated on concrete count vectors (numpy float64, batched over rows).

A batch of words is given by its count vectors, an array of shape (N, d): row n holds C(w_n)
(0-based symbols {0, ..., d-1}; the paper's symbol i is column i - 1).  Every row must describe a
word of length >= 1.

- Attention of one head with logits alpha in R^d (the CLS token attends to the m positions):
      gamma_i(w) = C_i e^{alpha_i} / sum_j C_j e^{alpha_j}.
- Model (1), single head with output weights beta in R^d and fixed bias -1:
      f(w) = sum_i beta_i gamma_i(w) - 1.
- Model (2), H heads with logits alpha^{(h)} and output matrix B in R^{H x d}:
      f(w) = sum_h sum_i B_{h,i} gamma^{(h)}_i(w) + bias   (bias = -1 in the paper's (2)).
- Squared loss l = (f - y)^2 / 2 against the label y = chi_s(w).
"""

from __future__ import annotations

import numpy as np

from .formulas import softmax_counts

__all__ = [
    "attention",
    "attention_heads",
    "predict",
    "predict_heads",
    "squared_loss",
    "empirical_risk_and_grad",
]


def attention(counts: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Aggregated attention gamma of one head: counts (N, d), alpha (d,) -> gamma (N, d).

    gamma_i = C_i e^{alpha_i} / sum_j C_j e^{alpha_j}, computed stably: each row subtracts the
    largest alpha among the symbols present in that row, absent symbols contribute exactly 0.
    Rows sum to 1.
    """
    counts = _check_counts(counts)
    alpha = _as_float_array(alpha, (counts.shape[1],), "alpha")
    return softmax_counts(counts, alpha[None, :])


def attention_heads(counts: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """Attention of H heads: counts (N, d), alphas (H, d) -> gamma (N, H, d); see `attention`."""
    counts = _check_counts(counts)
    alphas = np.asarray(alphas, dtype=np.float64)
    if alphas.ndim != 2 or alphas.shape[1] != counts.shape[1]:
        raise ValueError(f"alphas must have shape (H, {counts.shape[1]})")
    return softmax_counts(counts[:, None, :], alphas[None, :, :])


def predict(counts: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """Model (1): f = gamma . beta - 1 (fixed bias -1), shape (N,)."""
    gamma = attention(counts, alpha)
    beta = _as_float_array(beta, (gamma.shape[1],), "beta")
    return gamma @ beta - 1.0


def predict_heads(
    counts: np.ndarray, alphas: np.ndarray, B: np.ndarray, bias: float = -1.0
) -> np.ndarray:
    """Model (2): f = sum_h sum_i B[h, i] gamma^{(h)}_i + bias, shape (N,).

    The paper's (2) has bias -1; the AND experiment trains the bias, hence the parameter.
    """
    gamma = attention_heads(counts, alphas)
    B = _as_float_array(B, gamma.shape[1:], "B")
    return np.einsum("nhd,hd->n", gamma, B) + float(bias)


def squared_loss(pred: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Squared loss l = (pred - y)^2 / 2, elementwise."""
    diff = np.asarray(pred, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    return 0.5 * diff * diff


def empirical_risk_and_grad(
    counts: np.ndarray, y: np.ndarray, alpha: np.ndarray, beta: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Empirical risk of model (1) over the N rows and its exact gradient.

    With f_n = sum_i beta_i gamma_{n,i} - 1 and e_n = f_n - y_n,

        R(alpha, beta) = (1/N) sum_n e_n^2 / 2,
        dR/dbeta_i     = (1/N) sum_n e_n gamma_{n,i},
        dR/dalpha_l    = (1/N) sum_n e_n gamma_{n,l} (beta_l - (f_n + 1)),

    because d gamma_i / d alpha_l = gamma_i (delta_{il} - gamma_l), so
    d f / d alpha_l = gamma_l beta_l - gamma_l sum_i beta_i gamma_i = gamma_l (beta_l - (f + 1)).

    Returns (risk, grad_alpha, grad_beta) with the gradients of shape (d,).
    """
    gamma = attention(counts, alpha)
    n, d = gamma.shape
    beta = _as_float_array(beta, (d,), "beta")
    y = _as_float_array(y, (n,), "y")
    f_plus_1 = gamma @ beta
    err = f_plus_1 - 1.0 - y
    risk = float(np.mean(0.5 * err * err))
    grad_beta = (err @ gamma) / n
    grad_alpha = (err @ (gamma * (beta[None, :] - f_plus_1[:, None]))) / n
    return risk, grad_alpha, grad_beta


# --------------------------------------------------------------------------- helpers


def _check_counts(counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[1] < 1:
        raise ValueError("counts must have shape (N, d)")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError("counts must be finite and non-negative")
    if np.any(counts.sum(axis=1) <= 0):
        raise ValueError("every row must describe a word of length >= 1")
    return counts


def _as_float_array(x: np.ndarray, shape: tuple[int, ...], name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {arr.shape}")
    return arr
