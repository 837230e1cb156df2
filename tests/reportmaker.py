"""Hand-made run reports for the tests of the matrix, summary, diff, EARL and site (valid against the
report schema, written with the kit's own writer)."""

from __future__ import annotations

from pathlib import Path

from conformance.run import report


def window(index: int, status: str = "MATCH", precision=1.0, recall=1.0, open_=None, close=None) -> dict:
    open_ = index * 10 if open_ is None else open_
    return {"index": index, "status": status, "open": open_, "close": open_ + 10 if close is None else close,
            "expected_tau": None, "actual_tau": None, "actual_window": None, "precision": precision,
            "recall": recall, "expected_size": 1, "actual_size": 1, "missing": [], "extra": [], "diagnostics": [],
            "gracious": None, "timing": None}


def case(case_id: str, verdict: str, precision=1.0, recall=1.0, windows: int = 2, level: str = "must",
         capabilities=("time-window",), expected: str | None = None, reason: str | None = None) -> dict:
    judged = verdict in ("PASS", "FAIL")
    ws = [window(i, "MATCH" if verdict == "PASS" else "MISMATCH", precision, recall) for i in range(windows)] if judged else []
    return {"id": case_id, "engine": "x", "verdict": verdict, "reason": reason or f"{verdict.lower()} by hand",
            "level": level, "capabilities": list(capabilities), "windows": ws,
            "matched": (windows if verdict == "PASS" else 0) if judged else None,
            "mean_precision": precision if judged else None, "mean_recall": recall if judged else None,
            "expected_verdict": expected, "expectation_reason": "known by hand" if expected else None,
            "expectation_link": "https://example.org/issue/1" if expected else None,
            "explanation": None, "seconds": 0.1, "error": None, "vacuous": False, "notes": []}


def write(path: Path, engine: str, version: str, cases: list[dict], commit: str = "c" * 40,
          started: str = "2026-11-24T01:00:00+00:00", complete: bool = True, labels=("nightly",)) -> Path:
    run = {"kit_version": "0.1.0", "corpus_commit": commit, "python": "3.11", "started": started,
           "labels": list(labels),
           "engine": {"name": engine, "version": version, "dialect": "sparql", "alignment": "window",
                      "profile": {"report": ["window-close"], "t0": 0}, "capabilities": ["time-window"],
                      "options": {}},
           "selected": len(cases) + (0 if complete else 3), "finished": len(cases), "complete": complete,
           "interrupted": None if complete else "Ctrl-C"}
    for c in cases:
        c["engine"] = engine
    report.write(Path(path), report.document(run, cases))
    return Path(path)
