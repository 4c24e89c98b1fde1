"""The engine's own lemmas, as nodes of the proof ledger (no checks of their own).

A certificate the independent checker accepts rests on the checker's trusted base
(proofs/checker.md, section 9), not on these: its node is proved where the checker accepted it.
A certificate only the engine judged rests on them as well (each is an argument written in
proofs/ and tested against quadrature, not machine-checked): the ledger shows such a piece as
"certified, engine only", a level below a hand proof.  (The reduction of every attention to
the cube of successive ratios, which the checked cube and cone certificates of Propositions 2
and 3 use, is ``lemma.ratio-cube``: proved by SymPy in :mod:`verify.results.lemma_symmetry`.)
"""
from __future__ import annotations

from ..ledger import Discharge, Obligation, Region, at_least

EVERY_D = Region.of(d=at_least(2))

LEMMAS: tuple[Obligation, ...] = (
    Obligation("lemma.tail-bound", "beyond the cut T each symmetric moment integral is at most "
               "K_r Gamma(r, cT)/c^r (the Arb balls of the four-scalar engine)", EVERY_D,
               Discharge.HAND, where="proofs/tail-bound.md"),
    Obligation("lemma.centred-form", "a margin over a box lies in its value at the centre plus its "
               "gradient's enclosure times the box (mean-value form), and the smooth forms of the "
               "claims bound them where their conditions are proved", EVERY_D, Discharge.HAND,
               where="proofs/centred-form.md"),
    Obligation("lemma.monotone-steps", "more Phase-3 steps never raise the loss when every "
               "|1 - eta3 lambda_i| <= 1, so a bound at T_low holds for every integer T >= T_low",
               EVERY_D, Discharge.HAND, where="proofs/monotonicity.md"),
    Obligation("lemma.eps-tail", "in tau = 1/(1 - ln eps) every term that grows or vanishes with "
               "1/eps is a flat exponential of tau, with the limit eps -> 0 at tau = 0", EVERY_D,
               Discharge.HAND, where="proofs/hypothesis-range.md section 9"),
    Obligation("lemma.certified-general", "the general engine's Arb moments: the head and tail "
               "bounds, the Gauss-Legendre error bound, the floors over a box", EVERY_D,
               Discharge.HAND, where="proofs/certified-general.md"),
)
