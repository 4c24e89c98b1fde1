"""The registry's outcome for the lemma for every real d >= D0 (:mod:`verify.certify.large_d`):
the committed certificate (or one computed now) rechecked by the engine and judged by the
independent checker; where the lemma does not close, a counterexample search at points.

Kept apart from the lemma's module so that the certificates' fingerprint (certify/large_d.py
and what it imports) covers the code that writes and rechecks them and not the checker that
judges them: a change to the checker leaves the committed certificates current.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

from flint import arb

from ..checks import Case, Evidence, Outcome
from ..engine.certified.balls import outward, precision
from . import large_d as lemma
from . import plan_range
from .groups import GROUPS as CLAIM_GROUPS
from .verdicts import Checker, Route


def committed(group: str) -> Path:
    return lemma.CERTIFICATES / f"{group}.json"


def judge(group: str, case: Case, constants) -> Outcome:
    """The lemma for every d >= D0: SymPy's steps, the engine's constants, and the certificate
    (the committed one when the constants it reads are the run's, else one computed now)
    rechecked by the engine and by the independent checker; passes only when all hold.  When
    the lemma does not close, the claims' exact margins at a few points of the range decide
    between a counterexample (FAIL) and an open proof (undecided)."""
    from ..checker import recheck as checker

    prefix = lemma.GROUPS[group]
    values = {key: constants[key] for key in lemma.READS[prefix]}  # the constants the claim reads
    every = getattr(constants, "untracked", lambda: constants)()
    path, data, origin = committed(group), None, "computed now"
    if path.is_file():
        try:
            data = json.loads(path.read_text())
            same = all(Fraction(data["constants"][key]) == v for key, v in values.items()) \
                and 1 + 1 / Fraction(float.fromhex(data["root"][1])) <= lemma.D0
        except (OSError, ValueError, KeyError, TypeError, IndexError, ZeroDivisionError,
                AttributeError) as exc:
            return Outcome(case.label, False, None, Evidence.CERTIFIED,
                           f"committed certificate certificates/{path.name} INVALID: {exc!r}")
        data, origin = (data, f"certificates/{path.name}") if same else \
            (None, f"computed now (certificates/{path.name} holds other constants or starts "
                   f"above d = {lemma.D0:g})")
    if data is None:
        data = lemma.certificate(group, every)
    engine = lemma.recheck(data)
    p0 = float.fromhex(data["root"][1])
    with precision(lemma.BITS):
        found = lemma.bounds(p0, prefix, values)
    margin = min(float(outward(found[c])[0]) for c in lemma.CLAIMS[prefix])
    head = (f"{lemma.statement(group, p0, every)} (perturbation lemma, proofs/large-d.md: "
            f"{engine.steps} SymPy steps, constants in Arb balls: K = C kappa_min = "
            f"{float(found['K'].mid()):.4g}, theta = {float(found['theta'].mid()):.3g}); "
            f"certificate {origin}")
    d0 = float(1 + 1 / Fraction(p0))
    u = float(every["thm2.eta1_scale"])
    done = {"range": (f"every real d ≥ {d0:.6g}".replace("e+0", "e").replace("e+", "e")
                      + f", ε ∈ (0, 1), every η₁ ∈ (0, {'' if u == 1 else f'{u:g}'}√d] and η₂ ≥ "
                      "its minimum"), "d_lo": d0, "d_hi": math.inf, "eps_lo": 0.0, "eps_hi": 1.0,
            "u_lo": 0.0, "u_hi": u, "v_lo": 0.0, "v_hi": 1.0, "eta3": 1.0,
            "route": (Route.RE_JUDGED if origin.startswith("certificates/") else Route.ROOT).value}
    if engine.disagreements:
        what = (f"INVALID: {origin} fails the engine's recheck (or the engine changed)"
                if origin.startswith("certificates/") else "the certificate fails its recheck")
        return Outcome(case.label, False, None, Evidence.CERTIFIED,
                       f"{head}; {what}: {engine.disagreements[0]}",
                       margin_kind="difference", values=done)
    if engine.open:
        witness = counterexample(prefix, 1 + 1 / Fraction(p0), every)
        text = f"the lemma does not close ({engine.open[0]})"
        if witness:
            return Outcome(case.label, False, witness[1], Evidence.CERTIFIED,
                           f"{head}; {text}; COUNTEREXAMPLE: {witness[0]}",
                           margin_kind="difference", values=done)
        return Outcome(case.label, None, None, Evidence.CERTIFIED,
                       f"{head}; {text}, and no exact margin below 0 at the points tried",
                       margin_kind="difference", values=done)
    try:
        problems = checker.check(checker.read(data)).problems
    except checker.NotACertificate as exc:
        problems = [f"the checker cannot read it: {exc}"]
    if problems:
        return Outcome(case.label, False, margin, Evidence.CERTIFIED,
                       f"{head}; the independent checker REJECTS it: {problems[0]}",
                       margin_kind="difference", values={**done, "checker": Checker.REJECTED.value})
    return Outcome(case.label, True, margin, Evidence.CERTIFIED,
                   f"{head}; rechecked by the engine and checked independently (verify/checker: "
                   f"its own bounds over the root, the anchors agree at d = "
                   f"{data['anchors']['d']})", margin_kind="difference",
                   values={**done, "checker": Checker.ACCEPTED.value})


WITNESS_EPS = (0.99, 0.5, 0.01, 1e-6)


def counterexample(prefix: str, d: Fraction, constants) -> tuple[str, float] | None:
    """A point (d, eps, u = eta1_scale, v = 1) of the range where an exact margin's enclosure
    lies below 0 (the final loss after exactly T = ceil(T_low) steps; for Theorem 2 also the
    contraction, distance and delta of the four-axis pipeline on a tiny box), or None."""
    group = f"{prefix}-4d"
    u = outward(lemma._ball(constants["thm2.eta1_scale"]))[0]  # <= eta1_scale: inside the hypotheses
    ln_d = math.log(float(d))
    while not arb(ln_d).exp() >= lemma._ball(d):  # every d of the point's ball inside the range
        ln_d = math.nextafter(ln_d, math.inf)
    for eps in WITNESS_EPS:
        x = (ln_d, math.log(eps), u, 1.0)
        found = {}
        final = plan_range.exact_final_margin(group, x, constants, lemma.BITS)
        if final is not None:
            found[CLAIM_GROUPS[group].final] = final
        if prefix == "thm2":
            box = (x[0], math.nextafter(x[0], math.inf), x[1], math.nextafter(x[1], math.inf),
                   math.nextafter(u, 0), u, math.nextafter(1.0, 0), 1.0)
            try:
                enclosed = plan_range.box_margins(group, box, constants, 96)[0] or {}
            except (ArithmeticError, ValueError, ZeroDivisionError):
                enclosed = {}
            found.update({c: m for c, m in enclosed.items() if c not in CLAIM_GROUPS[group].one_sided})
        for claim, m in found.items():
            if m < 0:
                return (f"{claim} at d = {float(d):.6g}, eps = {eps:g}, eta1 = {u:g} sqrt(d), "
                        f"eta2 = eta2_min: margin {m.str(6)} (a ball below 0)",
                        float(m.upper()))
    return None
