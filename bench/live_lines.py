"""The Spark engine's live mode formats what is pushed as N-Triples text in Python, beside the feeder:
the kit's plain writer (every triple as a line, each term through rdflib) against the live engine's
columns (:class:`engines.spark.live.Columns`: the triples the query can match, by predicate, common terms
written inline), side by side in one run.

Run: python3 bench/live_lines.py [--stations 10000] [--seconds 5] [--repeat 5]

YABench-model stream (the weather filter's load); prints µs per pushed triple for each writer (best
of ``--repeat``), the triples each writes, and the ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.streams.generate import stream  # noqa: E402
from engines.spark import algebra_of  # noqa: E402
from engines.spark.live import Columns  # noqa: E402
from engines.spark.streaming import element_lines  # noqa: E402
from engines.spark.windowjob import matchable_predicates  # noqa: E402
from oracle.model import triple_count  # noqa: E402

QUERY = """PREFIX om-owl: <http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#>
PREFIX weather: <http://knoesis.wright.edu/ssw/ont/weather.owl#>
SELECT ?sensor ?obs WHERE { ?obs om-owl:observedProperty weather:_AirTemperature ; om-owl:procedure ?sensor ;
  om-owl:result ?res . ?res om-owl:floatValue ?value . FILTER(?value > 80) }"""


def best(fn, repeat: int) -> tuple[float, int]:
    times, n = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        n = len(fn())
        times.append(time.perf_counter() - started)
    return min(times), n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=10_000)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    elements = stream("yabench", stations=args.stations, interval=1000, duration=args.seconds * 1000,
                      seed=1430236906).elements
    triples = triple_count(elements)
    wanted = matchable_predicates(algebra_of(QUERY))
    plain, plain_lines = best(lambda: [line for e in elements for line in element_lines(e)], args.repeat)
    def columns():
        written = Columns(wanted)
        written.add(elements)
        return written.table()["s"]

    live, live_lines = best(columns, args.repeat)
    print(f"{triples:,} triples pushed ({args.stations:,} stations, {args.seconds} s)")
    print(f"{'writer':<34}{'µs/triple':>10}{'triples':>12}")
    print(f"{'every triple, terms each time':<34}{plain / triples * 1e6:>10.2f}{plain_lines:>12,}")
    print(f"{'matchable triples, as columns':<34}{live / triples * 1e6:>10.2f}{live_lines:>12,}")
    print(f"ratio: {plain / live:.1f}x faster; at 70,000 triples/s: {plain / triples * 7e4:.2f} vs "
          f"{live / triples * 7e4:.2f} s of one core per second")


if __name__ == "__main__":
    main()
