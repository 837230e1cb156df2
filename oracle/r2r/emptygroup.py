"""A fault model for the diagnosis: an engine whose join with a group over no matches is empty.

SPARQL groups the solutions of a query with aggregates and no GROUP BY into one group even when there
are none (``COUNT(*)`` over nothing is one row, 0; SPARQL 1.1 §18.5.1).  Comunica 2.10.2, the SPARQL
engine inside rsp-js, gives the right row for such a query alone, but its group operator passes on the
cardinality of its input (0), and its join actor for an entry of cardinality 0 (``multi-empty``) then
returns nothing without evaluating: a join with ``{ SELECT (COUNT(*) AS ?n) WHERE { … } }`` over no
matches loses every solution.  :func:`faulty` wraps an :class:`~oracle.r2r.query.R2R` so that its
joins do that, so the whole-output search can ask whether an engine's output is exactly that fault's
(:mod:`oracle.expected.multiwindow`).  Like :mod:`oracle.r2r.joinorder`, it is an rdflib custom
evaluation, active only while a :func:`faulty` R2R evaluates; every other evaluation is untouched.
"""

from __future__ import annotations

import threading
from typing import Any

from rdflib.plugins.sparql import CUSTOM_EVALS
from rdflib.plugins.sparql.evaluate import evalPart
from rdflib.plugins.sparql.parserutils import CompValue

from oracle.r2r.algebra import nodes

_WRAPPERS = ("ToMultiSet", "Project", "Extend", "Distinct", "Reduced", "Slice", "OrderBy", "Filter")


def grouped_over(node: Any) -> Any | None:
    """The pattern an ungrouped aggregate side of a join groups (``{ SELECT (COUNT(*) …) WHERE { P } }``
    gives P), or None when the side is no such subquery."""
    while isinstance(node, CompValue) and node.name in _WRAPPERS:
        node = node.p
    if isinstance(node, CompValue) and node.name == "AggregateJoin":
        group = node.p
        if isinstance(group, CompValue) and group.name == "Group" and group.expr is None:
            return group.p
    return None


def applies(r2r) -> bool:
    """Whether the query joins a group over some pattern with anything (else the fault changes nothing)."""
    joins = (n for n in nodes(r2r.query.algebra) if n.name == "Join")
    return any(grouped_over(j.p1) is not None or grouped_over(j.p2) is not None for j in joins)


_ACTIVE = threading.local()  # on only while a faulty R2R evaluates: rdflib shares parsed algebra between
                             # parses of one text, so a mark on the nodes would reach the right R2R too


class Faulty:
    """``r2r`` as the engine with this fault evaluates it: its joins are empty when a side groups a pattern
    with no match (only :meth:`evaluate_graph`, what the several-window oracle calls)."""

    def __init__(self, r2r):
        self._r2r = r2r

    def __getattr__(self, name):
        return getattr(self._r2r, name)

    def evaluate_graph(self, g, init=None):
        _ACTIVE.on = True
        try:
            return self._r2r.evaluate_graph(g, init)
        finally:
            _ACTIVE.on = False


def faulty(r2r) -> Faulty:
    return Faulty(r2r)


def _evaluate(ctx, part):
    if getattr(part, "name", None) != "Join" or not getattr(_ACTIVE, "on", False):
        raise NotImplementedError  # rdflib's own evaluation for everything else
    for side in (part.p1, part.p2):
        inner = grouped_over(side)
        if inner is not None and next(iter(evalPart(ctx, inner)), None) is None:
            return iter(())
    raise NotImplementedError


CUSTOM_EVALS["rspconf_empty_group_join"] = _evaluate
