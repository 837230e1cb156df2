"""``rspconf export CASE_ID -o DIR``: one case to take away — the protocol messages exactly as the kit sends
them to an engine, the stream, the expected outputs of every admissible explanation under the engine's
declared profile, and a README with the one command that replays it against an engine outside the kit.

The expected outputs are the oracle's, computed as the judge computes them (the same candidates: each
profile variant × each t0 class for time and count windows; each variant — and each per-window t0 — for
several windows and time-annotated data), each distinct output once with every explanation that gives it.
Bounded: at most :data:`LIMIT` candidates are written, and the file says when more exist.
"""

from __future__ import annotations

import json
from pathlib import Path

from conformance.corpus.cases import Case
from conformance.run.harness import declared_r2s, oracle_query, request_for, variant_of
from conformance.streams.convert import nquads
from engines.command import request_message
from engines.contract import EngineInfo
from engines.jsonl import term_json
from oracle import profiles
from oracle.expected.multiwindow import t0_candidates
from oracle.expected.windows import output
from oracle.judge.kinds import kind
from oracle.judge.verdict import _within_stream, candidate_t0s
from oracle.model import MultiWindowSpec
from oracle.r2r.query import R2R

LIMIT = 200  # candidate explanations written at most


def _report(report, form: str) -> dict:
    """An expected report in the protocol's report form (what an engine answers: docs/protocol.md)."""
    out: dict = {"window": [report.opening, report.closing], "tau": report.tau}
    rows = getattr(report.solutions, "rows", report.solutions)
    if form == "AskQuery":
        out["boolean"] = bool(rows and rows[0]["ask"].toPython())
    else:
        out["solutions"] = [{k: term_json(v) for k, v in sorted(row.items()) if v is not None} for row in rows]
    return out


def _candidates(case: Case, info: EngineInfo, stream) -> tuple[list[tuple[dict, object, list]], bool]:
    """(explanation, its t0 or per-window t0s, its expected reports) for each candidate, and whether the
    list was cut at LIMIT."""
    fixed = dict(case.fixed)
    fixed.setdefault("r2s", declared_r2s(info) or case.r2s)
    how = kind(case.window)
    out = []
    if how.fixed is not None:
        space = profiles.space(info.profile, fixed, case.vary, window=case.window)
        for variant in space.variants():
            t0s = (t0_candidates(stream, case.window, variant, [])[0] if isinstance(case.window, MultiWindowSpec)
                   else [None])
            for t0 in t0s:
                kwargs = {"t0s": t0} if t0 is not None else {}
                out.append(({"profile": variant.describe(), **({"t0": t0} if t0 is not None else {})}, t0,
                            how.fixed.expected(stream, case.window, case.r2r, variant, **kwargs)))
                if len(out) > LIMIT:
                    return out[:LIMIT], True
        return out, False
    judged = how.judged(stream)
    query = R2R(case.r2r, judged)
    space = profiles.space(info.profile, fixed, case.vary, window=case.window, stream=judged)
    candidates = [(variant, t0, cls) for variant in space.variants()
                  for t0, cls in candidate_t0s(judged, case.window, variant, [], "order")]
    candidates, _ = _within_stream(judged, case.window, candidates)
    for variant, t0, cls in candidates[:LIMIT]:
        out.append(({"profile": variant.describe(), "t0": t0, "t0_class": list(cls)}, t0,
                    output(judged, case.window, variant, t0, query)))
    return out, len(candidates) > LIMIT


def expected_outputs(case: Case, info: EngineInfo, stream) -> dict:
    """Each distinct expected output once, with the explanations that give it."""
    form = oracle_query(case, stream).form
    groups: dict[str, dict] = {}
    candidates, cut = _candidates(case, info, stream)
    for explanation, _, reports in candidates:
        shown = [_report(r, form) for r in reports]
        key = json.dumps(shown, sort_keys=True)
        groups.setdefault(key, {"explanations": [], "reports": shown})["explanations"].append(explanation)
    return {"case": case.id, "engine": info.name, "declared_profile": info.profile, "alignment": info.alignment,
            "candidates": len(candidates), "cut_at": LIMIT if cut else None,
            "outputs": list(groups.values())}


def export(case: Case, info: EngineInfo, out: Path, engine_spec: str, data_root: Path | None = None) -> dict:
    """Write the case's folder; returns what was written (file → a few words)."""
    stream = case.load_stream(data_root)
    request = request_for(case, info, stream)
    out.mkdir(parents=True, exist_ok=True)
    messages = [{"cmd": "start", "protocol": 1}, request_message(1, request), {"cmd": "stop"}]
    (out / "messages.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    (out / "query.rq").write_text(request.query_text, encoding="utf-8")
    (out / "stream.nq").write_text(nquads(stream), encoding="utf-8")
    expected = expected_outputs(case, info, stream)
    (out / "expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "README.md").write_text(_readme(case, info, request, expected, engine_spec), encoding="utf-8")
    return {"messages.jsonl": "start, run, stop", "query.rq": f"the query in {info.dialect}",
            "stream.nq": f"{len(stream.elements)} elements", "expected.json":
            f"{len(expected['outputs'])} distinct outputs of {expected['candidates']} explanations",
            "README.md": "how to replay it"}


def _readme(case: Case, info: EngineInfo, request, expected: dict, engine_spec: str) -> str:
    window = request.window
    command = engine_spec[len("cmd:"):] if engine_spec.startswith("cmd:") else "<your engine's command>"
    written = variant_of(case, info)
    deviations = f", in its declared syntax variant ({', '.join(written)})" if written else ""
    lines = [
        f"# {case.id}: {case.title}", "",
        f"Exported by `rspconf export {case.id}` for the engine `{info.name} {info.version}` (dialect "
        f"{info.dialect}{deviations}, alignment `{info.alignment}`). Nothing here needs the kit.", "",
        "| file | what |", "|---|---|",
        "| `messages.jsonl` | the protocol messages exactly as the kit sends them: `start`, this case's `run`, `stop` "
        "(docs/protocol.md) |",
        "| `query.rq` | the `run` message's `query`, as text |",
        f"| `stream.nq` | the stream: {len(request.stream.elements)} elements as N-Quads, each element a named graph "
        "whose time is `<https://w3id.org/rspconf#time>` in ms |",
        f"| `expected.json` | the oracle's output under every admissible explanation of the declared profile: "
        f"{len(expected['outputs'])} distinct outputs of {expected['candidates']} explanations"
        + (f" (the first {expected['cut_at']} candidates only)" if expected["cut_at"] else "") + " |", "",
        "## Replay it against your engine", "", "```sh", f"{command} < messages.jsonl", "```", "",
        "The engine's answer to the `run` message (its second line of output) is right when its `reports` are one "
        "of `expected.json`'s `outputs[i].reports` — solutions compared as bags, blank nodes up to renaming, "
        f"and reports paired as the alignment `{info.alignment}` says (docs/protocol.md). With the kit:", "",
        "```sh", f"pytest conformance/ --engine '{engine_spec}' -k '{case.id}'", "```", "",
    ]
    if getattr(window, "range", None) is not None and getattr(window, "slide", None) is not None:
        lines[4:4] = [f"Window: {window.range} ms wide, sliding by {window.slide} ms; R2S `{request.r2s}`.", ""]
    return "\n".join(lines)
