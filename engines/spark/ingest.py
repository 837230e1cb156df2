"""Reading stream files in the JVM: N-Triples terms are split by Spark regular expressions, no Python
per triple.  Output: a DataFrame ``(s, p, o, t)`` with terms as N-Triples strings and t in ms.

- ``yabench``: temporal N-Triples, ``<s> <p> <o> "T" .`` per line;
- ``nquads``: one named graph per element, its time stated as ``<g> <…#time> "T" .`` in the default
  graph (the kit's generator writes ``rspconf:time``; ``prov:generatedAtTime`` is not read here).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from engines.spark.sqlterms import plain_strings

TERM = r'(<[^>]*>|_:[^\s]+|"(?:[^"\\]|\\.)*"(?:@[A-Za-z0-9-]+|\^\^<[^>]*>)?)'
LINE = r"^\s*" + TERM + r"\s+" + TERM + r"\s+" + TERM + r"(?:\s+" + TERM + r")?\s*\.\s*$"
TIME_PREDICATE = "<https://w3id.org/rspconf#time>"


def stamp(column: str) -> str:
    """SQL: the time stamp, in ms, that the literal ``"T"`` (or ``"T"^^<…>``) in ``column`` states: the
    text up to its second quote, cast.  Not a regular expression: one per line was 2 % of the CPU
    samples of the filter query at 10^6 triples (JFR).  Anything else, a missing term ('') or an IRI
    say, fails the cast (CAST_INVALID_INPUT, which ``rspconf spark run`` turns into file:line)."""
    return f"CAST(IF(startswith({column}, '\"'), substring_index(substr({column}, 2), '\"', 1), {column}) AS BIGINT)"


def _whole(i: int) -> str:
    """SQL: token ``i`` is a whole term, not a piece of a literal with a space in it.  Split on spaces,
    such a literal's first piece starts with a quote and has no other quote, unless the literal's text
    holds one, which N-Triples escapes with a backslash.  So a token that starts with a quote must have
    a second one and no backslash.  (IRIs and blank nodes hold no spaces.)"""
    token = f"get(__parts, {i})"  # NULL past the end (no ANSI error): the line then fails the size test
    return f"(NOT startswith({token}, '\"') OR (locate('\"', {token}, 2) > 0 AND NOT contains({token}, chr(92))))"


# SQL: the line is 4 or 5 single-space-separated tokens ending in ".", not a comment, whose terms are
# whole (no literal with a space or an escape in it).  The test looks at tokens, not the whole line:
# scanning each 200-byte line for a backslash was the reader's single biggest cost (a JFR profile of
# the filter query at 10^6 triples: 12 % of the samples).
SIMPLE = ("(size(__parts) IN (4, 5) AND element_at(__parts, -1) = '.'"
          " AND NOT startswith(__parts[0], '#') AND __parts[0] != ''"
          f" AND {_whole(0)} AND {_whole(1)} AND {_whole(2)} AND (size(__parts) = 4 OR {_whole(3)}))")


def terms(lines: DataFrame) -> DataFrame:
    """Terms of every statement line of a DataFrame of text lines (column ``value``).  Fast path: a
    line of 4 or 5 single-space-separated tokens ending in ``.``, not a comment, whose literals hold
    no space and no backslash (:data:`SIMPLE`), is split on spaces (what generators write); any other
    line goes through the full N-Triples term regex, and lines it does not match (blank lines,
    comments) are dropped.

    The split is computed once per line in its own projection (a column referenced by the later
    expressions): written inline, Spark evaluated it once per use — the parse of 10^6 lines took
    1.4–2.2 s instead of 0.8–1.0 s.  The split is produced by a generator (``explode`` of a
    one-element array), which the optimizer does not push later filters through (on the predicate,
    say); through a plain projection it would, inlining the split into them again.

    The expressions are SQL text, one py4j call per column: built from ``pyspark.sql.functions``
    they took some 540 py4j round trips, about 0.15 s of every run."""
    def regex(i: int) -> str:
        return f"regexp_extract(value, r'{LINE}', {i})"

    split = lines.selectExpr("value", "explode(array(split(value, ' '))) AS __parts")
    # the four terms (the graph or time '' when absent) as one array, out of a generator too: the
    # line test and the regex appear once in the plan, not once per column (the optimizer and the
    # code generator work on every copy)
    split_terms = "array(__parts[0], __parts[1], __parts[2], IF(size(__parts) = 5, __parts[3], ''))"
    regex_terms = "array(" + ", ".join(regex(i) for i in range(1, 5)) + ")"
    return (split.selectExpr(f"explode(array(CASE WHEN {SIMPLE} THEN {split_terms} ELSE {regex_terms} END)) AS __t")
            .selectExpr("__t[0] AS s", "__t[1] AS p", f"{plain_strings('__t[2]')} AS o", "__t[3] AS g"))


def parse(lines: DataFrame) -> DataFrame:
    """(s, p, o, t) from YABench lines ``<s> <p> <o> "T" .`` (a batch or a whole file)."""
    return terms(lines).where("s != ''").selectExpr(
        "s", "p", "o", f"{stamp('g')} AS t")


def read(spark, path: str, fmt: str) -> DataFrame:
    if fmt == "yabench":
        return parse(spark.read.text(path))
    if fmt == "nquads":
        statements = terms(spark.read.text(path)).where(F.col("s") != "")
        times = (statements.where((F.col("g") == "") & (F.col("p") == TIME_PREDICATE))
                 .select(F.col("s").alias("g"), F.expr(stamp("o")).alias("t")))
        quads = statements.where(F.col("g") != "")
        return quads.join(times, on="g").select("s", "p", "o", "t")
    raise ValueError(f"the Spark reader takes yabench or nquads files, not {fmt}")


def rejected(spark, path: str) -> int:
    """How many lines of a stream file are statements the reader cannot read (not blank, not a comment,
    no triple): :func:`read` drops them, so a caller that must not lose data counts them first."""
    lines = spark.read.text(path).where("trim(value) != '' AND NOT startswith(ltrim(value), '#')")
    return terms(lines).where("s = ''").count()
