"""The oracle's SPARQL 1.1 evaluators behind one small interface: rdflib (Python) and Oxigraph (Rust,
through pyoxigraph) — two independent implementations that share no code with each other or with any
engine.  ``both`` evaluates every relation with each and refuses to pick when they disagree.

An evaluator takes the query text and the triples of one window (static data included) and gives the
solutions as rdflib terms, so everything after R2R (R2S, comparison, provenance) is the same whichever
evaluated.  Declared rules where the two differ on purpose are in oracle/README.md.
"""

from __future__ import annotations

import re
from typing import Iterable

from rdflib import BNode, Literal, URIRef

EVALUATORS = ("rdflib", "oxigraph", "both")


class EvaluatorDisagreement(ValueError):
    """rdflib and Oxigraph gave different solutions for one window: a harness error, never a silent pick."""


class Oxigraph:
    """SPARQL 1.1 by pyoxigraph over an in-memory store filled with one window's triples."""

    name = "oxigraph"

    def __init__(self, query_text: str):
        import pyoxigraph  # noqa: F401  (fail here, with the name, if it is not installed)

        self.text = query_text
        self.unsliced = _without_top_slice(query_text)

    def store(self, triples: Iterable[tuple]):
        import pyoxigraph as ox

        store = ox.Store()
        default = ox.DefaultGraph()
        store.extend(ox.Quad(_to_ox(s), _to_ox(p), _to_ox(o), default) for s, p, o in triples)
        return store

    def select(self, store, text: str | None = None) -> list[dict]:
        result = store.query(text or self.text)
        names = [v.value for v in result.variables]
        return [{n: _from_ox(sol[n]) for n in names if sol[n] is not None} for sol in result]

    def ask(self, store) -> bool:
        return bool(store.query(self.text))

    def construct(self, store) -> list[tuple]:
        return [(_from_ox(t.subject), _from_ox(t.predicate), _from_ox(t.object)) for t in store.query(self.text)]


def _to_ox(term):
    import pyoxigraph as ox

    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise TypeError(f"not an RDF term: {term!r}")


def _from_ox(term):
    import pyoxigraph as ox

    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language, normalize=False)
        datatype = term.datatype.value
        plain = datatype == "http://www.w3.org/2001/XMLSchema#string"
        return Literal(term.value, datatype=None if plain else URIRef(datatype), normalize=False)
    raise TypeError(f"not an RDF term: {term!r}")


_SLICE = re.compile(r"(\s+(LIMIT|OFFSET)\s+\d+)+\s*$", re.IGNORECASE)


def _without_top_slice(text: str) -> str | None:
    """The query without its final LIMIT/OFFSET (None if it has none): the pool of tied ORDER BY rows."""
    stripped = _SLICE.sub("", text)
    return stripped if stripped != text else None


XSD = "http://www.w3.org/2001/XMLSchema#"
EBV_FILTER = re.compile(r"FILTER\s*\(\s*\?\w+\s*\)", re.IGNORECASE)


FLOAT_TOLERANCE = 1e-6  # relative: xsd:float holds about 7 significant digits


def _split(row: dict) -> tuple[tuple, dict]:
    """A row as (its non-floating terms, its floating values by variable)."""
    from decimal import Decimal

    exact, floating = [], {}
    for var, term in sorted(row.items()):
        value = term.toPython() if isinstance(term, Literal) else None
        if isinstance(value, (float, Decimal)) and not isinstance(value, bool):
            floating[var] = float(value)
        else:
            exact.append((var, str(term), str(getattr(term, "datatype", "")), getattr(term, "language", None)))
    return tuple(exact), floating


def _close(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(abs(a[v] - b[v]) <= FLOAT_TOLERANCE * max(abs(a[v]), abs(b[v]), 1e-30)
                                        for v in a)


def _agree_at_float_precision(left, right, limit: int = 2000) -> bool:
    """The two bags pair up row for row: the same non-floating terms, floating values within a relative
    tolerance of xsd:float's precision (a tolerance, not rounding: two values either side of a rounding
    border still agree)."""
    if len(left) != len(right) or len(left) > limit:
        return False
    unmatched = [_split(r) for r in right.rows]
    for row in left.rows:
        exact, floating = _split(row)
        hit = next((i for i, (e, f) in enumerate(unmatched) if e == exact and _close(floating, f)), None)
        if hit is None:
            return False
        unmatched.pop(hit)
    return True


def declared_rule(rdflib_sols, oxigraph_sols, query_text: str, triples: list) -> str | None:
    """The declared rule that explains a disagreement of the two evaluators, if one does (then rdflib's
    answer stands and the verdict says so); None: an unexplained disagreement, a harness ERROR.

    - ``float-arithmetic``: over xsd:float data, rdflib computes in double precision and Oxigraph in
      single precision (XPath F&O 4.2 numeric promotion: float ÷ integer is a float, so Oxigraph is right);
      the two agree at float precision.  The kit keeps rdflib's double, as the engines it judges compute
      (documented limit: an engine that answers a strict xsd:float differs after the 7th digit).
    - ``ebv-language-tagged``: SPARQL 1.1 §17.2.2 gives a plain literal — a language-tagged one included —
      the effective boolean value true when it is not empty; rdflib does so, Oxigraph raises a type error
      (rdf:langString, as in RDF 1.1 / SPARQL 1.2 drafts).  rdflib follows the 1.1 text: it stands.
    """
    from collections import Counter

    datatypes = {str(o.datatype) for _, _, o in triples if isinstance(o, Literal) and o.datatype is not None}
    if XSD + "float" in datatypes and _agree_at_float_precision(rdflib_sols, oxigraph_sols):
        return "float-arithmetic"
    tagged = any(isinstance(o, Literal) and o.language for _, _, o in triples)
    if tagged and EBV_FILTER.search(query_text) and not (Counter(oxigraph_sols.keys) - Counter(rdflib_sols.keys)):
        return "ebv-language-tagged"
    return None
