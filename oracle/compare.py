"""Comparing an engine's output with one expected output: alignment, per-window precision/recall, and the
result types every window kind's verdict is made of.

Precision and recall are over multisets, E = the engine's bag, O = the oracle's:
precision = |E ∩ O| / |E|, recall = |E ∩ O| / |O|; an empty E has precision 1, an empty O recall 1
(so both empty give 1 and 1); a report with no counterpart is MISSING (recall 0) or EXTRA
(precision 0), and counts with F1 = 0.

An RSP output stream is ordered by report time τ: a report whose τ is earlier than the one before it,
or (for an engine that labels reports with their windows) a report that comes after the report of a
later window, is out of order; and a labelled report cannot come before its window could report (a
window-close report before the close, any report before the last element it holds).  Either makes the
window a MISMATCH, whatever its solutions.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from rdflib import Literal

from oracle.expected.windows import reports
from oracle.findings import FINDINGS
from oracle.model import ExpectedReport, ObservedReport, Stream, WindowSpec
from oracle.r2r.query import R2R
from oracle.r2r.solutions import Solutions, same
from oracle.r2r.terms import coloured
from oracle.semantics import Profile

ALIGNMENTS = ("window", "time", "order")


MATCH, MISMATCH, MISSING, EXTRA = "MATCH", "MISMATCH", "MISSING", "EXTRA"


@dataclass
class WindowResult:
    """One aligned pair (expected report, engine report); either side may be absent."""

    status: str
    expected: ExpectedReport | None
    actual: ObservedReport | None
    actual_solutions: Solutions | None
    precision: float | None
    recall: float | None
    missing: list[dict] = field(default_factory=list)   # in the oracle's bag, not in the engine's
    extra: list[dict] = field(default_factory=list)     # in the engine's bag, not in the oracle's
    order_ok: bool = True
    diagnostics: list[str] = field(default_factory=list)
    gracious: dict | None = None
    timing: str | None = None   # why the report's place or time in the output stream is wrong

    @property
    def f1(self) -> float:
        p, r = self.precision or 0.0, self.recall or 0.0
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    @property
    def expected_size(self) -> int | None:
        return None if self.expected is None else len(self.expected.solutions)

    @property
    def actual_size(self) -> int | None:
        return None if self.actual_solutions is None else len(self.actual_solutions)


@dataclass
class Explanation:
    """One admissible explanation (profile variant + t0) and how well it explains the engine output."""

    profile: Profile
    t0: int
    t0_class: tuple[int, int]
    windows: list[WindowResult]

    @property
    def exact(self) -> bool:
        return all(w.status == MATCH for w in self.windows)

    @property
    def mean_f1(self) -> float:
        return sum(w.f1 for w in self.windows) / len(self.windows) if self.windows else 1.0

    def mean(self, attr: str) -> float:
        values = [getattr(w, attr) or 0.0 for w in self.windows]
        return sum(values) / len(values) if values else 1.0

    @property
    def matched(self) -> int:
        return sum(w.status == MATCH for w in self.windows)


@dataclass
class CaseVerdict:
    verdict: str
    best: Explanation
    explaining: list[tuple[dict, tuple[int, int]]]
    candidates: int
    alignment: str
    findings: dict[str, int] = field(default_factory=dict)  # failure pattern → windows showing it (explain.py)
    vacuous: bool = False   # a PASS that compared no report although the stream has data
    notes: list[str] = field(default_factory=list)          # what the verdict rests on, in words
    context: dict = field(default_factory=dict, repr=False)  # what explains() needs: stream, window, reports

    def explains(self, query: R2R, profile: Profile, window: WindowSpec | None = None,
                 stream: Stream | None = None, t0: int | None = None) -> bool:
        """Whether ``profile`` (and ``window``, and ``stream``: the same elements otherwise stamped) at the
        best explanation's t0 (or ``t0``) reproduces every report exactly: a cheap, whole-output hypothesis
        test for a diagnosis (e.g. the same profile with multiplicity set, the window a recording was really
        made with, a drifting clock, another t0)."""
        c = self.context
        if not c:
            return False
        stream = stream or c["stream"]
        # lazily: a hypothesis that is wrong costs only the R2R evaluations up to its first wrong report
        return exact(reports(stream, window or c["window"], profile, self.best.t0 if t0 is None else t0, query),
                     c["actual"], c["sols"], c["how"], profile, stream)


def unjudged(profile: Profile, t0: int, candidates: int, how: str, why: str) -> CaseVerdict:
    """The verdict when nothing could be compared (every t0 lies after the stream and the engine said
    nothing): neither PASS nor FAIL; ``why`` says so."""
    return CaseVerdict("UNJUDGED", Explanation(profile, t0, (t0, t0), []), [], candidates, how, notes=[why])


def observed_solutions(report: ObservedReport, form: str, concat=()) -> Solutions:
    """An engine report's solutions in the oracle's bag form; ``concat``: the query's (:attr:`R2R.concat`)."""
    sol = report.solutions
    if form == "AskQuery":
        return Solutions.of([{"ask": Literal(bool(sol))}])
    if form == "ConstructQuery":
        return Solutions.of([{"s": s, "p": p, "o": o} for s, p, o in sol])
    return Solutions.of(sol, ordered=True, concat=concat)


def compare_bags(expected: Solutions, actual: Solutions) -> WindowResult:
    if expected.ordered and same(expected, actual):
        # up to tied rows (their order, and which ones a LIMIT keeps): an exact match
        return WindowResult(MATCH, None, None, actual, 1.0, 1.0)
    e_count, a_count = Counter(expected.keys), Counter(actual.keys)
    common = sum((e_count & a_count).values())
    precision = 1.0 if not actual.keys else common / len(actual.keys)
    recall = 1.0 if not expected.keys else common / len(expected.keys)
    missing_budget = e_count - a_count
    extra_budget = a_count - e_count
    missing = _take(expected, missing_budget, expected.ordered)
    extra = _take(actual, extra_budget, expected.ordered)  # an engine's rows come in its order, a bag or not
    order_ok = not expected.ordered or bool(missing or extra)
    status = MATCH if (not missing and not extra and order_ok) else MISMATCH
    return WindowResult(status, None, None, actual, precision, recall, missing, extra, order_ok)


def earliest_tau(report: ExpectedReport, profile: Profile, stream: Stream) -> int:
    """The earliest application time at which a report of this window with this content can exist."""
    lo, hi = report.content
    last = stream.elements[hi - 1].t if hi > lo else None
    bound = report.closing + (1 if profile.close == ">" else 0) if report.reason in ("window-close", "end-of-stream") \
        else report.opening
    return bound if last is None else max(bound, last)


def out_of_order(actual: list[ObservedReport]) -> dict[int, str]:
    """Engine reports whose τ is earlier than the report before them: position → why."""
    out = {}
    for j in range(1, len(actual)):
        a, b = actual[j - 1].tau, actual[j].tau
        if a is not None and b is not None and b < a:
            out[j] = f"reported at τ={b} after a report at τ={a}: the output stream is not ordered by report time"
    return out


def _take(sols: Solutions, budget: Counter, ordered: bool) -> list[dict]:
    """The rows of ``sols`` that ``budget`` counts, each blank node named by its colour (:func:`coloured`); in
    their own order where the query's answer is a sequence (``ordered``), else in the order of their keys.
    A bag's order of evaluation can change from process to process (a CONSTRUCT's graph follows Python's
    hash seed), and so would the reason."""
    budget = Counter(budget)
    pairs = list(zip(sols.rows, sols.keys))
    if not ordered:
        pairs.sort(key=lambda pair: repr(pair[1]))
    out = []
    for row, key in pairs:
        if budget[key] > 0:
            budget[key] -= 1
            out.append(coloured(row, key))
    return out


def alignment_key(how: str):
    return (lambda r: (r.opening, r.closing)) if how == "window" else (lambda r: r.tau)


def positions_by_key(actual: list[ObservedReport], how: str) -> dict[Any, list[int]]:
    """Engine report positions by the key they align on (declared window or report time)."""
    pending: dict[Any, list[int]] = defaultdict(list)
    for j, a in enumerate(actual):
        key = (tuple(a.window) if a.window is not None else None) if how == "window" else a.tau
        pending[key].append(j)
    return pending


def align(expected: list[ExpectedReport], actual: list[ObservedReport], how: str) -> list[tuple[ExpectedReport | None, ObservedReport | None]]:
    """Pair oracle and engine reports by declared window, by report time, or by position."""
    if how == "order":
        n = max(len(expected), len(actual))
        return [(expected[i] if i < len(expected) else None, actual[i] if i < len(actual) else None)
                for i in range(n)]
    key_e = alignment_key(how)
    pending = positions_by_key(actual, how)
    pairs: list[tuple[ExpectedReport | None, ObservedReport | None]] = []
    used = set()
    for e in expected:
        queue = pending.get(key_e(e))
        if queue:
            j = queue.pop(0)
            used.add(j)
            pairs.append((e, actual[j]))
        else:
            pairs.append((e, None))
    for j, a in enumerate(actual):
        if j not in used:
            pairs.append((None, a))
    return pairs


ORDER_DP_LIMIT = 250_000  # expected × engine reports above which order alignment stays positional


def align_order(expected: list[ExpectedReport], actual: list[ObservedReport], sols: list[Solutions]):
    """Order alignment that may skip reports: the monotone pairing with the most exactly equal pairs,
    then the fewest skipped reports, then pairs as early as possible (Needleman–Wunsch).  One report
    missing at the start then costs one window instead of shifting every later pair; without exact
    pairs to gain it is the positional pairing.  Verdicts are those of positional alignment (an exact
    explanation pairs every report); only the diagnosis of a failure improves."""
    n, m = len(expected), len(actual)
    if n * m > ORDER_DP_LIMIT:
        return align(expected, actual, "order")
    ek = [Counter(e.solutions.keys) for e in expected]
    ak = [Counter(s.keys) for s in sols]
    gap = 1.0 / (n + m + 1)  # all gaps together weigh less than one exact pair
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n or j == m:
                score[i][j] = -gap * ((n - i) + (m - j))
                continue
            score[i][j] = max((ek[i] == ak[j]) + score[i + 1][j + 1], score[i + 1][j] - gap, score[i][j + 1] - gap)
    pairs: list[tuple[ExpectedReport | None, ObservedReport | None]] = []
    i = j = 0
    while i < n and j < m:
        if (ek[i] == ak[j]) + score[i + 1][j + 1] >= score[i][j] - 1e-12:
            pairs.append((expected[i], actual[j]))
            i, j = i + 1, j + 1
        elif score[i + 1][j] >= score[i][j + 1]:
            pairs.append((expected[i], None))
            i += 1
        else:
            pairs.append((None, actual[j]))
            j += 1
    pairs += [(e, None) for e in expected[i:]] + [(None, a) for a in actual[j:]]
    return pairs


def compare(expected: list[ExpectedReport], actual: list[ObservedReport], how: str, form: str,
            sols: list[Solutions], profile: Profile | None = None, stream: Stream | None = None) -> list[WindowResult]:
    """Per-window results; ``sols`` are the engine reports' solutions (converted once per check).
    With ``profile`` and ``stream``, a report out of order or too early (see the module docstring) is a
    MISMATCH with its ``timing`` said."""
    converted = {id(a): s for a, s in zip(actual, sols)}
    position = {id(a): j for j, a in enumerate(actual)}
    disorder = out_of_order(actual)
    expected_index = {id(e): i for i, e in enumerate(expected)}
    results = []
    pairs = align_order(expected, actual, sols) if how == "order" else align(expected, actual, how)
    late_window: dict[int, ExpectedReport] = {}
    if how == "window":  # the latest window reported before each engine report, in output order
        paired = sorted(((position[id(a)], e) for e, a in pairs if a is not None and e is not None), key=lambda x: x[0])
        latest = None
        for j, e in paired:
            if latest is not None and expected_index[id(e)] < expected_index[id(latest)]:
                late_window[j] = latest
            if latest is None or expected_index[id(e)] > expected_index[id(latest)]:
                latest = e
    for e, a in pairs:
        if a is None:
            results.append(WindowResult(MISSING, e, None, None, None, 0.0, list(e.solutions.rows)))
            continue
        a_sol = converted[id(a)]
        if e is None:
            results.append(WindowResult(EXTRA, None, a, a_sol, 0.0, None, [], list(a_sol.rows)))
            continue
        if form == "SelectQuery" and not e.solutions.ordered:
            a_sol = a_sol.unordered()
        w = compare_bags(e.solutions, a_sol)
        w.expected, w.actual = e, a
        j = position[id(a)]
        if j in disorder:
            w.timing = disorder[j]
        elif j in late_window:
            o = late_window[j]
            w.timing = (f"reported after the report of the later window [{o.opening}, {o.closing}): the output "
                        "stream is not ordered by report time")
        elif how == "window" and profile is not None and stream is not None and a.tau is not None \
                and a.tau < (earliest := earliest_tau(e, profile, stream)):
            w.timing = (f"reported at τ={a.tau}, before the window could report (τ ≥ {earliest}: "
                        f"{'its close' if e.reason in ('window-close', 'end-of-stream') else 'its last element'})")
        if w.timing:
            w.status = MISMATCH
        results.append(w)
    for w in results:  # an unpaired report out of order is still out of order
        if w.expected is None and w.actual is not None and position[id(w.actual)] in disorder:
            w.timing = disorder[position[id(w.actual)]]
    return results


def names(finding: str | tuple[str, ...]) -> tuple[str, ...]:
    """The findings a tried fault names: one, or a pair's two (``fixed``'s ``pairs``)."""
    return finding if isinstance(finding, tuple) else (finding,)


def fixed(expected_reports: list[ExpectedReport], actual: list[ObservedReport], how: str, form: str, profile: Profile,
          stream: Stream, basis: str, faults=(), pairs=()) -> CaseVerdict:
    """The verdict under one profile where nothing is left to enumerate (time-annotated data, several
    windows at one per-window t0 combination): PASS iff the reports are exactly the oracle's.  ``basis`` says, in the reason, what
    fixed the evaluation instants.  ``faults``: ``(finding, what the engine does, its reports)`` tried in
    order on a FAIL (the reports computed only then); each that reproduces the whole output is named (two
    that do are both named: the case cannot tell them apart).  ``pairs``: the same for two faults at once
    (their findings a pair), tried only when no one fault reproduces the output.  An output with no solution,
    where the oracle's has some, names none of them (any fault that empties the answer reproduces it): a note
    says which would, and the diagnosis names the symptom."""
    concat = next((e.solutions.concat for e in expected_reports), ())  # the query's, carried by its answers
    sols = [observed_solutions(a, form, concat) for a in actual]
    windows = compare(expected_reports, actual, how, form, sols)
    best = Explanation(profile, profile.t0 if isinstance(profile.t0, int) else 0, (0, 0), windows)
    context = {"fixed": basis}
    if all(w.status == MATCH for w in windows):
        return CaseVerdict("PASS", best, [(profile.describe(), (0, 0))], 1, how,
                           vacuous=not windows and len(stream) > 0, context=context)
    verdict = CaseVerdict("FAIL", best, [], 1, how, context=context)
    tried = [(finding, does, compare(reports_of(), actual, how, form, sols)) for finding, does, reports_of in faults]
    found = [(finding, does) for finding, does, under in tried if all(w.status == MATCH for w in under)]
    for finding, does, reports_of in pairs if not found else ():
        if all(w.status == MATCH for w in compare(reports_of(), actual, how, form, sols)):
            found.append((finding, does))
    if not any(len(s) for s in sols) and any(len(e.solutions) for e in expected_reports
                                             if not isinstance(e.solutions, bool)):
        # an output without a solution is what every fault that empties the answer gives: no evidence of one
        if found:
            verdict.notes.append("the output has no solution where the oracle has some, which cannot tell its "
                                 "cause apart: it is also the whole output of an engine that "
                                 + ", or of one that ".join(" and ".join(FINDINGS[f] for f in names(finding))
                                                            for finding, _ in found))
        return verdict
    if found:
        wrong = sum(w.status != MATCH for w in windows)
        verdict.findings = {name: wrong for finding, _ in found for name in names(finding)}
        verdict.notes.append("the whole output is exactly the oracle's for an engine that "
                             + ", and for one that ".join(does for _, does in found)
                             + (" (this case cannot tell them apart)" if len(found) > 1 else ""))
        return verdict
    wrong = sum(1 for w in windows if w.actual is not None and w.status != MATCH)
    for finding, does, under in tried:  # every report the engine made, though not every report: a part
        if f"{finding}-reports" not in FINDINGS:
            continue
        made = [w for w in under if w.actual is not None]
        if made and wrong and all(w.status == MATCH for w in made):
            lacking = sum(1 for w in under if w.actual is None)
            verdict.context.setdefault("partial", {})[f"{finding}-reports"] = wrong
            verdict.notes.append(f"each of the engine's {len(made)} report{'s' if len(made) != 1 else ''} is exactly "
                                 f"the oracle's for an engine that {does}"
                                 + (f"; {lacking} report{'s' if lacking != 1 else ''} of that engine's output "
                                    "it does not make" if lacking else ""))
    return verdict


def exact(expected_reports, actual: list[ObservedReport], sols: list[Solutions], how: str,
           profile: Profile, stream: Stream) -> bool:
    """Whether the lazily generated expected reports match the engine's exactly; stops at the first
    difference, so a wrong candidate costs only the R2R evaluations up to its first wrong report."""
    used = [False] * len(actual)
    index = positions_by_key(actual, how) if how != "order" else {}
    key_e = alignment_key(how)
    position = 0
    last_j = -1
    for e in expected_reports:
        if how == "order":
            j = position if position < len(actual) else None
            position += 1
        else:
            queue = index.get(key_e(e))
            j = queue.pop(0) if queue else None
        if j is None or j < last_j:
            return False
        last_j = j
        used[j] = True
        a = sols[j]
        if not same(e.solutions, a if e.solutions.ordered else a.unordered()):
            return False
        tau = actual[j].tau
        if how == "window" and tau is not None and tau < earliest_tau(e, profile, stream):
            return False
    return all(used)
