"""Time-annotated RDF (seed 001) read into facts with their validity (oracle/expected/validity.py), in the three
annotation encodings the paper compares.

Annotations (namespace ``tmp:``, by default ``http://example.org/temporal#``; a case may name another
with ``vocabulary``): ``X tmp:interval I . I tmp:initial a ; tmp:final b`` (valid over [a, b)), or
``X tmp:initial a ; tmp:expiration e`` (published at a, valid until e unless a newer version comes;
``tmp:initial`` may be left out: 0).  Times are integers (ms) or ``xsd:dateTime`` (ms since the epoch).
X is, per encoding:

- ``graphs``: a named graph (TriG); the annotations are in the default graph, the fact is the graph's
  triples;
- ``singleton``: a singleton property, ``s sp o . sp rdf:singletonPropertyOf p``: the fact is (s, p, o);
- ``reification``: a statement, ``r rdf:subject s ; rdf:predicate p ; rdf:object o``: the fact is (s, p, o).

Every other triple of the default graph is static data.  A fact without an annotation, or with one it
cannot read, is a :class:`~conformance.streams.readers.StreamInputError` naming it.
"""

from __future__ import annotations

import datetime as _dt

from rdflib import Dataset, Literal, Namespace, URIRef
from rdflib.namespace import RDF

from conformance.streams.readers import StreamInputError
from oracle.model import Element, Stream

ENCODINGS = ("graphs", "singleton", "reification")
DEFAULT_VOCABULARY = "http://example.org/temporal#"
SINGLETON_OF = URIRef(str(RDF) + "singletonPropertyOf")  # Nguyen et al., WWW 2014 (not in rdflib's closed RDF namespace)


def time_ms(value, where: str) -> int:
    if isinstance(value, Literal):
        python = value.toPython()
        if isinstance(python, _dt.datetime):
            if python.tzinfo is None:
                python = python.replace(tzinfo=_dt.timezone.utc)
            return int(python.timestamp() * 1000)
        if isinstance(python, int) and not isinstance(python, bool):
            return python
    raise StreamInputError(f"{where}: time {value!r} is neither an integer (ms) nor an xsd:dateTime")


def _validity(g, x, tmp: Namespace, where: str) -> tuple[int, int | None, int | None, set]:
    """(initial, until, expires, the annotation triples) of the annotated node x."""
    used = set()
    interval = g.value(x, tmp.interval)
    if interval is not None:
        initial, final = g.value(interval, tmp.initial), g.value(interval, tmp.final)
        if initial is None or final is None:
            raise StreamInputError(f"{where}: the interval of {x.n3()} needs tmp:initial and tmp:final")
        used |= {(x, tmp.interval, interval), (interval, tmp.initial, initial), (interval, tmp.final, final)}
        a, b = time_ms(initial, where), time_ms(final, where)
        if b <= a:
            raise StreamInputError(f"{where}: the interval of {x.n3()} is empty ([{a}, {b})); tmp:final must come "
                                   "after tmp:initial")
        return a, b, None, used
    expiration = g.value(x, tmp.expiration)
    if expiration is None:
        raise StreamInputError(f"{where}: {x.n3()} has no time annotation (tmp:interval, or tmp:expiration)")
    initial = g.value(x, tmp.initial)
    used |= {(x, tmp.expiration, expiration)} | ({(x, tmp.initial, initial)} if initial is not None else set())
    return (time_ms(initial, where) if initial is not None else 0), None, time_ms(expiration, where), used


def read(text: str, encoding: str, where: str, vocabulary: str = DEFAULT_VOCABULARY, fmt: str = "trig") -> Stream:
    """Facts with their validity, in publication order, and the static data."""
    if encoding not in ENCODINGS:
        raise StreamInputError(f"{where}: encoding {encoding!r}: use one of {', '.join(ENCODINGS)}")
    tmp = Namespace(vocabulary)
    ds = Dataset()
    try:
        ds.parse(data=text, format=fmt)
    except Exception as exc:  # noqa: BLE001 - rdflib raises many kinds; one message names the place
        raise StreamInputError(f"{where}: not valid {fmt.upper()} ({exc})") from None
    default = ds.default_graph
    facts: list[tuple[int, int | None, int | None, tuple, str]] = []
    used: set = set()
    if encoding == "graphs":
        for g in sorted((g for g in ds.graphs() if g.identifier != default.identifier), key=lambda g: str(g.identifier)):
            triples = tuple(sorted(g, key=lambda t: tuple(x.n3() for x in t)))
            if not triples:
                continue
            a, b, e, seen = _validity(default, g.identifier, tmp, where)
            used |= seen
            facts.append((a, b, e, triples, f"{where}: graph {g.identifier.n3()}"))
    else:
        if encoding == "singleton":
            nodes = [(sp, p) for sp, _, p in default.triples((None, SINGLETON_OF, None))]
        else:
            nodes = [(r, None) for r in default.subjects(RDF.predicate, None)]
        for node, p in sorted(nodes, key=lambda x: x[0].n3()):
            if encoding == "singleton":
                uses = list(default.triples((None, node, None)))
                if len(uses) != 1:
                    raise StreamInputError(f"{where}: singleton property {node.n3()} is used {len(uses)} times; "
                                           "a singleton property states exactly one triple")
                s, _, o = uses[0]
                used |= {uses[0], (node, SINGLETON_OF, p)}
            else:
                s, p, o = (default.value(node, RDF.subject), default.value(node, RDF.predicate),
                           default.value(node, RDF.object))
                if s is None or o is None:
                    raise StreamInputError(f"{where}: statement {node.n3()} needs rdf:subject, rdf:predicate and "
                                           "rdf:object")
                used |= {(node, RDF.subject, s), (node, RDF.predicate, p), (node, RDF.object, o)}
                used |= set(default.triples((node, RDF.type, RDF.Statement)))
            a, b, e, seen = _validity(default, node, tmp, where)
            used |= seen
            facts.append((a, b, e, ((s, p, o),), f"{where}: {node.n3()}"))
    static = tuple(sorted((t for t in default if t not in used), key=lambda t: tuple(x.n3() for x in t)))
    facts.sort(key=lambda f: (f[0], f[4]))
    elements = tuple(Element(a, triples, None, source, until=b, expires=e) for a, b, e, triples, source in facts)
    return Stream(elements, static)


def from_case(spec: dict, base, where: str) -> Stream:
    """A case's ``stream: {annotated: {encoding, trig | file, vocabulary}}``."""
    given = spec["annotated"]
    prefixes = "".join(f"@prefix {k}: <{v}> .\n" for k, v in spec.get("prefixes", {}).items())
    if "file" in given:
        path = base / given["file"]
        if not path.exists():
            raise StreamInputError(f"{where}: annotated data file {path} does not exist")
        text, at = path.read_text(encoding="utf-8"), str(path)
    else:
        text, at = prefixes + given.get("trig", ""), f"{where}: stream.annotated.trig"
    return read(text, given.get("encoding", "graphs"), at, given.get("vocabulary", DEFAULT_VOCABULARY))
