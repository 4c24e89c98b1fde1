"""The seven training plans of Section 5 and the gradient-descent loop that runs them.

Budget rules, the same for every task and plan (ours; the paper's Appendix B is lost):

* every plan has ``steps`` full-batch GD steps in total on the same training set, except
  O(1x)->A(1x), which stops after its two phases by definition;
* a phase of several steps on one layer, and joint GD, use ``eta_output`` / ``eta_attention``;
* a one-step phase ("1x") uses ``eta_output_one`` / ``eta_attention_one`` (the paper's larger
  attention step), the same in every plan that has it;
* an attention phase marked "1x" has ``attention_phase_steps`` steps (1, except AND, where the
  paper says the attention phases take several steps);
* every plan starts from the same random initialisation for a given seed; the three-phase plan is
  also run from zero (``O1-A1-O-zero``, Section 4's initialisation).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from . import PLANS  # noqa: F401 -- the plans' names live in the package, read here and by its users
from .base import Params
from .thresholds import DIVERGED
LABELS = {
    "joint": "joint GD",
    "A": "A",
    "O": "O",
    "A1-O": "A(1x)→O",
    "O1-A1-O": "O(1x)→A(1x)→O",
    "O1-A1-O-zero": "O(1x)→A(1x)→O, zero init",
    "O1-A1": "O(1x)→A(1x)",
}
CHECKPOINTS = 100  # trajectory points kept per run, linear and log-spaced, plus phase boundaries
DENSE = 100  # both gaps at every step 0..DENSE (round 3: a 10% crossing known to the step)


@dataclass(frozen=True)
class Phase:
    """``steps`` GD steps on the named groups with the given step sizes."""

    rates: Mapping[str, float]  # group ("attention" / "output") -> step size
    steps: int


def schedule(plan: str, cfg: Mapping[str, Any]) -> list[Phase]:
    """The phases of a plan under the budget rules (module docstring)."""
    T, k = int(cfg["steps"]), int(cfg["attention_phase_steps"])
    att, out = float(cfg["eta_attention"]), float(cfg["eta_output"])
    att1, out1 = float(cfg["eta_attention_one"]), float(cfg["eta_output_one"])
    if plan == "joint":
        return [Phase({"attention": att, "output": out}, T)]
    if plan == "A":
        return [Phase({"attention": att}, T)]
    if plan == "O":
        return [Phase({"output": out}, T)]
    if plan == "A1-O":
        return [Phase({"attention": att1}, k), Phase({"output": out}, max(T - k, 0))]
    if plan in ("O1-A1-O", "O1-A1-O-zero"):
        return [Phase({"output": out1}, 1), Phase({"attention": att1}, k),
                Phase({"output": out}, max(T - 1 - k, 0))]
    if plan == "O1-A1":
        return [Phase({"output": out1}, 1), Phase({"attention": att1}, k)]
    raise ValueError(f"unknown plan {plan!r} (plans: {', '.join(PLANS)})")


@dataclass
class Trajectory:
    """Training loss and the two gaps at the checkpoints (step numbers)."""

    step: list[int]
    loss: list[float]
    output_gap: list[float]
    attention_gap: list[float]

    def as_dict(self) -> dict:
        return {"step": self.step, "loss": self.loss, "output_gap": self.output_gap,
                "attention_gap": self.attention_gap}


def checkpoints(phases: list[Phase]) -> set[int]:
    """Every step 0..DENSE (proofs/experiments.md, Round 3, item 2), then linear and
    log-spaced steps and the phase boundaries."""
    total = sum(p.steps for p in phases)
    marks = set(range(min(DENSE, total) + 1))
    marks |= {int(round(x)) for x in np.linspace(0, total, CHECKPOINTS + 1)}
    marks |= {int(x) for x in np.geomspace(1, max(total, 1), CHECKPOINTS // 2)}  # early steps
    boundary = 0
    for p in phases:
        boundary += p.steps
        marks.add(boundary)
    return marks


def diverged(loss: float) -> bool:
    """A training loss that is not finite or exceeds :data:`DIVERGED` marks a diverged run."""
    return not math.isfinite(loss) or loss > DIVERGED


def train(task, problem, params: Params, phases: list[Phase]) -> tuple[Params, Trajectory, bool]:
    """Full-batch GD through the phases.  In an output-only phase of several steps the attention
    read-out is computed once (the same numbers as recomputing it at every step), and a task
    with a squared loss steps on its :class:`~verify.experiments.base.Quadratic` (the same maths;
    checkpoints record the loss from the residual); an attention-only phase uses the task's
    ``attention_loss_grad`` where it has one (the same attention gradient without the output
    gradient's work).  Returns the final parameters, the
    trajectory and whether the run diverged (:func:`diverged`; such a run stops at its first
    diverged loss)."""
    marks = checkpoints(phases)
    traj = Trajectory([], [], [], [])
    params = {k: np.array(v, dtype=np.float64) for k, v in params.items()}
    state = {"step": 0}

    def record(loss: float) -> None:
        out_gap, att_gap = task.gaps(params, problem)
        traj.step.append(state["step"])
        traj.loss.append(loss)
        traj.output_gap.append(out_gap)
        traj.attention_gap.append(att_gap)

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for phase in phases:
            frozen = set(phase.rates) == {"output"} and phase.steps > 1
            if frozen and hasattr(task, "quadratic"):
                if _quadratic_phase(task, problem, params, phase, marks, state, record):
                    return params, traj, True
                continue
            fixed = task.readout(params, problem.train) if frozen else None
            step = task.loss_grad
            if set(phase.rates) == {"attention"} and hasattr(task, "attention_loss_grad"):
                step = task.attention_loss_grad  # the output gradient would be thrown away
            for _ in range(phase.steps):
                if fixed is None:
                    loss, grads = step(params, problem.train)
                else:
                    loss, grads = task.output_loss_grad(params, problem.train, fixed)
                if diverged(loss):
                    return params, traj, True
                if state["step"] in marks:
                    record(loss)
                for group, eta in phase.rates.items():
                    for name in task.groups[group]:
                        params[name] = params[name] - eta * grads[name]
                state["step"] += 1
        final = task.loss(params, problem.train)
        if diverged(final):
            return params, traj, True
        record(final)
    return params, traj, False


def _quadratic_phase(task, problem, params: Params, phase: Phase, marks, state, record) -> bool:
    """An output-only phase on the task's quadratic (updates ``params`` in place); True if the
    run diverged."""
    fixed = task.readout(params, problem.train)
    quad = task.quadratic(params, problem.train, fixed)
    theta, eta = quad.pack(params), phase.rates["output"]
    for _ in range(phase.steps):
        loss, grad = quad.loss_grad(theta)
        if diverged(loss):
            params.update(quad.unpack(theta))
            return True
        if state["step"] in marks:
            params.update(quad.unpack(theta))
            record(task.output_loss_grad(params, problem.train, fixed)[0])
        theta = theta - eta * grad
        state["step"] += 1
    params.update(quad.unpack(theta))
    return False
