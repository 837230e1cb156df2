"""``rspconf sparql-suite``: the W3C SPARQL query-evaluation tests (default graph only), one window holding
each test's data, through the oracle's own R2R with each evaluator (rdflib, Oxigraph) and through the
Spark engine (``spark``: its adapter's ``run``, as a conformance run calls it).  Per test PASS (the
answer is the W3C's by the kit's comparison rules), FAIL (another answer: for an engine, a defect),
UNSUPPORTED (the engine refused the query by name), ERROR (it raised); per folder and in total, and as
JSON.

It exists so that nothing of the kit's own between the query and the evaluators — the predicate
pre-filter, the held stream, the term conversions — can make both evaluators wrong together unseen: the
two-evaluator check cannot catch what both are handed.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections import Counter, defaultdict
from pathlib import Path

from rdflib import Graph, Literal, Namespace
from rdflib.compare import isomorphic
from rdflib.namespace import RDF

from conformance.corpus import w3c
from engines.contract import RunRequest, Unsupported
from oracle.compare import observed_solutions
from oracle.model import Element, Stream, WindowSpec
from oracle.r2r.query import R2R
from oracle.r2r.solutions import Solutions, same
from oracle.r2r.terms import coloured, show_solution

RS = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/result-set#")
TARGETS = ("rdflib", "oxigraph", "spark")
#: the targets run when none is named: the oracle's two evaluators (Spark takes a few minutes)
DEFAULT_TARGETS = ("rdflib", "oxigraph")
OUTCOMES = ("PASS", "FAIL", "UNSUPPORTED", "ERROR")
#: the one window an engine sees: the test's data at t=0, in [0, 10)
WINDOW = WindowSpec(10, 10)
STREAM_IRI = "http://example.org/w3c-test"


def _first_line(exc: BaseException) -> str:
    """An exception as a test's ERROR: its type and the first line of its message."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]


def run_engine(test: w3c.SuiteTest, engine) -> tuple[str, str]:
    """(outcome, why) of one test through an engine adapter: one window holding the test's data, RStream;
    the first report's solutions are the answer (none: no solutions)."""
    try:
        data = tuple(test.graph())
        # one element even without data: the window exists, and a query over nothing still answers
        stream = Stream((Element(0, data, source=str(test.data)),))
        text = test.query_text()
        query = R2R(text, stream, "rdflib")  # the query's form and variables, for the comparison
        expected = test.expected()
    except Exception as exc:  # noqa: BLE001 - a test file the kit cannot read is the test's ERROR
        return "ERROR", _first_line(exc)
    request = RunRequest(f"w3c:{test.id}", stream, text, text, WINDOW, "rstream", STREAM_IRI)
    try:
        reports = engine.run(request)
    except Unsupported as exc:
        return "UNSUPPORTED", str(exc)[:300]
    except Exception as exc:  # noqa: BLE001 - the engine raised: the test's ERROR
        return "ERROR", _first_line(exc)
    got = observed_solutions(reports[0], query.form, query.concat) if reports else Solutions.of([])
    if not query.ordered:  # a report's solutions come in a sequence; only ORDER BY makes it count
        got = got.unordered()
    return compare(query, got, expected, test.lax)


def run(test: w3c.SuiteTest, evaluator: str) -> tuple[str, str]:
    """(outcome, why) of one test through the oracle's R2R with ``evaluator``."""
    try:
        data = tuple(test.graph())
        stream = Stream((Element(0, data, source=str(test.data)),) if data else ())
        query = R2R(test.query_text(), stream, evaluator)
        got = query.evaluate((0, len(stream.elements)))
        expected = test.expected()
    except Exception as exc:  # noqa: BLE001 - an evaluator or a file that raises is the test's ERROR
        return "ERROR", _first_line(exc)
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
    want = query.solutions(rows, ordered)
    if lax:
        mine, theirs = Counter(got.keys), Counter(want.keys)
        right = set(mine) == set(theirs) and all(mine[k] <= theirs[k] for k in mine)
        return ("PASS", "") if right else ("FAIL", f"{len(got)} solutions, the W3C {len(want)} (REDUCED)")
    if not same(want, got) if not ordered else not same(got, want):
        return "FAIL", f"{len(got)} solutions, the W3C {len(want)}" + (" (or another order)" if got.ordered else "") \
            + _difference(want, got)
    return "PASS", ""


def _difference(want: Solutions, got: Solutions) -> str:
    """A solution only the W3C has and one only the answer has, in the kit's precise form: the first in
    the order of their keys, blank nodes shown by their colour (:func:`coloured`).  The first in the
    evaluator's order changed from process to process (rdflib's graphs follow Python's hash seed)."""
    extra, missing = Counter(got.keys) - Counter(want.keys), Counter(want.keys) - Counter(got.keys)
    parts = []
    for label, keys, rows in (("missing", missing, want), ("extra", extra, got)):
        found = min(((k, r) for k, r in zip(rows.keys, rows.rows) if k in keys), key=lambda kr: repr(kr[0]), default=None)
        if found is not None:
            parts.append(f"{label} {show_solution(coloured(found[1], found[0]), precise=True)}")
    return (": " + "; ".join(parts)) if parts else ""


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
    # the bindings, not the rows: iterating a Result skips a solution that binds nothing (an empty
    # solution is a solution: MAX over nothing, an OPTIONAL that matched nothing)
    return [{str(v): term for v, term in row.items() if term is not None} for row in expected.bindings], None


def run_suite(tests: list[w3c.SuiteTest], evaluators=DEFAULT_TARGETS) -> dict:
    """Every test with every target: per test its outcomes, per folder and in total the counts."""
    logging.getLogger("rdflib").setLevel(logging.ERROR)  # the suite has ill-typed literals on purpose
    engine = None
    if "spark" in evaluators:
        from engines.spark import SparkEngine  # deferred: pyspark is optional (the spark extra)

        engine = SparkEngine()
    results = []
    with warnings.catch_warnings():  # and rdflib warns of them as well as logging them ('weird boolean')
        warnings.filterwarnings("ignore", category=UserWarning, module=r"rdflib\.")
        for test in tests:
            entry = {"id": test.id}
            for evaluator in evaluators:
                outcome, why = run_engine(test, engine) if evaluator == "spark" else run(test, evaluator)
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
    """Per folder and in total, PASS / FAIL / UNSUPPORTED / ERROR per target."""
    evaluators = list(doc["totals"])
    head = f"{'folder':<30}" + "".join(f"{e:>20}" for e in evaluators)

    def cells(counts):
        return "".join(f"{' / '.join(str(counts[e].get(o, 0)) for o in OUTCOMES):>20}" for e in evaluators)
    lines = [head + "   (PASS / FAIL / UNSUPPORTED / ERROR)", "-" * len(head)]
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
    doc = run_suite(tests, tuple(args.evaluator or DEFAULT_TARGETS))
    print(text(doc))
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0
