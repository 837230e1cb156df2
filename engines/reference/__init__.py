"""A deliberately simple, obviously-correct engine for small cases — the kit's test double.

It is written independently of the oracle: windows are computed directly from their definition (every
window instance k with t0 + kβ ≤ the last timestamp holds the elements with t0 + kβ ≤ t < t0 + kβ + ω),
each window reports at its close time with its full content (a time-driven tick with an end-of-stream
flush), and the R2R query runs on rdflib.  Count windows (``count-window``) hold elements k·M … k·M + N − 1
and report when their last element arrives.  The oracle gets to the same answers by simulating SECRET's
Report/Tick functions event by event; agreement of the two is evidence that both are right.

Options (``--engine-option``): ``t0`` (ms, default 0); ``boundary``: ``[o,c)`` (default, SECRET) or
``[o,c]`` (YABench's closed windows: an element stamped c is in the window, which then reports just
after c, and the engine declares the ``closed-windows`` capability).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path

from rdflib import Dataset, Graph, URIRef
from rdflib.paths import AlternativePath, InvPath, MulPath, SequencePath
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.aggregates import Aggregator, Counter
from rdflib.plugins.sparql.sparql import NotBoundError, SPARQLError

from engines import r2s
from engines.contract import EngineInfo, LiveUnsupported, RunRequest
from engines.reference.live import ReferenceLive
from oracle.model import CountWindowSpec, MultiWindowSpec, ObservedReport, ValiditySpec

GROUP_BY = re.compile(r"\bGROUP\s+BY\b", re.IGNORECASE)


class _OncePerPair(MulPath):
    """A ``*``, ``+`` or ``?`` path as SPARQL 1.1 §18.5 has it, a set of pairs: rdflib 7.6's ``MulPath`` gives
    a bound end's zero-length pair again when a walk comes back to it (``:a :p* ?y`` over a → b → a: ``:a``
    twice; case ``paths.zero-length``)."""

    def eval(self, graph, subj=None, obj=None, first=True):
        return iter(dict.fromkeys(super().eval(graph, subj, obj, first)))


def _once_per_pair(path):
    if isinstance(path, MulPath):
        return _OncePerPair(_once_per_pair(path.path), path.mod)
    if isinstance(path, InvPath):
        return InvPath(_once_per_pair(path.arg))
    if isinstance(path, (SequencePath, AlternativePath)):
        return type(path)(*map(_once_per_pair, path.args))
    return path


class _Count(Counter):
    """SPARQL 1.1 §18.5.1.2's Count, "the number of times a given expression has a bound, and non-error value":
    rdflib 7.6 counts an expression's error too, which its expressions hand back as a value (case
    ``aggregates.count-expression-errors``)."""

    def update(self, row, aggregator) -> None:
        try:
            value = self.eval_row(row)
        except NotBoundError:
            return
        if isinstance(value, SPARQLError):
            self.erred()
            return
        self.value += 1
        if self.distinct:
            self.seen.add(value)

    def erred(self) -> None:
        """The expression erred for a solution: left out (a fault engine does otherwise)."""


COUNT = "Aggregate_Count_Reference"  # the name this engine's COUNT runs under in rdflib's algebra
Aggregator.accumulator_classes[COUNT] = _Count


@lru_cache(maxsize=64)
def _query(text: str, paths=_once_per_pair, count: str = COUNT):
    """The R2R query as rdflib prepares it, each path in a triple pattern a set of pairs (:class:`_OncePerPair`)
    and each COUNT SPARQL's (:class:`_Count`), with the prefixes a fresh graph binds, as ``Graph.query`` reads a
    text.  ``paths``: how each path is rewritten; ``count``: the accumulator each COUNT runs under (a fault engine
    runs others: ``Aggregate_Count`` is rdflib's own)."""
    query = prepareQuery(text, initNs=dict(Graph().namespaces()))
    pending = [query.algebra]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if node.get("triples") and getattr(node, "name", None) == "BGP":
                node["triples"] = [(s, paths(p), o) for s, p, o in node["triples"]]
            if getattr(node, "name", None) == "Aggregate_Count":
                node.name = count
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return query


CAPABILITIES = frozenset({
    "time-window", "sliding-window", "aggregates", "group-by", "filter", "optional", "union", "subquery",
    "order-by", "construct", "ask", "rstream", "istream", "dstream", "event-graphs", "static-data",
    "empty-windows", "joins-across-time", "large-stream", "count-window", "time-annotated",
    "multi-window", "merged-windows", "property-paths", "group-concat",
})


class EngineCancelled(RuntimeError):
    """Raised inside a cancelled run's thread, which then ends."""


class ReferenceEngine:
    name = "reference"

    def __init__(self, t0: int | str = 0, boundary: str = "[o,c)", **options):
        if options:
            raise ValueError(f"unknown option(s) {sorted(options)} for the reference engine; it takes t0 and boundary")
        if boundary not in ("[o,c)", "[o,c]"):
            raise ValueError(f"boundary {boundary!r}: the reference engine implements '[o,c)' and '[o,c]'")
        self.t0 = int(t0)
        self.closed = boundary == "[o,c]"
        self._working: int | None = None  # the thread last seen evaluating windows
        self._cancelled: set[int] = set()

    def cancel(self) -> None:
        """Stop the run that has passed its case timeout (the harness calls this): its thread stops at the
        next window instead of working on, unseen, while later cases run."""
        if self._working is not None:
            self._cancelled.add(self._working)

    def still_wanted(self) -> None:
        """Called once per window: raises in a run that was cancelled."""
        self._working = threading.get_ident()
        if self._working in self._cancelled:
            self._cancelled.discard(self._working)  # a thread's ident is reused once it has ended
            raise EngineCancelled("the run was cancelled after its case timeout")

    def info(self) -> EngineInfo:
        return EngineInfo(
            name=self.name, version="1", dialect="sparql",
            capabilities=CAPABILITIES | ({"closed-windows"} if self.closed else set()),
            profile={"t0": self.t0, "report": ["window-close"], "tick": "time-driven", "grain": "multiple",
                     "empty": True, "boundary": "[o,c]" if self.closed else "[o,c)",
                     "close": ">" if self.closed else ">=", "end_of_stream": "flush",
                     "count_unit": "element", "count_t0": 0, "instants": "any-close"},
            alignment="window", expectations=self.expectations_path())

    def expectations_path(self) -> Path | None:
        path = Path(__file__).parent / "expectations.yaml"
        return path if path.exists() else None

    # -- the engine -------------------------------------------------------------------------------
    def windows(self, request: RunRequest):
        """(opening, closing, elements) of every window instance that has started by the last element."""
        elements = request.stream.elements
        if not elements:
            return
        if isinstance(request.window, CountWindowSpec):
            yield from self.count_windows(request)
            return
        last = elements[-1].t
        k = 0
        while self.t0 + k * request.window.slide <= last:
            self.still_wanted()
            o = self.t0 + k * request.window.slide
            c = o + request.window.range
            yield o, c, [e for e in elements if self.inside(o, c, e.t)]
            k += 1

    def count_windows(self, request: RunRequest):
        """Count windows by their definition: window k holds elements k·M … k·M + N − 1 (full windows from
        the first element); its borders are the times of its first and last element.  At the end, the
        windows that have started but not filled report what they hold (the end-of-stream flush)."""
        elements, size, step = request.stream.elements, request.window.count, request.window.slide
        k = 0
        while k * step < len(elements):
            inside = elements[k * step:k * step + size]
            yield inside[0].t, inside[-1].t, inside
            k += 1

    def inside(self, o: int, c: int, t: int) -> bool:
        """Whether time t falls in the time window [o, c) (or [o, c] with closed windows)."""
        return o <= t < c or (self.closed and t == c)

    def report_window(self, request: RunRequest, o: int, c: int, inside: list, previous):
        """(report, its relation) of one time or count window: its content evaluated, R2S against the
        previous window's relation, stamped with the window and its report time (batch and live runs)."""
        kind, current = self.evaluate(request, self.content(request, o, c, inside))
        tau = c + 1 if self.closed and not isinstance(request.window, CountWindowSpec) else c
        return ObservedReport(self.r2s(request.r2s, current, previous, kind), tau=tau, window=(o, c)), current

    @staticmethod
    def prepared(text: str):
        """The R2R query as rdflib runs it here (:func:`_query`; a fault engine may run another)."""
        return _query(text)

    def content(self, request: RunRequest, o: int, c: int, inside: list) -> list:
        return inside

    def evaluate(self, request: RunRequest, elements: list) -> tuple[str, list]:
        g = Graph()
        for triple in request.stream.static:
            g.add(triple)
        for element in elements:
            for triple in element.triples:
                g.add(triple)
        return self.answer(g.query(self.prepared(request.r2r)), GROUP_BY.search(request.r2r) is not None)

    @staticmethod
    def answer(result, grouped: bool = False) -> tuple[str, list]:
        """(query form, answer) of an rdflib query result: a bool, sorted triples, or rows of bound values
        (``grouped``: the query has a GROUP BY)."""
        if result.type == "ASK":
            return "ASK", bool(result.askAnswer)
        if result.type == "CONSTRUCT":
            return "CONSTRUCT", sorted(result.graph, key=lambda t: tuple(x.n3() for x in t))
        # the bindings: iterating a result skips a solution that binds nothing (MAX over nothing is one);
        # but rdflib's GROUP BY over nothing gives one empty solution where there is no group at all
        rows = [{str(v): term for v, term in binding.items() if term is not None} for binding in result.bindings]
        return "SELECT", [] if grouped and not any(rows) else rows

    def r2s(self, operator: str, current, previous, kind: str):
        return current if kind == "ASK" else r2s.apply(operator, current, previous)

    def facts_valid_at(self, request: RunRequest, t: int) -> list:
        """Time-annotated data: the facts valid at t, by the annotations' plain meaning — an interval
        [t, until) holds at t; an expiring fact holds until it expires, or until a later fact about the
        same subjects and predicates is published."""
        elements = request.stream.elements
        out = []
        for i, e in enumerate(elements):
            if e.t > t:
                continue
            if e.until is not None and not self.holds(t, e.until):
                continue
            if e.expires is not None:
                about = self.about(e)
                newer = any(o.expires is not None and o.t <= t and self.about(o) == about for o in elements[i + 1:])
                if not self.holds(t, e.expires) or newer:
                    continue
            out.append(e)
        return out

    def about(self, element) -> set:
        """What an expiring fact is about — its (subject, predicate) pairs: a later fact about the same
        is its newer version."""
        return {(s, p) for s, p, _ in element.triples}

    def holds(self, t: int, end: int) -> bool:
        """Whether a fact whose validity ends at ``end`` still holds at t (the end is excluded)."""
        return t < end

    def changes(self, starts: set, ends: set) -> set:
        """The instants at which the valid set may change: each start and each end."""
        return starts | ends

    def validity_instants(self, request: RunRequest):
        """(instant, facts valid then): polling every ``every`` ms from 0, or at each change of the valid set."""
        elements = request.stream.elements
        starts = {e.t for e in elements}
        ends = {x for e in elements for x in (e.until, e.expires) if x is not None}
        if not starts:
            return
        if request.window.every is not None:
            for t in range(0, max(starts | ends) + 1, request.window.every):
                self.still_wanted()
                yield t, self.facts_valid_at(request, t)
            return
        previous = None
        for t in sorted(self.changes(starts, ends)):
            now = self.facts_valid_at(request, t)
            if previous is None or [id(e) for e in now] != [id(e) for e in previous]:
                yield t, now
            previous = now

    def on_change_only(self, request: RunRequest) -> bool:
        """Whether instants where no window's content changed are skipped (the query's content-change)."""
        return request.window.instants == "content-change"

    def closed_by(self, t: int) -> int:
        """The time by which an instance must have closed to be read at evaluation instant t: t itself (the
        instance closing at t is in)."""
        return t

    def skips_answer(self, request: RunRequest, current, previous) -> bool:
        """Whether an evaluation is left unreported for its answer: never (content-change looks at the
        windows' contents, before the query runs)."""
        return False

    def window_t0(self, window) -> int:
        """The t0 of one of several named windows: the engine's t0 for all of them."""
        return self.t0

    def seen_until(self, request: RunRequest, window) -> float:
        """The latest close of ``window`` (one of several) the engine sees: every one, as it flushes at the
        end of the stream."""
        return float("inf")

    def read_as(self, request: RunRequest, window):
        """The window whose stream, range and slide fill the named graph of ``window`` (itself)."""
        return window

    def counted(self, request: RunRequest, window) -> list[int]:
        """The indexes of the elements a count window counts: those of its own stream."""
        return [i for i, e in enumerate(request.stream.elements) if e.stream == window.stream]

    def count_instances(self, request: RunRequest, window) -> list[tuple[int, list[int]]]:
        """(close time, element indexes) of each instance of a count window that fills: instance k holds
        the counted elements k·M … k·M + N − 1 (of its own stream) and closes when the last of them
        arrives, at its time.  One that never fills never closes (a count window has no clock)."""
        elements, counted = request.stream.elements, self.counted(request, window)
        out, k = [], 0
        while k * window.slide + window.count <= len(counted):
            inside = counted[k * window.slide:k * window.slide + window.count]
            out.append((elements[inside[-1]].t, [i for i in inside if elements[i].stream == window.stream]))
            k += 1
        return out

    def evaluation_times(self, request: RunRequest, closes: dict[str, set]) -> list[int]:
        """When a query over several windows is evaluated, from each window's closing times: whenever one
        closes (any-close, content-change), when all do at once, or when the designated one does — as the
        request says; a query that says nothing is evaluated whenever one closes (the declared any-close)."""
        instants = request.window.instants
        if instants == "closes-of":
            return sorted(closes[request.window.driver])
        return sorted(set.intersection(*closes.values()) if instants == "all-close" else set().union(*closes.values()))

    def multi_window_reports(self, request: RunRequest) -> list[ObservedReport]:
        """Several named windows: evaluate whenever one closes (or only when all close at once, or when a
        designated one does); each window then holds its latest closed instance — the elements of its
        stream in it (a time window), or the last N it has counted (a count window) — and the query reads
        it as the named graph of its name."""
        elements = request.stream.elements
        if not elements:
            return []
        last = elements[-1].t
        closes, counts = {}, {}
        for w in request.window.windows:
            if w.count is not None:
                counts[w.name] = self.count_instances(request, w)
                closes[w.name] = {c for c, _ in counts[w.name]}
            else:
                t0 = self.window_t0(w)
                seen = self.seen_until(request, self.read_as(request, w))
                closes[w.name] = {c for c in (t0 + k * w.slide + w.range for k in range((last - t0) // w.slide + 1))
                                  if c <= seen}
        reports, previous, held_before = [], [], None
        for t in self.evaluation_times(request, closes):
            held, by = {}, self.closed_by(t)
            for named in request.window.windows:
                w = self.read_as(request, named)
                if w.count is not None:
                    closed = [inside for c, inside in counts[w.name] if c <= by]
                    held[named.name] = closed[-1] if closed else []
                    continue
                t0 = self.window_t0(named)
                n = (by - t0 - w.range) // w.slide  # the latest instance that has closed by t
                o = t0 + n * w.slide
                held[named.name] = [] if n < 0 else [
                    i for i, e in enumerate(elements) if e.stream == w.stream and self.inside(o, o + w.range, e.t)]
            if self.on_change_only(request) and held == (held_before or {name: [] for name in held}):
                continue  # content-change: no window's elements changed since the last close
            held_before = held
            kind, current = self.evaluate_held(request, held)
            if self.skips_answer(request, current, previous):
                continue
            reports.append(ObservedReport(self.r2s(request.r2s, current, previous, kind), tau=t, window=(t, t)))
            previous = current
        return reports

    def evaluate_held(self, request: RunRequest, held: dict[str, list[int]]) -> tuple[str, list]:
        """(query form, answer) over the windows' contents (each window's element indexes by its name), each
        the named graph of its name — or, merged (C-SPARQL), all in the default graph as one RDF graph."""
        elements, ds = request.stream.elements, Dataset()
        for triple in request.stream.static:
            ds.add(triple)
        for name, indexes in held.items():
            g = ds if request.window.merged else ds.graph(URIRef(name))
            for i in indexes:
                for triple in elements[i].triples:
                    g.add(triple)
        return self.answer(ds.query(self.prepared(request.r2r)), GROUP_BY.search(request.r2r) is not None)

    def live(self, request: RunRequest, emit):
        """A live session (conformance/load/live.py): time windows over one stream, reported as they close.
        A test engine whose fault is in its batch ``run`` has no live mode (the live session would not
        have the fault, and would pass for it)."""
        if type(self).run is not ReferenceEngine.run:
            raise LiveUnsupported(f"{self.name}'s behaviour is in its batch run: it has no live mode")
        return ReferenceLive(self, request, emit)

    def run(self, request: RunRequest) -> list[ObservedReport]:
        if isinstance(request.window, MultiWindowSpec):
            return self.multi_window_reports(request)
        if isinstance(request.window, ValiditySpec):
            reports, previous = [], []
            for t, valid in self.validity_instants(request):
                kind, current = self.evaluate(request, valid)
                reports.append(ObservedReport(self.r2s(request.r2s, current, previous, kind), tau=t, window=(t, t)))
                previous = current
            return reports
        reports = []
        previous: list = []
        for o, c, inside in self.windows(request):
            report, previous = self.report_window(request, o, c, inside, previous)
            reports.append(report)
        return reports
