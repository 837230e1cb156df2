"""Reading streams in the layouts the corpus uses, into the oracle's :class:`~oracle.model.Stream`.

Layouts:
- ``inline``: elements written in the case (Turtle snippets, each a triple run or an event graph);
- ``csrbench``: a directory of ``data_NN.ttl``, timestamp = NN × interval (CSRBench's importer);
- ``nquads`` / ``trig``: one named graph per element; the graph's timestamp is stated about the graph
  in the default graph with ``rspconf:time`` (integer ms) or ``prov:generatedAtTime`` (xsd:dateTime);
- ``yabench``: YABench's temporal N-Triples, one ``<s> <p> <o> "T" .`` per line;
- ``generator``: a generator spec (see :mod:`conformance.streams.generate`), produced on demand and cached.

Triples inside one element are sorted, so the same input always gives the same stream.  Every error
names the file and, where there is one, the line.

Literals are kept as written: rdflib normalises ``"01"^^xsd:integer`` to ``"1"`` and ``1.0e0`` to
``"1.0"`` while parsing (and then merges triples that became equal), but by RDF 1.1 Concepts §3.3
those are different terms.  Every reader parses with normalisation off (:func:`literals_as_written`),
so the oracle and every engine see the stream's own terms.
"""

from __future__ import annotations

import contextlib
import re
import threading
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import rdflib
from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.namespace import XSD

from conformance.streams import oxparse
from conformance.streams.bulk import in_bulk
from conformance.streams.ntriples import SyntaxProblem, parse_line
from oracle.model import Element, Stream

RSPCONF = "https://w3id.org/rspconf#"
TIME = URIRef(RSPCONF + "time")
GENERATED_AT = URIRef("http://www.w3.org/ns/prov#generatedAtTime")


def nquads_element(name, t: int, triples) -> str:
    """One element in the kit's N-Quads form: its triples in graph ``name``, then ``name rspconf:time t``
    in the default graph (what :func:`nquads` reads back)."""
    return ("".join(f"{s.n3()} {p.n3()} {o.n3()} {name.n3()} .\n" for s, p, o in triples)
            + f'{name.n3()} <{TIME}> "{t}"^^<{XSD.long}> .\n')


class StreamInputError(ValueError):
    """Bad stream input; the message names the file/line and says what to do."""


_NORMALISE_LOCK = threading.RLock()


@contextlib.contextmanager
def literals_as_written():
    """Parse with rdflib's literal normalisation off (a process-wide switch, so held under a lock)."""
    with _NORMALISE_LOCK:
        before = rdflib.NORMALIZE_LITERALS
        rdflib.NORMALIZE_LITERALS = False
        try:
            yield
        finally:
            rdflib.NORMALIZE_LITERALS = before


def _sorted(triples: Iterable) -> tuple:
    return tuple(sorted(triples, key=lambda t: tuple(x.n3() for x in t)))


def elements_of(t: int, triples: Iterable, event_graph: bool, batch: Any = None, source: str | None = None):
    """One event-graph element, or one element per triple (same t, same batch), triples sorted."""
    triples = _sorted(triples)
    if event_graph:
        return [Element(t, triples, batch, source)]
    return [Element(t, (tr,), batch, source) for tr in triples]


def _turtle(text: str, prefixes: dict[str, str], where: str) -> Graph:
    head = "".join(f"@prefix {p}: <{iri}> .\n" for p, iri in sorted(prefixes.items()))
    g = Graph()
    try:
        with literals_as_written():
            g.parse(data=head + text, format="turtle")
    except Exception as exc:
        raise StreamInputError(f"{where}: not valid Turtle ({exc}); write triples like 'ex:s ex:p ex:o .'") from exc
    return g


def inline(spec: dict, where: str) -> Stream:
    prefixes = spec.get("prefixes", {})
    elements: list[Element] = []
    for i, item in enumerate(spec.get("elements", [])):
        at = f"{where}: stream.elements[{i}]"
        g = _turtle(item.get("turtle", ""), prefixes, at)
        made = elements_of(int(item["t"]), g, bool(item.get("graph", False)), item.get("batch"), at)
        elements += [replace(e, stream=item["stream"]) for e in made] if item.get("stream") else made
    static = _turtle(spec.get("static", ""), prefixes, f"{where}: stream.static") if spec.get("static") else ()
    return _stream(elements, _sorted(static), where)


def _stream(elements, static, where) -> Stream:
    previous = None
    for e in elements:
        if previous is not None and e.t < previous.t:
            raise StreamInputError(
                f"{e.source or where}: timestamp {e.t} is earlier than the previous element's {previous.t} "
                f"({previous.source or 'previous element'}); a stream must be in non-decreasing time order")
        previous = e
    return Stream(tuple(elements), tuple(static))


def csrbench(directory: Path, interval: int = 1000, event_graph: bool = False, static: Path | None = None) -> Stream:
    """CSRBench's layout: ``data_NN.ttl`` holds the graph at time NN × interval."""
    files = sorted(directory.glob("data_*.ttl"), key=lambda p: int(re.findall(r"\d+", p.stem)[-1]))
    if not files:
        raise StreamInputError(f"{directory}: no data_NN.ttl files; expected CSRBench's stream layout")
    elements: list[Element] = []
    for path in files:
        n = int(re.findall(r"\d+", path.stem)[-1])
        g = _parsed(Graph(), path, "turtle", "not valid Turtle")
        elements += elements_of(n * interval, g, event_graph, batch=n, source=str(path))
    return _stream(elements, static_triples(static), str(directory))


def static_triples(path: Path | None) -> tuple:
    if path is None:
        return ()
    return _sorted(_parsed(Graph(), path, None, "cannot read static data"))


def _parsed(graph, path: Path, fmt: str | None, problem: str):
    """``graph`` with the file parsed into it by rdflib, literals as written; a failure names the file."""
    try:
        with literals_as_written():
            graph.parse(path, format=fmt)
    except Exception as exc:
        raise StreamInputError(f"{path}: {problem}: {exc}") from exc
    return graph


def time_value(obj, where: str) -> int:
    if isinstance(obj, Literal):
        if obj.datatype == XSD.dateTime:
            value = obj.toPython()
            if isinstance(value, datetime):
                if value.tzinfo is None:
                    value = value.replace(tzinfo=timezone.utc)
                return int(value.timestamp() * 1000)
        try:
            return int(str(obj))
        except ValueError:
            pass
    raise StreamInputError(f"{where}: timestamp {obj!r} is not an integer number of ms or an xsd:dateTime")


@in_bulk
def nquads(path: Path, static: Path | None = None) -> Stream:
    """One named graph per element; ``<g> rspconf:time T`` (default graph) gives its timestamp.  Parsed
    by Oxigraph in one pass (:mod:`conformance.streams.oxparse`; N-Quads has one statement a line, so each
    statement keeps its line), or by the strict line reader where Oxigraph refuses the file."""
    data = Path(path).read_bytes()
    read = oxparse.quads(data, "nq")
    numbers = oxparse.statement_lines(data) if read is not None else []
    if read is None or len(numbers) != len(read):
        return _nquads_statements(path, _lines_read_one_by_one(path), static)
    return _nquads_statements(path, zip(numbers, read), static)


def _lines_read_one_by_one(path: Path):
    """(line number, terms) of each statement, by the strict line reader (it names a bad line)."""
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                terms = parse_line(line)
            except SyntaxProblem as exc:
                raise StreamInputError(f"{path}:{lineno}: {exc}") from exc
            if terms is not None:
                yield lineno, terms


def _nquads_statements(path: Path, statements, static: Path | None) -> Stream:
    graphs: dict[Any, list] = {}
    times: dict[Any, tuple[int, int]] = {}
    order: list[Any] = []
    for lineno, terms in statements:
        if len(terms) == 3 or terms[3] is None:
            s, p, o = terms[:3]
            if p in (TIME, GENERATED_AT):
                times[s] = (time_value(o, f"{path}:{lineno}"), lineno)
                if s not in graphs:
                    graphs[s] = []
                    order.append(s)
            continue
        s, p, o, g = terms
        if g not in graphs:
            graphs[g] = []
            order.append(g)
        graphs[g].append((s, p, o))
    return _graph_elements(order, graphs, times, path, static)


def _graph_elements(order, graphs, times, path, static) -> Stream:
    elements = []
    for g in order:
        if g not in times:
            raise StreamInputError(f"{path}: graph {g.n3()} has no timestamp; state it in the default graph as "
                                   f"'{g.n3()} <{TIME}> \"T\" .' (T in ms)")
        t, lineno = times[g]
        elements.append(Element(t, _sorted(graphs[g]), source=f"{path}:{lineno}"))
    return _stream(elements, static_triples(static), str(path))


PREFIX_DECLARATION = re.compile(r"(?:@prefix|PREFIX)\s+([A-Za-z][\w.-]*)?:\s*<([^<>\s]*)>", re.IGNORECASE)
GRAPH_LABEL = re.compile(r"<[^<>\s]+>|[A-Za-z][\w.-]*:[\w.-]*|:[\w.-]*")  # the last token before a '{'


def _graph_labels(text: str):
    """(label, offset) of each graph block: the token right before each '{' (found by str.find, so the
    scan stays linear in the file's length)."""
    at = text.find("{")
    while at != -1:
        head = text[max(0, at - 2048):at].rstrip()
        label = head.rsplit(None, 1)[-1] if head else ""
        if GRAPH_LABEL.fullmatch(label):
            yield label, at - (len(text[max(0, at - 2048):at]) - len(head)) - len(label)
        at = text.find("{", at + 1)


@in_bulk
def trig(path: Path, static: Path | None = None) -> Stream:
    """TriG with one named graph per element, in the order the graphs appear in the file.  Parsed by
    Oxigraph in one pass (:mod:`conformance.streams.oxparse`), or by rdflib where Oxigraph refuses the file
    (e.g. relative IRIs, which rdflib resolves against the file)."""
    data = Path(path).read_bytes()
    text = data.decode("utf-8", errors="replace")
    read = oxparse.quads(data, "trig")
    if read is not None:
        prefixes = {m.group(1) or "": m.group(2) for m in PREFIX_DECLARATION.finditer(text)}

        def expand(label: str) -> URIRef:
            prefix, _, local = label.partition(":")
            return URIRef(prefixes[prefix] + local)
        default = [(s, p, o) for s, p, o, g in read if g is None]
        named: dict[Any, list] = {}
        for s, p, o, g in read:
            if g is not None:
                named.setdefault(g, []).append((s, p, o))

        def contents(name):
            return named.get(name, [])
    else:
        ds = _parsed(Dataset(), path, "trig", "not valid TriG")
        expand, default = ds.namespace_manager.expand_curie, list(ds.default_context)

        def contents(name):
            return list(ds.graph(name))
    first_line: dict[Any, int] = {}
    names: list[Any] = []
    line, counted = 1, 0
    for label, offset in _graph_labels(text):
        try:
            name = URIRef(label[1:-1]) if label.startswith("<") else expand(label)
        except Exception:
            continue
        line += text.count("\n", counted, offset)  # from the last label on: one pass over the text
        counted = offset
        if name not in first_line:
            first_line[name] = line
            names.append(name)
    times = {s: (time_value(o, f"{path}"), first_line.get(s, 0)) for s, p, o in default if p in (TIME, GENERATED_AT)}
    graphs = {name: contents(name) for name in names}
    return _graph_elements(names, graphs, times, path, static)


YABENCH_LINE = re.compile(r'^(.*)\s+"(-?\d+)"(?:\^\^<[^>]*>)?\s*\.\s*$')


@in_bulk
def yabench(path: Path, static: Path | None = None) -> Stream:
    """YABench's temporal N-Triples: ``<s> <p> <o> "T" .``, one triple element per line.  The triples
    are parsed by Oxigraph in one pass (:mod:`conformance.streams.oxparse`); where it refuses a line, or the file
    holds what it reads differently, the strict line reader reads the file and names the line."""
    lines, times, numbers = [], [], []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = YABENCH_LINE.match(line.rstrip("\n"))
            if not m:
                raise StreamInputError(f"{path}:{lineno}: expected '<s> <p> <o> \"T\" .' with T in ms")
            lines.append(m.group(1) + " .\n")
            times.append(int(m.group(2)))
            numbers.append(lineno)
    triples = oxparse.triples("".join(lines).encode(), "nt")
    if triples is None:
        return _yabench_line_by_line(path, lines, times, numbers, static)
    where = str(path)
    elements = [Element(t, (triple,), source=f"{where}:{n}") for t, triple, n in zip(times, triples, numbers)]
    return _stream(elements, static_triples(static), where)


def _yabench_line_by_line(path, lines, times, numbers, static) -> Stream:
    elements = []
    for line, t, lineno in zip(lines, times, numbers):
        try:
            terms = parse_line(line, max_terms=3)
        except SyntaxProblem as exc:
            raise StreamInputError(f"{path}:{lineno}: {exc}") from exc
        elements.append(Element(t, (terms,), source=f"{path}:{lineno}"))
    return _stream(elements, static_triples(static), str(path))


READERS = {"nquads": nquads, "trig": trig, "yabench": yabench}


def guess_format(path: Path) -> str:
    """A directory is CSRBench's layout; .nq N-Quads; .trig TriG; anything else YABench lines."""
    return "csrbench" if path.is_dir() else {".nq": "nquads", ".trig": "trig"}.get(path.suffix, "yabench")
