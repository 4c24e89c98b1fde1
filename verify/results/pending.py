"""Results registered with their reconstructed statements but no checks yet: the report lists
them as "not checked yet", never as passed."""
from __future__ import annotations

from ..checks import Result

BEFORE_THM2 = (
    Result("prop3", "Proposition 3", "for every fixed attention alpha some s has inf_beta L_s >= c2",
           "d >= 2; constant c2 lost", ("prop3.c2",), document="proofs/prop3.md"),
    Result("prop4", "Proposition 4", "H = O(sqrt d) heads, fixed attention, ||B||_F <= d^(1/4): some s has L_s >= c4",
           "constant c4 and the head bound lost", ("prop4.c4",), document="proofs/prop4.md"),
    Result("lemma-low-attention", "Lemma (A.5)", "some s has sum_h E[(gamma_s^(h))^2] <= H/d",
           "any attention alpha^(1..H)", (), document="proofs/lemma-low-attention.md"),
)
