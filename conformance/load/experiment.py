"""Load experiments (YABench's, seed 000): live runs at given loads, repeated, judged window by window.

An experiment config (YAML, schema ``conformance/schema/experiment.schema.json``) names corpus cases —
each case is one load: its stream (e.g. YABench's generator at some number of stations), its query and
window — and how to feed them: ``speed`` (application time per wall-clock time), ``repeat``,
``heartbeat``, ``sample`` (the resource sampling period) and a ``timeout`` per run.  For each load and
repetition, :func:`conformance.load.live.run_live` feeds the stream in wall-clock time, the oracle judges
the reports as in any run, and the report keeps per window: status, precision, recall, **delay** and
result sizes; per run: the feeder's lateness, CPU and memory over time, dropped and duplicated reports.
With repetitions, each window's spread (min / median / max).  ``docs/load.md`` tells the whole story.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import jsonschema

from conformance import schema as schemas
from conformance.load import plots as loadplots
from conformance.load.live import NotReady, delays, run_live
from conformance.run.harness import judge, request_for
from engines.contract import Unsupported
from engines.yamlfile import checked_yaml
from oracle.durations import parse_duration
from oracle.judge.words import reason


class ExperimentError(ValueError):
    """A config that cannot be used: the message names the file and the field."""


@dataclass(frozen=True)
class Experiment:
    name: str
    loads: tuple[str, ...]
    speed: float = 1.0
    repeat: int = 1
    heartbeat: float = 0.1
    sample: float = 1.0
    timeout: float = 600.0
    description: str = ""
    source: str = ""
    options: dict = field(default_factory=dict)


def read_experiment(path: Path) -> Experiment:
    data = checked_yaml(path, schemas.path("experiment"), ExperimentError, "the experiment config", see="docs/load.md")

    def seconds(key: str, default: float) -> float:
        if key not in data:
            return default
        try:
            value = parse_duration(data[key]) / 1000.0
        except ValueError as exc:
            raise ExperimentError(f"{path}: field {key}: {exc}") from None
        if value <= 0:  # a zero heartbeat would have the feeder push every millisecond, flat out
            raise ExperimentError(f"{path}: field {key}: {data[key]!r} is no period; give a duration above zero "
                                  f"(default {default * 1000:g}ms)")
        return value
    return Experiment(name=data["name"], loads=tuple(data["loads"]), speed=float(data.get("speed", 1.0)),
                      repeat=int(data.get("repeat", 1)), heartbeat=seconds("heartbeat", 0.1),
                      sample=seconds("sample", 1.0), timeout=seconds("timeout", 600.0),
                      description=data.get("description", ""), source=data.get("source", ""))


def seconds_as_ms(x: float | None) -> float | None:
    return None if x is None else round(x * 1000, 1)


def run_once(case, adapter, info, experiment: Experiment) -> dict:
    """One live run of one load, judged: the run's part of the report."""

    stream = case.load_stream()
    request = request_for(case, info, stream)
    live = run_live(adapter, request, experiment.speed, experiment.heartbeat, experiment.sample, experiment.timeout)
    verdict = judge(case, info, stream, live.reports, gracious=False)
    seen: set = set()
    duplicated = 0
    for r in live.reports:
        key = r.window if r.window is not None else r.tau
        duplicated += key in seen and key is not None
        seen.add(key)
    windows = []
    for i, (w, d) in enumerate(zip(verdict.best.windows, delays(verdict, live.feed))):
        windows.append({"index": i, "status": w.status,
                        "open": w.expected.opening if w.expected else None,
                        "close": w.expected.closing if w.expected else None,
                        "precision": w.precision, "recall": w.recall, "delay_ms": seconds_as_ms(d),
                        "expected_size": w.expected_size, "actual_size": w.actual_size})
    return {"verdict": verdict.verdict, "reason": reason(verdict), "feed": live.feed.summary(),
            "timed_out": live.timed_out,
            "end_ms": seconds_as_ms(live.end_seconds), "reports": len(live.reports),
            "missing_reports": sum(w["status"] == "MISSING" for w in windows),
            "extra_reports": sum(w["status"] == "EXTRA" for w in windows),
            "duplicated_reports": duplicated, "windows": windows, "samples": live.samples}


def by_window(runs: list[dict], key: str) -> list[list]:
    """Per expected window (by its borders, ascending; a report the oracle did not expect has none and is
    left out), the values of ``key`` over the repetitions, None dropped."""
    borders = sorted({(w["open"], w["close"]) for r in runs for w in r["windows"] if w["open"] is not None})
    order = {b: i for i, b in enumerate(borders)}
    out: list[list] = [[] for _ in order]
    for r in runs:
        for w in r["windows"]:
            if w["open"] is not None and w[key] is not None:
                out[order[(w["open"], w["close"])]].append(w[key])
    return out


def spread(runs: list[dict]) -> list[dict]:
    """Per expected window, over the repetitions: min / median / max of delay, precision, recall, size."""
    borders = sorted({(w["open"], w["close"], w["expected_size"]) for r in runs for w in r["windows"]
                      if w["open"] is not None})
    columns = {key: by_window(runs, key) for key in ("delay_ms", "precision", "recall", "actual_size")}
    out = []
    for i, (o, c, size) in enumerate(borders):
        row: dict = {"index": i, "open": o, "close": c, "expected_size": size}
        for key, values in columns.items():
            v = values[i]
            row[key] = {"min": min(v), "median": statistics.median(v), "max": max(v), "n": len(v)} if v else None
        out.append(row)
    return out


def stderr_end(exc: Exception, lines: int = 3) -> str:
    """The engine's own account of why it died, from the stderr tail ``exc`` carries, as words to append to
    the reason: the last line that names an error (``FATAL ERROR: … heap out of memory``, an exception) and the
    lines after it, at most ``lines``, else the last lines (a native stack trace says less than its
    headline); '' when there is no tail."""
    tail = [line.strip() for line in (getattr(exc, "stderr_tail", "") or "").splitlines() if line.strip()]
    if not tail:
        return ""
    named = [i for i, line in enumerate(tail)  # a headline, not a stack frame ("7: 0x… Abort()", "at f (x.js:1)")
             if re.search(r"error|exception|fatal", line, re.I) and not re.match(r"(\d+: 0x|at )", line)]
    shown = tail[named[-1]:named[-1] + lines] if named else tail[-lines:]
    return f" — the engine's stderr: {' | '.join(line[:300] for line in shown)}"


#: capabilities a load run does not demand: ``large-stream`` says an engine answers a whole large stream within
#: the case timeout in a batch run; a load run feeds it in real time to measure how it holds up (what it
#: loses shows as recall below 1), which is the question, bounded by the experiment's own timeout
NOT_DEMANDED_LIVE = frozenset({"large-stream"})


def run_load(case, adapter, info, experiment: Experiment, say=print) -> dict:
    """One load (a corpus case), ``experiment.repeat`` times: the load's part of the report.  An engine
    without a capability the case needs, or without live mode, is UNSUPPORTED; a timeout or an error
    ends the load there, and the report says so (``status``), never looking complete."""
    runs, status, why = [], "complete", ""
    lacking = sorted(set(case.capabilities) - set(info.capabilities) - NOT_DEMANDED_LIVE)
    if lacking:
        status, why = "UNSUPPORTED", f"engine lacks capability {', '.join(lacking)}"
    for rep in range(experiment.repeat if status == "complete" else 0):
        began = time.monotonic()
        try:
            run = run_once(case, adapter, info, experiment)
        except Unsupported as exc:
            status, why = "UNSUPPORTED", str(exc)
            break
        except NotReady as exc:
            status, why = "TIMEOUT", str(exc)
            break
        except Exception as exc:  # noqa: BLE001 - a harness or engine error, reported as such
            status, why = "ERROR", f"{type(exc).__name__}: {exc}" + stderr_end(exc)
            break
        run["repetition"] = rep + 1
        runs.append(run)
        say(f"{case.id} #{rep + 1}: {'TIMEOUT (partial)' if run['timed_out'] else run['verdict']} in "
            f"{time.monotonic() - began:.1f} s; {describe(run)}")
        if run["timed_out"]:  # kept: the windows reported by the deadline show how far behind it was
            status, why = "TIMEOUT", (f"repetition {rep + 1} did not end within {experiment.timeout:g} s; its "
                                      f"{run['reports']} reports by then are kept (timed_out)")
            break
    if status != "complete":
        say(f"{case.id}: {status}: {why}")
    return {"case": case.id, "status": status, "reason": why, "runs": runs, "spread": spread(runs) if runs else []}


def report_doc(experiment: Experiment, info, loads: list[dict], started: str) -> dict:
    """The load report (schema ``load.schema.json``)."""
    return {"kind": "rspconf-load", "version": 1, "started": started,
            "experiment": {"name": experiment.name, "description": experiment.description, "source": experiment.source,
                           "speed": experiment.speed, "repeat": experiment.repeat,
                           "heartbeat_ms": experiment.heartbeat * 1000, "sample_ms": experiment.sample * 1000,
                           "timeout_s": experiment.timeout},
            "engine": {"name": info.name, "version": info.version, "profile": info.profile},
            "loads": loads}


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run_experiment(experiment: Experiment, adapter, cases: dict, say=print) -> dict:
    """Every load of the experiment, ``repeat`` times each: the load report."""
    info = adapter.info()
    started = now()
    loads = []
    for case_id in experiment.loads:
        case = cases.get(case_id)
        if case is None:
            raise ExperimentError(f"experiment {experiment.name}: no case {case_id!r} in the corpus (rspconf lint "
                                  "lists the ids)")
        loads.append(run_load(case, adapter, info, experiment, say))
    return report_doc(experiment, info, loads, started)


def verdict_of(entry: dict) -> tuple[str, str]:
    """One verdict for a load over its repetitions (the pytest option): FAIL if any run failed, else the
    load's status (PASS when complete), with the reason."""
    if entry["status"] != "complete":
        return entry["status"], entry["reason"]
    failed = [r for r in entry["runs"] if r["verdict"] == "FAIL"]
    if failed:
        return "FAIL", f"repetition {failed[0]['repetition']} of {len(entry['runs'])}: {failed[0]['reason']}"
    return "PASS", f"{len(entry['runs'])} live run(s): {describe(entry['runs'][-1])}"


def describe(run: dict) -> str:
    """One line: recall, delay, the feeder, resources."""
    recalls = [w["recall"] for w in run["windows"] if w["recall"] is not None]
    delay = [w["delay_ms"] for w in run["windows"] if w["delay_ms"] is not None]
    cpu = [s["cpu"] for s in run["samples"]]
    mib = [s["memory_mib"] for s in run["samples"]]
    parts = [f"mean recall {statistics.mean(recalls):.3f}" if recalls else "no recall",
             f"delay median {statistics.median(delay):.0f} ms, max {max(delay):.0f} ms" if delay else "no delay",
             f"{run['missing_reports']} missing, {run['duplicated_reports']} duplicated reports",
             f"feeder lateness max {run['feed']['lateness_ms']['max']:.1f} ms at {run['feed']['triples_per_second']} triples/s"]
    if cpu:
        parts.append(f"CPU mean {statistics.mean(cpu):.2f} cores, memory (PSS) max {max(mib):.0f} MiB")
    return "; ".join(parts)


def write(report: dict, out: Path) -> list[Path]:
    """``out``/load.json and, per load, its SVG pictures; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "load.json"]
    written[0].write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for n, load in enumerate(report["loads"]):
        if not load["runs"]:
            continue
        stem = f"{n:02d}-{load['case'].replace('/', '_')}"
        for name, svg in pictures(load).items():
            path = out / f"{stem}.{name}.svg"
            path.write_text(svg, encoding="utf-8")
            written.append(path)
    return written


def pictures(load: dict) -> dict[str, str]:
    """One load's SVG pictures (the files ``write`` makes; the site shows them on the case page)."""
    def series(key):
        return by_window(load["runs"], key)
    samples = [r["samples"] for r in load["runs"]]
    return {
        "precision": loadplots.per_window(series("precision"), "precision per window", "", lo=0, hi=1,
                                          good=lambda v: v >= 1),
        "recall": loadplots.per_window(series("recall"), "recall per window", "", lo=0, hi=1, good=lambda v: v >= 1),
        "delay": loadplots.per_window(series("delay_ms"), "delay per window", "ms"),
        "sizes": loadplots.sizes([row["expected_size"] for row in load["spread"]], series("actual_size")),
        "cpu": loadplots.over_time(samples, "cpu", "CPU over time", "cores"),
        "memory": loadplots.over_time(samples, "memory_mib", "memory (PSS) over time", "MiB"),
    }


def read_reports(paths: list[str]) -> list[dict]:
    """Load reports from files or folders (``load.json`` under them), each checked against its schema;
    a file that is not one is refused with its name and the field."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        found += sorted(path.rglob("load.json")) if path.is_dir() else [path]
    out = []
    for path in found:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ExperimentError(f"{path}: not a load report ({exc})") from None
        problems = validate(doc) if isinstance(doc, dict) else ["not a JSON object"]
        if problems:
            raise ExperimentError(f"{path}: not a load report: {problems[0]} (schema: {schemas.path('load').name})")
        out.append(doc)
    return out


def validate(report: dict) -> list[str]:
    schema = schemas.schema("load")
    return [f"{'/'.join(str(p) for p in e.path) or '(top)'}: {e.message}"
            for e in jsonschema.Draft202012Validator(schema).iter_errors(report)]
