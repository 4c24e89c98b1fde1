"""Number-type backends of the general engine: where the kernels' inputs come from.

A backend supplies what :mod:`.kernels` does not write itself: the exponentials ``x_l = e^(-t c_l)``
and ``1 - x_l`` (without cancellation), sums, zeros, the nodes and weights of its quadrature rule,
and the conversion of inputs; it hands the kernels a :class:`.kernels.NodeTerms`.

* mpmath (:func:`mp_exponentials`, :func:`mp_node`): one node ``t`` at a time, for the adaptive tanh-sinh rule of
  :func:`verify.engine.quadrature.integrate` (per-symbol vectors: numpy object arrays of mpf);
* float64 (:class:`FloatGrid`, :func:`float_grid`): the trapezoid rule in ``u = ln t`` on one
  uniform grid, all nodes at once (per-symbol vectors: arrays ``(n, d)``).

The interval backend (python-flint ``arb``/``acb`` object arrays, ``exp``/``expm1``, and a
Gauss-Legendre rule with a proven error bound) is :mod:`verify.engine.certified.general`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from mpmath.libmp import fone, fzero, mpf_add, mpf_exp, mpf_neg, mpf_pos, mpf_sub, round_nearest

from ..context import FP, MP
from ..formulas import pgf_terms
from .kernels import NodeTerms

_make = mpmath.mp.make_mpf


# ------------------------------------------------------------------------------------ mpmath


def exp_pair(tc) -> tuple:
    """(e^{-tc}, 1 - e^{-tc}) for mpf tc >= 0 at the current precision, without cancellation.

    Below 1/2 the exponential is formed with as many extra bits as ``tc`` has leading zeros, so
    ``1 - e^{-tc}`` keeps full relative accuracy (cheaper than ``mpmath.expm1``).

    >>> x, om = exp_pair(mpmath.mpf("1e-30"))
    >>> mpmath.nstr(om, 5)
    '1.0e-30'
    """
    prec = mpmath.mp.prec
    r = tc._mpf_
    _, man, exp, bc = r
    if not man:
        return _make(fone), _make(fzero)
    if exp + bc < 0:  # tc < 1/2
        xh = mpf_exp(mpf_neg(r), prec + 10 - (exp + bc), round_nearest)
        x, om = mpf_pos(xh, prec, round_nearest), mpf_sub(fone, xh, prec, round_nearest)
        return _make(x), _make(om)
    x = mpf_exp(mpf_neg(r), prec, round_nearest)
    return _make(x), _make(mpf_sub(fone, x, prec, round_nearest))


def mp_sum(values):
    """Recursive sum of mpf at the working precision (for sums of non-negative terms, or where
    the cancellation is intrinsic to the data)."""
    prec = mpmath.mp.prec
    acc = fzero
    for v in values:
        acc = mpf_add(acc, v._mpf_, prec, round_nearest)
    return _make(acc)


def mp_vector(values) -> np.ndarray:
    """A numpy object array of mpf (the mpmath backend's per-symbol vector)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _mp_dot(V, w):
    return mp_sum(V * w)


def _mp_col(V, s: int):
    return V[s]


def _mp_put(V, s: int, value) -> None:
    V[s] = value


@dataclass(frozen=True)
class MpExponentials:
    """The costly part of an mpmath node: ``tau_l = t c_l`` and ``x_l = e^(-tau_l)`` (object
    arrays), ``small = 1 - q z`` and ``diff = (1 - q z0) - (1 - q z) = q x_s / d``."""

    tau: np.ndarray
    x: np.ndarray
    small: object
    diff: object


def mp_exponentials(t, att) -> MpExponentials:
    """The exponentials at ``t`` for a :class:`.attention.GeneralAttention` (inside
    ``working(att.dps)``); ``1 - q z = (1 - z) + p z`` is summed from the ``1 - x_l``."""
    inv_d = att.inv_d
    tau, x, om = [], [], []
    for cl in att.c:
        tc = t * cl
        a, b = exp_pair(tc)
        tau.append(tc)
        x.append(a)
        om.append(b)
    z = mp_sum(x) * inv_d
    small = mp_sum(om) * inv_d + att.p * z
    return MpExponentials(mp_vector(tau), mp_vector(x), small, att.q * (x[att.s] * inv_d))


def mp_node(ex: MpExponentials, att, order: int, slices: bool, scale=None) -> NodeTerms:
    """NodeTerms from the exponentials of one node: ``T_k = (t c_l)^k x_l`` (k <= order), the
    derivatives up to ``order``, the slice terms ``G0`` only when ``slices``, ``Td`` only for
    order 3 (the loss pass).

    Every kernel is linear in the pgf terms ``G``, ``G0``, ``D`` (each product has exactly one),
    so ``scale = 1/t`` turns the kernels' integrands in ``u = ln t`` into integrands in ``t``
    at the cost of a few scalar products.
    """
    big = ex.small + ex.diff  # 1 - q z0
    G, G0, D = pgf_terms(MP, ex.small, big, ex.diff, att.p, att.q, order, g0=slices)
    if scale is not None:
        G, G0, D = (None if L is None else [None] + [v * scale for v in L[1:]]
                    for L in (G, G0, D))
    T1 = ex.tau * ex.x
    T2 = ex.tau * T1
    T3 = Td = None
    if order >= 3:
        T3 = ex.tau * T2
        Td = (None, T1 * att.inv_d, T2 * att.inv_d, T3 * att.inv_d)
    return NodeTerms((ex.x, T1, T2, T3), Td, G, G0, D, att.d, att.s, _mp_dot, _mp_col, _mp_put)


# ----------------------------------------------------------------------------------- float64
#
# The trapezoid rule in u = ln t on a uniform grid (step h) over [u_lo, u_hi]: after the
# substitution t = e^u every integrand is analytic in the strip |Im u| < pi/2 (there
# Re(t c_l) > 0, so |x_l| < 1, |z| < 1 and 1 - q z != 0) and decays like e^u at -inf and
# double-exponentially at +inf, so the rule converges like exp(-c/h) and one grid resolves every
# scale 1/c_l however widely the c_l spread.  Everything is written in tau_l = t c_l =
# exp(u + alpha_l - max alpha), so nothing over- or underflows for logit spreads up to ~1400.
# Truncation: below u_lo, t c_max <= 1e-18 p^2, which bounds the neglected part of every
# component by ~1e-18 of its value; above u_hi, t c_min >= 60 + 3 ln(1/p).  The error estimate
# is |I_h - I_2h| (the rule on every other node).

FLOAT_STEP = 0.125


def float_nodes(d: int, log_c_min: float, h: float) -> np.ndarray:
    """The nodes ``u`` (an odd number, so every other node is the rule at step ``2h``)."""
    p = 1.0 / (d - 1)
    u_lo = math.log(1e-18 * p * p)
    u_hi = math.log(60.0 + 3.0 * math.log(1.0 / p)) - log_c_min
    n = int(math.ceil((u_hi - u_lo) / h))
    n += n % 2
    return u_lo + h * np.arange(n + 1)


@dataclass(frozen=True)
class FloatGrid:
    """Nodes and per-node quantities of the float64 rule for log-weights ``a = alpha - max alpha``
    and target ``s``: ``u`` (nodes), ``h`` (step), ``x[:, l] = exp(-tau_l)``,
    ``T[k][:, l] = tau_l^k x_l`` (k = 0..3), ``G[j]``, ``G0[j]`` (the j-th derivative of the
    length pgf at z and at z - x_s/d, shape ``(n,)``), ``D[j]`` (their difference, formed
    without cancellation), ``p``, ``q``, ``d``, ``s``.

    ``T[k] = tau^k x`` are formed as ``exp(k ln tau - tau)``: no overflow where ``tau`` is huge
    and ``x`` is 0.
    """

    d: int
    s: int
    p: float
    q: float
    h: float
    u: np.ndarray
    x: np.ndarray
    T: tuple
    G: list
    G0: list
    D: list

    @property
    def Td(self) -> tuple:
        """``T[k] / d`` for k = 1..3 (index 0 unused)."""
        return (None,) + tuple(Tk / self.d for Tk in self.T[1:])

    @property
    def nodes(self) -> int:
        return len(self.u)

    def rounding_rel(self) -> float:
        """Rounding allowance per unit of absolute scale: 10 eps (1 + max|u|) (cf. the mpmath
        allowance; measured: below 1 eps (1 + max|u|) at logit spread 400)."""
        return 10 * np.finfo(np.float64).eps * (1.0 + np.abs(self.u).max())

    def terms(self) -> NodeTerms:
        """The kernels' view: per-node scalars as columns ``(n, 1)``."""
        return NodeTerms(self.T, self.Td, _columns(self.G), _columns(self.G0), _columns(self.D),
                         self.d, self.s, _np_dot, _np_col, _np_put)


def _columns(values: list) -> list:
    return [None] + [v[:, None] for v in values[1:]]


def _np_dot(V, w):
    return (V @ w)[:, None]


def _np_col(V, s: int):
    return V[:, s:s + 1]


def _np_put(V, s: int, value) -> None:
    V[:, s] = value[:, 0]


def float_grid(d: int, s: int, a: np.ndarray, h: float) -> FloatGrid:
    """The :class:`FloatGrid` of log-weights ``a = alpha - max alpha`` (<= 0), target ``s``."""
    p = 1.0 / (d - 1)
    q = 1.0 - p
    u = float_nodes(d, float(a.min()), h)
    log_tau = u[:, None] + a[None, :]
    with np.errstate(over="ignore"):
        tau = np.exp(log_tau)
    x = np.exp(-tau)
    om = -np.expm1(-tau)
    T = (x,) + tuple(np.exp(k * log_tau - tau) for k in range(1, 4))
    small = om.mean(axis=1) + p * x.mean(axis=1)  # 1 - q z
    diff = q * x[:, s] / d
    big = small + diff  # 1 - q z0
    G, G0, D = pgf_terms(FP, small, big, diff, p, q, 3)
    return FloatGrid(d, s, p, q, h, u, x, T, G, G0, D)


def trapezoid(values: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """(I_h, |I_h - I_2h|) along axis 0 (the node axis).

    >>> [float(v) for v in trapezoid(np.ones(5), 0.5)]  # 5 nodes at step 0.5: 2.5; at 1: 3
    [2.5, 0.5]
    """
    full = h * values.sum(axis=0)
    half = 2 * h * values[::2].sum(axis=0)
    return full, np.abs(full - half)
