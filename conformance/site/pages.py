"""The static conformance site (``rspconf matrix combine … -o site/``): HTML from Jinja2 templates, SVG built
by hand, no CDN; readable without JavaScript (a small script only filters the matrix).

Pages: the matrix (cases × runs), one page per case (query, stream, per-run verdict, explanation, window
timeline, per-window P/R, missing/extra solutions), one per engine (profile, capabilities, expectations,
trend over stored runs), the diff between each engine's last two stored runs, and badges.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

from conformance.filenames import slug
from conformance.load import experiment as experiments
from conformance.results import diff as diff_mod
from conformance.results import runs as runs_mod
from conformance.run import expectations
from conformance.site import svg
from engines.dialects import variants

HERE = Path(__file__).parent
MAX_SOLUTIONS = 20


def _env():
    try:
        import jinja2  # deferred: jinja2 is optional (the report extra)
    except ImportError:
        raise SystemExit("the site needs Jinja2: python3 -m pip install -e '.[report]'") from None
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True)  # optional report fields may be absent
    env.filters["slug"] = slug
    env.filters["ratio"] = lambda x: "-" if x is None else f"{x:.2f}"
    env.filters["href"] = expectations.safe_link  # a report is input too: only http(s) and relative links
    env.globals["colours"] = svg.VERDICT_COLOURS
    return env


def recorded(case_id: str, runs: list[runs_mod.Run]) -> dict | None:
    """The case as the runs recorded it (``about``: its source, query, window and stream), from the first
    run that loaded its stream, else the first that recorded it at all; None for a report of an older kit."""
    records = [r.cases[case_id].get("about") for r in runs if case_id in r.cases]
    records = [a for a in records if a]
    return next((a for a in records if "note" not in a["stream"]), records[0] if records else None)


def received(case_id: str, runs: list[runs_mod.Run]) -> dict[str, str]:
    """The query text each run's engine received for the case, by run (what it was given, not rendered again)."""
    return {run.key: run.cases[case_id]["query_text"] for run in runs
            if case_id in run.cases and run.cases[case_id].get("query_text")}


def _engine_of(run: runs_mod.Run) -> str:
    return slug(run.key)


def load_sections(loads: list[dict]) -> tuple[dict, dict]:
    """Live load runs (conformance/load/experiment.py) for the case pages (by case id) and the engine pages (by
    engine name): each load with its engine, experiment, runs, spread and pictures."""
    by_case: dict[str, list] = defaultdict(list)
    by_engine: dict[str, list] = defaultdict(list)
    for doc in loads:
        for entry in doc["loads"]:
            verdict, why = experiments.verdict_of(entry)
            item = {"doc": doc, "entry": entry, "verdict": verdict, "reason": why,
                    "pictures": experiments.pictures(entry) if entry["runs"] else {}}
            by_case[entry["case"]].append(item)
            by_engine[doc["engine"]["name"]].append(item)
    return by_case, by_engine


def build(matrix: dict, runs: list[runs_mod.Run], history: list[runs_mod.Run], out: Path,
          loads: list[dict] | None = None) -> dict:
    """Write the site under ``out``; return what was written (pages per kind).  ``loads``: load reports
    (``rspconf load``) shown on the case and engine pages."""
    out = Path(out)
    env = _env()
    out.mkdir(parents=True, exist_ok=True)
    for sub in ("cases", "engines", "badges", "static", "runs"):
        (out / sub).mkdir(exist_ok=True)
    for name in ("site.css", "filter.js"):
        shutil.copyfile(HERE / "static" / name, out / "static" / name)
    case_pages = {c["id"]: f"cases/{slug(c['id'])}.html" for c in matrix["cases"]}
    engine_pages = {r.key: f"engines/{_engine_of(r)}.html" for r in runs}
    families = sorted({c["family"] for c in matrix["cases"]})
    capabilities = sorted({cap for c in matrix["cases"] for cap in c["capabilities"]})
    common = {"as_of": matrix["as_of"], "root": ""}
    loads_by_case, loads_by_engine = load_sections(loads or [])

    (out / "matrix.json").write_text(json.dumps(matrix, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (out / "index.html").write_text(env.get_template("matrix.html").render(
        matrix=matrix, case_pages=case_pages, engine_pages=engine_pages, families=families,
        capabilities=capabilities, verdicts=list(svg.VERDICT_COLOURS), **common), encoding="utf-8")

    for meta in matrix["cases"]:
        page = _case_page(env, meta, runs, engine_pages, loads_by_case, common)
        (out / case_pages[meta["id"]]).write_text(page, encoding="utf-8")

    # a series is what one config entry runs night after night: the report's file name (runs/<date>/<name>.json),
    # so spark-replay and spark-streaming, or rsp-js and rsp-js-1.1.2, are separate trends and diffs
    by_series: dict[str, list[runs_mod.Run]] = defaultdict(list)
    for run in history or runs:
        by_series[run.series].append(run)
    for run in runs:
        page = _engine_page(env, run, by_series, case_pages, loads_by_engine, common)
        (out / engine_pages[run.key]).write_text(page, encoding="utf-8")
        _badge(out, run)
        _publish_report(out, run, runs)

    diffs = []
    for engine, stored in sorted(by_series.items()):
        stored = sorted(stored, key=lambda r: (r.started, str(r.path)))
        if len(stored) >= 2:
            d = diff_mod.compare_sides(diff_mod.run_side(stored[-2]), diff_mod.run_side(stored[-1]))
            diffs.append({"engine": engine, "diff": d})
    diffs.sort(key=lambda d: (-d["diff"]["counts"]["regressed"], d["engine"]))
    (out / "diff.html").write_text(env.get_template("diff.html").render(diffs=diffs, **common), encoding="utf-8")
    return {"cases": len(case_pages), "engines": len(engine_pages), "diffs": len(diffs)}


def _case_page(env, meta: dict, runs: list[runs_mod.Run], engine_pages: dict, loads_by_case: dict,
               common: dict) -> str:
    """One case's page: its stream, the query each engine received, and each run's windows."""
    case = recorded(meta["id"], runs)
    summary = dict(case["stream"]) if case else {"note": "the reports record no description of this case"}
    ticks = summary.pop("times", [])
    per_run = []
    for run in runs:
        c = run.cases.get(meta["id"])
        if c is None:
            per_run.append({"run": run, "case": None})
            continue
        windows = c["windows"]
        per_run.append({
            "run": run, "case": c, "page": engine_pages[run.key],
            "timeline": svg.timeline(windows, ticks) if windows else "",
            "pr": svg.precision_recall(windows) if windows else "",
            "wrong": [dict(w, missing=w.get("missing", [])[:MAX_SOLUTIONS], extra=w.get("extra", [])[:MAX_SOLUTIONS])
                      for w in windows if w["status"] != "MATCH"],
        })
    return env.get_template("case.html").render(
        meta=meta, case=case, summary=summary, per_run=per_run, received=received(meta["id"], runs),
        max_solutions=MAX_SOLUTIONS, live=loads_by_case.get(meta["id"], []), **dict(common, root="../"))


def _engine_page(env, run: runs_mod.Run, by_series: dict, case_pages: dict, loads_by_engine: dict,
                 common: dict) -> str:
    """One run's page: its trend over the stored runs of its series, its expectations, its live runs."""
    stored = sorted(by_series.get(run.series, [run]), key=lambda r: (r.started, str(r.path)))
    points = [{"label": f"{r.started[:10]} {r.version}", "counts": r.doc["totals"]["verdicts"]} for r in stored]
    expectations = sorted(((i, c) for i, c in run.cases.items() if c.get("expected_verdict")), key=lambda x: x[0])
    return env.get_template("engine.html").render(
        run=run, trend=svg.trend(points), stored=stored, expectations=expectations, case_pages=case_pages,
        deviations=variants.VOCABULARY, live=loads_by_engine.get(run.engine, []), **dict(common, root="../"))


def badge_message(run: runs_mod.Run) -> tuple[str, str]:
    """"must 39/39": the must-level cases passed of those judged (PASS or FAIL), and the colour."""
    must = run.doc["totals"]["levels"].get("must", {})
    passed, judged = must.get("PASS", 0), must.get("PASS", 0) + must.get("FAIL", 0)
    errors = must.get("ERROR", 0) + must.get("TIMEOUT", 0)
    message = f"must {passed}/{judged}" + (f" ({errors} error)" if errors else "") + ("" if run.complete else " incomplete")
    colour = "#4c1" if judged and passed == judged and not errors and run.complete else (
        "#dfb317" if judged and passed >= 0.9 * judged else "#e05d44")
    return message, colour


def _publish_report(out: Path, run: runs_mod.Run, matrix_runs: list[runs_mod.Run]) -> None:
    """The run's report as ``runs/<engine@version>.json``, and as ``runs/<engine>.json`` when it is that
    engine's newest run here: what an engine's own CI diffs against (docs/matrix.md)."""
    shutil.copyfile(run.path, out / "runs" / f"{_engine_of(run)}.json")
    newest = max((r for r in matrix_runs if r.engine == run.engine), key=lambda r: (r.started, str(r.path)))
    if newest is run:
        shutil.copyfile(run.path, out / "runs" / f"{slug(run.engine)}.json")


def _badge(out: Path, run: runs_mod.Run) -> None:
    message, colour = badge_message(run)
    label = f"rspconf {run.engine}"
    name = _engine_of(run)
    (out / "badges" / f"{name}.json").write_text(json.dumps(
        {"schemaVersion": 1, "label": label, "message": message, "color": colour.lstrip("#")}) + "\n", encoding="utf-8")
    (out / "badges" / f"{name}.svg").write_text(svg.badge(label, message, colour) + "\n", encoding="utf-8")
