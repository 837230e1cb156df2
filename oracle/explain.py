"""Explanations a person can act on: per-window diagnostics, a readable bag diff, a one-line reason.

For every window of the best explanation that is not an exact match, :func:`diagnose` adds
- the missing and extra solutions, each with its provenance (the stream elements that derive it and
  whether they lie inside the expected window), and
- the gracious-mode reconstruction of the window the engine seems to have used (for the first
  :data:`GRACIOUS_WINDOWS` wrong windows, borders searched within one window range of the expected ones).
"""

from __future__ import annotations

from rdflib import Literal

from oracle.gracious import reconstruct
from oracle.provenance import Provenance
from oracle.r2r import R2R
from oracle.terms import show_solution
from oracle.verdict import EXTRA, MATCH, MISMATCH, MISSING, CaseVerdict, WindowResult

SHOWN = 5
#: gracious mode costs up to a few dozen R2R evaluations per window: run it on the first wrong windows
GRACIOUS_WINDOWS = 8
# Failure patterns, in words; diagnose() counts the windows that show each (a window counts once per pattern).
FINDINGS = {
    "stale": "uses elements after they left the window",
    "ahead": "uses elements before they entered the window",
    "absent-value": "gives no value where the absence of matches does (an empty aggregate is 0, ASK false)",
    "bad-literal": "reports literals that are no value (\"null\", ill-typed)",
    "underived": "reports solutions that no stream element derives",
    "borders": "has window borders unlike the explained ones (gracious mode)",
    "missing-report": "has no report where the oracle has one",
    "extra-report": "reports where the oracle has no report",
}


def _bad_literal(row: dict) -> bool:
    """A null printed as a value ("null", "None") or a literal whose lexical form its datatype rejects."""
    return any(isinstance(v, Literal) and (getattr(v, "ill_typed", False) or str(v) in ("null", "None"))
               for v in row.values())


def _span(report) -> str:
    return f"[{report.opening}, {report.closing})"


def _times(derivations, near=None) -> str:
    """Derivations as ⊕ (alternatives) of ⊗ (joined elements), nearest to the window first."""
    if near is not None:
        o, c = near
        derivations = sorted(derivations, key=lambda d: sum(max(0, o - t, t - c + 1) for t in d.times))
    shown = [" ⊗ ".join(f"t={t}" for t in d.times) for d in derivations[:3]]
    text = " ⊕ ".join(f"({s})" if "⊗" in s and len(shown) > 1 else s for s in shown)
    if len(derivations) > 3:
        text += f" ⊕ … ({len(derivations)} derivations)"
    return text


def diagnose(verdict: CaseVerdict, query: R2R, gracious: bool = True, provenance: bool = True) -> None:
    """Fill in ``diagnostics`` and ``gracious`` of the best explanation's windows (in place)."""
    best = verdict.best
    prov = Provenance(query) if provenance else None
    whole = (0, len(query.stream)) if len(query.stream) else (0, 0)
    previous = None
    graced = 0
    found: dict[str, int] = {}
    for w in best.windows:
        if w.status == MATCH:
            previous = w.expected
            continue
        kinds: set[str] = set()
        e = w.expected
        if w.status == MISSING:
            kinds.add("missing-report")
            w.diagnostics.append(f"MISSING: the oracle reports window {_span(e)} at t={e.tau} "
                                 f"({len(e.solutions)} solutions) and the engine has no report for it")
        elif w.status == EXTRA:
            kinds.add("extra-report")
            w.diagnostics.append(f"EXTRA: the engine reported {w.actual_size} solutions"
                                 f"{' at t=' + str(w.actual.tau) if w.actual.tau is not None else ''}"
                                 " where the oracle has no report")
        elif w.status == MISMATCH and not w.order_ok and not w.missing and not w.extra:
            w.diagnostics.append("same solutions in a different order, but the query has ORDER BY")
        if prov is not None:
            for row in w.missing[:SHOWN]:
                ders = prov.derivations(row, e.content) if e is not None else []
                if ders:
                    w.diagnostics.append(f"missing {show_solution(row)}, derived from the triples at {_times(ders)}"
                                         f", inside expected window {_span(e)}")
                else:
                    kinds.add("absent-value")
                    w.diagnostics.append(f"missing {show_solution(row)}, which no stream element derives in expected "
                                         f"window {_span(e)} (it comes from the absence of matches: an empty "
                                         "aggregate, a false ASK, an unbound OPTIONAL)")
            for row in w.extra[:SHOWN]:
                ders = prov.derivations(row, whole)
                if _bad_literal(row):
                    kinds.add("bad-literal")
                elif not ders:
                    kinds.add("underived")
                where = ""
                if e is not None and ders:
                    inside = all(e.opening <= t < e.closing for d in ders for t in d.times)
                    if not inside and all(any(t < e.opening for t in d.times) for d in ders):
                        kinds.add("stale")
                    elif not inside and all(any(t >= e.closing for t in d.times) for d in ders):
                        kinds.add("ahead")
                    where = ", inside" if inside else ", outside"
                    where += f" expected window {_span(e)}"
                near = (e.opening, e.closing) if e is not None else None
                w.diagnostics.append(f"extra {show_solution(row)}, derived from the triples at {_times(ders, near)}{where}"
                                     if ders else f"extra {show_solution(row)}, derivable from no stream element")
            for label, rows in (("missing", w.missing), ("extra", w.extra)):
                if len(rows) > SHOWN:
                    w.diagnostics.append(f"… and {len(rows) - SHOWN} more {label} solutions")
        if gracious and w.status == MISMATCH and e is not None and graced < GRACIOUS_WINDOWS:
            graced += 1
            prev_sol = query.evaluate(previous.content) if previous is not None else None
            g = reconstruct(query, best.profile.r2s, e.content, e.opening, e.closing, w.actual_solutions,
                            prev_sol, reach=e.closing - e.opening)
            w.gracious = g.describe()
            if (g.opening, g.closing) != (e.opening, e.closing) and g.f1 > w.f1:
                kinds.add("borders")
                w.diagnostics.append(
                    f"the engine's window looks like [{g.opening}, {g.closing}) "
                    f"(gracious mode: precision {g.precision:.2f}, recall {g.recall:.2f}) instead of {_span(e)}")
        previous = e if e is not None else previous
        for kind in kinds:
            found[kind] = found.get(kind, 0) + 1
    verdict.findings = {k: found[k] for k in FINDINGS if k in found}


def findings_text(findings: dict[str, int]) -> str:
    """The failure patterns in words: 'uses elements after they left the window (5 windows); …'."""
    return "; ".join(f"{FINDINGS[k]} ({n} window{'s' if n != 1 else ''})" for k, n in findings.items())


def diff(w: WindowResult) -> str:
    """A readable diff of the expected and actual bags of one window ('-' missing, '+' extra)."""
    lines = [f"- {show_solution(r)}" for r in w.missing] + [f"+ {show_solution(r)}" for r in w.extra]
    return "\n".join(lines) if lines else "(bags equal)"


def reason(verdict: CaseVerdict) -> str:
    """One line saying why a case passed or failed."""
    best = verdict.best
    if verdict.verdict == "PASS":
        lo, hi = best.t0_class
        span = f"t0={lo}" if lo == hi else f"t0 in [{lo}, {hi}]"
        return f"explained by {span}; {len(best.windows)} reports match"
    bad = [w for w in best.windows if w.status != MATCH]
    first = bad[0]
    counts = {s: sum(w.status == s for w in bad) for s in (MISMATCH, MISSING, EXTRA)}
    summary = ", ".join(f"{n} {s.lower()}" for s, n in counts.items() if n)
    detail = first.diagnostics[0] if first.diagnostics else first.status
    where = f"window {_span(first.expected)}: " if first.expected is not None else ""
    pattern = f" — pattern: {findings_text(verdict.findings)}" if verdict.findings else ""
    return f"best t0={best.t0}: {summary} of {len(best.windows)} reports{pattern}; first: {where}{detail}"
