"""``rspconf summary``: one or more run reports as a table, worst case first (terminal, Markdown, JSON).

The Markdown goes straight into a CI job summary.  ``--fail-on fail`` exits non-zero when a case FAILs,
ERRORs or TIMEs OUT other than as its engine's expectations file says, or when a run is incomplete;
``--fail-on regression`` when ``rspconf diff`` against ``--base`` finds a regression.
"""

from __future__ import annotations

import json

from conformance.results import tables
from conformance.results.runs import Run
from oracle.model import Verdict


def worst_first(cases: list[dict]) -> list[dict]:
    """Verdict (ERROR … PASS), then mean recall and precision (lowest first), then id."""
    def key(c):
        return (Verdict(c["verdict"]).severity, c.get("mean_recall") if c.get("mean_recall") is not None else 2,
                c.get("mean_precision") if c.get("mean_precision") is not None else 2, c["id"])
    return sorted(cases, key=key)


def unexpected(case: dict) -> bool:
    """A bad verdict that the engine's expectations file does not list."""
    return Verdict(case["verdict"]).bad and case.get("expected_verdict") != case["verdict"]


def headline(run: Run) -> str:
    t = run.doc["totals"]
    counts = ", ".join(f"{v} {n}" for v, n in t["verdicts"].items() if n)
    must = t["levels"].get("must")
    must_text = f"; must {must['PASS']}/{must['PASS'] + must['FAIL']} judged" if must else ""
    state = "" if run.complete else (f" — INCOMPLETE: {run.info.get('finished')} of {run.info.get('selected')} "
                                     "cases finished; the counts cover only those")
    return tables.printable(f"{run.key} ({run.started}): {counts} of {t['total']}{must_text}{in_variant(run)}{state}")


def in_variant(run: Run) -> str:
    """The verdicts reached in the engine's declared syntax variant, counted apart from the rest."""
    marked = [c for c in run.cases.values() if c.get("syntax_variant")]
    if not marked:
        return ""
    judged = sum(Verdict(c["verdict"]).judged for c in marked)
    return f"; {judged} judged (of {len(marked)}) in the declared syntax variant"


def rows(run: Run, show: str) -> list[dict]:
    cases = worst_first(list(run.cases.values()))
    if show == "failures":
        cases = [c for c in cases if Verdict(c["verdict"]).bad]
    return cases


def as_json(runs: list[Run], show: str) -> dict:
    return {"runs": [{"key": r.key, "file": str(r.path), "complete": r.complete, "totals": r.doc["totals"],
                      "cases": [{"id": c["id"], "verdict": c["verdict"], "expected": c.get("expected_verdict"),
                                 "matched": c.get("matched"), "windows": len(c["windows"]),
                                 "mean_precision": c.get("mean_precision"), "mean_recall": c.get("mean_recall"),
                                 "syntax_variant": c.get("syntax_variant"),
                                 "reason": c["reason"]} for c in rows(r, show)]} for r in runs]}


def render(runs: list[Run], fmt: str = "terminal", show: str = "all", width: int | None = None) -> str:
    if fmt == "json":
        return json.dumps(as_json(runs, show), indent=2, sort_keys=True)
    parts = []
    for run in runs:
        head = headline(run)
        parts.append(f"### {head}" if fmt == "markdown" else head)
        body = []
        for c in rows(run, show):
            body.append([c["id"], tables.verdict_cell(c), tables.windows_cell(c), tables.fmt_ratio(c.get("mean_precision")),
                         tables.fmt_ratio(c.get("mean_recall")), c["reason"]])
        if body:
            parts.append(tables.render(["case", "verdict", "windows", "P", "R", "reason"], body, fmt, width))
        else:
            parts.append("(no case to show)")
        note = tables.variant_note(run.cases.values())
        if note:
            parts.append(f"`~`{note[1:]}" if fmt == "markdown" else note)
        if any(c.get("expected_verdict") for c in run.cases.values()):
            parts.append(f"`*`{tables.KNOWN_DEVIATION[1:]}" if fmt == "markdown" else tables.KNOWN_DEVIATION)
        if any(c.get("vacuous") for c in run.cases.values()):
            parts.append(f"`(vac)`{tables.VACUOUS[5:]}" if fmt == "markdown" else tables.VACUOUS)
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def failing(runs: list[Run]) -> list[str]:
    """Why ``--fail-on fail`` fails: unexpected bad verdicts and incomplete runs."""
    out = [f"{r.key}: incomplete run" for r in runs if not r.complete]
    for r in runs:
        out += [f"{r.key}: {c['id']} {c['verdict']}" for c in worst_first(list(r.cases.values())) if unexpected(c)]
    return out
