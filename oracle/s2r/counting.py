"""Count-based (physical) windows: Scope, Content and Report by position in the arrival order.

Units.  A count window counts *units*: stream elements (events) or triples — the profile's
``count_unit``; C-SPARQL's ``[TRIPLES N]`` counts triples, engines built on events count events.  To
answer both with one content range, the oracle judges a count-window case over the stream *by triple*
(:func:`by_triple`): one element per triple, in order, each carrying the index of the element it came
from as its ``batch``.  A unit is then one triple, or the run of triples of one original element.

Scope.  Window k holds the units at positions [t0 + kM, t0 + kM + N) (N the count, M the slide, t0 the
position of the unit that opens the first window).  Positions below 0 hold nothing: t0 = 0 gives full
windows from the first unit on; t0 = −(N − 1) gives CQL's ROWS N from the start (a window after each of
the first units, partial until N have arrived).  Every t0 in [−(N − 1), M − 1] gives a different set
of windows and any other t0 repeats one of them with windows cut off, so those are the candidates for
``t0: any``.

Report.  A window closes — and, under ``window-close``, reports — when its last unit arrives; its τ is
that unit's timestamp, and it holds exactly its N units, whatever other elements share that timestamp
(ties in time split at the count).  With ``end_of_stream: flush`` every window that has started and not
closed reports after the last unit, with the units it holds; with ``drop`` it does not.  Other report
policies (content change, periodic) are not defined for count windows here: a case that asks for them
is refused by name.  A window's borders, for an engine that declares them, are the timestamps of its
first and last unit.
"""

from __future__ import annotations

from itertools import groupby

from oracle.model import CountWindowSpec, Element, Stream
from oracle.s2r.trigger import Trigger
from oracle.semantics import Profile


def by_triple(stream: Stream) -> Stream:
    """The stream with one element per triple, each stamped and sourced as its element, with the
    element's index as its ``batch`` (what a count by element groups)."""
    out = []
    for i, e in enumerate(stream.elements):
        out.extend(Element(e.t, (triple,), i, e.source) for triple in e.triples)
    return Stream(tuple(out), stream.static)


def units(stream: Stream, profile: Profile) -> list[tuple[int, int, int]]:
    """(time, first index, end index) of each unit of a by-triple stream, in arrival order."""
    elements = stream.elements
    if profile.count_unit == "triple":
        return [(e.t, i, i + 1) for i, e in enumerate(elements)]
    out = []
    for _, group in groupby(range(len(elements)), key=lambda i: elements[i].batch):
        idx = list(group)
        out.append((elements[idx[0]].t, idx[0], idx[-1] + 1))
    return out


def candidates(window: CountWindowSpec, profile: Profile) -> list[int]:
    """The t0 values (positions of the first window's first unit) the oracle tries."""
    if isinstance(profile.t0, int):
        return [profile.t0]
    lo, hi = profile.t0_range or (-(window.count - 1), window.slide - 1)
    return list(range(lo, hi + 1))


def simulate(stream: Stream, window: CountWindowSpec, profile: Profile, t0: int) -> list:
    """The report decisions for one t0 (:class:`oracle.s2r.secret.Trigger`, content over the by-triple stream)."""
    if "window-close" not in profile.report or profile.periodic:
        raise ValueError("count windows report when they close: use report [window-close] (content-change and "
                         "periodic reports are not defined for count windows in this kit)")
    us = units(stream, profile)
    n, size, step = len(us), window.count, window.slide
    if window.slide_unit == "ms":
        return slide_as_time(us, size, step, t0)
    out = []
    k = max(0, -((t0 + size - 1) // step))  # the first window whose last position is ≥ 0
    while True:
        start = t0 + k * step
        last = start + size - 1
        if start >= n:
            break
        first = max(start, 0)
        if last < n:
            tau, reason, unit = us[last][0], "window-close", last
            while window.ties == "extend" and last + 1 < n and us[last + 1][0] == tau:
                last += 1  # the fault: the units tied with the last one come in too
        elif profile.end_of_stream == "flush":
            last, tau, reason, unit = n - 1, us[-1][0], "end-of-stream", None
        else:
            break
        out.append(Trigger(tau, k, us[first][0], us[last][0], (us[first][1], us[last][2]), reason, unit))
        k += 1
    return out


def slide_as_time(us: list[tuple[int, int, int]], size: int, step: int, t0: int) -> list:
    """The fault "count slide applied as time" (a hypothesis of the diagnosis, not a semantics): from the
    close of the first window on (its last unit's arrival), every ``step`` ms up to the last unit's time,
    a report of the last ``size`` units that have arrived by then, closing then.  No flush."""
    first_last = t0 + size - 1
    if not us or first_last >= len(us) or first_last < 0:
        return []
    out, k, tau, last = [], 0, us[first_last][0], first_last
    while tau <= us[-1][0]:
        while last + 1 < len(us) and us[last + 1][0] <= tau:
            last += 1
        first = max(0, last - size + 1)
        out.append(Trigger(tau, k, us[first][0], tau, (us[first][1], us[last][2]), "window-close", last))
        k, tau = k + 1, tau + step
    return out
