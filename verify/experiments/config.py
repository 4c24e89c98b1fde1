"""Per-task configuration: ``config/<task>.toml`` (package data), one file per task.

Each file has the sections ``[data]``, ``[model]`` and ``[training]``; a ``[quick]`` section
overrides keys of any of them for the quick profile.  A value written as a table
``{ coef = c, power = k }`` means ``c * n^k`` with n the task's size parameter (the alphabet or
vocabulary size d, or the maximal length for even pairs): sample sizes are rounded to integers,
step sizes are floats.  Every key's comment says whether the paper fixes it or it is ours.
"""
from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any, Mapping

PROFILES = ("quick", "default")
SECTIONS = ("data", "model", "training")
INTEGER_KEYS = ("train", "test", "steps", "attention_phase_steps", "d", "max_len", "seq_len",
                "triggers")


class ConfigError(ValueError):
    """A configuration file is missing, malformed or incomplete."""


def raw(task: str) -> dict:
    """The parsed TOML of one task."""
    path = resources.files(__package__) / "config" / f"{task}.toml"
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"no configuration for task {task!r}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config/{task}.toml is malformed: {exc}") from None


def text(task: str) -> str:
    return (resources.files(__package__) / "config" / f"{task}.toml").read_text()


def flat(task: str, profile: str) -> dict[str, Any]:
    """The task's settings for a profile, one flat dict, rules not yet resolved."""
    if profile not in PROFILES:
        raise ConfigError(f"unknown profile {profile!r}")
    data = raw(task)
    out: dict[str, Any] = {}
    for section in SECTIONS:
        if section not in data:
            raise ConfigError(f"config/{task}.toml lacks the section [{section}]")
        out.update(data[section])
    if profile == "quick":
        unknown = set(data.get("quick", {})) - set(out)
        if unknown:
            raise ConfigError(f"config/{task}.toml: [quick] sets unknown keys {sorted(unknown)}")
        out.update(data.get("quick", {}))
    return out


def resolve(settings: Mapping[str, Any], size: int) -> dict[str, Any]:
    """Replace every ``{coef, power}`` rule by its value at ``size``."""
    out = {}
    for key, value in settings.items():
        if isinstance(value, dict):
            if set(value) - {"coef", "power"} or "coef" not in value:
                raise ConfigError(f"{key}: a rule is {{ coef = c, power = k }}")
            value = float(value["coef"]) * float(size) ** float(value.get("power", 0))
            if key in INTEGER_KEYS:
                value = max(1, int(round(value)))
        out[key] = value
    return out
