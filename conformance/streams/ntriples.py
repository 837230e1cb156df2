"""A small, strict N-Triples/N-Quads line reader that keeps line numbers for error messages.

rdflib parses whole documents into sets, which loses the order and the line of each statement; a
stream needs both (elements are ordered, and a bad timestamp must be reported with its line).
"""

from __future__ import annotations

import re

from rdflib import BNode, Literal, URIRef
from rdflib.plugins.parsers.ntriples import unquote

IRI = r"<((?:[^<>\"{}|^`\\\s]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*)>"  # N-Triples' IRIREF, UCHAR escapes too
BNODE = r"_:([A-Za-z0-9_][A-Za-z0-9_.\-]*)"
LITERAL = r'"((?:[^"\\]|\\.)*)"(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^' + IRI + ")?"
TERM = re.compile(r"\s*(?:" + IRI + "|" + BNODE + "|" + LITERAL + ")")
END = re.compile(r"\s*\.\s*(?:#.*)?$")


class SyntaxProblem(ValueError):
    """A line that is not N-Triples/N-Quads; the message says what was expected."""


def _term(text: str, pos: int, what: str):
    m = TERM.match(text, pos)
    if not m:
        pos += len(text[pos:]) - len(text[pos:].lstrip())
        snippet = text[pos:pos + 30].strip() or "end of line"
        raise SyntaxProblem(f"expected {what} (an <IRI>, _:blank or \"literal\") at column {pos + 1}, found {snippet!r}")
    iri, bnode, lex, lang, dt = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
    if iri is not None:
        term = URIRef(unquote(iri))
    elif bnode is not None:
        term = BNode(bnode)
    else:
        value = unquote(lex)
        # as written: no lexical normalisation ("01"^^xsd:integer stays "01"; RDF 1.1 Concepts §3.3)
        term = (Literal(value, lang=lang, normalize=False) if lang
                else Literal(value, datatype=URIRef(dt) if dt else None, normalize=False))
    return term, m.end()


def parse_line(line: str, max_terms: int = 4) -> tuple | None:
    """Terms of one statement line (3 for N-Triples, 4 with a graph or a trailing term); None if blank."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return None
    terms = []
    pos = 0
    names = ("a subject", "a predicate", "an object", "a graph name or timestamp")
    while len(terms) < 3 or (len(terms) < max_terms and not END.match(line, pos)):
        term, pos = _term(line, pos, names[len(terms)])
        terms.append(term)
    if not END.match(line, pos):
        raise SyntaxProblem(f"expected ' .' to end the statement at column {pos + 1}")
    return tuple(terms)
