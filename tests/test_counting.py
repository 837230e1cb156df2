"""Count-based windows (oracle/s2r/counting.py) against a direct reading of their definition, the renderers'
forms, and the refusals that name the problem."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.dialects.render import Inexpressible, render
from oracle.model import CountWindowSpec, Element, Stream
from oracle.s2r.counting import by_triple, candidates, simulate
from oracle.semantics import Profile
from tests.streams import iri

Q = "SELECT ?s WHERE { ?s ?p ?o }"


def stream_of(sizes_and_times) -> Stream:
    """Elements with the given numbers of triples at the given (sorted) times."""
    elements, n = [], 0
    for size, t in sizes_and_times:
        elements.append(Element(t, tuple((iri(f"s{n + j}"), iri("p"), iri("o")) for j in range(size))))
        n += size
    return Stream(tuple(elements))


def windows_by_definition(stream: Stream, window: CountWindowSpec, unit: str, t0: int, flush: bool):
    """Each window as the list of its triples' subjects, read straight off the definition: the units
    (elements, or triples) at positions [t0 + kM, t0 + kM + N) that exist, for every k ≥ 0 whose window
    has its last position reached (or, with flush, its first)."""
    if unit == "element":
        units = [[s for s, _, _ in e.triples] for e in stream.elements]
    else:
        units = [[s] for e in stream.elements for s, _, _ in e.triples]
    out = []
    for k in range(100):  # window instances k ≥ 0
        start, end = t0 + k * window.slide, t0 + k * window.slide + window.count
        if end <= 0 or start >= len(units):
            continue
        if end > len(units) and not flush:
            continue
        out.append([s for u in units[max(start, 0):end] for s in u])
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(0, 2)), min_size=1, max_size=9),
       st.integers(1, 4), st.integers(1, 4), st.sampled_from(["element", "triple"]), st.booleans())
def test_simulation_matches_the_definition_for_every_candidate_t0(steps, count, slide, unit, flush):
    times, t = [], 0
    for size, gap in steps:
        t += gap
        times.append((size, t))
    stream = stream_of(times)
    window = CountWindowSpec(count, slide)
    profile = Profile(count_unit=unit, end_of_stream="flush" if flush else "drop")
    judged = by_triple(stream)
    for t0 in candidates(window, Profile(t0="any")):
        got = [[s for e in judged.elements[a:b] for s, _, _ in e.triples]
               for a, b in (trig.content for trig in simulate(judged, window, profile, t0))]
        assert got == windows_by_definition(stream, window, unit, t0, flush)
    assert len(candidates(window, Profile(t0="any"))) == count + slide - 1


def test_a_window_reports_at_its_last_unit_and_names_its_first_and_last_times():
    stream = by_triple(stream_of([(1, 1), (1, 1), (1, 1), (1, 2)]))  # three ties at t=1
    triggers = simulate(stream, CountWindowSpec(2, 2), Profile(end_of_stream="drop"), 0)
    assert [(t.opening, t.closing, t.tau, t.content) for t in triggers] == [(1, 1, 1, (0, 2)), (1, 2, 2, (2, 4))]


def test_count_windows_refuse_report_policies_they_do_not_define():
    stream = by_triple(stream_of([(1, 1)]))
    with pytest.raises(ValueError, match="count windows report when they close"):
        simulate(stream, CountWindowSpec(2, 1), Profile(report={"content-change"}), 0)
    with pytest.raises(ValueError, match="count_unit must be one of element, triple"):
        Profile(count_unit="graph")
    with pytest.raises(ValueError, match="count and slide must be positive"):
        CountWindowSpec(0, 1)


def test_renderers_write_count_windows_or_say_they_cannot():
    assert "FROM STREAM <http://s> [RANGE TRIPLES 3]" in render("csparql", Q, "http://s", CountWindowSpec(3, 1), "rstream")
    assert "STREAM <http://s> [TRIPLES 3] {" in render("cqels", Q, "http://s", CountWindowSpec(3, 1), "rstream")
    with pytest.raises(Inexpressible, match="slides by 2"):
        render("csparql", Q, "http://s", CountWindowSpec(3, 2), "rstream")
    with pytest.raises(Inexpressible, match="RSP-QL writes time-based windows only"):
        render("rspql", Q, "http://s", CountWindowSpec(3, 1), "rstream")
