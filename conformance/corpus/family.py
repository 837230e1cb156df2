"""One case family file read: UTF-8 YAML, each key once, valid against ``schema/case.schema.json``; a
mistake is a :class:`CaseFileError` naming the file, the line, the YAML path of the bad field and what
was expected (:mod:`conformance.corpus.cases` expands a family into cases)."""

from __future__ import annotations

import functools
from pathlib import Path

import jsonschema
import yaml

from conformance import schema as schemas
from oracle import durations

DURATION_FIELDS = ("range", "slide", "interval", "duration", "periodic")


class CaseFileError(ValueError):
    """A case file that cannot be used; the message says where and what to do."""


@functools.lru_cache(maxsize=1)
def schema() -> dict:
    return schemas.schema("case")


def _node_at(node, path):
    """The YAML node at a JSON path, as far as the path resolves."""
    for part in path:
        if isinstance(node, yaml.MappingNode):
            nxt = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            nxt = node.value[part]
        else:
            nxt = None
        if nxt is None:
            break
        node = nxt
    return node


def _line_of(node, path) -> int | None:
    """Line (1-based) of the YAML node at a JSON path, as far as the path resolves."""
    return None if node is None else _node_at(node, path).start_mark.line + 1


def _yaml_path(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _duplicate_key(node) -> tuple[str, int] | None:
    """The first key given twice in one mapping of the composed YAML, and its second line."""
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    return key.value, key.start_mark.line + 1
                seen.add(key.value)
            found = _duplicate_key(value)
            if found:
                return found
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            found = _duplicate_key(item)
            if found:
                return found
    return None


# libyaml's parser when PyYAML was built with it (the wheels are): the corpus's 14 files parse in 0.06 s
# against 1.0 s in Python, which every command and test that reads the corpus paid
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parsed(text: str):
    """(the document's node, for lines and duplicate keys; its data), from one parse."""
    loader = LOADER(text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def read_family(path: Path) -> dict:
    """Parse and validate one case family file."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise CaseFileError(f"{path}:{line}: not UTF-8 (byte 0x{raw[exc.start]:02x}); a case file is UTF-8: "
                            "re-save it so (e.g. iconv -f latin1 -t utf-8)") from None
    try:
        node, data = _parsed(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise CaseFileError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    if node is None:
        raise CaseFileError(f"{path}:1: the file is empty; a case family needs schema_version, family, title "
                            "and cases (conformance/schema/case.schema.json)")
    twice = _duplicate_key(node)
    if twice:
        key, line = twice
        raise CaseFileError(f"{path}:{line}: the key {key!r} is given twice in one mapping (YAML would keep the "
                            "last silently); keep one")
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        err = min(errors, key=lambda e: -len(e.absolute_path))
        line = _line_of(node, list(err.absolute_path))
        expected = err.message
        where_said = err.validator_value if err.validator == "not" else err.schema
        said = where_said.get("description") if isinstance(where_said, dict) else None
        if said and err.validator in ("type", "minimum", "not"):  # the schema says what is wanted there
            expected = f"{err.instance!r}: {said}" if err.validator != "not" else said
        elif err.absolute_path and err.absolute_path[-1] in DURATION_FIELDS:
            expected = f"{err.instance!r} is not a duration; write {durations.EXPECTED}"
        if err.validator == "additionalProperties":
            expected += " — remove it or check its spelling against conformance/schema/case.schema.json"
        raise CaseFileError(f"{path}:{line}: field {_yaml_path(err.absolute_path)}: {expected}")
    return data


def field_line(path: Path, at: list) -> tuple[int | None, bool]:
    """The line of a field in a case file, and whether it is a block scalar (read again only to report
    an error)."""
    try:
        node, _ = _parsed(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None, False
    field = _node_at(node, at)
    return field.start_mark.line + 1, isinstance(field, yaml.ScalarNode) and field.style in ("|", ">")
