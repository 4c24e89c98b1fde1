"""What produced a report: toolkit version, commit, code and constants fingerprints, settings,
library versions and platform.  Knows nothing of any particular result; computes nothing that a
check uses.

A provenance record is a flat ``name -> text`` mapping in a fixed order, so REPORT.md, the JSON
report and ``verify --version`` print the same items.  It holds no timings: two runs of the same
code, constants and settings on the same machine give the same record (and the same bytes).
"""
from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Sequence

from .._version import __version__
from ..run.journal import code_fingerprint

SOURCE_ROOT = Path(__file__).resolve().parents[2]  # the checkout's root, when there is one
REPORT_OUTPUTS = ("REPORT.md", "reports")  # written by runs: a changed report is not a changed tree
CORE_LIBRARIES = ("mpmath", "gmpy2", "sympy", "numpy")
OPTIONAL_LIBRARIES = ("python-flint", "scipy", "dask")  # named when installed
UNKNOWN = "unknown"
SEED_PER_CASE = "no run-wide seed: each check fixes its cases' seeds in the code"


def _git(root: Path, *argv: str) -> str | None:
    """Output of ``git -C root argv`` or None (no git, not a checkout, an error)."""
    try:
        done = subprocess.run(["git", "-C", str(root), *argv], capture_output=True, text=True,
                              timeout=20, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


def git_commit(root: Path = SOURCE_ROOT) -> str:
    """The checkout's commit, with " (dirty)" when tracked files other than the reports differ
    from it; "unknown" when git is absent or the package does not run from its own checkout
    (an installed package inside some other repository names no commit)."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root.resolve():
        return UNKNOWN
    commit = _git(root, "rev-parse", "HEAD")
    changes = _git(root, "status", "--porcelain", "--untracked-files=no", "--", ".",
                   *(f":(exclude){name}" for name in REPORT_OUTPUTS))
    if not commit or changes is None:
        return UNKNOWN
    return f"{commit} (dirty)" if changes else commit


def library_versions() -> dict[str, str]:
    """Versions of the libraries the numbers depend on: the core ones always (``unknown`` when
    not found), the optional ones when installed; plus mpmath's arithmetic backend."""
    import mpmath.libmp

    out = {}
    for name in (*CORE_LIBRARIES, *OPTIONAL_LIBRARIES):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if name in CORE_LIBRARIES:
                out[name] = UNKNOWN
    out["mpmath backend"] = mpmath.libmp.BACKEND
    out["numpy BLAS"] = numpy_blas()
    return out


def numpy_blas() -> str:
    """The BLAS numpy was built against (its float64 kernels are chosen by CPU at run time)."""
    import numpy

    try:
        blas = numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas['version']}"
    except (KeyError, TypeError, ValueError):
        return UNKNOWN


def environment() -> dict[str, str]:
    """The machine's part: Python, libraries, platform."""
    return {"python": f"{platform.python_version()} ({platform.python_implementation()})",
            **library_versions(),
            "platform": platform.platform()}


def code() -> dict[str, str]:
    """The toolkit's part: version, commit, fingerprint of the code that computes outcomes."""
    return {"verify version": __version__, "git commit": git_commit(),
            "code fingerprint": f"sha256:{code_fingerprint()}"}


def record(constants_file: str | None = None, constants_sha256: str = "",
           overrides: Sequence[str] = (), profile: str | None = None,
           seed: object = None) -> dict[str, str]:
    """The provenance of one command: the code; the constants (file, hash, ``--set`` overrides)
    when it reads them; the profile and seed when it runs checks (``seed`` is the run's seed when
    the command line sets one); the environment."""
    out = code()
    if constants_file is not None:
        out.update({"constants file": constants_file, "constants sha256": constants_sha256,
                    "constants overrides": ", ".join(overrides) if overrides else "none"})
    if profile is not None:
        out.update({"profile": profile, "seed": SEED_PER_CASE if seed is None else str(seed)})
    return {**out, **environment()}


def lines(prov: dict[str, str]) -> list[str]:
    """One ``name: value`` line per item (``verify --version``)."""
    return [f"{name}: {value}" for name, value in prov.items()]
