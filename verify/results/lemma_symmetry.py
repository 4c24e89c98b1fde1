"""The symmetry lemma of A.7: one population gradient step keeps background symmetry.

Checked by two routes that do not assume the symmetry:

* ``lemma-symmetry.step``: the general engine (per-coordinate gradients over all d coordinates,
  no symmetry anywhere in it) at random background-symmetric parameters; every background
  partial must equal the symmetric engine's background scalar (and the target partial its target
  scalar) within both engines' error estimates, so a step of either layer with any step sizes
  stays symmetric.  At d = 2 the single background coordinate is still compared with the
  symmetric engine's scalar.
* ``lemma-symmetry.enumeration``: exact enumeration over count vectors (d <= 4).
"""
from __future__ import annotations

import random
from typing import Mapping

import mpmath

from ..checks import Case, Check, Constants, Evidence, Outcome, Profile, Result
from ..engine.general import GeneralAttention, evaluate_attention
from ..engine.enumeration import general_truth
from ..engine.symmetric import SymmetricPoint, evaluate

DPS = 25
SEEDS = {Profile.QUICK: 2, Profile.DEFAULT: 4, Profile.FULL: 10}
DIMS = {Profile.QUICK: [2, 3, 6], Profile.DEFAULT: [2, 3, 5, 8, 12], Profile.FULL: [2, 3, 4, 5, 8, 12, 20]}


def _cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    ds = options.get("d") or DIMS[profile]
    return [Case(f"d={d}, seed={seed}", {"d": int(d), "seed": seed, "perturb": 0})
            for d in ds for seed in range(SEEDS[profile])]


def symmetric_parameters(d: int, seed: int, perturb: float = 0.0) -> tuple[int, list, list]:
    """Random target s and background-symmetric (alpha, beta); ``perturb`` breaks the symmetry
    of one background coordinate of both layers (used to show the check can fail; at d = 2 every
    word has length 1, so only the output layer matters there)."""
    rng = random.Random(seed * 1000 + d)
    s = rng.randrange(d)
    a_s, a_j = rng.uniform(-3, 3), rng.uniform(-3, 3)
    b_s, b_j = rng.uniform(-2, 3), rng.uniform(-2, 3)
    alpha = [repr(a_s if i == s else a_j) for i in range(d)]
    beta = [repr(b_s if i == s else b_j) for i in range(d)]
    if perturb:
        j = (s + 1) % d
        alpha[j] = repr(a_j + perturb)
        beta[j] = repr(b_j + perturb)
    return s, alpha, beta


def _judge(case: Case, constants: Constants) -> Outcome:
    """Each partial of the general engine against the symmetric engine's scalar for its role
    (target or background), and the spread of the background partials after one step."""
    d, seed = case.params["d"], case.params["seed"]
    s, alpha, beta = symmetric_parameters(d, seed, case.params.get("perturb", 0))
    clean = symmetric_parameters(d, seed)[1:]  # the symmetric engine sees the unperturbed point
    j0 = (s + 1) % d
    ev = evaluate_attention(GeneralAttention.from_alpha(d, s, alpha, DPS), beta)
    sym = evaluate(SymmetricPoint(d, clean[0][s], clean[0][j0], clean[1][s], clean[1][j0]), DPS)
    rng = random.Random(seed)
    eta, eta_out = 10 ** rng.uniform(-2, 2), 10 ** rng.uniform(-2, 2)
    floor = mpmath.mpf(10) ** (-DPS + 5)
    with mpmath.workdps(DPS):
        worst = mpmath.mpf(0)  # largest |general - symmetric| / tolerance over the coordinates
        for layer, grads, errs in (("alpha", ev.grad_alpha, ev.grad_alpha_error),
                                   ("beta", ev.grad_beta, ev.grad_beta_error)):
            for i in range(d):
                role = "s" if i == s else "j"
                tol = errs[i] + sym.error[f"{layer}_{role}"] + floor
                worst = max(worst, abs(grads[i] - sym.grad[f"{layer}_{role}"]) / tol)
        new_alpha = [mpmath.mpf(a) - eta * g for a, g in zip(alpha, ev.grad_alpha)]
        new_beta = [mpmath.mpf(b) - eta_out * g for b, g in zip(beta, ev.grad_beta)]
        back = [i for i in range(d) if i != s]
        spread = max(max(new_alpha[i] for i in back) - min(new_alpha[i] for i in back),
                     max(new_beta[i] for i in back) - min(new_beta[i] for i in back))
        step_tol = floor * (1 + eta + eta_out)
    passed = bool(worst <= 1 and spread <= step_tol)
    return Outcome(case.label, passed, float(1 / worst) if worst else float("inf"), Evidence.NUMERIC,
                   f"s={s}: general-engine partials vs the symmetric engine's four scalars: worst "
                   f"{mpmath.nstr(worst, 3)} x their summed error estimates; background spread "
                   f"after a step (eta={eta:.3g}, eta'={eta_out:.3g}) {mpmath.nstr(spread, 3)}")


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
    short="A population gradient step keeps the background symmetric",
    statement="one population GD step from background-symmetric parameters stays symmetric",
    hypotheses="alpha_i = alpha_j and beta_i = beta_j for background i, j; any step sizes",
    constants=(),
    document="proofs/lemma-symmetry.md",
    checks=(
        Check("lemma-symmetry.step", "A.7 lemma",
              "every per-coordinate partial (general engine) equals the symmetric engine's scalar "
              "for its role, so alpha'_i = alpha'_j, beta'_i = beta'_j after one step",
              Evidence.NUMERIC, _cases, _judge),
        Check("lemma-symmetry.enumeration", "A.7 lemma (exchangeability)",
              "background partials agree in exact enumeration over count vectors",
              Evidence.NUMERIC, _enum_cases, _judge_enumeration),
    ),
)
