"""Replay of recorded outputs: manifests, both recording formats, errors that name the file, and the
CSRBench Table 2 reproduction."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from rdflib import Literal, URIRef

from conformance.corpus import datapaths
from conformance.corpus.cases import load_corpus
from conformance.run import adapters
from conformance.run.harness import request_for, run_case
from engines import jsonl
from engines.reference import ReferenceEngine
from engines.replay import ManifestError, ReplayEngine, normalise_times
from oracle.model import ObservedReport

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}
CASE = "edges.sliding-overlap"


def manifest(tmp_path, fmt, recording, **extra) -> Path:
    path = tmp_path / "engine.yaml"
    data = {"schema_version": 1, "engine": {"name": "recorded-reference"}, "format": fmt,
            "alignment": "order", "profile": {"t0": 0, "report": ["window-close"], "tick": "time-driven",
                                              "end_of_stream": "flush"},
            "recordings": {CASE: recording}, **extra}
    path.write_text(json.dumps(data))  # JSON is YAML
    return path


def reference_reports(case_id=CASE):
    case = CASES[case_id]
    engine = ReferenceEngine()
    return engine.run(request_for(case, engine.info(), case.load_stream()))


def test_a_jsonl_recording_of_the_reference_engine_passes(tmp_path):
    (tmp_path / "rec.jsonl").write_text("".join(jsonl.report_line(r) + "\n" for r in reference_reports()))
    engine = adapters.build(f"replay:{manifest(tmp_path, 'jsonl', 'rec.jsonl')}")
    result = run_case(CASES[CASE], engine, engine.info())
    assert result.verdict == "PASS", result.reason
    assert run_case(CASES["edges.border"], engine, engine.info()).verdict == "UNSUPPORTED"


def test_a_csrbench_json_recording_is_read_and_a_dropped_solution_fails(tmp_path):
    reports = reference_reports()
    relations = [{"head": {"vars": ["s"]}, "timestamp": r.tau,
                  "results": {"bindings": [{"timestamp": r.tau, "binding": {k: jsonl.term_json(v) for k, v in row.items()}}
                                           for row in r.solutions]}} for r in reports]
    (tmp_path / "answer.json").write_text(json.dumps({"relations": relations}))
    engine = ReplayEngine(str(manifest(tmp_path, "csrbench-json", "answer.json")))
    assert run_case(CASES[CASE], engine, engine.info()).verdict == "PASS"
    first = next(i for i, rel in enumerate(relations) if rel["results"]["bindings"])
    relations[first]["results"]["bindings"].pop()
    (tmp_path / "answer.json").write_text(json.dumps({"relations": relations}))
    result = run_case(CASES[CASE], engine, engine.info())
    assert result.verdict == "FAIL" and "missing" in result.reason


def test_bad_recordings_and_manifests_name_the_file_and_the_place(tmp_path):
    (tmp_path / "rec.jsonl").write_text('{"tau": 1, "solutions": []}\nnot json\n')
    engine = ReplayEngine(str(manifest(tmp_path, "jsonl", "rec.jsonl")))
    result = run_case(CASES[CASE], engine, engine.info())
    assert result.verdict == "ERROR" and "rec.jsonl:2" in result.reason
    engine = ReplayEngine(str(manifest(tmp_path, "jsonl", "absent.jsonl")))
    assert "absent.jsonl" in run_case(CASES[CASE], engine, engine.info()).reason
    with pytest.raises(ManifestError, match=r"engine.yaml: field format: 'csv' is not one of"):
        ReplayEngine(str(manifest(tmp_path, "csv", "rec.jsonl")))
    with pytest.raises(adapters.EngineUnavailable, match="cannot read the manifest"):
        adapters.build(f"replay:{tmp_path / 'nowhere.yaml'}")


def test_report_times_are_rounded_to_the_unit_and_same_time_reports_merged():
    a, b = URIRef("http://ex.org/a"), URIRef("http://ex.org/b")
    recorded = [ObservedReport([{"x": a}], tau=12047), ObservedReport([{"x": b}], tau=12903),
                ObservedReport([{"x": a}], tau=14160)]
    out = normalise_times(recorded, 1000, merge=True)
    assert [(r.tau, len(r.solutions)) for r in out] == [(12000, 2), (14000, 1)]
    assert [r.tau for r in normalise_times(recorded, None, merge=True)] == [12047, 12903, 14160]


def _answers():
    root = datapaths.data_root()
    if root is None or not (root / "csrbench" / "answers-2013").is_dir():
        pytest.skip("the CSRBench recordings are not under the data root (set RSPCONF_DATA)")
    return root


def test_a_null_average_in_a_csrbench_recording_is_a_literal_the_kit_names():
    root = _answers()
    reports = ReplayEngine(str(ROOT / "engines/replay/csrbench-2013/sparqlstream.yaml"), data_root=str(root)).run(
        type("Request", (), {"case_id": "csrbench.q4[range=4s,slide=4s]"})())
    assert [str(r.solutions[0]["avg"]) for r in reports][-3:] == ["null"] * 3
    assert isinstance(reports[0].solutions[0]["avg"], Literal)


@pytest.mark.long
def test_csrbench_table2_is_reproduced_but_for_the_rerecorded_csparql_q3():
    """The paper's Table 2 is the independent reference; the data README says the C-SPARQL Q3 file was
    re-recorded after the paper, with a window border moved."""
    from conformance.run import reproduce

    root = _answers()
    cells = reproduce.run(str(root))
    disagree = {(c["engine"], c["query"]) for c in cells if c["verdict"].lower() != c["paper"]}
    assert disagree == {("csparql", "q3")}
    by = {(c["engine"], c["query"]): c for c in cells}
    assert "uses elements after they left the window" in reproduce.findings_text(by[("cqels", "q6")]["findings"])
    assert "no value" in reproduce.findings_text(by[("sparqlstream", "q4")]["findings"])
    assert by[("csparql", "q5")]["probe"]["t0"] < 0  # partial first windows explain more of Q5


def _recorded_with_window(tmp_path, range_ms, slide_ms):
    """A jsonl recording of the reference engine run on CASE with another window."""
    from dataclasses import replace

    from oracle.model import WindowSpec
    case = CASES[CASE]
    engine = ReferenceEngine()
    request = replace(request_for(case, engine.info(), case.load_stream()), window=WindowSpec(range_ms, slide_ms))
    (tmp_path / "rec.jsonl").write_text("".join(jsonl.report_line(r) + "\n" for r in engine.run(request)))
    return "rec.jsonl"


def test_a_recording_made_with_another_window_is_judged_as_that_variant(tmp_path):
    from conformance.plugin import with_variants

    rec = _recorded_with_window(tmp_path, 5, 5)
    engine = ReplayEngine(str(manifest(tmp_path, "jsonl", {"file": rec, "window": {"range": "5ms", "slide": "5ms"},
                                                            "notes": "the recorder started late"})))
    cases = with_variants([CASES[CASE]], engine)
    assert [c.id for c in cases] == [CASE, f"{CASE}[window=5ms/5ms]"]
    original, variant = (run_case(c, engine, engine.info()) for c in cases)
    assert original.verdict == "UNSUPPORTED" and f"judged as {CASE}[window=5ms/5ms]" in original.reason
    assert variant.verdict == "PASS" and variant.variant_of == CASE
    assert variant.reason.startswith("[recording: the recorder started late] explained by t0=0")
    # a corpus case's own parameters: the variant is that corpus case, not a new one
    engine = ReplayEngine(str(manifest(tmp_path, "jsonl", {"file": rec, "params": {"slide": "5ms"}})))
    assert [c.id for c in with_variants([CASES["edges.join-across-time[slide=10ms]"]], engine)] == \
        ["edges.join-across-time[slide=10ms]"]


def test_the_same_recording_forced_onto_the_case_fails_and_says_the_windows_look_narrower(tmp_path):
    rec = _recorded_with_window(tmp_path, 5, 5)
    engine = ReplayEngine(str(manifest(tmp_path, "jsonl", rec, alignment="window")))
    result = run_case(CASES[CASE], engine, engine.info())
    assert result.verdict == "FAIL"
    assert "sliding by 5 ms, not 5 ms" not in result.reason
    assert "the whole output is exactly the oracle's for 5 ms windows sliding by 5 ms, not 10 ms" in result.reason


def test_a_deduplicating_recorder_is_judged_as_set_when_its_manifest_says_so(tmp_path):
    # bags.projection: the oracle's bag is {a, a, b}; a recorder that writes each relation's solutions once
    case = CASES["bags.projection"]
    engine = ReferenceEngine()
    rows = engine.run(request_for(case, engine.info(), case.load_stream()))
    deduplicated = [ObservedReport(list({tuple(sorted(r.items())): r for r in rep.solutions}.values()),
                                   tau=rep.tau, window=rep.window) for rep in rows]
    (tmp_path / "rec.jsonl").write_text("".join(jsonl.report_line(r) + "\n" for r in deduplicated))
    profile = {"t0": 0, "report": ["window-close"], "tick": "time-driven", "end_of_stream": "flush"}
    path = manifest(tmp_path, "jsonl", "rec.jsonl", profile=profile, recordings={case.id: "rec.jsonl"})
    as_bag = run_case(case, ReplayEngine(str(path)), ReplayEngine(str(path)).info())
    assert as_bag.verdict == "FAIL" and as_bag.findings == {"multiplicity": 1}
    assert "same solutions, different multiplicities: the engine's relation looks duplicate-free" in as_bag.reason
    path = manifest(tmp_path, "jsonl", "rec.jsonl", profile={**profile, "multiplicity": "set"},
                    recordings={case.id: "rec.jsonl"})
    assert run_case(case, ReplayEngine(str(path)), ReplayEngine(str(path)).info()).verdict == "PASS"


@pytest.mark.parametrize("case_id,window,shown", [
    ("mw.two-streams-join", {"windows": {"http://ex.org/wt": {"range": "20ms", "slide": "10ms"}}},
     "wt=20ms/10ms"),
    ("count.sliding", {"count": 2, "slide": 2}, "count=2/2"),
    ("mw.count-windows-two-streams", {"windows": {"http://ex.org/wt": {"count": 3, "slide": 3}}}, "wt=count3/3"),
    ("mw.two-widths-one-stream", {"windows": {"http://ex.org/w1": {"range": "5ms", "slide": "5ms"}},
                                  "instants": {"closes-of": "http://ex.org/w2"}}, "w1=5ms/5ms,instants=closes-of-w2"),
])
def test_multi_window_and_count_window_recordings_are_judged_as_their_variant(tmp_path, case_id, window, shown):
    """A manifest may say a recording was made with other named-window widths or another count window:
    the reference engine's output for that window passes as the variant, and fails the case itself."""
    from conformance.corpus.cases import recorded_window
    from conformance.plugin import with_variants

    case = CASES[case_id]
    engine = ReferenceEngine()
    spec = recorded_window(case, window)
    assert spec != case.window
    request = replace(request_for(case, engine.info(), case.load_stream()), window=spec)
    (tmp_path / "rec.jsonl").write_text("".join(jsonl.report_line(r) + "\n" for r in engine.run(request)))
    info = engine.info()
    recorded = {"file": "rec.jsonl", "window": window}
    path = manifest(tmp_path, "jsonl", recorded, alignment=info.alignment, profile=info.profile,
                    capabilities=sorted(info.capabilities), recordings={case_id: recorded})
    replay = ReplayEngine(str(path))
    cases = with_variants([case], replay)
    assert [c.id for c in cases] == [case_id, f"{case_id}[{shown}]"]
    assert cases[1].window == spec
    assert run_case(cases[1], replay, replay.info()).verdict == "PASS"
    forced = ReplayEngine(str(manifest(tmp_path, "jsonl", "rec.jsonl", alignment=info.alignment, profile=info.profile,
                                       capabilities=sorted(info.capabilities), recordings={case_id: "rec.jsonl"})))
    assert run_case(case, forced, forced.info()).verdict == "FAIL"


def test_a_recording_names_only_windows_the_case_has(tmp_path):
    from conformance.corpus.cases import CaseFileError, recorded_window

    with pytest.raises(CaseFileError, match="mw.two-streams-join has no window named http://ex.org/w9; its "
                                            "windows are http://ex.org/wb, http://ex.org/wt"):
        recorded_window(CASES["mw.two-streams-join"], {"windows": {"http://ex.org/w9": {"range": 5, "slide": 5}}})
    bad = manifest(tmp_path, "jsonl", {"file": "x.jsonl", "window": {"count": 0, "slide": 1}})
    with pytest.raises(ManifestError, match="recordings/edges.sliding-overlap"):
        ReplayEngine(str(bad))
