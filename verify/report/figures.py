"""The report's pictures, drawn from a run's outcomes and the certificates it re-judged: each
certified box's tiling in (log d, log eps) coloured by its smallest margin, the floors of
Propositions 2-4 and Theorem 1 against d with their constants (searched and certified points
marked apart), the plans side by side, and Theorem 2's risk after the plan against eps.

matplotlib draws them on its Agg canvas with matplotlib's default style and fonts and no
metadata in the PNG, so one run's bytes do not depend on the clock or a user's matplotlibrc;
they do depend on the matplotlib and FreeType versions, so byte comparisons of reports leave the
PNGs out.  Without matplotlib the report is written without figures and says so in one line.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Mapping, Sequence

from ..constants import Constant
from ..ledger import Obligation
from ..run.runner import CheckReport

FLOORS = (("prop2", "prop2.floor", "prop2.certified_floor", "prop2.c1", "Proposition 2: inf over alpha"),
          ("prop3", "prop3.floor", "prop3.certified_floor", "prop3.c2", "Proposition 3: inf over beta"),
          ("prop4", "prop4.floor", "prop4.certified_floor", "prop4.c4", "Proposition 4: inf over B"),
          ("thm1", "thm1.floor", "thm1.certified_value", "thm1.c3", "Theorem 1: attention first"))
PLANS = (("three_phase", "three phases"), ("attention_only", "attention only"),
         ("output_only", "output only"), ("heads", "H heads"), ("attention_first", "attention first"))
DPI = 90


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path: Path) -> None:
    import matplotlib

    with matplotlib.rc_context(matplotlib.rcParamsDefault):
        fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})


def _report(reports: Sequence[CheckReport], check_id: str) -> CheckReport | None:
    return next((r for r in reports if r.check.id == check_id), None)


def _points(rep: CheckReport | None, key: str) -> list[tuple[float, float]]:
    """(d, value) of every counted case that carries ``key`` (a floor, a ball's lower end)."""
    if rep is None:
        return []
    out = []
    for o in rep.counted:
        params = rep.params.get(o.case, {})
        value = o.values.get(key)
        if "d" in params and isinstance(value, (int, float)) and value > 0:
            out.append((float(params["d"]), float(value)))
    return sorted(out)


def floors(reports: Sequence[CheckReport], constants: Mapping[str, Constant], path: Path) -> bool:
    """Four panels: the floor found by search and the certified value at the point found,
    against d, with the constant the result claims."""
    panels = [(f, _points(_report(reports, f[1]), "floor"), _points(_report(reports, f[2]), "lower"))
              for f in FLOORS]
    panels = [p for p in panels if p[1] or p[2]]
    if not panels:
        return False
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    fig = _figure(4.2 * len(panels), 3.4)
    for i, ((_, _, _, key, title), searched, certified) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        if searched:
            ax.plot(*zip(*searched), "o", mfc="none", color="tab:blue", label="search (smallest found)")
        if certified:
            ax.plot(*zip(*certified), "x", color="tab:green", label="certified at that point")
        if key in constants:
            ax.axhline(float(constants[key].value), color="tab:red", ls="--", label=f"{key} = {constants[key].text}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("d")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    _save(fig, path)
    return True


def plans(reports: Sequence[CheckReport], path: Path) -> bool:
    """The contrast as bars: the risk each plan reaches (or cannot go below) at each (d, eps)."""
    rep = _report(reports, "contrast.separation")
    cases = [o for o in rep.outcomes if o.values] if rep else []
    if not cases:
        return False
    fig = _figure(1.6 + 1.8 * len(cases), 3.4)
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / len(PLANS)
    for j, (key, label) in enumerate(PLANS):
        heights = [max(float(o.values.get(key) or 0.0), 1e-18) for o in cases]
        ax.bar([i + j * width for i in range(len(cases))], heights, width, label=label)
    for i, o in enumerate(cases):
        ax.hlines(float(o.values.get("eps", 0) or 0), i - width, i + 0.8, colors="black", linestyles=":")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cases))],
                  [f"d = {o.values.get('d')}, eps = {o.values.get('eps')}" for o in cases], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("risk (three phases: reached; others: floor)")
    ax.set_title("The plans side by side (dotted: eps)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    _save(fig, path)
    return True


def risk(reports: Sequence[CheckReport], path: Path) -> bool:
    """Theorem 2: the population risk after the three-phase plan against eps, one line per d."""
    rep = _report(reports, "thm2.final")
    if rep is None:
        return False
    by_d: dict[float, list[tuple[float, float]]] = {}
    for o in rep.counted:
        params = rep.params.get(o.case, {})
        loss = o.values.get("loss")
        if {"d", "eps"} <= set(params) and isinstance(loss, (int, float)) and "eta1" not in params \
                and params.get("eta2_x", 1) == 1 and params.get("T_x", 1) == 1:
            by_d.setdefault(float(params["d"]), []).append((float(params["eps"]), max(float(loss), 1e-300)))
    if not by_d:
        return False
    fig = _figure(5.0, 3.6)
    ax = fig.add_subplot(1, 1, 1)
    for d, pts in sorted(by_d.items()):
        ax.plot(*zip(*sorted(pts)), "o-", ms=3, label=f"d = {d:g}")
    every = sorted({e for pts in by_d.values() for e, _ in pts})
    ax.plot(every, every, "k--", label="eps (the claim: risk below)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("eps")
    ax.set_ylabel("L_s(alpha', beta'') after the plan")
    ax.set_title("Theorem 2: risk after the three-phase plan", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    _save(fig, path)
    return True


def _leaves(certificate: Path) -> tuple[list, list[str]] | None:
    """(leaves as (box, smallest margin lower end), axis names) of a certificate file."""
    try:
        data = json.loads(certificate.read_text())
    except (OSError, ValueError):
        return None
    axes = data.get("axes") or ["ln d", "ln eps"]
    out = []
    for leaf in data.get("leaves", []):
        box = [float.fromhex(x) for x in leaf["box"]]
        lows = [float.fromhex(lo) for lo, _ in leaf.get("margins", {}).values()]
        out.append((box, min(lows) if lows else -math.inf))
    return out, axes


def tiling(certificate: Path, title: str, path: Path) -> bool:
    """A certificate's leaves in its first two coordinates, coloured by log10 of the smallest
    margin's lower end (red where a leaf is not certified); a projection when it has more."""
    found = _leaves(certificate)
    if not found or not found[0]:
        return False
    leaves, axes = found
    from matplotlib import cm, colors
    from matplotlib.patches import Rectangle

    good = [m for _, m in leaves if m > 0]
    norm = colors.Normalize(math.log10(min(good)) if good else -1, math.log10(max(good)) if good else 0)
    fig = _figure(5.2, 3.8)
    ax = fig.add_subplot(1, 1, 1)
    sx, sy = (math.log(10) if a.startswith("ln") else 1.0 for a in axes[:2])  # ln -> log10
    for box, m in sorted(leaves, key=lambda leaf: -leaf[1]):  # the smallest margin drawn last, on top
        x0, x1, y0, y1 = box[0] / sx, box[1] / sx, box[2] / sy, box[3] / sy
        face = cm.viridis(norm(math.log10(m))) if m > 0 else "tab:red"
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor=face, edgecolor="white", lw=0.2))
    ax.set_xlim(min(b[0] for b, _ in leaves) / sx, max(b[1] for b, _ in leaves) / sx)
    ax.set_ylim(min(b[2] for b, _ in leaves) / sy, max(b[3] for b, _ in leaves) / sy)
    ax.set_xlabel(axes[0].replace("ln ", "log10 "))
    ax.set_ylabel(axes[1].replace("ln ", "log10 "))
    extra = f", projected from {len(axes)} axes" if len(axes) > 2 else ""
    ax.set_title(f"{title}: {len(leaves)} leaves{extra}", fontsize=9)
    bar = fig.colorbar(cm.ScalarMappable(norm=norm, cmap="viridis"), ax=ax)
    bar.set_label("log10 smallest margin (lower end)")
    fig.tight_layout()
    _save(fig, path)
    return True


def draw(reports: Sequence[CheckReport], constants: Mapping[str, Constant], folder: Path,
         relative_to: Path, certificates: Sequence[tuple[str, Path]] = (),
         graph: Mapping[str, Obligation] | None = None,
         results: Sequence[str] = ()) -> list[tuple[str, str]]:
    """Draw every figure the run's outcomes allow into ``folder``; (title, path relative to
    ``relative_to``) of each figure drawn.  With the proof ledger's ``graph``, the blueprint of
    ``results`` comes first."""
    existed = folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    out = []

    def keep(title: str, name: str, made: bool) -> None:
        if made:
            out.append((title, (folder / name).relative_to(relative_to).as_posix()))

    if graph is not None and results:
        from . import blueprint, proof_ledger

        blueprint.paper(graph, results, proof_ledger.facts(reports), folder / "blueprint.png")
        keep("The proof ledger (blueprint)", "blueprint.png", True)
    for title, cert in certificates:
        stem = cert.stem
        keep(f"Certified tiling: {title} ({cert.name})", f"tiling-{stem}.png", tiling(cert, title, folder / f"tiling-{stem}.png"))
    keep("Floors against d: Propositions 2-4 and Theorem 1 (searched and certified points apart)",
         "floors.png", floors(reports, constants, folder / "floors.png"))
    keep("The plans side by side (the contrast)", "plans.png", plans(reports, folder / "plans.png"))
    keep("Theorem 2: risk after the plan against eps", "thm2-risk.png", risk(reports, folder / "thm2-risk.png"))
    if not out and not existed:
        folder.rmdir()  # nothing to draw for these checks: leave no empty folder behind
    return out

