"""What each claim group of the branch and bound proves: its axes, claims, the statement in
words over a root box and the same range as numbers (for certificates and outcomes).

Groups over (ln d, ln eps): ``prop1``, ``thm2`` and ``cor1`` (Theorem 2 and Corollary 1 at
eta1 = eta1_scale sqrt(d) and eta2 at its minimum).  Over (ln d, ln eps, u, v): ``thm2-4d`` and
``cor1-4d``, every step size the statements allow (proofs/hypothesis-range.md).
"""
from __future__ import annotations

import math
from typing import Mapping

from .groups import AXES_2D, GROUPS as REGISTRY  # noqa: F401 (AXES_2D: format 1's axes)

# the registry's fields by group (verify/certify/groups.py)
AXES = {name: g.axes for name, g in REGISTRY.items()}
CLAIMS = {name: g.claims for name, g in REGISTRY.items()}
D_MIN = {name: g.d_min for name, g in REGISTRY.items()}
READS = {name: g.reads for name, g in REGISTRY.items()}
GROUPS = tuple(REGISTRY)


def axes(group: str) -> tuple[str, ...]:
    if group not in AXES:
        raise ValueError(f"unknown claim group {group!r} (one of {', '.join(GROUPS)})")
    return AXES[group]


def ranges(group: str, root: tuple) -> dict:
    """The root as parameter ranges: d and eps (from their logarithms, the claims' own cut at
    d_min applied), u and v as they are: {"d": [lo, hi], "eps": [lo, hi], ...}."""
    out = {"d": [max(math.exp(root[0]), D_MIN[group]), math.exp(root[1])],
           "eps": [math.exp(root[2]), math.exp(root[3])]}
    if axes(group)[1] == "tau":  # eps = e^(1 - 1/tau); tau = 0 is the limit eps -> 0
        out["eps"] = [0.0 if root[2] == 0 else math.exp(1 - 1 / root[2]), math.exp(1 - 1 / root[3])]
    if len(axes(group)) == 4:
        out["u"], out["v"] = [root[4], root[5]], [root[6], root[7]]
    return out


def _g(x: float) -> str:
    return f"{x:.6g}"


def statement(group: str, root: tuple, constants: Mapping) -> str:
    """The claim proved over ``root``, in words, exactly as the axes cover it (the constants'
    values written in)."""
    r = ranges(group, root)
    d = f"every real d in [{_g(r['d'][0])}, {_g(r['d'][1])}]"
    eps = (f"0 < eps <= {_g(r['eps'][1])}" if r["eps"][0] == 0 else
           f"eps in [{_g(r['eps'][0])}, {_g(r['eps'][1])}]")
    if group == "prop1":
        return f"L_s(ln(4d/eps^2) e_s, 2 e_s) <= eps for {d}, {eps}"
    prefix = group.split("-")[0]
    C = _q(constants.get(f"{prefix}.C"))
    steps = (f"every integer T >= ceil({_q(constants.get('thm2.T_factor'))} d ln(16d/eps))"
             if prefix == "thm2" else
             f"T = ceil({_q(constants.get('cor1.T_numerator'))}/eps) (and every larger T)")
    what = ("L_s(alpha', beta'') <= eps and the A.7 steps (contraction <= 1 - 1/(8d), "
            "|beta' - beta*|^2 <= 16d, L(alpha', beta*) <= 2 delta, 2 delta <= eps/2)"
            if prefix == "thm2" else "L_s(alpha', beta'') <= eps (population gradients)")
    # every box computes the plan in the four-scalar reduction: Lemma A.7 keeps it there
    symmetric = " (in the four-scalar reduction, which Lemma A.7 licenses)"
    if len(axes(group)) == 2:
        return (f"{what} for {d}, {eps}, at eta1 = {_q(constants.get('thm2.eta1_scale'))} sqrt(d),"
                f" eta2 = {C} d^2/eta1 ln(d/eps), eta3 = 1, {steps}{symmetric}")
    u = _interval(r["u"], "eta1/sqrt(d)")
    v = _interval(r["v"], "eta2_min/eta2")
    return (f"{what} for {d}, {eps}, {u}, {v} with eta2_min = {C} d^2/eta1 ln(d/eps), "
            f"eta3 = 1, {steps}{symmetric}")


def _q(x) -> str:
    """A constant as written in constants.toml (a rational), or "C" when absent."""
    return "C" if x is None else str(x)


def _interval(bounds: list, name: str) -> str:
    """``0 < name <= hi`` when the axis starts at its limit 0 (excluded: a limit, not a point)."""
    lo, hi = bounds
    return f"0 < {name} <= {_g(hi)}" if lo == 0 else f"{name} in [{_g(lo)}, {_g(hi)}]"


def describe(group: str, box: tuple) -> str:
    """A box in the parameters (d, eps and, in four dimensions, u and v)."""
    r = ranges(group, box)
    text = (f"d [{r['d'][0]:.4g}, {r['d'][1]:.4g}] x "
            f"eps [{r['eps'][0]:.3g}, {r['eps'][1]:.3g}]")
    if "u" in r:
        text += f" x u [{r['u'][0]:.4g}, {r['u'][1]:.4g}] x v [{r['v'][0]:.4g}, {r['v'][1]:.4g}]"
    return text
