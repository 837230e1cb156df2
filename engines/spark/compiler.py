"""Compile SPARQL algebra (rdflib's parser) into Spark DataFrame plans over windowed triples.

Input: a DataFrame ``W(__k, s, p, o)`` — every triple once per window instance ``__k`` that holds it
(static triples in every window), terms as N-Triples strings.  Output: a DataFrame with ``__k`` and one
string column per projected variable (an N-Triples term, null when unbound).

Supported: BGP, FILTER (comparisons, && || !, + - * /, BOUND, REGEX, STR, isIRI/isLiteral), OPTIONAL,
UNION, BIND, GROUP BY with COUNT/SUM/AVG/MIN/MAX/SAMPLE, DISTINCT, ORDER BY with LIMIT/OFFSET (per
window), projection, ASK.  Anything else raises
:class:`~engines.contract.Unsupported` naming the construct, so the engine refuses rather than answers
wrongly.  All term handling runs in Spark column expressions: no Python UDF.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from rdflib import BNode, Literal, URIRef, Variable
from rdflib.namespace import XSD
from rdflib.plugins.sparql.parserutils import CompValue

from engines.contract import Unsupported

K = "__k"
RANK = "__rank"  # a solution's position in its window under ORDER BY
NUMERIC = [str(x) for x in (XSD.integer, XSD.decimal, XSD.double, XSD.float, XSD.int, XSD.long, XSD.short,
                            XSD.byte, XSD.nonNegativeInteger, XSD.positiveInteger, XSD.negativeInteger,
                            XSD.nonPositiveInteger, XSD.unsignedInt, XSD.unsignedLong, XSD.unsignedShort,
                            XSD.unsignedByte)]
# the list as one SQL array: with isin(16 strings) each element is a py4j call at build time
NUMERIC_ARRAY = "array(" + ", ".join(f"'{x}'" for x in NUMERIC) + ")"
TYPED_MARK = '"^^<'  # between a typed literal's lexical form and its datatype IRI
LEXICAL = r'^"(.*)"(?:@[A-Za-z-]+|\^\^<[^>]*>)?$'


def columns(df: DataFrame) -> list[str]:
    """``df.columns``, asked of the JVM once per DataFrame: each call is a py4j round trip plus a
    schema parse, and the compiler asks several times of the same DataFrame."""
    found = getattr(df, "_rspconf_columns", None)
    if found is None:
        found = df.columns
        df._rspconf_columns = found
    return found


def n3(term) -> str:
    return term.n3()


def sql_string(text: str) -> str:
    """``text`` as a Spark SQL string literal (backslash escapes: ``\\`` and ``\'``)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def col_name(term) -> str:
    return ("v_" + str(term)) if isinstance(term, Variable) else ("b_" + str(term))


def is_var(term) -> bool:
    return isinstance(term, (Variable, BNode))


@dataclass
class Value:
    """A compiled expression: an N-Triples term column, a numeric (double) column, or a boolean one."""

    kind: str  # "term" | "num" | "bool"
    col: Column


def typed_literal(c: Column) -> tuple[Column, Column, Column]:
    """(is a typed literal, its lexical form, its datatype IRI) of a term column ``"lex"^^<dt>``; the
    last two are meaningless unless the first holds.

    String functions, no regular expression: ``after`` is ``dt>``, the text after the last ``"^^<`` (a
    datatype IRI holds no quote, a lexical form's own quotes are escaped).  With two regular
    expressions, and a third on the datatype, numeric values were 7 % of the CPU samples of the filter
    query at 10^6 triples (JFR)."""
    after = F.substring_index(c, TYPED_MARK, -1)
    typed = c.startswith('"') & c.endswith(">") & c.contains(TYPED_MARK)
    lex = c.substr(F.lit(2), F.length(c) - F.length(after) - 1 - len(TYPED_MARK))
    return typed, lex, after.substr(F.lit(1), F.length(after) - 1)


def number(c: Column) -> Column:
    """The numeric value of a term column: null unless it is a literal of an XSD numeric type whose
    lexical form is a number.  An ill-typed one (``"x"^^xsd:integer``) is a type error in SPARQL, so
    null (a FILTER drops it), not a failed job: ``try_cast``."""
    numeric, value = numeric_literal(*typed_literal(c))
    return F.when(numeric, value)


def numeric_literal(typed: Column, lex: Column, datatype: Column) -> tuple[Column, Column]:
    """(is a literal of an XSD numeric type, its lexical form as a double or null if ill-typed), from
    :func:`typed_literal`'s parts."""
    return typed & F.array_contains(F.expr(NUMERIC_ARRAY), datatype), lex.try_cast("double")


def truthy(x: Column) -> Column:
    """EBV of a number: false if zero or NaN (Spark's NaN != 0 holds)."""
    return (x != 0) & ~F.isnan(x)


def lexical(c: Column) -> Column:
    """The lexical form of a literal, or the IRI text of an IRI."""
    return F.when(c.startswith('"'), F.regexp_extract(c, LEXICAL, 1)).when(
        c.startswith("<"), F.regexp_extract(c, r"^<(.*)>$", 1))


def double_literal(c: Column) -> Column:
    return F.when(c.isNotNull(), F.concat(F.lit('"'), c.cast("string"), F.lit(f'"^^<{XSD.double}>')))


def integer_literal(c: Column) -> Column:
    return F.when(c.isNotNull(), F.concat(F.lit('"'), c.cast("long").cast("string"), F.lit(f'"^^<{XSD.integer}>')))


def as_num(v: Value) -> Column:
    if v.kind == "num":
        return v.col
    if v.kind == "term":
        return number(v.col)
    raise Unsupported("a boolean used as a number")


def as_bool(v: Value) -> Column:
    if v.kind == "bool":
        return v.col
    if v.kind == "num":
        return truthy(v.col)
    return effective_boolean_value(v.col)


def effective_boolean_value(c: Column) -> Column:
    """SPARQL 1.1 §17.2.2 of a term column; null (a type error, which a FILTER drops) for anything else.

    - xsd:boolean: true for the lexical forms ``true`` and ``1``; any other form (``false``, ``0``, or
      an invalid one) is false;
    - a numeric type: false if the value is zero or NaN, or if the lexical form is not valid for the
      type (``"abc"^^xsd:integer``: "the EBV of any literal whose type is xsd:boolean or numeric is
      false if the lexical form is not valid for that datatype");
    - a plain, language-tagged or xsd:string literal: false if empty;
    - any other literal (xsd:dateTime, say), an IRI, a blank node or unbound: a type error."""
    typed, lex, datatype = typed_literal(c)
    numeric, value = numeric_literal(typed, lex, datatype)
    return (F.when(typed & (datatype == str(XSD.boolean)), lex.isin("true", "1"))
            .when(numeric, F.coalesce(truthy(value), F.lit(False)))
            .when(typed & (datatype == str(XSD.string)), F.length(lex) > 0)
            .when(~typed & c.startswith('"'), F.length(lexical(c)) > 0))


def as_term(v: Value) -> Column:
    if v.kind == "term":
        return v.col
    if v.kind == "num":
        return double_literal(v.col)
    return F.when(v.col.isNotNull(), F.concat(F.lit('"'), F.when(v.col, "true").otherwise("false"),
                                              F.lit(f'"^^<{XSD.boolean}>')))


class Compiler:
    """Compiles one query over ``windowed`` (partitioned by window) and ``windows`` (the window
    instances an empty pattern or an aggregate without GROUP BY answers for)."""

    def __init__(self, windowed: DataFrame, windows: DataFrame):
        self.W = windowed
        self.windows = windows

    # -- expressions ------------------------------------------------------------------------------
    def expr(self, e, df: DataFrame) -> Value:
        if isinstance(e, Variable):
            name = col_name(e)
            return Value("term", F.col(name) if name in columns(df) else F.lit(None).cast("string"))
        if isinstance(e, (URIRef, Literal)):
            if isinstance(e, Literal) and e.datatype is not None and str(e.datatype) in NUMERIC:
                try:
                    return Value("num", F.lit(float(e.toPython())))
                except (TypeError, ValueError):
                    pass
            return Value("term", F.lit(n3(e)))
        if not isinstance(e, CompValue):
            raise Unsupported(f"expression {e!r}")
        name = e.name
        if name == "RelationalExpression":
            a, b, op = self.expr(e.expr, df), self.expr(e.other, df), e.op
            if op == "IN" or op == "NOT IN":
                raise Unsupported("IN / NOT IN")
            na, nb = as_num(a) if a.kind != "bool" else None, as_num(b) if b.kind != "bool" else None
            ops = {"=": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
                   ">": lambda x, y: x > y, "<=": lambda x, y: x <= y, ">=": lambda x, y: x >= y}
            if op in ("=", "!="):
                numeric = ops[op](na, nb)
                terms = ops[op](as_term(a), as_term(b))
                return Value("bool", F.when(na.isNotNull() & nb.isNotNull(), numeric).otherwise(terms))
            return Value("bool", ops[op](na, nb))
        if name == "ConditionalAndExpression":
            out = as_bool(self.expr(e.expr, df))
            for other in e.other or []:
                out = out & as_bool(self.expr(other, df))
            return Value("bool", out)
        if name == "ConditionalOrExpression":
            out = as_bool(self.expr(e.expr, df))
            for other in e.other or []:
                out = out | as_bool(self.expr(other, df))
            return Value("bool", out)
        if name == "UnaryNot":
            return Value("bool", ~as_bool(self.expr(e.expr, df)))
        if name == "UnaryMinus":
            return Value("num", -as_num(self.expr(e.expr, df)))
        if name in ("AdditiveExpression", "MultiplicativeExpression"):
            out = as_num(self.expr(e.expr, df))
            for op, other in zip(e.op or [], e.other or []):
                right = as_num(self.expr(other, df))
                out = {"+": out + right, "-": out - right, "*": out * right,
                       "/": F.when(right != 0, out / right)}[op]
            return Value("num", out)
        if name == "Builtin_BOUND":
            return Value("bool", self.expr(e.arg, df).col.isNotNull())
        if name == "Builtin_REGEX":
            if e.flags is not None:
                raise Unsupported("REGEX with flags")
            text = lexical(as_term(self.expr(e.text, df)))
            pattern = e.pattern
            if not isinstance(pattern, Literal):
                raise Unsupported("REGEX with a non-constant pattern")
            return Value("bool", text.rlike(str(pattern)))
        if name == "Builtin_STR":
            inner = as_term(self.expr(e.arg, df))
            return Value("term", F.concat(F.lit('"'), lexical(inner), F.lit('"')))
        if name == "Builtin_isIRI":
            return Value("bool", as_term(self.expr(e.arg, df)).startswith("<"))
        if name == "Builtin_isLITERAL":
            return Value("bool", as_term(self.expr(e.arg, df)).startswith('"'))
        raise Unsupported(f"the SPARQL construct {name}")

    # -- graph patterns ---------------------------------------------------------------------------
    def pattern(self, node) -> DataFrame:
        name = node.name
        if name == "BGP":
            return self.bgp(node.triples)
        if name == "Filter":
            df = self.pattern(node.p)
            return df.filter(as_bool(self.expr(node.expr, df)))
        if name == "Join":
            return self.join(self.pattern(node.p1), self.pattern(node.p2), "inner")
        if name == "LeftJoin":
            left, right = self.pattern(node.p1), self.pattern(node.p2)
            if node.expr is not None and not (isinstance(node.expr, CompValue) and node.expr.name == "TrueFilter"):
                raise Unsupported("OPTIONAL with a FILTER inside")
            return self.join(left, right, "left")
        if name == "Union":
            a, b = self.pattern(node.p1), self.pattern(node.p2)
            return a.unionByName(b, allowMissingColumns=True)
        if name == "Extend":
            df = self.pattern(node.p)
            return df.withColumn(col_name(node.var), as_term(self.expr(node.expr, df)))
        if name == "Project":
            df = self.pattern(node.p)
            cols = [F.col(K)] + [(F.col(col_name(v)) if col_name(v) in columns(df) else F.lit(None).cast("string"))
                                 .alias(col_name(v)) for v in node.PV]
            if RANK in columns(df):
                cols.append(F.col(RANK))
            return df.select(*cols)
        if name in ("Distinct", "Reduced"):
            df = self.pattern(node.p)
            if RANK in columns(df):  # keep each distinct solution at its first position
                others = [c for c in columns(df) if c != RANK]
                return df.groupBy(*others).agg(F.min(RANK).alias(RANK))
            return df.dropDuplicates()
        if name == "OrderBy":
            return self.order_by(node)
        if name == "Slice":
            df = self.pattern(node.p)
            if RANK not in columns(df):
                raise Unsupported("LIMIT/OFFSET without ORDER BY (which solutions it keeps is not determined)")
            df = df.withColumn(RANK, F.row_number().over(Window.partitionBy(K).orderBy(F.col(RANK))))
            start = node.start or 0
            df = df.where(F.col(RANK) > start)
            if node.length is not None:
                df = df.where(F.col(RANK) <= start + node.length)
            return df
        if name == "AggregateJoin":
            return self.aggregate(node)
        raise Unsupported(f"the SPARQL construct {name}")

    def order_by(self, node) -> DataFrame:
        """Number the solutions of each window in SPARQL order (unbound < blank nodes < IRIs < literals;
        numbers by value, other terms by their text), ties broken by every column, for determinism."""
        df = self.pattern(node.p)
        keys = []
        for cond in node.expr:
            if isinstance(cond, CompValue) and cond.name == "OrderCondition":
                expr, descending = cond.expr, cond.order == "DESC"
            else:
                expr, descending = cond, False
            term = as_term(self.expr(expr, df))
            kind = (F.when(term.isNull(), 0).when(term.startswith("_:"), 1).when(term.startswith("<"), 2)
                    .otherwise(3))
            for c in (kind, number(term), F.coalesce(lexical(term), term)):
                keys.append(c.desc_nulls_last() if descending else c.asc_nulls_first())
        keys += [F.col(c).asc_nulls_first() for c in sorted(columns(df)) if c != K]
        return df.withColumn(RANK, F.row_number().over(Window.partitionBy(K).orderBy(*keys)))

    def join(self, a: DataFrame, b: DataFrame, how: str) -> DataFrame:
        """Join on the window and the shared variables, as a hash join on each partition: the windowed
        triples are partitioned by window (:func:`engines.spark.replay.assign`), so both sides already
        are, and no exchange, sort or broadcast is needed (sort-merge and broadcast joins measured
        10-25 % slower on the filter query at 10^6 triples)."""
        right = set(columns(b))
        shared = [c for c in columns(a) if c in right]
        return a.join(b.hint("shuffle_hash"), on=shared, how=how)

    def bgp(self, triples) -> DataFrame:
        if not triples:
            return self.windows
        parts = []
        for s, p, o in triples:
            # one condition and one projection per pattern, as SQL text: built from Column objects
            # they took ~450 py4j round trips for the four patterns of the filter query
            conditions: list[str] = []
            cols = [K]
            names: dict[str, str] = {}
            for term, column in ((s, "s"), (p, "p"), (o, "o")):
                if is_var(term):
                    name = col_name(term)
                    if name in names:
                        conditions.append(f"{column} = {names[name]}")
                    else:
                        names[name] = column
                        cols.append(f"{column} AS `{name}`")
                else:
                    conditions.append(f"{column} = {sql_string(n3(term))}")
            matching = self.W.where(" AND ".join(conditions)) if conditions else self.W
            parts.append((matching.selectExpr(*cols), set(names)))
        # join connected patterns first (a cross product only when nothing connects)
        df, bound = parts.pop(0)
        while parts:
            index = next((i for i, (_, vs) in enumerate(parts) if vs & bound), 0)
            nxt, vs = parts.pop(index)
            df = self.join(df, nxt, "inner")
            bound |= vs
        # a window's content is an RDF graph, a set: a triple that arrives again within the window (or
        # is also background data) is one triple of it (case edges.repeated-triple).  A solution of the
        # BGP determines the triple each pattern matched (constants and variables), so the solutions
        # over the set are the distinct solutions over the bag: one de-duplication of the BGP's
        # solutions, all columns, instead of one per pattern.  The optimizer pushes a FILTER on them
        # below it.  Per pattern, it hashed every matching triple (4 x 138 k rows for the filter query
        # at 10^6 triples; the patterns' code had 54 % of the CPU samples of the job's second stage)
        return df.dropDuplicates()

    def aggregate(self, node) -> DataFrame:
        group = node.p
        if group.name != "Group":
            raise Unsupported(f"aggregation over {group.name}")
        df = self.pattern(group.p)
        keys = [K]
        if group.expr:
            for e in group.expr:
                if not isinstance(e, Variable):
                    raise Unsupported("GROUP BY an expression")
                keys.append(col_name(e))
        aggs, fills = [], {}
        for a in node.A:
            res = col_name(a.res)
            kind = a.name
            distinct = bool(a.distinct)
            if kind == "Aggregate_Count":
                target = F.lit(1) if a.vars == "*" else F.col(col_name(a.vars))
                if distinct and a.vars == "*":
                    raise Unsupported("COUNT(DISTINCT *)")
                c = F.countDistinct(target) if distinct else F.count(target)
                aggs.append(integer_literal(c).alias(res))
                fills[res] = f'"0"^^<{XSD.integer}>'
                continue
            value = as_num(self.expr(a.vars, df)) if kind in ("Aggregate_Sum", "Aggregate_Avg") else None
            if kind == "Aggregate_Sum":
                aggs.append(double_literal(F.sum_distinct(value) if distinct else F.sum(value)).alias(res))
                fills[res] = f'"0"^^<{XSD.integer}>'
            elif kind == "Aggregate_Avg":
                aggs.append(double_literal(F.avg(F.when(value.isNotNull(), value))).alias(res))
                fills[res] = f'"0"^^<{XSD.integer}>'
            elif kind in ("Aggregate_Min", "Aggregate_Max"):
                term = as_term(self.expr(a.vars, df))
                num_value = number(term)
                pick = F.min_by if kind == "Aggregate_Min" else F.max_by
                aggs.append(F.coalesce(pick(term, num_value), (F.min if kind == "Aggregate_Min" else F.max)(term)).alias(res))
            elif kind == "Aggregate_Sample":
                aggs.append(F.first(as_term(self.expr(a.vars, df)), ignorenulls=True).alias(res))
            else:
                raise Unsupported(f"the aggregate {kind}")
        out = df.groupBy(*keys).agg(*aggs)
        if not group.expr:
            # one solution per window even when nothing matched (SPARQL 1.1 §18.5.1: COUNT/SUM/AVG = 0)
            out = self.windows.join(out, on=[K], how="left").fillna(fills)
        return out


def compile_query(algebra, windowed: DataFrame, windows: DataFrame) -> tuple[str, DataFrame, list[str]]:
    """(query form, result DataFrame, projected variable names) for a prepared rdflib query's algebra."""
    c = Compiler(windowed, windows)
    if algebra.name == "SelectQuery":
        df = c.pattern(algebra.p)
        names = [str(v) for v in algebra.PV]
        return "SELECT", df, names
    if algebra.name == "AskQuery":
        df = c.pattern(algebra.p).select(K).distinct().withColumn("v_ask", F.lit(f'"true"^^<{XSD.boolean}>'))
        return "ASK", df, ["ask"]
    raise Unsupported(f"the query form {algebra.name}")
