"""Hand-written expected outputs in case files, and their check against the oracle.

A case may carry ``expected:`` blocks — a profile (with a fixed t0) and the reports a person worked out
by hand.  ``rspconf lint`` and the kit's tests check that the oracle computes exactly those reports,
so the corpus and the oracle keep each other honest.
"""

from __future__ import annotations

import re
from collections import Counter

from rdflib import BNode, Literal, URIRef

from conformance.corpus.cases import Case
from oracle import profiles
from oracle.expected.windows import output
from oracle.judge.kinds import kind
from oracle.r2r.query import R2R
from oracle.r2r.solutions import Solutions, same
from oracle.r2r.terms import show_solution

BNODE = re.compile(r"^_:[A-Za-z0-9_][A-Za-z0-9_.-]*$")
PNAME = re.compile(r"^([A-Za-z][\w-]*)?:([^\s]*)$")
LITERAL = re.compile(r'^"(.*)"(?:@([A-Za-z-]+)|\^\^(.+))?$', re.S)
XSD_NS = "http://www.w3.org/2001/XMLSchema#"


def parse_term(value, prefixes: dict[str, str]):
    """A term written in a case file: a prefixed name, <iri>, a blank node ``_:b1`` (compared up to
    isomorphism), a Turtle literal (kept as written), or a plain number."""
    if isinstance(value, bool):
        return Literal(value)
    if isinstance(value, (int, float)):
        return Literal(value)
    text = str(value)
    if text.startswith("<") and text.endswith(">"):
        return URIRef(text[1:-1])
    if BNODE.match(text):
        return BNode(text[2:])
    m = PNAME.match(text)
    if m and (m.group(1) or "") in prefixes:
        return URIRef(prefixes[m.group(1) or ""] + m.group(2))
    m = LITERAL.match(text)
    if m:
        lexical, lang, datatype = m.groups()
        if datatype:
            return Literal(lexical, datatype=parse_term(datatype, {"xsd": XSD_NS, **prefixes}), normalize=False)
        return Literal(lexical, lang=lang, normalize=False)
    return Literal(text)


def solutions(rows: list[dict], prefixes: dict[str, str]) -> list[dict]:
    return [{var: parse_term(v, prefixes) for var, v in row.items()} for row in rows]


def mismatches(case: Case, expectation: dict, stream) -> list[str]:
    """What differs between a hand-written expectation and the oracle's output (empty: agreement)."""
    profile = profiles.profile({"r2s": case.r2s, **expectation["profile"]}, case.window)
    how = kind(case.window)  # oracle/judge/kinds.py
    if how.fixed is not None:  # the instants are fixed: no t0 to choose
        return _compare(case, expectation, how.fixed.expected(stream, case.window, case.r2r, profile))
    stream = how.judged(stream)
    if not isinstance(profile.t0, int):
        return [f"{case.id}: a hand-written expectation needs a fixed integer t0 (count_t0 for a count window)"]
    got = output(stream, case.window, profile, profile.t0, R2R(case.r2r, stream))
    return _compare(case, expectation, got)


def _compare(case: Case, expectation: dict, got: list) -> list[str]:
    want = expectation["reports"]
    problems = []
    if len(got) != len(want):
        beyond = "".join(f"; the oracle's report {i}: window [{g.opening}, {g.closing}) at {g.tau}, solutions "
                         f"[{', '.join(show_solution(r) for r in g.solutions.rows)}]"
                         for i, g in enumerate(got[len(want):len(want) + 3], len(want)))
        problems.append(f"{case.id} ({expectation.get('note', 'expectation')}): the oracle gives {len(got)} reports, "
                        f"the hand-written expectation {len(want)}{beyond}")
    for i, (g, w) in enumerate(zip(got, want)):
        if "window" in w and [g.opening, g.closing] != list(w["window"]):
            problems.append(f"{case.id} report {i}: window [{g.opening}, {g.closing}) vs hand-written {w['window']}")
        if "tau" in w and g.tau != w["tau"]:
            problems.append(f"{case.id} report {i}: report time {g.tau} vs hand-written {w['tau']}")
        hand = Solutions.of(solutions(w["solutions"], case.prefixes), g.solutions.ordered, g.solutions.concat)
        if Counter(g.solutions.keys) != Counter(hand.keys):
            problems.append(f"{case.id} report {i}: solutions {list(g.solutions.rows)} vs hand-written {w['solutions']}")
        elif not same(g.solutions, hand):  # ORDER BY: a sequence, up to the order of tied rows
            problems.append(f"{case.id} report {i}: the hand-written solutions are in another order than ORDER BY "
                            f"gives: {[dict(r) for r in g.solutions.rows]}")
    return problems
