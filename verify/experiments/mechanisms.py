"""Measured causes of the claim cells that disagree with the reconstructed claims
(proofs/experiments.md, "Round 3", item 4).  Measurements, not settings: nothing here
feeds a choice of the protocol.

* ``lag``: joint GD's lag statistic against its attention step.  Per task (even pairs, SLR) and
  exponent k, joint GD at eta_A = centre x 10^(k/2) (every other setting as configured, output
  step eta_O by curvature) on seeds 0..n-1, both gaps at every step of the first 100: per seed
  the two 10%-crossing steps and D = attention - output crossing, the signed-rank p-values
  (:func:`.statistics.signed_rank`), the mean final training loss and test metric.
* ``three_phase``: OR's three-phase plan from random and from zero initialisation at the same
  frozen steps (and the zero plan's own): per seed the attention logits after the run (frozen
  after its one attention step) on the two targets and the largest on the other symbols, the
  margin min(targets) - max(others), the test accuracy on all test words and on the words that
  hold exactly one of the targets.
* ``symmetry``: AND's joint GD at its frozen step from the anti-symmetric initialisation at
  several scales (0 is the zero initialisation): per seed the spread of the four heads after the
  run (the largest difference between two heads' attention logits, and between their output
  weights), each head's attention logits on the two targets, the final training loss and the
  test accuracy.

    python -m verify.experiments.mechanisms [--output DIR] [--stem mechanisms] [--seeds 10]
        [--measures lag,three_phase,symmetry] [--lag-tasks even_pairs,slr,and] [--profile default]

Writes STEM.md, STEM.json and STEM.png into DIR (default reports/experiments/mechanisms.*).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from . import protocol
from .plans import schedule, train
from .run import generators, run_seed, settings, task_of
from .counting import words
from .statistics import first_reach, signed_rank

PROFILE = "default"
LAG_EXPONENTS = {"even_pairs": (-2, -1, 0, 1, 2, 3), "slr": (-4, -2, 0, 2), "and": (-2, -1, 0, 1, 2)}
SCALES = (0.0, 1e-4, 1e-3, 1e-2, 0.1)  # AND's initialisation scales for ``symmetry``
MEASURES = ("lag", "three_phase", "symmetry")


def lag_curve(task: str, exponents: Sequence[int], seeds: Sequence[int],
              profile: str = PROFILE) -> list[dict]:
    """Per exponent k of joint GD's attention step: per-seed crossings, D and the test."""
    cfg = settings(task, profile)
    std = float(cfg["init_std"])
    per_k: dict[int, list[dict]] = {k: [] for k in exponents}
    for seed in seeds:
        specs = [("joint", protocol.overrides("joint", cfg, (k,), std)) for k in exponents]
        for k, rec in zip(exponents, run_seed(task, seed, cfg, specs)):
            t = rec["trajectory"]
            out, att = first_reach(t["step"], t["output_gap"]), first_reach(t["step"], t["attention_gap"])
            per_k[k].append({"seed": seed, "output": out, "attention": att, "D": att - out,
                             "train_loss": rec["train_loss"], "test": rec["test"],
                             "diverged": rec["diverged"]})
        print(f"\r{task}: seed {seed + 1}/{len(seeds)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows = []
    for k, runs in per_k.items():
        kept = [r for r in runs if not r["diverged"]]
        d = [r["D"] for r in kept]
        stat, p_lag, p_lead = signed_rank(d)
        rows.append({"k": k, "eta_attention": protocol.value(cfg["eta_attention"], k),
                     "eta_output": float(cfg["eta_output"]), "runs": runs,
                     "median_D": float(np.median(d)) if d else None, "p_lags": p_lag,
                     "p_leads": p_lead, "diverged": len(runs) - len(kept),
                     "train_loss": float(np.mean([r["train_loss"] for r in kept])) if kept else None,
                     "test": float(np.mean([r["test"] for r in kept])) if kept else None})
    return rows


def margins(plan: str, exponents: Sequence[int], seeds: Sequence[int],
            profile: str = PROFILE) -> list[dict]:
    """OR's three-phase plan at the given exponents: per seed the final attention logits on the
    targets and the other symbols, their margin and the test accuracy (all words; words with
    exactly one target)."""
    task, name = task_of("or"), "or"
    cfg0 = settings(name, profile)
    cfg = {**cfg0, **protocol.overrides(plan, cfg0, exponents, float(cfg0["init_std"]))}
    rows = []
    for seed in seeds:
        problem = task.sample(cfg, tuple(generators(name, seed)[:3]))
        params = task.init(problem, generators(name, seed)[3], plan.endswith("-zero"), cfg)
        params, _, blown = train(task, problem, params, schedule(plan, cfg))
        alpha, targets = params["alpha"], list(problem.info["targets"])
        others = np.delete(alpha, targets)
        counts, y = problem.test.counts, problem.test.y
        one = (counts[:, targets] > 0).sum(axis=1) == 1
        rows.append({"seed": seed, "targets": [float(alpha[t]) for t in targets],
                     "others_max": float(others.max()),
                     "margin": float(min(alpha[t] for t in targets) - others.max()),
                     "test": task.evaluate(params, problem.test),
                     "test_one_target": task.evaluate(params, words(counts[one], y[one])),
                     "diverged": blown})
    return rows


def three_phase(seeds: Sequence[int], profile: str = PROFILE) -> dict:
    """:func:`margins` from random initialisation at the frozen steps, from zero at the same
    steps, and from zero at the zero plan's own frozen steps."""
    chosen = protocol.load_chosen(profile)["or"]
    cases = (("random", "O1-A1-O", chosen["O1-A1-O"]),
             ("zero, same steps", "O1-A1-O-zero", chosen["O1-A1-O"]),
             ("zero, its own steps", "O1-A1-O-zero", chosen["O1-A1-O-zero"]))
    return {name: {"exponents": list(ks), "rows": margins(plan, ks, seeds, profile)}
            for name, plan, ks in cases}


def symmetry(seeds: Sequence[int], profile: str = PROFILE, scales: Sequence[float] = SCALES) -> list[dict]:
    """AND's joint GD at its frozen step from the anti-symmetric initialisation at each scale:
    per seed the heads' spread after training (max over symbols of the range over heads of the
    attention logits, and of the output weights), the heads' attention logits on the two
    targets, the final training loss and the test accuracy."""
    name = "and"
    task, cfg0 = task_of(name), settings(name, profile)
    chosen = protocol.load_chosen(profile)[name]["joint"]
    rows = []
    for std in scales:
        cfg = {**cfg0, **protocol.overrides("joint", cfg0, chosen, std)}
        for seed in seeds:
            problem = task.sample(cfg, tuple(generators(name, seed)[:3]))
            params = task.init(problem, generators(name, seed)[3], False, cfg)
            params, trajectory, blown = train(task, problem, params, schedule("joint", cfg))
            targets = list(problem.info["targets"])
            rows.append({"std": std, "seed": seed,
                         "spread_alpha": float(np.ptp(params["alpha"], axis=0).max()),
                         "spread_B": float(np.ptp(params["B"], axis=0).max()),
                         "target_logits": params["alpha"][:, targets].tolist(),
                         "train_loss": float(trajectory.loss[-1]),
                         "test": task.evaluate(params, problem.test),
                         "diverged": blown})
            print(f"\rsymmetry: std {std:g}, seed {seed + 1}/{len(seeds)}", end="", file=sys.stderr,
                  flush=True)
    print(file=sys.stderr)
    return rows


def markdown(data: dict) -> str:
    lines = ["# Measured causes of the disagreeing claim cells (Round 3)", "",
             f"Profile {data['profile']}, seeds 0..{data['seeds'] - 1}. Written by `python -m "
             "verify.experiments.mechanisms`; measurements, not settings of the protocol.", ""]
    for task, rows in data.get("lag", {}).items():
        lines += [f"## Lag against joint GD's attention step: {task}", "",
                  f"eta_O = {rows[0]['eta_output']:.4g} (curvature). D = attention minus output "
                  "10%-crossing step per seed; p from the signed-rank test with Pratt's zeros and "
                  "its exact null, one-sided.", "",
                  "| k | eta_A | eta_A / eta_O | D per seed | median D | p(lags) | p(leads) | "
                  "train loss | test |", "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            ds = ", ".join(str(x["D"]) for x in r["runs"] if not x["diverged"])
            med = "n/a" if r["median_D"] is None else f"{r['median_D']:+g}"
            train_loss = "n/a" if r["train_loss"] is None else f"{r['train_loss']:.4g}"
            test = "n/a" if r["test"] is None else f"{r['test']:.4g}"
            lines.append(f"| {r['k']:+d} | {r['eta_attention']:.4g} | "
                         f"{r['eta_attention'] / r['eta_output']:.3g} | {ds} | {med} | "
                         f"{r['p_lags']:.3g} | {r['p_leads']:.3g} | {train_loss} | {test}"
                         + (f" ({r['diverged']} diverged)" if r["diverged"] else "") + " |")
        lines.append("")
    if "three_phase" in data:
        lines += ["## OR, three-phase: attention logits after the one attention step", "",
                  "margin = smaller target logit minus the largest other logit (the attention is "
                  "frozen after Phase 2); test accuracy on all test words and on the words with "
                  "exactly one target.", "",
                  "| initialisation (exponents) | seed | target logits | largest other | margin | "
                  "test | one-target words |", "|---|---|---|---|---|---|---|"]
        for name, block in data["three_phase"].items():
            for r in block["rows"]:
                lines.append(f"| {name} {tuple(block['exponents'])} | {r['seed']} | "
                             + ", ".join(f"{a:.1f}" for a in r["targets"])
                             + f" | {r['others_max']:.1f} | {r['margin']:+.1f} | {r['test']:.3f} | "
                             f"{r['test_one_target']:.3f} |")
        lines.append("")
    if "symmetry" in data:
        lines += ["## AND, joint GD: the heads' symmetry against the initialisation scale", "",
                  "spread = the largest range over the four heads of one symbol's attention logit "
                  "(alpha) or output weight (B) after the run; target logits = each head's attention "
                  "logits on the two targets (the heads' mean and range).", "",
                  "| std | seed | spread alpha | spread B | target logits (mean over heads) | "
                  "train loss | test |", "|---|---|---|---|---|---|---|"]
        for r in data["symmetry"]:
            mean = np.mean(r["target_logits"], axis=0)
            lines.append(f"| {r['std']:g} | {r['seed']} | {r['spread_alpha']:.3g} | "
                         f"{r['spread_B']:.3g} | {mean[0]:.2f}, {mean[1]:.2f} | "
                         f"{r['train_loss']:.4g} | {r['test']:.4f}"
                         + (" (diverged)" if r["diverged"] else "") + " |")
        lines.append("")
    return "\n".join(lines)


def draw(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = ([("lag", t) for t in data.get("lag", {})]
              + [(kind, None) for kind in ("three_phase", "symmetry") if kind in data])
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, (kind, task) in zip(axes[0], panels):
        if kind == "lag":
            for r in data["lag"][task]:
                x = r["eta_attention"] / r["eta_output"]
                ds = [q["D"] for q in r["runs"] if not q["diverged"]]
                ax.plot([x] * len(ds), ds, ".", color="grey", alpha=0.6)
                if r["median_D"] is not None:
                    ax.plot(x, r["median_D"], "o", color="black")
            ax.axhline(0, color="red", lw=0.8)
            ax.set_xscale("log")
            ax.set_xlabel("eta_A / eta_O (joint GD)")
            ax.set_ylabel("D = attention - output crossing step")
            ax.set_title(f"{task}: D > 0 means the attention lags", fontsize=9)
        elif kind == "symmetry":
            for r in data["symmetry"]:
                ax.plot(max(r["std"], 1e-6), r["test"], "o", color="C0", alpha=0.6)
            ax.set_xscale("log")
            ax.set_xlabel("initialisation std (0 drawn at 1e-6)")
            ax.set_ylabel("test accuracy")
            ax.set_title("AND, joint GD: accuracy against the init scale", fontsize=9)
        else:
            for (name, block), colour in zip(data["three_phase"].items(), ("C3", "C0", "C2")):
                xs = [r["margin"] for r in block["rows"]]
                ys = [r["test"] for r in block["rows"]]
                ax.plot(xs, ys, "o", color=colour, label=name, alpha=0.8)
            ax.axvline(0, color="grey", lw=0.8)
            ax.set_xlabel("min target logit - max other logit")
            ax.set_ylabel("test accuracy")
            ax.set_title("OR, three-phase: frozen attention after one step", fontsize=9)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify.experiments.mechanisms",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=str(Path("reports") / "experiments"))
    parser.add_argument("--stem", default="mechanisms", help="the files' name (STEM.md, .json, .png)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--measures", default="lag,three_phase")
    parser.add_argument("--profile", choices=("quick", "default"), default=PROFILE)
    parser.add_argument("--lag-tasks", default=",".join(LAG_EXPONENTS))
    args = parser.parse_args(argv)
    measures = [m.strip() for m in args.measures.split(",") if m.strip()]
    lag_tasks = [t.strip() for t in args.lag_tasks.split(",") if t.strip()]
    unknown = [m for m in measures if m not in MEASURES]
    unknown += [t for t in lag_tasks if t not in LAG_EXPONENTS]
    if unknown or args.seeds < 1:
        print(f"error: unknown measures or lag tasks {unknown}, or --seeds < 1", file=sys.stderr)
        return 2
    seeds = list(range(args.seeds))
    data: dict = {"profile": args.profile, "seeds": args.seeds}
    if "lag" in measures:
        data["lag"] = {task: lag_curve(task, LAG_EXPONENTS[task], seeds, args.profile)
                       for task in lag_tasks}
    if "three_phase" in measures:
        data["three_phase"] = three_phase(seeds, args.profile)
    if "symmetry" in measures:
        data["symmetry"] = symmetry(seeds, args.profile)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{args.stem}.{ext}" for ext in ("md", "json", "png")]
    paths[1].write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    paths[0].write_text(markdown(data))
    draw(data, paths[2])
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
