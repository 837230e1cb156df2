"""The Spark engine live (``rspconf load``, streaming mode): Structured Streaming's socket source fed
as the kit pushes, each window reported as soon as the micro-batch that closes it has run.

The kit's pushes become YABench lines sent at once over a local TCP socket that Spark's socket source
reads (no waiting on the reader: a Spark that falls behind shows it as delay).  A heartbeat is a line
about ``<urn:rspconf:heartbeat>`` stamped with the time reached: the engine takes the batch's time from
it and drops the line itself, so a window closes when time passes it even if no element arrives.  The
state is :class:`engines.spark.streaming.WindowState` with the windows growing as elements arrive (the
windows that have started by the latest element); each batch reports the windows whose close the time
has reached, and at the end of the stream the rest are flushed.  Same windows and answers as replay.
"""

from __future__ import annotations

import queue
import threading

from pyspark.sql import functions as F

from engines.contract import RunRequest
from engines.spark.reporter import Reporter, template_of
from engines.spark.session import session
from engines.spark.streaming import Cancelled, OneConnectionServer, WindowState, _drive, element_lines
from engines.spark.windowjob import static_frame, window_instances

HEARTBEAT = "<urn:rspconf:heartbeat>"


class LiveWindowState(WindowState):
    """:class:`WindowState` whose windows grow with the stream (the last element is not known ahead)
    and whose reports are handed on as soon as they are made."""

    def __init__(self, spark, window, algebra, t0: int, static, on_reports):
        super().__init__(spark, window, algebra, t0, None, static)
        self.on_reports = on_reports

    def observed(self) -> list:
        """The batch's time (heartbeats included) and its latest element's (they start windows)."""
        return super().observed() + [F.max(F.when(F.col("s") != HEARTBEAT, F.col("t"))).alias("last")]

    def kept(self, parsed):
        return parsed.where(F.col("s") != HEARTBEAT)

    def advance(self, observed: dict) -> None:
        last = observed["last"]
        if last is not None:
            self.last = last if self.last is None else max(self.last, last)
            self.windows = window_instances(self.window, self.t0, self.last)
        super().advance(observed)
        self.on_reports(self)

    def result(self):
        outcome = super().result()
        self.on_reports(self)
        return outcome


class SparkLive:
    """One live run of the Spark engine: a socket server the kit's pushes write to, the streaming query
    in a thread of its own, and the reports emitted window by window."""

    def __init__(self, engine, request: RunRequest, emit, algebra, closed: bool = False):
        self.emit, self.request = emit, request
        self.spark = spark = session(engine.master)
        self.cancelled = threading.Event()
        self.reporter = Reporter(request.r2s, closed, template_of(algebra))
        self.emitted = 0
        self.sent = 0
        self.ended = threading.Event()
        self.outcome: dict = {}
        self.state = LiveWindowState(spark, request.window, algebra, engine.t0,
                                     static_frame(spark, request.stream, algebra), self._emit_new)
        self.server = PushServer()
        source = (spark.readStream.format("socket").option("host", self.server.host)
                  .option("port", self.server.port).load())
        self.thread = threading.Thread(target=self._run, args=(source,), name="rspconf-spark-live", daemon=True)
        self.thread.start()

    def _emit_new(self, state) -> None:
        while self.emitted < state.next:
            o, c = state.windows[self.emitted]
            self.emit(self.reporter.report(state.form, o, c, state.rows.pop(self.emitted, [])))
            self.emitted += 1

    def _run(self, source) -> None:
        try:
            self.outcome["result"] = _drive(self.state, source, {"processingTime": "0 seconds"}, self.cancelled,
                                            done=lambda: self.ended.is_set() and self.state.lines >= self.sent)
        except (Cancelled, Exception) as exc:  # noqa: BLE001 - raised again by end()
            self.outcome["error"] = exc

    # -- the live contract ---------------------------------------------------------------------
    def push(self, t: int, elements: list) -> None:
        if elements:
            lines = [line for e in elements for line in element_lines(e)]
        else:
            lines = [f'{HEARTBEAT} {HEARTBEAT} {HEARTBEAT} "{t}" .\n']
        self.sent += len(lines)
        self.server.send("".join(lines))

    def end(self) -> None:
        self.ended.set()
        self.thread.join()
        self.server.close()
        if "error" in self.outcome:
            raise self.outcome["error"]

    def cancel(self) -> None:
        self.cancelled.set()
        self.ended.set()
        self.server.close()


class PushServer(OneConnectionServer):
    """Sends what it is given as soon as the reader is connected, in order, from a thread of its own
    (``send`` never blocks)."""

    def __init__(self):
        super().__init__("rspconf-spark-push")
        self.queue: queue.Queue = queue.Queue()
        self.thread.start()

    def send(self, text: str) -> None:
        self.queue.put(text)

    def close(self) -> None:
        self.queue.put(None)
        self.stop()

    def feed(self, conn) -> None:
        while True:
            text = self.queue.get()
            if text is None:
                return
            try:
                conn.sendall(text.encode("utf-8"))
            except OSError:
                return
