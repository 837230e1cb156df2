"""Spark engine throughput in replay mode vs a naive rdflib baseline, side by side in one run.

Run: python3 bench/spark_replay.py [--sizes 1e5,1e6,1e7] [--repeat 3] [--settle 20] [--baseline-windows 2]
                                   [--streaming 1e6] [--queries filter,aggregate,join]

Streams are YABench-model streams (30 s, 1 s interval; the number of stations sets the size) written
as YABench temporal N-Triples lines and read by Spark itself.  For each size and each query — a filter
(CSRBench Q1 shape), an aggregate (Q4) and a join across timestamps (Q6), 5 s tumbling windows — it
prints the Spark engine's wall time and triples/s (session already warm), then, after ``--settle``
untimed runs, the best of ``--repeat`` further runs of the same query on the same file (the JVM's JIT
warm: the steady state of a long-running engine; the best run, because the machine's noise only ever
adds time), and, for the baseline (rdflib evaluating each window separately on a graph built in Python),
the measured time of the first ``--baseline-windows`` windows extrapolated to all windows (labelled as
such), and the ratio.  After each size's queries, the floor: the best
warm time of reading the file's lines alone, and of reading and parsing them into terms, each into
Spark's no-op sink (no query's run can be faster than the second).  Peak memory is the high-water mark of resident memory (VmHWM) of the Spark JVM
and of this Python process.
"JIT s/run" is the CPU time the JVM's JIT compiler threads used per warm run: on 2 cores it competes
with the tasks, so a warm run during which it still compiles is not yet the steady state.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.load.resources import cpu_seconds  # noqa: E402
from conformance.streams.generate import write  # noqa: E402
from oracle.model import WindowSpec  # noqa: E402

PREFIX = ("PREFIX om-owl: <http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#>\n"
          "PREFIX weather: <http://knoesis.wright.edu/ssw/ont/weather.owl#>\n")
QUERIES = {
    "filter (Q1)": PREFIX + """SELECT ?sensor ?obs WHERE { ?obs om-owl:observedProperty weather:_AirTemperature ;
        om-owl:procedure ?sensor ; om-owl:result ?res . ?res om-owl:floatValue ?value . FILTER(?value > 80) }""",
    "aggregate (Q4)": PREFIX + """SELECT (AVG(?value) AS ?avg) WHERE { ?obs om-owl:observedProperty weather:_AirTemperature ;
        om-owl:result ?res . ?res om-owl:floatValue ?value . FILTER(?value > 80) }""",
    "join (Q6)": PREFIX + """SELECT ?sensor ?ob1 ?obs WHERE {
        ?ob1 om-owl:procedure ?sensor ; om-owl:result [ om-owl:floatValue ?value1 ] .
        ?obs om-owl:procedure ?sensor ; om-owl:result [ om-owl:floatValue ?value ] .
        FILTER(?value1 - ?value > 90) }""",
}
WINDOW = WindowSpec(5000, 5000)
CACHE = ROOT / ".rspconf-cache" / "bench"


def vm_hwm(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return -1


def jit_seconds(pid: int) -> float:
    """CPU seconds the JVM's JIT compiler threads have used so far (Linux), or NaN.  On 2 cores the
    compiler competes with the tasks: a run during which it still compiles is not the steady state."""
    total = 0.0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            stat = Path(f"/proc/{pid}/task/{task}/stat").read_text()
            if "Compiler" in stat.split("(", 1)[1].rsplit(")", 1)[0]:
                total += cpu_seconds(stat)
    except (OSError, IndexError, ValueError):
        return float("nan")
    return total


def stream_file(triples: int) -> tuple[Path, int]:
    stations = max(1, round(triples / (7 * 31)))
    path = CACHE / f"yabench-{stations}.txt"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        partial = path.with_suffix(".partial")
        with open(partial, "w", encoding="utf-8") as out:
            write("yabench", "yabench", out, stations=stations, interval=1000, duration=30000, seed=1430236906)
        partial.rename(path)  # an interrupted generation never passes for a whole stream
        print(f"  generated {path.name} in {time.perf_counter() - started:.0f} s", flush=True)
    with open(path, "rb") as fh:
        count = sum(1 for _ in fh)
    return path, count


def floor(spark, path: Path, repeats: int, settle: int) -> tuple[float, float]:
    """(read, read and parse): the best wall time of reading the file's lines alone, and of reading and
    parsing them into (s, p, o, t) terms (:func:`engines.spark.ingest.parse`), both into Spark's no-op
    sink, after ``settle`` untimed runs of each.  Every query's job does at least the second: the floor
    under the replay figure."""
    from engines.spark import ingest

    def best(frame_of) -> float:
        for _ in range(settle):
            frame_of().write.format("noop").mode("overwrite").save()
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            frame_of().write.format("noop").mode("overwrite").save()
            times.append(time.perf_counter() - started)
        return min(times)

    return (best(lambda: spark.read.text(str(path))),
            best(lambda: ingest.parse(spark.read.text(str(path)))))


def baseline(path: Path, query: str, windows: int) -> tuple[float, int]:
    """rdflib per window: seconds for the first ``windows`` windows, and how many windows there are."""
    from rdflib import Graph

    from conformance.streams.ntriples import parse_line

    by_window: dict[int, list] = {}
    last = 0
    with open(path, encoding="utf-8") as fh:  # keeps only the first windows' lines (10^7 would not fit)
        for line in fh:
            body, _, stamp = line.rstrip(" .\n").rpartition(" ")
            t = int(stamp.strip('"'))
            last = max(last, t)
            if t // WINDOW.range < windows:
                by_window.setdefault(t // WINDOW.range, []).append(body)
    total = last // WINDOW.range + 1
    started = time.perf_counter()
    for k in sorted(by_window)[:windows]:
        g = Graph()
        for body in by_window[k]:
            g.add(parse_line(body + " .", max_terms=3))
        list(g.query(query))
    return time.perf_counter() - started, total


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1e5,1e6")
    parser.add_argument("--baseline-windows", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="warm runs after the first; the best is printed")
    parser.add_argument("--settle", type=int, default=20,
                        help="untimed runs between the first and the warm runs, for the JIT to settle")
    parser.add_argument("--streaming", default="1e6", help="sizes for the streaming mode's sustained rate")
    parser.add_argument("--queries", default="filter,aggregate,join",
                        help="which queries to run in replay mode, by the first word of their name")
    args = parser.parse_args()
    wanted = args.queries.split(",")
    repeats = max(1, args.repeat)
    unknown = [w for w in wanted if not any(name.startswith(w + " ") for name in QUERIES)]
    if unknown:
        parser.error(f"--queries: no query named {', '.join(unknown)}; the queries are "
                     f"{', '.join(name.split()[0] for name in QUERIES)}")
    from engines.spark import SparkEngine
    from engines.spark.session import session

    engine = SparkEngine()
    spark = session()
    warm, _ = stream_file(1000)
    engine.run_file(str(warm), "yabench", QUERIES["filter (Q1)"], WINDOW, "rstream")  # JVM warm-up
    jvm_pid = spark.sparkContext._gateway.proc.pid if getattr(spark.sparkContext._gateway, "proc", None) else -1
    print(f"warm: the best of {args.repeat} runs of the same query on the same file after the first and "
          f"{args.settle} untimed ones")
    print(f"{'size':>10} {'query':<15} {'spark s':>8} {'spark triples/s':>16} {'warm s':>8} {'warm triples/s':>16} "
          f"{'JIT s/run':>9} {'rdflib s (est.)':>16} "
          f"{'ratio':>7} {'JVM peak MB':>11} {'py peak MB':>10}")
    for size in (int(float(s)) for s in args.sizes.split(",")):
        path, count = stream_file(size)
        for name, query in QUERIES.items():
            if name.split()[0] not in wanted:
                continue
            started = time.perf_counter()
            reports = engine.run_file(str(path), "yabench", query, WINDOW, "rstream")
            elapsed = time.perf_counter() - started
            for _ in range(args.settle):  # untimed: the JIT compiles the code paths this size uses
                engine.run_file(str(path), "yabench", query, WINDOW, "rstream")
            again = float("inf")
            compiling = jit_seconds(jvm_pid)
            for _ in range(repeats):  # the same again, JIT warm: the best run
                started = time.perf_counter()
                engine.run_file(str(path), "yabench", query, WINDOW, "rstream")
                again = min(again, time.perf_counter() - started)
            compiling = (jit_seconds(jvm_pid) - compiling) / repeats
            measured, windows = baseline(path, query, args.baseline_windows)
            estimate = measured / min(args.baseline_windows, windows) * windows
            print(f"{count:>10} {name:<15} {elapsed:>8.1f} {count / elapsed:>16,.0f} {again:>8.2f} "
                  f"{count / again:>16,.0f} {compiling:>9.2f} {estimate:>16.1f} "
                  f"{estimate / elapsed:>6.1f}x {vm_hwm(jvm_pid):>11} {vm_hwm(os.getpid()):>10}"
                  f"   ({len(reports)} windows)", flush=True)
        read, parsed = floor(spark, path, repeats, min(args.settle, 5))
        print(f"{count:>10} {'floor: read':<15} {'':>8} {'':>16} {read:>8.2f} {count / read:>16,.0f}"
              f"   (the text's lines into a no-op sink)", flush=True)
        print(f"{count:>10} {'floor: parse':<15} {'':>8} {'':>16} {parsed:>8.2f} {count / parsed:>16,.0f}"
              f"   (read and parsed into terms: under every query's warm run)", flush=True)
    if args.streaming:
        print(f"\nstreaming mode (one micro-batch per report interval, {WINDOW.slide // 1000} s of stream each):")
        print(f"{'size':>10} {'query':<15} {'wall s':>8} {'sustained triples/s':>20} {'real-time factor':>17}"
              f" {'again s':>8} {'again triples/s':>16}")
        for size in (int(float(s)) for s in args.streaming.split(",")):
            path, count = stream_file(size)
            for name in ("filter (Q1)", "aggregate (Q4)"):
                elapsed, windows = streaming_run(path, QUERIES[name])
                again, _ = streaming_run(path, QUERIES[name])  # the same again, JIT warm
                rate = count / elapsed
                print(f"{count:>10} {name:<15} {elapsed:>8.1f} {rate:>20,.0f} {30.0 / elapsed:>16.1f}x"
                      f" {again:>8.1f} {count / again:>16,.0f}"
                      f"   ({windows} windows; YABench big load = 70,000 triples/s)", flush=True)
    return 0


def streaming_run(path: Path, query: str) -> tuple[float, int]:
    """Wall time of the streaming mode over ``path`` split into one file per report interval."""
    import tempfile

    from rdflib.plugins.sparql import prepareQuery

    from engines.spark.session import session
    from engines.spark.streaming import run_folder

    with tempfile.TemporaryDirectory(prefix="rspconf-bench-") as folder:
        files: dict[int, object] = {}
        last = 0
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                t = int(line.rsplit('"', 2)[-2])
                last = max(last, t)
                key = t // WINDOW.slide
                if key not in files:
                    files[key] = open(Path(folder) / f"tick-{key:08d}.nt", "w", encoding="utf-8")
                files[key].write(line)
        for fh in files.values():
            fh.close()
        started = time.perf_counter()
        _, windows, _ = run_folder(session(), folder, WINDOW, prepareQuery(query).algebra, 0, last)
        return time.perf_counter() - started, len(windows)


if __name__ == "__main__":
    raise SystemExit(main())
