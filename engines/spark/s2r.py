"""Count windows, time-annotated data and several named windows: the S2R operators that need each
element's identity (its arrival position, its validity, its stream), for replay and streaming alike.

Both modes hold the stream as two things: ``quads`` — a DataFrame ``(s, p, o, f)`` of every triple with
its element's arrival offset ``f`` — and ``arrived`` — one :class:`Arrived` per element, in arrival
order (small: one row per element, kept in the driver).  Replay builds both from the case's elements at
once; streaming grows them micro-batch by micro-batch (:mod:`engines.spark.streaming`) and asks each
operator which reports are complete so far (``ready``): only those are computed, and never again.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql.types import LongType, StringType, StructField, StructType
from rdflib import URIRef

from engines.spark.compiler import G, K, sql_over, view_names
from engines.spark.sqlterms import n3
from engines.spark.windowjob import answers, assign, bounded_count, matchable, partitions, solve
from oracle.model import WindowSpec

QUADS = StructType([StructField("s", StringType()), StructField("p", StringType()), StructField("o", StringType()),
                    StructField("f", LongType())])


@dataclass(frozen=True)
class Arrived:
    """An element as the engine registered it: its time, and what it says beyond its triples."""

    t: int
    stream: str | None = None
    until: int | None = None
    expires: int | None = None


def from_elements(spark, elements) -> tuple[DataFrame, list[Arrived]]:
    """The case's elements as ``quads`` and ``arrived`` (replay: all at once)."""
    rows = [(n3(s), n3(p), n3(o), i) for i, e in enumerate(elements) for s, p, o in e.triples]
    return (spark.createDataFrame(rows, QUADS),
            [Arrived(e.t, e.stream, e.until, e.expires) for e in elements])


def empty_windowed(spark, graphs: bool = False) -> DataFrame:
    cols = [StructField(c, StringType()) for c in ("s", "p", "o")] + [StructField(K, LongType())]
    return spark.createDataFrame([], StructType(cols + ([StructField(G, StringType())] if graphs else [])))


def evaluate_new(spark, windowed: DataFrame, static, algebra, borders: list[tuple[int, int]], done: int,
                 graphs: bool = False):
    """(query form, borders, {k: rows}) for the reports ``done`` .. ``len(borders) - 1``: one job."""
    only = list(range(done, len(borders)))
    if not only:
        return None, borders, {}
    form, rows, held = solve(spark, windowed.repartition(partitions(spark), K), static, algebra, only, graphs)
    return form, borders, answers(rows, held, only)


# -- count windows ---------------------------------------------------------------------------------

def count_spans(n: int, window) -> list[tuple[int, int]]:
    """(first position, last position) of each count window k: positions [kM, kM + N) of the elements in
    arrival order, for every k whose first position the stream reached (the unfilled ones flushed)."""
    return [(k * window.slide, min(k * window.slide + window.count, n) - 1)
            for k in range((n + window.slide - 1) // window.slide)]


def counted(spark, quads: DataFrame, arrived: list[Arrived], window, static, algebra, done: int = 0,
            ended: bool = True):
    """Count windows: window k holds positions [kM, kM + N) — the time windows' assignment
    (:func:`engines.spark.windowjob.assign`) with the position in place of the time, t0 = 0, range N and
    slide M.  Its borders are the times of its first and last element; it reports at the last one's.
    Before the end of the stream (``ended`` false) only the filled windows are complete."""
    spans = count_spans(len(arrived), window)
    if not ended:
        spans = [(a, b) for a, b in spans if b - a + 1 == window.count]
    by_position = WindowSpec(window.count, window.slide)
    positioned = matchable(quads.withColumnRenamed("f", "t"), algebra)
    borders = [(arrived[a].t, arrived[b].t) for a, b in spans]
    return evaluate_new(spark, assign(spark, positioned, by_position, 0, len(spans)), static, algebra, borders, done)


# -- time-annotated data -----------------------------------------------------------------------------

FACTS = StructType([StructField("f", LongType()), StructField("initial", LongType()), StructField("until", LongType()),
                    StructField("expires", LongType())])


def validity_sql(names: dict[str, str], every: int | None) -> str:
    """SQL: the evaluation instants of time-annotated data, each with the facts valid then, as
    ``(t, f)`` rows (``f`` null for an instant where nothing holds).

    Instants: every start, end and expiration (data-driven), or 0, p, 2p, … up to the last of them
    (periodic).  A fact holds at t when it has started (``initial ≤ t``) and not ended (``t < until`` or
    ``t < expires``) — an interval join — and, if it expires, no later version of it (same subjects and
    predicates, ``about``, computed from its triples) has been published by t — an anti-join."""
    facts, quads = names["facts"], names["quads"]
    points = (f"SELECT DISTINCT initial AS t FROM {facts} UNION SELECT until FROM {facts} WHERE until IS NOT NULL "
              f"UNION SELECT expires FROM {facts} WHERE expires IS NOT NULL")
    if every is not None:
        points = (f"SELECT explode(sequence(CAST(0 AS BIGINT), max(t), CAST({every} AS BIGINT))) AS t "
                  f"FROM ({points}) __p")
    return (f"WITH __instants AS ({points}), "
            f"__about AS (SELECT f, concat_ws(' ', sort_array(collect_set(concat(s, ' ', p)))) AS about "
            f"FROM {quads} GROUP BY f), "
            f"__one AS (SELECT x.f, x.initial, x.until, x.expires, a.about FROM {facts} x "
            f"LEFT JOIN __about a ON a.f = x.f), "
            f"__valid AS (SELECT i.t, x.f FROM __instants i JOIN __one x ON x.initial <= i.t "
            f"AND i.t < coalesce(x.until, x.expires, i.t + 1) "
            f"WHERE NOT (x.expires IS NOT NULL AND EXISTS (SELECT 1 FROM __one y WHERE y.expires IS NOT NULL "
            f"AND y.about = x.about AND y.f > x.f AND y.initial <= i.t))) "
            f"SELECT i.t, v.f FROM __instants i LEFT JOIN __valid v ON v.t = i.t")


def valid(spark, quads: DataFrame, arrived: list[Arrived], window, static, algebra, done: int = 0,
          ended: bool = True):
    """Time-annotated data (capability ``time-annotated``): the instants and the facts valid at each in
    Spark SQL (:func:`validity_sql`, one job that collects the small (instant, fact) table); a
    data-driven run keeps the instants whose set of valid facts differs from the previous one's; then
    each kept instant is a window of the usual job, holding its valid facts' triples.  Before the end
    of the stream only the instants before the latest element's start are complete (the stream is in
    start order: a fact still to come starts, ends and expires after them)."""
    facts = spark.createDataFrame([(f, a.t, a.until, a.expires) for f, a in enumerate(arrived)], FACTS)
    names = view_names(["facts", "quads"])
    table = sql_over(spark, {"facts": facts, "quads": quads}, names, validity_sql(names, window.every)).collect()
    held: dict[int, set] = {}
    for t, f in table:
        held.setdefault(t, set())
        if f is not None:
            held[t].add(f)
    horizon = None if ended or not arrived else arrived[-1].t
    instants, previous = [], None
    for t in sorted(held):
        if horizon is not None and t >= horizon:
            break
        if window.every is not None or held[t] != previous:
            instants.append(t)
        previous = held[t]
    pairs = [(k, f) for k, t in enumerate(instants) if k >= done for f in sorted(held[t])]
    if pairs:
        chosen = spark.createDataFrame(pairs, StructType([StructField(K, LongType()), StructField("f", LongType())]))
        windowed = matchable(quads, algebra).join(chosen, "f").selectExpr("s", "p", "o", K)
    else:
        windowed = empty_windowed(spark)
    return evaluate_new(spark, windowed, static, algebra, [(t, t) for t in instants], done)


# -- several named windows --------------------------------------------------------------------------

SPANS = StructType([StructField(K, LongType()), StructField(G, StringType()), StructField("stream", StringType()),
                    StructField("__open", LongType()), StructField("__close", LongType()),
                    StructField("__by", StringType())])
STREAMS = StructType([StructField("f", LongType()), StructField("t", LongType()), StructField("stream", StringType())])


def count_instances(window, arrived, default_stream: str) -> list[tuple[int, int, int]]:
    """(close time, first offset, last offset) of each instance of a count window among several that has
    filled: instance k holds the elements of its own stream at positions [kM, kM + N) of that stream
    (t0 = 0) and closes when the last of them arrives, at its time; one that has not filled has not
    closed.  Positions count in the stream's own order, so an instance is every element of the stream
    between its first and last offset."""
    own = [f for f, a in enumerate(arrived) if (a.stream or default_stream) == window.stream]
    out, k = [], 0
    while k * window.slide + window.count <= len(own):
        first, last = own[k * window.slide], own[k * window.slide + window.count - 1]
        out.append((arrived[last].t, first, last))
        k += 1
    return out


def time_span(window, t0: int, k: int) -> tuple:
    """Time window instance k as a span (see :func:`closes`): (its close, [o, c), ``t``)."""
    o = t0 + k * window.slide
    return (o + window.range, o, o + window.range, "t")


def closes(spec, t0: int, arrived, default_stream: str) -> dict[str, list]:
    """Each window's instances that have closed or will close: a time window's [o, c) for every
    instance started by the last element, a count window's filled ones — as (close, open, close-or-last
    offset, by) with ``by`` ``t`` (a time interval) or ``f`` (an offset range)."""
    last = arrived[-1].t
    out = {}
    for w in spec.windows:
        if w.count is not None:
            out[w.name] = [(c, a, b, "f") for c, a, b in count_instances(w, arrived, default_stream)]
        else:
            out[w.name] = [time_span(w, t0, k) for k in range(bounded_count(w, t0, last))]
    return out


def multi_instants(spec, t0: int, arrived, default_stream: str, spans_of: dict | None = None) -> list[int]:
    """The closes a multi-window query is evaluated at: whenever one of its windows closes (any-close and
    content-change, which :func:`on_change` then thins out), when all do at once (all-close), or when the
    designated window does (closes-of).  ``spans_of``: :func:`closes`, when the caller has it already."""
    spans_of = closes(spec, t0, arrived, default_stream) if spans_of is None else spans_of
    times = {name: {c for c, *_ in spans} for name, spans in spans_of.items()}
    if spec.instants == "closes-of":
        return sorted(times[spec.driver])
    return sorted(set.intersection(*times.values()) if spec.instants == "all-close" else set().union(*times.values()))


def latest(window, spans: list, t0: int, t: int):
    """The window's latest instance closed by t, as a span (see :func:`closes`), or None: a time window's
    by arithmetic (also one that started after the last element, and is empty), a count window's from its
    filled instances (of several closed at one time, the last)."""
    if window.count is None:
        n = (t - t0 - window.range) // window.slide
        return None if n < 0 else time_span(window, t0, n)
    closed = [span for span in spans if span[0] <= t]
    return closed[-1] if closed else None


def on_change(spec, t0: int, instants: list[int], arrived: list[Arrived], default_stream: str,
              spans: dict) -> list[int]:
    """Content-change: of the closes, those at which some window holds other elements than just before
    (from nothing before the first).  Window bookkeeping on the registrations in the driver, like the
    instants themselves; the content is evaluated in Spark."""
    out, before = [], tuple(() for _ in spec.windows)
    for t in instants:
        now = []
        for w in spec.windows:
            span = latest(w, spans[w.name], t0, t)
            if span is None:
                now.append(())
                continue
            _, a, b, by = span
            now.append(tuple(f for f, x in enumerate(arrived) if (x.stream or default_stream) == w.stream
                             and ((a <= f <= b) if by == "f" else (a <= x.t < b))))
        if tuple(now) != before:
            out.append(t)
        before = tuple(now)
    return out


def multi(spark, quads: DataFrame, arrived: list[Arrived], spec, t0: int, default_stream: str, static, algebra,
          done: int = 0, ended: bool = True):
    """Several named windows: instant k holds, per window, the triples of its stream in its latest
    instance closed by the instant, as the named graph of the window's name (an interval join of the
    stream with the (instant, window, span) rows: [o, c) in time, or a count window's offsets); static
    data is the default graph.  Then the usual per-window job, with GRAPH patterns matching the graph
    column.  Before the end of the stream only the instants the latest element has reached are complete
    (a window [o, c) is whole once an element at c or later has arrived); with count windows, only those
    before it (another element at its time could still fill an instance)."""
    if not arrived:
        return "SELECT", [], {}
    last = arrived[-1].t
    spans_of = closes(spec, t0, arrived, default_stream)
    counting = any(w.count is not None for w in spec.windows)
    instants = [t for t in multi_instants(spec, t0, arrived, default_stream, spans_of)
                if ended or t < last or (t == last and not counting)]
    if spec.instants == "content-change":
        instants = on_change(spec, t0, instants, arrived, default_stream, spans_of)
    spans = []
    for k, t in enumerate(instants):
        if k < done:
            continue
        for w in spec.windows:
            span = latest(w, spans_of[w.name], t0, t)
            if span is not None:  # merged (C-SPARQL): every window in the default graph, ''
                spans.append((k, "" if spec.merged else URIRef(w.name).n3(), w.stream, span[1], span[2], span[3]))
    if spans:
        streams = spark.createDataFrame([(f, a.t, a.stream or default_stream) for f, a in enumerate(arrived)], STREAMS)
        windowed = (matchable(quads, algebra).join(streams, "f").join(spark.createDataFrame(spans, SPANS), "stream")
                    .where("(__by = 't' AND __open <= t AND t < __close) OR (__by = 'f' AND __open <= f AND f <= __close)")
                    .selectExpr("s", "p", "o", K, G))
        if spec.merged:  # an RDF merge: a triple two windows (or two elements) hold is in the graph once
            windowed = windowed.distinct()
    else:
        windowed = empty_windowed(spark, graphs=True)
    return evaluate_new(spark, windowed, static, algebra, [(t, t) for t in instants], done, graphs=True)
