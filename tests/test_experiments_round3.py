"""Round 3 of Section 5's protocol (proofs/experiments.md, "Round 3"; issue 39): tuning axes
widened past a chosen end up to the cap, both gaps at every early step, the signed-rank lag test
with Pratt's zeros and its exact null, Clopper-Pearson bounds on error rates and power fixed in
advance; each check with a mutation that turns it red."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from verify.experiments import plans, protocol, statistics, study
from verify.experiments.run import run_one, settings
from verify.results import experiments as claims

# ------------------------------------------------------------------------------ tuning search


def test_widen_moves_only_an_axis_whose_choice_is_at_an_end_and_stops_at_the_cap():
    start = protocol.start("O1-A1-O")
    assert start == ((-2, 2), (-2, 2))
    assert protocol.widen(start, (-2, 0)) == ((-3, 2), (-2, 2))
    assert protocol.widen(start, (0, 2)) == ((-2, 2), (-2, 3))
    assert protocol.widen(start, (1, -1)) == start  # interior: the search is over
    capped = ((-protocol.CAP, 2),)
    assert protocol.widen(capped, (-protocol.CAP,)) == capped
    assert protocol.status(capped, (-protocol.CAP,)) == ["cap"]
    assert protocol.status(((-3, 2),), (-2,)) == ["interior"]
    assert protocol.status(start[:1], (2,)) == ["end"]  # an unwidened end: never in a finished search
    assert protocol.points("joint", ((-3, 3),)) == [(k,) for k in range(-3, 4)]
    assert protocol.points("O1-A1", ((-3, -2), (0, 1))) == [(-3, 0), (-3, 1), (-2, 0), (-2, 1)]


def _fake_fetch(task: str, loss_of):
    """fetch(runs) for :func:`study.search`: each run's final loss is loss_of(exponents), None
    for a diverged run; exponents read back from the run's step sizes."""
    cfg = settings(task, "quick")

    def fetch(runs):
        out = {}
        for run in runs:
            over = dict(run.overrides)
            ks = tuple(int(round(2 * math.log10(over[key] / float(cfg[key]))))
                       for key in protocol.FREE[run.plan])
            loss = loss_of(ks)
            out[run] = {"train_loss": math.inf if loss is None else loss, "diverged": loss is None}
        return out
    return fetch


@pytest.mark.parametrize("loss_of,chosen,ranges,status", [
    (lambda ks: (ks[0] + 5) ** 2 + 1, (-5,), [[-6, 2]], ["interior"]),  # optimum outside: found
    (lambda ks: ks[0] + 100, (-8,), [[-8, 2]], ["cap"]),  # still falling at the cap: said so
    (lambda ks: None if ks[0] < -2 else ks[0] + 100, (-2,), [[-3, 2]], ["interior"]),  # next diverges
    (lambda ks: (ks[0] - 1) ** 2, (1,), [[-2, 2]], ["interior"]),  # interior at once: five points
])
def test_search_widens_until_interior_diverged_or_capped(loss_of, chosen, ranges, status):
    out = study.search(["occurrence"], "quick", _fake_fetch("occurrence", loss_of), ["joint"])
    row = out["occurrence"]["joint"]
    assert (row["chosen"], row["ranges"], row["status"]) == (chosen, ranges, status)
    assert len(row["curve"]) == ranges[0][1] - ranges[0][0] + 1


def test_search_widens_a_rectangle_and_counts_the_extremes():
    loss = lambda ks: (ks[0] + 4) ** 2 + (ks[-1] - 1) ** 2 * (len(ks) - 1) + 1  # optimum below the grid
    out = study.search(["occurrence"], "quick", _fake_fetch("occurrence", loss), ["O1-A1", "joint"])
    row = out["occurrence"]["O1-A1"]
    assert row["chosen"] == (-4, 1) and row["ranges"] == [[-5, 2], [-2, 2]]
    assert len(row["curve"]) == 8 * 5  # every eta_2 of the searched range at each new eta_1
    counts = protocol.extremes(out)
    assert counts == {"exponents": 3, "beyond_first_grid": 2, "at_first_grid_end": 0, "at_cap": 0,
                      "at_searched_end": 0}


def test_mutation_a_search_that_does_not_widen_leaves_the_choice_at_an_end(monkeypatch):
    monkeypatch.setattr(protocol, "widen", lambda ranges, chosen: ranges)
    out = study.search(["occurrence"], "quick", _fake_fetch("occurrence", lambda ks: ks[0] + 100),
                       ["joint"])
    assert out["occurrence"]["joint"]["status"] == ["end"]  # red: the finished search says "end"
    assert protocol.extremes(out)["at_searched_end"] == 1


def test_recorded_tuning_needs_every_run_of_the_widened_search(tmp_path):
    """The grid stage reads the widened tuning back from the journal alone, or not at all."""
    from verify.experiments.grid import open_journal

    journal = open_journal(tmp_path / "j.jsonl", "quick")
    tuned = study.tune(["even_pairs"], "quick", None, journal, plans=["joint"])
    again = study.recorded_tuning(["even_pairs"], "quick", open_journal(tmp_path / "j.jsonl", "quick"),
                                  ["joint"])
    assert again == tuned
    assert study.recorded_tuning(["even_pairs"], "quick", open_journal(tmp_path / "k.jsonl", "quick"),
                                 ["joint"]) is None


# ------------------------------------------------------------------------------ dense gaps


def test_both_gaps_are_recorded_at_every_step_of_the_first_hundred():
    marks = plans.checkpoints([plans.Phase({"output": 1.0}, 1000)])
    assert set(range(plans.DENSE + 1)) <= marks and 1000 in marks
    record = run_one("even_pairs", "joint", 0, settings("even_pairs", "quick"))
    steps = record["trajectory"]["step"]
    assert steps[:plans.DENSE + 1] == list(range(plans.DENSE + 1))
    assert len(record["trajectory"]["attention_gap"]) == len(steps)


# ------------------------------------------------------------------------------ the lag test


@pytest.mark.parametrize("seed", range(4))
def test_signed_rank_exact_null_is_scipy_s_without_ties_and_the_permutation_null_with_them(seed):
    rng = np.random.default_rng(seed)
    d = rng.normal(0.4, 1.0, 9)
    stat, greater, less = statistics.signed_rank(d)
    assert greater == pytest.approx(scipy.stats.wilcoxon(d, alternative="greater", method="exact").pvalue, rel=1e-12)
    assert less == pytest.approx(scipy.stats.wilcoxon(d, alternative="less", method="exact").pvalue, rel=1e-12)
    tied = rng.integers(-2, 5, 11).astype(float)  # crossing-step differences: zeros and ties
    tied[:2] = 0.0
    perm = scipy.stats.wilcoxon(tied, zero_method="pratt", alternative="greater",
                                method=scipy.stats.PermutationMethod()).pvalue  # exhaustive: n <= 13
    assert statistics.signed_rank(tied)[1] == pytest.approx(perm, rel=1e-12)


def test_mutation_an_untied_null_misstates_the_p_value_of_tied_differences():
    tied = np.array([0, 0, 1, 1, 1, 2, 2, -1, 3, 3, 1.0])
    exact = statistics.signed_rank(tied)[1]
    stat = statistics.signed_rank(tied)[0]
    m = int(np.count_nonzero(tied))
    counts = statistics.null_counts(range(2, 2 * m + 1, 2))  # the null of ranks 1..m: wrong here
    untied = counts[int(round(2 * stat)):].sum() / counts.sum()
    assert abs(untied - exact) > 0.01


def _lag_records(out_steps, att_steps):
    def rec(o, a):
        steps = list(range(0, 6))
        gap = lambda c: [0.0 if s < c else 1.0 for s in steps]
        return {"test": 1.0, "train_loss": 0.0, "diverged": False,
                "trajectory": {"step": steps, "loss": [1.0] * 6, "output_gap": gap(o),
                               "attention_gap": gap(a)}}
    return {"x": {"joint": [rec(o, a) for o, a in zip(out_steps, att_steps)]}}


def test_lag_keeps_tied_seeds_and_decides_both_ways():
    lags = _lag_records([1] * 10, [2] * 7 + [1] * 3)  # 7 lag, 3 tie at the same step
    out = claims.judge_lag(lags, "x")
    assert out.passed is True and "3 equal" in out.detail and "power" in out.detail
    # mutation: the attention first on the same seeds turns it red
    assert claims.judge_lag(_lag_records([2] * 7 + [1] * 3, [1] * 10), "x").passed is False
    # every seed tied: no evidence either way
    assert claims.judge_lag(_lag_records([1] * 10, [1] * 10), "x").passed is None


def test_lag_power_is_fixed_in_advance():
    assert statistics.lag_power(5) < statistics.lag_power(10) < statistics.lag_power(50)
    assert statistics.lag_power(50) > 0.9
    # mutation: at no shift the "power" is the test's size, below its level
    assert statistics.lag_power(20, shift=0.0) <= 0.05 + 3 * 0.0035


# ------------------------------------------------------------------------------ exact bounds, power


def test_clopper_pearson_bounds_are_exact_and_one_sided_95_percent():
    low, high = statistics.error_bounds(0, 2500)
    assert low == 0.0 and high == pytest.approx(1 - 0.05 ** (1 / 2500), rel=1e-9)
    low, high = statistics.error_bounds(7, 2500)
    assert scipy.stats.binom.sf(6, 2500, low) == pytest.approx(0.05, rel=1e-6)
    assert scipy.stats.binom.cdf(7, 2500, high) == pytest.approx(0.05, rel=1e-6)
    # mutation: a Wald interval at no error has zero width; the exact bound does not
    assert high > 7 / 2500 + 1.645 * math.sqrt(7 / 2500 * (1 - 7 / 2500) / 2500) * 0.9
    assert statistics.errors_of(0.9972, 2500) == 7


def test_claim_rows_state_exact_error_bounds_and_planned_power():
    from test_experiments import _records

    good = _records(1.0, {p: 0.5 for p in claims.SIMPLE_PLANS})
    for plans_ in good.values():
        for runs in plans_.values():
            for r in runs:
                r["test_words"] = 64
                r["test"] = 1.0
    out = claims.judge_joint(good, "x")
    assert "error rate 0/384 in [0, 0.0078]" in out.detail and "95% per side" in out.detail
    assert out.values["occurrence.power"] == statistics.planned_power(6)
    # mutation: one seed with an error moves the pooled bound
    good["or"]["joint"][0]["test"] = 63 / 64
    assert "error rate 1/384" in claims.judge_joint(good, "x").detail


def test_planned_power_does_not_read_the_observed_spread():
    assert statistics.planned_power(10) == pytest.approx(
        scipy.stats.nct.sf(scipy.stats.t.ppf(0.95, 9), 9, math.sqrt(10)), rel=1e-12)
    # mutation: the observed-SD power says 1 when every seed ties, the planned one does not
    assert statistics.power([1.0] * 10) == 1.0 and statistics.planned_power(10) < 0.95


def test_table_states_each_plan_s_exact_error_bounds():
    from verify.experiments import table

    run = lambda acc: {"test": acc, "train_loss": 0.1, "diverged": False, "test_words": 64}
    recs = {"occurrence": {"joint": [run(1.0), run(62 / 64)]}, "slr": {"joint": [run(0.4)] * 2}}
    cells = table.cells(recs)
    bounds = cells["occurrence"]["joint"]["error_rate"]
    assert (bounds["errors"], bounds["words"]) == (2, 128)
    assert bounds["upper"] == statistics.error_bounds(2, 128)[1]
    assert bounds["per_seed_upper_max"] == statistics.error_bounds(2, 64)[1]
    assert "error_rate" not in cells["slr"]["joint"]  # a test loss has no error rate
    cfg = {"init_std": 0.1, "d": 8, "train": 320, "test": 64, "steps": 300}
    text = table.to_markdown(table.build(recs, "quick", 2, {"occurrence": cfg, "slr": cfg}))
    assert "| joint GD | 2/128 ≤ 0.048 (seed ≤ 0.095) |" in text
    # mutation: records that do not say their test words get no bound, and no section
    for r in recs["occurrence"]["joint"]:
        del r["test_words"]
    assert "Clopper" not in table.to_markdown(table.build(recs, "quick", 2, {"occurrence": cfg, "slr": cfg}))


# ------------------------------------------------------------------------------ mechanisms


def test_mechanisms_measure_the_lag_against_the_step_and_the_three_phase_margins(tmp_path, capsys):
    from verify.experiments import mechanisms

    rows = mechanisms.lag_curve("even_pairs", (-2, 2), [0, 1, 2], "quick")
    for row in rows:
        assert all(r["D"] == r["attention"] - r["output"] for r in row["runs"])
        d = [r["D"] for r in row["runs"]]
        assert (row["p_lags"], row["p_leads"]) == statistics.signed_rank(d)[1:]
    block = mechanisms.three_phase([0, 1], "quick")
    for name, b in block.items():
        for r in b["rows"]:
            assert r["margin"] == pytest.approx(min(r["targets"]) - r["others_max"])
            assert 0.0 <= r["test_one_target"] <= 1.0
    assert mechanisms.main(["--profile", "quick", "--seeds", "2", "--measures", "three_phase",
                            "--output", str(tmp_path)]) == 0
    assert "margin" in (tmp_path / "mechanisms.md").read_text() and (tmp_path / "mechanisms.png").is_file()
    assert mechanisms.main(["--measures", "nothing"]) == 2
    rows = mechanisms.symmetry([0], "quick", (0.0, 0.1))
    zero, random = rows
    assert zero["spread_alpha"] == zero["spread_B"] == 0.0  # from zero the heads stay one head
    assert random["spread_alpha"] > 0 and random["spread_B"] > 0
    assert mechanisms.main(["--profile", "quick", "--seeds", "1", "--measures", "symmetry",
                            "--output", str(tmp_path), "--stem", "sym"]) == 0
    assert "heads' symmetry" in (tmp_path / "sym.md").read_text() and (tmp_path / "sym.png").is_file()
    assert mechanisms.main(["--lag-tasks", "parity"]) == 2
