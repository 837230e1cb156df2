"""Live load runs (conformance/load/live.py, conformance/load/experiment.py): the feeder keeps to the clock, the
reference engine is the control (P = R = 1), and two engines with a known fault show exactly that
fault — a known delay, a known fraction of elements lost — within the feeder's measured jitter."""

import json
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from rdflib import Literal, URIRef

from conformance.corpus.cases import expand, read_family
from conformance.load import experiment as load
from conformance.load.live import Feeder, LiveUnsupported, run_live
from conformance.run.harness import request_for
from engines.faults import DroppingEngine, LateEngine
from engines.reference import ReferenceEngine
from oracle.model import Element, Stream

PER_STAMP = 4    # elements per timestamp: a burst the dropping engine cannot take whole
STAMPS = 30      # every 100 ms of application time: 3 s, three 1 s windows
SPEED = 2.0      # 1.5 s of wall-clock time per run
HEARTBEAT = 0.05


def burst_case(tmp_path):
    """Each element is one reading of its own sensor, so each contributes exactly one solution: a window's
    recall is the share of its elements the engine kept."""
    elements = "\n".join(f'        - {{t: {100 * i}, turtle: "ex:s{i}-{j} ex:v {i} ."}}'
                         for i in range(STAMPS) for j in range(PER_STAMP))
    family = tmp_path / "bursts.yaml"
    family.write_text(f"""schema_version: 1
family: bursts
title: bursts of readings
prefixes: {{ex: "http://ex.org/"}}
cases:
  - id: readings
    title: every reading of a 1 s window
    spec: [test]
    level: must
    capabilities: [time-window]
    stream:
      elements:
{elements}
    query:
      r2r: "SELECT ?s ?v WHERE {{ ?s ex:v ?v }}"
      window: {{range: 1s, slide: 1s}}
""")
    return expand(read_family(family), family)[0]


def experiment(**changes):
    return load.Experiment(**{"name": "test", "loads": ("bursts.readings",), "speed": SPEED, "repeat": 1,
                              "heartbeat": HEARTBEAT, "sample": 0.2, "timeout": 60.0, **changes})


class Recorder:
    """A live session that records each push and when it came."""

    def __init__(self):
        self.pushes = []

    def push(self, t, elements):
        self.pushes.append((t, len(elements), time.monotonic()))


def test_the_feeder_pushes_each_timestamp_when_due_never_early_and_heartbeats_in_between():
    elements = [Element(t, ()) for t in (0, 0, 300, 700, 700, 700)]
    session = Recorder()
    log = Feeder(elements, speed=2.0, heartbeat=0.02, until=1000).run(session)
    groups = [(t, n) for t, n, _ in session.pushes if n]
    assert groups == [(0, 2), (300, 1), (700, 3)]
    assert (log.groups, log.elements) == (3, 6)
    for t, n, at in session.pushes:
        if n:  # an element is never pushed before it is due
            assert at >= log.wall(t) - 1e-6
    times = [t for t, _, _ in session.pushes]
    assert times == sorted(times) and times[-1] == 1000      # the clock runs on to the last close
    beats = [(t, at) for t, n, at in session.pushes if not n]
    assert len(beats) >= 5 and log.heartbeats == len(beats)
    for t, at in beats:  # a heartbeat says only what the clock has reached
        assert at >= log.wall(t) - 1e-6
    assert_lateness_is_what_the_session_saw(log, session)


def test_heartbeats_come_on_the_application_clocks_grid_so_a_close_is_known_when_it_passes():
    """Elements at 60 and 1060 ms, heartbeats every 0.1 s at speed 1: one at each multiple of 100 ms when
    it is due, 1000 (a window's close) included.  Heartbeats 0.1 s after the last element (160, 260, …,
    960) would tell nothing of 1000 until the element at 1060, 60 ms late."""
    session = Recorder()
    log = Feeder([Element(60, ()), Element(1060, ())], speed=1.0, heartbeat=0.1).run(session)
    for g in range(100, 1001, 100):
        told = [at for t, _, at in session.pushes if t >= g]
        assert told and told[0] - log.wall(g) < 0.04, (g, told[0] - log.wall(g) if told else None)
    for t, n, at in session.pushes:  # never ahead of the clock
        assert at >= log.wall(t) - 1e-6
    beats = [t for t, n, _ in session.pushes if not n]
    assert beats == sorted(set(beats)) and all(60 < t < 1060 for t in beats)


class Frozen(Recorder):
    """A live session that records, at each push, how many objects the garbage collector leaves alone."""

    def __init__(self):
        super().__init__()
        self.frozen = []

    def push(self, t, elements):
        import gc

        super().push(t, elements)
        self.frozen.append(gc.get_freeze_count())

    def end(self):
        pass


def test_while_feeding_what_was_made_before_is_out_of_the_collectors_way_and_back_after(tmp_path):
    """A full collection walks every tracked object holding the interpreter lock (0.6 s at 10,000
    stations, the feeder as late): while feeding, the stream and everything made before are frozen
    (``gc.freeze``), and after the run they are the collector's again."""
    import gc

    class Adapter:
        def live(self, request, emit):
            self.session = Frozen()
            return self.session

    case = burst_case(tmp_path)
    adapter = Adapter()
    engine = ReferenceEngine()
    request = request_for(case, engine.info(), case.load_stream())
    before = gc.get_freeze_count()
    run_live(adapter, request, speed=20.0, heartbeat=0.05, sample_every=0.5, timeout=60)
    frozen = adapter.session.frozen
    assert frozen and min(frozen) > len(request.stream.elements)  # the elements at least, each an object
    assert gc.get_freeze_count() == before == 0


def assert_lateness_is_what_the_session_saw(log, session):
    """The feeder's own lateness per group against the session's clock: read just before the push, so at
    most what the session saw, and not much less."""
    seen = [at - log.wall(t) for t, n, at in session.pushes if n]
    assert len(log.lateness) == len(seen)
    for own, observed in zip(log.lateness, seen):
        assert own <= observed + 1e-6 and observed - own < 0.05, (own, observed)
    assert log.summary()["lateness_ms"]["max"] == pytest.approx(max(log.lateness) * 1000, abs=0.001)


class Stalling(Recorder):
    """A session whose first push takes 0.3 s: every later group is pushed late."""

    def push(self, t, elements):
        super().push(t, elements)
        if len(self.pushes) == 1:
            time.sleep(0.3)


def test_the_feeder_measures_its_lateness_when_a_push_holds_it_up():
    elements = [Element(t, ()) for t in (0, 300, 700)]
    session = Stalling()
    log = Feeder(elements, speed=2.0, heartbeat=0.02).run(session)
    # t=300 is due 0.15 s after t=0 and cannot be pushed before 0.3 s: at least 0.15 s late
    assert log.lateness[1] >= 0.15 and log.summary()["lateness_ms"]["max"] >= 150
    assert_lateness_is_what_the_session_saw(log, session)


def test_the_reference_engine_is_the_control_every_window_right(tmp_path):
    case = burst_case(tmp_path)
    engine = ReferenceEngine()
    run = load.run_once(case, engine, engine.info(), experiment())
    assert run["verdict"] == "PASS", run["reason"]
    assert [(w["open"], w["close"], w["recall"], w["precision"]) for w in run["windows"]] == [
        (0, 1000, 1.0, 1.0), (1000, 2000, 1.0, 1.0), (2000, 3000, 1.0, 1.0)]
    assert all(w["delay_ms"] is not None and w["delay_ms"] >= 0 for w in run["windows"])
    assert run["missing_reports"] == run["duplicated_reports"] == 0
    assert run["feed"]["elements"] == STAMPS * PER_STAMP


def test_a_late_engine_is_measured_late_by_what_was_injected(tmp_path):
    case = burst_case(tmp_path)
    control = ReferenceEngine()
    base = load.run_once(case, control, control.info(), experiment())
    late = LateEngine(delay=0.4)
    slow = load.run_once(case, late, late.info(), experiment())
    assert slow["verdict"] == "PASS"  # right answers, only late: the verdict is about answers
    measured = statistics.median(w["delay_ms"] for w in slow["windows"]) - \
        statistics.median(w["delay_ms"] for w in base["windows"])
    jitter = base["feed"]["lateness_ms"]["max"] + slow["feed"]["lateness_ms"]["max"] + HEARTBEAT * 1000 + 50
    assert abs(measured - 400) <= jitter, (measured, jitter)


@pytest.mark.parametrize("capacity,recall", [(3, 0.75), (2, 0.5), (PER_STAMP, 1.0)])
def test_a_dropping_engine_loses_the_share_it_cannot_take(tmp_path, capacity, recall):
    case = burst_case(tmp_path)
    engine = DroppingEngine(capacity=capacity)
    run = load.run_once(case, engine, engine.info(), experiment())
    assert [w["recall"] for w in run["windows"]] == [recall] * 3
    assert all(w["precision"] == 1.0 for w in run["windows"])
    assert run["verdict"] == ("PASS" if recall == 1.0 else "FAIL")
    if recall < 1:
        assert "missing" in run["reason"] or "MISSING" in run["reason"] or "mismatch" in run["reason"]
    # the batch run has no bursts: the fault shows only live
    batch = engine.run(request_for(case, engine.info(), case.load_stream()))
    assert [len(r.solutions) for r in batch] == [40, 40, 40]


def test_repetitions_give_each_window_its_spread_and_the_report_fits_its_schema(tmp_path):
    case = burst_case(tmp_path)
    report = load.run_experiment(experiment(repeat=2), ReferenceEngine(), {case.id: case}, say=lambda _: None)
    assert load.validate(report) == []
    (entry,) = report["loads"]
    assert entry["status"] == "complete" and len(entry["runs"]) == 2
    assert [row["recall"]["n"] for row in entry["spread"]] == [2, 2, 2]
    first = entry["spread"][0]["delay_ms"]
    assert first["min"] <= first["median"] <= first["max"]
    files = load.write(report, tmp_path / "out")
    assert {f.name.split(".")[-2] for f in files[1:]} == {"precision", "recall", "delay", "sizes", "cpu", "memory"}
    assert all(f.read_text().startswith("<svg") for f in files[1:])
    assert json.loads(files[0].read_text())["kind"] == "rspconf-load"


def test_engines_and_cases_a_live_run_cannot_feed_are_refused_by_name(tmp_path):
    from conformance.corpus.cases import load_corpus

    cases = {c.id: c for c in load_corpus(Path(__file__).resolve().parent.parent / "cases")}
    engine = ReferenceEngine()
    count = cases["count.sliding"]
    with pytest.raises(LiveUnsupported, match="time-window cases"):
        run_live(engine, request_for(count, engine.info(), count.load_stream()))

    class NoLive:
        pass
    with pytest.raises(LiveUnsupported, match="no live mode"):
        run_live(NoLive(), request_for(count, engine.info(), count.load_stream()))
    report = load.run_experiment(experiment(loads=("yabench.e1-small",)), engine, cases, say=lambda _: None)
    assert report["loads"][0]["status"] == "UNSUPPORTED" and "closed-windows" in report["loads"][0]["reason"]


def test_the_cli_names_a_bad_config_field_and_an_engine_without_live_mode(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nloads: []\n")
    out = subprocess.run([sys.executable, "-m", "conformance.cli", "load", "--engine", "reference",
                          "--experiment", str(bad)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 2 and f"{bad}: field loads:" in out.stderr and "Traceback" not in out.stderr
    good = tmp_path / "good.yaml"
    good.write_text("name: x\nloads: [edges.border]\n")
    fake = Path(__file__).resolve().parent / "fake_engine.py"
    out = subprocess.run([sys.executable, "-m", "conformance.cli", "load", "--engine", "replay:" + str(
        Path(__file__).resolve().parent.parent / "engines/replay/csrbench-2013/csparql.yaml"),
        "--experiment", str(good)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 2 and "has no live mode" in out.stderr, out.stderr
    # a protocol engine that does not declare live: UNSUPPORTED, said, and the exit code says not complete
    out = subprocess.run([sys.executable, "-m", "conformance.cli", "load", "--engine", f"cmd:{sys.executable} {fake} ok",
                          "--experiment", str(good)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 1 and 'does not declare "live": true' in out.stdout, out.stdout
    # a test engine whose fault is in its batch run: refused by name, not run without its fault
    out = subprocess.run([sys.executable, "-m", "conformance.cli", "load", "--engine", "testing-out-of-order",
                          "--experiment", str(good), "--out", str(tmp_path / "r")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "UNSUPPORTED: testing-out-of-order's behaviour is in its batch run" in out.stdout


# -- live mode over the JSON Lines protocol (docs/protocol.md, Live mode) -----------------------------

def test_a_protocol_engine_runs_live_and_is_sampled_as_its_own_process(tmp_path):
    """docs/examples/minimal-engine.mjs has a live mode: every window right, reported as it closes."""
    import shutil

    from conformance.run import adapters

    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    case = burst_case(tmp_path)
    engine = adapters.build(f"cmd:node {Path(__file__).resolve().parent.parent / 'docs/examples/minimal-engine.mjs'}")
    try:
        run = load.run_once(case, engine, engine.info(), experiment(sample=0.1))
    finally:
        engine.close()
    assert run["verdict"] == "PASS", run["reason"]
    assert [w["recall"] for w in run["windows"]] == [1.0, 1.0, 1.0]
    assert all(0 <= w["delay_ms"] < 1000 for w in run["windows"])
    assert run["samples"] and all(s["memory_mib"] > 0 for s in run["samples"])


@pytest.mark.parametrize("mode,message", [
    ("ok", 'does not declare "live": true'),
    ("livegarbage", "is not JSON"),
    ("livecrash", "closed its stdout"),
])
def test_a_protocol_engine_without_live_mode_or_that_breaks_it_is_not_a_failure(tmp_path, mode, message):
    from conformance.run import adapters

    case = burst_case(tmp_path)
    engine = adapters.build(f"cmd:{sys.executable} {Path(__file__).resolve().parent / 'fake_engine.py'} {mode}")
    try:
        report = load.run_experiment(experiment(), engine, {case.id: case}, say=lambda _: None)
    finally:
        engine.close()
    (entry,) = report["loads"]
    assert entry["status"] == ("UNSUPPORTED" if mode == "ok" else "ERROR"), entry
    assert message in entry["reason"] and not entry["runs"]
    if mode == "livecrash":  # the engine's own account of why it died is in the reason
        assert entry["reason"].endswith(" — the engine's stderr: OutOfMemoryError"), entry["reason"]


# -- the real engines live ----------------------------------------------------------------------------

@pytest.mark.long
def test_the_spark_engine_runs_live_in_streaming_mode_and_only_there(tmp_path, monkeypatch):
    pytest.importorskip("pyspark")
    from engines.spark import SparkEngine
    from engines.spark import live as spark_live

    monkeypatch.setattr(spark_live, "WARM_UP_RUNS", 3)  # the made-up data's path, not its 120 runs
    monkeypatch.setattr(spark_live, "WARM_UP_LARGE", (100,))  # nor its large runs

    case = burst_case(tmp_path)
    replay = SparkEngine()
    with pytest.raises(LiveUnsupported, match="mode=streaming"):
        replay.live(request_for(case, replay.info(), case.load_stream()), lambda r: None)
    engine = SparkEngine(mode="streaming")
    run = load.run_once(case, engine, engine.info(), experiment(speed=1.0))
    assert run["verdict"] == "PASS", run["reason"]
    assert [w["recall"] for w in run["windows"]] == [1.0, 1.0, 1.0]
    assert all(w["delay_ms"] >= 0 for w in run["windows"])
    # in-process: the samples are the kit's process with its children, the JVM among them
    assert run["samples"] and max(s["memory_mib"] for s in run["samples"]) > 100


def test_a_spark_live_job_that_dies_is_an_error_with_its_exception_and_the_feed_stops(tmp_path, monkeypatch):
    """The live engine's failure is the engine's ERROR, said as soon as it happens, never a TIMEOUT."""
    pytest.importorskip("pyspark")
    from engines.spark import SparkEngine
    from engines.spark import live as spark_live

    def dies(self, files, held):
        raise RuntimeError("java.lang.StackOverflowError\n\tat java.util.regex.Pattern$Loop.match")

    monkeypatch.setattr(spark_live.WindowJob, "answer", dies)
    monkeypatch.setattr(spark_live, "WARM_UP_RUNS", 0)
    folders = []
    make = spark_live.tempfile.mkdtemp
    monkeypatch.setattr(spark_live.tempfile, "mkdtemp", lambda **kw: folders.append(make(**kw)) or folders[-1])
    case = burst_case(tmp_path)
    started = time.monotonic()
    report = load.run_experiment(experiment(), SparkEngine(mode="streaming"), {case.id: case}, say=lambda _: None)
    assert folders and not any(Path(f).exists() for f in folders)  # its pane files went with it
    (entry,) = report["loads"]
    assert entry["status"] == "ERROR", entry
    assert entry["reason"].endswith("the Spark engine's live job failed: RuntimeError: java.lang.StackOverflowError"), entry
    # the first close is 1 s of application time in (0.5 s at speed 2); the whole feed would be 1.5 s
    assert time.monotonic() - started < experiment().timeout


def test_a_spark_live_job_stopped_by_a_refusal_is_unsupported_with_its_reason(tmp_path, monkeypatch):
    """A window job that meets data the engine would answer wrongly stops with the refusal's reason
    (``sqlterms.refuse``): the load is UNSUPPORTED by name, as a batch run is, not the engine's ERROR."""
    pytest.importorskip("pyspark")
    from engines.spark import SparkEngine
    from engines.spark import live as spark_live
    from engines.spark.sqlterms import REFUSAL

    def refuses(self, files, held):  # Spark's words for a raise_error() in the job
        raise RuntimeError(f"[USER_RAISED_EXCEPTION] {REFUSAL}dividing by an xsd:decimal value SQLSTATE: P0001")

    monkeypatch.setattr(spark_live.WindowJob, "answer", refuses)
    monkeypatch.setattr(spark_live, "WARM_UP_RUNS", 0)
    case = burst_case(tmp_path)
    report = load.run_experiment(experiment(), SparkEngine(mode="streaming"), {case.id: case}, say=lambda _: None)
    (entry,) = report["loads"]
    assert (entry["status"], entry["reason"]) == ("UNSUPPORTED", "dividing by an xsd:decimal value"), entry


def spark_live_session(tmp_path, monkeypatch, **changes):
    """A Spark live session on the burst case (its request changed by ``changes``), not warmed up, for a test
    to push to: the session, the request, and the reports it emits.  The caller ends the session."""
    pytest.importorskip("pyspark")
    from engines.spark import SparkEngine
    from engines.spark import live as spark_live

    monkeypatch.setattr(spark_live, "WARM_UP_RUNS", 0)
    case = burst_case(tmp_path)
    engine = SparkEngine(mode="streaming")
    request = replace(request_for(case, engine.info(), case.load_stream()), **changes)
    reports = []
    return engine.live(request, reports.append), request, reports


def pushed(session, elements) -> None:
    """The elements pushed as the feeder does, one push a stamp, then the end of the stream."""
    from itertools import groupby

    for t, group in groupby(elements, key=lambda e: e.t):
        session.push(t, list(group))
    session.end()


def test_spark_live_answers_every_window_as_replay_does_from_one_plan(tmp_path, monkeypatch):
    """Every window's job is a copy of one plan (SparkPlan.clone): each reads its own window's files, and
    a join's coalesced inputs hold that window's rows, not the first window's again.  A three-pattern join over
    windows whose content differs, sliding (panes of 500 ms shared by two windows each): the same answers
    as the replay engine's, and Spark analysed the query's SQL once, at the start.  The plan shuffles nothing:
    its one partition is coalesced into (live.without_exchanges)."""
    from engines.spark import SparkEngine
    from engines.spark import live as spark_live
    from oracle.model import WindowSpec

    # the third pattern repeats the first (each s has one v): the same answers, and a join on ?s of a join on ?v
    query = "SELECT ?s ?w WHERE { ?s <http://ex.org/v> ?v . ?v <http://ex.org/w> ?w . ?s <http://ex.org/v> ?v2 }"
    ex = "http://ex.org/"
    elements = [Element(100 * i, ((URIRef(f"{ex}s{i}"), URIRef(f"{ex}v"), URIRef(f"{ex}x{i % 7}")),
                                  (URIRef(f"{ex}x{i % 7}"), URIRef(f"{ex}w"), Literal(i))))
                for i in range(40)]
    compiled = []
    real = spark_live.sql_over
    monkeypatch.setattr(spark_live, "sql_over", lambda *a: compiled.append(1) or real(*a))
    session, request, reports = spark_live_session(tmp_path, monkeypatch, r2r=query, query_text=query,
                                                   stream=Stream(tuple(elements)), window=WindowSpec(1000, 500))
    plan = session.job.plan.toString()
    assert "ShuffledHashJoin" in plan and "Exchange" not in plan and "Coalesce 1" in plan
    pushed(session, elements)
    replay = SparkEngine().run(replace(request, stream=Stream(tuple(elements))))
    assert [(r.window, sorted(map(str, r.solutions))) for r in reports] == \
        [(r.window, sorted(map(str, r.solutions))) for r in replay]
    # worked out by hand: window [o, o + 1000) holds s_i for 100 i in it, each joined with the w of every
    # element of the window whose x is the same (i mod 7)
    first = {(f"{ex}s{i}", j) for i in range(10) for j in range(10) if i % 7 == j % 7}
    assert {(str(r["s"]), int(r["w"])) for r in reports[0].solutions} == first
    assert len(reports) == 8 and len({len(r.solutions) for r in reports}) > 1
    assert compiled == [1]


def test_spark_live_answers_a_property_path_per_window_from_one_plan(tmp_path, monkeypatch):
    """A path's recursive CTE runs its iterations inside each copy of the plan: window w holds a chain of w + 2
    edges, so ``p+`` has (w + 2)(w + 3)/2 pairs in it (worked out by hand: 3, 6, 10, 15), as replay finds."""
    from engines.spark import SparkEngine

    query = "SELECT ?a ?b WHERE { ?a <http://ex.org/p>+ ?b }"
    ex = "http://ex.org/"
    elements = [Element(1000 * w + 10 * i, ((URIRef(f"{ex}w{w}n{i}"), URIRef(f"{ex}p"), URIRef(f"{ex}w{w}n{i + 1}")),))
                for w in range(4) for i in range(w + 2)]
    session, request, reports = spark_live_session(tmp_path, monkeypatch, r2r=query, query_text=query,
                                                   stream=Stream(tuple(elements)))
    assert session.job.reuse
    pushed(session, elements)
    assert [len(r.solutions) for r in reports] == [3, 6, 10, 15]
    replay = SparkEngine().run(request)
    assert [(r.window, sorted(map(str, r.solutions))) for r in reports] == \
        [(r.window, sorted(map(str, r.solutions))) for r in replay]


SIGTERMED = """
import sys, time
sys.path.insert(0, sys.argv[1])
from conformance.run import signals
from engines.contract import RunRequest
from engines.spark import SparkEngine
from engines.spark import live
from oracle.model import Stream, WindowSpec
signals.sigterm_as_interrupt()  # as the CLI does
live.WARM_UP_RUNS = 0
query = "SELECT ?s WHERE { ?s <http://ex.org/v> ?v }"
request = RunRequest("x", Stream(()), query, query, WindowSpec(1000, 1000), "rstream", "http://ex.org/s")
session = SparkEngine(mode="streaming").live(request, lambda report: None)
print(session.folder, flush=True)
time.sleep(120)
"""


def test_a_sigterm_during_a_spark_live_run_leaves_no_folder_behind(tmp_path):
    """SIGTERM (or Ctrl-C) while a live session runs: the process leaves at once, before the session's own
    threads clean up, and the session's folder goes with the process's exit handlers."""
    pytest.importorskip("pyspark")
    import signal

    root = str(Path(__file__).resolve().parent.parent)
    child = subprocess.Popen([sys.executable, "-c", SIGTERMED, root], stdout=subprocess.PIPE, text=True)
    try:
        folder = Path(child.stdout.readline().strip())
        assert folder.name.startswith("rspconf-spark-live-") and folder.is_dir()
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=60)
    finally:
        child.kill()
    assert not folder.exists()


def test_spark_live_panes_are_the_stretches_between_window_borders():
    """Worked out by hand.  Tumbling 1000: pane = k.  Sliding (1000, 500): window k is panes k, k + 1.  A
    closed [0, 5000] window computed as [0, 5001) sliding by 5000: two panes a slide, 1 ms and 4999 ms, and a
    window is three ([0, 1), [1, 5000), [5000, 5001)), not 5001 panes of 1 ms (a pane file per element made
    YABench's experiment 1 take 1.2 s a close).  Gaps
    (300, 1000): a slide's last 700 ms are in no window."""
    pytest.importorskip("pyspark")
    from engines.spark.live import Panes
    from oracle.model import WindowSpec

    tumbling, sliding = Panes(WindowSpec(1000, 1000), 0), Panes(WindowSpec(1000, 500), 0)
    closed, gaps = Panes(WindowSpec(5001, 5000), 0), Panes(WindowSpec(300, 1000), 100)
    assert [tumbling.of(t) for t in (-1, 0, 999, 1000)] == [None, 0, 0, 1] and tumbling.span(3) == (3, 4)
    assert [sliding.of(t) for t in (0, 499, 500, 1499)] == [0, 0, 1, 2] and sliding.span(3) == (3, 5)
    assert [closed.of(t) for t in (0, 1, 4999, 5000, 5001, 10000, 10001)] == [0, 1, 1, 2, 3, 4, 5]
    assert closed.span(0) == (0, 3) and closed.span(1) == (2, 5)
    assert [gaps.of(t) for t in (50, 100, 399, 400, 1099, 1100)] == [None, 0, 0, None, None, 2]
    assert gaps.span(1) == (2, 3)


def test_spark_live_refuses_count_and_multiple_windows_by_name(tmp_path, monkeypatch):
    """Live runs take one time-based window: a count-based window or several are refused as not live, with
    the window's kind named, not a crash on its missing range."""
    from oracle.model import CountWindowSpec

    pytest.importorskip("pyspark")
    from engines.spark import SparkEngine

    case = burst_case(tmp_path)
    engine = SparkEngine(mode="streaming")
    request = replace(request_for(case, engine.info(), case.load_stream()), window=CountWindowSpec(2, 1))
    with pytest.raises(LiveUnsupported, match="not a CountWindowSpec"):
        engine.live(request, lambda report: None)


def test_spark_live_plans_a_query_with_fresh_draws_anew_for_each_window(tmp_path, monkeypatch):
    """A copy of a plan would draw the same UUIDs again (its seeds are in the plan): STRUUID() is planned
    anew per window, so two windows of the same content draw different values."""

    query = "SELECT ?s (STRUUID() AS ?u) WHERE { ?s <http://ex.org/v> ?v }"
    elements = [Element(t, ((URIRef("http://ex.org/a"), URIRef("http://ex.org/v"), Literal(1)),)) for t in (0, 1000)]
    session, _, reports = spark_live_session(tmp_path, monkeypatch, r2r=query, query_text=query,
                                             stream=Stream(tuple(elements)))
    assert not session.job.reuse
    pushed(session, elements)
    drawn = [str(r.solutions[0]["u"]) for r in reports]
    assert len(drawn) == 2 and len(set(drawn)) == 2, drawn


def test_spark_live_writes_terms_as_rdflib_does_and_a_close_goes_to_its_window(tmp_path, monkeypatch):
    """The columns write a term inline or through n3 (sqlterms): literals with a quote, a backslash, a line
    break, a language tag, a datatype and a huge one come back as the same terms, and the element stamped
    at the close (1000) is the next window's.  Worked out by hand: window [0, 1000) holds the readings at
    0 and 900."""
    from rdflib.namespace import XSD


    v = URIRef("http://ex.org/v")
    odd = [Literal("it's"), Literal('a "quote"'), Literal("back\\slash"), Literal("two\nlines"),
           Literal("cr\rhere"), Literal("chat", lang="FR"), Literal("7", datatype=XSD.integer),
           Literal("x", datatype=XSD.string), Literal("x" * 2_000_000), URIRef("http://ex.org/iri")]
    first = Element(0, ((URIRef("http://ex.org/a"), v, Literal(1)),))
    closing = Element(900, tuple((URIRef(f"http://ex.org/o{i}"), v, term) for i, term in enumerate(odd)))
    after = Element(1000, ((URIRef("http://ex.org/z"), v, Literal(2)),))
    session, _, reports = spark_live_session(tmp_path, monkeypatch)
    pushed(session, [first, closing, after])
    assert [r.window for r in reports] == [(0, 1000), (1000, 2000)]
    same = [Literal("x") if term == Literal("x", datatype=XSD.string) else term for term in odd]  # RDF 1.1: one term
    assert sorted((str(r["s"]), r["v"]) for r in reports[0].solutions) == sorted(
        [("http://ex.org/a", Literal(1))] + [(f"http://ex.org/o{i}", term) for i, term in enumerate(same)])
    assert [str(x["s"]) for x in reports[1].solutions] == ["http://ex.org/z"]


def test_spark_live_columns_write_each_term_as_n3_does_whatever_its_kind_and_chunk(monkeypatch):
    """The columns are made a kind of term at a time, by joins and Arrow (live.Columns): checked term by term
    against sqlterms.n3 on a mix no fast path covers alone: IRIs (one not ASCII), blank nodes, literals of
    several datatypes each with its own datatype object, xsd:string, a language tag, escapes, text not in
    ASCII; one predicate the query does not match; the same predicate as two objects; chunks of 18 triples,
    so that an element's triples and a predicate's rows cross chunks.  Each predicate's rows come together
    (a row group), predicates in order."""
    pytest.importorskip("pyarrow")
    from rdflib import BNode
    from rdflib.namespace import XSD

    from engines.spark import live as spark_live
    from engines.spark.sqlterms import n3

    monkeypatch.setattr(spark_live, "CHUNK", 16)
    # kinds and datatypes interleaved within each chunk, so that a column made a kind at a time must be put back
    objects = [URIRef("http://ex.org/o"), Literal("1", datatype=XSD.integer), URIRef("http://ex.org/é"),
               Literal("2.5", datatype=URIRef(str(XSD.decimal))), Literal("3", datatype=URIRef(str(XSD.integer))),
               Literal("4.5", datatype=XSD.decimal), BNode("b1"), Literal("x", datatype=XSD.string), BNode("b2"),
               Literal("plain"), Literal("chat", lang="FR"), Literal('a "q"'), Literal("two\nlines", datatype=XSD.token),
               Literal("ünï", datatype=XSD.token), Literal("back\\")]
    subjects = [URIRef(f"http://ex.org/s{i}") if i % 3 else BNode(f"n{i}") for i in range(len(objects))]
    v, w, skip = URIRef("http://ex.org/v"), URIRef("http://ex.org/w"), URIRef("http://ex.org/skip")
    elements = []
    for i, (s, o) in enumerate(zip(subjects, objects)):
        # the predicate v, every fourth time as another object: the same predicate, not the same object
        triples = ((s, v if i % 4 else URIRef(str(v)), o), (s, skip, o), (o if isinstance(o, URIRef) else s, w, Literal(i)))
        elements.append(Element(i, triples))
    columns = spark_live.Columns(frozenset({n3(v), n3(w)}))
    for element in elements:
        columns.add([element])
    table = columns.table()
    rows = list(zip(*(table[name].to_pylist() for name in "spo")))
    assert [p for _, p, _ in rows] == sorted(p for _, p, _ in rows)  # each predicate's rows together, in order
    assert sorted(rows) == sorted((n3(s), n3(p), n3(o)) for e in elements for s, p, o in e.triples if p != skip)
    assert [len(chunk) for chunk in table["p"].chunks] == [len(objects), len(objects)]  # a row group each


def test_spark_live_columns_refuse_an_iri_rdflib_cannot_write_whatever_its_column():
    """An IRI with a space among good ones (the join's fast path) and among literals (a column of two kinds)
    fails with rdflib's own error, as n3 does; so does a predicate's."""
    pytest.importorskip("pyarrow")
    from engines.spark import live as spark_live

    v, bad = URIRef("http://ex.org/v"), URIRef("http://ex.org/a b")
    cases = [[(URIRef("http://ex.org/s"), v, URIRef("http://ex.org/ok")), (URIRef("http://ex.org/s"), v, bad)],
             [(URIRef("http://ex.org/s"), v, Literal(1)), (URIRef("http://ex.org/s"), v, bad)],
             [(bad, v, Literal(1))], [(URIRef("http://ex.org/s"), bad, Literal(1))]]
    for triples in cases:
        columns = spark_live.Columns(None)
        columns.add([Element(0, tuple(triples))])
        with pytest.raises(Exception, match="http://ex.org/a b"):
            columns.table()


def test_spark_live_refuses_an_iri_n_triples_cannot_write_as_its_error(tmp_path, monkeypatch):
    """An IRI with a space, written inline, is caught when its pane is written: the live run's ERROR names
    it (rdflib's n3 refuses it too), no answer made of it."""
    from engines.spark import live as spark_live

    session, _, reports = spark_live_session(tmp_path, monkeypatch)
    elements = [Element(0, ((URIRef("http://ex.org/a b"), URIRef("http://ex.org/v"), Literal(1)),)),
                Element(1000, ())]
    with pytest.raises(spark_live.Failed, match="http://ex.org/a b"):
        pushed(session, elements)
    assert not reports and not session.folder.exists()


def test_spark_live_deletes_the_files_of_panes_no_open_window_holds(tmp_path, monkeypatch):
    """Disk follows the window, not the run: while window k is answered, the folder holds no file of a pane
    before its own (sliding by half its range, panes of 500 ms: window k's first pane is pane k).  Pushed
    all at once, the formatting runs ahead of the answers: later panes' files are there too."""
    from engines.spark import live as spark_live
    from oracle.model import WindowSpec

    seen = []
    real = spark_live.WindowJob.answer

    def answer(self, files, held):
        seen.append(min(int(p.name.split("-")[1]) for p in session.folder.glob("pane-*")))
        return real(self, files, held)

    monkeypatch.setattr(spark_live.WindowJob, "answer", answer)
    elements = [Element(100 * i, ((URIRef(f"http://ex.org/s{i}"), URIRef("http://ex.org/v"), Literal(i)),))
                for i in range(60)]
    session, _, reports = spark_live_session(tmp_path, monkeypatch, stream=Stream(tuple(elements)),
                                             window=WindowSpec(1000, 500))
    pushed(session, elements)
    assert len(reports) == 12 and [len(r.solutions) for r in reports] == [10] * 11 + [5]
    assert seen == list(range(12)), seen
    assert not session.folder.exists()


def test_spark_live_refuses_a_far_out_timestamp_by_name_without_looping_over_windows(tmp_path, monkeypatch):
    """An element at 10^15 ms would start 10^12 windows of 1 s: refused by name (windowjob.bounded_count),
    at once, not a loop over every window or pane."""
    from engines.contract import Unsupported

    elements = [Element(0, ((URIRef("http://ex.org/a"), URIRef("http://ex.org/v"), Literal(1)),)),
                Element(10 ** 15, ((URIRef("http://ex.org/b"), URIRef("http://ex.org/v"), Literal(2)),))]
    session, _, reports = spark_live_session(tmp_path, monkeypatch)
    started = time.monotonic()
    with pytest.raises(Unsupported, match="far-out timestamp"):
        pushed(session, elements)
    assert time.monotonic() - started < 30


def test_spark_live_runs_closed_windows(tmp_path, monkeypatch):
    """YABench's closed [o, c] windows live: an element stamped at a close is in the window that closes
    there (the burst case's elements at 1000 and 2000 ms: 4 more solutions in windows 1 and 2)."""
    pytest.importorskip("pyspark")
    from engines.spark import SparkEngine
    from engines.spark import live as spark_live

    monkeypatch.setattr(spark_live, "WARM_UP_RUNS", 3)
    monkeypatch.setattr(spark_live, "WARM_UP_LARGE", (100,))

    case = burst_case(tmp_path)
    engine = SparkEngine(mode="streaming")
    request = request_for(case, engine.info(), case.load_stream())
    request = replace(request, semantics={"boundary": "[o,c]", "close": ">"})
    run = run_live(engine, request, speed=SPEED, heartbeat=HEARTBEAT, sample_every=0.5, timeout=60)
    got = [(r.window, len(r.solutions)) for r in run.reports]
    # elements every 100 ms, 4 each: [0, 1000] holds t = 0..1000 (11 stamps), [1000, 2000] 11, [2000, 3000] 10
    assert got == [((0, 1000), 44), ((1000, 2000), 44), ((2000, 3000), 40)], got


def test_rsp_js_runs_live_in_its_declared_syntax_and_each_window_is_judged(tmp_path):
    import shutil

    from conformance.run import adapters
    from engines.rspjs import HERE

    if shutil.which("node") is None or not (HERE / "node_modules" / "rsp-js").is_dir():
        pytest.skip("rsp-js is not installed")
    case = burst_case(tmp_path)
    engine = adapters.build("rsp-js")
    try:
        assert engine.info().extra["live"] is True
        report = load.run_experiment(experiment(), engine, {case.id: case}, say=lambda _: None)
    finally:
        engine.close()
    (entry,) = report["loads"]
    (run,) = entry["runs"]
    # judged on its semantics (its parser got its declared syntax): windows compared, recall measured
    assert entry["status"] == "complete" and run["verdict"] in ("PASS", "FAIL"), run["reason"]
    assert [(w["open"], w["close"]) for w in run["windows"]][:2] == [(0, 1000), (1000, 2000)]
    assert all(w["recall"] is not None for w in run["windows"] if w["expected_size"])


def test_the_pytest_option_runs_each_load_as_a_test_and_writes_the_load_report(tmp_path):
    burst_case(tmp_path / "cases") if (tmp_path / "cases").mkdir() is None else None
    config = tmp_path / "experiment.yaml"
    config.write_text("name: t\nloads: [bursts.readings]\nspeed: 4\nrepeat: 2\nheartbeat: 50ms\nsample: 200ms\n")
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-m", "pytest", str(root / "conformance"), "-p", "no:cacheprovider", "-q",
                          "--engine", "testing-dropping", "--engine-option", "capacity=3", "--cases", str(tmp_path / "cases"),
                          "--load", str(config), "--load-out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 1, out.stdout[-3000:]  # the dropping engine's recall loss is a FAIL
    assert "test_case[bursts.readings]" in out.stdout and "repetition 1 of 2" in out.stdout
    report = json.loads((tmp_path / "out" / "load.json").read_text())
    assert load.validate(report) == [] and len(report["loads"][0]["runs"]) == 2
    assert {w["recall"] for r in report["loads"][0]["runs"] for w in r["windows"]} == {0.75}
    out = subprocess.run([sys.executable, "-m", "pytest", str(root / "conformance"), "-p", "no:cacheprovider", "-q",
                          "-n", "2", "--cases", str(tmp_path / "cases"), "--load", str(config)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 4 and "without -n" in out.stderr + out.stdout


def test_a_run_past_its_timeout_keeps_what_arrived_and_is_never_complete(tmp_path):
    """An engine that stalls after its first window: the load is TIMEOUT, and the run that timed out is
    kept with the first window's report and delay, the others missing — how far behind it fell."""
    import threading

    from engines.reference.live import ReferenceLive

    released = threading.Event()

    class Stalling(ReferenceLive):
        def _report(self, o, c):
            if self.next >= 1:
                released.wait()  # stuck until cancelled
                return
            super()._report(o, c)

        def cancel(self):
            released.set()
            super().cancel()

    class StallingEngine(ReferenceEngine):
        def live(self, request, emit):
            return Stalling(self, request, emit)

    case = burst_case(tmp_path)
    engine = StallingEngine()
    entry = load.run_load(case, engine, engine.info(), experiment(timeout=3.0, repeat=3), say=lambda _: None)
    assert entry["status"] == "TIMEOUT" and "did not end within 3 s" in entry["reason"]
    (run,) = entry["runs"]  # no further repetition after a timeout
    assert run["timed_out"] is True
    assert [w["status"] for w in run["windows"]] == ["MATCH", "MISSING", "MISSING"]
    assert run["windows"][0]["delay_ms"] is not None and run["windows"][1]["delay_ms"] is None
    assert load.verdict_of(entry)[0] == "TIMEOUT"


def test_an_engine_that_never_says_ready_is_a_timeout_after_the_experiment_s_timeout_not_a_minute(tmp_path):
    from conformance.run import adapters

    case = burst_case(tmp_path)
    engine = adapters.build(f"cmd:{sys.executable} {Path(__file__).resolve().parent / 'fake_engine.py'} livehang")
    started = time.monotonic()
    try:
        report = load.run_experiment(experiment(timeout=2.0), engine, {case.id: case}, say=lambda _: None)
    finally:
        engine.close()
    (entry,) = report["loads"]
    assert time.monotonic() - started < 15
    assert entry["status"] == "TIMEOUT" and not entry["runs"]
    assert entry["reason"] == ("the engine did not start its live session (no ready answer) within 2 s, the "
                               "experiment's timeout")


def test_a_load_run_does_not_demand_large_stream_but_does_demand_the_rest(tmp_path):
    """large-stream says a batch run answers a whole large stream within the case timeout; a load run measures
    how an engine holds up in real time, so an engine without it is fed (and judged), not UNSUPPORTED."""
    from dataclasses import replace


    engine = ReferenceEngine()
    info = replace(engine.info(), capabilities=engine.info().capabilities - {"large-stream"})  # as rsp-js declares
    case = burst_case(tmp_path)
    large = replace(case, capabilities=case.capabilities + ("large-stream",))
    report = load.run_load(large, engine, info, experiment(), say=lambda _: None)
    assert report["status"] == "complete" and report["runs"][0]["verdict"] == "PASS"
    other = replace(case, capabilities=case.capabilities + ("closed-windows",))
    report = load.run_load(other, engine, info, experiment(), say=lambda _: None)
    assert report["status"] == "UNSUPPORTED" and report["reason"] == "engine lacks capability closed-windows"


WARM_QUERY = """PREFIX ex: <http://example.org/>
SELECT ?sensor ?obs WHERE { ?obs ex:observedProperty ex:AirTemperature ; ex:procedure ?sensor ; ex:result ?res .
    ?res ex:value ?value . FILTER(?value > 80) }"""


def test_the_spark_live_warm_up_data_matches_the_querys_patterns_and_its_filter_both_ways():
    """Judged by rdflib, not by the engine: the made-up triples give solutions of the query's patterns, and
    its numeric FILTER keeps some and drops some (the job's filter, join and aggregation code all run)."""
    pytest.importorskip("pyspark")
    from rdflib import Graph
    from rdflib.plugins.sparql import prepareQuery

    from conformance.streams.ntriples import parse_line
    from engines.spark.live import warm_up_rows

    rows = warm_up_rows(prepareQuery(WARM_QUERY).algebra, 60, 5000, 1000)
    assert len(rows) == 60 * 4 and all(5000 <= t < 6000 for *_, t in rows)
    graph = Graph()
    for s_, p_, o_, _ in rows:
        graph.add(parse_line(f"{s_} {p_} {o_} .", max_terms=3))
    unfiltered = len(graph.query(WARM_QUERY.replace("FILTER(?value > 80)", "")))
    kept = len(graph.query(WARM_QUERY))
    assert unfiltered == 60 and 0 < kept < unfiltered, (kept, unfiltered)
    kinds = {o_.rsplit("#", 1)[-1] for _, p_, o_, _ in rows if p_.endswith("value>")}
    assert {"integer>", "decimal>", "float>", "double>"} <= kinds


def test_the_spark_live_warm_up_runs_once_per_query_in_a_process(tmp_path, monkeypatch):
    """A second session of the same query and window does not warm up again; another query does.  Each run
    is the window's job over a file of made-up triples that match the query's patterns."""
    pytest.importorskip("pyspark")
    from engines.spark import SparkEngine
    from engines.spark import live as spark_live

    calls = []
    real = spark_live.WindowJob.answer
    monkeypatch.setattr(spark_live.WindowJob, "answer",
                        lambda self, files, held: calls.append((len(files), held)) or real(self, files, held))
    monkeypatch.setattr(spark_live, "WARM_UP_RUNS", 3)
    monkeypatch.setattr(spark_live, "WARM_UP_LARGE", ())
    monkeypatch.setattr(spark_live, "_WARMED", {})
    case = burst_case(tmp_path)
    engine = SparkEngine(mode="streaming")
    request = request_for(case, engine.info(), case.load_stream())
    other = replace(request, r2r=request.r2r.replace("SELECT", "SELECT DISTINCT", 1))
    assert other.r2r != request.r2r
    for r, expected in ((request, 3), (request, 0), (other, 3)):
        calls.clear()
        session = engine.live(r, lambda report: None)
        session.end()
        assert calls == [(1, True)] * expected, r.r2r  # nothing pushed: no window to answer


@pytest.mark.parametrize("step, sizes", [(60.0, [20, 20, 40, 80, 80, 80]), (0.0, [20, 20])])
def test_the_spark_live_warm_up_climbs_to_large_data_while_each_run_is_quick(tmp_path, monkeypatch, step, sizes):
    """After its runs over WARM_UP_SOLUTIONS, the warm-up runs the job over each of the larger sizes once and
    the largest WARM_UP_LARGE_RUNS times, each only while the run before took under WARM_UP_STEP_SECONDS:
    with a step no run can be under (0 s), no large run."""
    pytest.importorskip("pyspark")
    from engines.spark import SparkEngine
    from engines.spark import live as spark_live

    seen = []
    real = spark_live.WindowJob.answer

    def answer(self, files, held):
        seen.append(int(files[0].stem.rsplit("-", 1)[1]))  # warm-up-<solutions>.parquet
        return real(self, files, held)

    monkeypatch.setattr(spark_live.WindowJob, "answer", answer)
    for name, value in (("WARM_UP_RUNS", 2), ("WARM_UP_SOLUTIONS", 20), ("WARM_UP_LARGE", (40, 80)),
                        ("WARM_UP_LARGE_RUNS", 3), ("WARM_UP_STEP_SECONDS", step), ("_WARMED", {})):
        monkeypatch.setattr(spark_live, name, value)
    case = burst_case(tmp_path)
    engine = SparkEngine(mode="streaming")
    session = engine.live(request_for(case, engine.info(), case.load_stream()), lambda report: None)
    assert not list(session.folder.glob("warm-up-*"))  # its files gone once it is done
    session.end()
    assert seen == sizes


def test_the_spark_live_warm_up_stops_at_its_time_budget_and_does_not_start_again(tmp_path, monkeypatch):
    """A slow query's warm-up ends at WARM_UP_SECONDS and WARM_UP_LARGE_SECONDS (budgets already spent: no
    run), and the process counts that query as warmed."""
    pytest.importorskip("pyspark")
    from engines.spark import SparkEngine
    from engines.spark import live as spark_live

    calls = []
    real = spark_live.WindowJob.answer
    monkeypatch.setattr(spark_live.WindowJob, "answer",
                        lambda self, files, held: calls.append(1) or real(self, files, held))
    monkeypatch.setattr(spark_live, "WARM_UP_RUNS", 50)
    monkeypatch.setattr(spark_live, "WARM_UP_SECONDS", -1.0)
    monkeypatch.setattr(spark_live, "WARM_UP_LARGE_SECONDS", -1.0)
    monkeypatch.setattr(spark_live, "_WARMED", {})
    case = burst_case(tmp_path)
    engine = SparkEngine(mode="streaming")
    request = request_for(case, engine.info(), case.load_stream())
    for _ in range(2):
        engine.live(request, lambda report: None).end()
    assert not calls and list(spark_live._WARMED.values()) == [50]


@pytest.mark.parametrize("field", ["heartbeat", "sample", "timeout"])
def test_an_experiment_period_of_zero_is_refused_naming_the_file_and_field(tmp_path, field):
    """A zero heartbeat would have the feeder push every millisecond, flat out; a zero sample or timeout
    makes no sense either: each is a clear error naming the file and the field, before any run."""
    config = tmp_path / "zero.yaml"
    config.write_text(f"name: z\nloads: [weather.filter]\n{field}: 0ms\n")
    with pytest.raises(load.ExperimentError, match=f"zero.yaml: field {field}: '0ms' is no period"):
        load.read_experiment(config)
