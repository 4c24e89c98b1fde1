"""The proof ledger's vocabulary: an obligation of a result's proof and how it is discharged.

Each result of the paper declares its proof as a graph of :class:`Obligation` s (its ``proof``):
the statement (the node whose id is the result's id), the steps of proofs/<result>.md, the lemmas
they use (the symmetry lemma, the four-scalar reduction, the tail and quadrature bounds), and
every step the paper's text lost as an explicit ``OPEN`` node.  A node names what discharges it
(:class:`Discharge`), the checks that do so, the range it claims (:class:`~.region.Region`) and
the nodes it uses.  Ids are global, so a result may use another result's node (the contrast
uses the four theorems) without importing it.  :mod:`.compose` turns a run's outcomes into each
node's standing; a result is proved over a range only when every node on its path is.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .region import Region


class Discharge(str, Enum):
    """What discharges an obligation (a leaf's kind; ``FOLLOWS`` and ``EITHER`` compose)."""

    SYMBOLIC = "symbolic"  # SymPy derives it for the whole region (its checks)
    CERTIFIED = "certified"  # an Arb certificate; proved when the independent checker accepts it
    HAND = "hand proof"  # an argument written in proofs/ and tested, not machine-checked
    NUMERIC = "numeric"  # values with error estimates at points
    STATISTICAL = "statistical"  # a test on seeded samples
    SEARCH = "search"  # a seeded search found no counterexample
    OPEN = "open"  # lost in the text and not reconstructed: nothing discharges it
    FOLLOWS = "follows"  # holds wherever all of its uses hold (the argument is in its document)
    EITHER = "either"  # holds wherever one of its uses holds (alternative proofs, or cases)


CHECKED = (Discharge.SYMBOLIC, Discharge.CERTIFIED, Discharge.NUMERIC, Discharge.STATISTICAL,
           Discharge.SEARCH)  # kinds a check discharges (they need check ids)


@dataclass(frozen=True)
class Obligation:
    """One node of a proof: ``claim`` in words over ``region``, discharged by ``discharge``
    through ``checks`` (for the checked kinds), resting on the nodes ``uses``.

    ``checker`` says, for a certified node, whether the independent checker (verify/checker)
    reads its certificates: a run confirms it case by case, and a certificate it does not
    check is "certified, engine only", never counted as proved.  ``where`` points to the
    argument (``proofs/thm2.md step 4``)."""

    id: str
    claim: str
    region: Region
    discharge: Discharge
    checks: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    where: str = ""
    checker: bool = False

    def problems(self) -> list[str]:
        """What makes the node ill-formed (a checked kind without checks, checks on a kind
        no check discharges, a composition without uses)."""
        out = []
        if self.discharge in CHECKED and not self.checks:
            out.append(f"{self.id}: discharged by {self.discharge.value} but names no check")
        if self.discharge not in CHECKED and self.checks:
            out.append(f"{self.id}: {self.discharge.value} names checks {self.checks}")
        if self.discharge in (Discharge.FOLLOWS, Discharge.EITHER) and not self.uses:
            out.append(f"{self.id}: {self.discharge.value} without uses")
        if self.checker and self.discharge is not Discharge.CERTIFIED:
            out.append(f"{self.id}: only a certified node is read by the checker")
        return out
