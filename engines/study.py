"""Engines wrapped for the 2021 comparative study's unifying interface (``--engine 'study:…'``).

The study ("A Comparative Study of Stream Reasoning Engines", ESWC 2023; the repositories under
Comparative-Research-in-StreamReasoning on GitHub) put C-SPARQL, C-SPARQL 2.0, RDFox and YASPER behind one
interface, with the benchmark on one side and an engine's runner on the other.  This adapter is the
benchmark's side; an engine's runner written for the study runs unchanged:

1. the kit serves ``{"queries": {"q1": <query text>}}`` at ``http://localhost:11111/configuration.json``;
2. the runner finds each stream in the query by its IRI, ``http://localhost:<port>/…``, and connects a TCP
   socket to 127.0.0.1:<port>; once every stream has a reader, the kit sends each element's triples as
   N-Triples lines at the element's time, in wall-clock time from the first element (the engine stamps
   what it reads with its own clock), then, one window range after the last element, closes the sockets;
3. the runner serves its answers at ``http://localhost:11112/answers.json``: a JSON list of
   ``{"queryId", "variableBindings": [{"variableValuesAsString": [...]}], "memoryConsumptionInMB",
   "timestamp"}``, one per evaluation, values in the order of the query's projection; the kit reads it as
   soon as it is served.

Each stream of the case is named in the query by the loopback IRI of the socket that serves it (the
interface finds a stream that way; nothing else in the query changes), and every verdict carries a note
saying so.  A report's time is the engine's ``timestamp`` read on the stream's clock (the first element's
time plus the wall-clock milliseconds since it was sent); those are the engine's own times, so reports are
paired by order.  Only loopback addresses are used.  See docs/adding-an-engine.md.
"""

from __future__ import annotations

import http.server
import json
import re
import shlex
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from rdflib import BNode, Literal, URIRef
from rdflib.plugins.sparql import prepareQuery

from engines.contract import EngineInfo, RunRequest, Unsupported
from engines.process import MAX_LINE, EngineProcess, EngineProcessError
from engines.yamlfile import checked_yaml
from oracle.model import ObservedReport

QUERY_ID = "q1"
#: the ports of the study's code (Oracle.java; the C-SPARQL runner hard-codes the first two)
CONFIG_PORT, ANSWERS_PORT, STREAM_PORT = 11111, 11112, 12345
#: C-SPARQL's profile as the study configured it (windowclose, nonemptycontent, emptyrelation, RStream); the
#: wall clock runs on after the last element (the kit waits a window range), so its windows close: flush
STUDY_PROFILE = {"t0": "any", "report": ["window-close", "non-empty-content"], "tick": "time-driven",
                 "empty": True, "r2s": "rstream", "end_of_stream": "flush"}
#: what the CSRBench queries of the study need
STUDY_CAPABILITIES = ("time-window", "sliding-window", "filter", "aggregates", "joins-across-time", "empty-windows")
#: Jena writes a few datatypes with the standard prefixes when it prints a literal
PREFIXES = {"xsd:": "http://www.w3.org/2001/XMLSchema#", "rdf:": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
            "rdfs:": "http://www.w3.org/2000/01/rdf-schema#", "owl:": "http://www.w3.org/2002/07/owl#"}
_LITERAL = re.compile(r'"(?P<lex>(?:[^"\\]|\\.)*)"(?:@(?P<lang>[A-Za-z0-9-]+)|\^\^<?(?P<dt>[^<>\s]+?)>?)?$', re.S)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+$")


class StudyError(EngineProcessError):
    """The engine (or the machine) broke the study's interface; the message says where and what to do."""


def term(value: str, where: str):
    """One answer value as the study's runners print it (Jena's strings: an IRI bare or in ``<>``,
    ``"lex"^^datatype``, ``"lex"@lang``, ``_:label``) as an RDF term; anything else is :class:`StudyError`."""
    if not isinstance(value, str):
        raise StudyError(f"{where}: {value!r} is not a string")
    text = value.strip()
    if text.startswith("<") and text.endswith(">"):
        return URIRef(text[1:-1])
    if text.startswith("_:"):
        return BNode(text[2:])
    m = _LITERAL.match(text)
    if m:
        lex = m.group("lex").encode("utf-8").decode("unicode_escape") if "\\" in m.group("lex") else m.group("lex")
        if m.group("lang"):
            return Literal(lex, lang=m.group("lang"), normalize=False)
        dt = m.group("dt")
        for prefix, iri in PREFIXES.items():
            if dt and dt.startswith(prefix):
                dt = iri + dt[len(prefix):]
        return Literal(lex, datatype=URIRef(dt) if dt else None, normalize=False)
    if _SCHEME.match(text):
        return URIRef(text)
    raise StudyError(f"{where}: {value[:120]!r} is not an RDF term (the kit reads an IRI, \"lexical\"^^datatype, "
                     "\"lexical\"@lang or _:label)")


def projection(r2r: str) -> list[str]:
    """The variables an answer's values stand for, in order: the query's projection, or for ``SELECT *``
    the variables in the order they first appear (Jena's order, which the study's runners print)."""
    try:
        algebra = prepareQuery(r2r).algebra
    except Exception as exc:  # noqa: BLE001 - rdflib's parse errors have no common base
        raise StudyError(f"cannot read the query's projection, which the answers' values follow: {exc}") from None
    if algebra.name != "SelectQuery":
        raise Unsupported("the study's interface carries variable bindings only (no ASK or CONSTRUCT answers)")
    if not re.search(r"SELECT\s+(DISTINCT\s+|REDUCED\s+)?\*", r2r, re.I):
        return [str(v) for v in algebra["PV"]]
    seen: list[str] = []
    body = r2r[re.search(r"\bWHERE\b|\{", r2r, re.I).start():]
    for name in re.findall(r"[?$]([A-Za-z0-9_]+)", body):
        if name not in seen:
            seen.append(name)
    return seen


def _answers(data, variables: list[str], query_id: str) -> tuple[list[tuple[int, list[dict], float | None]], list[str]]:
    """The answer list's evaluations of our query: (timestamp, rows, memory MB); and the query ids it had
    that are not ours.  A malformed answer is :class:`StudyError` naming the item and the field."""
    if not isinstance(data, list):
        raise StudyError(f"answers.json is a JSON {type(data).__name__}, not a list of answers (the study's "
                         "TransferObject list)")
    out, others = [], []
    for i, item in enumerate(data):
        where = f"answers.json item {i}"
        if not isinstance(item, dict):
            raise StudyError(f"{where} is not an object")
        qid, stamp = item.get("queryId"), item.get("timestamp")
        if not isinstance(qid, str):
            raise StudyError(f"{where}: field queryId is missing or not a string")
        if qid.split("-")[0] != query_id:
            others.append(qid)
            continue
        if not isinstance(stamp, int) or isinstance(stamp, bool):
            raise StudyError(f"{where}: field timestamp is {stamp!r}, not the engine's clock in milliseconds")
        bindings = item.get("variableBindings", [])
        if not isinstance(bindings, list):
            raise StudyError(f"{where}: field variableBindings is not a list")
        rows = []
        for j, binding in enumerate(bindings):
            values = binding.get("variableValuesAsString") if isinstance(binding, dict) else None
            if not isinstance(values, list):
                raise StudyError(f"{where}: variableBindings[{j}].variableValuesAsString is missing or not a list")
            if len(values) != len(variables):
                raise StudyError(f"{where}: variableBindings[{j}] has {len(values)} values; the query projects "
                                 f"{len(variables)} ({', '.join('?' + v for v in variables)})")
            rows.append({v: term(x, f"{where}: variableBindings[{j}] value {k} (?{v})")
                         for k, (v, x) in enumerate(zip(variables, values)) if x is not None})
        memory = item.get("memoryConsumptionInMB")
        out.append((stamp, rows, memory if isinstance(memory, (int, float)) and not isinstance(memory, bool) else None))
    return out, others


class _Config(http.server.BaseHTTPRequestHandler):
    """Serves the configuration at /configuration.json (and nothing else)."""

    body = b""

    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path.split("?")[0] != "/configuration.json":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


def _in_use(port: int, what: str, exc: OSError) -> StudyError:
    return StudyError(f"cannot listen on 127.0.0.1:{port} for {what} ({exc.strerror}): another run of the study's "
                      "interface, or something else, has it; give other ports with --engine-option config_port=N / "
                      "answers_port=N / stream_port=N (the engine's runner must use the same)")


def _listen(port: int, what: str) -> socket.socket:
    try:
        return socket.create_server(("127.0.0.1", port))
    except OSError as exc:
        raise _in_use(port, what, exc) from None


class _StreamSocket:
    """One stream's server socket: accepts readers (the study's DataStream keeps every one) and writes lines."""

    def __init__(self, port: int):
        self.port = port
        self.server = _listen(port, "a stream")
        self.readers: list[socket.socket] = []
        self.connected = threading.Event()
        self.lost: list[str] = []
        threading.Thread(target=self._accept, daemon=True, name=f"rspconf-study-{port}").start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.readers.append(conn)
            self.connected.set()

    def send(self, text: str) -> None:
        data = text.encode("utf-8")
        for conn in list(self.readers):
            try:
                conn.sendall(data)
            except OSError as exc:
                self.readers.remove(conn)
                self.lost.append(f"the engine's reader of the stream on port {self.port} went away ({exc})")

    def close(self) -> None:
        for s in [self.server, *self.readers]:
            try:
                s.close()
            except OSError:
                pass


class StudyEngine:
    """An engine's runner written for the study's interface, started as a command line (see the module
    docstring).  Options: ``name``, ``version``, ``dialect`` (csparql or rspql: the language the runner
    expects in the configuration), ``profile`` (a YAML file with the engine's profile; else C-SPARQL's as
    the study configured it), ``capabilities`` (comma-separated), ``expectations``, ``cwd``, the three
    ports, ``connect_timeout`` (seconds the runner has to read the configuration and connect)."""

    def __init__(self, command: str, name: str | None = None, version: str = "unknown", dialect: str = "csparql",
                 profile: str | None = None, capabilities: str | None = None, expectations: str | None = None,
                 cwd: str | None = None, config_port: int | str = CONFIG_PORT, answers_port: int | str = ANSWERS_PORT,
                 stream_port: int | str = STREAM_PORT, connect_timeout: float | str = 60.0,
                 max_line_mb: float | str | None = None):
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("study: needs the command line of the engine's runner, e.g. study:'java -jar runner.jar'")
        if dialect not in ("csparql", "rspql"):
            raise ValueError(f"dialect {dialect!r}: the study's configuration carries csparql or rspql queries")
        self.ports = {"config_port": int(config_port), "answers_port": int(answers_port), "stream_port": int(stream_port)}
        if len(set(self.ports.values())) != 3:
            raise ValueError(f"the three ports must differ: {self.ports}")
        declared = STUDY_PROFILE
        if profile:
            declared = checked_yaml(Path(profile), None, ValueError, "the profile file")
            if not isinstance(declared, dict):
                raise ValueError(f"{profile}: a profile is a mapping (t0, report, tick, empty, r2s, …)")
        self._info = EngineInfo(
            name=name or f"study:{Path(self.argv[-1]).name}", version=str(version), dialect=dialect,
            capabilities=frozenset(c.strip() for c in capabilities.split(",") if c.strip()) if capabilities
            else frozenset(STUDY_CAPABILITIES),
            profile=declared, alignment="order", expectations=Path(expectations) if expectations else None,
            extra={"command": self.argv, "interface": "study-2021"})
        self.cwd = cwd
        self.connect_timeout = float(connect_timeout)
        self.max_bytes = int(float(max_line_mb) * 1024 * 1024) if max_line_mb is not None else MAX_LINE
        self._cancelled = threading.Event()
        self._open: list = []
        self._notes: dict[str, list[str]] = {}
        self.markers: list[str] = []  # each runner's process marker (engines/process.py): what a kill must reach

    def info(self) -> EngineInfo:
        return self._info

    def notes_for(self, case_id: str) -> list[str]:
        return self._notes.get(case_id, [])

    # -- one run ---------------------------------------------------------------------------------------
    def run(self, request: RunRequest) -> list[ObservedReport]:
        if hasattr(request.window, "every"):
            raise Unsupported("the study's interface streams graphs; it has no time-annotated facts")
        if request.stream.static:
            raise Unsupported("the study's runners read no static data through the interface")
        variables = projection(request.r2r)
        elements = sorted(request.stream.elements, key=lambda e: e.t)
        iris = [request.stream_iri] + sorted({e.stream for e in elements if e.stream and e.stream != request.stream_iri})
        names = {iri: f"http://localhost:{self.ports['stream_port'] + i}/rspconf/stream{i + 1}" for i, iri in enumerate(iris)}
        text = request.query_text
        for iri, name in names.items():
            text = text.replace(f"<{iri}>", f"<{name}>")
        notes = [f"study interface: stream <{iri}> named <{names[iri]}> in the query (a runner finds its socket "
                 "by that port)" for iri in iris]
        self._notes[request.case_id] = notes
        self._cancelled.clear()
        handler = type("Config", (_Config,), {"body": json.dumps({"queries": {QUERY_ID: text}}).encode("utf-8")})
        try:
            config = http.server.ThreadingHTTPServer(("127.0.0.1", self.ports["config_port"]), handler)
        except OSError as exc:
            raise _in_use(self.ports["config_port"], "the configuration", exc) from None
        serving, streams, process = False, {}, None
        try:
            for i, iri in enumerate(iris):
                streams[iri] = _StreamSocket(self.ports["stream_port"] + i)
            threading.Thread(target=config.serve_forever, daemon=True, name="rspconf-study-config").start()
            serving = True
            try:
                process = EngineProcess(self.argv, self.cwd, protocol=False)
            except FileNotFoundError:
                raise StudyError(f"cannot start {self.argv[0]!r}: no such program (is it installed and on PATH?)") from None
            self.markers.append(process.token)
            self._open = [*streams.values(), process]
            self._await_readers(process, streams)
            t0_wall, first = self._send(request, elements, streams)
            for s in streams.values():
                s.close()
                notes.extend(s.lost)
            data = self._fetch_answers(process)

        finally:
            if serving:
                config.shutdown()
            config.server_close()
            for s in streams.values():
                s.close()
            if process is not None:
                process.kill()
            self._open = []
        found, others = _answers(data, variables, QUERY_ID)
        if others:
            notes.append(f"answers for other query ids were ignored: {', '.join(sorted(set(others)))}")
        memory = [m for _, _, m in found if m is not None]
        if memory:
            notes.append(f"memory the engine reported: at most {max(memory):.1f} MB")  # the study's own measure
        return [ObservedReport(rows, tau=first + (stamp - t0_wall)) for stamp, rows, _ in found]

    def _check(self, process: EngineProcess, doing: str) -> None:
        if self._cancelled.is_set():
            raise StudyError(f"the run was cancelled while {doing}")
        if process.proc.poll() is not None:
            raise StudyError(f"the engine exited (exit code {process.proc.returncode}) while {doing}", process.tail())

    def _await_readers(self, process: EngineProcess, streams: dict) -> None:
        deadline = time.monotonic() + self.connect_timeout
        while not all(s.connected.is_set() for s in streams.values()):
            self._check(process, "the kit waited for it to read the configuration and connect to the stream sockets")
            if time.monotonic() > deadline:
                missing = ", ".join(f"127.0.0.1:{s.port}" for s in streams.values() if not s.connected.is_set())
                raise StudyError(f"the engine did not connect to the stream socket(s) {missing} within "
                                 f"{self.connect_timeout:g} s of its start (it reads the configuration at "
                                 f"http://localhost:{self.ports['config_port']}/configuration.json, then connects to the "
                                 "port of each stream IRI in the query; raise --engine-option connect_timeout=SECONDS "
                                 "if it starts slowly)", process.tail())
            self._cancelled.wait(0.05)

    def _send(self, request: RunRequest, elements: list, streams: dict) -> tuple[float, int]:
        """Each element's triples at its time, from the first element on, in wall-clock time; then one window
        range of quiet so every window holding the last element closes.  (The wall-clock ms of the first
        element, its stream time.)"""
        first = elements[0].t if elements else 0
        t0_mono, t0_wall = time.monotonic(), time.time() * 1000
        i = 0
        while i < len(elements):
            t = elements[i].t
            batch: dict[str, list[str]] = {}
            while i < len(elements) and elements[i].t == t:
                e = elements[i]
                batch.setdefault(e.stream or request.stream_iri, []).extend(
                    f"{s.n3()} {p.n3()} {o.n3()} .\n" for s, p, o in e.triples)
                i += 1
            if self._cancelled.wait(max(0.0, t0_mono + (t - first) / 1000 - time.monotonic())):
                raise StudyError("the run was cancelled while the kit was streaming")
            for iri, lines in batch.items():
                streams[iri].send("".join(lines))
        window = request.window
        ranges = [w.range for w in window.windows if w.range] if hasattr(window, "windows") else [getattr(window, "range", 0)]
        quiet = max([r or 0 for r in ranges] + [0])
        last = elements[-1].t if elements else first
        if self._cancelled.wait(max(0.0, t0_mono + (last - first + quiet) / 1000 - time.monotonic())):
            raise StudyError("the run was cancelled while the kit was streaming")
        return t0_wall, first

    def _fetch_answers(self, process: EngineProcess):
        """The answer list, read as soon as the runner serves it (it decides when the stream has ended)."""
        url = f"http://127.0.0.1:{self.ports['answers_port']}/answers.json"
        while True:
            self._check(process, f"the kit waited for its answers at {url}")
            try:
                with urllib.request.urlopen(url, timeout=5) as answer:
                    body = answer.read(self.max_bytes + 1)
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                self._cancelled.wait(0.2)
                continue
            if len(body) > self.max_bytes:
                raise StudyError(f"{url} is longer than {self.max_bytes:,} bytes (raise it with --engine-option "
                                 "max_line_mb=N)", process.tail())
            try:
                return json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise StudyError(f"{url} is not UTF-8 JSON ({exc}): {body[:200]!r}", process.tail()) from None

    def cancel(self) -> None:
        """Timeout: stop streaming and waiting, and kill the runner."""
        self._cancelled.set()
        for thing in list(self._open):
            if isinstance(thing, EngineProcess):
                thing.kill()
            elif isinstance(thing, _StreamSocket):
                thing.close()

    def close(self) -> None:
        pass
