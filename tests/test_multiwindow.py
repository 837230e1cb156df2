"""Several named windows (oracle/expected/multiwindow.py): instants, instantaneous graphs, the RSP-QL rendering and
the protocol message, worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.command import request_message
from engines.contract import RunRequest
from engines.dialects.render import Inexpressible, render
from oracle.expected import multiwindow
from oracle.model import Element, MultiWindowSpec, NamedWindow, Stream
from oracle.semantics import Profile
from tests.streams import iri, num

W1 = NamedWindow("http://ex.org/w1", "http://ex.org/s", 4, 2)
W2 = NamedWindow("http://ex.org/w2", "http://ex.org/s", 6, 3)
Q = "SELECT ?s WHERE { GRAPH <http://ex.org/w1> { ?s ?p ?o } }"
ROOT = Path(__file__).resolve().parent.parent


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
    from pathlib import Path

    from conformance.corpus.cases import load_corpus
    from conformance.run.harness import request_for, run_case

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


# -- count windows among several windows, by hand -------------------------------------------------------

WC = NamedWindow("http://ex.org/wc", "http://ex.org/s", None, 2, 2)  # the last 2 of s, tumbling


def test_a_count_window_counts_its_own_streams_units_and_closes_at_the_nth():
    # s: a@1, b@3 (two triples: one element), c@6; another stream's x@2 and y@4 do not count
    b2 = Element(3, ((iri("b"), iri("v"), num(3)), (iri("b2"), iri("v"), num(3))), stream="http://ex.org/s")
    stream = Stream((on("http://ex.org/s", 1, "a"), on("http://ex.org/o", 2, "x"), b2,
                     on("http://ex.org/o", 4, "y"), on("http://ex.org/s", 6, "c")))
    names = lambda triples: sorted(str(s).rsplit("/", 1)[1] for s, _, _ in triples)  # noqa: E731
    # by element: {a, b} closes at 3 (b's time); {c} never fills, so it never closes
    assert multiwindow.closings(WC, 0, 6, stream, "element") == [3]
    assert names(multiwindow.content(stream, WC, 0, 2, "[o,c)", "element")) == []
    assert names(multiwindow.content(stream, WC, 0, 9, "[o,c)", "element")) == ["a", "b", "b2"]
    # by triple: {a, b} at 3, {b2, c} at 6
    assert multiwindow.closings(WC, 0, 6, stream, "triple") == [3, 6]
    assert names(multiwindow.content(stream, WC, 0, 6, "[o,c)", "triple")) == ["b2", "c"]
    # t0 = -1 (a partial first instance): {a} at 1, {b, c} at 6 by element
    assert multiwindow.closings(WC, -1, 6, stream, "element") == [1, 6]
    # the one-sequence fault counts x and y too: {a, x} at 2 (holding a), {b, y} at 4 (holding b)
    assert multiwindow.closings(WC, 0, 6, stream, "element", shared=True) == [2, 4]
    assert names(multiwindow.content(stream, WC, 0, 4, "[o,c)", "element", shared=True)) == ["b", "b2"]


def test_two_instances_filling_at_one_time_show_the_later():
    ones = NamedWindow("http://ex.org/wc", "http://ex.org/s", None, 1, 1)
    stream = Stream((on("http://ex.org/s", 1, "a"), on("http://ex.org/s", 3, "b"), on("http://ex.org/s", 3, "c")))
    assert multiwindow.closings(ones, 0, 3, stream) == [1, 3, 3]
    assert [str(s).rsplit("/", 1)[1] for s, _, _ in multiwindow.content(stream, ones, 0, 3, "[o,c)")] == ["c"]


def test_count_t0_any_enumerates_the_count_windows_positions_beside_the_time_windows_t0():
    stream = Stream((on("http://ex.org/s", 1, "a"), on("http://ex.org/s", 3, "b")))
    combos, exhaustive = multiwindow.t0_candidates(stream, MultiWindowSpec((W1, WC)), Profile(t0=0, count_t0="any"), [])
    assert exhaustive and [c[WC.name] for c in combos] == [-1, 0, 1] and {c[W1.name] for c in combos} == {0}


def test_closes_of_evaluates_at_the_designated_windows_closes_only():
    zero = {W1.name: 0, W2.name: 0}
    assert multiwindow.instants(MultiWindowSpec((W1, W2), "closes-of", W2.name), zero, 5) == [6, 9]
    assert multiwindow.instants(MultiWindowSpec((W1, W2), "closes-of", W1.name), zero, 5) == [4, 6, 8]
    with pytest.raises(ValueError, match="no window of that name"):
        MultiWindowSpec((W1, W2), "closes-of", "http://ex.org/nope")


# -- evaluation instants as a profile dimension -----------------------------------------------------------

def policy_engine(instants: str):
    """The reference engine evaluating every multi-window query by one policy of its own, whatever the
    query says — and declaring no policy, so the oracle must find it."""
    from dataclasses import replace as with_

    from engines.reference import ReferenceEngine

    class OwnPolicy(ReferenceEngine):
        def run(self, request):
            return super().run(with_(request, window=request.window.under(instants)))

        def info(self):
            info = super().info()
            return with_(info, profile={k: v for k, v in info.profile.items() if k != "instants"})
    return OwnPolicy()


def test_an_engine_that_declares_no_policy_is_judged_under_each_and_the_explaining_one_named():
    from conformance.corpus.cases import load_corpus
    from conformance.run.harness import run_case

    case = next(c for c in load_corpus(ROOT / "cases") if c.id == "mw.two-widths-one-stream")
    assert case.window.instants is None  # the case leaves the policy to the engine
    engine = policy_engine("all-close")
    result = run_case(case, engine, engine.info())
    assert result.verdict == "PASS" and any("explained by instants all-close" in n for n in result.notes), result.notes
    # declaring any-close while evaluating all-close is a deviation
    from engines.reference import ReferenceEngine
    result = run_case(case, engine, ReferenceEngine().info())
    assert result.verdict == "FAIL"


def test_a_case_that_states_its_instants_fixes_them_whatever_the_engine_declares():
    from conformance.corpus.cases import load_corpus
    from conformance.run.harness import run_case

    case = next(c for c in load_corpus(ROOT / "cases") if c.id == "mw.two-widths-all-close")
    engine = policy_engine("any-close")
    result = run_case(case, engine, engine.info())
    assert result.verdict == "FAIL" and "all-close" in result.reason


def test_count_windows_among_several_render_in_cqels_and_are_inexpressible_in_rspql():
    r2r = "SELECT ?s WHERE { GRAPH <http://ex.org/wc> { ?s ?p ?o } }"
    last3 = NamedWindow("http://ex.org/wc", "http://ex.org/s", None, 1, 3)
    text = render("cqels", r2r, "http://ex.org/s", MultiWindowSpec((last3,)), "rstream")
    assert "STREAM <http://ex.org/s> [TRIPLES 3] {" in text
    with pytest.raises(Inexpressible, match="slides by one triple"):
        render("cqels", r2r, "http://ex.org/s", MultiWindowSpec((WC,)), "rstream")
    with pytest.raises(Inexpressible, match="RSP-QL writes time-based windows only"):
        render("rspql", r2r, "http://ex.org/s", MultiWindowSpec((W1, last3)), "rstream")


def test_the_protocol_message_carries_count_windows_and_instants_only_when_the_case_states_them():
    from engines.command import window_message

    message = window_message(MultiWindowSpec((W1, WC)))
    assert message == {"windows": [{"name": W1.name, "stream": W1.stream, "range": 4, "slide": 2},
                                   {"name": WC.name, "stream": WC.stream, "count": 2, "slide": 2}]}
    assert window_message(MultiWindowSpec((W1, W2), "closes-of", W2.name))["instants"] == {"closes-of": W2.name}


def test_merged_windows_render_as_c_sparql_from_stream_clauses_and_nowhere_else():
    """C-SPARQL merges its FROM STREAM windows into the default graph: a case that merges renders there,
    one FROM STREAM per window, and is inexpressible in the dialects that read each window apart."""
    r2r = "SELECT ?s WHERE { ?s ?p ?o }"
    merged = MultiWindowSpec((NamedWindow("http://ex.org/w1", "http://ex.org/a", 5000, 5000),
                              NamedWindow("http://ex.org/w2", "http://ex.org/b", 10000, 5000)), merged=True)
    text = render("csparql", r2r, "http://ex.org/a", merged, "rstream")
    assert "FROM STREAM <http://ex.org/a> [RANGE 5s STEP 5s]\nFROM STREAM <http://ex.org/b> [RANGE 10s STEP 5s]" in text
    assert text.startswith("REGISTER QUERY q AS") and "GRAPH" not in text
    for dialect in ("rspql", "cqels"):
        with pytest.raises(Inexpressible, match="merges its windows into the default graph"):
            render(dialect, r2r, "http://ex.org/a", merged, "rstream")
    with pytest.raises(Inexpressible, match="C-SPARQL merges its windows"):
        render("csparql", "SELECT ?s WHERE { GRAPH <http://ex.org/w1> { ?s ?p ?o } }", "http://ex.org/a",
               MultiWindowSpec(merged.windows), "rstream")


def test_merged_windows_are_one_rdf_graph_in_the_oracles_dataset():
    a = (iri("a"), iri("v"), num(1))
    ds = multiwindow.dataset(Stream(()), {"http://ex.org/w1": [a], "http://ex.org/w2": [a]}, merged=True)
    assert len(ds) == 1 and not [g for g in ds.graphs() if str(g.identifier).startswith("http://ex.org/w")]


def test_a_window_starting_after_the_stream_never_explains_silence():
    # elements at 1 and 2 on w1's and w2's stream; a per-window t0 of 3 or more starts after both, so no
    # window holds data: such combinations were once a vacuous PASS for an engine that said nothing (flush:
    # under drop no window closes by t=2, and silence is the right answer at every t0)
    stream = Stream((on("http://ex.org/s", 1, "a"), on("http://ex.org/s", 2, "b")))
    spec = MultiWindowSpec((W1, W2))
    for varied in (Profile(t0="any", end_of_stream="flush"), Profile(t0="any", empty=False, end_of_stream="flush")):
        verdict = multiwindow.check(stream, spec, Q, varied, [], "order")
        assert verdict.verdict == "FAIL" and not verdict.vacuous
    fixed = multiwindow.check(stream, spec, Q, Profile(t0=50), [], "order")
    assert fixed.verdict == "UNJUDGED"
    assert fixed.notes == ["t0=50 lies after the stream's last element (t=2): no window can hold data, so nothing "
                           "can be compared; a t0 must let some window hold an element"]


def _times_and_subjects(reports):
    return [(r.tau, sorted(str(row["s"]).rsplit("/", 1)[1] for row in r.solutions.rows)) for r in reports]


def test_aligned_t0_is_each_windows_own():
    # elements a at 1 and b at 5.  Aligned windows close at multiples of their slide, the first holding the
    # first element: w1 (4/2) from -2 ([-2, 2) holds a), w2 (6/3) from -3 ([-3, 3) holds a).  Evaluated when
    # w2 closes, flushing: 3 ({a}), 6 ([0, 6): {a, b}), 9 ([3, 9): {b}); a t0 of 0 has no close at 3
    stream = Stream((on("http://ex.org/s", 1, "a"), on("http://ex.org/s", 5, "b")))
    spec = MultiWindowSpec((W1, W2), "closes-of", W2.name)
    q2 = "SELECT ?s WHERE { GRAPH <http://ex.org/w2> { ?s ?p ?o } }"
    combos, _ = multiwindow.t0_candidates(stream, spec, Profile(t0="aligned"), [])
    assert combos == [{W1.name: -2, W2.name: -3}]
    aligned = multiwindow.expected(stream, spec, q2, Profile(t0="aligned", end_of_stream="flush"))
    assert _times_and_subjects(aligned) == [(3, ["a"]), (6, ["a", "b"]), (9, ["b"])]
    zero = multiwindow.expected(stream, spec, q2, Profile(t0=0, end_of_stream="flush"))
    assert _times_and_subjects(zero) == [(6, ["a", "b"]), (9, ["b"])]


def test_without_a_flush_closes_after_the_last_element_are_never_seen():
    # the same stream, ending at 5: under drop a close is seen only when an element reaches it — at its
    # time (close >=) or after it (close >) — so of w2's closes 3, 6, 9 only 3 is evaluated; with b at 6
    # instead, close >= sees 6 as well and close > does not
    q2 = "SELECT ?s WHERE { GRAPH <http://ex.org/w2> { ?s ?p ?o } }"
    spec = MultiWindowSpec((W1, W2), "closes-of", W2.name)
    ends_at_5 = Stream((on("http://ex.org/s", 1, "a"), on("http://ex.org/s", 5, "b")))
    ends_at_6 = Stream((on("http://ex.org/s", 1, "a"), on("http://ex.org/s", 6, "b")))
    for close in (">=", ">"):
        assert _times_and_subjects(multiwindow.expected(ends_at_5, spec, q2, Profile(t0="aligned", close=close))) \
            == [(3, ["a"])]
    assert _times_and_subjects(multiwindow.expected(ends_at_6, spec, q2, Profile(t0="aligned", close=">="))) \
        == [(3, ["a"]), (6, ["a"])]
    assert _times_and_subjects(multiwindow.expected(ends_at_6, spec, q2, Profile(t0="aligned", close=">"))) \
        == [(3, ["a"])]
