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
    assert multiwindow.instants(spec, 0, 5) == [4, 6, 8, 9]
    assert multiwindow.instants(MultiWindowSpec((W1, W2), "all-close"), 0, 5) == [6]


def test_a_window_shows_its_latest_closed_instance_of_its_own_stream():
    stream = Stream((on("http://ex.org/s", 1, "a"), on("http://ex.org/other", 2, "x"), on("http://ex.org/s", 5, "b")))
    names = lambda triples: sorted(str(s).rsplit("/", 1)[1] for s, _, _ in triples)  # noqa: E731
    assert multiwindow.content(stream, W1, 0, 3, "[o,c)") == []  # nothing has closed by 3
    assert names(multiwindow.content(stream, W1, 0, 4, "[o,c)")) == ["a"]  # [0, 4): x is on another stream
    assert names(multiwindow.content(stream, W1, 0, 9, "[o,c)")) == ["b"]  # [4, 8) is the latest closed by 9
    assert names(multiwindow.content(stream, W2, 0, 9, "[o,c)")) == ["b"]  # [3, 9)


def test_a_fixed_t0_is_required_for_now():
    with pytest.raises(ValueError, match="needs a fixed t0"):
        multiwindow.expected(Stream((on("http://ex.org/s", 1, "a"),)), MultiWindowSpec((W1,)), Q, Profile(t0="any"))


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
