"""The corpus as data: lint passes, and the reference engine (written independently of the oracle)
agrees with the oracle on every case it can run — two methods, one answer."""

from pathlib import Path

import pytest
from deepdiff import DeepDiff

from conformance import cli
from conformance.run import report
from conformance.corpus.cases import load_corpus
from conformance.run.harness import run_case
from engines.reference import ReferenceEngine

ROOT = Path(__file__).resolve().parent.parent
CASES = load_corpus(ROOT / "cases")


def test_lint_passes(capsys):
    assert cli.main(["lint"]) == 0
    assert "0 problems" in capsys.readouterr().out


def test_ids_are_unique_and_stable_in_form():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    assert "csrbench.q5[range=5s,slide=1s]" in ids


@pytest.mark.parametrize("case", [c for c in CASES if "large-stream" not in c.capabilities], ids=lambda c: c.id)
def test_reference_engine_agrees_with_the_oracle(case):
    # cases that demand YABench's closed windows get the reference engine that implements them
    engine = ReferenceEngine(boundary="[o,c]" if "closed-windows" in case.capabilities else "[o,c)")
    result = run_case(case, engine, engine.info(), timeout=300)
    if result.verdict == "SKIPPED":
        pytest.skip(result.reason)
    if case.query.get("text"):  # a query-syntax case: the reference engine reads plain SPARQL
        assert result.verdict == "UNSUPPORTED" and "the engine reads sparql" in result.reason
        return
    assert result.verdict == "PASS", result.reason


def test_the_same_inputs_give_the_same_report():
    engine = ReferenceEngine()
    small = [c for c in CASES if c.family in ("seed002", "edges")]
    docs = []
    for _ in range(2):
        cases = [run_case(c, engine, engine.info()).to_json() for c in small]
        docs.append(report.document(report.run_info(engine.info(), {}), cases))
    diff = DeepDiff(docs[0], docs[1], exclude_regex_paths=[r"\['seconds'\]", r"\['started'\]"])
    assert diff == {}
