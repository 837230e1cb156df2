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
- ``all-close``: only when every window closes at that instant.
Instants run up to the close of the last window instance that has started by the last element (the
time-driven flush of the single-window engines).  t0 is the profile's, for every window; nothing is
enumerated yet (a fixed t0 is required).
"""

from __future__ import annotations

from rdflib import Dataset, URIRef

from oracle import r2s
from oracle.model import MultiWindowSpec, NamedWindow, Profile, Report, Stream
from oracle.r2r import R2R, Solutions


def closings(window: NamedWindow, t0: int, last: int) -> list[int]:
    """The closing times of the window's instances that have started by ``last``."""
    out, k = [], 0
    while t0 + k * window.slide <= last:
        out.append(t0 + k * window.slide + window.range)
        k += 1
    return out


def instants(spec: MultiWindowSpec, t0: int, last: int) -> list[int]:
    sets = [set(closings(w, t0, last)) for w in spec.windows]
    chosen = set().union(*sets) if spec.instants == "any-close" else set.intersection(*sets)
    return sorted(chosen)


def content(stream: Stream, window: NamedWindow, t0: int, t: int, boundary: str) -> list:
    """The window's instantaneous graph at t: the triples of its latest instance closed by t."""
    k = (t - t0 - window.range) // window.slide
    if k < 0:
        return []
    o = t0 + k * window.slide
    c = o + window.range

    def inside(x: int) -> bool:
        return (o <= x < c) if boundary == "[o,c)" else (o <= x <= c) if boundary == "[o,c]" else (o < x <= c)
    return [triple for e in stream.elements if e.stream == window.stream and inside(e.t) for triple in e.triples]


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
             one_window: bool = False) -> list[Report]:
    """The oracle's reports: at each evaluation instant, the query over the windows' instantaneous
    graphs (cached by their contents), then R2S and empty-result notification.  ``one_window``: the
    fault of an engine that gives every window the first window's content (for the diagnosis).  The
    query runs on rdflib (R2R over a dataset; ``evaluator`` is taken for the common signature only)."""
    if not isinstance(profile.t0, int):
        raise ValueError("a multi-window case needs a fixed t0 (the oracle does not enumerate per-window t0 yet)")
    if not stream.elements:
        return []
    last = stream.elements[-1].t
    cache: dict[tuple, Solutions] = {}
    r2r = R2R(query, stream, "rdflib")

    def relation(t: int) -> Solutions:
        graphs = {w.name: content(stream, spec.windows[0] if one_window else w, profile.t0, t, profile.boundary)
                  for w in spec.windows}
        key = tuple(tuple(graphs[w.name]) for w in spec.windows)
        if key not in cache:
            cache[key] = r2r.evaluate_graph(dataset(stream, graphs))
        return cache[key]
    return list(r2s.streamed(((t, k, t, t, (0, 0), "evaluation-instant", relation(t))
                              for k, t in enumerate(instants(spec, profile.t0, last))), profile))


def check(stream: Stream, spec: MultiWindowSpec, query: str, profile: Profile, actual, how: str,
          evaluator: str = "rdflib"):
    """The verdict (nothing is enumerated: :func:`oracle.verdict.fixed`); a FAIL whose whole output is
    that of an engine giving every window the first window's content names that fault."""
    from oracle.verdict import fixed

    faults = [("one-window", f"gives every window the content of the first one ({spec.windows[0].name})",
               lambda: expected(stream, spec, query, profile, one_window=True))] if len(spec.windows) > 1 else []
    return fixed(expected(stream, spec, query, profile), actual, how, R2R(query, stream, "rdflib").form, profile,
                 stream, f"the windows' evaluation instants ({spec.instants})", faults)
