"""Two live designs of the Spark engine fed the same load side by side: does either keep up? (issue 33 §3)

Run: python3 bench/live_designs.py [--stations 10000] [--speed 10] [--seconds 60] [--runs 2]
(the ``pipelined`` design needs ``pip install pyarrow``; without it only the engine runs)

- ``engine``: the engine's own live session (:mod:`engines.spark.live`): Spark jobs cut the pushes into
  checkpointed segments ahead of each close, then one job a close answers the window.
- ``pipelined``: the candidate stop 69 measured against it, kept here as the evidence: no Spark job before
  the close and no text to parse.  One thread formats each window's matchable triples
  (:class:`~engines.spark.live.LineWriter`) and writes them as one Parquet file, while a second answers the
  windows already closed, one job each over its file in one partition (``coalesce(1)``: no exchange).  Its
  job is warmed over the stream's first window (it reads ahead; the engine does not).  Tumbling windows only.

Both are fed the weather filter's load (the YABench model, ``--seconds`` of stream) by the kit's feeder
(:class:`conformance.load.live.Feeder`) at ``--speed``, the designs alternated run by run in one process.
Per run: each window's delay (report arrival minus the window's close in wall-clock time), the delay's slope
(least squares, s per window, the flushed last window left out), the CPU of Python and of the JVM, and the
cores they used over the feed.  A design keeps up when its delay does not grow: slope about 0.
"""

from __future__ import annotations

import argparse
import gc
import os
import queue
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.live_lines import QUERY  # noqa: E402
from bench.spark_replay import WINDOW  # noqa: E402
from conformance.load.live import Feeder, last_close  # noqa: E402
from conformance.load.resources import cpu_seconds, tree, usage  # noqa: E402
from conformance.streams import generate  # noqa: E402
from engines.contract import RunRequest  # noqa: E402
from engines.spark import SparkEngine, algebra_of  # noqa: E402
from engines.spark.live import LineWriter  # noqa: E402
from engines.spark.reporter import NONE, Reporter, template_of  # noqa: E402
from engines.spark.windowjob import (  # noqa: E402
    K,
    answers,
    latest_instance,
    matchable_predicates,
    solve,
    static_frame,
)
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


class Pipelined:
    """The candidate live session (see the module's docstring): ``push`` queues; a formatting thread writes
    one Parquet file per window as time passes its close; an answering thread runs one job per file."""

    def __init__(self, engine: SparkEngine, request: RunRequest, emit, folder: Path, warm_up: int):
        import pyarrow as pa
        import pyarrow.parquet as pq
        from pyspark.sql.types import LongType, StringType, StructField, StructType

        from engines.spark.session import session

        if request.window.range != request.window.slide:
            raise ValueError("the pipelined design takes tumbling windows only")
        self.pa, self.pq = pa, pq
        self.arrow = pa.schema([("s", pa.string()), ("p", pa.string()), ("o", pa.string()), ("t", pa.int64())])
        self.schema = StructType([StructField(n, StringType()) for n in "spo"] + [StructField("t", LongType())])
        self.algebra = algebra_of(request.r2r)
        self.spark = session(engine.master)
        self.t0, self.slide, self.emit, self.folder = engine.t0, request.window.slide, emit, folder
        self.writer = LineWriter(matchable_predicates(self.algebra))
        self.reporter = Reporter(request.r2s, False, template_of(self.algebra))
        self.static = static_frame(self.spark, request.stream, self.algebra)
        first = [e for e in request.stream.elements if e.t < self.t0 + self.slide]
        warm = self._write("warm-up", self.writer.rows(first))
        for _ in range(warm_up):
            self._job(0, warm)
        self.cond = threading.Condition()
        self.pending: list = []
        self.now: int | None = None
        self.ended = False
        self.closed: queue.Queue = queue.Queue()
        self.threads = [threading.Thread(target=f, daemon=True) for f in (self._format, self._answer)]
        for thread in self.threads:
            thread.start()

    def push(self, t: int, elements: list) -> None:
        with self.cond:
            if elements:
                self.pending.append((t, elements))
            self.now = t if self.now is None else max(self.now, t)
            self.cond.notify()

    def end(self) -> None:
        with self.cond:
            self.ended = True
            self.cond.notify()
        for thread in self.threads:
            thread.join()

    def _write(self, name: str, rows: list) -> str:
        path = str(self.folder / f"{name}.parquet")
        columns = [list(c) for c in zip(*rows)] if rows else [[], [], [], []]
        self.pq.write_table(self.pa.table(columns, schema=self.arrow), path, compression="none")
        return path

    def _format(self) -> None:
        try:
            self._windows()
        finally:  # the answering thread stops too, whatever happened here
            self.closed.put(None)

    def _windows(self) -> None:
        k, rows = 0, []

        def closes(t):  # time t has passed the close of window k
            return t >= self.t0 + (k + 1) * self.slide

        while True:
            with self.cond:
                while not (self.pending or self.ended or (self.now is not None and closes(self.now))):
                    self.cond.wait()
                pushes, self.pending, now, ended = self.pending, [], self.now, self.ended
            for t, elements in pushes:
                while closes(t):
                    self.closed.put((k, self._write(f"window-{k}", rows)))
                    k, rows = k + 1, []
                rows += self.writer.rows(elements)
            while now is not None and closes(now):
                self.closed.put((k, self._write(f"window-{k}", rows)))
                k, rows = k + 1, []
            if ended:
                if rows:
                    self.closed.put((k, self._write(f"window-{k}", rows)))
                return

    def _answer(self) -> None:
        while (item := self.closed.get()) is not None:
            self.emit(self._job(*item))
            Path(item[1]).unlink()

    def _job(self, k: int, path: str):
        index = f"{latest_instance(self.t0, self.slide)} AS {K}"  # a tumbling window: the triple's one
        frame = self.spark.read.schema(self.schema).parquet(path).selectExpr("s", "p", "o", index).coalesce(1)
        form, rows, held = solve(self.spark, frame, self.static, self.algebra, [k])
        opening = self.t0 + k * self.slide
        return self.reporter.report(form, opening, opening + self.slide, answers(rows, held, [k]).get(k, NONE))


def feed(session_of, stream, speed: float) -> dict:
    """One run: a fresh session fed the stream at ``speed``; each window's delay, the CPU, the feed's wall."""
    arrived: list = []
    session = session_of(lambda report: arrived.append((report.window, time.monotonic())))
    until = last_close(WINDOW, stream.elements)
    gc.freeze()  # as the kit's live runs do (conformance/load/live.py)
    try:
        before, threads = cpu(), jvm_threads()
        log = Feeder(stream.elements, speed=speed, heartbeat=0.1, until=until).run(session)
        session.end()
        after = cpu()
        threads = by_kind(threads, jvm_threads(), after[1] - before[1])
    finally:
        gc.unfreeze()
    delays = [at - log.wall(min(window[1], until)) for window, at in sorted(arrived, key=lambda r: r[0][0])]
    return {"delays": delays, "python": after[0] - before[0], "jvm": after[1] - before[1], "feed": log.wall_seconds,
            "late": log.summary()["lateness_ms"]["max"], "threads": threads}


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
    parser.add_argument("--warm-up", type=int, default=100,
                        help="the pipelined job's runs before its first run (the engine's own warm-up: 120 or 30 s)")
    args = parser.parse_args()
    stream = generate.stream("yabench", stations=args.stations, interval=1000, duration=args.seconds * 1000,
                             seed=1430236906)
    request = RunRequest(case_id="bench.live-designs", stream=stream, r2r=QUERY, query_text=QUERY, window=WINDOW,
                         r2s="rstream", stream_iri=STREAM_IRI)
    engine = SparkEngine(mode="streaming")
    folder = Path(tempfile.mkdtemp(prefix="rspconf-live-designs-"))
    designs = {"engine": lambda emit: engine.live(request, emit)}
    try:
        import pyarrow  # noqa: F401
        warm = {"runs": args.warm_up}  # once, before its first run
        designs["pipelined"] = lambda emit: Pipelined(engine, request, emit, folder, warm.pop("runs", 0))
    except ImportError:
        print("pipelined: left out (it needs pyarrow: pip install pyarrow)")
    print(f"{args.stations:,} stations, {args.seconds} s of stream ({triple_count(stream.elements):,} triples) at "
          f"speed {args.speed:g}; a {WINDOW.range / 1000:g} s window lasts {WINDOW.range / 1000 / args.speed:.2f} s "
          f"of wall; {os.cpu_count()} cores")
    kinds = [k for k, _ in KINDS] + ["other"]
    print(f"{'design':<10} {'run':>3} {'slope s/window':>14} {'CPU py':>7} {'JVM':>6} "
          + " ".join(f"{k:>5}" for k in kinds) + f" {'cores':>6} {'late ms':>8}  delay per window (s)")
    try:
        for run in range(1, args.runs + 1):
            for name, session_of in designs.items():
                r = feed(session_of, stream, args.speed)
                cores = (r["python"] + r["jvm"]) / r["feed"]
                threads = " ".join(f"{r['threads'][k]:>5.2f}" for k in kinds)
                delays = " ".join(f"{d:.2f}" for d in r["delays"])
                print(f"{name:<10} {run:>3} {slope(r['delays']):>+14.3f} {r['python']:>7.2f} {r['jvm']:>6.2f} "
                      f"{threads} {cores:>6.2f} {r['late']:>8.0f}  {delays}", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("JVM = jit (the C1/C2 compiler threads) + tasks (executor tasks) + gc + other (mostly the threads that"
          " answer Python's calls, where each job's SQL is parsed, analysed, optimised and planned); cores: the CPU of"
          " the run (the feed, the flush after it) over the feed's wall time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
