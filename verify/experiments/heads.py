"""Beyond the paper, its open question (Section 6): how many heads do attention-first (A(1x)->O)
and attention-only (A) training need?  For occurrence and AND, on samples, under the protocol
of Section 5 (proofs/experiments.md, "Protocol"); the runs are :mod:`.heads_runs`'.

    python -m verify.experiments.heads [--output DIR] [--d 10,20,50,100] [--heads 1,2,4,8,16]
        [--tasks occurrence,and] [--seeds 10] [--workers N]

The protocol, as for Table 1:

1. output phases of several steps take the curvature step of the H-head model;
2. each cell's free step (joint GD, the baseline on Table 1's model: eta_attention; A:
   eta_attention; A(1x)->O: eta_attention_one) is chosen on centre x 10^(k/2), k = -2..2, by
   that cell's own mean final training loss over the held-out seeds 50-54 (a point where a run
   diverged is not eligible; ties to the first point), the same budget for every cell; test
   accuracy never enters the choice; as for Table 1 in round 3 (:func:`.protocol.widen`), a
   choice at an end of its searched range widens that range by a half-decade, round by round,
   until the choice is interior, the point beyond diverged, or |k| reaches the cap;
3. Table 1's initialisation scale; then seeds 0..n-1 at the chosen steps.

Judgement (an exhibit: the paper states no claim).  Per (task, d, plan, H) the paired
difference of test accuracies, plan minus joint GD, per seed (same words; seeds where a run
diverged are left out and counted), with one-sided 95% Student-t bounds and the indifference
zone [-DELTA, 0) of the three-phase claim: *reaches* (within DELTA of joint GD) when the lower
bound is >= -DELTA, *short* when the upper bound is < -DELTA, else *undecided*.  Every H is run
(no early stop).  The answer is step-down: the smallest H from which every larger H tried
reaches (verdicts need not be monotone in H: taking the first H that reaches would pick the
luckiest of up to len(HEADS) tests); the first H that reaches is kept in the JSON.  Against a
baseline that has not converged (its lower bound below TARGET - DELTA) there is no answer.
Where every seed gives the same difference the t bounds have zero width; the table then states
the exact binomial bound on the chance that a seed comes out otherwise.

Writes heads.md, heads.json and heads.png (matplotlib) into DIR; every run goes to
DIR/heads-journal.jsonl first, so a stopped study resumes and a rerun writes the same bytes.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..run import executors
from ..run.journal import JournalError
from . import protocol
from .grid import open_journal, run_all
from .heads_runs import STEPS, TABLE_HEADS, HeadsRun, batch, settings_at, worker
from .statistics import at_least, mean_bounds, power
from .thresholds import DELTA, LEVEL, TARGET

HEADS = (1, 2, 4, 8, 16)  # round 1 stopped at 8; 16 costs about a second a run at d = 100
PLANS = ("A1-O", "A")
LABELS = {"A1-O": "A(1x)→O", "A": "A only", "joint": "joint GD"}
JOURNAL = "heads-journal.jsonl"
VERDICT = {True: "reaches", False: "short", None: "undecided"}

Cell = tuple[str, int, int, str]  # task, d, H, plan


def cells(tasks: Sequence[str], ds: Sequence[int], heads: Sequence[int]) -> list[Cell]:
    """The baseline (joint GD on Table 1's model) and every (plan, H), per task and d."""
    return [(t, d, H, p) for t in tasks for d in ds
            for H, p in [(TABLE_HEADS[t], "joint"), *((H, p) for p in PLANS for H in heads)]]


def _runs(cell: Cell, point: Sequence[int], seeds: Sequence[int]) -> list[HeadsRun]:
    task, d, H, plan = cell
    cfg = settings_at(task, d, H)
    over = protocol.overrides(plan, cfg, point, float(cfg["init_std"]))
    return [HeadsRun.of(task, d, H, plan, s, over) for s in seeds]


def tuning_runs(every: Sequence[Cell],
                ranges: Mapping[Cell, protocol.Ranges] | None = None) -> list[HeadsRun]:
    """The tuning runs of every cell over its searched range (default: the first five points)."""
    return [r for c in every for point in protocol.points(c[3], (ranges or {}).get(c))
            for r in _runs(c, point, protocol.TUNING_SEEDS)]


def tune(every: Sequence[Cell], fetch: Callable[[list[HeadsRun]], Mapping[HeadsRun, dict]]
         ) -> dict[Cell, dict]:
    """Per cell its tuning curve over its searched range (mean final training loss per point,
    None where a run diverged), the chosen exponents (None if every point diverged), the range
    and the choice's status; a range whose choice sits at an end is widened
    (:func:`.protocol.widen`) and the new runs fetched, until no range moves."""
    ranges = {c: protocol.start(c[3]) for c in every}
    while True:
        records = fetch(tuning_runs(every, ranges))
        out = {}
        for c in every:
            curve = protocol.curve_of(c[3], settings_at(c[0], c[1], c[2]), lambda point: [
                records[r] for r in _runs(c, point, protocol.TUNING_SEEDS)], ranges[c])
            chosen = protocol.choose(curve)
            out[c] = {"curve": curve, "chosen": chosen, "all_diverged": chosen is None,
                      "ranges": [list(r) for r in ranges[c]],
                      "status": protocol.status(ranges[c], chosen)}
        wider = {c: protocol.widen(ranges[c], out[c]["chosen"]) for c in every}
        if wider == ranges:
            return out
        ranges = wider


def report_runs(every: Sequence[Cell], tuning: Mapping[Cell, dict], seeds: Sequence[int]) -> dict:
    return {c: _runs(c, tuning[c]["chosen"] or (0,), seeds) for c in every}


def judge(runs: Sequence[dict], base: Sequence[dict]) -> dict:
    """The paired difference to the baseline with its bounds, verdict and power (module
    docstring); the plan's own accuracy with its bounds."""
    accs = [r["test"] for r in runs if not r["diverged"]]
    diffs = [a["test"] - b["test"] for a, b in zip(runs, base) if not a["diverged"] and not b["diverged"]]
    verdict, mean, lower, upper = at_least(diffs, 0.0) if diffs else (None, math.nan, -math.inf, math.inf)
    acc = _bounds(accs)
    return {"accuracy": acc[0], "accuracy_bounds": [acc[1], acc[2]], "difference": mean,
            "bounds": [lower, upper], "verdict": VERDICT[verdict], "power": power(diffs),
            "diverged": sum(bool(r["diverged"]) for r in runs)}


def rows(every: Sequence[Cell], tuning: Mapping[Cell, dict], runs: Mapping[Cell, list],
         records: Mapping[HeadsRun, dict], heads: Sequence[int]) -> list[dict]:
    """One row per (task, d): the baseline and, per plan, each H's judgement and the smallest
    H that reaches (None: none of ``heads``)."""
    out = []
    for task, d in dict.fromkeys((c[0], c[1]) for c in every):
        base_cell = (task, d, TABLE_HEADS[task], "joint")
        base = [records[r] for r in runs[base_cell]]
        accs = [r["test"] for r in base if not r["diverged"]]
        mean, lower, upper = _bounds(accs)
        row = {"task": task, "d": d, "sqrt_d": math.sqrt(d), "seeds": len(base),
               "joint": {"accuracy": mean, "accuracy_bounds": [lower, upper],
                         "converged": bool(lower >= TARGET - DELTA),
                         "diverged": len(base) - len(accs), "tuning": _tuning_json(tuning[base_cell])}}
        for plan in PLANS:
            by_h = {}
            for H in heads:
                cell = (task, d, H, plan)
                by_h[str(H)] = {**judge([records[r] for r in runs[cell]], base),
                                "tuning": _tuning_json(tuning[cell])}
            verdicts = [by_h[str(H)]["verdict"] for H in heads]
            row[plan] = {"smallest": step_down(heads, verdicts),
                         "first_reaching": next((H for H, v in zip(heads, verdicts) if v == "reaches"), None),
                         "by_heads": by_h}
        out.append(row)
    return out


def _bounds(values: Sequence[float]) -> tuple[float, float, float]:
    """:func:`.statistics.mean_bounds`, or no information for no values (every run diverged)."""
    return mean_bounds(values) if values else (math.nan, -math.inf, math.inf)


def step_down(heads: Sequence[int], verdicts: Sequence[str]) -> int | None:
    """The smallest H from which every larger H tried reaches (None if the largest does not)."""
    answer = None
    for H, verdict in reversed(list(zip(heads, verdicts))):
        if verdict != "reaches":
            break
        answer = H
    return answer


def _tuning_json(t: Mapping) -> dict:
    return {"curve": t["curve"], "chosen": None if t["chosen"] is None else list(t["chosen"]),
            "all_diverged": t["all_diverged"], "ranges": t["ranges"], "status": t["status"]}


def _smallest(row: Mapping, plan: str, heads: Sequence[int]) -> str:
    if not row["joint"]["converged"]:
        return "n/a (baseline not converged)"
    if row[plan]["smallest"] is not None:
        return str(row[plan]["smallest"])
    last = row[plan]["by_heads"][str(heads[-1])]["verdict"]
    return f"> {heads[-1]}" if last == "short" else f"none of {list(heads)} ({last} at {heads[-1]})"


def _spread(c: Mapping, seeds: int) -> str:
    """The verdict's qualifier: the power where undecided; for a zero-width interval the exact
    one-sided bound on the chance that a seed differs (0 such seeds in ``seeds``)."""
    if c["bounds"][0] == c["bounds"][1]:
        return f"zero width: P(a seed differs) <= {1 - LEVEL ** (1 / seeds):.2f}"
    return f"power {c['power']:.2f}" if c["verdict"] == "undecided" else ""


def _chosen(t: Mapping) -> str:
    k = t["tuning"]["chosen"]
    return "all diverged" if k is None else f"{k[0]:+d}" + (" (cap)" if t["tuning"]["status"][0] == "cap" else "")


def _ends(data: Mapping) -> str:
    """The chosen exponents: how many, beyond the first five-point grid, at the cap."""
    ts = [r["joint"]["tuning"] for r in data["rows"]] + [
        c["tuning"] for r in data["rows"] for plan in PLANS for c in r[plan]["by_heads"].values()]
    ks = [(t["chosen"][0], t["status"][0]) for t in ts if t["chosen"] is not None]
    return (f"Of the {len(ks)} chosen exponents, {sum(abs(k) > protocol.EXPONENTS[-1] for k, _ in ks)} "
            f"lie beyond the first grid k = {protocol.EXPONENTS[0]}..{protocol.EXPONENTS[-1]} and "
            f"{sum(st == 'cap' for _, st in ks)} at the cap |k| = {protocol.CAP}; "
            f"{sum(st == 'end' for _, st in ks)} at an end short of it; "
            f"{len(ts) - len(ks)} cells had every point diverge.")


def markdown(data: Mapping) -> str:
    heads, seeds = data["heads"], data["seeds"]
    lines = ["# Open question: heads needed by attention-first and attention-only training", "",
             f"Written by `python -m verify.experiments.heads` (proofs/experiments.md, \"Open "
             f"question\"). Occurrence and AND at N = d² training and d² test words, {data['steps']} "
             f"GD steps (AND's attention phase of A(1x)→O: its configuration's 10 steps), {seeds} "
             "seeds (0..9 of the reported ones); every step size chosen by the protocol (each "
             "cell's own mean final training loss on seeds 50-54, its range widened by half-decades "
             "while the choice sits at an end; grid exponents below). An exhibit: "
             "the paper states no claim. " + _ends(data), "",
             f"*Reaches*: within {DELTA:g} of joint GD, i.e. the paired difference to joint GD (same "
             f"words per seed) has its one-sided 95% lower bound >= -{DELTA:g}; *short*: its upper "
             f"bound < -{DELTA:g}; else *undecided* (the two bounds together are a 90% interval). "
             f"**Smallest H**: the smallest H from which every larger H in {list(heads)} reaches "
             "(step-down: verdicts need not be monotone in H, and the first H that reaches would be "
             f"the luckiest of up to {len(heads)} tests; 5% is the level of each test, with no "
             f"correction over the {2 * len(heads)} tests of a row). A baseline whose lower bound is "
             f"below {TARGET - DELTA:g} has not converged: its row has no answer. *Power* (undecided "
             "rows): the chance of *reaches* if the true difference were 0, at the observed spread. "
             "Where all seeds give the same difference the t interval has zero width; the row then "
             "gives the exact one-sided 95% bound on the chance that a seed comes out otherwise.", "",
             "| task | d | √d | joint GD accuracy [one-sided 95% bounds] | A(1x)→O: smallest H | A only: smallest H |",
             "|---|---|---|---|---|---|"]
    for r in data["rows"]:
        j = r["joint"]
        flag = "" if j["converged"] else " (not converged)"
        lines.append(f"| {r['task']} | {r['d']} | {r['sqrt_d']:.1f} | {j['accuracy']:.3f} "
                     f"[{j['accuracy_bounds'][0]:.3f}, {min(j['accuracy_bounds'][1], 1.0):.3f}]{flag} | "
                     f"{_smallest(r, 'A1-O', heads)} | {_smallest(r, 'A', heads)} |")
    lines += ["", "Per H: mean test accuracy, the paired difference to joint GD [one-sided 95% bounds], "
              "the verdict, and the chosen grid exponent k of the free step (value = centre × "
              "10^(k/2)).", "",
              "| task | d | plan | H | accuracy | difference [bounds] | verdict | note | k |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in data["rows"]:
        lines.append(f"| {r['task']} | {r['d']} | joint GD | {TABLE_HEADS[r['task']]} | "
                     f"{r['joint']['accuracy']:.3f} | (baseline) | | | {_chosen(r['joint'])} |")
        for plan in PLANS:
            for H, c in r[plan]["by_heads"].items():
                lost = f", {c['diverged']} diverged (apart)" if c["diverged"] else ""
                lines.append(f"| {r['task']} | {r['d']} | {LABELS[plan]} | {H} | {c['accuracy']:.3f} | "
                             f"{c['difference'] + 0.0:+.3f} [{c['bounds'][0] + 0.0:+.3f}, "
                             f"{c['bounds'][1] + 0.0:+.3f}]{lost} | {c['verdict']} | "
                             f"{_spread(c, r['seeds'])} | {_chosen(c)} |")
    return "\n".join(lines) + "\n"


def plot(data: Mapping, path: Path) -> None:
    """The smallest H against d, per task and plan (step-down; at 2 max H when none reaches,
    hollow when undecided at the largest H; rows whose baseline has not converged left out)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    heads = data["heads"]
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    series = [(t, m, p, s) for t, m in (("occurrence", "o"), ("and", "s")) for p, s in (("A1-O", "-"), ("A", "--"))]
    for i, (task, marker, plan, style) in enumerate(series):
        shift = 1.04 ** (i - 1.5)  # apart by 4% on the H axis, so that equal values stay visible
        rows = [r for r in data["rows"] if r["task"] == task and r["joint"]["converged"]]
        pts = [(r["d"], (r[plan]["smallest"] or 2 * heads[-1]) * shift) for r in rows]
        if pts:
            line, = ax.plot(*zip(*pts), style, marker=marker, label=f"{task}, {LABELS[plan]}")
            open_ = [pt for pt, r in zip(pts, rows) if r[plan]["smallest"] is None
                     and r[plan]["by_heads"][str(heads[-1])]["verdict"] == "undecided"]
            if open_:
                ax.plot(*zip(*open_), linestyle="none", marker=marker, markerfacecolor="white",
                        color=line.get_color())
    ds = sorted({r["d"] for r in data["rows"]})
    ax.plot(ds, [d ** 0.5 for d in ds], ":", color="grey", label="√d, for scale (Prop. 4's\nsetting differs)")
    ax.set_xscale("log")
    ax.set_yscale("log", base=2)
    ax.set_xlabel("d")
    ax.set_ylabel(f"smallest H from which every larger\nH reaches joint GD (at {2 * heads[-1]}: none;\n"
                  "hollow: undecided at the largest)")
    ax.set_title(f"Heads needed ({data['seeds']} seeds, protocol steps)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)


def study(tasks: Sequence[str], ds: Sequence[int], heads: Sequence[int], seeds: int, out: Path,
          pool, progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Tune every cell, run the reported seeds, judge (all through the journal in ``out``)."""
    journal = open_journal(out / JOURNAL, "default", study="heads", extra=("heads_runs",))
    every = cells(tasks, ds, heads)

    def stage(name: str, runs: list[HeadsRun]) -> dict:
        report = (lambda done, total: progress(name, done, total)) if progress else None
        return run_all(runs, "default", pool, journal, report, batch=batch, worker=worker)

    tuning = tune(every, lambda runs: stage("tuning", runs))
    chosen_runs = report_runs(every, tuning, range(seeds))
    records = stage("seeds", [r for rs in chosen_runs.values() for r in rs])
    return {"tasks": list(tasks), "d": list(ds), "heads": list(heads), "seeds": seeds, "steps": STEPS,
            "delta": DELTA, "rows": rows(every, tuning, chosen_runs, records, heads)}


def _int(text: str, least: int) -> int:
    """One integer >= least (argparse names the option in its message)."""
    if "," in text:
        raise argparse.ArgumentTypeError(f"expected one integer, got {text!r}")
    return _ints(text, least)[0]


def _ints(text: str, least: int) -> list[int]:
    """A comma list of integers >= least, sorted, without repeats."""
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a comma list of integers, got {text!r}") from None
    if not values or min(values) < least:
        raise argparse.ArgumentTypeError(f"every value must be >= {least}, got {text!r}")
    return sorted(set(values))


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse's default adds the usage)
        print(f"verify: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m verify.experiments.heads", description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="reports/experiments", help="output directory (it must exist)")
    parser.add_argument("--d", type=lambda t: _ints(t, 3), default=[10, 20, 50, 100],
                        help="alphabet sizes (default 10,20,50,100; AND needs d >= 3)")
    parser.add_argument("--heads", type=lambda t: _ints(t, 1), default=list(HEADS),
                        help="numbers of heads (default 1,2,4,8,16)")
    parser.add_argument("--tasks", type=lambda t: _names(t), default=list(TABLE_HEADS),
                        help="occurrence, and (default both)")
    parser.add_argument("--seeds", type=lambda t: _int(t, 2), default=10,
                        help="reported seeds 0..N-1 (default 10; at least 2 for the bounds)")
    parser.add_argument("--workers", type=lambda t: _int(t, 1), default=1,
                        help="processes to spread the runs over")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # an error (one line) or --help
        return int(exc.code or 0)
    out = Path(args.output)
    if not out.is_dir():
        print(f"verify: error: --output: no such directory: {out}", file=sys.stderr)
        return 2
    try:
        with executors.choose(args.workers) as pool:
            data = study(args.tasks, args.d, args.heads, args.seeds, out, pool, _progress())
    except (JournalError, executors.ExecutorError, ValueError) as exc:
        print(f"verify: error: {exc}", file=sys.stderr)
        return 2
    (out / "heads.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    (out / "heads.md").write_text(markdown(data))
    plot(data, out / "heads.png")
    print(next(block for block in markdown(data).split("\n\n") if block.startswith("| task | d | √d")))
    print(f"wrote {out / 'heads.md'}, {out / 'heads.json'}, {out / 'heads.png'}")
    return 0


def _names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in TABLE_HEADS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown {', '.join(unknown) or '(none)'}; "
                                         f"choose from {', '.join(TABLE_HEADS)}")
    return names


def _progress() -> Callable[[str, int, int], None]:
    """A line on stderr per stage and every 10% of its runs."""
    shown: dict[str, int] = {}

    def report(stage: str, done: int, total: int) -> None:
        tenth = 10 * done // max(total, 1)
        if shown.get(stage) != tenth:
            shown[stage] = tenth
            print(f"heads, {stage}: {done}/{total} runs", file=sys.stderr, flush=True)
    return report


if __name__ == "__main__":
    sys.exit(main())
