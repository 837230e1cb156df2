"""``rspconf matrix run CONFIG.yaml --out runs/``: run a configured set of engines one after another, each
with ``--report``, and keep going past an engine that crashes.

Reports land in ``OUT/<date>/<name>.json`` (the history ``rspconf matrix combine --history OUT`` reads).
An engine whose run ends without a report (a crash before pytest could write one, or the run's own
timeout) is listed as such in ``OUT/<date>/runs.json``; it is never shown as a run that passed.

Config (YAML)::

    labels: [nightly]            # stored in every report
    timeout: 1800                # seconds per engine run (the whole pytest process)
    pytest_args: ["-n", "2"]     # given to every run
    engines:
      - name: spark              # the report's file name
        engine: spark            # as --engine
        options: {mode: replay}  # --engine-option key=value
        args: ["-k", "csrbench"] # more pytest arguments for this engine
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import yaml

from conformance.corpus import datapaths
from conformance.filenames import slug
from engines.process import kill_marked, stop_group


class ConfigError(ValueError):
    pass


def _fail(path, field, what) -> ConfigError:
    return ConfigError(f"{path}: field {field}: {what}; see docs/matrix.md for the config format")


def load_config(path: Path) -> dict:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; give a matrix config (e.g. docs/examples/matrix.yaml)") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}:{line} not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict) or not isinstance(data.get("engines"), list) or not data["engines"]:
        raise _fail(path, "engines", "a non-empty list of engines is needed")
    known = {"labels", "timeout", "pytest_args", "engines"}
    for key in data:
        if key not in known:
            raise _fail(path, key, f"unknown field (known: {', '.join(sorted(known))})")
    names = set()
    for i, e in enumerate(data["engines"]):
        where = f"engines[{i}]"
        if not isinstance(e, dict) or not isinstance(e.get("engine"), str):
            raise _fail(path, where, "each engine needs 'engine' (what --engine takes)")
        extra = set(e) - {"name", "engine", "options", "args", "timeout"}
        if extra:
            raise _fail(path, f"{where}.{sorted(extra)[0]}", "unknown field (known: name, engine, options, args, timeout)")
        e.setdefault("name", e["engine"])
        if e["name"] in names:
            raise _fail(path, f"{where}.name", f"{e['name']!r} is used twice; names are the report file names")
        names.add(e["name"])
        if not isinstance(e.get("options", {}), dict):
            raise _fail(path, f"{where}.options", "a mapping of option → value")
        if not isinstance(e.get("args", []), list):
            raise _fail(path, f"{where}.args", "a list of pytest arguments")
    data.setdefault("labels", [])
    data.setdefault("timeout", 3600)
    data.setdefault("pytest_args", [])
    return data


def command(entry: dict, config: dict, report: Path) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", str(datapaths.PROJECT / "conformance"), "--engine", entry["engine"],
           "--report", str(report), "-q", "-p", "no:cacheprovider"]
    for key, value in sorted(entry.get("options", {}).items()):
        cmd += ["--engine-option", f"{key}={value}"]
    for label in config["labels"]:
        cmd += ["--label", label]
    return cmd + [str(a) for a in config["pytest_args"]] + [str(a) for a in entry.get("args", [])]


RUN_MARKER = "RSPCONF_MATRIX_RUN"  # in the environment of one engine's pytest and all it starts


def _run(cmd: list[str], timeout: float, log: Path) -> tuple[int | None, float]:
    """Run one engine's pytest in its own process group, output to ``log``; on timeout, stop the whole
    group; then kill whatever still carries this run's marker (no process left behind: an engine runs in
    a session of its own, and a pytest killed or interrupted while starting one cannot stop it)."""
    started = time.monotonic()
    token = uuid.uuid4().hex
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=datapaths.PROJECT,
                                start_new_session=True, env=dict(os.environ, **{RUN_MARKER: token}))
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            if proc.poll() is None:
                stop_group(proc, grace=20)
            kill_marked(token, RUN_MARKER)
    return code, time.monotonic() - started


def _outcome(entry: dict, report: Path, log: Path, code: int | None, seconds: float, state: str | None = None) -> dict:
    """One engine's line in runs.json: how its pytest ended and whether it left a complete report."""
    state = state or ("timeout" if code is None else ("no report" if not report.exists() else "report"))
    complete = False
    if report.exists():
        try:
            complete = json.loads(report.read_text(encoding="utf-8"))["run"].get("complete", False)
        except (json.JSONDecodeError, KeyError, OSError):
            state = "unreadable report"
    return {"name": entry["name"], "engine": entry["engine"], "exit": code, "seconds": round(seconds, 1),
            "report": str(report) if report.exists() else None, "state": state, "complete": complete, "log": str(log)}


def run(config_path: Path, out: Path, date: str | None = None, echo=print) -> int:
    """Run every engine of the config; 0 when each wrote a complete report, 1 otherwise."""
    config = load_config(config_path)
    date = date or _dt.date.today().isoformat()
    folder = Path(out) / date
    folder.mkdir(parents=True, exist_ok=True)
    outcome = []
    interrupted = None
    for entry in config["engines"]:
        report = folder / f"{slug(entry['name'])}.json"
        log = folder / f"{slug(entry['name'])}.log"
        cmd = command(entry, config, report)
        echo(f"[{entry['name']}] {' '.join(cmd[2:])}")
        try:
            code, seconds = _run(cmd, float(entry.get("timeout", config["timeout"])), log)
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the child group is stopped; say what was done
            interrupted = str(exc) or "interrupted (Ctrl-C)"
            outcome.append(_outcome(entry, report, log, None, 0.0, "interrupted"))
            break
        outcome.append(_outcome(entry, report, log, code, seconds))
        o = outcome[-1]
        echo(f"[{entry['name']}] {o['state']}{'' if o['complete'] or o['state'] != 'report' else ' (incomplete)'}, "
             f"exit {code}, {seconds:.0f} s, log {log}")
    done = {o["name"] for o in outcome}
    outcome += [{"name": e["name"], "engine": e["engine"], "exit": None, "seconds": 0.0, "report": None,
                 "state": "not run", "complete": False, "log": None} for e in config["engines"] if e["name"] not in done]
    (folder / "runs.json").write_text(json.dumps({"config": str(config_path), "runs": outcome,
                                                  "interrupted": interrupted}, indent=2) + "\n", encoding="utf-8")
    if interrupted is not None:
        raise KeyboardInterrupt(interrupted)
    bad = [o for o in outcome if not o["complete"]]
    for o in bad:
        echo(f"{o['name']}: no complete report ({o['state']}); see {o['log']}")
    return 1 if bad else 0
