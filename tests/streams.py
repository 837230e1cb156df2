"""Tiny stream builders for the kit's own tests (hand-sized examples)."""

from rdflib import Literal, URIRef
from rdflib.namespace import XSD

from oracle.model import Element, Stream

EX = "http://ex.org/"


def iri(name: str) -> URIRef:
    return URIRef(EX + name)


def num(value) -> Literal:
    return Literal(str(value), datatype=XSD.integer if isinstance(value, int) else XSD.double)


def triple_stream(*items, static=()) -> Stream:
    """items: (t, s, p, o) with s/p/o local names (str) or rdflib terms; one triple per element."""
    def term(x):
        return iri(x) if type(x) is str else x
    return Stream(tuple(Element(t, ((term(s), term(p), term(o)),)) for t, s, p, o in items),
                  tuple((term(s), term(p), term(o)) for s, p, o in static))


def detected(*items) -> Stream:
    """The seed's Figure 1 stream: (t, person, room) as <person> :detectedAt <room>."""
    return triple_stream(*((t, p, "detectedAt", r) for t, p, r in items))
