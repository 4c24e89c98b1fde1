"""The independent checker (verify/checker, proofs/checker.md): its agreement with three other
routes (exact enumeration, the mpmath engine at 40 digits, the engine's Arb route), what a
recheck says and binds (issue 27 item 5), the default profile's use of it, and the fault
catalogue: faults injected into the engine's shared code make the engine certify a small box,
and the checker rejects every such certificate."""
from __future__ import annotations

import copy
import json
import math
import random
import tempfile
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest


from flint import arb, ctx  # noqa: E402

from verify.certify import boxes, centred, certificate  # noqa: E402
from verify.certify.claims import margins as engine_margins  # noqa: E402
from verify.certify.verdicts import Checker  # noqa: E402
from verify.checker import claims, model, recheck as checker  # noqa: E402
from verify.cli import main  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.engine import enumeration, expectations, generated, schedules, symbolic  # noqa: E402
from verify.engine.certified import symmetric as ball_symmetric  # noqa: E402
from verify.engine.context import MP  # noqa: E402
from verify.engine.symmetric import attention_state, evaluate_at  # noqa: E402

K = values(load())
ROOT = Path(__file__).resolve().parent.parent
CERTS = ROOT / "certificates"


@pytest.fixture(autouse=True)
def bits():
    old = ctx.prec
    ctx.prec = 96
    yield
    ctx.prec = old


def to_arb(x) -> arb:
    """A Fraction, int, float or mpf as a ball (an mpf through 60 significant digits)."""
    if isinstance(x, Fraction):
        return arb(x.numerator) / x.denominator
    if isinstance(x, mpmath.mpf):
        return arb(mpmath.nstr(x, 60))
    return arb(x)


def contains(ball: arb, value, slack=0) -> bool:
    """``value`` lies in ``ball`` widened by ``slack`` (an error bound of the other route)."""
    return (ball + arb(0, float(slack))).overlaps(value if isinstance(value, arb) else to_arb(value))


def checker_state(d, gap, beta_s, beta_j):
    """The checker's (nu_1, nu_2) and (L, dL/dbeta_s, dL/dbeta_j) at one point."""
    n1, n2 = model.nu_at(arb(d), arb(d) * (-to_arb(gap)).exp())
    return (n1, n2), model.loss_gradient(arb(d), n1, n2, to_arb(beta_s), to_arb(beta_j))


# -- agreement with exact enumeration (d = 2, 3, 4), a route sharing no code ----------------------

@pytest.mark.parametrize("d", [2, 3, 4])
@pytest.mark.parametrize("gap, beta", [(0, (0, 0)), (Fraction(3, 2), (Fraction(6, 5), Fraction(3, 10))),
                                       (-2, (2, 0)), (8, (Fraction(-1, 2), 1))])
def test_moments_loss_and_output_gradient_agree_with_exact_enumeration(d, gap, beta):
    L = {2: 1, 3: 140, 4: 230}[d]
    truth = enumeration.symmetric_truth(d, gap, 0, *beta, L, 40)
    (n1, n2), (loss, gs, gj) = checker_state(d, gap, *beta)
    for mine, name, exact in [(n1, "nu", truth.nu[1]), (n2, "nu", truth.nu[2]),
                              (loss, "loss", truth.loss), (gs, "grad_beta_s", truth.grad_beta_s),
                              (gj, "grad_beta_j", truth.grad_beta_j)]:
        assert contains(mine, exact, truth.error_bound(name)), (name, mine, exact)


@pytest.mark.parametrize("d", [3, 4, 7])
def test_phases_1_and_2_agree_with_exact_enumeration(d):
    """beta' = -eta1 grad_beta L(0, 0) and grad_alpha_s L(0, beta') = -eta1 ell (d-1)/d^3 at a
    rational eta1 (the checker's eta1 = scale sqrt(d))."""
    eta1 = Fraction(3, 2)
    L = {3: 140, 4: 230, 7: 500}[d]
    origin = enumeration.symmetric_truth(d, 0, 0, 0, 0, L, 40)
    b1s, b1j = model.phase1(arb(d), to_arb(eta1))
    for mine, key in [(b1s, "grad_beta_s"), (b1j, "grad_beta_j")]:
        want = -to_arb(eta1) * to_arb(getattr(origin, key))
        assert (mine + arb(0, 2 * float(origin.error_bound(key)))).overlaps(want), key
    beta1 = (2 * eta1 / d, eta1 * (d - 2) / (d * (d - 1)))
    phase2 = enumeration.symmetric_truth(d, 0, 0, *beta1, L, 40)
    ell = model.phase2_rate(arb(d), to_arb(eta1) / arb(d).sqrt())
    g_s = -to_arb(eta1) * ell * (d - 1) / arb(d) ** 3
    assert contains(g_s, phase2.grad_alpha_s, phase2.error_bound("grad_alpha_s"))


# -- agreement with the mpmath engine at 40 digits -----------------------------------------------

def seeded_points(n=20, seed=27):
    rng = random.Random(seed)
    out = [(10**9, 200.0, 2.0, 0.0), (3, -200.0, 0.5, -1.0)]
    while len(out) < n:
        out.append((max(2, int(10 ** rng.uniform(0.3, 9))), rng.uniform(-200, 200),
                    rng.uniform(-3, 3), rng.uniform(-3, 3)))
    return out


@pytest.mark.parametrize("d, gap, beta_s, beta_j", seeded_points())
def test_agrees_with_the_mpmath_engine_at_40_digits(d, gap, beta_s, beta_j):
    ev = evaluate_at(attention_state(d, mpmath.mpf(gap), 40), beta_s, beta_j)
    (n1, n2), (loss, gs, gj) = checker_state(d, gap, beta_s, beta_j)
    for mine, key, value in [(loss, "loss", ev.loss), (gs, "beta_s", ev.grad["beta_s"]),
                             (gj, "beta_j", ev.grad["beta_j"])]:
        err = ev.error["loss" if key == "loss" else key] + abs(value) * mpmath.mpf(10) ** -30
        assert contains(mine, value, err), (key, mine, value)
    if ev.family == "nu":
        for mine, value, err in zip((n1, n2), ev.moments, attention_state(d, mpmath.mpf(gap), 40).errors):
            assert contains(mine, value, err + abs(value) * mpmath.mpf(10) ** -30)


# -- agreement with the engine's Arb route --------------------------------------------------------

@pytest.mark.parametrize("d, gap", [(3, 1.0), (10, 7.5), (1000, 30.0), (10**7, 80.0)])
def test_moments_agree_with_the_engines_arb_balls(d, gap):
    theirs = ball_symmetric.ball_state(d, gap, 96).moments
    mine = model.nu_at(arb(d), arb(d) * arb(-gap).exp())
    assert all(a.overlaps(b) for a, b in zip(mine, theirs[:2]))


@pytest.mark.parametrize("group", ["prop1", "thm2", "cor1"])
@pytest.mark.parametrize("d, eps", [(3.5, 0.3), (40, 0.01), (2e6, 1e-5)])
def test_margins_agree_with_the_engines_plain_route(group, d, eps):
    box = boxes.log_box(d, d * (1 + 1e-9), eps, eps * (1 + 1e-9))
    theirs = engine_margins(group, box, K, 128)
    mine = claims.evaluate(group, box, K)
    assert mine["ok"] > 0
    for claim, ball in theirs.items():
        kind, key = claims.RECORDED["plain"][claim]
        if not ball.is_finite():
            continue
        if kind == "two":
            assert ball.overlaps(mine[key]), (claim, ball, mine[key])
        else:
            assert ball.lower() <= mine[key].upper(), (claim, ball, mine[key])
        assert mine[claims.OWN[claim]] > 0


def test_the_quadratics_closed_forms_match_its_loss():
    """b*, L* = b*_j/2 and lambda_1 of section 6 against the loss polynomial itself: the
    gradient at b* vanishes, L(b*) = L*, and A's eigenvalues solve its characteristic equation."""
    d = arb(7)
    n1, n2 = model.nu_at(d, arb("0.03"))
    g = lambda bs, bj: model.loss_gradient(d, n1, n2, arb(bs), arb(bj))  # noqa: E731
    c = (-g(0, 0)[1], -g(0, 0)[2])
    A = [[g(1, 0)[1] + c[0], g(0, 1)[1] + c[0]], [g(1, 0)[2] + c[1], g(0, 1)[2] + c[1]]]
    den = 1 / arb(4) - n1 + n2 - n1 * n1
    star = (2 + (n1 - n2) / den, (n2 - 2 * n1 * n1) / den)
    loss, gs, gj = model.loss_gradient(d, n1, n2, *star)
    assert all(x.overlaps(arb(0)) and x.rad() < 1e-15 for x in (gs, gj))
    assert loss.overlaps(star[1] / 2)
    assert (A[1][0] * (d - 1)).overlaps(A[0][1])  # W-self-adjoint: a12 = (d - 1) a21
    det = A[0][0] * A[1][1] - A[0][1] * A[1][0]
    assert (det * (d - 1)).overlaps(den)


# -- what a recheck proves, and binding it (issue 27 item 5) -------------------------------------

def committed(group: str) -> dict:
    return json.loads((CERTS / f"{group}-whole-box.json").read_text())


def write(tmp_path, data, name="c.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def cut_down(data: dict, most: int = 8) -> dict:
    """The certificate cut to the first sub-box of its tree holding at most ``most`` leaves."""
    cert = checker.read(data)
    box = cert.root
    while True:
        inside = [i for i, leaf in enumerate(cert.leaves)
                  if all(box[2 * k] <= leaf["box"][2 * k] and leaf["box"][2 * k + 1] <= box[2 * k + 1]
                         for k in range(2))]
        if len(inside) <= most:
            break
        box = checker.split(box)[0]
    out = copy.deepcopy(data)
    out["root"] = [float(x).hex() for x in box]
    out["leaves"] = [data["leaves"][i] for i in inside]
    return out


@pytest.mark.parametrize("flags", [[], ["--independent"]])
def test_a_cut_down_certificate_is_not_the_registered_claim(tmp_path, capsys, flags):
    small = cut_down(committed("prop1"))
    assert 1 <= len(small["leaves"]) <= 8
    path = write(tmp_path, small)
    assert main(["recheck", path, *flags]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH: the root does not cover the registered box" in out and "claim: prop1" in out
    if flags:  # its own claim holds, and --any-box proves it
        assert main(["recheck", path, "--independent", "--any-box"]) == 0
        assert "certificate holds" in capsys.readouterr().out


@pytest.mark.parametrize("flags", [[], ["--independent"]])
def test_a_zero_area_root_is_rejected_even_with_any_box(tmp_path, capsys, flags):
    data = committed("prop1")
    data["root"][1] = data["root"][0]
    data["leaves"] = []
    assert main(["recheck", write(tmp_path, data), "--any-box", *flags]) == 1
    assert "zero" in capsys.readouterr().out


@pytest.mark.parametrize("group, key, value", [("prop1", "prop1.attention_constant", "40"),
                                               ("cor1", "cor1.T_numerator", "720")])
def test_edited_constants_are_named_and_fail(tmp_path, capsys, group, key, value):
    data = committed(group)
    data["constants"][key] = value
    path = write(tmp_path, data)
    for flags in ([], ["--independent"]):
        assert main(["recheck", path, *flags]) == 1
        out = capsys.readouterr().out
        assert f"{key} = {value} (file: " in out and f"MISMATCH: constant {key} = {value}" in out


def leaf_at(data: dict, d: float, eps: float) -> int:
    """The index of the leaf holding the point (d, eps)."""
    u, w = math.log(d), math.log(eps)
    for i, leaf in enumerate(data["leaves"]):
        b = [float.fromhex(x) for x in leaf["box"]]
        if b[0] <= u <= b[1] and b[2] <= w <= b[3]:
            return i
    raise AssertionError("no leaf holds the point")


def test_an_edited_constant_is_caught_by_the_checker_where_it_matters():
    """4 -> 40 keeps Proposition 1 true (a larger gap), so only the stored enclosures, computed
    with 4, can show it: where the loss is not negligible (d = 7, eps = 0.8) the checker's value
    misses them (`verify recheck --independent --any-box` finds this leaf after about 40 s)."""
    data = committed("prop1")
    data["constants"]["prop1.attention_constant"] = "40"
    i = leaf_at(data, 7, 0.8)
    verdict = checker.check(checker.read(data), leaves=[i])
    assert not verdict.ok and f"leaf {i} " in verdict.problems[0] and "misses" in verdict.problems[0]
    assert checker.check(checker.read(committed("prop1")), leaves=[i]).ok


@pytest.fixture(scope="module")
def small_certificate():
    """A certificate of a small Proposition 1 box, two leaves, written by the current engine."""
    root = boxes.log_box(10, 11, 0.1, 0.12)
    parts = boxes.split(root)
    run = boxes.Run("prop1", root, 96, [boxes.Leaf(b, 1, *boxes.judge_box("prop1", b, K, 96))
                                        for b in parts])
    return certificate.certificate(run, K)


def test_agreement_evaluates_each_point_once_for_every_leaf_that_meets_there(small_certificate, monkeypatch):
    """Two leaves side by side share two corners: 2 centres and 6 corners, 8 evaluations (10
    before the points were shared), and a raised enclosure of the second leaf is still named."""
    calls = []
    real = checker.evaluate
    monkeypatch.setattr(checker, "evaluate", lambda *a: calls.append(a[1]) or real(*a))
    cert = checker.read(small_certificate)
    assert checker.agreement(cert, corners=True) == [] and len(calls) == len(set(calls)) == 8
    data = copy.deepcopy(small_certificate)
    hi = data["leaves"][1]["margins"]["prop1.bound"][1]
    data["leaves"][1]["margins"]["prop1.bound"] = [(0.999 * float.fromhex(hi)).hex(), hi]
    found = checker.agreement(checker.read(data), corners=True)
    assert len(found) == 1 and found[0].startswith("leaf 1 ") and "misses" in found[0]
    # at a corner both leaves share, the second leaf's stored enclosure is compared too
    bad = checker.read(data)
    shared = next(iter({pt for _, pt in checker._points(bad.leaves[0]["box"], True)}
                       & {pt for _, pt in checker._points(bad.leaves[1]["box"], True)}))
    refs = [(i, "corner", bad.leaves[i]["box"], bad.leaves[i]["margins"]) for i in (0, 1)]
    assert checker._agree_at((bad.group, shared, bad.constants, bad.method, refs))[0] == 1


def test_a_point_is_integrated_once_over_its_narrow_ball(monkeypatch):
    """model.moments: c a few ulps wide (a point) takes one integral, a wide c one per end;
    the point's values lie in the two ends' hull."""
    calls = []
    real = model.scaled_at
    monkeypatch.setattr(model, "scaled_at", lambda d, c: calls.append(c) or real(d, c))
    ctx.prec = 96
    try:
        d, c = arb(10), arb(10) * arb(-3).exp()
        point = model.moments(d, c)
        assert len(calls) == 1 and c.rad() > 0
        lo, hi = model.ends(c)
        (j_lo, _), (j_hi, _) = real(d, lo), real(d, hi)
        assert point[2].overlaps(model.hull(j_lo, j_hi))
        model.moments(d, c.union(c * 1.01))
        assert len(calls) == 3
    finally:
        ctx.prec = 53


@pytest.mark.parametrize("flags", [[], ["--independent"]])
def test_forged_margins_infinite_or_disjoint_are_rejected_widened_ones_are_not(
        tmp_path, capsys, small_certificate, flags):
    """What the stored enclosures mean: the verdict comes from recomputation; a stored
    enclosure must be finite, above 0 and contain the recomputed value (the independent
    checker: at the leaf's centre and corners), so [-inf, inf] and a disjoint one are rejected;
    a widened one still contains the true value and claims less: accepted (decorative)."""
    assert main(["recheck", write(tmp_path, small_certificate), "--any-box", *flags]) == 0
    for forged, verdict in [([-math.inf, math.inf], 1), ([5.0, 6.0], 1), (None, 0)]:
        data = copy.deepcopy(small_certificate)
        lo, hi = (float.fromhex(x) for x in data["leaves"][1]["margins"]["prop1.bound"])
        data["leaves"][1]["margins"]["prop1.bound"] = [
            float(x).hex() for x in (forged or [lo / 2, 2 * hi])]
        assert main(["recheck", write(tmp_path, data), "--any-box", *flags]) == verdict, forged
        if verdict:
            assert "REJECTED: leaf 1" in capsys.readouterr().out


def test_unreadable_or_non_certificate_input_exits_2(tmp_path):
    assert main(["recheck", str(tmp_path / "missing.json"), "--independent"]) == 2
    assert main(["recheck", write(tmp_path, {"format": "something else"}), "--independent"]) == 2
    assert main(["recheck", write(tmp_path, [1, 2]), "--independent"]) == 2


def test_tiling_in_exact_rationals():
    from verify.checker.tiling import tiling_problems

    F = Fraction
    root = (F(0), F(1), F(0), F(1))
    halves = [(F(0), F(1, 2), F(0), F(1)), (F(1, 2), F(1), F(0), F(1))]
    assert tiling_problems(root, halves) == []
    assert tiling_problems(root, halves[:1])  # a gap
    assert tiling_problems(root, [halves[0], (F(2, 5), F(1), F(0), F(1))])  # an overlap
    assert tiling_problems((F(0), F(0), F(0), F(1)), [])  # zero volume


# -- the default profile runs the checker on its result --------------------------------------------

def test_the_certified_check_passes_only_when_the_checker_agrees(monkeypatch):
    from verify.certify import outcomes

    case = outcomes.certified_cases("prop1", outcomes.Profile.QUICK, {})[0]
    good = outcomes.judge_certified("prop1", case, K)
    assert good.passed is True and good.values["checker"] == Checker.ACCEPTED
    rejecting = checker.Verdict(1, ["leaf 0: a forged rejection"])
    monkeypatch.setattr(checker, "check", lambda *a, **k: rejecting)
    bad = outcomes.judge_certified("prop1", case, K)
    assert bad.passed is False and bad.values["checker"] == Checker.REJECTED
    assert "leaf 0: a forged rejection" in bad.detail  # the checker's reason, passed on


# -- the fault catalogue (issue 27 item 3) ---------------------------------------------------------

def tiny(d, eps, rel=1e-7):
    return boxes.log_box(d, d * (1 + rel), eps, eps * (1 + rel))


def _clear_symbolic_caches():
    for fn in (symbolic.moments_at_zero_attention, symbolic.three_phase_closed_forms,
               symbolic.gap_rate_closed_form, generated.form, ball_symmetric.arb_phases,
               ball_symmetric.arb_gap_rate):
        fn.cache_clear()


def scaled_integrand(factor):
    orig = expectations.moment_integrand
    return lambda t, s, be=MP: [factor * x for x in orig(t, s, be)]


def planted_integrand(mp, factor):  # wherever the shared integrand is bound: the box's centre
    from verify.engine.certified import moments  # values (the Arb pieces) and its gradient
    for module in (centred, moments):
        mp.setattr(module, "moment_integrand", scaled_integrand(factor))


def moment_scaled(mp):
    planted_integrand(mp, 0.9)


def tail_dropped(mp):  # the constants K_r scaled away: the cut moves in and the tail is lost
    orig = expectations.tail_coefficients
    mp.setattr(centred, "tail_coefficients", lambda s: [k * 2.0**-100 for k in orig(s)])


def stirling_wrong(mp):
    orig = expectations.stirling2
    mp.setattr(expectations, "stirling2", lambda r, j: 2 if (r, j) == (2, 1) else orig(r, j))


def reduction_wrong(mp):  # one background coordinate's output partial divided by d, not d - 1
    orig = centred.arb_reduction

    def wrap(family):
        fn = orig(family)

        def faulty(dd, bs, bj, *m):
            out = list(fn(dd, bs, bj, *m))
            out[4] = out[4] * (dd - 1) / dd
            return out
        return faulty
    mp.setattr(centred, "arb_reduction", wrap)


def steps_off_by_one(mp):
    orig = schedules.cor1_steps
    mp.setattr(schedules, "cor1_steps", lambda eps, n: orig(eps, n) + 1)


def eta2_with_d(mp):  # both places of the schedule, so the engine's own cross-check agrees
    mp.setattr(schedules, "eta2", lambda d, eps, C, eta1_, log: C * d / eta1_ * log(d / eps))
    mp.setattr(schedules, "phase2_gap", lambda d, eps, C, rate, log: -C * log(d / eps) * rate / d)


def phase2_sign(mp):  # mu_3 at alpha = 0 with the wrong sign: the Delta'(mu_2 - mu_3) term
    orig = symbolic.moments_at_zero_attention
    mp.setenv("VERIFY_CACHE_DIR", tempfile.mkdtemp())  # derived afresh, never into the real cache
    _clear_symbolic_caches()
    mp.setattr(symbolic, "moments_at_zero_attention",
               lambda order=3: tuple(-x if i == 2 else x for i, x in enumerate(orig(order))))


def phase3_skips_background(mp):  # the decay of Phase 3 sees only the target coordinate
    orig = centred.phase3_decay
    mp.setattr(centred, "phase3_decay", lambda A, e, d, T: orig(A, (e[0], 0 * e[1]), d, T))


def false_claim_hidden(mp):  # with prop1.attention_constant = 1/100 below; moments halved
    planted_integrand(mp, 0.5)


FAULTS = {  # fault -> (injection, group, box, constants changed, claim the checker names)
    "moment x0.9": (moment_scaled, "thm2", tiny(10, 0.1), {}, "thm2.initial_distance"),
    "tail bound dropped": (tail_dropped, "prop1", tiny(10, 0.9), {}, "prop1.bound"),
    "Stirling S(2,1) = 2": (stirling_wrong, "prop1", tiny(10, 0.9), {}, "prop1.bound"),
    "reduction: dL/dbeta_j over d": (reduction_wrong, "thm2", tiny(10, 0.1), {}, "thm2.contraction"),
    "T off by one": (steps_off_by_one, "cor1", tiny(100, 0.99), {}, "cor1.population"),
    "eta2 with d, not d^2": (eta2_with_d, "cor1", tiny(3, 0.9), {}, "cor1.population"),
    "Phase 2 sign error": (phase2_sign, "cor1", tiny(10, 0.5), {}, "cor1.population"),
    "Phase 3 skips background": (phase3_skips_background, "cor1", tiny(100, 0.99), {},
                                 "cor1.population"),
    "FALSE claim: prop1 constant 1/100, hidden by moments x0.5": (
        false_claim_hidden, "prop1", tiny(1e4, 0.5),
        {"prop1.attention_constant": Fraction(1, 100)}, "prop1.bound: FALSE"),
}


def faulty_certificate(name: str) -> tuple[boxes.Run, dict]:
    inject, group, box, changed, _ = FAULTS[name]
    constants = dict(K, **changed)
    mp = pytest.MonkeyPatch()
    try:
        inject(mp)
        run = boxes.branch_and_bound(group, box, constants, 96, 2)
        return run, certificate.certificate(run, constants)
    finally:
        mp.undo()
        _clear_symbolic_caches()


@pytest.mark.parametrize("name", list(FAULTS))
def test_every_fault_certifies_in_the_faulty_engine_and_the_checker_rejects_it(name):
    run, data = faulty_certificate(name)
    assert run.status is True, f"{name}: the faulty engine did not certify ({run.summary()})"
    verdict = checker.check(checker.read(data))
    assert not verdict.ok
    assert f"leaf 0 " in verdict.problems[0] and FAULTS[name][4] in verdict.problems[0], \
        verdict.problems[0]


def test_without_a_fault_the_same_boxes_pass_the_checker():
    """The catalogue's boxes are not rejected for their own sake (the claims hold there, with
    the paper's constants)."""
    seen = set()
    for inject, group, box, changed, _ in FAULTS.values():
        if (group, box) in seen or changed:
            continue
        seen.add((group, box))
        run = boxes.branch_and_bound(group, box, K, 96, 2)
        assert run.status is True
        assert checker.check(checker.read(certificate.certificate(run, K))).ok
