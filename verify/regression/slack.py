"""``verify slack KEY``: how far one constant can move before a check that reads it stops passing.

The checks are those the recorded dependency map lists as readers of KEY (verify/dependencies.py),
judged on the chosen cases (a profile, optionally narrowed by ``--d`` / ``--eps``).  A *probe* sets
KEY to an exact rational and judges those cases; it passes when every case that passes at the
current value still passes (cases already failing there, such as a documented discrepancy, are
left out and counted).  The search:

1. judges every case at the current value v (the baseline, with each case's margin);
2. without a bracket, probes 2v and v/2: the side on which a probe fails, or failing that on
   which some margin shrank, is the constant's *direction* (larger values harder: the slack is
   the largest passing value; smaller values harder: the smallest); that side is widened by
   doublings (at most ``MAX_DOUBLINGS``) until a probe fails;
3. bisects on exact rationals between the last passing and the first failing value, taking the
   simplest fraction in the middle half of the interval, until the interval is below ``rtol``
   of the passing value.

With ``lo`` and ``hi`` the bracket is given: whichever end passes sets the direction; when
neither does the answer is "no passing value in [lo, hi]".  The check and case that fail at the
nearest failing value are printed as the one that binds first.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Mapping, Sequence

from ..checks import Check, Profile
from .dependencies import DependencyError

MEASURED = ("prop2.c1", "prop3.c2", "prop4.c4", "thm2.C", "cor1.C", "thm1.c3")
DEFAULT_RTOL = Fraction(1, 100)
MAX_DOUBLINGS = 8


class NoPassingValue(Exception):
    """The bracket holds no passing value (reported in one line, exit 1)."""


@dataclass(frozen=True)
class Probe:
    value: Fraction
    failures: tuple[tuple[str, str, str], ...]  # (check, case, detail), newly failing cases
    margins: Mapping[tuple[str, str], float | None] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass(frozen=True)
class Slack:
    key: str
    value: Fraction  # the current value
    direction: str | None  # "largest" / "smallest": which extreme was searched; None: none binds
    limit: Fraction | None  # the extreme passing value found
    failing: Fraction | None  # the nearest failing value (the other end of the last interval)
    binding: tuple[str, str, str] | None  # (check, case, detail) failing at ``failing``
    checks: tuple[str, ...]
    left_out: tuple[tuple[str, str], ...]  # (check, case) failing already at the current value
    probes: int
    seconds: float  # wall-clock
    note: str = ""
    cpu: float = 0.0  # CPU seconds of this process (the cost on a shared machine)

    @property
    def factor(self) -> float | None:
        if self.limit is None or self.value == 0:
            return None
        return float(self.limit / self.value)


Judge = Callable[[Fraction, bool], Probe]


def prober(key: str, checks: Sequence[Check], constants: Mapping[str, Fraction], profile: Profile,
           options: Mapping[str, object], skip: frozenset = frozenset(),
           tell: Callable[[str], None] = lambda text: None) -> Judge:
    """``probe(value, stop_early)``: judge every case of ``checks`` with KEY = value, except the
    (check, case) pairs in ``skip``; with ``stop_early`` it stops at the first failure.
    ``tell(text)`` hears which case is being judged (the progress display)."""
    def probe(value: Fraction, stop_early: bool) -> Probe:
        consts = {**constants, key: value}
        failures, margins = [], {}
        for number, check in enumerate(checks, start=1):
            for case in check.cases(profile, consts, options):
                if (check.id, case.label) in skip:
                    continue
                tell(f"{key} = {value}: {check.id} (check {number} of {len(checks)}) at {case.label}")
                outcome = check.judge(case, consts)
                margins[(check.id, case.label)] = outcome.margin
                if outcome.passed is not True:
                    failures.append((check.id, case.label, outcome.detail))
                    if stop_early:
                        return Probe(value, tuple(failures), margins)
        return Probe(value, tuple(failures), margins)
    return probe


def simplest_between(a: Fraction, b: Fraction) -> Fraction:
    """The fraction with the smallest denominator in [a, b] (a <= b), by continued fractions."""
    if a > b:
        a, b = b, a
    if a <= 0 <= b:
        return Fraction(0)
    if b < 0:
        return -simplest_between(-b, -a)
    fl = math.floor(a)
    if fl == a or fl + 1 <= b:
        return Fraction(fl if fl == a else fl + 1)
    return fl + 1 / simplest_between(1 / (b - fl), 1 / (a - fl))


def tightened(base: Probe, other: Probe) -> bool:
    """Did any case's margin shrink (beyond rounding) from ``base`` to ``other``?"""
    for where, m in other.margins.items():
        m0 = base.margins.get(where)
        if m is not None and m0 is not None and math.isfinite(m0) and m < m0 - 1e-9 * max(1.0, abs(m0)):
            return True
    return False


def bisect(probe: Judge, good: Fraction, bad: Fraction, bad_probe: Probe,
           rtol: Fraction) -> tuple[Fraction, Fraction, Probe]:
    """Narrow [good, bad] (good passes, bad fails) to below rtol * |good|, each time probing the
    simplest fraction in the middle half of the interval."""
    while abs(bad - good) > rtol * abs(good):
        quarter = (bad - good) / 4
        mid = simplest_between(good + quarter, bad - quarter)
        p = probe(mid, True)
        if p.passed:
            good = mid
        else:
            bad, bad_probe = mid, p
    return good, bad, bad_probe


@dataclass(frozen=True)
class Found:
    direction: str | None
    limit: Fraction | None = None
    failing: Fraction | None = None
    failing_probe: Probe | None = None
    note: str = ""


def search(key: str, value: Fraction, probe: Judge, lo: Fraction | None = None,
           hi: Fraction | None = None, rtol: Fraction = DEFAULT_RTOL,
           baseline: Probe | None = None) -> Found:
    """The search of the module docstring; ``probe`` already leaves out the baseline's failures."""
    if lo is not None and hi is not None:
        p_lo, p_hi = probe(lo, True), probe(hi, True)
        if not p_lo.passed and not p_hi.passed:
            raise NoPassingValue(f"{key}: no passing value in [{lo}, {hi}] (at {lo}: "
                                 f"{_where(p_lo)}; at {hi}: {_where(p_hi)})")
        if p_lo.passed and p_hi.passed:
            return Found(None, note=f"both ends of [{lo}, {hi}] pass: the bracket does not bind {key}")
        good, bad, bad_probe = bisect(probe, *((lo, hi, p_hi) if p_lo.passed else (hi, lo, p_lo)), rtol)
        return Found("largest" if good < bad else "smallest", good, bad, bad_probe)
    if value == 0:
        raise DependencyError(f"{key} is 0: give a bracket with --lo and --hi")
    up, down = probe(value * 2, False), probe(value / 2, False)
    sides = [p for p in (up, down) if not p.passed] or \
            [p for p in (up, down) if baseline is not None and tightened(baseline, p)]
    if not sides:
        return Found(None, note=f"no margin moves between {value / 2} and {value * 2}: {key} does not bind here")
    last = sides[0]
    factor = last.value / value
    good = value
    for _ in range(MAX_DOUBLINGS):
        if not last.passed:
            break
        good = last.value
        last = probe(last.value * factor, True)
    if last.passed:
        return Found(None, note=f"every probed value up to x{float(factor) ** (MAX_DOUBLINGS + 1):g} "
                                f"of {value} passes")
    note = ""
    if len(sides) == 2:
        other = sides[1]
        note = (f"it binds below too: at {other.value} {_where(other)}" if not other.passed
                else "margins shrink on the other side too")
    good, bad, bad_probe = bisect(probe, good, last.value, last, rtol)
    return Found("largest" if factor > 1 else "smallest", good, bad, bad_probe, note)


def _where(p: Probe) -> str:
    c, k, _ = p.failures[0]
    return f"{c} fails at {k}"


def slack(key: str, constants: Mapping[str, Fraction], checks: Sequence[Check], profile: Profile,
          options: Mapping[str, object], lo: Fraction | None = None, hi: Fraction | None = None,
          rtol: Fraction = DEFAULT_RTOL,
          progress: Callable[[int, str], None] = lambda probes, text: None) -> Slack:
    """The slack of one constant over ``checks`` (its readers) on the chosen cases;
    ``progress(probes, text)``: the probes begun and the case being judged, as it goes."""
    if not checks:
        raise NoPassingValue(f"no check reads {key}: nothing binds it")
    start, cpu = time.perf_counter(), time.process_time()
    value = constants[key]
    if value == 0 and lo is None:
        raise DependencyError(f"{key} is 0: give a bracket with --lo and --hi")
    probes = [1]

    def tell(text: str) -> None:
        progress(probes[0], f"probe {probes[0]}: {text}")

    baseline = prober(key, checks, constants, profile, options, tell=tell)(value, False)
    skip = tuple((c, k) for c, k, _ in baseline.failures)
    judge = prober(key, checks, constants, profile, options, frozenset(skip), tell)

    def counted(v: Fraction, early: bool) -> Probe:
        probes[0] += 1
        return judge(v, early)

    found = search(key, value, counted, lo, hi, rtol, baseline)
    bad = found.failing_probe
    return Slack(key, value, found.direction, found.limit, found.failing,
                 bad.failures[0] if bad else None, tuple(c.id for c in checks), skip,
                 probes[0], time.perf_counter() - start, found.note, time.process_time() - cpu)


def line(s: Slack) -> str:
    """One line for the terminal."""
    head = f"{s.key} = {s.value}"
    if s.direction is None:
        return f"{head}: {s.note} ({s.probes} probes, {s.seconds:.0f} s)"
    check, case, detail = s.binding
    room = "the current value: no room" if s.limit == s.value else f"x{s.factor:.3g} of the current"
    text = (f"{head}: {s.direction} passing value {s.limit} (~{float(s.limit):.4g}, {room}); first to "
            f"fail, at {s.failing} (~{float(s.failing):.4g}): {check} at {case}: "
            f"{detail} ({s.probes} probes, {s.seconds:.0f} s)")
    if s.left_out:
        text += (f"; {len(s.left_out)} cases already failing at the current value left out: "
                 + left_out_text(s.left_out))
    return text + (f"; {s.note}" if s.note else "")


def left_out_text(cases: Sequence[tuple[str, str]], shown: int = 6) -> str:
    """The cases left out, named ("thm2.delta at d=3, eps=1e-06; ..."), the first ``shown``."""
    text = "; ".join(f"{check} at {case}" for check, case in cases[:shown])
    return text + (f"; and {len(cases) - shown} more (--json lists them)" if len(cases) > shown else "")


def as_dict(s: Slack) -> dict:
    return {"key": s.key, "value": str(s.value), "direction": s.direction,
            "limit": None if s.limit is None else str(s.limit),
            "failing": None if s.failing is None else str(s.failing), "factor": s.factor,
            "binding": None if s.binding is None else dict(zip(("check", "case", "detail"), s.binding)),
            "checks": list(s.checks), "left_out": len(s.left_out),
            "left_out_cases": [{"check": c, "case": k} for c, k in s.left_out], "probes": s.probes,
            "seconds": round(s.seconds, 1), "cpu_seconds": round(s.cpu, 1), "note": s.note}


def _cost(s: Slack) -> str:
    return f"{s.cpu:.0f} s / {s.seconds:.0f} s"


def _cut(text: str, width: int = 160) -> str:
    """A failure's detail, shortened for a table cell (``verify slack --json`` keeps it whole)."""
    return text if len(text) <= width else text[:width - 1] + "…"


def markdown(slacks: Sequence[Slack], command: str, profile: Profile) -> str:
    """The opt-in exhibit: the slack of each constant on the cases of one command."""
    lines = ["# Slack of the measured constants (exhibit)", "",
             f"Generated by `{command}` (profile `{profile.value}`). For each constant: the extreme "
             "value for which every check that reads it still passes on these cases (bisection on "
             "exact rationals to 1% of the value), and the check that fails first beyond it. An "
             "exhibit: it measures room, it claims nothing.", "",
             "| constant | value | direction | limit | x current | binds first (just beyond the limit) "
             "| probes | CPU / wall |",
             "|---|---|---|---|---|---|---|---|"]
    for s in slacks:
        if s.direction is None:
            lines.append(f"| `{s.key}` | {s.value} | - | - | - | {s.note} | {s.probes} | {_cost(s)} |")
            continue
        check, case, detail = s.binding
        lines.append(f"| `{s.key}` | {s.value} | {s.direction} | {s.limit} (~{float(s.limit):.4g}) | "
                     f"x{s.factor:.3g} | `{check}` at {case}: {_cut(detail).replace('|', '/')} | {s.probes} | "
                     f"{_cost(s)} |")
    cpu, wall = sum(s.cpu for s in slacks), sum(s.seconds for s in slacks)
    lines += ["", f"Cost: {sum(s.probes for s in slacks)} probes (each judges every case of the reading "
              f"checks, or stops at the first failure), {cpu:.0f} CPU seconds in one process "
              f"({wall:.0f} s wall-clock on the machine that made it).", ""]
    return "\n".join(lines)
