"""Replay mode: the whole recorded stream as one Spark batch job, grouped by window instance."""

from __future__ import annotations

from collections import defaultdict

from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType
from rdflib import URIRef
from rdflib.plugins.sparql.parserutils import CompValue

from engines.contract import RunRequest
from engines.spark import ingest
from engines.spark.compiler import RANK, K, columns, compile_query
from engines.spark.session import session

SCHEMA = StructType([StructField("s", StringType()), StructField("p", StringType()),
                     StructField("o", StringType()), StructField("t", LongType())])


def window_instances(window, t0: int, last: int | None) -> list[tuple[int, int]]:
    """(opening, closing) of every window that has started by the last element (flushed at the end)."""
    if last is None:
        return []
    out = []
    k = 0
    while t0 + k * window.slide <= last:
        o = t0 + k * window.slide
        out.append((o, o + window.range))
        k += 1
    return out


def predicates(node, found: set) -> bool:
    """Collect the constant predicates of the query's triple patterns; False if some predicate is a
    variable or a path (then every triple may match)."""
    if isinstance(node, CompValue):
        if node.name == "BGP":
            for _, p, _ in node.triples:
                if not isinstance(p, URIRef):
                    return False
                found.add(p.n3())
        return all(predicates(v, found) for v in node.values())
    if isinstance(node, (list, tuple)):
        return all(predicates(v, found) for v in node)
    return True


def matchable(triples: DataFrame, algebra) -> DataFrame:
    """Only the triples whose predicate some pattern of the query mentions (the others cannot match)."""
    wanted: set = set()
    return triples.where(F.col("p").isin(sorted(wanted))) if predicates(algebra, wanted) else triples


def static_frame(spark, stream, algebra) -> DataFrame | None:
    """The stream's background triples the query can match, as (s, p, o, t=0), or None."""
    if not stream.static:
        return None
    return matchable(spark.createDataFrame([(s.n3(), p.n3(), o.n3(), 0) for s, p, o in stream.static], SCHEMA),
                     algebra)


def partitions(spark) -> int:
    return int(spark.conf.get("spark.sql.shuffle.partitions"))


def assign(spark, triples: DataFrame, window, t0: int, count: int | None = None) -> DataFrame:
    """``(s, p, o, __k)``: every triple once per window instance ``__k`` that holds it (of the first
    ``count`` instances, or of every instance that has started by the triple), hash-partitioned by
    ``__k``.

    Every operator of a compiled query works window by window (patterns, de-duplication, joins on
    ``__k`` plus shared variables, GROUP BY ``__k``), so with this one exchange none of them needs
    another: the session sets ``spark.sql.requireAllClusterKeysForCoPartition=false``, under which a
    partitioning on ``__k`` satisfies a join or aggregate keyed on ``__k`` and more.  The filter query
    at 10^6 triples went from about 4.5 s to 2.3 s warm (bench/README.md)."""
    rng, slide = window.range, window.slide
    # window k holds t iff t0 + k·β ≤ t < t0 + k·β + ω (SQL text: one py4j call each, not dozens)
    kmin = f"greatest(0, CAST(ceil((t - {t0} - {rng} + 1) / {slide}) AS BIGINT))"
    kmax = f"CAST(floor((t - {t0}) / {slide}) AS BIGINT)"
    windowed = (triples.where(f"{kmax} >= {kmin}")
                .selectExpr("s", "p", "o", f"explode(sequence({kmin}, {kmax})) AS {K}"))
    if count is not None:
        windowed = windowed.where(f"{K} < {count}")
    return windowed.repartition(partitions(spark), K)


def evaluate(spark, triples: DataFrame, static: DataFrame | None, window, t0: int, last: int | None, algebra,
             only: list[int] | None = None):
    """(query form, window borders, {k: [row as {var: N-Triples term}]}) for triples (s, p, o, t),
    for every window instance or ``only`` the given ones.

    ``triples`` and ``static`` are already only what the query can match (:func:`matchable`; each
    caller filters once, where it reads the stream)."""
    windows = window_instances(window, t0, last)
    return solve(spark, assign(spark, triples, window, t0, len(windows)), static, windows, algebra, only)


def solve(spark, windowed: DataFrame, static: DataFrame | None, windows: list[tuple[int, int]], algebra,
          only: list[int] | None = None):
    """:func:`evaluate` over triples already assigned to their windows (:func:`assign`)."""
    if only is None:
        instances = spark.range(len(windows)).withColumnRenamed("id", K)
    else:
        windowed = windowed.where(F.col(K).isin(only))
        instances = spark.createDataFrame([(k,) for k in only], [K])
    if static is not None:
        # partitioned like the stream's triples: the union keeps that partitioning
        windowed = windowed.unionByName(static.crossJoin(instances).select("s", "p", "o", K)
                                        .repartition(partitions(spark), K))
    # a window's content is an RDF graph, a set: a triple that arrives again within the window (or is
    # also background data) is one triple of it (case edges.repeated-triple)
    windowed = windowed.dropDuplicates(["s", "p", "o", K])
    form, result, names = compile_query(algebra, windowed, instances)
    present = set(columns(result))
    values = [F.col(f"v_{n}").alias(n) if f"v_{n}" in present else F.lit(None).cast("string").alias(n)
              for n in names]
    ordered = RANK in present
    # plain tuples (K, *values[, rank]): a Row's by-name lookup cost 0.3 s for 26 k rows of 3 columns
    collected = [tuple(r) for r in
                 result.select(F.col(K), *values, *([F.col(RANK)] if ordered else [])).collect()]
    width = len(names)
    if ordered:  # ORDER BY: the solutions' positions
        collected.sort(key=lambda r: (r[0], r[-1]))
    else:  # a bag: any fixed order, for determinism
        collected.sort(key=lambda r: (r[0], tuple(str(v) for v in r[1:])))
    by_window: dict[int, list[dict]] = defaultdict(list)
    for row in collected:
        by_window[row[0]].append(dict(zip(names, row[1:1 + width])))
    return form, windows, by_window


def replay(request: RunRequest, algebra, t0: int, master: str):
    """Replay a case's stream (elements handed over by the harness)."""
    spark = session(master)
    rows = [(s.n3(), p.n3(), o.n3(), e.t) for e in request.stream.elements for s, p, o in e.triples]
    triples = matchable(spark.createDataFrame(rows, SCHEMA), algebra)
    last = request.stream.elements[-1].t if request.stream.elements else None
    return evaluate(spark, triples, static_frame(spark, request.stream, algebra), request.window, t0, last, algebra)


def replay_file(path: str, fmt: str, window, algebra, t0: int, master: str):
    """Replay a stream file read by Spark itself (see :mod:`engines.spark.ingest`)."""
    spark = session(master)
    observed = Observation("stream")
    triples = matchable(ingest.read(spark, path, fmt).observe(observed, F.max("t").alias("last")), algebra)
    # one scan of the file: parse, keep the triples some pattern can match, assign them to their
    # windows (partitioned by window), cache them, and observe the last timestamp of the whole stream
    # on the way (it decides which trailing windows are flushed).  No bound on the window number is
    # needed: a triple at t <= last only lands in windows that start by t.
    windowed = assign(spark, triples, window, t0).cache()
    try:
        windowed.count()
        last = observed.get["last"]
        return solve(spark, windowed, None, window_instances(window, t0, last), algebra)
    finally:
        windowed.unpersist()
