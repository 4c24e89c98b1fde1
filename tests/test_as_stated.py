"""The statements as the paper words them (verify/ledger/stated.py): where the text lost a
constant and says only "there is c > 0" or "O(sqrt(d)) heads", a second node per result holds the
existential statement, composed like any other from the checks on its path; the report and
`verify ledger` show its verdict beside the configured constant's."""
import json

from verify.cli import main
from verify.ledger import CheckFacts, Region, at_least, between, points
from verify.ledger.stated import as_stated, integers_from
from verify.report import proof_ledger
from verify.results import REGISTRY, proof_graph

NAMED = ("prop3", "prop4", "contrast")


def passing_run(**changes: CheckFacts) -> dict[str, CheckFacts]:
    """Every registered check passes (the certified ones as declared), then ``changes``."""
    run = {c.id: CheckFacts("pass") for r in REGISTRY for c in r.checks}
    return {**run, **changes}


def stated(run=None) -> dict:
    return proof_ledger.stated_verdicts(proof_graph(), REGISTRY, run)


def test_the_existential_statements_are_proved_for_every_integer_d_as_declared():
    found = stated()
    assert set(found) == set(NAMED)  # the other results have one statement
    assert found["prop3"].text == "proved for every integer d ≥ 3"
    assert found["prop4"].text == "proved for every integer d ≥ 3"
    # the contrast only below eps0, the smallest floor constant (at eps = 1/2 the output-only floor
    # at alpha = 0, 0.29 at d = 9, is below eps: the separation is false there)
    assert found["contrast"].text.startswith("proved for every integer d ≥ 9, ε ∈ (0, 1)")
    assert found["contrast"].text.endswith("ε/ε₀ ∈ (0, 1)")
    configured = proof_ledger.verdicts(proof_graph(), REGISTRY, None)
    assert configured["prop3"].category == "proved in part" and configured["prop4"].category == "supported"


def test_each_reading_names_its_constant_and_its_uses():
    graph = proof_graph()
    assert graph[as_stated("prop3")].uses == ("prop3", "prop3.every-d")
    assert "c = min(prop3.c2, prop3.c2_every_d), not prop3.c2 itself" in graph[as_stated("prop3")].claim
    assert "min(head_factor, head_factor_every_d)" in graph[as_stated("prop4")].claim
    assert graph["prop4.one-head"].uses == (as_stated("prop3"),)
    assert set(graph[as_stated("contrast")].uses) == {"thm2", "prop2", as_stated("prop3"),
                                                      as_stated("prop4"), "thm1"}


def test_a_failed_every_d_check_leaves_proposition_3_4_and_the_contrast_unproved_as_stated():
    """The mutation: Proposition 3's every-d proof red (as under prop3.c2_every_d = 1/50) leaves
    the configured cube at d = 3, 4, 5 (the ledger's alternatives: the failed one drops out;
    the row itself shows the failing check first)."""
    found = stated(passing_run(**{"prop3.every_d": CheckFacts("FAIL")}))
    assert found["prop3"].text == ("proved for d ∈ {3, 4, 5} (stated: every integer d ≥ 3); "
                                   "searched at points (prop3.search)")
    assert found["prop4"].category == "proved in part"  # its one-head case is Proposition 3's
    assert found["contrast"].category == "supported"


def test_proposition_4_as_stated_needs_both_its_head_bound_and_the_one_head_case():
    found = stated(passing_run(**{"prop4.every_d": CheckFacts("FAIL")}))
    assert found["prop4"].text == "supported: searched at points (prop4.search)"
    assert found["prop3"].category == "proved"
    cube = CheckFacts("pass", ((Region.of(d=points(3)), False),))
    found = stated(passing_run(**{"prop3.all_attention": cube, "prop3.sharp": cube}))
    assert found["prop4"].category == "proved in part"  # H = 1 at d = 3 rests on the engine


def test_a_cube_the_checker_did_not_accept_leaves_d_3_engine_only():
    """The cube at d = 3 engine only and the sharp constant red: the existential Proposition 3
    is proved from d = 4 (the cube covers 4 and 5, the every-d route the rest); with the sharp
    constant (checker-read as declared) d = 3 is proved again."""
    cube = CheckFacts("pass", ((Region.of(d=points(3)), False), (Region.of(d=points(4)), True),
                               (Region.of(d=points(5)), True)))
    found = stated(passing_run(**{"prop3.all_attention": cube, "prop3.sharp": CheckFacts("FAIL")}))
    assert found["prop3"].category == "proved in part"
    assert found["prop3"].text.startswith("proved for every integer d ≥ 4 (stated: every integer d ≥ 3)")
    assert "d = 3: certified, engine only (prop3.cube)" in found["prop3"].text
    assert stated(passing_run(**{"prop3.all_attention": cube}))["prop3"].category == "proved"


def test_range_words_say_every_integer_only_for_the_integers():
    assert proof_ledger.range_words(Region.of(d=integers_from(3))) == "every integer d ≥ 3"
    assert proof_ledger.range_words(Region.of(d=at_least(3))) == "d ≥ 3"
    assert proof_ledger.range_words(Region.of(d=points(3, 4))) == "d ∈ {3, 4}"
    assert proof_ledger.range_words(Region.of(d=integers_from(9), eps=between(0, 1, True, True))) \
        == "every integer d ≥ 9, ε ∈ (0, 1)"
    assert proof_ledger.range_words(Region.of(eps=between(0, 1, True, True))) == "ε ∈ (0, 1)"
    assert proof_ledger.range_words(Region.of(d=at_least(1e9))) == "d ≥ 10⁹"  # a real range stays one
    assert integers_from(12) == at_least(12) and integers_from(9) == points(9).union(at_least(10))
    # a union that is not every integer from its first point keeps its points (no substring patching)
    text = "proved for d ∈ 3 ∪ 4 ∪ 5 ∪ 6 ∪ 7 ∪ 8 ∪ 9 ∪ ≥ 100 (stated: d ∈ 3 ∪ 4 ∪ 5 ∪ 6 ∪ 7 ∪ 8 ∪ 9 ∪ ≥ 10)"
    assert proof_ledger.integer_words(text) == ("proved for d ∈ 3 ∪ 4 ∪ 5 ∪ 6 ∪ 7 ∪ 8 ∪ 9 ∪ ≥ 100 "
                                                "(stated: every integer d ≥ 3)")
    assert proof_ledger.integer_words("d ∈ 3 ∪ 5 ∪ ≥ 10") == "d ∈ 3 ∪ 5 ∪ ≥ 10"


def test_verify_ledger_prints_both_readings_and_both_counts(capsys):
    assert main(["ledger", "prop3"]) == 0
    out = capsys.readouterr().out
    assert "prop3, as the paper states it: proved for every integer d ≥ 3" in out
    assert "prop3.as-stated: proved" in out and "  prop3: (above)" in out
    assert main(["ledger"]) == 0
    out = capsys.readouterr().out
    assert "As the paper states them (their lost constants existential): 9 of 10" in out
    assert main(["ledger", "prop4", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["results"]["prop4"]["as_stated"]["verdict"] == "proved"
    assert {"prop4.as-stated", "prop4.one-head", "prop3.as-stated"} <= set(data["nodes"])


def test_the_summary_row_and_the_headline_show_both_readings():
    from verify.checks import Check, Evidence, Outcome, Result
    from verify.ledger import Discharge, Obligation
    from verify.report.summary import headline, summary_rows
    from verify.run.runner import CheckReport

    search = Check("x.search", "X", "claim", Evidence.SEARCH, lambda *a: [], lambda *a: None)
    step = Check("x.step", "X (every d)", "claim", Evidence.SYMBOLIC, lambda *a: [], lambda *a: None)
    result = Result("x", "X", "s", "h", (), checks=(search, step))
    graph = {"x": Obligation("x", "with the configured c", Region.of(d=at_least(3)), Discharge.SEARCH,
                             ("x.search",)),
             as_stated("x"): Obligation(as_stated("x"), "there is c > 0", Region.of(d=integers_from(3)),
                                        Discharge.SYMBOLIC, ("x.step",))}

    def reports(step_passes: bool) -> list:
        return [CheckReport(result, search, [Outcome("d=3", True, 2.0, Evidence.SEARCH, "")]),
                CheckReport(result, step, [Outcome("all d", step_passes, None, Evidence.SYMBOLIC, "")])]

    (row,) = summary_rows(reports(True), [result], graph)
    assert row["verdict"] == ("supported: searched at points (x). As the paper states it, a lost "
                              "constant existential (there is c > 0): proved for every integer d ≥ 3")
    assert row["as_stated"] == {"category": "proved", "text": "proved for every integer d ≥ 3",
                                "reading": "there is c > 0"}
    text = headline(reports(True), [result], None, graph)
    assert text.startswith("Results: 0 of 1 proved over their whole stated range, 0 over part of it, "
                           "1 supported only. Read as the paper states them, their lost constants "
                           "existential and smaller (X; each row names the smaller constants): 1 of 1 "
                           "proved over their whole stated range")
    (row,) = summary_rows(reports(False), [result], graph)  # a failing check: no second reading
    assert row["category"] == "failed" and "as_stated" not in row and "As the paper" not in row["verdict"]
    assert "Read as the paper" not in headline(reports(False), [result], None, graph)


def test_one_head_is_model_1_so_proposition_4_at_h_1_is_proposition_3():
    """prop4.one-head's step, on the engine: with H = 1 the multi-head moments (Q, m_s) are the
    single-head ones (M, m_s), so L_s(B) is Proposition 3's L_s(alpha, beta) with beta = B."""
    import numpy as np

    from verify.engine import general
    from verify.engine.general.heads import head_moments_float

    rng = np.random.default_rng(7)
    for d in (3, 4):
        alpha = rng.normal(0, 1.5, d)
        M, P = general.target_moments_float(d, alpha)
        for s in range(d):
            Q, m, _ = head_moments_float(d, s, [alpha])
            assert np.allclose(Q, M, rtol=1e-7, atol=1e-10) and np.allclose(m, P[:, s], rtol=1e-7, atol=1e-10)


def test_the_ball_only_raises_the_one_head_floor():
    """prop4.one-head's second step: at H = 1 the floor over ||B||_F <= R is at least
    Proposition 3's floor (the infimum over every beta), target by target, and equals it once
    the ball holds Proposition 3's minimiser."""
    import numpy as np

    from verify.results import prop3, prop4

    rng = np.random.default_rng(11)
    for d in (3, 5):
        alpha = rng.normal(0, 1.5, d)
        free = prop3.floors_float(d, alpha)
        for R in (0.5, d ** 0.25, 1e6):
            ball = prop4.floors(d, 1, alpha, R)
            assert np.all(ball >= free - 1e-9), (d, R)
        assert np.allclose(prop4.floors(d, 1, alpha, 1e6), free, atol=1e-7)
