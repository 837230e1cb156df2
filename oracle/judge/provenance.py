"""Why-provenance of a solution: which stream elements derive it (seed 003's ⊗ and ⊕).

A solution of the R2R query is derived by one or more *derivations* (⊕, alternatives); each derivation
joins the triples matched by the query's triple patterns under one full binding of the WHERE clause
(⊗, all needed together).  We find the full bindings by evaluating the query's WHERE clause (below
projection, ordering, grouping and aggregation) with the solution's values pre-bound — for an
aggregate, only the grouping variables are pre-bound, and the group's rows are joined into one derivation
(an aggregate needs every row of its group) — then instantiate every triple pattern and look the triples
up in the stream's elements.

An engine may print a literal in another lexical form than the stream has (``"77.0"`` for
``"77"^^xsd:double``): a solution's literal is bound to the stream's literals *of the same value*, so
provenance finds what the engine derived from, not only what it printed the same way.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from rdflib import BNode, Graph, Literal, Variable
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query

from oracle.r2r.query import R2R
from oracle.r2r.terms import term_key

ALTERNATIVES = 16  # at most this many combinations of equal-valued stream literals are tried
GROUP_ROWS = 256  # at most this many rows of one group are joined into an aggregate's derivation
FILTER_WORD = re.compile(r"\bFILTER\s*", re.IGNORECASE)
FORM_WORD = re.compile(r"\b(SELECT|CONSTRUCT|ASK|DESCRIBE)\b", re.IGNORECASE)


def filter_texts(query: str) -> list[str]:
    """The FILTER expressions of a query as written (``?value > 80``), in order; FILTER EXISTS and
    NOT EXISTS are left out (they are patterns, not expressions of one solution)."""
    out = []
    for m in FILTER_WORD.finditer(query):
        i = m.end()
        start = i
        while i < len(query) and (query[i].isalnum() or query[i] in "_:"):
            i += 1  # a function name: FILTER regex(...)
        if i >= len(query) or query[i] != "(" or query[start:i].upper() in ("EXISTS", "NOT"):
            continue
        depth, j, quote = 0, i, None
        while j < len(query):
            ch = query[j]
            if quote:
                quote = None if ch == quote and query[j - 1] != "\\" else quote
            elif ch in "\"'":
                quote = ch
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        text = query[start:j + 1]
        out.append(text[1:-1].strip() if start == i else text.strip())
    return out


def _without_filters(node):
    """The pattern with every FILTER removed (a HAVING above an aggregate stays: it is no FILTER)."""
    if isinstance(node, CompValue):
        if node.name == "Filter" and not _is_wrapper(node):
            return _without_filters(node.p)
        copy = CompValue(node.name, **{k: _without_filters(v) for k, v in node.items()})
        return copy
    if isinstance(node, list):
        return [_without_filters(v) for v in node]
    return node

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


def _passes(filter_query, binding: dict) -> bool:
    """Whether one FILTER expression keeps a full binding (an error in it counts as not keeping it)."""
    try:
        return bool(list(Graph().query(filter_query, initBindings=binding)))
    except Exception:
        return False


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
        # a CONSTRUCT's template (CONSTRUCT WHERE: its pattern's triples, SPARQL 1.1 §16.2.4)
        self.template = (algebra.template or self.patterns) if query.form == "ConstructQuery" else []
        self._graphs: dict[tuple[int, int], tuple[Graph, dict]] = {}
        text = query.text
        form = FORM_WORD.search(text)
        self.prologue = text[:form.start()] if form else ""
        self.filters = filter_texts(text)
        self.pattern_query = None
        if self.filters:
            self.pattern_query = Query(query.query.prologue, CompValue(
                "SelectQuery", p=_without_filters(self.where), PV=sorted(pattern_vars) + bnodes, datasetClause=None))
        self._filter_queries: dict[str, Query | None] = {}

    def _filter_query(self, text: str):
        if text not in self._filter_queries:
            try:
                self._filter_queries[text] = prepareQuery(f"{self.prologue}SELECT * WHERE {{ FILTER({text}) }}")
            except Exception:  # an expression rdflib cannot read alone: not named
                self._filter_queries[text] = None
        return self._filter_queries[text]

    def rejected_by(self, solution: dict, content: tuple[int, int], limit: int = 8):
        """For a solution the query does not derive from ``content``: the derivations of its graph pattern
        there *without* the FILTERs, and the FILTER expressions (as written) that reject every one of them.
        ``([], [])`` when the pattern derives it from nothing in ``content`` either."""
        if self.pattern_query is None or self.r2r.form == "ConstructQuery":
            return [], []
        if not solution or any(v not in self.pattern_vars for v in solution):
            return [], []  # a computed value (an aggregate, a BIND): the pattern does not bind it
        g, where, literals = self._graph(content)
        inits = self.bindings(solution, literals)
        ders = self._derive(self.pattern_query, g, where, inits, limit)
        if not ders:
            return [], []
        # the full bindings of the pattern (at most ``limit`` per pre-binding), found once for every FILTER
        terms = list(self.pattern_query.algebra.PV)
        bindings = []
        for init in inits:
            try:
                rows = list(g.query(self.pattern_query, initBindings=init))
            except Exception:
                continue
            for row in rows[:limit]:
                binding = {str(t): row[i] for i, t in enumerate(terms) if row[i] is not None and isinstance(t, Variable)}
                binding.update(init)
                bindings.append(binding)
        rejecting = []
        for text in self.filters:
            fq = self._filter_query(text)
            if fq is not None and not any(_passes(fq, binding) for binding in bindings):
                rejecting.append(text)
        return ders, rejecting

    def _graph(self, content: tuple[int, int]):
        hit = self._graphs.get(content)
        if hit is None:
            g = self.r2r.graph(content)  # only the predicates the query can match
            where: dict = {}
            lo, hi = content
            for i in range(lo, hi):
                for triple in self.stream.elements[i].triples:
                    where.setdefault(triple, []).append(i)
            literals: dict = {}
            for triple in where:
                for term in triple:
                    if isinstance(term, Literal):
                        literals.setdefault(term_key(term), set()).add(term)
            hit = self._graphs[content] = (g, where, {k: sorted(v) for k, v in literals.items()})
        return hit

    def bindings(self, solution: dict, literals: dict) -> list[dict]:
        """The solution's pattern values as pre-bindings, each literal replaced by the stream's literals of
        the same value (every combination, up to :data:`ALTERNATIVES`); a blank node binds nothing (a
        report's blank nodes are compared up to isomorphism, and shown by their colour)."""
        names, options = [], []
        for v, t in solution.items():
            if v not in self.pattern_vars or isinstance(t, BNode):  # a blank node's label is its output's own
                continue
            names.append(v)
            options.append(literals.get(term_key(t), [t]) if isinstance(t, Literal) else [t])
        return [dict(zip(names, combo)) for combo in itertools.islice(itertools.product(*options), ALTERNATIVES)]

    def filling(self, triple: dict) -> list[dict]:
        """The pattern values under which a CONSTRUCT template's triples give ``triple`` (``s``, ``p``,
        ``o``): one pre-binding per template triple it fits, a template blank node fitting any blank node
        (each solution makes a fresh one); the pre-binding finds its derivations as a solution's does."""
        out = []
        for pattern in self.template:
            filled: dict = {}
            for t, value in zip(pattern, (triple.get("s"), triple.get("p"), triple.get("o"))):
                if isinstance(t, Variable):
                    if filled.setdefault(str(t), value) != value:
                        break
                elif isinstance(t, BNode):
                    if not isinstance(value, BNode):
                        break
                elif t != value and not (isinstance(t, Literal) and isinstance(value, Literal)
                                         and term_key(t) == term_key(value)):
                    break
            else:
                if filled not in out:
                    out.append(filled)
        return out

    def aggregated(self, solution: dict) -> bool:
        """Whether ``solution`` carries a value computed over a group (an aggregate of the query): its
        derivation is then the whole group's rows joined (⊗), not each row alone."""
        return self.r2r.aggregates and any(v not in self.pattern_vars for v in solution)

    def derivations(self, solution: dict, content: tuple[int, int], limit: int = 8) -> list[Derivation]:
        """The derivations of ``solution`` from the elements in ``content`` (at most ``limit``); for an
        aggregate solution, one: every row of its group joined (an aggregate needs all of them)."""
        g, where, literals = self._graph(content)
        if self.r2r.form == "ConstructQuery":
            out: list[Derivation] = []
            for filled in self.filling(solution):
                out += [d for d in self._derive(self.where_query, g, where, self.bindings(filled, literals), limit)
                        if d not in out]
            return out[:limit]
        if self.aggregated(solution):
            rows = self._derive(self.where_query, g, where, self.bindings(solution, literals), GROUP_ROWS)
            used = tuple(sorted({i for d in rows for i in d.elements}))
            return [Derivation(used, tuple(sorted({self.stream.elements[i].t for i in used})))] if used else []
        return self._derive(self.where_query, g, where, self.bindings(solution, literals), limit)

    def _derive(self, query, g, where, inits: list[dict], limit: int) -> list[Derivation]:
        rows = []
        for init in inits:
            try:
                rows += [(init, row) for row in g.query(query, initBindings=init)]
            except Exception:  # provenance is a diagnostic; never let it break a verdict
                continue
        terms = list(query.algebra.PV)
        out: list[Derivation] = []
        seen = set()
        for init, row in rows:
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
