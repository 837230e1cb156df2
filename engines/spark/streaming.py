"""Streaming mode: Spark Structured Streaming over a file source, one file per tick.

The stream is written as one YABench-lines file per timestamp into a fresh input folder (the source is
a seam: any streaming DataFrame of text lines will do — a socket, or Kafka on a machine that has the
connector).  Each micro-batch (``maxFilesPerTrigger=1``) is parsed in the JVM and appended to the
engine's window state; the engine keeps the report policy itself: when a batch's time reaches a
window's close c, the window is complete (the stream is in time order) and its query runs as a batch
job over the state; at end of stream the remaining started windows are flushed.  The state drops
triples older than the earliest open window.  Same declared profile and same answers as replay.
"""

from __future__ import annotations

import os
import tempfile
import time
from itertools import groupby
from pathlib import Path

from pyspark.sql import functions as F

from engines.contract import RunRequest
from engines.spark import ingest
from engines.spark.replay import SCHEMA, evaluate, window_instances
from engines.spark.session import session


def write_ticks(request: RunRequest, folder: Path) -> int:
    """One file per timestamp, in order, with increasing modification times; returns the file count."""
    count = 0
    base = time.time() - 10_000
    for t, group in groupby(request.stream.elements, key=lambda e: e.t):
        path = folder / f"tick-{count:08d}.nt"
        with open(path, "w", encoding="utf-8") as out:
            for element in group:
                for s, p, o in element.triples:
                    out.write(f'{s.n3()} {p.n3()} {o.n3()} "{t}" .\n')
        os.utime(path, (base + count, base + count))
        count += 1
    return count


def stream(request: RunRequest, algebra, t0: int, master: str):
    """(query form, window borders, {k: rows}) computed micro-batch by micro-batch."""
    spark = session(master)
    last = request.stream.elements[-1].t if request.stream.elements else None
    windows = window_instances(request.window, t0, last)
    static = None
    if request.stream.static:
        static = spark.createDataFrame([(s.n3(), p.n3(), o.n3(), 0) for s, p, o in request.stream.static], SCHEMA)
    state = {"df": spark.createDataFrame([], SCHEMA), "next": 0, "form": "SELECT", "rows": {}}

    def report(upto: int) -> None:
        """Run the query for windows next..upto-1 (all complete) over the state, as one batch job."""
        if upto <= state["next"]:
            return
        only = list(range(state["next"], upto))
        form, _, rows = evaluate(spark, state["df"], static, request.window, t0, last, algebra, only=only)
        state["form"] = form
        state["rows"].update(rows)
        state["next"] = upto
        # purge: nothing older than the earliest open window is needed any more
        if upto < len(windows):
            state["df"] = state["df"].where(F.col("t") >= windows[upto][0]).localCheckpoint()

    def on_batch(batch, batch_id):
        parsed = ingest.parse(batch).select("s", "p", "o", "t").localCheckpoint()
        top = parsed.agg(F.max("t")).first()[0]
        state["df"] = state["df"].unionByName(parsed)
        if top is not None:
            closed = sum(1 for _, c in windows if c <= top)
            report(closed)

    with tempfile.TemporaryDirectory(prefix="rspconf-ticks-") as folder:
        write_ticks(request, Path(folder))
        lines = (spark.readStream.format("text").option("maxFilesPerTrigger", 1)
                 .option("latestFirst", "false").load(folder))
        query = lines.writeStream.foreachBatch(on_batch).trigger(availableNow=True).start()
        query.awaitTermination()
        if query.exception() is not None:
            raise RuntimeError(f"the streaming query failed: {query.exception()}")
    report(len(windows))  # end of stream: flush every started window
    return state["form"], windows, state["rows"]
