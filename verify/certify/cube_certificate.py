"""Certificates of the cube branch and bound (format 2), their recheck, and the registry's
certified outcomes for Propositions 2 and 3.

A certificate (JSON, format ``verify-certificate/2``) holds the group, the claim in words, the
axes (``["r2", .., "rd"]``: r_k = e^(alpha_k - alpha_(k-1)) for the symbols numbered 1..d by
decreasing logit; ``["s", "r2", ..]`` for Proposition 2, where the unit cell [k, k+1] of s is the
target at position k + 1), the constants, the root, the precision, the fingerprint of the code
that found it, and every leaf: its box (floats written exactly, as ``float.hex``), depth,
status, the margin enclosure of its claim and the target that decided it.

:func:`recheck` trusts none of it: the leaves must tile the root (inside it, interiors disjoint,
volumes summing to the root's, in exact rational arithmetic) and every leaf must be certified
again by :func:`verify.certify.cube.judge` with a margin that overlaps the stored one.  The trusted
base is that judge and the enclosures under it (proofs/prop3.md, "Trusted base").
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path

from ..run.journal import finder_fingerprint, imported_modules
from . import tiling
from .certificate import Recheck
from .cube import BITS, MAX_DEPTH, PROBLEMS, Problem, Run, branch_and_bound, judge
from .verdicts import Checker, Route, Sample

FORMAT = "verify-certificate/2"
METHOD = "taylor2"  # second-order Taylor forms of the moments over each box
CERTIFICATES = Path(__file__).resolve().parent.parent.parent / "certificates"
SLACK = 1e-6  # how far a stored lower end may exceed the recomputed one, in the enclosure's width
FINDER = "certify/cube.py"  # the judge of every leaf; the fingerprint covers what it imports


def code_fingerprint() -> str:
    """SHA-256 over the code that finds and judges the leaves: certify/cube.py and every module
    of the package it imports, at any depth, without docstrings and comments
    (:func:`verify.run.journal.finder_fingerprint`)."""
    return finder_fingerprint(FINDER)


def flat_box(box) -> list[str]:
    return [float(x).hex() for side in box for x in side]


def leaf_box(values: list[str]) -> tuple:
    xs = [float.fromhex(v) for v in values]
    return tuple((xs[i], xs[i + 1]) for i in range(0, len(xs), 2))


def certificate(run: Run, constants) -> dict:
    """The JSON document of a run."""
    p = run.problem
    keys = [p.constant] if p.constant else []
    return {
        "format": FORMAT, "group": p.group, "claim": p.statement, "axes": p.axes,
        "constants": {k: str(Fraction(constants[k])) for k in keys},
        "root": flat_box(p.root), "bits": BITS, "method": METHOD, "code": code_fingerprint(),
        "judged": run.judged, "cpu_seconds": round(run.cpu_seconds, 1),
        "leaves": [{"box": flat_box(leaf.box), "depth": leaf.depth, "status": leaf.status,
                    "margins": {p.claim: [float(leaf.margin[0]).hex(), float(leaf.margin[1]).hex()]},
                    "target": leaf.target} for leaf in run.leaves],
    }


def write(run: Run, constants, path: Path) -> None:
    path.write_text(json.dumps(certificate(run, constants), indent=1) + "\n")


def coverage_problems(root, boxes) -> list[str]:
    """Do the boxes ((lo, hi) per axis) tile the root?  The one tiling check of every
    certificate kind (:func:`verify.certify.tiling.coverage_problems`, exact rationals)."""
    flat = lambda box: tuple(x for side in box for x in side)  # noqa: E731
    return tiling.coverage_problems(flat(root), [flat(box) for box in boxes])


def _matches(data: dict, problem: Problem) -> bool:
    return (data.get("format") == FORMAT and data.get("group") == problem.group
            and data.get("axes") == problem.axes and data.get("root") == flat_box(problem.root))


def seed(problem: Problem, folder: Path = CERTIFICATES) -> tuple[list, dict | None]:
    """(the (box, depth, stored margin) leaves of ``problem``'s committed certificate, the certificate) when it
    exists, matches the problem's axes and root and its leaves tile the root; else ([], None).
    The leaves are re-judged with the run's own constants and code: they are a tiling to start
    from, not a verdict; the tightest (smallest stored margin) come first, so that a constant
    or an engine that no longer holds shows at once (the run stops at the first failure)."""
    path = folder / f"{problem.group}.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return [], None
    if not _matches(data, problem):
        return [], None
    boxes = [leaf_box(leaf["box"]) for leaf in data.get("leaves", [])]
    if not boxes or coverage_problems(problem.root, boxes):
        return [], None
    margin = [float.fromhex(leaf["margins"][problem.claim][0]) for leaf in data["leaves"]]
    order = sorted(range(len(boxes)), key=lambda i: margin[i])
    return [(boxes[i], int(data["leaves"][i]["depth"]), margin[i]) for i in order], data


def invalid_note(problem: Problem, folder: Path = CERTIFICATES) -> str | None:
    """Why ``problem``'s committed certificate (its group, axes and root) is not a certificate:
    no leaves, a leaf not certified, leaves that do not tile the cube; None when it is one or
    there is none for the problem."""
    path = folder / f"{problem.group}.json"
    try:
        data = json.loads(path.read_text())
    except OSError:
        return None
    except ValueError as exc:
        return f"{folder.name}/{path.name} is INVALID: it cannot be read ({exc})"
    if not _matches(data, problem):
        return None
    leaves = data.get("leaves") or []
    bad = next((i for i, leaf in enumerate(leaves) if leaf.get("status") != "certified"), None)
    why = ("it has no leaves" if not leaves else f"leaf {bad} is not certified" if bad is not None
           else "; ".join(coverage_problems(problem.root, [leaf_box(leaf["box"]) for leaf in leaves])))
    return f"{folder.name}/{path.name} is INVALID: {why}" if why else None

def recheck_leaf(item: tuple) -> list[str]:
    index, group, box, stored, constants = item
    problem = PROBLEMS[group]
    j = judge(problem, box, constants)
    out = []
    if j.status != "certified":
        out.append(f"leaf {index}: not certified on recomputation ({j.status})")
    lo, hi = stored
    if j.margin[1] < lo or j.margin[0] > hi:
        out.append(f"leaf {index}: stored margin [{lo:.6g}, {hi:.6g}] disagrees with the "
                   f"recomputed [{j.margin[0]:.6g}, {j.margin[1]:.6g}]")
    elif lo > j.margin[0] + SLACK * (j.margin[1] - j.margin[0]):
        # the stored lower end claims more than the recomputation proves (beyond the rounding
        # of a change to the code since the file was written)
        out.append(f"leaf {index}: the stored lower end {lo:.12g} is above the recomputed "
                   f"{j.margin[0]:.12g}: the file claims more than its leaf proves")
    return out


def recheck(data: dict, workers: int = 1) -> Recheck:
    """Re-verify a cube certificate independently of the run that wrote it."""
    group = data.get("group")
    if data.get("format") != FORMAT or group not in PROBLEMS:
        return Recheck(0, ("not a cube certificate (format 2, prop2-cone-dD / prop3-*-dD)",))
    problem = PROBLEMS[group]
    problems, notes = [], []
    if data.get("axes") != problem.axes or data.get("root") != flat_box(problem.root):
        problems.append("axes or root differ from the problem's")
    if data.get("code") != code_fingerprint():
        notes.append(f"the code that judges the leaves has changed since this certificate was "
                     f"written (its fingerprint covers {FINDER} and the "
                     f"{len(imported_modules(FINDER)) - 1} modules it imports, docstrings and "
                     "comments aside); every leaf is judged again by this code, so the verdict "
                     "does not rest on the old one")
    constants = {k: Fraction(v) for k, v in data.get("constants", {}).items()}
    leaves = data.get("leaves", [])
    boxes = [leaf_box(leaf["box"]) for leaf in leaves]
    problems += coverage_problems(problem.root, boxes)
    items = [(i, group, boxes[i], tuple(float.fromhex(x) for x in leaf["margins"][problem.claim]),
              constants) for i, leaf in enumerate(leaves)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            found = list(pool.map(recheck_leaf, items))
    else:
        found = [recheck_leaf(item) for item in items]
    problems += [p for leaf in found for p in leaf]
    return Recheck(len(leaves), tuple(problems), tuple(notes))


def run_problem(problem: Problem, constants, max_boxes: int | None,
                folder: Path | None = CERTIFICATES) -> tuple[Run, bool]:
    """(the branch and bound from the committed certificate's leaves when there is one in
    ``folder`` (None: from the root), else from the root; whether it started from one)."""
    start, data = seed(problem, folder) if folder is not None else ([], None)
    run = branch_and_bound(problem, constants, start or None, max_boxes, MAX_DEPTH,
                           stop_on_failure=True)
    return run, data is not None


def _lost(problem: Problem, run: Run, folder: Path) -> str | None:
    """Which leaves of the seeding certificate the run did not certify again, in words."""
    start, _ = seed(problem, folder)
    kept = {leaf.box for leaf in run.leaves if leaf.status == "certified"}
    lost = [box for box, *_ in start if box not in kept]
    return (f"{len(lost)} of its {len(start)} leaves did not certify when judged again by this "
            "code") if lost else None

def _fmt_box(problem: Problem, box) -> str:
    return " x ".join(f"{name} [{lo:.4g}, {hi:.4g}]" for name, (lo, hi) in zip(problem.axes, box))


def proved_bound(problem: Problem, run: Run, constants, enclosed: float | None = None
                 ) -> float | None:
    """The largest constant the certified leaves prove (floats rounded down): the bound plus the
    smallest margin (prop3-cube: some s has inf_beta L_s >= it; prop2-cone: L_s >= it), or None;
    with ``enclosed`` (the checker's smallest lower bound over its pieces, on the default route
    where the engine re-judged only a sample) the smaller of the two."""
    small = run.smallest()
    if small is None or run.status is not True or problem.kind == "sharp":
        return None
    c = Fraction(constants[problem.constant])
    low = small.margin[0] if enclosed is None else min(small.margin[0], enclosed)
    return math.nextafter(float(c) + low, -math.inf)


PROVED = {"floor": "proved for every alpha", "sharp": "proved min over alpha = F(0)",
          "cone": "proved for every beta~ and alpha"}


def _sharp_text(d: int) -> tuple[str, dict, bool]:
    """What the sharp problem adds: F(0) and the gradient constant a at alpha = 0."""
    from .cube import gradient_constant, uniform_floor

    f0 = uniform_floor(d)
    a, symmetric = gradient_constant(d)
    values = {"c2_star_lower": float(f0.lower()), "c2_star_upper": float(f0.upper()),
              "a_lower": float(a.lower()), "a_upper": float(a.upper()),
              "symmetry": "holds" if symmetric else "fails"}
    text = (f"; so min over alpha of max_s inf_beta L_s = F(0) in [{float(f0.lower()):.12g}, "
            f"{float(f0.upper()):.12g}] exactly, attained only at alpha = 0; there every "
            f"target's floor has gradient a (e_s - 1/d) with a in [{float(a.lower()):.6g}, "
            f"{float(a.upper()):.6g}] (the V-shape; the symmetry "
            f"{'holds' if symmetric else 'FAILS'} to the balls' precision)")
    return text, values, symmetric and not (a.lower() <= 0 <= a.upper())


def cube_outcome(group: str, case, constants, max_boxes: int, folder: Path | None = CERTIFICATES):
    """The registry's certified outcome of a cube problem: branch and bound from the committed
    certificate's leaves (re-judged one by one with the case's constants) or from the root
    (``folder`` None, or no matching certificate there).  A prop3-cube case with ``checker``
    is also judged by the independent checker in its own process; with ``engine_sample`` too
    (the default profile) and a committed certificate made for these constants, the checker
    judges that file over every leaf and the engine only a seeded sample of its leaves
    (:func:`trusted_route`)."""
    from ..checks import Evidence, Outcome

    problem = PROBLEMS[group]
    if case.params.get("from_root"):  # asked: the committed certificate does not seed the run
        folder = None
    invalid = invalid_note(problem, folder) if folder is not None else None
    if invalid:
        return Outcome(case.label, False, None, Evidence.CERTIFIED,
                       f"{invalid}; not replaced by a run from the root (`verify check ... "
                       "--from-root` proves it from the root; `verify certify-cube` writes a new "
                       "certificate)", values={"checker": Checker.ENGINE_ONLY.value,
                                                 "route": Route.INVALID.value, "invalid": invalid})
    asked = bool(case.params.get("checker"))
    trusted = (trusted_route(problem, constants, folder, case.params["engine_sample"])
               if asked and folder is not None and case.params.get("engine_sample") else None)
    sample = None
    if trusted is not None:
        run, where, checked, used, enclosed, sample = trusted
        route = Route.CHECKER_DECIDES
    else:
        used, enclosed = constants, None
        run, seeded = run_problem(problem, constants, max_boxes, folder)
        lost = _lost(problem, run, folder) if seeded and run.status is not False else None
        if lost:
            invalid = f"{folder.name}/{problem.group}.json is INVALID: {lost}"
            return Outcome(case.label, False, None, Evidence.CERTIFIED,
                           f"{invalid}; not replaced by the run that went on from it (`verify check "
                           "... --from-root` proves it from the root)",
                           values={"checker": Checker.ENGINE_ONLY.value,
                                   "route": Route.INVALID.value, "invalid": invalid})
        route = Route.RE_JUDGED if seeded else Route.ROOT
        where = (f"from the committed certificate certificates/{group}.json (its {run.judged} "
                 f"boxes re-judged)" if seeded else f"from the root ({run.judged} boxes judged)")
        checked = None
    status, small = run.status, run.smallest()
    claim = problem.statement.split(": ", 1)[1]  # without its "d = D: "
    text = f"{claim}: {len(run.leaves)} leaves, deepest split {run.deepest}, {where}"
    values = {"leaves": len(run.leaves), "deepest": run.deepest, "judged": run.judged,
              "d": problem.d, "checker": Checker.ENGINE_ONLY.value, "route": route.value,
              "failing": sum(leaf.status == "failing" for leaf in run.leaves),
              "disagree": sum(leaf.status == "disagree" for leaf in run.leaves),
              **({"sample": sample.value} if sample is not None else {})}
    margin = None
    if small is not None:
        shift = float(Fraction(used[problem.constant]) - Fraction(constants[problem.constant])) \
            if problem.constant else 0.0  # against the configured constant (a file's may be larger)
        margin = (small.margin[0] if enclosed is None else min(small.margin[0], enclosed)) + shift
        at = f" at {_fmt_box(problem, small.box)} (target {small.target + 1})"
        text += f"; smallest margin {margin:.4g}" + (
            at if margin == small.margin[0] + shift else
            f" (the checker's smallest lower bound; the engine stored {small.margin[0] + shift:.4g}{at})")
        values["smallest_margin"] = margin
    bound = proved_bound(problem, run, used, enclosed)
    if bound is not None:
        top = float(Fraction(used[problem.constant])) + min(leaf.margin[1] for leaf in run.leaves)
        values["proved_bound"], values["upper_bound"] = bound, math.nextafter(top, math.inf)
        text += (f"; the leaves prove the constant {bound:.6g} (and a value <= {top:.6g} at a "
                 f"point: the infimum lies between)")
    if problem.kind == "sharp":
        extra, more, sound = _sharp_text(problem.d)
        text += extra
        values.update(more)
        if not sound and status is True:
            status = False
    for leaf in [leaf for leaf in run.leaves if leaf.status != "certified"][:3]:
        text += f"; {leaf.status.upper()} box {_fmt_box(problem, leaf.box)}"
    if any(leaf.status == "disagree" for leaf in run.leaves):
        text = "ROUTES DISAGREE (the ratio engine and the general engine at a box's centre): " + text
        margin = None
    elif any(leaf.status == "failing" for leaf in run.leaves):
        text = "COUNTEREXAMPLE (at the centre of the failing box): " + text
        margin = min(leaf.margin[1] for leaf in run.leaves if leaf.status == "failing")
    elif status is None:
        text = "UNDECIDED: " + text
    elif not asked:
        values["checker"] = Checker.NOT_ASKED.value
        text = (f"{PROVED[problem.kind]} at d = {problem.d} (certified, ENGINE ONLY at this "
                f"profile: this profile does not ask the independent checker at d = {problem.d}; "
                f"`verify recheck --independent certificates/{problem.group}.json` asks it): " + text)
    elif checked is None and status is not True:
        values["checker"] = Checker.NOT_ASKED.value
        text = (f"NOT proved at d = {problem.d} (a check of the engine's below FAILS, so the "
                f"independent checker was not asked): " + text)
    else:
        accepted, said = checked if checked is not None else checker_verdict(run, constants)
        values["checker"] = (Checker.ACCEPTED if accepted else Checker.REJECTED).value
        if not accepted:
            status, margin = False, None
        text = (f"NOT accepted: {said}: " if not accepted else
                f"{PROVED[problem.kind]} at d = {problem.d} (certified; checked independently: "
                f"{said}): " if status is True else
                f"NOT proved at d = {problem.d} (the independent checker accepts the leaves, "
                f"{said}, but a check of the engine's below FAILS): ") + text
    return Outcome(case.label, status, margin, Evidence.CERTIFIED, text,
                   margin_kind="difference", values=values)


def trusted_route(problem: Problem, constants, folder: Path, share: float
                  ) -> tuple[Run, str, tuple[bool, str], dict, float | None, Sample | None] | None:
    """The default profile's route through the committed certificate when it was made for
    these constants or a larger one (each is a lower bound: the file's claim implies theirs;
    else None: the engine re-judges every leaf): the independent checker over every leaf in its
    own process, then the engine over a seeded sample of ``share`` of the leaves and the leaf of
    the smallest stored margin (:func:`recheck_leaf`: certified again, its stored enclosure
    overlapping).  (the stored leaves as a run, where they came from, (passed, what the checker
    and the sample said), the constants the leaves were judged with, the checker's smallest
    lower bound over its pieces or None, what the engine's sample found: None when the checker
    rejected the file and the engine was not asked)."""
    from . import trusted
    from .cube import Leaf

    path = folder / f"{problem.group}.json"
    raw = path.read_bytes() if path.is_file() else b""
    data = json.loads(raw) if raw else {}
    keys = [problem.constant] if problem.constant else []
    stored = data.get("constants") if isinstance(data, dict) else None
    try:
        want = {k: Fraction(stored[k]) for k in keys}
    except (KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    if not raw or not _matches(data, problem) or not isinstance(stored, dict) \
            or set(stored) != set(keys) or any(want[k] < Fraction(constants[k]) for k in keys):
        return None
    values = getattr(constants, "untracked", lambda: constants)()
    run = Run(problem, [Leaf(leaf_box(leaf["box"]), int(leaf["depth"]), leaf["status"],
                             tuple(float.fromhex(x) for x in leaf["margins"][problem.claim]),
                             leaf.get("target")) for leaf in data["leaves"]])
    where = (f"judged from the committed certificate certificates/{problem.group}.json (the "
             "default profile: the checker decides, the engine samples; `verify recheck` and the "
             "full profile re-judge every leaf with the engine)")
    tightest = min(range(len(run.leaves)), key=lambda i: run.leaves[i].margin[0])
    found = trusted.decide(raw, len(run.leaves), tightest, share,
                           lambda: checker_on(path, problem.group, values),
                           lambda chosen: [p for i in chosen for p in recheck_leaf(
                               (i, problem.group, run.leaves[i].box, run.leaves[i].margin, want))])
    if found.sample is None:
        return (run, where, (False, f"the independent checker REJECTS the leaves ({found.said})"),
                want, None, None)
    enclosed = found.enclosed if math.isfinite(found.enclosed) else None
    said = (f"verify/checker in its own process, every leaf: {found.summary}, its smallest "
            f"enclosure {found.enclosed:.6g}; the engine re-judged the leaf of the smallest stored "
            f"margin ({tightest}) and a seeded sample of {found.sampled} of the {len(run.leaves)} "
            "leaves")
    if found.problems:
        return (run, where, (False, f"the engine's sample DISAGREES with the file ({said}): "
                                    f"{found.problems[0]}"), want, enclosed, found.sample)
    return run, where, (True, said + " and agrees"), want, enclosed, found.sample


def checker_on(path: Path, group: str, values) -> tuple[bool, str]:
    """(accepted, its last line or first rejection) of the independent checker, in its own
    process (isolated imports, nothing of the engine: :func:`verify.certify.independent.ask`),
    on the certificate at ``path``, bound to the registered claim of ``group`` and to the
    constants' ``values``; the stored enclosures compared at each leaf's centre (`verify recheck
    --independent` adds the corners)."""
    from .independent import ask
    from .registered import registration

    from .trusted import said

    accepted, text = said(*ask({"certificate": str(path), "registered": registration(group),
                                "constants": {k: str(v) for k, v in values.items()},
                                "corners": False}))
    return accepted, text.replace(", the box is covered", "")


def checker_verdict(run: Run, constants) -> tuple[bool, str]:
    """:func:`checker_on` the run's leaves, written as a certificate to a temporary file; what
    it said without its timing (the same bytes on any machine)."""
    import tempfile

    from .trusted import checker_summary

    values = getattr(constants, "untracked", lambda: constants)()  # the run has read its own
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{run.problem.group}.json"
        write(run, values, path)
        accepted, said = checker_on(path, run.problem.group, values)
    if not accepted:
        return False, f"the independent checker REJECTS the leaves ({said})"
    summary, enclosed = checker_summary(said)
    return True, (f"verify/checker in its own process, every leaf: {summary}, its smallest "
                  f"enclosure {enclosed:.6g}")


def rewrite(data: dict, constants, executor=None) -> tuple[dict | None, str]:
    """A cube certificate written again by this code: every leaf judged again from its own box
    with ``constants`` (the file's values of the constant its claim reads), the same leaves,
    their enclosures and this code's fingerprint; (None, why) when a leaf does not certify
    again without a split.  Here, the tightest leaf first and stopping at the first that fails;
    on ``executor`` (:mod:`verify.run.executors`), every leaf in the file's order."""
    group = data.get("group")
    if data.get("format") != FORMAT or group not in PROBLEMS:
        return None, f"not a cube certificate ({group!r})"
    problem = PROBLEMS[group]
    values = {**constants, **{k: Fraction(v) for k, v in data.get("constants", {}).items()}}
    start = [(leaf_box(leaf["box"]), int(leaf["depth"])) for leaf in data["leaves"]]
    gaps = coverage_problems(problem.root, [box for box, _ in start]) if start else ["no leaves"]
    if gaps:
        return None, f"its leaves do not tile its root ({gaps[0]}): not rewritten"
    run = branch_and_bound(problem, values, start, None, MAX_DEPTH,
                           stop_on_failure=executor is None, executor=executor)
    if sorted(leaf.box for leaf in run.leaves) != sorted(box for box, _ in start) \
            or any(leaf.status != "certified" for leaf in run.leaves):
        return None, ("a leaf does not certify again without a split: not rewritten "
                      "(`verify certify-cube` from the root writes a new one)")
    order = {box: i for i, (box, _) in enumerate(start)}  # the file's leaf order kept
    run.leaves.sort(key=lambda leaf: order[leaf.box])
    new = certificate(run, values)
    new["judged"], new["cpu_seconds"] = data.get("judged"), data.get("cpu_seconds")  # the finding run's
    return new, f"{len(run.leaves)} leaves judged again"
