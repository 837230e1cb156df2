"""Renderers from the neutral query form to engine dialects."""

from engines.dialects.render import render
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


def test_continuous_queries_read_back_into_the_neutral_form():
    from rdflib.plugins.sparql import prepareQuery

    from engines.dialects.parse import parse

    window = WindowSpec(5000, 1000)
    query = 'PREFIX ex: <http://ex.org/>\nSELECT ?room WHERE { ex:m1 ex:at ?room . FILTER(?room != "{x}") } ORDER BY ?room'
    for dialect, r2s in (("csparql", "rstream"), ("rspql", "istream"), ("rspql", "dstream")):
        q = parse(render(dialect, query, "http://s", window, r2s))
        assert (q.stream_iri, q.window, q.r2s, q.dialect) == ("http://s", window, r2s, dialect)
        assert prepareQuery(q.r2r).algebra.PV == prepareQuery(query).algebra.PV
        assert q.r2r.split() == query.split()  # the R2R text itself, up to whitespace
    assert parse("SELECT * WHERE { ?s ?p ?o }").window is None


def test_rsp_js_style_rspql_with_fractional_seconds():
    from engines.dialects.parse import parse

    q = parse("PREFIX : <http://e/>\nREGISTER RStream <out> AS SELECT * FROM NAMED WINDOW :w ON STREAM <http://s>"
              " [RANGE PT0.5S STEP PT0.1S] WHERE { WINDOW :w { ?s ?p ?o } }")
    assert q.window == WindowSpec(500, 100) and q.r2s == "rstream"
    assert "WINDOW" not in q.r2r and "?s ?p ?o" in q.r2r
