"""The oracle at engine scale (issue 18): its evaluators over every window of YABench-model streams of
10^5, 10^6 and 10^7 triples, side by side in one run, with peak memory per size.

Run: python3 bench/oracle_scale.py [--sizes 1e5,1e6,1e7] [--rdflib-windows 2] [--spark]

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
- alone: windows that ``auto`` left to Oxigraph; the sliding case above 2·10^6 triples runs only with
  RSPCONF_BENCH_SLIDING_LARGE=1 (about 120 windows of 1.75 M triples at 10^7);
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
    from conformance.generate import stream
    from oracle.model import Profile, WindowSpec
    from oracle.r2r import R2R
    from oracle.secret import simulate
    from spark_replay import QUERIES

    stations = max(1, round(triples / (7 * 30)))
    started = time.perf_counter()
    s = stream("yabench", stations=stations, interval=1000, duration=30000, seed=1430236906)
    generated = time.perf_counter() - started
    count = sum(len(e.triples) for e in s.elements)
    rows = []
    sliding_large = os.environ.get("RSPCONF_BENCH_SLIDING_LARGE") == "1"
    profile = Profile(t0=0, tick="time-driven", end_of_stream="flush")
    plans = [("filter", WindowSpec(5000, 5000), (0,)), ("aggregate", WindowSpec(5000, 5000), (0,)),
             ("filter, sliding 5/1 s", WindowSpec(5000, 1000), (0, 250, 500, 750))]
    if count > 2_000_000 and not sliding_large:
        plans = plans[:2]  # 120 windows of 1.75 M triples each at 10^7: run it with --sliding-large
    for name, window, t0s in plans:
        query_text = QUERIES[QUERY_NAMES[name.split(",")[0]]]
        contents = list(dict.fromkeys(trig.content for t0 in t0s for trig in simulate(s, window, profile, t0)))
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
        rdf = R2R(query_text, s, "rdflib")
        sample = contents if count <= 1_500_000 and len(contents) <= 12 else contents[:rdflib_windows]
        started = time.perf_counter()
        expected = [rdf.evaluate(c) for c in sample]
        seconds = time.perf_counter() - started
        sampled = sum(len(e.triples) for c in sample for e in s.elements[c[0]:c[1]])
        inall = sum(len(e.triples) for c in contents for e in s.elements[c[0]:c[1]])
        row["rdflib"] = seconds * inall / max(1, sampled)
        row["rdflib_est"] = len(sample) < len(contents)
        from oracle.r2r import same
        row["agree"] = all(same(e, a) for e, a in zip(expected, answers))
        row["judged"] = judged
        rows.append(row)
        del r2r, rdf, answers, again, expected
    if spark:
        rows += spark_rows(stations, count)
    for row in rows:
        row["peak_mb"] = vm_hwm_mb()
    return rows


def spark_rows(stations: int, count: int) -> list[dict]:
    """The Spark engine's replay of the same stream, as bench/spark_replay.py runs it."""
    from engines.spark import SparkEngine
    from oracle.model import WindowSpec
    from spark_replay import QUERIES, stream_file

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
    parser.add_argument("--one", type=float, help=argparse.SUPPRESS)  # internal: one size, JSON on stdout
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_size(int(args.one), args.rdflib_windows, args.spark)))
        return 0
    print(f"{'triples':>10} {'query':<22} {'win':>4} {'gen':>6} {'rdflib':>10} {'ox first':>9} {'ox held':>8} "
          f"{'ox held/s':>10} {'ratio':>6} {'auto first':>10} {'auto held':>9} {'auto first/s':>12} "
          f"{'alone':>5} {'agree':>5} {'peak MB':>7}")
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
            print(f"{row['triples']:>10,} {row['query']:<22} {row['windows']:>4} {row['gen']:>5.1f}s "
                  f"{row['rdflib']:>5.1f}s{est:<4} {row['oxigraph_first']:>8.2f}s {row['oxigraph_held']:>7.2f}s "
                  f"{row['judged'] / row['oxigraph_held']:>10,.0f} {row['rdflib'] / row['oxigraph_held']:>5.1f}x "
                  f"{row['auto_first']:>9.2f}s {row['auto_held']:>8.2f}s {row['judged'] / row['auto_first']:>12,.0f} "
                  f"{row['oxigraph_alone']:>5} {str(row['agree']):>5} {row['peak_mb']:>7}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
