"""Replay mode: the whole recorded stream as one Spark batch job, grouped by window instance."""

from __future__ import annotations

from collections import defaultdict

from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

from engines.contract import RunRequest
from engines.spark.compiler import K, compile_query
from engines.spark.session import session

SCHEMA = StructType([StructField("s", StringType()), StructField("p", StringType()),
                     StructField("o", StringType()), StructField("t", LongType())])


def window_instances(request: RunRequest, t0: int) -> list[tuple[int, int]]:
    """(opening, closing) of every window that has started by the last element (flushed at the end)."""
    elements = request.stream.elements
    if not elements:
        return []
    last = elements[-1].t
    out = []
    k = 0
    while t0 + k * request.window.slide <= last:
        o = t0 + k * request.window.slide
        out.append((o, o + request.window.range))
        k += 1
    return out


def replay(request: RunRequest, algebra, t0: int, master: str):
    """(query form, window borders, {k: [row as {var: N-Triples term}]})."""
    spark = session(master)
    windows = window_instances(request, t0)
    rng, slide = request.window.range, request.window.slide
    rows = [(s.n3(), p.n3(), o.n3(), e.t) for e in request.stream.elements for s, p, o in e.triples]
    triples = spark.createDataFrame(rows, SCHEMA)
    # window k holds t iff t0 + k·β ≤ t < t0 + k·β + ω
    kmin = F.greatest(F.lit(0), F.ceil((F.col("t") - t0 - rng + 1) / slide).cast("long"))
    kmax = F.floor((F.col("t") - t0) / slide).cast("long")
    windowed = (triples.where(kmax >= kmin)
                .select("s", "p", "o", F.explode(F.sequence(kmin, kmax)).alias(K))
                .where(F.col(K) < len(windows)))
    instances = spark.range(len(windows)).withColumnRenamed("id", K)
    if request.stream.static:
        static = spark.createDataFrame([(s.n3(), p.n3(), o.n3(), 0) for s, p, o in request.stream.static], SCHEMA)
        windowed = windowed.unionByName(static.crossJoin(instances).select("s", "p", "o", K))
    form, result, names = compile_query(algebra, windowed, instances)
    columns = [F.col(f"v_{n}").alias(n) if f"v_{n}" in result.columns else F.lit(None).cast("string").alias(n)
               for n in names]
    collected = result.select(F.col(K), *columns).collect()
    by_window: dict[int, list[dict]] = defaultdict(list)
    for row in sorted(collected, key=lambda r: (r[K], tuple(str(r[n]) for n in names))):
        by_window[row[K]].append({n: row[n] for n in names})
    return form, windows, by_window
