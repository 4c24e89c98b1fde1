"""The integrand kernels of the general engine, written ONCE as plain arithmetic.

Every function here takes its inputs from a backend (:mod:`.backends`) and uses only ``+``, ``-``,
``*``, ``/``, ``**`` and the backend's own ``dot``/``col``/``put``, so the same lines run on

* mpmath: one node at a time, per-symbol vectors are numpy object arrays of ``mpf`` (shape
  ``(d,)``) and per-node scalars are ``mpf``;
* float64: all nodes at once, per-symbol vectors are arrays of shape ``(n, d)`` and per-node
  scalars columns of shape ``(n, 1)``;

and an interval backend (balls) only has to supply the same pieces.

The integrands are written in the measure ``du = dt / t`` (``u = ln t``) over the per-node
vectors ``T_k[l] = tau_l^k x_l`` with ``tau_l = t c_l`` and ``x_l = e^(-tau_l)`` (k = 0..3): in
``u`` every component is a polynomial in ``t v_i = w_i tau_i`` times ``x_i``.  Every product
holds exactly one pgf term (``G``, ``G0`` or ``D``, from
:func:`verify.engine.formulas.pgf_terms`), so a backend that integrates in ``t``
hands the kernels those terms divided by ``t``.

Formulas (proofs/model.md, sections 1, 2, 4).  With ``G^(j)`` the derivatives of the length pgf at ``z``,
``G0^(j)`` at ``z0 = z - x_s/d`` and ``Delta_j = G^(j)(z) - G^(j)(z0)``:

    E[gamma_l]           = int T1_l G'/d du,
    E[gamma_l Y]         = int T1_l Delta_1/d du (l != s),   E[gamma_s] (l = s),
    E[gamma_i gamma_j]   = int (T1_i T1_j G''/d^2 + delta_ij T2_i G'/d) du,

and the slice contractions of the loss pass (:func:`slice_contraction`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class NodeTerms:
    """What every kernel needs at one node (mpmath) or at all nodes (float64).

    ``T[k] = tau^k x`` per symbol (k = 0..3) and ``Td[k] = T[k] / d`` (k >= 1; only where
    :func:`slice_contraction` runs); ``G``, ``G0``, ``D``
    per-node scalars (index j);
    ``d``, ``s``; ``dot(V, w)`` = ``sum_l V[..., l] w_l`` as a per-node scalar; ``col(V, s)`` the
    symbol-``s`` entry of ``V`` as a per-node scalar; ``put(V, s, value)`` sets it.
    """

    T: tuple
    Td: tuple
    G: list
    G0: list | None
    D: list | None
    d: int
    s: int
    dot: Callable[[Any, Any], Any]
    col: Callable[[Any, int], Any]
    put: Callable[[Any, int, Any], None]


def mean_terms(nt: NodeTerms) -> tuple:
    """Integrands (in u) of E[gamma_l] and E[gamma_l Y] (per symbol)."""
    d, s, T1 = nt.d, nt.s, nt.T[1]
    mean = T1 * (nt.G[1] / d)
    pos = T1 * (nt.D[1] / d)
    nt.put(pos, s, nt.col(T1, s) * nt.G[1] / d)  # x_s d/dx_s does not act on G(z0)
    return mean, pos


def gram_weights(G1, G2, d: int) -> tuple:
    """Per-node weights of ``E[C_i C_j / u^2]``: ``(G''/d^2, G'/d)``, the weights of the outer
    product ``T1_i T1_j`` and of the diagonal ``T2_i`` in the second-moment integrand."""
    return G2 / (d * d), G1 / d


def _at_one_point(V1, V2, Gk, want_b: bool, want_q: bool) -> tuple:
    """(a_lin, a_const, b_const, q) from the derivatives ``Gk`` of G at one point: all words
    (``G(z)`` with ``V1, V2``) or the negative slice (``G(z0)`` with ``V1', V2'``)."""
    b_const = V2 * Gk[2] + V1 * V1 * Gk[3] if want_b else None
    q_val = V2 * Gk[1] + V1 * V1 * Gk[2] if want_q else None
    return Gk[1], V1 * Gk[2], b_const, q_val


def slice_contraction(kind: str, nt: NodeTerms, w, want: str = "ABQ") -> tuple:
    """Integrands (in u) of ``A_l``, ``B_l``, ``Q`` on one slice for the output vector ``w``.

    ``kind`` is 'all', 'neg' (``C_s = 0``: the ``x_s = 0`` slice) or 'pos' (``C_s >= 1``); ``w``
    a backend vector (length ``d``); ``want`` a subset of 'ABQ' (the others come back None).
    With ``v_i = w_i c_i``, ``V1 = sum_i v_i x_i/d``, ``V2 = sum_i v_i^2 x_i/d`` (``V1'``,
    ``V2'`` over ``i != s``), ``e = v_s x_s/d``, ``e2 = v_s^2 x_s/d`` and ``F`` = ``G(z)``,
    ``G(z0)`` or ``G(z) - G(z0)``:

        A_l = E[slice gamma_l (w.gamma)]   = c_l   int t   D_v (x_l d/dx_l F) dt,
        B_l = E[slice gamma_l (w.gamma)^2] = c_l/2 int t^2 D_v^2 (x_l d/dx_l F) dt,
        Q   = E[slice (w.gamma)^2]         =       int t   D_v^2 F dt,

    with ``D_v = sum_i v_i x_i d/dx_i``, ``D_v G^(k)(z) = V1 G^(k+1)(z)`` and ``D_v V1 = V2``.
    For all words ``D_v (x_l G'/d) = (x_l/d)(v_l G' + V1 G'')``,
    ``D_v^2 (x_l G'/d) = (x_l/d)[v_l^2 G' + 2 v_l V1 G'' + V2 G'' + V1^2 G''']`` and
    ``D_v^2 G = V2 G' + V1^2 G''``; the negative slice is the same at ``z0`` with ``V1', V2'``
    (0 for l = s); on the positive slice (``V1 = V1' + e``) every ``G(z) - G(z0)`` is a
    ``Delta_j``, never a difference of nearly equal numbers, and for l = s the all-words
    formulas hold at ``z``.  In u, ``t v_l x_l c_l t/d = w_l T2_l/d`` etc.
    """
    d, s, T = nt.d, nt.s, nt.T
    G, G0, D = nt.G, nt.G0, nt.D
    w = w.copy()
    if kind == "neg":
        w[s] = 0 * w[s]  # a zero of the backend's number type
    wb = w.copy()
    wb[s] = 0 * wb[s]
    want_b, want_q = "B" in want, "Q" in want
    V1p = nt.dot(T[1], wb) / d  # sum_{i != s} t v_i x_i / d
    e = w[s] * nt.col(T[1], s) / d
    V1 = V1p + e
    V2p = e2 = V2 = b_const = q_val = None
    if want_b or want_q:
        V2p = nt.dot(T[2], wb * wb) / d
        e2 = w[s] ** 2 * nt.col(T[2], s) / d
        V2 = V2p + e2
    if kind == "all":
        a_lin, a_const, b_const, q_val = _at_one_point(V1, V2, G, want_b, want_q)
    elif kind == "neg":
        a_lin, a_const, b_const, q_val = _at_one_point(V1p, V2p, G0, want_b, want_q)
    else:
        cross = (V1p + V1) * e  # V1^2 - V1'^2
        a_lin, a_const = D[1], V1p * D[2] + e * G[2]
        if want_b:
            b_const = V2p * D[2] + e2 * G[2] + V1p * V1p * D[3] + cross * G[3]
        if want_q:
            q_val = V2p * D[1] + e2 * G[1] + V1p * V1p * D[2] + cross * G[2]
    A = B = None
    if "A" in want or want_b:  # Q alone reads neither Td nor G''' (a node of order 2 has neither)
        t1, t2 = nt.Td[1], nt.Td[2]  # tau_l x_l / d * (t v_l)^k = w_l^k tau_l^(k+1) x_l / d
    if "A" in want:
        A = t2 * w * a_lin + t1 * a_const
        if kind == "neg":  # gamma_s = 0 on negative words
            nt.put(A, s, 0 * a_lin)
        elif kind == "pos":  # l = s: the all-words formula at z
            nt.put(A, s, nt.col(t2, s) * w[s] * G[1] + nt.col(t1, s) * V1 * G[2])
    if want_b:
        t3 = nt.Td[3]
        B = (t3 * w * w * a_lin + t2 * w * (2 * a_const) + t1 * b_const) / 2
        if kind == "neg":
            nt.put(B, s, 0 * a_lin)
        elif kind == "pos":
            nt.put(B, s, (nt.col(t3, s) * w[s] ** 2 * G[1] + nt.col(t2, s) * w[s] * 2 * V1
                          * G[2] + nt.col(t1, s) * (V2 * G[2] + V1 * V1 * G[3])) / 2)
    return A, B, q_val
