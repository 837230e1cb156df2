"""CQL's R2S operators and empty-result notification, over the sequence of evaluated relations."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Iterator

from oracle.model import ExpectedReport
from oracle.r2r.solutions import Solutions


def minus(a: Solutions, b: Solutions) -> Solutions:
    """Bag difference a − b (each solution of b cancels one equal solution of a)."""
    budget = Counter(b.keys)
    rows, keys = [], []
    for row, key in zip(a.rows, a.keys):
        if budget[key] > 0:
            budget[key] -= 1
        else:
            rows.append(row)
            keys.append(key)
    return replace(a, rows=tuple(rows), keys=tuple(keys))


def apply(operator: str, current: Solutions, previous: Solutions | None) -> Solutions:
    """Rstream: the relation; Istream: what is new since the previous one; Dstream: what left."""
    if operator == "rstream":
        return current
    empty = replace(current, rows=(), keys=())
    if operator == "istream":
        return minus(current, previous or empty)
    if operator == "dstream":
        return minus(previous or empty, current)
    raise ValueError(f"unknown R2S operator {operator!r}")


def streamed(decisions, profile) -> Iterator[ExpectedReport]:
    """The output stream: for each ``(tau, k, opening, closing, content, reason, relation)`` in order (the
    relation may be computed lazily, when the caller asks for the next report), the relation made
    duplicate-free under a set profile, R2S against the previous *evaluated* relation, and empty results
    left out without empty-result notification."""
    previous = None
    for tau, k, opening, closing, content, reason, relation in decisions:
        if profile.multiplicity == "set":
            relation = relation.distinct()
        out = apply(profile.r2s, relation, previous)
        previous = relation
        if len(out) == 0 and not profile.empty:
            continue
        yield ExpectedReport(tau, k, opening, closing, content, out, reason)
