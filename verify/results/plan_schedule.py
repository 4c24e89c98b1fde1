"""The three-phase plan's schedule and case grid, shared by Theorem 2 and Corollary 1.

Both results run the plan of Section 4 (A.7) with the step sizes Theorem 2's text lost and
Corollary 1 states (proofs/thm2.md): eta1 = thm2.eta1_scale sqrt(d) on the boundary of the
hypothesis eta1 <= sqrt(d) (or d^(1/4), 1 inside it), eta2 = C d^2/eta1 ln(d/eps) and eta3 = 1;
they differ only in their constants (``thm2.C`` / ``cor1.C``) and in T (Theorem 2:
T_factor d ln(16d/eps); Corollary 1: T_numerator/eps).  The formulas are the engine's
(:mod:`verify.engine.schedules`); this module reads the results' constants into them and lists
the cases both results are checked on.  It is not a result: ``tests/test_shape.py`` lets
``thm2``, ``cor1`` and ``cor1_samples`` import it.
"""
from __future__ import annotations

from typing import Mapping

import mpmath

from ..checks import Case, Constants, Profile
from ..ledger import Discharge, Obligation, Region, at_least, between, closed
from ..engine import plans, schedules
from ..engine.plans import ThreePhase
from ..engine.precision import to_mpf
from .common import grid, log_grid

DPS = 30
D_GRID = {
    Profile.QUICK: [3, 10, 1000],
    Profile.DEFAULT: [3, 4, 5, 6, 8, 10, 30, 100, 1000, 10**4, 10**5],
    Profile.FULL: [*range(3, 21), *log_grid(30, 10**5, 10, integer=True)],
}
EPS_GRID = {
    Profile.QUICK: [1e-3, 0.5],
    Profile.DEFAULT: [1e-4, 1e-2, 0.1, 0.5, 0.9],
    Profile.FULL: log_grid(1e-6, 0.99, 8),
}

ETA1_CHOICES = ("sqrt(d)", "d^(1/4)", "1")
# inside the hypotheses: (eta1, eta2 as a multiple of its minimum, T as a multiple of its minimum)
INTERIOR = (("1", 1, 1), ("d^(1/4)", 1, 1), ("sqrt(d)", 4, 1), ("sqrt(d)", 1, 2), ("1", 4, 2))
INTERIOR_D = {Profile.QUICK: [10], Profile.DEFAULT: [3, 10, 100], Profile.FULL: [3, 5, 10, 100, 1000]}
INTERIOR_EPS = {Profile.QUICK: [1e-3], Profile.DEFAULT: [1e-3, 0.5], Profile.FULL: [1e-5, 1e-2, 0.5]}


def eta1_value(d: int, choice: str, constants: Constants) -> mpmath.mpf:
    """eta1 for a case: thm2.eta1_scale sqrt(d) (the boundary eta1 <= sqrt(d) at scale 1),
    d^(1/4) or 1 (inside the hypothesis)."""
    if choice == "sqrt(d)":
        return schedules.eta1(mpmath.mpf(d), to_mpf(constants["thm2.eta1_scale"]), mpmath.sqrt)
    if choice == "d^(1/4)":
        return mpmath.root(d, 4)
    if choice == "1":
        return mpmath.mpf(1)
    raise ValueError(f"eta1 must be one of {ETA1_CHOICES}, got {choice!r}")


def schedule(d: int, eps, constants: Constants, prefix: str = "thm2", eta1: str = "sqrt(d)",
             eta2_x=1, T_x=1) -> tuple:
    """(eta1, eta2, eta3, T) of the reconstructed statement (prefix ``thm2``) or of Corollary 1
    (prefix ``cor1``: T = ceil(T_numerator/eps)); ``eta2_x`` and ``T_x`` (>= 1) take eta2 and T
    that many times above their minimum (inside the hypotheses)."""
    with mpmath.workdps(DPS + 10):
        eps = mpmath.mpf(eps)
        e1 = eta1_value(d, eta1, constants)
        eta2 = mpmath.mpf(eta2_x) * schedules.eta2(d, eps, to_mpf(constants[f"{prefix}.C"]), e1,
                                                   mpmath.log)
        if prefix == "thm2":
            low = schedules.phase3_steps(d, eps, to_mpf(constants["thm2.T_factor"]), mpmath.log)
        else:
            low = schedules.cor1_steps(eps, to_mpf(constants["cor1.T_numerator"]))
        T = int(mpmath.ceil(mpmath.mpf(T_x) * low))
    return e1, eta2, mpmath.mpf(1), T


def case_schedule(params: Mapping[str, object], constants: Constants, prefix: str = "thm2") -> tuple:
    """The schedule of one case (boundary when the case names no interior choice)."""
    return schedule(params["d"], params["eps"], constants, prefix, params.get("eta1", "sqrt(d)"),
                    params.get("eta2_x", 1), params.get("T_x", 1))


def plan_cases(profile: Profile, constants: Constants, options: Mapping,
               d_grid: Mapping = D_GRID, eps_grid: Mapping = EPS_GRID) -> list[Case]:
    """The boundary of the hypotheses (eta1 = eta1_scale sqrt(d), eta2 and T at their minima) on
    the (d, eps) grid, then the interior variants (INTERIOR) on a smaller grid."""
    out = []
    for c in grid(profile, options, d_grid, eps_grid):
        e1 = eta1_value(c.params["d"], "sqrt(d)", constants)
        out.append(Case(c.label, {**c.params, "eta1_value": float(e1)}))
    for c in grid(profile, options, INTERIOR_D, INTERIOR_EPS):
        d = c.params["d"]
        for eta1, eta2_x, T_x in INTERIOR:
            out.append(Case(f"{c.label}, eta1={eta1}, eta2={eta2_x}x min, T={T_x}x min",
                            {**c.params, "eta1": eta1, "eta2_x": eta2_x, "T_x": T_x,
                             "eta1_value": float(eta1_value(d, eta1, constants))}))
    return out


def boundary(params: Mapping[str, object]) -> bool:
    """Whether a case sits on the boundary of the hypotheses (eta1 = eta1_scale sqrt(d), eta2 and
    T at their minima: the schedule the constants were tuned on)."""
    return params.get("eta1", "sqrt(d)") == "sqrt(d)" and params.get("eta2_x", 1) == 1 \
        and params.get("T_x", 1) == 1


def plan_for(case: Case, constants: Constants, prefix: str = "thm2", dps: int = DPS) -> ThreePhase:
    """The population plan of one case with the schedule of ``prefix`` (memoised in the engine:
    several checks read the same run)."""
    return plans.run_plan(case.params["d"], *case_schedule(case.params, constants, prefix), dps)


# ------------------------------------------------------------------ the proof ledger's boxes

STEP_SIZES = {"u": between(0, 1, lo_open=True), "v": between(0, 1, lo_open=True)}
STATED = Region.of(d=at_least(3), eps=between(0, 1, True, True), **STEP_SIZES)
BOX = Region.of(d=closed(3, 1e9), eps=closed(1e-6, 0.99), **STEP_SIZES)
TAIL = Region.of(d=closed(3, 1e9), eps=between(0, 1e-6, lo_open=True), **STEP_SIZES)
TOP = Region.of(d=closed(3, 1e9), eps=closed(0.99, 1), **STEP_SIZES)
LARGE_D = Region.of(d=at_least(1e9), eps=between(0, 1, True, True), **STEP_SIZES)


def box_nodes(result: str, check: str, claim: str, large_d: str) -> tuple[Obligation, ...]:
    """The certified route of Theorem 2 or Corollary 1: the 4-D box, its eps-tail and its top
    eps in [0.99, 1) (all read by the independent checker, proved where it accepts them),
    which together cover d in [3, 1e9], eps in (0, 1], and the large-d lemma (``large_d``,
    read by the checker: every d >= 1e9, eps in (0, 1)); the plan stays background-symmetric by
    A.7, and there the boxes' four-scalar reduction is the model's loss and gradient
    (lemma-symmetry.reduction)."""
    return (
        Obligation(f"{result}.by-boxes", f"{claim} wherever the boxes certify it (the plan stays "
                   "background-symmetric: A.7)", STATED, Discharge.FOLLOWS,
                   uses=(f"{result}.boxes", "lemma-symmetry", "lemma-symmetry.reduction")),
        Obligation(f"{result}.boxes", "the 4-D box, its eps-tail, its top and the large-d lemma",
                   STATED, Discharge.EITHER, uses=(f"{result}.box", f"{result}.eps-tail",
                                                   f"{result}.top", f"{result}.large-d")),
        Obligation(f"{result}.box", f"{claim} over the 4-D box of (d, eps, eta1/sqrt(d), "
                   "eta2_min/eta2)", BOX, Discharge.CERTIFIED, (check,),
                   where="proofs/hypothesis-range.md", checker=True),
        Obligation(f"{result}.eps-tail", f"{claim} for eps in (0, 1e-6] (tau = 1/(1 - ln eps))", TAIL,
                   Discharge.CERTIFIED, (check,),
                   where="proofs/hypothesis-range.md section 9, proofs/checker.md section 14",
                   checker=True),
        Obligation(f"{result}.top", f"{claim} for eps in [0.99, 1) (the 4-D box up to eps = 1)",
                   TOP, Discharge.CERTIFIED, (check,), where="proofs/hypothesis-range.md",
                   checker=True),
        Obligation(f"{result}.large-d", f"{claim} for every real d >= 1e9 and eps in (0, 1): the "
                   "perturbation lemma around the eta2 -> inf closed forms", LARGE_D,
                   Discharge.CERTIFIED, (large_d,), where="proofs/large-d.md", checker=True),
    )
