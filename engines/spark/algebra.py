"""Reading the query's algebra (rdflib's): what several parts of the engine need from it, in one place
(the window job's predicate cut, the live warm-up's made-up data, a CONSTRUCT WHERE's template)."""

from __future__ import annotations

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
