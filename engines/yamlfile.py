"""A YAML file checked against its JSON Schema before anything reads it: a replay manifest, a load
experiment.  Bad input is one message naming the file, the first wrong field and the schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import yaml


def checked_yaml(path: Path, schema: Path | None, error: type[Exception], what: str, see: str = ""):
    """The file's data, or ``error`` saying why not: it cannot be read (``what`` names the file's kind),
    it is not YAML, or a field breaks the schema (``see``: where the format is explained; no schema: the
    reader checks the data itself)."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read {what} ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise error(f"{path}: not valid YAML: {exc}") from None
    if schema is None:
        return data
    rules = json.loads(schema.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(rules).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(top level)"
        raise error(f"{path}: field {where}: {errors[0].message} (schema: {schema.name}{'; see ' + see if see else ''})")
    return data
