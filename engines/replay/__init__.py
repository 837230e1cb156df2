"""Replay of recorded outputs (``--engine replay:<manifest.yaml>``): judge an engine run elsewhere.

A manifest (schema ``conformance/schema/manifest.schema.json``) names the engine and its declared
profile, says how to read its recordings, and maps case ids to recording files::

    schema_version: 1
    engine: {name: C-SPARQL, version: "0.9 (recorded 2013)", dialect: csparql}
    format: csrbench-json          # or jsonl (the kit's own output format, `rspconf spark run`)
    alignment: time                # how reports pair with the oracle's: window | time | order
    time_unit: 1000                # optional: report times rounded down to multiples of this (ms)
    merge_same_time: false         # optional: reports with the same (rounded) time are one report
    profile: {t0: any, report: [window-close, non-empty-content], empty: true, ...}
    expectations: csparql-expectations.yaml   # optional, beside the manifest
    recordings:
      csrbench.q1: data:csrbench/answers-2013/csparql-answer-1.json   # data: = under the data root
      csrbench.q2: answers/q2.jsonl                                    # else relative to the manifest

A recording is found by the case's full id, else by its id without the parameter list.  A case with
no recording is UNSUPPORTED (the engine was not run on it); a missing or malformed recording file is
an ERROR naming the file and what is wrong.

A recording may say what it was made with — ``{file: …, params: {range: 1s, slide: 1s}, window: …,
r2s: …, notes: "…"}``: a recording made with other parameters, another window or R2S than the case is
judged as a variant of the case with its own id (``csrbench.q1[range=1s,slide=1s]``; :meth:`variants`),
never forced onto the case it was not made for.  ``window`` is a time window ``{range, slide}``, a
count window ``{count: 2, slide: 2}`` (id ``…[count=2/2]``) or, for a case with several named windows,
other widths for some of them ``{windows: {<name IRI>: {range, slide}}, instants: all-close}`` (each over
the stream the case gives it; id ``…[wt=20ms/10ms]`` by the last segment of each name); ``notes`` (say, reports the recorder dropped) are shown
next to the verdict, which stays strict.
"""

from __future__ import annotations

import json
from pathlib import Path

import conformance.schema as schemas
from engines import jsonl
from engines.contract import EngineInfo, RunRequest, Unsupported
from engines.paths import OutsidePath, confine
from engines.yamlfile import checked_yaml
from oracle.model import ObservedReport

# a manifest without a capability list claims them all (the case schema's vocabulary)
ALL_CAPABILITIES = frozenset(schemas.schema("case")
                             ["$defs"]["capability"]["enum"])


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file and the field."""


class RecordingError(ValueError):
    """A recording file that cannot be read; the message names the file and where."""


def load_manifest(path: Path) -> dict:
    return checked_yaml(path, schemas.path("manifest"), ManifestError, "the manifest")


def base_id(case_id: str) -> str:
    return case_id.split("[", 1)[0]


def read_csrbench_json(path: Path) -> list[ObservedReport]:
    """CSRBench answer JSON: ``{"relations": [{"timestamp": T, "results": {"bindings": [{"binding": …}]}}]}``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{path}: line {exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("relations"), list):
        raise RecordingError(f"{path}: expected {{\"relations\": [...]}} (CSRBench answer JSON)")
    reports = []
    for i, relation in enumerate(data["relations"]):
        try:
            rows = [{var: jsonl.json_term(term) for var, term in b["binding"].items()}
                    for b in relation["results"]["bindings"]]
            reports.append(ObservedReport(rows, tau=int(relation["timestamp"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordingError(f"{path}: relations[{i}]: {exc!r} — each relation needs a timestamp and "
                                 "results.bindings[].binding") from None
    return reports


def read_jsonl(path: Path) -> list[ObservedReport]:
    reports = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                reports.append(jsonl.parse_line(line))
            except (ValueError, KeyError, TypeError) as exc:
                raise RecordingError(f"{path}:{n}: not a report line of the kit's JSON Lines format ({exc})") from None
    return reports


READERS = {"csrbench-json": read_csrbench_json, "jsonl": read_jsonl}


def normalise_times(reports: list[ObservedReport], unit: int | None, merge: bool) -> list[ObservedReport]:
    """Round report times down to ``unit`` and, with ``merge``, join consecutive reports of one time."""
    out: list[ObservedReport] = []
    for r in reports:
        tau = r.tau
        if unit and tau is not None:
            tau = tau // unit * unit
        if merge and out and out[-1].tau == tau and not isinstance(r.solutions, bool):
            out[-1] = ObservedReport(list(out[-1].solutions) + list(r.solutions), tau=tau, window=out[-1].window)
        else:
            out.append(ObservedReport(r.solutions, tau=tau, window=r.window))
    return out


class ReplayEngine:
    """An engine whose answers were recorded elsewhere, read back per case."""

    def __init__(self, manifest: str, data_root: str | None = None):
        self.path = Path(manifest).resolve()
        self.manifest = load_manifest(self.path)
        self.data_root = Path(data_root).resolve() if data_root else None
        self.name = self.manifest["engine"]["name"]
        self._variants: dict[str, dict] = {}      # variant case id → its recording entry
        self._made_for: dict[str, list[str]] = {}  # case id → the variants its recording was made as

    def info(self) -> EngineInfo:
        m = self.manifest
        expectations = (self.path.parent / m["expectations"]) if m.get("expectations") else None
        caps = frozenset(m["capabilities"]) if m.get("capabilities") else ALL_CAPABILITIES
        return EngineInfo(name=m["engine"]["name"], version=str(m["engine"].get("version", "recorded")),
                          dialect=m["engine"].get("dialect", "sparql"), capabilities=caps,
                          profile=dict(m["profile"]), alignment=m.get("alignment", "order"),
                          expectations=expectations,
                          extra={"manifest": str(self.path), "format": m["format"], "source": m.get("source")})

    def _entry(self, case_id: str) -> dict | None:
        """The recording entry for a case id (a variant's own, else by full or base id), as a dict."""
        if case_id in self._variants:
            return self._variants[case_id]
        recordings = self.manifest["recordings"]
        entry = recordings.get(case_id) or recordings.get(base_id(case_id))
        return {"file": entry} if isinstance(entry, str) else entry

    def variants(self, case) -> list[dict]:
        """What the recordings for ``case`` were made with, when they say: ``[{params, window, r2s}]``.
        The kit builds each variant case and tells the adapter its id (:meth:`bind_variant`)."""
        recordings = self.manifest["recordings"]
        for key in (case.id, case.base_id):
            entry = recordings.get(key)
            if isinstance(entry, dict) and any(entry.get(k) for k in ("params", "window", "r2s")):
                return [{"key": key, **{k: entry[k] for k in ("params", "window", "r2s") if entry.get(k)}}]
            if entry is not None:
                break
        return []

    def bind_variant(self, case_id: str, variant_id: str, made_with: dict) -> None:
        """The variant ``variant_id`` of ``case_id`` is judged on the recording stated under ``made_with['key']``."""
        self._variants[variant_id] = self.manifest["recordings"][made_with["key"]]
        self._made_for.setdefault(case_id, []).append(variant_id)

    def notes_for(self, case_id: str) -> list[str]:
        """What the manifest says about the recording of this case."""
        entry = self._entry(case_id)
        return [f"recording: {entry['notes'].strip()}"] if entry and entry.get("notes") else []

    def recording(self, case_id: str) -> Path:
        if case_id in self._made_for:
            raise Unsupported(f"the recording in {self.path.name} was made with other parameters; it is judged as "
                              f"{', '.join(self._made_for[case_id])}")
        entry = self._entry(case_id)
        if entry is None:
            raise Unsupported(f"no recording for {case_id} in {self.path.name}")
        entry = entry["file"]
        if entry.startswith("data:"):
            root = self.data_root
            if root is None:
                raise RecordingError(f"{self.path}: {case_id} is recorded under the data root "
                                     f"({entry}), but no data root is set: pass --data-root or set "
                                     "RSPCONF_DATA")
            file = root / entry[len("data:"):]
        else:
            file = self.path.parent / entry
        try:
            confine(file, {"the manifest's folder": self.path.parent, "the data root": self.data_root},
                    f"{self.path}: the recording of {case_id},")
        except OutsidePath as exc:
            raise RecordingError(str(exc)) from None
        if not file.exists():
            raise RecordingError(f"{self.path}: the recording of {case_id}, {file}, does not exist")
        return file

    def run(self, request: RunRequest) -> list[ObservedReport]:
        file = self.recording(request.case_id)
        reports = READERS[self.manifest["format"]](file)
        return normalise_times(reports, self.manifest.get("time_unit"), self.manifest.get("merge_same_time", False))
