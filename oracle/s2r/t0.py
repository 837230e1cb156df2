"""Exhaustive t0 enumeration by breakpoints: one representative per class of equivalent t0 values.

Why it is exhaustive
--------------------
Fix the stream, the window (ω, β) and every profile parameter but t0.  The simulation in
:mod:`oracle.s2r.secret` looks at t0 only through comparisons of an element or unit timestamp ``t`` with a
window border or a clock instant, each of the form ``t0 + kβ + d`` with ``d ∈ {0, ω}`` (openings and
closings) or ``t0 + m·p`` (periodic borders), compared by ``<``, ``≤``, ``>`` or ``≥``; the close rule
``>`` and the convention ``(o,c]`` only turn a ``≤`` into a ``<`` (a shift by one millisecond).  Clock
instants are compared with each other too, but all of them move with t0, so their order never changes.

Each comparison ``t ⋈ t0 + v`` (v = kβ + d or m·p) has the same truth value for every integer t0 on
either side of ``t − v`` — it can flip only between ``t0 = t − v − 1`` and ``t − v`` or between
``t − v`` and ``t − v + 1``.  So, on every maximal run of consecutive integers that contains no point
``t − v`` or ``t − v + 1`` except as its first element, every comparison — and hence which windows
exist, what each holds, which unit or clock instant triggers each report and in what order — is the
same.  Window borders and clock report times then move rigidly with t0 (``o = t0 + kβ``), which
:meth:`oracle.s2r.secret.Trigger.structure` factors out.  One representative per run (its first integer)
therefore yields every distinct output structure in the range; the property test
``tests/test_t0_enumeration.py`` checks this against brute force over every millisecond.

An engine that *declares* its windows or clock report times pins t0 exactly: :func:`hinted` adds the
t0 values those declarations imply, so matching by declared borders stays exact.
"""

from __future__ import annotations

from bisect import bisect_right

from oracle.model import Stream, WindowSpec
from oracle.semantics import Profile


def default_range(stream: Stream, window: WindowSpec) -> tuple[int, int]:
    """Every t0 an engine could plausibly have used, at 1 ms resolution.

    CSRBench tried t0 from 0 to the window range in 1 s steps.  We take every millisecond from the
    earliest start that can matter to one window range after the first element: application time
    starts at 0, and a first window that ends before the first element only adds empty windows, so
    the lower end is max(0, t_first − ω + 1) (for streams that start at 0 that is CSRBench's 0).
    """
    first = stream.elements[0].t if stream.elements else 0
    lo = max(min(0, first), first - window.range + 1)
    return (lo, first + window.range)


def t0_range(stream: Stream, window: WindowSpec, profile: Profile) -> tuple[int, int]:
    if isinstance(profile.t0, int):
        return (profile.t0, profile.t0)
    return profile.t0_range or default_range(stream, window)


def breakpoints(stream: Stream, window: WindowSpec, profile: Profile) -> list[int]:
    """The first t0 of every class of equivalent t0 values in the profile's range, ascending."""
    lo, hi = t0_range(stream, window, profile)
    if lo == hi or not stream.elements:
        return [lo]
    starts = {lo}
    offsets = {0, window.range}
    times = sorted(set(stream.times))
    for t in times:
        for d in offsets:
            # values t − kβ − d that land in [lo − 1, hi], k ≥ 0
            base = t - d
            if base < lo - 1:
                continue
            k_min = max(0, -((hi - base) // window.slide))  # smallest k with base − kβ ≤ hi
            k = k_min
            while True:
                v = base - k * window.slide
                if v < lo - 1:
                    break
                for s in (v, v + 1):
                    if lo < s <= hi:
                        starts.add(s)
                k += 1
        if profile.periodic:
            m = 1
            while t - m * profile.periodic >= lo - 1:
                v = t - m * profile.periodic
                for s in (v, v + 1):
                    if lo < s <= hi:
                        starts.add(s)
                m += 1
    return sorted(starts)


def class_of(t0: int, starts: list[int]) -> int:
    """The representative (first t0) of the class holding ``t0``."""
    return starts[bisect_right(starts, t0) - 1]


def hinted(lo: int, hi: int, window: WindowSpec, openings: list[int]) -> list[int]:
    """t0 values in [lo, hi] that put a window opening exactly on one of ``openings``."""
    out = set()
    for o in openings:
        r = (o - lo) % window.slide
        t0 = lo + r
        while t0 <= hi:
            if t0 <= o:
                out.add(t0)
            t0 += window.slide
    return sorted(out)


def after_stream(stream: Stream, t0: int, by_position: bool = False) -> bool:
    """Whether a window sequence starting at ``t0`` lies wholly after the stream, so that no window can
    hold an element: such a t0 explains nothing (it would let silence pass for an answer).  A count
    window's t0 is a position (``by_position``): after the stream once it is past the last element."""
    if not stream.elements:
        return False
    if by_position:
        return t0 >= len(stream.elements)
    return t0 > stream.elements[-1].t


def nothing_held(stream: Stream, t0s: list[int], by_position: bool = False) -> str:
    """The words for a run in which every t0 tried lies after the stream."""
    last = (f"the stream's last position ({len(stream.elements) - 1})" if by_position
            else f"the stream's last element (t={stream.elements[-1].t})")
    return (f"t0={min(t0s)}" + (f" (and {len(t0s) - 1} more)" if len(t0s) > 1 else "")
            + f" lies after {last}: no window can hold data, so nothing can be compared; "
            "a t0 must let some window hold an element")
