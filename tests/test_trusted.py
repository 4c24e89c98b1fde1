"""The default profile's route through a committed certificate (verify/certify/trusted.py): the
independent checker, in its own process, decides over every leaf; the engine re-judges a seeded
sample; the verdict and the margin are the engine route's, and a forgery or an engine fault
turns it red."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


import test_mutations as tm  # noqa: E402
from verify.certify import boxes, certificate, outcomes, trusted  # noqa: E402
from verify.certify.verdicts import Checker, Route, Sample  # noqa: E402
from verify.checks import Case, Profile  # noqa: E402
from verify.constants import load, values  # noqa: E402

CONSTANTS = values(load())
SEEDED = boxes.log_box(10, 60, 0.05, 0.5)


@pytest.fixture(scope="module")
def committed():
    """A certificate of a small prop1 box, as `verify certify` writes it."""
    run = boxes.branch_and_bound("prop1", SEEDED, CONSTANTS, 96, 30, max_boxes=400)
    assert run.status is True and len(run.leaves) > 4
    return json.loads(json.dumps(certificate.certificate(run, CONSTANTS)))


def _case(sample: float | None) -> Case:
    case = outcomes.box_case(10, 60, 0.05, 0.5, 400)
    return Case(case.label, {**case.params, "engine_sample": sample}) if sample else case


def _judge(folder, data, monkeypatch, sample: float | None = trusted.SAMPLE):
    folder.mkdir(exist_ok=True)
    (folder / "prop1-test.json").write_text(json.dumps(data))
    monkeypatch.setattr(outcomes, "CERTIFICATES", folder)
    return outcomes.judge_certified("prop1", _case(sample), CONSTANTS)


def test_the_checker_first_route_gives_the_engine_routes_verdict_and_margin(committed, tmp_path,
                                                                          monkeypatch):
    first = _judge(tmp_path / "certificates", committed, monkeypatch)
    engine = _judge(tmp_path / "certificates", committed, monkeypatch, sample=None)
    assert first.passed is engine.passed is True
    assert first.margin == engine.margin and first.values["leaves"] == engine.values["leaves"]
    assert first.values["checker"] == Checker.ACCEPTED and first.values["sample"] == Sample.AGREES
    assert first.values["route"] == Route.CHECKER_DECIDES and engine.values["route"] == Route.RE_JUDGED
    assert "verify/checker in its own process, every leaf" in first.detail
    assert f"seeded sample of 1 of the {len(committed['leaves'])} leaves and agrees" in first.detail
    assert "the smallest margin reported is the smaller of the stored" in first.detail


def test_a_raised_stored_margin_is_rejected_by_the_checker(committed, tmp_path, monkeypatch):
    """A leaf's stored lower end raised to 0.999 x its upper end: the margin the route reports
    would rest on it, and the checker's value at the leaf's centre refutes it."""
    data = json.loads(json.dumps(committed))
    leaf = data["leaves"][0]
    leaf["margins"] = {c: [float(0.999 * float.fromhex(hi)).hex(), hi]
                       for c, (lo, hi) in leaf["margins"].items()}
    out = _judge(tmp_path / "certificates", data, monkeypatch)
    assert out.passed is False and out.margin is None
    assert "REJECTED: leaf 0" in out.detail  # the checker's own words, naming the leaf
    assert out.values["checker"] == Checker.REJECTED and "sample" not in out.values


def test_a_fault_in_the_engine_is_caught_by_its_sample(committed, tmp_path, monkeypatch):
    """The engine's moments of gamma_s served for those of 1 - gamma_s (a fault of the fault
    table): the checker, which shares no code with it, still accepts the certificate; the
    engine's re-judged sample disagrees with the stored enclosures and the check fails."""
    tm._moments_of_the_wrong_variable(monkeypatch)
    out = _judge(tmp_path / "certificates", committed, monkeypatch, sample=1.0)
    assert out.passed is False and out.values["sample"] == Sample.DISAGREES  # the checker accepted


def test_the_sample_is_seeded_by_its_text_and_at_least_one_leaf():
    assert trusted.sample(0, 0.05, "k") == []
    assert len(trusted.sample(10, 0.05, "k")) == 1 and len(trusted.sample(1854, 0.05, "k")) == 93
    assert trusted.sample(1854, 0.05, "k") != trusted.sample(1854, 0.05, "j")
    code = "from verify.certify.trusted import sample; print(sample(1854, 0.05, 'k'))"
    drawn = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": seed}).stdout
             for seed in ("1", "2")}
    assert drawn == {f"{trusted.sample(1854, 0.05, 'k')}\n"}


def test_only_the_registered_default_boxes_take_the_checker_first_route():
    default = outcomes.certified_cases("thm2-4d", Profile.DEFAULT, {})
    assert default and all(c.params["engine_sample"] == trusted.SAMPLE for c in default)
    assert not any("engine_sample" in c.params for profile in (Profile.FULL, Profile.QUICK)
                   for c in outcomes.certified_cases("thm2-4d", profile, {}))
    assert "engine_sample" not in outcomes.certified_cases("prop1", Profile.DEFAULT,
                                                           {"d": [10, 20]})[0].params


@pytest.fixture(scope="module")
def committed_4d():
    """A certificate of a small box of the four-axis group of Theorem 2."""
    root = boxes.hypothesis_box(10, 10.05, 0.1, 0.1005)
    run = boxes.branch_and_bound("thm2-4d", root, CONSTANTS, 96, 40, max_boxes=200)
    assert run.status is True
    return json.loads(json.dumps(certificate.certificate(run, CONSTANTS)))


def test_the_phase3_fault_is_caught_at_the_sampled_centres(committed_4d):
    """The fault table's open row: Phase 3's weights without their background part.  Its
    margins stay true, so the checker accepts and the engine's box recheck certifies again;
    at a leaf's centre the engine's narrow ball misses the checker's."""
    import faults

    indices = list(range(len(committed_4d["leaves"])))
    assert trusted.engine_sample(committed_4d, indices) == []
    with pytest.MonkeyPatch.context() as mp:
        faults._phase3_weights_skip_background(mp)
        found = trusted.engine_sample(committed_4d, indices)
    assert found and all("thm2.final: the engine's value" in p and "misses the checker's" in p
                         for p in found)


def test_the_leaf_of_the_reported_margin_is_always_re_judged(committed, tmp_path, monkeypatch):
    seen = []
    real = trusted.engine_sample
    monkeypatch.setattr(trusted, "engine_sample", lambda data, idx: seen.extend(idx) or real(data, idx))
    out = _judge(tmp_path / "certificates", committed, monkeypatch)
    lows = [min(float.fromhex(lo) for lo, _ in leaf["margins"].values()) for leaf in committed["leaves"]]
    assert lows.index(min(lows)) in seen and out.margin == min(lows)
    assert f"smallest stored margin ({lows.index(min(lows))})" in out.detail


def _at_centre_lows(data: dict) -> dict:
    """Every leaf's stored lower end raised to just below the checker's value at its centre:
    the most a forger can raise it and still pass the comparison at the centres (helper-11's
    forgery in the hostile review)."""
    import math

    from flint import ctx

    from verify.checker.claims import evaluate
    from fractions import Fraction

    constants = {k: Fraction(v) for k, v in data["constants"].items()}
    data = json.loads(json.dumps(data))
    old, ctx.prec = ctx.prec, 96
    try:
        for leaf in data["leaves"]:
            box = [float.fromhex(x) for x in leaf["box"]]
            centre = tuple(x for i in range(len(box) // 2)
                           for x in [(box[2 * i] + box[2 * i + 1]) / 2] * 2)
            value = float(evaluate("prop1", centre, constants)["prop1"].lower())
            leaf["margins"]["prop1.bound"][0] = math.nextafter(value, -math.inf).hex()
    finally:
        ctx.prec = old
    return data


def test_raised_lower_ends_do_not_raise_the_reported_margin(committed, tmp_path, monkeypatch):
    """Lower ends raised on every leaf to just below the checker's value at the centre pass the
    comparison there, and the stored minimum then overstates the margin (0.0667 where the
    function is 0.05 at a corner); the reported margin is bounded by the checker's own
    enclosures over the leaves, so it stays at or below every value at the corners."""
    from itertools import product

    from verify.checker.claims import evaluate

    forged = _judge(tmp_path / "b", _at_centre_lows(committed), monkeypatch)
    stored = min(float.fromhex(leaf["margins"]["prop1.bound"][0])
                 for leaf in _at_centre_lows(committed)["leaves"])
    corners = min(float(evaluate("prop1", tuple(x for c in corner for x in (c, c)), CONSTANTS)
                        ["prop1"].mid())
                  for leaf in committed["leaves"]
                  for corner in product(*zip(*[iter(float.fromhex(x) for x in leaf["box"])] * 2)))
    assert forged.passed is True and forged.values["route"] == Route.CHECKER_DECIDES
    assert forged.margin <= corners < stored  # the true minimum is at most the corners' values
