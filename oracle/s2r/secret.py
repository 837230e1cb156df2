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
    times = stream.times
    units = tick_units(stream, profile)
    if not units:
        return []
    last_k = scope.last_window(units[-1][0])
    policy = profile.report
    closes = "window-close" in policy
    changes = "content-change" in policy
    non_empty = "non-empty-content" in policy

    triggers: list[Trigger] = []
    arrived = 0
    next_open = 0  # lowest k not yet closed
    last_reported: tuple[int, int] | None = None
    last_seen_active: tuple[int, int] = EMPTY
    next_period = 1

    def passes(content: tuple[int, int]) -> bool:
        if non_empty and content[0] == content[1]:
            return False
        if closes and changes and last_reported is not None and content == last_reported:
            return False
        return True

    def active(now: float) -> int | None:
        k = next_open
        if k <= last_k and scope.started(k, now):
            return k
        return None

    for x, unit in _moments(units, scope, profile, last_k):
        # 1. close
        closed = []
        while next_open <= last_k and (
                x == END or (scope.closing(next_open) <= x if profile.close == ">=" else scope.closing(next_open) < x)):
            closed.append(next_open)
            next_open += 1
        # 2. window-close reports
        if closes and closed:
            chosen = closed if profile.grain == "multiple" else closed[-1:]
            for k in chosen:
                content = scope.content(k, times, arrived)
                if passes(content):
                    tau = _clock_time(scope, k, profile.close) if x == END else int(x)
                    triggers.append(Trigger(tau, k, scope.opening(k), scope.closing(k), content,
                                            "window-close" if x != END else "end-of-stream", unit))
                    last_reported = content
        # 3. periodic reports
        if profile.periodic and x != END:
            while t0 + next_period * profile.periodic <= x:
                next_period += 1
                k = active(x)
                if k is not None:
                    content = scope.content(k, times, arrived)
                    if passes(content):
                        triggers.append(Trigger(int(x), k, scope.opening(k), scope.closing(k), content,
                                                "periodic", unit))
                        last_reported = content
        # 4. arrival
        if unit is not None:
            arrived = units[unit][2]
        # 5. content change as the trigger
        if changes and not closes and x != END:
            k = active(x)
            if k is not None:
                content = scope.content(k, times, arrived)
                same = content == last_seen_active
                last_seen_active = content
                if not same and passes(content):
                    triggers.append(Trigger(int(x), k, scope.opening(k), scope.closing(k), content,
                                            "content-change", unit))
                    last_reported = content
    return triggers
