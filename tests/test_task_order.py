"""The runner starts the tasks expected to take longest first (verify/run/costs.json); the order of
starting never changes a report."""
from __future__ import annotations

import json
from importlib import resources

from verify.run import runner
from verify.checks import Profile
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
