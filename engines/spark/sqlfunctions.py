"""SPARQL's built-in functions and XSD casts (SPARQL 1.1 §17.4, §17.5) as Spark SQL over N-Triples terms.

Each takes compiled arguments (:class:`~engines.spark.sqlterms.Value`) and gives one; a type error is null,
as everywhere in the engine (a FILTER drops it, a BIND leaves the variable unbound).  String functions
take string literals (simple, xsd:string — written as simple — or language-tagged) and keep the first
argument's language tag where the spec says so; a typed literal of another type, an IRI or a blank node is
a type error.  Casts follow XPath's casting table for the types SPARQL names (xsd:string, integer,
decimal, double, float, boolean, dateTime), from strings by their lexical form, from numbers by value.
RAND, UUID, STRUUID and BNODE give a fresh value per call and solution (:data:`FRESH`): the compiler
computes each once, in a column of its own (``Compiler.drawn``), and reads that.  Not here: REPLACE with a
pattern that is not a constant, a relative IRI without a BASE or with a dot segment (refused by name).
"""

from __future__ import annotations

import re

from rdflib import RDF
from rdflib.namespace import XSD

from engines.contract import Unsupported
from engines.spark.sqlnumbers import (
    DECIMAL,
    DOUBLE,
    FLOAT,
    INTEGER,
    NO_EXACT,
    bind_nums,
    computed,
    numeric,
    struct,
)
from engines.spark.sqlterms import (
    Value,
    as_bool,
    as_num,
    as_term,
    double_literal,
    effective_boolean_value,
    let,
    lexical,
    literal_lexical,
    refuse,
    simple_literal,
    sql_string,
    tagged_literal,
    typed_literal,
)

_LANG_TAG = sql_string('"(@[A-Za-z0-9-]+)$')
_TAG = sql_string('"@([A-Za-z0-9-]+)$')
_INTEGER = sql_string(r"^[+-]?[0-9]+$")
_DECIMAL = sql_string(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$")
_DOUBLE = sql_string(r"^[+-]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|INF)$|^NaN$")
_DATETIME = sql_string(r"^-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$")


def _string(c: str) -> str:
    """SQL: whether the term is a string literal (simple, or language-tagged)."""
    return f"({simple_literal(c)} OR {tagged_literal(c)})"


_simple = simple_literal


def _suffix(c: str) -> str:
    """SQL: a string literal's language tag with its @ ('' for a simple literal)."""
    return f"regexp_extract({c}, {_LANG_TAG}, 1)"


def escaped(text: str) -> str:
    """SQL: a string written as an N-Triples lexical form (the inverse of :func:`sqlterms.unescaped`)."""
    out = f"replace({text}, {sql_string(chr(92))}, {sql_string(chr(92) * 2)})"
    for char, escape in (('"', '\\"'), ("\n", "\\n"), ("\r", "\\r")):
        out = f"replace({out}, {sql_string(char)}, {sql_string(escape)})"
    return out


def _literal(text: str, suffix: str = "''") -> Value:
    """A literal of ``text`` (null when it is: concat of a null is null) with ``suffix`` (a tag or '')."""
    return Value("term", f"concat('\"', {escaped(text)}, '\"', {suffix})")


def _typed(lex: str, datatype) -> Value:
    return Value("term", f"concat('\"', {lex}, '\"^^<{datatype}>')")


def _on(v: Value, body) -> str:
    """SQL: ``body`` of the argument's term, bound once (:func:`~engines.spark.sqlterms.let`)."""
    return let(as_term(v), body)


def _when(condition: str, value: str) -> str:
    return f"CASE WHEN {condition} THEN {value} END"


def datatype(v: Value) -> Value:
    """DATATYPE: a typed literal's datatype, rdf:langString for a tagged one, xsd:string for a simple one;
    a computed number's type."""
    if v.kind == "bool":
        return Value("term", f"'<{XSD.boolean}>'")
    if v.kind == "num":
        names = {INTEGER: XSD.integer, DECIMAL: XSD.decimal, FLOAT: XSD.float, DOUBLE: XSD.double}
        cases = " ".join(f"WHEN {code} THEN '<{iri}>'" for code, iri in names.items())
        return Value("term", f"CASE {numeric(v).dtype} {cases} END")

    def of(c):
        typed, _, dt = typed_literal(c)
        return (f"CASE WHEN {typed} THEN concat('<', {dt}, '>') WHEN {_simple(c)} THEN '<{XSD.string}>'"
                f" WHEN {_string(c)} THEN '<{RDF.langString}>' END")
    return Value("term", _on(v, of))


def lang(v: Value) -> Value:
    return Value("term", _on(v, lambda c: f"CASE WHEN startswith({c}, '\"') THEN concat('\"', "
                                          f"regexp_extract({c}, {_TAG}, 1), '\"') END"))


def langmatches(tag: Value, range_: Value) -> Value:
    """LANGMATCHES of two simple literals (SPARQL 1.1 §17.4.3.14; xsd:string ones are written so); any other
    argument — a number, a boolean, a tagged literal — is a type error (it read their lexical forms: a differential
    fuzz found LANGMATCHES(true, ?o) false, where the oracle's two evaluators raise the error)."""
    def test(t, r):
        return (f"CASE WHEN {t} IS NULL OR {r} IS NULL THEN NULL WHEN {r} = '*' THEN {t} != ''"
                f" ELSE {t} = {r} OR startswith({t}, concat({r}, '-')) END")

    def text(v: Value) -> str:
        return let(as_term(v), lambda c: f"CASE WHEN {simple_literal(c)} THEN lower({literal_lexical(c)}) END")
    return Value("bool", let(text(tag), lambda t: let(text(range_), lambda r: test(t, r))))


def same_term(a: Value, b: Value) -> Value:
    return Value("bool", f"(({as_term(a)}) = ({as_term(b)}))")


def is_blank(v: Value) -> Value:
    return Value("bool", f"startswith({as_term(v)}, '_:')")


def strlen(v: Value) -> Value:
    return Value("term", _on(v, lambda c: _typed(_when(_string(c), f"CAST(char_length({literal_lexical(c)}) AS STRING)"),
                                                 XSD.integer).sql))


def case_of(v: Value, upper: bool) -> Value:
    return Value("term", _on(v, lambda c: _literal(
        _when(_string(c), f"{'upper' if upper else 'lower'}({literal_lexical(c)})"), _suffix(c)).sql))


def concat(args: list[Value]) -> Value:
    """CONCAT: the lexical forms joined; the common language tag if every argument has the same, else none."""
    if not args:
        return Value("term", "'\"\"'")

    # each argument's term is read four times: bound once (written out, a computed one made
    # CONCAT(STR(-1), LANG(?x)) 61 KB of SQL)
    def joined(terms: list[str]) -> str:
        ok = " AND ".join(_string(c) for c in terms)
        lexical = f"concat({', '.join(literal_lexical(c) for c in terms)})"
        same = " AND ".join(f"{_suffix(terms[0])} = {_suffix(c)}" for c in terms[1:]) or "true"
        return _literal(_when(ok, lexical), f"CASE WHEN {same} THEN {_suffix(terms[0])} ELSE '' END").sql

    def bound(rest: list[Value], terms: list[str]) -> str:
        if not rest:
            return joined(terms)
        return _on(rest[0], lambda c: bound(rest[1:], terms + [c]))
    return Value("term", bound(list(args), []))


def group_concat(column: str, separator: str, distinct: bool) -> str:
    """SQL aggregate: GROUP_CONCAT of the per-solution terms in ``column`` (SPARQL 1.1 §18.5.1.7): their
    lexical forms joined by ``separator`` into a simple literal (the W3C suite's results are simple even
    where every value has one language tag, agg-groupconcat-4); unbound values left out; in the terms'
    order (SPARQL leaves it open: this one is the same on every run).  A bound value that is no string
    literal is refused: rdflib joins an IRI's or a number's text, Oxigraph makes the aggregate an error."""
    c = f"`{column}`"
    terms = f"collect_list({c})"
    if distinct:
        terms = f"array_distinct({terms})"
    joined = f"array_join(transform(array_sort({terms}), x -> {literal_lexical('x')}), {sql_string(separator)})"
    other = f"count(CASE WHEN {c} IS NOT NULL AND NOT {_string(c)} THEN 1 END) > 0"
    return (f"CASE WHEN {other} THEN {refuse('GROUP_CONCAT over a value that is no string literal')}"
            f" ELSE {_literal(joined).sql} END")


def substr(text: Value, start: Value, length: Value | None) -> Value:
    """SUBSTR (XPath fn:substring): the characters at positions p, round(start) ≤ p < round(start) + round(length)."""
    def cut(c, st):
        lex = literal_lexical(c)
        if length is None:
            part = f"substring({lex}, greatest({st}, 1))"
        else:
            end = f"({st} + CAST(round({as_num(length)}) AS INT))"
            part = (f"CASE WHEN {end} <= greatest({st}, 1) THEN '' ELSE substring({lex}, greatest({st}, 1), "
                    f"{end} - greatest({st}, 1)) END")
        return _literal(_when(f"{_string(c)} AND {st} IS NOT NULL", part), _suffix(c)).sql
    return Value("term", _on(text, lambda c: let(f"CAST(round({as_num(start)}) AS INT)", lambda st: cut(c, st))))


def _compatible(a: str, b: str) -> str:
    """Two string literals a function may take together: the second simple, or tagged like the first."""
    return f"({_string(a)} AND {_string(b)} AND ({_suffix(b)} = '' OR {_suffix(b)} = {_suffix(a)}))"


def string_test(name: str, a: Value, b: Value) -> Value:
    def test(x, y):
        la, lb = literal_lexical(x), literal_lexical(y)
        return _when(_compatible(x, y), {"STRSTARTS": f"startswith({la}, {lb})", "STRENDS": f"endswith({la}, {lb})",
                                         "CONTAINS": f"contains({la}, {lb})"}[name])
    return Value("bool", _on(a, lambda x: _on(b, lambda y: test(x, y))))


def before_after(name: str, a: Value, b: Value) -> Value:
    """STRBEFORE / STRAFTER: the text before / after the first match, keeping the first argument's tag;
    no match: the empty simple literal."""
    def split(x, y):
        la, lb = literal_lexical(x), literal_lexical(y)
        at = f"locate({lb}, {la})"
        part = f"substring({la}, 1, {at} - 1)" if name == "STRBEFORE" else f"substring({la}, {at} + length({lb}))"
        found = _literal(part, _suffix(x)).sql
        return f"CASE WHEN NOT {_compatible(x, y)} THEN NULL WHEN {at} = 0 THEN '\"\"' ELSE {found} END"
    return Value("term", _on(a, lambda x: _on(b, lambda y: split(x, y))))


def coalesce(args: list[Value]) -> Value:
    """COALESCE: the first argument without an error; none (COALESCE()): an error."""
    if not args:
        return Value("term", "CAST(NULL AS STRING)")
    return Value("term", f"coalesce({', '.join(as_term(a) for a in args)})")


def if_(condition: Value, then: Value, otherwise: Value) -> Value:
    return Value("term", let(as_bool(condition), lambda cond: (  # read twice: bound once if long
        f"CASE WHEN ({cond}) IS NULL THEN NULL WHEN {cond} THEN {as_term(then)} ELSE {as_term(otherwise)} END")))


HASHES = {"MD5": "md5({})", "SHA1": "sha1({})", "SHA256": "sha2({}, 256)", "SHA384": "sha2({}, 384)",
          "SHA512": "sha2({}, 512)"}


def digest(name: str, v: Value) -> Value:
    """MD5 / SHA*: of a simple literal's UTF-8 bytes, as lower-case hex."""
    return Value("term", _on(v, lambda c: _literal(_when(_simple(c), HASHES[name].format(literal_lexical(c)))).sql))


#: SQL of each call that draws a fresh value, as an N-Triples term: RAND's xsd:double in [0, 1) (Java's
#: shortest text of a double reads back as the same double), UUID's urn:uuid IRI, STRUUID's simple literal
#: and BNODE()'s blank node.  Spark's rand() and uuid() are nondeterministic expressions: the optimizer
#: neither copies a column made of one into the expressions that read it nor pushes a filter below it
FRESH = {"RAND": f"concat('\"', CAST(rand() AS STRING), '\"^^<{XSD.double}>')",
         "UUID": "concat('<urn:uuid:', uuid(), '>')",
         "STRUUID": "concat('\"', uuid(), '\"')",
         "BNODE": "concat('_:u', replace(uuid(), '-', ''))"}
#: SQL of one solution's seed for BNODE(str)
SEED = "uuid()"
_DRAWS = re.compile(r"\b(?:rand|uuid)\(\)")


def draws(sql: str) -> bool:
    """Whether SQL text holds a fresh draw (:data:`FRESH`): written twice, it would draw twice.  A constant
    of the query that holds ``rand()`` or ``uuid()`` as text answers True too: a refusal, never a wrong answer."""
    return _DRAWS.search(sql) is not None


def bnode_of(seed: str, v: Value) -> Value:
    """BNODE(str): the same blank node for the same simple literal within one solution (its ``seed``), another
    for another literal or solution (SPARQL 1.1 §17.4.2.9); of any other term an error."""
    return Value("term", _on(v, lambda c: _when(_simple(c), f"concat('_:s', sha2(concat({seed}, '|', "
                                                             f"{literal_lexical(c)}), 256))")))


def encode_for_uri(v: Value) -> Value:
    """ENCODE_FOR_URI: every character but RFC 3986's unreserved ones percent-encoded (Java's URL encoder
    writes a space as +, leaves * and encodes ~: put right)."""
    def encode(c):
        encoded = f"replace(replace(replace(url_encode({literal_lexical(c)}), '+', '%20'), '*', '%2A'), '%7E', '~')"
        return _literal(_when(_string(c), encoded)).sql
    return Value("term", _on(v, encode))


#: a relative reference with a dot segment (``.`` or ``..``) in its path: RFC 3986 §5.2.4 removes those,
#: which is not written here, so such a reference is refused
_DOT_SEGMENT = r"^([^?#]*/)?[.][.]?([/?#]|$)"
_SCHEME = "^[A-Za-z][A-Za-z0-9+.-]*:"


def _resolved_against(base: str | None) -> dict[str, str] | None:
    """The prefixes RFC 3986 §5.2.2 joins a relative reference to, by how the reference starts, for the query's
    base IRI (None: no base, or one this does not resolve against: relative, or with dot segments)."""
    if not base or not re.match(_SCHEME, base):
        return None
    scheme, rest = base.split(":", 1)
    rest = rest.split("#", 1)[0]
    rest, query = rest.split("?", 1) if "?" in rest else (rest, None)
    if rest.startswith("//"):
        slash = rest.find("/", 2)
        root, path = (rest, "") if slash < 0 else (rest[:slash], rest[slash:])
    else:
        root, path = "", rest
    if re.search(_DOT_SEGMENT, path):
        return None
    merged = "/" if root and not path else path[:path.rfind("/") + 1]  # §5.2.3: the base's path to its last /
    prefix = f"{scheme}:{root}"
    return {"//": f"{scheme}:", "/": prefix, "?": prefix + path,
            "#": prefix + path + ("" if query is None else "?" + query), "": prefix + merged}


def iri(v: Value, base: str | None = None) -> Value:
    """IRI / URI of an IRI (itself) or a simple literal holding an IRI: an absolute one as it is, a relative
    one resolved against the query's BASE (RFC 3986 §5.2; refused by name without a BASE, or with a dot
    segment, which this does not remove)."""
    joined = _resolved_against(base)

    def make(c):
        text = literal_lexical(c)
        simple = _simple(c)
        out = (f"CASE WHEN startswith({c}, '<') THEN {c} WHEN {simple} AND {text} RLIKE "
               f"{sql_string(_SCHEME)} THEN concat('<', {text}, '>')")
        if joined is None:
            reason = "no BASE in the query" if not base else f"the base <{base}> is not one it resolves against"
            return out + f" WHEN {simple} THEN {refuse(f'IRI() of a relative reference ({reason})')} END"
        out += (f" WHEN {simple} AND {text} RLIKE {sql_string(_DOT_SEGMENT)} THEN "
                f"{refuse('IRI() of a relative reference with a dot segment (not removed here)')}")
        for start in ("//", "/", "?", "#"):
            out += (f" WHEN {simple} AND startswith({text}, {sql_string(start)}) THEN "
                    f"concat('<', {sql_string(joined[start])}, {text}, '>')")
        return (out + f" WHEN {simple} AND {text} = '' THEN {sql_string('<' + joined['#'] + '>')}"
                f" WHEN {simple} THEN concat('<', {sql_string(joined[''])}, {text}, '>') END")
    return Value("term", _on(v, make))


def strdt(lex: Value, dt: Value) -> Value:
    """STRDT: a simple literal's lexical form with an IRI as its datatype (xsd:string: the simple literal)."""
    def make(c, d):
        iri = f"substr({d}, 2, length({d}) - 2)"
        return (f"CASE WHEN {_simple(c)} AND startswith({d}, '<') THEN CASE WHEN {iri} = '{XSD.string}' THEN {c}"
                f" ELSE concat({c}, '^^', {d}) END END")
    return Value("term", _on(lex, lambda c: _on(dt, lambda d: make(c, d))))


def strlang(lex: Value, tag: Value) -> Value:
    """STRLANG: a simple literal's lexical form with a language tag (written in lower case, as every tag)."""
    return Value("term", _on(lex, lambda c: _on(tag, lambda t: (
        f"CASE WHEN {_simple(c)} AND {_simple(t)} AND {literal_lexical(t)} RLIKE '^[A-Za-z]+(-[A-Za-z0-9]+)*$'"
        f" THEN concat({c}, '@', lower({literal_lexical(t)})) END"))))


def java_regex(pattern: str, flags: str) -> str:
    """XPath's constant pattern and flags as one Java regular expression: s, m, i and x are Java's own inline
    flags; with q every character of the pattern stands for itself (XPath 3.1 §5.6.1.1: quoted as Java's
    ``Pattern.quote`` does), and m, s and x have no effect.  Other flags are refused by name."""
    if not set(flags) <= set("smixq"):
        raise Unsupported(f"the regular expression flags {flags!r} (XPath's are s, m, i, x and q)")
    if "q" in flags:
        pattern, flags = "\\Q" + pattern.replace("\\E", "\\E\\\\E\\Q") + "\\E", "i" if "i" in flags else ""
    return (f"(?{flags})" if flags else "") + pattern


def replace_(text: Value, pattern: str, replacement: str, flags: str) -> Value:
    """REPLACE with a constant pattern, replacement and flags (XPath's are Java's: $1 and \\ alike; with q the
    replacement is taken as it is too); the first argument's tag is kept."""
    if "q" in flags:
        replacement = replacement.replace("\\", "\\\\").replace("$", "\\$")
    regex = java_regex(pattern, flags)
    return Value("term", _on(text, lambda c: _literal(_when(_string(c), f"regexp_replace({literal_lexical(c)}, "
                                                              f"{sql_string(regex)}, {sql_string(replacement)})"),
                                                      _suffix(c)).sql))


def rounding(name: str, v: Value) -> Value:
    """ABS, CEIL, FLOOR, ROUND of a number, of its own type (ROUND: half up, towards positive infinity)."""
    f = {"ABS": "abs({})", "CEIL": "ceil({})", "FLOOR": "floor({})", "ROUND": "floor({} + 0.5)"}[name]
    return computed(bind_nums(numeric(v), lambda n: struct(Value(
        "num", f"CAST({f.format(n.sql)} AS DOUBLE)", n.dtype,
        f"CAST({f.format(n.exact or NO_EXACT)} AS DECIMAL(38,18))"))))


_DATE = sql_string(r"^(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2}(\.[0-9]+)?)(Z|[+-][0-9]{2}:[0-9]{2})?$")


def date_part(name: str, v: Value) -> Value:
    """YEAR … SECONDS, TZ and TIMEZONE of an xsd:dateTime literal, read off its lexical form.  Hour 24, XSD's end
    of a day, is the next day's 00:00 (XPath F&O: YEAR of 1999-12-31T24:00:00 is 2000), which its lexical form
    does not show: refused by name for YEAR … SECONDS (its zone is as written)."""
    def part(c):
        typed, lex, dt = typed_literal(c)
        ok = f"({typed} AND {dt} = '{XSD.dateTime}' AND {lex} RLIKE {_DATE})"
        group = {"YEAR": 1, "MONTH": 2, "DAY": 3, "HOURS": 4, "MINUTES": 5, "SECONDS": 6, "TZ": 8, "TIMEZONE": 8}[name]
        got = f"regexp_extract({lex}, {_DATE}, {group})"
        if name not in ("TZ", "TIMEZONE"):
            ok = (f"(CASE WHEN {ok} AND {lex} RLIKE 'T24:' THEN {refuse(f'{name} of a dateTime at hour 24')}"
                  f" ELSE {ok} END)")
        if name == "SECONDS":
            return _when(ok, f"concat('\"', CAST(CAST({got} AS DECIMAL(38,18)) AS STRING), '\"^^<{XSD.decimal}>')")
        if name == "TZ":
            return _when(ok, f"concat('\"', {got}, '\"')")
        if name == "TIMEZONE":  # a dayTimeDuration; none without a zone (an error)
            hours, minutes = f"CAST(substr({got}, 2, 2) AS INT)", f"CAST(substr({got}, 5, 2) AS INT)"
            duration = (f"CASE WHEN {got} = 'Z' THEN 'PT0S' ELSE concat(CASE WHEN startswith({got}, '-') THEN '-' ELSE '' END,"
                        f" 'PT', CASE WHEN {hours} > 0 THEN concat({hours}, 'H') ELSE '' END,"
                        f" CASE WHEN {minutes} > 0 THEN concat({minutes}, 'M') ELSE '' END,"
                        f" CASE WHEN {hours} = 0 AND {minutes} = 0 THEN '0S' ELSE '' END) END")
            return _when(f"{ok} AND {got} != ''", f"concat('\"', {duration}, '\"^^<{XSD.dayTimeDuration}>')")
        return _when(ok, f"concat('\"', CAST(CAST({got} AS INT) AS STRING), '\"^^<{XSD.integer}>')")
    return Value("term", _on(v, part))


# -- casts --------------------------------------------------------------------------------------------
def cast(target: str, v: Value) -> Value:
    """An XSD constructor function: xsd:string, integer, decimal, double, float, boolean, dateTime."""
    if target not in CASTS:
        raise Unsupported(f"the function <{target}>")
    return Value("term", _on(v, lambda c: _cast(target, c)))


CASTS = [str(x) for x in (XSD.string, XSD.integer, XSD.decimal, XSD.double, XSD.float, XSD.boolean, XSD.dateTime)]


def _double_string(x: str) -> str:
    """SQL: XPath's canonical string of a double: without an exponent for 1e-6 ≤ |x| < 1e6 and zero ("0",
    "0.5"), else in scientific notation ("1.0E7", as Java writes it); INF, -INF, NaN."""
    plain = f"regexp_replace(CAST(CAST({x} AS DECIMAL(38,18)) AS STRING), '[.]?0+$', '')"
    return (f"CASE WHEN isnan({x}) THEN 'NaN' WHEN {x} = CAST('inf' AS DOUBLE) THEN 'INF'"
            f" WHEN {x} = CAST('-inf' AS DOUBLE) THEN '-INF'"
            f" WHEN {x} = 0 THEN '0' WHEN abs({x}) >= 1e-6 AND abs({x}) < 1e6 THEN {plain}"
            f" ELSE CAST({x} AS STRING) END")


def _cast(target: str, c: str) -> str:
    typed, lex, dt = typed_literal(c)
    text = f"trim({literal_lexical(c)})"  # from a string: its lexical form, whitespace collapsed at the ends
    from_string = f"({_simple(c)})"
    n = numeric(Value("term", c))
    is_num = f"(({n.dtype}) IS NOT NULL AND ({n.sql}) IS NOT NULL)"
    boolean = f"(CASE WHEN {typed} AND {dt} = '{XSD.boolean}' THEN {effective_boolean_value(c)} END)"
    if target == str(XSD.string):  # a boolean's or decimal's canonical form (XPath); other literals as written
        decimal = f"regexp_replace(CAST({n.exact} AS STRING), '[.]?0+$', '')"
        return (f"CASE WHEN ({boolean}) IS NOT NULL THEN CASE WHEN {boolean} THEN '\"true\"' ELSE '\"false\"' END"
                f" WHEN {is_num} AND {n.dtype} = {DECIMAL} AND {n.exact} IS NOT NULL THEN concat('\"', {decimal}, '\"')"
                f" WHEN {is_num} AND {n.dtype} >= {FLOAT} THEN concat('\"', {_double_string(n.sql)}, '\"')"
                f" WHEN startswith({c}, '\"') OR startswith({c}, '<') THEN concat('\"', {lexical(c)}, '\"') END")
    if target == str(XSD.integer):
        value = (f"CASE WHEN {from_string} AND {text} RLIKE {_INTEGER} THEN CAST(try_cast({text} AS DECIMAL(38,0)) AS STRING)"
                 f" WHEN {is_num} AND {n.dtype} <= {DECIMAL} THEN CAST(CASE WHEN {n.exact} >= 0 THEN floor({n.exact})"
                 f" ELSE ceil({n.exact}) END AS STRING)"
                 f" WHEN {is_num} AND NOT isnan({n.sql}) AND abs({n.sql}) < 9.2e18 THEN CAST(CAST({n.sql} AS BIGINT) AS STRING)"
                 f" WHEN ({boolean}) IS NOT NULL THEN CASE WHEN {boolean} THEN '1' ELSE '0' END END")
        return _typed(value, XSD.integer).sql
    if target == str(XSD.decimal):
        exact = (f"CASE WHEN {from_string} AND {text} RLIKE {_DECIMAL} THEN try_cast({text} AS DECIMAL(38,18))"
                 f" WHEN {is_num} AND {n.dtype} <= {DECIMAL} THEN {n.exact}"
                 f" WHEN {is_num} AND NOT isnan({n.sql}) AND abs({n.sql}) < 1e20 THEN try_cast({n.sql} AS DECIMAL(38,18))"
                 f" WHEN ({boolean}) IS NOT NULL THEN CASE WHEN {boolean} THEN 1.0 ELSE 0.0 END END")
        return let(f"CAST({exact} AS STRING)", lambda shown: _typed(
            f"CASE WHEN contains({shown}, '.') THEN regexp_replace(regexp_replace({shown}, '0+$', ''), '[.]$', '.0')"
            f" ELSE concat({shown}, '.0') END", XSD.decimal).sql)
    if target in (str(XSD.double), str(XSD.float)):
        number = (f"CASE WHEN {from_string} AND {text} RLIKE {_DOUBLE} THEN try_cast(replace({text}, 'INF', 'Infinity') AS DOUBLE)"
                  f" WHEN {is_num} THEN {n.sql}"
                  f" WHEN ({boolean}) IS NOT NULL THEN CASE WHEN {boolean} THEN 1.0D ELSE 0.0D END END")
        term = let(number, double_literal)
        return f"replace({term}, '{XSD.double}', '{XSD.float}')" if target == str(XSD.float) else term
    if target == str(XSD.boolean):
        value = (f"CASE WHEN {from_string} AND {text} IN ('true', '1') THEN 'true'"
                 f" WHEN {from_string} AND {text} IN ('false', '0') THEN 'false'"
                 f" WHEN {is_num} THEN CASE WHEN {n.sql} != 0 AND NOT isnan({n.sql}) THEN 'true' ELSE 'false' END"
                 f" WHEN ({boolean}) IS NOT NULL THEN CASE WHEN {boolean} THEN 'true' ELSE 'false' END END")
        return _typed(value, XSD.boolean).sql
    if target == str(XSD.dateTime):
        value = (f"CASE WHEN {from_string} AND {text} RLIKE {_DATETIME} THEN {text}"
                 f" WHEN {typed} AND {dt} = '{XSD.dateTime}' THEN {lex} END")
        return _typed(value, XSD.dateTime).sql
    raise AssertionError(target)
