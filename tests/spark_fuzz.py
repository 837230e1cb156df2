"""A differential fuzz of the Spark engine: random small queries over random small data, each answered by the
engine and by the oracle under ``both`` (rdflib and Oxigraph agreeing, or the window left open), and every
answer that differs printed with its query and data (``DIFF``), as is a query whose SQL is over 200 KB
(``HUGE-SQL``) or that makes the engine or the oracle raise.  A developer's tool, not a test (its DIFFs are
leads to read, some of them the oracle's own: engines/spark/README.md, "A differential fuzz"):

    python3 -m tests.spark_fuzz SEED COUNT      # e.g. 1 150: about two minutes on 2 cores

The same seed gives the same queries and data."""
import random
import sys
import time

from rdflib import Graph

from conformance.streams.readers import literals_as_written
from engines.contract import RunRequest, Unsupported
from engines.spark import SparkEngine, algebra_of
from engines.spark.compiler import compile_sql
from oracle.model import Element, Stream, WindowSpec
from oracle.r2r.evaluators import EvaluatorDisagreement
from oracle.r2r.query import R2R
from oracle.r2r.solutions import same
from oracle.r2r.terms import show_solution

X = "http://x/"
XSD = "http://www.w3.org/2001/XMLSchema#"
PRE = f"PREFIX : <{X}> PREFIX xsd: <{XSD}> "
VALUES = ['1', '2', '-3', '2.5', '"1.0e0"^^xsd:double', '"01"^^xsd:integer', '"a"', '"B"', '"a"@en', '"b"@EN',
          '"a\\"b"', '"x\\ny"', 'true', 'false', '"2002-04-02T23:00:00Z"^^xsd:dateTime',
          '"2002-04-02T23:00:00-04:00"^^xsd:dateTime', '"2002-04-03T01:00:00"^^xsd:dateTime', ':i', ':j',
          '"abc"^^xsd:string', '"10"^^xsd:decimal', '"NaN"^^xsd:double', '""', '"1.50"^^xsd:decimal',
          '"-0"^^xsd:integer', '"4"^^xsd:float', '"zz"^^:dt', '"3"^^xsd:int', '"é"', '"ABC"@fr',
          ':s1', ':s3', '_:b1']  # subjects too, for paths (stop 67)
CONSTS = ['1', '2', '2.5', '"a"', '"a"@en', '"1.0e0"^^xsd:double', 'true', ':i', '"B"', '0',
          '"2002-04-03T01:00:00Z"^^xsd:dateTime', '""', '-1']


UNARY = ['STR', 'LANG', 'DATATYPE', 'isLiteral', 'isNumeric', 'isIRI', 'STRLEN', 'UCASE', 'LCASE', 'ABS', 'ROUND',
         'CEIL', 'FLOOR', 'BOUND']
CASTS = ['xsd:integer', 'xsd:string', 'xsd:double', 'xsd:decimal', 'xsd:boolean', 'xsd:float']
BINARY = ['CONTAINS', 'STRSTARTS', 'STRENDS', 'LANGMATCHES', 'sameTerm', 'STRBEFORE', 'STRAFTER']


def rand_data(r):
    triples = set()
    for _ in range(r.randint(4, 12)):
        triples.add(f":s{r.randint(0, 4)} :{r.choice('pq')} {r.choice(VALUES)} .")
    return " ".join(sorted(triples))


def term(r, vars_):
    return r.choice(vars_) if r.random() < 0.6 else r.choice(CONSTS)


def expr(r, vars_, depth=0):
    k = r.randint(0, 12 if depth < 2 else 4)
    a = term(r, vars_)
    if k == 0:
        return f"({a} {r.choice(['=', '!=', '<', '>', '<=', '>='])} {term(r, vars_)})"
    if k == 1:
        return f"({expr(r, vars_, depth + 1)} {r.choice(['+', '-', '*', '/'])} {term(r, vars_)})"
    if k == 2:
        return f"{r.choice(UNARY)}({r.choice(vars_)})"
    if k == 3:
        return f"{r.choice(CASTS)}({a})"
    if k == 4:
        return f"{r.choice(BINARY)}({a}, {term(r, vars_)})"
    if k == 5:
        return f"COALESCE({expr(r, vars_, depth + 1)}, {term(r, vars_)})"
    if k == 6:
        return f"IF({expr(r, vars_, depth + 1)}, {term(r, vars_)}, {term(r, vars_)})"
    if k == 7:
        return f"({expr(r, vars_, depth + 1)} {r.choice(['&&', '||'])} {expr(r, vars_, depth + 1)})"
    if k == 8:
        return f"!({expr(r, vars_, depth + 1)})"
    if k == 9:
        tail = r.choice(['"x"', '""', 'LANG(' + r.choice(vars_) + ')'])
        return f"CONCAT(STR({a}), {tail})"
    if k == 10:
        return f"SUBSTR(STR({a}), {r.choice(['1', '2', '0', '2, 1'])})"
    if k == 11:
        return f"{r.choice(['YEAR', 'HOURS', 'TZ', 'MONTH'])}({a})"
    return f"({a} IN ({term(r, vars_)}, {term(r, vars_)}))"


PATHS = [':p/:q', ':p|:q', '^:p', ':p*', ':p+', ':p?', '!:p', '!(:p|^:q)', '(:p|:q)/:q', ':q/^:q']
MORE = ['REPLACE(STR({a}), "a", "b")', 'REGEX(STR({a}), "^a", "i")', 'STRDT(STR({a}), xsd:integer)',
        'STRLANG(STR({a}), "en")', 'ENCODE_FOR_URI(STR({a}))', 'MD5(STR({a}))', 'SECONDS({a})', 'TIMEZONE({a})',
        'xsd:dateTime({a})', 'IRI(CONCAT("http://x/", STR({a})))', 'isBlank({a})', 'STRUUID() != STR({a})']


def rand_query(r):
    """A random query; shapes 7 and up (stop 67) reach paths, MINUS, VALUES, sub-selects, HAVING, EXISTS and
    more functions, which seeds 1 and 3 (shapes 0–6 only) never did."""
    k = r.randint(0, 14)
    if k == 7:
        return f"SELECT ?s ?o {{ ?s {r.choice(PATHS)} ?o }}", False
    if k == 8:
        return f"SELECT ?s ?o {{ ?s :p ?o MINUS {{ ?s :q {term(r, ['?o'])} }} }}", False
    if k == 9:
        rows = " ".join(f"({r.choice(CONSTS)} {r.choice(['UNDEF', *CONSTS])})" for _ in range(r.randint(1, 3)))
        return f"SELECT ?s ?o ?x {{ ?s :p ?o VALUES (?o ?x) {{ {rows} }} }}", False
    if k == 10:
        order = r.choice(['?o', 'DESC(?s)', '?s ?o'])
        return (f"SELECT ?s ?n {{ {{ SELECT ?s (COUNT(*) AS ?n) {{ ?s :p ?o }} GROUP BY ?s ORDER BY ?s LIMIT 2 }} "
                f"?s :{r.choice('pq')} ?o }} ORDER BY {order}", True)
    if k == 11:
        agg = r.choice(['COUNT(?o)', 'SUM(?o)', 'MIN(?o)', 'AVG(?o)', 'COUNT(DISTINCT ?o)'])
        return (f"SELECT ?s (COUNT(*) AS ?n) {{ ?s :p ?o }} GROUP BY ?s HAVING({agg} {r.choice(['>', '<', '='])} "
                f"{r.choice(CONSTS)})", False)
    if k == 12:
        neg = r.choice(['', 'NOT '])
        return f"SELECT ?s ?o {{ ?s :p ?o FILTER {neg}EXISTS {{ ?s :q {term(r, ['?o', '?x'])} }} }}", False
    if k == 13:
        return f"SELECT ?s ?v {{ ?s :p ?o BIND({r.choice(MORE).format(a=term(r, ['?o']))} AS ?v) }}", False
    if k == 14:
        key = r.choice(['STR(?o)', 'DATATYPE(?o)', 'LANG(?o)', 'isIRI(?o)'])
        return f"SELECT ?g (COUNT(?o) AS ?n) {{ ?s :p ?o }} GROUP BY ({key} AS ?g)", False
    if k == 0:
        return f"SELECT ?s ?o {{ ?s :p ?o FILTER({expr(r, ['?o', '?s'])}) }}", False
    if k == 1:
        return f"SELECT ?s ?v {{ ?s :p ?o BIND({expr(r, ['?o'])} AS ?v) }}", False
    if k == 2:
        direction = r.choice(['', 'DESC'])
        key = r.choice(['?o', f'{direction}(?o)', 'STR(?o)', f'{direction}(STR(?o))', '?s ?o'])
        lim = r.choice(['', ' LIMIT 3', ' LIMIT 2 OFFSET 1'])
        return f"SELECT ?s ?o {{ ?s :p ?o }} ORDER BY {key}{lim}", True
    if k == 3:
        agg = r.choice(['COUNT(?o)', 'COUNT(DISTINCT ?o)', 'SUM(?o)', 'MIN(?o)', 'MAX(?o)', 'AVG(?o)',
                        'GROUP_CONCAT(?o)', 'COUNT(*)', 'SUM(DISTINCT ?o)', 'MAX(STR(?o))', 'MIN(?o + 1)'])
        grouped = r.random() < 0.5
        return (f"SELECT {'?s ' if grouped else ''}({agg} AS ?a) {{ ?s :p ?o }}{' GROUP BY ?s' if grouped else ''}",
                False)
    if k == 4:
        return f"SELECT ?s ?o ?x {{ ?s :p ?o OPTIONAL {{ ?s :q ?x FILTER({expr(r, ['?o', '?x'])}) }} }}", False
    if k == 5:
        return "SELECT DISTINCT ?o { { ?s :p ?o } UNION { ?s :q ?o } }", False
    return f"SELECT ?s ?o ?x {{ ?s :p ?o . ?s :q ?x FILTER({expr(r, ['?o', '?x'])}) }}", False


def main(seed: int, n: int):
    r = random.Random(seed)
    engine = SparkEngine()
    stats = {"same": 0, "refused": 0, "oracle-open": 0, "DIFF": 0, "oracle-error": 0}
    t0 = time.time()
    for i in range(n):
        data = rand_data(r)
        q, ordered = rand_query(r)
        text = PRE + q
        with literals_as_written():
            try:
                g = Graph().parse(data=f"@prefix : <{X}> . @prefix xsd: <{XSD}> . " + data, format="turtle")
            except Exception:
                continue
        stream = Stream((Element(0, tuple(sorted(g, key=lambda t: tuple(x.n3() for x in t)))),))
        try:
            r2r = R2R(text, stream, "both")
            expected = r2r.evaluate((0, 1))
        except EvaluatorDisagreement as exc:  # counted by kind: an open answer, a disagreement, rdflib raising
            stats["oracle-open"] += 1
            kind = f"  {type(exc).__name__}"
            stats[kind] = stats.get(kind, 0) + 1
            continue
        except Exception as exc:
            stats["oracle-error"] += 1
            print("ORACLE-ERROR", i, q, type(exc).__name__, str(exc)[:300].replace("\n", " "), flush=True)
            continue
        try:
            size = len(compile_sql(algebra_of(text), "W", "windows")[1].sql)
        except Unsupported:
            size = 0
        except Exception:  # noqa: BLE001 - the engine's run below says what it is
            size = -1
        if size > 200_000:
            stats.setdefault("huge-sql", 0)
            stats["huge-sql"] += 1
            print("HUGE-SQL", i, size, q, flush=True)
            continue
        try:
            reports = engine.run(RunRequest("fuzz", stream, text, text, WindowSpec(10, 10), "rstream",
                                            "http://example.org/stream"))
        except Unsupported:
            stats["refused"] += 1
            continue
        except Exception as exc:
            stats.setdefault("engine-error", 0)
            stats["engine-error"] += 1
            print("ENGINE-ERROR", i, q, type(exc).__name__, str(exc)[:200].replace("\n", " "), flush=True)
            continue
        rows = reports[0].solutions
        actual = r2r.solutions(rows, ordered)
        if same(expected, actual):
            stats["same"] += 1
        else:
            stats["DIFF"] += 1
            print("DIFF", i, q, "\n  data:", data,
                  "\n  oracle:", sorted(show_solution(x) for x in expected.rows)[:8],
                  "\n  spark: ", sorted(show_solution(x) for x in actual.rows)[:8], flush=True)
    print(stats, f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
