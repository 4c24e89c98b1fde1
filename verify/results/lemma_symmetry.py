"""The symmetry lemma of A.7: one population gradient step keeps background symmetry.

Proved by SymPy from the model's definition (``lemma-symmetry.invariance``): the word law is
invariant under the transposition of two background symbols, and at parameters the
transposition fixes, the partial of a word's loss in one of the two symbols equals the partial
in the other of the transposed word's loss; reindexing the population sum by the transposition
gives equal partials.  ``lemma-symmetry.reduction`` proves what the four-scalar reduction the
certified boxes compute in takes from it.  Two numeric routes corroborate:

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

import sympy as sp

from ..checks import Case, Check, Constants, Evidence, Outcome, Profile, Result
from ..ledger import Discharge, Obligation, Region, at_least
from ..engine import symbolic
from ..engine.general import GeneralAttention, evaluate_attention
from ..engine.enumeration import general_truth
from ..engine import symbolic_word
from ..engine.symbolic_word import Letter, Rest
from ..engine.symmetric import SymmetricPoint, evaluate
from .common import single_case

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


# ----------------------------------------------------------------- the proof, by SymPy

_C = sp.symbols("C_s C_i C_j", integer=True, nonnegative=True)
_A = sp.symbols("alpha_s alpha_i alpha_j", real=True)
_B = sp.symbols("beta_s beta_i beta_j", real=True)
_REST = Rest(*sp.symbols("R N_rest D_rest F_rest", nonnegative=True))
_SHARED = sp.symbols("alpha_b beta_b", real=True)  # the common value at a fixed point


def _letters(counts) -> list[Letter]:
    return [Letter(c, a, b) for c, a, b in zip(counts, _A, _B)]


def _fixed(expr: sp.Expr) -> sp.Expr:
    """``expr`` at parameters the transposition of symbols i and j fixes."""
    return expr.subs({_A[1]: _SHARED[0], _A[2]: _SHARED[0], _B[1]: _SHARED[1], _B[2]: _SHARED[1]})


def invariance_steps() -> list[tuple[str, bool]]:
    """The lemma's argument, each step as SymPy verified it (for every d and every word: the
    symbols not named enter only through sums, proofs/lemma-symmetry.md):

    1. the word law is invariant under the transposition tau of the background symbols i, j:
       P(tau C) = P(C), from the law p q^(m-1) d^(-m) m!/prod C_l! and again from the
       generating function G((x_1 + ... + x_d)/d);
    2. for both labels (y = +1: C_s >= 1; y = -1: C_s = 0, which tau does not touch) and both
       layers, at parameters with alpha_i = alpha_j and beta_i = beta_j, the partial of the
       loss in symbol i equals the partial in symbol j of the transposed word's loss.
    Then dL/dtheta_j = sum_C P(C) dl(C)/dtheta_j = sum_C P(tau C) dl(tau C)/dtheta_j (tau is a
    bijection of count vectors) = sum_C P(C) dl(C)/dtheta_i = dL/dtheta_i, so one gradient step
    keeps alpha'_i = alpha'_j and beta'_i = beta'_j."""
    c_s, c_i, c_j = _C
    swapped = (c_s, c_j, c_i)
    law = symbolic_word.word_law
    steps = [("word law: P(tau C) = P(C)",
              sp.simplify(law(_letters(swapped), _REST) - law(_letters(_C), _REST)) == 0)]
    xs, rest_x = sp.symbols("x_s x_i x_j", positive=True), sp.Symbol("X_rest", nonnegative=True)
    steps.append(("generating function: G is symmetric in x_i, x_j",
                  sp.simplify(symbolic_word.count_pgf((xs[0], xs[2], xs[1]), rest_x)
                              - symbolic_word.count_pgf(xs, rest_x)) == 0))
    for label, target in ((1, c_s), (-1, sp.Integer(0))):
        word, moved = (target, c_i, c_j), (target, c_j, c_i)
        for layer, params in (("alpha", _A), ("beta", _B)):
            here = sp.diff(symbolic_word.word_loss(_letters(word), label, _REST), params[1])
            there = sp.diff(symbolic_word.word_loss(_letters(moved), label, _REST), params[2])
            steps.append((f"y = {label:+d}, {layer}: dl(C)/d{layer}_i = dl(tau C)/d{layer}_j at a "
                          "fixed point", sp.simplify(_fixed(here - there)) == 0))
    return steps


def reduction_steps() -> list[tuple[str, bool]]:
    """What the four-scalar reduction (verify/engine/symbolic.py) takes from the model and
    the lemma, each step as SymPy verified it:

    1. at background-symmetric parameters model (1) on any word is beta_j + (beta_s - beta_j)
       gamma_s with gamma_s = k e^alpha_s/(k e^alpha_s + n e^alpha_j), n = the background count;
    2. the reduction's per-coordinate attention partials sum to 0 over the d coordinates
       (softmax is shift invariant: dL/dalpha_s + (d - 1) dL/dalpha_j = 0), in both families;
    3. its output partials satisfy Euler's identity beta_s dL/dbeta_s + (d - 1) beta_j dL/dbeta_j
       = E[(f - y)(f + 1)] (f + 1 is linear in beta), the right side averaged from the word
       directly; 2 and 3 hold only if each background partial is the tied one over d - 1."""
    sym = symbolic
    c_s, c_i, c_j = _C
    background = [Letter(c, sym.alpha_j, sym.beta_j) for c in (c_i, c_j)]
    general = symbolic_word.word_output([Letter(c_s, sym.alpha_s, sym.beta_s), *background],
                                        Rest(_REST.count, sym.beta_j * sp.exp(sym.alpha_j) * _REST.count,
                                             sp.exp(sym.alpha_j) * _REST.count))
    four = sym.model_output().subs({sym.k: c_s, sym.n: c_i + c_j + _REST.count})
    steps = [("model (1) at symmetric parameters is the four-scalar form",
              sp.simplify(general - four) == 0)]
    f = sym.model_output()
    for family in ("mu", "nu"):
        red = sym.reduce_symmetric(family)
        shift = red.plain(red.grad["alpha_s"] + (sym.d - 1) * red.grad["alpha_j"])
        steps.append((f"{family}: dL/dalpha_s + (d - 1) dL/dalpha_j = 0", sp.simplify(shift) == 0))
        euler = red.plain(sym.beta_s * red.grad["beta_s"] + (sym.d - 1) * sym.beta_j * red.grad["beta_j"]
                          - sym.population_mean((f - 1) * (f + 1), (f + 1) ** 2, family))
        steps.append((f"{family}: beta_s dL/dbeta_s + (d - 1) beta_j dL/dbeta_j = E[(f - y)(f + 1)]",
                      sp.simplify(euler) == 0))
    return steps


def permutation_steps() -> list[tuple[str, bool]]:
    """What the reduction of every attention to the cube of successive ratios (the node
    ``lemma.ratio-cube``, Propositions 2 and 3) takes from the model, each step as SymPy verified
    it (every d: the symbols not named enter only through the sums of ``Rest``):

    1. the word law is invariant under the transposition tau of the target s and a background
       symbol i: P(tau C) = P(C) (with :func:`invariance_steps`' step 1, under every
       transposition, so under every permutation of the symbols);
    2. for both labels, the loss for target s on the word C at (alpha, beta) equals the loss for
       target i on tau C at (tau alpha, tau beta); the label is the same (target i on tau C is
       positive iff (tau C)_i = C_s >= 1);
    3. the model's output is unchanged when every logit moves by t (the named ones, and the
       rest's sums scaled by e^t): softmax is shift invariant;
    4. with alpha_1 = 0 the successive ratios r_k = e^(alpha_k - alpha_(k-1)) multiply to
       r_2 ... r_j = e^(alpha_j) (the sum of differences telescopes, for symbolic j), and
       r_k = e^(-g) with g = alpha_(k-1) - alpha_k >= 0 is positive, 1 at g = 0 and decreasing
       in g, so it lies in (0, 1].
    Then max_s inf_beta L_s(alpha, beta) takes the same value at alpha, at pi alpha (the
    population sum reindexed by the bijection tau of count vectors, the inf over beta by
    tau beta: standard) and at alpha + t, and sorting and shifting put every alpha at a point of
    (0, 1]^(d-1), inside the closed cube the certificates of Propositions 2 and 3 tile."""
    c_s, c_i, c_j = _C
    law = symbolic_word.word_law
    swapped = [Letter(c_i, _A[0], _B[0]), Letter(c_s, _A[1], _B[1]), Letter(c_j, _A[2], _B[2])]
    steps = [("word law: P(tau C) = P(C) for tau = (s i)",
              sp.simplify(law(swapped, _REST) - law(_letters(_C), _REST)) == 0)]
    for label, target in ((1, c_s), (-1, sp.Integer(0))):
        here = _letters((target, c_i, c_j))
        there = [here[1], here[0], here[2]]  # target i on tau C: symbol i now holds C_s
        steps.append((f"y = {label:+d}: l_s(C; alpha, beta) = l_i(tau C; tau alpha, tau beta)",
                      sp.simplify(symbolic_word.word_loss(here, label, _REST)
                                  - symbolic_word.word_loss(there, label, _REST)) == 0))
    t = sp.Symbol("t", real=True)
    moved_rest = Rest(_REST.count, _REST.numerator * sp.exp(t), _REST.denominator * sp.exp(t))
    shifted = [Letter(c, a + t, b) for c, a, b in zip(_C, _A, _B)]
    steps.append(("shift: f(alpha + t) = f(alpha)",
                  sp.simplify(symbolic_word.word_output(shifted, moved_rest)
                              - symbolic_word.word_output(_letters(_C), _REST)) == 0))
    a, k, j = sp.IndexedBase("a", real=True), sp.Symbol("k", integer=True), sp.Symbol("j", integer=True)
    logs = sp.Sum(a[k] - a[k - 1], (k, 2, j)).doit().subs(a[1], 0)  # ln(r_2 ... r_j)
    gap = sp.Symbol("g", nonnegative=True)  # alpha_(k-1) - alpha_k
    steps.append(("r_2 ... r_j = e^(alpha_j) when alpha_1 = 0", sp.simplify(logs - a[j]) == 0))
    steps.append(("0 < r_k <= 1 when alpha_k <= alpha_(k-1)",
                  bool(sp.exp(-gap).is_positive) and sp.exp(-gap).subs(gap, 0) == 1
                  and bool(sp.diff(sp.exp(-gap), gap).is_negative)))  # decreasing from 1 at g = 0
    return steps


def _judge_permutation(case: Case, constants: Constants) -> Outcome:
    return _steps_outcome(case, permutation_steps())


def _steps_outcome(case: Case, steps: list[tuple[str, bool]]) -> Outcome:
    failed = [text for text, ok in steps if not ok]
    detail = (f"SymPy verified {len(steps)} steps: " + "; ".join(text for text, _ in steps)
              if not failed else "NOT verified: " + "; ".join(failed))
    return Outcome(case.label, not failed, None, Evidence.SYMBOLIC, detail)


def _judge_invariance(case: Case, constants: Constants) -> Outcome:
    return _steps_outcome(case, invariance_steps())


def _judge_reduction(case: Case, constants: Constants) -> Outcome:
    return _steps_outcome(case, reduction_steps())


EVERY_D = Region.of(d=at_least(2))
PROOF = (
    Obligation("lemma-symmetry", "one population gradient step from background-symmetric parameters "
               "keeps them background-symmetric", EVERY_D, Discharge.EITHER,
               uses=("lemma-symmetry.proof", "lemma-symmetry.numeric")),
    Obligation("lemma-symmetry.proof", "the transposition argument, each step by SymPy from the model",
               EVERY_D, Discharge.SYMBOLIC, ("lemma-symmetry.invariance",), where="proofs/lemma-symmetry.md"),
    Obligation("lemma-symmetry.numeric", "the partials agree at random symmetric points (general engine; "
               "exact enumeration at d <= 4)", EVERY_D, Discharge.NUMERIC,
               ("lemma-symmetry.step", "lemma-symmetry.enumeration"), where="proofs/lemma-symmetry.md"),
    Obligation("lemma-symmetry.reduction", "at background-symmetric parameters the loss and every "
               "per-coordinate partial are the four-scalar reduction's", EVERY_D, Discharge.SYMBOLIC,
               ("lemma-symmetry.reduction",), uses=("lemma-symmetry",),
               where="proofs/lemma-symmetry.md, 'The four-scalar reduction'"),
    # used by the cube and cone certificates of Propositions 2 and 3 (their enclosures over the
    # closed cube, faces r_k = 0 included, are the checker's: proofs/checker.md section 15)
    Obligation("lemma.ratio-cube", "up to a permutation of the symbols and a shift, every attention "
               "is a point of (0, 1]^(d-1) in the closed cube of successive ratios, and the loss "
               "for the permuted target is unchanged (the population sum reindexed: standard)",
               EVERY_D, Discharge.SYMBOLIC, ("lemma-symmetry.permutation",),
               where="proofs/prop3.md, 'The compact parameter space'"),
)

RESULT = Result(
    id="lemma-symmetry",
    name="Lemma (A.7, symmetry)",
    short="A population gradient step keeps the background symmetric",
    statement="one population GD step from background-symmetric parameters stays symmetric",
    hypotheses="alpha_i = alpha_j and beta_i = beta_j for background i, j; any step sizes",
    constants=(),
    document="proofs/lemma-symmetry.md",
    proof=PROOF,
    checks=(
        Check("lemma-symmetry.invariance", "A.7 lemma (proof)",
              "the word law is invariant under a transposition of two background symbols and, at "
              "its fixed points, each per-word partial in one equals the transposed word's partial "
              "in the other: so the population partials agree (every d, SymPy)",
              Evidence.SYMBOLIC, single_case("every d >= 2, every word"), _judge_invariance),
        Check("lemma-symmetry.reduction", "A.7 (the four-scalar reduction)",
              "at background-symmetric parameters model (1) is beta_j + (beta_s - beta_j) gamma_s, and "
              "the reduction's partials satisfy the shift and Euler identities (each background "
              "partial is the tied one over d - 1)",
              Evidence.SYMBOLIC, single_case("every d >= 2"), _judge_reduction),
        Check("lemma-symmetry.permutation", "every attention on the cube of successive ratios",
              "the word law and the loss are invariant under every permutation of the symbols (the "
              "target's with them) and the output under every shift of the logits; sorted and "
              "shifted, every alpha has successive ratios r_k in (0, 1] (every d, SymPy)",
              Evidence.SYMBOLIC, single_case("every d >= 2, every word"), _judge_permutation),
        Check("lemma-symmetry.step", "A.7 lemma",
              "every per-coordinate partial (general engine) equals the symmetric engine's scalar "
              "for its role, so alpha'_i = alpha'_j, beta'_i = beta'_j after one step",
              Evidence.NUMERIC, _cases, _judge),
        Check("lemma-symmetry.enumeration", "A.7 lemma (exchangeability)",
              "background partials agree in exact enumeration over count vectors",
              Evidence.NUMERIC, _enum_cases, _judge_enumeration),
    ),
)
