"""Several windows over several streams (RSP-QL): an RSP-QL dataset of named time-varying graphs.

A case's query names its windows (:class:`~oracle.model.MultiWindowSpec`): each is a named graph the
R2R query reads with ``GRAPH <name> { … }`` (RSP-QL's ``WINDOW <name> { … }``), over one named stream,
with its own range and slide; static data is the default graph.  Following RSP-QL (Dell'Aglio et al.,
2014; the RSP community group's Semantics.md), the query is evaluated at *evaluation instants*, and at
an instant t each window contributes its *instantaneous graph*: the content of its latest window
instance that has closed by t (instances [t0 + kβ, t0 + kβ + ω), k ≥ 0, with the profile's boundary;
an empty graph before its first close).

Evaluation instants are a profile dimension (``Profile.instants``; a case may fix them in its query):
- ``any-close``: whenever some window closes (each window's own closing times, merged) — C-SPARQL and
  RSP4J evaluate a query when one of its windows reports;
- ``all-close``: only when every window closes at that instant;
- ``content-change``: only at the closes where some window's content (the elements its latest closed
  instance holds) differs from what it was just before — CQELS's evaluation on change, at the
  granularity at which an instantaneous graph can change;
- ``closes-of:<window>``: whenever one designated window closes.
Instants run up to the close of the last window instance that has started by the last element (the
time-driven flush of the single-window engines).

A count window among them (``NamedWindow.count``) counts the units of its own stream (the profile's
``count_unit``): instance k holds its positions [t0 + kM, t0 + kM + N) and closes when the last of them
arrives, at its time; one the stream never fills never closes.  At an instant it shows its latest
filled instance (of several filled at one time, the last).  Its t0 is the profile's ``count_t0``.

Each window has its own t0.  A fixed t0 in the profile is every window's.  With ``t0: any`` the oracle
tries every combination of per-window t0 values, each window's over its own default range (from one
window range before its stream's first element to one after, as for a single window; or the profile's
``t0_range``), and the engine passes if some combination explains its whole output.  When the product of
the ranges exceeds :data:`EXHAUSTIVE` combinations, it tries the values the engine's own report times
imply (an instant is some window's close, so t0_w ≡ τ − ω_w mod β_w) and says the search was not
exhaustive.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import product

from rdflib import BNode, Dataset, Graph, URIRef, Variable
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query

from oracle import r2s
from oracle.compare import fixed, unjudged
from oracle.findings import FINDINGS
from oracle.model import ExpectedReport, MultiWindowSpec, NamedWindow, Stream, WindowSpec
from oracle.profiles import ALIGNED, aligned_t0
from oracle.r2r import emptygroup
from oracle.r2r.evaluators import as_rdf11
from oracle.r2r.query import R2R
from oracle.r2r.solutions import Solutions
from oracle.s2r.scope import within_limit
from oracle.s2r.t0 import after_stream, default_range, nothing_held
from oracle.semantics import Profile

EXHAUSTIVE = 20_000  # per-window t0 combinations tried one by one; beyond: the combinations the reports imply


def units(stream: Stream, window: NamedWindow, count_unit: str, shared: bool = False) -> list[tuple[int, tuple]]:
    """(time, members) of each unit a count window counts, in arrival order: the elements of its own
    stream, each one unit (all its triples) or one unit per triple (``count_unit``); a member is the pair
    (element index, triple index).  ``shared``: the fault of an engine that counts every stream's
    elements in one sequence (another stream's units count, and hold nothing)."""
    out: list[tuple[int, tuple]] = []
    for i, e in enumerate(stream.elements):
        own = e.stream == window.stream
        if not (own or shared):
            continue
        if count_unit == "triple":
            out.extend((e.t, ((i, j),) if own else ()) for j in range(len(e.triples)))
        else:
            out.append((e.t, tuple((i, j) for j in range(len(e.triples))) if own else ()))
    return out


def filled(stream: Stream, window: NamedWindow, t0: int, count_unit: str, shared: bool = False) -> list[tuple[int, tuple]]:
    """(close time, members) of each instance of a count window that fills: instance k holds the units
    at positions [t0 + kM, t0 + kM + N) of its stream (those below 0 hold nothing) and closes at the time
    of its last unit.  An instance the stream never fills never closes: a count window has no clock (but
    ``window.flushed``: those that started close with what they hold at the stream's last element)."""
    us = units(stream, window, count_unit, shared)
    out, k = [], 0
    while t0 + k * window.slide + window.count - 1 < len(us):
        first, last = t0 + k * window.slide, t0 + k * window.slide + window.count - 1
        if last >= 0:
            out.append((us[last][0], tuple(m for _, held in us[max(first, 0):last + 1] for m in held)))
        k += 1
    while window.flushed and t0 + k * window.slide < len(us):
        first = max(t0 + k * window.slide, 0)
        out.append((stream.elements[-1].t, tuple(m for _, held in us[first:] for m in held)))
        k += 1
    return out


def closings(window: NamedWindow, t0: int, last: int, stream: Stream | None = None,
             count_unit: str = "element", shared: bool = False, seen: int | None = None) -> list[int]:
    """The closing times of the window's instances: a time window's that have started by ``last`` (and,
    ``seen`` given, close by then: the end of the stream flushes nothing), a count window's that fill
    (from ``stream``; an instance fills at an element, so it is always seen)."""
    if window.count is not None:
        return [c for c, _ in filled(stream, window, t0, count_unit, shared)]
    count = within_limit((last - t0) // window.slide + 1, f"instances of window {window.name}", t0, last,
                         f"window {window.name} slides by {window.slide} ms")
    closes = (t0 + k * window.slide + window.range for k in range(max(0, count)))
    return [c for c in closes if seen is None or c <= seen]


def seen_until(profile: Profile, last: int) -> int | None:
    """The latest close an engine sees when the stream ends at ``last``: with ``end_of_stream: drop`` a
    close is seen only when an element reaches it (at its time under close ``>=``, after it under ``>``),
    as for one window (:mod:`oracle.s2r.secret`); None under ``flush``, which sees every close."""
    return None if profile.end_of_stream == "flush" else last - (1 if profile.close == ">" else 0)


def clocks(stream: Stream, spec: MultiWindowSpec, profile: Profile, last: int, own: bool = False):
    """The latest close each window sees (:func:`seen_until`): by the whole input's last element, or, ``own``,
    by its own stream's (a window with none sees no close before a flush)."""
    if not own and all(w.stream != NO_STREAM for w in spec.windows):
        return seen_until(profile, last)
    seen = {}
    for w in spec.windows:
        times = [e.t for e in stream.elements if e.stream == w.stream]
        by_input = not own and w.stream != NO_STREAM  # a fed window sees the whole input's clock
        seen[w.name] = (seen_until(profile, last) if by_input else
                        seen_until(profile, times[-1]) if times else
                        None if profile.end_of_stream == "flush" else float("-inf"))
    return seen


def instants(spec: MultiWindowSpec, t0s: dict[str, int], last: int, stream: Stream | None = None,
             count_unit: str = "element", shared: bool = False, seen: int | None | dict = None) -> list[int]:
    """The closes the evaluation instants are chosen from: every window's (any-close; content-change
    then keeps those where a content changed, :func:`expected`), those all windows share (all-close), or
    the designated window's (closes-of); ``seen``: the latest close seen (:func:`seen_until`), or each
    window's by its name."""
    sets = {w.name: set(closings(w, t0s[w.name], last, stream, count_unit, shared,
                                 seen.get(w.name) if isinstance(seen, dict) else seen))
            for w in spec.windows}
    if spec.instants == "closes-of":
        return sorted(sets[spec.driver])
    chosen = set.intersection(*sets.values()) if spec.instants == "all-close" else set().union(*sets.values())
    return sorted(chosen)


def members(stream: Stream, window: NamedWindow, t0: int, t: int, boundary: str, count_unit: str = "element",
            shared: bool = False) -> list:
    """What the window holds at t, its latest instance closed by t: the indexes of its elements (a time
    window), or the (element, triple) pairs of its units (a count window; of several instances that
    fill at the same time, the last)."""
    if window.count is not None:
        held = [m for c, m in filled(stream, window, t0, count_unit, shared) if c <= t]
        return list(held[-1]) if held else []
    k = (t - t0 - window.range) // window.slide
    if k < 0:
        return []
    o = t0 + k * window.slide
    c = o + window.range

    def inside(x: int) -> bool:
        return (o <= x < c) if boundary == "[o,c)" else (o <= x <= c) if boundary == "[o,c]" else (o < x <= c)
    return [i for i, e in enumerate(stream.elements) if e.stream == window.stream and inside(e.t)]


def content(stream: Stream, window: NamedWindow, t0: int, t: int, boundary: str, count_unit: str = "element",
            shared: bool = False) -> list:
    """The window's instantaneous graph at t: the triples of its latest instance closed by t."""
    held = members(stream, window, t0, t, boundary, count_unit, shared)
    if window.count is not None:
        return [stream.elements[i].triples[j] for i, j in held]
    return [triple for i in held for triple in stream.elements[i].triples]


def sources(spec: MultiWindowSpec, read_as: dict[str, str] | None) -> dict[str, NamedWindow]:
    """The window whose content fills each window's graph, by name: itself, or the one ``read_as`` names."""
    by_name = {w.name: w for w in spec.windows}
    return {w.name: by_name[(read_as or {}).get(w.name, w.name)] for w in spec.windows}


def changed(stream: Stream, spec: MultiWindowSpec, t0s: dict[str, int], times: list[int], profile: Profile,
            read_as: dict[str, str] | None = None, shared: bool = False) -> list[int]:
    """Of ``times``, those at which some window's content (the elements it holds) differs from what it
    was just before: from nothing before the first.  ``read_as``: each window read as another (a fault)."""
    source = sources(spec, read_as)
    out, previous = [], tuple(() for _ in spec.windows)
    for t in times:
        now = tuple(tuple(members(stream, source[w.name], t0s[source[w.name].name], t,
                                  profile.boundary, profile.count_unit, shared)) for w in spec.windows)
        if now != previous:
            out.append(t)
        previous = now
    return out


def lent(stream: Stream, spec: MultiWindowSpec, t0s: dict[str, int]) -> list[tuple[int, dict[str, list]]]:
    """(instant, each window's triples) of each evaluation by the fault of an engine whose windows lend their
    open instance (rsp-js; a hypothesis of the diagnosis, not a semantics).  Each time window evaluates the
    query by itself, when an element of its own stream arrives after one of its instances closed (at most
    once per time): it reads its latest instance closed before that element, if that holds an element, and
    every other window as that window's instance still open at the time of the closing instance's last element
    — the earliest-closing instance [o, c] around it that an element has opened, with what has arrived of it
    (nothing if no such instance).  An element opens the instances around its time, aligned on t0 + k·slide
    (from the one that closes at its time on); a window drops its instances closed before its stream's latest
    element.  The instant is the time of the element that makes the evaluation; nothing is flushed at the end."""
    windows = [w for w in spec.windows if w.count is None]
    opened: dict[str, dict[int, list[int]]] = {w.name: {} for w in windows}  # start -> element indexes
    evaluated: dict[str, int | None] = {w.name: None for w in windows}
    out = []

    def triples(indexes: list[int]) -> list:
        return [triple for i in indexes for triple in stream.elements[i].triples]

    for i, e in enumerate(stream.elements):
        for w in windows:
            if w.stream != e.stream:
                continue
            own, t0 = opened[w.name], t0s[w.name]
            o = t0 + -(-(e.t - t0) // w.slide) * w.slide - w.range  # the instance closing at or next after e.t
            while o <= e.t:
                own.setdefault(o, [])
                o += w.slide
            for o, held in own.items():
                if o <= e.t < o + w.range:
                    held.append(i)
            closed = [o for o in own if o + w.range < e.t]
            if closed and (evaluated[w.name] is None or e.t > evaluated[w.name]):
                evaluated[w.name] = e.t
                o = max(closed)
                if own[o]:
                    ts = stream.elements[own[o][-1]].t
                    graphs = {w.name: triples(own[o])}
                    for v in windows:
                        if v.name != w.name:
                            around = [p for p in opened[v.name] if p <= ts <= p + v.range]
                            graphs[v.name] = triples(opened[v.name][min(around)]) if around else []
                    out.append((e.t, graphs))
            for o in closed:
                del own[o]
    return out


def answer_changed(times: list[int], relation) -> list[int]:
    """Of ``times``, those at which the query's answer (``relation(t)``) differs, as a bag, from the last one
    kept: from no solution before the first."""
    out, before = [], Solutions.of([])
    for t in times:
        now = relation(t)
        if Counter(now.keys) != Counter(before.keys):
            out.append(t)
            before = now
    return out


def one_pattern(r2r: R2R) -> tuple[CompValue, CompValue] | None:
    """(the projection, its basic graph pattern) of a SELECT of one basic graph pattern (and FILTERs) without
    blank nodes, DISTINCT, aggregates or modifiers; else None."""
    project = r2r.query.algebra.p
    node = project.p if project.name == "Project" else None
    while node is not None and node.name == "Filter":
        node = node.p
    if node is None or node.name != "BGP" or any(isinstance(x, BNode) for tp in node.triples for x in tp):
        return None
    return project, node


def bag_merged(r2r: R2R, stream: Stream, graphs: dict[str, list]) -> Solutions | None:
    """The answer of an engine that merges the windows into the default graph keeping duplicates (a triple two
    windows hold is there twice): each full binding of the query's one basic graph pattern counts the product
    of the copies of the triples it matches.  None where :func:`one_pattern` finds no such pattern: there the
    copies would not simply multiply."""
    found = one_pattern(r2r)
    if found is None:
        return None
    project, node = found
    copies = Counter(stream.static)
    for triples in graphs.values():
        copies.update(set(triples))
    names = sorted({x for tp in node.triples for x in tp if isinstance(x, Variable)})
    every = Query(r2r.query.prologue, CompValue("SelectQuery", p=project.p, PV=names, datasetClause=None))
    graph = Graph()
    for s, p, o in copies:
        graph.add((s, p, as_rdf11(o)))
    rows = []
    for row in graph.query(every):
        binding = dict(zip(names, row))
        n = 1
        for tp in node.triples:
            n *= copies[tuple(binding.get(x, x) if isinstance(x, Variable) else x for x in tp)]
        rows += [{str(v): binding[v] for v in project.PV if binding.get(v) is not None}] * n
    return Solutions.of(rows)


def dataset(stream: Stream, graphs: dict[str, list], merged: bool = False) -> Dataset:
    """The RSP-QL dataset at one instant: the static data as the default graph, each window's
    instantaneous graph as the named graph of its name — or, ``merged`` (C-SPARQL), every window's
    instantaneous graph merged into the default graph (an RDF merge: a triple two windows hold is there
    once)."""
    ds = Dataset()
    for s, p, o in stream.static:
        ds.add((s, p, as_rdf11(o)))
    for name, triples in graphs.items():
        g = ds if merged else ds.graph(URIRef(name))
        for s, p, o in triples:
            g.add((s, p, as_rdf11(o)))
    return ds


def expected(stream: Stream, spec: MultiWindowSpec, query: str, profile: Profile, evaluator: str = "rdflib",
             read_as: dict[str, str] | None = None, t0s: dict[str, int] | None = None, r2r: R2R | None = None,
             cache: dict | None = None, every_close: bool = False, shared: bool = False,
             starved: frozenset = frozenset(), own_clock: bool = False,
             on_result: bool = False, lent_open: bool = False, hidden: bool = False,
             bag: bool = False) -> list[ExpectedReport]:
    """The oracle's reports: at each evaluation instant, the query over the windows' instantaneous
    graphs (cached by their contents), then R2S and empty-result notification.  ``t0s``: each window's t0
    (default: the profile's for all).  ``read_as``: the fault of an engine that fills each window's graph (by
    name) with another window's content (every window the first's; two windows' names swapped);
    ``every_close``: of one that evaluates a content-change or closes-of query at every close (both for the
    diagnosis); ``shared``: of one that counts every stream's elements in one sequence;
    ``starved``: of one that feeds no element to the windows of these names (:func:`starved_windows`; with no
    element to reach its closes, a starved window closes only at a flush); ``own_clock``: of one whose windows
    see time pass only by their own stream's elements (:func:`seen_until` per window); ``on_result``: of one
    that reports an evaluation only where its answer differs from the last one reported (with ``every_close``:
    the result's change taken for the content's); ``lent_open``: of one whose windows each evaluate by
    themselves and read the others' open instances (:func:`lent`); ``hidden``: of one that reads, at each
    instant, every window's instance closed before it (the one closing then not in yet); ``bag``: of one that
    merges the windows keeping duplicates (:func:`bag_merged`).
    The query runs on rdflib (R2R over a dataset; ``evaluator`` is taken for the common signature only)."""
    spec = spec.under(profile.instants)
    if starved:  # a window fed by no stream holds nothing, and a count window of it never fills
        spec = replace(spec, windows=tuple(replace(w, stream=NO_STREAM) if w.name in starved else w
                                           for w in spec.windows))
    if t0s is None:
        combos, _ = t0_candidates(stream, spec, profile, [])
        if len(combos) != 1:
            raise ValueError("expected() needs each window's t0: a fixed profile t0 (and count_t0) or t0s "
                             "(check() enumerates)")
        t0s = combos[0]
    if not stream.elements:
        return []
    last = stream.elements[-1].t
    cache = {} if cache is None else cache
    r2r = r2r or R2R(query, stream, "rdflib")

    def evaluated(graphs: dict[str, list]) -> Solutions:
        key = tuple(tuple(graphs[w.name]) for w in spec.windows)
        if key not in cache:
            cache[key] = (bag_merged(r2r, stream, graphs) if bag else
                          r2r.evaluate_graph(dataset(stream, graphs, spec.merged)))
        return cache[key]

    source = sources(spec, read_as)

    def relation(t: int) -> Solutions:
        by = t - 1 if hidden else t
        return evaluated({w.name: content(stream, source[w.name], t0s[source[w.name].name], by, profile.boundary,
                                          profile.count_unit, shared)
                          for w in spec.windows})
    if lent_open:
        return list(r2s.streamed(((t, k, t, t, (0, 0), "evaluation-instant", evaluated(graphs))
                                  for k, (t, graphs) in enumerate(lent(stream, spec, t0s))), profile))
    times = instants(replace(spec, instants="any-close", driver=None) if every_close else spec, t0s, last, stream,
                     profile.count_unit, shared, clocks(stream, spec, profile, last, own_clock))
    if spec.instants == "content-change" and not every_close:
        times = changed(stream, spec, t0s, times, profile, read_as, shared)
    if on_result:
        times = answer_changed(times, relation)
    return list(r2s.streamed(((t, k, t, t, (0, 0), "evaluation-instant", relation(t))
                              for k, t in enumerate(times)), profile))


NO_STREAM = "urn:rspconf:no-stream"  # the stream of a window that no stream feeds (the starved-windows fault)


def starved_windows(spec: MultiWindowSpec) -> frozenset:
    """The windows an engine that keeps one window per stream would feed nothing: of the windows over one
    stream, every one but the last declared (rsp-js 1.3.5 keys its streams by name, so the last window
    registered on a stream replaces the others: ``rsp.js``, ``this.streams.set(window.stream_name, …)``)."""
    last = {w.stream: w.name for w in spec.windows}
    return frozenset(w.name for w in spec.windows if last[w.stream] != w.name)


def t0_candidates(stream: Stream, spec: MultiWindowSpec, profile: Profile, actual) -> tuple[list[dict], bool]:
    """(per-window t0 combinations to try, whether they are every combination in the ranges).  A time
    window takes the profile's t0, a count window its count_t0; ``any`` ranges over the window's own
    candidates (a count window's positions [−(N − 1), M − 1], as for a lone one)."""

    ranges, fixed = {}, {}
    for w in spec.windows:
        given = profile.t0 if w.count is None else profile.count_t0
        if given == ALIGNED:  # closing at multiples of its slide; its first instance holds its stream's first element
            own = [e.t for e in stream.elements if e.stream == w.stream] or [e.t for e in stream.elements] or [0]
            given = aligned_t0(w, own[0])
        if isinstance(given, int):
            fixed[w.name] = given
            ranges[w.name] = (given, given)
        elif w.count is not None:
            ranges[w.name] = (-(w.count - 1), w.slide - 1)
        else:
            own = Stream(tuple(e for e in stream.elements if e.stream == w.stream)) if stream.elements else stream
            ranges[w.name] = profile.t0_range or default_range(own if own.elements else stream,
                                                               WindowSpec(w.range, w.slide))
    size = 1
    for lo, hi in ranges.values():
        size *= hi - lo + 1
    names = [w.name for w in spec.windows]
    if size <= EXHAUSTIVE:
        values = [range(lo, hi + 1) for lo, hi in (ranges[n] for n in names)]
        return [dict(zip(names, combo)) for combo in product(*values)], True
    times = sorted({a.tau for a in actual if a.tau is not None} | {a.window[1] for a in actual if a.window})
    values = []
    for w in spec.windows:
        lo, hi = ranges[w.name]
        if w.name in fixed or w.count is not None:
            values.append(list(range(lo, hi + 1)))
            continue
        implied = {lo + (tau - w.range - lo) % w.slide for tau in times} | {lo}
        values.append(sorted(x for x in implied if x <= hi))
    combos = [dict(zip(names, combo)) for combo in product(*values)]
    return combos[:EXHAUSTIVE], False


def _starts_after(stream: Stream, spec: MultiWindowSpec, t0s: dict[str, int]) -> bool:
    """Whether some time window of ``t0s`` starts after the last element of its own stream (count windows
    start at a position that always holds one)."""
    for w in spec.windows:
        if w.count is None:
            own = Stream(tuple(e for e in stream.elements if e.stream == w.stream))
            if after_stream(own if own.elements else stream, t0s[w.name]):
                return True
    return False


def shown(t0s: dict[str, int]) -> str:
    return ", ".join(f"{name.rsplit('/', 1)[-1].rsplit('#', 1)[-1]}: {t0}" for name, t0 in t0s.items())


def check(stream: Stream, spec: MultiWindowSpec, query: str, profile: Profile, actual, how: str,
          evaluator: str = "rdflib"):
    """The verdict (:func:`oracle.judge.verdict.fixed` for each per-window t0 combination: one for a fixed t0,
    every combination for ``t0: any``); a FAIL whose whole output is that of one of the faults tried
    (every window read as the first, one counting sequence for all streams, windows not merged,
    evaluation at every close) names that fault."""
    spec = spec.under(profile.instants)
    r2r, cache = R2R(query, stream, "rdflib"), {}
    basis = f"the windows' evaluation instants ({spec.instants}{' ' + spec.driver if spec.driver else ''})"
    combos, exhaustive = t0_candidates(stream, spec, profile, actual)
    # a combination in which a time window starts after its stream's last element explains nothing
    viable = [t0s for t0s in combos if not _starts_after(stream, spec, t0s)]
    beyond = None
    if combos and not viable:
        beyond = nothing_held(stream, sorted({t0 for t0s in combos for t0 in t0s.values()}))
        if not actual:
            return unjudged(profile, min(combos[0].values()), len(combos), how, beyond)
    else:
        combos = viable
    best = best_t0s = None
    for t0s in combos:
        verdict = fixed(expected(stream, spec, query, profile, t0s=t0s, r2r=r2r, cache=cache), actual, how, r2r.form,
                        profile, stream, basis + (f" at t0 {shown(t0s)}" if len(combos) > 1 else ""))
        if verdict.verdict == "PASS":
            if len(combos) > 1:
                verdict.notes.append(f"explained by per-window t0 {shown(t0s)}, one of {len(combos)} combinations tried")
            return verdict
        if best is None or verdict.best.mean_f1 > best.best.mean_f1:
            best, best_t0s = verdict, t0s
    def at_best(stream=stream, spec=spec, profile=profile, cache=cache, r2r=r2r, **fault):
        """The oracle's reports at the closest t0s, for an engine with ``fault`` (none: the right ones)."""
        return expected(stream, spec, query, profile, t0s=best_t0s, r2r=r2r, cache=cache, **fault)
    # each fault: (finding, what the engine does, the arguments of at_best that make its output)
    first = spec.windows[0].name
    faults = [("one-window", f"gives every window the content of the first one ({first})",
               {"read_as": {w.name: first for w in spec.windows}})] if len(spec.windows) > 1 else []
    if len(spec.windows) == 2:
        one, two = (w.name for w in spec.windows)
        faults.append(("swapped", f"{FINDINGS['swapped']} ({one} holds {two}'s content and {two} {one}'s)",
                       {"read_as": {one: two, two: one}}))
    if spec.instants != "content-change":  # (content-change instants are chosen by the contents it would hide)
        faults.append(("hidden-closing", FINDINGS["hidden-closing"], {"hidden": True}))
    if stream.static:
        faults.append(("no-static", FINDINGS["no-static"], {"stream": replace(stream, static=()), "cache": {}}))
    if any(w.count is not None for w in spec.windows) and len({w.stream for w in spec.windows}) > 1:
        faults.append(("shared-count", FINDINGS["shared-count"], {"shared": True}))
    if spec.merged:
        faults.append(("unmerged", "reads each window as a named graph, not merged into the default graph",
                       {"spec": replace(spec, merged=False), "cache": {}}))
        if one_pattern(r2r) is not None:  # where bag_merged has an answer
            faults.append(("merged-duplicates", FINDINGS["merged-duplicates"], {"bag": True, "cache": {}}))
    if any(w.count is not None for w in spec.windows):  # the count windows counting the other unit
        other = "triple" if profile.count_unit == "element" else "element"
        faults.append(("count", f"counts {other}s in its count windows, not {profile.count_unit}s (count_unit)",
                       {"profile": replace(profile, count_unit=other)}))
    if any(w.count is not None for w in spec.windows) and profile.end_of_stream == "flush":
        flushed = replace(spec, windows=tuple(replace(w, flushed=w.count is not None) for w in spec.windows))
        faults.append(("count-flushed", FINDINGS["count-flushed"], {"spec": flushed, "cache": {}}))
    starved = starved_windows(spec)
    if starved:
        faults.append(("starved", f"feeds each stream's elements only to the last window declared over it "
                                  f"({', '.join(sorted(starved))} never hold an element)", {"starved": starved}))
    if len(spec.windows) > 1 and all(w.count is None for w in spec.windows):
        faults.append(("lends-open", FINDINGS["lends-open"], {"lent_open": True}))
    if emptygroup.applies(r2r):
        faults.append(("empty-group-join", FINDINGS["empty-group-join"], {"r2r": emptygroup.faulty(r2r), "cache": {}}))
    if len({w.stream for w in spec.windows}) > 1 and profile.end_of_stream == "drop":
        faults.append(("own-clock", FINDINGS["own-clock"], {"own_clock": True}))
    if spec.instants == "closes-of":
        faults.append(("any-close", f"evaluates whenever any window closes, not only when {spec.driver} does",
                       {"every_close": True}))
    if spec.instants == "content-change":
        faults.append(("every-close", FINDINGS["every-close"], {"every_close": True}))
        faults.append(("result-change", FINDINGS["result-change"], {"every_close": True, "on_result": True}))
    if spec.instants == "all-close":
        faults.append(("not-all-close", FINDINGS["not-all-close"], {"every_close": True}))
    # two faults at once, tried only when no one fault explains the output (rsp-js: a starved window and
    # evaluation at every close); a pair whose arguments overlap is no pair
    pairs = [((f1, f2), f"{d1}, and {d2}", {**a1, **a2}) for i, (f1, d1, a1) in enumerate(faults)
             for f2, d2, a2 in faults[i + 1:] if not (set(a1) - {"cache"}) & (set(a2) - {"cache"})]
    faults = [(f, d, lambda a=a: at_best(**a)) for f, d, a in faults]
    pairs = [(f, d, lambda a=a: at_best(**a)) for f, d, a in pairs]
    verdict = fixed(at_best(), actual, how, r2r.form, profile, stream,
                    basis + (f" at the closest t0 {shown(best_t0s)}" if len(combos) > 1 else ""), faults, pairs)
    if beyond:
        verdict.notes.append(beyond)
    if len(combos) > 1:
        verdict.notes.append(f"no per-window t0 combination explains the output: {len(combos)} tried"
                             + ("" if exhaustive else f" (not every combination: more than {EXHAUSTIVE}; those the "
                                                      "engine's report times imply)"))
    return verdict
