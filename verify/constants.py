"""The constants file and its overrides.

Each entry is keyed by the paper's symbol (``thm1.c3``) and holds ``value`` (an exact rational as
a string such as "1/6912", or a decimal such as "1e-6"), ``meaning`` and ``source``.  Values are
read as :class:`fractions.Fraction`, never through a float.

Where the default file lives: in a source checkout it is ``proofs/constants.toml``, the file
users edit.  An installed wheel has no ``proofs/``: the build copies that same file into the
package as ``verify/data/constants.toml`` (``setup.py``), read here with
:mod:`importlib.resources`.  There is one source; the packaged copy exists only inside a built
distribution.  ``--constants FILE`` overrides both.
"""
from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Iterable, Iterator, Mapping

CHECKOUT_ROOT = Path(__file__).resolve().parent.parent
CHECKOUT_FILE = CHECKOUT_ROOT / "proofs" / "constants.toml"  # the file users edit in a checkout
PACKAGED_FILE = "data/constants.toml"  # inside the package: a build-time copy of CHECKOUT_FILE


class ConstantsError(ValueError):
    """A malformed constants file or override (reported in one line)."""


@dataclass(frozen=True)
class Constant:
    key: str
    value: Fraction
    text: str
    meaning: str
    source: str


def parse_value(text: object, key: str) -> Fraction:
    """An exact rational from "p/q", an integer or a decimal string."""
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise ConstantsError(f"{key}: value must be a string such as \"1/6912\", got {text!r}")
    try:
        return Fraction(str(text).strip())
    except (ValueError, ZeroDivisionError):
        raise ConstantsError(f"{key}: not an exact number: {text!r}") from None


def _flatten(table: Mapping, prefix: str = "") -> Iterable[tuple[str, Mapping]]:
    for name, entry in table.items():
        key = f"{prefix}{name}"
        if not isinstance(entry, Mapping):
            raise ConstantsError(f"{key}: expected a table with value, meaning, source")
        if "value" in entry:
            yield key, entry
        else:
            yield from _flatten(entry, key + ".")


def in_checkout() -> bool:
    """True when the package runs from a source checkout (pyproject.toml and proofs/ beside it)."""
    return (CHECKOUT_ROOT / "pyproject.toml").is_file() and CHECKOUT_FILE.is_file()


def default_source() -> Traversable:
    """The default constants file: the checkout's proofs/constants.toml, else the packaged copy."""
    return CHECKOUT_FILE if in_checkout() else resources.files("verify").joinpath(PACKAGED_FILE)


def source_label(path: Path | None = None) -> str:
    """Where the constants come from, as a report names it."""
    if path is not None:
        return str(path)
    return "proofs/constants.toml" if in_checkout() else f"verify/{PACKAGED_FILE} (packaged default)"


def read_bytes(path: Path | None = None) -> bytes:
    """The raw bytes of a constants file (``None``: the default); unreadable -> ConstantsError."""
    source = default_source() if path is None else Path(path)
    try:
        return source.read_bytes()
    except FileNotFoundError:
        raise ConstantsError(f"constants file not found: {source}") from None
    except OSError as exc:
        raise ConstantsError(f"cannot read constants file {source}: {exc.strerror}") from None


def sha256(path: Path | None = None) -> str:
    """SHA-256 of the constants file's bytes (what a report's provenance names)."""
    return hashlib.sha256(read_bytes(path)).hexdigest()


def load(path: Path | None = None) -> dict[str, Constant]:
    """Read a constants file (``None``: the default); a missing or malformed file raises
    :class:`ConstantsError`."""
    shown = source_label(path)
    try:
        data = tomllib.loads(read_bytes(path).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConstantsError(f"malformed constants file {shown}: {exc}") from None
    out = {}
    for key, entry in _flatten(data):
        for field in ("meaning", "source"):
            if not isinstance(entry.get(field), str):
                raise ConstantsError(f"{key}: missing '{field}'")
        out[key] = Constant(key, parse_value(entry["value"], key), str(entry["value"]),
                            entry["meaning"], entry["source"])
    return out


def with_overrides(base: Mapping[str, Constant], settings: Iterable[str]) -> dict[str, Constant]:
    """Apply ``KEY=VALUE`` overrides; unknown keys are an error (a typo must not pass silently)."""
    out = dict(base)
    for setting in settings:
        key, sep, text = setting.partition("=")
        key = key.strip()
        if not sep:
            raise ConstantsError(f"--set expects KEY=VALUE, got {setting!r}")
        if key not in out:
            raise ConstantsError(f"unknown constant {key!r} (see proofs/constants.toml)")
        old = out[key]
        out[key] = Constant(key, parse_value(text, key), text.strip(), old.meaning,
                            f"overridden on the command line (file: {old.text})")
    return out


def values(constants: Mapping[str, Constant]) -> dict[str, Fraction]:
    """The plain key -> value mapping the checks consume."""
    return {key: c.value for key, c in constants.items()}


class Tracked(Mapping[str, Fraction]):
    """A read-only view of the constants that records every key looked up (``reads``): what a
    check depends on is what it reads while it runs, not what anyone declares.  ``get`` and
    ``in`` go through ``__getitem__`` and are recorded too; iterating (``dict(view)``) records
    every key, so a bulk copy over-approximates rather than hides a dependency."""

    def __init__(self, values: Mapping[str, Fraction]) -> None:
        self._values = values
        self.reads: set[str] = set()

    def __getitem__(self, key: str) -> Fraction:
        self.reads.add(key)
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        self.reads.update(self._values)
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def untracked(self) -> Mapping[str, Fraction]:
        """The constants themselves (reading them records nothing: for cache keys)."""
        return self._values

    def record(self, keys: Iterable[str]) -> None:
        """Record reads made elsewhere (an outcome taken from a store carries its own reads)."""
        self.reads.update(keys)
