"""Deliberately wrong engines: the kit must classify each of them correctly.

Each one is the reference engine with one classic RSP bug, while still declaring the reference
engine's (correct) profile and windows — exactly what a buggy engine does.  ``FAULTS`` maps each
engine to the failure pattern (``oracle.judge.explain.FINDINGS``) the kit must name for it;
``tests/test_fault_engines.py`` checks that the corpus fails each on at least three cases and says why.
"""

from __future__ import annotations

import math
import queue
import re
import threading
import time
from dataclasses import replace

from rdflib import BNode, Graph, Literal, URIRef, Variable
from rdflib.namespace import XSD
from rdflib.paths import AlternativePath, InvPath, SequencePath
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.aggregates import Aggregator
from rdflib.plugins.sparql.evaluate import evalPart
from rdflib.plugins.sparql.sparql import QueryContext

from engines import r2s as engine_r2s
from engines.contract import RunRequest, Unsupported
from engines.reference import GROUP_BY, ReferenceEngine, _Count, _once_per_pair, _query
from engines.reference.live import ReferenceLive
from oracle.model import MultiWindowSpec, ObservedReport, ValiditySpec, WindowSpec


class NullEngine(ReferenceEngine):
    """Answers nothing at all."""

    name = "testing-null"

    def run(self, request: RunRequest) -> list[ObservedReport]:
        return []


class ShiftedEngine(ReferenceEngine):
    """Uses window borders shifted later by half a slide, but declares the nominal borders."""

    name = "testing-shifted"

    def content(self, request, o, c, inside):
        shift = max(1, request.window.slide // 2)
        return [e for e in request.stream.elements if o + shift <= e.t < c + shift]


class ShiftedT0Engine(ReferenceEngine):
    """Opens its windows at t0 = 3 (option ``shift``) while declaring the t0 it was given (0 by default): a t0
    mixed up between configuration and code. Its reports declare the borders it really used."""

    name = "testing-shifted-t0"

    def __init__(self, shift: int | str = 3, **options):
        super().__init__(**options)
        self.declared_t0, self.t0 = self.t0, self.t0 + int(shift)

    def info(self):
        info = super().info()
        return replace(info, profile={**info.profile, "t0": self.declared_t0})


class IgnoredSlideEngine(ReferenceEngine):
    """Slides each time window by its range, whatever slide the query asks for (tumbling windows), declaring
    the borders it really used."""

    name = "testing-ignored-slide"

    def run(self, request):
        if isinstance(request.window, WindowSpec):
            request = replace(request, window=replace(request.window, slide=request.window.range))
        return super().run(request)


class LatePurgeEngine(ReferenceEngine):
    """Purges late: keeps each window's elements for one extra slide (CQELS's Q6/Q7 bug in CSRBench)."""

    name = "testing-late-purge"

    def content(self, request, o, c, inside):
        return [e for e in request.stream.elements if o - request.window.slide <= e.t < c]


class WrongR2SEngine(ReferenceEngine):
    """Always streams the whole relation (Rstream), whatever R2S the query asks for."""

    name = "testing-wrong-r2s"

    def r2s(self, operator, current, previous, kind):
        return current


class SetDifferenceR2SEngine(ReferenceEngine):
    """Istream/Dstream by *set* difference: one earlier copy of a solution cancels every later copy."""

    name = "testing-set-difference"

    def r2s(self, operator, current, previous, kind):
        if kind == "ASK" or operator == "rstream":
            return current
        a, b = (current, previous) if operator == "istream" else (previous, current)
        gone = {engine_r2s.row_key(r) for r in b}
        return [r for r in a if engine_r2s.row_key(r) not in gone]


class OutOfOrderEngine(ReferenceEngine):
    """Emits the second window's report before the first one's (both correctly labelled and timed)."""

    name = "testing-out-of-order"

    def run(self, request: RunRequest) -> list[ObservedReport]:
        reports = super().run(request)
        if len(reports) >= 2:
            reports[0], reports[1] = reports[1], reports[0]
        return reports


class PerSolutionStartsEngine(ReferenceEngine):
    """Moves its window start one slide per solution it reports (rsp-js's t0 bookkeeping): its relations are
    right, but each report declares a window opening (solutions of the report before) × slide after the one
    before, and its time is that window's close."""

    name = "testing-per-solution-starts"

    def run(self, request: RunRequest) -> list[ObservedReport]:
        reports = super().run(request)
        window = request.window
        if type(window) is not WindowSpec:  # one time window: its reports declare time borders
            return reports
        out, opening = [], None
        for r in reports:
            if r.window is None or isinstance(r.solutions, bool):
                return reports
            opening = r.window[0] if opening is None else opening
            out.append(replace(r, window=(opening, opening + window.range), tau=opening + window.range))
            opening += len(r.solutions) * window.slide
        return out


class GoesQuietEngine(ReferenceEngine):
    """Makes its first two reports, then none, while declaring the reference engine's profile: windows that
    drifted away from the stream (rsp-js 1.1.2's t0 drift), or a job that died without a word."""

    name = "testing-goes-quiet"
    KEPT = 2

    def run(self, request: RunRequest) -> list[ObservedReport]:
        return super().run(request)[:self.KEPT]


class HeldGrainEngine(ReferenceEngine):
    """Declares a tuple-driven tick with a single grain — of the windows an element closes, the latest reports —
    but reports the latest that holds an element, as an engine whose windows exist only once filled does
    (rsp-js's, had it declared single).  Rstream SELECT only (the fault is in which window reports)."""

    name = "testing-held-grain"

    def info(self):
        info = super().info()
        return replace(info, profile={**info.profile, "tick": "tuple-driven", "grain": "single", "close": ">",
                                      "report": ["window-close", "non-empty-content"], "empty": False,
                                      "end_of_stream": "drop"})

    def run(self, request: RunRequest) -> list[ObservedReport]:
        if request.r2s != "rstream" or type(request.window) is not WindowSpec:
            raise Unsupported("testing-held-grain runs Rstream over one time window only")
        every = [r for r in super().run(request) if r.window is not None]  # every window, at its close
        if any(isinstance(r.solutions, bool) for r in every):
            raise Unsupported("testing-held-grain runs SELECT and CONSTRUCT only")
        every.sort(key=lambda r: r.window[1])
        out, i = [], 0
        for t in sorted({e.t for e in request.stream.elements}):
            closed = []
            while i < len(every) and every[i].window[1] < t:  # an element after c closes [o, c)
                closed.append(every[i])
                i += 1
            held = [r for r in closed if any(r.window[0] <= e.t < r.window[1] for e in request.stream.elements)]
            if held and held[-1].solutions:  # the fault: the latest that holds an element, not closed[-1]
                out.append(replace(held[-1], tau=t))
        return out


class DstreamLateEngine(ReferenceEngine):
    """Reports each window's Dstream one window late (the first window reports nothing new)."""

    name = "testing-dstream-late"

    def run(self, request: RunRequest) -> list[ObservedReport]:
        reports = super().run(request)
        if request.r2s != "dstream" or not reports or isinstance(reports[0].solutions, bool):
            return reports
        late = [[]] + [r.solutions for r in reports[:-1]]
        return [ObservedReport(s, tau=r.tau, window=r.window) for s, r in zip(late, reports)]


class DistinctEngine(ReferenceEngine):
    """Removes duplicate solutions from every relation (as some recorders do), declaring bags."""

    name = "testing-distinct"

    def evaluate(self, request, elements):
        kind, current = super().evaluate(request, elements)
        if kind != "SELECT":
            return kind, current
        seen, out = set(), []
        for row in current:
            key = engine_r2s.row_key(row)
            if key not in seen:
                seen.add(key)
                out.append(row)
        return kind, out


class PathWalksEngine(ReferenceEngine):
    """Runs ``*`` and ``?`` paths as rdflib 7.6's own ``MulPath`` does: a bound end's zero-length pair comes
    again when a walk returns to it (``ex:a ex:next* ?y`` over a cycle: ``ex:a`` twice), where SPARQL 1.1
    §18.5 has a set of pairs.  The reference engine's own fault until 2026-11-29, found by ``paths.zero-length``."""

    name = "testing-path-walks"

    @staticmethod
    def prepared(text: str):
        return text


class _EachPairOnce(AlternativePath):
    def eval(self, graph, subj=None, obj=None):
        return iter(dict.fromkeys(super().eval(graph, subj, obj)))


def _alternatives_once(path):
    """The reference engine's paths (a ``*``, ``+`` or ``?`` one a set of pairs), each alternative a set too."""
    if isinstance(path, AlternativePath):
        return _EachPairOnce(*map(_alternatives_once, path.args))
    if isinstance(path, SequencePath):
        return SequencePath(*map(_alternatives_once, path.args))
    if isinstance(path, InvPath):
        return InvPath(_alternatives_once(path.arg))
    return _once_per_pair(path)


class AlternativeSetsEngine(ReferenceEngine):
    """Runs an alternative path ``p|q`` as Oxigraph 0.5 does: each pair it connects once, where SPARQL 1.1 §18.5
    has the Union of its sides, a bag (``ex:a (ex:knows|ex:follows) ?y`` with both triples to ``ex:b``: ``ex:b``
    once).  Found by ``paths.alternative-bag``."""

    name = "testing-alternative-sets"

    @staticmethod
    def prepared(text: str):
        return _query(text, _alternatives_once)


class NoEmptyAggregateEngine(ReferenceEngine):
    """Gives no row where an aggregate over no match is 0 (SPARQLstream's Q4 fault)."""

    name = "testing-no-empty-aggregate"

    def evaluate(self, request, elements):
        kind, current = super().evaluate(request, elements)
        if kind == "SELECT" and len(current) == 1 and current[0] and all(
                isinstance(v, Literal) and isinstance(v.toPython(), (int, float)) and v.toPython() == 0
                for v in current[0].values()):
            return kind, []
        return kind, current


class CountOverrunEngine(ReferenceEngine):
    """Count windows one unit too wide: each holds N + 1 elements from its start and so closes one element
    late (an off-by-one in the count), while declaring the case's window."""

    name = "testing-count-overrun"

    def count_windows(self, request):
        elements, size, step = request.stream.elements, request.window.count + 1, request.window.slide
        k = 0
        while k * step < len(elements):
            inside = elements[k * step:k * step + size]
            yield inside[0].t, inside[-1].t, inside
            k += 1


class TiesExtendEngine(ReferenceEngine):
    """Count windows that take in every element sharing the timestamp of their last one: ties in time
    extend the window beyond its count (the case's window declared)."""

    name = "testing-count-ties"

    def count_windows(self, request):
        elements, size, step = request.stream.elements, request.window.count, request.window.slide
        k = 0
        while k * step < len(elements):
            end = min(k * step + size, len(elements))
            filled = k * step + size <= len(elements)  # a window the end of the stream flushes takes no ties
            while filled and end < len(elements) and elements[end].t == elements[end - 1].t:
                end += 1
            inside = elements[k * step:end]
            yield inside[0].t, inside[-1].t, inside
            k += 1


class CountSlideAsTimeEngine(ReferenceEngine):
    """Applies a count window's slide as time: once the first window is full, every ``slide`` ms up to the
    last element it reports the last ``count`` elements that have arrived (a timer where a counter was
    meant); no flush."""

    name = "testing-count-slide-as-time"

    def count_windows(self, request):
        elements, size, step = request.stream.elements, request.window.count, request.window.slide
        if len(elements) < size:
            return
        tau = elements[size - 1].t
        while tau <= elements[-1].t:
            inside = [e for e in elements if e.t <= tau][-size:]
            yield inside[0].t, tau, inside
            tau += step


class TripleCountEngine(ReferenceEngine):
    """Count windows that count triples where the engine declares events (count_unit element): an event of
    three triples fills a window of three by itself.  Time windows are unchanged."""

    name = "testing-triple-count"

    def run(self, request):
        stream = request.stream
        split = [replace(e, triples=(triple,)) for e in stream.elements for triple in e.triples]
        return super().run(replace(request, stream=replace(stream, elements=split)))


class ClosedValidityEngine(ReferenceEngine):
    """Time-annotated data read with the end included: a fact still holds at its tmp:final or expiration
    time (and the valid set changes one millisecond later)."""

    name = "testing-closed-validity"

    def holds(self, t, end):
        return t <= end

    def changes(self, starts, ends):
        return starts | {end + 1 for end in ends}


class KeepsOldVersionsEngine(ReferenceEngine):
    """Expiring facts are never replaced: an old version holds until its own expiration."""

    name = "testing-keeps-old-versions"

    def facts_valid_at(self, request, t):
        return [e for e in request.stream.elements if e.t <= t and (e.until is None or t < e.until)
                and (e.expires is None or t < e.expires)]


class ReplacesBySubjectEngine(ReferenceEngine):
    """Expiring facts replaced by subject: a newer fact about a train replaces its older ones, whatever
    their predicate (a newer delay removes the platform)."""

    name = "testing-replaces-by-subject"

    def about(self, element) -> set:
        return {s for s, _, _ in element.triples}


class EveryChangePointEngine(ReferenceEngine):
    """Time-annotated data, data-driven: evaluates at every start, end and expiration time, also where the valid
    facts did not change (a replaced fact's own expiry, which the minimal expiration time skips)."""

    name = "testing-every-change-point"

    def validity_instants(self, request):
        if request.window.every is not None:
            yield from super().validity_instants(request)
            return
        elements = request.stream.elements
        points = {e.t for e in elements} | {x for e in elements for x in (e.until, e.expires) if x is not None}
        for t in sorted(points):
            yield t, self.facts_valid_at(request, t)


class PollOffByOneEngine(ReferenceEngine):
    """A client of time-annotated data that polls one unit late: every p + 1 ms where the query asks every
    p (a period counted from the end of one poll to the start of the next, say)."""

    name = "testing-poll-off-by-one"

    def run(self, request):
        window = request.window
        if isinstance(window, ValiditySpec) and window.every is not None:
            request = replace(request, window=replace(window, every=window.every + 1))
        return super().run(request)


class OneWindowEngine(ReferenceEngine):
    """Several named windows read as one: every window gets the content of the first (rsp-js is known to
    mishandle the first of two windows on one stream; this is the simplest such fault)."""

    name = "testing-one-window"

    def read_as(self, request, window):
        return request.window.windows[0]


class SwappedEngine(ReferenceEngine):
    """Of two named windows, each fills the other's graph: their names swapped (a mix-up of window IRIs)."""

    name = "testing-swapped"

    def read_as(self, request, window):
        windows = request.window.windows
        if len(windows) != 2:
            return window
        return windows[1] if window.name == windows[0].name else windows[0]


class NoStaticEngine(ReferenceEngine):
    """A query over several windows runs without the static data: its default graph is empty."""

    name = "testing-no-static"

    def run(self, request):
        if isinstance(request.window, MultiWindowSpec):
            request = replace(request, stream=replace(request.stream, static=()))
        return super().run(request)


class HiddenClosingEngine(ReferenceEngine):
    """Several windows: at each evaluation instant every window shows its instance closed before it, not the one
    closing then (the closing instance is not in yet when the query runs)."""

    name = "testing-hidden-closing"

    def closed_by(self, t: int) -> int:
        return t - 1


class StarvedEngine(ReferenceEngine):
    """One window per stream: of several windows over one stream only the last declared is fed, the others
    hold nothing (rsp-js 1.3.5 keys its streams by name, so the last window registered replaces the rest)."""

    name = "testing-starved"

    def read_as(self, request, window):
        last = {w.stream: w.name for w in request.window.windows}
        return window if last[window.stream] == window.name else replace(window, stream="urn:rspconf:fed-nothing")


class EveryCloseEngine(ReferenceEngine):
    """Evaluates a content-change query at every window close, also where no window's content changed."""

    name = "testing-every-close"

    def on_change_only(self, request) -> bool:
        return False


class ResultChangeEngine(ReferenceEngine):
    """Evaluates a content-change query at every close and reports only where the answer differs from the
    last one reported (from nothing before the first): the result's change taken for the content's."""

    name = "testing-result-change"

    def on_change_only(self, request) -> bool:
        return False

    def skips_answer(self, request, current, previous) -> bool:
        if request.window.instants != "content-change":
            return False
        if not isinstance(current, list):  # ASK: a bool
            return current == previous
        def bag(answer):  # rows (SELECT) or triples (CONSTRUCT), as a sorted list of their N3
            return sorted(repr(sorted((k, v.n3()) for k, v in x.items()) if isinstance(x, dict)
                               else [v.n3() for v in x]) for x in answer)
        return bag(current) == bag(previous)


class AnyCloseEngine(ReferenceEngine):
    """Evaluates a query whose instants are one designated window's closes whenever any window closes."""

    name = "testing-any-close"
    instead_of = "closes-of"  # the instants policy it evaluates at every close instead

    def evaluation_times(self, request, closes):
        if request.window.instants == self.instead_of:
            return sorted(set().union(*closes.values()))
        return super().evaluation_times(request, closes)


class CountFlushEngine(ReferenceEngine):
    """Count windows among several windows flushed at the end of the stream: each instance that started and
    never filled closes at the stream's last element with the elements it holds (the reference engine's
    lone count windows are flushed; among several windows a count window has no clock to close it)."""

    name = "testing-count-flush"

    def count_instances(self, request, window):
        out = super().count_instances(request, window)
        elements, counted = request.stream.elements, self.counted(request, window)
        k = len(out)
        while k * window.slide < len(counted):
            inside = counted[k * window.slide:]
            out.append((elements[-1].t, [i for i in inside if elements[i].stream == window.stream]))
            k += 1
        return out


class LendsOpenEngine(ReferenceEngine):
    """Several time windows, each evaluating the query by itself (rsp-js 1.3.5's evaluation, without its t0
    drift): when an element of a window's stream arrives after some of its instances closed, the latest of
    them is evaluated if it holds an element, once per time; every other window lends the earliest-closing
    of its instances [o, c] around the time of that instance's last element, as far as it has arrived.  An
    element opens the instances around its time; a window drops those closed before its stream's latest
    element.  Each evaluation is stamped with the time of the element that makes it.  No flush."""

    name = "testing-lends-open"

    def multi_window_reports(self, request):
        windows = request.window.windows
        if len(windows) < 2 or any(w.count is not None for w in windows):
            return super().multi_window_reports(request)
        elements = request.stream.elements
        live = {w.name: {} for w in windows}  # (open, close) -> element indexes, per window
        evaluated_at = {w.name: -math.inf for w in windows}
        reports, previous = [], []
        for i, e in enumerate(elements):
            for w in (w for w in windows if w.stream == e.stream):
                mine, t0 = live[w.name], self.window_t0(w)
                first = t0 + math.ceil((e.t - t0) / w.slide) * w.slide  # the first close at or after e.t
                for close in range(first, e.t + w.range + 1, w.slide):
                    mine.setdefault((close - w.range, close), [])
                for (o, c), held in mine.items():
                    if o <= e.t < c:
                        held.append(i)
                ended = sorted(k for k in mine if k[1] < e.t)
                if ended and e.t > evaluated_at[w.name]:
                    evaluated_at[w.name] = e.t
                    closing = ended[-1]
                    if mine[closing]:
                        at = elements[mine[closing][-1]].t
                        held = {w.name: mine[closing]}
                        for v in windows:
                            if v.name != w.name:
                                around = sorted(k for k in live[v.name] if k[0] <= at <= k[1])
                                held[v.name] = list(live[v.name][around[0]]) if around else []
                        kind, current = self.evaluate_held(request, held)
                        reports.append(ObservedReport(self.r2s(request.r2s, current, previous, kind),
                                                      tau=e.t, window=(e.t, e.t)))
                        previous = current
                for k in ended:
                    del mine[k]
        return reports


class SharedCountEngine(ReferenceEngine):
    """Count windows among several windows count every stream's elements in one sequence (the position in
    the whole arrival order), then keep their own stream's: a count window over a stream holds fewer
    than N of its elements and closes when another stream's element arrives."""

    name = "testing-shared-count"

    def counted(self, request, window):
        return list(range(len(request.stream.elements)))


class UnmergedEngine(ReferenceEngine):
    """Reads each window of a query that merges them (C-SPARQL's dataset) as a named graph of its own."""

    name = "testing-unmerged"

    def run(self, request):
        if isinstance(request.window, MultiWindowSpec) and request.window.merged:
            request = replace(request, window=replace(request.window, merged=False))
        return super().run(request)


class MergedDuplicatesEngine(ReferenceEngine):
    """Merges the windows of a merged query (C-SPARQL's dataset) keeping duplicates: a triple two windows hold
    is in the default graph twice, and every match of it counts twice (a bag, not an RDF merge).  For a SELECT
    of one basic graph pattern; any other query as the reference engine."""

    name = "testing-merged-duplicates"

    def evaluate_held(self, request, held):
        query = prepareQuery(request.r2r) if request.window.merged else None
        top = query.algebra.p if query is not None else None
        inner = top.p if top is not None and top.name == "Project" else None
        while inner is not None and inner.name == "Filter":
            inner = inner.p
        if inner is None or inner.name != "BGP":
            return super().evaluate_held(request, held)
        elements, copies = request.stream.elements, {}
        for triple in request.stream.static:
            copies[triple] = copies.get(triple, 0) + 1
        for indexes in held.values():
            for triple in {t for i in indexes for t in elements[i].triples}:
                copies[triple] = copies.get(triple, 0) + 1
        graph = Graph()
        for triple in copies:
            graph.add(triple)
        everything = re.sub(r"SELECT\s+.*?\s+WHERE", "SELECT * WHERE", request.r2r, count=1, flags=re.I | re.S)
        rows = []
        for binding in graph.query(everything).bindings:
            weight = 1
            for pattern in inner.triples:
                weight *= copies.get(tuple(binding.get(x, x) for x in pattern), 0)
            row = {str(v): binding[v] for v in top.PV if binding.get(v) is not None}
            rows.extend([row] * weight)
        return "SELECT", rows


class DroppingMultiEngine(ReferenceEngine):
    """No fault: the reference engine without a flush (``end_of_stream: drop``) — among several windows a
    close is seen only when an element of any stream reaches it (at its time: close ``>=``).  The baseline
    of :class:`OwnClockEngine`, and an implementation of drop the oracle's is checked against."""

    name = "testing-drop"

    def info(self):
        info = super().info()
        return replace(info, profile={**info.profile, "end_of_stream": "drop"})

    def seen_until(self, request, window):
        return request.stream.elements[-1].t


class OwnClockEngine(DroppingMultiEngine):
    """Without a flush, each of several windows sees time pass only by its own stream's elements: a window
    whose stream has gone quiet never closes again (rsp-js: each window is fed and triggered by its own
    stream)."""

    name = "testing-own-clock"

    def seen_until(self, request, window):
        own = [e.t for e in request.stream.elements if e.stream == window.stream]
        return own[-1] if own else float("-inf")


class NotAllCloseEngine(AnyCloseEngine):
    """Evaluates an all-close query whenever any window closes (rsp-js evaluates at each window's close)."""

    name = "testing-not-all-close"
    instead_of = "all-close"


class EmptyGroupJoinEngine(ReferenceEngine):
    """A join with an aggregate subquery over a window that holds nothing gives no solution, although such
    a group is one row (COUNT 0): Comunica 2.10.2 inside rsp-js passes the group's input cardinality 0 to
    its join, which then returns nothing.  Read from the query text: a ``{ SELECT (…) WHERE { GRAPH <w> …``
    subquery is over window w."""

    name = "testing-empty-group-join"
    SUBQUERY = re.compile(r"\{\s*SELECT\s*\([^{}]*\)\s*WHERE\s*\{\s*GRAPH\s*<([^>]+)>", re.I)

    def evaluate_held(self, request, held):
        grouped = self.SUBQUERY.findall(request.r2r)
        if len(grouped) and request.r2r.count("SELECT") > 1 and any(not held.get(w) for w in grouped):
            return "SELECT", []  # the join is empty
        return super().evaluate_held(request, held)


class OptionalInnerEngine(ReferenceEngine):
    """Reads OPTIONAL as an inner join: a solution the optional part does not extend is dropped."""

    name = "testing-optional-inner"

    def run(self, request):
        return super().run(replace(request, r2r=re.sub(r"\bOPTIONAL\b", "", request.r2r, flags=re.I)))


class SharedBlankNodeEngine(ReferenceEngine):
    """Fills a CONSTRUCT template's blank nodes once per window, not once per solution: every solution's
    triples share them, as a template filled by substituting its variables alone would (SPARQL 1.1
    §16.2.1 makes them fresh for each solution)."""

    name = "testing-shared-blank-node"

    def evaluate(self, request, elements):
        query = prepareQuery(request.r2r)
        template = query.algebra.get("template") if query.algebra.name == "ConstructQuery" else None
        if not template:  # not a CONSTRUCT with a template of its own
            return super().evaluate(request, elements)
        graph = Graph()
        for triple in (*request.stream.static, *(t for e in elements for t in e.triples)):
            graph.add(triple)
        context = QueryContext(graph)
        context.prologue = query.prologue
        shared: dict = {}  # the fault: one blank node per template label for the whole window
        filled = set()
        for solution in evalPart(context, query.algebra.p):
            for pattern in template:
                triple = tuple(solution.get(x) if isinstance(x, Variable) else
                               shared.setdefault(x, BNode(f"shared{len(shared)}")) if isinstance(x, BNode) else x
                               for x in pattern)
                if None not in triple and not isinstance(triple[0], Literal) and isinstance(triple[1], URIRef):
                    filled.add(triple)
        return "CONSTRUCT", sorted(filled, key=lambda t: tuple(x.n3() for x in t))


class WrongAnswerEngine(ReferenceEngine):
    """The reference engine with a fault in the relation it computes: :meth:`wrong` rewrites each evaluated
    relation (a window's, a validity instant's, several windows' at an instant) before R2S."""

    def evaluate(self, request, elements):
        return self.wrong(request, *super().evaluate(request, elements))

    def evaluate_held(self, request, held):
        return self.wrong(request, *super().evaluate_held(request, held))

    def wrong(self, request, kind: str, rows):
        raise NotImplementedError

    @staticmethod
    def each_term(kind: str, rows, change):
        """(kind, rows) with every value of a SELECT's rows replaced by ``change(variable, term)``."""
        if kind != "SELECT":
            return kind, rows
        return kind, [{k: change(k, v) for k, v in row.items()} for row in rows]


def named(pattern: re.Pattern, request, grouped: bool = False) -> set[str]:
    """The variables ``pattern`` (an aggregate ``… AS ?v``) names in the query; ``grouped``: only in a query
    with GROUP BY."""
    return set() if grouped and not GROUP_BY.search(request.r2r) else set(pattern.findall(request.r2r))


class PlainLiteralsEngine(WrongAnswerEngine):
    """Writes every literal of its answers as plain text: numbers as strings, datatypes and language tags
    dropped (a driver that prints the lexical form only)."""

    name = "testing-plain-literals"

    def wrong(self, request, kind, rows):
        return self.each_term(kind, rows, lambda _, v: Literal(str(v)) if isinstance(v, Literal) else v)


class RegionDroppedEngine(WrongAnswerEngine):
    """Cuts each language tag of its answers to its primary subtag: "cat"@en-GB comes out as "cat"@en (a
    driver that keeps only the language)."""

    name = "testing-region-dropped"

    def wrong(self, request, kind, rows):
        def cut(_, v):
            if isinstance(v, Literal) and v.language and "-" in v.language:
                return Literal(str(v), lang=v.language[:v.language.index("-")])
            return v
        return self.each_term(kind, rows, cut)


class AvgIntegerEngine(WrongAnswerEngine):
    """Computes AVG as an integer division: each ``AVG(…) AS ?v`` of the query comes out as the floor of
    the mean, an xsd:integer (a driver that divides a sum of integers by a count in integer arithmetic)."""

    name = "testing-avg-integer"
    AVERAGE = re.compile(r"AVG\s*\(.*?\)\s*AS\s*\?(\w+)", re.I | re.S)

    def wrong(self, request, kind, rows):
        names = named(self.AVERAGE, request)

        def floor(name, term):
            if name in names and isinstance(term, Literal) and term.datatype is not None:
                return Literal(math.floor(float(term)), datatype=XSD.integer)
            return term
        return self.each_term(kind, rows, floor)


class NumberPrecisionEngine(WrongAnswerEngine):
    """Prints its numbers with 12 significant digits (``%.12g``, a driver's number format): an integer of
    13 or more digits loses its last digits (1700000000001 comes out as 1700000000000)."""

    name = "testing-number-precision"

    def wrong(self, request, kind, rows):
        def printed(_, term):
            if isinstance(term, Literal) and term.datatype == XSD.integer and len(str(term).lstrip("+-")) >= 13:
                return Literal(int(float(f"{int(term):.12g}")), datatype=XSD.integer)
            return term
        return self.each_term(kind, rows, printed)


class CountAllEngine(ReferenceEngine):
    """Reads COUNT(DISTINCT …) as COUNT(…): every repeated value counted again."""

    name = "testing-count-distinct"

    def run(self, request):
        return super().run(replace(request, r2r=re.sub(r"(COUNT\s*\()\s*DISTINCT\s+", r"\1", request.r2r, flags=re.I)))


class CountErrorsEngine(ReferenceEngine):
    """Counts an expression's errors in COUNT, as rdflib 7.6 does: ``COUNT(?c * 1.8 + 32)`` counts a reading
    of "N/A" too (SPARQL counts only the bound, non-error values)."""

    name = "testing-count-errors"

    @staticmethod
    def prepared(text: str):
        return _query(text, count="Aggregate_Count")  # rdflib's own COUNT


class _CountUnboundOnError(_Count):
    """A COUNT that is an error, unbound, once its expression errs in the group."""

    error = False

    def erred(self) -> None:
        self.error = True

    def set_value(self, bindings) -> None:
        if not self.error:
            super().set_value(bindings)


Aggregator.accumulator_classes["Aggregate_Count_Unbound_On_Error"] = _CountUnboundOnError


class CountErrorUnboundEngine(ReferenceEngine):
    """Leaves a COUNT of an expression unbound in a group where the expression errs, as Oxigraph 0.5 and
    rsp-js 1.3.5 do: ``COUNT(?c * 1.8 + 32)`` over 20, "N/A", 30 gives no ``?n`` (SPARQL: 2)."""

    name = "testing-count-error-unbound"

    @staticmethod
    def prepared(text: str):
        return _query(text, count="Aggregate_Count_Unbound_On_Error")


class ConcatAllEngine(ReferenceEngine):
    """Reads GROUP_CONCAT(DISTINCT …) as GROUP_CONCAT(…): every repeated value joined again."""

    name = "testing-concat-distinct"

    def run(self, request):
        return super().run(replace(request, r2r=re.sub(r"(GROUP_CONCAT\s*\()\s*DISTINCT\s+", r"\1", request.r2r,
                                                       flags=re.I)))


class AskEmptyTrueEngine(ReferenceEngine):
    """Answers ASK true over a window that holds no element (as if 'nothing failed')."""

    name = "testing-ask-empty-true"

    def report_window(self, request, o, c, inside, previous):
        report, current = super().report_window(request, o, c, inside, previous)
        if not inside and report.solutions is False:
            report = replace(report, solutions=True)
        return report, current


#: a COUNT of the query (``COUNT(…) AS ?v``)
COUNTS = re.compile(r"COUNT\s*\([^)]*\)\s*AS\s*\?(\w+)", re.I)


class DropsEmptyGroupsEngine(WrongAnswerEngine):
    """Drops a group whose COUNT is 0 (a GROUP BY over an OPTIONAL part that matched nothing): the solutions
    whose ``COUNT(…) AS ?v`` is 0 are left out."""

    name = "testing-drops-empty-groups"

    def wrong(self, request, kind, rows):
        names = named(COUNTS, request, grouped=True)
        if kind != "SELECT" or not names:
            return kind, rows
        return kind, [row for row in rows if not any(str(row.get(n)) == "0" for n in names)]


class CountUnboundEngine(WrongAnswerEngine):
    """Leaves a COUNT of 0 unbound in a grouped query (rsp-js's Comunica does, for a group whose counted
    values are all unbound: an OPTIONAL that matched nothing)."""

    name = "testing-count-unbound"

    def wrong(self, request, kind, rows):
        names = named(COUNTS, request, grouped=True)
        if kind != "SELECT" or not names:
            return kind, rows
        return kind, [{k: v for k, v in row.items() if not (k in names and str(v) == "0")} for row in rows]


class GroupOverNothingEngine(WrongAnswerEngine):
    """A grouped query over a window where nothing matches answers one group, its aggregates 0 (as rdflib's
    own evaluation does): SPARQL's GROUP BY over no solution makes no group."""

    name = "testing-group-over-nothing"
    AGGREGATES = re.compile(r"(?:COUNT|SUM)\s*\([^)]*\)\s*AS\s*\?(\w+)", re.I)

    def wrong(self, request, kind, rows):
        names = named(self.AGGREGATES, request, grouped=True)
        if kind != "SELECT" or not names or rows:
            return kind, rows
        return kind, [{n: Literal(0, datatype=XSD.integer) for n in sorted(names)}]


#: each fault engine and the failure pattern the kit must name for it (tests/test_fault_engines.py): on
#: the count-window, time-annotated and multi-window families, and on the rest of the corpus
COUNT_FAULTS = {CountOverrunEngine: "count", TiesExtendEngine: "count", CountSlideAsTimeEngine: "count"}
VALIDITY_FAULTS = {ClosedValidityEngine: "closed-end", KeepsOldVersionsEngine: "keeps-old-versions",
                   PollOffByOneEngine: "poll-period", ReplacesBySubjectEngine: "replaces-by-subject",
                   EveryChangePointEngine: "every-point"}
MULTI_WINDOW_FAULTS = {OneWindowEngine: "one-window", SwappedEngine: "swapped", NoStaticEngine: "no-static",
                       HiddenClosingEngine: "hidden-closing",
                       StarvedEngine: "starved", EveryCloseEngine: "every-close",
                       ResultChangeEngine: "result-change",
                       AnyCloseEngine: "any-close", MergedDuplicatesEngine: "merged-duplicates", SharedCountEngine: "shared-count",
                       CountFlushEngine: "count-flushed",
                       LendsOpenEngine: "lends-open", UnmergedEngine: "unmerged",
                       OwnClockEngine: "own-clock", NotAllCloseEngine: "not-all-close",
                       EmptyGroupJoinEngine: "empty-group-join"}

FAULTS = {
    PerSolutionStartsEngine: "per-solution",
    ShiftedT0Engine: "shifted-t0",
    IgnoredSlideEngine: "width",
    SetDifferenceR2SEngine: "r2s-set",
    OutOfOrderEngine: "out-of-order",
    WrongR2SEngine: "r2s-rstream",
    DstreamLateEngine: "shifted",
    DistinctEngine: "multiplicity",
    NoEmptyAggregateEngine: "absent-value",
    OptionalInnerEngine: "optional-inner",
    PlainLiteralsEngine: "literal-form",
    RegionDroppedEngine: "literal-form",
    AvgIntegerEngine: "avg-integer",
    NumberPrecisionEngine: "number-precision",
    CountAllEngine: "count-distinct",
    CountErrorsEngine: "count-errors",
    CountErrorUnboundEngine: "count-error-unbound",
    AskEmptyTrueEngine: "ask-true",
    DropsEmptyGroupsEngine: "empty-groups",
    CountUnboundEngine: "count-unbound",
    GroupOverNothingEngine: "group-over-nothing",
}


# -- live runs (conformance/load/live.py): faults that show only in wall-clock time ---------------------

class LateEngine(ReferenceEngine):
    """Answers correctly, ``delay`` seconds late: each report is held back that long after it is made
    (option ``delay``, default 0.5).  A live run must measure that delay more than the control's."""

    name = "testing-late"

    def __init__(self, delay: float | str = 0.5, **options):
        super().__init__(**options)
        self.delay = float(delay)

    def live(self, request, emit):
        return LateLive(self, request, emit, self.delay)


class LateLive(ReferenceLive):
    """The reference engine's live session, each report leaving ``delay`` seconds after it is made; its
    end waits for the postponed reports."""

    def __init__(self, engine, request, emit, delay: float):
        self.postponed = Postponed(emit, delay)
        super().__init__(engine, request, self.postponed.put)

    def end(self) -> None:
        super().end()
        self.postponed.drain()


class Postponed:
    """Emits each report ``delay`` seconds after it is put, in order, from a thread of its own."""

    def __init__(self, emit, delay: float):

        self.emit, self.delay, self.queue = emit, delay, queue.Queue()
        self.thread = threading.Thread(target=self._run, name="rspconf-late-emits", daemon=True)
        self.thread.start()

    def put(self, report) -> None:
        self.queue.put((time.monotonic() + self.delay, report))

    def _run(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                return
            due, report = item
            time.sleep(max(0.0, due - time.monotonic()))
            self.emit(report)

    def drain(self) -> None:
        self.queue.put(None)
        self.thread.join()


class DroppingEngine(ReferenceEngine):
    """Loses elements under load: its input buffer takes at most ``capacity`` elements per push (option,
    default 3), and drops the rest of a larger burst — so at a rate of n elements per timestamp it loses
    a fraction 1 − capacity/n of them, and none at n ≤ capacity.  The batch run (no bursts) is correct."""

    name = "testing-dropping"

    def __init__(self, capacity: int | str = 3, **options):
        super().__init__(**options)
        self.capacity = int(capacity)

    def live(self, request, emit):
        engine = self

        class Dropping(ReferenceLive):
            def take(self, elements):
                return elements[:engine.capacity]

        return Dropping(self, request, emit)
