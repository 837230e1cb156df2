"""The batch job over window instances: triples assigned to the windows that hold them, the compiled
query answered per window in one Spark SQL text, and the answers read back (used by replay, streaming
and live mode)."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType
from rdflib import URIRef

from engines.contract import Unsupported
from engines.spark.algebra import needs_a_triple, triple_patterns
from engines.spark.compiler import (
    RANK,
    G,
    K,
    compile_sql,
    sql_over,
    view_names,
)
from engines.spark.reporter import NONE, Solutions
from engines.spark.sqlfunctions import draws
from engines.spark.sqlterms import n3, sql_string

SCHEMA = StructType([StructField("s", StringType()), StructField("p", StringType()),
                     StructField("o", StringType()), StructField("t", LongType())])


MAX_WINDOWS = 1_000_000  # this engine reports every window, empty ones too: past this many it refuses


def bounded_count(window, t0: int, last: int) -> int:
    """How many windows start by ``last``; past :data:`MAX_WINDOWS` the engine refuses, by name."""
    count = (last - t0) // window.slide + 1
    if count > MAX_WINDOWS:
        raise Unsupported(f"the stream spans {count:,} windows (t={t0} to t={last} ms, sliding by {window.slide} "
                          f"ms) and this engine reports every one, empty ones too: it stops at {MAX_WINDOWS:,}; "
                          "look for a far-out timestamp in the stream")
    return count


def window_instances(window, t0: int, last: int | None) -> list[tuple[int, int]]:
    """(opening, closing) of every window that has started by the last element (flushed at the end)."""
    if last is None:
        return []
    bounded_count(window, t0, last)
    out = []
    k = 0
    while t0 + k * window.slide <= last:
        o = t0 + k * window.slide
        out.append((o, o + window.range))
        k += 1
    return out


NOTHING = "false"  # the keep condition of a query without triple patterns: no triple can match


def matchable_predicates(algebra) -> frozenset[str] | None:
    """The predicates (N-Triples) some pattern of the query mentions: a triple with another cannot
    match.  None when every triple may match (a variable predicate or a path)."""
    found: list = []
    if not triple_patterns(algebra, found) or not all(isinstance(p, URIRef) for _, p, _ in found):
        return None
    return frozenset(p.n3() for _, p, _ in found)


def matchable_condition(algebra) -> str | None:
    """SQL: the triple's predicate is one of :func:`matchable_predicates` (the others cannot match);
    None when every triple may match."""
    wanted = matchable_predicates(algebra)
    if wanted is None:
        return None
    return f"p IN ({', '.join(sql_string(x) for x in sorted(wanted))})" if wanted else NOTHING


def matchable(triples: DataFrame, algebra) -> DataFrame:
    """Only the triples some pattern of the query can match (:func:`matchable_condition`)."""
    condition = matchable_condition(algebra)
    return triples if condition is None else triples.where(condition)


def static_frame(spark, stream, algebra) -> DataFrame | None:
    """The stream's background triples the query can match, as (s, p, o, t=0), or None."""
    if not stream.static:
        return None
    return matchable(spark.createDataFrame([(n3(s), n3(p), n3(o), 0) for s, p, o in stream.static], SCHEMA),
                     algebra)


def partitions(spark) -> int:
    return int(spark.conf.get("spark.sql.shuffle.partitions"))


EMPTY = -1  # a window instance that holds no stream triple: its answer is that of every such window
# in the collected rows: null for an answer, true for a window that holds a stream triple
MARK = "__held"
LINES = "__lines"  # a window's solutions as lines of text (see _solve)


def latest_instance(t0: int, slide: int) -> str:
    """SQL: the latest window instance that has started by the triple's time ``t`` (t0 + k·β ≤ t)."""
    return f"CAST(floor((t - {t0}) / {slide}) AS BIGINT)"


def assign(spark, triples: DataFrame, window, t0: int, count: int | None = None) -> DataFrame:
    """``(s, p, o, __k)``: every triple once per window instance ``__k`` that holds it (of the first
    ``count`` instances, or of every instance that has started by the triple), hash-partitioned by
    ``__k``.  A triple that no window holds (before t0, or between windows that slide by more than their
    range) is dropped: how far the stream went is observed on its way instead (:func:`observe_last`).

    Every operator of a compiled query works window by window (patterns, de-duplication, joins on
    ``__k`` plus shared variables, GROUP BY ``__k``), so with this one exchange none of them needs
    another: the session sets ``spark.sql.requireAllClusterKeysForCoPartition=false``, under which a
    partitioning on ``__k`` satisfies a join or aggregate keyed on ``__k`` and more.  The filter query
    at 10^6 triples went from about 4.5 s to 2.3 s warm (bench/README.md)."""
    rng, slide = window.range, window.slide
    # window k holds t iff t0 + k·β ≤ t < t0 + k·β + ω (SQL text: one py4j call each, not dozens)
    kmin = f"greatest(0, CAST(ceil((t - {t0} - {rng} + 1) / {slide}) AS BIGINT))"
    kmax = latest_instance(t0, slide)
    # a window no longer than its slide (tumbling, or with gaps) holds a triple at most once: no
    # generator (explode of a one-element sequence per triple took 25-30 ms of the filter query at 10^6)
    instance = kmax if rng <= slide else f"explode(sequence({kmin}, {kmax}))"
    windowed = triples.where(f"{kmax} >= {kmin}").selectExpr("s", "p", "o", f"{instance} AS {K}")
    if count is not None:
        windowed = windowed.where(f"{K} < {count}")
    return windowed.repartition(partitions(spark), K)


LAST = "__last"  # the name of the observation of a stream's latest time (observe_last)


def observe_last(triples: DataFrame) -> DataFrame:
    """``triples`` observing their latest time ``t`` as the job reads them (:func:`observed_last`):
    the trailing windows that only triples the query cannot match have started are flushed too, with
    no second pass over the stream and without carrying those triples through the job."""
    return triples.observe(LAST, F.max("t").alias("t"))


def observed_last(windowed: DataFrame) -> int | None:
    """The latest time :func:`observe_last` saw under ``windowed`` (None for no triple), once a job has
    computed ``windowed``.  Read off the plan that job ran: the lazy checkpoint of :func:`solve` runs
    the plan inside the query's job, while pyspark's ``Observation`` would report when the checkpoint
    is made, before any row is read."""
    jvm = windowed.sparkSession._jvm
    collector = getattr(getattr(jvm.org.apache.spark.sql.execution, "CollectMetricsExec$"), "MODULE$")
    found = collector.collect(windowed._jdf.queryExecution().executedPlan()).get(LAST)
    if found.isEmpty():
        raise RuntimeError(f"no {LAST} observation in the job's plan: was it pruned?")
    row = found.get()
    return None if row.isNullAt(0) else row.getLong(0)


def evaluate(spark, triples: DataFrame, static: DataFrame | None, window, t0: int, last: int | None, algebra,
             only: list[int] | None = None):
    """(query form, window borders, {k: :class:`Solutions`}) for triples (s, p, o, t), for every window
    instance or ``only`` the given ones.

    ``triples`` and ``static`` are already only what the query can match (:func:`matchable`; each
    caller filters once, where it reads the stream)."""
    windows = window_instances(window, t0, last)
    form, rows, held = solve(spark, assign(spark, triples, window, t0, len(windows)), static, algebra, only)
    return form, windows, answers(rows, held, range(len(windows)) if only is None else only)


def solve(spark, windowed: DataFrame, static: DataFrame | None, algebra, only: list[int] | None = None,
          graphs: bool = False):
    """(query form, {k: :class:`~engines.spark.reporter.Solutions`}, the windows that hold a stream
    triple, or None where :func:`answers` needs no such list) over triples assigned to their windows
    (:func:`assign`), ``only`` the given windows if set.  Solutions are computed for the windows that
    hold a stream triple and for :data:`EMPTY`.

    One Spark job, whatever the query: the windowed triples become a leaf of the query's plan (a
    lazy local checkpoint), computed once when the job reaches it and read by every triple pattern.
    Over the plain frame, the optimizer pushed each pattern's filter down to the file, and every
    pattern scanned and parsed the stream again; a cache needed a job of its own.  A window
    without stream triples is not computed: its content is the background data alone, as is window
    :data:`EMPTY`'s, so its answer is the same (:func:`answers`)."""
    shared = windowed.localCheckpoint(eager=False)
    try:
        return _solve(spark, shared, static, algebra, only, graphs)
    finally:
        release(shared)


def release(checkpointed: DataFrame) -> None:
    """Drop the blocks of a lazily checkpointed frame now, not when the JVM collects its RDD."""
    checkpointed._jdf.queryExecution().logical().rdd().unpersist(False)


def solve_sql(names: dict[str, str], algebra, only: list[int] | None, graphs: bool = False,
              held: bool = True) -> tuple[str, str, list[str]]:
    """(query form, SQL, projected variable names) of the whole job over the views
    named ``names["shared"]`` (the windowed triples, :func:`assign`) and, if given, ``names["static"]``:
    the query per window as lines of text, plus, in the same job if ``held``, each window that holds a
    stream triple.  One text, analysed once (:mod:`engines.spark.compiler`)."""
    keep = "true"
    if only is not None:
        # compared as text: a number literal is written into the generated Java code and a string
        # literal is not, so a live run's closes (a new window index each) reuse one compiled class
        # instead of generating and compiling anew (some 40 ms a close at 50 stations)
        keep = f"CAST({K} AS STRING) IN ({', '.join(repr(str(int(k))) for k in only)})" if only else "false"
    g = f", {G}" if graphs else ""  # several windows: each triple's named graph (compiler.G)
    ctes = [f"__stream AS (SELECT s, p, o, {K}{g} FROM {names['shared']} WHERE {keep})",
            # each of these windows gets one solution of an empty pattern and one row of an aggregate
            # without GROUP BY
            f"__instances AS (SELECT DISTINCT {K} FROM __stream UNION ALL SELECT CAST({EMPTY} AS BIGINT) AS {K})"]
    windowed = "__stream"
    if "static" in names:
        # partitioned like the stream's triples: the union keeps that partitioning
        default = f", '' AS {G}" if graphs else ""  # static data is the default graph
        ctes.append(f"__windowed AS (SELECT * FROM __stream UNION ALL SELECT * FROM (SELECT st.s, st.p, st.o,"
                    f" i.{K}{default} FROM {names['static']} st CROSS JOIN __instances i DISTRIBUTE BY {K}) __st)")
        windowed = "__windowed"
    form, rel, projected = compile_sql(algebra, windowed, "__instances", graphs)
    ctes.append(f"__result AS ({rel.sql})")
    # one line of text per solution, its values in projection order separated by newlines (which
    # N-Triples terms never hold; '' for an unbound one), one list of lines per window: a few rows
    # to collect instead of one per solution (pyspark built each Row in ~6 µs: 0.17 s for the
    # filter query's 26 k solutions at 10^6 triples, and 0.1 s more to sort them in Python)
    parts = [f"coalesce(`v_{n}`, '')" if f"v_{n}" in rel.cols else "''" for n in projected]
    line = f"concat_ws(chr(10), {', '.join(parts)})" if parts else "''"
    if RANK in rel.cols:  # ORDER BY: the solutions in their positions
        lines = f"transform(sort_array(collect_list(struct({RANK}, {line} AS line))), x -> x.line)"
    else:  # a bag: any fixed order, for determinism
        lines = f"sort_array(collect_list({line}))"
    text = (f"WITH {', '.join(ctes)} "
            f"SELECT {K}, {lines} AS {LINES}, CAST(NULL AS BOOLEAN) AS {MARK} FROM __result GROUP BY {K}")
    if held:
        text += (f" UNION ALL SELECT DISTINCT {K}, CAST(NULL AS ARRAY<STRING>) AS {LINES}, true AS {MARK}"
                 f" FROM {names['shared']}")
    return form, text, projected


def _solve(spark, shared: DataFrame, static: DataFrame | None, algebra, only: list[int] | None, graphs: bool = False):
    frames = {"shared": shared} if static is None else {"shared": shared, "static": static}
    views = view_names(frames)
    # which windows hold a stream triple tells a window without solutions of its own from one that
    # gets the empty window's (:func:`answers`): needed only if that has solutions.  When the query
    # surely has none over no triples, the job leaves that scan of every windowed triple out (the
    # filter query at 10^6 triples: 3 % of the CPU); should the empty window have solutions after all,
    # they are asked for in a job of their own over the checkpoint, which is still in memory
    held = static is not None or not needs_a_triple(algebra)
    form, text, projected = solve_sql(views, algebra, only, graphs, held)
    collected = sql_over(spark, frames, views, text).collect()
    names = tuple(projected)
    by_window: dict[int, Solutions] = {}
    windows_held: set[int] = set()
    drawn = draws(text)
    for k, found, mark in (tuple(r) for r in collected):
        if mark is None:
            by_window[k] = Solutions(names, found, drawn)
        else:
            windows_held.add(k)
    if held:
        return form, by_window, windows_held
    if EMPTY not in by_window:
        return form, by_window, None
    return form, by_window, {r[0] for r in shared.select(K).distinct().collect()}


def answers(rows: dict[int, Solutions], held: set[int] | None, ks) -> dict[int, Solutions]:
    """{k: solutions} for every window ``k`` of ``ks``: its own if it holds a stream triple, else the
    :data:`EMPTY` window's.  ``held`` None: the empty window has no solutions, and a window has
    solutions only if it holds a stream triple (they come from its triples), so its own or none.  Refused by
    name where two windows would share an answer that holds fresh draws (:func:`draws`)."""
    if held is None:
        return {k: rows.get(k, NONE) for k in ks}
    empty = rows.get(EMPTY, NONE)
    if empty.drawn and len(empty) and sum(k not in held for k in ks) > 1:
        # each window is an evaluation of its own: copies of one would repeat its UUIDs and blank nodes
        raise Unsupported("RAND, UUID, STRUUID or BNODE where windows without stream triples would share one"
                          " answer (its drawn values)")
    return {k: rows.get(k if k in held else EMPTY, NONE) for k in ks}


