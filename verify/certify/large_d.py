"""Theorem 2 and Corollary 1 for every real d >= D0 (proofs/large-d.md): a perturbation lemma
around the closed forms of the limit eta2 -> inf (proofs/hypothesis-range.md, section 3).

Past d = 10^9 the four-axis boxes stop (hypothesis-range.md, section 9), but there nothing is
close to its bound: Phase 2's attention gap is at least C kappa_min ln(d/eps), so the background
weight b = e^-gap is at most (eps/d)^K with K = C kappa_min (about 4), and the moments
nu_r = E[(1 - gamma_s)^r 1{k >= 1}] are at most b E[m] = b (d - 1) <= d^(1-K) eps^K.  With the
moments that small, the Phase-3 quadratic is within d^(1-K) of its v = 0 limit, and every
claim's relative margin is bounded below by a closed form of D0 and the configured constants:

    contraction   8 d lambda_1 - 1       >= 8 ell_1 - 1,   ell_1 = den_lo/trace_hi
    distance      1 - |e|_W^2/(16 d)      >= 1 - E/(16 D0)
    optimum       1 - L*/(2 delta)       >= 1/2          (L* <= 2 nu_2 <= 2 nu_1 = delta)
    delta         1 - 4 delta/eps        >= 1 - 8 theta,   theta = D0^(1-K)
    final (thm2)  1 - L(T)/eps           >= 1 - 2 theta - trace_hi E/2 (16 D0)^-kappa_3
    final (cor1)  1 - L(T)/eps           >= 1 - 2 theta - E/(4 e N)

The steps that hold for every d (identities of the engine's closed forms and reduction, signs
of derivatives, E[m] = d - 1) are SymPy's (:func:`symbolic_steps`); the constants they leave are
evaluated in Arb balls (:func:`bounds`).  The engine's values at d = D0 (gap rate, Phase 1, the
Phase-3 quadratic at a reference moment pair: :func:`anchors`) go into the certificate, where the
independent checker (:mod:`verify.checker.large_d`) compares them with its own and proves every
margin again its own way.  Axes of the certificate: p = 1/(d - 1) in [0, p0] (p = 0 is the limit
d -> inf), eps in [0, 1], u = eta1/sqrt(d) in [0, eta1_scale], v = eta2_min/eta2 in [0, 1]; the
ends 0 and eps = 1 are limits, not hypotheses.
"""
from __future__ import annotations

import math

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import sympy as sp
from flint import arb

from ..engine.certified.balls import outward, precision
from ..engine.certified.symmetric import arb_gap_rate_parts
from ..run.journal import finder_fingerprint
from . import plan_range
from .registered import D0  # where the four-axis boxes end: the lemma covers every d >= D0

GROUPS = {"thm2-large-d": "thm2", "cor1-large-d": "cor1"}
CLAIMS = {"thm2": ("thm2.final", "thm2.contraction", "thm2.initial_distance", "thm2.optimum",
                   "thm2.delta"), "cor1": ("cor1.population",)}
READS = {"thm2": ("thm2.C", "thm2.eta1_scale", "thm2.T_factor"),
         "cor1": ("cor1.C", "thm2.eta1_scale", "cor1.T_numerator")}
AXES = ("p = 1/(d-1)", "eps", "u", "v")
BITS = 128
METHOD = "lemma"
REFERENCE_NU = (Fraction(1, 64), Fraction(1, 128))  # the anchors' moment pair (a choice)
FORMAT = "verify-certificate/2"
CERTIFICATES = Path(__file__).resolve().parent.parent.parent / "certificates"

FINDER = "certify/large_d.py"  # the lemma's judge; the fingerprint covers what it imports


# -- the steps for every d (SymPy) ----------------------------------------------------------------

def _plain_logs(expr: sp.Expr, d: sp.Symbol, ell: sp.Symbol) -> sp.Expr:
    """``expr`` with ln(d - 1) (or ln(1/(d - 1))) written as the symbol ``ell``."""
    def one(x):
        if sp.simplify(x - (d - 1)) == 0:
            return ell
        if sp.simplify(x * (d - 1) - 1) == 0:
            return -ell
        raise ArithmeticError(f"an unexpected logarithm ln({x})")
    return expr.replace(sp.log, one)


def symbolic_steps() -> tuple[tuple[str, bool], ...]:
    """The lemma's steps that hold for every d >= 4 (or every d > 2), each with SymPy's verdict
    (proofs/large-d.md, steps 1-9; the closed forms and the reduction are the engine's)."""
    from ..engine import symbolic as S

    d = S.d
    ell = sp.Symbol("ell", nonnegative=True)  # ln(d - 1) >= 0 for d >= 2
    li2 = sp.Symbol("Li2", nonnegative=True)  # Li_2((d-2)/(d-1)) = sum q^m/m^2 >= 0
    t, s, j, x = sp.symbols("t s j x", nonnegative=True)
    tp = sp.Symbol("tp", positive=True)
    n, b, a = sp.Symbol("n", nonnegative=True), sp.Symbol("b", positive=True), sp.Symbol("a")
    r0, r1 = (_plain_logs(r.subs(S.DILOG_Q(d), li2), d, ell) for r in S.gap_rate_parts())
    steps = [
        ("1a. -r0 = 2 + 2/(d-1) - 2 d ln(d-1)/((d-2)(d-1)) (the gap rate at eta1 = 0)",
         sp.simplify(-r0 - (2 + 2 / (d - 1) - 2 * d * ell / ((d - 2) * (d - 1)))) == 0),
        ("1b. 1/(d-1) - r1 = ((d-2) Li2(q) + ln(d-1))/((d-2)(d-1)^2) >= 0",
         sp.simplify(1 / (d - 1) - r1 - ((d - 2) * li2 + ell) / ((d - 2) * (d - 1) ** 2)) == 0),
        ("1c. d/(d-2) decreases for d > 2 (d = 2 + t, t > 0)",
         bool(sp.simplify(sp.diff(d / (d - 2), d).subs(d, 2 + tp)).is_negative)),
        ("1d. ln(x)/x decreases for x >= e (x = d - 1 = e^(1+s), s >= 0)",
         bool(sp.simplify(sp.diff(sp.log(x) / x, x).subs(x, sp.exp(1 + s))).is_nonpositive)),
        ("1e. sqrt(d)/(d-1) decreases for d > 1 (d = 1 + t, t > 0)",
         bool(sp.simplify(sp.diff(sp.sqrt(d) / (d - 1), d).subs(d, 1 + tp)).is_negative)),
    ]
    z = sp.Symbol("z")
    gamma = S.gamma_s().subs(S.alpha_j, S.alpha_s + sp.log(b))  # b = e^-(alpha_s - alpha_j)
    steps += [
        ("2a. E[m] = G'(1) = d - 1 (the word length's generating function)",
         sp.simplify(sp.diff(S.pgf(z), z).subs(z, 1) - (d - 1)) == 0),
        ("2b. 1 - gamma_s = n b/(k + n b) <= n b on words with k >= 1 (k = 1 + j)",
         sp.simplify(1 - gamma - n * b / (S.k + n * b)) == 0
         and bool(sp.factor(n * b - n * b / (S.k + n * b)).subs(S.k, 1 + j).is_nonnegative)),
        ("2c. (1 - gamma)^2 <= 1 - gamma on [0, 1], so nu_2 <= nu_1",
         sp.calculus.util.minimum(x - x ** 2, x, sp.Interval(0, 1)) == 0),
        ("2d. d^a does not increase in d for a <= 0 (d^(1-K), d^(3/2-K), (16 d)^-kappa_3)",
         bool(sp.diff(d ** -a, d).subs(a, x).is_nonpositive)),
    ]
    rates = S.phase1_rates()
    steps += [
        ("3a. Phase 1: beta'_s = 2 eta1/d, beta'_j = eta1 (d-2)/(d(d-1))",
         sp.simplify(rates[0] - 2 / d) == 0 and sp.simplify(rates[1] - (d - 2) / (d * (d - 1))) == 0),
        ("3b. d(d-1) - (d-2)^2 = 3d - 4 >= 0 for d >= 4/3, so sqrt(d-1) beta'_j <= "
         "eta1/sqrt(d) = u",
         sp.expand(d * (d - 1) - (d - 2) ** 2) == 3 * d - 4),
    ]
    steps += _phase3_steps(S)
    steps += [
        ("5a. 1 - y <= e^-y for every real y (so (1 - lambda)^(2T) <= e^(-2 lambda T))",
         sp.calculus.util.minimum(sp.exp(-x) - 1 + x, x, sp.S.Reals) == 0),
        ("5b. y e^-y <= 1/e for y >= 0", sp.calculus.util.maximum(x * sp.exp(-x), x,
                                                                  sp.Interval(0, sp.oo)) == sp.exp(-1)),
    ]
    return tuple((text, bool(ok)) for text, ok in steps)


def _phase3_steps(S) -> list[tuple[str, bool]]:
    """The Phase-3 quadratic from the engine's reduction (family nu): gradient A beta - c,
    L(alpha, 2 e_s) = 2 nu_2, delta = 2 nu_1, trace and determinant."""
    d, n1, n2 = S.d, S.M[0], S.M[1]
    red = S.reduce_symmetric("nu")
    grad = [red.plain(red.grad[key]) for key in ("beta_s", "beta_j")]
    a, e, h = sp.Rational(1, 2) - 2 * n1 + n2, n1 - n2, sp.Rational(1, 2) + n2
    A = sp.Matrix([[a, e], [e / (d - 1), h / (d - 1)]])
    c = sp.Matrix([1 - 2 * n1, 2 * n1 / (d - 1)])
    beta = sp.Matrix([S.beta_s, S.beta_j])
    linear = A * beta - c
    return [
        ("4a. grad_beta L = A beta - c, A = [[1/2 - 2nu1 + nu2, nu1 - nu2], [(nu1 - nu2)/(d-1), "
         "(1/2 + nu2)/(d-1)]], c = (1 - 2nu1, 2nu1/(d-1)) (the engine's reduction)",
         all(sp.expand(g - lin) == 0 for g, lin in zip(grad, linear))),
        ("4b. L(alpha, 2 e_s) = 2 nu_2 and delta = nu_1/P(y = +1) = 2 nu_1",
         sp.expand(red.plain(red.loss).subs({S.beta_s: 2, S.beta_j: 0}) - 2 * n2) == 0
         and sp.simplify(S.prob_positive() - sp.Rational(1, 2)) == 0),
        ("4c. tr A = a + h/(d-1), det A = (a h - e^2)/(d-1), a h - e^2 = 1/4 - nu1 + nu2 - nu1^2",
         sp.simplify(A.trace() - (a + h / (d - 1))) == 0
         and sp.simplify(A.det() * (d - 1) - (sp.Rational(1, 4) - n1 + n2 - n1 ** 2)) == 0),
        ("4d. W A is symmetric (W = diag(1, d-1)): real eigenvalues, W-orthogonal eigenvectors",
         sp.simplify((sp.diag(1, d - 1) * A) - (sp.diag(1, d - 1) * A).T) == sp.zeros(2, 2)),
    ]


# -- the constants (Arb) ----------------------------------------------------------------------------

def _ball(q: Fraction) -> arb:
    return arb(q.numerator) / q.denominator


def root_p(d_lo: Fraction) -> float:
    """p0 >= 1/(d_lo - 1) as a float (rounded up): the root's p-range [0, p0] holds every
    d >= 1 + 1/p0, and 1 + 1/p0 <= d_lo."""
    p0 = float(1 / (d_lo - 1))
    while not arb(p0) >= 1 / (_ball(d_lo) - 1):
        p0 = math.nextafter(p0, math.inf)
    return p0


def u_top(k) -> float:
    """eta1_scale as a float rounded up (the root's u-range covers it)."""
    return outward(_ball(k["thm2.eta1_scale"]))[1]


def bounds(p0: float, prefix: str, k) -> dict[str, arb]:
    """The lemma's constants and each claim's margin lower bound, for every d >= d0 = 1 + 1/p0
    (proofs/large-d.md, section 2): a dict of balls; keys ``cond:...`` must be > 0."""
    d0 = 1 + 1 / arb(p0)
    u = _ball(k["thm2.eta1_scale"])
    C = _ball(k[f"{prefix}.C"])
    kappa = 2 - 2 * d0 * (d0 - 1).log() / ((d0 - 2) * (d0 - 1)) - u * d0.sqrt() / (d0 - 1)
    K = C * kappa
    theta = ((1 - K) * d0.log()).exp()  # d0^(1-K): nu_1/eps and nu_1
    theta_h = ((arb(3) / 2 - K) * d0.log()).exp()  # sqrt(d - 1) nu_1
    p = arb(p0)
    den = arb(1) / 4 - theta - theta * theta
    trace = arb(1) / 2 + (arb(1) / 2 + theta) * p
    split = arb(1) / 2 - 2 * theta - (arb(1) / 2 + theta) * p
    ell1 = den / trace
    E = (2 + 2 * u / d0.sqrt() + theta / den) ** 2 + (u + theta_h * (1 + 2 * theta) / den) ** 2
    out = {"kappa_min": kappa, "K": K, "theta": theta, "theta_h": theta_h, "den_lo": den,
           "trace_hi": trace, "ell_1": ell1, "E": E,
           "cond:d0 >= 4": d0 - 4, "cond:kappa_min > 0": kappa, "cond:K > 3/2": K - arb(3) / 2,
           "cond:den_lo > 0": den, "cond:a - h/(d-1) > 0": split, "cond:trace_hi < 1": 1 - trace}
    if prefix == "cor1":
        N = _ball(k["cor1.T_numerator"])
        out["cor1.population"] = 1 - 2 * theta - E / (4 * arb(1).exp() * N)
        return out
    kappa3 = 2 * ell1 * _ball(k["thm2.T_factor"])
    out.update({"kappa_3": kappa3, "cond:kappa_3 > 1": kappa3 - 1,
                "thm2.final": 1 - 2 * theta - trace * E / 2 * (-kappa3 * (16 * d0).log()).exp(),
                "thm2.contraction": 8 * ell1 - 1,
                "thm2.initial_distance": 1 - E / (16 * d0),
                "thm2.optimum": arb(1) / 2,
                "thm2.delta": 1 - 8 * theta})
    return out


def anchors(d: Fraction, prefix: str, k) -> dict[str, arb]:
    """The engine's values at the point d (a point of the range): the gap rate -(r0 + u sqrt(d)
    r1) at u = 0 and u = eta1_scale, Phase 1 at eta1 = eta1_scale sqrt(d) (beta'_s and
    sqrt(d-1) beta'_j), and the Phase-3 quadratic at nu = REFERENCE_NU ((d-1) lambda_1,
    lambda_2, beta*): what the independent checker derives its own way and compares."""
    x = _ball(d)
    u = _ball(k["thm2.eta1_scale"])
    r0, r1 = arb_gap_rate_parts()(x, 0)
    b1s, b1j = plan_range.phase1(x, u)
    nu = tuple(_ball(q) for q in REFERENCE_NU)
    p3 = plan_range.phase3(x, arb(1), nu, (b1s, b1j), [])
    star = (b1s - p3.e[0], b1j - p3.e[1])
    return {"rate(u=0)": -r0, "rate(u=max)": -(r0 + u * r1), "beta1_s": b1s,
            "sqrt(d-1) beta1_j": (x - 1).sqrt() * b1j, "(d-1) lambda_1": (x - 1) * p3.lam[0],
            "lambda_2": p3.lam[1], "beta*_s": star[0], "beta*_j": star[1]}


# -- the certificate --------------------------------------------------------------------------------

def _pair(x: arb) -> list[str]:
    lo, hi = outward(x)
    return [lo.hex(), hi.hex()]


def statement(group: str, p0: float, k) -> str:
    """The claim in words, from the root and the constants."""
    prefix = GROUPS[group]
    d0 = 1 + 1 / Fraction(p0)
    steps = (f"every 0 < eta1 <= {k['thm2.eta1_scale']} sqrt(d), every eta2 >= {k[prefix + '.C']} "
             "d^2/eta1 ln(d/eps), eta3 = 1")
    what = (f"every integer T >= {k['thm2.T_factor']} d ln(16d/eps): L_s <= eps, and the A.7 "
            "steps (contraction <= 1 - 1/(8d), |beta' - beta*|^2 <= 16d, L* <= 2 delta, "
            "2 delta <= eps/2)" if prefix == "thm2" else
            f"T = ceil({k['cor1.T_numerator']}/eps) (and every integer T >= "
            f"{k['cor1.T_numerator']}/eps): L_s <= eps (population gradients)")
    return (f"for every real d >= {float(d0):.10g} and eps in (0, 1), {steps}, after {what}")


def certificate(group: str, constants, d_lo: Fraction = Fraction(D0)) -> dict:
    """The certificate of ``group`` for every d >= d_lo (one leaf: the whole root)."""
    prefix = GROUPS[group]
    values = getattr(constants, "untracked", lambda: constants)()
    p0 = root_p(d_lo)
    with precision(BITS):
        found = bounds(p0, prefix, values)
        anchor = anchors(d_lo, prefix, values)
    root = [0.0, p0, 0.0, 1.0, 0.0, u_top(values), 0.0, 1.0]
    return {
        "format": FORMAT, "group": group, "claim": statement(group, p0, values),
        "axes": list(AXES), "constants": {key: str(v) for key, v in sorted(values.items())},
        "root": [x.hex() for x in root], "bits": BITS, "method": METHOD, "code": finder_fingerprint(FINDER),
        "leaves": [{"box": [x.hex() for x in root], "depth": 0,
                    "status": "certified" if _holds(found) else "undecided",
                    "lower": {claim: outward(found[claim])[0].hex() for claim in CLAIMS[prefix]}}],
        "lemma": {key: _pair(v) for key, v in found.items() if key not in CLAIMS[prefix]},
        "anchors": {"d": str(d_lo), "nu": [str(q) for q in REFERENCE_NU],
                    "values": {key: _pair(v) for key, v in anchor.items()}},
    }


def _holds(found: dict) -> bool:
    return all(v > 0 for key, v in found.items() if key.startswith("cond:") or "." in key)


@dataclass(frozen=True)
class Recheck:
    """``problems``: disagreements (a stored value the engine does not reproduce, a root that is
    not the lemma's); ``open``: the lemma does not close (a condition or margin not > 0)."""

    leaves: int
    disagreements: tuple[str, ...]
    open: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    steps: int = 0  # SymPy steps confirmed

    @property
    def problems(self) -> tuple[str, ...]:
        return self.disagreements + self.open

    @property
    def ok(self) -> bool:
        return not self.problems


def recheck(data: dict) -> Recheck:
    """The engine's recheck of a certificate of this kind: the SymPy steps again, the constants
    and anchors recomputed from the file's root and constants and compared with the stored
    balls, every condition and margin > 0."""
    try:
        prefix = GROUPS[data["group"]]
        values = {key: Fraction(v) for key, v in data["constants"].items()}
        root = [float.fromhex(x) for x in data["root"]]
        stored = data["leaves"][0]
        anchor_d = Fraction(data["anchors"]["d"])
        inside = len(root) == 8 and root[1] > 0 and anchor_d >= 1 + 1 / Fraction(root[1])
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, AttributeError) as exc:
        return Recheck(0, (f"not a certificate of the lemma: {exc!r}",))
    steps = symbolic_steps()  # not cached: an injected fault in the engine's SymPy shows here
    wrong = [f"SymPy does not confirm step {text}" for text, ok in steps if not ok]
    if root[0] != 0 or root[2:4] != [0.0, 1.0] or root[4] != 0 or root[6:] != [0.0, 1.0] \
            or root[5] != u_top(values) or len(data["leaves"]) != 1:
        wrong.append("the root is not the lemma's (p from 0, eps in [0, 1], u from 0 to "
                     "eta1_scale, v in [0, 1]) or the certificate has more than one leaf")
    if not inside:
        return Recheck(1, (*wrong, f"the anchor d = {anchor_d} lies outside the root"))
    with precision(BITS):
        found = bounds(root[1], prefix, values)
        anchor = anchors(anchor_d, prefix, values)
    opened = [f"{key}: {v} is not > 0" for key, v in found.items()
              if (key.startswith("cond:") or "." in key) and not v > 0]
    for name, table, mine in (("lemma", data.get("lemma", {}), found),
                              ("anchor", data.get("anchors", {}).get("values", {}), anchor)):
        for key in (k for k in mine if k not in CLAIMS[prefix]):
            pair = table.get(key, ["nan", "nan"])
            ball = arb(float.fromhex(pair[0])).union(arb(float.fromhex(pair[1])))
            if not ball.overlaps(mine[key]):
                wrong.append(f"{name} {key}: stored [{pair[0]}, {pair[1]}] misses the engine's "
                             f"{mine[key]}")
    status = "undecided" if opened else "certified"
    if stored.get("status") != status:
        wrong.append(f"the leaf is recorded {stored.get('status')!r}, the engine finds it {status}")
    for claim in CLAIMS[prefix] if status == "certified" else ():
        low = float.fromhex(stored.get("lower", {}).get(claim, "nan"))
        if not (low > 0 and arb(low) <= found[claim]):
            wrong.append(f"{claim}: the stored lower bound {low!r} is not > 0 or lies above "
                         f"the engine's {found[claim].str(12)}")
    notes = () if data.get("code") == finder_fingerprint(FINDER) else (
        "written by other code (the fingerprint differs); recomputed by this code",)
    return Recheck(1, tuple(wrong), tuple(opened), notes, sum(ok for _, ok in steps))


def write(group: str, constants, path: Path, d_lo: Fraction = Fraction(D0)) -> dict:
    """The certificate from the root: the SymPy steps (a step SymPy does not confirm leaves the
    leaf undecided), the constants and the anchors; written to ``path``."""
    data = certificate(group, constants, d_lo)
    if not all(ok for _, ok in symbolic_steps()):
        data["leaves"][0]["status"] = "undecided"
    path.write_text(json.dumps(data, indent=1) + "\n")
    return data


# -- the registered check ---------------------------------------------------------------------------
