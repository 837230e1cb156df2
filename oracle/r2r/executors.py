"""Where the oracle's window evaluations run: in process one after another (the default), in process on
several threads (pyoxigraph lets go of the GIL while it parses and queries, so two windows load and run
at once on two cores), or spread over Spark tasks when one process is not enough (a nightly stress run
over 10^8 triples).

The Spark executor is the oracle's own code path, not the Spark engine's: elements are assigned to
window contents in Spark (an element goes to every content whose index range holds it), and each task
loads one window's held N-Triples text into pyoxigraph in the Python worker and runs the query there
(oracle/r2r/evaluators.py :func:`answer`).  It shares no code with ``engines/`` (tests/test_independence.py).
Answers come back as plain tuples and go through the same conversion as in process, so the verdicts are
the in-process executor's.
"""

from __future__ import annotations

import atexit
import bisect
import os
import shutil
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from oracle.r2r.evaluators import answer
from oracle.r2r.held import fill


class ExecutorError(ValueError):
    """The executor cannot run here or cannot hold this stream; the message says what to do."""


def make(name: str | None):
    """The executor named by ``--oracle-executor``: ``local`` (None: in process), ``threads`` or
    ``threads:<n>`` (in process, n threads, default the number of cores), ``spark`` (local[2]) or
    ``spark:<master>`` (e.g. spark://127.0.0.1:7077)."""
    if name in (None, "", "local"):
        return None
    if name == "threads" or name.startswith("threads:"):
        count = name.partition(":")[2] or str(os.cpu_count() or 2)
        if not count.isdigit() or int(count) < 1:
            raise ExecutorError(f"--oracle-executor {name!r}: give a thread count of 1 or more, like threads:2")
        return ThreadExecutor(int(count))
    if name == "spark" or name.startswith("spark:"):
        return SparkExecutor(name.partition(":")[2] or "local[2]")
    raise ExecutorError(f"--oracle-executor {name!r}: use local, threads[:<n>], spark or spark:<master URL>")


class ThreadExecutor:
    """Window contents evaluated by Oxigraph on ``workers`` threads of this process.  Each element is
    held (oracle/r2r/held.py) in the calling thread first, so the threads only join bytes, parse and query."""

    def __init__(self, workers: int = 2):
        self.workers = workers

    def answers(self, r2r, contents: list[tuple[int, int]]) -> dict:
        held = r2r.held_stream()
        for lo, hi in contents:
            for i in range(lo, hi):
                held.held(i)

        def one(content):
            return r2r.oxigraph.answer(held.store(content), r2r.form)
        with ThreadPoolExecutor(self.workers) as pool:
            return dict(zip(contents, pool.map(one, contents)))


class SparkExecutor:
    """Window contents evaluated in Spark tasks, each with pyoxigraph in the Python worker."""

    def __init__(self, master: str = "local[2]"):
        self.master = master
        self._spark = None

    def session(self):
        if self._spark is None:
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
            try:
                from pyspark.sql import SparkSession  # deferred: pyspark is optional (the spark extra)
            except ImportError as exc:
                raise ExecutorError("--oracle-executor spark needs pyspark: pip install -e '.[test]'") from exc
            self._spark = (SparkSession.builder.master(self.master).appName("rspconf-oracle")
                           .config("spark.sql.shuffle.partitions", "2")
                           .config("spark.ui.enabled", "false")
                           .config("spark.ui.showConsoleProgress", "false").getOrCreate())
            self._spark.sparkContext.setLogLevel("ERROR")
            _ship_oracle(self._spark.sparkContext)
        return self._spark

    def answers(self, r2r, contents: list[tuple[int, int]]) -> dict:
        """Oxigraph's plain answer for each content, computed in Spark."""
        held = r2r.held_stream()
        indices = sorted({i for lo, hi in contents for i in range(lo, hi)})
        texts = [(i, held.held(i)) for i in indices]
        if any(isinstance(text, list) for _, text in texts) or isinstance(held.static_text, list):
            raise ExecutorError("the Spark executor ships elements as N-Triples text, and this stream has blank "
                                "nodes (Oxigraph would rename them per window); judge it with the in-process "
                                "executor (--oracle-executor local)")
        sc = self.session().sparkContext
        ordered = sorted(range(len(contents)), key=lambda k: contents[k])
        los = [contents[k][0] for k in ordered]
        bounds = sc.broadcast((ordered, los, [contents[k][1] for k in ordered]))
        job = sc.broadcast((r2r.text, r2r.oxigraph.unsliced, r2r.form, held.static_text))

        def windows_of(item):
            i, text = item
            ks, starts, ends = bounds.value
            return [(ks[j], (i, text)) for j in range(bisect.bisect_right(starts, i)) if ends[j] > i]

        def evaluate(parts):
            return evaluate_window(job.value, parts)

        slices = max(2, min(200, len(texts) // 5000 or 1))
        pairs = sc.parallelize(texts, slices).flatMap(windows_of).groupByKey(max(2, min(len(contents), 64)))
        result = dict(pairs.mapValues(evaluate).collect())
        empty = evaluate_window(job.value, [])  # a content with no element: static data only
        return {contents[k]: result.get(k, empty) for k in range(len(contents))}


def _ship_oracle(sc) -> None:
    """Send this process's ``oracle`` package to the Python workers: on a cluster they start elsewhere
    (a standalone worker's directory) and may not import the kit, or may import another copy of it."""
    root = Path(__file__).resolve().parents[1]
    folder = tempfile.mkdtemp(prefix="rspconf-oracle-")
    atexit.register(shutil.rmtree, folder, True)
    archive = Path(folder) / "oracle.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for source in sorted(root.rglob("*.py")):
            zipped.write(source, f"oracle/{source.relative_to(root).as_posix()}")
    sc.addPyFile(str(archive))


def evaluate_window(job: tuple, parts) -> dict:
    """In a Spark task: one window's text into a fresh pyoxigraph store, and the query's plain answer."""
    text, unsliced, form, static = job
    return answer(fill([static] + [t for _, t in sorted(parts)]), text, unsliced, form)
