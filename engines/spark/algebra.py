"""Reading the query's algebra (rdflib's): what several parts of the engine need from it, in one place
(the window job's predicate cut and its windows held, the live warm-up's made-up data, a CONSTRUCT
WHERE's template)."""

from __future__ import annotations

from rdflib.paths import Path
from rdflib.plugins.sparql.parserutils import CompValue


def triple_patterns(node, found: list) -> bool:
    """Collect the triple patterns of every basic graph pattern in the query into ``found``; False if some
    pattern is hidden from it (an untranslated FILTER [NOT] EXISTS pattern)."""
    if isinstance(node, CompValue):
        if node.name == "BGP":
            found.extend(node.triples)
        if node.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            return False
        return all([triple_patterns(v, found) for v in node.values()])  # a list: every branch is read
    if isinstance(node, (list, tuple)):
        return all([triple_patterns(v, found) for v in node])
    return True


# operators whose every solution extends one of their (first) operand's solutions
_THROUGH = {"SelectQuery": "p", "AskQuery": "p", "ConstructQuery": "p", "Project": "p", "Distinct": "p",
            "Reduced": "p", "Slice": "p", "OrderBy": "p", "Filter": "p", "Extend": "p", "Graph": "p",
            "LeftJoin": "p1", "Minus": "p1"}


def needs_a_triple(node) -> bool:
    """Whether every solution of the query matches at least one triple, so that a window without triples
    has none (True only where that is sure: a basic graph pattern with a triple pattern that is no path,
    under operators that only keep, extend or join its solutions).  False for an aggregate without GROUP
    BY (one group even over nothing), an empty pattern, VALUES, and anything not listed."""
    name = getattr(node, "name", None)
    if name in _THROUGH:
        return needs_a_triple(node[_THROUGH[name]])
    if name == "BGP":
        return any(not isinstance(p, Path) for _, p, _ in node.triples)
    if name == "Join":
        return needs_a_triple(node.p1) or needs_a_triple(node.p2)
    if name == "Union":
        return needs_a_triple(node.p1) and needs_a_triple(node.p2)
    if name == "AggregateJoin":  # its p is the Group: without GROUP BY keys, one group over nothing
        return node.p.expr is not None and needs_a_triple(node.p.p)
    if name == "ToMultiSet":  # a sub-SELECT (VALUES: its p is "values", not listed)
        return needs_a_triple(node.p)
    return False
