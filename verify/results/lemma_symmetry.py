"""The symmetry lemma of A.7: one population gradient step keeps background symmetry.

Checked with the general (non-symmetric) engine, which knows nothing of the symmetry: at random
background-symmetric parameters, the gradient's background coordinates must agree, so a step of
either layer with any step sizes stays symmetric.
"""
from __future__ import annotations

import random
from typing import Mapping

import mpmath

from ..checks import Case, Check, Constants, Evidence, Outcome, Profile, Result
from ..engine import general
from ..engine.enumeration import general_truth

DPS = 25
SEEDS = {Profile.QUICK: 2, Profile.DEFAULT: 4, Profile.FULL: 10}
DIMS = {Profile.QUICK: [3, 6], Profile.DEFAULT: [3, 5, 8, 12], Profile.FULL: [2, 3, 4, 5, 8, 12, 20]}


def _cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = options.get("d") or DIMS[profile]
    return [Case(f"d={d}, seed={seed}", {"d": int(d), "seed": seed, "perturb": 0})
            for d in ds for seed in range(SEEDS[profile])]


def symmetric_parameters(d: int, seed: int, perturb: float = 0.0) -> tuple[int, list, list]:
    """Random target s and background-symmetric (alpha, beta); ``perturb`` breaks the symmetry
    of one background coordinate (used to show the check can fail)."""
    rng = random.Random(seed * 1000 + d)
    s = rng.randrange(d)
    a_s, a_j = rng.uniform(-3, 3), rng.uniform(-3, 3)
    b_s, b_j = rng.uniform(-2, 3), rng.uniform(-2, 3)
    alpha = [repr(a_s if i == s else a_j) for i in range(d)]
    beta = [repr(b_s if i == s else b_j) for i in range(d)]
    if perturb:
        j = (s + 1) % d
        alpha[j] = repr(a_j + perturb)
    return s, alpha, beta


def _judge(case: Case, constants: Constants) -> Outcome:
    d, seed = case.params["d"], case.params["seed"]
    s, alpha, beta = symmetric_parameters(d, seed, case.params.get("perturb", 0))
    ev = general.evaluate(d, s, alpha, beta, DPS)
    rng = random.Random(seed)
    eta, eta_out = 10 ** rng.uniform(-2, 2), 10 ** rng.uniform(-2, 2)
    with mpmath.workdps(DPS):
        new_alpha = [mpmath.mpf(a) - eta * g for a, g in zip(alpha, ev.grad_alpha)]
        new_beta = [mpmath.mpf(b) - eta_out * g for b, g in zip(beta, ev.grad_beta)]
        back = [i for i in range(d) if i != s]
        spread = max(max(new_alpha[i] for i in back) - min(new_alpha[i] for i in back),
                     max(new_beta[i] for i in back) - min(new_beta[i] for i in back))
        tol = (mpmath.mpf(10) ** (-DPS + 5)) * (1 + eta + eta_out)
    if d == 2:  # one background symbol: nothing to compare
        return Outcome(case.label, True, None, Evidence.NUMERIC, "d = 2: a single background symbol")
    return Outcome(case.label, bool(spread <= tol), float(tol / spread) if spread else float("inf"),
                   Evidence.NUMERIC,
                   f"s={s}, eta={eta:.3g}, eta'={eta_out:.3g}: background spread after the step {mpmath.nstr(spread, 3)}")


def _enum_cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = [d for d in (options.get("d") or [3, 4]) if d <= 4]
    return [Case(f"d={d}, seed={seed}", {"d": int(d), "seed": seed, "perturb": 0})
            for d in ds for seed in range(SEEDS[profile])]


def _judge_enumeration(case: Case, constants: Constants) -> Outcome:
    """The same claim from exact enumeration over count vectors: there the per-word gradients are
    not symmetric (each word favours the symbols it contains), so equality of the background
    partials comes only from the exchangeability of the distribution -- the lemma's argument."""
    d, seed = case.params["d"], case.params["seed"]
    s, alpha, beta = symmetric_parameters(d, seed, case.params.get("perturb", 0))
    truth = general_truth(d, s, alpha, beta, L=30 if d == 3 else 16, dps=DPS)
    with mpmath.workdps(DPS):
        back = [i for i in range(d) if i != s]
        spread = max(max(g[i] for i in back) - min(g[i] for i in back)
                     for g in (truth.grad_alpha, truth.grad_beta))
        tol = 10 * mpmath.mpf(10) ** (-DPS + 3)  # both are the same truncated sum: no tail term
    return Outcome(case.label, bool(spread <= tol), float(tol / spread) if spread else float("inf"),
                   Evidence.NUMERIC, f"s={s}: spread of background partials {mpmath.nstr(spread, 3)} "
                   f"over {truth.n_vectors} count vectors")


RESULT = Result(
    id="lemma-symmetry",
    name="Lemma (A.7, symmetry)",
    statement="one population GD step from background-symmetric parameters stays symmetric",
    hypotheses="alpha_i = alpha_j and beta_i = beta_j for background i, j; any step sizes",
    constants=(),
    document="proofs/lemma-symmetry.md",
    checks=(
        Check("lemma-symmetry.step", "A.7 lemma", "alpha'_i = alpha'_j, beta'_i = beta'_j after one step",
              Evidence.NUMERIC, _cases, _judge),
        Check("lemma-symmetry.enumeration", "A.7 lemma (exchangeability)",
              "background partials agree in exact enumeration over count vectors",
              Evidence.NUMERIC, _enum_cases, _judge_enumeration),
    ),
)
