"""What the proof notebooks share (presentation only): saving figures and printing verdicts.

Figures are shown, and also saved as PNG into the directory named by the environment variable
``VERIFY_NOTEBOOK_FIGDIR`` when it is set (the test suite sets it to a temporary directory; a
notebook never writes into the repository).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Mapping

from ..checks import Constants, Outcome, Profile, Result

FIGDIR_VARIABLE = "VERIFY_NOTEBOOK_FIGDIR"
VERDICT = {True: "PASS", False: "FAIL", None: "undecided"}


def figure_saver(stem: str) -> Callable[[object, str], None]:
    """``show(fig, name)``: display a matplotlib figure, saving it as ``<stem>_<name>.png``."""
    import matplotlib.pyplot as plt

    figdir = os.environ.get(FIGDIR_VARIABLE)

    def show(fig, name: str) -> None:
        if figdir:
            fig.savefig(Path(figdir) / f"{stem}_{name}.png", dpi=90, bbox_inches="tight")
        plt.show()

    return show


def verdict_line(check_id: str, outcome: Outcome) -> str:
    margin = "" if outcome.margin is None else f" | margin {outcome.margin:.4g} ({outcome.margin_kind})"
    return (f"[{check_id}] {outcome.case} | {outcome.evidence.value} | "
            f"{VERDICT[outcome.passed]}{margin}\n    {outcome.detail}")


def run_check(result: Result, check_id: str, constants: Constants,
              options: Mapping[str, object] | None = None,
              profile: Profile = Profile.QUICK) -> list[Outcome]:
    """Judge one registered check of ``result`` on the cases it builds for ``options`` (as
    ``verify check ID --d ... --eps ...`` would), printing one verdict per case."""
    check = next(c for c in result.checks if c.id == check_id)
    print(f"[{check_id}] {check.step}: {check.claim}")
    outcomes = []
    for case in check.cases(profile, constants, options or {}):
        outcome = check.judge(case, constants)
        print(verdict_line(check_id, outcome))
        outcomes.append(outcome)
    return outcomes
