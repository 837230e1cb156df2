"""RDF terms in Spark SQL: terms are N-Triples strings in string columns, and these are the SQL expressions
that read them (numbers, booleans, lexical forms, the effective boolean value) and write them back, plus
the compiler's two value types (:class:`Value`, :class:`Relation`).  No Python UDF: everything runs in
Spark SQL expressions."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from rdflib import BNode, Literal, Variable
from rdflib.namespace import XSD

from engines.contract import Unsupported

INTEGER, DECIMAL, FLOAT, DOUBLE = 0, 1, 2, 3  # a number's type code (engines/spark/sqlnumbers.py)
INTEGERS = [str(x) for x in (XSD.integer, XSD.int, XSD.long, XSD.short, XSD.byte, XSD.nonNegativeInteger,
                             XSD.positiveInteger, XSD.negativeInteger, XSD.nonPositiveInteger, XSD.unsignedInt,
                             XSD.unsignedLong, XSD.unsignedShort, XSD.unsignedByte)]
NUMERIC_CODES = {**{x: INTEGER for x in INTEGERS}, str(XSD.decimal): DECIMAL, str(XSD.float): FLOAT,
                 str(XSD.double): DOUBLE}
NUMERIC = list(NUMERIC_CODES)
# what follows a typed literal's last '"^^<' + XSD's namespace, its local name + ">" -> its type code, one
# constant map (local names: 286 characters, against 814 with whole IRIs, and a FILTER reads it often)
NUMERIC_MAP = "map(" + ", ".join(f"'{x[len(str(XSD)):]}>', {code}" for x, code in NUMERIC_CODES.items()) + ")"


TYPED_MARK = '"^^<'  # between a typed literal's lexical form and its datatype IRI
XSD_MARK = TYPED_MARK + str(XSD)  # ... when the datatype is XSD's (NUMERIC_MAP's keys follow it)


LEXICAL = r'(?s)^"(.*)"(?:@[A-Za-z-]+|\^\^<[^>]*>)?$'  # (?s): a lexical form may hold a line break


NULL_TERM = "CAST(NULL AS STRING)"

#: the mark of a refusal raised inside a Spark job (:func:`refuse`); the engine turns it into Unsupported
REFUSAL = "rspconf-refuses: "


def refuse(what: str) -> str:
    """SQL that stops the job with ``what`` as the reason: for data this engine would answer wrongly (it
    refuses at run time, by name, what it cannot tell from the query alone).  :func:`refusal` reads it back."""
    return f"raise_error({sql_string(REFUSAL + what)})"


#: what a recursive CTE (the compiler's ``*`` and ``+`` paths, one iteration a step) stops with past Spark's
#: limits, and the reason the engine gives
RECURSION_LIMITS = {
    "RECURSION_LEVEL_LIMIT_EXCEEDED": "walks in a window that need more steps than Spark's recursion takes"
                                      " (spark.sql.cteRecursionLevelLimit, 100)",
    "RECURSION_ROW_LIMIT_EXCEEDED": "walks in a window that make more rows than Spark's recursion takes"
                                    " (spark.sql.cteRecursionRowLimit)",
}


def refusal(exc: BaseException) -> str | None:
    """The reason of a :func:`refuse` in a failed Spark job's exception, else None.  A path's recursion
    past Spark's limit is one too: stopped there, its pairs would be incomplete."""
    text = str(exc)
    for limit, what in RECURSION_LIMITS.items():
        if limit in text:
            return f"a property path with * or +: {what}"
    at = text.find(REFUSAL)
    if at < 0:
        return None
    reason = text[at + len(REFUSAL):].splitlines()[0]
    return reason.split(" SQLSTATE")[0].rstrip(' ."\'')


def refused_by_name(attempt):
    """``attempt(False)``; if its job met data this engine would answer wrongly, Unsupported with the
    reason that ``attempt(True)``, a replay of the same in a fixed order, meets first.  With data that two
    refusals stop, which one a job met first depended on the order a reader handed an element's triples
    over (W3C eq-dateTime changed with Python's hash seed) and, with windows in both of the job's tasks, on
    which task failed first.  A refused run pays for the replay; any other pays nothing."""
    try:
        return attempt(False)
    except Exception as exc:
        first = refusal(exc)
        if first is None:
            raise
    try:
        attempt(True)
    except Exception as again:
        first = refusal(again) or first
    raise Unsupported(first)


STRING_SUFFIX = f'"^^<{XSD.string}>'


_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def n3(term) -> str:
    """A term as the engine's columns hold it: N-Triples (one line: rdflib writes a literal with a line
    break in Turtle's long form), an xsd:string literal as the simple literal it is and a language tag
    in lower case (RDF 1.1: the same term), so that equality, DISTINCT and joins see one term."""
    if not isinstance(term, Literal):
        return term.n3()
    text = '"' + str(term).translate(_ESCAPES) + '"'
    if term.language:
        return f"{text}@{term.language.lower()}"
    if term.datatype is not None and term.datatype != XSD.string:
        return f"{text}^^<{term.datatype}>"
    return text


def plain_strings(column: str) -> str:
    """SQL: the term in ``column`` with an xsd:string literal written as a simple literal (:func:`n3`, for
    terms read from text by Spark)."""
    return (f"CASE WHEN endswith({column}, {sql_string(STRING_SUFFIX)}) THEN substr({column}, 1, "
            f"length({column}) - {len(STRING_SUFFIX) - 1}) ELSE {column} END")


#: shorter SQL is written inline where it is used: a lambda runs without code generation, and the hot paths
#: (a FILTER on a column, arithmetic over two columns) stay as they were
INLINE = 1000
#: ... unless its copies would add up to more than this: a short term read by every branch of a cast (``-1``,
#: computed, is 973 characters) made ``xsd:decimal(-1)`` 203 KB of SQL
SPREAD = 16 * INLINE


def let(sql: str, body) -> str:
    """SQL: ``body(name)`` with ``name`` bound to the value of ``sql``, computed once (a lambda over a
    one-element array).  Functions and comparisons read their argument many times (its datatype, lexical
    form, tag): written inline, nested calls made SQL texts that grew by a factor per level (a cast inside
    DATATYPE inside = was 1.7 MB, and Spark analysed it for minutes).  Short SQL is used as it is.

    The name is made from ``sql`` itself, so one query compiles to one text each time: Spark writes a lambda's
    name into its generated Java, and a name from a counter made every compilation of a query new Java to
    compile again (a live run's every close).  Two bindings share a name only if they bind the same text, so
    an inner one that hides an outer one binds the same value."""
    if len(sql) <= INLINE:
        inline = body(sql)
        if len(inline) <= SPREAD or inline.count(sql) * len(sql) <= SPREAD:
            return inline
    name = "__x" + hashlib.blake2b(sql.encode(), digest_size=8).hexdigest()
    return f"transform(array({sql}), {name} -> {body(name)})[0]"


def sql_string(text: str) -> str:
    """``text`` as a Spark SQL string literal (backslash escapes: ``\\`` and ``\'``)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def quote(name: str) -> str:
    """A column or relation name as a Spark SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


def col_name(term) -> str:
    return ("v_" + str(term)) if isinstance(term, Variable) else ("b_" + str(term))


def is_var(term) -> bool:
    return isinstance(term, (Variable, BNode))


def double(x: float) -> str:
    """A double constant as SQL (``CAST('inf' AS DOUBLE)`` for the non-finite ones)."""
    return f"{x!r}D" if math.isfinite(x) else f"CAST('{x!r}' AS DOUBLE)"


@dataclass
class Value:
    """A compiled expression, as SQL text: an N-Triples term, a number, or a boolean.  A number's ``sql``
    is its DOUBLE value; a typed one (:mod:`engines.spark.sqlnumbers`) also has its type code per row,
    its exact DECIMAL value (integers, decimals) and ``text``, the term it makes.  A number computed from
    others is one struct, ``whole`` (fields ``v``, ``d``, ``e``), and its three parts are that struct's fields:
    an expression that reads all three binds ``whole`` once (:func:`engines.spark.sqlnumbers.bind_nums`)."""

    kind: str  # "term" | "num" | "bool"
    sql: str
    dtype: str | None = None
    exact: str | None = None
    text: str | None = None
    whole: str | None = None
    # a constant of the query: "iri", "simple", "tagged", "dateTime", "boolean" or "number" (a finite one): a
    # comparison's shortcut
    const: str | None = None


@dataclass
class Relation:
    """A compiled graph pattern: a SQL query, its output columns in order, and those that may be unbound
    in some solution (OPTIONAL, one side of a UNION, BIND, an aggregate): a join must treat those as
    compatible with any value, which an SQL equality does not."""

    sql: str
    cols: list[str]
    nullable: frozenset = frozenset()

    def keeping(self, sql: str, cols: list[str] | None = None) -> Relation:
        """Another query over the same solutions (a filter, DISTINCT, a slice): the same unbound columns."""
        cols = self.cols if cols is None else cols
        return Relation(sql, cols, frozenset(c for c in self.nullable if c in cols))

    def select_list(self, wanted: list[str]) -> str:
        """The columns ``wanted``, in that order, a missing one as an unbound term."""
        return ", ".join(quote(c) if c in self.cols else f"{NULL_TERM} AS {quote(c)}" for c in wanted)

    def with_column(self, name: str, value: str, alias: str) -> Relation:
        """Every other column, then ``value AS name`` (replacing a column of that name: DataFrame's
        ``withColumn``)."""
        kept = [c for c in self.cols if c != name]
        listed = "".join(f"{quote(c)}, " for c in kept)
        return Relation(f"SELECT {listed}{value} AS {quote(name)} FROM ({self.sql}) {alias}", kept + [name],
                        self.nullable | {name})


def simple_literal(c: str) -> str:
    """SQL: whether the term is a simple literal (xsd:string ones are written so: :func:`n3`)."""
    return f"(startswith({c}, '\"') AND endswith({c}, '\"') AND length({c}) >= 2)"


def tagged_literal(c: str) -> str:
    """SQL: whether the term is a language-tagged literal: quoted, then ``@tag`` (a typed literal ends in
    ``>``, a simple one in a quote)."""
    return f"(startswith({c}, '\"') AND NOT endswith({c}, '\"') AND NOT endswith({c}, '>'))"


def after_mark(c: str) -> str:
    """SQL: the text after the last ``"^^<`` of the term in ``c``: ``dt>`` for a typed literal
    ``"lex"^^<dt>`` (a datatype IRI holds no quote, a lexical form's own quotes are escaped)."""
    return f"substring_index({c}, {sql_string(TYPED_MARK)}, -1)"


def typed_literal(c: str) -> tuple[str, str, str]:
    """SQL (is a typed literal, its lexical form, its datatype IRI) of a term ``"lex"^^<dt>``; the last
    two are meaningless unless the first holds.

    String functions, no regular expression (:func:`after_mark`).  With two regular expressions, and a
    third on the datatype, numeric values were 7 % of the CPU samples of the filter query at 10^6
    triples (JFR)."""
    after = after_mark(c)
    typed = f"(startswith({c}, '\"') AND endswith({c}, '>') AND contains({c}, {sql_string(TYPED_MARK)}))"
    lex = f"substr({c}, 2, length({c}) - length({after}) - {1 + len(TYPED_MARK)})"
    return typed, lex, f"substr({after}, 1, length({after}) - 1)"


# XSD 1.1's lexical spaces of the numeric types, by type code (no backslash: Spark's string literals
# would read it as an escape)
LEXICAL_SPACES = {
    INTEGER: "^[+-]?[0-9]+$",
    DECIMAL: "^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)$",
    FLOAT: "^([+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([Ee][+-]?[0-9]+)?|[+-]?INF|NaN)$",
}


def numeric_lexical(c: str) -> str:
    """SQL: the lexical form of a literal of an XSD numeric type, null if it is not in the type's lexical
    space (ill-typed: a type error wherever it is read as a number).  Spark's casts alone would read
    forms XSD does not have: ``"1e5"`` or ``"1.0"`` as an integer, ``"1e5"`` as a decimal (Java's
    BigDecimal takes exponents and any Unicode digit, ``"١٢"`` is 12), ``"5d"`` or ``"0x1p3"`` as a double
    (Java's suffixes and hexadecimal), surrounding spaces.

    The form is the text between the opening quote and the first ``"^^<``: a numeric lexical form holds no
    quote, so the first is the datatype's mark, and in a form that holds an escaped one the cut ends in a
    backslash, which no lexical space has.  The code is read once (a ``CASE`` on it) and the form is
    matched by its type's expression.  Read with a ``CASE WHEN`` per code, the form cut by its length in
    bytes from the end, the code was written three times and the form six (4.3 KB of SQL for one variable;
    a FILTER ``?v > 80`` was 8.9 KB, a third of a 50-station close's planning); one regular expression over
    the whole term (a lookahead per type) was shorter still but three times slower per row."""
    def form(t: str) -> str:
        lex = f"substr({t}, 2, instr({t}, {sql_string(TYPED_MARK)}) - 2)"
        return (f"IF(CASE {numeric_code(t)} WHEN {INTEGER} THEN {lex} RLIKE '{LEXICAL_SPACES[INTEGER]}'"
                f" WHEN {DECIMAL} THEN {lex} RLIKE '{LEXICAL_SPACES[DECIMAL]}'"
                f" WHEN {FLOAT} THEN {lex} RLIKE '{LEXICAL_SPACES[FLOAT]}'"
                f" WHEN {DOUBLE} THEN {lex} RLIKE '{LEXICAL_SPACES[FLOAT]}' END, {lex}, NULL)")
    return let(c, form)  # a long term (a computed one) is bound once


def numeric_code(c: str) -> str:
    """SQL: the numeric type code of the term in ``c`` (:data:`INTEGER` .. :data:`DOUBLE`), null unless it is
    a literal of an XSD numeric type: one lookup of the text after its last ``"^^<`` and XSD's namespace in
    :data:`NUMERIC_MAP`.  Only a typed literal of an XSD type has such a text that is ``name>``: an IRI or a
    blank node holds no quote; in any other literal the text, if the mark is there at all, ends in a quote,
    a language tag or another datatype (a lexical form's own quotes are escaped); without the mark it is the
    whole term, which starts with ``<``, ``_`` or a quote.  The chain of tests it replaces (quote, ``>``,
    mark, then the datatype against 16 names) made CSRBench Q1's one FILTER most of its SQL, costly to
    analyse while the JVM is not yet warm (a 50-station window's job after 25 runs: 0.152 s instead of
    0.175 s; the same once warm)."""
    return f"try_element_at({NUMERIC_MAP}, substring_index({c}, {sql_string(XSD_MARK)}, -1))"


def number(c: str) -> str:
    """The numeric value of a term: null unless it is a literal of an XSD numeric type whose lexical
    form is a number.  An ill-typed one (``"x"^^xsd:integer``) is a type error in SPARQL, so null (a
    FILTER drops it), not a failed job: ``try_cast``.  :func:`numeric_lexical` is null for any other
    term, so no test of the type code is needed around it."""
    return numeric_literal(c)[1]


def numeric_literal(c: str) -> tuple[str, str]:
    """(is a literal of an XSD numeric type, its lexical form as a double or null if ill-typed)."""
    return f"({numeric_code(c)} IS NOT NULL)", f"try_cast({numeric_lexical(c)} AS DOUBLE)"


def truthy(x: str) -> str:
    """EBV of a number: false if zero or NaN (Spark's NaN != 0 holds)."""
    return f"(({x}) != 0 AND NOT isnan({x}))"


def literal_lexical(c: str) -> str:
    """The lexical form of a literal, N-Triples escapes undone (``\\n`` is a line break); null (a type
    error) for an IRI, a blank node or unbound."""
    return f"CASE WHEN startswith({c}, '\"') THEN {unescaped(f'regexp_extract({c}, {sql_string(LEXICAL)}, 1)')} END"


def unescaped(text: str) -> str:
    """SQL: N-Triples text with its escapes (\\t \\n \\r \\" \\\\) undone; others (\\u) are refused."""
    chain = f"replace({text}, '\\\\\\\\', chr(0))"
    for escape, char in (("t", "chr(9)"), ("n", "chr(10)"), ("r", "chr(13)"), ('"', "'\"'")):
        chain = f"replace({chain}, '\\\\{escape}', {char})"
    chain = f"replace({chain}, chr(0), chr(92))"
    unicode = refuse("a literal with a \\u escape")
    return (f"CASE WHEN NOT contains({text}, chr(92)) THEN {text}"
            f" WHEN contains({text}, '\\\\u') OR contains({text}, '\\\\U') THEN {unicode} "
            f"ELSE {chain} END")


def lexical(c: str) -> str:
    """The lexical form of a literal, or the IRI text of an IRI."""
    return (f"CASE WHEN startswith({c}, '\"') THEN regexp_extract({c}, {sql_string(LEXICAL)}, 1)"
            f" WHEN startswith({c}, '<') THEN regexp_extract({c}, '^<(.*)>$', 1) END")


def instant(lexical: str) -> str:
    """SQL: the instant of an xsd:dateTime's lexical form, a TIMESTAMP (without a zone: read as UTC; null: a form
    Spark does not read).  XSD 1.0 and 1.1 allow ``24:00:00`` (its fraction all zeros) for the end of a day,
    the next day's 00:00:00 (W3C eq-dateTime: 1999-12-31T24:00:00 is 2000-01-01T00:00:00); Spark reads no
    hour 24, so it is read as 00:00 and a day added."""
    end_of_day = "'T24:00:00([.]0+)?'"
    return (f"CASE WHEN {lexical} RLIKE {end_of_day} THEN try_cast(regexp_replace({lexical}, {end_of_day}, 'T00:00:00')"
            f" AS TIMESTAMP) + INTERVAL 1 DAY ELSE try_cast({lexical} AS TIMESTAMP) END")


def date_time_order(c: str) -> str:
    """SQL: an xsd:dateTime term's place in ORDER BY's and MIN/MAX's order, its instant in microseconds (SPARQL
    1.1 §15.1 orders literals by ``<``, and a dateTime's ``<`` compares instants: 23:00-04:00 comes after
    02:00+05:00 the next day); null for any other term and a form Spark does not read (then ordered by text).
    A value without a zone is read as UTC: where ``<`` leaves such a pair open (under 14 hours apart), any
    order is SPARQL's."""
    typed, lex, datatype = typed_literal(c)
    return f"CASE WHEN {typed} AND {datatype} = '{XSD.dateTime}' THEN unix_micros({instant(lex)}) END"


def double_literal(c: str) -> str:
    return f"CASE WHEN ({c}) IS NOT NULL THEN concat('\"', CAST({c} AS STRING), '\"^^<{XSD.double}>') END"


def integer_literal(c: str) -> str:
    return (f"CASE WHEN ({c}) IS NOT NULL THEN concat('\"', CAST(CAST({c} AS BIGINT) AS STRING),"
            f" '\"^^<{XSD.integer}>') END")


def as_num(v: Value) -> str:
    if v.kind == "num":
        return v.sql
    if v.kind == "term":
        return number(v.sql)
    raise Unsupported("a boolean used as a number")


def as_bool(v: Value) -> str:
    """SQL: the effective boolean value of ``v``.  A term's is read some 15 times (its kind, datatype, lexical
    form): bound once if long, as :func:`let` says (``FILTER(xsd:decimal(true))`` was 673 KB of SQL, and Spark's
    parser ran out of memory on texts like it)."""
    if v.kind == "bool":
        return v.sql
    if v.kind == "num":  # read twice: bound once if long (a computed number over a cast is)
        return let(v.sql, truthy)
    return let(v.sql, effective_boolean_value)


def effective_boolean_value(c: str) -> str:
    """SPARQL 1.1 §17.2.2 of a term; null (a type error, which a FILTER drops) for anything else.

    - xsd:boolean: true for the lexical forms ``true`` and ``1``; any other form (``false``, ``0``, or
      an invalid one) is false;
    - a numeric type: false if the value is zero or NaN, or if the lexical form is not valid for the
      type (``"abc"^^xsd:integer``: "the EBV of any literal whose type is xsd:boolean or numeric is
      false if the lexical form is not valid for that datatype");
    - a plain, language-tagged or xsd:string literal: false if empty;
    - any other literal (xsd:dateTime, say), an IRI, a blank node or unbound: a type error."""
    typed, lex, datatype = typed_literal(c)
    numeric, value = numeric_literal(c)
    return (f"CASE WHEN {typed} AND {datatype} = '{XSD.boolean}' THEN {lex} IN ('true', '1')"
            f" WHEN {numeric} THEN coalesce({truthy(value)}, false)"
            f" WHEN {typed} AND {datatype} = '{XSD.string}' THEN length({lex}) > 0"
            f" WHEN NOT {typed} AND startswith({c}, '\"') THEN length({lexical(c)}) > 0 END")


def as_term(v: Value) -> str:
    if v.kind == "term":
        return v.sql
    if v.kind == "num":
        return v.text if v.text is not None else double_literal(v.sql)
    # Spark writes a boolean as true or false, XSD's canonical forms; concat is null where the boolean is (an
    # error): the boolean is read once (read twice, ``BIND(?a = ?b AS ?v)`` was twice the SQL of its FILTER)
    return f"concat('\"', CAST(({v.sql}) AS STRING), '\"^^<{XSD.boolean}>')"
