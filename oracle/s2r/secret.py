"""SECRET's Report and Tick: when does which window report, with which content.

The simulation walks the stream as a sequence of *moments*.  A moment is the arrival of one tick unit
(tuple-driven: each element, or each timestamp's batch; batch-driven: each input batch) or, for a
time-driven tick, a clock instant at which a window closes or a period ends.  At each moment ``x``:

1. windows whose closing condition holds close (``c ≤ x`` when ``close`` is ``>=``, ``c < x`` for
   ``>``); the content they report is what arrived *before* the moment (SECRET's Content function
   depends on system time: a unit that closes a window is not in it);
2. with window-close in the policy, the closed windows report — all of them (grain ``multiple``),
   only the latest (grain ``single``), or the latest that holds an element (grain ``single-held``: an
   engine whose windows exist only once an element fell in them, rsp-js) — subject to the other
   conditions (non-empty content; content change against the last report);
3. a periodic condition reports the active window at each period border passed;
4. the unit's elements are added;
5. with content-change as the trigger (no window-close), the active window (the open, started window
   with the earliest start) reports if its content differs from the last one seen.

At end of stream, ``flush`` closes every started window (tuple-driven: as one final moment after the
last element; time-driven: the clock runs on to each window's close); ``drop`` stops there.

The output is a list of :class:`Trigger` — window, content range and the moment that triggered it —
which depends on t0 only through comparisons between element timestamps and window borders; that is
what :mod:`oracle.s2r.t0` exploits.
"""

from __future__ import annotations

from itertools import groupby
from typing import Iterator

from oracle.model import CountWindowSpec, Stream, WindowSpec
from oracle.s2r import counting
from oracle.s2r.scope import MAX_WINDOWS, Scope, within_limit
from oracle.s2r.trigger import EMPTY, END, Trigger
from oracle.semantics import Profile


def tick_units(stream: Stream, profile: Profile) -> list[tuple[int, int, int]]:
    """The tick units as (time, first element index, end element index), in arrival order."""
    elements = stream.elements
    if profile.tick == "tuple-driven" and profile.granularity == "element":
        return [(e.t, i, i + 1) for i, e in enumerate(elements)]
    key = (lambda i: elements[i].batch_key) if profile.tick == "batch-driven" else (lambda i: elements[i].t)
    units = []
    for _, group in groupby(range(len(elements)), key=key):
        idx = list(group)
        units.append((max(elements[i].t for i in idx), idx[0], idx[-1] + 1))
    return units


def _clock_time(scope: Scope, k: int, close: str) -> int:
    """The first instant at which window k is closed under the close rule."""
    return scope.closing(k) + (1 if close == ">" else 0)


def _moments(units, run: "_Run") -> Iterator[tuple[float, int | None]]:
    """Yield (time, unit index or None) in processing order: clock instants before arrivals.  Only the
    clock instants that can change an answer are made (:meth:`_Run.clock_windows`), so a gap in the
    stream costs nothing."""
    scope, profile = run.scope, run.profile
    events: list[tuple[float, int, int | None]] = [(t, 1, i) for i, (t, _, _) in enumerate(units)]
    t_last = units[-1][0]
    if profile.tick == "time-driven":
        for k in run.clock_windows():
            at = _clock_time(scope, k, profile.close)
            if at <= t_last or profile.end_of_stream == "flush":
                events.append((at, 0, None))
        if profile.periodic:
            count = max(0, (t_last - scope.t0) // profile.periodic)
            run.spend(count, "periodic report instants")
            events += [(scope.t0 + m * profile.periodic, 0, None) for m in range(1, count + 1)]
    elif profile.end_of_stream == "flush":
        events.append((END, 0, None))
    events.sort(key=lambda e: (e[0], e[1]))
    for time, _, unit in events:
        yield time, unit


def simulate(stream: Stream, window: WindowSpec, profile: Profile, t0: int) -> list[Trigger]:
    """Run SECRET's Scope/Content/Report/Tick for one concrete t0; return the report decisions."""
    if isinstance(window, CountWindowSpec):  # by position, over the stream by triple: oracle/s2r/counting.py
        return counting.simulate(stream, window, profile, t0)
    scope = Scope(window, t0, profile.boundary)
    units = tick_units(stream, profile)
    if not units:
        return []
    run = _Run(scope, profile, stream.times, units)
    for x, unit in _moments(units, run):
        run.close(x, unit)  # steps 1 and 2 of the module's docstring
        run.periodic(x, unit)  # step 3
        if unit is not None:  # step 4: the unit's elements arrive
            run.arrived = units[unit][2]
        run.content_change(x, unit)  # step 5
    return run.triggers


class _Run:
    """The state of one simulation: the windows not yet closed, what has arrived, what was reported."""

    def __init__(self, scope: Scope, profile: Profile, times, units) -> None:
        self.scope, self.profile, self.times = scope, profile, times
        self.last_k = scope.last_window(units[-1][0])
        policy = profile.report
        self.closes = "window-close" in policy
        self.changes = "content-change" in policy
        self.non_empty = "non-empty-content" in policy
        self.triggers: list[Trigger] = []
        self.arrived = 0
        self.next_open = 0  # lowest k not yet closed
        self.last_reported: tuple[int, int] | None = None
        self.last_seen_active: tuple[int, int] = EMPTY
        self.next_period = 1
        self.left = MAX_WINDOWS  # windows and instants this simulation may still visit one by one

    def spend(self, n: int, what: str) -> None:
        """Count ``n`` windows or instants visited one by one; past :data:`MAX_WINDOWS`, refuse the case."""
        self.left -= n
        if self.left < 0:
            w, t0 = self.scope.window, self.scope.t0
            span = (self.times[-1] - t0) // w.slide + 1
            within_limit(MAX_WINDOWS + 1, what, self.times[0], self.times[-1],
                         f"that is {span:,} windows of {w.range} ms sliding by {w.slide} ms from t0={t0} "
                         f"(report policy {'+'.join(sorted(self.profile.report))})")

    def clock_windows(self) -> Iterator[int]:
        """The windows whose closing instant is a moment of a time-driven tick.  When empty relations are
        reported at window close, every window's; otherwise only those an element could be in (an
        empty window's instant reports nothing, and the windows it would close are closed in closed form
        at the next moment)."""
        if self.closes and not self.non_empty:
            self.spend(self.last_k + 1, "windows reported (empty ones too)")
            yield from range(self.last_k + 1)
        else:
            yield from self.holding(0, self.last_k)

    def holding(self, lo: int, hi: int) -> Iterator[int]:
        """The windows lo..hi an element could be in, skipping those over a gap in closed form."""
        k = self.scope.next_holding(lo, self.times)
        while k is not None and k <= hi:
            self.spend(1, "windows holding data")
            yield k
            k = self.scope.next_holding(k + 1, self.times)

    def passes(self, content: tuple[int, int]) -> bool:
        if self.non_empty and content[0] == content[1]:
            return False
        return not (self.closes and self.changes and self.last_reported is not None
                    and content == self.last_reported)

    def active(self, now: float) -> int | None:
        k = self.next_open
        return k if k <= self.last_k and self.scope.started(k, now) else None

    def report(self, tau: int, k: int, content: tuple[int, int], why: str, unit: int | None) -> None:
        scope = self.scope
        self.triggers.append(Trigger(tau, k, scope.opening(k), scope.closing(k), content, why, unit))
        self.last_reported = content

    def close(self, x: float, unit: int | None) -> None:
        """Close the windows whose closing condition holds at ``x`` (in closed form: a gap of a billion
        windows costs one division) and report those the policy reports."""
        scope, profile = self.scope, self.profile
        lo = self.next_open
        hi = self.last_k if x == END else min(self.last_k, scope.closed_by(int(x), profile.close))
        if hi < lo:
            return
        self.next_open = hi + 1
        if not self.closes:
            return
        if profile.grain == "single-held":  # the latest that holds an element: windows exist only once filled
            held = None
            for held in self.holding(lo, hi):
                pass
            closed = iter([] if held is None else [held])
        elif profile.grain != "multiple":
            closed: Iterator[int] | range = iter([hi])
        elif self.non_empty:  # an empty window is not reported: only those an element could be in
            closed = self.holding(lo, hi)
        else:
            self.spend(hi - lo + 1, "windows reported (empty ones too)")
            closed = range(lo, hi + 1)
        for k in closed:
            content = scope.content(k, self.times, self.arrived)
            if self.passes(content):
                tau = _clock_time(scope, k, profile.close) if x == END else int(x)
                self.report(tau, k, content, "window-close" if x != END else "end-of-stream", unit)

    def periodic(self, x: float, unit: int | None) -> None:
        period = self.profile.periodic
        if not period or x == END:
            return
        while self.scope.t0 + self.next_period * period <= x:
            self.next_period += 1
            k = self.active(x)
            if k is not None:
                content = self.scope.content(k, self.times, self.arrived)
                if self.passes(content):
                    self.report(int(x), k, content, "periodic", unit)

    def content_change(self, x: float, unit: int | None) -> None:
        if not self.changes or self.closes or x == END:
            return
        k = self.active(x)
        if k is None:
            return
        content = self.scope.content(k, self.times, self.arrived)
        same = content == self.last_seen_active
        self.last_seen_active = content
        if not same and self.passes(content):
            self.report(int(x), k, content, "content-change", unit)
