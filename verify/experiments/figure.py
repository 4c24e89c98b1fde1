"""Figure 3: output gap and attention gap over training, per task, under joint GD and the
plans (median over the seeds whose runs did not diverge: one blown-up seed would otherwise set
a panel's scale).  matplotlib (the ``notebooks`` extra) is
imported lazily, with the Agg backend; :func:`require` reports its absence in one line."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from .plans import LABELS
from .run import TASK_LABELS

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


def draw_tuning(tuning: Mapping, path: Path, title: str) -> None:
    """The tuning curves (protocol step 2): one panel per task and plan, the mean final training
    loss over the tuning seeds against the grid value (a plan with two free steps: a map of
    log10 loss over the searched rectangle, 5 x 5 or wider, eta_1 down, eta_2 across); crosses mark points with a diverged run (not
    eligible), a ring the chosen point."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = list(tuning)
    plans = list(next(iter(tuning.values()))) if tasks else []
    fig, axes = plt.subplots(len(tasks), len(plans), figsize=(2.1 * len(plans), 1.9 * len(tasks)),
                             squeeze=False)
    for row, task in enumerate(tasks):
        for col, plan in enumerate(plans):
            ax, entry = axes[row][col], tuning[task][plan]
            curve, chosen = entry["curve"], entry["chosen"]
            keys = list(curve[0]["steps"])
            loss = np.array([np.nan if c["mean_loss"] is None else c["mean_loss"] for c in curve])
            if len(keys) == 1:
                x = np.array([c["steps"][keys[0]] for c in curve])
                ax.plot(x, loss, marker=".", lw=1)
                bad = np.isnan(loss)
                top = np.nanmax(loss) if np.isfinite(loss).any() else 1.0
                ax.plot(x[bad], np.full(bad.sum(), top), "x", color="red")
                if chosen is not None:
                    k = [tuple(c["exponents"]) for c in curve].index(tuple(chosen))
                    ax.plot(x[k], loss[k], "o", mfc="none", color="black", ms=8)
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_xlabel(keys[0], fontsize=6)
            else:
                n = len({c["exponents"][1] for c in curve})  # the searched rectangle's width
                img = np.log10(loss).reshape(-1, n)
                ax.imshow(img, cmap="viridis", origin="upper")
                for i, c in enumerate(curve):
                    if c["mean_loss"] is None:
                        ax.text(i % n, i // n, "x", color="red", ha="center", va="center", fontsize=7)
                if chosen is not None:
                    k = [tuple(c["exponents"]) for c in curve].index(tuple(chosen))
                    ax.plot(k % n, k // n, "o", mfc="none", color="white", ms=8)
                ax.set_xticks([])
                ax.set_yticks([])
                ax.set_xlabel(f"{keys[1]} →", fontsize=6)
                ax.set_ylabel(f"{keys[0]} ↓", fontsize=6)
            if row == 0:
                ax.set_title(LABELS[plan], fontsize=7)
            if col == 0:
                ax.annotate(TASK_LABELS[task], (-0.45, 0.5), xycoords="axes fraction",
                            rotation=90, va="center", fontsize=8)
            ax.tick_params(labelsize=5)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout(rect=(0.02, 0, 1, 0.96))
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)
