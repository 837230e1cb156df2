"""SPARQL's numbers in Spark SQL: arithmetic with XPath's type promotion, and SUM / AVG.

A computed number is a :class:`~engines.spark.sqlterms.Value` of kind ``num`` with three SQL texts: its
type code per row (:data:`INTEGER` < :data:`DECIMAL` < :data:`FLOAT` < :data:`DOUBLE`; null: not a number,
a type error), its value as a DOUBLE (for doubles, and for FILTER's comparisons of terms), and its exact
value as a DECIMAL (for integers and decimals).  ``+ - *`` of two integers is an integer, computed
exactly (a product of up to 20 digits); with a decimal, ``+ -`` are exact and ``*`` is exact for factors of
up to 10 and 9 integer digits and 9 decimal places, else refused; ``/`` of integers or decimals is a
decimal to 18 decimal places (rounded half up beyond), by a decimal when both have at most 9 integer digits
and the divisor at most 9 decimal places, else refused;
a float makes a float and a double a double, both computed in double precision (an xsd:float result is
written with the double's digits: the kit compares floating-point values to 12 significant digits,
oracle/README.md).  What is refused is refused at run time, by name (:func:`~engines.spark.sqlterms.refuse`):
whether a value is an integer or a decimal is known only per row.
"""

from __future__ import annotations

import math

from rdflib import Literal
from rdflib.namespace import XSD

from engines.contract import Unsupported
from engines.spark.sqlterms import (
    DECIMAL,
    DOUBLE,
    FLOAT,
    INLINE,
    INTEGER,
    NUMERIC_CODES,
    Value,
    double,
    let,
    n3,
    number,
    numeric_code,
    numeric_lexical,
    refuse,
    sql_string,
)

EXACT = "DECIMAL(38,18)"
NO_EXACT = f"CAST(NULL AS {EXACT})"  # a double's exact value: never read (its branches are for integers, decimals)
TYPE_NAMES = {INTEGER: XSD.integer, DECIMAL: XSD.decimal, FLOAT: XSD.float, DOUBLE: XSD.double}


def typed_number(value: str, code: str, exact: str | None) -> Value:
    """A typed computed number, with the term it makes (:func:`term_of`)."""
    v = Value("num", value, code, exact)
    v.text = term_of(v)
    return v


def fields(whole: str) -> Value:
    """The number whose value, type code and exact value are the fields of the struct ``whole``."""
    return Value("num", f"({whole}).v", f"({whole}).d", f"({whole}).e", whole=whole)


def struct(n: Value) -> str:
    """SQL: a number's three parts as one struct (:func:`fields` reads them back)."""
    return f"named_struct('v', {n.sql}, 'd', {n.dtype}, 'e', {n.exact or NO_EXACT})"


def computed(whole: str) -> Value:
    """The number computed as the struct ``whole``, with the term it makes: whatever reads more than one of
    its parts binds it once (:func:`bind_nums`).  Built part by part, each of the value, type code and exact
    value wrote the operands out again: in ``?a - ?b > 10`` each operand three times (?a's column read 74
    times, now 26; 17 KB of SQL, which Spark analysed, planned and serialized into each task at every
    window's close)."""
    result = fields(whole)
    result.text = bind_nums(result, term_of)
    return result


def numeric(v: Value) -> Value:
    """``v`` as a computed number (a term: its type, double and exact value read from the literal)."""
    if v.kind == "num" and v.dtype is not None:
        return v
    if v.kind == "num":  # a double computed elsewhere
        return typed_number(v.sql, str(DOUBLE), None)
    if v.kind != "term":
        raise Unsupported("a boolean used as a number")
    if len(v.sql) > INLINE:
        # a long term (a cast's or function's result) is read for its type, value and exact value, the
        # type twice: bound once, the number is one struct over the binding (a cast inside a sum wrote the
        # cast out four times, 173 KB of SQL for ``xsd:integer(xsd:string(?v)) + 1``)
        return computed(bind_nums(v, lambda x: struct(numeric(x))))
    code = numeric_code(v.sql)
    value = number(v.sql)
    exact = f"CASE WHEN ({code}) <= {DECIMAL} THEN try_cast({numeric_lexical(v.sql)} AS {EXACT}) END"
    return typed_number(value, code, exact)


def constant(term: Literal) -> Value | None:
    """A numeric literal of the query as a computed number; None if it is not one (or is ill-typed)."""
    dt = str(term.datatype) if term.datatype is not None else None
    code = NUMERIC_CODES.get(dt)
    if code is None:
        return None
    try:
        value = float(term.toPython())
    except (TypeError, ValueError):
        return None
    exact = f"CAST({sql_string(str(term))} AS {EXACT})" if code <= DECIMAL else None
    v = Value("num", double(value), str(code), exact, const="number" if math.isfinite(value) else None)
    v.text = sql_string(n3(term))  # the constant's own term, as written
    return v


def negate(v: Value) -> Value:
    return computed(bind_nums(numeric(v), lambda n: struct(
        Value("num", f"(- ({n.sql}))", n.dtype, f"(- ({n.exact or NO_EXACT}))"))))


def bind_nums(v: Value, body) -> str:
    """SQL: ``body`` of ``v`` with a long computed number's value, type and exact value bound once (one
    struct, :func:`~engines.spark.sqlterms.let`), a long term bound as it is; a short one is passed as it is."""
    if v.kind == "term":
        return let(v.sql, lambda x: body(Value("term", x)))
    if v.kind != "num" or v.dtype is None:
        return body(v)
    if v.whole is not None:
        return let(v.whole, lambda x: body(fields(x)))
    whole = struct(v)
    if len(whole) <= INLINE:
        return body(v)
    return let(whole, lambda x: body(fields(x)))


def arithmetic(op: str, a: Value, b: Value) -> Value:
    """``a op b`` for op one of + - * /, typed as XPath promotes (see the module's docstring); long operands
    are bound once (:func:`bind_nums`), and the result is one struct (:func:`computed`)."""
    a, b = numeric(a), numeric(b)
    return computed(bind_nums(a, lambda x: bind_nums(b, lambda y: struct(
        Value("num", _value(op, x, y), _code(op, x, y), _exact(op, x, y))))))


def _code(op: str, a: Value, b: Value) -> str:
    both = f"({a.dtype}) IS NOT NULL AND ({b.dtype}) IS NOT NULL"
    floor = f", {DECIMAL}" if op == "/" else ""
    return f"CASE WHEN {both} THEN greatest({a.dtype}, {b.dtype}{floor}) END"


def _value(op: str, a: Value, b: Value) -> str:
    code = _code(op, a, b)
    if op == "/":
        as_double = f"CASE WHEN ({b.sql}) != 0 THEN ({a.sql}) / ({b.sql}) END"
    else:
        as_double = f"(({a.sql}) {op} ({b.sql}))"
    double_ = (f"CASE WHEN ({b.sql}) = 0 THEN {refuse('a float or double divided by zero (INF and NaN are not compiled)')}"
               f" ELSE {as_double} END") if op == "/" else as_double
    return f"CASE WHEN ({code}) >= {FLOAT} THEN {double_} ELSE {as_double} END"


def _exact(op: str, a: Value, b: Value) -> str:
    code = _code(op, a, b)
    ea, eb = a.exact or NO_EXACT, b.exact or NO_EXACT
    if op in ("+", "-"):
        exact = f"(({ea}) {op} ({eb}))"
    elif op == "*":
        # exact in EXACT: integers whose product has at most 20 digits; decimals of at most 10 (the first) and 9
        # (the second) integer digits and 9 decimal places, as DECIMAL(19,9) × DECIMAL(18,9) is DECIMAL(38,18),
        # which Spark keeps whole (a wider factor makes it round the product's scale)
        fa, fb = f"try_cast({ea} AS DECIMAL(19,9))", f"try_cast({eb} AS DECIMAL(18,9))"
        integers = f"try_multiply(CAST({ea} AS DECIMAL(38,0)), CAST({eb} AS DECIMAL(38,0)))"
        exact = (f"CASE WHEN ({ea}) IS NULL OR ({eb}) IS NULL THEN NULL"
                 f" WHEN greatest({a.dtype}, {b.dtype}) = {INTEGER}"
                 f" THEN coalesce(try_cast({integers} AS {EXACT}), {refuse('an integer product beyond 20 digits')})"
                 f" WHEN {fa} = ({ea}) AND {fb} = ({eb}) THEN {fa} * {fb}"
                 f" ELSE {refuse('multiplying xsd:decimal values beyond 10 and 9 integer digits or 9 decimal places')}"
                 " END")
    else:
        # by a decimal: both scaled by 10^9 to an integer divisor, where the dividend fits DECIMAL(27,18) and the
        # divisor DECIMAL(18,9) (each × 10^9 is then a DECIMAL Spark keeps whole: 38 and 29 digits)
        da, db = f"try_cast({ea} AS DECIMAL(27,18))", f"try_cast({eb} AS DECIMAL(18,9))"
        scaled = _quotient(f"({da} * 1000000000)", f"({db} * 1000000000)")
        exact = (f"CASE WHEN ({eb}) = 0 THEN NULL"  # division by zero: an error
                 f" WHEN ({b.dtype}) = {INTEGER} THEN {_quotient(ea, eb)}"
                 f" WHEN {da} = ({ea}) AND {db} = ({eb}) THEN {scaled}"
                 f" ELSE {refuse('dividing by an xsd:decimal value beyond 9 integer digits or 9 decimal places')} END")
    return f"CASE WHEN ({code}) <= {DECIMAL} THEN {exact} END"


def _quotient(dividend: str, divisor: str) -> str:
    """SQL: dividend / divisor (an integer) as a DECIMAL with 18 decimal places, rounded half up where the
    quotient goes on (7 / 3 is 2.333333333333333333).  XPath leaves a decimal quotient's precision to the
    implementation (at least 18 digits); Oxigraph keeps 18 places too, and the kit compares a quotient of
    more than 15 digits like a double (oracle/README.md).  DECIMAL(38,18) / DECIMAL(38,0) is DECIMAL(38,18) in
    Spark (measured), so no digit is lost short of the 18th place."""
    return f"(CAST({dividend} AS DECIMAL(38,18)) / CAST({divisor} AS DECIMAL(38,0)))"


def decimal_text(exact: str) -> str:
    """SQL: the canonical xsd:decimal lexical form of a DECIMAL (no trailing zeros, at least one decimal);
    ``exact`` appears once (it may be long)."""
    text = f"regexp_replace(CAST({exact} AS STRING), '(\\\\.[0-9]*[1-9])0+$', '$1')"
    text = f"regexp_replace({text}, '\\\\.0+$', '.0')"
    return f"regexp_replace({text}, '^(-?[0-9]+)$', '$1.0')"


def term_of(v: Value) -> str:
    """SQL: the computed number as a term of its type (null: an error, unbound).  ``concat`` is null
    when a part is: an unbound value makes no term."""
    def typed(text: str, code: int) -> str:
        return f"concat('\"', {text}, '\"^^<{TYPE_NAMES[code]}>')"
    double_text = f"replace(CAST({v.sql} AS STRING), 'Infinity', 'INF')"  # Spark writes Infinity, XSD INF
    exact = v.exact or NO_EXACT
    return (f"CASE ({v.dtype}) WHEN {INTEGER} THEN {typed(f'CAST(CAST({exact} AS DECIMAL(38,0)) AS STRING)', INTEGER)}"
            f" WHEN {DECIMAL} THEN {typed(decimal_text(exact), DECIMAL)}"
            f" WHEN {FLOAT} THEN {typed(double_text, FLOAT)}"
            f" WHEN {DOUBLE} THEN {typed(double_text, DOUBLE)} END")


def summands(v: Value, tag: str) -> list[tuple[str, str]]:
    """The per-solution columns SUM / AVG of ``v`` read (:func:`total`), computed once each in a projection
    below the aggregation (``tag`` keeps two aggregates' apart): the type code, the value's text (a term)
    or its double and exact values (a number; one struct if computed from others), and whether it is
    bound.  Written inline, the datatype of every value was read three times per solution (a 30 % slower
    AVG at 10^6 triples)."""
    if v.kind == "term":
        return [(f"__t{tag}", numeric_code(v.sql)), (f"__l{tag}", numeric_lexical(v.sql)),
                (f"__b{tag}", f"({v.sql}) IS NOT NULL")]
    n = numeric(v)
    if n.whole is not None:  # a computed number: its struct once (its fields, one column each, wrote it thrice)
        return [(f"__s{tag}", n.whole), (f"__b{tag}", "true")]
    return [(f"__t{tag}", n.dtype), (f"__d{tag}", n.sql), (f"__x{tag}", n.exact or NO_EXACT), (f"__b{tag}", "true")]


def total(columns: list[str], average: bool) -> Value:
    """SUM (``average`` false) or AVG over a group of the :func:`summands` named ``columns``, as SQL
    aggregate expressions: an error in any value (a bound term that is not a number) makes the aggregate
    an error (unbound: SPARQL 1.1 §18.5.1); its type is the widest of the values' (AVG: at least
    decimal); an integer or decimal total is exact, an integer or decimal mean exact to 18 decimal places
    (:func:`_quotient`)."""
    names = {c[2]: f"`{c}`" for c in columns}  # t(ype), l(exical) or d(ouble) and x (exact), b(ound)
    if "s" in names:  # a computed number's struct (:func:`struct`)
        names.update(t=f"{names['s']}.d", d=f"{names['s']}.v", x=f"{names['s']}.e")
    t, b = names["t"], names["b"]
    if "l" in names:
        value = f"CASE WHEN {t} IS NOT NULL THEN try_cast({names['l']} AS DOUBLE) END"
        exact = f"CASE WHEN {t} <= {DECIMAL} THEN try_cast({names['l']} AS {EXACT}) END"
    else:
        value, exact = names["d"], f"CASE WHEN {t} <= {DECIMAL} THEN {names['x']} END"
    # a bound value that is no number, or an ill-typed one ("abc"^^xsd:integer): op:numeric-add fails
    wrong = f"count(CASE WHEN {b} AND ({t} IS NULL OR ({value}) IS NULL) THEN 1 END) > 0"
    code = (f"CASE WHEN {wrong} THEN NULL ELSE greatest(max({t}), {DECIMAL}) END" if average
            else f"CASE WHEN {wrong} THEN NULL ELSE max({t}) END")
    exact_sum = f"sum({exact})"
    if average:
        result, as_double = _quotient(exact_sum, f"count({t})"), f"avg({value})"
    else:
        result, as_double = exact_sum, f"sum({value})"
    return typed_number(as_double, code, f"CASE WHEN ({code}) <= {DECIMAL} THEN {result} END")
