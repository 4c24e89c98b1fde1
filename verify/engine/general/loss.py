"""The loss pass: L_s(alpha, beta) of model (1) and its full gradient, in one quadrature pass.

Slice form.  With ``f + 1 = beta.gamma`` and ``sum_i gamma_i = 1``: on negative words
``f - y = beta.gamma``; on positive words ``f - y = beta.gamma - 2 = w.gamma`` with
``w = beta - 2``.  Hence, with ``A^-, B^-, Q^-`` on the negative slice at ``beta`` and
``A^+, B^+, Q^+`` on the positive slice at ``w`` (:func:`.kernels.slice_contraction`):

    L            = (Q^-(beta) + Q^+(w)) / 2,
    dL/dbeta_l   = E[(f - y) gamma_l]                  = A^-_l(beta) + A^+_l(w),
    dL/dalpha_l  = E[(f - y) gamma_l (beta_l - f - 1)] = beta_l A^-_l - B^-_l + w_l A^+_l - B^+_l

(``d gamma_i/d alpha_l = gamma_i (delta_il - gamma_l)``).  Algebraically this equals the
combination ``L = 1/2 beta' M beta - 2 beta' m_+ + 1``, ``dL/dalpha_l = beta_l ((M beta)_l -
2 m_+l) - T_l + 2 (M_+ beta)_l`` (:func:`gradient_terms` computes those pieces), but near the
optimum at large attention gaps that combination subtracts O(1) numbers to get a tiny result,
whereas every slice term is itself small.  In mpmath ``A`` is integrated as ``A(w+) - A(w-)``
(positive and negative parts of ``w``) so every integrand whose value can vanish is non-negative.

Errors.  mpmath: the rule's heuristic extrapolation + the proven tail (:func:`_contraction_tail`)
+ a rounding allowance, propagated linearly: ESTIMATED.  float64: ``|I_h - I_2h|`` + a rounding
allowance relative to the absolute scale of the terms: ESTIMATED.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import mpmath
import numpy as np

from ..estimate import ErrorKind, Estimate
from ..precision import working
from ..quadrature import integrate
from .attention import TAIL_SAFETY, GeneralAttention, check_d_s, float_vector, mpf_vector
from .backends import FLOAT_STEP, FloatGrid, mp_sum, mp_vector, trapezoid
from .kernels import slice_contraction
from .moments import float_attention_grid

_ZERO = mpmath.mpf(0)


# ------------------------------------------------------------------------- mpmath contractions


@dataclass(frozen=True)
class _Part:
    """One slice contraction to integrate: ``kind`` ('all', 'neg', 'pos'), output ``w``, ``want``
    (components A_0..A_{d-1}, B_0..B_{d-1}, Q in that order, those wanted)."""

    kind: str
    w: list
    want: str

    def size(self, d: int) -> int:
        return d * (("A" in self.want) + ("B" in self.want)) + ("Q" in self.want)

    def trivial(self, s: int) -> bool:
        return all(x == 0 for l, x in enumerate(self.w) if not (self.kind == "neg" and l == s))


def _part_values(part: _Part, w, nt, d: int) -> list:
    if part.trivial(nt.s):
        return [_ZERO] * part.size(d)
    A, B, Q = slice_contraction(part.kind, nt, w, part.want)
    out = list(A) if A is not None else []
    if B is not None:
        out += list(B)
    if Q is not None:
        out.append(Q)
    return out


def _contraction_tail(part: _Part, att: GeneralAttention, T, xT: list, gh: list,
                      dh: list) -> list:
    """Proven bounds on ``int_T^inf |component|`` of one part (tail bounds of
    :mod:`.attention`): ``|V1(t)| <= N1 = sum |v_i| x_i(T)/d``, ``V2(t) <= N2 = sum v_i^2
    x_i(T)/d`` (the same for ``V1', e`` with ``|V1'| + |e| <= N1``).  On the positive slice the
    terms linear and quadratic in ``v_l`` (l != s) carry ``Delta_1`` only, bounded by ``dh[1]``.
    """
    d, s, dd = att.d, att.s, att.dd
    if part.trivial(s):
        return [_ZERO] * part.size(d)
    v = [wi * ci for wi, ci in zip(part.w, att.c)]
    if part.kind == "neg":
        v[s] = _ZERO
    abs_v = [abs(x) for x in v]
    sq_v = [x * x for x in v]
    n1 = mp_sum([a * x for a, x in zip(abs_v, xT)]) / dd
    n2 = mp_sum([sq * x for sq, x in zip(sq_v, xT)]) / dd
    lin = [dh[1] if part.kind == "pos" and l != s else gh[1] for l in range(d)]
    out = []
    if "A" in part.want:
        out += [TAIL_SAFETY * (a * g1 + n1 * gh[2]) / dd * mpmath.gammainc(2, cl * T) / cl
                for a, cl, g1 in zip(abs_v, att.c, lin)]
    if "B" in part.want:
        out += [TAIL_SAFETY * (sq * g1 + 2 * a * n1 * gh[2] + n2 * gh[2] + n1 * n1 * gh[3])
                / (2 * dd) * mpmath.gammainc(3, cl * T) / cl**2
                for a, sq, cl, g1 in zip(abs_v, sq_v, att.c, lin)]
    if "Q" in part.want:
        gam = [mpmath.gammainc(2, cl * T) / cl**2 for cl in att.c]
        s2 = mp_sum([sq * g for sq, g in zip(sq_v, gam)]) / dd
        s1 = mp_sum([a * g for a, g in zip(abs_v, gam)]) / dd
        out.append(TAIL_SAFETY * (gh[1] * s2 + gh[2] * n1 * s1))
    if part.kind == "neg":  # those components vanish identically
        if "A" in part.want:
            out[s] = _ZERO
        if "B" in part.want:
            out[("A" in part.want) * d + s] = _ZERO
    return out


def run_contractions(att: GeneralAttention, parts: list) -> tuple[list, int]:
    """One integrate call over all parts (call inside ``working(att.dps)``): per part
    ``(values, errors)``, and the number of integrand evaluations."""
    d = att.d
    sizes = [pt.size(d) for pt in parts]
    vectors = [mp_vector(pt.w) for pt in parts]
    slices = any(pt.kind == "neg" for pt in parts)
    order = 3 if any(set(pt.want) & set("AB") for pt in parts) else 2  # Q alone: G, G'' only

    def integrand(t):
        nt = att.node(t, order, slices)  # pgf terms scaled by 1/t: integrands in t
        out = []
        for pt, w in zip(parts, vectors):
            out += _part_values(pt, w, nt, d)
        return out

    def tail_bound(T):
        xT, gh, dh = att.tail_values(T, 3)
        out = []
        for pt in parts:
            out += _contraction_tail(pt, att, T, xT, gh, dh)
        return out

    res = integrate(integrand, att.points, sum(sizes), tail_bound, rel_tol=att.rel_tol)
    chunks, k = [], 0
    for n in sizes:
        chunks.append((res.values[k:k + n], res.errors[k:k + n]))
        k += n
    return chunks, res.evaluations


def _split(w: list) -> tuple[list, list]:
    return [max(x, _ZERO) for x in w], [max(-x, _ZERO) for x in w]


# ------------------------------------------------------------------------------ loss, mpmath


@dataclass(frozen=True)
class Evaluation:
    """Loss and gradient of model (1) with their error estimates (absolute).

    Also the slice pieces: ``negative`` = (A^-(beta), B^-(beta), Q^-(beta)) and ``positive`` =
    (A^+(beta - 2), B^+(beta - 2), Q^+(beta - 2)) (module docstring).
    """

    d: int
    s: int
    dps: int
    loss: mpmath.mpf
    grad_alpha: tuple
    grad_beta: tuple
    loss_error: mpmath.mpf
    grad_alpha_error: tuple
    grad_beta_error: tuple
    negative: tuple
    positive: tuple
    evaluations: int

    @property
    def loss_estimate(self) -> Estimate:
        """The loss with its error (the tail part is proven, the rest estimated)."""
        return Estimate(self.loss, self.loss_error, ErrorKind.ESTIMATED)


def evaluate_attention(att: GeneralAttention, beta: Sequence) -> Evaluation:
    """Loss, full gradient and slice pieces at output ``beta`` (one pass, O(d) per node)."""
    d, s = att.d, att.s
    with working(att.dps):
        beta = mpf_vector(beta, d, "beta")
        w = [b - 2 for b in beta]
        bp, bm = _split(beta)
        wp, wm = _split(w)
        parts = [_Part("neg", bp, "A"), _Part("neg", bm, "A"), _Part("neg", beta, "BQ"),
                 _Part("pos", wp, "A"), _Part("pos", wm, "A"), _Part("pos", w, "BQ")]
        chunks, evals = run_contractions(att, parts)
        (anp, anp_e), (anm, anm_e), (bqn, bqn_e), (app, app_e), (apm, apm_e), (bqp, bqp_e) = chunks
        rr = att.rounding_rel()
        a_neg = [x - y for x, y in zip(anp, anm)]
        a_neg_abs = [x + y for x, y in zip(anp, anm)]  # A^-(|beta|)
        a_neg_e = [x + y + rr * z for x, y, z in zip(anp_e, anm_e, a_neg_abs)]
        a_pos = [x - y for x, y in zip(app, apm)]
        a_pos_abs = [x + y for x, y in zip(app, apm)]  # A^+(|w|)
        a_pos_e = [x + y + rr * z for x, y, z in zip(app_e, apm_e, a_pos_abs)]
        b_neg, q_neg = bqn[:d], bqn[d]
        b_pos, q_pos = bqp[:d], bqp[d]
        # rounding inside the B, Q kernels: |terms| <= the kernels at |w|, and
        # B_l(|w|) <= max|w| A_l(|w|), Q(|w|) = sum_l |w_l| A_l(|w|)
        bg = [l for l in range(d) if l != s]
        top_n = max((abs(beta[l]) for l in bg), default=_ZERO)
        top_p = max(abs(x) for x in w)
        b_neg_e = [e + rr * top_n * a for e, a in zip(bqn_e[:d], a_neg_abs)]
        b_pos_e = [e + rr * top_p * a for e, a in zip(bqp_e[:d], a_pos_abs)]
        q_neg_e = bqn_e[d] + rr * mp_sum([abs(beta[l]) * a_neg_abs[l] for l in bg])
        q_pos_e = bqp_e[d] + rr * mp_sum([abs(x) * a for x, a in zip(w, a_pos_abs)])
        loss = (q_neg + q_pos) / 2
        loss_e = (q_neg_e + q_pos_e) / 2
        grad_b = tuple(a_neg[l] + a_pos[l] for l in range(d))
        grad_b_e = tuple(a_neg_e[l] + a_pos_e[l] for l in range(d))
        grad_a = tuple(beta[l] * a_neg[l] - b_neg[l] + w[l] * a_pos[l] - b_pos[l]
                       for l in range(d))
        grad_a_e = tuple(abs(beta[l]) * a_neg_e[l] + b_neg_e[l] + abs(w[l]) * a_pos_e[l]
                         + b_pos_e[l] for l in range(d))
        return Evaluation(d, s, att.dps, loss, grad_a, grad_b, loss_e, grad_a_e, grad_b_e,
                          (tuple(a_neg), tuple(b_neg), q_neg),
                          (tuple(a_pos), tuple(b_pos), q_pos), evals)


def loss_estimate(att: GeneralAttention, beta: Sequence) -> Estimate:
    """L_s(alpha, beta) alone, ``(Q^-(beta) + Q^+(beta - 2))/2``: two components.

    >>> att = GeneralAttention.from_alpha(2, 0, [0, 0], dps=15)
    >>> e = loss_estimate(att, [2, 0])  # d = 2: gamma = e_w, beta = 2 e_s fits every word
    >>> (abs(e.value) < 1e-20, e.kind.value)
    (True, 'estimated')
    """
    s = att.s
    with working(att.dps):
        b = mpf_vector(beta, att.d, "beta")
        parts = [_Part("neg", b, "Q"), _Part("pos", [x - 2 for x in b], "Q")]
        ((qn, qn_e), (qp, qp_e)), _ = run_contractions(att, parts)
        # rounding inside the kernels: Q(|w|) <= max|w|^2 P(slice) = max|w|^2 / 2 per slice
        top_n = max((abs(x) for l, x in enumerate(b) if l != s), default=_ZERO)
        top_p = max(abs(x - 2) for x in b)
        rounding = att.rounding_rel() * (top_n**2 + top_p**2) / 2
        return Estimate((qn[0] + qp[0]) / 2, (qn_e[0] + qp_e[0] + rounding) / 2,
                        ErrorKind.ESTIMATED)


@dataclass(frozen=True)
class GradientTerms:
    """The expectations of the combination for dL/dalpha (all-words form).

    ``mean_positive[l] = E[gamma_l Y]``, ``second_beta[l] = E[gamma_l (beta.gamma)] = (M beta)_l``,
    ``second_beta_positive[l] = E[gamma_l (beta.gamma) Y] = (M_+ beta)_l``,
    ``third[l] = E[(beta.gamma)^2 gamma_l]``; ``grad_alpha`` is
    ``beta_l (second_beta_l - 2 mean_positive_l) - third_l + 2 second_beta_positive_l``.
    ``errors`` maps each name to its tuple of absolute error estimates.
    """

    mean_positive: tuple
    second_beta: tuple
    second_beta_positive: tuple
    third: tuple
    grad_alpha: tuple
    errors: dict
    evaluations: int


def attention_gradient_terms(att: GeneralAttention, beta: Sequence) -> GradientTerms:
    """E[gamma_l Y], E[gamma_l beta.gamma], E[gamma_l beta.gamma Y], E[(beta.gamma)^2 gamma_l].

    All-words generating function (third moments by the t^2/2 Laplace identity), for
    cross-checks of :func:`evaluate_attention`; the combination loses ``log10(1/|grad|)`` digits
    near the optimum at large gaps, so the loss pass does not use it.
    """
    d = att.d
    with working(att.dps):
        beta = mpf_vector(beta, d, "beta")
        bp, bm = _split(beta)
        ones = [mpmath.mpf(1)] * d
        parts = [_Part("pos", ones, "A"),  # w = 1: w.gamma = 1, so A^+_l = E[gamma_l Y]
                 _Part("all", bp, "A"), _Part("all", bm, "A"),
                 _Part("pos", bp, "A"), _Part("pos", bm, "A"), _Part("all", beta, "B")]
        chunks, evals = run_contractions(att, parts)
        (mp_, mp_e), (sp_, sp_e), (sm_, sm_e), (pp_, pp_e), (pm_, pm_e), (th, th_e) = chunks
        rr = att.rounding_rel()  # see evaluate_attention for the kernels' rounding
        top = max(abs(x) for x in beta)
        mp_e = [e + rr * v for e, v in zip(mp_e, mp_)]
        sb = tuple(x - y for x, y in zip(sp_, sm_))
        sb_e = tuple(x + y + rr * (a + b) for x, y, a, b in zip(sp_e, sm_e, sp_, sm_))
        sbp = tuple(x - y for x, y in zip(pp_, pm_))
        sbp_e = tuple(x + y + rr * (a + b) for x, y, a, b in zip(pp_e, pm_e, pp_, pm_))
        th_e = [e + rr * top * (a + b) for e, a, b in zip(th_e, sp_, sm_)]
        grad = tuple(beta[l] * (sb[l] - 2 * mp_[l]) - th[l] + 2 * sbp[l] for l in range(d))
        errors = {"mean_positive": tuple(mp_e), "second_beta": sb_e,
                  "second_beta_positive": sbp_e, "third": tuple(th_e),
                  "grad_alpha": tuple(abs(beta[l]) * (sb_e[l] + 2 * mp_e[l]) + th_e[l]
                                      + 2 * sbp_e[l] for l in range(d))}
        return GradientTerms(tuple(mp_), sb, sbp, tuple(th), grad, errors, evals)


# ----------------------------------------------------------------------------- loss, float64


@dataclass(frozen=True)
class FloatEvaluation:
    """float64 loss and gradient of model (1) with |I_h - I_2h| error estimates."""

    loss: float
    grad_alpha: np.ndarray
    grad_beta: np.ndarray
    loss_error: float
    grad_alpha_error: np.ndarray
    grad_beta_error: np.ndarray
    nodes: int

    @property
    def loss_estimate(self) -> Estimate:
        """The loss with its step-halving error estimate (ESTIMATED)."""
        return Estimate(self.loss, self.loss_error, ErrorKind.ESTIMATED)


def loss_float(d: int, s: int, alpha, beta, h: float = FLOAT_STEP) -> Estimate:
    """L_s(alpha, beta) alone in float64, with the error estimate of :func:`evaluate_float`'s
    loss (the same ``Q`` integrands and rule, bit for bit, without the ``A`` and ``B``
    components of the gradient: about a third of the cost).

    >>> e = loss_float(2, 0, [0.0, 0.0], [2.0, 0.0])  # d = 2, beta = 2 e_s: loss 0
    >>> abs(e.value) < 1e-15, e.kind.value
    (True, 'estimated')
    """
    d, s = check_d_s(d, s)
    beta = float_vector(beta, d, "beta")
    g = float_attention_grid(d, s, alpha, h)
    nt = g.terms()

    def half_sum(neg: np.ndarray, pos: np.ndarray) -> np.ndarray:  # (Q^-(neg) + Q^+(pos))/2
        qn = slice_contraction("neg", nt, neg, want="Q")[2][:, 0]
        qp = slice_contraction("pos", nt, pos, want="Q")[2][:, 0]
        return 0.5 * (qn + qp)

    w = beta - 2.0
    loss, loss_e = trapezoid(half_sum(beta, w), g.h)
    loss_e += g.rounding_rel() * trapezoid(half_sum(np.abs(beta), np.abs(w)), g.h)[0]
    return Estimate(float(loss), float(loss_e), ErrorKind.ESTIMATED)


def _float_contraction(g: FloatGrid, kind: str, w: np.ndarray) -> tuple:
    """Per-node (A (n, d), B (n, d), Q (n,)) integrands in u for one slice (the kernel)."""
    A, B, Q = slice_contraction(kind, g.terms(), np.array(w, dtype=np.float64))
    return A, B, Q[:, 0]


def evaluate_grid(g: FloatGrid, beta: np.ndarray, with_errors: bool = True) -> FloatEvaluation:
    """The float64 loss pass on one grid (slice form, O(n d))."""
    h = g.h
    w = beta - 2.0
    an, bn, qn = _float_contraction(g, "neg", beta)
    ap, bp, qp = _float_contraction(g, "pos", w)
    loss_vals = 0.5 * (qn + qp)
    gb_vals = an + ap
    ga_vals = beta[None, :] * an - bn + w[None, :] * ap - bp
    loss, loss_e = trapezoid(loss_vals, h)
    gb, gb_e = trapezoid(gb_vals, h)
    ga, ga_e = trapezoid(ga_vals, h)
    if not with_errors:
        nan = np.full(len(beta), np.nan)
        return FloatEvaluation(float(loss), ga, gb, math.nan, nan, nan, g.nodes)
    # absolute scales: the same integrands at |beta|, |w| dominate every term
    an_a, bn_a, qn_a = _float_contraction(g, "neg", np.abs(beta))
    ap_a, bp_a, qp_a = _float_contraction(g, "pos", np.abs(w))
    rr = g.rounding_rel()
    loss_e += rr * trapezoid(0.5 * (qn_a + qp_a), h)[0]
    gb_e += rr * trapezoid(an_a + ap_a, h)[0]
    ga_e += rr * trapezoid(np.abs(beta) * an_a + bn_a + np.abs(w) * ap_a + bp_a, h)[0]
    return FloatEvaluation(float(loss), ga, gb, float(loss_e), ga_e, gb_e, g.nodes)


def evaluate_float(d: int, s: int, alpha, beta, h: float = FLOAT_STEP,
                   with_errors: bool = True) -> FloatEvaluation:
    """float64 version of the loss pass (slice form, O(n d)).

    Errors: ``|I_h - I_2h|`` plus a rounding allowance relative to the absolute scale of the
    terms (gradients are differences of O(loss) terms, so a tiny gradient is accurate only
    relative to that scale).  ``with_errors=False`` skips them (about half the cost).

    >>> ev = evaluate_float(2, 0, [0.0, 0.0], [2.0, 0.0])  # d = 2, beta = 2 e_s: loss 0
    >>> abs(ev.loss) < 1e-15
    True
    """
    d, s = check_d_s(d, s)
    beta = float_vector(beta, d, "beta")
    return evaluate_grid(float_attention_grid(d, s, alpha, h), beta, with_errors)
