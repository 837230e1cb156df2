"""Run reports: the versioned JSON document and the terminal summary table."""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
from collections import defaultdict
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import jsonschema

from conformance import schema as schemas
from conformance.corpus import datapaths
from conformance.results import tables
from oracle.model import VERDICTS

SCHEMA_VERSION = 1


def _package_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def corpus_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=datapaths.PROJECT, capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def run_info(info, options: dict, labels: list[str] = ()) -> dict:
    root = datapaths.data_root()
    return {
        "kit_version": _package_version("rspconf") or "0+source",
        "corpus_commit": corpus_commit(),
        "engine": {"name": info.name, "version": info.version, "dialect": info.dialect,
                   "profile": info.profile, "alignment": info.alignment,
                   "capabilities": sorted(info.capabilities), "options": options,
                   "syntax": list(info.syntax),
                   **({"about": dict(info.about)} if getattr(info, "about", None) else {})},
        "python": platform.python_version(),
        "spark": _package_version("pyspark"),
        "data_root": str(root) if root else None,
        "started": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "labels": sorted(set(labels)),
    }


def totals(cases: list[dict]) -> dict:
    """Counts per verdict, and per level and capability with their denominators."""
    out: dict = {"verdicts": {v: 0 for v in VERDICTS}, "levels": {}, "capabilities": {}}
    by_level: dict = defaultdict(lambda: {v: 0 for v in VERDICTS})
    by_cap: dict = defaultdict(lambda: {v: 0 for v in VERDICTS})
    for c in cases:
        out["verdicts"][c["verdict"]] += 1
        by_level[c["level"]][c["verdict"]] += 1
        for cap in c["capabilities"]:
            by_cap[cap][c["verdict"]] += 1
    out["levels"] = {k: dict(v, total=sum(v.values())) for k, v in sorted(by_level.items())}
    out["capabilities"] = {k: dict(v, total=sum(v.values())) for k, v in sorted(by_cap.items())}
    out["total"] = len(cases)
    out["vacuous"] = sum(1 for c in cases if c["verdict"] == "PASS" and c.get("vacuous"))
    return out


def document(run: dict, cases: list[dict]) -> dict:
    cases = sorted(cases, key=lambda c: c["id"])
    return {"schema_version": SCHEMA_VERSION, "run": run, "cases": cases, "totals": totals(cases)}


def completeness(run: dict, selected: int | None, finished: int, interrupted: str | None) -> dict:
    """The run info with how far the run got: a report never looks complete when the run was not."""
    complete = interrupted is None and selected is not None and finished >= selected
    return {**run, "selected": selected, "finished": finished, "complete": complete, "interrupted": interrupted}


def incomplete_line(run: dict) -> str | None:
    """One line for the terminal when the run did not finish every selected case."""
    if run.get("complete", True):
        return None
    of = f" of {run['selected']} selected" if run.get("selected") is not None else ""
    why = f" ({run['interrupted']})" if run.get("interrupted") else ""
    return f"INCOMPLETE RUN: {run.get('finished', 0)}{of} cases finished{why}; the totals cover only those"


def replaceable(path: Path) -> str | None:
    """Why ``path`` cannot take this run's report, said before the run starts (None: it can): a folder, a
    folder that cannot be made or written, or an existing file that is not a run report (never removed)."""
    if path.is_dir():
        return "is a folder; give a file path (e.g. report.json)"
    if path.exists():
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            doc = None
        if not (isinstance(doc, dict) and doc.get("schema_version") == SCHEMA_VERSION and "run" in doc
                and "cases" in doc):
            return "exists and is not an rspconf run report; the kit removes only its own reports: give another path"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        probe = path.with_name(f".{path.name}.{os.getpid()}.probe")
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        return f"cannot write there ({exc.strerror}); give a path in a folder you can write"
    return None


def write(path: Path, doc: dict) -> None:
    """Validate and write atomically (a temporary file renamed into place): a reader never sees half a
    report, and an old report is replaced whole."""
    jsonschema.validate(doc, schemas.schema("report"))
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, target)


def summary_lines(cases: list[dict], width: int | None = 160) -> list[str]:
    """One row per case, then totals per level and capability (PASS/denominator).  ``width`` None (not a
    terminal: a CI log, a pipe) prints every reason whole."""
    cases = sorted(cases, key=lambda c: c["id"])
    idw = min(48, max([len(c["id"]) for c in cases] + [4]))
    head = f"{'case':<{idw}} {'verdict':<11} {'windows':>8} {'P':>5} {'R':>5} {'t0':>7}  reason"
    lines = [head, "-" * min(width or 200, len(head) + 40)]
    for c in cases:
        t0 = c["explanation"]["t0"] if c.get("explanation") else "-"
        row = (f"{tables.printable(c['id'])[:idw]:<{idw}} {tables.verdict_cell(c):<11} {tables.windows_cell(c):>8} "
               f"{tables.fmt_ratio(c.get('mean_precision')):>5} {tables.fmt_ratio(c.get('mean_recall')):>5} {str(t0):>7}  ")
        why = tables.printable(c["reason"])
        lines.append(row + (why if width is None else why[: max(20, width - len(row))]))
    t = totals(cases)
    lines.append("")
    lines.append("totals: " + ", ".join(f"{v} {n}" + (f" ({t['vacuous']} vacuous)" if v == "PASS" and t["vacuous"] else "")
                                        for v, n in t["verdicts"].items() if n) + f" of {t['total']}")
    for label, group in (("level", t["levels"]), ("capability", t["capabilities"])):
        parts = []
        for name, counts in group.items():
            judged = counts["PASS"] + counts["FAIL"]
            parts.append(f"{name} {counts['PASS']}/{judged}" + (f" (+{counts['total'] - judged} not judged)"
                                                                  if counts["total"] - judged else ""))
        lines.append(f"per {label} (PASS/judged): " + "; ".join(parts))
    if t["vacuous"]:
        lines.append(tables.VACUOUS)
    if tables.variant_note(cases):
        lines.append(tables.variant_note(cases))
    if any(c.get("expected_verdict") for c in cases):
        lines.append(tables.KNOWN_DEVIATION)
    return lines
