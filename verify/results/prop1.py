"""Proposition 1 (expressivity) and the steps of its proof in Appendix A.2.

Statement (paper, text): for every d >= 2 and eps in (0, 1), the transformer with beta = 2 e_s and
alpha = ln(4d/eps^2) e_s has L_s(alpha, beta) <= eps; the same holds for any alpha with
alpha_s - max_{j != s} alpha_j >= ln(4d/eps^2).  Constant: ``prop1.attention_constant`` (the 4).
"""
from __future__ import annotations

from typing import Mapping

import mpmath
import sympy as sp

from ..checks import Case, Check, Constants, Evidence, Exhibit, Outcome, Profile, Reach, Result
from ..ledger import Discharge, Obligation, Region, at_least, between, closed
from ..engine import schedules
from ..engine import symbolic_word
from ..engine.symbolic_word import Letter, Rest
from ..engine.symmetric import SymmetricPoint, evaluate
from .common import grid, log_grid, ratio_outcome, smallest_passing

DPS = 20
D_GRID = {
    Profile.QUICK: [2, 3, 5, 10, 50, 1000, 10**6],
    Profile.DEFAULT: [*range(2, 11), 15, 20, 30, 40, 50, *log_grid(100, 10**6, 6, integer=True)],
    Profile.FULL: [*range(2, 51), *log_grid(60, 10**6, 12, integer=True)],
}
EPS_GRID = {
    Profile.QUICK: [1e-6, 1e-2, 0.5, 0.99],
    Profile.DEFAULT: log_grid(1e-6, 0.99, 6),
    Profile.FULL: log_grid(1e-6, 0.99, 12),
}


def attention_gap(d: int, eps, constants: Constants) -> mpmath.mpf:
    """ln(c d / eps^2) with c = prop1.attention_constant (4 in the paper)."""
    c = constants["prop1.attention_constant"]
    return schedules.prop1_gap(d, mpmath.mpf(eps), mpmath.mpf(c.numerator) / c.denominator,
                               mpmath.log)


def loss_at_gap(d: int, gap) -> tuple:
    """L_s(gap e_s, 2 e_s) and its error estimate."""
    ev = evaluate(SymmetricPoint(d, gap, 0, 2, 0), DPS)
    return ev.loss, ev.error["loss"]


def _cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    return grid(profile, options, D_GRID, EPS_GRID)


def _judge_bound(case: Case, constants: Constants) -> Outcome:
    d, eps = case.params["d"], case.params["eps"]
    with mpmath.workdps(DPS + 10):
        gap = attention_gap(d, eps, constants)
    loss, err = loss_at_gap(d, gap)
    return ratio_outcome(case, loss, eps, err,
                         detail=f"L = {mpmath.nstr(loss, 5)} at gap {mpmath.nstr(gap, 5)}")


def _tightness_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    small = {p: [3, 10, 1000] for p in Profile}
    eps = {Profile.QUICK: [1e-2], Profile.DEFAULT: [1e-4, 1e-2, 0.5], Profile.FULL: [1e-6, 1e-4, 1e-2, 0.5]}
    return grid(profile, options, small, eps)


def smallest_gap(d: int, eps: float, hi) -> mpmath.mpf:
    """Smallest gap g with L_s(g e_s, 2 e_s) <= eps, by bisection on [0, hi] (the loss decreases
    in g); 3 significant digits."""
    lo = mpmath.mpf(0)
    if loss_at_gap(d, lo)[0] <= eps:
        return lo
    while loss_at_gap(d, hi)[0] > eps:  # the loss tends to 0 as the gap grows: widen until hi works
        lo, hi = hi, 2 * hi
    return smallest_passing(lambda gap: loss_at_gap(d, gap)[0] <= eps, lo, hi, 14)


def _judge_tightness(case: Case, constants: Constants) -> Outcome:
    """Exhibit: the gap the proposition asks for against the smallest gap that works.  The
    loss decreases in the gap, so "smallest gap <= ln(4d/eps^2)" is prop1.bound's claim again;
    the figure (how much room the constant leaves) is shown, no claim."""
    d, eps = case.params["d"], case.params["eps"]
    with mpmath.workdps(DPS + 10):
        gap = attention_gap(d, eps, constants)
    need = smallest_gap(d, eps, max(gap, mpmath.mpf(1)) * 2)
    ratio = float(gap / need) if need > 0 else float("inf")
    detail = f"smallest gap {mpmath.nstr(need, 4)} vs ln({constants['prop1.attention_constant']}d/eps^2) = {mpmath.nstr(gap, 4)}"
    return Outcome(case.label, None, ratio, Evidence.EXHIBIT, detail,
                   values={"d": d, "eps": eps, "smallest": float(need), "gap": float(gap),
                           "ratio": ratio})


def _general_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = {Profile.QUICK: [3, 6], Profile.DEFAULT: [3, 5, 10], Profile.FULL: [2, 3, 5, 10, 20]}
    eps = {Profile.QUICK: [1e-3, 0.5], Profile.DEFAULT: [1e-4, 0.1, 0.9], Profile.FULL: [1e-6, 1e-3, 0.1, 0.5, 0.99]}
    seeds = {Profile.QUICK: 1, Profile.DEFAULT: 3, Profile.FULL: 6}[profile]
    return [Case(f"{c.label}, seed={k}", {**c.params, "seed": k})
            for c in grid(profile, options, ds, eps) for k in range(seeds)]


def random_attention(d: int, s: int, gap, seed: int) -> list:
    """alpha with alpha_s - max_{j != s} alpha_j = gap exactly (one background symbol at the max,
    the others below it by up to 3) and a random common shift (the model ignores it)."""
    import random

    rng = random.Random(seed * 7919 + d)
    shift = rng.uniform(-5, 5)
    top = rng.choice([j for j in range(d) if j != s])
    alpha = []
    for j in range(d):
        if j == s:
            alpha.append(shift + gap)
        elif j == top:
            alpha.append(mpmath.mpf(shift))
        else:
            alpha.append(shift - rng.uniform(0, 3))
    return alpha


def _judge_general(case: Case, constants: Constants) -> Outcome:
    """Non-symmetric attention at the smallest allowed gap, beta = 2 e_s (general engine)."""
    from ..engine.general import GeneralAttention, loss_estimate

    d, eps, seed = case.params["d"], case.params["eps"], case.params["seed"]
    s = seed % d
    with mpmath.workdps(DPS + 10):
        alpha = random_attention(d, s, attention_gap(d, eps, constants), seed)
    beta = [2 if j == s else 0 for j in range(d)]
    loss = loss_estimate(GeneralAttention.from_alpha(d, s, alpha, DPS), beta)
    return ratio_outcome(case, loss, eps, detail=f"s={s}: L = {mpmath.nstr(loss.value, 5)}")


# --- proof steps of A.2, proved by SymPy for all d >= 2 and eps in (0, 1) -------------------

_k = sp.Symbol("k", nonnegative=True)  # d = 2 + k
_e = sp.Symbol("epsilon", positive=True)
_t = sp.Symbol("t", positive=True)  # eps = 1/(1 + t) runs over (0, 1) as t runs over (0, oo)


def _single(label: str) -> list[Case]:
    return [Case(label, {})]


def _symbolic_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    return _single("all d >= 2, eps in (0,1)")


def sign_on_range(expr: sp.Expr) -> bool | None:
    """SymPy's verdict on ``expr > 0`` for every d >= 2 (k >= 0) and eps in (0, 1) (eps =
    1/(1+t), t > 0): True (proved), False (disproved: SymPy's sign, or an exact rational point
    of the range where expr <= 0) or None (neither)."""
    on_t = sp.simplify(sp.together(expr.subs(_e, 1 / (1 + _t))))
    verdict = on_t.is_positive
    if verdict is None:
        points = [{_t: sp.Rational(t), _k: k} for t in ("1/100", "1/8", "1", "8", "100") for k in (0, 7)]
        if any(bool(on_t.subs(p) <= 0) for p in points):
            return False
    return verdict


def sign_outcome(case: Case, expr: sp.Expr, detail: str, margin=None) -> Outcome:
    """A symbolic outcome for ``expr > 0`` on the whole range: passes only when SymPy proves it,
    fails when SymPy disproves it, undecided otherwise."""
    proved = sign_on_range(expr)
    verdict = {True: "proved > 0", False: "NOT > 0", None: "sign undecided"}[proved]
    return Outcome(case.label, proved, margin, Evidence.SYMBOLIC, f"{detail}: {verdict} (SymPy)",
                   margin_kind="difference")


def step_long_words() -> sp.Expr:
    """P(|w| > M) = q^floor(M) <= exp(-p (M - 1)) and p (M - 1) - 2/eps >= 0 for M = 2d/eps:
    returns p (M - 1) - 2/eps with d = 2 + k (the text writes q^M; floor(M) is the exact
    exponent, and the inequality survives it because eps < 2)."""
    d = 2 + _k
    p = 1 / (d - 1)
    return sp.simplify(p * (2 * d / _e - 1) - 2 / _e)


def word_loss_steps() -> list[tuple[str, bool]]:
    """A.2 step 1 from model (1) on any word, with beta = 2 e_s and any attention (the symbols not
    named enter through their sums): a negative word (C_s = 0) has loss 0, and every word has
    loss <= 2 (so long words cost at most 2 P(long)).  Each step as SymPy decided it."""
    k, c1, den = sp.symbols("C_s C_1 D_rest", positive=True)
    a_s, a_1 = sp.symbols("alpha_s alpha_1", real=True)
    rest = Rest(sp.Symbol("R", nonnegative=True), sp.Integer(0), den)
    loss = symbolic_word.word_loss
    negative = loss([Letter(sp.Integer(0), a_s, 2), Letter(c1, a_1, 0)], -1, rest)
    room = sp.factor(sp.simplify(2 - loss([Letter(k, a_s, 2), Letter(c1, a_1, 0)], 1, rest)))
    return [("negative words: loss 0", sp.simplify(negative) == 0),
            ("positive words: 2 - loss >= 0", bool(room.is_nonnegative))]


def _judge_word_loss(case: Case, constants: Constants) -> Outcome:
    steps = word_loss_steps()
    failed = [text for text, ok in steps if not ok]
    return Outcome(case.label, not failed, None, Evidence.SYMBOLIC,
                   ("SymPy: " + "; ".join(text for text, _ in steps)) if not failed
                   else "NOT verified: " + "; ".join(failed))


def _judge_long_words(case: Case, constants: Constants) -> Outcome:
    slack = step_long_words()
    return sign_outcome(case, slack, f"p(M-1) - 2/eps = {sp.sstr(slack)}")


def long_contribution_gap() -> sp.Expr:
    """g(eps) = ln eps + 2/eps - ln 4: 2 e^(-2/eps) < eps/2 iff g > 0."""
    return sp.log(_e) + 2 / _e - sp.log(4)


def _judge_long_contribution(case: Case, constants: Constants) -> Outcome:
    """2 e^(-2/eps) < eps/2 on (0, 1): g(eps) = ln eps + 2/eps - ln 4 is decreasing there
    (SymPy proves g' < 0 on the range) and g(1) = 2 - ln 4 > 0 (SymPy decides the sign of the
    number), so g > 0 on (0, 1)."""
    g = long_contribution_gap()
    decreasing = sign_on_range(-sp.diff(g, _e))
    end = g.subs(_e, 1)
    proved = decreasing if not decreasing else bool(end.is_positive)
    return Outcome(case.label, proved, float(end), Evidence.SYMBOLIC,
                   f"g' = {sp.sstr(sp.simplify(sp.diff(g, _e)))} < 0 on (0,1): "
                   f"{'proved' if decreasing else 'not proved'}; g(1) = 2 - ln 4 = {float(end):.4f}",
                   margin_kind="difference")


def short_attention_slack(c) -> sp.Expr:
    """gamma_s's lower bound minus 2/(2 + eps) at its worst case on short positive words,
    C_s = 1 and m - C_s = 2d/eps (:func:`short_attention_steps` derives that it is the worst),
    for the gap ln(c d/eps^2): c d/(c d + 2 d eps) - 2/(2 + eps)."""
    d = 2 + _k
    return sp.simplify(_attention_floor(c, d, 1, 2 * d / _e) - 2 / (2 + _e))


def _attention_floor(c, d, count, background):
    """c d C_s/(c d C_s + eps^2 n): gamma_s = C_s/(C_s + X) at X = n eps^2/(c d) = n e^-gap."""
    return c * d * count / (c * d * count + _e**2 * background)


def short_attention_steps() -> list[tuple[str, bool]]:
    """Why gamma_s >= c d/(c d + 2 d eps) on every short positive word (A.2 step 3), each step as
    SymPy decided it for every c, d > 0 and eps in (0, 1).  On a word with C_s >= 1 target
    symbols and n background symbols, model (1) gives gamma_s = C_s/(C_s + X) with
    X = sum_j C_j e^(alpha_j - alpha_s); the gap hypothesis alpha_s - alpha_j = gap + delta_j,
    delta_j >= 0, gives X <= n e^-gap, e^-gap = eps^2/(c d); short means m <= 2d/eps, so
    n = m - C_s <= 2d/eps."""
    count, x, n, delta, c, dd = sp.symbols("C_s X n delta c d", positive=True)
    gap = sp.Symbol("g", real=True)
    floor = _attention_floor(c, dd, count, n)
    return [
        ("each background term e^(alpha_j - alpha_s) = e^(-gap - delta_j) decreases in delta_j >= 0, "
         "so X <= n e^-gap", bool(sp.diff(sp.exp(-gap - delta), delta).is_negative)),
        ("gamma_s = C_s/(C_s + X) decreases in X", bool(sp.diff(count / (count + x), x).is_negative)),
        ("at X = n eps^2/(c d) it is c d C_s/(c d C_s + eps^2 n)",
         sp.simplify(count / (count + n * _e**2 / (c * dd)) - floor) == 0),
        ("that bound increases in C_s", bool(sp.factor(sp.diff(floor, count)).is_positive)),
        ("and decreases in n", bool(sp.factor(sp.diff(floor, n)).is_negative)),
    ]


def _judge_short_attention(case: Case, constants: Constants) -> Outcome:
    """For a short positive word (m <= 2d/eps, C_s >= 1), with gap ln(c d/eps^2): SymPy derives
    that gamma_s >= c d C_s/(c d C_s + eps^2 (m - C_s)) and that this bound is smallest at
    C_s = 1, m - C_s = 2d/eps (:func:`short_attention_steps`), then decides the sign of
    c d/(c d + 2 d eps) - 2/(2 + eps) = eps (c - 4)/((2 + eps)(c + 2 eps)) on the whole range
    (>= 0: equality at c = 4 is allowed)."""
    c = sp.Rational(constants["prop1.attention_constant"].numerator,
                    constants["prop1.attention_constant"].denominator)
    steps = short_attention_steps()
    slack = short_attention_slack(c)
    nonneg = sp.simplify(sp.together(slack.subs(_e, 1 / (1 + _t)))).is_nonnegative
    failed = [text for text, ok in steps if not ok]
    verdict = {True: "proved >= 0", False: "NOT >= 0", None: "sign undecided"}[nonneg]
    if failed:
        nonneg, verdict = None, "worst case NOT derived: " + "; ".join(failed)
    return Outcome(case.label, nonneg, float(c - 4), Evidence.SYMBOLIC,
                   f"worst case C_s = 1, m - C_s = 2d/eps derived ({len(steps)} steps); "
                   f"gamma_s - 2/(2+eps) >= {sp.sstr(sp.factor(slack))}: {verdict} (SymPy)",
                   margin_kind="difference")


def short_loss_gap() -> sp.Expr:
    """eps/2 - 2 eps^2/(2 + eps)^2: the room left under eps/2 on short words (A.2 step 4)."""
    return _e / 2 - 2 * _e**2 / (2 + _e) ** 2


def _judge_short_loss(case: Case, constants: Constants) -> Outcome:
    """1/2 (2 gamma - 2)^2 <= 2 eps^2/(2 + eps)^2 < eps/2: SymPy proves the gap
    eps/2 - 2 eps^2/(2+eps)^2 = eps (4 + eps^2)/(2 (2+eps)^2) positive on the range."""
    gap = sp.simplify(short_loss_gap())
    return sign_outcome(case, gap, f"eps/2 - 2eps^2/(2+eps)^2 = {sp.sstr(sp.factor(gap))}")


def _certified_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    from ..certify.outcomes import certified_cases

    return certified_cases("prop1", profile, options)


def _judge_certified(case: Case, constants: Constants) -> Outcome:
    """Every real (d, eps) of a box at once, by ball arithmetic (verify/certify)."""
    from ..certify.outcomes import judge_certified

    return judge_certified("prop1", case, constants)


STATED = Region.of(d=at_least(2), eps=between(0, 1, True, True))
EPS = Region.of(eps=between(0, 1, True, True))
PROOF = (
    Obligation("prop1", "for every alpha with alpha_s - max_j alpha_j >= ln(4d/eps^2) and beta = 2e_s: "
               "L_s <= eps", STATED, Discharge.EITHER, uses=("prop1.a2", "prop1.by-box", "prop1.at-points")),
    Obligation("prop1.a2", "A.2: L_s <= 2 P(|w| > 2d/eps) + the largest loss of a short positive word "
               "< eps/2 + eps/2", STATED, Discharge.FOLLOWS,
               uses=("prop1.word-loss", "prop1.long-words", "prop1.long-contribution",
                     "prop1.short-attention", "prop1.short-loss"), where="proofs/prop1.md steps 1-5"),
    Obligation("prop1.word-loss", "a negative word costs 0 and every word at most 2", Region(),
               Discharge.SYMBOLIC, ("prop1.word_loss",), where="proofs/prop1.md step 1"),
    Obligation("prop1.long-words", "P(|w| > 2d/eps) < e^(-2/eps)", STATED, Discharge.SYMBOLIC,
               ("prop1.long_words",), where="proofs/prop1.md step 2"),
    Obligation("prop1.long-contribution", "2 e^(-2/eps) < eps/2", EPS, Discharge.SYMBOLIC,
               ("prop1.long_contribution",), where="proofs/prop1.md step 3"),
    Obligation("prop1.short-attention", "gamma_s >= 2/(2 + eps) on every short positive word (worst "
               "case derived)", STATED, Discharge.SYMBOLIC, ("prop1.short_attention",),
               where="proofs/prop1.md step 4"),
    Obligation("prop1.short-loss", "1/2 (2 gamma_s - 2)^2 <= 2 eps^2/(2 + eps)^2 < eps/2", EPS,
               Discharge.SYMBOLIC, ("prop1.short_loss",), where="proofs/prop1.md step 5"),
    Obligation("prop1.by-box", "the certified box at the symmetric alpha with the exact gap, its "
               "worst case (the box computes in the four-scalar reduction: beta = 2e_s and the "
               "symmetric alpha are background-symmetric)", STATED, Discharge.FOLLOWS,
               uses=("prop1.box", "prop1.worst-case", "lemma-symmetry.reduction")),
    Obligation("prop1.box", "L_s(ln(4d/eps^2) e_s, 2e_s) <= eps for every real (d, eps) of the box",
               Region.of(d=closed(2, 1e9), eps=closed(1e-6, 0.99)), Discharge.CERTIFIED,
               ("prop1.certified_box",), where="proofs/prop1.md, 'Certified over a box'", checker=True),
    Obligation("prop1.worst-case", "the symmetric attention at the exact gap is the worst case of "
               "every attention with that gap or more", Region.of(d=at_least(2)), Discharge.SYMBOLIC,
               ("prop1.certified_box",), where="proofs/prop1.md step 9"),
    Obligation("prop1.at-points", "L_s <= eps at the grid's points (symmetric and random alpha)",
               STATED, Discharge.NUMERIC, ("prop1.bound", "prop1.general"), where="proofs/prop1.md steps 6, 8"),
)

RESULT = Result(
    id="prop1",
    name="Proposition 1",
    short="An attention gap >= ln(4d/eps^2) with beta = 2e_s gives risk <= eps",
    statement="beta = 2e_s, alpha_s - max_j alpha_j >= ln(4d/eps^2) gives L_s <= eps",
    hypotheses="d >= 2, eps in (0, 1)",
    constants=("prop1.attention_constant",),
    document="proofs/prop1.md",
    proof=PROOF,
    checks=(
        Check("prop1.certified_box", "Proposition 1 (certified)",
              "L_s(alpha, 2 e_s) <= eps for every real d, eps in the box and every alpha with alpha_s - max_j alpha_j >= ln(4d/eps^2) (Arb balls, branch and bound at the symmetric alpha, the worst case by SymPy)", Evidence.CERTIFIED, _certified_cases, _judge_certified,
              reach=Reach.RANGE),
        Check("prop1.bound", "Proposition 1", "L_s(ln(4d/eps^2) e_s, 2 e_s) <= eps",
              Evidence.NUMERIC, _cases, _judge_bound),
        Check("prop1.general", "Proposition 1 (any alpha)",
              "L_s(alpha, 2 e_s) <= eps for non-symmetric alpha with alpha_s - max_j alpha_j = ln(4d/eps^2)",
              Evidence.NUMERIC, _general_cases, _judge_general, scope="for non-symmetric alpha at the exact gap"),
        Check("prop1.word_loss", "A.2 (a word's loss)",
              "with beta = 2e_s and any attention: loss 0 on negative words, <= 2 on every word",
              Evidence.SYMBOLIC, _symbolic_cases, _judge_word_loss),
        Check("prop1.long_words", "A.2 step 1", "P(|w| > 2d/eps) < e^(-2/eps)",
              Evidence.SYMBOLIC, _symbolic_cases, _judge_long_words),
        Check("prop1.long_contribution", "A.2 step 2", "2 e^(-2/eps) < eps/2",
              Evidence.SYMBOLIC, _symbolic_cases, _judge_long_contribution),
        Check("prop1.short_attention", "A.2 step 3", "gamma_s >= 2/(2+eps) on short positive words",
              Evidence.SYMBOLIC, _symbolic_cases, _judge_short_attention),
        Check("prop1.short_loss", "A.2 step 4", "1/2 (2 gamma_s - 2)^2 <= 2eps^2/(2+eps)^2 < eps/2",
              Evidence.SYMBOLIC, _symbolic_cases, _judge_short_loss),
        Check("prop1.tightness", "Proposition 1 (tightness)",
              "exhibit: smallest working gap against ln(4d/eps^2) (no claim: the loss decreases in "
              "the gap, so prop1.bound judges it)", Evidence.EXHIBIT,
              _tightness_cases, _judge_tightness),
    ),
    exhibits=(
        Exhibit("prop1.tightness", "How much attention gap the loss needs",
                "Smallest gap g (bisection, 3 significant digits) with L_s(g e_s, 2 e_s) <= eps, "
                "against the proposition's ln(4d/eps^2): a measurement, no claim.",
                (("d", "d"), ("eps", "eps"), ("smallest", "smallest gap"),
                 ("gap", "ln(4d/eps^2)"), ("ratio", "ratio"))),
    ),
)
