"""Provenance, gracious mode and the readable explanations of a failure."""

from oracle.explain import diagnose, diff, reason
from oracle.model import ObservedReport, Profile, ProfileSpace, WindowSpec
from oracle.provenance import Provenance
from oracle.r2r import R2R
from oracle.verdict import check
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
    assert reason(verdict).startswith("best t0=0: 2 mismatch, 1 missing of 3 reports; window [0, 10): extra {?sensor=C12")
