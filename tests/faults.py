"""The fault table (docs/faults.md): faults planted in engine code that several routes share.

Each row is one wrong formula or one wrong enclosure in the engine (the SymPy reduction, the word
law, a moment family, a quadrature bound, an Arb ball, the Phase-3 solve, the ratio strata), the
engine function it sits in, and the symbolic or certified checks that must turn red under it.
tests/test_faults.py asserts each of those (one test per row and check); tests/fault_sweep.py runs
the whole quick profile under each fault and writes the table's last column (every check of the
profile the fault turns red) into docs/faults.md.

The injections are the ones the mutation tests already plant (tests/test_mutations.py, the
engine faults of the certified checks; tests/test_checker.py, the faults the independent checker
must reject); this module names them, says where each sits, and binds each to its catchers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import test_mutations as tm
from test_mutations import Mutation


@dataclass(frozen=True)
class Fault:
    name: str
    where: str  # the engine function the fault is planted in
    what: str  # the wrong formula or enclosure, in words
    shared_by: str  # the routes that read that code
    patch: Callable  # patch(monkeypatch)
    caught_by: dict[str, dict]  # symbolic or certified check -> how its cases are cut down
    gap: str = ""  # why the checks it should turn red do not (yet): an open defect, not a pass

    def mutation(self, check_id: str) -> Mutation:
        """The fault as a mutation of one of its catching checks (tests/test_mutations.py)."""
        return Mutation(self.name, patch=self.patch, **self.caught_by[check_id])


def _phase3_weights_skip_background(mp):  # wherever the shared Phase-3 solve is bound
    import verify.certify.centred as centred
    import verify.certify.plan_range as plan_range
    right = centred.phase3_weights
    for module in (centred, plan_range):
        mp.setattr(module, "phase3_weights",
                   lambda A, e, d, metric=False: right(A, (e[0], 0 * e[1]), d, metric))


def _phase3_fault_on_the_certified_route(mp):
    """The Phase-3 fault where the default profile meets it: each quick box of the four-axis
    groups gets a certificate written by the clean engine (as `verify certify` commits one),
    and the case's ``engine_sample`` (the row's params) sends it on the default route (the checker decides over every leaf, the engine re-judges
    a sample and compares its values at the leaves' centres with the checker's); then the fault
    is planted."""
    import json
    import tempfile
    from pathlib import Path

    from verify.certify import boxes, certificate, outcomes
    from verify.checks import Profile
    from verify.constants import load, values

    constants = values(load())
    folder = Path(tempfile.mkdtemp(prefix="faults-")) / "certificates"
    folder.mkdir()
    for group in ("thm2-4d", "cor1-4d"):
        case = outcomes.certified_cases(group, Profile.QUICK, {})[0]
        root = outcomes.start_of(case, constants, seed=False).root
        run = boxes.branch_and_bound(case.params["group"], root, constants, outcomes.BITS,
                                     outcomes.MAX_DEPTH[case.params["group"]],
                                     max_boxes=case.params["boxes"])
        assert run.status is True
        (folder / f"{case.params['group']}-quick.json").write_text(
            json.dumps(certificate.certificate(run, constants)))
    mp.setattr(outcomes, "CERTIFICATES", folder)
    _phase3_weights_skip_background(mp)


SMALL_PROP2, SMALL_THM1 = tm.SMALL_PROP2, tm.SMALL_THM1
BOXES_50 = {"params": {"boxes": 50}}

FAULTS: list[Fault] = [
    Fault("reduction over d", "engine/symbolic.py: reduce_symmetric",
          "the four-scalar reduction's background partials divided by d, not d - 1",
          "the symmetric engine, the generated Arb code of the boxes, the plans",
          tm._background_over_d,
          {"lemma-symmetry.reduction": {}}),
    Fault("model bias flipped", "engine/symbolic.py: model_output",
          "the model's output beta.gamma + 1 (its bias -1 flipped) in the reduction",
          "every symmetric route (loss, gradient, the Phase-3 optimum)",
          tm._wrong_output_bias,
          {"thm2.optimum": {}}),
    Fault("word model biased", "engine/symbolic_word.py: word_output",
          "the per-word model (1) with bias -1/2 instead of -1",
          "Lemma A.7's symbolic proof, Proposition 1's per-word loss, Proposition 2's pairing",
          tm._biased_word_model,
          {"prop1.word_loss": {}, "prop2.every_d": {}}),
    Fault("word law tilted", "engine/symbolic_word.py: word_law",
          "the word law weighs one background symbol 2/d instead of 1/d",
          "Lemma A.7's symbolic proof (the law every population mean integrates against), "
          "Proposition 2's law of k given z",
          tm._tilted_word_law,
          {"lemma-symmetry.invariance": {}, "prop2.every_d": {}}),
    Fault("Phase-1 closed forms doubled", "engine/symbolic.py: three_phase_closed_forms",
          "the closed-form Phase-1 gradient at zero attention, twice its value",
          "the Phase-1 step of every plan route and the box claims",
          tm._doubled_phase1_closed_forms,
          {"thm2.beta1_range_corrected": {}}),
    Fault("moments of the wrong variable", "engine/expectations.py: moment_setup",
          "the moments of gamma_s served for those of 1 - gamma_s (and back)",
          "the mpmath moments, their Arb twin, the centred box route",
          tm._moments_of_the_wrong_variable,
          {"prop1.certified_box": BOXES_50}),
    Fault("positive moment off", "engine/general/kernels.py: mean_terms (through certified/general.py)",
          "E[gamma 1{y=+1}] multiplied by 1 + 2^-10 in the Arb backend",
          "the general engine's moments in float64, mpmath and Arb",
          tm._wrong_positive_moment,
          {"prop2.certified_value": {"params": SMALL_PROP2}, "prop4.certified_floor": {"params": {"budget": 4, "mpmath": False}}}),
    Fault("quadrature tail dropped", "engine/certified/general.py: cut_points, tail_bounds",
          "the integrals cut at t = 1 and their proven tail bound left out",
          "every Arb moment of the general engine",
          tm._dropped_tail,
          {"prop3.certified_floor": {"params": {"budget": 4}}}),
    Fault("quadrature head dropped", "engine/certified/general.py: cut_points, head_bounds",
          "the integrals start at t = p and their proven head bound is left out",
          "every Arb moment of the general engine",
          tm._dropped_head,
          {"lemma-low-attention.certified_ceiling": {"params": {"budget": 4}}}),
    Fault("Gauss error dropped", "engine/certified/gauss.py: gauss_1d (as bound in certified/general.py)",
          "the vector Gauss rule returns a midpoint rule with no error radius (a shrunken ball)",
          "every Arb quadrature of the general engine",
          tm._shrunken_enclosure,
          {"thm1.certified_value": {"params": SMALL_THM1}}),
    Fault("saturation ball wrong", "engine/certified/dual.py: saturating_exp",
          "the background weight e^(-G/v) enclosed as e^(-G v) (a wrong Arb ball)",
          "the 4-D boxes of Theorem 2 and Corollary 1, and their epsilon tails",
          tm._wrong_saturation,
          {"thm2.certified_box": BOXES_50, "cor1.certified_box": BOXES_50}),
    Fault("gap rate shrunk", "engine/certified/symmetric.py: arb_gap_rate_parts",
          "the Arb closed form of sqrt(d) r1 replaced by a point ball at 0.9 x its midpoint",
          "the 4-D boxes and the large-d lemma",
          tm._shrunk_gap_rate,
          {"thm2.large_d": {}, "cor1.large_d": {}}),
    Fault("ratio strata tail dropped", "engine/certified/ratios.py: tails, T_CUT",
          "the cube's stratified moments without their tail beyond t = 2",
          "the cubes and the cone of Propositions 2 and 3",
          tm._dropped_ratio_tail,
          {"prop2.all_parameters": {}, "prop3.all_attention": {}, "prop3.sharp": {}}),
    Fault("Phase-3 weights skip background", "certify/centred.py: phase3_weights",
          "the Phase-3 per-direction weights see only the target coordinate of beta' - beta*",
          "the 2-D boxes' and the 4-D boxes' Phase-3 decay",
          _phase3_fault_on_the_certified_route,
          # cor1.certified_box stays green under it at its quick box (measured): there the
          # fault moves cor1.population by less than the balls at the leaves' centres
          {"thm2.certified_box": {"params": {"engine_sample": 0.05}}}),
]
