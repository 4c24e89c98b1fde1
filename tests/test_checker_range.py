"""The independent checker on the four-axis certificates of Theorem 2 and Corollary 1 (axes
ln d, ln eps, u = eta1/sqrt(d), v = eta2_min/eta2; proofs/checker.md, section 11): agreement with
the engine's recorded enclosures and with its own two-axis route, the limits u -> 0 and v -> 0,
tampered certificates, a fault in the checker's model, and faults injected into the engine."""
from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest


from flint import arb, ctx  # noqa: E402

from verify.certify import boxes, centred, certificate, outcomes  # noqa: E402
from verify.certify.verdicts import Checker  # noqa: E402
from verify.checks import Profile  # noqa: E402
from verify.checker import claims, model, recheck as checker  # noqa: E402
from verify.cli import main  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.engine import expectations, schedules  # noqa: E402
from verify.engine.context import MP  # noqa: E402

K = values(load())
CERTS = Path(__file__).resolve().parent.parent / "certificates"
GROUPS = ("thm2-4d", "cor1-4d")


@pytest.fixture(autouse=True)
def bits():
    old = ctx.prec
    ctx.prec = 96
    yield
    ctx.prec = old


def committed(group: str) -> dict:
    return json.loads((CERTS / f"{group}-whole-range.json").read_text())


def boxes_of(data: dict) -> list[tuple]:
    return [tuple(float.fromhex(x) for x in leaf["box"]) for leaf in data["leaves"]]


def chosen_leaves(data: dict) -> dict[str, int]:
    """A leaf reaching u = 0, one reaching v = 0 near d = 3, one reaching neither, and the
    leaf of each claim's smallest stored lower end (the tight ones)."""
    bx = boxes_of(data)
    picks = {"u = 0": next(i for i, b in enumerate(bx) if b[4] == 0 and b[6] > 0),
             "v = 0": next(i for i, b in enumerate(bx) if b[6] == 0 and math.exp(b[0]) < 5),
             "inside": next(i for i, b in enumerate(bx) if b[4] > 0 and b[6] > 0)}
    for claim in data["leaves"][0]["margins"]:
        picks[claim] = min(range(len(bx)), key=lambda i: float.fromhex(
            data["leaves"][i]["margins"][claim][0]))
    return picks


def one_leaf(data: dict, i: int) -> dict:
    """The certificate cut down to leaf i (its box as the root)."""
    out = copy.deepcopy(data)
    out["root"], out["leaves"] = data["leaves"][i]["box"], [data["leaves"][i]]
    return out


def write(tmp_path, data, name="c.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def tiny(d, eps, u, v, rel=1e-7) -> tuple:
    """A box 1e-7 wide at (d, eps, u, v) (from u or v when below 1, else up to 1)."""
    side = [(x, x + rel) if x < 1 else (1 - rel, 1.0) for x in (u, v)]
    return boxes.hypothesis_box(d, d * (1 + rel), eps, eps * (1 + rel), u=side[0], v=side[1])


def point(group: str, x: tuple) -> dict:
    """The checker's quantities at x = (ln d, ln eps, u, v)."""
    return claims.evaluate(group, tuple(y for c in x for y in (c, c)), K)


# -- agreement ----------------------------------------------------------------------------------

@pytest.mark.parametrize("group", GROUPS)
def test_the_committed_leaves_pass_the_checker_at_the_limits_and_the_tight_spots(group):
    """The checker's own margins are > 0 over each chosen leaf (u = 0 and v = 0 included) and
    the engine's recorded enclosures contain its values at the centre and the 16 corners."""
    data = committed(group)
    verdict = checker.check(checker.read(data), leaves=sorted(set(chosen_leaves(data).values())))
    assert verdict.ok, verdict.problems


@pytest.mark.parametrize("group, d, eps, u, v", [
    ("thm2-4d", 10, 0.1, 0.5, 0.5), ("thm2-4d", 3.2, 0.6, 1.0, 1.0), ("thm2-4d", 50, 0.3, 0, 0.7),
    ("thm2-4d", 4, 0.9, 0.8, 0), ("cor1-4d", 4.5, 0.75, 0.9, 0.95), ("cor1-4d", 20, 0.01, 0, 0)])
def test_the_engine_on_a_tiny_box_and_the_checker_agree(group, d, eps, u, v):
    """The engine writes a certificate of a box 1e-7 wide at (d, eps, u, v) (u = 0, v = 0: the
    limits); the checker holds it, so its value lies in every enclosure the engine stored."""
    box = tiny(d, eps, u, v)
    run = boxes.branch_and_bound(group, box, K, 96, 2)
    assert run.status is True
    data = certificate.certificate(run, K)
    verdict = checker.check(checker.read(data))
    assert verdict.ok, verdict.problems
    centre = tuple((box[2 * i] + box[2 * i + 1]) / 2 for i in range(4))
    mine = point(group, centre)
    for claim, (lo, hi) in data["leaves"][0]["margins"].items():
        kind, key = claims.recorded(group)["centred"][claim]
        assert kind == "two" and mine[key].overlaps(
            arb(float.fromhex(lo)).union(arb(float.fromhex(hi))))


@pytest.mark.parametrize("d, eps", [(3, 0.9), (10, 0.1), (1e4, 1e-3)])
def test_the_four_axis_margins_are_the_two_axis_ones_at_u_1_v_1(d, eps):
    """At u = 1, v = 1 (eta1 = sqrt(d), eta2 = eta2_min) the relative margins are the checker's
    own absolute ones of the two-axis route over positive factors."""
    ln = (math.log(d), math.log(eps))
    two = claims.evaluate("thm2", (ln[0], ln[0], ln[1], ln[1]), K)
    four = point("thm2-4d", (*ln, 1.0, 1.0))
    x = claims.point(claims.GROUPS["thm2"], (ln[0], ln[0], ln[1], ln[1]), K)
    dd, e = x.d, x.eps  # e^(ln d) and e^(ln eps) of the floats, as balls
    for key, scaled in (("delta", two["delta"] * 2 / e), ("distance", two["distance"] / (16 * dd)),
                        ("contraction", two["contraction"] * 8 * dd),
                        ("final_centred", two["final_centred"] / e)):
        assert four[key].overlaps(scaled), key


@pytest.mark.parametrize("d, eps", [(3, 0.9), (7, 0.2), (1e6, 1e-5)])
def test_the_limit_v_0_is_the_closed_form_and_the_margins_are_continuous_there(d, eps):
    """At v = 0 (nu = 0): contraction (3d + 1)/(d - 1), optimum and delta 1, distance
    1 - ((2 - beta'_s)^2 + (d - 1) beta'_j^2)/(16 d) (proofs/hypothesis-range.md, section 3); at
    v = 1e-9 the values are within 1e-6 of these, and at u = 1e-9 within 1e-6 of u = 0."""
    ln, u = (math.log(d), math.log(eps)), 0.6
    at0 = point("thm2-4d", (*ln, u, 0.0))
    dd = claims.point(claims.GROUPS["thm2"], (ln[0], ln[0], ln[1], ln[1]), K).d
    bs, bj = 2 * u / dd.sqrt(), u * dd.sqrt() * (dd - 2) / (dd * (dd - 1))
    assert at0["contraction"].overlaps((3 * dd + 1) / (dd - 1))
    assert at0["optimum"].overlaps(arb(1)) and at0["delta"].overlaps(arb(1))
    assert at0["distance"].overlaps(1 - ((2 - bs) ** 2 + (dd - 1) * bj ** 2) / (16 * dd))
    for near, far in ((point("thm2-4d", (*ln, u, 1e-9)), at0),
                      (point("thm2-4d", (*ln, 1e-9, 0.5)), point("thm2-4d", (*ln, 0.0, 0.5)))):
        for key in ("final_centred", "contraction", "distance", "optimum", "delta"):
            assert abs(float((near[key] - far[key]).mid())) < 1e-6, key


# -- tampering ------------------------------------------------------------------------------------

def test_a_lowered_margin_is_caught_at_the_centre():
    data = committed("thm2-4d")
    i = chosen_leaves(data)["u = 0"]
    bad = copy.deepcopy(data)
    lo, hi = (float.fromhex(x) for x in bad["leaves"][i]["margins"]["thm2.initial_distance"])
    bad["leaves"][i]["margins"]["thm2.initial_distance"] = [(lo * 0.9).hex(), (lo * 0.95).hex()]
    verdict = checker.check(checker.read(bad), leaves=[i])
    assert not verdict.ok and "thm2.initial_distance" in verdict.problems[0] \
        and "misses" in verdict.problems[0]


def test_a_removed_leaf_leaves_a_gap_in_the_tiling():
    data = copy.deepcopy(committed("cor1-4d"))
    del data["leaves"][7]
    verdict = checker.check(checker.read(data))
    assert not verdict.ok and verdict.boxes == 0  # no leaf is judged: not a tiling


def test_a_changed_constant_is_named_and_caught(tmp_path, capsys):
    """thm2.C 2 -> 3 (a wider gap than the engine computed with): not the registered claim; with
    --any-box the checker rejects the leaf at its centre."""
    data = committed("thm2-4d")
    i = chosen_leaves(data)["thm2.final"]
    bad = one_leaf(data, i)
    bad["constants"]["thm2.C"] = "3"
    path = write(tmp_path, bad)
    assert main(["recheck", path, "--independent"]) == 1
    assert "MISMATCH: constant thm2.C = 3" in capsys.readouterr().out
    assert main(["recheck", path, "--independent", "--any-box"]) == 1
    assert "REJECTED: leaf 0" in capsys.readouterr().out


def test_a_single_leaf_passes_with_any_box_and_states_u_and_v(tmp_path, capsys):
    data = committed("cor1-4d")
    path = write(tmp_path, one_leaf(data, chosen_leaves(data)["v = 0"]))
    assert main(["recheck", path, "--independent"]) == 1  # not the registered box
    assert main(["recheck", path, "--independent", "--any-box"]) == 0
    out = capsys.readouterr().out
    assert "0 < v = eta2_min/eta2 <=" in out and "certificate holds" in out


def test_a_root_not_covering_every_step_size_is_a_mismatch():
    cert = checker.read(committed("thm2-4d"))
    short = checker.Certificate(cert.group, cert.axes, cert.constants,
                                (*cert.root[:5], 0.5, *cert.root[6:]), cert.method, cert.leaves)
    found = checker.bind(short, outcomes.registered_box("thm2-4d"), K).mismatches
    assert any("every step size" in m for m in found)
    assert not checker.bind(cert, outcomes.registered_box("thm2-4d"), K).mismatches


def test_v_below_0_is_not_a_certificate_the_checker_reads():
    data = copy.deepcopy(committed("cor1-4d"))
    data["root"][6] = (-0.5).hex()
    with pytest.raises(checker.NotACertificate):
        checker.read(data)


# -- faults -------------------------------------------------------------------------------------

def test_a_fault_in_the_checkers_model_is_caught_at_the_centre(monkeypatch):
    """Every scaled moment J_r x 0.9 in the checker (a wrong model whose claims still hold):
    the engine's enclosures of a box 1e-7 wide miss its values at the centre."""
    run = boxes.branch_and_bound("thm2-4d", tiny(4, 0.7, 0.9, 0.9), K, 96, 2)
    data = certificate.certificate(run, K)
    assert checker.check(checker.read(data)).ok
    orig = model.scaled_at
    monkeypatch.setattr(model, "scaled_at", lambda d, c: tuple(0.9 * j for j in orig(d, c)))
    verdict = checker.check(checker.read(data), corners=False)
    assert not verdict.ok and "misses the checker's value" in verdict.problems[0] \
        and "at the centre" in verdict.problems[0], verdict.problems


def moment_scaled(mp):  # wherever the shared integrand is bound (the centres' Arb pieces too)
    from verify.engine.certified import moments

    orig = expectations.moment_integrand
    for module in (centred, moments):
        mp.setattr(module, "moment_integrand", lambda t, s, be=MP: [0.9 * x for x in orig(t, s, be)])


def steps_off_by_one(mp):
    orig = schedules.cor1_steps
    mp.setattr(schedules, "cor1_steps", lambda eps, n: orig(eps, n) + 1)


FAULTS = {  # fault -> (injection, group, (d, eps, u, v), the claim the checker names)
    "moment x0.9": (moment_scaled, "thm2-4d", (10, 0.1, 0.5, 0.5), "thm2.delta"),
    "T off by one": (steps_off_by_one, "cor1-4d", (100, 0.99, 0.9, 0.95), "cor1.population"),
}


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_faulty_engine_certifies_a_four_axis_box_and_the_checker_rejects_it(name):
    inject, group, (d, eps, u, v), claim = FAULTS[name]
    box = tiny(d, eps, u, v)
    mp = pytest.MonkeyPatch()
    try:
        inject(mp)
        run = boxes.branch_and_bound(group, box, K, 96, 2)
    finally:
        mp.undo()
    assert run.status is True, run.summary()
    verdict = checker.check(checker.read(certificate.certificate(run, K)))
    assert not verdict.ok and claim in verdict.problems[0], verdict.problems


# -- the default profile --------------------------------------------------------------------------

def test_the_certified_check_of_a_four_axis_box_is_checked_independently():
    box = boxes.hypothesis_box(10, 10 * (1 + 1e-7), 0.1, 0.1 * (1 + 1e-7))
    run = boxes.branch_and_bound("cor1-4d", box, K, 96, 4)
    assert run.status is True
    ok, detail, said = outcomes.independently(run, K)
    assert ok and said is Checker.ACCEPTED


@pytest.mark.slow
@pytest.mark.parametrize("group", GROUPS)
def test_the_whole_four_axis_certificates_pass_the_checker(group):
    verdict = checker.check(checker.read(committed(group)), workers=2)
    assert verdict.ok, verdict.problems
    assert verdict.leaves == {"thm2-4d": 1854, "cor1-4d": 1367}[group]



# -- the eps tails over (ln d, tau, u, v): section 14 ------------------------------------------------

@pytest.mark.parametrize("group, leaves", [("thm2-4d-tail", 20), ("cor1-4d-tail", 14)])
def test_the_committed_eps_tails_pass_the_checker_in_its_process(group, leaves, capsys):
    assert main(["recheck", str(CERTS / f"{group}-whole-range.json"), "--independent"]) == 0
    out = capsys.readouterr().out
    assert f"{leaves} leaves" in out and "eps in (0, 1e-06]" in out and "certificate holds" in out


TAIL_FAULTS = {  # the engine reads a constant wrong: it certifies a false claim at tau(1e-6)
    "thm2-4d-tail": ("thm2.T_factor", Fraction(1, 10**9), 4, "not shown > 0"),
    "cor1-4d-tail": ("cor1.T_numerator", Fraction(1, 10**12), 72, "below 0 on the whole"),
}


@pytest.mark.parametrize("group", list(TAIL_FAULTS))
def test_an_engine_that_certifies_a_false_tail_leaf_is_rejected(group):
    """With T_factor = 1e-9 (Theorem 2) or T_numerator = 1e-12 (Corollary 1) one Phase-3 step
    is all the statement allows, and L_s <= eps is false at eps = 1e-6; an engine that reads the
    true constant instead certifies the leaf, and the checker rejects it."""
    from verify.certify import eps_tail

    key, false, true, said = TAIL_FAULTS[group]
    t = eps_tail.tau_of(1e-6)
    box = (math.log(3.5), math.log(3.5) + 1e-7, t - 1e-7, t, 0.9, 0.9 + 1e-7, 1 - 1e-6, 1.0)
    constants = {**K, key: false}
    orig = eps_tail.constant_ball
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(eps_tail, "constant_ball",
                   lambda k, name: orig({**k, key: Fraction(true)}, name))
        run = boxes.branch_and_bound(group, box, constants, 96, 2)
    finally:
        mp.undo()
    assert run.status is True, run.summary()
    verdict = checker.check(checker.read(certificate.certificate(run, constants)))
    assert not verdict.ok and said in verdict.problems[0], verdict.problems


def test_a_tail_whose_root_stops_at_1e9_says_so_whatever_its_text(tmp_path, capsys):
    """The claim printed is the root's: a text that says d in [3, 1e12] changes nothing."""
    data = committed("thm2-4d-tail")
    data["claim"] = data["claim"].replace("1e+09", "1e+12")
    path = tmp_path / "tail.json"
    path.write_text(json.dumps(data))
    assert main(["recheck", str(path), "--independent"]) == 0
    out = capsys.readouterr().out
    assert "1e+12" not in out and "d in [3, 1e+09]" in out


def test_the_certified_check_of_an_eps_tail_is_checked_independently():
    """The quick profile's tail case: the checker reads it, so the outcome says "accepted" and
    the ledger counts the tail proved."""
    case = outcomes.certified_cases("cor1-4d", Profile.QUICK, {})[1]
    found = outcomes.judge_certified("cor1-4d", case, K)
    assert found.passed is True and found.values["checker"] == Checker.ACCEPTED
