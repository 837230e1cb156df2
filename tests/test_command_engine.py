"""Engines as processes (protocol 1): verdicts for well-behaved, broken, hanging and refusing engines."""

import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest

from conformance.corpus.cases import load_corpus
from conformance.run import adapters
from conformance.run.harness import run_case
from engines.command import CommandEngine
from engines.process import ProtocolError

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}
FAKE = Path(__file__).with_name("fake_engine.py")


def fake(mode: str) -> CommandEngine:
    return adapters.build(f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} {mode}")


def run(engine, case_id="edges.empty-windows", timeout=30.0):
    return run_case(CASES[case_id], engine, engine.info(), timeout=timeout)


def test_the_minimal_javascript_engine_passes_single_pattern_cases():
    if not shutil.which("node"):
        pytest.skip("node is not installed")
    engine = adapters.build(f"cmd:node {ROOT / 'docs/examples/minimal-engine.mjs'}")
    try:
        assert engine.info().name == "minimal-js"
        for case_id in ("edges.border", "edges.gap", "edges.sliding-overlap"):
            result = run(engine, case_id)
            assert result.verdict == "PASS", (case_id, result.reason)
        assert run(engine, "csrbench.q1[range=10s,slide=10s]").verdict in ("UNSUPPORTED", "SKIPPED")
    finally:
        engine.close()


def test_an_engine_that_reports_empty_windows_is_judged_not_errored():
    engine = fake("ok")
    # edges.empty-windows has matches in some windows: empty reports FAIL (judged), not ERROR
    result = run(engine)
    assert result.verdict == "FAIL", result.reason
    engine.close()
    assert engine.process is None


@pytest.mark.parametrize("mode, verdict, words", [
    ("garbage", "ERROR", "stdout line 2 is not JSON"),
    ("crash", "ERROR", "exit code 3"),
    ("unsupported", "UNSUPPORTED", "no windows here"),
    ("error", "ERROR", "query did not parse"),
    ("wrongseq", "ERROR", "seq 2"),
    ("halfline", "ERROR", "stdout line 2 is not JSON (Unterminated string starting at): '{\"seq\": 1, \"repo'; then the engine exited with code 139"),
])
def test_broken_engines_are_errors_with_their_stderr(mode, verdict, words):
    engine = fake(mode)
    result = run(engine)
    assert result.verdict == verdict
    assert words in result.reason
    if verdict == "ERROR" and mode != "error":
        assert "fake engine got case edges.empty-windows" in result.error  # stderr tail attached
    engine.close()


def test_a_crashed_engine_is_restarted_for_the_next_case():
    engine = fake("crash")
    first, second = run(engine), run(engine, "edges.border")
    assert first.verdict == second.verdict == "ERROR"
    assert "exit code 3" in second.reason  # a fresh process was started (and crashed again)
    engine.close()


def test_a_hanging_engine_is_a_timeout_and_is_killed():
    engine = fake("hang")
    engine.info()
    process = engine.process
    started = time.monotonic()
    result = run(engine, timeout=2.0)
    assert result.verdict == "TIMEOUT"
    assert time.monotonic() - started < 10
    deadline = time.monotonic() + 5
    while process.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert process.proc.poll() is not None, "the hanging process was not killed"


def test_a_start_answer_without_profile_names_the_field():
    with pytest.raises(ProtocolError, match="engine: 'profile' is a required property"):
        fake("badinfo").info()


def test_the_command_line_is_not_run_by_a_shell(tmp_path):
    marker = tmp_path / "made-by-a-shell"
    engine = adapters.build(f"cmd:echo hello; touch {marker}")
    with pytest.raises(ProtocolError, match="not JSON"):
        engine.info()
    assert not marker.exists()


def test_a_missing_program_is_reported_as_unavailable():
    with pytest.raises(ProtocolError, match="no such program"):
        adapters.build("cmd:no-such-engine-binary --flag").info()


def test_check_adapter_accepts_the_minimal_engine_and_pinpoints_a_broken_one(capsys):
    from conformance import cli

    if shutil.which("node"):
        assert cli.main(["check-adapter", f"cmd:node {ROOT / 'docs/examples/minimal-engine.mjs'}"]) == 0
        assert "adapter OK" in capsys.readouterr().out
    code = cli.main(["check-adapter", f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} garbage"])
    out = capsys.readouterr().out
    assert code == 1
    assert "is not JSON" in out and "log to stderr" in out and "edges.border: ERROR" in out
    code = cli.main(["check-adapter", f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} badinfo"])
    assert code == 1 and "'profile' is a required property" in capsys.readouterr().out


def test_check_adapter_on_a_missing_script_says_the_kits_headline_then_the_engines_stderr(capsys):
    """Issue 36 §7: for `cmd:node nosuch.js` it printed only node's stderr tail, headline cut off."""
    from conformance import cli

    if not shutil.which("node"):
        pytest.skip("node is not installed")
    assert cli.main(["check-adapter", "cmd:node nosuch-engine.js", "--case-timeout", "30"]) == 1
    out = capsys.readouterr().out.splitlines()
    at = out.index("  FAIL  start and info()")
    assert out[at + 1].strip().startswith("ProtocolError: the engine closed its stdout (exit code 1)")
    assert out[at + 2].strip() == "--- the engine's stderr (end) ---"
    assert any("Cannot find module" in line and line.strip().startswith("|") for line in out[at + 3:])


def test_check_adapter_shows_a_fails_wrong_windows_without_pointing_at_a_report(capsys):
    from conformance import cli

    cli.main(["check-adapter", "engines/faults.py:NullEngine"])
    out = capsys.readouterr().out
    assert "see the report" not in out
    # a FAIL is about semantics, not the adapter: a note, with its first wrong windows
    assert "  note  edges.border: FAIL" in out and "  FAIL  edges.border" not in out
    assert "MISSING: the oracle reports window [0, 10) at t=10 (1 solutions)" in out


def test_check_adapter_does_not_call_a_vacuous_pass_ok(tmp_path, capsys):
    """An adapter whose profile leaves t0, tick and the end of the stream open and that answers nothing PASSes
    edges.border vacuously (t0 in [6, 9]: no window closes before its last element): a note, not an ok."""
    from conformance import cli

    (tmp_path / "silent.py").write_text(
        "from dataclasses import replace\n"
        "from engines.reference import ReferenceEngine\n"
        "class Silent(ReferenceEngine):\n"
        "    def info(self):\n"
        "        return replace(super().info(), profile={'report': ['window-close']})\n"
        "    def run(self, request):\n"
        "        return []\n", encoding="utf-8")
    cli.main(["check-adapter", f"{tmp_path / 'silent.py'}:Silent"])
    out = capsys.readouterr().out
    assert "  note  edges.border: PASS in" in out and "VACUOUS" in out and "  ok    edges.border" not in out
    assert "the engine reported nothing here" in out
