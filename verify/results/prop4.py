"""Proposition 4 (H heads with fixed attention, bounded output) and its trust-region floor.

Statement (reconstructed; constants lost): for d >= 3, H <= head_factor * sqrt(d) heads with any
fixed attention alpha^(1..H) and output B in R^(H x d) with ||B||_F <= R = radius_scale d^(1/4),
some target s has inf_{||B||_F <= R} L_s >= c4.  Constants: ``prop4.c4``, ``prop4.head_factor``,
``prop4.radius_scale`` (1 in the text).

For fixed attention, with Gamma = vec(gamma^(1), ..., gamma^(H)), Q = E[Gamma Gamma^T] (the same
for every target) and m_s = E[Gamma 1{y_s = +1}],

    L_s(B) = 1/2 b' Q b - 2 b' m_s + 1,   b = vec(B),

a convex quadratic: inf over the ball ||b|| <= R is a trust-region problem.  :func:`trust_region`
solves it for all d targets from one eigen-decomposition of Q (secular equation
||(Lambda + mu)^-1 c|| = R by bracketed bisection in mu, then Newton polish).

Numbers.  Searches run on the float64 path (:func:`verify.engine.general.head_moments_float` for
the cross-head blocks, at coarse steps ``SEARCH_STEPS``); the worst attention found is recomputed
at the engine's default steps, and its floor carries the error ESTIMATE
|delta floor| <= 1/2 ||dQ||_F R^2 + 2 ||dm|| R, with dQ, dm the quadrature's step-halving error
estimates (the value of a quadratic over the ball moves by at most the sup of the perturbation
over the ball: a bound only if dQ, dm were, which they are not).  The floor
of the worst attention found is then recomputed with the mpmath engine and the trust region solved
in mpmath: for H = 1 with :func:`verify.engine.general.moments` at ``DPS`` digits up to
``MP_MAX_D``; for H >= 2 with :func:`verify.engine.general.head_moments` (cross-head blocks by the
nested integral, 8-50 s per pair of heads at d = 4 depending on the spread of the logits,
minutes at d = 9) at ``HEADS_DPS`` digits up to ``MP_HEADS_MAX_D``.  Beyond those d the reported floor is the float64 value
with the error estimate above.
"""
from __future__ import annotations

import math
from typing import Mapping

import mpmath
import numpy as np

from ..checks import Calibration, Case, Check, Constants, Evidence, Outcome, Profile, Result
from ..ledger import Discharge, Obligation, Region, at_least
from ..ledger.stated import as_stated, integers_from
from ..engine import general
from ..engine.precision import working
from ..search import argmax, decisive, multistart
from ..engine.certified.balls import precision
from .common import (ball_outcome, constant, dedicated_outcome, fmt_vector, lower_outcome,
                     reference_of, single_case)
from .prop4_every_d import judge_every_d

DPS = 20
CERT_BITS = 64  # Arb precision of the certified floor
# certified floors for H >= 2 up to this d (cross-head blocks: a 2-D rule, ~15 s per pair at d = 9)
CERT_HEADS_MAX_D = {Profile.QUICK: 4, Profile.DEFAULT: 4, Profile.FULL: 9}
SEARCH_STEPS = (0.25, 1.0)  # (h in ln t, h in theta) during searches
CONFIRM_STEPS = (general.FLOAT_STEP, general.FLOAT_THETA_STEP)
D_GRID = {
    Profile.QUICK: [9],
    Profile.DEFAULT: [4, 9, 16, 25],
    Profile.FULL: [4, 9, 16, 25, 36, 49],
}
BUDGET = {Profile.QUICK: 12, Profile.DEFAULT: 300, Profile.FULL: 1500}  # floor evaluations (H = 1)
SECONDS = {Profile.QUICK: 0.5, Profile.DEFAULT: 5.0, Profile.FULL: 60.0}  # search time (H >= 2)
PAIR_SECONDS = 0.05  # float64 cross-head block at d <= 9, coarse steps (measured)
MP_MAX_D = 10  # H = 1 floors confirmed with the mpmath engine up to this d
HEADS_DPS = 15
MP_HEADS_MAX_D = 4  # the same for H >= 2 (a pair of heads costs 8-50 s at d = 4, minutes at d = 9)
QUICK_HEADS = (1, 3)
# the d prop4.head_factor was chosen at (proofs/constants.toml): the largest integer f whose
# H = floor(f sqrt(d)) heads keep the smallest floor found >= c4 there; every other d is held out
HEAD_FACTOR_D = (4,)
LEVELS = {Profile.QUICK: (10.0,), Profile.DEFAULT: (1.0, 3.0, 10.0, 30.0), Profile.FULL: (1.0, 3.0, 10.0, 30.0)}


# --------------------------------------------------------------------------- trust region


def trust_region(Q: np.ndarray, G: np.ndarray, R: float, rel_cut: float = 1e-13) -> tuple:
    """min over ||b|| <= R of 1/2 b'Qb - g'b for every column g of G (Q symmetric PSD).

    Returns (B, mu, values): minimisers as columns, multipliers (0 when the unconstrained
    minimiser lies in the ball) and the minimum values.  Eigenvalues below rel_cut * max are
    taken as 0; a column with a component in that null space has an unbounded unconstrained
    problem, so its constraint is active (mu > 0).  KKT: (Q + mu) b = g, mu (R - ||b||) = 0.

    Hand-written on purpose: SciPy has no public solver for the trust-region subproblem, and
    ``scipy.optimize.minimize(method="trust-constr")`` with the constraint ||b||^2 <= R^2 took
    242 ms CPU for the 9 targets at d = 9, H = 3 against 10.6 ms here (one eigh for all targets),
    and its minima were up to 8e-11 higher.
    """
    lam, V = np.linalg.eigh(Q)
    top = max(float(lam.max()), 0.0)
    lam = np.where(lam > rel_cut * top, lam, 0.0)
    C = V.T @ (G if G.ndim == 2 else G[:, None])
    k = C.shape[1]
    mu = np.zeros(k)
    null = lam == 0
    inside = np.ones(k, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        Y0 = np.where(null[:, None], 0.0, C / np.where(null, 1.0, lam)[:, None])
    norm0 = np.linalg.norm(Y0, axis=0)
    has_null = (np.abs(C[null]) > 1e-14 * (np.abs(C).max() + 1e-300)).any(axis=0) if null.any() else np.zeros(k, bool)
    inside = (norm0 <= R) & ~has_null
    cn = np.linalg.norm(C, axis=0)
    for j in np.flatnonzero(~inside):
        c = C[:, j]
        lo = max(cn[j] / R - top, 0.0)
        hi = cn[j] / R  # ||b(mu)|| <= ||c|| / mu
        for _ in range(200):  # bisection on ||b(mu)|| - R (decreasing in mu)
            mid = 0.5 * (lo + hi)
            if np.linalg.norm(c / (lam + mid)) > R:
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-15 * hi:
                break
        m = hi
        for _ in range(3):  # Newton on 1/||b|| - 1/R (Moré-Sorensen), kept in the bracket
            y = c / (lam + m)
            nb = np.linalg.norm(y)
            dpsi = float((y * y / (lam + m)).sum()) / nb**3
            step = (1.0 / nb - 1.0 / R) / dpsi
            if not np.isfinite(step):
                break
            m = min(max(m - step, lo), hi) if lo < hi else m
        mu[j] = m
    with np.errstate(divide="ignore", invalid="ignore"):
        Yb = C / (lam[:, None] + mu[None, :])
    Yb[:, inside] = Y0[:, inside]
    B = V @ Yb
    values = 0.5 * (lam[:, None] * Yb * Yb).sum(axis=0) - (C * Yb).sum(axis=0)
    return B, mu, values


def radius(d: int, constants: Constants) -> float:
    return float(constant(constants, "prop4.radius_scale")) * d**0.25


# --------------------------------------------------------------------------------- floors


def head_system(d: int, H: int, x, steps=SEARCH_STEPS, with_errors: bool = False):
    """(Q, P[, eQ, eP]) in float64: Q = E[Gamma Gamma^T] ((Hd) x (Hd)), P[:, s] = m_s."""
    rows = np.asarray(x, dtype=np.float64).reshape(H, d)
    h, ht = steps
    P = np.vstack([general.target_moments_float(d, r, h)[1] for r in rows])
    if H == 1:
        Q, _ = general.target_moments_float(d, rows[0], h)
        eQ = None
        if with_errors:
            Q2, _ = general.target_moments_float(d, rows[0], 2 * h)
            eQ = np.abs(Q - Q2)
    else:
        Q, _, err = general.head_moments_float(d, 0, rows, h, ht)
        eQ = err["second"]
    if not with_errors:
        return Q, P
    P2 = np.vstack([general.target_moments_float(d, r, 2 * h)[1] for r in rows])
    return Q, P, eQ, np.abs(P - P2)


def floors(d: int, H: int, x, R: float, steps=SEARCH_STEPS) -> np.ndarray:
    """inf over ||B||_F <= R of L_s for every target s (float64)."""
    Q, P = head_system(d, H, x, steps)
    _, _, vals = trust_region(Q, 2.0 * P, R)
    return 1.0 + vals


def floor_error(eQ: np.ndarray, eP: np.ndarray, R: float) -> np.ndarray:
    """Per-target error ESTIMATE 1/2 ||dQ||_F R^2 + 2 ||dm_s|| R of the floor (from the
    step-halving estimates eQ, eP: an estimate, not a bound)."""
    return 0.5 * np.linalg.norm(eQ) * R**2 + 2.0 * np.linalg.norm(eP, axis=0) * R


def trust_region_mp(M: mpmath.matrix, g: list, R) -> tuple:
    """(value, mu, norm) of min over ||b|| <= R of 1/2 b'Mb - g'b in mpmath (eigsy + bisection)."""
    n = M.rows
    lam, V = mpmath.eigsy(M)
    c = [mpmath.fsum(V[i, k] * g[i] for i in range(n)) for k in range(n)]
    lam = [max(lam[k], mpmath.mpf(0)) for k in range(n)]

    def norm(mu):
        return mpmath.sqrt(mpmath.fsum((c[k] / (lam[k] + mu)) ** 2 for k in range(n)))

    mu = mpmath.mpf(0)
    if min(lam) <= 0 or norm(mu) > R:
        cn = mpmath.sqrt(mpmath.fsum(x * x for x in c))
        lo, hi = max(cn / R - max(lam), mpmath.mpf(0)), cn / R
        for _ in range(int(mpmath.mp.prec) + 10):
            mid = (lo + hi) / 2
            if norm(mid) > R:
                lo = mid
            else:
                hi = mid
        mu = hi
    y = [c[k] / (lam[k] + mu) for k in range(n)]
    value = mpmath.fsum(lam[k] * y[k] ** 2 / 2 - c[k] * y[k] for k in range(n))
    return value, mu, norm(mu)


def confirm_mp(d: int, s: int, x, H: int, R: float, dps: int) -> tuple:
    """(value, error) of the floor at target s for the H heads stacked in ``x``, from the mpmath
    engine (for H >= 2 the cross-head blocks come from the nested integral)."""
    heads = [[repr(float(a)) for a in row] for row in np.reshape(x, (H, d))]
    mom = general.head_moments(d, s, heads, dps)
    with working(dps):
        Rm = mpmath.mpf(repr(R))
        g = [2 * v for v in mom.mean_positive]
        value, _, _ = trust_region_mp(mom.second, g, Rm)
        eQ = mpmath.sqrt(mpmath.fsum(v**2 for v in mom.errors["second"]))
        em = mpmath.sqrt(mpmath.fsum(v**2 for v in mom.errors["mean_positive"]))
        return 1 + value, eQ * Rm**2 / 2 + 2 * em * Rm


# -------------------------------------------------------------------------- search space


def structured_heads(d: int, H: int, levels=(1.0, 3.0, 10.0, 30.0)) -> list[tuple[str, np.ndarray]]:
    """Uniform heads; head h on its own group of symbols (i = h mod H) raised by L; one logit per
    head; identical heads with one large logit; rotated lexicographic ramps."""
    out = [("all heads uniform", np.zeros(H * d))]
    idx = np.arange(d)
    for L in levels:
        out.append((f"head h raises group i=h mod H by {L:g}",
                    np.concatenate([np.where(idx % H == h, L, 0.0) for h in range(H)])))
        out.append((f"head h raises symbol h by {L:g}",
                    np.concatenate([np.where(idx == h % d, L, 0.0) for h in range(H)])))
    out.append(("identical heads, one logit +3", np.tile(np.where(idx == 0, 3.0, 0.0), H)))
    for step in (1.0, 4.0):
        out.append((f"rotated lexicographic ramps step {step:g}",
                    np.concatenate([np.roll(-step * idx.astype(float), (h * d) // H) for h in range(H)])))
    return out


def head_counts(d: int, constants: Constants) -> list[int]:
    """H = 1, 2, ceil(sqrt d), 2 ceil(sqrt d), kept when H <= head_factor sqrt(d)."""
    cap = float(constant(constants, "prop4.head_factor")) * math.sqrt(d)
    r = math.ceil(math.sqrt(d))
    return sorted({H for H in (1, 2, r, 2 * r, int(math.floor(cap))) if 1 <= H <= cap + 1e-12})


def head_factor_calibrated(params: Mapping[str, object]) -> bool:
    """Whether a case is one prop4.head_factor was chosen on: d in HEAD_FACTOR_D (every H)."""
    return params.get("d") in HEAD_FACTOR_D


def budget_for(profile: Profile, d: int, H: int) -> int:
    """Floor evaluations: H = 1 gets the profile's BUDGET; H >= 2 gets what fits in SECONDS
    [profile] at ~PAIR_SECONDS max(1, (d/9)^2) per pair of heads (the cross-head blocks dominate),
    and at least the structured candidates plus two random draws.  Depends on (d, H) only, so a
    case is reproducible."""
    floor = len(structured_heads(d, H, LEVELS[profile])) + 2
    if H == 1:
        return max(floor, BUDGET[profile])
    pairs = H * (H - 1) // 2
    per_eval = pairs * PAIR_SECONDS * max(1.0, (d / 9) ** 2)
    return max(floor, int(SECONDS[profile] / per_eval))


def prop4_search(d: int, H: int, R: float, seed: int, budget: int, levels=LEVELS[Profile.DEFAULT]):
    return multistart(lambda x: floors(d, H, x, R), structured_heads(d, H, levels), seed, budget,
                      H * d, n_random=max(2, budget // 10),
                      n_descents=2 if budget >= H * d + 3 else 0)


# ----------------------------------------------------------------------------------- checks


def _cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = options.get("d") or D_GRID[profile]
    out = []
    for d in (int(x) for x in ds):
        if d < 3:
            continue
        Hs = head_counts(d, constants)
        if profile is Profile.QUICK and not options.get("d"):
            Hs = [H for H in Hs if H in QUICK_HEADS]
        for H in Hs:
            out.append(Case(f"d={d}, H={H}, seed=0",
                            {"d": d, "H": H, "seed": 0, "budget": budget_for(profile, d, H),
                             "levels": LEVELS[profile],
                             "mpmath": d <= (MP_MAX_D if H == 1 else MP_HEADS_MAX_D)}))
    return out


def _judge_floor(case: Case, constants: Constants) -> Outcome:
    d, H, seed, budget = (case.params[k] for k in ("d", "H", "seed", "budget"))
    R = radius(d, constants)
    c4 = constant(constants, "prop4.c4")
    res = prop4_search(d, H, R, seed, budget, tuple(case.params.get("levels", LEVELS[Profile.DEFAULT])))
    Q, P, eQ, eP = head_system(d, H, res.x, CONFIRM_STEPS, with_errors=True)
    _, mu, vals = trust_region(Q, 2.0 * P, R)
    fl = 1.0 + vals
    s = argmax(fl)
    err = float(floor_error(eQ, eP, R)[s])
    value, route = fl[s], f"float64 at steps {CONFIRM_STEPS}, error estimate {err:.1e} (step halving)"
    if case.params.get("mpmath", False):
        dps = DPS if H == 1 else HEADS_DPS
        mv, me = confirm_mp(d, s, res.x, H, R, dps)
        if abs(mv - fl[s]) > me + err:  # two routes that disagree beyond their error estimates
            return Outcome(case.label, None, None, Evidence.SEARCH,
                           f"float64 floor {fl[s]:.12f} +- {err:.1e} and mpmath floor "
                           f"{mpmath.nstr(mv, 12)} +- {mpmath.nstr(me, 2)} disagree at s={s}")
        route = (f"mpmath {dps} digits (error estimate {mpmath.nstr(me, 2)}; float64 "
                 f"{fl[s]:.10f})")
        value, err = mv, me
    with mpmath.workdps(30):
        value = mpmath.mpf(value)
        err = mpmath.mpf(err)
    fams = "; ".join(f"{k} {v[0]:.5f} ({v[1]})" for k, v in res.by_family.items())
    heads = " | ".join(fmt_vector(r, 3, 12, relative=True) for r in res.x.reshape(H, d))
    detail = (f"smallest floor {mpmath.nstr(value, 8)} at s={s} ({route}), H/sqrt(d) = "
              f"{H / math.sqrt(d):.3f}, R = {R:.4f}, constraint {'active' if mu[s] > 0 else 'inactive'}; "
              f"attention ({res.family}): {heads}; vs c4 = {mpmath.nstr(c4, 6)}; search: "
              f"{res.effort['evaluations']} float floor evaluations, {res.effort['starts']} starts, "
              f"seed {seed}; best per family: {fams}")
    return lower_outcome(case, value, value - err, value + err, c4, Evidence.SEARCH, detail,
                         values={"floor": float(value), "floor_error": float(err), "H": H,
                                 "evaluations": res.effort["evaluations"],
                                 "x": [float(a) for a in res.x], "s": s})


def _certified_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    """prop4.floor's cases with H = 1, and with H >= 2 up to d = CERT_HEADS_MAX_D[profile] (the
    Arb cross-head blocks are a 2-D rule: ~3-6 s per pair of heads at d = 4, ~15 s at d = 9)."""
    return [c for c in _cases(profile, constants, options)
            if c.params["H"] == 1 or c.params["d"] <= CERT_HEADS_MAX_D[profile]]


INPUT_BITS = 30  # the float solver's minimiser and multiplier, rounded before the Arb
# evaluation (as search.decisive rounds every search decision): their last bits differ between
# machines (LAPACK's eigh), and the minimiser lies on the sphere ||b|| = R, where the last bits
# decided whether it was proved feasible (then its loss) or first scaled inside by 1 - 2^-20:
# the upper end moved in the 8th digit (0.1693802651 against 0.1693802861)


def _judge_certified(case: Case, constants: Constants) -> Outcome:
    """The floor at the worst attention prop4.floor found, as a ball: a lower bound by weak
    duality at the float solver's multiplier (1 - mu R^2/2 - 2 m'(Q + mu I)^-1 m, any mu >= 0)
    and an upper bound by the loss at the float minimiser (made feasible), both in Arb
    (Q, m from :func:`verify.engine.certified.heads.head_system`); minimiser and multiplier are
    rounded to INPUT_BITS significant bits first (any mu >= 0 and any feasible b are valid), so
    the ball does not depend on the float solver's last bits.  prop4.floor's value (mpmath or
    float64, with its error estimate) must lie in the ball (a second route)."""
    from flint import arb

    from ..engine.certified.floors import dual_floor, feasible_upper
    from ..engine.certified.heads import head_system as ball_system

    found = dedicated_outcome("prop4.floor", case, constants)
    d, H = case.params["d"], case.params["H"]
    x, s = found.values.get("x"), found.values.get("s")
    if x is None:
        return Outcome(case.label, None, None, Evidence.CERTIFIED, "prop4.floor gave no point")
    R = radius(d, constants)
    Q, P = head_system(d, H, x, CONFIRM_STEPS)
    B, mu, _ = trust_region(Q, 2.0 * P, R)
    b = [float(v) for v in decisive(B[:, s], INPUT_BITS)]
    mu_s = float(decisive(max(float(mu[s]), 0.0), INPUT_BITS))
    Qb, mb = ball_system(d, s, np.reshape(x, (H, d)).tolist(), CERT_BITS)
    scale = constants["prop4.radius_scale"]
    with precision(CERT_BITS):
        R2 = arb(scale.numerator) ** 2 / arb(scale.denominator) ** 2 * arb(d).sqrt()
    lower = dual_floor(Qb, mb, R2, mu_s, CERT_BITS)
    upper = feasible_upper(Qb, mb, b, R2, CERT_BITS)
    ball = lower if upper is None else lower.union(upper)
    detail = (f"inf over ||B||_F <= d^(1/4) of L_s at s={s}, H={H}, attention "
              f"{fmt_vector(x, 3, 12, relative=True)} (prop4.floor's worst point; dual bound at "
              f"mu = {mu_s:.6g}, upper bound "
              f"{'at the float minimiser' if upper is not None else 'not proved feasible'} "
              f"(both rounded to {INPUT_BITS} bits); Arb, {CERT_BITS} bits)")
    return ball_outcome(case, ball, constants["prop4.c4"], detail,
                        reference=reference_of(found, "floor", "floor_error"))


STATED = Region.of(d=at_least(3))
EVERY_D_STEPS = (
    ("prop4.every-d.q1", "per head P_h(w) - P_h(z) = g_h (beta_hs - P_h(z)), g_h = gamma_s^(h)(w)"),
    ("prop4.every-d.q2", "|P(w) - P(z)|^2 <= 2 R^2 sum_h g_h^2 (Cauchy-Schwarz; distinct entries of B)"),
    ("prop4.every-d.q3", "(a - e)^2 >= (1 - theta) a^2 - (1/theta - 1) e^2"),
    ("prop4.every-d.q4", "each background's words cost >= rho(z) 2 (1 - theta)(1 - 1/S) less the spread"),
    ("prop4.every-d.q5", "L_s >= (1 - theta) B(d) - (1/theta - 1) kappa for theta in (0, 1]; for kappa <= B(d) "
     "at best (sqrt B - sqrt kappa)^2"),
    ("prop4.every-d.q6", "B(d) > 1/3 gives (sqrt(1/3) - sqrt(kappa))^2 >= c4 at kappa = radius_scale^2 "
     "head_factor_every_d <= 1/3 (exact rationals)"),
    ("prop4.every-d.grouping", "Proposition 2's grouping by background, checked again here (proofs/prop2.md "
     "P2, P4, P5): rho(w) = rho(z) C(n+k, k) (q/d)^k, the sum B(d), B(d) > 1/3"),
)
PROOF = (
    Obligation(as_stated("prop4"), "some a, c > 0: H <= max(1, a sqrt(d)) heads, a = min(head_factor, "
               "head_factor_every_d), c = min(c4, c2, c2_every_d); not H <= head_factor sqrt(d) with c4",
               Region.of(d=integers_from(3)), Discharge.FOLLOWS, uses=("prop4.heads", "prop4.one-head"),
               where="proofs/prop4.md, 'As the paper states it'"),
    Obligation("prop4.heads", "some s keeps inf_B L_s >= c4 with H <= a sqrt(d) heads, a = "
               "min(head_factor, head_factor_every_d) (no head admissible below d = 1/a^2)", STATED,
               Discharge.EITHER, uses=("prop4", "prop4.every-d")),
    Obligation("prop4.one-head", "H = 1: model (2) is model (1) with beta = B, and the ball ||B||_F <= "
               "d^(1/4) only raises the infimum, so Proposition 3's target keeps inf_B L_s >= its constant",
               Region.of(d=integers_from(3)), Discharge.FOLLOWS, uses=(as_stated("prop3"),),
               where="proofs/prop4.md, 'As the paper states it'"),
    Obligation("prop4", "with H <= head_factor sqrt(d) fixed heads and ||B||_F <= d^(1/4) some s has "
               "inf_B L_s >= c4", STATED, Discharge.EITHER, uses=("prop4.a5", "prop4.search")),
    Obligation("prop4.a5", "A.5: from the low-attention lemma to the floor", STATED, Discharge.FOLLOWS,
               uses=("lemma-low-attention", "prop4.rest-of-a5"), where="proofs/prop4.md"),
    Obligation("prop4.rest-of-a5", "from sum_h E[(gamma_s^(h))^2] <= H/d to inf over ||B||_F <= d^(1/4) "
               "of L_s >= c4 with H <= head_factor sqrt(d) (lost in the text): the route reconstructed "
               "below proves c4 only for the smaller head_factor_every_d", STATED, Discharge.OPEN,
               uses=("prop4.every-d",), where="proofs/prop4.md, 'Every d'"),
    Obligation("prop4.every-d", "with H <= head_factor_every_d sqrt(d) heads and ||B||_F <= radius_scale "
               "d^(1/4), the lemma's target has inf_B L_s >= (sqrt(1/3) - sqrt(kappa))^2 >= c4 (kappa = "
               "radius_scale^2 head_factor_every_d <= 1/3), every d >= 3 (vacuous below d = "
               "1/head_factor_every_d^2: no head admissible)", STATED, Discharge.FOLLOWS,
               uses=("lemma-low-attention", *(node for node, _ in EVERY_D_STEPS)),
               where="proofs/prop4.md steps Q1-Q6"),
    *(Obligation(node, claim, STATED, Discharge.SYMBOLIC, ("prop4.every_d",),
                 where=("proofs/prop2.md steps P2, P4, P5" if node.endswith("grouping") else
                        f"proofs/prop4.md step {node.split('.')[-1].upper()}"))
      for node, claim in EVERY_D_STEPS),
    Obligation("prop4.search", "no attention found below c4 (the value at the one found certified: an "
               "upper bound of the infimum, never a floor)", STATED, Discharge.SEARCH,
               ("prop4.floor", "prop4.certified_floor"), where="proofs/prop4.md"),
)

RESULT = Result(
    id="prop4",
    name="Proposition 4",
    short="At most sqrt(d) heads, attention fixed: some target keeps risk >= c4",
    statement="H <= head_factor sqrt(d) heads, fixed attention, ||B||_F <= d^(1/4): some s has inf_B L_s >= c4",
    hypotheses="d >= 3; constants c4 and head_factor lost, measured here; radius d^(1/4) (text)",
    constants=("prop4.c4", "prop4.head_factor", "prop4.radius_scale", "prop4.head_factor_every_d"),
    document="proofs/prop4.md",
    proof=PROOF,
    checks=(
        Check("prop4.every_d", "Proposition 4 (every d, a smaller head bound)",
              "for every d >= 3, H <= head_factor_every_d sqrt(d) heads and every attention, the low-"
              "attention target has inf_{||B||_F <= d^(1/4)} L_s >= c4: the insertion pairing per head, "
              "Cauchy-Schwarz over the heads and Proposition 2's B(d) > 1/3; the identities by SymPy, the "
              "inequalities from the standard facts proofs/prop4.md names "
              "(head_factor itself is not reached; vacuous below d = 1/head_factor_every_d^2, where no "
              "head is admissible)", Evidence.SYMBOLIC, single_case("all d >= 3"),
              judge_every_d, reconstructed=True,
              scope="H <= head_factor_every_d sqrt(d) (no head below d = 1/head_factor_every_d^2), "
                    "every attention"),
        Check("prop4.floor", "Proposition 4",
              "min over searched attention of max_s inf_{||B||_F <= d^(1/4)} L_s >= c4",
              Evidence.SEARCH, _cases, _judge_floor, reconstructed=True),
        Check("prop4.certified_floor", "Proposition 4 (at the found point)",
              "inf_{||B||_F <= d^(1/4)} L_s >= c4 at the worst attention and s prop4.floor found "
              "(Arb ball; H >= 2 up to d = 4, up to d = 9 on the full profile)", Evidence.CERTIFIED,
              _certified_cases, _judge_certified,
              reconstructed=True),
    ),
    calibrations=(
        Calibration("prop4.c4", ("prop4.floor", "prop4.certified_floor"), "d = 4 with H = 2, where the smallest floor (0.16938) was found and c4 = 1/10 set from it",
                    lambda params: params.get("d") == 4 and params.get("H") == 2),
        Calibration("prop4.head_factor", ("prop4.floor", "prop4.certified_floor"),
                    "d = 4 (every H): 1 is the largest integer f whose H = floor(f sqrt(d)) heads "
                    "keep the floor >= c4 there (H = 2: 0.169; H = 4: 0.0187)",
                    head_factor_calibrated),
    ),
)
