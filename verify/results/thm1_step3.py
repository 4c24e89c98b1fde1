"""Theorem 1's lost step 3 of A.6, reconstructed and proved by SymPy for every d >= 9.

The text keeps the case split on max_{i != s} a_i against d/2 and the bound l >= 1/8 on
{z} u Z(z), but lost how the target s is chosen, the second moments of xi and the definition of
G_m.  The reconstruction (proofs/thm1.md, steps 1, 3, 5, 6, 8 and 11):

* the target: sum_s d/d(alpha_s) L_s(0, beta0) = 0 (per word, y_s gamma_s = gamma_s), so some s has
  g_s := d/d(alpha_s) L_s(0, beta0) >= 0; with a_i = exp(alpha'_i - alpha'_s) and
  sum_j d/d(alpha_j) L_s = 0, the mean mu of the a_i (i != s) is >= 1 + eta d g_s/(d-1) >= 1;
* G_m = {negative z, |z| = m : S(z) >= d/4}, S(z) = sum_{i != s} C_i(z) a_i, on which every
  z' in Z(z) has gamma_s(z') = 1/(1 + S(z)) <= 4/d;
* case max a_i < d/2: S is a sum of m i.i.d. copies of xi ~ Unif{a_i}, E S = m mu >= d,
  Var S <= m (d/2) mu, and Cantelli's inequality gives P(S <= d/4) <= 8/17, so P(G_m) >= 9/17;
* on G_m with beta_s <= d/4: l(z) >= 1/8, or l(z') > 1/8 for every z' in Z(z).

Each judge returns SYMBOLIC evidence only when every link is verified by SymPy for the whole range,
and states a second route (the engine's gradients, exact binomial probabilities, exact rational
points) that must agree.  Part of :mod:`verify.results.thm1`.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import sympy as sp

from ..checks import Case, Check, Constants, Evidence, Outcome
from .common import rational, single_case

# the hypotheses and constants of step 3 (the text's; a test mutates each one)
MEAN_RATIO_MIN = sp.Integer(1)  # mu >= 1 at the chosen target (step 1)
CASE_SPLIT = sp.Rational(1, 2)  # case 2 of A.6: max_{i != s} a_i < d/2
LEVEL = sp.Rational(1, 4)  # G_m: S(z) >= d/4, hence gamma_s(z') <= 4/d
GOOD = sp.Rational(1, 8)  # P(G_m | |z| = m, y = -1) >= 1/8 (A.6, both cases)
LARGE = sp.Rational(1, 4)  # this step's outputs: beta_s <= d/4 (the rest is thm1.large_output)
SPLIT_OUTPUT = sp.Rational(1, 2)  # the text's split of B(z) = sum_{i != s} beta_i gamma_i(z)
LOSS_FLOOR = sp.Rational(1, 8)  # l >= 1/8 on z or on every z' in Z(z)
RATIO = sp.Rational(1, 2)  # rho(Z(z))/rho(z) >= 1/2 (thm1.insertion_ratio)

_d = sp.Symbol("d", integer=True, positive=True)
_k = sp.Symbol("k", integer=True, positive=True)
_j = sp.Symbol("j", integer=True, positive=True)
_alpha, _C, _beta, _Y = (sp.IndexedBase(n) for n in ("alpha", "C", "beta", "y"))


def _nonneg_coefficients(expr, *symbols) -> bool:
    """expr, expanded as a polynomial in the non-negative ``symbols``, has no negative
    coefficient (so expr >= 0 on the whole orthant)."""
    return all(c >= 0 for c in sp.Poly(sp.expand(expr), *symbols).coeffs())


def _nonneg_fraction(expr, *symbols) -> bool:
    """expr >= 0 on the whole orthant of ``symbols``: as one fraction, its numerator has no
    negative coefficient and its denominator none either, with a positive constant term."""
    num, den = sp.fraction(sp.together(expr))
    den_poly = sp.Poly(sp.expand(den), *symbols)
    return (_nonneg_coefficients(num, *symbols) and _nonneg_coefficients(den, *symbols)
            and den_poly.eval({s: 0 for s in symbols}) > 0)


def _frac(r: sp.Rational) -> Fraction:
    return Fraction(int(r.p), int(r.q))


def _times_d(r: sp.Rational) -> str:
    """``r d`` as text: d/4, d/2, d, 4*d."""
    return sp.sstr(r * sp.Symbol("d"))


# ============================================================ proofs/thm1.md step 1: the target


def model(d=_d) -> tuple:
    """(Z, f, gamma) of the one-head model on a word with counts C_k (k = 1..d, symbolic d):
    Z = sum_k C_k e^(alpha_k), f = sum_k beta_k C_k e^(alpha_k)/Z - 1, gamma(i) = C_i e^(alpha_i)/Z
    (paper, Section 2)."""
    k = _k
    Z = sp.Sum(_C[k] * sp.exp(_alpha[k]), (k, 1, d))
    f = sp.Sum(_beta[k] * _C[k] * sp.exp(_alpha[k]), (k, 1, d)) / Z - 1
    return Z, f, lambda i: _C[i] * sp.exp(_alpha[i]) / Z


def label(count):
    """y_s as a function of C_s: +1 when s occurs, else -1."""
    return sp.Piecewise((1, count >= 1), (-1, True))


def _in_range_branch(pw: sp.Piecewise):
    """The branch of SymPy's Sum-of-KroneckerDelta result that holds for an index j in 1..d."""
    value, cond = pw.args[0]
    if cond not in (sp.Ge(_d, _j), sp.Le(_j, _d), sp.And(sp.Ge(_j, 1), sp.Le(_j, _d))):
        raise ArithmeticError(f"unexpected branch condition {cond}")
    return value


def proved_zero(expr) -> bool:
    """SymPy shows ``expr`` (sums over a symbolic number of symbols allowed) is identically 0;
    False when it cannot (SymPy's sum simplifier raises on some non-zero sums: not proved)."""
    try:
        return sp.simplify(sp.expand(expr)) == 0
    except Exception:  # noqa: BLE001 -- any failure of the simplifier means "not proved"
        return False


def zero_at_points(expr, ds=(3, 4), seed=0) -> bool:
    """The second route: ``expr`` at d = 3 and 4 with seeded exact rationals for e^(alpha_k),
    beta_k and counts C_k (C_1 >= 1, so the word is not empty; y_k the label of C_k) is 0."""
    import random

    rnd = random.Random(seed)
    for d in ds:
        subs = {}
        for i in range(1, d + 1):
            subs[sp.exp(_alpha[i])] = sp.Rational(rnd.randint(1, 9), rnd.randint(1, 9))
            subs[_C[i]] = rnd.randint(1 if i == 1 else 0, 3)
            subs[_beta[i]] = sp.Rational(rnd.randint(-9, 9), rnd.randint(1, 9))
            subs[_Y[i]] = 1 if subs[_C[i]] >= 1 else -1
        if sp.simplify(expr.subs(_d, d).doit().xreplace(subs)) != 0:
            return False
    return True


def per_word_partial() -> bool:
    """d/d(alpha_j) of l = (f - y)^2/2 equals (f - y) gamma_j (beta_j - f - 1) for every d (SymPy
    differentiates the softmax with a symbolic number of symbols, then at d = 3, j = 2 with
    exact rationals as a second route)."""
    Z, f, gamma = model()
    y = sp.Symbol("y", real=True)
    claimed = (f - y) * gamma(_j) * (_beta[_j] - f - 1)
    partial = sp.diff((f - y) ** 2 / 2, _alpha[_j]).doit()
    try:
        partial = partial.replace(lambda e: isinstance(e, sp.Piecewise), _in_range_branch)
    except ArithmeticError:
        return False
    sums = {e: sp.Dummy() for e in partial.atoms(sp.Sum) | claimed.atoms(sp.Sum)}
    symbolic = proved_zero((partial - claimed).xreplace(sums))  # each sum an opaque symbol
    explicit = ((f - y) ** 2 / 2).subs(_d, 3).doit()
    at_point = (sp.diff(explicit, _alpha[2]) - claimed.subs({_d: 3, _j: 2}).doit()).subs(y, 1)
    return symbolic and zero_at_points(at_point, ds=(3,))


def shift_sum() -> bool:
    """sum_j gamma_j (beta_j - f - 1) = 0 for every word and every d: so sum_j d/d(alpha_j) l = 0
    (softmax is shift invariant)."""
    Z, f, gamma = model()
    total = sp.Sum(gamma(_k) * (_beta[_k] - f - 1), (_k, 1, _d))
    return proved_zero(total) and zero_at_points(total)


def label_identity() -> bool:
    """(1 - y_s) gamma_s = 0 on every word: gamma_s is proportional to C_s, and y_s = +1 when
    C_s >= 1 (each branch of the piecewise product vanishes for an integer C_s >= 0)."""
    count = sp.Symbol("C_s", integer=True, nonnegative=True)
    Zs = sp.Symbol("Z", positive=True)
    product = sp.piecewise_fold((1 - label(count)) * count * sp.exp(sp.Symbol("a")) / Zs)
    pieces = product.args if isinstance(product, sp.Piecewise) else ((product, True),)
    for value, cond in pieces:
        at = value if cond != sp.true else value.subs(count, 0)  # the else-branch: C_s = 0
        if cond not in (sp.true, count >= 1) or sp.simplify(at) != 0:
            return False
    return True


def target_sum() -> bool:
    """sum_s d/d(alpha_s) l_s = 0 on every word: sum_k (f - y_k) gamma_k (beta_k - f - 1) splits
    into (f - 1) sum_k gamma_k (beta_k - f - 1) = 0 and sum_k (1 - y_k) gamma_k (...), whose
    terms vanish by :func:`label_identity`."""
    Z, f, gamma = model()
    k = _k
    whole = sp.Sum((f - _Y[k]) * gamma(k) * (_beta[k] - f - 1), (k, 1, _d))
    first = sp.Sum((f - 1) * gamma(k) * (_beta[k] - f - 1), (k, 1, _d))
    second = sp.Sum((1 - _Y[k]) * gamma(k) * (_beta[k] - f - 1), (k, 1, _d))
    return (proved_zero(whole - first - second) and proved_zero(first) and label_identity()
            and zero_at_points(whole))


def mean_relative_logit() -> sp.Expr:
    """mean over i != s of alpha'_i - alpha'_s = -eta (g_i - g_s), given sum_{i != s} g_i = -g_s
    (:func:`shift_sum`): SymPy simplifies it to eta d g_s/(d - 1)."""
    eta, g = sp.symbols("eta g_s", nonnegative=True)
    rest = -g  # sum_{i != s} g_i
    return sp.simplify((-eta * rest + (_d - 1) * eta * g) / (_d - 1))


def exp_tangent() -> bool:
    """e^x >= 1 + x: h = e^x - 1 - x has h(0) = h'(0) = 0 and h'' = e^x > 0."""
    x = sp.Symbol("x", real=True)
    h = sp.exp(x) - 1 - x
    return bool(h.subs(x, 0) == 0 and sp.diff(h, x).subs(x, 0) == 0
                and sp.diff(h, x, 2).is_positive)


def engine_route(d: int = 9, seed: int = 0) -> dict:
    """The same facts from the engine's gradients at alpha = 0 (float64): for seeded beta0,
    |sum_s g^(s)_s| and max_s |sum_j g^(s)_j| relative to max |g|, the chosen target's g_s, and
    the smallest log mu over eta in [1e-3, 1e6] (mu by log-sum-exp, no overflow)."""
    from ..engine.one_step import FloorSearch

    rng = np.random.default_rng([seed, d, 37])
    outputs = [2.0 * np.eye(d)[0], rng.normal(size=d), 3.0 * rng.normal(size=d)]
    fs = FloorSearch(d)
    worst = dict(target_sum=0.0, shift_sum=0.0, g_s=np.inf, log_mu=np.inf)
    for beta0 in outputs:
        grads = fs.grads(beta0, list(range(d)))
        scale = max(float(np.abs(g).max()) for g in grads.values())
        diag = np.array([grads[s][s] for s in range(d)])
        worst["target_sum"] = max(worst["target_sum"], abs(float(diag.sum())) / scale)
        worst["shift_sum"] = max(worst["shift_sum"],
                                 max(abs(float(g.sum())) for g in grads.values()) / scale)
        s = int(np.argmax(diag))
        worst["g_s"] = min(worst["g_s"], float(diag[s]))
        for eta in np.logspace(-3, 6, 10):
            x = np.delete(-eta * (grads[s] - grads[s][s]), s)
            top = x.max()
            worst["log_mu"] = min(worst["log_mu"],
                                  float(top + np.log(np.exp(x - top).sum()) - np.log(d - 1)))
    return worst


def _judge_target_choice(case: Case, constants: Constants) -> Outcome:
    """Step 1, for every d >= 2, beta0 and eta >= 0: the identities by SymPy (symbolic d), then the
    engine's gradients at d = 9 as a second route; passes only when both hold."""
    links = dict(partial=per_word_partial(), shift=shift_sum(), label=label_identity(),
                 target=target_sum(), tangent=exp_tangent())
    mean = mean_relative_logit()
    eta, g = sp.symbols("eta g_s", nonnegative=True)
    x = sp.Symbol("x", nonnegative=True)  # d = 2 + x
    links["mean"] = sp.simplify(mean - eta * _d * g / (_d - 1)) == 0 and bool(
        mean.subs(_d, 2 + x).is_nonnegative)
    # mu >= 1 + mean >= MEAN_RATIO_MIN (the hypothesis step 5 uses)
    links["mu"] = bool(1 >= MEAN_RATIO_MIN)
    eng = engine_route()
    tol = 1e-10
    numeric = (eng["target_sum"] <= tol and eng["shift_sum"] <= tol and eng["g_s"] >= 0
               and eng["log_mu"] >= -tol)
    proved = all(links.values())
    failed = [k for k, v in links.items() if not v]
    detail = (f"SymPy, for symbolic d: d/d(alpha_j) (f-y)^2/2 = (f-y) gamma_j (beta_j-f-1) "
              f"[{links['partial']}]; sum_j gamma_j (beta_j-f-1) = 0 [{links['shift']}]; "
              f"(1-y_s) gamma_s = 0 [{links['label']}]; hence sum_s d/d(alpha_s) l_s = 0 "
              f"[{links['target']}]: some s has g_s >= 0; mean_(i!=s) (alpha'_i - alpha'_s) = "
              f"{sp.sstr(mean)} >= 0 [{links['mean']}]; e^x >= 1+x [{links['tangent']}], so "
              f"mu >= 1 >= {MEAN_RATIO_MIN} [{links['mu']}]"
              + (f"; NOT PROVED: {', '.join(failed)}" if failed else "")
              + f". Engine (d = 9, 3 seeded beta0, float64): |sum_s g_s|/max|g| = "
              f"{eng['target_sum']:.1e}, |sum_j g_j|/max|g| = {eng['shift_sum']:.1e}, chosen "
              f"g_s >= {eng['g_s']:.3g}, min log mu over eta in [1e-3, 1e6] = {eng['log_mu']:.3g}"
              f" (agrees: {numeric})")
    return Outcome(case.label, bool(proved and numeric), None, Evidence.SYMBOLIC, detail)


# =================================================== step 3: the attention after an insertion


def insertion_attention() -> dict:
    """For a negative z and z' = z with one s inserted (any place), in units of e^(alpha_s):
    R = sum_{i != s} C_i e^(alpha_i), S = R e^(-alpha_s).  SymPy checks gamma_s(z') = 1/(1 + S),
    gamma_i(z') = gamma_i(z)(1 - gamma_s(z')) for one background term, and
    B(z') = B(z)(1 - gamma_s(z')) for B = sum_{i != s} beta_i gamma_i with n symbolic terms."""
    es, R, w = sp.symbols("e_s R w_i", positive=True)
    S = R / es
    gamma_s = es / (es + R)
    one = sp.simplify(gamma_s - 1 / (1 + S)) == 0
    term = sp.simplify(w / (es + R) - (w / R) * (1 - gamma_s)) == 0
    n, i = sp.Symbol("n", integer=True, positive=True), sp.Symbol("i", integer=True, positive=True)
    wi = sp.IndexedBase("w")
    total = sp.Sum(wi[i], (i, 1, n))
    after = sp.Sum(_beta[i] * wi[i] / (es + total), (i, 1, n))
    before = sp.Sum(_beta[i] * wi[i] / total, (i, 1, n))
    B = sp.simplify((after - (1 - es / (es + total)) * before).expand()) == 0
    return dict(gamma_s=one, gamma_i=term, B=B)


def _judge_insertion_attention(case: Case, constants: Constants) -> Outcome:
    """The attention on s in every z' in Z(z), and the two cases landing in G_m = {S >= d/4}:
    gamma_s(z') = 1/(1 + S) decreases in S, so S >= LEVEL d gives gamma_s(z') <= 1/(LEVEL d) = 4/d;
    case 1 (the maximiser i of a_i, a_i >= d/2, occurs in z): S >= C_i a_i >= a_i >= d/2 >= d/4."""
    links = insertion_attention()
    S = sp.Symbol("S", nonnegative=True)
    links["decreasing"] = bool(sp.diff(1 / (1 + S), S).is_negative)
    x = sp.Symbol("x", nonnegative=True)  # d = x > 0 written as any positive real
    # 1/(LEVEL d) - 1/(1 + LEVEL d) = 1/(LEVEL d (1 + LEVEL d)) > 0 for every d > 0
    level_gap = sp.together(1 / (LEVEL * x) - 1 / (1 + LEVEL * x))
    links["level"] = sp.simplify(level_gap - 1 / (LEVEL * x * (1 + LEVEL * x))) == 0
    links["case1"] = bool(CASE_SPLIT >= LEVEL)  # S >= a_i >= CASE_SPLIT d >= LEVEL d
    c, a, r = sp.symbols("c a r", nonnegative=True)  # S = C_i a_i + r, C_i = 1 + c, r >= 0
    links["case1_sum"] = _nonneg_coefficients((1 + c) * a + r - a, c, a, r)
    ok = all(links.values())
    failed = [k for k, v in links.items() if not v]
    lev, split = _times_d(LEVEL), _times_d(CASE_SPLIT)
    detail = (f"SymPy: gamma_s(z') = 1/(1+S) [{links['gamma_s']}], gamma_i(z') = gamma_i(z)"
              f"(1-gamma_s(z')) [{links['gamma_i']}], B(z') = B(z)(1-gamma_s(z')) for n symbolic "
              f"terms [{links['B']}]; 1/(1+S) decreasing [{links['decreasing']}] and "
              f"1/(1+{lev}) <= 1/({lev}) = {sp.sstr(1 / (LEVEL * _d))} for every d > 0 "
              f"[{links['level']}]; case 1: S >= a_i >= {split} >= {lev} "
              f"[{links['case1'] and links['case1_sum']}]"
              + (f"; NOT PROVED: {', '.join(failed)}" if failed else ""))
    return Outcome(case.label, ok, None, Evidence.SYMBOLIC, detail)


# =================================================== step 5: the second-moment case (case 2)


def cantelli() -> bool:
    """Cantelli's inequality P(Y >= t) <= V/(V + t^2) for E Y = 0, Var Y = V, t > 0, from the
    pointwise bound 1{Y >= t} <= (Y + u)^2/(t + u)^2 (u >= 0): SymPy factors
    (Y+u)^2 - (t+u)^2 = (Y - t)(Y + t + 2u), expands E(Y + u)^2 = V + u^2 from E Y = 0, and
    simplifies (V + u^2)/(t + u)^2 at u = V/t to V/(V + t^2)."""
    Y, t, u, V, EY = sp.symbols("Y t u V EY", real=True)
    pointwise = sp.expand((Y + u) ** 2 - (t + u) ** 2 - (Y - t) * (Y + t + 2 * u)) == 0
    second = sp.expand((Y + u) ** 2).subs(Y**2, V).subs(Y, EY).subs(EY, 0)  # E termwise
    mean_sq = sp.simplify(second - (V + u**2)) == 0
    best = sp.simplify(((V + u**2) / (t + u) ** 2).subs(u, V / t) - V / (V + t**2)) == 0
    return bool(pointwise and mean_sq and best)


def iid_variance() -> bool:
    """Var(xi_1 + ... + xi_m) = m Var xi for i.i.d. xi: SymPy differentiates the moment
    generating function phi(t)^m twice at 0 (phi(0) = 1, phi'(0) = mu, phi''(0) = E xi^2)."""
    t = sp.Symbol("t")
    m = sp.Symbol("m", positive=True)
    mu, second = sp.symbols("mu xi2", positive=True)
    phi = sp.Function("phi")
    at0 = {phi(0): 1}
    mgf = phi(t) ** m

    def moment(r):
        expr = sp.diff(mgf, t, r).subs(t, 0)
        expr = expr.subs(sp.Subs(sp.Derivative(phi(t), (t, 2)), t, 0), second)
        expr = expr.subs(sp.Subs(sp.Derivative(phi(t), t), t, 0), mu)
        return expr.subs(at0)

    return sp.simplify(moment(2) - moment(1) ** 2 - m * (second - mu**2)) == 0


def conditional_law() -> bool:
    """Given |z| = m and y = -1 the symbols are i.i.d. uniform on the d - 1 others: each negative
    word has probability p q^(m-1) d^(-m) and P(|w| = m, y = -1) = p q^(m-1) ((d-1)/d)^m; SymPy
    simplifies the ratio to (d-1)^(-m)."""
    m = sp.Symbol("m", integer=True, positive=True)
    p = 1 / (_d - 1)
    q = 1 - p
    ratio = (p * q ** (m - 1) * _d ** (-m)) / (p * q ** (m - 1) * ((_d - 1) / _d) ** m)
    return sp.simplify(sp.powsimp(ratio, force=True) - (_d - 1) ** (-m)) == 0


def second_moment_slack() -> tuple[sp.Expr, sp.Expr]:
    """(the polynomial that must be >= 0, the best probability): with X = E S = m mu,
    X = MEAN_RATIO_MIN d + j (j >= 0), t = X - LEVEL d and V <= CASE_SPLIT d X, Cantelli gives
    P(S <= LEVEL d) <= V/(V + t^2), which is <= 1 - GOOD iff GOOD V <= (1 - GOOD) t^2; the
    slack (1 - GOOD) t^2 - GOOD CASE_SPLIT d X as a polynomial in d, j.  The best probability
    is t^2/(V + t^2) at j = 0: (mu0 - tau)^2/((mu0 - tau)^2 + c mu0)."""
    x = sp.Symbol("x", nonnegative=True)  # d written as a positive real
    X = MEAN_RATIO_MIN * x + _j
    t = X - LEVEL * x
    slack = sp.expand((1 - GOOD) * t**2 - GOOD * CASE_SPLIT * x * X)
    gap = (MEAN_RATIO_MIN - LEVEL) ** 2
    return slack.subs(x, _d), gap / (gap + CASE_SPLIT * MEAN_RATIO_MIN)


def two_valued_worst(d: int, ms: range, exact_digits: int = 1000) -> tuple[Fraction, tuple]:
    """max of P(S <= LEVEL d | m) over the two-valued ratio vectors of case 2 (k symbols at
    CASE_SPLIT d - 1/exact_digits, the others at the value making mu = MEAN_RATIO_MIN, or 0),
    exactly: S = a_hi K + a_lo (m - K) with K ~ Binomial(m, k/(d-1))."""
    hi = Fraction(CASE_SPLIT.p, CASE_SPLIT.q) * d - Fraction(1, exact_digits)
    mu0, tau = Fraction(MEAN_RATIO_MIN.p, MEAN_RATIO_MIN.q), Fraction(LEVEL.p, LEVEL.q)
    worst = (Fraction(0), ())
    for m, k in itertools.product(ms, range(1, d - 1)):
        lo = max(Fraction(0), (mu0 * (d - 1) - k * hi) / (d - 1 - k))
        r = Fraction(k, d - 1)
        low = sum(comb(m, K) * r**K * (1 - r) ** (m - K) for K in range(m + 1)
                  if hi * K + lo * (m - K) <= tau * d)
        worst = max(worst, (low, (m, k, float(lo))))
    return worst


def _judge_second_moment(case: Case, constants: Constants) -> Outcome:
    """Case 2 of A.6 (max_{i != s} a_i < d/2), for every d >= 1 and m >= d: P(S > d/4) >= 1/8
    by Cantelli, with E S = m mu >= d (mu >= 1, step 1) and Var S = m Var xi <= m (d/2) mu."""
    links = dict(cantelli=cantelli(), variance=iid_variance(), law=conditional_law())
    v, mu, a = sp.symbols("v mu a", nonnegative=True)
    # E xi^2 <= a_max mu because xi (a_max - xi) >= 0 on 0 <= xi <= a_max
    links["second"] = _nonneg_coefficients(v * a, v, a)  # xi = v, a_max - xi = a
    i = sp.Symbol("i", nonnegative=True)  # m = d + i, mu = mu0 + v: m mu - mu0 d >= 0
    links["mean"] = _nonneg_coefficients((_d + i) * (MEAN_RATIO_MIN + v) - MEAN_RATIO_MIN * _d,
                                         _d, i, v)
    links["t_positive"] = bool(MEAN_RATIO_MIN > LEVEL)
    V, t = sp.symbols("V t", positive=True)
    links["increasing"] = bool(sp.simplify(sp.diff(V / (V + t**2), V) - t**2 / (V + t**2) ** 2) == 0)
    slack, best = second_moment_slack()
    links["slack"] = _nonneg_coefficients(slack, _d, _j)
    ok = all(links.values())
    eng, where = two_valued_worst(9, range(9, 31))
    eng12, _ = two_valued_worst(12, range(12, 25))
    numeric = max(eng, eng12) <= 1 - _frac(GOOD)
    failed = [k for k, val in links.items() if not val]
    head = slack.subs(_j, 0) / _d**2  # the slack at E S = mu0 d, per d^2: the extreme case
    mean, split, lev = _times_d(MEAN_RATIO_MIN), _times_d(CASE_SPLIT), _times_d(LEVEL)
    fail = (f"; FAILS for every d at m = d, mu = {MEAN_RATIO_MIN} (E S = {mean}): "
            f"slack/d^2 = {head}, first at d = 9" if not links["slack"] and head < 0 else "")
    detail = (f"SymPy: Cantelli from 1{{Y>=t}} <= (Y+u)^2/(t+u)^2 at u = V/t "
              f"[{links['cantelli']}]; Var(sum of m iid) = m Var xi from the mgf "
              f"[{links['variance']}]; given |z| = m, y = -1 each word has probability "
              f"(d-1)^-m [{links['law']}]; E xi^2 <= a_max mu [{links['second']}]; E S = m mu >= "
              f"{mean} [{links['mean']}]; V/(V+t^2) increasing in V [{links['increasing']}]; "
              f"with V <= ({split}) X, t = X - {lev}, X = {mean} + j: (1-{GOOD})t^2 - {GOOD}V "
              f">= 0 is {sp.sstr(sp.collect(slack, [_d, _j]))} >= 0 [{links['slack']}]; so "
              f"P(S > {lev}) >= {best} >= {GOOD}"
              + (f"; NOT PROVED: {', '.join(failed)}" if failed else "") + fail
              + f". Exact binomial, two-valued a (a_hi = {split} - 1/1000): max "
              f"P(S <= d/4) = {float(eng):.4f} at d = 9 (m, k = {where[:2]}), {float(eng12):.4f} "
              f"at d = 12, <= 1 - {GOOD} (agrees: {numeric})")
    return Outcome(case.label, bool(ok and numeric), float(best / GOOD), Evidence.SYMBOLIC, detail,
                   values={"failed_links": ", ".join(failed),
                           **({"smallest_failing_d": 9} if fail else {})})


# ========================================================== step 6: the loss on {z} u Z(z)


def insertion_loss_corner() -> tuple[dict, sp.Expr]:
    """E = f(z') - 1 = B (1 - gamma) + beta_s gamma - 2 on {B < SPLIT_OUTPUT, 0 <= gamma <=
    1/(LEVEL d), beta_s <= LARGE d}: SymPy checks dE/dbeta_s = gamma >= 0 and dE/dB = 1 - gamma
    >= 0 (d >= 1/LEVEL), so E < E(SPLIT_OUTPUT, gamma, LARGE d), which is affine in gamma with
    slope LARGE d - SPLIT_OUTPUT: its largest value on the range is returned (the bound on E)."""
    B, g, bs = sp.symbols("B gamma beta_s", real=True)
    E = B * (1 - g) + bs * g - 2
    top = 1 / (LEVEL * _d)
    x = sp.Symbol("x", nonnegative=True)
    links = dict(beta=sp.diff(E, bs) == g,
                 B=sp.diff(E, B) == 1 - g and _nonneg_fraction((1 - top).subs(_d, 1 / LEVEL + x), x))
    corner = E.subs({B: SPLIT_OUTPUT, bs: LARGE * _d})
    slope = sp.diff(corner, g)
    links["slope"] = _nonneg_fraction(slope.subs(_d, 1 / LEVEL + x), x)
    return links, sp.simplify(corner.subs(g, top))


def _judge_pointwise_loss(case: Case, constants: Constants) -> Outcome:
    """For z in G_m and beta_s <= d/4: l(z) = B(z)^2/2 >= 1/8 when B(z) >= 1/2, else every z' in
    Z(z) has f(z') - 1 < -1/2 - 2/d, so l(z') > 1/8; hence rho(z) l(z) + sum_{Z(z)} rho(z') l(z')
    >= (1/8) min(rho(z), rho(Z(z))) >= rho(z)/16 (rho(Z)/rho(z) >= 1/2, thm1.insertion_ratio),
    for every d >= 4 (the range d >= 1/LEVEL where gamma_s(z') <= 1)."""
    links, bound = insertion_loss_corner()
    x = sp.Symbol("x", nonnegative=True)
    root = sp.sqrt(2 * LOSS_FLOOR)  # l > LOSS_FLOOR iff |f - 1| > sqrt(2 LOSS_FLOOR)
    links["corner"] = _nonneg_fraction((-root - bound).subs(_d, 1 / LEVEL + x), x)  # bound <= -root
    links["negative"] = bool(SPLIT_OUTPUT**2 / 2 >= LOSS_FLOOR)  # l(z) = B^2/2 when B >= 1/2
    pair = LOSS_FLOOR * sp.Min(1, RATIO)
    # exact rational points of the region (a second route): l(z') at B, gamma, beta_s on a grid
    worst = None
    for d in (9, 10, 50):
        for B, g, bs in itertools.product([Fraction(n, 4) for n in range(-8, 2)],
                                          [Fraction(n, 8) * Fraction(1, d) * 4 for n in range(9)],
                                          [Fraction(n, 4) * d / 4 for n in range(-4, 5)]):
            lz = (B * (1 - g) + bs * g - 2) ** 2 / 2
            worst = lz if worst is None else min(worst, lz)
    numeric = worst > _frac(LOSS_FLOOR)
    ok = all(links.values())
    failed = [k for k, v in links.items() if not v]
    detail = (f"SymPy: with E = f(z')-1 = B(1-gamma) + beta_s gamma - 2, dE/dbeta_s = gamma >= 0 "
              f"[{links['beta']}], dE/dB = 1-gamma >= 0 for d >= {1 / LEVEL} [{links['B']}], "
              f"slope in gamma at the corner >= 0 [{links['slope']}]; so E < {sp.sstr(bound)} "
              f"<= -{root} for every d >= {1 / LEVEL} [{links['corner']}]: l(z') > {LOSS_FLOOR}; "
              f"B >= {SPLIT_OUTPUT} gives l(z) = B^2/2 >= {LOSS_FLOOR} [{links['negative']}]; "
              f"pair sum >= {LOSS_FLOOR} min(1, {RATIO}) rho(z) = {pair} rho(z)"
              + (f"; NOT PROVED: {', '.join(failed)}" if failed else "")
              + f". Exact grid (d = 9, 10, 50; B < 1/2, gamma <= 4/d, beta_s <= d/4): "
              f"min l(z') = {float(worst):.4f} > {LOSS_FLOOR} (agrees: {numeric})")
    return Outcome(case.label, bool(ok and numeric), None, Evidence.SYMBOLIC, detail)


# ===================================================== steps 8 and 11: the conclusion


def floor_factor() -> sp.Expr:
    """The factor the steps give in L_s >= factor (1 - 2/d)^(d-1) for beta_s <= d/4:
    (pair sum LOSS_FLOOR min(1, RATIO)) x GOOD x 1/2 (from P(y = -1, |w| >= d) =
    (1/2)(1 - 2/d)^(d-1), thm1.long_negative_mass)."""
    return LOSS_FLOOR * sp.Min(1, RATIO) * GOOD * sp.Rational(1, 2)


def _judge_conclusion(case: Case, constants: Constants) -> Outcome:
    """Theorem 1 assembled at the target of step 1, for every beta: beta_s > d/4 gives
    L_s >= c_large_output (thm1.large_output); beta_s <= d/4 gives L_s >= (1/16) rho(G) >=
    (1/16)(1/8) P(y = -1, |w| >= d) = (1/256)(1 - 2/d)^(d-1) (the factor thm1.rho_bound bounds
    below by c3).  So c3 is proved when c3 <= c_large_output and the factor is 1/256."""
    c3 = rational(constants["thm1.c3"])
    large = rational(constants["thm1.c_large_output"])
    factor = floor_factor()
    exact = sp.Rational(7, 9) ** 8 / 256  # thm1.rho_bound: the minimum over d >= 9
    links = dict(factor=factor == sp.Rational(1, 256), large=bool(c3 <= large),
                 exact=bool(c3 <= exact))
    best = sp.Min(large, exact)
    ok = all(links.values())
    detail = (f"for every beta at the target of step 1: beta_s > d/4 gives L_s >= "
              f"c_large_output = {large}; beta_s <= d/4 gives L_s >= {factor} (1-2/d)^(d-1) "
              f"(pair sum x P(G_m) x 1/2; the 1/256 thm1.rho_bound uses: {links['factor']}); "
              f"c3 = {c3} <= c_large_output: {links['large']}, <= (7/9)^8/256: "
              f"{links['exact']}; the steps give any "
              f"c3 <= min(c_large_output, (7/9)^8/256) = 1/{float(1 / best):.1f}")
    if not links["large"]:
        detail += "; FAILS: c3 > c_large_output (the case beta_s > d/4, tight at d = 9)"
    return Outcome(case.label, ok, float(best / c3), Evidence.SYMBOLIC, detail)


STEP3 = (
    Check("thm1.target_choice", "A.6 lost step 3: the target (proofs/thm1.md step 1)",
          "some s has d/d(alpha_s) L_s(0, beta0) >= 0 (the sum over s is 0), so mu = mean_(i!=s) "
          "e^(alpha'_i - alpha'_s) >= 1 for every eta >= 0", Evidence.SYMBOLIC,
          single_case("all d >= 2, beta0, eta >= 0"), _judge_target_choice, reconstructed=True),
    Check("thm1.insertion_attention", "A.6 lost step 3: gamma_s after an insertion (step 3)",
          "gamma_s(z') = 1/(1 + S(z)) on Z(z); S >= d/4 (both cases) gives gamma_s(z') <= 4/d",
          Evidence.SYMBOLIC, single_case("all d >= 1"), _judge_insertion_attention,
          reconstructed=True),
    Check("thm1.second_moment", "A.6 case max a_i < d/2, lost (step 5)",
          "mu >= 1, max a_i < d/2, m >= d: P(S > d/4 | |z| = m, y = -1) >= 9/17 >= 1/8 (Cantelli)",
          Evidence.SYMBOLIC, single_case("all d >= 1, m >= d"), _judge_second_moment,
          reconstructed=True),
    Check("thm1.pointwise_loss", "A.6 l >= 1/8 on G_m u Z(z), lost (step 6)",
          "z in G_m, beta_s <= d/4: l(z) >= 1/8 or l(z') > 1/8 on Z(z); pair sum >= rho(z)/16",
          Evidence.SYMBOLIC, single_case("all d >= 4"), _judge_pointwise_loss, reconstructed=True),
    Check("thm1.conclusion", "Theorem 1 (steps 1-11 of proofs/thm1.md assembled)",
          "L_s(alpha'_s, beta) >= min(c_large_output, (1/256)(1-2/d)^(d-1)) >= c3 at the target "
          "of step 1, every beta", Evidence.SYMBOLIC, single_case("all d >= 9, beta0, eta >= 0"),
          _judge_conclusion, reconstructed=True),
)
