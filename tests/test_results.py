"""Each check can fail: a mutated constant or a broken hypothesis turns it red."""
from fractions import Fraction

import sympy as sp

from verify import results
from verify.checks import Case
from verify.constants import load, values
from verify.results import prop1


def constants(**overrides):
    c = values(load())
    c.update({k.replace("__", "."): Fraction(v) for k, v in overrides.items()})
    return c


def test_prop1_general_fails_with_too_small_gap():
    case = Case("d=5, eps=0.5", {"d": 5, "eps": 0.5, "seed": 0})
    judge = results.check("prop1.general").judge
    assert judge(case, constants()).passed is True
    assert judge(case, constants(prop1__attention_constant="1/1000")).passed is False


def test_symmetry_lemma_fails_on_asymmetric_start():
    for check_id in ("lemma-symmetry.step", "lemma-symmetry.enumeration"):
        judge = results.check(check_id).judge
        ok = judge(Case("ok", {"d": 3, "seed": 1, "perturb": 0}), constants())
        broken = judge(Case("broken", {"d": 3, "seed": 1, "perturb": 0.3}), constants())
        assert ok.passed is True and broken.passed is False


def test_prop1_long_contribution_and_short_loss_are_symbolic():
    for check in prop1.RESULT.checks:
        if check.evidence.value == "symbolic":
            (case,) = check.cases(None, constants(), {})
            assert check.judge(case, constants()).passed is True


def test_thm2_tightness_rows_are_exhibits_and_say_when_eps_is_not_reached():
    """The bisections start at the theorem's own value, so they cannot fail: they are exhibits
    (never counted as passes), and a schedule that does not reach eps is said so in the text."""
    from verify.checks import Evidence
    from verify.results import thm2

    case = Case("d=10, eps=0.01", {"d": 10, "eps": 0.01})
    ok = constants()
    tight_T = results.check("thm2.tightness_T").judge
    tight_eta2 = results.check("thm2.tightness_eta2").judge
    for judge in (tight_T, tight_eta2):
        out = judge(case, ok)
        assert out.evidence is Evidence.EXHIBIT and out.passed is None and not out.counted
    broken = constants(thm2__T_factor="1/1000")
    assert thm2.smallest_T(thm2.plan_for(case, broken), 0.01) is None
    assert "does not reach" in tight_T(case, broken).detail
    weak = constants(thm2__C="1/1000000")
    assert thm2.smallest_eta2(10, 0.01, weak) is None
    assert "does not reach" in tight_eta2(case, weak).detail


def test_thm2_hypotheses_check_the_constants_not_the_schedule():
    case, judge = Case("all", {}), results.check("thm2.hypotheses").judge
    assert judge(case, constants()).passed is True
    assert judge(case, constants(thm2__eta1_scale="2")).passed is False
    assert judge(case, constants(thm2__T_factor="3")).passed is False


def test_thm2_delta_and_distance_carry_a_two_precision_error_estimate():
    case = Case("d=5, eps=0.5", {"d": 5, "eps": 0.5})
    for judge in (results.check("thm2.delta").judge, results.check("thm2.initial_distance").judge):
        out = judge(case, constants())
        assert out.passed is True and "(error estimate " in out.detail


def test_contrast_separation_fails_when_eps_is_above_a_floor():
    """At eps = 1/2 the three-phase plan still reaches eps, but the floors found for the failing
    plans (~0.19-0.5 at d = 9) are no longer above it: the separation must fail."""
    from verify.checks import Profile
    from verify.results import contrast

    separation = results.check("contrast.separation")
    (case,) = separation.cases(Profile.QUICK, constants(contrast__eps="1/2"), {})
    out = separation.judge(case, constants(contrast__eps="1/2"))
    assert out.passed is False and "NOT SEPARATED" in out.detail
    assert out.values["three_phase"] <= 0.5
    assert min(out.values[k] for k, *_ in contrast.FLOORS) <= 0.5


def test_symmetry_step_compares_the_engines_at_d_2():
    """d = 2 has one background symbol: the general engine's partials are still compared with the
    symmetric engine's scalars, and a perturbed (asymmetric) point is caught there too."""
    judge = results.check("lemma-symmetry.step").judge
    ok = judge(Case("d=2", {"d": 2, "seed": 0, "perturb": 0}), constants())
    broken = judge(Case("d=2", {"d": 2, "seed": 0, "perturb": 0.3}), constants())
    assert ok.passed is True and broken.passed is False


def test_prop1_signs_are_proved_by_sympy_and_a_small_constant_is_disproved():
    case, eps = Case("all", {}), sp.Symbol("epsilon", positive=True)  # prop1's epsilon
    short_attention = results.check("prop1.short_attention").judge
    assert short_attention(case, constants(prop1__attention_constant="3")).passed is False
    assert prop1.sign_on_range(-eps) is False  # a negative expression is disproved
    for check_id in ("prop1.long_words", "prop1.short_loss", "prop1.long_contribution"):
        assert "proved" in results.check(check_id).judge(case, constants()).detail


def test_thm2_C_source_figures():
    """The figures proofs/constants.toml gives for thm2.C: C = 3/2 fails thm2.delta at d = 3,
    eps = 1e-6, C = 2 passes there, and at C = 2 the thm2.delta margin at d = 3, eps = 0.5 (the
    worst the source names) is x1.47."""
    tiny, delta = Case("d=3, eps=1e-06", {"d": 3, "eps": 1e-6}), results.check("thm2.delta").judge
    assert delta(tiny, constants(thm2__C="3/2")).passed is False
    assert delta(tiny, constants()).passed is True
    worst = delta(Case("d=3, eps=0.5", {"d": 3, "eps": 0.5}), constants())
    assert worst.passed is True and round(worst.margin, 2) == 1.47


def _thm2_statuses(consts, pick):
    """{check id: (status, outcomes)} of thm2's counted checks on the quick cases ``pick``
    keeps (the certified box with a budget of 50 boxes)."""
    from verify.checks import Evidence, Profile
    from verify.results import thm2
    from verify.run.runner import CheckReport

    out = {}
    for check in thm2.RESULT.checks:
        if check.evidence is Evidence.EXHIBIT:
            continue
        cases = [c for c in check.cases(Profile.QUICK, consts, {}) if pick(c)]
        cases = [Case(c.label, {**c.params, "boxes": 50} if "boxes" in c.params else c.params)
                 for c in cases]
        outcomes = [check.judge(c, consts) for c in cases]
        rep = CheckReport(thm2.RESULT, check, outcomes, params={c.label: c.params for c in cases})
        if rep.counted:
            out[check.id] = (rep.status, [(o.passed, o.detail) for o in outcomes])
    return out


def test_under_a_broken_C_no_counted_thm2_check_passes_vacuously():
    """With thm2.C = 1e-6 (eta2 a millionth of the schedule's) the checks whose claim involves C
    must turn red (at d = 1000, eps = 0.001, the quick box and the whole-range cases); a counted
    check that still passes must be one C does not enter at all: its outcomes are the same
    under the configured C (issue 26, item 1: thm2.optimum used to pass 9/9 on the measured
    plan while final, delta, contraction and initial_distance failed)."""
    pick = lambda c: (c.params.get("d"), c.params.get("eps")) in ((1000, 0.001), (None, None))  # noqa: E731
    broken = _thm2_statuses(constants(thm2__C="1/1000000"), pick)
    right = _thm2_statuses(constants(), pick)
    red = {k for k, (status, _) in broken.items() if status in ("FAIL", "undecided")}
    assert red >= {"thm2.final", "thm2.delta", "thm2.contraction", "thm2.initial_distance",
                   "thm2.certified_box"}
    for check_id, (status, outcomes) in broken.items():
        if check_id not in red:
            assert outcomes == right[check_id][1], f"{check_id} passes under C = 1e-6 and reads C"
    independent = set(broken) - red
    assert independent == {"thm2.beta1_range", "thm2.beta1_range_corrected", "thm2.optimum",
                           "thm2.T_chain"}
    from verify.checks import Evidence
    from verify.results import thm2
    kinds = {c.id: c.evidence for c in thm2.RESULT.checks}
    assert all(kinds[k] is Evidence.SYMBOLIC for k in independent - {"thm2.beta1_range"})
    assert kinds["thm2.hypotheses"] is Evidence.CONFIGURATION and "thm2.hypotheses" not in broken


def test_the_four_passes_that_could_not_fail_are_no_longer_counted_numeric_passes():
    """thm2.optimum and thm2.beta1_range_corrected are identities proved by SymPy for the whole
    range; prop1.tightness is an exhibit; thm2.hypotheses a configuration check."""
    from verify.checks import Evidence
    from verify.results import thm2

    kinds = {c.id: c.evidence for r in (prop1.RESULT, thm2.RESULT) for c in r.checks}
    assert kinds["thm2.optimum"] is kinds["thm2.beta1_range_corrected"] is Evidence.SYMBOLIC
    assert kinds["prop1.tightness"] is Evidence.EXHIBIT
    assert kinds["thm2.hypotheses"] is Evidence.CONFIGURATION
    r = thm2.optimum_slack()
    h = sp.Symbol("h", nonnegative=True)  # thm2's 1 - gamma_s on a positive word
    assert r["minimum"] == 0 and r["q"] == -2 * h * (h - 2)
    tightness = results.check("prop1.tightness").judge
    out = tightness(Case("d=10, eps=0.01", {"d": 10, "eps": 0.01}), constants())
    assert out.passed is None and not out.counted and out.values["ratio"] > 1


def test_thm2_contraction_and_beta1_range_name_their_error_kind():
    """Issue 26, item 8: both details used to carry no error."""
    case = Case("d=10, eps=0.5", {"d": 10, "eps": 0.5})
    beta1_range = results.check("thm2.beta1_range").judge
    for judge in (results.check("thm2.contraction").judge, beta1_range):
        out = judge(case, constants())
        assert out.passed is True and "(error estimate " in out.detail, out.detail
    assert beta1_range(Case("d=3, eps=0.5", {"d": 3, "eps": 0.5}), constants()).passed is False


def test_prop4_names_its_errors_as_estimates():
    """Issue 26, item 8: "error 2.0e-16" unlabelled in prop4's row, "bound" for an estimate."""
    import inspect

    from verify.checks import Profile
    from verify.results import prop4

    floor = results.check("prop4.floor")
    case = floor.cases(Profile.QUICK, constants(), {})[0]  # d = 9, H = 1: mpmath-confirmed
    detail = floor.judge(case, constants()).detail
    assert "mpmath 20 digits (error estimate " in detail and "(error 1" not in detail
    assert inspect.getdoc(prop4.floor_error).startswith("Per-target error ESTIMATE")


def test_thm2_beta1_range_on_the_boundary_is_decided_exactly():
    """At d = 4, eta1 = sqrt(d) = d/2, beta'_s = 1 exactly: the numeric value sits within its
    error estimate of the end, so the closed forms decide (the open interval fails), inside the
    discrepancy's scope; off the boundary the numeric route decides alone."""
    from verify.checks import Evidence, Profile
    from verify.constants import load, values
    from verify.results import thm2

    constants = values(load())
    check = next(c for c in thm2.RESULT.checks if c.id == "thm2.beta1_range")
    cases = {c.params["d"]: c for c in check.cases(Profile.QUICK, constants, {"d": [4, 5]})
             if "eta1" not in c.params}
    at4, at5 = (check.judge(cases[d], constants) for d in (4, 5))
    assert at4.passed is False and at4.evidence is Evidence.SYMBOLIC and "beta'_s = 1," in at4.detail
    assert thm2.beta1_out_of_range(cases[4].params)
    assert at5.passed is True and at5.evidence is Evidence.NUMERIC
