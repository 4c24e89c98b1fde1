"""Theorem 2 and Corollary 1 for every d >= 10^9 (proofs/large-d.md): the perturbation lemma's
SymPy steps, its constants against the four-axis pipeline's margins, the committed certificates
under the engine's recheck and the independent checker, the registered checks, raised constants,
faults injected into the engine (Arb and SymPy) and into the checker, and tampered files."""
from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest


from flint import arb, ctx  # noqa: E402

from verify.certify import large_d, large_d_outcome, outcomes, plan_range  # noqa: E402
from verify.certify.verdicts import Checker, Route  # noqa: E402
from verify.checker import large_d as own, model, recheck as checker  # noqa: E402
from verify.checks import Case  # noqa: E402
from verify.cli import main  # noqa: E402
from verify.constants import load, values  # noqa: E402

K = values(load())
CERTS = Path(__file__).resolve().parent.parent / "certificates"
GROUPS = tuple(large_d.GROUPS)


@pytest.fixture(autouse=True)
def bits():
    old = ctx.prec
    ctx.prec = 128
    yield
    ctx.prec = old


def committed(group: str) -> dict:
    return json.loads((CERTS / f"{group}.json").read_text())


def with_constants(**changes) -> dict:
    k = dict(K)
    k.update({key.replace("_", ".", 1): Fraction(v) for key, v in changes.items()})
    return k


def judge(group: str, k) -> object:
    return large_d_outcome.judge(group, Case("every d >= 1e9", {}), k)


def write(tmp_path: Path, data) -> str:
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_every_sympy_step_holds():
    steps = large_d.symbolic_steps()
    assert len(steps) == 17 and all(ok for _, ok in steps), [s for s, ok in steps if not ok]


def test_the_lemma_covers_where_the_boxes_end():
    """D0 is where the registered four-axis boxes and their eps-tails end (their d-range's upper
    end), and the lemma's root starts at or below it."""
    assert outcomes.WHOLE[1] >= large_d.D0 and outcomes.TAIL[1] >= large_d.D0
    assert outcomes.registered_box("thm2-large-d") == (float(large_d.D0), math.inf, 0.0, 1.0)
    for group in GROUPS:
        p0 = float.fromhex(committed(group)["root"][1])
        assert 1 + 1 / Fraction(p0) <= large_d.D0


@pytest.mark.parametrize("group", GROUPS)
def test_the_committed_certificate_holds_under_both_routes(group):
    data = committed(group)
    assert data["leaves"][0]["status"] == "certified"
    engine = large_d.recheck(data)
    assert not engine.problems, engine.problems
    verdict = checker.check(checker.read(data))
    assert verdict.ok, verdict.problems
    fresh = large_d.certificate(group, K)
    assert {k: v for k, v in fresh.items() if k != "code"} == \
        {k: v for k, v in data.items() if k != "code"}


@pytest.mark.parametrize("group", GROUPS)
def test_the_registered_check_passes_and_says_both_routes(group):
    out = judge(group, K)
    assert out.passed is True, out.detail
    assert out.values["checker"] == Checker.ACCEPTED and out.values["route"] == Route.RE_JUDGED
    assert out.margin > 0.4


@pytest.mark.parametrize("d, eps, u, v", [(1e3, 0.99, 1.0, 1.0), (1e3, 1e-3, 0.5, 0.25),
                                          (1e5, 0.5, 1.0, 1.0), (1e5, 1e-6, 0.1, 1.0)])
def test_the_lemmas_bounds_lie_below_the_pipelines_margins(d, eps, u, v):
    """Two routes: the lemma's lower bounds from D0 = 1000 (and the checker's) against the
    four-axis pipeline's enclosures on a tiny box at a point d >= D0 (moment integrals)."""
    p0 = large_d.root_p(Fraction(1000))
    x = (math.log(d), math.log(eps), u, v)
    w = 1e-9
    box = (x[0], x[0] + w, x[1], x[1] + w, u - w, u, v - w, v)
    for group, prefix in (("thm2-4d", "thm2"), ("cor1-4d", "cor1")):
        found = large_d.bounds(p0, prefix, K)
        mine = own.margins(f"{prefix}-large-d", (0.0, p0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0), K)
        pipeline, _ = plan_range.box_margins(group, box, K, 96)
        for claim, m in pipeline.items():
            assert found[claim] > 0 and mine[claim].lower() > 0
            assert found[claim].lower() <= m.upper() and mine[claim].lower() <= m.upper(), claim


def test_both_routes_close_from_d_12_and_not_below_8():
    for group in GROUPS:
        data = large_d.certificate(group, K, Fraction(12))
        assert data["leaves"][0]["status"] == "certified"
        assert not large_d.recheck(data).problems
        assert checker.check(checker.read(data)).ok
        low = large_d.certificate(group, K, Fraction(8))
        assert low["leaves"][0]["status"] == "undecided"
        assert any("den_lo" in p for p in large_d.recheck(low).open)


def test_the_limit_d_to_infinity_is_the_v0_closed_form():
    """At p = 0 (d = inf) the checker's margins are the v = 0 limits of hypothesis-range.md
    section 3 as d -> inf: contraction 3, distance and delta 1; the lemma's tend to them."""
    mine = own.margins("thm2-large-d", (0.0, 1e-300, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0), K)
    assert abs(float(mine["thm2.contraction"].mid()) - 3) < 1e-9
    assert mine["thm2.initial_distance"].lower() > 1 - arb(2) ** -120
    found = large_d.bounds(1e-300, "thm2", K)
    assert abs(float(found["thm2.contraction"].mid()) - 3) < 1e-9


# -- raised constants and faults ------------------------------------------------------------------

def test_a_smaller_C_finds_a_counterexample():
    out = judge("thm2-large-d", with_constants(thm2_C="1/2"))
    assert out.passed is False and "COUNTEREXAMPLE: thm2.delta" in out.detail
    assert "K > 3/2" in out.detail


def test_fewer_phase3_steps_fail_corollary_1():
    out = judge("cor1-large-d", with_constants(cor1_T_numerator="1/100"))
    assert out.passed is False and "COUNTEREXAMPLE: cor1.population" in out.detail


@pytest.mark.parametrize("group, change", [("thm2-large-d", {"thm2_T_factor": "1/2"}),
                                           ("cor1-large-d", {"cor1_C": "1/2"}),
                                           ("cor1-large-d", {"cor1_T_numerator": "1/10"})])
def test_a_lemma_that_does_not_close_is_never_a_pass(group, change):
    out = judge(group, with_constants(**change))
    assert out.passed is not True and "does not close" in out.detail, out.detail


def shrunk_rate(monkeypatch):
    """The engine's Arb closed form of sqrt(d) r1 returns a point ball at 0.9 x its midpoint
    (a shrunken, wrong enclosure), in every module that binds it."""
    from verify.engine.certified import symmetric

    right = symmetric.arb_gap_rate_parts

    def wrong():
        f = right()
        return lambda d, e: [x if i == 0 else arb((9 * x / 10).mid())
                             for i, x in enumerate(f(d, e))]
    for module in (symmetric, plan_range, large_d):
        monkeypatch.setattr(module, "arb_gap_rate_parts", wrong)


def background_over_d(monkeypatch):
    """The background coordinate's gradient divided by d, not d - 1, in the engine's Arb
    reduction (issue 35 item 1's fault)."""
    right = plan_range.evaluate_reduction

    def wrong(family, d, moments, bs, bj):
        out = list(right(family, d, moments, bs, bj))
        out[4] = out[4] * (d - 1) / d
        return tuple(out)
    monkeypatch.setattr(plan_range, "evaluate_reduction", wrong)


def flipped_bias(monkeypatch):
    """The model's bias +1 instead of -1 in the engine's SymPy reduction (seen uncached)."""
    from verify.engine import symbolic

    right = symbolic.model_output
    monkeypatch.setattr(symbolic, "model_output", lambda: right() + 2)
    monkeypatch.setattr(symbolic, "reduce_symmetric", symbolic.reduce_symmetric.__wrapped__)


@pytest.mark.parametrize("fault, where", [(shrunk_rate, "rate(u=max)"),
                                          (background_over_d, "(d-1) lambda_1"),
                                          (flipped_bias, "4a.")])
@pytest.mark.parametrize("group", GROUPS)
def test_an_engine_fault_turns_the_check_red(fault, where, group, monkeypatch, tmp_path):
    """With the committed certificate the engine's recheck disagrees with it; without one (a
    fresh certificate written by the faulty engine) the checker's anchors reject it."""
    fault(monkeypatch)
    out = judge(group, K)
    assert out.passed is False and where in out.detail, out.detail
    monkeypatch.setattr(large_d, "CERTIFICATES", tmp_path)
    fresh = judge(group, K)
    assert fresh.passed is False and where in fresh.detail, fresh.detail
    if fault is not flipped_bias:
        assert fresh.values["checker"] == Checker.REJECTED and fresh.values["route"] == Route.ROOT


def test_a_fault_in_the_checkers_model_is_caught_at_the_anchors(monkeypatch):
    right = model.phase2_rate
    monkeypatch.setattr(own, "phase2_rate", lambda d, s: right(d, s) * 0.9)
    verdict = checker.check(checker.read(committed("thm2-large-d")))
    assert not verdict.ok and "anchor rate(u=0)" in verdict.problems[0]


# -- tampered files and the command line ------------------------------------------------------------

def tamper(data: dict, path: list, value) -> dict:
    out = copy.deepcopy(data)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


@pytest.mark.parametrize("path, value, engine_says, checker_says", [
    (["leaves", 0, "lower", "thm2.contraction"], (10.0).hex(), "lies above", "not in (0"),
    (["leaves", 0, "lower", "thm2.delta"], (-0.5).hex(), "not > 0", "not in (0"),
    (["anchors", "values", "lambda_2"], [(0.6).hex(), (0.6).hex()], "anchor lambda_2",
     "anchor lambda_2"),
    (["leaves", 0, "status"], "undecided", "recorded 'undecided'", "recorded 'undecided'"),
])
def test_a_tampered_certificate_is_rejected_by_both(path, value, engine_says, checker_says):
    data = tamper(committed("thm2-large-d"), path, value)
    assert any(engine_says in p for p in large_d.recheck(data).problems)
    verdict = checker.check(checker.read(data))
    assert any(checker_says in p for p in verdict.problems), verdict.problems


def test_the_claim_and_its_binding_come_from_the_root_and_constants(tmp_path):
    data = committed("cor1-large-d")
    cert = checker.read(tamper(data, ["claim"], "every d >= 3 and every eps"))
    binding = checker.bind(cert, outcomes.registered_box("cor1-large-d"), K)
    assert not binding.mismatches and "every real d >= 1000000000 " in binding.claim
    later = tamper(data, ["root", 1], (1e-10).hex())  # the root starts at d = 1e10 + 1
    later = tamper(later, ["leaves", 0, "box", 1], (1e-10).hex())
    assert any("does not cover" in m for m in checker.bind(
        checker.read(later), outcomes.registered_box("cor1-large-d"), K).mismatches)
    other = checker.bind(cert, outcomes.registered_box("cor1-large-d"),
                         with_constants(cor1_C="3"))
    assert any("cor1.C" in m for m in other.mismatches)
    assert main(["recheck", write(tmp_path, later)]) == 1


@pytest.mark.parametrize("group", GROUPS)
def test_recheck_from_the_command_line(group, capsys):
    path = str(CERTS / f"{group}.json")
    assert main(["recheck", path, "--independent"]) == 0
    assert main(["recheck", path]) == 0
    out = capsys.readouterr().out
    assert "certificate holds" in out and "every real d >= 1000000000" in out


@pytest.mark.parametrize("change", [["root", 1], ["anchors", "d"], ["leaves"]])
def test_malformed_certificates_exit_2_in_one_line(change, tmp_path, capsys):
    data = tamper(committed("thm2-large-d"), change, "inf" if change[0] != "leaves" else [])
    assert main(["recheck", write(tmp_path, data), "--independent"]) == 2
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err


def test_certify_writes_the_committed_bytes_but_the_code(tmp_path):
    out = tmp_path / "c.json"
    assert main(["certify", "thm2-large-d", "--d", "1e9", "inf", "--eps", "0", "1",
                 "--output", str(out)]) == 0
    fresh, kept = json.loads(out.read_text()), committed("thm2-large-d")
    assert {k: v for k, v in fresh.items() if k != "code"} == \
        {k: v for k, v in kept.items() if k != "code"}
    assert main(["certify", "thm2-large-d", "--d", "1e9", "1e10", "--eps", "0", "1",
                 "--output", str(out)]) == 2


def test_the_certificates_fingerprint_leaves_the_checker_out():
    """The code a certificate's fingerprint covers (its finder and what that imports) holds
    none of the checker that judges it: a change to the checker leaves the certificates current
    (the registry's outcome, which asks the checker, lives in certify/large_d_outcome.py)."""
    from verify.certify import cube_certificate, certificate
    from verify.run.journal import PACKAGE, imported_modules

    for finder in (large_d.FINDER, cube_certificate.FINDER, certificate.FINDER):
        covered = [p.relative_to(PACKAGE).parts[0] for p in imported_modules(finder)]
        assert "checker" not in covered, finder
    data = json.loads(large_d_outcome.committed("thm2-large-d").read_text())
    assert not large_d.recheck(data).notes  # written by this code
