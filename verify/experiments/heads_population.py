"""The open question on the exact population loss: how many heads does A(1x)->O need on occurrence?

    python -m verify.experiments.heads_population [--output DIR] [--d 10,20,50,100]
        [--heads 1,2,4,8,16] [--targets 6] [--all-up-to 20] [--seed 0]
        [--mc 100000] [--workers 2] [--append]

The plan in population form (model (2), f = sum_h B_h . gamma^(h) - 1, target s):

1. start at alpha^(h) = 0 for every head (ours: the sample route starts from N(0, 0.1^2)
   logits; with equal logits every head has the same gamma, which is what lets the general
   engine take the step) and B0 ~ N(0, init_std^2) (H x d), drawn once, independently of s;
2. one attention step alpha'^(h) = -eta grad_{alpha^(h)} L_s(0, B0), its size set by the logit
   spread K it produces: eta = K / max_h (max_l - min_l) grad_{alpha^(h)}_l (a normalised step;
   Theorem 1 allows any eta), K in ``SPREADS``, one K for all targets, the one best for the
   worst of them (which favours the plan, as does eta differing by target through the
   gradient's spread).  At spread 64 the extreme logits are e^-64 apart;
   larger steps stretch every gap further, which can still lower the loss
   (proofs/experiments.md).  The sample route's step eta_attention_one gives
   spreads of about 13, 60, 280 and 840 at d = 10, 20, 50, 100 (measured with B0 ~ N(0, 0.1^2)):
   beyond 64 the float64 engine's cost grows with the square of the spread, so those are not
   tried;
3. output training to convergence: inf_B L_s(alpha', B), a linear solve on the H-head second
   moments (:func:`verify.engine.general.best_output_heads_float`); the sample route stops
   after its step budget, so this is the plan's best case.

The step.  At alpha = 0 all heads share gamma, so head h's gradient is the single-head one with
the residual's output u = sum_g B0_g and the derivative's output v = B0_h (proofs/model.md,
section 1; the gamma-derivative of v . gamma is gamma_l (v_l - v . gamma)):

  g(u, v)_l = v_l (M u)_l - T(u, v)_l + L1(v)_l,   T(u, v)_l = E[(u . gamma)(v . gamma) gamma_l],

with M = E[gamma gamma^T] and L1 the part of the single-head gradient G(beta) that is linear in
beta.  G(beta) = L1(beta) + beta_l (M beta)_l - T(beta, beta)_l, so L1 = (G(beta) - G(-beta))/2,
T(beta, beta) = beta (M beta) - (G(beta) + G(-beta))/2, and T(u, v) follows by polarisation:
6 float64 gradient passes per head (:func:`cross_gradient`).  Tests compare it with the all-words
mpmath terms (:func:`verify.engine.general.attention_gradient_terms`) and with the sample
gradient of :class:`verify.experiments.counting.CountingTask` on many words.

"Reaches": the worst population loss over the sampled targets is <= (1 - TARGET)/2, which
guarantees population accuracy >= TARGET (an error needs |f - y| >= 1, so P(error) <= E(f - y)^2
= 2 L).  The accuracy itself at the optimal B is measured by Monte Carlo on ``--mc`` fresh words
with a Clopper-Pearson interval, and the loss there is re-estimated on the same words as a second
route.  Targets: every symbol when d <= ``--all-up-to``, else ``--targets`` distinct symbols
drawn with the seed (then the worst of them is a lower estimate of the worst over all d).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from ..engine.distribution import WordDistribution
from ..engine.general import best_output_heads_float, evaluate_grid, float_attention_grid
from ..engine.general.moments import grid_moments
from .thresholds import TARGET
from . import config
from .counting import attention, words

SPREADS = (1.0, 4.0, 16.0, 64.0)  # logit spread of the attention step (module docstring)
LOSS_LEVEL = (1.0 - TARGET) / 2.0  # population loss at or below it => accuracy >= TARGET
ROUNDING = 1e-12  # absolute float64 allowance of an engine loss near zero (see mc_z)


def cross_gradient(grid, M: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """g(u, v) = E[(u . gamma - 1 - y) d(v . gamma)/d alpha] on one alpha grid (see the module)."""
    def G(beta):
        return evaluate_grid(grid, beta, with_errors=False).grad_alpha

    def T(beta):  # T(beta, beta) from the even part of G
        return beta * (M @ beta) - (G(beta) + G(-beta)) / 2.0

    linear = (G(v) - G(-v)) / 2.0
    bilinear = (T(u + v) - T(u - v)) / 4.0
    return v * (M @ u) - bilinear + linear


def attention_step(d: int, s: int, B0: np.ndarray) -> np.ndarray:
    """The (H, d) gradients of L_s at alpha = 0 for every head (multiply by -eta for the step)."""
    grid = float_attention_grid(d, s, np.zeros(d))
    M = grid_moments(grid).second
    u = B0.sum(axis=0)
    return np.stack([cross_gradient(grid, M, u, v) for v in B0])


def monte_carlo(d: int, s: int, alphas: np.ndarray, B: np.ndarray, n: int,
                rng: np.random.Generator) -> dict:
    """On n fresh words from rho: the accuracy of sign(f) with its 95% Clopper-Pearson interval,
    and the loss with its standard error (a second route to the engine's population loss)."""
    from scipy.stats import binomtest

    counts = WordDistribution(d).sample_counts(rng, n).astype(np.float64)
    y = np.where(counts[:, s] >= 1, 1.0, -1.0)
    f = np.einsum("nhd,hd->n", attention(words(counts, y), alphas), B) - 1.0
    hits = int(np.sum(np.where(f > 0, 1.0, -1.0) == y))
    ci = binomtest(hits, n).proportion_ci(0.95, method="exact")
    loss = 0.5 * (f - y) ** 2
    return {"accuracy": hits / n, "accuracy.lower": float(ci.low),
            "accuracy.upper": float(ci.high), "mc_loss": float(loss.mean()),
            "mc_loss.se": float(loss.std(ddof=1) / np.sqrt(n))}


def target_floors(d: int, s: int, B0: np.ndarray) -> dict:
    """For each spread K: (inf_B L_s, alphas', B*) after the normalised step from alpha = 0."""
    grads = attention_step(d, s, B0)
    size = float(np.ptp(grads, axis=1).max())
    out = {}
    for K in SPREADS:
        alphas = -(K / size) * grads if size > 0 else np.zeros_like(grads)
        B, value = best_output_heads_float(d, s, alphas)
        out[K] = (value, alphas, B)
    return out


def row(d: int, H: int, targets: int, seed: int, mc: int, workers: int = 1) -> dict:
    """Worst of ``targets`` targets (all d if targets >= d) at (d, H), at the one spread that is
    best for the worst target; B0 and the targets are drawn from SeedSequence([seed, d, H])."""
    cfg = config.resolve(dict(config.flat("occurrence", "default"), d=d), d)
    r_init, r_targets, r_mc = (np.random.default_rng(x) for x in
                               np.random.SeedSequence([seed, d, H]).spawn(3))
    B0 = r_init.normal(0.0, float(cfg["init_std"]), (H, d))
    chosen = sorted(int(t) for t in r_targets.choice(d, size=min(targets, d), replace=False))
    with ProcessPoolExecutor(workers) as pool:  # the targets are independent
        floors = dict(zip(chosen, pool.map(target_floors, *zip(*[(d, s, B0) for s in chosen]))))
    worst_by_spread = {K: max(floors[s][K][0] for s in chosen) for K in SPREADS}
    spread = min(SPREADS, key=lambda K: worst_by_spread[K])
    per = []
    for s in chosen:
        value, alphas, B = floors[s][spread]
        per.append({"target": s, "loss": value, **monte_carlo(d, s, alphas, B, mc, r_mc),
                    "loss_by_spread": {str(K): floors[s][K][0] for K in SPREADS}})
    worst = worst_by_spread[spread]
    return {"d": d, "H": H, "sqrt_d": d ** 0.5, "spread": spread, "worst_loss": worst,
            "n_targets": len(chosen),
            "worst_accuracy": min(p["accuracy"] for p in per),
            "worst_accuracy.lower": min(p["accuracy.lower"] for p in per),
            "reaches": worst <= LOSS_LEVEL, "targets": per}


def smallest(rows: list[dict], d: int, by_accuracy: bool = False) -> int | None:
    """The smallest H at d whose worst loss is at or below LOSS_LEVEL (or, by_accuracy, whose
    worst Monte Carlo accuracy has its 95% lower end at or above TARGET), None if none."""
    return min((r["H"] for r in rows if r["d"] == d and
                (r["worst_accuracy.lower"] >= TARGET if by_accuracy else r["reaches"])),
               default=None)


def markdown(rows: list[dict], mc: int) -> str:
    lines = ["# Open question on the population loss: heads needed by A(1x)→O (occurrence)", "",
             "Model (2) with H heads. From zero logits and a random output B0 (N(0, 0.1²), drawn "
             "before the target): one attention step, normalised to a logit spread K, then the "
             "best output (a linear solve on the exact population loss, no norm limit). One K "
             f"serves all targets, the best of {list(SPREADS)} for the worst target; the step "
             "size η = K / (the gradient's spread) therefore differs by target. B0 and the "
             "sampled targets are drawn anew for each row (d, H): one B0 draw per row.", "",
             f"* smallest H (loss): the worst loss is ≤ {LOSS_LEVEL:g}, which guarantees "
             f"population accuracy ≥ {TARGET} for each target computed; a run stops at the "
             "first such H; H is tried at powers of 2 only;",
             "* smallest H (accuracy): the worst target's Monte Carlo accuracy at the optimum "
             f"({mc} fresh words) has the lower end of its 95% Clopper-Pearson interval (in "
             f"brackets) ≥ {TARGET};",
             "* targets: every symbol, or a seeded sample (the worst is then over the sample);",
             "* K: the spread kept, by H; a K at an end of the grid means a wider grid might "
             "do better;",
             "* max MC z: the largest |Monte Carlo loss − engine loss| in standard errors over "
             "all targets and H. It checks the loss at the stepped logits, not the step itself "
             "(tests check the step against two other routes).", "",
             "Written by `python -m verify.experiments.heads_population`.", "",
             "| d | sqrt(d) | targets | smallest H (loss) | smallest H (accuracy) "
             "| worst loss by H | worst accuracy by H | K by H | max MC z |",
             "|---|---|---|---|---|---|---|---|---|"]
    for d in sorted({r["d"] for r in rows}):
        at = sorted((r for r in rows if r["d"] == d), key=lambda r: r["H"])
        tried = f"> {max(r['H'] for r in at)}"
        best, by_acc = (str(h) if h is not None else tried
                        for h in (smallest(rows, d), smallest(rows, d, True)))
        losses = " ".join(f"{r['H']}:{loss_cell(r['worst_loss'])}" for r in at)
        accs = " ".join(f"{r['H']}:{r['worst_accuracy']:.3f} [{r['worst_accuracy.lower']:.3f}]"
                        for r in at)
        spreads = " ".join(f"{r['H']}:{r['spread']:g}" for r in at)
        z = max(mc_z(t) for r in at for t in r["targets"])
        lines.append(f"| {d} | {d ** 0.5:.1f} | {targets_cell(at, d)} | {best} | {by_acc} "
                     f"| {losses} | {accs} | {spreads} | {z:.1f} |")
    return "\n".join(lines) + "\n"


def loss_cell(value: float) -> str:
    """Four decimals; small losses in exponent form; below the engine's rounding as a bound."""
    if value >= 1e-4:
        return f"{value:.4f}"
    return f"{value:.1e}" if value > ROUNDING else f"≤ {ROUNDING:.0e}"


def targets_cell(at: list[dict], d: int) -> str:
    """"all", "4 of 50", or per H when the rows of one d differ ("all (H 1,2); 6 (H 16)")."""
    counted = sorted({r["n_targets"] for r in at}, reverse=True)
    name = {n: "all" if n == d else str(n) for n in counted}
    if len(counted) == 1:
        return "all" if counted[0] == d else f"{counted[0]} of {d}"
    return "; ".join(f"{name[n]} (H {','.join(str(r['H']) for r in at if r['n_targets'] == n)})"
                     for n in counted)


def mc_z(target: dict) -> float:
    """|MC loss - engine loss| / sqrt(se^2 + ROUNDING^2): the engine's loss 1 - m_+ . b* is a
    difference of O(1) float64 terms, good to ROUNDING absolute, not relative, near zero."""
    return abs(target["mc_loss"] - target["loss"]) / math.hypot(target["mc_loss.se"], ROUNDING)


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for d in sorted({r["d"] for r in rows}):
        at = sorted((r for r in rows if r["d"] == d), key=lambda r: r["H"])
        line, = ax.plot([r["H"] for r in at], [r["worst_loss"] for r in at], "-o", label=f"d = {d}")
        ax.axvline(d ** 0.5, color=line.get_color(), linestyle=":", linewidth=0.8)
    ax.axhline(LOSS_LEVEL, color="grey", linestyle="--", label=f"loss {LOSS_LEVEL:g}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("heads H (dotted: sqrt(d), Prop. 4's scale)")
    ax.set_ylabel("worst population loss after A(1x)→O")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify.experiments.heads_population")
    parser.add_argument("--output", default="reports/experiments", help="output directory")
    parser.add_argument("--d", default="10,20,50,100")
    parser.add_argument("--heads", default="1,2,4,8,16")
    parser.add_argument("--targets", type=int, default=6,
                        help="targets per (d, H) above --all-up-to")
    parser.add_argument("--all-up-to", type=int, default=20, help="every target when d <= this")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mc", type=int, default=100_000)
    parser.add_argument("--append", action="store_true",
                        help="keep the rows already in --output for other (d, H)")
    args = parser.parse_args(argv)
    try:
        ds = [int(x) for x in args.d.split(",")]
        heads = [int(x) for x in args.heads.split(",")]
    except ValueError:
        parser.exit(2, "error: --d and --heads are comma-separated integers\n")
    if min(ds) < 2 or min(heads) < 1 or args.targets < 1 or args.mc < 2 or args.workers < 1:
        parser.exit(2, "error: need d >= 2, H >= 1, --targets >= 1, --mc >= 2 and --workers >= 1\n")
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    if args.append and (out / "heads-population.json").exists():
        kept = json.loads((out / "heads-population.json").read_text())
        rows = [r for r in kept if r["d"] not in ds or r["H"] not in heads]
    for d in ds:  # rewritten after every row: a stopped run keeps its rows
        for H in sorted(heads):
            k = d if d <= args.all_up_to else args.targets
            start = time.perf_counter()
            rows.append(row(d, H, k, args.seed, args.mc, args.workers))
            rows.sort(key=lambda r: (r["d"], r["H"]))
            (out / "heads-population.md").write_text(markdown(rows, args.mc))
            (out / "heads-population.json").write_text(
                json.dumps(rows, indent=1, sort_keys=True) + "\n")
            plot(rows, out / "heads-population.png")
            r = next(x for x in rows if (x["d"], x["H"]) == (d, H))
            print(f"d={d} H={H} worst loss {r['worst_loss']:.5f} "
                  f"worst accuracy {r['worst_accuracy']:.4f} ({time.perf_counter() - start:.0f} s)",
                  flush=True)
            if r["reaches"]:
                break
    return 0


if __name__ == "__main__":
    sys.exit(main())
