"""The constants file and its overrides.

Each entry is keyed by the paper's symbol (``thm1.c3``) and holds ``value`` (an exact rational as
a string such as "1/6912", or a decimal such as "1e-6"), ``domain`` (the values the checks accept:
"(0, 1)", "[1, inf)", "integer in [0, inf)"), ``domain_reason`` (why: the values outside make
the claim vacuous or meaningless), ``meaning`` and ``source``.  Values are read as
:class:`fractions.Fraction`, never through a float, and refused outside their domain; a value
that is not an integer must also lie in float64's normal range (``FLOAT_RANGE``), since the
float routes read every constant as a double: 1e-400 would be read as 0, and a check would
judge another claim than the one named.  A file
named with ``--constants`` must hold exactly the keys of the default file (a missing key would
surface minutes later inside a worker; an unknown one is a typo).

Where the default file lives: in a source checkout it is ``proofs/constants.toml``, the file
users edit.  An installed wheel has no ``proofs/``: the build copies that same file into the
package as ``verify/data/constants.toml`` (``setup.py``), read here with
:mod:`importlib.resources`.  There is one source; the packaged copy exists only inside a built
distribution.  ``--constants FILE`` overrides both.
"""
from __future__ import annotations

import hashlib
import re
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
FLOAT_RANGE = (Fraction(2) ** -1022, Fraction(2) ** 1023)  # |x| of a normal double, 2.2e-308 .. 9e307


class ConstantsError(ValueError):
    """A malformed constants file or override (reported in one line)."""


@dataclass(frozen=True)
class Domain:
    """An interval of the rationals, possibly of the integers only: where a constant may lie."""

    text: str
    lo: Fraction | None  # None: unbounded
    hi: Fraction | None
    closed_lo: bool
    closed_hi: bool
    integer: bool
    reason: str = ""  # why these values (domain_reason in the file)

    def __contains__(self, x: Fraction) -> bool:
        if self.integer and x.denominator != 1:
            return False
        if self.lo is not None and (x < self.lo or (x == self.lo and not self.closed_lo)):
            return False
        return not (self.hi is not None and (x > self.hi or (x == self.hi and not self.closed_hi)))


_INTERVAL = re.compile(r"^(integer in )?([\[(])\s*([^,\s]+)\s*,\s*([^\])\s]+)\s*([\])])$")


def parse_domain(text: object, key: str, reason: str = "") -> Domain:
    """ "(0, 1)", "[1, inf)", "integer in [0, inf)" -> :class:`Domain`.

    >>> Fraction(1, 2) in parse_domain("(0, 1)", "k"), 1 in parse_domain("(0, 1)", "k")
    (True, False)
    >>> Fraction(3, 2) in parse_domain("integer in [0, inf)", "k")
    False
    """
    match = _INTERVAL.match(text.strip()) if isinstance(text, str) else None
    if not match:
        raise ConstantsError(f"{key}: domain must read like \"(0, 1)\", \"[1, inf)\" or "
                             f"\"integer in [0, inf)\", got {text!r}")
    integer, left, a, b, right = match.groups()
    ends = []
    for end, infinite in ((a, "-inf"), (b, "inf")):
        ends.append(None if end == infinite else parse_value(end, f"{key} (domain)"))
    return Domain(text.strip(), ends[0], ends[1], left == "[", right == "]", bool(integer), reason)


@dataclass(frozen=True)
class Constant:
    key: str
    value: Fraction
    text: str
    meaning: str
    source: str
    domain: Domain | None = None


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


def checked(key: str, value: Fraction, text: str, domain: Domain | None, where: str) -> Fraction:
    """``value``, or a :class:`ConstantsError` naming the key, the value, its domain and where
    it came from when it lies outside the domain."""
    if domain is not None and value not in domain:
        why = f": {domain.reason}" if domain.reason else ""
        raise ConstantsError(f"{key} = {text} is outside its domain {domain.text} ({where}){why}")
    integer = domain is not None and domain.integer
    if not integer and value and not FLOAT_RANGE[0] <= abs(value) <= FLOAT_RANGE[1]:
        small = abs(value) < FLOAT_RANGE[0]
        raise ConstantsError(f"{key} = {text} is outside the range of a float64 (2.2e-308 to "
                             f"9e307 in size; {where}): the float routes read every constant "
                             f"as a double and would judge {key} = {'0' if small else 'inf'}")
    return value


def _read(path: Path | None) -> dict[str, Constant]:
    shown = source_label(path)
    try:
        data = tomllib.loads(read_bytes(path).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConstantsError(f"malformed constants file {shown}: {str(exc).splitlines()[0]}") from None
    out = {}
    try:
        entries = list(_flatten(data))
    except ConstantsError as exc:
        raise ConstantsError(f"{exc} ({shown})") from None
    for key, entry in entries:
        for field in ("meaning", "source"):
            if not isinstance(entry.get(field), str):
                raise ConstantsError(f"{key}: missing '{field}' ({shown})")
        reason = entry.get("domain_reason", "")
        if not isinstance(reason, str):
            raise ConstantsError(f"{key}: domain_reason must be a string ({shown})")
        domain = parse_domain(entry["domain"], key, reason) if "domain" in entry else None
        value = checked(key, parse_value(entry["value"], key), str(entry["value"]), domain, shown)
        out[key] = Constant(key, value, str(entry["value"]), entry["meaning"], entry["source"], domain)
    return out


def load(path: Path | None = None) -> dict[str, Constant]:
    """Read a constants file (``None``: the default); a missing or malformed file, a value
    outside its domain, or (for a file other than the default) a key missing or unknown to the
    default file raises :class:`ConstantsError` with one line naming the key and the file."""
    out = _read(path)
    if path is None:
        undeclared = [key for key, c in out.items() if c.domain is None]
        if undeclared:
            raise ConstantsError(f"{undeclared[0]}: missing 'domain' ({source_label()})")
        unexplained = [key for key, c in out.items() if c.domain and not c.domain.reason]
        if unexplained:
            raise ConstantsError(f"{unexplained[0]}: missing 'domain_reason' ({source_label()})")
    else:
        known = _read(None)
        missing = sorted(set(known) - set(out))
        unknown = sorted(set(out) - set(known))
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise ConstantsError(f"constants file {path} has no {missing[0]}{more}: every key of "
                                 f"{source_label()} is needed")
        if unknown:
            raise ConstantsError(f"constants file {path}: unknown constant {unknown[0]!r} (see "
                                 f"{source_label()})")
        for key, c in list(out.items()):  # a file without domains takes the default file's
            if c.domain is None:
                checked(key, c.value, c.text, known[key].domain, str(path))
                out[key] = Constant(key, c.value, c.text, c.meaning, c.source, known[key].domain)
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
        value = checked(key, parse_value(text, key), text.strip(), old.domain, "--set")
        out[key] = Constant(key, value, text.strip(), old.meaning,
                            f"overridden on the command line (file: {old.text})", old.domain)
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
