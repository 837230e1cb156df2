"""CQL's R2S operators and empty-result notification, over the sequence of evaluated relations."""

from __future__ import annotations

from collections import Counter

from oracle.r2r import Solutions


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
    return Solutions(tuple(rows), tuple(keys), a.ordered, a.order_vars, a.pool)


def apply(operator: str, current: Solutions, previous: Solutions | None) -> Solutions:
    """Rstream: the relation; Istream: what is new since the previous one; Dstream: what left."""
    if operator == "rstream":
        return current
    empty = Solutions((), (), current.ordered)
    if operator == "istream":
        return minus(current, previous or empty)
    if operator == "dstream":
        return minus(previous or empty, current)
    raise ValueError(f"unknown R2S operator {operator!r}")
