"""The open question on the population loss (verify.experiments.heads_population): the H-head
attention step by three routes, the loss by two, and the table's logic."""
from __future__ import annotations

import json

import numpy as np
import pytest

from verify.engine.distribution import WordDistribution
from verify.engine.general import (GeneralAttention, attention_gradient_terms,
                                   best_output_heads_float, evaluate_grid, float_attention_grid)
from verify.engine.general.moments import grid_moments
from verify.experiments import heads_population as hp
from verify.experiments.counting import CountingTask, words


def _grid(d, s):
    g = float_attention_grid(d, s, np.zeros(d))
    return g, grid_moments(g).second


def test_cross_gradient_on_the_diagonal_is_the_single_head_gradient():
    g, M = _grid(6, 2)
    beta = np.random.default_rng(3).normal(size=6)
    assert np.allclose(hp.cross_gradient(g, M, beta, beta), evaluate_grid(g, beta).grad_alpha,
                       rtol=0, atol=1e-14)


def test_cross_gradient_matches_the_all_words_mpmath_terms():
    """Slice-form float64 polarisation vs the all-words generating function at 20 digits."""
    d, s = 5, 1
    rng = np.random.default_rng(1)
    u, v = rng.normal(size=d), rng.normal(size=d)
    att = GeneralAttention.from_alpha(d, s, [0] * d, dps=20)
    t = {k: attention_gradient_terms(att, [float(x) for x in b])
         for k, b in (("u", u), ("v", v), ("p", u + v), ("m", u - v))}
    ref = [float(v[l] * t["u"].second_beta[l] - (t["p"].third[l] - t["m"].third[l]) / 4
                 - 2 * v[l] * t["u"].mean_positive[l] + 2 * t["v"].second_beta_positive[l])
           for l in range(d)]
    g, M = _grid(d, s)
    got = hp.cross_gradient(g, M, u, v)
    assert np.allclose(got, ref, rtol=0, atol=1e-12)
    assert not np.allclose(hp.cross_gradient(g, M, v, u), ref, rtol=0, atol=1e-4)  # not symmetric


def test_attention_step_matches_the_sample_gradient_of_the_task():
    """The H-head model of the experiments at alpha = 0 on 400,000 words: each entry within 5
    batch standard errors of the population gradient (and a wrong residual is far outside)."""
    d, s, H = 4, 2, 3
    rng = np.random.default_rng(0)
    B0 = rng.normal(0, 1, (H, d))
    pop = hp.attention_step(d, s, B0)
    task = CountingTask("occurrence", 1, "any", H)
    batches = []
    for _ in range(20):
        counts = WordDistribution(d).sample_counts(rng, 20_000).astype(np.float64)
        y = np.where(counts[:, s] >= 1, 1.0, -1.0)
        batches.append(task.loss_grad({"alpha": np.zeros((H, d)), "B": B0}, words(counts, y))[1]
                       ["alpha"])
    batches = np.array(batches)
    mean, se = batches.mean(axis=0), batches.std(axis=0, ddof=1) / np.sqrt(len(batches))
    assert np.all(np.abs(mean - pop) <= 5 * se)
    wrong = hp.attention_step(d, s, B0[::-1])  # heads' outputs swapped: another residual split
    assert np.any(np.abs(mean - wrong) > 5 * se)


def test_monte_carlo_loss_agrees_with_the_engine_floor():
    d, s = 4, 0
    alphas = np.array([[1.0, -0.5, 0.0, 0.3], [0.0, 0.4, -1.0, 0.2]])
    B, value = best_output_heads_float(d, s, alphas)
    mc = hp.monte_carlo(d, s, alphas, B, 200_000, np.random.default_rng(5))
    assert hp.mc_z({"loss": value, **mc}) < 5
    assert hp.mc_z({"loss": value + 0.01, **mc}) > 5
    assert mc["accuracy.lower"] <= mc["accuracy"] <= mc["accuracy.upper"]


def test_row_takes_one_step_size_for_the_worst_target(monkeypatch):
    """The spread kept is the one that minimises the worst target's loss, the same for all."""
    fake = {0: {1.0: 0.3, 4.0: 0.2, 16.0: 0.0, 64.0: 0.0},
            1: {1.0: 0.25, 4.0: 0.1, 16.0: 0.4, 64.0: 0.4}}

    def target_floors(d, s, B0):
        return {K: (v, np.zeros((1, d)), np.zeros((1, d))) for K, v in fake[s].items()}

    monkeypatch.setattr(hp, "target_floors", target_floors)
    monkeypatch.setattr(hp, "ProcessPoolExecutor", _Serial)
    r = hp.row(2, 1, 2, 0, 100)
    assert r["spread"] == 4.0 and r["worst_loss"] == 0.2 and not r["reaches"]
    assert {t["target"]: t["loss"] for t in r["targets"]} == {0: 0.2, 1: 0.1}


def _row(d, H, loss, acc_lower, n=3):
    targets = [{"target": 0, "loss": loss, "mc_loss": loss, "mc_loss.se": 1.0}]
    return {"d": d, "H": H, "worst_loss": loss, "reaches": loss <= hp.LOSS_LEVEL,
            "worst_accuracy": acc_lower + 0.001, "worst_accuracy.lower": acc_lower,
            "n_targets": n, "spread": 16.0, "targets": targets}


def test_smallest_H_by_loss_and_by_accuracy_on_hand_made_rows():
    """A non-monotone accuracy series: the smallest H is the first that qualifies."""
    rows = [_row(5, 1, 0.3, 0.80), _row(5, 2, 0.2, 0.995), _row(5, 4, 0.1, 0.97),
            _row(5, 8, 0.004, 0.999), _row(7, 1, 0.3, 0.5)]
    assert hp.smallest(rows, 5) == 8 and hp.smallest(rows, 5, by_accuracy=True) == 2
    assert hp.smallest(rows, 7) is None and hp.smallest(rows, 7, by_accuracy=True) is None
    text = hp.markdown(rows, 1000)
    assert "| 5 | 2.2 | 3 of 5 | 8 | 2 |" in text and "| 7 | 2.6 | 3 of 7 | > 1 | > 1 |" in text


class _Serial:
    def __init__(self, workers):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, fn, *its):
        return map(fn, *its)


def test_command_writes_table_and_stops_at_the_first_reaching_H(tmp_path, capsys):
    assert hp.main(["--out", str(tmp_path), "--d", "3", "--heads", "1,2", "--mc", "2000",
                    "--workers", "1"]) == 0
    rows = json.loads((tmp_path / "heads-population.json").read_text())
    assert [r["H"] for r in rows][0] == 1 and all(r["n_targets"] == 3 for r in rows)
    assert all(r["worst_loss"] == max(t["loss"] for t in r["targets"]) for r in rows)
    assert len(rows) == 1 + (not rows[0]["reaches"])
    text = (tmp_path / "heads-population.md").read_text()
    assert "| 3 | 1.7 | all |" in text and (tmp_path / "heads-population.png").stat().st_size > 0


@pytest.mark.parametrize("argv", [["--d", "1"], ["--heads", "x"], ["--mc", "1"]])
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as e:
        hp.main(argv)
    assert e.value.code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


def test_append_keeps_the_rows_of_other_d_and_H(tmp_path, capsys):
    common = ["--out", str(tmp_path), "--heads", "1", "--mc", "100", "--workers", "1"]
    assert hp.main(["--d", "3", *common]) == 0
    assert hp.main(["--d", "2", "--append", *common]) == 0
    rows = json.loads((tmp_path / "heads-population.json").read_text())
    assert [r["d"] for r in rows] == [2, 3]
    assert hp.main(["--d", "2", "--append", *common, "--heads", "2"]) == 0  # the last one counts
    rows = json.loads((tmp_path / "heads-population.json").read_text())
    assert [(r["d"], r["H"]) for r in rows] == [(2, 1), (2, 2), (3, 1)]
    assert hp.main(["--d", "2", *common]) == 0  # without --append a run starts afresh
    assert [r["d"] for r in json.loads((tmp_path / "heads-population.json").read_text())] == [2]


def test_table_cells():
    rows = [{"H": 1, "n_targets": 20}, {"H": 2, "n_targets": 20}, {"H": 16, "n_targets": 6}]
    assert hp.targets_cell(rows, 20) == "all (H 1,2); 6 (H 16)"
    assert hp.targets_cell(rows[:2], 20) == "all" and hp.targets_cell(rows[2:], 20) == "6 of 20"
    cells = [hp.loss_cell(v) for v in (0.01476, 3.2e-6, -4e-16)]
    assert cells == ["0.0148", "3.2e-06", "≤ 1e-12"]
