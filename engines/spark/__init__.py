"""rspconf's RSP engine on Apache Spark (``--engine spark``): replay and streaming modes.

Replay: the recorded stream is processed as one batch job.  Each triple is assigned to every window
instance that holds it (``explode(sequence(kmin, kmax))``), static triples to every window that holds a
stream triple and to one empty window, whose answer every window without stream triples shares, and
the compiled query (see :mod:`engines.spark.compiler`) runs grouped by window instance.  Exact t0,
deterministic, and the fast path for conformance runs.  Results are collected once per case; the R2S
operator differences consecutive window results.

Declared profile (its semantics, the same as the reference engine's): t0 = 0 (option ``t0``), every
window reports at its close with its full content (time-driven tick, grain multiple), empty relations
reported, [o,c) windows, trailing windows flushed at end of stream.  A case that fixes YABench's closed
windows (the request's ``semantics``: boundary ``[o,c]``, close ``>``) gets them (:func:`as_computed`).

Streaming (``mode=streaming``, see :mod:`engines.spark.streaming`): Structured Streaming over a file
source, one file per report interval (``source=files``), or over Spark's socket source
(``source=socket``); the engine keeps the window state and the report policy and runs each report's
query as a batch job.  Same profile, same answers.

Options (``--engine-option``): ``mode=replay|streaming``, ``source=files|socket``, ``master=local[2]``,
``t0=0``.
"""

from __future__ import annotations

import threading
from dataclasses import replace

import rdflib
from rdflib import BNode
from rdflib.plugins.sparql.algebra import translateQuery, traverse

from engines.contract import EngineInfo, LiveUnsupported, RunRequest, Unsupported
from engines.spark import compiler
from engines.spark import session as spark_session
from engines.spark.grammar import parseQuery
from engines.spark.reporter import NONE, Reporter, template_of
from engines.spark.session import session
from engines.spark.sqlterms import n3, refused_by_name
from oracle.model import ObservedReport, WindowSpec

CAPABILITIES = frozenset({
    "time-window", "sliding-window", "aggregates", "group-by", "filter", "optional", "union", "ask", "order-by",
    "rstream", "istream", "dstream", "event-graphs", "static-data", "empty-windows", "joins-across-time",
    "large-stream", "closed-windows", "subquery", "construct", "property-paths", "group-concat",
})
PROFILE = {"report": ["window-close"], "tick": "time-driven", "grain": "multiple", "empty": True,
           "boundary": "[o,c)", "close": ">=", "end_of_stream": "flush", "count_unit": "element", "count_t0": 0,
           "instants": "any-close"}


_AS_WRITTEN = threading.Lock()


def algebra_of(query: str):
    """The query's algebra with its literals as written: a pattern's ``+5`` is the term "+5"^^xsd:integer,
    which matches only that term (rdflib would make it "5"; W3C term-8, eq-graph-2).  rdflib's switch is
    process-wide, so it is held under a lock and put back.  Its blank nodes are named in order
    (:func:`_blank_nodes_in_order`).  Parsed by rdflib's grammar with ``^iri`` in a negated property set kept
    (engines/spark/grammar.py)."""
    with _AS_WRITTEN:
        before = rdflib.NORMALIZE_LITERALS
        rdflib.NORMALIZE_LITERALS = False
        try:
            translated = translateQuery(_blank_nodes_in_order(parseQuery(query)))
        finally:
            rdflib.NORMALIZE_LITERALS = before
    algebra = translated.algebra
    if translated.prologue.base:  # the prologue is not in the algebra; IRI() resolves against it
        algebra[compiler.BASE] = str(translated.prologue.base)
    return algebra


def _blank_nodes_in_order(parsed):
    """The parsed query with its blank nodes renamed ``b0``, ``b1``, … in the order the query first
    names them.  rdflib gives ``[]`` a random id, which then names SQL columns and breaks ties in its
    ordering of a basic graph pattern's triples: the same query compiled to another SQL text, joined in
    another order, each time it was read.  A blank node in a pattern is a variable that cannot be
    projected, and a CONSTRUCT template's are made fresh per solution: the names are never seen."""
    names: dict = {}

    def rename(node):
        if isinstance(node, BNode):
            return names.setdefault(node, BNode(f"b{len(names)}"))
        return None

    parsed[1] = traverse(parsed[1], visitPost=rename)
    return parsed


def in_order(request: RunRequest) -> RunRequest:
    """The request with each element's triples and the background triples in one order, their N-Triples'
    (an element is a set: a reader may hand its triples over in the order of a Python set, which differs
    from process to process), for a serial run whose rows go in a fixed order."""
    def ordered(triples) -> tuple:
        return tuple(sorted(triples, key=lambda triple: tuple(n3(x) for x in triple)))

    stream = request.stream
    elements = tuple(replace(e, triples=ordered(e.triples)) for e in stream.elements)
    return replace(request, stream=replace(stream, elements=elements, static=ordered(stream.static)))


def as_computed(request: RunRequest) -> tuple[RunRequest, bool]:
    """The request as the engine computes it, and whether its windows are closed.  Timestamps are whole
    milliseconds, so YABench's closed window [o, c] (an element stamped c is in it, and it reports once
    time passes c: ``semantics`` boundary ``[o,c]``, close ``>``) is the window [o, c + 1) reported at
    its close: the same jobs, one millisecond wider, with the report's window given back as [o, c]."""
    boundary = request.semantics.get("boundary", "[o,c)")
    close = request.semantics.get("close", ">=")
    if (boundary, close) == ("[o,c)", ">="):
        return request, False
    if (boundary, close) == ("[o,c]", ">") and type(request.window) is WindowSpec:
        return replace(request, window=replace(request.window, range=request.window.range + 1)), True
    raise Unsupported(f"window semantics boundary {boundary}, close {close}: this engine runs [o,c) windows "
                      "reported at their close, and closed [o,c] time windows reported after it")


class SparkEngine:
    name = "spark"

    def __init__(self, mode: str = "replay", master: str = "local[2]", t0: int | str = 0, source: str = "files"):
        if mode not in ("replay", "streaming"):
            raise ValueError(f"mode must be replay or streaming, got {mode!r}")
        if source not in ("files", "socket"):
            raise ValueError(f"source must be files or socket (streaming mode's input), got {source!r}")
        try:
            import pyspark  # noqa: F401  (deferred: pyspark is optional, the spark extra)
        except ImportError as exc:
            raise ValueError("pyspark is not installed: pip install -e '.[spark]'") from exc
        self.mode, self.master, self.t0, self.source = mode, master, int(t0), source
        self._cancel = threading.Event()

    def info(self) -> EngineInfo:
        import pyspark  # deferred: pyspark is optional (the spark extra)

        return EngineInfo(name=self.name, version=f"0.1 (pyspark {pyspark.__version__}, {self.mode})",
                          dialect="sparql", capabilities=self.capabilities(), profile={"t0": self.t0, **PROFILE},
                          alignment="window", extra={"mode": self.mode, "master": self.master,
                                 **({"source": self.source} if self.mode == "streaming" else {})})

    def capabilities(self) -> frozenset:
        """What this engine runs.  Through Spark's socket source (a test source) a 50,000-line
        micro-batch takes about 11 s, so a 2-million-triple load would take some 8 minutes: large
        streams are declared unsupported there (the kit reports them UNSUPPORTED, not TIMEOUT)."""
        capabilities = CAPABILITIES | {"count-window", "time-annotated", "multi-window", "merged-windows"}
        return capabilities - {"large-stream"} if self.mode == "streaming" and self.source == "socket" else capabilities

    def run(self, request: RunRequest) -> list[ObservedReport]:
        return refused_by_name(lambda serial: self._run(request, serial))  # serial: in_order, one task

    def _run(self, request: RunRequest, serial: bool = False) -> list[ObservedReport]:
        """The run in the engine's mode, or ``serial``: replayed, each query in one task."""
        algebra = algebra_of(request.r2r)
        self._cancel = threading.Event()
        request, closed = as_computed(in_order(request) if serial else request)
        template = template_of(algebra)  # a CONSTRUCT query's
        if self.mode == "streaming" and not serial:
            from engines.spark.streaming import stream  # deferred: imports pyspark

            return self.reports(request.r2s, *stream(request, algebra, self.t0, self.master, self._cancel,
                                                     self.source), closed=closed, template=template)
        from engines.spark.replay import replay  # deferred: imports pyspark

        return self.reports(request.r2s, *replay(request, algebra, self.t0, self.master, serial), closed=closed,
                            template=template)

    def cancel(self) -> None:
        """Called by the harness on timeout: stop the streaming query and the running Spark jobs."""
        self._cancel.set()

        if spark_session._SESSION is not None:
            spark_session._SESSION.sparkContext.cancelAllJobs()

    def rejected_lines(self, path: str) -> int:
        """Statement lines of a stream file Spark's reader cannot read (it would drop them)."""
        from engines.spark.ingest import rejected  # deferred: imports pyspark

        return rejected(session(self.master), path)

    def run_file(self, path: str, fmt: str, r2r: str, window, r2s: str) -> list[ObservedReport]:
        """Replay a stream file that Spark reads itself (``yabench`` lines or ``nquads``)."""
        from engines.spark.replay import replay_file  # deferred: imports pyspark

        algebra = algebra_of(r2r)
        return refused_by_name(lambda serial: self.reports(
            r2s, *replay_file(path, fmt, window, algebra, self.t0, self.master, serial), template=template_of(algebra)))

    @staticmethod
    def reports(operator: str, form: str, windows, rows, closed: bool = False, template=None) -> list[ObservedReport]:
        """Per window, in order: parse the terms (a CONSTRUCT query's triples made from them with its
        ``template``), apply R2S, stamp with the window and its close time."""
        reporter = Reporter(operator, closed, template)
        return [reporter.report(form, opening, closing, rows.get(k, NONE)) for k, (opening, closing) in enumerate(windows)]

    def live(self, request: RunRequest, emit):
        """A live session (conformance/load/live.py, streaming mode): a batch job per window close, a copy of
        one plan over the window's Parquet files (:mod:`engines.spark.live`)."""
        if self.mode != "streaming":
            raise LiveUnsupported("live runs need --engine-option mode=streaming (replay reads a recorded stream)")
        if type(request.window) is not WindowSpec:  # a count-based window, or several windows
            raise LiveUnsupported(f"live runs of this engine take one time-based window, not a "
                                  f"{type(request.window).__name__} (run the case in batch)")
        from engines.spark.live import SparkLive  # deferred: imports pyspark

        request, closed = as_computed(request)
        return SparkLive(self, request, emit, algebra_of(request.r2r), closed)


