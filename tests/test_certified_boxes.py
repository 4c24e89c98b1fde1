"""Branch and bound over (ln d, ln eps) boxes, certificates and their recheck (certified mode)."""
from __future__ import annotations

import copy
import dataclasses
import json
import math
from fractions import Fraction

import pytest


from verify.certify import boxes, certificate  # noqa: E402
from verify.certify.claims import margins  # noqa: E402
from verify.certify.verdicts import Route  # noqa: E402
from verify.checks import Case  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.engine.certified.balls import precision  # noqa: E402
from verify.engine.certified.symmetric import ball_three_phase  # noqa: E402
from verify.cli import main  # noqa: E402

CONSTANTS = values(load())
SMALL = boxes.log_box(10, 11, 0.1, 0.12)


@pytest.fixture(scope="module")
def prop1_run():
    return boxes.branch_and_bound("prop1", SMALL, CONSTANTS, 96, 8)


def test_small_box_is_certified_and_reported(prop1_run):
    assert prop1_run.status is True
    margin, claim, box = prop1_run.smallest_margin()
    assert margin > 0 and claim == "prop1.bound"
    assert "leaves" in prop1_run.summary()


def test_a_wrong_constant_gives_a_failing_box():
    """Mutation: the attention constant 4 -> 1/1000 makes the gap far too small; the box is a
    counterexample region (every margin ball below 0), never a pass."""
    bad = dict(CONSTANTS, **{"prop1.attention_constant": Fraction(1, 10**6)})
    run = boxes.branch_and_bound("prop1", boxes.log_box(10, 11, 0.01, 0.012), bad, 96, 4)
    assert run.status is False


def test_straddling_box_is_undecided_not_passed():
    """A bound placed at the value itself: the margin ball straddles 0 at every depth."""
    status, pairs = boxes.judge_box("prop1", SMALL, CONSTANTS, 96)
    lo, hi = pairs["prop1.bound"]
    assert status == "certified" and lo > 0
    run = boxes.branch_and_bound("thm2", boxes.log_box(10, 10.1, 0.1, 0.101), CONSTANTS, 96, 0)
    assert run.status in (None, True)  # max_depth 0: one box, never split
    if run.status is None:
        assert all(leaf.status != "certified" or leaf.margins for leaf in run.leaves)


def test_certificate_rechecks_and_tampering_is_rejected(prop1_run, tmp_path):
    path = tmp_path / "cert.json"
    certificate.write(prop1_run, CONSTANTS, path)
    data = json.loads(path.read_text())
    assert certificate.recheck(data).ok
    split = boxes.branch_and_bound("prop1", SMALL, CONSTANTS, 96, 0)
    assert len(split.leaves) == 1
    # force a tiled certificate with two leaves to tamper with
    a, b = boxes.split(SMALL)
    two = boxes.Run("prop1", SMALL, 96, [boxes.Leaf(x, 1, *boxes.judge_box("prop1", x, CONSTANTS, 96))
                                         for x in (a, b)])
    data = certificate.certificate(two, CONSTANTS)
    assert certificate.recheck(data).ok
    removed = copy.deepcopy(data)
    removed["leaves"].pop()
    assert not certificate.recheck(removed).ok  # a leaf removed: the box is not covered
    moved = copy.deepcopy(data)
    moved["leaves"][0]["box"][1] = float.fromhex(moved["leaves"][0]["box"][1]).__sub__(0.01).hex()
    assert not certificate.recheck(moved).ok  # a bound moved: gap
    forged = copy.deepcopy(data)
    forged["leaves"][0]["margins"]["prop1.bound"] = [(5.0).hex(), (6.0).hex()]
    assert not certificate.recheck(forged).ok  # an enclosure that is not the recomputed one


def test_coverage_detects_overlap():
    root = (0.0, 1.0, 0.0, 1.0)
    assert certificate.coverage_problems(root, [(0.0, 0.5, 0.0, 1.0), (0.5, 1.0, 0.0, 1.0)]) == []
    assert certificate.coverage_problems(root, [(0.0, 0.6, 0.0, 1.0), (0.4, 1.0, 0.0, 1.0)])


def test_phase3_bound_monotone_in_T():
    """proofs/monotonicity.md: the loss after T steps never rises with T and stays below the
    rho^(2T) bound (exact Phase 3 on balls at several T)."""
    d = 10
    with precision(128):
        from flint import arb
        eta1 = arb(d).sqrt()
        eta2 = 2 * arb(d) ** 2 / eta1 * (arb(d) / arb("0.1")).log()
    plan = ball_three_phase(d, eta1, eta2, 1, 128)
    losses = [plan.loss_after(T)["loss"] for T in (0, 1, 2, 5, 20, 100, 400)]
    for earlier, later in zip(losses, losses[1:]):
        assert later.upper() <= earlier.upper()
    for T, loss in zip((0, 1, 2, 5, 20, 100, 400), losses):
        assert loss.upper() <= plan.loss_bound(T).upper()


def test_cli_certify_and_recheck(tmp_path, capsys):
    out = tmp_path / "c.json"
    assert main(["certify", "prop1", "--d", "10", "11", "--eps", "0.1", "0.12", "--out", str(out)]) == 0
    # a small box is not the registered claim: stated, exit 1 unless --any-box (issue 27)
    assert main(["recheck", str(out)]) == 1
    assert "MISMATCH: the root does not cover the registered box" in capsys.readouterr().out
    assert main(["recheck", str(out), "--any-box"]) == 0
    assert main(["recheck", str(out), "--any-box", "--independent"]) == 0
    data = json.loads(out.read_text())
    data["leaves"] = []
    out.write_text(json.dumps(data))
    assert main(["recheck", str(out), "--any-box"]) == 1
    assert main(["recheck", str(out), "--any-box", "--independent"]) == 1
    assert main(["certify", "prop1", "--d", "11", "10", "--eps", "0.1", "0.12", "--out", str(out)]) == 2
    assert "error" in capsys.readouterr().err


def test_margins_of_every_group_are_finite():
    for group in ("prop1", "thm2", "cor1"):
        ms = margins(group, boxes.log_box(10, 10.05, 0.1, 0.1005), CONSTANTS, 96)
        assert all(m.is_finite() for m in ms.values())
        assert all(math.isfinite(float(m.mid())) for m in ms.values())


def test_cli_eval_certified_contains_the_mpmath_value(capsys):
    import mpmath

    assert main(["eval", "--d", "10", "--alpha-s", "3", "--beta-s", "2", "--dps", "20",
                 "--certified", "--json"]) == 0
    balls = json.loads(capsys.readouterr().out)
    assert main(["eval", "--d", "10", "--alpha-s", "3", "--beta-s", "2", "--dps", "20", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    with mpmath.workdps(40):
        for key, value in [("loss", plain["loss"]), *plain["grad"].items()]:
            ball = balls["loss"] if key == "loss" else balls["grad"][key]  # one shape with and without --certified
            mid, rad = mpmath.mpf(ball["mid"]), mpmath.mpf(ball["rad"])
            assert abs(mpmath.mpf(value) - mid) <= rad + abs(mid) * mpmath.mpf(10) ** -19


def test_registered_certified_checks_pass_and_a_mutation_turns_them_red():
    from verify.checks import Profile
    from verify.results import by_id

    for result_id in ("prop1", "cor1"):
        check = next(c for c in by_id(result_id).checks if c.id == f"{result_id}.certified_box")
        case = check.cases(Profile.QUICK, CONSTANTS, {})[0]
        assert check.judge(case, CONSTANTS).passed is True
    check = next(c for c in by_id("prop1").checks if c.id == "prop1.certified_box")
    case = check.cases(Profile.QUICK, CONSTANTS, {"d": [10, 11], "eps": [0.01, 0.012]})[0]
    bad = dict(CONSTANTS, **{"prop1.attention_constant": Fraction(1, 10**6)})
    outcome = check.judge(case, bad)
    assert outcome.passed is False and "COUNTEREXAMPLE" in outcome.detail


def test_check_certified_runs_only_certified_checks(capsys):
    assert main(["check", "cor1", "--certified", "--profile", "quick"]) == 0
    out = capsys.readouterr().out
    assert "cor1.certified_box" in out and "cor1.population" not in out


def test_phase3_matrix_is_self_adjoint_in_the_metric():
    """proofs/monotonicity.md rests on a12 = (d - 1) a21 (A = W^-1 H with H symmetric)."""
    from flint import arb

    for d in (3, 10, 1000):
        with precision(128):
            eta1 = arb(d).sqrt()
            eta2 = 2 * arb(d) ** 2 / eta1 * (arb(d) / arb("0.1")).log()
        plan = ball_three_phase(d, eta1, eta2, 1, 128)
        with precision(128):
            assert (plan.A[0][1] - (d - 1) * plan.A[1][0]).contains(0)
            assert plan.A[0][1] > 0


def test_a_box_budget_leaves_the_rest_unreached_and_undecided():
    """The registered checks stop after a number of judged boxes (not seconds), so a run gives
    the same verdict on any machine; what the budget does not reach is undecided, never passed."""
    consts = values(load())
    root = boxes.log_box(2, 30, 0.05, 0.99)
    run = boxes.branch_and_bound("prop1", root, consts, 96, 30, max_boxes=3)
    assert run.status is None
    assert any(leaf.status == "unreached" for leaf in run.leaves)
    again = boxes.branch_and_bound("prop1", root, consts, 96, 30, max_boxes=3)
    assert [leaf.box for leaf in again.leaves] == [leaf.box for leaf in run.leaves]
    assert " s;" not in run.summary(timed=False) and "s" in run.summary()
    share = run.certified_share()
    assert 0 <= share < 1 and f"certified {100 * share:.3g}% of the box's area" in run.summary()
    whole = boxes.branch_and_bound("prop1", boxes.log_box(10, 11, 0.1, 0.12), consts, 96, 30)
    assert whole.status is True and whole.certified_share() == pytest.approx(1.0)
    assert "% of the box" not in whole.summary()


# ----------------------------------------------------------- starting from a certificate's leaves

SEEDED = boxes.log_box(10, 60, 0.05, 0.5)


@pytest.fixture(scope="module")
def seeded_certificate():
    run = boxes.branch_and_bound("prop1", SEEDED, CONSTANTS, 96, 30, max_boxes=400)
    assert run.status is True and len(run.leaves) > 4
    return run, json.loads(json.dumps(certificate.certificate(run, CONSTANTS)))


def _counting(monkeypatch) -> list:
    judged = []
    real = boxes.judge

    def judge(group, box, *args, **kwargs):
        judged.append(box)
        return real(group, box, *args, **kwargs)

    monkeypatch.setattr(boxes, "judge", judge)
    return judged


def test_a_run_from_a_certificate_has_the_same_leaves_for_half_the_boxes(seeded_certificate,
                                                                       monkeypatch):
    run, data = seeded_certificate
    start = certificate.seed(data, "prop1", SEEDED, CONSTANTS, 96, "centred", 30, 400)
    judged = _counting(monkeypatch)
    again = boxes.branch_and_bound("prop1", SEEDED, CONSTANTS, 96, 30, max_boxes=400, start=start)
    assert [(l.box, l.depth, l.status, l.margins) for l in again.leaves] == \
        [(l.box, l.depth, l.status, l.margins) for l in run.leaves]
    assert again.summary(timed=False) == run.summary(timed=False)
    assert len(judged) == len(run.leaves) < 2 * len(run.leaves) - 1


@pytest.mark.parametrize("change", ["constants", "axes", "root", "leaf lost", "leaf undecided",
                                    "budget", "depth", "method", "bits", "group"])
def test_a_certificate_that_a_run_would_not_end_with_is_not_used(seeded_certificate, change,
                                                                 monkeypatch):
    _, data = seeded_certificate
    data, consts, root, budget, depth = copy.deepcopy(data), CONSTANTS, SEEDED, 400, 30
    if change == "constants":
        consts = dict(CONSTANTS, **{"prop1.attention_constant": Fraction(5)})
    elif change == "axes":
        data["axes"] = ["ln d", "ln eps", "u", "v"]
    elif change in ("method", "bits", "group"):
        data[change] = {"method": "plain", "bits": 64, "group": "thm2"}[change]
    elif change == "root":
        root = boxes.log_box(10, 61, 0.05, 0.5)
    elif change == "leaf lost":
        data["leaves"].pop(1)
    elif change == "leaf undecided":
        data["leaves"][0]["status"] = "undecided"
    elif change == "budget":
        budget = len(data["leaves"])
    else:
        depth = 1
    assert certificate.seed(data, "prop1", root, consts, 96, "centred", depth, budget) is None


def test_a_certificate_of_other_code_or_format_1_still_seeds_and_says_so(seeded_certificate,
                                                                        tmp_path, monkeypatch):
    """Item 3 of issue 28: every leaf is judged again, so the code fingerprint is not needed for
    soundness: a certificate written by other code (or in format 1) seeds the run, and the
    outcome says the fingerprint differs."""
    from verify.certify import outcomes

    run, data = seeded_certificate
    old = dict(copy.deepcopy(data), code="another", format="verify-certificate/1")
    del old["axes"], old["claim"]
    assert certificate.seed(old, "prop1", SEEDED, CONSTANTS, 96, "centred", 30, 400) is not None
    (tmp_path / "prop1-old.json").write_text(json.dumps(old))
    monkeypatch.setattr(outcomes, "CERTIFICATES", tmp_path)
    judged = _counting(monkeypatch)
    out = outcomes.judge_certified("prop1", outcomes.box_case(10, 60, 0.05, 0.5, 400), CONSTANTS)
    assert out.passed is True and len(judged) == len(run.leaves)
    assert "fingerprint differs" in out.detail and "prop1-old.json" in out.detail
    assert "fingerprint differs" in certificate.recheck(old).notes[0]
    assert certificate.recheck(old).ok and not certificate.recheck(old, check_code=True).ok


def test_the_registered_box_starts_from_a_matching_certificate_in_the_folder(seeded_certificate,
                                                                           tmp_path, monkeypatch):
    from verify.certify import outcomes

    run, data = seeded_certificate
    (tmp_path / "prop1-test.json").write_text(json.dumps(data))
    case = outcomes.box_case(10, 60, 0.05, 0.5, 400)
    monkeypatch.setattr(outcomes, "CERTIFICATES", tmp_path / "none")
    judged = _counting(monkeypatch)
    plain = outcomes.judge_certified("prop1", case, CONSTANTS)
    from_root = len(judged)
    monkeypatch.setattr(outcomes, "CERTIFICATES", tmp_path)
    seeded = outcomes.judge_certified("prop1", case, CONSTANTS)
    assert (plain.values["route"], seeded.values["route"]) == (Route.ROOT, Route.RE_JUDGED)
    same = {k: v for k, v in plain.values.items() if k != "route"}
    assert seeded == dataclasses.replace(plain, values={**same, "route": Route.RE_JUDGED.value})
    assert plain.passed is True  # the same verdict, margin and detail from either start
    assert len(judged) - from_root == len(run.leaves) < from_root


@pytest.mark.parametrize("forgery", ["a leaf removed", "the leaves merged into the root"])
def test_a_committed_certificate_that_fails_is_named_invalid_not_replaced(
        seeded_certificate, tmp_path, monkeypatch, forgery):
    """Issue 37 item 3: a committed certificate made for the case that is not one (its leaves
    do not tile the box) or that this code does not certify again (one leaf for the whole box,
    which the run has to split) makes the check fail, named INVALID; only a run from the root
    asked for (``from_root``, `verify check --from-root`) proves the box without it."""
    from verify.certify import outcomes

    _, data = seeded_certificate
    data = json.loads(json.dumps(data))
    if forgery == "a leaf removed":
        del data["leaves"][1]
    else:
        data["leaves"] = [{**data["leaves"][0], "box": data["root"], "depth": 0}]
    (tmp_path / "prop1-test.json").write_text(json.dumps(data))
    monkeypatch.setattr(outcomes, "CERTIFICATES", tmp_path)
    case = outcomes.box_case(10, 60, 0.05, 0.5, 400)
    found = outcomes.judge_certified("prop1", case, CONSTANTS)
    assert found.passed is False and found.values["route"] == Route.INVALID
    assert f"{tmp_path.name}/prop1-test.json is INVALID" in found.values["invalid"]
    asked = outcomes.judge_certified("prop1", Case(case.label, {**case.params, "from_root": True}),
                                     CONSTANTS)
    assert asked.passed is True and asked.values["route"] == Route.ROOT
