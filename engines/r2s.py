"""CQL's R2S operators for engines: the kit's engines share this (the oracle has its own)."""

from __future__ import annotations

from collections import Counter


def row_key(row) -> tuple:
    """A bag key for a solution mapping ({var: term}) or a triple."""
    if isinstance(row, dict):
        return tuple(sorted((k, v.n3()) for k, v in row.items()))
    return tuple(x.n3() for x in row)


def apply(operator: str, current: list, previous: list) -> list:
    """Rstream: the relation; Istream: current − previous; Dstream: previous − current (bags)."""
    if operator == "rstream":
        return current
    a, b = (current, previous) if operator == "istream" else (previous, current)
    left = Counter(row_key(r) for r in b)
    out = []
    for row in a:
        if left[row_key(row)]:
            left[row_key(row)] -= 1
        else:
            out.append(row)
    return out
