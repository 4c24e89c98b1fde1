"""The certified-mode commands (Arb balls through python-flint): ``verify
certify``, ``verify recheck``, ``verify eval --certified`` and the selection behind
``--certified``.  Presents only: the enclosures come from ``verify.engine.certified`` and the
branch and bound from ``verify.certify``."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

from .. import constants as constants_mod
from ..checks import Evidence
from . import args as cli_args
from .io import console, load_constants


def certified_ids(ids: Sequence[str] | None) -> list[str]:
    """With --certified: the checks of certified evidence among the selection."""
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


class Start(NamedTuple):
    """A certified box of this run whose committed certificate was made for other constants:
    the check, the case, why, and the command that writes a certificate for these constants."""

    check: str
    case: str
    stale: str
    command: str


def certificate_starts(args: argparse.Namespace, results, ids: Sequence[str] | None, consts,
                       profile, options) -> list[Start]:
    """The certified boxes of the selection that a committed certificate does not seed because
    a constant their claims read changed (they are proved from the root)."""
    boxes = [c for r in results for c in r.checks if c.id.endswith(".certified_box")
             and (not ids or c.id in ids or r.id in ids)]
    if not boxes:
        return []
    import os

    from ..certify.outcomes import CERTIFICATES, MAX_DEPTH, start_of
    from ..run.executors import available_cores

    values = constants_mod.values(consts)
    out = []
    for check in boxes:
        for case in check.cases(profile, values, options):
            start = start_of(case, values, seed=False)
            if start.stale:
                p = case.params
                eps = f"--eps {p['eps_lo']:g} {p['eps_hi']:g}"
                flags = [f"--constants {args.constants}"] if args.constants else []
                flags += [f"--set {s}" for s in args.set or []]
                slug = "-".join(s.replace("=", "-").replace("/", "_") for s in args.set or []) or "constants"
                target = CERTIFICATES / f"{start.group}-{slug}.json"
                inside = Path.cwd() in target.resolve().parents
                depth = f" --max-depth {MAX_DEPTH[start.group]}"
                command = (f"verify certify {start.group} --d {p['d_lo']:g} {p['d_hi']:g} {eps}{depth}"
                           f" --workers {available_cores()} {' '.join(flags)} --output "
                           f"{os.path.relpath(target) if inside else target}")
                out.append(Start(check.id, case.label, start.stale, " ".join(command.split())))
    return out


def start_notes(starts: Sequence[Start]) -> list[str]:
    """What the terminal says before the run: the certificate does not apply, the box is
    proved from the root (its leaves show in the progress display)."""
    return [f"{s.stale}; {s.check} proves {s.case} from the root for these constants (the "
            "leaves it judges show in the progress)" for s in starts]


def closing_notes(starts: Sequence[Start], reports) -> list[str]:
    """What the terminal says after the run: for each box proved from the root, the command
    that writes its certificate for these constants (a later run then starts from it)."""
    proved = {(r.check.id, o.case) for r in reports for o in r.outcomes if o.passed is True}
    return [f"{s.check} ({s.case}) was proved from the root; to keep its certificate for these "
            f"constants (a later run starts from it): {s.command}"
            for s in starts if (s.check, s.case) in proved]


def cmd_certify(args: argparse.Namespace) -> int:
    """Branch and bound over a box of (d, eps) (and u, v for the groups over the whole
    hypothesis range); writes a certificate (certified evidence).  The boxes of each generation
    run on the executor the flags ask for; with --journal a stopped run resumes."""
    cli_args.check_outputs(args, ("output",))
    if args.output is None:
        raise cli_args.UsageError("certify needs --output FILE (the certificate)")
    import math
    import sys

    from ..certify import box_journal, boxes, certificate, large_d, statements
    from ..run import executors, progress

    if args.group in large_d.GROUPS:  # every d >= --d LO by the lemma: one evaluation
        return _certify_lemma(args, large_d)
    tail = statements.axes(args.group)[1] == "tau"  # eps from 0: the limit eps -> 0 included
    top = 1 if len(statements.axes(args.group)) == 4 else math.nextafter(1, 0)  # 4-D: eps = 1
    # closes the range (the statements' eps < 1 as a limit, as u = 0 and v = 0 are)
    if not (args.d[0] < args.d[1] and (0 == args.eps[0] if tail else 0 < args.eps[0])
            and args.eps[0] < args.eps[1] <= top):
        raise ValueError("need --d LO HI with LO < HI and --eps LO HI with 0 < LO < HI < 1 "
                         "(LO = 0 for the -tail groups; HI = 1 for the 4-D groups)")
    if args.d[0] < statements.D_MIN[args.group]:
        raise ValueError(f"{args.group} is claimed for d >= {statements.D_MIN[args.group]}: "
                         f"--d starts at {args.d[0]:g}")
    consts = constants_mod.values(load_constants(args))
    u = tuple(args.u) if args.u else (0.0, float(consts["thm2.eta1_scale"]))
    v = tuple(args.v or (0.0, 1.0))
    if tail:
        from ..certify.eps_tail import tail_box

        root = tail_box(*args.d, args.eps[1], u=u, v=v)
    elif len(statements.axes(args.group)) == 4:
        root = boxes.hypothesis_box(*args.d, *args.eps, u=u, v=v)
    elif args.u or args.v:
        raise ValueError(f"--u and --v belong to the groups over four axes, not {args.group}")
    else:
        root = boxes.log_box(*args.d, *args.eps)
    journal = None
    if args.journal:
        from ..run.journal import JournalError

        key = box_journal.run_key(args.group, statements.axes(args.group), root, consts,
                                  args.bits, "centred", args.max_depth)
        try:
            journal = box_journal.journal(Path(args.journal), key)
        except JournalError as exc:  # another run's journal, or not one
            raise ValueError(str(exc)) from None
    try:
        pool = executors.choose(args.workers, args.scheduler, args.cluster, keep=True)
    except executors.ExecutorError as exc:
        raise ValueError(str(exc)) from None

    with pool, progress.show(f"certify {args.group}", "boxes") as board:
        def tell(run) -> None:
            line = (f"{run.judged} boxes judged, {len(run.leaves)} leaves "
                    f"({sum(leaf.status == 'certified' for leaf in run.leaves)} certified), "
                    f"{run.cpu_seconds:.0f} CPU-s, {run.seconds_so_far():.0f} s")
            board.update(run.judged)
            board.say(line)
            if args.progress:
                print(line, file=sys.stderr, flush=True)

        run = boxes.branch_and_bound(args.group, root, consts, args.bits, args.max_depth,
                                     args.seconds, args.max_boxes,
                                     executor=None if args.workers == 1 and not
                                     (args.cluster or args.scheduler) else pool,
                                     journal=journal, progress=tell)
    certificate.write(run, consts, Path(args.output))
    verdict = {True: "CERTIFIED", False: "FAILS (a box fails at a witness point)", None: "undecided"}[run.status]
    console().print(f"{args.group}: {verdict}: {run.summary()}; {run.judged} boxes judged, "
                    f"{run.cpu_seconds:.1f} CPU-s; certificate {args.output}", soft_wrap=True)
    return 0 if run.status else 1


def cmd_recheck(args: argparse.Namespace) -> int:
    """Re-verify a certificate leaf by leaf and check that its leaves tile the box; say what it
    proves (the independent checker's statement, from the root, the axes and the constants,
    never the file's text) and compare that with the registered check and the constants file.
    The engine's recheck then re-judges every leaf, and the stored enclosures are compared with
    the checker's own values at each leaf's centre.  With ``--independent`` the checker judges
    the leaves instead, in its own process (:func:`_recheck_independent`)."""
    if args.journal is not None and not args.journal.strip():
        raise ValueError("--journal needs a file name")
    if args.independent:
        return _recheck_independent(args)
    if args.journal is not None:
        raise ValueError("--journal is kept by the independent checker: give --independent too")
    from ..certify.certificate import recheck
    from ..certify.registered import registration
    from ..checker import recheck as checker

    try:
        data = json.loads(Path(args.certificate).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read certificate {args.certificate}: {exc}") from None
    if not isinstance(data, dict) or not str(data.get("format", "")).startswith("verify-certificate/"):
        raise ValueError(f"{args.certificate} is not a verify certificate (no \"format\": "
                         "\"verify-certificate/N\")")
    try:
        cert = checker.read(data)
    except checker.NotACertificate as exc:
        raise ValueError(f"{args.certificate}: {exc}") from None
    out = console()
    binding = checker.bind(cert, registration(cert.group), constants_mod.values(constants_mod.load()))
    out.print(f"claim: {binding.claim}", soft_wrap=True)
    for note in binding.notes:
        out.print(f"note: {note}", soft_wrap=True)
    for text in binding.mismatches:
        out.print(("differs (--any-box): " if args.any_box else "MISMATCH: ") + text, soft_wrap=True)
    if binding.mismatches and not args.any_box and not checker.volume_zero(cert.root):
        out.print("not rechecked: the file is not the registered claim (--any-box rechecks the "
                  "file's own claim)", soft_wrap=True)
        return 1
    if args.rewrite:
        return _rewrite(data, args, out)
    if str(data.get("group", "")).startswith(("prop2-", "prop3-")):  # the cube of ratios
        return _recheck_cube(data, args, out, cert)
    if data.get("group") in ("thm2-large-d", "cor1-large-d"):  # the lemma, every d >= d0
        from ..certify.large_d import recheck as recheck_lemma

        result = recheck_lemma(data)
    else:
        result = recheck(data, args.workers)
    problems = list(result.problems)
    if not problems and data.get("group") not in ("thm2-large-d", "cor1-large-d"):
        problems = checker.agreement(cert)  # the stored enclosures against the checker's values
    for note in result.notes:
        out.print(f"note: {note}", soft_wrap=True)
    for problem in problems:
        out.print(f"REJECTED: {problem}", soft_wrap=True)
    if not problems:
        out.print(f"certificate holds ({result.leaves} leaves re-verified, the stored enclosures "
                  "agree with the independent checker's values at their centres), the box is "
                  "covered", soft_wrap=True)
    return 0 if not problems else 1


def _recheck_independent(args: argparse.Namespace) -> int:
    """The independent checker in its own process (verify/checker/process.py), started with
    isolated imports and handed the file, the registered claim and the constants file's values
    as plain data: nothing of the engine is imported here or there.  Its lines are printed as
    they come; its exit code is the command's."""
    import sys

    from ..certify.registered import registration
    from ..certify.independent import ask

    try:
        data = json.loads(Path(args.certificate).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read certificate {args.certificate}: {exc}") from None
    group = data.get("group") if isinstance(data, dict) else None
    request = {"certificate": str(Path(args.certificate).resolve()),
               "registered": registration(str(group)),
               "constants": {k: str(v) for k, v in constants_mod.values(constants_mod.load()).items()},
               "any_box": args.any_box, "workers": args.workers,
               **({"journal": str(Path(args.journal).resolve())} if args.journal else {})}
    out = console()
    code, _, errors = ask(request, lambda line: out.print(line, soft_wrap=True, markup=False,
                                                          highlight=False))
    print(errors, end="", file=sys.stderr)
    return code


def _certify_lemma(args: argparse.Namespace, large_d) -> int:
    """Theorem 2 or Corollary 1 for every d >= --d LO (--d LO inf --eps 0 1) by the
    perturbation lemma (proofs/large-d.md): no branch and bound, one leaf (no journal)."""
    import math
    import time
    from fractions import Fraction

    if not (args.d[1] == math.inf and args.d[0] >= 4 and list(args.eps) == [0, 1]):
        raise ValueError(f"{args.group} is proved for every d >= LO and eps in (0, 1): "
                         "give --d LO inf (LO >= 4) --eps 0 1")
    if args.journal or args.u or args.v:
        raise ValueError(f"{args.group} takes no --journal, --u or --v (one evaluation over "
                         "every eta1 <= eta1_scale sqrt(d) and eta2 >= eta2_min)")
    began = time.process_time()
    data = large_d.write(args.group, constants_mod.values(load_constants(args)),
                         Path(args.output), Fraction(args.d[0]).limit_denominator(1))
    ok = data["leaves"][0]["status"] == "certified"
    console().print(f"{args.group}: {'CERTIFIED' if ok else 'not proved (the lemma does not close)'}"
                    f": {data['claim']}; 1 leaf, depth 0, {time.process_time() - began:.1f} "
                    f"CPU-s; certificate {args.output}", soft_wrap=True)
    return 0 if ok else 1


def _rewrite(data: dict, args: argparse.Namespace, out) -> int:
    """`verify recheck CERT --rewrite`: every leaf judged again by this code from its own box
    (which is the engine's recheck), the file written again with this code's enclosures and
    fingerprint, and the new file's stored enclosures compared with the independent checker's
    values (`verify recheck --independent` then judges it whole)."""
    from ..checker import cube as checker_cube
    from ..checker import recheck as checker

    if str(data.get("group", "")).startswith(("prop2-", "prop3-")):
        from ..certify.cube_certificate import rewrite
        from ..run import executors

        with executors.choose(args.workers, keep=True) as pool:
            new, said = rewrite(data, constants_mod.values(constants_mod.load()),
                                pool if args.workers > 1 else None)
    elif data.get("group") in ("thm2-large-d", "cor1-large-d"):
        raise ValueError("the lemma's certificates are written by `verify certify "
                         f"{data['group']} --d 1e9 inf --eps 0 1`, not rewritten")
    else:
        from ..certify.certificate import rewrite
        from ..run import executors

        with executors.choose(args.workers, keep=True) as pool:
            new, said = rewrite(data, pool if args.workers > 1 else None)
    if new is None:
        out.print(f"REJECTED: {said}", soft_wrap=True)
        return 1
    cert = checker.read(new)
    problems = (checker_cube.agreement(cert) if checker_cube.CUBE.fullmatch(cert.group)
                else checker.agreement(cert))
    if problems:
        out.print(f"REJECTED: {problems[0]} (the file is left as it was)", soft_wrap=True)
        return 1
    old_code = data.get("code")
    Path(args.certificate).write_text(json.dumps(new, indent=1) + "\n")
    out.print(f"rewritten: {args.certificate}: {said}, the stored enclosures agree with the "
              f"checker's values; fingerprint {str(old_code)[:12]} -> {new['code'][:12]}",
              soft_wrap=True)
    return 0


def _recheck_cube(data: dict, args: argparse.Namespace, out, cert) -> int:
    """The engine's recheck of a cube certificate (Propositions 2, 3), then the stored margins of
    its leaves against the independent checker's values at their centres and corners
    (verify/checker/cube.py)."""
    from ..certify.cube_certificate import recheck as recheck_cube
    from ..checker import cube as checker_cube

    result = recheck_cube(data, args.workers)
    problems = list(result.problems) or checker_cube.agreement(cert)
    for note in result.notes:
        out.print(f"note: {note}", soft_wrap=True)
    for problem in problems:
        out.print(f"REJECTED: {problem}", soft_wrap=True)
    if not problems:
        out.print(f"certificate holds: {result.leaves} leaves re-verified, the box is covered")
    return 0 if not problems else 1


def cmd_certify_cube(args: argparse.Namespace) -> int:
    """Branch and bound over the cube of successive ratios (Propositions 2, 3) from the root,
    journaled; writes a format-2 certificate (certified evidence)."""
    cli_args.check_outputs(args, ("output",))
    if args.output is None:
        raise cli_args.UsageError("certify-cube needs --output FILE (the certificate)")
    from ..certify import cube, cube_certificate, cube_parts
    from ..run import executors, progress

    if args.group not in cube.PROBLEMS:
        raise ValueError(f"unknown cube group {args.group!r} (one of {', '.join(sorted(cube.PROBLEMS))})")
    if args.boxes and (args.workers > 1 or args.cluster or args.scheduler):
        raise cli_args.UsageError("--boxes (a budget in judged boxes) runs in one process: "
                                  "drop --workers, --cluster and --scheduler")
    if args.journal and args.scheduler:
        raise cli_args.UsageError("--journal is written by the workers themselves: a remote "
                                  "scheduler's workers do not see the file (use --workers or "
                                  "--cluster local)")
    consts = constants_mod.values(load_constants(args))
    journal = Path(args.journal) if args.journal else None
    if journal is not None:
        from ..certify.branch import Journal
        from ..run.journal import JournalError

        try:  # its key line now; another run's journal, or not one, is refused
            Journal(journal, cube.journal_key(cube.PROBLEMS[args.group], consts), cube.decode)
        except JournalError as exc:
            raise ValueError(str(exc)) from None
    try:
        pool = executors.choose(args.workers, args.scheduler, args.cluster)
    except executors.ExecutorError as exc:
        raise ValueError(str(exc)) from None
    with pool, progress.show(f"certify-cube {args.group}", "parts") as board:
        if args.boxes:  # a budget: one branch and bound from the root, boxes in a fixed order
            with progress.task(args.group, board.folder):
                run = cube.branch_and_bound(cube.PROBLEMS[args.group], consts,
                                            max_boxes=args.boxes, journal=journal)
        else:
            run = cube_parts.certify(cube.PROBLEMS[args.group], consts, pool, journal,
                                     board.folder, board.update)
    cube_certificate.write(run, consts, Path(args.output))
    verdict = {True: "CERTIFIED", False: "FAILS (a counterexample point)", None: "undecided"}[run.status]
    console().print(f"{args.group}: {verdict}: {len(run.leaves)} leaves, {run.judged} boxes judged, "
                    f"deepest split {run.deepest}, {run.cpu_seconds:.0f} CPU-s; certificate "
                    f"{args.output}", soft_wrap=True)
    return 0 if run.status else 1


def add_parsers(sub, command: Callable) -> None:
    """Register certify and recheck; ``command(sub, name, purpose, example)`` makes a subcommand."""
    ce = command(sub, "certify", "certify a claim group over a box by branch and bound, writing a "
                 "certificate: prop1, thm2, cor1 over (d, eps); thm2-4d, cor1-4d over (d, eps, "
                 "u = eta1/sqrt(d), v = eta2_min/eta2), every step size the statements allow; "
                 "thm2-4d-tail, cor1-4d-tail the same for every eps in (0, --eps HI]",
                 "verify certify prop1 --d 2 10 --eps 0.1 0.5 --output prop1.cert.json")
    ce.add_argument("group", choices=["prop1", "thm2", "cor1", "thm2-4d", "cor1-4d",
                                      "thm2-4d-tail", "cor1-4d-tail", "thm2-large-d",
                                      "cor1-large-d"], help="the claims to certify (-large-d: "
                    "every d >= LO by a lemma, --d LO inf --eps 0 1)")
    ce.add_argument("--d", type=float, nargs=2, metavar=("LO", "HI"), required=True,
                    help="the range of d (real; prop1 from 2, the others from 3)")
    ce.add_argument("--eps", type=float, nargs=2, metavar=("LO", "HI"), required=True,
                    help="the range of eps, inside (0, 1) (from 0 for the -tail groups)")
    ce.add_argument("--u", type=float, nargs=2, metavar=("LO", "HI"),
                    help="eta1/sqrt(d), 4-D groups (default 0 to thm2.eta1_scale; 0 is the limit)")
    ce.add_argument("--v", type=float, nargs=2, metavar=("LO", "HI"),
                    help="eta2_min/eta2, 4-D groups (default 0 to 1; 0 is the limit eta2 -> inf)")
    ce.add_argument("--bits", type=cli_args.positive, default=96, help="Arb precision in bits (default 96)")
    ce.add_argument("--max-depth", type=cli_args.positive, default=24,
                    help="deepest split before a box is reported undecided (default 24)")
    ce.add_argument("--seconds", type=float, help="stop splitting after this long (the rest undecided)")
    ce.add_argument("--max-boxes", type=cli_args.positive,
                    help="stop after judging this many boxes (the rest undecided)")
    ce.add_argument("--workers", type=cli_args.workers, default=1,
                    help="judge the boxes in this many processes (or Dask workers with --cluster)")
    ce.add_argument("--cluster", metavar="local", help="run on a Dask LocalCluster of --workers")
    ce.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS")
    ce.add_argument("--journal", metavar="PATH",
                    help="keep every judged box in PATH; the same command again resumes from it")
    ce.add_argument("--progress", action="store_true", help="also print a progress line on stderr "
                    "after every chunk of boxes (the progress display shows it in any case)")
    cli_args.add_output(ce, "the certificate (JSON)", old=("--out",), metavar="FILE")
    cli_args.add_constants(ce)
    ce.set_defaults(handler=cmd_certify)
    cc = command(sub, "certify-cube", "certify Proposition 2 or 3 for every attention at one d by "
                 "branch and bound over the cube of successive ratios, writing a certificate",
                 "verify certify-cube prop3-cube-d3 --output certificates/prop3-cube-d3.json")
    cc.add_argument("group", help="prop3-cube-dD, prop3-sharp-dD or prop2-cone-dD (D = 3, 4, 5)")
    cc.add_argument("--journal", metavar="FILE", help="judged boxes (JSON lines): a stopped run resumes")
    cc.add_argument("--boxes", type=cli_args.positive, help="stop after judging this many boxes "
                    "(the rest unreached; one process)")
    cc.add_argument("--workers", type=cli_args.workers, default=1,
                    help="run the root's parts in this many processes (or Dask workers with "
                    "--cluster); the certificate's leaves are the same for any number")
    cc.add_argument("--cluster", metavar="local", help="run on a Dask LocalCluster of --workers")
    cc.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS "
                    "(without --journal)")
    cli_args.add_output(cc, "the certificate (JSON)", old=("--out",), metavar="FILE")
    cli_args.add_constants(cc)
    cc.set_defaults(handler=cmd_certify_cube)
    rc = command(sub, "recheck", "re-verify a certificate written by 'verify certify', leaf by leaf, "
                 "and check that its leaves cover the box", "verify recheck prop1.cert.json")
    rc.add_argument("certificate", help="the certificate (JSON)")
    rc.add_argument("--workers", type=cli_args.workers, default=1, help="processes for the leaves")
    rc.add_argument("--independent", action="store_true",
                    help="judge the leaves with the independent checker (verify/checker, "
                    "proofs/checker.md) instead of re-running the engine that wrote them")
    rc.add_argument("--rewrite", action="store_true",
                    help="judge every leaf again with this code and write the file again with "
                    "its enclosures and fingerprint (the same leaves; refused when a leaf needs "
                    "a split)")
    rc.add_argument("--any-box", action="store_true",
                    help="recheck the file's own claim even when its box or constants differ "
                    "from the registered check's and proofs/constants.toml")
    rc.add_argument("--journal", metavar="FILE",
                    help="with --independent, on a cube or cone certificate: keep the leaves the "
                    "checker accepts in FILE and, when FILE holds an earlier run's on the same "
                    "file, claim, constants and checker, take those as judged (a stopped run "
                    "resumes)")
    rc.set_defaults(handler=cmd_recheck)
