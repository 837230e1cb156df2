"""Several named windows (oracle/multiwindow.py): instants, instantaneous graphs, the RSP-QL rendering and
the protocol message, worked out by hand."""

from __future__ import annotations

import pytest

from engines.command import request_message
from engines.contract import RunRequest
from engines.render import Inexpressible, render
from oracle import multiwindow
from oracle.model import Element, MultiWindowSpec, NamedWindow, Profile, Stream
from tests.streams import iri, num

W1 = NamedWindow("http://ex.org/w1", "http://ex.org/s", 4, 2)
W2 = NamedWindow("http://ex.org/w2", "http://ex.org/s", 6, 3)
Q = "SELECT ?s WHERE { GRAPH <http://ex.org/w1> { ?s ?p ?o } }"


def on(stream: str, t: int, name: str) -> Element:
    return Element(t, ((iri(name), iri("v"), num(t)),), stream=stream)


def test_instants_any_and_all_close():
    spec = MultiWindowSpec((W1, W2))
    assert multiwindow.closings(W1, 0, 5) == [4, 6, 8] and multiwindow.closings(W2, 0, 5) == [6, 9]
    zero = {W1.name: 0, W2.name: 0}
    assert multiwindow.instants(spec, zero, 5) == [4, 6, 8, 9]
    assert multiwindow.instants(MultiWindowSpec((W1, W2), "all-close"), zero, 5) == [6]
    # each window its own t0: w1 from 1 closes at 5, 7, 9 (instances started by 5); w2 from 0 at 6, 9
    assert multiwindow.instants(spec, {W1.name: 1, W2.name: 0}, 5) == [5, 6, 7, 9]


def test_a_window_shows_its_latest_closed_instance_of_its_own_stream():
    stream = Stream((on("http://ex.org/s", 1, "a"), on("http://ex.org/other", 2, "x"), on("http://ex.org/s", 5, "b")))
    names = lambda triples: sorted(str(s).rsplit("/", 1)[1] for s, _, _ in triples)  # noqa: E731
    assert multiwindow.content(stream, W1, 0, 3, "[o,c)") == []  # nothing has closed by 3
    assert names(multiwindow.content(stream, W1, 0, 4, "[o,c)")) == ["a"]  # [0, 4): x is on another stream
    assert names(multiwindow.content(stream, W1, 0, 9, "[o,c)")) == ["b"]  # [4, 8) is the latest closed by 9
    assert names(multiwindow.content(stream, W2, 0, 9, "[o,c)")) == ["b"]  # [3, 9)


def test_expected_needs_each_windows_t0():
    with pytest.raises(ValueError, match="needs each window's t0"):
        multiwindow.expected(Stream((on("http://ex.org/s", 1, "a"),)), MultiWindowSpec((W1,)), Q, Profile(t0="any"))


def shifted_engine(tram_t0: int):
    """The reference engine with the tram window starting at ``tram_t0`` and the bus window at 0 (declaring
    t0 0): what an engine that starts each window when it is registered does."""
    from engines.reference import ReferenceEngine

    class PerWindowT0(ReferenceEngine):
        def window_t0(self, window):
            return tram_t0 if window.name.endswith("/wt") else 0
    return PerWindowT0()


def test_with_t0_any_every_per_window_combination_is_tried_and_the_explaining_one_named():
    from dataclasses import replace as with_

    from conformance.cases import load_corpus
    from conformance.harness import request_for, run_case
    from pathlib import Path

    case = {c.id: c for c in load_corpus(Path(__file__).resolve().parent.parent / "cases")}["mw.two-streams-join"]
    engine = shifted_engine(3)
    strict = run_case(case, engine, engine.info())
    assert strict.verdict == "FAIL"  # at the declared t0 0 for both windows
    free = with_(case, vary={"t0": "any"})
    result = run_case(free, engine, engine.info())
    assert result.verdict == "PASS", result.reason
    assert any("explained by per-window t0 wt: 3, wb: 0" in n for n in result.notes), result.notes
    # the enumeration is exhaustive here: each window's default range, every combination
    stream = case.load_stream()
    combos, exhaustive = multiwindow.t0_candidates(stream, case.window, Profile(t0="any"), [])
    assert exhaustive and {"http://ex.org/wt": 3, "http://ex.org/wb": 0} in combos
    reports = engine.run(request_for(case, engine.info(), stream))
    assert reports and all(r.window[0] == r.window[1] for r in reports)


def test_beyond_the_exhaustive_limit_the_report_times_imply_the_t0_values_and_the_verdict_says_so():
    from oracle.model import ObservedReport

    wide1 = NamedWindow("http://ex.org/w1", "http://ex.org/s", 5000, 5000)
    wide2 = NamedWindow("http://ex.org/w2", "http://ex.org/s", 10000, 10000)
    stream = Stream((on("http://ex.org/s", 100, "a"), on("http://ex.org/s", 12000, "b")))
    actual = [ObservedReport([], tau=5300, window=(5300, 5300)), ObservedReport([], tau=10700, window=(10700, 10700))]
    combos, exhaustive = multiwindow.t0_candidates(stream, MultiWindowSpec((wide1, wide2)), Profile(t0="any"), actual)
    assert not exhaustive
    # 5300 and 10700 as closes: w1 (5 s) from 300 or 700, w2 (10 s) from 5300 or 700 (and each range's start)
    assert {"http://ex.org/w1": 300, "http://ex.org/w2": 700} in combos
    assert {"http://ex.org/w1": 700, "http://ex.org/w2": 700} in combos


def test_rspql_names_each_window_and_cqels_scopes_each_pattern_to_its_stream_window():
    text = render("rspql", Q, "http://ex.org/s", MultiWindowSpec((W1, W2)), "rstream")
    assert "FROM NAMED WINDOW <http://ex.org/w1> ON <http://ex.org/s> [RANGE PT0.004S STEP PT0.002S]" in text
    assert "FROM NAMED WINDOW <http://ex.org/w2> ON <http://ex.org/s>" in text
    assert "WINDOW <http://ex.org/w1> { ?s ?p ?o }" in text and "GRAPH" not in text
    with pytest.raises(Inexpressible, match="no named windows"):
        render("csparql", Q, "http://ex.org/s", MultiWindowSpec((W1, W2)), "rstream")
    cqels = render("cqels", Q, "http://ex.org/s", MultiWindowSpec((W1, W2)), "rstream")
    assert "WHERE { STREAM <http://ex.org/s> [RANGE 4ms SLIDE 2ms] { ?s ?p ?o } }" in cqels


def test_the_protocol_carries_the_windows_and_each_elements_stream():
    stream = Stream((on("http://ex.org/s", 1, "a"),))
    message = request_message(1, RunRequest("c", stream, Q, "", MultiWindowSpec((W1,), "all-close"), "rstream",
                                            "http://ex.org/s"))
    assert message["window"] == {"windows": [{"name": "http://ex.org/w1", "stream": "http://ex.org/s", "range": 4,
                                              "slide": 2}], "instants": "all-close"}
    assert message["elements"][0]["stream"] == "http://ex.org/s"
