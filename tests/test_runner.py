"""The runner classifies engines correctly: a correct engine passes, each wrong one fails where its bug
shows and only there, and harness trouble is never blamed on the engine."""

import time
from pathlib import Path

import pytest

from conformance.corpus.cases import load_corpus
from conformance.run.harness import run_case
from engines.contract import Unsupported
from engines.faults import LatePurgeEngine, NullEngine, ShiftedEngine, WrongR2SEngine
from engines.reference import ReferenceEngine

ROOT = Path(__file__).resolve().parent.parent
SMALL = [c for c in load_corpus(ROOT / "cases") if c.family in ("seed002", "edges")]


def verdicts(engine, cases=SMALL, **kw):
    info = engine.info()
    return {c.id: run_case(c, engine, info, timeout=60, **kw) for c in cases}


def test_reference_engine_passes_every_small_case():
    results = verdicts(ReferenceEngine())
    assert {r.verdict for r in results.values()} == {"PASS"}, {k: r.reason for k, r in results.items()}


def test_null_engine_fails_every_case_with_everything_missing():
    results = verdicts(NullEngine())
    assert {r.verdict for r in results.values()} == {"FAIL"}
    assert all(all(w.status == "MISSING" for w in r.windows) for r in results.values())


def test_wrong_r2s_engine_fails_exactly_the_istream_and_dstream_cases():
    results = verdicts(WrongR2SEngine())
    failing = {k for k, r in results.items() if r.verdict == "FAIL"}
    expected = {c.id for c in SMALL if c.r2s != "rstream"}
    assert failing == expected == {"edges.r2s-consecutive[r2s=istream]", "edges.r2s-consecutive[r2s=dstream]"}


def test_late_purge_is_explained_by_gracious_mode_and_provenance():
    case = next(c for c in SMALL if c.id == "edges.sliding-overlap")
    result = verdicts(LatePurgeEngine(), [case])[case.id]
    assert result.verdict == "FAIL"
    # window [5,15) should hold b, c; the late-purging engine still has a (t=2)
    second = result.windows[1]
    assert second.extra == ["{?s=a}"]
    assert any(d.startswith("extra {?s=a}, derived from the triples at t=2, outside expected window [5, 15)")
               for d in second.diagnostics), second.diagnostics
    # the opening moved left to the element at 2 (the data cannot tell 0 from 2)
    assert any("looks like [2, 15)" in d for d in second.diagnostics), second.diagnostics


def test_shifted_engine_fails_where_elements_cross_the_shifted_borders():
    results = verdicts(ShiftedEngine())
    assert results["seed002.fig1"].verdict == "FAIL"
    assert results["edges.border"].verdict == "FAIL"


class _Limited(ReferenceEngine):
    def info(self):
        info = super().info()
        return type(info)(**{**info.__dict__, "capabilities": frozenset({"time-window"})})


class _Crashing(ReferenceEngine):
    def run(self, request):
        raise RuntimeError("engine exploded")


class _Hanging(ReferenceEngine):
    def run(self, request):
        time.sleep(30)


class _Refusing(ReferenceEngine):
    def run(self, request):
        raise Unsupported("OPTIONAL is not implemented")


def test_harness_trouble_is_never_a_fail():
    case = next(c for c in SMALL if c.id == "edges.static-join")
    assert run_case(case, _Limited(), _Limited().info()).verdict == "UNSUPPORTED"
    crashed = run_case(case, _Crashing(), _Crashing().info())
    assert crashed.verdict == "ERROR" and "engine exploded" in crashed.reason and "Traceback" in crashed.error
    started = time.monotonic()
    hung = run_case(case, _Hanging(), _Hanging().info(), timeout=0.5)
    assert hung.verdict == "TIMEOUT" and time.monotonic() - started < 5
    assert run_case(case, _Refusing(), _Refusing().info()).verdict == "UNSUPPORTED"


def test_cases_whose_data_is_absent_are_skipped_with_a_message(tmp_path):
    case = next(c for c in load_corpus(ROOT / "cases") if c.family == "csrbench")
    from conformance.corpus import datapaths
    datapaths.set_data_root(tmp_path)
    try:
        result = run_case(case, ReferenceEngine(), ReferenceEngine().info())
    finally:
        datapaths.set_data_root(None)
    assert result.verdict == "SKIPPED"
    assert "csrbench/stream" in result.reason and str(tmp_path) in result.reason


@pytest.mark.parametrize("engine, outcome", [("reference", {"passed": 2}), ("testing-null", {"failed": 2})])
def test_plugin_end_to_end_with_json_report(pytester, engine, outcome):
    report = pytester.path / "report.json"
    result = pytester.runpytest_inprocess(str(ROOT / "conformance"), "--engine", engine, "-k", "seed002",
                                         "--report", str(report), "-p", "no:randomly")
    result.assert_outcomes(**outcome)
    result.stdout.fnmatch_lines(["*rspconf conformance summary*", "seed002.fig1 *", "totals: *"])
    import json
    doc = json.loads(report.read_text())
    assert doc["schema_version"] == 1 and doc["run"]["engine"]["name"] == engine
    assert [c["id"] for c in doc["cases"]] == ["seed002.fig1", "seed002.fig2"]
    verdict = "PASS" if engine == "reference" else "FAIL"
    assert {c["verdict"] for c in doc["cases"]} == {verdict}


def null_engine_with_expectations(folder, file: str = "expectations.yaml", run: str = "") -> str:
    """An in-process adapter (the null engine) declaring ``folder/file`` as its expectations file, with
    ``run`` as its run method's body if given; its --engine value."""
    (folder / "adapter.py").write_text(
        "from pathlib import Path\n"
        "from engines.faults import NullEngine\n"
        "class Engine(NullEngine):\n"
        "    def expectations_path(self):\n"
        f"        return Path(__file__).parent / {file!r}\n"
        + (f"    def run(self, request):\n        {run}\n" if run else ""))
    return f"{folder / 'adapter.py'}:Engine"


def test_expectations_are_strict_xfails(pytester):
    (pytester.path / "expectations.yaml").write_text(
        "seed002.fig1:\n  verdict: FAIL\n  reason: answers nothing\n"
        "seed002.fig2:\n  verdict: FAIL\n  reason: claimed broken, but it is not\n")
    engine = null_engine_with_expectations(
        pytester.path, run="return [] if request.case_id == 'seed002.fig1' else super(NullEngine, self).run(request)")
    result = pytester.runpytest_inprocess(str(ROOT / "conformance"), "--engine", engine, "-k", "seed002")
    # fig1 fails as expected (xfail); fig2 passes although listed: strict xfail turns it into a failure
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*XPASS(strict)*"])


def test_an_expected_fail_met_by_an_error_is_a_failure_not_an_xfail(pytester):
    """The expectation says FAIL; the engine now raises: that is news, not the known deviation."""
    (pytester.path / "expectations.yaml").write_text("seed002.fig1:\n  verdict: FAIL\n  reason: answers nothing\n")
    engine = null_engine_with_expectations(pytester.path, run="raise RuntimeError('the engine crashed')")
    result = pytester.runpytest_inprocess(str(ROOT / "conformance"), "--engine", engine, "-k", "seed002.fig1")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ERROR: engine raised RuntimeError: the engine crashed*"])


def test_expectations_that_name_no_case_are_a_warning_or_with_strict_a_usage_error(pytester):
    (pytester.path / "expectations.yaml").write_text(
        "seed002.fig1:\n  verdict: FAIL\n  reason: answers nothing\n"
        "seed002.fgi2:\n  verdict: FAIL\n  reason: a typo in the id\n")
    args = [str(ROOT / "conformance"), "--engine", null_engine_with_expectations(pytester.path), "-k", "seed002.fig1"]
    result = pytester.runpytest_inprocess(*args)
    result.stdout.fnmatch_lines(["*WARNING: *expectations.yaml: 1 entry name no case of the corpus (seed002.fgi2)*"])
    strict = pytester.runpytest_inprocess(*args, "--strict-expectations")
    text = strict.stdout.str() + strict.stderr.str()
    assert strict.ret != 0 and "1 entry name no case of the corpus (seed002.fgi2)" in text and "Traceback" not in text


def test_a_declared_expectations_file_that_is_not_there_stops_the_run(pytester):
    engine = null_engine_with_expectations(pytester.path, "expectatoins.yaml")
    result = pytester.runpytest_inprocess(str(ROOT / "conformance"), "--engine", engine, "-k", "seed002.fig1")
    text = result.stdout.str() + result.stderr.str()
    assert result.ret != 0 and "expectatoins.yaml: the engine's expectations file is not there" in text
    assert "Traceback" not in text


def test_invalid_case_file_names_file_line_and_field(pytester):
    cases = pytester.path / "cases"
    cases.mkdir()
    (cases / "bad.yaml").write_text(
        "schema_version: 1\nfamily: bad\ntitle: t\ncases:\n  - id: one\n    title: t\n    spec: [x]\n"
        "    level: must\n    capabilities: [time-window]\n    stream: {elements: []}\n"
        "    query:\n      r2r: 'SELECT * WHERE {?s ?p ?o}'\n      window: {range: 10 seconds, slide: 1s}\n")
    result = pytester.runpytest_inprocess(str(ROOT / "conformance"), "--cases", str(cases))
    assert result.ret != 0
    text = result.stderr.str() + result.stdout.str()
    assert "bad.yaml:13: field cases[0].query.window.range" in text
    assert "Traceback" not in text


def test_aligned_t0_is_the_earliest_window_closing_at_a_multiple_of_the_slide():
    from oracle.model import WindowSpec
    from oracle.profiles import aligned_t0

    # 5 s / 1 s windows close at 1 s, 2 s, ...: [-4000, 1000) is the first to hold t=0
    assert aligned_t0(WindowSpec(5000, 1000), 0) == -4000
    assert aligned_t0(WindowSpec(5000, 1000), 2500) == -2000  # [-2000, 3000) holds 2500; [-3000, 2000) not
    assert aligned_t0(WindowSpec(10000, 10000), 0) == 0
    assert aligned_t0(WindowSpec(5, 2), 0) == -3  # closes at 2: [-3, 2)


def test_a_varying_t0_admits_the_engines_declared_one():
    from oracle.model import WindowSpec
    from oracle.profiles import space
    from tests.streams import triple_stream

    stream = triple_stream((0, "a", "p", "o"), (3000, "b", "p", "o"))
    window = WindowSpec(5000, 1000)
    # default range for t_first = 0: [0, 5000]; the engine says -4000 (aligned): both are tried
    varied = space({"t0": "aligned"}, None, {"t0": "any"}, window=window, stream=stream)
    assert dict(varied.choices)["t0_range"] == ((-4000, 5000),)
    assert dict(space({"t0": "aligned"}, window=window, stream=stream).choices)["t0"] == (-4000,)
    assert dict(space({"t0": "any"}, None, {"t0": "any"}, window=window, stream=stream).choices)["t0_range"] == (None,)


class IstreamOnlyEngine(ReferenceEngine):
    """Always applies Istream, whatever the query asks (CQELS-like)."""

    declares = False

    def info(self):
        info = super().info()
        if not self.declares:
            return info
        return type(info)(**{**info.__dict__, "profile": {**info.profile, "r2s": "istream"}})

    def r2s(self, operator, current, previous, kind):
        return super().r2s("istream", current, previous, kind)


def test_an_engine_with_one_declared_r2s_is_judged_under_it_and_the_verdict_says_so():
    case = {c.id: c for c in load_corpus(ROOT / "cases")}["edges.r2s-consecutive[r2s=dstream]"]
    silent = IstreamOnlyEngine()
    assert run_case(case, silent, silent.info()).verdict == "FAIL"  # the case's Dstream is demanded
    declared = IstreamOnlyEngine()
    declared.declares = True
    result = run_case(case, declared, declared.info())
    assert result.verdict == "PASS"
    assert result.reason.startswith("[judged under the engine's declared R2S istream; the case asks dstream]")


def test_an_istream_only_engine_runs_the_istream_cases_of_a_grid():
    """A grid case's capabilities follow its parameter values: declaring istream without dstream, the
    [r2s=istream] combinations run and only the [r2s=dstream] ones are UNSUPPORTED."""
    from dataclasses import replace

    from conformance.corpus.cases import load_corpus
    from conformance.run.harness import run_case
    from engines.reference import ReferenceEngine

    cases = {c.id: c for c in load_corpus(ROOT / "cases")}
    engine = ReferenceEngine()
    info = replace(engine.info(), capabilities=engine.info().capabilities - {"dstream"})
    assert run_case(cases["r2s.growing-bag[r2s=istream]"], engine, info).verdict == "PASS"
    dstream = run_case(cases["r2s.growing-bag[r2s=dstream]"], engine, info)
    assert (dstream.verdict, dstream.reason) == ("UNSUPPORTED", "engine lacks capability dstream")
    assert cases["r2s.sliding[r2s=istream]"].capabilities == ("time-window", "sliding-window", "istream")
