"""The claim-blind protocol for the settings the paper lost (proofs/experiments.md, "Protocol").

1. Output phases of several steps use the curvature step eta_O (:mod:`.curvature`).
2. Each plan's free step sizes (``FREE``) are chosen on a fixed grid: the centre c (the
   configuration's value, round 1's choice) times 10^(k/2), k in ``EXPONENTS`` (5 values per
   axis, x sqrt(10) apart; 25 points for two axes), by that plan's own final training loss
   averaged over the held-out seeds ``TUNING_SEEDS`` at the initialisation scale of Table 1; a
   point where any of those runs diverged is not eligible; ties go to the first point in grid
   order, and mean losses within a relative ``TIE`` of each other are a tie (amended in round 2,
   before the grid it governs: two points that train to the same state differ by rounding, and
   an exact comparison let a change of float order flip a choice).  Every plan has the same
   step budget and seeds.  Test accuracy, the paper's statements and the claims' checks are
   never inputs.  Round 3 (amended before its runs): an axis whose chosen exponent sits at an
   end of its searched range is extended by one half-decade beyond that end, across the other
   axis's searched values (:func:`widen`), and the choice remade, until every chosen exponent is
   interior, the point beyond diverged, or the axis reaches ``CAP`` (a choice there is reported
   as at the cap).  The choice is then frozen
   (``config/chosen.toml``) and reported on seeds 0..n-1.
3. The initialisation scale is mapped: std in ``SCALES`` on ``MAP_SEEDS``, every claim judged at
   each scale; std 0 only for the plans whose first trained layer has a gradient at zero
   (``ZERO_PLANS``: at zero, A's attention gradient vanishes for ever and A(1x)->O's attention
   step is zero, so they would be the untrained model and O).  Table 1 is at the scale the
   configuration names (``init_std``, 0.1: round 1's, set before any run).
4. AND starts from the anti-symmetric initialisation (:func:`verify.experiments.counting.antisymmetric`).

Knows the plans and grids; nothing of the claims.
"""
from __future__ import annotations

import itertools
import math
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .grid import Run
from .plans import PLANS

EXPONENTS = (-2, -1, 0, 1, 2)  # value = centre * 10^(k/2): every axis's first searched range
CAP = 8  # |k| <= CAP: the search reaches 10^(+-4) around the centre at most (Round 3, item 1)
FREE = {
    "joint": ("eta_attention",),
    "A": ("eta_attention",),
    "O": ("eta_output",),
    "A1-O": ("eta_attention_one",),
    "O1-A1-O": ("eta_output_one", "eta_attention_one"),
    "O1-A1-O-zero": ("eta_output_one", "eta_attention_one"),
    "O1-A1": ("eta_output_one", "eta_attention_one"),
}
TUNING_SEEDS = tuple(range(50, 55))
SCALES = (0.0, 0.01, 0.1)
MAP_SEEDS = tuple(range(10))
ZERO_PLANS = ("joint", "O", "O1-A1-O", "O1-A1-O-zero", "O1-A1")
CHOSEN = "chosen.toml"
TIE = 1e-9  # relative: mean losses this close are one value (float order moves them ~1e-13)


Ranges = tuple[tuple[int, int], ...]  # per free axis, the (lowest, highest) exponent searched


class ProtocolError(ValueError):
    """The frozen choice is missing or disagrees with the tuning runs."""


def value(centre: float, k: int) -> float:
    """centre * 10^(k/2), exactly the same float wherever it is computed."""
    return float(centre) * 10.0 ** (k / 2)


def start(plan: str) -> Ranges:
    """The first searched range of every free axis of a plan: ``EXPONENTS``."""
    return ((EXPONENTS[0], EXPONENTS[-1]),) * len(FREE[plan])


def points(plan: str, ranges: Ranges | None = None) -> list[tuple[int, ...]]:
    """The grid of a plan's free steps over ``ranges`` (default :func:`start`), as exponent
    tuples, in grid order (lexicographic, smallest exponents first)."""
    ranges = start(plan) if ranges is None else ranges
    return list(itertools.product(*(range(lo, hi + 1) for lo, hi in ranges)))


def widen(ranges: Ranges, chosen: Sequence[int] | None) -> Ranges:
    """Round 3, item 1: every axis whose chosen exponent is an end of its searched range, one
    half-decade beyond that end unless the end is at ``CAP``; the same ranges when every chosen
    exponent is interior or at the cap (or nothing was eligible)."""
    if chosen is None:
        return ranges
    return tuple((lo - 1 if k == lo and lo > -CAP else lo, hi + 1 if k == hi and hi < CAP else hi)
                 for (lo, hi), k in zip(ranges, chosen))


def status(ranges: Ranges, chosen: Sequence[int] | None) -> list[str]:
    """Per axis: "interior" (inside its searched range), "cap" (at an end that is the cap) or
    "end" (at an end the search has not yet widened: never in a finished search)."""
    if chosen is None:
        return ["none"] * len(ranges)
    return ["interior" if lo < k < hi else "cap" if abs(k) == CAP else "end"
            for (lo, hi), k in zip(ranges, chosen)]


def steps(plan: str, cfg: Mapping[str, Any], exponents: Sequence[int]) -> dict[str, float]:
    """The plan's free step sizes at a grid point."""
    return {key: value(cfg[key], k) for key, k in zip(FREE[plan], exponents)}


def overrides(plan: str, cfg: Mapping[str, Any], exponents: Sequence[int], std: float) -> dict:
    """A run's settings: its free steps and its initialisation scale (always written, so that
    the same run asked for by two stages is one run; the zero plan's scale is 0)."""
    return {**steps(plan, cfg, exponents), "init_std": 0.0 if plan.endswith("-zero") else std}


def tuning_runs(task: str, cfg: Mapping[str, Any], plans: Sequence[str] = PLANS,
                ranges: Mapping[str, Ranges] | None = None) -> list[Run]:
    """The tuning runs of the plans over their searched ranges (default: :func:`start`)."""
    std = float(cfg["init_std"])
    return [Run.of(task, plan, seed, overrides(plan, cfg, point, std))
            for plan in plans for point in points(plan, (ranges or {}).get(plan))
            for seed in TUNING_SEEDS]


def curve(task: str, plan: str, cfg: Mapping[str, Any], records: Mapping[Run, dict],
          ranges: Ranges | None = None) -> list[dict]:
    """The tuning curve of a plan over its searched ranges (:func:`curve_of` over its runs)."""
    std = float(cfg["init_std"])
    return curve_of(plan, cfg, lambda point: [
        records[Run.of(task, plan, s, overrides(plan, cfg, point, std))] for s in TUNING_SEEDS],
        ranges)


def curve_of(plan: str, cfg: Mapping[str, Any],
             tuning_records: Callable[[tuple[int, ...]], Sequence[dict]],
             ranges: Ranges | None = None) -> list[dict]:
    """The tuning curve: per grid point (over ``ranges``, default :func:`start`) its step
    sizes, the mean final training loss over the records ``tuning_records(point)`` of the
    tuning seeds (None when a run diverged) and the number of diverged runs."""
    out = []
    for point in points(plan, ranges):
        runs = tuning_records(point)
        lost = sum(bool(r["diverged"]) for r in runs)
        mean = None if lost else math.fsum(r["train_loss"] for r in runs) / len(runs)
        out.append({"exponents": list(point), "steps": steps(plan, cfg, point), "mean_loss": mean,
                    "diverged": lost})
    return out


def choose(points_curve: Sequence[dict]) -> tuple[int, ...] | None:
    """The first eligible point in grid order whose mean loss is within a relative ``TIE`` of
    the least (a tie); None if every point had a diverged run."""
    eligible = [row for row in points_curve if row["mean_loss"] is not None]
    if not eligible:
        return None
    least = min(row["mean_loss"] for row in eligible)
    return next(tuple(row["exponents"]) for row in eligible
                if row["mean_loss"] <= least + TIE * abs(least))


def extremes(tuning: Mapping) -> dict[str, int]:
    """Counts over every chosen exponent: beyond the first five-point grid (|k| > 2), at the
    cap, at an unwidened end (0 in a finished search), and in all."""
    ks = [(k, st) for plans in tuning.values() for row in plans.values() if row["chosen"] is not None
          for k, st in zip(row["chosen"], row["status"])]
    return {"exponents": len(ks), "beyond_first_grid": sum(abs(k) > EXPONENTS[-1] for k, _ in ks),
            "at_first_grid_end": sum(abs(k) == EXPONENTS[-1] for k, _ in ks),
            "at_cap": sum(st == "cap" for _, st in ks), "at_searched_end": sum(st == "end" for _, st in ks)}


def chosen_path() -> Path:
    """The package's frozen choice, ``config/chosen.toml``."""
    return Path(str(resources.files(__package__) / "config" / CHOSEN))


def read_chosen(path: Path | None = None) -> dict:
    """Every profile's frozen exponents as lists: data[profile][task][plan]."""
    path = chosen_path() if path is None else path
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ProtocolError(f"{path} is malformed: {exc}") from None


def load_chosen(profile: str, path: Path | None = None) -> dict[str, dict[str, tuple[int, ...]]]:
    """The frozen choice: chosen[task][plan] = exponents ({} when none is recorded)."""
    data = read_chosen(path).get(profile, {})
    return {task: {plan: tuple(int(k) for k in ks) for plan, ks in plans.items()}
            for task, plans in data.items()}


def chosen_text(chosen: Mapping[str, Mapping[str, Mapping[str, Sequence[int]]]]) -> str:
    """``config/chosen.toml`` for chosen[profile][task][plan] = exponents."""
    lines = ["# The protocol's frozen step sizes (proofs/experiments.md, \"Protocol\"): per profile, task",
             "# and plan, the exponents k of the plan's free steps (protocol.FREE, in that order),",
             "# value = centre * 10^(k/2).  Written by `verify experiments --stage tune",
             "# --write-chosen` from the tuning runs (seeds 50-54); do not edit by hand.", ""]
    for profile in sorted(chosen):
        for task in sorted(chosen[profile]):
            lines.append(f"[{profile}.{task}]")
            for plan in PLANS:
                if plan in chosen[profile][task]:
                    ks = ", ".join(str(int(k)) for k in chosen[profile][task][plan])
                    lines.append(f'"{plan}" = [{ks}]')
            lines.append("")
    return "\n".join(lines)


def frozen(task: str, plan: str, profile: str, chosen: Mapping | None = None) -> tuple[int, ...]:
    chosen = load_chosen(profile) if chosen is None else chosen
    try:
        return chosen[task][plan]
    except KeyError:
        raise ProtocolError(f"no frozen step sizes for {task}/{plan} at profile {profile!r}: run "
                            f"`verify experiments --profile {profile} --stage tune "
                            "--write-chosen` first") from None


def grid_runs(task: str, cfg: Mapping[str, Any], profile: str, plans: Sequence[str],
              seeds: Sequence[int], std: float, chosen: Mapping | None = None) -> dict:
    """runs[plan] = [Run per seed] at scale ``std`` with the frozen step sizes."""
    return {plan: [Run.of(task, plan, s, overrides(plan, cfg, frozen(task, plan, profile, chosen), std))
                   for s in seeds] for plan in plans}


def map_plans(std: float, plans: Sequence[str] = PLANS) -> list[str]:
    """The plans run at an initialisation scale (std 0: ``ZERO_PLANS`` only)."""
    return [p for p in plans if std > 0 or p in ZERO_PLANS]
