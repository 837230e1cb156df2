"""SPARQL's comparison operators (SPARQL 1.1 §17.3, operator mapping) as Spark SQL over terms.

``=`` compares numbers by value, simple literals (xsd:string ones are simple: :func:`sqlterms.n3`) by
text and booleans by value; any other pair is RDFterm-equal: the same term is equal, a language-tagged
literal is the same term whatever the case of its tag, two literals of two value spaces the operators know
are unequal (:func:`_family`), two other literals that are not the same term are a type error (null: a
FILTER drops it; ``!=`` keeps the error), and an IRI or blank node against anything else is unequal.
``<``, ``>``, ``<=``, ``>=`` order numbers, simple literals (by code point), booleans and xsd:dateTime values,
and two language-tagged literals of one tag by their lexical forms (an extension: see :func:`_terms`); any
other pair is a type error.  What this engine cannot decide from the data —
the order of a dateTime with a time zone and one without, other date/time types — it *refuses* at run time
(:func:`sqlterms.refuse`), never guessing.
"""

from __future__ import annotations

from rdflib.namespace import XSD

from engines.contract import Unsupported
from engines.spark.sqlnumbers import DECIMAL, NO_EXACT, bind_nums, numeric
from engines.spark.sqlterms import (
    Value,
    as_num,
    as_term,
    instant,
    let,
    literal_lexical,
    refuse,
    simple_literal,
    sql_string,
    tagged_literal,
    typed_literal,
)

TEMPORAL = [str(x) for x in (XSD.dateTime, XSD.date, XSD.time, XSD.dateTimeStamp, XSD.gYear, XSD.gYearMonth,
                             XSD.gMonth, XSD.gMonthDay, XSD.gDay, XSD.duration, XSD.dayTimeDuration,
                             XSD.yearMonthDuration)]


def _tag(c: str) -> str:
    return f"lower(substring_index({c}, '@', -1))"


def _boolean(c: str) -> str:
    """The value of a valid xsd:boolean literal; null for anything else (an invalid form: not a boolean)."""
    typed, lex, datatype = typed_literal(c)
    return (f"CASE WHEN {typed} AND {datatype} = '{XSD.boolean}' THEN CASE WHEN {lex} IN ('true', '1') THEN true"
            f" WHEN {lex} IN ('false', '0') THEN false END END")


def _temporal(c: str) -> tuple[str, str]:
    """(is a date/time literal, its datatype)."""
    typed, _, datatype = typed_literal(c)
    return f"({typed} AND {datatype} IN ({', '.join(sql_string(x) for x in TEMPORAL)}))", datatype


ORDER_OPEN = "ordering a date/time with a time zone against one without, less than 14 hours apart"


_XSD_DATE = sql_string("^-?[0-9]{4,}-[0-9]{2}-[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})?$")


def _family(c: str, number: str, kind: str) -> str:
    """SQL: which of the value spaces SPARQL's operators know a literal is in — ``n`` a valid number, ``s`` a
    simple literal (xsd:string ones are written so), ``l`` a language-tagged one, ``b`` a valid boolean, ``d`` a
    dateTime Spark reads, ``t`` a valid xsd:date — or null (another datatype, an invalid form, no literal).  Two
    literals in two of them are unequal, and so is a language-tagged one and any other literal: the W3C suite's
    optional feature KnownTypesDefault2Neq (open-eq-08, -10, -11, -12), which rdflib and Oxigraph implement;
    without it ``2 = "abc"`` is a type error (RDFterm-equal), and the oracle's answers, which have it, FAILed the
    engine wherever that reached the answer (``FILTER(?v != "x")`` over numbers)."""
    if kind == "bool":
        return "'b'"
    typed, lex, datatype = typed_literal(c)
    return (f"CASE WHEN ({number}) IS NOT NULL THEN 'n' WHEN {simple_literal(c)} THEN 's'"
            f" WHEN {tagged_literal(c)} THEN 'l' WHEN ({_boolean(c)}) IS NOT NULL THEN 'b'"
            f" WHEN {typed} AND {datatype} = '{XSD.dateTime}' AND ({instant(lex)}) IS NOT NULL THEN 'd'"
            f" WHEN {typed} AND {datatype} = '{XSD.date}' AND {lex} RLIKE {_XSD_DATE} THEN 't' END")


def _date_times(sign: str, ta: str, tb: str) -> str:
    """The CASE branches for two date/time literals.  Two xsd:dateTime values are compared as instants
    (XPath: a value without a time zone is determinate against one with a zone only when they are more
    than 14 hours apart).  A time zone on one side only within 14 hours: they are not equal (XSD 1.1's
    partial order makes them incomparable, and incomparable values are not equal: W3C ``eq-dateTime``'s d4,
    23:00 against 23:00+06:00, "false"; rdflib and Oxigraph answer so too), and their order, which depends on
    the implicit zone, is refused.  Hour 24 (``24:00:00``, XSD's end of a day) is the next day's 00:00:00.  A
    form Spark cannot read otherwise and two other date/time literals of one type are refused; two of
    different types are a type error (a later branch)."""
    (ka, da), (kb, db) = _temporal(ta), _temporal(tb)
    (_, la, _), (_, lb, _) = typed_literal(ta), typed_literal(tb)
    zone = "'(Z|[+-][0-9][0-9]:[0-9][0-9])$'"
    at_a, at_b = instant(la), instant(lb)
    return (f"WHEN {ka} AND {kb} AND {da} = '{XSD.dateTime}' AND {db} = '{XSD.dateTime}' THEN CASE"
            f" WHEN {at_a} IS NULL OR {at_b} IS NULL THEN {refuse('a date/time form Spark does not read')}"
            f" WHEN ({la} RLIKE {zone}) != ({lb} RLIKE {zone}) AND abs(unix_seconds({at_a}) - unix_seconds({at_b}))"
            f" <= 50400 THEN {'false' if sign == '=' else refuse(ORDER_OPEN)}"
            f" ELSE {at_a} {sign} {at_b} END"
            f" WHEN {ka} AND {kb} AND {da} = {db} AND ({ta}) != ({tb}) THEN "
            + refuse("comparing two date/time literals other than xsd:dateTime"))


def compare(op: str, a: Value, b: Value) -> Value:
    """``a op b`` for op one of = != < > <= >=, as a boolean Value (null: a type error)."""
    if "num" in (a.kind, b.kind):
        return Value("bool", bind_nums(a, lambda x: bind_nums(b, lambda y: _numbers(op, x, y).sql)))
    if op in ("=", "!=") and (a.const in EQUAL_CONSTANTS or b.const in EQUAL_CONSTANTS):
        variable, fixed = (a, b) if b.const in EQUAL_CONSTANTS else (b, a)
        return Value("bool", let(as_term(variable), lambda x: _equal_constant(op, Value("term", x), fixed)))
    if a.kind == "term" and b.kind == "term":  # each side is read some 30 times: bound once if long
        return Value("bool", let(a.sql, lambda x: let(b.sql, lambda y: _terms(
            op, Value("term", x, const=a.const), Value("term", y, const=b.const)))))
    return Value("bool", _terms(op, a, b))


EQUAL_CONSTANTS = ("iri", "simple", "tagged")  # the constants :func:`_equal_constant` knows


def _equal_constant(op: str, a: Value, b: Value) -> str:
    """SQL of ``a = b`` (or ``!=``) where ``b`` is a constant IRI, simple or language-tagged literal: the
    branches of :func:`_terms` that such a constant can meet, the same answers.  Written in full, each
    ``= <iri>`` was 20 KB of SQL (both sides' number, boolean, date and family tests), so ``?t IN (:A, :B,
    :C, :D)`` was 85 KB; a ``FILTER`` over many such tests made texts Spark parses for long."""
    ta, tb = as_term(a), b.sql
    if b.const == "iri":  # an IRI is equal to itself only; unbound: an error
        equal = f"({ta}) = {tb}"
    elif b.const == "tagged":  # any other literal, an IRI, a blank node: unequal (KnownTypesDefault2Neq)
        equal = (f"CASE WHEN ({ta}) = {tb} THEN true WHEN {tagged_literal(ta)} THEN ({literal_lexical(ta)}) ="
                 f" ({literal_lexical(tb)}) AND {_tag(ta)} = {_tag(tb)} WHEN ({ta}) IS NULL THEN CAST(NULL AS BOOLEAN)"
                 " ELSE false END")
    else:  # simple: another simple literal by its text; a literal of a known value space unequal, of another
        # datatype (or an invalid form) an error, as RDFterm-equal says
        known = _family(ta, as_num(a), a.kind)
        equal = (f"CASE WHEN {simple_literal(ta)} THEN ({ta}) = {tb} WHEN ({known}) IS NOT NULL THEN false"
                 f" WHEN startswith({ta}, '\"') OR ({ta}) IS NULL THEN CAST(NULL AS BOOLEAN) ELSE false END")
    return f"(NOT ({equal}))" if op == "!=" else f"({equal})"


def _terms(op: str, a: Value, b: Value) -> str:
    """SQL of ``a op b`` for two terms (or a term and a boolean).  A side that is a constant of a known kind
    (``Value.const``) leaves out the branches for two values of another kind, which it cannot meet:
    ``?t > "…"^^xsd:dateTime``, the common time filter, was 25 KB of SQL with the number, string, tagged and
    boolean branches."""
    kinds = {a.const, b.const} - {None}

    def can(kind: str | None) -> bool:  # two values of this kind may meet (None: two numbers)
        return kinds <= {kind}
    ta, tb = as_term(a), as_term(b)
    la, lb = literal_lexical(ta), literal_lexical(tb)
    na = as_num(a) if a.kind != "bool" else "CAST(NULL AS DOUBLE)"
    nb = as_num(b) if b.kind != "bool" else "CAST(NULL AS DOUBLE)"
    sign = {"!=": "="}.get(op, op)
    # NaN: every comparison false (XPath op:numeric-equal, -less-than, -greater-than; != is not =), where Spark's
    # NaN = NaN is true and NaN > 1 too
    numeric = (f"WHEN ({na}) IS NOT NULL AND ({nb}) IS NOT NULL THEN NOT isnan({na}) AND NOT isnan({nb})"
               f" AND ({na}) {sign} ({nb})") if can(None) else ""
    booleans = (f"WHEN ({_boolean(ta)}) IS NOT NULL AND ({_boolean(tb)}) IS NOT NULL THEN ({_boolean(ta)}) {sign}"
                f" ({_boolean(tb)})") if can("boolean") else ""
    temporal = _date_times(sign, ta, tb) if can("dateTime") else ""
    if sign == "=":
        literals = f"startswith({ta}, '\"') AND startswith({tb}, '\"')"
        unlike = let(_family(ta, na, a.kind), lambda fa: let(_family(tb, nb, b.kind), lambda fb: (
            f"(({fa}) != ({fb}) OR ({literals} AND (coalesce({fa}, '') = 'l') != (coalesce({fb}, '') = 'l')))")))
        simple = f"WHEN {simple_literal(ta)} AND {simple_literal(tb)} THEN ({ta}) = ({tb})" if can("simple") else ""
        tagged = (f"WHEN {tagged_literal(ta)} AND {tagged_literal(tb)} THEN ({la}) = ({lb}) AND {_tag(ta)} = {_tag(tb)}"
                  if can("tagged") else "")
        equal = (f"CASE {' '.join(b for b in (numeric, simple, booleans) if b)}"
                 f" WHEN ({ta}) = ({tb}) THEN true"
                 f" {' '.join(b for b in (tagged, temporal) if b)} WHEN {unlike} THEN false"
                 f" WHEN {literals} THEN CAST(NULL AS BOOLEAN)"
                 f" WHEN ({ta}) IS NULL OR ({tb}) IS NULL THEN CAST(NULL AS BOOLEAN) ELSE false END")
        return f"(NOT ({equal}))" if op == "!=" else f"({equal})"
    # ordering: numbers, simple literals by their lexical forms (escapes undone: by code point, as fn:compare),
    # booleans, dateTimes; two language-tagged literals of one tag by their lexical forms too, the extension
    # rdflib, Oxigraph and Jena make (SPARQL's table has no row for them: a type error by its base text, so
    # the oracle's answers FAILed the engine, a differential fuzz found); anything else a type error
    strings = f"WHEN {simple_literal(ta)} AND {simple_literal(tb)} THEN ({la}) {sign} ({lb})" if can("simple") else ""
    tagged = (f"WHEN {tagged_literal(ta)} AND {tagged_literal(tb)} AND {_tag(ta)} = {_tag(tb)}"
              f" THEN ({la}) {sign} ({lb})") if can("tagged") else ""
    branches = " ".join(b for b in (numeric, strings, tagged, booleans, temporal) if b)
    return f"(CASE {branches} ELSE CAST(NULL AS BOOLEAN) END)" if branches else "CAST(NULL AS BOOLEAN)"  # (an IRI)


FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _doubles(sign: str, x: Value, y: Value) -> str:
    """SQL of ``x sign y`` (= < <= > >=) over two doubles, a NaN making it false (XPath op:numeric-equal,
    -less-than, -greater-than), an error (null) null.  Spark orders NaN above every number, so ``NaN > 1`` and
    ``NaN = NaN`` were true.  Against a finite constant the number is read once: NaN compares false as the
    smaller side of Spark's ``<`` and ``<=`` (and in ``=``), so ``?v > 80`` is written ``-?v < -80``."""
    for fixed, bigger in ((y, (">", ">=")), (x, ("<", "<="))):  # the other side on the greater side of these
        if fixed.const == "number":
            if sign in bigger:  # negated, the other side is on the smaller
                return f"(- ({x.sql})) {FLIPPED[sign]} (- ({y.sql}))"
            return f"({x.sql}) {sign} ({y.sql})"
    return (f"CASE WHEN isnan({x.sql}) OR isnan({y.sql}) THEN CASE WHEN ({x.sql}) IS NOT NULL AND ({y.sql})"
            f" IS NOT NULL THEN false END ELSE ({x.sql}) {sign} ({y.sql}) END")


def _numbers(op: str, a: Value, b: Value) -> Value:
    """A comparison with a computed number (always a number, or an error): integers and decimals compare
    exactly, anything with a double or float as doubles; against a term that is no number, ``=`` is a
    type error for a literal and false for an IRI or blank node."""
    if "bool" in (a.kind, b.kind):
        raise Unsupported("comparing a computed number with a boolean expression")
    x, y = numeric(a), numeric(b)
    sign = {"!=": "="}.get(op, op)
    # greatest() skips a null: a side that is no number makes both comparisons null (its value is null),
    # so the type codes need no test of their own (each look at a term's datatype costs a string scan)
    value = (f"CASE WHEN greatest({x.dtype}, {y.dtype}) <= {DECIMAL} THEN ({x.exact or NO_EXACT}) {sign} "
             f"({y.exact or NO_EXACT}) ELSE {_doubles(sign, x, y)} END")
    other = next((v.sql for v in (a, b) if v.kind == "term"), None)
    if sign == "=" and other is not None:  # a number is unequal to an IRI or a blank node, not an error, and to a
        # literal of another value space SPARQL's operators know (:func:`_family`)
        known = _family(other, "CAST(NULL AS DOUBLE)", "term")
        value = (f"CASE WHEN ({other}) IS NOT NULL AND NOT startswith({other}, '\"') THEN false"
                 f" WHEN ({known}) IS NOT NULL THEN false ELSE {value} END")
    return Value("bool", f"(NOT ({value}))" if op == "!=" else f"({value})")
