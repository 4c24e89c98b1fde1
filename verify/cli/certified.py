"""The certified-mode commands (Arb balls through python-flint, an optional extra): ``verify
certify``, ``verify recheck``, ``verify eval --certified`` and the selection behind
``--certified``.  Presents only: the enclosures come from ``verify.engine.certified`` and the
branch and bound from ``verify.certify``.  Without python-flint each prints one line, exit 2."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Callable, Sequence

from .. import constants as constants_mod
from ..checks import Evidence
from . import args as cli_args
from .run import console, load_constants


def certified_ids(ids: Sequence[str] | None) -> list[str]:
    """With --certified: the checks of certified evidence among the selection (python-flint
    required: one line and exit 2 without it)."""
    from ..engine.certified import require_flint

    require_flint()
    from ..results import select

    try:
        chosen = select(ids)
    except KeyError as exc:
        raise ValueError(f"unknown result or check: {exc.args[0]} (see `verify list`)") from None
    out = [c.id for r in chosen for c in r.checks if c.evidence is Evidence.CERTIFIED
           and (not ids or r.id in ids or c.id in ids)]
    if not out:
        raise ValueError("no certified check in the selection")
    return out


def cmd_certify(args: argparse.Namespace) -> int:
    """Branch and bound over a box of (d, eps); writes a certificate (certified evidence)."""
    from ..engine.certified import require_flint

    cli_args.check_outputs(args, ("output",))
    if args.output is None:
        raise cli_args.UsageError("certify needs --output FILE (the certificate)")
    require_flint()
    from ..certify import boxes, certificate
    from ..certify.claims import D_MIN

    if not (args.d[0] < args.d[1] and 0 < args.eps[0] < args.eps[1] < 1):
        raise ValueError("need --d LO HI with LO < HI and --eps LO HI with 0 < LO < HI < 1")
    if args.d[0] < D_MIN[args.group]:
        raise ValueError(f"{args.group} is claimed for d >= {D_MIN[args.group]}: --d starts at {args.d[0]:g}")
    consts = constants_mod.values(load_constants(args))
    run = boxes.branch_and_bound(args.group, boxes.log_box(*args.d, *args.eps), consts,
                                 args.bits, args.max_depth, args.seconds)
    certificate.write(run, consts, Path(args.output))
    verdict = {True: "CERTIFIED", False: "FAILS (a box fails at a witness point)", None: "undecided"}[run.status]
    console().print(f"{args.group}: {verdict}: {run.summary()}; certificate {args.output}", soft_wrap=True)
    return 0 if run.status else 1


def cmd_recheck(args: argparse.Namespace) -> int:
    """Re-verify a certificate leaf by leaf and check that its leaves tile the box."""
    from ..engine.certified import require_flint

    require_flint()
    from ..certify.certificate import recheck

    try:
        data = json.loads(Path(args.certificate).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read certificate {args.certificate}: {exc}") from None
    if not isinstance(data, dict) or not str(data.get("format", "")).startswith("verify-certificate/"):
        raise ValueError(f"{args.certificate} is not a verify certificate (no \"format\": "
                         "\"verify-certificate/N\")")
    out = console()
    if str(data.get("group", "")).startswith(("prop2-", "prop3-")):  # the cube of ratios
        from ..certify.cube_certificate import recheck as recheck_cube

        result = recheck_cube(data, args.workers)
        for note in result.notes:
            out.print(f"note: {note}", soft_wrap=True)
    else:
        result = recheck(data, args.workers)
    for problem in result.problems:
        out.print(f"REJECTED: {problem}", soft_wrap=True)
    if result.ok:
        out.print(f"certificate holds: {result.leaves} leaves re-verified, the box is covered")
    return 0 if result.ok else 1


def cmd_certify_cube(args: argparse.Namespace) -> int:
    """Branch and bound over the cube of successive ratios (Propositions 2, 3) from the root,
    journaled; writes a format-2 certificate (certified evidence)."""
    from ..engine.certified import require_flint

    cli_args.check_outputs(args, ("output",))
    if args.output is None:
        raise cli_args.UsageError("certify-cube needs --output FILE (the certificate)")
    require_flint()
    from ..certify import cube, cube_certificate

    if args.group not in cube.PROBLEMS:
        raise ValueError(f"unknown cube group {args.group!r} (one of {', '.join(sorted(cube.PROBLEMS))})")
    consts = constants_mod.values(load_constants(args))
    run = cube.branch_and_bound(cube.PROBLEMS[args.group], consts, max_boxes=args.boxes,
                                journal=Path(args.journal) if args.journal else None)
    cube_certificate.write(run, consts, Path(args.output))
    verdict = {True: "CERTIFIED", False: "FAILS (a counterexample point)", None: "undecided"}[run.status]
    console().print(f"{args.group}: {verdict}: {len(run.leaves)} leaves, {run.judged} boxes judged, "
                    f"deepest split {run.deepest}, {run.cpu_seconds:.0f} CPU-s; certificate "
                    f"{args.output}", soft_wrap=True)
    return 0 if run.status else 1


def add_parsers(sub, command: Callable) -> None:
    """Register certify and recheck; ``command(sub, name, purpose, example)`` makes a subcommand."""
    ce = command(sub, "certify", "certify a claim group (prop1, thm2, cor1) over a box of (d, eps) "
                 "by branch and bound, writing a certificate",
                 "verify certify prop1 --d 2 10 --eps 0.1 0.5 --output prop1.cert.json")
    ce.add_argument("group", choices=["prop1", "thm2", "cor1"], help="the claims to certify")
    ce.add_argument("--d", type=float, nargs=2, metavar=("LO", "HI"), required=True,
                    help="the range of d (real; prop1 from 2, thm2 and cor1 from 3)")
    ce.add_argument("--eps", type=float, nargs=2, metavar=("LO", "HI"), required=True,
                    help="the range of eps, inside (0, 1)")
    ce.add_argument("--bits", type=cli_args.positive, default=96, help="Arb precision in bits (default 96)")
    ce.add_argument("--max-depth", type=cli_args.positive, default=24,
                    help="deepest split before a box is reported undecided (default 24)")
    ce.add_argument("--seconds", type=float, help="stop splitting after this long (the rest undecided)")
    cli_args.add_output(ce, "the certificate (JSON)", old=("--out",), metavar="FILE")
    cli_args.add_constants(ce)
    ce.set_defaults(handler=cmd_certify)
    cc = command(sub, "certify-cube", "certify Proposition 2 or 3 for every attention at one d by "
                 "branch and bound over the cube of successive ratios, writing a certificate",
                 "verify certify-cube prop3-cube-d3 --output certificates/prop3-cube-d3.json")
    cc.add_argument("group", help="prop3-cube-dD, prop3-sharp-dD or prop2-cone-dD (D = 3, 4, 5)")
    cc.add_argument("--journal", metavar="FILE", help="judged boxes (JSON lines): a stopped run resumes")
    cc.add_argument("--boxes", type=cli_args.positive, help="stop after judging this many boxes (the rest unreached)")
    cli_args.add_output(cc, "the certificate (JSON)", old=("--out",), metavar="FILE")
    cli_args.add_constants(cc)
    cc.set_defaults(handler=cmd_certify_cube)
    rc = command(sub, "recheck", "re-verify a certificate written by 'verify certify', leaf by leaf, "
                 "and check that its leaves cover the box", "verify recheck prop1.cert.json")
    rc.add_argument("certificate", help="the certificate (JSON)")
    rc.add_argument("--workers", type=cli_args.positive, default=1, help="processes for the leaves")
    rc.set_defaults(handler=cmd_recheck)
