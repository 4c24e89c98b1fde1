"""Helpers shared by the result modules: case grids and margins (no mathematics of the paper)."""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from ..checks import Case, Evidence, Outcome, Profile
from ..engine.estimate import ErrorKind, Estimate
from ..engine.precision import to_mpf
from ..run.memo import judge as judge_once  # noqa: F401  (re-exported: a check reading another's outcome)


def log_grid(lo: float, hi: float, n: int, integer: bool = False) -> list:
    """``n`` log-spaced values from lo to hi (rounded and deduplicated for integers)."""
    if n == 1:
        return [int(lo) if integer else lo]
    vals = [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]
    if integer:
        return sorted({int(round(v)) for v in vals})
    return [float(f"{v:.3g}") for v in vals]


def grid(profile: Profile, options: Mapping[str, object], d_by_profile: Mapping[Profile, Sequence],
         eps_by_profile: Mapping[Profile, Sequence]) -> list[Case]:
    """All (d, eps) pairs for the profile; ``options`` may replace either axis."""
    ds = options.get("d") or d_by_profile[profile]
    epss = options.get("eps") or eps_by_profile[profile]
    return [Case(grid_label(d, e), {"d": int(d), "eps": float(e)}) for d in ds for e in epss]


def grid_label(d: int, eps: float) -> str:
    """The label of the grid's (d, eps) case (a check's plain case at that point)."""
    return f"d={int(d)}, eps={float(eps):g}"


ERROR_WORDS = {ErrorKind.ESTIMATED: "error estimate", ErrorKind.PROVEN: "proven error bound",
               ErrorKind.ENCLOSURE: "enclosure radius"}


def as_estimate(value, error=None, kind: ErrorKind = ErrorKind.ESTIMATED) -> Estimate:
    """``value`` as an :class:`Estimate`; a bare number with an ``error`` is taken as an estimate
    (the weakest kind) unless ``kind`` says otherwise."""
    if isinstance(value, Estimate):
        return value
    return Estimate(value, 0 if error is None else error, kind)


def error_text(e: Estimate) -> str:
    """How the detail names an error: "error estimate 1e-20" / "proven error bound ..." / ..."""
    return f"{ERROR_WORDS[e.kind]} {mpmath.nstr(mpmath.mpf(e.error), 2)}"


def ratio_outcome(case: Case, value, bound, error=None, evidence: Evidence = Evidence.NUMERIC,
                  detail: str = "", values: Mapping[str, float | str] | None = None) -> Outcome:
    """Judge ``value <= bound`` for ``value`` an :class:`Estimate` (or a number with ``error``,
    taken as an estimate): pass only if ``value + error <= bound``; undecided if the error
    straddles the bound.  The detail names the error by its kind (estimate, proven bound,
    enclosure)."""
    est = as_estimate(value, error)
    with mpmath.workdps(30):
        v, bound, err = mpmath.mpf(est.value), mpmath.mpf(bound), mpmath.mpf(est.error)
        margin = float(bound / v) if v > 0 else float("inf")
        if v + err <= bound:
            passed = True
        elif v - err > bound:
            passed = False
        else:
            passed = None
    text = detail or f"value {mpmath.nstr(v, 6)} vs bound {mpmath.nstr(bound, 6)}"
    text += f" ({error_text(Estimate(err, err, est.kind))})"
    return Outcome(case.label, passed, margin, evidence, text, values=dict(values or {}))


def floor_outcome(case: Case, found: float, value, error, bound, detail: str,
                  values: Mapping[str, float | str] | None = None) -> Outcome:
    """Judge a searched floor ``>= bound`` (search evidence): ``found`` is the search's float64
    value, ``value`` its high-precision re-evaluation (an :class:`Estimate`, or a number with
    ``error`` taken as an estimate).  Fails loudly (COUNTEREXAMPLE) when either is below the
    bound; passes when the whole interval is above it; else undecided.  Margin:
    (value - error)/bound.  The detail names the re-evaluation's error by its kind."""
    est = as_estimate(value, error)
    with mpmath.workdps(30):
        value, error = mpmath.mpf(est.value), mpmath.mpf(est.error)
        if isinstance(bound, Fraction):
            bound = mpmath.mpf(bound.numerator) / bound.denominator
        bound = mpmath.mpf(bound)
        detail = f"{detail} ({error_text(Estimate(error, error, est.kind))})"
        if found < bound or value + error < bound:
            return Outcome(case.label, False, float(value / bound), Evidence.SEARCH,
                           "COUNTEREXAMPLE: " + detail, values=dict(values or {}))
        passed = True if value - error >= bound else None
        return Outcome(case.label, passed, float((value - error) / bound), Evidence.SEARCH, detail,
                       values=dict(values or {}))


def smallest_passing(ok: Callable[[mpmath.mpf], bool], lo, hi, steps: int,
                     geometric: bool = False) -> mpmath.mpf:
    """Bisection for the threshold of a monotone predicate: ``ok(hi)`` holds and ``ok(lo)`` does
    not; returns an ``hi`` that passes, ``steps`` halvings (in log scale if ``geometric``) above
    the threshold."""
    for _ in range(steps):
        mid = mpmath.sqrt(lo * hi) if geometric else (lo + hi) / 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def difference_outcome(case: Case, slack, evidence: Evidence, detail: str,
                       error=None) -> Outcome:
    """Judge ``slack > 0`` (a strict inequality written as bound - value); ``slack`` may be an
    :class:`Estimate` (or a number with ``error``, an estimate): pass when ``slack - error > 0``,
    fail when ``slack + error <= 0``, undecided between."""
    est = as_estimate(slack, error)
    s, err = float(est.value), float(est.error)
    passed = True if s - err > 0 else (False if s + err <= 0 else None)
    if err:
        detail = f"{detail} ({error_text(est)})"
    return Outcome(case.label, passed, s, evidence, detail, margin_kind="difference")


# ------------------------------------------------ shared by the search-based result modules


def constant(constants: Mapping, key: str) -> mpmath.mpf:
    """The constant ``key`` (an exact Fraction in the constants file) as an mpf at the current
    precision (:func:`verify.engine.precision.to_mpf`: never through a float)."""
    return to_mpf(constants[key])


def rational(x: Fraction | int) -> sp.Rational:
    """An exact constant as a SymPy Rational."""
    x = Fraction(x)
    return sp.Rational(x.numerator, x.denominator)


def single_case(label: str) -> Callable[..., list[Case]]:
    """The case function of a check with one case (a statement for a whole range, e.g. a proof
    "all d >= 3"): ``Check(..., single_case("all d >= 3"), judge)``."""
    def cases(profile, constants, options) -> list[Case]:
        return [Case(label, {})]

    return cases


def fmt_vector(x, digits: int = 4, limit: int | None = None, relative: bool = False) -> str:
    """``[v0, v1, ...]`` with ``digits`` significant digits, at most ``limit`` entries;
    ``relative`` shifts the entries by their max first (logits are defined up to a shift).

    >>> fmt_vector([3.0, 1.0, 2.5], relative=True)
    '[0, -2, -0.5]'
    """
    vals = np.asarray(x, dtype=np.float64)
    if relative:
        vals = vals - vals.max()
    shown = vals if limit is None else vals[:limit]
    text = ", ".join(f"{v:.{digits}g}" for v in shown)
    return "[" + text + (", ..." if limit is not None and vals.size > limit else "") + "]"


def lower_outcome(case: Case, value, lower, upper, bound, evidence: Evidence, detail: str,
                  values: Mapping[str, float | str] | None = None) -> Outcome:
    """Judge ``value >= bound`` given ``[lower, upper]`` around value: pass if lower >= bound,
    fail if upper < bound, undecided otherwise.  Margin = value / bound (> 1 holds)."""
    with mpmath.workdps(30):
        value, lower, upper, bound = (to_mpf(x) if isinstance(x, Fraction) else mpmath.mpf(x)
                                      for x in (value, lower, upper, bound))
        passed = True if lower >= bound else False if upper < bound else None
        margin = float(value / bound) if bound > 0 else float("inf")
    return Outcome(case.label, passed, margin, evidence, detail, values=dict(values or {}))


# ------------------------------------------------ certified values at a search's found point

CERTIFIED_NOTE = "certified floor at the found point; the minimum over all points remains a search"
# a second route's value (the search's high-precision re-evaluation at the same point) must lie
# in the ball, widened by its own error estimate and by this relative slack: the value comes
# back as a float64 and the point as floats (rounding far below it, any engine fault far above)
AGREE_REL = 2.0 ** -30


def dedicated_outcome(check_id: str, case: Case, constants: Mapping) -> Outcome:
    """The outcome of the check ``check_id`` (found through the registry) on ``case``, from the
    run's outcome store when that check has already judged it (:func:`verify.memo.judge`), as
    contrast's ``dedicated`` does; a certified check built on a search check shares its cases."""
    from . import by_id  # the registry (imported when first needed: it imports this module)

    check = next(c for c in by_id(check_id.split(".")[0]).checks if c.id == check_id)
    return judge_once(check, case, constants)


def reference_of(found: Outcome, value_key: str, error_key: str) -> Estimate | None:
    """The search's high-precision value at its found point (``found.values``), as an
    :class:`Estimate` (an estimate: the engine's quadrature error), or None when absent."""
    v = found.values
    if value_key not in v or error_key not in v:
        return None
    return Estimate(float(v[value_key]), float(v[error_key]), ErrorKind.ESTIMATED)


def routes_agree(ball, reference: Estimate) -> bool:
    """Whether the ball meets ``reference`` +- (its error + AGREE_REL |value|): two independent
    routes (Arb balls, the mpmath or float64 engine) at the same point."""
    from flint import arb

    v, e = float(reference.value), float(reference.error)
    tol = e + abs(v) * AGREE_REL
    return bool(ball.is_finite() and ball.overlaps(arb(v - tol).union(arb(v + tol))))


def ball_outcome(case: Case, ball, bound, detail: str, above: bool = True,
                 values: Mapping[str, float | str] | None = None, note: str = CERTIFIED_NOTE,
                 reference: Estimate | None = None) -> Outcome:
    """Judge a ball (python-flint ``arb``) against ``bound`` (a Fraction or a number) with
    certified evidence: ``above`` claims value >= bound (else value <= bound); passes only when
    the whole ball lies on the claimed side, fails when the whole ball lies on the other side,
    and is undecided when it straddles the bound or is not finite.  ``note`` says what the ball
    bounds; a ``reference`` (a second route's value at the same point, :func:`routes_agree`)
    that the ball misses makes the outcome undecided (ROUTES DISAGREE): a wrong ball is not
    a pass whichever side of the bound it lies.  Margin: mid/bound (above) or bound/mid."""
    from flint import arb

    b = Fraction(bound)
    bound_ball = arb(b.numerator) / b.denominator
    lo, hi, mid = ball.lower(), ball.upper(), ball.mid()
    if not ball.is_finite():
        passed = None
    elif above:
        passed = True if lo >= bound_ball else False if hi < bound_ball else None
    else:
        passed = True if hi <= bound_ball else False if lo > bound_ball else None
    margin = None
    if ball.is_finite() and float(mid) > 0 and float(bound_ball) > 0:
        margin = float(mid) / float(bound_ball) if above else float(bound_ball) / float(mid)
    text = (f"{detail}: ball [{float(lo):.10g}, {float(hi):.10g}] (radius {float(ball.rad()):.1e}) "
            f"{'>=' if above else '<='} {b} ({note})")
    if reference is not None:
        if routes_agree(ball, reference):
            text += "; the search's high-precision value lies in it (within its error estimate)"
        else:
            passed = None
            text = (f"ROUTES DISAGREE (the search's high-precision value "
                    f"{float(reference.value):.12g} +- {float(reference.error):.1e} is outside "
                    f"the ball): " + text)
    if passed is None and not text.startswith("ROUTES"):
        text = "UNDECIDED (the ball straddles the bound or is not finite): " + text
    return Outcome(case.label, passed, margin, Evidence.CERTIFIED, text,
                   values={"lower": float(lo), "upper": float(hi), **(values or {})})
