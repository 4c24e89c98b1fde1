"""The one branch and bound (verify/certify/branch.py) on a problem small enough to follow by
hand: the claim x > c over boxes of [0, 1], certified where the box lies above c, failing where
it lies below, halved otherwise.  The kinds' own runs (boxes, cubes) are tested in
test_certified_boxes.py, test_certify_executors.py and test_cube.py."""
from __future__ import annotations

import json
from typing import NamedTuple

import pytest

from verify.certify import branch
from verify.run.executors import Serial
from verify.run.journal import JournalError


class Verdict(NamedTuple):
    status: str
    margin: tuple


class Above:
    """x > c on a box (lo, hi); counts its judgements."""

    def __init__(self, c: float) -> None:
        self.c, self.calls = c, 0

    def judge(self, box):
        self.calls += 1
        lo, hi = box[0] - self.c, box[1] - self.c
        return Verdict("certified" if lo > 0 else "failing" if hi < 0 else "undecided", (lo, hi))

    def split(self, box, judgement):
        mid = (box[0] + box[1]) / 2
        return (box[0], mid), (mid, box[1])

    def leaf(self, box, depth, judgement):
        return (box, depth, "unreached" if judgement is None else judgement.status)

    def priority(self, judgement):
        return judgement.margin[1]

    def encode(self, judgement):
        return {"status": judgement.status, "margin": [float(x).hex() for x in judgement.margin]}

    @staticmethod
    def decode(record):
        return Verdict(record["status"], tuple(float.fromhex(x) for x in record["margin"]))


class Run:
    def __init__(self) -> None:
        self.leaves, self.judged, self.cpu_seconds = [], 0, 0.0


class Backwards(Serial):
    """An executor that hands the answers back in the reverse order (as a pool may)."""

    def completed(self, fn, tasks):
        return reversed([fn(task) for task in tasks])


def search(problem, **options):
    return branch.search(problem, Run(), [((0.0, 1.0), 0)], options.pop("max_depth", 6), **options)


def test_the_leaves_tile_the_root_in_queue_order_with_their_statuses():
    run = search(Above(0.3), max_depth=3)
    assert run.leaves == [((0.5, 1.0), 1, "certified"), ((0.0, 0.25), 2, "failing"),
                          ((0.25, 0.375), 3, "undecided"), ((0.375, 0.5), 3, "certified")]
    assert run.judged == 7  # the root, then 2 boxes in each of three generations


def test_the_answer_does_not_depend_on_the_executor_or_its_order():
    serial = search(Above(0.3))
    backwards = search(Above(0.3), executor=Backwards())
    assert backwards.leaves == serial.leaves and backwards.judged == serial.judged


def test_a_budget_in_boxes_leaves_the_rest_unreached_the_same_way_each_time():
    run = search(Above(0.3), max_boxes=4)
    assert run.judged == 4
    assert [leaf[2] for leaf in run.leaves] == ["certified", "failing", "unreached"]
    assert search(Above(0.3), max_boxes=4).leaves == run.leaves
    assert all(leaf[2] == "unreached" for leaf in search(Above(0.3), seconds=-1.0).leaves)


def test_stop_on_failure_judges_the_likeliest_box_first_and_nothing_after_it():
    problem = Above(0.6)
    run = search(problem, best_first=True, stop_on_failure=True)
    statuses = [leaf[2] for leaf in run.leaves]
    assert statuses[0] == "failing" and set(statuses[1:]) == {"unreached"}
    assert problem.calls == run.judged == 2  # the root, then its lower half: below 0.6
    assert search(Above(0.6), best_first=True).judged > run.judged  # without the stop


def test_a_journal_resumes_without_judging_again_and_refuses_another_run(tmp_path):
    path = tmp_path / "j.jsonl"
    first = search(Above(0.3), journal=branch.Journal(path, {"c": 0.3}, Above.decode))
    again = Above(0.3)
    resumed = search(again, journal=branch.Journal(path, {"c": 0.3}, Above.decode))
    assert again.calls == 0 and resumed.leaves == first.leaves
    with pytest.raises(JournalError, match="differs in: c"):
        branch.Journal(path, {"c": 0.4}, Above.decode)


def test_a_journal_cut_short_keeps_its_whole_lines_and_a_bad_line_inside_is_refused(tmp_path):
    path = tmp_path / "j.jsonl"
    search(Above(0.3), journal=branch.Journal(path, {"c": 0.3}, Above.decode))
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1] + [lines[-1][:10]]) + "\n")
    assert len(branch.Journal(path, {"c": 0.3}, Above.decode).done) == len(lines) - 2
    path.write_text("\n".join([lines[0], "{", lines[1]]) + "\n")
    with pytest.raises(JournalError, match="line 2"):
        branch.Journal(path, {"c": 0.3}, Above.decode)
    path.write_text("[1]\n")
    with pytest.raises(JournalError, match="not a branch-and-bound journal"):
        branch.Journal(path, {"c": 0.3}, Above.decode)


def test_boxes_nest_in_the_journal_as_they_nest_in_the_box():
    assert branch.hex_box(((0.5, 1.0), (0.0, 0.25))) == [["0x1.0000000000000p-1", "0x1.0000000000000p+0"],
                                                       ["0x0.0p+0", "0x1.0000000000000p-2"]]
    assert json.dumps(branch.hex_box((0.5, 1.0))) == '["0x1.0000000000000p-1", "0x1.0000000000000p+0"]'
