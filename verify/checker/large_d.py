"""Theorem 2 and Corollary 1 for every real d >= d0 (certificates of the groups thm2-large-d,
cor1-large-d; proofs/checker.md, section 12), the checker's own way.

The root is p = 1/(d - 1) in [0, p0] (p = 0 the limit d -> inf), eps in [0, 1], u = eta1/sqrt(d)
in [0, eta1_scale], v = eta2_min/eta2 in [0, 1].  In p every quantity of sections 1-5 is
continuous up to p = 0; what grows with d is bounded by the moments' smallness:

* Phase 2's rate ell = (1+p) [(2 - D (1 - 2 pi)) (1 - E1) - D (pi + (1 - 3 pi) E1 - (1 - 2 pi) E2)]
  (section 4, with pi = 1/d = p/(1+p), D = eta1/(d-1) = u sqrt(p (1+p)), E1 = E[1/m] =
  p ln(1/p)/(1-p), E2 = E[1/m^2] = Li_2(q) p/(1-p), 0 <= Li_2(q) <= pi^2/6), enclosed over the
  whole root: ell >= ell_lo, so the gap C ln(d/eps) ell/v >= K ln(d/eps), K = C ell_lo;
* the background weight b = e^-gap <= (eps/d)^K, and on every word 1 - gamma = n b/(k + n b)
  <= n b (k >= 1) and <= 1, so nu_2 <= nu_1 <= b E[m] = b (d - 1) <= d^(1-K) eps^K
  (section 1: E[m] = 1/p): nu_1, nu_2, nu_1/eps, nu_2/eps lie in [0, theta], theta = d0^(1-K),
  and sqrt(d - 1) nu_1, sqrt(d - 1) nu_2 in [0, d0^(3/2 - K)] once K >= 3/2;
* Phase 3 is section 5's quadratic with these balls; the decay of every integer T >= T_low uses
  (1 - l)^(2T) <= e^(-2 l T) (0 < l < 1) and, for Theorem 2 (T_low = T_factor d ln(16d/eps)),
  e^(-2 lambda_1 T) <= (eps/(16 d))^kappa, kappa = 2 T_factor d lambda_1 >= 1, so its share of
  1 - L/eps is at most (16 d0)^-kappa; for Corollary 1 (T >= N/eps), l e^(-2 l N/eps)/eps
  <= 1/(2 e N) (x e^-x <= 1/e).

The engine's stored lower bounds must be > 0 and no higher than what the claim allows; its
anchors (the gap rate, Phase 1 and the Phase-3 quadratic at the file's point d and reference
moments) must overlap the checker's values there (sections 2, 4, 5).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Mapping

from flint import arb, ctx

from . import recheck
from .model import hull, phase1, phase2_rate

GROUPS = {"thm2-large-d": ("thm2.C", "thm2.eta1_scale", "thm2.T_factor"),
          "cor1-large-d": ("cor1.C", "thm2.eta1_scale", "cor1.T_numerator")}
CLAIMS = {"thm2-large-d": ("thm2.final", "thm2.contraction", "thm2.initial_distance",
                           "thm2.optimum", "thm2.delta"), "cor1-large-d": ("cor1.population",)}
AXES = ("p = 1/(d-1)", "eps", "u", "v")
ANCHORS = ("rate(u=0)", "rate(u=max)", "beta1_s", "sqrt(d-1) beta1_j", "(d-1) lambda_1",
           "lambda_2", "beta*_s", "beta*_j")
BITS = 128


def _q(q: Fraction) -> arb:
    return arb(q.numerator) / q.denominator


def _rising(f, lo: arb, hi: arb) -> arb:
    """f over [lo, hi] for f increasing there."""
    return hull(f(lo), f(hi))


def read(data: dict) -> recheck.Certificate:
    """The certificate's parts (NotACertificate when malformed)."""
    try:
        group = data["group"]
        if tuple(data.get("axes", ())) != AXES:
            raise recheck.NotACertificate(f"axes {data.get('axes')} are not {list(AXES)}")
        constants = {k: Fraction(v) for k, v in data["constants"].items()}
        if any(k not in constants for k in GROUPS[group]):
            raise recheck.NotACertificate("constants missing: " + ", ".join(
                k for k in GROUPS[group] if k not in constants))
        root = tuple(float.fromhex(x) for x in data["root"])
        leaf = data["leaves"][0]
        anchors = data["anchors"]
        entry = {"box": tuple(float.fromhex(x) for x in leaf["box"]), "status": leaf["status"],
                 "lower": {c: float.fromhex(leaf["lower"][c]) for c in CLAIMS[group]},
                 "d": Fraction(anchors["d"]), "nu": tuple(Fraction(x) for x in anchors["nu"]),
                 "anchors": {k: tuple(float.fromhex(x) for x in anchors["values"][k])
                             for k in ANCHORS}}
    except recheck.NotACertificate:
        raise
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, AttributeError) as exc:
        raise recheck.NotACertificate(f"malformed certificate: {exc!r}") from None
    if len(root) != 8 or not all(math.isfinite(x) for x in root) or len(data["leaves"]) != 1 \
            or entry["box"] != root:
        raise recheck.NotACertificate("the lemma's certificate has one leaf, the root, of 8 "
                                      "finite ends")
    if not (root[0] == 0 < root[1] <= 1 / 3 and root[2] == 0 and root[3] == 1 and root[4] == 0
            and root[5] > 0 and root[6] == 0 and root[7] == 1):
        raise recheck.NotACertificate("the root is not p in [0, p0] (p0 <= 1/3), eps in [0, 1], "
                                      "u in [0, u_max], v in [0, 1]")
    if len(entry["nu"]) != 2 or not 0 < entry["nu"][1] <= entry["nu"][0] < Fraction(1, 4):
        raise recheck.NotACertificate("reference moments must satisfy 0 < nu_2 <= nu_1 < 1/4")
    return recheck.Certificate(group, AXES, constants, root, "lemma", [entry])


def statement(group: str, root: tuple, k: Mapping[str, Fraction]) -> str:
    """The claim in words, from the root and the constants alone."""
    C = k["thm2.C" if group.startswith("thm2") else "cor1.C"]
    d0 = 1 + 1 / Fraction(root[1])
    steps = (f"every T >= {k['thm2.T_factor']} d ln(16d/eps) Phase-3 steps, with the A.7 steps "
             "(contraction <= 1 - 1/(8d), |beta' - beta*|^2 <= 16d, L* <= 2 delta, 2 delta <= "
             "eps/2)" if group.startswith("thm2") else
             f"T = ceil({k['cor1.T_numerator']}/eps) Phase-3 steps (population gradients)")
    return (f"{group}: the three-phase plan from alpha = beta = 0 with every 0 < eta1 <= "
            f"{Fraction(root[5])} sqrt(d) and every eta2 >= {C} d^2/eta1 ln(d/eps), eta3 = 1, "
            f"reaches L_s <= eps after {steps}, for every real d >= {float(d0):.10g} and every "
            "eps in (0, 1)")


def bind(cert: recheck.Certificate, expected_box: tuple | None,
         file_constants: Mapping[str, Fraction]) -> recheck.Binding:
    """The claim in words and its differences from the registered range ``(d_lo, d_hi, eps_lo,
    eps_hi)`` (d_hi = inf) and the constants file."""
    claim = statement(cert.group, cert.root, cert.constants)
    differ = sorted(k for k, v in cert.constants.items() if file_constants.get(k) != v)
    used = GROUPS[cert.group]
    mismatches = [f"constant {k} = {cert.constants[k]} is not the constants file's "
                  f"{file_constants.get(k, 'absent')}" for k in differ if k in used]
    notes = [f"constant {k} differs from the file but the claim does not read it"
             for k in differ if k not in used]
    if expected_box is None:
        mismatches.append(f"no registered check has a range for group {cert.group!r}")
    elif not (1 + 1 / Fraction(cert.root[1]) <= Fraction(expected_box[0])
              and expected_box[1] == math.inf and expected_box[2] >= 0 and expected_box[3] <= 1):
        mismatches.append(f"the root does not cover the registered range d >= "
                          f"{expected_box[0]:g}, eps in ({expected_box[2]:g}, {expected_box[3]:g})")
    if Fraction(cert.root[5]) < file_constants.get("thm2.eta1_scale", Fraction(1)):
        mismatches.append("the root does not cover every eta1 <= eta1_scale sqrt(d)")
    return recheck.Binding(claim, notes, mismatches)


def rate_low(p_hi: arb, u: arb) -> arb:
    """ell over p in [0, p_hi] and u in the ball u (section 4 in p; module text)."""
    zero = arb(0)
    pl = _rising(lambda x: x * (1 / x).log() if x > 0 else zero, zero, p_hi)  # p ln(1/p), p < 1/e
    p = hull(zero, p_hi)
    pi = _rising(lambda x: x / (1 + x), zero, p_hi)
    dp = u * _rising(lambda x: (x * (1 + x)).sqrt(), zero, p_hi)
    e1 = pl / (1 - p)
    e2 = hull(zero, arb.pi() ** 2 / 6) * p / (1 - p)
    return (1 + p) * ((2 - dp * (1 - 2 * pi)) * (1 - e1)
                      - dp * (pi + (1 - 3 * pi) * e1 - (1 - 2 * pi) * e2))


def margins(group: str, root: tuple, k: Mapping[str, Fraction]) -> dict[str, arb]:
    """Lower bounds of every claim's relative margin over the root (balls whose lower end is the
    bound; contraction and distance enclose the true margin), and ``ok`` (> 0: the conditions)."""
    thm2 = group.startswith("thm2")
    p0, zero = arb(root[1]), arb(0)
    p, u = hull(zero, p0), hull(zero, arb(root[5]))
    d0 = 1 + 1 / p0
    K = _q(k["thm2.C" if thm2 else "cor1.C"]) * arb(rate_low(p0, u).lower())
    theta = ((1 - K) * d0.log()).exp()
    n, e = hull(zero, theta), hull(zero, theta)  # nu_1, nu_2, nu_i/eps; e = nu_1 - nu_2 >= 0
    sn = hull(zero, ((arb(3) / 2 - K) * d0.log()).exp())  # sqrt(d - 1) nu_i
    a, h = 1 / arb(2) - 2 * n + n, 1 / arb(2) + n
    den = 1 / arb(4) - n + n - n * n
    hp = h * p
    half = (a - hp) / 2
    root_ = (half * half + e * e * p).sqrt()
    lam2 = (a + hp) / 2 + root_
    lam1t = den / lam2  # (d - 1) lambda_1
    gap2 = half + root_
    err_s = 2 * u * _rising(lambda x: (x / (1 + x)).sqrt(), zero, p0) - 2 - e / den
    err_j = u * (1 - 2 * _rising(lambda x: x / (1 + x), zero, p0)) * (1 + p).sqrt() \
        - (sn - 2 * sn * n) / den
    sp = _rising(lambda x: x.sqrt(), zero, p0)
    tau = e / gap2
    proj1 = (err_j - tau * err_s * sp) ** 2 / (1 + tau * tau * p)
    proj2 = (err_s + e * err_j * sp / gap2) ** 2 / (1 + e * e * p / (gap2 * gap2))
    conditions = [K - arb(3) / 2, lam1t, root_, gap2, 1 - lam2, d0 - 4]
    if thm2:
        kappa = 2 * _q(k["thm2.T_factor"]) * arb(((1 + p) * lam1t).lower())
        conditions.append(kappa - 1)
        decay = (lam1t * p * proj1 + lam2 * proj2) / 2 * (-kappa * (16 * d0).log()).exp()
    else:
        decay = (proj1 + proj2) / (4 * arb(1).exp() * _q(k["cor1.T_numerator"]))
    ok = min((c.lower() for c in conditions), key=float) if all(
        c.is_finite() for c in conditions) else arb("nan")
    final = 1 - 2 * theta - decay
    if not thm2:
        return {"cor1.population": final, "ok": arb(ok)}
    return {"thm2.final": final, "thm2.contraction": 8 * (1 + p) * lam1t - 1,
            "thm2.initial_distance": 1 - (err_s * err_s + err_j * err_j) * p / (16 * (1 + p)),
            "thm2.optimum": 1 / arb(2), "thm2.delta": 1 - 8 * theta, "ok": arb(ok)}


def anchors(d: Fraction, nu: tuple, u_max: Fraction) -> dict[str, arb]:
    """The checker's values at the point d and moments nu (sections 4, 5)."""
    x, u = _q(d), _q(u_max)
    n1, n2 = _q(nu[0]), _q(nu[1])
    b1s, b1j = phase1(x, u * x.sqrt())
    a, e, h = 1 / arb(2) - 2 * n1 + n2, n1 - n2, 1 / arb(2) + n2
    den = 1 / arb(4) - n1 + n2 - n1 * n1
    half = (a - h / (x - 1)) / 2
    lam2 = (a + h / (x - 1)) / 2 + (half * half + e * e / (x - 1)).sqrt()
    return {"rate(u=0)": phase2_rate(x, arb(0)), "rate(u=max)": phase2_rate(x, u),
            "beta1_s": b1s, "sqrt(d-1) beta1_j": (x - 1).sqrt() * b1j,
            "(d-1) lambda_1": den / lam2, "lambda_2": lam2, "beta*_s": 2 + e / den,
            "beta*_j": (n2 - 2 * n1 * n1) / den}


def problems(cert: recheck.Certificate) -> list[str]:
    """Why the certificate does not prove its claim (empty: it does)."""
    leaf = cert.leaves[0]
    out = [] if leaf["status"] == "certified" else [f"the leaf is recorded {leaf['status']!r}"]
    mine = margins(cert.group, cert.root, cert.constants)
    if not mine["ok"] > 0:
        out.append(f"the conditions of the lemma are not shown (smallest {recheck.ball(mine['ok'])})")
    for claim in CLAIMS[cert.group]:
        low = leaf["lower"][claim]
        top = mine[claim].upper() if claim in ("thm2.contraction", "thm2.initial_distance") else 1
        if not mine[claim] > 0:
            out.append(f"{claim}: the checker's bound is not > 0 ({recheck.ball(mine[claim])})")
        if not (math.isfinite(low) and 0 < low and arb(low) <= top):
            out.append(f"{claim}: the stored lower bound {low!r} is not in (0, {float(top):.12g}]")
    if not 1 + 1 / Fraction(cert.root[1]) <= leaf["d"]:
        out.append(f"the anchor d = {leaf['d']} lies outside the root")
        return out
    values = anchors(leaf["d"], leaf["nu"], Fraction(cert.root[5]))
    for key in ANCHORS:
        lo, hi = leaf["anchors"][key]
        if not (math.isfinite(lo) and math.isfinite(hi) and arb(lo).union(arb(hi)).overlaps(values[key])):
            out.append(f"anchor {key}: stored [{lo:.12g}, {hi:.12g}] misses the checker's "
                       f"{recheck.ball(values[key])} at d = {leaf['d']}")
    return out


def check(cert: recheck.Certificate) -> recheck.Verdict:
    old = ctx.prec
    ctx.prec = BITS
    try:
        return recheck.Verdict(1, problems(cert), boxes=1)
    finally:
        ctx.prec = old
