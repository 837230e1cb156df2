"""A protocol-1 engine that answers start, then hangs on every run and never exits on its own (it
ignores a closed stdin): only being killed ends it.  For the process-clean-up tests."""
import json
import sys
import time

for line in sys.stdin:
    msg = json.loads(line)
    if msg["cmd"] == "start":
        engine = {"name": "stubborn", "version": "0", "dialect": "sparql", "capabilities": ["time-window"],
                  "profile": {"t0": 0}, "alignment": "order"}
        print(json.dumps({"protocol": 1, "engine": engine}), flush=True)
    elif msg["cmd"] == "run":
        while True:
            time.sleep(3600)
while True:
    time.sleep(3600)
