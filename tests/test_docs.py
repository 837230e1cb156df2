"""The examples in docs/adding-an-engine.md work as printed (a new user copies them)."""

import re
from pathlib import Path

from conformance.corpus.cases import load_corpus
from conformance.run import adapters
from conformance.run.harness import run_case

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "adding-an-engine.md").read_text(encoding="utf-8")
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}


def test_the_javascript_engine_in_the_page_is_the_example_file():
    shown = re.findall(r"```javascript\n(.*?)```", DOC, re.DOTALL)[0]
    assert shown == (ROOT / "docs" / "examples" / "minimal-engine.mjs").read_text(encoding="utf-8")


def test_the_in_process_adapter_in_the_page_passes_and_refuses_as_described(tmp_path):
    (tmp_path / "my_adapter.py").write_text(re.findall(r"```python\n(.*?)```", DOC, re.DOTALL)[0])
    engine = adapters.build(f"{tmp_path / 'my_adapter.py'}:MyEngine")
    info = engine.info()
    assert info.expectations == tmp_path / "my-expectations.yaml"
    for case_id in ("edges.border", "edges.empty-windows", "edges.sliding-overlap"):
        assert run_case(CASES[case_id], engine, info).verdict == "PASS", case_id
    result = run_case(CASES["edges.r2s-consecutive[r2s=istream]"], engine, info)
    assert result.verdict == "UNSUPPORTED"  # it lacks the istream capability


def test_the_manifest_in_the_page_is_valid(tmp_path):
    from engines.replay import ReplayEngine

    shown = re.findall(r"```yaml\n(schema_version.*?)```", DOC, re.DOTALL)[0]
    (tmp_path / "m.yaml").write_text(shown)
    assert ReplayEngine(str(tmp_path / "m.yaml")).info().name == "my-engine"


def test_the_load_experiment_in_the_page_is_valid_and_names_cases_of_the_corpus(tmp_path):
    from conformance.load.experiment import read_experiment

    shown = re.findall(r"```yaml\n(name: my-loads.*?)```", DOC, re.DOTALL)[0]
    (tmp_path / "my-loads.yaml").write_text(shown)
    experiment = read_experiment(tmp_path / "my-loads.yaml")
    assert experiment.repeat == 3 and experiment.timeout == 300.0 and experiment.heartbeat == 0.1
    assert set(experiment.loads) <= set(CASES)
