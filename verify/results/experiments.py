"""Section 5's qualitative claims about Table 1, as statistical checks over seeded runs.

The paper's outcome figures were withheld from our copy; its surviving text claims that the
three-phase plan learns the other tasks "in most cases" and "outperforms other decoupled
training", that joint GD is the baseline, and (Section 4, Discussions) that attention learning
lags output learning.  Each check below turns one such claim into a test on the runs of
``verify.experiments`` (one grid per profile, computed once per process and shared by the checks; d = 8 in every
profile, 5, 10 or 50 seeds):

* ``experiments.joint_accuracy``: joint GD's test accuracy is >= 0.99 on the five
  classification tasks;
* ``experiments.three_phase``: O(1x)->A(1x)->O, from random and from zero initialisation,
  matches joint GD's test accuracy on occurrence, OR, even pairs and ICL bigram;
* ``experiments.simple_plans``: no one- or two-phase plan (A, O, A(1x)->O, O(1x)->A(1x))
  matches joint GD on all five classification tasks;
* ``experiments.attention_lags``: under joint GD the output gap moves before the attention gap.

Tests (ours; level 5%, one-sided, tolerance ``DELTA`` in accuracy):

* a mean "at least c": Student-t 95% bounds on the mean over seeds (paired over seeds for a
  difference of plans, which share data and initialisation); pass when the lower bound is
  >= c - DELTA, fail when the upper bound is < c - DELTA (the data reject it), else undecided;
* "does not match": a plan fails to match on a task when the upper bound of its paired
  difference to joint GD is < -DELTA;
* lag: per seed, the first checkpoint at which a gap has covered 10% of its largest change
  (ours: "the attention gap stays near 0 while the output gap grows");
  one-sided sign test over the seeds without a tie (exact binomial, p < 0.05 for "output first" passes; p < 0.05
  for "attention first" fails).  With n seeds the smallest p is 2^-n: n >= 5 seeds are needed.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Mapping, Sequence

import numpy as np
import scipy.stats

from ..checks import Case, Check, Constants, Discrepancy, Evidence, Outcome, Profile, Result

CLASSIFICATION = ("occurrence", "or", "and", "even_pairs", "icl_bigram")
ALL_TASKS = (*CLASSIFICATION, "slr")
THREE_PHASE_TASKS = ("occurrence", "or", "even_pairs", "icl_bigram")
SIMPLE_PLANS = ("A", "O", "A1-O", "O1-A1")
TARGET = 0.99
DELTA = 0.02  # ours: one test error in 64 (the quick profile's test set) is 0.016
LEVEL = 0.05
SEEDS = {Profile.QUICK: 5, Profile.DEFAULT: 10, Profile.FULL: 50}
GRID_PROFILE = {Profile.QUICK: "quick", Profile.DEFAULT: "quick", Profile.FULL: "quick"}  # the
# paper-size grid (about 5 CPU hours for 50 seeds in one process) is `verify experiments`' job


# ------------------------------------------------------------------------------ statistics


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with df degrees of freedom (SciPy)."""
    return float(scipy.stats.t.ppf(p, df))


def mean_bounds(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, lower, upper): one-sided 95% Student-t bounds on the mean (infinite for n < 2)."""
    arr = np.asarray(values, dtype=np.float64)
    n, mean = arr.size, float(np.mean(arr))
    if n < 2:
        return mean, -math.inf, math.inf
    half = t_quantile(1 - LEVEL, n - 1) * float(np.std(arr, ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def at_least(values: Sequence[float], target: float) -> tuple[bool | None, float, float, float]:
    """Is the mean >= target - DELTA?  (verdict, mean, lower, upper), module docstring."""
    mean, lower, upper = mean_bounds(values)
    if lower >= target - DELTA:
        return True, mean, lower, upper
    if upper < target - DELTA:
        return False, mean, lower, upper
    return None, mean, lower, upper


def sign_test(k: int, n: int) -> float:
    """P(X >= k) for X ~ Binomial(n, 1/2): the exact one-sided binomial test (SciPy)."""
    return float(scipy.stats.binomtest(k, n, 0.5, alternative="greater").pvalue)


def first_reach(steps: Sequence[int], gaps: Sequence[float], fraction: float = 0.1) -> int:
    """The first step at which the gap has covered ``fraction`` of its largest change from its
    initial value (the end of the run if it never moves)."""
    g = np.abs(np.asarray(gaps, dtype=np.float64) - gaps[0])
    reach = g.max()
    return int(steps[int(np.argmax(g >= fraction * reach))]) if reach > 0 else int(steps[-1])


# ------------------------------------------------------------------------------ judgements


def accuracies(records: Mapping, task: str, plan: str) -> list[float]:
    """Test accuracies over the seeds; a diverged run (NaN) counts as accuracy 0."""
    return [0.0 if math.isnan(r["test"]) else r["test"] for r in records[task][plan]]


def differences(records: Mapping, task: str, plan: str) -> list[float]:
    """Per seed: plan's test accuracy minus joint GD's (same data, same initialisation)."""
    return [a - b for a, b in zip(accuracies(records, task, plan), accuracies(records, task, "joint"))]


def combine(verdicts: Sequence[bool | None]) -> bool | None:
    if any(v is False for v in verdicts):
        return False
    return True if all(v is True for v in verdicts) else None


def judge_joint(records: Mapping, label: str) -> Outcome:
    verdicts, values, parts = [], {}, []
    for task in CLASSIFICATION:
        v, mean, lower, upper = at_least(accuracies(records, task, "joint"), TARGET)
        verdicts.append(v)
        values[f"{task}.mean"], values[f"{task}.lower"] = mean, lower
        parts.append(f"{task} {mean:.3f} [{lower:.3f}, {upper:.3f}]")
    margin = min(values[f"{t}.lower"] for t in CLASSIFICATION) - (TARGET - DELTA)
    return Outcome(label, combine(verdicts), margin, Evidence.STATISTICAL,
                   "joint GD test accuracy, mean [95% t bounds]: " + "; ".join(parts),
                   margin_kind="difference", values=values)


def judge_three_phase(records: Mapping, label: str,
                      tasks: Sequence[str] = THREE_PHASE_TASKS) -> Outcome:
    verdicts, values, parts = [], {}, []
    for task in tasks:
        for plan in ("O1-A1-O", "O1-A1-O-zero"):
            v, mean, lower, upper = at_least(differences(records, task, plan), 0.0)
            verdicts.append(v)
            values[f"{task}.{plan}.diff"], values[f"{task}.{plan}.lower"] = mean, lower
            parts.append(f"{task}/{plan} {mean:+.3f} [{lower:+.3f}, {upper:+.3f}]")
    margin = min(v for k, v in values.items() if k.endswith(".lower")) + DELTA
    return Outcome(label, combine(verdicts), margin, Evidence.STATISTICAL,
                   "three-phase minus joint GD accuracy, paired: " + "; ".join(parts),
                   margin_kind="difference", values=values)


def judge_simple(records: Mapping, label: str) -> Outcome:
    verdicts, values, parts = [], {}, []
    for plan in SIMPLE_PLANS:
        worst_upper, worst_task, all_match = math.inf, "", True
        for task in CLASSIFICATION:
            v, mean, lower, upper = at_least(differences(records, task, plan), 0.0)
            all_match &= v is True
            if upper < worst_upper:
                worst_upper, worst_task = upper, task
        fails_somewhere = worst_upper < -DELTA
        verdicts.append(True if fails_somewhere else False if all_match else None)
        values[f"{plan}.worst_upper"], values[f"{plan}.worst_task"] = worst_upper, worst_task
        parts.append(f"{plan}: worst on {worst_task}, upper bound {worst_upper:+.3f}")
    margin = -max(values[f"{p}.worst_upper"] for p in SIMPLE_PLANS) - DELTA
    return Outcome(label, combine(verdicts), margin, Evidence.STATISTICAL,
                   "each simple plan's worst task (paired difference to joint GD): " + "; ".join(parts),
                   margin_kind="difference", values=values)


def judge_lag(records: Mapping, label: str, tasks: Sequence[str] | None = None) -> Outcome:
    verdicts, values, parts = [], {}, []
    for task in tasks or list(records):
        lead = lag = 0
        for r in (r for r in records[task]["joint"] if r["finite"]):
            t = r["trajectory"]
            out, att = first_reach(t["step"], t["output_gap"]), first_reach(t["step"], t["attention_gap"])
            lead, lag = lead + (out < att), lag + (att < out)
        n = lead + lag  # ties (both at the same checkpoint) carry no sign
        p_out, p_att = (sign_test(lead, n), sign_test(lag, n)) if n else (1.0, 1.0)
        verdicts.append(True if p_out < LEVEL else False if p_att < LEVEL else None)
        values[f"{task}.output_first"], values[f"{task}.p"] = f"{lead}/{n}", p_out
        parts.append(f"{task} {lead}/{n} (p = {p_out:.3g})")
    margin = LEVEL - max(v for k, v in values.items() if k.endswith(".p"))
    return Outcome(label, combine(verdicts), margin, Evidence.STATISTICAL,
                   "seeds where the output gap reaches 10% of its change first: " + "; ".join(parts),
                   margin_kind="difference", values=values)


# ------------------------------------------------------------------------------ checks


@lru_cache(maxsize=2)
def grid(profile: str, seeds: int):
    """The full grid of runs (every task and plan), once per process."""
    from ..experiments.grid import run_grid
    from ..experiments.plans import PLANS
    from ..experiments.run import TASKS

    return run_grid(list(TASKS), list(PLANS), list(range(seeds)), profile)


def _cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
    seeds, grid_profile = SEEDS[profile], GRID_PROFILE[profile]
    return [Case(f"{grid_profile} grid, {seeds} seeds", {"profile": grid_profile, "seeds": seeds})]


def _judge_with(judge):
    def run(case: Case, constants: Constants) -> Outcome:
        return judge(grid(case.params["profile"], case.params["seeds"]), case.label)
    return run


def _per_task(tasks: Sequence[str]):
    """Cases one per task (a verdict, and a documented shortfall, scoped to its task)."""
    def cases(profile: Profile, constants: Constants, options: Mapping) -> list[Case]:
        return [Case(f"{task}, {c.label}", {**c.params, "task": task})
                for c in _cases(profile, constants, options) for task in tasks]
    return cases


def _judge_task(judge):
    def run(case: Case, constants: Constants) -> Outcome:
        records = grid(case.params["profile"], case.params["seeds"])
        return judge(records, case.label, (case.params["task"],))
    return run


# each claim's judge, and the tasks it is judged on one by one (None: once, over all tasks)
JUDGES = {
    "experiments.joint_accuracy": (judge_joint, None),
    "experiments.three_phase": (judge_three_phase, THREE_PHASE_TASKS),
    "experiments.simple_plans": (judge_simple, None),
    "experiments.attention_lags": (judge_lag, ALL_TASKS),
}


def judge_grid(records: Mapping, label: str) -> list[tuple[str, str | None, Outcome]]:
    """Every claim judged on one grid's records (every task and plan; any sizes and seeds):
    (check id, task or None, outcome) in the order of the checks, one outcome per task for
    per-task claims.
    ``verify experiments`` writes them beside Table 1, for the paper-size grid the registered
    checks do not run."""
    rows = []
    for check_id, (judge, tasks) in JUDGES.items():
        if tasks is None:
            rows.append((check_id, None, judge(records, label)))
        else:
            rows += [(check_id, task, judge(records, f"{task}, {label}", (task,)))
                     for task in tasks]
    return rows


CHECKS = (
    Check("experiments.joint_accuracy", "Section 5, Table 1",
          f"joint GD reaches test accuracy >= {TARGET} on the five classification tasks",
          Evidence.STATISTICAL, _cases, _judge_with(judge_joint), reconstructed=True),
    Check("experiments.three_phase", "Section 5, Table 1",
          "O(1x)->A(1x)->O from random and zero init matches joint GD on occurrence, OR, even "
          "pairs and ICL bigram", Evidence.STATISTICAL, _per_task(THREE_PHASE_TASKS),
          _judge_task(judge_three_phase),
          reconstructed=True),
    Check("experiments.simple_plans", "Section 5, Table 1",
          "no one- or two-phase plan (A, O, A(1x)->O, O(1x)->A(1x)) matches joint GD on all five "
          "classification tasks", Evidence.STATISTICAL, _cases, _judge_with(judge_simple),
          reconstructed=True),
    Check("experiments.attention_lags", "Sections 4-6 (Figure 3)",
          "under joint GD the output gap moves before the attention gap, on every task",
          Evidence.STATISTICAL, _per_task(ALL_TASKS), _judge_task(judge_lag), reconstructed=True),
)

RESULT = Result(
    id="experiments",
    name="Section 5 experiments (Table 1, Figure 3)",
    short="Section 5: three-phase matches joint GD; simpler plans fail; attention lags",
    statement="The three-phase plan matches joint GD on occurrence, OR, even pairs and ICL "
              "bigram, from random and zero initialisation; no one- or two-phase plan does so on "
              "all classification tasks; attention learning lags output learning.",
    hypotheses="Six tasks of Section 5 with the settings of verify/experiments/config/*.toml "
               "(choices the paper leaves open marked 'ours'); seeds 0..n-1.",
    constants=(),
    checks=CHECKS,
    document="proofs/experiments.md",
    notes="Qualitative claims reconstructed from the surviving text; the paper's figures were "
          "withheld, so each verdict is our reproduction's.",
    discrepancies={
        "experiments.three_phase": Discrepancy(
            "ICL bigram at the quick settings (d = 8, 5 seeds): the three-phase plan stays 5-7 "
            "accuracy points below joint GD (paired upper bound -0.046 from zero initialisation); "
            "the other three tasks match from both initialisations. Step sizes are ours "
            "(config/icl_bigram.toml).",
            "the ICL bigram task", lambda params: params.get("task") == "icl_bigram"),
    },
)
