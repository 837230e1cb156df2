"""The streamed oracle path (oracle/expected/streamed.py): the same window contents as SECRET's simulation and
the same answers as the rdflib evaluator over them, while it reads the stream once and holds only the
windows still open."""

import pytest

from conformance.streams.generate import elements, stream
from oracle.expected.streamed import expected_windows
from oracle.model import Element, StreamError, WindowSpec
from oracle.r2r.query import R2R
from oracle.r2r.solutions import same
from oracle.s2r.secret import simulate
from oracle.semantics import Profile
from tests.streams import iri, num

Q1 = """PREFIX om-owl: <http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#>
SELECT ?sensor ?obs WHERE { ?obs om-owl:procedure ?sensor ; om-owl:result ?res .
  ?res om-owl:floatValue ?value . FILTER(?value > 80) }"""
PARAMS = dict(stations=4, interval=1000, duration=12000, seed=1430236906)


# The stream's last element is at t=11958 (4 stations, 1 s apart, for 12 s), and with end-of-stream
# flush every window that opens by then reports: k = 0 … floor((11958 - t0) / slide), i.e. n windows
# [t0 + k·slide, t0 + k·slide + range), worked out by hand here, not by the oracle's Scope.
@pytest.mark.parametrize("window, t0, boundary, close, n", [
    (WindowSpec(5000, 5000), 0, "[o,c)", ">=", 3),     # 11958 // 5000 = 2
    (WindowSpec(5000, 1000), 250, "[o,c)", ">=", 12),  # 11708 // 1000 = 11
    (WindowSpec(3000, 2000), 700, "(o,c]", ">", 6),    # 11258 // 2000 = 5
    (WindowSpec(3000, 2000), 0, "[o,c]", ">", 6),      # 11958 // 2000 = 5
])
def test_every_window_equals_rdflib_over_the_simulated_content(window, t0, boundary, close, n):
    held = stream("yabench", **PARAMS)
    assert held.elements[-1].t == 11958
    profile = Profile(t0=t0, tick="time-driven", end_of_stream="flush", boundary=boundary, close=close)
    triggers = simulate(held, window, profile, t0)
    rdflib = R2R(Q1, held, "rdflib")
    streamed = list(expected_windows(Q1, elements("yabench", **PARAMS), window, t0, boundary=boundary, close=close))
    by_hand = [(k, t0 + k * window.slide, t0 + k * window.slide + window.range) for k in range(n)]
    assert [(a.k, a.opening, a.closing) for a in streamed] == by_hand
    assert [(t.k, t.opening, t.closing) for t in triggers] == by_hand
    assert [a.elements for a in streamed] == [t.content[1] - t.content[0] for t in triggers]
    assert sum(len(a.solutions) for a in streamed) > 0  # readings above 80 exist in this stream
    for answer, trigger in zip(streamed, triggers):
        assert same(rdflib.evaluate(trigger.content), answer.solutions), answer.k


def test_it_reads_lazily_and_holds_only_the_open_windows():
    read = []

    def watched():
        for element in elements("yabench", **PARAMS):
            read.append(element.t)
            yield element
    for answer in expected_windows(Q1, watched(), WindowSpec(2000, 2000)):
        # window k is answered when the first element past its close has been read, not later
        assert read[-1] >= answer.closing or answer.k == max(0, (read[-1]) // 2000)
        assert answer.buffered <= answer.elements + 1
        assert not [t for t in read[:-1] if t >= answer.closing]


def test_a_contradictory_boundary_and_close_are_refused_as_the_profile_refuses_them():
    with pytest.raises(ValueError, match="use close '>' with this boundary"):
        list(expected_windows(Q1, elements("yabench", **PARAMS), WindowSpec(3000, 3000), boundary="[o,c]"))


def test_a_stream_going_back_in_time_is_refused_with_the_element():
    back = [Element(5, ((iri("a"), iri("p"), num(1)),)), Element(3, ((iri("b"), iri("p"), num(2)),), source="x.nq")]
    with pytest.raises(StreamError, match=r"element 1 \(x.nq\): timestamp 3 is earlier than the previous element's 5"):
        list(expected_windows("SELECT * WHERE { ?s ?p ?o }", back, WindowSpec(10, 10)))
