"""Walking rdflib's SPARQL algebra (one walker for every module of the oracle's R2R that reads a query)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rdflib import Variable
from rdflib.plugins.sparql.parserutils import CompValue

#: algebra keys that name a variable without reading it: what a pattern binds or projects
NAMING = ("_vars", "PV", "res", "var")


def nodes(node: Any):
    """Every algebra node and expression in a query, each before the ones inside it."""
    if isinstance(node, CompValue):
        yield node
        for value in node.values():
            yield from nodes(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from nodes(value)


def read_alone(algebra: CompValue, results: dict) -> dict[str, Any]:
    """Projected variable → ``results[r]``, for each variable of a SELECT that one Extend binds to an aggregate's
    result ``r`` (a key of ``results``) and that nothing else reads: its value reaches the answer as the aggregate
    made it (a GROUP_CONCAT's, oracle/r2r/concat.py; a COUNT's, oracle/r2r/sums.py)."""
    if algebra.name != "SelectQuery" or not results:
        return {}
    reads, bound = Counter(), Counter()
    extends = []
    for node in nodes(algebra):
        if node.name == "Extend":
            extends.append(node)
            bound[node.var] += 1
        for key, value in node.items():
            if key not in NAMING:
                reads.update(_variables(value))
    projected = set(algebra.PV)
    return {str(e.var): results[e.expr] for e in extends
            if isinstance(e.expr, Variable) and e.expr in results and reads[e.expr] == 1  # the Extend alone
            and reads[e.var] == 0 and bound[e.var] == 1 and e.var in projected}


def _variables(value: Any):
    """The variables in a node's value outside nested nodes (those are visited on their own)."""
    if isinstance(value, Variable):
        yield value
    elif isinstance(value, dict) and not isinstance(value, CompValue):
        for k, v in value.items():
            yield from _variables(k)
            yield from _variables(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            if not isinstance(v, CompValue):
                yield from _variables(v)
