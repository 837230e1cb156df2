"""Durations in case files and on the command line: integers are ms; '500ms', '10s', '1m' are read."""

from __future__ import annotations

import re

UNITS = {"ms": 1, "s": 1000, "m": 60_000}


def parse_duration(value) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration")
    if isinstance(value, int):
        return value
    m = re.fullmatch(r"\s*(\d+)\s*(ms|s|m)?\s*", str(value))
    if not m:
        raise ValueError(f"{value!r} is not a duration; write milliseconds (5000) or '5s', '500ms', '1m'")
    return int(m.group(1)) * UNITS[m.group(2) or "ms"]


def show_duration(ms: int) -> str:
    if ms % 60_000 == 0:
        return f"{ms // 60_000}m"
    if ms % 1000 == 0:
        return f"{ms // 1000}s"
    return f"{ms}ms"
