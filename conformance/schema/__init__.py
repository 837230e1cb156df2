"""The kit's JSON Schemas (case files, run and load reports, matrices, experiments, the engine protocol,
replay manifests), reached through one function each: :func:`path`, :func:`schema`, :func:`validator`;
and the capability registry (:func:`capabilities`), the one list of capability names, which the case
schema's enum is filled from.

This module holds data and nothing of the kit's logic, so the engines may import it (the protocol and the
manifest are theirs too); the independence test allows exactly this module of ``conformance``.
"""

from __future__ import annotations

import json
from difflib import get_close_matches
from functools import lru_cache
from pathlib import Path

import jsonschema

HERE = Path(__file__).resolve().parent
NAMES = ("case", "experiment", "load", "manifest", "matrix", "protocol", "report")


def path(name: str) -> Path:
    """The file of schema ``name`` (one of :data:`NAMES`)."""
    if name not in NAMES:
        raise ValueError(f"no schema named {name!r}; there are {', '.join(NAMES)}")
    return HERE / f"{name}.schema.json"


@lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """Schema ``name`` as data, read once per process (the case schema with the registry's capability names)."""
    data = json.loads(path(name).read_text(encoding="utf-8"))
    if name == "case":
        data["$defs"]["capability"]["enum"] = list(capabilities())
    return data


@lru_cache(maxsize=None)
def capabilities() -> dict[str, str]:
    """The capability registry: name → what an engine that declares it can run, in the registry's order."""
    registry = json.loads((HERE / "capabilities.json").read_text(encoding="utf-8"))
    registry.pop("$comment", None)
    return registry


def unknown_capabilities(declared) -> list[str]:
    """The declared names that are not in the registry, each with the registry's closest name if one is
    close ("filters: did you mean filter?")."""
    known = capabilities()
    out = []
    for name in sorted(set(declared) - set(known)):
        close = get_close_matches(str(name), list(known), n=1, cutoff=0.6)
        out.append(f"{name}" + (f" (did you mean {close[0]}?)" if close else ""))
    return out


@lru_cache(maxsize=None)
def validator(name: str) -> jsonschema.Draft202012Validator:
    """Schema ``name``'s validator, built once per process (a matrix combines many reports)."""
    return jsonschema.Draft202012Validator(schema(name))
