"""A stand-in engine runner for the 2021 comparative study's unifying interface (tests/test_study_interface.py).

It follows the interface as the study's own runner does, read from CSPARQL-Running-Example-For-Unifying-Interface
(CSPARQLRunningExample.java, CSPARQLStreamReceiver.java, CSPARQLResultObserver.java, IO/FileServer.java,
IO/Serialization/TransferObject.java) and the benchmark's side in CSRBench-Aligned (Oracle.java,
io/DataStream.java, io/CSRBenchDataStream.java):

- GET the configuration (``{"queries": {id: text}}``) from the configuration URL;
- a stream is a line of the query matching ``>\\s+[RANGE``; its socket is 127.0.0.1 and the port of its IRI;
- read lines until the text read ends with ".\\n", parse it as Turtle, stamp every triple with the wall clock;
  400 polls of 10 ms with nothing to read end the stream;
- one answer per evaluation: ``{"queryId": id.split("-")[0], "variableBindings": [{"variableValuesAsString":
  [...]}], "memoryConsumptionInMB": …, "timestamp": <wall clock ms>}``, values as Jena prints nodes (an IRI
  bare, a literal ``"lex"^^datatype``);
- when the streams end, serve the answer list at the answers URL for 20 s, then exit.

Its window engine is its own (C-SPARQL's is not here): time windows over arrival times, closing every STEP from
half a STEP after the first arrival, evaluated with rdflib when the window holds something.  ``--wrong`` drops
the last solution of every evaluation that has one.  ``--garbage`` serves answers that are not JSON.  The
ports come from the command line, the study's defaults otherwise.
"""

import http.server
import json
import re
import select
import socket
import sys
import threading
import time
import urllib.request

from rdflib import BNode, Graph, Literal

CONFIG = "http://localhost:11111/configuration.json"
ANSWERS = "http://localhost:11112/answers.json"
UNITS = {"ms": 1, "s": 1000, "m": 60000}

args = sys.argv[1:]
config_url = args[args.index("--config") + 1] if "--config" in args else CONFIG
answers_url = args[args.index("--answers") + 1] if "--answers" in args else ANSWERS
wrong, garbage = "--wrong" in args, "--garbage" in args

answers = []
arrived = []  # (arrival ms, triple)
lock = threading.Lock()
ended = threading.Event()


def port_of(url):
    return int(url.split(":")[2].split("/")[0])


def receive(port):
    sock = socket.create_connection(("127.0.0.1", port))
    buffer = b""
    while True:
        quiet = 0
        while True:  # the study's receiver: 400 polls of 10 ms with nothing ready end the stream
            ready, _, _ = select.select([sock], [], [], 0)
            if ready:
                chunk = sock.recv(65536)
                if chunk:
                    buffer += chunk
                    now = time.time() * 1000  # stamped when read (the study's runner: when parsed)
                    break
            if quiet == 400:
                ended.set()
                return
            quiet += 1
            time.sleep(0.01)
        while b".\n" in buffer:
            cut = buffer.rindex(b".\n") + 2
            text, buffer = buffer[:cut], buffer[cut:]
            graph = Graph().parse(data=text.decode("utf-8"), format="turtle")
            with lock:
                arrived.extend((now, t) for t in graph)



def jena(node):
    if isinstance(node, Literal):
        if node.language:
            return f'"{node}"@{node.language}'
        return f'"{node}"^^{node.datatype}' if node.datatype else f'"{node}"'
    if isinstance(node, BNode):
        return f"_:{node}"
    return str(node)


def evaluate(query_id, sparql, range_ms, step_ms):
    while not arrived and not ended.is_set():
        time.sleep(0.005)
    if not arrived:
        return
    close = arrived[0][0] + step_ms / 2
    while not ended.is_set():
        time.sleep(max(0.0, (close - time.time() * 1000) / 1000))
        with lock:
            content = [t for at, t in arrived if close - range_ms <= at < close]

        if content:
            graph = Graph()
            for t in content:
                graph.add(t)
            rows = [[jena(row[v]) for v in row.labels] for row in graph.query(sparql)]
            rows.sort()
            if wrong and rows:
                rows.pop()
            answers.append({"queryId": query_id.split("-")[0],
                            "variableBindings": [{"variableValuesAsString": r} for r in rows],
                            "memoryConsumptionInMB": 12.5, "timestamp": int(time.time() * 1000)})
        close += step_ms


def register(query_id, text):
    streams, lines = [], []
    window = None
    for line in text.split("\n"):
        if re.match(r"(.)*>(\s)+\[(range|RANGE)(.)*", line):
            streams.append(re.split(r"> \[(?:range|RANGE)", line)[0].split("<")[1])
            m = re.search(r"\[RANGE\s+(\d+)(ms|s|m)\s+STEP\s+(\d+)(ms|s|m)\]", line, re.I)
            window = (int(m.group(1)) * UNITS[m.group(2)], int(m.group(3)) * UNITS[m.group(4)])
        elif not line.startswith("REGISTER"):
            lines.append(line)
    for stream in streams:
        threading.Thread(target=receive, args=(port_of(stream),), daemon=True).start()
    threading.Thread(target=evaluate, args=(query_id, "\n".join(lines), *window), daemon=True).start()


configuration = json.loads(urllib.request.urlopen(config_url).read().decode("utf-8"))
for qid, query in configuration["queries"].items():
    register(qid, query)
ended.wait()
time.sleep(0.1)
body = b"{not json" if garbage else json.dumps(answers).encode("utf-8")


class Answers(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", port_of(answers_url)), Answers)
threading.Thread(target=server.serve_forever, daemon=True).start()
print("Answers online", flush=True)
time.sleep(20)
server.shutdown()
