"""The Spark engine's live design fed ten times YABench's big load: does it keep up, and does the one plan
for every window decide it?  (issue 33 §3)

Run: python3 bench/live_designs.py [--stations 10000] [--speed 10] [--seconds 60] [--runs 2]
                                   [--java-options OPTS ... --processes 2]

- ``engine``: the engine's live session (:mod:`engines.spark.live`): a formatting thread writes each
  window's matchable triples as Parquet, an answering thread runs a copy of one planned job per window.
- ``planned``: the same session with each window's job planned anew (``live.REUSE_PLAN = False``): Spark
  parses, analyses, optimises and plans the window's SQL every time, as the engine did up to stop 69.

Both are fed the weather filter's load (the YABench model, ``--seconds`` of stream) by the kit's feeder
(:class:`conformance.load.live.Feeder`) at ``--speed``, the designs alternated run by run in one process.
Per run: each window's delay (report arrival minus the window's close in wall-clock time), the delay's slope
(least squares, s per window, the flushed last window left out), the CPU of Python and of the JVM (the JVM's
by thread kind), and the cores they used over the feed.  A design keeps up when its delay does not grow:
slope about 0.  "faults k": the JVM's minor page faults over the run, in thousands: a page of memory the
process touches for the first time costs one, in the kernel (stop 72: the first run's stall was these).

``--java-options OPTS`` (repeatable; ``engine`` for the engine's own, :func:`engines.spark.session.java_options`):
each set of driver JVM options in fresh processes (``RSPCONF_SPARK_JAVA_OPTIONS``), ``--processes`` of each,
alternated, each process ``--runs`` runs: a JVM's first run is the one that differs.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.live_lines import QUERY  # noqa: E402
from bench.spark_replay import WINDOW  # noqa: E402
from conformance.load.live import Feeder, last_close  # noqa: E402
from conformance.load.resources import cpu_seconds, stat_fields, tree, usage  # noqa: E402
from conformance.streams import generate  # noqa: E402
from engines.contract import RunRequest  # noqa: E402
from engines.spark import SparkEngine  # noqa: E402
from engines.spark import live as spark_live  # noqa: E402
from oracle.model import triple_count  # noqa: E402

STREAM_IRI = "http://www.example.org/yabench/observations"


#: the JVM's threads by what they do (their names as /proc cuts them to 15 characters)
KINDS = (("jit", ("C1 CompilerThre", "C2 CompilerThre")), ("tasks", ("Executor task",)),
         ("gc", ("GC Thread", "VM Thread")))


def jvm_threads() -> dict[int, tuple[str, float]]:
    """Each JVM thread's kind (:data:`KINDS`, else "other") and CPU seconds so far, by thread id."""
    out = {}
    for pid in tree(os.getpid())[1:]:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                stat = (task / "stat").read_text()
            except OSError:
                continue
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            kind = next((k for k, prefixes in KINDS if name.startswith(prefixes)), "other")
            out[int(task.name)] = (kind, cpu_seconds(stat))
    return out


def jvm_faults() -> int:
    """The minor page faults of this process's descendants (the Spark JVM) so far."""
    out = 0
    for pid in tree(os.getpid())[1:]:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        out += int(stat_fields(stat)[7])  # minflt
    return out


def by_kind(before: dict, after: dict, jvm: float) -> dict[str, float]:
    """The JVM's CPU between two :func:`jvm_threads` readings by kind; "other" also holds what threads
    that ended in between used (the JVM's total ``jvm`` less the rest)."""
    out = dict.fromkeys([k for k, _ in KINDS], 0.0)
    for tid, (kind, used) in after.items():
        if kind in out:
            out[kind] += used - before.get(tid, (kind, 0.0))[1]
    out["other"] = jvm - sum(out.values())
    return out


def cpu() -> tuple[float, float]:
    """(Python, JVM) CPU seconds so far: this process, and its descendants (the Spark JVM)."""
    used = usage(os.getpid())
    if used is None:
        raise SystemExit("bench/live_designs.py reads CPU time from /proc: run it on Linux")
    own = time.process_time()
    return own, used[0] - own


def thread_cpu(thread) -> float:
    """A live Python thread's CPU seconds so far (0 once it has ended)."""
    try:
        return cpu_seconds(Path(f"/proc/self/task/{thread.native_id}/stat").read_text())
    except OSError:
        return 0.0


def feed(session_of, stream, speed: float) -> dict:
    """One run: a fresh session fed the stream at ``speed``; each window's delay, the CPU, the feed's wall."""
    arrived: list = []
    session = session_of(lambda report: arrived.append((report.window, time.monotonic())))
    until = last_close(WINDOW, stream.elements)
    gc.freeze()  # as the kit's live runs do (conformance/load/live.py)
    try:
        before, threads, faults = cpu(), jvm_threads(), jvm_faults()
        fed = time.thread_time()
        log = Feeder(stream.elements, speed=speed, heartbeat=0.1, until=until).run(session)
        # Python's CPU by thread, up to the feed's end (the threads end with the session)
        by_thread = {"feeder": time.thread_time() - fed, "format": thread_cpu(session.formatter),
                     "answer": thread_cpu(session.answerer)}
        session.end()
        after, faults = cpu(), jvm_faults() - faults
        threads = by_kind(threads, jvm_threads(), after[1] - before[1])
    finally:
        gc.unfreeze()
    delays = [at - log.wall(min(window[1], until)) for window, at in sorted(arrived, key=lambda r: r[0][0])]
    return {"delays": delays, "python": after[0] - before[0], "jvm": after[1] - before[1], "feed": log.wall_seconds,
            "late": log.summary()["lateness_ms"]["max"], "threads": threads, "by_thread": by_thread, "faults": faults}


def slope(delays: list[float]) -> float:
    """Least-squares growth of the delay, s per window, the last (flushed) window left out."""
    ys = delays[:-1]
    if len(ys) < 2:
        return 0.0
    mean_x, mean_y = (len(ys) - 1) / 2, sum(ys) / len(ys)
    return (sum((x - mean_x) * (y - mean_y) for x, y in enumerate(ys))
            / sum((x - mean_x) ** 2 for x in range(len(ys))))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=10_000)
    parser.add_argument("--speed", type=float, default=10.0)
    parser.add_argument("--seconds", type=int, default=60, help="of stream")
    parser.add_argument("--runs", type=int, default=2, help="per design, alternated")
    parser.add_argument("--design", action="append", choices=["engine", "planned"],
                        help="run only this design (repeatable; default: both)")
    parser.add_argument("--java-options", action="append", metavar="OPTS",
                        help="the driver JVM's options in fresh processes (repeatable; 'engine': the engine's own;"
                             " an option that starts with '-' as --java-options=OPTS)")
    parser.add_argument("--processes", type=int, default=2, help="per --java-options, alternated")
    parser.add_argument("--label", default="", help=argparse.SUPPRESS)  # a child's rows, for its parent
    args = parser.parse_args()
    if args.java_options:
        return by_process(args)
    stream = generate.stream("yabench", stations=args.stations, interval=1000, duration=args.seconds * 1000,
                             seed=1430236906)
    request = RunRequest(case_id="bench.live-designs", stream=stream, r2r=QUERY, query_text=QUERY, window=WINDOW,
                         r2s="rstream", stream_iri=STREAM_IRI)
    engine = SparkEngine(mode="streaming")

    def planned(emit):
        spark_live.REUSE_PLAN = False
        try:
            return engine.live(request, emit)
        finally:
            spark_live.REUSE_PLAN = True

    designs = {"engine": lambda emit: engine.live(request, emit), "planned": planned}
    designs = {name: design for name, design in designs.items() if name in (args.design or designs)}
    print(f"{args.stations:,} stations, {args.seconds} s of stream ({triple_count(stream.elements):,} triples) at "
          f"speed {args.speed:g}; a {WINDOW.range / 1000:g} s window lasts {WINDOW.range / 1000 / args.speed:.2f} s "
          f"of wall; {os.cpu_count()} cores")
    if not args.label:
        print(HEADER)
    for run in range(1, args.runs + 1):
        for name, session_of in designs.items():
            r = feed(session_of, stream, args.speed)
            cores = (r["python"] + r["jvm"]) / r["feed"]
            threads = " ".join(f"{r['threads'][k]:>5.2f}" for k in KIND_NAMES)
            delays = " ".join(f"{d:.2f}" for d in r["delays"])
            py = " ".join(f"{r['by_thread'][k]:>5.2f}" for k in ("feeder", "format", "answer"))
            print(f"{(args.label + '/' if args.label else '') + name:<10} {run:>3} {slope(r['delays']):>+14.3f} {r['python']:>7.2f} {py} "
                  f"{r['jvm']:>6.2f} {threads} {cores:>6.2f} {r['late']:>8.0f} {r['faults'] / 1000:>8.0f}  {delays}",
                  flush=True)
    if not args.label:
        footer()
    return 0


KIND_NAMES = [k for k, _ in KINDS] + ["other"]
HEADER = (f"{'design':<10} {'run':>3} {'slope s/window':>14} {'CPU py':>7} {'feed':>5} {'form':>5} {'answ':>5} {'JVM':>6} "
          + " ".join(f"{k:>5}" for k in KIND_NAMES) + f" {'cores':>6} {'late ms':>8} {'faults k':>8}  delay per window (s)")


def by_process(args) -> int:
    """Each ``--java-options`` set in ``--processes`` fresh processes, alternated; rows labelled by the set
    (a/engine, b/engine, ...: set a, design engine; the sets are printed first)."""
    sets = {chr(ord("a") + i): options for i, options in enumerate(args.java_options)}
    for label, options in sets.items():
        shown = "the engine's own (session.java_options)" if options == "engine" else options
        print(f"{label}: {shown}")
    print(HEADER, flush=True)
    passed = [f"--stations={args.stations}", f"--speed={args.speed}", f"--seconds={args.seconds}", f"--runs={args.runs}"]
    passed += [f"--design={d}" for d in args.design or ()]
    for _ in range(args.processes):
        for label, options in sets.items():
            env = {k: v for k, v in os.environ.items() if k != "RSPCONF_SPARK_JAVA_OPTIONS"}
            if options != "engine":
                env["RSPCONF_SPARK_JAVA_OPTIONS"] = options
            done = subprocess.run([sys.executable, __file__, *passed, f"--label={label}"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            rows = [line for line in done.stdout.splitlines() if line.startswith(label + "/")]
            print("\n".join(rows) if rows and done.returncode == 0 else f"{label}: the process failed ({done.returncode})",
                  flush=True)
    footer()
    return 0


def footer() -> None:
    print("CPU py = feed (the kit's feeder) + form (formatting and writing Parquet) + answ (the jobs' Python side and"
          " the reports), each up to the feed's end, + the flush after it")
    print("JVM = jit (the C1/C2 compiler threads) + tasks (executor tasks) + gc + other (mostly the threads that"
          " answer Python's calls, where each job's SQL is parsed, analysed, optimised and planned); cores: the CPU of"
          " the run (the feed, the flush after it) over the feed's wall time; faults k: the JVM's minor page faults")


if __name__ == "__main__":
    raise SystemExit(main())
