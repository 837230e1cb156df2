"""The Spark engine (replay mode) against the oracle, and its refusals."""

from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from conformance.cases import load_corpus  # noqa: E402
from conformance.harness import request_for, run_case  # noqa: E402
from engines.contract import Unsupported  # noqa: E402
from engines.spark import SparkEngine  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}


@pytest.fixture(scope="session")
def engine():
    return SparkEngine()


@pytest.mark.parametrize("case_id", [
    "seed002.fig1", "edges.aggregates-empty", "edges.r2s-consecutive[r2s=dstream]", "edges.static-join",
    "edges.join-across-time[slide=5ms]", "edges.ask", "waves.q2-flow[sensors=10,window=4s/1s]",
    "yabench.e3-join[stations=50]",
])
def test_spark_engine_passes(engine, case_id):
    case = CASES[case_id]
    result = run_case(case, engine, engine.info(), timeout=600)
    assert result.verdict == "PASS", result.reason


def test_unsupported_constructs_are_refused_by_name(engine):
    case = CASES["edges.border"]
    stream = case.load_stream()
    request = request_for(case, engine.info(), stream)
    ordered = type(request)(**{**request.__dict__, "r2r": request.r2r + " ORDER BY ?s LIMIT 1"})
    with pytest.raises(Unsupported, match="Slice|OrderBy"):
        engine.run(ordered)
    assert run_case(CASES["edges.construct"], engine, engine.info()).verdict == "UNSUPPORTED"


@pytest.mark.parametrize("case_id", ["seed002.fig1", "edges.aggregates-empty", "edges.static-join",
                                     "edges.r2s-consecutive[r2s=istream]"])
def test_streaming_mode_gives_the_same_answers(case_id):
    streaming = SparkEngine(mode="streaming")
    result = run_case(CASES[case_id], streaming, streaming.info(), timeout=600)
    assert result.verdict == "PASS", result.reason


def test_spark_run_prints_json_lines(tmp_path, capsys):
    from conformance import cli
    from engines.jsonl import parse_line

    stream = tmp_path / "s.nq"
    assert cli.main(["generate", "yabench", "--stations", "5", "--duration", "10s", "--output", str(stream)]) == 0
    query = tmp_path / "q.rq"
    query.write_text("PREFIX om: <http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#>\n"
                     "SELECT (COUNT(?v) AS ?n) WHERE { ?d om:floatValue ?v }")
    capsys.readouterr()
    assert cli.main(["spark", "run", "--query", str(query), "--stream", str(stream), "--range", "5s", "--slide", "5s"]) == 0
    reports = [parse_line(line) for line in capsys.readouterr().out.splitlines()]
    # 5 stations, one observation a second each: 25 in each 5 s window
    assert [(r.window, int(r.solutions[0]["n"])) for r in reports][:2] == [((0, 5000), 25), ((5000, 10000), 25)]


def test_spark_run_takes_rspql_text(tmp_path, capsys):
    from conformance import cli
    from engines.jsonl import parse_line

    stream = tmp_path / "s.txt"
    assert cli.main(["generate", "yabench", "--stations", "5", "--duration", "10s", "--format", "yabench",
                     "--output", str(stream)]) == 0
    query = tmp_path / "q.rq"
    query.write_text("PREFIX om: <http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#>\n"
                     "REGISTER ISTREAM <q> AS SELECT (COUNT(?v) AS ?n)\n"
                     "FROM NAMED WINDOW <w> ON <http://s> [RANGE PT5S STEP PT5S]\n"
                     "WHERE { WINDOW <w> { ?d om:floatValue ?v } }")
    capsys.readouterr()
    assert cli.main(["spark", "run", "--query", str(query), "--stream", str(stream)]) == 0
    reports = [parse_line(line) for line in capsys.readouterr().out.splitlines()]
    # Istream: 25 observations in each 5 s window, so the second relation equals the first: nothing new
    assert [(r.window, [int(row["n"]) for row in r.solutions]) for r in reports][:2] == [((0, 5000), [25]), ((5000, 10000), [])]
