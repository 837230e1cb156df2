"""YABench's generator: the kit's fast stream builder vs the plain term-by-term construction, side by side.

Run: python3 bench/generator.py [--stations 1000,10000]

Both build YABench's stream (30 s, interval 1 s, seed 1430236906) as the oracle's Stream of event
graphs; the plain one (tests/reference_generator.py) makes every term with rdflib and draws with
java.util.Random's next_int, as the generator did before; the fast one caches the constant terms, the
stations' IRIs and the readings' literals, inlines the random draws and pauses the cyclic GC.  The
streams are checked equal, element for element, in the same run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.streams.generate import stream  # noqa: E402
from oracle.model import triple_count  # noqa: E402
from tests.reference_generator import reference_stream  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", default="1000,10000")
    args = parser.parse_args()
    print(f"{'stations':>9} {'triples':>10} {'plain':>8} {'fast':>7} {'ratio':>6}  equal")
    for stations in (int(s) for s in args.stations.split(",")):
        started = time.perf_counter()
        plain = reference_stream(stations, 1000, 30000, 1430236906)
        plain_s = time.perf_counter() - started
        started = time.perf_counter()
        fast = stream("yabench", stations=stations, interval=1000, duration=30000, seed=1430236906)
        fast_s = time.perf_counter() - started
        triples = triple_count(fast.elements)
        print(f"{stations:>9} {triples:>10,} {plain_s:>7.2f}s {fast_s:>6.2f}s {plain_s / fast_s:>5.1f}x  "
              f"{fast.elements == plain.elements}")
        del plain, fast
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
