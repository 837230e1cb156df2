"""rsp-js 1.3.5 through its Node driver: declared profile, passes, and the known deviations."""

import shutil
from pathlib import Path

import pytest

from conformance import adapters, datapaths
from conformance.cases import load_corpus
from conformance.harness import run_case
from engines.rspjs import HERE, RspJsEngine

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (HERE / "node_modules" / "rsp-js").is_dir(),
    reason="rsp-js is not installed (npm ci --prefix engines/rspjs)")


@pytest.fixture(scope="module")
def engine():
    e = adapters.load("rsp-js")
    yield e
    e.close()


def test_declares_the_profile_read_off_its_source(engine):
    info = engine.info()
    assert (info.name, info.version, info.dialect, info.alignment) == ("rsp-js", "1.3.5", "rspql", "time")
    assert info.profile["t0"] == "aligned" and info.profile["close"] == ">" and info.profile["grain"] == "single"
    assert info.expectations == HERE / "expectations.yaml"


def test_a_window_is_reported_by_the_first_later_element(engine):
    # edges.border: with close rule '>' the element at exactly c does not close [o, c)
    result = run_case(CASES["edges.border"], engine, engine.info())
    assert result.verdict == "PASS", result.reason


def test_an_element_closing_several_windows_reports_the_latest_non_empty_one(engine):
    # elements at 1 (ex:a) and 35 (ex:b), 10 ms windows: rsp-js created only [0,10) and [30,40), so at
    # 35 it reports [0,10) = {a}; SECRET's latest closed window [20,30) is empty: no report expected
    result = run_case(CASES["edges.gap"], engine, engine.info())
    assert result.verdict == "FAIL"
    assert [(w["status"], w["actual_tau"], w["extra"]) for w in result.windows] == [("EXTRA", 35, ["{?s=a}"])]


def test_t0_drift_loses_windows_once_bindings_pile_up(engine):
    result = run_case(CASES["waves.q1-range[sensors=10,window=2s/2s]"], engine, engine.info())
    assert result.verdict == "FAIL" and result.findings == {"missing-report": 5}
    # the first two windows, before the drift, are right
    assert [w["status"] for w in result.windows[:2]] == ["MATCH", "MATCH"]


def test_csrbench_q5_passes_with_partial_first_windows(engine):
    if datapaths.data_root() is None:
        pytest.skip("no data root")
    result = run_case(CASES["csrbench.q5[range=5s,slide=1s]"], engine, engine.info())
    assert result.verdict == "PASS" and result.explanation["t0"] == -4000


def test_without_node_the_engine_is_unavailable_and_says_why():
    with pytest.raises(ValueError, match="needs Node.js"):
        RspJsEngine(node="no-such-node-binary")
