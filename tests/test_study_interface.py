"""The 2021 comparative study's unifying interface (``--engine 'study:…'``, engines/study.py).

The stand-in runner (tests/study_runner.py) follows the interface as the study's code does; its docstring
names the files of theirs that were read.  Every test gives its own ports, so runs under xdist never meet.
"""

import shlex
import sys
import threading
from pathlib import Path

import pytest
from rdflib import BNode, Literal, URIRef

from conformance.corpus import datapaths
from conformance.corpus.cases import load_corpus
from conformance.run import adapters
from conformance.run.harness import run_case
from engines.process import marked
from engines.study import StudyError, _answers, projection, term

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}
RUNNER = Path(__file__).with_name("study_runner.py")
XSD = "http://www.w3.org/2001/XMLSchema#"


def study(base: int, runner: str = "", **options):
    """The adapter for a runner on ports base (configuration), base+1 (answers), base+2… (streams)."""
    command = runner or (f"{shlex.quote(sys.executable)} {shlex.quote(str(RUNNER))} "
                         f"--config http://localhost:{base}/configuration.json "
                         f"--answers http://localhost:{base + 1}/answers.json")
    return adapters.build(f"study:{command} {options.pop('flags', '')}".strip(),
                          {"config_port": str(base), "answers_port": str(base + 1), "stream_port": str(base + 2),
                           **options})


def run(engine, case_id, timeout=120.0):
    return run_case(CASES[case_id], engine, engine.info(), timeout=timeout)


@pytest.mark.long
def test_a_csrbench_case_passes_through_the_stand_in_and_fails_when_it_drops_a_solution():
    """The stand-in answers csrbench.q2 (1 s windows, 34 s of stream, in real time) rightly, and with
    ``--wrong`` it drops the last solution of each evaluation: the windows with solutions are named."""
    root = datapaths.data_root()
    if root is None or not (root / "csrbench").is_dir():
        pytest.skip("the CSRBench stream is not under the data root")
    case = "csrbench.q2[range=1s,slide=1s]"
    results = {}
    engines = {"right": study(23100), "wrong": study(23110, flags="--wrong")}
    runs = [threading.Thread(target=lambda k=k: results.__setitem__(k, run(engines[k], case))) for k in engines]
    for t in runs:
        t.start()
    for t in runs:
        t.join()
    right, wrong = results["right"], results["wrong"]
    assert right.verdict == "PASS", right.reason
    assert "34 reports match" in right.reason
    assert "named <http://localhost:23102/rspconf/stream1> in the query" in right.reason
    assert wrong.verdict == "FAIL", wrong.reason
    # the CSRBench stream has an air temperature above 80 in 15 of its 34 seconds: each of those is missing one
    assert "15 mismatch of 34 reports" in wrong.reason
    assert "reports no solutions where the oracle has some (15 windows)" in wrong.reason
    assert engines["right"].markers and not left(engines["right"]) and not left(engines["wrong"])


def left(engine):
    """The runner processes (and their descendants) still alive after the run."""
    return [pid for token in engine.markers for pid in marked(token)]


def test_answers_that_are_not_json_are_an_error_naming_the_url():
    result = run(study(23120, flags="--garbage"), "edges.border", timeout=60)
    assert result.verdict == "ERROR"
    assert "http://127.0.0.1:23121/answers.json is not UTF-8 JSON" in result.reason


def test_a_runner_that_never_connects_is_an_error_saying_which_socket_and_what_to_raise():
    sleeper = f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(60)'"
    engine = study(23130, sleeper, connect_timeout="1")
    result = run(engine, "edges.border", timeout=30)
    assert result.verdict == "ERROR"
    assert "did not connect to the stream socket(s) 127.0.0.1:23132 within 1 s" in result.reason
    assert "connect_timeout" in result.reason
    assert engine.markers and not left(engine)


def test_a_runner_that_dies_at_once_is_an_error_with_its_exit_code_and_output():
    dying = f"{shlex.quote(sys.executable)} -c 'print(\"no configuration for me\"); raise SystemExit(3)'"
    result = run(study(23140, dying), "edges.border", timeout=30)
    assert result.verdict == "ERROR"
    assert "exited (exit code 3)" in result.reason
    assert "no configuration for me" in (result.error or "")


def test_a_runner_that_hangs_after_the_stream_is_a_timeout_and_leaves_no_process():
    """It reads the configuration and the stream, and never serves answers: the case timeout ends it."""
    hanging = (f"{shlex.quote(sys.executable)} -c 'import json,socket,time,urllib.request; "
               "q=json.load(urllib.request.urlopen(\"http://localhost:23150/configuration.json\")); "
               "s=socket.create_connection((\"127.0.0.1\", 23152)); time.sleep(120)'")
    engine = study(23150, hanging)
    result = run(engine, "edges.border", timeout=4)
    assert result.verdict == "TIMEOUT", result.reason
    assert engine.markers and not left(engine)


def test_a_port_in_use_is_an_error_naming_the_port_and_the_option():
    import socket
    with socket.create_server(("127.0.0.1", 23160)):
        result = run(study(23160), "edges.border", timeout=30)
    assert result.verdict == "ERROR"
    assert "cannot listen on 127.0.0.1:23160 for the configuration" in result.reason
    assert "config_port=N" in result.reason


def test_values_as_the_study_runners_print_them_are_terms():
    assert term("http://ex.org/a", "x") == URIRef("http://ex.org/a")
    assert term("<http://ex.org/a>", "x") == URIRef("http://ex.org/a")
    assert term('"84.0"^^http://www.w3.org/2001/XMLSchema#double', "x") == Literal("84.0", datatype=URIRef(XSD + "double"))
    assert term('"84.0"^^xsd:double', "x") == Literal("84.0", datatype=URIRef(XSD + "double"))
    assert term('"84"^^<http://www.w3.org/2001/XMLSchema#integer>', "x") == Literal("84", datatype=URIRef(XSD + "integer"))
    assert term('"chat"@fr', "x") == Literal("chat", lang="fr")
    assert term('"plain"', "x") == Literal("plain")
    assert term("_:b1", "x") == BNode("b1")
    with pytest.raises(StudyError, match="answers.json item 2: 'eighty' is not an RDF term"):
        term("eighty", "answers.json item 2")


def test_values_follow_the_projection_and_a_short_row_is_named():
    assert projection("SELECT ?b ?a WHERE { ?a <p> ?b }") == ["b", "a"]
    # SELECT *: Jena's order, the variables as they first appear
    assert projection("SELECT * WHERE { ?obs <p> ?sensor . ?sensor <q> ?a }") == ["obs", "sensor", "a"]
    found, others = _answers([{"queryId": "q1", "timestamp": 5, "variableBindings": [
        {"variableValuesAsString": ["http://ex.org/x", '"1"^^xsd:integer']}]},
        {"queryId": "q7", "timestamp": 6}], ["s", "n"], "q1")
    assert found == [(5, [{"s": URIRef("http://ex.org/x"), "n": Literal("1", datatype=URIRef(XSD + "integer"))}], None)]
    assert others == ["q7"]
    with pytest.raises(StudyError, match=r"item 0: variableBindings\[0\] has 1 values; the query projects 2"):
        _answers([{"queryId": "q1", "timestamp": 5, "variableBindings": [{"variableValuesAsString": ["x:y"]}]}],
                 ["s", "n"], "q1")
    with pytest.raises(StudyError, match="item 0: field timestamp is '5'"):
        _answers([{"queryId": "q1", "timestamp": "5"}], ["s"], "q1")


def test_a_study_engine_without_a_command_is_refused_with_an_example():
    with pytest.raises(adapters.EngineUnavailable, match="study:'java -jar runner.jar'"):
        adapters.build("study:")
