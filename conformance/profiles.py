"""Profiles as written in YAML/JSON (a value or a list of admissible values per parameter).

The admissible semantics of one run of one case = the engine's declared profile, with the parameters
the case fixes replaced by the case's values, and the parameters the case lets the oracle vary
replaced by the case's admissible values.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from conformance.durations import parse_duration
from oracle.model import Profile, ProfileSpace

NAMES = [f.name for f in fields(Profile)]


def _values(name: str, value: Any) -> tuple:
    if name == "report":
        # a list of conditions, or a list of such lists (alternatives)
        if value and isinstance(value[0], (list, tuple)):
            return tuple(frozenset(v) for v in value)
        return (frozenset(value),)
    if name == "t0_range":
        return (tuple(value) if value is not None else None,)
    if name == "periodic":
        return (None if value is None else parse_duration(value),)
    if isinstance(value, list):
        return tuple(value)
    return (value,)


def space(declared: dict, fixed: dict | None = None, vary: dict | None = None) -> ProfileSpace:
    """The ProfileSpace for an engine's declared profile under a case's fixed/vary semantics."""
    merged: dict[str, Any] = {}
    for source in (declared, fixed or {}, vary or {}):
        for name, value in source.items():
            if name not in NAMES:
                raise ValueError(f"unknown profile parameter {name!r}; known: {', '.join(NAMES)}")
            merged[name] = value
    choices = {name: _values(name, value) for name, value in merged.items()}
    single = {name: vals[0] for name, vals in choices.items() if len(vals) == 1}
    multi = {name: vals for name, vals in choices.items() if len(vals) > 1}
    return ProfileSpace.of(Profile(**single), **multi)


def profile(values: dict) -> Profile:
    """One concrete profile from YAML values (each parameter a single value)."""
    variants = list(space(values).variants())
    if len(variants) != 1:
        raise ValueError(f"profile {values} names more than one variant")
    return variants[0]
