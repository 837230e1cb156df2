"""Why-provenance of a solution: which stream elements derive it (seed 003's ⊗ and ⊕).

A solution of the R2R query is derived by one or more *derivations* (⊕, alternatives); each derivation
joins the triples matched by the query's triple patterns under one full binding of the WHERE clause
(⊗, all needed together).  We find the full bindings by evaluating the query's WHERE clause (below
projection, ordering, grouping and aggregation) with the solution's values pre-bound — for an
aggregate, only the grouping variables are pre-bound, so the derivations are the group's rows — then
instantiate every triple pattern and look the triples up in the stream's elements.
"""

from __future__ import annotations

from dataclasses import dataclass

from rdflib import BNode, Graph, Variable
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query

from oracle.r2r import R2R

WRAPPERS = ("Project", "Distinct", "Reduced", "Slice", "OrderBy", "ToMultiSet", "Extend",
            "AggregateJoin", "Group")


@dataclass(frozen=True)
class Derivation:
    """One way a solution is derived: the stream elements (index, t) whose triples it joins."""

    elements: tuple[int, ...]
    times: tuple[int, ...]


def _where(algebra: CompValue) -> CompValue:
    node = algebra.p
    while isinstance(node, CompValue) and node.name in WRAPPERS + ("Filter",) and _is_wrapper(node):
        node = node.p
    return node


def _is_wrapper(node: CompValue) -> bool:
    if node.name != "Filter":
        return True
    # a Filter above an AggregateJoin is a HAVING clause; any other Filter belongs to the pattern
    inner = node.p
    return isinstance(inner, CompValue) and inner.name == "AggregateJoin"


def _patterns(node) -> list[tuple]:
    out = []
    if isinstance(node, CompValue):
        if node.name == "BGP":
            out.extend(node.triples)
        for value in node.values():
            out.extend(_patterns(value))
    elif isinstance(node, (list, tuple)):
        for value in node:
            out.extend(_patterns(value))
    return out


class Provenance:
    """Finds the derivations of solutions of one query over one stream."""

    def __init__(self, query: R2R):
        self.r2r = query
        self.stream = query.stream
        algebra = query.query.algebra
        self.where = _where(algebra) if query.form == "SelectQuery" else algebra.p
        self.patterns = _patterns(self.where)
        pattern_vars = {t for tp in self.patterns for t in tp if isinstance(t, Variable)}
        pattern_vars |= set(getattr(self.where, "_vars", ()))
        # blank nodes of the patterns ([ om-owl:floatValue ?v ]) are bound like variables; projecting
        # them too makes a full binding name the very triples a solution used
        bnodes = list(dict.fromkeys(t for tp in self.patterns for t in tp if isinstance(t, BNode)))
        self.where_query = Query(query.query.prologue, CompValue(
            "SelectQuery", p=self.where, PV=sorted(pattern_vars) + bnodes, datasetClause=None))
        self.pattern_vars = {str(v) for v in pattern_vars}
        self._graphs: dict[tuple[int, int], tuple[Graph, dict]] = {}

    def _graph(self, content: tuple[int, int]):
        hit = self._graphs.get(content)
        if hit is None:
            g = self.r2r.graph(content)  # only the predicates the query can match
            where: dict = {}
            lo, hi = content
            for i in range(lo, hi):
                for triple in self.stream.elements[i].triples:
                    where.setdefault(triple, []).append(i)
            hit = self._graphs[content] = (g, where)
        return hit

    def derivations(self, solution: dict, content: tuple[int, int], limit: int = 8) -> list[Derivation]:
        """The derivations of ``solution`` from the elements in ``content`` (at most ``limit``)."""
        if self.r2r.form == "ConstructQuery":
            g, where = self._graph(content)
            triple = (solution.get("s"), solution.get("p"), solution.get("o"))
            found = where.get(triple, [])
            return [Derivation((i,), (self.stream.elements[i].t,)) for i in found[:limit]]
        g, where = self._graph(content)
        init = {v: t for v, t in solution.items() if v in self.pattern_vars}
        try:
            rows = list(g.query(self.where_query, initBindings=init))
        except Exception:  # provenance is a diagnostic; never let it break a verdict
            return []
        terms = list(self.where_query.algebra.PV)
        out: list[Derivation] = []
        seen = set()
        for row in rows:
            binding = {t: row[i] for i, t in enumerate(terms) if row[i] is not None}
            binding.update({Variable(k): v for k, v in init.items()})
            used: set[int] = set()
            for pattern in self.patterns:
                spo = tuple(binding.get(t, None) if isinstance(t, (Variable, BNode)) else t for t in pattern)
                for triple in g.triples(spo):
                    used.update(where.get(triple, []))
            key = tuple(sorted(used))
            if key and key not in seen:
                seen.add(key)
                out.append(Derivation(key, tuple(sorted({self.stream.elements[i].t for i in key}))))
            if len(out) >= limit:
                break
        return out
