"""Floors over a box of successive ratios: the minimum over the output weights of the quadratic
loss, and the dual bound of its minimum over a cone, as balls valid on the whole box.

At fixed attention (proofs/model.md, section 4; proofs/prop3.md) the loss is the convex quadratic

    L_s(b) = 1/2 b' M b - 2 b' m_s + 1,   M = E[gamma gamma^T],  m_s = E[gamma 1{y_s = +1}]

(the reconstructed 1/2 b'Mb - b'E[gamma (1 + y)] + 1 with E[gamma (1 + y)] = 2 m_s).  Both
floors are ``F(r) = 1 - 1/2 v' M^-1 v`` with ``v = 2 m_s - shift``:

* ``shift = 0``: F = min_b L_s = 1 - 2 m_s' M^-1 m_s (Proposition 3);
* ``shift = B lambda`` for the constraints b_s - b_j <= 0 with multipliers lambda >= 0: for every
  b in the cone {b_s <= b_j}, L_s(b) >= L_s(b) + lambda'(B'b) >= min_b [...] = F, a lower bound
  of the cone's minimum (weak duality; Proposition 2).

Over a box X with centre c (:class:`verify.engine.certified.ratios.BoxMoments`), with
``y = M^-1 v`` and ``y_k = M^-1 (v_k - M_k y)`` (subscripts: partial derivatives in r_k):

    F_k  = -v_k' y + 1/2 y' M_k y,
    F_kl = -v_kl' y - v_k' y_l + 1/2 y' M_kl y + y' M_k y_l,

evaluated at c (tight) and over X; then ``F(X) = F(c) + F_k(c) dx_k + 1/2 dx' F_kl(X) dx``
and ``F_k(X) = F_k(c) + F_kl(X) dx_l`` (Taylor with the Lagrange remainder: F is C^2 on the
box), each intersected with the first-order and the plain enclosures.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from flint import arb, arb_mat

from ..context import ARB
from .balls import precision
from .ratios import BoxMoments, RatioMoments, quadratic_term


def _dot(a: Sequence, b: Sequence) -> arb:
    acc = arb(0)
    for x, y in zip(a, b):
        acc = acc + x * y
    return acc


def _matvec(M: arb_mat, y: Sequence) -> list:
    n = M.nrows()
    return [_dot([M[i, j] for j in range(n)], y) for i in range(n)]


def _solve(M: arb_mat, columns: Sequence[Sequence]) -> list | None:
    """M^-1 applied to each column (None when the solve cannot exclude a singular M)."""
    n = M.nrows()
    rhs = arb_mat([[col[i] for col in columns] for i in range(n)])
    try:
        X = M.solve(rhs)
    except ZeroDivisionError:
        return None
    return [[X[i, k] for i in range(n)] for k in range(len(columns))]


@dataclass(frozen=True)
class Floor:
    """``value`` encloses F on the whole box, ``gradient[k]`` its partial derivative in r_(k+1)
    there; ``centre``, ``centre_gradient``: the same at the box's centre."""

    value: arb
    gradient: tuple
    centre: arb
    centre_gradient: tuple


NAN = arb("nan")


def _v(moments: RatioMoments, s: int, shift: Sequence, scale: int = 2) -> list:
    return [scale * m - a for m, a in zip(moments.positive[s], shift)]


def _first(M: arb_mat, v: Sequence, Mk: Sequence[arb_mat], vk: Sequence[Sequence]) -> tuple:
    """(F, y, [F_k]) from M, v and their first derivatives."""
    sol = _solve(M, [v])
    if sol is None:
        return NAN, None, [NAN] * len(Mk)
    y = sol[0]
    grads = [-_dot(dv, y) + _dot(y, _matvec(dM, y)) / 2 for dM, dv in zip(Mk, vk)]
    return 1 - _dot(v, y) / 2, y, grads


def _lam(moments: RatioMoments, s: int, beta: Sequence[arb], shift: Sequence) -> arb:
    """L(b) = 1/2 b'Mb - b'(2 m_s - shift) + 1 at the fixed b (for a derivative of the moments
    pass shift = 0 and drop the 1: :func:`_lam_d`)."""
    return _dot(beta, _matvec(moments.second, beta)) / 2 - _dot(beta, _v(moments, s, shift)) + 1


def _lam_d(moments: RatioMoments, s: int, beta: Sequence[arb]) -> arb:
    """The same functional on a derivative of the moments (linear part only)."""
    return _dot(beta, _matvec(moments.second, beta)) / 2 - 2 * _dot(beta, moments.positive[s])


def _norm2(x: Sequence[arb]) -> arb:
    """An upper bound of sum x_i^2 (as a ball [0, bound])."""
    acc = arb(0)
    for v in x:
        m = abs(v).upper()
        acc = acc + m * m
    return arb(acc.upper())


def smallest_eigenvalue(M: arb_mat, d: int) -> arb:
    """A lower bound of lambda_min(M) for every symmetric matrix in the ball M: the larger of
    Gershgorin's min_i (M_ii - sum_j |M_ij|) and p/d (M = E[gamma gamma^T] >= P(m = 1) E[e_w
    e_w^T] = (p/d) I: the words of length 1)."""
    floor = arb(1) / (d * (d - 1))
    gersh = min((M[i, i] - sum((abs(M[i, j]) for j in range(d) if j != i), arb(0))).lower()
                for i in range(d))
    return max(floor, arb(gersh), key=float)


def _centre_beta(bm: BoxMoments, s: int, shift: Sequence) -> list[arb]:
    """beta_c = M(c)^-1 v(c) from the balls' midpoints (a float choice, read exactly)."""
    d = bm.d
    M = np.array([[float(bm.at_centre.second[i, j].mid()) for j in range(d)] for i in range(d)])
    v = np.array([float((2 * m - a).mid()) for m, a in zip(bm.at_centre.positive[s], shift)])
    return [arb(float(x)) for x in np.linalg.solve(M, v)]


def quadratic_floor(bm: BoxMoments, s: int, shift: Sequence | None = None,
                    bits: int = 64) -> Floor:
    """``F = 1 - 1/2 v' M^-1 v`` (``v = 2 m_s - shift``) and its gradient over the box and at
    its centre (module docstring): ``F(r) = L(r, beta_c) - 1/2 g' M^-1 g`` exactly, with the
    fixed beta_c of the centre and g(r) = M(r) beta_c - v(r) (zero at c), so that
    ``L(X, beta_c) - [0, |g(X)|^2 / (2 lambda)] <= F(X) <= L(X, beta_c)`` with lambda a lower
    bound of lambda_min(M) on the box (:func:`smallest_eigenvalue`); and ``F_k = L_k(r, beta_c) +
    delta' g_k + 1/2 delta' M_k delta`` with delta = beta*(r) - beta_c, |delta| <= |g| / lambda
    (the envelope theorem).  L(., beta_c) and g are linear in the moments: their second-order
    Taylor forms use the moments' derivatives at c and Hessians over X."""
    d, nk = bm.d, bm.d - 1
    with precision(bits):
        sh = [arb(0)] * d if shift is None else [arb(float(x)) for x in shift]
        zero = [arb(0)] * d
        vkc = [_v(g, s, zero) for g in bm.centre_gradient]
        Fc, _, gc = _first(bm.at_centre.second, _v(bm.at_centre, s, sh),
                           [g.second for g in bm.centre_gradient], vkc)
        if not Fc.is_finite():
            return Floor(NAN, tuple([NAN] * nk), Fc, tuple(gc))
        beta = _centre_beta(bm, s, sh)
        lam_c = _lam(bm.at_centre, s, beta, sh)
        lk_c = [_lam_d(g, s, beta) for g in bm.centre_gradient]
        lk_X = [_lam_d(g, s, beta) for g in bm.gradient]
        lkl = {key: _lam_d(H, s, beta) for key, H in bm.hessian.items()}
        quad = quadratic_term(lkl, bm.dx)
        second, first = lam_c, lam_c
        for k in range(nk):
            second = second + lk_c[k] * bm.dx[k]
            first = first + lk_X[k] * bm.dx[k]
        for key, h in lkl.items():
            second = second + h * quad[key]
        lam = ARB.meet(ARB.meet(second, first), _lam(bm.over_box, s, beta, sh))
        g_c = [a - b for a, b in zip(_matvec(bm.at_centre.second, beta), _v(bm.at_centre, s, sh))]
        g_kc = [[a - b for a, b in zip(_matvec(g.second, beta), _v(g, s, zero))]
                for g in bm.centre_gradient]
        g_k = [[a - b for a, b in zip(_matvec(g.second, beta), _v(g, s, zero))] for g in bm.gradient]
        g_kl = {key: [a - b for a, b in zip(_matvec(H.second, beta), _v(H, s, zero))]
                for key, H in bm.hessian.items()}
        g2, g1 = list(g_c), list(g_c)  # second- and first-order forms of g over the box
        for k in range(nk):
            g2 = [x + y * bm.dx[k] for x, y in zip(g2, g_kc[k])]
            g1 = [x + y * bm.dx[k] for x, y in zip(g1, g_k[k])]
        for key, col in g_kl.items():
            g2 = [x + y * quad[key] for x, y in zip(g2, col)]
        g_plain = [a - b for a, b in zip(_matvec(bm.over_box.second, beta), _v(bm.over_box, s, sh))]
        g = [ARB.meet(ARB.meet(a, b), c) for a, b, c in zip(g2, g1, g_plain)]
        inv = 1 / smallest_eigenvalue(bm.over_box.second, d)  # ||M^-1|| on the whole box
        q_top = inv * _norm2(g) / 2
        value = arb(lam.lower() - q_top.upper()).union(arb(lam.upper()))
        delta = inv * _norm2(g).sqrt()
        grads = []
        for k in range(nk):
            acc = lk_c[k]
            for (a, b), h in lkl.items():
                if k in (a, b):
                    acc = acc + h * bm.dx[b if a == k else a]
            lk = ARB.meet(acc, lk_X[k])
            Mk = bm.gradient[k].second
            fro = _norm2([Mk[i, j] for i in range(d) for j in range(d)]).sqrt()
            corr = delta * _norm2(g_k[k]).sqrt() + delta * delta * fro / 2
            grads.append(lk + arb(0, corr.upper()))
        return Floor(value, tuple(grads), Fc, tuple(gc))


def cone_shift(d: int, s: int, lam: Sequence[float]) -> list[float]:
    """B lambda for the constraints b_s - b_j <= 0 (j != s, in increasing order) with the
    multipliers ``lam`` (d - 1 numbers >= 0): (B lambda)_s = sum lam, (B lambda)_j = -lam_j."""
    if len(lam) != d - 1 or any(x < 0 for x in lam):
        raise ValueError("need d - 1 multipliers >= 0")
    out, others = [0.0] * d, [j for j in range(d) if j != s]
    for j, x in zip(others, lam):
        out[j] = -float(x)
        out[s] += float(x)
    return out


def loss_at(moments: RatioMoments, s: int, beta: Sequence[float], bits: int = 64) -> arb:
    """L_s(beta) = 1/2 beta' M beta - 2 beta' m_s + 1 (beta read exactly)."""
    with precision(bits):
        b = [arb(float(x)) for x in beta]
        return _dot(b, _matvec(moments.second, b)) / 2 - 2 * _dot(b, moments.positive[s]) + 1
