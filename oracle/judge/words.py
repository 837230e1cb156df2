"""A verdict in words: the one-line reason a report and the terminal show, and the failure patterns it
names (:func:`oracle.judge.explain.diagnose` finds them)."""

from __future__ import annotations

from oracle.compare import EXTRA, MATCH, MISMATCH, MISSING, CaseVerdict
from oracle.findings import FINDINGS


def span(report) -> str:
    """A window's borders as written: [opening, closing)."""
    return f"[{report.opening}, {report.closing})"


#: the reasons of expected reports made at fixed instants (several windows, time-annotated data)
INSTANTS = ("evaluation-instant", "validity")


def place(report) -> str:
    """Where an expected report is, in words: its window, or for the kinds judged at fixed instants
    (several windows, time-annotated data: no single window's borders) the evaluation instant."""
    if report.reason in INSTANTS:
        return f"the evaluation at t={report.tau}"
    return f"window {span(report)}"


#: findings about the whole output stream, not counted per window
WHOLE_OUTPUT = ("drift", "per-solution", "grain", "width", "shifted-t0", "clock-drift", "count", "closed-end", "keeps-old-versions",
                "poll-period", "replaces-by-subject", "every-point", "one-window", "swapped", "no-static", "hidden-closing", "every-close", "result-change", "shared-count", "count-flushed", "lends-open", "any-close", "unmerged", "merged-duplicates", "starved", "own-clock",
                "not-all-close", "empty-group-join", "stops")

#: which of the windows one moment closes each grain reports (oracle/s2r/secret.py), in words
GRAIN_WORDS = {"multiple": "every one", "single": "only the latest",
               "single-held": "the latest that holds an element (its windows exist only once filled)"}


def findings_text(findings: dict[str, int]) -> str:
    """The failure patterns in words: 'uses elements after they left the window (5 windows); …'."""
    return "; ".join(FINDINGS[k] if k in WHOLE_OUTPUT else f"{FINDINGS[k]} ({n} window{'s' if n != 1 else ''})"
                     for k, n in findings.items())


def reason(verdict: CaseVerdict) -> str:
    """One line saying why a case passed or failed."""
    best = verdict.best
    if verdict.verdict == "UNJUDGED":
        return "not judged: " + "; ".join(verdict.notes)
    if verdict.verdict == "PASS":
        lo, hi = best.t0_class
        explained = f"t0={lo}" if lo == hi else f"t0 in [{lo}, {hi}]"
        if verdict.context.get("fixed"):
            explained = verdict.context["fixed"]
        if verdict.vacuous:
            return (f"VACUOUS: explained by {explained} with no report at all, although the stream has data: nothing "
                    "was compared (the explanation expects no report)")
        return f"explained by {explained}; {len(best.windows)} reports match"
    bad = [w for w in best.windows if w.status != MATCH]
    notes = f" — {'; '.join(verdict.notes)}" if verdict.notes else ""
    if not bad:
        return f"best t0={best.t0}: {len(best.windows)} reports match, but{notes or ' no explanation is admissible'}"
    first = bad[0]
    counts = {s: sum(w.status == s for w in bad) for s in (MISMATCH, MISSING, EXTRA)}
    summary = ", ".join(f"{n} {s.lower()}" for s, n in counts.items() if n)
    detail = first.diagnostics[0] if first.diagnostics else first.status
    where = f"{place(first.expected)}: " if first.expected is not None else ""
    pattern = f" — pattern: {findings_text(verdict.findings)}" if verdict.findings else ""
    head = f"by {verdict.context['fixed']}" if verdict.context.get("fixed") else f"best t0={best.t0}"
    return f"{head}: {summary} of {len(best.windows)} reports{pattern}{notes}; first: {where}{detail}"
