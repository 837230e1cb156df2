"""The stream held once for Oxigraph, so a window's content loads in bulk instead of term by term.

Each element's relevant triples are written once, on first use, as N-Triples text (bytes); a window's
store is then filled by one Rust parse of the joined text of its elements.  Building a Python
``pyoxigraph.Quad`` per triple per window cost about 2 µs a triple (bench/README.md); the text path
loads some 560 k triples/s on the 2-core machine, and each element's text is made once however many
windows and t0 candidates hold it.

Blank nodes: Oxigraph renames the blank nodes of each parsed document, which would break a blank node
shared by two elements and the labels the diagnosis shows, so an element with a blank node is held as
prebuilt quads instead (labels kept).
"""

from __future__ import annotations

import re
from typing import Iterable

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import XSD

from oracle.r2r.evaluators import _to_ox

CHUNK = 2000  # elements per parse: bounds the size of one joined bytes object

_IRI_ESCAPES = {c: f"\\u{ord(c):04X}" for c in '<>"{}|^`\\'}
_IRI_ESCAPES.update({chr(i): f"\\u{i:04X}" for i in range(0x21)})
_IRI_TABLE = str.maketrans(_IRI_ESCAPES)
_LITERAL_TABLE = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|^`\\]')


def ntriples_term(term) -> str:
    """One RDF term in N-Triples syntax (an IRI's forbidden characters as \\u escapes)."""
    if isinstance(term, URIRef):
        text = str(term)
        return "<" + (text.translate(_IRI_TABLE) if _IRI_UNSAFE.search(text) else text) + ">"
    if isinstance(term, Literal):
        text = '"' + str(term).translate(_LITERAL_TABLE) + '"'
        if term.language:
            return text + "@" + term.language
        if term.datatype is not None:
            return text + "^^<" + str(term.datatype).translate(_IRI_TABLE) + ">"
        return text
    raise TypeError(f"not an IRI or literal: {term!r}")


class HeldStream:
    """A stream's elements (restricted to the predicates a query can match) in a form Oxigraph loads in
    bulk; :meth:`store` gives a fresh store holding the static data and one window's elements."""

    def __init__(self, elements, static: Iterable[tuple], relevant: set | None, doubles: bool = False):
        self.elements = elements
        self.doubles = doubles  # every xsd:float literal read as an xsd:double (the float-arithmetic rule)
        self.relevant = relevant
        self._held: list = [None] * len(elements)
        self._names: dict[int, str] = {}  # id(term) → its N-Triples text (terms are shared between triples)
        self._predicates: dict[int, str | None] = {}  # id(predicate) → its text, None when no pattern can match it
        self._alive: list = []  # every term in the memos, so that no id is reused while they hold it
        self.static_text = self.hold(tuple(static))  # the static data, held like an element

    def hold(self, triples) -> bytes | list:
        """One element's relevant triples as N-Triples bytes, or as quads when it holds a blank node (also
        for an element outside the element list: a streamed run, oracle/expected/streamed.py)."""
        names, predicates, keep, alive = self._names, self._predicates, self.relevant, self._alive
        unsafe = _IRI_UNSAFE.search
        lines = []
        for s, p, o in triples:
            pt = predicates.get(id(p), False)
            if pt is False:
                pt = predicates[id(p)] = None if keep is not None and p not in keep else self._text(p)
                alive.append(p)
            if pt is None:
                continue
            st = names.get(id(s))
            if st is None:
                if type(s) is not URIRef:
                    return self._quads(triples)  # a blank node
                st = names[id(s)] = f"<{s}>" if not unsafe(s) else self._text(s)
                alive.append(s)
            ot = names.get(id(o))
            if ot is None:
                if isinstance(o, BNode):
                    return self._quads(triples)
                ot = names[id(o)] = f"<{o}>" if type(o) is URIRef and not unsafe(o) else self._text(o)
                alive.append(o)
            lines.append(f"{st} {pt} {ot} .\n")
        return "".join(lines).encode()

    def _as_read(self, term):
        """The term as this holding reads it: with ``doubles``, an xsd:float literal as an xsd:double."""
        if self.doubles and isinstance(term, Literal) and term.datatype == XSD.float:
            return Literal(str(term), datatype=XSD.double, normalize=False)
        return term

    def _text(self, term) -> str:
        return ntriples_term(self._as_read(term))

    def _quads(self, triples) -> list:
        """An element with a blank node, as quads (Oxigraph keeps a blank node's label when it is built
        as a term, not parsed)."""

        def term(t):
            return _to_ox(self._as_read(t))
        keep = self.relevant
        return [ox.Quad(term(s), term(p), term(o), ox.DefaultGraph()) for s, p, o in triples
                if keep is None or p in keep]

    def held(self, index: int) -> bytes | list:
        held = self._held[index]
        if held is None:
            held = self._held[index] = self.hold(self.elements[index].triples)
        return held

    def forget(self) -> None:
        """Drop the term memos (not the predicates'): a streamed run calls it once per window, so the
        memos hold the terms of recent elements only, not of the whole stream."""
        self._names.clear()
        self._alive = [t for t in self._alive if id(t) in self._predicates]

    def store(self, content: tuple[int, int]):
        """A new Oxigraph store with the static data and the elements ``content`` (an index range)."""
        lo, hi = content
        return fill([self.static_text] + [self.held(i) for i in range(lo, hi)])


def fill(helds: Iterable) -> "ox.Store":
    """A new Oxigraph store holding the held elements (bytes parsed in chunks; quads added as they are)."""
    store = ox.Store()
    texts: list[bytes] = []

    def flush():
        if texts:
            store.load(b"".join(texts), format=ox.RdfFormat.N_TRIPLES, lenient=True)
            texts.clear()

    for held in helds:
        if isinstance(held, list):
            flush()
            store.extend(held)
        elif held:
            texts.append(held)
            if len(texts) >= CHUNK:
                flush()
    flush()
    return store


