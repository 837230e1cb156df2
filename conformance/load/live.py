"""Live runs: the stream fed in wall-clock time, reports stamped when they arrive (YABench's load runs).

The kit's other runs hand an engine the whole stream and never wait on a clock.  A live run instead
pushes each element when it is due, ``start + (t − t_first) / speed`` in wall-clock time, grouped per
timestamp, and receives the engine's reports as the engine emits them, each stamped with the wall-clock
time it arrived.  Between elements the feeder sends *heartbeats*, ``push(T, [])``: application time has
reached T, no element before T will come (the punctuation a time-driven engine needs to close a
window when no element arrives).  After the last element the clock runs on until every window started
by then has closed, then the feeder signals the end of the stream.

The live contract (an adapter opts in with a ``live`` method, see :mod:`engines.contract`)::

    session = adapter.live(request, emit)   # emit(ObservedReport) from any thread, as reports are made
    session.push(t, elements)               # due now; must not block (queue the work): the feeder's clock
    session.end()                           # end of stream: flush, emit the rest, return when done
    session.pid                             # optional: the engine's process, for CPU and memory sampling

Then the oracle judges the reports exactly as in any run (the same alignment and explanations), and
each window gets its **delay**: the wall-clock time its report arrived minus the wall-clock time the
window closed (``start + (c − t_first) / speed``).
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import statistics
import threading
import time
from dataclasses import dataclass, field
from itertools import groupby

from conformance.load.resources import Sampler
from engines.contract import LiveUnsupported
from oracle.model import ObservedReport, WindowSpec, triple_count

__all__ = ["Feeder", "FeedLog", "LiveRun", "LiveUnsupported", "delays", "run_live"]


@dataclass
class FeedLog:
    """What the feeder did: per timestamp group its lateness (s) past its due time, and the totals."""

    start: float
    speed: float
    t_first: int
    groups: int = 0
    elements: int = 0
    triples: int = 0
    heartbeats: int = 0
    reached: int = -(2 ** 62)   # the application time pushed last (heartbeats never go back)
    lateness: list[float] = field(default_factory=list)
    wall_seconds: float = 0.0

    def wall(self, t: int) -> float:
        """The wall-clock instant (monotonic seconds) at which application time ``t`` is due."""
        return self.start + (t - self.t_first) / 1000.0 / self.speed

    def summary(self) -> dict:
        late = sorted(self.lateness) or [0.0]
        return {"groups": self.groups, "elements": self.elements, "triples": self.triples,
                "heartbeats": self.heartbeats, "wall_seconds": round(self.wall_seconds, 3),
                "triples_per_second": round(self.triples / self.wall_seconds, 1) if self.wall_seconds else None,
                "lateness_ms": {"median": round(statistics.median(late) * 1000, 3),
                                "p99": round(late[min(len(late) - 1, int(len(late) * 0.99))] * 1000, 3),
                                "max": round(late[-1] * 1000, 3)}}


class Feeder:
    """Pushes a stream's elements in wall-clock time and measures its own lateness.

    ``speed``: application milliseconds per wall-clock millisecond (1 = real time, 10 = ten times
    faster).  ``heartbeat``: seconds between heartbeats while no element is due (on the application
    clock's grid, :meth:`_wait`).  ``until``: the
    application time the clock runs to after the last element (the last window's close)."""

    def __init__(self, elements, speed: float = 1.0, heartbeat: float = 0.1, until: int | None = None,
                 lead: float = 0.2, clock=time.monotonic, stop: threading.Event | None = None):
        if speed <= 0:
            raise ValueError(f"speed must be positive, not {speed}")
        self.elements, self.speed, self.heartbeat, self.until = elements, speed, heartbeat, until
        self.lead, self.clock = lead, clock
        self.stop = stop or threading.Event()

    def run(self, session) -> FeedLog:
        first = self.elements[0].t if self.elements else 0
        log = self.log = FeedLog(self.clock() + self.lead, self.speed, first)
        for t, group in groupby(self.elements, key=lambda e: e.t):
            group = list(group)
            self._wait(session, log, t)
            log.lateness.append(max(0.0, self.clock() - log.wall(t)))
            session.push(t, group)
            log.reached = t
            log.groups += 1
            log.elements += len(group)
            log.triples += triple_count(group)
        if self.until is not None:
            self._wait(session, log, self.until)
            session.push(self.until, [])  # the clock reached the last close
            log.heartbeats += 1
        log.wall_seconds = self.clock() - log.start
        return log

    def _wait(self, session, log: FeedLog, t: int) -> None:
        """Sleep until ``t`` is due, sending heartbeats on the way: one at each instant of the application
        clock's grid of ``heartbeat`` seconds (multiples of ``heartbeat`` × 1000 × ``speed`` ms), when it is
        due.  On that grid, not ``heartbeat`` seconds after the last element: a window whose close lies on
        it (a whole second, say) learns that time passed the close when it did, not when the next
        heartbeat or element happens to come (up to ``heartbeat`` later: about 30 ms of every
        50-station window's delay, docs/load.md)."""
        due = log.wall(t)
        period = max(1, round(self.heartbeat * 1000 * self.speed))  # application ms between heartbeats
        while not self.stop.is_set():
            now = self.clock()
            if now >= due:
                return
            reached = max(log.reached, log.t_first - 1, self._reached(log, now))
            tick = (reached // period + 1) * period  # the next instant of the grid
            self.stop.wait(max(0.0, min(due, log.wall(tick)) - now))
            now = self.clock()
            if now < due:
                reached = max(self._reached(log, now), tick if now >= log.wall(tick) else reached)
                if max(log.reached, log.t_first - 1) < reached < t:  # none before the first element
                    session.push(reached, [])
                    log.reached = reached
                    log.heartbeats += 1
        raise LiveStopped("the live run was stopped (timeout)")

    def _reached(self, log: FeedLog, now: float) -> int:
        """The application time the clock has reached at wall-clock ``now``."""
        return log.t_first + math.floor((now - log.start) * 1000 * self.speed)


class LiveStopped(RuntimeError):
    pass


def last_close(window, elements) -> int | None:
    """The close of the last window that has started by the last element (t0 = 0 grid; the feeder runs the
    clock to it, so every such window can close in wall-clock time)."""
    if not elements:
        return None
    last = elements[-1].t
    return (last // window.slide) * window.slide + window.range


@dataclass
class LiveRun:
    """One live run's raw material: the reports with their arrival times, the feed log, the samples."""

    reports: list[ObservedReport]
    feed: FeedLog
    samples: list[dict]
    end_seconds: float | None
    timed_out: bool = False   # the run passed its timeout: what arrived until then, never a whole run


class NotReady(RuntimeError):
    """The engine did not start its live session within the run's timeout."""


def start_session(adapter, request, emit, timeout: float):
    """The adapter's live session, started within ``timeout`` (the experiment's): an engine that never
    says it is ready is cancelled then, not waited for."""
    box: dict = {}

    def start():
        try:
            box["session"] = adapter.live(request, emit)
        except BaseException as exc:  # noqa: BLE001 - raised again below
            box["error"] = exc

    thread = threading.Thread(target=start, name="rspconf-live-start", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        cancel = getattr(adapter, "cancel", None)
        if cancel is not None:
            cancel()
        raise NotReady(f"the engine did not start its live session (no ready answer) within {timeout:g} s, "
                       "the experiment's timeout")
    if "error" in box:
        raise box["error"]
    return box["session"]


def run_live(adapter, request, speed: float = 1.0, heartbeat: float = 0.1, sample_every: float = 1.0,
             timeout: float = 600.0) -> LiveRun:
    """Feed ``request``'s stream to the adapter's live session in wall-clock time; collect its reports.

    Each report the engine emits is stamped with its arrival time (monotonic seconds) in
    ``report.extra["received"]``.  A run that passes ``timeout`` (feeding and the end-of-stream flush
    together) is cancelled and returned with ``timed_out``: the reports that arrived by then (how far
    behind an engine fell is what a load run is for)."""
    if not hasattr(adapter, "live"):
        raise LiveUnsupported("the engine has no live mode (the live contract: conformance/load/live.py)")
    if type(request.window) is not WindowSpec:
        raise LiveUnsupported("live runs feed time-window cases (one window over one stream) only")
    received: list[ObservedReport] = []
    lock = threading.Lock()

    def emit(report: ObservedReport) -> None:
        stamped = ObservedReport(report.solutions, tau=report.tau, window=report.window,
                                 extra={**report.extra, "received": time.monotonic()})
        with lock:
            received.append(stamped)

    elements = request.stream.elements
    stop = threading.Event()
    session = start_session(adapter, request, emit, timeout)
    sampler = Sampler(getattr(session, "pid", None) or os.getpid(), every=sample_every)
    feeder = Feeder(elements, speed, heartbeat, until=last_close(request.window, elements), stop=stop)
    box: dict = {}

    def body():
        try:
            box["feed"] = feeder.run(session)
            ended = time.monotonic()
            session.end()
            box["end"] = time.monotonic() - ended
        except BaseException as exc:  # noqa: BLE001 - reported below
            box["error"] = exc

    def halt():  # the feed stops, and the engine's session with it
        stop.set()
        cancel = getattr(session, "cancel", None)
        if cancel is not None:
            cancel()

    with still_heap(), sampler:
        thread = threading.Thread(target=body, name="rspconf-live-feeder", daemon=True)
        thread.start()
        try:
            thread.join(timeout)
        except BaseException:  # Ctrl-C or SIGTERM: the engine's session is stopped too, not left running
            halt()
            raise
        timed_out = thread.is_alive()
        if timed_out:
            halt()
    if "error" in box and not timed_out:
        raise box["error"]
    with lock:
        reports = list(received)
    feed = box.get("feed") or feeder.log
    if timed_out and not feed.wall_seconds:  # stopped while feeding: the feeding so far
        feed.wall_seconds = time.monotonic() - feed.start
    samples = [{**s, "t": round(s["t"] - feed.start, 3)} for s in sampler.samples]
    return LiveRun(reports, feed, samples, box.get("end"), timed_out)


@contextlib.contextmanager
def still_heap():
    """Everything made so far (the stream's millions of terms and tuples, an in-process engine's state)
    out of the garbage collector's scans while feeding (``gc.freeze``), and back after.  A full collection
    walks every tracked object while holding the interpreter lock: at 10,000 stations one took 0.6 s,
    the feeder was 0.6 s late and so was the in-process engine (docs/load.md)."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def delays(verdict, feed: FeedLog) -> list[float | None]:
    """Per aligned window of a verdict: its report's arrival minus the window's close in wall-clock time
    (seconds), or None when the engine sent no report for it (or the oracle expected none)."""
    out = []
    for w in verdict.best.windows:
        if w.expected is None or w.actual is None or "received" not in w.actual.extra:
            out.append(None)
        else:
            out.append(w.actual.extra["received"] - feed.wall(w.expected.closing))
    return out
