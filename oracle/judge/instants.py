"""The diagnosis of the kinds judged at fixed instants: several windows, time-annotated data.

Their expected reports have no window of their own (an evaluation instant, the contents of several windows
or of the facts valid then), so the per-window hypotheses that need one window's elements — provenance,
gracious borders — do not apply.  What does: each wrong report's status and place in the output stream
(missing, extra, out of order, early), the same solutions with other multiplicities, the relation of the
neighbouring evaluation, an empty relation where the oracle has solutions, and the solutions missing or
extra, shown.  The kind's own faults of the whole output (a window read as another, an instant policy other
than declared, a validity end or an expiration mishandled: :func:`oracle.compare.fixed`) stay the headline.
"""

from __future__ import annotations

from collections import Counter

from oracle.compare import MATCH, MISMATCH, CaseVerdict
from oracle.judge.explain import SHOWN, headline_first, multiplicity_explains, precise_diff, shifted, status
from oracle.r2r.terms import show_solution


def diagnose_instants(verdict: CaseVerdict, distinct: bool) -> None:
    """Fill in the wrong reports' diagnostics and the verdict's findings (in place); ``distinct``: the
    query has DISTINCT.  A whole-output fault the kind's module found explains every report already."""
    best = verdict.best
    whole = dict(verdict.findings)
    found: Counter = Counter(whole)
    expected = [w.expected for w in best.windows if w.expected is not None]
    order = {id(e): i for i, e in enumerate(expected)}
    for w in best.windows:
        if w.status == MATCH:
            continue
        kinds = status(w)
        if w.status == MISMATCH and (w.missing or w.extra) and not whole:  # else the whole-output fault says it
            i = order.get(id(w.expected))
            neighbours = [("previous", expected[i - 1] if i else None),
                          ("next", expected[i + 1] if i is not None and i + 1 < len(expected) else None)]
            text = None if multiplicity_explains(w, distinct, kinds) else shifted(w, neighbours)
            if text:
                kinds.add("shifted")
                w.diagnostics.append(text)
            elif not kinds and w.actual_size == 0 and w.expected_size:
                kinds.add("empty")
                w.diagnostics.append(f"no solutions where the oracle has {w.expected_size}")
            if not kinds or kinds == {"empty"}:
                precise = precise_diff(w)
                w.diagnostics += [f"missing {show_solution(r, precise)}" for r in w.missing[:SHOWN]]
                w.diagnostics += [f"extra {show_solution(r, precise)}" for r in w.extra[:SHOWN]]
        if whole:  # one cause explains every report: its consequences are said per report, not counted
            continue
        for kind in kinds:
            found[kind] += 1
    found.update(verdict.context.get("partial", {}))  # a fault that explains every report the engine made
    verdict.findings = headline_first(found)
