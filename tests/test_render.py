"""Renderers from the neutral query form to engine dialects."""

from engines.render import render
from oracle.model import WindowSpec

Q = "PREFIX ex: <http://ex.org/>\nSELECT ?room WHERE { ex:m1 ex:at ?room . FILTER(?room != <http://x/{y}>) } ORDER BY ?room"


def test_csparql():
    text = render("csparql", Q, "http://s", WindowSpec(10000, 1000), "rstream")
    assert text.startswith("REGISTER QUERY q AS\nPREFIX ex: <http://ex.org/>\nSELECT ?room\n")
    assert "FROM STREAM <http://s> [RANGE 10s STEP 1s]\nWHERE { ex:m1 ex:at ?room . FILTER(?room != <http://x/{y}>) } ORDER BY ?room" in text


def test_cqels_wraps_the_pattern_in_a_stream_block():
    text = render("cqels", Q, "http://s", WindowSpec(500, 500), "istream")
    assert "STREAM <http://s> [RANGE 500ms SLIDE 500ms] { ex:m1 ex:at ?room ." in text


def test_rspql_names_the_window_and_the_r2s():
    text = render("rspql", Q, "http://s", WindowSpec(5000, 1000), "istream")
    assert "REGISTER ISTREAM <q> AS" in text
    assert "FROM NAMED WINDOW <q:w> ON <http://s> [RANGE PT5S STEP PT1S]" in text
    assert "WINDOW <q:w> { ex:m1 ex:at ?room" in text


def test_sparql_is_the_query_itself():
    assert render("sparql", Q, "http://s", WindowSpec(1, 1), "rstream") == Q
