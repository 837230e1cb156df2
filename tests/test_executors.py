"""The Spark and threads executors (issue 18 §3): window evaluations spread over Spark tasks or threads
give the verdicts the in-process executor gives — the same PASS, the same FAIL with the same per-window
figures."""

from pathlib import Path

import pytest

from conformance.corpus.cases import load_corpus
from conformance.run.harness import run_case
from engines.faults import ShiftedEngine
from engines.reference import ReferenceEngine
from oracle.r2r.executors import ExecutorError, SparkExecutor, make
from oracle.r2r.query import R2R
from tests.streams import iri, triple_stream

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}
PICKED = ["seed002.fig1", "weather.join[stations=50]", "csrbench.q5[range=5s,slide=1s]"]


@pytest.fixture(scope="module")
def spark_executor():
    # One JVM per test process: the Spark engine's session (its collector and settings, which
    # tests/test_spark_engine.py checks) is made first, and the executor's getOrCreate reuses it — as in a
    # run with --engine spark, where the engine's first case starts Spark before the oracle judges it.
    from engines.spark.session import session

    session()
    return SparkExecutor("local[2]")


def _summary(result):
    return (result.verdict, result.reason, result.windows, result.matched, result.mean_precision,
            result.mean_recall, result.findings)


@pytest.mark.parametrize("engine_class, picked", [(ReferenceEngine, PICKED), (ShiftedEngine, PICKED[:2])],
                         ids=["reference", "shifted"])
def test_spark_executor_gives_the_in_process_verdicts(engine_class, picked, spark_executor):
    engine = engine_class()
    for case in (CASES[i] for i in picked):
        local = run_case(case, engine, engine.info(), timeout=300, evaluator="oxigraph", gracious=False)
        if local.verdict == "SKIPPED":  # the CSRBench data is absent: say so, never pass in silence
            pytest.skip(f"{case.id}: {local.reason}")
        spread = run_case(case, engine, engine.info(), timeout=300, evaluator="oxigraph", gracious=False,
                          executor=spark_executor)
        assert local.verdict == ("PASS" if engine_class is ReferenceEngine else "FAIL"), case.id
        assert _summary(spread) == _summary(local), case.id


def test_every_content_is_evaluated_in_spark_before_the_verdict_asks(spark_executor):
    stream = triple_stream((1, "a", "p", "x"), (2, "b", "p", "y"), (12, "c", "p", "x"))
    r2r = R2R("SELECT ?s WHERE { ?s <http://ex.org/p> <http://ex.org/x> }", stream, "oxigraph", spark_executor)
    r2r.prefetch([(0, 2), (1, 3), (3, 3)])
    assert set(r2r._prefetched) == {(0, 2), (1, 3), (3, 3)}
    assert [r["s"] for r in r2r.evaluate((0, 2)).rows] == [iri("a")]
    assert [r["s"] for r in r2r.evaluate((1, 3)).rows] == [iri("c")]
    assert r2r.evaluate((3, 3)).rows == ()


def test_blank_nodes_and_bad_names_are_refused_with_what_to_do(spark_executor):
    from rdflib import BNode

    stream = triple_stream((1, BNode("b"), "p", "x"))
    r2r = R2R("SELECT ?s WHERE { ?s ?p ?o }", stream, "oxigraph", spark_executor)
    with pytest.raises(ExecutorError, match="blank nodes .*--oracle-executor local"):
        r2r.prefetch([(0, 1)])
    assert make("local") is None and make(None) is None
    assert make("spark:spark://127.0.0.1:7077").master == "spark://127.0.0.1:7077"
    with pytest.raises(ExecutorError, match=r"use local, threads\[:<n>\], spark or spark:<master URL>"):
        make("dask")


@pytest.mark.parametrize("engine_class, picked", [(ReferenceEngine, PICKED), (ShiftedEngine, PICKED[:2])],
                         ids=["reference", "shifted"])
def test_the_threads_executor_gives_the_in_process_verdicts(engine_class, picked):
    engine = engine_class()
    threads = make("threads:2")
    for case in (CASES[i] for i in picked):
        local = run_case(case, engine, engine.info(), timeout=300, evaluator="auto", gracious=False)
        spread = run_case(case, engine, engine.info(), timeout=300, evaluator="auto", gracious=False, executor=threads)
        assert local.verdict == ("PASS" if engine_class is ReferenceEngine else "FAIL"), case.id
        assert _summary(spread) == _summary(local), case.id


def test_the_threads_executor_keeps_blank_nodes_and_refuses_a_count_below_one():
    from rdflib import BNode

    b = BNode("b")
    stream = triple_stream((1, b, "p", "x"), (2, "a", "q", b))
    r2r = R2R("SELECT ?s ?o WHERE { ?s <http://ex.org/p> ?x . ?o <http://ex.org/q> ?s }", stream, "oxigraph",
              make("threads:2"))
    r2r.prefetch([(0, 2), (0, 1)])
    assert set(r2r._prefetched) == {(0, 2), (0, 1)}
    assert [(r["s"], r["o"]) for r in r2r.evaluate((0, 2)).rows] == [(b, iri("a"))]  # shared across elements
    assert r2r.evaluate((0, 1)).rows == ()
    assert make("threads").workers >= 1
    with pytest.raises(ExecutorError, match="give a thread count of 1 or more, like threads:2"):
        make("threads:0")
