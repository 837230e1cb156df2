"""The Spark engine's reports: each window's rows (term texts from Spark) made terms, R2S applied
against the previous window's relation, stamped with the window and its close time.  Used by replay,
streaming and live mode alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rdflib import BNode, Literal, URIRef, Variable
from rdflib.util import from_n3

from engines import r2s
from engines.spark.algebra import triple_patterns
from oracle.model import ObservedReport


@dataclass(frozen=True)
class Solutions:
    """A window's solutions as the job hands them over: one line of text each, the N-Triples texts of
    ``names`` in order, separated by newlines ('' for an unbound value)."""
    names: tuple
    lines: list
    drawn: bool = False  # its values hold fresh draws (RAND, UUID, STRUUID, BNODE): another window may not share them

    def __len__(self) -> int:
        return len(self.lines)

    def rows(self, term: Callable = str) -> list[dict]:
        """Each solution as {name: term(text)}, an unbound value left out: one pass over the lines,
        one dict per solution (the reporter's ``term`` a lookup of parsed terms)."""
        names = self.names
        return [{name: term(value) for name, value in zip(names, line.split("\n")) if value} for line in self.lines]


NONE = Solutions((), [])  # a window without solutions


def term(value: str):
    """An rdflib term from its N-Triples text.  An IRI without escapes is made directly, without
    rdflib's ``URIRef`` constructor, whose only other work is a check that logs a warning (the filter
    query's 30 k distinct IRIs at 10^6 triples: 8 ms instead of 19 ms); ``from_n3`` took 0.3 s for them.
    A literal is the engine's own, as written: ``from_n3`` normalises a typed one (``"4"^^xsd:float`` became
    ``"4.0"``, ``"01"^^xsd:integer`` ``"1"``), so only its quoted text is read by it (escapes undone)."""
    if value.startswith("<") and value.endswith(">") and "\\" not in value:
        return str.__new__(URIRef, value[1:-1])
    if value.startswith('"'):
        end = value.rindex('"')  # a datatype IRI or a language tag holds no quote
        if end < len(value) - 1:
            lexical, rest = str(from_n3(value[:end + 1])), value[end + 1:]
            if rest.startswith("^^<"):
                return Literal(lexical, datatype=URIRef(rest[3:-1]), normalize=False)
            if rest.startswith("@"):
                return Literal(lexical, lang=rest[1:], normalize=False)
    return from_n3(value)


# terms a reporter remembers; past it, it starts over: a live run's terms are mostly new in every window
# (the filter query's observations), and one cache for the whole run grew some 3 MiB each 5 s window at
# 10,000 stations (0.6 MiB a second, without end).  50,000 terms are some 17 MiB, and more than the filter
# query's 31,000 distinct ones at 10^6 triples, so replay's reports parse each once as before
KEPT = 50_000


class Terms(dict):
    """N-Triples text -> rdflib term, each text parsed once, on its first lookup (terms are immutable),
    at most :data:`KEPT` of them.  Starting over costs nothing on a hit; keeping only the last windows'
    terms made the filter query's reports at 10^6 triples 10-20 % slower (a lookup in Python on a miss)."""

    def __missing__(self, value: str):
        if len(self) >= KEPT:
            self.clear()
        found = self[value] = term(value)
        return found


class Reporter:
    """Makes the reports of consecutive windows: parses the terms, applies R2S against the previous
    window's relation, stamps each with its window and its close time.

    Each distinct term text is parsed once (:class:`Terms`): the filter query's answers at 10^6 triples
    hold 52 k values, 31 k distinct: the reports took 0.16 s instead of 0.21 s (bench/README.md).  The lines are
    split and parsed in one pass (:meth:`Solutions.rows`; a pass of its own over the lines, as the job's
    rows once were, took 17 ms more of the 26 k solutions)."""

    def __init__(self, operator: str, closed: bool = False, template=None):
        self.operator, self.closed, self.template = operator, closed, template
        self.previous: list = []
        self.parsed = Terms()

    def report(self, form: str, opening: int, closing: int, solutions: Solutions) -> ObservedReport:
        current = solutions.rows(self.parsed.__getitem__)
        if form == "CONSTRUCT":
            current = construct(self.template, current)
        out = bool(current) if form == "ASK" else r2s.apply(self.operator, current, self.previous)
        self.previous = current
        if self.closed:  # computed as [o, c + 1): the window [o, c], reported once time passes c
            return ObservedReport(out, tau=closing, window=(opening, closing - 1))
        return ObservedReport(out, tau=closing, window=(opening, closing))


def construct(template, solutions: list[dict]) -> list[tuple]:
    """SPARQL 1.1 §16.2: the template instantiated with each solution, as one graph (a set of triples):
    a template blank node is a fresh one per solution; a triple with an unbound variable, a literal
    subject or a predicate that is no IRI is left out."""
    graph = set()
    for i, solution in enumerate(solutions):
        fresh: dict = {}
        for triple in template:
            made = []
            for x in triple:
                if isinstance(x, Variable):
                    x = solution.get(str(x))
                elif isinstance(x, BNode):
                    x = fresh.setdefault(x, BNode(f"c{i}x{len(fresh)}"))
                made.append(x)
            s, p, o = made
            if s is None or o is None or isinstance(s, Literal) or not isinstance(p, URIRef):
                continue
            graph.add((s, p, o))
    return sorted(graph, key=lambda t: tuple(x.n3() for x in t))


def template_of(algebra) -> list | None:
    """A CONSTRUCT query's template (None for another form); ``CONSTRUCT WHERE { … }`` has its pattern's
    triples as its template (SPARQL 1.1 §16.2.4)."""
    if algebra.name != "ConstructQuery":
        return None
    if algebra.template is not None:
        return list(algebra.template)
    found: list = []
    triple_patterns(algebra.p, found)
    return found
