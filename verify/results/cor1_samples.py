"""Corollary 1 in finite samples: extra checks for the result ``cor1`` (merged into cor1.RESULT).

Statement (text): for every c > 0 there is C such that for d >= 3, every s, eps in (0, 1): with
0 < eta1 <= sqrt(d), eta2 >= (C d^2/eta1) ln(d/eps), eta3 = 1, T = ceil(72/eps), N1 >= C d ln d
words for Phases 1-2 and N3 >= C ln d/eps fresh words for Phase 3, the population risk
L_s(alpha_hat', beta_hat'') is <= eps with probability >= 1 - 3 d^-c.

Checked at the boundary of the hypotheses, with ONE constant C = ``cor1.C`` for all three:
eta1 = thm2.eta1_scale sqrt(d), eta2 = C d^2/eta1 ln(d/eps), N1 = ceil(C d ln d),
N3 = ceil(C ln d/eps), T = ceil(cor1.T_numerator/eps); exponent c = ``cor1.c`` (1 if absent).
The success probability is a Monte Carlo estimate over R seeded repetitions with its exact 95%
Clopper-Pearson interval; a case passes when the interval's upper end is >= 1 - 3 d^-c (the data
are consistent with the corollary).  The distribution and the plan are equivariant under
permutations of the alphabet, so the probability does not depend on s; s = 0 is used.
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
from . import thm2

D_GRID = {
    Profile.QUICK: [3, 10],
    Profile.DEFAULT: [3, 5, 10, 30, 100],
    Profile.FULL: [3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100, 200],
}
EPS_GRID = {
    Profile.QUICK: [0.1],
    Profile.DEFAULT: [0.5, 0.1, 0.01],
    Profile.FULL: [0.9, 0.5, 0.1, 0.01, 0.001],
}
REPETITIONS = {Profile.QUICK: 50, Profile.DEFAULT: 100, Profile.FULL: 300}

# the scan of C: 2^(k/2) for k in [-12, 8] (1/64 .. 16), see _c_grid
SCAN_D = {Profile.QUICK: [10], Profile.DEFAULT: [10, 30, 50], Profile.FULL: [5, 10, 20, 30, 100, 200]}
SCAN_EPS = {Profile.QUICK: [0.5], Profile.DEFAULT: [0.1], Profile.FULL: [0.1, 0.001]}
SCAN_R = {Profile.QUICK: 20, Profile.DEFAULT: 100, Profile.FULL: 200}
QUICK_SCAN_GRID = (0.25, 0.5, 1.0, 2.0)  # the tiny QUICK case: four grid points only


def _c_grid() -> list[float]:
    """2^(k/2), k = -12..8 (as floats: C enters only through ceil() and eta2)."""
    return [2.0 ** (k / 2) for k in range(-12, 9)]


def exponent(constants: Constants) -> Fraction:
    return Fraction(constants["cor1.c"])


def target(d: int, constants: Constants) -> float:
    """1 - 3 d^-c."""
    return 1.0 - 3.0 * float(d) ** (-float(exponent(constants)))


def seed_for(d: int, eps: float, salt: int = 0) -> int:
    return 1_000_003 * d + int(round(eps * 1e6)) + 7919 * salt


def plan_for(d: int, eps: float, constants: Constants, C=None, n1_factor=None, n3_factor=None,
             s: int = 0) -> sampling.Plan:
    """The corollary's plan; C overrides cor1.C (for eta2, N1, N3 together); n1_factor /
    n3_factor override only N1 = ceil(f d ln d) / N3 = ceil(f ln d/eps)."""
    consts = ChainMap({}, constants)  # an overlay, not a copy: reads of constants stay recorded
    if C is not None:
        consts["cor1.C"] = Fraction(C)
    Cv = consts["cor1.C"]
    eta1, eta2, eta3, T = thm2.schedule(d, eps, consts, prefix="cor1")
    with mpmath.workdps(30):
        Cm = mpmath.mpf(Cv.numerator) / Cv.denominator
        f1 = Cm if n1_factor is None else mpmath.mpf(n1_factor)
        f3 = Cm if n3_factor is None else mpmath.mpf(n3_factor)
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


def _repetitions(profile: Profile, constants: Constants, table=None) -> int:
    """R: ``cor1.repetitions`` when present and positive, else the profile's default."""
    override = int(constants["cor1.repetitions"])
    return override if override > 0 else (table or REPETITIONS)[profile]


def _sample_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = options.get("d") or D_GRID[profile]
    epss = options.get("eps") or EPS_GRID[profile]
    R = _repetitions(profile, constants)
    return [Case(f"d={d}, eps={e:g}", {"d": int(d), "eps": float(e), "R": R,
                                       "seed": seed_for(int(d), float(e))})
            for d in ds for e in epss]


def _judge_samples(case: Case, constants: Constants) -> Outcome:
    d, eps, R, seed = (case.params[k] for k in ("d", "eps", "R", "seed"))
    plan = plan_for(d, eps, constants)
    est = estimate(plan, eps, R, seed)
    goal = target(d, constants)
    passed = est["hi"] >= goal
    detail = (f"Monte Carlo: {est['k']}/{R} runs reach L <= eps, p = {est['p']:.3f}, "
              f"95% CP [{est['lo']:.3f}, {est['hi']:.3f}] vs 1 - 3d^-c = {goal:.4f}; "
              f"N1 = {plan.N1}, N3 = {plan.N3}, eta2 = {plan.eta2:.4g}, T = {plan.T}; "
              f"median L = {est['median']:.3g}, worst {est['worst']:.3g}; "
              f"{est['precise']} re-evaluated at 20 digits; seed {seed}"
              + ("; the CP lower end also clears the bound" if est["lo"] >= goal else ""))
    return Outcome(case.label, bool(passed), est["hi"] - goal, Evidence.NUMERIC, detail,
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
    conf = float(constants["cor1.C"])
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
    d, eps, R, seed = (case.params[k] for k in ("d", "eps", "R", "seed"))
    grid = case.params.get("grid") or tuple(_c_grid())
    C_need, seen = smallest_C(d, eps, constants, R, seed, grid)
    C_conf = float(constants["cor1.C"])
    goal = target(d, constants)
    if math.isinf(C_need):
        return Outcome(case.label, False, 0.0, Evidence.NUMERIC,
                       f"no C <= {grid[-1]:g} reaches 1 - 3d^-c = {goal:.4f} (R = {R})")
    e = seen[C_need]
    margin = C_conf / C_need
    detail = (f"smallest C (grid {min(grid):g}..{max(grid):g}) with Monte Carlo success fraction >= 1 - 3d^-c = "
              f"{goal:.4f}: {C_need:.4g} (p = {e['p']:.3f}, 95% CP [{e['lo']:.3f}, {e['hi']:.3f}], "
              f"N1 = {e['N1']}, N3 = {e['N3']}); configured cor1.C = {C_conf:g}; R = {R}, seed {seed}")
    return Outcome(case.label, bool(margin >= 1), margin, Evidence.NUMERIC, detail)


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
    N3 = ceil(factor ln d/eps) (axis "N3"), everything else at cor1.C; the success estimate with
    its CP interval, the scaled size actually used, and whether the corollary's hypotheses
    (factor >= cor1.C) hold."""
    kw = {"n1_factor": factor} if axis == "N1" else {"n3_factor": factor}
    plan = plan_for(d, eps, constants, **kw)
    est = estimate(plan, eps, R, seed)
    scaled = plan.N1 / (d * math.log(d)) if axis == "N1" else plan.N3 * eps / math.log(d)
    return dict(axis=axis, factor=factor, scaled=scaled, d=d, eps=eps, target=target(d, constants),
                covered=Fraction(factor) >= Fraction(constants["cor1.C"]), **est)


def _sweep_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = options.get("d") or SWEEP_D[profile]
    epss = options.get("eps") or SWEEP_EPS[profile]
    R = _repetitions(profile, constants, SWEEP_R)
    return [Case(f"d={d}, eps={e:g}, {axis} = {f:g} x {'d ln d' if axis == 'N1' else 'ln d/eps'}",
                 {"d": int(d), "eps": float(e), "axis": axis, "factor": f, "R": R,
                  "seed": seed_for(int(d), float(e), salt=2)})
            for d in ds if int(d) >= 3 for e in epss for axis in AXES for f in SWEEP_FACTORS[profile]]


def _judge_sweep(case: Case, constants: Constants) -> Outcome:
    """Inside the hypotheses (factor >= cor1.C) the CP upper end must reach 1 - 3d^-c, as in
    cor1.samples; below them the row is a measurement the corollary makes no claim about."""
    prm = case.params
    row = sweep_row(prm["d"], prm["eps"], prm["axis"], prm["factor"], constants, prm["R"], prm["seed"])
    values = {"d": row["d"], "eps": row["eps"], "axis": AXES[row["axis"]], "scaled": row["scaled"],
              "N1": row["N1"], "N3": row["N3"], "p": row["p"],
              "ci": f"[{row['lo']:.3f}, {row['hi']:.3f}]", "target": row["target"],
              "claim": "yes" if row["covered"] else "no (below C)"}
    text = (f"{row['k']}/{row['R']} runs reach L <= eps, p = {row['p']:.3f}, 95% CP "
            f"[{row['lo']:.3f}, {row['hi']:.3f}] vs 1 - 3d^-c = {row['target']:.4f}; "
            f"N1 = {row['N1']}, N3 = {row['N3']}; seed {prm['seed']}")
    if not row["covered"]:
        return Outcome(case.label, True, None, Evidence.NUMERIC,
                       f"below the corollary's sample size (factor {prm['factor']:g} < cor1.C): "
                       f"measured, no claim; {text}", values=values)
    return Outcome(case.label, bool(row["hi"] >= row["target"]), row["hi"] - row["target"],
                   Evidence.NUMERIC, text, margin_kind="difference", values=values)


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
          "P(L_s(alpha_hat', beta_hat'') <= eps) >= 1 - 3d^-c with N1 = C d ln d, N3 = C ln d/eps "
          "(Monte Carlo, 95% CP upper end)", Evidence.NUMERIC, _sample_cases, _judge_samples,
          reconstructed=True),
    Check("cor1.sample_C", "Corollary 1 (finite samples, constant)",
          "smallest C (eta2, N1, N3 together) with success fraction >= 1 - 3d^-1 <= cor1.C",
          Evidence.NUMERIC, _scan_cases, _judge_scan, reconstructed=True),
    Check("cor1.sample_sweep", "Corollary 1 (finite samples, sample sizes)",
          "success probability against N1/(d ln d) and N3 eps/ln d; where the size meets "
          "C (factor >= cor1.C) the 95% CP upper end reaches 1 - 3d^-c",
          Evidence.NUMERIC, _sweep_cases, _judge_sweep, reconstructed=True),
)

EXHIBITS = (
    Exhibit("cor1.sample_sweep", "Sample complexity",
            "Success probability P(L_s <= eps) over seeded repetitions (95% Clopper-Pearson "
            "interval) as one sample size varies and everything else stays at cor1.C; the "
            "corollary claims 1 - 3d^-c only on rows marked 'yes'. Plot: notebooks/cor1.py.",
            (("d", "d"), ("eps", "eps"), ("axis", "varied"), ("scaled", "size / scale"),
             ("N1", "N1"), ("N3", "N3"), ("p", "success"), ("ci", "95% CP"),
             ("target", "1 - 3d^-c"), ("claim", "corollary claims"))),
)
