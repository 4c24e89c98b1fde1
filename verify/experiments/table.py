"""Table 1: train loss and test accuracy (test loss for SLR), mean ± standard deviation over
seeds, as Markdown and JSON.  Values below 10^-3 are written as the upper bound "< 1e-3", as
the paper does.  A diverged run (:func:`verify.experiments.plans.diverged`) is counted and shown
apart, never averaged.  Computes nothing but summaries of the runs' records."""
from __future__ import annotations

import json
import math
from typing import Any, Mapping, Sequence

import numpy as np

from .plans import LABELS
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


def build(records: Mapping, profile: str, seeds: int, settings: Mapping) -> dict[str, Any]:
    """The table as one JSON-ready dict (no timings: the same seeds give the same bytes)."""
    tasks = {}
    for task, by_plan in records.items():
        tasks[task] = {"label": TASK_LABELS[task], "metric": TASKS[task].metric,
                       "settings": dict(settings[task]), "plans": {}}
        for plan, runs in by_plan.items():
            lost = [r["diverged"] for r in runs]
            tasks[task]["plans"][plan] = {
                "train_loss": summary([r["train_loss"] for r in runs], lost),
                "test": summary([r["test"] for r in runs], lost),
            }
    return {"profile": profile, "seeds": seeds, "tasks": tasks}


def to_json(table: Mapping[str, Any]) -> str:
    return json.dumps(table, indent=1, sort_keys=True, allow_nan=False,
                      default=lambda x: None if isinstance(x, float) and not math.isfinite(x) else x) + "\n"


def to_markdown(table: Mapping[str, Any]) -> str:
    tasks = list(table["tasks"])
    plans = list(next(iter(table["tasks"].values()))["plans"]) if tasks else []
    head = "| plan | " + " | ".join(table["tasks"][t]["label"] for t in tasks) + " |"
    rule = "|---|" + "---|" * len(tasks)
    lines = [f"# Table 1 (reproduction): {table['seeds']} seeds, profile {table['profile']}", "",
             "Mean ± standard deviation over the seeds whose runs did not diverge ("
             "non-finite or train loss above 1e6; counted apart as '(k diverged)'); values below "
             "10^-3 are shown as the bound `< 1e-3`.  Written by `verify experiments`; settings in table1.json and "
             "verify/experiments/config/.", ""]
    for key, title in (("train_loss", "Train loss"),
                       ("test", "Test accuracy (test loss for SLR)")):
        lines += [f"## {title}", "", head, rule]
        for plan in plans:
            cells = [cell(table["tasks"][t]["plans"][plan][key]) for t in tasks]
            lines.append(f"| {LABELS[plan]} | " + " | ".join(cells) + " |")
        lines.append("")
    sizes = []
    for t in tasks:
        s = table["tasks"][t]["settings"]
        size = f"d = {s['d']}, N = {s['train']}, test {s['test']}" if "d" in s else \
            f"all strings of length 1..{s['max_len']}"
        sizes.append(f"{table['tasks'][t]['label']}: {size}, {s['steps']} steps")
    lines += ["Sizes: " + "; ".join(sizes) + ".", ""]
    return "\n".join(lines)
