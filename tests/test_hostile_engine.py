"""A hostile engine process (tests/fake_engine.py's hostile modes): every misbehaviour is an ERROR or a
TIMEOUT of its own case, found in bounded time and memory, and leaves no process behind."""

import os
import resource
import shlex
import signal
import sys
import time
from pathlib import Path

from conformance import cli
from conformance.corpus.cases import load_corpus
from conformance.run import adapters
from conformance.run.harness import run_case
from tests.test_bad_input import _processes_with

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}
FAKE = Path(__file__).with_name("fake_engine.py")


def fake(mode: str, **options):
    return adapters.build(f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} {mode}", options)


def run(engine, case_id="edges.empty-windows", timeout=30.0):
    return run_case(CASES[case_id], engine, engine.info(), timeout=timeout)


def test_an_endless_stdout_line_is_an_error_within_the_line_bound_not_a_memory_blowup():
    engine = fake("endless", max_line_mb="4")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    started = time.monotonic()
    result = run(engine, timeout=60)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    engine.close()
    assert result.verdict == "ERROR", result.reason
    assert "stdout line 2 is longer than 4,194,304 bytes"  # line 1: the start answer in result.reason and "max_line_mb" in result.reason
    assert time.monotonic() - started < 30  # not the case timeout: the engine writes about 1 GB/s
    assert grown < 100 * 1024, f"the kit grew by {grown} KiB reading one line"


def test_bytes_that_are_not_utf8_on_stdout_are_an_error_naming_the_line():
    engine = fake("badstdout")
    result = run(engine)
    engine.close()
    assert result.verdict == "ERROR"
    assert "stdout line 2 is not UTF-8 (byte 0xff" in result.reason


def test_bytes_that_are_not_utf8_on_stderr_do_not_stall_the_engine():
    """2.5 MB of stderr, none of it UTF-8: read leniently, so the engine never blocks on a full pipe
    and the case is judged as the same engine without the noise is (ok mode)."""
    noisy, quiet = fake("badstderr"), fake("ok")
    started = time.monotonic()
    got, want = run(noisy, timeout=60), run(quiet)
    assert time.monotonic() - started < 30
    noisy.close(), quiet.close()
    assert (got.verdict, got.reason) == (want.verdict, want.reason)
    assert got.verdict == "FAIL"


def test_a_stray_line_after_an_answer_never_turns_later_cases_into_errors():
    """strayonce prints one stray line after its first answer: the next case finds it on the pipe, says
    so beside its verdict, and runs on a fresh engine (which strays once in turn) — every case is judged as
    the same engine without the stray line is."""
    engine, plain = fake("strayonce"), fake("ok")
    got = {}
    for case_id in ("edges.empty-windows", "edges.border", "edges.gap"):
        got[case_id] = run(engine, case_id)
        time.sleep(0.3)  # the stray line is on the pipe before the next request
    engine.close()
    for case_id, result in got.items():
        assert result.verdict == run(plain, case_id).verdict, (case_id, result.reason)
    plain.close()
    strays = {case_id: [n for n in r.notes if "INFO run finished" in n] for case_id, r in got.items()}
    assert strays["edges.empty-windows"] == []
    for case_id in ("edges.border", "edges.gap"):
        assert len(strays[case_id]) == 1 and "after its previous answer" in strays[case_id][0]
        assert "this case ran on a fresh engine" in strays[case_id][0]


def test_check_adapter_does_not_say_ok_for_an_engine_that_prints_a_stray_line(capsys):
    code = cli.main(["check-adapter", f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} strayonce"])
    out = capsys.readouterr().out
    assert code == 1 and "adapter OK" not in out
    assert "INFO run finished" in out


def test_an_engine_that_exits_while_a_setsid_grandchild_holds_its_stdout_is_an_error_at_once():
    engine = fake("setsid")
    started = time.monotonic()
    result = run(engine, timeout=60)
    assert time.monotonic() - started < 15, "waited for the timeout instead of seeing the exit"
    assert result.verdict == "ERROR"
    assert "exit code 1" in result.reason and "giving up" in result.error
    engine.close()
    deadline = time.monotonic() + 5
    while _processes_with("fake-grandchild") and time.monotonic() < deadline:
        time.sleep(0.1)
    leaked = _processes_with("fake-grandchild")
    for pid in leaked:
        os.kill(pid, signal.SIGKILL)
    assert leaked == [], "the grandchild outlived the engine"


def test_an_engine_that_ignores_sigterm_is_killed_after_its_timeout():
    engine = fake("noterm")
    engine.info()
    process = engine.process
    result = run(engine, timeout=2.0)
    assert result.verdict == "TIMEOUT"
    deadline = time.monotonic() + 5
    while process.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert process.proc.poll() == -signal.SIGKILL
