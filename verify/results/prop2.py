"""Proposition 2 (training the attention alone, fixed output) and the surviving step of A.3.

Statement (reconstructed): there is c1 > 0 such that for every fixed output beta~ in R^d some
target s has inf_alpha L_s(alpha, beta~) >= c1.  The proof takes s = argmin_i beta~_i; if
beta~_s >= 1 then f >= 0 on every word and the risk is >= P(y = -1) * 1/2 = 1/4 (text).  The
other case's constant is lost: ``prop2.c1`` is measured here.

The infimum over alpha is not convex: it is searched by multi-start Adam on the float64 path
(logits normalised to max 0 and kept in [-LOGIT_BOX, 0]), so a value found is the loss at a real
attention vector, re-evaluated on the mpmath path: an upper bound on the infimum.  The checks are
therefore *search* evidence: no attention below the bound was found.  The measured floor uses
the proof's target s = argmin beta~ (a lower bound on max_s, so a pass there implies the
statement for that beta~).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Mapping

import mpmath
import numpy as np
import sympy as sp

from ..checks import Calibration, Case, Check, Constants, Evidence, Outcome, Profile, Reach, Result
from ..ledger import Discharge, Obligation, Region, at_least, points
from ..engine.precision import to_mpf
from ..search import SearchResult, adam, nelder_mead
from .common import (ball_outcome, dedicated_outcome, floor_outcome, fmt_vector, reference_of,
                     single_case)
from .prop2_every_d import judge_every_d

LOGIT_BOX = 60.0
CERT_BITS = 64  # Arb precision of the certified floor
# float64 trapezoid step in ln t during the Adam searches (FLOAT_STEP = 0.125 elsewhere; the
# found point is confirmed at `dps` digits).  Measured at d = 9..49, logit spreads up to 60:
# the loss agrees with the FLOAT_STEP rule to 1e-15 and the gradient to 4e-12 (relative), at
# half the nodes
SEARCH_STEP = 0.25

SEARCH = {
    Profile.QUICK: dict(ds=[3], random=2, starts=2, steps=50, nm_starts=1, nm_evals=8, dps=15),
    Profile.DEFAULT: dict(ds=[3, 4, 6, 9, 12], random=3, starts=2, steps=80, nm_starts=1, nm_evals=20,
                          dps=20),
    Profile.FULL: dict(ds=[3, 4, 5, 6, 9, 12, 16], random=6, starts=3, steps=150, nm_starts=2,
                       nm_evals=60, dps=25),
}
# larger d with a lighter search (structured and random beta~, Adam over alpha, no Nelder-Mead
# over beta~): the claim is for every d.  Measured cost (2 shared cores): d = 50 is ~8 ms per
# float64 loss+gradient, 960 of them, and ~5 s for the mpmath re-evaluation at 20 digits
WIDE = {
    Profile.QUICK: dict(ds=[], random=0, starts=0, steps=0, nm_starts=0, nm_evals=0, dps=15),
    Profile.DEFAULT: dict(ds=[16, 24, 32, 50], random=1, starts=2, steps=60, nm_starts=0,
                          nm_evals=0, dps=20),
    Profile.FULL: dict(ds=[24, 32, 50], random=3, starts=2, steps=100, nm_starts=1, nm_evals=20,
                       dps=20),
}


# every output and every attention, certified (branch and bound over the cube of successive
# ratios with the target's position, the cone's minimum by weak duality; verify.certify.cube):
# the d of each profile and the boxes judged; from certificates/prop2-cone-dD.json each leaf is
# judged once (d = 3: its leaves prove 0.49; d = 4, full profile: 0.2042, found for the
# configured 1/5; the quick profile starts from the root: 107 boxes for c1)
CONE_D = {Profile.QUICK: [3], Profile.DEFAULT: [3], Profile.FULL: [3, 4]}
CONE_BOXES = {Profile.QUICK: 600, Profile.DEFAULT: 8000, Profile.FULL: 20000}
# the d at which the independent checker, in its own process, judges the cone's leaves too
# (prop2-cone-d3: about 300 CPU-s; -d4: about 750); on the default profile it decides and the engine re-judges a
# seeded sample of the committed leaves (certify/trusted.py)
CHECKED_D = {Profile.QUICK: (), Profile.DEFAULT: (3,), Profile.FULL: (3, 4)}


def c1_value(constants: Constants) -> Fraction:
    return Fraction(constants["prop2.c1"])


# ===================================================================== symbolic steps

_d = sp.Symbol("d", positive=True)


def negative_mass() -> sp.Expr:
    """P(y = -1) = E[1{C_s = 0}] = G((d-1)/d), G(z) = p z/(1 - q z) (the x_s = 0 slice of the
    generating function at x_i = 1), simplified by SymPy."""
    p = 1 / (_d - 1)
    q = 1 - p
    z = (_d - 1) / _d
    return sp.simplify(p * z / (1 - q * z))


def _judge_negative_mass(case: Case, constants: Constants) -> Outcome:
    value = negative_mass()
    ok = sp.simplify(value - sp.Rational(1, 2)) == 0
    return Outcome(case.label, bool(ok), None, Evidence.SYMBOLIC,
                   f"P(y = -1) = G((d-1)/d) = {sp.sstr(value)} for every d >= 2")


def prediction_nonnegative(threshold=1) -> tuple[sp.Expr, bool]:
    """(f, proved): f = sum_i beta~_i gamma_i - 1 on a word, for every d >= 1 at once, when
    every beta~_i >= ``threshold``: with beta~_i = threshold + b_i (b_i >= 0, SymPy indexed
    symbols of symbolic length d) and sum_i gamma_i = 1 (softmax weights gamma_i >= 0), SymPy
    splits the sum by linearity, replaces sum_i gamma_i by 1 and decides the sign of what is left.
    For threshold 1, f = sum_i b_i gamma_i, a sum of products of non-negatives."""
    d = sp.Symbol("d", integer=True, positive=True)
    i = sp.Symbol("i", integer=True, positive=True)
    b = sp.IndexedBase("b", nonnegative=True)  # beta~_i - threshold
    g = sp.IndexedBase("gamma", nonnegative=True)
    f = sp.Sum((threshold + b[i]) * g[i], (i, 1, d)) - 1
    on_simplex = sp.Add(*[sp.factor_terms(t) for t in sp.Add.make_args(sp.expand(f))])
    on_simplex = on_simplex.subs(sp.Sum(g[i], (i, 1, d)), 1)
    return on_simplex, bool(on_simplex.is_nonnegative)


def _judge_large_output(case: Case, constants: Constants) -> Outcome:
    """min beta~ >= 1 => f >= 0 on every word (:func:`prediction_nonnegative`, every d at once)
    => the loss on a negative word l = (f + 1)^2/2 = 1/2 + f (f + 2)/2 >= 1/2
    => L_s >= P(y=-1) 1/2 = 1/4 (P(y = -1) = 1/2: :func:`negative_mass`)."""
    f_word, ok = prediction_nonnegative(1)
    f = sp.Symbol("f", nonnegative=True)
    ok &= bool(sp.simplify((f + 1) ** 2 / 2 - sp.Rational(1, 2) - f * (f + 2) / 2) == 0)
    ok &= bool((f * (f + 2) / 2).is_nonnegative)
    bound = negative_mass() * sp.Rational(1, 2)
    ok &= sp.simplify(bound - sp.Rational(1, 4)) == 0
    return Outcome(case.label, bool(ok), None, Evidence.SYMBOLIC,
                   f"for every d: f = {sp.sstr(f_word)} >= 0 (b_i = beta~_i - 1 >= 0, gamma_i >= 0, "
                   f"sum gamma_i = 1), loss on negatives >= 1/2, L >= P(y=-1)/2 = {sp.sstr(bound)}")


# ===================================================================== inf over alpha (search)


def inf_attention(d: int, s: int, beta, starts: int, steps: int, seed: int,
                  lr: float = 0.3) -> tuple[float, np.ndarray, int]:
    """(smallest loss found, its alpha, gradient evaluations): multi-start Adam on alpha with
    the float64 loss and gradient (rule step SEARCH_STEP); starts: 0, -8 e_s (ignore s), +8 e_s,
    then Gaussian."""
    from ..engine import general

    beta = np.asarray(beta, dtype=np.float64)
    rng = np.random.default_rng([seed, d, s])
    fixed = [np.zeros(d), -8.0 * np.eye(d)[s], 8.0 * np.eye(d)[s]]
    best, best_a, calls = math.inf, np.zeros(d), 0

    def loss_grad(a):
        ev = general.evaluate_float(d, s, a, beta, SEARCH_STEP, with_errors=False)
        return ev.loss, ev.grad_alpha

    for k in range(starts):
        a0 = fixed[k].copy() if k < len(fixed) else rng.normal(scale=2.0, size=d)
        val, a, used = adam(loss_grad, a0, steps, lr,
                            project=lambda a: np.clip(a - a.max(), -LOGIT_BOX, 0.0))
        calls += used
        if val < best:
            best, best_a = val, a
    return best, best_a, calls


def reevaluate(d: int, s: int, alpha: np.ndarray, beta, dps: int) -> tuple:
    """L_s(alpha, beta~) on the mpmath path (an :class:`~verify.engine.estimate.Estimate`), alpha and
    beta~ read exactly from their float64 values."""
    from ..engine import general

    att = general.GeneralAttention.from_alpha(d, s, [repr(float(a)) for a in alpha], dps)
    return general.loss_estimate(att, [repr(float(b)) for b in beta])


def structured_outputs(d: int) -> list[tuple[str, np.ndarray]]:
    e = np.eye(d)
    rest = np.ones(d) - e[0]
    return [("0", np.zeros(d)), ("1", np.ones(d)), ("0.9*1", 0.9 * np.ones(d)), ("2e_0", 2 * e[0]),
            ("2*(1-e_0)", 2 * rest), ("2*(1-e_0) + 0.5e_0", 2 * rest + 0.5 * e[0]),
            ("-1", -np.ones(d))]


def search_floor(d: int, seed: int, random: int, starts: int, steps: int, nm_starts: int,
                 nm_evals: int) -> SearchResult:
    """min over searched beta~ of inf_alpha L_s(alpha, beta~), s = argmin beta~ (seeded):
    structured and random beta~, then Nelder-Mead from the best.  ``x`` is beta~; ``extra``:
    s and the attention alpha found."""
    rng = np.random.default_rng([seed, d, 2])
    best = SearchResult.empty(d)
    effort = dict(outputs=0, gradient_calls=0)

    def value(family, name, beta):
        s = int(np.argmin(beta))
        val, alpha, calls = inf_attention(d, s, beta, starts, steps, seed)
        effort["outputs"] += 1
        effort["gradient_calls"] += calls
        best.consider(family, name, beta, val, s=s, alpha=alpha)
        return val

    tried = [(value("structured", name, beta), beta) for name, beta in structured_outputs(d)]
    tried += [(value("random", f"gauss#{i}", beta), beta)
              for i, beta in enumerate(rng.normal(size=d) for _ in range(random))]
    tried.sort(key=lambda t: t[0])  # stable: ties keep the order tried
    for i in range(nm_starts):
        x0 = tried[i % len(tried)][1] + 0.3 * rng.normal(size=d)
        nelder_mead(lambda x: value("adversarial", "adversarial", x), x0, 0.5, nm_evals)
    best.effort = effort
    return best


def _floor_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    profile = profile or Profile.QUICK
    if options.get("d"):
        rows = [(int(d), SEARCH[profile]) for d in options["d"]]
    else:
        rows = [(d, cfg) for cfg in (SEARCH[profile], WIDE[profile]) for d in cfg["ds"]]
    return [Case(f"d={d}" if cfg is SEARCH[profile] else f"d={d} (lighter search)",
                 {"d": d, "seed": 0, **{k: v for k, v in cfg.items() if k != "ds"}})
            for d, cfg in rows]


def _judge_floor(case: Case, constants: Constants) -> Outcome:
    prm = case.params
    d = prm["d"]
    c1 = c1_value(constants)
    res = search_floor(d, prm["seed"], prm["random"], prm["starts"], prm["steps"],
                       prm["nm_starts"], prm["nm_evals"])
    at = res.extra
    confirmed = reevaluate(d, at["s"], at["alpha"], res.x, prm["dps"])
    val, err = confirmed.value, confirmed.error
    c1m = to_mpf(c1)
    eff = res.effort
    detail = (f"floor inf_alpha L_s = {res.value:.6g} (float64; mpmath {prm['dps']} digits at "
              f"the alpha found: {mpmath.nstr(val, 10)} +- {mpmath.nstr(err, 2)}) at beta~ = "
              f"{res.family} {fmt_vector(res.x)}, s = argmin = {at['s']}, alpha = "
              f"{fmt_vector(at['alpha'])}; vs c1 = {c1}: x{float(val / c1m):.4g}; effort: "
              f"{eff['outputs']} outputs beta~ ({prm['random']} random, {prm['nm_starts']} "
              f"Nelder-Mead runs of {prm['nm_evals']}), {prm['starts']} Adam starts x "
              f"{prm['steps']} steps each, {eff['gradient_calls']} loss+gradient evaluations")
    return floor_outcome(case, res.value, val, err, c1, detail,
                         {"floor": float(val), "floor_error": float(err),
                          "evaluations": eff["gradient_calls"],
                          "beta": [float(b) for b in res.x], "s": at["s"],
                          "alpha": [float(a) for a in at["alpha"]]})


def _judge_certified(case: Case, constants: Constants) -> Outcome:
    """L_s(alpha, beta~) at the one (beta~, alpha, s) prop2.floor found, as a ball
    (:func:`verify.engine.certified.general.ball_loss`: O(d) per node), against c1.  A value at
    one attention: an UPPER bound of inf_alpha L_s there, so it supports no floor; what it
    certifies is the claim at that point ("L at the found point >= c1"), i.e. prop2.floor's
    re-evaluation, which must lie in the ball (a second route)."""
    from ..engine.certified.general import ball_loss

    found = dedicated_outcome("prop2.floor", case, constants)
    v = found.values
    if "alpha" not in v:
        return Outcome(case.label, None, None, Evidence.CERTIFIED, "prop2.floor gave no point")
    ball = ball_loss(case.params["d"], v["s"], v["alpha"], v["beta"], CERT_BITS)
    detail = (f"L_s(alpha, beta~) at the one point prop2.floor found, beta~ = "
              f"{fmt_vector(v['beta'])}, s = {v['s']}, alpha = {fmt_vector(v['alpha'])} (Arb, "
              f"{CERT_BITS} bits)")
    return ball_outcome(case, ball, c1_value(constants), detail, note=VALUE_NOTE,
                        reference=reference_of(found, "floor", "floor_error"))


VALUE_NOTE = ("certified value of L at the found point, an upper bound of inf_alpha there: no "
              "floor, which remains prop2.floor's search")


# ------------------------------------------------ every output and attention (certified)


def _cone_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    from ..certify.trusted import SAMPLE  # the default profile: the checker decides, the engine samples

    ds = options.get("d") or CONE_D[profile or Profile.QUICK]
    profile = profile or Profile.QUICK
    return [Case(f"d={int(d)}", {"d": int(d), "boxes": CONE_BOXES[profile],
                                 "certificate": profile is not Profile.QUICK,
                                 "checker": int(d) in CHECKED_D[profile],
                                 **({"engine_sample": SAMPLE} if profile is Profile.DEFAULT else {}),
                                 **({"from_root": True} if options.get("from_root") else {})})
            for d in ds if 3 <= int(d) <= 5]


def _judge_all_parameters(case: Case, constants: Constants) -> Outcome:
    """For every beta~ and alpha: with s = argmin beta~ at each position among the sorted
    logits, min over the cone {beta~_s <= beta~_j} of L_s(alpha, .) >= c1 on every box of the
    cube of successive ratios (weak duality; prop2-cone-dD).  The quantifiers: inf over beta~ of
    inf over alpha equals the inf over the pairs, taken here in the other order."""
    from ..certify.cube_certificate import CERTIFICATES, cube_outcome

    folder = CERTIFICATES if case.params.get("certificate", True) else None
    return cube_outcome(f"prop2-cone-d{case.params['d']}", case, constants, case.params["boxes"],
                        folder)


# ------------------------------------------------ the case beta~_s >= 1, numerically


def _large_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    cfg = SEARCH[profile or Profile.QUICK]
    ds = options.get("d") or cfg["ds"]
    n = {Profile.QUICK: 1, Profile.DEFAULT: 2, Profile.FULL: 6}[profile or Profile.QUICK]
    return [Case(f"d={d}, seed={k}", {"d": int(d), "seed": k, "starts": cfg["starts"],
                                       "steps": cfg["steps"], "dps": cfg["dps"]})
            for d in ds for k in range(n)]


def large_output(d: int, seed: int) -> np.ndarray:
    """beta~ with min exactly 1: seed 0 is the near-tight (1, ..., 1, 2) (negatives can attend to
    a 1, positives to the 2: the infimum is 1/4 plus the mass of words without a 2 or a 1),
    others 1 + |N(0, 2^2)| with the minimum moved to 1."""
    if seed == 0:
        return np.array([1.0] * (d - 1) + [2.0])
    rng = np.random.default_rng([seed, d, 1])
    b = 1 + np.abs(rng.normal(scale=2.0, size=d))
    b[int(np.argmin(b))] = 1.0
    return b


def _judge_large(case: Case, constants: Constants) -> Outcome:
    d, seed = case.params["d"], case.params["seed"]
    beta = large_output(d, seed)
    s = int(np.argmin(beta))
    val, alpha, calls = inf_attention(d, s, beta, case.params["starts"], case.params["steps"], seed)
    confirmed = reevaluate(d, s, alpha, beta, case.params["dps"])
    hp, err = confirmed.value, confirmed.error
    quarter = mpmath.mpf(1) / 4
    detail = (f"beta~ = {fmt_vector(beta)}, s = {s}: smallest L found {val:.6g} (mpmath "
              f"{mpmath.nstr(hp, 10)} +- {mpmath.nstr(err, 2)}) >= 1/4, {calls} evaluations")
    return floor_outcome(case, val, hp, err, quarter, detail)


STATED = Region.of(d=at_least(2))
EVERY_D_STEPS = (
    ("prop2.every-d.p1", "P(w) = g beta~_s + (1 - g) P(z) with g = gamma_s(w) in [0, 1], and P(z) >= beta~_s "
     "(s = argmin beta~), so P(w) <= P(z) on every word w with background z"),
    ("prop2.every-d.p2", "rho(w) = rho(z) C(n+k, k) (q/d)^k; sum_k C(n+k, k) t^k = (1 - t)^-(n+1)"),
    ("prop2.every-d.p3", "each background z: its words cost >= rho(z) 2 (1 - (1 - t)^(n+1))"),
    ("prop2.every-d.p4", "summed over z: L_s >= B(d) = (d-2)(d^3+d^2-4d+4)/(d(d-1)(3d^2-6d+4))"),
    ("prop2.every-d.p5", "B(d) > 1/3 >= c1 for every d >= 3"),
    ("prop2.every-d.p6", "d = 2: L_s = ((2 - b_s)^2 + b_j^2)/4 >= 1/2 >= c1"),
)
PROOF = (
    Obligation("prop2", "for every fixed output beta~ some s has inf_alpha L_s(alpha, beta~) >= c1", STATED,
               Discharge.EITHER, uses=("prop2.every-d", "prop2.a3", "prop2.cone")),
    Obligation("prop2.every-d", "A.3 reconstructed (both cases at once): for s = argmin beta~ and every alpha, "
               "L_s(alpha, beta~) >= 1/2 at d = 2 and > 1/3 for d >= 3, hence >= c1 when c1 <= 1/3", STATED,
               Discharge.FOLLOWS, uses=tuple(node for node, _ in EVERY_D_STEPS),
               where="proofs/prop2.md steps P1-P6"),
    *(Obligation(node, claim, STATED, Discharge.SYMBOLIC, ("prop2.every_d",),
                 where=f"proofs/prop2.md step {node.split('.')[-1].upper()}") for node, claim in EVERY_D_STEPS),
    Obligation("prop2.a3", "A.3 with s = argmin beta~: the cases beta~_s >= 1 and beta~_s < 1", STATED,
               Discharge.FOLLOWS, uses=("prop2.large", "prop2.small"), where="proofs/prop2.md"),
    Obligation("prop2.large", "beta~_s >= 1: L_s >= P(y = -1)/2 = 1/4 >= c1", STATED, Discharge.FOLLOWS,
               uses=("prop2.negative-mass", "prop2.large-output"), where="proofs/prop2.md steps 1-2"),
    Obligation("prop2.negative-mass", "P(y = -1) = 1/2", STATED, Discharge.SYMBOLIC, ("prop2.negative_mass",),
               where="proofs/prop2.md step 1"),
    Obligation("prop2.large-output", "min beta~ >= 1 gives f >= 0 on every word, so L_s >= 1/4", STATED,
               Discharge.EITHER, uses=("prop2.large-output.proof", "prop2.large-output.search")),
    Obligation("prop2.large-output.proof", "f >= 0 on every word (SymPy, a symbolic length d)", STATED,
               Discharge.SYMBOLIC, ("prop2.large_output",), where="proofs/prop2.md step 2"),
    Obligation("prop2.large-output.search", "no attention found below 1/4 for random beta~ with min 1",
               STATED, Discharge.SEARCH, ("prop2.large_output_search",), where="proofs/prop2.md step 3"),
    Obligation("prop2.small", "beta~_s < 1: inf_alpha L_s >= c1", STATED, Discharge.EITHER,
               uses=("prop2.small.lost", "prop2.small.search")),
    Obligation("prop2.small.lost", "A.3's argument for beta~_s < 1 (lost in the text)", STATED,
               Discharge.OPEN, where="proofs/prop2.md step 4"),
    Obligation("prop2.small.search", "no beta~ and alpha found below c1 (the value at the one found "
               "certified: an upper bound of the infimum, never a floor)", STATED, Discharge.SEARCH,
               ("prop2.floor", "prop2.certified_value"), where="proofs/prop2.md step 4"),
    Obligation("prop2.cone", "every beta~ and alpha: the cube of successive ratios times the target's "
               "position, each box's weak-duality bound above c1", Region.of(d=points(3, 4)),
               Discharge.CERTIFIED, ("prop2.all_parameters",),
               uses=("lemma.ratio-cube",), where="proofs/prop2.md step 5", checker=True),
)

RESULT = Result(
    id="prop2",
    name="Proposition 2",
    short="Output fixed, attention trained alone: some target keeps risk >= c1",
    statement="for every fixed output beta~ some s has inf_alpha L_s(alpha, beta~) >= c1",
    hypotheses="d >= 2; s = argmin beta~; beta~_s >= 1 gives 1/4 (text), the other case's argument and c1 "
               "are lost (reconstructed: any c1 <= 1/3 for every d)",
    constants=("prop2.c1",),
    document="proofs/prop2.md",
    proof=PROOF,
    checks=(
        Check("prop2.negative_mass", "A.3", "P(y = -1) = 1/2", Evidence.SYMBOLIC,
              single_case("all d >= 2"),
              _judge_negative_mass),
        Check("prop2.large_output", "A.3 case beta~_s >= 1",
              "min beta~ >= 1 => f >= 0 on every word => L_s >= 1/4", Evidence.SYMBOLIC,
              single_case("all d >= 2"),
              _judge_large_output),
        Check("prop2.every_d", "Proposition 2 (every d, A.3 reconstructed)",
              "for every d >= 2, every beta~ and every alpha, s = argmin beta~ has L_s(alpha, beta~) >= c1: "
              "the insertion pairing gives P(w) <= P(z), each background's words cost >= rho(z) "
              "2(1 - (1-t)^(n+1)), summed B(d) > 1/3 (d >= 3) and 1/2 at d = 2; the identities by SymPy, "
              "the inequalities between them from the standard facts proofs/prop2.md names",
              Evidence.SYMBOLIC, single_case("all d >= 2"), judge_every_d, reconstructed=True,
              scope="every beta~ and alpha"),
        Check("prop2.large_output_search", "A.3 case beta~_s >= 1 (numeric)",
              "inf_alpha L_s(alpha, beta~) >= 1/4 for random beta~ with min 1 (multi-start Adam)",
              Evidence.SEARCH, _large_cases, _judge_large),
        Check("prop2.floor", "Proposition 2 (measured c1)",
              "inf_alpha L_s(alpha, beta~) >= c1 for s = argmin beta~ over searched beta~",
              Evidence.SEARCH, _floor_cases, _judge_floor, reconstructed=True),
        Check("prop2.all_parameters", "Proposition 2 (every output and attention, certified)",
              "for every beta~ and alpha, L_s(alpha, beta~) >= c1 with s = argmin beta~: the cube "
              "of successive ratios (and s's position) tiled by boxes, the minimum over beta~ by "
              "weak duality in Arb (d = 3; d = 4 in the full profile)", Evidence.CERTIFIED, _cone_cases,
              _judge_all_parameters, reconstructed=True, reach=Reach.RANGE,
              scope="every beta~ and alpha"),
        # was prop2.certified_floor (renamed: the value at one alpha bounds inf_alpha from above)
        Check("prop2.certified_value", "Proposition 2 (at the found point)",
              "L_s(alpha, beta~) >= c1 at the one beta~, alpha, s prop2.floor found (Arb ball: the "
              "loss at that point, an upper bound of inf_alpha, so no floor)",
              Evidence.CERTIFIED, _floor_cases, _judge_certified, reconstructed=True),
    ),
    calibrations=(
        Calibration("prop2.c1", ("prop2.floor", "prop2.certified_value"), "d = 9, where the smallest floor (0.4746, a longer search) was found and c1 = 1/5 set from it",
                    lambda params: params.get("d") == 9),
    ),
)
