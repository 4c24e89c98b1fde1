"""The certified-mode commands (Arb balls through python-flint, an optional extra): ``verify
certify``, ``verify recheck``, ``verify eval --certified`` and the selection behind
``--certified``.  Presents only: the enclosures come from ``verify.engine.certified`` and the
branch and bound from ``verify.certify``.  Without python-flint each prints one line, exit 2."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Callable, Sequence

from rich.console import Console
from rich.table import Table

from . import constants as constants_mod
from . import runner
from .checks import Evidence


def certified_ids(ids: Sequence[str] | None) -> list[str]:
    """With --certified: the checks of certified evidence among the selection (python-flint
    required: one line and exit 2 without it)."""
    from .engine.certified import require_flint

    require_flint()
    try:
        chosen = runner.select(ids)
    except KeyError as exc:
        raise ValueError(f"unknown result or check: {exc.args[0]} (see `verify list`)") from None
    out = [c.id for r in chosen for c in r.checks if c.evidence is Evidence.CERTIFIED
           and (not ids or r.id in ids or c.id in ids)]
    if not out:
        raise ValueError("no certified check in the selection")
    return out


def cmd_eval(args: argparse.Namespace, console: Console) -> int:
    """Loss and gradient as Arb balls (midpoint +- radius, both printed as decimal strings)."""
    from .engine.certified import require_flint

    require_flint()
    from .engine.certified.balls import bits_for, precision
    from .engine.certified.symmetric import ball_evaluate, ball_state

    bits = bits_for(args.dps)
    with precision(bits):
        from flint import arb

        gap = arb(args.alpha_s) - arb(args.alpha_j)
        bs, bj = arb(args.beta_s), arb(args.beta_j)
    balls = ball_evaluate(ball_state(args.d, gap, bits), bs, bj)
    with precision(bits + 64):
        out = {}
        for key, ball in balls.items():
            mid = ball.mid().str(args.dps, radius=False)
            # the printed midpoint is rounded: its distance to the ball's centre joins the
            # radius, and the radius is printed rounded up (x 1.01 before 3 digits)
            rad = (ball.rad() + abs(ball.mid() - arb(mid))) * arb("1.01")
            out[key] = {"mid": mid, "rad": rad.upper().str(3, radius=False)}
    if args.json:
        print(json.dumps({"d": args.d, "dps": args.dps, "evidence": "certified", **out}))
        return 0
    table = Table(title=f"Population loss and gradient, d = {args.d}: Arb enclosures ({bits} bits)")
    table.add_column("quantity")
    table.add_column("midpoint", justify="right", overflow="fold")
    table.add_column("radius (rigorous)", justify="right")
    for key, ball in out.items():
        table.add_row(key, ball["mid"], ball["rad"])
    console.print(table)
    return 0


def cmd_certify(args: argparse.Namespace, console: Console, load_constants: Callable) -> int:
    """Branch and bound over a box of (d, eps) (and u, v for the groups over the whole
    hypothesis range); writes a certificate (certified evidence).  The boxes of each generation
    run on the executor the flags ask for; with --journal a stopped run resumes."""
    from .engine.certified import require_flint

    require_flint()
    import sys

    from . import executors
    from .certify import box_journal, boxes, certificate, statements

    tail = statements.axes(args.group)[1] == "tau"  # eps from 0: the limit eps -> 0 included
    if not (args.d[0] < args.d[1] and (0 == args.eps[0] if tail else 0 < args.eps[0])
            and args.eps[0] < args.eps[1] < 1):
        raise ValueError("need --d LO HI with LO < HI and --eps LO HI with 0 < LO < HI < 1 "
                         "(LO = 0 for the -tail groups)")
    consts = constants_mod.values(load_constants(args))
    if tail:
        from .certify.eps_tail import tail_box

        u = tuple(args.u) if args.u else (0.0, float(consts["thm2.eta1_scale"]))
        root = tail_box(*args.d, args.eps[1], u=u, v=tuple(args.v or (0.0, 1.0)))
    elif len(statements.axes(args.group)) == 4:
        u = tuple(args.u) if args.u else (0.0, float(consts["thm2.eta1_scale"]))
        root = boxes.hypothesis_box(*args.d, *args.eps, u=u, v=tuple(args.v or (0.0, 1.0)))
    elif args.u or args.v:
        raise ValueError(f"--u and --v belong to the groups over four axes, not {args.group}")
    else:
        root = boxes.log_box(*args.d, *args.eps)
    journal = None
    if args.journal:
        key = box_journal.run_key(args.group, statements.axes(args.group), root, consts,
                                  args.bits, "centred", args.max_depth)
        try:
            journal = box_journal.BoxJournal(Path(args.journal), key)
        except Exception as exc:  # JournalError: another run's journal
            raise ValueError(str(exc)) from None
    try:
        pool = executors.choose(args.workers, args.scheduler, args.cluster, keep=True)
    except executors.ExecutorError as exc:
        raise ValueError(str(exc)) from None

    def progress(run) -> None:
        if args.progress:
            print(f"{run.judged} boxes judged, {len(run.leaves)} leaves "
                  f"({sum(leaf.status == 'certified' for leaf in run.leaves)} certified), "
                  f"{run.cpu_seconds:.0f} CPU-s, {run.seconds_so_far():.0f} s", file=sys.stderr,
                  flush=True)

    with pool:
        run = boxes.branch_and_bound(args.group, root, consts, args.bits, args.max_depth,
                                     args.seconds, args.max_boxes,
                                     executor=None if args.workers == 1 and not
                                     (args.cluster or args.scheduler) else pool,
                                     journal=journal, progress=progress)
    certificate.write(run, consts, Path(args.out))
    verdict = {True: "CERTIFIED", False: "FAILS (counterexample region)", None: "undecided"}[run.status]
    console.print(f"{args.group}: {verdict}: {run.summary()}; {run.judged} boxes judged, "
                  f"{run.cpu_seconds:.1f} CPU-s; certificate {args.out}", soft_wrap=True)
    return 0 if run.status else 1


def cmd_recheck(args: argparse.Namespace, console: Console) -> int:
    """Re-verify a certificate leaf by leaf and check that its leaves tile the box."""
    from .engine.certified import require_flint

    require_flint()
    from .certify.certificate import recheck

    try:
        data = json.loads(Path(args.certificate).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read certificate {args.certificate}: {exc}") from None
    result = recheck(data, args.workers)
    for note in result.notes:
        console.print(f"note: {note}", soft_wrap=True)
    for problem in result.problems:
        console.print(f"REJECTED: {problem}", soft_wrap=True)
    if result.ok:
        console.print(f"certificate holds: {result.leaves} leaves re-verified, the box is covered")
    return 0 if result.ok else 1


def add_parsers(sub, command: Callable, load: Callable) -> None:
    """Register certify and recheck; ``command(sub, name, purpose, example)`` makes a subcommand
    and ``load(args)`` reads the constants the flags name."""
    ce = command(sub, "certify", "certify a claim group over a box by branch and bound, writing a "
                 "certificate: prop1, thm2, cor1 over (d, eps); thm2-4d, cor1-4d over (d, eps, "
                 "u = eta1/sqrt(d), v = eta2_min/eta2), every step size the statements allow; "
                 "thm2-4d-tail, cor1-4d-tail the same for every eps in (0, --eps HI]",
                 "verify certify prop1 --d 2 10 --eps 0.1 0.5 --out prop1.cert.json")
    ce.add_argument("group", choices=["prop1", "thm2", "cor1", "thm2-4d", "cor1-4d", "thm2-4d-tail",
                                           "cor1-4d-tail"])
    ce.add_argument("--d", type=float, nargs=2, metavar=("LO", "HI"), required=True)
    ce.add_argument("--eps", type=float, nargs=2, metavar=("LO", "HI"), required=True)
    ce.add_argument("--u", type=float, nargs=2, metavar=("LO", "HI"),
                    help="eta1/sqrt(d) (4-D groups; default 0 to thm2.eta1_scale, 0 the limit)")
    ce.add_argument("--v", type=float, nargs=2, metavar=("LO", "HI"),
                    help="eta2_min/eta2 (4-D groups; default 0 to 1, 0 the limit eta2 -> inf)")
    ce.add_argument("--bits", type=int, default=96, help="Arb precision in bits (default 96)")
    ce.add_argument("--max-depth", type=int, default=24)
    ce.add_argument("--seconds", type=float, help="stop splitting after this long (rest undecided)")
    ce.add_argument("--max-boxes", type=int, help="stop after judging this many boxes (rest undecided)")
    ce.add_argument("--workers", type=int, default=1,
                    help="judge the boxes in this many processes (or Dask workers with --cluster)")
    ce.add_argument("--cluster", metavar="local", help="run on a Dask LocalCluster of --workers")
    ce.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS")
    ce.add_argument("--journal", metavar="PATH",
                    help="keep every judged box in PATH; a run stopped and started again with "
                    "the same arguments resumes from it")
    ce.add_argument("--progress", action="store_true", help="print progress lines on stderr")
    ce.add_argument("--out", required=True, metavar="FILE", help="certificate (JSON)")
    ce.add_argument("--constants", metavar="FILE")
    ce.add_argument("--set", action="append", metavar="KEY=VALUE")
    ce.set_defaults(handler=lambda args, console: cmd_certify(args, console, load))
    rc = command(sub, "recheck", "re-verify a certificate written by 'verify certify', leaf by leaf, "
                 "and check that its leaves cover the box", "verify recheck prop1.cert.json")
    rc.add_argument("certificate")
    rc.add_argument("--workers", type=int, default=1)
    rc.set_defaults(handler=cmd_recheck)
