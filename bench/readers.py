"""Stream files read by the fast path (Oxigraph's parser, conformance/streams/oxparse.py) against the slow readers
(the strict line reader; rdflib for TriG), side by side in one run, on YABench's generator written in each
layout; the two streams are checked equal.

Run: python3 bench/readers.py [--stations 1000] [--duration 30]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    from conformance.streams import oxparse
    from conformance.streams import readers as streams
    from conformance.streams.generate import write

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=30, help="seconds")
    args = parser.parse_args()
    fast_quads = oxparse.quads
    print(f"{'layout':<8} {'triples':>9} {'MB':>6} {'slow':>8} {'fast':>8} {'fast triples/s':>15} {'ratio':>6} equal")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, suffix in (("yabench", "txt"), ("nquads", "nq"), ("trig", "trig")):
            path = Path(tmp) / f"stream.{suffix}"
            with open(path, "w", encoding="utf-8") as out:
                count = write("yabench", fmt, out, stations=args.stations, interval=1000,
                              duration=args.duration * 1000, seed=1430236906)
            timings = {}
            for name, quads in (("slow", lambda data, fmt: None), ("fast", fast_quads)):
                oxparse.quads = quads
                started = time.perf_counter()
                timings[name] = (streams.READERS[fmt](path), time.perf_counter() - started)
            oxparse.quads = fast_quads
            (slow, slow_s), (fast, fast_s) = timings["slow"], timings["fast"]
            print(f"{fmt:<8} {count:>9,} {path.stat().st_size / 1e6:>6.1f} {slow_s:>7.2f}s {fast_s:>7.2f}s "
                  f"{count / fast_s:>15,.0f} {slow_s / fast_s:>5.1f}x {slow == fast}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
