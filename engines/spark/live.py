"""The Spark engine live (``rspconf load``, streaming mode): what is pushed is buffered, and each window
is answered by one Spark batch job as soon as time passes its close.

Why not Structured Streaming (measured, engines/spark/README.md "Live"): a micro-batch costs 0.3–0.8 s
whatever it holds, so a window could not be reported within 250 ms of its close, and Spark's socket
source (a test source) fell behind at once at YABench's big load.  Here the engine is its own trigger:

- ``push`` only queues (the feeder must not wait).  A worker thread writes what was pushed as YABench
  lines into *segment* files; a segment is read and parsed by Spark in the JVM, cut to the triples the
  query can match, and kept as a local checkpoint (blocks in memory) with its time span.
- A segment is cut when time passes a window's close, and between closes whenever enough lines have
  gathered (:data:`SEGMENT_LINES`) or the oldest push has waited :data:`CUT_AFTER` (unless the next close
  is due sooner than :data:`CUT_MARGIN`), so the work left at a close is small whatever the load.  Both
  grow with the time the last cut took (:data:`CUT_DUTY`): a cut's job has a fixed cost, and at a large
  load cuts as often as that would keep the worker busy with them and hold up the close.  A cut folds the
  small segments just before it into its own (:data:`MERGE_AT`), so a close does not read dozens.
- At a close, one job answers every window that closed (over the segments that overlap them).  The pushes
  before the close not yet cut go into that job, as a VALUES list in its text when few
  (:data:`VALUES_TRIPLES`), else as a segment file parsed within it (lazily checkpointed, so parsed
  once); the pushes at or after the close are cut once its reports are out.
- Segments older than the earliest open window are released (their blocks and files): memory follows
  the window, not the run.  At the end of the stream the windows still open are flushed.

A job that fails stops the worker; the failure is raised by the next ``push`` or by ``end()`` (an ERROR
carrying Spark's exception, not a timeout; a job stopped by a refusal, ``Unsupported`` with its reason).
Whenever the worker stops (end of stream, failure, cancel) its blocks and files go with it.  Same windows
and answers as replay (the same :func:`windowjob.solve`).
"""

from __future__ import annotations

import contextlib
import itertools
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from rdflib import Literal, URIRef
from rdflib.namespace import XSD

from engines.contract import RunRequest, Unsupported
from engines.spark import ingest
from engines.spark.algebra import triple_patterns
from engines.spark.reporter import NONE, Reporter, template_of
from engines.spark.session import session
from engines.spark.sqlterms import n3, refusal, refused_by_name, sql_string
from engines.spark.streaming import Cancelled
from engines.spark.windowjob import (
    NOTHING,
    answers,
    assign,
    matchable,
    matchable_condition,
    matchable_predicates,
    release,
    solve,
    static_frame,
    window_instances,
)
from oracle.model import triple_count

WARM_UP_RUNS = 120  # the close's job over made-up data, per query and window in a process (see _warm_up)
WARM_UP_SOLUTIONS = 250  # of the query's patterns, in that data
WARM_UP_SECONDS = 30.0  # or until this long has passed (a join's job is slower: 120 runs took some 45 s)
_WARMED: dict[tuple, int] = {}  # (query, window, t0) -> warm-up runs this process's JVM has done
SEGMENT_LINES = 20_000  # between closes, a segment is parsed once this many lines have gathered
CUT_AFTER = 0.25  # s: or once its oldest push has waited this long (a light load: little left for the close)
CUT_MARGIN = 0.15  # s: but not when the next close is due sooner (at the stream's pace): that job waits for no cut
# both grow with what the last cut's job took (it has a fixed cost, 0.1-0.3 s at 10,000 stations): a cut
# waits at least CUT_DUTY times that, so the cuts' jobs take at most 1/CUT_DUTY of the worker's time, and
# none starts when the close is due before it would end
CUT_DUTY = 2.0
# a cut folds the segments cut just before it into its own, when they are this many or more and hold at most
# MERGE_TRIPLES in all: a close's job reads every segment of its window, and at a light load cuts come every
# CUT_AFTER (50 stations: a close over 20 segments 0.29 s best, 0.39 s median; over 5, 0.19 and 0.24 s; over
# 1, 0.16 and 0.22 s).  A large load's segments are larger than that and are left as they are
MERGE_AT = 4
MERGE_TRIPLES = 20_000
# what is left for a close's own job, up to this many triples, goes into it as an SQL VALUES list: no file to
# write, scan and parse (at 50 stations the close's job took 0.14 s so, against 0.19 s with a file)
VALUES_TRIPLES = 2_000
VALUES_CHARACTERS = 1_000_000  # and up to this much text


@dataclass
class Segment:
    """Parsed, query-matchable triples of the pushes between two cuts, kept in the JVM."""
    first: int          # earliest element time in it
    last: int           # latest
    frame: object       # DataFrame (s, p, o, __k): assigned to windows, locally checkpointed
    size: int           # matchable triples in it
    path: Path | None   # its file, kept until released: a lazy checkpoint that no job has read yet
                        # still reads it (None: its triples are in the query text, VALUES_TRIPLES)

    def release(self) -> None:
        release(self.frame)
        if self.path is not None:
            self.path.unlink(missing_ok=True)


class SparkLive:
    """One live run: pushes queued, a worker thread that parses segments and answers closed windows."""

    def __init__(self, engine, request: RunRequest, emit, algebra, closed: bool = False):
        self.emit, self.algebra = emit, algebra
        self.window, self.t0 = request.window, engine.t0
        self.spark = spark = session(engine.master)
        self.reporter = Reporter(request.r2s, closed, template_of(algebra))
        self.static = static_frame(spark, request.stream, algebra)
        self.nothing = matchable_condition(algebra) == NOTHING
        self.writer = LineWriter(matchable_predicates(algebra))
        self.folder = Path(tempfile.mkdtemp(prefix="rspconf-spark-live-"))
        self.cond = threading.Condition()
        self.pending: list[tuple[int, list]] = []   # pushes not yet written, in order
        self.pending_lines = 0
        self.pending_since = 0.0                      # when the oldest of them came (monotonic s)
        self.pace: tuple[float, int] | None = None    # (monotonic s, time) of the first push: the stream's pace
        self.now: int | None = None                   # latest time pushed (elements or heartbeats)
        self.now_wall = 0.0                           # when it was pushed (monotonic s)
        self.last: int | None = None                  # latest element time: windows start by it
        self.ended = self.cancelled = False
        self.segments: list[Segment] = []
        self.cuts = itertools.count()                 # segment files, numbered
        self.reported = 0                             # windows reported so far (in order)
        self.form = "SELECT"
        self.cut_took = 0.0                           # s: the last segment cut ahead of a close (its job)
        self.error: BaseException | None = None
        try:
            self._warm_up((request.r2r, repr(request.window), self.t0), WARM_UP_RUNS)
        except BaseException:  # cancelled while starting (the harness's start timeout), or Spark failed
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        self.thread = threading.Thread(target=self._work, name="rspconf-spark-live", daemon=True)
        self.thread.start()

    def _warm_up(self, key: tuple, runs: int) -> None:
        """Run the close's job ``runs`` times before the stream starts, once per query and window in a
        process: over a checkpointed segment and a few triples in its text, both made up from the query's
        patterns (:func:`warm_up_rows`; the stream itself is not read ahead).  On a fresh JVM the first
        window's job took 5.7 s; then the JVM's JIT compiles the job's code paths as they run, with rows
        (over an empty segment the joins, filters and aggregation never run) and many times: a 50-station
        window's job took 0.23 s after 20 runs over an empty segment, 0.15 s after 20 with rows and about
        0.09 s after 200 (engines/spark/README.md, "Live").  At most :data:`WARM_UP_SECONDS`, though.

        The made-up triples go the ways a stream's do: every fourth run its segment is cut anew from a
        file, and one close in four has its last pushes as a file parsed within its job, the others as a
        VALUES list.  With VALUES alone, a large load's first cut found the file paths cold (20,000
        pushed triples at 10,000 stations: 1.6-2.2 s in 5 runs; warmed so, 0.2-0.56 s in 6)."""
        if self.nothing or _WARMED.get(key, 0) >= runs:
            return
        rows = warm_up_rows(self.algebra, WARM_UP_SOLUTIONS, self.t0, self.window.range)  # all matchable
        path = self._empty()
        if rows:
            path = self.folder / "warm-up.nt"
            path.write_text("".join(f'{s} {p} {o} "{t}" .\n' for s, p, o, t in rows), encoding="utf-8")
        segment = None
        started = time.monotonic()
        try:
            for k in range(_WARMED.get(key, 0), runs):
                if time.monotonic() - started > WARM_UP_SECONDS:
                    _WARMED[key] = runs  # warm enough: a process warms a query up once
                    break
                if segment is None or k % 4 == 0:  # a segment cut ahead, parsed from its file
                    if segment is not None:
                        release(segment)
                        segment = None
                    segment = self._assigned(str(path)).localCheckpoint(eager=True)
                if not rows:
                    last = None
                elif k % 4 == 2:  # the close's last pushes as a file parsed within its job (a large load)
                    last = self._assigned(str(path))
                else:  # or in its text (a small one: most closes)
                    last = assign(self.spark, self._values_of(rows[k % len(rows):][:20]), self.window, self.t0)
                last = None if last is None else last.localCheckpoint(eager=False)
                try:
                    solve(self.spark, segment if last is None else segment.unionByName(last), self.static,
                          self.algebra, [0])
                finally:
                    if last is not None:
                        release(last)
                _WARMED[key] = k + 1
        finally:
            if segment is not None:
                release(segment)

    def _empty(self) -> Path:
        """An empty segment file (the warm-up's input; a close with no segment)."""
        path = self.folder / "empty.nt"
        if not path.exists():
            path.write_text("", encoding="utf-8")
        return path

    # -- the live contract ---------------------------------------------------------------------
    def push(self, t: int, elements: list) -> None:
        if self.error is not None:  # the engine died: say so now, not after the whole feed
            raise self.error
        with self.cond:
            if self.pace is None:
                self.pace = (time.monotonic(), t)
            if elements:
                if not self.pending:
                    self.pending_since = time.monotonic()
                self.pending.append((t, elements))
                self.pending_lines += triple_count(elements)
                self.last = t if self.last is None else max(self.last, t)
            if self.now is None or t > self.now:
                self.now, self.now_wall = t, time.monotonic()
            self.cond.notify()

    def end(self) -> None:
        with self.cond:
            self.ended = True
            self.cond.notify()
        self.thread.join()  # the worker cleans up as it stops
        if self.error is not None:
            raise self.error

    def cancel(self) -> None:
        with self.cond:
            self.cancelled = self.ended = True
            self.cond.notify()
        self.spark.sparkContext.cancelAllJobs()

    # -- the worker ----------------------------------------------------------------------------
    def _due(self, now: int | None, last: int | None, ended: bool) -> bool:
        """Some window has closed (time reached its close and an element has started it), or the
        stream ended (the rest is flushed)."""
        if ended:
            return True
        opening = self.t0 + self.reported * self.window.slide
        return (last is not None and opening <= last
                and now is not None and now >= opening + self.window.range)

    def _close_in(self) -> float | None:
        """Seconds of wall-clock time until the next window closes (negative: since it closed), at the
        pace the stream has come so far, from its first push to its latest (None while there is no pace
        yet, or the stream has ended)."""
        if self.pace is None or self.now is None or self.ended:
            return None
        (wall, start), span = self.pace, self.now_wall - self.pace[0]
        if span < 0.5 or self.now <= start:
            return None
        per_second = (self.now - start) / span
        close = self.t0 + self.reported * self.window.slide + self.window.range
        return wall + (close - start) / per_second - time.monotonic()

    def _cut_wait(self) -> float | None:
        """0 when the pending pushes should be cut into a segment now, ahead of the close that needs
        them (they have waited :data:`CUT_AFTER` or number :data:`SEGMENT_LINES`, and the next close is
        not due within :data:`CUT_MARGIN`; each grown with the last cut's time, :data:`CUT_DUTY`); else
        how long to wait before asking again (None: until the next push)."""
        if not self.pending or self.nothing:
            return None
        age = time.monotonic() - self.pending_since
        after = max(0.0 if self.pending_lines >= SEGMENT_LINES else CUT_AFTER, CUT_DUTY * self.cut_took)
        if age < after:
            return after - age
        close_in = self._close_in()
        if close_in is not None and close_in < max(CUT_MARGIN, self.cut_took):
            # the push that shows time passing the close is due: they go into its job.  Should it be late,
            # ask again just after the close; past it, wait for that push (no polling)
            return close_in + 0.01 if close_in > 0 else None
        return 0.0

    def _work(self) -> None:
        error: BaseException | None = None
        try:
            while True:
                with self.cond:
                    while not self._due(self.now, self.last, self.ended):
                        wait = self._cut_wait()
                        if wait == 0.0:
                            break
                        self.cond.wait(wait)
                    if self.cancelled:
                        raise Cancelled("the run was cancelled (timeout)")
                    pushes, self.pending, self.pending_lines = self.pending, [], 0
                    now, last, ended = self.now, self.last, self.ended
                self._step(pushes, now, last, ended)
                if ended:
                    return
        except (Cancelled, Unsupported) as exc:
            error = exc
        except Exception as exc:  # noqa: BLE001 - the engine's failure, raised by push() and end()
            reason = refusal(exc)  # data a window job met that this engine would answer wrongly: by name
            error = Unsupported(reason) if reason is not None else Failed(
                f"the Spark engine's live job failed: {summary(exc)}")
        finally:
            self._cleanup()
            # said only once the blocks and files are gone: push() raises it, and the run may end at once
            self.error = error

    def _step(self, pushes, now: int | None, last: int | None, ended: bool) -> None:
        """What the worker does with the pushes it took: cut a segment, and answer the windows that
        have closed if any.  At a close only the pushes before the last closing window's close are
        parsed within its job; the later ones (the push that showed time passing the close, say) are
        cut after the reports are out."""
        if not self._due(now, last, ended):
            self._segment(pushes, eager=True)
            return
        windows = window_instances(self.window, self.t0, last)
        upto = len(windows) if ended else sum(1 for _, c in windows if c <= now)
        later = []
        if not ended and upto > self.reported:
            close = windows[upto - 1][1]  # the last closing window's
            later = [p for p in pushes if p[0] >= close]
            pushes = [p for p in pushes if p[0] < close]
        self._segment(pushes, eager=False)
        self._answer(windows, upto)
        self._segment(later, eager=True)

    def _values(self, pushes):
        """The pushes' matchable triples as an SQL VALUES list and their number, or None when there are
        more than :data:`VALUES_TRIPLES` or their text is longer than :data:`VALUES_CHARACTERS` (a file
        parsed in the JVM is then cheaper than the query text)."""
        rows = []
        for _, elements in pushes:
            rows += self.writer.rows(elements)
            if len(rows) > VALUES_TRIPLES:
                return None
        frame = self._values_of(rows)
        return None if frame is None else (frame, len(rows))

    def _values_of(self, rows):
        """Rows (s, p, o, t) as an SQL VALUES list (None: none, or over :data:`VALUES_CHARACTERS`)."""
        if not rows:
            return None
        text = ", ".join(f"({sql_string(a)}, {sql_string(b)}, {sql_string(c)}, CAST({t} AS BIGINT))"
                         for a, b, c, t in rows)
        if len(text) > VALUES_CHARACTERS:  # a few huge literals: the query text would be the cost
            return None
        return self.spark.sql(f"SELECT * FROM VALUES {text} AS v(s, p, o, t)")

    def _segment(self, pushes, eager: bool) -> Segment | None:
        """Write ``pushes`` as one segment file and read it into the JVM: now (``eager``, a job of its
        own, which folds in the small segments cut just before, :meth:`_foldable`) or by the next job that
        reads it (a lazy checkpoint, materialised once)."""
        if not pushes or self.nothing:
            return None
        values = None if eager else self._values(pushes)
        first, fold = pushes[0][0], []
        if values is not None:  # for the close's job: in its text
            path, (frame, size) = None, values
            frame = assign(self.spark, frame, self.window, self.t0).localCheckpoint(eager=False)
        else:
            path, size = self.folder / f"segment-{next(self.cuts):08d}.nt", 0
            with path.open("w", encoding="utf-8") as out:
                for _, elements in pushes:
                    lines = self.writer.lines(elements)
                    size += len(lines)
                    out.writelines(lines)
            started = time.monotonic()
            frame = self._assigned(str(path))
            if eager:
                fold = self._foldable(size)
                for s in fold:
                    frame = frame.unionByName(s.frame)
            frame = frame.localCheckpoint(eager=eager)
            if eager:
                self.cut_took = time.monotonic() - started
        if fold:  # their rows are in the new segment's blocks now
            for s in fold:
                s.release()
            self.segments = self.segments[:-len(fold)]
            first, size = fold[0].first, size + sum(s.size for s in fold)
        segment = Segment(first, pushes[-1][0], frame, size, path)
        self.segments.append(segment)
        if eager and path is not None:  # held in the JVM now; a lazy one reads its file until a job reads it
            path.unlink(missing_ok=True)
        return segment

    def _foldable(self, size: int) -> list[Segment]:
        """The segments a cut of ``size`` triples folds into its own (:data:`MERGE_AT`): the latest ones,
        in order, none older than the earliest open window, while all hold at most :data:`MERGE_TRIPLES`."""
        opening = self.t0 + self.reported * self.window.slide
        run: list[Segment] = []
        for s in reversed(self.segments):
            if s.first < opening or size + s.size > MERGE_TRIPLES:
                break
            run.insert(0, s)
            size += s.size
        return run if len(run) + 1 >= MERGE_AT else []

    def _assigned(self, path: str):
        """A segment file's matchable triples, each assigned to the windows that hold it and
        partitioned by window (:func:`windowjob.assign`): the close's job then only answers."""
        return assign(self.spark, matchable(ingest.parse(self.spark.read.text(path)), self.algebra), self.window, self.t0)

    def _answer(self, windows: list[tuple[int, int]], upto: int) -> None:
        """One job for the windows from the first not yet reported up to ``upto`` (those closed by now, all
        started ones at the end), reported in order; then release the segments no open window needs."""
        if upto > self.reported:
            only = list(range(self.reported, upto))
            lo, hi = windows[only[0]][0], windows[only[-1]][1]
            parts = [s.frame for s in self.segments if s.last >= lo and s.first < hi]
            windowed = parts[0] if parts else self._assigned(str(self._empty()))
            for part in parts[1:]:
                windowed = windowed.unionByName(part)
            self.form, rows, held = self._solve(windowed, only)
            rows = answers(rows, held, only)
            for k in only:
                o, c = windows[k]
                self.emit(self.reporter.report(self.form, o, c, rows.get(k, NONE)))
            self.reported = upto
        opening = self.t0 + self.reported * self.window.slide  # the earliest window still open
        keep = []
        for s in self.segments:
            if s.last < opening:
                s.release()
            else:
                keep.append(s)
        self.segments = keep

    def _solve(self, windowed, only: list[int]):
        """:func:`windowjob.solve` for the windows ``only``; a refused job replayed window by window, in
        order, each window's triples in N-Triples order (:func:`sqlterms.refused_by_name`).  A batch run's
        replay, :func:`engines.spark.in_order`, keeps the elements' order within a window; a live window's
        rows no longer carry their times."""
        def by_window():
            ordered = windowed.sortWithinPartitions("s", "p", "o")  # one window is in one partition
            for k in only:
                solve(self.spark, ordered, self.static, self.algebra, [k])

        return refused_by_name(lambda again: by_window() if again else
                               solve(self.spark, windowed, self.static, self.algebra, only))

    def _cleanup(self) -> None:
        for s in self.segments:
            with contextlib.suppress(Exception):  # the session may be gone, the blocks with it
                s.release()
        self.segments = []
        shutil.rmtree(self.folder, ignore_errors=True)


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


class LineWriter:
    """Elements as YABench lines (``<s> <p> <o> "t" .``), only the triples the query can match
    (:func:`windowjob.matchable_predicates`, the same cut Spark makes after parsing), each term's text
    made once while it repeats.  At YABench's big load this process formats 70,000 triples/s beside
    the feeder (600,000 at ten times that): the cut and the cache take the lines Spark parses to 4 in 7
    and the formatting from 2.4 to 0.8 µs per pushed triple (bench/live_lines.py, 10,000 stations).

    Why the walk is written as it is: a predicate's text and whether the query wants it are one lookup;
    a triple with the subject of the one before reuses its text (an element's triples share a few
    subjects) without hashing it; and the cache is keyed by the terms themselves (an rdflib literal's
    hash is Python code, 0.6 µs, an IRI's is the string's, cached)."""

    LIMIT = 200_000  # terms remembered; past it the memory starts over (subjects rarely repeat long)

    def __init__(self, wanted: frozenset[str] | None):
        self.wanted = wanted
        self.texts: dict = {}
        self.predicates: dict = {}  # predicate -> its text, or None when the query cannot match it

    def rows(self, elements) -> list[tuple[str, str, str, int]]:
        """(s, p, o, t) of the triples the query can match, terms as N-Triples."""
        return self._walk(elements, False)

    def lines(self, elements) -> list[str]:
        """The same triples as YABench lines (the hot path at a large load)."""
        return self._walk(elements, True)

    def _walk(self, elements, as_lines: bool) -> list:
        texts, predicates, wanted, out = self.texts, self.predicates, self.wanted, []
        subject = subject_text = None
        for element in elements:
            t = element.t
            stamp = f' "{t}" .\n'
            for s, p, o in element.triples:
                p_text = predicates.get(p, False)
                if p_text is False:
                    if len(predicates) >= self.LIMIT:
                        predicates.clear()
                    p_text = n3(p)
                    p_text = predicates[p] = p_text if wanted is None or p_text in wanted else None
                if p_text is None:
                    continue
                if s is not subject:
                    subject, subject_text = s, texts.get(s)
                    if subject_text is None:
                        if len(texts) >= self.LIMIT:
                            texts.clear()
                        subject_text = texts[s] = n3(s)
                o_text = texts.get(o)
                if o_text is None:
                    if len(texts) >= self.LIMIT:
                        texts.clear()
                    o_text = texts[o] = n3(o)
                out.append(f"{subject_text} {p_text} {o_text}{stamp}" if as_lines else (subject_text, p_text, o_text, t))
        return out


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
