"""The symbolic reduction's closed forms as generated Python code, kept in a cache.

:mod:`verify.engine.symbolic` derives the four-scalar reduction and the Phase 1-2 closed forms
from the model with SymPy; that derivation is the source of truth and costs about a second and a
half per process (importing SymPy alone about 0.3 s).  What the numbers need is the Python code
SymPy prints for the result (``sympy.lambdify``), so this module keeps that code in a cache file
keyed by the SHA-256 of ``symbolic.py`` and the SymPy version: a command that only evaluates (a
cold ``verify eval``) compiles it and never imports SymPy.  A missing, unreadable or stale entry
is derived again and rewritten (atomically: concurrent workers may share the folder); with no
writable folder every process derives.  The cache is trusted like Python's own ``__pycache__``:
it lives in ``$VERIFY_CACHE_DIR``, else ``$XDG_CACHE_HOME/verify``, else ``~/.cache/verify``.

The code is plain arithmetic with ``mpf`` for exact rationals and ``log``, ``dilog_q`` where the
forms need them, so it runs on mpmath numbers by default and on Arb balls or dual numbers when a
namespace supplies those names (see :func:`verify.engine.symbolic.form_source`).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Callable, Literal

Family = Literal["mu", "nu"]
GRAD_KEYS = ("alpha_s", "alpha_j", "beta_s", "beta_j")
FORMS = ("reduction-mu", "reduction-nu", "phases", "gap-rate", "gap-rate-parts", "phase1-rates")
SYMBOLIC = Path(__file__).with_name("symbolic.py")
ENTRY = "_lambdifygenerated"  # the function name SymPy's printer gives


def cache_dir() -> Path:
    """Where the generated code is kept."""
    if os.environ.get("VERIFY_CACHE_DIR"):
        return Path(os.environ["VERIFY_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "verify"


@lru_cache(maxsize=None)
def key() -> str:
    """What the generated code depends on: the derivation's source and the SymPy that printed it."""
    try:
        sympy = metadata.version("sympy")
    except metadata.PackageNotFoundError:
        sympy = "unknown"
    return hashlib.sha256(SYMBOLIC.read_bytes() + b"\0" + sympy.encode()).hexdigest()[:32]


def _path(name: str) -> Path:
    return cache_dir() / f"{name}-{key()}.json"


def _read(name: str) -> dict | None:
    try:
        data = json.loads(_path(name).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("key") == key() and isinstance(data.get("code"), str) else None


def _write(name: str, data: dict) -> None:
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "w") as handle:
            json.dump(data, handle)
        os.replace(tmp, _path(name))
    except OSError:
        pass  # no writable cache: the next process derives again


@lru_cache(maxsize=None)
def form(name: str) -> dict:
    """``{"code": ..., "order": ...}`` of one closed form: from the cache, else derived by
    :func:`verify.engine.symbolic.form_source` and cached."""
    if name not in FORMS:
        raise ValueError(f"unknown closed form {name!r} (one of {', '.join(FORMS)})")
    found = _read(name)
    if found is None:
        from .symbolic import form_source

        found = {**form_source(name), "key": key()}
        _write(name, found)
    return found


def compile_form(name: str, namespace: dict | None = None) -> Callable[..., list]:
    """The closed form ``name`` as a Python function on the number type of ``namespace`` (names
    it does not give come from mpmath)."""
    import mpmath

    scope = dict(vars(mpmath))
    scope.update(namespace or {})
    exec(compile(form(name)["code"], f"<verify closed form {name}>", "exec"), scope)  # noqa: S102
    return scope[ENTRY]


def order(family: Family) -> int:
    """The highest moment the reduction of ``family`` uses."""
    return int(form(f"reduction-{family}")["order"])


def reduction(family: Family, namespace: dict | None = None) -> Callable[..., tuple]:
    """``fn(d, beta_s, beta_j, M1..M4) -> (loss, dL/dalpha_s, dL/dalpha_j, dL/dbeta_s,
    dL/dbeta_j)`` (per-coordinate background partials): the reduction's code takes the stable
    variables (the residual ``e0`` where the family's variable vanishes, and the gap ``Delta``),
    formed here from the output weights."""
    raw = compile_form(f"reduction-{family}", namespace)
    mu = family == "mu"

    def fn(dd, bs, bj, *moments):
        residual = (bj if mu else bs) - 2
        return raw(dd, bj, residual, bs - bj, *moments)

    return fn
