"""Engines in any language, as processes speaking the JSON Lines protocol (``--engine 'cmd:…'``).

The protocol (spec: ``docs/protocol.md``; schema: ``conformance/schema/protocol.schema.json``): one
JSON object per line on the engine's stdin and stdout, a ``start`` request answered with the engine's
info, one ``run`` request per case answered with its reports (or ``unsupported`` / ``error``), and a
``stop``.  The harness owns time: a run that passes its timeout is cancelled by killing the process
(TIMEOUT); a crash or a line on stdout that is not a valid protocol message is an ERROR carrying the
tail of the engine's stderr; the next run starts a fresh process.  The command line is split with
:func:`shlex.split` and run without a shell.
"""

from __future__ import annotations

import queue
import shlex
import threading
from pathlib import Path

import jsonschema

import conformance.schema as schemas
from engines import jsonl
from engines.contract import EngineInfo, LiveUnsupported, RunRequest, Unsupported
from engines.process import MAX_LINE, EngineProcess, EngineProcessError, ProtocolError
from engines.trace import Trace
from oracle.model import ObservedReport

PROTOCOL = 1
ABOUT = ("homepage", "source", "issues")  # what a start answer may say of the engine itself
START_TIMEOUT = 60.0


class EngineError(EngineProcessError):
    """The engine answered a run with an ``error`` message."""


def problems(message, kind: str) -> list[str]:
    """Schema violations of one message of ``kind`` (a ``$defs`` name), as readable strings."""
    definition = {"$ref": f"#/$defs/{kind}", "$defs": schemas.schema("protocol")["$defs"]}
    out = []
    for err in sorted(jsonschema.Draft202012Validator(definition).iter_errors(message), key=lambda e: list(e.path)):
        where = "/".join(str(p) for p in err.path) or "(message)"
        out.append(f"{where}: {err.message}")
    return out


def window_message(window) -> dict:
    """The request's window: {range, slide} (ms), {count, slide} (units), {validity, every} (the instants
    of time-annotated data) or {windows, instants} (several named windows)."""
    if hasattr(window, "windows"):  # several named windows (RSP-QL); instants only when the case states them
        named = [{"name": w.name, "stream": w.stream, **({"count": w.count} if w.count is not None else {"range": w.range}),
                  "slide": w.slide} for w in window.windows]
        return {"windows": named, **({"instants": window.instants_message()} if window.instants is not None else {}),
                **({"merged": True} if window.merged else {})}
    if hasattr(window, "count"):
        return {"count": window.count, "slide": window.slide}
    if hasattr(window, "every"):  # time-annotated data: the instants, not a window
        return {"validity": "data-driven"} if window.every is None else {"validity": "periodic", "every": window.every}
    return {"range": window.range, "slide": window.slide}


def line(triple) -> str:
    """A triple as an N-Triples line."""
    s, p, o = triple
    return f"{s.n3()} {p.n3()} {o.n3()} ."


def element_message(e) -> dict:
    """One element; a fact of time-annotated data also says when its validity ends (``until``/``expires``)."""
    out = {"t": e.t, "triples": [line(t) for t in e.triples]}
    if e.until is not None:
        out["until"] = e.until
    if e.expires is not None:
        out["expires"] = e.expires
    if e.stream is not None:
        out["stream"] = e.stream
    return out


def request_message(seq: int, request: RunRequest) -> dict:
    """The ``run`` message for one case: elements as N-Triples lines, times in ms."""
    return {
        "cmd": "run", "seq": seq, "case": request.case_id, "query": request.query_text, "r2r": request.r2r,
        "stream_iri": request.stream_iri,
        "window": window_message(request.window), "r2s": request.r2s,
        "elements": [element_message(e) for e in request.stream.elements],
        "static": [line(t) for t in request.stream.static],
        **({"semantics": request.semantics} if request.semantics else {}),
    }


def reports_from(message: dict) -> list[ObservedReport]:
    """The run answer's reports; one that is garbage is a protocol error naming the report and the field."""
    out = []
    for i, report in enumerate(message["reports"]):
        try:
            out.append(jsonl.parse_report(report))
        except jsonl.BadReport as exc:
            raise ProtocolError(f"report {i} of the run answer: {exc}") from None
    return out


class CommandEngine:
    """An adapter for an engine process (see the module docstring)."""

    def __init__(self, command: str, cwd: str | None = None, start_timeout: float | str = START_TIMEOUT,
                 expectations: str | None = None, max_line_mb: float | str | None = None, trace: str | None = None):
        """``trace``: a file to append every protocol line to, both ways (:mod:`engines.trace`;
        ``--engine-trace FILE``)."""
        self.argv = shlex.split(command)
        self.max_line = int(float(max_line_mb) * 1024 * 1024) if max_line_mb is not None else MAX_LINE
        if self.max_line <= 0:
            raise ValueError(f"max_line_mb must be a positive number of MiB, got {max_line_mb!r}")
        self.expectations = Path(expectations) if expectations else None
        if not self.argv:
            raise ValueError("cmd: needs a command line, e.g. cmd:'node engine.js'")
        self.cwd = cwd
        self.start_timeout = float(start_timeout)
        self.process: EngineProcess | None = None
        self._info: EngineInfo | None = None
        self.seq = 0
        self._lock = threading.Lock()
        self._notes: dict[str, list[str]] = {}
        self.trace = Trace(trace) if trace else None

    def notes_for(self, case_id: str) -> list[str]:
        """What the kit saw of the engine around a case's run that is not in its answer (shown beside the verdict)."""
        return self._notes.get(case_id, [])

    # -- process life -----------------------------------------------------------------------------
    def _started(self) -> EngineProcess:
        if self.process is not None and self.process.proc.poll() is None:
            return self.process
        try:
            process = EngineProcess(self.argv, self.cwd, self.max_line, trace=self.trace)
        except FileNotFoundError:
            raise ProtocolError(f"cannot start {self.argv[0]!r}: no such program (is it installed and on PATH?)") from None
        try:
            try:
                process.send({"cmd": "start", "protocol": PROTOCOL})
            except ProtocolError:
                process.receive(2.0, "start answer")  # it exited at once: say what it printed, if anything
                raise
            hello = process.receive(self.start_timeout, "start answer")
        except ProtocolError as exc:
            process.kill()
            if "within" in str(exc):
                raise ProtocolError(f"{exc} (raise it with --engine-option start_timeout=SECONDS)", exc.stderr_tail) from None
            raise
        found = problems(hello, "started")
        if found:
            process.kill()
            raise ProtocolError("the start answer breaks the protocol: " + "; ".join(found), process.tail())
        if hello["protocol"] != PROTOCOL:
            process.kill()
            raise ProtocolError(f"the engine speaks protocol {hello['protocol']}, the kit {PROTOCOL}", process.tail())
        e = hello["engine"]
        self._info = EngineInfo(name=e["name"], version=e["version"], dialect=e["dialect"],
                                capabilities=frozenset(e["capabilities"]), profile=e["profile"],
                                alignment=e.get("alignment", "order"),
                                expectations=self.expectations, syntax=tuple(e.get("syntax", ())),
                                about={k: e[k] for k in ABOUT if k in e},
                                extra={"command": self.argv, "live": bool(e.get("live"))})
        self.process = process
        return process

    def info(self) -> EngineInfo:
        with self._lock:
            self._started()
        return self._info

    def run(self, request: RunRequest) -> list[ObservedReport]:
        with self._lock:
            process = self._started()
            stray = process.leftover()
            if stray is not None:  # printed after the last answer: not this case's, and the pipe is not in step
                self._notes[request.case_id] = [
                    f"before this case the engine printed {stray} after its previous answer (stdout is for "
                    "protocol messages only); it was restarted, and this case ran on a fresh engine"]
                process.kill()
                self.process = None
                process = self._started()
            self.seq += 1
            seq = self.seq
        try:
            process.send(request_message(seq, request))
            answer = process.receive(None, "run answer")
            found = problems(answer, "answer")
            if found:
                raise ProtocolError("the run answer breaks the protocol: " + "; ".join(found[:5]), process.tail())
            if answer["seq"] != seq:
                raise ProtocolError(f"the run answer has seq {answer['seq']}, the request had {seq}", process.tail())
        except ProtocolError:
            self._discard(process)  # one case's fault stays in that case: the next run starts a fresh engine
            raise
        if "unsupported" in answer:
            raise Unsupported(answer["unsupported"])
        if "error" in answer:
            raise EngineError(f"the engine reported an error: {answer['error']}", process.tail())
        return reports_from(answer)

    def live(self, request: RunRequest, emit) -> "CommandLive":
        """A live run over the protocol (docs/protocol.md, Live mode), if the engine declares ``live``."""
        with self._lock:
            process = self._started()
            if not self._info.extra.get("live"):
                raise LiveUnsupported('the engine\'s start answer does not declare "live": true (docs/protocol.md)')
            self.seq += 1
            seq = self.seq
        return CommandLive(process, seq, request, emit)

    def _discard(self, process: EngineProcess) -> None:
        """After a protocol error nothing later on the pipe can be trusted: the process goes."""
        process.kill()
        with self._lock:
            if self.process is process:
                self.process = None

    def cancel(self) -> None:
        """Timeout: kill the process (the waiting run then fails; the next run starts a fresh one)."""
        if self.process is not None:
            self.process.kill()

    def close(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None
        if self.trace is not None:
            self.trace.close()


class CommandLive:
    """One live run over the protocol: ``live`` (answered ``ready``), then ``push`` messages written by a
    thread of their own (so the feeder never waits on a pipe), reports read as they come and handed to
    ``emit``, and ``end`` (answered ``ended`` once every report is sent).  A broken message, a crash or
    an ``error`` ends the run with that error, raised by :meth:`end`."""

    def __init__(self, process: EngineProcess, seq: int, request: RunRequest, emit):
        self.process, self.seq, self.emit = process, seq, emit
        self.pid = process.proc.pid
        message = request_message(seq, request)
        message.update(cmd="live", elements=[])
        process.send(message)
        first = self._message(process.receive(None, "live answer"))  # bounded by the run's timeout (conformance/load/live.py)
        if "unsupported" in first:
            raise LiveUnsupported(first["unsupported"])
        if "error" in first:
            raise EngineError(f"the engine reported an error: {first['error']}", process.tail())
        if "ready" not in first:
            raise ProtocolError(f"the engine answered the live command with {sorted(first)}, not ready", process.tail())
        self.outbox: queue.Queue = queue.Queue()
        self.ended = threading.Event()
        self.error: Exception | None = None
        threading.Thread(target=self._write, daemon=True, name="rspconf-live-push").start()
        threading.Thread(target=self._read, daemon=True, name="rspconf-live-reports").start()

    def _message(self, message: dict) -> dict:
        found = problems(message, "live_message")
        if found:
            raise ProtocolError("a live message breaks the protocol: " + "; ".join(found[:5]), self.process.tail())
        if message["seq"] != self.seq:
            raise ProtocolError(f"a live message has seq {message['seq']}, the live run is {self.seq}", self.process.tail())
        return message

    def _write(self) -> None:
        while True:
            message = self.outbox.get()
            try:
                self.process.send(message)
            except ProtocolError as exc:
                self._fail(exc)
                return
            if message["cmd"] == "end":
                return

    def _read(self) -> None:
        try:
            while True:
                message = self._message(self.process.receive(None, "live report"))
                if "report" in message:
                    self.emit(jsonl.parse_report(message["report"]))
                elif "ended" in message:
                    self.ended.set()
                    return
                elif "error" in message:
                    raise EngineError(f"the engine reported an error: {message['error']}", self.process.tail())
                else:
                    raise ProtocolError(f"unexpected live message {sorted(message)} during the run", self.process.tail())
        except Exception as exc:  # noqa: BLE001 - raised again by end()
            self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        if self.error is None:
            self.error = exc
        self.ended.set()

    def push(self, t: int, elements: list) -> None:
        self.outbox.put({"cmd": "push", "seq": self.seq, "t": t, "elements": [element_message(e) for e in elements]})

    def end(self) -> None:
        self.outbox.put({"cmd": "end", "seq": self.seq})
        self.ended.wait()
        if self.error is not None:
            raise self.error

    def cancel(self) -> None:
        self.process.kill()
        self._fail(ProtocolError("the live run was cancelled (timeout)"))
