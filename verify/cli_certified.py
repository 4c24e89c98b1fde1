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
    """Branch and bound over a box of (d, eps); writes a certificate (certified evidence)."""
    from .engine.certified import require_flint

    require_flint()
    from .certify import boxes, certificate

    if not (args.d[0] < args.d[1] and 0 < args.eps[0] < args.eps[1] < 1):
        raise ValueError("need --d LO HI with LO < HI and --eps LO HI with 0 < LO < HI < 1")
    consts = constants_mod.values(load_constants(args))
    run = boxes.branch_and_bound(args.group, boxes.log_box(*args.d, *args.eps), consts,
                                 args.bits, args.max_depth, args.seconds)
    certificate.write(run, consts, Path(args.out))
    verdict = {True: "CERTIFIED", False: "FAILS (counterexample region)", None: "undecided"}[run.status]
    console.print(f"{args.group}: {verdict}: {run.summary()}; certificate {args.out}", soft_wrap=True)
    return 0 if run.status else 1


def cmd_recheck(args: argparse.Namespace, console: Console) -> int:
    """Re-verify a certificate leaf by leaf and check that its leaves tile the box; say what it
    proves and compare that with the registered check's box and the constants file.  With
    ``--independent`` the leaves are judged by ``verify.checker`` (its own derivation, no code
    of the engine) instead of re-running the engine."""
    from .engine.certified import require_flint

    require_flint()
    from .certify.certificate import recheck
    from .certify.outcomes import registered_box
    from .checker import recheck as checker

    try:
        data = json.loads(Path(args.certificate).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read certificate {args.certificate}: {exc}") from None
    try:
        cert = checker.read(data)
    except checker.NotACertificate as exc:
        if args.independent or not isinstance(data, dict) or "leaves" not in data:
            raise ValueError(f"{args.certificate}: {exc}") from None
        cert, mismatches = None, [f"cannot state the claim: {exc}"]
    if cert is not None:
        binding = checker.bind(cert, registered_box(cert.group),
                               constants_mod.values(constants_mod.load()))
        console.print(f"claim: {binding.claim}", soft_wrap=True)
        for note in binding.notes:
            console.print(f"note: {note}", soft_wrap=True)
        mismatches = binding.mismatches
    for text in mismatches:
        console.print(("differs (--any-box): " if args.any_box else "MISMATCH: ") + text,
                      soft_wrap=True)
    if mismatches and not args.any_box and not (cert and checker.volume_zero(cert.root)):
        console.print("not rechecked: the file is not the registered claim (--any-box rechecks "
                      "the file's own claim)", soft_wrap=True)
        return 1
    if args.independent:
        verdict = checker.check(cert, args.workers)
        problems, done = verdict.problems, f"independent checker, {verdict.summary()}"
    else:
        result = recheck(data, args.workers)
        problems, done = list(result.problems), f"{result.leaves} leaves re-verified"
    for problem in problems:
        console.print(f"REJECTED: {problem}", soft_wrap=True)
    if not problems:
        console.print(f"certificate holds ({done}), the box is covered", soft_wrap=True)
    return 0 if not problems else 1


def add_parsers(sub, command: Callable, load: Callable) -> None:
    """Register certify and recheck; ``command(sub, name, purpose, example)`` makes a subcommand
    and ``load(args)`` reads the constants the flags name."""
    ce = command(sub, "certify", "certify a claim group (prop1, thm2, cor1) over a box of (d, eps) "
                 "by branch and bound, writing a certificate",
                 "verify certify prop1 --d 2 10 --eps 0.1 0.5 --out prop1.cert.json")
    ce.add_argument("group", choices=["prop1", "thm2", "cor1"])
    ce.add_argument("--d", type=float, nargs=2, metavar=("LO", "HI"), required=True)
    ce.add_argument("--eps", type=float, nargs=2, metavar=("LO", "HI"), required=True)
    ce.add_argument("--bits", type=int, default=96, help="Arb precision in bits (default 96)")
    ce.add_argument("--max-depth", type=int, default=24)
    ce.add_argument("--seconds", type=float, help="stop splitting after this long (rest undecided)")
    ce.add_argument("--out", required=True, metavar="FILE", help="certificate (JSON)")
    ce.add_argument("--constants", metavar="FILE")
    ce.add_argument("--set", action="append", metavar="KEY=VALUE")
    ce.set_defaults(handler=lambda args, console: cmd_certify(args, console, load))
    rc = command(sub, "recheck", "re-verify a certificate written by 'verify certify', leaf by leaf, "
                 "and check that its leaves cover the box", "verify recheck prop1.cert.json")
    rc.add_argument("certificate")
    rc.add_argument("--workers", type=int, default=1)
    rc.add_argument("--independent", action="store_true",
                    help="judge the leaves with the independent checker (verify/checker, "
                    "proofs/checker.md) instead of re-running the engine that wrote them")
    rc.add_argument("--any-box", action="store_true",
                    help="recheck the file's own claim even when its box or constants differ "
                    "from the registered check's and proofs/constants.toml")
    rc.set_defaults(handler=cmd_recheck)
