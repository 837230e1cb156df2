"""The Spark engine live (``rspconf load``, streaming mode): each window is answered by one Spark job as
soon as time passes its close, and every window's job is a copy of one plan, made once per session.

Why so (measured, engines/spark/README.md "Live", bench/live_designs.py): at ten times YABench's big load
(700,000 triples/s, a 5 s window every 0.5 s of wall) a job that Spark parsed, analysed, optimised and
planned anew cost 0.9 s of JVM CPU a window, a third of it the JIT compiling Spark's planner again and
again; a copy of a planned job over the window's Parquet file costs 0.4 s.  Structured Streaming was no
way there (a micro-batch costs 0.3-0.8 s whatever it holds, and its socket source is a test source).

- ``push`` only queues (the feeder must not wait).  A formatting thread, woken per :data:`WAKE_ELEMENTS`
  or when a close is due, writes the pushed triples the query can match
  (:func:`windowjob.matchable_predicates`) as N-Triples text into columns, a column at a time
  (:class:`Columns`), by *pane* (the stretches the windows' borders cut time into, :class:`Panes`; a
  tumbling window is one pane), and when a window closes writes its panes' new rows as Parquet files, one
  row group per predicate, so that a triple pattern's scan reads its own predicate's rows only.  Parquet,
  not text: no parsing in the JVM.
- An answering thread answers the closed windows in order, one job each: the window's pane files are
  linked into the one folder the plan reads, and a copy of the plan runs (:class:`WindowJob`): its scans
  list that folder anew, and it shuffles nothing (:func:`without_exchanges`).  A query with fresh draws
  (RAND, UUID, ...) is planned anew per window: a copy would draw the same values again.
- The files of panes no open window holds are deleted once a window is answered: disk and memory follow
  the window, not the run.  At the end of the stream the windows started by then are flushed.

A job that fails stops both threads; the failure is raised by the next ``push`` or by ``end()`` (an ERROR
carrying Spark's exception, not a timeout; a job stopped by a refusal, ``Unsupported`` with its reason).
Whenever the session stops (end of stream, failure, cancel) its files go with it.  The same windows and
answers as replay: the same compiled SQL (:func:`windowjob.solve_sql`) over the same triples.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import operator
import os
import queue
import shutil
import tempfile
import threading
import time
from itertools import chain, repeat
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pyspark
from pyspark.sql import DataFrame
from pyspark.sql.types import StringType, StructField, StructType
from rdflib import Literal, URIRef
from rdflib.namespace import XSD

from engines.contract import RunRequest, Unsupported
from engines.spark.algebra import triple_patterns
from engines.spark.compiler import sql_over, view_names
from engines.spark.reporter import Reporter, Solutions, template_of
from engines.spark.session import session
from engines.spark.sqlfunctions import draws
from engines.spark.sqlterms import n3, refusal, refused_by_name
from engines.spark.streaming import Cancelled
from engines.spark.windowjob import K, answers, bounded_count, matchable_predicates, release, solve_sql, static_frame

WARM_UP_RUNS = 120  # the window's job over made-up data, per query and window in a process (see _warm_up)
WARM_UP_SOLUTIONS = 5_000  # of the query's patterns, in that data (250 left the first speed-10 run JIT-bound)
WARM_UP_SECONDS = 20.0  # or until this long has passed (a join's job is slower)
#: then over data as large as a window of YABench's big load (50,000 solutions of the weather filter's four
#: patterns: 200,000 triples), climbing to it, each size only while the run before took under
#: WARM_UP_STEP_SECONDS (a query whose cost grows faster than its data stops early), the largest
#: WARM_UP_LARGE_RUNS times, all within WARM_UP_LARGE_SECONDS.  Without it the first four windows of the
#: first speed-10 run took 1.5-2 s each, not 0.5 s, and the run never caught up (docs/load.md, stop 71)
WARM_UP_LARGE = (10_000, 20_000, 50_000)
WARM_UP_LARGE_RUNS = 6
WARM_UP_STEP_SECONDS = 1.0
WARM_UP_LARGE_SECONDS = 15.0
_WARMED: dict[tuple, int] = {}  # (query, window, t0) -> warm-up runs this process's JVM has done
#: every window's job a copy of one plan (:class:`WindowJob`); False: each planned anew, as a query with fresh
#: draws is (bench/live_designs.py runs both side by side)
REUSE_PLAN = True
#: pushed elements that wake the formatting thread before a close is due: the feeder pushes each millisecond's
#: elements at once, 10,000 pushes a second at ten times the big load, and a wake-up per push was that many
#: thread switches for the interpreter's lock
WAKE_ELEMENTS = 2_000


class Columns:
    """The triples the query can match, as N-Triples text in columns by predicate, each predicate's rows
    together (a Parquet row group each).  At ten times YABench's big load this process takes 700,000 triples
    a second beside the feeder, so no Python code runs per triple (bench/live_lines.py): :meth:`add` only
    gathers the elements' triples, and every :data:`CHUNK` of them are sorted by predicate and written as
    text a column at a time (:func:`_texts`), by C loops (``map``, ``str.join``, ``itemgetter``) and Arrow.
    The text is :func:`sqlterms.n3`'s, which any term the fast paths do not cover goes through; an IRI with
    a character N-Triples does not allow fails as n3 fails.  Arrow's large strings: a pane's column may
    pass 2 GiB."""

    def __init__(self, wanted: frozenset[str] | None):
        self.wanted = wanted
        self.pending: list = []                  # triples gathered, not yet written as text
        self.chunks: dict[str, list] = {}        # predicate text -> [(subjects, objects) Arrow arrays, ...]
        self.texts: dict = {}                    # predicate term -> its text, or None when the query cannot match it

    def add(self, elements) -> None:
        self.pending.extend(chain.from_iterable(map(_TRIPLES, elements)))
        if len(self.pending) >= CHUNK:
            self._write()

    def add_texts(self, rows) -> None:
        """Rows already in N-Triples text, (s, p, o, t) (the warm-up's made-up data)."""
        by: dict[str, tuple[list, list]] = {}
        for s, p, o, _ in rows:
            subjects, objects = by.setdefault(p, ([], []))
            subjects.append(s)
            objects.append(o)
        for p, (subjects, objects) in by.items():
            self.chunks.setdefault(p, []).append((pa.array(subjects, _TEXT), pa.array(objects, _TEXT)))

    def _write(self) -> None:
        """The gathered triples, by predicate (the same term object is the same predicate: no hashing of
        rdflib terms, whose hash is Python code), as text columns."""
        triples, self.pending = self.pending, []
        if not triples:
            return
        ids = np.fromiter(map(id, map(_P, triples)), dtype=np.int64, count=len(triples))
        unique, first = np.unique(ids, return_index=True)
        for pid, i in zip(unique.tolist(), first.tolist()):
            p = triples[i][1]
            text = self.texts.get(p, False)
            if text is False:
                text = n3(p)
                text = self.texts[p] = text if self.wanted is None or text in self.wanted else None
            if text is None:
                continue
            rows = _pick(triples, np.flatnonzero(ids == pid).tolist()) if len(unique) > 1 else triples
            self.chunks.setdefault(text, []).append(
                (_texts(tuple(map(_S, rows))), _texts(tuple(map(_O, rows)))))

    def table(self):
        """The rows as a pyarrow table (s, p, o), one chunk a predicate, in predicate order; then empty."""
        self._write()
        subjects, predicates, objects = [], [], []
        for p_text in sorted(self.chunks):
            parts = self.chunks[p_text]
            subjects.append(pa.concat_arrays([s for s, _ in parts]))
            objects.append(pa.concat_arrays([o for _, o in parts]))
            predicates.append(pa.repeat(pa.scalar(p_text, _TEXT), len(subjects[-1])))
        self.chunks, self.texts = {}, {}
        if not subjects:
            return pa.table({n: pa.array([], _TEXT) for n in "spo"})
        return pa.table({"s": pa.chunked_array(subjects), "p": pa.chunked_array(predicates),
                         "o": pa.chunked_array(objects)})


#: triples gathered before they are written as text: large enough that Arrow's and numpy's fixed costs per
#: call vanish, small enough that what is left at a window's close takes milliseconds
CHUNK = 20_000
_TRIPLES = operator.attrgetter("triples")
_S, _P, _O = operator.itemgetter(0), operator.itemgetter(1), operator.itemgetter(2)
_DATATYPE, _LANGUAGE = operator.attrgetter("_datatype"), operator.attrgetter("_language")
_STRING = XSD.string
_TEXT = pa.large_string()
#: the characters rdflib's n3() refuses in an IRI (:func:`rdflib.term._is_valid_uri`)
_IRI_REFUSES = '<>" {}|\\^`'


def _pick(items, indexes: list[int]) -> tuple:
    return (items[indexes[0]],) if len(indexes) == 1 else operator.itemgetter(*indexes)(items)


def _texts(terms: tuple):
    """The terms' N-Triples text (:func:`sqlterms.n3`'s) as an Arrow array, in order: IRIs and typed
    literals made by joins, any other term by n3; terms of several kinds (or datatypes) a kind at a time.
    Terms are told apart by C calls only (their types; their datatypes by ``str.__eq__``): an rdflib term's
    own hash and equality are Python code, and each literal has its own datatype object."""
    kinds = list(map(type, terms))
    if len(set(kinds)) > 1:
        return _grouped(terms, kinds)
    plain = "".join(terms)
    if kinds and kinds[0] is URIRef:
        if any(c in plain for c in _IRI_REFUSES):  # rdflib's n3 refuses it: its own error
            bad = next(t for t in terms if any(c in t for c in _IRI_REFUSES))
            n3(bad)
            raise ValueError(f"an IRI N-Triples cannot write: <{bad[:200]}>")
        return _decorated(terms, plain, "<", ">")
    if (kinds and kinds[0] is Literal and not any(c in plain for c in '"\\\n\r')
            and not any(map(operator.is_not, map(_LANGUAGE, terms), repeat(None)))):
        datatypes = list(map(_DATATYPE, terms))
        first = datatypes[0]
        if not any(map(operator.is_, datatypes, repeat(None))):
            if not all(map(str.__eq__, datatypes, repeat(first))):
                return _grouped(terms, list(map(str, datatypes)))
            if first != _STRING:
                return _decorated(terms, plain, '"', f'"^^<{first}>')
    return pa.array(list(map(n3, terms)), _TEXT)


def _decorated(terms: tuple, plain: str, before: str, after: str):
    """``before + term + after`` for each term as an Arrow array (``plain``: the terms joined): one join, and
    Arrow's buffers made from it and the terms' lengths (in ASCII, where characters are bytes; else Arrow
    joins them)."""
    if not plain.isascii():
        return pc.binary_join_element_wise(pa.scalar(before, _TEXT), pa.array(terms, _TEXT),
                                           pa.scalar(after, _TEXT), pa.scalar("", _TEXT))
    joined = (before + (after + before).join(terms) + after).encode("ascii")
    offsets = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, terms), dtype=np.int64, count=len(terms)) + len(before) + len(after),
              out=offsets[1:])
    return pa.Array.from_buffers(_TEXT, len(terms), [None, pa.py_buffer(offsets), pa.py_buffer(joined)])


def _grouped(terms: tuple, keys: list):
    """:func:`_texts` of each group of terms with one key, put back in the terms' order."""
    groups: dict = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    parts, order = [], []
    for indexes in groups.values():
        parts.append(_texts(_pick(terms, indexes)))
        order.extend(indexes)
    inverse = np.empty(len(terms), dtype=np.int64)
    inverse[order] = np.arange(len(terms))
    return pa.concat_arrays(parts).take(pa.array(inverse))


def write_parquet(table, path: Path) -> None:
    """One row group a chunk (a predicate's rows): a scan whose filter names a predicate skips the rest by
    the row groups' statistics."""
    with pq.ParquetWriter(str(path), table.schema, compression="none") as out:
        for batch in table.to_batches():
            out.write_batch(batch, row_group_size=len(batch) + 1)


class WindowJob:
    """The query's job over one folder of Parquet files (s, p, o), planned once: each :meth:`answer` links
    a window's files into the folder and runs a copy of the physical plan (``SparkPlan.clone``: fresh lazy
    state, so scans list the folder anew and every operator runs anew; Spark's generated code is reused).
    ``reuse`` False: planned anew each time (a query with fresh draws, whose copies would repeat them)."""

    def __init__(self, spark, folder: Path, static, algebra):
        self.spark, self.algebra = spark, algebra
        self.folder = folder / "window"
        self.folder.mkdir()
        self.empty = folder / "empty.parquet"
        write_parquet(Columns(frozenset()).table(), self.empty)
        self._link([])
        self.schema = StructType([StructField(n, StringType()) for n in "spo"])
        self.frames = {"shared": self._read()}
        if static is not None:
            self.frames["static"] = static
        names = view_names(self.frames)
        # which windows hold a stream triple is known here (a window's files have rows or not): no scan
        self.form, text, projected = solve_sql(names, algebra, None, held=False)
        self.names, self.drawn = tuple(projected), draws(text)
        self.reuse = REUSE_PLAN and not self.drawn
        frame = sql_over(spark, self.frames, names, text)
        self.index = _file_index(self.frames["shared"])
        self.plan = without_exchanges(spark._jvm, frame._jdf.queryExecution().executedPlan())
        self.result_schema = frame._jdf.schema()

    def _read(self):
        frame = self.spark.read.schema(self.schema).parquet(str(self.folder))
        return frame.selectExpr("s", "p", "o", f"CAST(0 AS BIGINT) AS {K}").coalesce(1)

    def _link(self, files: list[Path]) -> None:
        for old in self.folder.iterdir():
            old.unlink()
        for i, path in enumerate(files or [self.empty]):
            os.link(path, self.folder / f"part-{i:06d}.parquet")

    def answer(self, files: list[Path], held: bool) -> Solutions:
        """The solutions of the window whose matchable triples are in ``files`` (``held``: some are)."""
        self._link(files)
        collected = refused_by_name(lambda again: self._sorted() if again else self._run())
        rows = {k: Solutions(self.names, found, self.drawn) for k, found in collected}
        return answers(rows, {0} if held else set(), [0])[0]

    def _run(self) -> list:
        if not self.reuse:
            return self._fresh(lambda frame: frame)
        self.index.refresh()
        session_ = self.spark._jsparkSession
        # a plan node reads the active session when made, per thread: this one answers on its own thread
        _session_class(self.spark._jvm).setActiveSession(session_)
        copy = self.plan.clone()
        frame = DataFrame(session_.internalCreateDataFrame(copy.execute(), self.result_schema, False), self.spark)
        return [(r[0], r[1]) for r in frame.collect()]

    def _sorted(self) -> list:
        """The same job, planned anew over the rows in N-Triples order: which of two refusals a job meets
        first is then the data's, not the files' order (:func:`sqlterms.refused_by_name`).  The sorted rows
        are a lazy checkpoint, a leaf every pattern reads in that order: over the plain sort the optimizer
        pushed each pattern's filter below it, or dropped it."""
        ordered = self._read().sortWithinPartitions("s", "p", "o").localCheckpoint(eager=False)
        try:
            return self._fresh(lambda frame: ordered)
        finally:
            release(ordered)

    def _fresh(self, arrange) -> list:
        frames = {**self.frames, "shared": arrange(self._read())}
        names = view_names(frames)
        _, text, _ = solve_sql(names, self.algebra, None, held=False)
        return [(r[0], r[1]) for r in sql_over(self.spark, frames, names, text).collect()]


def without_exchanges(jvm, plan):
    """``plan`` with each shuffle into one partition replaced by a coalesce into one: the same rows in the same
    one partition, without writing them to shuffle files and reading them back.  The live session has one
    shuffle partition, and the joins still asked for their inputs hashed into it: a fifth of a 10,000-station
    window's JVM CPU (0.40 s against 0.32 s, medians of 40 warm jobs alternated, a ``/tmp`` script)."""
    children = plan.children()
    new = [without_exchanges(jvm, children.apply(i)) for i in range(children.size())]
    if plan.getClass().getSimpleName() == "ShuffleExchangeExec" and plan.outputPartitioning().numPartitions() == 1:
        return jvm.org.apache.spark.sql.execution.CoalesceExec(1, new[0])
    if not new:
        return plan
    seq = jvm.java.util.ArrayList()
    for child in new:
        seq.add(child)
    return plan.withNewChildren(jvm.org.apache.spark.api.python.PythonUtils.toSeq(seq))


def _session_class(jvm):
    """Spark's own SparkSession class (Spark 4 moved it to ``classic``)."""
    sql = jvm.org.apache.spark.sql
    return sql.classic.SparkSession if int(pyspark.__version__.split(".")[0]) >= 4 else sql.SparkSession


def _file_index(frame):
    """The file index of the Parquet scan under ``frame``: refreshed, the plan's copies list the folder anew."""
    node = frame._jdf.queryExecution().analyzed()
    while node.getClass().getSimpleName() != "LogicalRelation":
        node = node.child()
    return node.relation().location()


class Panes:
    """The stretches of time between consecutive window borders (openings and closings), numbered: each window
    is a run of whole panes, and a pane's file serves every window that holds it.  With ``q, r = divmod(range,
    slide)`` a slide's span is one pane when ``r`` is 0, else two, split at ``r`` (where the window that
    opened ``q`` slides earlier closes): a closed ``[o, c]`` window, computed as ``[o, c + 1)``, is three panes
    (1, 4999 and 1 ms), not 5001 panes of the two sizes' greatest common divisor.  With gaps between windows
    (range < slide) a slide's second pane is in no window."""

    def __init__(self, window, t0: int):
        self.t0, self.slide = t0, window.slide
        self.q, self.r = divmod(window.range, window.slide)

    def of(self, t: int) -> int | None:
        """The pane that holds time ``t``; None before t0 or in a gap."""
        if t < self.t0:
            return None
        period, offset = divmod(t - self.t0, self.slide)
        if self.r == 0:
            return period
        if self.q == 0 and offset >= self.r:
            return None
        return 2 * period + (offset >= self.r)

    def span(self, k: int) -> tuple[int, int]:
        """Window ``k``'s panes, ``[first, last + 1)``."""
        if self.r == 0:
            return k, k + self.q
        return 2 * k, 2 * (k + self.q) + 1


class SparkLive:
    """One live run: pushes queued; a formatting thread writes panes, an answering thread answers windows."""

    def __init__(self, engine, request: RunRequest, emit, algebra, closed: bool = False):
        self.emit, self.algebra = emit, algebra
        self.window, self.t0 = request.window, engine.t0
        self.panes = Panes(self.window, self.t0)
        self.spark = spark = session(engine.master, live=True)
        self.reporter = Reporter(request.r2s, closed, template_of(algebra))
        self.folder = Path(tempfile.mkdtemp(prefix="rspconf-spark-live-"))
        # should the process end before the answering thread cleans up (Ctrl-C, SIGTERM), the folder goes then
        self._remove = functools.partial(shutil.rmtree, self.folder, ignore_errors=True)
        atexit.register(self._remove)
        self.columns: dict[int, Columns] = {}           # pane -> its rows not yet written
        self.parts: dict[int, list[Path]] = {}          # pane -> its files written
        self.wanted = matchable_predicates(algebra)
        self.files = itertools.count()                 # pane files, numbered
        self.cond = threading.Condition()
        self.pending: list[tuple[int, list]] = []       # pushes not yet formatted, in order
        self.pending_elements = 0                       # ... and their elements
        self.now: int | None = None                     # latest time pushed (elements or heartbeats)
        self.last: int | None = None                    # latest element time: windows start by it
        self.ended = self.cancelled = self.stopping = False
        self.closed: queue.Queue = queue.Queue()        # (k, files, held, files to delete after) or None
        self.next = 0                                   # the next window to close
        self.format_error: BaseException | None = None
        self.error: BaseException | None = None
        try:
            self.job = WindowJob(spark, self.folder, static_frame(spark, request.stream, algebra), algebra)
            self._warm_up((request.r2r, repr(request.window), self.t0), WARM_UP_RUNS)
        except BaseException:  # cancelled while starting (the harness's start timeout), or Spark failed
            self._remove()
            atexit.unregister(self._remove)
            raise
        self.formatter = threading.Thread(target=self._format, name="rspconf-spark-live-format", daemon=True)
        self.answerer = threading.Thread(target=self._answer, name="rspconf-spark-live-answer", daemon=True)
        self.formatter.start()
        self.answerer.start()

    def _warm_up(self, key: tuple, runs: int) -> None:
        """Run the window's job ``runs`` times before the stream starts, once per query and window in a
        process, over a file made up from the query's patterns (:func:`warm_up_rows`; the stream itself is
        not read ahead), then over larger ones (:data:`WARM_UP_LARGE`).  On a fresh JVM the first job takes
        seconds; then the JIT compiles the job's code paths as they run, with rows (over no rows the joins,
        filters and aggregation never run), many times, and over as many rows as a big window's (their
        Parquet pages, hash tables and memory are others).  At most :data:`WARM_UP_SECONDS` and
        :data:`WARM_UP_LARGE_SECONDS`, though (engines/spark/README.md, "Live")."""
        if _WARMED.get(key, 0) >= runs:
            return
        path, held = self._warm_up_file(WARM_UP_SOLUTIONS)
        started, took = time.monotonic(), 0.0
        for k in range(_WARMED.get(key, 0), runs):
            if time.monotonic() - started > WARM_UP_SECONDS:
                break
            took = self._timed_answer(path, held)
            _WARMED[key] = k + 1
        path.unlink()
        started = time.monotonic()
        for size in WARM_UP_LARGE:
            if took >= WARM_UP_STEP_SECONDS or time.monotonic() - started > WARM_UP_LARGE_SECONDS:
                break
            path, held = self._warm_up_file(size)
            for _ in range(WARM_UP_LARGE_RUNS if size == WARM_UP_LARGE[-1] else 1):
                if time.monotonic() - started > WARM_UP_LARGE_SECONDS:
                    break
                took = self._timed_answer(path, held)
            path.unlink()
        _WARMED[key] = runs  # warm enough: a process warms a query up once

    def _timed_answer(self, path: Path, held: bool) -> float:
        """One warm-up run of the job over ``path``: the seconds it took."""
        ran = time.monotonic()
        self.job.answer([path], held)
        return time.monotonic() - ran

    def _warm_up_file(self, solutions: int) -> tuple[Path, bool]:
        """A Parquet file of ``solutions`` made-up solutions of the query's patterns, and whether it has rows."""
        columns = Columns(None)
        rows = warm_up_rows(self.algebra, solutions, self.t0, self.window.range)
        columns.add_texts(rows)
        path = self.folder / f"warm-up-{solutions}.parquet"
        write_parquet(columns.table(), path)
        return path, bool(rows)

    # -- the live contract ---------------------------------------------------------------------
    def push(self, t: int, elements: list) -> None:
        if self.error is not None:  # the engine died: say so now, not after the whole feed
            raise self.error
        with self.cond:
            if elements:
                self.pending.append((t, elements))
                self.pending_elements += len(elements)
            if self.now is None or t > self.now:
                self.now = t
            if self.pending_elements >= WAKE_ELEMENTS or t >= self.due:
                self.cond.notify()

    def end(self) -> None:
        with self.cond:
            self.ended = True
            self.cond.notify()
        self.answerer.join()  # it stops the formatter and cleans up as it stops
        if self.error is not None:
            raise self.error

    def cancel(self) -> None:
        with self.cond:
            self.cancelled = self.ended = True
            self.cond.notify()
        self.spark.sparkContext.cancelAllJobs()

    # -- the formatting thread -----------------------------------------------------------------
    def _format(self) -> None:
        try:
            while True:
                with self.cond:
                    while not (self.pending_elements >= WAKE_ELEMENTS or self.ended or self.stopping
                               or (self.pending and self.now >= self.due) or self._closable(self.now)):
                        self.cond.wait()
                    if self.cancelled:
                        raise Cancelled("the run was cancelled (timeout)")
                    if self.stopping:
                        return
                    pushes, self.pending, now, ended = self.pending, [], self.now, self.ended
                    self.pending_elements = 0
                for t, elements in pushes:
                    self._add(elements)
                    self._close_up_to(t)
                self._close_up_to(now)
                if ended:
                    self._flush()
                    return
        except Exception as exc:  # noqa: BLE001 - said by the answering thread, which stops on it
            self.format_error = exc
        finally:
            self.closed.put(None)

    def _add(self, elements) -> None:
        """Each element's matchable triples into its pane's columns; an element no open window holds (before
        t0 or the next window, or in a gap between windows that slide by more than their range) is dropped."""
        t0, panes, window = self.t0, self.panes, self.window
        floor = panes.span(self.next)[0]  # the earliest pane an open window holds
        start = 0
        while start < len(elements):
            t = elements[start].t
            end = len(elements) if elements[-1].t == t else start + 1  # the feeder pushes one time at once
            while end < len(elements) and elements[end].t == t:
                end += 1
            if t >= t0 and (self.last is None or t > self.last):  # it starts windows even if none holds it
                self.last = t
                bounded_count(window, t0, t)  # a far-out timestamp: refused by name, not looped over
            pane = panes.of(t)
            if pane is not None and pane >= floor:
                columns = self.columns.get(pane)
                if columns is None:
                    columns = self.columns[pane] = Columns(self.wanted)
                columns.add(elements[start:end])
            start = end

    @property
    def due(self) -> int:
        """The next window's close (a push at or past it wakes the formatting thread)."""
        return self.t0 + self.next * self.window.slide + self.window.range

    def _closable(self, now: int | None) -> bool:
        """Time has passed the next window's close and an element has started it."""
        return (self.last is not None and self.due - self.window.range <= self.last
                and now is not None and now >= self.due)

    def _close_up_to(self, now: int | None) -> None:
        while self._closable(now):
            self._close()

    def _flush(self) -> None:
        """The end of the stream: every window started by the last element closes."""
        if self.last is None:
            return
        count = bounded_count(self.window, self.t0, self.last)
        while self.next < count:
            self._close()

    def _close(self) -> None:
        """Window ``next`` is closed: its panes' new rows written, and it goes to the answering thread with
        its files and those no later window holds (deleted once it is answered)."""
        k = self.next
        lo, hi = self.panes.span(k)
        for pane in sorted(p for p in self.columns if lo <= p < hi):
            table = self.columns.pop(pane).table()
            if table.num_rows:
                path = self.folder / f"pane-{pane}-{next(self.files)}.parquet"
                write_parquet(table, path)
                self.parts.setdefault(pane, []).append(path)
        files = [f for p in sorted(self.parts) if lo <= p < hi for f in self.parts[p]]
        floor = self.panes.span(k + 1)[0]  # the next window's first pane
        done = [f for p in sorted(self.parts) if p < floor for f in self.parts.pop(p)]
        for pane in [p for p in self.columns if p < floor]:  # rows no open window holds
            del self.columns[pane]
        self.next = k + 1
        self.closed.put((k, files, bool(files), done))

    # -- the answering thread ------------------------------------------------------------------
    def _answer(self) -> None:
        error: BaseException | None = None
        try:
            while (item := self.closed.get()) is not None and self.format_error is None:
                k, files, held, done = item
                if self.cancelled:
                    raise Cancelled("the run was cancelled (timeout)")
                solutions = self.job.answer(files, held)
                opening = self.t0 + k * self.window.slide
                self.emit(self.reporter.report(self.job.form, opening, opening + self.window.range, solutions))
                for path in done:
                    path.unlink(missing_ok=True)
            error = self.format_error
        except (Cancelled, Unsupported) as exc:
            error = exc
        except Exception as exc:  # noqa: BLE001 - the engine's failure, raised by push() and end()
            reason = refusal(exc)  # data a window job met that this engine would answer wrongly: by name
            if self.cancelled:  # its job was cancelled (cancelAllJobs)
                error = Cancelled("the run was cancelled (timeout)")
            else:
                error = Unsupported(reason) if reason is not None else Failed(
                    f"the Spark engine's live job failed: {summary(exc)}")
        finally:
            with self.cond:
                self.stopping = True
                self.cond.notify()
            self.formatter.join()
            self._remove()
            atexit.unregister(self._remove)
            if error is None and self.format_error is not None:
                error = self.format_error
            if error is not None and not isinstance(error, (Cancelled, Unsupported, Failed)):
                error = Failed(f"the Spark engine's live run failed: {summary(error)}")
            # said only once the files are gone: push() raises it, and the run may end at once
            self.error = error


NUMBERS = ("integer", "decimal", "float", "double")


def warm_up_rows(algebra, solutions: int, t0: int, span: int) -> list[tuple[str, str, str, int]]:
    """Made-up triples (s, p, o, t) that match the query's triple patterns, ``solutions`` times, their
    times spread over ``[t0, t0 + span)``: the warm-up's data (:meth:`SparkLive._warm_up`).  A variable is
    a fresh IRI per solution; one that is only ever an object is, in turn, a number of each XSD numeric
    type (from 0 to 159, so a numeric FILTER keeps some and drops some), a plain literal or an IRI.
    Constants stay; a variable predicate or a path becomes one made-up predicate."""
    found: list = []
    triple_patterns(algebra, found)
    subjects = {s for s, _, _ in found}

    def term(x, i: int, subject: bool) -> str:
        if isinstance(x, (URIRef, Literal)):
            return n3(x)
        if subject or x in subjects or i % 6 == 5:
            return f"<urn:rspconf:warm-up:{x}:{i}>"
        if i % 6 == 4:
            return f'"warm-up {i}"'
        kind, value = NUMBERS[i % 6], (i * 7) % 160
        lexical = {"integer": f"{value}", "decimal": f"{value}.5", "float": f"{value}.25", "double": f"{value}.0E0"}
        return f'"{lexical[kind]}"^^<{XSD}{kind}>'

    return [(term(s, i, True), n3(p) if isinstance(p, URIRef) else "<urn:rspconf:warm-up:predicate>",
             term(o, i, False), t0 + i * span // solutions)
            for i in range(solutions) for s, p, o in found]


class Failed(RuntimeError):
    """A job of the live engine failed (the kit reports it as the engine's ERROR)."""


def summary(exc: BaseException) -> str:
    """The exception's own first line (a Java exception's message, not py4j's "An error occurred while
    calling …" nor the stack trace), at most 500 characters."""
    java = getattr(exc, "java_exception", None)
    text = str(java.toString()) if java is not None else str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    return f"{type(exc).__name__}: {text[:500]}"
