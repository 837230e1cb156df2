"""An engine developer's tools (issue 36), each used as the developer would: the command from the docs,
the file it writes or the message it prints, asserted."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
FAKE = ROOT / "tests" / "fake_engine.py"


def kit(*argv, timeout=180):
    """``rspconf`` of this checkout."""
    return subprocess.run([sys.executable, "-m", "conformance.cli", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env=ENV)


def pytest_run(*args, timeout=180):
    return subprocess.run([sys.executable, "-m", "pytest", "conformance/", "-q", "-p", "no:randomly", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=ENV)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- the protocol trace -----------------------------------------------------------------------------

def test_engine_trace_holds_every_message_both_ways_in_order(tmp_path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text("an older trace\n")  # a new run starts a new trace
    out = pytest_run("--engine", f"cmd:{sys.executable} {FAKE} ok", "-k", "edges.border", "--engine-trace", str(trace))
    assert out.returncode in (0, 1), out.stdout + out.stderr  # the fake engine FAILs cases: its answers are empty
    got = records(trace)
    assert [r["dir"] for r in got if r["dir"] in ("sent", "received", "started")][:5] == [
        "started", "sent", "received", "sent", "received"]
    sent = [r["message"] for r in got if r["dir"] == "sent"]
    assert sent[0] == {"cmd": "start", "protocol": 1}
    run = next(m for m in sent if m["cmd"] == "run")
    assert run["case"] == "edges.border" and run["window"] == {"range": 10, "slide": 10}
    assert [e["t"] for e in run["elements"]] == [0, 10, 15]  # edges.border's stream (cases/semantics-edges.yaml), as sent
    answers = [r["message"] for r in got if r["dir"] == "received"]
    assert answers[0]["engine"]["name"] == "fake-ok"
    assert answers[1]["seq"] == run["seq"] and "reports" in answers[1]
    assert any(r["dir"] == "stderr" and "fake engine got case edges.border" in r["line"] for r in got)
    assert sent[-1] == {"cmd": "stop"} and got[-1]["dir"] == "exited"
    times = [r["at"] for r in got]
    assert times == sorted(times)


def test_engine_trace_keeps_a_line_that_is_not_json_as_it_was(tmp_path):
    trace = tmp_path / "trace.jsonl"
    out = pytest_run("--engine", f"cmd:{sys.executable} {FAKE} garbage", "-k", "edges.border",
                     "--engine-trace", str(trace))
    assert "ERROR" in out.stdout
    assert {"line": "INFO starting query evaluation"}.items() <= next(
        r for r in records(trace) if r["dir"] == "received" and "line" in r).items()


def test_engine_trace_under_two_workers_is_one_file_of_whole_records(tmp_path):
    trace = tmp_path / "trace.jsonl"
    out = pytest_run("--engine", f"cmd:{sys.executable} {FAKE} ok", "-k", "edges.border or edges.gap",
                     "-n", "2", "--engine-trace", str(trace))
    assert out.returncode in (0, 1), out.stdout + out.stderr  # the fake engine FAILs cases: its answers are empty
    got = records(trace)  # every line parses: no two records interleaved
    cases = {r["message"]["case"] for r in got if r["dir"] == "sent" and r["message"]["cmd"] == "run"}
    assert cases == {"edges.border", "edges.gap"}
    assert {r.get("worker") for r in got if r["dir"] == "sent" and r["message"]["cmd"] == "run"} <= {"gw0", "gw1"}


def test_engine_trace_of_an_in_process_adapter_is_one_clear_line(tmp_path):
    out = pytest_run("--engine", "reference", "-k", "edges.border", "--engine-trace", str(tmp_path / "t.jsonl"))
    assert out.returncode == 4
    assert ("--engine-trace: reference is not an engine process speaking the JSON Lines protocol (cmd:…, rsp-js): "
            "nothing crosses a pipe to trace") in out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_check_adapter_writes_the_trace_too(tmp_path):
    trace = tmp_path / "trace.jsonl"
    out = kit("check-adapter", f"cmd:{sys.executable} {FAKE} ok", "--engine-trace", str(trace))
    assert out.returncode in (0, 1), out.stdout + out.stderr  # the fake engine FAILs cases: its answers are empty
    sent = [r["message"] for r in records(trace) if r["dir"] == "sent"]
    assert {m["case"] for m in sent if m["cmd"] == "run"} >= {"edges.border", "edges.empty-windows"}


# -- an expectations file from a report ------------------------------------------------------------------

def test_an_expectations_file_made_from_a_report_turns_each_failure_into_a_strict_xfail(tmp_path):
    """The developer's loop: run, bootstrap the file from the report, run again: every FAIL is now a known
    deviation (xfail, the run green), each entry with the kit's reason to start from."""
    engine = f"cmd:{sys.executable} {FAKE} ok"  # answers every window with no solution: FAILs where data is
    report = tmp_path / "r.json"
    first = pytest_run("--engine", engine, "-k", "edges.border or edges.gap or edges.empty", "--report", str(report))
    assert first.returncode == 1
    failed = sorted(c["id"] for c in json.loads(report.read_text())["cases"] if c["verdict"] == "FAIL")
    assert failed  # the fake engine's empty answers are wrong where the windows hold data

    out = kit("expectations", "--from-report", str(report), "-o", str(tmp_path / "exp.yaml"))
    assert out.returncode == 0 and out.stderr == f"{tmp_path / 'exp.yaml'}: {len(failed)} entries\n"
    import yaml
    written = yaml.safe_load((tmp_path / "exp.yaml").read_text())
    assert sorted(written) == failed
    reasons = {c["id"]: " ".join(c["reason"].split()) for c in json.loads(report.read_text())["cases"]}
    for case_id, entry in written.items():
        assert entry["verdict"] == "FAIL"
        assert entry["reason"].startswith("as the kit saw it: " + reasons[case_id][:80])

    second = pytest_run("--engine", engine, "-k", "edges.border or edges.gap or edges.empty",
                        "--engine-option", f"expectations={tmp_path / 'exp.yaml'}")
    assert second.returncode == 0, second.stdout
    assert f"{len(failed)} xfailed" in second.stdout


def test_updating_an_expectations_file_appends_what_it_lacks_and_names_stale_entries(tmp_path):
    report = tmp_path / "r.json"
    pytest_run("--engine", f"cmd:{sys.executable} {FAKE} ok", "-k", "edges.border or edges.empty-windows",
               "--report", str(report))
    verdicts = {c["id"]: c["verdict"] for c in json.loads(report.read_text())["cases"]}
    assert verdicts == {"edges.border": "FAIL", "edges.empty-windows": "FAIL"}
    existing = tmp_path / "exp.yaml"
    existing.write_text("# mine: a comment that stays\nedges.border:\n  verdict: ERROR\n  reason: my old note\n")
    out = kit("expectations", "--from-report", str(report), "--update", str(existing))
    assert out.returncode == 0
    assert out.stderr.splitlines() == [
        f"{existing}: 1 entries added",
        "stale entry (check it, then edit or remove it): edges.border: expected ERROR, the run gave FAIL"]
    text = existing.read_text()
    assert text.startswith("# mine: a comment that stays\nedges.border:\n  verdict: ERROR\n")
    assert '"edges.empty-windows":\n  verdict: FAIL\n' in text
    assert text.count("edges.border") == 1  # its own entry stays the only one: no duplicate key


def test_an_expectations_file_from_an_incomplete_run_is_refused(tmp_path):
    report = tmp_path / "r.json"
    pytest_run("--engine", "reference", "-k", "edges.border", "--report", str(report))
    doc = json.loads(report.read_text())
    doc["run"].update(complete=False, finished=0, interrupted="interrupted: KeyboardInterrupt")
    report.write_text(json.dumps(doc))
    out = kit("expectations", "--from-report", str(report))
    assert out.returncode == 2
    assert out.stderr.startswith(f"error: {report}: the run did not finish (0 of 1 cases)")


# -- live mode from the docs: the default experiment runs on any time-window engine -----------------------

def test_the_default_load_experiment_runs_the_docs_minimal_engine(tmp_path):
    """adding-an-engine.md's live command with the default experiment (at 5 times real time, so 6 s of
    feeding): the minimal engine, which has time windows and nothing else, is judged, not UNSUPPORTED."""
    import shutil

    import pytest
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    out = kit("load", "--engine", "cmd:node docs/examples/minimal-engine.mjs", "--speed", "5",
              "--out", str(tmp_path / "load"))
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads((tmp_path / "load" / "load.json").read_text())
    (load,) = report["loads"]
    assert load["case"] == "weather.procedure[stations=50]" and load["status"] == "complete"
    (run,) = load["runs"]
    assert run["verdict"] == "PASS" and run["reports"] == 6 and run["missing_reports"] == 0  # 30 s in 5 s windows
    assert [w["expected_size"] for w in load["spread"]] == [250] * 6  # 50 stations, one reading a second


# -- a bad declared profile stops at its one message --------------------------------------------------------

BAD_PROFILE = ("its declared profile is not valid: invalid profile: unknown report condition(s) ['window-closes']; "
               "use window-close, content-change, non-empty-content and the separate 'periodic' parameter")


def test_a_bad_profile_stops_the_run_at_one_message_before_any_case():
    out = pytest_run("--engine", f"cmd:{sys.executable} {FAKE} badprofile", "--smoke")
    assert out.returncode == 4
    assert f"ERROR: --engine cmd:{sys.executable} {FAKE} badprofile: {BAD_PROFILE}" in out.stderr
    assert "Traceback" not in out.stdout + out.stderr and "test_case" not in out.stdout + out.stderr


def test_check_adapter_says_the_bad_profile_and_runs_no_case():
    out = kit("check-adapter", f"cmd:{sys.executable} {FAKE} badprofile")
    assert out.returncode == 1
    assert "  FAIL  declared profile\n" in out.stdout and BAD_PROFILE.split(": ", 2)[2][:60] in out.stdout
    assert out.stdout.rstrip().endswith("the smoke cases are judged against the declared profile: fix it, then check again")
    assert "smoke subset" not in out.stdout and "Traceback" not in out.stdout + out.stderr


def test_an_engine_crash_shows_the_engines_stderr_not_the_kits_frames():
    out = pytest_run("--engine", f"cmd:{sys.executable} {FAKE} crash", "-k", "edges.border")
    assert out.returncode == 1
    text = out.stdout + out.stderr
    assert ("ERROR: engine raised ProtocolError: the engine closed its stdout (exit code 3) instead of sending a run "
            "answer message\n--- engine stderr (tail) ---\nfake engine got case edges.border\n"
            "Exception in thread main: boom\n") in text
    assert "Traceback" not in text and "harness.py" not in text and "command.py" not in text


# -- --keep-relations ------------------------------------------------------------------------------------------

def test_keep_relations_puts_the_engines_whole_relation_in_each_window_of_the_report(tmp_path):
    """edges.border: elements e0 at 0, e10 at 10, e15 at 15 in 10 ms tumbling windows [o, c): the reference
    engine's relations are {e0} and {e10, e15}; a PASS shows no missing or extra, the relation shows all."""
    kept, plain = tmp_path / "kept.json", tmp_path / "plain.json"
    assert pytest_run("--engine", "reference", "-k", "edges.border", "--keep-relations", "--report", str(kept)).returncode == 0
    assert pytest_run("--engine", "reference", "-k", "edges.border", "--report", str(plain)).returncode == 0
    (case,) = json.loads(kept.read_text())["cases"]
    assert [w["relation"] for w in case["windows"]] == [
        [{"s": "<http://ex.org/e0>"}],
        [{"s": "<http://ex.org/e10>"}, {"s": "<http://ex.org/e15>"}]]
    assert all(w["missing"] == [] and w["extra"] == [] for w in case["windows"])
    (case,) = json.loads(plain.read_text())["cases"]
    assert all("relation" not in w for w in case["windows"])
    from conformance.results import runs
    runs.read(kept)  # the report schema knows the field


# -- what an engine says of itself ----------------------------------------------------------------------------

def test_an_engines_homepage_source_and_tracker_reach_the_report_the_site_and_earl(tmp_path):
    report = tmp_path / "runs" / "r.json"
    report.parent.mkdir()
    pytest_run("--engine", f"cmd:{sys.executable} {FAKE} about", "-k", "edges.border", "--report", str(report))
    about = json.loads(report.read_text())["run"]["engine"]["about"]
    assert about == {"homepage": "https://engine.example/", "source": "https://git.example/engine",
                     "issues": "https://git.example/engine/issues"}

    assert kit("matrix", "combine", str(report), "-o", str(tmp_path / "site")).returncode == 0
    page = (tmp_path / "site" / "engines" / "fake-about@0.html").read_text()
    assert ('<p class="about"><a href="https://engine.example/" rel="nofollow">home page</a> · '
            '<a href="https://git.example/engine" rel="nofollow">source</a> · '
            '<a href="https://git.example/engine/issues" rel="nofollow">issue tracker</a></p>') in page

    assert kit("earl", str(report), "-o", str(tmp_path / "earl.ttl")).returncode == 0
    from rdflib import Graph, Namespace, URIRef
    doap = Namespace("http://usefulinc.com/ns/doap#")
    g = Graph().parse(tmp_path / "earl.ttl")
    (subject,) = set(g.subjects(doap.homepage, URIRef("https://engine.example/")))
    assert g.value(subject, doap["bug-database"]) == URIRef("https://git.example/engine/issues")
    assert g.value(g.value(subject, doap.repository), doap.browse) == URIRef("https://git.example/engine")


def test_an_engines_about_that_is_not_an_http_address_breaks_the_protocol():
    from engines.command import problems
    hello = {"protocol": 1, "engine": {"name": "x", "version": "1", "dialect": "sparql", "capabilities": [],
                                       "profile": {}, "homepage": "javascript:alert(1)"}}
    assert problems(hello, "started") == ["engine/homepage: 'javascript:alert(1)' does not match '^https?://'"]


# -- a case to take away ---------------------------------------------------------------------------------------

def _answer_reports(command: str, folder: Path) -> list[dict]:
    """The README's replay command, run as printed (from the project folder), and the run answer's reports."""
    with open(folder / "messages.jsonl", "rb") as messages:
        out = subprocess.run(command, shell=True, stdin=messages, capture_output=True, cwd=ROOT, timeout=60)
    answers = [json.loads(line) for line in out.stdout.decode().splitlines() if line.strip()]
    return answers[1]["reports"]


def _as_bags(reports: list[dict]) -> list:
    return [(r.get("window"), r.get("tau"), sorted(json.dumps(s, sort_keys=True) for s in r["solutions"]))
            for r in reports]


def test_an_exported_case_replays_against_the_engine_outside_the_kit(tmp_path):
    """The docs' minimal engine gets its case as files; the README's one command replays it without the kit,
    and the engine's answer is one of the expected outputs (edges.border, worked by hand: [0, 10) holds e0,
    [10, 20) holds e10 and e15)."""
    import shutil

    import pytest
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    engine = "cmd:node docs/examples/minimal-engine.mjs"
    folder = tmp_path / "border"
    out = kit("export", "edges.border", "-o", str(folder), "--engine", engine)
    assert out.returncode == 0, out.stderr
    messages = [json.loads(line) for line in (folder / "messages.jsonl").read_text().splitlines()]
    assert [m["cmd"] for m in messages] == ["start", "run", "stop"]
    assert messages[1]["case"] == "edges.border" and [e["t"] for e in messages[1]["elements"]] == [0, 10, 15]
    assert (folder / "query.rq").read_text() == messages[1]["query"]
    readme = (folder / "README.md").read_text()
    assert "```sh\nnode docs/examples/minimal-engine.mjs < messages.jsonl\n```" in readme
    expected = json.loads((folder / "expected.json").read_text())
    uri = lambda local: {"type": "uri", "value": f"http://ex.org/{local}"}  # noqa: E731
    assert [o["reports"] for o in expected["outputs"]] == [[
        {"window": [0, 10], "tau": 10, "solutions": [{"s": uri("e0")}]},
        {"window": [10, 20], "tau": 20, "solutions": [{"s": uri("e10")}, {"s": uri("e15")}]}]]
    answer = _answer_reports("node docs/examples/minimal-engine.mjs", folder)
    assert _as_bags(answer) in [_as_bags(o["reports"]) for o in expected["outputs"]]
    # an engine that answers every window with nothing is not one of them
    wrong = _answer_reports(f"{sys.executable} {FAKE} ok", folder)
    assert _as_bags(wrong) not in [_as_bags(o["reports"]) for o in expected["outputs"]]


def test_export_of_a_case_that_is_not_there_names_the_near_ones(tmp_path):
    out = kit("export", "edges.bordr", "-o", str(tmp_path / "x"))
    assert out.returncode == 2 and out.stderr.startswith("error: no case 'edges.bordr' in ")
    out = kit("export", "csrbench.q1", "-o", str(tmp_path / "x"))
    assert out.returncode == 2 and "did you mean csrbench.q1[range=10s,slide=10s]" in out.stderr


# -- an ad-hoc check -------------------------------------------------------------------------------------------

def _own_case(tmp_path: Path) -> tuple[Path, Path]:
    """A query and a stream of the user's own: readings at 1, 4, 6 and 12 ms, above 5 at 4 and 12."""
    query = tmp_path / "q.rq"
    query.write_text("PREFIX ex: <http://ex.org/>\nSELECT ?s WHERE { ?s ex:v ?v FILTER(?v > 5) }\n")
    stream = tmp_path / "s.nq"
    lines = []
    for i, (t, s, v) in enumerate([(1, "a", 3), (4, "b", 9), (6, "c", 2), (12, "d", 7)]):
        g = f"<urn:x:g{i}>"
        lines.append(f'<http://ex.org/{s}> <http://ex.org/v> "{v}"^^<http://www.w3.org/2001/XMLSchema#integer> {g} .')
        lines.append(f'{g} <https://w3id.org/rspconf#time> "{t}"^^<http://www.w3.org/2001/XMLSchema#long> .')
    stream.write_text("\n".join(lines) + "\n")
    return query, stream


def test_judge_runs_a_query_and_stream_of_ones_own_with_the_corpus_verdict(tmp_path):
    """5 ms tumbling windows from t0 = 0 (the reference engine's profile): [0, 5) = {b}, [5, 10) = {},
    [10, 15) = {d} — worked by hand from the stream above; the reference engine PASSes, an engine that
    answers nothing FAILs with the missing solutions named."""
    query, stream = _own_case(tmp_path)
    out = kit("judge", "--query", str(query), "--stream", str(stream), "--window", "5ms", "--json",
              str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[:2] == ["PASS  windows 3/3  P 1.00  R 1.00  t0 0", "explained by t0=0; 3 reports match"]
    windows = json.loads((tmp_path / "r.json").read_text())["windows"]
    assert [(w["open"], w["close"], w["expected_size"]) for w in windows] == [(0, 5, 1), (5, 10, 0), (10, 15, 1)]

    out = kit("judge", "--query", str(query), "--stream", str(stream), "--window", "5ms",
              "--engine", f"cmd:{sys.executable} {FAKE} ok")
    assert out.returncode == 1
    assert out.stdout.startswith("FAIL  windows 1/3")
    assert "missing {?s=b}, derived from the triples at t=4, inside expected window [0, 5)" in out.stdout
    assert "missing {?s=d}, derived from the triples at t=12, inside expected window [10, 15)" in out.stdout


def test_judge_says_what_is_wrong_with_its_arguments_in_one_line(tmp_path):
    query, stream = _own_case(tmp_path)
    graph = tmp_path / "graph.rq"
    graph.write_text("SELECT ?s WHERE { GRAPH ?g { ?s <http://ex.org/p> ?o } }")
    cases = [
        (["--window", "5ms/3x"], "error: --window '5ms/3x': '3x' is not a duration"),
        (["--window", "0/1"], "error: --window '0/1': the range and the slide must be positive"),
        (["--window", "5ms", "--stream", str(tmp_path / "nope.nq")], f"error: --stream {tmp_path / 'nope.nq'}: no such file"),
        (["--window", "5ms", "--query", str(stream)], f"error: {stream}:1: not SPARQL 1.1:"),
        (["--window", "5ms", "--stream", str(query)], f"error: {query}:1: expected"),
        (["--window", "5ms", "--query", str(graph)], f"error: {graph}: GRAPH reads a named graph, and the one window"),
    ]
    for extra, message in cases:
        argv = ["judge", "--query", str(query), "--stream", str(stream)]
        for flag, value in zip(extra[::2], extra[1::2]):
            if flag in argv:
                argv[argv.index(flag) + 1] = value
            else:
                argv += [flag, value]
        out = kit(*argv)
        assert out.returncode == 2 and out.stderr.startswith(message), (extra, out.stderr)
        assert "Traceback" not in out.stderr


# -- the README's path for an engine developer, run as printed ------------------------------------------------

@pytest.mark.long
def test_the_readmes_developer_path_works_as_printed(tmp_path):
    """README 'Your engine, from nothing to a judged run': every command of the block, in order, on a copy of
    the docs' minimal engine — files the commands write go to a temporary folder; the live load runs at 5
    times real time. What each step leaves is checked: a report, a trace, an exported case, an expectations
    file that makes the next run green, a judged query of one's own."""
    import re
    import shutil

    import pytest
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Your engine, from nothing to a judged run", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL).group(1)
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert len(commands) == 9
    _own_case(tmp_path)  # s.nq; the docs' minimal engine reads one triple pattern, so a query without FILTER:
    (tmp_path / "q.rq").write_text("PREFIX ex: <http://ex.org/>\nSELECT ?s ?v WHERE { ?s ex:v ?v }\n")
    files = {"my-engine.mjs": "my-engine.mjs", "r.json": "r.json", "trace.jsonl": "trace.jsonl", "border/": "border/",
             "my-expectations.yaml": "my-expectations.yaml", "q.rq": "q.rq", "s.nq": "s.nq"}
    codes = []
    for command in commands:
        command = command.split("  #", 1)[0].strip()
        for name in files:
            command = re.sub(rf"(?<![\w/.-]){re.escape(name)}", str(tmp_path / name), command)
        if command.startswith("cp "):
            command = command.replace("cp docs/", f"cp {ROOT}/docs/")
        command = re.sub(r"^rspconf ", f"{sys.executable} -m conformance.cli ", command)
        command = re.sub(r"^pytest ", f"{sys.executable} -m pytest -p no:randomly -q ", command)
        if " load " in command:
            command += f" --speed 5 --out {tmp_path / 'load'}"
        done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300, env=ENV)
        assert "Traceback" not in done.stdout + done.stderr, command
        codes.append(done.returncode)
    # cp, check-adapter, the corpus, trace, export, expectations, the run with them, judge, load
    assert codes == [0] * 9, codes
    failed = {c["id"] for c in json.loads((tmp_path / "r.json").read_text())["cases"] if c["verdict"] == "FAIL"}
    import yaml
    assert set(yaml.safe_load((tmp_path / "my-expectations.yaml").read_text()) or {}) == failed
    assert any(r["dir"] == "sent" and r["message"].get("case") == "edges.border" for r in records(tmp_path / "trace.jsonl"))
    assert (tmp_path / "border" / "messages.jsonl").is_file() and (tmp_path / "border" / "expected.json").is_file()
    assert json.loads((tmp_path / "load" / "load.json").read_text())["loads"][0]["runs"][0]["verdict"] == "PASS"


def test_pytest_help_names_every_kind_of_engine():
    out = subprocess.run([sys.executable, "-m", "pytest", "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, env=ENV).stdout
    flat = " ".join(out.split())
    for kind in ("rsp-js[@version]", "'cmd:<command line>'", "'replay:<manifest.yaml>'", "'study:<command line>'",
                 "path/to/file.py:Class", "--engine-trace=FILE", "--keep-relations"):
        assert kind in flat, kind
