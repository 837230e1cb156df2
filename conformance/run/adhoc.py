"""``rspconf judge --query q.rq --stream s.nq --window 5s/1s --engine E``: a query and stream of the user's own,
run against an engine and judged by the oracle with the same verdict and explanation as a corpus case (as
``bowtie validate`` does for one schema).

The inputs become a one-case family (``adhoc.judge``) validated by the corpus's own schema and expanded by the
corpus's own code, so nothing about judging differs from a corpus run: the engine's declared profile, its
alignment, t0 enumeration, diagnosis.  The stream file is read from where it is (the case's folder is the
stream file's folder).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from conformance import schema as schemas
from conformance.corpus.cases import CaseFileError, expand, query_problem, reads_named_graph
from conformance.run.harness import failure_text
from conformance.streams.readers import StreamInputError
from oracle.durations import parse_duration


class AdhocError(ValueError):
    """An argument that cannot make a case; the message names it and says what to write."""


def parse_window(text: str) -> tuple[int, int]:
    """``5s/1s`` (range/slide), ``5s`` (tumbling) or ``PT5S/PT1S``: (range, slide) in ms."""
    parts = str(text).split("/")
    if len(parts) > 2 or not all(p.strip() for p in parts):
        raise AdhocError(f"--window {text!r}: write RANGE/SLIDE (e.g. 5s/1s) or RANGE for a tumbling window")
    try:
        width = parse_duration(parts[0])
        slide = parse_duration(parts[1]) if len(parts) == 2 else width
    except ValueError as exc:
        raise AdhocError(f"--window {text!r}: {exc}") from None
    if width <= 0 or slide <= 0:
        raise AdhocError(f"--window {text!r}: the range and the slide must be positive")
    return width, slide


def case_for(query_file: Path, stream_file: Path, window: str, r2s: str = "rstream",
             stream_iri: str = "http://example.org/stream", stream_format: str | None = None):
    """The one-case family's case for these inputs (raises AdhocError naming the argument)."""
    for flag, path in (("--query", query_file), ("--stream", stream_file)):
        if not Path(path).is_file():
            raise AdhocError(f"{flag} {path}: no such file")
    try:
        text = Path(query_file).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise AdhocError(f"--query {query_file}: not UTF-8 text") from None
    problem = query_problem(text)
    if problem:
        line, col, message = problem
        raise AdhocError(f"{query_file}:{line}: not SPARQL 1.1: {message} (column {col}); give the R2R query in "
                         "plain SPARQL (the window is --window, the R2S operator --r2s)")
    if reads_named_graph(text):
        raise AdhocError(f"{query_file}: GRAPH reads a named graph, and the one window of --window is the query's "
                         "default graph, with no named graph, so the pattern could match nothing; read the window "
                         "without GRAPH")
    width, slide = parse_window(window)
    stream_file = Path(stream_file).resolve()
    stream: dict = {"file": stream_file.name}
    if stream_format:
        stream["format"] = stream_format
    capabilities = ["time-window"] + (["sliding-window"] if slide < width else []) + (
        [r2s] if r2s in ("istream", "dstream") else [])
    family = {
        "schema_version": 1, "family": "adhoc", "title": "rspconf judge: a query and stream of the user's own",
        "cases": [{
            "id": "judge", "title": f"{Path(query_file).name} over {stream_file.name}",
            "spec": ["rspconf judge"], "level": "must", "capabilities": capabilities, "stream": stream,
            "query": {"r2r": text, "window": {"range": f"{width}ms", "slide": f"{slide}ms"}, "r2s": r2s,
                      "stream_iri": stream_iri}}]}
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schemas.schema("case")).iter_errors(family))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        raise AdhocError(f"the arguments make no valid case ({where}: {error.message})")
    try:
        (case,) = expand(family, stream_file.parent / "rspconf-judge.yaml")
        case.load_stream()  # read now: a bad stream file is the user's mistake, said as such, not an ERROR verdict
    except (CaseFileError, StreamInputError, ValueError) as exc:
        said = str(exc)  # a reader's message that names the file (and line) needs no prefix
        raise AdhocError(said if said.startswith(str(stream_file)) else f"--stream {stream_file}: {said}") from None
    return case


def summary(result) -> str:
    """The verdict as a corpus run shows it: one line, then for a FAIL the wrong windows."""
    p = "-" if result.mean_precision is None else f"{result.mean_precision:.2f}"
    r = "-" if result.mean_recall is None else f"{result.mean_recall:.2f}"
    t0 = (result.explanation or {}).get("t0", "-")
    head = (f"{result.verdict}  windows {result.matched if result.matched is not None else '-'}/"
            f"{len(result.windows) if result.windows else '-'}  P {p}  R {r}  t0 {t0}\n{result.reason}")
    if result.verdict == "FAIL":
        return head + "\n" + failure_text(result, limit=10).split("\n", 1)[-1]
    if result.error and result.verdict == "ERROR":
        return head + "\n" + result.error
    return head


def write_json(result, path: Path) -> None:
    Path(path).write_text(json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
