"""``rspconf reproduce csrbench-table2``: the kit's verdicts on the 2013 recordings of C-SPARQL, CQELS
and SPARQLstream, side by side with the published Table 2 of CSRBench (seed 002, §6.3), with each
cell's per-window precision/recall, the t0 that explains it and, for a failure, the reason in words.

The recordings are replayed through the manifests in ``engines/replay/csrbench-2013/`` and judged by
the same oracle as every other engine; nothing here is tuned to the paper.  Where the kit and the paper
disagree, ``docs/csrbench-table2.md`` says why.
"""

from __future__ import annotations

import functools
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from conformance.corpus import datapaths
from conformance.corpus.cases import load_corpus
from conformance.run.harness import judge, request_for, run_case
from conformance.run.progress import Progress
from engines.replay import ReplayEngine
from oracle.judge.words import findings_text

MANIFESTS = datapaths.PROJECT / "engines" / "replay" / "csrbench-2013"
ENGINES = [("C-SPARQL", "csparql"), ("CQELS", "cqels"), ("SPARQLstream", "sparqlstream")]
QUERIES = [f"q{i}" for i in range(1, 8)]
# Table 2 of CSRBench (seed 002, §6.3): the published verdicts on these recordings.
PAPER = {
    "csparql": {"q1": "pass", "q2": "pass", "q3": "pass", "q4": "pass", "q5": "fail", "q6": "pass", "q7": "pass"},
    "cqels": {"q1": "pass", "q2": "pass", "q3": "pass", "q4": "fail", "q5": "pass", "q6": "fail", "q7": "fail"},
    "sparqlstream": {"q1": "pass", "q2": "pass", "q3": "pass", "q4": "fail", "q5": "pass", "q6": "pass", "q7": "pass"},
}


def _cell(args: tuple[str, str, str | None]) -> dict:
    """Judge one recording (runs in a worker process)."""
    engine_key, query, data_root = args

    if data_root:
        datapaths.set_data_root(data_root)
    case = _csrbench_cases()[f"csrbench.{query}"]
    engine = ReplayEngine(str(MANIFESTS / f"{engine_key}.yaml"), data_root=data_root)
    result = run_case(case, engine, engine.info(), timeout=600)
    explanation = result.explanation or {}
    t0_class = explanation.get("t0_class") or []
    probe = None
    if result.verdict == "FAIL":
        probe = _partial_windows_probe(case, engine)
    return {
        "probe": probe,
        "engine": engine_key, "query": query, "case": result.id, "verdict": result.verdict,
        "paper": PAPER[engine_key][query], "reason": result.reason,
        "precision": result.mean_precision, "recall": result.mean_recall,
        "matched": result.matched, "reports": len(result.windows),
        "t0": explanation.get("t0"), "t0_class": t0_class, "findings": result.findings or {},
    }


@functools.lru_cache(maxsize=1)
def _csrbench_cases() -> dict:
    """The CSRBench cases by base id (the first of each), read once per worker process, not once for each of
    the 21 cells (the whole corpus took 2 s to read then; 0.3 s since libyaml parses it, family.py)."""
    cases: dict = {}
    for c in load_corpus(datapaths.PROJECT / "cases"):
        if c.family == "csrbench":
            cases.setdefault(c.base_id, c)
    return cases


def _partial_windows_probe(case, engine) -> dict:
    """What if windows that opened before the stream started (partial first windows) were admitted?
    Re-judges with t0 from t_first − ω + 1; a diagnosis only: the cell's verdict does not change.  Only the
    verdict and its best explanation are read, so the re-judging is not diagnosed."""

    stream = case.load_stream()
    info = engine.info()
    first = stream.elements[0].t
    hi = first + case.window.range
    wider = replace(info, profile={**info.profile, "t0_range": [first - case.window.range + 1, hi]})
    reports = engine.run(request_for(case, info, stream))
    verdict = judge(case, wider, stream, reports, gracious=False, diagnosed=False)
    best = verdict.best
    return {"verdict": verdict.verdict, "t0": best.t0, "exact": best.matched, "reports": len(best.windows)}


def run(data_root: str | None = None, workers: int = 2, progress=None) -> list[dict]:
    """Every cell of the table; ``progress(done, total, cell)`` is called as each one is judged."""
    root = data_root or (str(datapaths.data_root()) if datapaths.data_root() else None)
    if root is None or not (Path(root) / "csrbench" / "answers-2013").is_dir():
        raise FileNotFoundError("the CSRBench recordings are not under the data root: pass --data-root DIR "
                                f"(the folder holding csrbench/answers-2013) or set {datapaths.ENV}")
    jobs = [(key, q, root) for _, key in ENGINES for q in QUERIES]
    cells = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for cell in pool.map(_cell, jobs):
            cells.append(cell)
            if progress is not None:
                progress(len(cells), len(jobs), cell)
    return cells


def _t0_text(cell: dict) -> str:
    lo_hi = cell["t0_class"]
    if cell["verdict"] == "PASS" and lo_hi and lo_hi[0] != lo_hi[1]:
        return f"t0 in [{lo_hi[0]}, {lo_hi[1]}]"
    return f"t0={cell['t0']}" if cell["t0"] is not None else "t0 -"


def table2_markdown(cells: list[dict]) -> str:
    by = {(c["engine"], c["query"]): c for c in cells}
    lines = ["CSRBench Table 2, reproduced from the 2013 recordings: kit verdict / paper verdict", ""]
    header = f"{'query':<6}" + "".join(f"{name:<22}" for name, _ in ENGINES)
    lines += [header, "-" * len(header)]
    agree = 0
    for q in QUERIES:
        row = f"{q.upper():<6}"
        for _, key in ENGINES:
            c = by[(key, q)]
            kit = c["verdict"].lower()
            same = kit == c["paper"]
            agree += same
            row += f"{kit + ' / ' + c['paper'] + ('' if same else '  ≠'):<22}"
        lines.append(row)
    summary = (f"agreement with the paper: {agree} of {len(cells)} cells (≠ marks a disagreement; "
               "see docs/csrbench-table2.md)")
    lines += ["", summary, ""]
    for name, key in ENGINES:
        for q in QUERIES:
            c = by[(key, q)]
            pr = (f"P {c['precision']:.2f} R {c['recall']:.2f}" if c["precision"] is not None else "P/R -")
            lines.append(f"{name} {q.upper()}: kit {c['verdict']} (paper {c['paper']}); {pr} over "
                         f"{c['reports']} reports ({c['matched']} exact), {_t0_text(c)}")
            if c["verdict"] != "PASS":
                p = c.get("probe")
                if p and p["t0"] < 0 and p["exact"] > (c["matched"] or 0):
                    lines.append(f"    what if windows that opened before the stream (partial first windows) were "
                                 f"admitted: {p['verdict']}, {p['exact']} exact of {p['reports']} reports at t0={p['t0']}")
                if c["findings"]:
                    lines.append(f"    pattern: {findings_text(c['findings'])}")
                lines.append(f"    first wrong window: {c['reason'].split('; first: ', 1)[-1]}")
    return "\n".join(lines)


def main(args) -> int:

    def write(text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()

    progress = Progress(write, terminal=sys.stderr.isatty(), verbose=getattr(args, "verbose", False), every=0)
    progress.step(f"rspconf reproduce: judging {len(ENGINES) * len(QUERIES)} cells")
    try:
        cells = run(args.data_root, args.workers, progress=lambda done, total, cell: progress.step(
            f"rspconf reproduce: {done}/{total} cells judged (last: {cell['engine']} {cell['query']} {cell['verdict']})"))
    except FileNotFoundError as exc:
        progress.close()
        print(f"rspconf reproduce: {exc}")
        return 2
    progress.close()
    if args.json:
        print(json.dumps(cells, indent=1, sort_keys=True))
    else:
        print(table2_markdown(cells))
    return 0
