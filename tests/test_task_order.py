"""The runner starts the tasks expected to take longest first (verify/run/costs.json); the order of
starting never changes a report."""
from __future__ import annotations

import json
from importlib import resources

from verify.run import runner
from verify.checks import Case, Check, Evidence, Outcome, Profile, Result
from verify.constants import load, values
from verify.results import EXPERIMENTS, REGISTRY, by_id, select


def test_longest_first_sums_a_tasks_checks_and_keeps_ties_in_order():
    tasks = [("a", [("x.one", None)], {}), ("b", [("x.two", None), ("x.one", None)], {}),
             ("c", [("x.new", None)], {}), ("d", [("x.other", None)], {})]
    seconds = {"x.one": 1.0, "x.two": 5.0}
    assert [t[0] for t in runner.longest_first(tasks, seconds)] == ["b", "a", "c", "d"]


def test_the_cost_table_names_registered_checks_for_quick_and_default():
    table = json.loads(resources.files("verify.run").joinpath("costs.json").read_text())
    known = {c.id for r in REGISTRY + EXPERIMENTS for c in r.checks}
    assert {"quick", "default"} <= set(table)
    for profile in ("quick", "default", "full"):
        assert set(table.get(profile, {})) <= known, profile
    default = runner.case_seconds("default")
    assert default["thm2.certified_box"] > 10 * default["thm2.final"]


def test_the_order_of_starting_does_not_change_the_outcomes(monkeypatch):
    """Run one result's quick cases in the measured order and in reverse: the same outcomes, in
    each check's case order."""
    chosen = select(["prop3"])

    def outcomes() -> list:
        reports = runner.run(chosen, values(load()), Profile.QUICK, workers=1, resolve=by_id)
        return [(r.check.id, [(o.case, o.passed, o.margin, o.detail) for o in r.outcomes]) for r in reports]

    first = outcomes()
    monkeypatch.setattr(runner, "longest_first", lambda tasks, seconds: list(reversed(tasks)))
    assert outcomes() == first


def test_a_check_that_reads_others_runs_after_them_and_hits_the_store(tmp_path, monkeypatch):
    """The contrast reads the floors' outcomes: whatever the cost table says (here the reader is
    the longest task, so longest-first would start it first), it runs in a later wave and takes
    the floor from the outcome store: the floor is judged once (issue 31.9)."""
    from verify.checks import Case, Check, Evidence, Outcome, Result
    from verify.run import memo

    calls: list[str] = []

    def judge_floor(case, constants):
        calls.append("floor")
        return Outcome(case.label, True, 2.0, Evidence.SEARCH, "", values={"floor": 0.25})

    floor = Check("x.floor", "step", "claim", Evidence.SEARCH, lambda *a: [Case("d=9", {"d": 9})], judge_floor)

    def read_floor(case, constants):
        calls.append("reader")
        known = memo.judge(floor, Case("d=9", {"d": 9}), constants)
        return Outcome(case.label, True, 1.0, Evidence.SEARCH, f"floor {known.values['floor']}")

    reader = Check("y.reads", "step", "claim", Evidence.SEARCH, lambda *a: [Case("d=9, eps=0.1", {"d": 9})],
                   read_floor, reads_outcomes=("x.floor",))
    fake = {"x": Result("x", "X", "s", "h", (), checks=(floor,)),
            "y": Result("y", "Y", "s", "h", (), checks=(reader,))}
    monkeypatch.setattr(runner, "case_seconds", lambda profile: {"y.reads": 100.0, "x.floor": 1.0})
    reports = runner.run([fake["y"], fake["x"]], values(load()), Profile.QUICK, workers=1,
                         resolve=fake.__getitem__, store=memo.OutcomeStore(tmp_path, code="abc"))
    assert calls == ["floor", "reader"]  # the floor was judged first, once; the reader hit the store
    assert {r.check.id: r.outcomes[0].detail for r in reports}["y.reads"] == "floor 0.25"
    tasks = [("y", [("y.reads", None)], {}), ("x", [("x.floor", None)], {})]
    assert [[t[0] for t in wave] for wave in runner.stages(tasks, {"y.reads": reader, "x.floor": floor})] == [["x"], ["y"]]


def test_the_contrast_declares_what_it_reads():
    (contrast,) = [c for r in REGISTRY for c in r.checks if c.id == "contrast.separation"]
    assert {"thm2.final", "prop2.floor", "prop3.floor", "prop4.floor", "thm1.floor"} == set(contrast.reads_outcomes)


def test_a_check_that_raises_is_red_and_the_run_goes_on():
    """An engine fault that makes one check's judge raise (tests/faults.py, 'model bias flipped'
    did) turns that check undecided, with the exception named, and the other checks still run."""
    def broken(case, constants):
        raise AttributeError("'int' object has no attribute 'v'")

    def fine(case, constants):
        return Outcome(case.label, True, 2.0, Evidence.SYMBOLIC, "")

    cases = lambda *a: [Case("d=9", {"d": 9})]  # noqa: E731
    fake = Result("z", "Z", "s", "h", (), checks=(Check("z.broken", "step", "claim", Evidence.SYMBOLIC,
                                                        cases, broken),
                                                  Check("z.fine", "step", "claim", Evidence.SYMBOLIC,
                                                        cases, fine)))
    reports = runner.run([fake], values(load()), Profile.QUICK, workers=1, resolve=lambda rid: fake)
    status = {r.check.id: r.status for r in reports}
    assert status == {"z.broken": "undecided", "z.fine": "pass"}
    detail = reports[0].outcomes[0].detail
    assert "AttributeError" in detail and "raised" in detail
