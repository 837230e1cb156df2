"""Streaming mode: Spark Structured Streaming over a file source, one file per report interval.

The stream is written as YABench-lines files into a fresh input folder (the source is a seam: any
streaming DataFrame of text lines will do — a socket, or Kafka on a machine that has the connector).
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
import tempfile
import threading
import time
from bisect import bisect_right
from itertools import groupby
from pathlib import Path

from pyspark.sql import Observation
from pyspark.sql import functions as F

from engines.contract import RunRequest
from engines.spark import ingest
from engines.spark.replay import SCHEMA, evaluate, matchable, static_frame, window_instances
from engines.spark.session import session


def report_interval(closes: list[int]):
    """Key of an element time: how many window closes it has reached (elements with the same key fall
    between the same two reports)."""
    def key(element) -> int:
        return bisect_right(closes, element.t)
    return key


def write_ticks(request: RunRequest, folder: Path, closes: list[int]) -> int:
    """One file per report interval, in order, with increasing modification times; returns the count."""
    count = 0
    base = time.time() - 10_000
    for _, group in groupby(request.stream.elements, key=report_interval(closes)):
        path = folder / f"tick-{count:08d}.nt"
        with open(path, "w", encoding="utf-8") as out:
            for element in group:
                for s, p, o in element.triples:
                    out.write(f'{s.n3()} {p.n3()} {o.n3()} "{element.t}" .\n')
        os.utime(path, (base + count, base + count))
        count += 1
    return count


class Cancelled(Exception):
    """The harness gave up on this run (timeout)."""


def stream(request: RunRequest, algebra, t0: int, master: str, cancel: threading.Event | None = None):
    """(query form, window borders, {k: rows}) computed micro-batch by micro-batch.

    ``cancel``, when set from another thread, stops the streaming query at the next batch."""
    spark = session(master)
    last = request.stream.elements[-1].t if request.stream.elements else None
    static = static_frame(spark, request.stream)
    with tempfile.TemporaryDirectory(prefix="rspconf-ticks-") as folder:
        closes = [c for _, c in window_instances(request.window, t0, last)]
        write_ticks(request, Path(folder), closes)
        return run_folder(spark, folder, request.window, algebra, t0, last, static, cancel)


def run_folder(spark, folder: str, window, algebra, t0: int, last: int | None, static=None,
               cancel: threading.Event | None = None):
    """Stream the YABench-lines files of ``folder`` (in name order, one micro-batch each) through the
    engine; ``last`` is the stream's last timestamp (it decides which trailing windows are flushed)."""
    cancel = cancel or threading.Event()
    windows = window_instances(window, t0, last)
    state = {"df": spark.createDataFrame([], SCHEMA), "next": 0, "form": "SELECT", "rows": {}}

    def report(upto: int) -> None:
        """Run the query for windows next..upto-1 (all complete) over the state, as one batch job."""
        if upto <= state["next"]:
            return
        only = list(range(state["next"], upto))
        form, _, rows = evaluate(spark, state["df"], static, window, t0, last, algebra, only=only)
        state["form"] = form
        state["rows"].update(rows)
        state["next"] = upto
        # purge: nothing older than the earliest open window is needed any more
        if upto < len(windows):
            state["df"] = state["df"].where(F.col("t") >= windows[upto][0]).localCheckpoint()

    def on_batch(batch, batch_id):
        if cancel.is_set():
            raise Cancelled("the run was cancelled")
        seen = Observation(f"batch-{batch_id}")
        parsed = ingest.parse(batch).select("s", "p", "o", "t").observe(seen, F.max("t").alias("top"))
        # one job: parse, observe the batch's time, keep the triples the query can match
        parsed = matchable(parsed, algebra).localCheckpoint()
        top = seen.get["top"]
        state["df"] = state["df"].unionByName(parsed)
        if top is not None:
            closed = sum(1 for _, c in windows if c <= top)
            report(closed)

    lines = (spark.readStream.format("text").option("maxFilesPerTrigger", 1)
             .option("latestFirst", "false").load(folder))
    query = lines.writeStream.foreachBatch(on_batch).trigger(availableNow=True).start()
    while not query.awaitTermination(0.5):
        if cancel.is_set():
            query.stop()
            raise Cancelled("the run was cancelled (timeout)")
    if cancel.is_set():
        raise Cancelled("the run was cancelled (timeout)")
    if query.exception() is not None:
        raise RuntimeError(f"the streaming query failed: {query.exception()}")
    report(len(windows))  # end of stream: flush every started window
    return state["form"], windows, state["rows"]
