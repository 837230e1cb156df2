"""Bad input and interruptions, as a user meets them: each mistake gets one clear message (asserted
word for word), the exit code says what happened, nothing hangs, no engine process is left behind, and
a report never looks complete when the run was not."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance import cli
from conformance.corpus.cases import load_corpus

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def pytest_run(*args, timeout=120):
    """The kit's pytest run as a user starts it (a fresh process, from the project folder)."""
    return subprocess.run([sys.executable, "-m", "pytest", "conformance/", "-q", "-p", "no:randomly", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=ENV)


def last_line(text: str) -> str:
    return [line for line in text.splitlines() if line.strip()][-1]


# -- generators -------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["yabench", "--stations", "0"], "error: rspconf generate yabench: --stations 0: give at least 1"),
    (["yabench", "--stations", "-5"], "error: rspconf generate yabench: --stations -5: give at least 1"),
    (["waves", "--sensors", "-5"], "error: rspconf generate waves: --sensors -5: give at least 1"),
    (["yabench", "--interval", "0s"], "error: rspconf generate yabench: --interval 0 ms: give a positive duration "
                                      "like 1s or 500ms"),
    (["yabench", "--interval", "1ms", "--duration", "1000000000000s"],
     "error: rspconf generate yabench: 10 stations every 1 ms for 1000000000000000 ms make "
     "10,000,000,000,000,010 observations, more than the generator's limit of 150,000,000 (about 10^9 triples); "
     "give a shorter --duration, a longer --interval or fewer --stations"),
    (["yabench", "--interval", "abc"], "error: rspconf generate: 'abc' is not a duration; write a positive duration "
                                       "like 5s, 500ms, 1m or PT5S (or an integer number of milliseconds)"),
])
def test_a_bad_generator_argument_is_refused_and_the_output_file_kept(tmp_path, capsys, argv, message):
    out = tmp_path / "stream.nq"
    out.write_text("what was here before\n")
    assert cli.main(["generate", *argv, "--output", str(out)]) == 2
    assert capsys.readouterr().err.strip() == message
    assert out.read_text() == "what was here before\n"


# -- usage errors of the pytest plugin --------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--engine", "nosuch"], "ERROR: --engine nosuch: unknown engine. Give a registered name ("),
    (["--engine", "cmd:false"], "ERROR: --engine cmd:false: cannot start it: the engine closed its stdout (exit code "
                                "1) instead of sending a start answer message"),
    (["--engine", "cmd:cat"], "ERROR: --engine cmd:cat: cannot start it: the start answer breaks the protocol: "
                              "(message): 'engine' is a required property"),
    (["--data-root", "/nonexistent"], "ERROR: --data-root /nonexistent: no such folder. Give the folder that holds "
                                      "the third-party data"),
])
def test_usage_errors_are_one_line_and_exit_4(args, message):
    run = pytest_run("-n", "2", *args)
    assert run.returncode == 4
    assert last_line(run.stderr).startswith(message), run.stderr
    assert "Traceback" not in run.stderr + run.stdout and "pluggy" not in run.stderr + run.stdout
    if args[1] == "nosuch":
        assert all(form in run.stderr for form in ("'cmd:<command line>'", "'replay:<manifest.yaml>'",
                                                   "'path/to/file.py:Class'"))


def test_a_hanging_engine_start_is_bounded_by_the_case_timeout_and_leaves_no_process():
    marker = "1234.5"  # a sleep nobody else runs
    run = pytest_run("--engine", f"cmd:sleep {marker}", "--case-timeout", "2", "-k", "edges.border")
    assert run.returncode == 4
    assert last_line(run.stderr) == (f"ERROR: --engine cmd:sleep {marker}: cannot start it: no start answer message "
                                     "within 2 s (raise it with --engine-option start_timeout=SECONDS)")
    time.sleep(0.5)
    assert _processes_with(marker) == []  # a process may end while /proc is read: _processes_with allows it


def test_a_query_that_is_not_sparql_is_the_corpus_s_mistake_with_file_and_line(tmp_path):
    text = (ROOT / "cases" / "bags.yaml").read_text()
    broken = text.replace('r2r: "SELECT ?s WHERE { ?s ex:p ?o }"', 'r2r: "SELECT ?s WHERE { ?s ex:p ?o FILTER(?o > ) }"', 1)
    (tmp_path / "bags.yaml").write_text(broken)
    line = broken.splitlines().index('      r2r: "SELECT ?s WHERE { ?s ex:p ?o FILTER(?o > ) }"') + 1
    run = pytest_run("--cases", str(tmp_path))
    assert run.returncode == 4
    assert last_line(run.stderr) == (
        f"ERROR: invalid case file: {tmp_path / 'bags.yaml'}:{line}: field cases[0].query.r2r (bags.projection): not "
        "SPARQL 1.1: Expected SelectQuery (line 1, column 30 of the query); fix the query — the corpus, not an "
        "engine, is wrong here")


@pytest.mark.parametrize("value", ["abc", "-1s", "0"])
def test_a_window_that_is_no_duration_says_what_to_write(tmp_path, value):
    from conformance.corpus.cases import CaseFileError, read_family
    text = (ROOT / "cases" / "bags.yaml").read_text().replace("window: {range: 10ms", f"window: {{range: {value}", 1)
    (tmp_path / "bags.yaml").write_text(text)
    with pytest.raises(CaseFileError) as err:
        read_family(tmp_path / "bags.yaml")
    shown = repr(int(value)) if value.isdigit() else repr(value)
    assert str(err.value).endswith(f": field cases[0].query.window.range: {shown} is not a duration; write a positive "
                                   "duration like 5s, 500ms, 1m or PT5S (or an integer number of milliseconds)")


@pytest.mark.parametrize("old, new, message", [
    ('"http://ex.org/wt": {stream: "http://ex.org/temp", count: 2, slide: 2}',
     '"http://ex.org/wt": {stream: "http://ex.org/temp", count: 2, slide: 2ms}',
     "field cases[{i}].query.windows.http://ex.org/wt.slide: '2ms': a count window slides by a number of units of "
     "its stream: write an integer (a time window takes range and a duration)"),
    ('"http://ex.org/wt": {stream: "http://ex.org/temp", count: 2, slide: 2}',
     '"http://ex.org/wt": {stream: "http://ex.org/temp", count: 2, range: 5ms, slide: 2}',
     "field cases[{i}].query.windows.http://ex.org/wt: a window has a count (a count window) or a range (a time "
     "window), not both: remove one"),
    ('instants: {closes-of: "http://ex.org/w2"}', 'instants: {closes-of: "http://ex.org/w9"}',
     "query.windows: instants closes-of http://ex.org/w9: no window of that name; the windows are "
     "http://ex.org/w1, http://ex.org/w2"),
])
def test_a_named_window_or_instants_that_cannot_be_says_what_to_write(tmp_path, old, new, message):
    from conformance.corpus.cases import CaseFileError, load_corpus

    text = (ROOT / "cases" / "multi-window.yaml").read_text()
    assert old in text
    (tmp_path / "mw.yaml").write_text(text.replace(old, new, 1))
    ids = [line.split("id: ")[1] for line in text.splitlines() if line.startswith("  - id: ")]
    i = ids.index("count-windows-two-streams")
    with pytest.raises(CaseFileError) as err:
        load_corpus(tmp_path)
    assert str(err.value).endswith(message.format(i=i)), str(err.value)


def test_graph_in_a_query_over_one_window_says_it_could_match_nothing(tmp_path):
    """A one-window case's window is its query's default graph and there is no named graph: a GRAPH pattern
    could match nothing (rdflib failed on it, 'requiring a dataset', as the reference engine's ERROR).  The
    multi-window family, whose windows are named graphs, loads as before."""
    from conformance.corpus.cases import CaseFileError, load_corpus

    text = (ROOT / "cases" / "bags.yaml").read_text()
    old = 'r2r: "SELECT ?s WHERE { ?s ex:p ?o }"'
    assert old in text
    (tmp_path / "bags.yaml").write_text(text.replace(old, 'r2r: "SELECT ?s WHERE { GRAPH ?g { ?s ex:p ?o } }"', 1))
    line = 1 + text[:text.index(old)].count("\n")
    with pytest.raises(CaseFileError) as err:
        load_corpus(tmp_path)
    assert str(err.value).startswith(f"{tmp_path / 'bags.yaml'}:{line}: field cases[0].query.r2r (bags.projection): "
                                     "GRAPH reads a named graph, and a query over one window has none"), str(err.value)
    from oracle.model import MultiWindowSpec

    assert any(isinstance(c.window, MultiWindowSpec) and "GRAPH <" in c.r2r for c in load_corpus(ROOT / "cases"))
    # merged windows are the default graph too (C-SPARQL): no named graph there either
    merged = (ROOT / "cases" / "multi-window.yaml").read_text()
    old = 'r2r: "SELECT ?s WHERE { ?s ex:v ?x }"\n      windows:'
    assert old in merged
    mw = tmp_path / "mw"
    mw.mkdir()
    (mw / "multi-window.yaml").write_text(merged.replace(
        old, 'r2r: "SELECT ?s WHERE { GRAPH <http://ex.org/w1> { ?s ex:v ?x } }"\n      windows:', 1))
    with pytest.raises(CaseFileError, match=r"\(mw\.merged-two-widths-one-stream\): GRAPH reads a named graph, and "
                                            r"merged windows have none \(query\.merge_windows"):
        load_corpus(mw)


def test_lint_reports_every_problem_of_every_case_and_counts_them(tmp_path, capsys):
    bags = (ROOT / "cases" / "bags.yaml").read_text()
    (tmp_path / "bags.yaml").write_text(
        bags.replace('{t: 3, turtle: "ex:b ex:p ex:x ."}', '{t: 0, turtle: "ex:b ex:p ex:x ."}', 1)
            .replace('"ex:a ex:p ex:x . ex:a ex:q ex:x ."', '"ex:a ex:p ex:x  ex:a ."', 1))
    (tmp_path / "r2s.yaml").write_text((ROOT / "cases" / "r2s.yaml").read_text().replace(
        'r2r: "SELECT ?s WHERE { ?s ex:p ?o }"', 'r2r: "SELECT ?s WHERE { ?s ex:p ?o FILTER(?o > ) }"', 1))
    assert cli.main(["lint", "--cases", str(tmp_path)]) == 1
    out = capsys.readouterr()
    errors = [line for line in out.err.splitlines() if line.startswith("error: ")]
    assert [e.split(":")[1].strip() for e in errors][1:] == ["bags.projection", "bags.union"]
    assert "r2s.yaml" in errors[0] and "not SPARQL 1.1" in errors[0]
    assert "timestamp 0 is earlier than the previous element's 1" in errors[1]
    assert "not valid Turtle" in errors[2]
    # the broken family is one problem; the two good cases of the other are still checked
    assert out.out.splitlines()[-1] == "4 cases in 2 files, 2 checked, 0 skipped (missing data), 3 problems"
    assert "Traceback" not in out.err


# -- reports that must not lie ----------------------------------------------------------------------

SLOW_ADAPTER = '''
import os, signal
from engines.reference import ReferenceEngine

# a process started by an xdist worker may inherit SIGINT as ignored, and Python then installs no
# KeyboardInterrupt handler: restore it, as a terminal's Ctrl-C finds it
signal.signal(signal.SIGINT, signal.default_int_handler)

class Interrupted(ReferenceEngine):
    calls = 0
    def run(self, request):
        type(self).calls += 1
        if type(self).calls == 3:   # the user presses Ctrl-C during the third case
            os.kill(os.getpid(), signal.SIGINT)
        return super().run(request)
'''


def test_an_interrupted_run_writes_a_report_that_says_it_is_incomplete(tmp_path):
    (tmp_path / "adapter.py").write_text(SLOW_ADAPTER)
    report = tmp_path / "report.json"
    run = pytest_run("--engine", f"{tmp_path / 'adapter.py'}:Interrupted", "-k", "edges", "--report", str(report))
    assert run.returncode == 2  # pytest's 'interrupted'
    doc = json.loads(report.read_text())
    assert doc["run"]["complete"] is False and doc["run"]["interrupted"] == "interrupted (Ctrl-C)"
    selected = sum(1 for c in load_corpus(ROOT / "cases") if "edges" in c.id)  # what -k edges selects
    assert doc["run"]["finished"] == len(doc["cases"]) < doc["run"]["selected"] == selected
    assert "INCOMPLETE RUN: " in run.stdout
    assert f" of {selected} selected cases finished (interrupted (Ctrl-C))" in run.stdout


TERMINATED_ADAPTER = SLOW_ADAPTER.replace("Interrupted", "Terminated").replace("signal.SIGINT)", "signal.SIGTERM)")


def test_sigterm_stops_a_run_as_ctrl_c_does_and_the_report_says_so(tmp_path):
    """Issue 35 §9: CI cancellation and ``timeout`` send SIGTERM; the run must stop its engine and write a
    report that says it is incomplete, not vanish."""
    (tmp_path / "adapter.py").write_text(TERMINATED_ADAPTER)
    report = tmp_path / "report.json"
    run = pytest_run("--engine", f"{tmp_path / 'adapter.py'}:Terminated", "-k", "edges", "--report", str(report))
    assert run.returncode == 2
    doc = json.loads(report.read_text())
    assert doc["run"]["complete"] is False and doc["run"]["interrupted"] == "interrupted: terminated (SIGTERM)"
    assert "INCOMPLETE RUN: " in run.stdout and "(interrupted: terminated (SIGTERM))" in run.stdout


def test_sigterm_to_a_cli_command_is_one_line_not_a_traceback(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "conformance.cli", "generate", "yabench", "--stations", "10000",
                             "--duration", "10000s", "--output", str(tmp_path / "big.nt")], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not any(p.stat().st_size > 1_000_000 for p in tmp_path.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)  # until the hidden temporary file holds a megabyte
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["rspconf generate: terminated (SIGTERM); stopped before the end, so whatever "
                                        "it was writing is incomplete"]
    assert list(tmp_path.iterdir()) == []  # neither the output nor its temporary file (issue 35 §4)


LEAVING = """
import atexit, signal, sys
from pathlib import Path
from conformance import cli
from conformance.run import infer

out = Path(sys.argv[1])
atexit.register(lambda: (out / "exit-handler-ran").write_text("yes"))


class Held:  # a heap object the interrupted command holds: freeing it would write a file
    def __del__(self):
        (out / "freed").write_text("yes")


def command(args):
    held = [Held()]
    signal.raise_signal(signal.SIGTERM)
    return len(held)


infer.command = command
sys.argv = ["rspconf", "infer-profile", "reference"]
cli.entry()
"""


def test_after_sigterm_a_cli_command_leaves_at_once_with_its_exit_handlers_run(tmp_path):
    """infer-profile took 5.5 s to end after SIGTERM (message printed at once): the process freed its 0.8 GB
    of judged windows object by object.  The console script now leaves without that, but still runs the exit
    handlers that stop engines and remove temporary folders."""
    script = tmp_path / "leaving.py"
    script.write_text(LEAVING)
    run = subprocess.run([sys.executable, str(script), str(tmp_path)], cwd=ROOT, env=ENV, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 130
    assert run.stderr.strip() == ("rspconf infer-profile: terminated (SIGTERM); stopped before the end, so "
                                  "whatever it was writing is incomplete")
    assert (tmp_path / "exit-handler-ran").read_text() == "yes"
    assert not (tmp_path / "freed").exists()  # the heap was not torn down
    # main() called in process (as tests call it) returns, and the heap goes as before
    (tmp_path / "main").mkdir()
    run = subprocess.run([sys.executable, "-c", LEAVING.replace("cli.entry()", "print(cli.main())"),
                          str(tmp_path / "main")], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout == "130\n"
    assert (tmp_path / "main" / "freed").exists() and (tmp_path / "main" / "exit-handler-ran").exists()


def test_an_interrupt_while_an_engine_runs_cancels_it_at_once():
    """Ctrl-C or SIGTERM while the harness waits for an engine's answer: the engine is cancelled (a subprocess
    one is killed) before the interrupt goes on up.  Before, the way out asked the busy engine to stop, and it
    was killed only at the 5 s stop grace: infer-profile took 1.8-5 s to end after SIGTERM while rsp-js ran."""
    import threading

    from conformance.run.harness import call_with_timeout

    cancelled = threading.Event()
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # an xdist worker ignores SIGINT
    try:
        timer = threading.Timer(0.2, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            call_with_timeout(lambda: cancelled.wait(20), 20, cancelled.set)
    finally:
        signal.signal(signal.SIGINT, before)
    assert cancelled.is_set()


def test_a_run_that_finishes_nothing_leaves_no_stale_report(tmp_path):
    from tests import reportmaker as rm

    report = tmp_path / "report.json"
    for mistake in (["--engine", "nosuch"], ["--data-root", "/nonexistent"]):
        rm.write(report, "old", "1", [rm.case("fam.a", "PASS")])  # an older run's report (the kit's own kind)
        run = pytest_run(*mistake, "--report", str(report))
        assert run.returncode == 4 and not report.exists()
    run = pytest_run("-k", "no-case-has-this-id", "--report", str(report))  # selects nothing: a report of nothing
    assert json.loads(report.read_text())["run"]["finished"] == 0


def test_without_a_terminal_the_summary_prints_every_reason_whole():
    run = pytest_run("--engine", "testing-null", "-k", "edges.border")
    row = next(line for line in run.stdout.splitlines() if line.startswith("edges.border "))
    assert row.endswith("and the engine has no report for it")  # the whole reason, past any terminal width


@pytest.mark.parametrize("change, message", [
    ({"--query": "none.rq"}, "error: --query {tmp}/none.rq: no such file; give the file holding the query"),
    ({"--stream": "none.nq"}, "error: --stream {tmp}/none.nq: no such file or folder; give an N-Quads, TriG or "
                              "YABench file, or a CSRBench folder"),
    ({"--range": "abc"}, "error: --range/--slide: 'abc' is not a duration; write a positive duration like 5s, 500ms, "
                         "1m or PT5S (or an integer number of milliseconds)"),
    ({"--query": "bad.rq"}, "error: {tmp}/bad.rq: not SPARQL 1.1: Expected SelectQuery (line 1, column 38 of the "
                            "query)"),
])
def test_spark_run_says_what_is_wrong_before_starting_spark(tmp_path, capsys, change, message):
    (tmp_path / "q.rq").write_text("SELECT ?s WHERE { ?s <http://x/p> ?o }")
    (tmp_path / "bad.rq").write_text("SELECT ?s WHERE { ?s <http://x/p> ?o FILTER( }")
    (tmp_path / "s.nq").write_text("")
    args = {"--query": "q.rq", "--stream": "s.nq", "--range": "1s", "--slide": "1s", **change}
    argv = ["spark", "run"] + [x for k, v in args.items() for x in (k, str(tmp_path / v) if k in ("--query", "--stream") else v)]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.strip() == message.format(tmp=tmp_path)


def _processes_with(marker: str) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        try:
            if p.name.isdigit() and marker in (p / "cmdline").read_bytes().decode(errors="replace").split("\0"):
                out.append(int(p.name))
        except OSError:
            continue
    return out


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def test_killing_the_controller_leaves_no_engine_process():
    """SIGKILL of pytest -n 2 runs no clean-up of the controller's: each worker sees it is orphaned and
    kills its engine's process group. The engine here ignores a closed stdin, so only that saves it."""
    import signal

    marker = f"rspconf-orphan-test-{os.getpid()}"
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "conformance/", "-q", "-n", "2", "-p", "no:randomly",
                             "--engine", f"cmd:{sys.executable} tests/stubborn_engine.py {marker}", "-k", "edges",
                             "--case-timeout", "60"], cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        # the workers' engines, started by the workers (the controller only validated its own and
        # stopped it; a stubborn engine takes the 5 s stop grace to die, so wait for that too)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            parents = [_parent(pid) for pid in _processes_with(marker)]
            if len(parents) >= 2 and proc.pid not in parents:
                break
            time.sleep(0.2)
        assert len(_processes_with(marker)) >= 2, "the workers' engines did not start"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        # each worker notices within 0.5 s and gives its engine a 0.5 s SIGTERM grace; on a CI machine busy
        # with the other worker's Spark jobs that took more than 5 s once (stop 26), so allow 15
        deadline = time.monotonic() + 15
        while _processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _processes_with(marker) == []
    finally:
        for pid in _processes_with(marker):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()


def test_progress_is_a_status_line_on_a_terminal_and_quiet_in_a_log_unless_verbose():
    from conformance.run.progress import CLEAR_TO_END, RESTORE, SAVE, Progress
    out = []
    terminal = Progress(out.append, terminal=True)
    terminal.step("edges.border: engine running")
    terminal.done()
    terminal.close()
    assert out == [f"{SAVE} edges.border: engine running{CLEAR_TO_END}{RESTORE}", CLEAR_TO_END]
    quiet, log = [], []
    Progress(quiet.append, terminal=False).step("edges.border: engine running")
    verbose = Progress(log.append, terminal=False, verbose=True, every=0.05)
    verbose.step("weather.filter-load: oracle judging")
    time.sleep(1.3)  # the ticker says it once a second, as the step goes on
    verbose.close()
    assert quiet == [] and log and all(line.startswith("rspconf: weather.filter-load: oracle judging")
                                       and line.endswith("\n") for line in log)


def test_terminal_escapes_from_an_engine_are_shown_not_obeyed():
    """An engine's error text with a carriage return and ANSI sequences cannot overwrite its ERROR row with a
    fake PASS: the summary and the failure show the escapes as text."""
    fake = Path(__file__).resolve().parent / "fake_engine.py"
    out = pytest_run("--engine", f"cmd:{sys.executable} {fake} escapes", "-k", "edges.border")
    assert "\x1b" not in out.stdout and "\r" not in out.stdout.replace("\r\n", "\n")
    assert "boom\\r\\x1b[2K\\x1b[32mseed002.fig1 PASS" in out.stdout
    row = next(line for line in out.stdout.splitlines() if line.startswith("edges.border "))
    assert row.split()[1] == "ERROR" and "PASS" not in row.split("boom")[0]


def test_a_report_whose_window_closes_before_it_opens_is_an_error_naming_the_field():
    fake = Path(__file__).resolve().parent / "fake_engine.py"
    out = pytest_run("--engine", f"cmd:{sys.executable} {fake} badwindow", "-k", "edges.border")
    row = next(line for line in out.stdout.splitlines() if line.startswith("edges.border "))
    assert row.split()[1] == "ERROR", row
    assert "field window: [10000, 0] closes before it opens" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_a_params_grid_past_the_limit_is_refused_naming_the_case_and_the_count(tmp_path, capsys):
    values = ", ".join(str(i) for i in range(101))
    (tmp_path / "grid.yaml").write_text(f"""schema_version: 1
family: grid
title: t
cases:
  - id: big
    title: t
    spec: [test]
    level: must
    capabilities: [time-window]
    stream: {{elements: [{{t: 1, turtle: "<http://e/a> <http://e/p> <http://e/o> ."}}]}}
    query:
      r2r: "SELECT * WHERE {{ ?s ?p ?o FILTER(?o != {{{{a}}}} && ?o != {{{{b}}}}) }}"
      window: {{range: 10ms, slide: 10ms}}
    params: {{a: [{values}], b: [{values}]}}
""", encoding="utf-8")
    assert cli.main(["lint", "--fast", "--cases", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "case 'big': its params grid makes 10,201 cases; the kit expands at most 1,000 per case" in err


@pytest.mark.parametrize("where, says", [
    ("folder", "is a folder; give a file path"),
    ("/proc/nope/r.json", "cannot write there"),
    ("README.md", "exists and is not an rspconf run report; the kit removes only its own reports"),
], ids=["a-folder", "unwritable", "not-a-report"])
def test_a_report_path_that_cannot_take_the_report_is_refused_before_the_run(tmp_path, where, says):
    target = {"folder": str(tmp_path), "README.md": str(tmp_path / "README.md")}.get(where, where)
    if where == "README.md":
        (tmp_path / "README.md").write_text("# my notes\n", encoding="utf-8")
    out = pytest_run("--report", target, "-k", "edges.border")
    assert out.returncode == 4, out.stdout[-2000:] + out.stderr
    assert f"--report {target}: {says}" in out.stderr and "Traceback" not in out.stderr
    assert "passed" not in out.stdout  # nothing ran
    if where == "README.md":
        assert (tmp_path / "README.md").read_text(encoding="utf-8") == "# my notes\n"  # not removed


def test_earl_into_a_place_it_cannot_write_is_one_line(tmp_path, capsys):
    from tests import reportmaker as rm

    path = rm.write(tmp_path / "r.json", "eng", "1", [rm.case("fam.a", "PASS")])
    assert cli.main(["earl", str(path), "-o", "/proc/nope/earl.ttl"]) == 2
    err = capsys.readouterr().err
    assert "-o /proc/nope/earl.ttl: cannot write there" in err and "Traceback" not in err


@pytest.mark.parametrize("mutate, message", [
    (lambda text: ("# caf\xe9\n" + text).encode("latin-1", "replace"), ":1: not UTF-8 (byte 0xe9); a case file is UTF-8"),
    (lambda text: b"\n", ":1: the file is empty"),
    (lambda text: text.replace("    level: must\n", "    level: must\n    level: may\n", 1).encode(),
     "the key 'level' is given twice in one mapping (YAML would keep the last silently); keep one"),
])
def test_a_case_file_in_another_encoding_empty_or_with_a_key_twice_is_refused_with_its_line(tmp_path, mutate, message):
    """Issue 35 §16: a Latin-1 file was a traceback in lint and INTERNALERROR in pytest; a key given twice
    silently kept the last."""
    from conformance.corpus.cases import CaseFileError, read_family
    text = (ROOT / "cases" / "bags.yaml").read_text(encoding="utf-8")
    assert "    level: must\n" in text
    (tmp_path / "bags.yaml").write_bytes(mutate(text))
    with pytest.raises(CaseFileError) as err:
        read_family(tmp_path / "bags.yaml")
    assert str(err.value).startswith(str(tmp_path / "bags.yaml") + ":") and message in str(err.value)
    run = pytest_run("--cases", str(tmp_path))
    assert run.returncode == 4 and message in run.stdout + run.stderr and "Traceback" not in run.stdout + run.stderr


TYPO_ADAPTER = '''
from dataclasses import replace
from engines.reference import ReferenceEngine

class Typo(ReferenceEngine):
    def info(self):
        base = super().info()
        return replace(base, capabilities=frozenset(base.capabilities) | {"filters", "istreams"})
'''


def test_a_capability_name_not_in_the_registry_is_refused_with_a_suggestion(tmp_path):
    """Issue 36 §3: a typo ("filters") was accepted and check-adapter said "adapter OK"."""
    (tmp_path / "adapter.py").write_text(TYPO_ADAPTER)
    run = pytest_run("--engine", f"{tmp_path / 'adapter.py'}:Typo", "-k", "edges.border")
    assert run.returncode == 4
    assert "declares capabilities the registry does not know: filters (did you mean filter?), istreams (did you " \
           "mean istream?)" in run.stdout + run.stderr
    check = subprocess.run([sys.executable, "-m", "conformance.cli", "check-adapter", f"{tmp_path / 'adapter.py'}:Typo"],
                           cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert check.returncode == 1 and "not in the registry: filters (did you mean filter?)" in check.stdout
    run = pytest_run("--capability", "istreams")
    assert run.returncode == 4 and "--capability: not in the registry: istreams (did you mean istream?)" in run.stderr


def test_the_registry_lists_every_name_with_the_cases_that_need_it_and_selects_them():
    from conformance import schema
    from conformance.corpus.cases import load_corpus

    listed = json.loads(subprocess.run([sys.executable, "-m", "conformance.cli", "capabilities", "--json"], cwd=ROOT,
                                       env=ENV, capture_output=True, text=True, timeout=120, check=True).stdout)
    cases = load_corpus(ROOT / "cases")
    assert [r["name"] for r in listed] == list(schema.capabilities())
    assert all(r["means"] and r["cases"] == sum(r["name"] in c.capabilities for c in cases) for r in listed)
    # every capability the shipped engines declare is in the registry; every name a case needs too (schema)
    from engines.reference import ReferenceEngine
    assert schema.unknown_capabilities(ReferenceEngine().info().capabilities) == []
    run = pytest_run("--capability", "istream", "--capability", "sliding-window", "--collect-only")
    wanted = sorted(c.id for c in cases if {"istream", "sliding-window"} <= set(c.capabilities))
    assert wanted and sorted(line.split("[", 1)[1][:-1] for line in run.stdout.splitlines()
                             if "::test_case[" in line) == wanted
