"""The oracle at engine scale (issue 18): its evaluators over every window of YABench-model streams of
10^5, 10^6 and 10^7 triples, side by side in one run, with peak memory per size.

Run: python3 bench/oracle_scale.py [--sizes 1e5,1e6,1e7] [--rdflib-windows 2] [--spark]
     python3 bench/oracle_scale.py --memory 1e5,1e6,1e7   (peak memory against stream length)

Each size runs in a child process of its own (so its peak memory, VmHWM, is its own). Streams: YABench's
generator (30 s, interval 1 s, seed 1430236906; stations set the size). Queries: CSRBench Q1 (filter)
and Q4 (aggregate) on 5 s tumbling windows from t0 = 0 (the oracle's cost per t0 class), and Q1 on 5 s
windows sliding by 1 s over four t0 classes (0, 250, 500, 750 ms: the oracle evaluates each distinct
content once). Columns:

- gen: building the stream (the harness's Stream of event graphs), reported apart;
- rdflib: the rdflib evaluator over every window (above 10^6, over the first --rdflib-windows windows,
  extrapolated: "est.");
- auto first: the default evaluator from nothing — the stream's facts, each element's text held on first
  use, every window loaded into a fresh Oxigraph store and queried (the end-to-end cost once generated);
- auto held: the same windows again with the stream already held (the R2R cache emptied);
- ox first / ox held: the same with Oxigraph alone (``--oracle-evaluator oxigraph``): the evaluator's own
  speed, which ``auto`` reaches only on windows above 20,000 triples (below, it checks with rdflib too);
- triples/s: stream triples (× t0 classes for the sliding case) over each time; ratio: rdflib / ox held;
- 2 threads: ox held again with ``--oracle-executor threads:2`` (every window prefetched on two threads:
  pyoxigraph lets go of the GIL while it parses and queries); spark ex: the same with
  ``--oracle-executor spark`` (local[2]; with --spark only);
- alone: windows that ``auto`` left to Oxigraph; the sliding case above 2·10^6 triples runs only with
  RSPCONF_BENCH_SLIDING_LARGE=1 (about 120 windows of 1.75 M triples at 10^7);
- --memory: Q1 on 5 s tumbling windows over streams of 1,000 stations (35,000 triples a window) whose
  duration sets their length, each size and mode in a child process: ``held`` as a case runs (the
  harness's Stream, the held text), ``streamed`` by oracle/expected/streamed.py (read once, the open windows held);
  "answers" is a digest of every window's answer, the same in both modes;
- with --spark, the Spark engine's replay of the same stream (YABench lines in a file parsed in the JVM;
  the best of 3 runs after one warm-up), for scale.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

QUERY_NAMES = {"filter": "filter (Q1)", "aggregate": "aggregate (Q4)"}


def vm_hwm_mb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return -1


def one_size(triples: int, rdflib_windows: int, spark: bool) -> list[dict]:
    """Every measurement at one size, in this process."""
    from spark_replay import QUERIES
    from workload import contents as window_contents
    from workload import yabench

    from oracle.model import WindowSpec, triple_count
    from oracle.r2r.executors import make
    from oracle.r2r.query import R2R

    stations = max(1, round(triples / (7 * 30)))
    started = time.perf_counter()
    s = yabench(stations)
    generated = time.perf_counter() - started
    count = triple_count(s.elements)
    rows = []
    sliding_large = os.environ.get("RSPCONF_BENCH_SLIDING_LARGE") == "1"
    executors = [("threads", make("threads:2"))] + ([("spark", make("spark"))] if spark else [])
    plans = [("filter", WindowSpec(5000, 5000), (0,)), ("aggregate", WindowSpec(5000, 5000), (0,)),
             ("filter, sliding 5/1 s", WindowSpec(5000, 1000), (0, 250, 500, 750))]
    if count > 2_000_000 and not sliding_large:
        plans = plans[:2]  # 120 windows of 1.75 M triples each at 10^7: run it with --sliding-large
    for name, window, t0s in plans:
        query_text = QUERIES[QUERY_NAMES[name.split(",")[0]]]
        contents = window_contents(s, window, t0s)
        judged = count * len(t0s)
        row = {"triples": count, "stations": stations, "query": name, "windows": len(contents), "gen": generated}
        for evaluator in ("oxigraph", "auto"):
            r2r = R2R(query_text, s, evaluator)
            started = time.perf_counter()
            answers = [r2r.evaluate(c) for c in contents]
            row[f"{evaluator}_first"] = time.perf_counter() - started
            row["oxigraph_alone"] = r2r.fast_windows
            r2r._cache.clear()
            started = time.perf_counter()
            again = [r2r.evaluate(c) for c in contents]
            row[f"{evaluator}_held"] = time.perf_counter() - started
            assert [a.keys for a in answers] == [b.keys for b in again]
            if evaluator == "oxigraph":  # the same, held, with --oracle-executor threads:2 (and spark)
                for name, executor in executors:
                    r2r._cache.clear()
                    r2r.executor = executor
                    started = time.perf_counter()
                    r2r.prefetch(contents)
                    spread = [r2r.evaluate(c) for c in contents]
                    row[f"ox_{name}"] = time.perf_counter() - started
                    r2r._prefetched.clear()
                    assert [a.keys for a in answers] == [b.keys for b in spread], name
        rdf = R2R(query_text, s, "rdflib")
        sample = contents if count <= 1_500_000 and len(contents) <= 12 else contents[:rdflib_windows]
        started = time.perf_counter()
        expected = [rdf.evaluate(c) for c in sample]
        seconds = time.perf_counter() - started
        sampled = sum(triple_count(s.elements[lo:hi]) for lo, hi in sample)
        inall = sum(triple_count(s.elements[lo:hi]) for lo, hi in contents)
        row["rdflib"] = seconds * inall / max(1, sampled)
        row["rdflib_est"] = len(sample) < len(contents)
        from oracle.r2r.solutions import same
        row["agree"] = all(same(e, a) for e, a in zip(expected, answers))
        row["judged"] = judged
        rows.append(row)
        del r2r, rdf, answers, again, expected
    if spark:
        rows += spark_rows(stations, count)
    for row in rows:
        row["peak_mb"] = vm_hwm_mb()
    return rows


MEMORY_STATIONS = 1000  # 7,000 triples a second: a 5 s window holds 35,000 triples, whatever the length


def memory_one(triples: int, mode: str) -> dict:
    """Peak memory against stream length at a fixed window size: Q1 on 5 s tumbling windows from t0 = 0
    over a stream whose duration sets its length, ``held`` (the harness's Stream and the held text, as a
    case runs) or ``streamed`` (oracle/expected/streamed.py: read once, only the open windows held)."""
    import hashlib

    from spark_replay import QUERIES

    from conformance.streams.generate import elements, stream
    from oracle.model import WindowSpec, triple_count
    from oracle.semantics import Profile

    query = QUERIES[QUERY_NAMES["filter"]]
    params = dict(stations=MEMORY_STATIONS, interval=1000, duration=round(triples / (7 * MEMORY_STATIONS)) * 1000,
                  seed=1430236906)
    window, digest, windows, count, largest = WindowSpec(5000, 5000), hashlib.sha256(), 0, 0, 0
    started = time.perf_counter()
    if mode == "held":
        from oracle.r2r.query import R2R
        from oracle.s2r.secret import simulate

        s = stream("yabench", **params)
        r2r = R2R(query, s, "oxigraph")
        for trigger in simulate(s, window, Profile(t0=0, tick="time-driven", end_of_stream="flush"), 0):
            digest.update(repr(sorted(r2r.evaluate(trigger.content).keys)).encode())
            lo, hi = trigger.content
            largest = max(largest, triple_count(s.elements[lo:hi]))
            windows += 1
        count = triple_count(s.elements)
    else:
        from oracle.expected.streamed import expected_windows

        counted = []

        def counting():
            for element in elements("yabench", **params):
                counted.append(len(element.triples))
                yield element
        for answer in expected_windows(query, counting(), window):
            digest.update(repr(sorted(answer.solutions.keys)).encode())
            largest = max(largest, 7 * answer.elements)
            windows += 1
            if len(counted) > 100_000:
                count += sum(counted)
                counted.clear()
        count += sum(counted)
    return {"triples": count, "mode": mode, "windows": windows, "largest": largest,
            "seconds": time.perf_counter() - started, "digest": digest.hexdigest()[:12], "peak_mb": vm_hwm_mb()}


def spark_rows(stations: int, count: int) -> list[dict]:
    """The Spark engine's replay of the same stream, as bench/spark_replay.py runs it."""
    from spark_replay import QUERIES, stream_file

    from engines.spark import SparkEngine
    from oracle.model import WindowSpec

    path, _ = stream_file(stations * 7 * 31)
    engine = SparkEngine()
    rows = []
    for name in ("filter", "aggregate"):
        query = QUERIES[QUERY_NAMES[name]]
        engine.run_file(str(path), "yabench", query, WindowSpec(5000, 5000), "rstream")
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            engine.run_file(str(path), "yabench", query, WindowSpec(5000, 5000), "rstream")
            best = min(best, time.perf_counter() - started)
        rows.append({"triples": count, "query": f"{name} (Spark engine replay)", "spark": best, "judged": count})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e5,1e6,1e7")
    parser.add_argument("--rdflib-windows", type=int, default=2)
    parser.add_argument("--spark", action="store_true")
    parser.add_argument("--memory", metavar="SIZES",
                        help="instead: peak memory against stream length (e.g. 1e6,1e7) at a fixed window, "
                             "the stream held vs streamed (oracle/expected/streamed.py)")
    parser.add_argument("--one", type=float, help=argparse.SUPPRESS)  # internal: one size, JSON on stdout
    parser.add_argument("--mode", help=argparse.SUPPRESS)  # internal, with --one and --memory
    args = parser.parse_args()
    if args.one and args.mode:
        print(json.dumps(memory_one(int(args.one), args.mode)))
        return 0
    if args.one:
        if args.spark:
            from engines.spark.session import session

            session()  # the Spark engine's JVM settings first; the Spark executor's getOrCreate reuses it
        print(json.dumps(one_size(int(args.one), args.rdflib_windows, args.spark)))
        return 0
    if args.memory:
        return memory_table(args.memory)
    print(f"{'triples':>10} {'query':<22} {'win':>4} {'gen':>6} {'rdflib':>10} {'ox first':>9} {'ox held':>8} "
          f"{'ox held/s':>10} {'ratio':>6} {'2 threads':>9} {'thr/s':>10} {'ratio':>6} {'spark ex':>8} "
          f"{'auto first':>10} {'auto held':>9} {'auto first/s':>12} {'alone':>5} {'agree':>5} {'peak MB':>7}")
    for size in args.sizes.split(","):
        command = [sys.executable, __file__, "--one", size, "--rdflib-windows", str(args.rdflib_windows)]
        if args.spark:
            command.append("--spark")
        done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        if done.returncode:
            print(done.stderr[-2000:], file=sys.stderr)
            return done.returncode
        for row in json.loads(done.stdout.strip().splitlines()[-1]):
            if "spark" in row:
                print(f"{row['triples']:>10,} {row['query']:<40} {row['spark']:>8.2f}s "
                      f"{row['judged'] / row['spark']:>10,.0f}/s {row['peak_mb']:>7}")
                continue
            est = " est." if row["rdflib_est"] else ""
            spark = f"{row['ox_spark']:>7.2f}s" if "ox_spark" in row else f"{'—':>8}"
            print(f"{row['triples']:>10,} {row['query']:<22} {row['windows']:>4} {row['gen']:>5.1f}s "
                  f"{row['rdflib']:>5.1f}s{est:<4} {row['oxigraph_first']:>8.2f}s {row['oxigraph_held']:>7.2f}s "
                  f"{row['judged'] / row['oxigraph_held']:>10,.0f} {row['rdflib'] / row['oxigraph_held']:>5.1f}x "
                  f"{row['ox_threads']:>8.2f}s {row['judged'] / row['ox_threads']:>10,.0f} "
                  f"{row['rdflib'] / row['ox_threads']:>5.1f}x {spark} "
                  f"{row['auto_first']:>9.2f}s {row['auto_held']:>8.2f}s {row['judged'] / row['auto_first']:>12,.0f} "
                  f"{row['oxigraph_alone']:>5} {str(row['agree']):>5} {row['peak_mb']:>7}", flush=True)
    return 0


def memory_table(sizes: str) -> int:
    print(f"{'triples':>11} {'mode':<9} {'windows':>7} {'largest window':>14} {'seconds':>8} {'triples/s':>10} "
          f"{'answers':<13} {'peak MB':>7}")
    for size in sizes.split(","):
        for mode in ("held", "streamed"):
            done = subprocess.run([sys.executable, __file__, "--one", size, "--mode", mode], capture_output=True,
                                  text=True)
            if done.returncode:
                print(done.stderr[-2000:], file=sys.stderr)
                return done.returncode
            row = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{row['triples']:>11,} {mode:<9} {row['windows']:>7} {row['largest']:>14,} {row['seconds']:>7.1f}s "
                  f"{row['triples'] / row['seconds']:>10,.0f} {row['digest']:<13} {row['peak_mb']:>7}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
