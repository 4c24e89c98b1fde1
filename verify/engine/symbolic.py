"""Symbolic reduction of the population loss under background symmetry (SymPy).

Everything here is derived from the model definition, not typed in:

* the per-word model (1) at background-symmetric parameters, ``alpha_i = alpha_j`` and
  ``beta_i = beta_j`` for every background symbol ``i, j != s`` (the symmetry lemma of A.7), with
  ``k = C_s(w)``, ``n = |w| - k`` and ``gamma = k e^{alpha_s} / (k e^{alpha_s} + n e^{alpha_j})``;
* its squared loss and derivatives on positive words (``k >= 1``, ``y = +1``) and on negative words
  (``k = 0``, ``gamma = 0``, ``y = -1``);
* a rewrite of each positive-word expression as a polynomial in ``gamma`` (family ``"mu"``) or in
  ``1 - gamma`` (family ``"nu"``), whose population mean replaces ``gamma^r`` by the moment
  ``mu_r = E[gamma^r 1{k>=1}]`` (resp. ``nu_r = E[(1-gamma)^r 1{k>=1}]``) and the constant term by
  ``P(y = +1)``, itself derived from the generating function ``G(z) = p z / (1 - q z)``.

Per-coordinate background partials come from the tied ones: by exchangeability of the background
symbols (A.7), ``dL/dbeta_j`` for one coordinate is the tied derivative divided by ``d - 1``, and so
is ``dL/dalpha_j``.

At ``alpha = 0`` the moments are binomial moments of ``k/m`` averaged over the geometric length,
which SymPy sums in closed form (``E[1/m] = -(p/q) ln p``, ``E[1/m^2] = (p/q) Li_2(q)``): this gives
the Phase-1 and Phase-2 gradients of Theorem 2 as exact functions of ``d`` and ``eta1``.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import sympy as sp

from . import generated
from .generated import GRAD_KEYS, Family  # noqa: F401  (re-exported: the reduction's vocabulary)

MAX_ORDER = 4

d, eta1 = sp.symbols("d eta1", positive=True)
k, n = sp.symbols("k n", nonnegative=True)
alpha_s, alpha_j, beta_s, beta_j = sp.symbols("alpha_s alpha_j beta_s beta_j", real=True)
_g = sp.Symbol("g", positive=True)  # gamma_s on a positive word
M = sp.symbols("M1:%d" % (MAX_ORDER + 1))  # moments of the chosen family, M[r-1] = E[.^r 1{k>=1}]
# Residual of a positive word where the family's variable vanishes (f - y at gamma = 0 for mu,
# at gamma = 1 for nu), and the output gap; positive-word terms are written in these so that
# no O(1) terms cancel when the loss is tiny.
e0, D = sp.symbols("e0 Delta", real=True)


def p_of_d(dd: sp.Expr = d) -> sp.Expr:
    """Termination probability p = 1/(d-1) of the balanced distribution rho (Section 2)."""
    return 1 / (dd - 1)


def pgf(z: sp.Expr, dd: sp.Expr = d) -> sp.Expr:
    """Generating function of the word length, G(z) = p z / (1 - q z) (proofs/model.md, section 2)."""
    p = p_of_d(dd)
    return p * z / (1 - (1 - p) * z)


def prob_positive() -> sp.Expr:
    """P(y = +1) = 1 - G((d-1)/d): the mass of words that contain s (Section 2: equals 1/2)."""
    return sp.simplify(1 - pgf((d - 1) / d))


def gamma_s() -> sp.Expr:
    """Aggregated attention on the target symbol at background-symmetric attention."""
    return k * sp.exp(alpha_s) / (k * sp.exp(alpha_s) + n * sp.exp(alpha_j))


def model_output() -> sp.Expr:
    """f(w) = sum_i beta_i gamma_i(w) - 1 (model (1)) with the background weights tied."""
    g = gamma_s()
    return beta_s * g + beta_j * (1 - g) - 1


def _word_quantities(y: int) -> dict[str, sp.Expr]:
    """Per-word loss and tied derivatives for label y (tied = summed over the background)."""
    loss = sp.Rational(1, 2) * (model_output() - y) ** 2
    if y == -1:
        loss = loss.subs(k, 0)
    out = {"loss": loss}
    for key, var in zip(GRAD_KEYS, (alpha_s, alpha_j, beta_s, beta_j)):
        out[key] = sp.diff(loss, var)
    return out


def _as_polynomial_in_gamma(expr: sp.Expr) -> sp.Poly:
    """Rewrite a positive-word expression as a polynomial in gamma = gamma_s (k, n eliminated)."""
    n_of_gamma = k * sp.exp(alpha_s - alpha_j) * (1 - _g) / _g
    e = sp.expand(sp.simplify(expr.subs(n, n_of_gamma)))
    poly = sp.Poly(e, _g)
    if poly.free_symbols - {_g, beta_s, beta_j}:
        raise AssertionError(f"reduction left extra symbols: {poly.free_symbols}")
    return poly


def stable_variables(family: Family) -> dict[sp.Symbol, sp.Expr]:
    """beta_s, beta_j in terms of (e0, D): ``e0 = beta_j - 2`` (mu) or ``beta_s - 2`` (nu),
    ``D = beta_s - beta_j``."""
    if family == "mu":
        return {beta_j: e0 + 2, beta_s: e0 + 2 + D}
    return {beta_s: e0 + 2, beta_j: e0 + 2 - D}


def _population_mean(poly: sp.Poly, family: Family) -> sp.Expr:
    """E[poly(gamma) 1{k>=1}] in terms of the family's moments and P(y = +1), with the
    coefficients written in the stable variables (e0, D)."""
    if family == "nu":  # re-expand in h = 1 - gamma
        h = sp.Symbol("h")
        poly = sp.Poly(sp.expand(poly.as_expr().subs(_g, 1 - h)), h)
    coeffs = poly.all_coeffs()[::-1]  # c_0, c_1, ...
    if len(coeffs) - 1 > MAX_ORDER:
        raise AssertionError("moment order exceeds MAX_ORDER")
    stable = stable_variables(family)
    coeffs = [sp.expand(c.subs(stable, simultaneous=True)) for c in coeffs]
    mean = coeffs[0] * prob_positive()
    for r, c in enumerate(coeffs[1:], start=1):
        mean += c * M[r - 1]
    return mean


def population_mean(positive: sp.Expr, negative: sp.Expr, family: Family = "mu") -> sp.Expr:
    """E[X] for a per-word quantity X at background-symmetric parameters, given on positive
    words (in k, n and the four scalars) and on negative words (read at k = 0): the positive
    part as a polynomial in the family's moments and P(y = +1), the negative part times
    P(y = -1) -- the same pass :func:`reduce_symmetric` makes for the loss and its partials."""
    return (_population_mean(_as_polynomial_in_gamma(positive), family)
            + (1 - prob_positive()) * negative.subs(k, 0))


@dataclass(frozen=True)
class Reduction:
    """Population loss and gradient at background-symmetric parameters (per-coordinate partials).

    Each expression is a polynomial in the moments ``M1..M4`` of ``family`` with coefficients
    rational in ``d``: positive words contribute polynomials in the stable variables ``e0, D``
    (:func:`stable_variables`), negative words a polynomial in ``beta_j``.  :meth:`plain`
    rewrites an expression in ``beta_s, beta_j`` only (for display; not for evaluation).
    """

    family: Family
    loss: sp.Expr
    grad: dict[str, sp.Expr]

    def plain(self, expr: sp.Expr) -> sp.Expr:
        """``expr`` with ``e0, D`` replaced by their definitions in ``beta_s, beta_j``."""
        back = {e0: (beta_j if self.family == "mu" else beta_s) - 2, D: beta_s - beta_j}
        return sp.expand(expr.subs(back, simultaneous=True))

    @property
    def order(self) -> int:
        """Highest moment used."""
        exprs = [self.loss, *self.grad.values()]
        return max((r + 1 for r in range(MAX_ORDER) if any(e.has(M[r]) for e in exprs)), default=0)


@lru_cache(maxsize=None)
def reduce_symmetric(family: Family = "mu") -> Reduction:
    """Carry out the four-scalar reduction of the population loss and its gradient (A.7)."""
    pos = _word_quantities(+1)
    neg = _word_quantities(-1)
    p_neg = 1 - prob_positive()
    exprs = {}
    for key in ("loss", *GRAD_KEYS):
        total = _population_mean(_as_polynomial_in_gamma(pos[key]), family) + p_neg * neg[key]
        if key in ("alpha_j", "beta_j"):
            total = total / (d - 1)
        exprs[key] = total
    return Reduction(family, exprs["loss"], {key: exprs[key] for key in GRAD_KEYS})


def _length_moment(i: int) -> sp.Expr:
    """E[m^i] for the geometric word length, summed by SymPy (i may be negative)."""
    m = sp.Symbol("m", integer=True, positive=True)
    p, q = sp.symbols("p q", positive=True)
    s = sp.summation(m**i * p * q ** (m - 1), (m, 1, sp.oo))
    s = sp.piecewise_fold(s)
    s = s.args[0][0] if isinstance(s, sp.Piecewise) else s  # the convergent branch, 0 < q < 1
    return s.subs({p: p_of_d(), q: 1 - p_of_d()})


@lru_cache(maxsize=None)
def moments_at_zero_attention(order: int = 3) -> tuple[sp.Expr, ...]:
    """mu_r = E[(k/m)^r 1{k>=1}] at alpha = 0, r = 1..order, in closed form in d.

    Given m, k ~ Binomial(m, 1/d), so E[k^r | m] = sum_j S(r, j) m^(j) d^-j (falling factorials);
    dividing by m^r leaves a Laurent polynomial in m, averaged with :func:`_length_moment`.
    """
    m = sp.Symbol("m", positive=True)
    out = []
    for r in range(1, order + 1):
        cond = sum(sp.functions.combinatorial.numbers.stirling(r, j) * sp.ff(m, j) / d**j
                   for j in range(1, r + 1))
        total = sp.Integer(0)
        for (power,), c in sp.Poly(sp.expand(cond), m).terms():
            total += c * _length_moment(power - r)  # E[m^power / m^r]
        out.append(sp.simplify(total))
    return tuple(out)


@lru_cache(maxsize=None)
def three_phase_closed_forms() -> dict[str, sp.Expr]:
    """Phase 1 and Phase 2 of Theorem 2 in closed form (per-coordinate values).

    Returns ``beta1_s, beta1_j`` (beta' = -eta1 grad_beta L(0, 0)) and ``grad2_alpha_s``,
    ``grad2_alpha_j`` (grad_alpha L(0, beta') as functions of d and eta1); Phase 2 gives
    alpha' = -eta2 * grad2.
    """
    red = reduce_symmetric("mu")
    mus = moments_at_zero_attention(red.order)
    at_zero = {M[r]: mus[r] for r in range(red.order)}
    grad = {key: red.plain(expr) for key, expr in red.grad.items()}
    b1s = sp.simplify(-eta1 * grad["beta_s"].subs({beta_s: 0, beta_j: 0, **at_zero}))
    b1j = sp.simplify(-eta1 * grad["beta_j"].subs({beta_s: 0, beta_j: 0, **at_zero}))
    phase2 = {beta_s: b1s, beta_j: b1j, **at_zero}
    return {
        "beta1_s": b1s,
        "beta1_j": b1j,
        "grad2_alpha_s": sp.simplify(grad["alpha_s"].subs(phase2)),
        "grad2_alpha_j": sp.simplify(grad["alpha_j"].subs(phase2)),
    }


def lambdify_reduction(family: Family, namespace: dict | None = None) -> Callable[..., tuple]:
    """Numeric form of :func:`reduce_symmetric`: ``fn(d, beta_s, beta_j, M1..M4)`` returns
    ``(loss, dL/dalpha_s, dL/dalpha_j, dL/dbeta_s, dL/dbeta_j)`` (mpmath arithmetic, or the number
    type of ``namespace``: see :mod:`verify.engine.generated`), through the generated code's cache
    (:mod:`verify.engine.generated`)."""
    return generated.reduction(family, namespace)


def form_source(name: str) -> dict:
    """The Python code SymPy prints for one closed form (``reduction-mu``, ``reduction-nu``:
    ``fn(d, beta_j, e0, Delta, M1..M4)``; ``phases``, ``gap-rate``: ``fn(d, eta1)`` with Li_2
    as ``dilog_q(d)``), with the highest moment order it uses: what
    :mod:`verify.engine.generated` caches."""
    if name.startswith("reduction-"):
        red = reduce_symmetric(name.split("-", 1)[1])
        args, exprs, meta = (d, beta_j, e0, D, *M), [red.loss, *(red.grad[key] for key in GRAD_KEYS)], red.order
    elif name == "phases":
        forms = three_phase_closed_forms()
        args, exprs, meta = (d, eta1), _in_dilog([forms[key] for key in PHASE_KEYS]), 0
    elif name == "gap-rate":
        args, exprs, meta = (d, eta1), _in_dilog([gap_rate_closed_form()]), 0
    elif name == "gap-rate-parts":
        r0, r1 = gap_rate_parts()
        args, exprs, meta = (d, eta1), _in_dilog([r0, sp.sqrt(d) * r1]), 0
    elif name == "phase1-rates":
        args, exprs, meta = (d, eta1), _in_dilog(phase1_rates()), 0
    else:
        raise ValueError(f"unknown closed form {name!r}")
    # SymPy's mpmath printer writes rationals as mpf(p)/mpf(q) and integers as Python ints, so
    # with a namespace supplying mpf (the number constructor), log and dilog_q the same code runs
    # on mpmath, Arb balls or anything with + - * / and integer powers; every coefficient exact
    fn = sp.lambdify(args, exprs, modules=["mpmath"])
    return {"code": inspect.getsource(fn), "order": meta}


PHASE_KEYS = ("beta1_s", "beta1_j", "grad2_alpha_s", "grad2_alpha_j")
DILOG_Q = sp.Function("dilog_q")  # Li_2((d - 2)/(d - 1)) as one function of d


def _in_dilog(exprs: list) -> list:
    """``exprs`` with Li_2((d - 2)/(d - 1)) written as one function ``dilog_q(d)``, increasing in
    d, so a number type of ranges can enclose it from the ends of d's range: the ratio's own
    interval over a range of large d reaches past 1, where Li_2 is complex."""
    li2 = sp.polylog(2, (d - 2) / (d - 1))
    exprs = [e.subs(li2, DILOG_Q(d)) for e in exprs]
    if any(e.has(sp.polylog) for e in exprs):
        raise ArithmeticError("a Li_2 term the substitution missed")
    return exprs


def _lambdify_in_d(name: str, namespace: dict | None) -> Callable[..., list]:
    """The closed form ``name`` (a function of d and eta1, :func:`form_source`) as
    ``fn(d, eta1)``; ``namespace`` may give ``dilog_q``, by default its
    ``polylog(2, (d - 2)/(d - 1))``."""
    ns = dict(namespace or {})
    if "dilog_q" not in ns:
        polylog = ns.get("polylog")
        if polylog is None:
            import mpmath
            polylog = mpmath.polylog
        ns["dilog_q"] = lambda x: polylog(2, (x - 2) / (x - 1))
    return generated.compile_form(name, ns)


def lambdify_phases(namespace: dict | None = None) -> Callable[..., list]:
    """:func:`three_phase_closed_forms` as ``fn(d, eta1) -> [beta1_s, beta1_j, grad2_alpha_s,
    grad2_alpha_j]`` on the number type of ``namespace`` (needs ``log`` and ``polylog``;
    Li_2 enters through ``dilog_q``, see :func:`_lambdify_in_d`)."""
    return _lambdify_in_d("phases", namespace)


@lru_cache(maxsize=None)
def gap_rate_closed_form() -> sp.Expr:
    """``d^2 (grad2_alpha_s - grad2_alpha_j) / eta1`` as one rational function of d, eta1,
    ln(d - 1) and Li_2 (Li_2 already written ``dilog_q(d)``): Phase 2's attention gap is
    ``-C ln(d/eps)`` times it when eta2 = C d^2/eta1 ln(d/eps).  Cancelled symbolically, the
    growing d^2/eta1 and the shrinking gradient no longer meet as a product of two ranges
    (tends to -2 as d grows)."""
    forms = three_phase_closed_forms()
    li2 = sp.polylog(2, (d - 2) / (d - 1))
    diff = (forms["grad2_alpha_s"] - forms["grad2_alpha_j"]).subs(li2, DILOG_Q(d))
    return sp.factor(sp.cancel(d**2 * diff / eta1))


def lambdify_gap_rate(namespace: dict | None = None) -> Callable[..., list]:
    """:func:`gap_rate_closed_form` as ``fn(d, eta1) -> [rate]`` (see :func:`_lambdify_in_d`)."""
    return _lambdify_in_d("gap-rate", namespace)


@lru_cache(maxsize=None)
def gap_rate_parts() -> tuple[sp.Expr, sp.Expr]:
    """``(r0, r1)`` with :func:`gap_rate_closed_form` ``= r0 + eta1 r1`` (it is linear in eta1:
    the Phase-2 gradient is a quadratic in eta1 without constant term, and the rate divides it
    by eta1).  At ``eta1 = u sqrt(d)`` the rate is ``r0 + u sqrt(d) r1``, finite at ``u = 0``
    (proofs/hypothesis-range.md)."""
    rate = gap_rate_closed_form()
    r1 = sp.cancel(sp.diff(rate, eta1))
    r0 = sp.cancel(rate.subs(eta1, 0))
    if r1.has(eta1) or sp.cancel(rate - r0 - eta1 * r1) != 0:
        raise AssertionError("the gap rate is not linear in eta1")
    return sp.factor(r0), sp.factor(r1)


def lambdify_gap_rate_parts(namespace: dict | None = None) -> Callable[..., list]:
    """:func:`gap_rate_parts` as ``fn(d, eta1) -> [r0, sqrt(d) r1]`` (eta1 unused; see
    :func:`_lambdify_in_d`; needs ``sqrt`` in the namespace for balls)."""
    return _lambdify_in_d("gap-rate-parts", namespace)


def lambdify_phase1_rates(namespace: dict | None = None) -> Callable[..., list]:
    """Phase 1 per unit step, ``fn(d, eta1) -> [beta'_s/eta1, beta'_j/eta1]`` (eta1 unused:
    beta' = -eta1 grad_beta L(0, 0) is linear in eta1)."""
    return _lambdify_in_d("phase1-rates", namespace)


def phase1_rates() -> list[sp.Expr]:
    """[beta'_s/eta1, beta'_j/eta1]: Phase 1 divided by its step (a function of d alone)."""
    forms = three_phase_closed_forms()
    rates = [sp.cancel(forms[key] / eta1) for key in ("beta1_s", "beta1_j")]
    if any(r.has(eta1) for r in rates):
        raise AssertionError("Phase 1 is not linear in eta1")
    return rates


def background_worst_case(beta_s_value=2, beta_j_value=0) -> list[tuple[str, bool]]:
    """Why the background-symmetric attention at the exact gap is the worst case of
    Proposition 1 (proofs/prop1.md, step 9), for every d: the steps and SymPy's verdict on each.

    On a word with k >= 1 target symbols and background counts C_j, gamma_s = k/(k + X) with
    X = sum_j C_j e^(alpha_j - alpha_s) (model (1)); X increases in every background logit, and
    alpha_s - max_j alpha_j >= g gives X <= n e^-g (n = sum_j C_j), with equality at the
    symmetric point alpha_j = alpha_s - g.  So the steps: the per-word loss at
    beta = (beta_s, beta_j) (default 2 e_s) is, on positive words, a function of h = 1 - gamma_s
    that does not decrease in h on [0, 1], and on negative words does not depend on alpha;
    h = X/(k + X) increases in X; X increases in each alpha_j.  Then L_s(alpha, beta) <=
    L_s(g e_s, beta) for every such alpha, whatever d is."""
    X, b, h = sp.symbols("X b h", nonnegative=True)
    kk = sp.Symbol("k", positive=True)
    a = sp.Symbol("a", real=True)
    fix = {beta_s: sp.sympify(beta_s_value), beta_j: sp.sympify(beta_j_value)}
    positive = (sp.Rational(1, 2) * (model_output() - 1) ** 2).subs(fix)
    in_h = sp.expand(positive.subs(k, kk).subs(n, kk * sp.exp(alpha_s - alpha_j) * h / (1 - h))
                     .simplify())
    slope = sp.diff(in_h, h)
    on_unit = slope.subs(h, sp.Symbol("w", positive=True) / (1 + sp.Symbol("w", positive=True)))
    negative = (sp.Rational(1, 2) * (model_output() + 1) ** 2).subs(fix).subs(k, 0)
    share = X / (kk + X)
    return [
        ("positive words: the loss does not decrease in h = 1 - gamma_s on [0, 1]",
         bool(sp.simplify(on_unit).is_nonnegative) or bool(sp.simplify(slope).is_nonnegative)),
        ("negative words: the loss does not depend on the attention",
         not negative.has(alpha_s, alpha_j)),
        ("h = X/(k + X) increases in X >= 0",
         bool(sp.simplify(sp.diff(share, X) - kk / (kk + X) ** 2) == 0)
         and bool((kk / (kk + X) ** 2).is_positive)),
        ("X increases in each background logit: d/da (C e^(a - alpha_s)) > 0",
         bool(sp.diff(sp.exp(a - alpha_s), a).is_positive)),
        ("at the symmetric point the bound X <= n e^-g is attained",
         sp.simplify(gamma_s().subs(alpha_j, alpha_s + sp.log(b)) - kk / (kk + n * b)).subs(k, kk)
         .simplify() == 0),
    ]
