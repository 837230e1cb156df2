"""The reference engine's live mode: elements arrive in wall-clock time, windows report as they close.

A worker thread takes each push from a queue (so ``push`` never blocks the kit's feeder).  Application
time is what the pushes say: an element or a heartbeat at T closes every window [o, c) with c ≤ T (with
``[o,c]`` windows, c < T), which is then evaluated over the elements held and emitted at once.  At the
end of the stream the windows started by the last element are flushed.  Elements older than the
earliest open window are dropped from the state.  Same windows and answers as the batch run.
"""

from __future__ import annotations

import queue
import threading

from engines.contract import RunRequest

_END = object()


class ReferenceLive:
    def __init__(self, engine, request: RunRequest, emit):
        self.engine, self.request, self.emit = engine, request, emit
        self.queue: queue.Queue = queue.Queue()
        self.held: list = []
        self.next = 0            # the next window to report
        self.last: int | None = None
        self.previous: list = []
        self.error: BaseException | None = None
        self.cancelled = False
        self.thread = threading.Thread(target=self._work, name="rspconf-reference-live", daemon=True)
        self.thread.start()

    # -- the live contract ---------------------------------------------------------------------
    def push(self, t: int, elements: list) -> None:
        self.queue.put((t, elements))

    def end(self) -> None:
        self.queue.put(_END)
        self.thread.join()
        if self.error is not None:
            raise self.error

    def cancel(self) -> None:
        """The run passed its timeout: stop at the next window, flush nothing."""
        self.cancelled = True
        self.queue.put(_END)

    # -- the engine ------------------------------------------------------------------------------
    def take(self, elements: list) -> list:
        """The elements the engine keeps of a push (a faulty engine may lose some)."""
        return elements

    def _work(self) -> None:
        try:
            while True:
                item = self.queue.get()
                if item is _END:
                    if not self.cancelled:
                        self._flush()
                    return
                t, elements = item
                self.held.extend(self.take(elements))
                if elements:
                    self.last = t
                self._close_until(t)
        except BaseException as exc:  # noqa: BLE001 - raised again by end()
            self.error = exc

    def _borders(self, k: int) -> tuple[int, int]:
        o = self.engine.t0 + k * self.request.window.slide
        return o, o + self.request.window.range

    def _close_until(self, t: int) -> None:
        while not self.cancelled:
            o, c = self._borders(self.next)
            if not (c < t if self.engine.closed else c <= t) or self.last is None or o > self.last:
                break
            self._report(o, c)
        earliest = self._borders(self.next)[0]
        self.held = [e for e in self.held if e.t >= earliest]

    def _flush(self) -> None:
        while self.last is not None and self._borders(self.next)[0] <= self.last:
            self._report(*self._borders(self.next))

    def _report(self, o: int, c: int) -> None:
        inside = [e for e in self.held if self.engine.inside(o, c, e.t)]
        report, self.previous = self.engine.report_window(self.request, o, c, inside, self.previous)
        self.emit(report)
        self.next += 1
