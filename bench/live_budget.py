"""The CPU a live run of the Spark engine needs at a given speed, part by part, against the cores there
are: can this machine keep up at all?

Run: python3 bench/live_budget.py [--stations 10000] [--speed 10] [--repeat 5] [--settle 6]

The stream is the weather filter's load (YABench model, 30 s, one reading of 7 triples per station per
second), built once.  Each part is measured alone, in one run:
- the kit's feeder pushing the stream at ``--speed`` to a session that does nothing (this process's CPU);
- the live engine's formatting of every pushed triple into lines (:class:`engines.spark.live.LineWriter`,
  best of ``--repeat``);
- Spark answering the whole stream at once from a file (replay, the engine's cheapest path: one job, no
  per-close overhead; the file cached by ``bench/spark_replay.py``), after ``--settle`` warm runs: the
  CPU of this process and the JVM from ``/proc``, lowest of ``--repeat``.
A live run does at least all three within the feed's wall time, so their CPU over that time is a lower
bound on the cores it needs; above the machine's cores, no design of the live engine keeps up.

Then, window by window, what the live engine itself does when it keeps up (``--windows``, since stop 51):
each 5 s window's pushes cut as one segment (:meth:`SparkLive._segment`: formatted, written, parsed,
assigned, checkpointed; one segment a window is the fewest cuts there can be) and the window answered by
its own close (:meth:`SparkLive._answer`), CPU and wall, best of ``--repeat``.  To keep up at ``--speed``
each window's work must fit in the window's wall time (range / speed): the CPU per window over that time
is the cores the engine needs, beside the feeder's share.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from itertools import groupby
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.live_feeder import Null  # noqa: E402
from bench.live_lines import QUERY  # noqa: E402
from bench.spark_replay import WINDOW, stream_file  # noqa: E402
from conformance.load.live import Feeder  # noqa: E402
from conformance.load.resources import usage  # noqa: E402
from conformance.streams import generate  # noqa: E402
from engines.contract import RunRequest  # noqa: E402
from engines.spark import SparkEngine, algebra_of  # noqa: E402
from engines.spark.live import LineWriter  # noqa: E402
from engines.spark.windowjob import matchable_predicates, window_instances  # noqa: E402
from oracle.model import triple_count  # noqa: E402

DURATION = 30_000  # ms of stream


def cpu() -> float:
    """CPU seconds used so far by this process and its children (the Spark JVM, once started)."""
    used = usage(os.getpid())
    if used is None:
        raise SystemExit("bench/live_budget.py reads CPU time from /proc: run it on Linux")
    return used[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=10_000)
    parser.add_argument("--speed", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--settle", type=int, default=6)
    parser.add_argument("--windows", action=argparse.BooleanOptionalAction, default=True,
                        help="also measure the live engine window by window (its warm-up takes up to 30 s)")
    args = parser.parse_args()
    stream = generate.stream("yabench", stations=args.stations, interval=1000, duration=DURATION, seed=1430236906)
    elements = stream.elements
    triples = triple_count(elements)
    print(f"{args.stations:,} stations: {triples:,} triples over 30 s of stream, fed at speed {args.speed:g}")

    before, started = cpu(), time.monotonic()
    log = Feeder(elements, speed=args.speed, heartbeat=0.1).run(Null())
    feeder, feed_wall = cpu() - before, time.monotonic() - started
    late = log.summary()["lateness_ms"]["max"]

    writer = LineWriter(matchable_predicates(algebra_of(QUERY)))
    formatting = float("inf")
    for _ in range(args.repeat):
        before = time.process_time()
        writer.lines(elements)
        formatting = min(formatting, time.process_time() - before)

    engine = SparkEngine()
    path, _ = stream_file(args.stations * 7 * 31)  # the same stream as a file (bench/spark_replay.py's cache)
    for _ in range(args.settle):
        engine.run_file(str(path), "yabench", QUERY, WINDOW, "rstream")
    spark_cpu, spark_wall = float("inf"), float("inf")
    for _ in range(args.repeat):
        before, began = cpu(), time.monotonic()
        engine.run_file(str(path), "yabench", QUERY, WINDOW, "rstream")
        spark_wall = min(spark_wall, time.monotonic() - began)
        spark_cpu = min(spark_cpu, cpu() - before)

    total = feeder + formatting + spark_cpu
    cores = os.cpu_count() or 1
    print(f"{'part':<52} {'CPU s':>7}")
    print(f"{'the feeder (a session that does nothing)':<52} {feeder:>7.2f}   (pushed at most {late:.0f} ms late)")
    print(f"{'the live engine formatting the pushed triples':<52} {formatting:>7.2f}")
    print(f"{'Spark answering the whole stream from a file':<52} {spark_cpu:>7.2f}   ({spark_wall:.2f} s wall, best)")
    print(f"{'together':<52} {total:>7.2f}")
    print(f"the feed lasts {feed_wall:.2f} s: at least {total / feed_wall:.2f} cores needed, {cores} here"
          f" ({'cannot keep up' if total / feed_wall > cores else 'may keep up'}); without the formatting "
          f"{(total - formatting) / feed_wall:.2f}")
    if args.windows:
        per_window(stream, args, feeder / feed_wall)
    return 0


def per_window(stream, args, feeder_cores: float) -> None:
    """The live engine's own steps, one cut and one close a window (see the module's docstring)."""
    request = RunRequest(case_id="bench.live-budget", stream=stream, r2r=QUERY, query_text=QUERY, window=WINDOW,
                         r2s="rstream", stream_iri="http://www.example.org/yabench/observations")
    reports: list = []
    live = SparkEngine(mode="streaming").live(request, reports.append)  # warms the close's job up
    try:
        pushes = [(t, list(group)) for t, group in groupby(stream.elements, key=lambda e: e.t)]  # as the feeder groups
        windows = window_instances(WINDOW, live.t0, pushes[-1][0])
        per = {k: [p for p in pushes if o <= p[0] < c]  # the stream's whole windows, each its pushes
               for k, (o, c) in enumerate(windows) if c <= DURATION}
        best: dict[int, tuple] = {}
        for _ in range(args.repeat):
            for k, mine in per.items():
                live.segments, live.reported = [], k
                before, began = cpu(), time.monotonic()
                live._segment(mine, eager=True)
                cut_cpu, cut_wall = cpu() - before, time.monotonic() - began
                before, began = cpu(), time.monotonic()
                live._answer(windows, k + 1)  # reports window k, releases its segment
                answer_cpu, answer_wall = cpu() - before, time.monotonic() - began
                row = (cut_cpu + answer_cpu, cut_cpu, cut_wall, answer_cpu, answer_wall,
                       triple_count(e for _, els in mine for e in els))
                best[k] = min(best.get(k, row), row)
    finally:
        live.end()
    span = WINDOW.range / 1000 / args.speed
    print(f"\nwindow by window, as the live engine does it (best of {args.repeat}); at speed {args.speed:g} a "
          f"{WINDOW.range / 1000:g} s window lasts {span:.2f} s of wall")
    print(f"{'window':>6} {'pushed':>9} {'cut CPU s':>10} {'(wall)':>7} {'close CPU s':>12} {'(wall)':>7} {'cores':>6}")
    for k, (both, cut_cpu, cut_wall, answer_cpu, answer_wall, pushed) in sorted(best.items()):
        print(f"{k:>6} {pushed:>9,} {cut_cpu:>10.2f} {cut_wall:>7.2f} {answer_cpu:>12.2f} {answer_wall:>7.2f} "
              f"{both / span + feeder_cores:>6.2f}")
    rows = sorted(best.values())
    median = rows[len(rows) // 2]
    print(f"median window: {median[0]:.2f} s of CPU and {median[2] + median[4]:.2f} s of wall for one window's "
          f"cut and close, against {span:.2f} s: with the feeder's {feeder_cores:.2f}, at least "
          f"{median[0] / span + feeder_cores:.2f} cores, {os.cpu_count() or 1} here; one after the other, "
          f"{(median[2] + median[4]) / span:.2f}x the window's wall time")


if __name__ == "__main__":
    raise SystemExit(main())
