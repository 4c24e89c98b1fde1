"""The checker as its own process (proofs/checker.md, section 13): `verify recheck --independent`
starts ``python -I -S`` with :func:`command` (no site-packages, no PYTHONPATH, no current
directory; the checker's files loaded by path as the package ``checker``, python-flint's
directory appended to ``sys.path``).  The child reads a request on standard input (the file's
path, the registered claim and the constants file's values, as plain JSON), prints its verdict
and exits 0 (holds), 1 (rejected, or not the registered claim) or 2 (not a certificate it reads).
"""
from __future__ import annotations

import json
import sys
from fractions import Fraction
from importlib.util import find_spec
from pathlib import Path

BOOT = ("import sys, importlib.util as u; d = {here!r}; s = u.spec_from_file_location("
        "'checker', d + '/__init__.py', submodule_search_locations=[d]); "
        "m = u.module_from_spec(s); sys.modules['checker'] = m; s.loader.exec_module(m); "
        "sys.path.append({flint!r}); from checker.process import main; sys.exit(main())")


def command() -> list[str]:
    """The child's command line (python-flint's directory found without importing it)."""
    spec = find_spec("flint")
    flint = str(Path(spec.origin).resolve().parent.parent) if spec and spec.origin else ""
    here = str(Path(__file__).resolve().parent)
    return [sys.executable, "-I", "-S", "-c", BOOT.format(here=here, flint=flint)]


def main() -> int:
    """The child: request on stdin, verdict on stdout (one line on stderr and 2 for bad input)."""
    sys.stdout.reconfigure(line_buffering=True)  # the parent prints each line as it comes
    try:
        request = json.loads(sys.stdin.read())
        path, registered = request["certificate"], request["registered"]
        constants = {k: Fraction(v) for k, v in request["constants"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        print(f"verify: error: the checker's request is malformed ({exc!r})", file=sys.stderr)
        return 2
    try:
        from . import cube, journal, recheck
    except ImportError as exc:
        print(f"verify: error: the independent checker needs python-flint ({exc})", file=sys.stderr)
        return 2
    try:
        raw = Path(path).read_bytes()
        cert = recheck.read(json.loads(raw))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"verify: error: {path}: {exc}", file=sys.stderr)
        return 2
    binding = recheck.bind(cert, registered, constants)
    print(f"claim: {binding.claim}")
    for note in binding.notes:
        print(f"note: {note}")
    any_box = bool(request.get("any_box"))
    for text in binding.mismatches:
        print(("differs (--any-box): " if any_box else "MISMATCH: ") + text)
    if binding.mismatches and not any_box and not recheck.volume_zero(cert.root):
        print("not rechecked: the file is not the registered claim (--any-box rechecks the "
             "file's own claim)")
        return 1
    kept = request.get("journal")
    if kept and not cube.CUBE.fullmatch(cert.group):
        print("note: the journal is kept for cube and cone certificates only; not used")
        kept = None
    try:
        kept = (Path(kept), journal.read(Path(kept), journal.key(raw, request), len(cert.leaves))) \
            if kept else None
    except (OSError, ValueError) as exc:  # the journal cannot be read, or is not this run's
        print(f"verify: error: {exc}", file=sys.stderr)
        return 2
    try:
        verdict = recheck.check(cert, int(request.get("workers", 1)), corners=request.get("corners", 1),
                                kept=kept)
    except OSError as exc:  # the journal cannot be written: no verdict
        print(f"verify: error: the journal: {exc}", file=sys.stderr)
        return 2
    for problem in verdict.problems:
        print(f"REJECTED: {problem}")
    if verdict.ok:
        print(f"certificate holds (independent checker, {verdict.summary()}), the box is covered")
    return 0 if verdict.ok else 1
