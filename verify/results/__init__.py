"""The paper's results, one module each, registered here in the paper's order."""
from __future__ import annotations

from typing import Sequence

from ..checks import Check, Result
from ..ledger import Obligation
from . import contrast, cor1, experiments, lemma_low_attention, lemma_symmetry, prop1, prop2, prop3, prop4, thm1, thm2
from .lemmas import LEMMAS

REGISTRY: tuple[Result, ...] = (
    prop1.RESULT,
    prop2.RESULT,
    prop3.RESULT,
    prop4.RESULT,
    lemma_low_attention.RESULT,
    thm1.RESULT,
    thm2.RESULT,
    cor1.RESULT,
    lemma_symmetry.RESULT,
    contrast.RESULT,
)

# Section 5's claims about the experiments (seeded training runs, statistical evidence): run by
# `verify check experiments` and reported beside Table 1, not by `verify all`, whose report is
# about the theorems' statements.
EXPERIMENTS: tuple[Result, ...] = (experiments.RESULT,)


# check ids renamed, old -> new: `verify check OLD` (and every id list) still finds the check
RENAMED: dict[str, str] = {
    "prop2.certified_floor": "prop2.certified_value",  # a value at one alpha bounds inf from above
    "lemma-low-attention.certified_floor": "lemma-low-attention.certified_ceiling",  # an upper end
    "thm1.certified_floor": "thm1.certified_value",  # a value at thm1.floor's point: no floor
}


def current_ids(ids: Sequence[str]) -> list[str]:
    """``ids`` with every renamed check id (:data:`RENAMED`) replaced by its current one."""
    return [RENAMED.get(i, i) for i in ids]


def by_id(result_id: str) -> Result:
    for result in REGISTRY + EXPERIMENTS:
        if result.id == result_id:
            return result
    raise KeyError(result_id)


def check(check_id: str) -> Check:
    """The registered check with id ``check_id`` (the registry's results and the experiments'
    claims): its ``judge`` and ``cases`` are what ``verify check`` runs.  An unknown id (a
    renamed one too: see :data:`RENAMED`) raises ``KeyError`` naming it."""
    for result in REGISTRY + EXPERIMENTS:
        for found in result.checks:
            if found.id == check_id:
                return found
    raise KeyError(check_id)


def select(ids: Sequence[str] | None = None) -> list[Result]:
    """The results of ``verify all`` (the registry), or those named (a result id or a check id,
    the experiments' claims included, a renamed check by its old id too); an unknown id raises
    ``KeyError`` naming it."""
    if not ids:
        return list(REGISTRY)
    ids = current_ids(ids)
    known = REGISTRY + EXPERIMENTS
    chosen = [r for r in known if r.id in ids or any(c.id in ids for c in r.checks)]
    unknown = set(ids) - {r.id for r in known} - {c.id for r in known for c in r.checks}
    if unknown:
        raise KeyError(", ".join(sorted(unknown)))
    return chosen


def proof_graph(results: Sequence[Result] = REGISTRY) -> dict[str, Obligation]:
    """Every obligation of the results' proofs and of the engine's lemmas, by id (the proof
    ledger; a result's statement is the node with its id)."""
    graph = {ob.id: ob for ob in LEMMAS}
    for result in REGISTRY:  # a node may use another result's: the graph holds them all
        graph.update((ob.id, ob) for ob in result.proof)
    return graph
