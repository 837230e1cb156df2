"""R2R: the SPARQL 1.1 part of a continuous query, evaluated by rdflib over one window's content.

Results are cached by window content (an element index range), so the oracle's cost grows with the
number of distinct window contents, not with the number of t0 candidates or profile variants.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parserutils import CompValue

from oracle import joinorder
from oracle.model import Stream
from oracle.terms import solution_keys


class QueryError(ValueError):
    """The R2R query cannot be parsed or evaluated."""


@dataclass(frozen=True)
class Solutions:
    """A bag (or, under ORDER BY, a sequence) of solutions with their comparison keys."""

    rows: tuple[dict, ...]
    keys: tuple[tuple, ...]
    ordered: bool = False

    @classmethod
    def of(cls, rows, ordered: bool = False) -> "Solutions":
        rows = tuple(dict(r) for r in rows)
        return cls(rows, tuple(solution_keys(rows)), ordered)

    def __len__(self) -> int:
        return len(self.rows)


def _has_order_by(node: Any) -> bool:
    if isinstance(node, CompValue):
        if node.name == "OrderBy":
            return True
        return any(_has_order_by(v) for v in node.values())
    if isinstance(node, (list, tuple)):
        return any(_has_order_by(v) for v in node)
    return False


def _predicates(node: Any, found: set) -> bool:
    """Collect the constant predicates of every triple pattern; False if any predicate is not an IRI
    (a variable or a property path), in which case every triple may matter."""
    if isinstance(node, CompValue):
        if node.name == "BGP":
            for _, p, _ in node.triples:
                if not isinstance(p, URIRef):
                    return False
                found.add(p)
        if node.name in ("Graph", "ServiceGraphPattern", "DescribeQuery"):
            return False
        return all(_predicates(v, found) for v in node.values())
    if isinstance(node, (list, tuple)):
        return all(_predicates(v, found) for v in node)
    return True


class R2R:
    """One prepared SPARQL query over window contents of one stream, with a content cache.

    Only triples whose predicate occurs in some triple pattern of the query are loaded: when every
    pattern has a constant IRI predicate, no other triple can match any pattern, so the answers are the
    same and the graphs are smaller.  Queries with variable predicates or property paths load everything.
    """

    def __init__(self, query: str, stream: Stream):
        try:
            self.query = prepareQuery(query)
        except Exception as exc:  # rdflib raises pyparsing errors of several kinds
            raise QueryError(f"cannot parse the R2R query: {exc}") from exc
        self.text = query
        self.stream = stream
        self.form = self.query.algebra.name  # SelectQuery, ConstructQuery, AskQuery, DescribeQuery
        if self.form not in ("SelectQuery", "ConstructQuery", "AskQuery"):
            raise QueryError(f"unsupported query form {self.form}: use SELECT, CONSTRUCT or ASK")
        self.ordered = self.form == "SelectQuery" and _has_order_by(self.query.algebra)
        self._cache: dict[tuple[int, int], Solutions] = {}
        self.evaluations = 0
        wanted: set = set()
        self.relevant = wanted if _predicates(self.query.algebra, wanted) else None
        joinorder.mark(self.query.algebra)

    def graph(self, content: tuple[int, int]) -> Graph:
        """The static data plus the elements in ``content``, restricted to the relevant predicates."""
        g = Graph(store="SimpleMemory")
        lo, hi = content
        triples = [t for t in self.stream.static]
        for element in self.stream.elements[lo:hi]:
            triples.extend(element.triples)
        keep = self.relevant
        g.addN((s, p, o, g) for s, p, o in triples if keep is None or p in keep)
        return g

    def evaluate_graph(self, g: Graph, init: dict | None = None) -> Solutions:
        result = g.query(self.query, initBindings=init or {})
        if self.form == "AskQuery":
            return Solutions.of([{"ask": Literal(bool(result.askAnswer))}])
        if self.form == "ConstructQuery":
            return Solutions.of([{"s": s, "p": p, "o": o} for s, p, o in result.graph])
        names = [str(v) for v in result.vars]
        rows = []
        for row in result:
            rows.append({n: row[i] for i, n in enumerate(names) if row[i] is not None})
        return Solutions.of(rows, self.ordered)

    def evaluate(self, content: tuple[int, int]) -> Solutions:
        """Solutions of the query over the static data plus the elements ``content`` (cached)."""
        hit = self._cache.get(content)
        if hit is None:
            self.evaluations += 1
            hit = self.evaluate_graph(self.graph(content))
            self._cache[content] = hit
        return hit
