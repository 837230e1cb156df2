"""Compile SPARQL algebra (rdflib's parser) into one Spark SQL query over windowed triples.

Input: a relation ``W(s, p, o, __k)`` — every triple once per window instance ``__k`` that holds it
(static triples in every window), terms as N-Triples strings — and ``windows(__k)``, the window
instances an empty pattern or an aggregate without GROUP BY answers for.  Output: SQL text with
``__k`` and one string column per projected variable (an N-Triples term, null when unbound).

The query is one SQL text, analysed once by Spark: built as a chain of DataFrame calls, every step
was a py4j call and an analysis of its own (some 215 calls and 0.1 s per run; a self-join's
analysis alone took 72 ms).  The compiler tracks each relation's columns itself, so it never asks
the JVM.

Supported: BGP, property paths (sequence, alternative, inverse, negated property set; ``*``, ``+`` and ``?`` by
Spark's recursive CTE, :meth:`Compiler.repeated`),
FILTER (comparisons, IN, && || !, + - * /, BOUND, REGEX with flags, STR, isIRI/isLiteral, NOW, [NOT] EXISTS
as a conjunct, or inside one or a BIND: :meth:`Compiler.tested`, and the built-ins and casts of
:mod:`engines.spark.sqlfunctions`; RAND, UUID, STRUUID and BNODE drawn once per call and solution,
:meth:`Compiler.drawn`), OPTIONAL (with a FILTER inside too), UNION, MINUS, VALUES, BIND, sub-SELECT, GROUP BY
with COUNT/SUM/AVG/MIN/MAX/SAMPLE (DISTINCT too), DISTINCT, ORDER BY with LIMIT/OFFSET (per window), projection,
ASK, CONSTRUCT, GROUP_CONCAT (of string literals, :func:`~engines.spark.sqlfunctions.group_concat`).  Anything
else raises
:class:`~engines.contract.Unsupported` naming the construct, so the engine refuses rather than answers
wrongly.  All term handling runs in Spark SQL expressions: no Python UDF.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timezone

from pyspark.sql import DataFrame
from rdflib import RDF, Literal, URIRef, Variable
from rdflib.namespace import XSD
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, Path, SequencePath
from rdflib.plugins.sparql.parserutils import CompValue

from engines.contract import Unsupported
from engines.spark import sqlfunctions as functions
from engines.spark.reporter import template_of
from engines.spark.sqlcompare import compare
from engines.spark.sqlnumbers import arithmetic, constant, negate, numeric, summands, total
from engines.spark.sqlterms import (
    INLINE,
    NULL_TERM,
    NUMERIC,
    Relation,
    Value,
    as_bool,
    as_term,
    col_name,
    date_time_order,
    integer_literal,
    is_var,
    let,
    lexical,
    literal_lexical,
    n3,
    number,
    quote,
    sql_string,
)

K = "__k"
G = "__g"  # the named graph a triple is in (several windows); '' for the default graph
RANK = "__rank"  # a solution's position in its window under ORDER BY
PRESENT = "__present"  # an aggregate's group exists in the window (no GROUP BY: else the empty group's values)


def _recursive(path) -> bool:
    """Whether a property path holds a ``*`` or a ``+`` (compiled as a recursive CTE)."""
    if isinstance(path, MulPath):
        return path.mod != "?" or _recursive(path.path)
    if isinstance(path, InvPath):
        return _recursive(path.arg)
    return isinstance(path, (SequencePath, AlternativePath)) and any(_recursive(a) for a in path.args)


#: the key :func:`engines.spark.algebra_of` keeps the query's BASE IRI under, in the algebra's top node
BASE = "rspconf_base"


class Compiler:
    """Compiles one query over the relations named ``windowed`` (partitioned by window) and ``windows``
    (the window instances an empty pattern or an aggregate without GROUP BY answers for)."""

    def __init__(self, windowed: str, windows: str, graphs: bool = False, base: str | None = None):
        self.W = windowed
        self.base = base  # the query's BASE IRI, which IRI() resolves a relative reference against
        self.windows = windows
        # several named windows: the frame has a graph column G ('' for the default graph: static data),
        # and a pattern matches the graph its GRAPH block names, or the default graph outside one
        self.graphs = graphs
        self.graph = ""
        self._aliases = itertools.count()
        # the columns that hold this scope's fresh draws (:meth:`drawn`): id of the call -> (call, column),
        # and the column of each solution's seed for BNODE(str)
        self.hoisted: dict[int, tuple] = {}
        self.seed: str | None = None
        # the boolean columns of the EXISTS in a FILTER's larger expressions or a BIND (:meth:`tested`): id -> column
        self.existing: dict[int, str] = {}
        self.now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def alias(self) -> str:
        return f"r{next(self._aliases)}"

    # -- expressions ------------------------------------------------------------------------------
    def expr(self, e, rel: Relation) -> Value:
        if isinstance(e, Variable):
            name = col_name(e)
            return Value("term", quote(name) if name in rel.cols else NULL_TERM)
        if isinstance(e, (URIRef, Literal)):
            if isinstance(e, Literal) and e.datatype is not None and str(e.datatype) in NUMERIC:
                typed = constant(e)
                if typed is not None:
                    return typed
            kind = ("iri" if isinstance(e, URIRef) else "tagged" if e.language else
                    "simple" if e.datatype in (None, XSD.string) else CONSTANT_KINDS.get(e.datatype))
            return Value("term", sql_string(n3(e)), const=kind)
        if not isinstance(e, CompValue):
            raise Unsupported(f"expression {e!r}")
        name = e.name
        if id(e) in self.hoisted:
            return Value("term", quote(self.hoisted[id(e)][1]))
        if id(e) in self.existing:
            found = quote(self.existing[id(e)])
            return Value("bool", found if name == "Builtin_EXISTS" else f"(NOT {found})")
        if name == "Builtin_BNODE" and dict.get(e, "arg") is not None and self.seed is not None:
            return functions.bnode_of(quote(self.seed), self.expr(e.arg, rel))
        if name.startswith("Builtin_") and name[len("Builtin_"):] in functions.FRESH:  # no scope drew it (drawn)
            raise Unsupported(f"the function {name[len('Builtin_'):]} outside BIND, FILTER, ORDER BY and a SELECT"
                              " expression")
        if name == "RelationalExpression":
            if e.op in ("IN", "NOT IN"):  # SPARQL defines IN as = joined by ||: its errors are ||'s
                left = self.expr(e.expr, rel)
                tests = [as_bool(compare("=", left, self.expr(x, rel))) for x in listed(e.other)]
                found = "(" + " OR ".join(f"({t})" for t in tests) + ")" if tests else "false"
                return Value("bool", found if e.op == "IN" else f"(NOT {found})")
            return compare(e.op, self.expr(e.expr, rel), self.expr(e.other, rel))
        if name in ("ConditionalAndExpression", "ConditionalOrExpression"):
            joiner = " AND " if name == "ConditionalAndExpression" else " OR "
            parts = [as_bool(self.expr(x, rel)) for x in [e.expr, *(e.other or [])]]
            return Value("bool", "(" + joiner.join(f"({p})" for p in parts) + ")")
        if name == "UnaryNot":
            return Value("bool", f"(NOT ({as_bool(self.expr(e.expr, rel))}))")
        if name == "UnaryMinus":
            return negate(self.expr(e.expr, rel))
        if name in ("AdditiveExpression", "MultiplicativeExpression"):
            out = self.expr(e.expr, rel)
            for op, other in zip(e.op or [], e.other or []):
                out = arithmetic(op, out, self.expr(other, rel))
            return out
        if name == "Builtin_NOW":  # one instant for the whole query, as SPARQL 1.1 §17.4.5.1 asks: when compiled
            return Value("term", sql_string(f'"{self.now}"^^<{XSD.dateTime}>'))
        if name == "Builtin_BOUND":
            return Value("bool", f"(({self.expr(e.arg, rel).sql}) IS NOT NULL)")
        if name == "Builtin_REGEX":
            pattern, flags = e.pattern, e.flags
            if not isinstance(pattern, Literal):
                raise Unsupported("REGEX with a non-constant pattern")
            if flags is not None and not isinstance(flags, Literal):
                raise Unsupported("REGEX with flags that are not a constant")
            regex = functions.java_regex(str(pattern), str(flags or ""))
            text = literal_lexical(as_term(self.expr(e.text, rel)))  # REGEX of an IRI is a type error
            return Value("bool", f"(({text}) RLIKE {sql_string(regex)})")
        if name == "Builtin_STR":
            inner = as_term(self.expr(e.arg, rel))
            return Value("term", f"concat('\"', {lexical(inner)}, '\"')")
        if name == "UnaryPlus":
            return numeric(self.expr(e.expr, rel))
        if name == "Function":
            if e.distinct or len(e.expr or []) != 1 or not str(e.iri).startswith(str(XSD)):
                raise Unsupported(f"the function <{e.iri}>")
            return functions.cast(str(e.iri), self.expr(e.expr[0], rel))
        builtin = self.builtin(name[len("Builtin_"):], e, rel) if name.startswith("Builtin_") else None
        if builtin is not None:
            return builtin
        if name in ("Builtin_isIRI", "Builtin_isURI"):
            return Value("bool", f"startswith({as_term(self.expr(e.arg, rel))}, '<')")
        if name == "Builtin_isLITERAL":
            return Value("bool", f"startswith({as_term(self.expr(e.arg, rel))}, '\"')")
        raise Unsupported(construct(name))

    def builtin(self, name: str, e, rel: Relation) -> Value | None:
        """The built-in functions of :mod:`engines.spark.sqlfunctions` (None: not one of them)."""
        arg = lambda key: self.expr(e[key], rel)  # noqa: E731
        if name in ("DATATYPE", "LANG", "isBLANK", "STRLEN", "UCASE", "LCASE", "ENCODE_FOR_URI", "IRI", "URI",
                    "isNUMERIC") or name in functions.HASHES:
            v = arg("arg")
            return (functions.datatype(v) if name == "DATATYPE" else functions.lang(v) if name == "LANG"
                    else functions.is_blank(v) if name == "isBLANK" else functions.strlen(v) if name == "STRLEN"
                    else functions.case_of(v, name == "UCASE") if name in ("UCASE", "LCASE")
                    else functions.encode_for_uri(v) if name == "ENCODE_FOR_URI"
                    else functions.iri(v, self.base) if name in ("IRI", "URI")
                    else Value("bool", f"(({numeric(v).sql}) IS NOT NULL)") if name == "isNUMERIC"
                    else functions.digest(name, v))
        if name in ("LANGMATCHES", "sameTerm", "STRSTARTS", "STRENDS", "CONTAINS", "STRBEFORE", "STRAFTER"):
            a, b = arg("arg1"), arg("arg2")
            return (functions.langmatches(a, b) if name == "LANGMATCHES" else functions.same_term(a, b)
                    if name == "sameTerm" else functions.before_after(name, a, b) if name in ("STRBEFORE", "STRAFTER")
                    else functions.string_test(name, a, b))
        if name in ("CONCAT", "COALESCE"):
            args = [self.expr(x, rel) for x in listed(e.arg)]
            return functions.concat(args) if name == "CONCAT" else functions.coalesce(args)
        if name == "SUBSTR":
            return functions.substr(arg("arg"), arg("start"), self.expr(e.length, rel) if e.length is not None else None)
        if name == "IF":
            return functions.if_(arg("arg1"), arg("arg2"), arg("arg3"))
        if name in ("STRDT", "STRLANG"):
            return (functions.strdt if name == "STRDT" else functions.strlang)(arg("arg1"), arg("arg2"))
        if name in ("ABS", "CEIL", "FLOOR", "ROUND"):
            return functions.rounding(name, arg("arg"))
        if name in ("YEAR", "MONTH", "DAY", "HOURS", "MINUTES", "SECONDS", "TZ", "TIMEZONE"):
            return functions.date_part(name, arg("arg"))
        if name == "REPLACE":
            constant = [x for x in (e.pattern, e.replacement, e.flags) if x is not None]
            if not all(isinstance(x, Literal) for x in constant):
                raise Unsupported("REPLACE with a pattern, replacement or flags that is not a constant")
            return functions.replace_(arg("arg"), str(e.pattern), str(e.replacement), str(e.flags or ""))
        return None

    # -- graph patterns ---------------------------------------------------------------------------
    def pattern(self, node) -> Relation:
        name = node.name
        if name == "BGP":
            return self.bgp(node.triples)
        if name == "Graph":
            if not self.graphs:  # one window is the default graph and there is no named graph: nothing matches
                inner = self.pattern(node.p)
                named = [col_name(node.term)] if is_var(node.term) else []
                cols = inner.cols + [c for c in named if c not in inner.cols]
                return Relation(f"SELECT {quote(K)}" + "".join(f", {NULL_TERM} AS {quote(c)}" for c in cols if c != K)
                                + f" FROM {self.windows} WHERE false", cols)
            if is_var(node.term):
                raise Unsupported("GRAPH with a variable")
            outer, self.graph = self.graph, n3(node.term)
            try:
                return self.pattern(node.p)
            finally:
                self.graph = outer
        if name == "Filter":
            rest, tests = [], []
            for conjunct in conjuncts(node.expr):  # FILTER A FILTER B: one conjunction; EXISTS ones as joins
                negated, exists = existence(conjunct)
                if exists is None:
                    rest.append(conjunct)
                else:
                    tests.append((exists, negated))
            if getattr(node.p, "name", None) == "BGP":
                rel = self.bgp(node.p.triples, [{col_name(v) for v in variables(c)} for c in rest])
            else:
                rel = self.pattern(node.p)
            for exists, negated in tests:
                rel = self.exists(rel, exists, negated)

            def filtered(rel: Relation) -> Relation:
                for conjunct in rest:
                    test = as_bool(self.expr(conjunct, rel))
                    rel = rel.keeping(f"SELECT * FROM ({rel.sql}) {self.alias()} WHERE {test}")
                return rel
            return self.tested(inner_existence(rest), rel, lambda rel: self.drawn(rest, rel, filtered))
        if name == "Join":
            return self.join(self.pattern(node.p1), self.pattern(node.p2), "inner")
        if name == "LeftJoin":
            left, right = self.pattern(node.p1), self.pattern(node.p2)
            if node.expr is not None and not (isinstance(node.expr, CompValue) and node.expr.name == "TrueFilter"):
                if draws_fresh(node.expr):  # its pairs are written twice (optional_filtered)
                    raise Unsupported("RAND, UUID, STRUUID or BNODE in the FILTER of an OPTIONAL")
                return self.optional_filtered(left, right, node.expr)
            return self.join(left, right, "left")
        if name == "Minus":
            return self.minus(self.pattern(node.p1), self.pattern(node.p2))
        if name == "Union":
            a, b = self.pattern(node.p1), self.pattern(node.p2)
            cols = a.cols + [c for c in b.cols if c not in a.cols]
            if RANK in cols:
                raise Unsupported("UNION of ordered solutions")
            return Relation(f"SELECT {a.select_list(cols)} FROM ({a.sql}) {self.alias()}"
                            f" UNION ALL SELECT {b.select_list(cols)} FROM ({b.sql}) {self.alias()}", cols,
                            frozenset(c for c in cols if c in a.nullable or c in b.nullable
                                      or c not in a.cols or c not in b.cols))
        if name == "Extend":  # a run of BINDs or SELECT expressions extends one solution: one scope of draws
            chain = []
            while getattr(node, "name", None) == "Extend":
                chain.append(node)
                node = node.p

            def extended(rel: Relation) -> Relation:
                for step in reversed(chain):  # an EXISTS reads the solution as the BINDs before it left it
                    def bound(rel: Relation, step=step) -> Relation:
                        return rel.with_column(col_name(step.var), as_term(self.expr(step.expr, rel)), self.alias())
                    rel = self.tested(inner_existence([step.expr]), rel, bound)
                return rel
            return self.drawn([step.expr for step in chain], self.pattern(node), extended)
        if name == "Project":
            rel = self.pattern(node.p)
            cols = [K] + [col_name(v) for v in node.PV] + ([RANK] if RANK in rel.cols else [])
            return Relation(f"SELECT {rel.select_list(cols)} FROM ({rel.sql}) {self.alias()}", cols,
                            frozenset(c for c in cols if c in rel.nullable or c not in rel.cols))
        if name in ("Distinct", "Reduced"):
            rel = self.pattern(node.p)
            if RANK in rel.cols:  # keep each distinct solution at its first position
                others = ", ".join(quote(c) for c in rel.cols if c != RANK)
                return rel.keeping(f"SELECT {others}, min({quote(RANK)}) AS {quote(RANK)} FROM ({rel.sql})"
                                   f" {self.alias()} GROUP BY {others}", [c for c in rel.cols if c != RANK] + [RANK])
            return rel.keeping(f"SELECT DISTINCT * FROM ({rel.sql}) {self.alias()}")
        if name == "OrderBy":
            return self.order_by(node)
        if name == "Slice":
            return self.slice(node)
        if name == "AggregateJoin":
            return self.aggregate(node)
        if name == "ToMultiSet" and getattr(node.p, "name", None) == "values":
            return self.values(node.p.res)
        if name == "ToMultiSet":
            return self.subquery(node.p)
        raise Unsupported(construct(name))

    def drawn(self, exprs: list, rel: Relation, body) -> Relation:
        """``body(rel)``, its expressions ``exprs`` reading each fresh draw (RAND, UUID, STRUUID, BNODE()) of
        theirs from a column of its own, drawn once per solution before ``body``, and BNODE(str) from one seed
        per solution; the columns dropped after.  Compiled in place, a draw was drawn again wherever an
        expression reads its argument's term more than once (its kind, its text, its datatype): ``RAND() * 1``
        came out unbound in 94 of 200 solutions (tests/test_spark_sqlfunctions.py)."""
        calls, seeded = fresh_calls(exprs)
        if not calls and not seeded:
            return body(rel)
        outer = self.hoisted, self.seed
        columns = []
        self.hoisted = dict(self.hoisted)
        for call in calls:
            self.hoisted[id(call)] = (call, f"__d{next(self._aliases)}")
            columns.append((functions.FRESH[call.name[len("Builtin_"):]], self.hoisted[id(call)][1]))
        if seeded:
            self.seed = f"__d{next(self._aliases)}"
            columns.append((functions.SEED, self.seed))
        names = [c for _, c in columns]
        listed = ", ".join(f"{sql} AS {quote(c)}" for sql, c in columns)
        try:
            out = body(Relation(f"SELECT *, {listed} FROM ({rel.sql}) {self.alias()}", rel.cols + names, rel.nullable))
        finally:
            self.hoisted, self.seed = outer
        kept = [c for c in out.cols if c not in names]
        return out.keeping(f"SELECT {out.select_list(kept)} FROM ({out.sql}) {self.alias()}", kept)

    def values(self, rows) -> Relation:
        """VALUES: the same solutions in every window, UNDEF (or a variable a row leaves out) unbound."""
        names = list(dict.fromkeys(v for row in rows for v in row))
        cols = [col_name(v) for v in names]

        def cell(row, v):
            term = row.get(v)
            return NULL_TERM if term is None or term == "UNDEF" else sql_string(n3(term))
        nullable = frozenset(col_name(v) for v in names if any(cell(row, v) == NULL_TERM for row in rows))
        if not cols:  # VALUES () { () … }: one empty solution per row
            return Relation(" UNION ALL ".join([f"SELECT {quote(K)} FROM {self.windows}"] * len(rows))
                            or f"SELECT {quote(K)} FROM {self.windows} WHERE false", [K])
        if not rows:
            return Relation(f"SELECT {quote(K)}, " + ", ".join(f"{NULL_TERM} AS {quote(c)}" for c in cols)
                            + f" FROM {self.windows} WHERE false", [K] + cols, frozenset(cols))
        inline = ", ".join("(" + ", ".join(cell(row, v) for v in names) + ")" for row in rows)
        alias = self.alias()
        return Relation(f"SELECT {quote(K)}, " + ", ".join(f"{alias}.{quote(c)}" for c in cols)
                        + f" FROM {self.windows} CROSS JOIN (VALUES {inline}) AS {alias}("
                        + ", ".join(quote(c) for c in cols) + ")", [K] + cols, nullable)

    def minus(self, a: Relation, b: Relation) -> Relation:
        """MINUS: the solutions of ``a`` with no solution of ``b`` compatible with them and sharing a bound
        variable (SPARQL 1.1 §18.5); with no variable in common, ``a`` itself."""
        shared = [c for c in a.cols if c in b.cols and c != K]
        if not shared:
            return a
        left, right = self.alias(), self.alias()
        on = [agree(left, right, c, c in a.nullable or c in b.nullable) for c in [K] + shared]
        if all(c in a.nullable or c in b.nullable for c in shared):
            on.append("(" + " OR ".join(f"({left}.{quote(c)} IS NOT NULL AND {right}.{quote(c)} IS NOT NULL)"
                                        for c in shared) + ")")
        return Relation(f"SELECT {', '.join(f'{left}.{quote(c)}' for c in a.cols)} FROM ({a.sql}) {left}"
                        f" LEFT ANTI JOIN ({b.sql}) {right} ON {' AND '.join(on)}", a.cols, a.nullable)

    def optional_filtered(self, a: Relation, b: Relation, expr) -> Relation:
        """OPTIONAL { b FILTER(expr) }: each solution of ``a`` joined with the compatible solutions of ``b``
        for which expr holds over both, or kept alone when there is none (SPARQL 1.1 §18.5, LeftJoin).
        The pairs are an inner join, filtered; the solutions of ``a`` left alone are those no kept pair
        came from, found by a copy of a's own columns (a shared column of the pair is merged)."""
        if functions.draws(a.sql) or functions.draws(b.sql):
            raise Unsupported("OPTIONAL with a FILTER over solutions that hold RAND, UUID, STRUUID or BNODE values"
                              " (its left side is written twice, and each would draw anew)")
        # a and the filtered pairs are each read twice: named once in a WITH, so that their SQL is written once.
        # Written out, each filtered OPTIONAL tripled the SQL of what it extends: four of them (a label in one
        # language each) were 726 KB, five 2.2 MB, where Spark's parser runs out of memory
        left, paired = self.alias(), self.alias()
        tags = {c: f"__l{i}" for i, c in enumerate(a.cols)}
        copied = Relation(f"SELECT *, {', '.join(f'{quote(c)} AS {quote(t)}' for c, t in tags.items())}"
                          f" FROM {left}", a.cols + list(tags.values()), a.nullable | {tags[c] for c in a.nullable})
        pairs = self.join(copied, b, "inner")
        pairs = pairs.keeping(f"SELECT * FROM ({pairs.sql}) {self.alias()} WHERE {as_bool(self.expr(expr, pairs))}")
        cols = [c for c in pairs.cols if c not in tags.values()]
        alone, kept = self.alias(), self.alias()
        on = " AND ".join(f"{alone}.{quote(c)} <=> {kept}.{quote(t)}" for c, t in tags.items())
        own = ", ".join(f"{alone}.{quote(c)}" if c in a.cols else f"{NULL_TERM} AS {quote(c)}" for c in cols)
        copies = ", ".join(quote(t) for t in tags.values())
        lonely = (f"SELECT {own} FROM {left} {alone} LEFT ANTI JOIN (SELECT DISTINCT {copies}"
                  f" FROM {paired}) {kept} ON {on}")
        return Relation(f"WITH {left} AS ({a.sql}), {paired} AS ({pairs.sql})"
                        f" SELECT {pairs.select_list(cols)} FROM {paired} UNION ALL {lonely}", cols,
                        frozenset(a.nullable | {c for c in cols if c not in a.cols}))

    def exists(self, rel: Relation, graph, negated: bool, column: str | None = None) -> Relation:
        """FILTER [NOT] EXISTS { graph }: the solutions of ``rel`` for which the pattern, with their bindings
        substituted, has a solution (has none) — a semi (anti) join on the window and the shared variables,
        an unbound one of ``rel`` matching anything.  That is substitution only when the pattern binds every
        shared variable in each of its solutions and reads no variable of ``rel`` that it does not bind
        itself (a FILTER inside on an outer variable): else refused.  With ``column``: every solution of
        ``rel``, that column true where the pattern has a solution — the semi join's solutions and the anti
        join's, each once (an EXISTS inside a larger expression, :meth:`tested`)."""
        bare = "NOT EXISTS" if negated else "EXISTS"
        word = bare if column is not None else f"FILTER {bare}"  # a BIND's or an expression's is no FILTER's
        if getattr(graph, "name", None) == "GroupGraphPatternSub":
            raise Unsupported(f"{bare} in a SELECT expression (rdflib leaves its pattern untranslated there): write "
                              "it as a BIND")
        inner = self.pattern(graph)
        shared = [c for c in rel.cols if c in inner.cols and c != K]
        if any(c in inner.nullable for c in shared):
            raise Unsupported(f"{word} over a pattern that may leave a variable of the outer solution unbound")
        outer_only = {c for c in rel.cols if c not in inner.cols} & {col_name(v) for v in variables(graph)}
        if outer_only:
            raise Unsupported(f"{word} whose pattern reads a variable bound only outside it")
        left, right = self.alias(), self.alias()
        on = [agree(left, right, c, c in rel.nullable) for c in [K] + shared]  # the pattern binds each shared one
        kept = ", ".join(f"{left}.{quote(c)}" for c in rel.cols)

        def joined(kind: str, extra: str = "", outer: str = f"({rel.sql})", pattern: str = f"({inner.sql})") -> str:
            return f"SELECT {kept}{extra} FROM {outer} {left} {kind} {pattern} {right} ON {' AND '.join(on)}"
        if column is None:
            return Relation(joined("LEFT ANTI JOIN" if negated else "LEFT SEMI JOIN"), rel.cols, rel.nullable)
        if functions.draws(rel.sql) or functions.draws(inner.sql):  # each is read twice: drawn twice
            raise Unsupported(f"{word} inside a larger expression, over solutions or a pattern holding RAND, UUID, "
                              "STRUUID or BNODE")
        # both joins read the solutions and the pattern: named once in a WITH, their SQL is written once (written
        # out, each such EXISTS doubled the SQL of what it tests)
        outer, pattern = self.alias(), self.alias()
        return Relation(f"WITH {outer} AS ({rel.sql}), {pattern} AS ({inner.sql}) "
                        f"{joined('LEFT SEMI JOIN', f', true AS {quote(column)}', outer, pattern)} UNION ALL "
                        f"{joined('LEFT ANTI JOIN', f', false AS {quote(column)}', outer, pattern)}",
                        rel.cols + [column], rel.nullable)

    def tested(self, found: list, rel: Relation, body) -> Relation:
        """``body(rel)``, each [NOT] EXISTS of ``found`` (inside a FILTER's larger expression: ``?a = ?b || NOT
        EXISTS { … }``; a BIND's) read from a boolean column of its own (:meth:`exists`), added before and
        dropped after."""
        if not found:
            return body(rel)
        outer = self.existing
        self.existing = dict(outer)
        names = []
        try:
            for node in found:
                names.append(f"__e{next(self._aliases)}")
                self.existing[id(node)] = names[-1]
                rel = self.exists(rel, node.graph, node.name == "Builtin_NOTEXISTS", names[-1])
            out = body(rel)
        finally:
            self.existing = outer
        kept = [c for c in out.cols if c not in names]
        return out.keeping(f"SELECT {out.select_list(kept)} FROM ({out.sql}) {self.alias()}", kept)

    def subquery(self, node) -> Relation:
        """A sub-SELECT, per window like the rest: its own Project scopes its variables; the order it may
        have sorted by (for its LIMIT) does not reach the outer query (SPARQL 1.1 §12)."""
        rel = self.pattern(node)
        if RANK not in rel.cols:
            return rel
        cols = [c for c in rel.cols if c != RANK]
        return Relation(f"SELECT {rel.select_list(cols)} FROM ({rel.sql}) {self.alias()}", cols,
                        frozenset(c for c in cols if c in rel.nullable))

    def slice(self, node) -> Relation:
        """LIMIT/OFFSET per window, over the positions ORDER BY gave (without one, refused)."""
        rel = self.pattern(node.p)
        if RANK not in rel.cols:
            raise Unsupported("LIMIT/OFFSET without ORDER BY (which solutions it keeps is not determined)")
        numbered = rel.with_column(RANK, f"row_number() OVER (PARTITION BY {quote(K)} ORDER BY {quote(RANK)})",
                                   self.alias())
        start = node.start or 0
        keep = f"{quote(RANK)} > {int(start)}"
        if node.length is not None:
            keep += f" AND {quote(RANK)} <= {int(start + node.length)}"
        return numbered.keeping(f"SELECT * FROM ({numbered.sql}) {self.alias()} WHERE {keep}")

    def order_by(self, node) -> Relation:
        """Number the solutions of each window in SPARQL order (unbound < blank nodes < IRIs < literals;
        numbers by value, dateTimes by instant, other literals by their lexical form, IRIs by their text:
        :func:`order_text`), ties broken by every column, for determinism."""
        conditions = [(cond.expr, cond.order == "DESC") if isinstance(cond, CompValue) and cond.name == "OrderCondition"
                      else (cond, False) for cond in node.expr]

        def ranked(rel: Relation) -> Relation:
            keys, computed, cols = [], [], rel.cols
            for expr, descending in conditions:
                term = as_term(self.expr(expr, rel))
                if len(term) > INLINE:  # a long term (a cast's result), read by four keys: a column of its own
                    computed.append(f"__o{next(self._aliases)}")
                    rel = rel.with_column(computed[-1], term, self.alias())
                    term = quote(computed[-1])
                # each key reads the term several times: bound once per key (a short term is written out)
                for key in (let(term, of) for _, of in ORDER_KEYS):
                    keys.append(f"{key} {'DESC NULLS LAST' if descending else 'ASC NULLS FIRST'}")
            keys += [f"{quote(c)} ASC NULLS FIRST" for c in sorted(cols) if c != K]
            rel = rel.with_column(RANK, f"row_number() OVER (PARTITION BY {quote(K)} ORDER BY {', '.join(keys)})",
                                  self.alias())
            if not computed:
                return rel
            kept = [c for c in rel.cols if c not in computed]
            return rel.keeping(f"SELECT {rel.select_list(kept)} FROM ({rel.sql}) {self.alias()}", kept)
        return self.drawn([expr for expr, _ in conditions], self.pattern(node.p), ranked)

    def join(self, a: Relation, b: Relation, how: str, build: str = "right") -> Relation:
        """Join on the window and the shared variables, as a hash join on each partition: the windowed
        triples are partitioned by window (:func:`engines.spark.windowjob.assign`), so both sides already
        are, and no exchange, sort or broadcast is needed (sort-merge and broadcast joins measured
        10-25 % slower on the filter query at 10^6 triples).  Every relation has ``__k``, so there is
        always a shared column.  A shared variable that one side may leave unbound joins as SPARQL's
        compatibility says (unbound matches anything; the bound value is kept), not by SQL equality.
        ``build``: the side whose hash table is built (``left`` when it holds the fewer rows)."""
        shared = [c for c in a.cols if c in b.cols]
        loose = [c for c in shared if c in a.nullable or c in b.nullable]
        left, right = self.alias(), self.alias()
        hint = f"/*+ SHUFFLE_HASH({left if build == 'left' else right}) */"
        kind = "LEFT OUTER JOIN" if how == "left" else "JOIN"
        cols = shared + [c for c in a.cols if c not in shared] + [c for c in b.cols if c not in shared]
        if how == "left":
            nullable = a.nullable | {c for c in b.cols if c not in shared} | (b.nullable & a.nullable)
        else:
            nullable = (a.nullable - set(shared)) | (b.nullable - set(shared)) | (a.nullable & b.nullable)
        nullable = frozenset(nullable)
        if not loose:
            return Relation(f"SELECT {hint} * FROM ({a.sql}) {left} {kind} ({b.sql}) {right}"
                            f" USING ({', '.join(quote(c) for c in shared)})", cols, nullable)
        strict = [c for c in shared if c not in loose]
        on = [agree(left, right, c, c in loose) for c in strict + loose]
        listed = ([f"{left}.{quote(c)} AS {quote(c)}" for c in strict]
                  + [f"coalesce({left}.{quote(c)}, {right}.{quote(c)}) AS {quote(c)}" for c in loose]
                  + [f"{left}.{quote(c)}" for c in a.cols if c not in shared]
                  + [f"{right}.{quote(c)}" for c in b.cols if c not in shared])
        return Relation(f"SELECT {hint} {', '.join(listed)} FROM ({a.sql}) {left} {kind}"
                        f" ({b.sql}) {right} ON {' AND '.join(on)}", strict + loose + cols[len(shared):], nullable)

    def bgp(self, triples, filters: list[set[str]] = ()) -> Relation:
        """The solutions of a basic graph pattern; ``filters``: the column names of each conjunct of the
        FILTER over it (they choose the join order, never the answer)."""
        if not triples:
            return Relation(f"SELECT {quote(K)} FROM {self.windows}", [K])
        parts = []
        for s, p, o in triples:
            if isinstance(p, Path):  # the pairs the path connects, never a constant predicate
                source, hidden = self.path(p, tuple(None if is_var(t) else n3(t) for t in (s, o)))
                source, terms = f"({source}) {self.alias()}", ((s, "s"), (o, "o"))
            else:
                source, hidden, terms = self.W, [], ((s, "s"), (p, "p"), (o, "o"))
            conditions: list[str] = []
            cols = [K] + hidden
            selected = [quote(K)] + [quote(h) for h in hidden]
            names: dict[str, str] = {}
            for term, column in terms:
                if is_var(term):
                    name = col_name(term)
                    if name in names:
                        conditions.append(f"{column} = {names[name]}")
                    else:
                        names[name] = column
                        cols.append(name)
                        selected.append(f"{column} AS {quote(name)}")
                else:
                    conditions.append(f"{column} = {sql_string(n3(term))}")
            if self.graphs and not hidden and not isinstance(p, Path):
                conditions.append(f"{G} = {sql_string(self.graph)}")
            where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
            parts.append((Relation(f"SELECT {', '.join(selected)} FROM {source}{where}", cols), set(names)))
        # join connected patterns first (a cross product only when nothing connects), starting from a
        # pattern that binds every variable of a FILTER conjunct: Spark pushes that conjunct down to the
        # pattern's scan, so the solutions joined so far are the fewer, and each hash table is built on
        # them.  The filter query at 10^6 triples: tables of 26 k rows instead of two of 138 k, 5 % less
        # CPU (bench/README.md).  Without one, each new pattern is hashed
        first = next((i for i, (_, vs) in enumerate(parts) if any(f and f <= vs for f in filters)), None)
        rel, bound = parts.pop(first or 0)
        build = "right" if first is None else "left"
        while parts:
            index = next((i for i, (_, vs) in enumerate(parts) if vs & bound), 0)
            nxt, vs = parts.pop(index)
            rel = self.join(rel, nxt, "inner", build)
            bound |= vs
        # a window's content is an RDF graph, a set: a triple that arrives again within the window (or
        # is also background data) is one triple of it (case edges.repeated-triple).  A solution of the
        # BGP determines the triple each pattern matched (constants and variables), so the solutions
        # over the set are the distinct solutions over the bag: one de-duplication of the BGP's
        # solutions, all columns, instead of one per pattern.  The optimizer pushes a FILTER on them
        # below it.  Per pattern, it hashed every matching triple (4 x 138 k rows for the filter query
        # at 10^6 triples; the patterns' code had 54 % of the CPU samples of the job's second stage)
        return rel.keeping(f"SELECT DISTINCT * FROM ({rel.sql}) {self.alias()}")

    def path(self, p, ends: tuple = (None, None)) -> tuple[str, list[str]]:
        """(SQL with the window, ``s`` and ``o`` of every pair the property path connects, its hidden
        columns).  Sequences and alternatives keep SPARQL's bag: a sequence is a join with a hidden
        variable for each node between (SPARQL 1.1 §18.2.2.4), an alternative a union with a hidden branch
        mark, a negated property set one solution per triple (its predicate hidden); the hidden columns
        keep those solutions apart through the pattern's de-duplication, and no projection shows them.
        ``*``, ``+`` and ``?`` are sets of pairs (:meth:`repeated`).  ``ends``: the pattern's subject and
        object where they are constants (N-Triples), which a path of length zero connects to themselves
        even when the graph does not hold them (§18.5, ZeroLengthPath)."""
        def more(hidden, alias=None):
            return "".join(f", {alias + '.' if alias else ''}{quote(h)}" for h in hidden)
        graph = [f"{G} = {sql_string(self.graph)}"] if self.graphs else []
        if isinstance(p, URIRef):
            where = " AND ".join([f"p = {sql_string(n3(p))}"] + graph)
            return f"SELECT {quote(K)}, s, o FROM {self.W} WHERE {where}", []
        if isinstance(p, InvPath):
            sql, hidden = self.path(p.arg, ends[::-1])
            return f"SELECT {quote(K)}, o AS s, s AS o{more(hidden)} FROM ({sql}) {self.alias()}", hidden
        if isinstance(p, SequencePath):
            last = len(p.args) - 1
            sql, hidden = self.path(p.args[0], (ends[0], None))
            for i, step in enumerate(p.args[1:], 1):
                nxt, nxt_hidden = self.path(step, (None, ends[1] if i == last else None))
                mid, left, right = f"__h{next(self._aliases)}", self.alias(), self.alias()
                sql = (f"SELECT {left}.{quote(K)}, {left}.s, {right}.o, {left}.o AS {quote(mid)}{more(hidden, left)}"
                       f"{more(nxt_hidden, right)} FROM ({sql}) {left} JOIN ({nxt}) {right}"
                       f" ON {left}.{quote(K)} = {right}.{quote(K)} AND {left}.o = {right}.s")
                hidden = hidden + [mid] + nxt_hidden
            return sql, hidden
        if isinstance(p, AlternativePath):
            branches = [self.path(a, ends) for a in p.args]
            mark = f"__h{next(self._aliases)}"
            inner = [h for _, hs in branches for h in hs]
            parts = [f"SELECT {quote(K)}, s, o"
                     + "".join(f", {quote(h)}" if h in hs else f", {NULL_TERM} AS {quote(h)}" for h in inner)
                     + f", '{i}' AS {quote(mark)} FROM ({sql}) {self.alias()}" for i, (sql, hs) in enumerate(branches)]
            return " UNION ALL ".join(parts), inner + [mark]
        if isinstance(p, NegatedPath):
            return self.negated(p)
        if isinstance(p, MulPath):
            return self.repeated(p, ends), []
        raise Unsupported(f"property paths ({type(p).__name__})")

    def negated(self, p: NegatedPath) -> tuple[str, list]:
        """SQL and hidden columns of a negated property set: each triple whose predicate is none of the
        forward members, and each one read backwards whose predicate is none of the inverse (``^iri``) members;
        with members of both kinds the two as alternatives (SPARQL 1.1 §18.4, ``!(:p|^:q)`` is
        ``alternative(NPS(:p), inv(NPS(:q)))``).  Each triple is a solution of its own: its predicate is kept
        hidden, so a bag keeps two triples that differ only there."""
        forward = [a for a in p.args if isinstance(a, URIRef)]
        inverse = [a.arg for a in p.args if isinstance(a, InvPath) and isinstance(a.arg, URIRef)]
        if len(forward) + len(inverse) != len(p.args):  # rdflib's own parser loses the IRI of ^iri here (grammar.py)
            raise Unsupported("a negated property set with an inverse member (^iri) that rdflib's parser did not keep")
        graph = [f"{G} = {sql_string(self.graph)}"] if self.graphs else []
        predicate, side = f"__h{next(self._aliases)}", f"__h{next(self._aliases)}"
        branches = [f"SELECT {quote(K)}, {columns}, p AS {quote(predicate)}, '{columns[0]}' AS {quote(side)}"
                    f" FROM {self.W} WHERE "
                    + " AND ".join([f"p NOT IN ({', '.join(sql_string(n3(a)) for a in members)})"] + graph)
                    for members, columns in ((forward, "s, o"), (inverse, "o AS s, s AS o")) if members]
        return " UNION ALL ".join(branches), [predicate, side]

    def repeated(self, p: MulPath, ends: tuple) -> str:
        """SQL: the distinct pairs of ``p*``, ``p+`` or ``p?`` (SPARQL 1.1 §18.5: arbitrary-length paths are
        sets).  ``+`` is the transitive closure of the inner path's pairs, by Spark's recursive CTE: walks
        one step longer at each iteration, de-duplicated per iteration (a recursive CTE takes only UNION
        ALL, so it cannot drop what earlier iterations found, and over a cycle it would never stop).  It
        stops at walks of n steps, n the nodes the pairs touch in that window: a shortest walk visits no node
        twice but perhaps its first at its end, so every connected pair is found by then (a window that needs
        more than Spark's 100 levels is refused: :func:`~engines.spark.sqlterms.refusal`).  ``*`` and ``?``
        add every node of the window's graph and the constant ``ends`` paired with themselves (the
        zero-length path)."""
        if isinstance(p.path, MulPath):  # (p*)+, (p?)?, …: one repetition of the path inside, by set algebra
            return self.repeated(MulPath(p.path.path, p.mod if p.mod == p.path.mod else "*"), ends)
        if p.mod != "?" and _recursive(p.path):
            raise Unsupported("a property path with * or + inside another's * or + (Spark's recursive CTEs do not nest)")
        k, inner = quote(K), self.path(p.path, ends)[0]
        pairs = f"SELECT DISTINCT {k}, s, o FROM ({inner}) {self.alias()}"
        if p.mod == "?":
            found = pairs
        else:  # each walk carries n, so that an iteration joins the last one's walks with the pairs alone
            walks, first, step, nodes = self.alias(), self.alias(), self.alias(), self.alias()
            counted = (f"SELECT {k}, count(DISTINCT x) AS n FROM (SELECT {k}, s AS x FROM ({inner}) {self.alias()}"
                       f" UNION ALL SELECT {k}, o FROM ({inner}) {self.alias()}) {nodes} GROUP BY {k}")
            found = (f"WITH RECURSIVE {walks}({k}, s, o, d, n) AS (SELECT {k}, {first}.s, {first}.o, 1, n"
                     f" FROM ({pairs}) {first} JOIN ({counted}) {self.alias()} USING ({k})"
                     f" UNION ALL SELECT DISTINCT {walks}.{k}, {walks}.s, {step}.o, {walks}.d + 1, {walks}.n"
                     f" FROM {walks} JOIN ({inner}) {step} ON {walks}.{k} = {step}.{k} AND {walks}.o = {step}.s"
                     f" WHERE {walks}.d < {walks}.n) SELECT DISTINCT {k}, s, o FROM {walks}")
        if p.mod == "+":
            return found
        graph = f" WHERE {G} = {sql_string(self.graph)}" if self.graphs else ""
        zero = [f"SELECT {k}, s, s AS o FROM {self.W}{graph}", f"SELECT {k}, o AS s, o FROM {self.W}{graph}"]
        zero += [f"SELECT {k}, {sql_string(end)} AS s, {sql_string(end)} AS o FROM {self.windows}"
                 for end in sorted({e for e in ends if e is not None})]
        return " UNION ".join([f"SELECT * FROM ({found}) {self.alias()}"] + zero)

    def aggregate(self, node) -> Relation:
        group = node.p
        if group.name != "Group":
            raise Unsupported(f"aggregation over {group.name}")
        rel = self.pattern(group.p)
        keys = [K]
        if group.expr:
            for e in group.expr:
                if not isinstance(e, Variable):
                    raise Unsupported("GROUP BY an expression")
                keys.append(col_name(e))
        aggs: list[tuple[str, str]] = []
        per_solution: list[tuple[str, str]] = []  # columns an aggregate reads, computed once per solution
        fills: dict[str, str] = {}
        zero = sql_string(f'"0"^^<{XSD.integer}>')
        for a in node.A:
            if draws_fresh(a.vars):
                raise Unsupported("RAND, UUID, STRUUID or BNODE inside an aggregate")
            res = col_name(a.res)
            kind = a.name
            distinct = "DISTINCT " if a.distinct else ""
            if kind == "Aggregate_Count":
                if a.distinct and a.vars == "*":  # distinct solutions: of the variables, not the hidden columns
                    target = "struct(" + (", ".join(quote(c) for c in rel.cols if c.startswith("v_")) or "1") + ")"
                else:
                    target = "1" if a.vars == "*" else as_term(self.expr(a.vars, rel))
                aggs.append((res, integer_literal(f"count({distinct}{target})")))
                fills[res] = zero
                continue
            if kind in ("Aggregate_Sum", "Aggregate_Avg"):
                value = self.expr(a.vars, rel)
                columns = summands(value, f"{len(per_solution)}")
                if a.distinct:  # each term once in its group: its first solution's columns, the others' null
                    first = (f"row_number() OVER (PARTITION BY {', '.join(quote(k) for k in keys)},"
                             f" {as_term(value)} ORDER BY 1) = 1")
                    columns = [(name, f"CASE WHEN {first} THEN {sql} END") for name, sql in columns]
                per_solution += columns
                aggs.append((res, as_term(total([c for c, _ in columns], average=kind == "Aggregate_Avg"))))
                fills[res] = zero
            elif kind in ("Aggregate_Min", "Aggregate_Max"):
                # in ORDER BY's order (SPARQL 1.1 §18.5.1.6): blank nodes < IRIs < literals, numbers by value
                # an unbound value is left out (min_by skips a null key), as SUM leaves it out; an expression's
                # error (null) makes the aggregate an error, unbound, as it does SUM's (§18.5.1): MIN put it
                # lowest and was unbound, MAX took the others' greatest
                term = as_term(self.expr(a.vars, rel))
                expression = not isinstance(a.vars, Variable)
                if expression:  # read by the pick and four keys: once
                    per_solution.append((f"__m{len(per_solution)}", term))
                    term = quote(per_solution[-1][0])
                pick = "min_by" if kind == "Aggregate_Min" else "max_by"
                order = ", ".join(f"'{name}', {of(term)}" for name, of in ORDER_KEYS)
                picked = f"{pick}({term}, CASE WHEN {term} IS NOT NULL THEN named_struct({order}) END)"
                aggs.append((res, f"CASE WHEN count(*) = count({term}) THEN {picked} END" if expression else picked))
            elif kind == "Aggregate_GroupConcat":
                column = f"__g{len(per_solution)}"
                per_solution.append((column, as_term(self.expr(a.vars, rel))))
                separator = dict.get(a, "separator")  # CompValue.get answers a missing key with its name
                separator = " " if separator is None else str(separator)
                aggs.append((res, functions.group_concat(column, separator, a.distinct)))
                fills[res] = sql_string('""')
            elif kind == "Aggregate_Sample":
                aggs.append((res, f"first({as_term(self.expr(a.vars, rel))}, true)"))
            else:
                raise Unsupported(f"the aggregate {kind}")
        if per_solution:
            extra = ", ".join(f"{sql} AS {quote(name)}" for name, sql in per_solution)
            rel = rel.keeping(f"SELECT *, {extra} FROM ({rel.sql}) {self.alias()}",
                              rel.cols + [name for name, _ in per_solution])
        listed = ", ".join(quote(k) for k in keys)
        selected = ", ".join([listed] + [f"{sql} AS {quote(res)}" for res, sql in aggs])
        unbound = frozenset(k for k in keys if k in rel.nullable) | {res for res, _ in aggs}  # an error: unbound
        if group.expr:
            return Relation(f"SELECT {selected} FROM ({rel.sql}) {self.alias()} GROUP BY {listed}",
                            keys + [res for res, _ in aggs], unbound)
        # one solution per window even when nothing matched (SPARQL 1.1 §18.5.1: COUNT/SUM/AVG = 0); a
        # window whose group exists keeps its aggregates, an error (unbound) included
        out = Relation(f"SELECT {selected}, true AS {quote(PRESENT)} FROM ({rel.sql}) {self.alias()} GROUP BY {listed}",
                       keys + [res for res, _ in aggs] + [PRESENT])
        filled = ", ".join([quote(K)] + [f"CASE WHEN {quote(PRESENT)} IS NULL THEN {fills[c]} ELSE {quote(c)} END"
                                         f" AS {quote(c)}" if c in fills else quote(c)
                                         for c in out.cols if c not in (K, PRESENT)])
        return Relation(f"SELECT {filled} FROM {self.windows} LEFT OUTER JOIN ({out.sql}) {self.alias()}"
                        f" USING ({quote(K)})", [c for c in out.cols if c != PRESENT], unbound)


#: rdflib's algebra names in SPARQL's words, for a refusal
CONSTRUCTS = {"ToMultiSet": "VALUES", "Function": "function calls and casts (e.g. xsd:integer(…))",
              "Minus": "MINUS", "Builtin_EXISTS": "FILTER EXISTS", "Builtin_NOTEXISTS": "FILTER NOT EXISTS",
              "values": "VALUES", "UnaryPlus": "unary +"}


def draws_fresh(node) -> bool:
    """Whether an expression (or a list of them) calls RAND, UUID, STRUUID or BNODE (:func:`fresh_calls`)."""
    return fresh_calls(node) != ([], False)


def fresh_calls(node) -> tuple[list, bool]:
    """(the calls in an expression, or a list of them, that draw a fresh value: RAND, UUID, STRUUID, BNODE();
    whether it calls BNODE(str)), outside the patterns of EXISTS (compiled, and drawn, on their own)."""
    calls, seeded = [], False

    def walk(x) -> None:
        nonlocal seeded
        if isinstance(x, CompValue):
            if x.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
                return
            kind = x.name[len("Builtin_"):] if x.name.startswith("Builtin_") else None
            if kind in functions.FRESH and (kind != "BNODE" or dict.get(x, "arg") is None):
                calls.append(x)
            elif kind == "BNODE":
                seeded = True
            for value in x.values():
                walk(value)
        elif isinstance(x, (list, tuple)):
            for value in x:
                walk(value)
    walk(node)
    return calls, seeded


def inner_existence(exprs: list) -> list:
    """The EXISTS and NOT EXISTS calls inside larger expressions of ``exprs`` (a FILTER's conjuncts, each of
    them not itself an EXISTS), outside the patterns of EXISTS (those are compiled on their own)."""
    found = []

    def walk(x) -> None:
        if isinstance(x, CompValue):
            if x.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
                found.append(x)
                return
            for value in x.values():
                walk(value)
        elif isinstance(x, (list, tuple)):
            for value in x:
                walk(value)
    for expr in exprs:
        walk(expr)
    return found


def agree(left: str, right: str, column: str, loose: bool) -> str:
    """SQL: two aliased solutions agree on ``column`` — equal, or, ``loose`` (either side may leave it
    unbound), SPARQL's compatibility: an unbound value matches anything."""
    a, b = f"{left}.{quote(column)}", f"{right}.{quote(column)}"
    return f"({a} = {b} OR {a} IS NULL OR {b} IS NULL)" if loose else f"{a} = {b}"


def conjuncts(expr) -> list:
    """The conjuncts of a FILTER's expression (rdflib joins a group's FILTERs with &&)."""
    if isinstance(expr, CompValue) and expr.name == "ConditionalAndExpression":
        return [part for e in [expr.expr] + list(expr.other or []) for part in conjuncts(e)]
    return [expr]


def existence(expr) -> tuple[bool, object | None]:
    """(negated, pattern) of ``EXISTS { … }``, ``NOT EXISTS { … }`` or ``!EXISTS { … }``; (False, None) for
    any other expression (an EXISTS inside a larger expression stays refused by name)."""
    if isinstance(expr, CompValue):
        if expr.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            return expr.name == "Builtin_NOTEXISTS", expr.graph
        if expr.name == "UnaryNot":
            negated, graph = existence(expr.expr)
            if graph is not None:
                return not negated, graph
    return False, None


def variables(node) -> set:
    """Every variable that occurs anywhere in an algebra node."""
    if isinstance(node, Variable):
        return {node}
    if isinstance(node, CompValue):
        return {v for value in node.values() for v in variables(value)}
    if isinstance(node, (list, tuple, set)):
        return {v for value in node for v in variables(value)}
    if isinstance(node, dict):
        return {v for pair in node.items() for value in pair for v in variables(value)}
    return set()


def listed(args) -> list:
    """An argument list as rdflib gives it: rdf:nil for an empty one (CONCAT(), IN ())."""
    return [] if args is None or args == RDF.nil else list(args)


#: typed constants a comparison knows the kind of (``Value.const``)
CONSTANT_KINDS = {XSD.dateTime: "dateTime", XSD.boolean: "boolean"}


def construct(name: str) -> str:
    """A construct the compiler refuses, named as a SPARQL user writes it."""
    if name in CONSTRUCTS:
        return CONSTRUCTS[name]
    if name.startswith("Builtin_"):
        return f"the function {name[len('Builtin_'):]}"
    return f"the SPARQL construct {name}"


def order_text(term: str) -> str:
    """SQL: the text ORDER BY and MIN/MAX compare a term by last — a literal's lexical form with its N-Triples
    escapes undone (``"a\\""`` is a, then a quote: before ``"a#"``, as fn:compare orders code points; its
    escaped text put a backslash there, after it), an IRI's text, a blank node's label."""
    return f"coalesce({literal_lexical(term)}, {lexical(term)}, {term})"


def term_rank(term: str) -> str:
    """SQL: a term's place in SPARQL's order of kinds: unbound 0 < blank node 1 < IRI 2 < literal 3."""
    return (f"CASE WHEN ({term}) IS NULL THEN 0 WHEN startswith({term}, '_:') THEN 1"
            f" WHEN startswith({term}, '<') THEN 2 ELSE 3 END")


#: SPARQL's order of terms (§15.1) as SQL keys, compared in turn: the kind, a number's value, a dateTime's
#: instant, the text.  One list for ORDER BY and for MIN/MAX, which take ORDER BY's order.
ORDER_KEYS = (("kind", term_rank), ("number", number), ("instant", date_time_order), ("text", order_text))


def compile_sql(algebra, windowed: str, windows: str, graphs: bool = False) -> tuple[str, Relation, list[str]]:
    """(query form, the query as SQL over the relations named ``windowed`` and ``windows``, projected
    variable names) for a prepared rdflib query's algebra; ``graphs``: ``windowed`` has a graph column
    :data:`G` (several named windows)."""
    c = Compiler(windowed, windows, graphs, dict.get(algebra, BASE))
    if algebra.name == "SelectQuery":
        return "SELECT", c.pattern(algebra.p), [str(v) for v in algebra.PV]
    if algebra.name == "AskQuery":
        rel = c.pattern(algebra.p)
        return "ASK", Relation(f"SELECT DISTINCT {quote(K)}, '\"true\"^^<{XSD.boolean}>' AS `v_ask`"
                               f" FROM ({rel.sql}) {c.alias()}", [K, "v_ask"]), ["ask"]
    if algebra.name == "ConstructQuery":  # the solutions of the template's variables; the triples are made
        rel = c.pattern(algebra.p)      # per window from them (engines.spark.reporter, construct)
        names = sorted({str(x) for triple in template_of(algebra) for x in triple if isinstance(x, Variable)})
        cols = [K] + [col_name(Variable(n)) for n in names]
        return "CONSTRUCT", Relation(f"SELECT {rel.select_list(cols)} FROM ({rel.sql}) {c.alias()}", cols,
                                     frozenset(x for x in cols if x in rel.nullable or x not in rel.cols)), names
    raise Unsupported(f"the query form {algebra.name}")


_VIEWS = itertools.count()


def view_names(keys) -> dict[str, str]:
    """A fresh temporary-view name for each key: runs may overlap in one session."""
    number_ = next(_VIEWS)
    return {key: f"__rspconf_{key}{number_}" for key in keys}


def sql_over(spark, frames: dict[str, DataFrame], names: dict[str, str], text: str) -> DataFrame:
    """``spark.sql(text)`` with each frame registered under its name (:func:`view_names`) for the one
    analysis, and dropped after it: the analysed plan holds the frames' plans, not the names."""
    for key, frame in frames.items():
        frame.createOrReplaceTempView(names[key])
    try:
        return spark.sql(text)
    finally:
        for key in frames:
            spark.catalog.dropTempView(names[key])


def compile_query(algebra, windowed: DataFrame, windows: DataFrame) -> tuple[str, DataFrame, list[str]]:
    """(query form, result DataFrame, projected variable names): :func:`compile_sql` over two frames
    (the engine compiles inside one larger text, :func:`engines.spark.windowjob.solve_sql`; this is the
    compiler alone, for tests and tools)."""
    frames = {"W": windowed, "windows": windows}
    names = view_names(frames)
    form, rel, projected = compile_sql(algebra, names["W"], names["windows"])
    return form, sql_over(windowed.sparkSession, frames, names, rel.sql), projected
