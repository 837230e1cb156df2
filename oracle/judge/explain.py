"""Explanations a person can act on: per-window diagnostics, a readable bag diff, a one-line reason.

For every window of the best explanation that is not an exact match, :func:`diagnose` adds
- the missing and extra solutions, each with its provenance (the stream elements that derive it and
  whether they lie inside the expected window), and
- the gracious-mode reconstruction of the window the engine seems to have used (for the first
  :data:`GRACIOUS_WINDOWS` wrong windows, borders searched within one window range of the expected ones).

Cheap hypotheses come first, because each names its fault exactly and a border search would only blur
it: a report out of order or too early; the same solutions with other multiplicities; the R2S operator
applied wrongly (the whole relation, or set differences); the relation of the neighbouring window.  Only
a window none of these explains gets provenance and gracious mode.  After the windows: drifting window
starts and windows of another width, from the borders the engine declares or gracious mode found.

Diagnosis is bounded by work, never by the clock, so that the same inputs give the same reason on any
machine: the first :data:`DIAGNOSED_WINDOWS` wrong windows get hypotheses and provenance (later ones their
status only, and a note says so), gracious mode searches the first :data:`GRACIOUS_WINDOWS`, each over
at most a fixed number of candidate borders.  The case timeout (``deadline``) stays a safety net: past
it the diagnosis stops and the note says that this part of the reason depends on the machine's speed.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import replace

from rdflib import BNode, Literal
from rdflib.namespace import XSD

from oracle.compare import EXTRA, MATCH, MISMATCH, MISSING, CaseVerdict, WindowResult
from oracle.findings import FINDINGS
from oracle.judge.clocks import clock_drift
from oracle.judge.gracious import reconstruct
from oracle.judge.provenance import Provenance
from oracle.judge.shapes import WHOLE, shape_findings
from oracle.judge.words import GRAIN_WORDS, INSTANTS, WHOLE_OUTPUT, place
from oracle.judge.words import span as window_span
from oracle.model import GRAINS
from oracle.r2r.evaluators import EvaluatorDisagreement
from oracle.r2r.query import R2R, QueryError
from oracle.r2r.solutions import Solutions
from oracle.r2r.terms import NUMERIC, show_solution

SHOWN = 5
#: gracious mode costs up to a few dozen R2R evaluations per window: run it on the first wrong windows
GRACIOUS_WINDOWS = 8
#: wrong windows that get hypotheses and provenance; later ones get their status only (a bound on work)
DIAGNOSED_WINDOWS = 250


def _bad_literal(row: dict) -> bool:
    """A null printed as a value ("null", "None") or a literal whose lexical form its datatype rejects."""
    return any(isinstance(v, Literal) and (getattr(v, "ill_typed", False) or str(v) in ("null", "None"))
               for v in row.values())


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


def _multiplicity(w: WindowResult, distinct: bool) -> str | None:
    """The finding when the window's bags hold the same solutions with other multiplicities (``distinct``:
    the query has DISTINCT)."""
    e, a = Counter(w.expected.solutions.keys), Counter(w.actual_solutions.keys)
    if e == a or set(e) != set(a):
        return None
    if distinct and any(n > 1 for n in a.values()):
        return "distinct"
    return "multiplicity"


def _r2s_fault(w: WindowResult, operator: str, relation: Solutions, previous: Solutions | None) -> str | None:
    """'r2s-rstream' if the engine streamed the whole relation, 'r2s-set' if it took set differences."""
    if operator == "rstream":
        return None
    actual = Counter(w.actual_solutions.keys)
    if Counter(relation.keys) == actual:
        return "r2s-rstream"
    before = previous.keys if previous is not None else ()
    current = relation.keys
    a, b = (current, before) if operator == "istream" else (before, current)
    gone = set(b)
    if Counter(k for k in a if k not in gone) == actual:
        return "r2s-set"
    return None


def multiplicity_explains(w: WindowResult, distinct: bool, kinds: set) -> bool:
    """Whether the window holds the oracle's solutions with other multiplicities (said, and its finding added)."""
    fault = _multiplicity(w, distinct)
    if not fault:
        return False
    kinds.add(fault)
    w.diagnostics.append("same solutions, different multiplicities: " + (
        "the query has DISTINCT and the engine repeats solutions" if fault == "distinct" else
        "the engine's relation looks duplicate-free" if all(
            n == 1 for n in Counter(w.actual_solutions.keys).values()) else
        "the engine repeats solutions the oracle has fewer times"))
    return True


def shifted(w: WindowResult, neighbours) -> str | None:
    """Which neighbouring expected report's solutions the engine's equal (a relation one window off)."""
    actual = Counter(w.actual_solutions.keys)
    for label, other in neighbours:
        if other is not None and Counter(other.solutions.keys) == actual and other.solutions.keys:
            where = (f"evaluation (t={other.tau})" if other.reason in INSTANTS
                     else f"window [{other.opening}, {other.closing})")
            return f"the engine reported the relation of the {label} {where} here"
    return None


def precise_diff(w: WindowResult) -> bool:
    """Whether the diff must show datatypes and language tags: a missing and an extra solution read the same."""
    return bool({show_solution(r) for r in w.missing} & {show_solution(r) for r in w.extra})


def _whole_output(verdict: CaseVerdict, query: R2R, forms: dict) -> tuple[list[str], str] | None:
    """A single fault that explains the engine's *whole* output exactly, tried before any window is
    looked at: duplicate-free relations (the same profile with multiplicity set), the whole relation
    streamed (r2s rstream), or every relation one window late or early.  (findings, sentence) or None;
    two findings when the output cannot tell two faults apart."""
    best = verdict.best
    profile = best.profile
    if profile.multiplicity == "bag" and verdict.explains(query, replace(profile, multiplicity="set")):
        text = ("same solutions, different multiplicities: the engine's relation looks duplicate-free — its whole "
                "output is exactly the oracle's under multiplicity: set (declare it if that is the engine's semantics)")
        if profile.r2s != "rstream" and _set_difference_explains(best, query, profile):
            return ["multiplicity", "r2s-set"], text + (f"; or its {profile.r2s.capitalize()} is a set difference: "
                                                        "this output cannot tell the two apart")
        return ["multiplicity"], text
    if "window-close" in profile.report:  # which of the windows one moment closes reports
        grains = [g for g in GRAINS if g != profile.grain and verdict.explains(query, replace(profile, grain=g))]
        if grains:
            return ["grain"], ("the whole output is exactly the oracle's under grain " + " or ".join(grains)
                               + f", not the declared {profile.grain}: of the windows one moment closes it reports "
                               + " or ".join(GRAIN_WORDS[g] for g in grains) + f", not {GRAIN_WORDS[profile.grain]}"
                               + (" (this output cannot tell them apart)" if len(grains) > 1 else ""))
    if profile.r2s != "rstream" and verdict.explains(query, replace(profile, r2s="rstream")):
        return ["r2s-rstream"], (f"the engine's output is exactly the oracle's Rstream: it streams every relation whole "
                               f"instead of its {profile.r2s.capitalize()}")
    paired = [w for w in best.windows if w.expected is not None and w.actual_solutions is not None]
    wrong = [i for i, w in enumerate(paired) if w.status == MISMATCH]
    if wrong and all(_form(paired[i], query, forms) for i in wrong):
        return None  # each wrong relation is the window's own, written another way: not a neighbour's
    for step, label in ((1, "late"), (-1, "early")):
        def same_as(i):
            j = i - step
            other = paired[j].expected.solutions.keys if 0 <= j < len(paired) else ()
            return Counter(other) == Counter(paired[i].actual_solutions.keys), bool(other)
        checks = [same_as(i) for i in wrong]
        if wrong and all(ok for ok, _ in checks) and any(full for _, full in checks):
            return ["shifted"], f"every wrong report holds the relation the oracle has one window {'earlier' if step == 1 else 'later'}: the engine reports one window {label}"
    return None


def _relations(query: R2R, report, previous, multiplicity: str) -> tuple[Solutions, Solutions | None]:
    """The evaluated relation of a window and of the one before it (duplicate-free under a set profile):
    what the R2S operator takes its differences of."""
    relation = query.evaluate(report.content)
    before = query.evaluate(previous.content) if previous is not None else None
    if multiplicity == "set":
        return relation.distinct(), before.distinct() if before is not None else None
    return relation, before


def _set_difference_explains(best, query: R2R, profile) -> bool:
    """Whether taking set differences explains every wrong window of the best explanation."""
    previous = None
    for w in best.windows:
        if w.status == MISMATCH and w.expected is not None:
            relation, prev_rel = _relations(query, w.expected, previous, profile.multiplicity)
            if _r2s_fault(w, profile.r2s, relation, prev_rel) != "r2s-set":
                return False
        elif w.status != MATCH:
            return False
        previous = w.expected if w.expected is not None else previous
    return True


def diagnose(verdict: CaseVerdict, query: R2R, gracious: bool = True, provenance: bool = True,
             deadline: float | None = None) -> None:
    """Fill in ``diagnostics`` and ``gracious`` of the best explanation's windows (in place), and the
    verdict's findings: per wrong window its status, then the cheap hypotheses, then provenance; gracious
    mode's border search runs last, over the first windows nothing else explained.  ``deadline`` (a
    monotonic instant: the case timeout) stops it early, saying so."""
    best = verdict.best
    forms: dict = {}  # each wrong window's relation written another way, worked out once (_form)
    whole_fault = _whole_output(verdict, query, forms)
    if whole_fault:
        verdict.notes.append(whole_fault[1])
    prov = Provenance(query) if provenance else None
    whole = (0, len(query.stream)) if len(query.stream) else (0, 0)
    expected = [w.expected for w in best.windows if w.expected is not None]
    order = {id(e): i for i, e in enumerate(expected)}
    previous = None
    borders_left: list = []
    found: Counter = Counter()
    for finding in whole_fault[0] if whole_fault else ():
        if finding in WHOLE_OUTPUT:  # a fault of the whole output leads, whatever its windows' statuses
            found[finding] += 1
    diagnosed = 0
    for index, w in enumerate(best.windows):
        if _late(deadline):
            verdict.notes.append(f"diagnosis stopped at the case timeout: windows from {index} on are not diagnosed "
                                 "(this part of the reason depends on the machine's speed; raise --case-timeout)")
            break
        if w.status == MATCH:
            previous = w.expected
            continue
        e = w.expected
        kinds = status(w)
        diagnosed += 1
        if diagnosed == DIAGNOSED_WINDOWS + 1:
            verdict.notes.append(f"diagnosis bounded: the wrong windows after the first {DIAGNOSED_WINDOWS} (from "
                                 f"window {index} on) carry only their status")
        # the cheap hypotheses need both sides; a MISSING or EXTRA report goes straight to provenance
        explained = not (w.missing or w.extra) or diagnosed > DIAGNOSED_WINDOWS
        if not explained:
            i = order.get(id(e))
            neighbours = [("previous", expected[i - 1] if i else None),
                          ("next", expected[i + 1] if i is not None and i + 1 < len(expected) else None)]
            explained = _explain_window(w, query, whole_fault, previous, neighbours, best.profile, prov, whole,
                                        kinds, forms)
        # an empty relation no hypothesis explained: said first; and a sliver of a window explains nothing
        emptied = not explained and _empty(w, query, prov, kinds)
        if (gracious and not explained and not emptied and w.status == MISMATCH and e is not None
                and len(borders_left) < GRACIOUS_WINDOWS):
            borders_left.append((w, previous))  # second pass: the costly search comes after every window's findings
        previous = e if e is not None else previous
        for kind in kinds:
            found[kind] += 1
    found["borders"] += _graciously(verdict, query, borders_left, deadline)
    if not found["borders"]:
        del found["borders"]
    shapes = shape_findings(best, verdict, query)
    for kind, text in shapes:
        found[kind] += 1
        verdict.notes.append(text)
    if not whole_fault and not any(text.startswith(WHOLE) for _, text in shapes):
        text = clock_drift(verdict, query)  # the recording's clock, not its windows
        if text:
            found["clock-drift"] += 1
            verdict.notes.append(text)
    if not any(kind in WHOLE_OUTPUT for kind in found):  # a cause of the whole output says more than its symptom
        text = stops(best, query.stream.times)
        if text:
            found["stops"] += 1
            verdict.notes.append(text)
    verdict.findings = headline_first(found)


#: missing reports after an engine's last one, made while the stream ran, before "its reports stop" is said
STOPPED_AFTER = 2


def stops(best, times: list[int]) -> str | None:
    """The words for an output whose reports stop while the stream still runs: the engine made reports,
    none extra, and after the last oracle report it answered come at least :data:`STOPPED_AFTER` more
    made by the stream's last element (``times``: the elements' times), every one missing; or None.  A symptom,
    not a cause: windows that drift away from the stream, an engine that hangs or dies quietly, a clock
    that stops all end like this, and the output alone cannot tell which."""
    if any(w.status == EXTRA for w in best.windows):
        return None
    answered = [i for i, w in enumerate(best.windows) if w.expected is not None and w.actual is not None]
    if not answered:
        return None  # no report at all: the empty output's own rule says what it can
    last = best.windows[answered[-1]].expected
    after = [w.expected for w in best.windows[answered[-1] + 1:] if w.expected is not None]
    end = max(times, default=None)
    running = [e for e in after if e.reason != "end-of-stream" and end is not None and e.tau <= end]
    if len(running) < STOPPED_AFTER:
        return None
    return (f"the engine's reports stop: after its report for {place(last)} it reports nothing, though the oracle "
            f"has {len(running)} more report{'s' if len(running) != 1 else ''} while the stream still runs (up to "
            f"{place(running[-1])}{'' if running[-1].reason in INSTANTS else f' at t={running[-1].tau}'})")


def headline_first(found: Counter) -> dict[str, int]:
    """The findings in the order a reason names them: those about the whole output, then per-window ones
    by how many windows each explains (one cause, one headline), ties in the registry's order."""
    rank = {k: i for i, k in enumerate(FINDINGS)}
    return dict(sorted(((k, n) for k, n in found.items() if k in rank and n),
                       key=lambda kn: (kn[0] not in WHOLE_OUTPUT, -kn[1], rank[kn[0]])))


def _explain_window(w: WindowResult, query: R2R, whole_fault, previous, neighbours, profile, prov, whole,
                    kinds: set[str], forms: dict) -> bool:
    """One wrong window's diagnosis: the cheap hypotheses (both sides present), then provenance; whether a
    hypothesis explained it.  A trial of the diagnosis never changes the verdict: an evaluator
    disagreement met here is a note on the window."""
    try:
        if w.status == MISMATCH and _cheap_hypotheses(w, query, whole_fault, previous, neighbours, profile, kinds,
                                                      forms):
            return True
        if prov is not None:
            # a Dstream solution is one that left: it comes from the previous window's content
            source = previous if profile.r2s == "dstream" and previous is not None else w.expected
            _missing_from(w, prov, source, kinds)
            _extra_from(w, prov, whole, kinds)
            for label, rows in (("missing", w.missing), ("extra", w.extra)):
                if len(rows) > SHOWN:
                    w.diagnostics.append(f"… and {len(rows) - SHOWN} more {label} solutions")
        return False
    except EvaluatorDisagreement as exc:
        w.diagnostics.append(f"not diagnosed further: {_disagreement(exc)}")
        return True


def status(w: WindowResult) -> set[str]:
    """The findings a window's status and timing show on their own (said in its diagnostics)."""
    kinds: set[str] = set()
    e = w.expected
    if w.timing:
        kinds.add("early" if "before the window could report" in w.timing else "out-of-order")
        w.diagnostics.append(w.timing)
    if w.status == MISSING:
        kinds.add("missing-report")
        w.diagnostics.append(f"MISSING: the oracle reports {place(e)}"
                             f"{'' if e.reason in INSTANTS else f' at t={e.tau}'} "
                             f"({len(e.solutions)} solutions) and the engine has no report for it")
    elif w.status == EXTRA:
        kinds.add("extra-report")
        w.diagnostics.append(f"EXTRA: the engine reported {w.actual_size} solutions"
                             f"{' at t=' + str(w.actual.tau) if w.actual.tau is not None else ''}"
                             " where the oracle has no report")
    elif w.status == MISMATCH and not w.order_ok and not w.missing and not w.extra:
        w.diagnostics.append("same solutions in a different order, but the query has ORDER BY")
    return kinds


def _empty(w: WindowResult, query: R2R, prov, kinds: set[str]) -> bool:
    """An engine's relation that is empty where the oracle's, derived from the window's elements, is not:
    said first, with what the query's
    pattern asks (a join of several triple patterns, blank nodes an engine may read as constants).  Such a
    window gets no border search: some sliver of a window always holds nothing, and would 'explain' it."""
    if not (w.status == MISMATCH and w.actual_size == 0 and w.expected_size and query.form != "AskQuery"):
        return False
    if prov is None or not w.missing or not prov.derivations(w.missing[0], w.expected.content, limit=1):
        return False  # a solution no element derives (an empty aggregate's 0): provenance says so
    kinds.add("empty")
    words = f"no solutions where the oracle has {w.expected_size}"
    patterns = prov.patterns if prov is not None else []
    if len(patterns) >= 2:
        words += f"; each of those joins {len(patterns)} triple patterns"
        blank = sorted({str(x) for tp in patterns for x in tp if isinstance(x, BNode)})
        if blank:
            words += (f", through {len(blank)} blank node{'s' if len(blank) != 1 else ''} of the query ([ … ] or "
                      "_:b), which are variables: an engine that reads them as constants finds nothing")
    w.diagnostics.insert(0, words)
    return True


def _cheap_hypotheses(w: WindowResult, query: R2R, whole_fault, previous, neighbours, profile, kinds: set,
                      forms: dict) -> bool:
    """Whether one cheap, exact hypothesis explains the window (added to ``kinds`` and its diagnostics): a
    fault of the whole output, other multiplicities, the R2S operator done otherwise, a neighbouring
    window's relation."""
    if whole_fault:
        kinds.update(whole_fault[0])
        w.diagnostics.append(whole_fault[1])
        return True
    if multiplicity_explains(w, query.distinct, kinds):
        return True
    form = _form(w, query, forms)
    if form:
        kinds.update(form[0] if isinstance(form[0], tuple) else (form[0],))
        w.diagnostics.append(form[1])
        return True
    operator = profile.r2s
    relation, prev_rel = _relations(query, w.expected, previous, profile.multiplicity)
    fault = _r2s_fault(w, operator, relation, prev_rel)
    if fault:
        kinds.add(fault)
        w.diagnostics.append(
            f"the engine streamed the window's whole relation, not its {operator.capitalize()}"
            if fault == "r2s-rstream" else
            f"the engine's {operator.capitalize()} is a set difference: a solution already in the "
            "previous relation cancels every copy of it, not one")
        return True
    text = shifted(w, neighbours)
    if text:
        kinds.add("shifted")
        w.diagnostics.append(text)
        return True
    return False


def _plain(term, lang: bool = True, datatype: bool = True):
    """A literal without its language tag (``lang``) or its datatype (``datatype``): the lexical form kept."""
    if isinstance(term, Literal) and ((lang and term.language) or (datatype and term.datatype)):
        return Literal(str(term))
    return term


def _primary(term):
    """A language-tagged literal with its tag cut to the primary language subtag (``en-GB`` to ``en``)."""
    if isinstance(term, Literal) and term.language and "-" in term.language:
        return Literal(str(term), lang=term.language.split("-")[0])
    return term


def _form(w: WindowResult, query: R2R, forms: dict):
    """:func:`_solution_form`, once per window of one diagnosis (the neighbour test asks it first)."""
    if id(w) not in forms:
        forms[id(w)] = _solution_form(w, query)
    return forms[id(w)]


def _solution_form(w: WindowResult, query: R2R) -> tuple[str, str] | None:
    """(finding, words) when the engine's relation is exactly the oracle's written another way: every literal
    as plain text (numbers as strings, language tags or datatypes dropped), or without the solutions that
    leave an OPTIONAL's variables unbound (OPTIONAL read as an inner join); else None.  Exact over the whole
    window's bags, never from a sample of its rows."""
    if w.expected is None or w.actual_solutions is None:
        return None
    expected, actual = w.expected.solutions.rows, w.actual_solutions.rows

    def bag(rows) -> Counter:  # compared as the window was (oracle/r2r/terms.py), GROUP_CONCAT's pieces in any order
        return Counter(query.solutions(rows).keys)
    want, got = bag(expected), bag(actual)
    if want != got:
        for lost, lang, datatype in (("language tags", True, False), ("datatypes (numbers as strings)", False, True),
                                     ("datatypes and language tags", True, True)):
            plain = bag({k: _plain(v, lang, datatype) for k, v in row.items()} for row in expected)
            if plain == got and plain != want:
                return "literal-form", (f"the engine's relation is exactly the oracle's with its literals' {lost} "
                                        "dropped, their lexical forms kept")
        primary = bag({k: _primary(v) for k, v in row.items()} for row in expected)
        if primary == got and primary != want:
            return "literal-form", ("the engine's relation is exactly the oracle's with its language tags' region "
                                    "subtags dropped (en-GB read as en), their lexical forms kept")
    if want != got:
        coarse = bag({k: _coarse(v) for k, v in row.items()} for row in expected)
        if coarse == bag({k: _coarse(v) for k, v in row.items()} for row in actual):
            lost = sorted(_numbers(expected) - _numbers(actual), key=lambda t: (len(t), t))
            gained = sorted(_numbers(actual) - _numbers(expected), key=lambda t: (len(t), t))
            example = f" ({lost[0]} where the engine has {gained[0]})" if lost and gained else ""
            return "number-precision", ("the engine's relation is exactly the oracle's with numbers equal to 12 "
                                        f"significant digits and no further{example}: it loses the last digits of "
                                        "large numbers, as when they pass through floating point or a %.12g format")
    if query.form == "AskQuery" and w.expected.content[0] == w.expected.content[1]:
        answers = [row.get("ask") for row in expected], [row.get("ask") for row in actual]
        if answers == ([Literal(False)], [Literal(True)]):
            return "ask-true", "the engine answers ASK true over a window that holds no element"
    if (query.form == "SelectQuery" and query.grouped and not expected and len(actual) == 1
            and all(_zero(v) for v in actual[0].values() if v is not None)):
        return "group-over-nothing", ("the oracle has no group here (nothing matched, and GROUP BY over no solution "
                                      "makes no group) and the engine reports one, its aggregates 0 or unbound")
    counted = COUNTED.findall(query.text)
    if counted and query.form == "SelectQuery" and query.grouped:
        unbound = bag({k: v for k, v in row.items() if not (k in counted and _zero(v))} for row in expected)
        if unbound == got and unbound != want:
            return "count-unbound", ("the engine's relation is exactly the oracle's with each COUNT of 0 left unbound: "
                                     "a group whose counted values are all unbound (an OPTIONAL that matched "
                                     "nothing) gets no count, not 0")
        kept = [row for row in expected if not any(_zero(row.get(v)) for v in counted)]
        if len(kept) < len(expected) and bag(kept) == got:
            words = (f"the engine's relation is exactly the oracle's without its {len(expected) - len(kept)} "
                     "solutions whose COUNT is 0: it drops the groups that matched nothing")
            if query.optional:  # a group of 0 comes from an OPTIONAL that matched nothing: an inner join drops it too
                words += (", or reads OPTIONAL as an inner join (which makes no such group): this window cannot "
                          "tell the two apart")
                return ("empty-groups", "optional-inner"), words
            return "empty-groups", words
    shared = _shared_template(query) if want != got else None
    if shared is not None:
        try:
            filled = _variant(query, shared).evaluate(w.expected.content).rows
        except QueryError:  # a brace in a template's literal cut the text wrong: not tried
            filled = None
        blank = {}  # each template blank node's IRI read back as one blank node
        if filled is not None and bag({k: blank.setdefault(v, BNode(f"t{len(blank)}")) if str(v).startswith(SHARED)
                                       else v for k, v in row.items()} for row in filled) == got:
            return "shared-blank-node", ("the engine's graph is exactly the oracle's with one blank node for each "
                                         "of the template's in the whole window, shared by every solution: "
                                         "SPARQL makes them fresh for each solution")
    for finding, words, rewrite in REWRITES:  # the query as an engine with an aggregate fault reads it
        text = rewrite(query.text)
        if text != query.text and bag(_variant(query, text).evaluate(w.expected.content).rows) == got:
            return finding, words
    if query.optional and actual:
        bound = set().union(*(set(k for k, v in row.items() if v is not None) for row in expected))
        full = [row for row in expected if all(row.get(k) is not None for k in bound)]
        if len(full) < len(expected) and bag(full) == got:
            return "optional-inner", (f"the engine's relation is exactly the oracle's without its "
                                      f"{len(expected) - len(full)} solutions that leave an OPTIONAL's variables "
                                      "unbound: OPTIONAL read as an inner join")
    return None


def _calls(text: str, pattern: re.Pattern, written) -> str:
    """``text`` with every call that ``pattern`` opens (up to its parenthesis, parentheses balanced) written
    ``written(opening, arguments)``: the opening as matched, the text between the parentheses."""
    out, i = [], 0
    while (m := pattern.search(text, i)) is not None:
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        out.append(text[i:m.start()] + written(m.group(), text[m.end():j - 1]))
        i = j
    return "".join(out) + text[i:]


def _wrapped(text: str, name: str, before: str, after: str) -> str:
    """``text`` with every call ``name(…)`` (case-insensitive) written ``before + name(…) + after``."""
    return _calls(text, re.compile(rf"\b{name}\s*\(", re.I), lambda call, args: f"{before}{call}{args}){after}")


#: a COUNT call, its DISTINCT if any
COUNT_CALL = re.compile(r"\bCOUNT\s*\(\s*(?:DISTINCT\s+)?", re.I)
#: what a COUNT counts that can be no error: every solution, or a variable's bound values
NEVER_ERRS = re.compile(r"\s*(?:\*|[?$]\w+)\s*")
#: a value no counted expression gives (a string of the kit's own), standing in for an error
ERROR_VALUE = '"urn:rspconf:count-error"'


def _counts(text: str, written) -> str:
    """``text`` with each COUNT of an expression, ``COUNT(e)`` (``call``: ``COUNT(`` with its DISTINCT if any),
    written ``written(call, e)``; ``COUNT(*)`` and ``COUNT(?v)``, which never err, as they are."""
    return _calls(text, COUNT_CALL, lambda call, e: f"{call}{e})" if NEVER_ERRS.fullmatch(e) else written(call, e))


def _counting_errors(text: str) -> str:
    """Each COUNT of an expression counting its errors too: ``COUNT(COALESCE(e, error))``."""
    return _counts(text, lambda call, e: f"{call}COALESCE({e}, {ERROR_VALUE}))")


def _unbound_on_error(text: str) -> str:
    """Each COUNT of an expression an error (``1/0``) in a group where the expression errs: there counting its
    errors too gives another number."""
    return _counts(text, lambda call, e: f"IF({call}{e}) = {call}COALESCE({e}, {ERROR_VALUE})), {call}{e}), 1/0)")


#: faults of an aggregate, as the query an engine with the fault answers: (finding, words, rewrite)
REWRITES = (
    ("avg-integer", "the engine's relation is exactly that of the query with each AVG an integer division "
                    "(FLOOR of the mean, an xsd:integer): its means of integers lose their fraction",
     lambda text: _wrapped(text, "AVG", f"<{XSD.integer}>(FLOOR(", "))")),
    ("count-distinct", "the engine's relation is exactly that of the query with COUNT(DISTINCT …) read as "
                       "COUNT(…): it counts repeated values again",
     lambda text: re.sub(r"\bCOUNT\s*\(\s*DISTINCT\s+", "COUNT(", text, flags=re.I)),
    ("concat-distinct", "the engine's relation is exactly that of the query with GROUP_CONCAT(DISTINCT …) read as "
                        "GROUP_CONCAT(…): it joins repeated values again",
     lambda text: re.sub(r"\bGROUP_CONCAT\s*\(\s*DISTINCT\s+", "GROUP_CONCAT(", text, flags=re.I)),
    ("count-errors", "the engine's relation is exactly that of the query with each COUNT of an expression counting "
                     "the expression's errors too: SPARQL counts only its bound, non-error values (§18.5.1.2)",
     _counting_errors),
    ("count-error-unbound", "the engine's relation is exactly that of the query with each COUNT of an expression "
                            "unbound in a group where the expression errs: SPARQL counts the bound, non-error values "
                            "(§18.5.1.2), and a COUNT is never an error",
     _unbound_on_error),
)


#: the IRIs :func:`_shared_template` writes for a template's blank nodes
SHARED = "urn:rspconf:template-blank-node:"
#: what a scan for the template's closing brace steps over whole: strings, IRIs, comments
TEMPLATE_TOKENS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
                             r"|<[^<>\s]*>|#[^\n]*|[{}]")


def _shared_template(query: R2R) -> str | None:
    """A CONSTRUCT query with each of its template's blank nodes written as an IRI of its own (None when the
    template has none): its graph is the one an engine gives that fills each blank node once for the whole
    window, with those IRIs for the blank nodes."""
    template = query.query.algebra.get("template") if query.form == "ConstructQuery" else None
    blanks = list(dict.fromkeys(x for triple in template or () for x in triple if isinstance(x, BNode)))
    start = re.search(r"\bCONSTRUCT\s*\{", query.text, re.I)
    if not blanks or start is None:
        return None
    depth, end = 1, start.end()  # the template's closing brace; a brace inside a string or an IRI is text
    for token in TEMPLATE_TOKENS.finditer(query.text, start.end()):
        depth += {"{": 1, "}": -1}.get(token.group(), 0)
        if not depth:
            end = token.end()
            break
    named = {b: f"<{SHARED}{i}>" for i, b in enumerate(blanks)}
    body = " ".join(" ".join(named.get(x) or x.n3() for x in triple) + " ." for triple in template)
    return f"{query.text[:start.end()]} {body} {query.text[end - 1:]}"


#: the variables a query binds to a COUNT (``COUNT(…) AS ?n``)
COUNTED = re.compile(r"COUNT\s*\((?:[^()]|\([^()]*\))*\)\s*AS\s*\?(\w+)", re.I)


def _coarse(term):
    """A number as its value to 12 significant digits (any other term as it is): two relations equal
    this way and not exactly differ only in the last digits of their numbers."""
    if isinstance(term, Literal) and term.datatype in NUMERIC:
        try:
            return Literal(f"{float(term):.12g}")
        except (TypeError, ValueError):  # an ill-typed lexical form: compared as it is
            return term
    return term


def _numbers(rows) -> set[str]:
    """The lexical forms of the numbers in ``rows``."""
    return {str(v) for row in rows for v in row.values() if isinstance(v, Literal) and v.datatype in NUMERIC}


def _zero(term) -> bool:
    return isinstance(term, Literal) and term.datatype is not None and str(term) == "0"


def _variant(query: R2R, text: str) -> R2R:
    """The query rewritten (:data:`REWRITES`) over the same stream, one per text for the query's life."""
    variants = query.__dict__.setdefault("_variants", {})
    if text not in variants:
        variants[text] = R2R(text, query.stream, "rdflib")
    return variants[text]


def _missing_from(w: WindowResult, prov: Provenance, source, kinds: set) -> None:
    """Where each missing solution comes from (the stream elements that derive it), or that none does."""
    e, precise = w.expected, precise_diff(w)
    for row in w.missing[:SHOWN]:
        ders = prov.derivations(row, source.content) if source is not None else []
        if ders and source is not e:
            w.diagnostics.append(f"missing {show_solution(row, precise)}, derived from the triples at "
                                 f"{_times(ders)} in the previous window {window_span(source)}, which it left")
        elif ders:
            w.diagnostics.append(f"missing {show_solution(row, precise)}, derived from the triples at "
                                 f"{_times(ders)}, inside expected window {window_span(e)}")
        else:
            kinds.add("absent-value")
            w.diagnostics.append(f"missing {show_solution(row, precise)}, which no stream element derives "
                                 f"in expected window {window_span(e)} (it comes from the absence of matches: an "
                                 "empty aggregate, a false ASK, an unbound OPTIONAL)")


def _extra_from(w: WindowResult, prov: Provenance, whole: tuple[int, int], kinds: set) -> None:
    """Where each extra solution comes from: elements inside or outside the expected window, a FILTER the
    engine did not apply, or nothing in the stream."""
    e, precise = w.expected, precise_diff(w)
    for row in w.extra[:SHOWN]:
        shown = show_solution(row, precise)
        group = prov.derivations(row, e.content) if e is not None and prov.aggregated(row) else []
        if group:  # the window holds the group: its value, not the window's elements, is what differs
            kinds.add("aggregate-value")
            w.diagnostics.append(f"extra {shown}: the expected window {window_span(e)} holds its group (the triples "
                                 f"at {_times(group)}), for which the oracle computes another value")
            continue
        ders = prov.derivations(row, whole)
        if _bad_literal(row):
            kinds.add("bad-literal")
        where = ""
        if e is not None and ders:
            inside = all(e.opening <= t < e.closing for d in ders for t in d.times)
            if not inside:
                kinds.update(_outside(ders, e))
            where = ", inside" if inside else ", outside"
            where += f" expected window {window_span(e)}"
        near = (e.opening, e.closing) if e is not None else None
        if ders:
            w.diagnostics.append(f"extra {shown}, derived from the triples at {_times(ders, near)}{where}")
            continue
        content = e.content if e is not None else whole
        pattern, rejecting = prov.rejected_by(row, content)
        if pattern and rejecting:
            kinds.add("filter")
            span = f"window {window_span(e)}" if e is not None else "stream"
            w.diagnostics.append(
                f"extra {shown}, derivable from the {span}'s triples at {_times(pattern, near)} by the "
                "graph pattern but rejected by " + " and ".join(f"FILTER({f})" for f in rejecting))
            continue
        pattern, rejecting = prov.rejected_by(row, whole) if content != whole else ([], [])
        if pattern:  # the graph pattern derives it, from elements outside the window: said as such
            kinds.update(_outside(pattern, e) | ({"filter"} if rejecting else set()))
        elif not _bad_literal(row):
            kinds.add("underived")
        if pattern:
            w.diagnostics.append(
                f"extra {shown}, derivable only from elements outside the expected window (the triples "
                f"at {_times(pattern, near)}), and there only by the graph pattern"
                + (": rejected by " + " and ".join(f"FILTER({f})" for f in rejecting) if rejecting else ""))
        else:
            w.diagnostics.append(f"extra {shown}, derivable from no stream element")


def _outside(derivations, e) -> set[str]:
    """``stale`` when every derivation needs an element from before the expected window, ``ahead`` when
    every one needs one from after it (none when the window is not known or the derivations differ)."""
    if e is None or not derivations:
        return set()
    if all(any(t < e.opening for t in d.times) for d in derivations):
        return {"stale"}
    if all(any(t >= e.closing for t in d.times) for d in derivations):
        return {"ahead"}
    return set()


def _disagreement(exc: EvaluatorDisagreement) -> str:
    """A trial window's evaluator disagreement, in words: the verdict stands, the hypothesis is not judged."""
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"{first[:300]} — a trial window of the diagnosis, so the verdict stands"


def _late(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() > deadline


def _graciously(verdict: CaseVerdict, query: R2R, windows: list, deadline: float | None) -> int:
    """Gracious mode over ``windows`` ((window, previous expected report) pairs): the borders that explain
    each best; how many windows have borders unlike the expected ones."""
    shown = 0
    operator = verdict.best.profile.r2s
    for w, previous in windows:
        e = w.expected
        if _late(deadline):
            verdict.notes.append(f"gracious mode stopped at the case timeout: the borders of window {window_span(e)} and "
                                 "later ones were not searched (this part of the reason depends on the machine's "
                                 "speed; raise --case-timeout)")
            break
        try:  # a trial window of gracious mode never changes the verdict
            prev_sol = query.evaluate(previous.content) if previous is not None else None
            g = reconstruct(query, operator, e.content, e.opening, e.closing, w.actual_solutions,
                            prev_sol, reach=e.closing - e.opening, deadline=deadline)
        except EvaluatorDisagreement as exc:
            w.diagnostics.append(f"gracious mode stopped: {_disagreement(exc)}")
            continue
        w.gracious = g.describe()
        if (g.opening, g.closing) != (e.opening, e.closing) and g.f1 > w.f1:
            shown += 1
            w.diagnostics.append(
                f"the engine's window looks like [{g.opening}, {g.closing}) "
                f"(gracious mode: precision {g.precision:.2f}, recall {g.recall:.2f}) instead of {window_span(e)}")
    return shown


def diff(w: WindowResult) -> str:
    """A readable diff of the expected and actual bags of one window ('-' missing, '+' extra); datatypes
    and language tags are shown when a missing and an extra solution would otherwise read the same."""
    precise = precise_diff(w)
    lines = [f"- {show_solution(r, precise)}" for r in w.missing] + [f"+ {show_solution(r, precise)}" for r in w.extra]
    return "\n".join(lines) if lines else "(bags equal)"


