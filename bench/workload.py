"""The workload the oracle benchmarks share: YABench's stream (30 s, interval 1 s, seed 1430236906) at a
number of stations, and the distinct window contents of 5 s windows over it, as the oracle asks for them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def yabench(stations: int):
    """YABench's stream: 30 s at one reading per station a second (about 210 triples a station)."""
    from conformance.streams.generate import stream

    return stream("yabench", stations=stations, interval=1000, duration=30000, seed=1430236906)


def contents(s, window, t0s=(0,)) -> list[tuple[int, int]]:
    """The distinct contents (element index ranges) of ``window``'s instances from each t0, in the order
    the oracle meets them (time-driven, flushed at the end, as the profiles the kit judges)."""
    from oracle.s2r.secret import simulate
    from oracle.semantics import Profile

    profile = Profile(t0=0, tick="time-driven", end_of_stream="flush")
    return list(dict.fromkeys(trigger.content for t0 in t0s for trigger in simulate(s, window, profile, t0)))
