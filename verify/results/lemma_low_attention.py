"""The low-attention lemma of A.5 (the first step of Proposition 4's proof).

Statement (text): for any attention alpha^(1), ..., alpha^(H) in R^d there is a symbol s with
sum_h E[(gamma_s^(h))^2] <= H/d.  Constant: ``lemma.low_attention_factor`` (the bound is
factor * H/d; the text has factor 1).

The per-symbol second moment E[gamma_s^2] does not depend on the target (it is a diagonal entry
of E[gamma gamma^T]), so the lemma is a statement about d numbers per head:
min_s sum_h E[(gamma_s^(h))^2] <= factor H/d.  The search maximises the left-hand side (the
adversary wants every symbol to receive much squared attention) and the margin is
(factor H/d) / max-found.
"""
from __future__ import annotations

from typing import Mapping

import mpmath
import numpy as np
import sympy as sp

from ..checks import Case, Check, Constants, Evidence, Outcome, Profile, Result
from ..ledger import Discharge, Obligation, Region, at_least
from ..engine import general
from ..engine.precision import working
from ..search import multistart
from .common import (ball_outcome, constant, dedicated_outcome, fmt_vector, reference_of,
                     single_case)

DPS = 20
CERT_BITS = 64  # Arb precision of the certified value
SEARCH_STEP = 0.25  # float64 trapezoid step in ln t during searches (as prop3's)
GRID = {
    Profile.QUICK: [(3, 1), (3, 2), (10, 1), (10, 2)],
    Profile.DEFAULT: [(d, H) for d in (3, 5, 10, 20) for H in (1, 2, 3, 4)],
    Profile.FULL: [(d, H) for d in (3, 4, 5, 6, 8, 10, 15, 20, 30, 50) for H in (1, 2, 3, 4)],
}
LOGIT_BOX = 20.0
BUDGET = {Profile.QUICK: 60, Profile.DEFAULT: 800, Profile.FULL: 4000}


def head_sums_float(d: int, H: int, x: np.ndarray, h: float = SEARCH_STEP) -> np.ndarray:
    """sum_h E[(gamma_s^(h))^2] for every s; ``x`` holds the H attention vectors (H*d)."""
    rows = np.asarray(x, dtype=np.float64).reshape(H, d)
    return sum(general.second_diagonal_float(d, r, h) for r in rows)


def head_sums_mp(d: int, rows, dps: int = DPS) -> tuple:
    """(values, errors) of sum_h E[(gamma_s^(h))^2] from the mpmath engine (diagonal pass)."""
    vals, errs = [mpmath.mpf(0)] * d, [mpmath.mpf(0)] * d
    with working(dps):
        for r in rows:
            att = general.GeneralAttention.from_alpha(d, 0, [repr(float(a)) for a in r], dps)
            m = general.attention_moments(att, second="diagonal")
            vals = [v + x for v, x in zip(vals, m.second_diagonal)]
            errs = [e + x for e, x in zip(errs, m.errors["second_diagonal"])]
    return vals, errs


def structured(d: int, H: int) -> list[tuple[str, np.ndarray]]:
    """Uniform heads; near one-hot heads (lexicographic ramps) rotated so each head favours other
    symbols; one large logit per head on distinct symbols; heads on disjoint groups."""
    out = [("all heads uniform", np.zeros(H * d))]
    for step in (1.0, 4.0, 16.0):
        rows = [np.roll(-step * np.arange(d, dtype=np.float64), (h * d) // H) for h in range(H)]
        out.append((f"rotated lexicographic ramps step {step:g}", np.concatenate(rows)))
    for L in (1.0, 3.0, 10.0):
        rows = []
        for h in range(H):
            r = np.zeros(d)
            r[h % d] = L
            rows.append(r)
        out.append((f"one logit +{L:g} per head", np.concatenate(rows)))
        rows = []
        for h in range(H):
            r = np.zeros(d)
            r[np.arange(d) % H == h] = L
            rows.append(r)
        out.append((f"head h raises symbols = h mod H by {L:g}", np.concatenate(rows)))
    return out


def _cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    grid = GRID[profile]
    if options.get("d"):
        grid = [(int(d), H) for d in options["d"] for H in (1, 2, 3, 4)]
    return [Case(f"d={d}, H={H}, seed=0", {"d": d, "H": H, "seed": 0, "budget": BUDGET[profile]})
            for d, H in grid if d >= 2]


def lemma_search(d: int, H: int, seed: int, budget: int):
    """The largest min_s sum_h E[(gamma_s^(h))^2] found (as a minimisation of its negative).

    Logits are clipped to [-LOGIT_BOX, LOGIT_BOX]: with H = d rotated near-one-hot heads the
    supremum H/d is approached as the logit spread grows (the gap falls like e^(-spread)), and
    beyond a spread of ~50 the 20-digit enclosure could no longer separate the value from H/d.
    """
    res = multistart(lambda x: -head_sums_float(d, H, np.clip(x, -LOGIT_BOX, LOGIT_BOX)),
                     structured(d, H), seed, budget, H * d, n_random=max(4, budget // 20),
                     n_descents=3)
    res.x = np.clip(res.x, -LOGIT_BOX, LOGIT_BOX)
    return res


def _judge_bound(case: Case, constants: Constants) -> Outcome:
    d, H, seed, budget = (case.params[k] for k in ("d", "H", "seed", "budget"))
    factor = constant(constants, "lemma.low_attention_factor")
    res = lemma_search(d, H, seed, budget)
    rows = res.x.reshape(H, d)
    vals, errs = head_sums_mp(d, rows)
    with working(DPS):
        s = min(range(d), key=lambda i: vals[i])
        low = min(v - e for v, e in zip(vals, errs))  # the min over s lies in [low, high]
        high = vals[s] + errs[s]
        bound = factor * H / mpmath.mpf(d)
        passed = True if high <= bound else False if low > bound else None
        margin = float(bound / vals[s])
        ratio = float(vals[s] / (mpmath.mpf(H) / d))
    fams = "; ".join(f"{k} {-v[0]:.5f} ({v[1]})" for k, v in res.by_family.items())
    heads = " | ".join(fmt_vector(r, 3, 12, relative=True) for r in rows)
    detail = (f"largest min_s sum_h E[gamma_s^2] = {mpmath.nstr(vals[s], 8)} +- "
              f"{mpmath.nstr(errs[s], 2)} ({DPS} digits; s={s}) = {ratio:.4f} H/d, vs "
              f"{mpmath.nstr(factor, 4)} H/d = {mpmath.nstr(bound, 6)}; attention ({res.family}): "
              f"{heads}; search: {res.effort['evaluations']} float evaluations, "
              f"{res.effort['starts']} starts, seed {seed}; best per family: {fams}")
    return Outcome(case.label, passed, margin, Evidence.SEARCH, detail,
                   values={"x": [float(a) for a in res.x], "value": float(vals[s]),
                           "value_error": float(max(vals[s] - low, errs[s]))})


def _judge_certified(case: Case, constants: Constants) -> Outcome:
    """min_s sum_h E[(gamma_s^(h))^2] at the attention lemma-low-attention.bound found, as a ball
    (Arb diagonal second moments per head; the min of balls is the ball [min lower, min upper])
    against factor H/d from above: a certified CEILING of the lemma's quantity at that one
    attention (the lemma at that point); the max over attention remains the search.  The
    search's mpmath value must lie in the ball (a second route)."""
    from flint import arb

    from ..engine.certified.general import ball_moments

    found = dedicated_outcome("lemma-low-attention.bound", case, constants)
    d, H = case.params["d"], case.params["H"]
    x = found.values.get("x")
    if x is None:
        return Outcome(case.label, None, None, Evidence.CERTIFIED, "the search gave no point")
    rows = np.reshape(np.asarray(x, dtype=np.float64), (H, d))
    sums = [arb(0)] * d
    for r in rows:
        diag = ball_moments(d, 0, list(r), CERT_BITS, full=False).second_diagonal
        sums = [a + b for a, b in zip(sums, diag)]
    lo = min((v.lower() for v in sums), key=float)
    hi = min((v.upper() for v in sums), key=float)
    ball = arb(lo).union(arb(hi))
    factor = constants["lemma.low_attention_factor"]
    detail = (f"min_s sum_h E[(gamma_s^(h))^2] at the attention the search found "
              f"({' | '.join(fmt_vector(r, 3, 12, relative=True) for r in rows)}), vs "
              f"factor H/d = {factor * H}/{d}; Arb, {CERT_BITS} bits")
    return ball_outcome(case, ball, factor * H / d, detail, above=False, note=CEILING_NOTE,
                        reference=reference_of(found, "value", "value_error"))


CEILING_NOTE = ("certified ceiling of the value at the found attention; the maximum over all "
                "attention remains a search")


_g = sp.Symbol("gamma", nonnegative=True)


def _judge_per_word(case: Case, constants: Constants) -> Outcome:
    """gamma - gamma^2 = gamma (1 - gamma) >= 0 on [0, 1] (SymPy factors it; both factors are
    >= 0 there), so on every word sum_s gamma_s^2 <= sum_s gamma_s = 1; taking expectations and
    summing over heads, sum_s sum_h E[(gamma_s^(h))^2] <= H, and the smallest of d numbers is at
    most their mean H/d.  The argument proves factor 1; a configured factor < 1 is not proved."""
    factor = constant(constants, "lemma.low_attention_factor")
    slack = sp.factor(_g - _g**2)
    proved_word = sp.simplify(slack - _g * (1 - _g)) == 0
    # on [0, 1]: both factors non-negative at the ends and linear in between
    ends = all(bool(f.subs(_g, v) >= 0) for f in (_g, 1 - _g) for v in (0, 1))
    mean = sp.Symbol("H", positive=True) / sp.Symbol("d", positive=True)
    holds = bool(proved_word and ends and factor >= 1)
    return Outcome(case.label, holds, None, Evidence.SYMBOLIC,
                   f"gamma - gamma^2 = {sp.sstr(slack)} >= 0 on [0,1]; min_s <= mean = {sp.sstr(mean)}; "
                   f"configured factor {mpmath.nstr(factor, 4)} (the proof gives 1)")


EVERY_D = Region.of(d=at_least(2))
PROOF = (
    Obligation("lemma-low-attention", "for any attention of H heads some s has sum_h E[(gamma_s^(h))^2] "
               "<= H/d", EVERY_D, Discharge.EITHER,
               uses=("lemma-low-attention.per-word", "lemma-low-attention.search")),
    Obligation("lemma-low-attention.per-word", "sum_s gamma_s^2 <= sum_s gamma_s = 1 on every word; the "
               "smallest of d terms is at most their mean", EVERY_D, Discharge.SYMBOLIC,
               ("lemma-low-attention.per_word",), where="proofs/lemma-low-attention.md step 1"),
    Obligation("lemma-low-attention.search", "no attention found above H/d (a ceiling certified at "
               "the one found)", EVERY_D, Discharge.SEARCH,
               ("lemma-low-attention.bound", "lemma-low-attention.certified_ceiling"),
               where="proofs/lemma-low-attention.md step 2"),
)

RESULT = Result(
    id="lemma-low-attention",
    name="Lemma (A.5)",
    short="Some target gets total squared attention <= H/d",
    statement="some s has sum_h E[(gamma_s^(h))^2] <= H/d",
    hypotheses="any attention alpha^(1..H), d >= 2",
    constants=("lemma.low_attention_factor",),
    document="proofs/lemma-low-attention.md",
    proof=PROOF,
    checks=(
        Check("lemma-low-attention.per_word", "A.5 lemma (proof)",
              "sum_s gamma_s^2 <= sum_s gamma_s = 1 on every word; min over s <= mean H/d",
              Evidence.SYMBOLIC, single_case("all d >= 2, H >= 1, any attention"), _judge_per_word),
        Check("lemma-low-attention.bound", "A.5 lemma",
              "max over searched attention of min_s sum_h E[(gamma_s^(h))^2] <= H/d",
              Evidence.SEARCH, _cases, _judge_bound),
        # was lemma-low-attention.certified_floor (renamed: the ball bounds the value from above)
        Check("lemma-low-attention.certified_ceiling", "A.5 lemma (at the found point)",
              "min_s sum_h E[(gamma_s^(h))^2] <= H/d at the attention the search found (Arb ball: "
              "a certified ceiling of the value there)",
              Evidence.CERTIFIED, _cases, _judge_certified),
    ),
)
