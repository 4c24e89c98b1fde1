"""The constants file (proofs/constants.toml) and its overrides.

Each entry is keyed by the paper's symbol (``thm1.c3``) and holds ``value`` (an exact rational as
a string such as "1/6912", or a decimal such as "1e-6"), ``meaning`` and ``source``.  Values are
read as :class:`fractions.Fraction`, never through a float.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Iterable, Iterator, Mapping

DEFAULT_FILE = Path(__file__).resolve().parent.parent / "proofs" / "constants.toml"


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


def load(path: Path = DEFAULT_FILE) -> dict[str, Constant]:
    """Read a constants file; a missing or malformed file raises :class:`ConstantsError`."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ConstantsError(f"constants file not found: {path}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConstantsError(f"malformed constants file {path}: {exc}") from None
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
