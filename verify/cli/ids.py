"""Every id `verify check` accepts, known without importing the results: an unknown id is
refused in a fraction of a second instead of after the engine has loaded (16 s on a loaded
machine).  Kept equal to the registry (:mod:`verify.results`) by
tests/test_cli.py::test_the_id_index_is_the_registry, which prints the lines to paste when a
check is added or renamed."""

RESULTS = (
    "prop1",
    "prop2",
    "prop3",
    "prop4",
    "lemma-low-attention",
    "thm1",
    "thm2",
    "cor1",
    "lemma-symmetry",
    "contrast",
    "experiments",
)

CHECKS = (
    "prop1.certified_box",
    "prop1.bound",
    "prop1.general",
    "prop1.long_words",
    "prop1.long_contribution",
    "prop1.short_attention",
    "prop1.short_loss",
    "prop1.tightness",
    "prop2.negative_mass",
    "prop2.large_output",
    "prop2.large_output_search",
    "prop2.floor",
    "prop2.all_parameters",
    "prop2.certified_value",
    "prop3.uniform",
    "prop3.uniform_symbolic",
    "prop3.floor",
    "prop3.all_attention",
    "prop3.sharp",
    "prop3.certified_floor",
    "prop4.floor",
    "prop4.certified_floor",
    "lemma-low-attention.per_word",
    "lemma-low-attention.bound",
    "lemma-low-attention.certified_ceiling",
    "thm1.insertion_ratio",
    "thm1.appearance",
    "thm1.long_negative_mass",
    "thm1.rho_bound",
    "thm1.chain",
    "thm1.large_output",
    "thm1.floor",
    "thm1.certified_floor",
    "thm2.certified_box",
    "thm2.hypotheses",
    "thm2.final",
    "thm2.beta1_range",
    "thm2.beta1_range_corrected",
    "thm2.contraction",
    "thm2.initial_distance",
    "thm2.optimum",
    "thm2.delta",
    "thm2.T_chain",
    "thm2.tightness_eta2",
    "thm2.tightness_T",
    "cor1.certified_box",
    "cor1.population",
    "cor1.samples",
    "cor1.sample_C",
    "cor1.sample_sweep",
    "lemma-symmetry.step",
    "lemma-symmetry.enumeration",
    "contrast.separation",
    "experiments.joint_accuracy",
    "experiments.three_phase",
    "experiments.simple_plans",
    "experiments.attention_lags",
)

# renamed check ids, old -> new (verify.results.RENAMED)
RENAMED = {
    "prop2.certified_floor": "prop2.certified_value",
    "lemma-low-attention.certified_floor": "lemma-low-attention.certified_ceiling",
}

KNOWN = frozenset(RESULTS + CHECKS) | frozenset(RENAMED)
