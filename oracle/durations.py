"""Durations in case files and on the command line: integers are ms; '500ms', '10s', '1m' are read."""

from __future__ import annotations

import re

UNITS = {"ms": 1, "s": 1000, "m": 60_000}


EXPECTED = "a positive duration like 5s, 500ms, 1m or PT5S (or an integer number of milliseconds)"
ISO = re.compile(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?", re.IGNORECASE)


def parse_duration(value) -> int:
    """Milliseconds from 5000, '5s', '500ms', '1m' or an xsd:duration of hours/minutes/seconds ('PT5S')."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration; write {EXPECTED}")
    if isinstance(value, int):
        return value
    text = str(value).strip()
    m = re.fullmatch(r"(\d+)\s*(ms|s|m)?", text)
    if m:
        return int(m.group(1)) * UNITS[m.group(2) or "ms"]
    m = ISO.fullmatch(text)
    if m and any(m.groups()):
        h, mi, sec = m.groups()
        return int(h or 0) * 3_600_000 + int(mi or 0) * 60_000 + round(float(sec or 0) * 1000)
    raise ValueError(f"{value!r} is not a duration; write {EXPECTED}")


def in_words(ms: float) -> str:
    """A duration as a reason says it: whole seconds in s, else ms."""
    return f"{ms / 1000:g} s" if ms % 1000 == 0 else f"{ms:g} ms"
