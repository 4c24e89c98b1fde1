"""Corollary 1 in finite samples: extra checks for the result ``cor1`` (merged into cor1.RESULT).

Statement (text): for every c > 0 there is C such that for d >= 3, every s, eps in (0, 1): with
0 < eta1 <= sqrt(d), eta2 >= (C d^2/eta1) ln(d/eps), eta3 = 1, T = ceil(72/eps), N1 >= C d ln d
words for Phases 1-2 and N3 >= C ln d/eps fresh words for Phase 3, the population risk
L_s(alpha_hat', beta_hat'') is <= eps with probability >= 1 - 3 d^-c.

The constant depends on c ("for every c > 0 there is C").  Our reconstruction (proofs/cor1.md):
C(c) = cor1.C max(1, c), one constant for all three of eta2, N1 and N3.  A failure probability
d^-c asks for sample sizes of order (c + 1) ln d (a Hoeffding bound and a union bound over the d
coordinates), so C may grow linearly in c; for c < 1 the target is weaker and the c = 1
constant serves.  cor1.C (= C(1)) was measured at c = 1 and the rule's C(2) at c = 2 on the same
calibration set (CALIBRATION_D x CALIBRATION_EPS, the scan's seeds), never on the judged cases.

Checked on the boundary of the hypotheses: eta1 = thm2.eta1_scale sqrt(d),
eta2 = C(c) d^2/eta1 ln(d/eps), N1 = ceil(C(c) d ln d), N3 = ceil(C(c) ln d/eps),
T = ceil(cor1.T_numerator/eps), for c = 1/2, 1 and 2; and inside them (eta1 = 1 or d^(1/4);
eta2, T, N1 and N3 twice their minimum) at c = 2.

Statistical evidence (an exact binomial test on R seeded repetitions): the claim "P(success) >=
pi", pi = 1 - 3 d^-c (a failure probability q0 = 3 d^-c at most), FAILS when the 95%
Clopper-Pearson upper end is < pi (the data reject it), PASSES when the lower end is >= pi -
delta, and is UNDECIDED otherwise.  The indifference zone is relative to the claimed failure
probability: delta = min((k - 1) q0, cor1.delta, pi/2) with k = cor1.fail_factor, i.e. the test
must tell q0 from a failure probability k q0 (or q0 + cor1.delta where that is closer; pi/2 at
most).  R's rule: the smallest multiple of 10 at which the test decides both ways with
probability >= 0.9 (scipy.stats.binom): it rejects (upper end < pi) when the true probability is
pi - delta, and it passes (lower end >= pi - delta) when the true probability is pi; at most
cor1.max_repetitions.  Where that cap binds (c = 2 at d = 100, 200 in the full profile) the row
tests the weaker claim it has power for and says so: the failure probability it can tell from
q0 at that R (the widest zone with both powers >= 0.9, up to pi/2).  A run with less power set by
hand (``cor1.repetitions``) is undecided unless it fails.  pi <= 0 is vacuous.
The distribution and the plan are equivariant under permutations of the alphabet, so the
probability does not depend on s; s = 0 is used.
"""
from __future__ import annotations

import math
from collections import ChainMap
from fractions import Fraction
from typing import Mapping, Sequence

import mpmath
import numpy as np

from ..checks import Case, Check, Constants, Evidence, Exhibit, Outcome, Profile
from ..engine import sampling
from .plan_schedule import schedule

D_GRID = {
    Profile.QUICK: [3, 10],
    Profile.DEFAULT: [3, 5, 10, 30, 50],
    Profile.FULL: [3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100, 200],
}
EPS_GRID = {
    Profile.QUICK: [0.5],
    Profile.DEFAULT: [0.5, 0.1, 0.01],
    Profile.FULL: [0.9, 0.5, 0.1, 0.01, 0.001],
}
EXPONENTS = (Fraction(1, 2), Fraction(1), Fraction(2))  # "for every c > 0": three of them
# inside the hypotheses: (eta1, eta2 x, T x, N1 and N3 x) over their minima, at c = 2 (the
# strongest target of the three, and the cheapest in R: 230 repetitions at d = 10)
INTERIOR_C = Fraction(2)
INTERIOR = (("1", 1, 1, 1), ("d^(1/4)", 1, 1, 1), ("sqrt(d)", 2, 2, 2))
INTERIOR_D = {Profile.QUICK: [10], Profile.DEFAULT: [5, 10], Profile.FULL: [5, 10, 30]}
INTERIOR_EPS = {Profile.QUICK: [0.5], Profile.DEFAULT: [0.5], Profile.FULL: [0.5, 0.05]}
POWER = 0.9
# the cases cor1.C was measured on (cor1.sample_C over the full profile's scan grid, at c = 1;
# the rule's C(2) at c = 2 on the same (d, eps), see proofs/constants.toml)
CALIBRATION_D = (5, 10, 20, 30, 50, 100, 200)
CALIBRATION_EPS = (0.1, 0.001)

# the scan of C: 2^(k/2) for k in [-12, 8] (1/64 .. 16), see _c_grid
SCAN_D = {Profile.QUICK: [10], Profile.DEFAULT: [10, 30, 50], Profile.FULL: [5, 10, 20, 30, 100, 200]}
SCAN_EPS = {Profile.QUICK: [0.5], Profile.DEFAULT: [0.1], Profile.FULL: [0.1, 0.001]}
SCAN_R = {Profile.QUICK: 20, Profile.DEFAULT: 100, Profile.FULL: 200}
QUICK_SCAN_GRID = (0.25, 0.5, 1.0, 2.0)  # the tiny QUICK case: four grid points only


def _c_grid() -> list[float]:
    """2^(k/2), k = -12..8 (as floats: C enters only through ceil() and eta2)."""
    return [2.0 ** (k / 2) for k in range(-12, 9)]


def exponent(constants: Constants) -> Fraction:
    """The exponent of the sample-size picture (cor1.sample_C, cor1.sample_sweep)."""
    return Fraction(constants["cor1.c"])


def sample_constant(c, constants: Constants) -> Fraction:
    """C(c) = cor1.C max(1, c): the corollary's constant for exponent c (module docstring)."""
    return Fraction(constants["cor1.C"]) * max(Fraction(1), Fraction(c))


def target(d: int, constants: Constants, c=None) -> float:
    """1 - 3 d^-c (c = cor1.c unless given)."""
    return 1.0 - 3.0 * float(d) ** (-float(exponent(constants) if c is None else Fraction(c)))


def calibrated(params: Mapping[str, object]) -> bool:
    """Whether a case is one cor1.C was measured on: (d, eps) of the scan grid (any seed) with
    the boundary schedule (an interior schedule was never part of the scan); a certified box
    (params d_lo, ..., boundary schedule) when it contains one (:func:`box_calibration`)."""
    if "d_lo" in params:
        return bool(box_calibration(params))
    boundary = params.get("eta1", "sqrt(d)") == "sqrt(d)" and all(
        params.get(k, 1) == 1 for k in ("above", "eta2_x", "T_x"))
    return boundary and int(params["d"]) in CALIBRATION_D and float(params["eps"]) in CALIBRATION_EPS


def box_calibration(params: Mapping[str, object]) -> list[tuple[int, float]]:
    """The (d, eps) of cor1.C's calibration set inside a certified box."""
    return [(d, e) for d in CALIBRATION_D for e in CALIBRATION_EPS
            if float(params["d_lo"]) <= d <= float(params["d_hi"])
            and float(params["eps_lo"]) <= e <= float(params["eps_hi"])]


def indifference(goal: float, constants: Constants) -> float:
    """delta = min((k - 1)(1 - goal), cor1.delta, goal/2), k = cor1.fail_factor: a pass needs the
    CP lower end >= goal - delta > 0, and R gives power to reject a failure probability
    1 - goal + delta (k times the claimed one, or the claimed one plus cor1.delta if closer)."""
    k = float(constants["cor1.fail_factor"])
    return min((k - 1) * (1 - goal), float(constants["cor1.delta"]), goal / 2)


def max_repetitions(constants: Constants) -> int:
    return int(constants["cor1.max_repetitions"])


def repetitions(goal: float, constants: Constants) -> int:
    """R: ``cor1.repetitions`` when positive, else the rule (module docstring), at most
    ``cor1.max_repetitions``."""
    override = int(constants["cor1.repetitions"])
    if override > 0:
        return override
    return sampling.repetitions_for_power(goal, goal - indifference(goal, constants), POWER,
                                          cap=max_repetitions(constants))


def tested_line(goal: float, R: int, constants: Constants) -> tuple[float, bool]:
    """(the pass line goal - delta the test uses at R, whether it is wider than the configured
    zone): the configured line when R decides both ways there; when the rule's cap set R (no
    override) the widest line R has power for (:func:`verify.engine.sampling.
    widest_alternative`, down to goal/2); else the configured line (underpowered: no pass)."""
    line = goal - indifference(goal, constants)
    if sampling.decides_both_ways(goal, line, R, POWER):
        return line, False
    if int(constants["cor1.repetitions"]) <= 0 and R >= max_repetitions(constants):
        wide = sampling.widest_alternative(goal, R, goal / 2, POWER)
        if wide is not None:
            return wide, True
    return line, False


def verdict(k: int, R: int, goal: float, constants: Constants) -> tuple[bool | None, str]:
    """The exact test of "P(success) >= goal" from k successes of R (module docstring)."""
    lo, hi = sampling.clopper_pearson(k, R)
    q0 = 1 - goal
    line, widened = tested_line(goal, R, constants)
    power = sampling.power_to_reject(goal, line, R)
    confirm = sampling.power_to_confirm(line, goal, R)
    if hi < goal:
        passed = False
    elif lo >= line and power >= POWER:  # a pass needs power to reject beyond the line
        passed = True
    else:
        passed = None
    q1 = 1 - line
    factor = float(constants["cor1.fail_factor"])
    text = (f"exact binomial test of H: P >= {goal:.6g} (failure probability <= q0 = {q0:.3g}): "
            f"{k}/{R}, Clopper-Pearson [{lo:.4f}, {hi:.4f}] (95% two-sided, 2.5% per side); fail "
            f"if upper < {goal:.6g} (rejects failure probability <= q0 at 2.5%), pass if lower >= "
            f"{line:.6g} (rejects failure probability >= {q1 / q0:.3g} q0 at 2.5%: a pass supports "
            f"P(fail) < {q1 / q0:.3g} q0, not the claimed <= q0); power {power:.3f} to reject a "
            f"failure probability {q1:.3g} "
            f"(= {q1 / q0:.3g} q0), {confirm:.3f} to pass at P = {goal:.6g} (R rule: the smallest "
            f"multiple of 10 with both >= {POWER} at failure probability min({factor:g} q0, q0 + "
            f"{float(constants['cor1.delta']):g}), at most {max_repetitions(constants)})")
    if widened:
        text = (f"CLAIM TESTED: failure probability <= {q1 / q0:.3g} x 3d^-c, not "
                f"{factor:g} x: R capped at {max_repetitions(constants)}; " + text)
    return passed, text


def seed_for(d: int, eps: float, salt: int = 0) -> int:
    return 1_000_003 * d + int(round(eps * 1e6)) + 7919 * salt


def plan_for(d: int, eps: float, constants: Constants, C=None, n1_factor=None, n3_factor=None,
             s: int = 0, eta1: str = "sqrt(d)", above: int = 1) -> sampling.Plan:
    """The corollary's plan; C overrides cor1.C (for eta2, N1, N3 together); n1_factor /
    n3_factor override only N1 = ceil(f d ln d) / N3 = ceil(f ln d/eps); ``eta1`` picks eta1
    (plan_schedule.ETA1_CHOICES) and ``above`` multiplies eta2, T, N1 and N3 over their minima."""
    consts = ChainMap({}, constants)  # an overlay, not a copy: reads of constants stay recorded
    if C is not None:
        consts["cor1.C"] = Fraction(C)
    Cv = consts["cor1.C"]
    eta1, eta2, eta3, T = schedule(d, eps, consts, "cor1", eta1, above, above)
    with mpmath.workdps(30):
        Cm = mpmath.mpf(Cv.numerator) / Cv.denominator
        f1 = above * Cm if n1_factor is None else mpmath.mpf(n1_factor)
        f3 = above * Cm if n3_factor is None else mpmath.mpf(n3_factor)
        N1 = max(1, int(mpmath.ceil(f1 * d * mpmath.log(d))))
        N3 = max(1, int(mpmath.ceil(f3 * mpmath.log(d) / mpmath.mpf(eps))))
    return sampling.Plan(d, s, float(eta1), float(eta2), float(eta3), T, N1, N3)


def estimate(plan: sampling.Plan, eps: float, R: int, seed: int) -> dict:
    """Success count, fraction and 95% CP interval of L_s <= eps over R repetitions."""
    rep = sampling.run(plan, seed, R, eps)
    k = rep.successes
    lo, hi = sampling.clopper_pearson(k, R)
    vals = rep.values
    return dict(k=k, R=R, p=k / R, lo=lo, hi=hi, median=float(np.median(vals)),
                worst=float(np.max(vals)), precise=rep.precise, seconds=rep.seconds,
                N1=plan.N1, N3=plan.N3, eta2=plan.eta2, T=plan.T)


# ------------------------------------------------------------------------------ cor1.samples


def _repetitions(profile: Profile, constants: Constants, table) -> int:
    """R of the sample-size picture: ``cor1.repetitions`` when positive, else the profile's."""
    override = int(constants["cor1.repetitions"])
    return override if override > 0 else table[profile]


def _sample_case(d: int, eps: float, c: Fraction, constants: Constants, eta1: str = "sqrt(d)",
                 above: int = 1) -> Case:
    goal = target(d, constants, c)
    label = f"d={d}, eps={eps:g}, c={c}"
    if (eta1, above) != ("sqrt(d)", 1):
        label += f", eta1={eta1}, sizes and steps {above}x min"
    return Case(label, {"d": d, "eps": eps, "c": str(c), "eta1": eta1, "above": above,
                        "R": repetitions(goal, constants) if goal > 0 else 0,
                        "seed": seed_for(d, eps)})


def _sample_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = options.get("d") or D_GRID[profile]
    epss = options.get("eps") or EPS_GRID[profile]
    out = [_sample_case(int(d), float(e), c, constants) for d in ds for e in epss for c in EXPONENTS]
    ds = options.get("d") or INTERIOR_D[profile]
    epss = options.get("eps") or INTERIOR_EPS[profile]
    out += [_sample_case(int(d), float(e), INTERIOR_C, constants, eta1, above)
            for d in ds for e in epss for eta1, _, _, above in INTERIOR]
    return out


def _judge_samples(case: Case, constants: Constants) -> Outcome:
    d, eps, R, seed = (case.params[k] for k in ("d", "eps", "R", "seed"))
    c = Fraction(case.params["c"])
    goal = target(d, constants, c)
    if goal <= 0:
        return Outcome(case.label, None, None, Evidence.STATISTICAL,
                       f"vacuous: 1 - 3d^-c = {goal:.4f} <= 0 at d = {d}, c = {c} (nothing to test)",
                       vacuous=True)
    C = sample_constant(c, constants)
    plan = plan_for(d, eps, constants, C=C, eta1=case.params.get("eta1", "sqrt(d)"),
                    above=case.params.get("above", 1))
    est = estimate(plan, eps, R, seed)
    passed, test = verdict(est["k"], R, goal, constants)
    detail = (f"{test}; C(c) = {C}, N1 = {plan.N1}, N3 = {plan.N3}, eta1 = {plan.eta1:.4g}, "
              f"eta2 = {plan.eta2:.4g}, T = {plan.T}; median L = {est['median']:.3g}, worst "
              f"{est['worst']:.3g}; {est['precise']} re-evaluated at 20 digits; seed {seed}")
    return Outcome(case.label, passed, est["lo"] - goal, Evidence.STATISTICAL, detail,
                   margin_kind="difference")


# ------------------------------------------------------------------------------ cor1.sample_C


def smallest_C(d: int, eps: float, constants: Constants, R: int, seed: int,
               grid: Sequence[float] | None = None, criterion: str = "p") -> tuple[float, dict]:
    """Smallest C on the grid (2^(k/2)) whose success fraction meets 1 - 3d^-c, by bisection on
    the grid index (assumes the probability grows with C, which is what the bisection measures
    only at the points it visits; all runs share their samples: common random numbers).
    ``criterion``: "p" (the estimate meets the target), "lo" (the CP lower end does), "hi" (the
    CP upper end does).  Returns (C or inf, {C: estimate})."""
    grid = list(grid or _c_grid())
    goal = target(d, constants)
    seen: dict = {}

    def ok(i: int) -> bool:
        C = grid[i]
        if C not in seen:
            seen[C] = estimate(plan_for(d, eps, constants, C=Fraction(C).limit_denominator(10**6)),
                               eps, R, seed)
        return seen[C][criterion] >= goal

    # first probe at the configured C (the cheapest informative point), then bisection below it
    # or a search upwards: about log2(len(grid)) runs, none at a C far above the configured one
    # unless needed
    conf = float(sample_constant(exponent(constants), constants))
    start = min(range(len(grid)), key=lambda i: abs(math.log(grid[i] / conf)))
    if ok(start):
        lo, hi = -1, start
    else:
        lo, hi = start, None
        for i in range(start + 1, len(grid)):
            if ok(i):
                hi = i
                break
            lo = i
        if hi is None:
            return math.inf, seen
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return grid[hi], seen


def _scan_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = options.get("d") or SCAN_D[profile]
    epss = options.get("eps") or SCAN_EPS[profile]
    R = _repetitions(profile, constants, SCAN_R)
    grid = QUICK_SCAN_GRID if profile == Profile.QUICK else tuple(_c_grid())
    return [Case(f"d={d}, eps={e:g}", {"d": int(d), "eps": float(e), "R": R, "grid": grid,
                                       "seed": seed_for(int(d), float(e), salt=1)})
            for d in ds for e in epss if int(d) >= 3]


def _judge_scan(case: Case, constants: Constants) -> Outcome:
    """Exhibit: the measurement cor1.C was chosen from (calibration); the corollary's claim with
    that C is judged by cor1.samples on held-out cases."""
    d, eps, R, seed = (case.params[k] for k in ("d", "eps", "R", "seed"))
    grid = case.params.get("grid") or tuple(_c_grid())
    C_need, seen = smallest_C(d, eps, constants, R, seed, grid)
    C_conf = float(sample_constant(exponent(constants), constants))
    goal = target(d, constants)
    values = {"d": d, "eps": eps, "C": C_need if math.isfinite(C_need) else "none", "R": R}
    if math.isinf(C_need):
        return Outcome(case.label, None, None, Evidence.EXHIBIT,
                       f"no C <= {grid[-1]:g} reaches 1 - 3d^-c = {goal:.4f} (R = {R})", values=values)
    e = seen[C_need]
    detail = (f"smallest C (grid {min(grid):g}..{max(grid):g}) with Monte Carlo success fraction >= 1 - 3d^-c = "
              f"{goal:.4f}: {C_need:.4g} (p = {e['p']:.3f}, 95% CP [{e['lo']:.3f}, {e['hi']:.3f}], "
              f"N1 = {e['N1']}, N3 = {e['N3']}); configured C(c) = cor1.C max(1, c) = {C_conf:g} "
              f"at c = {exponent(constants)}; R = {R}, seed {seed}")
    return Outcome(case.label, None, C_conf / C_need, Evidence.EXHIBIT, detail, values=values)


# ------------------------------------------------------------------------------ the picture


SWEEP_D = {Profile.QUICK: [10], Profile.DEFAULT: [10, 30], Profile.FULL: [10, 30, 100, 200]}
SWEEP_EPS = {Profile.QUICK: [0.5], Profile.DEFAULT: [0.1], Profile.FULL: [0.1, 0.01]}
SWEEP_R = {Profile.QUICK: 20, Profile.DEFAULT: 100, Profile.FULL: 200}
SWEEP_FACTORS = {Profile.QUICK: (1 / 4, 1.0, 4.0),
                 Profile.DEFAULT: (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0),
                 Profile.FULL: (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0, 8.0)}
AXES = {"N1": "N1/(d ln d)", "N3": "N3 eps/ln d"}


def sweep_row(d: int, eps: float, axis: str, factor: float, constants: Constants, R: int,
              seed: int) -> dict:
    """One point of the sample-size picture: N1 = ceil(factor d ln d) (axis "N1") or
    N3 = ceil(factor ln d/eps) (axis "N3"), everything else at C(c) (c = cor1.c); the success
    estimate with its CP interval, the scaled size actually used, and whether the corollary's
    hypotheses (factor >= C(c)) hold."""
    kw = {"n1_factor": factor} if axis == "N1" else {"n3_factor": factor}
    C = sample_constant(exponent(constants), constants)
    plan = plan_for(d, eps, constants, C=C, **kw)
    est = estimate(plan, eps, R, seed)
    scaled = plan.N1 / (d * math.log(d)) if axis == "N1" else plan.N3 * eps / math.log(d)
    return dict(axis=axis, factor=factor, scaled=scaled, d=d, eps=eps, target=target(d, constants),
                covered=Fraction(factor) >= C, **est)


def _sweep_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = options.get("d") or SWEEP_D[profile]
    epss = options.get("eps") or SWEEP_EPS[profile]
    R = _repetitions(profile, constants, SWEEP_R)

    def reps(d: int, factor: float) -> int:  # a claim gets the power rule's R, a picture row R
        covered = Fraction(factor) >= sample_constant(exponent(constants), constants)
        return repetitions(target(d, constants), constants) if covered else R

    return [Case(f"d={d}, eps={e:g}, {axis} = {f:g} x {'d ln d' if axis == 'N1' else 'ln d/eps'}",
                 {"d": int(d), "eps": float(e), "axis": axis, "factor": f, "R": reps(int(d), f),
                  "seed": seed_for(int(d), float(e), salt=2)})
            for d in ds if int(d) >= 3 for e in epss for axis in AXES for f in SWEEP_FACTORS[profile]]


def _judge_sweep(case: Case, constants: Constants) -> Outcome:
    """Inside the hypotheses (factor >= C(c), c = cor1.c) the exact test of cor1.samples; below them the
    row is an exhibit: a measurement the corollary makes no claim about."""
    prm = case.params
    row = sweep_row(prm["d"], prm["eps"], prm["axis"], prm["factor"], constants, prm["R"], prm["seed"])
    values = {"d": row["d"], "eps": row["eps"], "axis": AXES[row["axis"]], "scaled": row["scaled"],
              "N1": row["N1"], "N3": row["N3"], "p": row["p"],
              "ci": f"[{row['lo']:.3f}, {row['hi']:.3f}]", "target": row["target"],
              "claim": "yes" if row["covered"] else "no (below C)"}
    sizes = f"N1 = {row['N1']}, N3 = {row['N3']}; seed {prm['seed']}"
    if not row["covered"]:
        return Outcome(case.label, None, None, Evidence.EXHIBIT,
                       f"below the corollary's sample size (factor {prm['factor']:g} < C(c)): "
                       f"measured, no claim; {row['k']}/{row['R']} runs reach L <= eps, p = "
                       f"{row['p']:.3f}, 95% CP [{row['lo']:.3f}, {row['hi']:.3f}]; {sizes}",
                       values=values)
    if row["target"] <= 0:
        return Outcome(case.label, None, None, Evidence.STATISTICAL,
                       f"vacuous: 1 - 3d^-c = {row['target']:.4f} <= 0; {sizes}", values=values,
                       vacuous=True)
    passed, test = verdict(row["k"], row["R"], row["target"], constants)
    return Outcome(case.label, passed, row["lo"] - row["target"], Evidence.STATISTICAL,
                   f"{test}; {sizes}", margin_kind="difference", values=values)


def plot_sample_complexity(rows: Sequence[dict]):
    """Two panels (success vs N1/(d ln d), vs N3 eps/ln d) with CP error bars, from
    :func:`sweep_row` rows; returns the matplotlib figure (matplotlib is an optional
    dependency, imported here; the caller shows or saves it)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, axis in zip(axes, AXES):
        label = AXES[axis]
        keys = sorted({(r["d"], r["eps"]) for r in rows if r["axis"] == axis})
        for d, eps in keys:
            sel = sorted((r for r in rows if r["axis"] == axis and r["d"] == d and r["eps"] == eps),
                         key=lambda r: r["scaled"])
            x = [r["scaled"] for r in sel]
            p = np.array([r["p"] for r in sel])
            err = np.array([[r["p"] - r["lo"] for r in sel], [r["hi"] - r["p"] for r in sel]])
            line = ax.errorbar(x, p, yerr=err, marker="o", capsize=3, label=f"d={d}, eps={eps:g}")
            ax.axhline(sel[0]["target"], linestyle=":", linewidth=0.8, color=line[0].get_color())
        ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.set_title(f"success vs {label} (dotted: 1 - 3/d^c)")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("P(L_s <= eps), 95% CP")
    fig.tight_layout()
    return fig


CHECKS = (
    Check("cor1.samples", "Corollary 1 (finite samples)",
          "P(L_s(alpha_hat', beta_hat'') <= eps) >= 1 - 3d^-c with N1 = C d ln d, N3 = C ln d/eps, "
          "C = C(c) = cor1.C max(1, c) (exact binomial test, power >= 0.9 to reject a failure "
          "probability 3 x 3d^-c, or 3d^-c + 0.05 if smaller, and to pass at 1 - 3d^-c; where R "
          "would exceed cor1.max_repetitions the row states the weaker claim it tests)",
          Evidence.STATISTICAL, _sample_cases, _judge_samples, reconstructed=True,
          scope="finite samples"),
    Check("cor1.sample_C", "Corollary 1 (finite samples, constant)",
          "exhibit: smallest C (eta2, N1, N3 together) with success fraction >= 1 - 3d^-c "
          "(the measurement cor1.C is calibrated on)", Evidence.EXHIBIT, _scan_cases, _judge_scan,
          reconstructed=True),
    Check("cor1.sample_sweep", "Corollary 1 (finite samples, sample sizes)",
          "success probability against N1/(d ln d) and N3 eps/ln d; where the size meets "
          "C (factor >= C(c) = cor1.C max(1, c)) the exact test of cor1.samples, below it an "
          "exhibit row",
          Evidence.STATISTICAL, _sweep_cases, _judge_sweep, reconstructed=True, scope="finite samples"),
)

EXHIBITS = (
    Exhibit("cor1.sample_sweep", "Sample complexity",
            "Success probability P(L_s <= eps) over seeded repetitions (95% Clopper-Pearson "
            "interval) as one sample size varies and everything else stays at C(c); the "
            "corollary claims 1 - 3d^-c only on rows marked 'yes'. Plot: notebooks/cor1.py.",
            (("d", "d"), ("eps", "eps"), ("axis", "varied"), ("scaled", "size / scale"),
             ("N1", "N1"), ("N3", "N3"), ("p", "success"), ("ci", "95% CP"),
             ("target", "1 - 3d^-c"), ("claim", "corollary claims"))),
)
