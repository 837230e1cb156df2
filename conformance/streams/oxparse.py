"""Reading N-Triples, N-Quads and TriG with Oxigraph's parser (Rust) into rdflib terms, each distinct
term made once: the stream readers' fast path (issue 18 §2; rdflib and the line reader made one Python
object per term per line).

The fast path reads a file exactly as the strict line reader (conformance/streams/ntriples.py) and rdflib do, or
not at all: :func:`quads` gives None when Oxigraph refuses the text (the caller then reads it the slow way,
which names the line and says what is wrong, or accepts what Oxigraph is stricter about, like a relative
IRI), and when the text writes ``^^xsd:string`` (RDF 1.1 makes it the plain literal, and Oxigraph cannot
tell them apart, while rdflib keeps the two apart). Blank-node labels are kept, as the line reader keeps them.
Literals stay as written: Oxigraph's parser does not normalise lexical forms (its store does).
"""

from __future__ import annotations

import pyoxigraph as ox

from oracle.r2r.evaluators import XSD_STRING, from_plain, plain

FORMATS = {"nt": "N_TRIPLES", "nq": "N_QUADS", "trig": "TRIG"}


def quads(data: bytes, fmt: str) -> list[tuple] | None:
    """(s, p, o, g) per statement in document order, g None in the default graph; None to read it
    the slow way."""
    if XSD_STRING.encode() in data or b"xsd:string" in data:
        return None
    memo: dict = {}

    def term(t):
        found = memo.get(t)
        if found is None:
            found = memo[t] = from_plain(plain(t))  # the oracle's conversion of Oxigraph's answers
        return found
    try:
        parsed = ox.parse(data, format=getattr(ox.RdfFormat, FORMATS[fmt]))
        return [(term(q.subject), term(q.predicate), term(q.object),
                 None if isinstance(q.graph_name, ox.DefaultGraph) else term(q.graph_name)) for q in parsed]
    except SyntaxError:
        return None


def triples(data: bytes, fmt: str = "nt") -> list[tuple] | None:
    """(s, p, o) per statement, in document order; None to read it the slow way."""
    read = quads(data, fmt)
    return None if read is None else [q[:3] for q in read]


def statement_lines(data: bytes) -> list[int]:
    """The line number of each statement of a line-based document (N-Triples, N-Quads: one statement a
    line; blank lines and comment lines hold none)."""
    return [n for n, line in enumerate(data.split(b"\n"), 1) if line.strip() and not line.lstrip().startswith(b"#")]
