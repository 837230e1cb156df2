"""One SparkSession per process, configured for a small machine, reused across cases."""

from __future__ import annotations

import os
import re
import sys
import threading

_LOCK = threading.Lock()
#: the driver JVM's collector (RSPCONF_SPARK_JAVA_OPTIONS replaces it and :func:`java_options`' young generation)
JAVA_OPTIONS = "-XX:+UseParallelGC"
#: the driver's heap, a maximum (RSPCONF_SPARK_DRIVER_MEMORY replaces it)
DRIVER_MEMORY = "8g"
_SESSION = None
_SIBLINGS: dict = {}
#: a replay of fewer triples than this runs its jobs interpreted (:func:`session`): each new plan's generated
#: Java is compiled by Janino, which costs more than a small input's rows.  bench/spark_small.py, interpreted
#: over compiled, warm: the W3C fast folders 0.79x, corpus cases under 10^5 triples 0.60–0.81x, 10^5–2·10^5
#: 0.94x; a case of 2·10^5 or 2·10^6 run again and again (its classes cached) was 0–27 % slower interpreted
#: (bench/README.md, stop 59).  Read at call time: a test sets it to 0 to see the compiled path
INTERPRETED_BELOW = 100_000
#: the SQL settings of each sibling session, by what it is for
_SERIAL = {"spark.sql.shuffle.partitions": "1"}
_INTERPRETED = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"}
#: a live session's one plan for every window (engines/spark/live.py): one task, and joins that do not depend on
#: the size of the data it was planned over (an empty folder would have every join broadcast)
_LIVE = {**_SERIAL, "spark.sql.autoBroadcastJoinThreshold": "-1"}


def session(master: str = "local[2]", serial: bool = False, triples: int | None = None, live: bool = False):
    """The process's SparkSession (created on first use: 5–10 s), or one of its siblings (the same context,
    their own SQL settings).  ``serial``: the window jobs run each query in one task, rows in a fixed order:
    which of two refusals a job meets first is then not a race between tasks (``SparkEngine.run``).
    ``triples``: the input's size, when known; below :data:`INTERPRETED_BELOW` the jobs run interpreted.
    ``live``: the live engine's (:data:`_LIVE`)."""
    spark = _session(master)
    small = triples is not None and triples < INTERPRETED_BELOW
    if not (serial or small or live):
        return spark
    with _LOCK:
        if (serial, small, live) not in _SIBLINGS:
            sibling = spark.newSession()
            settings = {**(_SERIAL if serial else {}), **(_INTERPRETED if small else {}), **(_LIVE if live else {})}
            for key, value in settings.items():
                sibling.conf.set(key, value)
            _SIBLINGS[serial, small, live] = sibling
        return _SIBLINGS[serial, small, live]


def java_options(memory: str) -> str:
    """The driver JVM's options for a heap of ``memory`` (Spark's notation, "8g"): :data:`JAVA_OPTIONS` and a
    young generation of fixed size, a quarter of the heap.  The collector grows a young generation it may
    size itself into memory the process has never touched, and on this machine each first-touched page
    costs a fault in the kernel (~14 µs, ~300 MB/s a core): the live engine's first run at speed 10 met
    eden's growth from 1.5 to 2.5 GB after the warm-up, 4 jobs of 1.1–1.6 s instead of 0.4, and fell 3 s
    behind (bench/live_designs.py --java-options; engines/spark/README.md, "Live").  Fixed, the
    young generation is touched once, by the warm-up, and reused.  Omitted for a size Spark's own check
    will refuse."""
    size = re.fullmatch(r"(\d+)([kmgt]?)b?", memory.strip().lower())
    if size is None:
        return JAVA_OPTIONS
    megabytes = int(size[1]) * {"k": 1 / 1024, "": 1, "m": 1, "g": 1024, "t": 1 << 20}[size[2]]
    return f"{JAVA_OPTIONS} -Xmn{max(1, int(megabytes // 4))}m"


def _session(master: str):
    global _SESSION
    with _LOCK:
        if _SESSION is None:
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
            from pyspark.sql import SparkSession  # deferred: pyspark is optional (the spark extra)

            memory = os.environ.get("RSPCONF_SPARK_DRIVER_MEMORY", DRIVER_MEMORY)

            _SESSION = (
                SparkSession.builder.master(master)
                .appName("rspconf-spark-engine")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.default.parallelism", "2")
                .config("spark.sql.session.timeZone", "UTC")
                # SPARQL's variables are case-sensitive, and each is a column (v_x and v_X): case-insensitive
                # names made ?x and ?X one ambiguous column, and the query failed
                .config("spark.sql.caseSensitive", "true")
                # adaptive execution re-plans after every exchange; the compiled queries have almost
                # none left (replay.assign), and it cost ~0.25 s per run (a 1,000-triple stream: 1.0 →
                # 0.76 s; 10^6 triples: within the noise)
                .config("spark.sql.adaptive.enabled", "false")
                # the joins the compiler does not hint (an aggregate's join with the window list,
                # background triples × windows) are broadcast up to this size
                .config("spark.sql.autoBroadcastJoinThreshold", str(128 << 20))
                # windowed triples are partitioned by window; a join or aggregate keyed on the window
                # and more needs no other exchange (engines/spark/windowjob.py: assign)
                .config("spark.sql.requireAllClusterKeysForCoPartition", "false")
                # in local mode the driver is the executor: with 4g the heap held ~2 GB of old data
                # and collected garbage every ~120 ms (4.6 s of pauses in 10 filter/aggregate runs
                # at 10^6 triples; 2.2 s with 8g).  A maximum, not an allocation: small cases stay small
                .config("spark.driver.memory", memory)
                # the parallel collector, not G1: on 2 cores G1's concurrent threads and barriers took
                # CPU from the tasks (filter and aggregate at 10^6 triples, fresh JVMs alternated:
                # ParallelGC's best run the faster in 12 of 16 pairs, bench/README.md).  Set
                # RSPCONF_SPARK_JAVA_OPTIONS (even to '') to choose other driver JVM options; the young
                # generation's fixed size: java_options
                .config("spark.driver.extraJavaOptions", os.environ.get("RSPCONF_SPARK_JAVA_OPTIONS",
                                                                        java_options(memory)))
                .config("spark.sql.execution.arrow.pyspark.enabled", "false")
                # the memory pages of hash joins, aggregates and sorts: Spark sizes them from the heap
                # (64 MB here) and each table takes whole pages.  The filter query at 10^6 triples built
                # 135 MB of pages for a 26,000-row join table and 134 MB for a 26,000-row aggregate;
                # young collections took 63-75 ms a run.  With 2 MB: 9 MB, 5 MB, 7-37 ms, and runs
                # 0.1-0.15 s shorter (bench/README.md)
                .config("spark.buffer.pageSize", "2m")
                .getOrCreate()
            )
            _SESSION.sparkContext.setLogLevel("ERROR")
            quiet_failed_tasks(_SESSION)
        return _SESSION


#: the loggers that print a failed or cancelled task's exception: a refusal by name at run time fails its
#: task on purpose (sqlterms.refuse), a timeout cancels its jobs (a broadcast then fails to store), and any
#: failure reaches Python as the job's exception, message included
TASK_FAILURE_LOGGERS = ("org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager",
                        "org.apache.spark.broadcast.TorrentBroadcast")


def quiet_failed_tasks(spark) -> None:
    """Silence :data:`TASK_FAILURE_LOGGERS`: ``rspconf sparql-suite --evaluator spark`` printed 80 lines of
    Java stack for two refusals, in a run where nothing went wrong."""
    jvm = spark.sparkContext._jvm
    off = jvm.org.apache.logging.log4j.Level.OFF
    for name in TASK_FAILURE_LOGGERS:
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, off)
