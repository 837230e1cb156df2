"""The kit's JSON Schemas (case files, run and load reports, matrices, experiments, the engine protocol,
replay manifests), reached through one function each: :func:`path`, :func:`schema`, :func:`validator`.

This module holds data and nothing of the kit's logic, so the engines may import it (the protocol and the
manifest are theirs too); the independence test allows exactly this module of ``conformance``.
"""

from __future__ import annotations

import json
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
    """Schema ``name`` as data, read once per process."""
    return json.loads(path(name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def validator(name: str) -> jsonschema.Draft202012Validator:
    """Schema ``name``'s validator, built once per process (a matrix combines many reports)."""
    return jsonschema.Draft202012Validator(schema(name))
