"""Stored run reports, read back: one report file is one run; a matrix combines runs only when aligned.

Everything the summary, the diff, the EARL writer and the site show is computed from report files, never
from screen output.  A report that is not one (bad JSON, a field missing, another schema version) is a
:class:`ReportError` naming the file and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import jsonschema

from conformance import schema as schemas

ALIGN_MODES = ("exact", "intersect", "union")



class ReportError(ValueError):
    """A file that cannot be used as a run report or matrix (the message names it and says what to do)."""


class NotAligned(ValueError):
    """Runs that cannot be combined as they are (different corpus commits or case sets)."""


@dataclass
class Run:
    """One report file."""

    path: Path
    doc: dict

    @property
    def info(self) -> dict:
        return self.doc["run"]

    @property
    def engine(self) -> str:
        return self.info["engine"]["name"]

    @property
    def version(self) -> str:
        return self.info["engine"]["version"]

    @property
    def key(self) -> str:
        """The column a run fills in a matrix: engine and version."""
        return f"{self.engine}@{self.version}"

    @property
    def series(self) -> str:
        """The runs of one configured engine over nights: the report's file name without its extension
        (``rspconf matrix run`` writes ``OUT/<date>/<name>.json``)."""
        return self.path.stem

    @property
    def started(self) -> str:
        return self.info.get("started", "")

    @property
    def complete(self) -> bool:
        return self.info.get("complete", True)

    @cached_property
    def cases(self) -> dict[str, dict]:
        return {c["id"]: c for c in self.doc["cases"]}

    @property
    def labels(self) -> list[str]:
        return self.info.get("labels", [])


def _field(error: jsonschema.ValidationError) -> str:
    return "/".join(str(p) for p in error.absolute_path) or "(top level)"


def load_json(path: Path, give: str = "a report written with pytest's --report"):
    """A JSON file's content; a missing or unreadable file is a ReportError saying what to ``give``."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file; give {give}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: not JSON ({exc}); give {give}") from None


def read(path: Path) -> Run:
    """One report file, validated against the report schema."""
    return from_doc(Path(path), load_json(path))


def from_doc(path: Path, doc) -> Run:
    """A report already read from ``path``, validated against the report schema."""
    if isinstance(doc, dict) and doc.get("kind") == "matrix":
        raise ReportError(f"{path}: this is a matrix (matrix.json), not a run report; give the run reports")
    if not isinstance(doc, dict) or doc.get("schema_version") != 1:
        raise ReportError(f"{path}: not an rspconf run report of schema version 1 (field schema_version); "
                          "write it again with this kit's --report")
    error = jsonschema.exceptions.best_match(schemas.validator("report").iter_errors(doc))
    if error is not None:
        raise ReportError(f"{path}: field {_field(error)}: {error.message}; the file is not a valid run report "
                          "(was it edited, or written by another tool?)")
    return Run(path, doc)


def gather(paths) -> list[Run]:
    """The reports at the given paths (a folder: every ``*.json`` under it that is a run report), in a
    stable order: by start time, then engine, then path."""
    runs = []
    for given in paths:
        given = Path(given)
        if given.is_dir():
            files = sorted(p for p in given.rglob("*.json") if not p.name.startswith("."))
            for file in files:
                try:
                    doc = load_json(file)
                except ReportError:
                    continue  # a folder may hold other JSON files (runs.json, a half-written file)
                if isinstance(doc, dict) and "run" in doc and "cases" in doc:
                    runs.append(from_doc(file, doc))
        else:
            runs.append(read(given))
    return sorted(runs, key=lambda r: (r.started, r.engine, str(r.path)))


def _keep_latest(runs: list[Run]) -> list[Run]:
    latest: dict[str, Run] = {}
    for run in runs:  # gather() sorted them by start time
        latest[run.key] = run
    return [r for r in runs if latest[r.key] is r]


def align(runs: list[Run], mode: str = "exact", keep_latest: bool = False,
          allow_incomplete: bool = False) -> tuple[list[Run], list[str], list[str]]:
    """The runs of one matrix, the case ids it shows, and notes on what alignment dropped or left open.

    ``exact``: every run has the same corpus commit and the same case ids, else :class:`NotAligned`
    naming the differing cases.  ``intersect``: the cases every run has (the note says how many were
    dropped).  ``union``: every case; a run without one shows it as not run."""
    if mode not in ALIGN_MODES:
        raise NotAligned(f"--align {mode}: use one of {', '.join(ALIGN_MODES)}")
    if not runs:
        raise NotAligned("no run reports given; give report files or folders holding them")
    notes: list[str] = []
    runs = _one_run_each(runs, keep_latest, allow_incomplete, notes)
    ids = _case_ids(runs, mode, notes)
    return runs, ids, notes


def _one_run_each(runs: list[Run], keep_latest: bool, allow_incomplete: bool, notes: list[str]) -> list[Run]:
    """One run per engine and version, each complete unless incomplete runs are allowed (then noted)."""
    by_key: dict[str, list[Run]] = {}
    for run in runs:
        by_key.setdefault(run.key, []).append(run)
    twice = {k: v for k, v in by_key.items() if len(v) > 1}
    if twice and not keep_latest:
        k, v = next(iter(sorted(twice.items())))
        raise NotAligned(f"{k} has {len(v)} runs in this matrix ({', '.join(str(r.path) for r in v)}); a matrix "
                         "holds one run per engine and version: give one, or --keep-latest")
    if twice:
        runs = _keep_latest(runs)
        notes.append(f"kept the latest run of {', '.join(sorted(twice))} (--keep-latest)")
    partial = [r for r in runs if not r.complete]
    if partial and not allow_incomplete:
        r = partial[0]
        raise NotAligned(f"{r.path}: the run of {r.key} is incomplete ({r.info.get('finished')} of "
                         f"{r.info.get('selected')} cases; {r.info.get('interrupted') or 'stopped early'}); it is "
                         "not combined as if complete: run it again, or give --allow-incomplete to show it marked")
    for r in partial:
        notes.append(f"{r.key}: INCOMPLETE run ({r.info.get('finished')} of {r.info.get('selected')} cases)")
    return runs


def _case_ids(runs: list[Run], mode: str, notes: list[str]) -> list[str]:
    """The case ids the matrix shows under the alignment mode; what it dropped or left open goes to notes."""
    sets = {r.key: set(r.cases) for r in runs}
    commits = {r.info.get("corpus_commit") for r in runs}
    everything = set().union(*sets.values())
    shared = set.intersection(*sets.values())
    if mode == "exact":
        if len(commits) > 1:
            raise NotAligned("the runs are of different corpus commits (" + ", ".join(
                f"{r.key}: {(r.info.get('corpus_commit') or 'unknown')[:12]}" for r in runs)
                + "); run them on one commit, or give --align intersect")
        if shared != everything:
            differing = []
            for r in runs:
                missing = sorted(everything - sets[r.key])
                if missing:
                    differing.append(f"{r.key} lacks {len(missing)}: {', '.join(missing[:5])}"
                                     + (" …" if len(missing) > 5 else ""))
            raise NotAligned("the runs have different case sets (" + "; ".join(differing)
                             + "); give --align intersect to keep the shared cases, or --align union")
        ids = sorted(everything)
    elif mode == "intersect":
        ids = sorted(shared)
        if len(everything) > len(shared):
            notes.append(f"--align intersect: kept the {len(shared)} cases every run has; dropped "
                         f"{len(everything) - len(shared)}")
    else:
        ids = sorted(everything)
        if len(everything) > len(shared):
            notes.append(f"--align union: {len(everything) - len(shared)} cases are not in every run "
                         "(their cells say 'not run')")
    if len(commits) > 1 and mode != "exact":
        notes.append("the runs are of different corpus commits: "
                     + ", ".join(sorted((c or "unknown")[:12] for c in commits)))
    return ids


def cell(case: dict | None) -> dict | None:
    """What a matrix keeps of one case in one run: the verdict and its evidence in brief."""
    if case is None:
        return None
    return {
        "verdict": case["verdict"],
        "expected_verdict": case.get("expected_verdict"),
        "expectation_reason": case.get("expectation_reason"),
        "expectation_link": case.get("expectation_link"),
        "syntax_variant": case.get("syntax_variant"),
        "reason": case["reason"],
        "windows": len(case["windows"]),
        "matched": case.get("matched"),
        "mean_precision": case.get("mean_precision"),
        "mean_recall": case.get("mean_recall"),
        "t0": (case.get("explanation") or {}).get("t0"),
        "vacuous": bool(case.get("vacuous")),
    }


def run_entry(run: Run) -> dict:
    info = run.info
    return {"key": run.key, "engine": run.engine, "version": run.version, "file": str(run.path),
            "started": run.started, "labels": run.labels, "complete": run.complete,
            "corpus_commit": info.get("corpus_commit"), "kit_version": info.get("kit_version"),
            "profile": info["engine"].get("profile"), "capabilities": info["engine"].get("capabilities", []),
            "dialect": info["engine"].get("dialect"), "options": info["engine"].get("options", {}),
            "syntax": info["engine"].get("syntax", []),
            "totals": run.doc.get("totals", {})}


def matrix(runs: list[Run], ids: list[str], notes: list[str]) -> dict:
    """The combined matrix document (``conformance/schema/matrix.schema.json``)."""
    meta: dict[str, dict] = {}
    for run in runs:
        for case_id, case in run.cases.items():
            meta.setdefault(case_id, {"id": case_id, "family": case_id.split(".")[0], "level": case["level"],
                                      "capabilities": sorted(case["capabilities"]),
                                      "variant_of": case.get("variant_of")})
    doc = {
        "kind": "matrix",
        "schema_version": 1,
        "as_of": max((r.started for r in runs), default=""),  # the newest run: same inputs, same document
        "notes": notes,
        "runs": [run_entry(r) for r in runs],
        "cases": [meta[i] for i in ids],
        "cells": {r.key: {i: cell(r.cases.get(i)) for i in ids} for r in runs},
    }
    return doc


def validate_matrix(doc: dict, where: str = "matrix") -> None:
    error = jsonschema.exceptions.best_match(schemas.validator("matrix").iter_errors(doc))
    if error is not None:
        raise ReportError(f"{where}: field {_field(error)}: {error.message}; not a valid rspconf matrix")
