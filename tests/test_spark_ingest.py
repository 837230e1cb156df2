"""The Spark reader's term splitting: the fast path (split on spaces) and the full N-Triples regex
must give the same terms; values worked out by hand from the lines."""

import pytest

pytest.importorskip("pyspark")

from engines.spark import ingest  # noqa: E402
from engines.spark.session import session  # noqa: E402

LINES = [
    '<http://ex.org/a> <http://ex.org/p> <http://ex.org/o> "5" .',  # fast path, YABench time
    '<http://ex.org/a> <http://ex.org/p> "two words"@en "6" .',  # a literal with a space: regex
    '  <http://ex.org/b>\t<http://ex.org/p>  "x\\"y" "7" .  ',  # tabs, padding, an escaped quote
    '# a comment line with five tokens .',  # dropped, though it splits like a statement
    '',  # blank: dropped
    '_:b1 <http://ex.org/p> "8"^^<http://www.w3.org/2001/XMLSchema#integer> "9" .',
    '<http://ex.org/c> <http://ex.org/p> <http://ex.org/o> .',  # no time: a 4-token statement
]
# N-Triples lines without a time that split on spaces like a statement with one, but are not
SPLIT_LITERALS = [
    '<http://ex.org/d> <http://ex.org/p> "two words" .',  # 4 tokens, 3 terms
    '<http://ex.org/e> <http://ex.org/p> "say \\"hi\\" now" .',  # escaped quotes around a space
    '<http://ex.org/f> <http://ex.org/p> " " .',  # a lone quote each side: neither ends a literal
    '<http://ex.org/g> <http://ex.org/p> "1 2"^^<http://ex.org/dt> .',  # the second piece ends one
]


def test_fast_path_and_regex_path_give_the_same_terms():
    spark = session()
    lines = spark.createDataFrame([(line,) for line in LINES + SPLIT_LITERALS], ["value"])
    rows = [tuple(r) for r in ingest.terms(lines).where("s != ''").collect()]
    assert rows == [
        ("<http://ex.org/a>", "<http://ex.org/p>", "<http://ex.org/o>", '"5"'),
        ("<http://ex.org/a>", "<http://ex.org/p>", '"two words"@en', '"6"'),
        ("<http://ex.org/b>", "<http://ex.org/p>", '"x\\"y"', '"7"'),
        ("_:b1", "<http://ex.org/p>", '"8"^^<http://www.w3.org/2001/XMLSchema#integer>', '"9"'),
        ("<http://ex.org/c>", "<http://ex.org/p>", "<http://ex.org/o>", ""),
        ("<http://ex.org/d>", "<http://ex.org/p>", '"two words"', ""),
        ("<http://ex.org/e>", "<http://ex.org/p>", '"say \\"hi\\" now"', ""),
        ("<http://ex.org/f>", "<http://ex.org/p>", '" "', ""),
        ("<http://ex.org/g>", "<http://ex.org/p>", '"1 2"^^<http://ex.org/dt>', ""),
    ]


def test_a_filter_on_the_predicate_keeps_the_same_lines():
    """Filters on parsed columns stay above the split (see ``ingest.terms``) and select the same rows."""
    spark = session()
    lines = spark.createDataFrame([(line,) for line in LINES], ["value"])
    parsed = ingest.parse(lines).where("p = '<http://ex.org/p>' and o != '<http://ex.org/o>'")
    assert sorted(r["t"] for r in parsed.collect()) == [6, 7, 9]
    plan = parsed._jdf.queryExecution().optimizedPlan().toString()
    assert plan.count("split(") == 1, plan
