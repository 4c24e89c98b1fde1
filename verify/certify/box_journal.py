"""The journal of a box run (:mod:`verify.certify.boxes`): :class:`verify.certify.branch.Journal`
under the run's *key*: group, axes, root, constants, precision, method, depth limit and the
fingerprint of the code that judges (:func:`verify.run.journal.code_fingerprint`), so that a
stopped run (hours for a four-dimensional box from its root) resumes where it stopped, on any
executor, and a journal written under another key is refused.  Each record holds the box
(``float.hex``), its depth, the judgement (status, margins, side to split) and its CPU-seconds.
"""
from __future__ import annotations

from pathlib import Path

from ..run.journal import code_fingerprint
from .boxes import decode
from .branch import Journal, hex_box


def run_key(group: str, axes: tuple, root: tuple, constants, bits: int, method: str,
            max_depth: int, code: str | None = None) -> dict:
    """What must agree for two runs' judgements to be interchangeable."""
    values = getattr(constants, "untracked", lambda: constants)()
    return {"group": group, "axes": list(axes), "root": hex_box(root),
            "constants": {k: str(v) for k, v in sorted(values.items())}, "bits": bits,
            "method": method, "max_depth": max_depth,
            "code": code if code is not None else code_fingerprint()}


def journal(path: Path, key: dict) -> Journal:
    """Open (or resume) the journal at ``path`` for the run of ``key``."""
    return Journal(path, key, decode)
