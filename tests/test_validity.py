"""Time-annotated data (seed 001): the three annotation encodings read the same facts, bad annotations
are named, and the oracle's instants and valid sets follow the definitions worked out by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.streams.annotated import read
from conformance.streams.readers import StreamInputError
from engines.command import request_message
from engines.contract import RunRequest
from oracle.expected import validity
from oracle.model import Element, Stream, ValiditySpec
from oracle.semantics import Profile
from tests.streams import iri, num

PREFIXES = ("@prefix ex: <http://ex.org/> . @prefix tmp: <http://example.org/temporal#> . "
            "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n")
GRAPHS = PREFIXES + """
ex:g1 { ex:t1 ex:delay 0 . }
ex:g2 { ex:t1 ex:delay 5 . }
ex:g1 tmp:interval [ tmp:initial 0 ; tmp:final 10 ] .
ex:g2 tmp:initial 10 ; tmp:expiration "1970-01-01T00:00:00.030Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
ex:t1 ex:destination ex:Ghent .
"""
SINGLETON = PREFIXES + """
ex:t1 ex:d1 0 . ex:t1 ex:d2 5 . ex:t1 ex:destination ex:Ghent .
ex:d1 rdf:singletonPropertyOf ex:delay ; tmp:interval [ tmp:initial 0 ; tmp:final 10 ] .
ex:d2 rdf:singletonPropertyOf ex:delay ; tmp:initial 10 ; tmp:expiration 30 .
"""
REIFICATION = PREFIXES + """
ex:r1 a rdf:Statement ; rdf:subject ex:t1 ; rdf:predicate ex:delay ; rdf:object 0 ;
      tmp:interval [ tmp:initial 0 ; tmp:final 10 ] .
ex:r2 rdf:subject ex:t1 ; rdf:predicate ex:delay ; rdf:object 5 ; tmp:initial 10 ; tmp:expiration 30 .
ex:t1 ex:destination ex:Ghent .
"""


def facts(stream):
    return [(e.t, e.until, e.expires, e.triples) for e in stream.elements], stream.static


def test_three_encodings_read_the_same_facts_and_static_data():
    expected = ([(0, 10, None, ((iri("t1"), iri("delay"), num(0)),)),
                 (10, None, 30, ((iri("t1"), iri("delay"), num(5)),))],
                ((iri("t1"), iri("destination"), iri("Ghent")),))
    assert facts(read(GRAPHS, "graphs", "g")) == expected
    assert facts(read(SINGLETON, "singleton", "s", fmt="turtle")) == expected
    assert facts(read(REIFICATION, "reification", "r", fmt="turtle")) == expected


@pytest.mark.parametrize("text, message", [
    (PREFIXES + "ex:g1 { ex:t1 ex:delay 0 . }", "ex.org/g1> has no time annotation"),
    (PREFIXES + "ex:g1 { ex:t1 ex:delay 0 . } ex:g1 tmp:interval [ tmp:initial 5 ; tmp:final 5 ] .",
     "is empty ([5, 5))"),
    (PREFIXES + 'ex:g1 { ex:t1 ex:delay 0 . } ex:g1 tmp:expiration "soon" .', "neither an integer (ms) nor an xsd:dateTime"),
    (PREFIXES + "ex:g1 { ex:t1 ex:delay 0 . } ex:g1 tmp:interval [ tmp:initial 5 ] .", "needs tmp:initial and tmp:final"),
])
def test_a_bad_annotation_is_named(text, message):
    with pytest.raises(StreamInputError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        read(text, "graphs", "here.trig")


def fact(t, value, until=None, expires=None, subject="t1"):
    return Element(t, ((iri(subject), iri("delay"), num(value)),), until=until, expires=expires)


def test_expiration_replacement_and_the_instants_by_hand():
    # t1's delay 0 (published 0, expires 30) is replaced at 10 by 5 (expires 20); t2's holds [5, 15)
    stream = Stream((fact(0, 0, expires=30), fact(5, 2, until=15, subject="t2"), fact(10, 5, expires=20)))
    assert validity.valid_at(stream, 9) == (0, 1) and validity.valid_at(stream, 10) == (1, 2)
    assert validity.valid_at(stream, 20) == ()  # the newer version expired: the replaced one does not come back
    assert [(t, v) for t, v in validity.instants(stream, ValiditySpec())] == [
        (0, (0,)), (5, (0, 1)), (10, (1, 2)), (15, (2,)), (20, ())]
    assert [t for t, _ in validity.instants(stream, ValiditySpec(every=8))] == [0, 8, 16, 24]
    # the faults the diagnosis tries
    closed = validity.Semantics(closed_end=True)
    assert validity.valid_at(stream, 15, closed) == (1, 2)
    assert validity.valid_at(stream, 10, validity.Semantics(keeps_old_versions=True)) == (0, 1, 2)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(1, 15)), min_size=1, max_size=8))
def test_data_driven_instants_are_exactly_the_changes_of_the_valid_set(intervals):
    """Against brute force over every millisecond: a report at t iff the valid set at t differs from the
    one at t − 1 (or t is the first start)."""
    stream = Stream(tuple(fact(a, i, until=a + d, subject=f"s{i}") for i, (a, d) in
                          enumerate(sorted(intervals))))
    got = validity.instants(stream, ValiditySpec())
    brute, previous = [], None
    first = stream.elements[0].t
    for t in range(first, max(e.until for e in stream.elements) + 2):
        now = tuple(i for i, e in enumerate(stream.elements) if e.t <= t < e.until)
        if now != previous:
            brute.append((t, now))
        previous = now
    assert got == brute


def test_the_protocol_carries_the_validity_of_each_fact():
    stream = Stream((fact(0, 0, until=10), fact(10, 5, expires=30)))
    message = request_message(1, RunRequest("c", stream, "SELECT * WHERE {?s ?p ?o}", "", ValiditySpec(every=5),
                                            "rstream", "http://s"))
    assert message["window"] == {"validity": "periodic", "every": 5}
    assert message["elements"][0]["until"] == 10 and "expires" not in message["elements"][0]
    assert message["elements"][1]["expires"] == 30


def test_expected_reports_apply_r2s_and_empty_notification():
    stream = Stream((fact(0, 0, until=10), fact(5, 2, until=15, subject="t2")))
    query = "SELECT ?s ?d WHERE { ?s <http://ex.org/delay> ?d }"
    rstream = validity.expected(stream, ValiditySpec(), query, Profile(empty=True))
    assert [(r.tau, len(r.solutions)) for r in rstream] == [(0, 1), (5, 2), (10, 1), (15, 0)]
    istream = validity.expected(stream, ValiditySpec(), query, Profile(r2s="istream", empty=False))
    assert [(r.tau, len(r.solutions)) for r in istream] == [(0, 1), (5, 1)]


@pytest.mark.parametrize("dialect", ["rspql", "csparql", "cqels"])
def test_no_continuous_dialect_writes_time_annotated_data(dialect):
    """The dialects have no window clause for it: the engine is UNSUPPORTED (and the site shows why)."""
    from engines.dialects.render import Inexpressible, render

    with pytest.raises(Inexpressible, match="no syntax for time-annotated data"):
        render(dialect, "SELECT ?s WHERE { ?s ?p ?o }", "http://s", ValiditySpec(), "rstream")
