"""One engine process and its pipes, with every bound the kit keeps on it.

An engine may print anything: stdout is read as bytes, line by line, each line bounded
(:data:`MAX_LINE`, ``--engine-option max_line_mb=N``) and decoded as UTF-8 strictly (a bad byte is an
error naming the line); stderr is read in bounded chunks and decoded leniently (it is the engine's log:
a bad byte there must never stall the engine on a full pipe).  The process runs in a process group and
a session of its own, and carries a marker in its environment: killing it kills the group and every
process that still carries the marker — a grandchild that called ``setsid`` included.  If the engine
itself exits while a grandchild holds its stdout open, the reader hears of the exit at once instead
of waiting for an end of file that never comes.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import signal
import subprocess
import threading
import time
import uuid
import weakref
from collections import deque

MAX_LINE = 256 * 1024 * 1024  # bytes in one stdout line (one run answer holds every report of a case)
STDERR_CHUNK = 64 * 1024  # stderr is kept as at most 200 chunks of this size
MARKER = "RSPCONF_ENGINE"  # the environment variable that marks an engine process and its descendants
_EOF = object()
_EXITED = object()


class EngineProcessError(RuntimeError):
    """Trouble with an engine process; ``stderr_tail`` holds the end of its stderr (the harness shows it)."""

    def __init__(self, message: str, stderr_tail: str = ""):
        super().__init__(message)
        self.stderr_tail = stderr_tail


class ProtocolError(EngineProcessError):
    """The engine broke the protocol (or died)."""


class _BadLine:
    """What the stdout reader found instead of a line: the words for it."""

    def __init__(self, words: str):
        self.words = words


_LIVE: "weakref.WeakSet[EngineProcess]" = weakref.WeakSet()


@atexit.register
def kill_all() -> None:
    """No engine process outlives the kit: normal end, an error, Ctrl-C (and, from the pytest plugin's
    parent watch, a killed controller)."""
    for process in list(_LIVE):
        process.kill()


def marked(token: str, variable: str = MARKER) -> list[int]:
    """The processes whose environment carries ``variable=token`` (by default this engine's marker; Linux
    /proc; elsewhere none)."""
    needle = f"{variable}={token}".encode()
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for name in entries:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue
    return found


def stop_group(proc: subprocess.Popen, grace: float) -> None:
    """Stop ``proc``'s whole process group: SIGTERM, so it can clean up (the kit's pytest takes it as Ctrl-C,
    conformance/run/signals.py), then SIGKILL after ``grace`` seconds.  Not SIGINT: a process started from
    cron, nohup or a script's background job may have inherited SIGINT ignored.  Then ``proc`` is reaped."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        if sig == signal.SIGTERM:
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def kill_marked(token: str, variable: str = MARKER) -> None:
    """SIGKILL every process still carrying ``variable=token`` (:func:`marked`): a descendant that left the
    group, e.g. one that started a session of its own."""
    for pid in marked(token, variable):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class EngineProcess:
    """One running engine process: a stdout reader thread feeding a queue, a stderr ring buffer, an
    exit watcher."""

    def __init__(self, argv: list[str], cwd: str | None = None, max_line: int = MAX_LINE, protocol: bool = True,
                 trace=None):
        """``protocol=False``: an engine that speaks over sockets (:mod:`engines.study`): no stdin, and its
        stdout is log like its stderr (one bounded ring for both).  ``trace``: an :class:`engines.trace.Trace`
        that records every line both ways."""
        self.token = uuid.uuid4().hex
        self.trace = trace
        env = dict(os.environ, **{MARKER: self.token})
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE if protocol else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE if protocol else subprocess.STDOUT,
                                     cwd=cwd, env=env, start_new_session=True)
        _LIVE.add(self)
        if trace is not None:
            trace.record(self.proc.pid, "started", argv=list(argv), **({"cwd": str(cwd)} if cwd else {}))
        self.max_line = max_line
        self.lines: queue.Queue = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=200)
        self.read = 0
        self.exited = False
        if protocol:
            threading.Thread(target=self._pump_stdout, daemon=True, name="rspconf-cmd-stdout").start()
        self._log = self.proc.stderr if protocol else self.proc.stdout
        self._stderr_thread = threading.Thread(target=self._pump_stderr, daemon=True, name="rspconf-cmd-stderr")
        self._stderr_thread.start()
        threading.Thread(target=self._watch_exit, daemon=True, name="rspconf-cmd-exit").start()

    def _pump_stdout(self) -> None:
        number = 0
        while True:
            try:
                raw = self.proc.stdout.readline(self.max_line + 1)
            except (OSError, ValueError):
                break
            if not raw:
                break
            number += 1
            if self.trace is not None:
                self.trace.received(self.proc.pid, raw[:self.max_line].decode("utf-8", "replace"))
            if len(raw) > self.max_line:
                self.lines.put(_BadLine(
                    f"stdout line {number} is longer than {self.max_line:,} bytes (the bound on one protocol "
                    "message; raise it with --engine-option max_line_mb=N if the engine's answers are that "
                    "large)"))
                return
            try:
                self.lines.put(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                self.lines.put(_BadLine(f"stdout line {number} is not UTF-8 (byte {raw[exc.start]:#04x} at "
                                        f"offset {exc.start}): {raw[:120]!r}"))
                return
        self.lines.put(_EOF)

    def _pump_stderr(self) -> None:
        while True:
            try:
                raw = self._log.readline(STDERR_CHUNK)
            except (OSError, ValueError):
                return
            if not raw:
                return
            text = raw.decode("utf-8", "replace")
            self.stderr.append(text)
            if self.trace is not None:
                self.trace.record(self.proc.pid, "stderr", line=text.rstrip("\n"))

    def _watch_exit(self) -> None:
        code = self.proc.wait()
        if self.trace is not None:
            self.trace.record(self.proc.pid, "exited", code=code)
        self.lines.put(_EXITED)

    def tail(self) -> str:
        """The end of the engine's stderr, once what it wrote before the failure has been read: all of
        it if the process exited, else until it has been quiet for 50 ms (at most 0.5 s)."""
        if self.proc.poll() is not None:
            self._stderr_thread.join(timeout=1.0)
        else:
            seen = -1
            for _ in range(10):
                if len(self.stderr) == seen:
                    break
                seen = len(self.stderr)
                time.sleep(0.05)
        return "".join(self.stderr)[-4000:]

    def send(self, message: dict) -> None:
        if self.trace is not None:
            self.trace.record(self.proc.pid, "sent", message=message)
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise ProtocolError(f"cannot write to the engine's stdin ({exc}); it exited with code "
                                f"{self.proc.poll()}", self.tail()) from None

    def _next_line(self, timeout: float | None, expected: str) -> str:
        """The next stdout line; a bad line, the end of stdout or the engine's exit is a ProtocolError."""
        while True:
            wait = timeout if not self.exited else min(0.3, timeout or 0.3)
            try:
                line = self.lines.get(timeout=wait)
            except queue.Empty:
                if self.exited:  # it exited, and whatever holds its stdout open says nothing more
                    raise ProtocolError(f"the engine exited (exit code {self.proc.returncode}) without sending a "
                                        f"{expected} message; something it started still holds its stdout",
                                        self.tail()) from None
                raise ProtocolError(f"no {expected} message within {timeout:g} s", self.tail()) from None
            if line is _EXITED:
                self.exited = True
                continue
            if line is _EOF:
                try:
                    code = self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = None
                raise ProtocolError(f"the engine closed its stdout (exit code {code}) instead of sending "
                                    f"a {expected} message", self.tail())
            if isinstance(line, _BadLine):
                raise ProtocolError(f"{line.words} — the protocol is one UTF-8 JSON object per line",
                                    self.tail())
            return line

    def leftover(self) -> str | None:
        """What the engine printed on stdout since the last message read (e.g. after its last answer), in
        words, or None: read without waiting, before the next request is sent."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return None
            if line is _EXITED or line is _EOF:
                self.exited = self.exited or line is _EXITED
                continue
            self.read += 1
            if isinstance(line, _BadLine):
                return line.words
            if line.strip():
                return f"stdout line {self.read}: {line[:200]!r}"

    def receive(self, timeout: float | None, expected: str) -> dict:
        """The next stdout line as a JSON object (blank lines are skipped)."""
        while True:
            line = self._next_line(timeout, expected)
            self.read += 1
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except json.JSONDecodeError as exc:
                try:
                    code = self.proc.wait(timeout=0.5)
                except subprocess.TimeoutExpired:
                    code = None
                died = f"; then the engine exited with code {code}" if code is not None else ""
                raise ProtocolError(f"stdout line {self.read} is not JSON ({exc.msg}): {line[:200]!r}{died} — "
                                    "stdout is for protocol messages only; log to stderr", self.tail()) from None
            if not isinstance(message, dict):
                raise ProtocolError(f"stdout line {self.read} is JSON but not an object: {line[:200]!r}",
                                    self.tail())
            return message

    def kill(self, grace: float = 0.5) -> None:
        """Kill the engine's whole process group (it may have started children of its own): SIGTERM, so it
        can clean up, then SIGKILL after ``grace`` seconds; then every process still carrying the engine's
        marker (a descendant that left the group)."""
        stop_group(self.proc, grace)
        kill_marked(self.token)
        _LIVE.discard(self)

    def stop(self, grace: float = 5.0) -> int | None:
        """Ask the engine to stop; kill it after ``grace`` seconds.  Its exit code (None if killed)."""
        if self.proc.poll() is not None:
            self.kill()  # the group may outlive its leader
            return self.proc.returncode
        try:
            self.send({"cmd": "stop"})
            self.proc.stdin.close()
            code = self.proc.wait(timeout=grace)
            self.kill()
            return code
        except (ProtocolError, OSError, subprocess.TimeoutExpired):
            self.kill()
            return None
