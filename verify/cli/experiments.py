"""``verify experiments``: rerun Section 5 under the protocol (proofs/experiments.md) and write
Table 1, Figure 3 and the claims.

Two stages, one journal (``--output``/journal.jsonl: every finished run; the same command resumes
from it, and a run asked for by both stages is computed once):

* ``--stage tune``: the protocol's tuning (every plan's grid of free steps on the held-out seeds
  50-54); writes ``tuning.json`` and ``tuning.png``; with ``--write-chosen`` it freezes the
  choice into the package's ``config/chosen.toml`` for this profile;
* ``--stage grid`` (the default): Table 1's seeds at the configured scale and the
  initialisation map (``--map-seeds`` seeds at std 0, 0.01, 0.1) with the frozen steps; writes
  ``table1.md``, ``table1.json`` (with the tuning curves when the journal holds the tuning),
  ``figure3.png``, ``tuning.png``, ``claims.md`` (every claim at every scale, when the grid
  has every task and plan) and ``claims.json`` (each claim's verdict on Table 1's seeds: the
  Section 5 line of REPORT.md reads it).

Bad input: one line on stderr, exit 2 (raised as ValueError, reported by ``verify.cli.app``).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..experiments import PLANS, TASK_NAMES
from . import args as cli_args

# numpy and the models are imported by the handler only, so that `verify --help` starts at once
SEEDS = {"quick": 3, "default": 50}
DEFAULT_OUT = Path("reports") / "experiments"


def _names(allowed, what: str):
    def parse(text: str) -> list[str]:
        names = [n.strip() for n in text.split(",") if n.strip()]
        unknown = [n for n in names if n not in allowed]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(unknown) or '(none)'}; choose from {', '.join(allowed)}")
        return names
    return parse


def add_parsers(sub, command) -> None:
    """Register the subcommand on ``verify``'s subparsers; ``command(sub, name, purpose,
    example)`` makes a subcommand whose help says what it is for, with an example."""
    ex = command(sub, "experiments", "rerun Section 5: six tasks x seven training plans over "
                 "seeds, on the default profile (the paper's sizes) unless --profile says "
                 "otherwise; writes Table 1 (Markdown, JSON) and Figure 3 (PNG)",
                 "verify experiments --profile quick")
    ex.add_argument("--tasks", type=_names(list(TASK_NAMES), "task"), default=list(TASK_NAMES),
                    help=f"comma list (default all: {','.join(TASK_NAMES)})")
    ex.add_argument("--plans", type=_names(list(PLANS), "plan"), default=list(PLANS),
                    help=f"comma list (default all: {','.join(PLANS)})")
    ex.add_argument("--seeds", type=cli_args.positive, help="Table 1's seeds 0..N-1 (quick 3, default 50)")
    ex.add_argument("--map-seeds", type=int, metavar="N",
                    help="the init map's seeds 0..N-1 at each scale (default: the protocol's, "
                         "proofs/experiments.md; 0: no map)")
    ex.add_argument("--stage", choices=("grid", "tune"), default="grid",
                    help="grid (default): Table 1 and the init map with the frozen steps; tune: "
                         "the protocol's tuning on seeds 50-54")
    ex.add_argument("--write-chosen", action="store_true",
                    help="with --stage tune: freeze the choice into the --chosen file")
    ex.add_argument("--chosen", metavar="FILE", type=Path,
                    help="the frozen step sizes (default: the package's config/chosen.toml)")
    ex.add_argument("--workers", type=cli_args.workers, default=1,
                    help="processes to spread the runs over (with --cluster local: Dask workers)")
    ex.add_argument("--scheduler", metavar="ADDRESS",
                    help="run on the Dask scheduler at ADDRESS (tcp://HOST:8786); extra 'cluster'")
    ex.add_argument("--cluster", choices=["local"],
                    help="start a local Dask cluster of --workers processes for the run")
    cli_args.add_output(ex, f"output directory (default {DEFAULT_OUT.as_posix()})", old=("--out",),
                        metavar="DIR")
    ex.set_defaults(output=str(DEFAULT_OUT))
    ex.add_argument("--profile", choices=("quick", "default"), default="default",
                    help="quick: small d and few steps (CI); default (the default): the paper's sizes")
    ex.set_defaults(handler=handle)


def handle(args: argparse.Namespace, console) -> int:
    from ..experiments import protocol
    from ..experiments.grid import open_journal
    from ..run import executors, progress
    from ..run.journal import JournalError

    if args.map_seeds is None:
        args.map_seeds = len(protocol.MAP_SEEDS)
    cli_args.check_outputs(args, files=(), folders=("output",))
    out = Path(args.output)
    if args.map_seeds < 0:
        raise ValueError(f"--map-seeds: expected 0 or more, got {args.map_seeds}")
    if args.write_chosen and args.stage != "tune":
        raise ValueError("--write-chosen goes with --stage tune")
    out.mkdir(exist_ok=True)
    try:
        journal = open_journal(out / "journal.jsonl", args.profile)
        pool = executors.choose(args.workers, args.scheduler, args.cluster)
    except (JournalError, executors.ExecutorError) as exc:
        raise ValueError(str(exc)) from None
    with pool, progress.show(f"experiments ({args.stage})", "runs") as board:
        if args.stage == "tune":
            return _tune(args, out, pool, journal, board.update, console)
        return _grid(args, out, pool, journal, board.update, console)


def _tune(args, out: Path, pool, journal, progress, console) -> int:
    from ..experiments import figure, protocol, study
    from ..experiments.run import settings

    tuning = study.tune(args.tasks, args.profile, pool, journal, progress, args.plans)
    (out / "tuning.json").write_text(json.dumps(tuning, indent=1, sort_keys=True) + "\n")
    figure.draw_tuning(tuning, out / "tuning.png", f"Tuning (protocol step 2): mean final train "
                       f"loss over seeds 50-54, profile {args.profile}")
    chosen = study.chosen_of(tuning)
    for task, plans in chosen.items():
        console.print(f"{task}: " + "; ".join(
            f"{p} " + ", ".join(f"{k}={v:.4g}" for k, v in protocol.steps(p, settings(task, args.profile), e).items())
            for p, e in plans.items()), markup=False, highlight=False)
    if args.write_chosen:
        path = args.chosen or protocol.chosen_path()
        every = protocol.read_chosen(path)
        merged = every.setdefault(args.profile, {})
        for task, plans in chosen.items():
            merged.setdefault(task, {}).update({p: list(e) for p, e in plans.items()})
        path.write_text(protocol.chosen_text(every))
        console.print(f"froze the choice for profile {args.profile} in {path}")
    console.print(f"wrote {out / 'tuning.json'}, {out / 'tuning.png'}")
    return 0


def _grid(args, out: Path, pool, journal, progress, console) -> int:
    from ..experiments import figure, protocol, study, table
    from ..experiments.run import settings

    chosen = protocol.load_chosen(args.profile, args.chosen)
    for task in args.tasks:
        for plan in args.plans:
            protocol.frozen(task, plan, args.profile, chosen)  # a missing choice: one line
    tuning = study.recorded_tuning(args.tasks, args.profile, journal, args.plans)
    if tuning is not None:
        fresh = study.chosen_of(tuning)
        stale = [f"{t}/{p}" for t in args.tasks for p in args.plans if fresh[t][p] != chosen[t][p]]
        if stale:
            raise ValueError("config/chosen.toml disagrees with the tuning in the journal for "
                             + ", ".join(stale) + ": rerun --stage tune --write-chosen")
    seeds = list(range(args.seeds or SEEDS[args.profile]))
    map_seeds = list(range(args.map_seeds))
    records, maps = study.run_study(args.tasks, args.plans, args.profile, seeds, map_seeds, chosen,
                                    pool, journal, progress)
    cfgs = {t: settings(t, args.profile) for t in args.tasks}
    data = table.build(records, args.profile, len(seeds), cfgs, chosen, maps, len(map_seeds), tuning)
    markdown = table.to_markdown(data)
    (out / "table1.md").write_text(markdown)
    (out / "table1.json").write_text(table.to_json(data))
    figure.draw(records, out / "figure3.png", f"Figure 3 (reproduction): median over "
                f"{len(seeds)} seeds (runs that did not diverge), profile {args.profile}")
    written = [out / "table1.md", out / "table1.json", out / "figure3.png"]
    if tuning is not None:
        figure.draw_tuning(tuning, out / "tuning.png", f"Tuning (protocol step 2): mean final "
                           f"train loss over seeds 50-54, profile {args.profile}")
        written.append(out / "tuning.png")
    if set(args.tasks) == set(TASK_NAMES) and set(args.plans) == set(PLANS):
        (out / "claims.md").write_text(claims_markdown(records, args.profile, len(seeds), maps,
                                                       len(map_seeds)))
        (out / "claims.json").write_text(claims_json(records, args.profile, len(seeds)))
        written += [out / "claims.md", out / "claims.json"]
    console.print(markdown, markup=False, highlight=False)
    console.print("wrote " + ", ".join(str(p) for p in written)
                  + ("" if written[-1].name == "claims.json" else " (claims.md needs every task and plan)"))
    return 0


VERDICT = {True: "pass", False: "FAIL", None: "undecided"}


def claims_json(records, profile: str, seeds: int) -> str:
    """Each registered claim's verdict on Table 1's runs (a claim judged per task holds when it
    holds on every task, fails when it fails on one): what REPORT.md's Section 5 line quotes."""
    from ..results import experiments as claims  # the CLI presents a result's verdicts

    rows = claims.judge_grid(records, f"{profile} grid, Table 1")
    out: dict[str, dict] = {}
    for check_id, task, outcome in rows:
        entry = out.setdefault(check_id, {"verdict": "pass", "cases": {}})
        entry["cases"][task or "all"] = VERDICT[outcome.passed]
        if outcome.passed is False:
            entry["verdict"] = "FAIL"
        elif outcome.passed is None and entry["verdict"] == "pass":
            entry["verdict"] = "undecided"
    grid = f"{profile} grid ({seeds} seeds, Table 1's init scale)"
    return json.dumps({"grid": grid, "claims": out}, indent=1, sort_keys=True) + "\n"


def claims_markdown(records, profile: str, seeds: int, maps=None, map_seeds: int = 0) -> str:
    """The claims of the registered ``experiments`` checks (which run the quick grid) judged on
    Table 1's runs and on the init map's runs at each scale: one verdict table, then each
    set's details."""
    from ..experiments.run import settings
    from ..results import experiments as claims  # the CLI presents a result's verdicts

    sets = [(f"std {std:g}, {map_seeds} seeds", m) for std, m in sorted((maps or {}).items())]
    stds = sorted({settings(t, profile)["init_std"] for t in records})
    sets.append((f"Table 1: std {', '.join(f'{s:g}' for s in stds)}, {seeds} seeds", records))
    judged = [(name, claims.judge_grid(recs, f"{profile} grid, {name}")) for name, recs in sets]
    verdict = VERDICT
    lines = [f"# The claims of Section 5 ({profile} grid)", "",
             "The tests of `verify check experiments` (`verify/results/experiments.py`: Student-t "
             "bounds over seeds with an indifference zone and its power at an SD fixed in advance, paired "
             "differences, a Wilcoxon signed-rank lag test with Pratt's zeros and its exact null, "
             "exact Clopper-Pearson bounds on error rates; level 5%), run on the records of `verify experiments` under the protocol "
             "(proofs/experiments.md): the init map at each scale, and Table 1's seeds; evidence "
             "statistical, reconstructed claims. At std 0, A and A(1x)→O are not run (their "
             "gradient vanishes at zero), so the simple-plans claim is judged on O and "
             "O(1x)→A(1x) there.", "", "Claims:", ""]
    lines += [f"- `{c.id}`: {c.claim}" for c in claims.CHECKS]
    lines += ["", "## Verdicts by initialisation scale", "",
              "| check | task | " + " | ".join(name for name, _ in judged) + " |",
              "|---|---|" + "---|" * len(judged)]
    for i, (check_id, task, _) in enumerate(judged[0][1]):
        row = [verdict[rows[i][2].passed] for _, rows in judged]
        lines.append(f"| `{check_id}` | {task or 'all'} | " + " | ".join(row) + " |")
    for name, rows in judged:
        lines += ["", f"## {name}", "", "| check | case | verdict | detail |", "|---|---|---|---|"]
        lines += [f"| `{check_id}` | {outcome.case} | {verdict[outcome.passed]} | {outcome.detail} |"
                  for check_id, _, outcome in rows]
    return "\n".join(lines + [""])
