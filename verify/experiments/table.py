"""Table 1: train loss and test accuracy (test loss for SLR), mean ± standard deviation over
seeds, as Markdown and JSON, with the protocol's record: every chosen step size, the tuning
curves, and the initialisation map's cells.  Values below 10^-3 are written as the upper bound
"< 1e-3", as the paper does.  A diverged run (:func:`verify.experiments.plans.diverged`) is
counted and shown apart, never averaged.  Computes nothing but summaries of the runs' records."""
from __future__ import annotations

import json
import math
from typing import Any, Mapping, Sequence

import numpy as np

from . import protocol
from .plans import LABELS
from .statistics import error_rate
from .run import TASK_LABELS, TASKS

SMALL = 1e-3


def summary(values: Sequence[float], diverged: Sequence[bool]) -> dict[str, Any]:
    """Mean and sample standard deviation (ddof = 1; 0 for one seed) over the runs that did not
    diverge; the diverged ones counted apart (``diverged``)."""
    arr = np.asarray([v for v, bad in zip(values, diverged) if not bad], dtype=np.float64)
    lost = int(sum(bool(b) for b in diverged))
    if arr.size == 0:
        return {"mean": None, "sd": None, "n": 0, "diverged": lost}
    sd = float(np.std(arr, ddof=1)) if arr.size > 1 else 0.0
    return {"mean": float(np.mean(arr)), "sd": sd, "n": int(arr.size), "diverged": lost}


def cell(s: Mapping[str, Any]) -> str:
    """'m ± sd' with three significant digits; '< 1e-3' below 10^-3; diverged runs counted."""
    if s["mean"] is None:
        return f"diverged ({s['diverged']})"
    m, sd = s["mean"], s["sd"]
    spread = "0" if sd == 0 else "< 1e-3" if sd < SMALL else f"{sd:#.2g}"
    text = "< 1e-3" if abs(m) < SMALL else f"{m:#.3g} ± {spread}"
    return text + (f" ({s['diverged']} diverged)" if s["diverged"] else "")


def cells(records: Mapping) -> dict:
    """cells[task][plan] = {train_loss, test} summaries, and the exact bounds on the test error
    rate for a classification task (:func:`error_rate`)."""
    out: dict = {}
    for task, by_plan in records.items():
        out[task] = {}
        for plan, runs in by_plan.items():
            lost = [r["diverged"] for r in runs]
            out[task][plan] = {"train_loss": summary([r["train_loss"] for r in runs], lost),
                               "test": summary([r["test"] for r in runs], lost)}
            bounds = error_rate(runs) if TASKS[task].metric == "accuracy" else None
            if bounds is not None:
                out[task][plan]["error_rate"] = bounds
    return out


def build(records: Mapping, profile: str, seeds: int, settings: Mapping,
          chosen: Mapping | None = None, maps: Mapping | None = None, map_seeds: int = 0,
          tuning: Mapping | None = None) -> dict[str, Any]:
    """The table as one JSON-ready dict (no timings: the same seeds give the same bytes):
    Table 1's cells, each task's settings and chosen step sizes (exponents and values), the
    init map's cells by scale, and the tuning curves when given."""
    tasks = {}
    for task, by_plan in cells(records).items():
        cfg = dict(settings[task])
        tasks[task] = {"label": TASK_LABELS[task], "metric": TASKS[task].metric,
                       "settings": cfg, "plans": by_plan}
        if chosen is not None:
            tasks[task]["chosen"] = {
                plan: {"exponents": list(chosen[task][plan]),
                       "steps": protocol.steps(plan, cfg, chosen[task][plan])}
                for plan in by_plan}
    out: dict[str, Any] = {"profile": profile, "seeds": seeds, "tasks": tasks}
    if maps:
        out["init_map"] = {"seeds": map_seeds,
                           "scales": {repr(std): cells(m) for std, m in sorted(maps.items())}}
    if tuning is not None:
        out["tuning"] = {"seeds": list(protocol.TUNING_SEEDS), "exponents": list(protocol.EXPONENTS),
                         "free": {p: list(k) for p, k in protocol.FREE.items()},
                         "cap": protocol.CAP, "counts": protocol.extremes(tuning),
                         "tasks": {t: dict(plans) for t, plans in tuning.items()}}
    return out


def to_json(table: Mapping[str, Any]) -> str:
    return json.dumps(table, indent=1, sort_keys=True, allow_nan=False,
                      default=lambda x: None if isinstance(x, float) and not math.isfinite(x) else x) + "\n"


def error_cell(bounds: Mapping[str, Any]) -> str:
    """'k/n ≤ upper (seed ≤ u)': pooled errors and the exact upper bounds, 95% one-sided."""
    return (f"{bounds['errors']}/{bounds['words']} ≤ {bounds['upper']:.2g} "
            f"(seed ≤ {bounds['per_seed_upper_max']:.2g})")


def _grid(table: Mapping, by_task: Mapping, key: str) -> list[str]:
    tasks = [t for t in by_task if key != "error_rate" or any(
        "error_rate" in c for c in by_task[t].values())]
    plans = list(dict.fromkeys(p for t in tasks for p in by_task[t]))
    show = error_cell if key == "error_rate" else cell
    lines = ["| plan | " + " | ".join(TASK_LABELS[t] for t in tasks) + " |",
             "|---|" + "---|" * len(tasks)]
    for plan in plans:
        row = [show(by_task[t][plan][key]) if key in by_task[t].get(plan, {}) else "not run"
               for t in tasks]
        lines.append(f"| {LABELS[plan]} | " + " | ".join(row) + " |")
    return lines


def _steps(table: Mapping) -> list[str]:
    tasks = [t for t in table["tasks"] if "chosen" in table["tasks"][t]]
    if not tasks:
        return []
    lines = ["## Step sizes chosen by the protocol", "",
             "Each plan's free steps, chosen on centre × 10^(k/2), k = −2..2 first, each axis "
             "widened past a chosen end up to |k| = 8 (Round 3), by its own mean final "
             "training loss over the held-out seeds 50-54 (proofs/experiments.md, \"Protocol\"); "
             "the exponent k in brackets. Output phases of several steps use the curvature step "
             "eta_O of the settings.", "",
             "| plan | " + " | ".join(TASK_LABELS[t] for t in tasks) + " |", "|---|" + "---|" * len(tasks)]
    plans = list(table["tasks"][tasks[0]]["chosen"])
    for plan in plans:
        row = []
        for t in tasks:
            c = table["tasks"][t]["chosen"][plan]
            row.append("; ".join(f"{k} = {v:.4g} ({e:+d})" for (k, v), e in zip(c["steps"].items(), c["exponents"])))
        lines.append(f"| {LABELS[plan]} | " + " | ".join(row) + " |")
    lines.append("| eta_O (curvature) | " + " | ".join(
        f"{table['tasks'][t]['settings']['eta_output']:.4g}" for t in tasks) + " |")
    return lines + [""]


def to_markdown(table: Mapping[str, Any]) -> str:
    by_task = {t: v["plans"] for t, v in table["tasks"].items()}
    stds = sorted({v["settings"]["init_std"] for v in table["tasks"].values()})
    lines = [f"# Table 1 (reproduction): {table['seeds']} seeds, profile {table['profile']}", "",
             f"Initialisation std {', '.join(f'{s:g}' for s in stds)} (the protocol's Table 1 scale; "
             "AND anti-symmetric; the three-phase plan also from zero). Mean ± standard deviation "
             "over the seeds whose runs did not diverge (non-finite or train loss above 1e6; counted "
             "apart as '(k diverged)'); values below 10^-3 are shown as the bound `< 1e-3`. Written "
             "by `verify experiments`; settings, chosen steps and tuning curves in table1.json.", ""]
    for key, title in (("train_loss", "Train loss"), ("test", "Test accuracy (test loss for SLR)")):
        lines += [f"## {title}", "", *_grid(table, by_task, key), ""]
    if any("error_rate" in c for v in by_task.values() for c in v.values()):
        lines += ["## Test error rate: exact Clopper-Pearson upper bounds (95% one-sided)", "",
                  "Errors over all seeds' test words ≤ the pooled bound (one rate assumed; even "
                  "pairs tests the same 2,046 strings in every seed), and the largest per-seed "
                  "bound.", "", *_grid(table, by_task, "error_rate"), ""]
    lines += _steps(table)
    if "init_map" in table:
        lines += [f"## Initialisation map: test accuracy (test loss for SLR), {table['init_map']['seeds']} seeds",
                  "", "Std 0 only for the plans whose first trained layer has a gradient at zero.", ""]
        for std, m in table["init_map"]["scales"].items():
            lines += [f"### std {float(std):g}", "", *_grid(table, m, "test"), ""]
    sizes = []
    for t, v in table["tasks"].items():
        s = v["settings"]
        size = f"d = {s['d']}, N = {s['train']}, test {s['test']}" if "d" in s else \
            f"all strings of length 1..{s['max_len']}"
        sizes.append(f"{v['label']}: {size}, {s['steps']} steps")
    lines += ["Sizes: " + "; ".join(sizes) + ".", ""]
    return "\n".join(lines)
