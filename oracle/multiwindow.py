"""Several windows over several streams (RSP-QL): an RSP-QL dataset of named time-varying graphs.

A case's query names its windows (:class:`~oracle.model.MultiWindowSpec`): each is a named graph the
R2R query reads with ``GRAPH <name> { … }`` (RSP-QL's ``WINDOW <name> { … }``), over one named stream,
with its own range and slide; static data is the default graph.  Following RSP-QL (Dell'Aglio et al.,
2014; the RSP community group's Semantics.md), the query is evaluated at *evaluation instants*, and at
an instant t each window contributes its *instantaneous graph*: the content of its latest window
instance that has closed by t (instances [t0 + kβ, t0 + kβ + ω), k ≥ 0, with the profile's boundary;
an empty graph before its first close).

Evaluation instants are a profile choice the engines leave open in practice:
- ``any-close``: whenever some window closes (each window's own closing times, merged) — C-SPARQL and
  RSP4J evaluate a query when one of its windows reports;
- ``all-close``: only when every window closes at that instant;
- ``content-change``: only at the closes where some window's content (the elements its latest closed
  instance holds) differs from what it was just before — CQELS's evaluation on change, at the
  granularity at which an instantaneous graph can change.
Instants run up to the close of the last window instance that has started by the last element (the
time-driven flush of the single-window engines).

Each window has its own t0.  A fixed t0 in the profile is every window's.  With ``t0: any`` the oracle
tries every combination of per-window t0 values, each window's over its own default range (from one
window range before its stream's first element to one after, as for a single window; or the profile's
``t0_range``), and the engine passes if some combination explains its whole output.  When the product of
the ranges exceeds :data:`EXHAUSTIVE` combinations, it tries the values the engine's own report times
imply (an instant is some window's close, so t0_w ≡ τ − ω_w mod β_w) and says the search was not
exhaustive.
"""

from __future__ import annotations

from rdflib import Dataset, URIRef

from oracle import r2s
from oracle.model import MultiWindowSpec, NamedWindow, Profile, Report, Stream, WindowSpec
from oracle.r2r import R2R, Solutions


EXHAUSTIVE = 20_000  # per-window t0 combinations tried one by one; beyond: the combinations the reports imply


def closings(window: NamedWindow, t0: int, last: int) -> list[int]:
    """The closing times of the window's instances that have started by ``last``."""
    out, k = [], 0
    while t0 + k * window.slide <= last:
        out.append(t0 + k * window.slide + window.range)
        k += 1
    return out


def instants(spec: MultiWindowSpec, t0s: dict[str, int], last: int) -> list[int]:
    """The closes the evaluation instants are chosen from: every window's (any-close; content-change
    then keeps those where a content changed, :func:`expected`), or those all windows share (all-close)."""
    sets = [set(closings(w, t0s[w.name], last)) for w in spec.windows]
    chosen = set.intersection(*sets) if spec.instants == "all-close" else set().union(*sets)
    return sorted(chosen)


def members(stream: Stream, window: NamedWindow, t0: int, t: int, boundary: str) -> list[int]:
    """The indexes of the elements in the window's latest instance closed by t (its content at t)."""
    k = (t - t0 - window.range) // window.slide
    if k < 0:
        return []
    o = t0 + k * window.slide
    c = o + window.range

    def inside(x: int) -> bool:
        return (o <= x < c) if boundary == "[o,c)" else (o <= x <= c) if boundary == "[o,c]" else (o < x <= c)
    return [i for i, e in enumerate(stream.elements) if e.stream == window.stream and inside(e.t)]


def content(stream: Stream, window: NamedWindow, t0: int, t: int, boundary: str) -> list:
    """The window's instantaneous graph at t: the triples of its latest instance closed by t."""
    return [triple for i in members(stream, window, t0, t, boundary) for triple in stream.elements[i].triples]


def changed(stream: Stream, spec: MultiWindowSpec, t0s: dict[str, int], times: list[int], boundary: str,
            one_window: bool = False) -> list[int]:
    """Of ``times``, those at which some window's content (the elements it holds) differs from what it
    was just before: from nothing before the first.  ``one_window``: as read by the one-window fault."""
    first = spec.windows[0]
    out, previous = [], tuple(() for _ in spec.windows)
    for t in times:
        now = tuple(tuple(members(stream, first if one_window else w, t0s[first.name if one_window else w.name], t,
                                  boundary)) for w in spec.windows)
        if now != previous:
            out.append(t)
        previous = now
    return out


def dataset(stream: Stream, graphs: dict[str, list]) -> Dataset:
    """The RSP-QL dataset at one instant: the static data as the default graph, each window's
    instantaneous graph as the named graph of its name."""
    ds = Dataset()
    for triple in stream.static:
        ds.add(triple)
    for name, triples in graphs.items():
        g = ds.graph(URIRef(name))
        for triple in triples:
            g.add(triple)
    return ds


def expected(stream: Stream, spec: MultiWindowSpec, query: str, profile: Profile, evaluator: str = "rdflib",
             one_window: bool = False, t0s: dict[str, int] | None = None, r2r: R2R | None = None,
             cache: dict | None = None, every_close: bool = False) -> list[Report]:
    """The oracle's reports: at each evaluation instant, the query over the windows' instantaneous
    graphs (cached by their contents), then R2S and empty-result notification.  ``t0s``: each window's t0
    (default: the profile's for all).  ``one_window``: the fault of an engine that gives every window the
    first window's content; ``every_close``: of one that evaluates a content-change query at every close
    (both for the diagnosis).  The query runs on rdflib (R2R over a dataset;
    ``evaluator`` is taken for the common signature only)."""
    if t0s is None:
        if not isinstance(profile.t0, int):
            raise ValueError("expected() needs each window's t0: a fixed profile t0 or t0s (check() enumerates)")
        t0s = {w.name: profile.t0 for w in spec.windows}
    if not stream.elements:
        return []
    last = stream.elements[-1].t
    cache = {} if cache is None else cache
    r2r = r2r or R2R(query, stream, "rdflib")

    def relation(t: int) -> Solutions:
        graphs = {w.name: content(stream, spec.windows[0] if one_window else w,
                                  t0s[spec.windows[0].name if one_window else w.name], t, profile.boundary)
                  for w in spec.windows}
        key = tuple(tuple(graphs[w.name]) for w in spec.windows)
        if key not in cache:
            cache[key] = r2r.evaluate_graph(dataset(stream, graphs))
        return cache[key]
    times = instants(spec, t0s, last)
    if spec.instants == "content-change" and not every_close:
        times = changed(stream, spec, t0s, times, profile.boundary, one_window)
    return list(r2s.streamed(((t, k, t, t, (0, 0), "evaluation-instant", relation(t))
                              for k, t in enumerate(times)), profile))


def t0_candidates(stream: Stream, spec: MultiWindowSpec, profile: Profile, actual) -> tuple[list[dict], bool]:
    """(per-window t0 combinations to try, whether they are every combination in the ranges)."""
    from itertools import product

    from oracle.t0 import default_range

    ranges = {}
    for w in spec.windows:
        own = Stream(tuple(e for e in stream.elements if e.stream == w.stream)) if stream.elements else stream
        lo, hi = profile.t0_range or default_range(own if own.elements else stream, WindowSpec(w.range, w.slide))
        ranges[w.name] = (lo, hi)
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
        implied = {lo + (tau - w.range - lo) % w.slide for tau in times} | {lo}
        values.append(sorted(x for x in implied if x <= hi))
    combos = [dict(zip(names, combo)) for combo in product(*values)]
    return combos[:EXHAUSTIVE], False


def shown(t0s: dict[str, int]) -> str:
    return ", ".join(f"{name.rsplit('/', 1)[-1].rsplit('#', 1)[-1]}: {t0}" for name, t0 in t0s.items())


def check(stream: Stream, spec: MultiWindowSpec, query: str, profile: Profile, actual, how: str,
          evaluator: str = "rdflib"):
    """The verdict (:func:`oracle.verdict.fixed` for each per-window t0 combination: one for a fixed t0,
    every combination for ``t0: any``); a FAIL whose whole output is that of an engine giving every
    window the first window's content names that fault."""
    from oracle.verdict import fixed

    r2r, cache = R2R(query, stream, "rdflib"), {}
    basis = f"the windows' evaluation instants ({spec.instants})"
    if isinstance(profile.t0, int):
        combos, exhaustive = [{w.name: profile.t0 for w in spec.windows}], True
    else:
        combos, exhaustive = t0_candidates(stream, spec, profile, actual)
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
    faults = [("one-window", f"gives every window the content of the first one ({spec.windows[0].name})",
               lambda: expected(stream, spec, query, profile, one_window=True, t0s=best_t0s, r2r=r2r, cache=cache))
              ] if len(spec.windows) > 1 else []
    if spec.instants == "content-change":
        faults.append(("every-close", "evaluates whenever a window closes, also where no window's content changed",
                       lambda: expected(stream, spec, query, profile, t0s=best_t0s, r2r=r2r, cache=cache,
                                        every_close=True)))
    verdict = fixed(expected(stream, spec, query, profile, t0s=best_t0s, r2r=r2r, cache=cache), actual, how, r2r.form,
                    profile, stream, basis + (f" at the closest t0 {shown(best_t0s)}" if len(combos) > 1 else ""),
                    faults)
    if len(combos) > 1:
        verdict.notes.append(f"no per-window t0 combination explains the output: {len(combos)} tried"
                             + ("" if exhaustive else f" (not every combination: more than {EXHAUSTIVE}; those the "
                                                      "engine's report times imply)"))
    return verdict
