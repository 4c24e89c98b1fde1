"""Section 5 experiments: hand-written gradients against finite differences, the count-vector
tasks against the engine's model, the occurrence three-phase plan against the exact population
engine, reproducibility, the command line, Table 1's format and the claim checks' mutations."""
import json
import re
import math

import numpy as np
import pytest

from verify.cli import main
from verify.engine import general, model
from verify.engine.plans import three_phase
from verify.experiments import config, figure, grid, plans, table
from verify.experiments.counting import OCCURRENCE, attention
from verify.experiments.run import TASKS, generators, run_one, settings
from verify.results import experiments as claims

TINY = {"train": 30, "test": 20, "d": 5, "max_len": 4, "seq_len": 8}


def tiny(name, std=0.7):
    cfg = dict(settings(name, "quick"))
    cfg.update({k: v for k, v in TINY.items() if k in cfg})
    cfg["init_std"] = std
    task = TASKS[name]
    rngs = generators(name, 3)
    problem = task.sample(cfg, tuple(rngs[:3]))
    return task, problem, task.init(problem, rngs[3], False, cfg)


def numeric_grad(task, params, data, h=1e-6):
    out = {}
    for key, value in params.items():
        g = np.zeros(value.size)
        for i in range(value.size):
            shifted = []
            for sign in (1, -1):
                p = {k: np.array(v, dtype=float) for k, v in params.items()}
                p[key].reshape(-1)[i] += sign * h
                shifted.append(task.loss(p, data))
            g[i] = (shifted[0] - shifted[1]) / (2 * h)
        out[key] = g.reshape(np.shape(value))
    return out


@pytest.mark.parametrize("name", list(TASKS))
def test_gradients_match_finite_differences(name):
    task, problem, params = tiny(name)
    loss, grads = task.loss_grad(params, problem.train)
    assert loss == pytest.approx(task.loss(params, problem.train), rel=1e-12)
    num = numeric_grad(task, params, problem.train)
    assert set(grads) == set(num) == {n for g in task.groups.values() for n in g}
    for key in num:
        scale = max(np.max(np.abs(num[key])), 1e-3)
        assert np.max(np.abs(grads[key] - num[key])) <= 1e-6 * scale, key
    # the output-only path (frozen read-out) gives the same output gradients
    fixed = task.readout(params, problem.train)
    loss_o, grads_o = task.output_loss_grad(params, problem.train, fixed)
    assert loss_o == pytest.approx(loss, rel=1e-12)
    for key in task.groups["output"]:
        np.testing.assert_allclose(grads_o[key], grads[key], rtol=1e-12, atol=1e-15)


def test_finite_difference_test_catches_a_wrong_gradient():
    """Mutation: a gradient off by 1% in one coordinate is caught."""
    task, problem, params = tiny("slr")
    _, grads = task.loss_grad(params, problem.train)
    num = numeric_grad(task, params, problem.train)
    grads["k"][0] *= 1.01
    assert np.max(np.abs(grads["k"] - num["k"])) > 1e-6 * np.max(np.abs(num["k"]))


def test_counting_tasks_agree_with_the_engine_model():
    task, problem, params = tiny("occurrence")
    data = problem.train
    np.testing.assert_allclose(attention(data, params["alpha"]),
                               model.attention(data.counts, params["alpha"]), rtol=1e-13)
    risk, g_a, g_b = model.empirical_risk_and_grad(data.counts, data.y, params["alpha"], params["beta"])
    loss, grads = task.loss_grad(params, data)
    assert loss == pytest.approx(risk, rel=1e-13)
    np.testing.assert_allclose(grads["alpha"], g_a, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(grads["beta"], g_b, rtol=1e-10, atol=1e-15)
    heads, hproblem, hparams = tiny("and")
    f = model.predict_heads(hproblem.train.counts, hparams["alpha"], hparams["B"], float(hparams["bias"]))
    err = f - hproblem.train.y
    assert heads.loss(hparams, hproblem.train) == pytest.approx(np.mean(0.5 * err * err), rel=1e-13)


def _three_phase_population_gap(d, N, seed, eta1, eta2, eta3, T, exact):
    cfg = {"d": d, "train": N, "test": 1, "init_std": 0.0, "steps": T + 2,
           "attention_phase_steps": 1, "eta_output_one": eta1, "eta_attention_one": eta2,
           "eta_output": eta3, "eta_attention": 0.0}
    rngs = generators("occurrence", seed)
    problem = OCCURRENCE.sample(cfg, tuple(rngs[:3]))
    params = OCCURRENCE.init(problem, rngs[3], True, cfg)
    params, _, blown = plans.train(OCCURRENCE, problem, params, plans.schedule("O1-A1-O-zero", cfg))
    assert not blown
    (s,) = problem.info["targets"]
    risk = general.evaluate_float(d, s, params["alpha"], params["beta"]).loss
    return abs(risk - exact)


def test_occurrence_three_phase_approaches_the_population_engine():
    """Finite-sample three-phase run (zero init): the population risk of the learned point
    (general engine) approaches the exact population plan's risk (symmetric engine) as N grows."""
    d, eta1, eta2, eta3, T = 5, math.sqrt(5), 40.0, 1.0, 30
    exact = float(three_phase(d, eta1, eta2, eta3, T, dps=20).loss)
    gaps = [np.mean([_three_phase_population_gap(d, N, seed, eta1, eta2, eta3, T, exact)
                     for seed in range(4)]) for N in (100, 1000, 10000, 100000)]
    assert gaps[-1] < 0.2 * gaps[0], gaps
    assert gaps[-1] < 0.02 * exact + 1e-3, (gaps, exact)
    assert all(b < a * 1.2 for a, b in zip(gaps, gaps[1:])), gaps


def test_same_seed_same_bytes():
    cfg = settings("and", "quick")
    a = json.dumps(run_one("and", "O1-A1-O", 4, cfg), sort_keys=True, default=str)
    b = json.dumps(run_one("and", "O1-A1-O", 4, cfg), sort_keys=True, default=str)
    strip = lambda s: {k: v for k, v in json.loads(s).items() if k not in ("seconds", "cpu_seconds")}
    assert strip(a) == strip(b)
    c = run_one("and", "O1-A1-O", 5, cfg)
    assert c["train_loss"] != json.loads(a)["train_loss"]


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_command_writes_table_and_figure_reproducibly_and_resumes(capsys, tmp_path):
    argv = ["experiments", "--profile", "quick", "--tasks", "occurrence,even_pairs",
            "--plans", "joint,O1-A1", "--seeds", "2"]
    code, out, _ = _run(capsys, *argv, "--out", str(tmp_path / "a"))
    assert code == 0 and "Table 1" in out
    code, _, _ = _run(capsys, *argv, "--out", str(tmp_path / "b"), "--workers", "2")
    assert code == 0
    assert not (tmp_path / "a" / "claims.md").exists()  # two tasks: the claims need all six
    for name in ("table1.md", "table1.json", "figure3.png"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    data = json.loads((tmp_path / "a" / "table1.json").read_text())
    assert set(data["tasks"]) == {"occurrence", "even_pairs"} and data["seeds"] == 2
    # resume: a third run in the same directory judges nothing new and writes the same bytes
    lines = (tmp_path / "a" / "journal.jsonl").read_text().count("\n")
    before = (tmp_path / "a" / "table1.json").read_bytes()
    assert _run(capsys, *argv, "--out", str(tmp_path / "a"))[0] == 0
    assert (tmp_path / "a" / "journal.jsonl").read_text().count("\n") == lines
    assert (tmp_path / "a" / "table1.json").read_bytes() == before


@pytest.mark.parametrize("argv,needle", [
    (["experiments", "--tasks", "parity"], "unknown task parity"),
    (["experiments", "--plans", "joint,B"], "unknown plan B"),
    (["experiments", "--seeds", "0"], "expected a positive integer"),
    (["experiments", "--profile", "full"], "invalid choice"),
    (["experiments", "--out", "/no/such/dir/x"], "no such directory"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    code, _, err = _run(capsys, *argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_missing_matplotlib_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(figure.importlib.util, "find_spec", lambda name: None)
    code, _, err = _run(capsys, "experiments", "--profile", "quick", "--out", str(tmp_path / "x"))
    assert code == 2 and "notebooks extra" in err and len(err.strip().splitlines()) == 1


def test_configs_mark_every_choice():
    """Every setting outside [quick] says whether the paper fixes it or it is ours."""
    for name in TASKS:
        section = None
        for line in config.text(name).splitlines():
            if line.startswith("["):
                section = line.strip("[] ")
            elif "=" in line and not line.startswith("#") and section != "quick":
                assert "# paper" in line or "# ours" in line, (name, line)
        assert set(config.raw(name)) >= {"data", "model", "training", "quick"}


def test_bad_config_is_reported(monkeypatch):
    with pytest.raises(config.ConfigError, match="no configuration"):
        config.raw("parity")
    with pytest.raises(config.ConfigError, match="a rule is"):
        config.resolve({"eta_output": {"coef": 1, "exponent": 2}}, 5)


def test_table_cells():
    ok = [False, False]
    assert table.cell(table.summary([1e-5, 2e-4], ok)) == "< 1e-3"
    assert table.cell(table.summary([0.99, 1.0], ok)) == "0.995 ± 0.0071"
    assert table.cell(table.summary([1.0, 1.0], ok)) == "1.00 ± 0"
    assert table.cell(table.summary([float("inf"), 0.5], [True, False])).endswith("(1 diverged)")


def test_schedules_share_the_budget():
    cfg = {"steps": 50, "attention_phase_steps": 3, "eta_output": 1, "eta_attention": 2,
           "eta_output_one": 3, "eta_attention_one": 4}
    totals = {p: sum(ph.steps for ph in plans.schedule(p, cfg)) for p in plans.PLANS}
    assert {p: t for p, t in totals.items() if p != "O1-A1"} == {p: 50 for p in plans.PLANS if p != "O1-A1"}
    assert totals["O1-A1"] == 4


# ------------------------------------------------------------------------------ claim checks


def _records(acc, plans_acc=None, lag=True, n=6):
    """Synthetic grid records: joint accuracy ``acc`` everywhere; other plans from plans_acc."""
    plans_acc = plans_acc or {}
    out_gap, att_gap = ([0, 1, 2, 2], [0, 0, 1, 2]) if lag else ([0, 0, 1, 2], [0, 1, 2, 2])
    traj = {"step": [0, 1, 2, 3], "loss": [1, 1, 1, 1], "output_gap": out_gap,
            "attention_gap": att_gap}
    rec = lambda a, i: {"test": a + 0.001 * (i % 2), "train_loss": 0.0, "diverged": False,
                        "trajectory": traj}
    return {t: {p: [rec(plans_acc.get(p, acc), i) for i in range(n)] for p in plans.PLANS}
            for t in TASKS}


def test_claim_checks_pass_on_the_claimed_pattern_and_fail_on_mutations():
    good = _records(1.0, {p: 0.5 for p in claims.SIMPLE_PLANS})
    assert claims.judge_joint(good, "x").passed is True
    assert claims.judge_three_phase(good, "x").passed is True
    assert claims.judge_simple(good, "x").passed is True
    assert claims.judge_lag(good, "x").passed is True
    # mutations: joint GD at 0.9; three-phase 5 points worse; a simple plan matching; attention first
    assert claims.judge_joint(_records(0.9), "x").passed is False
    worse = _records(1.0, {"O1-A1-O": 0.95, **{p: 0.5 for p in claims.SIMPLE_PLANS}})
    assert claims.judge_three_phase(worse, "x").passed is False
    matching = _records(1.0, {p: 0.5 for p in claims.SIMPLE_PLANS if p != "O"})
    assert claims.judge_simple(matching, "x").passed is False
    assert claims.judge_lag(_records(1.0, lag=False), "x").passed is False


def test_claims_file_judges_every_claim():
    """`verify experiments` writes claims.md beside Table 1 (cli_experiments.claims_markdown): one
    row per claim and per task of per-task claims."""
    from verify.cli_experiments import claims_markdown

    good = _records(1.0, {p: 0.5 for p in claims.SIMPLE_PLANS})
    rows = claims.judge_grid(good, "g")
    assert len(rows) == 2 + len(claims.THREE_PHASE_TASKS) + len(claims.ALL_TASKS)
    assert all(outcome.passed is True for _, _, outcome in rows)
    text = claims_markdown(good, "default", 6)
    assert text.count("| pass |") == len(rows) and "FAIL" not in text
    worse = _records(1.0, {"O1-A1-O": 0.9, **{p: 0.5 for p in claims.SIMPLE_PLANS}})
    lines = [line for line in claims_markdown(worse, "default", 6).splitlines()
             if line.startswith("| `experiments.three_phase`")]
    assert sum("| FAIL |" in line for line in lines) == 4


def test_statistics():
    assert claims.t_quantile(0.95, 4) == pytest.approx(2.1318, abs=1e-4)
    assert claims.sign_test(5, 5) == 1 / 32
    assert claims.first_reach([0, 1, 2, 3], [0, 0.05, 0.5, 1.0]) == 2
    assert claims.at_least([0.5] * 5, 0.99)[0] is False


def test_heads_table_runs_and_reports(tmp_path):
    from verify.experiments import heads

    row = heads.smallest_heads("occurrence", 5, 1)
    assert row["A1-O"] in (*heads.HEADS, None) and 0 <= row["joint"] <= 1
    text = heads.markdown([row], 1)
    assert "| occurrence | 5 |" in text


def test_document_names_every_claim_check():
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / claims.RESULT.document).read_text()
    assert {c.id for c in claims.RESULT.checks} <= set(re.findall(r"`\[([A-Za-z0-9_.\-]+)\]`", text))


def test_figure_curve_is_the_median_of_the_finite_runs():
    """One blown-up seed does not set a panel's scale; a non-finite run is left out."""
    def run(values, blown=False):
        return {"diverged": blown, "trajectory": {"step": [0, 1], "output_gap": values}}

    runs = [run([0.0, 1.0]), run([0.0, 2.0]), run([0.0, 1e69]), run([0.0, float("nan")], True)]
    steps, curve = figure.median_curve(runs, "output_gap")
    assert steps.tolist() == [0, 1] and curve.tolist() == [0.0, 2.0]


def test_joint_step_diagnosis_reruns_only_the_failing_seeds(monkeypatch, tmp_path):
    """`python -m verify.experiments.joint_step`: a seed below the threshold is rerun with the
    smaller attention step and tabled; a seed above it is not rerun."""
    from verify.experiments import joint_step

    calls = []

    def fake_run(task, plan, seed, cfg):
        calls.append((seed, cfg["eta_attention"]))
        test = 1.0 if seed == 0 or cfg["eta_attention"] < 100 else 0.7
        return {"test": test, "train_loss": 0.3, "trajectory": {"attention_gap": [0.1, -15.0, -14.0]}}

    monkeypatch.setattr(joint_step, "run_one", fake_run)
    monkeypatch.setattr(joint_step, "settings", lambda task, profile: {"eta_attention": 500.0})
    assert joint_step.main(["--out", str(tmp_path), "--tasks", "occurrence", "--seeds", "2"]) == 0
    assert calls == [(0, 500.0), (1, 500.0), (1, 50.0)]
    text = (tmp_path / "joint-step.md").read_text()
    assert "occurrence: 1 of 2 seeds below 0.99; 1 of them reach it" in text
    assert "| occurrence | 1 | 0.7000 |" in text
    assert joint_step.main(["--out", str(tmp_path / "none")]) == 2


# ------------------------------------------------------------------------------ generators


@pytest.mark.parametrize("profile", ["quick", "default"])
def test_icl_every_trigger_occurrence_in_context_is_followed_by_its_output(profile):
    """Bietti et al.'s generator: in the query's context, every position whose predecessor is the
    queried trigger holds that trigger's output, and the trigger occurred before the query (the
    answer can be read in context).  The planted generator of round 1 broke this in 3-4% of the
    sequences."""
    cfg = settings("icl_bigram", profile)
    problem = TASKS["icl_bigram"].sample(cfg, tuple(generators("icl_bigram", 0)[:3]))
    for data in (problem.train, problem.test):
        keyed = data.mask & (data.key == data.query[:, None])
        assert keyed.any(axis=1).all()  # the query occurred before
        assert not (keyed & (data.value != data.target[:, None])).any()
        # the query is one of the sequence's triggers, the target its output
        hit = data.triggers == data.query[:, None]
        assert hit.sum(axis=1).tolist() == [1] * data.query.shape[0]
        assert (data.outputs[hit] == data.target).all()


def test_icl_chain_follows_every_trigger_by_its_output():
    from verify.experiments.bigram import chain_sequences

    rng = np.random.default_rng(0)
    V, K = 12, 3
    bigram = rng.dirichlet(np.ones(V), size=V)
    seqs, triggers, outputs = chain_sequences(rng, 500, V, K, 40, bigram)
    for n in range(seqs.shape[0]):
        out_of = dict(zip(triggers[n].tolist(), outputs[n].tolist()))
        for a, b in zip(seqs[n, :-1], seqs[n, 1:]):
            if int(a) in out_of:
                assert out_of[int(a)] == int(b)
    assert len(set(map(tuple, np.sort(triggers, axis=1)))) > 100  # drawn per sequence


@pytest.mark.parametrize("profile", ["quick", "default"])
def test_exact_induction_head_scores_one_on_the_test_set(profile):
    """W_K = lambda I, W_O = I reads the output after the earlier occurrence of the query: it
    must score 1.000 (round 1's generator capped every plan at 0.978-0.982)."""
    task = TASKS["icl_bigram"]
    cfg = settings("icl_bigram", profile)
    problem = task.sample(cfg, tuple(generators("icl_bigram", 1)[:3]))
    V = problem.info["V"]
    head = {"WK": 30.0 * np.eye(V), "WO": np.eye(V)}
    assert task.evaluate(head, problem.test) == 1.0
    assert task.evaluate(head, problem.train) == 1.0
    # mutation: a head that reads the query token itself instead of the next one fails
    assert task.evaluate({"WK": 30.0 * np.eye(V), "WO": np.roll(np.eye(V), 1, axis=0)},
                         problem.test) < 0.2


def test_slr_relevant_token_has_the_cited_noise():
    """Marion et al.'s generator: the relevant token is N(sqrt(D/2) k*, I/2), the others N(0, I),
    y = <x_J0, v*> + N(0, 0.1^2)."""
    cfg = settings("slr", "default")
    assert cfg["token_variance"] == 0.5
    problem = TASKS["slr"].sample(cfg, tuple(generators("slr", 0)[:3]))
    data, k_star, v_star = problem.train, problem.info["k_star"], problem.info["v_star"]
    n, L, D = data.X.shape
    rows = np.arange(n)
    relevant = data.X[rows, data.where]
    resid = relevant - np.sqrt(D / 2) * k_star
    var = resid.var(axis=0, ddof=1)
    # each coordinate's variance within 5 standard errors (sd of a variance: sqrt(2/n) var)
    assert np.all(np.abs(var - 0.5) < 5 * np.sqrt(2 / n) * 0.5)
    others = np.ones((n, L), dtype=bool)
    others[rows, data.where] = False
    assert abs(data.X[others].var() - 1.0) < 0.01
    noise = data.y - relevant @ v_star
    assert abs(noise.std() - 0.1) < 0.005


def test_slr_output_step_is_the_curvature_rule():
    """eta_O = 1 / lambda_max of the output Hessian at the ideal attention; a second route: the
    population value D/2 + gamma^2 (E[x x^T] for x ~ N(sqrt(D/2) k*, gamma^2 I)).  Round 1's 0.3
    was eight times above it."""
    from verify.experiments import curvature

    for profile in ("quick", "default"):
        cfg = settings("slr", profile)
        D = cfg["d"]
        problem = TASKS["slr"].sample(cfg, tuple(generators("slr", curvature.SEED)[:3]))
        lam = curvature.largest_curvature(TASKS["slr"], problem)
        assert lam == pytest.approx(D / 2 + 0.5, rel=0.1)
        assert cfg["eta_output"] == pytest.approx(1 / lam, rel=1e-12)
        assert cfg["eta_output"] <= 1 / (D / 2)


def test_a_diverged_run_is_counted_apart_and_never_averaged():
    """A loss above 1e6 (here finite: 1e69) marks the run diverged; Table 1's cell averages the
    other runs only and shows the count."""
    assert plans.diverged(2.6e69) and plans.diverged(float("nan")) and not plans.diverged(0.5)
    task, problem, params = tiny("slr", std=0.1)
    cfg = {"steps": 50, "attention_phase_steps": 1, "eta_output": 30.0, "eta_attention": 0.0,
           "eta_output_one": 1.0, "eta_attention_one": 1.0}
    _, traj, blown = plans.train(task, problem, params, plans.schedule("O", cfg))
    assert blown and all(loss <= 1e6 for loss in traj.loss)
    runs = [{"train_loss": 0.5, "test": 0.4, "diverged": False},
            {"train_loss": 1e69, "test": 1e69, "diverged": True},
            {"train_loss": 0.7, "test": 0.6, "diverged": False}]
    s = table.summary([r["test"] for r in runs], [r["diverged"] for r in runs])
    assert s["mean"] == pytest.approx(0.5) and s["n"] == 2 and s["diverged"] == 1
    assert table.cell(s) == "0.500 ± 0.14 (1 diverged)"


# ------------------------------------------------------------------------------ speed


def test_count_matrix_attention_agrees_with_the_dense_softmax_and_survives_underflow():
    """The count-matrix operator (gamma = C w / (C . w)) gives the dense softmax(ln C + alpha)'s
    outputs and pullbacks; a logit spread of 2000 underflows C . w for the words without the
    leading symbol, whose rows are then formed densely (not NaN)."""
    from verify.experiments.counting import attend

    task, problem, params = tiny("and")
    data = problem.train
    for alphas in (params["alpha"], np.array([[2000.0, 0, 0, 0, 0], [0, -3, 1, 0, 2]])):
        B = np.arange(alphas.size, dtype=float).reshape(alphas.shape) / 7
        att, o = attend(data.counts, alphas, B)
        gam = attention(data, alphas)
        np.testing.assert_allclose(o, np.einsum("nhd,hd->nh", gam, B), rtol=1e-13, atol=1e-15)
        V = np.random.default_rng(0).standard_normal(o.shape)
        (G,) = att.pullback(V)
        np.testing.assert_allclose(G, np.einsum("nh,nhd->hd", V, gam), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(att.features(), gam.reshape(gam.shape[0], -1), rtol=1e-13, atol=1e-15)
    assert att.rows.size > 0 and np.isfinite(o).all()


@pytest.mark.parametrize("name", ["occurrence", "and", "slr"])
def test_quadratic_output_phase_is_the_same_gradient_descent(name):
    """An output phase on the precomputed quadratic (M theta - r) follows the plain output
    steps to rounding: the same parameters within 1e-12 relative after 40 steps."""
    task, problem, params = tiny(name, std=0.5)
    phase = [plans.Phase({"output": 0.3}, 40)]
    quad_params, _, blown = plans.train(task, problem, params, phase)
    assert not blown
    plain = {k: np.array(v) for k, v in params.items()}
    fixed = task.readout(plain, problem.train)
    for _ in range(40):
        _, grads = task.output_loss_grad(plain, problem.train, fixed)
        for k in task.groups["output"]:
            plain[k] = plain[k] - 0.3 * grads[k]
    for k in task.groups["output"]:
        np.testing.assert_allclose(quad_params[k], plain[k], rtol=1e-12, atol=1e-14)
    quad = task.quadratic(params, problem.train, task.readout(params, problem.train))
    assert quad.loss_grad(quad.pack(params))[0] == pytest.approx(task.loss(params, problem.train), rel=1e-10)


def test_run_seed_gives_run_one_bytes_for_every_plan():
    """A job draws a seed's data once for several runs; each record is run_one's, byte for byte."""
    from verify.experiments.run import run_seed

    cfg = settings("icl_bigram", "quick")
    specs = [("joint", {}), ("O1-A1-O", {"eta_output_one": 3.0}), ("A", {"init_std": 0.01})]
    together = run_seed("icl_bigram", 2, cfg, specs)
    strip = lambda r: json.dumps({k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds")},
                                 sort_keys=True)
    for (plan, over), rec in zip(specs, together):
        assert strip(rec) == strip(run_one("icl_bigram", plan, 2, {**cfg, **over}))


def test_grid_gives_the_same_bytes_on_a_local_cluster_of_two(tmp_path):
    """The same tiny grid serially and on a Dask LocalCluster of 2 workers: the same records."""
    distributed = pytest.importorskip("distributed")
    from verify import executors

    args = (["occurrence", "slr"], ["joint", "O1-A1-O"], [0, 1], "quick")
    serial = grid.run_grid(*args)
    with executors.Dask(workers=2) as dask:
        on_dask = grid.run_grid(*args, executor=dask)
    strip = lambda recs: json.dumps({t: {p: [{k: v for k, v in r.items()
                                              if k not in ("seconds", "cpu_seconds")} for r in rs]
                                         for p, rs in by.items()} for t, by in recs.items()},
                                    sort_keys=True)
    assert strip(serial) == strip(on_dask)


def test_slr_blocked_step_equals_one_block(monkeypatch):
    """The full step in blocks of tokens gives the one-block loss and gradients (to rounding)."""
    from verify.experiments import slr

    task, problem, params = tiny("slr")
    whole = task.loss_grad(params, problem.train)
    monkeypatch.setattr(slr, "BLOCK_BYTES", 1)  # one sequence per block
    blocks = task.loss_grad(params, problem.train)
    assert blocks[0] == pytest.approx(whole[0], rel=1e-13)
    for k in ("k", "v"):
        np.testing.assert_allclose(blocks[1][k], whole[1][k], rtol=1e-12, atol=1e-15)
