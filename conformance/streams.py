"""Reading streams in the layouts the corpus uses, into the oracle's :class:`~oracle.model.Stream`.

Layouts:
- ``inline``: elements written in the case (Turtle snippets, each a triple run or an event graph);
- ``csrbench``: a directory of ``data_NN.ttl``, timestamp = NN × interval (CSRBench's importer);
- ``nquads`` / ``trig``: one named graph per element; the graph's timestamp is stated about the graph
  in the default graph with ``rspconf:time`` (integer ms) or ``prov:generatedAtTime`` (xsd:dateTime);
- ``yabench``: YABench's temporal N-Triples, one ``<s> <p> <o> "T" .`` per line;
- ``generator``: a generator spec (see :mod:`conformance.generate`), produced on demand and cached.

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
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import rdflib
from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.namespace import XSD

from conformance.ntriples import SyntaxProblem, parse_line
from oracle.model import Element, Stream

RSPCONF = "https://w3id.org/rspconf#"
TIME = URIRef(RSPCONF + "time")
GENERATED_AT = URIRef("http://www.w3.org/ns/prov#generatedAtTime")


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
        elements += elements_of(int(item["t"]), g, bool(item.get("graph", False)), item.get("batch"), at)
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
        g = Graph()
        try:
            with literals_as_written():
                g.parse(path, format="turtle")
        except Exception as exc:
            raise StreamInputError(f"{path}: not valid Turtle: {exc}") from exc
        elements += elements_of(n * interval, g, event_graph, batch=n, source=str(path))
    return _stream(elements, _static(static), str(directory))


def _static(path: Path | None) -> tuple:
    if path is None:
        return ()
    g = Graph()
    try:
        with literals_as_written():
            g.parse(path)
    except Exception as exc:
        raise StreamInputError(f"{path}: cannot read static data: {exc}") from exc
    return _sorted(g)


def _time_value(obj, where: str) -> int:
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


def nquads(path: Path, static: Path | None = None) -> Stream:
    """One named graph per element; ``<g> rspconf:time T`` (default graph) gives its timestamp."""
    graphs: dict[Any, list] = {}
    times: dict[Any, tuple[int, int]] = {}
    order: list[Any] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                terms = parse_line(line)
            except SyntaxProblem as exc:
                raise StreamInputError(f"{path}:{lineno}: {exc}") from exc
            if terms is None:
                continue
            if len(terms) == 3 or terms[3] is None:
                s, p, o = terms[:3]
                if p in (TIME, GENERATED_AT):
                    times[s] = (_time_value(o, f"{path}:{lineno}"), lineno)
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
    return _stream(elements, _static(static), str(path))


def trig(path: Path, static: Path | None = None) -> Stream:
    """TriG with one named graph per element, in the order the graphs appear in the file."""
    ds = Dataset()
    try:
        with literals_as_written():
            ds.parse(path, format="trig")
    except Exception as exc:
        raise StreamInputError(f"{path}: not valid TriG: {exc}") from exc
    text = Path(path).read_text(encoding="utf-8")
    nm = ds.namespace_manager
    positions: list[tuple[int, Any]] = []
    for m in re.finditer(r"(?:GRAPH\s+)?(<[^>\s]+>|[A-Za-z][\w.-]*:[\w.-]*|:[\w.-]*)\s*\{", text):
        label = m.group(1)
        try:
            name = URIRef(label[1:-1]) if label.startswith("<") else nm.expand_curie(label)
        except Exception:
            continue
        positions.append((text.count("\n", 0, m.start()) + 1, name))
    graphs, times, order = {}, {}, []
    default = ds.default_context
    for s, p, o in default:
        if p in (TIME, GENERATED_AT):
            line = next((ln for ln, n in positions if n == s), 0)
            times[s] = (_time_value(o, f"{path}"), line)
    for _, name in positions:
        if name not in graphs:
            graphs[name] = list(ds.graph(name))
            order.append(name)
    return _graph_elements(order, graphs, times, path, static)


YABENCH_LINE = re.compile(r'^(.*)\s+"(-?\d+)"(?:\^\^<[^>]*>)?\s*\.\s*$')


def yabench(path: Path, static: Path | None = None) -> Stream:
    """YABench's temporal N-Triples: ``<s> <p> <o> "T" .``, one triple element per line."""
    elements = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = YABENCH_LINE.match(line.rstrip("\n"))
            if not m:
                raise StreamInputError(f"{path}:{lineno}: expected '<s> <p> <o> \"T\" .' with T in ms")
            try:
                terms = parse_line(m.group(1) + " .", max_terms=3)
            except SyntaxProblem as exc:
                raise StreamInputError(f"{path}:{lineno}: {exc}") from exc
            elements.append(Element(int(m.group(2)), (terms,), source=f"{path}:{lineno}"))
    return _stream(elements, _static(static), str(path))


READERS = {"nquads": nquads, "trig": trig, "yabench": yabench}


def guess_format(path: Path) -> str:
    """A directory is CSRBench's layout; .nq N-Quads; .trig TriG; anything else YABench lines."""
    return "csrbench" if path.is_dir() else {".nq": "nquads", ".trig": "trig"}.get(path.suffix, "yabench")
