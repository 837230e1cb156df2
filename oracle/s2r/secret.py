"""SECRET's Report and Tick: when does which window report, with which content.

The simulation walks the stream as a sequence of *moments*.  A moment is the arrival of one tick unit
(tuple-driven: each element, or each timestamp's batch; batch-driven: each input batch) or, for a
time-driven tick, a clock instant at which a window closes or a period ends.  At each moment ``x``:

1. windows whose closing condition holds close (``c ≤ x`` when ``close`` is ``>=``, ``c < x`` for
   ``>``); the content they report is what arrived *before* the moment (SECRET's Content function
   depends on system time: a unit that closes a window is not in it);
2. with window-close in the policy, the closed windows report — all of them (grain ``multiple``) or
   only the latest (grain ``single``) — subject to the other conditions (non-empty content; content
   change against the last report);
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
from oracle.s2r.scope import Scope
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


def _moments(units, scope: Scope, profile: Profile, last_k: int) -> Iterator[tuple[float, int | None]]:
    """Yield (time, unit index or None) in processing order: clock instants before arrivals."""
    events: list[tuple[float, int, int | None]] = [(t, 1, i) for i, (t, _, _) in enumerate(units)]
    t_last = units[-1][0] if units else None
    if profile.tick == "time-driven" and t_last is not None:
        for k in range(last_k + 1):
            at = _clock_time(scope, k, profile.close)
            if at <= t_last or profile.end_of_stream == "flush":
                events.append((at, 0, None))
        if profile.periodic:
            m = 1
            while scope.t0 + m * profile.periodic <= t_last:
                events.append((scope.t0 + m * profile.periodic, 0, None))
                m += 1
    elif profile.end_of_stream == "flush" and t_last is not None:
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
    for x, unit in _moments(units, scope, profile, run.last_k):
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
        scope, profile = self.scope, self.profile
        closed = []
        while self.next_open <= self.last_k and (
                x == END or (scope.closing(self.next_open) <= x if profile.close == ">="
                             else scope.closing(self.next_open) < x)):
            closed.append(self.next_open)
            self.next_open += 1
        if not (self.closes and closed):
            return
        for k in (closed if profile.grain == "multiple" else closed[-1:]):
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
