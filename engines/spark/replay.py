"""Replay mode: the whole recorded stream as one Spark batch job, grouped by window instance (the job
itself: :mod:`engines.spark.windowjob`; count windows, time-annotated data and several windows:
:mod:`engines.spark.s2r`)."""

from __future__ import annotations

from pyspark.sql import functions as F

from engines.contract import RunRequest
from engines.spark import ingest, s2r
from engines.spark.session import session
from engines.spark.sqlterms import n3
from engines.spark.windowjob import (
    NOTHING,
    SCHEMA,
    answers,
    assign,
    evaluate,
    matchable,
    matchable_condition,
    observe_last,
    observed_last,
    solve,
    static_frame,
    window_instances,
)
from oracle.model import CountWindowSpec, MultiWindowSpec, ValiditySpec, triple_count


def replay(request: RunRequest, algebra, t0: int, master: str, serial: bool = False):
    """Replay a case's stream (elements handed over by the harness); ``serial``: each query in one task
    (:func:`~engines.spark.session.session`); a small stream's jobs run interpreted (the same session's)."""
    triples = triple_count(request.stream.elements) + len(request.stream.static)
    spark = session(master, serial, triples)
    if isinstance(request.window, (MultiWindowSpec, ValiditySpec, CountWindowSpec)):
        quads, arrived = s2r.from_elements(spark, request.stream.elements)
        static = static_frame(spark, request.stream, algebra)
        if isinstance(request.window, MultiWindowSpec):
            return s2r.multi(spark, quads, arrived, request.window, t0, request.stream_iri, static, algebra)
        operator = s2r.valid if isinstance(request.window, ValiditySpec) else s2r.counted
        return operator(spark, quads, arrived, request.window, static, algebra)
    rows = [(n3(s), n3(p), n3(o), e.t) for e in request.stream.elements for s, p, o in e.triples]
    triples = matchable(spark.createDataFrame(rows, SCHEMA), algebra)
    last = request.stream.elements[-1].t if request.stream.elements else None
    return evaluate(spark, triples, static_frame(spark, request.stream, algebra), request.window, t0, last, algebra)


def replay_file(path: str, fmt: str, window, algebra, t0: int, master: str, serial: bool = False):
    """Replay a stream file read by Spark itself (see :mod:`engines.spark.ingest`): one job, one scan
    of the file, which parses it, assigns the triples the query can match to their windows, answers
    the query and observes the stream's latest time (:func:`observe_last`), to which the windows are
    flushed.  No bound on the window number is needed: a triple only lands in windows that start by
    its time.  ``serial``: as for :func:`replay`."""
    spark = session(master, serial)
    stream = ingest.read(spark, path, fmt)
    keep = matchable_condition(algebra)
    if keep == NOTHING:
        # no triple can match, and a filter that drops every row has the optimizer prune the scan
        # below it, an observation with it: the latest time is a job of its own
        last = stream.agg(F.max("t")).first()[0]
        form, rows, held = solve(spark, assign(spark, stream.where(keep), window, t0), None, algebra)
    else:
        observed = observe_last(stream)
        windowed = assign(spark, observed if keep is None else observed.where(keep), window, t0)
        form, rows, held = solve(spark, windowed, None, algebra)
        last = observed_last(windowed)
    windows = window_instances(window, t0, last)
    return form, windows, answers(rows, held, range(len(windows)))
