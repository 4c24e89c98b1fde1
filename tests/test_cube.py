"""The moments over boxes of successive ratios (verify.engine.certified.ratios), their floors
(ratio_floors) and the cube branch and bound (verify.certify.cube): two routes agree, the box
enclosures contain the values at points of the box, the tail bounds dominate, and the mutations
(a raised constant, an engine fault that shrinks an enclosure) turn the judges red."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

import flint
from flint import arb  # noqa: E402

from verify.certify import cube, cube_certificate  # noqa: E402
from verify.certify.verdicts import Route, Sample  # noqa: E402
from verify.engine import general  # noqa: E402
from verify.engine.certified import ratios  # noqa: E402
from verify.engine.certified.floors import unconstrained_floor  # noqa: E402
from verify.engine.certified.jets import Jet  # noqa: E402
from verify.engine.certified.ratio_floors import cone_shift, loss_at, quadratic_floor  # noqa: E402

C2 = {"prop3.c2": Fraction(1, 10)}
C1 = {"prop2.c1": Fraction(1, 5)}


def _alpha(r) -> list[float]:
    out = [0.0]
    for x in r:
        out.append(out[-1] + math.log(x))
    return out


def _floors(mom, d):
    return [unconstrained_floor(mom.second, mom.positive[s], 64) for s in range(d)]


@pytest.mark.parametrize("d, r", [(3, (0.5, 0.25)), (3, (1.0, 1.0)), (4, (0.9, 0.3, 0.7)),
                                  (5, (0.8, 0.6, 0.9, 0.5)), (3, (0.001953125, 0.125))])
def test_two_routes_agree_at_interior_points(d, r):
    """The stratified integrals and the general engine's single integral (its own integrands,
    pieces, head and tail bounds) enclose the same moments."""
    assert cube.agrees_with_general(d, r, d - 1)
    assert cube.agrees_with_general(d, r, 0)


def test_uniform_attention_gives_the_closed_form():
    """r = (1, .., 1) is alpha = 0: every target's floor is 1/2 - (d-2)/(2(d-1) ln(d-1))."""
    for d in (3, 4):
        mom = ratios.point_moments(d, [1.0] * (d - 1), range(d))
        for f in _floors(mom, d):
            assert f.overlaps(cube.uniform_floor(d)) and f.rad() < 1e-12


def test_faces_are_the_limit_of_large_gaps():
    """On a face r_k = 0 the stratified moments are the limit of gaps growing to infinity:
    r_k = 1e-12 is within 1e-10 of r_k = 0 (continuity, proofs/prop3.md)."""
    for r0, r1 in [((0.0, 0.5), (1e-12, 0.5)), ((0.3, 0.0), (0.3, 1e-12)), ((0.0, 0.0), (1e-12, 1e-12))]:
        a = ratios.point_moments(3, r0, range(3)).entries()
        b = ratios.point_moments(3, r1, range(3)).entries()
        assert max(abs(float((x - y).mid())) for x, y in zip(a, b)) < 1e-10


def test_loss_formula_matches_the_float_engine():
    """L_s(beta) = 1/2 b'Mb - 2 b'm_s + 1 (= 1/2 b'Mb - b'E[gamma(1+y)] + 1) against the float
    engine's loss pass (slice contraction, another kernel) at random attention and output."""
    rng = np.random.default_rng(3)
    for d in (3, 4):
        r = tuple(float(x) for x in rng.uniform(0.2, 1.0, d - 1))
        mom = ratios.point_moments(d, r, range(d))
        for s in range(d):
            beta = rng.normal(size=d)
            ours = float(loss_at(mom, s, beta).mid())
            ref = general.loss_float(d, s, _alpha(r), beta).value
            assert abs(ours - ref) < 1e-9


def test_jets_differentiate_twice():
    x = Jet.variable(arb(2), 0, 2)
    y = Jet.variable(arb(3), 1, 2)
    f = (x * y).exp() / (1 + x * x) - (-y).expm1()
    h = 1e-6

    def F(a, b):
        return math.exp(a * b) / (1 + a * a) - math.expm1(-b)

    assert f.v.overlaps(arb(F(2, 3)))
    assert abs(float(f.g[0].mid()) - (F(2 + h, 3) - F(2 - h, 3)) / (2 * h)) < 1e-3 * abs(float(f.g[0].mid()))
    fxy = (F(2 + h, 3 + h) - F(2 + h, 3 - h) - F(2 - h, 3 + h) + F(2 - h, 3 - h)) / (4 * h * h)
    assert abs(float(f.H[1].mid()) - fxy) < 1e-3 * abs(fxy)


def test_box_enclosures_contain_the_values_at_points():
    """Moments, floors and their gradients over a box contain the values (and central
    differences) at points of the box, the corners included."""
    d, box = 3, ((0.25, 0.3125), (0.5, 0.5625))
    bm = ratios.box_moments(d, box, range(d))
    fl = [quadratic_floor(bm, s) for s in range(d)]
    rng = np.random.default_rng(1)
    pts = [(lo0, lo1) for lo0 in box[0] for lo1 in box[1]] + [
        tuple(float(rng.uniform(lo, hi)) for lo, hi in box) for _ in range(3)]
    for r in pts:
        mom = ratios.point_moments(d, r, range(d))
        assert all(a.overlaps(b) for a, b in zip(mom.entries(), bm.over_box.entries()))
        for f, g in zip(_floors(mom, d), fl):
            assert f.overlaps(g.value)
    h = 1e-5
    c = (0.28, 0.53)
    for k in range(2):
        up = list(c)
        dn = list(c)
        up[k] += h
        dn[k] -= h
        fu = _floors(ratios.point_moments(d, up, range(d)), d)
        fd = _floors(ratios.point_moments(d, dn, range(d)), d)
        for s in range(d):
            diff = float(((fu[s] - fd[s]) / (2 * h)).mid())
            assert fl[s].gradient[k].overlaps(arb(diff, 1e-6)), (k, s)
    assert all(g.value.rad() < 0.02 for g in fl)  # and they are narrow


def test_the_envelope_dominates_the_integrands():
    """The lemma behind the tail bounds, pointwise: |f| <= K0 (1 + t) e^-t, |df/dr_k| <=
    8 P K0 (1 + t)^2 e^-t, |d^2 f| <= 80 P^2 K0 (1 + t)^3 e^-t for every entry (jets at real t,
    random r in the cube, the faces included), and the tail bounds are their integrals."""
    rng = np.random.default_rng(2)
    for d in (3, 4):
        K0, P = (float(x) for x in ratios.envelope(d))
        for r in [list(rng.uniform(0, 1, d - 1)), [0.0] * (d - 1), [1.0] * (d - 1)]:
            for st in ratios.strata(d, range(d)):
                nv = st.n - 1
                w = ratios.stratum_weights(st.h, st.n, [None] * st.h + [
                    Jet.variable(arb(float(r[st.h + l])), l, nv) for l in range(nv)])
                for t in (0.0, 0.01, 0.5, 2.0, 7.0, 30.0):
                    env = (1 + t) * math.exp(-t) * K0
                    for x in ratios.stratum_terms(st, arb(t), w, ratios.constants(d, st.n)):
                        v = x.v if isinstance(x, Jet) else x
                        assert float(abs(v).upper()) <= env and float(v.lower()) >= -1e-30
                        if isinstance(x, Jet):
                            assert all(float(abs(g).upper()) <= 8 * P * (1 + t) * env for g in x.g)
                            assert all(float(abs(h).upper()) <= 80 * P * P * (1 + t) ** 2 * env
                                       for h in x.H)
    B0, B1, B2 = ratios.tails(3, arb(5))
    K0, P = ratios.envelope(3)
    assert abs(float((B0 - K0 * 7 * arb(-5).exp()).mid())) < 1e-15  # int_5^inf (1 + t) e^-t = 7 e^-5


def test_a_dropped_tail_is_caught(monkeypatch):
    """An engine fault that shrinks an enclosure (the cut moved to t = 2 and its tail bound
    replaced by 0) makes the stratified moments miss the general engine's: the judge says
    'disagree' and the run fails."""
    monkeypatch.setattr(ratios, "T_CUT", 2.0)
    monkeypatch.setattr(ratios, "tails", lambda d, T: (arb(0), arb(0), arb(0)))
    problem = cube.PROBLEMS["prop3-cube-d3"]
    j = cube.judge(problem, ((0.75, 0.8125), (0.75, 0.8125)), C2)
    assert j.status == "disagree"
    run = cube.branch_and_bound(problem, C2, start=[(((0.75, 0.8125), (0.75, 0.8125)), 0)])
    assert run.status is False


def test_a_scaled_moment_is_caught(monkeypatch):
    """A second moment scaled by 0.999 (an assembly fault) disagrees with the general engine."""
    real = ratios.assemble

    def scaled(d, targets, values):
        m = real(d, targets, values)
        return m.like([x * arb("0.999") if k < d * d else x for k, x in enumerate(m.entries())])

    monkeypatch.setattr(ratios, "assemble", scaled)
    j = cube.judge(cube.PROBLEMS["prop2-cone-d3"], ((1.0, 2.0), (0.5, 0.5625), (0.5, 0.5625)), C1)
    assert j.status == "disagree"


def test_prop3_box_certifies_and_a_raised_constant_fails():
    """Near alpha = 0 at d = 3 the floor is about 0.1393: a box there certifies c2 = 1/10, and
    c2 = 3/20 (above the floor at alpha = 0) makes the corner box a counterexample region."""
    problem = cube.PROBLEMS["prop3-cube-d3"]
    corner = ((0.96875, 1.0), (0.96875, 1.0))
    assert cube.judge(problem, corner, C2).status == "certified"
    assert cube.judge(problem, corner, {"prop3.c2": Fraction(3, 20)}).status == "failing"
    run = cube.branch_and_bound(problem, {"prop3.c2": Fraction(3, 20)}, start=[(corner, 0)])
    assert run.status is False


def test_sharp_corner_by_the_gradient_and_a_raised_bound_fails(monkeypatch):
    """The box at alpha = 0 is certified by the sign of the gradient of F_d; a box next to it
    by F > F(0).  Raising F(0) by 0.01 (a wrong closed form) makes that box a counterexample."""
    problem = cube.PROBLEMS["prop3-sharp-d3"]
    corner = ((0.984375, 1.0), (0.984375, 1.0))
    j = cube.judge(problem, corner, {})
    assert j.status == "certified" and j.target == 2
    side = ((0.96875, 0.984375), (0.984375, 1.0))
    assert cube.judge(problem, side, {}).status == "certified"
    real = cube.uniform_floor
    monkeypatch.setattr(cube, "uniform_floor", lambda d: real(d) + arb("0.01"))
    assert cube.judge(problem, side, {}).status == "failing"


def test_prop2_dual_bound_is_below_the_cone_minimum():
    """At a point the dual bound (any lambda >= 0) is below the loss at every beta~ of the cone,
    and with the chosen multipliers it meets the cone's minimum (strong duality)."""
    d, s = 3, 1
    bm = ratios.box_moments(d, ((0.6, 0.6), (0.3, 0.3)), [s])
    M = np.array([[float(bm.at_centre.second[i, j].mid()) for j in range(d)] for i in range(d)])
    m = np.array([float(x.mid()) for x in bm.at_centre.positive[s]])
    lam, beta = cube.cone_multipliers(M, m, s)
    fl = quadratic_floor(bm, s, cone_shift(d, s, list(lam)))
    rng = np.random.default_rng(4)
    for _ in range(20):
        b = rng.normal(size=d) * 2
        b[[j for j in range(d) if j != s]] = np.maximum(b[[j for j in range(d) if j != s]], b[s])
        assert fl.value <= loss_at(bm.at_centre, s, b) or fl.value.overlaps(loss_at(bm.at_centre, s, b))
    gap = loss_at(bm.at_centre, s, beta) - fl.value
    assert float(gap.upper()) < 1e-6


def test_prop2_box_certifies_and_a_raised_constant_fails():
    problem = cube.PROBLEMS["prop2-cone-d3"]
    box = ((2.0, 3.0), (0.5, 0.5625), (0.5, 0.5625))
    assert cube.judge(problem, box, C1).status == "certified"
    assert cube.judge(problem, box, {"prop2.c1": Fraction(11, 20)}).status == "failing"


def test_coverage_in_any_dimension():
    root = ((0.0, 1.0), (0.0, 1.0), (0.0, 1.0))
    good = [((0.0, 0.5), (0.0, 1.0), (0.0, 1.0)), ((0.5, 1.0), (0.0, 0.5), (0.0, 1.0)),
            ((0.5, 1.0), (0.5, 1.0), (0.0, 1.0))]
    assert cube_certificate.coverage_problems(root, good) == []
    assert cube_certificate.coverage_problems(root, good[:2])  # a gap
    assert cube_certificate.coverage_problems(root, good + [((0.0, 0.25), (0.0, 0.5), (0.0, 0.5))])


def test_split_keeps_target_cells_whole():
    assert cube.split(((0.0, 3.0), (0.0, 1.0)), 0) == (((0.0, 1.0), (0.0, 1.0)), ((1.0, 3.0), (0.0, 1.0)))
    assert cube.split(((1.0, 3.0), (0.0, 1.0)), 0)[0] == ((1.0, 2.0), (0.0, 1.0))
    assert cube.split(((0.0, 1.0), (0.0, 0.5)), 1) == (((0.0, 1.0), (0.0, 0.25)), ((0.0, 1.0), (0.25, 0.5)))


# ------------------------------------------------------------- the checks and their certificates


def _check(result_module, check_id):
    from verify.checks import Profile

    check = next(c for c in result_module.RESULT.checks if c.id == check_id)
    return check, check.cases(Profile.DEFAULT, {}, {"d": [3]})[0]


def _dropped_tail(monkeypatch):
    monkeypatch.setattr(ratios, "T_CUT", 2.0)
    monkeypatch.setattr(ratios, "tails", lambda d, T: (arb(0), arb(0), arb(0)))


@pytest.mark.parametrize("module, check_id, consts", [
    ("prop3", "prop3.all_attention", C2), ("prop3", "prop3.sharp", {}),
    ("prop2", "prop2.all_parameters", C1)])
def test_checks_fail_under_a_dropped_tail(module, check_id, consts, monkeypatch):
    """The engine fault of test_a_dropped_tail_is_caught, through the registered checks from
    their committed certificates: the first leaf re-judged disagrees (on the default profile's
    route, a sampled leaf), or, for prop3.sharp whose sampled leaves happen to agree, the
    symmetry of the gradient at alpha = 0 fails to the balls' precision; the check fails and
    says why (never "engine only").

    The fault is planted in this process; the independent checker runs in its own process with
    isolated imports, so the fault cannot reach it and its verdict on the committed file is the
    same with or without it.  It is stood in for here by an acceptance (its real run on
    prop2-cone-d3 costs about 280 CPU-s, a fifth of the suite): the engine's route is what this
    test measures.  The checker's own verdicts on these files are tested in
    tests/test_checker_cube.py (slow) and judged by `verify all`'s default profile."""
    import importlib

    from verify.certify import cube_certificate as route

    check, case = _check(importlib.import_module(f"verify.results.{module}"), check_id)
    calls = []
    monkeypatch.setattr(route, "checker_on", lambda path, group, values: calls.append(group) or (
        True, f"certificate holds (independent checker, stood in for {group}, "
              "smallest enclosed margin 0, 0.0 s)"))
    _dropped_tail(monkeypatch)
    out = check.judge(case, consts)
    caught = (out.values["disagree"] > 0 or out.values.get("sample") == Sample.DISAGREES
              or out.values.get("symmetry") == "fails")
    assert out.passed is False and caught, out.detail
    assert out.values["route"] == Route.CHECKER_DECIDES  # never the engine alone
    assert calls  # the route asked its checker before the engine's sample


def test_recheck_catches_a_tampered_leaf_and_a_gap():
    import json

    data = json.loads((cube_certificate.CERTIFICATES / "prop3-cube-d3.json").read_text())
    problem = cube.PROBLEMS["prop3-cube-d3"]
    boxes = [cube_certificate.leaf_box(leaf["box"]) for leaf in data["leaves"]]
    assert cube_certificate.coverage_problems(problem.root, boxes) == []
    assert cube_certificate.coverage_problems(problem.root, boxes[1:])
    leaf = data["leaves"][0]
    stored = tuple(float.fromhex(x) for x in leaf["margins"]["prop3.all_attention"])
    item = (0, "prop3-cube-d3", boxes[0], stored, C2)
    assert cube_certificate.recheck_leaf(item) == []
    assert cube_certificate.recheck_leaf((0, "prop3-cube-d3", boxes[0], (5.0, 6.0), C2))


@pytest.mark.slow
@pytest.mark.parametrize("group", ["prop3-cube-d3", "prop3-sharp-d3", "prop2-cone-d3"])
def test_committed_certificates_recheck(group):
    import json

    data = json.loads((cube_certificate.CERTIFICATES / f"{group}.json").read_text())
    result = cube_certificate.recheck(data)
    assert result.ok, result.problems


@pytest.mark.parametrize("forgery", ["a leaf removed", "one leaf for the whole cube"])
def test_a_committed_cube_certificate_that_fails_is_named_invalid(tmp_path, forgery):
    """Issue 37 item 3: the check fails and names the file INVALID instead of going on from the
    root; `verify check --from-root` (the case's ``from_root``) proves the cube without it."""
    from verify.certify import cube_certificate
    from verify.checks import Case
    from verify.constants import load, values

    constants = values(load())
    data = json.loads((cube_certificate.CERTIFICATES / "prop3-cube-d3.json").read_text())
    if forgery == "a leaf removed":
        del data["leaves"][3]
    else:
        data["leaves"] = [{**data["leaves"][0], "box": data["root"], "depth": 0}]
    (tmp_path / "prop3-cube-d3.json").write_text(json.dumps(data))
    found = cube_certificate.cube_outcome("prop3-cube-d3", Case("d=3", {"d": 3, "boxes": 400}),
                                          constants, 400, tmp_path)
    assert found.passed is False and found.values["route"] == Route.INVALID
    assert f"{tmp_path.name}/prop3-cube-d3.json is INVALID" in found.values["invalid"]
    asked = cube_certificate.cube_outcome(
        "prop3-cube-d3", Case("d=3", {"d": 3, "boxes": 400, "from_root": True}), constants, 400,
        tmp_path)
    assert asked.passed is True and asked.values["route"] == Route.ROOT


def test_parts_tile_the_root_and_need_no_arithmetic():
    from verify.certify import cube_parts

    for group, count in (("prop3-cube-d3", 16), ("prop3-sharp-d5", 256), ("prop2-cone-d3", 16)):
        problem = cube.PROBLEMS[group]
        top = cube_parts.parts(problem, C2 | C1)
        assert len(top) == count
        offset = 1 if problem.kind == "cone" else 0
        assert all(hi - lo <= cube.PRESPLIT for box, _ in top for lo, hi in box[offset:])
        assert cube_certificate.coverage_problems(problem.root, [box for box, _ in top]) == []


def test_parts_on_two_processes_give_the_committed_leaves_and_resume_from_the_journal(
        tmp_path, monkeypatch):
    """The root's parts on a process pool find exactly the leaves of the committed certificate
    (written by one branch and bound from the root), with the same count of judged boxes; a
    second run over the same journal judges nothing again."""
    from verify.certify import cube_parts
    from verify.run.executors import Process

    problem, journal = cube.PROBLEMS["prop3-cube-d3"], tmp_path / "j.jsonl"
    with Process(2) as pool:
        run = cube_parts.certify(problem, C2, pool, journal)
    committed = json.loads((cube_certificate.CERTIFICATES / "prop3-cube-d3.json").read_text())
    written = cube_certificate.certificate(run, C2)
    assert run.status is True and written["judged"] == committed["judged"]
    key = lambda leaf: (leaf["box"], leaf["depth"], leaf["status"], leaf["target"])  # noqa: E731
    assert sorted(map(key, written["leaves"])) == sorted(map(key, committed["leaves"]))

    def no_judging(*args):
        raise AssertionError("a box judged again")

    monkeypatch.setattr(cube, "judge", no_judging)
    again = cube_parts.certify(problem, C2, None, journal)
    assert [leaf.box for leaf in again.leaves] == [leaf.box for leaf in run.leaves]
