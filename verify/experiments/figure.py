"""Figure 3: output gap and attention gap over training, per task, under joint GD and the
plans (median over the seeds whose runs did not diverge: one blown-up seed would otherwise set
a panel's scale).  matplotlib (the ``notebooks`` extra) is
imported lazily, with the Agg backend; :func:`require` reports its absence in one line."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Mapping

import numpy as np

from .plans import LABELS
from .run import TASK_LABELS

MISSING = ("Figure 3 needs matplotlib, which is in the notebooks extra: "
           "pip install 'verify[notebooks]'")


def require() -> None:
    if importlib.util.find_spec("matplotlib") is None:
        raise ValueError(MISSING)


def median_curve(runs: list[dict], key: str) -> tuple[np.ndarray, np.ndarray]:
    """Median of one trajectory quantity over the seeds whose runs did not diverge."""
    curves = [r["trajectory"] for r in runs if not r["diverged"]]
    if not curves:
        return np.array([]), np.array([])
    steps = np.asarray(curves[0]["step"])
    return steps, np.median([np.asarray(c[key]) for c in curves], axis=0)


def draw(records: Mapping, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = list(records)
    fig, axes = plt.subplots(2, len(tasks), figsize=(3.1 * len(tasks), 5.4), squeeze=False)
    for col, task in enumerate(tasks):
        for row, (key, name) in enumerate((("output_gap", "output gap"),
                                           ("attention_gap", "attention gap"))):
            ax = axes[row][col]
            for plan, runs in records[task].items():
                x, y = median_curve(runs, key)
                if x.size:
                    ax.plot(x, y, label=LABELS[plan], lw=1.2, marker="." if x.size < 5 else None)
            ax.set_xscale("symlog", linthresh=1)
            ax.set_xlabel("GD step")
            if col == 0:
                ax.set_ylabel(name)
            if row == 0:
                ax.set_title(TASK_LABELS[task])
            ax.tick_params(labelsize=7)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 0.95))
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)
