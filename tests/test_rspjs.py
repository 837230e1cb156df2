"""rsp-js 1.3.5 through its Node driver: the driver hides nothing — the query goes through verbatim (in
the syntax variant rsp-js declares, rendered by the kit; the syntax family in the standard form), the
reports carry rsp-js's own time stamps, and only the capabilities rsp-js has are declared."""

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.corpus.cases import load_corpus
from conformance.run import adapters
from conformance.run.harness import judge, request_for, run_case
from engines.rspjs import HERE, RspJsEngine
from oracle.judge.words import reason

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (HERE / "node_modules" / "rsp-js").is_dir(),
    reason="rsp-js is not installed (engines/rspjs/install)")

#: a query in rsp-js's own, non-standard form (ON STREAM, window sizes as numbers of ms, WINDOW at the
#: start of a line), written here by the test: the kit never writes it for rsp-js
OWN_FORM = """PREFIX sosa: <http://www.w3.org/ns/sosa/>
REGISTER RStream <http://ex.org/q> AS
SELECT ?sensor ?time
FROM NAMED WINDOW <http://ex.org/w> ON STREAM <http://example.org/waves/stream> [RANGE 2000 STEP 2000]
WHERE {
WINDOW <http://ex.org/w> {
?obs sosa:madeBySensor ?sensor ; sosa:hasSimpleResult ?v ; sosa:resultTime ?time .
FILTER(?v >= 5 && ?v <= 12)
}
}
"""


@pytest.fixture(scope="module")
def engine():
    e = adapters.build("rsp-js")
    yield e
    e.close()


def test_declares_what_rsp_js_has_and_no_alignment_its_time_stamps_cannot_give(engine):
    info = engine.info()
    assert (info.name, info.version, info.dialect, info.alignment) == ("rsp-js", "1.3.5", "rspql", "order")
    assert info.profile["t0"] == "aligned" and info.profile["close"] == ">" and info.profile["grain"] == "single-held"
    # REGISTER IStream/DStream is parsed and ignored: rsp-js always streams RStream
    assert "rstream" in info.capabilities and not {"istream", "dstream", "ask", "construct"} & info.capabilities
    assert info.expectations == HERE / "expectations.yaml"
    assert info.syntax == ("window-ms", "on-stream", "window-line")  # what its parser reads (README#parser)


def test_cases_reach_rsp_js_in_its_declared_syntax_and_are_judged_on_their_semantics(engine):
    result = run_case(CASES["edges.border"], engine, engine.info())
    assert result.verdict == "PASS" and result.syntax_variant == ["window-ms", "on-stream", "window-line"]
    request = request_for(CASES["edges.border"], engine.info(), CASES["edges.border"].load_stream())
    assert "ON STREAM <http://example.org/stream> [RANGE 10 STEP 10]\n" in request.query_text
    assert "\nWINDOW <q:w> {" in request.query_text and result.query_text == request.query_text
    # its windows exist only with content (README#lazy-windows): declared as grain single-held, the case
    # PASSes; judged under the single grain it FAILs, and the kit names the grain
    lazy = run_case(CASES["edges.empty-windows"], engine, engine.info())
    assert lazy.verdict == "PASS"
    single = replace(engine.info(), profile={**engine.info().profile, "grain": "single"})
    as_single = run_case(CASES["edges.empty-windows"], engine, single)
    assert as_single.verdict == "FAIL" and list(as_single.findings)[0] == "grain"
    assert "under grain multiple or single-held, not the declared single" in as_single.reason


def test_the_standard_form_still_meets_its_parser_in_the_syntax_family(engine):
    case = CASES["syntax.rspql-multiline"]
    result = run_case(case, engine, engine.info())
    assert result.verdict == "ERROR" and "rsp-js parsed 0 streams and windows []" in result.reason
    assert result.syntax_variant is None and result.query_text == case.query["text"]["rspql"]


def test_the_syntax_family_names_each_spelling_rsp_js_cannot_read(engine):
    verdicts = {cid: run_case(CASES[cid], engine, engine.info()) for cid in CASES if cid.startswith("syntax.")}
    assert {cid for cid, r in verdicts.items() if r.verdict == "ERROR"} == {
        "syntax.rspql-multiline", "syntax.rspql-one-line", "syntax.rspql-duration-hms",
        "syntax.rspql-prefixed-names", "syntax.rspql-lower-case"}
    # with ON STREAM the window parses, its PT10S is NaN to rsp-js: no window closes, nothing is reported
    on_stream = verdicts["syntax.rspql-on-stream"]
    assert on_stream.verdict == "FAIL" and on_stream.findings == {"missing-report": 1}
    assert {r.verdict for cid, r in verdicts.items() if "csparql" in cid or "cqels" in cid} == {"UNSUPPORTED"}


def test_in_its_own_form_rsp_js_runs_and_its_own_time_stamps_show_the_t0_drift(engine):
    case = CASES["waves.q1-range[sensors=10,window=2s/2s]"]
    stream = case.load_stream()
    request = replace(request_for(case, engine.info(), stream), query_text=OWN_FORM)
    reports = engine.run(request)
    # rsp-js stamps each binding with [t0, t0 + slide) and then adds a slide to t0: the first report's
    # nine bindings move the next report's claimed window 9 slides (18 s) on
    assert [r.window for r in reports[:2]] == [(0, 2000), (18000, 20000)]
    verdict = judge(case, engine.info(), stream, reports)
    assert verdict.verdict == "FAIL" and "per-solution" in verdict.findings and "drift" not in verdict.findings
    assert ("(a report of 9 solutions opening at 0 is followed by one opening at 18000 = 0 + 9 × 2000 ms)"
            in reason(verdict))  # the cause, from its stamps; not only that the starts drift


#: mw.two-streams-join in rsp-js's own form (ON STREAM, ms): two windows, each on its own stream
TWO_STREAMS_OWN_FORM = """PREFIX ex: <http://ex.org/>
REGISTER RStream <q> AS
SELECT ?tram ?bus ?p
FROM NAMED WINDOW <http://ex.org/wt> ON STREAM <http://ex.org/tram> [RANGE 10 STEP 10]
FROM NAMED WINDOW <http://ex.org/wb> ON STREAM <http://ex.org/bus> [RANGE 10 STEP 10]
WHERE {
WINDOW <http://ex.org/wt> { ?tram ex:at ?p }
WINDOW <http://ex.org/wb> { ?bus ex:at ?p }
}
"""


def test_several_streams_run_each_element_in_its_own_stream(engine):
    """rsp-js declares multi-window: in its declared syntax the case PASSes, and in the form the test writes
    each element reaches the stream it belongs to — the join of a tram in one stream with a bus in the
    other at p1 is only found if both were fed where the query reads them."""
    case = CASES["mw.two-streams-join"]
    assert "multi-window" in engine.info().capabilities
    declared = run_case(case, engine, engine.info())
    assert declared.verdict == "PASS", declared.reason
    request = replace(request_for(case, engine.info(), case.load_stream()), query_text=TWO_STREAMS_OWN_FORM)
    reports = engine.run(request)
    found = [{k: str(v) for k, v in row.items()} for r in reports for row in r.solutions]
    assert {"tram": "http://ex.org/i1", "bus": "http://ex.org/i2", "p": "http://ex.org/p1"} in found
    # a stream the query does not read is an error that names it
    wrong = replace(request, query_text=TWO_STREAMS_OWN_FORM.replace("ex.org/bus>", "ex.org/coach>"))
    with pytest.raises(Exception, match="belongs to stream <http://ex.org/bus>"):
        engine.run(wrong)


def test_other_windows_lending_their_open_instance_is_named_on_rsp_js(engine):
    """rsp-js, when a window closes, reads every other window as its instance still open at the closing
    instance's last element (README#several-windows; its log shows the lent instance). On mw.quiet-stream that
    alone explains its whole output; on mw.count-join-quiet-stream it does together with Comunica's empty join (with
    another pair the two reports cannot tell apart, which the reason then says)."""
    quiet = run_case(CASES["mw.quiet-stream"], engine, engine.info())
    assert quiet.verdict == "FAIL" and set(quiet.findings) == {"lends-open"}, quiet.reason
    joined = run_case(CASES["mw.count-join-quiet-stream"], engine, engine.info())  # two reports, judged in order:
    assert joined.verdict == "FAIL" and {"lends-open", "empty-group-join"} <= set(joined.findings), joined.reason
    assert set(joined.findings) == {"lends-open", "empty-group-join"} or "cannot tell them apart" in joined.reason


def test_without_node_the_engine_is_unavailable_and_says_why():
    with pytest.raises(ValueError, match="needs Node.js"):
        RspJsEngine(node="no-such-node-binary")


def test_another_release_runs_from_its_own_lockfile_through_the_same_driver():
    """``--engine rsp-js@1.1.2``: the engine says which release answered (from rsp-js's own package.json);
    a release without a lockfile is refused by name."""
    from engines.rspjs import versions

    assert versions() == ["1.1.2", "1.3.5"]
    old = adapters.build("rsp-js@1.1.2")
    try:
        assert old.info().version == "1.1.2" and old.info().name == "rsp-js"
    finally:
        old.close()
    with pytest.raises(adapters.EngineUnavailable, match="rsp-js 1.0.0: no pinned lockfile.*1.1.2, 1.3.5"):
        adapters.build("rsp-js@1.0.0")
    with pytest.raises(adapters.EngineUnavailable, match="reference"):
        adapters.build("reference@2")  # an engine without releases takes no version
