"""The proof ledger: regions, the composition of standings, the registered proofs, the verdicts a
run gets, the `verify ledger` command and the blueprints."""
import json
import math

import pytest
from hypothesis import given, strategies as st

from verify.cli import main
from verify.ledger import (CheckFacts, Discharge, Level, Obligation, Piece, Region, at_least,
                           between, closed, evaluate, points, verdict)
from verify.ledger.compose import problems
from verify.ledger.region import Interval, covers, merge, span
from verify.report import blueprint, proof_ledger
from verify.results import REGISTRY, proof_graph

# -- regions ---------------------------------------------------------------------------------------

ends = st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 1))
intervals = st.builds(lambda a, b, lo, hi: Interval(min(a, b), max(a, b), lo, hi), ends, ends,
                      st.booleans(), st.booleans())


@given(intervals, intervals, ends)
def test_an_intersection_holds_a_point_iff_both_do(a, b, x):
    def inside(i: Interval, y: float) -> bool:
        return (i.lo < y or (i.lo == y and not i.lo_open)) and (y < i.hi or (y == i.hi and not i.hi_open))
    both = span([a]).intersect(span([b]))
    assert any(inside(p, x) for p in both.parts) == (inside(a, x) and inside(b, x))


@given(intervals, intervals)
def test_a_union_contains_both_parts(a, b):
    union = span([a]).union(span([b]))
    assert union.contains(span([a])) and union.contains(span([b]))


def test_a_box_and_its_eps_tail_cover_eps_in_0_to_0_99_and_no_more():
    box = Region.of(d=closed(3, 1e9), eps=closed(1e-6, 0.99))
    tail = Region.of(d=closed(3, 1e9), eps=between(0, 1e-6, lo_open=True))
    assert merge([box, tail])[0].text() == "d ∈ [3, 10⁹], ε ∈ (0, 0.99]"
    assert covers([box, tail], Region.of(d=closed(3, 100), eps=between(0, 0.99, lo_open=True)))
    assert not covers([box, tail], Region.of(d=at_least(3), eps=between(0, 1, True, True)))
    assert not covers([box], Region.of(d=closed(3, 100), eps=between(0, 0.99, lo_open=True)))
    assert Region.of(d=points(3, 4)).text() == "d ∈ {3, 4}"


# -- composition -----------------------------------------------------------------------------------

STATED = Region.of(d=at_least(3))


def toy(**changes) -> dict:
    """A statement proved by a symbolic step and a certified box (read by the checker) over
    d in [3, 100], with a numeric route over the whole range."""
    nodes = {
        "r": Obligation("r", "statement", STATED, Discharge.EITHER, uses=("r.proof", "r.points")),
        "r.proof": Obligation("r.proof", "the argument", STATED, Discharge.FOLLOWS, uses=("r.step", "r.box")),
        "r.step": Obligation("r.step", "a step", STATED, Discharge.SYMBOLIC, ("c.step",)),
        "r.box": Obligation("r.box", "a box", Region.of(d=closed(3, 100)), Discharge.CERTIFIED, ("c.box",),
                            checker=True),
        "r.points": Obligation("r.points", "values", STATED, Discharge.NUMERIC, ("c.points",)),
    }
    nodes.update(changes)
    return nodes


def facts(**status) -> dict:
    base = {"c.step": CheckFacts("pass"), "c.points": CheckFacts("pass"),
            "c.box": CheckFacts("pass", ((Region.of(d=closed(3, 100)), True),))}
    base.update(status)
    return base


def test_a_proof_is_proved_only_where_every_link_is():
    graph = toy()
    v = verdict(graph["r"], evaluate(graph, facts())["r"])
    assert v.category == "proved in part"
    assert v.text.startswith("proved for d ∈ [3, 100] (stated: d ≥ 3); numeric at points (r.points)")
    whole = toy(**{"r.box": Obligation("r.box", "a box", STATED, Discharge.CERTIFIED, ("c.box",), checker=True)})
    run = facts(**{"c.box": CheckFacts("pass", ((STATED, True),))})
    assert verdict(whole["r"], evaluate(whole, run)["r"]).text == "proved for d ≥ 3"


def test_a_certificate_the_checker_did_not_accept_is_engine_only():
    graph = toy()
    run = facts(**{"c.box": CheckFacts("pass", ((Region.of(d=closed(3, 100)), False),))})
    v = verdict(graph["r"], evaluate(graph, run)["r"])
    assert v.category == "supported"
    assert "d ∈ [3, 100]: certified, engine only (r.box)" in v.text


def test_a_weaker_link_sets_the_level_and_is_named():
    graph = toy(**{"r.step": Obligation("r.step", "a step", STATED, Discharge.SEARCH, ("c.step",))})
    v = verdict(graph["r"], evaluate(graph, facts())["r"])
    assert v.category == "supported" and v.text == "supported: numeric at points (r.points)"
    assert evaluate(graph, facts())["r.proof"][0].level is Level.SEARCH
    assert evaluate(graph, facts())["r.proof"][0].weakest == ("r.step",)


def test_a_failed_or_unrun_check_on_the_path_is_never_proved():
    graph = toy()
    failed = verdict(graph["r"], evaluate(graph, facts(**{"c.step": CheckFacts("FAIL")}))["r"])
    assert failed.category == "supported" and "numeric at points" in failed.text
    only = {k: v for k, v in toy().items() if k != "r.points"}
    only["r"] = Obligation("r", "statement", STATED, Discharge.EITHER, uses=("r.proof",))
    assert verdict(only["r"], evaluate(only, facts(**{"c.step": CheckFacts("FAIL")}))["r"]).category == "failed"
    run = facts()
    del run["c.step"]
    assert evaluate(only, run)["r.proof"][0].level is Level.NOT_RUN


def test_an_ill_formed_ledger_is_reported():
    bad = toy(**{"r.step": Obligation("r.step", "a step", STATED, Discharge.SYMBOLIC)})
    assert any("names no check" in p for p in problems(bad, ["c.box", "c.points"]))
    cyclic = toy(**{"r.step": Obligation("r.step", "a step", STATED, Discharge.FOLLOWS, uses=("r",))})
    with pytest.raises(ValueError, match="cycle"):
        evaluate(cyclic)


# -- the registered proofs -------------------------------------------------------------------------

def test_every_result_has_a_well_formed_proof_that_names_every_claiming_check():
    graph = proof_graph()
    assert problems(graph, [c.id for r in REGISTRY for c in r.checks]) == []
    named = {c for ob in graph.values() for c in ob.checks}
    for result in REGISTRY:
        assert result.id in graph, result.id
        claiming = [c.id for c in result.checks if c.evidence.value not in ("exhibit", "configuration")]
        assert set(claiming) <= named, set(claiming) - named
    evaluate(graph)  # no cycle


def test_the_lost_steps_are_open_nodes():
    graph = proof_graph()
    open_nodes = {n for n, ob in graph.items() if ob.discharge is Discharge.OPEN}
    assert {"prop2.small.lost", "prop3.a4", "prop4.rest-of-a5", "cor1.concentration"} <= open_nodes


def declared():
    graph = proof_graph()
    return graph, proof_ledger.verdicts(graph, REGISTRY, None)


def test_declared_verdicts_name_their_ranges_and_weakest_links():
    _, found = declared()
    assert found["prop1"].text == "proved for d ≥ 2, ε ∈ (0, 1)"
    assert found["lemma-symmetry"].category == "proved"
    # the eps tail and the top eps in [0.99, 1) are read by the independent checker (issue 37
    # item 3): with the box and the large-d lemma, every d >= 3 and eps in (0, 1)
    assert found["thm2"].text == "proved for d ≥ 3, ε ∈ (0, 1), η₁/√d ∈ (0, 1], η₂,min/η₂ ∈ (0, 1]"
    assert found["thm1"].text == "proved for d ≥ 9"  # A.6's lost step 3 reconstructed (thm1_step3)
    assert found["cor1"].category == "supported" and "cor1.concentration" in found["cor1"].text


def test_a_run_whose_checker_rejects_the_box_proves_nothing_of_theorem_2():
    """With the 4-D box engine only (a fault the checker saw), Theorem 2 is no longer proved."""
    graph = proof_graph()
    thm2_checks = [c.id for r in REGISTRY if r.id in ("thm2", "lemma-symmetry") for c in r.checks]
    box = Region.of(d=closed(3, 1e9), eps=closed(1e-6, 0.99), u=between(0, 1, lo_open=True),
                    v=between(0, 1, lo_open=True))
    run = {c: CheckFacts("pass") for c in thm2_checks}
    run["thm2.certified_box"] = CheckFacts("pass", ((box, False),))
    found = proof_ledger.verdicts(graph, [r for r in REGISTRY if r.id == "thm2"], run)
    assert found["thm2"].category == "proved in part"  # d >= 1e9 by the large-d lemma alone
    assert found["thm2"].text.startswith("proved for d ≥ 10⁹ (stated: d ≥ 3)")
    assert "certified, engine only (thm2.box" in found["thm2"].text


def test_facts_read_the_checker_and_the_box_from_outcome_values():
    values = {"d_lo": 3.0, "d_hi": 1e9, "eps_lo": 0.0, "eps_hi": 1e-6, "u_lo": 0.0, "u_hi": 1.0,
              "v_lo": 0.0, "v_hi": 1.0, "checker": "engine only"}
    region = proof_ledger.region_of(values)
    assert region.text() == "d ∈ [3, 10⁹], ε ∈ (0, 10⁻⁶], η₁/√d ∈ (0, 1], η₂,min/η₂ ∈ (0, 1]"
    data = {"checks": [{"check": "thm2.certified_box", "status": "pass", "evidence": "certified",
                        "outcomes": [{"passed": True, "values": values}]}]}
    assert proof_ledger.facts_from_json(data)["thm2.certified_box"].boxes == ((region, False),)
    assert proof_ledger.region_of({"d": 3}).text() == "d = 3"


# -- the command and the blueprints ----------------------------------------------------------------

def test_verify_ledger_prints_each_results_tree_and_counts(capsys):
    assert main(["ledger"]) == 0
    out = capsys.readouterr().out
    assert "prop4.rest-of-a5: open — open" in out and "results proved over their whole stated range" in out
    assert main(["ledger", "thm2", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["results"]) == {"thm2"} and "thm2.eps-tail" in data["nodes"]
    assert "prop1" not in data["nodes"]


def test_verify_ledger_reads_a_run_and_rejects_bad_input(tmp_path, capsys):
    report = tmp_path / "r.json"
    report.write_text(json.dumps({"checks": [{"check": "lemma-symmetry.invariance", "status": "FAIL",
                                              "evidence": "symbolic", "outcomes": []}]}))
    assert main(["ledger", "lemma-symmetry", "--from", str(report)]) == 0
    assert "lemma-symmetry.proof: FAILED" in capsys.readouterr().out
    assert main(["ledger", "no-such-result"]) == 2
    assert main(["ledger", "--from", str(tmp_path / "missing.json")]) == 2
    (tmp_path / "bad.json").write_text("[]")
    assert main(["ledger", "--from", str(tmp_path / "bad.json")]) == 2
    assert "not a `verify all --json` report" in capsys.readouterr().err


def test_the_blueprints_give_the_same_bytes_twice(tmp_path):
    graph = proof_graph()
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    for folder in (first, second):
        blueprint.per_result(graph, "thm2", folder)
        blueprint.paper(graph, [r.id for r in REGISTRY], None, folder / "paper.png")
    for name in ("thm2.png", "paper.png"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    uses = blueprint.condensed(graph, [r.id for r in REGISTRY])
    assert "prop4.rest-of-a5" in uses["prop4"] and "lemma-symmetry" in uses["thm2"]


@pytest.mark.parametrize("result", [r.id for r in REGISTRY])
def test_the_condensed_graph_of_one_result_is_closed(result):
    """`verify check RESULT` draws the paper's graph of that result alone: every node it shows
    uses only nodes it shows (a lemma reached through another lemma, as Proposition 1's box
    reaches lemma-symmetry through lemma-symmetry.reduction, was once left out: KeyError)."""
    uses = blueprint.condensed(proof_graph(), [result])
    assert all(u in uses for targets in uses.values() for u in targets)


def test_the_committed_blueprints_cover_every_result():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "proofs" / "blueprint"
    assert {p.stem for p in folder.glob("*.png")} >= {r.id for r in REGISTRY} | {"paper"}


def test_inf_is_open_and_points_are_closed():
    assert at_least(3).parts[0].hi_open and math.isinf(at_least(3).parts[0].hi)
    assert not points(3).parts[0].lo_open


def test_the_paper_blueprint_does_not_depend_on_the_hash_seed(tmp_path):
    """Two processes with different string hashes lay the condensed graph out alike (REPORT.md's
    blueprint drawn by two `verify all` runs once differed: a set of node names set the order)."""
    import os
    import subprocess
    import sys

    code = ("from verify.report import blueprint; from verify.results import REGISTRY, proof_graph; "
            "print(list(blueprint.condensed(proof_graph(), [r.id for r in REGISTRY]).items()))")
    out = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in ("1", "2", "3")}
    assert len(out) == 1
    # and the picture: networkx groups a "layer" attribute into sets, laid out in hash order
    # (two REPORT.md runs drew the rows in two orders after the graph itself was fixed)
    draw = ("import sys; from pathlib import Path; from verify.report import blueprint; "
            "from verify.results import REGISTRY, proof_graph; "
            "u = blueprint.condensed(proof_graph(), [r.id for r in REGISTRY]); "
            "c = next(iter(blueprint.COLOURS.values())); "
            "blueprint.render(u, {n: c for n in u}, {n: n for n in u}, Path(sys.argv[1]), 't')")
    pictures = set()
    for seed in ("1", "2", "3"):
        path = tmp_path / f"b{seed}.png"
        subprocess.run([sys.executable, "-c", draw, str(path)], check=True,
                       env=dict(os.environ, PYTHONHASHSEED=seed))
        pictures.add(path.read_bytes())
    assert len(pictures) == 1


@pytest.mark.parametrize("node, words", [
    (Obligation("x", "c", Region.of(d=at_least(2)), Discharge.SYMBOLIC), "names no check"),
    (Obligation("x", "c", Region.of(d=at_least(2)), Discharge.OPEN, ("a.check",)), "names checks"),
    (Obligation("x", "c", Region.of(d=at_least(2)), Discharge.FOLLOWS), "without uses"),
    (Obligation("x", "c", Region.of(d=at_least(2)), Discharge.SYMBOLIC, ("a.check",), checker=True),
     "only a certified node"),
])
def test_an_ill_formed_obligation_says_what_is_wrong(node, words):
    assert any(words in p for p in node.problems())


def test_every_declared_obligation_is_well_formed():
    assert [p for node in proof_graph().values() for p in node.problems()] == []


def test_the_proofs_that_compute_in_the_four_scalar_reduction_rest_on_it():
    """lemma-symmetry.reduction opened: the nodes whose certificates or closed form compute in
    the reduction are no longer proved (Proposition 1 as a whole stays proved by its own A.2
    route; Theorem 2 keeps only the range its other route covers)."""
    import dataclasses

    graph = proof_graph()
    node = graph["lemma-symmetry.reduction"]
    opened = {**graph, "lemma-symmetry.reduction": dataclasses.replace(node, discharge=Discharge.OPEN,
                                                                       checks=())}
    before, after = evaluate(graph), evaluate(opened)
    for name, was in (("prop1.by-box", "proved in part"), ("thm2", "proved"),
                      ("cor1.population", "proved"), ("prop3.at-zero.proof", "proved")):
        assert verdict(graph[name], before[name]).category == was
        assert verdict(opened[name], after[name]).category in ("proved in part", "supported"), name
        assert verdict(opened[name], after[name]).category != was, name
    assert verdict(opened["prop1"], after["prop1"]).category == "proved"


def test_the_report_and_the_certify_layer_use_one_word_for_an_accepted_certificate():
    from verify.certify.verdicts import Checker

    assert proof_ledger.CHECKER_ACCEPTED == Checker.ACCEPTED.value


def test_a_node_line_names_the_points_of_its_range_no_piece_reaches():
    """prop3.sharp is declared for d in {3, 4, 5}; a run that proves it at d = 3 only says that
    4 and 5 were not reached (red when the tree shows the declared range alone)."""
    ob = Obligation("n", "a claim", Region.of(d=points(3, 4, 5)), Discharge.CERTIFIED, ("c",), checker=True)
    line = proof_ledger.node_line(ob, [Piece(Region.of(d=points(3)), Level.PROVED)])
    assert line.startswith("n: proved for d = 3; d ∈ {4, 5} not reached by this run — ")
    assert "not reached" not in proof_ledger.node_line(ob, [Piece(ob.region, Level.PROVED)])
    assert proof_ledger.node_line(ob, []).startswith("n: nothing — ")
