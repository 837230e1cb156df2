"""``rspconf sparql-suite``: the W3C SPARQL query-evaluation tests (default graph only) through the oracle's
own R2R, one window holding each test's data, with each evaluator (rdflib, Oxigraph).  Per test PASS (the
answer is the W3C's by the kit's comparison rules), FAIL (another answer), ERROR (the evaluator raised);
per folder and in total, and as JSON.

It exists so that nothing of the kit's own between the query and the evaluators — the predicate
pre-filter, the held stream, the term conversions — can make both evaluators wrong together unseen: the
two-evaluator check cannot catch what both are handed.
"""

from __future__ import annotations

import json
import logging
from collections import Counter, defaultdict
from pathlib import Path

from rdflib import Graph, Literal, Namespace
from rdflib.compare import isomorphic
from rdflib.namespace import RDF

from conformance.corpus import w3c
from oracle.model import Element, Stream
from oracle.r2r.query import R2R
from oracle.r2r.solutions import Solutions, same

RS = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/result-set#")
TARGETS = ("rdflib", "oxigraph")
OUTCOMES = ("PASS", "FAIL", "ERROR")


def run(test: w3c.SuiteTest, evaluator: str) -> tuple[str, str]:
    """(outcome, why) of one test through the oracle's R2R with ``evaluator``."""
    try:
        data = tuple(test.graph())
        stream = Stream((Element(0, data, source=str(test.data)),) if data else ())
        query = R2R(test.query_text(), stream, evaluator)
        got = query.evaluate((0, len(stream.elements)))
        expected = test.expected()
    except Exception as exc:  # noqa: BLE001 - an evaluator or a file that raises is the test's ERROR
        return "ERROR", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
    return compare(query, got, expected, test.lax)


def compare(query: R2R, got: Solutions, expected, lax: bool = False) -> tuple[str, str]:
    """The W3C rules: a CONSTRUCT graph up to isomorphism; an ASK's boolean; else solutions as a bag (a
    sequence under ORDER BY, tied rows in any order), blank nodes up to isomorphism, literals as terms;
    with ``lax`` (REDUCED) the same solutions, each at most as often as the W3C's."""
    if query.form == "ConstructQuery":
        graph = Graph()
        for row in got.rows:
            graph.add((row["s"], row["p"], row["o"]))
        want = expected if isinstance(expected, Graph) else expected.graph
        return ("PASS", "") if isomorphic(graph, want) else ("FAIL", f"{len(graph)} triples, the W3C {len(want)}")
    rows, ask = _rows(expected)
    if query.form == "AskQuery":
        answer = bool(got.rows and got.rows[0]["ask"].toPython())
        return ("PASS", "") if answer == ask else ("FAIL", f"ASK {answer}, the W3C {ask}")
    ordered = got.ordered and not (isinstance(expected, Graph) and expected.value(predicate=RS["index"]) is None)
    want = Solutions.of(rows, ordered=ordered)
    if lax:
        mine, theirs = Counter(got.keys), Counter(want.keys)
        right = set(mine) == set(theirs) and all(mine[k] <= theirs[k] for k in mine)
        return ("PASS", "") if right else ("FAIL", f"{len(got)} solutions, the W3C {len(want)} (REDUCED)")
    if not same(want, got) if not ordered else not same(got, want):
        return "FAIL", f"{len(got)} solutions, the W3C {len(want)}" + (" (or another order)" if got.ordered else "")
    return "PASS", ""


def _rows(expected) -> tuple[list[dict], bool | None]:
    """Solutions (rows of variable → term) and an ASK boolean from a parsed result or a DAWG result graph."""
    if isinstance(expected, Graph):  # the DAWG result-set vocabulary (SPARQL 1.0's .ttl results)
        rs = next(expected.subjects(RDF.type, RS.ResultSet))
        boolean = expected.value(rs, RS.boolean)
        solutions = sorted(expected.objects(rs, RS.solution),  # RS["index"]: RS.index is str.index
                           key=lambda s: int(expected.value(s, RS["index"]) or 0))
        rows = [{str(expected.value(b, RS.variable)): expected.value(b, RS.value)
                 for b in expected.objects(s, RS.binding)} for s in solutions]
        return rows, (boolean.toPython() if isinstance(boolean, Literal) else None)
    if expected.type == "ASK":
        return [], bool(expected.askAnswer)
    return [{str(v): row[v] for v in expected.vars if row[v] is not None} for row in expected], None


def run_suite(tests: list[w3c.SuiteTest], evaluators=TARGETS) -> dict:
    """Every test with every evaluator: per test its outcomes, per folder and in total the counts."""
    logging.getLogger("rdflib").setLevel(logging.ERROR)  # the suite has ill-typed literals on purpose
    results = []
    for test in tests:
        entry = {"id": test.id}
        for evaluator in evaluators:
            outcome, why = run(test, evaluator)
            entry[evaluator] = {"outcome": outcome, "why": why}
        results.append(entry)
    totals: dict = {e: Counter() for e in evaluators}
    folders: dict = defaultdict(lambda: {e: Counter() for e in evaluators})
    for entry in results:
        folder = entry["id"].rsplit("/", 1)[0]
        for e in evaluators:
            totals[e][entry[e]["outcome"]] += 1
            folders[folder][e][entry[e]["outcome"]] += 1
    return {"tests": results, "totals": {e: dict(c) for e, c in totals.items()},
            "folders": {f: {e: dict(c) for e, c in v.items()} for f, v in sorted(folders.items())}}


def text(doc: dict) -> str:
    """Per folder and in total, PASS / FAIL / ERROR per evaluator."""
    evaluators = list(doc["totals"])
    head = f"{'folder':<30}" + "".join(f"{e:>24}" for e in evaluators)

    def cells(counts):
        return "".join(f"{' / '.join(str(counts[e].get(o, 0)) for o in OUTCOMES):>24}" for e in evaluators)
    lines = [head + "   (PASS / FAIL / ERROR)", "-" * len(head)]
    lines += [f"{folder:<30}" + cells(counts) for folder, counts in doc["folders"].items()]
    lines.append(f"{'total':<30}" + cells(doc["totals"]))
    return "\n".join(lines)


def main(args) -> int:
    """The command: run, print the table, write JSON with ``--json``; 0 whatever the outcomes (a measure)."""
    try:
        tests = w3c.tests(Path(args.data_root) if args.data_root else None, args.folder or None)
    except w3c.SuiteMissing as exc:
        print(f"error: {exc}")
        return 2
    doc = run_suite(tests, tuple(args.evaluator or TARGETS))
    print(text(doc))
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0
