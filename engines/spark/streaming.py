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
from engines.spark import ingest
from engines.spark.replay import (
    NOTHING,
    SCHEMA,
    evaluate,
    matchable,
    matchable_condition,
    static_frame,
    window_instances,
)
from engines.spark.session import session


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
    return [f'{s.n3()} {p.n3()} {o.n3()} "{element.t}" .\n' for s, p, o in element.triples]


def write_ticks(request: RunRequest, folder: Path, closes: list[int]) -> int:
    """One file per report interval, in order, with increasing modification times; returns the count."""
    base = time.time() - 10_000
    written = 0
    for count, chunk in enumerate(report_chunks(request, closes)):
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
    closes = [c for _, c in window_instances(request.window, t0, last)]
    if source == "socket":
        return run_socket(spark, report_chunks(request, closes), request.window, algebra, t0, last, static, cancel)
    with tempfile.TemporaryDirectory(prefix="rspconf-ticks-") as folder:
        write_ticks(request, Path(folder), closes)
        return run_folder(spark, folder, request.window, algebra, t0, last, static, cancel)


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
            self.df = self.df.where(F.col("t") >= self.windows[upto][0]).localCheckpoint()

    def on_batch(self, batch, batch_id) -> None:
        """One micro-batch of text lines: parse, keep what the query can match, report closed windows."""
        counted, timed = Observation(f"lines-{batch_id}"), Observation(f"top-{batch_id}")
        parsed = (ingest.parse(batch.observe(counted, F.count(F.lit(1)).alias("n")))
                  .select("s", "p", "o", "t").observe(timed, F.max("t").alias("top")))
        if matchable_condition(self.algebra) == NOTHING:
            # no triple pattern, so no triple to keep: a job that keeps none would not read the batch at
            # all (the optimizer prunes the scan, and the observations with it), so read it to no sink
            parsed.write.format("noop").mode("overwrite").save()
        else:
            # one job: parse, count the lines, observe the batch's time, keep the triples the query can match
            self.df = self.df.unionByName(matchable(parsed, self.algebra).localCheckpoint())
        self.lines += counted.get["n"] or 0
        top = timed.get["top"]
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
        if cancel.is_set():
            raise Cancelled("the run was cancelled")
        state.on_batch(batch, batch_id)

    query = lines.writeStream.foreachBatch(on_batch).trigger(**trigger).start()
    try:
        while not query.awaitTermination(0.2) and not cancel.is_set() and not done():
            pass
    finally:
        query.stop()
    if cancel.is_set():  # before the query's own failure, which a cancelled batch also raises
        raise Cancelled("the run was cancelled (timeout)")
    if query.exception() is not None:
        raise RuntimeError(f"the streaming query failed: {query.exception()}")
    return state.result()


def run_folder(spark, folder: str, window, algebra, t0: int, last: int | None, static=None,
               cancel: threading.Event | None = None):
    """Stream the YABench-lines files of ``folder`` (in name order, one micro-batch each) through the
    engine; ``last`` is the stream's last timestamp (it decides which trailing windows are flushed)."""
    state = WindowState(spark, window, algebra, t0, last, static)
    lines = (spark.readStream.format("text").option("maxFilesPerTrigger", 1)
             .option("latestFirst", "false").load(folder))
    return _drive(state, lines, {"availableNow": True}, cancel)


def run_socket(spark, chunks: Iterable[list[str]], window, algebra, t0: int, last: int | None, static=None,
               cancel: threading.Event | None = None):
    """Stream ``chunks`` of YABench lines (in time order) through Spark's socket source: a local TCP
    server thread sends a chunk once the engine has taken in every line before it, so a micro-batch
    holds about one chunk (chunks are cut to at most ``SOCKET_CHUNK`` lines: with 350,000 lines in one
    batch the stream thread died of a StackOverflowError inside Spark and the run hung).  Spark still
    cuts batches wherever the lines happen to have arrived; the answers do not depend on it (a window
    is reported once an element at or after its close has been seen, and the stream is in time order).
    The socket source has no end of stream, so the run ends when every line has been seen."""
    state = WindowState(spark, window, algebra, t0, last, static)
    chunks = [chunk[i:i + SOCKET_CHUNK] for chunk in chunks for i in range(0, len(chunk), SOCKET_CHUNK)]
    total = sum(len(chunk) for chunk in chunks)
    if not total:
        return state.result()
    with LineServer(chunks, taken=lambda: state.lines) as server:
        source = (spark.readStream.format("socket").option("host", server.host)
                  .option("port", server.port).load())
        return _drive(state, source, {"processingTime": "0 seconds"}, cancel, done=lambda: state.lines >= total)


class LineServer:
    """A one-connection TCP server on 127.0.0.1 that sends chunks of lines, each once ``taken()`` (how
    many lines the reader has consumed) has caught up with what was sent, and keeps the connection open
    until closed (Spark's socket source reads until the query stops)."""

    def __init__(self, chunks: list[list[str]], taken=None):
        self.chunks = chunks
        self.taken = taken
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.host, self.port = self.sock.getsockname()[:2]
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._serve, name="rspconf-socket-source", daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
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
            return
