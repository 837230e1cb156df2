"""How fast the live feeder can go: YABench's big load fed in wall-clock time to an engine that does
nothing, at increasing speeds, side by side in one run.

Run: python3 bench/live_feeder.py [--stations 10000] [--speeds 1,2,4,8,16] [--duration 30s]

The stream is the YABench model (one reading of 7 triples per station per second; 10,000 stations is
YABench's big load: 70,000 triples/s in real time), built once before feeding (generation is not
timed).  For each speed it prints the triples per second the feeder delivered (stream triples over
wall-clock time), the timestamp groups pushed, and its lateness — how long after its due time each
group was pushed (median, p99, max).  The feeder keeps up at a speed when its lateness stays small
against the windows (5 s here): then the delays it measures are the engine's, not its own.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.load.live import Feeder  # noqa: E402
from conformance.streams import generate  # noqa: E402
from oracle.durations import parse_duration  # noqa: E402
from oracle.model import triple_count  # noqa: E402


class Null:
    """A live session that takes every push and does nothing (the feeder's own cost only)."""

    def push(self, t, elements):
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=10_000)
    parser.add_argument("--speeds", default="1,2,4,8,16")
    parser.add_argument("--duration", default="30s")
    args = parser.parse_args()
    began = time.monotonic()
    stream = generate.stream("yabench", stations=args.stations, interval=1000, duration=parse_duration(args.duration),
                             seed=1430236906)
    triples = triple_count(stream.elements)
    span = (stream.elements[-1].t - stream.elements[0].t) / 1000
    print(f"stream: {args.stations} stations, {triples:,} triples, {len(stream.elements):,} elements over "
          f"{span:.0f} s = {triples / span:,.0f} triples/s in real time (built in {time.monotonic() - began:.1f} s)")
    print(f"{'speed':>6} {'wall s':>7} {'triples/s':>11} {'groups':>7} {'late median ms':>15} {'p99 ms':>8} {'max ms':>8}")
    for speed in (float(x) for x in args.speeds.split(",")):
        log = Feeder(stream.elements, speed=speed, heartbeat=0.1).run(Null())
        s = log.summary()
        late = s["lateness_ms"]
        print(f"{speed:>6g} {s['wall_seconds']:>7.2f} {s['triples_per_second']:>11,.0f} {s['groups']:>7} "
              f"{late['median']:>15.3f} {late['p99']:>8.3f} {late['max']:>8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
