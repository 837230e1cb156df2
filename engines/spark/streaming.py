"""Streaming mode: Spark Structured Streaming over a file source (one file per report interval) or a
socket source.

Files (default): the stream is written as YABench-lines files into a fresh input folder.  Socket
(``source=socket``): the same lines are served over a local TCP socket that Spark's socket source reads.
The source is a seam: any streaming DataFrame of text lines will do (Kafka, on a machine that has the
connector, plugs in where :func:`run_socket` builds its source).
The engine is time-driven and reports only at window closes, so the elements between two consecutive
closes form one file and one micro-batch (``maxFilesPerTrigger=1``): a micro-batch costs 0.3–0.8 s
whatever its size, and one batch per timestamp made YABench streams (~1,500 timestamps) miss the case
timeout.  Each micro-batch is parsed in the JVM and appended to the engine's window state; when a
batch's time reaches a window's close c, the window is complete (the stream is in time order) and its
query runs as a batch job over the state (window borders select its content, so later elements of the
same batch do not leak in); at end of stream the remaining started windows are flushed.  The state
drops triples older than the earliest open window.  Same declared profile and same answers as replay.

Count windows, several windows and time-annotated data need each element's identity: their elements are
fed as N-Quads with statements about each element's graph (:func:`element_quads`), and
:class:`ElementState` runs the operators of :mod:`engines.spark.s2r` on each report once it is complete.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import groupby
from pathlib import Path

from pyspark.sql import Observation
from pyspark.sql import functions as F

from engines.contract import RunRequest
from engines.spark import ingest, s2r
from engines.spark.s2r import Arrived, count_spans, multi_instants
from engines.spark.session import session
from engines.spark.sqlterms import n3
from engines.spark.windowjob import (
    NOTHING,
    SCHEMA,
    evaluate,
    matchable,
    matchable_condition,
    static_frame,
    window_instances,
)
from oracle.model import CountWindowSpec, MultiWindowSpec, ValiditySpec


def report_interval(closes: list[int]):
    """Key of an element time: how many window closes it has reached (elements with the same key fall
    between the same two reports)."""
    def key(element) -> int:
        return bisect_right(closes, element.t)
    return key


def report_chunks(request: RunRequest, closes: list[int]) -> Iterator[list[str]]:
    """The stream's YABench lines cut at window closes: one chunk per report interval, in time order,
    made as they are asked for (the file source writes each and lets it go)."""
    for _, group in groupby(request.stream.elements, key=report_interval(closes)):
        yield [line for element in group for line in element_lines(element)]


def element_lines(element) -> list[str]:
    """An element as YABench lines (``<s> <p> <o> "t" .``), the text both sources carry."""
    return [f'{n3(s)} {n3(p)} {n3(o)} "{element.t}" .\n' for s, p, o in element.triples]


def write_chunks(chunks: Iterable[list[str]], folder: Path) -> int:
    """One file per chunk, in order, with increasing modification times; returns the count."""
    base = time.time() - 10_000
    written = 0
    for count, chunk in enumerate(chunks):
        path = folder / f"tick-{count:08d}.nt"
        path.write_text("".join(chunk), encoding="utf-8")
        os.utime(path, (base + count, base + count))
        written = count + 1
    return written


SOCKET_CHUNK = 50_000  # lines per socket send: a 350,000-line batch killed the socket source's thread


class Cancelled(Exception):
    """The harness gave up on this run (timeout)."""


def stream(request: RunRequest, algebra, t0: int, master: str, cancel: threading.Event | None = None,
           source: str = "files"):
    """(query form, window borders, {k: rows}) computed micro-batch by micro-batch.

    ``source``: ``files`` (one file per report interval in a fresh folder) or ``socket`` (the same
    chunks served over a local TCP socket that Spark's socket source reads).  ``cancel``, when set from
    another thread, stops the streaming query at the next batch."""
    spark = session(master)
    last = request.stream.elements[-1].t if request.stream.elements else None
    static = static_frame(spark, request.stream, algebra)
    if isinstance(request.window, (CountWindowSpec, ValiditySpec, MultiWindowSpec)):
        state = ElementState(spark, request, algebra, t0, static)
        return run_source(spark, state, element_chunks(request, t0), source, cancel)
    closes = [c for _, c in window_instances(request.window, t0, last)]
    state = WindowState(spark, request.window, algebra, t0, last, static)
    return run_source(spark, state, report_chunks(request, closes), source, cancel)


class WindowState:
    """The engine's window state across micro-batches: the triples of still-open windows, the next
    window to report, and the rows reported so far."""

    def __init__(self, spark, window, algebra, t0: int, last: int | None, static):
        self.spark, self.window, self.algebra, self.t0, self.last, self.static = (
            spark, window, algebra, t0, last, static)
        self.windows = window_instances(window, t0, last)
        self.df = spark.createDataFrame([], SCHEMA)
        self.next, self.form, self.rows = 0, "SELECT", {}
        self.lines = 0  # text lines received so far (the socket source's end-of-stream test)

    def report(self, upto: int) -> None:
        """Run the query for windows next..upto-1 (all complete) over the state, as one batch job."""
        if upto <= self.next:
            return
        only = list(range(self.next, upto))
        self.form, _, rows = evaluate(self.spark, self.df, self.static, self.window, self.t0, self.last,
                                      self.algebra, only=only)
        self.rows.update(rows)
        self.next = upto
        # purge: nothing older than the earliest open window is needed any more
        if upto < len(self.windows):
            self.df = self.df.where(F.col("t") >= self.t0 + upto * self.window.slide).localCheckpoint()

    def on_batch(self, batch, batch_id) -> None:
        """One micro-batch of text lines: parse, keep what the query can match, report closed windows."""
        counted, timed = Observation(f"lines-{batch_id}"), Observation(f"top-{batch_id}")
        parsed = (ingest.parse(batch.observe(counted, F.count(F.lit(1)).alias("n")))
                  .select("s", "p", "o", "t").observe(timed, *self.observed()))
        kept = self.kept(parsed)
        if matchable_condition(self.algebra) == NOTHING:
            # no triple pattern, so no triple to keep: a job that keeps none would not read the batch at
            # all (the optimizer prunes the scan, and the observations with it), so read it to no sink
            kept.write.format("noop").mode("overwrite").save()
        else:
            # one job: parse, count the lines, observe the batch's time, keep the triples the query can match
            self.df = self.df.unionByName(matchable(kept, self.algebra).localCheckpoint())
        self.advance(timed.get)
        # last: the socket source's run ends once every line is counted, so count them when they are held
        # and reported (counted earlier, the run could stop this batch half-way and flush beside it)
        self.lines += counted.get["n"] or 0

    def observed(self) -> list:
        """What each batch observes on its way: its latest time."""
        return [F.max("t").alias("top")]

    def kept(self, parsed):
        """The parsed triples that are stream data (all of them here)."""
        return parsed

    def advance(self, observed: dict) -> None:
        """After a batch: report every window the batch's time has closed."""
        top = observed["top"]
        if top is not None:
            self.report(sum(1 for _, c in self.windows if c <= top))

    def result(self):
        self.report(len(self.windows))  # end of stream: flush every started window
        return self.form, self.windows, self.rows


def _drive(state: WindowState, lines, trigger: dict, cancel: threading.Event | None, done=lambda: False):
    """Run the streaming query over ``lines`` (a streaming DataFrame of text lines) until it ends by
    itself (file source, ``availableNow``) or ``done()`` says every line was seen (socket source)."""
    cancel = cancel or threading.Event()

    def on_batch(batch, batch_id):
        # once cancelled, a batch ends quietly and the loop below stops the query: raised here, a cancel made
        # Spark log the query's failure with 80 lines of Python and Java stack
        if cancel.is_set():
            return
        try:
            state.on_batch(batch, batch_id)
        except Exception:
            if not cancel.is_set():  # else a job that cancel() stopped
                raise

    query = lines.writeStream.foreachBatch(on_batch).trigger(**trigger).start()
    try:
        while not query.awaitTermination(0.2) and not cancel.is_set() and not done():
            pass
    except Exception:
        if not cancel.is_set():  # a batch cancelled or stopped by cancel() fails the query: still a cancel
            raise
    finally:
        query.stop()
    if cancel.is_set():  # before the query's own failure, which a cancelled batch also raises
        raise Cancelled("the run was cancelled (timeout)")
    if query.exception() is not None:
        raise RuntimeError(f"the streaming query failed: {query.exception()}")
    return state.result()


def run_source(spark, state, chunks: Iterable[list[str]], source: str, cancel: threading.Event | None):
    """Feed ``chunks`` of lines to ``state`` (:class:`WindowState` or :class:`ElementState`) through the
    file source (one file per chunk) or the socket source."""
    if source == "socket":
        return run_socket(spark, state, chunks, cancel)
    with tempfile.TemporaryDirectory(prefix="rspconf-ticks-") as folder:
        write_chunks(chunks, Path(folder))
        return drive_folder(spark, state, folder, cancel)


def drive_folder(spark, state, folder: str, cancel: threading.Event | None = None):
    """Stream the files of ``folder`` (in name order, one micro-batch each) into ``state``."""
    lines = (spark.readStream.format("text").option("maxFilesPerTrigger", 1)
             .option("latestFirst", "false").load(folder))
    return _drive(state, lines, {"availableNow": True}, cancel)


def run_folder(spark, folder: str, window, algebra, t0: int, last: int | None, static=None,
               cancel: threading.Event | None = None):
    """Stream the YABench-lines files of ``folder`` through the engine; ``last`` is the stream's last
    timestamp (it decides which trailing windows are flushed)."""
    return drive_folder(spark, WindowState(spark, window, algebra, t0, last, static), folder, cancel)


def run_socket(spark, state, chunks: Iterable[list[str]], cancel: threading.Event | None):
    """Stream ``chunks`` of lines (in time order) into ``state`` through Spark's socket source: a local TCP
    server thread sends a chunk once the engine has taken in every line before it, so a micro-batch
    holds about one chunk (chunks are cut to at most ``SOCKET_CHUNK`` lines: with 350,000 lines in one
    batch the stream thread died of a StackOverflowError inside Spark and the run hung).  Spark still
    cuts batches wherever the lines happen to have arrived; the answers do not depend on it (a window
    is reported once an element at or after its close has been seen, and the stream is in time order).
    The socket source has no end of stream, so the run ends when every line has been seen."""
    chunks = [chunk[i:i + SOCKET_CHUNK] for chunk in chunks for i in range(0, len(chunk), SOCKET_CHUNK)]
    total = sum(len(chunk) for chunk in chunks)
    if not total:
        return state.result()
    with LineServer(chunks, taken=lambda: state.lines) as server:
        source = (spark.readStream.format("socket").option("host", server.host)
                  .option("port", server.port).load())
        return _drive(state, source, {"processingTime": "0 seconds"}, cancel, done=lambda: state.lines >= total)


class OneConnectionServer:
    """A one-connection TCP server on 127.0.0.1 for Spark's socket source: it accepts the reader, hands
    the connection to :meth:`feed`, and closes when fed (or when stopped)."""

    def __init__(self, name: str):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.host, self.port = self.sock.getsockname()[:2]
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._serve, name=name, daemon=True)

    def feed(self, conn) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        self.closed.set()
        self.sock.close()
        self.thread.join(timeout=5)

    def _serve(self) -> None:
        self.sock.settimeout(0.5)
        while not self.closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                self.feed(conn)
            return


class LineServer(OneConnectionServer):
    """Sends chunks of lines, each once ``taken()`` (how many lines the reader has consumed) has caught up
    with what was sent, and keeps the connection open until closed (Spark's socket source reads until
    the query stops)."""

    def __init__(self, chunks: list[list[str]], taken=None):
        super().__init__("rspconf-socket-source")
        self.chunks = chunks
        self.taken = taken

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def feed(self, conn) -> None:
        sent = 0
        for chunk in self.chunks:
            while self.taken is not None and self.taken() < sent:
                if self.closed.wait(0.01):
                    return
            try:
                conn.sendall("".join(chunk).encode("utf-8"))
            except OSError:
                return
            sent += len(chunk)
        self.closed.wait()


# -- count windows, time-annotated data, several windows: elements with their identity ----------------

RSPCONF = "https://w3id.org/rspconf#"
# what an element says beyond its triples, one statement each about its graph; the offset comes last,
# so an element whose offset has arrived has arrived whole (the lines are read in order)
ABOUT = {f"<{RSPCONF}{key}>": key for key in ("time", "stream", "until", "expires", "offset")}


def element_quads(offset: int, element) -> list[str]:
    """An element as N-Quads lines: its triples in the graph ``<urn:rspconf:element:OFFSET>``, then its
    time (the kit's ``rspconf:time``), stream, validity and arrival offset (the position a source such as
    Kafka gives each record) as statements about that graph."""
    g = f"<urn:rspconf:element:{offset}>"
    lines = [f"{n3(s)} {n3(p)} {n3(o)} {g} .\n" for s, p, o in element.triples]
    lines.append(f'{g} <{RSPCONF}time> "{element.t}" .\n')
    if element.stream:
        lines.append(f"{g} <{RSPCONF}stream> <{element.stream}> .\n")
    for key in ("until", "expires"):
        if getattr(element, key) is not None:
            lines.append(f'{g} <{RSPCONF}{key}> "{getattr(element, key)}" .\n')
    lines.append(f'{g} <{RSPCONF}offset> "{offset}" .\n')
    return lines


def element_chunks(request: RunRequest, t0: int) -> Iterator[list[str]]:
    """The elements as N-Quads lines, one chunk per report interval (a count window's last position, a
    multi-window instant, an instant of time-annotated data): fewer micro-batches, and the answers do
    not depend on where the chunks are cut."""
    elements = request.stream.elements
    window = request.window
    if isinstance(window, CountWindowSpec):
        ends = [b for _, b in count_spans(len(elements), window)]
        key = lambda pair: bisect_right(ends, pair[0] - 1)  # noqa: E731 - positions up to a report
    else:
        if isinstance(window, MultiWindowSpec) and elements:
            cuts = multi_instants(window, t0, elements, request.stream_iri)
        else:  # validity: every start is an instant (data-driven) or lies between two (periodic)
            cuts = sorted({e.t for e in elements})
        key = lambda pair: bisect_right(cuts, pair[1].t)  # noqa: E731
    for _, group in groupby(enumerate(elements), key=key):
        yield [line for offset, element in group for line in element_quads(offset, element)]


class ElementState:
    """The engine's state for the S2R operators of :mod:`engines.spark.s2r`: the triples with their
    element's graph (a DataFrame that grows by each micro-batch), each element's registration (time,
    stream, validity, offset; collected from the batch: one row per element), and how many reports were
    made.  After each batch the operator computes the reports that became complete, and no others."""

    def __init__(self, spark, request: RunRequest, algebra, t0: int, static):
        self.spark, self.request, self.algebra, self.t0, self.static = spark, request, algebra, t0, static
        self.quads = spark.createDataFrame([], "s STRING, p STRING, o STRING, g STRING")
        self.said: dict[str, dict] = {}       # element graph → what has arrived about it
        self.arrived: list = []               # Arrived, by offset, while the offsets are contiguous
        self.offsets: dict[str, int] = {}
        self.form, self.borders, self.rows = "SELECT", [], {}
        self.lines = 0

    def on_batch(self, batch, batch_id) -> None:
        counted = Observation(f"lines-{batch_id}")
        statements = ingest.terms(batch.observe(counted, F.count(F.lit(1)).alias("n"))).where("s != ''").localCheckpoint()
        about = ", ".join(f"'{p}'" for p in ABOUT)
        for g, p, o in statements.where(f"g = '' AND p IN ({about})").select("s", "p", "o").collect():
            self.said.setdefault(g, {})[ABOUT[p]] = o
        self.quads = self.quads.unionByName(statements.where("g != ''").select("s", "p", "o", "g")).localCheckpoint()
        self._register()
        self.report(ended=False)
        # last: the socket source's run ends once every line is counted, so count them when they are held
        self.lines += counted.get["n"] or 0

    def _register(self) -> None:
        def number(text):
            return None if text is None else int(text.strip('"').split('"')[0])

        ready = {number(said["offset"]): g for g, said in self.said.items() if "offset" in said}
        while len(self.arrived) in ready:
            g = ready[len(self.arrived)]
            said = self.said.pop(g)
            stream = said.get("stream")
            self.offsets[g] = len(self.arrived)
            self.arrived.append(Arrived(number(said["time"]), stream[1:-1] if stream else None,
                                        number(said.get("until")), number(said.get("expires"))))

    def report(self, ended: bool) -> None:
        if not self.arrived:
            return
        offsets = self.spark.createDataFrame(sorted(self.offsets.items()), "g STRING, f BIGINT")
        quads = self.quads.join(offsets, "g").select("s", "p", "o", "f")
        window, done = self.request.window, len(self.borders)
        if isinstance(window, MultiWindowSpec):
            form, borders, rows = s2r.multi(self.spark, quads, self.arrived, window, self.t0, self.request.stream_iri,
                                            self.static, self.algebra, done, ended)
        else:
            operator = s2r.valid if isinstance(window, ValiditySpec) else s2r.counted
            form, borders, rows = operator(self.spark, quads, self.arrived, window, self.static, self.algebra,
                                           done, ended)
        if form is not None:
            self.form = form
        self.borders = borders
        self.rows.update(rows)

    def result(self):
        self.report(ended=True)
        return self.form, self.borders, self.rows
