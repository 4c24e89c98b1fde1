"""The cube and cone certificates of Propositions 2 and 3 (groups prop3-cube-dD, prop3-sharp-dD,
prop2-cone-dD; proofs/checker.md, section 15): read, and bound to the registered claim.  The
claim is written from the group's kind, the d its axes give and the constants, never from the
file's text; a certificate whose constant differs from the constants file is not the registered
claim.  The checker does not judge the leaves of these groups yet (section 15 says why):
:func:`check` says so rather than passing them.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Mapping

from . import recheck

CUBE = re.compile(r"(prop3-cube|prop3-sharp|prop2-cone)-d([345])")
KINDS = {  # kind -> (the claim id a leaf stores, the constant it is measured against)
    "prop3-cube": ("prop3.all_attention", "prop3.c2"),
    "prop3-sharp": ("prop3.sharp", None),
    "prop2-cone": ("prop2.all_parameters", "prop2.c1"),
}


def axes(kind: str, d: int) -> tuple[str, ...]:
    return (("s",) if kind == "prop2-cone" else ()) + tuple(f"r{k}" for k in range(2, d + 1))


def root(kind: str, d: int) -> tuple[float, ...]:
    return ((0.0, float(d)) if kind == "prop2-cone" else ()) + (0.0, 1.0) * (d - 1)


def read(data: dict) -> recheck.Certificate:
    """The certificate's parts; NotACertificate (one line, exit 2) when malformed."""
    found = CUBE.fullmatch(str(data.get("group")))
    if found is None:
        raise recheck.NotACertificate(f"not a cube group: {data.get('group')!r}")
    kind, d = found.group(1), int(found.group(2))
    claim, key = KINDS[kind]
    try:
        constants = {k: Fraction(v) for k, v in data["constants"].items()}
        if key is not None and key not in constants:
            raise recheck.NotACertificate(f"constants missing: {key}")
        if tuple(data["axes"]) != axes(kind, d):
            raise recheck.NotACertificate(f"axes {data['axes']} are not {list(axes(kind, d))} "
                                          f"(d = {d})")
        box = tuple(float.fromhex(x) for x in data["root"])
        leaves = [{"box": tuple(float.fromhex(x) for x in leaf["box"]),
                   "status": leaf.get("status"),
                   "margins": {claim: tuple(float.fromhex(x) for x in leaf["margins"][claim])}}
                  for leaf in data["leaves"]]
    except recheck.NotACertificate:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise recheck.NotACertificate(f"malformed certificate: {exc!r}") from None
    if not all(math.isfinite(x) for b in [box, *(leaf["box"] for leaf in leaves)] for x in b) \
            or any(len(leaf["box"]) != len(box) for leaf in leaves) or len(box) != 2 * (d - 1) \
            + 2 * (kind == "prop2-cone"):
        raise recheck.NotACertificate("box ends are not finite numbers, two per axis")
    return recheck.Certificate(data["group"], axes(kind, d), constants, box, kind, leaves)


def statement(kind: str, d: int, k: Mapping[str, Fraction]) -> str:
    """The claim in words, from the kind, d and the constants alone."""
    if kind == "prop3-cube":
        return (f"d = {d}: for every attention alpha in R^{d} some target s has inf_beta "
                f"L_s(alpha, beta) >= {k['prop3.c2']}")
    if kind == "prop3-sharp":
        return (f"d = {d}: for every attention alpha in R^{d}, max_s inf_beta L_s(alpha, beta) "
                f">= F(0) = 1/2 - (d-2)/(2(d-1) ln(d-1)), equality only at alpha = 0")
    return (f"d = {d}: for every output beta~ and every attention alpha in R^{d}, "
            f"L_s(alpha, beta~) >= {k['prop2.c1']} for s = argmin beta~")


def bind(cert: recheck.Certificate, registered: Mapping | None,
         file_constants: Mapping[str, Fraction]) -> recheck.Binding:
    """The claim and its differences from the registered d and the constants file."""
    kind, d = cert.method, len([a for a in cert.axes if a != "s"]) + 1
    key = KINDS[kind][1]
    claim = f"{cert.group}: {statement(kind, d, cert.constants)}"
    mismatches, notes = [], []
    mine, theirs = (cert.constants[key], file_constants.get(key)) if key else (None, None)
    if key is not None and mine != theirs:  # a larger lower bound implies the file's claim
        claim += f"; {key} = {mine} (file: {theirs if theirs is not None else 'absent'})"
        (notes if theirs is not None and mine > theirs else mismatches).append(
            f"constant {key} = {mine} is {'above' if theirs is not None and mine > theirs else 'not'}"
            f" the constants file's {theirs if theirs is not None else 'absent'}"
            + (" (the bound it proves implies the file's)" if theirs is not None and mine > theirs
               else ""))
    want = (registered or {}).get("d") if isinstance(registered, Mapping) else None
    if want != d:
        mismatches.append(f"no registered check of {kind} at d = {d}")
    if cert.root != root(kind, d):
        mismatches.append(f"the root is not the whole cube of successive ratios at d = {d}")
    notes += [f"constant {k} differs from the file but the claim does not read it"
              for k in sorted(cert.constants) if k != key and cert.constants[k] != file_constants.get(k)]
    return recheck.Binding(claim, notes, mismatches)


def check(cert: recheck.Certificate) -> recheck.Verdict:
    """Not judged here yet: refused (exit 2), never passed (proofs/checker.md, section 15)."""
    raise recheck.NotACertificate(
        f"the independent checker does not judge the leaves of {cert.group} yet (the cube's "
        "moments and floors are the engine's alone; drop --independent for its recheck)")
