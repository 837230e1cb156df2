"""Provenance, gracious mode and the readable explanations of a failure."""

from oracle.judge.explain import diagnose, diff
from oracle.judge.provenance import Provenance
from oracle.judge.verdict import check
from oracle.judge.words import reason
from oracle.model import ObservedReport, WindowSpec
from oracle.r2r.query import R2R
from oracle.semantics import Profile, ProfileSpace
from tests.streams import iri, num, triple_stream

HOT = ("SELECT ?sensor ?value WHERE { ?obs <http://ex.org/procedure> ?sensor ; <http://ex.org/result> "
       "[ <http://ex.org/value> ?value ] . FILTER(?value > 80) }")


def observation(t, name, sensor, value):
    return [(t, name, "procedure", sensor), (t, name, "result", f"r_{name}"), (t, f"r_{name}", "value", num(value))]


def sensor_stream():
    items = []
    for t, value in ((2, 70), (5, 81), (12, 83), (15, 90), (21, 85), (31, 60)):
        items += observation(t, f"o{t}", f"C{t}", value)
    return triple_stream(*items)


def test_provenance_joins_the_triples_of_one_observation():
    stream = sensor_stream()
    prov = Provenance(R2R(HOT, stream))
    ders = prov.derivations({"sensor": iri("C12"), "value": num(83)}, (0, len(stream)))
    assert len(ders) == 1 and ders[0].times == (12,)
    assert [stream.elements[i].triples[0][1] for i in ders[0].elements] == [iri("procedure"), iri("result"), iri("value")]


def test_a_constructed_triple_is_derived_through_the_template_its_blank_nodes_fitting_any():
    """A CONSTRUCT's triple comes from a solution of its pattern through its template, not from a stream
    triple like it: the old provenance looked the triple up in the stream, so a missing ``ex:b ex:status
    ex:hot`` was "derived from no stream element" (a false claim); a template blank node is fresh in each
    solution, so it fits whatever blank node the triple holds."""
    from rdflib import BNode

    stream = triple_stream((2, "a", "temp", num(30)), (12, "b", "temp", num(95)))
    whole = (0, len(stream))
    status = Provenance(R2R("PREFIX ex: <http://ex.org/> CONSTRUCT { ?x ex:status ex:hot } "
                            "WHERE { ?x ex:temp ?t FILTER(?t > 80) }", stream))
    assert [d.times for d in status.derivations({"s": iri("b"), "p": iri("status"), "o": iri("hot")}, whole)] == [(12,)]
    assert status.derivations({"s": iri("b"), "p": iri("status"), "o": iri("cold")}, whole) == []
    reading = Provenance(R2R("PREFIX ex: <http://ex.org/> CONSTRUCT { ?x ex:reading [ ex:value ?t ] } "
                             "WHERE { ?x ex:temp ?t }", stream))
    assert [d.times for d in reading.derivations({"s": BNode("any"), "p": iri("value"), "o": num(95)}, whole)] == [(12,)]
    assert [d.times for d in reading.derivations({"s": iri("a"), "p": iri("reading"), "o": BNode("z")}, whole)] == [(2,)]
    assert reading.derivations({"s": iri("a"), "p": iri("reading"), "o": iri("z")}, whole) == []  # an IRI is no blank node


def test_a_bags_missing_and_extra_solutions_are_listed_the_same_whatever_their_order_and_labels():
    """A bag's rows have no order and a blank node's label is its evaluator's own (rdflib's are random, and
    its graphs and bindings come in the order of Python's hash seed): the reason listed them as they came.
    Now in the order of their keys, blank nodes by their colour; a sequence (ORDER BY) keeps its order."""
    from rdflib import BNode

    from oracle.compare import compare_bags
    from oracle.r2r.solutions import Solutions
    from oracle.r2r.terms import show_solution

    def listed(want, got, ordered=False):
        w = compare_bags(Solutions.of(want, ordered), Solutions.of(got, ordered=True))
        return [show_solution(r) for r in w.missing], [show_solution(r) for r in w.extra]

    want = [{"s": iri("a"), "o": BNode("x")}, {"s": iri("b"), "o": num(1)}, {"s": iri("d"), "o": num(4)}]
    got = [{"s": iri("d"), "o": num(4)}, {"s": iri("c"), "o": num(2)}, {"s": iri("a"), "o": num(3)}]
    again = [{"s": iri("d"), "o": num(4)}, {"s": iri("b"), "o": num(1)}, {"s": iri("a"), "o": BNode("y")}]
    first = listed(want, got)
    assert first == listed(again, got[::-1])
    assert len(first[0]) == len(first[1]) == 2 and not any("_:x" in row for row in first[0])
    # under ORDER BY the engine's sequence is the answer: its extra rows keep their places
    assert listed(want, got, ordered=True)[1] == [show_solution(r) for r in got[1:]]


def test_trial_windows_are_remembered_up_to_a_bound_and_never_fill_the_cache(monkeypatch):
    """Gracious mode's trial borders (evaluate(keep=False)) come back in its second round and for the next
    window: the latest trials are remembered, up to TRIAL_SOLUTIONS solutions, outside the query's cache."""
    from oracle.r2r import query as r2r_query
    from oracle.r2r.solutions import same

    stream = sensor_stream()  # 18 elements, 3 per observation; C5, C12, C15, C21 are above 80
    query = R2R(HOT, stream)
    fresh = R2R(HOT, stream)
    trial = query.evaluate((3, 12), keep=False)  # o5, o12, o15: 3 solutions
    assert len(trial) == 3 and same(trial, fresh.evaluate((3, 12)))
    assert query.evaluate((3, 12), keep=False) is trial and query.evaluations == 1  # remembered
    assert (3, 12) not in query._cache
    assert query.evaluate((3, 12)) == trial and query.evaluations == 1  # kept now: from the trials
    assert (3, 12) in query._cache and (3, 12) not in query._trials and query._trial_solutions == 0
    # the bound: each trial counts its solutions and one; past the bound the oldest is forgotten
    monkeypatch.setattr(r2r_query, "TRIAL_SOLUTIONS", 5)
    query.evaluate((0, 6), keep=False)    # o2, o5: 1 solution, 2 counted
    query.evaluate((6, 12), keep=False)   # o12, o15: 2 solutions, 3 counted: 5 in all
    assert list(query._trials) == [(0, 6), (6, 12)] and query.evaluations == 3
    query.evaluate((0, 6), keep=False)    # used again: the newest
    assert list(query._trials) == [(6, 12), (0, 6)] and query.evaluations == 3
    query.evaluate((12, 15), keep=False)  # o21: 2 counted, 7 in all: (6, 12) is forgotten
    assert list(query._trials) == [(0, 6), (12, 15)] and query._trial_solutions == 4
    assert same(query.evaluate((6, 12), keep=False), fresh.evaluate((6, 12))) and query.evaluations == 5
    assert list(query._trials) == [(12, 15), (6, 12)]  # (0, 6) went to make room


def test_shifted_engine_window_is_explained_by_provenance_and_gracious_mode():
    stream = sensor_stream()
    window = WindowSpec(10, 10)
    # the engine really used [5,15) and [15,25): {C5, C12} then {C15, C21}; the data cannot tell an
    # opening at 5 from one at 0 (the element at 2 matches nothing), so gracious mode keeps 0
    engine = [ObservedReport([{"sensor": iri("C5"), "value": num(81)}, {"sensor": iri("C12"), "value": num(83)}]),
              ObservedReport([{"sensor": iri("C15"), "value": num(90)}, {"sensor": iri("C21"), "value": num(85)}])]
    query = R2R(HOT, stream)
    verdict = check(stream, window, query, ProfileSpace.of(Profile(t0=0, empty=False)), engine)
    assert verdict.verdict == "FAIL"
    diagnose(verdict, query)
    first, second = verdict.best.windows[:2]
    # expected [0,10) = {C5}; [10,20) = {C12, C15}
    assert (first.precision, first.recall) == (0.5, 1.0)
    assert any(d.startswith("extra {?sensor=C12, ?value=83}, derived from the triples at t=12, outside expected window [0, 10)")
               for d in first.diagnostics), first.diagnostics
    assert any("looks like [0, 15)" in d for d in first.diagnostics), first.diagnostics
    assert first.gracious == {"opening": 0, "closing": 15, "precision": 1.0, "recall": 1.0}
    assert 21 < second.gracious["closing"] <= 31 and second.gracious["recall"] == 1.0  # next element: 31
    assert any(d.startswith("missing {?sensor=C12, ?value=83}, derived from the triples at t=12, inside expected window [10, 20)")
               for d in second.diagnostics), second.diagnostics
    assert diff(second).splitlines() == ["- {?sensor=C12, ?value=83}", "+ {?sensor=C21, ?value=85}"]
    text = reason(verdict)
    assert text.startswith("best t0=0: 2 mismatch, 1 missing of 3 reports — pattern: ")
    # C12 (t=12) in [0, 10) and C21 (t=21) in [10, 20): elements used before their window: 2 windows
    assert "uses elements before they entered the window (2 windows)" in text
    assert "has no report where the oracle has one (1 window)" in text
    assert "uses elements after they left the window" not in text
    assert "; first: window [0, 10): extra {?sensor=C12" in text


def test_failure_patterns_name_stale_elements_absent_values_and_ill_typed_literals():
    from rdflib import Literal
    from rdflib.namespace import XSD

    stream = sensor_stream()  # hot readings (> 80) at 5, 12, 15, 21
    window = WindowSpec(10, 10)
    query = R2R(HOT, stream)
    # a late-purging engine: [10,20) still holds C5 (t=5), [20,30) still holds C12 and C15
    engine = [ObservedReport([{"sensor": iri("C5"), "value": num(81)}]),
              ObservedReport([{"sensor": iri(f"C{t}"), "value": num(v)} for t, v in ((5, 81), (12, 83), (15, 90))]),
              ObservedReport([{"sensor": iri(f"C{t}"), "value": num(v)} for t, v in ((12, 83), (15, 90), (21, 85))]),
              ObservedReport([])]
    verdict = check(stream, window, query, ProfileSpace.of(Profile(t0=0, tick="time-driven", end_of_stream="flush")),
                    engine)
    diagnose(verdict, query)
    # the two wrong windows also look like longer windows to gracious mode ([≤5, 20) and [≤12, 30))
    assert verdict.findings == {"stale": 2, "borders": 2}
    assert "uses elements after they left the window (2 windows)" in reason(verdict)

    avg = R2R("SELECT (AVG(?value) AS ?avg) WHERE { ?obs <http://ex.org/procedure> ?sensor ; "
              "<http://ex.org/result> [ <http://ex.org/value> ?value ] . FILTER(?value > 95) }", stream)
    null = Literal("null", datatype=XSD.double)
    # no reading above 95 anywhere: SPARQL 1.1 gives AVG = 0 in each of the 4 windows
    engine = [ObservedReport([{"avg": null}])] * 3 + [ObservedReport([])]
    verdict = check(stream, window, avg, ProfileSpace.of(Profile(t0=0, tick="time-driven", end_of_stream="flush")),
                    engine)
    diagnose(verdict, avg)
    assert verdict.findings == {"absent-value": 4, "bad-literal": 3}
    assert 'reports literals that are no value ("null", ill-typed) (3 windows)' in reason(verdict)


def test_order_alignment_skips_a_missing_first_report_instead_of_shifting_every_pair():
    stream = triple_stream(*((t, f"s{t}", "p", "o") for t in (0, 10, 20, 30)))
    query = R2R("SELECT ?s WHERE { ?s <http://ex.org/p> <http://ex.org/o> }", stream)
    # oracle: [0,10) {s0}, [10,20) {s10}, [20,30) {s20}, [30,40) {s30}; the engine skipped the first
    # window and reported one more at the end
    engine = [ObservedReport([{"s": iri(f"s{t}")}]) for t in (10, 20, 30, 99)]
    profile = Profile(t0=0, tick="time-driven", end_of_stream="flush")
    verdict = check(stream, WindowSpec(10, 10), query, ProfileSpace.of(profile), engine, how="order")
    assert verdict.verdict == "FAIL"
    assert [w.status for w in verdict.best.windows] == ["MISSING", "MATCH", "MATCH", "MATCH", "EXTRA"]
    # with nothing exact to gain, pairs stay positional
    engine = [ObservedReport([{"s": iri(f"x{t}")}]) for t in (10, 20, 30)]
    verdict = check(stream, WindowSpec(10, 10), query, ProfileSpace.of(profile), engine, how="order")
    assert [w.status for w in verdict.best.windows] == ["MISMATCH", "MISMATCH", "MISMATCH", "MISSING"]


def test_a_solution_the_pattern_derives_outside_the_window_is_not_called_underived():
    """Issue 34 §4: {C31, 60} reported in [0, 10) is derived by the graph pattern from the element at t=31,
    after the window, and rejected there by the FILTER: 'uses elements before they entered the window' and
    'does not apply a FILTER', never 'solutions that no stream element derives'."""
    stream = sensor_stream()
    query = R2R(HOT, stream)
    engine = [ObservedReport([{"sensor": iri("C5"), "value": num(81)}, {"sensor": iri("C31"), "value": num(60)}]),
              ObservedReport([{"sensor": iri("C12"), "value": num(83)}, {"sensor": iri("C15"), "value": num(90)}]),
              ObservedReport([{"sensor": iri("C21"), "value": num(85)}]), ObservedReport([])]
    verdict = check(stream, WindowSpec(10, 10), query,
                    ProfileSpace.of(Profile(t0=0, tick="time-driven", end_of_stream="flush")), engine)
    diagnose(verdict, query, gracious=False)
    assert verdict.findings == {"ahead": 1, "filter": 1}
    (first,) = [w for w in verdict.best.windows if w.status != "MATCH"]
    assert any(d.startswith("extra {?sensor=C31, ?value=60}, derivable only from elements outside the expected "
                            "window (the triples at t=31), and there only by the graph pattern: rejected by FILTER")
               for d in first.diagnostics), first.diagnostics


def test_an_empty_answer_is_said_first_and_never_explained_by_a_sliver_of_a_window():
    """Issue 34 §3: an engine that reads the query's blank node as a constant finds nothing; the reason says
    so, with what the pattern asks, and gracious mode does not 'explain' the emptiness with a window that
    holds no element."""
    stream = sensor_stream()  # hot readings (> 80) at 5, 12, 15, 21: one in [0,10), two in [10,20), one in [20,30)
    query = R2R(HOT, stream)
    engine = [ObservedReport([]) for _ in range(4)]
    verdict = check(stream, WindowSpec(10, 10), query,
                    ProfileSpace.of(Profile(t0=0, tick="time-driven", end_of_stream="flush")), engine)
    diagnose(verdict, query)
    assert verdict.findings == {"empty": 3}
    wrong = [w for w in verdict.best.windows if w.status != "MATCH"]
    assert [w.gracious for w in wrong] == [None, None, None]
    assert wrong[1].diagnostics[0] == (
        "no solutions where the oracle has 2; each of those joins 3 triple patterns, through 1 blank node of the "
        "query ([ … ] or _:b), which are variables: an engine that reads them as constants finds nothing")
    assert "pattern: reports no solutions where the oracle has some (3 windows)" in reason(verdict)
    assert "window borders" not in reason(verdict)


def test_the_headline_is_the_finding_that_explains_the_most_windows():
    from collections import Counter

    from oracle.judge.explain import headline_first

    # registry order would put stale (1 window) before shifted (4 windows); a whole-output finding leads
    assert list(headline_first(Counter({"stale": 1, "shifted": 4}))) == ["shifted", "stale"]
    assert list(headline_first(Counter({"stale": 1, "shifted": 4, "width": 1}))) == ["width", "shifted", "stale"]


def test_the_shared_blank_node_hypothesis_reads_a_template_whose_literal_holds_a_brace():
    """The hypothesis rewrites the template's text up to its closing brace: a brace in a string or a comment
    is text, not the end (the first cut of it stopped at ``"a}b"`` and made a query that does not parse)."""
    from oracle.judge.explain import SHARED, _shared_template, _variant

    stream = triple_stream((2, "a", "temp", num(30)), (4, "b", "temp", num(95)))
    query = R2R('PREFIX ex: <http://ex.org/> CONSTRUCT { ?x ex:label "a}b" # } a comment\n ; ex:r [ ex:v ?t ] } '
                "WHERE { ?x ex:temp ?t }", stream)
    rows = _variant(query, _shared_template(query)).evaluate((0, len(stream))).rows
    blank = {v for row in rows for v in row.values() if str(v).startswith(SHARED)}
    assert len(rows) == 6 and len(blank) == 1  # two solutions, three triples each, one IRI for the blank node
