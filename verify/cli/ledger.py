"""``verify ledger``: each result's proof as a tree of obligations with their standing and range,
as declared (every check assumed to pass) or from a run's JSON report; its blueprints."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import args as cli_args
from .args import UsageError

BLUEPRINT_DIR = Path("proofs") / "blueprint"


def add_parsers(sub: argparse._SubParsersAction, command) -> None:
    p = command(sub, "ledger", "each result's proof as a tree of obligations: what discharges each "
                "(symbolic, certified and checked independently, certified by the engine only, a "
                "hand proof, numeric, statistical, a search, or open), its range and its standing, "
                "and each result's verdict composed from it (a result is proved over a range only "
                "when every obligation on its path is); statuses as declared, or from a run's JSON "
                "report", "verify ledger thm2 --from report.json")
    p.add_argument("result", nargs="?", metavar="RESULT",
                   help="a result (thm2) or any obligation (thm2.by-boxes); default: every result")
    p.add_argument("--from", dest="source", metavar="REPORT.json",
                   help="the standings of a run (`verify all --json report.json`) instead of as declared")
    p.add_argument("--figures", metavar="DIR",
                   help=f"also draw the blueprints: one PNG per result (as declared) and paper.png "
                        f"(the standings shown), as in {BLUEPRINT_DIR}/")
    cli_args.add_json(p, "the ledger")
    p.set_defaults(handler=cmd_ledger)


def _run_facts(source: str | None):
    if source is None:
        return None
    from ..report.proof_ledger import facts_from_json

    try:
        data = json.loads(Path(source).read_text())
    except (OSError, ValueError) as exc:
        raise UsageError(f"--from {source}: not a readable JSON report ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("checks"), list):
        raise UsageError(f"--from {source}: not a `verify all --json` report (no checks)")
    return facts_from_json(data)


def cmd_ledger(args: argparse.Namespace) -> int:
    from ..ledger import evaluate
    from ..report import proof_ledger
    from ..results import REGISTRY, proof_graph
    from ..ledger.stated import as_stated

    cli_args.check_outputs(args, ("json",))
    graph = proof_graph()
    if args.result is not None and args.result not in graph:
        raise UsageError(f"unknown result or obligation: {args.result} (see `verify ledger`)")
    if args.figures:
        cli_args.writable(args.figures, "--figures", directory=True)
    run = _run_facts(args.source)
    roots = [args.result] if args.result else [r.id for r in REGISTRY]
    if args.json:
        data = proof_ledger.ledger_json(graph, REGISTRY, run)
        if args.result:
            keep = set(_under(graph, args.result))
            if as_stated(args.result) in graph:  # and the node of its statement as the paper words it
                keep |= set(_under(graph, as_stated(args.result)))
            data["nodes"] = {k: v for k, v in data["nodes"].items() if k in keep}
            data["results"] = {k: v for k, v in data["results"].items() if k == args.result}
        cli_args.write_text(args.json, json.dumps(data, indent=2, ensure_ascii=False), "--json")
    if args.json != cli_args.STDOUT:
        standing = evaluate(graph, run)
        found = proof_ledger.verdicts(graph, REGISTRY, run, standing)
        stated = proof_ledger.stated_verdicts(graph, REGISTRY, run, standing)
        said = "from " + args.source if args.source else "as declared (every check assumed to pass)"
        print(f"Proof ledger, standings {said}:")
        for root in roots:
            if root in found:
                print(f"\n{root}: {found[root].text}")
            seen: set[str] = set()
            print("\n".join(proof_ledger.tree_lines(graph, root, standing, seen)))
            if root in stated:
                print(f"{root}, as the paper states it: {stated[root].text}")
                print("\n".join(proof_ledger.tree_lines(graph, as_stated(root), standing, seen)))
        if not args.result:
            print("\n" + proof_ledger.headline_counts(found) + ".")
            if stated:
                print("As the paper states them (their lost constants existential): "
                      + proof_ledger.headline_counts({**found, **stated}) + ".")
    if args.figures:
        _figures(graph, REGISTRY, run, Path(args.figures))
    return 0


def _under(graph, root: str) -> list[str]:
    from ..report.blueprint import reachable

    return reachable(graph, [root])


def _figures(graph, results, run, folder: Path) -> None:
    from ..report import blueprint

    folder.mkdir(parents=True, exist_ok=True)
    for result in results:
        blueprint.per_result(graph, result.id, folder)
    blueprint.paper(graph, [r.id for r in results], run, folder / "paper.png")
    print(f"wrote {len(results) + 1} blueprints to {folder}/")
