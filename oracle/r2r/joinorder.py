"""Join ordering for the oracle's basic graph patterns, chosen from statistics of the window graph.

rdflib evaluates a BGP as nested loops in an order it picks by counting constant terms, which turns
CSRBench Q6 (two observations of one sensor) into a cross product of all observations: seconds per
window.  For the BGPs of queries the oracle prepares (and only those: they carry a marker), we register
an rdflib custom evaluation that orders the patterns greedily by the estimated number of matches in
the graph at hand, given the variables already bound — a classic cardinality-based join order.
Reordering the patterns of a BGP never changes its solutions, only the cost of finding them.
"""

from __future__ import annotations

import weakref
from typing import Any

from rdflib import BNode, Variable
from rdflib.plugins.sparql import CUSTOM_EVALS
from rdflib.plugins.sparql.evaluate import evalBGP

MARK = "rspconf_ordered"
_STATS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _is_var(term: Any) -> bool:
    return isinstance(term, (Variable, BNode))


class _Stats:
    """Cached counts over one graph: matches of a constant-only pattern, distinct subjects/objects.  It holds
    its graph weakly: it is the value of a weak-keyed mapping whose key is that graph, and a strong reference
    kept every window graph the oracle ever evaluated alive (infer-profile over one 50-station weather case:
    722 graphs, some 150 MB)."""

    def __init__(self, graph):
        self.graph = weakref.proxy(graph)
        self.exact: dict = {}
        self.spread: dict = {}

    def count(self, key) -> int:
        if key not in self.exact:
            self.exact[key] = sum(1 for _ in self.graph.triples(key))
        return self.exact[key]

    def distinct(self, p) -> tuple[int, int]:
        if p not in self.spread:
            subjects, objects = set(), set()
            for s, _, o in self.graph.triples((None, p, None)):
                subjects.add(s)
                objects.add(o)
            self.spread[p] = (max(1, len(subjects)), max(1, len(objects)))
        return self.spread[p]


def order(triples, stats: _Stats, bound: set) -> list:
    """Greedy order: connected patterns first, then fewest estimated matches."""
    remaining = list(triples)
    ordered = []
    bound = set(bound)
    while remaining:
        def estimate(t):
            key = tuple(None if _is_var(x) else x for x in t)
            n = float(stats.count(key))
            s, p, o = t
            if not _is_var(p):
                ds, do = stats.distinct(p)
                if _is_var(s) and s in bound:
                    n /= ds
                if _is_var(o) and o in bound:
                    n /= do
            connected = not bound or any(_is_var(x) and x in bound for x in t)
            return (0 if connected else 1, n)
        best = min(remaining, key=estimate)
        remaining.remove(best)
        ordered.append(best)
        bound.update(x for x in best if _is_var(x))
    return ordered


def _evaluate(ctx, part):
    if getattr(part, "name", None) != "BGP" or not part.get(MARK):
        raise NotImplementedError  # rdflib's own evaluation for everything else
    graph = ctx.graph
    stats = _STATS.get(graph)
    if stats is None:
        stats = _STATS[graph] = _Stats(graph)
    bound = {x for t in part.triples for x in t if _is_var(x) and ctx[x] is not None}
    return evalBGP(ctx, order(part.triples, stats, bound))


CUSTOM_EVALS["rspconf_join_order"] = _evaluate
