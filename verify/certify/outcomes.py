"""Certified checks for the registry: a box per profile, judged by branch and bound.

Proposition 1 over (d, eps); Theorem 2 and Corollary 1 over (d, eps, u = eta1/sqrt(d),
v = eta2_min/eta2), every step size their hypotheses allow (groups ``thm2-4d``, ``cor1-4d``,
proofs/hypothesis-range.md).  Imported lazily by the results modules.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, NamedTuple

from ..checks import Case, Evidence, Outcome, Profile
from . import statements
from .verdicts import Checker, Route

from .registered import BOXES, TAIL, TAIL_COR1, WHOLE, registered_box  # noqa: F401 (re-exported)

BITS = 96
MAX_DEPTH = {"prop1": 30, "thm2": 30, "cor1": 30, "thm2-4d": 40, "cor1-4d": 40,
             "thm2-4d-tail": 40, "cor1-4d-tail": 40}
# a checkout's certificates (certificates/*.json): a run whose box, constants, precision and
# method match one starts from its leaves instead of the root, which judges about half the
# boxes for the same outcome (verify.certify.certificate.seed); without them (an installed
# package) the run starts from the root
CERTIFICATES = Path(__file__).resolve().parent.parent.parent / "certificates"
WORST_CASE = "every alpha with alpha_s - max_j alpha_j >= ln(4d/eps^2)"


def check_of(group: str) -> str | None:
    """The registered check whose default boxes a certificate of ``group`` covers (its id), or
    None (the two-dimensional thm2 and cor1 boxes are faces of the four-dimensional ones, not
    registered any more)."""
    for key, profiles in BOXES.items():
        for box in profiles[Profile.DEFAULT]:
            if (box[5] if len(box) > 5 else key) == group:
                return f"{key.split('-')[0]}.certified_box"
    return None


def certified_cases(group: str, profile: Profile, options: Mapping) -> list[Case]:
    """One case per box of the profile (options ``d``/``eps`` replace them by one box of the
    group: their range, with the first box's budget; ``from_root``: start from the root, not
    from a committed certificate)."""
    boxes = BOXES[group][profile]
    if options.get("d") or options.get("eps"):
        d_lo, d_hi, e_lo, e_hi, budget = boxes[0][:5]
        if options.get("d"):
            d_lo, d_hi = min(options["d"]), max(options["d"])
        if options.get("eps"):
            e_lo, e_hi = min(options["eps"]), max(options["eps"])
        boxes = ((d_lo, d_hi, e_lo, e_hi, budget),)
    cases = [box_case(*box[:5], group=box[5] if len(box) > 5 else group) for box in boxes]
    if profile is Profile.DEFAULT and not (options.get("d") or options.get("eps")):
        from .trusted import SAMPLE  # the checker decides, the engine samples

        cases = [Case(c.label, {**c.params, "engine_sample": SAMPLE}) for c in cases]
    if options.get("from_root"):  # asked: no committed certificate seeds the run
        cases = [Case(c.label, {**c.params, "from_root": True}) for c in cases]
    return cases


def box_case(d_lo: float, d_hi: float, e_lo: float, e_hi: float, budget: int,
             group: str = "prop1") -> Case:
    """The case of one certified box of ``group``: d in [d_lo, d_hi], eps in [e_lo, e_hi] (a
    side of zero width widened by a relative 1e-9), certified within ``budget`` boxes."""
    if d_lo == d_hi:
        d_hi = d_lo * (1 + 1e-9)
    if e_lo == e_hi:
        e_hi = e_lo * (1 + 1e-9)
    eps = f"eps in (0, {e_hi:g}]" if e_lo == 0 else f"eps in [{e_lo:g}, {e_hi:g}]"
    label = f"d in [{d_lo:g}, {d_hi:g}], {eps}"
    if len(statements.axes(group)) == 4:
        label += ", every eta1 <= sqrt(d), eta2 >= eta2_min"
    return Case(label, {"d_lo": d_lo, "d_hi": d_hi, "eps_lo": e_lo, "eps_hi": e_hi,
                        "boxes": budget, "group": group})


def _root(group: str, p: Mapping, constants) -> tuple:
    from .boxes import hypothesis_box, log_box

    if statements.axes(group)[1] == "tau":
        from .eps_tail import tail_box

        return tail_box(p["d_lo"], p["d_hi"], p["eps_hi"],
                        u=(0.0, float(constants["thm2.eta1_scale"])))
    if len(statements.axes(group)) == 4:
        u_max = float(constants["thm2.eta1_scale"])
        return hypothesis_box(p["d_lo"], p["d_hi"], p["eps_lo"], p["eps_hi"], u=(0.0, u_max))
    return log_box(p["d_lo"], p["d_hi"], p["eps_lo"], p["eps_hi"])


def range_values(group: str, p: Mapping, root: tuple) -> dict:
    """The certified range as numbers for ``Outcome.values``: d_lo .. v_hi (the case's box,
    which the root covers: its float ends are rounded outward; u and v from 0: the limits
    eta1 -> 0 and eta2 -> inf, the hypotheses' open ends) and the step counts."""
    out = {key: float(p[key]) for key in ("d_lo", "d_hi", "eps_lo", "eps_hi")}
    if len(root) == 8:
        out.update(u_lo=root[4], u_hi=root[5], v_lo=root[6], v_hi=root[7])
    if group.startswith(("thm2", "cor1")):
        out["eta3"] = 1.0
        out["T"] = ("every integer T >= ceil(T_factor d ln(16d/eps))" if group.startswith("thm2")
                    else "every integer T >= ceil(72/eps)")
    return out


class Start(NamedTuple):
    """Where a case's branch and bound starts: ``seed`` (the certificate's leaves, None: the
    root), ``certificate`` (the file they come from), ``stale`` (why a committed certificate of
    the group does not apply: the constants it was made for; None when there is none),
    ``invalid`` (a committed certificate made for this case that is not one: its file and
    why; the check fails unless the case asks for a run from the root)."""

    group: str
    root: tuple
    seed: list | None
    certificate: str | None
    stale: str | None
    invalid: str | None = None
    source: str | None = None  # the seeding certificate's file


def start_of(case: Case, constants, group: str = "prop1", seed: bool = True) -> Start:
    """The :class:`Start` of a case of a certified box with these constants (``group``: the
    case's when it names none; ``seed=False``: only whether a committed certificate was made
    for other constants, without reading its leaves)."""
    from .certificate import invalid_note, seed_from, stale_note

    group = case.params.get("group", group)
    root = _root(group, case.params, constants)
    seed = seed and not case.params.get("from_root")
    invalid = invalid_note(CERTIFICATES, group, root, constants, MAX_DEPTH[group]) \
        if CERTIFICATES.is_dir() else None
    seeded = seed_from(CERTIFICATES, group, root, constants, BITS, "centred", MAX_DEPTH[group],
                       case.params["boxes"]) if seed and not invalid and CERTIFICATES.is_dir() \
        else None
    if seeded is not None:
        return Start(group, root, seeded.start, seeded.note, None, source=seeded.name)
    stale = stale_note(CERTIFICATES, group, root, constants) if CERTIFICATES.is_dir() else None
    return Start(group, root, None, None, stale, invalid)


def _progress(run, leaves: int | None) -> None:
    """The branch and bound's progress, for the display (:mod:`verify.run.progress`)."""
    from ..run.progress import note

    of = f" (the certificate's {leaves} leaves first)" if leaves else " (from the root)"
    certified = sum(leaf.status == "certified" for leaf in run.leaves)
    note(f"{run.judged} boxes judged{of}, {len(run.leaves)} leaves ({certified} certified), "
         f"{run.cpu_seconds:.0f} CPU-s")


def judge_certified(group: str, case: Case, constants) -> Outcome:
    """Branch and bound over the case's box: passed when every leaf is certified, failed when a
    leaf is a counterexample region, else undecided.  Margin: the smallest certified margin.
    Proposition 1 also proves, symbolically for every d, that the symmetric attention at the
    exact gap is the worst case (:func:`verify.engine.symbolic.background_worst_case`)."""
    from .boxes import branch_and_bound

    start = start_of(case, constants, group)
    if start.invalid and not case.params.get("from_root"):
        return Outcome(case.label, False, None, Evidence.CERTIFIED,
                       f"{start.invalid}; not replaced by a run from the root (`verify check ... "
                       "--from-root` proves the box from the root; `verify certify` writes a new "
                       "certificate)", values={"checker": Checker.NOT_ASKED.value,
                                                 "route": Route.INVALID.value,
                                                 "invalid": start.invalid})
    group, root, depth = start.group, start.root, MAX_DEPTH[start.group]
    if start.seed and case.params.get("engine_sample") and _checker_reads(group):
        return _checker_first(group, case, constants, start)
    run = branch_and_bound(group, root, constants, BITS, depth, max_boxes=case.params["boxes"],
                           start=start.seed,
                           progress=lambda r: _progress(r, len(start.seed) if start.seed else None))
    failed = _failed_leaves(start.seed, run) if run.status is not False else None  # else its own
    if failed and not case.params.get("from_root"):
        invalid = f"{start.source} is INVALID: {failed}"
        return Outcome(case.label, False, None, Evidence.CERTIFIED,
                       f"{invalid}; not replaced by the run that went on from it (`verify check "
                       "... --from-root` proves the box from the root)",
                       values={"checker": Checker.NOT_ASKED.value, "route": Route.INVALID.value,
                               "invalid": invalid})
    small = run.smallest_margin()
    status, margin = run.status, (small[0] if small and run.status is not False else None)
    if run.status is False:
        margin = min((lo for leaf in run.leaves if leaf.status == "failing"
                      for lo, _ in leaf.margins.values()), default=-math.inf)
    statement = statements.statement(group, root, constants)
    if group == "prop1":
        status, statement = _worst_case(status, statement)
    note = f"; {start.certificate}" if start.certificate and "fingerprint differs" in start.certificate else ""
    if start.stale:
        note += f"; {start.stale}: proved from the root"
    if case.params.get("from_root"):
        note += "; proved from the root, as asked" + (f" ({start.invalid})" if start.invalid else "")
    checker = Checker.NOT_ASKED
    if status is True:  # passes only when the independent checker agrees (proofs/checker.md)
        status, checked, checker = independently(run, constants)
        note += checked
    head = {True: "certified", False: "COUNTEREXAMPLE region", None: "not all certified"}[run.status]
    if checker is Checker.ENGINE_ONLY:
        head = "certified, ENGINE ONLY (the independent checker does not read this group)"
    return Outcome(case.label, status, margin, Evidence.CERTIFIED,
                   f"{head}: {statement}; {run.tally()}{note}",
                   margin_kind="difference",
                   values={"leaves": len(run.leaves), "deepest": run.deepest,
                           "checker": checker.value,
                           "route": (Route.RE_JUDGED if start.seed else Route.ROOT).value,
                           **range_values(group, case.params, root)})


def _checker_reads(group: str) -> bool:
    from ..checker.claims import GROUPS

    return group in GROUPS


def _checker_first(group: str, case: Case, constants, start: Start) -> Outcome:
    """The default profile's route through a committed certificate made for these constants
    (:mod:`verify.certify.trusted`): the independent checker over every leaf in its own
    process, the engine over a seeded sample; the margin is the certificate's smallest stored
    lower end, which the checker compared with its own value at each leaf's centre."""
    from . import trusted

    values = getattr(constants, "untracked", lambda: constants)()
    for key in statements.READS.get(group, ()):  # what the verdict depends on (verify deps)
        constants[key]
    box = tuple(case.params[k] for k in ("d_lo", "d_hi", "eps_lo", "eps_hi"))
    passed, run, checked, margin, sample = trusted.judge(CERTIFICATES.parent / start.source, group,
                                                 start.root, box, values,
                                                 case.params["engine_sample"])
    statement = statements.statement(group, start.root, constants)
    status: bool | None = passed
    if group == "prop1":
        status, statement = _worst_case(status, statement)
    note = (f"; judged from the {len(run.leaves)} leaves of {start.source} (the default "
            "profile: the checker decides, the engine samples; `verify recheck` and the full "
            "profile re-judge every leaf with the engine)" + checked)
    return Outcome(case.label, status, margin if passed else None, Evidence.CERTIFIED,
                   f"{'certified' if passed else 'NOT accepted'}: {statement}; {run.tally()}{note}",
                   margin_kind="difference",
                   values={"leaves": len(run.leaves), "deepest": run.deepest,
                           "checker": (Checker.ACCEPTED if passed else Checker.REJECTED).value,
                           "route": Route.CHECKER_DECIDES.value,
                           **({"sample": sample.value} if sample is not None else {}),
                           **range_values(group, case.params, start.root)})


def _failed_leaves(seed: list | None, run) -> str | None:
    """Which leaves of the seeding certificate this code did not certify again (the run split
    them or left them uncertified), in words; None when every one held (or no seed)."""
    if not seed:
        return None
    kept = {leaf.box for leaf in run.leaves if leaf.status == "certified"}
    lost = [i for i, (box, _) in enumerate(seed) if box not in kept]
    return (f"{len(lost)} of its {len(seed)} leaves (the first: leaf {lost[0]}) did not certify "
            "when judged again by this code") if lost else None

def _worst_case(status: bool | None, statement: str) -> tuple[bool | None, str]:
    """Proposition 1's box certifies the symmetric attention at the exact gap; with the
    worst-case steps proved (every d) it covers every alpha with that gap or more."""
    from ..engine.symbolic import background_worst_case

    steps = background_worst_case()
    if all(ok for _, ok in steps):
        return status, statement.replace(
            "L_s(ln(4d/eps^2) e_s, 2 e_s) <= eps",
            f"L_s(alpha, 2 e_s) <= eps for {WORST_CASE} (the symmetric alpha at the exact gap is "
            "the worst case: SymPy, every d)")
    missing = "; ".join(text for text, ok in steps if not ok)
    return (None if status else status), f"{statement}; worst case NOT proved ({missing})"


def independently(run, constants) -> tuple[bool, str, Checker]:
    """(verdict, what to add to the detail, what the checker said): the run's certificate judged
    by the independent checker (verify.checker), which shares no code with the engine that
    found it.  A group the checker had no margins for would keep the engine's verdict and say
    so (the proof ledger counts it "certified, engine only", never proved); today the checker
    reads every group (the eps tails over (ln d, tau, u, v) included)."""
    from ..checker import recheck as checker
    from ..checker.claims import GROUPS
    from .certificate import certificate

    if run.group not in GROUPS:
        return True, (f"; not checked independently: verify/checker has no margins for "
                      f"{run.group} yet (every leaf judged by this engine)"), Checker.ENGINE_ONLY
    values = getattr(constants, "untracked", lambda: constants)()  # the run has read its own
    from ..run.progress import note

    note(f"the independent checker judges the {len(run.leaves)} leaves", force=True)
    # at the leaves' centres; `verify recheck --independent` adds the corners
    verdict = checker.check(checker.read(certificate(run, values)), corners=False)
    if verdict.ok:
        return True, (f"; checked independently (verify/checker, every leaf: {verdict.boxes} "
                      f"boxes judged, {verdict.split_leaves} leaves split further, the stored "
                      "enclosures agree at the centres)"), Checker.ACCEPTED
    return False, "; the independent checker REJECTS it: " + verdict.problems[0], Checker.REJECTED
