"""Corollary 1: its schedule on the population loss here, the finite-sample statement in
:mod:`cor1_samples` (merged into this result).

Statement (text): eta1 <= sqrt(d), eta2 >= C d^2/eta1 ln(d/eps), eta3 = 1, T = ceil(72/eps); with
exact population gradients the claim checked is L_s(alpha', beta'') <= eps for the plan with that
schedule, on the boundary of the hypotheses and inside them (eta1 in {1, d^(1/4), sqrt(d)}, eta2
and T above their minima).  Constants: cor1.C, cor1.T_numerator (and thm2.eta1_scale).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping

import mpmath

from ..checks import Calibration, Case, Check, Constants, Evidence, Outcome, Profile, Result, Reach
from ..engine.estimate import ErrorKind, Estimate
from . import cor1_samples
from .common import ratio_outcome
from ..ledger import Discharge, Obligation
from .plan_schedule import STATED, box_nodes, plan_cases, plan_for


def _cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    return plan_cases(profile, constants, options)


def _judge_final(case: Case, constants: Constants) -> Outcome:
    plan = plan_for(case, constants, prefix="cor1")
    return ratio_outcome(case, Estimate(plan.loss, plan.final.error["loss"], ErrorKind.ESTIMATED),
                         case.params["eps"],
                         detail=f"L = {mpmath.nstr(plan.loss, 5)}, T = {plan.T}")


def _certified_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    from ..certify.outcomes import certified_cases

    return certified_cases("cor1-4d", profile, options)


def _judge_certified(case: Case, constants: Constants) -> Outcome:
    """Every real (d, eps) of a box and every step size the hypotheses allow, at once, by ball
    arithmetic over (ln d, ln eps, eta1/sqrt(d), eta2_min/eta2) (verify/certify,
    proofs/hypothesis-range.md); the outcome
    says which of cor1.C's calibration cases the box contains (then the report counts it
    in-sample for cor1.C, proofs/cor1.md)."""
    from ..certify.outcomes import judge_certified

    out = judge_certified("cor1-4d", case, constants)
    inside = cor1_samples.box_calibration(case.params)
    if not inside:
        return replace(out, detail=out.detail + "; the box holds none of cor1.C's calibration "
                                                "cases (held out)")
    ds = sorted({d for d, _ in inside})
    es = sorted({e for _, e in inside}, reverse=True)
    return replace(out, detail=out.detail + (
        f"; the box contains {len(inside)} of cor1.C's calibration cases (d in "
        f"{{{', '.join(map(str, ds))}}}, eps in {{{', '.join(f'{e:g}' for e in es)}}}, the "
        f"scan's (d, eps)): counted in-sample for cor1.C"))


def _large_d_cases(profile: Profile, constants: Mapping, options: Mapping) -> list[Case]:
    return [Case("every d >= 1e9, eps in (0,1), every eta1 <= sqrt(d), eta2 >= eta2_min",
                 {"group": "cor1-large-d"})]


def _judge_large_d(case: Case, constants) -> Outcome:
    """Every real d >= 10^9 and eps in (0, 1), every step size: the perturbation lemma of
    proofs/large-d.md (as thm2.large_d), rechecked by the engine and the independent checker."""
    from ..certify.large_d_outcome import judge

    return judge("cor1-large-d", case, constants)



PROOF = (
    Obligation("cor1", "with N1 >= C d ln d and N3 >= C ln d/eps samples the plan's population risk is "
               "<= eps with probability >= 1 - 3d^-c", STATED, Discharge.FOLLOWS,
               uses=("cor1.population", "cor1.finite-samples")),
    Obligation("cor1.population", "with population gradients the schedule (T = ceil(72/eps)) reaches "
               "L_s <= eps", STATED, Discharge.EITHER, uses=("cor1.by-boxes", "cor1.at-points")),
    *box_nodes("cor1", "cor1.certified_box", "L_s(alpha', beta'') <= eps", "cor1.large_d"),
    Obligation("cor1.at-points", "L_s <= eps at the grid's points (population gradients)", STATED,
               Discharge.NUMERIC, ("cor1.population",)),
    Obligation("cor1.finite-samples", "from population to sampled gradients: probability >= 1 - 3d^-c",
               STATED, Discharge.EITHER, uses=("cor1.concentration", "cor1.samples-tested"),
               where="proofs/cor1.md, 'Finite samples'"),
    Obligation("cor1.concentration", "the concentration argument with N1, N3 samples (the paper's proof "
               "is lost; not reconstructed)", STATED, Discharge.OPEN, where="proofs/cor1.md"),
    Obligation("cor1.samples-tested", "exact binomial tests at points: a pass supports a failure "
               "probability < cor1.fail_factor x 3d^-c (2.5% one-sided), not <= 3d^-c", STATED,
               Discharge.STATISTICAL, ("cor1.samples", "cor1.sample_sweep"), uses=("cor1.samples-gap",),
               where="proofs/cor1.md, 'Finite samples'"),
    Obligation("cor1.samples-gap", "failure probability <= 3d^-c itself: between it and what a pass "
               "supports (< cor1.fail_factor x 3d^-c) no test decides", STATED, Discharge.OPEN,
               where="proofs/cor1.md, 'Finite samples'"),
)

RESULT = Result(
    id="cor1",
    name="Corollary 1",
    short="The three-phase plan on finite samples: risk <= eps with high probability",
    statement="eta3 = 1, T = ceil(72/eps), eta2 >= C d^2/eta1 ln(d/eps): L_s(alpha', beta'') <= eps",
    hypotheses="d >= 3, eps in (0,1), eta1 <= sqrt(d); population gradients, and sampled ones with N1 >= C d ln d, N3 >= C ln d/eps, C = C(c) = cor1.C max(1, c) for the exponent c (reconstructed)",
    constants=("cor1.C", "cor1.T_numerator", "thm2.eta1_scale", "cor1.c", "cor1.fail_factor",
               "cor1.delta", "cor1.repetitions", "cor1.max_repetitions"),
    document="proofs/cor1.md",
    proof=PROOF,
    checks=(
        Check("cor1.certified_box", "Corollary 1 (certified)",
              "L_s(alpha', beta'') <= eps (population gradients) for every real d, eps in the box, every 0 < eta1 <= sqrt(d), eta2 >= C d^2/eta1 ln(d/eps), eta3 = 1, T = ceil(72/eps) (every integer T >= 72/eps)", Evidence.CERTIFIED, _certified_cases, _judge_certified,
              reconstructed=True, reach=Reach.RANGE, scope="population schedule"),  # the schedule's step sizes are reconstructed
        Check("cor1.large_d", "Corollary 1, d >= 1e9 (certified)",
              "L_s(alpha', beta'') <= eps (population gradients) for every real d >= 1e9 and eps in (0,1), every 0 < eta1 <= sqrt(d), eta2 >= C d^2/eta1 ln(d/eps), eta3 = 1, T = ceil(72/eps) (every integer T >= 72/eps) (a perturbation lemma)",
              Evidence.CERTIFIED, _large_d_cases, _judge_large_d, reconstructed=True,
              reach=Reach.RANGE, scope="population schedule"),
        Check("cor1.population", "Corollary 1", "L_s(alpha', beta'') <= eps with T = ceil(72/eps)",
              Evidence.NUMERIC, _cases, _judge_final, reconstructed=True, scope="population schedule"),
        *cor1_samples.CHECKS,
    ),
    exhibits=cor1_samples.EXHIBITS,
    calibrations=(
        Calibration("cor1.C", ("cor1.certified_box", "cor1.population", "cor1.samples",
                               "cor1.sample_sweep"),
                    "(d, eps) of the cor1.sample_C scan: d in {5, 10, 20, 30, 50, 100, 200}, "
                    "eps in {0.1, 0.001} (c = 1; the rule C(c) = cor1.C max(1, c) at c = 2 on "
                    "d in {5, 10, 20, 30} there)", cor1_samples.calibrated),
    ),
)
