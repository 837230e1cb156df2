"""A protocol-1 engine with one behaviour per mode, for the harness's subprocess tests.

Modes: ok (empty windows at t0 = 0, like the reference profile), garbage (prints a log line on stdout),
crash (exits 3 on run), hang (never answers a run), unsupported, error, badinfo (start answer without
a profile), about (ok, saying its homepage, source and issue tracker), badprofile (a profile with a misspelt report condition), wrongseq; live runs: livegarbage (a log line on stdout on push), livecrash (dies on push);
badsyntax (an RSP-QL engine declaring a syntax deviation the kit does not know); escapes (an error text
with terminal escape sequences); badwindow (a report whose window closes before it opens).
Hostile modes: endless (an endless stdout line), badstdout / badstderr (bytes that are not UTF-8 on
that pipe; badstderr then answers as ok does), strayonce (after its first answer, one stray stdout line),
setsid (starts a grandchild in a session of its own that holds stdout open, then exits 1), noterm
(ignores SIGTERM and never answers a run); livehang (never answers the live command).
"""

import json
import os
import signal
import subprocess
import sys
import time

mode = sys.argv[1]
runs = 0
if mode == "noterm":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
PROFILE = {"t0": 0, "report": ["window-close"], "tick": "time-driven", "grain": "multiple", "empty": True,
           "boundary": "[o,c)", "close": ">=", "end_of_stream": "flush"}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if msg["cmd"] == "start":
        engine = {"name": f"fake-{mode}", "version": "0", "dialect": "sparql", "capabilities": ["time-window", "sliding-window", "empty-windows", "rstream"],
                  "profile": PROFILE, "alignment": "window"}
        if mode == "badinfo":
            del engine["profile"]
        if mode == "about":
            engine.update(homepage="https://engine.example/", source="https://git.example/engine",
                          issues="https://git.example/engine/issues")
        if mode == "badprofile":
            engine["profile"] = {**PROFILE, "report": ["window-closes"]}
        if mode == "badsyntax":
            engine.update(dialect="rspql", syntax=["on-stream", "sizes-in-minutes"])
        if mode.startswith("live"):
            engine["live"] = True
        send({"protocol": 1, "engine": engine})
    elif msg["cmd"] == "run":
        print(f"fake engine got case {msg['case']}", file=sys.stderr, flush=True)
        if mode == "garbage":
            print("INFO starting query evaluation", flush=True)
        elif mode == "crash":
            print("Exception in thread main: boom", file=sys.stderr, flush=True)
            sys.exit(3)
        elif mode in ("hang", "noterm"):
            time.sleep(3600)
        elif mode == "endless":
            chunk = "x" * (1 << 20)
            while True:
                sys.stdout.write(chunk)
                sys.stdout.flush()
        elif mode == "badstdout":
            sys.stdout.buffer.write(b'{"seq": %d, "reports": [], "note": "\xff\xfe"}\n' % msg["seq"])
            sys.stdout.flush()
        elif mode == "setsid":  # the grandchild leaves the process group and keeps stdout open
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "fake-grandchild"],
                             start_new_session=True)
            print("Exception: giving up", file=sys.stderr, flush=True)
            os._exit(1)
        elif mode == "unsupported":
            send({"seq": msg["seq"], "unsupported": "no windows here"})
        elif mode == "error":
            send({"seq": msg["seq"], "error": "query did not parse"})
        elif mode == "escapes":  # an error text that would overwrite the row on a terminal
            send({"seq": msg["seq"], "error": "boom\r\x1b[2K\x1b[32mseed002.fig1 PASS\x1b[0m"})
        elif mode == "halfline":
            sys.stdout.write('{"seq": 1, "repo')  # half a line, then death
            sys.stdout.flush()
            print("Segmentation fault", file=sys.stderr, flush=True)
            os._exit(139)
        elif mode == "wrongseq":
            send({"seq": msg["seq"] + 1, "reports": []})
        else:
            if mode == "badstderr":  # more than a pipe holds, none of it UTF-8
                sys.stderr.buffer.write(b"\xff\xfe log \xc3\x28\n" * 40000)
                sys.stderr.flush()
            times = [e["t"] for e in msg["elements"]]
            w = msg["window"]
            reports = []
            o = 0
            while times and o <= times[-1]:
                reports.append({"tau": o + w["range"], "window": [o, o + w["range"]], "solutions": []})
                o += w["slide"]
            if mode == "badwindow":  # a window that closes before it opens: garbage, not an extra report
                reports.append({"tau": 10000, "window": [10000, 0], "solutions": []})
            send({"seq": msg["seq"], "reports": reports})
            runs += 1
            if mode == "strayonce" and runs == 1:
                print("INFO run finished", flush=True)
    elif msg["cmd"] == "live":
        if mode == "livehang":  # never ready
            time.sleep(3600)
        send({"seq": msg["seq"], "ready": True})
    elif msg["cmd"] == "push":  # livegarbage: a log line on stdout; livecrash: dies mid-run
        if mode == "livegarbage":
            print("INFO window closed", flush=True)
        elif mode == "livecrash":
            print("OutOfMemoryError", file=sys.stderr, flush=True)
            sys.exit(3)
    elif msg["cmd"] == "end":
        send({"seq": msg["seq"], "ended": True})
    elif msg["cmd"] == "stop":
        sys.exit(0)
