"""The regression commands of ``verify``: ``explain``, ``deps``, ``slack``, ``diff`` and the
``--affected-by`` selection of ``verify all``.  Presentation only: the work is in
verify/dependencies.py, verify/slack.py and verify/diff.py.

Bad input (an unknown key, a value that is not an exact rational, reports of two profiles) raises
a ``ValueError`` subclass, which ``verify.cli.main`` prints as one line with exit code 2.
"""
from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Callable, Mapping

from .. import constants as constants_mod
from ..checks import Profile
from ..regression import dependencies as deps
from ..regression import diff as diff_mod
from ..regression import slack as slack_mod
from ..run import progress
from ..run.journal import code_fingerprint
from . import args as cli_args
from .io import console, load_constants
SLACK_REPORT = Path("reports") / "slack.md"  # relative to the project's root


def slack_link(path: Path, default_report: Path) -> list[str]:
    """The default report links the opt-in slack exhibit when it sits beside it."""
    slack = default_report.parent / SLACK_REPORT
    if path.resolve() != default_report or not slack.exists():
        return []
    return [f"How far each measured constant can move before a check that reads it fails (an exhibit, "
            f"computed on request by `verify slack --all --output {SLACK_REPORT.as_posix()}`): "
            f"[{SLACK_REPORT.as_posix()}]({SLACK_REPORT.as_posix()})."]


def stale_note(dep: deps.DependencyMap) -> None:
    """One line on stderr when the recorded map comes from other computing code."""
    if not dep.reads:
        print("verify: note: no recorded dependency map (verify deps --write makes one): every "
              "check counts as reading every constant", file=sys.stderr)
    elif dep.code != code_fingerprint():
        print("verify: note: the dependency map was recorded by other computing code; "
              "`verify deps` checks it, `verify deps --write` refreshes it", file=sys.stderr)


def affected_ids(args: argparse.Namespace, consts: Mapping[str, constants_mod.Constant]) -> list[str] | None:
    """The check ids ``verify all --affected-by/--affected-by-diff`` runs (None: no selection)."""
    if not args.affected_by and not args.affected_by_diff:
        return None
    if args.affected_by and args.affected_by_diff:
        raise deps.DependencyError("give --affected-by or --affected-by-diff, not both")
    if args.affected_by:
        keys = deps.check_keys([k.strip() for k in args.affected_by.split(",") if k.strip()], consts)
        if not keys:
            raise deps.DependencyError("--affected-by expects KEY[,KEY], got no key")
    else:
        keys = deps.changed_keys(constants_mod.load(Path(args.affected_by_diff)), consts)
    if not keys:
        print(f"no constant differs from {args.affected_by_diff}: no check to run")
        return []
    from ..results import REGISTRY

    dep = deps.load_map()
    stale_note(dep)
    ids = deps.affected(keys, deps.all_checks(REGISTRY), dep)
    print(f"affected by {', '.join(keys)}: " + (f"{len(ids)} checks ({deps.compact(ids)})" if ids
                                                 else "no check reads them: nothing to run"))
    return ids


# ------------------------------------------------------------------------------ explain

def cmd_explain(args: argparse.Namespace) -> int:
    from ..results import REGISTRY

    cli_args.check_outputs(args, ("json",))
    dep = deps.load_map()
    stale_note(dep)
    info = deps.explain(args.key, load_constants(args), REGISTRY, dep)
    if args.json:
        cli_args.write_text(args.json, json.dumps(info, indent=2), "--json")
        if args.json == cli_args.STDOUT:
            return 0
    out = [f"{info['key']} = {info['value']} (~{float(Fraction(info['exact'])):.6g})",
           f"  meaning: {info['meaning']}", f"  source:  {info['source']}",
           f"  domain:  {info['domain']}" + (f" ({info['domain_reason']})" if info["domain_reason"] else ""),
           f"read by {len(info['checks'])} checks (recorded in a run of the {dep.profile} profile):"]
    out += [f"  {r['check']:<30} {r['step']}: {r['claim']}" + ("" if r["recorded"] else " (not in the map)")
            for r in info["checks"]]
    out.append(f"proof steps ({len(info['proof_steps'])}):")
    out += [f"  {p['document']} {p['step']}: {_short(p['text'])}" for p in info["proof_steps"]]
    console().print("\n".join(out), highlight=False, markup=False, soft_wrap=True)
    return 0


def _short(text: str, width: int = 110) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


# ------------------------------------------------------------------------------ deps

def cmd_deps(args: argparse.Namespace) -> int:
    if args.source and args.report_json:
        raise deps.DependencyError("--report-json writes the report of a run: not with --from")
    cli_args.check_outputs(args, ("json", "report_json"))
    if args.source:
        dep = deps.from_json_report(Path(args.source))
    else:
        from ..report import provenance
        from .. import report
        from ..results import REGISTRY, by_id, proof_graph
        from ..run import runner

        checked = [r for r in REGISTRY if r.checked]
        consts = constants_mod.load()
        profile = Profile(deps.MAP_PROFILE)
        prov = provenance.record(constants_mod.source_label(), constants_mod.sha256(), [], profile.value)
        with progress.show(f"recording the reads ({deps.MAP_PROFILE} profile)", "cases") as board:
            reports = runner.run(checked, constants_mod.values(consts), profile, workers=args.workers,
                                 resolve=by_id, progress=board.update, notes=board.folder)
        dep = deps.from_reports(reports, deps.MAP_PROFILE, code_fingerprint())
        if args.report_json:
            cli_args.write_text(args.report_json,
                                report.json_report(reports, list(REGISTRY), consts, profile, prov,
                                                   graph=proof_graph()),
                                "--report-json")
    recorded = deps.load_map()
    changed = deps.differences(dep, recorded)
    out = console(stderr=args.json == cli_args.STDOUT)
    if args.json:
        cli_args.write_text(args.json, deps.map_json(dep, changed, bool(args.write)), "--json")
    out.print(_map_table(dep, changed))
    if args.write:
        deps.MAP_FILE.write_text(deps.dumps(dep))
        out.print(f"wrote {deps.MAP_FILE.name} ({len(dep.reads)} checks)", highlight=False)
        return 0
    for cid in changed:
        out.print(f"{cid}: recorded {list(recorded.reads.get(cid, ['(absent)']))}, "
                  f"now {list(dep.reads.get(cid, ['(absent)']))}", highlight=False, markup=False)
    out.print("the recorded map is up to date" if not changed else
              f"{len(changed)} checks differ from the recorded map: run verify deps --write",
              highlight=False)
    return 1 if changed else 0


def _map_table(dep: deps.DependencyMap, changed: list[str]):
    """The map as a table: each check and the constants it read (a mark where it differs from
    the recorded map)."""
    from rich.table import Table

    table = Table(title=f"Which constants each check reads (a run of the {dep.profile} profile)")
    table.add_column("check")
    table.add_column("constants it reads", overflow="fold")
    for cid, keys in sorted(dep.reads.items()):
        mark = " (differs from the recorded map)" if cid in changed else ""
        table.add_row(cid, (", ".join(keys) or "none") + mark)
    return table


# ------------------------------------------------------------------------------ slack

def cmd_slack(args: argparse.Namespace) -> int:
    from ..results import REGISTRY

    if bool(args.key) == bool(args.all):
        raise deps.DependencyError("give one KEY or --all")
    if (args.lo is None) != (args.hi is None):
        raise deps.DependencyError("--lo and --hi go together")
    cli_args.check_outputs(args, ("output", "json"))
    consts = load_constants(args)
    keys = deps.check_keys([args.key] if args.key else list(slack_mod.MEASURED), consts)
    lo = hi = None
    if args.lo is not None:
        lo, hi = (constants_mod.parse_value(v, f"--{n}") for n, v in (("lo", args.lo), ("hi", args.hi)))
        if lo >= hi:
            raise deps.DependencyError(f"--lo must be below --hi, got [{lo}, {hi}]")
    rtol = constants_mod.parse_value(args.rtol, "--rtol")
    if not 0 < rtol < 1:
        raise deps.DependencyError(f"--rtol must be in (0, 1), got {args.rtol}")
    dep = deps.load_map()
    stale_note(dep)
    checks = deps.all_checks(REGISTRY)
    only = [x.strip() for x in (args.only or "").split(",") if x.strip()]
    unknown = set(only) - {c.id for c in checks} - {r.id for r in REGISTRY}
    if unknown:
        raise deps.DependencyError(f"--only: unknown result or check: {', '.join(sorted(unknown))}")
    options = {k: v for k, v in {"d": args.d, "eps": args.eps}.items() if v}
    found = []
    out = console(stderr=args.json == cli_args.STDOUT)
    with progress.show("slack", "probes") as board:
        for key in keys:
            readers = [c for c in checks if c.id in dep.readers(key, checks)
                       and (not only or c.id in only or c.id.partition(".")[0] in only)]

            def heard(probes: int, text: str) -> None:
                board.update(sum(s.probes for s in found) + probes)
                progress.note(text)

            try:
                with progress.task(f"slack {key}", board.folder):
                    s = slack_mod.slack(key, constants_mod.values(consts), readers,
                                        Profile(args.profile), options, lo, hi, rtol, heard)
            except slack_mod.NoPassingValue as exc:
                print(f"verify: {exc}", file=sys.stderr)
                return 1
            found.append(s)
            out.print(slack_mod.line(s), highlight=False, markup=False, soft_wrap=True)
    if args.json:
        cli_args.write_text(args.json, json.dumps([slack_mod.as_dict(s) for s in found], indent=2) + "\n",
                            "--json")
    if args.output:
        cli_args.write_text(args.output, slack_mod.markdown(found, _slack_command(args), Profile(args.profile)),
                            "--output")
        out.print(f"wrote {args.output}", highlight=False)
    return 0


def _slack_command(args: argparse.Namespace) -> str:
    parts = ["verify slack", "--all" if args.all else args.key, "--profile", args.profile]
    if args.only:
        parts += ["--only", args.only]
    if args.d:
        parts += ["--d", ",".join(map(str, args.d))]
    if args.eps:
        parts += ["--eps", ",".join(f"{e:g}" for e in args.eps)]
    return " ".join(parts)


# ------------------------------------------------------------------------------ diff

def cmd_diff(args: argparse.Namespace) -> int:
    if not args.factor > 1:
        raise deps.DependencyError(f"--factor must be > 1, got {args.factor:g}")
    cli_args.check_outputs(args, ("json",))
    old, new = diff_mod.load_report(Path(args.old)), diff_mod.load_report(Path(args.new))
    result = diff_mod.compare(old, new, args.factor)
    if result["provenance_warning"]:
        print(f"verify: {result['provenance_warning']}", file=sys.stderr)
    if args.json:
        cli_args.write_text(args.json, diff_mod.to_json(result), "--json")
    if not args.json or args.json != cli_args.STDOUT:
        print(diff_mod.markdown(result, Path(args.old).name, Path(args.new).name))
    return result["exit_code"]


# ------------------------------------------------------------------------------ parsers

def add_affected_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--affected-by", metavar="KEY[,KEY]",
                   help="run only the checks that read one of these constants (recorded map)")
    p.add_argument("--affected-by-diff", metavar="OLD.toml",
                   help="run only the checks that read a constant whose value differs between "
                        "OLD.toml and the constants of this run")


def add_parsers(sub, command: Callable) -> None:
    """Register explain, deps, slack and diff; ``command(sub, name, purpose, example)`` makes a
    subcommand (its help says what it is for, with an example)."""
    ex = command(sub, "explain", "a constant's value, meaning, source, and the checks and proof "
                 "steps that read it", "verify explain thm1.c3")
    ex.add_argument("key", help="a constant's key (see proofs/constants.toml)")
    cli_args.add_constants(ex)
    cli_args.add_json(ex, "the explanation")
    ex.set_defaults(handler=cmd_explain)

    de = command(sub, "deps", "record which checks read which constants (a run of the quick "
                 "profile, always: the map's profile), show that map as a table and compare it "
                 "with the recorded one, or --write it", "verify deps --workers 2")
    de.add_argument("--from", dest="source", metavar="REPORT.json",
                    help="take the reads from a `verify all --json` report instead of running")
    de.add_argument("--write", action="store_true", help="write verify/regression/dependency_map.json")
    de.add_argument("--workers", type=cli_args.workers, default=1, help="processes for the quick-profile run")
    cli_args.add_json(de, "the map (each check and the constants it reads)")
    de.add_argument("--report-json", metavar="PATH",
                    help="also write the run's JSON report to PATH (a baseline for verify diff)")
    de.set_defaults(handler=cmd_deps)

    sl = command(sub, "slack", "the largest (or smallest) value of a constant for which every "
                 "check reading it still passes, on the quick profile's cases unless --profile "
                 "says otherwise", "verify slack thm1.c3 --d 9")
    sl.add_argument("key", nargs="?", help="a constant's key (or --all)")
    sl.add_argument("--all", action="store_true", help="every measured constant: " + ", ".join(slack_mod.MEASURED))
    sl.add_argument("--d", type=cli_args.d_range, help="values of d: N, A-B or a comma list")
    sl.add_argument("--eps", type=cli_args.eps_list, help="comma list of eps in (0, 1)")
    sl.add_argument("--lo", help="lower end of the bracket (an exact rational: 1/7000)")
    sl.add_argument("--hi", help="upper end of the bracket")
    sl.add_argument("--only", metavar="ID[,ID]", help="only these of the reading checks (a check "
                    "or result id): how far before the conclusion itself breaks")
    sl.add_argument("--rtol", default="1/100", help="relative width at which bisection stops (1/100)")
    sl.add_argument("--profile", choices=[x.value for x in Profile], default="quick",
                    help="the profile whose cases are probed (default quick)")
    cli_args.add_constants(sl)
    cli_args.add_output(sl, "write the slack table as Markdown")
    cli_args.add_json(sl, "the slacks")
    sl.set_defaults(handler=cmd_slack)

    di = command(sub, "diff", "what changed between two JSON reports; exit 1 on a check that "
                 "went from pass to fail or undecided", "verify diff old.json new.json")
    di.add_argument("old", help="the earlier JSON report (verify all --json)")
    di.add_argument("new", help="the later JSON report")
    di.add_argument("--factor", type=float, default=diff_mod.DEFAULT_FACTOR,
                    help="report worst margins that moved by more than this factor (2)")
    cli_args.add_json(di, "the differences (instead of Markdown on standard output)")
    di.add_argument("--markdown", action="store_true", help="print Markdown (the default)")
    di.set_defaults(handler=cmd_diff)
